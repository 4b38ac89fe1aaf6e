// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_multipath.c - eight paths: each socket's messages ride the path
 * its bound port hashes to (jhash_1word & 7), in both directions and on
 * the same TCP connection as the peer's index; extra paths open only after
 * the probe exchange; a burst sent before that keeps its order across the
 * move from path 0; one endpoint talks to two peers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "cmain.h"

#include "simtest.h"

static uint8_t rbuf[WIRE_MAX_MSG_LEN];

/* ports p0..p7 with hash(pi) == i */
static void ports_per_path(uint16_t start, uint16_t out[8])
{
	unsigned found = 0;

	for (uint32_t p = start; found < 8; p++) {
		unsigned h = rdsu_mprds_hash((uint16_t)p, 0, 8);

		if (!out[h]) {
			out[h] = (uint16_t)p;
			found++;
		}
	}
}

static void test_multipath_eight_paths_used(void **state)
{
	struct world *w = world_new2(41, WIRE_KVER_7, WIRE_KVER_7, NULL);
	uint16_t pa[8] = { 0 }, pb[8] = { 0 };
	struct rdsu_sock *sa[8], *sb[8];
	struct rdsu_conn_info ci;
	unsigned per_path[8] = { 0 };
	struct rdsu_addr bb = node_addr(w->b);

	(void)state;
	ports_per_path(4000, pa);
	ports_per_path(6000, pb);
	for (unsigned i = 0; i < 8; i++) {
		sa[i] = sock_bound(w, w->a, pa[i]);
		sb[i] = sock_bound(w, w->b, pb[i]);
	}
	/* a ping first, so the paths are agreed before the data */
	assert_int_equal(rdsu_sock_submit(sa[0], &bb, 0, NULL, 0, rdsu_sim_now(w->sim)), 0);
	conn_info(w, w->a, w->b, &ci);
	/* before the probe exchange only path 0 is being connected */
	assert_int_equal(ci.path[0].state, RDSU_PATH_CONNECTING);
	for (unsigned i = 1; i < 8; i++)
		assert_int_equal(ci.path[i].state, RDSU_PATH_DOWN);
	world_idle(w, 10 * RDSU_SEC);
	{
		struct rdsu_rxinfo info;

		assert_int_equal(read_msg(sa[0], rbuf, sizeof(rbuf), &info, 0), 0); /* the pong */
		assert_int_equal(info.sport, 0);
	}

	/* every A socket to every B socket, and replies back */
	for (unsigned i = 0; i < 8; i++)
		for (unsigned j = 0; j < 8; j++)
			assert_int_equal(send_msg(sa[i], w->b, pb[j], i * 8 + j, 200,
						  rdsu_sim_now(w->sim)),
					 200);
	for (unsigned j = 0; j < 8; j++)
		for (unsigned i = 0; i < 8; i++)
			assert_int_equal(send_msg(sb[j], w->a, pa[i], 100 + j * 8 + i, 300,
						  rdsu_sim_now(w->sim)),
					 300);
	world_idle(w, 10 * RDSU_SEC);
	/* each socket gets one message from every peer socket (in whatever
	 * order the paths deliver them) */
	for (unsigned j = 0; j < 8; j++) {
		unsigned from_a = 0, from_b = 0;

		for (unsigned k = 0; k < 8; k++) {
			struct rdsu_rxinfo info;
			long idx;

			assert_int_equal(read_msg(sb[j], rbuf, sizeof(rbuf), &info, 0), 200);
			idx = msg_check(rbuf, 200);
			assert_true(idx >= 0 && idx % 8 == j);
			assert_int_equal(info.sport, pa[idx / 8]);
			from_a |= 1u << (idx / 8);
			assert_int_equal(read_msg(sa[j], rbuf, sizeof(rbuf), &info, 0), 300);
			idx = msg_check(rbuf, 300) - 100;
			assert_true(idx >= 0 && idx % 8 == j);
			assert_int_equal(info.sport, pb[idx / 8]);
			from_b |= 1u << (idx / 8);
		}
		assert_int_equal(from_a, 0xff);
		assert_int_equal(from_b, 0xff);
	}
	/* on the wire: data from port P rides connection hash(P), whoever
	 * sends it, so both sides agree on every connection's index */
	for (size_t k = 0; k < w->tap.n; k++) {
		const struct wrec *r = &w->tap.r[k];

		if (!is_data(r) || r->h.dport == 0)
			continue;
		assert_int_equal(r->path, rdsu_mprds_hash(r->h.sport, 0, 8));
		per_path[r->path]++;
	}
	for (unsigned i = 0; i < 8; i++)
		assert_int_equal(per_path[i], 16);
	assert_true(paths_up(w, w->a, w->b) == 8);
	assert_int_equal(w->tap.errors, 0);
	world_free(w);
}

