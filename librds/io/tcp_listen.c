// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * tcp_listen.c - listeners on port 16385 of each local address, accepting
 * into the core's slots, and links the core holds for a slot. Ref:
 * net/rds/tcp_listen.c rds_tcp_listen_init(), rds_tcp_accept_one().
 */
#define _GNU_SOURCE
#include "tcp.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

int rdsu_tcp_listen(struct rdsu_transport *tr, const struct rdsu_addr *a)
{
	struct rdsu_tcp *t = tcp_of(tr);
	struct sockaddr_storage ss;
	socklen_t len = rdsu_sockaddr(a, t->cfg.listen_port, &ss);
	int one = 1, err, fd;
	struct tsock *s;

	if (t->cfg.no_listen)
		return 0;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (ss.ss_family == AF_INET6)
		(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	/* Accepted sockets inherit the listener's key. */
	err = rdsu_tcp_auth_set(&t->cfg, fd, ss.ss_family);
	if (err) {
		t->st.auth_failed++;
		close(fd);
		return err;
	}
	/* rds_tcp_listen_init: backlog 64. */
	if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 64) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		close(fd);
		return -ENOMEM;
	}
	s->kind = TS_LISTEN;
	s->src.fd = fd;
	s->laddr = *a;
	err = rdsu_tcp_watch(t, s, EPOLLIN, EPOLL_CTL_ADD);
	if (err < 0) {
		close(fd);
		free(s);
		return err;
	}
	t->listen[t->n_listen++] = s;
	return 0;
}

/* The process ran out of descriptors (or the kernel of memory) with a
 * connection waiting: a level-triggered listener would stay readable and
 * every round would fail the same accept (18,177 calls in 3 s were seen).
 * Every listener leaves the epoll set's EPOLLIN until the rest ends; the
 * connections wait in the kernel's backlog meanwhile, and established
 * links, which need no new descriptor, are served as before. */
static void accept_rest(struct rdsu_tcp *t, rdsu_ns now)
{
	t->accept_backoff = t->accept_backoff ? t->accept_backoff * 2 : 10 * RDSU_MSEC;
	if (t->accept_backoff > 200 * RDSU_MSEC)
		t->accept_backoff = 200 * RDSU_MSEC;
	t->accept_rest = now + t->accept_backoff;
	t->st.accept_paused = 1;
	for (unsigned i = 0; i < t->n_listen; i++)
		(void)rdsu_tcp_watch(t, t->listen[i], 0, EPOLL_CTL_MOD);
}

void rdsu_tcp_accept_resume(struct rdsu_tcp *t)
{
	t->accept_rest = RDSU_NS_NEVER;
	t->st.accept_paused = 0;
	for (unsigned i = 0; i < t->n_listen; i++)
		(void)rdsu_tcp_watch(t, t->listen[i], EPOLLIN, EPOLL_CTL_MOD);
}

/* Whether the peer has reset or closed |l|: what it holds is all it will
 * ever bring. */
