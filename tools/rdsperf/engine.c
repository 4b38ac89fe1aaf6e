// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * engine.c - rdsperf's test loops (engine.h).
 *
 * Each client thread owns a share of the sockets and its own counters;
 * threads meet only once per report interval, to add their interval into
 * the one that is printed, so nothing is shared per message.
 */
#define _GNU_SOURCE
#include "engine.h"
#include "sendwait.h"
#include "payload.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

/* After ENOBUFS (the receiver's port is congested) a socket is left alone
 * this long: poll() says POLLOUT throughout, so waiting on it would spin. */
#define CONG_BACKOFF (100 * 1000ull)
/* Messages per socket per round, so one socket cannot starve the others. */
#define BURST 64
/* Messages a stream sender lets wait in librds before the wire takes them.
 * SNDBUF counts payload bytes, so zero-length messages would queue without
 * end: a 5 s stream of them once left two million for a slow receiver to
 * drain after "stop" (the lab's emulated kernel), and the count sent then
 * said nothing about the rate the receiver saw. */
#define STREAM_BACKLOG 8192
#define BACKLOG_SIZE 4096
/* How long a sender over its backlog lets the stack write (sleeping in
 * its wait until the wire takes more) before trying again. */
#define BACKLOG_PAUSE (1000 * 1000ull)
/* The server looks at its control socket this often while idle, and at
 * most this often while busy (a poll() per round cost a quarter of a
 * busy server's time). */
#define SERVER_TICK (10 * RDSU_MSEC)
#define CTL_CHECK (2 * RDSU_MSEC)
/* After "stop", the server keeps reading until this long passes without a
 * message, or DRAIN_MAX in all. */
#define DRAIN_QUIET (100 * RDSU_MSEC)
#define DRAIN_MAX (3 * RDSU_SEC)

const struct wire_tok perf_sched_toks[] = {
	{ SCHED_POLL, "poll" },
	{ SCHED_BUSY, "busy" },
	{ 0, NULL },
};

const char *perf_sched_name(enum perf_sched s)
{
	return wire_tok_str(perf_sched_toks, (uint32_t)s, "poll");
}

static void count_add(struct perf_count *into, const struct perf_count *c)
{
#define PERF_COUNT_ADD(f) into->f += c->f;
	PERF_COUNT_FIELDS(PERF_COUNT_ADD)
#undef PERF_COUNT_ADD
}

