// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * cong.c - congestion maps: ours (one per local address, a port set when
 * its socket holds more than RCVBUF, cleared below half) and each peer's
 * (consulted before queueing, ENOBUFS when the destination port is set),
 * with the congestion-monitor notifications.
 * Ref: net/rds/recv.c rds_recv_rcvbuf_delta() (> rcvbuf congests,
 * < rcvbuf / 2 frees; confirmed in the lab on 6.1 and 7.2),
 * net/rds/cong.c rds_cong_queue_updates() (every connection from the
 * address), rds_cong_map_updated() (monitor bits), rds_cong_wait()
 * (non-blocking: -ENOBUFS), rds_cong_remove_socket(),
 * net/rds/tcp_recv.c rds_tcp_cong_recv() (all bits fire, mask ~0).
 */
#include "core.h"

#include <errno.h>

/* Put the map on the wire for every peer of local address |lidx|: on path
 * 0 when it is up (the lab saw state-change maps on path 0 only), else on
 * the first path that is. With none up, the next path up sends it anyway.
 * Also on every other path that already wrote a map on its link: paths
 * are separate TCP streams, so an older snapshot sent there (the one every
 * path sends when it comes up) may reach the peer after this change on
 * path 0 and undo it, leaving a port congested for good. A newer map
 * behind it on the same stream cannot be overtaken. The kernel sends one
 * map per change and has that race; we pay a map per path instead. */
void rdsu_cong_queue_updates(struct rdsu_ep *ep, int lidx)
{
	bool local = false;

	rdsu_stat_inc(ep, RDSU_STAT_CONG_UPDATE_QUEUED);
	for (size_t i = 0; i < ep->n_conns; i++) {
		struct rdsu_conn *c = ep->conns[i];

		if (!c || c->c_lidx != lidx)
			continue;
		/* rds_loop_xmit puts no map anywhere: it announces the change
		 * (rds_cong_map_updated), the map itself being shared. */
		if (c->c_tp->local) {
			local = true;
			continue;
		}
		bool first = true;

		for (unsigned p = 0; p < WIRE_MAX_PATHS; p++) {
			struct rdsu_path *cp = &c->c_path[p];

			if (cp->cp_state != RDSU_PATH_UP || (!first && !cp->cp_map_sent))
				continue;
			first = false;
			cp->cp_map_queued = true;
			rdsu_path_kick(cp);
		}
	}
	if (local)
		rdsu_cong_map_updated(ep);
}

void rdsu_cong_rcvbuf_delta(struct rdsu_sock *rs, int64_t delta)
{
	struct rdsu_ep *ep = rs->rs_ep;
	bool now_congested;

	rs->rs_rcv_bytes = (uint64_t)((int64_t)rs->rs_rcv_bytes + delta);
	if (delta > 0)
		rdsu_stat_add(ep, RDSU_STAT_RECV_BYTES_ADDED, (uint64_t)delta);
	else
		rdsu_stat_add(ep, RDSU_STAT_RECV_BYTES_FREED, (uint64_t)-delta);
	now_congested = rs->rs_rcv_bytes > rs->rs_rcvbuf;
	if (!rs->rs_congested && now_congested && rdsu_sock_rcvbuf_grow(rs))
		now_congested = false;
	if (!rs->rs_congested && now_congested) {
		rs->rs_congested = true;
		wire_cong_set(ep->lmaps[rs->rs_lidx], rs->rs_port);
		rdsu_cong_queue_updates(ep, rs->rs_lidx);
	} else if (rs->rs_congested && rs->rs_rcv_bytes < rs->rs_rcvbuf / 2) {
		/* Hysteresis: free only below half, so the port does not flap. */
		rs->rs_congested = false;
		wire_cong_clear(ep->lmaps[rs->rs_lidx], rs->rs_port);
		rdsu_cong_queue_updates(ep, rs->rs_lidx);
	}
}

void rdsu_cong_remove_sock(struct rdsu_sock *rs)
{
	struct rdsu_ep *ep = rs->rs_ep;

	if (!rs->rs_bound || !rs->rs_congested)
		return;
	rs->rs_congested = false;
	wire_cong_clear(ep->lmaps[rs->rs_lidx], rs->rs_port);
	rdsu_cong_queue_updates(ep, rs->rs_lidx);
}

void rdsu_cong_peer_update(struct rdsu_conn *c, const uint8_t *map, size_t len)
{
	if (wire_cong_decode(&c->c_fcong, map, len) < 0)
		return;
	rdsu_cong_map_updated(c->c_ep);
}

/* rds_cong_map_updated: a map changed (a peer's arrived, or one of ours
 * on the loopback transport). */
void rdsu_cong_map_updated(struct rdsu_ep *ep)
{
	rdsu_stat_inc(ep, RDSU_STAT_CONG_UPDATE_RECEIVED);
	ep->cong_gen++;
	/* TCP passes a mask of ~0: every monitored port group is told. */
	for (size_t i = 0; i < ep->n_socks; i++) {
		struct rdsu_sock *rs = ep->socks[i];

		if (rs->rs_cong_monitor) {
			rs->rs_cong_notify |= rs->rs_cong_mask;
			rs->rs_cong_mask = 0;
			if (rs->rs_cong_notify)
				rdsu_sock_ev(rs, RDSU_POLLIN);
		} else if (rs->rs_seen_cong) {
			rs->rs_seen_cong = false;
			rdsu_sock_ev(rs, RDSU_POLLWRBAND);
		}
	}
}

/*
 * Is |port| congested in the map of |c|'s peer? On the loopback transport
 * the peer's map is our own map of that address (the kernel's c_fcong is
 * the one map of the address, shared). A socket bound with the loopback
 * transport (127.0.0.0/8, ::1) never congests in the kernel
 * (rds_recv_rcvbuf_delta); ours marks its port for the peers that reach
 * it over TCP (other endpoints on 127.0.0.0/8), but its own endpoint's
 * senders do not see that mark, so to them it never congests either.
 */
bool rdsu_cong_test(const struct rdsu_conn *c, uint16_t port)
{
	const struct rdsu_sock *rs;
	int lf;

	if (!c->c_tp->local)
		return wire_cong_test(&c->c_fcong, port);
	lf = rdsu_ep_lidx(c->c_ep, &c->c_faddr);
	if (lf < 0 || !wire_cong_test(c->c_ep->lmaps[lf], port))
		return false;
	rs = rdsu_sock_find_bound(c->c_ep, lf, port);
	return !rs || rdsu_tprops_get(rs->rs_trans)->rcv_cong;
}

/* rds_cong_wait, non-blocking. */
int rdsu_cong_check_send(struct rdsu_conn *c, struct rdsu_sock *rs, uint16_t dport)
{
	if (!rdsu_cong_test(c, dport))
		return 0;
	if (rs && rs->rs_cong_monitor)
		rs->rs_cong_mask |= 1ull << (dport % 64);
	if (rs)
		rs->rs_seen_cong = true;
	rdsu_stat_inc(c->c_ep, RDSU_STAT_CONG_SEND_ERROR);
	return -ENOBUFS;
}