static bool link_ended(const struct tsock *l)
{
	struct pollfd p = { .fd = l->src.fd, .events = POLLIN | POLLRDHUP };

	return poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

/*
 * Before a new connection from |faddr| is filed: read each of the peer's
 * path links that the peer has already ended to its end, so that the
 * core frees its slot first, and do the same for the held links that
 * then take those slots. The peer reconnects a path only after its old
 * connection died, so by the time we accept the new one the old one's
 * reset is in its socket, but our reads of it wait their turn in the
 * epoll rounds; under load a path's connections piled up behind a slot
 * still draining, each held, until the stash was full and the next one
 * was refused with messages TCP had acknowledged in it: lost (loop-kill
 * under two CPU hogs). The kernel reads each socket as its bytes come,
 * so it files a new connection only after the old one's end.
 */
static void settle_peer(struct rdsu_tcp *t, const struct rdsu_addr *laddr,
			const struct rdsu_addr *faddr, rdsu_ns now)
{
	/* each pass ends at least one link of the peer's, at most 16 */
	for (unsigned pass = 0; pass < 2 * WIRE_MAX_PATHS; pass++) {
		struct rdsu_conn_info ci;
		bool ended = false;

		if (rdsu_ep_conn_get(t->ep, laddr, faddr, &ci) < 0)
			return;
		for (unsigned i = 0; i < WIRE_MAX_PATHS; i++) {
			struct tsock *l = ci.path[i].link ? rdsu_tcp_link_find(t, ci.path[i].link)
							  : NULL;

			if (!l || l->kind != TS_LINK || l->state != TL_UP || !link_ended(l))
				continue;
			rdsu_tcp_salvage(t, l, now);
			ended = true;
		}
		if (!ended)
			return;
		/* the held links given those slots are attached (and read) */
		rdsu_loop_requests(t->io, now);
	}
}

/* Whether accepted |l| has brought a header's worth of bytes, read or
 * waiting in its socket: it may carry a message (every RDS message has a
 * 48-byte header), which TCP has acknowledged to the peer. One that has
 * not carries nothing its reset could lose. */
static bool link_spoke(const struct tsock *l)
{
	int q = 0;

	if (l->rx >= WIRE_HDR_LEN || l->held_len || l->held_dead)
		return true;
	if (ioctl(l->src.fd, FIONREAD, &q) < 0)
		return true;  /* cannot tell: keep it */
	return l->rx + (uint64_t)q >= WIRE_HDR_LEN;
}

/*
 * The endpoint has no room for one more connection (no descriptor, or
 * max_links): reset the oldest accepted connection that has not spoken
 * RDS (link_spoke), held or on a path, so that one made by a peer that
 * does is served; raw connections that never send a byte cannot lock
 * peers out. The core is told it went, as when the peer resets it.
 * Return: whether one was. docs/security.md.
 */
static bool evict_silent(struct rdsu_tcp *t, rdsu_ns now)
{
	struct tsock *v = NULL;

	for (unsigned b = 0; b < LINK_BUCKETS; b++)
		for (struct tsock *l = t->links[b]; l; l = l->hnext)
			if (l->kind == TS_LINK && l->accepted &&
			    (!v || l->accept_no < v->accept_no) && !link_spoke(l))
				v = l;
	if (!v)
		return false;
	t->st.accept_evicted++;
	t->st.links_down++;
	(void)rdsu_link_down(t->ep, v->id, now);
	rdsu_tcp_link_close(t, v, true);
	return true;
}

/* rdsu_link_accept(), which refused the connection for max_links when
 * the counter of that moved. */
static int link_accept(struct rdsu_tcp *t, const struct rdsu_addr *laddr,
		       const struct rdsu_addr *faddr, uint16_t fport, rdsu_ns now, uint64_t *id)
{
	struct rdsu_stats before, after;

	rdsu_ep_get_stats(t->ep, &before);
	int r = rdsu_link_accept(t->ep, laddr, faddr, fport, now, id);

	if (r != RDSU_ERR_REFUSED)
		return r;
	rdsu_ep_get_stats(t->ep, &after);
	if (after.v[RDSU_STAT_LIMIT_LINKS] == before.v[RDSU_STAT_LIMIT_LINKS] ||
	    !evict_silent(t, now))
		return r;
	return rdsu_link_accept(t->ep, laddr, faddr, fport, now, id);
}

void rdsu_tcp_accept(struct rdsu_tcp *t, struct tsock *ls, rdsu_ns now)
{
	if (t->st.accept_paused)
		return;  /* an event from before the rest, still in the batch */
	for (;;) {
		struct sockaddr_storage fa, la;
		socklen_t flen = sizeof(fa), llen = sizeof(la);
		struct rdsu_addr faddr, laddr;
		uint16_t fport, lport;
		uint64_t id = 0;
		int fd = accept4(ls->src.fd, (struct sockaddr *)&fa, &flen,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if ((errno == EMFILE || errno == ENFILE) && evict_silent(t, now))
				continue;
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
			    errno == ENOMEM) {
				t->st.accept_exhausted++;
				accept_rest(t, now);
			}
			return;  /* EAGAIN, or a connection that died in the queue */
		}
		t->accept_backoff = 0;
		t->st.accepts++;
		if (getsockname(fd, (struct sockaddr *)&la, &llen) < 0 ||
		    rdsu_sockaddr_get(&la, &laddr, &lport) < 0 ||
		    rdsu_sockaddr_get(&fa, &faddr, &fport) < 0) {
			close(fd);
			continue;
		}
		rdsu_tcp_tune(t, fd);
		settle_peer(t, &laddr, &faddr, now);
		int r = link_accept(t, &laddr, &faddr, fport, now, &id);
		if (r != RDSU_ACCEPT_UP && r != RDSU_ACCEPT_HELD) {
			/* rds_tcp_accept_one resets: SO_LINGER 0. */
			t->st.accept_reset++;
			rdsu_tcp_linger0(fd);
			close(fd);
			continue;
		}
		struct tsock *l = calloc(1, sizeof(*l));

		if (!l) {
			(void)rdsu_link_down(t->ep, id, now);
			rdsu_tcp_linger0(fd);
			close(fd);
			continue;
		}
		l->kind = TS_LINK;
		l->src.fd = fd;
		l->id = id;
		l->accepted = true;
		l->accept_no = t->st.accepts;
		l->state = r == RDSU_ACCEPT_UP ? TL_UP : TL_HELD;
		l->want_out = l->state == TL_UP;
		if (rdsu_tcp_watch(t, l, rdsu_tcp_link_events(l), EPOLL_CTL_ADD) < 0) {
			(void)rdsu_link_down(t->ep, id, now);
			close(fd);
			rdsu_tcp_sock_free(l);
			continue;
		}
		rdsu_tcp_link_hash(t, l);
		t->st.links_up++;
		if (l->state == TL_UP)
			rdsu_tcp_output(t, l, now);
	}
}

