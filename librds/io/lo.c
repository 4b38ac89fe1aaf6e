// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * lo.c - the loopback transport (RDSU_TRANS_LOOP), not to be confused
 * with loop.c, the event loop. A message to 127.0.0.0/8, ::1 or one of
 * the endpoint's own addresses never leaves the process: what the core
 * writes on such a link is handed straight back to it as that link's
 * input and acknowledged at once. The core delivers it to its own socket
 * bound to the peer address (tprops "local"), answers pings, and frees
 * the message, so it holds SNDBUF only until the loop's next round.
 * Ref: net/rds/loop.c rds_loop_xmit (rds_recv_incoming on the sending
 * connection, then rds_send_drop_acked), rds_loop_conn_path_connect (the
 * connect completes at once), rds_loop_conn_path_shutdown (nothing to
 * close).
 *
 * It has no descriptor, no timer and no wait: only the request ops.
 */
#include "loop.h"

#include <rds/rdsu_io.h>

#include <stdlib.h>
#include <string.h>

/* Bytes handed back per step: a message over it is fed in pieces, all in
 * the same call, so the core never holds half a message between rounds. */
#define LO_CHUNK (64 * 1024)

struct lo_link {
	uint64_t id;
	uint64_t written;     /* stream bytes taken from the core */
};

struct rdsu_lo {
	struct rdsu_transport tr;
	struct lo_link *links;
	size_t n_links, cap_links;
	uint8_t *buf;         /* LO_CHUNK */
};

static struct rdsu_lo *lo_of(struct rdsu_transport *tr)
{
	return (struct rdsu_lo *)tr;
}

static int lo_listen(struct rdsu_transport *tr, const struct rdsu_addr *a)
{
	(void)tr;
	(void)a;
	return 0;
}

static void *lo_find(struct rdsu_transport *tr, uint64_t link)
{
	struct rdsu_lo *lo = lo_of(tr);

	for (size_t i = 0; i < lo->n_links; i++)
		if (lo->links[i].id == link)
			return &lo->links[i];
	return NULL;
}

static void lo_forget(struct rdsu_lo *lo, struct lo_link *l)
{
	*l = lo->links[--lo->n_links];
}

/* rds_loop_conn_path_connect: up at once. */
static void lo_connect(struct rdsu_transport *tr, const struct rdsu_lreq *req, rdsu_ns now)
{
	struct rdsu_lo *lo = lo_of(tr);
	struct rdsu_ep *ep = tr->io->ep;

	if (lo->n_links == lo->cap_links) {
		size_t cap = lo->cap_links ? lo->cap_links * 2 : 8;
		struct lo_link *v = realloc(lo->links, cap * sizeof(*v));

		if (!v) {
			(void)rdsu_link_down(ep, req->link, now);
			return;
		}
		lo->links = v;
		lo->cap_links = cap;
	}
	lo->links[lo->n_links++] = (struct lo_link){ .id = req->link };
	if (rdsu_link_established(ep, req->link, 0, now) < 0)
		lo_forget(lo, &lo->links[lo->n_links - 1]);
}

/* rds_loop_xmit: what the core writes is its own input, then
 * acknowledged. Until the core has nothing more: a ping's pong goes out
 * on the same link in the same call. */
static void lo_output(struct rdsu_transport *tr, void *lk, rdsu_ns now)
{
	struct rdsu_lo *lo = lo_of(tr);
	struct rdsu_ep *ep = tr->io->ep;
	uint64_t id = ((struct lo_link *)lk)->id;

	for (;;) {
		/* Found again by id each time: the core's calls below only
		 * queue requests, but the table is ours to keep honest. */
		struct lo_link *l = lo_find(tr, id);
		ssize_t n;

		if (!l)
			return;
		n = rdsu_link_output(ep, id, lo->buf, LO_CHUNK, now);
		if (n <= 0) {
			if (n < 0)
				lo_forget(lo, l);
			return;
		}
		l->written += (uint64_t)n;
		tr->io->worked = true;
		if (rdsu_link_input(ep, id, lo->buf, (size_t)n, now) < 0 ||
		    rdsu_link_acked(ep, id, l->written, now) < 0) {
			/* The core let go of the link: forget it (the close
			 * it may have queued then finds nothing). */
			l = lo_find(tr, id);
			if (l)
				lo_forget(lo, l);
			return;
		}
	}
}

/* rds_loop_conn_path_shutdown: nothing to close. */
static void lo_close(struct rdsu_transport *tr, void *lk, bool reset, rdsu_ns now)
{
	(void)reset;
	(void)now;
	lo_forget(lo_of(tr), lk);
}

static void lo_attach(struct rdsu_transport *tr, void *lk, rdsu_ns now)
{
	/* Only accepted links are held; this transport accepts none. */
	(void)tr;
	(void)lk;
	(void)now;
}

static void lo_reap(struct rdsu_transport *tr)
{
	(void)tr;
}

static void lo_free(struct rdsu_transport *tr)
{
	struct rdsu_lo *lo = lo_of(tr);

	free(lo->links);
	free(lo->buf);
	free(lo);
}

static const struct rdsu_transport_ops lo_ops = {
	.id = RDSU_TRANS_LOOP,
	.listen = lo_listen,
	.ready = NULL,        /* no descriptors */
	.connect = lo_connect,
	.find = lo_find,
	.output = lo_output,
	.close = lo_close,
	.attach = lo_attach,
	.acks = NULL,         /* acknowledged as it is written */
	.deadline = NULL,
	.expire = NULL,
	.wait = NULL,
	.reap = lo_reap,
	.free = lo_free,
};

int rdsu_lo_create(struct rdsu_io *io, struct rdsu_transport **out)
{
	struct rdsu_lo *lo = calloc(1, sizeof(*lo));

	*out = NULL;
	if (!lo)
		return RDSU_ERR_NOMEM;
	lo->buf = malloc(LO_CHUNK);
	if (!lo->buf) {
		free(lo);
		return RDSU_ERR_NOMEM;
	}
	lo->tr.ops = &lo_ops;
	lo->tr.io = io;
	*out = &lo->tr;
	return 0;
}
