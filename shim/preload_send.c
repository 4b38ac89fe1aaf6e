// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * preload_send.c - librds-preload.so: sending (net/rds/send.c
 * rds_sendmsg): sendmsg, sendto, send and write on an RDS socket, through
 * librds or rdsd. The map of the shim is shim/README.md.
 */
#include "preload.h"

/*
 * The send's SOL_RDS cmsgs: every one asks for RDMA, atomics or
 * zero-copy, which a TCP socket cannot give (-EOPNOTSUPP), or is unknown
 * (-EINVAL); others are ignored, as rds_rm_size does. Return: 0 or that
 * error. One check for both paths, a socket of its own and an rdsd one.
 */
static int send_cmsgs_refused(const struct msghdr *mh)
{
	if (!mh->msg_control || !mh->msg_controllen)
		return 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR((struct msghdr *)mh, c)) {
		if (c->cmsg_level != SOL_RDS)
			continue;
		switch (c->cmsg_type) {
		case RDS_CMSG_RDMA_ARGS: case RDS_CMSG_RDMA_DEST: case RDS_CMSG_RDMA_MAP:
		case RDS_CMSG_ATOMIC_FADD: case RDS_CMSG_ATOMIC_CSWP:
		case RDS_CMSG_MASKED_ATOMIC_FADD: case RDS_CMSG_MASKED_ATOMIC_CSWP:
		case RDS_CMSG_ZCOPY_COOKIE:
			return -EOPNOTSUPP;
		default:
			return -EINVAL;
		}
	}
	return 0;
}

static ssize_t dm_send(struct rdsp_sock *s, int fd, const struct msghdr *mh, int flags)
{
	struct rdsd_req q = { .op = RDSD_OP_SEND };
	size_t total = 0;
	int e;

	if (flags & ~MSG_DONTWAIT)   /* rds_sendmsg: MSG_NOSIGNAL too is refused */
		return -EOPNOTSUPP;
	if (mh->msg_name && mh->msg_namelen) {
		struct rdsu_addr dst;
		uint16_t dport;

		e = addr_in(mh->msg_name, mh->msg_namelen, &dst, &dport);
		if (e < 0)
			return e;
		dm_put_addr(&q, &dst, dport);
	}
	if (mh->msg_iovlen > IOV_MAX)
		return -EMSGSIZE;
	for (size_t i = 0; i < mh->msg_iovlen; i++)
		total += mh->msg_iov[i].iov_len;
	if (total > RDSP_MAX_MSG)
		return -EMSGSIZE;
	e = send_cmsgs_refused(mh);
	if (e)
		return e;
	if (s->ok_valid && s->chan >= 0 && total <= s->credit && q.family == s->ok.family &&
	    q.port == s->ok.port && !memcmp(q.addr, s->ok.addr, sizeof(q.addr))) {
		struct iovec iov[IOV_MAX + 1];
		struct msghdr m = { .msg_iov = iov, .msg_iovlen = mh->msg_iovlen + 1 };

		q.arg = RDSD_SEND_NOREPLY;
		q.chan = s->chan_id;
		iov[0] = (struct iovec){ &q, sizeof(q) };
		for (size_t i = 0; i < mh->msg_iovlen; i++)
			iov[i + 1] = mh->msg_iov[i];
		e = dm_write(fd, &m);
		if (e < 0)
			return e == -EPIPE || e == -ECONNRESET ? -ENOTCONN : e;
		s->credit -= (uint32_t)total;
		return (ssize_t)total;
	}
	{
		int fl = REAL(fcntl)(fd, F_GETFL);

		q.arg = (flags & MSG_DONTWAIT) || (fl >= 0 && (fl & O_NONBLOCK)) ? 0 : RDSD_SEND_BLOCK;
	}
	if (q.arg) {
		struct timeval tv = { 0 };
		socklen_t l = sizeof(tv);

		q.timeout_ms = -1;
		if (REAL(getsockopt)(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, &l) == 0 &&
		    (tv.tv_sec || tv.tv_usec))
			q.timeout_ms = tv.tv_sec > INT_MAX / 1000 - 1 ? INT_MAX
				       : (int32_t)(tv.tv_sec * 1000 + (tv.tv_usec + 999) / 1000);
	}
	{
		struct rdsd_req sent = q;
		uint32_t credit = 0;

		e = dm_call(s, fd, &q, mh->msg_iov, (int)mh->msg_iovlen, NULL, NULL, &credit);
		s->ok_valid = e >= 0;
		s->credit = e >= 0 ? credit : 0;
		if (e >= 0)
			s->ok = sent;
		return e;
	}
}

