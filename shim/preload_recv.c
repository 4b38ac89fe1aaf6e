// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * preload_recv.c - librds-preload.so: receiving (net/rds/recv.c
 * rds_recvmsg): recvmsg, recvfrom, recv and read on an RDS socket,
 * through librds or rdsd, and the rdsd sockets that arrive over
 * SCM_RIGHTS. The map of the shim is shim/README.md.
 */
#include "preload.h"

/* rds_notify_cong's message: no address, the congestion mask as one
 * RDS_CMSG_CONG_UPDATE if |cap| bytes of control room hold it. */
static void cong_msg_out(struct msghdr *mh, size_t cap, uint64_t mask)
{
	mh->msg_namelen = 0;
	if (cap >= CMSG_SPACE(sizeof(uint64_t))) {
		struct cmsghdr *c = mh->msg_control;

		c->cmsg_level = SOL_RDS;
		c->cmsg_type = RDS_CMSG_CONG_UPDATE;
		c->cmsg_len = CMSG_LEN(sizeof(uint64_t));
		memcpy(CMSG_DATA(c), &mask, sizeof(uint64_t));
		mh->msg_controllen = CMSG_SPACE(sizeof(uint64_t));
	} else {
		mh->msg_flags |= MSG_CTRUNC;
	}
}

/* Append one SOL_RDS cmsg of |len| bytes at |v| to what |mh| holds, if
 * the |cap| bytes of control room take it; else MSG_CTRUNC, as put_cmsg. */
static void cmsg_put(struct msghdr *mh, size_t cap, int type, const void *v, size_t len)
{
	if (cap - mh->msg_controllen >= CMSG_SPACE(len) && cap >= mh->msg_controllen) {
		struct cmsghdr *c = (struct cmsghdr *)((char *)mh->msg_control + mh->msg_controllen);

		c->cmsg_level = SOL_RDS;
		c->cmsg_type = type;
		c->cmsg_len = CMSG_LEN(len);
		memcpy(CMSG_DATA(c), v, len);
		mh->msg_controllen += CMSG_SPACE(len);
	} else {
		mh->msg_flags |= MSG_CTRUNC;
	}
}

/* rds_notify_queue_get: pending notifications, and nothing else, as
 * many RDS_CMSG_RDMA_STATUS as the control room holds (at least one,
 * which without room is lost with MSG_CTRUNC, as the kernel loses it).
 * Return: 1 if there was one (the recvmsg answers 0), else 0. */
static int notify_out(struct rdsp_sock *s, struct msghdr *mh)
{
	size_t cap = mh->msg_control ? mh->msg_controllen : 0;
	size_t max = cap / CMSG_SPACE(sizeof(struct rds_rdma_notify));
	struct rdsu_notify n;
	size_t count = 0;

	if (!s->us || rdsu_sock_next_notify(s->us, &n) != 1)
		return 0;
	mh->msg_flags = 0;
	mh->msg_controllen = 0;
	mh->msg_namelen = 0;
	if (max == 0)
		max = 1;
	do {
		struct rds_rdma_notify k = { .user_token = n.user_token, .status = n.status };

		cmsg_put(mh, cap, RDS_CMSG_RDMA_STATUS, &k, sizeof(k));
	} while (++count < max && rdsu_sock_next_notify(s->us, &n) == 1);
	return 1;
}

/* CLOCK_REALTIME less rdsu_clock(): a stamp's wall time */
static int64_t real_off(void)
{
	struct timespec r;

	clock_gettime(CLOCK_REALTIME, &r);
	return (int64_t)r.tv_sec * 1000000000 + r.tv_nsec - (int64_t)rdsu_clock();
}

