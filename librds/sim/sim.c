// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * sim.c - in-memory TCP between librds endpoints on a virtual clock. It is
 * a transport like any other: it acts only on link requests, reports TCP
 * events through the rdsu_link_* calls, and lets time pass only to the
 * next thing due (a segment, an acknowledgement, a handshake, a timer).
 *
 * A connection of a frame transport (IB) is an RC queue pair instead:
 * whole frames through the frame calls, in order, each one a segment;
 * the private data of the handshake carried with the SYN and its answer;
 * no loss but a broken connection (RC retries until it gives up); the
 * send completes as the frame arrives. The tap sees only TCP streams.
 */
#include "sim.h"

#include <stdlib.h>
#include <string.h>

#define SIM_MAX_NODES 16

struct sim_seg {
	struct sim_seg *next;
	rdsu_ns at;
	bool rst;               /* kills the connection instead of arriving */
	uint32_t len, off;
	uint8_t data[];
};

struct sim_ack {
	struct sim_ack *next;
	rdsu_ns at;
	uint64_t value;
};

/* One direction of a connection: bytes written by one end. */
struct sim_dir {
	struct sim_seg *head, *tail;
	struct sim_ack *ahead, *atail;
	uint64_t written, delivered, acked;
	rdsu_ns last_at;
	bool want_write;        /* an OUTPUT request is being served */
};

struct sim_end {
	int node;               /* -1: nobody */
	uint64_t link;          /* 0 once the core let go or was told */
	uint16_t port;
	bool up;                /* the core reads and writes it */
	rdsu_ns down_at;        /* when this end learns the connection died */
};

enum sim_tcp_state {
	SIM_SYN,                /* SYN on its way to the acceptor */
	SIM_OPEN,
};

struct sim_tcp {
	struct sim_tcp *next;
	uint32_t id;
	enum sim_tcp_state state;
	uint8_t path;
	struct rdsu_addr addr[2];
	struct sim_end end[2];  /* 0 connector, 1 acceptor */
	struct sim_dir dir[2];  /* dir[e]: written by end e */
	rdsu_ns syn_at;
	rdsu_ns est_at;
	bool est_pending;       /* the connector has not been told yet */
	bool frames;            /* an IB connection: frames, not a stream */
	struct rdsu_link_hs hs[2]; /* private data each end offered */
};

/* Loopback links of a node: one per pair of its own addresses at most. */
#define SIM_LO_LINKS (RDSU_MAX_LADDRS * RDSU_MAX_LADDRS)

struct sim_node {
	struct rdsu_ep *ep;
	bool down;
	struct rdsu_ep_cfg cfg;
	unsigned sport_group;
	uint32_t eph;
	uint32_t ib_post;       /* receive buffers posted per IB link (credits) */
	/* loopback transport links (lo_*): id and stream bytes written */
	struct { uint64_t link, written; } lo[SIM_LO_LINKS];
	unsigned n_lo;
};

struct rdsu_sim {
	struct rdsu_sim_cfg cfg;
	rdsu_ns now;
	uint64_t rng;
	struct sim_node nodes[SIM_MAX_NODES];
	int n_nodes;
	struct sim_tcp *tcps;
	uint32_t next_id;
	struct rdsu_sim_stats st;
	rdsu_sim_event_fn ev_fn;
	void *ev_ud;
	rdsu_sim_tap_fn tap_fn;
	void *tap_ud;
	uint8_t *buf;
};

