// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_tcpreasm.c - rdsdump's TCP reassembly: order, loss, overlap, limits. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "cmain.h"

#include "tcpreasm.h"

/*
 * Collector: drains events after every call, checks that DATA, GAP and
 * TRUNC tile the stream, and rebuilds the stream with a mark per offset.
 */
#define MAXEV 512
#define MARK_NONE 0
#define MARK_DATA 'D'
#define MARK_GAP 'G'
#define MARK_TRUNC 'T'

struct col {
	struct dump_tcp_dir d;
	struct dump_tcp_ev ev[MAXEV]; /* the first MAXEV, data pointers cleared */
	size_t n;
	uint64_t cnt[DUMP_TCP_EV__COUNT];
	uint64_t sum[DUMP_TCP_EV__COUNT];
	uint8_t *out;
	uint8_t *mark;
	size_t size;                  /* of out and mark */
	uint64_t pos;                 /* tiling cursor */
	size_t mem;
};

static void col_init(struct col *k, const struct dump_tcp_limits *lim, size_t size)
{
	memset(k, 0, sizeof(*k));
	assert_int_equal(dump_tcp_dir_init(&k->d, lim), 0);
	k->size = size;
	k->out = calloc(1, size ? size : 1);
	k->mark = calloc(1, size ? size : 1);
	assert_non_null(k->out);
	assert_non_null(k->mark);
	/* nothing is allocated before there is something to keep */
	assert_int_equal(dump_tcp_dir_mem(&k->d), 0);
	k->mem = 0;
}

/* Most a direction with these limits may ever allocate. */
static size_t mem_bound(const struct dump_tcp_dir *d)
{
	size_t cap = d->ooo_max + d->hist_max;

	return cap + 2 * (cap / 64 + 1) * sizeof(uint64_t);
}

static void col_fini(struct col *k)
{
	dump_tcp_dir_fini(&k->d);
	free(k->out);
	free(k->mark);
}

static void col_drain(struct col *k)
{
	struct dump_tcp_ev ev;
	int rc;

	while ((rc = dump_tcp_dir_next_event(&k->d, &ev)) == 1) {
		assert_true(ev.type > DUMP_TCP_EV_NONE && ev.type < DUMP_TCP_EV__COUNT);
		k->cnt[ev.type]++;
		k->sum[ev.type] += ev.len;
		if (ev.type == DUMP_TCP_EV_DATA || ev.type == DUMP_TCP_EV_GAP ||
		    ev.type == DUMP_TCP_EV_TRUNC) {
			uint8_t m = ev.type == DUMP_TCP_EV_DATA ? MARK_DATA :
				    ev.type == DUMP_TCP_EV_GAP ? MARK_GAP : MARK_TRUNC;

			assert_true(ev.offset == k->pos);
			assert_true(ev.len > 0);
			if (ev.type == DUMP_TCP_EV_DATA)
				assert_non_null(ev.data);
			else
				assert_null(ev.data);
			/* size 0: check the tiling only, keep no copy */
			if (k->size) {
				assert_true(ev.offset + ev.len <= k->size);
				if (ev.type == DUMP_TCP_EV_DATA)
					memcpy(k->out + ev.offset, ev.data, ev.len);
				memset(k->mark + ev.offset, m, ev.len);
			}
			k->pos += ev.len;
		}
		if (ev.type == DUMP_TCP_EV_FIN)
			assert_true(ev.offset == k->pos);
		if (k->n < MAXEV) {
			k->ev[k->n] = ev;
			k->ev[k->n].data = NULL;
			k->n++;
		}
		assert_true(dump_tcp_dir_stats(&k->d)->held_bytes <= k->d.ooo_max);
	}
	assert_int_equal(rc, 0);
	/* the arena only grows while the direction lives, within its limits */
	assert_true(dump_tcp_dir_mem(&k->d) >= k->mem);
	assert_true(dump_tcp_dir_mem(&k->d) <= mem_bound(&k->d));
	k->mem = dump_tcp_dir_mem(&k->d);
	assert_true(dump_tcp_dir_stats(&k->d)->mem_max == k->mem);
	assert_true(dump_tcp_dir_next_offset(&k->d) == k->pos);
}

static void seg_full(struct col *k, uint32_t seq, uint8_t flags, const uint8_t *data,
		     size_t caplen, size_t len)
{
	struct dump_tcp_seg s = {
		.seq = seq, .flags = flags, .data = data, .caplen = caplen, .len = len,
	};

	assert_int_equal(dump_tcp_dir_input(&k->d, &s), 0);
	col_drain(k);
}

static void seg(struct col *k, uint32_t seq, const uint8_t *data, size_t len)
{
	seg_full(k, seq, 0, data, len, len);
}

static void col_close(struct col *k)
{
	assert_int_equal(dump_tcp_dir_close(&k->d), 0);
	col_drain(k);
	assert_int_equal(dump_tcp_dir_stats(&k->d)->held_bytes, 0);
}

/* Index of the first recorded event of |t| from |from| on, or -1. */
static int find_ev(const struct col *k, enum dump_tcp_ev_type t, size_t from)
{
	for (size_t i = from; i < k->n; i++)
		if (k->ev[i].type == t)
			return (int)i;
	return -1;
}

static void check_accounting(const struct col *k)
{
	const struct dump_tcp_stats *st = dump_tcp_dir_stats(&k->d);

	assert_true(st->bytes == k->sum[DUMP_TCP_EV_DATA]);
	assert_true(st->gap_bytes == k->sum[DUMP_TCP_EV_GAP]);
	assert_true(st->gaps == k->cnt[DUMP_TCP_EV_GAP]);
	assert_true(st->trunc_bytes == k->sum[DUMP_TCP_EV_TRUNC]);
	assert_true(st->retrans_bytes == k->sum[DUMP_TCP_EV_RETRANS]);
	assert_true(st->conflict_bytes == k->sum[DUMP_TCP_EV_CONFLICT]);
	assert_true(st->conflicts == k->cnt[DUMP_TCP_EV_CONFLICT]);
	assert_true(st->after_fin_bytes == k->sum[DUMP_TCP_EV_AFTER_FIN]);
	assert_true(st->bytes + st->gap_bytes + st->trunc_bytes == k->pos);
	assert_true(st->held_max <= k->d.ooo_max);
}

static uint8_t *pattern(size_t n, uint32_t seed)
{
	uint8_t *p = malloc(n ? n : 1);

	assert_non_null(p);
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (uint8_t)(seed >> 16);
	}
	return p;
}

