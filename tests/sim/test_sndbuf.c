// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_sndbuf.c - SNDBUF holds payload bytes from submit until TCP
 * acknowledged them (not merely written), EAGAIN when full, EMSGSIZE above
 * SNDBUF or 1 MiB, POLLOUT once there is room again; RDS_CANCEL_SENT_TO
 * removes queued and unacknowledged messages to one destination so they
 * are never (re)sent. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "cmain.h"

#include "simtest.h"

static uint8_t rbuf[WIRE_MAX_MSG_LEN];

static uint64_t snd_bytes(struct world *w, int node, struct rdsu_sock *s)
{
	struct rdsu_sock_info si;
	size_t pos = 0;

	while (rdsu_ep_sock_next(EP(w, node), &pos, &si))
		if (si.sock == s)
			return si.snd_bytes;
	fail();
	return 0;
}

struct outs {
	int pollout;
};

static void on_event(void *ud, int node, const struct rdsu_event *ev)
{
	struct outs *o = ud;

	if (node == 0 && ev->type == RDSU_EV_SOCK && (ev->mask & RDSU_POLLOUT))
		o->pollout++;
}

static void test_sndbuf_until_acked(void **state)
{
	struct rdsu_sock *sa, *sb;
	struct world *w = world_socks(71, &sa, 4000, &sb, 5000);
	struct rdsu_rxinfo info;
	struct outs o = { 0 };

	(void)state;
	rdsu_sim_set_event_cb(w->sim, on_event, &o);
	/* warm up so the paths exist */
	deliver_one(w, sa, w->b, 5000, sb, 10);
	assert_true(snd_bytes(w, w->a, sa) == 0);

	assert_int_equal(rdsu_sock_set_sndbuf(sa, 10000, 0), 0);
	assert_int_equal(send_msg(sa, w->b, 5000, 1, 10001, rdsu_sim_now(w->sim)), -EMSGSIZE);
	assert_int_equal(send_msg(sa, w->b, 5000, 1, 4000, rdsu_sim_now(w->sim)), 4000);
	assert_int_equal(send_msg(sa, w->b, 5000, 2, 4000, rdsu_sim_now(w->sim)), 4000);
	/* 8000 < 10000: one more fits and overshoots, as rds_send_queue_rm */
	assert_int_equal(send_msg(sa, w->b, 5000, 3, 4000, rdsu_sim_now(w->sim)), 4000);
	assert_true(snd_bytes(w, w->a, sa) == 12000);
	assert_int_equal(send_msg(sa, w->b, 5000, 4, 1, rdsu_sim_now(w->sim)), -EAGAIN);
	assert_int_equal(rdsu_sock_poll(sa) & RDSU_POLLOUT, 0);
	assert_true(stat_of(w, w->a, RDSU_STAT_SEND_QUEUE_FULL) == 1);

	/* written and delivered, but the ack is still on its way back */
	rdsu_sim_run_for(w->sim, 80000);
	assert_int_equal(read_msg(sb, rbuf, sizeof(rbuf), &info, 0), 4000);
	assert_true(snd_bytes(w, w->a, sa) == 12000);
	assert_int_equal(o.pollout, 0);
	world_idle(w, RDSU_SEC);
	assert_true(snd_bytes(w, w->a, sa) == 0);
	assert_int_equal(o.pollout, 1);
	assert_true(rdsu_sock_poll(sa) & RDSU_POLLOUT);
	assert_int_equal(send_msg(sa, w->b, 5000, 4, 1, rdsu_sim_now(w->sim)), 1);

	/* 1 MiB is the ceiling whatever SNDBUF says */
	assert_int_equal(rdsu_sock_set_sndbuf(sa, 4 << 20, 0), 0);
	assert_int_equal(send_msg(sa, w->b, 5000, 5, WIRE_MAX_MSG_LEN + 1, rdsu_sim_now(w->sim)),
			 -EMSGSIZE);
	assert_int_equal(send_msg(sa, w->b, 5000, 5, WIRE_MAX_MSG_LEN, rdsu_sim_now(w->sim)),
			 (int)WIRE_MAX_MSG_LEN);
	world_idle(w, RDSU_SEC);
	assert_int_equal(read_msg(sb, rbuf, sizeof(rbuf), &info, 0), 4000);
	assert_int_equal(read_msg(sb, rbuf, sizeof(rbuf), &info, 0), 4000);
	assert_int_equal(read_msg(sb, rbuf, sizeof(rbuf), &info, 0), 1);
	assert_int_equal(read_msg(sb, rbuf, sizeof(rbuf), &info, 0), (ssize_t)WIRE_MAX_MSG_LEN);
	assert_int_equal(msg_check(rbuf, WIRE_MAX_MSG_LEN), 5);
	world_free(w);
}

static void test_sndbuf_cancel_sent_to(void **state)
{
	struct rdsu_sock *sa, *b0;
	struct world *w = world_socks(72, &sa, 4000, &b0, 5000);
	struct rdsu_sock *b1 = sock_bound(w, w->b, 5001);
	struct rdsu_addr bb = node_addr(w->b);
	struct rdsu_rxinfo info;
	size_t mark;

	(void)state;
	deliver_one(w, sa, w->b, 5001, b1, 10);

	/* written, never acknowledged: B drops off the network right after */
	for (uint32_t i = 0; i < 3; i++)
		assert_int_equal(send_msg(sa, w->b, 5000, 10 + i, 500, rdsu_sim_now(w->sim)), 500);
	assert_int_equal(send_msg(sa, w->b, 5001, 20, 500, rdsu_sim_now(w->sim)), 500);
	rdsu_sim_run_for(w->sim, 1000);
	rdsu_sim_set_down(w->sim, w->b, true);
	/* and queued while it is away */
	for (uint32_t i = 0; i < 2; i++)
		assert_int_equal(send_msg(sa, w->b, 5000, 13 + i, 500, rdsu_sim_now(w->sim)), 500);
	assert_int_equal(send_msg(sa, w->b, 5001, 21, 500, rdsu_sim_now(w->sim)), 500);
	assert_true(snd_bytes(w, w->a, sa) == 7 * 500);

	assert_int_equal(rdsu_sock_cancel_sent_to(sa, &bb, 5000, rdsu_sim_now(w->sim)), 5);
	assert_true(snd_bytes(w, w->a, sa) == 1000);
	assert_int_equal(rdsu_sock_cancel_sent_to(sa, &bb, 5000, rdsu_sim_now(w->sim)), 0);

	mark = w->tap.n;
	rdsu_sim_set_down(w->sim, w->b, false);
	world_idle(w, 10 * RDSU_SEC);
	assert_int_equal(read_msg(b1, rbuf, sizeof(rbuf), &info, 0), 500);
	assert_int_equal(msg_check(rbuf, 500), 20);
	assert_int_equal(read_msg(b1, rbuf, sizeof(rbuf), &info, 0), 500);
	assert_int_equal(msg_check(rbuf, 500), 21);
	assert_int_equal(read_msg(b0, rbuf, sizeof(rbuf), &info, 0), -EAGAIN);
	/* nothing to 5000 went on the wire after the cancel */
	for (size_t k = mark; k < w->tap.n; k++)
		assert_false(is_data(&w->tap.r[k]) && w->tap.r[k].h.dport == 5000);
	assert_true(snd_bytes(w, w->a, sa) == 0);
	world_free(w);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_sndbuf_until_acked),
	cmocka_unit_test(test_sndbuf_cancel_sent_to))
