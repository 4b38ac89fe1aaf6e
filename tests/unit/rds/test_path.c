// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_path.c - who connects, reconnect backoff, kicks, duels, slots for
 * incoming connections (6.x arrival order, 7.x source port, held links),
 * stale link ids. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "cmain.h"

#include "utest.h"

static void submit_to(struct rdsu_ep *ep, struct rdsu_sock *s, uint32_t to, uint16_t dport)
{
	struct rdsu_addr dst = rdsu_addr_v4(to);
	struct iovec iov = { "m", 1 };

	assert_int_equal(rdsu_sock_submit(s, &dst, dport, &iov, 1, T0), 1);
	(void)ep;
}

/* An endpoint on |addr| with a message queued for the other address: from
 * port 4000 on SMALL to 5000 on LARGE, or back. Its socket in |*s| if asked. */
static struct rdsu_ep *ep_sending(uint32_t addr, struct rdsu_sock **s)
{
	bool small = addr == SMALL;
	struct rdsu_ep *ep = ep_make(addr, WIRE_KVER_7, 9);
	struct rdsu_sock *x = sock_at(ep, addr, small ? 4000 : 5000);

	submit_to(ep, x, small ? LARGE : SMALL, small ? 5000 : 4000);
	if (s)
		*s = x;
	return ep;
}

/* rds_queue_reconnect: the first try after a drop is immediate, then a
 * random delay below a ceiling that starts at the minimum and doubles up
 * to the maximum; reaching UP resets it. */
static void test_path_backoff(void **state)
{
	struct rdsu_ep *ep = ep_sending(SMALL, NULL);
	struct rdsu_lreq r;
	rdsu_ns now = T0, ceiling = RDSU_MSEC;
	uint64_t link;
	int seen_nonzero = 0;

	(void)state;
	link = connect_to_large(ep, 0, now);
	assert_int_equal(rdsu_link_down(ep, link, now), 0);
	/* immediate */
	assert_int_equal(next_req(ep, RDSU_LREQ_CONNECT, &r), 1);
	assert_true(rdsu_ep_deadline(ep) == RDSU_NS_NEVER);
	link = r.link;
	for (int i = 0; i < 16; i++) {
		rdsu_ns d;

		/* the attempt fails */
		assert_int_equal(rdsu_link_down(ep, link, now), 0);
		assert_int_equal(next_req(ep, RDSU_LREQ_CONNECT, &r), 0);
		d = rdsu_ep_deadline(ep);
		assert_true(d >= now && d < now + ceiling);
		seen_nonzero += d > now;
		assert_true(conn_of(ep, SMALL, LARGE).path[0].backoff ==
			    (ceiling * 2 > RDSU_SEC ? RDSU_SEC : ceiling * 2));
		ceiling = ceiling * 2 > RDSU_SEC ? RDSU_SEC : ceiling * 2;
		/* nothing happens before the deadline */
		if (d > now) {
			assert_int_equal(rdsu_ep_expire(ep, d - 1), 0);
			assert_int_equal(next_req(ep, RDSU_LREQ_CONNECT, &r), 0);
		}
		now = d;
		assert_int_equal(rdsu_ep_expire(ep, now), 1);
		assert_int_equal(next_req(ep, RDSU_LREQ_CONNECT, &r), 1);
		link = r.link;
	}
	assert_true(ceiling == RDSU_SEC);
	assert_true(seen_nonzero > 10);
	/* up again: the ceiling is forgotten */
	assert_int_equal(rdsu_link_established(ep, link, 33000, now), 0);
	assert_true(conn_of(ep, SMALL, LARGE).path[0].backoff == 0);
	assert_int_equal(rdsu_link_down(ep, link, now), 0);
	assert_int_equal(next_req(ep, RDSU_LREQ_CONNECT, &r), 1);
	rdsu_ep_free(ep);
}

/* The larger address never reconnects; its own connection is only a kick,
 * dropped when established (rds_tcp_state_change). */
