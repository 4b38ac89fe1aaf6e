// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * afrds - a program written against the kernel's AF_RDS only (no librds
 * header, no shim header), as any unmodified RDS program is; run through
 * rdsrun it checks what the shim gives it against the kernel's answers
 * (docs/kernel-behaviour.md K7).
 *
 *   afrds server ADDR PORT         echo on PORT, sink on PORT+2, a slow
 *                                  reader on PORT+3 (read on "drain"), until "quit"
 *   afrds client ADDR PEER PORT    the checks; exit 0 if all passed
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/rds.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "afcheck.h"

static bool g_rdsd;          /* AFRDS_RDSD=1: the sockets are rdsd's */

static int rds_socket(void)
{
	int fd = socket(AF_RDS, SOCK_SEQPACKET, 0);

	if (fd < 0) {
		perror("afrds: socket(AF_RDS)");
		exit(1);
	}
	return fd;
}

static int bound(const char *addr, unsigned port)
{
	struct sockaddr_in s = sin_of(addr, port);
	int fd = rds_socket();

	if (bind(fd, (struct sockaddr *)&s, sizeof(s)) < 0) {
		perror("afrds: bind");
		exit(1);
	}
	return fd;
}

static int server(const char *addr, unsigned port)
{
	int echo = bound(addr, port), sink = bound(addr, port + 2), slow = rds_socket(), one = 1;
	int draining = 0;
	struct sockaddr_in sa = sin_of(addr, port + 3);
	static char buf[1 << 16];

	/* the smallest RCVBUF: a few messages congest the port */
	if (setsockopt(slow, SOL_SOCKET, SO_RCVBUF, &one, sizeof(one)) < 0 ||
	    bind(slow, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("afrds: slow socket");
		return 1;
	}

	printf("ready\n");
	fflush(stdout);
	for (;;) {
		struct pollfd p[3] = { { echo, POLLIN, 0 }, { sink, POLLIN, 0 },
				       { draining ? slow : -1, POLLIN, 0 } };

		if (poll(p, 3, -1) < 0)
			return 1;
		if (p[1].revents & POLLIN)
			while (recv(sink, buf, sizeof(buf), MSG_DONTWAIT) >= 0)
				;
		if (p[2].revents & POLLIN)
			while (recv(slow, buf, sizeof(buf), MSG_DONTWAIT) >= 0)
				;
		if (p[0].revents & POLLIN) {
			struct sockaddr_in from;
			socklen_t fl = sizeof(from);
			ssize_t n = recvfrom(echo, buf, sizeof(buf), MSG_DONTWAIT,
					     (struct sockaddr *)&from, &fl);

			if (n < 0)
				continue;
			if (n == 4 && !memcmp(buf, "quit", 4)) {
				(void)sendto(echo, "bye", 3, 0, (struct sockaddr *)&from, fl);
				/* closing drops what TCP has not acknowledged */
				struct pollfd q = { echo, 0, 0 };

				(void)poll(&q, 1, 500);
				return 0;
			}
			if (n == 5 && !memcmp(buf, "drain", 5)) {
				int k = 0;

				while (recv(slow, buf, sizeof(buf), MSG_DONTWAIT) >= 0)
					k++;
				/* and from now on, whatever was still on its way */
				draining = 1;
				n = snprintf(buf, sizeof(buf), "drained %d", k);
			}
			if (n == 3 && !memcmp(buf, "big", 3)) {
				memset(buf, 'x', 1000);
				n = 1000;
			}
			if (sendto(echo, buf, (size_t)n, 0, (struct sockaddr *)&from, fl) < 0)
				perror("afrds server: sendto");
		}
	}
}

static void send_to(int fd, const struct sockaddr_in *to, const char *msg)
{
	ssize_t n = sendto(fd, msg, strlen(msg), 0, (const struct sockaddr *)to, sizeof(*to));

	CHECK(n == (ssize_t)strlen(msg), "sendto %s", msg);
}

/* SO_RDS_TRANSPORT IB: ENOPROTOOPT without the IB transport (rds_rdma
 * not loaded, the shim built without verbs); with it, a bind on |me|, an
 * address on no RDMA device, is ENOPROTOOPT (rds_bind: the set
 * transport's laddr_check refuses). */
static void checks_ib_unbound(const char *me)
{
	struct sockaddr_in a = sin_of(me, 5000);
	int fd = rds_socket(), v = RDS_TRANS_IB, r;
	socklen_t l = sizeof(v);

	r = setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &v, sizeof(v));
	if (r < 0) {
		CHECK(errno == ENOPROTOOPT, "IB: want 0 or ENOPROTOOPT");
	} else {
		v = -1;
		CHECK(getsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &v, &l) == 0 &&
		      v == RDS_TRANS_IB, "transport ib before bind");
		FAILS(bind(fd, (struct sockaddr *)&a, sizeof(a)), ENOPROTOOPT,
		      "bind IB on an address on no RDMA device");
	}
	close(fd);
}

