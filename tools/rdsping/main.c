// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rdsping - ping for RDS: zero-length messages to port 0 of a host, which
 * its RDS stack (kernel or librds) answers with a pong from port 0 to the
 * pinging socket's port (rds_recv_incoming -> rds_send_pong). Runs on
 * librds, or on the kernel's AF_RDS with --kernel, through rio.
 *
 * Unlike rds-ping, a lost reply is counted and pinging goes on. Pongs
 * carry nothing to tell pings apart, so each socket matches its replies
 * in order (one socket's messages take one path, and RDS delivers a path
 * in order); a socket whose ping timed out is closed and replaced by a
 * fresh one, so a late pong can never be taken for the next ping's.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "out.h"
#include "parse.h"
#include "rio.h"
#include "rio_opt.h"

const char *argp_program_version = "rdsping " RDSTK_VERSION;

#define MAX_SOCKS 64
#define MAX_OUT 64  /* outstanding pings per socket */

struct ping {
	uint64_t seq;
	rdsu_ns sent;
};

struct psock {
	struct rio_sock *s;
	struct ping out[MAX_OUT];
	unsigned head, n;
};

struct opts {
	struct rio_cfg cfg;
	struct rio_opt ro;          /* the stack options, into cfg */
	const char *host_s;      /* the host's address as printed (inet_ntop) */
	const char *name;        /* as given, when that was a name */
	char host_buf[64];
	struct rdsu_addr host, src;
	bool have_src;
	const char *src_if;      /* -I names an interface */
	uint32_t size;           /* payload bytes per ping */
	uint64_t count;          /* 0 = until interrupted */
	double interval, timeout;
	unsigned sockets;
	bool quiet, json;
};

struct stats {
	uint64_t sent, received, lost, late, errors;
	double min, max, sum, sum2;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

enum { O_JSON = 0x100 };

/* Largest -s: librds's and the kernel's default SNDBUF (wmem_default / 2),
 * so a ping never fails with EMSGSIZE on a default socket. */
#define MAX_SIZE RDSU_DEFAULT_BUF

static const struct argp_option options[] = {
	{ "count", 'c', "COUNT", 0, "stop after COUNT pings (default: until interrupted)", 0 },
	{ "interval", 'i', "SECONDS", 0, "wait SECONDS between pings (default 1; fractions allowed)", 0 },
	{ "source", 'I', "ADDR|IFACE", 0,
	  "send from local address ADDR, or from interface IFACE's first address of the host's "
	  "family (default: the route's source)", 0 },
	{ "size", 's', "BYTES", 0,
	  "BYTES of payload in each ping (default 0, at most 106496); the pong carries none: every "
	  "RDS stack answers a ping with an empty pong, so the time is BYTES out and a header back", 0 },
	{ "sockets", 'n', "N", 0, "ping from N sockets (ports) in turn, spreading over paths (default 1)", 0 },
	{ "timeout", 'W', "SECONDS", 0, "count a ping lost after SECONDS without a reply (default 2)", 0 },
	{ "quiet", 'q', NULL, 0, "print only the summary", 0 },
	{ "json", O_JSON, NULL, 0, "one JSON object per reply, loss and the summary", 0 },
	{ 0 }
};

/* A host name's first address, as ping takes it. Return: 0; an EAI_* code. */
static int resolve_host(const char *name, struct rdsu_addr *a)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_ADDRCONFIG };
	struct addrinfo *res;
	uint16_t port;
	int e = getaddrinfo(name, NULL, &hints, &res);

	if (e)
		return e;
	e = EAI_ADDRFAMILY;
	for (struct addrinfo *i = res; i && e; i = i->ai_next) {
		struct sockaddr_storage ss = { 0 };

		if (i->ai_addrlen > sizeof(ss))
			continue;
		memcpy(&ss, i->ai_addr, i->ai_addrlen);
		if (rdsu_sockaddr_get(&ss, a, &port) == 0)
			e = 0;
	}
	freeaddrinfo(res);
	return e;
}

/* The first address of interface |ifname| in |want|'s family (IPv4 or
 * IPv6), as ping -I IFACE binds to it. Return: 0; -ENODEV no such
 * interface; -EADDRNOTAVAIL none of that family. */
