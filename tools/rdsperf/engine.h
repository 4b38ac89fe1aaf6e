/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * engine.h - what rdsperf's client and server do with RDS sockets, apart
 * from options and printing: the test loops, their counters, payload
 * fill and check. The loops run over rio, so librds and AF_RDS are
 * measured by the same code.
 */
#ifndef RDSPERF_ENGINE_H
#define RDSPERF_ENGINE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "ctl.h"
#include "hist.h"
#include "rio.h"

/*
 * How a loop waits. rds-stress switches between blocking and spinning on
 * its own, which changes what is measured without saying so; here it is
 * chosen and printed.
 *   POLL  send or receive until EAGAIN, then wait for readiness (poll, or
 *         librds's event loop) - the default, what an application does;
 *   BUSY  never wait: after EAGAIN go round again (lower latency, a whole
 *         core per thread).
 */
enum perf_sched { SCHED_POLL, SCHED_BUSY };
const char *perf_sched_name(enum perf_sched s);

struct perf_count {
	uint64_t msgs, bytes;       /* sent (client) */
	uint64_t rmsgs, rbytes;     /* received: responses (client), requests (server) */
	uint64_t eagain, enobufs;
	uint64_t verify_errors;
};


/* One interval as reported: the sum over threads. */
struct perf_interval {
	double start, end;          /* seconds since the test started */
	bool omitted;               /* inside the warm-up */
	struct perf_count c;
	struct hist lat;            /* rr, pingpong: full round trips, ns */
};

typedef void (*perf_interval_fn)(void *ud, const struct perf_interval *iv);

struct perf_client {
	/* set by the caller */
	const struct perf_params *p;
	struct rio *r;
	struct rdsu_addr dst;
	uint16_t dports[PERF_MAX_SOCKS];
	struct rio_sock *socks[PERF_MAX_SOCKS];
	unsigned threads;
	enum perf_sched sched;
	double interval;            /* seconds between reports, 0 = none */
	perf_interval_fn on_interval;
	void *ud;
	volatile int *stop;         /* set by a signal: end early */
	int watch_fd;               /* >= 0: end early when it turns readable (a
				     * reverse test's sender: the client's "stop") */
	/* results */
	struct perf_count total;    /* after the warm-up */
	struct hist lat;            /* after the warm-up */
	double measured;            /* seconds counted (duration, or less if stopped) */
	double cpu;                 /* CPU seconds over the counted part */
	int error;                  /* 0, or the negative errno that ended the test */
	/* internal */
	pthread_mutex_t lk;
	unsigned folded;
	struct perf_interval cur;
};

/* perf_client_run() - run the test described by c->p. Return: 0; negative
 * errno when a socket failed (c->error says the same). */
int perf_client_run(struct perf_client *c);

/*
 * perf_recv_run() - the receiving end of a reverse stream, on the client:
 * count what arrives on c->socks (msgs and bytes of c->total and of each
 * interval) for the test's time, checking payloads with --verify. c->dst,
 * c->dports and c->threads are unused: one thread reads every socket.
 * Return: 0; negative errno (c->error says the same).
 */
int perf_recv_run(struct perf_client *c);

struct perf_server {
	const struct perf_params *p;
	struct rio *r;
	struct rio_sock *socks[PERF_MAX_SOCKS];
	int ctl_fd;                 /* readable: the client's "stop" has come */
	struct perf_result res;
};

/* perf_server_run() - serve one test until the control socket becomes
 * readable (the stop line or EOF), then drain what is still in flight.
 * Return: 0; negative errno. */
int perf_server_run(struct perf_server *s);


#endif /* RDSPERF_ENGINE_H */
