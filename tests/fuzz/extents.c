// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: arbitrary bytes as a TREE_SEARCH_V2 result buffer, through
 * search_buf_next(), extent_parse(), extent_account() into one cs_stats and
 * seen set, then the 1.5 table.  A real kernel never hands us such bytes; a
 * corrupt or hostile filesystem (or a kernel bug) can, and none of it may
 * read out of bounds, overflow into UB, or lose track of the seen set.
 *
 * Input: byte 0 picks the sector size and -b; the rest is the buffer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scan/extent.h"
#include "ioctl.h"
#include "report/format.h"
#include "report/report.h"
#include "scan/search.h"
#include "seen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_table(const struct cs_stats *st, int raw)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	FILE *err = fopen("/dev/null", "w");
	int ret;

	if (!out || !err)
		abort();
	ret = report_table(out, err, st, raw);
	fclose(out);
	fclose(err);
	/* A report has a header line, the column titles and TOTAL. */
	if (ret == 0 && strncmp(text, "Processed ", 10))
		abort();
	if (ret != 0 && len)
		abort();
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t sectorsizes[] = { 0, 4096, 16384, 65536 };
	struct cs_stats *st;
	struct seen_set *seen;
	struct search_item item;
	struct extent_info ei;
	uint64_t last_ino = 0;
	size_t pos = 0, prev;
	uint32_t sectorsize;
	int raw, ret;

	if (size < 1)
		return 0;
	sectorsize = sectorsizes[data[0] & 3];
	raw = !!(data[0] & 4);
	data++;
	size--;

	st = calloc(1, sizeof(*st));
	seen = seen_create();
	if (!st || !seen)
		abort();
	for (;;) {
		prev = pos;
		ret = search_buf_next(data, size, &pos, &item);
		if (ret <= 0)
			break;
		/* Progress, and the item lies inside the buffer. */
		if (pos <= prev || pos > size ||
		    item.data != data + prev + SEARCH_HEADER_SIZE ||
		    item.data + item.len != data + pos)
			abort();
		if (item.type != BTRFS_EXTENT_DATA_KEY)
			continue;
		if (!st->nfiles || item.objectid != last_ino) {
			extent_begin_file(st);
			last_ino = item.objectid;
		}
		if (extent_parse(item.data, item.len, sectorsize, &ei))
			continue;
		if (extent_row(&ei) >= CS_NTYPES)
			abort();
		if (extent_account(st, seen, &ei))
			abort();
		if (ei.type != BTRFS_FILE_EXTENT_INLINE && ei.disk_bytenr &&
		    !seen_contains(seen, ei.disk_bytenr))
			abort();
	}
	if (ret < 0 && ret != -EUCLEAN)
		abort();
	if (ret == 0 && pos != size)
		abort();
	/* Each distinct extent is counted exactly once. */
	if (st->nextents != seen_count(seen))
		abort();
	check_table(st, raw);
	seen_free(seen);
	free(st);
	return 0;
}
