/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * lmon.h - the librds source's pure half: a snapshot a librds process
 * published on its monitor socket (rdsu_io_monitor(), libwire's
 * wire_mon_*) becomes a top_snap; successive snapshots' congestion maps
 * are compared into the time line of map updates. No I/O: lsource.c
 * reads the socket.
 */
#ifndef TOP_LMON_H
#define TOP_LMON_H

#include <stddef.h>
#include <stdint.h>

#include "top.h"

/* Map updates kept for the time line; older ones are counted, not kept. */
#define TOP_LMON_EVENTS 1024

struct top_lmon;

/* What the PROC record said. */
struct top_lmon_proc {
	uint32_t pid;
	char name[32];
	bool whole;                    /* the END record came: nothing was cut */
};

/* top_lmon_new() - Return: 0; -ENOMEM. */
int top_lmon_new(struct top_lmon **out);
void top_lmon_free(struct top_lmon *l);

/*
 * top_lmon_decode() - the |len| bytes of a snapshot's body into the empty
 * |out|, taken at |now_ns| on rdstop's clock; *proc says who published it.
 * Records of unknown types are skipped; a body that does not decode is
 * refused whole.
 * Return: 0; -EPROTO with a sentence in |err| (|out| may be partly filled);
 * -ENOMEM.
 */
int top_lmon_decode(struct top_lmon *l, const uint8_t *body, size_t len, uint64_t now_ns,
		    struct top_snap *out, struct top_lmon_proc *proc, char *err,
		    size_t errlen);

#endif /* TOP_LMON_H */
