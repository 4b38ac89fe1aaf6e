// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_render.c - rdsdump's text and JSON renderings of records: exact lines,
 * the field tables they come from, hostile strings, hex dumps, -z. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "out.h"
#include "render.h"

/* 2023-11-14 22:13:20.123456789 UTC */
#define TS_SEC 1700000000
#define TS_NSEC 123456789

/* A renderer writing to memory: |o| as given, its out a memory stream. */
struct mem {
	char *buf;
	size_t len;
	FILE *f;
	struct dump_render o;
};

static void mem_open(struct mem *m, const struct dump_render *o)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	assert_non_null(m->f);
	m->o = *o;
	m->o.out = m->f;
}

/* Everything written (the caller frees it). */
static char *mem_close(struct mem *m)
{
	assert_int_equal(fclose(m->f), 0);
	/* A copy: GCC 12 -O3 takes a pointer into open_memstream's buffer
	 * for one into the local |buf| (-Wdangling-pointer, a false alarm). */
	char *out = strdup(m->buf);

	assert_non_null(out);
	free(m->buf);
	return out;
}

static char *render(const struct dump_render *o, const struct dump_rec *r)
{
	struct mem m;

	mem_open(&m, o);
	dump_print_rec(&m.o, r);
	return mem_close(&m);
}

static const struct dump_render plain = { .tsmode = 1 };

static void expect(const struct dump_render *o, const struct dump_rec *r, const char *want)
{
	char *got = render(o, r);

	if (strcmp(got, want)) {
		print_error("want: %s\ngot:  %s\n", want, got);
		fail();
	}
	free(got);
}

static void expect_line(const struct dump_rec *r, const char *want_line)
{
	char want[4096];

	snprintf(want, sizeof(want), "%s\n", want_line);
	expect(&plain, r, want);
}

static void ep4(struct dump_ep *e, uint8_t last, uint16_t port)
{
	memset(e, 0, sizeof(*e));
	e->family = 4;
	e->addr[0] = 10;
	e->addr[1] = 199;
	e->addr[2] = 0;
	e->addr[3] = last;
	e->port = port;
}

static void base(struct dump_rec *r, enum dump_rec_type t, enum dump_xport xp)
{
	memset(r, 0, sizeof(*r));
	r->type = t;
	r->frame = 7;
	r->ts_sec = TS_SEC;
	r->ts_nsec = TS_NSEC;
	r->xp = xp;
	r->conn = 0;
	r->path = xp == DUMP_XP_TCP ? 0 : -1;
	r->dir = 0;
	if (xp == DUMP_XP_NL) {
		r->conn = -1;
		return;
	}
	ep4(&r->src, 2, xp == DUMP_XP_TCP ? 32776 : 49152);
	ep4(&r->dst, 3, xp == DUMP_XP_TCP ? 16385 : 4791);
	if (xp == DUMP_XP_IB)
		r->qpn = 0x11;
}

/* A message record around |h| (copied in; extensions decoded in place). */
static void msg(struct dump_rec *r, enum dump_xport xp, const struct wire_hdr *h)
{
	struct dump_msg *m;

	base(r, DUMP_REC_MSG, xp);
	m = &r->u.msg;
	m->hdr = *h;
	m->kind = wire_classify(h, xp == DUMP_XP_IB ? WIRE_XPORT_IB : WIRE_XPORT_TCP);
	wire_exts_decode(&m->exts, m->hdr.ext, WIRE_KVER_7);
	m->caplen = h->len;
	m->segs = 1;
	m->frags = xp == DUMP_XP_IB ? wire_frag_count(h->len) : 0;
	m->icrc_ok = xp == DUMP_XP_IB;
	m->seq = m->kind == WIRE_KIND_CONG || m->kind == WIRE_KIND_ACK ? DUMP_SEQ_NONE
									 : DUMP_SEQ_NEXT;
	r->offset = 1448;
}

static void data(struct dump_rec *r, uint64_t seq, uint32_t len)
{
	struct wire_hdr h;

	wire_build_data(&h, seq, 4000, 4001, len);
	msg(r, DUMP_XP_TCP, &h);
}

/* ------------------------------------------------------------------------
 * One line per record type and kind
 */

static void test_render_line_data(void **state)
{
	struct dump_rec r;
	struct wire_hdr h;

	(void)state;
	data(&r, 12, 4096);
	expect_line(&r, "TCP 10.199.0.2.32776 > 10.199.0.3.16385 path 0: "
			"data 4000 > 4001 seq 12 len 4096");

	/* IPv6, path unknown, flags */
	memset(r.src.addr, 0, 16);
	memset(r.dst.addr, 0, 16);
	r.src.family = r.dst.family = 6;
	r.src.addr[0] = r.dst.addr[0] = 0xfd;
	r.src.addr[15] = 2;
	r.dst.addr[15] = 3;
	r.path = -1;
	r.u.msg.hdr.flags = WIRE_FLAG_RETRANSMITTED | WIRE_FLAG_ACK_REQUIRED | 0x80;
	expect_line(&r, "TCP [fd00::2].32776 > [fd00::3].16385: "
			"data 4000 > 4001 seq 12 len 4096 [ACK_REQUIRED|RETRANSMITTED|0x80]");

	/* IB: fragments, ack and credit, RDMA extension */
	wire_build_data(&h, 9, 4000, 4001, 10000);
	h.ack = 8;
	h.credit = 3;
	{
		struct wire_ext e = { .type = WIRE_EXT_RDMA_DEST };

		e.u.rdma_dest.rkey = 0xabcd;
		e.u.rdma_dest.offset = 4096;
		assert_int_equal(wire_ext_add(h.ext, &e, WIRE_KVER_7), 1);
	}
	wire_hdr_csum_set(&h);
	msg(&r, DUMP_XP_IB, &h);
	expect_line(&r, "IB 10.199.0.2 > 10.199.0.3 qp 0x000011: data 4000 > 4001 seq 9 "
			"len 10000 frags 3 ack 8 credit 3 rkey 0x0000abcd rdma_offset 4096");
}

