// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * preload_send.c - librds-preload.so: sending (net/rds/send.c
 * rds_sendmsg): sendmsg, sendto, send and write on an RDS socket, through
 * librds or rdsd. The map of the shim is shim/README.md.
 */
#include "preload.h"

/*
 * The send's SOL_RDS cmsgs through rdsd: decoded and checked as the kernel
 * checks them (rdscmsg.c); then RDMA_DEST names no region of ours
 * (-EINVAL, rds_cmsg_rdma_dest), a zero-copy cookie without a zero-copy
 * send is -EINVAL (rds_cmsg_zcopy, as do_send), a misaligned atomic result -EFAULT
 * (rds_cmsg_atomic), and RDMA, atomics and MAP are -EOPNOTSUPP: rdsd
 * cannot reach the client's memory (docs/shim.md, "Known differences
 * with rdsd"), which is also the kernel's answer on a TCP socket.
 * Others' cmsgs are ignored.
 */
static int dm_send_cmsgs(const struct msghdr *mh, int flags, bool zc, size_t total,
			 uint32_t *zcookie)
{
	struct rdscmsg c;
	int e = rdscmsg_parse(mh->msg_control, mh->msg_controllen, &c);

	if (e < 0)
		return e;
	/* rds_rm_size, rds_cmsg_zcopy, as do_send */
	if (((flags & MSG_ZEROCOPY) && !c.zcopy) || (c.zcopy && (!zc || !total || c.zcopy_short)))
		return -EINVAL;
	*zcookie = c.zcookie;
	if (c.type == RDS_CMSG_RDMA_DEST)
		return -EINVAL;
	if (c.type >= RDS_CMSG_ATOMIC_FADD && c.type <= RDS_CMSG_MASKED_ATOMIC_CSWP &&
	    (c.atomic.local_addr & 7))
		return -EFAULT;
	return c.n_ops ? -EOPNOTSUPP : 0;
}

/* An RDMA_ARGS's local vector, read from the application's memory as
 * copy_from_user would: a bad address is -EFAULT, not a crash. */
