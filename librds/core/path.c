// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * path.c - one path's life: down, connecting, up, and back down with a
 * reconnect on capped exponential backoff.
 * Ref: net/rds/connection.c __rds_conn_path_init() (tx seq starts at 1),
 * rds_conn_path_connect_if_down(); net/rds/threads.c
 * rds_connect_path_complete() (map queued, backoff reset),
 * rds_queue_reconnect() (only the smaller address; immediate first try,
 * then random % ceiling with the ceiling doubling up to the max),
 * rds_connect_worker() (the larger address never connects paths > 0);
 * net/rds/tcp_connect.c rds_tcp_conn_path_connect() (paths > 0 only once
 * c_npaths >= 2).
 */
#include "core.h"

#include <string.h>

/* The sequence number of a path's first message: 1 (__rds_conn_path_init,
 * and again after the peer restarts, rds_conn_peer_gen_update). */
uint64_t rdsu_path_first_seq(const struct rdsu_conn *c)
{
	/* FAULT seq-zero: start at 0. A receiver cannot tell by itself (its
	 * cp_next_rx_seq starts at 0 too), but 0 is never a sequence number a
	 * kernel sends, so a wire checker can (rule seq.zero). */
	if (rdsu_faulty(c->c_ep, RDSU_FAULT_SEQ_ZERO))
		return 0;
	return 1;
}

void rdsu_path_init(struct rdsu_path *cp, struct rdsu_conn *c, uint8_t index)
{
	memset(cp, 0, sizeof(*cp));
	cp->cp_conn = c;
	cp->cp_index = index;
	cp->cp_state = RDSU_PATH_DOWN;
	cp->cp_next_tx_seq = rdsu_path_first_seq(c);
	cp->cp_next_rx_seq = 0;
	rdsu_list_init(&cp->cp_send_q);
	rdsu_list_init(&cp->cp_retrans_q);
	rdsu_list_init(&cp->cp_req_item);
	rdsu_list_init(&cp->cp_ev.e_item);
	cp->cp_ev.e_kind = RDSU_EVSRC_PATH;
	cp->cp_reconnect_at = RDSU_NS_NEVER;
}

void rdsu_path_fini(struct rdsu_path *cp)
{
	struct rdsu_ep *ep = cp->cp_conn->c_ep;

	rdsu_send_free_all(cp);
	rdsu_ep_ev_cancel(&cp->cp_ev);
	rdsu_ep_req_clear(cp, ~0u);
	rdsu_mem_free(ep, cp->cp_gather);
	rdsu_mem_free(ep, cp->cp_map_snap);
	cp->cp_gather = NULL;
	cp->cp_map_snap = NULL;
}

/*
 * The receive gather buffer holds a payload that arrives split across
 * inputs. It is lent to the deframer on demand and doubles as bytes
 * arrive (4 KiB at first, at most the message's h_len, itself at most
 * 1 MiB), so an idle peer costs nothing here and a header alone never
 * sizes an allocation. The largest payload a link gathered sets its size
 * until the path comes up on a new link.
 * Return: 0; RDSU_ERR_NOMEM (the caller resets the path).
 */
int rdsu_path_grow_gather(struct rdsu_path *cp, size_t need)
{
	struct rdsu_ep *ep = cp->cp_conn->c_ep;
	size_t cap = cp->cp_gather_cap ? cp->cp_gather_cap * 2 : 4096;
	uint8_t *p;

	if (cap > need)
		cap = need;
	p = rdsu_mem_alloc(ep, cap);
	if (!p)
		return RDSU_ERR_NOMEM;
	if (cp->cp_gather_cap)
		memcpy(p, cp->cp_gather, cp->cp_gather_cap);
	rdsu_mem_free(ep, cp->cp_gather);
	cp->cp_gather = p;
	cp->cp_gather_cap = cap;
	(void)wire_deframer_set_buf(&cp->cp_dfr, p, cap);
	return 0;
}

static void gather_free(struct rdsu_path *cp)
{
	rdsu_mem_free(cp->cp_conn->c_ep, cp->cp_gather);
	cp->cp_gather = NULL;
	cp->cp_gather_cap = 0;
}

/* What belongs to one link: its acks, credits and handshake (the
 * kernel's ib connection state, cleared at every shutdown). */
static void link_state_reset(struct rdsu_path *cp)
{
	cp->cp_rx_ack = 0;
	cp->cp_hack = 0;
	cp->cp_ack_wanted = false;
	cp->cp_fc_send = false;
	cp->cp_fc_adv = false;
	cp->cp_send_credits = 0;
	cp->cp_post_credits = 0;
	cp->cp_peer_credits = 0;
	cp->cp_version = 0;
}

