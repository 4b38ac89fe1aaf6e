// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * test_ib_ring.c - the IB transport's send ring (librds/io/ib_send.c)
 * without a device: its QP and CQ are fakes whose post_send records the
 * work requests and whose poll_cq hands out queued completions. Checked:
 * slots run out at send_ring and come back with the signalled
 * completion that covers them; every 16th SEND and every message end
 * are signalled, message ends also SOLICITED; a ring about to fill is
 * signalled so it can drain; a failed completion loses the link; queued
 * SENDs go out as one chain per rdsu_ib_send_flush() (a full batch at
 * once), in order; frames up to max_inline_data are inline; the send CQ
 * is armed once per rdsu_ib_send_arm() until its event is read, and its
 * completions are not busy-poll progress (only receives and ops are).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "cmain.h"

#include <errno.h>
#include <string.h>

#include "ib.h"

#define MAX_WR 64

static struct {
	uint64_t wr_id[MAX_WR];
	unsigned flags[MAX_WR];
	uint32_t len[MAX_WR];
	unsigned n;
	unsigned doorbells;       /* post_send calls */
	int fail;                 /* post_send's return, 0 = accept */
	struct ibv_wc wc[MAX_WR]; /* completions poll_cq hands out */
	unsigned n_wc, wc_next;
	unsigned lost;            /* rdsu_ib_link_lost calls */
	unsigned arms;            /* req_notify_cq calls */
	int arm_solicited;        /* the last one's solicited_only */
	int arm_fail;             /* req_notify_cq's return, 0 = armed */
} fake;

static int fake_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	(void)cq;
	if (fake.arm_fail)
		return fake.arm_fail;
	fake.arms++;
	fake.arm_solicited = solicited_only;
	return 0;
}

static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	(void)qp;
	if (fake.fail) {
		*bad = wr;
		return fake.fail;
	}
	fake.doorbells++;
	for (; wr; wr = wr->next) {
		assert_true(fake.n < MAX_WR);
		assert_int_equal(wr->opcode, IBV_WR_SEND);
		assert_int_equal(wr->num_sge, 1);
		fake.wr_id[fake.n] = wr->wr_id;
		fake.flags[fake.n] = wr->send_flags;
		fake.len[fake.n] = wr->sg_list[0].length;
		fake.n++;
	}
	return 0;
}

static int fake_poll_cq(struct ibv_cq *cq, int num, struct ibv_wc *wc)
{
	int n = 0;

	(void)cq;
	while (n < num && fake.wc_next < fake.n_wc)
		wc[n++] = fake.wc[fake.wc_next++];
	return n;
}

/* What ib_send.c needs from ib.c. */
void rdsu_ib_link_lost(struct ib_link *l, rdsu_ns now)
{
	(void)now;
	l->state = IL_DEAD;
	fake.lost++;
}

/* ... and from ib_rdma.c: an RDMA op's completion (none in these tests;
 * one here would be a slot completion taken for an op's). */
bool rdsu_ib_rdma_wc(struct ib_link *l, const struct ibv_wc *wc, rdsu_ns now)
{
	(void)l, (void)wc, (void)now;
	fail_msg("an RDMA completion in a ring test");
	return false;
}

static struct ibv_context ctx;
static struct ibv_qp qp;
static struct ibv_cq cq;
static struct rdma_cm_id cm;
static struct ibv_mr mr;
static struct rdsu_ib tr;
static uint8_t sbuf[64 * IB_FRAME];

static void link_init(struct ib_link *l, unsigned nsend)
{
	memset(&fake, 0, sizeof(fake));
	memset(l, 0, sizeof(*l));
	ctx.ops.post_send = fake_post_send;
	ctx.ops.poll_cq = fake_poll_cq;
	ctx.ops.req_notify_cq = fake_req_notify_cq;
	qp.context = &ctx;
	cq.context = &ctx;
	cm.qp = &qp;
	memset(&tr, 0, sizeof(tr));
	l->t = &tr;
	l->cm = &cm;
	l->scq = &cq;
	l->smr = &mr;
	l->sbuf = sbuf;
	l->nsend = nsend;
	l->scur = nsend;
	l->state = IL_UP;
}

