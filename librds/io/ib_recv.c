// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ib_recv.c - the receive ring: recv_ring buffers of 48 + 4096 bytes in
 * one registered region, all posted at set-up and each reposted as soon
 * as its frame went to the core. Each completion is one frame. Ref:
 * net/rds/ib_recv.c rds_ib_recv_refill(), rds_ib_recv_cqe_handler().
 */
#define _GNU_SOURCE
#include "ib.h"

#include <errno.h>

int rdsu_ib_recv_post(struct ib_link *l, unsigned idx)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(l->rbuf + (size_t)idx * IB_FRAME),
		.length = IB_FRAME,
		.lkey = l->rmr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = idx, .sg_list = &sge, .num_sge = 1 }, *bad;
	int r = ibv_post_recv(l->cm->qp, &wr, &bad);

	if (r)
		return -r;
	l->rposted++;
	return 0;
}

int rdsu_ib_recv_fill(struct ib_link *l)
{
	for (unsigned i = 0; i < l->nrecv; i++) {
		int r = rdsu_ib_recv_post(l, i);

		if (r < 0)
			return r;
	}
	return 0;
}

/* One receive completion: its frame to the core, its buffer reposted. */
static bool recv_one(struct ib_link *l, const struct ibv_wc *wc, rdsu_ns now)
{
	unsigned idx = (unsigned)wc->wr_id;

	l->rposted--;
	if (wc->status != IBV_WC_SUCCESS || idx >= l->nrecv || wc->opcode != IBV_WC_RECV)
		return rdsu_ib_wc_lost(l, wc->status, now);
	l->t->st.frames_in++;
	l->t->st.bytes_in += wc->byte_len;
	if (rdsu_ib_core_frame(l, l->rbuf + (size_t)idx * IB_FRAME, wc->byte_len, now) < 0)
		return false;
	if (l->state == IL_DEAD)
		return false;
	if (rdsu_ib_recv_post(l, idx) < 0) {
		rdsu_ib_link_lost(l, now);
		return false;
	}
	rdsu_ib_core_posted(l, 1, now);
	return true;
}

bool rdsu_ib_recv_poll(struct ib_link *l, rdsu_ns now)
{
	return rdsu_ib_cq_drain(l, l->rcq, recv_one, now);
}