static void test_render_line_kinds(void **state)
{
	struct dump_rec r;
	struct wire_hdr h;

	(void)state;
	wire_build_ping(&h, 5, 4000);
	msg(&r, DUMP_XP_TCP, &h);
	expect_line(&r, "TCP 10.199.0.2.32776 > 10.199.0.3.16385 path 0: "
			"ping 4000 > 0 seq 5 len 0");
	wire_build_pong(&h, 6, 4000);
	msg(&r, DUMP_XP_TCP, &h);
	expect_line(&r, "TCP 10.199.0.2.32776 > 10.199.0.3.16385 path 0: "
			"pong 0 > 4000 seq 6 len 0");

	wire_build_probe(&h, false, 1, WIRE_KVER_7, 8, 0x1234);
	msg(&r, DUMP_XP_TCP, &h);
	r.u.msg.npaths = 8;
	expect_line(&r, "TCP 10.199.0.2.32776 > 10.199.0.3.16385 path 0: probe-ping 1 > 0 "
			"seq 1 len 0 npaths 8 gen_num 0x00001234 sport_idx 0");
	wire_build_probe(&h, true, 2, WIRE_KVER_6, 4, 0x1234);
	msg(&r, DUMP_XP_TCP, &h);
	expect_line(&r, "TCP 10.199.0.2.32776 > 10.199.0.3.16385 path 0: probe-pong 0 > 1 "
			"seq 2 len 0 npaths 4");

	wire_build_ack(&h, 1234, 7);
	msg(&r, DUMP_XP_IB, &h);
	expect_line(&r, "IB 10.199.0.2 > 10.199.0.3 qp 0x000011: ack 1234 credit 7");
}

static void test_render_line_seq(void **state)
{
	struct dump_rec r;
	struct wire_hdr h;

	(void)state;
	data(&r, 12, 100);
	r.u.msg.hdr.flags = WIRE_FLAG_RETRANSMITTED;
	r.u.msg.seq = DUMP_SEQ_DUP;
	r.u.msg.seq_expected = 20;
	expect_line(&r, "TCP 10.199.0.2.32776 > 10.199.0.3.16385 path 0: data 4000 > 4001 "
			"seq 12 len 100 [RETRANSMITTED] dup (a kernel drops it)");
	data(&r, 25, 100);
	r.u.msg.seq = DUMP_SEQ_SKIP;
	r.u.msg.seq_expected = 20;
	expect_line(&r, "TCP 10.199.0.2.32776 > 10.199.0.3.16385 path 0: data 4000 > 4001 "
			"seq 25 len 100 skip 5");
	r.u.msg.seq = DUMP_SEQ_NEXT;
	r.u.msg.hdr.flags = WIRE_FLAG_RETRANSMITTED;
	r.u.msg.again = true;
	expect_line(&r, "TCP 10.199.0.2.32776 > 10.199.0.3.16385 path 0: data 4000 > 4001 "
			"seq 25 len 100 [RETRANSMITTED] again (delivered twice)");
	data(&r, 3, 100);
	r.u.msg.seq = DUMP_SEQ_BACK;
	r.u.msg.seq_expected = 20;
	r.u.msg.incomplete = true;
	r.u.msg.caplen = 10;
	expect_line(&r, "TCP 10.199.0.2.32776 > 10.199.0.3.16385 path 0: data 4000 > 4001 "
			"seq 3 len 100 back from 20 incomplete");

	/* generation change; rules worst first: error, warn, info */
	wire_build_probe(&h, false, 1, WIRE_KVER_7, 8, 0x2);
	h.ack = 1;
	msg(&r, DUMP_XP_TCP, &h);
	r.u.msg.gen_changed = true;
	r.u.msg.gen_prev = 0x1;
	wire_rules_add(&r.rules, WIRE_RULE_EXT_MULTIPLE);     /* info */
	wire_rules_add(&r.rules, WIRE_RULE_HDR_ACK_ON_TCP);   /* warn */
	wire_rules_add(&r.rules, WIRE_RULE_HDR_LEN_MAX);      /* error */
	expect_line(&r, "TCP 10.199.0.2.32776 > 10.199.0.3.16385 path 0: probe-ping 1 > 0 "
			"seq 1 len 0 ack 1 npaths 8 gen_num 0x00000002 sport_idx 0 "
			"gen_num changed 0x00000001 -> 0x00000002 "
			"!hdr.len.max,hdr.ack.tcp,ext.multiple");
}

static struct wire_cong_map map_prev, map_cur;

/* Both maps clear, then |n| ports congested in the current one: |first|,
 * |first| + |step|, ... */
static void maps_set(uint16_t first, uint16_t step, unsigned n)
{
	wire_cong_clear_all(&map_prev);
	wire_cong_clear_all(&map_cur);
	for (unsigned i = 0; i < n; i++)
		wire_cong_set(&map_cur, (uint16_t)(first + step * i));
}

static void cong(struct dump_rec *r)
{
	struct wire_hdr h;

	wire_build_cong(&h);
	msg(r, DUMP_XP_TCP, &h);
	r->u.msg.cong_prev = &map_prev;
	r->u.msg.cong_cur = &map_cur;
	r->u.msg.cong_count = (uint32_t)wire_cong_count(&map_cur);
}

static void test_render_line_cong(void **state)
{
	struct dump_rec r;

	(void)state;
	maps_set(4000, 1, 4);
	wire_cong_set(&map_prev, 5000);
	cong(&r);
	expect_line(&r, "TCP 10.199.0.2.32776 > 10.199.0.3.16385 path 0: cong seq 0 len 8192: "
			"ports 4000-4003 congested, 5000 free");

	/* the first map of a direction is compared with all free */
	r.u.msg.cong_prev = NULL;
	expect_line(&r, "TCP 10.199.0.2.32776 > 10.199.0.3.16385 path 0: cong seq 0 len 8192: "
			"ports 4000-4003 congested");

	map_prev = map_cur;
	cong(&r);
	expect_line(&r, "TCP 10.199.0.2.32776 > 10.199.0.3.16385 path 0: cong seq 0 len 8192: "
			"no change");

	/* a first map with nothing congested still says so */
	wire_cong_clear_all(&map_cur);
	r.u.msg.cong_prev = NULL;
	expect_line(&r, "TCP 10.199.0.2.32776 > 10.199.0.3.16385 path 0: cong seq 0 len 8192: "
			"all ports free");

	/* 11 ranges: 8 on the line */
	maps_set(100, 10, 11);
	cong(&r);
	expect_line(&r, "TCP 10.199.0.2.32776 > 10.199.0.3.16385 path 0: cong seq 0 len 8192: "
			"ports 100 congested, 110 congested, 120 congested, 130 congested, "
			"140 congested, 150 congested, 160 congested, 170 congested ... (3 more)");

	/* not a map, and a map whose bytes were lost */
	r.u.msg.cong_cur = NULL;
	r.u.msg.hdr.len = 100;
	wire_rules_add(&r.rules, WIRE_RULE_CONG_LEN);
	expect_line(&r, "TCP 10.199.0.2.32776 > 10.199.0.3.16385 path 0: cong seq 0 len 100: "
			"not a map !cong.len");
	cong(&r);
	r.u.msg.cong_cur = NULL;
	r.u.msg.incomplete = true;
	expect_line(&r, "TCP 10.199.0.2.32776 > 10.199.0.3.16385 path 0: cong seq 0 len 8192 "
			"incomplete: map not captured");
}