#define ISN 1000u

/* ------------------------------------------------------------------------ */

static void test_tcpreasm_in_order_zero_copy(void **state)
{
	uint8_t *b = pattern(300, 1);
	struct col k;
	struct dump_tcp_ev ev;
	struct dump_tcp_seg s = { .seq = ISN + 1, .data = b, .caplen = 100, .len = 100 };

	(void)state;
	col_init(&k, NULL, 300);
	seg_full(&k, ISN, DUMP_TCP_SYN, NULL, 0, 0);
	assert_int_equal(k.ev[0].type, DUMP_TCP_EV_SYN);
	assert_true(k.ev[0].offset == 0 && k.ev[0].seq == ISN + 1);

	/* in order: the event points into the caller's segment */
	assert_int_equal(dump_tcp_dir_input(&k.d, &s), 0);
	assert_int_equal(dump_tcp_dir_next_event(&k.d, &ev), 1);
	assert_int_equal(ev.type, DUMP_TCP_EV_DATA);
	assert_ptr_equal(ev.data, b);
	assert_false(ev.held);
	assert_true(ev.offset == 0 && ev.len == 100 && ev.seq == ISN + 1);
	assert_int_equal(dump_tcp_dir_next_event(&k.d, &ev), 0);
	k.pos = 100;
	memcpy(k.out, b, 100);

	seg(&k, ISN + 101, b + 100, 150);
	seg(&k, ISN + 251, b + 250, 50);
	assert_int_equal(k.n, 3);
	assert_true(k.ev[1].offset == 100 && k.ev[1].len == 150);
	assert_true(k.ev[2].offset == 250 && k.ev[2].len == 50);
	assert_false(k.ev[2].held);
	assert_memory_equal(k.out, b, 300);
	assert_true(dump_tcp_dir_stats(&k.d)->segments == 4);
	assert_true(dump_tcp_dir_stats(&k.d)->ooo_segments == 0);
	/* a pure ACK is nothing */
	seg(&k, ISN + 301, NULL, 0);
	assert_int_equal(k.n, 3);
	col_close(&k);
	assert_int_equal(k.n, 3);
	free(b);
	col_fini(&k);
}

static void next_perm(size_t *p, size_t n)
{
	size_t i = n - 1, j = n - 1;

	while (i > 0 && p[i - 1] >= p[i])
		i--;
	if (i == 0)
		return;
	while (p[j] <= p[i - 1])
		j--;
	size_t t = p[i - 1];
	p[i - 1] = p[j];
	p[j] = t;
	for (j = n - 1; i < j; i++, j--) {
		t = p[i];
		p[i] = p[j];
		p[j] = t;
	}
}

static void test_tcpreasm_permutations_of_four(void **state)
{
	static const size_t off[5] = { 0, 5, 12, 23, 36 };
	uint8_t *b = pattern(36, 2);
	size_t p[4] = { 0, 1, 2, 3 };

	(void)state;
	for (int perm = 0; perm < 24; perm++) {
		struct col k;
		const struct dump_tcp_stats *st;

		col_init(&k, NULL, 36);
		seg_full(&k, ISN, DUMP_TCP_SYN, NULL, 0, 0);
		for (size_t i = 0; i < 4; i++)
			seg(&k, ISN + 1 + (uint32_t)off[p[i]], b + off[p[i]],
			    off[p[i] + 1] - off[p[i]]);
		/* everything arrived: delivered before close */
		assert_true(k.pos == 36);
		assert_memory_equal(k.out, b, 36);
		col_close(&k);
		st = dump_tcp_dir_stats(&k.d);
		assert_true(st->gap_bytes == 0 && st->retrans_bytes == 0);
		assert_true(st->held_bytes == 0);
		assert_int_equal(k.cnt[DUMP_TCP_EV_GAP], 0);
		assert_int_equal(k.cnt[DUMP_TCP_EV_RETRANS], 0);
		check_accounting(&k);
		col_fini(&k);
		next_perm(p, 4);
	}
	free(b);
}

static void test_tcpreasm_duplicates(void **state)
{
	uint8_t *b = pattern(40, 3);
	struct col k;
	int i;

	(void)state;
	col_init(&k, NULL, 40);
	seg_full(&k, ISN, DUMP_TCP_SYN, NULL, 0, 0);
	seg(&k, ISN + 1, b, 10);
	seg(&k, ISN + 1, b, 10);          /* delivered before */
	i = find_ev(&k, DUMP_TCP_EV_RETRANS, 0);
	assert_true(i > 0);
	assert_true(k.ev[i].offset == 0 && k.ev[i].len == 10 && k.ev[i].aux == 0);
	assert_int_equal(k.cnt[DUMP_TCP_EV_DATA], 1);

	seg(&k, ISN + 21, b + 20, 10);    /* held */
	seg(&k, ISN + 21, b + 20, 10);    /* held before */
	assert_int_equal(k.cnt[DUMP_TCP_EV_RETRANS], 2);
	assert_true(dump_tcp_dir_stats(&k.d)->ooo_segments == 1);
	assert_true(dump_tcp_dir_stats(&k.d)->held_bytes == 10);
	seg(&k, ISN + 11, b + 10, 10);
	seg(&k, ISN + 31, b + 30, 10);
	assert_true(k.pos == 40);
	assert_memory_equal(k.out, b, 40);
	assert_int_equal(k.cnt[DUMP_TCP_EV_DATA], 4);
	assert_int_equal(k.cnt[DUMP_TCP_EV_CONFLICT], 0);
	assert_true(dump_tcp_dir_stats(&k.d)->retrans_bytes == 20);
	check_accounting(&k);
	free(b);
	col_fini(&k);
}

