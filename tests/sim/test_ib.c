// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_ib.c - two librds endpoints over the simulator's IB-like links
 * (whole frames, in order, loss only as a broken connection): messages of
 * every fragment boundary byte for byte, ACK_REQUIRED answered with
 * ACK-only frames, SNDBUF returned by h_ack, exactly-once delivery while
 * connections break, both ends reconnecting and settling the connect
 * race, and credits one end offers honoured by the other. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "cmain.h"

#include "simtest.h"

#define PA 4000
#define PB 5000
#define LIMIT (600 * RDSU_SEC)

/* Two 7.x nodes with an IB socket each: a's at PA (*|sa|), b's at PB. */
static struct world *ib_world(uint64_t seed, struct rdsu_sock **sa, struct rdsu_sock **sb)
{
	struct world *w = world_new2(seed, WIRE_KVER_7, WIRE_KVER_7, NULL);

	*sa = sock_bound_ib(w, w->a, PA);
	*sb = sock_bound_ib(w, w->b, PB);
	return w;
}

static void check_msg(const uint8_t *buf, ssize_t n, uint32_t idx, uint32_t len)
{
	assert_int_equal(n, (ssize_t)len);
	if (len >= 8) {
		assert_int_equal(msg_check(buf, (size_t)n), (long)idx);
	} else {
		for (uint32_t i = 0; i < len; i++)
			assert_int_equal(buf[i], pat(idx, i));
	}
}

/* Read what |rx| has, each message the next in order from index |next|.
 * Return: how many. */
static uint32_t read_in_order(struct world *w, struct rdsu_sock *rx, uint8_t *buf, size_t cap,
			      uint32_t next)
{
	struct rdsu_rxinfo ri;
	uint32_t k = 0;
	ssize_t n;

	while ((n = read_msg(rx, buf, cap, &ri, world_now(w))) > 0) {
		assert_int_equal(msg_check(buf, (size_t)n), (long)(next + k));
		k++;
	}
	return k;
}

/* 0, 1, 4095, 4096, 4097, 65536 and 1 MiB both ways, byte for byte. */
static void test_ib_sizes(void **state)
{
	static const uint32_t sizes[] = { 0, 1, 4095, 4096, 4097, 65536, 1u << 20 };
	static uint8_t buf[(1u << 20) + 1];
	struct rdsu_sock *sa, *sb;
	struct world *w = ib_world(1, &sa, &sb);
	struct rdsu_conn_info ci;
	struct rdsu_rxinfo ri;

	(void)state;
	assert_int_equal(rdsu_sock_set_sndbuf(sa, 4u << 20, world_now(w)), 0);
	assert_int_equal(rdsu_sock_set_sndbuf(sb, 4u << 20, world_now(w)), 0);
	assert_int_equal(rdsu_sock_set_rcvbuf(sa, 4u << 20, world_now(w)), 0);
	assert_int_equal(rdsu_sock_set_rcvbuf(sb, 4u << 20, world_now(w)), 0);
	for (uint32_t k = 0; k < 7; k++) {
		assert_int_equal(send_msg(sa, w->b, PB, k, sizes[k], world_now(w)), (int)sizes[k]);
		assert_int_equal(send_msg(sb, w->a, PA, 100 + k, sizes[k], world_now(w)), (int)sizes[k]);
	}
	world_idle(w, LIMIT);
	for (uint32_t k = 0; k < 7; k++) {
		check_msg(buf, read_msg(sb, buf, sizeof(buf), &ri, world_now(w)), k, sizes[k]);
		check_msg(buf, read_msg(sa, buf, sizeof(buf), &ri, world_now(w)), 100 + k, sizes[k]);
	}
	assert_int_equal(read_msg(sb, buf, sizeof(buf), &ri, world_now(w)), -EAGAIN);
	conn_info(w, w->a, w->b, &ci);
	assert_int_equal(ci.transport, RDSU_TRANS_IB);
	assert_int_equal(ci.npaths, 1);
	assert_int_equal(rdsu_sim_count_conns(w->sim, w->a, w->b), 1);
	world_free(w);
}