static void note(struct dump_rec *r, enum dump_note what, uint64_t len, uint64_t aux)
{
	base(r, DUMP_REC_NOTE, DUMP_XP_TCP);
	r->u.note.what = what;
	r->u.note.len = len;
	r->u.note.aux = aux;
}

static void test_render_line_notes(void **state)
{
	static const struct {
		enum dump_note what;
		uint64_t len, aux;
		const char *text;
	} t[] = {
		{ DUMP_NOTE_SYN, 0, 0, "tcp syn" },
		{ DUMP_NOTE_FIN, 0, 0, "tcp fin" },
		{ DUMP_NOTE_RST, 0, 0, "tcp rst" },
		{ DUMP_NOTE_REOPEN, 0, 0, "tcp reopen" },
		{ DUMP_NOTE_MIDSTREAM, 0, 0, "midstream" },
		{ DUMP_NOTE_GAP, 1448, 0, "gap 1448 bytes" },
		{ DUMP_NOTE_TRUNC, 1000, 0, "trunc 1000 bytes" },
		{ DUMP_NOTE_RESYNC, 300, 0, "resync skipped 300 bytes" },
		{ DUMP_NOTE_RETRANS, 1448, 0, "retrans 1448 bytes" },
		{ DUMP_NOTE_CONFLICT, 10, 0, "conflict 10 bytes" },
		{ DUMP_NOTE_AFTER_FIN, 5, 0, "after fin 5 bytes" },
		{ DUMP_NOTE_IGNORED, 100, 123456, "ignored 100 bytes at seq 123456" },
		{ DUMP_NOTE_PARTIAL, 100, 4096, "partial message: 100 of 4096 bytes" },
		{ DUMP_NOTE_DESYNC, 2147483647, 0, "desync: h_len 2147483647 above limit" },
		{ DUMP_NOTE_PATH_REFUSED, 0, 0, "path refused (no free slot)" },
		{ DUMP_NOTE_LARGER, 0, 0, "opened by the larger address" },
	};
	char want[256];
	struct dump_rec r;

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		note(&r, t[i].what, t[i].len, t[i].aux);
		snprintf(want, sizeof(want),
			 "TCP 10.199.0.2.32776 > 10.199.0.3.16385 path 0: %s", t[i].text);
		expect_line(&r, want);
	}

	note(&r, DUMP_NOTE_PSN_GAP, 2, 0x123);
	r.xp = DUMP_XP_IB;
	r.qpn = 0x11;
	expect_line(&r, "IB 10.199.0.2 > 10.199.0.3 qp 0x000011: psn gap 2 packets before "
			"0x000123");
	r.u.note.what = DUMP_NOTE_PSN_DUP;
	expect_line(&r, "IB 10.199.0.2 > 10.199.0.3 qp 0x000011: psn dup 0x000123");
	r.u.note.what = DUMP_NOTE_FRAG_ERR;
	wire_rules_add(&r.rules, WIRE_RULE_FRAG_SHORT);
	expect_line(&r, "IB 10.199.0.2 > 10.199.0.3 qp 0x000011: fragments do not reassemble "
			"!ib.frag.short");
}

static struct wire_ibcm cmv;
static struct wire_ibpd pdv;

static void cm(struct dump_rec *r, uint16_t attr)
{
	base(r, DUMP_REC_CM, DUMP_XP_IB);
	r->qpn = 1;
	cmv = (struct wire_ibcm){ .base_version = 1, .mgmt_class = WIRE_IBCM_CLASS,
				  .class_version = 2, .method = 3, .tid = 0x1122334455667788ull,
				  .attr_id = attr, .local_comm_id = 0xaabbccdd,
				  .remote_comm_id = 0x11223344 };
	r->u.cm.cm = &cmv;
}

static void pd(struct dump_rec *r, uint8_t major, uint8_t minor)
{
	pdv = (struct wire_ibpd){ .family = 4, .saddr = { 10, 0, 0, 2 }, .daddr = { 10, 0, 0, 3 },
				  .major = major, .minor = minor,
				  .minor_mask = WIRE_IB_SUPPORTED_MINORS };
	r->u.cm.pd = &pdv;
}

