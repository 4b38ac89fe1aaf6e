// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * preload_bind.c - librds-preload.so: addresses, bind and connect
 * (net/rds/bind.c, rds_connect), and getsockname/getpeername
 * (rds_getname). The map of the shim is shim/README.md.
 */
#include "preload.h"

/* An RDS destination or bind address from a sockaddr, as rds_bind and
 * rds_sendmsg read it. Return: 0; -EINVAL. */
int addr_in(const struct sockaddr *sa, socklen_t len, struct rdsu_addr *a, uint16_t *port)
{
	if (!sa || len < (socklen_t)sizeof(sa_family_t))
		return -EINVAL;
	if (sa->sa_family == AF_INET) {
		struct sockaddr_in sin;
		uint32_t h;

		if (len < (socklen_t)sizeof(sin))
			return -EINVAL;
		memcpy(&sin, sa, sizeof(sin));
		h = ntohl(sin.sin_addr.s_addr);
		if (h == INADDR_ANY || h == INADDR_BROADCAST || IN_MULTICAST(h))
			return -EINVAL;
		*a = rdsu_addr_v4(h);
		*port = ntohs(sin.sin_port);
		return 0;
	}
	if (sa->sa_family == AF_INET6) {
		struct sockaddr_in6 sin6;

		if (len < (socklen_t)sizeof(sin6))
			return -EINVAL;
		memcpy(&sin6, sa, sizeof(sin6));
		static const uint8_t zero[16];

		memcpy(a->a, &sin6.sin6_addr, 16);
		if (!memcmp(a->a, zero, 16) || a->a[0] == 0xff)
			return -EINVAL;   /* unspecified, multicast */
		if (a->a[0] == 0xfe && (a->a[1] & 0xc0) == 0x80 && !sin6.sin6_scope_id)
			return -EINVAL;   /* link-local needs its scope */
		*port = ntohs(sin6.sin6_port);
		return 0;
	}
	return -EINVAL;
}

/* Copy |ss| (length |klen|) out as the kernel's move_addr_to_user does:
 * at most the caller's length, and the full length reported. */
void addr_out(const struct sockaddr_storage *ss, socklen_t klen, void *uaddr,
	      socklen_t *ulen)
{
	if (!uaddr || !ulen)
		return;
	memcpy(uaddr, ss, *ulen < klen ? *ulen : klen);
	*ulen = klen;
}

void dm_put_addr(struct rdsd_req *q, const struct rdsu_addr *a, uint16_t port)
{
	q->family = rdsu_addr_is_v4(a) ? AF_INET : AF_INET6;
	memcpy(q->addr, a->a, 16);
	q->port = port;
}

static int dm_bind(struct rdsp_sock *s, int fd, const struct rdsu_addr *a, uint16_t port)
{
	struct rdsd_req q = { .op = RDSD_OP_BIND };

	dm_put_addr(&q, a, port);
	return dm_call(s, fd, &q, NULL, 0, NULL, NULL, NULL);
}

static int dm_connect_to(struct rdsp_sock *s, int fd, const struct rdsu_addr *a, uint16_t port)
{
	struct rdsd_req q = { .op = RDSD_OP_CONNECT };

	dm_put_addr(&q, a, port);
	return dm_call(s, fd, &q, NULL, 0, NULL, NULL, NULL);
}

static int dm_name(struct rdsp_sock *s, int fd, bool peer, struct sockaddr_storage *ss,
		   socklen_t *klen)
{
	struct rdsd_req q = { .op = RDSD_OP_NAME, .arg = peer };
	struct rdsd_rx rx = { 0 };
	size_t len = sizeof(rx);
	struct rdsu_addr a;
	int e = dm_call(s, fd, &q, NULL, 0, &rx, &len, NULL);

	if (e < 0)
		return e;
	memset(ss, 0, sizeof(*ss));
	memcpy(a.a, rx.addr, 16);
	if (rx.family == 0) {
		ss->ss_family = AF_UNSPEC;
		*klen = sizeof(struct sockaddr_in);
	} else {
		*klen = rdsu_sockaddr(&a, rx.port, ss);
	}
	return 0;
}