static void path_event(struct rdsu_path *cp)
{
	rdsu_ep_ev_queue(cp->cp_conn->c_ep, &cp->cp_ev);
}

void rdsu_path_connecting_done(struct rdsu_path *cp)
{
	if (!cp->cp_connecting)
		return;
	cp->cp_connecting = false;
	cp->cp_conn->c_ep->n_connecting--;
}

/*
 * Start connecting, unless max_connecting connects are in flight or
 * max_links links exist: then try again on the reconnect timer, within
 * reconnect_max. Kicks from a thousand addresses nobody listens on
 * would otherwise all connect at once, and again after each failure.
 */
static void path_connect(struct rdsu_path *cp, rdsu_ns now)
{
	struct rdsu_conn *c = cp->cp_conn;
	struct rdsu_ep *ep = c->c_ep;

	if (ep->n_connecting >= ep->cfg.max_connecting || ep->n_links >= ep->cfg.max_links) {
		rdsu_stat_inc(ep, RDSU_STAT_CONNECT_DEFERRED);
		cp->cp_reconnect_at = now + ep->cfg.reconnect_min +
				      rdsu_ep_rand(ep) % ep->cfg.reconnect_max;
		return;
	}
	ep->n_links++;
	cp->cp_connecting = true;
	if (++ep->n_connecting > ep->stats[RDSU_STAT_CONNECTING_PEAK])
		ep->stats[RDSU_STAT_CONNECTING_PEAK] = ep->n_connecting;
	cp->cp_proven = true;
	cp->cp_link = rdsu_ep_new_link(c->c_ep, c);
	cp->cp_outgoing = true;
	cp->cp_peer_sport = 0;
	cp->cp_local_sport = 0;
	cp->cp_state = RDSU_PATH_CONNECTING;
	rdsu_stat_inc(c->c_ep, RDSU_STAT_CONNECT_REQ);
	rdsu_ep_req(cp, RDSU_REQ_CONNECT);
	path_event(cp);
}

/* Paths above 0 exist only once both sides agreed on more than one, and
 * only the smaller address opens them; to a peer that files them in
 * arrival order, in index order, each once all below it are up. */
static bool path_may_connect(const struct rdsu_path *cp)
{
	const struct rdsu_conn *c = cp->cp_conn;

	if (cp->cp_index == 0)
		return true;
	if (!c->c_active || c->c_npaths < 2 || cp->cp_index >= c->c_npaths)
		return false;
	if (rdsu_conn_slots_by_order(c))
		for (unsigned i = 0; i < cp->cp_index; i++)
			if (c->c_path[i].cp_state != RDSU_PATH_UP)
				return false;
	return true;
}

void rdsu_path_connect_if_down(struct rdsu_path *cp, rdsu_ns now)
{
	/* A pending backoff timer is RDS_RECONNECT_PENDING: let it run. */
	if (cp->cp_state != RDSU_PATH_DOWN || cp->cp_reconnect_at != RDSU_NS_NEVER)
		return;
	if (!path_may_connect(cp))
		return;
	path_connect(cp, now);
}

static void queue_reconnect(struct rdsu_path *cp, rdsu_ns now)
{
	struct rdsu_conn *c = cp->cp_conn;
	const struct rdsu_ep_cfg *cfg = &c->c_ep->cfg;
	rdsu_ns delay;

	/* The larger address waits to be connected to. */
	if (!c->c_active || !path_may_connect(cp))
		return;
	if (cp->cp_backoff == 0) {
		cp->cp_backoff = cfg->reconnect_min;
		/* ss -K and a failing link kill the paths one after another.
		 * Give the peer time to see every one of them go before the
		 * first comes back, or it lands in a slot freed after it. */
		if (c->c_npaths > 1 && rdsu_conn_slots_by_order(c)) {
			cp->cp_reconnect_at = now + RDSU_ORDER_SETTLE;
			return;
		}
		path_connect(cp, now);
		return;
	}
	delay = rdsu_ep_rand(c->c_ep) % cp->cp_backoff;
	cp->cp_backoff = cp->cp_backoff > cfg->reconnect_max / 2 ? cfg->reconnect_max
								  : cp->cp_backoff * 2;
	cp->cp_reconnect_at = now + delay;
}