static void test_render_line_cm(void **state)
{
	struct dump_rec r;

	(void)state;
	cm(&r, WIRE_IBCM_REQ);
	cmv.service_id = wire_ibcm_rds_service_id(WIRE_IB_PORT_V4);
	cmv.local_qpn = 0x11;
	cmv.starting_psn = 0xabcdef;
	cmv.private_len = 92;
	cmv.has_cma = true;
	cmv.cma_ip_version = 4;
	cmv.cma_port = 40000;
	cmv.cma_src[0] = cmv.cma_dst[0] = 10;
	pd(&r, 4, 1);
	r.u.cm.version = WIRE_IBVER_4_1;
	expect_line(&r, "IB 10.199.0.2 > 10.199.0.3: cm REQ service 0x00000000010648ca "
			"qpn 0x000011 psn 0xabcdef rds 4.1 mask 0x0003 credit 0 -> 4.1");
	r.u.cm.version = 0;
	pdv.major = 9;
	wire_rules_add(&r.rules, WIRE_RULE_IBPD_VERSION);
	expect_line(&r, "IB 10.199.0.2 > 10.199.0.3: cm REQ service 0x00000000010648ca "
			"qpn 0x000011 psn 0xabcdef rds 9.1 mask 0x0003 credit 0 -> reject "
			"!ib.pd.version");

	cm(&r, WIRE_IBCM_REP);
	cmv.local_qpn = 0x12;
	cmv.starting_psn = 0x5;
	pd(&r, 3, 1);
	pdv.credit = 32;
	r.u.cm.version = WIRE_IBVER_3_1;
	expect_line(&r, "IB 10.199.0.2 > 10.199.0.3: cm REP qpn 0x000012 psn 0x000005 "
			"rds 3.1 mask 0x0003 credit 32 -> 3.1");

	cm(&r, WIRE_IBCM_REJ);
	cmv.rej_reason = 28;
	cmv.rej_msg = 0;
	expect_line(&r, "IB 10.199.0.2 > 10.199.0.3: cm REJ reason 28 (consumer) msg REQ");
	cmv.rej_reason = 99;
	cmv.rej_msg = 2;
	expect_line(&r, "IB 10.199.0.2 > 10.199.0.3: cm REJ reason 99 msg other");

	cm(&r, WIRE_IBCM_RTU);
	expect_line(&r, "IB 10.199.0.2 > 10.199.0.3: cm RTU");
	cm(&r, WIRE_IBCM_DREQ);
	cmv.remote_qpn = 0x12;
	expect_line(&r, "IB 10.199.0.2 > 10.199.0.3: cm DREQ qpn 0x000012");
	cm(&r, WIRE_IBCM_DREP);
	expect_line(&r, "IB 10.199.0.2 > 10.199.0.3: cm DREP");
}

static struct wire_nl_ls nlv;

static void nl(struct dump_rec *r, uint16_t op, bool request)
{
	base(r, DUMP_REC_NL, DUMP_XP_NL);
	memset(&nlv, 0, sizeof(nlv));
	nlv.client = WIRE_NL_CLIENT_LS;
	nlv.op = op;
	nlv.nl_type = (uint16_t)(WIRE_NL_CLIENT_LS << 10 | op);
	nlv.nl_flags = request ? 1 : 0;
	nlv.is_request = request;
	nlv.nl_seq = 7;
	nlv.nl_len = 120;
	r->u.nl = &nlv;
}

static void test_render_line_nl(void **state)
{
	struct dump_rec r;

	(void)state;
	nl(&r, WIRE_NL_LS_OP_RESOLVE, true);
	nlv.has_resolve_hdr = true;
	strcpy(nlv.device_name, "rxe0");
	nlv.port_num = 1;
	nlv.present[WIRE_NL_LS_SERVICE_ID] = nlv.mandatory[WIRE_NL_LS_SERVICE_ID] = true;
	nlv.present[WIRE_NL_LS_DGID] = nlv.mandatory[WIRE_NL_LS_DGID] = true;
	nlv.present[WIRE_NL_LS_SGID] = nlv.mandatory[WIRE_NL_LS_SGID] = true;
	nlv.service_id = 0x10648ca;
	expect_line(&r, "NL: ls RESOLVE request seq 7 pid 0 dev rxe0 port 1 "
			"attrs SERVICE_ID,DGID,SGID");

	nl(&r, WIRE_NL_LS_OP_RESOLVE, false);
	nlv.nl_pid = 4321;
	nlv.present[WIRE_NL_LS_PATH_RECORD] = true;
	nlv.npaths = 2;
	expect_line(&r, "NL: ls RESOLVE response seq 7 pid 4321 paths 2");

	nl(&r, WIRE_NL_LS_OP_RESOLVE, false);
	nlv.is_err = true;
	nlv.nl_flags = WIRE_NL_LS_F_ERR;
	expect_line(&r, "NL: ls RESOLVE response seq 7 pid 0 error");

	nl(&r, WIRE_NL_LS_OP_SET_TIMEOUT, true);
	nlv.present[WIRE_NL_LS_TIMEOUT] = true;
	nlv.timeout = 1000;
	expect_line(&r, "NL: ls SET_TIMEOUT request seq 7 pid 0 timeout 1000 attrs TIMEOUT");

	nl(&r, WIRE_NL_LS_OP_IP_RESOLVE, true);
	nlv.has_ip_resolve_hdr = true;
	nlv.ifindex = 3;
	nlv.present[WIRE_NL_LS_IPV4] = true;
	nlv.ipv4[0] = 10;
	nlv.ipv4[3] = 9;
	expect_line(&r, "NL: ls IP_RESOLVE request seq 7 pid 0 ifindex 3 ipv4 10.0.0.9 "
			"attrs IPV4");
	nl(&r, WIRE_NL_LS_OP_IP_RESOLVE, false);
	nlv.present[WIRE_NL_LS_DGID] = true;
	nlv.dgid[0] = 0xfe;
	nlv.dgid[1] = 0x80;
	nlv.dgid[15] = 1;
	expect_line(&r, "NL: ls IP_RESOLVE response seq 7 pid 0 dgid fe80::1");

	nl(&r, 77, true);
	wire_rules_add(&r.rules, WIRE_RULE_NL_OP);
	expect_line(&r, "NL: ls op 77 request seq 7 pid 0 !nl.op");
}

static void test_render_line_bad(void **state)
{
	struct dump_rec r;

	(void)state;
	base(&r, DUMP_REC_BAD, DUMP_XP_TCP);
	r.frame = 12;
	r.u.bad.err = WIRE_ERR_TRUNC;
	r.u.bad.layer = "tcp";
	expect_line(&r, "frame 12: tcp: truncated: more bytes are needed");
}

static void test_render_tsmode(void **state)
{
	struct dump_render o = { .tsmode = 0 };
	struct dump_rec r;

	(void)state;
	note(&r, DUMP_NOTE_SYN, 0, 0);
	expect(&o, &r, "22:13:20.123456 TCP 10.199.0.2.32776 > 10.199.0.3.16385 path 0: "
		       "tcp syn\n");
	o.tsmode = 2;
	expect(&o, &r, "1700000000.123456 TCP 10.199.0.2.32776 > 10.199.0.3.16385 path 0: "
		       "tcp syn\n");
	o.tsmode = 1;
	expect(&o, &r, "TCP 10.199.0.2.32776 > 10.199.0.3.16385 path 0: tcp syn\n");
	/* microseconds are zero-padded */
	o.tsmode = 2;
	r.ts_nsec = 5000;
	r.ts_sec = 12;
	expect(&o, &r, "12.000005 TCP 10.199.0.2.32776 > 10.199.0.3.16385 path 0: tcp syn\n");
}

