// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_lo.c - the loopback transport on the simulator: a node's messages
 * to its own address are delivered at once, in order, beside its traffic
 * to a peer on a lossy network that the loopback never crosses; a ping to
 * itself is answered; nothing of it reaches the wire. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "cmain.h"

#include "simtest.h"

static uint8_t rbuf[WIRE_MAX_MSG_LEN];

static void test_lo_beside_lossy_peer(void **state)
{
	struct rdsu_sim_cfg sc;
	struct world *w;
	struct rdsu_sock *sa, *sb, *sa2;
	struct rdsu_addr self = node_addr(0);
	struct rdsu_rxinfo info;
	struct rdsu_conn_info ci;
	struct rdsu_sim_stats st;

	(void)state;
	rdsu_sim_cfg_default(&sc);
	sc.loss_ppm = 20000;
	w = world_new2(7, WIRE_KVER_7, WIRE_KVER_7, &sc);
	sa = sock_bound(w, w->a, 4000);
	sa2 = sock_bound(w, w->a, 4001);
	sb = sock_bound(w, w->b, 5000);
	assert_int_equal(rdsu_sock_set_sndbuf(sa, 8 << 20, rdsu_sim_now(w->sim)), 0);
	assert_int_equal(rdsu_sock_set_rcvbuf(sb, 8 << 20, rdsu_sim_now(w->sim)), 0);
	/* 10.0.0.1 is no loopback address: sa2 congests as a TCP socket */
	assert_int_equal(rdsu_sock_set_rcvbuf(sa2, 8 << 20, rdsu_sim_now(w->sim)), 0);
	for (uint32_t i = 0; i < 40; i++) {
		uint32_t len = 8 + i * 997;

		assert_int_equal(send_msg(sa, w->a, 4001, i, len, rdsu_sim_now(w->sim)), (int)len);
		assert_int_equal(send_msg(sa, w->b, 5000, i, len, rdsu_sim_now(w->sim)), (int)len);
		assert_int_equal(rdsu_sim_run_for(w->sim, RDSU_MSEC), 0);
	}
	world_idle(w, 60 * RDSU_SEC);
	for (uint32_t i = 0; i < 40; i++) {
		assert_int_equal(read_msg(sa2, rbuf, sizeof(rbuf), &info, 0), 8 + i * 997);
		assert_int_equal(msg_check(rbuf, 8 + i * 997), i);
		assert_int_equal(rdsu_addr_cmp(&info.from, &self), 0);
		assert_int_equal(info.sport, 4000);
		assert_int_equal(read_msg(sb, rbuf, sizeof(rbuf), &info, 0), 8 + i * 997);
		assert_int_equal(msg_check(rbuf, 8 + i * 997), i);
	}
	assert_int_equal(read_msg(sa2, rbuf, sizeof(rbuf), &info, 0), -EAGAIN);
	/* a ping to ourselves */
	assert_int_equal(rdsu_sock_submit(sa, &self, 0, NULL, 0, rdsu_sim_now(w->sim)), 0);
	world_idle(w, RDSU_SEC);
	assert_int_equal(read_msg(sa, rbuf, sizeof(rbuf), &info, 0), 0);
	assert_int_equal(info.sport, 0);
	assert_int_equal(rdsu_ep_conn_get(EP(w, w->a), &self, &self, &ci), 0);
	assert_int_equal(ci.transport, RDSU_TRANS_LOOP);
	assert_int_equal(ci.path[0].resets, 0);
	/* the loss hit the peer's connection, never the loopback one */
	rdsu_sim_get_stats(w->sim, &st);
	assert_true(st.losses > 0);
	for (size_t i = 0; i < w->tap.n; i++)
		assert_true(w->tap.r[i].from != w->tap.r[i].to);
	world_free(w);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_lo_beside_lossy_peer))
