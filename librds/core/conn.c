// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * conn.c - connections (one per local/peer address pair) and how incoming
 * TCP connections are given path slots.
 * Ref: net/rds/connection.c __rds_conn_create() (a connection lives until
 * the endpoint goes; sequence numbers survive reconnects),
 * net/rds/tcp_listen.c rds_tcp_accept_one() and rds_tcp_accept_one_path()
 * (6.x: first free slot; 7.x: source port % npaths, stash when busy),
 * net/rds/send.c rds_check_all_paths().
 */
#include "core.h"

#include <string.h>

/* The transport is left out, so a lookup for any transport walks one
 * chain. */
static unsigned conn_hash(int lidx, const struct rdsu_addr *faddr)
{
	uint32_t h = 2166136261u ^ (uint32_t)lidx;

	for (unsigned i = 0; i < sizeof(faddr->a); i++)
		h = (h ^ faddr->a[i]) * 16777619u;
	return h % RDSU_HASH_BUCKETS;
}

/* The connection (lidx, faddr, trans); RDSU_TRANS_NONE: of any transport,
 * the first made. */
struct rdsu_conn *rdsu_conn_find(const struct rdsu_ep *ep, int lidx, const struct rdsu_addr *faddr,
				 unsigned trans)
{
	struct rdsu_conn *c = ep->conn_hash[conn_hash(lidx, faddr)], *any = NULL;

	for (; c; c = c->c_hash_next) {
		if (c->c_lidx != lidx || rdsu_addr_cmp(&c->c_faddr, faddr) != 0)
			continue;
		if (c->c_tp->id == trans)
			return c;
		if (trans == RDSU_TRANS_NONE && (!any || c->c_index < any->c_index))
			any = c;
	}
	return any;
}

/* A free index of ep->conns, growing it when none is. Return: the index,
 * or -1. */
static ssize_t conn_slot(struct rdsu_ep *ep)
{
	if (ep->n_live < ep->n_conns)
		for (size_t i = 0; i < ep->n_conns; i++)
			if (!ep->conns[i])
				return (ssize_t)i;
	if (ep->n_conns > RDSU_LINK_CONN_MASK)
		return -1;
	if (ep->n_conns == ep->cap_conns) {
		size_t cap = ep->cap_conns ? ep->cap_conns * 2 : 8;
		struct rdsu_conn **v = rdsu_mem_alloc(ep, cap * sizeof(*v));

		if (!v)
			return -1;
		if (ep->n_conns)
			memcpy(v, ep->conns, ep->n_conns * sizeof(*v));
		rdsu_mem_free(ep, ep->conns);
		ep->conns = v;
		ep->cap_conns = cap;
	}
	ep->conns[ep->n_conns] = NULL;
	return (ssize_t)ep->n_conns++;
}

struct rdsu_conn *rdsu_conn_get(struct rdsu_ep *ep, int lidx, const struct rdsu_addr *faddr,
				unsigned trans, rdsu_ns now)
{
	const struct rdsu_tprops *tp = rdsu_tprops_get(trans);
	struct rdsu_conn *c;
	ssize_t at;
	unsigned h;

	if (!tp)
		return NULL;
	c = rdsu_conn_find(ep, lidx, faddr, trans);
	if (c)
		return c;
	if (ep->n_live >= ep->cfg.max_conns) {
		rdsu_stat_inc(ep, RDSU_STAT_LIMIT_CONNS);
		return NULL;
	}
	c = rdsu_mem_zalloc(ep, sizeof(*c));
	if (!c)
		return NULL;
	at = conn_slot(ep);
	if (at < 0) {
		rdsu_mem_free(ep, c);
		return NULL;
	}
	c->c_ep = ep;
	c->c_index = (size_t)at;
	c->c_lidx = lidx;
	c->c_laddr = ep->cfg.laddrs[lidx];
	c->c_faddr = *faddr;
	c->c_tp = tp;
	/* Under RDSU_CONNECT_SMALLER only the smaller address ever connects
	 * (rds_addr_cmp use in rds_queue_reconnect and
	 * rds_tcp_accept_one_path: "avoid duels"). */
	c->c_active = tp->connect == RDSU_CONNECT_BOTH || rdsu_addr_cmp(&c->c_laddr, faddr) < 0;
	/* A transport that is not multipath capable has its one path from
	 * the start and never probes for more. */
	if (tp->max_paths == 1)
		c->c_npaths = 1;
	c->c_idle_since = now;
	c->c_ev.e_kind = RDSU_EVSRC_CONN;
	rdsu_list_init(&c->c_ev.e_item);
	for (unsigned i = 0; i < WIRE_MAX_PATHS; i++)
		rdsu_path_init(&c->c_path[i], c, (uint8_t)i);
	h = conn_hash(lidx, faddr);
	c->c_hash_next = ep->conn_hash[h];
	ep->conn_hash[h] = c;
	ep->conns[at] = c;
	ep->n_live++;
	return c;
}

