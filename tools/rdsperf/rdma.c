// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rdma.c - rdsperf's RDMA tests (engine.h): rdma-write, rdma-read and
 * atomic, over librds or the kernel's AF_RDS through rio.
 *
 * Memory: sockets x depth slots of the test's size (8 bytes for atomics),
 * consecutive, in regions of at most 1 MiB (the largest RDS_GET_MR takes,
 * net/rds/rdma.c __rds_rdma_map). Slot k is operated on only by the
 * client's socket k % sockets and has at most one operation in flight, so
 * the client knows what every slot holds at the end: for rdma-write its
 * pattern once written (zeros before), for rdma-read the server's pattern,
 * for atomic the count of operations done on it.
 */
#define _GNU_SOURCE
#include "engine.h"
#include "payload.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define REGION_MAX PERF_MAX_SIZE
#define PAGE 4096
#define MR_MAGIC "rdmr"          /* a cookie's message: magic, region index */
#define MAP_TIMEOUT (10 * RDSU_SEC)
/* After the test's time, how long the client waits for the notifications
 * of the operations still in flight. */
#define SETTLE_MAX (10 * RDSU_SEC)

struct layout {
	uint32_t slot;          /* bytes a slot */
	unsigned slots, per_region, regions;
};

static void layout_of(const struct perf_params *p, struct layout *l)
{
	l->slot = p->test == PERF_ATOMIC ? PERF_ATOMIC_SIZE : p->size;
	l->slots = p->sockets * p->depth;
	l->per_region = REGION_MAX / l->slot ? REGION_MAX / l->slot : 1;
	l->regions = (l->slots + l->per_region - 1) / l->per_region;
}

/* The pattern of slot |k|: what rdma-read finds there, rdma-write puts. */
static void pattern(uint8_t *buf, const struct layout *l, const struct perf_params *p, unsigned k)
{
	payload_fill(buf, l->slot, (uint16_t)k, p->client_ports[0] + (p->test == PERF_RDMA_WRITE));
}

/* ------------------------------------------------------------------------
 * Server
 */

/* One cookie's message: its region registered with RDMA_MAP. */
static int send_map(struct rio *r, struct rio_sock *s, const struct perf_params *p,
		    const struct rdsu_addr *client, unsigned i, uint8_t *at, size_t len,
		    uint64_t *cookie_out)
{
	uint8_t msg[8];
	uint64_t cookie = 0;
	uint32_t be = htonl(i);
	struct rdsu_op op = {
		.kind = RDSU_OP_MAP, .flags = RDSU_RDMA_READWRITE,
		.map_addr = at, .map_len = len, .map_cookie = &cookie,
	};
	rdsu_ns end = rdsu_clock() + MAP_TIMEOUT;
	int e;

	memcpy(msg, MR_MAGIC, 4);
	memcpy(msg + 4, &be, 4);
	/* the kernel answers EAGAIN until the connection is up (send.c
	 * rds_cmsg_send); SNDBUF may be full of earlier cookies */
	while ((e = rio_send_op(s, client, p->client_ports[0], msg, sizeof(msg), &op)) == -EAGAIN ||
	       e == -ENOBUFS) {
		if (rdsu_clock() >= end)
			break;
		(void)rio_idle(r, 10 * RDSU_MSEC);
	}
	*cookie_out = cookie;
	return e;
}

int perf_rdma_serve(struct perf_rdma_srv *m, struct rio *r, struct rio_sock *s,
		    const struct perf_params *p, const struct rdsu_addr *client, const char **what)
{
	struct layout l;
	void *mem = NULL;
	int e;

	layout_of(p, &l);
	m->len = (size_t)l.slots * l.slot;
	m->slot = l.slot;
	*what = "memory";
	if (posix_memalign(&mem, PAGE, m->len))
		return -ENOMEM;
	m->mem = mem;
	memset(m->mem, 0, m->len);
	if (p->test == PERF_RDMA_READ)
		for (unsigned k = 0; k < l.slots; k++)
			pattern(m->mem + (size_t)k * l.slot, &l, p, k);
	*what = "registering memory and sending its cookie (RDS_CMSG_RDMA_MAP)";
	for (unsigned i = 0; i < l.regions; i++) {
		size_t off = (size_t)i * l.per_region * l.slot;
		size_t len = m->len - off < (size_t)l.per_region * l.slot ? m->len - off
									   : (size_t)l.per_region * l.slot;

		e = send_map(r, s, p, client, i, m->mem + off, len, &m->cookies[i]);
		if (e < 0)
			return e;
		m->s = s;
		m->regions = i + 1;
	}
	(void)rio_flush(r);
	return 0;
}

