// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * recv.c - the incoming byte stream of a path: deframed by libwire, then
 * each message handled as the kernel's receive path does.
 * Ref: net/rds/tcp_recv.c rds_tcp_data_recv() (h_flags == 0x01 exactly
 * means a map, rds_tcp_cong_recv ignores one that is not 8192 bytes),
 * net/rds/recv.c rds_recv_incoming() (duplicate drop only for
 * RETRANSMITTED and seq < next, otherwise next = seq + 1 even backwards;
 * pings before socket lookup; probe pongs never delivered).
 */
#include "core.h"

#include <stdlib.h>
#include <string.h>

/*
 * The duplicate check when slots are filed in arrival order. A sender puts
 * all messages from one socket to one port on one path (the kernel all of
 * a socket's messages, by its bound port; librds with the pair rule by
 * the port pair, rdsu_path_of), so they carry rising numbers of that path's
 * sequence; after all paths reconnect, a 6.1 acceptor may file that path's
 * connection in another slot (kernel-behaviour.md, librds item 3), whose
 * cp_next_rx_seq belongs to another sequence. Checked against the last
 * number taken from the same port pair, a resent copy is known wherever it
 * lands. A pair not in the table (never seen, or pushed out by others)
 * falls back to the slot's number. Only data: pongs of every path share
 * port 0.
 */
#define RX_SEEN_SLOTS 128       /* a power of two */
#define RX_SEEN_PROBE 8

struct rdsu_rx_seen {
	struct {
		uint64_t seq;
		uint32_t ports;         /* sport << 16 | dport */
		bool used;
	} e[RX_SEEN_SLOTS];
};

static uint32_t seen_key(const struct wire_hdr *h)
{
	return (uint32_t)h->sport << 16 | h->dport;
}

static unsigned seen_home(uint32_t ports)
{
	return (ports * 2654435761u >> 20) & (RX_SEEN_SLOTS - 1);
}

static bool seen_applies(const struct rdsu_conn *c, const struct wire_hdr *h)
{
	return rdsu_conn_slots_by_order(c) && h->sport != 0 && h->dport != 0 &&
	       h->sport != WIRE_PROBE_PORT && h->dport != WIRE_PROBE_PORT;
}

static const uint64_t *seen_find(const struct rdsu_conn *c, uint32_t ports)
{
	const struct rdsu_rx_seen *t = c->c_rx_seen;
	unsigned home = seen_home(ports);

	if (!t)
		return NULL;
	for (unsigned i = 0; i < RX_SEEN_PROBE; i++) {
		unsigned k = (home + i) & (RX_SEEN_SLOTS - 1);

		if (t->e[k].used && t->e[k].ports == ports)
			return &t->e[k].seq;
	}
	return NULL;
}

static void seen_note(struct rdsu_conn *c, uint32_t ports, uint64_t seq)
{
	struct rdsu_rx_seen *t = c->c_rx_seen;
	unsigned home = seen_home(ports), k = home;

	if (!t) {
		t = c->c_rx_seen = rdsu_mem_zalloc(c->c_ep, sizeof(*t));
		if (!t)
			return; /* the slot's number still decides */
	}
	for (unsigned i = 0; i < RX_SEEN_PROBE; i++) {
		unsigned j = (home + i) & (RX_SEEN_SLOTS - 1);

		if (!t->e[j].used || t->e[j].ports == ports) {
			k = j;
			break;
		}
	}
	t->e[k].used = true;
	t->e[k].ports = ports;
	t->e[k].seq = seq;
}

/* After the peer restarted its sequences (a new generation). */
void rdsu_recv_seen_reset(struct rdsu_conn *c)
{
	if (c->c_rx_seen)
		memset(c->c_rx_seen, 0, sizeof(*c->c_rx_seen));
}

static bool is_copy(struct rdsu_path *cp, const struct wire_hdr *h)
{
	bool by_slot = h->seq < cp->cp_next_rx_seq;
	const uint64_t *last;

	if (!(h->flags & WIRE_FLAG_RETRANSMITTED))
		return false;
	if (seen_applies(cp->cp_conn, h) && (last = seen_find(cp->cp_conn, seen_key(h)))) {
		bool by_port = h->seq <= *last;

		/* the evidence that a path came back in another slot */
		if (by_port != by_slot)
			rdsu_stat_inc(cp->cp_conn->c_ep, RDSU_STAT_RECV_PORT_SEQ);
		return by_port;
	}
	return by_slot;
}

