// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rdsd - one RDS presence for every shimmed program of a network
 * namespace (docs/architecture.md, "Sharing one RDS presence: rdsd";
 * the protocol is rdsd_proto.h).
 *
 * It owns one librds TCP endpoint per local address a socket bound to,
 * delivers messages between its own addresses itself (the kernel's
 * loopback transport), and frees a socket when the last descriptor of
 * its connection is closed, by whatever process, also one killed.
 *
 * Single-threaded: one epoll set holds the listener, every socket's
 * connection, every reply channel and every endpoint's descriptor.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/rds.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <rds/rdsu_tcp.h>
#include <rds/rdsu_io.h>
#include <wire/wire.h>

#include "rdsd_proto.h"
#include "rdsopt.h"

enum obj_kind { OBJ_LISTEN, OBJ_SOCK, OBJ_CHAN, OBJ_EP };

struct obj {
	enum obj_kind kind;
};

struct ep {
	struct obj o;
	struct rdsu_tcp *t;
	struct rdsu_addr addr;
	struct ep *next;
};

struct chan {
	struct obj o;
	int fd;
	uint32_t id;
	struct dsock *s;
	struct chan *next;
};

/* A send that waits for room or for a congested port (a blocking send). */
struct parked {
	uint32_t chan, seq;
	struct rdsu_addr dst;
	uint16_t dport;
	bool cong_wait;          /* waits for the port, without a timeout */
	bool noreply;            /* the sender did not wait (RDSD_SEND_NOREPLY) */
	int64_t deadline_ms;     /* -1: none */
	size_t len;
	uint8_t *data;
	struct parked *next;
};

/* A message from one of our own sockets, waiting for room in the
 * receiver's connection: the loopback transport queues without limit and
 * never congests (rds_loop_xmit), and so does this queue. */
struct local_rx {
	struct local_rx *next;
	struct rdsd_rx rx;
	size_t len;
	uint8_t data[];
};

struct dsock {
	struct obj o;
	int fd;
	ino_t ino;
	struct ep *ep;
	struct rdsu_sock *us;
	bool bound;
	struct rdsu_addr baddr;
	uint16_t bport;
	bool connected;
	struct rdsu_addr caddr;
	uint16_t cport;
	struct rdsopt opt;
	bool sent;
	uint8_t tos;
	uint32_t sndbuf, rcvbuf;  /* payload budgets, as librds takes them */
	bool push_blocked;        /* the connection is full: wait for EPOLLOUT */
	struct local_rx *lq, **lq_tail; /* local deliveries the connection had no room for */
	struct chan *chans;
	struct parked *parked, **parked_tail;   /* in order */
	size_t parked_bytes;
	struct dsock *next;
};

static int g_epfd = -1;
static struct obj g_listen = { OBJ_LISTEN };
static int g_lfd = -1;
static struct ep *g_eps;
static struct dsock *g_socks;
static unsigned g_nsocks;
static bool g_verbose;
static bool g_any_user;      /* --any-user: not only our own uid (and root) */
static uint8_t *g_buf;       /* one request or one received message */
static size_t g_bufcap;

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...)
{
	va_list ap;

	if (!g_verbose)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "rdsd[%d]: ", (int)getpid());
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static int ep_add(int fd, void *p, uint32_t ev)
{
	struct epoll_event e = { .events = ev, .data.ptr = p };

	return epoll_ctl(g_epfd, EPOLL_CTL_ADD, fd, &e);
}

static void ep_mod(int fd, void *p, uint32_t ev)
{
	struct epoll_event e = { .events = ev, .data.ptr = p };

	(void)epoll_ctl(g_epfd, EPOLL_CTL_MOD, fd, &e);
}

/* A big enough buffer for a whole message in either direction: root may
 * go past wmem_max, others get what the system allows. */
static void big_sndbuf(int fd)
{
	int v = 4 * (int)RDSD_MAX_MSG;

	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &v, sizeof(v)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
}

/* ------------------------------------------------------------------------
 * Replies
 */

static struct chan *chan_find(struct dsock *s, uint32_t id)
{
	for (struct chan *c = s->chans; c; c = c->next)
		if (c->id == id)
			return c;
	return NULL;
}

