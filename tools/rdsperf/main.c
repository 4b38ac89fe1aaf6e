// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rdsperf - RDS throughput and latency, client and server, over librds or
 * the kernel's AF_RDS (--kernel). The client proposes each test on a TCP
 * control connection (ctl.h), runs it on RDS sockets (engine.h) and prints
 * what both ends counted: per interval, then a summary.
 */
#define _GNU_SOURCE
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

#include "ctl.h"
#include "engine.h"
#include "hist.h"
#include "out.h"
#include "parse.h"
#include "rio.h"
#include "rio_opt.h"

const char *argp_program_version = "rdsperf " RDSTK_VERSION;

#define MAX_SIZES 32
#define CTL_TIMEOUT_MS 10000
#define CTL_IDLE_DEFAULT 10     /* seconds a server waits for a client's next line */
#define CTL_DRAIN_MS 1000       /* at most this long reading what a refused client sent */
#define BUSY_GRACE_MS 500       /* a newcomer waits this long for the client served to go */

struct opts {
	struct rio_cfg cfg;
	struct rio_opt ro;          /* the stack options, into cfg */
	bool server, once, json, quiet;
	const char *host_s, *bind_s;
	struct rdsu_addr host, src;
	bool have_src;
	uint16_t ctl_port;
	struct perf_params p;
	bool rsize_set, depth_set;
	uint32_t sizes[MAX_SIZES];
	unsigned n_sizes;
	unsigned threads;
	enum perf_sched sched;
	double interval;
	unsigned ctl_idle;      /* server: seconds for a client's next control line */
	bool ctl_idle_set;
};

static volatile int stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

enum {
	O_JSON = 0x100, O_RSIZE, O_DEPTH, O_PATHS, O_THREADS, O_OMIT, O_VERIFY, O_SCHED, O_ONCE,
	O_TEST, O_BUF, O_CTL_TIMEOUT
};

static const struct argp_option options[] = {
	{ NULL, 0, NULL, 0, "Mode:", 1 },
	{ "server", 's', NULL, 0, "serve tests (until interrupted; see --one-off)", 1 },
	{ "client", 'c', "HOST", 0, "run a test against the rdsperf server on HOST", 1 },
	{ "one-off", O_ONCE, NULL, 0, "server: exit after one client", 1 },
	{ "ctl-timeout", O_CTL_TIMEOUT, "SECONDS", 0,
	  "server: drop a client whose next control line does not come within SECONDS "
	  "(default 10)", 1 },
	{ "port", 'p', "PORT", 0, "control port (default 18515)", 1 },
	{ "bind", 'B', "ADDR", 0, "server: listen on ADDR; client: RDS source address", 1 },
	{ NULL, 0, NULL, 0, "Test (client):", 2 },
	{ "test", O_TEST, "stream|rr|pingpong", 0,
	  "stream: one-way throughput; rr: requests and responses with --depth in flight per "
	  "socket; pingpong: one socket, one message in flight (default stream)", 2 },
	{ "size", 'l', "BYTES[,BYTES...]", 0,
	  "message (request) size; a list runs one test per size (default 65536 for stream, "
	  "64 otherwise; K and M suffixes)", 2 },
	{ "rsize", O_RSIZE, "BYTES", 0, "rr: response size (default: the request size)", 2 },
	{ "depth", O_DEPTH, "N", 0, "rr: requests in flight per socket (default 1)", 2 },
	{ "sockets", 'n', "N", 0, "client sockets, each paired with a server socket (default 1)", 2 },
	{ "threads", 'T', "N", 0,
	  "client threads sharing the sockets (default 1; librds: one, its endpoint is "
	  "single-threaded)", 2 },
	{ "paths", O_PATHS, "N", OPTION_HIDDEN, NULL, 2 },
	{ "window", 'w', "BYTES", 0,
	  "SNDBUF and RCVBUF of every socket at both ends (default: the stack's, 106496 on "
	  "librds); a receiver holding more than RCVBUF is congested and its sender gets "
	  "ENOBUFS", 2 },
	{ "time", 't', "SECONDS", 0, "measure for SECONDS (default 10)", 2 },
	{ "omit", 'O', "SECONDS", 0, "warm up for SECONDS first, not counted (default 0)", 2 },
	{ "verify", O_VERIFY, NULL, 0, "fill and check every payload byte and sequence", 2 },
	{ "sched", O_SCHED, "poll|busy", 0,
	  "poll: send/receive until EAGAIN, then wait for readiness (default); busy: never "
	  "wait", 2 },
	{ NULL, 0, NULL, 0, "Output:", 3 },
	{ "interval", 'i', "SECONDS", 0, "report every SECONDS (default 1; 0 = summary only)", 3 },
	{ "json", O_JSON, NULL, 0, "one JSON document with everything, at the end", 3 },
	{ "quiet", 'q', NULL, 0, "no interval lines", 3 },
	{ 0 }
};

