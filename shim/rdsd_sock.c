// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rdsd_sock.c - the sockets' state: endpoints per local address, bind
 * (net/rds/bind.c), names, and options (rds_setsockopt, rds_getsockopt).
 * The map of the shim is shim/README.md.
 */
#include "rdsd.h"

struct ep *ep_of(const struct rdsu_addr *a)
{
	for (struct ep *e = g_eps; e; e = e->next)
		if (!rdsu_addr_cmp(&e->addr, a))
			return e;
	return NULL;
}

/* Room for one more endpoint: below RDSD_MAX_EPS, or the oldest one no
 * socket is bound to freed (its peers' connections with it). Return:
 * false when every endpoint has a socket. */
static bool ep_room(void)
{
	struct ep **pp, **idle = NULL;
	unsigned n = 0;
	struct ep *e;

	for (pp = &g_eps; *pp; pp = &(*pp)->next) {
		n++;
		if (!(*pp)->nsocks)
			idle = pp;     /* the list is newest first: the last is oldest */
	}
	if (n < RDSD_MAX_EPS)
		return true;
	if (!idle)
		return false;
	e = *idle;
	*idle = e->next;
	forget_events(e);
	rdsu_io_free(e->io);   /* closing its descriptor takes it out of epoll */
	free(e);
	return true;
}

static int ep_get(const struct rdsu_addr *a, struct ep **out)
{
	struct ep *e = ep_of(a);
	int r;

	if (e) {
		*out = e;
		return 0;
	}
	if (!ep_room()) {
		logf_("%u addresses with sockets bound: no endpoint for another", RDSD_MAX_EPS);
		return -ENOBUFS;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->o.kind = OBJ_EP;
	r = rdsep_new(&e->io, a, &e->rdma);
	if (r < 0) {
		char s[64];

		logf_("endpoint on %s: %s", rdsu_addr_str(a, s, sizeof(s)), rdsep_strerror(a, r));
		free(e);
		return r;
	}
	e->addr = *a;
	if (ep_add(rdsu_io_fd(e->io), e, EPOLLIN) < 0) {
		r = -errno;
		rdsu_io_free(e->io);
		free(e);
		return r;
	}
	e->next = g_eps;
	g_eps = e;
	*out = e;
	return 0;
}

struct dsock *bound_sock(const struct rdsu_addr *a, uint16_t port)
{
	for (struct dsock *s = g_socks; s; s = s->next)
		if (s->id.bound && s->id.bport == port && !rdsu_addr_cmp(&s->id.baddr, a))
			return s;
	return NULL;
}

int do_bind(struct dsock *s, const struct rdsd_req *q)
{
	struct rdsu_addr a;
	struct ep *e = NULL;
	int r;

	if (s->id.bound)
		return -EINVAL;
	memcpy(a.a, q->addr, 16);
	r = ep_get(&a, &e);
	if (r == 0)
		r = rdsep_bind_check(s->opt.transport, e->rdma);
	if (r < 0)
		return r;
	if (!s->us) {
		r = rdsu_sock_new(rdsu_io_ep(e->io), &s->us);
		if (r < 0)
			return r;
		rdsu_sock_set_ctx(s->us, s);
		(void)rdsu_sock_set_sndbuf(s->us, s->id.sndbuf, rdsu_clock());
		(void)rdsu_sock_set_rcvbuf(s->us, s->id.rcvbuf, rdsu_clock());
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
	(void)rdsu_sock_get_name(s->us, &s->id.baddr, &s->id.bport);
	s->id.bound = true;
	s->ep->nsocks++;
	return 0;
}

static int get_int(const uint8_t *v, size_t len, int *out)
{
	if (len < sizeof(int))
		return -EINVAL;
	memcpy(out, v, sizeof(int));
	return 0;
}

int do_setopt(struct dsock *s, const struct rdsd_req *q, const uint8_t *v, size_t len)
{
	uint32_t max;
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
		/* what a client asks for is kept within rdsd's bound: root's
		 * at RDSD_MAX_BUF, another user's where the kernel keeps it
		 * without CAP_NET_ADMIN (sock_setsockopt: [wr]mem_max) */
		max = s->user->uid == 0 ? RDSD_MAX_BUF
		      : q->name == SO_SNDBUF ? g_wmem_max : g_rmem_max;
		if ((uint32_t)iv / 2 > max)
			iv = 2 * (int)max;
		if (q->name == SO_SNDBUF)
			s->id.sndbuf = (uint32_t)iv / 2;
		else
			s->id.rcvbuf = (uint32_t)iv / 2;
		if (s->us) {
			if (q->name == SO_SNDBUF)
				(void)rdsu_sock_set_sndbuf(s->us, s->id.sndbuf, rdsu_clock());
			else
				(void)rdsu_sock_set_rcvbuf(s->us, s->id.rcvbuf, rdsu_clock());
			(void)rdsu_io_flush(s->ep->io);
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
		(void)rdsu_io_flush(s->ep->io);
		return r < 0 ? r : 0;
	}
	default:
		return rdsopt_set(&s->opt, s->us, q->name, v, len);
	}
}

void do_getopt(struct dsock *s, const struct rdsd_req *q)
{
	size_t buflen = q->arg < 0 ? 0 : (size_t)q->arg;
	size_t optlen = buflen;
	int r, iv;

	if (q->level == RDSD_LEVEL_IOCTL) {
		reply(s, q->chan, q->seq, 0, 1, &s->tos, 1);
		return;
	}
	if (q->level == SOL_SOCKET) {
		iv = (int)(2 * (q->name == SO_SNDBUF ? s->id.sndbuf : s->id.rcvbuf));
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

void do_name(struct dsock *s, const struct rdsd_req *q)
{
	struct rdsd_rx rx = { 0 };

	if (q->arg == 0) {
		if (s->id.bound) {
			addr_to_rx(&s->id.baddr, s->id.bport, &rx);
		} else if (s->id.connected) {
			/* the connected address's family, the address zero */
			rx.family = rdsu_addr_is_v4(&s->id.caddr) ? AF_INET : AF_INET6;
			if (rx.family == AF_INET)
				memcpy(rx.addr, rdsu_addr_v4(0).a, 16);
		}
	} else {
		if (!s->id.connected) {
			reply(s, q->chan, q->seq, -ENOTCONN, 0, NULL, 0);
			return;
		}
		addr_to_rx(&s->id.caddr, s->id.cport, &rx);
	}
	reply(s, q->chan, q->seq, 0, 0, &rx, sizeof(rx));
}
