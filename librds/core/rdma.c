// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rdma.c - memory regions, the RDMA and atomic operations messages carry,
 * and their notifications. The core knows no verbs: a transport that
 * carries RDMA registers memory and posts operations through the seam of
 * rdsu_ep_set_rdma() and reports how each ended (rdsu_link_op_done).
 * Ref: net/rds/rdma.c (__rds_rdma_map, rds_free_mr, rds_rdma_unuse,
 * rds_cmsg_rdma_args, rds_cmsg_rdma_dest, rds_cmsg_atomic), net/rds/send.c
 * (rds_send_xmit: a message with an RDMA op is never retransmitted;
 * rds_rdma_send_complete, __rds_send_complete, rds_send_remove_from_sock:
 * who is notified), net/rds/ib_send.c (rds_ib_xmit: the RDMA exthdr,
 * RDMA_DEST; rds_ib_send_complete: IB status to RDS status),
 * net/rds/recv.c rds_recv_incoming_exthdrs. docs/kernel-behaviour.md,
 * "RDMA operations".
 */
#include "core.h"

#include <errno.h>
#include <string.h>

/* RDS_MAX_MSG_SIZE plus the page an unaligned region may straddle */
#define MR_LEN_MAX ((uint64_t)WIRE_MAX_MSG_LEN + 4096)

uint64_t rdsu_cookie_make(uint32_t rkey, uint32_t offset)
{
	return (uint64_t)rkey | (uint64_t)offset << 32;
}

uint32_t rdsu_cookie_rkey(uint64_t cookie)
{
	return (uint32_t)cookie;
}

uint32_t rdsu_cookie_offset(uint64_t cookie)
{
	return (uint32_t)(cookie >> 32);
}

bool rdsu_rdma_notify_rule(unsigned flags, bool recverr, enum rdsu_rop_end end, int status)
{
	if (flags & RDSU_RDMA_NOTIFY_ME)
		return true;
	/* Only the drop path looks at RECVERR, and only for a failure. */
	return end == RDSU_ROP_END_DROP && recverr && status != RDSU_RDMA_SUCCESS;
}

static const struct rdsu_rdma_seam *seam(const struct rdsu_ep *ep, unsigned trans)
{
	if (trans >= RDSU_TRANS_COUNT || !ep->rdma[trans].ops)
		return NULL;
	return &ep->rdma[trans];
}

int rdsu_ep_set_rdma(struct rdsu_ep *ep, unsigned trans, const struct rdsu_rdma_ops *ops, void *ud)
{
	const struct rdsu_tprops *tp = rdsu_tprops_get(trans);

	if (!ep || !tp || tp->framing != RDSU_FRAMING_FRAMES)
		return RDSU_ERR_INVAL;
	if (ops && (!ops->get_mr || !ops->free_mr || !ops->xmit_op))
		return RDSU_ERR_INVAL;
	ep->rdma[trans].ops = ops;
	ep->rdma[trans].ud = ud;
	return 0;
}

/* ------------------------------------------------------------------------
 * Regions
 */

static void mr_put(struct rdsu_ep *ep, struct rdsu_mr *mr)
{
	const struct rdsu_rdma_seam *sm;

	if (--mr->mr_refs)
		return;
	sm = seam(ep, mr->mr_trans);
	if (sm)
		sm->ops->free_mr(sm->ud, mr->mr_handle, mr->mr_invalidate);
	ep->n_mrs--;
	rdsu_mem_free(ep, mr);
}

/* No longer findable by its cookie; deregistered with its last holder. */
static void mr_unlink(struct rdsu_mr *mr)
{
	struct rdsu_sock *rs = mr->mr_rs;

	if (!rs)
		return;
	rdsu_list_del_init(&mr->mr_item);
	rs->rs_n_mrs--;
	mr->mr_rs = NULL;
	mr_put(rs->rs_ep, mr);
}

static struct rdsu_mr *mr_find(const struct rdsu_sock *rs, uint32_t rkey)
{
	for (const struct rdsu_list *n = rs->rs_mrs.next; n != &rs->rs_mrs; n = n->next) {
		struct rdsu_mr *mr = rdsu_container_of(n, struct rdsu_mr, mr_item);

		if (mr->mr_rkey == rkey)
			return mr;
	}
	return NULL;
}

