// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_faults.c - the faulty-peer mode (rdsu_ep_cfg.faults, tests only).
 * For every defect: a scenario is run once with the node under test faulty
 * and once with it correct, and a detector that looks only at what a
 * conformance suite could see (the wire through the tap, the correct
 * peer's counters and what its application reads) must find the defect
 * in the first run and nothing in the second. Defects that share a
 * scenario must also be told apart: in a faulty run no other detector of
 * that scenario fires.
 *
 * Three defects answer to input no correct librds sends (a ping from port
 * 0, an unknown extension type, an h_len above 1 MiB), and four are wrong
 * answers to a probe ping, told apart best by one ping, and two slow ones. For those the peer
 * is this test itself, writing the bytes to one endpoint by hand
 * (tests/unit/rds/utest.h); huge-hlen-crash runs in a child process that
 * must die of SIGABRT. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "simtest.h"
#include "../unit/rds/utest.h"

static uint8_t rbuf[WIRE_MAX_MSG_LEN];

/* Ports of the ping sockets: nothing but pongs is ever sent to them. */
#define PING_PORT(node) ((node) == 0 ? 4444 : 5555)
#define LIMIT (60 * RDSU_SEC)
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* One run of a scenario and what it observed. */
struct run {
	struct world *w;
	int bad, good;          /* the node under test and its (correct) peer */
	uint32_t faults;        /* of |bad| */
	/* basic: messages each way, and the pongs each pinger read */
	unsigned got[2];        /* data messages read intact by node i */
	unsigned pongs[2];      /* pongs read by node i's ping socket */
	/* stream: messages of the flow, read by the receiver */
	uint32_t total, delivered, dups;
};

static void run_idle(struct run *r)
{
	/* A faulty node may leave messages stuck; that is not idle time. */
	(void)rdsu_sim_run_idle(r->w->sim, rdsu_sim_now(r->w->sim) + LIMIT);
}

static rdsu_ns now_of(const struct run *r)
{
	return rdsu_sim_now(r->w->sim);
}

static bool from_bad(const struct run *r, const struct wrec *x)
{
	return x->from == r->bad;
}

/* Anything that claims to be a map: h_flags has CONG_BITMAP. */
static bool mapish(const struct wrec *x)
{
	return x->h.flags & WIRE_FLAG_CONG_BITMAP;
}

/* ------------------------------------------------------------------------
 * Scenario "basic": the two nodes meet, send a message each way, and ping
 * each other from sockets that receive nothing else.
 */

static void read_all(struct run *r, int node, struct rdsu_sock *data, struct rdsu_sock *ping)
{
	struct rdsu_rxinfo info;
	ssize_t n;

	while ((n = read_msg(data, rbuf, sizeof(rbuf), &info, now_of(r))) >= 0)
		if (msg_check(rbuf, (size_t)n) >= 0)
			r->got[node]++;
	while ((n = read_msg(ping, rbuf, sizeof(rbuf), &info, now_of(r))) >= 0)
		r->pongs[node]++;
}

static void scen_basic(struct run *r)
{
	struct world *w = r->w;
	struct rdsu_sock *sa = sock_bound(w, w->a, 4000), *sb = sock_bound(w, w->b, 5000);
	struct rdsu_sock *pa = sock_bound(w, w->a, PING_PORT(0));
	struct rdsu_sock *pb = sock_bound(w, w->b, PING_PORT(1));

	assert_int_equal(send_msg(sa, w->b, 5000, 1, 100, now_of(r)), 100);
	run_idle(r);
	assert_int_equal(send_msg(sb, w->a, 4000, 2, 60, now_of(r)), 60);
	run_idle(r);
	assert_int_equal(send_msg(pa, w->b, 0, 0, 0, now_of(r)), 0);
	assert_int_equal(send_msg(pb, w->a, 0, 0, 0, now_of(r)), 0);
	run_idle(r);
	read_all(r, w->a, sa, pa);
	read_all(r, w->b, sb, pb);
	if (!r->faults) {
		/* the scenario does what it says when nobody is faulty */
		assert_int_equal(r->got[0], 1);
		assert_int_equal(r->got[1], 1);
		assert_int_equal(r->pongs[0], 1);
		assert_int_equal(r->pongs[1], 1);
		assert_int_equal(paths_up(w, w->a, w->b), 8);
	}
}

/* seq-zero: a message numbered 0. */
static bool det_seq_zero(const struct run *r)
{
	const struct tap *t = &r->w->tap;

	for (size_t i = 0; i < t->n; i++)
		if (from_bad(r, &t->r[i]) && !mapish(&t->r[i]) && t->r[i].h.seq == 0)
			return true;
	return false;
}

/* seq-skip: on a TCP stream, a fresh message not numbered one above the
 * one before it. */
static bool det_seq_skip(const struct run *r)
{
	const struct tap *t = &r->w->tap;

	for (size_t s = 0; s < t->n_st; s++) {
		bool first = true;
		uint64_t prev = 0;

		if (t->st[s].from != r->bad)
			continue;
		for (size_t i = 0; i < t->n; i++) {
			const struct wrec *x = &t->r[i];

			if (x->conn != t->st[s].conn || x->from != r->bad || mapish(x) ||
			    (x->h.flags & WIRE_FLAG_RETRANSMITTED))
				continue;
			if (!first && x->h.seq != prev + 1)
				return true;
			first = false;
			prev = x->h.seq;
		}
	}
	return false;
}

static bool from_a_port(const struct wrec *p)
{
	return p->h.sport != 0;
}

static bool with_bytes(const struct wrec *p)
{
	return p->h.len != 0;
}

/* Whether one of |bad|'s pongs to the peer's ping socket (among the first
 * 16; there must be one) is |odd|. */
static bool some_pong(const struct run *r, bool (*odd)(const struct wrec *))
{
	const struct tap *t = &r->w->tap;
	size_t n = 0;
	bool seen = false;

	for (size_t i = 0; i < t->n; i++)
		if (from_bad(r, &t->r[i]) && t->r[i].h.dport == PING_PORT(r->good) && n < 16) {
			n++;
			seen = seen || odd(&t->r[i]);
		}
	assert_true(n > 0);
	return seen;
}

/* pong-wrong-port: a pong from a port other than 0; the pinger reads it
 * as a message from that port. */
static bool det_pong_wrong_port(const struct run *r)
{
	return some_pong(r, from_a_port);
}

/* pong-payload: a pong with h_len != 0. */
static bool det_pong_payload(const struct run *r)
{
	return some_pong(r, with_bytes);
}

/* no-map: paths came up (the node wrote on them) but no map went out. */
static bool det_no_map(const struct run *r)
{
	size_t streams = 0, maps = 0;

	for (size_t s = 0; s < r->w->tap.n_st; s++)
		streams += r->w->tap.st[s].from == r->bad;
	for (size_t i = 0; i < r->w->tap.n; i++)
		maps += from_bad(r, &r->w->tap.r[i]) && mapish(&r->w->tap.r[i]);
	assert_true(streams > 0);
	return maps == 0;
}

/* short-map: a map that is not 8192 bytes; the peer counts it as bad. */
static bool det_short_map(const struct run *r)
{
	const struct tap *t = &r->w->tap;
	bool seen = false;

	for (size_t i = 0; i < t->n; i++)
		if (from_bad(r, &t->r[i]) && mapish(&t->r[i]) &&
		    (t->r[i].h.len != WIRE_CONG_MAP_BYTES || t->r[i].len != WIRE_CONG_MAP_BYTES))
			seen = true;
	/* the correct peer agrees */
	assert_int_equal(seen, stat_of(r->w, r->good, RDSU_STAT_RECV_DROP_BAD_MAP) > 0);
	return seen;
}

/* map-flags: a map whose h_flags is not exactly 0x01; the peer never
 * takes it for a map. */
static bool det_map_flags(const struct run *r)
{
	const struct tap *t = &r->w->tap;
	bool seen = false;

	for (size_t i = 0; i < t->n; i++)
		if (from_bad(r, &t->r[i]) && mapish(&t->r[i]) && t->r[i].h.flags != 0x01)
			seen = true;
	if (seen)
		assert_true(stat_of(r->w, r->good, RDSU_STAT_CONG_UPDATE_RECEIVED) == 0);
	return seen;
}

/* probe-no-npaths: a probe ping or pong without NPATHS; the peer then
 * settles on one path. */
static bool det_probe_no_npaths(const struct run *r)
{
	const struct tap *t = &r->w->tap;
	struct rdsu_conn_info ci;
	size_t probes = 0;
	bool seen = false;

	for (size_t i = 0; i < t->n; i++) {
		struct wire_exts x;

		if (!from_bad(r, &t->r[i]) || !(is_probe_ping(&t->r[i]) || is_probe_pong(&t->r[i])))
			continue;
		probes++;
		wire_exts_decode(&x, t->r[i].h.ext, WIRE_KVER_7);
		if (!x.has_npaths)
			seen = true;
	}
	assert_true(probes > 0);
	conn_info(r->w, r->good, r->bad, &ci);
	assert_int_equal(seen, ci.npaths == 1);
	return seen;
}

/* ack-sent: h_ack set on TCP. */
static bool det_ack_sent(const struct run *r)
{
	const struct tap *t = &r->w->tap;

	for (size_t i = 0; i < t->n; i++)
		if (from_bad(r, &t->r[i]) && t->r[i].h.ack != 0)
			return true;
	return false;
}

/* ------------------------------------------------------------------------
 * Scenario "stream": node a sends a stream of messages to node b while
 * a resets their connections, so that messages are resent and some of
 * them are ones b has already read.
 */

static void stream_read(struct run *r, struct rdsu_sock *rx, uint8_t *seen)
{
	struct rdsu_rxinfo info;
	ssize_t n;

	while ((n = read_msg(rx, rbuf, sizeof(rbuf), &info, now_of(r))) >= 0) {
		long idx = msg_check(rbuf, (size_t)n);

		assert_true(idx >= 0 && idx < (long)r->total);
		if (seen[idx])
			r->dups++;
		else
			r->delivered++;
		seen[idx] = 1;
	}
}

static void scen_stream(struct run *r)
{
	struct world *w = r->w;
	struct rdsu_sock *tx = sock_bound(w, w->a, 4003), *rx = sock_bound(w, w->b, 5000);
	uint8_t *seen;
	uint32_t sent = 0;
	int kills = 0;

	r->total = 2000;
	seen = calloc(r->total, 1);
	rdsu_sock_set_sndbuf(tx, 64 * 1024, 0);
	for (int round = 0; round < 4000 && r->delivered < r->total; round++) {
		bool kill = round % 4 == 3 && kills < 12;

		while (sent < r->total &&
		       send_msg(tx, w->b, 5000, sent, 8 + sent * 37 % 3000, now_of(r)) > 0)
			sent++;
		/* A burst in flight, then a reset from a's side: 60 to 120 us
		 * in, so that some of it was read by b but its acknowledgement
		 * (one latency later) has not reached a. */
		rdsu_sim_run_for(w->sim, kill ? 60000 + 20000 * (rdsu_ns)(kills % 4) : 200000);
		if (kill && rdsu_sim_reset_conns(w->sim, w->a, w->b, 0xff))
			kills++;
		stream_read(r, rx, seen);
	}
	run_idle(r);
	stream_read(r, rx, seen);
	free(seen);
	/* Resending happened, and no message was lost either way. */
	assert_true(kills >= 8);
	assert_true(stat_of(w, w->a, RDSU_STAT_SEND_RETRANSMITTED) > 0);
	assert_int_equal(r->delivered, r->total);
	if (!r->faults)
		assert_true(stat_of(w, w->b, RDSU_STAT_RECV_DROP_OLD_SEQ) > 0);
}

/* retrans-no-flag: a message written again on a path (same sequence
 * number) without RETRANSMITTED. */
static bool det_retrans_no_flag(const struct run *r)
{
	const struct tap *t = &r->w->tap;
	size_t resent = 0;
	bool seen = false;

	for (size_t i = 0; i < t->n; i++) {
		const struct wrec *x = &t->r[i];

		if (!from_bad(r, x) || mapish(x))
			continue;
		for (size_t j = 0; j < i; j++) {
			const struct wrec *y = &t->r[j];

			if (y->from != x->from || y->path != x->path || y->h.seq != x->h.seq ||
			    mapish(y))
				continue;
			resent++;
			if (!(x->h.flags & WIRE_FLAG_RETRANSMITTED))
				seen = true;
			break;
		}
	}
	assert_true(resent > 0);
	return seen;
}

/* dup-deliver: the receiving application reads a message twice. */
static bool det_dup_deliver(const struct run *r)
{
	return r->dups > 0;
}

/* ------------------------------------------------------------------------
 * Scenario "larger first": the larger address (b) speaks first, so its
 * connection reaches a, which must reset it and connect back.
 */

static void scen_larger_first(struct run *r)
{
	struct world *w = r->w;
	struct rdsu_sock *sa = sock_bound(w, w->a, 4000), *sb = sock_bound(w, w->b, 5000);
	struct rdsu_rxinfo info;

	assert_int_equal(send_msg(sb, w->a, 4000, 9, 64, now_of(r)), 64);
	run_idle(r);
	assert_int_equal(read_msg(sa, rbuf, sizeof(rbuf), &info, now_of(r)), 64);
	assert_int_equal(msg_check(rbuf, 64), 9);
	assert_true(stat_of(w, w->b, RDSU_STAT_CONNECT_REQ) >= 1);
}

/* accept-larger: b's connection was accepted, not reset. The simulated
 * TCP counts the acceptor's resets (on the wire: an RST in answer to the
 * handshake); b drops its own connection once established either way
 * (rds_tcp_state_change), so only the reset tells. */
static bool det_accept_larger(const struct run *r)
{
	struct rdsu_sim_stats st;

	rdsu_sim_get_stats(r->w->sim, &st);
	assert_true(stat_of(r->w, r->good, RDSU_STAT_KICK_DROPPED) + st.refused >= 1);
	return st.refused == 0 && st.accepted == st.connects;
}

/* ------------------------------------------------------------------------
 * The cases
 */

enum scen { SC_BASIC, SC_STREAM, SC_LARGER };

struct fcase {
	uint32_t fault;
	enum scen scen;
	unsigned sides;         /* bit i: run with node i faulty */
	bool (*seen)(const struct run *r);
};

static const struct fcase cases[] = {
	{ RDSU_FAULT_SEQ_ZERO, SC_BASIC, 3, det_seq_zero },
	{ RDSU_FAULT_SEQ_SKIP, SC_BASIC, 3, det_seq_skip },
	{ RDSU_FAULT_PONG_WRONG_PORT, SC_BASIC, 3, det_pong_wrong_port },
	{ RDSU_FAULT_PONG_PAYLOAD, SC_BASIC, 3, det_pong_payload },
	{ RDSU_FAULT_NO_MAP, SC_BASIC, 3, det_no_map },
	{ RDSU_FAULT_SHORT_MAP, SC_BASIC, 3, det_short_map },
	{ RDSU_FAULT_MAP_FLAGS, SC_BASIC, 3, det_map_flags },
	{ RDSU_FAULT_PROBE_NO_NPATHS, SC_BASIC, 3, det_probe_no_npaths },
	{ RDSU_FAULT_ACK_SENT, SC_BASIC, 3, det_ack_sent },
	{ RDSU_FAULT_RETRANS_NO_FLAG, SC_STREAM, 1, det_retrans_no_flag },
	{ RDSU_FAULT_DUP_DELIVER, SC_STREAM, 2, det_dup_deliver },
	{ RDSU_FAULT_ACCEPT_LARGER, SC_LARGER, 1, det_accept_larger },
};

static void run_scen(struct run *r, enum scen sc, int bad, uint32_t faults, uint64_t seed)
{
	memset(r, 0, sizeof(*r));
	r->w = world_new2f(seed, WIRE_KVER_7, WIRE_KVER_7, NULL, bad == 0 ? faults : 0,
			   bad == 1 ? faults : 0);
	r->bad = bad;
	r->good = !bad;
	r->faults = faults;
	switch (sc) {
	case SC_BASIC:
		scen_basic(r);
		break;
	case SC_STREAM:
		scen_stream(r);
		break;
	case SC_LARGER:
		scen_larger_first(r);
		break;
	}
	assert_int_equal(r->w->tap.errors, 0);
}

static const char *fault_name_of(uint32_t f)
{
	for (unsigned i = 0; i < RDSU_FAULT__COUNT; i++)
		if (f == 1u << i)
			return rdsu_fault_name(i);
	return "?";
}

static void test_fault_case(void **state)
{
	const struct fcase *fc = *state;

	for (int bad = 0; bad < 2; bad++) {
		struct run r;

		if (!(fc->sides & (1u << bad)))
			continue;
		/* Correct: nothing for this detector, nor for any other of the
		 * scenario. */
		run_scen(&r, fc->scen, bad, 0, 100 + (uint64_t)bad);
		for (size_t k = 0; k < ARRAY_LEN(cases); k++)
			if (cases[k].scen == fc->scen && (cases[k].sides & (1u << bad)) &&
			    cases[k].seen(&r))
				fail_msg("correct node %d: %s detected", bad,
					 fault_name_of(cases[k].fault));
		world_free(r.w);

		/* Faulty: this detector, and only this one. */
		run_scen(&r, fc->scen, bad, fc->fault, 100 + (uint64_t)bad);
		for (size_t k = 0; k < ARRAY_LEN(cases); k++) {
			bool seen;

			if (cases[k].scen != fc->scen || !(cases[k].sides & (1u << bad)))
				continue;
			seen = cases[k].seen(&r);
			if (seen != (&cases[k] == fc))
				fail_msg("node %d faulty with %s: %s %sdetected", bad,
					 fault_name_of(fc->fault), fault_name_of(cases[k].fault),
					 seen ? "" : "not ");
		}
		world_free(r.w);
	}
}

/* ------------------------------------------------------------------------
 * Scripted peer: the test writes to one endpoint (b, 10.0.0.2) by hand.
 */

struct script {
	struct rdsu_ep *ep;
	struct rdsu_sock *s;
	struct peer p;
};

/* Without cmocka asserts: also used in a child process. */
static int script_ep(struct rdsu_ep **ep, struct rdsu_sock **s, uint64_t *link, uint32_t faults)
{
	struct rdsu_addr l = rdsu_addr_v4(LARGE), f = rdsu_addr_v4(SMALL);
	struct rdsu_ep_cfg c;

	rdsu_ep_cfg_default(&c);
	c.laddrs[0] = l;
	c.n_laddrs = 1;
	c.gen_num = 9;
	c.seed = 99;
	c.faults = faults;
	if (rdsu_ep_new(ep, &c) || rdsu_sock_new(*ep, s) || rdsu_sock_bind(*s, &l, 5000))
		return -1;
	return rdsu_link_accept(*ep, &l, &f, 32776, T0, link) == RDSU_ACCEPT_UP ? 0 : -1;
}

static void script_open(struct script *sc, uint32_t faults)
{
	uint64_t link;

	assert_int_equal(script_ep(&sc->ep, &sc->s, &link, faults), 0);
	peer_init(&sc->p, sc->ep, link);
	peer_pull(&sc->p); /* its map and probe ping */
	peer_clear(&sc->p);
}

static void script_close(struct script *sc)
{
	peer_fini(&sc->p);
	rdsu_ep_free(sc->ep);
}

/* Whether the endpoint asked for its link to be reset. */
static bool reset_requested(struct rdsu_ep *ep, uint64_t link)
{
	struct rdsu_lreq q;

	while (rdsu_ep_next_link_req(ep, &q) == 1)
		if (q.type == RDSU_LREQ_CLOSE && q.link == link && q.reset)
			return true;
	return false;
}

/* ping-port0-answered: a ping from port 0 gets a pong, itself a ping from
 * port 0 (two such peers would ping-pong forever). */
static bool ping_port0_answered(uint32_t faults)
{
	struct script sc;
	struct wire_hdr h;
	bool seen = false;

	script_open(&sc, faults);
	wire_build_ping(&h, 1, 0);
	assert_int_equal(peer_feed(&sc.p, &h, NULL, false), WIRE_HDR_LEN);
	peer_pull(&sc.p);
	for (size_t i = 0; i < sc.p.n; i++)
		if (sc.p.f[i].h.sport == 0 && sc.p.f[i].h.dport == 0 &&
		    !(sc.p.f[i].h.flags & WIRE_FLAG_CONG_BITMAP))
			seen = true;
	/* a ping from a real port is answered either way */
	wire_build_ping(&h, 2, 4000);
	assert_int_equal(peer_feed(&sc.p, &h, NULL, false), WIRE_HDR_LEN);
	peer_pull(&sc.p);
	assert_non_null(find_kind(&sc.p, WIRE_KIND_PONG));
	script_close(&sc);
	return seen;
}

/* unknown-ext-reset: a data message with an extension type nobody knows
 * costs the path instead of being delivered. */
static bool unknown_ext_reset(uint32_t faults)
{
	struct script sc;
	struct wire_hdr h;
	struct rdsu_rxinfo info;
	struct iovec iov = { rbuf, sizeof(rbuf) };
	ssize_t n;
	bool reset;

	assert_true(wire_ext_size(12, WIRE_KVER_7) < 0);
	script_open(&sc, faults);
	wire_build_data(&h, 1, 4000, 5000, 5);
	h.ext[0] = 12;
	n = peer_feed(&sc.p, &h, (const uint8_t *)"hello", false);
	reset = reset_requested(sc.ep, sc.p.link);
	if (reset) {
		assert_int_equal(n, RDSU_ERR_CLOSED);
		assert_int_equal(rdsu_sock_read(sc.s, &iov, 1, 0, &info, T0), -EAGAIN);
		assert_true(stat(sc.ep, RDSU_STAT_CONN_RESET) == 1);
	} else {
		assert_int_equal(n, WIRE_HDR_LEN + 5);
		assert_int_equal(rdsu_sock_read(sc.s, &iov, 1, 0, &info, T0), 5);
		assert_memory_equal(rbuf, "hello", 5);
	}
	script_close(&sc);
	return reset;
}


/* The scripted defects: a correct endpoint does not show one, the faulty
 * one does. */
static const struct {
	const char *name;
	uint32_t fault;
	bool (*shows)(uint32_t faults);
} scripted[] = {
	{ "ping-port0-answered", RDSU_FAULT_PING_PORT0_ANSWERED, ping_port0_answered },
	{ "unknown-ext-reset", RDSU_FAULT_UNKNOWN_EXT_RESET, unknown_ext_reset },
};

static void test_fault_scripted(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(scripted); i++) {
		if (scripted[i].shows(0))
			fail_msg("%s: shown by a correct endpoint", scripted[i].name);
		if (!scripted[i].shows(scripted[i].fault))
			fail_msg("%s: not shown by the faulty endpoint", scripted[i].name);
	}
}