void rdsu_path_up(struct rdsu_path *cp, rdsu_ns now)
{
	rdsu_path_connecting_done(cp);
	cp->cp_conn->c_idle_since = RDSU_NS_NEVER;
	if (cp->cp_proven)
		cp->cp_conn->c_was_up = true;
	cp->cp_rx_at = now;
	cp->cp_rx_msg_end = 0;
	cp->cp_state = RDSU_PATH_UP;
	cp->cp_backoff = 0;
	cp->cp_reconnect_at = RDSU_NS_NEVER;
	cp->cp_tx_off = 0;
	cp->cp_acked = 0;
	cp->cp_rx_bytes = 0;
	cp->cp_out_armed = false;
	memset(&cp->cp_xmit, 0, sizeof(cp->cp_xmit));
	gather_free(cp);
	if (cp->cp_conn->c_tp->framing == RDSU_FRAMING_STREAM)
		wire_deframer_init_lend(&cp->cp_dfr, WIRE_MAX_MSG_LEN);
	else
		(void)wire_reasm_init(&cp->cp_reasm, WIRE_MAX_MSG_LEN, NULL, 0);
	/* rds_connect_path_complete: every path that comes up sends the
	 * whole map before anything else. FAULT no-map: it does not, so the
	 * peer never learns our ports' state from a path up (only later
	 * congestion changes send one). */
	cp->cp_map_queued = !rdsu_faulty(cp->cp_conn->c_ep, RDSU_FAULT_NO_MAP) &&
			    !cp->cp_conn->c_tp->local &&
			    (cp->cp_conn->c_tp->loop_maps ||
			     rdsu_ep_lidx(cp->cp_conn->c_ep, &cp->cp_conn->c_faddr) < 0);
	cp->cp_map_sent = false;
	cp->cp_connects++;
	path_event(cp);
	rdsu_probe_path_up(cp, now);
	rdsu_path_kick(cp);
	/* the next path in index order may go now (path_may_connect) */
	if (rdsu_conn_slots_by_order(cp->cp_conn))
		for (unsigned i = cp->cp_index + 1u; i < cp->cp_conn->c_npaths; i++)
			rdsu_path_connect_if_down(&cp->cp_conn->c_path[i], now);
}

void rdsu_path_drop(struct rdsu_path *cp, bool close_link, bool reset, rdsu_ns now)
{
	struct rdsu_conn *c = cp->cp_conn;
	bool was_up = cp->cp_state == RDSU_PATH_UP;

	if (cp->cp_state == RDSU_PATH_DOWN && !cp->cp_link)
		return;
	if (close_link)
		rdsu_ep_close_link(c->c_ep, cp->cp_link, reset);
	if (cp->cp_link)
		c->c_ep->n_links--;
	rdsu_path_connecting_done(cp);
	cp->cp_link = 0;
	cp->cp_state = RDSU_PATH_DOWN;
	cp->cp_out_armed = false;
	link_state_reset(cp);
	cp->cp_map_queued = false;
	rdsu_ep_req_clear(cp, ~0u);
	rdsu_send_path_reset(cp);
	if (was_up) {
		cp->cp_resets++;
		rdsu_stat_inc(c->c_ep, RDSU_STAT_CONN_RESET);
	}
	/* 7.x re-learns the path count after every path-0 shutdown: the
	 * next connection may probe again. (One still queued because the
	 * link never came up is not lost.) The pings already sent are still
	 * owed a pong each: the peer answers every ping once, in order, and
	 * resends a pong TCP did not acknowledge (what it did acknowledge
	 * the transport reads), while our unacknowledged pings go again and
	 * are answered unless they were already. So the count, and the
	 * fence's place in it, stand; restarting them let the resent pong to
	 * a ping from before the fan-out end the fence
	 * (test_probe_fence_stale_pong). */
	if (cp->cp_index == 0 && was_up)
		c->c_probe_pending = false;
	path_event(cp);
	queue_reconnect(cp, now);
	rdsu_conn_retry_held(c, now);
	if (c->c_idle_since == RDSU_NS_NEVER) {
		bool up = false;

		for (unsigned i = 0; i < WIRE_MAX_PATHS; i++)
			up |= c->c_path[i].cp_state == RDSU_PATH_UP;
		if (!up)
			c->c_idle_since = now;
	}
}

/*
 * A stream connection's first whole header: from then on it is the
 * peer's path and carries our data. A TCP connection from the peer's
 * address is all RDS knows of a peer, so one that anyone on that address
 * opened and that has said nothing RDS yet gets no data of ours (a peer
 * that TCP-acknowledges and never reads would lose it for us), and
 * cannot keep the peer's own connection from a slot for longer than
 * handshake_timeout. Every kernel sends its congestion map first thing
 * (rds_connect_path_complete), so a real peer proves itself within a
 * round trip. (Any 48 bytes are a header to RDS over TCP, which checks
 * nothing in them but h_len; only authentication, rdsu_tcp_cfg.auth,
 * tells the peer from someone else on its address.)
 */
