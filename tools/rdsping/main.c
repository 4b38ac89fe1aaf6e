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
#include "optdecl.h"
#include "out_opt.h"
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
	struct out_opt oo;          /* -j, -q */
	const char *host_s;      /* the host's address as printed (inet_ntop) */
	const char *name;        /* as given, when that was a name */
	char host_buf[64];
	struct rdsu_addr host, src;   /* src: -I's, or the route's (pick_source) */
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

/* Largest -s: librds's and the kernel's default SNDBUF (wmem_default / 2),
 * so a ping never fails with EMSGSIZE on a default socket. */
#define MAX_SIZE RDSU_DEFAULT_BUF

enum { O_SOURCE = 0x100 };

/* Every rdsping option, once: --help and the parser both come from it. */
static const struct optdecl options[] = {
	{ 'c', "count", "COUNT", "stop after COUNT pings (default: until interrupted)", 0, 0,
	  OPTD_COUNT, OPTD_FIELD(struct opts, count), .min = 1, .max = UINT64_MAX,
	  .what = "count", .range = "a number above 0" },
	{ 'i', "interval", "SECONDS", "wait SECONDS between pings (default 1; fractions allowed)",
	  0, 0, OPTD_SECONDS, OPTD_FIELD(struct opts, interval), .fmin = 0.001, .fmax = 86400,
	  .what = "interval", .range = "seconds, at least 0.001" },
	/* the old spelling of the stack's -I, --local */
	{ O_SOURCE, "source", "ADDR|IFACE", NULL, OPTION_HIDDEN, 0, .kind = OPTD_CUSTOM },
	{ 's', "size", "BYTES",
	  "BYTES of payload in each ping (default 0, at most 106496); the pong carries none: every "
	  "RDS stack answers a ping with an empty pong, so the time is BYTES out and a header back",
	  0, 0, OPTD_COUNT, OPTD_FIELD(struct opts, size), .min = 0, .max = MAX_SIZE,
	  .what = "size", .range = "0 to 106496 bytes (the default SNDBUF)" },
	{ 'n', "sockets", "N", "ping from N sockets (ports) in turn, spreading over paths (default 1)",
	  0, 0, OPTD_COUNT, OPTD_FIELD(struct opts, sockets), .min = 1, .max = MAX_SOCKS,
	  .what = "socket count" },
	{ 'W', "timeout", "SECONDS", "count a ping lost after SECONDS without a reply (default 2)",
	  0, 0, OPTD_SECONDS, OPTD_FIELD(struct opts, timeout), .fmin = 0.001, .fmax = 86400,
	  .what = "timeout", .range = "seconds, at least 0.001" },
};
_Static_assert(MAX_SIZE == 106496, "the help and error texts say 106496");

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