static void checks_unbound(const char *me, const struct sockaddr_in *peer)
{
	int fd = rds_socket(), v = 0;
	socklen_t l = sizeof(v);
	struct sockaddr_in any = sin_of("0.0.0.0", 5000), far = sin_of("192.0.2.1", 5000);
	struct sockaddr_in one = sin_of(me, 1);
	struct sockaddr_storage ss;

	FAILS(socket(AF_RDS, SOCK_DGRAM, 0), ESOCKTNOSUPPORT, "SOCK_DGRAM");
	CHECK(getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &l) == 0 && v == SOCK_SEQPACKET, "SO_TYPE");
	l = sizeof(v);
	CHECK(getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &l) == 0 && v == AF_RDS, "SO_DOMAIN");
	l = sizeof(ss);
	CHECK(getsockname(fd, (struct sockaddr *)&ss, &l) == 0 && ss.ss_family == AF_UNSPEC &&
	      l == sizeof(struct sockaddr_in), "getsockname unbound");
	FAILS(sendto(fd, "x", 1, 0, (const struct sockaddr *)peer, sizeof(*peer)), ENOTCONN,
	      "sendto unbound");
	FAILS(bind(fd, (struct sockaddr *)&any, sizeof(any)), EINVAL, "bind INADDR_ANY");
	FAILS(bind(fd, (struct sockaddr *)&one, sizeof(one)), EINVAL, "bind port 1");
	FAILS(bind(fd, (struct sockaddr *)&any, 8), EINVAL, "bind short");
	FAILS(bind(fd, (struct sockaddr *)&far, sizeof(far)), EADDRNOTAVAIL, "bind non-local");
	checks_ib_unbound(me);
	l = sizeof(v);
	CHECK(getsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &v, &l) == 0 && v == (int)RDS_TRANS_NONE,
	      "transport none");
	v = RDS_TRANS_TCP;
	CHECK(setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &v, sizeof(v)) == 0, "TCP transport");
	FAILS(setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &v, sizeof(v)), EOPNOTSUPP, "twice");
	l = sizeof(v);
	CHECK(getsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &v, &l) == 0 && v == RDS_TRANS_TCP,
	      "transport tcp");
	FAILS(listen(fd, 1), EOPNOTSUPP, "listen");
	l = sizeof(ss);
	FAILS(getpeername(fd, (struct sockaddr *)&ss, &l), ENOTCONN, "getpeername unconnected");
	FAILS(setsockopt(fd, SOL_RDS, RDS_CANCEL_SENT_TO, peer, sizeof(*peer)), ENOTCONN,
	      "RDS_CANCEL_SENT_TO unbound");
	v = 1;
	CHECK(setsockopt(fd, SOL_RDS, RDS_CONG_MONITOR, &v, sizeof(v)) == 0, "RDS_CONG_MONITOR");
	FAILS(setsockopt(fd, SOL_RDS, RDS_CONG_MONITOR, &v, 2), EINVAL, "RDS_CONG_MONITOR short");
	close(fd);
}

/* sendmsg to |peer| with one SOL_RDS cmsg of |type| carrying |len| bytes
 * at |arg| (a second one, |type2|, if not 0). Return: sendmsg's. */
