/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * render.h - rdsdump: records (dump.h) to text or JSON.
 *
 * Every form is a rendering of the same decoded record: the one line, the
 * field lines of -v and -vv, the hex dumps of -X and -XX, and one JSON
 * object per line. The field lines and the JSON come from one description
 * of each record's fields (dump_rec_fields()), so the labels are the JSON
 * keys (house style B9); the formats are specified in
 * docs/man/rdsdump.8.md, and tests/unit/dump/test_render.c holds them to it.
 *
 * Text is built in a buffer on the stack and written with one fwrite per
 * record (more only when -vv lists thousands of congestion ranges), since
 * the one-line form runs for millions of messages; JSON is written by the
 * output layer, which does the escaping. Values a peer controls (netlink device
 * names, payload bytes) are made printable, so they can never break a line
 * or a JSON string.
 */
#ifndef DUMP_RENDER_H
#define DUMP_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "dump.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How to render; main.c fills it from the options. */
struct dump_render {
	FILE *out;
	int verbose;    /* 0 one line, 1 (-v) field lines, 2 (-vv) everything:
			 * all congestion ranges, raw extension bytes, rule
			 * sentences, capture metadata */
	int hex;        /* 0; 1 (-X) hex and ASCII of the RDS header and at most
			 * DUMP_HEX_PAYLOAD_MAX captured payload bytes, or of the
			 * packet for other records; 2 (-XX) the whole packet */
	bool json;      /* one JSON object per record per line; verbose is
			 * ignored (JSON always has every key), hex adds "hex" */
	int tsmode;     /* 0 local time of day HH:MM:SS.uuuuuu; 1 none (-t);
			 * 2 seconds since the epoch S.uuuuuu (-tt) */
};

/* Payload bytes -X shows after the RDS header of a message. */
#define DUMP_HEX_PAYLOAD_MAX 256
/* Congestion ranges on the one line before "... (N more)". */
#define DUMP_CONG_RANGES_MAX 8

/*
 * dump_print_rec() - write |r| to o->out: one line (plus field lines and
 * hex lines as asked), or one JSON object and a newline. Output errors are
 * left in the stream's error flag for the caller to find with ferror().
 */
void dump_print_rec(const struct dump_render *o, const struct dump_rec *r);

/*
 * dump_print_stats() - -z: per connection a header line, a table of the
 * counters per path and direction that saw anything, and the rules found;
 * with json one {"type":"stats","conns":[...]} object.
 */
void dump_print_stats(const struct dump_render *o, const struct dump_conn *const *conns,
		      size_t n);

struct out_group;

/*
 * dump_rec_fields() - the fields of a record of type |t| (tools/common/out.h):
 * every JSON key in order, its type, its value names and the -v count that
 * shows it; nested groups through .sub. NULL for an unknown type. What a
 * field list or a dissector generated from rdsdump's output reads.
 */
const struct out_group *dump_rec_fields(enum dump_rec_type t);

#ifdef __cplusplus
}
#endif

#endif /* DUMP_RENDER_H */