static error_t parse(int key, char *arg, struct argp_state *st)
{
	struct opts *o = st->input;

	switch (key) {
	case O_SOURCE:
		return rio_opt_take(&o->ro, RIO_KEY_LOCAL, arg, st);
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
	struct out out;

	/* One record: JSON has the fields, the text ping(8)'s sentences. */
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
	if (!o->json) {
		out_printf(&out, "\n--- %s rdsping statistics ---\n", o->host_s);
		out_printf(&out, "%llu sent, %llu received, %.1f%% loss",
			   (unsigned long long)st->sent, (unsigned long long)st->received, loss);
		if (st->late)
			out_printf(&out, ", %llu late", (unsigned long long)st->late);
		if (st->errors)
			out_printf(&out, ", %llu send errors", (unsigned long long)st->errors);
		out_printf(&out, ", time %.0f ms", ms(elapsed));
		if (st->received)
			out_printf(&out, "\nrtt min/avg/max/mdev = %.3f/%.3f/%.3f/%.3f ms", st->min,
				   avg, st->max, mdev);
	}
	line_end(&out);
}

/* The source address: -I's, or the route's; both of the host's family. */
static int pick_source(struct opts *o)
{
	char src[64];
	int e;

	e = rio_local_pick(&o->cfg.local, &o->host, &o->src);
	if (e < 0 && o->cfg.local.iface) {
		fprintf(stderr, "rdsping: -I %s: the interface has no %s address\n",
			o->cfg.local.iface, rdsu_addr_is_v4(&o->host) ? "IPv4" : "IPv6");
		return -1;
	}
	if (e < 0) {
		fprintf(stderr, "rdsping: no route to %s: %s\n", o->host_s, strerror(-e));
		return -1;
	}
	/* RDS connects like with like (rds_sendmsg refuses a mixed pair):
	 * say so now rather than lose every ping to EOPNOTSUPP. */
	if (rdsu_addr_is_v4(&o->host) != rdsu_addr_is_v4(&o->src)) {
		fprintf(stderr, "rdsping: %s is %s but the source %s is not: RDS needs both of "
			"one family\n", o->host_s, rdsu_addr_is_v4(&o->host) ? "IPv4" : "IPv6",
			rdsu_addr_str(&o->src, src, sizeof(src)));
		return -1;
	}
	return 0;
}

/* The stack on the source address, and the pinging sockets. */
static int open_stack(struct opts *o, struct rio **r, struct psock *ps)
{
	char src[64];
	int e;

	if (rio_cfg_add_addr(&o->cfg, &o->src) < 0)
		return -1;
	/* Pinging our own source address, librds answers itself through
	 * its loopback transport, as the kernel answers its own addresses
	 * (net/rds/loop.c): nothing need listen, so another librds process
	 * that serves the address (rdsd, an rdsperf server) is no obstacle. */
	if (!o->cfg.kernel && rdsu_addr_cmp(&o->host, &o->src) == 0)
		o->cfg.tcp.no_listen = true;
	rio_signals(on_signal);
	e = rio_open(r, &o->cfg);
	if (e < 0) {
		fprintf(stderr, "rdsping: %s on %s: %s\n", o->cfg.kernel ? "AF_RDS" : "librds",
			rdsu_addr_str(&o->src, src, sizeof(src)), rio_open_strerror(&o->cfg, e));
		return -1;
	}
	for (unsigned i = 0; i < o->sockets; i++) {
		e = new_sock(*r, o, &ps[i]);
		if (e < 0) {
			fprintf(stderr, "rdsping: bind %s: %s\n",
				rdsu_addr_str(&o->src, src, sizeof(src)), rdsu_strerror(e));
			while (i--)
				rio_sock_close(ps[i].s);
			rio_close(*r);
			return -1;
		}
	}
	return 0;
}

/* The opening line, as ping(8)'s. */
static void banner(const struct opts *o, const struct psock *ps)
{
	/* TCP is what a line without a transport has always meant. Pings
	 * to our own address take the loopback transport whatever the
	 * socket's (the kernel's t_prefer_loopback). A socket on 127.x
	 * pinging another address reads 3 as well, but librds (and the
	 * shim) reach another endpoint's address over TCP: the line names
	 * no transport then. */
	unsigned tr = rio_sock_transport(ps[0].s);
	bool named;
	char src[64];
	struct out *t;

	if (o->quiet || o->json)
		return;
	if (rdsu_addr_cmp(&o->host, &o->src) == 0)
		tr = RDSU_TRANS_LOOP;
	else if (tr == RDSU_TRANS_LOOP)
		tr = RDSU_TRANS_TCP;
	named = tr == RDSU_TRANS_IB || tr == RDSU_TRANS_LOOP;
	t = out_new(stdout, OUT_TEXT, 0, 0);
	if (!t)
		return;
	out_printf(t, "RDSPING %s", o->name ? o->name : o->host_s);
	if (o->name)
		out_printf(t, " (%s)", o->host_s);
	out_printf(t, " from %s (%s%s%s, %u socket%s", rdsu_addr_str(&o->src, src, sizeof(src)),
		   o->cfg.kernel ? "kernel" : "librds", named ? " over " : "",
		   named ? rio_trans_name(tr) : "", o->sockets, o->sockets == 1 ? "" : "s");
	if (o->size)
		out_printf(t, ", %u-byte pings", o->size);
	out_printf(t, ")\n");
	out_free(t);
	fflush(stdout);
}

/* The pinging loop's state. */
struct run {
	struct rio *r;
	struct opts *o;
	struct stats st;
	struct psock ps[MAX_SOCKS];
	bool setup[MAX_SOCKS];     /* the socket's next reply set up the connection */
	uint64_t seq;
	rdsu_ns next;              /* when the next ping goes */
};

/* Ping number seq + 1, from the sockets in turn. */
static void send_ping(struct run *run, rdsu_ns now)
{
	static uint8_t payload[MAX_SIZE];
	const struct opts *o = run->o;
	unsigned i = (unsigned)(run->seq % o->sockets);
	struct psock *p = &run->ps[i];
	bool down;
	int e;

	run->seq++;
	run->st.sent++;
	if (p->n == MAX_OUT) {
		run->st.errors++;
		return;
	}
	down = conn_down(run->r, o);
	e = rio_send(p->s, &o->host, 0, payload, o->size);
	if (e < 0) {
		struct ping lost = { run->seq, now };

		run->st.errors++;
		on_lost(o, &run->st, i, &lost, rdsu_strerror(e));
		return;
	}
	p->out[(p->head + p->n) % MAX_OUT] = (struct ping){ run->seq, now };
	p->n++;
	run->setup[i] = run->setup[i] || down;
}

/* Sleep until the next ping or the oldest timeout, whichever first.
 * Return: 0; < 0 when waiting failed. */
static int wait_next(struct run *run, bool sending)
{
	const struct opts *o = run->o;
	struct rio_sock *socks[MAX_SOCKS];
	unsigned want[MAX_SOCKS], got[MAX_SOCKS];
	rdsu_ns wake = sending ? run->next : RDSU_NS_NEVER;
	int e;

	for (unsigned i = 0; i < o->sockets; i++) {
		const struct psock *p = &run->ps[i];

		if (p->n) {
			rdsu_ns t = p->out[p->head].sent + (rdsu_ns)(o->timeout * 1e9);

			if (t < wake)
				wake = t;
		}
		socks[i] = p->s;
		want[i] = RIO_POLLIN;
	}
	e = rio_wait(run->r, socks, want, got, o->sockets, wake);
	if (e < 0 && e != -EINTR) {
		fprintf(stderr, "rdsping: %s\n", rdsu_strerror(e));
		return e;
	}
	return 0;
}

/* Ping until the count or an interrupt, then wait out the replies. */
static void ping_loop(struct run *run)
{
	const struct opts *o = run->o;

	run->next = rdsu_clock();
	for (;;) {
		rdsu_ns now = rdsu_clock();
		bool sending = !stop && (!o->count || run->seq < o->count);
		size_t outstanding = 0;

		if (sending && now >= run->next) {
			send_ping(run, now);
			run->next += (rdsu_ns)(o->interval * 1e9);
			if (run->next < now)
				run->next = now;
			continue;
		}
		for (unsigned i = 0; i < o->sockets; i++) {
			drain(o, &run->st, &run->ps[i], i, run->setup);
			if (expire(run->r, o, &run->st, &run->ps[i], i, now, false) < 0) {
				fprintf(stderr, "rdsping: cannot replace socket %u\n", i);
				stop = 1;
			}
			outstanding += run->ps[i].n;
		}
		if (!sending && (outstanding == 0 || stop))
			break;
		if (wait_next(run, sending) < 0)
			break;
	}
}

int main(int argc, char **argv)
{
	static struct opts o;
	static struct run run;
	struct argp_child children[] = {
		{ &o.ro.argp, 0, RIO_OPT_HEADER, 0 },
		{ &o.oo.argp, 0, OUT_OPT_HEADER, 0 },
		{ 0 }
	};
	struct argp_option argp_opts[OPTD_N(options) + 1];
	const struct argp ap = {
		NULL, parse, "HOST",
		"Send RDS pings to HOST (its RDS stack answers from port 0) and report the "
		"round-trip times.\v"
		"Exit status: 0 if a reply came, 1 if none did, 2 on errors.",
		children, NULL, NULL
	};
	const struct optdecl_cmd cmd = {
		&ap, options, OPTD_N(options), argp_opts, { &o.ro, &o.oo }, NULL, NULL, 0
	};
	rdsu_ns start;

	rio_cfg_default(&o.cfg);
	rio_opt_init(&o.ro, RIO_OPT_KERNEL | RIO_OPT_TRANSPORT | RIO_OPT_AUTH | RIO_OPT_LOCAL |
			    RIO_OPT_BUFS, &o.cfg);
	out_opt_init(&o.oo, OUT_OPT_JSON | OUT_OPT_QUIET, &o.json, &o.quiet, NULL, 0);
	o.interval = 1;
	o.timeout = 2;
	o.sockets = 1;
	if (optdecl_parse(&cmd, argc, argv, &o))
		return 2;
	if (pick_source(&o) < 0 || open_stack(&o, &run.r, run.ps) < 0)
		return 2;
	run.o = &o;
	banner(&o, run.ps);
	start = rdsu_clock();
	ping_loop(&run);
	/* Interrupted: what is still out is not a loss, it is unanswered. */
	for (unsigned i = 0; i < o.sockets; i++) {
		run.st.sent -= stop ? run.ps[i].n : 0;
		rio_sock_close(run.ps[i].s);
	}
	summary(&o, &run.st, rdsu_clock() - start);
	rio_close(run.r);
	return run.st.received ? 0 : 1;
}
