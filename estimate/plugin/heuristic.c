// SPDX-License-Identifier: GPL-2.0
/*
 * The compress= (not compress-force=) gatekeeper: fs/btrfs/compression.c
 * btrfs_compress_heuristic() and its helpers, reproduced decision for
 * decision, including the integer arithmetic and the quirks of its sort.
 */
#include <string.h>
#include "estimate/plugin/internal.h"

#define EST_SAMPLING_READ_SIZE	16
#define EST_SAMPLING_INTERVAL	256
#define EST_BUCKET_SIZE		256
#define EST_BYTE_SET_THRESHOLD	64
#define EST_BYTE_CORE_SET_LOW	64
#define EST_BYTE_CORE_SET_HIGH	200
#define EST_ENTROPY_LVL_HIGH	80

/* heuristic_collect_sample(); returns the sample size. */
static uint32_t est_collect_sample(const uint8_t *buf, uint64_t buf_off,
				   uint64_t start, uint64_t end, uint8_t *sample)
{
	uint64_t index, index_end;
	uint32_t pos = 0;

	if (end - start > EST_PIECE_MAX)
		end = start + EST_PIECE_MAX;
	index = start / EST_PAGE_SIZE;
	index_end = end / EST_PAGE_SIZE;
	if (end % EST_PAGE_SIZE)
		index_end++;
	for (; index < index_end; index++) {
		const uint8_t *page = buf + (index * EST_PAGE_SIZE - buf_off);
		uint32_t i = start % EST_PAGE_SIZE;

		while (i < EST_PAGE_SIZE - EST_SAMPLING_READ_SIZE) {
			/* u64 arithmetic as in the kernel: wraps when end < 16 */
			if (start > end - EST_SAMPLING_READ_SIZE)
				break;
			memcpy(sample + pos, page + i, EST_SAMPLING_READ_SIZE);
			i += EST_SAMPLING_INTERVAL;
			start += EST_SAMPLING_INTERVAL;
			pos += EST_SAMPLING_READ_SIZE;
		}
	}
	return pos;
}

static uint32_t est_ilog2(uint64_t n)
{
	return n ? 63 - __builtin_clzll(n) : 0;
}

/* ilog2_w(): ilog2 of n^4 for precision. */
static uint32_t est_ilog2_w(uint64_t n)
{
	return est_ilog2(n * n * n * n);
}

/*
 * radix_sort() sorts descending by only ALIGN(ilog2(max), 8) low bits of
 * each count, stably: a maximum count of 256..511 sorts by the low 8 bits
 * and a maximum of 1 does not sort at all.  Same result, as a stable sort
 * by one key has only one: an LSD radix sort like the kernel's, 8 bits a
 * pass where it takes 4 (an insertion sort here cost a visible share of
 * a run).
 */
static void est_sort_counts(uint32_t *count)
{
	uint32_t tmp[EST_BUCKET_SIZE], pos[256];
	uint32_t *src = count, *dst = tmp, *t;
	uint32_t max = 0, bitlen, shift, sum, c;
	int i;

	for (i = 0; i < EST_BUCKET_SIZE; i++)
		if (count[i] > max)
			max = count[i];
	bitlen = (est_ilog2(max) + 7) / 8 * 8;
	for (shift = 0; shift < bitlen; shift += 8) {
		/* descending: digit d goes to bucket 255 - d */
		memset(pos, 0, sizeof(pos));
		for (i = 0; i < EST_BUCKET_SIZE; i++)
			pos[255 - ((src[i] >> shift) & 0xff)]++;
		for (i = 0, sum = 0; i < 256; i++) {
			c = pos[i];
			pos[i] = sum;
			sum += c;
		}
		for (i = 0; i < EST_BUCKET_SIZE; i++)
			dst[pos[255 - ((src[i] >> shift) & 0xff)]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != count)
		memcpy(count, src, sizeof(tmp));
}

/* byte_core_set_size() */
static uint32_t est_core_set_size(uint32_t *count, uint32_t sample_size)
{
	uint32_t threshold = sample_size * 90 / 100, sum = 0, i;

	est_sort_counts(count);
	for (i = 0; i < EST_BYTE_CORE_SET_LOW; i++)
		sum += count[i];
	if (sum > threshold)
		return i;
	for (; i < EST_BYTE_CORE_SET_HIGH && count[i] > 0; i++) {
		sum += count[i];
		if (sum > threshold)
			break;
	}
	return i;
}

/* shannon_entropy(), percent of 8 bits per byte; needs sorted counts. */
static uint32_t est_entropy(const uint32_t *count, uint32_t sample_size)
{
	const uint32_t entropy_max = 8 * est_ilog2_w(2);
	uint32_t sum = 0, sz_base = est_ilog2_w(sample_size), i;

	for (i = 0; i < EST_BUCKET_SIZE && count[i] > 0; i++)
		sum += count[i] * (sz_base - est_ilog2_w(count[i]));
	sum /= sample_size;
	return sum * 100 / entropy_max;
}

bool est_heuristic(const uint8_t *buf, uint64_t buf_off, uint64_t start,
		   uint64_t end)
{
	uint8_t sample[EST_SAMPLE_MAX];
	uint32_t count[EST_BUCKET_SIZE] = { 0 };
	uint32_t n, i, set = 0;

	n = est_collect_sample(buf, buf_off, start, end, sample);
	/* sample_repeated_patterns() */
	if (!memcmp(sample, sample + n / 2, n / 2))
		return true;
	for (i = 0; i < n; i++)
		count[sample[i]]++;
	/* byte_set_size() */
	for (i = 0; i < EST_BUCKET_SIZE; i++)
		if (count[i])
			set++;
	if (set < EST_BYTE_SET_THRESHOLD)
		return true;
	i = est_core_set_size(count, n);
	if (i <= EST_BYTE_CORE_SET_LOW)
		return true;
	if (i >= EST_BYTE_CORE_SET_HIGH)
		return false;
	/* below ENTROPY_LVL_ACEPTABLE or ENTROPY_LVL_HIGH: both compress */
	return est_entropy(count, n) < EST_ENTROPY_LVL_HIGH;
}
