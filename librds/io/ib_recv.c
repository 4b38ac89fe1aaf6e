// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ib_recv.c - the receive ring: buffers of 48 + 4096 bytes in registered
 * chunks of IB_RECV_CHUNK, each buffer reposted as it is, in place, as
 * soon as the core has taken its frame (the refill copies nothing; the
 * core copies the payload out into its message). Each completion is one
 * frame. The ring starts with one chunk (about 265 KB) and doubles,
 * up to recv_ring, whenever one poll takes half of it or more: an idle
 * peer costs one chunk, a busy one what its traffic needs (never given
 * back while the link lives); the first message of several frames grows
 * it at once past the largest message (IB_MSG_FRAMES), so that from then
 * on only a message's last, solicited frame wakes the loop, not each
 * frame (ib.c). The receives added are reported to the
 * core as posted, so offered credits follow. Ref: net/rds/ib_recv.c
 * rds_ib_recv_refill(), rds_ib_recv_cqe_handler().
 */
#define _GNU_SOURCE
#include "ib.h"

#include <errno.h>
#include <stdlib.h>

static uint8_t *recv_buf(struct ib_link *l, unsigned idx)
{
	return l->rchunk[idx / IB_RECV_CHUNK] + (size_t)(idx % IB_RECV_CHUNK) * IB_FRAME;
}

int rdsu_ib_recv_post(struct ib_link *l, unsigned idx)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)recv_buf(l, idx),
		.length = IB_FRAME,
		.lkey = l->rmr[idx / IB_RECV_CHUNK]->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = idx, .sg_list = &sge, .num_sge = 1 }, *bad;
	int r = ibv_post_recv(l->cm->qp, &wr, &bad);

	if (r)
		return -r;
	l->rposted++;
	return 0;
}

int rdsu_ib_recv_grow(struct ib_link *l, unsigned to)
{
	unsigned from = l->rcur;

	if (to > l->nrecv)
		to = l->nrecv;
	while (l->rcur < to) {
		unsigned c = l->rcur / IB_RECV_CHUNK;
		unsigned n = l->nrecv - l->rcur < IB_RECV_CHUNK ? l->nrecv - l->rcur : IB_RECV_CHUNK;
		size_t len = ((size_t)n * IB_FRAME + 4095) & ~(size_t)4095;

		/* page-aligned: registration pins whole pages anyway */
		l->rchunk[c] = aligned_alloc(4096, len);
		if (!l->rchunk[c])
			return -ENOMEM;
		l->rmr[c] = ibv_reg_mr(l->pd, l->rchunk[c], len, IBV_ACCESS_LOCAL_WRITE);
		if (!l->rmr[c])
			return -errno ? -errno : -ENOMEM;
		for (unsigned i = 0; i < n; i++) {
			int r = rdsu_ib_recv_post(l, l->rcur + i);

			if (r < 0)
				return r;
		}
		l->rcur += n;
		l->t->st.recv_ring_bytes += (uint64_t)n * IB_FRAME;
	}
	/* Wake on a message's last frame only once a whole message fits. */
	l->rsolicited = l->rcur > IB_MSG_FRAMES;
	return (int)(l->rcur - from);
}

int rdsu_ib_recv_fill(struct ib_link *l)
{
	int r = rdsu_ib_recv_grow(l, IB_RECV_CHUNK);

	return r < 0 ? r : 0;
}

void rdsu_ib_recv_free(struct ib_link *l)
{
	for (unsigned c = 0; c < IB_RECV_CHUNKS && l->rchunk[c]; c++) {
		if (l->rmr[c])
			ibv_dereg_mr(l->rmr[c]);
		free(l->rchunk[c]);
		l->rchunk[c] = NULL;
	}
	if (l->rcur)
		l->t->st.recv_ring_bytes -= (uint64_t)l->rcur * IB_FRAME;
	l->rcur = 0;
}

/* One receive completion: its frame to the core, its buffer reposted. */
static bool recv_one(struct ib_link *l, const struct ibv_wc *wc, rdsu_ns now)
{
	unsigned idx = (unsigned)wc->wr_id;

	l->rposted--;
	if (wc->status != IBV_WC_SUCCESS || idx >= l->rcur || wc->opcode != IBV_WC_RECV)
		return rdsu_ib_wc_lost(l, wc->status, now);
	l->t->st.frames_in++;
	l->t->st.bytes_in += wc->byte_len;
	l->rtaken++;
	if (!l->rsolicited && !l->rbig) {
		struct wire_hdr h;

		/* A message of several frames (not the congestion map every
		 * connection starts with): grow past the largest one, to wake
		 * on its last frame only (rdsu_ib_recv_poll). What the header
		 * says is the core's to judge; this only sizes the ring. */
		if (wire_hdr_decode(&h, recv_buf(l, idx), wc->byte_len) == WIRE_HDR_LEN &&
		    h.len > WIRE_FRAG_SIZE && wire_classify(&h, WIRE_XPORT_IB) == WIRE_KIND_DATA)
			l->rbig = true;
	}
	if (rdsu_ib_core_frame(l, recv_buf(l, idx), wc->byte_len, now) < 0)
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
	int r;

	unsigned to;

	l->rtaken = 0;
	if (!rdsu_ib_cq_drain(l, l->rcq, recv_one, now))
		return false;
	if (l->rcur >= l->nrecv)
		return true;
	if (l->rbig && !l->rsolicited)
		to = IB_MSG_FRAMES + 1;  /* whole chunks past it: solicited wakes */
	else if (l->rtaken * 2 >= l->rcur)
		to = l->rcur * 2;
	else
		return true;
	r = rdsu_ib_recv_grow(l, to);
	if (r < 0) {
		rdsu_ib_lost_why(l, IB_WHY_CALL, r, now);
		return false;
	}
	l->t->st.recv_grown++;
	rdsu_ib_core_posted(l, (uint32_t)r, now);
	return true;
}
