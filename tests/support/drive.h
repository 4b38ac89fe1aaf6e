// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * drive.h - what the traffic drivers of the librds interop tests
 * (rdsdrive, rdsloop) share beyond tools/common (payload.h: message content
 * and stream digests; rio_opt.h: the stack options): the JSON picture of
 * librds's state the test scripts assert on, and small helpers.
 */
#ifndef RDS_TEST_DRIVE_H
#define RDS_TEST_DRIVE_H

#include <argp.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "payload.h"
#include "rio.h"

#define DRIVE_MAX_SIZES 32
#define DRIVE_MAX_MSG (1u << 20)

/* The traffic options both drivers take: drive_argp, an argp child whose
 * input is this (st->child_inputs[i] = &opts at ARGP_KEY_INIT). The
 * driver sets the defaults and max_sockets before parsing. */
struct drive_opts {
	struct rdsu_addr to;
	bool have_to;
	uint16_t port;          /* a sender's destination, a receiver's own */
	uint16_t sport;         /* first sending port (0 = ephemeral) */
	unsigned sockets, max_sockets;
	uint64_t count;         /* messages (or pings) per sending socket */
	uint64_t sizes[DRIVE_MAX_SIZES];
	unsigned n_sizes;
	uint32_t sndbuf, rcvbuf;
	double timeout;         /* give up after this long (s) */
	double linger;          /* after the work, keep the stack running (s) */
	bool verbose;
};
extern const struct argp drive_argp;

/* A stream received: its sender, the index it is at and the digest of
 * what came. */
struct drive_stream {
	struct rdsu_addr from;
	uint16_t sport;
	uint64_t next, digest;
};
/* drive_stream_of() - the stream from (|from|, |sport|) among the |*n| of
 * |st|, added when new (exits when |cap| are in use). */
struct drive_stream *drive_stream_of(struct drive_stream *st, unsigned *n, unsigned cap,
				     const struct rdsu_addr *from, uint16_t sport);
/* drive_stream_json() - { from, sport, received, digest } for the scripts. */
struct json_object *drive_stream_json(const struct drive_stream *x);

/* drive_port() - a port number (0 to 65535); anything else is an
 * argp_error(). */
uint16_t drive_port(struct argp_state *st, const char *arg);

/* drive_role() - the role |arg| names: its index in |names| (NULL-ended)
 * plus one, so 0 can mean none yet (|cur|). A second role or an unknown
 * one is an argp_error(). */
int drive_role(struct argp_state *st, const char *arg, const char *const *names, int cur);

/* Message |i|'s size: the size list in turn. */
static inline uint32_t drive_size(const struct drive_opts *d, uint64_t i)
{
	return (uint32_t)d->sizes[i % d->n_sizes];
}

static inline rdsu_ns drive_secs(double s)
{
	return (rdsu_ns)(s * 1e9);
}

/* Print "PROG: what: error" and exit 1. */
_Noreturn void drive_fail(const char *what, int err);
/* Payload bytes every librds socket still holds (SNDBUF in use). */
uint64_t drive_snd_held(struct rio *r);
/* "connections", "stats" (and "local_congested" for |bind|, if given) of
 * the librds endpoint under |r|; nothing on kernel sockets. */
void drive_json_librds(struct json_object *j, struct rio *r, const struct rdsu_addr *bind);

#endif
