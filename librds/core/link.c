// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * link.c - the transport-facing calls: a transport turns TCP events into
 * these and nothing else. A link id names one TCP connection; once the
 * core lets go of it every call answers RDSU_ERR_CLOSED.
 * Ref: net/rds/tcp_listen.c rds_tcp_accept_one() (refuse the larger
 * address, connect back; slots; 7.x stash), net/rds/tcp_connect.c
 * rds_tcp_state_change() (the larger side drops its own connection when it
 * is established: it was only a kick), net/rds/tcp.c
 * rds_tcp_write_space() / rds_tcp_is_acked() (TCP acknowledgement frees
 * messages).
 */
#include "core.h"

#include <string.h>

int rdsu_link_accept(struct rdsu_ep *ep, const struct rdsu_addr *laddr,
		     const struct rdsu_addr *faddr, uint16_t peer_sport, rdsu_ns now,
		     uint64_t *link)
{
	return rdsu_link_accept_on(ep, RDSU_TRANS_TCP, laddr, faddr, peer_sport, now, link);
}

/* Where both ends connect, the passive side settles the race
 * (rds_ib_cm_handle_connect). Return: 0 to take the link, or why not. */
static int accept_race(struct rdsu_conn *c, rdsu_ns now)
{
	struct rdsu_path *cp = &c->c_path[0];

	if (cp->cp_state == RDSU_PATH_DOWN)
		return 0;
	if (cp->cp_state == RDSU_PATH_UP) {
		rdsu_stat_inc(c->c_ep, RDSU_STAT_ACCEPT_STALE);
		rdsu_path_drop(cp, true, true, now);
	} else {
		rdsu_stat_inc(c->c_ep, RDSU_STAT_ACCEPT_RACED);
	}
	rdsu_stat_inc(c->c_ep, RDSU_STAT_ACCEPT_REFUSED);
	return RDSU_ERR_REFUSED;
}

int rdsu_link_accept_on(struct rdsu_ep *ep, unsigned trans, const struct rdsu_addr *laddr,
			const struct rdsu_addr *faddr, uint16_t peer_sport, rdsu_ns now,
			uint64_t *link)
{
	struct rdsu_conn *c;
	int lidx, r;
	uint64_t id;

	if (!ep || !laddr || !faddr || !link)
		return RDSU_ERR_INVAL;
	*link = 0;
	/* The loopback transport connects to itself and accepts nothing. */
	if (!rdsu_tprops_get(trans) || rdsu_tprops_get(trans)->local)
		return RDSU_ERR_INVAL;
	lidx = rdsu_ep_lidx(ep, laddr);
	if (lidx < 0)
		return RDSU_ERR_NOTFOUND;
	/* A peer that is one of our own addresses would be loopback, which
	 * RDS/TCP refuses. */
	if (rdsu_ep_lidx(ep, faddr) >= 0 || rdsu_addr_is_any(faddr)) {
		rdsu_stat_inc(ep, RDSU_STAT_ACCEPT_REFUSED);
		return RDSU_ERR_REFUSED;
	}
	c = rdsu_conn_find(ep, lidx, faddr, trans);
	if (!c && ep->n_live >= ep->cfg.max_conns) {
		rdsu_stat_inc(ep, RDSU_STAT_LIMIT_CONNS);
		rdsu_stat_inc(ep, RDSU_STAT_ACCEPT_REFUSED);
		return RDSU_ERR_REFUSED;
	}
	c = rdsu_conn_get(ep, lidx, faddr, trans, now);
	if (!c)
		return RDSU_ERR_NOMEM;
	if (c->c_tp->connect == RDSU_CONNECT_BOTH) {
		r = accept_race(c, now);
		if (r < 0)
			return r;
	}
	/* FAULT accept-larger: take the larger address's connection as if
	 * it were the smaller's (the duel rds_tcp_accept_one avoids); the
	 * peer, which never carries a path on its own connection, drops it
	 * once established (rds_tcp_state_change). */
	if (c->c_tp->connect == RDSU_CONNECT_SMALLER && c->c_active &&
	    !rdsu_faulty(ep, RDSU_FAULT_ACCEPT_LARGER)) {
		/* The larger address knocked: reset it and, while at most one
		 * path is agreed, connect path 0 ourselves. */
		rdsu_stat_inc(ep, RDSU_STAT_ACCEPT_REFUSED);
		if (c->c_npaths <= 1)
			rdsu_path_connect_if_down(&c->c_path[0], now);
		return RDSU_ERR_REFUSED;
	}
	id = rdsu_ep_new_link(ep, c);
	r = rdsu_conn_accept(c, id, peer_sport, now);
	if (r < 0) {
		if (r == RDSU_ERR_REFUSED)
			rdsu_stat_inc(ep, RDSU_STAT_ACCEPT_REFUSED);
		return r;
	}
	*link = id;
	return r;
}

