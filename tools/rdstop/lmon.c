// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * lmon.c - the librds source's pure half (lmon.h): monitor records into
 * the model. A librds endpoint knows its peers' maps exactly (the last
 * one each sent), its own map per local address, every path's sequence
 * numbers, queues and stream bytes, and every socket's queue totals.
 */
#include "lmon.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wire/wire.h>

/* A map as the previous snapshot had it, for the time line. */
struct prev_map {
	uint8_t laddr[16], faddr[16];  /* faddr all 0xff: the local node's */
	struct wire_cong_map *m;       /* NULL: all clear (most maps, most of the time) */
};

/* A map update with its connection's addresses: snapshots may list the
 * connections in another order. */
struct lev {
	struct top_cong_event e;
	uint8_t laddr[16], faddr[16];
};

struct top_lmon {
	struct prev_map *prev;
	size_t n_prev;
	struct lev ev[TOP_LMON_EVENTS];
	size_t ev_first, n_ev;
	uint64_t ev_lost;
};

static const uint8_t node_key[16] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
};

int top_lmon_new(struct top_lmon **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

static void prev_free(struct prev_map *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(p[i].m);
	free(p);
}

void top_lmon_free(struct top_lmon *l)
{
	if (!l)
		return;
	prev_free(l->prev, l->n_prev);
	free(l);
}

static void add_event(struct top_lmon *l, const struct top_cong_event *e,
		      const uint8_t laddr[16], const uint8_t faddr[16])
{
	struct lev *v;

	if (l->n_ev == TOP_LMON_EVENTS) {
		v = &l->ev[l->ev_first];
		l->ev_first = (l->ev_first + 1) % TOP_LMON_EVENTS;
		l->ev_lost++;
	} else {
		v = &l->ev[(l->ev_first + l->n_ev++) % TOP_LMON_EVENTS];
	}
	v->e = *e;
	memcpy(v->laddr, laddr, 16);
	memcpy(v->faddr, faddr, 16);
}

static bool same_pair(const struct prev_map *p, const uint8_t laddr[16],
		      const uint8_t faddr[16])
{
	return !memcmp(p->laddr, laddr, 16) && !memcmp(p->faddr, faddr, 16);
}

/* The previous map of a pair; |hint| first, as the order is stable. */
static const struct prev_map *find_prev(const struct top_lmon *l, const uint8_t laddr[16],
					const uint8_t faddr[16], size_t hint)
{
	if (hint < l->n_prev && same_pair(&l->prev[hint], laddr, faddr))
		return &l->prev[hint];
	for (size_t i = 0; i < l->n_prev; i++)
		if (!memcmp(l->prev[i].laddr, laddr, 16) && !memcmp(l->prev[i].faddr, faddr, 16))
			return &l->prev[i];
	return NULL;
}

/* Changes from the previous snapshot's map of the same pair, as runs. */
static void diff(struct top_lmon *l, const uint8_t laddr[16], const uint8_t faddr[16],
		 const struct wire_cong_map *cur, size_t cur_n, size_t conn, bool from_peer,
		 uint64_t now)
{
	static const struct wire_cong_map clear;
	const struct prev_map *p = find_prev(l, laddr, faddr, conn);
	const struct wire_cong_map *old = p && p->m ? p->m : &clear;
	struct top_cong_event e = { .t_ns = now, .conn = conn, .from_peer = from_peer };
	struct wire_port_range pr;
	uint32_t pos = 0;

	if (!cur_n && old == &clear)
		return;
	if (!memcmp(old->bits, cur->bits, sizeof(cur->bits)))
		return;
	while (wire_cong_diff_next(old, cur, &pos, &pr) == 1) {
		e.first = pr.first;
		e.last = pr.last;
		e.congested = pr.congested;
		add_event(l, &e, laddr, faddr);
	}
}

/* A map to keep: NULL when all clear. Return: 0; -ENOMEM. */
static int keep_one(struct prev_map *p, const uint8_t laddr[16], const uint8_t faddr[16],
		    const struct wire_cong_map *m, size_t n)
{
	memcpy(p->laddr, laddr, 16);
	memcpy(p->faddr, faddr, 16);
	p->m = NULL;
	if (!n)
		return 0;
	p->m = malloc(sizeof(*p->m));
	if (!p->m)
		return -ENOMEM;
	*p->m = *m;
	return 0;
}

/* Every map of |s| becomes the one to compare the next snapshot with;
 * counts[i] is conns[i]'s peer map's, counts[n_conns] the local node's. */
static int keep_maps(struct top_lmon *l, const struct top_snap *s, const size_t *counts)
{
	size_t n = 0, k = 0;
	struct prev_map *p;

	for (size_t i = 0; i < s->n_conns; i++)
		n += s->conns[i].peer_cong != NULL;
	n += s->local_cong != NULL;
	p = n ? calloc(n, sizeof(*p)) : NULL;
	if (n && !p)
		return -ENOMEM;
	for (size_t i = 0; i < s->n_conns; i++) {
		if (!s->conns[i].peer_cong)
			continue;
		if (keep_one(&p[k++], s->conns[i].laddr, s->conns[i].faddr, s->conns[i].peer_cong,
			     counts[i]) < 0)
			goto nomem;
	}
	if (s->local_cong &&
	    keep_one(&p[k++], node_key, node_key, s->local_cong, counts[s->n_conns]) < 0)
		goto nomem;
	prev_free(l->prev, l->n_prev);
	l->prev = p;
	l->n_prev = k;
	return 0;
nomem:
	prev_free(p, k);
	return -ENOMEM;
}

static struct wire_cong_map *map_copy(const struct wire_mon_map *m)
{
	struct wire_cong_map *c = calloc(1, sizeof(*c));

	if (c && m->bits)
		memcpy(c->bits, m->bits, sizeof(c->bits));
	return c;
}

static void map_or(struct wire_cong_map *dst, const struct wire_mon_map *m)
{
	if (!m->bits)
		return;
	for (size_t i = 0; i < sizeof(dst->bits); i++)
		dst->bits[i] |= m->bits[i];
}

static const char *trans_name(uint8_t t)
{
	/* RDS_TRANS_IB 0, RDS_TRANS_TCP 2, RDS_TRANS_LOOP 3 (the kernel's
	 * "loopback", net/rds/loop.c) */
	return t == 0 ? "ib" : t == 2 ? "tcp" : t == 3 ? "loopback" : "?";
}

/* Sums over the paths of one connection. */
struct conn_acc {
	size_t conn;
	uint64_t tx_seq, rx_seq;
};

static int path_in(struct top_snap *out, struct conn_acc *acc, const struct wire_mon_path *p)
{
	struct top_conn *c = &out->conns[acc->conn];
	struct top_path *tp = top_snap_add_path(out);

	if (!tp)
		return -ENOMEM;
	tp->conn = acc->conn;
	tp->index = p->index;
	memcpy(tp->laddr, c->laddr, 16);
	memcpy(tp->faddr, c->faddr, 16);
	/* the TCP port that was not chosen is the RDS port (16385) */
	tp->lport = p->outgoing ? p->local_sport : (p->link ? 16385 : 0);
	tp->fport = p->outgoing ? (p->link ? 16385 : 0) : p->peer_sport;
	tp->has_seq = true;
	tp->next_tx_seq = p->next_tx_seq;
	tp->next_rx_seq = p->next_rx_seq;
	tp->has_state = true;
	tp->state = p->state;
	tp->connects = p->connects;
	tp->resets = p->resets;
	if (p->index == 0) {
		c->next_tx_seq = p->next_tx_seq;
		c->next_rx_seq = p->next_rx_seq;
		c->flags = p->state == 2 ? WIRE_INFO_CONN_CONNECTED :
			   p->state == 1 ? WIRE_INFO_CONN_CONNECTING : 0;
	}
	/* every path numbers its messages from 1 */
	acc->tx_seq += p->next_tx_seq ? p->next_tx_seq - 1 : 0;
	acc->rx_seq += p->next_rx_seq ? p->next_rx_seq - 1 : 0;
	c->seq_sum = true;
	c->tx_seq_sum = acc->tx_seq;
	c->rx_seq_sum = acc->rx_seq;
	c->has_bytes = true;
	c->tx_bytes += p->tx_bytes;
	c->rx_bytes += p->rx_bytes;
	c->sendq_msgs += p->send_q_msgs;
	c->sendq_bytes += p->send_q_bytes;
	c->retransq_msgs += p->retrans_q_msgs;
	c->retransq_bytes += p->retrans_q_bytes;
	c->has_reconnects = true;
	c->reconnects += p->connects > 1 ? p->connects - 1 : 0;
	return 0;
}

static int sock_in(struct top_snap *out, const struct wire_mon_sock *m)
{
	struct top_sock *k = top_snap_add_sock(out);

	if (!k)
		return -ENOMEM;
	memcpy(k->bound_addr, m->laddr, 16);
	k->bound_port = m->port;
	k->sndbuf = m->sndbuf;
	k->rcvbuf = m->rcvbuf;
	k->recvq_msgs = m->rx_msgs;
	k->recvq_bytes = m->rcv_bytes;
	k->sendq_bytes = m->snd_bytes;
	k->has_cong = true;
	k->congested = m->flags & WIRE_MON_SOCK_CONGESTED;
	return 0;
}

int top_lmon_decode(struct top_lmon *l, const uint8_t *body, size_t len, uint64_t now_ns,
		    struct top_snap *out, struct top_lmon_proc *proc, char *err,
		    size_t errlen)
{
	struct conn_acc acc = { .conn = SIZE_MAX };
	size_t off = 0, *counts;
	bool have_proc = false;
	int r;

	memset(proc, 0, sizeof(*proc));
	out->source = "librds";
	out->now_ns = now_ns;
	out->queue_totals = true;
	while (off < len) {
		struct wire_mon_item it;
		ssize_t n = wire_mon_rec_decode(&it, body + off, len - off);

		if (n < 0) {
			snprintf(err, errlen, "a monitor record at byte %zu of %zu does not decode "
				 "(%s)", off, len, wire_strerror((int)n));
			return -EPROTO;
		}
		off += (size_t)n;
		if (proc->whole) {
			snprintf(err, errlen, "monitor records after the end of a snapshot");
			return -EPROTO;
		}
		switch (it.type) {
		case WIRE_MON_R_PROC:
			have_proc = true;
			proc->pid = it.u.proc.pid;
			memcpy(proc->name, it.u.proc.name, sizeof(proc->name));
			break;
		case WIRE_MON_R_COUNTER: {
			struct top_counter *c = top_snap_add_counter(out);

			if (!c)
				return -ENOMEM;
			snprintf(c->name, sizeof(c->name), "%s", it.u.counter.name);
			c->value = it.u.counter.value;
			break;
		}
		case WIRE_MON_R_CONN: {
			struct top_conn *c = top_snap_add_conn(out);

			if (!c)
				return -ENOMEM;
			memcpy(c->laddr, it.u.conn.laddr, 16);
			memcpy(c->faddr, it.u.conn.faddr, 16);
			snprintf(c->transport, sizeof(c->transport), "%s",
				 trans_name(it.u.conn.transport));
			c->npaths = it.u.conn.npaths;
			c->has_gen = it.u.conn.peer_gen != 0;
			c->gen = it.u.conn.peer_gen;
			acc = (struct conn_acc){ .conn = out->n_conns - 1 };
			break;
		}
		case WIRE_MON_R_PATH:
			if (acc.conn == SIZE_MAX) {
				snprintf(err, errlen, "a monitor path record before any connection");
				return -EPROTO;
			}
			r = path_in(out, &acc, &it.u.path);
			if (r < 0)
				return r;
			break;
		case WIRE_MON_R_MAP:
			if (it.u.map.kind == WIRE_MON_MAP_PEER) {
				struct top_conn *c;

				if (acc.conn == SIZE_MAX || out->conns[acc.conn].peer_cong) {
					snprintf(err, errlen, "a peer's map record without its connection");
					return -EPROTO;
				}
				c = &out->conns[acc.conn];
				c->peer_cong = map_copy(&it.u.map);
				if (!c->peer_cong)
					return -ENOMEM;
			} else if (it.u.map.kind == WIRE_MON_MAP_LOCAL) {
				/* the local node: every local address's map together */
				if (!out->local_cong && !(out->local_cong = map_copy(&it.u.map)))
					return -ENOMEM;
				map_or(out->local_cong, &it.u.map);
				/* a connection's local side is its address's map */
				for (size_t i = 0; i < out->n_conns; i++) {
					struct top_conn *c = &out->conns[i];

					if (c->lcl_cong || memcmp(c->laddr, it.u.map.addr, 16))
						continue;
					c->lcl_cong = map_copy(&it.u.map);
					if (!c->lcl_cong)
						return -ENOMEM;
				}
			}
			break;
		case WIRE_MON_R_SOCK:
			r = sock_in(out, &it.u.sock);
			if (r < 0)
				return r;
			break;
		case WIRE_MON_R_END:
			proc->whole = true;
			break;
		}
	}
	if (!have_proc) {
		snprintf(err, errlen, "a monitor snapshot without its process record");
		return -EPROTO;
	}
	top_snap_link(out);

	counts = calloc(out->n_conns + 1, sizeof(*counts));
	if (!counts)
		return -ENOMEM;
	for (size_t i = 0; i < out->n_conns; i++) {
		if (!out->conns[i].peer_cong)
			continue;
		counts[i] = wire_cong_count(out->conns[i].peer_cong);
		diff(l, out->conns[i].laddr, out->conns[i].faddr, out->conns[i].peer_cong,
		     counts[i], i, true, now_ns);
	}
	if (out->local_cong) {
		counts[out->n_conns] = wire_cong_count(out->local_cong);
		diff(l, node_key, node_key, out->local_cong, counts[out->n_conns], SIZE_MAX, false,
		     now_ns);
	}
	r = keep_maps(l, out, counts);
	free(counts);
	if (r < 0)
		return -ENOMEM;
	out->events_lost = l->ev_lost;
	for (size_t i = 0; i < l->n_ev; i++) {
		struct top_cong_event *e = top_snap_add_event(out);
		const struct lev *v = &l->ev[(l->ev_first + i) % TOP_LMON_EVENTS];

		if (!e)
			return -ENOMEM;
		*e = v->e;
		/* SIZE_MAX: the local node's map, or a connection gone since */
		e->conn = v->e.from_peer ? top_snap_find_conn(out, v->laddr, v->faddr, NULL) :
					   SIZE_MAX;
	}
	return 0;
}
