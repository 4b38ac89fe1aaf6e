// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * tcp_recv.c - reading links into the core, and reading what a closing
 * link's peer still sends until its FIN. Ref: net/rds/tcp_recv.c
 * rds_tcp_data_recv() (the deframing itself is the core's).
 */
#define _GNU_SOURCE
#include "tcp.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>

int rdsu_tcp_feed(struct rdsu_tcp *t, struct tsock *l, const uint8_t *p, size_t n, rdsu_ns now)
{
	ssize_t r = rdsu_link_input(t->ep, l->id, p, n, now);

	if (r == RDSU_ERR_CLOSED) {
		/* The core may have let go of the link while reading (a probe
		 * re-syncing slot 0) and queued an orderly close for it: that
		 * close must drain, not cut the socket with unread bytes. */
		rdsu_loop_requests(t->io, now);
		if (l->kind == TS_LINK)
			rdsu_tcp_link_close(t, l, false);
		return -1;
	}
	if (r < 0)
		return -1;  /* RDSU_ERR_PROTO: a CLOSE with RST is queued */
	if ((size_t)r < n) {
		/* The core holds the link (stashed for a slot): keep the bytes
		 * for when it is attached. */
		if (rdsu_tcp_held_append(l, p + r, n - (size_t)r) < 0) {
			rdsu_tcp_link_lost(t, l, now);
			return -1;
		}
		l->state = TL_HELD;
		rdsu_tcp_link_rewatch(t, l);
		return -1;
	}
	return 0;
}

/* recv() one chunk into t->rbuf: bytes, 0 at EOF, -errno. Every read
 * but a direct wait's passes MSG_DONTWAIT: a link may be a blocking
 * socket (direct_wait). */
ssize_t rdsu_tcp_rd(struct rdsu_tcp *t, struct tsock *l, int flags)
{
	ssize_t n = recv(l->src.fd, t->rbuf, READ_CHUNK, flags);

	if (n < 0)
		return -errno;
	t->io->rd_budget -= n;
	if (n > 0)
		l->rx += (uint64_t)n;
	t->st.reads += n > 0;
	t->st.bytes_in += (uint64_t)n;
	return n;
}

/* Hand what one read of |l| into |buf| gave to the core. Return: true
 * if the socket may hold more. */
bool rdsu_tcp_took_buf(struct rdsu_tcp *t, struct tsock *l, const uint8_t *buf, ssize_t n,
		       rdsu_ns now)
{
	if (n == -EAGAIN || n == -EWOULDBLOCK || n == -EINTR)
		return false;
	if (n <= 0) {
		rdsu_tcp_link_lost(t, l, now);  /* EOF, RST, error */
		return false;
	}
	l->in_gap = l->in_at ? now - l->in_at : RDSU_NS_NEVER;
	l->in_at = now;
	if (t->last_in != l) {
		t->in_streak = 0;
		t->streak_at = now;
	}
	if (t->in_streak < 2)
		t->in_streak++;
	t->last_in = l;
	if (rdsu_tcp_feed(t, l, buf, (size_t)n, now) < 0)
		return false;
	return (size_t)n == READ_CHUNK;
}

bool rdsu_tcp_took(struct rdsu_tcp *t, struct tsock *l, ssize_t n, rdsu_ns now)
{
	return rdsu_tcp_took_buf(t, l, t->rbuf, n, now);
}

void rdsu_tcp_input(struct rdsu_tcp *t, struct tsock *l, rdsu_ns now)
{
	for (int i = 0; i < READS_PER_ROUND && l->state == TL_UP && t->io->rd_budget > 0; i++)
		if (!rdsu_tcp_took(t, l, rdsu_tcp_rd(t, l, MSG_DONTWAIT), now))
			return;
}

/*
 * A send found the connection dead. What it had received is still in the
 * socket and TCP has acknowledged it, so the peer has freed those messages
 * and will never resend them: read it all into the core, then report the
 * loss.
 */
void rdsu_tcp_salvage(struct rdsu_tcp *t, struct tsock *l, rdsu_ns now)
{
	ssize_t n;

	while ((n = rdsu_tcp_rd(t, l, MSG_DONTWAIT)) > 0)
		if (rdsu_tcp_feed(t, l, t->rbuf, (size_t)n, now) < 0)
			return;  /* closed or held by the core */
	rdsu_tcp_link_lost(t, l, now);
}

void rdsu_tcp_drain_read(struct rdsu_tcp *t, struct tsock *d)
{
	for (int i = 0; i < READS_PER_ROUND; i++) {
		ssize_t n = recv(d->src.fd, t->rbuf, READ_CHUNK, MSG_DONTWAIT);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return;
		if (n <= 0) {
			rdsu_tcp_drain_end(t, d);
			return;
		}
	}
}

void rdsu_tcp_drain_expire(struct rdsu_tcp *t, rdsu_ns now)
{
	struct tsock *d = t->drain_head, *next;

	for (; d; d = next) {
		next = d->dnext;
		if (now >= d->drain_until)
			rdsu_tcp_drain_end(t, d);
	}
}