/* The answers to one probe ping: what came at once and what came by 6 s
 * later, as wire kinds (a pong to port 0 counted apart). */
struct probe_ans {
	unsigned pong, port0, ping, late_pong;
};

static struct probe_ans probe_answer(uint32_t faults)
{
	struct probe_ans a = { 0 };
	struct script sc;
	struct wire_hdr h;

	script_open(&sc, faults);
	wire_build_probe(&h, false, 1, WIRE_KVER_7, 8, 77);
	assert_int_equal(peer_feed(&sc.p, &h, NULL, false), WIRE_HDR_LEN);
	peer_pull(&sc.p);
	for (size_t i = 0; i < sc.p.n; i++) {
		const struct wire_hdr *o = &sc.p.f[i].h;
		enum wire_kind k = wire_classify(o, WIRE_XPORT_TCP);

		a.pong += k == WIRE_KIND_PROBE_PONG;
		a.ping += k == WIRE_KIND_PROBE_PING;
		a.port0 += k == WIRE_KIND_PING && o->sport == 0;
	}
	/* the ping's NPATHS is taken whatever the answer */
	assert_true(stat(sc.ep, RDSU_STAT_PROBE_RECV) == 1);
	peer_clear(&sc.p);
	sc.p.now = T0 + 6 * RDSU_SEC;
	assert_true(rdsu_ep_deadline(sc.ep) > T0);
	(void)rdsu_ep_expire(sc.ep, sc.p.now);
	peer_pull(&sc.p);
	a.late_pong = find_kind(&sc.p, WIRE_KIND_PROBE_PONG) != NULL;
	script_close(&sc);
	return a;
}