static void conn_release(struct rdsu_ep *ep, struct rdsu_conn *c)
{
	for (unsigned p = 0; p < WIRE_MAX_PATHS; p++)
		rdsu_path_fini(&c->c_path[p]);
	rdsu_ep_ev_cancel(&c->c_ev);
	rdsu_mem_free(ep, c->c_rx_seen);
	rdsu_mem_free(ep, c);
}

void rdsu_conn_free_all(struct rdsu_ep *ep)
{
	for (size_t i = 0; i < ep->n_conns; i++)
		if (ep->conns[i])
			conn_release(ep, ep->conns[i]);
	ep->n_conns = 0;
	ep->n_live = 0;
	memset(ep->conn_hash, 0, sizeof(ep->conn_hash));
}

/* Links of |c|: on its paths (connecting or up) and held. */
unsigned rdsu_conn_links(const struct rdsu_conn *c)
{
	unsigned n = c->c_n_held;

	for (unsigned i = 0; i < WIRE_MAX_PATHS; i++)
		n += c->c_path[i].cp_link != 0;
	return n;
}

/*
 * Whether |c| may be forgotten: it never had a path up (so neither side
 * has taken a sequence number of the other's), no path is carried by a
 * peer's connection, none is held, and no data of ours is queued or
 * unacknowledged for the peer (control messages, pongs and probes, go
 * with it). Our own connects still in flight are abandoned.
 */
static bool conn_unused(const struct rdsu_conn *c)
{
	if (c->c_was_up || c->c_n_held || c->c_data_msgs)
		return false;
	for (unsigned i = 0; i < WIRE_MAX_PATHS; i++) {
		const struct rdsu_path *cp = &c->c_path[i];

		if (cp->cp_state == RDSU_PATH_UP || (cp->cp_link && !cp->cp_outgoing))
			return false;
	}
	return true;
}

/* Drop |c| from the table and free it. The kernel never does (a
 * connection lives as long as the module): a peer that kicked us once
 * from an address nobody listens on was retried for ever. Only such
 * peers go (conn_unused): one that had a path up may have taken our
 * messages up to a sequence number we would reuse, or owe us resends we
 * would take a second time. */
static void conn_give_up(struct rdsu_conn *c)
{
	struct rdsu_ep *ep = c->c_ep;
	struct rdsu_conn **pp = &ep->conn_hash[conn_hash(c->c_lidx, &c->c_faddr)];

	for (unsigned i = 0; i < WIRE_MAX_PATHS; i++) {
		struct rdsu_path *cp = &c->c_path[i];

		if (!cp->cp_link)
			continue;
		rdsu_path_connecting_done(cp);
		rdsu_ep_close_link(ep, cp->cp_link, false);
		cp->cp_link = 0;
		ep->n_links--;
	}
	while (*pp != c)
		pp = &(*pp)->c_hash_next;
	*pp = c->c_hash_next;
	ep->conns[c->c_index] = NULL;
	ep->n_live--;
	rdsu_stat_inc(ep, RDSU_STAT_CONN_GIVEN_UP);
	conn_release(ep, c);
}

/* Whether |c|'s give_up timer runs: no path up since it was made or
 * last went down, never one up before, and no data of ours for it. */
static bool conn_may_give_up(const struct rdsu_conn *c)
{
	return c->c_idle_since != RDSU_NS_NEVER && c->c_ep->cfg.give_up != RDSU_NS_NEVER &&
	       !c->c_was_up && !c->c_data_msgs;
}

rdsu_ns rdsu_conn_deadline(const struct rdsu_conn *c)
{
	const struct rdsu_ep_cfg *cfg = &c->c_ep->cfg;
	rdsu_ns best = RDSU_NS_NEVER;

	for (unsigned p = 0; p < WIRE_MAX_PATHS; p++) {
		rdsu_ns d = rdsu_path_deadline(&c->c_path[p]);

		if (d < best)
			best = d;
	}
	if (conn_may_give_up(c) && c->c_idle_since + cfg->give_up < best)
		best = c->c_idle_since + cfg->give_up;
	return best;
}

