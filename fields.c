// SPDX-License-Identifier: GPL-2.0
/* The report's columns (fields.h): one line each. */
#include <string.h>
#include "fields.h"

#define SIZE(m) offsetof(struct report_sizes, m)
#define COUNT(m) offsetof(struct report_row, m)

const struct field fields_size[] = {
	{ "disk", "Disk Usage", SIZE(disk), FIELD_EST, 0 },
	{ "uncompressed", "Uncompressed", SIZE(uncomp), FIELD_EST, 0 },
	{ "referenced", "Referenced", SIZE(refd), 0, 0 },
	{ "exclusive", "Exclusive", SIZE(excl), FIELD_TOTAL_TYPES,
	  REPORT_SHOW_EXCLUSIVE },
};
const size_t fields_nsize = sizeof(fields_size) / sizeof(fields_size[0]);
_Static_assert(sizeof(fields_size) / sizeof(fields_size[0]) <= FIELDS_MAX,
	       "FIELDS_MAX must hold every size field");

const struct field fields_count[] = {
	{ "files", NULL, COUNT(files), 0, 0 },
	{ "extents", NULL, COUNT(extents), 0, 0 },
	{ "refs", NULL, COUNT(refs), 0, 0 },
	{ "inline", NULL, COUNT(ninline), 0, 0 },
	{ "fragments", NULL, COUNT(nfrag), FIELD_NO_CSV, 0 },
};
const size_t fields_ncount = sizeof(fields_count) / sizeof(fields_count[0]);

int field_shown(const struct field *f, const struct report *r)
{
	return !f->need || (r->show & f->need);
}

uint64_t field_value(const struct field *f, const void *base)
{
	uint64_t v;

	memcpy(&v, (const char *)base + f->offset, sizeof(v));
	return v;
}