uint64_t perf_rdma_hash(const struct perf_rdma_srv *m)
{
	uint64_t h = PAYLOAD_DIGEST0;

	for (size_t off = 0; off < m->len; off += m->slot)
		h = payload_digest(h, m->mem + off, m->slot);
	return h;
}

/* A region let go without INVALIDATE keeps its r_key valid on the HCA
 * (docs/kernel-behaviour.md, RDMA table: it still takes RDMA), and the
 * kernel's FRMR pool hands such a region out again: free them as a
 * careful application does. */
void perf_rdma_unmap(struct perf_rdma_srv *m)
{
	for (unsigned i = 0; i < m->regions; i++)
		(void)rio_free_mr(m->s, m->cookies[i], RDSU_RDMA_INVALIDATE);
	m->regions = 0;
}

void perf_rdma_srv_free(struct perf_rdma_srv *m)
{
	free(m->mem);
	m->mem = NULL;
}

/* ------------------------------------------------------------------------
 * Client
 */

struct slot {
	bool busy, done;        /* an operation in flight; one completed */
	rdsu_ns t;              /* its submit time */
	uint64_t bytes;
};

struct rcli {
	struct perf_client *c;
	const struct perf_params *p;
	struct layout l;
	uint64_t cookies[PERF_RDMA_MAX_SLOTS];
	bool have[PERF_RDMA_MAX_SLOTS];
	struct slot s[PERF_RDMA_MAX_SLOTS];
	uint8_t *mem;           /* the client's side of every slot */
	uint64_t *vals;         /* atomic: each slot's value now */
	uint64_t seq;           /* operations submitted */
	unsigned busy;
	bool blocked[PERF_MAX_SOCKS];
	rdsu_ns omit_end, t_end; /* counted: completions between these */
	uint8_t rx[64];
};

/* The cookies, one message each on the first socket. Return: 0;
 * negative errno (-ETIMEDOUT: not all came). */
static int get_cookies(struct rcli *x)
{
	struct perf_client *c = x->c;
	rdsu_ns end = rdsu_clock() + MAP_TIMEOUT;
	unsigned want = RIO_POLLIN, got;

	while (c->rdma.regions < x->l.regions) {
		struct rio_rx rx;
		uint32_t be;
		int e = rio_recv_op(c->socks[0], x->rx, sizeof(x->rx), &rx);

		if (e == 1 && rx.len == 8 && !memcmp(x->rx, MR_MAGIC, 4) && rx.has_cookie) {
			memcpy(&be, x->rx + 4, 4);
			be = ntohl(be);
			if (be < x->l.regions && !x->have[be]) {
				x->cookies[be] = rx.cookie;
				x->have[be] = true;
				c->rdma.regions++;
			}
			continue;
		}
		if (e >= 0)
			continue;  /* nothing else is expected: ignored */
		if (e != -EAGAIN)
			return e;
		if (rdsu_clock() >= end || *c->stop)
			return -ETIMEDOUT;
		e = rio_wait(c->r, &c->socks[0], &want, &got, 1, end);
		if (e < 0 && e != -EINTR)
			return e;
	}
	return 0;
}

/* Submit slot |k|'s next operation. Return: 1 submitted; 0 the socket
 * is full (EAGAIN, ENOBUFS); negative errno. */