static ssize_t dm_recv(struct rdsp_sock *s, int fd, struct msghdr *mh, int flags, bool nb,
		       bool *is_msg)
{
	struct iovec iov[IOV_MAX + 1];
	struct rdsd_rx rx;
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = mh->msg_iovlen + 1 };
	size_t cap = mh->msg_control ? mh->msg_controllen : 0;
	ssize_t n;

	iov[0] = (struct iovec){ &rx, sizeof(rx) };
	for (size_t i = 0; i < mh->msg_iovlen; i++)
		iov[i + 1] = mh->msg_iov[i];
	n = REAL(recvmsg)(fd, &m, flags & (MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT));
	if (n < 0) {
		if (errno == EAGAIN && !nb)
			return -ETIMEDOUT;   /* SO_RCVTIMEO ran out: rds_recvmsg's answer */
		return -errno;
	}
	if ((size_t)n < sizeof(rx))
		return -ENOTCONN;        /* rdsd is gone: as every call on it answers */
	n -= (ssize_t)sizeof(rx);
	mh->msg_flags = m.msg_flags & MSG_TRUNC;
	mh->msg_controllen = 0;
	if (rx.kind == RDSD_RX_CONG) {
		mh->msg_flags = 0;
		cong_msg_out(mh, cap, rx.cong);
		return 0;
	}
	*is_msg = true;
	if (mh->msg_name) {
		struct sockaddr_storage ss;
		struct rdsu_addr a;
		socklen_t klen;

		memcpy(a.a, rx.addr, 16);
		klen = rdsu_sockaddr(&a, rx.port, &ss);
		addr_out(&ss, klen, mh->msg_name, &mh->msg_namelen);
	}
	{
		/* rds_cmsg_recv's stamp and trace, from rdsd's times */
		struct rdsu_rx_times t = { (rdsu_ns)rx.hdr, (rdsu_ns)rx.start, (rdsu_ns)rx.queued };
		size_t used = 0;
		bool ctrunc = false;

		rdsopt_rx_cmsgs(&s->opt, rx.queued ? &t : NULL, rdsu_clock(), real_off(),
				mh->msg_control, cap, &used, &ctrunc);
		mh->msg_controllen = used;
		if (ctrunc)
			mh->msg_flags |= MSG_CTRUNC;
	}
	return n;
}

/* The first zero-copy notice: librds's (per process) or this process's
 * (rdsd). Return: 1 and *out; 0 if none. */
int zc_take_locked(struct rdsp_sock *s, struct rdsu_zc_notice *out)
{
	if (s->dm)
		return s->zq.ring ? rdsu_zcq_take(&s->zq, out) : 0;
	return s->us ? rdsu_sock_next_zc(s->us, out) : 0;
}

/* rds_recvmsg_zcookie after a message's cmsgs: a notice if one waits and
 * fits in what is left of the |cap| bytes. */
static void zc_after_msg_locked(struct rdsp_sock *s, struct msghdr *mh, size_t cap)
{
	size_t used = mh->msg_controllen;
	struct rdsu_zc_notice zc;

	if (mh->msg_control && rdsopt_zc_fits(&s->opt, cap, used) && zc_take_locked(s, &zc) == 1) {
		rdsopt_zc_cmsg(&zc, mh->msg_control, cap, &used);
		mh->msg_controllen = used;
	}
}

/* After a message: rds_cmsg_recv's stamp and latency trace, then
 * rds_recvmsg_zcookie's completion (K7.9, K7.10). */
static void rx_cmsgs_out(struct rdsp_sock *s, struct msghdr *mh, size_t cap,
			 const struct rdsu_rx_times *t)
{
	size_t used = mh->msg_controllen;
	bool ctrunc = false;

	rdsopt_rx_cmsgs(&s->opt, t, rdsu_clock(), real_off(), mh->msg_control, cap, &used,
			&ctrunc);
	mh->msg_controllen = used;
	if (ctrunc)
		mh->msg_flags |= MSG_CTRUNC;
	zc_after_msg_locked(s, mh, cap);
}

/* rds_recvmsg with nothing queued and MSG_DONTWAIT: a completion alone,
 * no address, returns 0 (rds_recvmsg_zcookie). Return: 1 if given. */
static int zc_alone_out(struct rdsp_sock *s, struct msghdr *mh)
{
	size_t cap = mh->msg_control ? mh->msg_controllen : 0;
	size_t used = 0;
	struct rdsu_zc_notice zc;

	if (!mh->msg_control || !rdsopt_zc_fits(&s->opt, cap, 0) || zc_take_locked(s, &zc) != 1)
		return 0;
	mh->msg_flags = 0;
	mh->msg_namelen = 0;
	rdsopt_zc_cmsg(&zc, mh->msg_control, cap, &used);
	mh->msg_controllen = used;
	return 1;
}

/* rds_recvmsg with MSG_OOB returns 0 before it looks at the queue, and
 * ____sys_recvmsg (net/socket.c) writes back what it got: no name, no
 * flags, no cmsg (docs/kernel-behaviour.md, "recvmsg with MSG_OOB");
 * the name's length only where there is a name.
 * Return: 0, the recvmsg's answer. */
static ssize_t oob_out(struct msghdr *mh)
{
	mh->msg_flags = 0;
	mh->msg_controllen = 0;
	if (mh->msg_name)
		mh->msg_namelen = 0;
	return 0;
}

