// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_cong.c - the lab's tcp_congestion scenario between two cores: a
 * receiver that stops reading congests its port after RCVBUF (not at it),
 * the sender gets ENOBUFS, the port frees only below half, and senders
 * in monitor mode are told which port group changed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "cmain.h"

#include "simtest.h"

static uint8_t rbuf[WIRE_MAX_MSG_LEN];

static bool peer_says_congested(struct world *w, uint16_t port)
{
	struct rdsu_addr a = node_addr(w->a), b = node_addr(w->b);

	return wire_cong_test(rdsu_ep_peer_map(EP(w, w->a), &a, &b), port);
}

static void settle(struct world *w)
{
	world_idle(w, 10 * RDSU_SEC);
}

static void test_cong_rcvbuf_enobufs_and_recovery(void **state)
{
	struct rdsu_sock *tx, *rx;
	struct world *w = world_socks(51, &tx, 5500, &rx, 4000);
	struct rdsu_addr bb = node_addr(w->b);
	struct rdsu_rxinfo info;
	size_t maps_before, state_maps = 0, up = 0, per_path[WIRE_MAX_PATHS] = { 0 };
	struct rdsu_conn_info ci;
	int r;

	(void)state;
	assert_int_equal(rdsu_sock_set_rcvbuf(rx, 65536, 0), 0);
	assert_int_equal(rdsu_sock_set_sndbuf(tx, 1 << 20, 0), 0);
	/* 16 x 4096 = 65536: at the limit, not over it */
	for (uint32_t i = 0; i < 16; i++)
		assert_int_equal(send_msg(tx, w->b, 4000, i, 4096, rdsu_sim_now(w->sim)), 4096);
	settle(w);
	assert_false(peer_says_congested(w, 4000));
	maps_before = count_recs(&w->tap, w->b, is_map);
	{
		struct rdsu_addr aa = node_addr(w->a);

		assert_int_equal(rdsu_ep_conn_get(EP(w, w->b), &bb, &aa, &ci), 0);
	}
	for (unsigned p = 0; p < WIRE_MAX_PATHS; p++)
		up += ci.path[p].state == RDSU_PATH_UP;
	assert_int_equal(up, 8);
	/* the 17th goes over */
	assert_int_equal(send_msg(tx, w->b, 4000, 16, 4096, rdsu_sim_now(w->sim)), 4096);
	settle(w);
	assert_true(peer_says_congested(w, 4000));
	/* one map per change on every path (each already sent its own) */
	assert_int_equal(count_recs(&w->tap, w->b, is_map), maps_before + up);
	r = send_msg(tx, w->b, 4000, 17, 4096, rdsu_sim_now(w->sim));
	assert_int_equal(r, -ENOBUFS);
	assert_true(stat_of(w, w->a, RDSU_STAT_CONG_SEND_ERROR) == 1);
	/* other ports of B are not affected */
	assert_int_equal(send_msg(tx, w->b, 4001, 0, 10, rdsu_sim_now(w->sim)), 10);

	/* read 9: 8 x 4096 = 32768 left, exactly half: still congested */
	for (int i = 0; i < 9; i++) {
		assert_int_equal(read_msg(rx, rbuf, sizeof(rbuf), &info, 0), 4096);
		assert_int_equal(msg_check(rbuf, 4096), i);
	}
	settle(w);
	assert_true(peer_says_congested(w, 4000));
	assert_int_equal(send_msg(tx, w->b, 4000, 17, 4096, rdsu_sim_now(w->sim)), -ENOBUFS);
	/* the 10th read goes below half: an uncongested map follows */
	assert_int_equal(read_msg(rx, rbuf, sizeof(rbuf), &info, 0), 4096);
	settle(w);
	assert_false(peer_says_congested(w, 4000));
	assert_int_equal(count_recs(&w->tap, w->b, is_map), maps_before + 2 * up);
	assert_int_equal(send_msg(tx, w->b, 4000, 17, 4096, rdsu_sim_now(w->sim)), 4096);
	settle(w);
	for (int i = 10; i < 18; i++) {
		assert_int_equal(read_msg(rx, rbuf, sizeof(rbuf), &info, 0), 4096);
		assert_int_equal(msg_check(rbuf, 4096), i);
	}
	/* the two state changes went on every path, once each: path 0 as
	 * on both kernels, and the others so that no older map still on its
	 * way there can overtake the change (cong.c) */
	for (size_t k = w->tap.n; k-- > 0 && state_maps < 2 * up;)
		if (w->tap.r[k].from == w->b && is_map(&w->tap.r[k])) {
			per_path[w->tap.r[k].path]++;
			state_maps++;
		}
	assert_int_equal(state_maps, 2 * up);
	for (unsigned p = 0; p < WIRE_MAX_PATHS; p++)
		assert_int_equal(per_path[p], 2);
	(void)bb;
	world_free(w);
}

/*
 * Paths are separate TCP streams: the map a path sends when it comes up,
 * snapshotted while a port was congested, can reach the peer after the
 * later "free" change sent on path 0 and undo it, leaving the sender with
 * ENOBUFS for good. Here the port is congested while the fan-out brings
 * paths 1..7 up and freed a random moment later, with jitter large enough
 * for streams to overtake each other; whatever the order, the peer must
 * end with the current map.
 */
