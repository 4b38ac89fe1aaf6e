// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * plot.c - the terminal histogram and the SVG of rdsperf's runs (plot.h).
 *
 * The SVG is written by hand: two panels of lines and axes need no
 * plotting library, and the file then opens in any browser without one.
 */
#include "plot.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LAT_BINS 40
#define W 760                   /* SVG width */
#define PANEL_H 240             /* height of one panel's plotting area */
#define LEFT 80                 /* room for the y labels */
#define RIGHT 180               /* room for the legend */
#define TOP 40

static const char *const colours[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
};
#define N_COLOURS (sizeof(colours) / sizeof(colours[0]))

struct plot_series *plot_series_new(struct plot *p, const char *label)
{
	struct plot_series *s;

	if (p->n >= PLOT_MAX_SERIES)
		return NULL;
	s = &p->s[p->n++];
	memset(s, 0, sizeof(*s));
	snprintf(s->label, sizeof(s->label), "%s", label);
	return s;
}

int plot_point(struct plot_series *s, double start, double end, double bits_per_second)
{
	if (s->n >= PLOT_MAX_POINTS) {
		s->truncated = true;
		return 0;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		double *a[3] = { s->t0, s->t1, s->bps };

		for (int i = 0; i < 3; i++) {
			double *x = realloc(a[i], cap * sizeof(*x));

			if (!x)
				return -1;
			a[i] = x;
			/* each array kept as soon as it has grown */
			if (i == 0)
				s->t0 = x;
			else if (i == 1)
				s->t1 = x;
			else
				s->bps = x;
		}
		s->cap = cap;
	}
	s->t0[s->n] = start;
	s->t1[s->n] = end;
	s->bps[s->n++] = bits_per_second;
	return 0;
}

void plot_latency(struct plot_series *s, const struct hist *h)
{
	s->lat = *h;
	s->has_lat = h->n > 0;
}

void plot_free(struct plot *p)
{
	for (unsigned i = 0; i < p->n; i++) {
		free(p->s[i].t0);
		free(p->s[i].t1);
		free(p->s[i].bps);
	}
	p->n = 0;
}

/* ------------------------------------------------------------------------
 * Terminal
 */

void plot_hist_text(struct out *f, const struct hist *h, unsigned rows, unsigned width)
{
	uint64_t edges[65], counts[64], top = 0;
	uint64_t hi = hist_pct(h, 99.9);

	if (!h->n || rows < 2)
		return;
	if (rows > 64)
		rows = 64;
	/* rows - 1 bins up to the 99.9th percentile, and the tail */
	if (hi <= h->min)
		hi = h->min + 1;
	hist_bins(h, h->min, hi, rows, edges, counts);
	for (unsigned k = 0; k < rows; k++)
		if (counts[k] > top)
			top = counts[k];
	out_printf(f, "latency distribution (full round trip, us, %llu samples):\n",
		   (unsigned long long)h->n);
	for (unsigned k = 0; k < rows; k++) {
		unsigned bar = (unsigned)((counts[k] * width + top - 1) / top);
		char range[48];

		if (k + 1 < rows)
			snprintf(range, sizeof(range), "%9.1f - %-9.1f", (double)edges[k] / 1e3,
				 (double)edges[k + 1] / 1e3);
		else
			snprintf(range, sizeof(range), "%9.1f and above  ", (double)edges[k] / 1e3);
		out_printf(f, "  %s |", range);
		for (unsigned b = 0; b < width; b++)
			out_putc(f, b < bar ? '#' : ' ');
		out_printf(f, " %10llu %5.1f%%\n", (unsigned long long)counts[k],
			   100.0 * (double)counts[k] / (double)h->n);
	}
}

/* ------------------------------------------------------------------------
 * SVG
 */

/* A step of 1, 2 or 5 times a power of ten giving at most |n| ticks to |max|. */
static double nice_step(double max, unsigned n)
{
	double raw = max / n, mag = pow(10, floor(log10(raw))), r = raw / mag;

	return (r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10) * mag;
}

static void text(FILE *f, double x, double y, const char *anchor, const char *s)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", x, y, anchor);
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '"')
			fputs("&quot;", f);
		else
			fputc(*s, f);
	}
	fputs("</text>\n", f);
}

