// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_gen.c - a peer that restarts comes back with a new generation
 * number: the survivor notices on the next probe, resets every path's
 * sequence numbers and talks to the new incarnation from 1 again. An
 * unchanged generation number after a plain reconnect resets nothing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "cmain.h"

#include "simtest.h"

static uint8_t rbuf[WIRE_MAX_MSG_LEN];

struct seen_ev {
	int peer_events;
	int gen_changes;
	uint32_t last_gen;
};

static void on_event(void *ud, int node, const struct rdsu_event *ev)
{
	struct seen_ev *s = ud;

	if (node != 0 || ev->type != RDSU_EV_PEER)
		return;
	s->peer_events++;
	s->gen_changes += ev->gen_changed;
	s->last_gen = ev->peer_gen;
}

static void drain(struct rdsu_sock *s, uint32_t expect_first, uint32_t count, uint32_t len)
{
	struct rdsu_rxinfo info;

	for (uint32_t i = 0; i < count; i++) {
		assert_int_equal(read_msg(s, rbuf, sizeof(rbuf), &info, 0), len);
		assert_int_equal(msg_check(rbuf, len), expect_first + i);
	}
	assert_int_equal(read_msg(s, rbuf, sizeof(rbuf), &info, 0), -EAGAIN);
}

static void settle(struct world *w)
{
	world_idle(w, 30 * RDSU_SEC);
}

/* Agree on 8 paths first (a ping), so messages take their hashed path. */
static void warm_up(struct world *w, struct rdsu_sock *sa)
{
	struct rdsu_addr bb = node_addr(w->b);
	struct rdsu_rxinfo info;

	assert_int_equal(rdsu_sock_submit(sa, &bb, 0, NULL, 0, rdsu_sim_now(w->sim)), 0);
	settle(w);
	assert_int_equal(read_msg(sa, rbuf, sizeof(rbuf), &info, 0), 0);
	assert_int_equal(paths_up(w, w->a, w->b), 8);
}

static void test_gen_change_resets_sequences(void **state)
{
	struct rdsu_sock *sa, *sb;
	struct world *w = world_socks(61, &sa, 4003, &sb, 5000); /* paths 2 and 0 */
	struct rdsu_conn_info ci;
	struct seen_ev ev = { 0 };
	size_t mark;

	(void)state;
	assert_int_equal(rdsu_mprds_hash(4003, 0, 8), 2);
	assert_int_equal(rdsu_mprds_hash(5000, 0, 8), 0);
	rdsu_sim_set_event_cb(w->sim, on_event, &ev);
	warm_up(w, sa);
	for (uint32_t i = 0; i < 50; i++)
		assert_int_equal(send_msg(sa, w->b, 5000, i, 100, rdsu_sim_now(w->sim)), 100);
	settle(w);
	for (uint32_t i = 0; i < 30; i++)
		assert_int_equal(send_msg(sb, w->a, 4003, 1000 + i, 64, rdsu_sim_now(w->sim)), 64);
	settle(w);
	drain(sb, 0, 50, 100);
	drain(sa, 1000, 30, 64);
	conn_info(w, w->a, w->b, &ci);
	assert_int_equal(ci.peer_gen, 0x22222222);
	assert_true(ci.path[2].next_tx_seq > 40);
	assert_true(ci.path[0].next_rx_seq > 30);
	assert_int_equal(ev.gen_changes, 0);

	/* B restarts */
	assert_int_equal(rdsu_sim_reboot(w->sim, w->b, 0x33333333u), 0);
	sb = sock_bound(w, w->b, 5000);
	settle(w);
	conn_info(w, w->a, w->b, &ci);
	assert_int_equal(ci.peer_gen, 0x33333333);
	assert_true(stat_of(w, w->a, RDSU_STAT_GEN_RESET) == 1);
	assert_int_equal(ev.gen_changes, 1);
	assert_int_equal(ev.last_gen, 0x33333333);
	/* every path starts over: nothing was sent on 2 since */
	assert_true(ci.path[2].next_tx_seq == 1);
	assert_true(paths_up(w, w->a, w->b) == 8);

	mark = w->tap.n;
	for (uint32_t i = 0; i < 5; i++)
		assert_int_equal(send_msg(sa, w->b, 5000, 100 + i, 100, rdsu_sim_now(w->sim)), 100);
	for (uint32_t i = 0; i < 3; i++)
		assert_int_equal(send_msg(sb, w->a, 4003, 2000 + i, 64, rdsu_sim_now(w->sim)), 64);
	settle(w);
	drain(sb, 100, 5, 100);
	drain(sa, 2000, 3, 64);
	/* on the wire the new messages are numbered from 1 */
	{
		uint64_t want = 1;

		for (size_t k = mark; k < w->tap.n; k++)
			if (w->tap.r[k].from == w->a && is_data(&w->tap.r[k]) &&
			    w->tap.r[k].h.sport == 4003)
				assert_true(w->tap.r[k].h.seq == want++);
		assert_true(want == 6);
	}
	conn_info(w, w->a, w->b, &ci);
	assert_true(ci.path[2].next_tx_seq == 6);
	world_free(w);
}

static void test_gen_same_after_reconnect_keeps_sequences(void **state)
{
	struct rdsu_sock *sa, *sb;
	struct world *w = world_socks(62, &sa, 4003, &sb, 5000);
	struct rdsu_conn_info ci;
	uint64_t before;

	(void)state;
	warm_up(w, sa);
	for (uint32_t i = 0; i < 20; i++)
		assert_int_equal(send_msg(sa, w->b, 5000, i, 100, rdsu_sim_now(w->sim)), 100);
	settle(w);
	conn_info(w, w->a, w->b, &ci);
	before = ci.path[2].next_tx_seq;
	assert_true(before == 21);
	/* every path reset: reconnect and a new probe exchange, same gen */
	assert_int_equal(rdsu_sim_reset_conns(w->sim, w->a, w->b, 0xff), 8);
	settle(w);
	conn_info(w, w->a, w->b, &ci);
	assert_true(ci.path[2].next_tx_seq == before);
	assert_true(stat_of(w, w->a, RDSU_STAT_GEN_RESET) == 0);
	assert_true(stat_of(w, w->a, RDSU_STAT_PROBE_RECV) >= 2);
	for (uint32_t i = 20; i < 25; i++)
		assert_int_equal(send_msg(sa, w->b, 5000, i, 100, rdsu_sim_now(w->sim)), 100);
	settle(w);
	drain(sb, 0, 25, 100);
	world_free(w);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_gen_change_resets_sequences),
	cmocka_unit_test(test_gen_same_after_reconnect_keeps_sequences))
