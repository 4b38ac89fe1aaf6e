// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rdsd_send.c - sending and delivering (net/rds/send.c, net/rds/loop.c,
 * net/rds/recv.c): a send tried, parked while it waits for room or a
 * port, retried, cancelled; local delivery between our own addresses;
 * received messages moved into the clients' connections. The map of the
 * shim is shim/README.md.
 */
#include "rdsd.h"

bool g_send_batch;

void addr_to_rx(const struct rdsu_addr *a, uint16_t port, struct rdsd_rx *rx)
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
void pump_local(struct dsock *s)
{
	while (s->lq && !s->push_blocked) {
		struct local_rx *m = s->lq;

		if (push(s, &m->rx, m->data, m->len) < 0)
			break;
		s->lq = m->next;
		if (!s->lq)
			s->lq_tail = &s->lq;
		s->lq_bytes -= m->len;
		free(m);
	}
}

/* The loopback transport: a message from |s| to one of our own addresses,
 * queued behind the receiver's earlier local deliveries when its
 * connection is full. Return: the length; -ENOBUFS while that queue
 * holds the receiver's RCVBUF or more (its port is congested); -ENOMEM. */
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
		addr_to_rx(&s->id.baddr, s->id.bport, &rx);
	}
	rx.queued = (uint64_t)rdsu_clock();   /* the loopback transport's: no header times */
	if (!to->lq && push(to, &rx, data, len) == 0)
		return sent;
	if (to->lq && to->lq_bytes >= to->id.rcvbuf)
		return -ENOBUFS;
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
	to->lq_bytes += len;
	return sent;
}

/* Move |s|'s received messages into its connection while there is room. */
bool pump_rx(struct dsock *s)
{
	bool read = false;

	while (s->us && !s->push_blocked) {
		struct rdsd_rx *rx = (struct rdsd_rx *)g_buf;
		struct iovec iov = { g_buf + sizeof(*rx), RDSD_MAX_MSG };
		struct rdsu_rxinfo info, drop;
		struct rdsu_rx_times t = { 0, 0, 0 };
		size_t len = 0;
		ssize_t n;

		(void)rdsu_sock_rx_times(s->us, &t);
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
			rx->hdr = (uint64_t)t.hdr;
			rx->start = (uint64_t)t.start;
			rx->queued = (uint64_t)t.queued;
		}
		if (push(s, rx, g_buf + sizeof(*rx), len) < 0)
			break;
		(void)rdsu_sock_read(s->us, NULL, 0, 0, &drop, rdsu_clock());
		read = true;
	}
	return read;
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
		(void)rdsu_io_run(s->ep->io, 0);
		r = rdsu_sock_submit(s->us, dst, dport, &iov, 1, rdsu_clock());
	}
	if (r >= 0 && !g_send_batch)
		(void)rdsu_io_flush(s->ep->io);
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
		return s->id.sndbuf > s->parked_bytes ? (uint32_t)(s->id.sndbuf - s->parked_bytes) : 0;
	while (rdsu_ep_sock_next(rdsu_io_ep(s->ep->io), &pos, &si) == 1)
		if (si.sock == s->us) {
			held = si.snd_bytes;
			break;
		}
	held += s->parked_bytes;
	return held < s->id.sndbuf ? (uint32_t)(s->id.sndbuf - held) : 0;
}

void unpark(struct dsock *s, struct parked **pp)
{
	struct parked *p = *pp;

	*pp = p->next;
	if (s->parked_tail == &p->next)
		s->parked_tail = pp;
	if (p->noreply)
		s->parked_bytes -= p->len;
	s->parked_all -= p->len;
	parked_free(p);
}

void do_send(struct dsock *s, const struct rdsd_req *q, const uint8_t *data, size_t len)
{
	bool noreply = q->arg & RDSD_SEND_NOREPLY, block = q->arg & RDSD_SEND_BLOCK;
	struct rdsu_addr dst;
	uint16_t dport;
	struct parked *p;
	int r;

	if (q->family) {
		memcpy(dst.a, q->addr, 16);
		dport = q->port;
	} else if (s->id.connected) {
		dst = s->id.caddr;
		dport = s->id.cport;
	} else {
		r = -ENOTCONN;
		goto answer;
	}
	if (!s->us) {
		r = -ENOTCONN;
		goto answer;
	}
	if (len > s->id.sndbuf) {
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
	/* What waits here is bounded: the shim's sends not waited for stay
	 * within SNDBUF (the credit), and a waited-for one adds at most
	 * SNDBUF; a client that ignores the credit meets ENOBUFS. */
	if (s->parked_all + len > 2 * (size_t)s->id.sndbuf) {
		r = -ENOBUFS;
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
	s->parked_all += len;
	*s->parked_tail = p;
	s->parked_tail = &p->next;
	return;
answer:
	if (noreply) {
		if (r < 0)
			logf_("socket %d: a send not waited for failed: %s", s->fd, strerror(-r));
		return;
	}
	reply(s, q->chan, q->seq, r, r >= 0 ? credit_of(s, &dst) : 0, NULL, 0);
}

/* Retry |s|'s waiting sends, in order, as far as they go. */
void retry_parked(struct dsock *s)
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

void do_cancel(struct dsock *s, const struct rdsd_req *q)
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