static void complete(uint64_t wr_id, enum ibv_wc_status status)
{
	struct ibv_wc *wc = &fake.wc[fake.n_wc++];

	memset(wc, 0, sizeof(*wc));
	wc->wr_id = wr_id;
	wc->status = status;
	wc->opcode = IBV_WC_SEND;
}

static void test_ring_fills_and_drains(void **state)
{
	struct ib_link l;

	(void)state;
	link_init(&l, 20);
	l.nsend = 40;   /* the ring may grow to 40: filling it asks to */
	for (unsigned i = 0; i < 20; i++) {
		uint8_t *p = rdsu_ib_send_slot(&l);

		assert_ptr_equal(p, sbuf + (size_t)i * IB_FRAME);
		assert_int_equal(rdsu_ib_send_post(&l, WIRE_HDR_LEN + i, false), 0);
		assert_int_equal(rdsu_ib_send_flush(&l), 0);
		assert_int_equal(fake.len[i], WIRE_HDR_LEN + i);
		assert_int_equal(fake.wr_id[i], i);
	}
	assert_false(l.sgrow);
	assert_null(rdsu_ib_send_slot(&l));
	assert_true(l.sgrow);
	assert_int_equal(rdsu_ib_send_post(&l, WIRE_HDR_LEN, true), -EAGAIN);
	assert_int_equal(fake.n, 20);
	/* Signalled: the 16th by count, the 20th as the ring fills. */
	for (unsigned i = 0; i < 20; i++) {
		bool sig = i == 15 || i == 19;

		assert_int_equal(!!(fake.flags[i] & IBV_SEND_SIGNALED), sig);
		assert_false(fake.flags[i] & IBV_SEND_SOLICITED);
	}
	/* The completion of wr 15 frees slots 0..15, in ring order. */
	complete(15, IBV_WC_SUCCESS);
	assert_true(rdsu_ib_send_poll(&l, 0));
	assert_ptr_equal(rdsu_ib_send_slot(&l), sbuf);
	assert_int_equal(l.s_tail, 16);
	/* not empty yet: no resize (a slot in flight would move) */
	assert_int_equal(l.scur, 20);
	assert_int_equal(rdsu_ib_send_resize(&l, 40), -EBUSY);
	assert_int_equal(tr.st.frames_out, 20);
	assert_int_equal(tr.st.bytes_out, 20 * WIRE_HDR_LEN + 19 * 20 / 2);
}

static void test_message_ends(void **state)
{
	struct ib_link l;

	(void)state;
	link_init(&l, 256);
	/* A 5-frame message, then an ACK-only frame, then a 1-frame one. */
	for (unsigned i = 0; i < 5; i++)
		assert_int_equal(rdsu_ib_send_post(&l, IB_FRAME, i == 4), 0);
	assert_int_equal(rdsu_ib_send_post(&l, WIRE_HDR_LEN, true), 0);
	assert_int_equal(rdsu_ib_send_post(&l, WIRE_HDR_LEN + 10, true), 0);
	/* Queued, not posted, until the flush: then one doorbell. */
	assert_int_equal(fake.n, 0);
	assert_int_equal(rdsu_ib_send_flush(&l), 0);
	assert_int_equal(fake.doorbells, 1);
	assert_int_equal(fake.n, 7);
	for (unsigned i = 0; i < 7; i++) {
		unsigned want = i >= 4 ? IBV_SEND_SIGNALED | IBV_SEND_SOLICITED : 0;

		assert_int_equal(fake.flags[i], want);
	}
	/* The count restarts at every signalled SEND. */
	for (unsigned i = 0; i < 16; i++)
		assert_int_equal(rdsu_ib_send_post(&l, IB_FRAME, false), 0);
	assert_int_equal(rdsu_ib_send_flush(&l), 0);
	for (unsigned i = 7; i < 23; i++)
		assert_int_equal(!!(fake.flags[i] & IBV_SEND_SIGNALED), i == 22);
}