static ssize_t send_cmsg(int fd, const struct sockaddr_in *peer, int type, const void *arg,
			 size_t len, int type2)
{
	union {
		char buf[2 * CMSG_SPACE(sizeof(struct rds_atomic_args))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { "r", 1 };
	struct msghdr mh = { .msg_name = (void *)peer, .msg_namelen = sizeof(*peer),
			     .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			     .msg_controllen = CMSG_SPACE(len) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);

	memset(&u, 0, sizeof(u));
	c->cmsg_level = SOL_RDS;
	c->cmsg_type = type;
	c->cmsg_len = CMSG_LEN(len);
	memcpy(CMSG_DATA(c), arg, len);
	if (type2) {
		mh.msg_controllen += CMSG_SPACE(len);
		c = CMSG_NXTHDR(&mh, c);
		c->cmsg_level = SOL_RDS;
		c->cmsg_type = type2;
		c->cmsg_len = CMSG_LEN(len);
		memcpy(CMSG_DATA(c), arg, len);
	}
	return sendmsg(fd, &mh, 0);
}

/* The RDMA API on a TCP socket: the kernel's RDS/TCP answers
 * (docs/kernel-behaviour.md "RDMA operations": no get_mr, no
 * xmit_rdma/xmit_atomic, argument errors first). */
static void checks_rdma_tcp(int fd, const char *me, const struct sockaddr_in *peer)
{
	static char region[8192];
	static uint64_t result[2];
	uint64_t cookie = 0;
	struct rds_iovec local = { (uint64_t)(uintptr_t)region, 4096 };
	struct rds_get_mr_args mr = { .vec = local, .cookie_addr = (uint64_t)(uintptr_t)&cookie };
	struct rds_get_mr_for_dest_args mrd = { .vec = local };
	struct rds_free_mr_args fr = { .cookie = 0x1234 };
	struct rds_rdma_args ra = { .cookie = 0x1234, .remote_vec = { 0, 4096 },
				    .local_vec_addr = (uint64_t)(uintptr_t)&local, .nr_local = 1,
				    .flags = RDS_RDMA_NOTIFY_ME, .user_token = 7 };
	struct rds_atomic_args aa = { .cookie = 0x1234, .local_addr = (uint64_t)(uintptr_t)result };
	uint64_t dest = 0x1234;
	int u = rds_socket();

	(void)me;
	FAILS(setsockopt(u, SOL_RDS, RDS_GET_MR, &mr, sizeof(mr)), ENOTCONN, "GET_MR unbound");
	close(u);
	FAILS(setsockopt(fd, SOL_RDS, RDS_GET_MR, &mr, sizeof(mr) - 1), EINVAL, "GET_MR short");
	FAILS(setsockopt(fd, SOL_RDS, RDS_GET_MR, &mr, sizeof(mr)), EOPNOTSUPP, "GET_MR on TCP");
	mrd.dest_addr.ss_family = AF_UNIX;
	FAILS(setsockopt(fd, SOL_RDS, RDS_GET_MR_FOR_DEST, &mrd, sizeof(mrd)), EAFNOSUPPORT,
	      "GET_MR_FOR_DEST AF_UNIX");
	memcpy(&mrd.dest_addr, peer, sizeof(*peer));
	FAILS(setsockopt(fd, SOL_RDS, RDS_GET_MR_FOR_DEST, &mrd, sizeof(mrd)), EOPNOTSUPP,
	      "GET_MR_FOR_DEST on TCP");
	CHECK(cookie == 0, "no cookie written");
	FAILS(setsockopt(fd, SOL_RDS, RDS_FREE_MR, &fr, sizeof(fr)), EINVAL, "FREE_MR unknown");
	fr.cookie = 0;
	FAILS(setsockopt(fd, SOL_RDS, RDS_FREE_MR, &fr, sizeof(fr)), EINVAL, "FREE_MR 0 on TCP");
	FAILS(setsockopt(fd, SOL_RDS, RDS_FREE_MR, &fr, 4), EINVAL, "FREE_MR short");

	FAILS(send_cmsg(fd, peer, RDS_CMSG_RDMA_ARGS, &ra, sizeof(ra), 0), EOPNOTSUPP,
	      "RDMA_ARGS on TCP");
	ra.nr_local = 0;
	FAILS(send_cmsg(fd, peer, RDS_CMSG_RDMA_ARGS, &ra, sizeof(ra), 0), EINVAL,
	      "RDMA_ARGS no local entry");
	ra.nr_local = 1025;
	FAILS(send_cmsg(fd, peer, RDS_CMSG_RDMA_ARGS, &ra, sizeof(ra), 0), EMSGSIZE,
	      "RDMA_ARGS over UIO_MAXIOV");
	ra.nr_local = 1;
	FAILS(send_cmsg(fd, peer, RDS_CMSG_RDMA_ARGS, &ra, sizeof(ra) - 8, 0), EINVAL,
	      "RDMA_ARGS short");
	FAILS(send_cmsg(fd, peer, RDS_CMSG_RDMA_ARGS, &ra, sizeof(ra), RDS_CMSG_RDMA_ARGS),
	      EINVAL, "RDMA_ARGS twice");
	FAILS(send_cmsg(fd, peer, RDS_CMSG_RDMA_DEST, &dest, sizeof(dest), 0), EINVAL,
	      "RDMA_DEST names no region");
	FAILS(send_cmsg(fd, peer, RDS_CMSG_RDMA_MAP, &mr, sizeof(mr), 0), EOPNOTSUPP,
	      "RDMA_MAP on TCP");
	FAILS(send_cmsg(fd, peer, RDS_CMSG_ATOMIC_FADD, &aa, sizeof(aa), 0), EOPNOTSUPP,
	      "FADD on TCP");
	FAILS(send_cmsg(fd, peer, RDS_CMSG_MASKED_ATOMIC_CSWP, &aa, sizeof(aa), 0), EOPNOTSUPP,
	      "masked CSWP on TCP");
	aa.local_addr += 4;
	FAILS(send_cmsg(fd, peer, RDS_CMSG_ATOMIC_CSWP, &aa, sizeof(aa), 0), EFAULT,
	      "CSWP misaligned result");
	FAILS(send_cmsg(fd, peer, RDS_CMSG_ATOMIC_FADD, &aa, sizeof(aa), RDS_CMSG_RDMA_DEST),
	      EINVAL, "an atomic with DEST");
	FAILS(send_cmsg(fd, peer, 99, &dest, sizeof(dest), 0), EINVAL, "unknown SOL_RDS cmsg");
}

/* recvmsg with MSG_OOB: 0 at once, and what ____sys_recvmsg writes back
 * (no name, no flags, no cmsg) over what the caller passed in. */
static void checks_recv_oob(int fd)
{
	struct sockaddr_in from;
	char buf[16], ctl[64];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr mh = { .msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &iov,
			     .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof(ctl),
			     .msg_flags = MSG_TRUNC | MSG_CTRUNC };

	memset(ctl, 0xa5, sizeof(ctl));
	CHECK(recvmsg(fd, &mh, MSG_OOB | MSG_DONTWAIT) == 0, "recvmsg MSG_OOB");
	CHECK(mh.msg_namelen == 0 && mh.msg_controllen == 0 && mh.msg_flags == 0,
	      "recvmsg MSG_OOB: namelen %u controllen %zu flags %#x, want 0", mh.msg_namelen,
	      (size_t)mh.msg_controllen, (unsigned)mh.msg_flags);
}

/* A client socket bound to |port|, its errors on the way. */
static int checks_bound(const char *me, unsigned port, const struct sockaddr_in *peer)
{
	struct sockaddr_in a = sin_of(me, port), got;
	socklen_t l = sizeof(got);
	int fd = rds_socket(), fd2 = rds_socket(), v;
	struct sockaddr_in other = sin_of("127.0.3.9", 5000);

	CHECK(bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0, "bind");
	CHECK(getsockname(fd, (struct sockaddr *)&got, &l) == 0 && l == sizeof(got) &&
	      got.sin_family == AF_INET && got.sin_port == a.sin_port &&
	      got.sin_addr.s_addr == a.sin_addr.s_addr, "getsockname");
	FAILS(bind(fd, (struct sockaddr *)&a, sizeof(a)), EINVAL, "re-bind");
	FAILS(bind(fd2, (struct sockaddr *)&a, sizeof(a)), EADDRINUSE, "port in use");
	(void)other;
	FAILS(send(fd, "x", 1, 0), ENOTCONN, "send unconnected");
	FAILS(sendto(fd, "x", 1, MSG_OOB, (const struct sockaddr *)peer, sizeof(*peer)),
	      EOPNOTSUPP, "MSG_OOB on send");
	v = 1;
	FAILS(setsockopt(fd, SOL_RDS, 9999, &v, sizeof(v)), ENOPROTOOPT, "unknown SOL_RDS");
	FAILS(setsockopt(fd, IPPROTO_IP, IP_TOS, &v, sizeof(v)), ENOPROTOOPT, "IPPROTO_IP");
	FAILS(ioctl(fd, FIONREAD, &v), ENOTTY, "FIONREAD");
	CHECK(setsockopt(fd, SOL_RDS, RDS_RECVERR, &v, sizeof(v)) == 0, "RDS_RECVERR");
	v = 0;
	l = sizeof(v);
	CHECK(getsockopt(fd, SOL_RDS, RDS_RECVERR, &v, &l) == 0 && v == 1, "RDS_RECVERR get");
	FAILS(setsockopt(fd, SOL_RDS, RDS_CANCEL_SENT_TO, peer, 8), EINVAL, "cancel: short");
	CHECK(setsockopt(fd, SOL_RDS, RDS_CANCEL_SENT_TO, peer, sizeof(*peer)) == 0, "cancel");
	/* rds_set_transport: the transport bind chose stays */
	v = RDS_TRANS_TCP;
	FAILS(setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &v, sizeof(v)), EOPNOTSUPP,
	      "SO_RDS_TRANSPORT after bind");
	checks_recv_oob(fd);
	close(fd2);
	return fd;
}

static ssize_t wait_recv(int fd, char *buf, size_t cap, int flags)
{
	struct pollfd p = { fd, POLLIN, 0 };

	CHECK(poll(&p, 1, 10000) == 1 && (p.revents & POLLIN), "poll POLLIN");
	return recv(fd, buf, cap, flags | MSG_DONTWAIT);
}

static void checks_traffic(int fd, const struct sockaddr_in *peer)
{
	char buf[2048];
	struct sockaddr_in from;
	socklen_t fl;
	struct pollfd p = { fd, POLLIN | POLLOUT, 0 };
	struct timeval tv = { 0, 100000 };
	int ep, v;

	FAILS(recv(fd, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN, "empty MSG_DONTWAIT");
	/* A new socket's first poll may report the one-shot POLLIN of the
	 * host's map generation (rs_cong_track 0, rds_cong_updated_since):
	 * spend it, then look. */
	(void)poll(&p, 1, 0);
	p.revents = 0;
	CHECK(poll(&p, 1, 0) == 1 && p.revents == POLLOUT, "idle: POLLOUT only (%x)", p.revents);
	CHECK(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == 0, "SO_RCVTIMEO");
	FAILS(recv(fd, buf, sizeof(buf), 0), ETIMEDOUT, "SO_RCVTIMEO runs out");
	tv.tv_usec = 0;
	tv.tv_sec = 20;
	CHECK(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == 0, "SO_RCVTIMEO 20s");

	/* blocking, both ways: the server echoes */
	for (int i = 0; i < 20; i++) {
		char msg[32];
		ssize_t n;

		snprintf(msg, sizeof(msg), "message %d", i);
		send_to(fd, peer, msg);
		fl = sizeof(from);
		n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
		CHECK(n == (ssize_t)strlen(msg) && !memcmp(buf, msg, (size_t)n), "echo %d", i);
		CHECK(fl == sizeof(from) && from.sin_port == peer->sin_port &&
		      from.sin_addr.s_addr == peer->sin_addr.s_addr, "echo source");
	}

	/* epoll sees the descriptor as the kernel's socket */
	ep = epoll_create1(0);
	{
		struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd }, out;

		CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == 0, "epoll_ctl");
		CHECK(epoll_wait(ep, &out, 1, 0) == 0, "epoll idle");
		send_to(fd, peer, "epoll");
		CHECK(epoll_wait(ep, &out, 1, 10000) == 1 && (out.events & EPOLLIN), "epoll IN");
		CHECK(recv(fd, buf, sizeof(buf), 0) == 5, "epoll message");
		CHECK(epoll_wait(ep, &out, 1, 0) == 0, "epoll drained");
	}
	close(ep);

	/* O_NONBLOCK set with fcntl, as a program does */
	CHECK(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0, "O_NONBLOCK");
	FAILS(recv(fd, buf, sizeof(buf), 0), EAGAIN, "O_NONBLOCK empty");
	send_to(fd, peer, "nonblocking");
	CHECK(wait_recv(fd, buf, sizeof(buf), 0) == 11, "non-blocking echo");
	p.revents = 0;
	CHECK(poll(&p, 1, 0) == 1 && p.revents == POLLOUT, "read: POLLIN gone (%x)", p.revents);

	/* MSG_PEEK leaves it, the next read takes it */
	send_to(fd, peer, "peek");
	CHECK(wait_recv(fd, buf, sizeof(buf), MSG_PEEK) == 4, "peek");
	CHECK(recv(fd, buf, sizeof(buf), 0) == 4 && !memcmp(buf, "peek", 4), "after peek");
	FAILS(recv(fd, buf, sizeof(buf), 0), EAGAIN, "peeked one was taken");

	/* MSG_TRUNC: flag out always, full length back only when asked */
	for (int ask = 0; ask < 2; ask++) {
		struct iovec iov = { buf, 10 };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		struct pollfd pi = { fd, POLLIN, 0 };
		ssize_t n;

		send_to(fd, peer, "big");
		CHECK(poll(&pi, 1, 10000) == 1, "big: poll");
		n = recvmsg(fd, &mh, ask ? MSG_TRUNC : 0);
		CHECK(n == (ask ? 1000 : 10), "MSG_TRUNC %d: %zd", ask, n);
		CHECK(mh.msg_flags & MSG_TRUNC, "msg_flags MSG_TRUNC");
	}

	/* a duplicate names the same socket; it lives until the last close */
	v = dup(fd);
	CHECK(v >= 0, "dup");
	send_to(v, peer, "dup");
	CHECK(wait_recv(fd, buf, sizeof(buf), 0) == 3, "dup: echo on the original");
	close(v);
	send_to(fd, peer, "after");
	CHECK(wait_recv(fd, buf, sizeof(buf), 0) == 5, "dup closed, original lives");
}