/* ------------------------------------------------------------------------
 * -v, -vv, -X
 */

/* The lines -v and -vv both print of test_render_verbose_data's message. */
#define DUP_V                                                                                  \
	"TCP 10.199.0.2.32776 > 10.199.0.3.16385 path 0: data 4000 > 4001 seq 12 "            \
	"len 4096 [RETRANSMITTED] dup (a kernel drops it) !seq.zero\n"                        \
	"    seq 12, ack 0, len 4096, rds_sport 4000, rds_dport 4001, "                        \
	"flags 0x04 [RETRANSMITTED], credit 0, csum 0x0000\n"                                 \
	"    kind data, seq_state dup, seq_expected 13, caplen 4096, incomplete false, "       \
	"segs 3\n"

static void test_render_verbose_data(void **state)
{
	struct dump_render o = { .tsmode = 1, .verbose = 1 };
	struct dump_rec r;

	(void)state;
	data(&r, 12, 4096);
	r.u.msg.hdr.flags = WIRE_FLAG_RETRANSMITTED;
	r.u.msg.seq = DUMP_SEQ_DUP;
	r.u.msg.seq_expected = 13;
	r.u.msg.segs = 3;
	wire_rules_add(&r.rules, WIRE_RULE_SEQ_ZERO);
	expect(&o, &r, DUP_V
	       "    rules seq.zero\n"
	       "    frame 7, conn 0, dir 0, path 0, offset 1448\n");

	o.verbose = 2;
	r.pkt_len = 1514;
	r.pkt_caplen = 200;
	expect(&o, &r, DUP_V
	       "    pad 00000000, exthdr 00000000000000000000000000000000, ext_end 0, "
	       "ext_overrun false, ext_stopped_high false\n"
	       "    rules seq.zero warn \"A sequenced message (data, ping, pong, probe) with "
	       "sequence 0; numbering starts at 1.\"\n"
	       "    frame 7, conn 0, dir 0, path 0, offset 1448\n"
	       "    ts_ns 1700000000123456789, pkt_len 1514, pkt_caplen 200\n");
}

static void test_render_verbose_probe(void **state)
{
	struct dump_render o = { .tsmode = 1, .verbose = 1 };
	struct dump_rec r;
	struct wire_hdr h;

	(void)state;
	wire_build_probe(&h, false, 1, WIRE_KVER_7, 8, 0x2);
	msg(&r, DUMP_XP_IB, &h);
	r.u.msg.npaths = 8;
	r.u.msg.gen_changed = true;
	r.u.msg.gen_prev = 1;
	r.u.msg.seq = DUMP_SEQ_FIRST;
	expect(&o, &r,
	       "IB 10.199.0.2 > 10.199.0.3 qp 0x000011: probe-ping 1 > 0 seq 1 len 0 npaths 8 "
	       "gen_num 0x00000002 sport_idx 0 gen_num changed 0x00000001 -> 0x00000002\n"
	       "    seq 1, ack 0, len 0, rds_sport 1, rds_dport 0, flags 0x00, credit 0, "
	       "csum 0x0000\n"
	       "    kind probe-ping, seq_state first, caplen 0, incomplete false, frags 1, "
	       "icrc_ok true\n"
	       "    ext 5 NPATHS, npaths 8\n"
	       "    ext 6 GEN_NUM, gen_num 0x00000002\n"
	       "    ext 8 SPORT_IDX, sport_idx 0\n"
	       "    conn_npaths 8, gen_changed true, gen_prev 0x00000001\n"
	       "    frame 7, conn 0, dir 0, qpn 0x000011\n");
}

static void test_render_verbose_cong_all_ranges(void **state)
{
	struct dump_render o = { .tsmode = 1, .verbose = 2 };
	struct dump_rec r;
	char *got;

	(void)state;
	maps_set(100, 10, 11);
	wire_cong_set(&map_prev, 65535);
	cong(&r);
	got = render(&o, &r);
	assert_non_null(strstr(got, "    map true, congested 11, nchanges 12, first_map false\n"
				    "    changes +100 +110 +120 +130 +140 +150 +160 +170\n"
				    "    changes +180 +190 +200 -65535\n"));
	free(got);
	o.verbose = 1;
	got = render(&o, &r);
	assert_null(strstr(got, "changes +"));
	free(got);
}

static void test_render_hex(void **state)
{
	struct dump_render o = { .tsmode = 1, .hex = 1 };
	struct dump_rec r;
	uint8_t payload[300];
	uint8_t pkt[20];
	char *got;

	(void)state;
	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)('A' + i % 26);
	data(&r, 0x0102, 3);
	r.u.msg.payload = payload;
	r.u.msg.caplen = 3;
	expect(&o, &r,
	       "TCP 10.199.0.2.32776 > 10.199.0.3.16385 path 0: data 4000 > 4001 seq 258 "
	       "len 3\n"
	       "\t0x0000:  0000 0000 0000 0102 0000 0000 0000 0000  ................\n"
	       "\t0x0010:  0000 0003 0fa0 0fa1 0000 0000 0000 0000  ................\n"
	       "\t0x0020:  0000 0000 0000 0000 0000 0000 0000 0000  ................\n"
	       "\t0x0030:  4142 43                                  ABC\n");

	/* at most 256 payload bytes: 48 + 256 = 304 = 19 lines */
	data(&r, 1, 300);
	r.u.msg.payload = payload;
	r.u.msg.caplen = 300;
	got = render(&o, &r);
	assert_non_null(strstr(got, "\t0x0120:  4748 494a"));
	assert_null(strstr(got, "\t0x0130:"));
	free(got);

	/* -XX and non-message records: the packet */
	for (size_t i = 0; i < sizeof(pkt); i++)
		pkt[i] = (uint8_t)i;
	pkt[16] = '"';
	r.pkt = pkt;
	r.pkt_caplen = sizeof(pkt);
	r.pkt_len = 60;
	o.hex = 2;
	got = render(&o, &r);
	assert_non_null(strstr(got, "len 300\n"
				    "\t0x0000:  0001 0203 0405 0607 0809 0a0b 0c0d 0e0f  "
				    "................\n"
				    "\t0x0010:  2211 1213                                \"...\n"));
	free(got);
	note(&r, DUMP_NOTE_RETRANS, 20, 0);
	r.pkt = pkt;
	r.pkt_caplen = sizeof(pkt);
	o.hex = 1;
	got = render(&o, &r);
	assert_non_null(strstr(got, "retrans 20 bytes\n\t0x0000:  0001"));
	free(got);
}

