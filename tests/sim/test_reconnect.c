// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_reconnect.c - streams across connection resets, lost segments and
 * randomly reset links: every message arrives exactly once and in order,
 * resent copies carry RETRANSMITTED and their old sequence number, and
 * only the smaller address reconnects. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "cmain.h"

#include "simtest.h"

static uint8_t rbuf[WIRE_MAX_MSG_LEN];

struct flow {
	struct rdsu_sock *tx, *rx;
	int from, to;
	uint16_t dport;
	uint32_t sent, got, total;
	uint64_t rng;
};

static uint32_t flow_len(struct flow *f)
{
	f->rng = f->rng * 6364136223846793005ull + 1442695040888963407ull;
	return 8 + (uint32_t)(f->rng >> 33) % 6000;
}

static void flow_send(struct flow *f, rdsu_ns now)
{
	while (f->sent < f->total && (rdsu_sock_poll(f->tx) & RDSU_POLLOUT)) {
		uint64_t save = f->rng;
		int r = send_msg(f->tx, f->to, f->dport, f->sent, flow_len(f), now);

		if (r == -EAGAIN || r == -ENOBUFS) {
			f->rng = save; /* the same message next time */
			return;
		}
		assert_true(r > 0);
		f->sent++;
	}
}

static void flow_recv(struct flow *f, rdsu_ns now)
{
	struct rdsu_rxinfo info;
	ssize_t n;

	while ((n = read_msg(f->rx, rbuf, sizeof(rbuf), &info, now)) >= 0) {
		long idx = msg_check(rbuf, (size_t)n);

		/* exactly once, in order, intact */
		if (idx != (long)f->got)
			fail_msg("flow %d->%d: got message %ld, expected %u", f->from, f->to, idx,
				 f->got);
		f->got++;
	}
	assert_int_equal(n, -EAGAIN);
}

/* Every RETRANSMITTED copy on the wire repeats an earlier message of the
 * same path: same sequence number, same length, same first byte. */
struct seen {
	const struct wrec *r; /* first record with this (path, seq) */
};

static size_t seen_slot(const struct seen *tab, size_t cap, const struct wrec *r)
{
	size_t h = (size_t)((r->h.seq * 0x9e3779b97f4a7c15ull) ^ r->path) & (cap - 1);

	while (tab[h].r && (tab[h].r->path != r->path || tab[h].r->h.seq != r->h.seq))
		h = (h + 1) & (cap - 1);
	return h;
}

static size_t check_retransmits(const struct tap *t, int from)
{
	size_t cap = 1, resent = 0;
	struct seen *tab;

	while (cap < 2 * t->n + 2)
		cap <<= 1;
	tab = calloc(cap, sizeof(*tab));
	for (size_t i = 0; i < t->n; i++) {
		const struct wrec *r = &t->r[i];
		size_t h;

		if (r->from != from || is_map(r))
			continue;
		h = seen_slot(tab, cap, r);
		if (!(r->h.flags & WIRE_FLAG_RETRANSMITTED)) {
			/* a fresh message never reuses a sequence number */
			assert_null(tab[h].r);
			tab[h].r = r;
			continue;
		}
		assert_int_equal(r->h.flags, WIRE_FLAG_RETRANSMITTED);
		resent++;
		/* A message may go out first already flagged when the link
		 * died before any byte of it left (seen on 6.1). */
		if (!tab[h].r) {
			tab[h].r = r;
			continue;
		}
		assert_int_equal(tab[h].r->len, r->len);
		assert_int_equal(tab[h].r->first, r->first);
		assert_int_equal(tab[h].r->h.sport, r->h.sport);
		assert_int_equal(tab[h].r->h.dport, r->h.dport);
	}
	free(tab);
	return resent;
}

