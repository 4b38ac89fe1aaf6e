// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * send.c - outgoing messages: queueing with a sequence number, writing them
 * to the link one at a time, freeing them when TCP acknowledged their last
 * byte, and putting the rest back for resending after a reconnect.
 * Ref: net/rds/send.c rds_send_queue_rm() (seq assigned at queue time,
 * SNDBUF charged), rds_send_xmit() (map between messages, message moved to
 * the retransmit queue as it starts), rds_send_path_reset() (retransmit
 * queue spliced in front, RETRANSMITTED), rds_send_path_drop_acked(),
 * rds_send_drop_to(), rds_send_probe() (pongs and probes);
 * net/rds/tcp_send.c rds_tcp_xmit() (m_ack_seq = last byte of the message),
 * net/rds/cong.c rds_cong_update_alloc() (the map message).
 */
#include "core.h"

#include <string.h>

static struct rdsu_msg *msg_new(struct rdsu_ep *ep, uint32_t len)
{
	struct rdsu_msg *rm = rdsu_buf_alloc(ep, sizeof(*rm) + len);

	if (!rm)
		return NULL;
	memset(rm, 0, sizeof(*rm));
	rdsu_list_init(&rm->m_conn_item);
	rdsu_list_init(&rm->m_sock_item);
	rm->m_len = len;
	return rm;
}

static void msg_free(struct rdsu_path *cp, struct rdsu_msg *rm)
{
	/* acknowledged, or gone with its connection: its op, if any, ends
	 * without a word of its own (those dropped say so first) */
	rdsu_rdma_msg_gone(cp->cp_conn->c_ep, rm, 0, 0);
	if (rm->m_kind == RDSU_MK_DATA)
		cp->cp_conn->c_data_msgs--;
	rdsu_buf_free(cp->cp_conn->c_ep, rm, sizeof(*rm) + rm->m_len);
}

/* |seq| 0: the path's next number; else one taken before. */
static void msg_enqueue(struct rdsu_path *cp, struct rdsu_msg *rm, uint64_t seq)
{
	rm->m_cp = cp;
	rm->m_seq = seq ? seq : cp->cp_next_tx_seq++;
	/* FAULT seq-skip: one number is never used. A kernel receiver takes
	 * the gap (cp_next_rx_seq = seq + 1); a wire checker sees it. */
	if (!seq && rdsu_faulty(cp->cp_conn->c_ep, RDSU_FAULT_SEQ_SKIP))
		cp->cp_next_tx_seq++;
	rdsu_list_add_tail(&rm->m_conn_item, &cp->cp_send_q);
	cp->cp_send_msgs++;
	cp->cp_send_bytes += rm->m_len;
	if (rm->m_kind == RDSU_MK_DATA)
		cp->cp_conn->c_data_msgs++;
}

/* Take |rm| off whichever path queue it is on. */
static void msg_unqueue(struct rdsu_path *cp, struct rdsu_msg *rm)
{
	rdsu_list_del_init(&rm->m_conn_item);
	if (rm->m_flags & RDSU_MF_ON_RETRANS) {
		cp->cp_retrans_msgs--;
		cp->cp_retrans_bytes -= rm->m_len;
		rm->m_flags &= (uint8_t)~RDSU_MF_ON_RETRANS;
	} else {
		cp->cp_send_msgs--;
		cp->cp_send_bytes -= rm->m_len;
	}
}

/* The peer has |rm|: off the retransmit queue, its sender told. */
static void msg_acked(struct rdsu_path *cp, struct rdsu_msg *rm, rdsu_ns now)
{
	msg_unqueue(cp, rm);
	if (!(rm->m_flags & RDSU_MF_DROPPED))
		rdsu_stat_inc(cp->cp_conn->c_ep, RDSU_STAT_SEND_DROP_ACKED);
	rdsu_sock_msg_acked(rm, now);
	msg_free(cp, rm);
}

