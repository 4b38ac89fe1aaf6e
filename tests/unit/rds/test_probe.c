// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_probe.c - probe ping/pong bytes, the path count, the path hash,
 * generation numbers, 7.x slot re-sync. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "cmain.h"

#include "utest.h"

/* docs/protocol/header.md, Known answers */
static const uint8_t probe61[WIRE_HDR_LEN] = {
	0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};
static const uint8_t probe7x[WIRE_HDR_LEN] = {
	0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0,    0,    0,    0,    0, 1, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 8, 6, 0x11, 0x22, 0x33, 0x44, 8, 0, 0, 0, 0, 0, 0, 0,
};

static void test_probe_hash_vectors(void **state)
{
	(void)state;
	/* jhash_1word(port, 0) & 7, as the lab confirmed on both kernels */
	assert_int_equal(rdsu_mprds_hash(4003, 0, 8), 2);
	assert_int_equal(rdsu_mprds_hash(3999, 0, 8), 6);
	assert_int_equal(rdsu_mprds_hash(4000, 0, 8), 1);
	assert_int_equal(rdsu_mprds_hash(5000, 0, 8), 0);
	assert_int_equal(rdsu_mprds_hash(1, 0, 8), 3);
	assert_int_equal(rdsu_mprds_hash(4003, 0, 4), 2);
	assert_int_equal(rdsu_mprds_hash(3999, 0, 2), 0);
	assert_int_equal(rdsu_mprds_hash(4003, 0, 1), 0);
	assert_int_equal(rdsu_mprds_hash(4003, 0, 0), 0);
	/* the seed matters */
	{
		unsigned same = 0;

		for (uint16_t p = 4000; p < 4100; p++)
			same += rdsu_mprds_hash(p, 0, 8) == rdsu_mprds_hash(p, 0x12345678, 8);
		assert_true(same < 50);
	}
}

/* librds's default path rule: either end of a port pair, whatever its
 * initval, comes to the same path; the kernel's rule stays the port's. */
static void test_probe_path_rule(void **state)
{
	unsigned used = 0, differs = 0;

	(void)state;
	for (uint16_t a = 4000; a < 4064; a++)
		for (uint16_t b = 5000; b < 5008; b++) {
			unsigned h = rdsu_path_of(RDSU_PATH_BY_PAIR, a, b, 0, 8);

			assert_int_equal(h, rdsu_path_of(RDSU_PATH_BY_PAIR, b, a, 0x12345678, 8));
			assert_int_equal(h & 3, rdsu_path_of(RDSU_PATH_BY_PAIR, a, b, 0, 4));
			assert_int_equal(rdsu_path_of(RDSU_PATH_BY_PAIR, a, b, 0, 1), 0);
			assert_int_equal(rdsu_path_of(RDSU_PATH_BY_PORT, a, b, 7, 8),
					 rdsu_mprds_hash(a, 7, 8));
			used |= 1u << h;
			differs += h != rdsu_path_of(RDSU_PATH_BY_PAIR, a, 5000, 0, 8);
		}
	assert_int_equal(used, 0xff);
	/* the destination port matters */
	assert_true(differs > 300);
}

/* The acceptor's probe is the first sequenced message on path 0: its 48
 * bytes are exactly the kernel's. */
static void check_probe_bytes(enum wire_kver kv, uint32_t gen, const uint8_t *want)
{
	struct rdsu_ep *ep = ep_make(LARGE, kv, gen);
	struct peer p;
	uint8_t hdr[WIRE_HDR_LEN];
	const struct oframe *f;

	peer_init(&p, ep, accept_from_small(ep, 40000));
	peer_pull(&p);
	assert_int_equal(p.n, 2);
	assert_int_equal(wire_classify(&p.f[0].h, WIRE_XPORT_TCP), WIRE_KIND_CONG);
	f = find_kind(&p, WIRE_KIND_PROBE_PING);
	assert_non_null(f);
	wire_hdr_encode(&f->h, hdr, sizeof(hdr));
	assert_memory_equal(hdr, want, WIRE_HDR_LEN);
	assert_true(conn_of(ep, LARGE, SMALL).probe_pending);
	peer_fini(&p);
	rdsu_ep_free(ep);
}

static void test_probe_bytes_6x(void **state)
{
	(void)state;
	check_probe_bytes(WIRE_KVER_6, 0x11223344, probe61);
}