static int submit(struct rcli *x, unsigned k, rdsu_ns now)
{
	struct perf_client *c = x->c;
	const struct perf_params *p = x->p;
	unsigned sock = k % p->sockets, reg = k / x->l.per_region;
	uint8_t *local = x->mem + (size_t)k * x->l.slot;
	struct iovec lv = { local, x->l.slot };
	struct rdsu_op op = {
		.flags = RDSU_RDMA_NOTIFY_ME,
		.user_token = k,
		.cookie = x->cookies[reg],
		.remote_addr = (uint64_t)(k % x->l.per_region) * x->l.slot,
	};
	uint64_t msg = x->seq;
	int e;

	if (p->test == PERF_ATOMIC) {
		/* FADD and CSWP in turn, each adding one to the slot */
		op.result = &x->vals[x->l.slots + k];
		op.kind = x->seq % 2 ? RDSU_OP_CSWP : RDSU_OP_FADD;
		op.add = 1;
		op.compare = x->vals[k];
		op.swap = x->vals[k] + 1;
		x->vals[x->l.slots + k] = ~x->vals[k];
	} else {
		op.kind = RDSU_OP_RDMA;
		op.flags |= p->test == PERF_RDMA_WRITE ? RDSU_RDMA_READWRITE : 0;
		op.remote_len = x->l.slot;
		op.local = &lv;
		op.nr_local = 1;
	}
	e = rio_send_op(c->socks[sock], &c->dst, c->dports[sock], &msg, sizeof(msg), &op);
	if (e == -EAGAIN || e == -ENOBUFS) {
		c->cur.c.eagain += e == -EAGAIN;
		c->cur.c.enobufs += e == -ENOBUFS;
		if (now >= x->omit_end) {
			c->total.eagain += e == -EAGAIN;
			c->total.enobufs += e == -ENOBUFS;
		}
		x->blocked[sock] = true;
		return 0;
	}
	if (e < 0)
		return e;
	x->seq++;
	x->s[k] = (struct slot){ .busy = true, .done = x->s[k].done, .t = now, .bytes = x->l.slot };
	x->busy++;
	c->cur.c.msgs++;
	c->cur.c.bytes += x->l.slot;
	if (now >= x->omit_end) {
		c->total.msgs++;
		c->total.bytes += x->l.slot;
	}
	return 1;
}

/* Notification |n| ends its slot's operation. */
static void complete(struct rcli *x, const struct rdsu_notify *n, rdsu_ns now)
{
	struct perf_client *c = x->c;
	struct perf_rdma_out *o = &c->rdma;
	struct slot *s;
	unsigned k;

	if (n->user_token >= x->l.slots || !x->s[n->user_token].busy) {
		o->bad_values++;  /* a notification for nothing we sent */
		return;
	}
	k = (unsigned)n->user_token;
	s = &x->s[k];
	s->busy = false;
	x->busy--;
	if (n->status != RDSU_RDMA_SUCCESS) {
		if (!o->failed++)
			o->first_status = n->status;
		return;
	}
	s->done = true;
	if (x->p->test == PERF_ATOMIC) {
		o->bad_values += x->vals[x->l.slots + k] != x->vals[k];
		x->vals[k]++;
	}
	o->ops++;
	o->bytes += s->bytes;
	c->cur.c.rmsgs++;
	c->cur.c.rbytes += s->bytes;
	hist_add(&c->cur.lat, now - s->t);
	if (now >= x->omit_end && now < x->t_end) {
		c->total.rmsgs++;
		c->total.rbytes += s->bytes;
		hist_add(&c->lat, now - s->t);
	}
}

/* Read every socket: notifications end operations; messages are not
 * expected (the server sends only the cookies) and are dropped. Return:
 * 1 something came; 0 nothing; negative errno. */
static int reap(struct rcli *x)
{
	struct perf_client *c = x->c;
	bool progress = false;

	for (unsigned i = 0; i < x->p->sockets; i++) {
		struct rio_rx rx;
		int e;

		while ((e = rio_recv_op(c->socks[i], x->rx, sizeof(x->rx), &rx)) >= 0) {
			rdsu_ns now = rdsu_clock();

			progress = true;
			for (unsigned j = 0; j < rx.n_notes; j++)
				complete(x, &rx.notes[j], now);
		}
		if (e != -EAGAIN)
			return e;
	}
	return progress;
}

/* What the server's memory must hold now, and the reads' bytes checked. */
static void expect(struct rcli *x)
{
	struct perf_rdma_out *o = &x->c->rdma;
	uint8_t *want = calloc(1, x->l.slot);
	uint64_t h = PAYLOAD_DIGEST0;

	if (!want) {
		o->bad_values++;
		return;
	}
	for (unsigned k = 0; k < x->l.slots; k++) {
		const uint8_t *local = x->mem + (size_t)k * x->l.slot;

		if (x->p->test == PERF_ATOMIC) {
			h = payload_digest(h, (const uint8_t *)&x->vals[k], 8);
			continue;
		}
		if (x->p->test == PERF_RDMA_WRITE) {
			h = payload_digest(h, x->s[k].done ? local : want, x->l.slot);
			continue;
		}
		pattern(want, &x->l, x->p, k);
		h = payload_digest(h, want, x->l.slot);
		o->bad_values += x->s[k].done && memcmp(local, want, x->l.slot) != 0;
	}
	o->expect_hash = h;
	free(want);
}

