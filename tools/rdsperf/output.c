// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * output.c - rdsperf's output: the interval lines, the summary and the JSON
 * document.
 */
#define _GNU_SOURCE
#include "rdsperf.h"

#include <argp.h>
#include <errno.h>
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

/* ------------------------------------------------------------------------
 * Output: the interval lines as they happen; at the end a summary, or the
 * JSON document, both from the same numbers.
 */

/* The latency histogram after rr and pingpong: fits 80 columns. */
#define HIST_ROWS 12
#define HIST_WIDTH 30

static double rate(uint64_t n, double secs)
{
	return secs > 0 ? (double)n / secs : 0;
}

static void print_bits(struct out *t, double bytes_per_s)
{
	double b = bytes_per_s * 8;

	if (b >= 1e9)
		out_printf(t, "%7.2f Gbit/s", b / 1e9);
	else
		out_printf(t, "%7.2f Mbit/s", b / 1e6);
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
/*
 * Numbers to the precision they are measured with, not a double's 17
 * digits: times from a nanosecond clock to the microsecond, latencies
 * (nanoseconds, or a bucket's nanosecond bound) in microseconds to the
 * nanosecond, rates to a tenth of a message and to the bit, CPU (from
 * getrusage's microseconds over a second or more) to a tenth of a percent.
 */
#define FX(k, d) { .key = (k), .type = OUT_FIXED, .digits = (d) }
#define SECS 6
#define USECS 3

enum {
	LT_SAMPLES, LT_RTT, LT_UNIT, LT_MIN, LT_MEAN, LT_P50, LT_P90, LT_P99, LT_P99_9,
	LT_MAX, LT__N
};
static const struct out_field lat_fields[LT__N] = {
	[LT_SAMPLES] = F("samples", OUT_U64), [LT_RTT] = F("rtt", OUT_STR),
	[LT_UNIT] = F("unit", OUT_STR),       [LT_MIN] = FX("min", USECS),
	[LT_MEAN] = FX("mean", USECS),    [LT_P50] = FX("p50", USECS),
	[LT_P90] = FX("p90", USECS),      [LT_P99] = FX("p99", USECS),
	[LT_P99_9] = FX("p99_9", USECS),  [LT_MAX] = FX("max", USECS),
};
static const struct out_group lat_group = OUT_GROUP("latency", lat_fields);

/* An interval's counts, and the sender's totals (the counts alone). */
enum {
	CT_SECONDS, CT_MESSAGES, CT_BYTES, CT_MESSAGES_PER_SECOND, CT_BITS_PER_SECOND,
	CT_RESPONSES, CT_RESPONSE_BYTES, CT_RESPONSES_PER_SECOND, CT_EAGAIN, CT_ENOBUFS,
	CT_VERIFY_ERRORS, CT__N, IV_START = CT__N, IV_END, IV_OMITTED, IV_LATENCY, IV__N
};
#define COUNT_FIELDS							\
	[CT_SECONDS] = FX("seconds", SECS),			\
	[CT_MESSAGES] = F("messages", OUT_U64),				\
	[CT_BYTES] = F("bytes", OUT_U64),				\
	[CT_MESSAGES_PER_SECOND] = FX("messages_per_second", 1), \
	[CT_BITS_PER_SECOND] = FX("bits_per_second", 0),	\
	[CT_RESPONSES] = F("responses", OUT_U64),			\
	[CT_RESPONSE_BYTES] = F("response_bytes", OUT_U64),		\
	[CT_RESPONSES_PER_SECOND] = FX("responses_per_second", 1), \
	[CT_EAGAIN] = F("eagain", OUT_U64),				\
	[CT_ENOBUFS] = F("enobufs", OUT_U64),				\
	[CT_VERIFY_ERRORS] = F("verify_errors", OUT_U64)

static const struct out_field count_fields[CT__N] = { COUNT_FIELDS };
static const struct out_group count_group = OUT_GROUP("sender", count_fields);

static const struct out_field interval_fields[IV__N] = {
	COUNT_FIELDS,
	[IV_START] = FX("start", SECS),
	[IV_END] = FX("end", SECS),
	[IV_OMITTED] = F("omitted", OUT_BOOL),
	[IV_LATENCY] = { .key = "latency", .type = OUT_OBJECT, .sub = &lat_group },
};
static const struct out_group interval_group = OUT_GROUP("interval", interval_fields);

enum {
	ST_TEST, ST_SIZE, ST_RSIZE, ST_DEPTH, ST_SOCKETS, ST_THREADS, ST_PATHS, ST_KVER,
	ST_PATH_RULE, ST_DURATION, ST_OMIT, ST_WINDOW, ST_VERIFY, ST_REVERSE, ST_SCHED, ST_CLIENT,
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
	[ST_DURATION] = FX("duration", SECS),
	[ST_OMIT] = FX("omit", SECS),
	[ST_WINDOW] = F("window", OUT_U64),
	[ST_VERIFY] = F("verify", OUT_BOOL),
	[ST_REVERSE] = F("reverse", OUT_BOOL),
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
	[RX_SECONDS] = FX("seconds", SECS),
	[RX_MESSAGES] = F("messages", OUT_U64),
	[RX_BYTES] = F("bytes", OUT_U64),
	[RX_MESSAGES_PER_SECOND] = FX("messages_per_second", 1),
	[RX_BITS_PER_SECOND] = FX("bits_per_second", 0),
	[RX_RESPONSES_SENT] = F("responses_sent", OUT_U64),
	[RX_EAGAIN] = F("eagain", OUT_U64),
	[RX_ENOBUFS] = F("enobufs", OUT_U64),
	[RX_VERIFY_ERRORS] = F("verify_errors", OUT_U64),
};
static const struct out_group rx_group = OUT_GROUP("receiver", rx_fields);

enum { CPU_CLIENT, CPU_SERVER, CPU__N };
static const struct out_field cpu_fields[CPU__N] = {
	[CPU_CLIENT] = FX("client_percent", 1),
	[CPU_SERVER] = FX("server_percent", 1),
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

/* RDMA tests: the operations as the client's notifications told them */
enum {
	RD_SECONDS, RD_OPERATIONS, RD_BYTES, RD_OPS_PER_SECOND, RD_BITS_PER_SECOND, RD_FAILED,
	RD_FIRST_STATUS, RD_NEVER_NOTIFIED, RD_BAD_VALUES, RD_REGIONS, RD_SERVER_HASH,
	RD_EXPECTED_HASH, RD_VERIFIED, RD__N
};
static const struct out_field rdma_fields[RD__N] = {
	[RD_SECONDS] = FX("seconds", SECS),
	[RD_OPERATIONS] = F("operations", OUT_U64),
	[RD_BYTES] = F("bytes", OUT_U64),
	[RD_OPS_PER_SECOND] = FX("operations_per_second", 1),
	[RD_BITS_PER_SECOND] = FX("bits_per_second", 0),
	[RD_FAILED] = F("failed", OUT_U64),
	[RD_FIRST_STATUS] = F("first_failure", OUT_STR),
	[RD_NEVER_NOTIFIED] = F("never_notified", OUT_U64),
	[RD_BAD_VALUES] = F("bad_values", OUT_U64),
	[RD_REGIONS] = F("regions", OUT_U64),
	[RD_SERVER_HASH] = F("server_digest", OUT_STR),
	[RD_EXPECTED_HASH] = F("expected_digest", OUT_STR),
	[RD_VERIFIED] = F("verified", OUT_BOOL),
};
static const struct out_group rdma_group = OUT_GROUP("rdma", rdma_fields);

enum { EN_SENDER, EN_RECEIVER, EN_LATENCY, EN_CPU, EN_RETRANSMITS, EN_RDMA, EN__N };
static const struct out_field end_fields[EN__N] = {
	[EN_SENDER] = { .key = "sender", .type = OUT_OBJECT, .sub = &count_group },
	[EN_RECEIVER] = { .key = "receiver", .type = OUT_OBJECT, .sub = &rx_group },
	[EN_LATENCY] = { .key = "latency", .type = OUT_OBJECT, .sub = &lat_group },
	[EN_CPU] = { .key = "cpu", .type = OUT_OBJECT, .sub = &cpu_group },
	[EN_RETRANSMITS] = { .key = "retransmits", .type = OUT_OBJECT, .sub = &rt_group },
	[EN_RDMA] = { .key = "rdma", .type = OUT_OBJECT, .sub = &rdma_group },
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
#undef FX

/* Into the object |id| of the current group. */
/* |rdma|: an RDMA test's, from submit to notification */
static void lat_json(struct out *j, unsigned id, const struct hist *h, bool rdma)
{
	out_obj_open(j, id);
	out_u64(j, LT_SAMPLES, h->n);
	out_str(j, LT_RTT, rdma ? "submit to notification" : "full round trip");
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

static void print_lat(struct out *t, const struct hist *h)
{
	out_printf(t, "  rtt p50 %.1f p90 %.1f p99 %.1f p99.9 %.1f max %.1f us", us(hist_pct(h, 50)),
	       us(hist_pct(h, 90)), us(hist_pct(h, 99)), us(hist_pct(h, 99.9)), us(h->max));
}

/* An interval's text line, written at once (fflush): a line a second. */
static void print_interval(const struct perf_interval *iv, bool stream, bool rdma)
{
	double secs = iv->end - iv->start;
	struct out *t = out_new(stdout, OUT_TEXT, 0, 0);

	if (!t)
		return;
	out_printf(t, "[%6.2f-%6.2f s] ", iv->start, iv->end);
	if (stream) {
		out_printf(t, "%10.0f msg/s ", rate(iv->c.msgs, secs));
		print_bits(t, rate(iv->c.bytes, secs));
	} else if (rdma) {
		out_printf(t, "%10.0f op/s ", rate(iv->c.rmsgs, secs));
		print_bits(t, rate(iv->c.rbytes, secs));
		print_lat(t, &iv->lat);
	} else {
		out_printf(t, "%10.0f resp/s ", rate(iv->c.rmsgs, secs));
		print_lat(t, &iv->lat);
	}
	if (iv->c.eagain || iv->c.enobufs)
		out_printf(t, "  eagain %llu enobufs %llu", (unsigned long long)iv->c.eagain,
			   (unsigned long long)iv->c.enobufs);
	if (iv->c.verify_errors)
		out_printf(t, "  VERIFY ERRORS %llu", (unsigned long long)iv->c.verify_errors);
	out_printf(t, "%s\n", iv->omitted ? "  (omitted)" : "");
	out_free(t);
	fflush(stdout);
}

void perf_on_interval(void *ud, const struct perf_interval *iv)
{
	struct perf_run *rp = ud;
	const struct opts *o = rp->o;
	double secs = iv->end - iv->start;
	bool stream = o->p.test == PERF_STREAM;

	if (rp->plot && !iv->omitted)
		(void)plot_point(rp->plot, iv->start, iv->end,
				 rate(perf_test_rdma(o->p.test) ? iv->c.rbytes : iv->c.bytes, secs) * 8);

	if (o->json) {
		struct out *j = out_new(stdout, OUT_JSON, 0, 0);
		char *t;

		if (!j)
			return;
		out_begin(j, &interval_group);
		count_json(j, &iv->c, secs, stream);
		out_double(j, IV_START, iv->start);
		out_double(j, IV_END, iv->end);
		out_bool(j, IV_OMITTED, iv->omitted);
		if (!stream)
			lat_json(j, IV_LATENCY, &iv->lat, perf_test_rdma(o->p.test));
		t = out_take(j);
		out_list_add(&rp->intervals, t);
		free(t);
		out_free(j);
		return;
	}
	if (o->quiet)
		return;
	print_interval(iv, stream, perf_test_rdma(o->p.test));
}

void perf_print_start(const struct perf_run *run)
{
	const struct opts *o = run->o;
	const struct perf_params *p = &o->p;
	struct out *t = out_new(stdout, OUT_TEXT, 0, 0);

	if (!t)
		return;
	out_printf(t, "rdsperf %s -> %s: %s, %u byte%s%s, %u socket%s, %u thread%s, %s, "
	       "sched %s; client %s, server %s%s\n",
	       p->client_addr, o->host_s, perf_test_name(p->test), p->size,
	       p->size == 1 ? "" : "s",
	       p->test == PERF_STREAM ? ""
	       : perf_test_rdma(p->test) ? " an operation"
	       : p->rsize == p->size ? " each way"
				    : " requests",
	       p->sockets, p->sockets == 1 ? "" : "s", o->threads, o->threads == 1 ? "" : "s",
	       run->kernel         ? "kernel paths"
	       : p->paths == 1     ? "1 path"
	       : p->path_by_pair   ? "up to 8 paths, by port pair"
				   : "up to 8 paths, by sending port",
	       perf_sched_name(o->sched), perf_stack_name(run->kernel),
	       perf_stack_name(run->server_kernel), p->verify ? ", verified" : "");
	if (p->reverse)
		out_printf(t, "  reverse: the server sends, the client receives and counts\n");
	if (p->test == PERF_RR && p->rsize != p->size)
		out_printf(t, "  responses %u bytes, depth %u\n", p->rsize, p->depth);
	if (perf_test_rdma(p->test))
		out_printf(t, "  %u operation%s in flight per socket on the server's registered memory, "
			      "each notified; its digest checked at the end\n",
			   p->depth, p->depth == 1 ? "" : "s");
	if (p->buf)
		out_printf(t, "  SNDBUF and RCVBUF %u bytes at both ends\n", p->buf);
	if (!run->kernel && p->paths != 8)
		out_printf(t, "  librds advertises %u path%s\n", p->paths, p->paths == 1 ? "" : "s");
	out_free(t);
}

/* One end's summary line. */
static void print_side(struct out *t, const char *who, const char *end, double secs, uint64_t msgs,
		       uint64_t bytes, double cpu)
{
	out_printf(t, "%-8s%s %6.2f s %10.0f msg/s ", who, end, secs, rate(msgs, secs));
	print_bits(t, rate(bytes, secs));
	out_printf(t, "  %llu messages, cpu %.0f %%\n", (unsigned long long)msgs,
	       secs > 0 ? 100 * cpu / secs : 0);
}

static void hex(char *buf, size_t cap, uint64_t v)
{
	snprintf(buf, cap, "%016llx", (unsigned long long)v);
}

/* An RDMA test's summary: the operations, their latency, the check. */
static void print_rdma(struct out *t, const struct perf_run *run)
{
	const struct perf_client *c = run->c;
	const struct perf_rdma_out *m = &c->rdma;
	char a[24], b[24];

	out_printf(t, "%-9s %6.2f s %10.0f op/s ", perf_test_name(run->o->p.test), c->measured,
		   rate(c->total.rmsgs, c->measured));
	print_bits(t, rate(c->total.rbytes, c->measured));
	out_printf(t, "  %llu operations, cpu %.0f %% (client), %.0f %% (server)\n",
		   (unsigned long long)c->total.rmsgs,
		   c->measured > 0 ? 100 * c->cpu / c->measured : 0,
		   run->res->wall > 0 ? 100 * run->res->cpu / run->res->wall : 0);
	out_printf(t, "latency  ");
	print_lat(t, &c->lat);
	out_printf(t, " (submit to notification, %llu samples)\n", (unsigned long long)c->lat.n);
	if (m->failed || m->lost)
		out_printf(t, "failed: %llu (first %s), never notified: %llu\n",
			   (unsigned long long)m->failed, rio_rdma_status_name(m->first_status),
			   (unsigned long long)m->lost);
	hex(a, sizeof(a), run->res->region_hash);
	hex(b, sizeof(b), m->expect_hash);
	out_printf(t, "verify: %s (server memory digest %s, expected %s, %llu bad values)\n",
		   run->rdma_verified ? "ok" : "FAILED", run->res->has_hash ? a : "none", b,
		   (unsigned long long)m->bad_values);
}

static void rdma_json(struct out *j, const struct perf_run *run)
{
	const struct perf_client *c = run->c;
	const struct perf_rdma_out *m = &c->rdma;
	char a[24], b[24];

	hex(a, sizeof(a), run->res->region_hash);
	hex(b, sizeof(b), m->expect_hash);
	out_obj_open(j, EN_RDMA);
	out_double(j, RD_SECONDS, c->measured);
	out_u64(j, RD_OPERATIONS, c->total.rmsgs);
	out_u64(j, RD_BYTES, c->total.rbytes);
	out_double(j, RD_OPS_PER_SECOND, rate(c->total.rmsgs, c->measured));
	out_double(j, RD_BITS_PER_SECOND, rate(c->total.rbytes, c->measured) * 8);
	out_u64(j, RD_FAILED, m->failed);
	out_str(j, RD_FIRST_STATUS, m->failed ? rio_rdma_status_name(m->first_status) : NULL);
	out_u64(j, RD_NEVER_NOTIFIED, m->lost);
	out_u64(j, RD_BAD_VALUES, m->bad_values);
	out_u64(j, RD_REGIONS, m->regions);
	out_str(j, RD_SERVER_HASH, run->res->has_hash ? a : NULL);
	out_str(j, RD_EXPECTED_HASH, b);
	out_bool(j, RD_VERIFIED, run->rdma_verified);
	out_close(j);
}

void perf_print_end(const struct perf_run *run)
{
	const struct perf_client *c = run->c;
	const struct perf_result *res = run->res;

	bool rev = run->o->p.reverse;
	struct out *t = out_new(stdout, OUT_TEXT, 0, 0);

	if (!t)
		return;

	out_printf(t, "- - - - - - - - - - - - - - - - - - - - - - - - -\n");
	if (perf_test_rdma(run->o->p.test)) {
		print_rdma(t, run);
		out_free(t);
		return;
	}
	if (rev) {
		print_side(t, "sender", " (server)", res->wall, res->msgs, res->bytes, res->cpu);
		print_side(t, "receiver", " (client)", c->measured, c->total.msgs, c->total.bytes,
			   c->cpu);
	} else {
		print_side(t, "sender", "", c->measured, c->total.msgs, c->total.bytes, c->cpu);
		print_side(t, "receiver", "", res->wall, res->msgs, res->bytes, res->cpu);
	}
	if (run->o->p.test != PERF_STREAM) {
		out_printf(t, "responses          %10.0f /s      ", rate(c->total.rmsgs, c->measured));
		print_lat(t, &c->lat);
		out_printf(t, " (full round trip, %llu samples)\n", (unsigned long long)c->lat.n);
	}
	out_printf(t, "send errors: eagain %llu enobufs %llu (client), %llu %llu (server)\n",
	       (unsigned long long)c->total.eagain, (unsigned long long)c->total.enobufs,
	       (unsigned long long)res->eagain, (unsigned long long)res->enobufs);
	out_printf(t, "retransmits: ");
	if (run->rt_client >= 0)
		out_printf(t, "client librds %lld, ", (long long)run->rt_client);
	if (res->rds_retransmits >= 0)
		out_printf(t, "server librds %lld, ", (long long)res->rds_retransmits);
	if (run->rt_host >= 0)
		out_printf(t, "host TCP segments %lld", (long long)run->rt_host);
	out_printf(t, "\n");
	if (run->o->p.verify)
		out_printf(t, "verify: %llu errors at the client, %llu at the server\n",
		       (unsigned long long)c->total.verify_errors,
		       (unsigned long long)res->verify_errors);
	if (run->o->p.test != PERF_STREAM && c->lat.n)
		plot_hist_text(t, &c->lat, HIST_ROWS, HIST_WIDTH);
	out_free(t);
}

static void json_start(struct out *j, const struct perf_run *run)
{
	const struct opts *o = run->o;
	const struct perf_params *p = &o->p;

	out_obj_open(j, RUN_START);
	out_str(j, ST_TEST, perf_test_name(p->test));
	out_u64(j, ST_SIZE, p->size);
	if (p->test != PERF_STREAM) {
		out_u64(j, ST_RSIZE, p->rsize);
		out_u64(j, ST_DEPTH, p->depth);
	}
	out_u64(j, ST_SOCKETS, p->sockets);
	out_u64(j, ST_THREADS, o->threads);
	if (run->kernel) {
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
	out_bool(j, ST_REVERSE, p->reverse);
	out_str(j, ST_SCHED, perf_sched_name(o->sched));
	out_str(j, ST_CLIENT, p->client_addr);
	out_str(j, ST_SERVER, o->host_s);
	out_str(j, ST_CLIENT_STACK, perf_stack_name(run->kernel));
	out_str(j, ST_SERVER_STACK, perf_stack_name(run->server_kernel));
	out_close(j);
}

/* A count, or null where it could not be read. */
static void i64_or_null(struct out *j, unsigned id, int64_t v)
{
	if (v < 0)
		out_null(j, id);
	else
		out_i64(j, id, v);
}

static void receiver_json(struct out *j, const struct perf_result *res)
{
	out_double(j, RX_SECONDS, res->wall);
	out_u64(j, RX_MESSAGES, res->msgs);
	out_u64(j, RX_BYTES, res->bytes);
	out_double(j, RX_MESSAGES_PER_SECOND, rate(res->msgs, res->wall));
	out_double(j, RX_BITS_PER_SECOND, rate(res->bytes, res->wall) * 8);
	out_u64(j, RX_RESPONSES_SENT, res->sent);
	out_u64(j, RX_EAGAIN, res->eagain);
	out_u64(j, RX_ENOBUFS, res->enobufs);
	out_u64(j, RX_VERIFY_ERRORS, res->verify_errors);
}

static void json_end(struct out *j, const struct perf_run *run)
{
	const struct perf_client *c = run->c;
	const struct perf_result *res = run->res;
	bool stream = run->o->p.test == PERF_STREAM;

	out_obj_open(j, RUN_END);
	out_obj_open(j, EN_SENDER);
	if (run->o->p.reverse) {
		/* the server sent; what it counted comes in its result */
		struct perf_count sc = { .msgs = res->msgs, .bytes = res->bytes,
					 .eagain = res->eagain, .enobufs = res->enobufs };

		count_json(j, &sc, res->wall, stream);
	} else {
		count_json(j, &c->total, c->measured, stream);
	}
	out_close(j);
	out_obj_open(j, EN_RECEIVER);
	if (run->o->p.reverse) {
		struct perf_result rr = { .msgs = c->total.msgs, .bytes = c->total.bytes,
					  .verify_errors = c->total.verify_errors,
					  .wall = c->measured };

		receiver_json(j, &rr);
	} else {
		receiver_json(j, res);
	}
	out_close(j);
	if (!stream)
		lat_json(j, EN_LATENCY, &c->lat, perf_test_rdma(run->o->p.test));
	out_obj_open(j, EN_CPU);
	out_double(j, CPU_CLIENT, c->measured > 0 ? 100 * c->cpu / c->measured : 0);
	out_double(j, CPU_SERVER, res->wall > 0 ? 100 * res->cpu / res->wall : 0);
	out_close(j);
	out_obj_open(j, EN_RETRANSMITS);
	i64_or_null(j, RT_CLIENT_RDS, run->rt_client);
	i64_or_null(j, RT_SERVER_RDS, res->rds_retransmits);
	i64_or_null(j, RT_HOST_TCP_SEGMENTS, run->rt_host);
	out_close(j);
	if (perf_test_rdma(run->o->p.test))
		rdma_json(j, run);
	out_close(j);
}

int perf_json_run(struct perf_run *run, struct out_list *runs)
{
	struct out *j = out_new(stdout, OUT_JSON, 0, 0);
	char *t;

	if (!j)
		return -1;
	out_begin(j, &run_group);
	json_start(j, run);
	out_json(j, RUN_INTERVALS, out_list_text(&run->intervals));
	out_list_free(&run->intervals);
	json_end(j, run);
	out_str(j, RUN_ERROR, run->err < 0 ? rdsu_strerror(run->err) : NULL);
	t = out_take(j);
	out_list_add(runs, t);
	free(t);
	out_free(j);
	return 0;
}

void perf_json_doc(struct out_list *runs)
{
	struct out *doc = out_new(stdout, OUT_JSON, 0, OUT_JSON_PRETTY | OUT_JSON_SPACED);

	if (!doc) {
		out_list_free(runs);
		return;
	}
	out_begin(doc, &doc_group);
	out_u64(doc, DOC_RDSPERF, CTL_VERSION);
	out_str(doc, DOC_VERSION, RDSTK_VERSION);
	out_json(doc, DOC_RUNS, out_list_text(runs));
	out_list_free(runs);
	out_end(doc);
	out_free(doc);
}
