// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * preload_sockopt.c - librds-preload.so: options (rds_setsockopt,
 * rds_getsockopt) and the TOS ioctls (rds_ioctl), through librds or rdsd.
 * The map of the shim is shim/README.md.
 */
#include "preload.h"
#include "rdsinfo.h"

#include <sys/mman.h>

#include <wire/wire.h>

/* RDS_CANCEL_SENT_TO's value: 16 <= len < 28 is IPv4, as
 * rds_cancel_sent_to reads it. Return: 0; -EINVAL. */
static int cancel_addr(const void *v, socklen_t len, struct rdsu_addr *a, uint16_t *port)
{
	struct sockaddr_storage ss = { 0 };

	if (!v || len < (socklen_t)sizeof(struct sockaddr_in))
		return -EINVAL;
	if (len < (socklen_t)sizeof(struct sockaddr_in6)) {
		memcpy(&ss, v, sizeof(struct sockaddr_in));
		ss.ss_family = AF_INET;
	} else {
		memcpy(&ss, v, sizeof(struct sockaddr_in6));
		ss.ss_family = AF_INET6;
	}
	return rdsu_sockaddr_get(&ss, a, port) < 0 ? -EINVAL : 0;
}

static int dm_setopt(struct rdsp_sock *s, int fd, int level, int name, const void *v,
		     socklen_t len)
{
	struct rdsd_req q = { .op = RDSD_OP_SETOPT, .level = level, .name = name };
	struct iovec pl = { (void *)v, v ? len : 0 };

	if (level == SOL_RDS && name == RDS_CANCEL_SENT_TO) {
		struct rdsu_addr a;
		uint16_t port;

		/* rds_cancel_sent_to: ENOTCONN unbound, before the value */
		if (cancel_addr(v, len, &a, &port))
			return dm_notconn_or(s, fd, true, -EINVAL);
		dm_put_addr(&q, &a, port);
		pl.iov_len = 0;
	}
	if (level == SOL_RDS && (name == RDS_GET_MR || name == RDS_GET_MR_FOR_DEST)) {
		if (!v || len != (socklen_t)(name == RDS_GET_MR ? sizeof(struct rds_get_mr_args)
					     : sizeof(struct rds_get_mr_for_dest_args)))
			return -EINVAL;
		if (name == RDS_GET_MR_FOR_DEST) {
			sa_family_t f = ((const struct rds_get_mr_for_dest_args *)v)->dest_addr.ss_family;

			if (f != AF_INET && f != AF_INET6)
				return -EAFNOSUPPORT;
		}
		/* rdsd cannot reach this process's memory (docs/shim.md,
		 * "Known differences with rdsd"): bound, the answer is the
		 * one RDS/TCP gives; unbound (connected or not), ENOTCONN
		 * (__rds_rdma_map) */
		return dm_notconn_or(s, fd, true, -EOPNOTSUPP);
	}
	if (level == SOL_RDS && name == RDS_FREE_MR)
		return -EINVAL;
	return dm_call(s, fd, &q, &pl, 1, NULL, NULL, NULL);
}

static int dm_getopt(struct rdsp_sock *s, int fd, int level, int name, void *v, socklen_t *len)
{
	struct rdsd_req q = { .op = RDSD_OP_GETOPT, .level = level, .name = name };
	uint32_t optlen = 0;
	size_t got;
	int e;

	if (!len)
		return -EFAULT;
	q.arg = *len > INT_MAX ? INT_MAX : (int32_t)*len;
	got = v ? (size_t)*len : 0;
	e = dm_call(s, fd, &q, NULL, 0, v, &got, &optlen);
	if (e < 0 && e != -ENOSPC)
		return e;
	*len = (socklen_t)optlen;
	return e;
}

/* An rdsd socket's SO_RDS_TRANSPORT (RDSU_TRANS_*, -1 unbound and none
 * set), or -errno. */
int dm_transport(struct rdsp_sock *s, int fd)
{
	int v = -1;
	socklen_t l = sizeof(v);
	int e = dm_getopt(s, fd, SOL_RDS, SO_RDS_TRANSPORT, &v, &l);

	return e < 0 ? e : v;
}

/* SO_SNDBUF or SO_SNDBUFFORCE: 1; SO_RCVBUF or SO_RCVBUFFORCE: 0; -1 for
 * any other option. */
static int buf_opt(int name)
{
	if (name == SO_SNDBUF || name == SO_SNDBUFFORCE)
		return 1;
	if (name == SO_RCVBUF || name == SO_RCVBUFFORCE)
		return 0;
	return -1;
}

