// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rdsdrive - the traffic driver of the librds interop tests (loopback and
 * kernel lab). The same binary runs on librds or, with --kernel, on the
 * kernel's AF_RDS sockets, so either side of a test can be either stack.
 *
 *   rdsdrive [common] source --to ADDR --port P [--count N] [--sockets K]
 *   rdsdrive [common] sink --port P --expect N [--sockets K]
 *   rdsdrive [common] serve               (answer pings only)
 *
 * --fault NAME (repeatable; --fault list names them) makes the librds
 * endpoint a faulty peer that commits that protocol defect
 * (rdsu_ep_cfg.faults): for testing conformance suites only.
 *
 * Messages are numbered per stream (source address, source port): message
 * i of a stream has size sizes[i % n] and content derived from (stream
 * port, i), so the sink checks every byte, and that each stream arrives
 * exactly once and in order, without the sender telling it anything.
 * Output: one JSON object on stdout at the end (and progress on stderr);
 * exit 0 when everything expected happened, 1 when not, 2 on usage errors.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <linux/rds.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <wire/wire.h>

#include "drive.h"
#include "kinfo.h"
#include "parse.h"
#include "rio.h"
#include "rio_opt.h"

#define MAX_SOCKS 64
#define MAX_STREAMS 256

enum role { ROLE_NONE, ROLE_SOURCE, ROLE_SINK, ROLE_SERVE };

struct opts {
	struct drive_common c;      /* c.role: an enum role */
	uint16_t sports[MAX_SOCKS]; /* source: explicit ports (--sports) */
	unsigned n_sports;
	uint64_t expect;        /* sink: total messages */
	uint64_t stall_after;   /* sink: stop reading after this many... */
	double stall;           /* ...for this long (s) */
	double pace;            /* source: seconds between messages */
};

/* ------------------------------------------------------------------------
 * Options
 */

enum { O_EXPECT = 0x100, O_STALL_AFTER, O_STALL, O_PACE, O_SPORTS };

static const struct argp_option options[] = {
	{ "bind", 'b', "ADDR", 0, "local address (librds: the endpoint's; repeatable)", 1 },
	{ "sports", O_SPORTS, "LIST", 0, "source: one socket on each of these ports", 2 },
	{ "expect", O_EXPECT, "N", 0, "sink: messages in total before exiting", 2 },
	{ "stall-after", O_STALL_AFTER, "N", 0, "sink: stop reading after N messages...", 2 },
	{ "stall", O_STALL, "S", 0, "sink: ...for S seconds", 2 },
	{ "pace", O_PACE, "S", 0, "source: wait S seconds between messages", 2 },
	{ 0 }
};

static error_t parse(int key, char *arg, struct argp_state *st)
{
	struct opts *o = st->input;
	uint64_t v;
	struct rdsu_addr a;

	switch (key) {
	case 'b':
		if (parse_addr(arg, &a) < 0 || rio_cfg_add_addr(&o->c.cfg, &a) < 0)
			argp_error(st, "bad --bind %s", arg);
		if (!o->c.have_bind)
			o->c.bind = a;
		o->c.have_bind = true;
		return 0;
	case O_SPORTS: {
		char *save = NULL, *tok, *dup = strdup(arg);

		o->n_sports = 0;
		for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			if (o->n_sports == MAX_SOCKS || parse_uint(tok, 0, 0, 65535, &v) < 0 || !v)
				argp_error(st, "bad --sports (up to %d ports)", MAX_SOCKS);
			o->sports[o->n_sports++] = (uint16_t)v;
		}
		free(dup);
		o->c.d.sockets = o->n_sports;
		return 0;
	}
	case O_EXPECT:
	case O_STALL_AFTER:
		if (parse_uint(arg, 0, 0, UINT64_MAX, &v) < 0)
			argp_error(st, "bad number %s", arg);
		*(key == O_EXPECT ? &o->expect : &o->stall_after) = v;
		return 0;
	case O_STALL:
	case O_PACE: {
		double d;

		if (parse_seconds(arg, 0, 86400, &d) < 0)
			argp_error(st, "bad seconds %s", arg);
		*(key == O_STALL ? &o->stall : &o->pace) = d;
		return 0;
	}
	case ARGP_KEY_END:
		if (o->c.role == ROLE_NONE)
			argp_error(st, "a role is needed: source, sink or serve");
		if (!o->c.have_bind)
			argp_error(st, "--bind is needed");
		if (o->c.cfg.kernel && o->c.cfg.ep.faults)
			argp_error(st, "--fault is for librds, not --kernel");
		if (o->c.role == ROLE_SOURCE && (!o->c.d.have_to || !o->c.d.port))
			argp_error(st, "source needs --to and --port");
		if (o->c.role == ROLE_SINK && (!o->c.d.port || !o->expect))
			argp_error(st, "sink needs --port and --expect");
		return 0;
	}
	static const char *const roles[] = { "source", "sink", "serve", NULL };

	return drive_parse_common(key, arg, st, &o->c, roles);
}

