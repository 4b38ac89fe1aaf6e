/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * hist.h - latency histogram for rdsperf: log-linear buckets (64 per power
 * of two, so any recorded value is within 1/64 = 1.6 % of its bucket's
 * lower bound) from 1 ns to 2^40 ns (~18 minutes). Fixed size, no
 * allocation, so recording costs the same at any rate and merging per
 * interval and per thread is an add.
 */
#ifndef RDSPERF_HIST_H
#define RDSPERF_HIST_H

#include <stdint.h>

#define HIST_SUB_BITS 6
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_MAX_BITS 40
#define HIST_BUCKETS ((HIST_MAX_BITS - HIST_SUB_BITS + 1) * HIST_SUB)

struct hist {
	uint64_t n;
	uint64_t min, max;      /* exact */
	double sum;
	uint32_t b[HIST_BUCKETS];
};

void hist_reset(struct hist *h);
void hist_add(struct hist *h, uint64_t ns);
void hist_merge(struct hist *into, const struct hist *from);
/* hist_pct() - the value at percentile |p| (0..100): the lower bound of the
 * bucket that holds it, but never below min or above max. 0 when empty. */
uint64_t hist_pct(const struct hist *h, double p);
double hist_mean(const struct hist *h);
/*
 * hist_bins() - the samples regrouped into |n| bins with geometric edges
 * from |lo| to |hi| (edges[0..n], edges[n] = hi): bin k counts the values
 * in [edges[k], edges[k+1]); below |lo| counts in the first bin, at or
 * above edges[n-1] in the last, so the counts add up to h->n. Each value
 * is its bucket's, so within 1.6 %. Return: |n|; 0 when empty.
 */
unsigned hist_bins(const struct hist *h, uint64_t lo, uint64_t hi, unsigned n, uint64_t *edges,
		   uint64_t *counts);

#endif /* RDSPERF_HIST_H */
