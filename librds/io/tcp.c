// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * tcp.c - the TCP transport of librds: moves bytes between the core and
 * real sockets and decides nothing about RDS (docs/librds.md, "Transport
 * contract"). Everything RDS-shaped (who connects, slots, sequence
 * numbers, retransmission) is the core's, the epoll set, the timerfd and
 * the rounds are the loop's (loop.c); here are sockets and SIOCOUTQ,
 * behind the ops of transport.h. This file: the transport object and
 * its ops, the link table, socket tuning, closes and drains; the rest by
 * role in tcp_*.c (tcp.h).
 *
 * Kernel counterparts: tcp_listen.c (listener, accept), tcp_connect.c
 * (connect, source port per path, shutdown with drain), tcp_send.c
 * (writes, rds_tcp_write_space's "acked = snd_una" becomes
 * written - SIOCOUTQ), tcp_recv.c (reads), tcp.c (rds_tcp_tune,
 * rds_tcp_keepalive).
 */
#define _GNU_SOURCE
#include "tcp.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

void rdsu_tcp_cfg_default(struct rdsu_tcp_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	cfg->listen_port = RDSU_TCP_PORT;
	cfg->keepidle = 5;
	cfg->keepintvl = 5;
	cfg->keepcnt = 5;
	cfg->drain = DRAIN_DEFAULT;
}

static unsigned link_bucket(uint64_t id)
{
	return (unsigned)((id * 0x9e3779b97f4a7c15ull) >> 52) & (LINK_BUCKETS - 1);
}

struct tsock *rdsu_tcp_link_find(struct rdsu_tcp *t, uint64_t id)
{
	for (struct tsock *l = t->links[link_bucket(id)]; l; l = l->hnext)
		if (l->id == id)
			return l;
	return NULL;
}

void rdsu_tcp_link_hash(struct rdsu_tcp *t, struct tsock *l)
{
	unsigned b = link_bucket(l->id);

	l->hnext = t->links[b];
	t->links[b] = l;
	t->n_links++;
}

static void link_unhash(struct rdsu_tcp *t, struct tsock *l)
{
	/* io_uring holds a reference to the socket while a recv is armed:
	 * close() alone would leave the TCP connection open. Its bytes, if
	 * any, are the core's no more: it let go of the link or is being
	 * told it is gone. */
	if (l->hot)
		(void)rdsu_tcp_ring_unhot(t, 0, false);
	if (t->last_in == l)
		t->last_in = NULL;
	for (struct tsock **pp = &t->links[link_bucket(l->id)]; *pp; pp = &(*pp)->hnext) {
		if (*pp == l) {
			*pp = l->hnext;
			t->n_links--;
			return;
		}
	}
}

int rdsu_tcp_watch(struct rdsu_tcp *t, struct tsock *s, uint32_t events, int op)
{
	s->src.tr = &t->tr;
	return rdsu_loop_watch(t->io, &s->src, events, op);
}

/* The interest a link needs in its state: EPOLLERR/EPOLLHUP always come. */
uint32_t rdsu_tcp_link_events(const struct tsock *l)
{
	switch (l->state) {
	case TL_CONNECTING:
		return EPOLLOUT;
	case TL_HELD:
		return EPOLLRDHUP;
	case TL_UP:
		break;
	}
	/* Its bytes end a ring wait through its own recv; were it in the
	 * epoll set too, each would also wake the ring's poll of that set:
	 * an epoll_wait per message for nothing. */
	if (l->hot)
		return l->want_out || l->rem_len ? EPOLLOUT : 0;
	return EPOLLIN | EPOLLRDHUP | (l->want_out || l->rem_len ? EPOLLOUT : 0);
}

void rdsu_tcp_link_rewatch(struct rdsu_tcp *t, struct tsock *l)
{
	(void)rdsu_tcp_watch(t, l, rdsu_tcp_link_events(l), EPOLL_CTL_MOD);
}

void rdsu_tcp_linger0(int fd)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	(void)setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
}

void rdsu_tcp_sock_free(struct tsock *s)
{
	if (!s)
		return;
	free(s->rem);
	free(s->held_in);
	free(s);
}

/* Close |s| now, free it after the round (see TS_DEAD). */
static void retire(struct rdsu_tcp *t, struct tsock *s)
{
	if (s->src.fd >= 0)
		close(s->src.fd);  /* also leaves the epoll set */
	s->src.fd = -1;
	s->kind = TS_DEAD;
	s->dnext = t->dead_head;
	t->dead_head = s;
}

