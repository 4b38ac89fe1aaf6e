// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * model.c - rdstop's snapshot model and the rates between two snapshots.
 * Pure: sources fill it, renderers read it.
 */
#include "top.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void top_snap_init(struct top_snap *s)
{
	memset(s, 0, sizeof(*s));
}

void top_snap_fini(struct top_snap *s)
{
	for (size_t i = 0; i < s->n_conns; i++) {
		free(s->conns[i].peer_cong);
		free(s->conns[i].lcl_cong);
	}
	free(s->events);
	free(s->conns);
	free(s->paths);
	free(s->counters);
	free(s->socks);
	free(s->msgs);
	free(s->ibs);
	free(s->ibdevs);
	free(s->local_cong);
	top_snap_init(s);
}

void *top_grow(void **arr, size_t *n, size_t *cap, size_t size)
{
	uint8_t *p;

	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		void *na = realloc(*arr, ncap * size);

		if (!na)
			return NULL;
		*arr = na;
		*cap = ncap;
	}
	p = (uint8_t *)*arr + *n * size;
	memset(p, 0, size);
	(*n)++;
	return p;
}

struct top_conn *top_snap_add_conn(struct top_snap *s)
{
	return top_grow((void **)&s->conns, &s->n_conns, &s->cap_conns, sizeof(*s->conns));
}

struct top_path *top_snap_add_path(struct top_snap *s)
{
	struct top_path *p = top_grow((void **)&s->paths, &s->n_paths, &s->cap_paths,
				  sizeof(*s->paths));

	if (p) {
		p->conn = SIZE_MAX;
		p->index = -1;
	}
	return p;
}

struct top_counter *top_snap_add_counter(struct top_snap *s)
{
	return top_grow((void **)&s->counters, &s->n_counters, &s->cap_counters,
		    sizeof(*s->counters));
}

struct top_sock *top_snap_add_sock(struct top_snap *s)
{
	return top_grow((void **)&s->socks, &s->n_socks, &s->cap_socks, sizeof(*s->socks));
}

struct top_msg *top_snap_add_msg(struct top_snap *s)
{
	return top_grow((void **)&s->msgs, &s->n_msgs, &s->cap_msgs, sizeof(*s->msgs));
}

struct top_ib *top_snap_add_ib(struct top_snap *s)
{
	struct top_ib *b = top_grow((void **)&s->ibs, &s->n_ibs, &s->cap_ibs, sizeof(*s->ibs));

	if (b)
		b->conn = SIZE_MAX;
	return b;
}

struct top_ibdev *top_snap_add_ibdev(struct top_snap *s)
{
	return top_grow((void **)&s->ibdevs, &s->n_ibdevs, &s->cap_ibdevs, sizeof(*s->ibdevs));
}

struct top_cong_event *top_snap_add_event(struct top_snap *s)
{
	return top_grow((void **)&s->events, &s->n_events, &s->cap_events, sizeof(*s->events));
}

size_t top_snap_find_conn(const struct top_snap *s, const uint8_t laddr[16],
			  const uint8_t faddr[16], const char *transport)
{
	for (size_t i = 0; i < s->n_conns; i++) {
		const struct top_conn *c = &s->conns[i];

		if (!memcmp(c->laddr, laddr, 16) && !memcmp(c->faddr, faddr, 16) &&
		    (!transport || !strcmp(c->transport, transport)))
			return i;
	}
	return SIZE_MAX;
}

static bool sock_owns(const struct top_sock *k, const uint8_t addr[16], uint16_t port)
{
	return k->bound_port == port && !memcmp(k->bound_addr, addr, 16);
}

