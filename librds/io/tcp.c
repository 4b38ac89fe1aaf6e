// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * tcp.c - the TCP transport of librds: moves bytes between the core and
 * real sockets and decides nothing about RDS (docs/librds.md, "Transport
 * contract"). Everything RDS-shaped (who connects, slots, sequence
 * numbers, retransmission) is the core's, the epoll set, the timerfd and
 * the rounds are the loop's (loop.c); here are sockets and SIOCOUTQ,
 * behind the ops of transport.h.
 *
 * Kernel counterparts: tcp_listen.c (listener, accept), tcp_connect.c
 * (connect, source port per path, shutdown with drain), tcp_send.c
 * (writes, rds_tcp_write_space's "acked = snd_una" becomes
 * written - SIOCOUTQ), tcp_recv.c (reads), tcp.c (rds_tcp_tune,
 * rds_tcp_keepalive).
 */
#define _GNU_SOURCE
#include <rds/rdsu_tcp.h>

#include "loop.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifdef RDSU_HAVE_LIBURING
#include <liburing.h>
#include <poll.h>
#endif

#define LINK_BUCKETS 4096     /* link id -> socket; 1000 peers x 8 paths stay short */
#define READ_CHUNK (256 * 1024)
#define STAGE_SIZE (64 * 1024)
#define DIRECT_MIN (16 * 1024) /* spans this long are written from the core's memory */
#define READS_PER_ROUND 16    /* then let other sockets have a turn */
#define ACK_POLL_MIN (200 * 1000ull)
#define ACK_POLL_MAX (50 * RDSU_MSEC)
/* While no socket waits for SNDBUF room, acknowledgements only free
 * memory: look this often at most, not every 200 us of a busy link. */
#define ACK_POLL_IDLE (5 * RDSU_MSEC)
#define DRAIN_DEFAULT (5 * RDSU_SEC)
/*
 * A wait that only one link's bytes can end (the endpoint has that one
 * link, nothing to write, no socket waiting for acknowledgements) blocks
 * in recv() on it rather than in epoll_wait(): one system call and one
 * wakeup instead of two, which was most of the difference to a plain TCP
 * ping-pong (docs/performance.md, issue 7). Such a wait is bounded by
 * SO_RCVTIMEO, asked for DIRECT_ASK; the kernel keeps it in jiffies and
 * rounds up (4 ms at HZ=250), so the bound used is the value read back.
 * A direct wait starts only when the core's next deadline and the
 * caller's are at least that far away, and only within that time of the
 * last epoll round, so a new connection or the acknowledgement timer
 * (which only frees memory while no socket waits for room) is seen at
 * most twice the bound late.
 */
#define DIRECT_ASK_US 1000
/*
 * With several links, a wait that the hot link (the only one read lately,
 * twice within RING_HOT) will most likely end is an io_uring wait
 * (ring_wait): a recv on that link and a poll of the epoll set, in one
 * io_uring_enter, so its bytes cost one system call and one wakeup, as a
 * direct wait's do. The epoll set stays watched, so unlike a direct wait
 * nothing needs a bound: the timerfd, the listener and every other link
 * end the wait as they end an epoll wait. Guessing wrong costs one
 * epoll_wait(0) after the poll ends the wait; the heat rule keeps that
 * rare. The same 4 ms as a direct wait's bound at HZ=250.
 */
#define RING_HOT (4 * RDSU_MSEC)

/* A socket closed while an epoll batch may still name it becomes TS_DEAD
 * and is freed at the end of the round. */
enum tsock_kind { TS_LISTEN = 1, TS_LINK, TS_DRAIN, TS_DEAD };

enum tlink_state {
	TL_CONNECTING = 1, /* non-blocking connect in flight */
	TL_UP,             /* the core reads and writes it */
	TL_HELD,           /* accepted, the core holds it for a slot: not read */
};

struct tsock {
	struct rdsu_src src;          /* fd, epoll interest */
	enum tsock_kind kind;
	/* TS_LINK */
	uint64_t id;
	enum tlink_state state;
	struct tsock *hnext;          /* link hash chain */
	rdsu_ns in_at, in_gap;        /* last read with bytes; time since the one before */
	bool direct;                  /* blocking, with SO_RCVTIMEO: may be waited on directly */
	bool no_direct;               /* making it so failed */
	bool hot;                     /* t->hot: read through the ring, not epoll */
	struct tsock *anext, *aprev;  /* links with unacknowledged bytes */
	bool on_ack_list;
	bool want_out;                /* the core has bytes for it */
	uint64_t written;             /* bytes the socket took */
	uint64_t acked;               /* last value told to the core */
	uint8_t *rem;                 /* copied-out bytes send() did not take */
	size_t rem_len, rem_off;
	uint8_t *held_in;             /* bytes read while the core held the link */
	size_t held_len;
	bool held_dead;               /* held_end: ended while held, out of the epoll set */
	/* connect retries over source port candidates */
	struct rdsu_lreq req;
	unsigned port_try;
	/* TS_DRAIN; TS_DEAD's list */
	rdsu_ns drain_until;
	struct tsock *dnext;
	/* TS_LISTEN */
	struct rdsu_addr laddr;
};

struct rdsu_tcp {
	struct rdsu_transport tr;
	struct rdsu_io *io;           /* tr.io */
	struct rdsu_ep *ep;           /* io->ep */
	struct rdsu_tcp_cfg cfg;
	struct tsock *listen[RDSU_MAX_LADDRS];
	unsigned n_listen;
	struct tsock *links[LINK_BUCKETS];
	unsigned n_links;             /* in links[], in any state */
	struct tsock *last_in;        /* the link read last, while it is in links[] */
	unsigned in_streak;           /* reads in a row by last_in, up to 2 */
	rdsu_ns direct_max;           /* bound of a direct wait (SO_RCVTIMEO read back) */
	struct tsock *ack_head;       /* links whose written > acked */
	struct tsock *drain_head;
	struct tsock *dead_head;
	unsigned port_group;          /* 7.x: next source port group to try */
	rdsu_ns ack_poll;             /* current interval between SIOCOUTQ rounds */
	rdsu_ns ack_due;
	uint8_t *rbuf;
	uint8_t *stage;
	struct rdsu_tcp_stats st;
#ifdef RDSU_HAVE_LIBURING
	/* ring_wait. Invariant: a recv is armed only on |hot|, and every
	 * io_uring_enter is followed by ring_reap, so no completed recv's
	 * bytes wait while other code reads the same socket. */
	struct io_uring ring;
	int ring_state;               /* 0 not tried yet, 1 usable, -1 not */
	uint8_t *hbuf;                /* the armed recv's buffer (t->rbuf is reused meanwhile) */
	struct tsock *hot;
	bool recv_armed, poll_armed, recv_done, poll_done;
	int recv_res;
#endif
};

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