static void test_tcpreasm_partial_overlap_new_bytes_only(void **state)
{
	uint8_t *b = pattern(60, 4);
	struct col k;
	int i;

	(void)state;
	col_init(&k, NULL, 60);
	seg_full(&k, ISN, DUMP_TCP_SYN, NULL, 0, 0);
	seg(&k, ISN + 1, b, 10);
	k.n = 0;
	seg(&k, ISN + 6, b + 5, 15);      /* 5 old, 10 new */
	assert_int_equal(k.ev[0].type, DUMP_TCP_EV_RETRANS);
	assert_true(k.ev[0].offset == 5 && k.ev[0].len == 5);
	assert_int_equal(k.ev[1].type, DUMP_TCP_EV_DATA);
	assert_true(k.ev[1].offset == 10 && k.ev[1].len == 10);
	assert_int_equal(k.n, 2);

	/* overlapping held data on both sides: only the middle is new */
	seg(&k, ISN + 31, b + 30, 5);     /* held [30,35) */
	seg(&k, ISN + 41, b + 40, 5);     /* held [40,45) */
	k.n = 0;
	seg(&k, ISN + 33, b + 32, 10);    /* [32,42): 3 + 2 held */
	assert_int_equal(k.ev[0].type, DUMP_TCP_EV_RETRANS);
	assert_true(k.ev[0].offset == 32 && k.ev[0].len == 5);
	assert_true(dump_tcp_dir_stats(&k.d)->held_bytes == 15);
	seg(&k, ISN + 21, b + 20, 40);    /* fills everything */
	assert_true(k.pos == 60);
	assert_memory_equal(k.out, b, 60);
	assert_int_equal(k.cnt[DUMP_TCP_EV_CONFLICT], 0);
	i = find_ev(&k, DUMP_TCP_EV_RETRANS, 1);
	assert_true(i > 0);
	assert_true(k.ev[i].offset == 30 && k.ev[i].len == 15); /* first held byte */
	check_accounting(&k);
	free(b);
	col_fini(&k);
}

static void test_tcpreasm_conflict_with_delivered(void **state)
{
	uint8_t *b = pattern(30, 5);
	uint8_t alt[20];
	struct col k;

	(void)state;
	memcpy(alt, b + 5, 20);
	alt[1] ^= 0xff;                   /* offset 6 */
	alt[2] ^= 0x01;                   /* offset 7 */
	alt[12] ^= 0x80;                  /* offset 17: new bytes, no conflict */
	col_init(&k, NULL, 30);
	seg_full(&k, ISN, DUMP_TCP_SYN, NULL, 0, 0);
	seg(&k, ISN + 1, b, 10);
	k.n = 0;
	seg(&k, ISN + 6, alt, 20);
	assert_int_equal(k.ev[0].type, DUMP_TCP_EV_RETRANS);
	assert_true(k.ev[0].offset == 5 && k.ev[0].len == 5 && k.ev[0].aux == 0);
	assert_int_equal(k.ev[1].type, DUMP_TCP_EV_CONFLICT);
	assert_true(k.ev[1].offset == 6 && k.ev[1].len == 2);
	assert_int_equal(k.ev[2].type, DUMP_TCP_EV_DATA);
	assert_true(k.ev[2].offset == 10 && k.ev[2].len == 15);
	/* the first copy stands; the new bytes come from the second */
	assert_memory_equal(k.out, b, 10);
	assert_memory_equal(k.out + 10, alt + 5, 15);
	assert_true(dump_tcp_dir_stats(&k.d)->conflicts == 1);
	assert_true(dump_tcp_dir_stats(&k.d)->conflict_bytes == 2);
	check_accounting(&k);
	free(b);
	col_fini(&k);
}

static void test_tcpreasm_conflict_with_held(void **state)
{
	uint8_t *b = pattern(30, 6);
	uint8_t alt[10];
	struct col k;
	int i;

	(void)state;
	memcpy(alt, b + 15, 10);
	alt[9] ^= 0x55;                   /* offset 24 */
	col_init(&k, NULL, 30);
	seg_full(&k, ISN, DUMP_TCP_SYN, NULL, 0, 0);
	seg(&k, ISN + 21, b + 20, 10);    /* held first */
	seg(&k, ISN + 16, alt, 10);       /* [15,25): [20,25) overlaps held */
	i = find_ev(&k, DUMP_TCP_EV_CONFLICT, 0);
	assert_true(i > 0);
	assert_true(k.ev[i].offset == 24 && k.ev[i].len == 1);
	seg(&k, ISN + 1, b, 15);
	assert_true(k.pos == 30);
	/* first received wins for held bytes too */
	assert_memory_equal(k.out, b, 30);
	check_accounting(&k);
	free(b);
	col_fini(&k);
}

static void test_tcpreasm_hole_fills(void **state)
{
	uint8_t *b = pattern(20, 7);
	struct col k;

	(void)state;
	col_init(&k, NULL, 20);
	seg_full(&k, ISN, DUMP_TCP_SYN, NULL, 0, 0);
	k.n = 0;
	seg(&k, ISN + 11, b + 10, 10);
	assert_int_equal(k.n, 0);
	assert_true(dump_tcp_dir_stats(&k.d)->held_bytes == 10);
	seg(&k, ISN + 1, b, 10);
	assert_int_equal(k.n, 2);
	assert_true(k.ev[0].type == DUMP_TCP_EV_DATA && !k.ev[0].held && k.ev[0].len == 10);
	assert_true(k.ev[1].type == DUMP_TCP_EV_DATA && k.ev[1].held && k.ev[1].offset == 10);
	assert_memory_equal(k.out, b, 20);
	assert_true(dump_tcp_dir_stats(&k.d)->held_bytes == 0);
	check_accounting(&k);
	free(b);
	col_fini(&k);
}

static void test_tcpreasm_hole_never_fills(void **state)
{
	uint8_t *b = pattern(40, 8);
	struct col k;

	(void)state;
	col_init(&k, NULL, 40);
	seg_full(&k, ISN, DUMP_TCP_SYN, NULL, 0, 0);
	seg(&k, ISN + 1, b, 5);
	seg(&k, ISN + 11, b + 10, 10);    /* hole [5,10) */
	seg(&k, ISN + 31, b + 30, 10);    /* hole [20,30) */
	k.n = 0;
	col_close(&k);
	assert_int_equal(k.n, 4);
	assert_true(k.ev[0].type == DUMP_TCP_EV_GAP && k.ev[0].offset == 5 && k.ev[0].len == 5);
	assert_true(k.ev[1].type == DUMP_TCP_EV_DATA && k.ev[1].offset == 10);
	assert_true(k.ev[2].type == DUMP_TCP_EV_GAP && k.ev[2].offset == 20 && k.ev[2].len == 10);
	assert_true(k.ev[3].type == DUMP_TCP_EV_DATA && k.ev[3].offset == 30);
	assert_memory_equal(k.out + 10, b + 10, 10);
	assert_memory_equal(k.out + 30, b + 30, 10);
	assert_true(dump_tcp_dir_stats(&k.d)->gap_bytes == 15);
	check_accounting(&k);
	/* closed: no more input */
	{
		struct dump_tcp_seg s = { .seq = ISN + 41 };

		assert_int_equal(dump_tcp_dir_input(&k.d, &s), DUMP_TCP_ERR_CLOSED);
		assert_int_equal(dump_tcp_dir_close(&k.d), 0);
	}
	free(b);
	col_fini(&k);
}