static void test_failures(void **state)
{
	struct ib_link l;

	(void)state;
	link_init(&l, 16);
	/* A doorbell the device refuses is the flush's error (the caller
	 * loses the link); nothing was posted. */
	fake.fail = ENOMEM;
	assert_int_equal(rdsu_ib_send_post(&l, WIRE_HDR_LEN, true), 0);
	assert_int_equal(rdsu_ib_send_flush(&l), -ENOMEM);
	assert_int_equal(fake.n, 0);
	fake.fail = 0;
	link_init(&l, 16);
	assert_int_equal(rdsu_ib_send_post(&l, WIRE_HDR_LEN, true), 0);
	assert_int_equal(rdsu_ib_send_flush(&l), 0);
	/* A completion out of the posted range frees nothing. */
	complete(7, IBV_WC_SUCCESS);
	assert_true(rdsu_ib_send_poll(&l, 0));
	assert_int_equal(l.s_tail, 0);
	complete(0, IBV_WC_RETRY_EXC_ERR);
	assert_false(rdsu_ib_send_poll(&l, 0));
	assert_int_equal(fake.lost, 1);
	assert_int_equal(l.state, IL_DEAD);
}

static void test_batch_and_inline(void **state)
{
	struct ib_link l;

	(void)state;
	link_init(&l, 256);
	l.max_inline = 64;
	/* A full batch goes at once, one doorbell, in ring order. */
	for (unsigned i = 0; i < IB_POST_BATCH; i++) {
		assert_int_equal(fake.n, 0);
		assert_int_equal(rdsu_ib_send_post(&l, WIRE_HDR_LEN + 16 + (i & 1), false), 0);
	}
	assert_int_equal(fake.doorbells, 1);
	assert_int_equal(fake.n, IB_POST_BATCH);
	for (unsigned i = 0; i < IB_POST_BATCH; i++) {
		assert_int_equal(fake.wr_id[i], i);
		/* 64 bytes inline, 65 not */
		assert_int_equal(!!(fake.flags[i] & IBV_SEND_INLINE), !(i & 1));
	}
	/* Nothing queued: a flush rings no bell. */
	assert_int_equal(rdsu_ib_send_flush(&l), 0);
	assert_int_equal(fake.doorbells, 1);
	assert_int_equal(rdsu_ib_send_post(&l, IB_FRAME, true), 0);
	assert_int_equal(rdsu_ib_send_flush(&l), 0);
	assert_int_equal(fake.doorbells, 2);
	assert_false(fake.flags[IB_POST_BATCH] & IBV_SEND_INLINE);
	/* A retired link's queue is dropped, not posted. */
	assert_int_equal(rdsu_ib_send_post(&l, WIRE_HDR_LEN, true), 0);
	l.state = IL_DEAD;
	assert_int_equal(rdsu_ib_send_flush(&l), 0);
	assert_int_equal(fake.doorbells, 2);
	assert_int_equal(l.npend, 0);
}

static void test_arm(void **state)
{
	struct ib_link l;

	(void)state;
	link_init(&l, 16);
	/* Armed for the next completion, solicited or not, once: a second
	 * call while armed costs no call into the device. */
	assert_int_equal(rdsu_ib_send_arm(&l), 0);
	assert_true(l.sarmed);
	assert_int_equal(fake.arms, 1);
	assert_int_equal(fake.arm_solicited, 0);
	assert_int_equal(rdsu_ib_send_arm(&l), 0);
	assert_int_equal(fake.arms, 1);
	/* Its event read (ib.c clears sarmed): armed again when asked. */
	l.sarmed = false;
	assert_int_equal(rdsu_ib_send_arm(&l), 0);
	assert_int_equal(fake.arms, 2);
	/* A device that refuses: an error, and not taken for armed. */
	l.sarmed = false;
	fake.arm_fail = EINVAL;
	assert_true(rdsu_ib_send_arm(&l) < 0);
	assert_false(l.sarmed);
	fake.arm_fail = 0;
	/* SEND completions free slots but are no busy-poll progress. */
	assert_int_equal(rdsu_ib_send_post(&l, WIRE_HDR_LEN, true), 0);
	assert_int_equal(rdsu_ib_send_flush(&l), 0);
	complete(0, IBV_WC_SUCCESS);
	assert_true(rdsu_ib_send_poll(&l, 0));
	assert_int_equal(l.s_tail, 1);
	assert_int_equal(tr.ncomp, 0);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_ring_fills_and_drains),
	cmocka_unit_test(test_message_ends),
	cmocka_unit_test(test_failures),
	cmocka_unit_test(test_batch_and_inline),
	cmocka_unit_test(test_arm))
