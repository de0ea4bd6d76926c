// SPDX-License-Identifier: GPL-2.0
/* The --plot SVG: ratio against compress and decompress speed (plot.h). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "report/plot.h"

/* Geometry, in SVG user units (pixels). */
#define PLOT_W		1000
#define PLOT_PANEL_W	500
#define PLOT_LEFT	70	/* y axis labels */
#define PLOT_AREA_W	400
#define PLOT_TOP	60
#define PLOT_AREA_H	320
#define PLOT_LEGEND_Y	(PLOT_TOP + PLOT_AREA_H + 60)
#define PLOT_LINE_H	18
#define PLOT_LEGEND_COLS 2	/* legend columns when it is long */
#define PLOT_LEGEND_ONE	8	/* series listed in one column at most */
#define PLOT_LABEL_CH	6.5	/* width of a label's character, font 11 */
#define PLOT_DODGE_W	10	/* the rows' points spread sideways (dodge()) */

/* The rows' styles: ten colours and four markers, each row the next of
 * both, so that 20 rows beside the total are each told apart (and two
 * rows next to each other in the legend by colour and by marker); more
 * would make the charts unreadable, and are counted in the legend, not
 * drawn (--top chooses which). */
static const char *const palette[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
	"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};
#define PLOT_NCOLORS (sizeof(palette) / sizeof(palette[0]))
enum { MARK_CIRCLE, MARK_SQUARE, MARK_TRIANGLE, MARK_DIAMOND, PLOT_NMARKS };
#define PLOT_ROWS_MAX	20	/* the least common multiple of the two */
#define PLOT_TOTAL_COLOR "#000000"

/* Series s's colour and marker: the total black circles, row s the
 * (s - 1)th style. */
static const char *series_color(size_t s)
{
	return s ? palette[(s - 1) % PLOT_NCOLORS] : PLOT_TOTAL_COLOR;
}

static int series_mark(size_t s)
{
	return s ? (int)((s - 1) % PLOT_NMARKS) : MARK_CIRCLE;
}

/* A marker of radius r at (x, y); class "pt" for the charts' points. */
static void marker(FILE *out, int mark, double x, double y, double r,
		   const char *color, const char *cls)
{
	switch (mark) {
	case MARK_SQUARE:
		fprintf(out, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" "
			"width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
			cls, x - r * 0.85, y - r * 0.85, r * 1.7, r * 1.7, color);
		break;
	case MARK_TRIANGLE:
		fprintf(out, "<path class=\"%s\" d=\"M%.1f %.1fL%.1f %.1fL%.1f "
			"%.1fZ\" fill=\"%s\"/>\n", cls, x, y - r * 1.15,
			x + r, y + r * 0.7, x - r, y + r * 0.7, color);
		break;
	case MARK_DIAMOND:
		fprintf(out, "<path class=\"%s\" d=\"M%.1f %.1fL%.1f %.1fL%.1f "
			"%.1fL%.1f %.1fZ\" fill=\"%s\"/>\n", cls, x, y - r * 1.2,
			x + r * 1.2, y, x, y + r * 1.2, x - r * 1.2, y, color);
		break;
	default:
		fprintf(out, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" "
			"r=\"%.1f\" fill=\"%s\"/>\n", cls, x, y, r, color);
		break;
	}
}

double plot_log10(double x)
{
	/* x = m 2^e, m in [0.5, 1): ln m = 2 atanh((m - 1) / (m + 1)) */
	double m, z, z2, term, sum = 0;
	int e, k;

	m = frexp(x, &e);
	z = (m - 1) / (m + 1);
	z2 = z * z;
	term = z;
	for (k = 1; k < 40; k += 2) {
		sum += term / k;
		term *= z2;
	}
	return (2 * sum + e * 0.69314718055994530942) / 2.30258509299404568402;
}

static double pow10i(int k)
{
	double v = 1;

	for (; k > 0; k--)
		v *= 10;
	for (; k < 0; k++)
		v /= 10;
	return v;
}

/* floor() for the small values here, without libm */
static int ifloor(double v)
{
	int i = (int)v;

	return (double)i > v ? i - 1 : i;
}

/* Text as XML character data: markup escaped, and bytes that are not
 * valid UTF-8 or are control characters shown as '?', so the document
 * stays well formed whatever a file name holds. */
static void xml_text(FILE *out, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t shown = 0;
	int n, i;

	while (*p && shown < max) {
		if (*p < 0x80) {
			if (*p == '&')
				fputs("&amp;", out);
			else if (*p == '<')
				fputs("&lt;", out);
			else if (*p == '>')
				fputs("&gt;", out);
			else if (*p == '"')
				fputs("&quot;", out);
			else if (*p < 0x20 || *p == 0x7f)
				fputc('?', out);
			else
				fputc(*p, out);
			p++;
			shown++;
			continue;
		}
		n = (*p & 0xe0) == 0xc0 && *p >= 0xc2 ? 2 :
		    (*p & 0xf0) == 0xe0 ? 3 :
		    (*p & 0xf8) == 0xf0 && *p <= 0xf4 ? 4 : 0;
		for (i = 1; i < n; i++)
			if ((p[i] & 0xc0) != 0x80)
				n = 0;
		/* overlong 3-byte forms, surrogates, above U+10FFFF */
		if (n == 3 && ((p[0] == 0xe0 && p[1] < 0xa0) ||
			       (p[0] == 0xed && p[1] >= 0xa0)))
			n = 0;
		if (n == 4 && ((p[0] == 0xf0 && p[1] < 0x90) ||
			       (p[0] == 0xf4 && p[1] >= 0x90)))
			n = 0;
		if (!n) {
			fputc('?', out);
			p++;
		} else {
			fwrite(p, 1, n, out);
			p += n;
		}
		shown++;
	}
	if (*p)
		fputs("...", out);
}

/* "compress=zstd:3" -> "zstd:3", "compress-force=lzo" -> "force lzo" */
static void short_name(FILE *out, const char *setting)
{
	if (!strncmp(setting, "compress=", 9)) {
		xml_text(out, setting + 9, 40);
	} else if (!strncmp(setting, "compress-force=", 15)) {
		fputs("force ", out);
		xml_text(out, setting + 15, 40);
	} else {
		xml_text(out, setting, 40);
	}
}

/* The characters short_name() shows (settings are ASCII). */
static size_t short_len(const char *setting)
{
	size_t n = strlen(setting);

	if (!strncmp(setting, "compress=", 9))
		n -= 9;
	else if (!strncmp(setting, "compress-force=", 15))
		n -= 15 - 6;
	return n < 40 ? n : 43;
}

/*
 * Row s's points moved sideways by a few pixels, the rows spread over
 * PLOT_DODGE_W around the setting's speed, so that rows with the same
 * ratio there do not hide each other: 5 pixels either side are under 9%
 * of the speed on an axis of three decades, less than a speed moves from
 * run to run on a busy machine (docs/estimate.md, Speed figures).  The
 * total stays on its speed.
 */
static double dodge(size_t s, size_t nseries)
{
	double step;

	if (!s || nseries < 3)
		return 0;
	step = PLOT_DODGE_W / (double)(nseries - 1);
	if (step > 3)
		step = 3;
	return ((double)s - (double)nseries / 2) * step;
}

/* A box taken on a chart, by a label or a point of the total. */
struct box {
	double x0, y0, x1, y1;
};

static int box_free(const struct box *b, const struct box *taken, size_t n)
{
	size_t i;

	if (b->x0 < 0 || b->x1 > PLOT_AREA_W || b->y0 < 0 ||
	    b->y1 > PLOT_AREA_H)
		return 0;
	for (i = 0; i < n; i++)
		if (b->x0 < taken[i].x1 && taken[i].x0 < b->x1 &&
		    b->y0 < taken[i].y1 && taken[i].y0 < b->y1)
			return 0;
	return 1;
}

struct axis {
	double lo, hi;		/* log10 of the bounds for a log axis */
	int log;
};

static double axis_pos(const struct axis *a, double v, double len)
{
	double t = a->log ? plot_log10(v) : v;

	return (t - a->lo) / (a->hi - a->lo) * len;
}

/* The speed axis: whole decades around the values. */
static void speed_axis(const double *v, size_t n, struct axis *a)
{
	double lo = 0, hi = 0;
	size_t i;
	int first = 1;

	for (i = 0; i < n; i++) {
		if (!(v[i] > 0))
			continue;
		if (first || plot_log10(v[i]) < lo)
			lo = plot_log10(v[i]);
		if (first || plot_log10(v[i]) > hi)
			hi = plot_log10(v[i]);
		first = 0;
	}
	a->log = 1;
	a->lo = ifloor(lo);
	a->hi = -ifloor(-hi);
	if (a->hi <= a->lo)
		a->hi = a->lo + 1;
}

/* The ratio axis: a step of 1, 2, 2.5 or 5 times a power of ten giving
 * at most 8 intervals, bounds on the step. */
static double ratio_axis(double lo, double hi, struct axis *a)
{
	static const double mult[] = { 1, 2, 2.5, 5, 10 };
	double span, step = 1, base;
	int k;
	size_t j;

	if (hi - lo < 0.1) {
		lo -= 0.05;
		hi += 0.05;
	}
	span = hi - lo;
	k = ifloor(plot_log10(span / 8));
	base = pow10i(k);
	for (j = 0; j < sizeof(mult) / sizeof(mult[0]); j++) {
		step = mult[j] * base;
		if (span / step <= 8)
			break;
	}
	a->log = 0;
	a->lo = ifloor(lo / step) * step;
	a->hi = -ifloor(-hi / step) * step;
	if (a->lo < 0)
		a->lo = 0;
	return step;
}

/* One chart; nseries: the series drawn.  Returns 0 or -ENOMEM. */
static int panel(FILE *out, const struct plot_in *in, size_t nseries,
		 int x0, const double *speed, const char *label,
		 const struct axis *ya, double ystep)
{
	struct axis xa;
	/* the total's points and the names placed */
	struct box *taken = malloc(2 * in->nset * sizeof(*taken));
	size_t *order = malloc(in->nset * sizeof(*order));
	double v, x, y;
	size_t s, i, j, ntaken = 0;
	int k, d;

	if (!taken || !order) {
		free(taken);
		free(order);
		return -ENOMEM;
	}
	speed_axis(speed, in->nset, &xa);
	/* the settings by speed, for the curves */
	for (i = 0; i < in->nset; i++) {
		for (j = i; j > 0 && speed[order[j - 1]] > speed[i]; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	fprintf(out, "<g transform=\"translate(%d,%d)\">\n", x0 + PLOT_LEFT,
		PLOT_TOP);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
		"fill=\"#ffffff\" stroke=\"#444444\"/>\n", PLOT_AREA_W,
		PLOT_AREA_H);
	/* x grid and labels: 1, 2 and 5 times each power of ten */
	for (k = (int)xa.lo; k <= (int)xa.hi; k++) {
		for (d = 1; d <= 5; d += d == 2 ? 3 : 1) {
			v = d * pow10i(k);
			if (d > 1 && k == (int)xa.hi)
				break;
			x = axis_pos(&xa, v, PLOT_AREA_W);
			fprintf(out, "<line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" "
				"y2=\"%d\" stroke=\"#dddddd\"/>\n", x, x,
				PLOT_AREA_H);
			/* over more than two decades 2 and 5 would crowd */
			if (d > 1 && xa.hi - xa.lo > 2)
				continue;
			fprintf(out, "<text x=\"%.1f\" y=\"%d\" "
				"text-anchor=\"middle\">%g</text>\n", x,
				PLOT_AREA_H + 18, v);
		}
	}
	for (v = ya->lo; v <= ya->hi + ystep / 1000; v += ystep) {
		y = PLOT_AREA_H - axis_pos(ya, v, PLOT_AREA_H);
		fprintf(out, "<line x1=\"0\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
			"stroke=\"#dddddd\"/>\n", y, PLOT_AREA_W, y);
		fprintf(out, "<text x=\"-8\" y=\"%.1f\" text-anchor=\"end\">"
			"%.4g</text>\n", y + 4, v);
	}
	fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s"
		"</text>\n", PLOT_AREA_W / 2, PLOT_AREA_H + 40, label);
	fprintf(out, "<text transform=\"translate(-48,%d) rotate(-90)\" "
		"text-anchor=\"middle\">compression ratio (uncompressed / "
		"disk)</text>\n", PLOT_AREA_H / 2);
	/* each row's settings joined in the order of their speed, a curve
	 * that can be followed where many rows share a setting's x; the
	 * rows first, the total (series 0) on top */
	for (s = nseries; s-- > 0;) {
		const struct plot_series *ps = &in->series[s];
		double dx = dodge(s, nseries);
		int first = 1;

		for (k = 0; k < (int)in->nset; k++) {
			i = order[k];
			if (!(ps->ratio[i] > 0) || !(speed[i] > 0))
				continue;
			x = axis_pos(&xa, speed[i], PLOT_AREA_W) + dx;
			y = PLOT_AREA_H - axis_pos(ya, ps->ratio[i],
						   PLOT_AREA_H);
			if (first)
				fprintf(out, "<polyline fill=\"none\" "
					"stroke=\"%s\" stroke-width=\"%s\" "
					"stroke-opacity=\"%s\" points=\"",
					series_color(s), s ? "1" : "1.5",
					s ? "0.45" : "0.8");
			fprintf(out, "%s%.1f,%.1f", first ? "" : " ", x, y);
			first = 0;
		}
		if (!first)
			fputs("\"/>\n", out);
		for (i = 0; i < in->nset; i++) {
			if (!(ps->ratio[i] > 0) || !(speed[i] > 0))
				continue;
			x = axis_pos(&xa, speed[i], PLOT_AREA_W) + dx;
			y = PLOT_AREA_H - axis_pos(ya, ps->ratio[i],
						   PLOT_AREA_H);
			marker(out, series_mark(s), x, y, s ? 4 : 5,
			       series_color(s), "pt");
			if (!s)
				taken[ntaken++] = (struct box){ x - 5, y - 5,
								x + 5, y + 5 };
		}
	}
	/* the settings' names at the total's points, each where it covers
	 * no other name nor point: beside it (inside the chart first),
	 * then further above and below */
	for (i = 0; i < in->nset && nseries; i++) {
		static const double dy[] = { -6, 14, -18, 26, -30, 38, -42,
					     50 };
		double w, bx, by;
		size_t c;
		int right;

		if (!(in->series[0].ratio[i] > 0) || !(speed[i] > 0))
			continue;
		x = axis_pos(&xa, speed[i], PLOT_AREA_W);
		y = PLOT_AREA_H - axis_pos(ya, in->series[0].ratio[i],
					   PLOT_AREA_H);
		w = short_len(in->setting[i]) * PLOT_LABEL_CH;
		right = x <= PLOT_AREA_W / 2;
		bx = right ? x + 7 : x - 7;
		by = y - 6;
		for (c = 0; c < 2 * sizeof(dy) / sizeof(dy[0]); c++) {
			int r = c % 2 ? !right : right;
			double tx = r ? x + 7 : x - 7, ty = y + dy[c / 2];
			struct box b = { r ? tx : tx - w, ty - 10,
					 r ? tx + w : tx, ty + 2 };

			if (box_free(&b, taken, ntaken)) {
				bx = tx;
				by = ty;
				right = r;
				break;
			}
		}
		/* moved away from its point: a line tells whose it is */
		if (by < y - 6 || by > y + 14)
			fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" "
				"x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888888\" "
				"stroke-width=\"0.7\"/>\n", x, y, bx,
				by < y ? by + 2 : by - 10);
		taken[ntaken++] = (struct box){ right ? bx : bx - w,
							by - 10,
							right ? bx + w : bx,
							by + 2 };
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" "
			"text-anchor=\"%s\">", bx, by, right ? "start" : "end");
		short_name(out, in->setting[i]);
		fputs("</text>\n", out);
	}
	fputs("</g>\n", out);
	free(taken);
	free(order);
	return 0;
}