static void test_path_larger_kicks_only(void **state)
{
	struct rdsu_sock *s;
	struct rdsu_ep *ep = ep_sending(LARGE, &s);
	struct rdsu_lreq r;
	struct rdsu_conn_info ci;
	uint64_t link;

	(void)state;
	assert_int_equal(next_req(ep, RDSU_LREQ_CONNECT, &r), 1);
	assert_int_equal(r.path, 0);
	assert_int_equal(rdsu_link_established(ep, r.link, 33000, T0), RDSU_ERR_CLOSED);
	ci = conn_of(ep, LARGE, SMALL);
	assert_int_equal(ci.path[0].state, RDSU_PATH_DOWN);
	assert_true(ci.path[0].reconnect_at == RDSU_NS_NEVER);
	assert_true(rdsu_ep_deadline(ep) == RDSU_NS_NEVER);
	assert_int_equal(next_req(ep, RDSU_LREQ_CONNECT, &r), 0);
	assert_int_equal(stat(ep, RDSU_STAT_KICK_DROPPED), 1);
	/* the message is still queued; the next send kicks again */
	assert_int_equal(ci.path[0].send_q_msgs, 2); /* probe + data */
	submit_to(ep, s, SMALL, 4000);
	assert_int_equal(next_req(ep, RDSU_LREQ_CONNECT, &r), 1);
	/* a failed kick is not retried either */
	assert_int_equal(rdsu_link_down(ep, r.link, T0), 0);
	assert_int_equal(next_req(ep, RDSU_LREQ_CONNECT, &r), 0);
	assert_true(rdsu_ep_deadline(ep) == RDSU_NS_NEVER);
	/* a connection from the smaller peer carries everything */
	link = accept_from_small(ep, 32776);
	{
		struct peer p;

		peer_init(&p, ep, link);
		peer_hello(&p);
		peer_pull(&p);
		assert_int_equal(count_kind(&p, WIRE_KIND_DATA), 2);
		assert_int_equal(count_kind(&p, WIRE_KIND_PROBE_PING), 1);
		peer_fini(&p);
	}
	/* an accepted link going down is not reconnected by the larger side */
	assert_int_equal(rdsu_link_down(ep, link, T0), 0);
	assert_int_equal(next_req(ep, RDSU_LREQ_CONNECT, &r), 0);
	rdsu_ep_free(ep);
}

/* The smaller address refuses the larger one and connects back
 * (rds_tcp_accept_one_path). */
static void test_path_refuse_larger_connect_back(void **state)
{
	struct rdsu_ep *ep = ep_make(SMALL, WIRE_KVER_7, 9);
	struct rdsu_addr l = rdsu_addr_v4(SMALL), f = rdsu_addr_v4(LARGE);
	struct rdsu_addr self = rdsu_addr_v4(SMALL), other = rdsu_addr_v4(0x0b000001);
	struct rdsu_lreq r;
	uint64_t link = 123;

	(void)state;
	assert_int_equal(rdsu_link_accept(ep, &l, &f, 40000, T0, &link), RDSU_ERR_REFUSED);
	assert_true(link == 0);
	assert_int_equal(next_req(ep, RDSU_LREQ_CONNECT, &r), 1);
	assert_int_equal(r.path, 0);
	assert_int_equal(r.sport_mod, 8);
	assert_int_equal(r.sport_res, 0);
	assert_int_equal(stat(ep, RDSU_STAT_ACCEPT_REFUSED), 1);
	/* a peer that is one of our addresses would be loopback */
	assert_int_equal(rdsu_link_accept(ep, &l, &self, 40000, T0, &link), RDSU_ERR_REFUSED);
	/* not our address at all */
	assert_int_equal(rdsu_link_accept(ep, &other, &f, 40000, T0, &link), RDSU_ERR_NOTFOUND);
	rdsu_ep_free(ep);
}

/* Our kick is still connecting when the smaller peer's connection
 * arrives: the peer's wins, the kick is closed. */
