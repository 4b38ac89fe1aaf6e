// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * mon.c - the endpoint's monitor state published on a local Unix stream
 * socket for rdstop --librds (rdsu_io_monitor(), docs/librds.md
 * "Monitor socket", the protocol in docs/protocol/monitor.md and
 * libwire's wire_mon_*).
 *
 * A watcher costs nothing until it asks: the listening socket sits in the
 * loop's epoll set, a connected client is one more descriptor there, and
 * a snapshot is put together only when a request comes, from the read-only
 * monitor calls of rdsu.h, in the thread that runs the loop (so no lock
 * and no copy of the endpoint is ever needed). Its buffer lives until the
 * client has read it. Bounded: RDSU_MON_MAX_CLIENTS clients (more are
 * closed at once), a request is a bare header (anything else closes the
 * client), and a snapshot stops at WIRE_MON_MAX_BODY (without its END
 * record, so the reader knows it was cut).
 */
#define _GNU_SOURCE
#include "mon.h"

#include "loop.h"

#include <rds/rdsu_tcp.h>

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <wire/wire.h>

#define RDSU_MON_MAX_CLIENTS 8

struct mon_client {
	struct rdsu_src src;          /* first: the loop hands it back */
	uint8_t in[WIRE_MON_HDR_LEN];
	size_t in_n;
	uint8_t *out;                 /* a snapshot being written */
	size_t out_len, out_off, out_cap;
};

struct rdsu_mon {
	struct rdsu_src lsn;
	pid_t pid;                    /* who made the socket file (not a forked child) */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct mon_client *cl[RDSU_MON_MAX_CLIENTS];
};

/* The directory of the default sockets, made when |create|. */
static int mon_dir(char *buf, size_t len, bool create)
{
	const char *d = getenv("RDSU_MONITOR_DIR");
	const char *x = getenv("XDG_RUNTIME_DIR");
	int n;

	if (d && d[0])
		n = snprintf(buf, len, "%s", d);
	else if (x && x[0])
		n = snprintf(buf, len, "%s/rdsu", x);
	else if (geteuid() == 0)
		n = snprintf(buf, len, "/run/rdsu");
	else
		n = snprintf(buf, len, "/tmp/rdsu-%u", (unsigned)geteuid());
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	/* the socket files are 0600; the directory only keeps them together */
	if (create && mkdir(buf, 0700) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int rdsu_io_monitor_dir(char *buf, size_t len)
{
	if (!buf || !len)
		return RDSU_ERR_INVAL;
	return mon_dir(buf, len, false);
}

/* A socket file nobody listens on is left over from a process that died. */
static bool stale(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool dead;

	if (fd < 0)
		return false;
	dead = connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) < 0 && errno == ECONNREFUSED;
	close(fd);
	return dead;
}

static int mon_listen(struct rdsu_mon *m)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int r, e;

	if (fd < 0)
		return -errno;
	memcpy(sa.sun_path, m->path, sizeof(sa.sun_path));
	r = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	if (r < 0 && errno == EADDRINUSE && stale(&sa)) {
		(void)unlink(m->path);
		r = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	}
	if (r < 0) {
		e = -errno;
		close(fd);
		return e;
	}
	if (chmod(m->path, 0600) < 0 || listen(fd, RDSU_MON_MAX_CLIENTS) < 0) {
		e = -errno;
		close(fd);
		(void)unlink(m->path);
		return e;
	}
	m->lsn.fd = fd;
	return 0;
}

static void client_close(struct rdsu_io *io, struct rdsu_mon *m, unsigned i)
{
	struct mon_client *c = m->cl[i];

	rdsu_loop_unwatch(io, &c->src);
	close(c->src.fd);
	free(c->out);
	free(c);
	m->cl[i] = NULL;
}

/* Append one record, growing the buffer; false at the size limit. */
static bool put(struct mon_client *c, const struct wire_mon_item *it)
{
	for (;;) {
		ssize_t n = wire_mon_rec_encode(it, c->out + c->out_len, c->out_cap - c->out_len);
		size_t cap;
		uint8_t *p;

		if (n >= 0) {
			if (c->out_len + (size_t)n > WIRE_MON_HDR_LEN + (size_t)WIRE_MON_MAX_BODY)
				return false;
			c->out_len += (size_t)n;
			return true;
		}
		if (n != WIRE_ERR_NOSPACE)
			return true;   /* a record it will not write (a long name): skipped */
		cap = c->out_cap ? c->out_cap * 2 : 64 * 1024;
		if (cap > WIRE_MON_HDR_LEN + (size_t)WIRE_MON_MAX_BODY + 16 * 1024)
			return false;
		p = realloc(c->out, cap);
		if (!p)
			return false;
		c->out = p;
		c->out_cap = cap;
	}
}

static void addr_of(uint8_t out[16], const struct rdsu_addr *a)
{
	memcpy(out, a->a, 16);
}

static bool put_map(struct mon_client *c, uint8_t kind, const struct rdsu_addr *a,
		    const struct wire_cong_map *map)
{
	struct wire_mon_item it = { .type = WIRE_MON_R_MAP };
	size_t n = map ? wire_cong_count(map) : 0;

	it.u.map.kind = kind;
	if (a)
		addr_of(it.u.map.addr, a);
	it.u.map.count = (uint32_t)n;
	it.u.map.bits = n ? map->bits : NULL;
	return put(c, &it);
}

/* The TCP transport's counters, by the names rdstop shows. */
static const struct {
	const char *name;
	size_t off;
} tcp_ctrs[] = {
#define T(f) { "tcp_" #f, offsetof(struct rdsu_tcp_stats, f) }
	T(connects), T(connect_failed), T(port_retries), T(accepts), T(accept_reset),
	T(links_up), T(links_down), T(closes), T(resets_sent), T(draining), T(bytes_in),
	T(bytes_out), T(reads), T(writes), T(write_blocked), T(ack_checks), T(runs),
	T(sleeps), T(direct_waits), T(direct_timeouts), T(connect_late_reset), T(held_kept),
	T(accept_exhausted), T(auth_failed), T(accept_evicted),
#undef T
};

/* One counter on |it|, which keeps whatever the previous one left. */
static bool put_counter(struct mon_client *c, struct wire_mon_item *it, uint8_t group,
			const char *name, uint64_t value)
{
	it->u.counter.group = group;
	snprintf(it->u.counter.name, sizeof(it->u.counter.name), "%s", name);
	it->u.counter.value = value;
	return put(c, it);
}

static bool put_counters(struct mon_client *c, struct rdsu_io *io)
{
	struct wire_mon_item it = { .type = WIRE_MON_R_COUNTER };
	struct rdsu_stats st;

	rdsu_ep_get_stats(io->ep, &st);
	for (unsigned i = 0; i < RDSU_STAT__COUNT; i++)
		if (!put_counter(c, &it, WIRE_MON_G_CORE, rdsu_stat_name((enum rdsu_stat)i),
				 st.v[i]))
			return false;
	if (io->tcp) {
		struct rdsu_tcp_stats ts;

		rdsu_tcp_get_stats(io->tcp, &ts);
		for (size_t i = 0; i < sizeof(tcp_ctrs) / sizeof(tcp_ctrs[0]); i++) {
			uint64_t v;

			memcpy(&v, (const char *)&ts + tcp_ctrs[i].off, sizeof(v));
			if (!put_counter(c, &it, WIRE_MON_G_TCP, tcp_ctrs[i].name, v))
				return false;
		}
	}
	return true;
}

static bool put_conns(struct mon_client *c, struct rdsu_io *io)
{
	struct rdsu_conn_info ci;
	size_t pos = 0;

	while (rdsu_ep_conn_next(io->ep, &pos, &ci) == 1) {
		struct wire_mon_item it = { .type = WIRE_MON_R_CONN };
		struct wire_mon_conn *k = &it.u.conn;
		unsigned np = ci.npaths ? ci.npaths : 1;

		addr_of(k->laddr, &ci.laddr);
		addr_of(k->faddr, &ci.faddr);
		k->transport = (uint8_t)ci.transport;
		k->npaths = ci.npaths;
		k->my_gen = ci.my_gen;
		k->peer_gen = ci.peer_gen;
		k->flags = (uint8_t)((ci.we_connect ? WIRE_MON_CONN_WE_CONNECT : 0) |
				     (ci.peer_sport_idx ? WIRE_MON_CONN_SPORT_IDX : 0) |
				     (ci.probe_pending ? WIRE_MON_CONN_PROBE : 0) |
				     (ci.fanout_hold ? WIRE_MON_CONN_FANOUT_HOLD : 0));
		k->held_links = ci.held_links;
		k->peer_congested = ci.peer_congested;
		if (!put(c, &it))
			return false;
		for (unsigned p = 0; p < WIRE_MAX_PATHS; p++) {
			const struct rdsu_path_info *pi = &ci.path[p];
			struct wire_mon_path *q = &it.u.path;

			/* paths beyond the agreed count only while something is on them */
			if (p >= np && pi->state == RDSU_PATH_DOWN && !pi->link && !pi->connects)
				continue;
			memset(&it, 0, sizeof(it));
			it.type = WIRE_MON_R_PATH;
			q->index = pi->index;
			q->state = (uint8_t)pi->state;
			q->outgoing = pi->outgoing;
			q->local_sport = pi->local_sport;
			q->peer_sport = pi->peer_sport;
			q->link = pi->link;
			q->next_tx_seq = pi->next_tx_seq;
			q->next_rx_seq = pi->next_rx_seq;
			q->send_q_msgs = pi->send_q_msgs;
			q->send_q_bytes = pi->send_q_bytes;
			q->retrans_q_msgs = pi->retrans_q_msgs;
			q->retrans_q_bytes = pi->retrans_q_bytes;
			q->tx_bytes = pi->tx_bytes;
			q->acked_bytes = pi->acked_bytes;
			q->rx_bytes = pi->rx_bytes;
			q->connects = pi->connects;
			q->resets = pi->resets;
			q->map_queued = pi->map_queued;
			if (!put(c, &it))
				return false;
		}
		if (!put_map(c, WIRE_MON_MAP_PEER, NULL,
			     rdsu_ep_peer_map(io->ep, &ci.laddr, &ci.faddr)))
			return false;
	}
	return true;
}

static bool put_socks(struct mon_client *c, struct rdsu_io *io)
{
	struct rdsu_sock_info si;
	size_t pos = 0;

	while (rdsu_ep_sock_next(io->ep, &pos, &si) == 1) {
		struct wire_mon_item it = { .type = WIRE_MON_R_SOCK };
		struct wire_mon_sock *s = &it.u.sock;

		addr_of(s->laddr, &si.laddr);
		s->port = si.port;
		s->flags = (uint8_t)((si.bound ? WIRE_MON_SOCK_BOUND : 0) |
				     (si.congested ? WIRE_MON_SOCK_CONGESTED : 0) |
				     (si.cong_monitor ? WIRE_MON_SOCK_MONITOR : 0));
		s->sndbuf = si.sndbuf;
		s->rcvbuf = si.rcvbuf;
		s->snd_bytes = si.snd_bytes;
		s->rcv_bytes = si.rcv_bytes;
		s->rx_msgs = si.rx_msgs;
		if (!put(c, &it))
			return false;
	}
	return true;
}

/* The whole snapshot into c->out, its header last (it carries the length). */
static void snapshot(struct rdsu_io *io, struct mon_client *c, rdsu_ns now)
{
	struct wire_mon_item it = { .type = WIRE_MON_R_PROC };
	struct wire_mon_hdr h = { .version = WIRE_MON_VERSION, .type = WIRE_MON_SNAP };
	bool whole;

	c->out_len = WIRE_MON_HDR_LEN;
	if (!c->out_cap) {
		c->out = malloc(64 * 1024);
		if (!c->out)
			return;
		c->out_cap = 64 * 1024;
	}
	it.u.proc.pid = (uint32_t)getpid();
	it.u.proc.laddrs = io->n_laddrs;
	it.u.proc.now_ns = now;
	for (unsigned i = 0; i < io->n_tr; i++)
		it.u.proc.transports |= (uint8_t)(1u << io->tr[i]->ops->id);
	snprintf(it.u.proc.name, sizeof(it.u.proc.name), "%s", program_invocation_short_name);
	whole = put(c, &it) && put_counters(c, io) && put_conns(c, io);
	for (unsigned i = 0; whole && i < io->n_laddrs; i++)
		whole = put_map(c, WIRE_MON_MAP_LOCAL, &io->laddrs[i],
				rdsu_ep_local_map(io->ep, &io->laddrs[i]));
	whole = whole && put_socks(c, io);
	if (whole) {
		it.type = WIRE_MON_R_END;
		(void)put(c, &it);
	}
	h.len = (uint32_t)(c->out_len - WIRE_MON_HDR_LEN);
	(void)wire_mon_hdr_encode(&h, c->out, WIRE_MON_HDR_LEN);
	c->out_off = 0;
}

/* Write what the socket takes. Return: false when the client is gone. */
static bool client_write(struct rdsu_io *io, struct mon_client *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->src.fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				return false;
			return rdsu_loop_watch(io, &c->src, EPOLLOUT, EPOLL_CTL_MOD) == 0;
		}
		c->out_off += (size_t)n;
	}
	/* nothing kept between requests */
	free(c->out);
	c->out = NULL;
	c->out_len = c->out_off = c->out_cap = 0;
	return rdsu_loop_watch(io, &c->src, EPOLLIN, EPOLL_CTL_MOD) == 0;
}