int plot_svg(FILE *out, const struct plot_in *in)
{
	struct axis ya;
	double lo = 0, hi = 0, ystep;
	size_t s, i, drawn, per_col, cols;
	int any = 0, height, ret;

	/* the total and at most PLOT_ROWS_MAX rows, each its own style */
	drawn = in->nseries < PLOT_ROWS_MAX + 1 ? in->nseries
						: PLOT_ROWS_MAX + 1;
	for (s = 0; s < drawn; s++)
		for (i = 0; i < in->nset; i++) {
			double r = in->series[s].ratio[i];

			if (!(r > 0) || !(in->compress_mbps[i] > 0))
				continue;
			if (!any || r < lo)
				lo = r;
			if (!any || r > hi)
				hi = r;
			any = 1;
		}
	if (!any)
		return -EINVAL;
	ystep = ratio_axis(lo, hi, &ya);
	cols = drawn > PLOT_LEGEND_ONE ? PLOT_LEGEND_COLS : 1;
	per_col = (drawn + cols - 1) / cols;
	height = PLOT_LEGEND_Y + (int)(per_col + 1) * PLOT_LINE_H + 10;
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
		"width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"font-family=\"sans-serif\" font-size=\"13\">\n",
		PLOT_W, height, PLOT_W, height);
	fprintf(out, "<rect width=\"100%%\" height=\"100%%\" "
		"fill=\"#ffffff\"/>\n");
	fputs("<text x=\"20\" y=\"28\" font-size=\"16\">compsize --estimate: ",
	      out);
	xml_text(out, in->title ? in->title : "", 80);
	fputs("</text>\n", out);
	ret = panel(out, in, drawn, 0, in->compress_mbps,
		    "compress speed, MB/s, one core (log scale)", &ya, ystep);
	if (!ret)
		ret = panel(out, in, drawn, PLOT_PANEL_W, in->decompress_mbps,
			    "decompress speed, MB/s, one core (log scale)",
			    &ya, ystep);
	if (ret)
		return ret;
	/* the legend: one column, or two side by side for many rows */
	for (s = 0; s < drawn; s++) {
		int x = PLOT_LEFT + (int)(s / per_col) * PLOT_PANEL_W;
		int y = PLOT_LEGEND_Y + (int)(s % per_col) * PLOT_LINE_H;

		marker(out, series_mark(s), x, y - 4, 5, series_color(s),
		       "key");
		fprintf(out, "<text x=\"%d\" y=\"%d\">", x + 12, y);
		xml_text(out, in->series[s].name, cols > 1 ? 60 : 100);
		fputs("</text>\n", out);
	}
	if (drawn < in->nseries)
		fprintf(out, "<text x=\"%d\" y=\"%d\">... and %zu more rows, "
			"not drawn (--top chooses which)</text>\n",
			PLOT_LEFT + 12,
			PLOT_LEGEND_Y + (int)per_col * PLOT_LINE_H,
			in->nseries - drawn);
	fputs("</svg>\n", out);
	return 0;
}
