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

#include "top.h"

struct top_source {
	const char *name;
	/* open() - set *state. Return: 0; a negative errno with a sentence
	 * for the user in |err|. */
	int (*open)(void **state, char *err, size_t errlen);
	/* snapshot() - fill the empty |out|, taken at monotonic |now_ns|.
	 * Return: 0; a negative errno with |err| set (|out| may be partly
	 * filled and must be finished with top_snap_fini()). */
	int (*snapshot)(void *state, uint64_t now_ns, struct top_snap *out, char *err,
			size_t errlen);
	void (*close)(void *state);
};

/* The local kernel's RDS, through AF_RDS getsockopt(RDS_INFO_*) (ksource.c). */
extern const struct top_source top_source_kernel;

#endif /* TOP_SOURCE_H */