/* Paths above 0 may have been waiting for path 0 to drain. */
static void catchup_check(struct rdsu_conn *c)
{
	if (!c->c_cp0_catchup || !rdsu_probe_cp0_caught_up(c))
		return;
	for (unsigned i = 1; i < WIRE_MAX_PATHS; i++)
		rdsu_path_kick(&c->c_path[i]);
}

int rdsu_send_data(struct rdsu_path *cp, struct rdsu_sock *rs, uint16_t dport, rdsu_ns now,
		   const struct iovec *iov, int iovcnt, uint32_t len, struct rdsu_rop *op)
{
	struct rdsu_msg *rm = msg_new(cp->cp_conn->c_ep, len);
	size_t off = 0;

	if (!rm)
		return RDSU_ERR_NOMEM;
	if (cp->cp_index == 0 && cp->cp_conn->c_npaths <= 1)
		cp->cp_conn->c_cp0_data = true;
	for (int i = 0; i < iovcnt; i++) {
		if (iov[i].iov_len)
			memcpy(rm->m_data + off, iov[i].iov_base, iov[i].iov_len);
		off += iov[i].iov_len;
	}
	rm->m_kind = RDSU_MK_DATA;
	rm->m_sport = rs->rs_port;
	rm->m_dport = dport;
	rm->m_rs = rs;
	rm->m_queued = now;
	if (rs->rs_zc_arm) {
		/* rdsu_sock_submit_zc(): this message carries the cookie */
		rs->rs_zc_arm = false;
		rm->m_flags |= RDSU_MF_ZCOPY;
		rm->m_zcookie = rs->rs_zc_cookie;
		rs->rs_zc_inflight++;
	}
	if (op) {
		rm->m_op = op;
		op->o_msg = rm;
	}
	rdsu_list_add_tail(&rm->m_sock_item, &rs->rs_msgs);
	rs->rs_snd_bytes += len;
	/* rds_send_queue_rm: a sender close to its SNDBUF asks for an ack. */
	if (cp->cp_conn->c_tp->ack == RDSU_ACK_HDR && rs->rs_snd_bytes >= rs->rs_sndbuf / 2)
		rm->m_flags |= RDSU_MF_ACK_REQ;
	msg_enqueue(cp, rm, 0);
	rdsu_stat_inc(cp->cp_conn->c_ep, RDSU_STAT_SEND_QUEUED);
	rdsu_path_kick(cp);
	return 0;
}

/*
 * Queue a pong or a probe on |cp| (rds_send_probe). Like any message it
 * takes the next sequence number and is resent after a reconnect. A pong
 * to a port the peer reported congested is silently not sent.
 */
int rdsu_send_ctl(struct rdsu_path *cp, enum rdsu_msg_kind kind, uint16_t dport, rdsu_ns now)
{
	return rdsu_send_ctl_seq(cp, kind, dport, 0, now);
}

int rdsu_send_ctl_seq(struct rdsu_path *cp, enum rdsu_msg_kind kind, uint16_t dport, uint64_t seq,
		      rdsu_ns now)
{
	struct rdsu_conn *c = cp->cp_conn;
	struct rdsu_msg *rm;
	uint32_t plen = 0;

	switch (kind) {
	case RDSU_MK_PROBE_PING:
		dport = 0;
		break;
	case RDSU_MK_PROBE_PONG:
		dport = WIRE_PROBE_PORT;
		break;
	default:
		break;
	}
	if (rdsu_cong_test(c, dport))
		return 0;
	/* FAULT pong-payload: rds_send_pong sends no payload; this one
	 * carries 4 bytes (build_hdr puts m_len in h_len). */
	if (kind == RDSU_MK_PONG && rdsu_faulty(c->c_ep, RDSU_FAULT_PONG_PAYLOAD))
		plen = 4;
	rm = msg_new(c->c_ep, plen);
	if (!rm)
		return RDSU_ERR_NOMEM;
	memset(rm->m_data, 0xfa, plen);
	rm->m_kind = (uint8_t)kind;
	rm->m_sport = kind == RDSU_MK_PROBE_PING ? WIRE_PROBE_PORT : 0;
	rm->m_dport = dport;
	msg_enqueue(cp, rm, seq);
	rdsu_stat_inc(c->c_ep, RDSU_STAT_SEND_PONG);
	if (kind == RDSU_MK_PROBE_PING)
		rdsu_stat_inc(c->c_ep, RDSU_STAT_PROBE_SENT);
	rdsu_path_connect_if_down(cp, now);
	rdsu_path_kick(cp);
	return 1;
}

