// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * agent.c - `rds-conform agent` and the suite's client for it (agent.h).
 *
 * The agent is a single loop: the RDS stack runs in rio_wait for a few
 * milliseconds at a time, every readable RDS socket is drained into its
 * delivery ring (unless held, which is how a case makes a port congested),
 * then the control connection is served. One control client at a time:
 * the suite is one process running one case at a time.
 */
#define _GNU_SOURCE
#include "agent.h"

#include <argp.h>
#include <errno.h>
#include <json-c/json.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <rds/rdsu_tcp.h>

#include "craft.h"
#include "line.h"
#include "node.h"
#include "out.h"
#include "parse.h"
#include "optdecl.h"
#include "rio_opt.h"

/* ------------------------------------------------------------------------
 * The suite's side
 */

struct cf_agent {
	struct line_in in;          /* in.fd: the side channel, -1 once lost */
	char buf[1 << 20];          /* a recv answer can list many messages */
	char stack[128];
	char err[256];
	int timeout_ms;
};

/* ADDR, ADDR:PORT or [V6]:PORT (craft_parse_addr); the port defaults to
 * the side channel's and is never 0. Return: 0; -EINVAL. */
static int parse_ctl(const char *where, struct rdsu_addr *a, uint16_t *port)
{
	char err[128];

	*port = CF_AGENT_PORT;
	return craft_parse_addr(where, a, port, err, sizeof(err)) || *port == 0 ? -EINVAL : 0;
}

/*
 * The side channel's messages are JSON objects, one a line, written
 * through the output layer (tools/common/out.h) as every JSON of the tools
 * is, and read with json-c (agent_codec.c on the agent's side). A request
 * has the keys its op needs; an answer has "ok" and, by op, the rest.
 */
#define F(k, t, ...) { .key = (k), .type = (t), __VA_ARGS__ }
#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Fields in enum order: a table's index is its field's id. */
enum { RQ_OP, RQ_PORT, RQ_RCVBUF, RQ_ON, RQ_TO, RQ_DPORT, RQ_FIRST, RQ_COUNT, RQ_SIZE, RQ_WANT,
       RQ_WAIT_MS, RQ_COOKIE, RQ_RADDR, RQ_FLAGS, RQ_TOKEN, RQ_SEED, RQ_N };
static const struct out_field req_fields[] = {
	F("op", OUT_STR), F("port", OUT_U64), F("rcvbuf", OUT_U64), F("on", OUT_BOOL),
	F("to", OUT_STR), F("dport", OUT_U64), F("first", OUT_U64), F("count", OUT_U64),
	F("size", OUT_U64), F("want", OUT_U64), F("wait_ms", OUT_U64), F("cookie", OUT_U64),
	F("raddr", OUT_U64), F("flags", OUT_U64), F("token", OUT_U64), F("seed", OUT_U64),
};
_Static_assert(N(req_fields) == RQ_N, "one request field a RQ_ id");
static const struct out_group req_group = OUT_GROUP("request", req_fields);

enum { MS_FROM, MS_SPORT, MS_LEN, MS_IDX, MS_GOOD, MS_N };
static const struct out_field msg_fields[] = {
	F("from", OUT_STR), F("sport", OUT_U64), F("len", OUT_U64), F("idx", OUT_U64),
	F("good", OUT_BOOL),
};
_Static_assert(N(msg_fields) == MS_N, "one delivery field a MS_ id");
static const struct out_group msg_group = OUT_GROUP("delivery", msg_fields);

enum { NT_TOKEN, NT_STATUS, NT_N };
static const struct out_field note_fields[] = { F("token", OUT_U64), F("status", OUT_U64) };
_Static_assert(N(note_fields) == NT_N, "one notification field a NT_ id");
static const struct out_group note_group = OUT_GROUP("notification", note_fields);

enum { AN_OK, AN_ERROR, AN_STACK, AN_ADDR, AN_SENT, AN_ENOBUFS, AN_EAGAIN, AN_ERRNO, AN_MSGS,
       AN_LOST, AN_COOKIE, AN_HASH, AN_TAIL, AN_NOTES, AN_N };
static const struct out_field ans_fields[] = {
	F("ok", OUT_BOOL), F("error", OUT_QUOTED), F("stack", OUT_QUOTED), F("addr", OUT_STR),
	F("sent", OUT_U64), F("enobufs", OUT_U64), F("eagain", OUT_U64), F("errno", OUT_U64),
	F("msgs", OUT_ARRAY, .sub = &msg_group), F("lost", OUT_U64), F("cookie", OUT_U64),
	F("hash", OUT_U64), F("tail", OUT_U64), F("notes", OUT_ARRAY, .sub = &note_group),
};
_Static_assert(N(ans_fields) == AN_N, "one answer field an AN_ id");
static const struct out_group ans_group = OUT_GROUP("answer", ans_fields);