static void test_probe_bytes_7x(void **state)
{
	(void)state;
	check_probe_bytes(WIRE_KVER_7, 0x11223344, probe7x);
}

static void test_probe_ping_answered_with_pong(void **state)
{
	struct rdsu_ep *ep = ep_make(LARGE, WIRE_KVER_7, 0x55667788);
	struct peer p;
	struct wire_hdr h;
	const struct oframe *f;
	struct wire_exts x;
	struct rdsu_conn_info ci;

	(void)state;
	peer_init(&p, ep, accept_from_small(ep, 40000));
	peer_pull(&p);
	peer_clear(&p);
	probe_hdr(&h, false, 1, WIRE_KVER_7, 8, 0xaabbccdd);
	assert_int_equal(peer_feed(&p, &h, NULL, false), WIRE_HDR_LEN);
	peer_pull(&p);
	f = find_kind(&p, WIRE_KIND_PROBE_PONG);
	assert_non_null(f);
	assert_int_equal(f->h.sport, 0);
	assert_int_equal(f->h.dport, 1);
	assert_true(f->h.seq == 2); /* after our own probe ping (seq 1) */
	wire_exts_decode(&x, f->h.ext, WIRE_KVER_7);
	assert_true(x.has_npaths && x.npaths == 8);
	assert_true(x.has_gen_num && x.gen_num == 0x55667788);
	assert_true(x.has_sport_idx);
	ci = conn_of(ep, LARGE, SMALL);
	assert_int_equal(ci.npaths, 8);
	assert_int_equal(ci.peer_gen, 0xaabbccdd);
	assert_true(ci.peer_sport_idx);
	assert_false(ci.probe_pending);
	/* the acceptor never opens paths */
	{
		struct rdsu_lreq r;

		assert_int_equal(next_req(ep, RDSU_LREQ_CONNECT, &r), 0);
	}
	peer_fini(&p);
	rdsu_ep_free(ep);
}

static uint16_t npaths_after(enum wire_kver ours, uint16_t our_n, const struct wire_hdr *h)
{
	struct rdsu_ep_cfg c;
	struct rdsu_ep *ep;
	struct peer p;
	uint16_t n;

	ep_cfg_on(&c, LARGE, 1);
	c.kver = ours;
	c.npaths = our_n;
	ep = ep_new_ok(&c);
	peer_init(&p, ep, accept_from_small(ep, 40000));
	assert_int_equal(peer_feed(&p, h, NULL, false), WIRE_HDR_LEN);
	n = conn_of(ep, LARGE, SMALL).npaths;
	peer_fini(&p);
	rdsu_ep_free(ep);
	return n;
}

static void test_probe_npaths_negotiation(void **state)
{
	struct wire_hdr h;

	(void)state;
	probe_hdr(&h, true, 1, WIRE_KVER_7, 8, 7);
	assert_int_equal(npaths_after(WIRE_KVER_7, 8, &h), 8);
	assert_int_equal(npaths_after(WIRE_KVER_7, 2, &h), 2);
	probe_hdr(&h, true, 1, WIRE_KVER_6, 4, 7);
	assert_int_equal(npaths_after(WIRE_KVER_7, 8, &h), 4);
	probe_hdr(&h, false, 1, WIRE_KVER_7, 16, 7);
	assert_int_equal(npaths_after(WIRE_KVER_7, 8, &h), 8);
	/* NPATHS 0 still means one path */
	probe_hdr(&h, false, 1, WIRE_KVER_7, 0, 7);
	assert_int_equal(npaths_after(WIRE_KVER_6, 8, &h), 1);
	/* a probe without NPATHS (a single-path peer): at least 1 */
	wire_build_pong(&h, 1, WIRE_PROBE_PORT);
	assert_int_equal(npaths_after(WIRE_KVER_7, 8, &h), 1);
}

static void test_probe_6x_peer_npaths_only(void **state)
{
	struct rdsu_ep *ep = ep_make(LARGE, WIRE_KVER_7, 9);
	struct peer p;
	struct rdsu_conn_info ci;
	struct wire_hdr h;

	(void)state;
	peer_init(&p, ep, accept_from_small(ep, 50001));
	probe_hdr(&h, false, 1, WIRE_KVER_6, 8, 0x1234);
	assert_int_equal(h.ext[3], 0); /* GEN_NUM was lost, as on 6.1 */
	assert_int_equal(peer_feed(&p, &h, NULL, false), WIRE_HDR_LEN);
	ci = conn_of(ep, LARGE, SMALL);
	assert_int_equal(ci.npaths, 8);
	assert_int_equal(ci.peer_gen, 0);
	assert_false(ci.peer_sport_idx);
	/* arrival order, not the port: 50001 % 8 = 1 stays in slot 0 */
	assert_int_equal(ci.path[0].state, RDSU_PATH_UP);
	assert_int_equal(ci.path[0].peer_sport, 50001);
	peer_fini(&p);
	rdsu_ep_free(ep);
}