/* SNDBUF: the set value doubled back, EMSGSIZE past it, EAGAIN while it is
 * full, POLLOUT only with room, and blocking sends that wait for room. */
static void checks_sndbuf(const char *me, unsigned port, const struct sockaddr_in *sink)
{
	int fd = rds_socket(), v = 4096, eagain = 0, unwritable = 0, congested = 0;
	struct sockaddr_in a = sin_of(me, port);
	socklen_t l = sizeof(v);
	static char big[(1 << 20) + 1];

	/* Never set, SNDBUF grows with use as librds's does (docs/shim.md,
	 * a known difference): a message above the kernel's default is
	 * taken, or waits for room, but is not too big. */
	{
		int u = rds_socket();
		struct sockaddr_in ua = sin_of(me, port + 4);
		ssize_t n;

		CHECK(bind(u, (struct sockaddr *)&ua, sizeof(ua)) == 0, "bind unset-SNDBUF socket");
		n = sendto(u, big, 256 * 1024, MSG_DONTWAIT, (const struct sockaddr *)sink,
			   sizeof(*sink));
		CHECK(n == 256 * 1024 || (n < 0 && (errno == EAGAIN || errno == ENOBUFS)),
		      "256 KiB with SNDBUF never set: %zd (%s)", n, n < 0 ? strerror(errno) : "");
		close(u);
	}
	CHECK(setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v)) == 0, "SO_SNDBUF");
	CHECK(getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, &l) == 0 && v == 8192,
	      "SO_SNDBUF doubled: %d", v);
	CHECK(bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0, "bind sndbuf socket");
	FAILS(sendto(fd, big, 4097, 0, (const struct sockaddr *)sink, sizeof(*sink)), EMSGSIZE,
	      "more than SNDBUF");
	CHECK(sendto(fd, big, 4096, 0, (const struct sockaddr *)sink, sizeof(*sink)) == 4096,
	      "exactly SNDBUF");
	v = 1 << 22;
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
	FAILS(sendto(fd, big, sizeof(big), 0, (const struct sockaddr *)sink, sizeof(*sink)),
	      EMSGSIZE, "more than 1 MiB");
	v = 4096;
	CHECK(setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v)) == 0, "SO_SNDBUF again");
	for (int i = 0; i < 1000 && !(eagain && unwritable); i++) {
		ssize_t n = sendto(fd, big, 4096, MSG_DONTWAIT, (const struct sockaddr *)sink,
				   sizeof(*sink));
		struct pollfd p = { fd, POLLOUT, 0 };

		if (n < 0 && errno == ENOBUFS) {
			/* The sink's port is congested: a busy machine lets it
			 * fall behind, and the kernel says so with ENOBUFS;
			 * that round does not count. */
			CHECK(++congested < 10000, "sink congested for 10 s");
			poll(NULL, 0, 1);
			i--;
			continue;
		}
		if (n < 0) {
			CHECK(errno == EAGAIN, "full SNDBUF: EAGAIN");
			eagain++;
			if (poll(&p, 1, 0) == 0)
				unwritable++;
			p.revents = 0;
			CHECK(poll(&p, 1, 10000) == 1 && (p.revents & POLLOUT), "POLLOUT again");
		}
	}
	CHECK(eagain > 0, "SNDBUF never full");
	CHECK(unwritable > 0, "POLLOUT while SNDBUF was full");
	for (int i = 0; i < 100; i++)
		CHECK(sendto(fd, big, 4096, 0, (const struct sockaddr *)sink, sizeof(*sink)) == 4096,
		      "blocking send %d", i);
	close(fd);
}

