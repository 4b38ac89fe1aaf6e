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

#include "optdecl.h"
#include "parse.h"

enum {
	O_RSIZE = 0x100, O_DEPTH, O_PATHS, O_THREADS, O_OMIT, O_VERIFY, O_SCHED,
	O_TEST, O_BUF, O_CTL_TIMEOUT, O_LOGFILE, O_PLOT
};

#define O(f) OPTD_FIELD(struct opts, f)

/* Every rdsperf option, once: --help and the parser both come from it. */
static const struct optdecl options[] = {
	{ 0, NULL, NULL, "Mode:", 0, 1, .kind = OPTD_HEADER },
	{ 's', "server", NULL, "serve tests (until interrupted; see --one-off)", 0, 1, OPTD_FLAG,
	  O(server) },
	{ 'c', "client", "HOST", "run a test against the rdsperf server on HOST", 0, 1, OPTD_STR,
	  O(host_s) },
	{ '1', "one-off", NULL, "server: exit after one client", 0, 1, OPTD_FLAG, O(once) },
	{ O_CTL_TIMEOUT, "ctl-timeout", "SECONDS",
	  "server: drop a client whose next control line does not come within SECONDS "
	  "(default 10)", 0, 1, OPTD_COUNT, O(ctl_idle), .min = 1, .max = 3600,
	  .what = "control timeout", .unit = " seconds", OPTD_SEEN(struct opts, ctl_idle_set) },
	{ 'p', "port", "PORT", "control port (default 18515)", 0, 1, OPTD_COUNT, O(ctl_port),
	  .min = 1, .max = 65535, .what = "port" },
	/* the old spelling of the stack's -I, --local */
	{ 'B', "bind", "ADDR", NULL, OPTION_HIDDEN, 1, .kind = OPTD_CUSTOM },
	{ 0, NULL, NULL, "Test (client):", 0, 2, .kind = OPTD_HEADER },
	{ O_TEST, "test", "TEST",
	  "stream: one-way throughput; rr: requests and responses with --depth in flight per "
	  "socket; pingpong: one socket, one message in flight; rdma-write, rdma-read: RDMA "
	  "into and out of memory the server registered, --depth operations in flight per "
	  "socket (default 4); atomic: FADD and CSWP in turn on 8-byte counters there; RDMA "
	  "needs RDS over IB (default stream)", 0, 2, OPTD_ENUM, O(p.test),
	  .names = perf_test_toks, .what = "test" },
	{ 'l', "size", "BYTES[,BYTES...]",
	  "message (request) size; a list runs one test per size (default 65536 for stream, "
	  "64 otherwise; K and M suffixes)", 0, 2, .kind = OPTD_CUSTOM },
	{ O_RSIZE, "rsize", "BYTES", "rr: response size (default: the request size)", 0, 2,
	  OPTD_COUNT, O(p.rsize), .min = 0, .max = PERF_MAX_SIZE, .what = "response size",
	  OPTD_SEEN(struct opts, rsize_set) },
	{ O_DEPTH, "depth", "N", "rr: requests in flight per socket (default 1)", 0, 2, OPTD_COUNT,
	  O(p.depth), .min = 1, .max = PERF_MAX_DEPTH, .what = "depth",
	  OPTD_SEEN(struct opts, depth_set) },
	{ 'n', "sockets", "N",
	  "client sockets, each paired with a server socket: parallel streams (default 1)", 0, 2,
	  OPTD_COUNT, O(p.sockets), .min = 1, .max = PERF_MAX_SOCKS, .what = "socket count" },
	{ 'P', "parallel", NULL, NULL, OPTION_ALIAS, 2, OPTD_COUNT, O(p.sockets), .min = 1,
	  .max = PERF_MAX_SOCKS, .what = "socket count" },
	{ 'R', "reverse", NULL, "stream: the server sends and the client receives", 0, 2, OPTD_FLAG,
	  O(p.reverse) },
	{ 'T', "threads", "N",
	  "client threads sharing the sockets (default 1; librds: one, its endpoint is "
	  "single-threaded)", 0, 2, OPTD_COUNT, O(threads), .min = 1, .max = PERF_MAX_SOCKS,
	  .what = "thread count" },
	{ O_PATHS, "paths", "N", NULL, OPTION_HIDDEN, 2, .kind = OPTD_CUSTOM },
	{ 'w', "window", "BYTES",
	  "SNDBUF and RCVBUF of every socket at both ends, fixed, over --sndbuf and --rcvbuf "
	  "(default: the stack's; librds starts at 106496 and grows with use up to 4M, the "
	  "kernel keeps 106496); a receiver holding more than RCVBUF is congested and its "
	  "sender gets ENOBUFS", 0, 2, OPTD_COUNT, O(p.buf), .min = 1, .max = PERF_MAX_BUF,
	  .what = "window", .range = "1 byte to 1G" },
	{ 't', "time", "SECONDS", "measure for SECONDS (default 10)", 0, 2, OPTD_SECONDS,
	  O(p.duration), .fmin = 0.01, .fmax = 86400, .what = "time" },
	{ 'O', "omit", "SECONDS", "warm up for SECONDS first, not counted (default 0)", 0, 2,
	  OPTD_SECONDS, O(p.omit), .fmin = 0, .fmax = 3600, .what = "omit" },
	{ O_VERIFY, "verify", NULL, "fill and check every payload byte and sequence", 0, 2,
	  OPTD_FLAG, O(p.verify) },
	{ O_SCHED, "sched", "poll|busy",
	  "poll: send/receive until EAGAIN, then wait for readiness (default); busy: never "
	  "wait", 0, 2, OPTD_ENUM, O(sched), .names = perf_sched_toks,
	  .what = "scheduling mode" },
	{ 0, NULL, NULL, "Reports:", 0, 3, .kind = OPTD_HEADER },
	{ 'i', "interval", "SECONDS", "report every SECONDS (default 1; 0 = summary only)", 0, 3,
	  .kind = OPTD_CUSTOM },
	/* iperf3's spelling of -j, --json (out_opt.h) */
	{ 'J', NULL, NULL, NULL, OPTION_HIDDEN, 3, OPTD_FLAG, O(json) },
	{ O_LOGFILE, "logfile", "FILE", "append the output and the errors to FILE", 0, 3, OPTD_STR,
	  O(logfile) },
	{ O_PLOT, "plot", "FILE",
	  "write an SVG of the throughput per interval and, for rr and pingpong, the latency "
	  "distribution", 0, 3, OPTD_STR, O(plot) },
};

