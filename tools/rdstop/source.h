/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * source.h - where rdstop's snapshots come from. A source is a small ops
 * table; main.c picks one and calls snapshot() once per interval, so the
 * model and renderers never know which it was.
 */
#ifndef TOP_SOURCE_H
#define TOP_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "top.h"

/* What a source is opened with; each uses what it needs. */
struct top_source_args {
	const char *file;              /* -r: a capture file */
	const char *iface;             /* -i: an interface to capture on */
	const char *librds;            /* --librds: a process id or a socket path */
	uint64_t step_ns;              /* the delay: a replay's step of capture time */
};

struct top_source {
	const char *name;
	/* open() - set *state. Return: 0; a negative errno with a sentence
	 * for the user in |err|. */
	int (*open)(void **state, const struct top_source_args *a, char *err,
		    size_t errlen);
	/* snapshot() - fill the empty |out|, taken at monotonic |now_ns|.
	 * Return: 0; a negative errno with |err| set (|out| may be partly
	 * filled and must be finished with top_snap_fini()). */
	int (*snapshot)(void *state, uint64_t now_ns, struct top_snap *out, char *err,
			size_t errlen);
	void (*close)(void *state);
	/* set_step() - a new delay, for a source that replays on its own
	 * clock; NULL for others. */
	void (*set_step)(void *state, uint64_t step_ns);
};

/* The local kernel's RDS, through AF_RDS getsockopt(RDS_INFO_*) (ksource.c). */
extern const struct top_source top_source_kernel;
/* A capture through rdsdump's engine, from a file or an interface
 * (csource.c, cap.c). */
extern const struct top_source top_source_capture;

/* A librds process's published monitor state (lsource.c, lmon.c); a
 * snapshot fails with -ESRCH once the process is gone. */
extern const struct top_source top_source_librds;

/* top_librds_list() - the processes that publish, one line each, on |f|.
 * Return: 0. */
int top_librds_list(FILE *f);

#endif /* TOP_SOURCE_H */
