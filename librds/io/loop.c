// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * loop.c - struct rdsu_io: an endpoint, its transports and the loop that
 * drives them. One epoll set holds every transport's descriptors and a
 * timerfd; a round waits on it (or lets a transport wait on its one hot
 * source, the wait op), hands readiness to the transport that owns each
 * descriptor, runs the core's timers and the transports', and carries out
 * the core's link requests through the owning transport's ops
 * (transport.h). Nothing here knows a socket type or RDS rule; the
 * kernel's counterpart is the work queues of net/rds/threads.c, which
 * call into struct rds_transport the same way.
 */
#define _GNU_SOURCE
#include "loop.h"
#include "mon.h"

#include <rds/rdsu_ib.h>
#include <rds/rdsu_tcp.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

int rdsu_loop_watch(struct rdsu_io *io, struct rdsu_src *s, uint32_t events, int op)
{
	struct epoll_event ev = { .events = events, .data.ptr = s };

	if (op == EPOLL_CTL_MOD && s->events == events)
		return 0;
	if (epoll_ctl(io->epfd, op, s->fd, &ev) < 0)
		return -errno;
	s->events = events;
	return 0;
}

void rdsu_loop_unwatch(struct rdsu_io *io, struct rdsu_src *s)
{
	(void)epoll_ctl(io->epfd, EPOLL_CTL_DEL, s->fd, NULL);
	s->events = 0;
}

/* The transport numbered |id|, or NULL when it does not run here: a
 * connect for it fails at once and the core backs off. */
static struct rdsu_transport *loop_transport(struct rdsu_io *io, unsigned id)
{
	for (unsigned i = 0; i < io->n_tr; i++)
		if (io->tr[i]->ops->id == id)
			return io->tr[i];
	return NULL;
}

void rdsu_loop_requests(struct rdsu_io *io, rdsu_ns now)
{
	struct rdsu_lreq r;

	while (rdsu_ep_next_link_req(io->ep, &r) == 1) {
		struct rdsu_transport *tr = NULL;
		void *lk = NULL;

		if (r.type == RDSU_LREQ_CONNECT) {
			tr = loop_transport(io, r.trans);
			if (tr)
				tr->ops->connect(tr, &r, now);
			else
				(void)rdsu_link_down(io->ep, r.link, now);
			continue;
		}
		/* A link id the core let go of is nobody's: ignored. */
		for (unsigned i = 0; i < io->n_tr && !lk; i++) {
			tr = io->tr[i];
			lk = tr->ops->find(tr, r.link);
		}
		if (!lk)
			continue;
		switch (r.type) {
		case RDSU_LREQ_CLOSE:
			tr->ops->close(tr, lk, r.reset, now);
			break;
		case RDSU_LREQ_OUTPUT:
			tr->ops->output(tr, lk, now);
			break;
		case RDSU_LREQ_ATTACH:
			tr->ops->attach(tr, lk, now);
			break;
		case RDSU_LREQ_CONNECT:
			break;
		}
	}
}

static rdsu_ns next_due(const struct rdsu_io *io)
{
	rdsu_ns due = rdsu_ep_deadline(io->ep);

	for (unsigned i = 0; i < io->n_tr; i++) {
		const struct rdsu_transport *tr = io->tr[i];
		rdsu_ns d = tr->ops->deadline ? tr->ops->deadline(tr) : RDSU_NS_NEVER;

		if (d < due)
			due = d;
	}
	return due;
}

void rdsu_loop_arm(struct rdsu_io *io, rdsu_ns now)
{
	rdsu_ns due = next_due(io);
	struct itimerspec its = { 0 };

	if (due == io->timer_armed)
		return;
	io->timer_armed = due;
	if (due != RDSU_NS_NEVER) {
		rdsu_ns rel = due > now ? due - now : 1;

		its.it_value.tv_sec = (time_t)(rel / RDSU_SEC);
		its.it_value.tv_nsec = (long)(rel % RDSU_SEC);
	}
	(void)timerfd_settime(io->timerfd, 0, &its, NULL);
}

static void timers(struct rdsu_io *io, rdsu_ns now)
{
	uint64_t ticks;

	(void)!read(io->timerfd, &ticks, sizeof(ticks));
	io->timer_armed = 0;
	if (rdsu_ep_deadline(io->ep) <= now)
		(void)rdsu_ep_expire(io->ep, now);
	for (unsigned i = 0; i < io->n_tr; i++)
		if (io->tr[i]->ops->expire)
			io->tr[i]->ops->expire(io->tr[i], now);
}