/* 7.x acceptor: slot 0 was given before SPORT_IDX was known; a source
 * port that says another path gets path 0 dropped to re-sync. */
static void test_probe_slot0_resync(void **state)
{
	for (int wrong = 0; wrong < 2; wrong++) {
		struct rdsu_ep *ep = ep_make(LARGE, WIRE_KVER_7, 9);
		struct peer p;
		struct wire_hdr h;
		struct rdsu_lreq r;
		uint64_t link = accept_from_small(ep, wrong ? 32777 : 32776);
		ssize_t n;

		(void)state;
		peer_init(&p, ep, link);
		probe_hdr(&h, false, 1, WIRE_KVER_7, 8, 0x1234);
		n = peer_feed(&p, &h, NULL, false);
		if (wrong) {
			assert_int_equal(n, RDSU_ERR_CLOSED);
			assert_int_equal(next_req(ep, RDSU_LREQ_CLOSE, &r), 1);
			assert_true(r.link == link);
			assert_int_equal(conn_of(ep, LARGE, SMALL).path[0].state, RDSU_PATH_DOWN);
		} else {
			assert_int_equal(n, WIRE_HDR_LEN);
			assert_int_equal(next_req(ep, RDSU_LREQ_CLOSE, &r), 0);
			assert_int_equal(conn_of(ep, LARGE, SMALL).path[0].state, RDSU_PATH_UP);
		}
		peer_fini(&p);
		rdsu_ep_free(ep);
	}
}

/*
 * A fresh 7.x endpoint (the larger address) accepts a connection whose
 * source port says path 3 before any probe: it takes slot 0 in arrival
 * order, but data must not go on it until the peer's probe says how paths
 * are numbered, or the peer would deliver it on its path 3 and again on
 * its path 0 after the re-sync (seen with a 7.2 kernel in the lab).
 * Control messages (our probe) still go; a port that says path 0 is not
 * held.
 */
static void test_probe_unsure_slot0_holds_data(void **state)
{
	(void)state;
	for (int wrong = 0; wrong < 2; wrong++) {
		struct rdsu_ep *ep = ep_make(LARGE, WIRE_KVER_7, 9);
		struct rdsu_sock *s = sock_at(ep, LARGE, 5000);
		struct rdsu_addr small = rdsu_addr_v4(SMALL);
		struct peer p;
		struct wire_hdr h;
		struct iovec iov = { (void *)"data", 4 };
		uint64_t link = accept_from_small(ep, wrong ? 32787 : 32784);

		peer_init(&p, ep, link);
		peer_hello(&p);
		assert_int_equal(rdsu_sock_submit(s, &small, 6000, &iov, 1, T0), 4);
		peer_pull(&p);
		assert_int_equal(count_kind(&p, WIRE_KIND_PROBE_PING), 1);
		assert_int_equal(count_kind(&p, WIRE_KIND_DATA), wrong ? 0 : 1);
		if (!wrong) {
			peer_fini(&p);
			rdsu_ep_free(ep);
			continue;
		}
		/* A 6.x-style probe (no SPORT_IDX): the slot stands, data goes. */
		probe_hdr(&h, true, 1, WIRE_KVER_6, 8, 0);
		assert_int_equal(peer_feed(&p, &h, NULL, false), WIRE_HDR_LEN);
		peer_pull(&p);
		assert_int_equal(count_kind(&p, WIRE_KIND_DATA), 1);
		assert_int_equal(stat(ep, RDSU_STAT_SEND_RETRANSMITTED), 0);
		peer_fini(&p);
		rdsu_ep_free(ep);
	}
}

/* A changed non-zero GEN_NUM resets every path's numbers; the same one,
 * or 0, does nothing. A retransmitted old sequence number is the tell. */