/* ------------------------------------------------------------------------
 * Socket bookkeeping
 */

static unsigned link_bucket(uint64_t id)
{
	return (unsigned)((id * 0x9e3779b97f4a7c15ull) >> 52) & (LINK_BUCKETS - 1);
}

static struct tsock *link_find(struct rdsu_tcp *t, uint64_t id)
{
	for (struct tsock *l = t->links[link_bucket(id)]; l; l = l->hnext)
		if (l->id == id)
			return l;
	return NULL;
}

static void link_hash(struct rdsu_tcp *t, struct tsock *l)
{
	unsigned b = link_bucket(l->id);

	l->hnext = t->links[b];
	t->links[b] = l;
	t->n_links++;
}

static bool ring_unhot(struct rdsu_tcp *t, rdsu_ns now, bool deliver);

static void link_unhash(struct rdsu_tcp *t, struct tsock *l)
{
	/* io_uring holds a reference to the socket while a recv is armed:
	 * close() alone would leave the TCP connection open. Its bytes, if
	 * any, are the core's no more: it let go of the link or is being
	 * told it is gone. */
	if (l->hot)
		(void)ring_unhot(t, 0, false);
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

/* A socket waiting for SNDBUF room is told within ACK_POLL_MIN, however
 * long nothing moved; otherwise the backoff applies, from ACK_POLL_IDLE. */
static rdsu_ns ack_interval(const struct rdsu_tcp *t)
{
	if (rdsu_ep_acks_wanted(t->ep))
		return ACK_POLL_MIN;
	return t->ack_poll < ACK_POLL_IDLE ? ACK_POLL_IDLE : t->ack_poll;
}

static void ack_list_add(struct rdsu_tcp *t, struct tsock *l, rdsu_ns now)
{
	if (l->on_ack_list)
		return;
	/* The first unacknowledged bytes start the clock; a due time left
	 * over from an earlier round would fire at once, a wakeup and a
	 * SIOCOUTQ per message of a ping-pong. */
	if (!t->ack_head)
		t->ack_due = now + ack_interval(t);
	l->on_ack_list = true;
	l->aprev = NULL;
	l->anext = t->ack_head;
	if (t->ack_head)
		t->ack_head->aprev = l;
	t->ack_head = l;
}

static void ack_list_del(struct rdsu_tcp *t, struct tsock *l)
{
	if (!l->on_ack_list)
		return;
	if (l->aprev)
		l->aprev->anext = l->anext;
	else
		t->ack_head = l->anext;
	if (l->anext)
		l->anext->aprev = l->aprev;
	l->on_ack_list = false;
	l->anext = l->aprev = NULL;
}

static int watch(struct rdsu_tcp *t, struct tsock *s, uint32_t events, int op)
{
	s->src.tr = &t->tr;
	return rdsu_loop_watch(t->io, &s->src, events, op);
}

/* The interest a link needs in its state: EPOLLERR/EPOLLHUP always come. */
static uint32_t link_events(const struct tsock *l)
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

static void link_rewatch(struct rdsu_tcp *t, struct tsock *l)
{
	(void)watch(t, l, link_events(l), EPOLL_CTL_MOD);
}

static void set_linger0(int fd)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	(void)setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
}

static void tsock_free(struct tsock *s)
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
		tsock_free(s);
	}
}