/* probe-no-pong, probe-pong-late, probe-pong-port0, probe-extra-ping: a
 * correct node answers a probe ping with one probe pong at once and
 * nothing later; each faulty one answers as its name says and only so. */
static void test_fault_probe_answers(void **state)
{
	struct probe_ans a;

	(void)state;
	a = probe_answer(0);
	assert_true(a.pong == 1 && !a.port0 && !a.ping && !a.late_pong);
	a = probe_answer(RDSU_FAULT_PROBE_NO_PONG);
	assert_true(!a.pong && !a.port0 && !a.ping && !a.late_pong);
	a = probe_answer(RDSU_FAULT_PROBE_PONG_LATE);
	assert_true(!a.pong && !a.port0 && !a.ping && a.late_pong);
	a = probe_answer(RDSU_FAULT_PROBE_PONG_PORT0);
	assert_true(!a.pong && a.port0 == 1 && !a.ping && !a.late_pong);
	a = probe_answer(RDSU_FAULT_PROBE_EXTRA_PING);
	assert_true(!a.pong && !a.port0 && a.ping == 1 && !a.late_pong);
}

/* answer-delay-1s, answer-delay-3s: a ping and a probe ping at T0 are
 * answered, rightly, |d| later and not before: (pongs, probe pongs) at T0,
 * just before T0 + d, and at it. */