/*
 * 7.x: until the peer's first probe says whether it encodes paths in its
 * source ports, an accepted path 0 whose port names another path may be
 * the peer's path k (a 7.x peer reconnecting its paths to a fresh
 * endpoint, in any order). Data written there would be delivered on the
 * peer's path k and, after the re-sync moves path 0 (probe.c), again on
 * its real path 0, whose sequence state knows nothing of it: the lab saw
 * a 7.2 kernel deliver such a message twice. So only control messages
 * (probes, pongs) go until the count is known, one round trip.
 */
static bool path0_unsure(const struct rdsu_path *cp)
{
	const struct rdsu_conn *c = cp->cp_conn;

	return cp->cp_index == 0 && c->c_ep->cfg.kver != WIRE_KVER_6 && c->c_npaths == 0 &&
	       !cp->cp_outgoing && cp->cp_peer_sport % WIRE_MAX_PATHS != 0;
}

static bool may_send_head(struct rdsu_path *cp)
{
	const struct rdsu_msg *rm = rdsu_msg_head(&cp->cp_send_q);

	if (!rm)
		return false;
	/* No data to a connection that has not spoken RDS (rdsu_path_proven);
	 * a ping may go, as its pong is what a silent peer answers with. */
	if (rm->m_kind == RDSU_MK_DATA && rm->m_dport && !cp->cp_proven)
		return false;
	if (cp->cp_index > 0)
		return rdsu_probe_cp0_caught_up(cp->cp_conn);
	return rm->m_kind != RDSU_MK_DATA || !path0_unsure(cp);
}

bool rdsu_send_has_output(struct rdsu_path *cp)
{
	if (cp->cp_xmit.active || cp->cp_map_queued || cp->cp_ack_wanted)
		return true;
	return may_send_head(cp);
}

/* rds_ib_piggyb_ack: the ack a header carries, which answers any ACK-only
 * frame owed. */
static uint64_t hdr_ack(struct rdsu_path *cp)
{
	cp->cp_ack_wanted = false;
	/* FAULT ib-ack-zero: nothing is ever acknowledged, so the peer
	 * keeps every message for a retransmission and its SNDBUF fills. */
	if (rdsu_faulty(cp->cp_conn->c_ep, RDSU_FAULT_IB_ACK_ZERO))
		return 0;
	return cp->cp_rx_ack;
}

/* The valid h_csum, or with FAULT ib-csum-bad one the receiver refuses
 * (rds_ib_process_recv drops the connection). */
static void frame_csum(struct rdsu_path *cp, struct wire_hdr *h)
{
	wire_hdr_csum_set(h);
	if (rdsu_faulty(cp->cp_conn->c_ep, RDSU_FAULT_IB_CSUM_BAD))
		h->csum = (uint16_t)(h->csum + 1 ? h->csum + 1 : 2);
}

/* rds_send_xmit: every max_unacked_packets-th message, or one larger
 * than the bytes left, asks for an ack; the countdowns start at 0. */
static void ack_countdown(struct rdsu_path *cp, struct rdsu_msg *rm)
{
	if (cp->cp_unacked_pkts == 0 || cp->cp_unacked_bytes < rm->m_len) {
		rm->m_flags |= RDSU_MF_ACK_REQ;
		cp->cp_unacked_pkts = RDSU_MAX_UNACKED_PKTS;
		cp->cp_unacked_bytes = RDSU_MAX_UNACKED_BYTES;
	} else {
		cp->cp_unacked_pkts--;
		cp->cp_unacked_bytes -= rm->m_len;
	}
}