static void incoming(struct rdsu_path *cp, const struct wire_frame *f, rdsu_ns now)
{
	struct rdsu_conn *c = cp->cp_conn;
	struct rdsu_ep *ep = c->c_ep;
	const struct wire_hdr *h = &f->hdr;
	const struct rdsu_addr *src;
	struct rdsu_sock *rs;
	uint64_t cookie = 0;
	bool has_cookie;

	if (wire_classify(h, WIRE_XPORT_TCP) == WIRE_KIND_CONG) {
		if (f->len != WIRE_CONG_MAP_BYTES) {
			rdsu_stat_inc(ep, RDSU_STAT_RECV_DROP_BAD_MAP);
			return;
		}
		rdsu_cong_peer_update(c, f->payload, f->len);
		return;
	}

	/* FAULT unknown-ext-reset: the kernel's walk of the extension
	 * headers (rds_message_next_extension) skips a type it has no size
	 * for; this one takes it for a protocol error and resets the path. */
	if (rdsu_faulty(ep, RDSU_FAULT_UNKNOWN_EXT_RESET)) {
		struct wire_exts x;

		wire_exts_decode(&x, h->ext, ep->cfg.kver);
		if (wire_rules_has(&x.rules, WIRE_RULE_EXT_UNKNOWN)) {
			rdsu_path_drop(cp, true, true, now);
			return;
		}
	}

	/* FAULT dup-deliver: the duplicate is not dropped but handled (and
	 * delivered) as if it were new. */
	if (is_copy(cp, h) && !rdsu_faulty(ep, RDSU_FAULT_DUP_DELIVER)) {
		rdsu_stat_inc(ep, RDSU_STAT_RECV_DROP_OLD_SEQ);
		return;
	}
	cp->cp_next_rx_seq = h->seq + 1;
	if (seen_applies(c, h))
		seen_note(c, seen_key(h), h->seq);

	if (ep->cfg.ping_enable && h->dport == 0) {
		/* FAULT ping-port0-answered: answer it anyway; the pong (sport
		 * 0, dport 0) is itself such a ping. */
		if (h->sport == 0 && !rdsu_faulty(ep, RDSU_FAULT_PING_PORT0_ANSWERED))
			return; /* a pong to a pong would loop */
		rdsu_stat_inc(ep, RDSU_STAT_RECV_PING);
		/* The pong is queued before the probe's extensions are acted
		 * on, as rds_recv_incoming does. */
		if (h->sport == WIRE_PROBE_PORT) {
			rdsu_probe_answer(cp, now);
			rdsu_probe_input(c, h, false, now);
		} else {
			rdsu_answer(cp, RDSU_MK_PONG, h->sport, now);
		}
		return;
	}
	if (h->dport == WIRE_PROBE_PORT && h->sport == 0) {
		rdsu_probe_input(c, h, true, now);
		return;
	}

	/* The loopback transport hands the receive path the sending
	 * connection, so the addresses play the other roles
	 * (rds_loop_xmit): to our socket on the peer address, from the
	 * local one. */
	if (c->c_tp->local) {
		int lf = rdsu_ep_lidx(ep, &c->c_faddr);

		rs = lf < 0 ? NULL : rdsu_sock_find_bound(ep, lf, h->dport);
		src = &c->c_laddr;
	} else {
		rs = rdsu_sock_find_bound(ep, c->c_lidx, h->dport);
		src = &c->c_faddr;
	}
	if (!rs) {
		rdsu_stat_inc(ep, RDSU_STAT_RECV_DROP_NO_SOCK);
		return;
	}
	rdsu_rdma_recv_exts(rs, h, &has_cookie, &cookie);
	if (rdsu_sock_deliver(rs, src, h->sport, h->seq, f->payload, f->len) < 0) {
		/* TCP has acknowledged it already; nothing will bring it back. */
		rdsu_stat_inc(ep, RDSU_STAT_RECV_DROP_NOMEM);
		return;
	}
	if (has_cookie)
		rdsu_sock_rx_cookie(rs, cookie);
	/* K7.10: the loopback transport sets neither header time; a frame
	 * handed over whole (IB) has both at once */
	if (c->c_tp->local)
		rdsu_sock_rx_stamp(rs, 0, 0, now);
	else
		rdsu_sock_rx_stamp(rs, cp->cp_rx_hdr_at ? cp->cp_rx_hdr_at : now,
				   cp->cp_rx_start_at ? cp->cp_rx_start_at : now, now);
	rdsu_stat_inc(ep, RDSU_STAT_RECV_QUEUED);
}