/* Start request |op| for |port| (none if negative) in |o|; call() ends it. */
static struct out *req_new(struct out *o, const char *op, int port)
{
	out_init(o, NULL, OUT_JSON, 0, 0);
	out_begin(o, &req_group);
	out_str(o, RQ_OP, op);
	if (port >= 0)
		out_u64(o, RQ_PORT, (uint64_t)port);
	return o;
}

/* Send |line| (a JSON object, freed here) and its newline. */
static int send_line(int fd, char *line)
{
	int e = line ? line_send(fd, line) : -ENOMEM;

	if (!e)
		e = line_send(fd, "\n");
	free(line);
	return e;
}

/* One request (consumed), one answer line. Return: the parsed answer
 * (the caller puts it) or NULL with a->err set. An agent that does not
 * answer in time is given up: a late answer would be taken for the next
 * request's. */
static struct json_object *call(struct cf_agent *a, struct out *req, int wait_ms)
{
	int limit = wait_ms + a->timeout_ms + 5000, e;
	struct json_object *ans, *ok, *why;
	char *text = out_take(req);
	size_t len;
	char *line;

	out_fini(req);
	if (a->in.fd < 0) {
		free(text);
		snprintf(a->err, sizeof(a->err), "agent connection lost");
		return NULL;
	}
	e = send_line(a->in.fd, text);
	if (!e)
		e = line_recv(&a->in, limit, &line, &len);
	if (e == -ETIMEDOUT) {
		snprintf(a->err, sizeof(a->err), "agent did not answer within %d ms", limit);
		close(a->in.fd);
		a->in.fd = -1;
		return NULL;
	}
	if (e)
		goto lost;
	ans = json_tokener_parse(line);
	if (!ans) {
		snprintf(a->err, sizeof(a->err), "agent answered something that is not JSON");
		return NULL;
	}
	if (!json_object_object_get_ex(ans, "ok", &ok) || !json_object_get_boolean(ok)) {
		snprintf(a->err, sizeof(a->err), "agent refused: %s",
			 json_object_object_get_ex(ans, "error", &why) ?
			 json_object_get_string(why) : "?");
		json_object_put(ans);
		errno = EREMOTEIO;
		return NULL;
	}
	a->err[0] = '\0';
	return ans;
lost:
	snprintf(a->err, sizeof(a->err), "agent connection lost");
	close(a->in.fd);
	a->in.fd = -1;
	errno = EPIPE;
	return NULL;
}

static int simple(struct cf_agent *a, struct out *req)
{
	struct json_object *ans = call(a, req, 0);

	if (!ans)
		return a->in.fd < 0 ? -EPIPE : -EREMOTEIO;
	json_object_put(ans);
	return 0;
}

int cf_agent_connect(const char *where, int timeout_ms, struct cf_agent **out, char *why,
		     size_t cap)
{
	struct rdsu_addr ad;
	struct cf_agent *a;
	struct json_object *ans, *v;
	struct out o;
	uint16_t port;
	int fd;

	*out = NULL;
	if (parse_ctl(where, &ad, &port)) {
		snprintf(why, cap, "bad agent address %s (ADDR or ADDR:PORT)", where);
		return -EINVAL;
	}
	a = calloc(1, sizeof(*a));
	if (!a) {
		snprintf(why, cap, "out of memory");
		return -ENOMEM;
	}
	a->timeout_ms = timeout_ms;
	fd = line_connect(&ad, port, timeout_ms);
	if (fd < 0) {
		snprintf(why, cap, "cannot reach the agent at %s: %s", where, strerror(-fd));
		free(a);
		return fd;
	}
	line_in_init(&a->in, fd, a->buf, sizeof(a->buf));
	ans = call(a, req_new(&o, "hello", -1), 0);
	if (!ans) {
		snprintf(why, cap, "agent %s: %s", where, a->err);
		cf_agent_close(a);
		return -EPROTO;
	}
	if (json_object_object_get_ex(ans, "stack", &v))
		snprintf(a->stack, sizeof(a->stack), "%s", json_object_get_string(v));
	json_object_put(ans);
	*out = a;
	return 0;
}

void cf_agent_close(struct cf_agent *a)
{
	if (!a)
		return;
	if (a->in.fd >= 0)
		close(a->in.fd);
	free(a);
}

const char *cf_agent_stack(const struct cf_agent *a)
{
	return a->stack;
}

const char *cf_agent_error(const struct cf_agent *a)
{
	return a->err;
}

bool cf_agent_alive(struct cf_agent *a)
{
	struct out o;
	struct json_object *ans = call(a, req_new(&o, "hello", -1), 0);

	json_object_put(ans);
	return ans != NULL;
}

int cf_agent_bind(struct cf_agent *a, uint16_t port, uint32_t rcvbuf)
{
	struct out o;

	out_u64(req_new(&o, "bind", port), RQ_RCVBUF, rcvbuf);
	return simple(a, &o);
}

int cf_agent_unbind(struct cf_agent *a, uint16_t port)
{
	struct out o;

	return simple(a, req_new(&o, "close", port));
}

