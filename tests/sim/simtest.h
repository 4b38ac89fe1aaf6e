/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * simtest.h - helpers shared by the simulation tests: two (or more) nodes
 * on the simulator, numbered messages whose content and order can be
 * checked, and a wire tap that deframes every byte stream with libwire so
 * tests can assert what went on the wire. Include after cmocka.h.
 */
#ifndef SIMTEST_H
#define SIMTEST_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rds/rdsu.h>
#include <wire/wire.h>

#include "sim.h"

#define ADDR_A 0x0a000001u /* 10.0.0.1: the smaller address, it connects */
#define ADDR_B 0x0a000002u /* 10.0.0.2 */

/* ------------------------------------------------------------------------
 * Wire tap
 */

struct wrec {
	int from, to;
	uint32_t conn;
	uint8_t path;           /* the connector's path index */
	struct wire_hdr h;
	uint32_t len;
	uint8_t first;          /* first payload byte, 0 if none */
};

struct tstream {
	int from;
	uint32_t conn;
	uint8_t path;
	int to;
	struct wire_deframer d;
	uint8_t *gather;
};

struct tap {
	struct tstream *st;
	size_t n_st, cap_st;
	struct wrec *r;
	size_t n, cap;
	int errors;
};

static inline void tap_fn(void *ud, int from, int to, uint32_t conn, uint8_t path,
			  const uint8_t *p, size_t n)
{
	struct tap *t = ud;
	struct tstream *s = NULL;
	size_t used = 0;

	for (size_t i = t->n_st; i-- > 0;)
		if (t->st[i].conn == conn && t->st[i].from == from) {
			s = &t->st[i];
			break;
		}
	if (!s) {
		if (t->n_st == t->cap_st) {
			t->cap_st = t->cap_st ? 2 * t->cap_st : 16;
			t->st = realloc(t->st, t->cap_st * sizeof(*t->st));
		}
		s = &t->st[t->n_st++];
		memset(s, 0, sizeof(*s));
		s->from = from;
		s->to = to;
		s->conn = conn;
		s->path = path;
		s->gather = malloc(WIRE_MAX_MSG_LEN);
		wire_deframer_init(&s->d, 0, s->gather, WIRE_MAX_MSG_LEN);
	}
	while (used < n) {
		struct wire_frame f;
		bool ready;
		ssize_t k = wire_deframer_input(&s->d, p + used, n - used, &f, &ready);

		if (k < 0) {
			t->errors++;
			return;
		}
		used += (size_t)k;
		if (!ready)
			continue;
		if (t->n == t->cap) {
			t->cap = t->cap ? 2 * t->cap : 1024;
			t->r = realloc(t->r, t->cap * sizeof(*t->r));
		}
		t->r[t->n++] = (struct wrec){ from, to, conn, path, f.hdr, f.len,
					      f.len ? f.payload[0] : 0 };
	}
}

static inline void tap_free(struct tap *t)
{
	for (size_t i = 0; i < t->n_st; i++)
		free(t->st[i].gather);
	free(t->st);
	free(t->r);
	memset(t, 0, sizeof(*t));
}

/* ------------------------------------------------------------------------
 * Nodes
 */

struct world {
	struct rdsu_sim *sim;
	int a, b;
	struct tap tap;
};

static inline void node_cfg(struct rdsu_ep_cfg *c, uint32_t addr, enum wire_kver kv, uint32_t gen,
			    enum rdsu_path_rule rule)
{
	rdsu_ep_cfg_default(c);
	c->laddrs[0] = rdsu_addr_v4(addr);
	c->n_laddrs = 1;
	c->kver = kv;
	c->gen_num = gen;
	c->seed = addr * 7919u + gen;
	c->path_rule = rule;
}

/* world_cfgs() - the configurations of node a = 10.0.0.1 (kva) and node
 * b = 10.0.0.2 (kvb), in |c|[0] and |c|[1]. */
static inline void world_cfgs(struct rdsu_ep_cfg c[2], enum wire_kver kva, enum wire_kver kvb,
			      enum rdsu_path_rule rule)
{
	node_cfg(&c[0], ADDR_A, kva, 0x11111111u, rule);
	node_cfg(&c[1], ADDR_B, kvb, 0x22222222u, rule);
}

/* world_new_nodes() - nodes a and b of configurations |c| on a simulator of
 * |scfg| (NULL: the default) with |seed|; with |tap|, every byte on the
 * wire deframed into w->tap. */