/* __rds_rdma_map: the checks, then the transport's registration. */
static int mr_new(struct rdsu_sock *rs, void *addr, uint64_t len, unsigned flags,
		  struct rdsu_mr **out)
{
	struct rdsu_ep *ep = rs->rs_ep;
	const struct rdsu_rdma_seam *sm;
	struct rdsu_mr *mr;
	uint32_t rkey = 0, off = 0;
	void *handle = NULL;
	int err;

	if (!rs->rs_bound)
		return -ENOTCONN;
	sm = seam(ep, rs->rs_trans);
	if (!sm)
		return -EOPNOTSUPP;
	if (!addr || !len || (uintptr_t)addr + len < (uintptr_t)addr)
		return -EINVAL;
	if (len > MR_LEN_MAX)
		return -EMSGSIZE;
	if (rs->rs_n_mrs >= RDSU_MR_MAX)
		return -ENOBUFS;
	mr = rdsu_mem_zalloc(ep, sizeof(*mr));
	if (!mr)
		return -ENOMEM;
	err = sm->ops->get_mr(sm->ud, &ep->cfg.laddrs[rs->rs_lidx], addr, len, flags, &rkey,
			      &off, &handle);
	if (err) {
		rdsu_mem_free(ep, mr);
		return err < 0 ? err : -EINVAL;
	}
	/* a transport that hands out an r_key twice would make a cookie
	 * name two regions */
	if (mr_find(rs, rkey)) {
		sm->ops->free_mr(sm->ud, handle, false);
		rdsu_mem_free(ep, mr);
		return -EEXIST;
	}
	mr->mr_rs = rs;
	mr->mr_trans = rs->rs_trans;
	mr->mr_rkey = rkey;
	mr->mr_off = off;
	mr->mr_len = len;
	mr->mr_flags = flags;
	mr->mr_handle = handle;
	mr->mr_refs = 1;
	rdsu_list_add_tail(&mr->mr_item, &rs->rs_mrs);
	rs->rs_n_mrs++;
	ep->n_mrs++;
	*out = mr;
	return 0;
}

int rdsu_sock_get_mr(struct rdsu_sock *rs, void *addr, uint64_t len, unsigned flags,
		     uint64_t *cookie)
{
	struct rdsu_mr *mr;
	int err;

	if (!rs || !cookie)
		return -EINVAL;
	err = mr_new(rs, addr, len, flags, &mr);
	if (err)
		return err;
	*cookie = rdsu_cookie_make(mr->mr_rkey, mr->mr_off);
	return 0;
}

int rdsu_sock_free_mr(struct rdsu_sock *rs, uint64_t cookie, unsigned flags)
{
	struct rdsu_mr *mr;

	if (!rs || !cookie)
		return -EINVAL;
	mr = mr_find(rs, rdsu_cookie_rkey(cookie));
	if (!mr)
		return -EINVAL;
	if (flags & RDSU_RDMA_INVALIDATE)
		mr->mr_invalidate = true;
	mr_unlink(mr);
	return 0;
}

unsigned rdsu_sock_mr_count(const struct rdsu_sock *rs)
{
	return rs ? rs->rs_n_mrs : 0;
}

unsigned rdsu_ep_mr_count(const struct rdsu_ep *ep)
{
	return ep ? ep->n_mrs : 0;
}

/* ------------------------------------------------------------------------
 * Operations
 */

static void op_free_if_done(struct rdsu_ep *ep, struct rdsu_rop *op)
{
	if (op->o_msg || op->o_state == RDSU_ROP_POSTED || op->o_queued)
		return;
	if (op->o_mr)
		mr_put(ep, op->o_mr);
	rdsu_list_del_init(&op->o_item);
	if (op->o_rs)
		op->o_rs->rs_n_ops--;
	rdsu_mem_free(ep, op);
}

/* The op ended as |end| with |status|: its one notification, if the rule
 * gives it one and it has not had one. */