int cf_agent_hold(struct cf_agent *a, uint16_t port, bool on)
{
	struct out o;

	out_bool(req_new(&o, "hold", port), RQ_ON, on);
	return simple(a, &o);
}

static uint32_t get_u32(struct json_object *o, const char *k)
{
	struct json_object *v;

	return json_object_object_get_ex(o, k, &v) ? (uint32_t)json_object_get_int64(v) : 0;
}

int cf_agent_send(struct cf_agent *a, uint16_t port, const struct rdsu_addr *to, uint16_t dport,
		  uint64_t first, uint32_t count, uint32_t size, uint32_t wait_ms,
		  struct cf_sent *out)
{
	struct json_object *ans;
	struct out o;
	char t[64];

	req_new(&o, "send", port);
	out_str(&o, RQ_TO, cf_addr(to, t));
	out_u64(&o, RQ_DPORT, dport);
	out_u64(&o, RQ_FIRST, first);
	out_u64(&o, RQ_COUNT, count);
	out_u64(&o, RQ_SIZE, size);
	out_u64(&o, RQ_WAIT_MS, wait_ms);
	ans = call(a, &o, (int)wait_ms);
	memset(out, 0, sizeof(*out));
	if (!ans)
		return a->in.fd < 0 ? -EPIPE : -EREMOTEIO;
	out->sent = get_u32(ans, "sent");
	out->enobufs = get_u32(ans, "enobufs");
	out->eagain = get_u32(ans, "eagain");
	out->err = (int)get_u32(ans, "errno");
	json_object_put(ans);
	return 0;
}

int cf_agent_recv(struct cf_agent *a, uint16_t port, uint32_t want, uint32_t wait_ms,
		  struct cf_delivery *out, size_t cap, size_t *n)
{
	struct json_object *ans, *msgs;
	struct out o;
	size_t len;

	req_new(&o, "recv", port);
	out_u64(&o, RQ_WANT, want);
	out_u64(&o, RQ_WAIT_MS, wait_ms);
	ans = call(a, &o, (int)wait_ms);
	*n = 0;
	if (!ans)
		return a->in.fd < 0 ? -EPIPE : -EREMOTEIO;
	if (!json_object_object_get_ex(ans, "msgs", &msgs) ||
	    !json_object_is_type(msgs, json_type_array)) {
		json_object_put(ans);
		snprintf(a->err, sizeof(a->err), "agent's recv answer has no msgs");
		return -EPROTO;
	}
	len = json_object_array_length(msgs);
	*n = len + get_u32(ans, "lost");
	for (size_t i = 0; i < len && i < cap; i++) {
		struct json_object *m = json_object_array_get_idx(msgs, i), *v;

		memset(&out[i], 0, sizeof(out[i]));
		if (json_object_object_get_ex(m, "from", &v))
			parse_addr(json_object_get_string(v), &out[i].from);
		out[i].sport = (uint16_t)get_u32(m, "sport");
		out[i].len = get_u32(m, "len");
		out[i].idx = json_object_object_get_ex(m, "idx", &v) ?
			     (uint64_t)json_object_get_int64(v) : UINT64_MAX;
		out[i].good = json_object_object_get_ex(m, "good", &v) && json_object_get_boolean(v);
	}
	json_object_put(ans);
	return 0;
}

static uint64_t get_u64(struct json_object *o, const char *k)
{
	struct json_object *v;

	/* a digest is any u64: json-c clamps get_int64 at INT64_MAX */
	return json_object_object_get_ex(o, k, &v) ? json_object_get_uint64(v) : 0;
}

/* An RDMA request (consumed): its "errno" in *err, and the answer for
 * the caller to read (put here when |keep| is NULL). */
static int rdma_call(struct cf_agent *a, struct out *o, int wait_ms, int *err,
		     struct json_object **keep)
{
	struct json_object *ans = call(a, o, wait_ms);

	if (err)
		*err = 0;
	if (!ans)
		return a->in.fd < 0 ? -EPIPE : -EREMOTEIO;
	if (err)
		*err = (int)get_u32(ans, "errno");
	if (keep)
		*keep = ans;
	else
		json_object_put(ans);
	return 0;
}

/* The RDMA requests' common part: op, port, to, dport, size, seed. */
static struct out *rdma_req(struct out *o, const char *op, uint16_t port,
			    const struct rdsu_addr *to, uint16_t dport, uint32_t size, uint32_t seed)
{
	char t[64];

	req_new(o, op, port);
	out_str(o, RQ_TO, cf_addr(to, t));
	out_u64(o, RQ_DPORT, dport);
	out_u64(o, RQ_SIZE, size);
	out_u64(o, RQ_SEED, seed);
	return o;
}

int cf_agent_map(struct cf_agent *a, uint16_t port, const struct rdsu_addr *to, uint16_t dport,
		 uint32_t size, uint32_t flags, uint32_t seed, uint64_t *cookie, int *err)
{
	struct json_object *ans = NULL;
	struct out o;
	int e;

	out_u64(rdma_req(&o, "map", port, to, dport, size, seed), RQ_FLAGS, flags);
	e = rdma_call(a, &o, 0, err, &ans);
	*cookie = ans ? get_u64(ans, "cookie") : 0;
	json_object_put(ans);
	return e;
}