static void build_hdr(struct rdsu_path *cp, const struct rdsu_msg *rm, uint8_t *out)
{
	struct wire_hdr h;

	switch (rm->m_kind) {
	case RDSU_MK_PONG:
		wire_build_pong(&h, rm->m_seq, rm->m_dport);
		h.len = rm->m_len; /* 0 but for FAULT pong-payload */
		/* FAULT pong-wrong-port: a pong comes from port 0
		 * (rds_send_pong); this one echoes the pinging port, so the
		 * pinger reads it as a message from that port. */
		if (rdsu_faulty(cp->cp_conn->c_ep, RDSU_FAULT_PONG_WRONG_PORT))
			h.sport = rm->m_dport;
		break;
	case RDSU_MK_PROBE_PING:
	case RDSU_MK_PROBE_PONG:
		rdsu_probe_build(cp->cp_conn, &h, rm->m_kind == RDSU_MK_PROBE_PONG, rm->m_seq);
		break;
	default:
		wire_build_data(&h, rm->m_seq, rm->m_sport, rm->m_dport, rm->m_len);
		rdsu_rdma_hdr_exts(cp, rm, &h);
		break;
	}
	/* FAULT retrans-no-flag: a resent message goes out unflagged, so
	 * the receiver cannot tell it from a new one and delivers it again
	 * (rds_recv_incoming drops only flagged old sequence numbers). */
	if ((rm->m_flags & RDSU_MF_RETRANS) &&
	    !rdsu_faulty(cp->cp_conn->c_ep, RDSU_FAULT_RETRANS_NO_FLAG))
		h.flags |= WIRE_FLAG_RETRANSMITTED;
	/* FAULT ack-sent: RDS/TCP leaves h_ack 0 (TCP does the acking);
	 * fill it in as the IB transport's piggy-backed ack would. */
	if (rdsu_faulty(cp->cp_conn->c_ep, RDSU_FAULT_ACK_SENT))
		h.ack = cp->cp_next_rx_seq;
	if (cp->cp_conn->c_tp->ack == RDSU_ACK_HDR) {
		if (rm->m_flags & RDSU_MF_ACK_REQ)
			h.flags |= WIRE_FLAG_ACK_REQUIRED;
		h.ack = hdr_ack(cp);
	}
	wire_hdr_encode(&h, out, WIRE_HDR_LEN);
}

static bool map_start(struct rdsu_path *cp)
{
	struct rdsu_conn *c = cp->cp_conn;
	struct rdsu_ep *ep = c->c_ep;
	struct rdsu_xmit *x = &cp->cp_xmit;
	uint32_t plen = WIRE_CONG_MAP_BYTES;
	struct wire_hdr h;

	if (!cp->cp_map_snap)
		cp->cp_map_snap = rdsu_mem_alloc(ep, WIRE_CONG_MAP_BYTES);
	if (!cp->cp_map_snap)
		return false; /* stays queued; messages go first */
	/* A snapshot, so a change while the map is being written cannot tear
	 * it; the change queues another map anyway. */
	wire_cong_encode(ep->lmaps[c->c_lidx], cp->cp_map_snap, WIRE_CONG_MAP_BYTES);
	wire_build_cong(&h);
	/* FAULT short-map: only the first half of the map (h_len 4096);
	 * rds_tcp_cong_recv ignores a map that is not RDS_CONG_MAP_BYTES. */
	if (rdsu_faulty(ep, RDSU_FAULT_SHORT_MAP))
		plen = WIRE_CONG_MAP_BYTES / 2;
	h.len = plen;
	/* FAULT map-flags: a map is h_flags == RDS_FLAG_CONG_BITMAP exactly
	 * (rds_tcp_data_recv); with ACK_REQUIRED added the peer never sees a
	 * map, only a message from port 0 to port 0, which it ignores. */
	if (rdsu_faulty(ep, RDSU_FAULT_MAP_FLAGS))
		h.flags |= WIRE_FLAG_ACK_REQUIRED;
	if (c->c_tp->ack == RDSU_ACK_HDR)
		h.ack = hdr_ack(cp);
	wire_hdr_encode(&h, x->hdr, WIRE_HDR_LEN);
	x->payload = cp->cp_map_snap;
	x->plen = plen;
	x->rm = NULL;
	x->off = 0;
	x->active = true;
	cp->cp_map_queued = false;
	cp->cp_map_sent = true;
	rdsu_stat_inc(ep, RDSU_STAT_MAPS_SENT);
	return true;
}