static void test_path_duel(void **state)
{
	struct rdsu_ep *ep = ep_sending(LARGE, NULL);
	struct rdsu_lreq r;
	uint64_t kick, link;

	(void)state;
	assert_int_equal(next_req(ep, RDSU_LREQ_CONNECT, &r), 1);
	kick = r.link;
	link = accept_from_small(ep, 32776);
	assert_true(link != kick);
	assert_int_equal(next_req(ep, RDSU_LREQ_CLOSE, &r), 1);
	assert_true(r.link == kick);
	assert_int_equal(conn_of(ep, LARGE, SMALL).path[0].state, RDSU_PATH_UP);
	assert_int_equal(rdsu_link_established(ep, kick, 1, T0), RDSU_ERR_CLOSED);
	assert_int_equal(conn_of(ep, LARGE, SMALL).path[0].state, RDSU_PATH_UP);
	rdsu_ep_free(ep);
}

/* The peer's probe ping (or, |pong|, its answer to ours) on |link0| says
 * 8 paths. */
static void agree_paths(struct rdsu_ep *ep, uint64_t link0, enum wire_kver peer_kv, bool pong)
{
	struct peer p;
	struct wire_hdr h;

	peer_init(&p, ep, link0);
	wire_build_probe(&h, pong, 1, peer_kv, 8, 5);
	assert_int_equal(peer_feed(&p, &h, NULL, false), WIRE_HDR_LEN);
	peer_fini(&p);
}

static void test_path_slots_7x(void **state)
{
	struct rdsu_ep *ep = ep_make(LARGE, WIRE_KVER_7, 9);
	struct rdsu_addr l = rdsu_addr_v4(LARGE), f = rdsu_addr_v4(SMALL);
	struct rdsu_conn_info ci;
	struct rdsu_lreq r;
	uint64_t link, held, held2;

	(void)state;
	agree_paths(ep, accept_from_small(ep, 32776), WIRE_KVER_7, false);
	/* sport % 8 picks the slot, whatever the arrival order */
	link = accept_from_small(ep, 32783);
	assert_true(conn_of(ep, LARGE, SMALL).path[7].link == link);
	accept_from_small(ep, 32781);
	ci = conn_of(ep, LARGE, SMALL);
	assert_int_equal(ci.path[5].state, RDSU_PATH_UP);
	assert_int_equal(ci.path[5].peer_sport, 32781);
	assert_int_equal(ci.path[1].state, RDSU_PATH_DOWN);
	/* slot 7 busy: held (7.x stash), not reset; input is not taken */
	assert_int_equal(rdsu_link_accept(ep, &l, &f, 32791, T0, &held), RDSU_ACCEPT_HELD);
	assert_int_equal(conn_of(ep, LARGE, SMALL).held_links, 1);
	assert_int_equal(rdsu_link_input(ep, held, (const uint8_t *)"x", 1, T0), 0);
	/* a second one for the same slot waits too */
	assert_int_equal(rdsu_link_accept(ep, &l, &f, 32799, T0, &held2), RDSU_ACCEPT_HELD);
	/* the old one dies: the first held link takes its place */
	assert_int_equal(rdsu_link_down(ep, link, T0), 0);
	assert_int_equal(next_req(ep, RDSU_LREQ_ATTACH, &r), 1);
	assert_true(r.link == held);
	assert_int_equal(r.path, 7);
	ci = conn_of(ep, LARGE, SMALL);
	assert_true(ci.path[7].link == held);
	assert_int_equal(ci.path[7].state, RDSU_PATH_UP);
	assert_int_equal(ci.held_links, 1);
	/* the peer gives up on the other */
	assert_int_equal(rdsu_link_down(ep, held2, T0), 0);
	assert_int_equal(conn_of(ep, LARGE, SMALL).held_links, 0);
	assert_int_equal(rdsu_link_down(ep, held2, T0), RDSU_ERR_CLOSED);
	rdsu_ep_free(ep);
}