static ssize_t do_recv(struct rdsp_sock *s, struct msghdr *mh, int flags)
{
	int64_t deadline = -1;
	bool nb;
	ssize_t n;

	if (flags & MSG_OOB)
		return oob_out(mh);
	if (flags & MSG_ERRQUEUE)
		return -EAGAIN;     /* nothing ever reaches the error queue */
	if (mh->msg_iovlen > IOV_MAX)
		return -EMSGSIZE;
	if (g_child)
		return -EBADF;
	nb = nonblocking(s, flags);
	for (;;) {
		struct rdsu_rxinfo info;
		struct rdsu_rx_times t;
		bool have_t;
		int e;

		s->once_in = false;
		if (notify_out(s, mh)) {
			sync_sock(s);
			return 0;
		}
		have_t = s->us && rdsu_sock_rx_times(s->us, &t) == 1;
		n = s->us ? rdsu_sock_read(s->us, mh->msg_iov, (int)mh->msg_iovlen,
					   (flags & MSG_PEEK) ? RDSU_READ_PEEK : 0, &info,
					   rdsu_clock())
			  : -EAGAIN;
		if (n >= 0) {
			size_t cap = mh->msg_control ? mh->msg_controllen : 0;

			mh->msg_flags = 0;
			mh->msg_controllen = 0;
			if (info.cong) {
				cong_msg_out(mh, cap, info.cong_mask);
				n = 0;
			} else {
				if (mh->msg_name) {
					struct sockaddr_storage ss;
					socklen_t klen = rdsu_sockaddr(&info.from, info.sport, &ss);

					addr_out(&ss, klen, mh->msg_name, &mh->msg_namelen);
				}
				/* rds_cmsg_recv: the peer's RDMA_DEST cookie */
				if (info.has_cookie)
					cmsg_put(mh, cap, RDS_CMSG_RDMA_DEST, &info.cookie,
						 sizeof(info.cookie));
				rx_cmsgs_out(s, mh, cap, have_t ? &t : NULL);
				if (info.trunc) {
					mh->msg_flags |= MSG_TRUNC;
					if (flags & MSG_TRUNC)
						n = (ssize_t)info.len;
				}
			}
			/* A read can free the port: its map must leave now. */
			if (!(flags & MSG_PEEK))
				flush_locked();
			else
				sync_sock(s);
			return n;
		}
		if (n == -EAGAIN && nb && zc_alone_out(s, mh))
			n = 0;
		sync_sock(s);
		if (n != -EAGAIN || nb)
			return n;
		if (deadline < 0) {
			int ms = timeo_ms(s, SO_RCVTIMEO);

			if (ms >= 0)
				deadline = now_ms() + ms;
		}
		/* rds_recvmsg: wait_event_interruptible_timeout, -ERESTARTSYS
		 * on a signal whether SO_RCVTIMEO is set or not. */
		e = wait_sock_locked(s, POLLIN, deadline);
		if (e < 0)
			return e;
	}
}

static ssize_t recv_once(int fd, struct msghdr *mh, int flags)
{
	struct rdsp_sock *s = get_locked(fd);
	ssize_t n;

	if (!s)
		return -EBADF;
	if (s->dm) {
		int fl = REAL(fcntl)(fd, F_GETFL);
		bool nb = (flags & MSG_DONTWAIT) || (fl >= 0 && (fl & O_NONBLOCK));

		if (flags & MSG_OOB) {
			n = oob_out(mh);
		} else if (flags & MSG_ERRQUEUE) {
			n = -EAGAIN;
		} else if (mh->msg_iovlen > IOV_MAX) {
			n = -EMSGSIZE;
		} else {
			size_t cap = mh->msg_control ? mh->msg_controllen : 0;
			bool is_msg = false;

			pthread_mutex_unlock(&g_lock);
			n = dm_recv(s, fd, mh, flags, nb, &is_msg);
			pthread_mutex_lock(&g_lock);
			/* this process's zero-copy notices (rds_recvmsg_zcookie) */
			if (n >= 0 && is_msg)
				zc_after_msg_locked(s, mh, cap);
			else if (n == -EAGAIN && nb && zc_alone_out(s, mh))
				n = 0;
		}
	} else {
		n = do_recv(s, mh, flags);
	}

	put_locked(s);
	return n;
}

/* One receive; made again when the socket moved to rdsd while it waited
 * (preload_share.c). */
static ssize_t recv_common(int fd, struct msghdr *mh, int flags)
{
	ssize_t n;

	while ((n = recv_once(fd, mh, flags)) == RDSP_MOVED)
		;
	return n < 0 ? set_errno((int)n) : n;
}

/* Descriptors of rdsd's sockets that come over SCM_RIGHTS are sockets. */
static void adopt_rights(const struct msghdr *mh)
{
	if (!mh->msg_control || mh->msg_controllen == 0 || dm_mode() == DM_OFF)
		return;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR((struct msghdr *)mh, c)) {
		size_t n;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			dm_adopt(fd);
		}
	}
}