static void run_gen(uint32_t g1, uint32_t g2, bool expect_reset)
{
	struct rdsu_ep *ep = ep_make(LARGE, WIRE_KVER_7, 9);
	struct rdsu_sock *s = sock_at(ep, LARGE, 5000);
	struct peer p;
	struct wire_hdr h;
	struct rdsu_conn_info ci;
	uint8_t buf[16];
	struct iovec iov = { buf, sizeof(buf) };
	struct rdsu_rxinfo info;

	peer_init(&p, ep, accept_from_small(ep, 32776));
	probe_hdr(&h, false, 1, WIRE_KVER_7, 8, g1);
	assert_int_equal(peer_feed(&p, &h, NULL, false), WIRE_HDR_LEN);
	wire_build_data(&h, 50, 4000, 5000, 4);
	assert_int_equal(peer_feed(&p, &h, (const uint8_t *)"abcd", false), WIRE_HDR_LEN + 4);
	assert_int_equal(rdsu_sock_read(s, &iov, 1, 0, &info, T0), 4);
	peer_pull(&p);
	assert_true(conn_of(ep, LARGE, SMALL).path[0].next_tx_seq > 1);

	probe_hdr(&h, true, 51, WIRE_KVER_7, 8, g2);
	assert_int_equal(peer_feed(&p, &h, NULL, false), WIRE_HDR_LEN);
	ci = conn_of(ep, LARGE, SMALL);
	assert_int_equal(stat(ep, RDSU_STAT_GEN_RESET), expect_reset);
	if (expect_reset) {
		assert_true(ci.path[0].next_tx_seq == 1);
		assert_true(ci.path[0].next_rx_seq == 0);
		assert_int_equal(ci.peer_gen, g2);
	} else {
		assert_true(ci.path[0].next_tx_seq > 1);
		assert_true(ci.path[0].next_rx_seq == 52);
	}
	h = (struct wire_hdr){ 0 };
	wire_build_data(&h, 10, 4000, 5000, 4);
	h.flags = WIRE_FLAG_RETRANSMITTED;
	assert_int_equal(peer_feed(&p, &h, (const uint8_t *)"efgh", false), WIRE_HDR_LEN + 4);
	assert_int_equal(rdsu_sock_read(s, &iov, 1, 0, &info, T0), expect_reset ? 4 : -EAGAIN);
	assert_int_equal(stat(ep, RDSU_STAT_RECV_DROP_OLD_SEQ), !expect_reset);
	peer_fini(&p);
	rdsu_ep_free(ep);
}

static void test_probe_gen_change_resets(void **state)
{
	(void)state;
	run_gen(0x1111, 0x2222, true);
	run_gen(0x1111, 0x1111, false);
	run_gen(0x1111, 0, false);
	run_gen(0, 0x2222, false); /* first sighting: nothing to reset */
}

/* Messages the restarted peer never acknowledged are not resent. */
static void test_probe_gen_change_flushes_retransmit(void **state)
{
	struct rdsu_ep *ep = ep_make(LARGE, WIRE_KVER_7, 9);
	struct rdsu_sock *s = sock_at(ep, LARGE, 5000);
	struct rdsu_addr dst = rdsu_addr_v4(SMALL);
	struct peer p;
	struct wire_hdr h;
	struct rdsu_conn_info ci;
	struct iovec iov = { "payload!", 8 };
	struct rdsu_sock_info si;
	size_t pos = 0;

	(void)state;
	peer_init(&p, ep, accept_from_small(ep, 32776));
	probe_hdr(&h, false, 1, WIRE_KVER_7, 1, 0x1111);
	assert_int_equal(peer_feed(&p, &h, NULL, false), WIRE_HDR_LEN);
	for (int i = 0; i < 3; i++)
		assert_int_equal(rdsu_sock_submit(s, &dst, 4000, &iov, 1, T0), 8);
	peer_pull(&p); /* written, not acknowledged */
	ci = conn_of(ep, LARGE, SMALL);
	assert_int_equal(ci.path[0].retrans_q_msgs, 5); /* probe, pong, 3 data */
	probe_hdr(&h, false, 2, WIRE_KVER_7, 1, 0x2222);
	assert_int_equal(peer_feed(&p, &h, NULL, false), WIRE_HDR_LEN);
	assert_int_equal(rdsu_link_down(ep, p.link, T0), 0);
	ci = conn_of(ep, LARGE, SMALL);
	/* only the pong queued after the flush is left to send */
	assert_int_equal(ci.path[0].send_q_msgs, 1);
	assert_int_equal(ci.path[0].retrans_q_msgs, 0);
	while (rdsu_ep_sock_next(ep, &pos, &si))
		assert_true(si.snd_bytes == 0);
	peer_fini(&p);
	rdsu_ep_free(ep);
}

