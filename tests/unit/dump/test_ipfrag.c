// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * test_ipfrag.c - rdsdump's IP reassembly: in order, out of order,
 * duplicates, overlaps and contradicting ends (the datagram dropped),
 * the 30 s timeout in capture time, and the bound on datagrams held.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "cmain.h"

#include "ipfrag.h"

#define SEC 1000000000ull
#define ROOM ((size_t)64 << 20)

struct frag {
	uint8_t b[20 + 2048];
	size_t n;
	struct wire_pkt p;
	struct wire_ipfrag f;
};

/* The datagram's data: byte i is (i * 7 + id) & 0xff. */
static uint8_t pat(uint32_t id, size_t i)
{
	return (uint8_t)(i * 7 + id);
}

/* An IPv4 fragment of datagram |id| (TCP, 10.0.0.1 -> 10.0.0.2): |len|
 * bytes of its data from |off|. */
static void mk4(struct frag *fr, uint16_t id, uint16_t off, size_t len, bool more)
{
	uint16_t total = (uint16_t)(20 + len);
	uint16_t fo = (uint16_t)((more ? 0x2000 : 0) | (off / 8));
	const uint8_t h[20] = {
		0x45, 0, (uint8_t)(total >> 8), (uint8_t)total, (uint8_t)(id >> 8), (uint8_t)id,
		(uint8_t)(fo >> 8), (uint8_t)fo, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
	};

	assert_true(len <= sizeof(fr->b) - 20);
	memcpy(fr->b, h, 20);
	for (size_t i = 0; i < len; i++)
		fr->b[20 + i] = pat(id, off + i);
	fr->n = total;
	wire_pkt_decode(&fr->p, WIRE_LINK_RAW, fr->b, fr->n, fr->n);
	assert_true(fr->p.ip_fragment);
	assert_int_equal(wire_ipfrag_decode(&fr->f, &fr->p), 0);
}

/* The table under test and the datagram it last
 * handed out. */
struct rig {
	struct dump_ipfrag t;
	const uint8_t *dg;
	size_t n;
};

static struct rig *rig_new(void)
{
	struct rig *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	dump_ipfrag_init(&r->t);
	return r;
}

/* A test may have finished the table itself, to check what that counts:
 * finishing it twice frees nothing twice. */
static void rig_free(struct rig *r)
{
	dump_ipfrag_fini(&r->t);
	free(r);
}

/* Datagram |id| cut into |n| fragments of |len[i]| bytes, in order. */
static void split(struct frag *fr, uint16_t id, const size_t *len, size_t n)
{
	uint16_t off = 0;

	for (size_t i = 0; i < n; i++) {
		mk4(&fr[i], id, off, len[i], i + 1 < n);
		off = (uint16_t)(off + len[i]);
	}
}

static int in(struct rig *r, struct frag *fr, uint64_t now)
{
	return dump_ipfrag_input(&r->t, &fr->p, &fr->f, now, ROOM, &r->dg, &r->n);
}

/* The datagram |id| of |len| data bytes came out whole and unfragmented. */
static void check_dg(const uint8_t *dg, size_t n, uint16_t id, size_t len)
{
	struct wire_pkt p;

	assert_int_equal(n, 20 + len);
	assert_int_equal(wire_pkt_decode(&p, WIRE_LINK_RAW, dg, n, n), 0);
	assert_false(p.ip_fragment);
	assert_int_equal(p.l3_len, 20 + len);
	assert_int_equal(p.ip_proto, 6);
	assert_int_equal(dg[6] & 0x3f, 0);
	assert_int_equal(dg[7], 0);
	for (size_t i = 0; i < len; i++)
		assert_int_equal(dg[20 + i], pat(id, i));
}

static void test_ipfrag_in_order(void **state)
{
	struct rig *r = rig_new();
	struct frag fr[3];

	(void)state;
	split(fr, 1, (const size_t[]){ 64, 64, 13 }, 3);
	assert_int_equal(in(r, &fr[0], 0), DUMP_IPFRAG_HELD);
	assert_int_equal(in(r, &fr[1], 1), DUMP_IPFRAG_HELD);
	assert_int_equal(r->t.n, 1);
	assert_int_equal(r->t.mem, dump_ipfrag_dg_size());
	assert_int_equal(in(r, &fr[2], 2), DUMP_IPFRAG_DONE);
	check_dg(r->dg, r->n, 1, 141);
	assert_int_equal(r->t.n, 0);
	assert_int_equal(r->t.st.done, 1);
	dump_ipfrag_fini(&r->t);
	assert_int_equal(r->t.mem, 0);
	assert_int_equal(r->t.st.unfinished, 0);
	rig_free(r);
}