/* ------------------------------------------------------------------------
 * Roles
 */

static int rds_gso(void *ctx, unsigned opt, void *buf, size_t *len)
{
	socklen_t l = (socklen_t)*len;
	int e = getsockopt(*(int *)ctx, SOL_RDS, (int)opt, buf, &l);

	*len = l;
	return e < 0 ? -errno : e;
}

/*
 * --kernel: the messages of our sockets |s| on the kernel's send and
 * retransmit queues (RDS6_INFO_SEND_MESSAGES, _RETRANS_MESSAGES; every
 * connection, IPv4 ones v4-mapped), which are those the peer has not
 * acknowledged: RDS/TCP drops a message once TCP's snd_una passes it
 * (net/rds/tcp_send.c rds_tcp_write_space). Return: the count; -1 when
 * the kernel does not say.
 */
static int64_t kernel_unacked(struct rio_sock **s, unsigned n)
{
	static const unsigned lists[] = { WIRE_INFO6_SEND_MESSAGES, WIRE_INFO6_RETRANS_MESSAGES };
	struct top_kinfo_buf b = { 0 };
	int64_t held = 0;
	int fd = socket(AF_RDS, SOCK_SEQPACKET, 0);

	if (fd < 0)
		return -1;
	for (size_t k = 0; k < sizeof(lists) / sizeof(lists[0]) && held >= 0; k++) {
		struct wire_info_iter it;
		struct wire_info_item m;

		if (top_kinfo_read(rds_gso, &fd, lists[k], &b) < 0 ||
		    wire_info_iter_init(&it, lists[k], b.p, b.len) < 0) {
			held = -1;
			break;
		}
		while (wire_info_next(&it, &m) == 1)
			for (unsigned i = 0; i < n; i++)
				held += m.u.msg.lport == rio_sock_port(s[i]);
	}
	top_kinfo_buf_fini(&b);
	close(fd);
	return held;
}

/*
 * After the work, keep the stack running --linger seconds, if asked. The
 * kernel's stack runs without us, and what it drops when our sockets |s|
 * close is only what the peer has not acknowledged (net/rds/send.c
 * rds_send_drop_to): with --kernel, --linger is at most that long, until
 * none of our messages is left unacknowledged.
 */
static void linger(const struct opts *o, struct rio *r, struct rio_sock **s, unsigned n)
{
	rdsu_ns t0 = rdsu_clock(), end = t0 + drive_secs(o->c.d.linger);
	int64_t held = 0;

	if (o->c.d.linger <= 0)
		return;
	if (!o->c.cfg.kernel) {
		(void)rio_idle(r, drive_secs(o->c.d.linger));
		return;
	}
	while (rdsu_clock() < end && (held = kernel_unacked(s, n)) != 0) {
		if (held < 0) {
			(void)rio_idle(r, end - rdsu_clock());
			break;
		}
		(void)rio_idle(r, 20 * RDSU_MSEC);
	}
	fprintf(stderr, "rdsdrive: lingered %.2f s of %.2f, %" PRId64 " unacknowledged\n",
		(double)(rdsu_clock() - t0) / 1e9, o->c.d.linger, held);
}