int rdsu_link_established(struct rdsu_ep *ep, uint64_t link, uint16_t sport, rdsu_ns now)
{
	struct rdsu_conn *c;
	struct rdsu_path *cp;

	if (!ep || rdsu_conn_find_link(ep, link, &c, &cp) != 1 || !cp->cp_outgoing)
		return RDSU_ERR_CLOSED;
	if (cp->cp_state == RDSU_PATH_UP)
		return 0; /* told twice */
	if (!c->c_active) {
		/* The kick has done its work; the peer connects back. */
		rdsu_stat_inc(ep, RDSU_STAT_KICK_DROPPED);
		rdsu_path_drop(cp, false, false, now);
		return RDSU_ERR_CLOSED;
	}
	cp->cp_local_sport = sport;
	cp->cp_peer_sport = RDSU_TCP_PORT;
	rdsu_path_up(cp, now);
	return 0;
}

/*
 * The path carrying |link|, up or not: 1 and *out set; 0 for a held link;
 * an error code for a link the core does not know, or RDSU_ERR_INVAL for
 * a NULL |ep| or a link of a transport that is not of |framing|.
 */
static int framed_path(struct rdsu_ep *ep, uint64_t link, enum rdsu_framing framing,
		       struct rdsu_path **out)
{
	struct rdsu_conn *c;
	int r;

	if (!ep)
		return RDSU_ERR_INVAL;
	r = rdsu_conn_find_link(ep, link, &c, out);
	if (r < 0)
		return r;
	return c->c_tp->framing != framing ? RDSU_ERR_INVAL : r;
}

/*
 * As framed_path(), but only a path that is up: 0 also when the link is
 * not yet established (the callers' no-op case).
 */
static int up_path_framed(struct rdsu_ep *ep, uint64_t link, enum rdsu_framing framing,
			  struct rdsu_path **out)
{
	int r = framed_path(ep, link, framing, out);

	if (r <= 0)
		return r;
	return (*out)->cp_state == RDSU_PATH_UP ? 1 : 0;
}

/*
 * The up stream path for a call that moves stream bytes: as
 * up_path_framed(), except that a link which is not up can only have
 * moved nothing, so |moved| there is RDSU_ERR_INVAL.
 */
static int moving_path(struct rdsu_ep *ep, uint64_t link, bool moved, struct rdsu_path **out)
{
	int r = up_path_framed(ep, link, RDSU_FRAMING_STREAM, out);

	if (r == 0 && moved)
		return RDSU_ERR_INVAL;
	return r;
}

ssize_t rdsu_link_input(struct rdsu_ep *ep, uint64_t link, const uint8_t *in, size_t len,
			rdsu_ns now)
{
	struct rdsu_path *cp;
	int r;

	r = up_path_framed(ep, link, RDSU_FRAMING_STREAM, &cp);
	if (r <= 0)
		return r; /* 0: held, or not yet reported established */
	if (!in && len)
		return RDSU_ERR_INVAL;
	return rdsu_recv_input(cp, in, len, now);
}

int rdsu_link_peek(struct rdsu_ep *ep, uint64_t link, const uint8_t **p, size_t *len,
		   rdsu_ns now)
{
	struct rdsu_path *cp;
	int r;

	(void)now;
	if (!ep || !p || !len)
		return RDSU_ERR_INVAL;
	*p = NULL;
	*len = 0;
	r = up_path_framed(ep, link, RDSU_FRAMING_STREAM, &cp);
	if (r <= 0)
		return r;
	rdsu_send_peek(cp, p, len);
	return 0;
}

int rdsu_link_advance(struct rdsu_ep *ep, uint64_t link, size_t n, rdsu_ns now)
{
	struct rdsu_path *cp;
	int r;

	(void)now;
	r = moving_path(ep, link, n != 0, &cp);
	if (r <= 0)
		return r;
	return rdsu_send_advance(cp, n);
}

ssize_t rdsu_link_output(struct rdsu_ep *ep, uint64_t link, uint8_t *buf, size_t cap,
			 rdsu_ns now)
{
	size_t done = 0;

	if (!buf && cap)
		return RDSU_ERR_INVAL;
	while (done < cap) {
		const uint8_t *p;
		size_t len;
		int r = rdsu_link_peek(ep, link, &p, &len, now);

		if (r < 0)
			return done ? (ssize_t)done : r;
		if (!len)
			break;
		if (len > cap - done)
			len = cap - done;
		memcpy(buf + done, p, len);
		r = rdsu_link_advance(ep, link, len, now);
		if (r < 0)
			return r;
		done += len;
	}
	return (ssize_t)done;
}

int rdsu_link_acked(struct rdsu_ep *ep, uint64_t link, uint64_t acked, rdsu_ns now)
{
	struct rdsu_path *cp;
	int r;

	r = moving_path(ep, link, acked != 0, &cp);
	if (r <= 0)
		return r;
	return rdsu_send_acked(cp, acked, now);
}