#undef O

/* -l: a list of sizes. */
static void size_list(struct opts *o, const char *arg, struct argp_state *st)
{
	uint64_t sizes[MAX_SIZES];
	int n = parse_list(arg, 0, PERF_MAX_SIZE, sizes, MAX_SIZES);

	if (n < 0)
		argp_error(st, "bad size list '%s': up to %d sizes of 0 to %u bytes", arg, MAX_SIZES,
			   PERF_MAX_SIZE);
	o->n_sizes = (unsigned)n;
	for (int i = 0; i < n; i++)
		o->sizes[i] = (uint32_t)sizes[i];
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
static void check_opts(void *input, struct argp_state *st)
{
	struct opts *o = input;

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

	switch (key) {
	case 'l':
		size_list(o, arg, st);
		return 0;
	case 'B':
		return rio_opt_take(&o->ro, RIO_KEY_LOCAL, arg, st);
	case O_PATHS:
		/* --npaths is the name every tool gives it; scripts may still
		 * say --paths. */
		fprintf(stderr, "%s: --paths is deprecated: use --npaths\n",
			program_invocation_short_name);
		return rio_opt_take(&o->ro, RIO_KEY_NPATHS, arg, st);
	case 'i':
		if (parse_seconds(arg, 0, 3600, &o->interval) < 0 || (o->interval > 0 && o->interval < 0.01))
			argp_error(st, "bad interval '%s': 0 (none) or 0.01 to 3600 seconds", arg);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

error_t perf_parse_args(const struct argp *ap, int argc, char **argv, struct opts *o)
{
	static struct argp_option opts[OPTD_N(options) + 1];
	const struct optdecl_cmd cmd = {
		ap, options, OPTD_N(options), opts, { &o->ro, &o->oo }, check_opts, NULL, 0
	};

	return optdecl_parse(&cmd, argc, argv, o);
}
