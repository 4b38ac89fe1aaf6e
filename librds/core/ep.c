// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ep.c - the endpoint: configuration, the two pulled queues (application
 * events, transport requests), timers, counters and the read-only monitor
 * views. Ref: net/rds/af_rds.c rds_init (one generation number per
 * instance), net/rds/sysctl.c (reconnect delays, ping_enable),
 * net/rds/stats.c (counter names), net/rds/info.c (what a monitor sees).
 */
#include "core.h"

#include <stddef.h>
#include <string.h>

static const char *const stat_names[RDSU_STAT__COUNT] = {
	[RDSU_STAT_CONN_RESET] = "conn_reset",
	[RDSU_STAT_RECV_DROP_OLD_SEQ] = "recv_drop_old_seq",
	[RDSU_STAT_RECV_DROP_NO_SOCK] = "recv_drop_no_sock",
	[RDSU_STAT_RECV_QUEUED] = "recv_queued",
	[RDSU_STAT_RECV_PING] = "recv_ping",
	[RDSU_STAT_SEND_QUEUED] = "send_queued",
	[RDSU_STAT_SEND_QUEUE_FULL] = "send_queue_full",
	[RDSU_STAT_SEND_DROP_ACKED] = "send_drop_acked",
	[RDSU_STAT_SEND_PONG] = "send_pong",
	[RDSU_STAT_CONG_UPDATE_QUEUED] = "cong_update_queued",
	[RDSU_STAT_CONG_UPDATE_RECEIVED] = "cong_update_received",
	[RDSU_STAT_CONG_SEND_ERROR] = "cong_send_error",
	[RDSU_STAT_RECV_BYTES_ADDED] = "recv_bytes_added_to_sock",
	[RDSU_STAT_RECV_BYTES_FREED] = "recv_bytes_freed_fromsock",
	[RDSU_STAT_SEND_RETRANSMITTED] = "send_retransmitted",
	[RDSU_STAT_SEND_DROPPED] = "send_dropped",
	[RDSU_STAT_MAPS_SENT] = "cong_map_sent",
	[RDSU_STAT_RECV_DROP_BAD_MAP] = "recv_drop_bad_map",
	[RDSU_STAT_RECV_TOO_BIG] = "recv_too_big",
	[RDSU_STAT_RECV_DROP_NOMEM] = "recv_drop_nomem",
	[RDSU_STAT_PROBE_SENT] = "probe_sent",
	[RDSU_STAT_PROBE_RECV] = "probe_recv",
	[RDSU_STAT_GEN_RESET] = "gen_reset",
	[RDSU_STAT_CONNECT_REQ] = "connect_req",
	[RDSU_STAT_KICK_DROPPED] = "kick_dropped",
	[RDSU_STAT_ACCEPT_REFUSED] = "accept_refused",
	[RDSU_STAT_ACCEPT_HELD] = "accept_held",
	[RDSU_STAT_RECV_PORT_SEQ] = "recv_port_seq",
	[RDSU_STAT_ACCEPT_RACED] = "connect_raced",
	[RDSU_STAT_ACCEPT_STALE] = "listen_closed_stale",
	[RDSU_STAT_RECV_BAD_CSUM] = "recv_drop_bad_checksum",
	[RDSU_STAT_RECV_BAD_FRAG] = "recv_bad_fragment",
	[RDSU_STAT_ACK_SENT] = "ack_sent",
	[RDSU_STAT_ACK_RECV] = "ack_received",
	[RDSU_STAT_CONN_GIVEN_UP] = "conn_given_up",
	[RDSU_STAT_CONNECT_DEFERRED] = "connect_deferred",
	[RDSU_STAT_CONNECTING_PEAK] = "connecting_peak",
	[RDSU_STAT_LIMIT_CONNS] = "limit_conns",
	[RDSU_STAT_LIMIT_LINKS] = "limit_links",
	[RDSU_STAT_LIMIT_PEER_LINKS] = "limit_peer_links",
	[RDSU_STAT_HANDSHAKE_TIMEOUT] = "handshake_timeout",
	[RDSU_STAT_IDLE_TIMEOUT] = "idle_timeout",
	[RDSU_STAT_RECV_DELIVERED] = "recv_delivered",
};