static int run_source(struct opts *o, struct rio *r, struct json_object *j)
{
	struct rio_sock *s[MAX_SOCKS];
	uint64_t next[MAX_SOCKS] = { 0 }, digest[MAX_SOCKS];
	uint64_t eagain = 0, enobufs = 0, sent = 0, bytes = 0;
	rdsu_ns end = rdsu_clock() + drive_secs(o->c.d.timeout), last_nobufs = 0;
	uint8_t *buf = malloc(DRIVE_MAX_MSG);
	bool done = false;

	if (!buf)
		drive_fail("malloc", -ENOMEM);
	for (unsigned i = 0; i < o->c.d.sockets; i++) {
		uint16_t port = o->n_sports ? o->sports[i] : o->c.d.sport ? (uint16_t)(o->c.d.sport + i) : 0;

		s[i] = drive_socket(r, &o->c.bind, port, o->c.d.sndbuf, o->c.d.rcvbuf, "buffers");
		digest[i] = PAYLOAD_DIGEST0;
	}
	while (!done && !drive_stop) {
		bool blocked = true;

		done = true;
		for (unsigned i = 0; i < o->c.d.sockets; i++) {
			uint16_t port = rio_sock_port(s[i]);

			if (next[i] >= o->c.d.count)
				continue;
			done = false;
			uint32_t len = drive_size(&o->c.d, next[i]);

			payload_fill(buf, len, port, next[i]);
			int e = rio_send(s[i], &o->c.d.to, o->c.d.port, buf, len);

			if (e == -EAGAIN) {
				eagain++;
				continue;
			}
			if (e == -ENOBUFS) {
				/* The destination port is congested: the peer's
				 * receiver is behind. Try again shortly. */
				enobufs++;
				last_nobufs = rdsu_clock();
				continue;
			}
			if (e < 0)
				drive_fail("send", e);
			blocked = false;
			digest[i] = payload_digest(digest[i], buf, len);
			next[i]++;
			sent++;
			bytes += len;
			if (o->c.d.verbose && sent % 10000 == 0)
				fprintf(stderr, "rdsdrive: sent %" PRIu64 "\n", sent);
			if (o->pace > 0)
				(void)rio_idle(r, drive_secs(o->pace));
		}
		if (rdsu_clock() > end)
			break;
		if (!done && blocked) {
			unsigned want[MAX_SOCKS], got[MAX_SOCKS];

			/* A finished socket is always writable: waiting on
			 * it would return at once and never run the stack. */
			for (unsigned i = 0; i < o->c.d.sockets; i++)
				want[i] = next[i] < o->c.d.count ? RIO_POLLOUT : 0;
			if (rdsu_clock() - last_nobufs < 10 * RDSU_MSEC)
				(void)rio_idle(r, 2 * RDSU_MSEC);
			else
				(void)rio_wait(r, s, want, got, o->c.d.sockets, rdsu_clock() + 50 * RDSU_MSEC);
		}
	}
	/* Sent is not delivered: keep the stack running until TCP acked it
	 * all (librds: every socket's SNDBUF back to empty). */
	while (drive_snd_held(r) && rdsu_clock() <= end && !drive_stop)
		(void)rio_idle(r, 5 * RDSU_MSEC);
	linger(o, r, s, o->c.d.sockets);
	const struct drive_count counts[] = {
		{ "sent", (int64_t)sent },
		{ "bytes", (int64_t)bytes },
		{ "eagain", (int64_t)eagain },
		{ "enobufs", (int64_t)enobufs },
	};

	drive_json_counts(j, "source", counts, sizeof(counts) / sizeof(counts[0]));
	json_object_object_add(j, "streams", drive_sent_json(s, next, digest, o->c.d.sockets));
	drive_json_librds(j, r, NULL);
	for (unsigned i = 0; i < o->c.d.sockets; i++)
		rio_sock_close(s[i]);
	free(buf);
	return sent == (uint64_t)o->c.d.sockets * o->c.d.count ? 0 : 1;
}