int rdsu_conn_expire(struct rdsu_conn *c, rdsu_ns now)
{
	struct rdsu_ep *ep = c->c_ep;
	const struct rdsu_ep_cfg *cfg = &ep->cfg;
	int ran = 0;

	/* A held connection has no timer: the peer took it for its path
	 * when TCP said established and wrote on it, and TCP acknowledged
	 * what our socket buffered, so a reset would lose messages the peer
	 * has freed. It waits, as in the kernel's stash, for the slot's old
	 * connection to go; max_peer_links bounds how many a peer (or
	 * whoever uses its address) can have. One placed in a slot that
	 * then says nothing RDS meets handshake_timeout there. */
	for (unsigned p = 0; p < WIRE_MAX_PATHS; p++)
		ran += rdsu_path_expire(&c->c_path[p], now);
	if (!conn_may_give_up(c) || now < c->c_idle_since + cfg->give_up)
		return ran;
	if (!conn_unused(c)) {
		/* A peer's connection is held or up: looked at again after
		 * another give_up. */
		c->c_idle_since = now;
		return ran;
	}
	conn_give_up(c);
	return ran + 1;
}

/*
 * Whether connections are filed in arrival order: a 6.x acceptor gives
 * each the first free slot; 7.x does so too unless both probes carried
 * SPORT_IDX; we do as the kernel we play. The duplicate check is per slot,
 * so a connection that lands in another path's slot lets that path's
 * resent copies through as new messages, or drops new ones as old.
 */
bool rdsu_conn_slots_by_order(const struct rdsu_conn *c)
{
	return c->c_ep->cfg.kver == WIRE_KVER_6 || !c->c_with_sport_idx;
}

/*
 * Find what a link id names. Return: 1 and *cp for a path's link, 0 with
 * *cp NULL for a held link, RDSU_ERR_CLOSED if the core does not know it.
 */
int rdsu_conn_find_link(struct rdsu_ep *ep, uint64_t link, struct rdsu_conn **cout,
			struct rdsu_path **cp)
{
	uint64_t idx = link & RDSU_LINK_CONN_MASK;
	struct rdsu_conn *c;

	*cp = NULL;
	if (!link || idx >= ep->n_conns || !ep->conns[idx])
		return RDSU_ERR_CLOSED;
	c = ep->conns[idx];
	*cout = c;
	for (unsigned i = 0; i < WIRE_MAX_PATHS; i++)
		if (c->c_path[i].cp_link == link) {
			*cp = &c->c_path[i];
			return 1;
		}
	for (unsigned i = 0; i < c->c_n_held; i++)
		if (c->c_held[i].link == link)
			return 0;
	return RDSU_ERR_CLOSED;
}

void rdsu_conn_event(struct rdsu_conn *c)
{
	rdsu_ep_ev_queue(c->c_ep, &c->c_ev);
}

/*
 * Which slot an incoming connection from the smaller peer takes, or -1.
 * 6.x (rds_tcp_accept_one_path): the first DOWN slot among
 * max(1, c_npaths). 7.x with the peer's SPORT_IDX: only slot
 * sport % npaths. In both, a slot holding our own outgoing attempt (the
 * larger side's kick on path 0) is taken over: that is the duelling-SYN
 * case rds_tcp_accept_one resolves by swapping in the new socket.
 */
int rdsu_conn_pick_slot(struct rdsu_conn *c, uint16_t peer_sport)
{
	unsigned n = c->c_npaths ? c->c_npaths : 1;
	struct rdsu_path *cp;

	if (c->c_ep->cfg.kver != WIRE_KVER_6 && c->c_with_sport_idx) {
		unsigned i = peer_sport % n;

		cp = &c->c_path[i];
		if (cp->cp_state == RDSU_PATH_DOWN ||
		    (cp->cp_state == RDSU_PATH_CONNECTING && cp->cp_outgoing))
			return (int)i;
		return -1;
	}
	for (unsigned i = 0; i < n; i++)
		if (c->c_path[i].cp_state == RDSU_PATH_DOWN)
			return (int)i;
	cp = &c->c_path[0];
	if (cp->cp_state == RDSU_PATH_CONNECTING && cp->cp_outgoing)
		return 0;
	return -1;
}

/* Whether a connection that found no slot waits for one: 7.x stashes it,
 * 6.x resets it. */
static bool conn_may_hold(const struct rdsu_conn *c)
{
	return c->c_ep->cfg.kver != WIRE_KVER_6;
}

int rdsu_conn_accept(struct rdsu_conn *c, uint64_t link, uint16_t peer_sport, rdsu_ns now)
{
	struct rdsu_ep *ep = c->c_ep;
	int slot;

	if (rdsu_conn_links(c) >= ep->cfg.max_peer_links) {
		rdsu_stat_inc(ep, RDSU_STAT_LIMIT_PEER_LINKS);
		return RDSU_ERR_REFUSED;
	}
	if (ep->n_links >= ep->cfg.max_links) {
		rdsu_stat_inc(ep, RDSU_STAT_LIMIT_LINKS);
		return RDSU_ERR_REFUSED;
	}
	slot = rdsu_conn_pick_slot(c, peer_sport);
	if (slot >= 0) {
		if (rdsu_conn_attach(c, slot, link, peer_sport, now) < 0)
			return RDSU_ERR_NOMEM;
		return RDSU_ACCEPT_UP;
	}
	if (conn_may_hold(c)) {
		if (!rdsu_conn_hold(c, link, peer_sport, now)) {
			/* one per path already waits: a per-peer bound too */
			rdsu_stat_inc(ep, RDSU_STAT_LIMIT_PEER_LINKS);
			return RDSU_ERR_REFUSED;
		}
		rdsu_stat_inc(ep, RDSU_STAT_ACCEPT_HELD);
		return RDSU_ACCEPT_HELD;
	}
	return RDSU_ERR_REFUSED;
}