/* The send (|snd|) or receive buffer size the kernel keeps for our real
 * socket |fd|, doubled as it reports it. Return: 0 and *val; -errno, *val 0. */
static int kept_buf(int fd, bool snd, int *val)
{
	socklen_t l = sizeof(*val);

	*val = 0;
	if (REAL(getsockopt)(fd, SOL_SOCKET, snd ? SO_SNDBUF : SO_RCVBUF, val, &l) < 0)
		return -errno;
	return 0;
}

/* Give |us| the buffer size kept for the shim's end |fd|; RDS counts half. */
void us_buf(struct rdsu_sock *us, int fd, bool snd, rdsu_ns now)
{
	int val;

	(void)kept_buf(fd, snd, &val);
	if (val / 2 <= 0)
		return;
	if (snd)
		(void)rdsu_sock_set_sndbuf(us, (uint32_t)val / 2, now);
	else
		(void)rdsu_sock_set_rcvbuf(us, (uint32_t)val / 2, now);
}

/* SO_TYPE, SO_DOMAIN and SO_PROTOCOL of an AF_RDS socket. Return: true
 * and *out set for one of them. */
static bool sock_identity(int name, int *out)
{
	switch (name) {
	case SO_TYPE:
		*out = SOCK_SEQPACKET;
		return true;
	case SO_DOMAIN:
		*out = AF_RDS;
		return true;
	case SO_PROTOCOL:
		*out = 0;
		return true;
	default:
		return false;
	}
}

/* RDS_GET_MR and RDS_GET_MR_FOR_DEST (net/rds/rdma.c rds_get_mr,
 * rds_get_mr_for_dest, __rds_rdma_map): the region is the application's
 * own memory, registered in place by librds; the cookie is written where
 * cookie_addr says, as put_user would (a bad address: -EFAULT, nothing
 * left registered). */
static int get_mr(struct rdsp_sock *s, int name, const void *v, socklen_t len)
{
	struct rds_get_mr_args a;
	uint64_t cookie = 0;
	int e;

	if (!v || len != (socklen_t)(name == RDS_GET_MR ? sizeof(struct rds_get_mr_args)
				     : sizeof(struct rds_get_mr_for_dest_args)))
		return -EINVAL;
	if (name == RDS_GET_MR) {
		memcpy(&a, v, sizeof(a));
	} else {
		struct rds_get_mr_for_dest_args d;

		memcpy(&d, v, sizeof(d));
		if (d.dest_addr.ss_family != AF_INET && d.dest_addr.ss_family != AF_INET6)
			return -EAFNOSUPPORT;
		a = (struct rds_get_mr_args){ .vec = d.vec, .cookie_addr = d.cookie_addr,
					      .flags = d.flags };
	}
	if (!s->us)
		return -ENOTCONN;
	e = rdsu_sock_get_mr(s->us, (void *)(uintptr_t)a.vec.addr, a.vec.bytes,
			     (unsigned)a.flags, &cookie);
	if (e < 0)
		return e;
	if (a.cookie_addr) {
		struct iovec l = { &cookie, sizeof(cookie) };
		struct iovec r = { (void *)(uintptr_t)a.cookie_addr, sizeof(cookie) };

		if (process_vm_writev(getpid(), &l, 1, &r, 1, 0) != (ssize_t)sizeof(cookie)) {
			(void)rdsu_sock_free_mr(s->us, cookie, 0);
			return -EFAULT;
		}
	}
	return 0;
}

/* The options an rdsd socket keeps in the client, which stamps and
 * traces what rdsd hands it and keeps its own sends' zero-copy notices:
 * SO_TIMESTAMP* at either level, SO_RDS_MSG_RXPATH_LATENCY, SO_ZEROCOPY. */
static bool client_opt(int level, int name)
{
	switch (name) {
	case SO_ZEROCOPY:
		return level == SOL_SOCKET;
	case SO_TIMESTAMP_OLD:
	case SO_TIMESTAMP_NEW:
		return level == SOL_RDS || level == SOL_SOCKET;
	case SO_TIMESTAMPNS_OLD:
	case SO_TIMESTAMPNS_NEW:
		return level == SOL_SOCKET;
	case SO_RDS_MSG_RXPATH_LATENCY:
		return level == SOL_RDS;
	default:
		return false;
	}
}