/* One probe at a time until an answer (c_ping_triggered). */
static void test_probe_one_at_a_time(void **state)
{
	struct rdsu_ep *ep = ep_make(SMALL, WIRE_KVER_7, 9);
	struct rdsu_sock *s = sock_at(ep, SMALL, 4000);
	struct rdsu_addr dst = rdsu_addr_v4(LARGE);
	struct peer p;
	struct iovec iov = { "x", 1 };

	(void)state;
	for (int i = 0; i < 5; i++)
		assert_int_equal(rdsu_sock_submit(s, &dst, 5000, &iov, 1, T0), 1);
	assert_true(stat(ep, RDSU_STAT_PROBE_SENT) == 1);
	peer_init(&p, ep, connect_to_large(ep, 0, T0));
	peer_pull(&p);
	assert_int_equal(count_kind(&p, WIRE_KIND_PROBE_PING), 1);
	/* queued before the link came up: probe first (seq 1), then data */
	assert_int_equal(wire_classify(&p.f[0].h, WIRE_XPORT_TCP), WIRE_KIND_CONG);
	assert_int_equal(wire_classify(&p.f[1].h, WIRE_XPORT_TCP), WIRE_KIND_PROBE_PING);
	assert_true(p.f[1].h.seq == 1);
	assert_true(p.f[2].h.seq == 2);
	peer_fini(&p);
	rdsu_ep_free(ep);
}

/* 6.x: a sender whose port hashes to another path probes while the count
 * is unknown, and meanwhile uses path 0 (a non-blocking sender). */
static void test_probe_6x_send_hash(void **state)
{
	struct rdsu_ep *ep = ep_make(SMALL, WIRE_KVER_6, 9);
	struct rdsu_sock *s0 = sock_at(ep, SMALL, 5000); /* hash 0 */
	struct rdsu_sock *s2 = sock_at(ep, SMALL, 4003); /* hash 2 */
	struct rdsu_addr dst = rdsu_addr_v4(LARGE);
	struct iovec iov = { "x", 1 };
	struct rdsu_lreq r;

	(void)state;
	assert_int_equal(rdsu_sock_submit(s0, &dst, 5000, &iov, 1, T0), 1);
	assert_true(stat(ep, RDSU_STAT_PROBE_SENT) == 0);
	assert_int_equal(rdsu_sock_submit(s2, &dst, 5000, &iov, 1, T0), 1);
	assert_true(stat(ep, RDSU_STAT_PROBE_SENT) == 1);
	assert_int_equal(conn_of(ep, SMALL, LARGE).path[0].send_q_msgs, 3);
	/* 6.x connects from any source port */
	assert_int_equal(next_req(ep, RDSU_LREQ_CONNECT, &r), 1);
	assert_int_equal(r.sport_mod, 0);
	rdsu_ep_free(ep);
}

/*
 * The fan-out hold ends when the fence's pong is in and path 0 has had
 * acknowledged what it held at the fan-out, in either order. Here the
 * acknowledgement comes first (while the fence still holds, so it cannot
 * end the hold), then the pong: the hold must end with the pong, not wait
 * for some later send on another path to look again (a monitor, and
 * tests/io's quiet_pair, saw it set for ever).
 */
static void test_probe_fence_after_ack(void **state)
{
	struct fixture *fx = fixture_new(SMALL, 4000);
	struct iovec iov = { (void *)"data", 4 };
	struct rdsu_conn_info ci;
	struct wire_hdr h;

	(void)state;
	fx->dst = rdsu_addr_v4(LARGE);
	assert_int_equal(rdsu_sock_submit(fx->s, &fx->dst, 5000, &iov, 1, T0), 4);
	peer_init(&fx->p, fx->ep, connect_to_large(fx->ep, 0, T0));
	peer_pull(&fx->p);          /* map, probe ping, the data on path 0 */
	probe_hdr(&h, true, 1, WIRE_KVER_7, 8, 5);
	assert_int_equal(peer_feed(&fx->p, &h, NULL, false), WIRE_HDR_LEN);
	assert_true(conn_of(fx->ep, SMALL, LARGE).fanout_hold);
	peer_pull(&fx->p);          /* the fence's probe ping */
	peer_ack_all(&fx->p);       /* the data is acknowledged; the fence holds */
	assert_true(conn_of(fx->ep, SMALL, LARGE).fanout_hold);
	probe_hdr(&h, true, 2, WIRE_KVER_7, 8, 5);
	assert_int_equal(peer_feed(&fx->p, &h, NULL, false), WIRE_HDR_LEN);
	ci = conn_of(fx->ep, SMALL, LARGE);
	assert_int_equal(ci.npaths, 8);
	assert_false(ci.fanout_hold);
	fixture_free(fx);
}