const char *rdsu_stat_name(enum rdsu_stat s)
{
	return (unsigned)s < RDSU_STAT__COUNT ? stat_names[s] : "?";
}

/* The limits' defaults (rdsu.h, docs/security.md), for every one left 0. */
static void limits_default(struct rdsu_ep_cfg *cfg)
{
	if (!cfg->max_conns)
		cfg->max_conns = 4096;
	if (!cfg->max_links)
		cfg->max_links = 4096;
	if (!cfg->max_peer_links)
		cfg->max_peer_links = 16;
	if (!cfg->max_connecting)
		cfg->max_connecting = 64;
	if (!cfg->handshake_timeout)
		cfg->handshake_timeout = 10 * RDSU_SEC;
	if (!cfg->idle_timeout)
		cfg->idle_timeout = 60 * RDSU_SEC;
	if (!cfg->give_up)
		cfg->give_up = 60 * RDSU_SEC;
}

void rdsu_ep_cfg_default(struct rdsu_ep_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	cfg->kver = WIRE_KVER_7;
	cfg->npaths = WIRE_MAX_PATHS;
	cfg->ping_enable = true;
	cfg->sndbuf = RDSU_DEFAULT_BUF;
	cfg->rcvbuf = RDSU_DEFAULT_BUF;
	cfg->reconnect_min = RDSU_MSEC;
	cfg->reconnect_max = RDSU_SEC;
	/* Not the kernel's rule: a request and its reply share a connection
	 * (docs/librds.md, "Path choice"). */
	cfg->path_rule = RDSU_PATH_BY_PAIR;
	/* Not the kernel's either: its RDS buffers stay at 106496, which
	 * holds fewer than two 64 KiB messages (docs/librds.md, "Socket
	 * buffers"). */
	cfg->buf_max = RDSU_AUTO_BUF_MAX;
	limits_default(cfg);
}

/* The configuration as it was before |faults|: still accepted, faults off. */
#define CFG_SIZE_NO_FAULTS offsetof(struct rdsu_ep_cfg, faults)

/* Copy what the caller's structure has of ours; the rest stays default. */
static void cfg_copy(struct rdsu_ep_cfg *to, const struct rdsu_ep_cfg *from)
{
	size_t n = from->size < sizeof(*to) ? from->size : sizeof(*to);

	memset(to, 0, sizeof(*to));
	memcpy(to, from, n);
	to->size = sizeof(*to);
}

static int cfg_check(const struct rdsu_ep_cfg *cfg)
{
	if (cfg->n_laddrs == 0 || cfg->n_laddrs > RDSU_MAX_LADDRS)
		return RDSU_ERR_INVAL;
	if (cfg->faults & ~RDSU_FAULT__ALL)
		return RDSU_ERR_INVAL;
	if (cfg->gen_num == 0 || cfg->npaths == 0 || cfg->npaths > WIRE_MAX_PATHS ||
	    (cfg->npaths & (cfg->npaths - 1)))
		return RDSU_ERR_INVAL;
	if (cfg->kver != WIRE_KVER_6 && cfg->kver != WIRE_KVER_7)
		return RDSU_ERR_INVAL;
	if (cfg->path_rule != RDSU_PATH_BY_PAIR && cfg->path_rule != RDSU_PATH_BY_PORT)
		return RDSU_ERR_INVAL;
	if (cfg->reconnect_min == 0 || cfg->reconnect_min > cfg->reconnect_max)
		return RDSU_ERR_INVAL;
	if (cfg->sndbuf == 0 || cfg->rcvbuf == 0)
		return RDSU_ERR_INVAL;
	if (cfg->rdma_laddrs >> cfg->n_laddrs)
		return RDSU_ERR_INVAL;
	for (unsigned i = 0; i < cfg->n_laddrs; i++) {
		if (rdsu_addr_is_any(&cfg->laddrs[i]) ||
		    rdsu_addr_is_v4(&cfg->laddrs[i]) != rdsu_addr_is_v4(&cfg->laddrs[0]))
			return RDSU_ERR_INVAL;
		for (unsigned j = 0; j < i; j++)
			if (rdsu_addr_cmp(&cfg->laddrs[i], &cfg->laddrs[j]) == 0)
				return RDSU_ERR_INVAL;
	}
	return 0;
}