double perf_cpu_seconds(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return 0;
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* ------------------------------------------------------------------------
 * Client
 */

struct csock {
	struct rio_sock *s;
	unsigned idx;
	uint16_t dport;
	uint64_t txseq, rxseq;
	rdsu_ns *ts;            /* rr: send times of the requests in flight */
	unsigned head, n;
	bool blocked;           /* EAGAIN: wait for POLLOUT */
	rdsu_ns cong_until;     /* ENOBUFS: leave alone until then */
};

struct worker {
	struct perf_client *c;
	struct csock cs[PERF_MAX_SOCKS];
	unsigned n;
	uint8_t *tx, *rx;
	uint32_t rxcap;
	struct perf_count cur, tot;
	struct hist *hcur, *htot;
	rdsu_ns t0, omit_end, t_end, iv, next_iv;
	double cpu0;
	pthread_t th;
	int error;
};

static int send_one(struct worker *w, struct csock *cs, uint32_t len, rdsu_ns now)
{
	const struct perf_params *p = w->c->p;
	int e;

	if (p->verify)
		payload_fill(w->tx, len, (uint16_t)cs->idx, cs->txseq);
	/* The burst leaves at step()'s flush, in as few writes as it takes. */
	e = rio_send_more(cs->s, &w->c->dst, cs->dport, w->tx, len);
	if (e == 0) {
		cs->txseq++;
		w->cur.msgs++;
		w->cur.bytes += len;
		if (now >= w->omit_end) {
			w->tot.msgs++;
			w->tot.bytes += len;
		}
		return 1;
	}
	if (e == -EAGAIN) {
		w->cur.eagain++;
		w->tot.eagain += now >= w->omit_end;
		cs->blocked = true;
		return 0;
	}
	if (e == -ENOBUFS) {
		w->cur.enobufs++;
		w->tot.enobufs += now >= w->omit_end;
		cs->cong_until = now + CONG_BACKOFF;
		return 0;
	}
	return e;
}

static int recv_responses(struct worker *w, struct csock *cs, bool *progress)
{
	const struct perf_params *p = w->c->p;
	struct rdsu_addr from;
	uint16_t sport;
	bool trunc;
	ssize_t n;

	while ((n = rio_recv(cs->s, w->rx, w->rxcap, &from, &sport, &trunc)) >= 0) {
		rdsu_ns now = rdsu_clock();
		bool counting = now >= w->omit_end;

		*progress = true;
		if (cs->n == 0) {
			/* a response to nothing we asked */
			w->cur.verify_errors++;
			w->tot.verify_errors += counting;
			continue;
		}
		hist_add(w->hcur, now - cs->ts[cs->head]);
		if (counting)
			hist_add(w->htot, now - cs->ts[cs->head]);
		cs->head = (cs->head + 1) % p->depth;
		cs->n--;
		w->cur.rmsgs++;
		w->cur.rbytes += (uint64_t)n;
		if (counting) {
			w->tot.rmsgs++;
			w->tot.rbytes += (uint64_t)n;
		}
		if (p->verify && (trunc || (uint32_t)n != p->rsize ||
				  !payload_check(w->rx, (uint32_t)n, (uint16_t)cs->idx, cs->rxseq))) {
			w->cur.verify_errors++;
			w->tot.verify_errors += counting;
		}
		cs->rxseq++;
	}
	return n == -EAGAIN ? 0 : (int)n;
}

/* One round over this worker's sockets: everything that can be done
 * without waiting. Return: 1 if anything moved, 0 if not, negative errno. */
static int step(struct worker *w)
{
	const struct perf_params *p = w->c->p;
	bool progress = false;

	/* Larger messages are bounded by SNDBUF; the count costs a walk of
	 * every path, so only small ones pay it. */
	if (p->test == PERF_STREAM && p->size < BACKLOG_SIZE &&
	    rio_backlog(w->c->r) > STREAM_BACKLOG) {
		int e = rio_idle(w->c->r, BACKLOG_PAUSE);

		return e < 0 ? e : 1;
	}
	for (unsigned i = 0; i < w->n; i++) {
		struct csock *cs = &w->cs[i];
		rdsu_ns now = rdsu_clock();
		int e;

		if (p->test != PERF_STREAM) {
			e = recv_responses(w, cs, &progress);
			if (e < 0)
				return e;
		}
		for (unsigned k = 0; k < BURST && !cs->blocked && now >= cs->cong_until; k++) {
			if (p->test == PERF_STREAM) {
				e = send_one(w, cs, p->size, now);
			} else {
				if (cs->n >= p->depth)
					break;
				now = rdsu_clock();
				e = send_one(w, cs, p->size, now);
				if (e > 0)
					cs->ts[(cs->head + cs->n++) % p->depth] = now;
			}
			if (e < 0)
				return e;
			if (e == 0)
				break;
			progress = true;
		}
		e = rio_flush(w->c->r);
		if (e < 0)
			return e;
	}
	return progress;
}

static rdsu_ns min_ns(rdsu_ns a, rdsu_ns b)
{
	return a < b ? a : b;
}

static int wait_ready(struct worker *w, rdsu_ns deadline)
{
	struct perf_client *c = w->c;
	struct rio_sock *socks[PERF_MAX_SOCKS];
	unsigned want[PERF_MAX_SOCKS], got[PERF_MAX_SOCKS];
	rdsu_ns now = rdsu_clock();
	int k;

	for (unsigned i = 0; i < w->n; i++) {
		struct csock *cs = &w->cs[i];
		struct perf_sendwait sw = {
			.blocked = cs->blocked,
			.cong_until = cs->cong_until,
			.window_open = c->p->test == PERF_STREAM || cs->n < c->p->depth,
			.responses = c->p->test != PERF_STREAM,
		};
		unsigned pw = perf_sendwait_plan(&sw, now, &deadline);

		socks[i] = cs->s;
		want[i] = ((pw & PERF_WAIT_IN) ? RIO_POLLIN : 0) |
			  ((pw & PERF_WAIT_OUT) ? RIO_POLLOUT : 0);
	}
	if (c->sched == SCHED_BUSY) {
		/* librds still has to run its transport; the kernel does that
		 * on its own */
		for (unsigned i = 0; i < w->n; i++)
			w->cs[i].blocked = false;
		return rio_io(c->r) ? rio_idle(c->r, 0) : 0;
	}
	k = rio_wait(c->r, socks, want, got, w->n, deadline);
	if (k < 0)
		return k == -EINTR ? 0 : k;
	for (unsigned i = 0; i < w->n; i++)
		if (got[i] & RIO_POLLOUT)
			w->cs[i].blocked = false;
	return 0;
}

void perf_report_interval(struct perf_client *c, rdsu_ns at, rdsu_ns t0, rdsu_ns omit_end)
{
	c->cur.start = c->cur.end;
	c->cur.end = (double)(at - t0) / 1e9;
	c->cur.omitted = at <= omit_end;
	if (c->on_interval && c->cur.end > c->cur.start)
		c->on_interval(c->ud, &c->cur);
	memset(&c->cur.c, 0, sizeof(c->cur.c));
	hist_reset(&c->cur.lat);
}

/* Add this worker's interval into the shared one; the last thread to do
 * so reports it. */
static void fold(struct worker *w, rdsu_ns at)
{
	struct perf_client *c = w->c;

	pthread_mutex_lock(&c->lk);
	count_add(&c->cur.c, &w->cur);
	hist_merge(&c->cur.lat, w->hcur);
	if (++c->folded == c->threads) {
		perf_report_interval(c, at, w->t0, w->omit_end);
		c->folded = 0;
	}
	pthread_mutex_unlock(&c->lk);
	memset(&w->cur, 0, sizeof(w->cur));
	hist_reset(w->hcur);
}

static bool fd_readable(int fd)
{
	struct pollfd pf = { .fd = fd, .events = POLLIN };

	return poll(&pf, 1, 0) > 0;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct perf_client *c = w->c;
	bool counting = false;
	rdsu_ns watch_at = 0;

	for (;;) {
		rdsu_ns now = rdsu_clock();
		int e;

		if (c->watch_fd >= 0 && now >= watch_at) {
			watch_at = now + CTL_CHECK;
			if (fd_readable(c->watch_fd))
				w->t_end = now;
		}

		if (!counting && now >= w->omit_end) {
			counting = true;
			w->cpu0 = perf_cpu_seconds();
		}
		if (now >= w->next_iv || now >= w->t_end || *c->stop) {
			/* the interval ends on its boundary, not when we looked */
			rdsu_ns at = min_ns(min_ns(now, w->next_iv), w->t_end);

			fold(w, at);
			while (w->iv && w->next_iv <= now)
				w->next_iv += w->iv;
		}
		if (now >= w->t_end || *c->stop)
			break;
		e = step(w);
		if (e < 0) {
			w->error = e;
			break;
		}
		if (e == 0 && (e = wait_ready(w, min_ns(w->next_iv, w->t_end))) < 0) {
			w->error = e;
			break;
		}
	}
	return NULL;
}

int perf_client_run(struct perf_client *c)
{
	const struct perf_params *p = c->p;
	struct worker *w = calloc(c->threads, sizeof(*w));
	uint32_t cap = p->size > p->rsize ? p->size : p->rsize;
	rdsu_ns t0 = rdsu_clock(), t_stop;
	double cpu0 = 0, cpu1;
	int e = 0;

	if (!w)
		return -ENOMEM;
	pthread_mutex_init(&c->lk, NULL);
	memset(&c->cur, 0, sizeof(c->cur));
	memset(&c->total, 0, sizeof(c->total));
	hist_reset(&c->lat);
	c->folded = 0;
	c->error = 0;
	for (unsigned t = 0; t < c->threads; t++) {
		struct worker *x = &w[t];

		x->c = c;
		x->t0 = t0;
		x->omit_end = t0 + (rdsu_ns)(p->omit * 1e9);
		x->t_end = x->omit_end + (rdsu_ns)(p->duration * 1e9);
		x->iv = (rdsu_ns)(c->interval * 1e9);
		x->next_iv = x->iv ? t0 + x->iv : RDSU_NS_NEVER;
		x->tx = calloc(1, cap ? cap : 1);
		x->rx = malloc(cap + 1);
		x->rxcap = cap + 1;
		x->hcur = malloc(sizeof(struct hist));
		x->htot = malloc(sizeof(struct hist));
		if (!x->tx || !x->rx || !x->hcur || !x->htot) {
			e = -ENOMEM;
			goto out;
		}
		hist_reset(x->hcur);
		hist_reset(x->htot);
		for (unsigned i = t; i < p->sockets; i += c->threads) {
			struct csock *cs = &x->cs[x->n++];

			cs->s = c->socks[i];
			cs->idx = i;
			cs->dport = c->dports[i];
			cs->ts = calloc(p->depth, sizeof(*cs->ts));
			if (!cs->ts) {
				e = -ENOMEM;
				goto out;
			}
		}
	}
	if (c->threads == 1) {
		worker_main(&w[0]);
	} else {
		unsigned started = 0;

		for (; started < c->threads; started++)
			if (pthread_create(&w[started].th, NULL, worker_main, &w[started])) {
				e = -EAGAIN;
				*c->stop = 1;
				break;
			}
		for (unsigned t = 0; t < started; t++)
			pthread_join(w[t].th, NULL);
	}
	t_stop = rdsu_clock();
	cpu1 = perf_cpu_seconds();
	for (unsigned t = 0; t < c->threads; t++) {
		count_add(&c->total, &w[t].tot);
		hist_merge(&c->lat, w[t].htot);
		if (w[t].error && !e)
			e = w[t].error;
		if (!cpu0 || (w[t].cpu0 && w[t].cpu0 < cpu0))
			cpu0 = w[t].cpu0;
	}
	c->measured = t_stop > w[0].omit_end ? (double)(t_stop - w[0].omit_end) / 1e9 : 0;
	c->cpu = cpu0 ? cpu1 - cpu0 : 0;
out:
	for (unsigned t = 0; t < c->threads; t++) {
		for (unsigned i = 0; i < w[t].n; i++)
			free(w[t].cs[i].ts);
		free(w[t].tx);
		free(w[t].rx);
		free(w[t].hcur);
		free(w[t].htot);
	}
	free(w);
	pthread_mutex_destroy(&c->lk);
	c->error = e;
	return e;
}

/* ------------------------------------------------------------------------
 * The client's end of a reverse stream
 */

/* Read what is there on every socket. Return: 1 if anything came, 0 if
 * not, negative errno. */
static int recv_round(struct perf_client *c, uint64_t *rxseq, uint8_t *rx, uint32_t cap,
		      struct perf_count *cur, struct perf_count *tot, rdsu_ns omit_end)
{
	const struct perf_params *p = c->p;
	bool progress = false;

	for (unsigned i = 0; i < p->sockets; i++) {
		struct rdsu_addr from;
		uint16_t sport;
		bool trunc;
		ssize_t n;

		/* a burst at most, so one busy socket cannot starve the others */
		for (unsigned k = 0; k < BURST; k++) {
			bool bad;

			n = rio_recv(c->socks[i], rx, cap, &from, &sport, &trunc);
			if (n < 0)
				break;
			progress = true;
			bad = p->verify && (trunc || (uint32_t)n != p->size ||
					    !payload_check(rx, (uint32_t)n, (uint16_t)i, rxseq[i]));
			rxseq[i]++;
			cur->msgs++;
			cur->bytes += (uint64_t)n;
			cur->verify_errors += bad;
			if (rdsu_clock() >= omit_end) {
				tot->msgs++;
				tot->bytes += (uint64_t)n;
				tot->verify_errors += bad;
			}
		}
		if (n < 0 && n != -EAGAIN)
			return (int)n;
	}
	return progress;
}

int perf_recv_run(struct perf_client *c)
{
	const struct perf_params *p = c->p;
	uint32_t cap = p->size + 1;
	uint8_t *rx = malloc(cap);
	uint64_t rxseq[PERF_MAX_SOCKS] = { 0 };
	rdsu_ns t0 = rdsu_clock(), omit_end = t0 + (rdsu_ns)(p->omit * 1e9);
	rdsu_ns t_end = omit_end + (rdsu_ns)(p->duration * 1e9), t_stop;
	rdsu_ns iv = (rdsu_ns)(c->interval * 1e9), next_iv = iv ? t0 + iv : RDSU_NS_NEVER;
	double cpu0 = 0;
	int e = 0;

	memset(&c->cur, 0, sizeof(c->cur));
	memset(&c->total, 0, sizeof(c->total));
	hist_reset(&c->lat);
	if (!rx) {
		c->error = -ENOMEM;
		return -ENOMEM;
	}
	for (;;) {
		rdsu_ns now = rdsu_clock();

		if (!cpu0 && now >= omit_end)
			cpu0 = perf_cpu_seconds();
		if (now >= next_iv || now >= t_end || *c->stop) {
			rdsu_ns at = min_ns(min_ns(now, next_iv), t_end);

			perf_report_interval(c, at, t0, omit_end);
			while (iv && next_iv <= now)
				next_iv += iv;
		}
		if (now >= t_end || *c->stop)
			break;
		e = recv_round(c, rxseq, rx, cap, &c->cur.c, &c->total, omit_end);
		if (e < 0)
			break;
		if (e == 0) {
			struct rio_sock *socks[PERF_MAX_SOCKS];
			unsigned want[PERF_MAX_SOCKS], got[PERF_MAX_SOCKS];

			for (unsigned i = 0; i < p->sockets; i++) {
				socks[i] = c->socks[i];
				want[i] = RIO_POLLIN;
			}
			e = rio_wait(c->r, socks, want, got, p->sockets, min_ns(next_iv, t_end));
			if (e < 0 && e != -EINTR)
				break;
		}
		e = 0;
	}
	t_stop = rdsu_clock();
	c->measured = t_stop > omit_end ? (double)(t_stop - omit_end) / 1e9 : 0;
	c->cpu = cpu0 ? perf_cpu_seconds() - cpu0 : 0;
	free(rx);
	c->error = e;
	return e;
}

/* ------------------------------------------------------------------------
 * Server
 */

struct ssock {
	uint64_t rxseq;
	uint32_t pend;          /* responses owed: send failed, retried first */
	uint64_t pend_seq;
	struct rdsu_addr to;
	uint16_t tport;
};

static int respond(struct perf_server *s, unsigned i, struct ssock *ss, uint8_t *tx, bool counting)
{
	const struct perf_params *p = s->p;

	while (ss->pend) {
		int e;

		if (p->verify)
			payload_fill(tx, p->rsize, (uint16_t)i, ss->pend_seq);
		e = rio_send_more(s->socks[i], &ss->to, ss->tport, tx, p->rsize);
		if (e == -EAGAIN || e == -ENOBUFS) {
			if (counting) {
				s->res.eagain += e == -EAGAIN;
				s->res.enobufs += e == -ENOBUFS;
			}
			return 0;
		}
		if (e < 0)
			return e;
		ss->pend--;
		ss->pend_seq++;
		s->res.sent += counting;
	}
	return 1;
}

int perf_server_run(struct perf_server *s)
{
	const struct perf_params *p = s->p;
	struct ssock ss[PERF_MAX_SOCKS];
	uint32_t cap = (p->size > p->rsize ? p->size : p->rsize) + 1;
	uint8_t *rx = malloc(cap), *tx = calloc(1, cap);
	rdsu_ns t0 = rdsu_clock(), omit_end = t0 + (rdsu_ns)(p->omit * 1e9);
	rdsu_ns t_count = t0, last_rx = 0, stop_at = 0, ctl_at = 0;
	double cpu0 = perf_cpu_seconds();
	bool counting = p->omit == 0;
	int e = 0;

	memset(ss, 0, sizeof(ss));
	memset(&s->res, 0, sizeof(s->res));
	if (!rx || !tx) {
		e = -ENOMEM;
		goto out;
	}
	for (;;) {
		rdsu_ns now = rdsu_clock();
		bool progress = false;

		if (!counting && now >= omit_end) {
			memset(&s->res, 0, sizeof(s->res));
			cpu0 = perf_cpu_seconds();
			t_count = now;
			counting = true;
		}
		for (unsigned i = 0; i < p->sockets; i++) {
			struct ssock *x = &ss[i];
			struct rdsu_addr from;
			uint16_t sport;
			bool trunc;
			ssize_t n;

			if (x->pend) {
				e = respond(s, i, x, tx, counting);
				if (e < 0)
					goto out;
				if (x->pend) {
					/* owed responses first: back-pressure */
					e = rio_flush(s->r);
					if (e < 0)
						goto out;
					continue;
				}
			}
			while ((n = rio_recv(s->socks[i], rx, cap, &from, &sport, &trunc)) >= 0) {
				progress = true;
				last_rx = rdsu_clock();
				if (counting) {
					s->res.msgs++;
					s->res.bytes += (uint64_t)n;
				}
				if (p->verify && (trunc || (uint32_t)n != p->size ||
						  !payload_check(rx, (uint32_t)n, (uint16_t)i, x->rxseq)))
					s->res.verify_errors += counting;
				if (p->test == PERF_RR || p->test == PERF_PINGPONG) {
					if (!x->pend)
						x->pend_seq = x->rxseq;
					x->pend++;
					x->to = from;
					x->tport = sport;
					e = respond(s, i, x, tx, counting);
					if (e < 0)
						goto out;
				}
				x->rxseq++;
				if (x->pend)
					break;
			}
			if (n < 0 && n != -EAGAIN) {
				e = (int)n;
				goto out;
			}
			/* the responses of this round leave together */
			e = rio_flush(s->r);
			if (e < 0)
				goto out;
		}
		if (!stop_at && rdsu_clock() >= ctl_at) {
			ctl_at = rdsu_clock() + CTL_CHECK;
			if (fd_readable(s->ctl_fd))
				stop_at = rdsu_clock();
		}
		if (stop_at) {
			rdsu_ns t = rdsu_clock();

			rdsu_ns quiet_since = last_rx > stop_at ? last_rx : stop_at;

			if (t - stop_at > DRAIN_MAX || (!progress && t - quiet_since > DRAIN_QUIET))
				break;
		}
		if (!progress) {
			struct rio_sock *socks[PERF_MAX_SOCKS];
			unsigned want[PERF_MAX_SOCKS], got[PERF_MAX_SOCKS];
			bool owed = false;

			for (unsigned i = 0; i < p->sockets; i++) {
				socks[i] = s->socks[i];
				want[i] = RIO_POLLIN | (ss[i].pend ? RIO_POLLOUT : 0);
				owed |= ss[i].pend != 0;
			}
			/* an owed response may be waiting on ENOBUFS, which poll
			 * does not report: look again soon */
			e = rio_wait(s->r, socks, want, got, p->sockets,
				     rdsu_clock() + (owed ? 100 * 1000ull : SERVER_TICK));
			if (e < 0 && e != -EINTR)
				goto out;
			e = 0;
		}
	}
	s->res.wall = (double)((last_rx > t_count ? last_rx : rdsu_clock()) - t_count) / 1e9;
	s->res.cpu = perf_cpu_seconds() - cpu0;
out:
	free(rx);
	free(tx);
	return e;
}