static void test_reconnect_single_path_resets(void **state)
{
	struct world *w = world_new2(11, WIRE_KVER_7, WIRE_KVER_7, NULL);
	/* port 4003 hashes to path 2 (the lab's tcp_reset stream) */
	struct flow f = { sock_bound(w, w->a, 4003), sock_bound(w, w->b, 5000), w->a, w->b, 5000,
			  0, 0, 3000, 42 };
	struct rdsu_conn_info ci;
	int kills = 0;

	(void)state;
	assert_int_equal(rdsu_mprds_hash(4003, 0, 8), 2);
	rdsu_sock_set_sndbuf(f.tx, 64 * 1024, 0);
	for (int round = 0; f.got < f.total && round < 100000; round++) {
		flow_send(&f, rdsu_sim_now(w->sim));
		rdsu_sim_run_for(w->sim, 200000);
		flow_recv(&f, rdsu_sim_now(w->sim));
		/* kill the stream's connection, from either side, while a burst
		 * is in flight */
		if (round % 10 == 9 && kills < 12) {
			int killer = kills % 2 ? w->b : w->a;

			flow_send(&f, rdsu_sim_now(w->sim));
			rdsu_sim_run_for(w->sim, 60000);
			if (rdsu_sim_reset_conns(w->sim, killer, killer == w->a ? w->b : w->a,
						 1u << 2) == 1)
				kills++;
		}
	}
	world_idle(w, 60 * RDSU_SEC);
	flow_recv(&f, rdsu_sim_now(w->sim));
	assert_int_equal(f.got, f.total);
	assert_int_equal(kills, 12);

	/* resets really found unacknowledged data, and copies really reached
	 * B and were dropped as duplicates */
	assert_true(stat_of(w, w->a, RDSU_STAT_SEND_RETRANSMITTED) > 0);
	assert_true(stat_of(w, w->b, RDSU_STAT_RECV_DROP_OLD_SEQ) > 0);
	assert_true(check_retransmits(&w->tap, w->a) > 0);
	/* only path 2 went down, only A reconnected */
	conn_info(w, w->a, w->b, &ci);
	assert_true(ci.path[2].resets == 12);
	for (unsigned i = 0; i < 8; i++) {
		assert_int_equal(ci.path[i].state, RDSU_PATH_UP);
		if (i != 2)
			assert_true(ci.path[i].resets == 0);
	}
	assert_true(stat_of(w, w->b, RDSU_STAT_CONNECT_REQ) == 0);
	/* everything acknowledged, nothing left queued */
	assert_int_equal(ci.path[2].retrans_q_msgs + ci.path[2].send_q_msgs, 0);
	world_free(w);
}

/* Both directions, every path, segments lost and connections reset at
 * random, plus all paths killed at once now and then. */
static void run_lossy(uint64_t seed, uint32_t loss_ppm, uint32_t reset_ppm, uint32_t per_flow,
		      enum rdsu_path_rule rule)
{
	struct rdsu_sim_cfg sc;
	struct world *w;
	struct flow f[8];
	unsigned nf = 0;
	uint16_t port = 4000;

