// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * tcp_send.c - writing the core's byte stream, and telling the core what
 * TCP acknowledged. Ref: net/rds/tcp_send.c rds_tcp_xmit(),
 * rds_tcp_write_space() ("acked = snd_una" becomes written - SIOCOUTQ).
 */
#define _GNU_SOURCE
#include "tcp.h"

#include <errno.h>
#include <linux/sockios.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

/* A socket waiting for SNDBUF room is told within ACK_POLL_MIN, however
 * long nothing moved; otherwise the backoff applies, from ACK_POLL_IDLE. */
static rdsu_ns ack_interval(const struct rdsu_tcp *t)
{
	if (rdsu_ep_acks_wanted(t->ep))
		return ACK_POLL_MIN;
	return t->ack_poll < ACK_POLL_IDLE ? ACK_POLL_IDLE : t->ack_poll;
}

static void ack_list_add(struct rdsu_tcp *t, struct tsock *l, rdsu_ns now)
{
	if (l->on_ack_list)
		return;
	/* The first unacknowledged bytes start the clock; a due time left
	 * over from an earlier round would fire at once, a wakeup and a
	 * SIOCOUTQ per message of a ping-pong. */
	if (!t->ack_head)
		t->ack_due = now + ack_interval(t);
	l->on_ack_list = true;
	l->aprev = NULL;
	l->anext = t->ack_head;
	if (t->ack_head)
		t->ack_head->aprev = l;
	t->ack_head = l;
}

void rdsu_tcp_ack_list_del(struct rdsu_tcp *t, struct tsock *l)
{
	if (!l->on_ack_list)
		return;
	if (l->aprev)
		l->aprev->anext = l->anext;
	else
		t->ack_head = l->anext;
	if (l->anext)
		l->anext->aprev = l->aprev;
	l->on_ack_list = false;
	l->anext = l->aprev = NULL;
}

/* Return: true if the peer acknowledged more (the core freed messages). */
static bool check_acked(struct rdsu_tcp *t, struct tsock *l, rdsu_ns now)
{
	bool moved = false;
	int outq = 0;

	if (l->written == l->acked)
		return false;
	t->st.ack_checks++;
	if (ioctl(l->src.fd, SIOCOUTQ, &outq) < 0 || outq < 0)
		return false;
	uint64_t acked = l->written - (uint64_t)outq;

	if (acked > l->acked) {
		l->acked = acked;
		moved = true;
		if (rdsu_link_acked(t->ep, l->id, acked, now) == RDSU_ERR_CLOSED) {
			rdsu_tcp_link_close(t, l, false);
			return true;
		}
		t->ack_poll = ACK_POLL_MIN;
	}
	if (l->acked == l->written)
		rdsu_tcp_ack_list_del(t, l);
	return moved;
}

/* sendmsg() what it takes of |iov|; <0 errno on a dead connection. */
static ssize_t wrv(struct rdsu_tcp *t, struct tsock *l, struct iovec *iov, int n, rdsu_ns now)
{
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)n };
	ssize_t w = sendmsg(l->src.fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);

	if (w < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return 0;
		return -errno;
	}
	t->st.writes++;
	t->st.bytes_out += (uint64_t)w;
	l->written += (uint64_t)w;
	if (l != t->last_in)
		t->other_out_at = now;
	ack_list_add(t, l, now);
	return w;
}

/* send() what it takes; <0 errno on a dead connection. */
static ssize_t wr(struct rdsu_tcp *t, struct tsock *l, const uint8_t *p, size_t n, rdsu_ns now)
{
	struct iovec iov = { .iov_base = (void *)p, .iov_len = n };

	return wrv(t, l, &iov, 1, now);
}

/*
 * Write until the core has nothing or the socket is full. Short spans
 * (headers, small messages) are gathered into one staging buffer
 * (rds_tcp_xmit corks a batch the same way); the first long span after
 * them is written from the core's memory in the same sendmsg(), so a
 * 64 KiB message is one system call and no copy of ours. Staged bytes
 * are the transport's once copied: what sendmsg() does not take of them
 * is kept and written first next time, as the contract asks. The long
 * span is advanced only by what was taken.
 */