static error_t parse(int key, char *arg, struct argp_state *st)
{
	struct opts *o = st->input;
	uint64_t v;

	switch (key) {
	case 's':
		o->server = true;
		return 0;
	case 'c':
		o->host_s = arg;
		return 0;
	case O_ONCE:
		o->once = true;
		return 0;
	case O_CTL_TIMEOUT:
		if (parse_count(arg, 1, 3600, &v) < 0)
			argp_error(st, "bad control timeout '%s': 1 to 3600 seconds", arg);
		o->ctl_idle = (unsigned)v;
		o->ctl_idle_set = true;
		return 0;
	case 'p':
		if (parse_count(arg, 1, 65535, &v) < 0)
			argp_error(st, "bad port '%s'", arg);
		o->ctl_port = (uint16_t)v;
		return 0;
	case 'B':
		o->bind_s = arg;
		if (parse_addr(arg, &o->src) < 0)
			argp_error(st, "bad address '%s'", arg);
		o->have_src = true;
		return 0;
	case O_TEST:
		if (perf_test_parse(arg, &o->p.test) < 0)
			argp_error(st, "bad test '%s': stream, rr or pingpong", arg);
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
		if (parse_count(arg, 0, PERF_MAX_SIZE, &v) < 0)
			argp_error(st, "bad response size '%s': 0 to %u", arg, PERF_MAX_SIZE);
		o->p.rsize = (uint32_t)v;
		o->rsize_set = true;
		return 0;
	case O_DEPTH:
		if (parse_count(arg, 1, PERF_MAX_DEPTH, &v) < 0)
			argp_error(st, "bad depth '%s': 1 to %d", arg, PERF_MAX_DEPTH);
		o->p.depth = (uint32_t)v;
		o->depth_set = true;
		return 0;
	case 'n':
		if (parse_count(arg, 1, PERF_MAX_SOCKS, &v) < 0)
			argp_error(st, "bad socket count '%s': 1 to %d", arg, PERF_MAX_SOCKS);
		o->p.sockets = (uint32_t)v;
		return 0;
	case 'T':
		if (parse_count(arg, 1, PERF_MAX_SOCKS, &v) < 0)
			argp_error(st, "bad thread count '%s': 1 to %d", arg, PERF_MAX_SOCKS);
		o->threads = (unsigned)v;
		return 0;
	case O_PATHS:
		/* --npaths is the name every tool gives it; scripts may still
		 * say --paths. */
		fprintf(stderr, "%s: --paths is deprecated: use --npaths\n",
			program_invocation_short_name);
		return rio_opt_take(&o->ro, RIO_KEY_NPATHS, arg, st);
	case ARGP_KEY_INIT:
		st->child_inputs[0] = &o->ro;
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
	case 'i':
		if (parse_seconds(arg, 0, 3600, &o->interval) < 0 || (o->interval > 0 && o->interval < 0.01))
			argp_error(st, "bad interval '%s': 0 (none) or 0.01 to 3600 seconds", arg);
		return 0;
	case O_JSON:
		o->json = true;
		return 0;
	case 'q':
		o->quiet = true;
		return 0;
	case ARGP_KEY_ARG:
		argp_error(st, "unexpected argument '%s'", arg);
		return 0;
	case ARGP_KEY_END:
		/* the client proposes the stack options as part of the test */
		o->p.paths = o->cfg.ep.npaths;
		o->p.kver = o->cfg.ep.kver == WIRE_KVER_6 ? 6 : 7;
		o->p.path_by_pair = o->cfg.ep.path_rule == RDSU_PATH_BY_PAIR;
		if (o->server == !!o->host_s)
			argp_error(st, "say -s (serve) or -c HOST (run a test)");
		if (o->server) {
			if (o->p.verify || o->n_sizes || o->rsize_set || o->depth_set || o->json ||
			    o->p.buf)
				argp_error(st, "the client chooses the test; the server takes no test options");
			return 0;
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
		if (o->p.test == PERF_STREAM && (o->rsize_set || o->depth_set))
			argp_error(st, "--rsize and --depth are for rr and pingpong");
		if (o->threads > o->p.sockets)
			argp_error(st, "%u threads need at least %u sockets", o->threads, o->threads);
		if (o->threads > 1 && !o->cfg.kernel)
			argp_error(st, "librds runs one endpoint per process, on one thread; use "
				       "--sockets and --npaths, or --kernel for threads");
		if (!o->n_sizes)
			o->sizes[o->n_sizes++] = o->p.test == PERF_STREAM ? 65536 : 64;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

/* ------------------------------------------------------------------------
 * Control connection: whole lines with a time limit, never more than
 * CTL_MAX_LINE bytes buffered.
 */

struct ctl {
	int fd;
	char buf[CTL_MAX_LINE + 1];
	size_t n;
};

/* Send |line| (taken: freed here) on |fd|. Return: 0; negative errno. */
static int fd_send_line(int fd, char *line)
{
	size_t len, off = 0;

	if (!line)
		return -ENOMEM;
	len = strlen(line);
	while (off < len) {
		ssize_t k = send(fd, line + off, len - off, MSG_NOSIGNAL);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int e = -errno;

			free(line);
			return e;
		}
		off += (size_t)k;
	}
	free(line);
	return 0;
}

static int ctl_send(struct ctl *c, char *line)
{
	return fd_send_line(c->fd, line);
}

/* The next line into |out| (NUL-terminated, no newline), whole within
 * |timeout_ms| (-1: no limit), however it trickles in. Return: 0;
 * -ETIMEDOUT; -ECONNRESET at EOF; -EMSGSIZE for an overlong line. */
static int ctl_recv(struct ctl *c, char *out, int timeout_ms)
{
	rdsu_ns end = rdsu_clock() + (rdsu_ns)(timeout_ms < 0 ? 0 : timeout_ms) * RDSU_MSEC;

	for (;;) {
		char *nl = memchr(c->buf, '\n', c->n);
		struct pollfd pf = { .fd = c->fd, .events = POLLIN };
		rdsu_ns now;
		ssize_t k;
		int r, wait = -1;

		if (nl) {
			size_t len = (size_t)(nl - c->buf);

			memcpy(out, c->buf, len);
			out[len] = 0;
			memmove(c->buf, nl + 1, c->n - len - 1);
			c->n -= len + 1;
			return 0;
		}
		if (c->n >= CTL_MAX_LINE)
			return -EMSGSIZE;
		if (timeout_ms >= 0) {
			now = rdsu_clock();
			if (now >= end)
				return -ETIMEDOUT;
			wait = (int)((end - now + RDSU_MSEC - 1) / RDSU_MSEC);
		}
		r = poll(&pf, 1, wait);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			return -ETIMEDOUT;
		k = recv(c->fd, c->buf + c->n, CTL_MAX_LINE - c->n, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -ECONNRESET;
		c->n += (size_t)k;
	}
}

static int tcp_connect(const struct rdsu_addr *a, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t len = rdsu_sockaddr(a, port, &ss);
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&ss, len) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* ------------------------------------------------------------------------
 * Output: the interval lines as they happen; at the end a summary, or the
 * JSON document, both from the same numbers.
 */

struct report {
	const struct opts *o;
	struct json_object *intervals; /* --json */
};

static double rate(uint64_t n, double secs)
{
	return secs > 0 ? (double)n / secs : 0;
}

static void print_bits(double bytes_per_s)
{
	double b = bytes_per_s * 8;

	if (b >= 1e9)
		printf("%7.2f Gbit/s", b / 1e9);
	else
		printf("%7.2f Mbit/s", b / 1e6);
}

static double us(uint64_t ns)
{
	return (double)ns / 1e3;
}

/*
 * The --json document's fields (docs/man/rdsperf.1.md), one table per
 * object, JSON only: the text lines are iperf-style sentences.
 */
#define F(k, t) { .key = (k), .type = (t) }

enum {
	LT_SAMPLES, LT_RTT, LT_UNIT, LT_MIN, LT_MEAN, LT_P50, LT_P90, LT_P99, LT_P99_9,
	LT_MAX, LT__N
};
static const struct out_field lat_fields[LT__N] = {
	[LT_SAMPLES] = F("samples", OUT_U64), [LT_RTT] = F("rtt", OUT_STR),
	[LT_UNIT] = F("unit", OUT_STR),       [LT_MIN] = F("min", OUT_DOUBLE),
	[LT_MEAN] = F("mean", OUT_DOUBLE),    [LT_P50] = F("p50", OUT_DOUBLE),
	[LT_P90] = F("p90", OUT_DOUBLE),      [LT_P99] = F("p99", OUT_DOUBLE),
	[LT_P99_9] = F("p99_9", OUT_DOUBLE),  [LT_MAX] = F("max", OUT_DOUBLE),
};
static const struct out_group lat_group = OUT_GROUP("latency", lat_fields);

/* An interval's counts, and the sender's totals (the counts alone). */
enum {
	CT_SECONDS, CT_MESSAGES, CT_BYTES, CT_MESSAGES_PER_SECOND, CT_BITS_PER_SECOND,
	CT_RESPONSES, CT_RESPONSE_BYTES, CT_RESPONSES_PER_SECOND, CT_EAGAIN, CT_ENOBUFS,
	CT_VERIFY_ERRORS, CT__N, IV_START = CT__N, IV_END, IV_OMITTED, IV_LATENCY, IV__N
};
#define COUNT_FIELDS							\
	[CT_SECONDS] = F("seconds", OUT_DOUBLE),			\
	[CT_MESSAGES] = F("messages", OUT_U64),				\
	[CT_BYTES] = F("bytes", OUT_U64),				\
	[CT_MESSAGES_PER_SECOND] = F("messages_per_second", OUT_DOUBLE), \
	[CT_BITS_PER_SECOND] = F("bits_per_second", OUT_DOUBLE),	\
	[CT_RESPONSES] = F("responses", OUT_U64),			\
	[CT_RESPONSE_BYTES] = F("response_bytes", OUT_U64),		\
	[CT_RESPONSES_PER_SECOND] = F("responses_per_second", OUT_DOUBLE), \
	[CT_EAGAIN] = F("eagain", OUT_U64),				\
	[CT_ENOBUFS] = F("enobufs", OUT_U64),				\
	[CT_VERIFY_ERRORS] = F("verify_errors", OUT_U64)

static const struct out_field count_fields[CT__N] = { COUNT_FIELDS };
static const struct out_group count_group = OUT_GROUP("sender", count_fields);

static const struct out_field interval_fields[IV__N] = {
	COUNT_FIELDS,
	[IV_START] = F("start", OUT_DOUBLE),
	[IV_END] = F("end", OUT_DOUBLE),
	[IV_OMITTED] = F("omitted", OUT_BOOL),
	[IV_LATENCY] = { .key = "latency", .type = OUT_OBJECT, .sub = &lat_group },
};
static const struct out_group interval_group = OUT_GROUP("interval", interval_fields);

enum {
	ST_TEST, ST_SIZE, ST_RSIZE, ST_DEPTH, ST_SOCKETS, ST_THREADS, ST_PATHS, ST_KVER,
	ST_PATH_RULE, ST_DURATION, ST_OMIT, ST_WINDOW, ST_VERIFY, ST_SCHED, ST_CLIENT,
	ST_SERVER, ST_CLIENT_STACK, ST_SERVER_STACK, ST__N
};
static const struct out_field start_fields[ST__N] = {
	[ST_TEST] = { .key = "test", .type = OUT_STR, .names = perf_test_toks },
	[ST_SIZE] = F("size", OUT_U64),
	[ST_RSIZE] = F("rsize", OUT_U64),
	[ST_DEPTH] = F("depth", OUT_U64),
	[ST_SOCKETS] = F("sockets", OUT_U64),
	[ST_THREADS] = F("threads", OUT_U64),
	[ST_PATHS] = F("paths", OUT_U64),
	[ST_KVER] = F("kver", OUT_U64),
	[ST_PATH_RULE] = F("path_rule", OUT_STR),
	[ST_DURATION] = F("duration", OUT_DOUBLE),
	[ST_OMIT] = F("omit", OUT_DOUBLE),
	[ST_WINDOW] = F("window", OUT_U64),
	[ST_VERIFY] = F("verify", OUT_BOOL),
	[ST_SCHED] = F("sched", OUT_STR),
	[ST_CLIENT] = F("client", OUT_STR),
	[ST_SERVER] = F("server", OUT_STR),
	[ST_CLIENT_STACK] = F("client_stack", OUT_STR),
	[ST_SERVER_STACK] = F("server_stack", OUT_STR),
};
static const struct out_group start_group = OUT_GROUP("start", start_fields);

enum {
	RX_SECONDS, RX_MESSAGES, RX_BYTES, RX_MESSAGES_PER_SECOND, RX_BITS_PER_SECOND,
	RX_RESPONSES_SENT, RX_EAGAIN, RX_ENOBUFS, RX_VERIFY_ERRORS, RX__N
};
static const struct out_field rx_fields[RX__N] = {
	[RX_SECONDS] = F("seconds", OUT_DOUBLE),
	[RX_MESSAGES] = F("messages", OUT_U64),
	[RX_BYTES] = F("bytes", OUT_U64),
	[RX_MESSAGES_PER_SECOND] = F("messages_per_second", OUT_DOUBLE),
	[RX_BITS_PER_SECOND] = F("bits_per_second", OUT_DOUBLE),
	[RX_RESPONSES_SENT] = F("responses_sent", OUT_U64),
	[RX_EAGAIN] = F("eagain", OUT_U64),
	[RX_ENOBUFS] = F("enobufs", OUT_U64),
	[RX_VERIFY_ERRORS] = F("verify_errors", OUT_U64),
};
static const struct out_group rx_group = OUT_GROUP("receiver", rx_fields);

enum { CPU_CLIENT, CPU_SERVER, CPU__N };
static const struct out_field cpu_fields[CPU__N] = {
	[CPU_CLIENT] = F("client_percent", OUT_DOUBLE),
	[CPU_SERVER] = F("server_percent", OUT_DOUBLE),
};
static const struct out_group cpu_group = OUT_GROUP("cpu", cpu_fields);

/* null where a count could not be read */
enum { RT_CLIENT_RDS, RT_SERVER_RDS, RT_HOST_TCP_SEGMENTS, RT__N };
static const struct out_field rt_fields[RT__N] = {
	[RT_CLIENT_RDS] = F("client_rds", OUT_I64),
	[RT_SERVER_RDS] = F("server_rds", OUT_I64),
	[RT_HOST_TCP_SEGMENTS] = F("host_tcp_segments", OUT_I64),
};
static const struct out_group rt_group = OUT_GROUP("retransmits", rt_fields);

enum { EN_SENDER, EN_RECEIVER, EN_LATENCY, EN_CPU, EN_RETRANSMITS, EN__N };
static const struct out_field end_fields[EN__N] = {
	[EN_SENDER] = { .key = "sender", .type = OUT_OBJECT, .sub = &count_group },
	[EN_RECEIVER] = { .key = "receiver", .type = OUT_OBJECT, .sub = &rx_group },
	[EN_LATENCY] = { .key = "latency", .type = OUT_OBJECT, .sub = &lat_group },
	[EN_CPU] = { .key = "cpu", .type = OUT_OBJECT, .sub = &cpu_group },
	[EN_RETRANSMITS] = { .key = "retransmits", .type = OUT_OBJECT, .sub = &rt_group },
};
static const struct out_group end_group = OUT_GROUP("end", end_fields);

/* One run, an element of the document's "runs". */
enum { RUN_START, RUN_INTERVALS, RUN_END, RUN_ERROR, RUN__N };
static const struct out_field run_fields[RUN__N] = {
	[RUN_START] = { .key = "start", .type = OUT_OBJECT, .sub = &start_group },
	[RUN_INTERVALS] = { .key = "intervals", .type = OUT_ARRAY, .sub = &interval_group },
	[RUN_END] = { .key = "end", .type = OUT_OBJECT, .sub = &end_group },
	[RUN_ERROR] = F("error", OUT_STR),
};
static const struct out_group run_group = OUT_GROUP("run", run_fields);

enum { DOC_RDSPERF, DOC_VERSION, DOC_RUNS, DOC__N };
static const struct out_field doc_fields[DOC__N] = {
	[DOC_RDSPERF] = F("rdsperf", OUT_U64),
	[DOC_VERSION] = F("version", OUT_STR),
	[DOC_RUNS] = { .key = "runs", .type = OUT_ARRAY, .sub = &run_group },
};
static const struct out_group doc_group = OUT_GROUP("rdsperf", doc_fields);

#undef F

/* Into the object |id| of the current group. */
static void lat_json(struct out *j, unsigned id, const struct hist *h)
{
	out_obj_open(j, id);
	out_u64(j, LT_SAMPLES, h->n);
	out_str(j, LT_RTT, "full round trip");
	out_str(j, LT_UNIT, "us");
	out_double(j, LT_MIN, us(h->min));
	out_double(j, LT_MEAN, hist_mean(h) / 1e3);
	out_double(j, LT_P50, us(hist_pct(h, 50)));
	out_double(j, LT_P90, us(hist_pct(h, 90)));
	out_double(j, LT_P99, us(hist_pct(h, 99)));
	out_double(j, LT_P99_9, us(hist_pct(h, 99.9)));
	out_double(j, LT_MAX, us(h->max));
	out_close(j);
}

/* The counts into the current object (an interval's or the sender's). */
static void count_json(struct out *j, const struct perf_count *c, double secs, bool stream)
{
	out_double(j, CT_SECONDS, secs);
	out_u64(j, CT_MESSAGES, c->msgs);
	out_u64(j, CT_BYTES, c->bytes);
	out_double(j, CT_MESSAGES_PER_SECOND, rate(c->msgs, secs));
	out_double(j, CT_BITS_PER_SECOND, rate(c->bytes, secs) * 8);
	if (!stream) {
		out_u64(j, CT_RESPONSES, c->rmsgs);
		out_u64(j, CT_RESPONSE_BYTES, c->rbytes);
		out_double(j, CT_RESPONSES_PER_SECOND, rate(c->rmsgs, secs));
	}
	out_u64(j, CT_EAGAIN, c->eagain);
	out_u64(j, CT_ENOBUFS, c->enobufs);
	out_u64(j, CT_VERIFY_ERRORS, c->verify_errors);
}

static void print_lat(const struct hist *h)
{
	printf("  rtt p50 %.1f p90 %.1f p99 %.1f p99.9 %.1f max %.1f us", us(hist_pct(h, 50)),
	       us(hist_pct(h, 90)), us(hist_pct(h, 99)), us(hist_pct(h, 99.9)), us(h->max));
}

static void on_interval(void *ud, const struct perf_interval *iv)
{
	struct report *rp = ud;
	const struct opts *o = rp->o;
	double secs = iv->end - iv->start;
	bool stream = o->p.test == PERF_STREAM;

	if (o->json) {
		struct out *j = malloc(sizeof(*j));

		if (!j)
			return;
		out_init(j, stdout, OUT_JSON, 0, 0);
		out_begin(j, &interval_group);
		count_json(j, &iv->c, secs, stream);
		out_double(j, IV_START, iv->start);
		out_double(j, IV_END, iv->end);
		out_bool(j, IV_OMITTED, iv->omitted);
		if (!stream)
			lat_json(j, IV_LATENCY, &iv->lat);
		json_object_array_add(rp->intervals, out_take(j));
		out_fini(j);
		free(j);
		return;
	}
	if (o->quiet)
		return;
	printf("[%6.2f-%6.2f s] ", iv->start, iv->end);
	if (stream) {
		printf("%10.0f msg/s ", rate(iv->c.msgs, secs));
		print_bits(rate(iv->c.bytes, secs));
	} else {
		printf("%10.0f resp/s ", rate(iv->c.rmsgs, secs));
		print_lat(&iv->lat);
	}
	if (iv->c.eagain || iv->c.enobufs)
		printf("  eagain %llu enobufs %llu", (unsigned long long)iv->c.eagain,
		       (unsigned long long)iv->c.enobufs);
	if (iv->c.verify_errors)
		printf("  VERIFY ERRORS %llu", (unsigned long long)iv->c.verify_errors);
	printf("%s\n", iv->omitted ? "  (omitted)" : "");
	fflush(stdout);
}

static int64_t librds_retransmits(struct rio *r)
{
	struct rdsu_stats st;

	if (!rio_io(r))
		return -1;
	rdsu_ep_get_stats(rdsu_io_ep(rio_io(r)), &st);
	return (int64_t)st.v[RDSU_STAT_SEND_RETRANSMITTED];
}

/* Host-wide TCP segments retransmitted (/proc/net/snmp Tcp: RetransSegs);
 * -1 if unreadable. */
static int64_t tcp_retrans_segs(void)
{
	FILE *f = fopen("/proc/net/snmp", "r");
	char names[1024], vals[1024];
	int64_t v = -1;

	if (!f)
		return -1;
	while (fgets(names, sizeof(names), f) && fgets(vals, sizeof(vals), f)) {
		char *sn = NULL, *sv = NULL, *n, *x;

		if (strncmp(names, "Tcp:", 4))
			continue;
		for (n = strtok_r(names, " \n", &sn), x = strtok_r(vals, " \n", &sv); n && x;
		     n = strtok_r(NULL, " \n", &sn), x = strtok_r(NULL, " \n", &sv))
			if (!strcmp(n, "RetransSegs"))
				v = strtoll(x, NULL, 10);
		break;
	}
	fclose(f);
	return v;
}

/* ------------------------------------------------------------------------
 * Client
 */

static const char *stack_name(bool kernel)
{
	return kernel ? "kernel AF_RDS" : "librds";
}

/* One test: propose, run, collect. Return: 0; 1 when the test ran but
 * failed (verification, a socket error); 2 when it could not run. */
static int run_one(struct opts *o, struct ctl *cc, struct json_object *runs)
{
	struct perf_params *p = &o->p;
	struct rio_cfg cfg = o->cfg;
	struct rio *r = NULL;
	struct perf_client c;
	struct perf_result res;
	struct report rp = { o, NULL };
	char err[256], *line = malloc(CTL_MAX_LINE + 1), a[64];
	bool server_kernel = false;
	int64_t rt0, rt1, tr0, tr1;
	int e, rc = 2;

	memset(&c, 0, sizeof(c));
	if (!line)
		return 2;
	cfg.ep.npaths = (uint16_t)p->paths;
	cfg.ep.kver = p->kver == 6 ? WIRE_KVER_6 : WIRE_KVER_7;
	cfg.ep.path_rule = p->path_by_pair ? RDSU_PATH_BY_PAIR : RDSU_PATH_BY_PORT;
	if (rio_cfg_add_addr(&cfg, &o->src) < 0)
		goto out;
	e = rio_open(&r, &cfg);
	if (e < 0) {
		fprintf(stderr, "rdsperf: %s on %s: %s\n", stack_name(cfg.kernel),
			rdsu_addr_str(&o->src, a, sizeof(a)), rio_open_strerror(&cfg, e));
		goto out;
	}
	for (unsigned i = 0; i < p->sockets; i++) {
		e = rio_socket(r, &o->src, 0, &c.socks[i]);
		if (e == 0)
			e = rio_set_bufs(c.socks[i], p->buf, p->buf);
		if (e < 0) {
			fprintf(stderr, "rdsperf: bind %s: %s\n", rdsu_addr_str(&o->src, a, sizeof(a)),
				rdsu_strerror(e));
			goto out;
		}
		p->client_ports[i] = rio_sock_port(c.socks[i]);
	}
	rdsu_addr_str(&o->src, p->client_addr, sizeof(p->client_addr));
	if ((e = ctl_send(cc, ctl_start_line(p))) < 0 || (e = ctl_recv(cc, line, CTL_TIMEOUT_MS)) < 0) {
		fprintf(stderr, "rdsperf: control connection: %s\n", strerror(-e));
		goto out;
	}
	if (ctl_parse_ready(line, c.dports, p->sockets, &server_kernel, err, sizeof(err)) < 0) {
		fprintf(stderr, "rdsperf: server refused the test: %s\n", err);
		goto out;
	}
	if (!o->json)
		printf("rdsperf %s -> %s: %s, %u byte%s%s, %u socket%s, %u thread%s, %s, "
		       "sched %s; client %s, server %s%s\n",
		       p->client_addr, o->host_s, perf_test_name(p->test), p->size,
		       p->size == 1 ? "" : "s",
		       p->test == PERF_STREAM ? "" : (p->rsize == p->size ? " each way" : " requests"),
		       p->sockets, p->sockets == 1 ? "" : "s", o->threads, o->threads == 1 ? "" : "s",
		       cfg.kernel          ? "kernel paths"
		       : p->paths == 1     ? "1 path"
		       : p->path_by_pair   ? "up to 8 paths, by port pair"
					   : "up to 8 paths, by sending port",
		       perf_sched_name(o->sched), stack_name(cfg.kernel), stack_name(server_kernel),
		       p->verify ? ", verified" : "");
	if (!o->json && p->test == PERF_RR && p->rsize != p->size)
		printf("  responses %u bytes, depth %u\n", p->rsize, p->depth);
	if (!o->json && p->buf)
		printf("  SNDBUF and RCVBUF %u bytes at both ends\n", p->buf);
	if (!o->json && !cfg.kernel && p->paths != 8)
		printf("  librds advertises %u path%s\n", p->paths, p->paths == 1 ? "" : "s");
	if (o->json)
		rp.intervals = json_object_new_array();
	c.p = p;
	c.r = r;
	c.dst = o->host;
	c.threads = o->threads;
	c.sched = o->sched;
	c.interval = o->interval;
	c.on_interval = on_interval;
	c.ud = &rp;
	c.stop = &stop;
	rt0 = librds_retransmits(r);
	tr0 = tcp_retrans_segs();
	e = perf_client_run(&c);
	rt1 = librds_retransmits(r);
	tr1 = tcp_retrans_segs();
	/* Let librds finish writing and answering before the server stops:
	 * what the count calls sent must be in the server's kernel, not
	 * merely started (a slow receiver holds the window shut, and bytes
	 * the socket did not take wait in the transport: this process stops
	 * running librds while it waits for the result; the server drains
	 * only until its sockets go quiet). 10 s at most. */
	if (rio_io(r)) {
		for (rdsu_ns end = rdsu_clock() + 10 * RDSU_SEC;
		     rio_unacked(r) && rdsu_clock() < end;)
			rio_idle(r, 10 * RDSU_MSEC);
		rio_idle(r, 50 * RDSU_MSEC);
	}
	if (ctl_send(cc, ctl_stop_line()) < 0 || ctl_recv(cc, line, CTL_TIMEOUT_MS + 5000) < 0 ||
	    ctl_parse_result(line, &res, err, sizeof(err)) < 0) {
		fprintf(stderr, "rdsperf: no result from the server: %s\n",
			err[0] ? err : "control connection lost");
		goto out;
	}
	rc = e < 0 || c.total.verify_errors || res.verify_errors ? 1 : 0;
	if (e < 0)
		fprintf(stderr, "rdsperf: test stopped: %s\n", rdsu_strerror(e));
	if (o->json) {
		struct out *j = malloc(sizeof(*j));
		bool stream = p->test == PERF_STREAM;

		if (!j) {
			rc = 2;
			goto out;
		}
		out_init(j, stdout, OUT_JSON, 0, 0);
		out_begin(j, &run_group);
		out_obj_open(j, RUN_START);
		out_str(j, ST_TEST, perf_test_name(p->test));
		out_u64(j, ST_SIZE, p->size);
		if (!stream) {
			out_u64(j, ST_RSIZE, p->rsize);
			out_u64(j, ST_DEPTH, p->depth);
		}
		out_u64(j, ST_SOCKETS, p->sockets);
		out_u64(j, ST_THREADS, o->threads);
		if (cfg.kernel) {
			out_null(j, ST_PATHS);
			out_null(j, ST_KVER);
			out_null(j, ST_PATH_RULE);
		} else {
			out_u64(j, ST_PATHS, p->paths);
			out_u64(j, ST_KVER, p->kver);
			out_str(j, ST_PATH_RULE, p->path_by_pair ? "pair" : "port");
		}
		out_double(j, ST_DURATION, p->duration);
		out_double(j, ST_OMIT, p->omit);
		if (p->buf)
			out_u64(j, ST_WINDOW, p->buf);
		else
			out_null(j, ST_WINDOW);
		out_bool(j, ST_VERIFY, p->verify);
		out_str(j, ST_SCHED, perf_sched_name(o->sched));
		out_str(j, ST_CLIENT, p->client_addr);
		out_str(j, ST_SERVER, o->host_s);
		out_str(j, ST_CLIENT_STACK, stack_name(cfg.kernel));
		out_str(j, ST_SERVER_STACK, stack_name(server_kernel));
		out_close(j);
		out_json(j, RUN_INTERVALS, rp.intervals);
		rp.intervals = NULL;
		out_obj_open(j, RUN_END);
		out_obj_open(j, EN_SENDER);
		count_json(j, &c.total, c.measured, stream);
		out_close(j);
		out_obj_open(j, EN_RECEIVER);
		out_double(j, RX_SECONDS, res.wall);
		out_u64(j, RX_MESSAGES, res.msgs);
		out_u64(j, RX_BYTES, res.bytes);
		out_double(j, RX_MESSAGES_PER_SECOND, rate(res.msgs, res.wall));
		out_double(j, RX_BITS_PER_SECOND, rate(res.bytes, res.wall) * 8);
		out_u64(j, RX_RESPONSES_SENT, res.sent);
		out_u64(j, RX_EAGAIN, res.eagain);
		out_u64(j, RX_ENOBUFS, res.enobufs);
		out_u64(j, RX_VERIFY_ERRORS, res.verify_errors);
		out_close(j);
		if (!stream)
			lat_json(j, EN_LATENCY, &c.lat);
		out_obj_open(j, EN_CPU);
		out_double(j, CPU_CLIENT, c.measured > 0 ? 100 * c.cpu / c.measured : 0);
		out_double(j, CPU_SERVER, res.wall > 0 ? 100 * res.cpu / res.wall : 0);
		out_close(j);
		out_obj_open(j, EN_RETRANSMITS);
		if (rt0 < 0)
			out_null(j, RT_CLIENT_RDS);
		else
			out_i64(j, RT_CLIENT_RDS, rt1 - rt0);
		if (res.rds_retransmits < 0)
			out_null(j, RT_SERVER_RDS);
		else
			out_i64(j, RT_SERVER_RDS, res.rds_retransmits);
		if (tr0 < 0 || tr1 < 0)
			out_null(j, RT_HOST_TCP_SEGMENTS);
		else
			out_i64(j, RT_HOST_TCP_SEGMENTS, tr1 - tr0);
		out_close(j);
		out_close(j);
		out_str(j, RUN_ERROR, e < 0 ? rdsu_strerror(e) : NULL);
		json_object_array_add(runs, out_take(j));
		out_fini(j);
		free(j);
	} else {
		bool stream = p->test == PERF_STREAM;

		printf("- - - - - - - - - - - - - - - - - - - - - - - - -\n");
		printf("sender   %6.2f s %10.0f msg/s ", c.measured, rate(c.total.msgs, c.measured));
		print_bits(rate(c.total.bytes, c.measured));
		printf("  %llu messages, cpu %.0f %%\n", (unsigned long long)c.total.msgs,
		       c.measured > 0 ? 100 * c.cpu / c.measured : 0);
		printf("receiver %6.2f s %10.0f msg/s ", res.wall, rate(res.msgs, res.wall));
		print_bits(rate(res.bytes, res.wall));
		printf("  %llu messages, cpu %.0f %%\n", (unsigned long long)res.msgs,
		       res.wall > 0 ? 100 * res.cpu / res.wall : 0);
		if (!stream) {
			printf("responses          %10.0f /s      ", rate(c.total.rmsgs, c.measured));
			print_lat(&c.lat);
			printf(" (full round trip, %llu samples)\n", (unsigned long long)c.lat.n);
		}
		printf("send errors: eagain %llu enobufs %llu (client), %llu %llu (server)\n",
		       (unsigned long long)c.total.eagain, (unsigned long long)c.total.enobufs,
		       (unsigned long long)res.eagain, (unsigned long long)res.enobufs);
		printf("retransmits: ");
		if (rt0 >= 0)
			printf("client librds %lld, ", (long long)(rt1 - rt0));
		if (res.rds_retransmits >= 0)
			printf("server librds %lld, ", (long long)res.rds_retransmits);
		if (tr0 >= 0 && tr1 >= 0)
			printf("host TCP segments %lld", (long long)(tr1 - tr0));
		printf("\n");
		if (p->verify)
			printf("verify: %llu errors at the client, %llu at the server\n",
			       (unsigned long long)c.total.verify_errors,
			       (unsigned long long)res.verify_errors);
	}
out:
	json_object_put(rp.intervals);
	for (unsigned i = 0; i < p->sockets; i++)
		rio_sock_close(c.socks[i]);
	rio_close(r);
	free(line);
	return rc;
}

static int client(struct opts *o)
{
	struct ctl *cc = calloc(1, sizeof(*cc));
	struct json_object *runs = NULL;
	char a[64];
	int e, rc = 0;

	if (!cc)
		return 2;
	if (!o->have_src) {
		e = rio_route_source(&o->host, &o->src);
		if (e < 0) {
			fprintf(stderr, "rdsperf: no route to %s: %s\n", o->host_s, strerror(-e));
			free(cc);
			return 2;
		}
		/* On loopback both ends would get the same address, and two
		 * RDS stacks cannot share one: take the next 127 address. */
		if (!memcmp(&o->src, &o->host, sizeof(o->src)) && rdsu_addr_is_v4(&o->src) &&
		    o->src.a[12] == 127)
			o->src.a[15] = (uint8_t)(o->src.a[15] == 254 ? 1 : o->src.a[15] + 1);
	}
	cc->fd = tcp_connect(&o->host, o->ctl_port);
	if (cc->fd < 0) {
		fprintf(stderr, "rdsperf: control connection to %s port %u: %s\n", o->host_s,
			o->ctl_port, strerror(-cc->fd));
		free(cc);
		return 2;
	}
	if (o->json) {
		runs = json_object_new_array();
	} else {
		printf("client %s, server %s port %u\n", rdsu_addr_str(&o->src, a, sizeof(a)),
		       o->host_s, o->ctl_port);
	}
	for (unsigned i = 0; i < o->n_sizes && !stop; i++) {
		int r;

		o->p.size = o->sizes[i];
		if (!o->rsize_set)
			o->p.rsize = o->p.test == PERF_STREAM ? 0 : o->p.size;
		r = run_one(o, cc, runs);
		if (r > rc)
			rc = r;
		if (r == 2)
			break;
	}
	if (runs) {
		struct out *doc = malloc(sizeof(*doc));

		if (doc) {
			out_init(doc, stdout, OUT_JSON, 0,
				 JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
			out_begin(doc, &doc_group);
			out_u64(doc, DOC_RDSPERF, CTL_VERSION);
			out_str(doc, DOC_VERSION, RDSTK_VERSION);
			out_json(doc, DOC_RUNS, runs);
			out_end(doc);
			out_fini(doc);
			free(doc);
		} else {
			json_object_put(runs);
		}
	}
	close(cc->fd);
	free(cc);
	return rc;
}

/* ------------------------------------------------------------------------
 * Server
 */

/*
 * Tell a client why it is dropped, then let the line reach it: closing
 * with its bytes unread would send an RST, which can overtake the line.
 * So: the error line, our FIN, and whatever it still sends read and
 * thrown away until its FIN or CTL_DRAIN_MS. The caller closes |fd|.
 */
static void refuse(int fd, const char *why)
{
	char junk[4096];
	rdsu_ns end;

	if (fd_send_line(fd, ctl_error_line(why)) < 0)
		return;
	shutdown(fd, SHUT_WR);
	end = rdsu_clock() + CTL_DRAIN_MS * RDSU_MSEC;
	for (;;) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		rdsu_ns now = rdsu_clock();

		if (now >= end || poll(&pf, 1, (int)((end - now) / RDSU_MSEC) + 1) <= 0)
			return;
		if (recv(fd, junk, sizeof(junk), 0) <= 0)
			return;
	}
}

/*
 * While one client is served, others are answered "busy" at once rather
 * than left waiting in the listen queue for a test of unknown length. A
 * thread of its own, because the test loop (engine.c) waits only on its
 * sockets and the client's control line.
 */
struct doorman {
	int lfd;
	char busy[160];
	atomic_bool done;
	pthread_t th;
	int handoff;            /* a newcomer to serve next, or -1 */
};

static void *doorman_run(void *arg)
{
	struct doorman *d = arg;

	while (!atomic_load(&d->done)) {
		struct pollfd pf = { .fd = d->lfd, .events = POLLIN };
		int fd;

		/* a tenth of a second: how long the next client waits for
		 * the listener once the test ends */
		if (poll(&pf, 1, 100) <= 0)
			continue;
		fd = accept4(d->lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		/* The client served may be on its way out (a client running a
		 * sweep reconnects as soon as its last result is in): then the
		 * newcomer is the next client, not one to turn away. */
		for (int i = 0; i < BUSY_GRACE_MS / 10 && !atomic_load(&d->done); i++)
			usleep(10000);
		if (atomic_load(&d->done)) {
			d->handoff = fd;
			return NULL;
		}
		refuse(fd, d->busy);
		close(fd);
	}
	return NULL;
}

/* Start the doorman for the client on |fd|. Return: 0; -1 (no thread:
 * others wait in the listen queue, as they would without one). After
 * doorman_stop(), d->handoff is a client accepted meanwhile, or -1. */
static int doorman_start(struct doorman *d, int lfd, int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	struct rdsu_addr who;
	uint16_t port;
	char a[64] = "?";
	sigset_t all, old;
	int e;

	if (getpeername(fd, (struct sockaddr *)&ss, &len) == 0 &&
	    rdsu_sockaddr_get(&ss, &who, &port) == 0)
		rdsu_addr_str(&who, a, sizeof(a));
	snprintf(d->busy, sizeof(d->busy),
		 "busy: serving a test for %s; one client at a time, try again when it ends", a);
	d->lfd = lfd;
	d->handoff = -1;
	atomic_store(&d->done, false);
	/* signals stay with the main thread, whose loops check |stop| */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	e = pthread_create(&d->th, NULL, doorman_run, d);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return e ? -1 : 0;
}

static void doorman_stop(struct doorman *d)
{
	atomic_store(&d->done, true);
	pthread_join(d->th, NULL);
}

static void serve_client(struct opts *o, struct ctl *cc, const struct rdsu_addr *laddr)
{
	char *line = malloc(CTL_MAX_LINE + 1), err[256], a[64];

	if (!line)
		return;
	for (;;) {
		struct perf_params p;
		struct perf_server s;
		struct rdsu_addr client;
		struct rio_cfg cfg = o->cfg;
		struct rio *r = NULL;
		uint16_t ports[PERF_MAX_SOCKS];
		int64_t rt0;
		unsigned n = 0;
		int e;

		e = ctl_recv(cc, line, (int)o->ctl_idle * 1000);
		if (stop)
			break;
		if (e == -ETIMEDOUT) {
			snprintf(err, sizeof(err), "no request within %u s: closing", o->ctl_idle);
			fprintf(stderr, "rdsperf: %s\n", err);
			refuse(cc->fd, err);
			break;
		}
		if (e == -EMSGSIZE) {
			snprintf(err, sizeof(err), "control line longer than %u bytes: closing",
				 CTL_MAX_LINE);
			fprintf(stderr, "rdsperf: %s\n", err);
			refuse(cc->fd, err);
			break;
		}
		if (e < 0)
			break;
		if (ctl_parse_start(line, &p, err, sizeof(err)) < 0) {
			fprintf(stderr, "rdsperf: bad request: %s\n", err);
			ctl_send(cc, ctl_error_line(err));
			break;
		}
		memset(&s, 0, sizeof(s));
		if (parse_addr(p.client_addr, &client) < 0) {
			ctl_send(cc, ctl_error_line("client_addr is not an address"));
			break;
		}
		cfg.ep.npaths = (uint16_t)p.paths;
		cfg.ep.kver = p.kver == 6 ? WIRE_KVER_6 : WIRE_KVER_7;
		cfg.ep.path_rule = p.path_by_pair ? RDSU_PATH_BY_PAIR : RDSU_PATH_BY_PORT;
		rio_cfg_add_addr(&cfg, laddr);
		e = rio_open(&r, &cfg);
		while (e == 0 && n < p.sockets) {
			e = rio_socket(r, laddr, 0, &s.socks[n]);
			if (e < 0)
				break;
			ports[n] = rio_sock_port(s.socks[n]);
			e = rio_set_bufs(s.socks[n++], p.buf, p.buf);
		}
		if (e < 0) {
			snprintf(err, sizeof(err), "server %s on %s: %s", stack_name(cfg.kernel),
				 rdsu_addr_str(laddr, a, sizeof(a)), rdsu_strerror(e));
			fprintf(stderr, "rdsperf: %s\n", err);
			ctl_send(cc, ctl_error_line(err));
		} else if (ctl_send(cc, ctl_ready_line(ports, p.sockets, cfg.kernel)) == 0) {
			fprintf(stderr, "rdsperf: %s from %s, %u socket%s, %u bytes\n",
				perf_test_name(p.test), p.client_addr, p.sockets,
				p.sockets == 1 ? "" : "s", p.size);
			s.p = &p;
			s.r = r;
			s.ctl_fd = cc->fd;
			rt0 = librds_retransmits(r);
			e = perf_server_run(&s);
			s.res.rds_retransmits = rt0 < 0 ? -1 : librds_retransmits(r) - rt0;
			s.res.kernel = cfg.kernel;
			if (e < 0)
				fprintf(stderr, "rdsperf: test failed: %s\n", rdsu_strerror(e));
			/* the stop line (or EOF) is what ended the loop */
			if (ctl_recv(cc, line, CTL_TIMEOUT_MS) == 0 &&
			    ctl_parse_stop(line, err, sizeof(err)) == 0)
				e = ctl_send(cc, ctl_result_line(&s.res));
			else
				e = -ECONNRESET;
		}
		for (unsigned i = 0; i < n; i++)
			rio_sock_close(s.socks[i]);
		rio_close(r);
		if (e < 0)
			break;
	}
	free(line);
}

static int server(struct opts *o)
{
	struct sockaddr_storage ss;
	struct rdsu_addr any;
	struct doorman door;
	socklen_t len;
	int lfd, one = 1;

	memset(&any, 0, sizeof(any));
	len = rdsu_sockaddr(o->bind_s ? &o->src : &any, o->ctl_port, &ss);
	lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(lfd, (struct sockaddr *)&ss, len) < 0 || listen(lfd, 4) < 0) {
		fprintf(stderr, "rdsperf: control port %u: %s\n", o->ctl_port, strerror(errno));
		if (lfd >= 0)
			close(lfd);
		return 2;
	}
	fprintf(stderr, "rdsperf: serving on port %u (%s)\n", o->ctl_port, stack_name(o->cfg.kernel));
	door.handoff = -1;
	while (!stop) {
		struct ctl *cc;
		struct rdsu_addr laddr;
		uint16_t port;
		int fd = door.handoff;

		door.handoff = -1;
		if (fd < 0)
			fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "rdsperf: accept: %s\n", strerror(errno));
			break;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		len = sizeof(ss);
		/* RDS is served on the address the client reached us at */
		if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0 ||
		    rdsu_sockaddr_get(&ss, &laddr, &port) < 0 || !(cc = calloc(1, sizeof(*cc)))) {
			close(fd);
			continue;
		}
		cc->fd = fd;
		bool guarded = doorman_start(&door, lfd, fd) == 0;

		serve_client(o, cc, &laddr);
		if (guarded)
			doorman_stop(&door);
		close(fd);
		free(cc);
		if (o->once)
			break;
	}
	if (door.handoff >= 0)
		close(door.handoff);
	close(lfd);
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct argp_child children[] = { { &o.ro.argp, 0, NULL, 2 }, { 0 } };
	const struct argp ap = {
		options, parse, "-s | -c HOST",
		"Measure RDS throughput and latency between two hosts.\v"
		"rdsperf -s on one host; rdsperf -c HOST [options] on the other. Exit status: 0 "
		"when every test ran and verified, 1 when a test failed, 2 when it could not run.",
		children, NULL, NULL
	};
	struct sigaction sa;

	memset(&o, 0, sizeof(o));
	argp_err_exit_status = 2;
	rio_cfg_default(&o.cfg);
	rio_opt_init(&o.ro, RIO_OPT_KERNEL | RIO_OPT_KVER | RIO_OPT_NPATHS | RIO_OPT_PATH_RULE, &o.cfg);
	o.ctl_port = CTL_PORT;
	o.p.test = PERF_STREAM;
	o.p.depth = 1;
	o.p.sockets = 1;
	o.p.duration = 10;
	o.threads = 1;
	o.interval = 1;
	o.ctl_idle = CTL_IDLE_DEFAULT;
	/* getopt names the program by argv[0] in its complaints: the name,
	 * not the path it was started by. */
	argv[0] = program_invocation_short_name;
	if (argp_parse(&ap, argc, argv, 0, NULL, &o) != 0)
		return 2;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return o.server ? server(&o) : client(&o);
}
