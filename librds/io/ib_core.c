// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ib_core.c - the IB transport's hand-off to the core, and the only file
 * of it that calls the core's link API (rdsu.h).
 *
 * The core's link calls are stream-shaped (rdsu_link_input takes the byte
 * stream, rdsu_link_output gives it, rdsu_link_acked frees by stream
 * offset); the frame calls docs/librds.md plans are not in it yet. So
 * this file adapts frames to that stream, keeping what the wire needs
 * from the transport's side:
 *
 *  - in: each frame's header is checked (length, h_csum), its h_ack
 *    taken; ACK-only frames stop here; fragments are checked against
 *    their message's first with libwire's reassembler (nothing gathered)
 *    and handed on as the stream they make: the first fragment whole,
 *    the later ones' payloads;
 *  - out: the stream is cut back into messages at their headers, each
 *    sent as ceil(len / 4096) SENDs (one for len 0) that all carry its
 *    header, with h_ack (the last non-map sequence number received)
 *    piggy-backed and h_csum computed;
 *  - acks: a message is acknowledged when the peer's h_ack (or dp_ack_seq)
 *    reaches its sequence number, maps when reached (they never are),
 *    and the core is told as the stream offset after it; an
 *    ACK_REQUIRED message is answered with an ACK-only frame unless data
 *    carried the ack first.
 *
 * What the core still decides as for TCP (who connects, the probe, the
 * ACK_REQUIRED flag on our messages, credits) moves to its IB rules when
 * they land, and this file becomes the frame calls.
 */
#define _GNU_SOURCE
#include "ib.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int rdsu_ib_core_accept(struct rdsu_ib *t, struct ib_link *l, rdsu_ns now)
{
	uint64_t id;
	int r = rdsu_link_accept(t->ep, &l->laddr, &l->faddr, 0, now, &id);

	if (r == RDSU_ACCEPT_UP) {
		l->id = id;
		l->core_knows = true;
		return 0;
	}
	/* An IB request cannot wait for a slot: refuse it, the peer
	 * retries with its backoff. */
	if (r == RDSU_ACCEPT_HELD)
		(void)rdsu_link_down(t->ep, id, now);
	return -1;
}

void rdsu_ib_core_down(struct ib_link *l, rdsu_ns now)
{
	if (!l->core_knows)
		return;
	l->core_knows = false;
	(void)rdsu_link_down(l->t->ep, l->id, now);
}

void rdsu_ib_core_free(struct ib_link *l)
{
	free(l->sent);
}

/* The core let go of the link: close it without reporting it. */
static void let_go(struct ib_link *l)
{
	l->core_knows = false;
	rdsu_ib_link_retire(l);
}

static void advance_acks(struct ib_link *l, rdsu_ns now)
{
	uint64_t to = l->acked_off;

	while (l->sent_n) {
		const struct ib_sent *e = &l->sent[l->sent_head];

		if (e->seq != 0 && e->seq > l->peer_acked)
			break;
		to = e->end;
		l->sent_head = (l->sent_head + 1) % l->sent_cap;
		l->sent_n--;
	}
	if (to <= l->acked_off)
		return;
	l->acked_off = to;
	if (rdsu_link_acked(l->t->ep, l->id, to, now) == RDSU_ERR_CLOSED)
		let_go(l);
}

static void ack_in(struct ib_link *l, uint64_t ack, rdsu_ns now)
{
	if (ack <= l->peer_acked)
		return;
	l->peer_acked = ack;
	advance_acks(l, now);
}