/*
 * librds's default rule: a message rides the path of its port pair, so a
 * request and its reply share a connection, a socket talking to several
 * ports spreads over several paths, and each pair's messages stay in order.
 */
static void test_multipath_pair_rule(void **state)
{
	struct world *w = world_new2rf(44, WIRE_KVER_7, WIRE_KVER_7, NULL, 0, 0,
				       RDSU_PATH_BY_PAIR);
	struct rdsu_sock *sa[8], *sb[8];
	struct rdsu_addr bb = node_addr(w->b);
	unsigned per_path[8] = { 0 }, a_paths = 0;
	enum { ROUNDS = 3 };

	(void)state;
	for (unsigned i = 0; i < 8; i++) {
		sa[i] = sock_bound(w, w->a, (uint16_t)(4000 + i));
		sb[i] = sock_bound(w, w->b, (uint16_t)(6000 + i));
	}
	assert_int_equal(rdsu_sock_submit(sa[0], &bb, 0, NULL, 0, rdsu_sim_now(w->sim)), 0);
	world_idle(w, 10 * RDSU_SEC);
	{
		struct rdsu_rxinfo info;

		assert_int_equal(read_msg(sa[0], rbuf, sizeof(rbuf), &info, 0), 0); /* the pong */
	}
	/* every A socket asks every B socket ROUNDS times; B answers each */
	for (unsigned r = 0; r < ROUNDS; r++)
		for (unsigned i = 0; i < 8; i++)
			for (unsigned j = 0; j < 8; j++)
				assert_int_equal(send_msg(sa[i], w->b, (uint16_t)(6000 + j),
							  r * 64 + i * 8 + j, 200, rdsu_sim_now(w->sim)),
						 200);
	world_idle(w, 10 * RDSU_SEC);
	for (unsigned j = 0; j < 8; j++) {
		uint32_t next[8] = { 0 };

		for (unsigned k = 0; k < 8 * ROUNDS; k++) {
			struct rdsu_rxinfo info;
			long idx;
			unsigned i;

			assert_int_equal(read_msg(sb[j], rbuf, sizeof(rbuf), &info, 0), 200);
			idx = msg_check(rbuf, 200);
			assert_true(idx >= 0 && idx % 8 == j);
			i = (unsigned)(idx % 64) / 8;
			assert_int_equal(info.sport, 4000 + i);
			/* one sender's messages to this port arrive in order */
			assert_int_equal((unsigned)idx / 64, next[i]);
			next[i]++;
			assert_int_equal(send_msg(sb[j], w->a, info.sport, 1000 + idx, 300,
						  rdsu_sim_now(w->sim)),
					 300);
		}
	}
	world_idle(w, 10 * RDSU_SEC);
	for (unsigned i = 0; i < 8; i++)
		for (unsigned k = 0; k < 8 * ROUNDS; k++) {
			struct rdsu_rxinfo info;

			assert_int_equal(read_msg(sa[i], rbuf, sizeof(rbuf), &info, 0), 300);
			assert_true(msg_check(rbuf, 300) >= 1000);
		}
	/* on the wire, both directions of a pair on the pair's path */
	for (size_t k = 0; k < w->tap.n; k++) {
		const struct wrec *r = &w->tap.r[k];

		if (!is_data(r) || r->h.dport == 0)
			continue;
		assert_int_equal(r->path, rdsu_path_of(RDSU_PATH_BY_PAIR, r->h.sport, r->h.dport,
							0, 8));
		assert_int_equal(r->path, rdsu_path_of(RDSU_PATH_BY_PAIR, r->h.dport, r->h.sport,
							0x12345678, 8));
		per_path[r->path]++;
		if (r->h.sport == 4000)
			a_paths |= 1u << r->path;
	}
	for (unsigned i = 0; i < 8; i++)
		assert_true(per_path[i] > 0);
	/* one socket, eight destination ports: more than one path */
	assert_true(__builtin_popcount(a_paths) > 1);
	assert_int_equal(w->tap.errors, 0);
	world_free(w);
}

/* 7.x sends on path 0 until NPATHS is known; messages queued before the
 * fan-out must not be overtaken by later ones on the hashed path. */
