// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_plot.c - rdsperf's pictures: the terminal histogram's rows add up
 * to the samples with the tail last; the SVG has one curve per run and
 * panel, escapes what it prints, and says when a run was cut short. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "cmain.h"

#include "plot.h"

static char *render(void (*fn)(FILE *, void *), void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fn(f, arg);
	fclose(f);
	return buf;
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

static struct hist h;

static void hist_text(FILE *f, void *arg)
{
	struct out *o = out_new(f, OUT_TEXT, 0, 0);

	(void)arg;
	assert_non_null(o);
	plot_hist_text(o, &h, 8, 20);
	out_free(o);
}

static void test_hist_text(void **state)
{
	char *out, *line, *save = NULL;
	unsigned rows = 0;
	uint64_t sum = 0;

	(void)state;
	hist_reset(&h);
	for (int i = 0; i < 990; i++)
		hist_add(&h, 20000 + (uint64_t)i * 10);
	for (int i = 0; i < 10; i++)
		hist_add(&h, 5000000);
	out = render(hist_text, NULL);
	assert_non_null(strstr(out, "1000 samples"));
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *bar = strchr(line, '|');
		unsigned long long c;

		if (!bar)
			continue;
		rows++;
		/* the bar is at most 20 wide, then the count and the share */
		assert_int_equal(sscanf(bar + 1 + 20, "%llu", &c), 1);
		sum += c;
		if (rows == 8)
			assert_non_null(strstr(line, "and above"));
	}
	assert_int_equal(rows, 8);
	assert_int_equal(sum, 1000);
	free(out);
	/* nothing to draw: nothing drawn */
	hist_reset(&h);
	out = render(hist_text, NULL);
	assert_string_equal(out, "");
	free(out);
}

static void svg(FILE *f, void *arg)
{
	assert_int_equal(plot_svg(f, arg), 0);
}

static void test_svg(void **state)
{
	struct plot *p = calloc(1, sizeof(*p));
	struct plot_series *a, *b;
	char *out;

	(void)state;
	assert_non_null(p);
	snprintf(p->title, sizeof(p->title), "to <host> & back");
	a = plot_series_new(p, "stream <64> B");
	b = plot_series_new(p, "rr 64 B");
	for (int i = 0; i < 5; i++) {
		assert_int_equal(plot_point(a, i, i + 1, 1e9 * (i + 1)), 0);
		assert_int_equal(plot_point(b, i, i + 1, 2e6), 0);
	}
	hist_reset(&h);
	for (int i = 0; i < 100; i++)
		hist_add(&h, 30000 + (uint64_t)i * 100);
	plot_latency(b, &h);
	out = render(svg, p);
	assert_true(strncmp(out, "<?xml", 5) == 0);
	assert_non_null(strstr(out, "</svg>\n"));
	/* two throughput curves, one latency curve (only rr has latency) */
	assert_int_equal(count(out, "<polyline"), 3);
	assert_non_null(strstr(out, "stream &lt;64&gt; B"));
	assert_null(strstr(out, "<64>"));
	assert_null(strstr(out, "<host>"));
	assert_non_null(strstr(out, "Gbit/s"));
	assert_null(strstr(out, "(cut)"));
	free(out);

	/* a run longer than the plot keeps: drawn as far as kept, and said */
	for (size_t i = 5; i < PLOT_MAX_POINTS + 10; i++)
		assert_int_equal(plot_point(a, (double)i, (double)i + 1, 1e9), 0);
	assert_int_equal(a->n, PLOT_MAX_POINTS);
	assert_true(a->truncated);
	out = render(svg, p);
	assert_non_null(strstr(out, "stream &lt;64&gt; B (cut)"));
	free(out);

	/* a stream alone: no latency panel */
	plot_free(p);
	a = plot_series_new(p, "stream");
	assert_int_equal(plot_point(a, 0, 1, 5e5), 0);
	out = render(svg, p);
	assert_int_equal(count(out, "<polyline"), 1);
	assert_null(strstr(out, "Latency"));
	assert_non_null(strstr(out, "kbit/s"));
	free(out);

	for (unsigned i = p->n; i < PLOT_MAX_SERIES; i++)
		assert_non_null(plot_series_new(p, "x"));
	assert_null(plot_series_new(p, "one too many"));
	plot_free(p);
	free(p);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_hist_text),
	cmocka_unit_test(test_svg))
