// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_giveup.c - a peer that was reachable and then is not for longer
 * than give_up (issue 21): what each side knows of the other's sequence
 * survives the outage, so every message arrives exactly once when the
 * path comes back. give_up is for peers that never had a path up. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "cmain.h"

#include "simtest.h"

#define N_MSG 40

static uint8_t rbuf[WIRE_MAX_MSG_LEN];

/* Read everything waiting at |rx|: each index once, in order from *got. */
static void take(struct rdsu_sock *rx, uint32_t *got, rdsu_ns now)
{
	struct rdsu_rxinfo info;
	ssize_t n;

	while ((n = read_msg(rx, rbuf, sizeof(rbuf), &info, now)) >= 0) {
		long idx = msg_check(rbuf, (size_t)n);

		if (info.cong)
			continue;
		if (idx != (long)*got)
			fail_msg("got message %ld, expected %u", idx, *got);
		(*got)++;
	}
}

/*
 * A (the smaller address) sends N_MSG messages to B. B takes them all,
 * and B goes off the network before their TCP acknowledgements reach A:
 * A keeps every one to resend, B has delivered every one. A retries for
 * twice give_up, then B comes back: A resends them flagged RETRANSMITTED
 * with their old numbers, and B, which remembers the path's next number,
 * drops them. A B that had forgotten A (nothing of its own to send, no
 * path up for give_up) took each a second time.
 */
static void test_giveup_keeps_known_peer(void **state)
{
	struct rdsu_sock *tx, *rx;
	struct world *w = world_socks(21, &tx, 4000, &rx, 5000);
	struct rdsu_conn_info ci;
	uint32_t got = 0;
	uint32_t unacked;

	(void)state;
	/* up, with the path count agreed, before the burst */
	assert_int_equal(send_msg(tx, w->b, 5000, got, 100, rdsu_sim_now(w->sim)), 100);
	world_idle(w, RDSU_SEC);
	take(rx, &got, rdsu_sim_now(w->sim));
	assert_int_equal(got, 1);

	for (uint32_t i = 1; i < N_MSG; i++)
		assert_int_equal(send_msg(tx, w->b, 5000, i, 100, rdsu_sim_now(w->sim)), 100);
	/* one microsecond at a time until B has them all: their
	 * acknowledgements are then a latency away from A */
	for (int step = 0; got < N_MSG && step < 100000; step++) {
		rdsu_sim_run_for(w->sim, 1000);
		take(rx, &got, rdsu_sim_now(w->sim));
	}
	assert_int_equal(got, N_MSG);
	rdsu_sim_set_down(w->sim, w->b, true);
	conn_info(w, w->a, w->b, &ci);
	unacked = 0;
	for (unsigned i = 0; i < WIRE_MAX_PATHS; i++)
		unacked += ci.path[i].retrans_q_msgs + ci.path[i].send_q_msgs;
	assert_true(unacked > 0);

	rdsu_sim_run_for(w->sim, 120 * RDSU_SEC);
	assert_int_equal(stat_of(w, w->a, RDSU_STAT_CONN_GIVEN_UP), 0);
	assert_int_equal(stat_of(w, w->b, RDSU_STAT_CONN_GIVEN_UP), 0);

	rdsu_sim_set_down(w->sim, w->b, false);
	world_idle(w, 10 * RDSU_SEC);
	take(rx, &got, rdsu_sim_now(w->sim));
	assert_int_equal(got, N_MSG);
	assert_true(stat_of(w, w->a, RDSU_STAT_SEND_RETRANSMITTED) >= unacked);
	assert_true(stat_of(w, w->b, RDSU_STAT_RECV_DROP_OLD_SEQ) >= unacked);
	conn_info(w, w->a, w->b, &ci);
	for (unsigned i = 0; i < WIRE_MAX_PATHS; i++)
		assert_int_equal(ci.path[i].retrans_q_msgs + ci.path[i].send_q_msgs, 0);

	/* and new messages after the outage arrive, once */
	for (uint32_t i = N_MSG; i < 2 * N_MSG; i++)
		assert_int_equal(send_msg(tx, w->b, 5000, i, 100, rdsu_sim_now(w->sim)), 100);
	world_idle(w, 10 * RDSU_SEC);
	take(rx, &got, rdsu_sim_now(w->sim));
	assert_int_equal(got, 2 * N_MSG);
	world_free(w);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_giveup_keeps_known_peer))