static void op_end(struct rdsu_ep *ep, struct rdsu_rop *op, enum rdsu_rop_end end, int status)
{
	struct rdsu_sock *rs = op->o_rs;

	op->o_state = RDSU_ROP_ENDED;
	op->o_cp = NULL;
	op->o_link = 0;
	if (op->o_notified || !op->o_req.kind)
		return;
	if (op->o_cancel && end == RDSU_ROP_END_COMPLETE) {
		end = RDSU_ROP_END_CANCEL;
		status = RDSU_RDMA_CANCELED;
	}
	if (!rdsu_rdma_notify_rule(op->o_flags, op->o_recverr, end, status))
		return;
	op->o_notified = true;
	if (!rs)
		return;
	op->o_status = status;
	op->o_queued = true;
	rdsu_list_add_tail(&op->o_notify_item, &rs->rs_notify_q);
	rdsu_sock_ev(rs, RDSU_POLLIN);
}

bool rdsu_rdma_carries_op(const struct rdsu_msg *rm)
{
	return rm->m_op && rm->m_op->o_req.kind;
}

static int op_check_rdma(const struct rdsu_op *op, uint64_t *bytes)
{
	uint64_t total = 0, off = rdsu_cookie_offset(op->cookie), end;

	if (op->nr_local <= 0 || !op->local)
		return -EINVAL;
	if (op->nr_local > RDSU_RDMA_MAX_IOV)
		return -EMSGSIZE;
	for (int i = 0; i < op->nr_local; i++) {
		const struct iovec *v = &op->local[i];

		/* rds_pages_in_vec: an empty or wrapping entry is no entry */
		if (!v->iov_len || !v->iov_base ||
		    (uintptr_t)v->iov_base + v->iov_len < (uintptr_t)v->iov_base)
			return -EINVAL;
		total += v->iov_len;
		if (total > UINT32_MAX)
			return -EINVAL;
	}
	if (total > op->remote_len)
		return -EINVAL;
	end = op->remote_addr + off;
	if (end < op->remote_addr || end + op->remote_len < end)
		return -EINVAL;
	*bytes = total;
	return 0;
}

/* Build the core's copy of |op| for |rs| (rds_cmsg_send). MAP registers
 * here; the caller undoes it on a later failure with rdsu_rdma_msg_gone
 * semantics through op_discard(). */
static int op_new(struct rdsu_sock *rs, const struct rdsu_op *op, struct rdsu_rop **out)
{
	struct rdsu_ep *ep = rs->rs_ep;
	struct rdsu_rop *o;
	struct rdsu_mr *mr = NULL;
	uint64_t bytes = 0;
	size_t niov = 0;
	int err;

	if (!rs->rs_bound)
		return -ENOTCONN;
	switch (op->kind) {
	case RDSU_OP_RDMA:
		err = op_check_rdma(op, &bytes);
		if (err)
			return err;
		niov = (size_t)op->nr_local;
		break;
	case RDSU_OP_FADD:
	case RDSU_OP_CSWP:
		/* rds_cmsg_atomic: the local word 8-byte aligned */
		if (!op->result || ((uintptr_t)op->result & 7))
			return -EFAULT;
		break;
	case RDSU_OP_DEST:
		/* rds_cmsg_rdma_dest: one of this socket's regions */
		mr = op->cookie ? mr_find(rs, rdsu_cookie_rkey(op->cookie)) : NULL;
		if (!mr)
			return -EINVAL;
		mr->mr_refs++;
		break;
	case RDSU_OP_MAP:
		err = mr_new(rs, op->map_addr, op->map_len, op->flags, &mr);
		if (err)
			return err;
		mr->mr_refs++;
		if (op->map_cookie)
			*op->map_cookie = rdsu_cookie_make(mr->mr_rkey, mr->mr_off);
		break;
	default:
		return -EINVAL;
	}
	/* rds_sendmsg: no xmit_rdma / xmit_atomic on this transport */
	if (op->kind <= RDSU_OP_CSWP && !seam(ep, rs->rs_trans))
		return -EOPNOTSUPP;
	if (rs->rs_n_ops >= RDSU_OPS_MAX) {
		err = -EAGAIN;
		goto fail_mr;
	}
	o = rdsu_mem_zalloc(ep, sizeof(*o) + niov * sizeof(struct iovec));
	if (!o) {
		err = -ENOMEM;
		goto fail_mr;
	}
	rdsu_list_init(&o->o_item);
	rdsu_list_init(&o->o_notify_item);
	o->o_rs = rs;
	o->o_flags = op->flags;
	o->o_token = op->user_token;
	o->o_recverr = rs->rs_recverr;
	if (mr) {
		o->o_mr = mr;
		o->o_cookie = op->kind == RDSU_OP_DEST ? op->cookie
						       : rdsu_cookie_make(mr->mr_rkey, mr->mr_off);
	} else {
		struct rdsu_op_req *q = &o->o_req;

		q->id = ++ep->op_next_id;
		q->kind = op->kind;
		q->fence = (op->flags & RDSU_RDMA_FENCE) != 0;
		q->rkey = rdsu_cookie_rkey(op->cookie);
		q->remote_addr = op->remote_addr + rdsu_cookie_offset(op->cookie);
		if (op->kind == RDSU_OP_RDMA) {
			memcpy(o->o_iov, op->local, niov * sizeof(struct iovec));
			q->write = (op->flags & RDSU_RDMA_READWRITE) != 0;
			q->local = o->o_iov;
			q->nr_local = op->nr_local;
			q->bytes = bytes;
		} else {
			q->result = op->result;
			/* rds_cmsg_atomic: plain forms become masked ones */
			if (op->kind == RDSU_OP_FADD) {
				q->add = op->add;
				q->nocarry_mask = op->masked ? op->nocarry_mask : 0;
			} else {
				q->compare = op->compare;
				q->swap = op->swap;
				q->compare_mask = op->masked ? op->compare_mask : ~0ull;
				q->swap_mask = op->masked ? op->swap_mask : ~0ull;
			}
		}
	}
	rdsu_list_add_tail(&o->o_item, &ep->ops);
	rs->rs_n_ops++;
	*out = o;
	return 0;
fail_mr:
	if (mr) {
		if (op->kind == RDSU_OP_MAP)
			mr_unlink(mr); /* rds_rdma_unuse(.., force) */
		mr_put(ep, mr);
	}
	return err;
}