/* Nothing to send back: the ACK_REQUIRED messages (the first, then one in
 * nine) are answered by ACK-only frames, which free the sender's SNDBUF;
 * a message that did not ask waits for the next ack. */
static void test_ib_ack_only(void **state)
{
	struct rdsu_sock *sa, *sb;
	struct world *w = ib_world(2, &sa, &sb);
	struct rdsu_sock_info si;
	uint8_t buf[64];
	struct rdsu_rxinfo ri;
	size_t pos = 0;

	(void)state;
	for (uint32_t i = 0; i < 20; i++) {
		assert_int_equal(send_msg(sa, w->b, PB, i, 32, world_now(w)), 32);
		assert_int_equal(rdsu_sim_run_for(w->sim, RDSU_MSEC), 0);
	}
	world_idle(w, LIMIT);
	for (uint32_t i = 0; i < 20; i++)
		check_msg(buf, read_msg(sb, buf, sizeof(buf), &ri, world_now(w)), i, 32);
	/* messages 0, 9 and 18 asked (the first, then one in nine) */
	assert_int_equal(stat_of(w, w->b, RDSU_STAT_ACK_SENT), 3);
	assert_int_equal(stat_of(w, w->a, RDSU_STAT_ACK_RECV), 3);
	while (rdsu_ep_sock_next(EP(w, w->a), &pos, &si) == 1)
		if (si.sock == sa) /* acks are lazy: all but message 19 are freed */
			assert_int_equal(si.snd_bytes, 32);
	world_free(w);
}

/* A full SNDBUF (-EAGAIN) empties by h_ack alone; a congested port gives
 * -ENOBUFS until the receiver reads. */
static void test_ib_sndbuf(void **state)
{
	static uint8_t buf[70000];
	struct rdsu_sock *sa, *sb;
	struct world *w = ib_world(3, &sa, &sb);
	struct rdsu_rxinfo ri;
	uint32_t i = 0, got = 0;
	int r;

	(void)state;
	assert_int_equal(rdsu_sock_set_rcvbuf(sb, 200000, world_now(w)), 0);
	while ((r = send_msg(sa, w->b, PB, i, 60000, world_now(w))) > 0)
		i++;
	assert_int_equal(r, -EAGAIN);
	world_idle(w, LIMIT);
	/* b's port is congested now (rcvbuf full) */
	while ((r = send_msg(sa, w->b, PB, i, 60000, world_now(w))) > 0) {
		i++;
		world_idle(w, LIMIT);
	}
	assert_int_equal(r, -ENOBUFS);
	while (read_msg(sb, buf, sizeof(buf), &ri, world_now(w)) > 0)
		got++;
	world_idle(w, LIMIT);
	assert_int_equal(send_msg(sa, w->b, PB, i, 60000, world_now(w)), 60000);
	i++;
	world_idle(w, LIMIT);
	while (read_msg(sb, buf, sizeof(buf), &ri, world_now(w)) > 0)
		got++;
	assert_int_equal(got, i);
	world_free(w);
}

/* Connections break under traffic both ways: every message arrives once,
 * in order; the unacknowledged ones come again flagged and the copies
 * are dropped; both ends reconnect. */
