// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * node.c - rds-conform: the crafted RDS/TCP node (node.h).
 *
 * Plain blocking-with-timeout socket code: the cases are sequential
 * scripts, and a poll() per wait keeps every wait bounded by the run's
 * timeout. What the peer sends is framed by libwire into one buffer of the
 * largest legal message, allocated once per connection whatever the
 * peer's h_len says (a larger h_len fails the stream, which the hostile
 * cases expect of nobody but themselves).
 */
#define _GNU_SOURCE
#include "node.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rds/rdsu_tcp.h>

#include "payload.h"

const char *cf_addr(const struct rdsu_addr *a, char buf[64])
{
	return rdsu_addr_str(a, buf, 64);
}

uint16_t cf_port(struct cf_run *r)
{
	/* Ports above the kernel's usual ephemeral bind range start, so a
	 * case's port is never one the agent or the peer's own tools hold. */
	if (r->next_port < 20000 || r->next_port > 29999)
		r->next_port = 20000;
	return r->next_port++;
}

/* One stream for every message the suite and the agent number: a case
 * tells its messages apart by index and port, not by stream. */
#define CF_STREAM 0

void cf_idx_payload(uint8_t *buf, uint32_t len, uint64_t idx)
{
	if (len)
		payload_fill(buf, len, CF_STREAM, idx);
}

bool cf_idx_check(const uint8_t *buf, uint32_t len, uint64_t *idx)
{
	if (len < 8) {
		*idx = UINT64_MAX;
		return len == 0;
	}
	*idx = payload_index(buf);
	return payload_check(buf, len, CF_STREAM, *idx);
}

uint64_t cf_idx_head(const uint8_t head[8])
{
	return payload_index(head);
}

static struct cf_conn *conn_new(struct cf_run *r, int fd)
{
	struct cf_conn *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->gather = malloc(WIRE_MAX_MSG_LEN);
	c->log = calloc(CF_LOG_MAX, sizeof(*c->log));
	if (!c->gather || !c->log) {
		free(c->gather);
		free(c->log);
		free(c);
		return NULL;
	}
	c->r = r;
	c->fd = fd;
	c->t_open = rdsu_clock();
	c->answer = true;
	c->npaths = 1;
	wire_deframer_init(&c->dfr, WIRE_MAX_MSG_LEN, c->gather, WIRE_MAX_MSG_LEN);
	return c;
}

static void conn_names(struct cf_conn *c)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	if (getsockname(c->fd, (struct sockaddr *)&ss, &sl) == 0)
		rdsu_sockaddr_get(&ss, &c->laddr, &c->lport);
	sl = sizeof(ss);
	if (getpeername(c->fd, (struct sockaddr *)&ss, &sl) == 0)
		rdsu_sockaddr_get(&ss, &c->faddr, &c->fport);
}

/*
 * The connection on connected socket |fd|, which is closed on failure;
 * |dir_out| is our side of the capture's flow, whose side 0 opened it (1:
 * the peer did).
 */
static int conn_open(struct cf_run *r, int fd, int dir_out, struct cf_conn **out)
{
	struct cf_conn *c = conn_new(r, fd);

	if (!c) {
		close(fd);
		return -ENOMEM;
	}
	conn_names(c);
	if (dir_out)
		cf_pcap_flow_init(&c->flow, &c->faddr, c->fport, &c->laddr, c->lport);
	else
		cf_pcap_flow_init(&c->flow, &c->laddr, c->lport, &c->faddr, c->fport);
	c->dir_out = dir_out;
	if (r->pcap)
		cf_pcap_syn(r->pcap, &c->flow);
	*out = c;
	return 0;
}