void rdsu_path_proven(struct rdsu_path *cp)
{
	if (cp->cp_proven)
		return;
	cp->cp_proven = true;
	cp->cp_conn->c_was_up = true;
	rdsu_path_kick(cp);
}

/* When a link of |cp| is due to be reset by handshake_timeout or
 * idle_timeout, or NEVER. */
static rdsu_ns limit_deadline(const struct rdsu_path *cp)
{
	const struct rdsu_ep_cfg *cfg = &cp->cp_conn->c_ep->cfg;

	if (cp->cp_state != RDSU_PATH_UP)
		return RDSU_NS_NEVER;
	if (!cp->cp_proven)
		return cfg->handshake_timeout == RDSU_NS_NEVER ? RDSU_NS_NEVER
							       : cp->cp_link_at + cfg->handshake_timeout;
	if (cp->cp_conn->c_tp->framing != RDSU_FRAMING_STREAM ||
	    cp->cp_rx_bytes == cp->cp_rx_msg_end || cfg->idle_timeout == RDSU_NS_NEVER)
		return RDSU_NS_NEVER;
	return cp->cp_rx_at + cfg->idle_timeout;
}

void rdsu_path_kick(struct rdsu_path *cp)
{
	if (cp->cp_state != RDSU_PATH_UP || cp->cp_out_armed)
		return;
	if (!rdsu_send_has_output(cp))
		return;
	cp->cp_out_armed = true;
	rdsu_ep_req(cp, RDSU_REQ_OUTPUT);
}

rdsu_ns rdsu_path_deadline(const struct rdsu_path *cp)
{
	rdsu_ns held = rdsu_held_deadline(cp);
	rdsu_ns lim = limit_deadline(cp);
	rdsu_ns d = held < cp->cp_reconnect_at ? held : cp->cp_reconnect_at;

	return lim < d ? lim : d;
}

int rdsu_path_expire(struct rdsu_path *cp, rdsu_ns now)
{
	int ran = rdsu_held_expire(cp, now);
	rdsu_ns lim = limit_deadline(cp);

	if (lim <= now) {
		rdsu_stat_inc(cp->cp_conn->c_ep, cp->cp_proven ? RDSU_STAT_IDLE_TIMEOUT
							       : RDSU_STAT_HANDSHAKE_TIMEOUT);
		rdsu_path_drop(cp, true, true, now);
		ran++;
	}

	if (cp->cp_reconnect_at > now)
		return ran;
	cp->cp_reconnect_at = RDSU_NS_NEVER;
	if (cp->cp_state == RDSU_PATH_DOWN && path_may_connect(cp))
		path_connect(cp, now);
	return ran + 1;
}

void rdsu_path_info_fill(const struct rdsu_path *cp, struct rdsu_path_info *out)
{
	memset(out, 0, sizeof(*out));
	out->index = cp->cp_index;
	out->state = cp->cp_state;
	out->link = cp->cp_link;
	out->outgoing = cp->cp_outgoing;
	out->peer_sport = cp->cp_peer_sport;
	out->local_sport = cp->cp_local_sport;
	out->next_tx_seq = cp->cp_next_tx_seq;
	out->next_rx_seq = cp->cp_next_rx_seq;
	out->send_q_msgs = cp->cp_send_msgs;
	out->send_q_bytes = cp->cp_send_bytes;
	out->retrans_q_msgs = cp->cp_retrans_msgs;
	out->retrans_q_bytes = cp->cp_retrans_bytes;
	out->tx_bytes = cp->cp_tx_off;
	out->acked_bytes = cp->cp_acked;
	out->rx_bytes = cp->cp_rx_bytes;
	out->map_queued = cp->cp_map_queued;
	out->reconnect_at = cp->cp_reconnect_at;
	out->backoff = cp->cp_backoff;
	out->connects = cp->cp_connects;
	out->resets = cp->cp_resets;
	out->version = cp->cp_version;
	out->ack_seq = cp->cp_rx_ack;
	out->peer_ack = cp->cp_hack;
	out->flow_control = cp->cp_fc_send;
	out->send_credits = cp->cp_send_credits;
}

const char *rdsu_path_state_name(enum rdsu_path_state st)
{
	switch (st) {
	case RDSU_PATH_DOWN:
		return "down";
	case RDSU_PATH_CONNECTING:
		return "connecting";
	case RDSU_PATH_UP:
		return "up";
	}
	return "?";
}
