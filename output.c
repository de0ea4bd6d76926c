// SPDX-License-Identifier: GPL-2.0
/* Report formatting. */
#include <inttypes.h>
#include "output.h"

char *out_size(uint64_t x, int raw, char buf[OUT_BUF])
{
	static const char units[] = "BKMGTPE";
	int u = 0;

	if (raw) {
		snprintf(buf, OUT_BUF, "%" PRIu64, x);
		return buf;
	}
	while (x >= 10240) {
		u++;
		x >>= 10;
	}
	if (x >= 1024)
		snprintf(buf, OUT_BUF, " %" PRIu64 ".%" PRIu64 "%c", x >> 10,
			 x * 10 / 1024 % 10, units[u + 1]);
	else
		snprintf(buf, OUT_BUF, "%4" PRIu64 "%c", x, units[u]);
	return buf;
}

unsigned out_percent(uint64_t disk, uint64_t uncomp)
{
	if (!uncomp)
		return 0;
	return (unsigned)((unsigned __int128)disk * 100 / uncomp);
}

const char *out_type_name(unsigned row, char buf[OUT_BUF])
{
	static const char *const names[] = { "none", "zlib", "lzo", "zstd" };

	if (row == CS_TYPE_PREALLOC)
		return "prealloc";
	if (row < sizeof(names) / sizeof(names[0]))
		return names[row];
	snprintf(buf, OUT_BUF, "?%u", row);
	return buf;
}

void out_totals(const struct cs_stats *st, uint64_t *disk, uint64_t *uncomp,
		uint64_t *refd)
{
	unsigned t;

	*disk = *uncomp = *refd = 0;
	for (t = 0; t < CS_NTYPES; t++) {
		*disk += st->disk[t];
		*uncomp += st->uncomp[t];
		*refd += st->refd[t];
	}
}

static void table_row(FILE *out, const char *type, unsigned perc,
		      uint64_t disk, uint64_t uncomp, uint64_t refd, int raw)
{
	char p[8], d[OUT_BUF], u[OUT_BUF], r[OUT_BUF];

	snprintf(p, sizeof(p), "%3u%%", perc);
	fprintf(out, "%-10s %-8s %-12s %-12s %-12s\n", type, p,
		out_size(disk, raw, d), out_size(uncomp, raw, u),
		out_size(refd, raw, r));
}

int out_table(FILE *out, FILE *err, const struct cs_stats *st, int raw)
{
	uint64_t disk, uncomp, refd;
	char name[OUT_BUF];
	unsigned t;

	out_totals(st, &disk, &uncomp, &refd);
	if (!uncomp) {
		fputs(st->nfiles ? "All empty or still-delalloced files.\n"
				 : "No files.\n", err);
		return 1;
	}
	fprintf(out, "Processed %" PRIu64 " file%s, %" PRIu64
		" regular extents (%" PRIu64 " refs), %" PRIu64 " inline.\n",
		st->nfiles, st->nfiles > 1 ? "s" : "", st->nextents,
		st->nrefs, st->ninline);
	fprintf(out, "%-10s %-8s %-12s %-12s %-12s\n", "Type", "Perc",
		"Disk Usage", "Uncompressed", "Referenced");
	table_row(out, "TOTAL", out_percent(disk, uncomp), disk, uncomp, refd,
		  raw);
	for (t = 0; t < CS_NTYPES; t++) {
		if (!st->uncomp[t])
			continue;
		table_row(out, out_type_name(t, name),
			  out_percent(st->disk[t], st->uncomp[t]), st->disk[t],
			  st->uncomp[t], st->refd[t], raw);
	}
	return 0;
}
