// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_handshake.c - two cores meet: who connects, probes, maps, path
 * count, pings; 7.x with 7.x, with a 6.1-style peer, and either side
 * speaking first. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "cmain.h"

#include "simtest.h"

static uint8_t rbuf[WIRE_MAX_MSG_LEN];

/* Message |idx| of |len| bytes from |tx| to node |to| port |dport|. */
static void send_to(struct world *w, struct rdsu_sock *tx, int to, uint16_t dport, uint32_t idx,
		    uint32_t len)
{
	assert_int_equal(send_msg(tx, to, dport, idx, len, rdsu_sim_now(w->sim)), (int)len);
}

/* The next message at |rx| is message |idx| of |len| bytes, whole. */
static void read_back(struct world *w, struct rdsu_sock *rx, uint32_t idx, uint32_t len,
		      struct rdsu_rxinfo *info)
{
	assert_int_equal(read_msg(rx, rbuf, sizeof(rbuf), info, rdsu_sim_now(w->sim)), (ssize_t)len);
	assert_int_equal(msg_check(rbuf, len), idx);
}

static void run_idle(struct world *w)
{
	world_idle(w, 60 * RDSU_SEC);
}

static const struct wrec *first_rec(const struct tap *t, int from, int (*pred)(const struct wrec *))
{
	for (size_t i = 0; i < t->n; i++)
		if (t->r[i].from == from && pred(&t->r[i]))
			return &t->r[i];
	return NULL;
}

/* Every map: the whole 8192 bytes, flags exactly 0x01, seq 0, ports 0,
 * no extension; and each stream numbers everything else 1, 2, 3, ... */
static void check_wire_basics(const struct tap *t)
{
	assert_int_equal(t->errors, 0);
	for (size_t i = 0; i < t->n; i++) {
		const struct wrec *r = &t->r[i];

		if (!is_map(r))
			continue;
		assert_int_equal(r->h.len, WIRE_CONG_MAP_BYTES);
		assert_int_equal(r->len, WIRE_CONG_MAP_BYTES);
		assert_int_equal(r->h.flags, 0x01);
		assert_true(r->h.seq == 0);
		assert_int_equal(r->h.sport, 0);
		assert_int_equal(r->h.dport, 0);
		for (int k = 0; k < WIRE_EXT_SPACE; k++)
			assert_int_equal(r->h.ext[k], 0);
	}
	for (size_t s = 0; s < t->n_st; s++) {
		uint64_t want = 1;

		for (size_t i = 0; i < t->n; i++) {
			const struct wrec *r = &t->r[i];

			if (r->conn != t->st[s].conn || r->from != t->st[s].from || is_map(r))
				continue;
			assert_true(r->h.seq == want);
			assert_int_equal(r->h.flags & WIRE_FLAG_RETRANSMITTED, 0);
			assert_true(r->h.ack == 0 && r->h.csum == 0 && r->h.credit == 0);
			want++;
		}
	}
}

static void check_probe(const struct wrec *r, enum wire_kver kv, uint32_t gen)
{
	struct wire_exts x;

	assert_non_null(r);
	wire_exts_decode(&x, r->h.ext, WIRE_KVER_7);
	assert_true(x.has_npaths);
	assert_int_equal(x.npaths, 8);
	assert_int_equal(r->h.len, 0);
	if (kv == WIRE_KVER_6) {
		/* 05 00 08 and nothing else: GEN_NUM lost to the one-exthdr rule */
		static const uint8_t want[WIRE_EXT_SPACE] = { 5, 0, 8 };

		assert_memory_equal(r->h.ext, want, WIRE_EXT_SPACE);
	} else {
		assert_true(x.has_gen_num);
		assert_int_equal(x.gen_num, gen);
		assert_true(x.has_sport_idx);
		assert_int_equal(x.count, 3);
	}
}