static void test_ib_breaks(void **state)
{
	static uint8_t buf[8192];
	struct rdsu_sock *sa, *sb;
	struct world *w = ib_world(4, &sa, &sb);
	struct rdsu_rxinfo ri;
	uint32_t sent[2] = { 0, 0 }, got[2] = { 0, 0 };
	const uint32_t total = 3000;

	(void)state;
	rdsu_sim_set_faults(w->sim, 2000, 0);
	while (got[0] < total || got[1] < total) {
		while (sent[0] < total && send_msg(sa, w->b, PB, sent[0], 100 + sent[0] % 5000,
						   world_now(w)) > 0)
			sent[0]++;
		while (sent[1] < total && send_msg(sb, w->a, PA, sent[1], 100 + sent[1] % 7000,
						   world_now(w)) > 0)
			sent[1]++;
		assert_int_equal(rdsu_sim_run_for(w->sim, RDSU_MSEC), 0);
		assert_true(world_now(w) < 2000 * RDSU_SEC);
		got[0] += read_in_order(w, sb, buf, sizeof(buf), got[0]);
		got[1] += read_in_order(w, sa, buf, sizeof(buf), got[1]);
	}
	rdsu_sim_set_faults(w->sim, 0, 0);
	world_idle(w, LIMIT);
	assert_int_equal(read_msg(sb, buf, sizeof(buf), &ri, world_now(w)), -EAGAIN);
	assert_true(stat_of(w, w->a, RDSU_STAT_CONN_RESET) > 5);
	assert_true(stat_of(w, w->a, RDSU_STAT_SEND_RETRANSMITTED) > 0);
	assert_true(stat_of(w, w->b, RDSU_STAT_RECV_DROP_OLD_SEQ) +
		    stat_of(w, w->a, RDSU_STAT_RECV_DROP_OLD_SEQ) > 0);
	/* no smaller-address rule: the larger address connected too */
	assert_true(stat_of(w, w->b, RDSU_STAT_CONNECT_REQ) > 1);
	assert_int_equal(stat_of(w, w->b, RDSU_STAT_KICK_DROPPED), 0);
	assert_int_equal(rdsu_sim_count_conns(w->sim, w->a, w->b), 1);
	world_free(w);
}

/* Both send first: the two connects cross, each side refuses the other's
 * (its own is connecting), and the backoff settles it on one. */
static void test_ib_race(void **state)
{
	uint8_t buf[64];
	struct rdsu_sock *sa, *sb;
	struct world *w = ib_world(5, &sa, &sb);
	struct rdsu_rxinfo ri;

	(void)state;
	assert_int_equal(send_msg(sa, w->b, PB, 1, 16, world_now(w)), 16);
	assert_int_equal(send_msg(sb, w->a, PA, 2, 16, world_now(w)), 16);
	world_idle(w, LIMIT);
	assert_true(stat_of(w, w->a, RDSU_STAT_ACCEPT_RACED) >= 1);
	assert_true(stat_of(w, w->b, RDSU_STAT_ACCEPT_RACED) >= 1);
	assert_int_equal(rdsu_sim_count_conns(w->sim, w->a, w->b), 1);
	check_msg(buf, read_msg(sb, buf, sizeof(buf), &ri, world_now(w)), 1, 16);
	check_msg(buf, read_msg(sa, buf, sizeof(buf), &ri, world_now(w)), 2, 16);
	world_free(w);
}

/* a offers credits (its posted buffers): b spends them, never more than
 * a advertised; a, offered none, runs without. */
static void test_ib_credits(void **state)
{
	static uint8_t buf[20000];
	struct rdsu_sock *sa, *sb;
	struct world *w = ib_world(6, &sa, &sb);
	struct rdsu_conn_info ci;
	uint32_t sent = 0, got = 0;

	(void)state;
	rdsu_sim_set_ib_credits(w->sim, w->a, 8);
	assert_int_equal(send_msg(sa, w->b, PB, 0, 16, world_now(w)), 16);
	world_idle(w, LIMIT);
	conn_info(w, w->b, w->a, &ci);
	assert_true(ci.path[0].flow_control);
	conn_info(w, w->a, w->b, &ci);
	assert_false(ci.path[0].flow_control);
	while (got < 500) {
		while (sent < 500 && send_msg(sb, w->a, PA, sent, 10000, world_now(w)) > 0)
			sent++;
		assert_int_equal(rdsu_sim_run_for(w->sim, RDSU_MSEC), 0);
		assert_true(world_now(w) < 1000 * RDSU_SEC);
		conn_info(w, w->b, w->a, &ci);
		assert_true(ci.path[0].send_credits <= 8 + 255);
		got += read_in_order(w, sa, buf, sizeof(buf), got);
	}
	assert_int_equal(stat_of(w, w->a, RDSU_STAT_CONN_RESET), 0);
	world_free(w);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_ib_sizes),
	cmocka_unit_test(test_ib_ack_only),
	cmocka_unit_test(test_ib_sndbuf),
	cmocka_unit_test(test_ib_breaks),
	cmocka_unit_test(test_ib_race),
	cmocka_unit_test(test_ib_credits))
