// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_hist.c - rdsperf's latency histogram: percentiles within the bucket
 * precision it promises, exact min and max, merging. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "cmain.h"

#include "hist.h"

static struct hist h, g;

/* within 1/64 below the true value, never above it */
static void assert_close(uint64_t got, uint64_t want)
{
	assert_true(got <= want);
	assert_true(got >= want - want / 64 - 1);
}

static void test_uniform(void **state)
{
	(void)state;
	hist_reset(&h);
	/* 1..100000 us in ns */
	for (uint64_t v = 1; v <= 100000; v++)
		hist_add(&h, v * 1000);
	assert_int_equal(h.n, 100000);
	assert_int_equal(h.min, 1000);
	assert_int_equal(h.max, 100000000);
	assert_close(hist_pct(&h, 50), 50000000);
	assert_close(hist_pct(&h, 90), 90000000);
	assert_close(hist_pct(&h, 99), 99000000);
	assert_close(hist_pct(&h, 99.9), 99900000);
	assert_int_equal(hist_pct(&h, 100), 100000000);
	assert_true(hist_mean(&h) > 50000000 && hist_mean(&h) < 50001000);
}

static void test_small_values_exact(void **state)
{
	(void)state;
	hist_reset(&h);
	for (uint64_t v = 0; v < 64; v++)
		hist_add(&h, v);
	assert_int_equal(hist_pct(&h, 50), 31);
	assert_int_equal(hist_pct(&h, 0), 0);
	assert_int_equal(hist_pct(&h, 100), 63);
}

static void test_tail_and_clamp(void **state)
{
	(void)state;
	hist_reset(&h);
	for (int i = 0; i < 999; i++)
		hist_add(&h, 20000);
	hist_add(&h, 5000000); /* one outlier: p99.9 is still 20 us, max is it */
	assert_close(hist_pct(&h, 99.9), 20000);
	assert_int_equal(h.max, 5000000);
	/* percentiles never below min: a single sample is every percentile */
	hist_reset(&h);
	hist_add(&h, 12345);
	assert_int_equal(hist_pct(&h, 50), 12345);
	assert_int_equal(hist_pct(&h, 1), 12345);
	/* beyond the range: counted in the last bucket, max stays exact */
	hist_add(&h, UINT64_MAX / 2);
	assert_int_equal(h.max, UINT64_MAX / 2);
	assert_int_equal(hist_pct(&h, 100), UINT64_MAX / 2);
}

static void test_merge_equals_one(void **state)
{
	struct hist *all = malloc(sizeof(*all));

	(void)state;
	hist_reset(&h);
	hist_reset(&g);
	hist_reset(all);
	for (uint64_t v = 1; v < 50000; v++) {
		hist_add(v % 3 ? &h : &g, v * 37);
		hist_add(all, v * 37);
	}
	hist_merge(&h, &g);
	assert_int_equal(h.n, all->n);
	assert_int_equal(h.min, all->min);
	assert_int_equal(h.max, all->max);
	for (double p = 1; p < 100; p += 7.5)
		assert_int_equal(hist_pct(&h, p), hist_pct(all, p));
	/* merging an empty one changes nothing, into an empty one copies */
	hist_reset(&g);
	hist_merge(&h, &g);
	assert_int_equal(h.n, all->n);
	hist_merge(&g, all);
	assert_int_equal(g.min, all->min);
	assert_int_equal(hist_pct(&g, 50), hist_pct(all, 50));
	free(all);
}

static void test_empty(void **state)
{
	(void)state;
	hist_reset(&h);
	assert_int_equal(hist_pct(&h, 50), 0);
	assert_true(hist_mean(&h) == 0);
}

/* Bins add up to every sample, geometric edges, the tail in the last. */
static void test_bins(void **state)
{
	uint64_t edges[11], counts[10], sum = 0;

	(void)state;
	hist_reset(&h);
	assert_int_equal(hist_bins(&h, 1, 10, 10, edges, counts), 0);
	for (int i = 0; i < 900; i++)
		hist_add(&h, 20000);        /* 20 us */
	for (int i = 0; i < 99; i++)
		hist_add(&h, 200000);       /* 200 us */
	hist_add(&h, 50000000);             /* one 50 ms outlier */
	assert_int_equal(hist_bins(&h, 10000, 1000000, 10, edges, counts), 10);
	assert_int_equal(edges[0], 10000);
	assert_int_equal(edges[10], 1000000);
	for (unsigned k = 1; k <= 10; k++)
		assert_true(edges[k] > edges[k - 1]);
	/* each edge about 1.585 times the one before (100x over 10 bins) */
	assert_true(edges[5] > 99000 && edges[5] < 101000);
	for (unsigned k = 0; k < 10; k++)
		sum += counts[k];
	assert_int_equal(sum, 1000);
	/* 20 us sits in [15.8, 25.1) us: bin 1 */
	assert_int_equal(counts[1], 900);
	/* 200 us in [158, 251) us: bin 6; the outlier in the last */
	assert_int_equal(counts[6], 99);
	assert_int_equal(counts[9], 1);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_uniform),
	cmocka_unit_test(test_small_values_exact),
	cmocka_unit_test(test_tail_and_clamp),
	cmocka_unit_test(test_merge_equals_one),
	cmocka_unit_test(test_empty),
	cmocka_unit_test(test_bins))