/* connect() records a default destination: send and read then need no
 * address (rds_connect). */
static void checks_connected(const char *me, unsigned port, const struct sockaddr_in *peer)
{
	int fd = rds_socket();
	struct sockaddr_in a = sin_of(me, port), any = sin_of("0.0.0.0", 4000), got;
	socklen_t l = sizeof(got);
	char buf[64];

	FAILS(connect(fd, (struct sockaddr *)&any, sizeof(any)), EDESTADDRREQ, "connect ANY");
	CHECK(connect(fd, (const struct sockaddr *)peer, sizeof(*peer)) == 0, "connect");
	CHECK(getpeername(fd, (struct sockaddr *)&got, &l) == 0 &&
	      got.sin_port == peer->sin_port, "getpeername");
	FAILS(send(fd, "x", 1, 0), ENOTCONN, "connected but unbound");
	CHECK(bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0, "bind connected");
	CHECK(send(fd, "conn", 4, 0) == 4, "send connected");
	CHECK(read(fd, buf, sizeof(buf)) == 4 && !memcmp(buf, "conn", 4), "read");
	/* sock_write_iter adds MSG_EOR on a SOCK_SEQPACKET socket, which
	 * rds_sendmsg refuses (docs/kernel-behaviour.md) */
	FAILS(write(fd, "write", 5), EOPNOTSUPP, "write connected");
	CHECK(send(fd, "write", 5, 0) == 5, "send connected");
	CHECK(recv(fd, buf, sizeof(buf), 0) == 5 && !memcmp(buf, "write", 5), "send echo");
	close(fd);
}

