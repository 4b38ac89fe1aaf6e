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
#include "line.h"
#include "out.h"
#include "out_opt.h"
#include "plot.h"
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
	struct out_opt oo;          /* -j (one JSON document at the end), -q (no interval lines) */
	bool server, once, json, quiet;
	const char *host_s;
	struct rdsu_addr host, src;     /* client: src is -I's, or the route's */
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
	const char *logfile;    /* --logfile: stdout and stderr appended there */
	const char *plot;       /* --plot: the SVG written at the end */
};


/* The control connection (in.fd) and its lines' buffer. */
struct ctl {
	struct line_in in;
	char buf[CTL_MAX_LINE];
};

/* One test as the output shows it. */
struct perf_run {
	const struct opts *o;
	bool kernel, server_kernel;     /* each end's stack */
	struct perf_client *c;          /* the client's side, counted */
	struct perf_result *res;        /* the server's side */
	int64_t rt_client, rt_host;     /* retransmits during the test; -1 unknown */
	int err;                        /* what stopped the test, or 0 */
	bool rdma_verified;             /* RDMA tests: the server's memory as expected */
	struct out_list intervals;      /* --json: perf_on_interval's */
	struct plot_series *plot;       /* --plot: this run's, or NULL */
};


/* main.c */
extern volatile int perf_stop;

/* opts.c */
/* perf_parse_args() - rdsperf's command line into |o| by |ap| (perf_parse_opt), its
 * options made from rdsperf's one table (optdecl_parse). Return: argp_parse's. */
error_t perf_parse_args(const struct argp *ap, int argc, char **argv, struct opts *o);
error_t perf_parse_opt(int key, char *arg, struct argp_state *st);

/* ctl_io.c */
int ctl_send_fd(int fd, char *line);
int ctl_send(struct ctl *c, char *line);
int ctl_recv(struct ctl *c, char *out, int timeout_ms);
int ctl_connect(const struct rdsu_addr *a, uint16_t port);
void ctl_init(struct ctl *c, int fd);

/* output.c */
void perf_on_interval(void *ud, const struct perf_interval *iv);
/* The test's first lines (text). */
void perf_print_start(const struct perf_run *run);
/* The summary after the test (text). */
void perf_print_end(const struct perf_run *run);
/* The test as an element of |runs|, taking run->intervals. Return: 0; -1
 * (no memory). */
int perf_json_run(struct perf_run *run, struct out_list *runs);
/* The document with every run (taken), on stdout. */
void perf_json_doc(struct out_list *runs);

/* client.c */
int64_t perf_librds_retransmits(struct rio *r);
const char *perf_stack_name(bool kernel);
int perf_run_client(struct opts *o);

/* server.c */
int perf_run_server(struct opts *o);

#endif
