// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * test_engine.c - rdsdump's engine over the real kernel captures in
 * pcaps/captured: what it must find there is what docs/kernel-behaviour.md
 * says each kernel did (the lab asserted the same things live).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include "cmain.h"

#include "dump.h"
#include "pcaplink.h"

struct tally {
	unsigned long kinds[WIRE_KIND__COUNT];
	unsigned long seqs[8];
	unsigned long notes[DUMP_NOTE__COUNT];
	unsigned long bad, cm, nl, again, msgs_with_rules, icrc_bad, incomplete;
	unsigned long sport_path_mismatch;      /* 7.x: path != source port % 8 */
	unsigned long cm_versions_31;
	unsigned long rdma[DUMP_RDMA_FADD + 1], rdma_tied, rdma_unmatched;
	uint64_t rdma_bytes;
	uint16_t npaths;
	uint32_t gen[2];
	unsigned paths_used;                    /* bitmask of path*2+dir with messages */
	size_t maxmem;
};

static struct tally T;

static void sink(void *ctx, const struct dump_rec *r)
{
	(void)ctx;
	switch (r->type) {
	case DUMP_REC_MSG:
		T.kinds[r->u.msg.kind]++;
		T.seqs[r->u.msg.seq]++;
		T.again += r->u.msg.again;
		T.incomplete += r->u.msg.incomplete;
		if (!wire_rules_empty(&r->rules))
			T.msgs_with_rules++;
		if (r->xp == DUMP_XP_IB && !r->u.msg.icrc_ok)
			T.icrc_bad++;
		if (r->path >= 0)
			T.paths_used |= 1u << (r->path * 2 + r->dir);
		/* the connecting side's port picks the path in 7.x */
		if (r->xp == DUMP_XP_TCP && r->dir == 0 && r->path >= 0 &&
		    r->src.port % 8 != (unsigned)r->path)
			T.sport_path_mismatch++;
		break;
	case DUMP_REC_NOTE:
		T.notes[r->u.note.what]++;
		break;
	case DUMP_REC_BAD:
		T.bad++;
		break;
	case DUMP_REC_CM:
		T.cm++;
		if (r->u.cm.version == WIRE_IBVER_3_1)
			T.cm_versions_31++;
		break;
	case DUMP_REC_NL:
		T.nl++;
		break;
	case DUMP_REC_RDMA:
		T.rdma[r->u.rdma.op]++;
		T.rdma_bytes += r->u.rdma.bytes;
		break;
	}
	if (r->type == DUMP_REC_MSG) {
		T.rdma_tied += r->u.msg.rdma_ops;
		T.rdma_unmatched += r->u.msg.rdma_unmatched;
	}
}

/* Through libpcap, as rdsdump reads them. */
static void run(const char *kernel, const char *scenario)
{
	char path[512], errbuf[PCAP_ERRBUF_SIZE];
	struct dump_cfg cfg = { .sink = sink };
	struct pcap_pkthdr *h;
	const u_char *pkt;
	struct dump_eng *e;
	uint64_t frame = 0;
	pcap_t *pc;
	int lt;

	memset(&T, 0, sizeof(T));
	snprintf(path, sizeof(path), "%s/pcaps/captured/%s/%s.pcap", RDS_SOURCE_DIR, kernel,
		 scenario);
	pc = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	assert_non_null(pc);
	lt = dump_linktype(pcap_datalink(pc));
	assert_true(lt > 0);
	assert_int_equal(dump_eng_new(&e, &cfg), 0);
	while (pcap_next_ex(pc, &h, &pkt) == 1) {
		struct dump_pkthdr ph = dump_pkthdr_of(h, ++frame, lt);

		dump_eng_packet(e, &ph, pkt);
		if (dump_eng_mem(e) > T.maxmem)
			T.maxmem = dump_eng_mem(e);
	}
	pcap_close(pc);
	dump_eng_finish(e);
	if (dump_eng_conn_count(e)) {
		const struct dump_conn *c = dump_eng_conn(e, 0);

		T.npaths = c->npaths;
		T.gen[0] = c->gen[0];
		T.gen[1] = c->gen[1];
	}
	dump_eng_free(e);
}

/* Nothing a clean capture should show. */
static void assert_clean_stream(void)
{
	assert_int_equal(T.bad, 0);
	assert_int_equal(T.notes[DUMP_NOTE_GAP], 0);
	assert_int_equal(T.notes[DUMP_NOTE_RESYNC], 0);
	assert_int_equal(T.notes[DUMP_NOTE_DESYNC], 0);
	assert_int_equal(T.notes[DUMP_NOTE_CONFLICT], 0);
	assert_int_equal(T.notes[DUMP_NOTE_MIDSTREAM], 0);
	assert_int_equal(T.incomplete, 0);
}

static void test_engine_tcp_basic(void **state)
{
	static const char *const k[] = { "6.1", "7.2" };

	(void)state;
	for (int i = 0; i < 2; i++) {
		run(k[i], "tcp_basic");
		assert_clean_stream();
		assert_int_equal(T.kinds[WIRE_KIND_DATA], 8);
		assert_int_equal(T.kinds[WIRE_KIND_PING], 3);
		assert_int_equal(T.kinds[WIRE_KIND_PONG], 3);
		assert_int_equal(T.kinds[WIRE_KIND_PROBE_PING], 1);
		assert_int_equal(T.kinds[WIRE_KIND_PROBE_PONG], 1);
		assert_int_equal(T.kinds[WIRE_KIND_CONG], i == 0 ? 10 : 4);
		/* every sequenced message first or next: nothing lost, nothing dropped */
		assert_int_equal(T.seqs[DUMP_SEQ_FIRST] + T.seqs[DUMP_SEQ_NEXT], 16);
		assert_int_equal(T.npaths, 8);
		/* the larger address's connection is the kick, never used */
		assert_int_equal(T.notes[DUMP_NOTE_LARGER], 1);
		/* 6.x never sends GEN_NUM (one extension per header); 7.x does */
		if (i == 0)
			assert_true(T.gen[0] == 0 && T.gen[1] == 0);
		else
			assert_true(T.gen[0] != 0 && T.gen[1] != 0);
		assert_int_equal(T.msgs_with_rules, 0);
	}
}