static uint64_t rnd(struct rdsu_sim *s)
{
	uint64_t z = (s->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static bool chance(struct rdsu_sim *s, uint32_t ppm)
{
	return ppm && rnd(s) % 1000000u < ppm;
}

void rdsu_sim_cfg_default(struct rdsu_sim_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->seed = 1;
	cfg->latency = 50000;
	cfg->jitter = 20000;
	cfg->max_chunk = 1448;
	cfg->window = 256 * 1024;
	cfg->rto = 200 * RDSU_MSEC;
	cfg->port_low = 32768;
	cfg->port_high = 60999;
	cfg->start = RDSU_SEC;
}

int rdsu_sim_new(struct rdsu_sim **out, const struct rdsu_sim_cfg *cfg)
{
	struct rdsu_sim *s;

	*out = NULL;
	if (!cfg->max_chunk || !cfg->window || !cfg->latency || cfg->port_low > cfg->port_high)
		return RDSU_ERR_INVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return RDSU_ERR_NOMEM;
	s->buf = malloc(cfg->max_chunk > RDSU_FRAME_MAX ? cfg->max_chunk : RDSU_FRAME_MAX);
	if (!s->buf) {
		free(s);
		return RDSU_ERR_NOMEM;
	}
	s->cfg = *cfg;
	s->now = cfg->start;
	s->rng = cfg->seed;
	s->next_id = 1;
	*out = s;
	return 0;
}

static void dir_clear(struct sim_dir *d)
{
	while (d->head) {
		struct sim_seg *g = d->head;

		d->head = g->next;
		free(g);
	}
	while (d->ahead) {
		struct sim_ack *a = d->ahead;

		d->ahead = a->next;
		free(a);
	}
	d->tail = NULL;
	d->atail = NULL;
	d->want_write = false;
}

static void tcp_free(struct sim_tcp *t)
{
	dir_clear(&t->dir[0]);
	dir_clear(&t->dir[1]);
	free(t);
}

void rdsu_sim_free(struct rdsu_sim *s)
{
	if (!s)
		return;
	while (s->tcps) {
		struct sim_tcp *t = s->tcps;

		s->tcps = t->next;
		tcp_free(t);
	}
	for (int i = 0; i < s->n_nodes; i++)
		rdsu_ep_free(s->nodes[i].ep);
	free(s->buf);
	free(s);
}

int rdsu_sim_add_node(struct rdsu_sim *s, const struct rdsu_ep_cfg *cfg)
{
	struct sim_node *n;
	int err;

	if (s->n_nodes == SIM_MAX_NODES)
		return RDSU_ERR_INVAL;
	n = &s->nodes[s->n_nodes];
	memset(n, 0, sizeof(*n));
	err = rdsu_ep_new(&n->ep, cfg);
	if (err)
		return err;
	/* As rdsu_ep_new: no further than the caller's structure goes. */
	memcpy(&n->cfg, cfg, cfg->size < sizeof(n->cfg) ? cfg->size : sizeof(n->cfg));
	n->sport_group = 1;
	n->eph = (uint32_t)(rnd(s) % ((unsigned)s->cfg.port_high - s->cfg.port_low + 1));
	return s->n_nodes++;
}

struct rdsu_ep *rdsu_sim_ep(struct rdsu_sim *s, int node)
{
	return node >= 0 && node < s->n_nodes ? s->nodes[node].ep : NULL;
}

rdsu_ns rdsu_sim_now(const struct rdsu_sim *s)
{
	return s->now;
}

void rdsu_sim_set_faults(struct rdsu_sim *s, uint32_t loss_ppm, uint32_t reset_ppm)
{
	s->cfg.loss_ppm = loss_ppm;
	s->cfg.reset_ppm = reset_ppm;
}

void rdsu_sim_set_event_cb(struct rdsu_sim *s, rdsu_sim_event_fn fn, void *ud)
{
	s->ev_fn = fn;
	s->ev_ud = ud;
}

void rdsu_sim_set_tap(struct rdsu_sim *s, rdsu_sim_tap_fn fn, void *ud)
{
	s->tap_fn = fn;
	s->tap_ud = ud;
}

void rdsu_sim_get_stats(const struct rdsu_sim *s, struct rdsu_sim_stats *out)
{
	*out = s->st;
}

static int node_by_addr(const struct rdsu_sim *s, const struct rdsu_addr *a)
{
	for (int i = 0; i < s->n_nodes; i++)
		for (unsigned j = 0; j < s->nodes[i].cfg.n_laddrs; j++)
			if (rdsu_addr_cmp(&s->nodes[i].cfg.laddrs[j], a) == 0)
				return i;
	return -1;
}

static bool tcp_live(const struct sim_tcp *t)
{
	return t->end[0].link || t->end[1].link || t->state == SIM_SYN || t->est_pending ||
	       t->end[0].down_at != RDSU_NS_NEVER || t->end[1].down_at != RDSU_NS_NEVER;
}

int rdsu_sim_count_conns(const struct rdsu_sim *s, int a, int b)
{
	int n = 0;

	for (const struct sim_tcp *t = s->tcps; t; t = t->next)
		if (((t->end[0].node == a && t->end[1].node == b) ||
		     (t->end[0].node == b && t->end[1].node == a)) &&
		    t->end[0].link && t->end[1].link)
			n++;
	return n;
}

static struct sim_tcp *tcp_find(struct rdsu_sim *s, int node, uint64_t link, int *e)
{
	for (struct sim_tcp *t = s->tcps; t; t = t->next)
		for (int i = 0; i < 2; i++)
			if (t->end[i].node == node && t->end[i].link == link) {
				*e = i;
				return t;
			}
	return NULL;
}

static bool port_in_use(const struct rdsu_sim *s, int node, uint16_t port)
{
	for (const struct sim_tcp *t = s->tcps; t; t = t->next)
		if (t->end[0].node == node && t->end[0].port == port && tcp_live(t))
			return true;
	return false;
}

static uint16_t pick_port(struct rdsu_sim *s, int node, const struct rdsu_lreq *r)
{
	struct sim_node *n = &s->nodes[node];
	uint32_t span = (uint32_t)s->cfg.port_high - s->cfg.port_low + 1;

	for (uint32_t tries = 0; tries < span; tries++) {
		uint16_t p;

		if (r->sport_mod) {
			/* 7.2: the next group of 8 on every connect. */
			p = rdsu_sport_pick(s->cfg.port_low, s->cfg.port_high, r->sport_res,
					    n->sport_group++);
			if (!p) {
				n->sport_group = 0;
				continue;
			}
		} else {
			p = (uint16_t)(s->cfg.port_low + n->eph++ % span);
		}
		if (!port_in_use(s, node, p))
			return p;
	}
	return 0;
}

/* The connection dies (RST): end |first| learns at |t1|, the other at |t2|. */
static void tcp_kill(struct sim_tcp *t, int first, rdsu_ns t1, rdsu_ns t2)
{
	dir_clear(&t->dir[0]);
	dir_clear(&t->dir[1]);
	if (t->state == SIM_SYN) {
		t->state = SIM_OPEN;
		t->end[1].link = 0;
	}
	if (t->est_pending) {
		/* The connector never got established: its connect fails. */
		t->est_pending = false;
	}
	if (t->end[first].link)
		t->end[first].down_at = t1;
	if (t->end[!first].link)
		t->end[!first].down_at = t2;
}

/* The core asked to close end |e| (or let go of it): |e| is gone, the other
 * end hears a FIN after the data already sent, or an RST. */
static void tcp_close_end(struct rdsu_sim *s, struct sim_tcp *t, int e, bool reset)
{
	int o = !e;

	t->end[e].link = 0;
	t->end[e].up = false;
	t->end[e].down_at = RDSU_NS_NEVER;
	if (e == 0)
		t->est_pending = false;
	if (t->state == SIM_SYN) {
		/* Aborted before the acceptor saw it. */
		t->state = SIM_OPEN;
		dir_clear(&t->dir[0]);
		return;
	}
	dir_clear(&t->dir[o]);
	if (reset)
		dir_clear(&t->dir[e]);
	if (t->end[o].link) {
		rdsu_ns at = s->now + s->cfg.latency;

		if (!reset && t->dir[e].head && t->dir[e].last_at > at)
			at = t->dir[e].last_at;
		t->end[o].down_at = at;
	}
}

static int do_connect(struct rdsu_sim *s, int node, const struct rdsu_lreq *r)
{
	struct sim_tcp *t = calloc(1, sizeof(*t)), **pp;
	int dst = node_by_addr(s, &r->faddr);

	if (!t)
		return RDSU_ERR_NOMEM;
	t->id = s->next_id++;
	t->path = r->path;
	t->addr[0] = r->laddr;
	t->addr[1] = r->faddr;
	t->end[0].node = node;
	t->end[0].link = r->link;
	t->end[0].port = pick_port(s, node, r);
	t->end[0].down_at = RDSU_NS_NEVER;
	t->end[1].node = dst;
	t->end[1].port = r->dport;
	t->end[1].down_at = RDSU_NS_NEVER;
	t->frames = r->trans == RDSU_TRANS_IB;
	if (t->frames) {
		struct rdsu_ep *ep = s->nodes[node].ep;

		if (s->nodes[node].ib_post)
			(void)rdsu_link_posted(ep, r->link, s->nodes[node].ib_post, s->now);
		(void)rdsu_link_hs_offer(ep, r->link, &t->hs[0]);
	}
	s->st.connects++;
	if (dst < 0 || !s->nodes[dst].ep || s->nodes[dst].down || s->nodes[node].down ||
	    !t->end[0].port) {
		/* Nobody listens there: the connect fails one RTT later. */
		t->state = SIM_OPEN;
		t->end[0].down_at = s->now + 2 * s->cfg.latency;
	} else {
		t->state = SIM_SYN;
		t->syn_at = s->now + s->cfg.latency;
	}
	for (pp = &s->tcps; *pp; pp = &(*pp)->next)
		;
	*pp = t;
	return 0;
}

/*
 * The loopback transport, as librds/io/lo.c runs it (net/rds/loop.c): up
 * at once, and what the core writes is its own input, acknowledged at
 * once. It takes no virtual time, as the kernel's takes no network.
 */
static int lo_find(const struct sim_node *n, uint64_t link)
{
	for (unsigned i = 0; i < n->n_lo; i++)
		if (n->lo[i].link == link)
			return (int)i;
	return -1;
}

static void lo_forget(struct sim_node *n, uint64_t link)
{
	int i = lo_find(n, link);

	if (i >= 0)
		n->lo[i] = n->lo[--n->n_lo];
}

static void lo_connect(struct rdsu_sim *s, int node, const struct rdsu_lreq *r)
{
	struct sim_node *n = &s->nodes[node];

	if (n->n_lo == SIM_LO_LINKS) {
		(void)rdsu_link_down(n->ep, r->link, s->now);
		return;
	}
	n->lo[n->n_lo].link = r->link;
	n->lo[n->n_lo++].written = 0;
	if (rdsu_link_established(n->ep, r->link, 0, s->now) < 0)
		lo_forget(n, r->link);
}

static void lo_output(struct rdsu_sim *s, int node, uint64_t link)
{
	struct sim_node *n = &s->nodes[node];
	size_t cap = s->cfg.max_chunk > RDSU_FRAME_MAX ? s->cfg.max_chunk : RDSU_FRAME_MAX;

	for (;;) {
		int i = lo_find(n, link);
		ssize_t got;

		if (i < 0)
			return;
		got = rdsu_link_output(n->ep, link, s->buf, cap, s->now);
		if (got <= 0) {
			if (got < 0)
				lo_forget(n, link);
			return;
		}
		n->lo[i].written += (uint64_t)got;
		if (rdsu_link_input(n->ep, link, s->buf, (size_t)got, s->now) < 0 ||
		    rdsu_link_acked(n->ep, link, n->lo[i].written, s->now) < 0) {
			lo_forget(n, link);
			return;
		}
	}
}

static int drain_reqs(struct rdsu_sim *s, int node)
{
	struct rdsu_ep *ep = s->nodes[node].ep;
	struct rdsu_lreq r;
	int n = 0;

	if (!ep)
		return 0;
	while (rdsu_ep_next_link_req(ep, &r) == 1) {
		struct sim_tcp *t;
		int e;

		n++;
		if (r.type == RDSU_LREQ_CONNECT) {
			if (r.trans == RDSU_TRANS_LOOP)
				lo_connect(s, node, &r);
			else
				do_connect(s, node, &r);
			continue;
		}
		if (lo_find(&s->nodes[node], r.link) >= 0) {
			if (r.type == RDSU_LREQ_CLOSE)
				lo_forget(&s->nodes[node], r.link);
			else if (r.type == RDSU_LREQ_OUTPUT)
				lo_output(s, node, r.link);
			continue;
		}
		t = tcp_find(s, node, r.link, &e);
		if (!t)
			continue;
		switch (r.type) {
		case RDSU_LREQ_CLOSE:
			tcp_close_end(s, t, e, r.reset);
			break;
		case RDSU_LREQ_OUTPUT:
			t->dir[e].want_write = true;
			break;
		case RDSU_LREQ_ATTACH:
			t->end[e].up = true;
			break;
		default:
			break;
		}
	}
	return n;
}

static void seg_push(struct rdsu_sim *s, struct sim_tcp *t, int e, const uint8_t *p, size_t n)
{
	struct sim_dir *d = &t->dir[e];
	struct sim_seg *g = malloc(sizeof(*g) + n);
	rdsu_ns at = s->now + s->cfg.latency;

	if (!g)
		abort();
	if (s->cfg.jitter)
		at += rnd(s) % (s->cfg.jitter + 1);
	if (at < d->last_at)
		at = d->last_at;
	g->rst = false;
	if (chance(s, s->cfg.loss_ppm)) {
		s->st.losses++;
		/* RC gives up on a lost frame only with the connection */
		if (t->frames)
			g->rst = true;
		else
			at += s->cfg.rto;
	}
	g->next = NULL;
	g->at = at;
	g->rst = g->rst || chance(s, s->cfg.reset_ppm);
	g->len = (uint32_t)n;
	g->off = 0;
	memcpy(g->data, p, n);
	d->last_at = at;
	if (d->tail)
		d->tail->next = g;
	else
		d->head = g;
	d->tail = g;
	d->written += n;
	s->st.segments++;
	s->st.bytes += n;
	if (s->tap_fn && !t->frames)
		s->tap_fn(s->tap_ud, t->end[e].node, t->end[!e].node, t->id, t->path, p, n);
}

static int write_all(struct rdsu_sim *s)
{
	int acts = 0;

	for (struct sim_tcp *t = s->tcps; t; t = t->next)
		for (int e = 0; e < 2; e++) {
			struct sim_dir *d = &t->dir[e];
			struct sim_end *me = &t->end[e];

			while (d->want_write && me->link && me->up && t->end[!e].link) {
				struct rdsu_ep *ep = s->nodes[me->node].ep;
				uint64_t room = s->cfg.window - (d->written - d->acked);
				size_t chunk = 1 + (size_t)(rnd(s) % s->cfg.max_chunk);
				ssize_t n;

				if (d->written - d->acked >= s->cfg.window)
					break; /* wait for acknowledgements */
				if (chunk > room)
					chunk = (size_t)room;
				if (t->frames)
					n = rdsu_link_output_frame(ep, me->link, s->buf, RDSU_FRAME_MAX,
								   s->now);
				else
					n = rdsu_link_output(ep, me->link, s->buf, chunk, s->now);
				acts++;
				if (n < 0) {
					tcp_close_end(s, t, e, true);
					break;
				}
				if (n == 0) {
					d->want_write = false;
					break;
				}
				seg_push(s, t, e, s->buf, (size_t)n);
			}
		}
	return acts;
}

/* Return: segments handled (0 while the receiver is held). */
static int deliver(struct rdsu_sim *s, struct sim_tcp *t, int e)
{
	struct sim_dir *d = &t->dir[e];
	struct sim_end *rx = &t->end[!e];
	int done = 0;

	for (; d->head && d->head->at <= s->now; done++) {
		struct sim_seg *g = d->head;
		struct sim_ack *a;
		ssize_t n;

		if (!rx->link) {
			dir_clear(d);
			return done + 1;
		}
		if (g->rst) {
			s->st.resets++;
			tcp_kill(t, !e, s->now, s->now + s->cfg.latency);
			return done + 1;
		}
		if (!rx->up)
			return done; /* held: TCP keeps it buffered */
		if (t->frames) {
			n = rdsu_link_input_frame(s->nodes[rx->node].ep, rx->link, g->data, g->len,
						  s->now);
			if (n == 0) {
				n = g->len;
				/* the receive buffer goes back on the ring */
				if (s->nodes[rx->node].ib_post)
					(void)rdsu_link_posted(s->nodes[rx->node].ep, rx->link, 1,
							       s->now);
			}
		} else {
			n = rdsu_link_input(s->nodes[rx->node].ep, rx->link, g->data + g->off,
					    g->len - g->off, s->now);
		}
		if (n < 0) {
			/* The core dropped the link (and asked for an RST). */
			rx->link = 0;
			rx->up = false;
			tcp_kill(t, e, s->now + s->cfg.latency, s->now);
			return done + 1;
		}
		g->off += (uint32_t)n;
		if (g->off < g->len)
			return done + (n > 0);
		d->delivered += g->len;
		d->head = g->next;
		if (!d->head)
			d->tail = NULL;
		free(g);
		if (t->frames) {
			/* the send completed; acknowledgement is in the frames */
			d->acked = d->delivered;
			continue;
		}
		a = malloc(sizeof(*a));
		if (!a)
			abort();
		a->next = NULL;
		a->at = s->now + s->cfg.latency;
		a->value = d->delivered;
		if (d->atail)
			d->atail->next = a;
		else
			d->ahead = a;
		d->atail = a;
	}
	return done;
}

static void take_acks(struct rdsu_sim *s, struct sim_tcp *t, int e)
{
	struct sim_dir *d = &t->dir[e];
	struct sim_end *me = &t->end[e];

	while (d->ahead && d->ahead->at <= s->now) {
		struct sim_ack *a = d->ahead;

		d->ahead = a->next;
		if (!d->ahead)
			d->atail = NULL;
		d->acked = a->value;
		if (me->link && me->up)
			rdsu_link_acked(s->nodes[me->node].ep, me->link, a->value, s->now);
		free(a);
	}
}

static int process_due(struct rdsu_sim *s)
{
	int acts = 0;

	for (struct sim_tcp *t = s->tcps; t; t = t->next) {
		if (t->state == SIM_SYN && t->syn_at <= s->now &&
		    (s->nodes[t->end[1].node].down || s->nodes[t->end[0].node].down)) {
			/* No answer from a node that is gone. */
			acts++;
			t->state = SIM_OPEN;
			t->end[0].down_at = s->now + s->cfg.latency;
		}
		if (t->state == SIM_SYN && t->syn_at <= s->now) {
			struct rdsu_ep *ep = s->nodes[t->end[1].node].ep;
			uint64_t link = 0;
			int r = ep ? rdsu_link_accept_on(ep, t->frames ? RDSU_TRANS_IB : RDSU_TRANS_TCP,
							 &t->addr[1], &t->addr[0], t->end[0].port,
							 s->now, &link)
				   : RDSU_ERR_REFUSED;

			acts++;
			t->state = SIM_OPEN;
			t->est_pending = true;
			t->est_at = s->now + s->cfg.latency;
			if (r == RDSU_ACCEPT_UP || r == RDSU_ACCEPT_HELD) {
				s->st.accepted++;
				t->end[1].link = link;
				t->end[1].up = r == RDSU_ACCEPT_UP;
				if (t->frames) {
					uint32_t post = s->nodes[t->end[1].node].ib_post;

					(void)rdsu_link_hs_peer(ep, link, &t->hs[0], s->now);
					if (post)
						(void)rdsu_link_posted(ep, link, post, s->now);
					(void)rdsu_link_hs_offer(ep, link, &t->hs[1]);
				}
			} else {
				/* TCP: established, then reset straight away; IB:
				 * rejected, never established. */
				s->st.refused++;
				t->end[0].down_at = t->est_at;
				if (t->frames)
					t->est_pending = false;
			}
		}
		if (t->est_pending && t->est_at <= s->now) {
			int r;

			acts++;
			t->est_pending = false;
			if (!t->end[0].link)
				continue;
			if (t->frames)
				(void)rdsu_link_hs_peer(s->nodes[t->end[0].node].ep, t->end[0].link,
							&t->hs[1], s->now);
			r = rdsu_link_established(s->nodes[t->end[0].node].ep, t->end[0].link,
						  t->end[0].port, s->now);
			if (r == 0)
				t->end[0].up = true;
			else
				tcp_close_end(s, t, 0, false);
		}
		for (int e = 0; e < 2; e++) {
			if (t->dir[e].head && t->dir[e].head->at <= s->now)
				acts += deliver(s, t, e);
			if (t->dir[e].ahead && t->dir[e].ahead->at <= s->now) {
				acts++;
				take_acks(s, t, e);
			}
		}
		for (int e = 0; e < 2; e++) {
			struct sim_end *me = &t->end[e];

			if (me->down_at > s->now)
				continue;
			acts++;
			me->down_at = RDSU_NS_NEVER;
			if (me->link && s->nodes[me->node].ep)
				rdsu_link_down(s->nodes[me->node].ep, me->link, s->now);
			me->link = 0;
			me->up = false;
		}
	}
	/* Reap connections nothing refers to any more. */
	for (struct sim_tcp **pp = &s->tcps; *pp;) {
		struct sim_tcp *t = *pp;

		if (!tcp_live(t)) {
			*pp = t->next;
			tcp_free(t);
		} else {
			pp = &t->next;
		}
	}
	return acts;
}

static void drain_events(struct rdsu_sim *s, int node)
{
	struct rdsu_ep *ep = s->nodes[node].ep;
	struct rdsu_event ev;

	if (!ep)
		return;
	while (rdsu_ep_next_event(ep, &ev) == 1)
		if (s->ev_fn)
			s->ev_fn(s->ev_ud, node, &ev);
}

static void pump(struct rdsu_sim *s)
{
	for (int rounds = 0; rounds < 1000000; rounds++) {
		int acts = 0;

		for (int i = 0; i < s->n_nodes; i++) {
			struct rdsu_ep *ep = s->nodes[i].ep;

			if (ep && rdsu_ep_deadline(ep) <= s->now)
				acts += rdsu_ep_expire(ep, s->now);
			acts += drain_reqs(s, i);
		}
		acts += write_all(s);
		acts += process_due(s);
		for (int i = 0; i < s->n_nodes; i++)
			drain_events(s, i);
		if (!acts)
			return;
	}
	abort(); /* a livelock between core and simulator */
}

static rdsu_ns next_time(const struct rdsu_sim *s)
{
	rdsu_ns best = RDSU_NS_NEVER;

#define SIM_MIN(x)                                                                                 \
	do {                                                                                       \
		rdsu_ns v_ = (x);                                                                  \
		if (v_ < best)                                                                     \
			best = v_;                                                                 \
	} while (0)

	for (const struct sim_tcp *t = s->tcps; t; t = t->next) {
		if (t->state == SIM_SYN)
			SIM_MIN(t->syn_at);
		if (t->est_pending)
			SIM_MIN(t->est_at);
		for (int e = 0; e < 2; e++) {
			if (t->dir[e].head && (t->end[!e].up || t->dir[e].head->rst))
				SIM_MIN(t->dir[e].head->at);
			if (t->dir[e].ahead)
				SIM_MIN(t->dir[e].ahead->at);
			SIM_MIN(t->end[e].down_at);
		}
	}
	for (int i = 0; i < s->n_nodes; i++)
		if (s->nodes[i].ep)
			SIM_MIN(rdsu_ep_deadline(s->nodes[i].ep));
#undef SIM_MIN
	return best;
}

int rdsu_sim_run_until(struct rdsu_sim *s, rdsu_ns t)
{
	for (;;) {
		rdsu_ns nt;

		pump(s);
		nt = next_time(s);
		if (nt > t)
			break;
		if (nt > s->now)
			s->now = nt;
	}
	if (t > s->now)
		s->now = t;
	return 0;
}

int rdsu_sim_run_for(struct rdsu_sim *s, rdsu_ns d)
{
	return rdsu_sim_run_until(s, s->now + d);
}

int rdsu_sim_run_idle(struct rdsu_sim *s, rdsu_ns limit)
{
	for (;;) {
		rdsu_ns nt;

		pump(s);
		nt = next_time(s);
		if (nt == RDSU_NS_NEVER)
			return 0;
		if (nt > limit) {
			if (limit > s->now)
				s->now = limit;
			return RDSU_ERR_AGAIN;
		}
		if (nt > s->now)
			s->now = nt;
	}
}

int rdsu_sim_reset_conns(struct rdsu_sim *s, int a, int b, uint8_t path_mask)
{
	int n = 0;

	for (struct sim_tcp *t = s->tcps; t; t = t->next) {
		int ea;

		if (t->state != SIM_OPEN || !t->end[0].link || !t->end[1].link)
			continue;
		if (t->end[0].node == a && t->end[1].node == b)
			ea = 0;
		else if (t->end[1].node == a && t->end[0].node == b)
			ea = 1;
		else
			continue;
		if (!(path_mask & (1u << t->path)))
			continue;
		tcp_kill(t, ea, s->now, s->now + s->cfg.latency);
		s->st.resets++;
		n++;
	}
	pump(s);
	return n;
}

int rdsu_sim_reboot(struct rdsu_sim *s, int node, uint32_t gen_num)
{
	struct sim_node *n = &s->nodes[node];
	int err;

	for (struct sim_tcp *t = s->tcps; t; t = t->next)
		for (int e = 0; e < 2; e++) {
			if (t->end[e].node != node)
				continue;
			if (t->state == SIM_SYN)
				t->state = SIM_OPEN; /* the SYN dies with the node */
			t->end[e].link = 0;
			t->end[e].up = false;
			t->end[e].down_at = RDSU_NS_NEVER;
			if (e == 0)
				t->est_pending = false;
			dir_clear(&t->dir[0]);
			dir_clear(&t->dir[1]);
			if (t->end[!e].link)
				t->end[!e].down_at = s->now + s->cfg.latency;
		}
	rdsu_ep_free(n->ep);
	n->ep = NULL;
	n->n_lo = 0;
	n->cfg.gen_num = gen_num;
	err = rdsu_ep_new(&n->ep, &n->cfg);
	pump(s);
	return err;
}

void rdsu_sim_set_down(struct rdsu_sim *s, int node, bool down)
{
	s->nodes[node].down = down;
	if (!down)
		return;
	for (struct sim_tcp *t = s->tcps; t; t = t->next) {
		int e;

		if (t->end[0].node == node)
			e = 0;
		else if (t->end[1].node == node)
			e = 1;
		else
			continue;
		if (t->state != SIM_OPEN)
			continue;
		if (t->end[0].link || t->end[1].link) {
			tcp_kill(t, e, s->now, s->now + s->cfg.latency);
			s->st.resets++;
		}
	}
	pump(s);
}

void rdsu_sim_set_ib_credits(struct rdsu_sim *s, int node, uint32_t n)
{
	if (node >= 0 && node < s->n_nodes)
		s->nodes[node].ib_post = n;
}