RDSP_EXPORT ssize_t recvmsg(int fd, struct msghdr *mh, int flags)
{
	if (!fd_peek(fd)) {
		ssize_t n = REAL(recvmsg)(fd, mh, flags);

		if (n >= 0 && mh)
			adopt_rights(mh);
		return n;
	}
	if (!mh)
		return set_errno(-EFAULT);
	return recv_common(fd, mh, flags);
}

RDSP_EXPORT ssize_t recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *sa,
			     socklen_t *salen)
{
	struct iovec iov = { buf, len };
	struct msghdr mh = { .msg_name = (sa && salen) ? sa : NULL,
			     .msg_namelen = (sa && salen) ? *salen : 0,
			     .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (!fd_peek(fd))
		return REAL(recvfrom)(fd, buf, len, flags, sa, salen);
	n = recv_common(fd, &mh, flags);
	if (n >= 0 && sa && salen)
		*salen = mh.msg_namelen;
	return n;
}

RDSP_EXPORT ssize_t recv(int fd, void *buf, size_t len, int flags)
{
	struct iovec iov = { buf, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (!fd_peek(fd))
		return REAL(recv)(fd, buf, len, flags);
	return recv_common(fd, &mh, flags);
}

/* read and readv: sock_read_iter (net/socket.c): 0 for no room at all,
 * without looking at the socket; otherwise a recvmsg, MSG_DONTWAIT when
 * the descriptor is non-blocking. */
RDSP_EXPORT ssize_t read(int fd, void *buf, size_t len)
{
	struct iovec iov = { buf, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (!fd_peek(fd))
		return REAL(read)(fd, buf, len);
	if (len == 0)
		return 0;
	return recv_common(fd, &mh, 0);
}

RDSP_EXPORT ssize_t readv(int fd, const struct iovec *iov, int iovcnt)
{
	struct msghdr mh = { .msg_iov = (struct iovec *)iov, .msg_iovlen = (size_t)iovcnt };
	size_t total = 0;

	if (!fd_peek(fd))
		return REAL(readv)(fd, iov, iovcnt);
	if (iovcnt < 0 || iovcnt > IOV_MAX)
		return set_errno(-EINVAL);
	for (int i = 0; i < iovcnt; i++)
		total += iov[i].iov_len;
	if (total == 0)
		return 0;
	return recv_common(fd, &mh, 0);
}

/*
 * recvmmsg (net/socket.c do_recvmmsg): a recvmsg per entry with the
 * call's flags; MSG_WAITFORONE makes every one after the first
 * non-blocking; the timeout is looked at only between messages (a
 * blocking recvmsg waits as long as it waits) and what is left of it is
 * written back. The count received, or the first error when none was; an
 * error other than EAGAIN after some messages is kept (sk_err) and
 * answered by the next recvmmsg.
 */
RDSP_EXPORT int recvmmsg(int fd, struct mmsghdr *vec, unsigned int vlen, int flags,
			 struct timespec *timeout)
{
	struct rdsp_sock *s;
	struct timespec end = { 0 };
	unsigned i;
	int err = 0;

	if (!fd_peek(fd))
		return REAL(recvmmsg)(fd, vec, vlen, flags, timeout);
	if (timeout) {
		if (timeout->tv_sec < 0 || timeout->tv_nsec < 0 || timeout->tv_nsec >= 1000000000)
			return set_errno(-EINVAL);
		end = mono_after(timeout);
	}
	if (!(flags & MSG_ERRQUEUE)) {
		s = get_locked(fd);
		if (!s)
			return set_errno(-EBADF);
		err = s->sk_err;
		s->sk_err = 0;
		put_locked(s);
		if (err)
			return set_errno(-err);
	}
	for (i = 0; i < vlen; i++) {
		ssize_t n = recv_common(fd, &vec[i].msg_hdr, flags & ~MSG_WAITFORONE);

		if (n < 0) {
			err = errno;
			break;
		}
		vec[i].msg_len = (unsigned)n;
		if (flags & MSG_WAITFORONE)
			flags |= MSG_DONTWAIT;
		if (timeout) {
			*timeout = mono_left(&end);
			if (timeout->tv_sec == 0 && timeout->tv_nsec == 0) {
				i++;
				break;
			}
		}
	}
	if (i == 0 && err)
		return set_errno(-err);
	if (err && err != EAGAIN) {
		s = get_locked(fd);
		if (s) {
			s->sk_err = err;
			put_locked(s);
		}
	}
	return (int)i;
}