/* Wait for a notification, a socket taking more, or |until|. */
static int rdma_wait(struct rcli *x, rdsu_ns until)
{
	struct perf_client *c = x->c;
	unsigned want[PERF_MAX_SOCKS], got[PERF_MAX_SOCKS];
	int e;

	for (unsigned i = 0; i < x->p->sockets; i++)
		want[i] = RIO_POLLIN | (x->blocked[i] ? RIO_POLLOUT : 0);
	if (c->sched == SCHED_BUSY)
		return rio_io(c->r) ? rio_idle(c->r, 0) : 0;
	e = rio_wait(c->r, c->socks, want, got, x->p->sockets, until);
	if (e < 0)
		return e == -EINTR ? 0 : e;
	for (unsigned i = 0; i < x->p->sockets; i++)
		if (got[i] & RIO_POLLOUT)
			x->blocked[i] = false;
	return 0;
}

/* The test proper, from the cookies to the last notification. */
static int run_ops(struct rcli *x, rdsu_ns t0)
{
	struct perf_client *c = x->c;
	rdsu_ns t_end = x->t_end, settle = 0;
	rdsu_ns iv = (rdsu_ns)(c->interval * 1e9), next_iv = iv ? t0 + iv : RDSU_NS_NEVER;
	double cpu0 = 0;
	int e = 0;

	for (;;) {
		rdsu_ns now = rdsu_clock();
		bool ending = now >= t_end || *c->stop;
		int moved = 0;

		if (!cpu0 && now >= x->omit_end)
			cpu0 = perf_cpu_seconds();
		if (!settle && (now >= next_iv || ending)) {
			perf_report_interval(c, now < next_iv ? now : next_iv, t0, x->omit_end);
			while (iv && next_iv <= now)
				next_iv += iv;
		}
		if (ending && !settle) {
			settle = now + SETTLE_MAX;
			x->t_end = now;
			c->measured = now > x->omit_end ? (double)(now - x->omit_end) / 1e9 : 0;
			c->cpu = cpu0 ? perf_cpu_seconds() - cpu0 : 0;
		}
		if (settle && (!x->busy || now >= settle))
			break;
		for (unsigned k = 0; !settle && k < x->l.slots; k++) {
			if (x->s[k].busy || x->blocked[k % x->p->sockets])
				continue;
			e = submit(x, k, now);
			if (e < 0)
				return e;
			moved |= e;
		}
		e = reap(x);
		if (e < 0)
			return e;
		if (!moved && !e && (e = rdma_wait(x, settle ? settle : next_iv < t_end ? next_iv : t_end)) < 0)
			return e;
	}
	c->rdma.lost = x->busy;
	return 0;
}

int perf_rdma_run(struct perf_client *c)
{
	struct rcli *x = calloc(1, sizeof(*x));
	rdsu_ns t0;
	void *mem = NULL;
	int e;

	memset(&c->rdma, 0, sizeof(c->rdma));
	memset(&c->cur, 0, sizeof(c->cur));
	memset(&c->total, 0, sizeof(c->total));
	hist_reset(&c->lat);
	c->measured = c->cpu = 0;
	if (!x)
		return c->error = -ENOMEM;
	x->c = c;
	x->p = c->p;
	layout_of(c->p, &x->l);
	if (posix_memalign(&mem, PAGE, (size_t)x->l.slots * x->l.slot) ||
	    !(x->vals = calloc(2 * x->l.slots, sizeof(*x->vals)))) {
		free(mem);
		free(x);
		return c->error = -ENOMEM;
	}
	x->mem = mem;
	memset(x->mem, 0, (size_t)x->l.slots * x->l.slot);
	/* the memory outlives the stack: an operation never notified may
	 * still land in it until the sockets are closed */
	c->rdma.mem = mem;
	c->rdma.vals = x->vals;
	if (x->p->test == PERF_RDMA_WRITE)
		for (unsigned k = 0; k < x->l.slots; k++)
			pattern(x->mem + (size_t)k * x->l.slot, &x->l, x->p, k);
	e = get_cookies(x);
	t0 = rdsu_clock();
	x->omit_end = t0 + (rdsu_ns)(x->p->omit * 1e9);
	x->t_end = x->omit_end + (rdsu_ns)(x->p->duration * 1e9);
	if (e == 0)
		e = run_ops(x, t0);
	expect(x);
	free(x);
	return c->error = e;
}

void perf_rdma_free(struct perf_client *c)
{
	free(c->rdma.mem);
	free(c->rdma.vals);
	c->rdma.mem = NULL;
	c->rdma.vals = NULL;
}