/*
 * rds_sendmsg answers ENOTCONN for an unbound socket, or one without a
 * destination (no address given and none connected), before it looks at
 * the message's size, cmsgs or MSG_ZEROCOPY; rds_cancel_sent_to, before
 * its value. An rdsd socket's binding is rdsd's (another process may have
 * bound it), so when the client would refuse such a call with |e| it asks
 * rdsd first: ENOTCONN, or |e| (|named|: the call gave a destination).
 */
static bool dm_name_any(struct rdsp_sock *s, int fd, bool peer)
{
	struct sockaddr_storage ss;
	socklen_t klen;

	if (dm_name(s, fd, peer, &ss, &klen) < 0)
		return true;
	/* a connected, unbound socket's name is the family's any address */
	if (ss.ss_family == AF_INET)
		return ((struct sockaddr_in *)&ss)->sin_addr.s_addr == htonl(INADDR_ANY);
	if (ss.ss_family == AF_INET6) {
		static const uint8_t zero[16];

		return !memcmp(&((struct sockaddr_in6 *)&ss)->sin6_addr, zero, sizeof(zero));
	}
	return true;
}

int dm_notconn_or(struct rdsp_sock *s, int fd, bool named, int e)
{
	if (dm_name_any(s, fd, false) || (!named && dm_name_any(s, fd, true)))
		return -ENOTCONN;
	return e;
}

RDSP_EXPORT int bind(int fd, const struct sockaddr *sa, socklen_t len)
{
	struct rdsp_sock *s = get_locked(fd);
	struct rdsu_addr addr;
	uint16_t port;
	int e;

	if (!s)
		return REAL(bind)(fd, sa, len);
	e = addr_in(sa, len, &addr, &port);
	if (e == 0 && s->dm) {
		dm_enter(s);
		e = dm_bind(s, fd, &addr, port);
		/* a process per process holds the address: it moves to rdsd
		 * (preload_share.c), and rdsd can take it */
		if (e == -EADDRINUSE && share_ask(&addr) == 0)
			e = dm_bind(s, fd, &addr, port);
		dm_leave(s);
		put_locked(s);
		return e < 0 ? set_errno(e) : 0;
	}
	if (e == 0 && s->us)
		e = -EINVAL;                 /* no re-bind */
	if (e == 0 && g_child)
		e = -EBADF;
	if (e == 0)
		e = endpoint_locked(&addr);
	if (e == -EADDRINUSE && !g_io) {
		/* another process holds the address: it and this one move to
		 * rdsd when they may, and the bind is made there */
		put_locked(s);
		if (share_addr_taken(&addr) == 0 && fd_peek(fd) && fd_peek(fd)->dm)
			return bind(fd, sa, len);
		tell_addr_in_use(&addr);
		return set_errno(-EADDRINUSE);
	}
	if (e == -EADDRNOTAVAIL && g_io && !g_child) {
		/* the endpoint is on another address: rdsd serves them all */
		put_locked(s);
		if (share_second_addr(&addr) == 0 && fd_peek(fd) && fd_peek(fd)->dm)
			return bind(fd, sa, len);
		return set_errno(-EADDRNOTAVAIL);
	}
	if (e == 0)
		e = rdsep_bind_check(s->opt.transport, g_rdma);
	if (e == 0) {
		struct rdsu_sock *us;
		rdsu_ns now = rdsu_clock();

		e = rdsu_sock_new(rdsu_io_ep(g_io), &us);
		if (e == 0) {
			if (s->sndbuf_set)
				us_buf(us, s->b, true, now);
			if (s->rcvbuf_set)
				us_buf(us, s->b, false, now);
			(void)rdsu_sock_set_cong_monitor(us, s->opt.cong_monitor);
			(void)rdsu_sock_set_recverr(us, s->opt.recverr);
			rdsu_sock_set_ctx(us, s);
			if (s->opt.transport != RDSU_TRANS_NONE)
				e = rdsu_sock_set_transport(us, s->opt.transport);
			if (e == 0)
				e = rdsu_sock_bind(us, &addr, port);
			if (e < 0)
				rdsu_sock_free(us, now);
			else
				s->us = us;
		}
	}
	if (e == 0)
		sync_sock(s);
	put_locked(s);
	return e < 0 ? set_errno(e) : 0;
}