static bool xmit_start(struct rdsu_path *cp)
{
	struct rdsu_xmit *x = &cp->cp_xmit;
	struct rdsu_msg *rm;

	if (cp->cp_map_queued && map_start(cp))
		return true;
	if (!may_send_head(cp))
		return false;
	rm = rdsu_msg_head(&cp->cp_send_q);
	msg_unqueue(cp, rm);
	/* On the retransmit queue from its first byte: if the link dies now,
	 * it is resent, flagged, even if no byte of it left (rds_send_xmit;
	 * seen on 6.1 in the lab). */
	rdsu_list_add_tail(&rm->m_conn_item, &cp->cp_retrans_q);
	rm->m_flags |= RDSU_MF_ON_RETRANS;
	cp->cp_retrans_msgs++;
	cp->cp_retrans_bytes += rm->m_len;
	if (cp->cp_conn->c_tp->ack == RDSU_ACK_HDR)
		ack_countdown(cp, rm);
	build_hdr(cp, rm, x->hdr);
	/* its RDMA or atomic is posted before its first frame */
	rdsu_rdma_post(cp, rm);
	x->payload = rm->m_data;
	x->plen = rm->m_len;
	x->rm = rm;
	x->off = 0;
	x->active = true;
	rm->m_ack_off = cp->cp_tx_off + WIRE_HDR_LEN + rm->m_len;
	return true;
}

void rdsu_send_peek(struct rdsu_path *cp, const uint8_t **p, size_t *len)
{
	struct rdsu_xmit *x = &cp->cp_xmit;

	*p = NULL;
	*len = 0;
	if (!x->active && !xmit_start(cp)) {
		/* Drained: the next thing to send raises a new OUTPUT request. */
		cp->cp_out_armed = false;
		rdsu_ep_req_clear(cp, RDSU_REQ_OUTPUT);
		return;
	}
	if (x->off < WIRE_HDR_LEN) {
		*p = x->hdr + x->off;
		*len = WIRE_HDR_LEN - x->off;
	} else {
		*p = x->payload + (x->off - WIRE_HDR_LEN);
		*len = x->plen - (x->off - WIRE_HDR_LEN);
	}
}

int rdsu_send_advance(struct rdsu_path *cp, size_t n)
{
	struct rdsu_xmit *x = &cp->cp_xmit;
	size_t span;

	if (n == 0)
		return 0;
	if (!x->active)
		return RDSU_ERR_INVAL;
	span = x->off < WIRE_HDR_LEN ? WIRE_HDR_LEN - x->off
				     : x->plen - (x->off - WIRE_HDR_LEN);
	if (n > span)
		return RDSU_ERR_INVAL;
	x->off += (uint32_t)n;
	cp->cp_tx_off += n;
	if (x->off == WIRE_HDR_LEN + x->plen) {
		x->active = false;
		/* Maps go out on path ups and congestion changes only: an idle
		 * path keeps no 8 KiB snapshot. */
		if (!x->rm && x->payload == cp->cp_map_snap) {
			rdsu_mem_free(cp->cp_conn->c_ep, cp->cp_map_snap);
			cp->cp_map_snap = NULL;
		}
	}
	return 0;
}