static void answers_at(uint32_t faults, rdsu_ns d)
{
	const rdsu_ns at[3] = { T0, T0 + d - RDSU_MSEC, T0 + d };
	struct script sc;
	struct wire_hdr h;

	script_open(&sc, faults);
	wire_build_ping(&h, 1, 4000);
	assert_int_equal(peer_feed(&sc.p, &h, NULL, false), WIRE_HDR_LEN);
	wire_build_probe(&h, false, 2, WIRE_KVER_7, 8, 77);
	assert_int_equal(peer_feed(&sc.p, &h, NULL, false), WIRE_HDR_LEN);
	for (int i = d ? 0 : 2; i < 3; i++) {
		bool due = i == 2;

		sc.p.now = at[i];
		(void)rdsu_ep_expire(sc.ep, sc.p.now);
		peer_pull(&sc.p);
		assert_int_equal(find_kind(&sc.p, WIRE_KIND_PONG) != NULL, due);
		assert_int_equal(find_kind(&sc.p, WIRE_KIND_PROBE_PONG) != NULL, due);
		if (due) {
			assert_int_equal(find_kind(&sc.p, WIRE_KIND_PONG)->h.dport, 4000);
			assert_true(rdsu_ep_deadline(sc.ep) == RDSU_NS_NEVER);
		} else {
			assert_true(rdsu_ep_deadline(sc.ep) == T0 + d);
		}
		peer_clear(&sc.p);
	}
	script_close(&sc);
}