static void frame(FILE *f, int y0, const char *title, const char *xlabel, const char *ylabel)
{
	int pw = W - LEFT - RIGHT;

	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
		   "stroke=\"#444\"/>\n", LEFT, y0, pw, PANEL_H);
	fprintf(f, "<g font-weight=\"bold\">");
	text(f, LEFT, y0 - 10, "start", title);
	fprintf(f, "</g>\n");
	text(f, LEFT + pw / 2.0, y0 + PANEL_H + 44, "middle", xlabel);
	fprintf(f, "<g transform=\"translate(%d %d) rotate(-90)\">", 18, y0 + PANEL_H / 2);
	text(f, 0, 0, "middle", ylabel);
	fprintf(f, "</g>\n");
}

static void legend(FILE *f, const struct plot *p, int y0, bool lat_only)
{
	int x = W - RIGHT + 12, y = y0 + 10;

	for (unsigned i = 0; i < p->n; i++) {
		const struct plot_series *s = &p->s[i];
		char l[120];

		if (lat_only && !s->has_lat)
			continue;
		fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
			   "stroke-width=\"2\"/>\n", x, y, x + 18, y, colours[i % N_COLOURS]);
		snprintf(l, sizeof(l), "%s%s", s->label, s->truncated ? " (cut)" : "");
		text(f, x + 24, y + 4, "start", l);
		y += 18;
	}
}

/* The y axis of a panel for values from 0 to |max| (over 0): its top
 * rounded up to a step, a grid line and a label at each step. Return: the
 * top. */
static double y_axis(FILE *f, int y0, double max)
{
	int pw = W - LEFT - RIGHT;
	double step = nice_step(max, 5);

	max = ceil(max / step) * step;
	for (double v = 0; v <= max + step / 2; v += step) {
		double y = y0 + PANEL_H - v / max * PANEL_H;
		char l[32];

		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
			LEFT, y, LEFT + pw, y);
		snprintf(l, sizeof(l), "%g", v);
		text(f, LEFT - 6, y + 4, "end", l);
	}
	return max;
}

static void throughput_panel(FILE *f, const struct plot *p, int y0)
{
	int pw = W - LEFT - RIGHT;
	double tmax = 0, bmax = 0, scale, xstep;
	const char *unit;

	for (unsigned i = 0; i < p->n; i++)
		for (size_t k = 0; k < p->s[i].n; k++) {
			tmax = fmax(tmax, p->s[i].t1[k]);
			bmax = fmax(bmax, p->s[i].bps[k]);
		}
	if (tmax <= 0)
		tmax = 1;
	scale = bmax >= 1e9 ? 1e9 : bmax >= 1e6 ? 1e6 : 1e3;
	unit = scale == 1e9 ? "Gbit/s" : scale == 1e6 ? "Mbit/s" : "kbit/s";
	bmax = bmax > 0 ? bmax / scale * 1.1 : 1;
	xstep = nice_step(tmax, 8);
	{
		char yl[64];

		snprintf(yl, sizeof(yl), "throughput (%s)", unit);
		frame(f, y0, "Throughput per interval", "time (s)", yl);
	}
	bmax = y_axis(f, y0, bmax);
	for (double t = 0; t <= tmax + xstep / 2; t += xstep) {
		double x = LEFT + t / tmax * pw;
		char l[32];

		snprintf(l, sizeof(l), "%g", t);
		text(f, x, y0 + PANEL_H + 16, "middle", l);
	}
	for (unsigned i = 0; i < p->n; i++) {
		const struct plot_series *s = &p->s[i];

		if (!s->n)
			continue;
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
			colours[i % N_COLOURS]);
		/* each interval a step: its rate held from its start to its end */
		for (size_t k = 0; k < s->n; k++) {
			double y = y0 + PANEL_H - s->bps[k] / scale / bmax * PANEL_H;

			fprintf(f, "%.1f,%.1f %.1f,%.1f ", LEFT + s->t0[k] / tmax * pw, y,
				LEFT + s->t1[k] / tmax * pw, y);
		}
		fprintf(f, "\"/>\n");
	}
	legend(f, p, y0, false);
}