static int sent_push(struct ib_link *l, uint64_t seq, uint64_t end)
{
	if (l->sent_n == l->sent_cap) {
		size_t cap = l->sent_cap ? 2 * l->sent_cap : 64;
		struct ib_sent *n = malloc(cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		for (size_t i = 0; i < l->sent_n; i++)
			n[i] = l->sent[(l->sent_head + i) % l->sent_cap];
		free(l->sent);
		l->sent = n;
		l->sent_cap = cap;
		l->sent_head = 0;
	}
	l->sent[(l->sent_head + l->sent_n) % l->sent_cap] = (struct ib_sent){ seq, end };
	l->sent_n++;
	return 0;
}

bool rdsu_ib_core_up(struct ib_link *l, uint64_t ack_seq, rdsu_ns now)
{
	if (l->active && rdsu_link_established(l->t->ep, l->id, 0, now) < 0) {
		let_go(l);
		return false;
	}
	/* dp_ack_seq counts as an ack at connect (rds_ib_cm_connect_complete). */
	ack_in(l, ack_seq, now);
	return l->state == IL_UP;
}

/* Hand |n| bytes of stream to the core. Return: 0; -1 when the link is
 * no longer to be read. */
static int feed(struct ib_link *l, const uint8_t *p, size_t n, rdsu_ns now)
{
	ssize_t r = rdsu_link_input(l->t->ep, l->id, p, n, now);

	if (r == RDSU_ERR_CLOSED) {
		let_go(l);
		return -1;
	}
	if (r < 0 || (size_t)r < n) {
		/* RDSU_ERR_PROTO queued a close; a link the core does not
		 * read cannot hold frames here either. */
		rdsu_loop_requests(l->t->tr.io, now);
		if (l->state != IL_DEAD)
			rdsu_ib_link_lost(l, now);
		return -1;
	}
	return 0;
}

int rdsu_ib_core_frame(struct ib_link *l, const uint8_t *p, size_t len, rdsu_ns now)
{
	struct wire_hdr h;
	struct wire_frame f;
	bool first;
	int r;

	/* rds_ib_process_recv: a runt or a bad checksum is a connection
	 * error. */
	if (wire_hdr_decode(&h, p, len) < 0 || !wire_hdr_csum_ok(&h)) {
		rdsu_ib_link_lost(l, now);
		return -1;
	}
	ack_in(l, h.ack, now);
	if (l->state == IL_DEAD)
		return -1;
	if (h.sport == 0 && h.dport == 0 && len == WIRE_HDR_LEN) {
		l->t->st.acks_in++;
		return 0;
	}
	first = !l->reasm.active;
	r = wire_reasm_input(&l->reasm, p, len, &f);
	if (r < 0) {
		rdsu_ib_link_lost(l, now);
		return -1;
	}
	if (first ? feed(l, p, len, now) : feed(l, p + WIRE_HDR_LEN, len - WIRE_HDR_LEN, now))
		return -1;
	if (r == 1 && h.flags != WIRE_FLAG_CONG_BITMAP) {
		if (h.seq > l->ack_next)
			l->ack_next = h.seq;
		if (h.flags & WIRE_FLAG_ACK_REQUIRED)
			l->ack_wanted = true;
	}
	return 0;
}

/* Take up to |want| stream bytes into |dst|. Return: bytes (0: the core
 * has none now); -1 when the core let go of the link. */
static ssize_t take(struct ib_link *l, uint8_t *dst, size_t want, rdsu_ns now)
{
	ssize_t n = rdsu_link_output(l->t->ep, l->id, dst, want, now);

	if (n < 0) {
		let_go(l);
		return -1;
	}
	l->out_off += (uint64_t)n;
	return n;
}

/* A complete header taken: piggy-back our ack and checksum it, as
 * rds_ib_xmit fixes the header once for all fragments. */
static void frame_hdr(struct ib_link *l)
{
	struct wire_hdr h;

	(void)wire_hdr_decode(&h, l->ohdr, WIRE_HDR_LEN);
	l->oleft = h.len;
	l->oseq = h.seq;
	l->ofirst = true;
	l->omsg = true;
	h.ack = l->ack_next;
	if (l->ack_next > l->ack_sent)
		l->ack_sent = l->ack_next;
	l->ack_wanted = false;
	wire_hdr_csum_set(&h);
	(void)wire_hdr_encode(&h, l->ohdr, WIRE_HDR_LEN);
}

static void send_ack(struct ib_link *l)
{
	struct wire_hdr h;
	uint8_t buf[WIRE_HDR_LEN];

	memset(&h, 0, sizeof(h));
	h.ack = l->ack_next;
	wire_hdr_csum_set(&h);
	(void)wire_hdr_encode(&h, buf, sizeof(buf));
	if (rdsu_ib_send_ack(l, buf) == 0) {
		l->ack_sent = l->ack_next;
		l->ack_wanted = false;
	}
}

void rdsu_ib_core_output(struct ib_link *l, rdsu_ns now)
{
	while (l->state == IL_UP) {
		uint8_t *slot;
		uint32_t flen;
		ssize_t n;

		if (!l->omsg) {
			n = take(l, l->ohdr + l->ohdr_got, WIRE_HDR_LEN - l->ohdr_got, now);
			if (n <= 0)
				break;
			l->ohdr_got += (unsigned)n;
			if (l->ohdr_got < WIRE_HDR_LEN)
				continue;
			frame_hdr(l);
		}
		slot = rdsu_ib_send_slot(l);
		if (!slot) {
			l->t->st.send_full++;
			break;
		}
		if (l->oslot_fill < 0) {
			memcpy(slot, l->ohdr, WIRE_HDR_LEN);
			l->oslot_fill = 0;
		}
		flen = l->oleft < WIRE_FRAG_SIZE ? l->oleft : WIRE_FRAG_SIZE;
		while ((uint32_t)l->oslot_fill < flen) {
			n = take(l, slot + WIRE_HDR_LEN + l->oslot_fill,
				 flen - (uint32_t)l->oslot_fill, now);
			if (n <= 0)
				break;
			l->oslot_fill += (int)n;
		}
		if (l->state != IL_UP || (uint32_t)l->oslot_fill < flen)
			break;
		l->oleft -= flen;
		if (rdsu_ib_send_post(l, WIRE_HDR_LEN + flen, l->oleft == 0) < 0) {
			rdsu_ib_link_lost(l, now);
			return;
		}
		l->oslot_fill = -1;
		l->ofirst = false;
		if (l->oleft)
			continue;
		l->omsg = false;
		l->ohdr_got = 0;
		if (sent_push(l, l->oseq, l->out_off) < 0) {
			rdsu_ib_link_lost(l, now);
			return;
		}
		advance_acks(l, now);
	}
	if (l->state == IL_UP && l->ack_wanted && l->ack_next > l->ack_sent)
		send_ack(l);
	else if (l->ack_next <= l->ack_sent)
		l->ack_wanted = false;
}