int rdsu_ep_new(struct rdsu_ep **out, const struct rdsu_ep_cfg *cfg)
{
	struct rdsu_ep_cfg c;
	struct rdsu_ep *ep;
	int err;

	if (!out || !cfg)
		return RDSU_ERR_INVAL;
	*out = NULL;
	if (cfg->size < CFG_SIZE_NO_FAULTS)
		return RDSU_ERR_INVAL;
	/* Checked on our copy, so a short structure is never read beyond
	 * its size. */
	cfg_copy(&c, cfg);
	limits_default(&c);
	err = cfg_check(&c);
	if (err)
		return err;
	ep = rdsu_mem_cfg_alloc(&c.mem, sizeof(*ep));
	if (!ep)
		return RDSU_ERR_NOMEM;
	memset(ep, 0, sizeof(*ep));
	ep->cfg = c;
	rdsu_list_init(&ep->ev_q);
	rdsu_list_init(&ep->req_q);
	rdsu_list_init(&ep->ops);
	ep->rng = c.seed;
	ep->link_gen = 1;
	for (unsigned i = 0; i < c.n_laddrs; i++) {
		ep->lmaps[i] = rdsu_mem_zalloc(ep, sizeof(struct wire_cong_map));
		if (!ep->lmaps[i]) {
			rdsu_ep_free(ep);
			return RDSU_ERR_NOMEM;
		}
	}
	*out = ep;
	return 0;
}

/* Unlink every node of |head|, so that freeing the structures they live
 * in never writes through a neighbour that was freed first. */
static void unlink_all(struct rdsu_list *head)
{
	while (!rdsu_list_empty(head))
		rdsu_list_del_init(head->next);
}

void rdsu_ep_free(struct rdsu_ep *ep)
{
	if (!ep)
		return;
	/* Connections are freed one by one and each path cancels its event
	 * and request: with two connections queued, the second's unlink
	 * would touch the first's freed node. */
	unlink_all(&ep->ev_q);
	unlink_all(&ep->req_q);
	while (ep->n_socks)
		rdsu_sock_free(ep->socks[ep->n_socks - 1], 0);
	rdsu_conn_free_all(ep);
	rdsu_rdma_ep_free(ep);
	for (unsigned i = 0; i < RDSU_MAX_LADDRS; i++)
		rdsu_mem_free(ep, ep->lmaps[i]);
	rdsu_mem_free(ep, ep->socks);
	rdsu_mem_free(ep, ep->conns);
	rdsu_mem_free(ep, ep->close_q);
	rdsu_mem_free(ep, ep->close_reset);
	rdsu_buf_cache_drain(ep);
	rdsu_mem_cfg_free(&ep->cfg.mem, ep);
}

