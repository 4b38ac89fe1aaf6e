// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rdsloop - the parts of the loopback suite (tests/loop/loop.py) that
 * rdsdrive has no role for: one librds endpoint that pings its peer, or
 * that sends and receives at the same time (traffic both ways on one RDS
 * connection needs both in one process: two endpoints cannot share an
 * address's port 16385), and the multipath hash for choosing ports.
 *
 *   rdsloop hash --first P --last Q
 *   rdsloop -b ADDR [common] ping --to ADDR --count N [--sport P]
 *   rdsloop -b ADDR [common] duplex --to ADDR --port P --sport S --sockets K --count N
 *
 * duplex binds --port for receiving and K sockets sport.. for sending
 * --count messages each to the peer's --port; the peer runs the same
 * command, so each side expects K * count messages. Message i of a
 * stream (source port) has size sizes[i % n] and content derived from
 * (port, i): every byte is checked, and each stream must arrive exactly
 * once and in order. Output: one JSON object on stdout; exit 0 when
 * everything expected happened, 1 when not, 2 on usage errors.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drive.h"
#include "parse.h"
#include "rio.h"
#include "rio_opt.h"
#include "rss.h"

#define MAX_SOCKS 63
#define MAX_STREAMS 64

enum role { ROLE_NONE, ROLE_HASH, ROLE_PING, ROLE_DUPLEX };

struct opts {
	struct drive_common c;      /* c.role: an enum role */
	uint16_t first, last;       /* hash */
	bool fail_fast;
	double duration;            /* duplex: send this long instead of --count */
};

/* ------------------------------------------------------------------------
 * Options
 */

enum { O_FIRST = 0x100, O_LAST, O_FAIL_FAST, O_DURATION };

static const struct argp_option options[] = {
	{ "bind", 'b', "ADDR", 0, "local address of the endpoint", 1 },
	{ "fail-fast", O_FAIL_FAST, NULL, 0, "duplex: stop at the first wrong message", 2 },
	{ "duration", O_DURATION, "S", 0,
	  "duplex: send for S seconds, then end when all is acknowledged and the peer has been "
	  "quiet for 2 s (the soak; --count is then ignored)", 2 },
	{ "first", O_FIRST, "P", 0, "hash: first port", 2 },
	{ "last", O_LAST, "P", 0, "hash: last port", 2 },
	{ 0 }
};

static error_t parse(int key, char *arg, struct argp_state *st)
{
	struct opts *o = st->input;

	switch (key) {
	case 'b':
		if (o->c.have_bind || parse_addr(arg, &o->c.bind) < 0)
			argp_error(st, "one --bind address is needed, not %s", arg);
		(void)rio_cfg_add_addr(&o->c.cfg, &o->c.bind);
		o->c.have_bind = true;
		return 0;
	case O_FIRST:
	case O_LAST:
		*(key == O_FIRST ? &o->first : &o->last) = drive_port(st, arg);
		return 0;
	case O_FAIL_FAST:
		o->fail_fast = true;
		return 0;
	case O_DURATION:
		if (parse_seconds(arg, 0, 86400, &o->duration) < 0 || !(o->duration > 0))
			argp_error(st, "bad --duration '%s'", arg);
		return 0;
	case ARGP_KEY_END:
		if (o->c.role == ROLE_NONE)
			argp_error(st, "a role is needed: hash, ping or duplex");
		if (o->c.role == ROLE_HASH && o->first > o->last)
			argp_error(st, "hash needs --first <= --last");
		if (o->c.role != ROLE_HASH && (!o->c.have_bind || !o->c.d.have_to))
			argp_error(st, "%s needs --bind and --to", o->c.role == ROLE_PING ? "ping" : "duplex");
		if (o->c.role == ROLE_DUPLEX && (!o->c.d.port || !o->c.d.sport))
			argp_error(st, "duplex needs --port and --sport");
		if (o->c.role == ROLE_DUPLEX && o->c.d.sport + o->c.d.sockets - 1u > 65535u)
			argp_error(st, "--sport + --sockets runs past port 65535");
		return 0;
	}
	static const char *const roles[] = { "hash", "ping", "duplex", NULL };

	return drive_parse_common(key, arg, st, &o->c, roles);
}

/* ------------------------------------------------------------------------
 * Roles
 */

static int run_hash(const struct opts *o, struct json_object *j)
{
	struct json_object *a = json_object_new_array();

	for (uint32_t p = o->first; p <= o->last; p++)
		json_object_array_add(a, json_object_new_int((int)rdsu_mprds_hash((uint16_t)p, 0, 8)));
	json_object_object_add(j, "first", json_object_new_int(o->first));
	json_object_object_add(j, "hash", a);
	return 0;
}

/* One ping at a time: each must come back as a zero-length message from
 * the peer's port 0 before the next goes. */
static int run_ping(const struct opts *o, struct rio *r, struct json_object *j)
{
	struct rio_sock *s;
	uint64_t pongs = 0, unexpected = 0, retries = 0;
	rdsu_ns end = rdsu_clock() + drive_secs(o->c.d.timeout), rtt_max = 0;
	uint8_t buf[64];
	int e;

	s = drive_socket(r, &o->c.bind, o->c.d.sport, 0, 0, NULL);
	for (uint64_t i = 0; i < o->c.d.count && !drive_stop && rdsu_clock() < end; i++) {
		rdsu_ns t0;

		while ((e = rio_send(s, &o->c.d.to, 0, NULL, 0)) == -EAGAIN || e == -ENOBUFS) {
			retries++;
			(void)rio_idle(r, 2 * RDSU_MSEC);
			if (rdsu_clock() >= end || drive_stop)
				break;
		}
		if (e < 0)
			break;
		t0 = rdsu_clock();
		while (!drive_stop && rdsu_clock() < end) {
			struct rdsu_addr from;
			uint16_t sport;
			bool trunc;
			ssize_t n = rio_recv(s, buf, sizeof(buf), &from, &sport, &trunc);

			if (n == -EAGAIN) {
				drive_wait_in(r, s, end);
				continue;
			}
			if (n < 0)
				drive_fail("recv", (int)n);
			if (n == 0 && sport == 0 && !memcmp(&from, &o->c.d.to, sizeof(from))) {
				rdsu_ns rtt = rdsu_clock() - t0;

				pongs++;
				if (rtt > rtt_max)
					rtt_max = rtt;
				break;
			}
			unexpected++;
		}
	}
	(void)rio_idle(r, drive_secs(o->c.d.linger));
	const struct drive_count counts[] = {
		{ "sport", rio_sock_port(s) },
		{ "sent", (int64_t)o->c.d.count },
		{ "pongs", (int64_t)pongs },
		{ "unexpected", (int64_t)unexpected },
		{ "retries", (int64_t)retries },
		{ "rtt_max_us", (int64_t)(rtt_max / 1000) },
	};

	drive_json_counts(j, "ping", counts, sizeof(counts) / sizeof(counts[0]));
	drive_json_librds(j, r, &o->c.bind);
	rio_sock_close(s);
	return pongs == o->c.d.count && unexpected == 0 ? 0 : 1;
}

static int run_duplex(const struct opts *o, struct rio *r, struct json_object *j)
{
	struct rio_sock *rx, *tx[MAX_SOCKS], *ws[MAX_SOCKS + 1];
	unsigned want[MAX_SOCKS + 1], got[MAX_SOCKS + 1];
	uint64_t next[MAX_SOCKS] = { 0 }, dig[MAX_SOCKS];
	struct drive_stream in[MAX_STREAMS];
	unsigned n_in = 0;
	uint64_t expect = (uint64_t)o->c.d.sockets * o->c.d.count, recvd = 0, bad = 0, sent = 0;
	uint64_t eagain = 0, enobufs = 0;
	rdsu_ns t0 = rdsu_clock(), end = t0 + drive_secs(o->c.d.timeout);
	/* --duration: the count is the time; the peer's messages are done when
	 * it has been quiet a while after ours are all acknowledged. */
	rdsu_ns send_end = o->duration > 0 ? t0 + (rdsu_ns)(o->duration * 1e9) : RDSU_NS_NEVER;
	rdsu_ns last_in = t0, quarter = o->duration > 0 ? t0 + (send_end - t0) / 4 : RDSU_NS_NEVER;
	uint64_t count = o->duration > 0 ? UINT64_MAX : o->c.d.count;
	long rss_quarter = -1;
	uint8_t *buf = malloc(DRIVE_MAX_MSG + 1), *ref = malloc(DRIVE_MAX_MSG);
	struct json_object *errs = json_object_new_array();
	int e;

	if (!buf || !ref)
		drive_fail("malloc", -ENOMEM);
	/* Bound before the stack first runs, so nothing the peer sends early
	 * finds the port unbound (rds_recv_incoming drops it). */
	rx = drive_socket(r, &o->c.bind, o->c.d.port, 0, o->c.d.rcvbuf, "rcvbuf");
	for (unsigned i = 0; i < o->c.d.sockets; i++) {
		tx[i] = drive_socket(r, &o->c.bind, (uint16_t)(o->c.d.sport + i), o->c.d.sndbuf, 0, "sndbuf");
		dig[i] = PAYLOAD_DIGEST0;
	}
	fprintf(stderr, "rdsloop: ready\n");
	while (!drive_stop && rdsu_clock() < end && !(o->fail_fast && bad)) {
		bool progress = false, nobufs = false;
		rdsu_ns now = rdsu_clock();
		size_t n = 0;

		if (o->duration > 0) {
			if (rss_quarter < 0 && now >= quarter)
				rss_quarter = rss_kb();
			if (now >= send_end) {
				count = 0;
				if (!drive_snd_held(r) && now - last_in >= 2 * RDSU_SEC)
					break;
			}
		} else if (!(sent < expect || recvd < expect || drive_snd_held(r))) {
			break;
		}
		for (unsigned i = 0; i < o->c.d.sockets; i++) {
			uint16_t port = rio_sock_port(tx[i]);
			uint32_t len;

			if (next[i] >= count)
				continue;
			len = (uint32_t)o->c.d.sizes[next[i] % o->c.d.n_sizes];
			payload_fill(buf, len, port, next[i]);
			e = rio_send(tx[i], &o->c.d.to, o->c.d.port, buf, len);
			if (e == -EAGAIN) {
				eagain++;
				continue;
			}
			if (e == -ENOBUFS) {
				enobufs++;
				nobufs = true;
				continue;
			}
			if (e < 0)
				drive_fail("send", e);
			dig[i] = payload_digest(dig[i], buf, len);
			next[i]++;
			sent++;
			progress = true;
		}
		for (;;) {
			struct rdsu_addr from;
			uint16_t sport;
			bool trunc;
			ssize_t m = rio_recv(rx, buf, DRIVE_MAX_MSG + 1, &from, &sport, &trunc);
			struct drive_stream *x;

			if (m == -EAGAIN)
				break;
			if (m < 0)
				drive_fail("recv", (int)m);
			progress = true;
			last_in = rdsu_clock();
			recvd++;
			x = drive_stream_of(in, &n_in, MAX_STREAMS, &from, sport);
			uint32_t len = drive_size(&o->c.d, x->next);

			payload_fill(ref, len, sport, x->next);
			if (trunc || (size_t)m != len || memcmp(buf, ref, len)) {
				char msg[160], what[64] = "";

				/* Which message came instead: a gap and a
				 * reordering look alike otherwise. */
				if (m >= 8 && !trunc)
					snprintf(what, sizeof(what), " (message %" PRIu64 " of port %u)",
						 payload_index(buf), (unsigned)buf[6] << 8 | buf[7]);
				snprintf(msg, sizeof(msg),
					 "port %u: message %" PRIu64 " (%u bytes) wrong, got %zd bytes%s",
					 sport, x->next, len, m, what);
				if (bad++ < 20)
					json_object_array_add(errs, json_object_new_string(msg));
				if (o->fail_fast) {
					fprintf(stderr, "rdsloop: %s\n", msg);
					break;
				}
			} else {
				x->digest = payload_digest(x->digest, buf, len);
			}
			x->next++;
			if (o->c.d.verbose && recvd % 10000 == 0)
				fprintf(stderr, "rdsloop: received %" PRIu64 "\n", recvd);
			if (recvd % 64 == 0)
				break; /* let the sending side have a turn */
		}
		if (progress)
			continue;
		if (nobufs) {
			(void)rio_idle(r, 2 * RDSU_MSEC);
			continue;
		}
		ws[n] = rx;
		want[n++] = RIO_POLLIN;
		for (unsigned i = 0; i < o->c.d.sockets; i++) {
			if (next[i] < count) {
				ws[n] = tx[i];
				want[n++] = RIO_POLLOUT;
			}
		}
		(void)rio_wait(r, ws, want, got, n, rdsu_clock() + 50 * RDSU_MSEC);
	}
	(void)rio_idle(r, drive_secs(o->c.d.linger));

	const struct drive_count counts[] = {
		{ "sent", (int64_t)sent },
		{ "received", (int64_t)recvd },
		{ "bad", (int64_t)bad },
		{ "unacked", (int64_t)drive_snd_held(r) },
		{ "eagain", (int64_t)eagain },
		{ "enobufs", (int64_t)enobufs },
	};

	drive_json_counts(j, "duplex", counts, sizeof(counts) / sizeof(counts[0]));
	json_object_object_add(j, "errors", errs);
	if (o->duration > 0) {
		json_object_object_add(j, "rss_kb_quarter", json_object_new_int64(rss_quarter));
		json_object_object_add(j, "rss_kb_end", json_object_new_int64(rss_kb()));
	}
	json_object_object_add(j, "out", drive_sent_json(tx, next, dig, o->c.d.sockets));
	json_object_object_add(j, "in", drive_streams_json(in, n_in));
	drive_json_librds(j, r, &o->c.bind);
	for (unsigned i = 0; i < o->c.d.sockets; i++)
		rio_sock_close(tx[i]);
	rio_sock_close(rx);
	free(buf);
	free(ref);
	if (o->duration > 0)
		return bad == 0 && !drive_snd_held(r) ? 0 : 1;
	return sent == expect && recvd == expect && bad == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	static struct opts o;
	static const uint64_t dflt[] = { 0, 1, 1000 };
	struct json_object *j;
	struct rio *r = NULL;
	int rc, e;

	rio_cfg_default(&o.c.cfg);
	rio_opt_init(&o.c.ro, RIO_OPT_KVER | RIO_OPT_GEN | RIO_OPT_PATH_RULE, &o.c.cfg);
	o.c.d.sockets = 1;
	o.c.d.max_sockets = MAX_SOCKS;
	o.c.d.count = 10;
	o.c.d.timeout = 60;
	o.c.d.linger = 0.5;
	memcpy(o.c.d.sizes, dflt, sizeof(dflt));
	o.c.d.n_sizes = sizeof(dflt) / sizeof(dflt[0]);
	if (drive_argp_parse(&o.c, options, parse, "hash|ping|duplex",
			     "Pings and two-way traffic for the librds loopback suite.", argc, argv,
			     &o) != 0)
		return 2;
	drive_signals();
	j = json_object_new_object();
	if (o.c.role == ROLE_HASH) {
		rc = run_hash(&o, j);
	} else {
		e = rio_open(&r, &o.c.cfg);
		if (e < 0) {
			fprintf(stderr, "rdsloop: librds: %s\n", rdsu_strerror(e));
			json_object_put(j);
			return 1;
		}
		rc = o.c.role == ROLE_PING ? run_ping(&o, r, j) : run_duplex(&o, r, j);
	}
	return drive_report(j, r, rc);
}
