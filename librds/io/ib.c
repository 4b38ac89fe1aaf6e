// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ib.c - the IB transport of librds over librdmacm and libibverbs: the
 * transport object and its ops (transport.h), the link list, and each
 * link's verbs resources, set up as rds_ib_setup_qp() does: a PD, one
 * CQ per direction on one completion channel (whose descriptor is a
 * source in the loop's epoll set), an RC QP through rdma_cm, and one
 * registered region per ring. Connection management is in ib_cm.c,
 * the rings in ib_recv.c and ib_send.c, the core in ib_core.c (ib.h).
 */
#define _GNU_SOURCE
#include "ib.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

void rdsu_ib_cfg_default(struct rdsu_ib_cfg *cfg)
{
	const char *env;

	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	cfg->send_ring = RDSU_IB_SEND_RING_DEFAULT;
	cfg->recv_ring = RDSU_IB_RECV_RING_DEFAULT;
	cfg->retry_count = RDSU_IB_RETRY_DEFAULT;
	cfg->busy_poll_us = RDSU_IB_BUSY_POLL_DEFAULT;
	cfg->make = rdsu_ib_make;
	env = getenv("RDSU_IB_BUSY_POLL");
	if (env && *env) {
		char *end;
		unsigned long us;

		errno = 0;
		us = strtoul(env, &end, 10);
		if (!errno && !*end && us <= RDSU_IB_BUSY_POLL_MAX)
			cfg->busy_poll_us = (unsigned)us;
	}
}

static struct rdsu_ib *ib_of(struct rdsu_transport *tr)
{
	return (struct rdsu_ib *)tr;
}

struct ib_link *rdsu_ib_link_new(struct rdsu_ib *t, struct rdma_cm_id *cm, bool active)
{
	struct ib_link *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->t = t;
	l->cm = cm;
	l->active = active;
	l->ccsrc.fd = -1;
	l->ccsrc.tr = &t->tr;
	cm->context = l;
	l->next = t->links;
	t->links = l;
	return l;
}

static unsigned ring_size(unsigned want, int dev_max)
{
	unsigned cap = dev_max > 1 ? (unsigned)dev_max - 1 : RDSU_IB_RING_MIN;

	return want < cap ? want : cap;
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

/*
 * The QP as rdma_create_qp() makes it (created, moved to INIT with the
 * id's attributes, and the id's from then on: rdma_connect, rdma_accept
 * and rdma_disconnect move it on), which refuses a PD on any context but
 * the one librdmacm keeps for the device: ours is on a context of our own
 * (rdsu_ib_pd_get says why).
 */
static int qp_create(struct ib_link *l, struct ibv_qp_init_attr *qa)
{
	struct ibv_qp_attr a;
	struct ibv_qp *qp = ibv_create_qp(l->pd, qa);
	int mask, r;

	if (!qp)
		return errno ? -errno : -EIO;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	if (rdma_init_qp_attr(l->cm, &a, &mask))
		r = errno ? -errno : -EIO;
	else
		r = -ibv_modify_qp(qp, &a, mask);
	if (r < 0) {
		(void)ibv_destroy_qp(qp);
		return r;
	}
	l->cm->qp = qp;
	return 0;
}

int rdsu_ib_link_setup(struct ib_link *l)
{
	struct rdsu_ib *t = l->t;
	struct ibv_context *ctx;
	struct ibv_device_attr da;
	struct ibv_qp_init_attr qa;
	int r;

	if (!l->cm->verbs)
		return -ENODEV;
	l->pd = rdsu_ib_pd_get(t, l->cm->verbs);
	if (!l->pd)
		return -ENOMEM;
	ctx = l->pd->context;
	if (ibv_query_device(ctx, &da))
		return -errno ? -errno : -EIO;
	l->nsend = ring_size(t->cfg.send_ring, da.max_qp_wr);
	l->nrecv = ring_size(t->cfg.recv_ring, da.max_qp_wr);
	l->max_sge = da.max_sge < IB_OP_SGE ? (unsigned)da.max_sge : IB_OP_SGE;
	l->cc = ibv_create_comp_channel(ctx);
	if (!l->cc)
		return -ENOMEM;
	r = set_nonblock(l->cc->fd);
	if (r < 0)
		return r;
	/* One more than the rings, as the kernel sizes them (its extra
	 * send is the ACK's, which takes a slot here). */
	l->scq = ibv_create_cq(ctx, (int)l->nsend + 1 + IB_OPS_MAX, l, l->cc, 0);
	l->rcq = ibv_create_cq(ctx, (int)l->nrecv + 1, l, l->cc, 0);
	if (!l->scq || !l->rcq)
		return -ENOMEM;
	r = rdsu_ib_send_resize(l, IB_SEND_INITIAL);
	if (r < 0)
		return r;
	memset(&qa, 0, sizeof(qa));
	qa.qp_context = l;
	qa.send_cq = l->scq;
	qa.recv_cq = l->rcq;
	qa.qp_type = IBV_QPT_RC;
	qa.sq_sig_all = 0;
	/* and room for the RDMA ops in flight, each one WR */
	qa.cap.max_send_wr = l->nsend + 1 + IB_OPS_MAX;
	qa.cap.max_recv_wr = l->nrecv + 1;
	qa.cap.max_send_sge = l->max_sge ? l->max_sge : 1;
	qa.cap.max_recv_sge = 1;
	/* Inline data for small frames, if the device has it; without. */
	qa.cap.max_inline_data = IB_INLINE_WANT;
	if (qp_create(l, &qa) < 0) {
		qa.cap.max_inline_data = 0;
		r = qp_create(l, &qa);
		if (r < 0)
			return r;
	}
	l->max_inline = qa.cap.max_inline_data;
	/* Receives wake us only on a solicited completion (a message's last
	 * frame), as the kernel arms them, unless the ring is shorter than a
	 * whole message: a sender without credits would fill it before the
	 * solicited frame and wait on RNR for ever. The ring starts at one
	 * chunk and grows (ib_recv.c). Send completions wake us only while
	 * something waits on one (a full ring, an RDMA op: ib_core.c
	 * rdsu_ib_core_output); otherwise they are reaped whenever the link
	 * is polled, so a message sent costs no wakeup of its own. */
	l->rsolicited = false;  /* until the ring grows past a message (ib_recv.c) */
	l->sarmed = false;
	if (ibv_req_notify_cq(l->rcq, l->rsolicited))
		return -EIO;
	l->ccsrc.fd = l->cc->fd;
	r = rdsu_loop_watch(t->tr.io, &l->ccsrc, EPOLLIN, EPOLL_CTL_ADD);
	if (r < 0) {
		l->ccsrc.fd = -1;
		return r;
	}
	return rdsu_ib_recv_fill(l);
}

void rdsu_ib_link_retire(struct ib_link *l)
{
	struct rdsu_ib *t = l->t;

	if (l->state == IL_DEAD)
		return;
	l->state = IL_DEAD;
	if (l->ccsrc.fd >= 0)
		rdsu_loop_unwatch(t->tr.io, &l->ccsrc);
	for (struct ib_link **pp = &t->links; *pp; pp = &(*pp)->next) {
		if (*pp == l) {
			*pp = l->next;
			break;
		}
	}
	l->next = t->dead;
	t->dead = l;
}

void rdsu_ib_link_lost(struct ib_link *l, rdsu_ns now)
{
	if (l->state == IL_DEAD)
		return;
	rdsu_ib_rdma_flush(l, now);
	if (l->state == IL_DEAD)
		return;
	l->t->st.downs++;
	rdsu_ib_link_retire(l);
	rdsu_ib_core_down(l, now);
}

/* CQs and the channel go before the id: rdma_destroy_id waits for every
 * event of the id to be acknowledged, which ib_cm.c does as it reads. */
static void link_free(struct ib_link *l)
{
	struct rdsu_ib *t = l->t;

	if (l->cm && l->cm->qp) {
		/* A DREQ tells the peer now instead of at its next send. */
		(void)rdma_disconnect(l->cm);
		(void)ibv_destroy_qp(l->cm->qp);   /* ours: qp_create */
		l->cm->qp = NULL;
	}
	rdsu_ib_rdma_link_free(l);
	rdsu_ib_recv_free(l);
	if (l->smr) {
		ibv_dereg_mr(l->smr);
		t->st.send_ring_bytes -= (uint64_t)l->scur * IB_FRAME;
	}
	if (l->scq)
		ibv_destroy_cq(l->scq);
	if (l->rcq)
		ibv_destroy_cq(l->rcq);
	if (l->cc)
		ibv_destroy_comp_channel(l->cc);
	if (l->pd)
		rdsu_ib_pd_put(l->t, l->pd);
	if (l->cm)
		rdma_destroy_id(l->cm);
	free(l->sbuf);
	free(l);
}

/* Poll a link's CQs empty and send what the core has. */
static void link_poll(struct ib_link *l, rdsu_ns now)
{
	if (!rdsu_ib_send_poll(l, now))
		return;
	if (!rdsu_ib_recv_poll(l, now))
		return;
	rdsu_ib_core_output(l, now);
}

static void ib_ready(struct rdsu_transport *tr, struct rdsu_src *src, uint32_t events,
		     rdsu_ns now)
{
	struct rdsu_ib *t = ib_of(tr);
	struct ib_link *l;
	struct ibv_cq *cq;
	void *cq_ctx;

	(void)events;
	if (src == &t->chsrc) {
		rdsu_ib_cm_events(t, now);
		return;
	}
	l = (struct ib_link *)((char *)src - offsetof(struct ib_link, ccsrc));
	if (l->state == IL_DEAD)
		return;
	/* One event per CQ that fired: acknowledge it, re-arm, then poll
	 * empty, so a completion that lands between poll and arm still
	 * raises the next event. One read per readiness: the descriptor is
	 * level-triggered, so a second event (the other CQ's) makes the
	 * next epoll_wait return at once, and the usual single event costs
	 * no read that ends in EAGAIN. */
	if (ibv_get_cq_event(l->cc, &cq, &cq_ctx) == 0) {
		ibv_ack_cq_events(cq, 1);
		if (cq == l->rcq)
			(void)ibv_req_notify_cq(cq, l->rsolicited);
		else
			l->sarmed = false;  /* re-armed below if still wanted */
	}
	t->spin = true;
	link_poll(l, now);
}

/*
 * Busy-poll (rdsu_ib_cfg.busy_poll_us): before the loop sleeps, poll the
 * CQs of the links up for a bounded time; a completion found ends the
 * round as an event would, without the completion channel's wakeup (its
 * event, still raised by the armed CQ, is read later and finds the CQ
 * empty). Spins only after traffic: one that finds nothing clears
 * t->spin, which the next completion-channel event sets again, so an
 * idle endpoint sleeps after at most one spin.
 */
static int ib_wait(struct rdsu_transport *tr, bool alone, int *wait_ms, rdsu_ns *now,
		   int *res)
{
	struct rdsu_ib *t = ib_of(tr);
	rdsu_ns start = *now, end;
	uint64_t seen = t->ncomp;

	(void)alone;
	if (rdsu_ib_cm_devcheck(t, *now, wait_ms)) {
		*res = 1;
		return RDSU_TWAIT_DONE;
	}
	rdsu_ib_cm_relisten(t, *now, wait_ms);
	if (*wait_ms == 0 || !t->cfg.busy_poll_us || !t->spin || !t->links)
		return RDSU_TWAIT_NONE;
	end = *now + (rdsu_ns)t->cfg.busy_poll_us * 1000;
	if (*wait_ms > 0 && *now + (rdsu_ns)*wait_ms * RDSU_MSEC < end)
		end = *now + (rdsu_ns)*wait_ms * RDSU_MSEC;
	t->st.spins++;
	for (;;) {
		struct ib_link *next;

		for (struct ib_link *l = t->links; l; l = next) {
			next = l->next;
			if (l->state == IL_UP)
				link_poll(l, *now);
		}
		*now = rdsu_clock();
		if (t->ncomp != seen) {
			t->st.spin_hits++;
			*res = 1;
			return RDSU_TWAIT_DONE;
		}
		if (*now >= end)
			break;
	}
	t->spin = false;
	/* The loop's wait is shorter by the spin. */
	if (*wait_ms > 0) {
		int spun = (int)((*now - start) / RDSU_MSEC);

		*wait_ms = spun < *wait_ms ? *wait_ms - spun : 0;
	}
	return RDSU_TWAIT_NONE;
}

static void ib_connect(struct rdsu_transport *tr, const struct rdsu_lreq *req, rdsu_ns now)
{
	rdsu_ib_cm_connect(ib_of(tr), req, now);
}

static void *ib_find(struct rdsu_transport *tr, uint64_t link)
{
	for (struct ib_link *l = ib_of(tr)->links; l; l = l->next)
		if (l->id == link && l->core_knows)
			return l;
	return NULL;
}

static void ib_output(struct rdsu_transport *tr, void *lk, rdsu_ns now)
{
	struct ib_link *l = lk;

	(void)tr;
	if (l->state == IL_UP)
		rdsu_ib_core_output(l, now);
}

static void ib_close(struct rdsu_transport *tr, void *lk, bool reset, rdsu_ns now)
{
	struct ib_link *l = lk;

	(void)tr;
	(void)reset;
	(void)now;
	l->core_knows = false;
	rdsu_ib_link_retire(l);
}

static void ib_attach(struct rdsu_transport *tr, void *lk, rdsu_ns now)
{
	/* IB links are never held: the core refuses a request instead. */
	(void)tr;
	(void)lk;
	(void)now;
}

static void ib_reap(struct rdsu_transport *tr)
{
	struct rdsu_ib *t = ib_of(tr);

	while (t->dead) {
		struct ib_link *l = t->dead;

		t->dead = l->next;
		link_free(l);
	}
}

static void ib_free(struct rdsu_transport *tr)
{
	struct rdsu_ib *t = ib_of(tr);

	while (t->links) {
		t->links->core_knows = false;
		rdsu_ib_link_retire(t->links);
	}
	ib_reap(tr);
	rdsu_ib_rdma_close(t);
	rdsu_ib_cm_close(t);
	free(t);
}

static int ib_listen(struct rdsu_transport *tr, const struct rdsu_addr *a)
{
	struct rdsu_ib *t = ib_of(tr);

	return t->cfg.no_listen ? 0 : rdsu_ib_cm_listen(t, a);
}

static const struct rdsu_transport_ops ib_ops = {
	.id = RDSU_TRANS_IB,
	.listen = ib_listen,
	.ready = ib_ready,
	.connect = ib_connect,
	.find = ib_find,
	.output = ib_output,
	.close = ib_close,
	.attach = ib_attach,
	.wait = ib_wait,
	.reap = ib_reap,
	.free = ib_free,
};

int rdsu_ib_make(struct rdsu_io *io, const struct rdsu_ib_cfg *cfg, struct rdsu_transport **out)
{
	struct rdsu_ib *t;
	int r;

	*out = NULL;
	if (!cfg || cfg->size < sizeof(*cfg) || cfg->send_ring < RDSU_IB_RING_MIN ||
	    cfg->send_ring > RDSU_IB_RING_MAX || cfg->recv_ring < RDSU_IB_RING_MIN ||
	    cfg->recv_ring > RDSU_IB_RING_MAX || cfg->retry_count > RDSU_IB_RETRY_MAX ||
	    cfg->busy_poll_us > RDSU_IB_BUSY_POLL_MAX)
		return RDSU_ERR_INVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return RDSU_ERR_NOMEM;
	t->tr.ops = &ib_ops;
	t->tr.io = io;
	t->cfg = *cfg;
	t->ep = io->ep;
	r = rdsu_ib_cm_open(t);
	if (r == 0)
		r = rdsu_ib_rdma_open(t);
	if (r < 0) {
		rdsu_ib_cm_close(t);
		free(t);
		return r;
	}
	*out = &t->tr;
	return 0;
}

/* The IB transport of |io|, or NULL where it does not run. */
static struct rdsu_ib *ib_in(struct rdsu_io *io)
{
	for (unsigned i = 0; i < io->n_tr; i++)
		if (io->tr[i]->ops == &ib_ops)
			return ib_of(io->tr[i]);
	return NULL;
}

int rdsu_ib_get_stats(struct rdsu_io *io, struct rdsu_ib_stats *st)
{
	struct rdsu_ib *t;

	if (!io || !st)
		return RDSU_ERR_INVAL;
	t = ib_in(io);
	if (!t)
		return RDSU_ERR_NOTFOUND;
	*st = t->st;
	for (struct ib_link *l = t->links; l; l = l->next) {
		if (l->state != IL_UP)
			continue;
		st->send_inflight += (uint32_t)(l->s_head - l->s_tail);
		st->recv_posted += l->rposted;
	}
	return 0;
}

int rdsu_ib_fault_qp(struct rdsu_io *io)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	struct rdsu_ib *t;
	int n = 0;

	if (!io)
		return RDSU_ERR_INVAL;
	t = ib_in(io);
	if (!t)
		return RDSU_ERR_NOTFOUND;
	for (struct ib_link *l = t->links; l; l = l->next)
		if (l->state == IL_UP && l->cm->qp && ibv_modify_qp(l->cm->qp, &a, IBV_QP_STATE) == 0)
			n++;
	return n;
}