/* Read a request. Return: false to close the client. */
static bool client_read(struct rdsu_io *io, struct mon_client *c, rdsu_ns now)
{
	struct wire_mon_hdr h;
	ssize_t n = recv(c->src.fd, c->in + c->in_n, sizeof(c->in) - c->in_n, MSG_DONTWAIT);

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
		return false;
	if (n < 0)
		return true;
	c->in_n += (size_t)n;
	if (c->in_n < sizeof(c->in))
		return true;
	c->in_n = 0;
	if (wire_mon_hdr_decode(&h, c->in, sizeof(c->in)) != WIRE_MON_HDR_LEN ||
	    h.type != WIRE_MON_REQ || h.len)
		return false;
	snapshot(io, c, now);
	return c->out && client_write(io, c);
}

static void accept_one(struct rdsu_io *io, struct rdsu_mon *m)
{
	int fd = accept4(m->lsn.fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	struct mon_client *c;
	unsigned i;

	if (fd < 0)
		return;
	for (i = 0; i < RDSU_MON_MAX_CLIENTS && m->cl[i]; i++)
		;
	c = i < RDSU_MON_MAX_CLIENTS ? calloc(1, sizeof(*c)) : NULL;
	if (!c) {
		close(fd);
		return;
	}
	c->src.fd = fd;
	if (rdsu_loop_watch(io, &c->src, EPOLLIN, EPOLL_CTL_ADD) < 0) {
		close(fd);
		free(c);
		return;
	}
	m->cl[i] = c;
}

bool rdsu_mon_ready(struct rdsu_io *io, struct rdsu_src *s, uint32_t events, rdsu_ns now)
{
	struct rdsu_mon *m = io->mon;

	if (!m)
		return false;
	if (s == &m->lsn) {
		accept_one(io, m);
		return true;
	}
	for (unsigned i = 0; i < RDSU_MON_MAX_CLIENTS; i++) {
		struct mon_client *c = m->cl[i];
		bool ok;

		if (!c || &c->src != s)
			continue;
		if (events & (EPOLLERR | EPOLLHUP))
			ok = false;
		else if (c->out)
			ok = client_write(io, c);
		else
			ok = client_read(io, c, now);
		if (!ok)
			client_close(io, m, i);
		return true;
	}
	return false;
}

void rdsu_mon_free(struct rdsu_io *io)
{
	struct rdsu_mon *m = io->mon;

	if (!m)
		return;
	for (unsigned i = 0; i < RDSU_MON_MAX_CLIENTS; i++)
		if (m->cl[i])
			client_close(io, m, i);
	rdsu_loop_unwatch(io, &m->lsn);
	close(m->lsn.fd);
	if (m->pid == getpid())
		(void)unlink(m->path);
	free(m);
	io->mon = NULL;
}

int rdsu_io_monitor(struct rdsu_io *io, const char *path)
{
	static unsigned seq;
	const char *env = getenv("RDSU_MONITOR");
	struct rdsu_mon *m;
	int r, n;

	if (!io)
		return RDSU_ERR_INVAL;
	if (io->mon)
		return -EALREADY;
	if (env && !strcmp(env, "0"))
		return 0;
	m = calloc(1, sizeof(*m));
	if (!m)
		return RDSU_ERR_NOMEM;
	m->pid = getpid();
	m->lsn.fd = -1;
	if (path) {
		n = snprintf(m->path, sizeof(m->path), "%s", path);
	} else {
		char dir[sizeof(m->path)];
		/* a process's further endpoints (threads of rdsperf) */
		unsigned k = __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED);

		r = mon_dir(dir, sizeof(dir), true);
		if (r < 0)
			goto fail;
		if (k)
			n = snprintf(m->path, sizeof(m->path), "%s/%d-%u.sock", dir, (int)m->pid, k);
		else
			n = snprintf(m->path, sizeof(m->path), "%s/%d.sock", dir, (int)m->pid);
	}
	if (n < 0 || (size_t)n >= sizeof(m->path)) {
		r = -ENAMETOOLONG;
		goto fail;
	}
	r = mon_listen(m);
	if (r < 0)
		goto fail;
	r = rdsu_loop_watch(io, &m->lsn, EPOLLIN, EPOLL_CTL_ADD);
	if (r < 0) {
		close(m->lsn.fd);
		(void)unlink(m->path);
		goto fail;
	}
	io->mon = m;
	return 0;
fail:
	free(m);
	return r;
}

const char *rdsu_io_monitor_path(const struct rdsu_io *io)
{
	return io && io->mon ? io->mon->path : NULL;
}

void rdsu_mon_env(struct rdsu_io *io)
{
	const char *env = getenv("RDSU_MONITOR");

	if (env && env[0] && strcmp(env, "0"))
		(void)rdsu_io_monitor(io, NULL);
}