int rdsu_send_acked(struct rdsu_path *cp, uint64_t acked, rdsu_ns now)
{
	struct rdsu_msg *rm;
	int freed = 0;

	if (acked < cp->cp_acked || acked > cp->cp_tx_off)
		return RDSU_ERR_INVAL;
	cp->cp_acked = acked;
	while ((rm = rdsu_msg_head(&cp->cp_retrans_q))) {
		/* In order of m_ack_off; the message being written has its
		 * last byte beyond anything acknowledged. */
		if (rm->m_ack_off > acked)
			break;
		msg_acked(cp, rm, now);
		freed++;
	}
	if (freed && cp->cp_index == 0)
		catchup_check(cp->cp_conn);
	return freed;
}

void rdsu_send_path_reset(struct rdsu_path *cp)
{
	struct rdsu_ep *ep = cp->cp_conn->c_ep;
	struct rdsu_list again;
	struct rdsu_msg *rm;

	memset(&cp->cp_xmit, 0, sizeof(cp->cp_xmit));
	cp->cp_frag_off = 0;
	cp->cp_unacked_pkts = RDSU_MAX_UNACKED_PKTS;
	cp->cp_unacked_bytes = RDSU_MAX_UNACKED_BYTES;
	rdsu_list_init(&again);
	rdsu_rdma_path_down(cp);
	while ((rm = rdsu_msg_head(&cp->cp_retrans_q))) {
		msg_unqueue(cp, rm);
		/* rds_send_xmit: a message whose RDMA went out is never
		 * resent; it is dropped when its turn would come. */
		if (rdsu_rdma_carries_op(rm) && !(rm->m_flags & RDSU_MF_DROPPED)) {
			rdsu_rdma_msg_gone(ep, rm, RDSU_ROP_END_DROP, RDSU_RDMA_DROPPED);
			rdsu_stat_inc(ep, RDSU_STAT_SEND_DROPPED);
			rdsu_sock_msg_release(rm);
			msg_free(cp, rm);
			continue;
		}
		if (rm->m_flags & (RDSU_MF_DROPPED | RDSU_MF_FLUSH)) {
			if (rm->m_flags & RDSU_MF_FLUSH)
				rdsu_stat_inc(ep, RDSU_STAT_SEND_DROPPED);
			rdsu_sock_msg_release(rm);
			msg_free(cp, rm);
			continue;
		}
		rm->m_flags |= RDSU_MF_RETRANS;
		/* rds_send_xmit: a resent message asks for an ack */
		if (cp->cp_conn->c_tp->ack == RDSU_ACK_HDR)
			rm->m_flags |= RDSU_MF_ACK_REQ;
		rdsu_list_add_tail(&rm->m_conn_item, &again);
		cp->cp_send_msgs++;
		cp->cp_send_bytes += rm->m_len;
		rdsu_stat_inc(ep, RDSU_STAT_SEND_RETRANSMITTED);
	}
	rdsu_list_splice_front(&again, &cp->cp_send_q);
	if (cp->cp_index == 0)
		catchup_check(cp->cp_conn);
}

/* The peer restarted (rds_conn_peer_gen_update): what it had not
 * acknowledged is lost with it and must not be resent. */
void rdsu_send_flush_retrans(struct rdsu_path *cp)
{
	struct rdsu_list *n;

	for (n = cp->cp_retrans_q.next; n != &cp->cp_retrans_q; n = n->next) {
		struct rdsu_msg *rm = rdsu_container_of(n, struct rdsu_msg, m_conn_item);

		rm->m_flags |= RDSU_MF_FLUSH;
	}
}

void rdsu_send_free_all(struct rdsu_path *cp)
{
	struct rdsu_list *qs[2] = { &cp->cp_send_q, &cp->cp_retrans_q };
	struct rdsu_msg *rm;

	memset(&cp->cp_xmit, 0, sizeof(cp->cp_xmit));
	for (unsigned i = 0; i < 2; i++)
		while ((rm = rdsu_msg_head(qs[i]))) {
			msg_unqueue(cp, rm);
			rdsu_sock_msg_release(rm);
			msg_free(cp, rm);
		}
}