static inline struct world *world_new_nodes(uint64_t seed, const struct rdsu_sim_cfg *scfg,
					    const struct rdsu_ep_cfg c[2], bool tap)
{
	struct world *w = calloc(1, sizeof(*w));
	struct rdsu_sim_cfg sc;

	if (scfg)
		sc = *scfg;
	else
		rdsu_sim_cfg_default(&sc);
	sc.seed = seed;
	if (rdsu_sim_new(&w->sim, &sc))
		abort();
	w->a = rdsu_sim_add_node(w->sim, &c[0]);
	w->b = rdsu_sim_add_node(w->sim, &c[1]);
	if (w->a != 0 || w->b != 1)
		abort();
	if (tap)
		rdsu_sim_set_tap(w->sim, tap_fn, &w->tap);
	return w;
}

/* Two nodes (world_cfgs()) with the faulty-peer defects |fa| and |fb|
 * (rdsu_ep_cfg.faults; 0 for a correct node), the wire tapped. */
static inline struct world *world_new2rf(uint64_t seed, enum wire_kver kva, enum wire_kver kvb,
					 const struct rdsu_sim_cfg *scfg, uint32_t fa, uint32_t fb,
					 enum rdsu_path_rule rule)
{
	struct rdsu_ep_cfg c[2];

	world_cfgs(c, kva, kvb, rule);
	c[0].faults = fa;
	c[1].faults = fb;
	return world_new_nodes(seed, scfg, c, true);
}

/* The scenarios pick their ports by the kernel's path rule, as the lab's
 * do; tests of librds's own rule call world_new2rf. */
static inline struct world *world_new2f(uint64_t seed, enum wire_kver kva, enum wire_kver kvb,
					const struct rdsu_sim_cfg *scfg, uint32_t fa, uint32_t fb)
{
	return world_new2rf(seed, kva, kvb, scfg, fa, fb, RDSU_PATH_BY_PORT);
}

/* Two correct nodes: a = 10.0.0.1 (kva), b = 10.0.0.2 (kvb). */
static inline struct world *world_new2(uint64_t seed, enum wire_kver kva, enum wire_kver kvb,
				       const struct rdsu_sim_cfg *scfg)
{
	return world_new2f(seed, kva, kvb, scfg, 0, 0);
}

static inline void world_free(struct world *w)
{
	rdsu_sim_free(w->sim);
	tap_free(&w->tap);
	free(w);
}

/* world_idle() - run |w| until nothing is left to do, which must come
 * within |within| of now. */
static inline void world_idle(struct world *w, rdsu_ns within)
{
	assert_int_equal(rdsu_sim_run_idle(w->sim, rdsu_sim_now(w->sim) + within), 0);
}

static inline struct rdsu_ep *EP(struct world *w, int node)
{
	return rdsu_sim_ep(w->sim, node);
}

static inline struct rdsu_addr node_addr(int node)
{
	return rdsu_addr_v4(node == 0 ? ADDR_A : node == 1 ? ADDR_B : 0x0a000001u + (uint32_t)node);
}

static inline struct rdsu_sock *sock_bound(struct world *w, int node, uint16_t port)
{
	struct rdsu_sock *s;
	struct rdsu_addr a = node_addr(node);

	if (rdsu_sock_new(EP(w, node), &s) || rdsu_sock_bind(s, &a, port))
		abort();
	return s;
}

/* sock_bound_ib() - sock_bound() on the IB transport (set before the bind). */
static inline struct rdsu_sock *sock_bound_ib(struct world *w, int node, uint16_t port)
{
	struct rdsu_sock *s;
	struct rdsu_addr a = node_addr(node);

	assert_int_equal(rdsu_sock_new(EP(w, node), &s), 0);
	assert_int_equal(rdsu_sock_set_transport(s, RDSU_TRANS_IB), 0);
	assert_int_equal(rdsu_sock_bind(s, &a, port), 0);
	return s;
}

static inline rdsu_ns world_now(struct world *w)
{
	return rdsu_sim_now(w->sim);
}

/* world_socks() - world_new2(|seed|, 7.x both, NULL) with a socket on a at
 * |pa| (*|sa|) and one on b at |pb| (*|sb|): where most scenarios start. */
static inline struct world *world_socks(uint64_t seed, struct rdsu_sock **sa, uint16_t pa,
					struct rdsu_sock **sb, uint16_t pb)
{
	struct world *w = world_new2(seed, WIRE_KVER_7, WIRE_KVER_7, NULL);

	*sa = sock_bound(w, w->a, pa);
	*sb = sock_bound(w, w->b, pb);
	return w;
}

/* ------------------------------------------------------------------------
 * Numbered messages: [be32 index][be32 len][bytes f(index, i)]
 */

static inline uint8_t pat(uint32_t idx, uint32_t i)
{
	return (uint8_t)(idx * 131u + i * 7u + 3u);
}

