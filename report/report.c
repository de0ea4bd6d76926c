// SPDX-License-Identifier: GPL-2.0
/* The report in the format asked (report.h): each format is a renderer of
 * its own; this only picks one. */
#include <errno.h>
#include <stdlib.h>
#include "report/csv.h"
#include "report/json.h"
#include "report/ncdu.h"
#include "report/plot.h"
#include "report/prom.h"
#include "report/report.h"
#include "report/table.h"

int report_table(FILE *out, FILE *err, const struct cs_stats *st, int raw)
{
	return table_usage(out, err, st, raw);
}

int report_plot(FILE *out, const struct report *r, const char *title)
{
	size_t n = r->nest, ns = 1 + r->nrows, i, k;
	const char **names = calloc(n ? n : 1, sizeof(*names));
	double *c = calloc(n ? n : 1, sizeof(*c));
	double *d = calloc(n ? n : 1, sizeof(*d));
	double *ratio = calloc(ns * (n ? n : 1), sizeof(*ratio));
	struct plot_series *series = calloc(ns, sizeof(*series));
	struct plot_in in = {
		.nset = n, .setting = names, .compress_mbps = c,
		.decompress_mbps = d, .series = series, .nseries = ns,
		.title = title,
	};
	int ret = -ENOMEM;

	if (!names || !c || !d || !ratio || !series)
		goto out;
	for (i = 0; i < n; i++) {
		const struct report_est *e = &r->est[i];

		names[i] = e->setting;
		c[i] = e->compress_mbps;
		d[i] = e->decompress_mbps;
		ratio[i] = e->disk ? (double)e->uncompressed / e->disk : 0;
	}
	series[0].name = "TOTAL";
	series[0].ratio = ratio;
	for (k = 0; k < r->nrows; k++) {
		const struct report_row *row = &r->rows[k];

		series[k + 1].name = row->path;
		series[k + 1].ratio = &ratio[(k + 1) * n];
		for (i = 0; i < n; i++) {
			const uint64_t *v = report_row_est(r, row, i, 0);

			ratio[(k + 1) * n + i] = v[0] ? (double)v[1] / v[0]
						      : 0;
		}
	}
	ret = plot_svg(out, &in);
out:
	free(names);
	free(c);
	free(d);
	free(ratio);
	free(series);
	return ret;
}

int report_stream_row(FILE *out, const struct report *r,
		      const struct report_row *row, size_t i)
{
	switch (r->format) {
	case REPORT_JSON:
		return json_print_row(out, r, row, i);
	case REPORT_CSV:
		return csv_print_row(out, r, row);
	case REPORT_TABLE:
		return table_spool_row(out, row);
	default:
		return -EINVAL;
	}
}

int report_print(FILE *out, FILE *err, const struct report *r)
{
	int ret;

	switch (r->format) {
	case REPORT_JSON:
		ret = json_print(out, r);
		break;
	case REPORT_CSV:
		ret = csv_print(out, r);
		break;
	case REPORT_PROMETHEUS:
		ret = prom_print(out, r);
		break;
	case REPORT_NCDU:
		ret = ncdu_print(r->tree, out, COMPSIZE_VERSION, r->timestamp);
		break;
	default:
		return table_print(out, err, r);
	}
	if (ret)
		return ret;
	return report_nothing(r);
}