int cf_agent_free_mr(struct cf_agent *a, uint16_t port, uint64_t cookie, uint32_t flags,
		     int *err)
{
	struct out o;

	req_new(&o, "free_mr", port);
	out_u64(&o, RQ_COOKIE, cookie);
	out_u64(&o, RQ_FLAGS, flags);
	return rdma_call(a, &o, 0, err, NULL);
}

int cf_agent_region(struct cf_agent *a, uint16_t port, uint64_t cookie, uint64_t *hash,
		    uint64_t *tail)
{
	struct json_object *ans = NULL;
	struct out o;
	int e;

	out_u64(req_new(&o, "region", port), RQ_COOKIE, cookie);
	e = rdma_call(a, &o, 0, NULL, &ans);
	*hash = ans ? get_u64(ans, "hash") : 0;
	*tail = ans ? get_u64(ans, "tail") : 0;
	json_object_put(ans);
	return e;
}

int cf_agent_rdma(struct cf_agent *a, uint16_t port, const struct rdsu_addr *to, uint16_t dport,
		  uint64_t cookie, uint64_t raddr, uint32_t size, uint32_t flags, uint64_t token,
		  uint32_t seed, int *err)
{
	struct out o;

	rdma_req(&o, "rdma", port, to, dport, size, seed);
	out_u64(&o, RQ_COOKIE, cookie);
	out_u64(&o, RQ_RADDR, raddr);
	out_u64(&o, RQ_FLAGS, flags);
	out_u64(&o, RQ_TOKEN, token);
	return rdma_call(a, &o, 0, err, NULL);
}

int cf_agent_notes(struct cf_agent *a, uint16_t port, uint32_t want, uint32_t wait_ms,
		   struct rdsu_notify *out, size_t cap, size_t *n)
{
	struct json_object *ans = NULL, *notes;
	struct out o;
	int e;

	req_new(&o, "notes", port);
	out_u64(&o, RQ_WANT, want);
	out_u64(&o, RQ_WAIT_MS, wait_ms);
	*n = 0;
	e = rdma_call(a, &o, (int)wait_ms, NULL, &ans);
	if (e)
		return e;
	if (!json_object_object_get_ex(ans, "notes", &notes) ||
	    !json_object_is_type(notes, json_type_array)) {
		json_object_put(ans);
		snprintf(a->err, sizeof(a->err), "agent's notes answer has no notes");
		return -EPROTO;
	}
	*n = json_object_array_length(notes);
	for (size_t i = 0; i < *n && i < cap; i++) {
		struct json_object *m = json_object_array_get_idx(notes, i);

		out[i].user_token = get_u64(m, "token");
		out[i].status = (int)get_u32(m, "status");
	}
	json_object_put(ans);
	return 0;
}

/* ------------------------------------------------------------------------
 * The agent
 */

#define AG_SOCKS 64
#define AG_RING 65536               /* deliveries kept per port */

#define AG_NOTES 256
#define AG_REGIONS 32
#define AG_LOCALS 8                 /* RDMA source buffers, reused in turn */

struct ag_sock {
	struct rio_sock *s;
	uint16_t port;
	bool hold;
	struct cf_delivery *ring;
	size_t head, n, lost;
	struct rdsu_notify notes[AG_NOTES];
	size_t n_notes;
};

/* A region the agent registered (kept, memory and all, until it exits:
 * the peer may still write into a freed one, and that is what a case
 * looks at). */
struct ag_region {
	uint8_t *mem;               /* whole pages; the region at CF_REGION_OFF */
	uint32_t len;
	uint64_t cookie;
};

struct ag {
	struct rio_cfg cfg;
	struct rdsu_addr addr;
	struct rdsu_addr ctl_addr;
	uint16_t ctl_port;
	bool have_ctl_addr;
	bool once;
	struct rio *r;
	struct ag_sock socks[AG_SOCKS];
	size_t n_socks;
	uint8_t *buf;
	char stack[128];
	bool ib;                    /* the stack runs IB (--transport) */
	struct rio_opt ro;          /* the stack options, into cfg */
	struct ag_region regions[AG_REGIONS];
	size_t n_regions;
	uint8_t *locals[AG_LOCALS];
	unsigned next_local;
};

static volatile sig_atomic_t ag_stop;

static void on_signal(int sig)
{
	(void)sig;
	ag_stop = 1;
}

enum { AO_CTL = 0x100, AO_ONCE };

/* The agent's own options, once; the stack's are rio_opt's (AG_STACK_OPTS). */
static const struct optdecl ag_options[] = {
	/* the old spelling of the stack's -I, --local: the peer's RDS address */
	{ 'b', "bind", "ADDR", NULL, OPTION_HIDDEN, 0, .kind = OPTD_CUSTOM },
	{ AO_CTL, "ctl", "ADDR[:PORT]", "side channel to listen on (default: -I's address, port "
	  "18600)", 0, 0, .kind = OPTD_CUSTOM },
	{ AO_ONCE, "once", NULL, "exit when the first control client disconnects", 0, 0, OPTD_FLAG,
	  OPTD_FIELD(struct ag, once) },
};