/* splitmix64: the only randomness, seeded by the configuration. */
uint64_t rdsu_ep_rand(struct rdsu_ep *ep)
{
	uint64_t z = (ep->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

int rdsu_ep_lidx(const struct rdsu_ep *ep, const struct rdsu_addr *a)
{
	for (unsigned i = 0; i < ep->cfg.n_laddrs; i++)
		if (rdsu_addr_cmp(&ep->cfg.laddrs[i], a) == 0)
			return (int)i;
	return -1;
}

uint64_t rdsu_ep_new_link(struct rdsu_ep *ep, const struct rdsu_conn *c)
{
	return ep->link_gen++ << RDSU_LINK_CONN_BITS | (uint64_t)c->c_index;
}

/* ------------------------------------------------------------------------
 * Timers
 */

rdsu_ns rdsu_ep_deadline(const struct rdsu_ep *ep)
{
	rdsu_ns best = RDSU_NS_NEVER;

	for (size_t i = 0; i < ep->n_conns; i++) {
		rdsu_ns d;

		if (!ep->conns[i])
			continue;
		d = rdsu_conn_deadline(ep->conns[i]);
		if (d < best)
			best = d;
	}
	return best;
}

int rdsu_ep_expire(struct rdsu_ep *ep, rdsu_ns now)
{
	int ran = 0;

	for (size_t i = 0; i < ep->n_conns; i++)
		if (ep->conns[i])
			ran += rdsu_conn_expire(ep->conns[i], now);
	return ran;
}

/* ------------------------------------------------------------------------
 * Application events
 */

void rdsu_ep_ev_queue(struct rdsu_ep *ep, struct rdsu_evsrc *src)
{
	if (!rdsu_list_linked(&src->e_item))
		rdsu_list_add_tail(&src->e_item, &ep->ev_q);
}

void rdsu_ep_ev_cancel(struct rdsu_evsrc *src)
{
	if (rdsu_list_linked(&src->e_item))
		rdsu_list_del_init(&src->e_item);
}

int rdsu_ep_next_event(struct rdsu_ep *ep, struct rdsu_event *ev)
{
	struct rdsu_evsrc *src;

	if (!ep || !ev || rdsu_list_empty(&ep->ev_q))
		return 0;
	src = rdsu_container_of(ep->ev_q.next, struct rdsu_evsrc, e_item);
	rdsu_list_del_init(&src->e_item);
	memset(ev, 0, sizeof(*ev));
	switch (src->e_kind) {
	case RDSU_EVSRC_SOCK: {
		struct rdsu_sock *rs = rdsu_container_of(src, struct rdsu_sock, rs_ev);

		ev->type = RDSU_EV_SOCK;
		ev->sock = rs;
		ev->ctx = rs->rs_ctx;
		ev->mask = rs->rs_ev_mask;
		rs->rs_ev_mask = 0;
		break;
	}
	case RDSU_EVSRC_PATH: {
		struct rdsu_path *cp = rdsu_container_of(src, struct rdsu_path, cp_ev);

		ev->type = RDSU_EV_PATH;
		ev->laddr = cp->cp_conn->c_laddr;
		ev->faddr = cp->cp_conn->c_faddr;
		ev->path = cp->cp_index;
		ev->state = cp->cp_state;
		break;
	}
	default: {
		struct rdsu_conn *c = rdsu_container_of(src, struct rdsu_conn, c_ev);

		ev->type = RDSU_EV_PEER;
		ev->laddr = c->c_laddr;
		ev->faddr = c->c_faddr;
		ev->npaths = c->c_npaths;
		ev->peer_gen = c->c_peer_gen;
		ev->gen_changed = c->c_gen_changed;
		c->c_gen_changed = false;
		break;
	}
	}
	return 1;
}

/* ------------------------------------------------------------------------
 * Transport requests
 */

void rdsu_ep_req(struct rdsu_path *cp, unsigned req)
{
	struct rdsu_ep *ep = cp->cp_conn->c_ep;

	cp->cp_req |= req;
	if (!rdsu_list_linked(&cp->cp_req_item))
		rdsu_list_add_tail(&cp->cp_req_item, &ep->req_q);
}

void rdsu_ep_req_clear(struct rdsu_path *cp, unsigned req)
{
	cp->cp_req &= ~req;
	if (!cp->cp_req && rdsu_list_linked(&cp->cp_req_item))
		rdsu_list_del_init(&cp->cp_req_item);
}

/*
 * A close request for a link the core has already let go of. If the ring
 * cannot grow the request is lost, which only delays the close: every
 * later call on that id answers RDSU_ERR_CLOSED.
 */
void rdsu_ep_close_link(struct rdsu_ep *ep, uint64_t link, bool reset)
{
	size_t at;

	if (!link)
		return;
	if (ep->close_n == ep->close_cap) {
		size_t cap = ep->close_cap ? ep->close_cap * 2 : 16;
		uint64_t *q = rdsu_mem_alloc(ep, cap * sizeof(*q));
		bool *r = rdsu_mem_alloc(ep, cap * sizeof(*r));

		if (!q || !r) {
			rdsu_mem_free(ep, q);
			rdsu_mem_free(ep, r);
			return;
		}
		for (size_t i = 0; i < ep->close_n; i++) {
			q[i] = ep->close_q[(ep->close_head + i) % ep->close_cap];
			r[i] = ep->close_reset[(ep->close_head + i) % ep->close_cap];
		}
		rdsu_mem_free(ep, ep->close_q);
		rdsu_mem_free(ep, ep->close_reset);
		ep->close_q = q;
		ep->close_reset = r;
		ep->close_head = 0;
		ep->close_cap = cap;
	}
	at = (ep->close_head + ep->close_n) % ep->close_cap;
	ep->close_q[at] = link;
	ep->close_reset[at] = reset;
	ep->close_n++;
}

int rdsu_ep_next_link_req(struct rdsu_ep *ep, struct rdsu_lreq *req)
{
	struct rdsu_path *cp;
	struct rdsu_conn *c;

	if (!ep || !req)
		return 0;
	memset(req, 0, sizeof(*req));
	if (ep->close_n) {
		req->type = RDSU_LREQ_CLOSE;
		req->link = ep->close_q[ep->close_head];
		req->reset = ep->close_reset[ep->close_head];
		ep->close_head = (ep->close_head + 1) % ep->close_cap;
		ep->close_n--;
		return 1;
	}
	if (rdsu_list_empty(&ep->req_q))
		return 0;
	cp = rdsu_container_of(ep->req_q.next, struct rdsu_path, cp_req_item);
	c = cp->cp_conn;
	req->link = cp->cp_link;
	req->laddr = c->c_laddr;
	req->faddr = c->c_faddr;
	req->path = cp->cp_index;
	if (cp->cp_req & RDSU_REQ_CONNECT) {
		req->type = RDSU_LREQ_CONNECT;
		req->trans = c->c_tp->id;
		req->dport = rdsu_addr_is_v4(&c->c_faddr) ? c->c_tp->port_v4 : c->c_tp->port_v6;
		/* 7.x encodes the path in the source port so the acceptor can
		 * put the connection in the same slot after any reconnect
		 * (rds_tcp_conn_path_connect). */
		if (ep->cfg.kver != WIRE_KVER_6 && c->c_tp->max_paths > 1) {
			req->sport_mod = WIRE_MAX_PATHS;
			req->sport_res = cp->cp_index;
		}
		rdsu_ep_req_clear(cp, RDSU_REQ_CONNECT);
	} else if (cp->cp_req & RDSU_REQ_ATTACH) {
		req->type = RDSU_LREQ_ATTACH;
		rdsu_ep_req_clear(cp, RDSU_REQ_ATTACH);
	} else {
		req->type = RDSU_LREQ_OUTPUT;
		rdsu_ep_req_clear(cp, RDSU_REQ_OUTPUT);
	}
	return 1;
}

/* ------------------------------------------------------------------------
 * Monitor views
 */

void rdsu_ep_get_stats(const struct rdsu_ep *ep, struct rdsu_stats *out)
{
	memcpy(out->v, ep->stats, sizeof(out->v));
}

int rdsu_ep_conn_next(const struct rdsu_ep *ep, size_t *pos, struct rdsu_conn_info *out)
{
	while (*pos < ep->n_conns && !ep->conns[*pos])
		(*pos)++;
	if (*pos >= ep->n_conns)
		return 0;
	rdsu_conn_info_fill(ep->conns[(*pos)++], out);
	return 1;
}

int rdsu_ep_conn_get(const struct rdsu_ep *ep, const struct rdsu_addr *laddr,
		     const struct rdsu_addr *faddr, struct rdsu_conn_info *out)
{
	int lidx = rdsu_ep_lidx(ep, laddr);
	const struct rdsu_conn *c = lidx < 0 ? NULL : rdsu_conn_find(ep, lidx, faddr, RDSU_TRANS_NONE);

	if (!c)
		return RDSU_ERR_NOTFOUND;
	rdsu_conn_info_fill(c, out);
	return 0;
}

int rdsu_ep_sock_next(const struct rdsu_ep *ep, size_t *pos, struct rdsu_sock_info *out)
{
	if (*pos >= ep->n_socks)
		return 0;
	rdsu_sock_info_fill(ep->socks[(*pos)++], out);
	return 1;
}

/* The receive queues' part of rdsu_ep_msg_next (RDS_INFO_RECV_MESSAGES,
 * net/rds/af_rds.c rds_sock_inc_info walks every socket's rs_recv_queue). */
static int msg_next_recv(const struct rdsu_ep *ep, struct rdsu_msg_iter *it,
			 struct rdsu_msg_info *out)
{
	for (; it->sock < ep->n_socks; it->sock++, it->cur = NULL) {
		const struct rdsu_sock *rs = ep->socks[it->sock];
		const struct rdsu_list *n = it->cur ? it->cur : rs->rs_rx_q.next;
		const struct rdsu_rx *rx;

		if (!rs->rs_bound || n == &rs->rs_rx_q)
			continue;
		rx = rdsu_container_of(n, const struct rdsu_rx, r_item);
		it->cur = n->next;
		memset(out, 0, sizeof(*out));
		out->laddr = ep->cfg.laddrs[rs->rs_lidx];
		out->faddr = rx->r_faddr;
		out->queue = RDSU_MSGQ_RECV;
		out->seq = rx->r_seq;
		out->len = rx->r_len;
		out->sport = rx->r_sport;
		out->dport = rs->rs_port;
		return 1;
	}
	return 0;
}

int rdsu_ep_msg_next(const struct rdsu_ep *ep, struct rdsu_msg_iter *it,
		     struct rdsu_msg_info *out)
{
	for (; it->conn < ep->n_conns; it->conn++, it->path = 0) {
		const struct rdsu_conn *c = ep->conns[it->conn];

		if (!c)
			continue;
		for (; it->path < WIRE_MAX_PATHS; it->path++, it->queue = 0) {
			const struct rdsu_path *cp = &c->c_path[it->path];

			for (; it->queue < 2; it->queue++, it->cur = NULL) {
				const struct rdsu_list *head =
					it->queue == RDSU_MSGQ_SEND ? &cp->cp_send_q
								    : &cp->cp_retrans_q;
				const struct rdsu_list *n = it->cur ? it->cur : head->next;
				const struct rdsu_msg *rm;

				if (n == head)
					continue;
				rm = rdsu_container_of(n, const struct rdsu_msg, m_conn_item);
				it->cur = n->next;
				out->laddr = c->c_laddr;
				out->faddr = c->c_faddr;
				out->path = cp->cp_index;
				out->queue = it->queue;
				out->seq = rm->m_seq;
				out->len = rm->m_len;
				out->sport = rm->m_sport;
				out->dport = rm->m_dport;
				out->retransmitted = rm->m_flags & RDSU_MF_RETRANS;
				return 1;
			}
		}
	}
	if (it->queue < RDSU_MSGQ_RECV) {
		it->queue = RDSU_MSGQ_RECV;
		it->cur = NULL;
	}
	return msg_next_recv(ep, it, out);
}

const struct wire_cong_map *rdsu_ep_local_map(const struct rdsu_ep *ep,
					      const struct rdsu_addr *laddr)
{
	int lidx = rdsu_ep_lidx(ep, laddr);

	return lidx < 0 ? NULL : ep->lmaps[lidx];
}

const struct wire_cong_map *rdsu_ep_peer_map(const struct rdsu_ep *ep,
					     const struct rdsu_addr *laddr,
					     const struct rdsu_addr *faddr)
{
	int lidx = rdsu_ep_lidx(ep, laddr);
	const struct rdsu_conn *c = lidx < 0 ? NULL : rdsu_conn_find(ep, lidx, faddr, RDSU_TRANS_NONE);

	return c ? &c->c_fcong : NULL;
}
