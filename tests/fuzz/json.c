// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: arbitrary bytes as the file of --compare=OLD.json,
 * through the strict JSON reader (lib/json.c) and the report's checks
 * (report/compare.c), then set against a small report of two rows, so
 * that a truncated or hostile file can neither read out of bounds, leak,
 * nor overflow into UB.  A refused file has a one-line cause without a
 * control character; an accepted one is compared with both rows and the
 * total.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/json.h"
#include "report/compare.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct row_type types[] = {
		{ 3, { 4096, 131072, 131072, 0, 0, 0, 0, 0 }, { 0 } },
	};
	struct report_row rows[2] = {
		{ .path = (char *)"./a", .files = 1, .types = types,
		  .ntypes = 1, .size = { 4096, 131072, 131072, 0, 0, 0, 0, 0 } },
		{ .path = (char *)".", .files = 1, .types = types,
		  .ntypes = 1, .size = { 4096, 131072, 131072, 0, 0, 0, 0, 0 } },
	};
	struct report r = { .rows = rows, .nrows = 2 };
	struct report_row total = { 0 };
	const struct report_row *out;
	struct json_value *v;
	struct compare *c;
	char err[256];
	size_t n, i;
	int ret;

	ret = json_parse((const char *)data, size, &v, err, sizeof(err));
	if (ret == -EINVAL)
		for (i = 0; err[i]; i++)
			if ((unsigned char)err[i] < 0x20 || err[i] == 0x7f)
				abort();
	json_free(v);
	ret = compare_parse((const char *)data, size, &c, err, sizeof(err));
	if (ret) {
		if (ret != -EINVAL && ret != -ENOMEM)
			abort();
		if (ret == -EINVAL && (!err[0] || strchr(err, '\n')))
			abort();
		return 0;
	}
	if (compare_rows(c, &r, size & 1, size & 2, &out, &n))
		abort();
	for (i = 0; i < n; i++)
		if (out[i].change.status > CHANGE_REMOVED)
			abort();
	total.types = calloc(1, sizeof(*total.types));
	if (!total.types)
		abort();
	total.types[0] = types[0];
	total.ntypes = 1;
	if (compare_total(c, &total))
		abort();
	free(total.types);
	compare_free(c);
	return 0;
}
