// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * opts.c - rdsperf's command line: the options and their checks.
 */
#define _GNU_SOURCE
#include "rdsperf.h"

#include <argp.h>
#include <errno.h>
#include <json-c/json.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "parse.h"

enum {
	O_RSIZE = 0x100, O_DEPTH, O_PATHS, O_THREADS, O_OMIT, O_VERIFY, O_SCHED,
	O_TEST, O_BUF, O_CTL_TIMEOUT, O_LOGFILE, O_PLOT
};

const struct argp_option perf_options[] = {
	{ NULL, 0, NULL, 0, "Mode:", 1 },
	{ "server", 's', NULL, 0, "serve tests (until interrupted; see --one-off)", 1 },
	{ "client", 'c', "HOST", 0, "run a test against the rdsperf server on HOST", 1 },
	{ "one-off", '1', NULL, 0, "server: exit after one client", 1 },
	{ "ctl-timeout", O_CTL_TIMEOUT, "SECONDS", 0,
	  "server: drop a client whose next control line does not come within SECONDS "
	  "(default 10)", 1 },
	{ "port", 'p', "PORT", 0, "control port (default 18515)", 1 },
	/* the old spelling of the stack's -I, --local */
	{ "bind", 'B', "ADDR", OPTION_HIDDEN, NULL, 1 },
	{ NULL, 0, NULL, 0, "Test (client):", 2 },
	{ "test", O_TEST, "TEST", 0,
	  "stream: one-way throughput; rr: requests and responses with --depth in flight per "
	  "socket; pingpong: one socket, one message in flight; rdma-write, rdma-read: RDMA "
	  "into and out of memory the server registered, --depth operations in flight per "
	  "socket (default 4); atomic: FADD and CSWP in turn on 8-byte counters there; RDMA "
	  "needs RDS over IB (default stream)", 2 },
	{ "size", 'l', "BYTES[,BYTES...]", 0,
	  "message (request) size; a list runs one test per size (default 65536 for stream, "
	  "64 otherwise; K and M suffixes)", 2 },
	{ "rsize", O_RSIZE, "BYTES", 0, "rr: response size (default: the request size)", 2 },
	{ "depth", O_DEPTH, "N", 0, "rr: requests in flight per socket (default 1)", 2 },
	{ "sockets", 'n', "N", 0,
	  "client sockets, each paired with a server socket: parallel streams (default 1)", 2 },
	{ "parallel", 'P', NULL, OPTION_ALIAS, NULL, 2 },
	{ "reverse", 'R', NULL, 0, "stream: the server sends and the client receives", 2 },
	{ "threads", 'T', "N", 0,
	  "client threads sharing the sockets (default 1; librds: one, its endpoint is "
	  "single-threaded)", 2 },
	{ "paths", O_PATHS, "N", OPTION_HIDDEN, NULL, 2 },
	{ "window", 'w', "BYTES", 0,
	  "SNDBUF and RCVBUF of every socket at both ends, fixed, over --sndbuf and --rcvbuf "
	  "(default: the stack's; librds starts at 106496 and grows with use up to 4M, the "
	  "kernel keeps 106496); a receiver holding more than RCVBUF is congested and its "
	  "sender gets ENOBUFS", 2 },
	{ "time", 't', "SECONDS", 0, "measure for SECONDS (default 10)", 2 },
	{ "omit", 'O', "SECONDS", 0, "warm up for SECONDS first, not counted (default 0)", 2 },
	{ "verify", O_VERIFY, NULL, 0, "fill and check every payload byte and sequence", 2 },
	{ "sched", O_SCHED, "poll|busy", 0,
	  "poll: send/receive until EAGAIN, then wait for readiness (default); busy: never "
	  "wait", 2 },
	{ NULL, 0, NULL, 0, "Reports:", 3 },
	{ "interval", 'i', "SECONDS", 0, "report every SECONDS (default 1; 0 = summary only)", 3 },
	/* iperf3's spelling of -j, --json (out_opt.h) */
	{ NULL, 'J', NULL, OPTION_HIDDEN, NULL, 3 },
	{ "logfile", O_LOGFILE, "FILE", 0, "append the output and the errors to FILE", 3 },
	{ "plot", O_PLOT, "FILE", 0,
	  "write an SVG of the throughput per interval and, for rr and pingpong, the latency "
	  "distribution", 3 },
	{ 0 }
};

/* A count option's value (parse_count: K and M suffixes) from |lo| to
 * |hi|; else usage error "bad WHAT 'ARG'", with the range in |unit|
 * unless it is NULL. */
