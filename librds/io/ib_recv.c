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

bool rdsu_ib_recv_poll(struct ib_link *l, rdsu_ns now)
{
	struct ibv_wc wc[16];
	int n;

	while ((n = ibv_poll_cq(l->rcq, 16, wc)) > 0) {
		for (int i = 0; i < n; i++) {
			unsigned idx = (unsigned)wc[i].wr_id;

			l->rposted--;
			if (wc[i].status != IBV_WC_SUCCESS || idx >= l->nrecv ||
			    wc[i].opcode != IBV_WC_RECV) {
				rdsu_ib_why(l, IB_WHY_WC, wc[i].status);
				rdsu_ib_link_lost(l, now);
				return false;
			}
			l->t->st.frames_in++;
			l->t->st.bytes_in += wc[i].byte_len;
			if (rdsu_ib_core_frame(l, l->rbuf + (size_t)idx * IB_FRAME,
					       wc[i].byte_len, now) < 0)
				return false;
			if (l->state == IL_DEAD)
				return false;
			if (rdsu_ib_recv_post(l, idx) < 0) {
				rdsu_ib_link_lost(l, now);
				return false;
			}
			rdsu_ib_core_posted(l, 1, now);
		}
	}
	if (n < 0) {
		rdsu_ib_link_lost(l, now);
		return false;
	}
	return true;
}
