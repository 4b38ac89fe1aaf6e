// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rdstop - a top for RDS. Batch mode: takes a snapshot of an RDS stack
 * every interval from a source (source.h), computes rates against the
 * previous one (model.c) and prints each as plain text (render.c), like
 * top -b.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "render.h"
#include "rio.h"
#include "source.h"
#include "top.h"

const char *argp_program_version = "rdstop " RDSTK_VERSION;

struct opts {
	const struct top_source *src;
	bool batch;
	unsigned long long count;      /* 0 = until interrupted */
	double delay;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

enum { O_KERNEL = 0x100 };

static const struct argp_option options[] = {
	{ "batch", 'b', NULL, 0, "print plain-text snapshots to standard output (like top -b)", 0 },
	{ "iterations", 'n', "COUNT", 0, "stop after COUNT snapshots (default: until interrupted)", 0 },
	{ "delay", 'd', "SECONDS", 0, "wait SECONDS between snapshots (default 1; fractions allowed)", 0 },
	{ "kernel", O_KERNEL, NULL, 0, "read the local kernel's RDS (AF_RDS getsockopt RDS_INFO_*)", 0 },
	{ 0 }
};

static error_t parse(int key, char *arg, struct argp_state *st)
{
	struct opts *o = st->input;

	switch (key) {
	case 'b':
		o->batch = true;
		return 0;
	case 'n':
		if (rio_parse_count(arg, 1, ULLONG_MAX, &o->count) < 0)
			argp_error(st, "bad count '%s': a number above 0", arg);
		return 0;
	case 'd':
		if (rio_parse_seconds(arg, 0.01, 86400, &o->delay) < 0)
			argp_error(st, "bad delay '%s': seconds, at least 0.01", arg);
		return 0;
	case O_KERNEL:
		o->src = &top_source_kernel;
		return 0;
	case ARGP_KEY_ARG:
		argp_error(st, "unexpected argument '%s'", arg);
		return 0;
	case ARGP_KEY_END:
		if (!o->src)
			argp_error(st, "a source is needed: --kernel");
		if (!o->batch)
			argp_error(st, "only batch mode is available: -b");
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Sleep |seconds| unless a signal asks to stop first. */
static void pause_for(double seconds)
{
	struct timespec ts = {
		.tv_sec = (time_t)seconds,
		.tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9),
	};

	while (!stop && nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int main(int argc, char **argv)
{
	static struct opts o = { .delay = 1 };
	static const struct argp ap = {
		options, parse, NULL,
		"Show an RDS stack's connections, paths, sockets, queues and counters, "
		"with rates between snapshots.\v"
		"Exit status: 0 after the last snapshot or an interrupt, 2 on errors.",
		NULL, NULL, NULL
	};
	struct top_snap prev, cur;
	struct top_rates rates;
	void *state = NULL;
	char err[256] = "";
	int rc = 0, e;

	argp_err_exit_status = 2;
	if (argp_parse(&ap, argc, argv, 0, NULL, &o) != 0)
		return 2;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	e = o.src->open(&state, err, sizeof(err));
	if (e < 0) {
		fprintf(stderr, "rdstop: %s\n", err);
		return 2;
	}
	top_snap_init(&prev);
	for (unsigned long long i = 0; !stop && (!o.count || i < o.count); i++) {
		if (i) {
			pause_for(o.delay);
			if (stop)
				break;
		}
		top_snap_init(&cur);
		e = o.src->snapshot(state, now_ns(), &cur, err, sizeof(err));
		if (e < 0) {
			fprintf(stderr, "rdstop: %s\n", err);
			top_snap_fini(&cur);
			rc = 2;
			break;
		}
		if (top_rates_compute(&rates, i ? &prev : NULL, &cur) < 0) {
			fprintf(stderr, "rdstop: out of memory\n");
			top_snap_fini(&cur);
			rc = 2;
			break;
		}
		if (i)
			printf("\n");
		top_print_text(stdout, &cur, i ? &rates : NULL);
		fflush(stdout);
		top_rates_fini(&rates);
		top_snap_fini(&prev);
		prev = cur;
	}
	top_snap_fini(&prev);
	o.src->close(state);
	return rc;
}
