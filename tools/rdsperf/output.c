// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * output.c - rdsperf's output: the interval lines, the summary and the JSON
 * document.
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

/* ------------------------------------------------------------------------
 * Output: the interval lines as they happen; at the end a summary, or the
 * JSON document, both from the same numbers.
 */

double perf_rate(uint64_t n, double secs)
{
	return secs > 0 ? (double)n / secs : 0;
}

void perf_print_bits(double bytes_per_s)
{
	double b = bytes_per_s * 8;

	if (b >= 1e9)
		printf("%7.2f Gbit/s", b / 1e9);
	else
		printf("%7.2f Mbit/s", b / 1e6);
}

double perf_us(uint64_t ns)
{
	return (double)ns / 1e3;
}

/*
 * The --json document's fields (docs/man/rdsperf.1.md), one table per
 * object, JSON only: the text lines are iperf-style sentences.
 */
#define F(k, t) { .key = (k), .type = (t) }

static const struct out_field lat_fields[LT__N] = {
	[LT_SAMPLES] = F("samples", OUT_U64), [LT_RTT] = F("rtt", OUT_STR),
	[LT_UNIT] = F("unit", OUT_STR),       [LT_MIN] = F("min", OUT_DOUBLE),
	[LT_MEAN] = F("mean", OUT_DOUBLE),    [LT_P50] = F("p50", OUT_DOUBLE),
	[LT_P90] = F("p90", OUT_DOUBLE),      [LT_P99] = F("p99", OUT_DOUBLE),
	[LT_P99_9] = F("p99_9", OUT_DOUBLE),  [LT_MAX] = F("max", OUT_DOUBLE),
};
static const struct out_group lat_group = OUT_GROUP("latency", lat_fields);

/* An interval's counts, and the sender's totals (the counts alone). */
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

static const struct out_field cpu_fields[CPU__N] = {
	[CPU_CLIENT] = F("client_percent", OUT_DOUBLE),
	[CPU_SERVER] = F("server_percent", OUT_DOUBLE),
};
static const struct out_group cpu_group = OUT_GROUP("cpu", cpu_fields);

/* null where a count could not be read */
static const struct out_field rt_fields[RT__N] = {
	[RT_CLIENT_RDS] = F("client_rds", OUT_I64),
	[RT_SERVER_RDS] = F("server_rds", OUT_I64),
	[RT_HOST_TCP_SEGMENTS] = F("host_tcp_segments", OUT_I64),
};
static const struct out_group rt_group = OUT_GROUP("retransmits", rt_fields);

static const struct out_field end_fields[EN__N] = {
	[EN_SENDER] = { .key = "sender", .type = OUT_OBJECT, .sub = &count_group },
	[EN_RECEIVER] = { .key = "receiver", .type = OUT_OBJECT, .sub = &rx_group },
	[EN_LATENCY] = { .key = "latency", .type = OUT_OBJECT, .sub = &lat_group },
	[EN_CPU] = { .key = "cpu", .type = OUT_OBJECT, .sub = &cpu_group },
	[EN_RETRANSMITS] = { .key = "retransmits", .type = OUT_OBJECT, .sub = &rt_group },
};
static const struct out_group end_group = OUT_GROUP("end", end_fields);

/* One run, an element of the document's "runs". */
static const struct out_field run_fields[RUN__N] = {
	[RUN_START] = { .key = "start", .type = OUT_OBJECT, .sub = &start_group },
	[RUN_INTERVALS] = { .key = "intervals", .type = OUT_ARRAY, .sub = &interval_group },
	[RUN_END] = { .key = "end", .type = OUT_OBJECT, .sub = &end_group },
	[RUN_ERROR] = F("error", OUT_STR),
};
const struct out_group perf_run_group = OUT_GROUP("run", run_fields);