static bool acks(struct rdsu_io *io, rdsu_ns now, bool flush)
{
	bool moved = false;

	for (unsigned i = 0; i < io->n_tr; i++)
		if (io->tr[i]->ops->acks)
			moved |= io->tr[i]->ops->acks(io->tr[i], now, flush);
	return moved;
}

static void reap(struct rdsu_io *io)
{
	for (unsigned i = 0; i < io->n_tr; i++)
		io->tr[i]->ops->reap(io->tr[i]);
}

/* After the wait: what the events caused, then the timers that are due. */
static void round_end(struct rdsu_io *io, rdsu_ns now)
{
	(void)acks(io, now, false);
	if (rdsu_ep_deadline(io->ep) <= now)
		(void)rdsu_ep_expire(io->ep, now);
	rdsu_loop_requests(io, now);
	rdsu_loop_arm(io, now);
	reap(io);
}

/* One epoll_wait and what its events cause. */
static int epoll_round(struct rdsu_io *io, int wait_ms)
{
	struct epoll_event evs[64];
	rdsu_ns now;
	int n = epoll_wait(io->epfd, evs, (int)(sizeof(evs) / sizeof(evs[0])), wait_ms);

	if (n < 0)
		return -errno;
	now = rdsu_clock();
	io->swept = now;
	io->rd_budget = RDSU_READ_BUDGET;
	for (int i = 0; i < n; i++) {
		struct rdsu_src *s = evs[i].data.ptr;

		if (s->tr)
			s->tr->ops->ready(s->tr, s, evs[i].events, now);
		else if (!rdsu_mon_ready(io, s, evs[i].events, now))
			timers(io, now);
		rdsu_loop_requests(io, now);
	}
	round_end(io, now);
	return n;
}

/* Transports with descriptors of their own (the loopback transport has
 * none, so a direct wait on TCP's hot link misses nothing of it). */
static unsigned sourced(const struct rdsu_io *io)
{
	unsigned n = 0;

	for (unsigned i = 0; i < io->n_tr; i++)
		n += io->tr[i]->ops->ready != NULL;
	return n;
}

int rdsu_io_run(struct rdsu_io *io, int timeout_ms)
{
	rdsu_ns now = rdsu_clock();
	int n, wait_ms = timeout_ms;

	if (!io)
		return RDSU_ERR_INVAL;
	io->runs++;
	io->worked = false;
	rdsu_loop_requests(io, now);
	if (acks(io, now, false) || io->worked)
		wait_ms = 0;
	if (rdsu_ep_deadline(io->ep) <= now) {
		(void)rdsu_ep_expire(io->ep, now);
		rdsu_loop_requests(io, now);
		wait_ms = 0;
	}
	/* Work done above may have made a socket ready (acknowledged bytes
	 * free SNDBUF, a timer queued a resend): sleeping now would leave the
	 * caller waiting for an event that has already happened. */
	rdsu_loop_arm(io, now);
	io->sleeps += wait_ms != 0;
	for (unsigned i = 0; i < io->n_tr; i++) {
		struct rdsu_transport *tr = io->tr[i];
		int res = 0;

		if (!tr->ops->wait)
			continue;
		n = tr->ops->wait(tr, sourced(io) == 1, &wait_ms, &now, &res);
		if (n < 0)
			return n;
		if (n == RDSU_TWAIT_DONE) {
			round_end(io, now);
			return res;
		}
		if (n == RDSU_TWAIT_POLL) {
			n = epoll_round(io, 0);
			return n < 0 ? n : n + 1;
		}
	}
	return epoll_round(io, wait_ms);
}

int rdsu_io_flush(struct rdsu_io *io)
{
	rdsu_ns now;

	if (!io)
		return RDSU_ERR_INVAL;
	now = rdsu_clock();
	rdsu_loop_requests(io, now);
	if (acks(io, now, true))
		rdsu_loop_requests(io, now);
	rdsu_loop_arm(io, now);
	reap(io);
	return 0;
}

int rdsu_io_wait(struct rdsu_io *io, struct rdsu_sock *s, unsigned mask, rdsu_ns deadline)
{
	for (;;) {
		unsigned m = rdsu_sock_poll(s) & mask;
		rdsu_ns now;
		int ms, r;

		if (m)
			return (int)m;
		now = rdsu_clock();
		if (now >= deadline)
			return 0;
		if (deadline == RDSU_NS_NEVER) {
			ms = -1;
		} else {
			rdsu_ns left = deadline - now;

			ms = (int)((left + RDSU_MSEC - 1) / RDSU_MSEC);
		}
		r = rdsu_io_run(io, ms);
		if (r < 0)
			return r;
	}
}

void rdsu_io_cfg_default(struct rdsu_io_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	cfg->transports = RDSU_IO_TCP;
}