static void check_all_up(struct world *w)
{
	struct rdsu_conn_info ca, cb;

	conn_info(w, w->a, w->b, &ca);
	conn_info(w, w->b, w->a, &cb);
	assert_int_equal(ca.npaths, 8);
	assert_int_equal(cb.npaths, 8);
	assert_true(ca.we_connect);
	assert_false(cb.we_connect);
	for (unsigned i = 0; i < 8; i++) {
		assert_int_equal(ca.path[i].state, RDSU_PATH_UP);
		assert_int_equal(cb.path[i].state, RDSU_PATH_UP);
		assert_true(ca.path[i].outgoing);
		assert_false(cb.path[i].outgoing);
	}
}

/* Message |idx| of |len| bytes from |tx| (port |sport|) to node |to| port
 * |dport|, the first traffic: it arrives whole at |rx|, from |tx|'s node
 * and port, and every path comes up. */
static void speaks_first(struct world *w, struct rdsu_sock *tx, uint16_t sport, int to,
			 uint16_t dport, struct rdsu_sock *rx, uint32_t idx, uint32_t len)
{
	struct rdsu_rxinfo info;
	struct rdsu_addr from = node_addr(to == w->a ? w->b : w->a);

	send_to(w, tx, to, dport, idx, len);
	run_idle(w);
	read_back(w, rx, idx, len, &info);
	assert_int_equal(info.sport, sport);
	assert_int_equal(rdsu_addr_get_v4(&info.from), rdsu_addr_get_v4(&from));
	check_all_up(w);
}

static void test_handshake_7x_smaller_speaks_first(void **state)
{
	struct rdsu_sock *sa, *sb;
	struct world *w = world_socks(1, &sa, 4000, &sb, 5000);
	struct rdsu_conn_info ca, cb;
	struct rdsu_sim_stats st;

	(void)state;
	speaks_first(w, sa, 4000, w->b, 5000, sb, 7, 100);
	rdsu_sim_get_stats(w->sim, &st);
	assert_true(st.connects == 8 && st.refused == 0);
	assert_true(stat_of(w, w->b, RDSU_STAT_CONNECT_REQ) == 0);

	/* 7.x: the path is in the source port, both ends agree */
	conn_info(w, w->a, w->b, &ca);
	conn_info(w, w->b, w->a, &cb);
	assert_true(ca.peer_sport_idx && cb.peer_sport_idx);
	assert_int_equal(ca.peer_gen, 0x22222222);
	assert_int_equal(cb.peer_gen, 0x11111111);
	for (unsigned i = 0; i < 8; i++) {
		assert_int_equal(ca.path[i].local_sport % 8, i);
		assert_int_equal(cb.path[i].peer_sport, ca.path[i].local_sport);
	}

	/* both probe (the acceptor while it does not know the count), both answer */
	check_probe(first_rec(&w->tap, w->a, is_probe_ping), WIRE_KVER_7, 0x11111111);
	check_probe(first_rec(&w->tap, w->b, is_probe_pong), WIRE_KVER_7, 0x22222222);
	check_probe(first_rec(&w->tap, w->b, is_probe_ping), WIRE_KVER_7, 0x22222222);
	check_probe(first_rec(&w->tap, w->a, is_probe_pong), WIRE_KVER_7, 0x11111111);
	assert_int_equal(first_rec(&w->tap, w->a, is_probe_ping)->path, 0);

	/* a map from each side on every path that came up, first thing */
	assert_int_equal(count_recs(&w->tap, w->a, is_map), 8);
	assert_int_equal(count_recs(&w->tap, w->b, is_map), 8);
	for (size_t s = 0; s < w->tap.n_st; s++) {
		for (size_t i = 0; i < w->tap.n; i++)
			if (w->tap.r[i].conn == w->tap.st[s].conn &&
			    w->tap.r[i].from == w->tap.st[s].from) {
				assert_true(is_map(&w->tap.r[i]));
				break;
			}
	}
	check_wire_basics(&w->tap);
	world_free(w);
}