static int set_rds_opt(struct rdsp_sock *s, int name, const void *v, socklen_t len)
{
	int e;

	switch (name) {
	case RDS_CANCEL_SENT_TO: {
		struct rdsu_addr a;
		uint16_t port;

		if (!s->us)
			return -ENOTCONN;
		if (cancel_addr(v, len, &a, &port))
			return -EINVAL;
		e = rdsu_sock_cancel_sent_to(s->us, &a, port, rdsu_clock());
		flush_locked();
		return e < 0 ? e : 0;
	}
	case RDS_CONG_MONITOR:
		e = rdsopt_set(&s->opt, s->us, name, v, len);
		if (e == 0)
			sync_sock(s);
		return e;
	case RDS_GET_MR:
	case RDS_GET_MR_FOR_DEST:
		return get_mr(s, name, v, len);
	case RDS_FREE_MR: {
		struct rds_free_mr_args fa;

		/* rds_free_mr: cookie 0 flushes unused regions on a
		 * transport that has them (IB), else -EINVAL */
		if (!v || len != (socklen_t)sizeof(fa))
			return -EINVAL;
		memcpy(&fa, v, sizeof(fa));
		if (!s->us)
			return -EINVAL;
		if (fa.cookie == 0)
			return rdsu_sock_get_transport(s->us) == RDSU_TRANS_IB ? 0 : -EINVAL;
		return rdsu_sock_free_mr(s->us, fa.cookie, (unsigned)fa.flags);
	}
	default:
		return rdsopt_set(&s->opt, s->us, name, v, len);
	}
}

RDSP_EXPORT int setsockopt(int fd, int level, int name, const void *v, socklen_t len)
{
	struct rdsp_sock *s = get_locked(fd);
	int buf = buf_opt(name);
	int e = 0;

	if (!s)
		return REAL(setsockopt)(fd, level, name, v, len);
	if (s->dm) {
		dm_enter(s);
		if (client_opt(level, name)) {
			/* kept here, read by dm_recv from rdsd's times (K7.10) */
			e = level == SOL_RDS ? rdsopt_set(&s->opt, NULL, name, v, len)
					     : rdsopt_set_socket(&s->opt, name, v, len);
		} else if (level == SOL_RDS) {
			e = dm_setopt(s, fd, level, name, v, len);
			/* the one-shot of poll is the client's (K7.7) */
			if (e == 0 && name == RDS_CONG_MONITOR)
				(void)rdsopt_set(&s->opt, NULL, name, v, len);
		} else if (level == SOL_SOCKET && buf >= 0) {
			/* The kernel's socket layer on a real socket of ours (the
			 * reply channel) gives the value it keeps; rdsd takes it. */
			int val;

			s->ok_valid = false;
			e = dm_chan(s, fd);
			if (e == 0)
				e = REAL(setsockopt)(s->chan, level, name, v, len) < 0 ? -errno : 0;
			if (e == 0 && kept_buf(s->chan, buf, &val) == 0)
				e = dm_setopt(s, fd, SOL_SOCKET, buf ? SO_SNDBUF : SO_RCVBUF,
					      &val, sizeof(val));
		} else if (level == SOL_SOCKET) {
			e = REAL(setsockopt)(fd, level, name, v, len) < 0 ? -errno : 0;
		} else {
			e = -ENOPROTOOPT;
		}
		dm_leave(s);
		put_locked(s);
		return e < 0 ? set_errno(e) : 0;
	}
	if (level == SOL_RDS) {
		e = set_rds_opt(s, name, v, len);
	} else if (level == SOL_SOCKET && (e = rdsopt_set_socket(&s->opt, name, v, len)) <= 0) {
		/* the flags rds_sendmsg and rds_recvmsg read (K7.9, K7.10) */
		sync_sock(s);
	} else if (level == SOL_SOCKET) {
		/* Generic options live on the shim's end, which the kernel's
		 * socket layer checks and doubles as for any socket. */
		e = REAL(setsockopt)(s->b, level, name, v, len) < 0 ? -errno : 0;
		if (e == 0 && buf == 1)
			s->sndbuf_set = true;
		if (e == 0 && buf == 0)
			s->rcvbuf_set = true;
		if (e == 0 && s->us && buf >= 0) {
			us_buf(s->us, s->b, buf, rdsu_clock());
			flush_locked();
		}
	} else {
		e = -ENOPROTOOPT;
	}
	put_locked(s);
	return e < 0 ? set_errno(e) : 0;
}

/* ---- RDS_INFO_* per process: rdsinfo.c over this process's state ---- */

static const struct rdsu_ep *info_ep(void *ctx, size_t n)
{
	(void)ctx;
	return n == 0 && g_io ? rdsu_io_ep(g_io) : NULL;
}