/* rds_sendmsg with the socket held; the lock is dropped while waiting. */
static ssize_t do_send(struct rdsp_sock *s, const struct msghdr *mh, int flags)
{
	struct rdsu_addr dst;
	uint16_t dport;
	size_t total = 0;
	int64_t deadline = -1;
	bool nb, looked = false;
	int e;

	if (flags & ~MSG_DONTWAIT)
		return -EOPNOTSUPP;   /* MSG_ZEROCOPY: no completions to give */
	if (mh->msg_name && mh->msg_namelen) {
		e = addr_in(mh->msg_name, mh->msg_namelen, &dst, &dport);
		if (e < 0)
			return e;
	} else if (s->connected) {
		dst = s->conn_addr;
		dport = s->conn_port;
	} else {
		return -ENOTCONN;
	}
	if (!s->us)
		return -ENOTCONN;
	if (g_child)
		return -EBADF;
	if (mh->msg_iovlen > IOV_MAX)
		return -EMSGSIZE;
	for (size_t i = 0; i < mh->msg_iovlen; i++)
		total += mh->msg_iov[i].iov_len;
	if (total > RDSP_MAX_MSG || total > rdsu_sock_max_msg(s->us))
		return -EMSGSIZE;
	{
		int ce = send_cmsgs_refused(mh);

		if (ce)
			return ce;
	}
	nb = nonblocking(s, flags);
	for (;;) {
		e = rdsu_sock_submit(s->us, &dst, dport, mh->msg_iov, (int)mh->msg_iovlen,
				     rdsu_clock());
		if (e >= 0) {
			s->sent = true;
			send_flush_locked();
			return e;
		}
		if (e == -EAGAIN && !looked) {
			/* Only a run of the transport looks for acknowledgements
			 * now that a socket waits for room (rdsu_ep_acks_wanted),
			 * and sets its timer to look again soon; until then it
			 * looks every few milliseconds. */
			looked = true;
			pump_locked();
			continue;
		}
		looked = false;
		if (nb || (e != -EAGAIN && e != -ENOBUFS))
			return e;
		if (e == -EAGAIN && deadline < 0) {
			int ms = timeo_ms(s, SO_SNDTIMEO);

			if (ms >= 0)
				deadline = now_ms() + ms;
		}
		sync_sock(s);
		/* rds_sendmsg waits for SNDBUF room with SO_SNDTIMEO, and
		 * rds_cong_wait for the port without a timeout: both fail
		 * with -ERESTARTSYS on a signal, as wait_sock_locked does. */
		e = wait_sock_locked(s, e == -EAGAIN ? POLLOUT : 0, e == -EAGAIN ? deadline : -1);
		if (e < 0)
			return e;
	}
}

static ssize_t send_common(int fd, const struct msghdr *mh, int flags)
{
	struct rdsp_sock *s = get_locked(fd);
	ssize_t n;

	if (!s)
		return set_errno(-EBADF);
	if (s->dm) {
		dm_enter(s);
		n = dm_send(s, fd, mh, flags);
		dm_leave(s);
	} else {
		n = do_send(s, mh, flags);
	}
	put_locked(s);
	return n < 0 ? set_errno((int)n) : n;
}

RDSP_EXPORT ssize_t sendmsg(int fd, const struct msghdr *mh, int flags)
{
	if (!fd_peek(fd))
		return REAL(sendmsg)(fd, mh, flags);
	if (!mh)
		return set_errno(-EFAULT);
	return send_common(fd, mh, flags);
}

RDSP_EXPORT ssize_t sendto(int fd, const void *buf, size_t len, int flags,
			   const struct sockaddr *sa, socklen_t salen)
{
	struct iovec iov = { (void *)buf, len };
	struct msghdr mh = { .msg_name = (void *)sa, .msg_namelen = sa ? salen : 0,
			     .msg_iov = &iov, .msg_iovlen = 1 };

	if (!fd_peek(fd))
		return REAL(sendto)(fd, buf, len, flags, sa, salen);
	return send_common(fd, &mh, flags);
}

RDSP_EXPORT ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	struct iovec iov = { (void *)buf, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (!fd_peek(fd))
		return REAL(send)(fd, buf, len, flags);
	return send_common(fd, &mh, flags);
}

/*
 * write and writev reach rds_sendmsg through sock_write_iter, which adds
 * MSG_EOR to every send on a SOCK_SEQPACKET socket (net/socket.c); RDS
 * takes no flag but MSG_DONTWAIT and MSG_ZEROCOPY, so the kernel answers
 * EOPNOTSUPP whatever the socket's state.
 */
RDSP_EXPORT ssize_t write(int fd, const void *buf, size_t len)
{
	if (!fd_peek(fd))
		return REAL(write)(fd, buf, len);
	return set_errno(-EOPNOTSUPP);
}

RDSP_EXPORT ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
	if (!fd_peek(fd))
		return REAL(writev)(fd, iov, iovcnt);
	if (iovcnt < 0 || iovcnt > IOV_MAX)
		return set_errno(-EINVAL);   /* import_iovec, before the socket */
	return set_errno(-EOPNOTSUPP);
}

/*
 * sendmmsg (net/socket.c __sys_sendmmsg): each message a sendmsg with
 * the call's flags, MSG_BATCH added to all but the last (which RDS
 * refuses: EOPNOTSUPP, so only a one-message call sends), and MSG_EOR
 * taken from the message's own msg_flags; the count sent, or the first
 * error when none was.
 */
RDSP_EXPORT int sendmmsg(int fd, struct mmsghdr *vec, unsigned int vlen, int flags)
{
	unsigned i;

	if (!fd_peek(fd))
		return REAL(sendmmsg)(fd, vec, vlen, flags);
	if (vlen > IOV_MAX)
		vlen = IOV_MAX;   /* UIO_MAXIOV */
	for (i = 0; i < vlen; i++) {
		int f = flags | (vec[i].msg_hdr.msg_flags & MSG_EOR) |
			(i + 1 < vlen ? MSG_BATCH : 0);
		ssize_t n = send_common(fd, &vec[i].msg_hdr, f);

		if (n < 0)
			break;
		vec[i].msg_len = (unsigned)n;
	}
	return i ? (int)i : (vlen ? -1 : 0);
}