/* One thread blocks in recv while another sends on the same socket. */
static void checks_threads(int fd, const struct sockaddr_in *peer)
{
	struct reader b = { .fd = fd, .n = -1 };
	pthread_t th;

	(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	CHECK(pthread_create(&th, NULL, reader, &b) == 0, "pthread_create");
	send_to(fd, peer, "thread");
	pthread_join(th, NULL);
	CHECK(b.n == 6 && !memcmp(b.buf, "thread", 6), "blocked reader got the echo");
}

struct cong_sender {
	int fd;
	const struct sockaddr_in *to;
	ssize_t n;
};

static void *cong_sender(void *arg)
{
	struct cong_sender *c = arg;
	static char msg[100];

	c->n = sendto(c->fd, msg, sizeof(msg), 0, (const struct sockaddr *)c->to, sizeof(*c->to));
	return NULL;
}

/* RDS_CONG_MONITOR: ENOBUFS to a congested port, then, when the port is
 * freed, a notification: POLLIN, recvmsg returning 0 with no address and
 * RDS_CMSG_CONG_UPDATE carrying the port's bit (rds_notify_cong). */
static void checks_cong(const char *me, unsigned port, int ctl, const struct sockaddr_in *peer,
			const struct sockaddr_in *slow)
{
	int fd = rds_socket(), v = 1, enobufs = 0;
	struct sockaddr_in a = sin_of(me, port);
	static char msg[2000];
	char buf[64];
	union {
		char b[CMSG_SPACE(sizeof(uint64_t))];
		struct cmsghdr align;
	} ctrl;
	struct sockaddr_in from;
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr mh = { .msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &iov,
			     .msg_iovlen = 1, .msg_control = ctrl.b,
			     .msg_controllen = sizeof(ctrl.b) };
	struct pollfd p = { fd, POLLIN, 0 };
	struct cmsghdr *c;
	uint64_t mask = 0;
	ssize_t n;

	CHECK(setsockopt(fd, SOL_RDS, RDS_CONG_MONITOR, &v, sizeof(v)) == 0, "monitor");
	CHECK(bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0, "bind monitor");
	for (int i = 0; i < 20000 && !enobufs; i++) {
		n = sendto(fd, msg, sizeof(msg), MSG_DONTWAIT, (const struct sockaddr *)slow,
			   sizeof(*slow));
		if (n < 0 && errno == ENOBUFS) {
			enobufs = 1;
		} else if (n < 0) {
			struct pollfd po = { fd, POLLOUT, 0 };

			CHECK(errno == EAGAIN, "to the slow port: EAGAIN or ENOBUFS");
			(void)poll(&po, 1, 1000);
		} else {
			/* give the peer's map time to come; no timing is asserted */
			(void)poll(NULL, 0, 1);
		}
	}
	CHECK(enobufs, "the slow port never congested");
	if (!enobufs) {
		close(fd);
		return;
	}
	p.revents = 0;
	CHECK(poll(&p, 1, 0) == 0, "no notification while congested");
	{
		/* a blocking send to the congested port waits until it is
		 * free (rds_cong_wait); it returns once the server drains */
		struct cong_sender cs = { fd, slow, -1 };
		pthread_t th;

		CHECK(pthread_create(&th, NULL, cong_sender, &cs) == 0, "cong sender");
		send_to(ctl, peer, "drain");
		CHECK(recv(ctl, buf, sizeof(buf), 0) > 0 && !memcmp(buf, "drained", 7),
		      "drained");
		pthread_join(th, NULL);
		CHECK(cs.n == 100, "blocking send to a congested port: %zd", cs.n);
	}
	CHECK(poll(&p, 1, 20000) == 1 && (p.revents & POLLIN), "notification: POLLIN");
	n = recvmsg(fd, &mh, MSG_DONTWAIT);
	CHECK(n == 0, "notification returns 0: %zd", n);
	CHECK(mh.msg_namelen == 0, "notification has no address");
	c = CMSG_FIRSTHDR(&mh);
	CHECK(c && c->cmsg_level == SOL_RDS && c->cmsg_type == RDS_CMSG_CONG_UPDATE &&
	      c->cmsg_len == CMSG_LEN(sizeof(uint64_t)), "RDS_CMSG_CONG_UPDATE");
	if (c)
		memcpy(&mask, CMSG_DATA(c), sizeof(mask));
	CHECK(mask & (1ull << (ntohs(slow->sin_port) % 64)), "port bit: %#llx",
	      (unsigned long long)mask);
	close(fd);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* Messages to an address nobody serves stay queued (connections retry for
 * ever), so SNDBUF stays full: a blocking send waits out SO_SNDTIMEO and
 * fails with ETIMEDOUT (rds_sendmsg), a signal ends a blocking recv with
 * EINTR. */
static void checks_waits(const char *me, unsigned port)
{
	struct sockaddr_in a = sin_of(me, port), nobody = sin_of("127.0.3.7", 4000);
	struct timeval tv = { 0, 100000 }, got = { 0 };
	socklen_t l = sizeof(got);
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = { .it_value = { 0, 100000 } };
	int fd = rds_socket(), v = 4096;
	static char msg[4096];
	char buf[16];

	CHECK(setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v)) == 0, "SO_SNDBUF");
	CHECK(setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) == 0, "SO_SNDTIMEO");
	CHECK(getsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &got, &l) == 0 && got.tv_usec == 100000,
	      "SO_SNDTIMEO read back");
	CHECK(bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0, "bind");
	CHECK(sendto(fd, msg, sizeof(msg), 0, (struct sockaddr *)&nobody, sizeof(nobody)) ==
	      (ssize_t)sizeof(msg), "first message queues");
	FAILS(sendto(fd, msg, sizeof(msg), MSG_DONTWAIT, (struct sockaddr *)&nobody,
		     sizeof(nobody)), EAGAIN, "SNDBUF full, non-blocking");
	{
		struct pollfd p = { fd, POLLOUT, 0 };

		/* rdsd's descriptors stay writable (docs/shim.md) */
		CHECK(g_rdsd || poll(&p, 1, 0) == 0, "SNDBUF full: no POLLOUT");
	}
	FAILS(sendto(fd, msg, sizeof(msg), 0, (struct sockaddr *)&nobody, sizeof(nobody)),
	      ETIMEDOUT, "SNDBUF full, SO_SNDTIMEO");
	/* cancelling the queued message gives the room back */
	CHECK(setsockopt(fd, SOL_RDS, RDS_CANCEL_SENT_TO, &nobody, sizeof(nobody)) == 0,
	      "RDS_CANCEL_SENT_TO");
	CHECK(sendto(fd, msg, sizeof(msg), MSG_DONTWAIT, (struct sockaddr *)&nobody,
		     sizeof(nobody)) == (ssize_t)sizeof(msg), "room after the cancel");

	CHECK(sigaction(SIGALRM, &sa, NULL) == 0, "sigaction");
	CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0, "setitimer");
	FAILS(recv(fd, buf, sizeof(buf), 0), EINTR, "signal during a blocking recv");
	close(fd);
}