void top_snap_link(struct top_snap *s)
{
	unsigned *rows = NULL;

	for (size_t i = 0; !s->queue_totals && i < s->n_conns; i++) {
		s->conns[i].sendq_msgs = s->conns[i].sendq_bytes = 0;
		s->conns[i].retransq_msgs = s->conns[i].retransq_bytes = 0;
	}
	for (size_t i = 0; !s->queue_totals && i < s->n_socks; i++) {
		s->socks[i].recvq_msgs = s->socks[i].recvq_bytes = 0;
		s->socks[i].sendq_msgs = s->socks[i].sendq_bytes = 0;
	}

	/* A path row belongs to the connection of the same address pair; a
	 * source that knows the path count keeps it, others get the rows. */
	if (s->n_conns)
		rows = calloc(s->n_conns, sizeof(*rows));
	for (size_t i = 0; i < s->n_paths; i++) {
		struct top_path *p = &s->paths[i];

		if (p->conn >= s->n_conns)
			p->conn = top_snap_find_conn(s, p->laddr, p->faddr, NULL);
		if (p->conn < s->n_conns && rows)
			rows[p->conn]++;
	}
	for (size_t i = 0; rows && i < s->n_conns; i++)
		if (!s->conns[i].npaths)
			s->conns[i].npaths = rows[i];
	free(rows);

	for (size_t i = 0; i < s->n_ibs; i++) {
		struct top_ib *b = &s->ibs[i];

		if (b->conn >= s->n_conns)
			b->conn = top_snap_find_conn(s, b->r.src_addr, b->r.dst_addr, NULL);
	}

	for (size_t i = 0; i < s->n_msgs; i++) {
		const struct top_msg *m = &s->msgs[i];
		size_t c = top_snap_find_conn(s, m->laddr, m->faddr, NULL);

		if (m->q == TOP_Q_SEND && c < s->n_conns) {
			s->conns[c].sendq_msgs++;
			s->conns[c].sendq_bytes += m->len;
		} else if (m->q == TOP_Q_RETRANS && c < s->n_conns) {
			s->conns[c].retransq_msgs++;
			s->conns[c].retransq_bytes += m->len;
		}
		/* the sending socket's port is the message's source port */
		for (size_t k = 0; k < s->n_socks; k++) {
			struct top_sock *so = &s->socks[k];

			if (!sock_owns(so, m->laddr, m->lport))
				continue;
			if (m->q == TOP_Q_RECV) {
				so->recvq_msgs++;
				so->recvq_bytes += m->len;
			} else if (m->q == TOP_Q_SEND) {
				so->sendq_msgs++;
				so->sendq_bytes += m->len;
			}
			break;
		}
	}
}

const struct top_counter *top_snap_counter(const struct top_snap *s, const char *name)
{
	for (size_t i = 0; i < s->n_counters; i++)
		if (!strcmp(s->counters[i].name, name))
			return &s->counters[i];
	return NULL;
}

static double per_sec(uint64_t delta, double seconds)
{
	return seconds > 0 ? (double)delta / seconds : 0;
}

/* The old value's delta to |cur|, false when it went backwards. */
static bool delta_of(uint64_t old, uint64_t cur, uint64_t *delta)
{
	if (cur < old) {
		*delta = 0;
		return false;
	}
	*delta = cur - old;
	return true;
}

static bool same_conn(const struct top_conn *o, const struct top_conn *c)
{
	return o->tos == c->tos && !memcmp(o->laddr, c->laddr, 16) &&
	       !memcmp(o->faddr, c->faddr, 16) && !strcmp(o->transport, c->transport);
}

/* |c| (the |hint|th of its snapshot) in |s|. Sources list connections in
 * a stable order, so the same place is tried first: a thousand peers cost
 * a thousand comparisons, not half a million. */
static size_t find_conn_exact(const struct top_snap *s, const struct top_conn *c, size_t hint)
{
	if (hint < s->n_conns && same_conn(&s->conns[hint], c))
		return hint;
	for (size_t i = 0; i < s->n_conns; i++)
		if (same_conn(&s->conns[i], c))
			return i;
	return SIZE_MAX;
}

static bool counter_rate(const struct top_snap *old, const struct top_snap *cur,
			 const char *name, double seconds, double *out)
{
	const struct top_counter *a, *b;
	uint64_t d;

	a = old ? top_snap_counter(old, name) : NULL;
	b = top_snap_counter(cur, name);
	if (!a || !b || seconds <= 0 || !delta_of(a->value, b->value, &d))
		return false;
	*out = per_sec(d, seconds);
	return true;
}