static void reply(struct dsock *s, uint32_t chan, uint32_t seq, int ret, uint32_t optlen,
		  const void *data, size_t len)
{
	struct chan *c = chan_find(s, chan);
	struct rdsd_rep rep = { .seq = seq, .ret = ret, .len = (uint32_t)len, .pad = optlen };
	struct iovec iov[2] = { { &rep, sizeof(rep) }, { (void *)data, len } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = data && len ? 2 : 1 };

	if (!c)
		return;  /* its process is gone */
	if (sendmsg(c->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		logf_("reply to channel %u: %s", chan, strerror(errno));
}

/* ------------------------------------------------------------------------
 * Endpoints and local delivery
 */

static struct ep *ep_of(const struct rdsu_addr *a)
{
	for (struct ep *e = g_eps; e; e = e->next)
		if (!rdsu_addr_cmp(&e->addr, a))
			return e;
	return NULL;
}

static int ep_get(const struct rdsu_addr *a, struct ep **out)
{
	struct rdsu_ep_cfg cfg;
	struct rdsu_tcp_cfg tcfg;
	struct ep *e = ep_of(a);
	int r;

	if (e) {
		*out = e;
		return 0;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->o.kind = OBJ_EP;
	rdsu_ep_cfg_default(&cfg);
	cfg.laddrs[0] = *a;
	cfg.n_laddrs = 1;
	rdsu_tcp_cfg_default(&tcfg);
	r = rdsu_tcp_new(&e->t, &cfg, &tcfg);
	if (r < 0) {
		free(e);
		return r == -EADDRNOTAVAIL || r == -EADDRINUSE || r == -ENOMEM ? r : -EADDRNOTAVAIL;
	}
	e->addr = *a;
	if (ep_add(rdsu_tcp_fd(e->t), e, EPOLLIN) < 0) {
		r = -errno;
		rdsu_tcp_free(e->t);
		free(e);
		return r;
	}
	e->next = g_eps;
	g_eps = e;
	*out = e;
	return 0;
}

static struct dsock *bound_sock(const struct rdsu_addr *a, uint16_t port)
{
	for (struct dsock *s = g_socks; s; s = s->next)
		if (s->bound && s->bport == port && !rdsu_addr_cmp(&s->baddr, a))
			return s;
	return NULL;
}

static void addr_to_rx(const struct rdsu_addr *a, uint16_t port, struct rdsd_rx *rx)
{
	rx->family = rdsu_addr_is_v4(a) ? AF_INET : AF_INET6;
	memcpy(rx->addr, a->a, 16);
	rx->port = port;
}

/* One message into |to|'s connection. Return: 0; -EAGAIN when it is full. */
static int push(struct dsock *to, const struct rdsd_rx *rx, const void *data, size_t len)
{
	struct iovec iov[2] = { { (void *)rx, sizeof(*rx) }, { (void *)data, len } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = len ? 2 : 1 };

	if (to->push_blocked)
		return -EAGAIN;
	if (sendmsg(to->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) >= 0)
		return 0;
	if (errno == EAGAIN || errno == ENOBUFS) {
		to->push_blocked = true;
		ep_mod(to->fd, to, EPOLLIN | EPOLLOUT);
		return -EAGAIN;
	}
	return 0;  /* the connection is going away: dropped as on close */
}

/* Move |s|'s queued local deliveries into its connection while it has room. */
static void pump_local(struct dsock *s)
{
	while (s->lq && !s->push_blocked) {
		struct local_rx *m = s->lq;

		if (push(s, &m->rx, m->data, m->len) < 0)
			break;
		s->lq = m->next;
		if (!s->lq)
			s->lq_tail = &s->lq;
		free(m);
	}
}

/* The loopback transport: a message from |s| to one of our own addresses,
 * queued behind the receiver's earlier local deliveries when its
 * connection is full. Return: the length; -ENOMEM. */
static int local_send(struct dsock *s, const struct rdsu_addr *dst, uint16_t dport,
		      const void *data, size_t len)
{
	struct rdsd_rx rx = { .kind = RDSD_RX_MSG };
	int sent = (int)len;
	struct local_rx *m;
	struct dsock *to;

	if (dport == 0) {
		/* a ping: the pong comes from the port-0 "socket" at once */
		addr_to_rx(dst, 0, &rx);
		to = s;
		data = NULL;
		len = 0;
	} else {
		to = bound_sock(dst, dport);
		if (!to)
			return sent;  /* no socket there: dropped (recv_drop_no_sock) */
		addr_to_rx(&s->baddr, s->bport, &rx);
	}
	if (!to->lq && push(to, &rx, data, len) == 0)
		return sent;
	m = malloc(sizeof(*m) + len);
	if (!m)
		return -ENOMEM;
	m->next = NULL;
	m->rx = rx;
	m->len = len;
	if (len)
		memcpy(m->data, data, len);
	if (!to->lq_tail)
		to->lq_tail = &to->lq;
	*to->lq_tail = m;
	to->lq_tail = &m->next;
	return sent;
}

/* Move |s|'s received messages into its connection while there is room. */
static bool pump_rx(struct dsock *s)
{
	bool read = false;

	while (s->us && !s->push_blocked) {
		struct rdsd_rx *rx = (struct rdsd_rx *)g_buf;
		struct iovec iov = { g_buf + sizeof(*rx), RDSD_MAX_MSG };
		struct rdsu_rxinfo info, drop;
		size_t len = 0;
		ssize_t n;

		n = rdsu_sock_read(s->us, &iov, 1, RDSU_READ_PEEK, &info, rdsu_clock());
		if (n < 0)
			break;
		memset(rx, 0, sizeof(*rx));
		if (info.cong) {
			rx->kind = RDSD_RX_CONG;
			rx->cong = info.cong_mask;
		} else {
			addr_to_rx(&info.from, info.sport, rx);
			len = info.len;
		}
		if (push(s, rx, g_buf + sizeof(*rx), len) < 0)
			break;
		(void)rdsu_sock_read(s->us, NULL, 0, 0, &drop, rdsu_clock());
		read = true;
	}
	return read;
}

/* ------------------------------------------------------------------------
 * Sockets
 */

static void parked_free(struct parked *p)
{
	free(p->data);
	free(p);
}

static void sock_free(struct dsock *s)
{
	struct dsock **pp;

	for (pp = &g_socks; *pp; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	g_nsocks--;
	if (s->us) {
		rdsu_sock_free(s->us, rdsu_clock());
		(void)rdsu_tcp_flush(s->ep->t);
	}
	while (s->chans) {
		struct chan *c = s->chans;

		s->chans = c->next;
		close(c->fd);
		free(c);
	}
	while (s->parked) {
		struct parked *p = s->parked;

		s->parked = p->next;
		parked_free(p);
	}
	while (s->lq) {
		struct local_rx *m = s->lq;

		s->lq = m->next;
		free(m);
	}
	close(s->fd);
	logf_("socket %d closed", s->fd);
	free(s);
}

static void accept_one(void)
{
	struct dsock *s;
	struct stat st;
	int fd = accept4(g_lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0)
		return;
	if (!g_any_user) {
		/* an abstract address has no permissions: who may use our
		 * endpoints is checked here (the user that runs us, and root) */
		struct ucred cr;
		socklen_t l = sizeof(cr);

		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &l) < 0 ||
		    (cr.uid != getuid() && cr.uid != 0)) {
			logf_("connection of uid %d refused", (int)cr.uid);
			close(fd);
			return;
		}
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		close(fd);
		return;
	}
	s->o.kind = OBJ_SOCK;
	s->fd = fd;
	s->ino = fstat(fd, &st) == 0 ? st.st_ino : 0;
	rdsopt_init(&s->opt);
	s->sndbuf = s->rcvbuf = RDSU_DEFAULT_BUF;
	s->lq_tail = &s->lq;
	s->parked_tail = &s->parked;
	big_sndbuf(fd);
	if (ep_add(fd, s, EPOLLIN) < 0) {
		close(fd);
		free(s);
		return;
	}
	s->next = g_socks;
	g_socks = s;
	g_nsocks++;
	logf_("socket %d opened", fd);
}

static int do_bind(struct dsock *s, const struct rdsd_req *q)
{
	struct rdsu_addr a;
	struct ep *e = NULL;
	int r;

	if (s->bound)
		return -EINVAL;
	memcpy(a.a, q->addr, 16);
	r = ep_get(&a, &e);
	if (r < 0)
		return r;
	if (!s->us) {
		r = rdsu_sock_new(rdsu_tcp_ep(e->t), &s->us);
		if (r < 0)
			return r;
		rdsu_sock_set_ctx(s->us, s);
		(void)rdsu_sock_set_sndbuf(s->us, s->sndbuf, rdsu_clock());
		(void)rdsu_sock_set_rcvbuf(s->us, s->rcvbuf, rdsu_clock());
		(void)rdsu_sock_set_cong_monitor(s->us, s->opt.cong_monitor);
		if (s->opt.transport != RDSU_TRANS_NONE)
			(void)rdsu_sock_set_transport(s->us, s->opt.transport);
		s->ep = e;
	}
	r = rdsu_sock_bind(s->us, &a, q->port);
	if (r < 0) {
		rdsu_sock_free(s->us, rdsu_clock());
		s->us = NULL;
		s->ep = NULL;
		return r;
	}
	(void)rdsu_sock_get_name(s->us, &s->baddr, &s->bport);
	s->bound = true;
	return 0;
}

/* One try of a send. Return: the length; -EAGAIN, -ENOBUFS to wait on;
 * another -errno. */
static int try_send(struct dsock *s, const struct rdsu_addr *dst, uint16_t dport,
		    const void *data, size_t len)
{
	struct iovec iov = { (void *)data, len };
	int r;

	if (ep_of(dst))
		return local_send(s, dst, dport, data, len);
	r = rdsu_sock_submit(s->us, dst, dport, &iov, 1, rdsu_clock());
	if (r == -EAGAIN) {
		/* acknowledgements are looked for by a run of the transport */
		(void)rdsu_tcp_run(s->ep->t, 0);
		r = rdsu_sock_submit(s->us, dst, dport, &iov, 1, rdsu_clock());
	}
	if (r >= 0)
		(void)rdsu_tcp_flush(s->ep->t);
	return r;
}

/* What |s| may send without waiting for an answer: SNDBUF room less what
 * already waits here (no SNDBUF is held for our own addresses). */
static uint32_t credit_of(struct dsock *s, const struct rdsu_addr *dst)
{
	struct rdsu_sock_info si;
	uint64_t held = 0;
	size_t pos = 0;

	if (ep_of(dst))
		return s->sndbuf > s->parked_bytes ? (uint32_t)(s->sndbuf - s->parked_bytes) : 0;
	while (rdsu_ep_sock_next(rdsu_tcp_ep(s->ep->t), &pos, &si) == 1)
		if (si.sock == s->us) {
			held = si.snd_bytes;
			break;
		}
	held += s->parked_bytes;
	return held < s->sndbuf ? (uint32_t)(s->sndbuf - held) : 0;
}

static void unpark(struct dsock *s, struct parked **pp)
{
	struct parked *p = *pp;

	*pp = p->next;
	if (s->parked_tail == &p->next)
		s->parked_tail = pp;
	if (p->noreply)
		s->parked_bytes -= p->len;
	parked_free(p);
}

static void do_send(struct dsock *s, const struct rdsd_req *q, const uint8_t *data, size_t len)
{
	bool noreply = q->arg & RDSD_SEND_NOREPLY, block = q->arg & RDSD_SEND_BLOCK;
	struct rdsu_addr dst;
	uint16_t dport;
	struct parked *p;
	int r;

	if (q->family) {
		memcpy(dst.a, q->addr, 16);
		dport = q->port;
	} else if (s->connected) {
		dst = s->caddr;
		dport = s->cport;
	} else {
		r = -ENOTCONN;
		goto answer;
	}
	if (!s->us) {
		r = -ENOTCONN;
		goto answer;
	}
	if (len > s->sndbuf) {
		r = -EMSGSIZE;
		goto answer;
	}
	if (s->parked) {
		/* behind sends that wait: a non-blocking one would have met
		 * the same full SNDBUF or port */
		if (!noreply && !block) {
			r = -EAGAIN;
			goto answer;
		}
		r = -EAGAIN;
	} else {
		r = try_send(s, &dst, dport, data, len);
		if (r >= 0)
			s->sent = true;
		if (r >= 0 || (!noreply && !block) || (r != -EAGAIN && r != -ENOBUFS))
			goto answer;
	}
	p = calloc(1, sizeof(*p));
	if (p && len)
		p->data = malloc(len);
	if (!p || (len && !p->data)) {
		free(p);
		r = -ENOMEM;
		goto answer;
	}
	if (len)
		memcpy(p->data, data, len);
	p->len = len;
	p->chan = q->chan;
	p->seq = q->seq;
	p->dst = dst;
	p->dport = dport;
	p->noreply = noreply;
	p->cong_wait = r == -ENOBUFS;
	p->deadline_ms = !noreply && r == -EAGAIN && q->timeout_ms >= 0 ? now_ms() + q->timeout_ms
									 : -1;
	if (noreply)
		s->parked_bytes += len;
	*s->parked_tail = p;
	s->parked_tail = &p->next;
	return;
answer:
	if (noreply) {
		logf_("socket %d: a send not waited for failed: %s", s->fd, strerror(-r));
		return;
	}
	reply(s, q->chan, q->seq, r, r >= 0 ? credit_of(s, &dst) : 0, NULL, 0);
}

/* Retry |s|'s waiting sends, in order, as far as they go. */
static void retry_parked(struct dsock *s)
{
	struct parked **pp = &s->parked;

	while (*pp) {
		struct parked *p = *pp;
		int r = try_send(s, &p->dst, p->dport, p->data, p->len);

		if (r == -EAGAIN || r == -ENOBUFS) {
			if (p->deadline_ms < 0 || now_ms() < p->deadline_ms)
				break;
			r = -ETIMEDOUT;
		}
		if (r >= 0)
			s->sent = true;
		if (!p->noreply)
			reply(s, p->chan, p->seq, r, r >= 0 ? credit_of(s, &p->dst) : 0, NULL, 0);
		else if (r < 0)
			logf_("socket %d: a send not waited for failed: %s", s->fd, strerror(-r));
		unpark(s, pp);
	}
}

static void do_cancel(struct dsock *s, const struct rdsd_req *q)
{
	for (struct parked **pp = &s->parked; *pp; ) {
		struct parked *p = *pp;

		if (p->chan != q->chan || p->noreply) {
			pp = &p->next;
			continue;
		}
		reply(s, p->chan, p->seq, -EINTR, 0, NULL, 0);
		unpark(s, pp);
	}
	reply(s, q->chan, q->seq, 0, 0, NULL, 0);
}

/* ------------------------------------------------------------------------
 * Options
 */

static int get_int(const uint8_t *v, size_t len, int *out)
{
	if (len < sizeof(int))
		return -EINVAL;
	memcpy(out, v, sizeof(int));
	return 0;
}

static int do_setopt(struct dsock *s, const struct rdsd_req *q, const uint8_t *v, size_t len)
{
	int iv, r;

	if (q->level == RDSD_LEVEL_IOCTL) {
		/* rds_ioctl: once, before the first send; TCP maps any TOS to 0 */
		if (len < 1)
			return -EFAULT;
		if (s->tos || s->sent)
			return -EINVAL;
		s->tos = (s->us || s->opt.transport == RDSU_TRANS_TCP) ? 0 : v[0];
		return 0;
	}
	if (q->level == SOL_SOCKET) {
		/* SO_SNDBUF/SO_RCVBUF: the value the kernel keeps (doubled),
		 * of which RDS uses half */
		if ((r = get_int(v, len, &iv)) < 0)
			return r;
		if (iv / 2 <= 0)
			return 0;
		if (q->name == SO_SNDBUF)
			s->sndbuf = (uint32_t)iv / 2;
		else
			s->rcvbuf = (uint32_t)iv / 2;
		if (s->us) {
			if (q->name == SO_SNDBUF)
				(void)rdsu_sock_set_sndbuf(s->us, s->sndbuf, rdsu_clock());
			else
				(void)rdsu_sock_set_rcvbuf(s->us, s->rcvbuf, rdsu_clock());
			(void)rdsu_tcp_flush(s->ep->t);
		}
		return 0;
	}
	switch (q->name) {
	case RDS_CANCEL_SENT_TO: {
		struct rdsu_addr a;

		if (!s->us)
			return -ENOTCONN;
		memcpy(a.a, q->addr, 16);
		r = rdsu_sock_cancel_sent_to(s->us, &a, q->port, rdsu_clock());
		(void)rdsu_tcp_flush(s->ep->t);
		return r < 0 ? r : 0;
	}
	default:
		return rdsopt_set(&s->opt, s->us, q->name, v, len);
	}
}

/* ---- RDS_INFO_*: the kernel's layouts (libwire's codec) ---- */

struct info_out {
	uint8_t *buf;
	size_t cap;              /* what the caller's buffer takes */
	size_t count;
	size_t size;
	struct wire_info_item it; /* the next item; opt, kind and family are the list's */
};

static void info_put(struct info_out *o)
{
	if ((o->count + 1) * o->size <= o->cap)
		(void)wire_info_encode(&o->it, o->buf + o->count * o->size, o->size);
	o->count++;
}

static bool fam_ok(int family, const struct rdsu_addr *a)
{
	/* IPv4 lists hold IPv4 items; the RDS6 lists hold both */
	return family == 6 || rdsu_addr_is_v4(a);
}

static void info_counters(struct info_out *o)
{
	struct rdsu_stats sum = { { 0 } }, st;
	struct wire_info_counter *k = &o->it.u.counter;

	for (struct ep *e = g_eps; e; e = e->next) {
		rdsu_ep_get_stats(rdsu_tcp_ep(e->t), &st);
		for (int i = 0; i < RDSU_STAT__COUNT; i++)
			sum.v[i] += st.v[i];
	}
	for (int i = 0; i < RDSU_STAT__COUNT; i++) {
		snprintf(k->name, sizeof(k->name), "%s", rdsu_stat_name((enum rdsu_stat)i));
		k->value = sum.v[i];
		info_put(o);
	}
}

/* |put| for every endpoint's connections to peers of the list's family. */
static void info_each_conn(struct info_out *o,
			   void (*put)(struct info_out *o, const struct rdsu_conn_info *ci))
{
	for (struct ep *e = g_eps; e; e = e->next) {
		struct rdsu_conn_info ci;
		size_t pos = 0;

		while (rdsu_ep_conn_next(rdsu_tcp_ep(e->t), &pos, &ci) == 1)
			if (fam_ok(o->it.family, &ci.faddr))
				put(o, &ci);
	}
}

static void info_conn(struct info_out *o, const struct rdsu_conn_info *ci)
{
	struct wire_info_conn *c = &o->it.u.conn;
	const struct rdsu_path_info *p = &ci->path[0];

	memset(c, 0, sizeof(*c));
	c->next_tx_seq = p->next_tx_seq;
	c->next_rx_seq = p->next_rx_seq;
	memcpy(c->laddr, ci->laddr.a, 16);
	memcpy(c->faddr, ci->faddr.a, 16);
	snprintf(c->transport, sizeof(c->transport), "tcp");
	if (p->state == RDSU_PATH_UP)
		c->flags |= WIRE_INFO_CONN_CONNECTED;
	else if (p->state == RDSU_PATH_CONNECTING)
		c->flags |= WIRE_INFO_CONN_CONNECTING;
	if (p->send_q_msgs)
		c->flags |= WIRE_INFO_CONN_SENDING;
	info_put(o);
}

static void info_conns(struct info_out *o)
{
	info_each_conn(o, info_conn);
}

static void info_msgs(struct info_out *o)
{
	struct wire_info_msg *m = &o->it.u.msg;
	unsigned opt = o->it.opt;
	enum rdsu_msg_queue q;

	/* Not the receive queues: messages already handed to a connection
	 * are the reader's; those still in librds are not listed. */
	if (opt == WIRE_INFO_SEND_MESSAGES || opt == WIRE_INFO6_SEND_MESSAGES)
		q = RDSU_MSGQ_SEND;
	else if (opt == WIRE_INFO_RETRANS_MESSAGES || opt == WIRE_INFO6_RETRANS_MESSAGES)
		q = RDSU_MSGQ_RETRANS;
	else
		return;
	for (struct ep *e = g_eps; e; e = e->next) {
		struct rdsu_msg_iter iter = { 0 };
		struct rdsu_msg_info mi;

		while (rdsu_ep_msg_next(rdsu_tcp_ep(e->t), &iter, &mi) == 1) {
			if (mi.queue != q || !fam_ok(o->it.family, &mi.faddr))
				continue;
			memset(m, 0, sizeof(*m));
			m->seq = mi.seq;
			m->len = mi.len;
			memcpy(m->laddr, mi.laddr.a, 16);
			memcpy(m->faddr, mi.faddr.a, 16);
			m->lport = mi.sport;
			m->fport = mi.dport;
			info_put(o);
		}
	}
}

static void info_socks(struct info_out *o)
{
	struct wire_info_sock *k = &o->it.u.sock;
	int family = o->it.family;

	for (struct dsock *s = g_socks; s; s = s->next) {
		if (s->bound && !fam_ok(family, &s->baddr))
			continue;
		memset(k, 0, sizeof(*k));
		k->sndbuf = s->sndbuf;
		k->rcvbuf = s->rcvbuf;
		if (s->bound) {
			memcpy(k->bound_addr, s->baddr.a, 16);
			k->bound_port = s->bport;
		}
		if (s->connected && fam_ok(family, &s->caddr)) {
			memcpy(k->connected_addr, s->caddr.a, 16);
			k->connected_port = s->cport;
		}
		k->inum = s->ino;
		info_put(o);
	}
}

/* One item for each of |ci|'s paths that is up on a socket. */
static void info_tcp_sock(struct info_out *o, const struct rdsu_conn_info *ci)
{
	struct wire_info_tcp_sock *t = &o->it.u.tcp_sock;

	for (int i = 0; i < WIRE_MAX_PATHS; i++) {
		const struct rdsu_path_info *p = &ci->path[i];

		if (!p->link || p->state != RDSU_PATH_UP)
			continue;
		memset(t, 0, sizeof(*t));
		memcpy(t->local_addr, ci->laddr.a, 16);
		memcpy(t->peer_addr, ci->faddr.a, 16);
		t->local_port = p->outgoing ? p->local_sport : RDSU_TCP_PORT;
		t->peer_port = p->outgoing ? RDSU_TCP_PORT : p->peer_sport;
		t->last_sent_nxt = (uint32_t)p->tx_bytes;
		t->last_expected_una = (uint32_t)p->tx_bytes;
		t->last_seen_una = (uint32_t)p->acked_bytes;
		info_put(o);
	}
}

static void info_tcp_socks(struct info_out *o)
{
	info_each_conn(o, info_tcp_sock);
}

/* rds_info_getsockopt over our state. Return: as getsockopt's value. */
static int do_info(unsigned opt, size_t buflen, uint8_t *buf, size_t cap, size_t *optlen)
{
	static void (*const list[])(struct info_out *o) = {
		[WIRE_INFO_KIND_COUNTER] = info_counters,
		[WIRE_INFO_KIND_CONN] = info_conns,
		[WIRE_INFO_KIND_MSG] = info_msgs,
		[WIRE_INFO_KIND_SOCK] = info_socks,
		[WIRE_INFO_KIND_TCP_SOCK] = info_tcp_socks,
	};
	struct info_out o = {
		.buf = buf,
		.size = wire_info_item_size(opt),
		.it = { .opt = opt, .kind = wire_info_opt_kind(opt),
			.family = wire_info_opt_family(opt) },
	};
	int r;

	/* this host has rds_tcp and no rds_rdma: nothing answers for IB */
	if (!o.size || o.it.kind >= sizeof(list) / sizeof(list[0]) || !list[o.it.kind])
		return -ENOPROTOOPT;
	o.cap = buflen < cap ? buflen : cap;
	list[o.it.kind](&o);
	r = wire_info_answer(o.count, o.size, buflen, optlen);
	return r;
}

static void do_getopt(struct dsock *s, const struct rdsd_req *q)
{
	size_t buflen = q->arg < 0 ? 0 : (size_t)q->arg;
	size_t optlen = buflen;
	int r, iv;

	if (q->level == RDSD_LEVEL_IOCTL) {
		reply(s, q->chan, q->seq, 0, 1, &s->tos, 1);
		return;
	}
	if (q->level == SOL_SOCKET) {
		iv = (int)(2 * (q->name == SO_SNDBUF ? s->sndbuf : s->rcvbuf));
		reply(s, q->chan, q->seq, 0, sizeof(iv), &iv, sizeof(iv));
		return;
	}
	switch (q->name) {
	case RDS_RECVERR:
	case SO_RDS_TRANSPORT:
		(void)rdsopt_get(&s->opt, s->us, q->name, &iv);
		if (buflen < sizeof(int)) {
			reply(s, q->chan, q->seq, -EINVAL, 0, NULL, 0);
			return;
		}
		reply(s, q->chan, q->seq, 0, sizeof(iv), &iv, sizeof(iv));
		return;
	default:
		if (q->name < WIRE_INFO_FIRST || q->name > WIRE_INFO_LAST) {
			reply(s, q->chan, q->seq, -ENOPROTOOPT, 0, NULL, 0);
			return;
		}
		r = do_info((unsigned)q->name, buflen, g_buf, g_bufcap, &optlen);
		if (r < 0 && r != -ENOSPC) {
			reply(s, q->chan, q->seq, r, 0, NULL, 0);
			return;
		}
		/* On ENOSPC the kernel copies nothing we need to match here
		 * beyond the length the caller learns. */
		reply(s, q->chan, q->seq, r, (uint32_t)optlen, g_buf,
		      r < 0 ? 0 : (optlen < g_bufcap ? optlen : g_bufcap));
		return;
	}
}

static void do_name(struct dsock *s, const struct rdsd_req *q)
{
	struct rdsd_rx rx = { 0 };

	if (q->arg == 0) {
		if (s->bound) {
			addr_to_rx(&s->baddr, s->bport, &rx);
		} else if (s->connected) {
			/* the connected address's family, the address zero */
			rx.family = rdsu_addr_is_v4(&s->caddr) ? AF_INET : AF_INET6;
			if (rx.family == AF_INET)
				memcpy(rx.addr, rdsu_addr_v4(0).a, 16);
		}
	} else {
		if (!s->connected) {
			reply(s, q->chan, q->seq, -ENOTCONN, 0, NULL, 0);
			return;
		}
		addr_to_rx(&s->caddr, s->cport, &rx);
	}
	reply(s, q->chan, q->seq, 0, 0, &rx, sizeof(rx));
}

/* ------------------------------------------------------------------------
 * Requests
 */

static void new_chan(struct dsock *s, uint32_t id, int fd)
{
	struct chan *c = calloc(1, sizeof(*c));

	if (!c) {
		close(fd);
		return;
	}
	c->o.kind = OBJ_CHAN;
	c->fd = fd;
	c->id = id;
	c->s = s;
	big_sndbuf(fd);
	if (ep_add(fd, c, EPOLLIN) < 0) {  /* only to see it close */
		close(fd);
		free(c);
		return;
	}
	c->next = s->chans;
	s->chans = c;
}

static void chan_gone(struct chan *c)
{
	struct dsock *s = c->s;

	for (struct chan **pp = &s->chans; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	/* sends it waits for are dropped; those it did not wait for are
	 * the socket's, sent in order */
	for (struct parked **pp = &s->parked; *pp; ) {
		struct parked *p = *pp;

		if (p->chan == c->id && !p->noreply)
			unpark(s, pp);
		else
			pp = &p->next;
	}
	close(c->fd);
	free(c);
}

/* Read and carry out |s|'s requests. Return: false when it closed. */
static bool sock_input(struct dsock *s)
{
	for (int budget = 0; budget < 64; budget++) {
		union {
			char buf[CMSG_SPACE(sizeof(int))];
			struct cmsghdr align;
		} cbuf;
		struct iovec iov = { g_buf, g_bufcap };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = cbuf.buf, .msg_controllen = sizeof(cbuf.buf) };
		struct rdsd_req q;
		ssize_t n = recvmsg(s->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		const uint8_t *pl;
		size_t plen;
		int fd = -1, r;

		if (n == 0)
			return false;
		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
			    c->cmsg_len >= CMSG_LEN(sizeof(int)))
				memcpy(&fd, CMSG_DATA(c), sizeof(int));
		if ((size_t)n < sizeof(q) || (mh.msg_flags & MSG_TRUNC)) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		memcpy(&q, g_buf, sizeof(q));
		pl = g_buf + sizeof(q);
		plen = (size_t)n - sizeof(q);
		switch (q.op) {
		case RDSD_OP_CHAN:
			if (fd >= 0)
				new_chan(s, q.chan, fd);
			fd = -1;
			break;
		case RDSD_OP_BIND:
			reply(s, q.chan, q.seq, do_bind(s, &q), 0, NULL, 0);
			break;
		case RDSD_OP_CONNECT:
			if (q.family == 0) {
				s->connected = false;
			} else {
				memcpy(s->caddr.a, q.addr, 16);
				s->cport = q.port;
				s->connected = true;
			}
			reply(s, q.chan, q.seq, 0, 0, NULL, 0);
			break;
		case RDSD_OP_SEND:
			do_send(s, &q, pl, plen);
			break;
		case RDSD_OP_SETOPT:
			r = do_setopt(s, &q, pl, plen);
			reply(s, q.chan, q.seq, r, 0, NULL, 0);
			break;
		case RDSD_OP_GETOPT:
			do_getopt(s, &q);
			break;
		case RDSD_OP_NAME:
			do_name(s, &q);
			break;
		case RDSD_OP_CANCEL:
			do_cancel(s, &q);
			break;
		default:
			reply(s, q.chan, q.seq, -EINVAL, 0, NULL, 0);
			break;
		}
		if (fd >= 0)
			close(fd);
	}
	return true;
}

/* ------------------------------------------------------------------------
 * Main loop
 */

static int listen_on(const char *name)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	size_t n = strlen(name);
	int fd;

	if (n + 1 > sizeof(sun.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(sun.sun_path + 1, name, n);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sun, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)) < 0 ||
	    listen(fd, 128) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: rdsd [-v] [--name NAME] [--listen-fd FD] [--linger SEC] [--any-user]\n"
		"  one RDS presence for the shimmed programs of this network namespace\n");
}