static int run_sink(struct opts *o, struct rio *r, struct json_object *j)
{
	struct rio_sock *s;
	struct drive_stream *st = calloc(MAX_STREAMS, sizeof(*st));
	unsigned n_st = 0;
	uint8_t *buf = malloc(DRIVE_MAX_MSG + 1), *want = malloc(DRIVE_MAX_MSG);
	uint64_t got = 0, bad = 0, bytes = 0, stalls = 0;
	rdsu_ns end = rdsu_clock() + drive_secs(o->c.d.timeout);
	struct json_object *errs = json_object_new_array();

	if (!st || !buf || !want)
		drive_fail("malloc", -ENOMEM);
	s = drive_socket(r, &o->c.bind, o->c.d.port, o->c.d.sndbuf, o->c.d.rcvbuf, "buffers");
	/* Tell a waiting test we are bound (a message to an unbound port is
	 * dropped, rds_recv_incoming). */
	fprintf(stderr, "rdsdrive: ready\n");
	while (got < o->expect && !drive_stop && rdsu_clock() < end) {
		struct rdsu_addr from;
		uint16_t sport;
		bool trunc;
		ssize_t n;

		if (o->stall_after && got == o->stall_after && stalls == 0) {
			stalls++;
			fprintf(stderr, "rdsdrive: stalling %.1f s after %" PRIu64 " messages\n",
				o->stall, got);
			(void)rio_idle(r, drive_secs(o->stall));
		}
		n = rio_recv(s, buf, DRIVE_MAX_MSG + 1, &from, &sport, &trunc);
		if (n == -EAGAIN) {
			drive_wait_in(r, s, end);
			continue;
		}
		if (n < 0)
			drive_fail("recv", (int)n);
		struct drive_stream *x = drive_stream_of(st, &n_st, MAX_STREAMS, &from, sport);
		uint32_t len = drive_size(&o->c.d, x->next);

		payload_fill(want, len, sport, x->next);
		if (trunc || (size_t)n != len || memcmp(buf, want, len)) {
			char msg[160];
			uint64_t idx = n >= 8 ? payload_index(buf) : 0;

			snprintf(msg, sizeof(msg),
				 "port %u: expected message %" PRIu64 " (%u bytes), got %zd bytes%s",
				 sport, x->next, len, n,
				 n >= 8 ? "" : " (too short to name its index)");
			if (n >= 8)
				snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg),
					 " naming index %" PRIu64, idx);
			if (bad < 20)
				json_object_array_add(errs, json_object_new_string(msg));
			if (o->c.d.verbose)
				fprintf(stderr, "rdsdrive: %s\n", msg);
			bad++;
			/* Resynchronise on what it says it is, so one loss is
			 * one error, not all that follow. */
			if (n >= 8 && idx + 1 > x->next)
				x->next = idx + 1;
			got++;
			continue;
		}
		x->digest = payload_digest(x->digest, buf, len);
		x->next++;
		got++;
		bytes += len;
		if (o->c.d.verbose && got % 10000 == 0)
			fprintf(stderr, "rdsdrive: received %" PRIu64 "\n", got);
	}
	linger(o, r, &s, 1);
	const struct drive_count counts[] = {
		{ "received", (int64_t)got },
		{ "bytes", (int64_t)bytes },
		{ "bad", (int64_t)bad },
	};

	drive_json_counts(j, "sink", counts, sizeof(counts) / sizeof(counts[0]));
	json_object_object_add(j, "errors", errs);
	json_object_object_add(j, "streams", drive_streams_json(st, n_st));
	drive_json_librds(j, r, NULL);
	rio_sock_close(s);
	free(st);
	free(buf);
	free(want);
	return got == o->expect && bad == 0 ? 0 : 1;
}

static int run_serve(struct opts *o, struct rio *r, struct json_object *j)
{
	rdsu_ns end = o->c.d.timeout > 0 ? rdsu_clock() + drive_secs(o->c.d.timeout) : RDSU_NS_NEVER;

	fprintf(stderr, "rdsdrive: ready\n");
	while (!drive_stop && rdsu_clock() < end)
		(void)rio_idle(r, 100 * RDSU_MSEC);
	drive_json_counts(j, "serve", NULL, 0);
	drive_json_librds(j, r, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	static struct opts o;
	struct rio *r;
	struct json_object *j = json_object_new_object();
	int rc, e;

	argp_err_exit_status = 2;
	rio_cfg_default(&o.c.cfg);
	rio_opt_init(&o.c.ro, RIO_OPT_KERNEL | RIO_OPT_KVER | RIO_OPT_NPATHS | RIO_OPT_GEN | RIO_OPT_PORTS | RIO_OPT_FAULT, &o.c.cfg);
	/* The suites pick ports by the kernel's hash (every path carries
	 * data, a port that stays on path 0): rdsdrive chooses as it does. */
	o.c.cfg.ep.path_rule = RDSU_PATH_BY_PORT;
	o.c.d.sockets = 1;
	o.c.d.max_sockets = MAX_SOCKS;
	o.c.d.count = 100;
	o.c.d.timeout = 60;
	const uint64_t dflt[] = { 0, 1, 48, 1000, 4096, 65536 };

	memcpy(o.c.d.sizes, dflt, sizeof(dflt));
	o.c.d.n_sizes = sizeof(dflt) / sizeof(dflt[0]);
	if (drive_argp_parse(&o.c, options, parse, "source|sink|serve",
			     "Traffic driver of the librds interop tests.", argc, argv, &o) != 0)
		return 2;
	drive_signals();
	e = rio_open(&r, &o.c.cfg);
	if (e < 0) {
		fprintf(stderr, "rdsdrive: %s: %s\n", o.c.cfg.kernel ? "AF_RDS" : "librds",
			rdsu_strerror(e));
		return 1;
	}
	switch (o.c.role) {
	case ROLE_SOURCE:
		rc = run_source(&o, r, j);
		break;
	case ROLE_SINK:
		rc = run_sink(&o, r, j);
		break;
	default:
		rc = run_serve(&o, r, j);
		break;
	}
	if (o.c.cfg.ep.faults) {
		struct json_object *fa = json_object_new_array();

		for (unsigned i = 0; i < RDSU_FAULT__COUNT; i++)
			if (o.c.cfg.ep.faults & (1u << i))
				json_object_array_add(fa, json_object_new_string(rdsu_fault_name(i)));
		json_object_object_add(j, "faults", fa);
	}
	return drive_report(j, r, rc);
}