static int client(const char *me, const char *peer_s, unsigned port)
{
	struct sockaddr_in peer = sin_of(peer_s, port), sink = sin_of(peer_s, port + 2);
	struct sockaddr_in slow = sin_of(peer_s, port + 3);
	int fd;

	checks_unbound(me, &peer);
	fd = checks_bound(me, port + 10, &peer);
	checks_rdma_tcp(fd, me, &peer);
	checks_traffic(fd, &peer);
	/* Through rdsd the peer's address is one of its own: the loopback
	 * transport holds no SNDBUF and never congests, as the kernel's
	 * (docs/shim.md, "Known differences with rdsd"). */
	if (!g_rdsd)
		checks_sndbuf(me, port + 11, &sink);
	checks_connected(me, port + 12, &peer);
	checks_threads(fd, &peer);
	if (!g_rdsd)
		checks_cong(me, port + 13, fd, &peer, &slow);
	checks_waits(me, port + 14);
	{
		char buf[16];

		(void)fcntl(fd, F_SETFL, 0);
		send_to(fd, &peer, "quit");
		CHECK(recv(fd, buf, sizeof(buf), 0) == 3 && !memcmp(buf, "bye", 3), "bye");
	}
	close(fd);
	printf("%s\n", failed ? "FAILED" : "all passed");
	return failed;
}

int main(int argc, char **argv)
{
	g_rdsd = getenv("AFRDS_RDSD") && !strcmp(getenv("AFRDS_RDSD"), "1");
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "server"))
		return server(argv[2], (unsigned)atoi(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "client"))
		return client(argv[2], argv[3], (unsigned)atoi(argv[4]));
	fprintf(stderr, "usage: afrds server ADDR PORT | afrds client ADDR PEER PORT\n");
	return 2;
}