int main(int argc, char **argv)
{
	const char *name = getenv("RDSD_NAME");
	int linger = -1;            /* seconds without sockets before exiting; -1 never */
	int64_t idle_since = now_ms();
	bool had_sock = false;

	if (!name || !*name)
		name = RDSD_DEFAULT_NAME;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v")) {
			g_verbose = true;
		} else if (!strcmp(argv[i], "--name") && i + 1 < argc) {
			name = argv[++i];
		} else if (!strcmp(argv[i], "--listen-fd") && i + 1 < argc) {
			g_lfd = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--linger") && i + 1 < argc) {
			linger = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--any-user")) {
			g_any_user = true;
		} else if (!strcmp(argv[i], "--version")) {
			printf("rdsd " RDSTK_VERSION "\n");
			return 0;
		} else {
			usage();
			return 2;
		}
	}
	signal(SIGPIPE, SIG_IGN);
	g_bufcap = sizeof(struct rdsd_req) + RDSD_MAX_MSG + sizeof(struct rdsd_rx);
	g_buf = malloc(g_bufcap);
	if (!g_buf)
		return 1;
	if (g_lfd < 0) {
		g_lfd = listen_on(name);
		if (g_lfd < 0) {
			fprintf(stderr, "rdsd: listen on @%s: %s\n", name, strerror(errno));
			return 1;
		}
	} else {
		(void)fcntl(g_lfd, F_SETFL, O_NONBLOCK);
		(void)fcntl(g_lfd, F_SETFD, FD_CLOEXEC);
	}
	g_epfd = epoll_create1(EPOLL_CLOEXEC);
	if (g_epfd < 0 || ep_add(g_lfd, &g_listen, EPOLLIN) < 0) {
		perror("rdsd: epoll");
		return 1;
	}
	logf_("listening on @%s", name);
	for (;;) {
		struct epoll_event evs[64];
		bool parked = false;
		int n, timeout = -1;

		for (struct dsock *s = g_socks; s; s = s->next)
			parked |= s->parked != NULL;
		if (parked)
			timeout = 2;  /* acknowledgements and freed ports, looked for */
		if (linger >= 0 && g_nsocks == 0)
			timeout = timeout < 0 ? 200 : timeout;
		n = epoll_wait(g_epfd, evs, 64, timeout);
		if (n < 0 && errno != EINTR) {
			perror("rdsd: epoll_wait");
			return 1;
		}
		for (int i = 0; i < n; i++) {
			struct obj *o = evs[i].data.ptr;

			switch (o->kind) {
			case OBJ_LISTEN:
				for (int k = 0; k < 16; k++)
					accept_one();
				had_sock = true;
				break;
			case OBJ_EP:
				(void)rdsu_tcp_run(((struct ep *)o)->t, 0);
				break;
			case OBJ_CHAN:
				chan_gone((struct chan *)o);
				break;
			case OBJ_SOCK: {
				struct dsock *s = (struct dsock *)o;

				if (evs[i].events & EPOLLOUT) {
					s->push_blocked = false;
					ep_mod(s->fd, s, EPOLLIN);
				}
				if ((evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) && !sock_input(s)) {
					/* later events of this round may name it
					 * or one of its channels */
					for (int k = i + 1; k < n; k++) {
						bool gone = evs[k].data.ptr == s;

						for (struct chan *c = s->chans; c && !gone; c = c->next)
							gone = evs[k].data.ptr == c;
						if (gone)
							evs[k].data.ptr = &g_listen;
					}
					sock_free(s);
				}
				break;
			}
			}
		}
		for (struct ep *e = g_eps; e; e = e->next) {
			struct rdsu_event ev;

			if (parked)
				(void)rdsu_tcp_run(e->t, 0);
			while (rdsu_ep_next_event(rdsu_tcp_ep(e->t), &ev) == 1)
				;
		}
		for (struct dsock *s = g_socks; s; s = s->next) {
			if (s->parked)
				retry_parked(s);
			pump_local(s);
			if (pump_rx(s))
				(void)rdsu_tcp_flush(s->ep->t);
		}
		if (g_nsocks)
			idle_since = now_ms();
		else if (linger >= 0 && had_sock && now_ms() - idle_since >= linger * 1000LL)
			break;
	}
	logf_("no sockets for %d s: exiting", linger);
	return 0;
}