static int iface_source(const char *ifname, const struct rdsu_addr *want, struct rdsu_addr *a)
{
	struct ifaddrs *ifs;
	bool seen = false;
	int e = -EADDRNOTAVAIL;

	if (getifaddrs(&ifs) < 0)
		return -errno;
	for (struct ifaddrs *i = ifs; i && e; i = i->ifa_next) {
		struct sockaddr_storage ss = { 0 };
		uint16_t port;

		if (strcmp(i->ifa_name, ifname))
			continue;
		seen = true;
		if (!i->ifa_addr || (i->ifa_addr->sa_family != AF_INET &&
				     i->ifa_addr->sa_family != AF_INET6))
			continue;
		memcpy(&ss, i->ifa_addr, i->ifa_addr->sa_family == AF_INET ?
		       sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
		if (rdsu_sockaddr_get(&ss, a, &port) == 0 &&
		    rdsu_addr_is_v4(a) == rdsu_addr_is_v4(want))
			e = 0;
	}
	freeifaddrs(ifs);
	return e && !seen ? -ENODEV : e;
}

static error_t parse(int key, char *arg, struct argp_state *st)
{
	struct opts *o = st->input;
	uint64_t v;

	switch (key) {
	case 'c':
		if (parse_count(arg, 1, UINT64_MAX, &v) < 0)
			argp_error(st, "bad count '%s': a number above 0", arg);
		o->count = v;
		return 0;
	case 'i':
		if (parse_seconds(arg, 0.001, 86400, &o->interval) < 0)
			argp_error(st, "bad interval '%s': seconds, at least 0.001", arg);
		return 0;
	case 'W':
		if (parse_seconds(arg, 0.001, 86400, &o->timeout) < 0)
			argp_error(st, "bad timeout '%s': seconds, at least 0.001", arg);
		return 0;
	case 'I':
		if (parse_addr(arg, &o->src) < 0)
			o->src_if = arg;        /* an interface: resolved once the host's family is known */
		o->have_src = true;
		return 0;
	case 's':
		if (parse_count(arg, 0, MAX_SIZE, &v) < 0)
			argp_error(st, "bad size '%s': 0 to %d bytes (the default SNDBUF)", arg,
				   MAX_SIZE);
		o->size = (uint32_t)v;
		return 0;
	case 'n':
		if (parse_count(arg, 1, MAX_SOCKS, &v) < 0)
			argp_error(st, "bad socket count '%s': 1 to %d", arg, MAX_SOCKS);
		o->sockets = (unsigned)v;
		return 0;
	case 'q':
		o->quiet = true;
		return 0;
	case O_JSON:
		o->json = true;
		return 0;
	case ARGP_KEY_INIT:
		st->child_inputs[0] = &o->ro;
		return 0;
	case ARGP_KEY_ARG:
		if (o->host_s)
			argp_error(st, "one host only");
		if (parse_addr(arg, &o->host) < 0) {
			int e = resolve_host(arg, &o->host);

			if (e)
				argp_error(st, "bad host '%s': %s", arg, gai_strerror(e));
			o->name = arg;
		}
		o->host_s = rdsu_addr_str(&o->host, o->host_buf, sizeof(o->host_buf));
		return 0;
	case ARGP_KEY_END:
		if (!o->host_s)
			argp_error(st, "a host to ping is needed");
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

static double ms(rdsu_ns d)
{
	return (double)d / 1e6;
}

/*
 * Each line's fields, described once for the ping(8)-style text
 * (" seq=1 sock=0") and JSON (docs/man/rdsping.1.md); level 0 is JSON only.
 */
#define F(k, t, lv, ...) { .key = (k), .type = (t), .level = (lv), __VA_ARGS__ }

enum { R_TYPE, R_FROM, R_SEQ, R_SOCK, R_PORT, R_RTT_MS, R_CONNECT, R__N };
static const struct out_field reply_fields[R__N] = {
	[R_TYPE] = F("type", OUT_STR, 0),
	[R_FROM] = F("from", OUT_STR, 0),
	[R_SEQ] = F("seq", OUT_U64, 1),
	[R_SOCK] = F("sock", OUT_U64, 1),
	[R_PORT] = F("port", OUT_U64, 1),
	/* Times in JSON to the microsecond, as the text prints them: the
	 * clock reads nanoseconds, but a round trip through two processes'
	 * wake-ups is not known to better than that. */
	[R_RTT_MS] = F("rtt_ms", OUT_FIXED, 1, .digits = 3, .label = "time"),
	[R_CONNECT] = F("connect", OUT_BOOL, 0),
};
static const struct out_group reply_group = OUT_GROUP("reply", reply_fields);

enum { L_TYPE, L_SEQ, L_SOCK, L_REASON, L__N };
static const struct out_field lost_fields[L__N] = {
	[L_TYPE] = F("type", OUT_STR, 0),
	[L_SEQ] = F("seq", OUT_U64, 1),
	[L_SOCK] = F("sock", OUT_U64, 1),
	[L_REASON] = F("reason", OUT_STR, 0),
};
static const struct out_group lost_group = OUT_GROUP("lost", lost_fields);

enum {
	S_TYPE, S_HOST, S_SENT, S_RECEIVED, S_LOST, S_LATE, S_ERRORS, S_LOSS_PCT,
	S_TIME_MS, S_MIN_MS, S_AVG_MS, S_MAX_MS, S_MDEV_MS, S__N
};
static const struct out_field summary_fields[S__N] = {
	[S_TYPE] = F("type", OUT_STR, 0),
	[S_HOST] = F("host", OUT_STR, 0),
	[S_SENT] = F("sent", OUT_U64, 0),
	[S_RECEIVED] = F("received", OUT_U64, 0),
	[S_LOST] = F("lost", OUT_U64, 0),
	[S_LATE] = F("late", OUT_U64, 0),
	[S_ERRORS] = F("errors", OUT_U64, 0),
	[S_LOSS_PCT] = F("loss_pct", OUT_FIXED, 0, .digits = 1),
	[S_TIME_MS] = F("time_ms", OUT_FIXED, 0, .digits = 3),
	[S_MIN_MS] = F("min_ms", OUT_FIXED, 0, .digits = 3),
	[S_AVG_MS] = F("avg_ms", OUT_FIXED, 0, .digits = 3),
	[S_MAX_MS] = F("max_ms", OUT_FIXED, 0, .digits = 3),
	[S_MDEV_MS] = F("mdev_ms", OUT_FIXED, 0, .digits = 3),
};
static const struct out_group summary_group = OUT_GROUP("summary", summary_fields);

#undef F

/* A line of |g| on stdout: JSON, or the ping(8)-style text the caller
 * writes between this and line_end(). */
static void line_begin(struct out *out, const struct opts *o, const struct out_group *g)
{
	out_init(out, stdout, o->json ? OUT_JSON : OUT_TEXT, 1, 0);
	out_begin(out, g);
	out_line(out, true, '=');
}

static void line_end(struct out *out)
{
	if (!out_is_json(out))
		out_putc(out, '\n');
	out_end(out);
	out_fini(out);
	fflush(stdout);
}

/* The text line's opening: |words| and the host. */
static void line_host(struct out *out, const struct opts *o, const char *words)
{
	if (o->json)
		return;
	out_puts(out, words);
	out_puts(out, o->host_s);
	out_putc(out, ':');
}

/* Is the path to |host| down, so the next ping also sets up the connection? */
static bool conn_down(struct rio *r, const struct opts *o)
{
	struct rdsu_conn_info ci;

	if (!rio_io(r))
		return false;
	if (rdsu_ep_conn_get(rdsu_io_ep(rio_io(r)), &o->src, &o->host, &ci) < 0)
		return true;
	return ci.path[0].state != RDSU_PATH_UP;
}

static void on_reply(const struct opts *o, struct stats *st, unsigned i, uint16_t port,
		     const struct ping *p, rdsu_ns now, bool setup)
{
	double rtt = ms(now - p->sent);
	struct out out;

	st->received++;
	st->sum += rtt;
	st->sum2 += rtt * rtt;
	if (st->received == 1 || rtt < st->min)
		st->min = rtt;
	if (rtt > st->max)
		st->max = rtt;
	if (o->quiet)
		return;
	line_begin(&out, o, &reply_group);
	out_str(&out, R_TYPE, "reply");
	out_str(&out, R_FROM, o->host_s);
	line_host(&out, o, "reply from ");
	out_u64(&out, R_SEQ, p->seq);
	out_u64(&out, R_SOCK, i);
	out_u64(&out, R_PORT, port);
	out_double(&out, R_RTT_MS, rtt);
	out_bool(&out, R_CONNECT, setup);
	if (!o->json)
		out_puts(&out, setup ? " ms (includes connection set-up)" : " ms");
	line_end(&out);
}

static void on_lost(const struct opts *o, struct stats *st, unsigned i, const struct ping *p,
		    const char *why)
{
	struct out out;

	st->lost++;
	if (o->quiet)
		return;
	line_begin(&out, o, &lost_group);
	out_str(&out, L_TYPE, "lost");
	line_host(&out, o, "no reply from ");
	out_u64(&out, L_SEQ, p->seq);
	out_u64(&out, L_SOCK, i);
	out_str(&out, L_REASON, why);
	if (!o->json) {
		out_puts(&out, " (");
		out_puts(&out, why);
		out_putc(&out, ')');
	}
	line_end(&out);
}

static int new_sock(struct rio *r, const struct opts *o, struct psock *ps)
{
	memset(ps, 0, sizeof(*ps));
	return rio_socket(r, &o->src, 0, &ps->s);
}

/* Drop |ps|'s timed-out pings; if any, the socket is replaced (see top). */
static int expire(struct rio *r, const struct opts *o, struct stats *st, struct psock *ps,
		  unsigned i, rdsu_ns now, bool all)
{
	bool lost = false;
	rdsu_ns limit = (rdsu_ns)(o->timeout * 1e9);

	while (ps->n && (all || now - ps->out[ps->head].sent >= limit)) {
		char why[64];

		snprintf(why, sizeof(why), "no reply in %.3f s", o->timeout);
		on_lost(o, st, i, &ps->out[ps->head], why);
		ps->head = (ps->head + 1) % MAX_OUT;
		ps->n--;
		lost = true;
	}
	if (!lost || all)
		return 0;
	/* A late pong would now be taken for the next ping's: the pings
	 * still out on this socket cannot be told apart any more. */
	while (ps->n) {
		on_lost(o, st, i, &ps->out[ps->head], "abandoned with the socket of a lost ping");
		ps->head = (ps->head + 1) % MAX_OUT;
		ps->n--;
	}
	rio_sock_close(ps->s);
	return new_sock(r, o, ps);
}

static void drain(const struct opts *o, struct stats *st, struct psock *ps, unsigned i,
		  bool *setup)
{
	for (;;) {
		struct rdsu_addr from;
		uint16_t sport;
		bool trunc;
		uint8_t buf[64];
		ssize_t n = rio_recv(ps->s, buf, sizeof(buf), &from, &sport, &trunc);

		if (n < 0)
			return;
		/* Only pongs: zero length, from port 0 of the host. */
		if (n != 0 || sport != 0 || memcmp(&from, &o->host, sizeof(from)))
			continue;
		if (!ps->n) {
			st->late++;
			continue;
		}
		on_reply(o, st, i, rio_sock_port(ps->s), &ps->out[ps->head], rdsu_clock(),
			 setup[i]);
		setup[i] = false;
		ps->head = (ps->head + 1) % MAX_OUT;
		ps->n--;
	}
}

static void summary(const struct opts *o, const struct stats *st, rdsu_ns elapsed)
{
	double loss = st->sent ? 100.0 * (double)(st->sent - st->received) / (double)st->sent : 0;
	double avg = st->received ? st->sum / (double)st->received : 0;
	double var = st->received ? st->sum2 / (double)st->received - avg * avg : 0;
	double mdev = var > 0 ? sqrt(var) : 0;

	if (o->json) {
		struct out out;

		line_begin(&out, o, &summary_group);
		out_str(&out, S_TYPE, "summary");
		out_str(&out, S_HOST, o->host_s);
		out_u64(&out, S_SENT, st->sent);
		out_u64(&out, S_RECEIVED, st->received);
		out_u64(&out, S_LOST, st->lost);
		out_u64(&out, S_LATE, st->late);
		out_u64(&out, S_ERRORS, st->errors);
		out_double(&out, S_LOSS_PCT, loss);
		out_double(&out, S_TIME_MS, ms(elapsed));
		if (st->received) {
			out_double(&out, S_MIN_MS, st->min);
			out_double(&out, S_AVG_MS, avg);
			out_double(&out, S_MAX_MS, st->max);
			out_double(&out, S_MDEV_MS, mdev);
		}
		line_end(&out);
		return;
	}
	/* the summary's text is ping(8)'s sentences, not fields */
	printf("\n--- %s rdsping statistics ---\n", o->host_s);
	printf("%llu sent, %llu received, %.1f%% loss", (unsigned long long)st->sent,
	       (unsigned long long)st->received, loss);
	if (st->late)
		printf(", %llu late", (unsigned long long)st->late);
	if (st->errors)
		printf(", %llu send errors", (unsigned long long)st->errors);
	printf(", time %.0f ms\n", ms(elapsed));
	if (st->received)
		printf("rtt min/avg/max/mdev = %.3f/%.3f/%.3f/%.3f ms\n", st->min, avg, st->max,
		       mdev);
}

int main(int argc, char **argv)
{
	static struct opts o;
	struct argp_child children[] = { { &o.ro.argp, 0, NULL, 0 }, { 0 } };
	const struct argp ap = {
		options, parse, "HOST",
		"Send RDS pings to HOST (its RDS stack answers from port 0) and report the "
		"round-trip times.\v"
		"Exit status: 0 if a reply came, 1 if none did, 2 on errors.",
		children, NULL, NULL
	};
	static struct psock ps[MAX_SOCKS];
	static bool setup[MAX_SOCKS];
	struct stats st = { 0 };
	struct rio *r;
	rdsu_ns start, next;
	uint64_t seq = 0;
	char src[64];
	static uint8_t payload[MAX_SIZE];
	int e;

	argp_err_exit_status = 2;
	rio_cfg_default(&o.cfg);
	rio_opt_init(&o.ro, RIO_OPT_KERNEL | RIO_OPT_TRANSPORT | RIO_OPT_AUTH, &o.cfg);
	o.interval = 1;
	o.timeout = 2;
	o.sockets = 1;
	/* getopt names the program by argv[0] in its complaints: the name,
	 * not the path it was started by. */
	argv[0] = program_invocation_short_name;
	if (argp_parse(&ap, argc, argv, 0, NULL, &o) != 0)
		return 2;
	if (o.src_if && (e = iface_source(o.src_if, &o.host, &o.src)) < 0) {
		if (e == -ENODEV)
			fprintf(stderr, "rdsping: -I %s: neither an address nor an interface\n",
				o.src_if);
		else
			fprintf(stderr, "rdsping: -I %s: the interface has no %s address\n", o.src_if,
				rdsu_addr_is_v4(&o.host) ? "IPv4" : "IPv6");
		return 2;
	}
	if (!o.have_src && (e = rio_route_source(&o.host, &o.src)) < 0) {
		fprintf(stderr, "rdsping: no route to %s: %s\n", o.host_s, strerror(-e));
		return 2;
	}
	/* RDS connects like with like (rds_sendmsg refuses a mixed pair):
	 * say so now rather than lose every ping to EOPNOTSUPP. */
	if (rdsu_addr_is_v4(&o.host) != rdsu_addr_is_v4(&o.src)) {
		fprintf(stderr, "rdsping: %s is %s but the source %s is not: RDS needs both of "
			"one family\n", o.host_s, rdsu_addr_is_v4(&o.host) ? "IPv4" : "IPv6",
			rdsu_addr_str(&o.src, src, sizeof(src)));
		return 2;
	}
	if (rio_cfg_add_addr(&o.cfg, &o.src) < 0)
		return 2;
	/* Pinging our own source address, librds answers itself through
	 * its loopback transport, as the kernel answers its own addresses
	 * (net/rds/loop.c): nothing need listen, so another librds process
	 * that serves the address (rdsd, an rdsperf server) is no obstacle. */
	if (!o.cfg.kernel && rdsu_addr_cmp(&o.host, &o.src) == 0)
		o.cfg.tcp.no_listen = true;
	rio_signals(on_signal);
	e = rio_open(&r, &o.cfg);
	if (e < 0) {
		fprintf(stderr, "rdsping: %s on %s: %s\n", o.cfg.kernel ? "AF_RDS" : "librds",
			rdsu_addr_str(&o.src, src, sizeof(src)), rio_open_strerror(&o.cfg, e));
		return 2;
	}
	for (unsigned i = 0; i < o.sockets; i++) {
		e = new_sock(r, &o, &ps[i]);
		if (e < 0) {
			fprintf(stderr, "rdsping: bind %s: %s\n",
				rdsu_addr_str(&o.src, src, sizeof(src)), rdsu_strerror(e));
			rio_close(r);
			return 2;
		}
	}
	if (!o.quiet && !o.json) {
		/* TCP is what a line without a transport has always meant.
		 * Pings to our own address take the loopback transport
		 * whatever the socket's (the kernel's t_prefer_loopback). A
		 * socket on 127.x pinging another address reads 3 as well,
		 * but librds (and the shim) reach another endpoint's
		 * address over TCP: the line names no transport then. */
		unsigned tr = rio_sock_transport(ps[0].s);

		if (rdsu_addr_cmp(&o.host, &o.src) == 0)
			tr = RDSU_TRANS_LOOP;
		else if (tr == RDSU_TRANS_LOOP)
			tr = RDSU_TRANS_TCP;

		printf("RDSPING %s", o.name ? o.name : o.host_s);
		if (o.name)
			printf(" (%s)", o.host_s);
		printf(" from %s (%s%s%s, %u socket%s", rdsu_addr_str(&o.src, src, sizeof(src)),
		       o.cfg.kernel ? "kernel" : "librds",
		       tr == RDSU_TRANS_IB || tr == RDSU_TRANS_LOOP ? " over " : "",
		       tr == RDSU_TRANS_IB || tr == RDSU_TRANS_LOOP ? rio_trans_name(tr) : "", o.sockets,
		       o.sockets == 1 ? "" : "s");
		if (o.size)
			printf(", %u-byte pings", o.size);
		printf(")\n");
	}
	start = next = rdsu_clock();
	for (;;) {
		rdsu_ns now = rdsu_clock(), wake;
		bool sending = !stop && (!o.count || seq < o.count);
		size_t outstanding = 0;

		if (sending && now >= next) {
			unsigned i = (unsigned)(seq % o.sockets);
			struct psock *p = &ps[i];

			seq++;
			st.sent++;
			if (p->n == MAX_OUT) {
				st.errors++;
			} else {
				bool down = conn_down(r, &o);

				e = rio_send(p->s, &o.host, 0, payload, o.size);
				if (e < 0) {
					struct ping lost = { seq, now };

					st.errors++;
					on_lost(&o, &st, i, &lost, rdsu_strerror(e));
				} else {
					p->out[(p->head + p->n) % MAX_OUT] = (struct ping){ seq, now };
					p->n++;
					setup[i] = setup[i] || down;
				}
			}
			next += (rdsu_ns)(o.interval * 1e9);
			if (next < now)
				next = now;
			continue;
		}
		for (unsigned i = 0; i < o.sockets; i++) {
			drain(&o, &st, &ps[i], i, setup);
			if (expire(r, &o, &st, &ps[i], i, now, false) < 0) {
				fprintf(stderr, "rdsping: cannot replace socket %u\n", i);
				stop = 1;
			}
			outstanding += ps[i].n;
		}
		if (!sending && (outstanding == 0 || stop))
			break;
		/* Sleep until the next ping or the oldest timeout, whichever first. */
		wake = sending ? next : RDSU_NS_NEVER;
		for (unsigned i = 0; i < o.sockets; i++)
			if (ps[i].n) {
				rdsu_ns t = ps[i].out[ps[i].head].sent + (rdsu_ns)(o.timeout * 1e9);

				if (t < wake)
					wake = t;
			}
		{
			struct rio_sock *socks[MAX_SOCKS];
			unsigned want[MAX_SOCKS], got[MAX_SOCKS];

			for (unsigned i = 0; i < o.sockets; i++) {
				socks[i] = ps[i].s;
				want[i] = RIO_POLLIN;
			}
			e = rio_wait(r, socks, want, got, o.sockets, wake);
			if (e < 0 && e != -EINTR) {
				fprintf(stderr, "rdsping: %s\n", rdsu_strerror(e));
				break;
			}
		}
	}
	/* Interrupted: what is still out is not a loss, it is unanswered. */
	for (unsigned i = 0; i < o.sockets; i++) {
		st.sent -= stop ? ps[i].n : 0;
		rio_sock_close(ps[i].s);
	}
	summary(&o, &st, rdsu_clock() - start);
	rio_close(r);
	return st.received ? 0 : 1;
}