/* A submit that failed after op_new(): as if it never was. */
static void op_discard(struct rdsu_ep *ep, struct rdsu_rop *o, bool mapped)
{
	if (mapped && o->o_mr)
		mr_unlink(o->o_mr);
	o->o_notified = true;
	op_free_if_done(ep, o);
}

int rdsu_sock_submit_op(struct rdsu_sock *rs, const struct rdsu_addr *dst, uint16_t dport,
			const struct iovec *iov, int iovcnt, const struct rdsu_op *op, rdsu_ns now)
{
	struct rdsu_rop *o = NULL;
	int ret;

	if (!rs)
		return -EINVAL;
	if (!op)
		return rdsu_sock_submit(rs, dst, dport, iov, iovcnt, now);
	if (!dst || iovcnt < 0 || (iovcnt > 0 && !iov))
		return -EINVAL;
	ret = op_new(rs, op, &o);
	if (ret)
		return ret;
	ret = rdsu_sock_submit_internal(rs, dst, dport, iov, iovcnt, o, now);
	if (ret < 0)
		op_discard(rs->rs_ep, o, op->kind == RDSU_OP_MAP);
	return ret;
}

int rdsu_sock_next_notify(struct rdsu_sock *rs, struct rdsu_notify *out)
{
	struct rdsu_rop *op;

	if (!rs || !out)
		return -EINVAL;
	if (!rs->rs_bound)
		return -ENOTCONN;
	if (rdsu_list_empty(&rs->rs_notify_q))
		return 0;
	op = rdsu_container_of(rs->rs_notify_q.next, struct rdsu_rop, o_notify_item);
	rdsu_list_del_init(&op->o_notify_item);
	op->o_queued = false;
	out->user_token = op->o_token;
	out->status = op->o_status;
	op_free_if_done(rs->rs_ep, op);
	return 1;
}

int rdsu_sock_set_recverr(struct rdsu_sock *rs, bool on)
{
	if (!rs)
		return -EINVAL;
	rs->rs_recverr = on;
	return 0;
}

/* ------------------------------------------------------------------------
 * What send.c and recv.c call
 */

