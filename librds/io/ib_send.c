// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ib_send.c - the send ring: slots of 48 + 4096 bytes in one registered
 * region, used in order: IB_SEND_INITIAL of them at set-up, doubled up
 * to send_ring each time the ring filled and then drained (an idle peer
 * holds 32 slots, about 132 KB; a busy one what it needs); a frame is copied into the next
 * free slot and queued as one SEND, and what a round of output queued
 * goes to the device as one chain of work requests, one doorbell
 * (rdsu_ib_send_flush; a batch of IB_POST_BATCH goes at once). Frames
 * up to the QP's max_inline_data are sent inline. Every IB_UNSIGNALLED_MAX-th SEND and
 * every message's last one are signalled (the last also SOLICITED, which
 * is what wakes the peer's receive CQ); a signalled completion frees its
 * slot and every unsignalled one before it. ACK-only frames take a slot
 * like any other. Ref: net/rds/ib_send.c rds_ib_xmit(),
 * rds_ib_send_cqe_handler(), rds_ib_send_ack().
 */
#define _GNU_SOURCE
#include "ib.h"

#include <errno.h>
#include <stdlib.h>

uint8_t *rdsu_ib_send_slot(struct ib_link *l)
{
	if (l->s_head - l->s_tail >= l->scur) {
		l->sgrow = l->scur < l->nsend;
		return NULL;
	}
	return l->sbuf + (size_t)(l->s_head % l->scur) * IB_FRAME;
}

/* Queue one SEND; a full batch goes out at once. Frames no longer than
 * the QP's inline limit are copied into the work request (the slot is
 * still held until a completion frees it, as any other). */
static int queue(struct ib_link *l, uint8_t *p, size_t len, uint64_t wr_id, bool signal,
		 bool solicit)
{
	struct ibv_sge *sge = &l->sge[l->npend];
	struct ibv_send_wr *wr = &l->wr[l->npend];

	*sge = (struct ibv_sge){
		.addr = (uintptr_t)p,
		.length = (uint32_t)len,
		.lkey = l->smr->lkey,
	};
	*wr = (struct ibv_send_wr){
		.wr_id = wr_id,
		.sg_list = sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = (signal ? IBV_SEND_SIGNALED : 0u) |
			      (solicit ? IBV_SEND_SOLICITED : 0u) |
			      (len <= l->max_inline ? IBV_SEND_INLINE : 0u) |
			      (l->fence_next ? IBV_SEND_FENCE : 0u),
	};
	l->fence_next = false;
	l->npend++;
	l->t->st.frames_out++;
	l->t->st.bytes_out += len;
	if (l->npend == IB_POST_BATCH)
		return rdsu_ib_send_flush(l);
	return 0;
}

int rdsu_ib_send_flush(struct ib_link *l)
{
	struct ibv_send_wr *bad;
	unsigned n = l->npend;
	int r;

	if (!n)
		return 0;
	l->npend = 0;
	if (l->state != IL_UP)
		return 0;       /* retired: its QP goes, with what it holds */
	for (unsigned i = 0; i + 1 < n; i++)
		l->wr[i].next = &l->wr[i + 1];
	l->wr[n - 1].next = NULL;
	r = ibv_post_send(l->cm->qp, l->wr, &bad);
	return r ? -r : 0;
}

int rdsu_ib_send_post(struct ib_link *l, size_t len, bool last)
{
	uint8_t *p = rdsu_ib_send_slot(l);
	bool signal = last || ++l->unsignalled >= IB_UNSIGNALLED_MAX;
	int r;

	if (!p)
		return -EAGAIN;
	/* Without a signalled SEND among the last ring's worth, the ring
	 * would fill with slots no completion frees. */
	if (!signal && l->s_head - l->s_tail + 1 >= l->scur)
		signal = true;
	if (signal)
		l->unsignalled = 0;
	l->s_head++;
	r = queue(l, p, len, l->s_head - 1, signal, last);
	return r;
}

/* One send completion: a signalled one frees its slot and those before it. */
static bool send_one(struct ib_link *l, const struct ibv_wc *wc, rdsu_ns now)
{
	if (wc->wr_id & IB_OP_TAG)
		return rdsu_ib_rdma_wc(l, wc, now);
	if (wc->status != IBV_WC_SUCCESS)
		return rdsu_ib_wc_lost(l, wc->status, now);
	if (wc->wr_id >= l->s_tail && wc->wr_id < l->s_head)
		l->s_tail = wc->wr_id + 1;
	return true;
}

int rdsu_ib_send_resize(struct ib_link *l, unsigned n)
{
	size_t len;
	uint8_t *buf;
	struct ibv_mr *mr;

	if (n > l->nsend)
		n = l->nsend;
	if (l->s_head != l->s_tail || l->npend)
		return -EBUSY;
	/* page-aligned: registration pins whole pages anyway */
	len = ((size_t)n * IB_FRAME + 4095) & ~(size_t)4095;
	buf = aligned_alloc(4096, len);
	if (!buf)
		return -ENOMEM;
	mr = ibv_reg_mr(l->pd, buf, len, 0);
	if (!mr) {
		int r = errno ? -errno : -ENOMEM;

		free(buf);
		return r;
	}
	if (l->smr) {
		ibv_dereg_mr(l->smr);
		l->t->st.send_ring_bytes -= (uint64_t)l->scur * IB_FRAME;
	}
	free(l->sbuf);
	l->sbuf = buf;
	l->smr = mr;
	l->scur = n;
	l->t->st.send_ring_bytes += (uint64_t)n * IB_FRAME;
	return 0;
}

int rdsu_ib_send_arm(struct ib_link *l)
{
	if (l->sarmed)
		return 0;
	if (ibv_req_notify_cq(l->scq, 0))
		return errno ? -errno : -EIO;
	l->sarmed = true;
	return 0;
}

bool rdsu_ib_send_poll(struct ib_link *l, rdsu_ns now)
{
	if (!rdsu_ib_cq_drain(l, l->scq, send_one, now))
		return false;
	/* A ring that filled grows once it has drained (no slot in flight
	 * then, so none moves); if it cannot, it keeps its size. */
	if (l->sgrow && l->s_head == l->s_tail && !l->npend) {
		l->sgrow = false;
		if (rdsu_ib_send_resize(l, l->scur * 2) == 0)
			l->t->st.send_grown++;
	}
	return true;
}