static void reap(struct rdsu_tcp *t)
{
	while (t->dead_head) {
		struct tsock *s = t->dead_head;

		t->dead_head = s->dnext;
		rdsu_tcp_sock_free(s);
	}
}

/* Forget a link without telling the core (it let go, or is being told). */
void rdsu_tcp_link_close(struct rdsu_tcp *t, struct tsock *l, bool reset)
{
	link_unhash(t, l);
	rdsu_tcp_ack_list_del(t, l);
	t->st.links_up--;
	if (reset) {
		rdsu_tcp_linger0(l->src.fd);
		t->st.resets_sent++;
	}
	retire(t, l);
}

/* The path's connection ends in an orderly way: our FIN, then read and
 * discard until the peer's FIN or the drain time, as 7.x
 * rds_tcp_conn_path_shutdown does, so what the peer still sends is not
 * answered with an RST. */
static void link_drain(struct rdsu_tcp *t, struct tsock *l, rdsu_ns now)
{
	link_unhash(t, l);
	rdsu_tcp_ack_list_del(t, l);
	t->st.links_up--;
	free(l->rem);
	l->rem = NULL;
	l->rem_len = l->rem_off = 0;
	free(l->held_in);
	l->held_in = NULL;
	if (shutdown(l->src.fd, SHUT_WR) < 0 ||
	    rdsu_tcp_watch(t, l, EPOLLIN | EPOLLRDHUP, EPOLL_CTL_MOD) < 0) {
		retire(t, l);
		return;
	}
	l->kind = TS_DRAIN;
	l->drain_until = now + t->cfg.drain;
	l->dnext = t->drain_head;
	t->drain_head = l;
	t->st.draining++;
}

void rdsu_tcp_drain_end(struct rdsu_tcp *t, struct tsock *d)
{
	for (struct tsock **pp = &t->drain_head; *pp; pp = &(*pp)->dnext) {
		if (*pp == d) {
			*pp = d->dnext;
			break;
		}
	}
	t->st.draining--;
	retire(t, d);
}

/* The connection ended under us: tell the core, then forget it. */
void rdsu_tcp_link_lost(struct rdsu_tcp *t, struct tsock *l, rdsu_ns now)
{
	t->st.links_down++;
	(void)rdsu_link_down(t->ep, l->id, now);
	rdsu_tcp_link_close(t, l, false);
}

void rdsu_tcp_tune(const struct rdsu_tcp *t, int fd)
{
	int one = 1;

	/* rds_tcp_tune and rds_tcp_keepalive: no Nagle, keepalive 5/5/5,
	 * buffers forced only when configured. */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	(void)setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &t->cfg.keepidle, sizeof(int));
	(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &t->cfg.keepintvl, sizeof(int));
	(void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &t->cfg.keepcnt, sizeof(int));
	if (t->cfg.so_sndbuf > 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &t->cfg.so_sndbuf, sizeof(int));
	if (t->cfg.so_rcvbuf > 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &t->cfg.so_rcvbuf, sizeof(int));
}

static void *tcp_find(struct rdsu_transport *tr, uint64_t link)
{
	return rdsu_tcp_link_find(tcp_of(tr), link);
}

static void tcp_close(struct rdsu_transport *tr, void *lk, bool reset, rdsu_ns now)
{
	struct rdsu_tcp *t = tcp_of(tr);
	struct tsock *l = lk;

	t->st.closes++;
	if (reset || l->state == TL_CONNECTING)
		rdsu_tcp_link_close(t, l, reset);
	else
		link_drain(t, l, now);
}

static void tcp_output(struct rdsu_transport *tr, void *lk, rdsu_ns now)
{
	struct tsock *l = lk;

	l->want_out = true;
	rdsu_tcp_output(tcp_of(tr), l, now);
}

static void tcp_attach(struct rdsu_transport *tr, void *lk, rdsu_ns now)
{
	struct tsock *l = lk;

	if (l->state == TL_HELD)
		rdsu_tcp_attach(tcp_of(tr), l, now);
}

static void tcp_connect(struct rdsu_transport *tr, const struct rdsu_lreq *r, rdsu_ns now)
{
	rdsu_tcp_connect_start(tcp_of(tr), r, now);
}

