// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * kinfo.c - the kernel source's pure half: the RDS_INFO read loop (size
 * probe, -ENOSPC, retry) over an injected getsockopt, and each list
 * decoded with libwire into the model. Ref: net/rds/info.c
 * rds_info_getsockopt(); docs/protocol/info.md.
 */
#include "kinfo.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <wire/wire.h>

void top_kinfo_buf_fini(struct top_kinfo_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

int top_kinfo_read(top_kinfo_gso gso, void *ctx, unsigned opt, struct top_kinfo_buf *b)
{
	size_t item = wire_info_item_size(opt);

	if (!item)
		return -EINVAL;
	b->len = 0;
	for (int i = 0; i < TOP_KINFO_TRIES; i++) {
		size_t len = b->cap;
		int r = gso(ctx, opt, b->p, &len);

		if (r == -ENOSPC) {
			size_t ncap;
			uint8_t *np;

			if (len > TOP_KINFO_MAX)
				return -E2BIG;
			/* the list may grow before the next call: ask with room */
			ncap = len + len / 4 + item;
			if (ncap < b->cap + item)
				ncap = b->cap + item;
			if (ncap > TOP_KINFO_MAX)
				ncap = TOP_KINFO_MAX;
			np = realloc(b->p, ncap);
			if (!np)
				return -ENOMEM;
			b->p = np;
			b->cap = ncap;
			continue;
		}
		if (r < 0)
			return r;
		if ((size_t)r != item || len % item || len > b->cap)
			return -EPROTO;
		b->len = len;
		return r;
	}
	return -EAGAIN;
}

static void fill_conn(struct top_conn *c, const struct wire_info_conn *w)
{
	memcpy(c->laddr, w->laddr, 16);
	memcpy(c->faddr, w->faddr, 16);
	memcpy(c->transport, w->transport, sizeof(c->transport));
	c->flags = w->flags;
	c->tos = w->tos;
	c->next_tx_seq = w->next_tx_seq;
	c->next_rx_seq = w->next_rx_seq;
}

static enum top_queue queue_of(unsigned opt)
{
	switch (opt) {
	case WIRE_INFO_SEND_MESSAGES:
	case WIRE_INFO6_SEND_MESSAGES:
		return TOP_Q_SEND;
	case WIRE_INFO_RETRANS_MESSAGES:
	case WIRE_INFO6_RETRANS_MESSAGES:
		return TOP_Q_RETRANS;
	default:
		return TOP_Q_RECV;
	}
}

/* One decoded item into the model. Return: 0; -ENOMEM. */
static int take(struct top_snap *s, const struct wire_info_item *it)
{
	switch (it->kind) {
	case WIRE_INFO_KIND_COUNTER: {
		struct top_counter *c = top_snap_add_counter(s);

		if (!c)
			return -ENOMEM;
		memcpy(c->name, it->u.counter.name, sizeof(c->name));
		c->value = it->u.counter.value;
		return 0;
	}
	case WIRE_INFO_KIND_CONN: {
		const struct wire_info_conn *w = &it->u.conn;
		size_t i = top_snap_find_conn(s, w->laddr, w->faddr, w->transport);
		struct top_conn *c;

		/* the IPv6 list has every connection but no tos; the IPv4
		 * list adds it to the ones it shares */
		if (i != SIZE_MAX) {
			if (it->family == 4)
				s->conns[i].tos = w->tos;
			return 0;
		}
		c = top_snap_add_conn(s);
		if (!c)
			return -ENOMEM;
		fill_conn(c, w);
		return 0;
	}
	case WIRE_INFO_KIND_MSG: {
		const struct wire_info_msg *w = &it->u.msg;
		struct top_msg *m = top_snap_add_msg(s);

		if (!m)
			return -ENOMEM;
		m->q = queue_of(it->opt);
		m->seq = w->seq;
		m->len = w->len;
		memcpy(m->laddr, w->laddr, 16);
		memcpy(m->faddr, w->faddr, 16);
		m->lport = w->lport;
		m->fport = w->fport;
		m->flags = w->flags;
		m->tos = w->tos;
		return 0;
	}
	case WIRE_INFO_KIND_SOCK: {
		const struct wire_info_sock *w = &it->u.sock;
		struct top_sock *k = top_snap_add_sock(s);

		if (!k)
			return -ENOMEM;
		memcpy(k->bound_addr, w->bound_addr, 16);
		memcpy(k->connected_addr, w->connected_addr, 16);
		k->bound_port = w->bound_port;
		k->connected_port = w->connected_port;
		k->sndbuf = w->sndbuf;
		k->rcvbuf = w->rcvbuf;
		k->inum = w->inum;
		return 0;
	}
	case WIRE_INFO_KIND_TCP_SOCK: {
		const struct wire_info_tcp_sock *w = &it->u.tcp_sock;
		struct top_path *p = top_snap_add_path(s);

		if (!p)
			return -ENOMEM;
		memcpy(p->laddr, w->local_addr, 16);
		memcpy(p->faddr, w->peer_addr, 16);
		p->lport = w->local_port;
		p->fport = w->peer_port;
		p->has_tcp = true;
		p->hdr_rem = w->hdr_rem;
		p->data_rem = w->data_rem;
		p->last_sent_nxt = w->last_sent_nxt;
		p->last_expected_una = w->last_expected_una;
		p->last_seen_una = w->last_seen_una;
		return 0;
	}
	case WIRE_INFO_KIND_RDMA_CONN: {
		struct top_ib *b = top_snap_add_ib(s);

		if (!b)
			return -ENOMEM;
		b->r = it->u.rdma_conn;
		return 0;
	}
	case WIRE_INFO_KIND_NONE:
		break;
	}
	return -EINVAL;
}

int top_kinfo_fill(struct top_snap *s, unsigned opt, const uint8_t *buf, size_t len)
{
	struct wire_info_iter iter;
	struct wire_info_item it;
	ssize_t n = wire_info_iter_init(&iter, opt, buf, len);
	int r, taken = 0;

	if (n == WIRE_ERR_UNSUPP)
		return -EINVAL;
	if (n < 0)
		return -EPROTO;
	while ((r = wire_info_next(&iter, &it)) == 1) {
		int e = take(s, &it);

		if (e < 0)
			return e;
		taken++;
	}
	return r < 0 ? -EPROTO : taken;
}

/* The lists a kernel snapshot reads, in this order. */
static const unsigned kinfo_lists[] = {
	WIRE_INFO_COUNTERS,
	WIRE_INFO6_CONNECTIONS,
	WIRE_INFO_CONNECTIONS,
	WIRE_INFO6_SEND_MESSAGES,
	WIRE_INFO6_RETRANS_MESSAGES,
	WIRE_INFO6_RECV_MESSAGES,
	WIRE_INFO6_SOCKETS,
	WIRE_INFO6_TCP_SOCKETS,
	WIRE_INFO6_IB_CONNECTIONS,
};

int top_kinfo_snapshot(top_kinfo_gso gso, void *ctx, struct top_kinfo_buf *b,
		       struct top_snap *s, unsigned *failed)
{
	for (size_t i = 0; i < sizeof(kinfo_lists) / sizeof(kinfo_lists[0]); i++) {
		unsigned opt = kinfo_lists[i];
		int r = top_kinfo_read(gso, ctx, opt, b);

		if (r == -ENOPROTOOPT)
			continue;
		if (r >= 0)
			r = top_kinfo_fill(s, opt, b->p, b->len);
		if (r < 0) {
			if (failed)
				*failed = opt;
			return r;
		}
	}
	top_snap_link(s);
	return 0;
}

int top_kinfo_local_map(struct top_snap *s, const struct wire_cong_map *prev)
{
	struct wire_cong_map *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	for (size_t i = 0; i < s->n_socks; i++) {
		struct top_sock *k = &s->socks[i];
		bool was = prev && wire_cong_test(prev, k->bound_port);

		if (!k->bound_port)
			continue;
		k->has_cong = true;
		k->congested = k->recvq_bytes > k->rcvbuf ||
			       (was && k->recvq_bytes >= k->rcvbuf / 2);
		if (k->congested)
			wire_cong_set(m, k->bound_port);
	}
	for (size_t c = 0; c < s->n_conns; c++) {
		struct top_conn *tc = &s->conns[c];

		free(tc->lcl_cong);
		tc->lcl_cong = calloc(1, sizeof(*tc->lcl_cong));
		if (!tc->lcl_cong) {
			free(m);
			return -ENOMEM;
		}
		for (size_t i = 0; i < s->n_socks; i++) {
			const struct top_sock *k = &s->socks[i];

			if (k->congested && !memcmp(k->bound_addr, tc->laddr, 16))
				wire_cong_set(tc->lcl_cong, k->bound_port);
		}
	}
	free(s->local_cong);
	s->local_cong = m;
	return 0;
}

static void news_add(struct top_kinfo_news *nw, const struct top_cong_event *e)
{
	if (nw->n == TOP_KINFO_EVENTS) {
		nw->first = (nw->first + 1) % TOP_KINFO_EVENTS;
		nw->n--;
		nw->lost++;
	}
	nw->ev[(nw->first + nw->n++) % TOP_KINFO_EVENTS] = *e;
}

int top_kinfo_news(struct top_kinfo_news *nw, const struct wire_cong_map *prev,
		   struct top_snap *s)
{
	static const struct wire_cong_map clear;
	struct top_cong_event e = { .t_ns = s->now_ns, .conn = SIZE_MAX };

	if (s->local_cong) {
		struct wire_port_range pr;
		uint32_t pos = 0;

		while (wire_cong_diff_next(prev ? prev : &clear, s->local_cong, &pos, &pr) == 1) {
			e.first = pr.first;
			e.last = pr.last;
			e.congested = pr.congested;
			news_add(nw, &e);
		}
	}
	if (s->has_cong_mask && s->cong_mask) {
		/* which peer's map is not said, nor which way each port went */
		e = (struct top_cong_event){ .t_ns = s->now_ns, .conn = SIZE_MAX,
					     .from_peer = true, .groups = s->cong_mask };
		news_add(nw, &e);
	}
	s->events_lost = nw->lost;
	for (size_t i = 0; i < nw->n; i++) {
		struct top_cong_event *d = top_snap_add_event(s);

		if (!d)
			return -ENOMEM;
		*d = nw->ev[(nw->first + i) % TOP_KINFO_EVENTS];
	}
	return 0;
}
