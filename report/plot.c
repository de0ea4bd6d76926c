// SPDX-License-Identifier: GPL-2.0
/* The --plot SVG: ratio against compress and decompress speed (plot.h). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
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
#define PLOT_LEGEND_MAX	24	/* series listed; the rest are counted */

static const char *const palette[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
	"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};
#define PLOT_NCOLORS (sizeof(palette) / sizeof(palette[0]))

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

static void panel(FILE *out, const struct plot_in *in, int x0,
		  const double *speed, const char *label,
		  const struct axis *ya, double ystep)
{
	struct axis xa;
	double v, x, y;
	size_t s, i;
	int k, d;

	speed_axis(speed, in->nset, &xa);
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
	/* the points: the rows first, the total (series 0) on top */
	for (s = in->nseries; s-- > 0;) {
		const struct plot_series *ps = &in->series[s];
		const char *color = palette[s % PLOT_NCOLORS];

		for (i = 0; i < in->nset; i++) {
			if (!(ps->ratio[i] > 0) || !(speed[i] > 0))
				continue;
			x = axis_pos(&xa, speed[i], PLOT_AREA_W);
			y = PLOT_AREA_H - axis_pos(ya, ps->ratio[i],
						   PLOT_AREA_H);
			fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" "
				"fill=\"%s\"/>\n", x, y, s ? 4 : 5, color);
			if (s)
				continue;
			/* labels on the right half go to the left of
			 * their point, inside the chart */
			fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" "
				"font-size=\"11\" text-anchor=\"%s\">",
				x > PLOT_AREA_W / 2 ? x - 7 : x + 7, y - 6,
				x > PLOT_AREA_W / 2 ? "end" : "start");
			short_name(out, in->setting[i]);
			fputs("</text>\n", out);
		}
	}
	fputs("</g>\n", out);
}

int plot_svg(FILE *out, const struct plot_in *in)
{
	struct axis ya;
	double lo = 0, hi = 0, ystep;
	size_t s, i, shown;
	int any = 0, height;

	for (s = 0; s < in->nseries; s++)
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
	shown = in->nseries < PLOT_LEGEND_MAX ? in->nseries : PLOT_LEGEND_MAX;
	height = PLOT_LEGEND_Y + (int)(shown + 1) * PLOT_LINE_H + 10;
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
	panel(out, in, 0, in->compress_mbps,
	      "compress speed, MB/s, one core (log scale)", &ya, ystep);
	panel(out, in, PLOT_PANEL_W, in->decompress_mbps,
	      "decompress speed, MB/s, one core (log scale)", &ya, ystep);
	for (s = 0; s < shown; s++) {
		int y = PLOT_LEGEND_Y + (int)s * PLOT_LINE_H;

		fprintf(out, "<circle cx=\"%d\" cy=\"%d\" r=\"5\" "
			"fill=\"%s\"/>\n", PLOT_LEFT, y - 4,
			palette[s % PLOT_NCOLORS]);
		fprintf(out, "<text x=\"%d\" y=\"%d\">", PLOT_LEFT + 12, y);
		xml_text(out, in->series[s].name, 100);
		fputs("</text>\n", out);
	}
	if (shown < in->nseries)
		fprintf(out, "<text x=\"%d\" y=\"%d\">... and %zu more rows"
			"</text>\n", PLOT_LEFT + 12,
			PLOT_LEGEND_Y + (int)shown * PLOT_LINE_H,
			in->nseries - shown);
	fputs("</svg>\n", out);
	return 0;
}
