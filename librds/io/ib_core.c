// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ib_core.c - the IB transport's hand-off to the core, and the only file
 * of it that calls the core's link API: the frame calls of rdsu.h ("Frame
 * transports"). Everything RDS-shaped is the core's (fragments and their
 * headers, h_ack and ACK-only frames, ACK_REQUIRED, h_csum, credits, who
 * may connect); here a receive completion becomes
 * rdsu_link_input_frame(), a send slot is filled by
 * rdsu_link_output_frame(), and the CM private data's ack_seq and credit
 * come from and go to rdsu_link_hs_offer() / rdsu_link_hs_peer().
 */
#define _GNU_SOURCE
#include "ib.h"

#include <errno.h>
#include <string.h>

/* The core let go of the link: close it without reporting it. */
static void let_go(struct ib_link *l)
{
	l->core_knows = false;
	rdsu_ib_link_retire(l);
}

int rdsu_ib_core_accept(struct ib_link *l, const struct wire_ibpd *pd, rdsu_ns now)
{
	struct rdsu_ep *ep = l->t->ep;
	struct rdsu_link_hs hs = { 0 };
	uint64_t id;
	int r = rdsu_link_accept_on(ep, RDSU_TRANS_IB, &l->laddr, &l->faddr, 0, now, &id);

	if (r == RDSU_ACCEPT_HELD)
		(void)rdsu_link_down(ep, id, now);
	if (r != RDSU_ACCEPT_UP)
		return -1;
	l->id = id;
	l->core_knows = true;
	if (pd) {
		hs.ack_seq = pd->ack_seq;
		hs.credit = pd->credit;
	}
	hs.version = l->version;
	if (rdsu_link_hs_peer(ep, id, &hs, now) < 0) {
		rdsu_ib_core_down(l, now);
		return -1;
	}
	return 0;
}

/* The core offers as credits the receives reported posted before this
 * (ib_cm.c offer_pd: none unless rdsu_ib_cfg.offer_credits, as the
 * kernel); flow control toward us stays off without an offer. */
void rdsu_ib_core_offer(struct ib_link *l, struct wire_ibpd *pd)
{
	struct rdsu_link_hs hs;

	if (rdsu_link_hs_offer(l->t->ep, l->id, &hs) < 0)
		return;
	pd->ack_seq = hs.ack_seq;
	pd->credit = hs.credit;
}

void rdsu_ib_core_posted(struct ib_link *l, uint32_t n, rdsu_ns now)
{
	if (l->core_knows)
		(void)rdsu_link_posted(l->t->ep, l->id, n, now);
}

void rdsu_ib_core_down(struct ib_link *l, rdsu_ns now)
{
	if (!l->core_knows)
		return;
	l->core_knows = false;
	(void)rdsu_link_down(l->t->ep, l->id, now);
}

bool rdsu_ib_core_up(struct ib_link *l, const struct wire_ibpd *rep, rdsu_ns now)
{
	struct rdsu_ep *ep = l->t->ep;

	if (l->active) {
		struct rdsu_link_hs hs = { .version = l->version };

		if (rep) {
			hs.ack_seq = rep->ack_seq;
			hs.credit = rep->credit;
		}
		if (rdsu_link_hs_peer(ep, l->id, &hs, now) < 0 ||
		    rdsu_link_established(ep, l->id, 0, now) < 0) {
			let_go(l);
			return false;
		}
	}
	return l->state == IL_UP;
}

static bool ack_only(const uint8_t *p, size_t len)
{
	/* rds_ib_process_recv: ports 0 and no payload (sport at 20, dport 22) */
	return len == WIRE_HDR_LEN && !(p[20] | p[21] | p[22] | p[23]);
}

int rdsu_ib_core_frame(struct ib_link *l, const uint8_t *p, size_t len, rdsu_ns now)
{
	int r;

	if (ack_only(p, len))
		l->t->st.acks_in++;
	r = rdsu_link_input_frame(l->t->ep, l->id, p, len, now);
	if (r == RDSU_ERR_CLOSED) {
		let_go(l);
		return -1;
	}
	if (r < 0) {
		/* RDSU_ERR_PROTO: the path was reset and a close queued,
		 * which ends this link before another frame is read. */
		rdsu_loop_requests(l->t->tr.io, now);
		if (l->state != IL_DEAD)
			rdsu_ib_link_lost(l, now);
		return -1;
	}
	return 0;
}

static void output(struct ib_link *l, rdsu_ns now)
{
	while (l->state == IL_UP) {
		uint8_t *slot = rdsu_ib_send_slot(l);
		struct wire_hdr h;
		ssize_t n;
		bool last;

		if (!slot) {
			l->t->st.send_full++;
			return;
		}
		n = rdsu_link_output_frame(l->t->ep, l->id, slot, IB_FRAME, now);
		if (n == 0)
			return;
		if (n < 0 || wire_hdr_decode(&h, slot, (size_t)n) < 0) {
			let_go(l);
			return;
		}
		/* A message's last frame is signalled and SOLICITED (what
		 * wakes the peer); an ACK-only frame, which may come between
		 * two fragments, is both and leaves the count alone; so is the
		 * last frame the peer's credits let out mid-message, or the
		 * peer would sleep on its filled receives and never advertise
		 * more. */
		if (ack_only(slot, (size_t)n)) {
			last = true;
			l->t->st.acks_out++;
		} else {
			uint32_t frag = (uint32_t)n - WIRE_HDR_LEN;

			if (!l->orem)
				l->orem = h.len;
			l->orem = frag < l->orem ? l->orem - frag : 0;
			last = l->orem == 0 ||
			       rdsu_link_output_stalled(l->t->ep, l->id) == 1;
		}
		if (rdsu_ib_send_post(l, (size_t)n, last) < 0) {
			rdsu_ib_link_lost(l, now);
			return;
		}
	}
}

static bool send_full(const struct ib_link *l)
{
	return l->s_head - l->s_tail >= l->scur;
}

/* What the core has goes out in chains of work requests, one doorbell
 * each (ib_send.c). The send CQ is armed only while something waits on
 * a send completion: a full ring (output resumes when slots free) or an
 * RDMA op in flight. A completion that landed before the arm raises no
 * event, so the CQ is polled once after it. */
void rdsu_ib_core_output(struct ib_link *l, rdsu_ns now)
{
	for (int round = 0; round < 2 && l->state == IL_UP; round++) {
		output(l, now);
		if (rdsu_ib_send_flush(l) < 0) {
			rdsu_ib_link_lost(l, now);
			return;
		}
		if (l->sarmed || !(send_full(l) || rdsu_ib_rdma_busy(l)))
			return;
		if (rdsu_ib_send_arm(l) < 0) {
			rdsu_ib_lost_why(l, IB_WHY_CALL, -EIO, now);
			return;
		}
		if (!rdsu_ib_send_poll(l, now) || send_full(l))
			return;
	}
}

void rdsu_ib_core_op_done(struct ib_link *l, uint64_t id, int status, rdsu_ns now)
{
	if (l->id)
		(void)rdsu_link_op_done(l->t->ep, l->id, id, status, now);
}