ssize_t rdsu_recv_input(struct rdsu_path *cp, const uint8_t *in, size_t len, rdsu_ns now)
{
	uint64_t link = cp->cp_link;
	size_t used = 0;

	while (used < len) {
		struct wire_frame f;
		bool ready;
		ssize_t n;

		/* the times of the frame's header (rdsu_sock_rx_times) */
		if (!cp->cp_dfr.hgot && !cp->cp_dfr.in_data)
			cp->cp_rx_hdr_at = now;
		n = wire_deframer_input(&cp->cp_dfr, in + used, len - used, &f, &ready);
		if (n > 0 && !cp->cp_rx_start_at && (ready || cp->cp_dfr.in_data))
			cp->cp_rx_start_at = now;

		if (n < 0) {
			/* FAULT huge-hlen-crash: die as a receiver that trusted
			 * h_len might; a peer sees its connections drop all at
			 * once and the endpoint come back (if ever) with a new
			 * generation number. */
			if (n == WIRE_ERR_TOOBIG &&
			    rdsu_faulty(cp->cp_conn->c_ep, RDSU_FAULT_HUGE_HLEN_CRASH))
				abort();
			/* Only an h_len above 1 MiB (or a deframer misuse) gets
			 * here. The kernel would take it; we cannot without
			 * unbounded memory, so the path is reset. */
			rdsu_stat_inc(cp->cp_conn->c_ep, RDSU_STAT_RECV_TOO_BIG);
			rdsu_path_drop(cp, true, true, now);
			return RDSU_ERR_PROTO;
		}
		used += (size_t)n;
		cp->cp_rx_bytes += (uint64_t)n;
		cp->cp_rx_at = now;
		if (!ready) {
			size_t need = wire_deframer_need(&cp->cp_dfr);

			/* A whole header is as much as a message proves: 48 bytes
			 * with h_len 0 are one (rdsu_path_proven). */
			if (cp->cp_dfr.in_data)
				rdsu_path_proven(cp);

			if (need && rdsu_path_grow_gather(cp, need) < 0) {
				rdsu_stat_inc(cp->cp_conn->c_ep, RDSU_STAT_RECV_DROP_NOMEM);
				rdsu_path_drop(cp, true, true, now);
				return RDSU_ERR_PROTO;
			}
			if (n == 0 && !need)
				break; /* cannot happen: the deframer always progresses */
			continue;
		}
		cp->cp_rx_msg_end = cp->cp_rx_bytes;
		incoming(cp, &f, now);
		cp->cp_rx_hdr_at = cp->cp_rx_start_at = 0;
		/* Handling a probe can drop this very path (7.x resync of
		 * slot 0); the rest of the bytes belong to a dead link. */
		if (cp->cp_link != link)
			return RDSU_ERR_CLOSED;
		rdsu_path_proven(cp);
	}
	return (ssize_t)used;
}

/* A frame that breaks the rules is a connection error
 * (rds_ib_process_recv): the path resets. */
static int frame_bad(struct rdsu_path *cp, enum rdsu_stat why, rdsu_ns now)
{
	rdsu_stat_inc(cp->cp_conn->c_ep, why);
	rdsu_path_drop(cp, true, true, now);
	return RDSU_ERR_PROTO;
}

