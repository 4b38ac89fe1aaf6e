// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * cap.c - the capture source's pure half: rdsdump's engine decodes, this
 * keeps what a top needs between snapshots (each connection's state and
 * both ends' congestion maps, a ring of map updates) and turns it and the
 * engine's statistics into a snapshot.
 */
#include "cap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* What the engine's statistics do not keep, per RDS connection. */
struct cap_conn {
	uint8_t flags;                 /* WIRE_INFO_CONN_* as the capture shows it */
	struct wire_cong_map *map[2];  /* [dir]: the map that end sent; NULL none */
	uint16_t port[WIRE_MAX_PATHS][2];  /* [path][dir]: latest TCP source port */
};

struct top_cap {
	struct dump_eng *eng;
	struct cap_conn *conns;
	size_t n_conns;
	bool nomem;                    /* a record could not be kept */
	uint64_t t_ns;                 /* clock of the packet being decoded */
	struct top_cong_event ring[TOP_CAP_EVENTS];
	size_t ring_head, ring_n;      /* oldest at ring_head */
	uint64_t ring_lost;
};

static struct cap_conn *conn_of(struct top_cap *c, int id)
{
	size_t need;

	if (id < 0)
		return NULL;
	need = (size_t)id + 1;
	if (need > c->n_conns) {
		struct cap_conn *n = realloc(c->conns, need * sizeof(*n));

		if (!n) {
			c->nomem = true;
			return NULL;
		}
		memset(n + c->n_conns, 0, (need - c->n_conns) * sizeof(*n));
		c->conns = n;
		c->n_conns = need;
	}
	return &c->conns[id];
}

void top_cap_add_event(struct top_cap *c, const struct top_cong_event *ev)
{
	if (c->ring_n == TOP_CAP_EVENTS) {
		c->ring[c->ring_head] = *ev;
		c->ring_head = (c->ring_head + 1) % TOP_CAP_EVENTS;
		c->ring_lost++;
		return;
	}
	c->ring[(c->ring_head + c->ring_n) % TOP_CAP_EVENTS] = *ev;
	c->ring_n++;
}

static void on_cong(struct top_cap *c, struct cap_conn *k, const struct dump_rec *r)
{
	static const struct wire_cong_map empty;
	const struct wire_cong_map *prev = r->u.msg.cong_prev ? r->u.msg.cong_prev : &empty;
	int d = r->dir ? 1 : 0;
	struct wire_port_range pr;
	uint32_t pos = 0;

	if (!k->map[d]) {
		k->map[d] = malloc(sizeof(*k->map[d]));
		if (!k->map[d]) {
			c->nomem = true;
			return;
		}
	}
	*k->map[d] = *r->u.msg.cong_cur;
	while (wire_cong_diff_next(prev, r->u.msg.cong_cur, &pos, &pr) == 1) {
		struct top_cong_event ev = {
			.t_ns = c->t_ns,
			.conn = (size_t)r->conn,
			.from_peer = d == 1,
			.first = pr.first,
			.last = pr.last,
			.congested = pr.congested,
		};

		top_cap_add_event(c, &ev);
	}
}

static void sink(void *ctx, const struct dump_rec *r)
{
	struct top_cap *c = ctx;
	struct cap_conn *k = conn_of(c, r->conn);

	if (!k)
		return;
	if (r->path >= 0 && r->path < WIRE_MAX_PATHS && r->xp == DUMP_XP_TCP)
		k->port[r->path][r->dir ? 1 : 0] = r->src.port;
	switch (r->type) {
	case DUMP_REC_MSG:
		k->flags = WIRE_INFO_CONN_CONNECTED;
		if (r->u.msg.cong_cur)
			on_cong(c, k, r);
		break;
	case DUMP_REC_NOTE:
		if (r->u.note.what == DUMP_NOTE_SYN || r->u.note.what == DUMP_NOTE_REOPEN)
			k->flags = WIRE_INFO_CONN_CONNECTING;
		else if (r->u.note.what == DUMP_NOTE_MIDSTREAM)
			k->flags = WIRE_INFO_CONN_CONNECTED;
		else if (r->u.note.what == DUMP_NOTE_FIN || r->u.note.what == DUMP_NOTE_RST)
			k->flags = 0;
		break;
	case DUMP_REC_CM:
		if (k->flags != WIRE_INFO_CONN_CONNECTED)
			k->flags = WIRE_INFO_CONN_CONNECTING;
		break;
	default:
		break;
	}
}

int top_cap_new(struct top_cap **out)
{
	struct top_cap *c = calloc(1, sizeof(*c));
	struct dump_cfg cfg = { .kv = WIRE_KVER_7, .sink = sink };
	int e;

	if (!c)
		return -ENOMEM;
	cfg.ctx = c;
	e = dump_eng_new(&c->eng, &cfg);
	if (e < 0) {
		free(c);
		return e;
	}
	*out = c;
	return 0;
}

void top_cap_free(struct top_cap *c)
{
	if (!c)
		return;
	dump_eng_free(c->eng);
	for (size_t i = 0; i < c->n_conns; i++) {
		free(c->conns[i].map[0]);
		free(c->conns[i].map[1]);
	}
	free(c->conns);
	free(c);
}

void top_cap_packet(struct top_cap *c, const struct dump_pkthdr *ph, const uint8_t *buf,
		    uint64_t t_ns)
{
	c->t_ns = t_ns;
	dump_eng_packet(c->eng, ph, buf);
}

void top_cap_finish(struct top_cap *c, uint64_t t_ns)
{
	c->t_ns = t_ns;
	dump_eng_finish(c->eng);
}

static void addr_of(const struct dump_ep *ep, uint8_t a[16])
{
	memset(a, 0, 16);
	if (ep->family == 4) {
		a[10] = a[11] = 0xff;
		memcpy(a + 12, ep->addr, 4);
	} else {
		memcpy(a, ep->addr, 16);
	}
}

static int copy_map(struct wire_cong_map **dst, const struct wire_cong_map *src)
{
	if (!src)
		return 0;
	*dst = malloc(sizeof(**dst));
	if (!*dst)
		return -ENOMEM;
	**dst = *src;
	return 0;
}

/* Totals over every path and direction, listed as counters by the names
 * of rdsdump -z's columns: all of them but conns, the last (how many
 * connections carried a path adds up to nothing). */
#define N_TOTALS (DUMP_PSTATS_COLS - 1)

static int fill_conn(const struct top_cap *c, const struct dump_conn *dc, struct top_snap *out,
		     uint64_t *sums)
{
	const struct cap_conn *k = (size_t)dc->id < c->n_conns ? &c->conns[dc->id] : NULL;
	struct top_conn *tc = top_snap_add_conn(out);
	size_t ci = out->n_conns - 1;

	if (!tc)
		return -ENOMEM;
	addr_of(&dc->a, tc->laddr);
	addr_of(&dc->b, tc->faddr);
	strcpy(tc->transport, dc->xp == DUMP_XP_IB ? "ib" : "tcp");
	tc->flags = k ? k->flags : 0;
	tc->npaths = dc->npaths;
	tc->has_gen = dc->gen[1] != 0;
	tc->gen = dc->gen[1];
	tc->has_bytes = true;
	tc->has_wire = true;
	if (k && (copy_map(&tc->lcl_cong, k->map[0]) < 0 ||
		  copy_map(&tc->peer_cong, k->map[1]) < 0))
		return -ENOMEM;

	for (int p = 0; p < WIRE_MAX_PATHS; p++) {
		const struct dump_pstats *tx = &dc->st[p][0], *rx = &dc->st[p][1];
		uint64_t tconns = tx->conns > rx->conns ? tx->conns : rx->conns;
		uint64_t vt[DUMP_PSTATS_COLS], vr[DUMP_PSTATS_COLS];
		struct top_path *tp;

		if (!tx->msgs && !rx->msgs && !tconns)
			continue;
		dump_pstats_values(tx, vt);
		dump_pstats_values(rx, vr);
		for (size_t t = 0; t < N_TOTALS; t++)
			sums[t] += vt[t] + vr[t];
		tp = top_snap_add_path(out);
		if (!tp)
			return -ENOMEM;
		tc = &out->conns[ci];
		tp->conn = ci;
		tp->index = p;
		memcpy(tp->laddr, tc->laddr, 16);
		memcpy(tp->faddr, tc->faddr, 16);
		if (k) {
			tp->lport = k->port[p][0];
			tp->fport = k->port[p][1];
		}
		tp->has_wire = true;
		tp->tx_msgs = tx->msgs;
		tp->rx_msgs = rx->msgs;
		tp->tx_bytes = tx->bytes;
		tp->rx_bytes = rx->bytes;
		tp->retrans = tx->retransmitted + rx->retransmitted;
		tp->dups = tx->dups + rx->dups;
		tp->reconnects = tconns > 1 ? tconns - 1 : 0;
#define TOP_ADD_COUNT(f) tc->f += tp->f;
		TOP_WIRE_COUNTS(TOP_ADD_COUNT)
#undef TOP_ADD_COUNT
	}
	return 0;
}

int top_cap_fill(const struct top_cap *c, struct top_snap *out)
{
	uint64_t sums[N_TOTALS] = { 0 };
	size_t n = dump_eng_conn_count(c->eng);

	out->no_sockets = true;
	for (size_t i = 0; i < n; i++)
		if (fill_conn(c, dump_eng_conn(c->eng, i), out, sums) < 0)
			return -ENOMEM;
	for (size_t t = 0; t < N_TOTALS; t++) {
		struct top_counter *tc = top_snap_add_counter(out);

		if (!tc)
			return -ENOMEM;
		strcpy(tc->name, dump_pstats_col(t));
		tc->value = sums[t];
	}
	for (size_t i = 0; i < c->ring_n; i++) {
		struct top_cong_event *ev = top_snap_add_event(out);

		if (!ev)
			return -ENOMEM;
		*ev = c->ring[(c->ring_head + i) % TOP_CAP_EVENTS];
	}
	out->events_lost = c->ring_lost;
	return c->nomem ? -ENOMEM : 0;
}