/* The transport's own due times: the acknowledgement check, drains. */
static rdsu_ns tcp_deadline(const struct rdsu_transport *tr)
{
	const struct rdsu_tcp *t = (const struct rdsu_tcp *)tr;
	rdsu_ns due = RDSU_NS_NEVER;

	if (t->ack_head)
		due = t->ack_due;
	if (t->accept_rest < due)
		due = t->accept_rest;
	for (const struct tsock *d = t->drain_head; d; d = d->dnext)
		if (d->drain_until < due)
			due = d->drain_until;
	return due;
}

static void tcp_expire(struct rdsu_transport *tr, rdsu_ns now)
{
	struct rdsu_tcp *t = tcp_of(tr);

	if (t->drain_head)
		rdsu_tcp_drain_expire(t, now);
	if (t->accept_rest <= now)
		rdsu_tcp_accept_resume(t);
}

static void tcp_ready(struct rdsu_transport *tr, struct rdsu_src *src, uint32_t ev, rdsu_ns now)
{
	struct rdsu_tcp *t = tcp_of(tr);
	struct tsock *s = (struct tsock *)src;

	switch (s->kind) {
	case TS_LISTEN:
		rdsu_tcp_accept(t, s, now);
		return;
	case TS_DRAIN:
		rdsu_tcp_drain_read(t, s);
		return;
	case TS_DEAD:
		return;
	case TS_LINK:
		break;
	}
	if (s->state == TL_CONNECTING) {
		rdsu_tcp_connect_done(t, s, now);
		return;
	}
	if (s->state == TL_HELD) {
		if (ev & (EPOLLERR | EPOLLHUP | EPOLLRDHUP))
			rdsu_tcp_held_end(t, s, now);
		return;
	}
	if (ev & EPOLLOUT) {
		rdsu_tcp_output(t, s, now);
		if (s->kind != TS_LINK)
			return;
	}
	if (ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
		rdsu_tcp_input(t, s, now);
}

static void port_range(uint16_t *lo, uint16_t *hi)
{
	unsigned a = 32768, b = 60999;
	FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "re");

	if (f) {
		if (fscanf(f, "%u %u", &a, &b) != 2 || a == 0 || b > 65535 || a > b) {
			a = 32768;
			b = 60999;
		}
		fclose(f);
	}
	*lo = (uint16_t)a;
	*hi = (uint16_t)b;
}

static void tcp_reap(struct rdsu_transport *tr)
{
	reap(tcp_of(tr));
}

static void tcp_free(struct rdsu_transport *tr)
{
	struct rdsu_tcp *t = tcp_of(tr);

#ifdef RDSU_HAVE_LIBURING
	/* Before any close: the ring holds the hot link's socket. */
	if (t->ring_state > 0) {
		(void)rdsu_tcp_ring_unhot(t, 0, false);
		io_uring_queue_exit(&t->ring);
	}
	free(t->hbuf);
#endif
	for (unsigned b = 0; b < LINK_BUCKETS; b++) {
		struct tsock *l = t->links[b], *next;

		for (; l; l = next) {
			next = l->hnext;
			close(l->src.fd);
			rdsu_tcp_sock_free(l);
		}
	}
	while (t->drain_head) {
		struct tsock *d = t->drain_head;

		t->drain_head = d->dnext;
		close(d->src.fd);
		rdsu_tcp_sock_free(d);
	}
	reap(t);
	for (unsigned i = 0; i < t->n_listen; i++) {
		close(t->listen[i]->src.fd);
		free(t->listen[i]);
	}
	free(t->rbuf);
	free(t->stage);
	free(t);
}

static const struct rdsu_transport_ops tcp_ops = {
	.id = RDSU_TRANS_TCP,
	.listen = rdsu_tcp_listen,
	.ready = tcp_ready,
	.connect = tcp_connect,
	.find = tcp_find,
	.output = tcp_output,
	.close = tcp_close,
	.attach = tcp_attach,
	.acks = rdsu_tcp_acks,
	.deadline = tcp_deadline,
	.expire = tcp_expire,
	.wait = rdsu_tcp_wait_hot,
	.reap = tcp_reap,
	.free = tcp_free,
};

