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
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "payload.h"
#include "rio.h"
#include "rio_opt.h"

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

/* What both drivers' options hold beside their own: the stack's
 * configuration and its options, the traffic options, the role
 * (drive_role(): 0 for none) and the first --bind address. */
struct drive_common {
	struct rio_cfg cfg;
	struct rio_opt ro;          /* the stack options, into cfg */
	struct drive_opts d;        /* the traffic options */
	int role;
	struct rdsu_addr bind;
	bool have_bind;
};
/* drive_parse_common() - the argp keys both drivers parse alike: the role
 * word (one of |roles|, NULL-ended) and the inputs of the children
 * drive_argp_parse() gives. Return: 0; ARGP_ERR_UNKNOWN for any other key. */
error_t drive_parse_common(int key, char *arg, struct argp_state *st, struct drive_common *c,
			   const char *const *roles);
/* drive_argp_parse() - argp_parse() of |argc|, |argv| by |options| and
 * |parser| into |input|, with the stack options (group 1) and the traffic
 * options (group 2) of |c| as children. */
error_t drive_argp_parse(struct drive_common *c, const struct argp_option *options,
			 argp_parser_t parser, const char *args_doc, const char *doc, int argc,
			 char **argv, void *input);

/* Set by SIGINT and SIGTERM once drive_signals() has run (which also
 * ignores SIGPIPE): the roles stop and report what they have. */
extern volatile sig_atomic_t drive_stop;
void drive_signals(void);

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
/* drive_streams_json() - [ { from, sport, received, digest } ] of the |n|
 * streams of |st|, for the scripts. */
struct json_object *drive_streams_json(const struct drive_stream *st, unsigned n);
/* drive_sent_json() - [ { sport, sent, digest } ]: the streams of the |n|
 * sending sockets |s|, |sent[i]| messages of digest |digest[i]|. */
struct json_object *drive_sent_json(struct rio_sock *const *s, const uint64_t *sent,
				    const uint64_t *digest, unsigned n);

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
/* drive_socket() - a socket bound to |bind|, |port| (exits on failure);
 * with a |sndbuf| or |rcvbuf| (0 = leave), those, exiting on failure as
 * |what|. */
struct rio_sock *drive_socket(struct rio *r, const struct rdsu_addr *bind, uint16_t port,
			      uint32_t sndbuf, uint32_t rcvbuf, const char *what);
/* drive_wait_in() - run the stack until |s| is readable or |end|. */
void drive_wait_in(struct rio *r, struct rio_sock *s, rdsu_ns end);
/* Payload bytes every librds socket still holds (SNDBUF in use). */
uint64_t drive_snd_held(struct rio *r);
/* "connections", "stats" (and "local_congested" for |bind|, if given) of
 * the librds endpoint under |r|; nothing on kernel sockets. */
void drive_json_librds(struct json_object *j, struct rio *r, const struct rdsu_addr *bind);
/* A number of the JSON report: its key and value. */
struct drive_count {
	const char *key;
	int64_t v;
};
/* drive_json_counts() - "role": |role|, then the |n| numbers of |c| in
 * order, into |j|. */
void drive_json_counts(struct json_object *j, const char *role, const struct drive_count *c,
		       size_t n);
/* drive_report() - |j| with "ok" (|rc| is 0) on stdout as one line, then
 * |j| and |r| (may be NULL) closed. Return: |rc|, the exit code. */
int drive_report(struct json_object *j, struct rio *r, int rc);

#endif