static uint64_t count(struct argp_state *st, const char *arg, uint64_t lo, uint64_t hi,
		      const char *what, const char *unit)
{
	uint64_t v = 0;

	if (parse_count(arg, lo, hi, &v) == 0)
		return v;
	if (unit)
		argp_error(st, "bad %s '%s': %llu to %llu%s", what, arg, (unsigned long long)lo,
			   (unsigned long long)hi, unit);
	else
		argp_error(st, "bad %s '%s'", what, arg);
	return v;
}

/* The options that shape the test: what the client proposes. */
static error_t test_opt(struct opts *o, int key, char *arg, struct argp_state *st)
{
	uint64_t v;

	switch (key) {
	case O_TEST:
		if (perf_test_parse(arg, &o->p.test) < 0)
			argp_error(st, "bad test '%s': stream, rr, pingpong, rdma-write, rdma-read or "
				       "atomic", arg);
		return 0;
	case 'l': {
		uint64_t sizes[MAX_SIZES];
		int n = parse_list(arg, 0, PERF_MAX_SIZE, sizes, MAX_SIZES);

		if (n < 0)
			argp_error(st, "bad size list '%s': up to %d sizes of 0 to %u bytes", arg,
				   MAX_SIZES, PERF_MAX_SIZE);
		o->n_sizes = (unsigned)n;
		for (int i = 0; i < n; i++)
			o->sizes[i] = (uint32_t)sizes[i];
		return 0;
	}
	case O_RSIZE:
		o->p.rsize = (uint32_t)count(st, arg, 0, PERF_MAX_SIZE, "response size", "");
		o->rsize_set = true;
		return 0;
	case O_DEPTH:
		o->p.depth = (uint32_t)count(st, arg, 1, PERF_MAX_DEPTH, "depth", "");
		o->depth_set = true;
		return 0;
	case 'n':
	case 'P':
		o->p.sockets = (uint32_t)count(st, arg, 1, PERF_MAX_SOCKS, "socket count", "");
		return 0;
	case 'T':
		o->threads = (unsigned)count(st, arg, 1, PERF_MAX_SOCKS, "thread count", "");
		return 0;
	case 'w':
		if (parse_count(arg, 1, PERF_MAX_BUF, &v) < 0)
			argp_error(st, "bad window '%s': 1 byte to 1G", arg);
		o->p.buf = (uint32_t)v;
		return 0;
	case 't':
		if (parse_seconds(arg, 0.01, 86400, &o->p.duration) < 0)
			argp_error(st, "bad time '%s': 0.01 to 86400 seconds", arg);
		return 0;
	case 'O':
		if (parse_seconds(arg, 0, 3600, &o->p.omit) < 0)
			argp_error(st, "bad omit '%s': 0 to 3600 seconds", arg);
		return 0;
	case O_VERIFY:
		o->p.verify = true;
		return 0;
	case O_SCHED:
		if (!strcmp(arg, "poll"))
			o->sched = SCHED_POLL;
		else if (!strcmp(arg, "busy"))
			o->sched = SCHED_BUSY;
		else
			argp_error(st, "bad scheduling mode '%s': poll or busy", arg);
		return 0;
	case 'R':
		o->p.reverse = true;
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

/* The RDMA tests' rules: their memory is checked by digest, not their
 * payload; atomics are 8 bytes; one thread (librds's endpoint is one
 * anyway, and one thread keeps each slot's operations in order). */
static void check_rdma(struct opts *o, struct argp_state *st)
{
	if (o->rsize_set || o->p.reverse)
		argp_error(st, "%s has no responses and no reverse: leave out --rsize and -R",
			   perf_test_name(o->p.test));
	if (o->threads > 1)
		argp_error(st, "%s runs on one thread: use --sockets and --depth",
			   perf_test_name(o->p.test));
	if (o->p.test == PERF_ATOMIC && o->n_sizes)
		argp_error(st, "atomic operations are 8 bytes: leave out --size");
	for (unsigned i = 0; i < o->n_sizes; i++)
		if (o->sizes[i] == 0)
			argp_error(st, "an RDMA of 0 bytes moves nothing: sizes from 1 byte to 1M");
	if (!o->depth_set)
		o->p.depth = 4;
	if ((uint64_t)o->p.depth * o->p.sockets > PERF_RDMA_MAX_SLOTS)
		argp_error(st, "%s takes at most %u operations in flight: --sockets %u x --depth "
			       "%u is %u", perf_test_name(o->p.test), PERF_RDMA_MAX_SLOTS,
			   o->p.sockets, o->p.depth, o->p.sockets * o->p.depth);
	/* always checked, by digest of the server's memory */
	o->p.verify = false;
}

/* At the end: the options together make one server or one client. */
static void check_opts(struct opts *o, struct argp_state *st)
{
	/* the client proposes the stack options as part of the test */
	o->p.paths = o->cfg.ep.npaths;
	o->p.kver = o->cfg.ep.kver == WIRE_KVER_6 ? 6 : 7;
	o->p.path_by_pair = o->cfg.ep.path_rule == RDSU_PATH_BY_PAIR;
	if (o->server == !!o->host_s)
		argp_error(st, "say -s (serve) or -c HOST (run a test)");
	if (o->server) {
		if (o->p.verify || o->n_sizes || o->rsize_set || o->depth_set || o->json ||
		    o->p.buf || o->p.reverse || o->plot)
			argp_error(st, "the client chooses the test; the server takes no test options");
		return;
	}
	if (o->ctl_idle_set)
		argp_error(st, "--ctl-timeout is for the server");
	if (parse_addr(o->host_s, &o->host) < 0)
		argp_error(st, "bad host '%s': an IPv4 or IPv6 address", o->host_s);
	if (o->p.test == PERF_PINGPONG) {
		if (o->depth_set && o->p.depth != 1)
			argp_error(st, "pingpong has one message in flight; use --test rr for --depth");
		if (o->p.sockets != 1 || o->threads != 1)
			argp_error(st, "pingpong is one socket and one thread; use --test rr");
	}
	if (perf_test_rdma(o->p.test))
		check_rdma(o, st);
	if (o->p.test == PERF_STREAM && (o->rsize_set || o->depth_set))
		argp_error(st, "--rsize and --depth are for rr, pingpong and the RDMA tests");
	if (o->p.reverse && o->p.test != PERF_STREAM)
		argp_error(st, "-R is for stream tests: rr and pingpong go both ways already");
	if (o->p.reverse && o->threads > 1)
		argp_error(st, "-R reads every socket on one thread; leave out --threads");
	if (o->threads > o->p.sockets)
		argp_error(st, "%u threads need at least %u sockets", o->threads, o->threads);
	if (o->threads > 1 && !o->cfg.kernel)
		argp_error(st, "librds runs one endpoint per process, on one thread; use "
			       "--sockets and --npaths, or --kernel for threads");
	if (!o->n_sizes)
		o->sizes[o->n_sizes++] = o->p.test == PERF_ATOMIC ? PERF_ATOMIC_SIZE
					 : o->p.test == PERF_STREAM || perf_test_rdma(o->p.test) ? 65536
												  : 64;
}

error_t perf_parse_opt(int key, char *arg, struct argp_state *st)
{
	struct opts *o = st->input;
	error_t e = test_opt(o, key, arg, st);

	if (e != ARGP_ERR_UNKNOWN)
		return e;
	switch (key) {
	case 's':
		o->server = true;
		return 0;
	case 'c':
		o->host_s = arg;
		return 0;
	case '1':
		o->once = true;
		return 0;
	case O_CTL_TIMEOUT:
		o->ctl_idle = (unsigned)count(st, arg, 1, 3600, "control timeout", " seconds");
		o->ctl_idle_set = true;
		return 0;
	case 'p':
		o->ctl_port = (uint16_t)count(st, arg, 1, 65535, "port", NULL);
		return 0;
	case 'B':
		return rio_opt_take(&o->ro, RIO_KEY_LOCAL, arg, st);
	case O_PATHS:
		/* --npaths is the name every tool gives it; scripts may still
		 * say --paths. */
		fprintf(stderr, "%s: --paths is deprecated: use --npaths\n",
			program_invocation_short_name);
		return rio_opt_take(&o->ro, RIO_KEY_NPATHS, arg, st);
	/* argp's own keys: the start, an operand, the end */
	case ARGP_KEY_INIT:
		st->child_inputs[0] = &o->ro;
		st->child_inputs[1] = &o->oo;
		return 0;
	case ARGP_KEY_ARG:
		argp_error(st, "unexpected argument '%s'", arg);
		return 0;
	case ARGP_KEY_END:
		check_opts(o, st);
		return 0;
	case 'i':
		if (parse_seconds(arg, 0, 3600, &o->interval) < 0 || (o->interval > 0 && o->interval < 0.01))
			argp_error(st, "bad interval '%s': 0 (none) or 0.01 to 3600 seconds", arg);
		return 0;
	case 'J':
		o->json = true;
		return 0;
	case O_LOGFILE:
		o->logfile = arg;
		return 0;
	case O_PLOT:
		o->plot = arg;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}