void rdsu_tcp_output(struct rdsu_tcp *t, struct tsock *l, rdsu_ns now)
{
	if (l->state != TL_UP)
		return;
	for (;;) {
		struct iovec iov[2];
		const uint8_t *p = NULL, *big = NULL;
		size_t len = 0, big_len = 0, staged = 0;
		ssize_t w;
		int r, n = 0;

		if (l->rem_len) {
			w = wr(t, l, l->rem + l->rem_off, l->rem_len, now);
			if (w < 0)
				goto lost;
			l->rem_off += (size_t)w;
			l->rem_len -= (size_t)w;
			if (l->rem_len)
				goto blocked;
			free(l->rem);
			l->rem = NULL;
			l->rem_off = 0;
		}
		while (staged < STAGE_SIZE) {
			r = rdsu_link_peek(t->ep, l->id, &p, &len, now);
			if (r == RDSU_ERR_CLOSED) {
				rdsu_tcp_link_close(t, l, false);
				return;
			}
			if (r < 0 || len == 0)
				break;
			if (len >= DIRECT_MIN) {
				big = p;
				big_len = len;
				break;
			}
			if (len > STAGE_SIZE - staged)
				len = STAGE_SIZE - staged;
			memcpy(t->stage + staged, p, len);
			if (rdsu_link_advance(t->ep, l->id, len, now) < 0) {
				rdsu_tcp_link_close(t, l, false);
				return;
			}
			staged += len;
		}
		if (!staged && !big)
			break;
		if (staged)
			iov[n++] = (struct iovec){ .iov_base = t->stage, .iov_len = staged };
		if (big)
			iov[n++] = (struct iovec){ .iov_base = (void *)big, .iov_len = big_len };
		w = wrv(t, l, iov, n, now);
		if (w < 0)
			goto lost;
		if ((size_t)w < staged) {
			l->rem = malloc(staged - (size_t)w);
			if (!l->rem) {
				/* The bytes are the core's no more: the stream
				 * cannot go on without them. */
				(void)rdsu_link_down(t->ep, l->id, now);
				rdsu_tcp_link_close(t, l, true);
				return;
			}
			memcpy(l->rem, t->stage + w, staged - (size_t)w);
			l->rem_len = staged - (size_t)w;
			l->rem_off = 0;
			goto blocked;
		}
		if (big) {
			size_t took = (size_t)w - staged;

			if (took && rdsu_link_advance(t->ep, l->id, took, now) < 0) {
				rdsu_tcp_link_close(t, l, false);
				return;
			}
			if (took < big_len)
				goto blocked;
		}
	}
	l->want_out = false;
	rdsu_tcp_link_rewatch(t, l);
	/* SIOCOUTQ costs a system call per write; without a socket blocked
	 * on SNDBUF the ack timer frees acknowledged messages soon enough. */
	if (rdsu_ep_acks_wanted(t->ep))
		check_acked(t, l, now);
	return;
blocked:
	t->st.write_blocked++;
	l->want_out = true;
	rdsu_tcp_link_rewatch(t, l);
	return;
lost:
	rdsu_tcp_salvage(t, l, now);
}

static bool ack_round(struct rdsu_tcp *t, rdsu_ns now)
{
	struct tsock *l = t->ack_head, *next;
	rdsu_ns before = t->ack_poll;
	bool moved = false;

	/* Nothing moved since last time: look less often, up to 50 ms. The
	 * kernel is told on every ACK; SIOCOUTQ is the closest a userspace
	 * stack gets, and while a socket waits for SNDBUF room every write
	 * and every round look anyway (ack_due). */
	t->ack_poll = before * 2 > ACK_POLL_MAX ? ACK_POLL_MAX : before * 2;
	for (; l; l = next) {
		next = l->anext;
		moved |= check_acked(t, l, now);
	}
	t->ack_due = now + ack_interval(t);
	return moved;
}

/* Time to look at acknowledgements: the timer says so, or a socket waits
 * for SNDBUF room and every moment counts. */
static bool ack_due(const struct rdsu_tcp *t, rdsu_ns now)
{
	return t->ack_head && (now >= t->ack_due || rdsu_ep_acks_wanted(t->ep));
}

/* Report what TCP acknowledged when it is time to look: the timer says
 * so, or a socket waits for SNDBUF room. The flush look is on the waiting
 * socket's clock only (ACK_POLL_MIN): a sender that queues with more and
 * flushes in a loop never sleeps in a run, so the flush is where
 * acknowledged bytes must be noticed, or it waits for ever (rdsperf's rr
 * server did), but not with a SIOCOUTQ per flush. */
bool rdsu_tcp_acks(struct rdsu_transport *tr, rdsu_ns now, bool flush)
{
	struct rdsu_tcp *t = tcp_of(tr);

	if (flush)
		return rdsu_ep_acks_wanted(t->ep) && t->ack_head && now >= t->ack_due &&
		       ack_round(t, now);
	return ack_due(t, now) && ack_round(t, now);
}
