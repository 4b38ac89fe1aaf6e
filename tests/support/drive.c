// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* drive.c - shared parts of the interop test drivers (see drive.h). */
#define _GNU_SOURCE
#include "drive.h"

#include "parse.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	D_TO = 0x7300, D_PORT, D_SPORT, D_SOCKETS, D_COUNT, D_SIZES, D_SNDBUF, D_RCVBUF,
	D_TIMEOUT, D_LINGER
};

static const struct argp_option drive_options[] = {
	{ "to", D_TO, "ADDR", 0, "the peer's address (sending roles)", 0 },
	{ "port", D_PORT, "P", 0, "sending roles: destination port; receiving roles: port to receive on", 0 },
	{ "sport", D_SPORT, "P", 0, "first sending port (default: ephemeral)", 0 },
	{ "sockets", D_SOCKETS, "K", 0, "K sending sockets on ports sport.. (default 1)", 0 },
	{ "count", D_COUNT, "N", 0, "messages (ping: pings) per sending socket", 0 },
	{ "sizes", D_SIZES, "LIST", 0, "message sizes in turn (K and M suffixes)", 0 },
	{ "sndbuf", D_SNDBUF, "BYTES", 0, "SNDBUF of the sockets", 0 },
	{ "rcvbuf", D_RCVBUF, "BYTES", 0, "RCVBUF of the sockets", 0 },
	{ "timeout", D_TIMEOUT, "S", 0, "give up after S seconds (default 60)", 0 },
	{ "linger", D_LINGER, "S", 0, "keep the stack running S seconds after the work", 0 },
	{ "verbose", 'v', NULL, 0, "progress on stderr", 0 },
	{ 0 }
};

uint16_t drive_port(struct argp_state *st, const char *arg)
{
	uint64_t v;

	if (parse_uint(arg, 0, 0, 65535, &v) < 0)
		argp_error(st, "bad port %s", arg);
	return (uint16_t)v;
}