	rdsu_sim_cfg_default(&sc);
	sc.loss_ppm = loss_ppm;
	sc.reset_ppm = reset_ppm;
	w = world_new2rf(seed, WIRE_KVER_7, WIRE_KVER_7, &sc, 0, 0, rule);
	/* four flows each way, on distinct paths */
	for (unsigned p = 0; p < 8; p += 2) {
		while (rdsu_path_of(rule, port, port, 0, 8) != p)
			port++;
		f[nf++] = (struct flow){ sock_bound(w, w->a, port), sock_bound(w, w->b, port),
					 w->a, w->b, port, 0, 0, per_flow, seed + p };
		port++;
		while (rdsu_path_of(rule, port, port, 0, 8) != p + 1)
			port++;
		f[nf++] = (struct flow){ sock_bound(w, w->b, port), sock_bound(w, w->a, port),
					 w->b, w->a, port, 0, 0, per_flow, seed + p + 1 };
		port++;
	}
	for (int round = 0; round < 200000; round++) {
		bool done = true;

		for (unsigned i = 0; i < nf; i++) {
			flow_send(&f[i], rdsu_sim_now(w->sim));
			done &= f[i].got == f[i].total;
		}
		if (done)
			break;
		rdsu_sim_run_for(w->sim, 300000);
		for (unsigned i = 0; i < nf; i++)
			flow_recv(&f[i], rdsu_sim_now(w->sim));
		if (round % 500 == 499)
			rdsu_sim_reset_conns(w->sim, round % 1000 == 999 ? w->b : w->a,
					     round % 1000 == 999 ? w->a : w->b, 0xff);
	}
	rdsu_sim_set_faults(w->sim, 0, 0);
	world_idle(w, 120 * RDSU_SEC);
	for (unsigned i = 0; i < nf; i++) {
		flow_recv(&f[i], rdsu_sim_now(w->sim));
		assert_int_equal(f[i].got, f[i].total);
	}
	assert_true(paths_up(w, w->a, w->b) == 8 && paths_up(w, w->b, w->a) == 8);
	check_retransmits(&w->tap, w->a);
	check_retransmits(&w->tap, w->b);
	assert_int_equal(w->tap.errors, 0);
	world_free(w);
}

static void test_reconnect_lossy_both_ways(void **state)
{
	(void)state;
	run_lossy(21, 20000, 3000, 400, RDSU_PATH_BY_PORT);
}

static void test_reconnect_lossy_other_seed(void **state)
{
	(void)state;
	run_lossy(22, 50000, 1000, 300, RDSU_PATH_BY_PORT);
}

/* librds's default rule: the same losses and resets, exactly once and in
 * order per socket pair. */
static void test_reconnect_lossy_pair_rule(void **state)
{
	(void)state;
	run_lossy(23, 20000, 3000, 400, RDSU_PATH_BY_PAIR);
}

/*
 * A 6.x acceptor gives an incoming connection the first free slot, and
 * its duplicate check is per slot. ss -K kills the connections one after
 * another; a connector that reconnects each path as soon as it dies lands
 * path k in the slot of a path killed just after it, and its resent
 * copies then pass as new messages (lab-librds-6.1 saw this: messages
 * 6643.. delivered twice). Paths must come back in index order, one at a
 * time, once the peer has seen all of them go.
 */
static void run_staggered_kills(uint64_t seed, uint32_t per_flow)
{
	struct world *w = world_new2(seed, WIRE_KVER_6, WIRE_KVER_6, NULL);
	struct rdsu_conn_info ca, cb;
	struct flow f[8];
	uint16_t port = 4000;
	uint64_t rng = seed;
	int kills = 0;

	for (unsigned p = 0; p < 8; p++) {
		while (rdsu_mprds_hash(port, 0, 8) != p)
			port++;
		f[p] = (struct flow){ sock_bound(w, w->a, port), sock_bound(w, w->b, port),
				      w->a, w->b, port, 0, 0, per_flow, seed + p };
		rdsu_sock_set_sndbuf(f[p].tx, 256 * 1024, 0);
		port++;
	}
	for (int round = 0; round < 200000; round++) {
		bool done = true;

		for (unsigned i = 0; i < 8; i++) {
			flow_send(&f[i], rdsu_sim_now(w->sim));
			done &= f[i].got == f[i].total;
		}
		if (done)
			break;
		rdsu_sim_run_for(w->sim, 200000);
		for (unsigned i = 0; i < 8; i++)
			flow_recv(&f[i], rdsu_sim_now(w->sim));
		if (round % 2 != 1 || kills >= 20)
			continue;
		/* every path, in a random order, a few microseconds apart */
		uint8_t order[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };

		for (unsigned i = 7; i > 0; i--) {
			unsigned j;
			uint8_t t;

			rng = rng * 6364136223846793005ull + 1442695040888963407ull;
			j = (unsigned)(rng >> 33) % (i + 1);
			t = order[i];
			order[i] = order[j];
			order[j] = t;
		}
		for (unsigned i = 0; i < 8; i++) {
			for (unsigned k = 0; k < 8; k++)
				flow_send(&f[k], rdsu_sim_now(w->sim));
			rdsu_sim_reset_conns(w->sim, w->a, w->b, (uint8_t)(1u << order[i]));
			rng = rng * 6364136223846793005ull + 1442695040888963407ull;
			rdsu_sim_run_for(w->sim, 5000 + (rng >> 33) % 150000);
		}
		kills++;
	}
	world_idle(w, 120 * RDSU_SEC);
	for (unsigned i = 0; i < 8; i++) {
		flow_recv(&f[i], rdsu_sim_now(w->sim));
		assert_int_equal(f[i].got, f[i].total);
	}
	assert_int_equal(kills, 20);
	assert_true(stat_of(w, w->a, RDSU_STAT_SEND_RETRANSMITTED) > 0);
	/* both sides agree which connection is which path */
	conn_info(w, w->a, w->b, &ca);
	conn_info(w, w->b, w->a, &cb);
	for (unsigned i = 0; i < 8; i++) {
		assert_int_equal(ca.path[i].state, RDSU_PATH_UP);
		assert_int_equal(ca.path[i].local_sport, cb.path[i].peer_sport);
	}
	world_free(w);
}