static void test_tcpreasm_limit_declares_gap(void **state)
{
	const struct dump_tcp_limits lim = { .ooo = 100, .history = 50 };
	uint8_t *b = pattern(1000, 9);
	struct col k;
	int i;

	(void)state;
	col_init(&k, &lim, 1000);
	seg_full(&k, ISN, DUMP_TCP_SYN, NULL, 0, 0);
	seg(&k, ISN + 1, b, 10);
	/* [10,20) lost; 20.. arrives in 10-byte segments */
	for (uint32_t o = 20; o < 110; o += 10)
		seg(&k, ISN + 1 + o, b + o, 10);
	assert_true(k.pos == 10);
	assert_true(dump_tcp_dir_stats(&k.d)->held_bytes == 90);
	k.n = 0;
	seg(&k, ISN + 111, b + 110, 10);  /* would reach 120 > 10 + 100 */
	assert_true(k.ev[0].type == DUMP_TCP_EV_GAP && k.ev[0].offset == 10 && k.ev[0].len == 10);
	i = find_ev(&k, DUMP_TCP_EV_DATA, 1);
	assert_true(i == 1 && k.ev[i].offset == 20 && k.ev[i].held);
	assert_true(k.pos == 120);
	assert_memory_equal(k.out + 20, b + 20, 100);
	/* the lost segment turns up late: a retransmission, not data */
	seg(&k, ISN + 11, b + 10, 10);
	assert_true(k.sum[DUMP_TCP_EV_RETRANS] == 10);
	assert_true(k.pos == 120);

	/* a segment far beyond the window: the hole up to it is a gap */
	k.n = 0;
	seg(&k, ISN + 1 + 500, b + 500, 50);
	assert_true(k.ev[0].type == DUMP_TCP_EV_GAP && k.ev[0].offset == 120 &&
		    k.ev[0].len == 380);
	assert_true(k.ev[1].type == DUMP_TCP_EV_DATA && !k.ev[1].held);
	assert_true(k.pos == 550);
	assert_true(dump_tcp_dir_stats(&k.d)->held_max <= 100);
	check_accounting(&k);
	free(b);
	col_fini(&k);
}

static void test_tcpreasm_memory_bounded(void **state)
{
	/* Hostile: one byte held, one byte missing, all over the sequence
	 * space, plus huge segments. Memory stays within the limits. */
	const struct dump_tcp_limits lim = { .ooo = 4096, .history = 1024 };
	static uint8_t big[65536];
	struct col k;
	uint32_t r = 77;

	(void)state;
	col_init(&k, &lim, 0);
	seg(&k, 5000, big, 1);            /* mid-stream start */
	for (int i = 0; i < 20000; i++) {
		uint32_t o;

		r = r * 1103515245u + 12345u;
		o = (r >> 8) % (1u << 24);
		if (i % 3 == 0)
			seg(&k, 5000 + 2 * (o % 50000), big, 1);
		else
			seg(&k, 5000 + o, big, (r >> 4) % 2000);
		assert_true(dump_tcp_dir_stats(&k.d)->held_bytes <= 4096);
	}
	col_close(&k);
	assert_true(dump_tcp_dir_stats(&k.d)->held_max <= 4096);
	assert_true(k.mem < 4096 + 1024 + (4096 + 1024) / 4 + 64);
	check_accounting(&k);
	col_fini(&k);
}

static void test_tcpreasm_arena_grows(void **state)
{
	/* A direction costs what it keeps: a short in-order stream a few KiB,
	 * 200 KiB waiting behind a one-byte hole about that much, and the bytes
	 * come out exact, compared with a retransmission after the arena was
	 * re-laid, and all of it is gone at fini. */
	const size_t n = 200000;
	uint8_t *b = pattern(n + 1, 21), *alt = malloc(1448);
	struct col k;
	size_t small;

	(void)state;
	assert_non_null(alt);
	col_init(&k, NULL, n + 1);
	seg_full(&k, ISN, DUMP_TCP_SYN, NULL, 0, 0);
	assert_int_equal(dump_tcp_dir_mem(&k.d), 0);
	seg(&k, ISN + 1, b, 100);
	small = dump_tcp_dir_mem(&k.d);
	assert_true(small > 0 && small < 8192);
	/* hold everything after offset 101 (the byte at 100 is late) */
	for (size_t off = 101; off < n + 1; off += 1448) {
		size_t len = n + 1 - off < 1448 ? n + 1 - off : 1448;

		seg(&k, ISN + 1 + (uint32_t)off, b + off, len);
		assert_true(dump_tcp_dir_mem(&k.d) >= dump_tcp_dir_stats(&k.d)->held_bytes);
	}
	assert_true(dump_tcp_dir_stats(&k.d)->held_bytes == n - 100);
	assert_true(dump_tcp_dir_mem(&k.d) > n - 100);
	assert_true(dump_tcp_dir_mem(&k.d) < 2 * (n + DUMP_TCP_HISTORY_DEFAULT));
	/* a retransmission of held bytes that differs is still a CONFLICT */
	memcpy(alt, b + 1000, 1448);
	alt[7] ^= 0xff;
	seg(&k, ISN + 1 + 1000, alt, 1448);
	assert_true(k.cnt[DUMP_TCP_EV_CONFLICT] == 1);
	seg(&k, ISN + 1 + 100, b + 100, 1);
	assert_true(dump_tcp_dir_stats(&k.d)->held_bytes == 0);
	assert_true(k.pos == n + 1);
	assert_memory_equal(k.out, b, n + 1);
	/* and a retransmission of delivered bytes too (the history survived) */
	seg(&k, ISN + 1 + (uint32_t)n - 499, alt, 500);
	assert_true(k.cnt[DUMP_TCP_EV_CONFLICT] == 2);
	col_close(&k);
	check_accounting(&k);
	dump_tcp_dir_fini(&k.d);
	assert_int_equal(dump_tcp_dir_mem(&k.d), 0);
	col_fini(&k);
	free(alt);
	free(b);
}

