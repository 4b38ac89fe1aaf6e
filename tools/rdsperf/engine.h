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
extern const struct wire_tok perf_sched_toks[];  /* the modes' names, as --sched takes them */
const char *perf_sched_name(enum perf_sched s);

/*
 * The counters, listed once: the struct below and the sum over threads
 * (engine.c count_add) are made from this list, so a new counter is summed
 * as soon as it is declared. msgs, bytes: sent (client); rmsgs, rbytes:
 * received: responses (client), requests (server).
 */
#define PERF_COUNT_FIELDS(X) X(msgs) X(bytes) X(rmsgs) X(rbytes) X(eagain) X(enobufs) X(verify_errors)

struct perf_count {
#define PERF_COUNT_DECL(f) uint64_t f;
	PERF_COUNT_FIELDS(PERF_COUNT_DECL)
#undef PERF_COUNT_DECL
};


/* One interval as reported: the sum over threads. */
struct perf_interval {
	double start, end;          /* seconds since the test started */
	bool omitted;               /* inside the warm-up */
	struct perf_count c;
	struct hist lat;            /* rr, pingpong: full round trips, ns */
};

typedef void (*perf_interval_fn)(void *ud, const struct perf_interval *iv);

/* An RDMA test's outcome at the client (rdma.c), besides the counts:
 * msgs/bytes submitted, rmsgs/rbytes completed with SUCCESS, lat the time
 * from submit to notification. */
struct perf_rdma_out {
	uint64_t ops, bytes;        /* completed with SUCCESS, all of the test */
	uint64_t failed;            /* notified with another status */
	int first_status;           /* ... the first of those */
	uint64_t lost;              /* never notified (10 s after the end) */
	uint64_t bad_values;        /* atomics' old values, reads' bytes not as expected */
	uint64_t expect_hash;       /* the server's region as it must be at the end */
	unsigned regions;           /* cookies received */
	void *mem;                  /* local memory; freed by perf_rdma_free() after
				     * the stack is closed */
	uint64_t *vals;
};

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
	struct perf_rdma_out rdma;  /* RDMA tests */
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


double perf_cpu_seconds(void);
/* perf_report_interval() - the interval c->cur, ending at |at|, to
 * c->on_interval; then a new one begins. */
void perf_report_interval(struct perf_client *c, rdsu_ns at, rdsu_ns t0, rdsu_ns omit_end);

/* ------------------------------------------------------------------------
 * RDMA tests (rdma.c). The server registers sockets x depth slots of the
 * test's size (regions of at most 1 MiB, consecutive slots each), fills
 * them for rdma-read and zeroes them otherwise, and sends each region's
 * cookie to the client's first socket with a message of its own (the
 * kernel's RDS_CMSG_RDMA_MAP; librds's RDSU_OP_MAP). The client keeps one
 * operation in flight per slot, each riding on an 8-byte message and
 * notified; at the end the server's digest of its memory is compared
 * with what the client's operations must have left there.
 */
struct perf_rdma_srv {
	uint8_t *mem;
	size_t len;
	uint32_t slot;
	struct rio_sock *s;         /* the socket that registered the regions */
	uint64_t cookies[PERF_RDMA_MAX_SLOTS];
	unsigned regions;
};

/* perf_rdma_serve() - register and send the cookies to |client|'s first
 * socket. Return: 0; negative errno, |what| naming the step. */
int perf_rdma_serve(struct perf_rdma_srv *m, struct rio *r, struct rio_sock *s,
		    const struct perf_params *p, const struct rdsu_addr *client, const char **what);
/* perf_rdma_hash() - the digest of the server's memory now: each slot's
 * payload_digest() chained, as the client computes what it expects. */
uint64_t perf_rdma_hash(const struct perf_rdma_srv *m);
/* perf_rdma_unmap() - RDS_FREE_MR with RDS_RDMA_INVALIDATE of every
 * region, before the socket closes. */
void perf_rdma_unmap(struct perf_rdma_srv *m);
/* perf_rdma_srv_free() - after the sockets are closed. */
void perf_rdma_srv_free(struct perf_rdma_srv *m);

/* perf_rdma_run() - the client's test: wait for the cookies, run the
 * operations, wait for every notification; c->rdma says what happened.
 * Return: 0; negative errno (c->error says the same). */
int perf_rdma_run(struct perf_client *c);
/* perf_rdma_free() - c->rdma's memory, after the stack is closed. */
void perf_rdma_free(struct perf_client *c);

#endif /* RDSPERF_ENGINE_H */