int rdsu_conn_attach(struct rdsu_conn *c, int slot, uint64_t link, uint16_t peer_sport,
		     rdsu_ns now)
{
	struct rdsu_path *cp = &c->c_path[slot];

	if (cp->cp_link) {
		/* Our own kick loses to the peer's connection. */
		rdsu_ep_req_clear(cp, RDSU_REQ_CONNECT);
		rdsu_path_connecting_done(cp);
		rdsu_ep_close_link(c->c_ep, cp->cp_link, false);
	} else {
		c->c_ep->n_links++;
	}
	cp->cp_link = link;
	cp->cp_outgoing = false;
	cp->cp_peer_sport = peer_sport;
	cp->cp_local_sport = RDSU_TCP_PORT;
	cp->cp_link_at = now;
	/* What a stream peer sends is all a connection's credentials (see
	 * rdsu_path_proven); a frame transport's handshake came first. */
	cp->cp_proven = c->c_tp->framing != RDSU_FRAMING_STREAM;
	rdsu_path_up(cp, now);
	return 0;
}

bool rdsu_conn_hold(struct rdsu_conn *c, uint64_t link, uint16_t sport, rdsu_ns now)
{
	if (c->c_n_held == WIRE_MAX_PATHS)
		return false;
	c->c_held[c->c_n_held].link = link;
	c->c_held[c->c_n_held].at = now;
	c->c_held[c->c_n_held].sport = sport;
	c->c_n_held++;
	c->c_ep->n_links++;
	return true;
}

void rdsu_conn_unhold(struct rdsu_conn *c, uint64_t link)
{
	for (unsigned i = 0; i < c->c_n_held; i++)
		if (c->c_held[i].link == link) {
			for (unsigned j = i + 1; j < c->c_n_held; j++)
				c->c_held[j - 1] = c->c_held[j];
			c->c_n_held--;
			c->c_ep->n_links--;
			return;
		}
}

/* Slots may have come free, or the path count became known: give them to
 * held links in arrival order (rds_tcp_conn_slots_available). */
void rdsu_conn_retry_held(struct rdsu_conn *c, rdsu_ns now)
{
	unsigned i = 0;

	while (i < c->c_n_held) {
		uint64_t link = c->c_held[i].link;
		uint16_t sport = c->c_held[i].sport;
		int slot = rdsu_conn_pick_slot(c, sport);

		if (slot < 0) {
			i++;
			continue;
		}
		rdsu_conn_unhold(c, link);
		if (rdsu_conn_attach(c, slot, link, sport, now) < 0) {
			rdsu_ep_close_link(c->c_ep, link, true);
			continue;
		}
		rdsu_ep_req(&c->c_path[slot], RDSU_REQ_ATTACH);
	}
}

/* rds_check_all_paths: bring up every negotiated path. */
void rdsu_conn_check_all_paths(struct rdsu_conn *c, rdsu_ns now)
{
	unsigned n = c->c_npaths ? c->c_npaths : 1;

	for (unsigned i = 0; i < n; i++)
		rdsu_path_connect_if_down(&c->c_path[i], now);
}

void rdsu_conn_info_fill(const struct rdsu_conn *c, struct rdsu_conn_info *out)
{
	memset(out, 0, sizeof(*out));
	out->laddr = c->c_laddr;
	out->faddr = c->c_faddr;
	out->we_connect = c->c_active;
	out->transport = c->c_tp->id;
	out->npaths = c->c_npaths;
	out->my_gen = c->c_ep->cfg.gen_num;
	out->peer_gen = c->c_peer_gen;
	out->peer_sport_idx = c->c_with_sport_idx;
	out->probe_pending = c->c_probe_pending;
	out->fanout_hold = c->c_fence != RDSU_FENCE_NONE || c->c_cp0_catchup;
	out->held_links = c->c_n_held;
	out->peer_congested = (uint32_t)wire_cong_count(&c->c_fcong);
	for (unsigned i = 0; i < WIRE_MAX_PATHS; i++)
		rdsu_path_info_fill(&c->c_path[i], &out->path[i]);
}