static int tune(int fd)
{
	int one = 1;

	/* As rds_tcp_tune: a header must not wait behind Nagle. */
	return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int cf_connect(struct cf_run *r, const struct rdsu_addr *from, uint16_t from_port,
	       int rcvbuf, struct cf_conn **out)
{
	struct sockaddr_storage la, pa;
	socklen_t ll = rdsu_sockaddr(from, from_port, &la);
	socklen_t pl = rdsu_sockaddr(&r->cfg->peer, r->cfg->port, &pa);
	struct pollfd p;
	int fd, one = 1, err = 0;
	socklen_t el = sizeof(err);

	*out = NULL;
	fd = socket(la.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	tune(fd);
	if (rcvbuf > 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (bind(fd, (struct sockaddr *)&la, ll) < 0 ||
	    (connect(fd, (struct sockaddr *)&pa, pl) < 0 && errno != EINPROGRESS)) {
		err = -errno;
		close(fd);
		return err;
	}
	p = (struct pollfd){ .fd = fd, .events = POLLOUT };
	if (poll(&p, 1, r->wait_ms) <= 0) {
		close(fd);
		return -ETIMEDOUT;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0 || err) {
		close(fd);
		return err ? -err : -EIO;
	}
	return conn_open(r, fd, 0, out);
}

int cf_connect_path(struct cf_run *r, const struct rdsu_addr *from, unsigned i, unsigned n,
		    int rcvbuf, struct cf_conn **out)
{
	/* Groups of 8 from 41000, as 7.x cycles through groups above the
	 * ephemeral range's start until a bind succeeds; a port a recent
	 * connection left in TIME_WAIT is skipped the same way. */
	static unsigned group;
	int err = -EADDRINUSE;

	for (unsigned tries = 0; tries < 64 && (err == -EADDRINUSE || err == -EADDRNOTAVAIL);
	     tries++) {
		uint16_t port = (uint16_t)(41000 + (group++ % 2000) * 8);

		port = (uint16_t)(port - port % n + i);
		err = cf_connect(r, from, port, rcvbuf, out);
	}
	return err;
}

int cf_listen(const struct cf_run *r, const struct rdsu_addr *addr)
{
	struct sockaddr_storage sa;
	socklen_t sl = rdsu_sockaddr(addr, r->cfg->port, &sa);
	int fd, one = 1, err;

	fd = socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sl) < 0 || listen(fd, 16) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

int cf_accept(struct cf_run *r, int lfd, int ms, struct cf_conn **out)
{
	struct pollfd p = { .fd = lfd, .events = POLLIN };
	int fd, n;

	*out = NULL;
	n = poll(&p, 1, ms);
	if (n < 0)
		return -errno;
	if (n == 0)
		return -ETIMEDOUT;
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return -errno;
	tune(fd);
	return conn_open(r, fd, 1, out);
}

void cf_close(struct cf_conn *c, bool rst)
{
	if (!c)
		return;
	if (rst) {
		struct linger l = { .l_onoff = 1, .l_linger = 0 };

		setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	}
	if (c->r->pcap && c->closed == CF_OPEN) {
		if (rst)
			cf_pcap_rst(c->r->pcap, &c->flow, c->dir_out);
		else
			cf_pcap_fin(c->r->pcap, &c->flow, c->dir_out);
	}
	close(c->fd);
	free(c->gather);
	free(c->log);
	free(c);
}

/*
 * How the peer ended it, from the first error a socket call met: Linux
 * reports a reset of a connection the peer had already closed (its FIN
 * was in, the RST only answered bytes we sent after it) as EPIPE, and a
 * reset of an open one as ECONNRESET.
 */
static enum cf_close close_of(int err)
{
	return err == EPIPE ? CF_FIN : CF_RST;
}

static void mark_closed(struct cf_conn *c, enum cf_close how)
{
	if (c->closed != CF_OPEN)
		return;
	c->closed = how;
	if (c->r->pcap) {
		if (how == CF_RST)
			cf_pcap_rst(c->r->pcap, &c->flow, !c->dir_out);
		else
			cf_pcap_fin(c->r->pcap, &c->flow, !c->dir_out);
	}
}

int cf_send_raw(struct cf_conn *c, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t done = 0;

	while (done < len) {
		ssize_t n = send(c->fd, p + done, len - done, MSG_NOSIGNAL);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd pf = { .fd = c->fd, .events = POLLOUT };

			/* A peer that stopped reading must not hang the suite. */
			if (poll(&pf, 1, c->r->wait_ms) <= 0)
				return -ETIMEDOUT;
			continue;
		}
		if (n < 0) {
			if (errno == EPIPE || errno == ECONNRESET)
				mark_closed(c, close_of(errno));
			return -errno;
		}
		done += (size_t)n;
	}
	if (c->r->pcap)
		cf_pcap_data(c->r->pcap, &c->flow, c->dir_out, buf, len);
	return 0;
}

int cf_send(struct cf_conn *c, const struct wire_hdr *h, const void *payload, size_t len)
{
	uint8_t stack[WIRE_HDR_LEN + 256];
	uint8_t *b = stack;
	int err;

	if (len > sizeof(stack) - WIRE_HDR_LEN) {
		b = malloc(WIRE_HDR_LEN + len);
		if (!b)
			return -ENOMEM;
	}
	wire_hdr_encode(h, b, WIRE_HDR_LEN);
	if (len)
		memcpy(b + WIRE_HDR_LEN, payload, len);
	err = cf_send_raw(c, b, WIRE_HDR_LEN + len);
	if (b != stack)
		free(b);
	return err;
}

int cf_send_data(struct cf_conn *c, uint16_t sport, uint16_t dport, uint64_t idx, uint32_t len,
		 uint8_t flags)
{
	struct wire_hdr h;
	uint8_t *p = len ? malloc(len) : NULL;
	int err;

	if (len && !p)
		return -ENOMEM;
	cf_idx_payload(p, len, idx);
	wire_build_data(&h, c->r->tx_seq++, sport, dport, len);
	h.flags = flags;
	err = cf_send(c, &h, p, len);
	free(p);
	return err;
}

int cf_send_map(struct cf_conn *c, const uint16_t *congested, size_t n)
{
	struct wire_cong_map m;
	struct wire_hdr h;
	uint8_t *b = malloc(WIRE_CONG_MAP_BYTES);
	int err;

	if (!b)
		return -ENOMEM;
	wire_cong_clear_all(&m);
	for (size_t i = 0; i < n; i++)
		wire_cong_set(&m, congested[i]);
	wire_cong_encode(&m, b, WIRE_CONG_MAP_BYTES);
	wire_build_cong(&h);
	err = cf_send(c, &h, b, WIRE_CONG_MAP_BYTES);
	free(b);
	return err;
}

int cf_send_probe(struct cf_conn *c, bool pong, uint16_t npaths, enum wire_kver kv)
{
	struct wire_hdr h;

	wire_build_probe(&h, pong, c->r->tx_seq++, kv, npaths, c->r->gen);
	return cf_send(c, &h, NULL, 0);
}

/* As a kernel node: a ping gets an empty pong from port 0 to its port; a
 * probe ping a probe pong with our extension headers. */
static void answer(struct cf_conn *c, const struct cf_seen *s)
{
	struct wire_hdr h;

	if (s->kind == WIRE_KIND_PROBE_PING) {
		cf_send_probe(c, true, c->npaths, WIRE_KVER_7);
	} else if (s->kind == WIRE_KIND_PING && s->h.sport != 0) {
		wire_build_pong(&h, c->r->tx_seq++, s->h.sport);
		cf_send(c, &h, NULL, 0);
	}
}

static void log_frame(struct cf_conn *c, const struct wire_frame *f, struct cf_seen **out)
{
	struct cf_seen *s;

	if (c->n_log == CF_LOG_MAX) {
		/* Keep the first ones: they are what connection cases judge. */
		c->n_dropped++;
		*out = NULL;
		return;
	}
	if (!c->t_first)
		c->t_first = rdsu_clock();
	s = &c->log[c->n_log++];
	memset(s, 0, sizeof(*s));
	s->h = f->hdr;
	s->kind = wire_classify(&f->hdr, WIRE_XPORT_TCP);
	wire_hdr_check(&f->hdr, WIRE_XPORT_TCP, NULL, &s->rules);
	wire_msg_check(&f->hdr, WIRE_XPORT_TCP, WIRE_KVER_7, &s->rules);
	s->caplen = f->caplen < sizeof(s->head) ? f->caplen : (uint32_t)sizeof(s->head);
	memcpy(s->head, f->payload, s->caplen);
	if (s->kind == WIRE_KIND_CONG && f->len == WIRE_CONG_MAP_BYTES) {
		wire_cong_decode(&c->map, f->payload, f->len);
		c->n_maps++;
	}
	*out = s;
}

/* Frame what is buffered. Return: 1 and *m; 0 when more input is needed;
 * -EPROTO. */
static int deframe(struct cf_conn *c, struct cf_msg *m)
{
	while (c->in_off < c->in_len) {
		struct wire_frame f;
		struct cf_seen *s;
		bool ready = false;
		ssize_t n = wire_deframer_input(&c->dfr, c->in + c->in_off, c->in_len - c->in_off,
						&f, &ready);

		if (n < 0) {
			c->deframe_err = (int)n;
			return -EPROTO;
		}
		c->in_off += (size_t)n;
		if (!ready)
			continue;
		log_frame(c, &f, &s);
		if (!s) {
			static struct cf_seen overflow;

			overflow.h = f.hdr;
			overflow.kind = wire_classify(&f.hdr, WIRE_XPORT_TCP);
			s = &overflow;
		}
		if (c->answer)
			answer(c, s);
		m->s = s;
		m->payload = f.payload;
		m->len = f.len;
		return 1;
	}
	return 0;
}

int cf_recv(struct cf_conn *c, struct cf_msg *m, int ms)
{
	rdsu_ns end = rdsu_clock() + (rdsu_ns)ms * RDSU_MSEC;

	if (c->deframe_err)
		return -EPROTO;
	for (;;) {
		int got = deframe(c, m);
		struct pollfd p = { .fd = c->fd, .events = POLLIN };
		rdsu_ns now;
		ssize_t n;

		if (got)
			return got;
		if (c->closed)
			return -EPIPE;
		now = rdsu_clock();
		if (now >= end)
			return 0;
		if (poll(&p, 1, (int)((end - now + RDSU_MSEC - 1) / RDSU_MSEC)) <= 0)
			continue;
		n = recv(c->fd, c->in, sizeof(c->in), 0);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0) {
			mark_closed(c, n == 0 ? CF_FIN : close_of(errno));
			return -EPIPE;
		}
		if (c->r->pcap)
			cf_pcap_data(c->r->pcap, &c->flow, !c->dir_out, c->in, (size_t)n);
		c->rx_bytes += (uint64_t)n;
		c->in_len = (size_t)n;
		c->in_off = 0;
	}
}

rdsu_ns cf_deadline(int ms)
{
	return rdsu_clock() + (rdsu_ns)ms * RDSU_MSEC;
}

int cf_ms_left(rdsu_ns end)
{
	rdsu_ns now = rdsu_clock();

	return now >= end ? 0 : (int)((end - now) / RDSU_MSEC) + 1;
}

int cf_recv_until(struct cf_conn *c, enum wire_kind kind, int dport, struct cf_msg *m, int ms)
{
	rdsu_ns end = cf_deadline(ms);

	for (;;) {
		int left = cf_ms_left(end);
		int got = left ? cf_recv(c, m, left) : 0;

		if (got <= 0)
			return got;
		/* A resent message is a replay of one from an earlier
		 * connection (a peer may resend what TCP had acknowledged but
		 * it had not yet noticed), never the answer awaited now. */
		if ((kind == CF_KIND_ANSWER ? m->s->kind != WIRE_KIND_CONG : m->s->kind == kind) &&
		    (dport < 0 || m->s->h.dport == dport) &&
		    !(m->s->h.flags & WIRE_FLAG_RETRANSMITTED))
			return 1;
	}
}

int cf_drain(struct cf_conn *c, int ms)
{
	rdsu_ns end = cf_deadline(ms);
	int count = 0;

	for (;;) {
		int left = cf_ms_left(end);
		struct cf_msg m;
		int got;

		if (!left)
			return count;
		got = cf_recv(c, &m, left);
		if (got < 0)
			return got;
		count += got;
	}
}

enum cf_end cf_wait_end(struct cf_conn *c, int ms)
{
	rdsu_ns end = cf_deadline(ms);

	for (;;) {
		int left = cf_ms_left(end);
		struct cf_msg m;

		if (c->deframe_err)
			return CF_END_GARBAGE;
		if (c->closed == CF_RST)
			return CF_END_RST;
		if (c->closed == CF_FIN)
			/* half a message and then FIN is not a clean close */
			return wire_deframer_pending(&c->dfr) ? CF_END_GARBAGE : CF_END_FIN;
		if (!left)
			return CF_END_OPEN;
		cf_recv(c, &m, left);
	}
}

const char *cf_end_name(enum cf_end e)
{
	static const struct wire_tok names[] = {
		{ CF_END_FIN, "closed (FIN)" },
		{ CF_END_RST, "reset" },
		{ CF_END_GARBAGE, "sent bytes that are not RDS" },
		{ CF_END_OPEN, "kept it open" },
		{ 0, NULL },
	};

	return wire_tok_str(names, (uint32_t)e, "?");
}

static void learn_probe(struct cf_run *r, const struct cf_seen *s)
{
	struct wire_exts x;

	wire_exts_decode(&x, s->h.ext, WIRE_KVER_7);
	r->peer.probed = true;
	r->peer.has_npaths = x.has_npaths;
	r->peer.has_gen = x.has_gen_num;
	r->peer.has_sport_idx = x.has_sport_idx;
	r->peer.npaths = x.has_npaths ? x.npaths : 1;
	r->peer.gen = x.gen_num;
	r->peer.n_exts = x.count;
}

int cf_answer_wait(const struct cf_run *r, bool silent, bool owner)
{
	int ms;

	if (owner || !silent || r->peer.first_ms < 0)
		return r->wait_ms;
	/* The peer's map follows our connect by one round trip and its
	 * answer time: an answer it gives at all comes within a few of
	 * those, and waiting the whole timeout on every case for one it
	 * never gives would only make the run long. */
	ms = 4 * r->peer.first_ms + 100;
	return ms < r->wait_ms ? ms : r->wait_ms;
}

static void note(char *buf, size_t cap, size_t *n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void note(char *buf, size_t cap, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (*n >= cap)
		return;
	va_start(ap, fmt);
	k = vsnprintf(buf + *n, cap - *n, fmt, ap);
	va_end(ap);
	if (k > 0)
		*n += (size_t)k < cap - *n ? (size_t)k : cap - *n - 1;
}

/* What the peer sent on |c| instead of a probe pong, and how the wait
 * ended (|got| as cf_recv_until), as words for a reason. */
static void describe_instead(const struct cf_conn *c, int got, char *buf, size_t cap)
{
	unsigned port0 = 0, pings = 0, maps = 0, other = 0;
	const struct cf_seen *wrong = NULL, *pong = NULL;
	size_t n = 0;

	for (size_t i = 0; i < c->n_log; i++) {
		const struct cf_seen *s = &c->log[i];

		/* a replay of an earlier connection's message answers nothing */
		if (s->h.flags & WIRE_FLAG_RETRANSMITTED)
			continue;
		if (s->kind == WIRE_KIND_CONG)
			maps++;
		else if (s->kind == WIRE_KIND_PROBE_PING)
			pings++;
		else if (s->kind == WIRE_KIND_PING && s->h.sport == 0)
			port0++;
		else if (s->h.dport == WIRE_PROBE_PORT && !wrong)
			wrong = s;
		else if (s->kind == WIRE_KIND_PONG && !pong)
			pong = s;
		else
			other++;
	}
	if (port0)
		note(buf, cap, &n, "%s%u pong%s to port 0", n ? ", " : "", port0,
		     port0 == 1 ? "" : "s");
	if (wrong)
		note(buf, cap, &n, "%sa message from port %u to port 1 (a probe pong comes from "
		     "port 0)", n ? ", " : "", wrong->h.sport);
	if (pong)
		note(buf, cap, &n, "%sa pong to port %u", n ? ", " : "", pong->h.dport);
	if (pings)
		note(buf, cap, &n, "%s%u probe ping%s of its own", n ? ", " : "", pings,
		     pings == 1 ? "" : "s");
	if (other)
		note(buf, cap, &n, "%s%u other message%s", n ? ", " : "", other,
		     other == 1 ? "" : "s");
	if (!n)
		note(buf, cap, &n, "%s", maps ? "only its map" : "nothing");
	else if (maps)
		note(buf, cap, &n, " beside its map");
	if (got < 0)
		note(buf, cap, &n, ", then %s",
		     c->closed == CF_RST ? "a reset" : c->closed == CF_FIN ? "a close" :
		     "bytes that are not RDS");
}

/* One attempt: connect, map, probe ping, wait up to |wait| for the probe
 * pong (< 0: as cf_answer_wait says). Return: 0 and *out (with or without
 * a probe pong); -ECONNRESET when the peer dropped the connection first;
 * another negative errno. */
static int session_once(struct cf_run *r, const struct rdsu_addr *from, uint16_t npaths,
			int rcvbuf, struct cf_conn **out, char *why, size_t cap, int wait)
{
	bool silent = r->peer.sessions && r->peer.unanswered == r->peer.sessions;
	struct cf_conn *c;
	struct cf_msg m;
	rdsu_ns t0;
	char a[64];
	int err;

	*out = NULL;
	if (wait < 0)
		wait = cf_answer_wait(r, silent, r->own_probe);
	/* Path 0's source port is 0 mod 8: a 7.x peer that files paths by
	 * source port re-syncs a path 0 that is not (docs/kernel-behaviour.md K4.9). */
	err = cf_connect_path(r, from, 0, WIRE_MAX_PATHS, rcvbuf, &c);
	if (err) {
		snprintf(why, cap, "cannot connect from %s to the peer's port %u: %s",
			 cf_addr(from, a), r->cfg->port, strerror(-err));
		return err;
	}
	c->npaths = npaths;
	err = cf_send_map(c, NULL, 0);
	if (!err)
		err = cf_send_probe(c, false, npaths, WIRE_KVER_7);
	if (err) {
		snprintf(why, cap, "sending our map and probe ping failed: %s", strerror(-err));
		cf_close(c, true);
		/* A reset that came before our writes did is the same drop as
		 * one that comes while we wait: a 6.x kernel still tearing the
		 * previous path 0 down (seen in back-to-back runs). */
		return err == -EPIPE ? -ECONNRESET : err;
	}
	t0 = rdsu_clock();
	err = cf_recv_until(c, WIRE_KIND_PROBE_PONG, -1, &m, wait);
	if (err < 0) {
		describe_instead(c, err, why, cap);
		cf_close(c, true);
		return -ECONNRESET;
	}
	r->peer.sessions++;
	r->peer.first_ms = c->t_first ? (int)((c->t_first - c->t_open) / RDSU_MSEC) : -1;
	if (err == 0) {
		/* Single-path, as a kernel that never hears NPATHS stays. */
		r->peer.unanswered++;
		r->peer.probed = false;
		r->peer.pong_ms = -1;
		r->peer.waited_ms = wait;
		r->peer.paths = 1;
		r->peer.instead[0] = '\0';
		describe_instead(c, 0, r->peer.instead, sizeof(r->peer.instead));
		*out = c;
		return 0;
	}
	learn_probe(r, m.s);
	r->peer.pong_ms = (int)((rdsu_clock() - t0) / RDSU_MSEC);
	/* Paths agree on min(ours, theirs), as rds_recv_hs_exthdrs. */
	r->peer.paths = r->peer.npaths < npaths ? r->peer.npaths : npaths;
	*out = c;
	return 0;
}

/* Sessions that end in a reset or close before the probe pong are tried
 * again for |ms|. Return: as session_once. */
static int session_retry(struct cf_run *r, const struct rdsu_addr *from, uint16_t npaths,
			 int rcvbuf, struct cf_conn **out, char *why, size_t cap, int wait, int ms)
{
	rdsu_ns end = rdsu_clock() + (rdsu_ns)ms * RDSU_MSEC;
	int err;

	/* The peer may still be tearing down the previous case's path 0: a
	 * 6.x peer resets a connection for a slot that is not yet down. */
	for (;;) {
		err = session_once(r, from, npaths, rcvbuf, out, why, cap, wait);
		if (err != -ECONNRESET || rdsu_clock() >= end)
			return err;
		usleep(100000);
	}
}

int cf_calibrate(struct cf_run *r, char *why, size_t cap)
{
	long limit = r->cfg->timeout_given ? r->cfg->timeout_ms : 5L * r->cfg->timeout_ms;
	struct cf_conn *c;
	int err;

	if (limit > 600000)
		limit = 600000;
	err = session_retry(r, &r->cfg->local, 1, 0, &c, why, cap, (int)limit, r->wait_ms);
	if (err == -ECONNRESET) {
		char last[CF_TEXT];

		snprintf(last, sizeof(last), "%s", why);
		snprintf(why, cap, "every connection to the peer ended before a probe pong for %d "
			 "ms; the last brought %s", r->wait_ms, last);
	}
	if (err)
		return err;
	cf_close(c, true);
	if (!r->peer.probed)
		return 0;
	r->answer_ms = r->peer.pong_ms;
	if (!r->cfg->timeout_given) {
		/* Three answer times and a round trip: an answer that comes at
		 * all comes well within it, whatever pace the peer keeps. */
		long w = 3L * r->answer_ms + (r->peer.first_ms > 0 ? r->peer.first_ms : 0);

		if (w > 600000)
			w = 600000;
		if (w > r->wait_ms)
			r->wait_ms = (int)w;
	}
	return 0;
}

int cf_session(struct cf_run *r, struct cf_result *res, const struct rdsu_addr *from,
	       uint16_t npaths, struct cf_conn **out)
{
	return cf_session_rcvbuf(r, res, from, npaths, 0, out);
}

int cf_session_rcvbuf(struct cf_run *r, struct cf_result *res, const struct rdsu_addr *from,
		      uint16_t npaths, int rcvbuf, struct cf_conn **out)
{
	int err = session_retry(r, from, npaths, rcvbuf, out, res->reason, sizeof(res->reason), -1,
				r->wait_ms);

	if (err == -ECONNRESET) {
		char last[CF_TEXT];

		memcpy(last, res->reason, sizeof(last));
		cf_text(res->reason, "every connection to the peer ended before a probe pong for "
			"%d ms; the last brought %s", r->wait_ms, last);
	}
	if (err)
		res->verdict = CF_ERROR;
	return err;
}