int top_rates_compute(struct top_rates *r, const struct top_snap *old,
		      const struct top_snap *cur)
{
	double in, out;

	memset(r, 0, sizeof(*r));
	if (old && cur->now_ns > old->now_ns)
		r->seconds = (double)(cur->now_ns - old->now_ns) / 1e9;
	if (cur->n_counters) {
		r->counters = calloc(cur->n_counters, sizeof(*r->counters));
		if (!r->counters)
			goto nomem;
	}
	if (cur->n_conns) {
		r->conns = calloc(cur->n_conns, sizeof(*r->conns));
		if (!r->conns)
			goto nomem;
	}
	r->n_counters = cur->n_counters;
	r->n_conns = cur->n_conns;

	for (size_t i = 0; i < cur->n_counters; i++) {
		struct top_counter_rate *cr = &r->counters[i];
		const struct top_counter *c = &cur->counters[i];
		const struct top_counter *o = old ? top_snap_counter(old, c->name) : NULL;

		cr->name = c->name;
		cr->value = c->value;
		if (!o || r->seconds <= 0)
			continue;
		cr->reset = !delta_of(o->value, c->value, &cr->delta);
		cr->per_sec = per_sec(cr->delta, r->seconds);
	}

	for (size_t i = 0; i < cur->n_conns; i++) {
		struct top_conn_rate *kr = &r->conns[i];
		const struct top_conn *c = &cur->conns[i];
		size_t j = old && r->seconds > 0 ? find_conn_exact(old, c, i) : SIZE_MAX;
		const struct top_conn *o;
		uint64_t dtx, drx;

		if (j == SIZE_MAX)
			continue;
		o = &old->conns[j];
		kr->known = true;
		if (c->has_wire && o->has_wire) {
			if (!delta_of(o->tx_msgs, c->tx_msgs, &dtx) ||
			    !delta_of(o->rx_msgs, c->rx_msgs, &drx)) {
				kr->reset = true;
				continue;
			}
		} else if (c->seq_sum && o->seq_sum) {
			if (!delta_of(o->tx_seq_sum, c->tx_seq_sum, &dtx) ||
			    !delta_of(o->rx_seq_sum, c->rx_seq_sum, &drx)) {
				kr->reset = true;
				continue;
			}
		} else if (!delta_of(o->next_tx_seq, c->next_tx_seq, &dtx) ||
			   !delta_of(o->next_rx_seq, c->next_rx_seq, &drx)) {
			kr->reset = true;
			continue;
		}
		kr->tx_msgs_per_sec = per_sec(dtx, r->seconds);
		kr->rx_msgs_per_sec = per_sec(drx, r->seconds);
		if (c->has_bytes && o->has_bytes &&
		    delta_of(o->tx_bytes, c->tx_bytes, &dtx) &&
		    delta_of(o->rx_bytes, c->rx_bytes, &drx)) {
			kr->has_bytes = true;
			kr->tx_bytes_per_sec = per_sec(dtx, r->seconds);
			kr->rx_bytes_per_sec = per_sec(drx, r->seconds);
		}
	}

	if (counter_rate(old, cur, "recv_delivered", r->seconds, &in) &&
	    counter_rate(old, cur, "send_queued", r->seconds, &out)) {
		r->has_msgs = true;
		r->msgs_in_per_sec = in;
		r->msgs_out_per_sec = out;
	}
	r->has_bytes_in = counter_rate(old, cur, "recv_bytes_added_to_sock", r->seconds,
				       &r->bytes_in_per_sec);
	return 0;

nomem:
	top_rates_fini(r);
	return -ENOMEM;
}

void top_rates_fini(struct top_rates *r)
{
	free(r->counters);
	free(r->conns);
	memset(r, 0, sizeof(*r));
}

const char *top_addr_str(const uint8_t a[16], char *buf, size_t len)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (!memcmp(a, mapped, 12)) {
		if (!inet_ntop(AF_INET, a + 12, buf, (socklen_t)len))
			snprintf(buf, len, "?");
	} else if (!inet_ntop(AF_INET6, a, buf, (socklen_t)len)) {
		snprintf(buf, len, "?");
	}
	return buf;
}

const char *top_conn_state(uint8_t flags, char *buf, size_t len)
{
	const char *st = flags & WIRE_INFO_CONN_CONNECTED ? "connected" :
			 flags & WIRE_INFO_CONN_CONNECTING ? "connecting" : "down";

	snprintf(buf, len, "%s%s", st, flags & WIRE_INFO_CONN_SENDING ? "+sending" : "");
	return buf;
}

void top_paths_init(struct top_paths *pi, const struct top_snap *s)
{
	size_t *m = s->n_paths ? malloc((s->n_conns + s->n_paths) * sizeof(*m)) : NULL;

	pi->s = s;
	pi->first = m;
	pi->next = m ? m + s->n_conns : NULL;
	if (!m)
		return;
	for (size_t c = 0; c < s->n_conns; c++)
		pi->first[c] = SIZE_MAX;
	/* backwards, each path in front of the later ones of its connection */
	for (size_t j = s->n_paths; j-- > 0;) {
		size_t c = s->paths[j].conn;

		pi->next[j] = SIZE_MAX;
		if (c < s->n_conns) {
			pi->next[j] = pi->first[c];
			pi->first[c] = j;
		}
	}
}

/* Without the lists: the next path of |conn| from |j| on. */
static size_t paths_search(const struct top_snap *s, size_t conn, size_t j)
{
	for (; j < s->n_paths; j++)
		if (s->paths[j].conn == conn)
			return j;
	return SIZE_MAX;
}

size_t top_paths_first(const struct top_paths *pi, size_t conn)
{
	if (!pi->first)
		return paths_search(pi->s, conn, 0);
	return conn < pi->s->n_conns ? pi->first[conn] : SIZE_MAX;
}

size_t top_paths_next(const struct top_paths *pi, size_t conn, size_t path)
{
	if (!pi->next)
		return paths_search(pi->s, conn, path + 1);
	return pi->next[path];
}

void top_paths_fini(struct top_paths *pi)
{
	free(pi->first);
	pi->first = pi->next = NULL;
}