void rdsu_rdma_hdr_exts(const struct rdsu_path *cp, const struct rdsu_msg *rm, struct wire_hdr *h)
{
	enum wire_kver kv = cp->cp_conn->c_ep->cfg.kver;
	const struct rdsu_rop *op = rm->m_op;
	struct wire_ext e;

	if (!op || cp->cp_conn->c_tp->framing != RDSU_FRAMING_FRAMES)
		return;
	memset(&e, 0, sizeof(e));
	if (op->o_req.kind == RDSU_OP_RDMA) {
		/* rds_ib_xmit: the peer releases a use-once region by it */
		e.type = WIRE_EXT_RDMA;
		e.u.rdma_rkey = op->o_req.rkey;
		(void)wire_ext_add(h->ext, &e, kv);
		if (kv != WIRE_KVER_6) {
			memset(&e, 0, sizeof(e));
			e.type = WIRE_EXT_RDMA_BYTES;
			e.u.rdma_bytes.bytes = (uint32_t)op->o_req.bytes;
			e.u.rdma_bytes.rflags =
				op->o_req.write ? WIRE_RDMA_WR_BYTES : WIRE_RDMA_RD_BYTES;
			if (wire_ext_add(h->ext, &e, kv) == 1)
				h->flags |= WIRE_FLAG_EXTHDR_EXTENSION;
		}
	} else if (op->o_mr) {
		e.type = WIRE_EXT_RDMA_DEST;
		e.u.rdma_dest.rkey = rdsu_cookie_rkey(op->o_cookie);
		e.u.rdma_dest.offset = rdsu_cookie_offset(op->o_cookie);
		(void)wire_ext_add(h->ext, &e, kv);
	}
}

/* The message |rm| starts on |cp|: its RDMA or atomic goes first
 * (rds_send_xmit: xmit_rdma, xmit_atomic before xmit). */
void rdsu_rdma_post(struct rdsu_path *cp, struct rdsu_msg *rm)
{
	struct rdsu_ep *ep = cp->cp_conn->c_ep;
	struct rdsu_rop *op = rm->m_op;
	const struct rdsu_rdma_seam *sm;

	if (!op || !op->o_req.kind || op->o_state != RDSU_ROP_QUEUED)
		return;
	sm = seam(ep, cp->cp_conn->c_tp->id);
	if (!sm || sm->ops->xmit_op(sm->ud, cp->cp_link, &op->o_req) != 0) {
		op_end(ep, op, RDSU_ROP_END_COMPLETE, RDSU_RDMA_OTHER_ERROR);
		return;
	}
	op->o_state = RDSU_ROP_POSTED;
	op->o_cp = cp;
	op->o_link = cp->cp_link;
}

int rdsu_link_op_done(struct rdsu_ep *ep, uint64_t link, uint64_t id, int status, rdsu_ns now)
{
	(void)now;
	if (!ep)
		return RDSU_ERR_INVAL;
	if (status < RDSU_RDMA_SUCCESS || status > RDSU_RDMA_OTHER_ERROR)
		return RDSU_ERR_INVAL;
	for (struct rdsu_list *n = ep->ops.next; n != &ep->ops; n = n->next) {
		struct rdsu_rop *op = rdsu_container_of(n, struct rdsu_rop, o_item);

		if (op->o_req.id != id)
			continue;
		if (op->o_state != RDSU_ROP_POSTED || op->o_link != link)
			return RDSU_ERR_CLOSED;
		op_end(ep, op, RDSU_ROP_END_COMPLETE, status);
		op_free_if_done(ep, op);
		return 0;
	}
	return RDSU_ERR_CLOSED;
}

/* |rm| leaves the queues for good: acknowledged (|end| 0), dropped or
 * cancelled. Its op ends now unless the transport still has it. */