/*
 * Path 0 resets while the fence stands, and the peer resends the pong to a
 * probe ping from before the fan-out (its own copy was unacknowledged
 * when the connection died). That pong proves nothing about the data
 * queued before the fence: the hold must stand until the pong to the
 * fence's ping. path.c zeroed the count of pings owed on every path-0
 * reset and sent a new fence ping, so the stale pong ended the hold
 * (loop.py killboth, pair rule: a socket's next messages on its own path
 * were delivered before its last ones on path 0).
 */
static void test_probe_fence_stale_pong(void **state)
{
	struct fixture *fx = fixture_new(LARGE, 4000);
	struct iovec iov = { (void *)"data", 4 };
	struct wire_hdr h;

	(void)state;
	fx->dst = rdsu_addr_v4(SMALL);
	/* The acceptor: its probe ping 1 while the count is unknown, then
	 * the data on path 0. */
	peer_init(&fx->p, fx->ep, accept_from_small(fx->ep, 40000));
	peer_hello(&fx->p);
	assert_int_equal(rdsu_sock_submit(fx->s, &fx->dst, 5000, &iov, 1, T0), 4);
	peer_pull(&fx->p);
	/* The peer's probe brings the count: the fence's ping is queued. */
	probe_hdr(&h, false, 1, WIRE_KVER_7, 8, 5);
	assert_int_equal(peer_feed(&fx->p, &h, NULL, false), WIRE_HDR_LEN);
	assert_true(conn_of(fx->ep, LARGE, SMALL).fanout_hold);
	peer_pull(&fx->p);          /* our pong, the fence's probe ping */
	assert_int_equal(rdsu_link_down(fx->ep, fx->p.link, T0), 0);
	peer_relink(&fx->p, accept_from_small(fx->ep, 40008));
	peer_hello(&fx->p);
	peer_pull(&fx->p);
	peer_ack_all(&fx->p);
	/* The peer's pong to probe ping 1, resent on the new connection. */
	probe_hdr(&h, true, 2, WIRE_KVER_7, 8, 5);
	h.flags |= WIRE_FLAG_RETRANSMITTED;
	assert_int_equal(peer_feed(&fx->p, &h, NULL, false), WIRE_HDR_LEN);
	if (!conn_of(fx->ep, LARGE, SMALL).fanout_hold)
		fail_msg("a stale pong after a path-0 reset ended the fan-out fence");
	/* The pong to the fence's ping. */
	probe_hdr(&h, true, 3, WIRE_KVER_7, 8, 5);
	assert_int_equal(peer_feed(&fx->p, &h, NULL, false), WIRE_HDR_LEN);
	assert_false(conn_of(fx->ep, LARGE, SMALL).fanout_hold);
	fixture_free(fx);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_probe_hash_vectors),
	cmocka_unit_test(test_probe_path_rule),
	cmocka_unit_test(test_probe_bytes_6x),
	cmocka_unit_test(test_probe_bytes_7x),
	cmocka_unit_test(test_probe_ping_answered_with_pong),
	cmocka_unit_test(test_probe_npaths_negotiation),
	cmocka_unit_test(test_probe_6x_peer_npaths_only),
	cmocka_unit_test(test_probe_slot0_resync),
	cmocka_unit_test(test_probe_unsure_slot0_holds_data),
	cmocka_unit_test(test_probe_gen_change_resets),
	cmocka_unit_test(test_probe_gen_change_flushes_retransmit),
	cmocka_unit_test(test_probe_one_at_a_time),
	cmocka_unit_test(test_probe_6x_send_hash),
	cmocka_unit_test(test_probe_fence_after_ack),
	cmocka_unit_test(test_probe_fence_stale_pong))
