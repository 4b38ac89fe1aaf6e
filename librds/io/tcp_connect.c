// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * tcp_connect.c - outgoing TCP connections for RDSU_LREQ_CONNECT: the
 * source port that encodes the path, the non-blocking connect and its
 * completion. Ref: net/rds/tcp_connect.c rds_tcp_conn_path_connect(),
 * rds_tcp_state_change().
 */
#define _GNU_SOURCE
#include "tcp.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

/*
 * One attempt from the next source port candidate. 7.x asks for
 * port % 8 == path (rds_tcp_conn_path_connect walks groups of 8 from
 * ALIGN(low, 8) until bind succeeds); a busy port, or a four-tuple still in
 * use (EADDRNOTAVAIL from connect), moves on to the next group.
 * Return: 0 connecting or connected, <0 errno when every candidate failed.
 */
static int connect_try(struct rdsu_tcp *t, struct tsock *l)
{
	const struct rdsu_lreq *r = &l->req;
	struct sockaddr_storage la, fa;
	socklen_t llen, flen;
	unsigned groups = ((unsigned)t->cfg.port_high - t->cfg.port_low) / 8u + 1u;
	int err = -EADDRINUSE;

	for (;;) {
		uint16_t sport = 0;

		if (r->sport_mod) {
			if (l->port_try >= groups)
				return err;
			sport = rdsu_sport_pick(t->cfg.port_low, t->cfg.port_high, r->sport_res,
						(t->port_group + l->port_try) % groups);
			l->port_try++;
			if (!sport)
				continue;
		}
		int fd = socket(rdsu_addr_is_v4(&r->laddr) ? AF_INET : AF_INET6,
				SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
		int one = 1;
		(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		rdsu_tcp_tune(t, fd);
		err = rdsu_tcp_auth_set(&t->cfg, fd, rdsu_addr_is_v4(&r->laddr) ? AF_INET : AF_INET6);
		if (err) {
			t->st.auth_failed++;
			close(fd);
			return err;
		}
		llen = rdsu_sockaddr(&r->laddr, sport, &la);
		flen = rdsu_sockaddr(&r->faddr,
				     t->cfg.connect_port ? t->cfg.connect_port : r->dport, &fa);
		if (bind(fd, (struct sockaddr *)&la, llen) < 0) {
			err = -errno;
			close(fd);
			if (r->sport_mod && err == -EADDRINUSE) {
				t->st.port_retries++;
				continue;
			}
			return err;
		}
		if (connect(fd, (struct sockaddr *)&fa, flen) < 0 && errno != EINPROGRESS) {
			err = -errno;
			close(fd);
			if (r->sport_mod && (err == -EADDRNOTAVAIL || err == -EADDRINUSE)) {
				t->st.port_retries++;
				continue;
			}
			return err;
		}
		l->src.fd = fd;
		return 0;
	}
}

void rdsu_tcp_connect_start(struct rdsu_tcp *t, const struct rdsu_lreq *r, rdsu_ns now)
{
	struct tsock *l = calloc(1, sizeof(*l));

	t->st.connects++;
	if (!l) {
		t->st.connect_failed++;
		(void)rdsu_link_down(t->ep, r->link, now);
		return;
	}
	l->kind = TS_LINK;
	l->id = r->link;
	l->req = *r;
	l->state = TL_CONNECTING;
	l->src.fd = -1;
	if (connect_try(t, l) < 0 ||
	    rdsu_tcp_watch(t, l, rdsu_tcp_link_events(l), EPOLL_CTL_ADD) < 0) {
		t->st.connect_failed++;
		if (l->src.fd >= 0)
			close(l->src.fd);
		rdsu_tcp_sock_free(l);
		(void)rdsu_link_down(t->ep, r->link, now);
		return;
	}
	/* The next connect of any path starts one group further on, as 7.2
	 * was seen to move on per reconnect. */
	if (r->sport_mod)
		t->port_group++;
	rdsu_tcp_link_hash(t, l);
	t->st.links_up++;
}

void rdsu_tcp_connect_done(struct rdsu_tcp *t, struct tsock *l, rdsu_ns now)
{
	int err = 0;
	socklen_t elen = sizeof(err);
	struct sockaddr_storage ss;
	socklen_t slen = sizeof(ss);
	struct rdsu_addr a;
	uint16_t sport = 0;

	if (getsockopt(l->src.fd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0)
		err = errno;
	if (err) {
		char c;

		/* Established, then reset or aborted before this ran: the
		 * acceptor writes as soon as it has the connection, and what
		 * our TCP acknowledged it has freed. Bytes waiting here mean
		 * the connection was up: it goes up for as long as reading
		 * them into the core takes (loop.py killboth lost the
		 * acceptor's first resends this way). */
		if (recv(l->src.fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) != 1) {
			t->st.connect_failed++;
			rdsu_tcp_link_lost(t, l, now);
			return;
		}
		t->st.connect_late_reset++;
	}
	if (getsockname(l->src.fd, (struct sockaddr *)&ss, &slen) == 0)
		(void)rdsu_sockaddr_get(&ss, &a, &sport);
	if (rdsu_link_established(t->ep, l->id, sport, now) < 0) {
		/* Only a kick (rds_tcp_state_change), or no longer wanted. */
		rdsu_tcp_link_close(t, l, false);
		return;
	}
	l->state = TL_UP;
	if (err) {
		rdsu_tcp_salvage(t, l, now);
		return;
	}
	rdsu_tcp_link_rewatch(t, l);
	/* The core may have bytes ready (the map) before OUTPUT is pulled. */
	l->want_out = true;
	rdsu_tcp_output(t, l, now);
}