static void test_multipath_fanout_keeps_order(void **state)
{
	struct rdsu_sim_cfg sc;
	struct world *w;
	uint16_t pa[8] = { 0 };
	struct rdsu_sock *tx, *rx;
	uint32_t sent = 0, got = 0;
	size_t on0 = 0, on5 = 0;

	(void)state;
	rdsu_sim_cfg_default(&sc);
	sc.jitter = 200000; /* different paths overtake each other freely */
	w = world_new2(42, WIRE_KVER_7, WIRE_KVER_7, &sc);
	ports_per_path(4000, pa);
	tx = sock_bound(w, w->a, pa[5]);
	rx = sock_bound(w, w->b, 5000);
	rdsu_sock_set_rcvbuf(rx, 64 << 20, 0);
	rdsu_sock_set_sndbuf(tx, 4 << 20, 0);
	/* a burst that path 0 needs a while to get through its window */
	for (; sent < 400; sent++)
		assert_int_equal(send_msg(tx, w->b, 5000, sent, 4000, rdsu_sim_now(w->sim)), 4000);
	for (int round = 0; round < 400; round++) {
		struct rdsu_rxinfo info;
		ssize_t n;

		for (int k = 0; k < 20 && sent < 4000; k++)
			if (send_msg(tx, w->b, 5000, sent, 100, rdsu_sim_now(w->sim)) == 100)
				sent++;
		rdsu_sim_run_for(w->sim, 20000);
		while ((n = read_msg(rx, rbuf, sizeof(rbuf), &info, 0)) >= 0)
			assert_int_equal(msg_check(rbuf, (size_t)n), got++);
	}
	world_idle(w, 10 * RDSU_SEC);
	for (;;) {
		struct rdsu_rxinfo info;
		ssize_t n = read_msg(rx, rbuf, sizeof(rbuf), &info, 0);

		if (n < 0)
			break;
		assert_int_equal(msg_check(rbuf, (size_t)n), got++);
	}
	assert_int_equal(got, sent);
	assert_int_equal(sent, 4000);
	for (size_t k = 0; k < w->tap.n; k++) {
		const struct wrec *r = &w->tap.r[k];

		if (is_data(r) && r->h.sport == pa[5]) {
			on0 += r->path == 0;
			on5 += r->path == 5;
		}
	}
	/* the test means something only if both paths were used */
	assert_true(on0 > 0 && on5 > 0);
	assert_int_equal(on0 + on5, 4000);
	world_free(w);
}

/* One endpoint, two peers: each connection has its own paths, sequence
 * numbers and maps; the middle address connects to the larger one and
 * is connected to by the smaller one. */
static void test_multipath_three_nodes(void **state)
{
	struct world *w = world_new2(43, WIRE_KVER_7, WIRE_KVER_7, NULL);
	struct rdsu_ep_cfg c;
	int n3;
	struct rdsu_sock *sa, *sb, *sc;
	struct rdsu_conn_info ci;
	struct rdsu_rxinfo info;

	(void)state;
	node_cfg(&c, 0x0a000003u, WIRE_KVER_7, 0x33333333u, RDSU_PATH_BY_PORT);
	n3 = rdsu_sim_add_node(w->sim, &c);
	assert_int_equal(n3, 2);
	sa = sock_bound(w, w->a, 4000);
	sb = sock_bound(w, w->b, 4000);
	sc = sock_bound(w, n3, 4000);
	assert_int_equal(send_msg(sb, w->a, 4000, 1, 10, 0), 10);
	assert_int_equal(send_msg(sb, n3, 4000, 2, 20, 0), 20);
	assert_int_equal(send_msg(sc, w->a, 4000, 3, 30, 0), 30);
	world_idle(w, 10 * RDSU_SEC);
	for (int k = 0; k < 2; k++) {
		ssize_t n = read_msg(sa, rbuf, sizeof(rbuf), &info, 0);

		/* 10 bytes from B, 30 from C, in either order */
		assert_int_equal(n, rdsu_addr_get_v4(&info.from) == ADDR_B ? 10 : 30);
		assert_int_equal(msg_check(rbuf, (size_t)n), n == 10 ? 1 : 3);
	}
	assert_int_equal(read_msg(sa, rbuf, sizeof(rbuf), &info, 0), -EAGAIN);
	assert_int_equal(read_msg(sc, rbuf, sizeof(rbuf), &info, 0), 20);
	assert_int_equal(rdsu_addr_get_v4(&info.from), ADDR_B);
	conn_info(w, w->b, w->a, &ci);
	assert_false(ci.we_connect);
	conn_info(w, w->b, n3, &ci);
	assert_true(ci.we_connect);
	assert_int_equal(paths_up(w, w->b, n3), 8);
	assert_int_equal(paths_up(w, w->b, w->a), 8);
	assert_int_equal(paths_up(w, n3, w->a), 8);
	assert_int_equal(rdsu_sim_count_conns(w->sim, w->b, n3), 8);
	world_free(w);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_multipath_eight_paths_used),
	cmocka_unit_test(test_multipath_pair_rule),
	cmocka_unit_test(test_multipath_fanout_keeps_order),
	cmocka_unit_test(test_multipath_three_nodes))