static void test_cong_map_not_undone_by_older_path_map(void **state)
{
	unsigned raced = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 120; seed++) {
		struct rdsu_sim_cfg sc;
		struct world *w;
		struct rdsu_sock *tx, *rx;
		struct rdsu_rxinfo info;
		rdsu_ns t0;

		rdsu_sim_cfg_default(&sc);
		sc.jitter = 3 * RDSU_MSEC;
		w = world_new2(seed, WIRE_KVER_7, WIRE_KVER_7, &sc);
		tx = sock_bound(w, w->a, 5500);
		rx = sock_bound(w, w->b, 4000);
		assert_int_equal(rdsu_sock_set_rcvbuf(rx, 1000, 0), 0);
		assert_int_equal(send_msg(tx, w->b, 4000, 0, 2000, rdsu_sim_now(w->sim)), 2000);
		t0 = rdsu_sim_now(w->sim);
		while (stat_of(w, w->b, RDSU_STAT_RECV_QUEUED) == 0) {
			assert_int_equal(rdsu_sim_run_for(w->sim, 20 * 1000), 0);
			assert_true(rdsu_sim_now(w->sim) - t0 < RDSU_SEC);
		}
		assert_int_equal(rdsu_sim_run_for(w->sim, (seed % 16) * 250 * 1000), 0);
		raced += paths_up(w, w->b, w->a) > 1;
		assert_int_equal(read_msg(rx, rbuf, sizeof(rbuf), &info, rdsu_sim_now(w->sim)), 2000);
		settle(w);
		if (peer_says_congested(w, 4000))
			fail_msg("seed %llu: an older map undid the change", (unsigned long long)seed);
		assert_int_equal(send_msg(tx, w->b, 4000, 1, 10, rdsu_sim_now(w->sim)), 10);
		world_free(w);
	}
	/* the window was really there: paths came up while the port was congested */
	assert_true(raced > 10);
}

static void test_cong_monitor_and_wrband(void **state)
{
	struct world *w = world_new2(52, WIRE_KVER_7, WIRE_KVER_7, NULL);
	struct rdsu_sock *mon = sock_bound(w, w->a, 5501);
	struct rdsu_sock *plain = sock_bound(w, w->a, 5502);
	struct rdsu_sock *rx = sock_bound(w, w->b, 4000);
	struct rdsu_sock *rx2 = sock_bound(w, w->b, 4001);
	struct rdsu_rxinfo info;
	struct rdsu_sock_info si;
	size_t pos = 0;
	ssize_t n;

	(void)state;
	assert_int_equal(rdsu_sock_set_cong_monitor(mon, true), 0);
	assert_int_equal(rdsu_sock_set_rcvbuf(rx, 1000, 0), 0);
	(void)rx2;
	assert_int_equal(send_msg(mon, w->b, 4000, 0, 1001, rdsu_sim_now(w->sim)), 1001);
	world_idle(w, RDSU_SEC);
	assert_true(peer_says_congested(w, 4000));
	rdsu_sock_poll(mon);
	rdsu_sock_poll(plain);
	assert_int_equal(send_msg(mon, w->b, 4000, 1, 10, rdsu_sim_now(w->sim)), -ENOBUFS);
	assert_int_equal(send_msg(plain, w->b, 4000, 1, 10, rdsu_sim_now(w->sim)), -ENOBUFS);
	/* the monitor remembers port group 4000 % 64 = 32 */
	while (rdsu_ep_sock_next(EP(w, w->a), &pos, &si))
		if (si.sock == mon)
			assert_true(si.cong_mask == 1ull << 32);
	/* nothing to read yet */
	assert_int_equal(read_msg(mon, rbuf, sizeof(rbuf), &info, 0), -EAGAIN);
	assert_int_equal(read_msg(rx, rbuf, sizeof(rbuf), &info, 0), 1001);
	world_idle(w, RDSU_SEC);
	assert_false(peer_says_congested(w, 4000));
	/* monitor: a notification carrying the group mask, read first */
	assert_true(rdsu_sock_poll(mon) & RDSU_POLLIN);
	n = read_msg(mon, rbuf, sizeof(rbuf), &info, 0);
	assert_int_equal(n, 0);
	assert_true(info.cong);
	assert_true(info.cong_mask == 1ull << 32);
	assert_int_equal(read_msg(mon, rbuf, sizeof(rbuf), &info, 0), -EAGAIN);
	/* plain socket: POLLWRBAND (and POLLIN) once */
	assert_int_equal(rdsu_sock_poll(plain) & (RDSU_POLLWRBAND | RDSU_POLLIN),
			 RDSU_POLLWRBAND | RDSU_POLLIN);
	assert_int_equal(rdsu_sock_poll(plain) & RDSU_POLLWRBAND, 0);
	assert_int_equal(send_msg(plain, w->b, 4000, 2, 10, rdsu_sim_now(w->sim)), 10);
	world_free(w);
}

/* Closing a congested socket frees its port in the peer's view. */
static void test_cong_close_frees_port(void **state)
{
	struct rdsu_sock *tx, *rx;
	struct world *w = world_socks(53, &tx, 5500, &rx, 4000);

	(void)state;
	assert_int_equal(rdsu_sock_set_rcvbuf(rx, 100, 0), 0);
	assert_int_equal(send_msg(tx, w->b, 4000, 0, 200, rdsu_sim_now(w->sim)), 200);
	settle(w);
	assert_true(peer_says_congested(w, 4000));
	rdsu_sock_free(rx, rdsu_sim_now(w->sim));
	settle(w);
	assert_false(peer_says_congested(w, 4000));
	world_free(w);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_cong_rcvbuf_enobufs_and_recovery),
	cmocka_unit_test(test_cong_map_not_undone_by_older_path_map),
	cmocka_unit_test(test_cong_monitor_and_wrband),
	cmocka_unit_test(test_cong_close_frees_port))