/* Before the path count is known, a 7.x acceptor holds extra
 * connections and places them once the probe arrives. */
static void test_path_held_until_npaths(void **state)
{
	struct rdsu_ep *ep = ep_make(LARGE, WIRE_KVER_7, 9);
	struct rdsu_addr l = rdsu_addr_v4(LARGE), f = rdsu_addr_v4(SMALL);
	uint64_t link0 = accept_from_small(ep, 32776), h3, h6;
	struct rdsu_lreq r;
	struct rdsu_conn_info ci;

	(void)state;
	assert_int_equal(rdsu_link_accept(ep, &l, &f, 32779, T0, &h3), RDSU_ACCEPT_HELD);
	assert_int_equal(rdsu_link_accept(ep, &l, &f, 32782, T0, &h6), RDSU_ACCEPT_HELD);
	agree_paths(ep, link0, WIRE_KVER_7, false);
	ci = conn_of(ep, LARGE, SMALL);
	assert_true(ci.path[3].link == h3 && ci.path[3].state == RDSU_PATH_UP);
	assert_true(ci.path[6].link == h6 && ci.path[6].state == RDSU_PATH_UP);
	assert_int_equal(next_req(ep, RDSU_LREQ_ATTACH, &r), 1);
	assert_int_equal(next_req(ep, RDSU_LREQ_ATTACH, &r), 1);
	rdsu_ep_free(ep);
}

/* 6.x acceptor: first free slot in arrival order, refuse when none. */
static void test_path_slots_6x(void **state)
{
	struct rdsu_ep *ep = ep_make(LARGE, WIRE_KVER_6, 9);
	struct rdsu_addr l = rdsu_addr_v4(LARGE), f = rdsu_addr_v4(SMALL);
	uint64_t link;
	struct rdsu_conn_info ci;

	(void)state;
	link = accept_from_small(ep, 40001);
	/* only slot 0 until the count is known */
	assert_int_equal(rdsu_link_accept(ep, &l, &f, 40002, T0, &link), RDSU_ERR_REFUSED);
	agree_paths(ep, conn_of(ep, LARGE, SMALL).path[0].link, WIRE_KVER_7, false);
	for (uint16_t i = 1; i < 8; i++)
		accept_from_small(ep, (uint16_t)(50007 - i));
	ci = conn_of(ep, LARGE, SMALL);
	for (unsigned i = 1; i < 8; i++)
		assert_int_equal(ci.path[i].peer_sport, 50007 - i);
	assert_int_equal(rdsu_link_accept(ep, &l, &f, 40003, T0, &link), RDSU_ERR_REFUSED);
	rdsu_ep_free(ep);
}

/* The smaller side opens paths 1..7 only after the count is agreed, each
 * asking for a source port that encodes the path. */
static void test_path_fanout_after_probe(void **state)
{
	struct rdsu_ep *ep = ep_sending(SMALL, NULL);
	struct rdsu_lreq r;
	uint64_t link0;
	unsigned seen = 0;

	(void)state;
	link0 = connect_to_large(ep, 0, T0);
	assert_int_equal(next_req(ep, RDSU_LREQ_CONNECT, &r), 0);
	agree_paths(ep, link0, WIRE_KVER_7, true);
	while (next_req(ep, RDSU_LREQ_CONNECT, &r)) {
		assert_true(r.path >= 1 && r.path < 8);
		assert_int_equal(r.sport_mod, 8);
		assert_int_equal(r.sport_res, r.path);
		seen |= 1u << r.path;
	}
	assert_int_equal(seen, 0xfe);
	rdsu_ep_free(ep);
}