/*
 * One received frame of a frame transport, as rds_ib_process_recv: length
 * and checksum first, then h_ack and h_credit (of every frame), then an
 * ACK-only frame ends there; fragments are reassembled by libwire into
 * the gather buffer, grown by what arrived; a whole message is handled as
 * on TCP, then recorded as the ack to send (not a map) and an ACK-only
 * frame is owed if it asked for one.
 */
int rdsu_recv_frame(struct rdsu_path *cp, const uint8_t *in, size_t len, rdsu_ns now)
{
	struct rdsu_conn *c = cp->cp_conn;
	struct rdsu_ep *ep = c->c_ep;
	uint64_t link = cp->cp_link;
	struct wire_frame f;
	struct wire_hdr h;
	size_t need;
	int r;

	if (len < WIRE_HDR_LEN || len > WIRE_HDR_LEN + c->c_tp->frag_size)
		return frame_bad(cp, RDSU_STAT_RECV_BAD_FRAG, now);
	(void)wire_hdr_decode(&h, in, len);
	/* FAULT ib-csum-ignored: a header that fails its checksum is taken
	 * as it is. */
	if (c->c_tp->csum && !wire_hdr_csum_ok(&h) &&
	    !rdsu_faulty(ep, RDSU_FAULT_IB_CSUM_IGNORED))
		return frame_bad(cp, RDSU_STAT_RECV_BAD_CSUM, now);
	cp->cp_rx_bytes += len;
	if (cp->cp_fc_adv && cp->cp_peer_credits) {
		cp->cp_peer_credits--;
		rdsu_send_adv_check(cp);
	}
	/* FAULT ib-ack-ignored: what the peer acknowledged stays on the
	 * retransmit queue, to be resent on the next connection. */
	if (!rdsu_faulty(ep, RDSU_FAULT_IB_ACK_IGNORED))
		(void)rdsu_send_hack(cp, h.ack, now);
	rdsu_send_credits(cp, h.credit);
	if (h.sport == 0 && h.dport == 0 && len == WIRE_HDR_LEN) {
		rdsu_stat_inc(ep, RDSU_STAT_ACK_RECV);
		return 0;
	}
	/* Enough room for what arrived: a header alone sizes nothing. */
	need = (cp->cp_reasm.active ? cp->cp_reasm.got : 0) + (len - WIRE_HDR_LEN);
	if (need > WIRE_MAX_MSG_LEN)
		need = WIRE_MAX_MSG_LEN;
	while (need > cp->cp_gather_cap)
		if (rdsu_path_grow_gather(cp, need) < 0)
			return frame_bad(cp, RDSU_STAT_RECV_DROP_NOMEM, now);
	cp->cp_reasm.buf = cp->cp_gather;
	cp->cp_reasm.cap = cp->cp_gather_cap;
	r = wire_reasm_input(&cp->cp_reasm, in, len, &f);
	if (r == WIRE_ERR_TOOBIG)
		return frame_bad(cp, RDSU_STAT_RECV_TOO_BIG, now);
	/* FAULT ib-frag-accept: the message of a fragment that disagrees
	 * with its first is dropped and the connection goes on. */
	if (r < 0 && wire_rules_has(&cp->cp_reasm.rules, WIRE_RULE_FRAG_MISMATCH) &&
	    rdsu_faulty(ep, RDSU_FAULT_IB_FRAG_ACCEPT))
		return 0;
	if (r < 0)
		return frame_bad(cp, RDSU_STAT_RECV_BAD_FRAG, now);
	if (r == 0)
		return 0;
	incoming(cp, &f, now);
	if (cp->cp_link != link)
		return RDSU_ERR_CLOSED;
	if (wire_classify(&f.hdr, WIRE_XPORT_TCP) != WIRE_KIND_CONG) {
		cp->cp_rx_ack = f.hdr.seq;
		/* FAULT ib-no-ack: the request goes unheard; an ack leaves
		 * only on the next message we happen to send. */
		if ((f.hdr.flags & WIRE_FLAG_ACK_REQUIRED) &&
		    !rdsu_faulty(ep, RDSU_FAULT_IB_NO_ACK)) {
			cp->cp_ack_wanted = true;
			rdsu_path_kick(cp);
		}
	}
	return 0;
}
