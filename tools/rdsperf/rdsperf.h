// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rdsperf.h - what rdsperf's files share: the options (opts.c), the control
 * connection's I/O (ctl_io.c), the output (output.c), the client (client.c)
 * and the server (server.c). Internal to the tool.
 */
#ifndef RDS_PERF_RDSPERF_H
#define RDS_PERF_RDSPERF_H

#include <argp.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "ctl.h"
#include "engine.h"
#include "hist.h"
#include "out.h"
#include "rio.h"
#include "rio_opt.h"

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


struct ctl {
	int fd;
	char buf[CTL_MAX_LINE + 1];
	size_t n;
};

struct report {
	const struct opts *o;
	struct json_object *intervals; /* --json */
};

enum {
	LT_SAMPLES, LT_RTT, LT_UNIT, LT_MIN, LT_MEAN, LT_P50, LT_P90, LT_P99, LT_P99_9,
	LT_MAX, LT__N
};
enum {
	CT_SECONDS, CT_MESSAGES, CT_BYTES, CT_MESSAGES_PER_SECOND, CT_BITS_PER_SECOND,
	CT_RESPONSES, CT_RESPONSE_BYTES, CT_RESPONSES_PER_SECOND, CT_EAGAIN, CT_ENOBUFS,
	CT_VERIFY_ERRORS, CT__N, IV_START = CT__N, IV_END, IV_OMITTED, IV_LATENCY, IV__N
};
enum {
	ST_TEST, ST_SIZE, ST_RSIZE, ST_DEPTH, ST_SOCKETS, ST_THREADS, ST_PATHS, ST_KVER,
	ST_PATH_RULE, ST_DURATION, ST_OMIT, ST_WINDOW, ST_VERIFY, ST_SCHED, ST_CLIENT,
	ST_SERVER, ST_CLIENT_STACK, ST_SERVER_STACK, ST__N
};
enum {
	RX_SECONDS, RX_MESSAGES, RX_BYTES, RX_MESSAGES_PER_SECOND, RX_BITS_PER_SECOND,
	RX_RESPONSES_SENT, RX_EAGAIN, RX_ENOBUFS, RX_VERIFY_ERRORS, RX__N
};
enum { CPU_CLIENT, CPU_SERVER, CPU__N };
enum { RT_CLIENT_RDS, RT_SERVER_RDS, RT_HOST_TCP_SEGMENTS, RT__N };
enum { EN_SENDER, EN_RECEIVER, EN_LATENCY, EN_CPU, EN_RETRANSMITS, EN__N };
enum { RUN_START, RUN_INTERVALS, RUN_END, RUN_ERROR, RUN__N };
enum { DOC_RDSPERF, DOC_VERSION, DOC_RUNS, DOC__N };

/* main.c */
extern volatile int perf_stop;

/* opts.c */
extern const struct argp_option perf_options[];
error_t perf_parse_opt(int key, char *arg, struct argp_state *st);

/* ctl_io.c */
int ctl_send_fd(int fd, char *line);
int ctl_send(struct ctl *c, char *line);
int ctl_recv(struct ctl *c, char *out, int timeout_ms);
int ctl_connect(const struct rdsu_addr *a, uint16_t port);

/* output.c */
double perf_rate(uint64_t n, double secs);
void perf_print_bits(double bytes_per_s);
double perf_us(uint64_t ns);
extern const struct out_group perf_run_group;
extern const struct out_group perf_doc_group;
void perf_lat_json(struct out *j, unsigned id, const struct hist *h);
void perf_count_json(struct out *j, const struct perf_count *c, double secs, bool stream);
void perf_print_lat(const struct hist *h);
void perf_on_interval(void *ud, const struct perf_interval *iv);

/* client.c */
int64_t perf_librds_retransmits(struct rio *r);
const char *perf_stack_name(bool kernel);
int perf_run_client(struct opts *o);

/* server.c */
int perf_run_server(struct opts *o);

#endif
