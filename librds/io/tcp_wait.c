// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * tcp_wait.c - the TCP transport's wait op: blocking on the one link whose
 * bytes will most likely end the wait, in recv() (direct wait) or in
 * io_uring together with the epoll set (ring wait), instead of in the
 * loop's epoll_wait(): one system call and one wakeup fewer per message
 * of a ping-pong (docs/performance.md, issue 7).
 */
#define _GNU_SOURCE
#include "tcp.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/time.h>
#ifdef RDSU_HAVE_LIBURING
#include <poll.h>
#endif

/* |l| is the one link read lately: its last two reads were the
 * endpoint's last two, less than |bound| apart, the last less than
 * |bound| ago. */
static bool link_hot(const struct rdsu_tcp *t, const struct tsock *l, rdsu_ns now, rdsu_ns bound)
{
	return l == t->last_in && t->in_streak >= 2 && l->in_gap < bound && now - l->in_at < bound;
}

/* Make |l| a blocking socket that a recv() waits on for at most
 * t->direct_max. Every other call on a link passes MSG_DONTWAIT (or cannot
 * block: shutdown, close without a linger time, ioctl). */
static bool direct_ready(struct rdsu_tcp *t, struct tsock *l)
{
	struct timeval tv = { .tv_sec = 0, .tv_usec = DIRECT_ASK_US };
	socklen_t len = sizeof(tv);
	int fl;

	if (l->direct)
		return true;
	if (l->no_direct)
		return false;
	l->no_direct = true;
	if (setsockopt(l->src.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    getsockopt(l->src.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, &len) < 0)
		return false;
	rdsu_ns max = (rdsu_ns)tv.tv_sec * RDSU_SEC + (rdsu_ns)tv.tv_usec * 1000;

	/* 0 would be no timeout at all. */
	if (max == 0 || (fl = fcntl(l->src.fd, F_GETFL)) < 0 ||
	    fcntl(l->src.fd, F_SETFL, fl & ~O_NONBLOCK) < 0)
		return false;
	if (max > t->direct_max)
		t->direct_max = max;
	l->no_direct = false;
	l->direct = true;
	return true;
}

/* Every link but last_in quiet for DIRECT_QUIET: none read or written. */
static bool others_quiet(const struct rdsu_tcp *t, rdsu_ns now)
{
	return t->n_links == 1 ||
	       (now - t->streak_at >= DIRECT_QUIET && t->other_out_at < t->streak_at);
}

/*
 * The link a wait until |until| may block on directly, or NULL. Only one
 * link's bytes can end such a wait: it is the endpoint's only link, or
 * the others have been quiet for DIRECT_QUIET (others_quiet), up and
 * with nothing to write (EPOLLOUT would be missed), no drain is reading,
 * and no socket waits for acknowledgements (their 200 us timer would be).
 * The wait must end before the core's next deadline and the caller's,
 * and start within direct_max of the last epoll round, so the listener
 * and the timerfd are looked at within twice that. A link that has not
 * read for that long, or whose last two reads were further apart, would
 * mostly time out, a wakeup for nothing: it is left to epoll.
 */
static struct tsock *direct_link(struct rdsu_tcp *t, rdsu_ns now, rdsu_ns until)
{
	struct tsock *l = t->last_in;

	if (!l || t->drain_head || l->state != TL_UP || l->want_out || l->rem_len ||
	    rdsu_ep_acks_wanted(t->ep) || !others_quiet(t, now))
		return NULL;
	if (!direct_ready(t, l))
		return NULL;
	if (!link_hot(t, l, now, t->direct_max) || now - t->io->swept >= t->direct_max)
		return NULL;
	if (now + t->direct_max > until || now + t->direct_max > rdsu_ep_deadline(t->ep))
		return NULL;
	return l;
}

/* Block in recv() on |l| (direct_link). Return: 1 bytes or the end of the
 * connection were handled, 0 it timed out, -EINTR. */
static int direct_wait(struct rdsu_tcp *t, struct tsock *l)
{
	ssize_t n;

	t->st.direct_waits++;
	t->io->rd_budget = RDSU_READ_BUDGET;
	n = rdsu_tcp_rd(t, l, 0);
	if (n == -EINTR)
		return -EINTR;
	if (n == -EAGAIN || n == -EWOULDBLOCK)
		return 0;
	rdsu_ns now = rdsu_clock();

	if (rdsu_tcp_took(t, l, n, now))
		rdsu_tcp_input(t, l, now);
	return 1;
}

/* ------------------------------------------------------------------------
 * Ring waits (RING_HOT)
 *
 * SINGLE_ISSUER | DEFER_TASKRUN: an armed recv runs, and completes, only
 * inside our own io_uring_enter with GETEVENTS (or at its submission),
 * never behind our back. So a plain recv() of the hot link by other code
 * (an EPOLLHUP, salvage) while the ring recv is armed takes the bytes
 * that come first, and the ring recv, when it runs, the ones after; and
 * since every enter is followed by ring_reap and the bytes are fed before
 * anything else reads the socket, nothing reaches the core out of order.
 */

#ifdef RDSU_HAVE_LIBURING
enum { RING_RECV = 1, RING_POLL, RING_CANCEL };

static bool ring_ok(struct rdsu_tcp *t)
{
	struct io_uring_params p = { .flags = IORING_SETUP_SINGLE_ISSUER |
					      IORING_SETUP_DEFER_TASKRUN |
					      IORING_SETUP_TASKRUN_FLAG };

	if (t->ring_state)
		return t->ring_state > 0;
	/* Set up on first use, so the ring belongs to the thread that runs
	 * the loop (SINGLE_ISSUER), not the one that created the endpoint.
	 * A kernel before 6.1, seccomp or io_uring_disabled: epoll it is. */
	t->ring_state = -1;
	t->hbuf = malloc(READ_CHUNK);
	if (!t->hbuf || io_uring_queue_init_params(8, &t->ring, &p) < 0) {
		free(t->hbuf);
		t->hbuf = NULL;
		t->st.ring_unavailable = 1;
		return false;
	}
	t->ring_state = 1;
	return true;
}

static void ring_reap(struct rdsu_tcp *t)
{
	struct io_uring_cqe *cqe;
	unsigned head, n = 0;

	io_uring_for_each_cqe(&t->ring, head, cqe) {
		n++;
		if (cqe->user_data == RING_RECV) {
			t->recv_armed = false;
			t->recv_done = true;
			t->recv_res = cqe->res;
		} else if (cqe->user_data == RING_POLL) {
			t->poll_armed = false;
			t->poll_done = true;
		}
	}
	io_uring_cq_advance(&t->ring, n);
	t->st.ring_armed = t->recv_armed;
}

/* The completed recv of |l| to the core, as rdsu_tcp_took() and rdsu_tcp_input() do a
 * recv(). Return: true if it ended (bytes, EOF or error), not cancelled. */
static bool ring_took(struct rdsu_tcp *t, struct tsock *l, rdsu_ns now)
{
	ssize_t n = t->recv_res;

	t->recv_done = false;
	if (n == -ECANCELED)
		return false;
	if (n > 0) {
		t->io->rd_budget -= n;
		l->rx += (uint64_t)n;
		t->st.reads++;
		t->st.bytes_in += (uint64_t)n;
	}
	if (rdsu_tcp_took_buf(t, l, t->hbuf, n, now))
		rdsu_tcp_input(t, l, now);
	return true;
}

/* Let go of the hot link: cancel its recv, wait for that recv's
 * completion (until then io_uring holds the socket), give it back to
 * epoll. What the recv read goes to the core if |deliver|, else nowhere
 * (the link is closing). Return: true if bytes, EOF or an error were
 * delivered. */
bool rdsu_tcp_ring_unhot(struct rdsu_tcp *t, rdsu_ns now, bool deliver)
{
	struct tsock *l = t->hot;

	if (!l)
		return false;
	/* The poll too: left armed while a direct or epoll wait blocks, its
	 * completion interrupted that wait with EINTR (test_direct_wait_timer). */
	if (t->recv_armed || t->poll_armed) {
		struct io_uring_sqe *sqe;

		if (t->recv_armed && (sqe = io_uring_get_sqe(&t->ring))) {
			t->st.ring_cancels++;
			io_uring_prep_cancel64(sqe, RING_RECV, 0);
			io_uring_sqe_set_data64(sqe, RING_CANCEL);
		}
		if (t->poll_armed && (sqe = io_uring_get_sqe(&t->ring))) {
			io_uring_prep_cancel64(sqe, RING_POLL, 0);
			io_uring_sqe_set_data64(sqe, RING_CANCEL);
		}
		while (t->recv_armed || t->poll_armed) {
			int r = io_uring_submit_and_wait(&t->ring, 1);

			ring_reap(t);
			if (r < 0 && r != -EINTR)
				break;  /* io_uring_queue_exit at free cancels it */
		}
	}
	t->hot = NULL;
	l->hot = false;
	t->poll_done = false;
	if (!deliver) {
		t->recv_done = false;
		return false;
	}
	rdsu_tcp_link_rewatch(t, l);
	return t->recv_done && ring_took(t, l, now);
}

/* The link a wait may arm a recv on, or NULL: the hot link of several
 * (one link alone has the direct wait). No deadline or drain matters
 * here, nor a link waiting to write (it keeps EPOLLOUT in the epoll set):
 * whatever ends an epoll wait ends this one through the poll. */
static struct tsock *ring_link(struct rdsu_tcp *t, rdsu_ns now)
{
	struct tsock *l = t->last_in;

	if (!t->cfg.ring_wait || !l || t->n_links < 2 || l->state != TL_UP ||
	    !link_hot(t, l, now, RING_HOT))
		return NULL;
	return ring_ok(t) ? l : NULL;
}

/*
 * Wait up to |wait_ms| (-1 for ever) for |l|'s bytes or the epoll set,
 * re-arming only what completed last time. Return: 1 the wait ended (the
 * caller looks at recv_done and poll_done), 0 it timed out, -EINTR, or
 * another -errno, after which the ring is given up.
 */
static int ring_wait(struct rdsu_tcp *t, struct tsock *l, int wait_ms)
{
	struct io_uring_sqe *sqe;
	int r;

	if (!l->hot) {
		t->hot = l;
		l->hot = true;
		rdsu_tcp_link_rewatch(t, l);
	}
	if (!t->recv_armed && (sqe = io_uring_get_sqe(&t->ring))) {
		io_uring_prep_recv(sqe, l->src.fd, t->hbuf, READ_CHUNK, 0);
		io_uring_sqe_set_data64(sqe, RING_RECV);
		t->recv_armed = true;
	}
	if (!t->poll_armed && (sqe = io_uring_get_sqe(&t->ring))) {
		io_uring_prep_poll_add(sqe, t->io->epfd, POLLIN);
		io_uring_sqe_set_data64(sqe, RING_POLL);
		t->poll_armed = true;
	}
	t->st.ring_waits++;
	t->st.ring_armed = 1;
	t->recv_done = t->poll_done = false;
	if (wait_ms < 0) {
		r = io_uring_submit_and_wait(&t->ring, 1);
	} else {
		struct io_uring_cqe *cqe;
		struct __kernel_timespec ts = { .tv_sec = wait_ms / 1000,
						.tv_nsec = (long long)(wait_ms % 1000) * 1000000 };

		r = io_uring_submit_and_wait_timeout(&t->ring, &cqe, 1, &ts, NULL);
	}
	ring_reap(t);
	if (t->recv_done || t->poll_done)
		return 1;
	if (r == -ETIME || r >= 0)
		return 0;
	return r;
}

/* The ring cannot be entered (another thread, say): back to epoll for
 * good. Exiting the ring cancels what is armed. */
static void ring_fail(struct rdsu_tcp *t)
{
	struct tsock *l = t->hot;

	io_uring_queue_exit(&t->ring);
	t->ring_state = -1;
	t->st.ring_unavailable = 1;
	t->recv_armed = t->poll_armed = t->recv_done = t->poll_done = false;
	t->st.ring_armed = 0;
	t->hot = NULL;
	if (l) {
		l->hot = false;
		rdsu_tcp_link_rewatch(t, l);
	}
}

/* A round without a wait while a recv is armed: if the kernel has work
 * for us (TASKRUN_FLAG, a read of shared memory), the hot link may have
 * bytes that no epoll_wait would see; take them. */
static void ring_peek(struct rdsu_tcp *t, rdsu_ns now)
{
	if (!t->hot || !(IO_URING_READ_ONCE(*t->ring.sq.kflags) & IORING_SQ_TASKRUN))
		return;
	(void)io_uring_get_events(&t->ring);
	ring_reap(t);
	t->poll_done = false;
	if (t->recv_done) {
		t->io->rd_budget = RDSU_READ_BUDGET;
		(void)ring_took(t, t->hot, now);
	}
}
#else
bool rdsu_tcp_ring_unhot(struct rdsu_tcp *t, rdsu_ns now, bool deliver)
{
	return false;
}
#endif

/*
 * The loop's wait op: before it waits on the epoll set, a ring wait on
 * the hot link of several, or a direct wait on the one link (see
 * rdsu_tcp_run). A direct wait needs every other source to be quiet, so
 * only a loop with TCP |alone| has one.
 */
int rdsu_tcp_wait_hot(struct rdsu_transport *tr, bool alone, int *wait_ms, rdsu_ns *nowp,
		      int *res)
{
	struct rdsu_tcp *t = tcp_of(tr);
	rdsu_ns now = *nowp;
	int n;

#ifdef RDSU_HAVE_LIBURING
	if (*wait_ms == 0 && t->hot) {
		ring_peek(t, now);
		rdsu_loop_requests(t->io, now);
	}
	if (*wait_ms != 0) {
		struct tsock *h = ring_link(t, now);

		/* The others are quiet: a direct wait does it for less
		 * (DIRECT_QUIET), and where one may not start (the epoll
		 * round it needs every direct_max, a deadline too near) an
		 * epoll wait that sees everything does. */
		if (h && alone && others_quiet(t, now))
			h = NULL;

		/* Cooled, or another link took over: its bytes to epoll again,
		 * and whatever the cancelled recv still read to the core
		 * before anything waits. */
		if (t->hot && t->hot != h) {
			t->io->rd_budget = RDSU_READ_BUDGET;
			if (rdsu_tcp_ring_unhot(t, now, true))
				*wait_ms = 0;
			rdsu_loop_requests(t->io, now);
			rdsu_loop_arm(t->io, now);
		}
		if (h && *wait_ms != 0) {
			n = ring_wait(t, h, *wait_ms);
			/* Interrupted (a signal, or io_uring's own task work,
			 * which test_direct_wait_timer once met while a poll
			 * was still armed): a round that found nothing, so a
			 * caller's loop goes on and still looks at its flags. */
			if (n == -EINTR)
				n = 0;
			if (n < 0) {
				ring_fail(t);
				*wait_ms = 0;
				return RDSU_TWAIT_NONE;
			}
			now = rdsu_clock();
			*nowp = now;
			t->io->rd_budget = RDSU_READ_BUDGET;
			if (t->recv_done) {
				t->st.ring_recvs++;
				(void)ring_took(t, h, now);
				rdsu_loop_requests(t->io, now);
			}
			if (t->poll_done) {
				t->st.ring_polls++;
				return RDSU_TWAIT_POLL;
			}
			if (!n)
				t->st.ring_timeouts++;  /* or interrupted */
			*res = n;
			return RDSU_TWAIT_DONE;
		}
	}
#endif
	if (*wait_ms != 0 && alone) {
		rdsu_ns until = *wait_ms < 0 ? RDSU_NS_NEVER : now + (rdsu_ns)*wait_ms * RDSU_MSEC;
		struct tsock *l = direct_link(t, now, until);

		if (l) {
			n = direct_wait(t, l);
			if (n < 0)
				return n;
			now = rdsu_clock();
			*nowp = now;
			if (n > 0) {
				rdsu_loop_requests(t->io, now);
				*res = 1;
				return RDSU_TWAIT_DONE;
			}
			/* Quiet for all of direct_max: epoll, for the rest of
			 * the caller's time. */
			t->st.direct_timeouts++;
			if (until != RDSU_NS_NEVER && until <= now)
				*wait_ms = 0;
			else if (until != RDSU_NS_NEVER)
				*wait_ms = (int)((until - now + RDSU_MSEC - 1) / RDSU_MSEC);
		}
	}
	return RDSU_TWAIT_NONE;
}
