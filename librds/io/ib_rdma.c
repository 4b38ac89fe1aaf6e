// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ib_rdma.c - the RDMA the core asks of the IB transport (its seam,
 * rdsu_ep_set_rdma): memory regions registered zero-based on the device
 * of the socket's address (a protection domain per device, shared by that
 * device's links, as the kernel's rds_ibdev), and RDMA READ/WRITE and
 * atomics posted on a link's QP ahead of the SEND that carries their
 * message, their completions reported back. Ref: net/rds/ib_rdma.c,
 * ib_frmr.c (registration), ib_send.c rds_ib_xmit_rdma(),
 * rds_ib_xmit_atomic(), rds_ib_send_complete() (status mapping).
 *
 * Plain verbs have no masked atomics: a masked FADD or CSWP whose masks
 * are not the plain ones ends OTHER_ERROR here.
 */
#define _GNU_SOURCE
#include "ib.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * The verbs objects of a device (PD, CQs, QPs, regions) live on a context
 * of our own, opened here beside the one librdmacm keeps for the device
 * (the ids' verbs), and closed with the device's last PD reference.
 * librdmacm opens its context at the first id bound on the device and
 * keeps it for the process's life, so a process forked after an endpoint
 * was freed (rds-stress's parent probes RDMA with a socket it closes, then
 * forks a task per process) inherits it; and the kernel refuses write()
 * on a uverbs descriptor from any task other than the one that opened it
 * (include/rdma/ib.h ib_safe_file_access: the child's credentials are a
 * copy, drivers/infiniband/core/uverbs_main.c ib_uverbs_write: EACCES).
 * Soft-RoCE rings its send doorbell with such a write(), so the child's
 * QP would receive and never send. A context opened by the process that
 * uses it is always its own. |ctx| names the device (an id's verbs).
 */
struct ibv_pd *rdsu_ib_pd_get(struct rdsu_ib *t, struct ibv_context *ctx)
{
	struct ibv_context *own;
	struct ibv_pd *pd;

	for (unsigned i = 0; i < t->n_pds; i++)
		if (t->pds[i].dev == ctx->device) {
			t->pds[i].refs++;
			return t->pds[i].pd;
		}
	if (t->n_pds == IB_MAX_DEVS)
		return NULL;
	own = ibv_open_device(ctx->device);
	if (!own)
		return NULL;
	pd = ibv_alloc_pd(own);
	if (!pd) {
		(void)ibv_close_device(own);
		return NULL;
	}
	t->pds[t->n_pds].dev = ctx->device;
	t->pds[t->n_pds].pd = pd;
	t->pds[t->n_pds].refs = 1;
	t->n_pds++;
	return pd;
}

void rdsu_ib_pd_put(struct rdsu_ib *t, struct ibv_pd *pd)
{
	struct ibv_context *own = pd->context;  /* read before the PD goes */

	for (unsigned i = 0; i < t->n_pds; i++) {
		if (t->pds[i].pd != pd)
			continue;
		if (--t->pds[i].refs == 0) {
			ibv_dealloc_pd(pd);
			(void)ibv_close_device(own);
			t->pds[i] = t->pds[--t->n_pds];
		}
		return;
	}
}

/* The device of local address |a|: a listener's, or one bound for it. */
static struct ibv_context *dev_of(struct rdsu_ib *t, const struct rdsu_addr *a)
{
	struct sockaddr_storage ss;
	struct rdma_cm_id *id = NULL;
	struct ibv_context *ctx = NULL;

	for (unsigned i = 0; i < t->n_listen; i++) {
		struct rdsu_addr la;
		uint16_t port;

		if (!t->listen[i]->verbs)
			continue;
		memset(&ss, 0, sizeof(ss));
		memcpy(&ss, rdma_get_local_addr(t->listen[i]),
		       t->listen[i]->route.addr.src_addr.sa_family == AF_INET6
			       ? sizeof(struct sockaddr_in6)
			       : sizeof(struct sockaddr_in));
		if (rdsu_sockaddr_get(&ss, &la, &port) == 0 && rdsu_addr_cmp(&la, a) == 0)
			return t->listen[i]->verbs;
	}
	memset(&ss, 0, sizeof(ss));
	if (!rdsu_sockaddr(a, 0, &ss) || rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP))
		return NULL;
	if (rdma_bind_addr(id, (struct sockaddr *)&ss) == 0)
		ctx = id->verbs;
	rdma_destroy_id(id);
	return ctx;
}

static int ib_get_mr(void *ud, const struct rdsu_addr *laddr, void *addr, uint64_t len,
		     unsigned flags, uint32_t *rkey, uint32_t *offset, void **handle)
{
	struct rdsu_ib *t = ud;
	struct ibv_context *ctx = dev_of(t, laddr);
	/* the iova must share the address's offset in its page
	 * (ib_uverbs_reg_mr): zero-based from the page, as the kernel maps
	 * whole pages, and the cookie carries the offset */
	uint64_t off = (uintptr_t)addr & ((uint64_t)sysconf(_SC_PAGESIZE) - 1);
	struct ib_mr *m;

	(void)flags; /* remote read and write always, as an FRMR registration */
	if (!ctx)
		return -ENODEV;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->pd = rdsu_ib_pd_get(t, ctx);
	if (!m->pd) {
		free(m);
		return -ENOMEM;
	}
	/* zero-based, as ib_map_mr_sg_zbva */
	m->mr = ibv_reg_mr_iova(m->pd, addr, (size_t)len, off,
				IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
					IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC);
	if (!m->mr) {
		int e = errno ? -errno : -EINVAL;

		rdsu_ib_pd_put(t, m->pd);
		free(m);
		return e;
	}
	m->next = t->mrs;
	t->mrs = m;
	t->st.mrs++;
	*rkey = m->mr->rkey;
	*offset = (uint32_t)off;
	*handle = m;
	return 0;
}

static void mr_release(struct rdsu_ib *t, struct ib_mr *m)
{
	if (m->mr) {
		ibv_dereg_mr(m->mr);
		rdsu_ib_pd_put(t, m->pd);
	}
	free(m);
}

void rdsu_ib_rdma_device_gone(struct rdsu_ib *t, struct ibv_context *ctx)
{
	for (struct ib_mr *m = t->mrs; m; m = m->next) {
		if (!m->mr || m->mr->context->device != ctx->device)
			continue;
		/* The handle stays the core's until it frees the region. */
		ibv_dereg_mr(m->mr);
		rdsu_ib_pd_put(t, m->pd);
		m->mr = NULL;
		m->pd = NULL;
	}
}

static void ib_free_mr(void *ud, void *handle, bool invalidate)
{
	struct rdsu_ib *t = ud;

	(void)invalidate; /* deregistering invalidates */
	for (struct ib_mr **pp = &t->mrs; *pp; pp = &(*pp)->next)
		if (*pp == handle) {
			*pp = ((struct ib_mr *)handle)->next;
			mr_release(t, handle);
			t->st.mrs--;
			return;
		}
}

static void op_clear(struct ib_op *o)
{
	for (unsigned i = 0; i < o->n_mr; i++)
		ibv_dereg_mr(o->mr[i]);
	memset(o, 0, sizeof(*o));
}

static bool plain_atomic(const struct rdsu_op_req *q)
{
	if (q->kind == RDSU_OP_FADD)
		return q->nocarry_mask == 0;
	return q->compare_mask == ~0ull && q->swap_mask == ~0ull;
}

static int ib_xmit_op(void *ud, uint64_t link, const struct rdsu_op_req *q)
{
	struct rdsu_ib *t = ud;
	struct ib_link *l;
	struct ibv_sge sge[IB_OP_SGE];
	struct ibv_send_wr wr, *bad;
	struct ib_op *o = NULL;
	unsigned idx = 0;
	int r;

	for (l = t->links; l; l = l->next)
		if (l->id == link && l->state == IL_UP)
			break;
	if (!l)
		return -ENOTCONN;
	if (q->kind == RDSU_OP_RDMA ? q->nr_local > (int)l->max_sge : !plain_atomic(q))
		return -EOPNOTSUPP;
	for (idx = 0; idx < IB_OPS_MAX; idx++)
		if (!l->ops[idx].id) {
			o = &l->ops[idx];
			break;
		}
	if (!o)
		return -EAGAIN;
	memset(&wr, 0, sizeof(wr));
	if (q->kind == RDSU_OP_RDMA) {
		for (int i = 0; i < q->nr_local; i++) {
			o->mr[o->n_mr] = ibv_reg_mr(l->pd, q->local[i].iov_base, q->local[i].iov_len,
						    IBV_ACCESS_LOCAL_WRITE);
			if (!o->mr[o->n_mr])
				goto fail;
			sge[i].addr = (uintptr_t)q->local[i].iov_base;
			sge[i].length = (uint32_t)q->local[i].iov_len;
			sge[i].lkey = o->mr[o->n_mr++]->lkey;
		}
		wr.opcode = q->write ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ;
		wr.num_sge = q->nr_local;
		wr.wr.rdma.remote_addr = q->remote_addr;
		wr.wr.rdma.rkey = q->rkey;
	} else {
		o->mr[0] = ibv_reg_mr(l->pd, q->result, 8, IBV_ACCESS_LOCAL_WRITE);
		if (!o->mr[0])
			goto fail;
		o->n_mr = 1;
		sge[0].addr = (uintptr_t)q->result;
		sge[0].length = 8;
		sge[0].lkey = o->mr[0]->lkey;
		wr.num_sge = 1;
		wr.opcode = q->kind == RDSU_OP_FADD ? IBV_WR_ATOMIC_FETCH_AND_ADD
						    : IBV_WR_ATOMIC_CMP_AND_SWP;
		wr.wr.atomic.remote_addr = q->remote_addr;
		wr.wr.atomic.rkey = q->rkey;
		wr.wr.atomic.compare_add = q->kind == RDSU_OP_FADD ? q->add : q->compare;
		wr.wr.atomic.swap = q->swap;
	}
	wr.wr_id = IB_OP_TAG | idx;
	wr.sg_list = sge;
	wr.send_flags = IBV_SEND_SIGNALED;
	/* SENDs queued before the op go before it, as they were asked. */
	r = rdsu_ib_send_flush(l);
	if (r < 0) {
		op_clear(o);
		return r;
	}
	/* Its completion must wake us: armed before it can complete. */
	r = rdsu_ib_send_arm(l);
	if (r < 0) {
		op_clear(o);
		return r;
	}
	r = ibv_post_send(l->cm->qp, &wr, &bad);
	if (r) {
		op_clear(o);
		return -r;
	}
	o->id = q->id;
	/* rds_ib_xmit: the message's SEND waits for the op */
	if (q->fence)
		l->fence_next = true;
	t->st.ops_posted++;
	return 0;
fail:
	r = errno ? -errno : -ENOMEM;
	op_clear(o);
	return r;
}

bool rdsu_ib_rdma_wc(struct ib_link *l, const struct ibv_wc *wc, rdsu_ns now)
{
	unsigned idx = (unsigned)(wc->wr_id & ~IB_OP_TAG);
	struct ib_op *o;
	uint64_t id;
	int st;

	if (idx >= IB_OPS_MAX || !l->ops[idx].id)
		return wc->status == IBV_WC_SUCCESS ? true : rdsu_ib_wc_lost(l, wc->status, now);
	o = &l->ops[idx];
	id = o->id;
	op_clear(o);
	/* rds_ib_send_complete */
	switch (wc->status) {
	case IBV_WC_WR_FLUSH_ERR:
		return rdsu_ib_wc_lost(l, wc->status, now); /* not reported */
	case IBV_WC_SUCCESS:
		st = RDSU_RDMA_SUCCESS;
		break;
	case IBV_WC_REM_ACCESS_ERR:
		st = RDSU_RDMA_REMOTE_ERROR;
		break;
	default:
		st = RDSU_RDMA_OTHER_ERROR;
		break;
	}
	l->t->st.ops_done++;
	l->t->ncomp++;
	rdsu_ib_core_op_done(l, id, st, now);
	if (st != RDSU_RDMA_SUCCESS)
		return rdsu_ib_wc_lost(l, wc->status, now); /* the QP is in error */
	return l->state != IL_DEAD;
}

void rdsu_ib_rdma_flush(struct ib_link *l, rdsu_ns now)
{
	struct ibv_wc wc[16];
	int n;

	if (!l->scq || !l->id)
		return;
	while ((n = ibv_poll_cq(l->scq, 16, wc)) > 0)
		for (int i = 0; i < n; i++) {
			unsigned idx = (unsigned)(wc[i].wr_id & ~IB_OP_TAG);
			uint64_t id;

			if (!(wc[i].wr_id & IB_OP_TAG) || idx >= IB_OPS_MAX || !l->ops[idx].id ||
			    wc[i].status == IBV_WC_WR_FLUSH_ERR)
				continue;
			id = l->ops[idx].id;
			op_clear(&l->ops[idx]);
			l->t->st.ops_done++;
			rdsu_ib_core_op_done(l, id,
					     wc[i].status == IBV_WC_SUCCESS ? RDSU_RDMA_SUCCESS
					     : wc[i].status == IBV_WC_REM_ACCESS_ERR
						     ? RDSU_RDMA_REMOTE_ERROR
						     : RDSU_RDMA_OTHER_ERROR,
					     now);
		}
}

bool rdsu_ib_rdma_busy(const struct ib_link *l)
{
	for (unsigned i = 0; i < IB_OPS_MAX; i++)
		if (l->ops[i].id)
			return true;
	return false;
}

/* After the QP is gone: nothing can touch the ops' memory any more. */
void rdsu_ib_rdma_link_free(struct ib_link *l)
{
	for (unsigned i = 0; i < IB_OPS_MAX; i++)
		if (l->ops[i].id || l->ops[i].n_mr)
			op_clear(&l->ops[i]);
}

static const struct rdsu_rdma_ops ib_rdma_ops = {
	.get_mr = ib_get_mr,
	.free_mr = ib_free_mr,
	.xmit_op = ib_xmit_op,
};

int rdsu_ib_rdma_open(struct rdsu_ib *t)
{
	return rdsu_ep_set_rdma(t->ep, RDSU_TRANS_IB, &ib_rdma_ops, t) ? -EINVAL : 0;
}

void rdsu_ib_rdma_close(struct rdsu_ib *t)
{
	(void)rdsu_ep_set_rdma(t->ep, RDSU_TRANS_IB, NULL, NULL);
	while (t->mrs) {
		struct ib_mr *m = t->mrs;

		t->mrs = m->next;
		mr_release(t, m);
	}
}