static void test_ipfrag_out_of_order(void **state)
{
	struct rig *r = rig_new();
	struct frag fr[3], x;

	(void)state;
	split(fr, 7, (const size_t[]){ 1480, 1480, 40 }, 3);
	mk4(&x, 8, 0, 16, true);        /* another datagram between them */
	assert_int_equal(in(r, &fr[2], 0), DUMP_IPFRAG_HELD);
	assert_int_equal(in(r, &x, 0), DUMP_IPFRAG_HELD);
	assert_int_equal(in(r, &fr[1], 0), DUMP_IPFRAG_HELD);
	/* the first fragment, with the header, last */
	assert_int_equal(in(r, &fr[0], 0), DUMP_IPFRAG_DONE);
	check_dg(r->dg, r->n, 7, 3000);
	assert_int_equal(r->t.n, 1);
	dump_ipfrag_fini(&r->t);
	assert_int_equal(r->t.st.unfinished, 1);
	assert_int_equal(r->t.mem, 0);
	rig_free(r);
}

static void test_ipfrag_dup_and_overlap(void **state)
{
	struct rig *r = rig_new();
	struct frag fr[3], o;

	(void)state;
	split(fr, 3, (const size_t[]){ 64, 64, 8 }, 3);
	assert_int_equal(in(r, &fr[0], 0), DUMP_IPFRAG_HELD);
	/* the same fragment again is dropped alone */
	assert_int_equal(in(r, &fr[0], 0), DUMP_IPFRAG_DUP);
	assert_int_equal(r->t.st.dup, 1);
	assert_int_equal(in(r, &fr[1], 0), DUMP_IPFRAG_HELD);
	/* one that overlaps part of it drops the datagram (RFC 5722) */
	mk4(&o, 3, 120, 16, true);
	assert_int_equal(in(r, &o, 0), DUMP_IPFRAG_BAD);
	assert_int_equal(r->t.st.bad, 1);
	assert_int_equal(r->t.n, 0);
	/* what comes after starts a datagram of its own, which never ends */
	assert_int_equal(in(r, &fr[2], 0), DUMP_IPFRAG_HELD);
	/* the same range with other bytes is no duplicate */
	mk4(&o, 3, 128, 8, false);
	o.b[20] ^= 0xff;
	assert_int_equal(in(r, &o, 0), DUMP_IPFRAG_BAD);
	assert_int_equal(r->t.st.bad, 2);
	dump_ipfrag_fini(&r->t);
	assert_int_equal(r->t.st.done, 0);
	rig_free(r);
}

/* Two fragments of one datagram whose ends contradict each other: the
 * first is held, the second drops the datagram. */
static void test_ipfrag_inconsistent_end(void **state)
{
	static const struct {
		uint16_t id;
		struct {
			uint16_t off;
			size_t len;
			bool more;
		} f[2];
	} cases[] = {
		/* data beyond the end a last fragment set */
		{ 4, { { 64, 16, false }, { 80, 16, true } } },
		/* a last fragment ending before data held */
		{ 5, { { 64, 32, true }, { 16, 16, false } } },
		/* two last fragments, different ends */
		{ 6, { { 64, 8, false }, { 80, 8, false } } },
		/* an empty fragment */
		{ 9, { { 0, 16, true }, { 16, 0, false } } },
	};
	struct rig *r = rig_new();
	struct frag fr[2];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int k = 0; k < 2; k++)
			mk4(&fr[k], cases[i].id, cases[i].f[k].off, cases[i].f[k].len,
			    cases[i].f[k].more);
		assert_int_equal(in(r, &fr[0], 0), DUMP_IPFRAG_HELD);
		assert_int_equal(in(r, &fr[1], 0), DUMP_IPFRAG_BAD);
	}
	assert_int_equal(r->t.st.bad, 4);
	assert_int_equal(r->t.n, 0);
	rig_free(r);
}

static void test_ipfrag_timeout(void **state)
{
	struct rig *r = rig_new();
	struct frag a, b;

	(void)state;
	mk4(&a, 11, 0, 64, true);
	mk4(&b, 11, 64, 8, false);
	assert_int_equal(in(r, &a, 100 * SEC), DUMP_IPFRAG_HELD);
	/* a clock stepping back takes nothing away */
	dump_ipfrag_expire(&r->t, 1 * SEC);
	assert_int_equal(r->t.n, 1);
	dump_ipfrag_expire(&r->t, 129 * SEC);
	assert_int_equal(r->t.n, 1);
	/* 30 s after the first fragment the datagram is gone; the last
	 * fragment then begins another */
	assert_int_equal(in(r, &b, 130 * SEC), DUMP_IPFRAG_HELD);
	assert_int_equal(r->t.st.timeout, 1);
	assert_int_equal(r->t.n, 1);
	/* in time, it completes */
	assert_int_equal(in(r, &a, 131 * SEC), DUMP_IPFRAG_DONE);
	check_dg(r->dg, r->n, 11, 72);
	dump_ipfrag_fini(&r->t);
	assert_int_equal(r->t.st.done, 1);
	rig_free(r);
}

