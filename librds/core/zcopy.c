// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * zcopy.c - zero-copy notices (MSG_ZEROCOPY): which messages carry a
 * cookie, and the socket's queue of notices in the kernel's batches
 * (docs/kernel-behaviour.md K7.9). The bytes of a zero-copy message are
 * copied at submit like any other's, so the caller's buffer is free when
 * the submit returns; the notice comes when the message leaves the
 * socket, as the kernel's when it unpins the pages.
 * Ref: net/rds/message.c rds_rm_zerocopy_callback() (the first queued
 * notice takes the cookie while it holds fewer than RDS_MAX_ZCOOKIES, else
 * a new one goes to the tail), rds_message_purge(); net/rds/recv.c
 * rds_recvmsg_zcookie() (the first notice is taken); net/rds/send.c
 * rds_sendmsg() (TCP only), rds_cmsg_zcopy() (no payload: -EINVAL).
 */
#include "core.h"

#include <errno.h>
#include <string.h>

int rdsu_zcq_add(struct rdsu_zcq *q, uint32_t cookie)
{
	struct rdsu_zc_notice *first = q->n ? &q->ring[q->head] : NULL;

	if (!first || first->num >= RDSU_ZC_BATCH) {
		if (q->n >= q->cap)
			return -ENOBUFS;
		first = &q->ring[(q->head + q->n++) % q->cap];
		memset(first, 0, sizeof(*first));
	}
	first->cookies[first->num++] = cookie;
	return 0;
}

int rdsu_zcq_take(struct rdsu_zcq *q, struct rdsu_zc_notice *out)
{
	if (!q->n)
		return 0;
	*out = q->ring[q->head];
	q->head = (q->head + 1) % q->cap;
	q->n--;
	return 1;
}

int rdsu_sock_submit_zc(struct rdsu_sock *rs, const struct rdsu_addr *dst, uint16_t dport,
			const struct iovec *iov, int iovcnt, const struct rdsu_op *op,
			uint32_t cookie, rdsu_ns now)
{
	size_t total = 0;
	int ret;

	if (!rs || iovcnt < 0 || (iovcnt > 0 && !iov))
		return -EINVAL;
	if (!rs->rs_bound)
		return -ENOTCONN;
	if (rdsu_sock_get_transport(rs) != RDSU_TRANS_TCP)
		return -EOPNOTSUPP;
	for (int i = 0; i < iovcnt; i++)
		total += iov[i].iov_len;
	if (!total)
		return -EINVAL;
	if (rs->rs_zc.n + rs->rs_zc_inflight >= RDSU_ZC_MAX)
		return -ENOMEM;
	if (!rs->rs_zc.ring) {
		rs->rs_zc.ring = rdsu_mem_alloc(rs->rs_ep, RDSU_ZC_MAX * sizeof(*rs->rs_zc.ring));
		if (!rs->rs_zc.ring)
			return -ENOMEM;
		rs->rs_zc.cap = RDSU_ZC_MAX;
		rs->rs_zc.head = rs->rs_zc.n = 0;
	}
	/* rdsu_send_data() marks the message it queues for this socket */
	rs->rs_zc_arm = true;
	rs->rs_zc_cookie = cookie;
	ret = rdsu_sock_submit_op(rs, dst, dport, iov, iovcnt, op, now);
	rs->rs_zc_arm = false;
	return ret;
}

void rdsu_zc_msg_left(struct rdsu_sock *rs, struct rdsu_msg *rm)
{
	if (!(rm->m_flags & RDSU_MF_ZCOPY))
		return;
	rm->m_flags &= (uint8_t)~RDSU_MF_ZCOPY;
	rs->rs_zc_inflight--;
	/* room is certain: submit counted this message */
	(void)rdsu_zcq_add(&rs->rs_zc, rm->m_zcookie);
	rdsu_sock_ev(rs, RDSU_POLLIN);
}

int rdsu_sock_next_zc(struct rdsu_sock *rs, struct rdsu_zc_notice *out)
{
	if (!rs || !out)
		return -EINVAL;
	return rs->rs_zc.ring ? rdsu_zcq_take(&rs->rs_zc, out) : 0;
}

void rdsu_zc_sock_free(struct rdsu_sock *rs)
{
	/* the queue goes with the socket (rds_notify_msg_zcopy_purge) */
	if (rs->rs_zc.ring)
		rdsu_mem_free(rs->rs_ep, rs->rs_zc.ring);
	memset(&rs->rs_zc, 0, sizeof(rs->rs_zc));
}
