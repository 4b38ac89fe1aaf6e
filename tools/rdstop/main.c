// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rdstop - a top for RDS: takes a snapshot of an RDS stack every interval
 * from a source (source.h), computes rates against the previous one
 * (model.c) and shows them in the interactive screen (ui.c) or, in batch
 * mode, prints each as plain text (render.c), like top -b.
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
#include <unistd.h>

#include "parse.h"
#include "render.h"
#include "rio.h"
#include "source.h"
#include "top.h"
#include "ui.h"

const char *argp_program_version = "rdstop " RDSTK_VERSION;

struct opts {
	const struct top_source *src;
	struct top_source_args args;
	bool batch, list, json;
	uint64_t count;               /* 0 = until interrupted */
	double delay;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

enum { O_KERNEL = 0x100, O_LIBRDS, O_LIST, O_JSON };

static const struct argp_option options[] = {
	{ "batch", 'b', NULL, 0, "print plain-text snapshots to standard output (like top -b)", 0 },
	{ "json", O_JSON, NULL, 0, "batch mode: each snapshot as one JSON object on a line", 0 },
	{ "iterations", 'n', "COUNT", 0, "stop after COUNT snapshots (default: until interrupted)", 0 },
	{ "delay", 'd', "SECONDS", 0, "wait SECONDS between snapshots (default 1; fractions allowed)", 0 },
	{ "kernel", O_KERNEL, NULL, 0, "read the local kernel's RDS (AF_RDS getsockopt RDS_INFO_*)", 0 },
	{ "read", 'r', "FILE", 0, "replay a capture file through rdsdump's engine, one delay of "
	  "capture time per snapshot", 0 },
	{ "interface", 'i', "IFACE", 0, "capture live on IFACE through rdsdump's engine", 0 },
	{ "librds", O_LIBRDS, "PID|PATH", 0, "watch a librds process that publishes its monitor "
	  "state (by process id, or its socket's path)", 0 },
	{ "list", O_LIST, NULL, 0, "list the librds processes that publish their monitor state, "
	  "and exit", 0 },
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
		if (parse_count(arg, 1, UINT64_MAX, &o->count) < 0)
			argp_error(st, "bad count '%s': a number above 0", arg);
		return 0;
	case 'd':
		if (parse_seconds(arg, 0.01, 86400, &o->delay) < 0)
			argp_error(st, "bad delay '%s': seconds, at least 0.01", arg);
		return 0;
	case O_JSON:
		o->json = true;
		return 0;
	case O_LIST:
		o->list = true;
		return 0;
	case O_KERNEL:
	case O_LIBRDS:
	case 'r':
	case 'i':
		if (o->src)
			argp_error(st, "one source only: --kernel, --librds, -r FILE or -i IFACE");
		o->src = key == O_KERNEL ? &top_source_kernel :
			 key == O_LIBRDS ? &top_source_librds : &top_source_capture;
		if (key == 'r')
			o->args.file = arg;
		else if (key == 'i')
			o->args.iface = arg;
		else if (key == O_LIBRDS)
			o->args.librds = arg;
		return 0;
	case ARGP_KEY_ARG:
		argp_error(st, "unexpected argument '%s'", arg);
		return 0;
	case ARGP_KEY_END:
		if (!o->src && !o->list)
			argp_error(st, "a source is needed: --kernel, --librds, -r FILE or -i IFACE");
		if (o->json && !o->batch)
			argp_error(st, "--json is for batch mode: add -b");
		o->args.step_ns = (uint64_t)(o->delay * 1e9 + 0.5);
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
		"Exit status: 0 after the last snapshot or an interrupt, 1 when the watched "
		"librds process went away (batch mode), 2 on errors.",
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
	if (o.list)
		return top_librds_list(stdout);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	if (!o.batch && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		fprintf(stderr, "rdstop: the interactive screen needs a terminal: use -b\n");
		return 2;
	}
	e = o.src->open(&state, &o.args, err, sizeof(err));
	if (e < 0) {
		fprintf(stderr, "rdstop: %s\n", err);
		return 2;
	}
	if (!o.batch) {
		rc = top_ui_run(o.src, state, o.delay, o.count, err, sizeof(err));
		o.src->close(state);
		if (rc < 0) {
			fprintf(stderr, "rdstop: %s\n", err);
			return 2;
		}
		return 0;
	}
	top_snap_init(&prev);
	for (uint64_t i = 0; !stop && (!o.count || i < o.count); i++) {
		/* a replay runs on the capture's clock: nothing to wait for */
		if (i && !prev.replay) {
			pause_for(o.delay);
			if (stop)
				break;
		}
		top_snap_init(&cur);
		e = o.src->snapshot(state, now_ns(), &cur, err, sizeof(err));
		if (e < 0) {
			fprintf(stderr, "rdstop: %s\n", err);
			top_snap_fini(&cur);
			rc = e == -ESRCH ? 1 : 2;
			break;
		}
		if (top_rates_compute(&rates, i ? &prev : NULL, &cur) < 0) {
			fprintf(stderr, "rdstop: out of memory\n");
			top_snap_fini(&cur);
			rc = 2;
			break;
		}
		if (o.json) {
			top_print_json(stdout, &cur, i ? &rates : NULL);
		} else {
			if (i)
				printf("\n");
			top_print_text(stdout, &cur, i ? &rates : NULL);
		}
		fflush(stdout);
		top_rates_fini(&rates);
		top_snap_fini(&prev);
		prev = cur;
		if (cur.ended)
			break;
	}
	top_snap_fini(&prev);
	o.src->close(state);
	return rc;
}