static void test_tcpreasm_seq_wrap(void **state)
{
	const uint32_t isn = 0xfffffe00u;
	uint8_t *b = pattern(2048, 10);
	static const size_t order[] = { 3, 0, 1, 6, 2, 5, 4, 7 };

	(void)state;
	for (int midstream = 0; midstream < 2; midstream++) {
		struct col k;

		col_init(&k, NULL, 2048);
		if (!midstream)
			seg_full(&k, isn, DUMP_TCP_SYN, NULL, 0, 0);
		else
			seg(&k, isn + 1, b, 256); /* first segment starts the stream */
		for (size_t i = 0; i < 8; i++) {
			size_t o = order[i] * 256;

			seg(&k, isn + 1 + (uint32_t)o, b + o, 256);
		}
		seg_full(&k, isn + 1 + 2048, DUMP_TCP_FIN, NULL, 0, 0);
		assert_true(k.pos == 2048);
		assert_memory_equal(k.out, b, 2048);
		assert_int_equal(k.cnt[DUMP_TCP_EV_FIN], 1);
		/* 0xfffffe01 + 2048 = 0x601: the FIN's seq wrapped */
		assert_true(k.ev[find_ev(&k, DUMP_TCP_EV_FIN, 0)].seq == 0x601);
		assert_true(k.ev[find_ev(&k, DUMP_TCP_EV_FIN, 0)].offset == 2048);
		assert_int_equal(k.cnt[DUMP_TCP_EV_GAP], 0);
		col_close(&k);
		check_accounting(&k);
		col_fini(&k);
	}
	free(b);
}

static void test_tcpreasm_midstream(void **state)
{
	uint8_t *b = pattern(100, 11);
	struct col k;
	int i;

	(void)state;
	col_init(&k, NULL, 100);
	seg(&k, 777777, NULL, 0);         /* a pure ACK does not start it */
	assert_int_equal(k.n, 0);
	seg(&k, 50000, b + 20, 30);
	assert_int_equal(k.ev[0].type, DUMP_TCP_EV_MIDSTREAM);
	assert_true(k.ev[0].offset == 0 && k.ev[0].seq == 50000);
	assert_true(k.ev[1].type == DUMP_TCP_EV_DATA && k.ev[1].offset == 0);
	/* an earlier segment arrives late: before the start, cannot be checked */
	seg(&k, 50000 - 20, b, 25);
	i = find_ev(&k, DUMP_TCP_EV_RETRANS, 0);
	assert_true(i > 0);
	assert_true(k.ev[i].offset == 0 && k.ev[i].len == 25 && k.ev[i].aux == 20);
	assert_int_equal(k.cnt[DUMP_TCP_EV_CONFLICT], 0);
	assert_true(k.pos == 30);
	assert_memory_equal(k.out, b + 20, 30);
	check_accounting(&k);
	free(b);
	col_fini(&k);
}

static void test_tcpreasm_syn_fin(void **state)
{
	uint8_t *b = pattern(30, 12);
	struct col k;
	int i;

	(void)state;
	col_init(&k, NULL, 30);
	seg_full(&k, ISN, DUMP_TCP_SYN, NULL, 0, 0);
	seg_full(&k, ISN, DUMP_TCP_SYN, NULL, 0, 0); /* retransmitted SYN */
	assert_int_equal(k.cnt[DUMP_TCP_EV_SYN], 1);
	assert_int_equal(k.n, 1);
	seg_full(&k, ISN + 1, DUMP_TCP_FIN, b, 30, 30); /* data + FIN */
	i = find_ev(&k, DUMP_TCP_EV_FIN, 0);
	assert_true(i == 2 && k.ev[i].offset == 30 && k.ev[i].seq == ISN + 31);
	/* retransmitted FIN: no second event */
	seg_full(&k, ISN + 1, DUMP_TCP_FIN, b, 30, 30);
	assert_int_equal(k.cnt[DUMP_TCP_EV_FIN], 1);
	assert_int_equal(k.cnt[DUMP_TCP_EV_RETRANS], 1);
	col_close(&k);
	assert_int_equal(k.cnt[DUMP_TCP_EV_FIN], 1);
	check_accounting(&k);
	free(b);
	col_fini(&k);
}

static void test_tcpreasm_fin_out_of_order(void **state)
{
	uint8_t *b = pattern(30, 13);
	struct col k;

	(void)state;
	/* the FIN comes before the data in front of it: reported in place */
	col_init(&k, NULL, 30);
	seg_full(&k, ISN, DUMP_TCP_SYN, NULL, 0, 0);
	seg_full(&k, ISN + 21, DUMP_TCP_FIN, b + 20, 10, 10);
	assert_int_equal(k.cnt[DUMP_TCP_EV_FIN], 0);
	seg(&k, ISN + 1, b, 20);
	assert_int_equal(k.cnt[DUMP_TCP_EV_FIN], 1);
	assert_int_equal(k.ev[k.n - 1].type, DUMP_TCP_EV_FIN);
	assert_true(k.ev[k.n - 1].offset == 30);
	assert_memory_equal(k.out, b, 30);
	col_fini(&k);

	/* and if the hole never fills: GAP, then FIN, at close */
	col_init(&k, NULL, 30);
	seg_full(&k, ISN, DUMP_TCP_SYN, NULL, 0, 0);
	seg(&k, ISN + 1, b, 5);
	seg_full(&k, ISN + 31, DUMP_TCP_FIN, NULL, 0, 0);
	k.n = 0;
	col_close(&k);
	assert_int_equal(k.n, 2);
	assert_true(k.ev[0].type == DUMP_TCP_EV_GAP && k.ev[0].offset == 5 && k.ev[0].len == 25);
	assert_true(k.ev[1].type == DUMP_TCP_EV_FIN && k.ev[1].offset == 30);
	check_accounting(&k);
	free(b);
	col_fini(&k);
}