static error_t drive_parse(int key, char *arg, struct argp_state *st)
{
	struct drive_opts *d = st->input;
	uint64_t v;
	double s;

	switch (key) {
	case D_TO:
		if (parse_addr(arg, &d->to) < 0)
			argp_error(st, "bad --to %s", arg);
		d->have_to = true;
		return 0;
	case D_PORT:
	case D_SPORT:
		*(key == D_PORT ? &d->port : &d->sport) = drive_port(st, arg);
		return 0;
	case D_SOCKETS:
		if (parse_uint(arg, 0, 1, d->max_sockets, &v) < 0)
			argp_error(st, "--sockets is 1..%u", d->max_sockets);
		d->sockets = (unsigned)v;
		return 0;
	case D_COUNT:
		if (parse_uint(arg, 0, 0, UINT64_MAX, &v) < 0)
			argp_error(st, "bad number %s", arg);
		d->count = v;
		return 0;
	case D_SIZES: {
		int n = parse_list(arg, 0, DRIVE_MAX_MSG, d->sizes, DRIVE_MAX_SIZES);

		if (n < 0)
			argp_error(st, "bad --sizes (1 to %d sizes, each <= %u)", DRIVE_MAX_SIZES,
				   DRIVE_MAX_MSG);
		d->n_sizes = (unsigned)n;
		return 0;
	}
	case D_SNDBUF:
	case D_RCVBUF:
		if (parse_uint(arg, 0, 1, INT32_MAX / 2, &v) < 0)
			argp_error(st, "bad buffer size %s", arg);
		*(key == D_SNDBUF ? &d->sndbuf : &d->rcvbuf) = (uint32_t)v;
		return 0;
	case D_TIMEOUT:
	case D_LINGER:
		if (parse_seconds(arg, 0, 86400, &s) < 0)
			argp_error(st, "bad seconds %s", arg);
		*(key == D_TIMEOUT ? &d->timeout : &d->linger) = s;
		return 0;
	case 'v':
		d->verbose = true;
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

const struct argp drive_argp = { drive_options, drive_parse, NULL, NULL, NULL, NULL, NULL };

error_t drive_parse_common(int key, char *arg, struct argp_state *st, struct drive_common *c,
			   const char *const *roles)
{
	switch (key) {
	case ARGP_KEY_ARG:
		c->role = drive_role(st, arg, roles, c->role);
		return 0;
	case ARGP_KEY_INIT:
		st->child_inputs[0] = &c->ro;
		st->child_inputs[1] = &c->d;
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

error_t drive_argp_parse(struct drive_common *c, const struct argp_option *options,
			 argp_parser_t parser, const char *args_doc, const char *doc, int argc,
			 char **argv, void *input)
{
	struct argp_child children[] = { { &c->ro.argp, 0, NULL, 1 }, { &drive_argp, 0, NULL, 2 },
					 { 0 } };
	const struct argp ap = { options, parser, args_doc, doc, children, NULL, NULL };

	return argp_parse(&ap, argc, argv, 0, NULL, input);
}

volatile sig_atomic_t drive_stop;

static void on_signal(int sig)
{
	(void)sig;
	drive_stop = 1;
}

void drive_signals(void)
{
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
}

struct drive_stream *drive_stream_of(struct drive_stream *st, unsigned *n, unsigned cap,
				     const struct rdsu_addr *from, uint16_t sport)
{
	struct drive_stream *x;

	for (unsigned i = 0; i < *n; i++)
		if (st[i].sport == sport && !memcmp(&st[i].from, from, sizeof(*from)))
			return &st[i];
	if (*n == cap)
		drive_fail("streams", -E2BIG);
	x = &st[(*n)++];
	x->from = *from;
	x->sport = sport;
	x->next = 0;
	x->digest = PAYLOAD_DIGEST0;
	return x;
}

/* { from (if given), sport, KEY: n, digest }: a stream as the sending and
 * the receiving side report it. */
static struct json_object *stream_json(const struct rdsu_addr *from, uint16_t sport,
				       const char *key, uint64_t n, uint64_t digest)
{
	struct json_object *o = json_object_new_object();
	char d[20], a[64];

	snprintf(d, sizeof(d), "%016" PRIx64, digest);
	if (from)
		json_object_object_add(o, "from",
				       json_object_new_string(rdsu_addr_str(from, a, sizeof(a))));
	json_object_object_add(o, "sport", json_object_new_int(sport));
	json_object_object_add(o, key, json_object_new_int64((int64_t)n));
	json_object_object_add(o, "digest", json_object_new_string(d));
	return o;
}

struct json_object *drive_streams_json(const struct drive_stream *st, unsigned n)
{
	struct json_object *a = json_object_new_array();

	for (unsigned i = 0; i < n; i++)
		json_object_array_add(a, stream_json(&st[i].from, st[i].sport, "received",
						     st[i].next, st[i].digest));
	return a;
}

struct json_object *drive_sent_json(struct rio_sock *const *s, const uint64_t *sent,
				    const uint64_t *digest, unsigned n)
{
	struct json_object *a = json_object_new_array();

	for (unsigned i = 0; i < n; i++)
		json_object_array_add(a, stream_json(NULL, rio_sock_port(s[i]), "sent", sent[i],
						     digest[i]));
	return a;
}

int drive_role(struct argp_state *st, const char *arg, const char *const *names, int cur)
{
	if (cur)
		argp_error(st, "one role only");
	for (int i = 0; names[i]; i++)
		if (!strcmp(arg, names[i]))
			return i + 1;
	argp_error(st, "unknown role %s", arg);
	return 0;
}

void drive_fail(const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what, rdsu_strerror(err));
	exit(1);
}

struct rio_sock *drive_socket(struct rio *r, const struct rdsu_addr *bind, uint16_t port,
			      uint32_t sndbuf, uint32_t rcvbuf, const char *what)
{
	struct rio_sock *s;
	int e = rio_socket(r, bind, port, &s);

	if (e < 0)
		drive_fail("bind", e);
	if ((sndbuf || rcvbuf) && (e = rio_set_bufs(s, sndbuf, rcvbuf)) < 0)
		drive_fail(what, e);
	return s;
}

void drive_wait_in(struct rio *r, struct rio_sock *s, rdsu_ns end)
{
	unsigned w = RIO_POLLIN, g;

	(void)rio_wait(r, &s, &w, &g, 1, end);
}

uint64_t drive_snd_held(struct rio *r)
{
	struct rdsu_sock_info si;
	size_t pos = 0;
	uint64_t held = 0;

	if (!rio_io(r))
		return 0;
	while (rdsu_ep_sock_next(rdsu_io_ep(rio_io(r)), &pos, &si) == 1)
		held += si.snd_bytes;
	return held;
}

static void add_int(struct json_object *o, const char *k, int64_t v)
{
	json_object_object_add(o, k, json_object_new_int64(v));
}

static struct json_object *path_json(const struct rdsu_path_info *p)
{
	struct json_object *pj = json_object_new_object();

	json_object_object_add(pj, "state", json_object_new_string(rdsu_path_state_name(p->state)));
	json_object_object_add(pj, "outgoing", json_object_new_boolean(p->outgoing));
	add_int(pj, "next_tx_seq", (int64_t)p->next_tx_seq);
	add_int(pj, "next_rx_seq", (int64_t)p->next_rx_seq);
	add_int(pj, "connects", (int64_t)p->connects);
	add_int(pj, "resets", (int64_t)p->resets);
	add_int(pj, "local_sport", p->local_sport);
	add_int(pj, "peer_sport", p->peer_sport);
	return pj;
}

void drive_json_librds(struct json_object *j, struct rio *r, const struct rdsu_addr *bind)
{
	struct rdsu_tcp *t = rio_tcp(r);
	struct rdsu_conn_info ci;
	struct rdsu_stats st;
	struct rdsu_tcp_stats ts;
	size_t pos = 0;

	if (!rio_io(r))
		return;
	struct rdsu_ep *ep = rdsu_io_ep(rio_io(r));
	struct json_object *conns = json_object_new_array(), *stats = json_object_new_object();

	while (rdsu_ep_conn_next(ep, &pos, &ci) == 1) {
		struct json_object *c = json_object_new_object(), *paths = json_object_new_array();
		char a[64], b[64];

		json_object_object_add(c, "laddr",
				       json_object_new_string(rdsu_addr_str(&ci.laddr, a, sizeof(a))));
		json_object_object_add(c, "faddr",
				       json_object_new_string(rdsu_addr_str(&ci.faddr, b, sizeof(b))));
		add_int(c, "npaths", ci.npaths);
		add_int(c, "peer_gen", ci.peer_gen);
		json_object_object_add(c, "peer_sport_idx", json_object_new_boolean(ci.peer_sport_idx));
		add_int(c, "held_links", ci.held_links);
		add_int(c, "peer_congested", (int64_t)ci.peer_congested);
		json_object_object_add(c, "fanout_hold", json_object_new_boolean(ci.fanout_hold));
		for (unsigned i = 0; i < WIRE_MAX_PATHS; i++)
			json_object_array_add(paths, path_json(&ci.path[i]));
		json_object_object_add(c, "paths", paths);
		json_object_array_add(conns, c);
	}
	if (bind) {
		/* Our own map beside the peers' view of it: they must agree
		 * once traffic settles. */
		const struct wire_cong_map *lm = rdsu_ep_local_map(ep, bind);

		add_int(j, "local_congested", lm ? (int64_t)wire_cong_count(lm) : -1);
	}
	rdsu_ep_get_stats(ep, &st);
	for (int i = 0; i < RDSU_STAT__COUNT; i++)
		add_int(stats, rdsu_stat_name((enum rdsu_stat)i), (int64_t)st.v[i]);
	if (t) {
		rdsu_tcp_get_stats(t, &ts);
		add_int(stats, "tcp_connects", (int64_t)ts.connects);
		add_int(stats, "tcp_accepts", (int64_t)ts.accepts);
		add_int(stats, "tcp_links_down", (int64_t)ts.links_down);
		add_int(stats, "tcp_connect_late_reset", (int64_t)ts.connect_late_reset);
		add_int(stats, "tcp_held_kept", (int64_t)ts.held_kept);
	}
	json_object_object_add(j, "connections", conns);
	json_object_object_add(j, "stats", stats);
}

void drive_json_counts(struct json_object *j, const char *role, const struct drive_count *c,
		       size_t n)
{
	json_object_object_add(j, "role", json_object_new_string(role));
	for (size_t i = 0; i < n; i++)
		add_int(j, c[i].key, c[i].v);
}

int drive_report(struct json_object *j, struct rio *r, int rc)
{
	json_object_object_add(j, "ok", json_object_new_boolean(rc == 0));
	printf("%s\n", json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
	fflush(stdout);
	json_object_put(j);
	rio_close(r);
	return rc;
}
