// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rdsd_client.c - a client's connection: accepting it (and checking who
 * it is), its reply channels, reading and carrying out its requests, and
 * freeing everything when its last descriptor closes. The map of the shim
 * is shim/README.md.
 */
#include "rdsd.h"

static struct chan *chan_find(struct dsock *s, uint32_t id)
{
	for (struct chan *c = s->chans; c; c = c->next)
		if (c->id == id)
			return c;
	return NULL;
}

void reply(struct dsock *s, uint32_t chan, uint32_t seq, int ret, uint32_t optlen,
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

void accept_one(void)
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

void chan_gone(struct chan *c)
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