static void test_tcpreasm_data_after_fin(void **state)
{
	uint8_t *b = pattern(40, 14);
	struct col k;
	int i;

	(void)state;
	col_init(&k, NULL, 40);
	seg_full(&k, ISN, DUMP_TCP_SYN, NULL, 0, 0);
	seg(&k, ISN + 31, b + 30, 10);    /* held, beyond the FIN to come */
	seg_full(&k, ISN + 11, DUMP_TCP_FIN, b + 10, 10, 10); /* FIN at 20 */
	i = find_ev(&k, DUMP_TCP_EV_AFTER_FIN, 0);
	assert_true(i > 0 && k.ev[i].offset == 20 && k.ev[i].len == 10);
	assert_true(dump_tcp_dir_stats(&k.d)->held_bytes == 10);
	seg(&k, ISN + 16, b + 15, 15);    /* 5 retransmitted, 10 after the FIN */
	i = find_ev(&k, DUMP_TCP_EV_AFTER_FIN, (size_t)i + 1);
	assert_true(i > 0 && k.ev[i].offset == 20 && k.ev[i].len == 10);
	seg(&k, ISN + 1, b, 10);
	assert_true(k.pos == 20);
	assert_int_equal(k.ev[k.n - 1].type, DUMP_TCP_EV_FIN);
	assert_true(dump_tcp_dir_stats(&k.d)->after_fin_bytes == 20);
	col_close(&k);
	assert_true(k.pos == 20);
	check_accounting(&k);
	free(b);
	col_fini(&k);
}

static void test_tcpreasm_rst(void **state)
{
	uint8_t *b = pattern(30, 15);
	struct col k;

	(void)state;
	col_init(&k, NULL, 30);
	seg_full(&k, 5, DUMP_TCP_RST, NULL, 0, 0); /* before the start */
	assert_true(k.ev[0].type == DUMP_TCP_EV_RST && k.ev[0].offset == 0);
	seg_full(&k, ISN, DUMP_TCP_SYN, NULL, 0, 0);
	seg(&k, ISN + 1, b, 10);
	k.n = 0;
	seg_full(&k, ISN + 11, DUMP_TCP_RST, b + 10, 4, 4); /* payload ignored */
	assert_int_equal(k.n, 1);
	assert_true(k.ev[0].type == DUMP_TCP_EV_RST && k.ev[0].offset == 10 &&
		    k.ev[0].len == 4 && k.ev[0].seq == ISN + 11);
	assert_true(k.pos == 10);
	/* an RST does not end the stream: the receiver ignores one out of window */
	seg(&k, ISN + 11, b + 10, 20);
	assert_true(k.pos == 30);
	check_accounting(&k);
	free(b);
	col_fini(&k);
}

static void test_tcpreasm_reopen(void **state)
{
	uint8_t *b = pattern(10, 16);
	struct col k;

	(void)state;
	col_init(&k, NULL, 10);
	seg_full(&k, ISN, DUMP_TCP_SYN, NULL, 0, 0);
	seg(&k, ISN + 1, b, 10);
	k.n = 0;
	seg_full(&k, 99999, DUMP_TCP_SYN, NULL, 0, 0);
	assert_int_equal(k.n, 1);
	assert_true(k.ev[0].type == DUMP_TCP_EV_REOPEN && k.ev[0].aux == 99999);
	assert_true(dump_tcp_dir_stats(&k.d)->ignored == 1);
	free(b);
	col_fini(&k);
}

static void test_tcpreasm_ignored_far_jump(void **state)
{
	const struct dump_tcp_limits lim = { .jump = 10000 };
	uint8_t *b = pattern(10, 17);
	struct col k;

	(void)state;
	col_init(&k, &lim, 20000);
	seg_full(&k, ISN, DUMP_TCP_SYN, NULL, 0, 0);
	k.n = 0;
	seg(&k, ISN + 1 + 20000, b, 10);
	assert_int_equal(k.n, 1);
	assert_true(k.ev[0].type == DUMP_TCP_EV_IGNORED && k.ev[0].aux == ISN + 20001);
	assert_true(dump_tcp_dir_stats(&k.d)->held_bytes == 0);
	seg(&k, ISN + 1 + 9000, b, 10);   /* within the jump: held */
	assert_true(dump_tcp_dir_stats(&k.d)->held_bytes == 10);
	free(b);
	col_fini(&k);
}

static void test_tcpreasm_truncated_in_order(void **state)
{
	uint8_t *b = pattern(100, 18);
	struct col k;

	(void)state;
	col_init(&k, NULL, 100);
	seg_full(&k, ISN, DUMP_TCP_SYN, NULL, 0, 0);
	k.n = 0;
	seg_full(&k, ISN + 1, 0, b, 20, 60); /* snaplen cut 40 */
	assert_int_equal(k.n, 2);
	assert_true(k.ev[0].type == DUMP_TCP_EV_DATA && k.ev[0].len == 20);
	assert_true(k.ev[1].type == DUMP_TCP_EV_TRUNC && k.ev[1].offset == 20 &&
		    k.ev[1].len == 40);
	seg_full(&k, ISN + 61, 0, b + 60, 40, 40);
	assert_true(k.pos == 100);
	/* the full copy of truncated bytes is a retransmission, unchecked */
	seg(&k, ISN + 1, b, 60);
	assert_true(k.ev[k.n - 1].type == DUMP_TCP_EV_RETRANS && k.ev[k.n - 1].aux == 40);
	assert_int_equal(k.cnt[DUMP_TCP_EV_GAP], 0);
	assert_int_equal(k.cnt[DUMP_TCP_EV_CONFLICT], 0);
	check_accounting(&k);
	free(b);
	col_fini(&k);
}

static void test_tcpreasm_truncated_held(void **state)
{
	uint8_t *b = pattern(100, 19);
	struct col k;

	(void)state;
	/* held truncated: placeholder delivered as TRUNC when the hole fills */
	col_init(&k, NULL, 100);
	seg_full(&k, ISN, DUMP_TCP_SYN, NULL, 0, 0);
	seg_full(&k, ISN + 21, 0, b + 20, 10, 30);  /* [20,30) data, [30,50) cut */
	seg_full(&k, ISN + 51, 0, b + 50, 50, 50);
	k.n = 0;
	seg(&k, ISN + 1, b, 20);
	assert_int_equal(k.n, 4);
	assert_true(k.ev[1].type == DUMP_TCP_EV_DATA && k.ev[1].offset == 20 && k.ev[1].held);
	assert_true(k.ev[2].type == DUMP_TCP_EV_TRUNC && k.ev[2].offset == 30 &&
		    k.ev[2].len == 20);
	assert_true(k.ev[3].type == DUMP_TCP_EV_DATA && k.ev[3].offset == 50);
	assert_true(k.pos == 100);
	col_fini(&k);

	/* a full copy arriving while the placeholder is held replaces it */
	col_init(&k, NULL, 100);
	seg_full(&k, ISN, DUMP_TCP_SYN, NULL, 0, 0);
	seg_full(&k, ISN + 21, 0, b + 20, 10, 30);
	seg_full(&k, ISN + 26, 0, b + 25, 25, 25);
	assert_int_equal(k.cnt[DUMP_TCP_EV_CONFLICT], 0);
	seg(&k, ISN + 1, b, 20);
	assert_true(k.pos == 50);
	assert_int_equal(k.cnt[DUMP_TCP_EV_TRUNC], 0);
	assert_memory_equal(k.out, b, 50);
	check_accounting(&k);
	col_fini(&k);
	free(b);
}