static int info_sock(void *ctx, size_t n, struct rdsinfo_sock *out)
{
	struct rdsp_sock *s = g_socks;
	struct stat st;
	size_t total = 0;
	int val;

	(void)ctx;
	/* sockets of rdsd are rdsd's to list; a closed one is gone */
	for (; s; s = s->next)
		total += !s->dm && !s->closed;
	if (n >= total)
		return 0;
	/* g_socks is newest first; rds_sock_list oldest first (rds_create
	 * adds at its tail) */
	n = total - 1 - n;
	for (s = g_socks; s->dm || s->closed || n--; s = s->next)
		;
	memset(out, 0, sizeof(*out));
	if (s->us) {
		out->bound = rdsu_sock_get_name(s->us, &out->baddr, &out->bport) == 0;
		out->sndbuf = rdsu_sock_get_sndbuf(s->us);
		out->rcvbuf = rdsu_sock_get_rcvbuf(s->us);
	} else {
		/* rds_sk_sndbuf: half of what SO_SNDBUF reads */
		out->sndbuf = kept_buf(s->b, true, &val) == 0 ? (uint32_t)val / 2 : 0;
		out->rcvbuf = kept_buf(s->b, false, &val) == 0 ? (uint32_t)val / 2 : 0;
	}
	out->connected = s->connected;
	out->caddr = s->conn_addr;
	out->cport = s->conn_port;
	/* sock_i_ino: the inode the application's descriptors name */
	if (fstat(s->a, &st) == 0)
		out->ino = st.st_ino;
	return 1;
}

/* Is every page of [v, v+len) mapped? rds_info_getsockopt pins them
 * all before it looks at the list, and fails when it cannot: EFAULT on
 * 7.2 (6.1 said EAGAIN). */
static bool info_pages_ok(const void *v, size_t len)
{
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)v & ~((uintptr_t)pg - 1);
	size_t span = (uintptr_t)v + len - start;
	unsigned char vec[64];

	if (!v)
		return false;
	/* mincore fails ENOMEM on any unmapped page of the range */
	for (size_t off = 0; off < span; off += sizeof(vec) * (size_t)pg) {
		size_t n = span - off < sizeof(vec) * (size_t)pg ? span - off
								  : sizeof(vec) * (size_t)pg;

		if (mincore((void *)(start + off), n, vec) < 0)
			return false;
	}
	return true;
}

/* rds_info_getsockopt's checks before it looks at a list, in its order.
 * Return: 0; -EFAULT or -EINVAL. */
static int info_check(const void *v, const socklen_t *len)
{
	size_t optlen;

	if (!len)
		return -EFAULT;
	/* negative, past INT_MAX - PAGE_SIZE + 1 (libwire's rule), wrapping */
	if ((int)*len < 0 || wire_info_answer(0, 1, *len, &optlen) == -EINVAL ||
	    (uintptr_t)v + *len < (uintptr_t)v)
		return -EINVAL;
	if (*len && !info_pages_ok(v, *len))
		return -EFAULT;
	return 0;
}

/* getsockopt(SOL_RDS, RDS_INFO_*) of a per-process socket, as
 * rds_info_getsockopt (net/rds/info.c): the length checks, the pinned
 * pages, the list, ENOSPC with the length needed. Return: the item size
 * or -errno. */
static int info_locked(int opt, void *v, socklen_t *len)
{
	static const struct rdsinfo_src src = {
		.ep = info_ep,
		.sock = info_sock,
#ifdef RDSEP_HAVE_IB
		.ib = true,
#endif
	};
	size_t optlen, copy, buflen, want;
	uint8_t *buf;
	int r;

	r = info_check(v, len);
	if (r < 0)
		return r;
	buflen = (size_t)*len;
	/* what a send queued is on its connection, as after the kernel's
	 * sendmsg; then the list's length, then the list */
	flush_locked();
	r = rdsinfo_get(&src, (unsigned)opt, buflen, NULL, 0, &optlen, &copy);
	if (r < 0 && r != -ENOSPC)
		return r;
	want = optlen < buflen ? optlen : buflen;
	buf = want ? malloc(want) : NULL;
	if (want && !buf)
		return -ENOMEM;
	r = rdsinfo_get(&src, (unsigned)opt, buflen, buf, want, &optlen, &copy);
	if (copy)
		memcpy(v, buf, copy);
	free(buf);
	if (r >= 0 || r == -ENOSPC)
		*len = (socklen_t)optlen;
	return r;
}

static int put_int_opt(int val, void *v, socklen_t *len)
{
	if (!len || *len < (socklen_t)sizeof(int))
		return -EINVAL;
	memcpy(v, &val, sizeof(int));
	*len = sizeof(int);
	return 0;
}