/* ------------------------------------------------------------------------
 * JSON
 */

static struct json_object *parse_json(const char *text)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *j;
	size_t len = strlen(text);

	assert_non_null(tok);
	/* exactly one line, one object */
	assert_true(len > 0 && text[len - 1] == '\n');
	assert_null(memchr(text, '\n', len - 1));
	j = json_tokener_parse_ex(tok, text, (int)len - 1);
	assert_int_equal(json_tokener_get_error(tok), json_tokener_success);
	assert_int_equal(json_tokener_get_parse_end(tok), len - 1);
	json_tokener_free(tok);
	assert_non_null(j);
	assert_true(json_object_is_type(j, json_type_object));
	return j;
}

static struct json_object *get(struct json_object *j, const char *k)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(j, k, &v)) {
		print_error("no key \"%s\" in %s\n", k, json_object_to_json_string(j));
		fail();
	}
	return v;
}

static void test_render_json_data(void **state)
{
	struct dump_render o = { .json = true };
	struct dump_rec r;
	struct json_object *j, *a;
	char *got;

	(void)state;
	data(&r, 12, 4096);
	r.u.msg.hdr.flags = WIRE_FLAG_RETRANSMITTED | WIRE_FLAG_ACK_REQUIRED;
	r.u.msg.seq = DUMP_SEQ_SKIP;
	r.u.msg.seq_expected = 10;
	r.u.msg.again = true;
	wire_rules_add(&r.rules, WIRE_RULE_HDR_ACKREQ_ON_TCP);
	wire_rules_add(&r.rules, WIRE_RULE_HDR_CSUM_BAD);
	got = render(&o, &r);
	assert_string_equal(
		got,
		"{\"type\":\"msg\",\"frame\":7,\"ts_ns\":1700000000123456789,"
		"\"ts\":\"2023-11-14T22:13:20.123456789Z\",\"xport\":\"tcp\","
		"\"src\":\"10.199.0.2\",\"sport\":32776,\"dst\":\"10.199.0.3\",\"dport\":16385,"
		"\"qpn\":null,\"conn\":0,\"dir\":0,\"path\":0,\"offset\":1448,\"pkt_len\":0,"
		"\"pkt_caplen\":0,\"kind\":\"data\",\"seq\":12,\"ack\":0,\"len\":4096,"
		"\"rds_sport\":4000,\"rds_dport\":4001,\"flags\":6,"
		"\"flag_names\":[\"ACK_REQUIRED\",\"RETRANSMITTED\"],\"credit\":0,\"csum\":0,"
		"\"pad\":\"00000000\",\"exthdr\":\"00000000000000000000000000000000\","
		"\"ext\":[],\"ext_end\":0,\"ext_overrun\":false,\"ext_stopped_high\":false,"
		"\"seq_state\":\"skip\",\"seq_expected\":10,\"again\":true,\"caplen\":4096,\"incomplete\":false,"
		"\"frags\":null,\"segs\":1,\"icrc_ok\":null,\"conn_npaths\":null,"
		"\"gen_changed\":false,\"gen_prev\":null,\"cong\":null,\"rdma_ops\":null,\"rdma_bytes\":null,\"rdma_unmatched\":null,"
		"\"rules\":[\"hdr.csum.bad\",\"hdr.flags.ackreq_tcp\"]}\n");
	j = parse_json(got);
	a = get(j, "rules");
	assert_int_equal(json_object_array_length(a), 2);
	json_object_put(j);
	free(got);

	/* -X adds the bytes -X shows */
	o.hex = 1;
	got = render(&o, &r);
	j = parse_json(got);
	assert_int_equal(strlen(json_object_get_string(get(j, "hex"))), 2 * WIRE_HDR_LEN);
	json_object_put(j);
	free(got);
}

static void test_render_json_cong(void **state)
{
	struct dump_render o = { .json = true };
	struct dump_rec r;
	struct json_object *j, *c, *ch;
	char *got;

	(void)state;
	maps_set(100, 10, 11);
	wire_cong_set(&map_cur, 101);
	wire_cong_set(&map_prev, 7);
	cong(&r);
	got = render(&o, &r);
	j = parse_json(got);
	c = get(j, "cong");
	assert_true(json_object_get_boolean(get(c, "map")));
	assert_int_equal(json_object_get_int(get(c, "congested")), 12);
	assert_int_equal(json_object_get_int(get(c, "nchanges")), 12);
	ch = get(c, "changes");
	/* JSON has every range, not the line's 8 */
	assert_int_equal(json_object_array_length(ch), 12);
	assert_int_equal(json_object_get_int(get(json_object_array_get_idx(ch, 0), "first")), 7);
	assert_string_equal(
		json_object_get_string(get(json_object_array_get_idx(ch, 0), "state")), "free");
	assert_int_equal(json_object_get_int(get(json_object_array_get_idx(ch, 1), "first")),
			 100);
	assert_int_equal(json_object_get_int(get(json_object_array_get_idx(ch, 1), "last")),
			 101);
	assert_string_equal(
		json_object_get_string(get(json_object_array_get_idx(ch, 1), "state")),
		"congested");
	json_object_put(j);
	free(got);
}

/* A name a peer chose: quotes, backslash, control bytes, a newline, high bytes. */
static const char hostile[] = "r\"x\\e\n0\x01\x7f\xff ";

