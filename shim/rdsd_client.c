// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rdsd_client.c - a client's connection: accepting it (and checking who
 * it is), its reply channels, reading and carrying out its requests, and
 * freeing everything when its last descriptor closes. The map of the shim
 * is shim/README.md.
 */
#include "rdsd.h"

static struct user *g_users;
static int g_spare = -1;          /* kept to shed a connection at EMFILE */

/* |uid|'s share, made when first seen; NULL when out of memory. */
static struct user *user_get(uid_t uid)
{
	struct user *u;

	for (u = g_users; u; u = u->next)
		if (u->uid == uid)
			return u;
	u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	u->uid = uid;
	u->next = g_users;
	g_users = u;
	return u;
}

/* One more descriptor for |u|. Return: false at its share. */
bool user_take(struct user *u)
{
	if (u->fds >= g_max_user_fds)
		return false;
	u->fds++;
	return true;
}

void user_drop(struct user *u)
{
	struct user **pp;

	if (--u->fds)
		return;
	for (pp = &g_users; *pp != u; pp = &(*pp)->next)
		;
	*pp = u->next;
	free(u);
}

static void chan_close(struct dsock *s, struct chan *c)
{
	if (c->ring)
		ring_free(c);
	close(c->fd);
	free(c);
	s->nchans--;
	user_drop(s->user);
}

struct chan *chan_find(struct dsock *s, uint32_t id)
{
	for (struct chan *c = s->chans; c; c = c->next)
		if (c->id == id)
			return c;
	return NULL;
}

/* One reply on |chan|: |rep|, |len| bytes of |data|, and |nfds|
 * descriptors (SCM_RIGHTS, at most two), which stay ours. */
static void reply_msg(struct dsock *s, uint32_t chan, struct rdsd_rep *rep, const void *data,
		      size_t len, const int *fds, int nfds)
{
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} cbuf;
	struct chan *c = chan_find(s, chan);
	struct iovec iov[2] = { { rep, sizeof(*rep) }, { (void *)data, len } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = data && len ? 2 : 1 };
	struct cmsghdr *cm;

	if (!c)
		return;  /* its process is gone */
	if (nfds > 0 && nfds <= 2) {
		memset(cbuf.buf, 0, sizeof(cbuf.buf));
		mh.msg_control = cbuf.buf;
		mh.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, (size_t)nfds * sizeof(int));
	}
	if (sendmsg(c->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		logf_("reply to channel %u: %s", chan, strerror(errno));
}

void reply_rights(struct dsock *s, uint32_t chan, uint32_t seq, int ret, uint32_t pad,
		  const int *fds, int nfds)
{
	struct rdsd_rep rep = { .seq = seq, .ret = ret, .pad = pad };

	reply_msg(s, chan, &rep, NULL, 0, fds, nfds);
}

void reply(struct dsock *s, uint32_t chan, uint32_t seq, int ret, uint32_t optlen,
	   const void *data, size_t len)
{
	struct rdsd_rep rep = { .seq = seq, .ret = ret, .len = (uint32_t)len, .pad = optlen };

	reply_msg(s, chan, &rep, data, len, NULL, 0);
}

void parked_free(struct parked *p)
{
	free(p->data);
	free(p);
}

void sock_free(struct dsock *s)
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
		(void)rdsu_io_flush(s->ep->io);
	}
	if (s->id.bound)
		s->ep->nsocks--;
	while (s->chans) {
		struct chan *c = s->chans;

		s->chans = c->next;
		chan_close(s, c);
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
	user_drop(s->user);
	free(s);
}

/* accept4, or at rdsd's descriptor limit, one pending connection taken
 * and closed with the spare descriptor so that the listener does not stay
 * readable for nothing. Return: the descriptor, or -1. */
static int accept_or_shed(void)
{
	int fd = accept4(g_lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd >= 0 || (errno != EMFILE && errno != ENFILE))
		return fd;
	if (g_spare >= 0) {
		close(g_spare);
		fd = accept4(g_lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0)
			close(fd);
		logf_("out of descriptors: a connection refused");
	}
	g_spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return -1;
}

/* Who is calling: our own user or root, or anyone under --any-user (an
 * abstract address has no permissions, so this is the check), within its
 * share of descriptors. Return: its share, or NULL (refused). */