static void test_handshake_larger_speaks_first(void **state)
{
	struct rdsu_sock *sa, *sb;
	struct world *w = world_socks(2, &sa, 4000, &sb, 5000);
	struct rdsu_sim_stats st;

	(void)state;
	speaks_first(w, sb, 5000, w->a, 4000, sa, 9, 64);

	/* B's only connection was the kick; A refused it and connected back */
	assert_true(stat_of(w, w->b, RDSU_STAT_CONNECT_REQ) == 1);
	assert_true(stat_of(w, w->a, RDSU_STAT_ACCEPT_REFUSED) == 1);
	assert_true(stat_of(w, w->a, RDSU_STAT_CONNECT_REQ) == 8);
	rdsu_sim_get_stats(w->sim, &st);
	assert_true(st.connects == 9);
	assert_true(st.refused == 1);
	/* the larger side probes (its message found path 0 down), A answers */
	check_probe(first_rec(&w->tap, w->b, is_probe_ping), WIRE_KVER_7, 0x22222222);
	check_probe(first_rec(&w->tap, w->a, is_probe_pong), WIRE_KVER_7, 0x11111111);
	check_wire_basics(&w->tap);
	world_free(w);
}

/* A 7.x core with a 6.1-style peer, both ways round. */
static void run_mixed(enum wire_kver kva, enum wire_kver kvb, uint64_t seed)
{
	struct world *w = world_new2(seed, kva, kvb, NULL);
	struct rdsu_sock *sa = sock_bound(w, w->a, 4000);
	struct rdsu_sock *sb = sock_bound(w, w->b, 5000);
	struct rdsu_conn_info ca, cb;
	struct rdsu_rxinfo info;
	const struct wrec *r;

	send_to(w, sa, w->b, 5000, 1, 50);
	run_idle(w);
	send_to(w, sb, w->a, 4000, 2, 60);
	run_idle(w);
	read_back(w, sb, 1, 50, &info);
	read_back(w, sa, 2, 60, &info);
	check_all_up(w);

	conn_info(w, w->a, w->b, &ca);
	conn_info(w, w->b, w->a, &cb);
	/* a 6.x side neither sends nor acts on GEN_NUM/SPORT_IDX */
	assert_int_equal(ca.peer_sport_idx, kva == WIRE_KVER_7 && kvb == WIRE_KVER_7);
	assert_int_equal(cb.peer_sport_idx, 0);
	assert_int_equal(ca.peer_gen, kvb == WIRE_KVER_7 ? 0x22222222 : 0);
	assert_int_equal(cb.peer_gen, kva == WIRE_KVER_7 ? 0x11111111 : 0);
	r = first_rec(&w->tap, w->b, is_probe_pong);
	if (!r)
		r = first_rec(&w->tap, w->b, is_probe_ping);
	check_probe(r, kvb, 0x22222222);
	r = first_rec(&w->tap, w->a, is_probe_ping);
	if (!r)
		r = first_rec(&w->tap, w->a, is_probe_pong);
	check_probe(r, kva, 0x11111111);
	/* 6.x connector: ephemeral ports, nothing to read from them */
	if (kva == WIRE_KVER_6) {
		unsigned match = 0;

		for (unsigned i = 0; i < 8; i++)
			match += ca.path[i].local_sport % 8 == i;
		assert_true(match < 8);
	}
	check_wire_basics(&w->tap);
	world_free(w);
}

static void test_handshake_7x_with_6x_peer(void **state)
{
	(void)state;
	run_mixed(WIRE_KVER_7, WIRE_KVER_6, 3);
}

static void test_handshake_6x_with_7x_peer(void **state)
{
	(void)state;
	run_mixed(WIRE_KVER_6, WIRE_KVER_7, 4);
}

static void test_handshake_6x_both(void **state)
{
	(void)state;
	run_mixed(WIRE_KVER_6, WIRE_KVER_6, 5);
}

static int is_pong_5000(const struct wrec *r)
{
	return wire_classify(&r->h, WIRE_XPORT_TCP) == WIRE_KIND_PONG && r->h.sport == 0 &&
	       r->h.dport == 5000 && r->h.len == 0;
}

static int is_pong_4000(const struct wrec *r)
{
	return wire_classify(&r->h, WIRE_XPORT_TCP) == WIRE_KIND_PONG && r->h.sport == 0 &&
	       r->h.dport == 4000 && r->h.len == 0;
}

