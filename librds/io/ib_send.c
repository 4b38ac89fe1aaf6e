// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ib_send.c - the send ring: send_ring slots of 48 + 4096 bytes in one
 * registered region, used in order; a frame is copied into the next
 * free slot and posted as one SEND. Every IB_UNSIGNALLED_MAX-th SEND and
 * every message's last one are signalled (the last also SOLICITED, which
 * is what wakes the peer's receive CQ); a signalled completion frees its
 * slot and every unsignalled one before it. ACK-only frames take a slot
 * like any other. Ref: net/rds/ib_send.c rds_ib_xmit(),
 * rds_ib_send_cqe_handler(), rds_ib_send_ack().
 */
#define _GNU_SOURCE
#include "ib.h"

#include <errno.h>

uint8_t *rdsu_ib_send_slot(struct ib_link *l)
{
	if (l->s_head - l->s_tail >= l->nsend)
		return NULL;
	return l->sbuf + (size_t)(l->s_head % l->nsend) * IB_FRAME;
}

static int post(struct ib_link *l, uint8_t *p, size_t len, uint64_t wr_id, bool signal,
		bool solicit)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)p,
		.length = (uint32_t)len,
		.lkey = l->smr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = (signal ? IBV_SEND_SIGNALED : 0u) |
			      (solicit ? IBV_SEND_SOLICITED : 0u) |
			      (l->fence_next ? IBV_SEND_FENCE : 0u),
	}, *bad;
	int r = ibv_post_send(l->cm->qp, &wr, &bad);

	if (r)
		return -r;
	l->fence_next = false;
	l->t->st.frames_out++;
	l->t->st.bytes_out += len;
	return 0;
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
	if (!signal && l->s_head - l->s_tail + 1 >= l->nsend)
		signal = true;
	r = post(l, p, len, l->s_head, signal, last);
	if (r < 0)
		return r;
	if (signal)
		l->unsignalled = 0;
	l->s_head++;
	return 0;
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

bool rdsu_ib_send_poll(struct ib_link *l, rdsu_ns now)
{
	return rdsu_ib_cq_drain(l, l->scq, send_one, now);
}