/* The stack options the agent offers: the node under test's stack, on
 * -I's address (needed: the peer's RDS address). With --transport ib (or
 * auto on an RDMA device's address) librds runs IB alone there (rdma_cm
 * port 18634); the kernel delivers what comes over IB to its bound
 * sockets anyway. */
#define AG_STACK_OPTS (RIO_OPT_KERNEL | RIO_OPT_KVER | RIO_OPT_NPATHS | RIO_OPT_GEN | \
		       RIO_OPT_PORTS | RIO_OPT_TRANSPORT | RIO_OPT_FAULT | RIO_OPT_AUTH | \
		       RIO_OPT_LOCAL | RIO_OPT_BUFS)

static error_t ag_parse(int key, char *arg, struct argp_state *st)
{
	struct ag *g = st->input;

	switch (key) {
	case 'b':
		return rio_opt_take(&g->ro, RIO_KEY_LOCAL, arg, st);
	case AO_CTL:
		if (parse_ctl(arg, &g->ctl_addr, &g->ctl_port))
			argp_error(st, "bad --ctl %s", arg);
		g->have_ctl_addr = true;
		return 0;
	case ARGP_KEY_END:
		if (!g->cfg.local.given)
			argp_error(st, "-I ADDR is needed: the peer's RDS address");
		if (rio_local_pick(&g->cfg.local, NULL, &g->addr) < 0)
			argp_error(st, "-I %s: the interface has no address", g->cfg.local.iface);
		rio_cfg_add_addr(&g->cfg, &g->addr);
		if (g->cfg.kernel && g->cfg.ep.faults)
			argp_error(st, "--fault is for librds, not --kernel");
		/* The peer under test listens and connects on one port: a
		 * --listen-port alone is both, as it always was here. */
		if (g->cfg.tcp.connect_port == RDSU_TCP_PORT)
			g->cfg.tcp.connect_port = g->cfg.tcp.listen_port;
		g->ib = g->cfg.kernel ? g->cfg.transport == RIO_TRANS_IB
				      : rio_trans_pick(g->cfg.transport, &g->addr) == RIO_TRANS_IB;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static struct ag_sock *ag_find(struct ag *g, uint16_t port)
{
	for (size_t i = 0; i < g->n_socks; i++)
		if (g->socks[i].port == port)
			return &g->socks[i];
	return NULL;
}

static void ag_drain(struct ag *g, struct ag_sock *k)
{
	for (;;) {
		struct rdsu_addr from;
		uint16_t sport;
		bool trunc;
		ssize_t n = rio_recv(k->s, g->buf, WIRE_MAX_MSG_LEN, &from, &sport, &trunc);
		struct cf_delivery *d;

		if (n < 0)
			return;
		if (k->n == AG_RING) {
			k->lost++;
			continue;
		}
		d = &k->ring[(k->head + k->n++) % AG_RING];
		d->from = from;
		d->sport = sport;
		d->len = (uint32_t)n;
		d->good = !trunc && cf_idx_check(g->buf, (uint32_t)n, &d->idx);
	}
}

static void ag_take_notes(struct ag_sock *k)
{
	struct rdsu_notify n;

	while (rio_next_notify(k->s, &n) == 1)
		if (k->n_notes < AG_NOTES)
			k->notes[k->n_notes++] = n;
}

/* Let the stack run and take what arrived, for up to |ms|. */
static void ag_pump(struct ag *g, int ms)
{
	struct rio_sock *socks[AG_SOCKS];
	unsigned want[AG_SOCKS], got[AG_SOCKS];
	size_t n = 0;

	for (size_t i = 0; i < g->n_socks; i++) {
		if (g->socks[i].hold)
			continue;
		socks[n] = g->socks[i].s;
		want[n++] = RIO_POLLIN;
	}
	if (n == 0) {
		rio_idle(g->r, (rdsu_ns)ms * RDSU_MSEC);
		return;
	}
	if (rio_wait(g->r, socks, want, got, n, rdsu_clock() + (rdsu_ns)ms * RDSU_MSEC) <= 0)
		return;
	for (size_t i = 0; i < g->n_socks; i++)
		if (!g->socks[i].hold) {
			ag_drain(g, &g->socks[i]);
			ag_take_notes(&g->socks[i]);
		}
}

/* The answer is a refusal: "ok" false and why. Return: -1. */
static int reply_err(struct out *ans, const char *what, int e)
{
	char b[160];

	if (e)
		snprintf(b, sizeof(b), "%s: %s", what, strerror(-e));
	else
		snprintf(b, sizeof(b), "%s", what);
	out_bool(ans, AN_OK, false);
	out_str(ans, AN_ERROR, b);
	return -1;
}

static void ag_send(struct ag *g, struct ag_sock *k, const struct cf_agent_req *q,
		    struct out *ans)
{
	uint32_t sent = 0, enobufs = 0, eagain = 0;
	rdsu_ns end = rdsu_clock() + (rdsu_ns)q->wait_ms * RDSU_MSEC;
	int last = 0;

	while (sent < q->count) {
		int e;

		cf_idx_payload(g->buf, q->size, q->first + sent);
		e = rio_send(k->s, &q->to, q->dport, g->buf, q->size);
		if (e == 0) {
			sent++;
			continue;
		}
		if (e == -ENOBUFS) {
			/* A congested port: report it; the case decides
			 * whether to wait for the uncongested map. */
			enobufs++;
			break;
		}
		if (e != -EAGAIN) {
			last = -e;
			break;
		}
		eagain++;
		if (rdsu_clock() >= end)
			break;
		/* SNDBUF full: let the stack write and take acks. */
		ag_pump(g, 2);
	}
	out_u64(ans, AN_SENT, sent);
	out_u64(ans, AN_ENOBUFS, enobufs);
	out_u64(ans, AN_EAGAIN, eagain);
	out_u64(ans, AN_ERRNO, (uint64_t)last);
}

static void ag_recv(struct ag *g, struct ag_sock *k, const struct cf_agent_req *q,
		    struct out *ans)
{
	rdsu_ns end = rdsu_clock() + (rdsu_ns)q->wait_ms * RDSU_MSEC;
	char a[64];

	while (!k->hold && k->n < q->want && rdsu_clock() < end)
		ag_pump(g, 2);
	out_arr_open(ans, AN_MSGS);
	while (k->n) {
		struct cf_delivery *d = &k->ring[k->head];

		out_elem_obj(ans);
		out_str(ans, MS_FROM, cf_addr(&d->from, a));
		out_u64(ans, MS_SPORT, d->sport);
		out_u64(ans, MS_LEN, d->len);
		if (d->good && d->len >= 8)
			out_u64(ans, MS_IDX, d->idx);
		out_bool(ans, MS_GOOD, d->good);
		out_close(ans);
		k->head = (k->head + 1) % AG_RING;
		k->n--;
	}
	out_close(ans);
	out_u64(ans, AN_LOST, k->lost);
	k->lost = 0;
}

/* A message with |op| to q->to:q->dport, a full send buffer (or the
 * kernel's EAGAIN for a MAP before the connection) waited on for up to
 * 3 s. Return: 0; negative errno. */
static int ag_send_op(struct ag *g, struct ag_sock *k, const struct cf_agent_req *q,
		      const struct rdsu_op *op)
{
	rdsu_ns end = rdsu_clock() + 3 * RDSU_SEC;
	uint8_t msg[16];
	int e;

	cf_idx_payload(msg, sizeof(msg), q->seed);
	while ((e = rio_send_op(k->s, &q->to, q->dport, msg, sizeof(msg), op)) == -EAGAIN &&
	       rdsu_clock() < end)
		ag_pump(g, 5);
	return e;
}

static struct ag_region *ag_region_of(struct ag *g, uint64_t cookie)
{
	struct ag_region *m = g->regions, *end = g->regions + g->n_regions;

	while (m < end && m->cookie != cookie)
		m++;
	return m < end ? m : NULL;
}

static int ag_map(struct ag *g, struct ag_sock *k, const struct cf_agent_req *q, struct out *ans)
{
	struct ag_region *m = &g->regions[g->n_regions];
	size_t pages = (CF_REGION_OFF + q->size + CF_PAGE - 1) / CF_PAGE;
	/* the rest of the region's last page; then a page more */
	uint32_t tail = (uint32_t)(pages * CF_PAGE - CF_REGION_OFF - q->size);
	struct rdsu_op op = { .kind = RDSU_OP_MAP, .flags = q->flags };
	int e;

	if (g->n_regions == AG_REGIONS)
		return reply_err(ans, "map", -ENOBUFS);
	m->mem = aligned_alloc(CF_PAGE, (pages + 1) * CF_PAGE);
	if (!m->mem)
		return reply_err(ans, "map", -ENOMEM);
	m->len = q->size;
	cf_region_fill(m->mem + CF_REGION_OFF, q->size, q->seed);
	cf_region_fill(m->mem + CF_REGION_OFF + q->size, tail, q->seed + 1);
	cf_region_fill(m->mem + pages * CF_PAGE, CF_PAGE, q->seed + 2);
	op.map_addr = m->mem + CF_REGION_OFF;
	op.map_len = q->size;
	op.map_cookie = &m->cookie;
	m->cookie = 0;
	e = ag_send_op(g, k, q, &op);
	out_u64(ans, AN_ERRNO, (uint64_t)-e);
	if (e || !m->cookie) {
		free(m->mem);
		return 0;
	}
	out_u64(ans, AN_COOKIE, m->cookie);
	g->n_regions++;
	return 0;
}

static int ag_region(struct ag *g, const struct cf_agent_req *q, struct out *ans)
{
	struct ag_region *m = ag_region_of(g, q->cookie);
	size_t end;

	if (!m)
		return reply_err(ans, "no region has that cookie", 0);
	end = (CF_REGION_OFF + m->len + CF_PAGE - 1) / CF_PAGE * CF_PAGE;
	out_u64(ans, AN_HASH, cf_region_hash(m->mem + CF_REGION_OFF, m->len));
	out_u64(ans, AN_TAIL, cf_region_hash(m->mem + CF_REGION_OFF + m->len,
					     end - CF_REGION_OFF - m->len));
	return 0;
}

static int ag_rdma(struct ag *g, struct ag_sock *k, const struct cf_agent_req *q, struct out *ans)
{
	uint8_t **l = &g->locals[g->next_local++ % AG_LOCALS];
	struct iovec iov;
	struct rdsu_op op = {
		.kind = RDSU_OP_RDMA, .flags = q->flags, .user_token = q->token,
		.cookie = q->cookie, .remote_addr = q->raddr, .remote_len = q->size,
		.local = &iov, .nr_local = 1,
	};

	/* a buffer stays the operation's until AG_LOCALS later ones */
	if (!*l)
		*l = aligned_alloc(CF_PAGE, CF_REGION_MAX);
	if (!*l)
		return reply_err(ans, "rdma", -ENOMEM);
	cf_region_fill(*l, q->size, q->seed);
	iov.iov_base = *l;
	iov.iov_len = q->size;
	out_u64(ans, AN_ERRNO, (uint64_t)-ag_send_op(g, k, q, &op));
	return 0;
}

static void ag_notes(struct ag *g, struct ag_sock *k, const struct cf_agent_req *q,
		     struct out *ans)
{
	rdsu_ns end = rdsu_clock() + (rdsu_ns)q->wait_ms * RDSU_MSEC;

	while (k->n_notes < q->want && rdsu_clock() < end)
		ag_pump(g, 2);
	out_arr_open(ans, AN_NOTES);
	for (size_t i = 0; i < k->n_notes; i++) {
		out_elem_obj(ans);
		out_u64(ans, NT_TOKEN, k->notes[i].user_token);
		out_u64(ans, NT_STATUS, (uint64_t)k->notes[i].status);
		out_close(ans);
	}
	out_close(ans);
	k->n_notes = 0;
}

/* The RDMA requests. Return: as ag_request. */
static int ag_request_rdma(struct ag *g, struct ag_sock *k, const struct cf_agent_req *q,
			   struct out *ans)
{
	switch (q->op) {
	case CF_OP_MAP:
		return ag_map(g, k, q, ans);
	case CF_OP_FREE_MR:
		out_u64(ans, AN_ERRNO, (uint64_t)-rio_free_mr(k->s, q->cookie, q->flags));
		return 0;
	case CF_OP_REGION:
		return ag_region(g, q, ans);
	case CF_OP_RDMA:
		return ag_rdma(g, k, q, ans);
	default:
		ag_notes(g, k, q, ans);
		return 0;
	}
}

/* Carry out the request |line| into the answer |ans| (begun).
 * Return: 0 done ("ok" is the caller's), -1 refused (said in |ans|). */
static int ag_request(struct ag *g, const char *line, size_t len, struct out *ans)
{
	struct cf_agent_req q;
	struct ag_sock *k = NULL;
	char err[160], a[64];
	int e;

	if (cf_agent_parse(line, len, &q, err, sizeof(err)))
		return reply_err(ans, err, 0);
	if (q.op != CF_OP_HELLO && q.op != CF_OP_BIND) {
		k = ag_find(g, q.port);
		if (!k)
			return reply_err(ans, "port not bound", 0);
	}
	switch (q.op) {
	case CF_OP_HELLO:
		out_str(ans, AN_STACK, g->stack);
		out_str(ans, AN_ADDR, cf_addr(&g->addr, a));
		break;
	case CF_OP_BIND:
		if (ag_find(g, q.port))
			return reply_err(ans, "port already bound", 0);
		if (g->n_socks == AG_SOCKS)
			return reply_err(ans, "too many sockets", -EMFILE);
		k = &g->socks[g->n_socks];
		memset(k, 0, sizeof(*k));
		k->ring = calloc(AG_RING, sizeof(*k->ring));
		if (!k->ring)
			return reply_err(ans, "bind", -ENOMEM);
		e = rio_socket(g->r, &g->addr, q.port, &k->s);
		if (!e && q.rcvbuf)
			e = rio_set_bufs(k->s, 0, q.rcvbuf);
		if (e) {
			if (k->s)
				rio_sock_close(k->s);
			free(k->ring);
			return reply_err(ans, "bind", e);
		}
		k->port = q.port;
		g->n_socks++;
		break;
	case CF_OP_CLOSE:
		rio_sock_close(k->s);
		free(k->ring);
		*k = g->socks[--g->n_socks];
		break;
	case CF_OP_HOLD:
		k->hold = q.on;
		break;
	case CF_OP_SEND:
		ag_send(g, k, &q, ans);
		break;
	case CF_OP_RECV:
		ag_recv(g, k, &q, ans);
		break;
	default:
		return ag_request_rdma(g, k, &q, ans);
	}
	return 0;
}

static void ag_stack_name(struct ag *g)
{
	struct utsname u;

	if (g->cfg.kernel) {
		uname(&u);
		snprintf(g->stack, sizeof(g->stack), "kernel %s (AF_RDS%s)", u.release,
			 g->ib ? ", IB" : "");
	} else {
		snprintf(g->stack, sizeof(g->stack), "librds %s (kver %d, npaths %u%s%s)",
			 RDSTK_VERSION, g->cfg.ep.kver, g->cfg.ep.npaths, g->ib ? ", IB" : "",
			 g->cfg.ep.faults ? ", FAULTY" : "");
	}
}

/* Serve one control client until it goes. */
static void ag_serve(struct ag *g, int cfd)
{
	char *buf = malloc(CF_AGENT_LINE_MAX + 1);
	bool skipping = false;
	struct line_in in;

	if (!buf)
		return;
	line_in_init(&in, cfd, buf, CF_AGENT_LINE_MAX + 1);
	while (!ag_stop) {
		struct out ans;
		size_t len;
		char *line;
		int e;

		ag_pump(g, 2);
		e = line_recv(&in, 0, &line, &len);
		if (e == -ETIMEDOUT)
			continue;
		if (e == -EMSGSIZE) {
			/* No newline in a whole line's worth: drop it and
			 * answer the error when its end comes. */
			line_discard(&in);
			skipping = true;
			continue;
		}
		if (e)
			break;
		out_init(&ans, NULL, OUT_JSON, 0, 0);
		out_begin(&ans, &ans_group);
		if (len && line[len - 1] == '\r')
			len--;
		if (skipping) {
			reply_err(&ans, "request line too long", 0);
			skipping = false;
		} else if (ag_request(g, line, len, &ans) == 0) {
			out_bool(&ans, AN_OK, true);
		}
		e = send_line(cfd, out_take(&ans));
		out_fini(&ans);
		if (e)
			break;
	}
	free(buf);
}

int agent_main(int argc, char **argv)
{
	static struct ag g;
	struct argp_child children[] = { { &g.ro.argp, 0, RIO_OPT_HEADER, 0 }, { 0 } };
	static struct argp_option argp_opts[OPTD_N(ag_options) + 1];
	static char name[] = "rds-conform agent";
	const struct argp argp = {
		NULL, ag_parse, NULL,
		"Run beside the RDS peer under test; rds-conform --agent ADDR[:PORT] asks it to\n"
		"bind, send and report deliveries.", children, NULL, NULL
	};
	const struct optdecl_cmd cmd = {
		&argp, ag_options, OPTD_N(ag_options), argp_opts, { &g.ro }, NULL, name, 0
	};
	int lfd, e;

	memset(&g, 0, sizeof(g));
	rio_cfg_default(&g.cfg);
	rio_opt_init(&g.ro, AG_STACK_OPTS, &g.cfg);
	/* rdstop --librds can watch the node under test */
	g.cfg.monitor = true;
	g.cfg.ep.path_rule = RDSU_PATH_BY_PORT;  /* it stands in for a kernel */
	if (optdecl_parse(&cmd, argc, argv, &g))
		return 2;
	g.buf = malloc(WIRE_MAX_MSG_LEN);
	if (!g.buf)
		return 1;
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	ag_stack_name(&g);
	e = rio_open(&g.r, &g.cfg);
	if (e) {
		fprintf(stderr, "rds-conform agent: cannot start the RDS stack: %s\n",
			rio_open_strerror(&g.cfg, e));
		free(g.buf);
		return 1;
	}
	lfd = line_listen(g.have_ctl_addr ? &g.ctl_addr : &g.addr,
			  g.ctl_port ? g.ctl_port : CF_AGENT_PORT);
	if (lfd < 0) {
		fprintf(stderr, "rds-conform agent: cannot listen for the suite: %s\n", strerror(-lfd));
		rio_close(g.r);
		free(g.buf);
		return 1;
	}
	fprintf(stderr, "rds-conform agent: %s ready\n", g.stack);
	while (!ag_stop) {
		struct pollfd p = { .fd = lfd, .events = POLLIN };
		int cfd;

		ag_pump(&g, 2);
		if (poll(&p, 1, 0) <= 0)
			continue;
		cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (cfd < 0)
			continue;
		ag_serve(&g, cfd);
		close(cfd);
		if (g.once)
			break;
	}
	for (size_t i = 0; i < g.n_socks; i++) {
		rio_sock_close(g.socks[i].s);
		free(g.socks[i].ring);
	}
	for (size_t i = 0; i < g.n_regions; i++)
		free(g.regions[i].mem);
	for (size_t i = 0; i < AG_LOCALS; i++)
		free(g.locals[i]);
	close(lfd);
	rio_close(g.r);
	free(g.buf);
	return 0;
}
