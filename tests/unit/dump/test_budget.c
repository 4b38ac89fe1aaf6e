// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * test_budget.c - rdsdump's engine under many flows: memory follows what is
 * in flight, a budget (max_mem) holds the total by closing the least
 * recently active flows early, and every early close is counted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include "cmain.h"

#include "dump.h"

#define MSS 1448u

static unsigned long notes[DUMP_NOTE__COUNT];
static unsigned long msgs;

static void sink(void *ctx, const struct dump_rec *r)
{
	(void)ctx;
	if (r->type == DUMP_REC_NOTE)
		notes[r->u.note.what]++;
	else if (r->type == DUMP_REC_MSG)
		msgs++;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

/* Ethernet / IPv4 / TCP from 10.1.x.y:port to 10.255.255.254:16385. */
static void tcp_pkt(struct dump_eng *e, uint32_t flow, uint32_t seq, uint8_t flags,
		    const uint8_t *payload, size_t len)
{
	static uint8_t f[14 + 20 + 20 + MSS];
	static uint64_t frame;
	struct dump_pkthdr ph = { 0 };
	size_t n = 14 + 20 + 20 + len;

	memset(f, 0, 54);
	f[12] = 0x08;
	f[14] = 0x45;
	put16(f + 16, (uint16_t)(40 + len));
	f[22] = 64;
	f[23] = 6;
	f[26] = 10;
	f[27] = 1;
	f[28] = (uint8_t)(flow >> 8);
	f[29] = (uint8_t)flow;
	f[30] = 10;
	f[31] = f[32] = 255;
	f[33] = 254;
	put16(f + 34, (uint16_t)(1024 + (flow >> 16)));
	put16(f + 36, 16385);
	put32(f + 38, seq);
	put32(f + 42, 1);
	f[46] = 0x50;
	f[47] = flags;
	put16(f + 48, 65535);
	if (len)
		memcpy(f + 54, payload, len);
	ph.frame = ++frame;
	ph.caplen = ph.len = n;
	ph.linktype = WIRE_LINK_ETHERNET;
	dump_eng_packet(e, &ph, f);
}

/* A SYN and one 16-byte RDS data message. */
static uint32_t open_flow(struct dump_eng *e, uint32_t flow)
{
	uint8_t m[WIRE_HDR_LEN + 16] = { 0 };
	uint32_t isn = flow * 2654435761u;

	tcp_pkt(e, flow, isn, 0x02, NULL, 0);
	m[7] = 1;                       /* h_sequence 1 */
	put32(m + 16, 16);              /* h_len */
	put16(m + 20, 4000);
	put16(m + 22, 4001);
	tcp_pkt(e, flow, isn + 1, 0x18, m, sizeof(m));
	return isn + 1 + sizeof(m);
}

/* |n| bytes behind a one-byte hole that never fills. */
static void hold(struct dump_eng *e, uint32_t flow, uint32_t next, size_t n)
{
	static uint8_t b[MSS];

	for (uint32_t seq = next + 1; n;) {
		size_t k = n < MSS ? n : MSS;

		tcp_pkt(e, flow, seq, 0x18, b, k);
		seq += (uint32_t)k;
		n -= k;
	}
}

static struct dump_eng *eng(size_t max_mem, unsigned max_flows)
{
	struct dump_cfg cfg = { .sink = sink, .max_mem = max_mem, .max_flows = max_flows };
	struct dump_eng *e;

	memset(notes, 0, sizeof(notes));
	msgs = 0;
	assert_int_equal(dump_eng_new(&e, &cfg), 0);
	return e;
}

static void test_budget_small_flows_cost_little(void **state)
{
	/* 3000 open connections with a message each: a few KiB apiece, not
	 * the 1.4 MiB of two full reassembly windows */
	struct dump_eng *e = eng(0, 0);
	const struct dump_eng_drops *dr;

	(void)state;
	for (uint32_t i = 0; i < 3000; i++)
		open_flow(e, i);
	assert_true(dump_eng_mem(e) < 3000u * (64u << 10));
	dump_eng_finish(e);
	assert_int_equal(msgs, 3000);
	dr = dump_eng_drops(e);
	assert_int_equal(dr->flows_max + dr->flows_mem, 0);
	assert_int_equal(dr->held_bytes + dr->partial_bytes + dr->nomem + dr->nomem_bytes, 0);
	dump_eng_free(e);
}

static void test_budget_holds_under_pressure(void **state)
{
	/* 400 connections holding 96 KiB each behind a hole (37.5 MiB in all)
	 * within a 16 MiB budget: memory stays under it, and what was cut
	 * short is counted, both flows and bytes */
	const size_t budget = DUMP_MAX_MEM_MIN;
	struct dump_eng *e = eng(budget, 0);
	const struct dump_eng_drops *dr;

	(void)state;
	for (uint32_t i = 0; i < 400; i++) {
		hold(e, i, open_flow(e, i), 96u << 10);
		assert_true(dump_eng_mem(e) <= budget);
	}
	dr = dump_eng_drops(e);
	assert_true(dr->mem_max <= budget);
	assert_true(dr->flows_mem > 200);
	assert_int_equal(dr->flows_max, 0);
	/* each evicted flow had its 96 KiB waiting */
	assert_true(dr->held_bytes == dr->flows_mem * (96u << 10));
	dump_eng_finish(e);
	/* every flow, evicted or closed at the end, said where its hole was */
	assert_int_equal(notes[DUMP_NOTE_GAP], 400);
	assert_int_equal(msgs, 400);
	dump_eng_free(e);
}

static void test_budget_idle_conn_state(void **state)
{
	/* 2500 address pairs, each a connection that sends a congestion map
	 * (8 KiB kept per connection and direction) and closes: 20 MiB of
	 * receiver state in a 16 MiB budget. Connections stay (-z lists them
	 * all), the maps of idle ones go, and that is counted. */
	const size_t budget = DUMP_MAX_MEM_MIN;
	static uint8_t m[WIRE_HDR_LEN + WIRE_CONG_MAP_BYTES];
	struct dump_eng *e = eng(budget, 0);
	struct wire_hdr h;

	(void)state;
	wire_build_cong(&h);
	assert_int_equal(wire_hdr_encode(&h, m, sizeof(m)), WIRE_HDR_LEN);
	for (uint32_t i = 0; i < 2500; i++) {
		uint32_t isn = i * 2654435761u, seq = isn + 1;

		tcp_pkt(e, i, isn, 0x02, NULL, 0);
		for (size_t off = 0; off < sizeof(m); off += MSS) {
			size_t k = sizeof(m) - off < MSS ? sizeof(m) - off : MSS;

			tcp_pkt(e, i, seq, 0x18, m + off, k);
			seq += (uint32_t)k;
		}
		tcp_pkt(e, i, seq, 0x11, NULL, 0);
		assert_true(dump_eng_mem(e) <= budget);
	}
	dump_eng_finish(e);
	assert_int_equal(msgs, 2500);
	assert_int_equal(dump_eng_conn_count(e), 2500);
	assert_true(dump_eng_drops(e)->conns_mem > 0);
	dump_eng_free(e);
}

static void test_budget_max_flows_counted(void **state)
{
	/* an early close at max_flows is counted too, with what it cut */
	struct dump_eng *e = eng(0, 8);
	const struct dump_eng_drops *dr;

	(void)state;
	for (uint32_t i = 0; i < 10; i++)
		hold(e, i, open_flow(e, i), 1000);
	dr = dump_eng_drops(e);
	assert_int_equal(dr->flows_max, 2);
	assert_int_equal(dr->flows_mem, 0);
	assert_int_equal(dr->held_bytes, 2000);
	dump_eng_finish(e);
	assert_int_equal(dump_eng_drops(e)->flows_max, 2);
	dump_eng_free(e);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_budget_small_flows_cost_little),
	cmocka_unit_test(test_budget_holds_under_pressure),
	cmocka_unit_test(test_budget_idle_conn_state),
	cmocka_unit_test(test_budget_max_flows_counted))