static void test_render_json_hostile(void **state)
{
	struct dump_render o = { .json = true };
	struct dump_rec r;
	struct json_object *j;
	char *got;

	(void)state;
	nl(&r, WIRE_NL_LS_OP_RESOLVE, true);
	nlv.has_resolve_hdr = true;
	memcpy(nlv.device_name, hostile, sizeof(hostile));
	got = render(&o, &r);
	j = parse_json(got);
	assert_string_equal(json_object_get_string(get(j, "dev")),
			    "r\"x\\\\e\\x0a0\\x01\\x7f\\xff\\x20");
	json_object_put(j);
	free(got);

	/* a device name of 64 bytes and no NUL stays within bounds */
	memset(nlv.device_name, '\x02', WIRE_NL_DEVICE_NAME_MAX);
	nlv.device_name[WIRE_NL_DEVICE_NAME_MAX] = '\0';
	got = render(&o, &r);
	j = parse_json(got);
	assert_int_equal(strlen(json_object_get_string(get(j, "dev"))),
			 4 * WIRE_NL_DEVICE_NAME_MAX);
	json_object_put(j);
	free(got);

	/* the text line stays one line and one token */
	memcpy(nlv.device_name, hostile, sizeof(hostile));
	expect_line(&r, "NL: ls RESOLVE request seq 7 pid 0 dev r\"x\\\\e\\x0a0\\x01\\x7f\\xff\\x20 "
			"port 0");
}

/* ------------------------------------------------------------------------
 * The field tables: the -v labels and the JSON keys are their entries, so
 * what is left to check is the tables themselves and that JSON follows them
 */

static const struct out_field *find_key(const struct out_group *g, const char *k, size_t from,
					size_t *at)
{
	for (size_t i = from; i < g->n; i++) {
		if (!strcmp(g->f[i].key, k)) {
			*at = i;
			return &g->f[i];
		}
	}
	return NULL;
}

/* Keys unique; what a type needs is there; a label of its own only on an
 * element of an array, named after the array. */
static void check_group(const struct out_group *g, const char *parent)
{
	assert_non_null(g);
	assert_true(g->n > 0);
	for (size_t i = 0; i < g->n; i++) {
		const struct out_field *f = &g->f[i];
		size_t at;

		assert_non_null(f->key);
		assert_true(find_key(g, f->key, 0, &at) && at == i);
		assert_true(f->level <= 2);
		if (f->type == OUT_ENUM || f->type == OUT_FLAGS)
			assert_non_null(f->names);
		if (f->type == OUT_OBJECT)
			assert_non_null(f->sub);
		if (f->type == OUT_ARRAY && f->level && !f->sub)
			assert_true(f->sep != 0);
		if (f->label)
			assert_string_equal(f->label, parent);
		if (f->sub)
			check_group(f->sub, f->key);
	}
}

/* Every key of |j| is in |g|, in the order of |g|, at every depth. */
static void check_json_order(struct json_object *j, const struct out_group *g)
{
	size_t next = 0;

	json_object_object_foreach(j, k, v)
	{
		size_t at;
		const struct out_field *f = find_key(g, k, next, &at);

		if (!f) {
			print_error("key \"%s\" not in table %s, or out of order\n", k, g->name);
			fail();
		}
		next = at + 1;
		if (f->sub && json_object_is_type(v, json_type_object))
			check_json_order(v, f->sub);
		if (f->sub && json_object_is_type(v, json_type_array))
			for (size_t i = 0; i < json_object_array_length(v); i++)
				check_json_order(json_object_array_get_idx(v, i), f->sub);
	}
}

static void test_render_field_tables(void **state)
{
	(void)state;
	for (int t = DUMP_REC_MSG; t <= DUMP_REC_RDMA; t++) {
		const struct out_group *g = dump_rec_fields((enum dump_rec_type)t);
		size_t at;

		check_group(g, NULL);
		/* what dump_print_rec() finds by position */
		assert_non_null(find_key(g, "rules", 0, &at));
		assert_int_equal(at, g->n - 2);
		assert_non_null(find_key(g, "hex", 0, &at));
		assert_int_equal(at, g->n - 1);
	}
	assert_null(dump_rec_fields((enum dump_rec_type)99));
}

static void json_follows_table(struct dump_rec *r)
{
	struct dump_render oj = { .json = true, .hex = 1 };
	char *js = render(&oj, r);
	struct json_object *j = parse_json(js);

	check_json_order(j, dump_rec_fields(r->type));
	json_object_put(j);
	free(js);
	/* and the text forms of the same record come out whole */
	for (int v = 1; v <= 2; v++) {
		struct dump_render ov = { .tsmode = 1, .verbose = v };
		char *text = render(&ov, r);

		assert_true(strlen(text) > 0 && text[strlen(text) - 1] == '\n');
		free(text);
	}
}

static void test_render_json_follows_tables(void **state)
{
	struct dump_rec r;
	struct wire_hdr h;
	uint8_t pkt[64] = { 0 };

	(void)state;
	data(&r, 12, 4096);
	r.u.msg.seq = DUMP_SEQ_BACK;
	r.u.msg.again = true;
	r.pkt = pkt;
	r.pkt_caplen = r.pkt_len = sizeof(pkt);
	wire_rules_add(&r.rules, WIRE_RULE_HDR_LEN_MAX);
	wire_rules_add(&r.rules, WIRE_RULE_EXT_TRAILING);
	json_follows_table(&r);

	/* every extension type, including unknown ones */
	memset(&h, 0, sizeof(h));
	wire_build_data(&h, 1, 2, 3, 0);
	{
		static const uint8_t ext[WIRE_EXT_SPACE] = {
			WIRE_EXT_RDMA_BYTES, 0, 0, 1, 0, 1, 0, 0, 0,
			WIRE_EXT_RDMA, 0, 0, 0, 9, 12, 0,
		};
		memcpy(h.ext, ext, sizeof(ext));
	}
	msg(&r, DUMP_XP_IB, &h);
	json_follows_table(&r);
	wire_build_probe(&h, true, 1, WIRE_KVER_7, 2, 3);
	msg(&r, DUMP_XP_TCP, &h);
	r.u.msg.gen_changed = true;
	json_follows_table(&r);
	memset(&h, 0, sizeof(h));
	h.ext[0] = WIRE_EXT_VERSION;
	h.ext[5] = WIRE_EXT_RDMA_DEST;
	h.ext[14] = WIRE_EXT_CAP_BITS;
	msg(&r, DUMP_XP_TCP, &h);
	json_follows_table(&r);
	wire_build_ack(&h, 5, 1);
	msg(&r, DUMP_XP_IB, &h);
	json_follows_table(&r);

	maps_set(1, 1, 1);
	cong(&r);
	json_follows_table(&r);
	r.u.msg.cong_cur = NULL;
	json_follows_table(&r);

	note(&r, DUMP_NOTE_GAP, 100, 0);
	json_follows_table(&r);

	cm(&r, WIRE_IBCM_REQ);
	cmv.has_cma = true;
	cmv.cma_ip_version = 4;
	pd(&r, 4, 1);
	r.u.cm.version = WIRE_IBVER_4_1;
	json_follows_table(&r);
	cm(&r, WIRE_IBCM_REJ);
	json_follows_table(&r);
	cm(&r, WIRE_IBCM_DREQ);
	json_follows_table(&r);

	nl(&r, WIRE_NL_LS_OP_RESOLVE, true);
	nlv.has_resolve_hdr = true;
	for (unsigned i = 1; i < WIRE_NL_LS_ATTR_MAX; i++)
		nlv.present[i] = nlv.mandatory[i] = true;
	nlv.npaths = 2;
	json_follows_table(&r);
	nl(&r, WIRE_NL_LS_OP_IP_RESOLVE, true);
	nlv.has_ip_resolve_hdr = true;
	json_follows_table(&r);

	base(&r, DUMP_REC_BAD, DUMP_XP_TCP);
	r.u.bad.err = WIRE_ERR_MALFORMED;
	r.u.bad.layer = "ip";
	json_follows_table(&r);
}