static void test_tcpreasm_history_limit(void **state)
{
	const struct dump_tcp_limits lim = { .history = 16 };
	uint8_t *b = pattern(64, 20);
	uint8_t alt[64];
	struct col k;
	int i;

	(void)state;
	memcpy(alt, b, sizeof(alt));
	for (size_t j = 0; j < sizeof(alt); j++)
		alt[j] ^= 1;
	col_init(&k, &lim, 64);
	seg_full(&k, ISN, DUMP_TCP_SYN, NULL, 0, 0);
	seg(&k, ISN + 1, b, 64);
	seg(&k, ISN + 1, alt, 64);        /* only the last 16 can be compared */
	i = find_ev(&k, DUMP_TCP_EV_RETRANS, 0);
	assert_true(k.ev[i].len == 64 && k.ev[i].aux == 48);
	i = find_ev(&k, DUMP_TCP_EV_CONFLICT, 0);
	assert_true(k.ev[i].offset == 48 && k.ev[i].len == 16);
	col_fini(&k);

	/* and none at all */
	{
		const struct dump_tcp_limits none = { .history = DUMP_TCP_HISTORY_NONE };

		col_init(&k, &none, 64);
		seg_full(&k, ISN, DUMP_TCP_SYN, NULL, 0, 0);
		seg(&k, ISN + 1, b, 64);
		seg(&k, ISN + 1, alt, 64);
		assert_int_equal(k.cnt[DUMP_TCP_EV_CONFLICT], 0);
		assert_true(dump_tcp_dir_stats(&k.d)->unchecked_bytes == 64);
		col_fini(&k);
	}
	free(b);
}

static void test_tcpreasm_api_errors(void **state)
{
	struct dump_tcp_dir d;
	struct dump_tcp_ev ev;
	uint8_t b[4] = { 0 };
	struct dump_tcp_seg s = { .seq = 1, .data = b, .caplen = 4, .len = 4 };
	struct dump_tcp_seg bad = s;

	(void)state;
	assert_int_equal(dump_tcp_dir_init(NULL, NULL), DUMP_TCP_ERR_INVAL);
	assert_int_equal(dump_tcp_dir_init(&d, NULL), 0);
	assert_int_equal(dump_tcp_dir_mem(&d), 0);
	assert_int_equal(dump_tcp_dir_input(&d, NULL), DUMP_TCP_ERR_INVAL);
	bad.caplen = 5;
	assert_int_equal(dump_tcp_dir_input(&d, &bad), DUMP_TCP_ERR_INVAL);
	bad.caplen = 4;
	bad.data = NULL;
	assert_int_equal(dump_tcp_dir_input(&d, &bad), DUMP_TCP_ERR_INVAL);
	bad = s;
	bad.caplen = 0;
	bad.len = (size_t)DUMP_TCP_SEG_MAX + 1;
	assert_int_equal(dump_tcp_dir_input(&d, &bad), DUMP_TCP_ERR_INVAL);
	assert_true(dump_tcp_dir_stats(&d)->segments == 0);

	assert_int_equal(dump_tcp_dir_input(&d, &s), 0);
	/* events pending */
	assert_int_equal(dump_tcp_dir_input(&d, &s), DUMP_TCP_ERR_BUSY);
	assert_int_equal(dump_tcp_dir_close(&d), DUMP_TCP_ERR_BUSY);
	assert_int_equal(dump_tcp_dir_next_event(&d, NULL), DUMP_TCP_ERR_INVAL);
	while (dump_tcp_dir_next_event(&d, &ev) == 1)
		;
	assert_int_equal(dump_tcp_dir_close(&d), 0);
	while (dump_tcp_dir_next_event(&d, &ev) == 1)
		;
	assert_int_equal(dump_tcp_dir_input(&d, &s), DUMP_TCP_ERR_CLOSED);
	dump_tcp_dir_fini(&d);
	dump_tcp_dir_fini(&d);
	dump_tcp_dir_fini(NULL);
	assert_int_equal(dump_tcp_dir_input(&d, &s), DUMP_TCP_ERR_INVAL);

	assert_string_equal(dump_tcp_ev_name(DUMP_TCP_EV_GAP), "gap");
	assert_string_equal(dump_tcp_ev_name(DUMP_TCP_EV__COUNT), "?");
	for (int t = 1; t < DUMP_TCP_EV__COUNT; t++)
		assert_string_not_equal(dump_tcp_ev_name(t), "?");
	assert_string_equal(dump_tcp_strerror(DUMP_TCP_ERR_BUSY),
			    "events of the previous call not drained");
}

/* ------------------------------------------------------------------------
 * Random segmentation, reordering, duplication, loss and truncation. The
 * reassembled stream must equal the original wherever it was delivered, and
 * everything else must be reported as a gap or a truncation.
 */

struct rnd {
	uint64_t s;
};

static uint32_t rnd_next(struct rnd *r)
{
	r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(r->s >> 33);
}

static uint32_t rnd_below(struct rnd *r, uint32_t n)
{
	return n ? rnd_next(r) % n : 0;
}

struct pkt {
	size_t off, len, caplen;
};

/* What the random runs exercised, summed, so that a generator that stops
 * producing some case makes the test fail rather than pass vacuously. */
static struct {
	uint64_t gap, forced_gap, trunc, retrans, ooo, wrapped;
} seen;

