// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * hist.c - log-linear latency histogram (hist.h).
 */
#include "hist.h"

#include <math.h>
#include <string.h>

void hist_reset(struct hist *h)
{
	memset(h, 0, sizeof(*h));
}

/* Values below HIST_SUB get a bucket each; above, the top HIST_SUB_BITS + 1
 * bits pick the bucket within the value's power of two. */
static unsigned bucket_of(uint64_t v)
{
	unsigned msb, shift;

	if (v < HIST_SUB)
		return (unsigned)v;
	if (v >> HIST_MAX_BITS)
		return HIST_BUCKETS - 1;
	msb = 63u - (unsigned)__builtin_clzll(v);
	shift = msb - HIST_SUB_BITS;
	return (shift + 1) * HIST_SUB + (unsigned)((v >> shift) - HIST_SUB);
}

static uint64_t bucket_low(unsigned i)
{
	unsigned shift;

	if (i < HIST_SUB)
		return i;
	shift = i / HIST_SUB - 1;
	return (uint64_t)(HIST_SUB + i % HIST_SUB) << shift;
}

void hist_add(struct hist *h, uint64_t ns)
{
	if (!h->n || ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
	h->n++;
	h->sum += (double)ns;
	h->b[bucket_of(ns)]++;
}

void hist_merge(struct hist *into, const struct hist *from)
{
	if (!from->n)
		return;
	if (!into->n || from->min < into->min)
		into->min = from->min;
	if (from->max > into->max)
		into->max = from->max;
	into->n += from->n;
	into->sum += from->sum;
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		into->b[i] += from->b[i];
}

uint64_t hist_pct(const struct hist *h, double p)
{
	uint64_t rank, seen = 0;

	if (!h->n)
		return 0;
	if (p >= 100)
		return h->max;
	/* the smallest value with at least p % of the samples at or below it */
	/* (less a hair, so 99.9 % of 1000 is rank 999 and not, by rounding,
	 * 1000) */
	rank = (uint64_t)ceil((p / 100.0) * (double)h->n * (1 - 1e-12));
	if (rank == 0)
		rank = 1;
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank) {
			uint64_t v = bucket_low(i);

			return v < h->min ? h->min : v > h->max ? h->max : v;
		}
	}
	return h->max;
}

double hist_mean(const struct hist *h)
{
	return h->n ? h->sum / (double)h->n : 0;
}

unsigned hist_bins(const struct hist *h, uint64_t lo, uint64_t hi, unsigned n, uint64_t *edges,
		   uint64_t *counts)
{
	double ratio;

	if (!h->n || !n)
		return 0;
	if (lo < 1)
		lo = 1;
	if (hi <= lo)
		hi = lo + 1;
	/* geometric edges: latency tails are read on a log scale */
	ratio = pow((double)hi / (double)lo, 1.0 / n);
	edges[0] = lo;
	for (unsigned k = 1; k < n; k++) {
		edges[k] = (uint64_t)((double)lo * pow(ratio, k) + 0.5);
		if (edges[k] <= edges[k - 1])
			edges[k] = edges[k - 1] + 1;
	}
	edges[n] = hi > edges[n - 1] ? hi : edges[n - 1] + 1;
	memset(counts, 0, n * sizeof(*counts));
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		uint64_t v = bucket_low(i);
		unsigned k = 0;

		if (!h->b[i])
			continue;
		v = v < h->min ? h->min : v > h->max ? h->max : v;
		while (k + 1 < n && v >= edges[k + 1])
			k++;
		counts[k] += h->b[i];
	}
	return n;
}
