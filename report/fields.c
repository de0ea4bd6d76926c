// SPDX-License-Identifier: GPL-2.0
/* The report's columns (fields.h): one line each. */
#include <string.h>
#include "report/fields.h"

#define SIZE(m) offsetof(struct report_sizes, m)
#define COUNT(m) offsetof(struct report_row, m)

const struct field fields_size[] = {
	{ "disk", "Disk Usage", SIZE(disk), FIELD_EST, 0,
	  "Bytes on disk after compression, each extent counted once" },
	{ "uncompressed", "Uncompressed", SIZE(uncomp), FIELD_EST, 0,
	  "The same extents' bytes before compression" },
	{ "referenced", "Referenced", SIZE(refd), 0, 0,
	  "Bytes the files reference, each reference counted" },
	{ "exclusive", "Exclusive", SIZE(excl), FIELD_TOTAL_TYPES,
	  REPORT_SHOW_EXCLUSIVE,
	  "Bytes on disk deleting the files would free (no file outside them references them)" },
};
const size_t fields_nsize = sizeof(fields_size) / sizeof(fields_size[0]);
_Static_assert(sizeof(fields_size) / sizeof(fields_size[0]) <= FIELDS_MAX,
	       "FIELDS_MAX must hold every size field");

const struct field fields_count[] = {
	{ "id", "ID", COUNT(id), FIELD_ROW_ONLY, REPORT_SHOW_SUBVOLUMES,
	  "The subvolume's id" },
	{ "readonly", "Flags", COUNT(readonly), FIELD_ROW_ONLY | FIELD_BOOL,
	  REPORT_SHOW_SUBVOLUMES, "1 when the subvolume is read-only" },
	{ "files", "Files", COUNT(files), 0, 0, "Regular files counted, once per path" },
	{ "extents", NULL, COUNT(extents), 0, 0, "Distinct regular extents" },
	{ "refs", NULL, COUNT(refs), 0, 0, "References to regular extents" },
	{ "inline", NULL, COUNT(ninline), 0, 0, "Inline extents (data kept in metadata)" },
	{ "fragments", NULL, COUNT(nfrag), FIELD_NO_CSV, 0,
	  "Runs of physically contiguous data" },
};
const size_t fields_ncount = sizeof(fields_count) / sizeof(fields_count[0]);

int field_shown(const struct field *f, const struct report *r)
{
	return !f->need || (r->show & f->need);
}

int field_in_row(const struct field *f, const struct report_row *row)
{
	return row->path || !(f->flags & FIELD_ROW_ONLY);
}

uint64_t field_value(const struct field *f, const void *base)
{
	uint64_t v;

	memcpy(&v, (const char *)base + f->offset, sizeof(v));
	return v;
}