int rdsu_tcp_create(struct rdsu_tcp **out, const struct rdsu_tcp_cfg *cfg)
{
	struct rdsu_tcp *t = calloc(1, sizeof(*t));

	*out = NULL;
	if (!t)
		return RDSU_ERR_NOMEM;
	t->tr.ops = &tcp_ops;
	rdsu_tcp_cfg_default(&t->cfg);
	if (cfg) {
		if (cfg->size < sizeof(*cfg)) {
			free(t);
			return RDSU_ERR_INVAL;
		}
		t->cfg = *cfg;
		struct rdsu_tcp_cfg d;

		rdsu_tcp_cfg_default(&d);
		if (!t->cfg.listen_port)
			t->cfg.listen_port = d.listen_port;
		if (!t->cfg.keepidle)
			t->cfg.keepidle = d.keepidle;
		if (!t->cfg.keepintvl)
			t->cfg.keepintvl = d.keepintvl;
		if (!t->cfg.keepcnt)
			t->cfg.keepcnt = d.keepcnt;
		if (!t->cfg.drain)
			t->cfg.drain = d.drain;
	}
	{
		int err = rdsu_tcp_auth_check(&t->cfg);

		if (err) {
			free(t);
			return err;
		}
	}
	if (!t->cfg.port_low || !t->cfg.port_high)
		port_range(&t->cfg.port_low, &t->cfg.port_high);
	if (t->cfg.port_low > t->cfg.port_high) {
		free(t);
		return RDSU_ERR_INVAL;
	}
	t->ack_poll = ACK_POLL_MIN;
	t->accept_rest = RDSU_NS_NEVER;
	t->rbuf = malloc(READ_CHUNK);
	t->stage = malloc(STAGE_SIZE);
#ifndef RDSU_HAVE_LIBURING
	t->st.ring_unavailable = 1;  /* built without liburing */
#endif
	if (!t->rbuf || !t->stage) {
		tcp_free(&t->tr);
		return RDSU_ERR_NOMEM;
	}
	*out = t;
	return 0;
}

void rdsu_tcp_bind_io(struct rdsu_tcp *t, struct rdsu_io *io, uint64_t seed)
{
	t->tr.io = io;
	t->io = io;
	t->ep = io->ep;
	t->port_group = (unsigned)(seed >> 32) & 0xff;
}

struct rdsu_transport *rdsu_tcp_transport(struct rdsu_tcp *t)
{
	return &t->tr;
}

/* ------------------------------------------------------------------------
 * The API from before rdsu_io: an rdsu_io with TCP alone.
 */

int rdsu_tcp_new(struct rdsu_tcp **out, const struct rdsu_ep_cfg *ep_cfg,
		 const struct rdsu_tcp_cfg *cfg)
{
	struct rdsu_io_cfg ic;
	struct rdsu_io *io;
	int r;

	if (!out)
		return RDSU_ERR_INVAL;
	*out = NULL;
	rdsu_io_cfg_default(&ic);
	ic.tcp = cfg;
	r = rdsu_io_new(&io, ep_cfg, &ic);
	if (r < 0)
		return r;
	*out = io->tcp;
	return 0;
}

void rdsu_tcp_free(struct rdsu_tcp *t)
{
	if (t)
		rdsu_io_free(t->io);
}

struct rdsu_ep *rdsu_tcp_ep(struct rdsu_tcp *t)
{
	return t ? t->ep : NULL;
}

struct rdsu_io *rdsu_tcp_io(struct rdsu_tcp *t)
{
	return t ? t->io : NULL;
}

int rdsu_tcp_fd(const struct rdsu_tcp *t)
{
	return t ? t->io->epfd : -1;
}

int rdsu_tcp_run(struct rdsu_tcp *t, int timeout_ms)
{
	return t ? rdsu_io_run(t->io, timeout_ms) : RDSU_ERR_INVAL;
}

int rdsu_tcp_flush(struct rdsu_tcp *t)
{
	return t ? rdsu_io_flush(t->io) : RDSU_ERR_INVAL;
}

int rdsu_tcp_wait(struct rdsu_tcp *t, struct rdsu_sock *s, unsigned mask, rdsu_ns deadline)
{
	return rdsu_io_wait(t ? t->io : NULL, s, mask, deadline);
}

void rdsu_tcp_get_stats(const struct rdsu_tcp *t, struct rdsu_tcp_stats *out)
{
	if (t && out) {
		*out = t->st;
		out->runs = t->io->runs;
		out->sleeps = t->io->sleeps;
	}
}