static inline size_t msg_make(uint8_t *buf, uint32_t idx, uint32_t len)
{
	if (len < 8) {
		for (uint32_t i = 0; i < len; i++)
			buf[i] = pat(idx, i);
		return len;
	}
	buf[0] = (uint8_t)(idx >> 24);
	buf[1] = (uint8_t)(idx >> 16);
	buf[2] = (uint8_t)(idx >> 8);
	buf[3] = (uint8_t)idx;
	buf[4] = (uint8_t)(len >> 24);
	buf[5] = (uint8_t)(len >> 16);
	buf[6] = (uint8_t)(len >> 8);
	buf[7] = (uint8_t)len;
	for (uint32_t i = 8; i < len; i++)
		buf[i] = pat(idx, i);
	return len;
}

/* Return the index in a message of >= 8 bytes, or -1 if the content is not
 * what msg_make() wrote. */
static inline long msg_check(const uint8_t *buf, size_t len)
{
	uint32_t idx, l;

	if (len < 8)
		return -1;
	idx = (uint32_t)buf[0] << 24 | (uint32_t)buf[1] << 16 | (uint32_t)buf[2] << 8 | buf[3];
	l = (uint32_t)buf[4] << 24 | (uint32_t)buf[5] << 16 | (uint32_t)buf[6] << 8 | buf[7];
	if (l != len)
		return -1;
	for (uint32_t i = 8; i < len; i++)
		if (buf[i] != pat(idx, i))
			return -1;
	return (long)idx;
}

static inline int send_msg(struct rdsu_sock *s, int to_node, uint16_t dport, uint32_t idx,
			   uint32_t len, rdsu_ns now)
{
	static uint8_t buf[WIRE_MAX_MSG_LEN + 64];
	struct rdsu_addr dst = node_addr(to_node);
	struct iovec iov = { buf, 0 };

	if (len > sizeof(buf))
		abort();
	iov.iov_len = msg_make(buf, idx, len);

	return rdsu_sock_submit(s, &dst, dport, &iov, 1, now);
}

/* Read one message; returns its length or a negative errno. */
static inline ssize_t read_msg(struct rdsu_sock *s, uint8_t *buf, size_t cap,
			       struct rdsu_rxinfo *info, rdsu_ns now)
{
	struct iovec iov = { buf, cap };

	return rdsu_sock_read(s, &iov, 1, 0, info, now);
}

/* deliver_one() - message 0 of |len| bytes from |tx| to node |to| port
 * |dport|, through within a second and read at |rx|. */
static inline void deliver_one(struct world *w, struct rdsu_sock *tx, int to, uint16_t dport,
			       struct rdsu_sock *rx, uint32_t len)
{
	uint8_t buf[256];
	struct rdsu_rxinfo info;

	assert_true(len <= sizeof(buf));
	assert_int_equal(send_msg(tx, to, dport, 0, len, rdsu_sim_now(w->sim)), (int)len);
	world_idle(w, RDSU_SEC);
	assert_int_equal(read_msg(rx, buf, sizeof(buf), &info, 0), (ssize_t)len);
}

static inline size_t count_recs(const struct tap *t, int from, int (*pred)(const struct wrec *))
{
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++)
		if ((from < 0 || t->r[i].from == from) && pred(&t->r[i]))
			n++;
	return n;
}

static inline int is_map(const struct wrec *r)
{
	return wire_classify(&r->h, WIRE_XPORT_TCP) == WIRE_KIND_CONG;
}

static inline int is_probe_ping(const struct wrec *r)
{
	return wire_classify(&r->h, WIRE_XPORT_TCP) == WIRE_KIND_PROBE_PING;
}

static inline int is_probe_pong(const struct wrec *r)
{
	return wire_classify(&r->h, WIRE_XPORT_TCP) == WIRE_KIND_PROBE_PONG;
}

static inline int is_data(const struct wrec *r)
{
	return wire_classify(&r->h, WIRE_XPORT_TCP) == WIRE_KIND_DATA;
}

static inline void conn_info(struct world *w, int node, int peer, struct rdsu_conn_info *ci)
{
	struct rdsu_addr l = node_addr(node), f = node_addr(peer);

	if (rdsu_ep_conn_get(EP(w, node), &l, &f, ci))
		memset(ci, 0, sizeof(*ci));
}

static inline unsigned paths_up(struct world *w, int node, int peer)
{
	struct rdsu_conn_info ci;
	unsigned n = 0;

	conn_info(w, node, peer, &ci);
	for (unsigned i = 0; i < WIRE_MAX_PATHS; i++)
		if (ci.path[i].state == RDSU_PATH_UP)
			n++;
	return n;
}

static inline uint64_t stat_of(struct world *w, int node, enum rdsu_stat st)
{
	struct rdsu_stats s;

	rdsu_ep_get_stats(EP(w, node), &s);
	return s.v[st];
}

#endif /* SIMTEST_H */