static void latency_panel(FILE *f, const struct plot *p, int y0)
{
	int pw = W - LEFT - RIGHT;
	uint64_t lo = UINT64_MAX, hi = 0, edges[LAT_BINS + 1], counts[LAT_BINS];
	double pmax = 0, llo, lhi;

	for (unsigned i = 0; i < p->n; i++) {
		const struct plot_series *s = &p->s[i];

		if (!s->has_lat)
			continue;
		if (s->lat.min < lo)
			lo = s->lat.min;
		if (hist_pct(&s->lat, 99.9) > hi)
			hi = hist_pct(&s->lat, 99.9);
	}
	if (lo < 1)
		lo = 1;
	if (hi <= lo)
		hi = lo * 2;
	/* one set of bins for every run, so their curves compare */
	for (unsigned i = 0; i < p->n; i++) {
		const struct plot_series *s = &p->s[i];

		if (!s->has_lat)
			continue;
		hist_bins(&s->lat, lo, hi, LAT_BINS, edges, counts);
		for (unsigned k = 0; k < LAT_BINS; k++)
			pmax = fmax(pmax, 100.0 * (double)counts[k] / (double)s->lat.n);
	}
	pmax = pmax > 0 ? pmax * 1.1 : 1;
	llo = log10((double)lo);
	lhi = log10((double)hi);
	frame(f, y0, "Latency distribution (full round trip; last bin: 99.9th percentile and above)",
	      "round trip (us, log scale)", "share of samples (%)");
	pmax = y_axis(f, y0, pmax);
	/* ticks at 1, 2 and 5 times each power of ten of microseconds */
	for (double dec = pow(10, floor(llo)); dec <= (double)hi; dec *= 10)
		for (int m = 1; m <= 5; m += m == 1 ? 1 : 3) {
			double v = dec * m, x;
			char l[32];

			if (v < (double)lo || v > (double)hi)
				continue;
			x = LEFT + (log10(v) - llo) / (lhi - llo) * pw;
			fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>\n",
				x, y0, x, y0 + PANEL_H);
			snprintf(l, sizeof(l), "%g", v / 1e3);
			text(f, x, y0 + PANEL_H + 16, "middle", l);
		}
	/* the ends of the axis, whatever the ticks fell on */
	{
		char l[32];

		snprintf(l, sizeof(l), "%.1f", (double)lo / 1e3);
		text(f, LEFT, y0 + PANEL_H + 28, "middle", l);
		snprintf(l, sizeof(l), "%.1f", (double)hi / 1e3);
		text(f, LEFT + pw, y0 + PANEL_H + 28, "middle", l);
	}
	for (unsigned i = 0; i < p->n; i++) {
		const struct plot_series *s = &p->s[i];

		if (!s->has_lat)
			continue;
		hist_bins(&s->lat, lo, hi, LAT_BINS, edges, counts);
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
			colours[i % N_COLOURS]);
		for (unsigned k = 0; k < LAT_BINS; k++) {
			double y = y0 + PANEL_H - 100.0 * (double)counts[k] / (double)s->lat.n / pmax *
							   PANEL_H;
			double x0 = LEFT + (log10((double)edges[k]) - llo) / (lhi - llo) * pw;
			double x1 = LEFT + (log10((double)edges[k + 1]) - llo) / (lhi - llo) * pw;

			fprintf(f, "%.1f,%.1f %.1f,%.1f ", x0, y, x1, y);
		}
		fprintf(f, "\"/>\n");
	}
	legend(f, p, y0, true);
}

int plot_svg(FILE *f, const struct plot *p)
{
	bool lat = false;
	int h;

	for (unsigned i = 0; i < p->n; i++)
		lat |= p->s[i].has_lat;
	h = TOP + PANEL_H + 60 + (lat ? PANEL_H + 80 : 0);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
		   "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", W, h, W, h);
	fprintf(f, "<title>");
	for (const char *c = p->title; *c; c++)
		if (*c == '<' || *c == '>' || *c == '&')
			fputc(' ', f);
		else
			fputc(*c, f);
	fprintf(f, "</title>\n");
	throughput_panel(f, p, TOP);
	if (lat)
		latency_panel(f, p, TOP + PANEL_H + 80);
	fprintf(f, "</svg>\n");
	return ferror(f) ? -1 : 0;
}