static void test_handshake_ping_pong(void **state)
{
	struct rdsu_sock *sa, *sb;
	struct world *w = world_socks(6, &sa, 4000, &sb, 5000);
	struct rdsu_addr bb = node_addr(w->b), aa = node_addr(w->a);
	struct rdsu_rxinfo info;

	(void)state;
	/* a zero-length message to port 0 is a ping, from either side */
	assert_int_equal(rdsu_sock_submit(sa, &bb, 0, NULL, 0, rdsu_sim_now(w->sim)), 0);
	assert_int_equal(rdsu_sock_submit(sb, &aa, 0, NULL, 0, rdsu_sim_now(w->sim)), 0);
	run_idle(w);
	assert_int_equal(read_msg(sa, rbuf, sizeof(rbuf), &info, rdsu_sim_now(w->sim)), 0);
	assert_int_equal(info.sport, 0);
	assert_int_equal(info.len, 0);
	assert_int_equal(rdsu_addr_get_v4(&info.from), ADDR_B);
	assert_int_equal(read_msg(sa, rbuf, sizeof(rbuf), &info, rdsu_sim_now(w->sim)), -EAGAIN);
	assert_int_equal(read_msg(sb, rbuf, sizeof(rbuf), &info, rdsu_sim_now(w->sim)), 0);
	assert_int_equal(info.sport, 0);
	assert_int_equal(rdsu_addr_get_v4(&info.from), ADDR_A);
	/* one pong each way (sport 0, dport = the pinger's port); recv_ping
	 * also counts the probe pings, as s_recv_ping does */
	assert_int_equal(count_recs(&w->tap, w->a, is_pong_5000), 1);
	assert_int_equal(count_recs(&w->tap, w->b, is_pong_4000), 1);
	assert_true(stat_of(w, w->a, RDSU_STAT_RECV_PING) >= 1);
	check_wire_basics(&w->tap);
	world_free(w);
}

static void test_handshake_ping_disabled(void **state)
{
	struct rdsu_sim_cfg sc;
	struct rdsu_ep_cfg c;
	struct rdsu_sim *sim;
	struct rdsu_sock *sa;
	struct rdsu_addr aa = rdsu_addr_v4(ADDR_A), bb = rdsu_addr_v4(ADDR_B);
	struct rdsu_rxinfo info;
	struct iovec iov = { rbuf, 0 };
	struct rdsu_stats st;

	(void)state;
	rdsu_sim_cfg_default(&sc);
	assert_int_equal(rdsu_sim_new(&sim, &sc), 0);
	node_cfg(&c, ADDR_A, WIRE_KVER_7, 1, RDSU_PATH_BY_PORT);
	assert_int_equal(rdsu_sim_add_node(sim, &c), 0);
	node_cfg(&c, ADDR_B, WIRE_KVER_7, 2, RDSU_PATH_BY_PORT);
	c.ping_enable = false;
	assert_int_equal(rdsu_sim_add_node(sim, &c), 1);
	assert_int_equal(rdsu_sock_new(rdsu_sim_ep(sim, 0), &sa), 0);
	assert_int_equal(rdsu_sock_bind(sa, &aa, 4000), 0);
	assert_int_equal(rdsu_sock_submit(sa, &bb, 0, &iov, 1, rdsu_sim_now(sim)), 0);
	assert_int_equal(rdsu_sim_run_idle(sim, rdsu_sim_now(sim) + 10 * RDSU_SEC), 0);
	assert_int_equal(rdsu_sock_read(sa, &iov, 1, 0, &info, rdsu_sim_now(sim)), -EAGAIN);
	rdsu_ep_get_stats(rdsu_sim_ep(sim, 1), &st);
	/* to port 0 without ping_enable: no socket there */
	assert_true(st.v[RDSU_STAT_RECV_PING] == 0);
	assert_true(st.v[RDSU_STAT_RECV_DROP_NO_SOCK] >= 1);
	rdsu_sim_free(sim);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_handshake_7x_smaller_speaks_first),
	cmocka_unit_test(test_handshake_larger_speaks_first),
	cmocka_unit_test(test_handshake_7x_with_6x_peer),
	cmocka_unit_test(test_handshake_6x_with_7x_peer),
	cmocka_unit_test(test_handshake_6x_both),
	cmocka_unit_test(test_handshake_ping_pong),
	cmocka_unit_test(test_handshake_ping_disabled))