static void test_fault_answer_delay(void **state)
{
	(void)state;
	answers_at(0, 0);
	answers_at(RDSU_FAULT_ANSWER_DELAY_1S, RDSU_SEC);
	answers_at(RDSU_FAULT_ANSWER_DELAY_3S, 3 * RDSU_SEC);
	answers_at(RDSU_FAULT_ANSWER_DELAY_1S | RDSU_FAULT_ANSWER_DELAY_3S, 4 * RDSU_SEC);
}

static void huge_hdr(uint8_t *buf)
{
	struct wire_hdr h;

	wire_build_data(&h, 1, 4000, 5000, 2u << 20);
	wire_hdr_encode(&h, buf, WIRE_HDR_LEN);
}

/* huge-hlen-crash: the correct endpoint resets the path and lives on
 * (checked here); the faulty one calls abort(), so it runs in a child
 * that must die of SIGABRT, having got as far as the input call. */
static void test_fault_huge_hlen_crash(void **state)
{
	uint8_t hdr[WIRE_HDR_LEN];
	struct script sc;
	int status;
	pid_t pid;

	(void)state;
	huge_hdr(hdr);
	script_open(&sc, 0);
	assert_int_equal(rdsu_link_input(sc.ep, sc.p.link, hdr, sizeof(hdr), T0), RDSU_ERR_PROTO);
	assert_true(stat(sc.ep, RDSU_STAT_RECV_TOO_BIG) == 1);
	assert_true(reset_requested(sc.ep, sc.p.link));
	script_close(&sc);

	for (int faulty = 0; faulty < 2; faulty++) {
		fflush(NULL);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			struct rlimit no_core = { 0, 0 };
			struct rdsu_ep *ep;
			struct rdsu_sock *s;
			uint64_t link;
			ssize_t n;

			(void)setrlimit(RLIMIT_CORE, &no_core);
			if (script_ep(&ep, &s, &link, faulty ? RDSU_FAULT_HUGE_HLEN_CRASH : 0))
				_exit(3);
			n = rdsu_link_input(ep, link, hdr, sizeof(hdr), T0);
			_exit(n == RDSU_ERR_PROTO ? 0 : 4);
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		if (faulty) {
			assert_true(WIFSIGNALED(status));
			assert_int_equal(WTERMSIG(status), SIGABRT);
		} else {
			assert_true(WIFEXITED(status));
			assert_int_equal(WEXITSTATUS(status), 0);
		}
	}
}