static void test_ipfrag_bound(void **state)
{
	struct rig *r = rig_new();
	struct frag a;

	(void)state;
	/* one more datagram than the table holds: the oldest goes */
	for (unsigned i = 0; i <= DUMP_IPFRAG_MAX; i++) {
		mk4(&a, (uint16_t)(100 + i), 0, 16, true);
		assert_int_equal(in(r, &a, i), DUMP_IPFRAG_HELD);
		assert_true(r->t.mem <= DUMP_IPFRAG_MAX * dump_ipfrag_dg_size());
	}
	assert_int_equal(r->t.n, DUMP_IPFRAG_MAX);
	assert_int_equal(r->t.st.evicted, 1);
	assert_int_equal(r->t.st.evicted_bytes, 16);
	/* datagram 100 was the one: its last fragment starts anew */
	mk4(&a, 100, 16, 8, false);
	assert_int_equal(in(r, &a, 100), DUMP_IPFRAG_HELD);
	assert_int_equal(r->t.st.evicted, 2);
	/* a budget with no room: the oldest gives its room to the new one */
	mk4(&a, 500, 0, 16, true);
	assert_int_equal(dump_ipfrag_input(&r->t, &a.p, &a.f, 101, 0, &r->dg, &r->n), DUMP_IPFRAG_HELD);
	assert_int_equal(r->t.st.evicted, 3);
	assert_int_equal(r->t.n, DUMP_IPFRAG_MAX);
	dump_ipfrag_fini(&r->t);
	assert_int_equal(r->t.mem, 0);
	/* none to give it: the fragment itself is dropped */
	dump_ipfrag_init(&r->t);
	assert_int_equal(dump_ipfrag_input(&r->t, &a.p, &a.f, 101, 0, &r->dg, &r->n),
			 DUMP_IPFRAG_NOROOM);
	assert_int_equal(r->t.n, 0);
	assert_int_equal(r->t.st.evicted, 1);
	/* room for one is room enough */
	assert_int_equal(dump_ipfrag_input(&r->t, &a.p, &a.f, 102, dump_ipfrag_dg_size(), &r->dg,
					   &r->n), DUMP_IPFRAG_HELD);
	rig_free(r);
}

static void test_ipfrag_v6(void **state)
{
	/* IPv6, fragment header (next TCP, id 0x0a0b0c0d): 16 bytes at 0
	 * with M, then 5 bytes at 16 */
	static const uint8_t h6[40] = {
		0x60, 0, 0, 0, 0, 0, 44, 64,
		0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
		0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
	};
	struct rig *r = rig_new();
	uint8_t b[2][64];
	struct wire_pkt p[2];
	struct wire_ipfrag f[2];
	size_t len[2] = { 16, 5 };
	struct wire_pkt q;

	(void)state;
	for (int i = 0; i < 2; i++) {
		uint16_t off = (uint16_t)(i ? 16 : 1);  /* offset 2 units | M, or 0 | M */
		uint8_t fh[8] = { 6, 0, (uint8_t)(off >> 8), (uint8_t)off, 0x0a, 0x0b, 0x0c, 0x0d };

		if (i)
			fh[3] = 16;     /* 2 units, no M */
		memcpy(b[i], h6, 40);
		b[i][5] = (uint8_t)(8 + len[i]);
		memcpy(b[i] + 40, fh, 8);
		for (size_t j = 0; j < len[i]; j++)
			b[i][48 + j] = pat(0, (i ? 16 : 0) + j);
		wire_pkt_decode(&p[i], WIRE_LINK_RAW, b[i], 48 + len[i], 48 + len[i]);
		assert_int_equal(wire_ipfrag_decode(&f[i], &p[i]), 0);
	}
	assert_int_equal(dump_ipfrag_input(&r->t, &p[1], &f[1], 0, ROOM, &r->dg, &r->n),
			 DUMP_IPFRAG_HELD);
	assert_int_equal(dump_ipfrag_input(&r->t, &p[0], &f[0], 0, ROOM, &r->dg, &r->n),
			 DUMP_IPFRAG_DONE);
	assert_int_equal(r->n, 40 + 21);
	assert_int_equal(wire_pkt_decode(&q, WIRE_LINK_RAW, r->dg, r->n, r->n), 0);
	assert_false(q.ip_fragment);
	assert_int_equal(q.ip_proto, 6);
	assert_int_equal(q.l3_len, 40 + 21);
	for (size_t j = 0; j < 21; j++)
		assert_int_equal(r->dg[40 + j], pat(0, j));
	rig_free(r);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_ipfrag_in_order),
	cmocka_unit_test(test_ipfrag_out_of_order),
	cmocka_unit_test(test_ipfrag_dup_and_overlap),
	cmocka_unit_test(test_ipfrag_inconsistent_end),
	cmocka_unit_test(test_ipfrag_timeout),
	cmocka_unit_test(test_ipfrag_bound),
	cmocka_unit_test(test_ipfrag_v6))