RDSP_EXPORT int getsockopt(int fd, int level, int name, void *v, socklen_t *len)
{
	struct rdsp_sock *s = get_locked(fd);
	int e, iv;

	if (!s)
		return REAL(getsockopt)(fd, level, name, v, len);
	if (s->dm) {
		dm_enter(s);
		if (level == SOL_RDS && name >= RDS_INFO_FIRST && name <= RDS_INFO_LAST &&
		    (e = info_check(v, len)) < 0) {
			/* rdsd cannot see our pages: the kernel's checks here */
		} else if (level == SOL_SOCKET && client_opt(level, name) &&
			   rdsopt_get_socket(&s->opt, name, &iv) == 0) {
			e = put_int_opt(iv, v, len);
		} else if (level == SOL_RDS) {
			e = dm_getopt(s, fd, level, name, v, len);
		} else if (level == SOL_SOCKET && (name == SO_SNDBUF || name == SO_RCVBUF)) {
			e = dm_getopt(s, fd, level, name, v, len);
		} else if (level == SOL_SOCKET && sock_identity(name, &iv)) {
			e = put_int_opt(iv, v, len);
		} else if (level == SOL_SOCKET) {
			e = REAL(getsockopt)(fd, level, name, v, len) < 0 ? -errno : 0;
		} else {
			e = -ENOPROTOOPT;
		}
		dm_leave(s);
		put_locked(s);
		/* RDS_INFO_* answer with the item size, as rds_info_getsockopt */
		return e < 0 ? set_errno(e) : e;
	}
	if (level == SOL_RDS && name >= RDS_INFO_FIRST && name <= RDS_INFO_LAST) {
		e = info_locked(name, v, len);
		put_locked(s);
		/* the item size, as rds_info_getsockopt returns it */
		return e < 0 ? set_errno(e) : e;
	} else if (level == SOL_RDS) {
		e = rdsopt_get(&s->opt, s->us, name, &iv);
		if (e == 0)
			e = put_int_opt(iv, v, len);
	} else if (level == SOL_SOCKET && (sock_identity(name, &iv) ||
					   rdsopt_get_socket(&s->opt, name, &iv) == 0)) {
		e = put_int_opt(iv, v, len);
	} else if (level == SOL_SOCKET) {
		e = REAL(getsockopt)(s->b, level, name, v, len) < 0 ? -errno : 0;
	} else {
		e = -ENOPROTOOPT;
	}
	put_locked(s);
	return e < 0 ? set_errno(e) : 0;
}

RDSP_EXPORT int ioctl(int fd, unsigned long req, ...)
{
	struct rdsp_sock *s;
	void *arg;
	int e = 0;

	RDSP_VA_ARG(req, arg);
	if (!fd_peek(fd))
		return REAL(ioctl)(fd, req, arg);
	/* What the VFS answers for any file, and the socket layer's own
	 * SIOC* requests, are the real descriptor's; rds_ioctl knows only
	 * the TOS pair and everything else is -ENOTTY (FIONREAD too). */
	if (req == FIONBIO || req == FIOASYNC || req == FIOCLEX || req == FIONCLEX ||
	    ((req & 0xff00) == 0x8900 && req != SIOCRDSSETTOS && req != SIOCRDSGETTOS))
		return REAL(ioctl)(fd, req, arg);
	if (req != SIOCRDSSETTOS && req != SIOCRDSGETTOS)
		return set_errno(-ENOTTY);
	s = get_locked(fd);
	if (!s)
		return set_errno(-EBADF);
	if (s->dm) {
		dm_enter(s);
		if (!arg) {
			e = -EFAULT;
		} else if (req == SIOCRDSGETTOS) {
			socklen_t l = 1;

			e = dm_getopt(s, fd, RDSD_LEVEL_IOCTL, 0, arg, &l);
		} else {
			e = dm_setopt(s, fd, RDSD_LEVEL_IOCTL, 0, arg, 1);
		}
		dm_leave(s);
		put_locked(s);
		return e < 0 ? set_errno(e) : 0;
	}
	if (!arg) {
		e = -EFAULT;
	} else if (req == SIOCRDSGETTOS) {
		memcpy(arg, &s->tos, 1);
	} else {
		uint8_t tos;

		memcpy(&tos, arg, 1);
		/* rds_ioctl: once, before the first send; TCP maps every
		 * TOS to 0 (rds_tcp_get_tos_map) once the transport is known. */
		if (s->tos || s->sent)
			e = -EINVAL;
		else
			s->tos = (s->us || s->opt.transport == RDSU_TRANS_TCP) ? 0 : tos;
	}
	put_locked(s);
	return e < 0 ? set_errno(e) : 0;
}