static void test_path_stale_ids(void **state)
{
	struct rdsu_ep *ep = ep_make(LARGE, WIRE_KVER_7, 9);
	uint64_t link = accept_from_small(ep, 32776);
	const uint8_t *p;
	size_t len;
	uint8_t buf[8];

	(void)state;
	assert_int_equal(rdsu_link_down(ep, link, T0), 0);
	assert_int_equal(rdsu_link_down(ep, link, T0), RDSU_ERR_CLOSED);
	assert_int_equal(rdsu_link_input(ep, link, buf, 1, T0), RDSU_ERR_CLOSED);
	assert_int_equal(rdsu_link_output(ep, link, buf, sizeof(buf), T0), RDSU_ERR_CLOSED);
	assert_int_equal(rdsu_link_peek(ep, link, &p, &len, T0), RDSU_ERR_CLOSED);
	assert_int_equal(rdsu_link_acked(ep, link, 0, T0), RDSU_ERR_CLOSED);
	assert_int_equal(rdsu_link_established(ep, link, 1, T0), RDSU_ERR_CLOSED);
	assert_int_equal(rdsu_link_input(ep, 0, buf, 1, T0), RDSU_ERR_CLOSED);
	assert_int_equal(rdsu_link_input(ep, ~0ull, buf, 1, T0), RDSU_ERR_CLOSED);
	/* a new connection gets a new id */
	assert_true(accept_from_small(ep, 32776) != link);
	rdsu_ep_free(ep);
}

/* A transport that reads a fresh outgoing socket before reporting it
 * established, or reports it twice, loses nothing. */
static void test_path_connect_ordering(void **state)
{
	struct rdsu_ep *ep = ep_sending(SMALL, NULL);
	struct rdsu_lreq r;
	uint8_t hdr[WIRE_HDR_LEN];
	struct wire_hdr h;
	const uint8_t *p;
	size_t len = 99;

	(void)state;
	assert_int_equal(next_req(ep, RDSU_LREQ_CONNECT, &r), 1);
	wire_build_ping(&h, 1, 6000);
	wire_hdr_encode(&h, hdr, sizeof(hdr));
	assert_int_equal(rdsu_link_input(ep, r.link, hdr, sizeof(hdr), T0), 0);
	assert_int_equal(rdsu_link_peek(ep, r.link, &p, &len, T0), 0);
	assert_int_equal(len, 0);
	assert_int_equal(rdsu_link_established(ep, r.link, 32776, T0), 0);
	assert_int_equal(rdsu_link_established(ep, r.link, 32776, T0), 0);
	assert_int_equal(rdsu_link_input(ep, r.link, hdr, sizeof(hdr), T0), sizeof(hdr));
	assert_int_equal(stat(ep, RDSU_STAT_RECV_PING), 1);
	rdsu_ep_free(ep);
}

static void test_path_sport_pick(void **state)
{
	(void)state;
	assert_int_equal(rdsu_sport_pick(32768, 60999, 0, 1), 32776);
	assert_int_equal(rdsu_sport_pick(32768, 60999, 2, 1), 32778);
	assert_int_equal(rdsu_sport_pick(32768, 60999, 2, 2), 32786);
	assert_int_equal(rdsu_sport_pick(32770, 60999, 0, 0), 32776);
	assert_int_equal(rdsu_sport_pick(32768, 32775, 7, 0), 32775);
	assert_int_equal(rdsu_sport_pick(32768, 32775, 7, 1), 0);
	assert_int_equal(rdsu_sport_pick(32768, 60999, 8, 0), 0);
	assert_int_equal(rdsu_sport_pick(65528, 65535, 7, 0), 65535);
	assert_int_equal(rdsu_sport_pick(65530, 65535, 0, 0), 0);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_path_backoff),
	cmocka_unit_test(test_path_larger_kicks_only),
	cmocka_unit_test(test_path_refuse_larger_connect_back),
	cmocka_unit_test(test_path_duel),
	cmocka_unit_test(test_path_slots_7x),
	cmocka_unit_test(test_path_held_until_npaths),
	cmocka_unit_test(test_path_slots_6x),
	cmocka_unit_test(test_path_fanout_after_probe),
	cmocka_unit_test(test_path_stale_ids),
	cmocka_unit_test(test_path_connect_ordering),
	cmocka_unit_test(test_path_sport_pick))