/* ------------------------------------------------------------------------
 * -z
 */

static char *render_stats(const struct dump_render *o, const struct dump_conn *const *c,
			  size_t n)
{
	struct mem m;

	mem_open(&m, o);
	dump_print_stats(&m.o, c, n);
	return mem_close(&m);
}

static void test_render_stats(void **state)
{
	static struct dump_conn c0, c1;
	const struct dump_conn *cs[2] = { &c0, &c1 };
	struct dump_render o = { .tsmode = 1 };
	struct json_object *j, *conns, *paths;
	char *got;

	(void)state;
	memset(&c0, 0, sizeof(c0));
	c0.id = 0;
	c0.xp = DUMP_XP_TCP;
	ep4(&c0.a, 2, 0);
	ep4(&c0.b, 3, 0);
	c0.npaths = 8;
	c0.adv_npaths[0] = c0.adv_npaths[1] = 8;
	c0.sport_idx[0] = true;
	c0.gen[0] = 0x1234;
	c0.gen[1] = 0x5678;
	c0.gen_changes[1] = 1;
	c0.st[0][0].msgs = 100;
	c0.st[0][0].bytes = 409600;
	c0.st[0][0].conns = 1;
	c0.st[3][1].msgs = 5;
	c0.st[3][1].dups = 2;
	c0.st[3][1].again = 1;
	c0.st[3][1].conns = 1;
	c0.rule_counts[WIRE_RULE_HDR_ACK_ON_TCP] = 3;
	c0.rule_counts[WIRE_RULE_SEQ_ZERO] = 1;
	memset(&c1, 0, sizeof(c1));
	c1.id = 1;
	c1.xp = DUMP_XP_IB;
	ep4(&c1.a, 4, 0);
	ep4(&c1.b, 5, 0);

	got = render_stats(&o, cs, 2);
	assert_string_equal(
		got,
		"conn 0 TCP 10.199.0.2 <-> 10.199.0.3 npaths 8 adv_npaths 8 8 sport_idx 1 0 "
		"gen 0x00001234 0x00005678 gen_changes 0 1\n"
		"  path dir msgs  bytes retransmitted dups skips skipped backs again "
		"cong_updates rule_msgs gaps gap_bytes resyncs rdma_ops rdma_bytes conns\n"
		"     0 a>b  100 409600             0    0     0       0     0     0 "
		"           0         0    0         0       0        0          0     1\n"
		"     3 b>a    5      0             0    2     0       0     0     1 "
		"           0         0    0         0       0        0          0     1\n"
		"  rules hdr.ack.tcp 3, seq.zero 1\n"
		"conn 1 IB 10.199.0.4 <-> 10.199.0.5 npaths 0 adv_npaths 0 0 sport_idx 0 0 "
		"gen 0x00000000 0x00000000 gen_changes 0 0\n"
		"  no messages\n");
	free(got);

	o.json = true;
	got = render_stats(&o, cs, 2);
	j = parse_json(got);
	assert_string_equal(json_object_get_string(get(j, "type")), "stats");
	conns = get(j, "conns");
	assert_int_equal(json_object_array_length(conns), 2);
	paths = get(json_object_array_get_idx(conns, 0), "paths");
	assert_int_equal(json_object_array_length(paths), 2);
	assert_int_equal(json_object_get_int(get(json_object_array_get_idx(paths, 1), "dups")),
			 2);
	assert_int_equal(json_object_get_int(get(json_object_array_get_idx(paths, 1), "path")),
			 3);
	assert_int_equal(json_object_get_int(get(get(json_object_array_get_idx(conns, 0),
						       "rules"),
						   "hdr.ack.tcp")),
			 3);
	json_object_put(j);
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_render_line_data),
		cmocka_unit_test(test_render_line_kinds),
		cmocka_unit_test(test_render_line_seq),
		cmocka_unit_test(test_render_line_cong),
		cmocka_unit_test(test_render_line_notes),
		cmocka_unit_test(test_render_line_cm),
		cmocka_unit_test(test_render_line_nl),
		cmocka_unit_test(test_render_line_bad),
		cmocka_unit_test(test_render_tsmode),
		cmocka_unit_test(test_render_verbose_data),
		cmocka_unit_test(test_render_verbose_probe),
		cmocka_unit_test(test_render_verbose_cong_all_ranges),
		cmocka_unit_test(test_render_hex),
		cmocka_unit_test(test_render_json_data),
		cmocka_unit_test(test_render_json_cong),
		cmocka_unit_test(test_render_json_hostile),
		cmocka_unit_test(test_render_field_tables),
		cmocka_unit_test(test_render_json_follows_tables),
		cmocka_unit_test(test_render_stats),
	};

	/* tsmode 0 is local time: pin the zone, as tcpdump's tests do */
	setenv("TZ", "UTC", 1);
	tzset();
	return cmocka_run_group_tests_name("dump_render", tests, NULL, NULL);
}