static const struct out_field doc_fields[DOC__N] = {
	[DOC_RDSPERF] = F("rdsperf", OUT_U64),
	[DOC_VERSION] = F("version", OUT_STR),
	[DOC_RUNS] = { .key = "runs", .type = OUT_ARRAY, .sub = &perf_run_group },
};
const struct out_group perf_doc_group = OUT_GROUP("rdsperf", doc_fields);

#undef F

/* Into the object |id| of the current group. */
void perf_lat_json(struct out *j, unsigned id, const struct hist *h)
{
	out_obj_open(j, id);
	out_u64(j, LT_SAMPLES, h->n);
	out_str(j, LT_RTT, "full round trip");
	out_str(j, LT_UNIT, "us");
	out_double(j, LT_MIN, perf_us(h->min));
	out_double(j, LT_MEAN, hist_mean(h) / 1e3);
	out_double(j, LT_P50, perf_us(hist_pct(h, 50)));
	out_double(j, LT_P90, perf_us(hist_pct(h, 90)));
	out_double(j, LT_P99, perf_us(hist_pct(h, 99)));
	out_double(j, LT_P99_9, perf_us(hist_pct(h, 99.9)));
	out_double(j, LT_MAX, perf_us(h->max));
	out_close(j);
}

/* The counts into the current object (an interval's or the sender's). */
void perf_count_json(struct out *j, const struct perf_count *c, double secs, bool stream)
{
	out_double(j, CT_SECONDS, secs);
	out_u64(j, CT_MESSAGES, c->msgs);
	out_u64(j, CT_BYTES, c->bytes);
	out_double(j, CT_MESSAGES_PER_SECOND, perf_rate(c->msgs, secs));
	out_double(j, CT_BITS_PER_SECOND, perf_rate(c->bytes, secs) * 8);
	if (!stream) {
		out_u64(j, CT_RESPONSES, c->rmsgs);
		out_u64(j, CT_RESPONSE_BYTES, c->rbytes);
		out_double(j, CT_RESPONSES_PER_SECOND, perf_rate(c->rmsgs, secs));
	}
	out_u64(j, CT_EAGAIN, c->eagain);
	out_u64(j, CT_ENOBUFS, c->enobufs);
	out_u64(j, CT_VERIFY_ERRORS, c->verify_errors);
}

void perf_print_lat(const struct hist *h)
{
	printf("  rtt p50 %.1f p90 %.1f p99 %.1f p99.9 %.1f max %.1f us", perf_us(hist_pct(h, 50)),
	       perf_us(hist_pct(h, 90)), perf_us(hist_pct(h, 99)), perf_us(hist_pct(h, 99.9)), perf_us(h->max));
}

void perf_on_interval(void *ud, const struct perf_interval *iv)
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
		perf_count_json(j, &iv->c, secs, stream);
		out_double(j, IV_START, iv->start);
		out_double(j, IV_END, iv->end);
		out_bool(j, IV_OMITTED, iv->omitted);
		if (!stream)
			perf_lat_json(j, IV_LATENCY, &iv->lat);
		json_object_array_add(rp->intervals, out_take(j));
		out_fini(j);
		free(j);
		return;
	}
	if (o->quiet)
		return;
	printf("[%6.2f-%6.2f s] ", iv->start, iv->end);
	if (stream) {
		printf("%10.0f msg/s ", perf_rate(iv->c.msgs, secs));
		perf_print_bits(perf_rate(iv->c.bytes, secs));
	} else {
		printf("%10.0f resp/s ", perf_rate(iv->c.rmsgs, secs));
		perf_print_lat(&iv->lat);
	}
	if (iv->c.eagain || iv->c.enobufs)
		printf("  eagain %llu enobufs %llu", (unsigned long long)iv->c.eagain,
		       (unsigned long long)iv->c.enobufs);
	if (iv->c.verify_errors)
		printf("  VERIFY ERRORS %llu", (unsigned long long)iv->c.verify_errors);
	printf("%s\n", iv->omitted ? "  (omitted)" : "");
	fflush(stdout);
}