int rdsu_io_new(struct rdsu_io **out, const struct rdsu_ep_cfg *ep_cfg,
		const struct rdsu_io_cfg *cfg)
{
	struct rdsu_io_cfg c;
	struct rdsu_ep_cfg ec;
	struct rdsu_io *io;
	int r;

	if (!out || !ep_cfg)
		return RDSU_ERR_INVAL;
	*out = NULL;
	rdsu_io_cfg_default(&c);
	if (cfg) {
		if (cfg->size < sizeof(c))
			return RDSU_ERR_INVAL;
		c = *cfg;
	}
	if (!c.transports)
		c.transports = RDSU_IO_TCP;
	if (c.transports & ~(RDSU_IO_TCP | RDSU_IO_IB))
		return RDSU_ERR_INVAL;
	/* IB comes from library rdsu_ib: only its configuration can
	 * create it, so a TCP-only program never links verbs. */
	if ((c.transports & RDSU_IO_IB) && (!c.ib || !c.ib->make))
		return RDSU_ERR_INVAL;
	io = calloc(1, sizeof(*io));
	if (!io)
		return RDSU_ERR_NOMEM;
	io->epfd = io->timerfd = -1;
	if (c.transports & RDSU_IO_TCP) {
		r = rdsu_tcp_create(&io->tcp, c.tcp);
		if (r < 0)
			goto fail;
		io->tr[io->n_tr++] = rdsu_tcp_transport(io->tcp);
	}
	/* No further than the caller's structure goes: rdsu_ep_new also
	 * takes the shorter one from before rdsu_ep_cfg.faults. */
	memset(&ec, 0, sizeof(ec));
	memcpy(&ec, ep_cfg, ep_cfg->size < sizeof(ec) ? ep_cfg->size : sizeof(ec));
	/* rds_gen_num: random per start, never 0. */
	while (ec.gen_num == 0 && getrandom(&ec.gen_num, sizeof(ec.gen_num), 0) < 0)
		;
	if (ec.seed == 0 && getrandom(&ec.seed, sizeof(ec.seed), 0) < 0)
		ec.seed = rdsu_clock();
	r = rdsu_ep_new(&io->ep, &ec);
	if (r < 0)
		goto fail;
	memcpy(io->laddrs, ec.laddrs, sizeof(io->laddrs));
	io->n_laddrs = ec.n_laddrs;
	io->epfd = epoll_create1(EPOLL_CLOEXEC);
	io->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (io->epfd < 0 || io->timerfd < 0) {
		r = -errno;
		goto fail;
	}
	io->timer.fd = io->timerfd;
	r = rdsu_loop_watch(io, &io->timer, EPOLLIN, EPOLL_CTL_ADD);
	if (r < 0)
		goto fail;
	if (io->tcp)
		rdsu_tcp_bind_io(io->tcp, io, ec.seed);
	if (c.transports & RDSU_IO_IB) {
		struct rdsu_transport *ib;

		r = c.ib->make(io, c.ib, &ib);
		if (r < 0)
			goto fail;
		io->tr[io->n_tr++] = ib;
	}
	{
		struct rdsu_transport *lo;

		r = rdsu_lo_create(io, &lo);
		if (r < 0)
			goto fail;
		io->tr[io->n_tr++] = lo;
	}
	for (unsigned i = 0; i < io->n_tr; i++) {
		for (unsigned a = 0; a < ec.n_laddrs; a++) {
			r = io->tr[i]->ops->listen(io->tr[i], &ec.laddrs[a]);
			if (r < 0)
				goto fail;
		}
	}
	rdsu_mon_env(io);
	*out = io;
	return 0;
fail:
	rdsu_io_free(io);
	return r;
}

void rdsu_io_free(struct rdsu_io *io)
{
	if (!io)
		return;
	rdsu_mon_free(io);
	/* Transports first: their descriptors leave the epoll set as they
	 * close, and nothing of theirs calls the endpoint while freeing. */
	for (unsigned i = 0; i < io->n_tr; i++)
		io->tr[i]->ops->free(io->tr[i]);
	if (io->timerfd >= 0)
		close(io->timerfd);
	if (io->epfd >= 0)
		close(io->epfd);
	rdsu_ep_free(io->ep);
	free(io);
}

struct rdsu_ep *rdsu_io_ep(struct rdsu_io *io)
{
	return io ? io->ep : NULL;
}

int rdsu_io_fd(const struct rdsu_io *io)
{
	return io ? io->epfd : -1;
}

struct rdsu_tcp *rdsu_io_tcp(struct rdsu_io *io)
{
	return io ? io->tcp : NULL;
}