static void run_random(uint64_t seed)
{
	struct rnd r = { seed * 0x9e3779b97f4a7c15ull + 1 };
	size_t len = 1 + rnd_below(&r, 60000);
	uint8_t *b = pattern(len, (uint32_t)seed);
	uint8_t *sent_any = calloc(1, len), *sent_cap = calloc(1, len);
	size_t maxp = len * 3 + 16, np = 0;
	struct pkt *p = calloc(maxp, sizeof(*p));
	unsigned drop = rnd_below(&r, 4) ? rnd_below(&r, 15) : 0; /* percent */
	unsigned dup = rnd_below(&r, 20), trunc = rnd_below(&r, 3) ? 0 : 10;
	unsigned window = 1 + rnd_below(&r, 30);
	bool small = rnd_below(&r, 3) == 0;
	struct dump_tcp_limits lim = { 0 };
	uint32_t isn = rnd_below(&r, 4) ? rnd_next(&r) : 0xffffffffu - rnd_below(&r, 30000);
	static const uint32_t maxsegs[] = { 1500, 1500, 300, 20 };
	uint32_t maxseg = maxsegs[rnd_below(&r, 4)];
	struct col k;

	assert_non_null(sent_any);
	assert_non_null(sent_cap);
	assert_non_null(p);
	if (small) {
		lim.ooo = 64 + rnd_below(&r, 8000);
		lim.history = rnd_below(&r, 2) ? DUMP_TCP_HISTORY_NONE : 1 + rnd_below(&r, 4000);
	}
	for (size_t off = 0; off < len;) {
		size_t n = 1 + rnd_below(&r, maxseg);

		if (n > len - off)
			n = len - off;
		if (rnd_below(&r, 100) >= drop) {
			p[np++] = (struct pkt){ off, n, n };
			if (rnd_below(&r, 100) < dup)
				p[np++] = (struct pkt){ off, n, n };
		}
		/* a retransmission that repacketises: any range, same bytes */
		if (rnd_below(&r, 100) < dup) {
			size_t a = rnd_below(&r, (uint32_t)len);
			size_t m = 1 + rnd_below(&r, 3000);

			p[np++] = (struct pkt){ a, m < len - a ? m : len - a, 0 };
			p[np - 1].caplen = p[np - 1].len;
		}
		off += n;
	}
	for (size_t i = 0; i < np; i++) {
		if (trunc && rnd_below(&r, 100) < trunc)
			p[i].caplen = rnd_below(&r, (uint32_t)p[i].len);
		memset(sent_any + p[i].off, 1, p[i].len);
		memset(sent_cap + p[i].off, 1, p[i].caplen);
	}
	/* reorder: each packet swaps with one up to |window| places later */
	for (size_t i = 0; i + 1 < np; i++) {
		size_t j = i + 1 + rnd_below(&r, window);

		if (j < np && rnd_below(&r, 2)) {
			struct pkt t = p[i];

			p[i] = p[j];
			p[j] = t;
		}
	}

	col_init(&k, &lim, len);
	seg_full(&k, isn, DUMP_TCP_SYN, NULL, 0, 0);
	for (size_t i = 0; i < np; i++)
		seg_full(&k, isn + 1 + (uint32_t)p[i].off, 0, b + p[i].off, p[i].caplen,
			 p[i].len);
	seg_full(&k, isn + 1 + (uint32_t)len, DUMP_TCP_FIN, NULL, 0, 0);
	col_close(&k);

	assert_true(k.pos == len);
	assert_int_equal(k.cnt[DUMP_TCP_EV_FIN], 1);
	assert_int_equal(k.cnt[DUMP_TCP_EV_CONFLICT], 0);
	assert_int_equal(k.cnt[DUMP_TCP_EV_AFTER_FIN], 0);
	check_accounting(&k);
	for (size_t o = 0; o < len; o++) {
		switch (k.mark[o]) {
		case MARK_DATA:
			if (k.out[o] != b[o] || !sent_cap[o])
				fail_msg("seed %llu: offset %zu wrong",
					 (unsigned long long)seed, o);
			break;
		case MARK_TRUNC:
			assert_true(sent_any[o]);
			break;
		case MARK_GAP:
			/* with room for everything, a gap is exactly what never came */
			if (!small)
				assert_false(sent_any[o]);
			break;
		default:
			fail_msg("seed %llu: offset %zu not reported",
				 (unsigned long long)seed, o);
		}
		if (!small && !sent_any[o])
			assert_int_equal(k.mark[o], MARK_GAP);
		if (!small && !trunc && sent_any[o])
			assert_int_equal(k.mark[o], MARK_DATA);
		if (k.mark[o] == MARK_GAP && sent_any[o])
			seen.forced_gap++;
	}
	seen.gap += dump_tcp_dir_stats(&k.d)->gap_bytes;
	seen.trunc += dump_tcp_dir_stats(&k.d)->trunc_bytes;
	seen.retrans += dump_tcp_dir_stats(&k.d)->retrans_bytes;
	seen.ooo += dump_tcp_dir_stats(&k.d)->ooo_segments;
	seen.wrapped += isn + 1 + (uint32_t)len < isn;
	col_fini(&k);
	free(p);
	free(sent_any);
	free(sent_cap);
	free(b);
}

static void test_tcpreasm_random_streams(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 120; seed++)
		run_random(seed);
	assert_true(seen.gap && seen.forced_gap && seen.trunc && seen.retrans &&
		    seen.ooo && seen.wrapped);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_tcpreasm_in_order_zero_copy),
	cmocka_unit_test(test_tcpreasm_permutations_of_four),
	cmocka_unit_test(test_tcpreasm_duplicates),
	cmocka_unit_test(test_tcpreasm_partial_overlap_new_bytes_only),
	cmocka_unit_test(test_tcpreasm_conflict_with_delivered),
	cmocka_unit_test(test_tcpreasm_conflict_with_held),
	cmocka_unit_test(test_tcpreasm_hole_fills),
	cmocka_unit_test(test_tcpreasm_hole_never_fills),
	cmocka_unit_test(test_tcpreasm_limit_declares_gap),
	cmocka_unit_test(test_tcpreasm_memory_bounded),
	cmocka_unit_test(test_tcpreasm_seq_wrap),
	cmocka_unit_test(test_tcpreasm_midstream),
	cmocka_unit_test(test_tcpreasm_syn_fin),
	cmocka_unit_test(test_tcpreasm_fin_out_of_order),
	cmocka_unit_test(test_tcpreasm_data_after_fin),
	cmocka_unit_test(test_tcpreasm_rst),
	cmocka_unit_test(test_tcpreasm_reopen),
	cmocka_unit_test(test_tcpreasm_ignored_far_jump),
	cmocka_unit_test(test_tcpreasm_truncated_in_order),
	cmocka_unit_test(test_tcpreasm_truncated_held),
	cmocka_unit_test(test_tcpreasm_history_limit),
	cmocka_unit_test(test_tcpreasm_api_errors),
	cmocka_unit_test(test_tcpreasm_arena_grows),
	cmocka_unit_test(test_tcpreasm_random_streams))