static void test_reconnect_6x_staggered_kills(void **state)
{
	(void)state;
	for (uint64_t seed = 41; seed < 45; seed++)
		run_staggered_kills(seed, 4000);
}

/* Only the smaller address reconnects, on capped exponential backoff:
 * with B off the network for 20 s, A keeps trying on every path, but the
 * attempts thin out to about one every 0.5 s (random below a 1 s cap)
 * instead of one per millisecond; when B is back everything comes up. */
static void test_reconnect_backoff_capped(void **state)
{
	struct rdsu_sock *sa, *sb;
	struct world *w = world_socks(31, &sa, 4000, &sb, 5000);
	struct rdsu_sim_stats s0, s1;
	struct rdsu_conn_info ci;
	uint64_t tries;

	(void)state;
	deliver_one(w, sa, w->b, 5000, sb, 100);
	rdsu_sim_get_stats(w->sim, &s0);
	rdsu_sim_set_down(w->sim, w->b, true);
	rdsu_sim_run_for(w->sim, 20 * RDSU_SEC);
	rdsu_sim_get_stats(w->sim, &s1);
	tries = s1.connects - s0.connects;
	/* 8 paths, each capped at 1 s between tries: at least ~19 each; with
	 * a fixed 1 ms delay it would be thousands */
	assert_true(tries >= 8 * 19);
	assert_true(tries <= 8 * 80);
	conn_info(w, w->a, w->b, &ci);
	for (unsigned i = 0; i < 8; i++) {
		assert_true(ci.path[i].backoff == RDSU_SEC);
		assert_int_equal(ci.path[i].state == RDSU_PATH_UP, 0);
	}
	/* the larger side never tried */
	assert_true(stat_of(w, w->b, RDSU_STAT_CONNECT_REQ) == 0);

	rdsu_sim_set_down(w->sim, w->b, false);
	rdsu_sim_run_for(w->sim, 2 * RDSU_SEC);
	assert_int_equal(paths_up(w, w->a, w->b), 8);
	conn_info(w, w->a, w->b, &ci);
	for (unsigned i = 0; i < 8; i++)
		assert_true(ci.path[i].backoff == 0);
	world_free(w);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_reconnect_single_path_resets),
	cmocka_unit_test(test_reconnect_lossy_both_ways),
	cmocka_unit_test(test_reconnect_lossy_other_seed),
	cmocka_unit_test(test_reconnect_lossy_pair_rule),
	cmocka_unit_test(test_reconnect_backoff_capped),
	cmocka_unit_test(test_reconnect_6x_staggered_kills))
