/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * plot.h - rdsperf's pictures of its runs: the latency histogram drawn in
 * the terminal after rr and pingpong, and --plot's SVG (the throughput of
 * every interval, and the latency distribution). Pure: numbers in, text
 * out, so both are unit-tested.
 */
#ifndef RDSPERF_PLOT_H
#define RDSPERF_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "hist.h"
#include "out.h"

#define PLOT_MAX_SERIES 32      /* one per run: rdsperf's size list is at most 32 */
/* Intervals kept per run: a day at 1 s, or 1000 s at the shortest
 * interval. Later ones are left out of the plot, which says so. */
#define PLOT_MAX_POINTS 100000

/* One run: its intervals' throughput and, for rr and pingpong, its latency. */
struct plot_series {
	char label[80];
	double *t0, *t1, *bps;  /* interval starts and ends (s), bits per second */
	size_t n, cap;
	bool truncated;         /* intervals beyond PLOT_MAX_POINTS were dropped */
	bool has_lat;
	struct hist lat;
};

struct plot {
	char title[160];
	struct plot_series s[PLOT_MAX_SERIES];
	unsigned n;
};

/* plot_series_new() - the next run's series; NULL when all are taken. */
struct plot_series *plot_series_new(struct plot *p, const char *label);
/* plot_point() - one interval. Return: 0; -1 when out of memory (the
 * point is lost, the series stays usable). */
int plot_point(struct plot_series *s, double start, double end, double bits_per_second);
void plot_latency(struct plot_series *s, const struct hist *h);
void plot_free(struct plot *p);

/* plot_svg() - the whole picture as one SVG document. Return: 0; -1 on a
 * write error. */
int plot_svg(FILE *f, const struct plot *p);

/*
 * plot_hist_text() - |h| as a bar chart of |rows| rows, |width| characters
 * of bar at most: geometric bins from the smallest sample to the 99.9th
 * percentile, the last row holding everything above it, each row with
 * its range in microseconds, its count and its share.
 */
void plot_hist_text(struct out *f, const struct hist *h, unsigned rows, unsigned width);

#endif /* RDSPERF_PLOT_H */