int rdsu_link_down(struct rdsu_ep *ep, uint64_t link, rdsu_ns now)
{
	struct rdsu_conn *c;
	struct rdsu_path *cp;
	int r;

	if (!ep)
		return RDSU_ERR_INVAL;
	r = rdsu_conn_find_link(ep, link, &c, &cp);
	if (r < 0)
		return r;
	if (r == 0) {
		rdsu_conn_unhold(c, link);
		return 0;
	}
	rdsu_path_drop(cp, false, false, now);
	return 0;
}

/* ------------------------------------------------------------------------
 * Frame transports (IB)
 */

int rdsu_link_input_frame(struct rdsu_ep *ep, uint64_t link, const uint8_t *frame, size_t len,
			  rdsu_ns now)
{
	struct rdsu_path *cp;
	int r;

	if (!frame && len)
		return RDSU_ERR_INVAL;
	r = up_path_framed(ep, link, RDSU_FRAMING_FRAMES, &cp);
	if (r <= 0)
		return r;
	return rdsu_recv_frame(cp, frame, len, now);
}

ssize_t rdsu_link_output_frame(struct rdsu_ep *ep, uint64_t link, uint8_t *buf, size_t cap,
			       rdsu_ns now)
{
	struct rdsu_path *cp;
	int r;

	(void)now;
	if (!buf)
		return RDSU_ERR_INVAL;
	r = up_path_framed(ep, link, RDSU_FRAMING_FRAMES, &cp);
	if (r <= 0)
		return r;
	return rdsu_send_frame(cp, buf, cap);
}

int rdsu_link_output_stalled(struct rdsu_ep *ep, uint64_t link)
{
	struct rdsu_path *cp;
	int r;

	r = up_path_framed(ep, link, RDSU_FRAMING_FRAMES, &cp);
	if (r <= 0)
		return r;
	return rdsu_send_credit_stalled(cp) ? 1 : 0;
}

/* The path a frame link carries, up or still connecting: 0; a held link
 * has none, RDSU_ERR_INVAL. */
static int frame_path(struct rdsu_ep *ep, uint64_t link, struct rdsu_path **cp)
{
	int r = framed_path(ep, link, RDSU_FRAMING_FRAMES, cp);

	return r == 0 ? RDSU_ERR_INVAL : r < 0 ? r : 0;
}

/* As frame_path(), for a handshake call: RDSU_ERR_INVAL also without |hs|. */
static int hs_path(struct rdsu_ep *ep, uint64_t link, const struct rdsu_link_hs *hs,
		   struct rdsu_path **cp)
{
	return hs ? frame_path(ep, link, cp) : RDSU_ERR_INVAL;
}

int rdsu_link_hs_offer(struct rdsu_ep *ep, uint64_t link, struct rdsu_link_hs *out)
{
	struct rdsu_path *cp;
	int r;

	r = hs_path(ep, link, out, &cp);
	if (r < 0)
		return r;
	memset(out, 0, sizeof(*out));
	out->ack_seq = cp->cp_rx_ack;
	/* Buffers posted before the offer are the credits offered; once
	 * offered, flow control is ours to keep up (rds_ib_cm_fill_conn_param). */
	out->credit = cp->cp_post_credits;
	if (cp->cp_post_credits) {
		cp->cp_fc_adv = true;
		cp->cp_peer_credits = cp->cp_post_credits;
		cp->cp_post_credits = 0;
	}
	return 0;
}

int rdsu_link_hs_peer(struct rdsu_ep *ep, uint64_t link, const struct rdsu_link_hs *peer,
		      rdsu_ns now)
{
	struct rdsu_path *cp;
	int r;

	r = hs_path(ep, link, peer, &cp);
	if (r < 0)
		return r;
	cp->cp_version = peer->version;
	/* rds_ib_set_flow_control: on only when the peer offered credits. */
	cp->cp_fc_send = peer->credit != 0;
	cp->cp_send_credits = 0;
	rdsu_send_credits(cp, peer->credit);
	(void)rdsu_send_hack(cp, peer->ack_seq, now);
	rdsu_path_kick(cp);
	return 0;
}

int rdsu_link_posted(struct rdsu_ep *ep, uint64_t link, uint32_t n, rdsu_ns now)
{
	struct rdsu_path *cp;
	int r;

	(void)now;
	r = frame_path(ep, link, &cp);
	if (r < 0)
		return r;
	cp->cp_post_credits = cp->cp_post_credits > UINT32_MAX - n ? UINT32_MAX
								    : cp->cp_post_credits + n;
	rdsu_send_adv_check(cp);
	return 0;
}

uint16_t rdsu_sport_pick(uint16_t low, uint16_t high, uint8_t res, unsigned n)
{
	uint32_t base = ((uint32_t)low + 7u) & ~7u;
	uint64_t port = base + 8ull * n + res;

	if (res >= WIRE_MAX_PATHS || port > high || port > 65535)
		return 0;
	return (uint16_t)port;
}