/* ------------------------------------------------------------------------
 * The table and the configuration
 */

static void test_fault_table(void **state)
{
	uint32_t all = 0;

	(void)state;
	for (unsigned i = 0; i < RDSU_FAULT__COUNT; i++) {
		const struct rdsu_fault_info *fi = rdsu_fault_info(i);

		assert_non_null(fi);
		assert_int_equal((uint32_t)fi->fault, 1u << i);
		assert_ptr_equal(rdsu_fault_name(i), fi->name);
		assert_true(fi->name[0] && fi->text[0] && !strchr(fi->text, '\n'));
		assert_int_equal(rdsu_fault_by_name(fi->name), 1u << i);
		for (unsigned j = 0; j < i; j++)
			assert_string_not_equal(fi->name, rdsu_fault_name(j));
		all |= (uint32_t)fi->fault;
	}
	assert_int_equal(all, RDSU_FAULT__ALL);
	/* every fault has its test here: the cases, and the scripted three */
	all = RDSU_FAULT_PING_PORT0_ANSWERED | RDSU_FAULT_UNKNOWN_EXT_RESET |
	      RDSU_FAULT_HUGE_HLEN_CRASH | RDSU_FAULT_PROBE_NO_PONG | RDSU_FAULT_PROBE_PONG_LATE |
	      RDSU_FAULT_PROBE_PONG_PORT0 | RDSU_FAULT_PROBE_EXTRA_PING |
	      RDSU_FAULT_ANSWER_DELAY_1S | RDSU_FAULT_ANSWER_DELAY_3S;
	/* over IB: the frame calls' seven in tests/unit/rds/test_frames.c,
	 * the CM's two only over RC in the lab (tests/lab/conform_ib.py) */
	all |= RDSU_FAULT_IB_CSUM_BAD | RDSU_FAULT_IB_CSUM_IGNORED | RDSU_FAULT_IB_NO_ACK |
	       RDSU_FAULT_IB_ACK_ZERO | RDSU_FAULT_IB_FRAG_MISMATCH | RDSU_FAULT_IB_FRAG_ACCEPT |
	       RDSU_FAULT_IB_VERSION | RDSU_FAULT_IB_VERSION_ACCEPT | RDSU_FAULT_IB_ACK_IGNORED;
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		assert_int_equal(all & cases[i].fault, 0);
		all |= cases[i].fault;
	}
	assert_int_equal(all, RDSU_FAULT__ALL);
	assert_null(rdsu_fault_info(RDSU_FAULT__COUNT));
	assert_null(rdsu_fault_name(RDSU_FAULT__COUNT));
	assert_int_equal(rdsu_fault_by_name("no-such-fault"), 0);
	assert_int_equal(rdsu_fault_by_name(NULL), 0);
	assert_string_equal(rdsu_fault_name(0), "seq-zero");
	assert_int_equal(rdsu_fault_by_name("huge-hlen-crash"), RDSU_FAULT_HUGE_HLEN_CRASH);
}