/*
 * rds_send_drop_to: remove |rs|'s unacknowledged messages to (faddr,
 * dport), or all of them when |faddr| is NULL, from the path queues. The
 * message being written stays until its bytes are out, marked so that it
 * is neither acknowledged to anyone nor resent.
 */
int rdsu_send_drop_sock(struct rdsu_sock *rs, const struct rdsu_addr *faddr, uint16_t dport)
{
	struct rdsu_ep *ep = rs->rs_ep;
	struct rdsu_list *n, *next;
	int dropped = 0;

	for (n = rs->rs_msgs.next; n != &rs->rs_msgs; n = next) {
		struct rdsu_msg *rm = rdsu_container_of(n, struct rdsu_msg, m_sock_item);
		struct rdsu_path *cp = rm->m_cp;

		next = n->next;
		if (faddr && (rdsu_addr_cmp(&cp->cp_conn->c_faddr, faddr) != 0 ||
			      rm->m_dport != dport))
			continue;
		if (faddr)
			rdsu_rdma_msg_gone(ep, rm, RDSU_ROP_END_CANCEL, RDSU_RDMA_CANCELED);
		rdsu_sock_msg_release(rm);
		if (cp->cp_xmit.active && cp->cp_xmit.rm == rm) {
			rm->m_flags |= RDSU_MF_DROPPED;
		} else {
			msg_unqueue(cp, rm);
			msg_free(cp, rm);
			if (cp->cp_index == 0)
				catchup_check(cp->cp_conn);
		}
		rdsu_stat_inc(ep, RDSU_STAT_SEND_DROPPED);
		dropped++;
	}
	return dropped;
}

/* ------------------------------------------------------------------------
 * Frame transports (IB): each output is one whole frame, the full header
 * and up to frag_size payload bytes; acknowledgement is h_ack.
 * Ref: net/rds/ib_send.c rds_ib_xmit(), rds_ib_send_grab_credits(),
 * rds_ib_advertise_credits(), rds_ib_send_ack(); net/rds/ib_recv.c
 * rds_ib_set_ack(); net/rds/send.c rds_send_drop_acked().
 */

/* Whether the next frame may go under the peer's flow control: the last
 * credit is kept for a frame that advertises credits, or the two ends
 * could both wait for a credit update. */
static bool credit_ok(const struct rdsu_path *cp)
{
	if (!cp->cp_fc_send)
		return true;
	if (cp->cp_send_credits == 0)
		return false;
	return cp->cp_send_credits > 1 || (cp->cp_fc_adv && cp->cp_post_credits);
}

/* One send credit for the next frame when the peer runs flow control. */
static bool credit_take(struct rdsu_path *cp)
{
	if (!credit_ok(cp))
		return false;
	if (cp->cp_fc_send)
		cp->cp_send_credits--;
	return true;
}

bool rdsu_send_credit_stalled(struct rdsu_path *cp)
{
	return cp->cp_fc_send && !credit_ok(cp) && rdsu_send_has_output(cp);
}

/* h_credit: posted receive buffers not yet advertised, at most 255. */
static uint8_t credit_adv(struct rdsu_path *cp)
{
	uint32_t n;

	if (!cp->cp_fc_adv)
		return 0;
	n = cp->cp_post_credits > 255 ? 255 : cp->cp_post_credits;
	cp->cp_post_credits -= n;
	cp->cp_peer_credits += n;
	return (uint8_t)n;
}

/*
 * Posted buffers wait to be advertised in the next header; an ACK-only
 * frame carries them when 16 wait (rds_ib_advertise_credits) or when the
 * peer is down to the last credit, which it keeps for a credit update: a
 * peer offered fewer than 16 would otherwise wait for ever.
 */
void rdsu_send_adv_check(struct rdsu_path *cp)
{
	if (!cp->cp_fc_adv || !cp->cp_post_credits)
		return;
	if (cp->cp_post_credits >= RDSU_ADV_CREDITS_ACK || cp->cp_peer_credits <= 1) {
		cp->cp_ack_wanted = true;
		rdsu_path_kick(cp);
	}
}