static int local_vec(const struct rds_rdma_args *a, struct iovec **out)
{
	size_t n = (size_t)a->nr_local;
	struct rds_iovec *rv = calloc(n, sizeof(*rv));
	struct iovec *iv = calloc(n, sizeof(*iv));
	struct iovec l, r;
	int e = 0;

	if (!rv || !iv) {
		e = -ENOMEM;
		goto out;
	}
	l = (struct iovec){ rv, n * sizeof(*rv) };
	r = (struct iovec){ (void *)(uintptr_t)a->local_vec_addr, n * sizeof(*rv) };
	if (process_vm_readv(getpid(), &l, 1, &r, 1, 0) != (ssize_t)(n * sizeof(*rv))) {
		e = -EFAULT;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		iv[i] = (struct iovec){ (void *)(uintptr_t)rv[i].addr, (size_t)rv[i].bytes };
out:
	free(rv);
	if (e < 0)
		free(iv);
	else
		*out = iv;
	return e;
}

/* Is the u64 at |p| writable? Written with its own value by
 * process_vm_writev, so a bad address is -EFAULT and nothing changes. */
static int self_write_probe(uint64_t *p)
{
	uint64_t v;
	struct iovec l = { &v, sizeof(v) }, r = { p, sizeof(v) };

	if (process_vm_readv(getpid(), &l, 1, &r, 1, 0) != (ssize_t)sizeof(v) ||
	    process_vm_writev(getpid(), &l, 1, &r, 1, 0) != (ssize_t)sizeof(v))
		return -EFAULT;
	return 0;
}

/*
 * The send's cmsgs as librds's operation (rdsu_op, docs/librds.md
 * "RDMA"); |ib|: the socket's transport is IB. Return: 0 and *has_op;
 * the kernel's error for the cmsgs (rdscmsg.h); -EFAULT for a bad local
 * vector or, on IB, a MAP's cookie_addr; *cm the cmsgs as decoded (the zero-copy cookie);
 * -EOPNOTSUPP for an RDMA and an atomic in one message, which librds
 * does not take. *lv (freed by the caller) holds an RDMA's local vector.
 */
static int op_of_cmsgs(const struct msghdr *mh, bool ib, struct rdsu_op *op, bool *has_op,
		       struct iovec **lv, struct rdscmsg *cm)
{
	struct rdscmsg c;
	int e = rdscmsg_parse(mh->msg_control, mh->msg_controllen, &c);

	*has_op = false;
	*lv = NULL;
	memset(op, 0, sizeof(*op));
	*cm = c;
	if (e < 0)
		return e;
	if (!c.n_ops)
		return 0;
	if (c.n_ops > 1)
		return -EOPNOTSUPP;
	*has_op = true;
	switch (c.type) {
	case RDS_CMSG_RDMA_ARGS:
		op->kind = RDSU_OP_RDMA;
		op->cookie = c.rdma.cookie;
		op->remote_addr = c.rdma.remote_vec.addr;
		op->remote_len = c.rdma.remote_vec.bytes;
		op->flags = (unsigned)c.rdma.flags;
		op->user_token = c.rdma.user_token;
		op->nr_local = (int)c.rdma.nr_local;
		e = local_vec(&c.rdma, lv);
		op->local = *lv;
		return e;
	case RDS_CMSG_RDMA_DEST:
		op->kind = RDSU_OP_DEST;
		op->cookie = c.dest_cookie;
		return 0;
	case RDS_CMSG_RDMA_MAP:
		op->kind = RDSU_OP_MAP;
		op->map_addr = (void *)(uintptr_t)c.map.vec.addr;
		op->map_len = c.map.vec.bytes;
		op->flags = (unsigned)c.map.flags;
		/* librds writes the cookie to *map_cookie; on IB it must be
		 * writable, as put_user finds it (__rds_rdma_map; on TCP
		 * its EOPNOTSUPP comes first) */
		op->map_cookie = (uint64_t *)(uintptr_t)c.map.cookie_addr;
		return op->map_cookie && ib ? self_write_probe(op->map_cookie) : 0;
	default:                          /* the four atomics */
		op->kind = c.type == RDS_CMSG_ATOMIC_FADD || c.type == RDS_CMSG_MASKED_ATOMIC_FADD
				   ? RDSU_OP_FADD : RDSU_OP_CSWP;
		op->masked = c.type == RDS_CMSG_MASKED_ATOMIC_FADD ||
			     c.type == RDS_CMSG_MASKED_ATOMIC_CSWP;
		op->cookie = c.atomic.cookie;
		op->remote_addr = c.atomic.remote_addr;
		op->result = (uint64_t *)(uintptr_t)c.atomic.local_addr;
		op->flags = (unsigned)c.atomic.flags;
		op->user_token = c.atomic.user_token;
		if (op->kind == RDSU_OP_FADD) {
			op->add = c.atomic.m_fadd.add;
			op->nocarry_mask = op->masked ? c.atomic.m_fadd.nocarry_mask : 0;
		} else {
			op->compare = c.atomic.m_cswp.compare;
			op->swap = c.atomic.m_cswp.swap;
			op->compare_mask = op->masked ? c.atomic.m_cswp.compare_mask : ~0ull;
			op->swap_mask = op->masked ? c.atomic.m_cswp.swap_mask : ~0ull;
		}
		return 0;
	}
}

/* |zc| (MSG_ZEROCOPY with SO_ZEROCOPY): *zcookie is its cookie, queued
 * by the caller once the send succeeded. */
static ssize_t dm_send(struct rdsp_sock *s, int fd, const struct msghdr *mh, int flags, bool zc,
		       uint32_t *zcookie)
{
	struct rdsd_req q = { .op = RDSD_OP_SEND };
	size_t total = 0;
	int e;

	/* rds_sendmsg: MSG_NOSIGNAL too is refused */
	if (flags & ~(MSG_DONTWAIT | MSG_ZEROCOPY))
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
		return dm_notconn_or(s, fd, q.family != 0, -EMSGSIZE);
	if (zc) {
		/* rds_sendmsg: TCP's only, looked at after ENOTCONN (an
		 * unbound socket's transport is RDSU_TRANS_NONE, -1: no error) */
		e = dm_transport(s, fd);
		if (e != RDSU_TRANS_TCP)
			return dm_notconn_or(s, fd, q.family != 0,
					     e < 0 && e != (int)RDSU_TRANS_NONE ? e : -EOPNOTSUPP);
	}
	e = dm_send_cmsgs(mh, flags, zc, total, zcookie);
	if (e)
		return dm_notconn_or(s, fd, q.family != 0, e);
	if (s->ok_valid && s->chan >= 0 && total <= s->credit && q.family == s->ok.family &&
	    q.port == s->ok.port && !memcmp(q.addr, s->ok.addr, sizeof(q.addr))) {
		struct iovec iov[IOV_MAX + 1];
		struct msghdr m = { .msg_iov = iov, .msg_iovlen = mh->msg_iovlen + 1 };

		q.arg = RDSD_SEND_NOREPLY;
		q.chan = s->chan_id;
		if (dm_ring_put(s, fd, &q, mh, total) == 0) {
			s->credit -= (uint32_t)total;
			return (ssize_t)total;
		}
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
	bool nb, looked = false, has_op, zc;
	struct rdsu_op op;
	struct rdscmsg cm;
	struct iovec *lv = NULL;
	int e;

	if (flags & ~(MSG_DONTWAIT | MSG_ZEROCOPY))
		return -EOPNOTSUPP;
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
	/* rds_sendmsg: zero-copy is SO_ZEROCOPY's and TCP's only (K7.9) */
	zc = (flags & MSG_ZEROCOPY) && s->opt.zerocopy;
	if (zc && rdsu_sock_get_transport(s->us) != RDSU_TRANS_TCP)
		return -EOPNOTSUPP;
	e = op_of_cmsgs(mh, rdsu_sock_get_transport(s->us) == RDSU_TRANS_IB, &op, &has_op, &lv,
			&cm);
	/* rds_rm_size: MSG_ZEROCOPY wants a cookie; rds_cmsg_zcopy: a
	 * cookie wants a zero-copy send with a payload, and a whole u32 */
	if (e == 0 && (((flags & MSG_ZEROCOPY) && !cm.zcopy) ||
		       (cm.zcopy && (!zc || !total || cm.zcopy_short))))
		e = -EINVAL;
	if (e < 0) {
		free(lv);
		return e;
	}
	nb = nonblocking(s, flags);
	for (;;) {
		if (zc)
			e = rdsu_sock_submit_zc(s->us, &dst, dport, mh->msg_iov, (int)mh->msg_iovlen,
						has_op ? &op : NULL, cm.zcookie, rdsu_clock());
		else
			e = has_op ? rdsu_sock_submit_op(s->us, &dst, dport, mh->msg_iov,
							 (int)mh->msg_iovlen, &op, rdsu_clock())
				   : rdsu_sock_submit(s->us, &dst, dport, mh->msg_iov,
						      (int)mh->msg_iovlen, rdsu_clock());
		if (e >= 0) {
			s->sent = true;
			send_flush_locked();
			free(lv);
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
		if (nb || (e != -EAGAIN && e != -ENOBUFS)) {
			free(lv);
			return e;
		}
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
		if (e < 0) {
			free(lv);
			return e;
		}
	}
}

/* An rdsd socket's zero-copy send left this process: its buffer is free
 * (the bytes are in rdsd's connection), so its cookie is queued now. */
static void dm_zc_sent_locked(struct rdsp_sock *s, uint32_t cookie)
{
	if (!s->zq.ring) {
		s->zq.ring = calloc(RDSU_ZC_MAX, sizeof(*s->zq.ring));
		if (!s->zq.ring)
			return;
		s->zq.cap = RDSU_ZC_MAX;
	}
	(void)rdsu_zcq_add(&s->zq, cookie);
}

static ssize_t send_once(int fd, const struct msghdr *mh, int flags)
{
	struct rdsp_sock *s = get_locked(fd);
	ssize_t n;

	if (!s)
		return -EBADF;
	if (s->dm) {
		bool zc = (flags & MSG_ZEROCOPY) && s->opt.zerocopy;
		uint32_t cookie = 0;

		/* the notices' bound (RDSU_ZC_MAX), as per process */
		if (zc && s->zq.n >= RDSU_ZC_MAX) {
			put_locked(s);
			return -ENOMEM;
		}
		dm_enter(s);
		n = dm_send(s, fd, mh, flags, zc, &cookie);
		dm_leave(s);
		if (n >= 0 && zc)
			dm_zc_sent_locked(s, cookie);
	} else {
		n = do_send(s, mh, flags);
	}
	put_locked(s);
	return n;
}

/* One send; made again through rdsd when the socket moved there while it
 * waited (preload_share.c). */
static ssize_t send_common(int fd, const struct msghdr *mh, int flags)
{
	ssize_t n;

	while ((n = send_once(fd, mh, flags)) == RDSP_MOVED)
		;
	return n < 0 ? set_errno((int)n) : n;
}

RDSP_EXPORT ssize_t sendmsg(int fd, const struct msghdr *mh, int flags)
{
	if (!fd_peek(fd)) {
		/* a socket of ours sent to another process moves to rdsd */
		share_before_rights(mh);
		return REAL(sendmsg)(fd, mh, flags);
	}
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

	if (!fd_peek(fd)) {
		for (i = 0; vec && i < vlen && i < IOV_MAX; i++)
			share_before_rights(&vec[i].msg_hdr);
		return REAL(sendmmsg)(fd, vec, vlen, flags);
	}
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