RDSP_EXPORT int connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	struct rdsp_sock *s = get_locked(fd);
	struct rdsu_addr addr;
	uint16_t port;
	int e = 0;

	if (!s)
		return REAL(connect)(fd, sa, len);
	/* rds_connect: only a default destination is recorded. */
	if (!sa || len < (socklen_t)sizeof(sa_family_t))
		e = -EINVAL;
	else if (sa->sa_family != AF_INET && sa->sa_family != AF_INET6)
		e = -EAFNOSUPPORT;
	else if (sa->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in) &&
		 ((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr == INADDR_ANY)
		e = -EDESTADDRREQ;
	else
		e = addr_in(sa, len, &addr, &port);
	if (e == 0) {
		s->connected = true;
		s->conn_addr = addr;
		s->conn_port = port;
		if (s->dm) {
			dm_enter(s);
			s->ok_valid = false;
			e = dm_connect_to(s, fd, &addr, port);
			dm_leave(s);
		}
	}
	put_locked(s);
	return e < 0 ? set_errno(e) : 0;
}

/* rds_getname: the bound (or connected) address; an unbound, unconnected
 * socket answers AF_UNSPEC with an IPv4-sized zero address. */
static int name_of(struct rdsp_sock *s, bool peer, struct sockaddr_storage *ss, socklen_t *klen)
{
	struct rdsu_addr a;
	uint16_t port = 0;

	memset(ss, 0, sizeof(*ss));
	if (peer) {
		if (!s->connected)
			return -ENOTCONN;
		*klen = rdsu_sockaddr(&s->conn_addr, s->conn_port, ss);
		return 0;
	}
	if (s->us && rdsu_sock_get_name(s->us, &a, &port) == 0) {
		*klen = rdsu_sockaddr(&a, port, ss);
		return 0;
	}
	if (s->connected) {
		/* the connected address's family, the address itself zero */
		if (rdsu_addr_is_v4(&s->conn_addr)) {
			ss->ss_family = AF_INET;
			*klen = sizeof(struct sockaddr_in);
		} else {
			ss->ss_family = AF_INET6;
			*klen = sizeof(struct sockaddr_in6);
		}
		return 0;
	}
	ss->ss_family = AF_UNSPEC;
	*klen = sizeof(struct sockaddr_in);
	return 0;
}

static int getname(int fd, struct sockaddr *sa, socklen_t *len, bool peer)
{
	struct rdsp_sock *s = get_locked(fd);
	struct sockaddr_storage ss;
	socklen_t klen = 0;
	int e;

	if (!s)
		return peer ? REAL(getpeername)(fd, sa, len) : REAL(getsockname)(fd, sa, len);
	if (s->dm) {
		dm_enter(s);
		e = dm_name(s, fd, peer, &ss, &klen);
		dm_leave(s);
	} else {
		e = name_of(s, peer, &ss, &klen);
	}
	put_locked(s);
	if (e < 0)
		return set_errno(e);
	if (!len)
		return set_errno(-EFAULT);
	addr_out(&ss, klen, sa, len);
	return 0;
}

RDSP_EXPORT int getsockname(int fd, struct sockaddr *sa, socklen_t *len)
{
	return getname(fd, sa, len, false);
}

RDSP_EXPORT int getpeername(int fd, struct sockaddr *sa, socklen_t *len)
{
	return getname(fd, sa, len, true);
}