static void test_engine_tcp_multipath(void **state)
{
	(void)state;
	run("7.2", "tcp_multipath");
	assert_clean_stream();
	assert_int_equal(T.kinds[WIRE_KIND_DATA], 256);
	assert_int_equal(T.paths_used, 0xffff);         /* 8 paths, both ways */
	assert_int_equal(T.sport_path_mismatch, 0);
	run("6.1", "tcp_multipath");
	assert_clean_stream();
	assert_int_equal(T.kinds[WIRE_KIND_DATA], 256);
	assert_int_equal(T.paths_used, 0xffff);
}

/* All paths dropped mid-stream: 7.2 drops every resend it had (exactly
 * once); 6.1 maps the new connections by arrival and accepts some again. */
static void test_engine_tcp_reconnect(void **state)
{
	(void)state;
	run("7.2", "tcp_reconnect");
	assert_int_equal(T.bad, 0);
	assert_int_equal(T.notes[DUMP_NOTE_RESYNC], 0);
	assert_true(T.seqs[DUMP_SEQ_DUP] > 100);
	assert_int_equal(T.again, 0);
	run("6.1", "tcp_reconnect");
	assert_int_equal(T.bad, 0);
	assert_int_equal(T.notes[DUMP_NOTE_RESYNC], 0);
	assert_true(T.again > 100);
}

/* One connection killed with ss -K: exactly once on both kernels. */
static void test_engine_tcp_reset(void **state)
{
	static const char *const k[] = { "6.1", "7.2" };

	(void)state;
	for (int i = 0; i < 2; i++) {
		run(k[i], "tcp_reset");
		assert_int_equal(T.bad, 0);
		assert_int_equal(T.notes[DUMP_NOTE_RST], 4);
		assert_int_equal(T.notes[DUMP_NOTE_RESYNC], 0);
		assert_true(T.seqs[DUMP_SEQ_DUP] > 0);
		assert_int_equal(T.again, 0);
	}
}

static void test_engine_tcp_congestion(void **state)
{
	(void)state;
	run("7.2", "tcp_congestion");
	assert_clean_stream();
	assert_int_equal(T.kinds[WIRE_KIND_DATA], 64);
	assert_true(T.kinds[WIRE_KIND_CONG] > 4);       /* maps on change, not only on connect */
}

/* The same 74 messages the independent reader (tests/lab/rdscap.py) and
 * capwalk find, every ICRC good, the CM settling on 3.1 (what both kernels propose). */
static void test_engine_ib_basic(void **state)
{
	static const char *const k[] = { "6.1", "7.2" };

	(void)state;
	for (int i = 0; i < 2; i++) {
		run(k[i], "ib_basic");
		assert_int_equal(T.bad, 0);
		assert_int_equal(T.kinds[WIRE_KIND_DATA], 53);
		assert_int_equal(T.kinds[WIRE_KIND_PING], 5);
		assert_int_equal(T.kinds[WIRE_KIND_PONG], 5);
		assert_int_equal(T.kinds[WIRE_KIND_ACK], 7);
		assert_int_equal(T.kinds[WIRE_KIND_CONG], 4);
		assert_int_equal(T.icrc_bad, 0);
		assert_int_equal(T.notes[DUMP_NOTE_FRAG_ERR], 0);
		assert_int_equal(T.notes[DUMP_NOTE_PSN_GAP], 0);
		assert_true(T.cm >= 3);
		assert_true(T.cm_versions_31 >= 2);   /* REQ proposes, REP adopts 3.1 */
		assert_true(T.maxmem < (1u << 20));
	}
}

/* The kernel's RDMA API kernel against kernel (lab-rdma-7.2): every RDMA
 * WRITE and READ REQUEST decoded and claimed by the message after it with
 * its r_key, READ RESPONSEs counted, and their PSNs no gap in the
 * requester's sequence. */
static void test_engine_rdma(void **state)
{
	(void)state;
	run("7.2", "rdma_kernel");
	assert_int_equal(T.bad, 0);
	assert_int_equal(T.rdma[DUMP_RDMA_WRITE], 15);
	assert_int_equal(T.rdma[DUMP_RDMA_READ], 2);
	assert_int_equal(T.rdma[DUMP_RDMA_READ_RESP], 2);
	assert_int_equal(T.rdma[DUMP_RDMA_CSWP] + T.rdma[DUMP_RDMA_FADD], 0);
	assert_int_equal(T.rdma_tied, 17);
	assert_int_equal(T.rdma_unmatched, 0);
	assert_int_equal(T.rdma_bytes, 111820);
	assert_int_equal(T.notes[DUMP_NOTE_PSN_GAP], 0);
	assert_int_equal(T.icrc_bad, 0);
	assert_true(T.maxmem < (4u << 20));
}

CMOCKA_MAIN(
	cmocka_unit_test(test_engine_tcp_basic),
	cmocka_unit_test(test_engine_tcp_multipath),
	cmocka_unit_test(test_engine_tcp_reconnect),
	cmocka_unit_test(test_engine_tcp_reset),
	cmocka_unit_test(test_engine_tcp_congestion),
	cmocka_unit_test(test_engine_ib_basic),
	cmocka_unit_test(test_engine_rdma))
