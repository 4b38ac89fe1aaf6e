/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * sim.h - librds endpoints connected by in-memory TCP connections on a
 * virtual clock: a transport that honours the contract in docs/librds.md,
 * for tests and for rds-conform's self-test.
 *
 * Every node is one rdsu_ep listening on RDSU_TCP_PORT of its addresses.
 * A connection is modelled as TCP sees it: two ordered byte streams cut
 * into segments of random size, each arriving after latency plus jitter
 * (never before an earlier segment of the same stream; streams of
 * different connections overtake each other, so messages on different
 * paths arrive in any order), acknowledged one latency after the receiver
 * consumed it, with a window on unacknowledged bytes. Faults: a "lost"
 * segment arrives one RTO late (TCP resends it); a reset segment kills
 * the connection (RST) and everything still in flight; connections can be
 * reset on command; a node can reboot with a new generation number.
 * Everything random comes from the seed, so a run repeats exactly.
 */
#ifndef RDSU_SIM_H
#define RDSU_SIM_H

#include <rds/rdsu.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rdsu_sim;

struct rdsu_sim_cfg {
	uint64_t seed;
	rdsu_ns latency;        /* one-way delay (default 50 us) */
	rdsu_ns jitter;         /* up to this much more per segment (default 20 us) */
	uint32_t max_chunk;     /* segments are 1..max_chunk bytes (default 1448) */
	uint32_t window;        /* unacknowledged bytes per direction (default 256 KiB) */
	uint32_t loss_ppm;      /* per segment: arrives one rto late */
	uint32_t reset_ppm;     /* per segment: the connection is reset instead */
	rdsu_ns rto;            /* default 200 ms */
	uint16_t port_low;      /* source ports (default 32768..60999) */
	uint16_t port_high;
	rdsu_ns start;          /* initial virtual time (default 1 s) */
};

struct rdsu_sim_stats {
	uint64_t connects;      /* connections attempted */
	uint64_t accepted;      /* taken by the acceptor (up or held) */
	uint64_t refused;       /* reset by the acceptor */
	uint64_t resets;        /* connections killed by faults or commands */
	uint64_t losses;        /* segments delayed by a loss */
	uint64_t segments;
	uint64_t bytes;
};

typedef void (*rdsu_sim_event_fn)(void *ud, int node, const struct rdsu_event *ev);
/* |from| wrote |p|[0..n) on connection |conn| (connector's path |path|). */
typedef void (*rdsu_sim_tap_fn)(void *ud, int from, int to, uint32_t conn, uint8_t path,
				const uint8_t *p, size_t n);

void rdsu_sim_cfg_default(struct rdsu_sim_cfg *cfg);
/* Return: 0; RDSU_ERR_INVAL; RDSU_ERR_NOMEM. */
int rdsu_sim_new(struct rdsu_sim **out, const struct rdsu_sim_cfg *cfg);
void rdsu_sim_free(struct rdsu_sim *s);
/* rdsu_sim_add_node() - a new endpoint. Return: its node number (>= 0) or
 * an rdsu_ep_new() error. */
int rdsu_sim_add_node(struct rdsu_sim *s, const struct rdsu_ep_cfg *cfg);
struct rdsu_ep *rdsu_sim_ep(struct rdsu_sim *s, int node);
rdsu_ns rdsu_sim_now(const struct rdsu_sim *s);

/* Process everything due until |t|; afterwards now == t. Return: 0. */
int rdsu_sim_run_until(struct rdsu_sim *s, rdsu_ns t);
/* rdsu_sim_run_for() - rdsu_sim_run_until(now + d). */
int rdsu_sim_run_for(struct rdsu_sim *s, rdsu_ns d);
/*
 * rdsu_sim_run_idle() - run until nothing is in flight and no timer is
 * set, or until |limit|. Return: 0 when idle, RDSU_ERR_AGAIN at |limit|.
 */
int rdsu_sim_run_idle(struct rdsu_sim *s, rdsu_ns limit);

/* Change fault injection from now on. */
void rdsu_sim_set_faults(struct rdsu_sim *s, uint32_t loss_ppm, uint32_t reset_ppm);
/*
 * rdsu_sim_reset_conns() - node |a| kills (RST, as ss -K) its established
 * connections with node |b| whose connector's path index is in
 * |path_mask|. |a| learns at once, |b| one latency later.
 * Return: connections reset.
 */
int rdsu_sim_reset_conns(struct rdsu_sim *s, int a, int b, uint8_t path_mask);
/*
 * rdsu_sim_reboot() - node |node| restarts: its endpoint is freed and a
 * new one made from the same configuration with |gen_num|. Its peers learn
 * that their connections died one latency later.
 * Return: 0, or an rdsu_ep_new() error (the node is then down).
 */
int rdsu_sim_reboot(struct rdsu_sim *s, int node, uint32_t gen_num);

/*
 * rdsu_sim_set_down() - take node |node| off the network (|down|) or put it
 * back. While down nothing reaches it: its connections die (its peers
 * learn one latency later, it learns at once) and connection attempts to
 * it fail after one round trip.
 */
void rdsu_sim_set_down(struct rdsu_sim *s, int node, bool down);

/*
 * rdsu_sim_set_ib_credits() - node |node| posts |n| receive buffers on
 * each IB connection before it offers its private data, so it offers |n|
 * credits, and reposts one per frame it takes. 0 (the default): it offers
 * none, as the kernel, and the peer runs without flow control.
 */
void rdsu_sim_set_ib_credits(struct rdsu_sim *s, int node, uint32_t n);

/* What the fake HCA did (rdsu_sim_enable_rdma). */
struct rdsu_sim_rdma_stats {
	uint64_t regs, deregs;  /* regions registered, deregistered */
	uint64_t posted;        /* RDMA and atomics posted */
	uint64_t done;          /* carried out against the peer's memory */
	uint64_t refused;       /* refused by the responder (bad r_key, range) */
};

/*
 * rdsu_sim_enable_rdma() - node |node| gets a fake HCA under its IB links
 * (rdsu_ep_set_rdma for RDSU_TRANS_IB, kept across reboots): regions are
 * registered zero-based under r_keys unique in the simulation, and the
 * RDMA and atomics its core posts are carried out against the peer's
 * registered memory when their request segment arrives. A request the
 * peer cannot honour (no such r_key at the peer, out of the region's
 * range) completes REMOTE_ERROR and breaks the connection, as an RC QP
 * in error does; whatever is in flight dies with the connection.
 */
void rdsu_sim_enable_rdma(struct rdsu_sim *s, int node);
/* rdsu_sim_mr_count() - regions node |node|'s fake HCA holds. */
unsigned rdsu_sim_mr_count(const struct rdsu_sim *s, int node);
void rdsu_sim_get_rdma_stats(const struct rdsu_sim *s, struct rdsu_sim_rdma_stats *out);

void rdsu_sim_set_event_cb(struct rdsu_sim *s, rdsu_sim_event_fn fn, void *ud);
void rdsu_sim_set_tap(struct rdsu_sim *s, rdsu_sim_tap_fn fn, void *ud);
void rdsu_sim_get_stats(const struct rdsu_sim *s, struct rdsu_sim_stats *out);
/* Live connections between |a| and |b| (either direction). */
int rdsu_sim_count_conns(const struct rdsu_sim *s, int a, int b);

#ifdef __cplusplus
}
#endif

#endif /* RDSU_SIM_H */