static void test_fault_cfg(void **state)
{
	struct rdsu_ep_cfg c;
	struct rdsu_ep *ep;

	(void)state;
	rdsu_ep_cfg_default(&c);
	assert_int_equal(c.faults, 0);
	c.laddrs[0] = rdsu_addr_v4(SMALL);
	c.n_laddrs = 1;
	c.gen_num = 1;
	/* every known bit is taken, an unknown one refused */
	c.faults = RDSU_FAULT__ALL;
	assert_int_equal(rdsu_ep_new(&ep, &c), 0);
	rdsu_ep_free(ep);
	c.faults = RDSU_FAULT__ALL + 1;
	assert_int_equal(rdsu_ep_new(&ep, &c), RDSU_ERR_INVAL);
	/* the structure from before |faults|: accepted, the field not read
	 * (here it holds an unknown bit) and no fault on */
	c.size = offsetof(struct rdsu_ep_cfg, faults);
	assert_int_equal(rdsu_ep_new(&ep, &c), 0);
	rdsu_ep_free(ep);
	c.size = offsetof(struct rdsu_ep_cfg, faults) - 1;
	assert_int_equal(rdsu_ep_new(&ep, &c), RDSU_ERR_INVAL);
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_fault_table),
		cmocka_unit_test(test_fault_cfg),
		cmocka_unit_test(test_fault_scripted),
		cmocka_unit_test(test_fault_huge_hlen_crash),
		cmocka_unit_test(test_fault_probe_answers),
		cmocka_unit_test(test_fault_answer_delay),
	};
	static struct CMUnitTest tests[ARRAY_LEN(fixed) + ARRAY_LEN(cases)];
	static char names[ARRAY_LEN(cases)][48];
	size_t n = 0;

	/* one test per simulated case, named after its fault */
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		snprintf(names[i], sizeof(names[i]), "test_fault_%s", fault_name_of(cases[i].fault));
		tests[n++] = (struct CMUnitTest){ names[i], test_fault_case, NULL, NULL,
						  (void *)&cases[i] };
	}
	for (size_t i = 0; i < ARRAY_LEN(fixed); i++)
		tests[n++] = fixed[i];
	return _cmocka_run_group_tests("test_faults", tests, n, NULL, NULL);
}