/* Forget a link without telling the core (it let go, or is being told). */
static void link_close(struct rdsu_tcp *t, struct tsock *l, bool reset)
{
	link_unhash(t, l);
	ack_list_del(t, l);
	t->st.links_up--;
	if (reset) {
		set_linger0(l->src.fd);
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
	ack_list_del(t, l);
	t->st.links_up--;
	free(l->rem);
	l->rem = NULL;
	l->rem_len = l->rem_off = 0;
	free(l->held_in);
	l->held_in = NULL;
	if (shutdown(l->src.fd, SHUT_WR) < 0 || watch(t, l, EPOLLIN | EPOLLRDHUP, EPOLL_CTL_MOD) < 0) {
		retire(t, l);
		return;
	}
	l->kind = TS_DRAIN;
	l->drain_until = now + t->cfg.drain;
	l->dnext = t->drain_head;
	t->drain_head = l;
	t->st.draining++;
}

static void drain_end(struct rdsu_tcp *t, struct tsock *d)
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
static void link_lost(struct rdsu_tcp *t, struct tsock *l, rdsu_ns now)
{
	t->st.links_down++;
	(void)rdsu_link_down(t->ep, l->id, now);
	link_close(t, l, false);
}

static void tune(const struct rdsu_tcp *t, int fd)
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

/* ------------------------------------------------------------------------
 * Connecting
 */

/*
 * One attempt from the next source port candidate. 7.x asks for
 * port % 8 == path (rds_tcp_conn_path_connect walks groups of 8 from
 * ALIGN(low, 8) until bind succeeds); a busy port, or a four-tuple still in
 * use (EADDRNOTAVAIL from connect), moves on to the next group.
 * Return: 0 connecting or connected, <0 errno when every candidate failed.
 */
static int connect_try(struct rdsu_tcp *t, struct tsock *l)
{
	const struct rdsu_lreq *r = &l->req;
	struct sockaddr_storage la, fa;
	socklen_t llen, flen;
	unsigned groups = ((unsigned)t->cfg.port_high - t->cfg.port_low) / 8u + 1u;
	int err = -EADDRINUSE;

	for (;;) {
		uint16_t sport = 0;

		if (r->sport_mod) {
			if (l->port_try >= groups)
				return err;
			sport = rdsu_sport_pick(t->cfg.port_low, t->cfg.port_high, r->sport_res,
						(t->port_group + l->port_try) % groups);
			l->port_try++;
			if (!sport)
				continue;
		}
		int fd = socket(rdsu_addr_is_v4(&r->laddr) ? AF_INET : AF_INET6,
				SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
		int one = 1;
		(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		tune(t, fd);
		llen = rdsu_sockaddr(&r->laddr, sport, &la);
		flen = rdsu_sockaddr(&r->faddr, t->cfg.connect_port ? t->cfg.connect_port : r->dport,
				   &fa);
		if (bind(fd, (struct sockaddr *)&la, llen) < 0) {
			err = -errno;
			close(fd);
			if (r->sport_mod && err == -EADDRINUSE) {
				t->st.port_retries++;
				continue;
			}
			return err;
		}
		if (connect(fd, (struct sockaddr *)&fa, flen) < 0 && errno != EINPROGRESS) {
			err = -errno;
			close(fd);
			if (r->sport_mod && (err == -EADDRNOTAVAIL || err == -EADDRINUSE)) {
				t->st.port_retries++;
				continue;
			}
			return err;
		}
		l->src.fd = fd;
		return 0;
	}
}

static void do_connect(struct rdsu_tcp *t, const struct rdsu_lreq *r, rdsu_ns now)
{
	struct tsock *l = calloc(1, sizeof(*l));

	t->st.connects++;
	if (!l) {
		t->st.connect_failed++;
		(void)rdsu_link_down(t->ep, r->link, now);
		return;
	}
	l->kind = TS_LINK;
	l->id = r->link;
	l->req = *r;
	l->state = TL_CONNECTING;
	l->src.fd = -1;
	if (connect_try(t, l) < 0 || watch(t, l, link_events(l), EPOLL_CTL_ADD) < 0) {
		t->st.connect_failed++;
		if (l->src.fd >= 0)
			close(l->src.fd);
		tsock_free(l);
		(void)rdsu_link_down(t->ep, r->link, now);
		return;
	}
	/* The next connect of any path starts one group further on, as 7.2
	 * was seen to move on per reconnect. */
	if (r->sport_mod)
		t->port_group++;
	link_hash(t, l);
	t->st.links_up++;
}

static void output(struct rdsu_tcp *t, struct tsock *l, rdsu_ns now);
static void salvage(struct rdsu_tcp *t, struct tsock *l, rdsu_ns now);
static void input(struct rdsu_tcp *t, struct tsock *l, rdsu_ns now);

static void connect_done(struct rdsu_tcp *t, struct tsock *l, rdsu_ns now)
{
	int err = 0;
	socklen_t elen = sizeof(err);
	struct sockaddr_storage ss;
	socklen_t slen = sizeof(ss);
	struct rdsu_addr a;
	uint16_t sport = 0;

	if (getsockopt(l->src.fd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0)
		err = errno;
	if (err) {
		char c;

		/* Established, then reset or aborted before this ran: the
		 * acceptor writes as soon as it has the connection, and what
		 * our TCP acknowledged it has freed. Bytes waiting here mean
		 * the connection was up: it goes up for as long as reading
		 * them into the core takes (loop.py killboth lost the
		 * acceptor's first resends this way). */
		if (recv(l->src.fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) != 1) {
			t->st.connect_failed++;
			link_lost(t, l, now);
			return;
		}
		t->st.connect_late_reset++;
	}
	if (getsockname(l->src.fd, (struct sockaddr *)&ss, &slen) == 0)
		(void)rdsu_sockaddr_get(&ss, &a, &sport);
	if (rdsu_link_established(t->ep, l->id, sport, now) < 0) {
		/* Only a kick (rds_tcp_state_change), or no longer wanted. */
		link_close(t, l, false);
		return;
	}
	l->state = TL_UP;
	if (err) {
		salvage(t, l, now);
		return;
	}
	link_rewatch(t, l);
	/* The core may have bytes ready (the map) before OUTPUT is pulled. */
	l->want_out = true;
	output(t, l, now);
}

/* ------------------------------------------------------------------------
 * Accepting
 */

static void do_accept(struct rdsu_tcp *t, struct tsock *ls, rdsu_ns now)
{
	for (;;) {
		struct sockaddr_storage fa, la;
		socklen_t flen = sizeof(fa), llen = sizeof(la);
		struct rdsu_addr faddr, laddr;
		uint16_t fport, lport;
		uint64_t id = 0;
		int fd = accept4(ls->src.fd, (struct sockaddr *)&fa, &flen, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0)
			return;  /* EAGAIN, or a connection that died in the queue */
		t->st.accepts++;
		if (getsockname(fd, (struct sockaddr *)&la, &llen) < 0 ||
		    rdsu_sockaddr_get(&la, &laddr, &lport) < 0 || rdsu_sockaddr_get(&fa, &faddr, &fport) < 0) {
			close(fd);
			continue;
		}
		tune(t, fd);
		int r = rdsu_link_accept(t->ep, &laddr, &faddr, fport, now, &id);
		if (r != RDSU_ACCEPT_UP && r != RDSU_ACCEPT_HELD) {
			/* rds_tcp_accept_one resets: SO_LINGER 0. */
			t->st.accept_reset++;
			set_linger0(fd);
			close(fd);
			continue;
		}
		struct tsock *l = calloc(1, sizeof(*l));

		if (!l) {
			(void)rdsu_link_down(t->ep, id, now);
			set_linger0(fd);
			close(fd);
			continue;
		}
		l->kind = TS_LINK;
		l->src.fd = fd;
		l->id = id;
		l->state = r == RDSU_ACCEPT_UP ? TL_UP : TL_HELD;
		l->want_out = l->state == TL_UP;
		if (watch(t, l, link_events(l), EPOLL_CTL_ADD) < 0) {
			(void)rdsu_link_down(t->ep, id, now);
			close(fd);
			tsock_free(l);
			continue;
		}
		link_hash(t, l);
		t->st.links_up++;
		if (l->state == TL_UP)
			output(t, l, now);
	}
}

/* ------------------------------------------------------------------------
 * Bytes
 */

/* Return: true if the peer acknowledged more (the core freed messages). */
static bool check_acked(struct rdsu_tcp *t, struct tsock *l, rdsu_ns now)
{
	bool moved = false;
	int outq = 0;

	if (l->written == l->acked)
		return false;
	t->st.ack_checks++;
	if (ioctl(l->src.fd, SIOCOUTQ, &outq) < 0 || outq < 0)
		return false;
	uint64_t acked = l->written - (uint64_t)outq;

	if (acked > l->acked) {
		l->acked = acked;
		moved = true;
		if (rdsu_link_acked(t->ep, l->id, acked, now) == RDSU_ERR_CLOSED) {
			link_close(t, l, false);
			return true;
		}
		t->ack_poll = ACK_POLL_MIN;
	}
	if (l->acked == l->written)
		ack_list_del(t, l);
	return moved;
}

/* sendmsg() what it takes of |iov|; <0 errno on a dead connection. */
static ssize_t wrv(struct rdsu_tcp *t, struct tsock *l, struct iovec *iov, int n, rdsu_ns now)
{
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)n };
	ssize_t w = sendmsg(l->src.fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);

	if (w < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return 0;
		return -errno;
	}
	t->st.writes++;
	t->st.bytes_out += (uint64_t)w;
	l->written += (uint64_t)w;
	ack_list_add(t, l, now);
	return w;
}

/* send() what it takes; <0 errno on a dead connection. */
static ssize_t wr(struct rdsu_tcp *t, struct tsock *l, const uint8_t *p, size_t n, rdsu_ns now)
{
	struct iovec iov = { .iov_base = (void *)p, .iov_len = n };

	return wrv(t, l, &iov, 1, now);
}

/*
 * Write until the core has nothing or the socket is full. Short spans
 * (headers, small messages) are gathered into one staging buffer
 * (rds_tcp_xmit corks a batch the same way); the first long span after
 * them is written from the core's memory in the same sendmsg(), so a
 * 64 KiB message is one system call and no copy of ours. Staged bytes
 * are the transport's once copied: what sendmsg() does not take of them
 * is kept and written first next time, as the contract asks. The long
 * span is advanced only by what was taken.
 */
static void output(struct rdsu_tcp *t, struct tsock *l, rdsu_ns now)
{
	if (l->state != TL_UP)
		return;
	for (;;) {
		struct iovec iov[2];
		const uint8_t *p = NULL, *big = NULL;
		size_t len = 0, big_len = 0, staged = 0;
		ssize_t w;
		int r, n = 0;

		if (l->rem_len) {
			w = wr(t, l, l->rem + l->rem_off, l->rem_len, now);
			if (w < 0)
				goto lost;
			l->rem_off += (size_t)w;
			l->rem_len -= (size_t)w;
			if (l->rem_len)
				goto blocked;
			free(l->rem);
			l->rem = NULL;
			l->rem_off = 0;
		}
		while (staged < STAGE_SIZE) {
			r = rdsu_link_peek(t->ep, l->id, &p, &len, now);
			if (r == RDSU_ERR_CLOSED) {
				link_close(t, l, false);
				return;
			}
			if (r < 0 || len == 0)
				break;
			if (len >= DIRECT_MIN) {
				big = p;
				big_len = len;
				break;
			}
			if (len > STAGE_SIZE - staged)
				len = STAGE_SIZE - staged;
			memcpy(t->stage + staged, p, len);
			if (rdsu_link_advance(t->ep, l->id, len, now) < 0) {
				link_close(t, l, false);
				return;
			}
			staged += len;
		}
		if (!staged && !big)
			break;
		if (staged)
			iov[n++] = (struct iovec){ .iov_base = t->stage, .iov_len = staged };
		if (big)
			iov[n++] = (struct iovec){ .iov_base = (void *)big, .iov_len = big_len };
		w = wrv(t, l, iov, n, now);
		if (w < 0)
			goto lost;
		if ((size_t)w < staged) {
			l->rem = malloc(staged - (size_t)w);
			if (!l->rem) {
				/* The bytes are the core's no more: the stream
				 * cannot go on without them. */
				(void)rdsu_link_down(t->ep, l->id, now);
				link_close(t, l, true);
				return;
			}
			memcpy(l->rem, t->stage + w, staged - (size_t)w);
			l->rem_len = staged - (size_t)w;
			l->rem_off = 0;
			goto blocked;
		}
		if (big) {
			size_t took = (size_t)w - staged;

			if (took && rdsu_link_advance(t->ep, l->id, took, now) < 0) {
				link_close(t, l, false);
				return;
			}
			if (took < big_len)
				goto blocked;
		}
	}
	l->want_out = false;
	link_rewatch(t, l);
	/* SIOCOUTQ costs a system call per write; without a socket blocked
	 * on SNDBUF the ack timer frees acknowledged messages soon enough. */
	if (rdsu_ep_acks_wanted(t->ep))
		check_acked(t, l, now);
	return;
blocked:
	t->st.write_blocked++;
	l->want_out = true;
	link_rewatch(t, l);
	return;
lost:
	salvage(t, l, now);
}

/* Keep |n| bytes of a held link for its attach. Return: 0; -1 no memory. */
static int held_append(struct tsock *l, const uint8_t *p, size_t n)
{
	uint8_t *h = realloc(l->held_in, l->held_len + n);

	if (!h)
		return -1;
	memcpy(h + l->held_len, p, n);
	l->held_in = h;
	l->held_len += n;
	return 0;
}

static int feed(struct rdsu_tcp *t, struct tsock *l, const uint8_t *p, size_t n, rdsu_ns now)
{
	ssize_t r = rdsu_link_input(t->ep, l->id, p, n, now);

	if (r == RDSU_ERR_CLOSED) {
		/* The core may have let go of the link while reading (a probe
		 * re-syncing slot 0) and queued an orderly close for it: that
		 * close must drain, not cut the socket with unread bytes. */
		rdsu_loop_requests(t->io, now);
		if (l->kind == TS_LINK)
			link_close(t, l, false);
		return -1;
	}
	if (r < 0)
		return -1;  /* RDSU_ERR_PROTO: a CLOSE with RST is queued */
	if ((size_t)r < n) {
		/* The core holds the link (stashed for a slot): keep the bytes
		 * for when it is attached. */
		if (held_append(l, p + r, n - (size_t)r) < 0) {
			link_lost(t, l, now);
			return -1;
		}
		l->state = TL_HELD;
		link_rewatch(t, l);
		return -1;
	}
	return 0;
}

/* recv() one chunk into t->rbuf: bytes, 0 at EOF, -errno. Every read
 * but a direct wait's passes MSG_DONTWAIT: a link may be a blocking
 * socket (direct_wait). */
static ssize_t rd(struct rdsu_tcp *t, struct tsock *l, int flags)
{
	ssize_t n = recv(l->src.fd, t->rbuf, READ_CHUNK, flags);

	if (n < 0)
		return -errno;
	t->io->rd_budget -= n;
	t->st.reads += n > 0;
	t->st.bytes_in += (uint64_t)n;
	return n;
}

/* Hand what one read of |l| into |buf| gave to the core. Return: true
 * if the socket may hold more. */
static bool took_buf(struct rdsu_tcp *t, struct tsock *l, const uint8_t *buf, ssize_t n,
		     rdsu_ns now)
{
	if (n == -EAGAIN || n == -EWOULDBLOCK || n == -EINTR)
		return false;
	if (n <= 0) {
		link_lost(t, l, now);  /* EOF, RST, error */
		return false;
	}
	l->in_gap = l->in_at ? now - l->in_at : RDSU_NS_NEVER;
	l->in_at = now;
	if (t->last_in != l)
		t->in_streak = 0;
	if (t->in_streak < 2)
		t->in_streak++;
	t->last_in = l;
	if (feed(t, l, buf, (size_t)n, now) < 0)
		return false;
	return (size_t)n == READ_CHUNK;
}

static bool took(struct rdsu_tcp *t, struct tsock *l, ssize_t n, rdsu_ns now)
{
	return took_buf(t, l, t->rbuf, n, now);
}

static void input(struct rdsu_tcp *t, struct tsock *l, rdsu_ns now)
{
	for (int i = 0; i < READS_PER_ROUND && l->state == TL_UP && t->io->rd_budget > 0; i++)
		if (!took(t, l, rd(t, l, MSG_DONTWAIT), now))
			return;
}

static void attach(struct rdsu_tcp *t, struct tsock *l, rdsu_ns now)
{
	l->state = TL_UP;
	l->want_out = true;
	if (!l->held_dead)
		link_rewatch(t, l);
	if (l->held_len) {
		uint8_t *h = l->held_in;
		size_t n = l->held_len;

		l->held_in = NULL;
		l->held_len = 0;
		int r = feed(t, l, h, n, now);

		free(h);
		if (r < 0)
			return;
	}
	if (l->held_dead) {
		link_lost(t, l, now);  /* held_end: its bytes were all it had */
		return;
	}
	output(t, l, now);
}

/*
 * A held link's peer closed or reset it. The peer took the connection for
 * its path as soon as it was accepted and wrote on it, and TCP
 * acknowledged what arrived, so the peer has freed those messages: they
 * are read now, kept, and given to the core when it attaches the link
 * (after the slot's old connection has given up its own bytes), which is
 * then reported down; a FIN is read to its end the same way. Without
 * bytes the link is reported down at once and frees its stash slot. Either
 * way it leaves the epoll set: EPOLLERR and EPOLLHUP cannot be masked.
 */
static void held_end(struct rdsu_tcp *t, struct tsock *l, rdsu_ns now)
{
	ssize_t n;

	while ((n = rd(t, l, MSG_DONTWAIT)) > 0) {
		if (held_append(l, t->rbuf, (size_t)n) < 0) {
			link_lost(t, l, now);
			return;
		}
	}
	if (n == -EAGAIN || n == -EWOULDBLOCK || n == -EINTR) {
		(void)watch(t, l, 0, EPOLL_CTL_MOD);  /* a FIN to come, or a spurious wake */
		return;
	}
	if (!l->held_len) {
		link_lost(t, l, now);
		return;
	}
	rdsu_loop_unwatch(t->io, &l->src);
	l->held_dead = true;
	t->st.held_kept++;
}

/* ------------------------------------------------------------------------
 * Requests from the core
 */

/*
 * A send found the connection dead. What it had received is still in the
 * socket and TCP has acknowledged it, so the peer has freed those messages
 * and will never resend them: read it all into the core, then report the
 * loss.
 */
static void salvage(struct rdsu_tcp *t, struct tsock *l, rdsu_ns now)
{
	ssize_t n;

	while ((n = rd(t, l, MSG_DONTWAIT)) > 0)
		if (feed(t, l, t->rbuf, (size_t)n, now) < 0)
			return;  /* closed or held by the core */
	link_lost(t, l, now);
}

static struct rdsu_tcp *tcp_of(struct rdsu_transport *tr)
{
	return (struct rdsu_tcp *)tr;
}

static void *tcp_find(struct rdsu_transport *tr, uint64_t link)
{
	return link_find(tcp_of(tr), link);
}

static void tcp_close(struct rdsu_transport *tr, void *lk, bool reset, rdsu_ns now)
{
	struct rdsu_tcp *t = tcp_of(tr);
	struct tsock *l = lk;

	t->st.closes++;
	if (reset || l->state == TL_CONNECTING)
		link_close(t, l, reset);
	else
		link_drain(t, l, now);
}

static void tcp_output(struct rdsu_transport *tr, void *lk, rdsu_ns now)
{
	struct tsock *l = lk;

	l->want_out = true;
	output(tcp_of(tr), l, now);
}

static void tcp_attach(struct rdsu_transport *tr, void *lk, rdsu_ns now)
{
	struct tsock *l = lk;

	if (l->state == TL_HELD)
		attach(tcp_of(tr), l, now);
}

static void tcp_connect(struct rdsu_transport *tr, const struct rdsu_lreq *r, rdsu_ns now)
{
	do_connect(tcp_of(tr), r, now);
}

/* ------------------------------------------------------------------------
 * The loop
 */

static void drain_read(struct rdsu_tcp *t, struct tsock *d)
{
	for (int i = 0; i < READS_PER_ROUND; i++) {
		ssize_t n = recv(d->src.fd, t->rbuf, READ_CHUNK, MSG_DONTWAIT);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return;
		if (n <= 0) {
			drain_end(t, d);
			return;
		}
	}
}

static void drain_expire(struct rdsu_tcp *t, rdsu_ns now)
{
	struct tsock *d = t->drain_head, *next;

	for (; d; d = next) {
		next = d->dnext;
		if (now >= d->drain_until)
			drain_end(t, d);
	}
}

/* The transport's own due times: the acknowledgement check, drains. */
static rdsu_ns tcp_deadline(const struct rdsu_transport *tr)
{
	const struct rdsu_tcp *t = (const struct rdsu_tcp *)tr;
	rdsu_ns due = RDSU_NS_NEVER;

	if (t->ack_head)
		due = t->ack_due;
	for (const struct tsock *d = t->drain_head; d; d = d->dnext)
		if (d->drain_until < due)
			due = d->drain_until;
	return due;
}

static void tcp_expire(struct rdsu_transport *tr, rdsu_ns now)
{
	struct rdsu_tcp *t = tcp_of(tr);

	if (t->drain_head)
		drain_expire(t, now);
}

static bool ack_round(struct rdsu_tcp *t, rdsu_ns now)
{
	struct tsock *l = t->ack_head, *next;
	rdsu_ns before = t->ack_poll;
	bool moved = false;

	/* Nothing moved since last time: look less often, up to 50 ms. The
	 * kernel is told on every ACK; SIOCOUTQ is the closest a userspace
	 * stack gets, and while a socket waits for SNDBUF room every write
	 * and every round look anyway (ack_due). */
	t->ack_poll = before * 2 > ACK_POLL_MAX ? ACK_POLL_MAX : before * 2;
	for (; l; l = next) {
		next = l->anext;
		moved |= check_acked(t, l, now);
	}
	t->ack_due = now + ack_interval(t);
	return moved;
}

/* Time to look at acknowledgements: the timer says so, or a socket waits
 * for SNDBUF room and every moment counts. */
static bool ack_due(const struct rdsu_tcp *t, rdsu_ns now)
{
	return t->ack_head && (now >= t->ack_due || rdsu_ep_acks_wanted(t->ep));
}

/* Report what TCP acknowledged when it is time to look: the timer says
 * so, or a socket waits for SNDBUF room. The flush look is on the waiting
 * socket's clock only (ACK_POLL_MIN): a sender that queues with more and
 * flushes in a loop never sleeps in a run, so the flush is where
 * acknowledged bytes must be noticed, or it waits for ever (rdsperf's rr
 * server did), but not with a SIOCOUTQ per flush. */
static bool tcp_acks(struct rdsu_transport *tr, rdsu_ns now, bool flush)
{
	struct rdsu_tcp *t = tcp_of(tr);

	if (flush)
		return rdsu_ep_acks_wanted(t->ep) && t->ack_head && now >= t->ack_due &&
		       ack_round(t, now);
	return ack_due(t, now) && ack_round(t, now);
}

static void tcp_ready(struct rdsu_transport *tr, struct rdsu_src *src, uint32_t ev, rdsu_ns now)
{
	struct rdsu_tcp *t = tcp_of(tr);
	struct tsock *s = (struct tsock *)src;

	switch (s->kind) {
	case TS_LISTEN:
		do_accept(t, s, now);
		return;
	case TS_DRAIN:
		drain_read(t, s);
		return;
	case TS_DEAD:
		return;
	case TS_LINK:
		break;
	}
	if (s->state == TL_CONNECTING) {
		connect_done(t, s, now);
		return;
	}
	if (s->state == TL_HELD) {
		if (ev & (EPOLLERR | EPOLLHUP | EPOLLRDHUP))
			held_end(t, s, now);
		return;
	}
	if (ev & EPOLLOUT) {
		output(t, s, now);
		if (s->kind != TS_LINK)
			return;
	}
	if (ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
		input(t, s, now);
}

/* |l| is the one link read lately: its last two reads were the
 * endpoint's last two, less than |bound| apart, the last less than
 * |bound| ago. */
static bool link_hot(const struct rdsu_tcp *t, const struct tsock *l, rdsu_ns now, rdsu_ns bound)
{
	return l == t->last_in && t->in_streak >= 2 && l->in_gap < bound && now - l->in_at < bound;
}

/* Make |l| a blocking socket that a recv() waits on for at most
 * t->direct_max. Every other call on a link passes MSG_DONTWAIT (or cannot
 * block: shutdown, close without a linger time, ioctl). */
static bool direct_ready(struct rdsu_tcp *t, struct tsock *l)
{
	struct timeval tv = { .tv_sec = 0, .tv_usec = DIRECT_ASK_US };
	socklen_t len = sizeof(tv);
	int fl;

	if (l->direct)
		return true;
	if (l->no_direct)
		return false;
	l->no_direct = true;
	if (setsockopt(l->src.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    getsockopt(l->src.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, &len) < 0)
		return false;
	rdsu_ns max = (rdsu_ns)tv.tv_sec * RDSU_SEC + (rdsu_ns)tv.tv_usec * 1000;

	/* 0 would be no timeout at all. */
	if (max == 0 || (fl = fcntl(l->src.fd, F_GETFL)) < 0 ||
	    fcntl(l->src.fd, F_SETFL, fl & ~O_NONBLOCK) < 0)
		return false;
	if (max > t->direct_max)
		t->direct_max = max;
	l->no_direct = false;
	l->direct = true;
	return true;
}

/*
 * The link a wait until |until| may block on directly, or NULL. Only one
 * link's bytes can end such a wait: it is the endpoint's only link, up and
 * with nothing to write (EPOLLOUT would be missed), no drain is reading,
 * and no socket waits for acknowledgements (their 200 us timer would be).
 * The wait must end before the core's next deadline and the caller's,
 * and start within direct_max of the last epoll round, so the listener
 * and the timerfd are looked at within twice that. A link that has not
 * read for that long, or whose last two reads were further apart, would
 * mostly time out, a wakeup for nothing: it is left to epoll.
 */
static struct tsock *direct_link(struct rdsu_tcp *t, rdsu_ns now, rdsu_ns until)
{
	struct tsock *l = t->last_in;

	if (!l || t->n_links != 1 || t->drain_head || l->state != TL_UP || l->want_out ||
	    l->rem_len || rdsu_ep_acks_wanted(t->ep))
		return NULL;
	if (!direct_ready(t, l))
		return NULL;
	if (!link_hot(t, l, now, t->direct_max) || now - t->io->swept >= t->direct_max)
		return NULL;
	if (now + t->direct_max > until || now + t->direct_max > rdsu_ep_deadline(t->ep))
		return NULL;
	return l;
}

/* Block in recv() on |l| (direct_link). Return: 1 bytes or the end of the
 * connection were handled, 0 it timed out, -EINTR. */
static int direct_wait(struct rdsu_tcp *t, struct tsock *l)
{
	ssize_t n;

	t->st.direct_waits++;
	t->io->rd_budget = RDSU_READ_BUDGET;
	n = rd(t, l, 0);
	if (n == -EINTR)
		return -EINTR;
	if (n == -EAGAIN || n == -EWOULDBLOCK)
		return 0;
	rdsu_ns now = rdsu_clock();

	if (took(t, l, n, now))
		input(t, l, now);
	return 1;
}

/* ------------------------------------------------------------------------
 * Ring waits (RING_HOT)
 *
 * SINGLE_ISSUER | DEFER_TASKRUN: an armed recv runs, and completes, only
 * inside our own io_uring_enter with GETEVENTS (or at its submission),
 * never behind our back. So a plain recv() of the hot link by other code
 * (an EPOLLHUP, salvage) while the ring recv is armed takes the bytes
 * that come first, and the ring recv, when it runs, the ones after; and
 * since every enter is followed by ring_reap and the bytes are fed before
 * anything else reads the socket, nothing reaches the core out of order.
 */

#ifdef RDSU_HAVE_LIBURING
enum { RING_RECV = 1, RING_POLL, RING_CANCEL };

static bool ring_ok(struct rdsu_tcp *t)
{
	struct io_uring_params p = { .flags = IORING_SETUP_SINGLE_ISSUER |
					      IORING_SETUP_DEFER_TASKRUN |
					      IORING_SETUP_TASKRUN_FLAG };

	if (t->ring_state)
		return t->ring_state > 0;
	/* Set up on first use, so the ring belongs to the thread that runs
	 * the loop (SINGLE_ISSUER), not the one that created the endpoint.
	 * A kernel before 6.1, seccomp or io_uring_disabled: epoll it is. */
	t->ring_state = -1;
	t->hbuf = malloc(READ_CHUNK);
	if (!t->hbuf || io_uring_queue_init_params(8, &t->ring, &p) < 0) {
		free(t->hbuf);
		t->hbuf = NULL;
		t->st.ring_unavailable = 1;
		return false;
	}
	t->ring_state = 1;
	return true;
}

static void ring_reap(struct rdsu_tcp *t)
{
	struct io_uring_cqe *cqe;
	unsigned head, n = 0;

	io_uring_for_each_cqe(&t->ring, head, cqe) {
		n++;
		if (cqe->user_data == RING_RECV) {
			t->recv_armed = false;
			t->recv_done = true;
			t->recv_res = cqe->res;
		} else if (cqe->user_data == RING_POLL) {
			t->poll_armed = false;
			t->poll_done = true;
		}
	}
	io_uring_cq_advance(&t->ring, n);
	t->st.ring_armed = t->recv_armed;
}

/* The completed recv of |l| to the core, as took() and input() do a
 * recv(). Return: true if it ended (bytes, EOF or error), not cancelled. */
static bool ring_took(struct rdsu_tcp *t, struct tsock *l, rdsu_ns now)
{
	ssize_t n = t->recv_res;

	t->recv_done = false;
	if (n == -ECANCELED)
		return false;
	if (n > 0) {
		t->io->rd_budget -= n;
		t->st.reads++;
		t->st.bytes_in += (uint64_t)n;
	}
	if (took_buf(t, l, t->hbuf, n, now))
		input(t, l, now);
	return true;
}

/* Let go of the hot link: cancel its recv, wait for that recv's
 * completion (until then io_uring holds the socket), give it back to
 * epoll. What the recv read goes to the core if |deliver|, else nowhere
 * (the link is closing). Return: true if bytes, EOF or an error were
 * delivered. */
static bool ring_unhot(struct rdsu_tcp *t, rdsu_ns now, bool deliver)
{
	struct tsock *l = t->hot;

	if (!l)
		return false;
	/* The poll too: left armed while a direct or epoll wait blocks, its
	 * completion interrupted that wait with EINTR (test_direct_wait_timer). */
	if (t->recv_armed || t->poll_armed) {
		struct io_uring_sqe *sqe;

		if (t->recv_armed && (sqe = io_uring_get_sqe(&t->ring))) {
			t->st.ring_cancels++;
			io_uring_prep_cancel64(sqe, RING_RECV, 0);
			io_uring_sqe_set_data64(sqe, RING_CANCEL);
		}
		if (t->poll_armed && (sqe = io_uring_get_sqe(&t->ring))) {
			io_uring_prep_cancel64(sqe, RING_POLL, 0);
			io_uring_sqe_set_data64(sqe, RING_CANCEL);
		}
		while (t->recv_armed || t->poll_armed) {
			int r = io_uring_submit_and_wait(&t->ring, 1);

			ring_reap(t);
			if (r < 0 && r != -EINTR)
				break;  /* io_uring_queue_exit at free cancels it */
		}
	}
	t->hot = NULL;
	l->hot = false;
	t->poll_done = false;
	if (!deliver) {
		t->recv_done = false;
		return false;
	}
	link_rewatch(t, l);
	return t->recv_done && ring_took(t, l, now);
}

/* The link a wait may arm a recv on, or NULL: the hot link of several
 * (one link alone has the direct wait). No deadline or drain matters
 * here, nor a link waiting to write (it keeps EPOLLOUT in the epoll set):
 * whatever ends an epoll wait ends this one through the poll. */
static struct tsock *ring_link(struct rdsu_tcp *t, rdsu_ns now)
{
	struct tsock *l = t->last_in;

	if (!t->cfg.ring_wait || !l || t->n_links < 2 || l->state != TL_UP ||
	    !link_hot(t, l, now, RING_HOT))
		return NULL;
	return ring_ok(t) ? l : NULL;
}

/*
 * Wait up to |wait_ms| (-1 for ever) for |l|'s bytes or the epoll set,
 * re-arming only what completed last time. Return: 1 the wait ended (the
 * caller looks at recv_done and poll_done), 0 it timed out, -EINTR, or
 * another -errno, after which the ring is given up.
 */
static int ring_wait(struct rdsu_tcp *t, struct tsock *l, int wait_ms)
{
	struct io_uring_sqe *sqe;
	int r;

	if (!l->hot) {
		t->hot = l;
		l->hot = true;
		link_rewatch(t, l);
	}
	if (!t->recv_armed && (sqe = io_uring_get_sqe(&t->ring))) {
		io_uring_prep_recv(sqe, l->src.fd, t->hbuf, READ_CHUNK, 0);
		io_uring_sqe_set_data64(sqe, RING_RECV);
		t->recv_armed = true;
	}
	if (!t->poll_armed && (sqe = io_uring_get_sqe(&t->ring))) {
		io_uring_prep_poll_add(sqe, t->io->epfd, POLLIN);
		io_uring_sqe_set_data64(sqe, RING_POLL);
		t->poll_armed = true;
	}
	t->st.ring_waits++;
	t->st.ring_armed = 1;
	t->recv_done = t->poll_done = false;
	if (wait_ms < 0) {
		r = io_uring_submit_and_wait(&t->ring, 1);
	} else {
		struct io_uring_cqe *cqe;
		struct __kernel_timespec ts = { .tv_sec = wait_ms / 1000,
						.tv_nsec = (long long)(wait_ms % 1000) * 1000000 };

		r = io_uring_submit_and_wait_timeout(&t->ring, &cqe, 1, &ts, NULL);
	}
	ring_reap(t);
	if (t->recv_done || t->poll_done)
		return 1;
	if (r == -ETIME || r >= 0)
		return 0;
	return r;
}

/* The ring cannot be entered (another thread, say): back to epoll for
 * good. Exiting the ring cancels what is armed. */
static void ring_fail(struct rdsu_tcp *t)
{
	struct tsock *l = t->hot;

	io_uring_queue_exit(&t->ring);
	t->ring_state = -1;
	t->st.ring_unavailable = 1;
	t->recv_armed = t->poll_armed = t->recv_done = t->poll_done = false;
	t->st.ring_armed = 0;
	t->hot = NULL;
	if (l) {
		l->hot = false;
		link_rewatch(t, l);
	}
}

/* A round without a wait while a recv is armed: if the kernel has work
 * for us (TASKRUN_FLAG, a read of shared memory), the hot link may have
 * bytes that no epoll_wait would see; take them. */
static void ring_peek(struct rdsu_tcp *t, rdsu_ns now)
{
	if (!t->hot || !(IO_URING_READ_ONCE(*t->ring.sq.kflags) & IORING_SQ_TASKRUN))
		return;
	(void)io_uring_get_events(&t->ring);
	ring_reap(t);
	t->poll_done = false;
	if (t->recv_done) {
		t->io->rd_budget = RDSU_READ_BUDGET;
		(void)ring_took(t, t->hot, now);
	}
}
#else
static bool ring_unhot(struct rdsu_tcp *t, rdsu_ns now, bool deliver)
{
	return false;
}
#endif

/*
 * The loop's wait op: before it waits on the epoll set, a ring wait on
 * the hot link of several, or a direct wait on the one link (see
 * rdsu_tcp_run). A direct wait needs every other source to be quiet, so
 * only a loop with TCP |alone| has one.
 */
static int tcp_wait(struct rdsu_transport *tr, bool alone, int *wait_ms, rdsu_ns *nowp,
		    int *res)
{
	struct rdsu_tcp *t = tcp_of(tr);
	rdsu_ns now = *nowp;
	int n;

#ifdef RDSU_HAVE_LIBURING
	if (*wait_ms == 0 && t->hot) {
		ring_peek(t, now);
		rdsu_loop_requests(t->io, now);
	}
	if (*wait_ms != 0) {
		struct tsock *h = ring_link(t, now);

		/* Cooled, or another link took over: its bytes to epoll again,
		 * and whatever the cancelled recv still read to the core
		 * before anything waits. */
		if (t->hot && t->hot != h) {
			t->io->rd_budget = RDSU_READ_BUDGET;
			if (ring_unhot(t, now, true))
				*wait_ms = 0;
			rdsu_loop_requests(t->io, now);
			rdsu_loop_arm(t->io, now);
		}
		if (h && *wait_ms != 0) {
			n = ring_wait(t, h, *wait_ms);
			/* Interrupted (a signal, or io_uring's own task work,
			 * which test_direct_wait_timer once met while a poll
			 * was still armed): a round that found nothing, so a
			 * caller's loop goes on and still looks at its flags. */
			if (n == -EINTR)
				n = 0;
			if (n < 0) {
				ring_fail(t);
				*wait_ms = 0;
				return RDSU_TWAIT_NONE;
			}
			now = rdsu_clock();
			*nowp = now;
			t->io->rd_budget = RDSU_READ_BUDGET;
			if (t->recv_done) {
				t->st.ring_recvs++;
				(void)ring_took(t, h, now);
				rdsu_loop_requests(t->io, now);
			}
			if (t->poll_done) {
				t->st.ring_polls++;
				return RDSU_TWAIT_POLL;
			}
			if (!n)
				t->st.ring_timeouts++;  /* or interrupted */
			*res = n;
			return RDSU_TWAIT_DONE;
		}
	}
#endif
	if (*wait_ms != 0 && alone) {
		rdsu_ns until = *wait_ms < 0 ? RDSU_NS_NEVER : now + (rdsu_ns)*wait_ms * RDSU_MSEC;
		struct tsock *l = direct_link(t, now, until);

		if (l) {
			n = direct_wait(t, l);
			if (n < 0)
				return n;
			now = rdsu_clock();
			*nowp = now;
			if (n > 0) {
				rdsu_loop_requests(t->io, now);
				*res = 1;
				return RDSU_TWAIT_DONE;
			}
			/* Quiet for all of direct_max: epoll, for the rest of
			 * the caller's time. */
			t->st.direct_timeouts++;
			if (until != RDSU_NS_NEVER && until <= now)
				*wait_ms = 0;
			else if (until != RDSU_NS_NEVER)
				*wait_ms = (int)((until - now + RDSU_MSEC - 1) / RDSU_MSEC);
		}
	}
	return RDSU_TWAIT_NONE;
}

/* ------------------------------------------------------------------------
 * Set-up
 */

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

static int tcp_listen(struct rdsu_transport *tr, const struct rdsu_addr *a)
{
	struct rdsu_tcp *t = tcp_of(tr);
	struct sockaddr_storage ss;
	socklen_t len = rdsu_sockaddr(a, t->cfg.listen_port, &ss);
	int one = 1, err, fd;
	struct tsock *s;

	if (t->cfg.no_listen)
		return 0;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (ss.ss_family == AF_INET6)
		(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	/* rds_tcp_listen_init: backlog 64. */
	if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 64) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		close(fd);
		return -ENOMEM;
	}
	s->kind = TS_LISTEN;
	s->src.fd = fd;
	s->laddr = *a;
	err = watch(t, s, EPOLLIN, EPOLL_CTL_ADD);
	if (err < 0) {
		close(fd);
		free(s);
		return err;
	}
	t->listen[t->n_listen++] = s;
	return 0;
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
		(void)ring_unhot(t, 0, false);
		io_uring_queue_exit(&t->ring);
	}
	free(t->hbuf);
#endif
	for (unsigned b = 0; b < LINK_BUCKETS; b++) {
		struct tsock *l = t->links[b], *next;

		for (; l; l = next) {
			next = l->hnext;
			close(l->src.fd);
			tsock_free(l);
		}
	}
	while (t->drain_head) {
		struct tsock *d = t->drain_head;

		t->drain_head = d->dnext;
		close(d->src.fd);
		tsock_free(d);
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
	.name = "tcp",
	.id = RDSU_TRANS_TCP,
	.framing = RDSU_FRAMING_STREAM,
	.listen = tcp_listen,
	.ready = tcp_ready,
	.connect = tcp_connect,
	.find = tcp_find,
	.output = tcp_output,
	.close = tcp_close,
	.attach = tcp_attach,
	.acks = tcp_acks,
	.deadline = tcp_deadline,
	.expire = tcp_expire,
	.wait = tcp_wait,
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
	if (!t->cfg.port_low || !t->cfg.port_high)
		port_range(&t->cfg.port_low, &t->cfg.port_high);
	if (t->cfg.port_low > t->cfg.port_high) {
		free(t);
		return RDSU_ERR_INVAL;
	}
	t->ack_poll = ACK_POLL_MIN;
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