static ssize_t frame_ack_only(struct rdsu_path *cp, uint8_t *buf)
{
	struct wire_hdr h;

	memset(&h, 0, sizeof(h));
	h.ack = hdr_ack(cp);
	h.credit = credit_adv(cp);
	frame_csum(cp, &h);
	wire_hdr_encode(&h, buf, WIRE_HDR_LEN);
	rdsu_stat_inc(cp->cp_conn->c_ep, RDSU_STAT_ACK_SENT);
	return WIRE_HDR_LEN;
}

ssize_t rdsu_send_frame(struct rdsu_path *cp, uint8_t *buf, size_t cap)
{
	struct rdsu_xmit *x = &cp->cp_xmit;
	uint32_t fsz = cp->cp_conn->c_tp->frag_size, flen;
	struct wire_hdr h;

	if (cap < WIRE_HDR_LEN + fsz)
		return RDSU_ERR_INVAL;
	/* An owed ack rides on the next message if one starts now. */
	if (cp->cp_ack_wanted && !x->active)
		(void)xmit_start(cp);
	if (cp->cp_ack_wanted) {
		if (!credit_take(cp))
			goto dry;
		return frame_ack_only(cp, buf);
	}
	if (!x->active && !xmit_start(cp))
		goto dry;
	if (!credit_take(cp))
		goto dry;
	/* The header is the message's, fixed when it started; only h_credit
	 * differs between its frames. */
	wire_hdr_decode(&h, x->hdr, WIRE_HDR_LEN);
	h.credit = credit_adv(cp);
	/* FAULT ib-frag-mismatch: a later fragment names the next sequence
	 * number, which a receiver takes for a fragment header mismatch. */
	if (cp->cp_frag_off && rdsu_faulty(cp->cp_conn->c_ep, RDSU_FAULT_IB_FRAG_MISMATCH))
		h.seq++;
	frame_csum(cp, &h);
	wire_hdr_encode(&h, buf, WIRE_HDR_LEN);
	flen = x->plen - cp->cp_frag_off;
	if (flen > fsz)
		flen = fsz;
	if (flen)
		memcpy(buf + WIRE_HDR_LEN, x->payload + cp->cp_frag_off, flen);
	cp->cp_frag_off += flen;
	if (cp->cp_frag_off == x->plen) {
		x->active = false;
		cp->cp_frag_off = 0;
		if (!x->rm && x->payload == cp->cp_map_snap) {
			rdsu_mem_free(cp->cp_conn->c_ep, cp->cp_map_snap);
			cp->cp_map_snap = NULL;
		}
	}
	return WIRE_HDR_LEN + flen;
dry:
	/* Drained, or out of credits: a new message, an owed ack or a
	 * credit update raises a new OUTPUT request. */
	cp->cp_out_armed = false;
	rdsu_ep_req_clear(cp, RDSU_REQ_OUTPUT);
	return 0;
}

/* h_ack or dp_ack_seq |ack|: every message up to it arrived. The one
 * whose frames are still being handed out stays until a later ack. */
int rdsu_send_hack(struct rdsu_path *cp, uint64_t ack, rdsu_ns now)
{
	struct rdsu_msg *rm;
	int freed = 0;

	if (ack <= cp->cp_hack)
		return 0;
	cp->cp_hack = ack;
	while ((rm = rdsu_msg_head(&cp->cp_retrans_q))) {
		if (rm->m_seq > ack || (cp->cp_xmit.active && cp->cp_xmit.rm == rm))
			break;
		msg_acked(cp, rm, now);
		freed++;
	}
	return freed;
}

/* h_credit or dp_credit |n| from the peer. */
void rdsu_send_credits(struct rdsu_path *cp, uint32_t n)
{
	if (!cp->cp_fc_send || !n)
		return;
	cp->cp_send_credits = cp->cp_send_credits > UINT32_MAX - n ? UINT32_MAX
								   : cp->cp_send_credits + n;
	rdsu_path_kick(cp);
}