static struct user *admit(int fd)
{
	struct ucred cr;
	socklen_t l = sizeof(cr);
	struct user *u;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &l) < 0)
		return NULL;
	if (!g_any_user && cr.uid != getuid() && cr.uid != 0) {
		logf_("connection of uid %d refused", (int)cr.uid);
		return NULL;
	}
	u = user_get(cr.uid);
	if (!u)
		return NULL;
	if (!user_take(u)) {
		logf_("uid %d holds %u descriptors of rdsd (--max-fds): refused",
		      (int)cr.uid, u->fds);
		return NULL;
	}
	return u;
}

void accept_one(void)
{
	struct dsock *s;
	struct stat st;
	struct user *u;
	int fd = accept_or_shed();

	if (g_spare < 0)
		g_spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	u = admit(fd);
	if (!u) {
		close(fd);
		return;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		user_drop(u);
		close(fd);
		return;
	}
	s->user = u;
	s->o.kind = OBJ_SOCK;
	s->fd = fd;
	s->id.ino = fstat(fd, &st) == 0 ? st.st_ino : 0;
	rdsopt_init(&s->opt);
	s->id.sndbuf = s->id.rcvbuf = RDSU_DEFAULT_BUF;
	s->lq_tail = &s->lq;
	s->parked_tail = &s->parked;
	big_sndbuf(fd);
	if (ep_add(fd, s, EPOLLIN) < 0) {
		close(fd);
		free(s);
		user_drop(u);
		return;
	}
	s->next = g_socks;
	g_socks = s;
	g_nsocks++;
	logf_("socket %d opened", fd);
}

/* A reply channel |id| for |s|: one of that id is replaced (a process
 * sends its channel once per socket); past RDSD_MAX_CHANS or the user's
 * share the new one is closed, and its process sees its calls fail. */
static void new_chan(struct dsock *s, uint32_t id, int fd)
{
	struct chan *c, *old = chan_find(s, id);

	if (old)
		chan_gone(old);
	if (s->nchans >= RDSD_MAX_CHANS || !user_take(s->user)) {
		logf_("socket %d: channel refused (%u channels)", s->fd, s->nchans);
		close(fd);
		return;
	}
	s->nchans++;
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(fd);
		s->nchans--;
		user_drop(s->user);
		return;
	}
	c->o.kind = OBJ_CHAN;
	c->fd = fd;
	c->id = id;
	c->s = s;
	big_sndbuf(fd);
	if (ep_add(fd, c, EPOLLIN) < 0) {  /* only to see it close */
		chan_close(s, c);
		return;
	}
	c->next = s->chans;
	s->chans = c;
}

void chan_gone(struct chan *c)
{
	struct dsock *s = c->s;

	/* what its process published in its ring before it went is sent,
	 * as the kernel sends what a process queued before it exited */
	ring_drain_chan(s, c);
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
	chan_close(s, c);
}

/* The descriptor a request carries (a channel), or -1; any more that
 * came with it (the control buffer holds two) are closed, not kept. */
static int rights_taken(struct msghdr *mh)
{
	int fd = -1;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		size_t n;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
		    c->cmsg_len < CMSG_LEN(0))
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int one;

			memcpy(&one, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (fd < 0)
				fd = one;
			else
				close(one);
		}
	}
	return fd;
}

/* Read and carry out |s|'s requests. Return: false when it closed. */
bool sock_input(struct dsock *s)
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
		enum rdsd_decode d;
		const uint8_t *pl;
		size_t plen;
		int fd = -1, r;

		if (n == 0) {
			ring_drain(s);   /* what was sent before the close */
			return false;
		}
		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		/* a request comes after every send its process put in its ring
		 * before it: those go first (ring_drain, rdsd_shm.c) */
		ring_drain(s);
		fd = rights_taken(&mh);
		d = (mh.msg_flags & MSG_TRUNC) ? RDSD_DECODE_TRUNCATED
						: rdsd_req_decode(g_buf, (size_t)n, &q, &pl, &plen);
		if (d != RDSD_DECODE_OK) {
			if (fd >= 0)
				close(fd);
			if (d == RDSD_DECODE_MALFORMED)
				reply(s, q.chan, q.seq, -EINVAL, 0, NULL, 0);
			continue;
		}
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
				s->id.connected = false;
			} else {
				memcpy(s->id.caddr.a, q.addr, 16);
				s->id.cport = q.port;
				s->id.connected = true;
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
		case RDSD_OP_RING:
			ring_open(s, &q);
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