void rdsu_rdma_msg_gone(struct rdsu_ep *ep, struct rdsu_msg *rm, enum rdsu_rop_end end, int status)
{
	struct rdsu_rop *op = rm->m_op;

	if (!op)
		return;
	rm->m_op = NULL;
	op->o_msg = NULL;
	if (op->o_state == RDSU_ROP_POSTED) {
		/* The transport owns its memory until it reports
		 * (rds_message_wait): a cancel says so then. */
		if (end == RDSU_ROP_END_CANCEL)
			op->o_cancel = true;
	} else if (op->o_state == RDSU_ROP_QUEUED) {
		if (end)
			op_end(ep, op, end, status);
		else
			op->o_state = RDSU_ROP_ENDED;
	} else if (end && end != RDSU_ROP_END_COMPLETE) {
		op_end(ep, op, end, status); /* notified already, or not at all */
	}
	op_free_if_done(ep, op);
}

/* The link of |cp| is gone: what it had posted will not be reported
 * (flushed work requests are not, rds_ib_send_complete). */
void rdsu_rdma_path_down(struct rdsu_path *cp)
{
	struct rdsu_ep *ep = cp->cp_conn->c_ep;
	struct rdsu_list *n, *next;

	for (n = ep->ops.next; n != &ep->ops; n = next) {
		struct rdsu_rop *op = rdsu_container_of(n, struct rdsu_rop, o_item);

		next = n->next;
		if (op->o_state != RDSU_ROP_POSTED || op->o_cp != cp)
			continue;
		op_end(ep, op, op->o_cancel ? RDSU_ROP_END_CANCEL : RDSU_ROP_END_DROP,
		       op->o_cancel ? RDSU_RDMA_CANCELED : RDSU_RDMA_DROPPED);
		op_free_if_done(ep, op);
	}
}

/* rds_recv_incoming_exthdrs: RDMA releases a use-once region, RDMA_DEST
 * gives the reader the peer's cookie. */
void rdsu_rdma_recv_exts(struct rdsu_sock *rs, const struct wire_hdr *h, bool *has_cookie,
			 uint64_t *cookie)
{
	struct wire_ext_iter it;
	struct wire_ext e;

	*has_cookie = false;
	wire_ext_iter_init(&it, h->ext, rs->rs_ep->cfg.kver);
	while (wire_ext_next(&it, &e) == 1) {
		if (e.type == WIRE_EXT_RDMA && e.known) {
			struct rdsu_mr *mr = mr_find(rs, e.u.rdma_rkey);

			if (mr && (mr->mr_flags & RDSU_RDMA_USE_ONCE))
				mr_unlink(mr);
		} else if (e.type == WIRE_EXT_RDMA_DEST && e.known) {
			*has_cookie = true;
			*cookie = rdsu_cookie_make(e.u.rdma_dest.rkey, e.u.rdma_dest.offset);
		}
	}
}

/* rds_release: rds_rdma_drop_keys, rds_notify_queue_get(rs, NULL). Its
 * messages are gone already (rdsu_send_drop_sock). */
void rdsu_rdma_sock_free(struct rdsu_sock *rs)
{
	struct rdsu_ep *ep = rs->rs_ep;

	while (!rdsu_list_empty(&rs->rs_mrs))
		mr_unlink(rdsu_container_of(rs->rs_mrs.next, struct rdsu_mr, mr_item));
	while (!rdsu_list_empty(&rs->rs_notify_q)) {
		struct rdsu_rop *op =
			rdsu_container_of(rs->rs_notify_q.next, struct rdsu_rop, o_notify_item);

		rdsu_list_del_init(&op->o_notify_item);
		op->o_queued = false;
		op_free_if_done(ep, op);
	}
	/* Ops the transport still has outlive the socket, unnotified. */
	for (struct rdsu_list *n = ep->ops.next; n != &ep->ops; n = n->next) {
		struct rdsu_rop *op = rdsu_container_of(n, struct rdsu_rop, o_item);

		if (op->o_rs == rs) {
			op->o_rs = NULL;
			rs->rs_n_ops--;
		}
	}
}

/* The endpoint goes: every message is freed already; give back what is
 * left without telling anyone. */
void rdsu_rdma_ep_free(struct rdsu_ep *ep)
{
	while (!rdsu_list_empty(&ep->ops)) {
		struct rdsu_rop *op = rdsu_container_of(ep->ops.next, struct rdsu_rop, o_item);

		op->o_msg = NULL;
		op->o_state = RDSU_ROP_ENDED;
		op->o_queued = false;
		rdsu_list_del_init(&op->o_notify_item);
		op_free_if_done(ep, op);
	}
}