/* Keep |n| bytes of a held link for its attach. Return: 0; -1 no memory. */
int rdsu_tcp_held_append(struct tsock *l, const uint8_t *p, size_t n)
{
	uint8_t *h = realloc(l->held_in, l->held_len + n);

	if (!h)
		return -1;
	memcpy(h + l->held_len, p, n);
	l->held_in = h;
	l->held_len += n;
	return 0;
}

void rdsu_tcp_attach(struct rdsu_tcp *t, struct tsock *l, rdsu_ns now)
{
	l->state = TL_UP;
	l->want_out = true;
	if (!l->held_dead)
		rdsu_tcp_link_rewatch(t, l);
	if (l->held_len) {
		uint8_t *h = l->held_in;
		size_t n = l->held_len;

		l->held_in = NULL;
		l->held_len = 0;
		int r = rdsu_tcp_feed(t, l, h, n, now);

		free(h);
		if (r < 0)
			return;
	}
	if (l->held_dead) {
		rdsu_tcp_link_lost(t, l, now);  /* held_end: its bytes were all it had */
		return;
	}
	rdsu_tcp_output(t, l, now);
}

/*
 * A held link's peer closed or reset it. The peer took the connection for
 * its path as soon as it was accepted and wrote on it, and TCP
 * acknowledged what arrived, so the peer has freed those messages: they
 * are read now, kept, and given to the core when it attaches the link
 * (after the slot's old connection has given up its own bytes), which is
 * then reported down; a FIN is read to its end the same way. Without
 * bytes the link is reported down at once and frees its stash slot. Either
 * way it leaves the epoll set: EPOLLERR and EPOLLHUP cannot be masked.
 */
void rdsu_tcp_held_end(struct rdsu_tcp *t, struct tsock *l, rdsu_ns now)
{
	ssize_t n;

	while ((n = rdsu_tcp_rd(t, l, MSG_DONTWAIT)) > 0) {
		if (rdsu_tcp_held_append(l, t->rbuf, (size_t)n) < 0) {
			rdsu_tcp_link_lost(t, l, now);
			return;
		}
	}
	if (n == -EAGAIN || n == -EWOULDBLOCK || n == -EINTR) {
		/* a FIN to come, or a spurious wake */
		(void)rdsu_tcp_watch(t, l, 0, EPOLL_CTL_MOD);
		return;
	}
	if (!l->held_len) {
		rdsu_tcp_link_lost(t, l, now);
		return;
	}
	rdsu_loop_unwatch(t->io, &l->src);
	l->held_dead = true;
	t->st.held_kept++;
}
