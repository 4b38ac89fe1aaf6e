/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * prom.h - rdstop's metrics for Prometheus: one table describes every
 * metric (name, type, unit, labels, HELP), one writer renders a snapshot
 * through it in the Prometheus text format or in OpenMetrics. Pure: the
 * HTTP server (prom_http.c) and the textfile writer (main.c) do the I/O.
 * The metric names are listed in docs/monitoring.md and the man page.
 */
#ifndef TOP_PROM_H
#define TOP_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "top.h"

/* The prefix of every metric: AF_RDS's stack, which no other exporter uses
 * (rds_ is Amazon RDS's). */
#define PROM_PREFIX "afrds_"

/* Connections with series of their own by default; the rest are summed
 * into one set labelled peer="other". */
#define PROM_TOP_DEFAULT 100

enum prom_fmt {
	PROM_FMT_TEXT = 0,             /* text/plain; version=0.0.4 */
	PROM_FMT_OPENMETRICS,          /* application/openmetrics-text; version=1.0.0 */
};

enum prom_type {
	PROM_GAUGE = 0,
	PROM_COUNTER,
	PROM_INFO,
};

/* Which series a metric has: what its labels are drawn from. */
enum prom_scope {
	PROM_S_STACK = 0,              /* one series, no labels */
	PROM_S_INFO,                   /* version, source, kernel */
	PROM_S_COUNTER,                /* one metric per stack counter, named by it */
	PROM_S_CONN,                   /* local, peer, transport, tos */
	PROM_S_PATH,                   /* local, peer, transport, tos, path */
	PROM_S_GROUP,                  /* group: a port group, port % 64 */
	PROM_S_STATE,                  /* state: connected, connecting, down */
	PROM_S_IB,                     /* local, peer, tos, device, port, qpn: an IB
					* connection's queue pair (RDMA netlink) */
	PROM_S_IBPORT,                 /* device, port */
	PROM_S_IBRES,                  /* device, kind: a resource summary line */
};

/* prom_list() - every metric of the table, one line each: its name as
 * scraped, type, labels and HELP (--metrics); the stack counters follow
 * as the families a source may give. */
void prom_list(FILE *f);

/* prom_counter_help() - what the stack counter |name| counts (the kernel's
 * RDS_INFO_COUNTERS, librds's rdsu_stat names), NULL if not known;
 * *gauge set when it is a level, not a count. */
const char *prom_counter_help(const char *name, bool *gauge);

/* The exporter's own state, which the writer renders as afrds_exporter_*. */
struct prom_self {
	const char *version;           /* rdstop's */
	const char *kernel;            /* uname -r, or NULL */
	bool up;                       /* the last snapshot worked */
	uint64_t snapshots, errors;    /* snapshots taken; of them failed */
	double collect_seconds;        /* the last snapshot's read and render */
	uint64_t scrapes;              /* HTTP requests for /metrics */
	uint64_t http_errors;          /* HTTP requests refused */
	unsigned top;                  /* connections with series of their own */
};

/*
 * prom_write() - the metrics of |s| (NULL: none known, only the exporter's
 * own) in |fmt| on |f|. Return: the number of samples written.
 */
size_t prom_write(FILE *f, const struct top_snap *s, const struct prom_self *self,
		  enum prom_fmt fmt);

/* prom_content_type() - the Content-Type of |fmt|. */
const char *prom_content_type(enum prom_fmt fmt);

/* prom_accept_fmt() - the format an Accept header (NULL: none) asks for. */
enum prom_fmt prom_accept_fmt(const char *accept);

#endif /* TOP_PROM_H */
