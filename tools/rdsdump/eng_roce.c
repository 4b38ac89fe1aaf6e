// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * eng_roce.c - rdsdump's engine on RDS over RoCEv2 and native InfiniBand:
 * a QP's SENDs put back in PSN order and reassembled, and the CM exchanges
 * that set up connections. Both links decode to one struct wire_roce, so
 * everything after the decoder is shared.
 */
#include "eng.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------
 * RDS over RoCEv2
 */

static void qp_reset(struct dump_eng *e, struct flow *f)
{
	f->q.flen = 0;
	f->q.in_send = false;
	wire_reasm_init_prefix(&f->q.ra, e->cfg.max_len, f->q.keep, e->cfg.keep);
	wire_rules_clear(&f->q.rules);
	f->q.icrc_ok = true;
	f->q.in_op = false;
	f->q.read_slack = 0;
}

void eng_qp_close_flow(struct dump_eng *e, struct flow *f)
{
	if (f->q.ra.active)
		eng_note(e, f, f->d[0].dir, DUMP_NOTE_PARTIAL, f->q.ra.got, f->q.ra.first.len, 0);
	if (f->q.fbuf)
		qp_reset(e, f);
	f->closed = true;
}

/* The packet's endpoints: IP addresses (RoCEv2), GIDs (a GRH), or LIDs. */
static void packet_eps(const struct wire_roce *r, struct dump_ep *s, struct dump_ep *d)
{
	memset(s, 0, sizeof(*s));
	memset(d, 0, sizeof(*d));
	if (r->has_lrh && !r->has_grh) {
		s->family = d->family = DUMP_FAM_LID;
		s->addr[0] = (uint8_t)(r->lrh.slid >> 8);
		s->addr[1] = (uint8_t)r->lrh.slid;
		d->addr[0] = (uint8_t)(r->lrh.dlid >> 8);
		d->addr[1] = (uint8_t)r->lrh.dlid;
		return;
	}
	s->family = d->family = (uint8_t)r->ip_version;
	memcpy(s->addr, r->src, 16);
	memcpy(d->addr, r->dst, 16);
}

static struct flow *qp_flow(struct dump_eng *e, const struct wire_roce *r)
{
	struct dump_ep s, dst;
	struct flow *f;
	struct conn *c;

	packet_eps(r, &s, &dst);
	f = eng_flow_find(e, F_QP, &s, &dst, r->bth.dqpn);
	if (f)
		return f;
	f = eng_flow_new(e, F_QP, &s, &dst, r->bth.dqpn);
	if (!f)
		return NULL;
	f->q.fbuf = eng_zalloc(e, FRAME_MAX);
	f->q.keep = eng_zalloc(e, e->cfg.keep);
	if (!f->q.fbuf || !f->q.keep) {
		eng_flow_free(e, f);
		return NULL;
	}
	qp_reset(e, f);
	c = eng_conn_get(e, DUMP_XP_IB, &s, &dst);
	eng_flow_set_conn(f, c);
	f->path = 0;            /* IB is not multipath */
	f->d[0].dir = c ? eng_conn_dir(c, &s) : 0;
	if (c)
		c->pub.st[0][f->d[0].dir].conns++;
	return f;
}

/* ------------------------------------------------------------------------
 * RDMA operations on an RDS QP (net/rds/ib_send.c rds_ib_xmit_rdma,
 * rds_ib_xmit_atomic: posted before the SEND of their message)
 */

static uint64_t be64_at(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* A message that carries an RDMA extension header claims the operations
 * seen on its QP since the last such message: those with its r_key are
 * its own, the others unmatched. Messages without one leave them. */
static void rdma_claim(struct dump_eng *e, struct flow *f, const struct wire_hdr *h,
		       struct dump_msg *m)
{
	struct wire_exts x;
	struct qstate *q = &f->q;
	bool has = false;
	uint32_t rkey = 0;

	if (!q->npend)
		return;
	wire_exts_decode(&x, h->ext, e->cfg.kv);
	for (unsigned i = 0; i < x.count; i++)
		if (x.e[i].type == WIRE_EXT_RDMA && x.e[i].known) {
			has = true;
			rkey = x.e[i].u.rdma_rkey;
		}
	if (!has)
		return;
	for (uint32_t i = 0; i < q->npend; i++) {
		if (q->pend[i].rkey == rkey) {
			q->claimed[m->rdma_ops] = q->pend[i].frame;
			m->rdma_frames = q->claimed;
			m->rdma_ops++;
			m->rdma_bytes += q->pend[i].len;
		} else {
			m->rdma_unmatched++;
		}
	}
	q->npend = 0;
}

static void rdma_emit(struct dump_eng *e, struct flow *f, const struct dump_rdma_rec *a)
{
	struct conn *c = eng_conn_of(e, f->conn);
	int d = f->d[0].dir;
	struct dump_rec rec;

	eng_rec_init(e, &rec, DUMP_REC_RDMA, f, d);
	rec.u.rdma = *a;
	if (c) {
		struct dump_pstats *st = &c->pub.st[0][d];

		if (a->op != DUMP_RDMA_READ_RESP)
			st->rdma_ops++;
		st->rdma_bytes += a->bytes;
	}
	if (a->op != DUMP_RDMA_READ_RESP) {
		struct qstate *q = &f->q;

		if (q->npend == sizeof(q->pend) / sizeof(q->pend[0])) {
			memmove(&q->pend[0], &q->pend[1], sizeof(q->pend) - sizeof(q->pend[0]));
			q->npend--;
		}
		q->pend[q->npend].rkey = a->rkey;
		q->pend[q->npend].frame = rec.frame;
		q->pend[q->npend].len = a->op == DUMP_RDMA_READ || a->op == DUMP_RDMA_WRITE ?
					a->len : 8;
		q->npend++;
	}
	eng_emit(e, &rec);
}

/* |r| is an RC or UC packet that is not a SEND, on a QP already taken as
 * RDS. Requests (WRITE, READ REQUEST, atomics) take PSNs in the
 * requester's sequence as SENDs do; READ RESPONSEs travel the other way
 * with the requester's PSNs, so they stay out of this flow's sequence. */
/*
 * The packet's PSN against the QP's next one: a step back is a duplicate
 * (noted; false, the packet goes no further); a gap wider than the READ
 * responses that may go unseen is noted and ends the QP's message.
 */
static bool psn_in_order(struct dump_eng *e, struct flow *f, int d, uint32_t psn)
{
	struct qstate *q = &f->q;
	int32_t gap = wire_ib_psn_step(&q->have_psn, &q->next_psn, psn);

	if (gap < 0) {
		eng_note(e, f, d, DUMP_NOTE_PSN_DUP, 1, psn, 0);
		return false;
	}
	if (gap && (uint32_t)gap >= q->read_slack) {
		eng_note(e, f, d, DUMP_NOTE_PSN_GAP, (uint64_t)gap, psn, 0);
		qp_reset(e, f);
	}
	q->read_slack = 0;
	return true;
}

static void rdma_packet(struct dump_eng *e, const struct wire_pkt *p, const struct wire_roce *r)
{
	unsigned tr = r->bth.opcode >> 5, op = r->bth.opcode & 0x1f;
	struct dump_ep s, dst;
	struct flow *f;
	struct qstate *q;
	int d;

	if (tr > 1 || op < 0x06 || op > 0x14 || op == 0x11 || op == 0x12)
		return;         /* not RC/UC, or an acknowledgement */
	packet_eps(r, &s, &dst);
	f = eng_flow_find(e, F_QP, &s, &dst, r->bth.dqpn);
	if (!f || !f->q.rds)
		return;
	eng_lru_front(e, f);
	q = &f->q;
	d = f->d[0].dir;
	if (op >= 0x0d && op <= 0x10) {
		if (op == 0x0d || op == 0x10) {
			memset(&q->resp, 0, sizeof(q->resp));
			q->resp.op = DUMP_RDMA_READ_RESP;
			q->resp.psn = r->bth.psn;
			q->in_resp = true;
		} else if (!q->in_resp) {
			return;
		}
		q->resp.bytes += r->payload_len;
		q->resp.packets++;
		if (op == 0x0f || op == 0x10) {
			q->in_resp = false;
			rdma_emit(e, f, &q->resp);
		}
		return;
	}
	if (!psn_in_order(e, f, d, r->bth.psn))
		return;
	if (p->l3_caplen < p->l3_len) {
		eng_note(e, f, d, DUMP_NOTE_TRUNC, p->l3_len - p->l3_caplen, r->bth.psn, 0);
		q->in_op = false;
		return;
	}
	if (r->has_reth) {
		memset(&q->op, 0, sizeof(q->op));
		q->op.rkey = r->reth.rkey;
		q->op.va = r->reth.va;
		q->op.len = r->reth.dma_len;
		q->op.psn = r->bth.psn;
		q->in_op = false;
	}
	switch (op) {
	case 0x06:              /* WRITE FIRST */
	case 0x0a:              /* WRITE ONLY */
	case 0x0b:              /* WRITE ONLY with immediate */
		q->op.op = DUMP_RDMA_WRITE;
		q->op.bytes = r->payload_len;
		q->op.packets = 1;
		q->in_op = op == 0x06;
		if (op != 0x06)
			rdma_emit(e, f, &q->op);
		break;
	case 0x07:              /* WRITE MIDDLE */
	case 0x08:              /* WRITE LAST */
	case 0x09:              /* WRITE LAST with immediate */
		if (!q->in_op)
			break;  /* its first packet was not seen */
		q->op.bytes += r->payload_len;
		q->op.packets++;
		if (op != 0x07) {
			q->in_op = false;
			rdma_emit(e, f, &q->op);
		}
		break;
	case 0x0c:              /* READ REQUEST: one PSN per response packet */
		q->op.op = DUMP_RDMA_READ;
		q->op.packets = 1;
		q->read_slack = (uint32_t)((q->op.len + 255) / 256);
		rdma_emit(e, f, &q->op);
		break;
	case 0x13:              /* COMPARE SWAP */
	case 0x14:              /* FETCH ADD */
		if (!r->has_atomic_eth)
			break;
		/* AtomicETH (VA, R_Key, SwapAdd, Compare): libwire checked
		 * its 28 bytes and keeps none of them; they end where the
		 * payload starts */
		{
			const uint8_t *a = r->payload - 28;

			memset(&q->op, 0, sizeof(q->op));
			q->op.op = op == 0x13 ? DUMP_RDMA_CSWP : DUMP_RDMA_FADD;
			q->op.va = be64_at(a);
			q->op.rkey = (uint32_t)a[8] << 24 | (uint32_t)a[9] << 16 |
				     (uint32_t)a[10] << 8 | a[11];
			q->op.swap_add = be64_at(a + 12);
			q->op.compare = be64_at(a + 20);
			q->op.len = 8;
			q->op.packets = 1;
			q->op.psn = r->bth.psn;
			rdma_emit(e, f, &q->op);
		}
		break;
	default:
		break;
	}
}

static void qp_send_done(struct dump_eng *e, struct flow *f)
{
	struct wire_frame fr;
	struct dump_rec r;
	int d = f->d[0].dir;
	int rc = wire_reasm_input(&f->q.ra, f->q.fbuf, f->q.flen, &fr);

	f->q.flen = 0;
	f->q.in_send = false;
	if (rc == 0)
		return;
	if (rc == WIRE_ERR_TOOBIG) {
		struct wire_hdr h;

		wire_hdr_decode(&h, f->q.fbuf, FRAME_MAX);
		eng_note(e, f, d, DUMP_NOTE_DESYNC, h.len, h.seq, 0);
		qp_reset(e, f);
		return;
	}
	if (rc < 0) {
		eng_rec_init(e, &r, DUMP_REC_NOTE, f, d);
		r.u.note.what = DUMP_NOTE_FRAG_ERR;
		r.rules = f->q.ra.rules;
		eng_emit(e, &r);
		qp_reset(e, f);
		return;
	}
	eng_rec_init(e, &r, DUMP_REC_MSG, f, d);
	rdma_claim(e, f, &fr.hdr, &r.u.msg);
	r.u.msg.hdr = fr.hdr;
	r.u.msg.payload = fr.payload;
	r.u.msg.caplen = fr.caplen;
	r.u.msg.frags = fr.hdr.sport == 0 && fr.hdr.dport == 0 && fr.len == 0 ? 1 : f->q.ra.frags;
	r.u.msg.icrc_ok = f->q.icrc_ok;
	r.rules = f->q.rules;
	eng_finish_msg(e, &r, WIRE_XPORT_IB);
	if (!f->q.ra.active) {
		wire_rules_clear(&f->q.rules);
		f->q.icrc_ok = true;
	}
}

static void qp_packet(struct dump_eng *e, const struct wire_pkt *p, const struct wire_roce *r)
{
	enum wire_ib_seg seg = wire_ib_opcode_seg(r->bth.opcode);
	struct flow *f;
	struct qstate *q;
	int d;

	if (seg == WIRE_IB_SEG_NONE) {
		rdma_packet(e, p, r);
		return;
	}
	f = qp_flow(e, r);
	if (!f)
		return;
	eng_lru_front(e, f);
	eng_make_room(e, f);
	q = &f->q;
	d = f->d[0].dir;
	if (!psn_in_order(e, f, d, r->bth.psn))
		return;
	if (p->l3_caplen < p->l3_len) {
		eng_note(e, f, d, DUMP_NOTE_TRUNC, p->l3_len - p->l3_caplen, r->bth.psn, 0);
		qp_reset(e, f);
		return;
	}
	if (seg == WIRE_IB_SEG_FIRST || seg == WIRE_IB_SEG_ONLY) {
		/* the rule the Wireshark plugin claims a flow by: another ULP's
		 * SENDs on the same link are not RDS messages with broken rules */
		if (!q->rds && !wire_ib_claims_qp(r->payload, r->payload_len)) {
			q->in_send = false;
			return;
		}
		q->rds = true;
		q->flen = 0;
		q->in_send = true;
	} else if (!q->in_send) {
		return;         /* the start of this SEND was not seen */
	}
	wire_rules_merge(&q->rules, &r->rules);
	if (!r->icrc_checked || !r->icrc_ok)
		q->icrc_ok = false;
	if (r->payload_len > FRAME_MAX - q->flen) {
		struct dump_rec rec;

		eng_rec_init(e, &rec, DUMP_REC_NOTE, f, d);
		rec.u.note.what = DUMP_NOTE_FRAG_ERR;
		rec.u.note.len = q->flen + r->payload_len;
		wire_rules_add(&rec.rules, WIRE_RULE_FRAG_LONG);
		eng_emit(e, &rec);
		qp_reset(e, f);
		return;
	}
	memcpy(q->fbuf + q->flen, r->payload, r->payload_len);
	q->flen += r->payload_len;
	if (seg == WIRE_IB_SEG_LAST || seg == WIRE_IB_SEG_ONLY)
		qp_send_done(e, f);
}

static void cm_packet(struct dump_eng *e, const struct wire_roce *r)
{
	struct wire_ibcm cm;
	struct wire_ibpd pd;
	struct dump_rec rec;
	struct dump_ep s, dst;
	struct conn *c;
	int rc = wire_ibcm_decode(&cm, r->payload, r->payload_len);

	packet_eps(r, &s, &dst);
	eng_rec_init(e, &rec, DUMP_REC_CM, NULL, 0);
	rec.xp = DUMP_XP_IB;
	rec.src = s;
	rec.dst = dst;
	rec.qpn = r->bth.dqpn;
	if (rc == WIRE_ERR_UNSUPP)
		return;
	if (rc < 0) {
		rec.type = DUMP_REC_BAD;
		rec.u.bad.err = rc;
		rec.u.bad.layer = "ibcm";
		eng_emit(e, &rec);
		return;
	}
	c = eng_conn_get(e, DUMP_XP_IB, &s, &dst);
	rec.conn = c ? c->pub.id : -1;
	rec.dir = c ? eng_conn_dir(c, &s) : 0;
	rec.u.cm.cm = &cm;
	rec.rules = cm.rules;
	wire_rules_merge(&rec.rules, &r->rules);
	if (cm.attr_id == WIRE_IBCM_REQ && cm.has_cma) {
		int fam = cm.cma_ip_version == 6 ? 6 : 4;
		ssize_t n = wire_ibpd_decode(&pd, fam, cm.user_data, cm.user_len);
		struct cmreq *q = &e->reqs[e->nreq++ % 64];

		rec.u.cm.version = wire_ib_negotiate(cm.user_data, cm.user_len, fam);
		q->comm_id = cm.local_comm_id;
		q->family = fam;
		q->proposed = n > 0 ? (uint16_t)(pd.major << 8 | pd.minor) : 0;
		if (n > 0)
			rec.u.cm.pd = &pd;
		wire_rules_merge(&rec.rules, &pd.rules);
	} else if (cm.attr_id == WIRE_IBCM_REP) {
		int fam = 4;
		uint16_t proposed = WIRE_IBVER_4_1;
		ssize_t n;

		for (unsigned i = 0; i < 64 && i < e->nreq; i++)
			if (e->reqs[i].comm_id == cm.remote_comm_id) {
				fam = e->reqs[i].family;
				if (e->reqs[i].proposed)
					proposed = e->reqs[i].proposed;
			}
		n = wire_ibpd_decode(&pd, fam, cm.private_data, cm.private_len);
		rec.u.cm.version = wire_ib_adopt(proposed, n > 0 ? &pd : NULL);
		if (n > 0)
			rec.u.cm.pd = &pd;
	}
	if (c)
		eng_count_rules(c, &rec.rules);
	eng_emit(e, &rec);
}

static void transport_packet(struct dump_eng *e, const struct wire_pkt *p,
			     const struct wire_roce *r, int rc, const char *layer)
{
	if (rc < 0) {
		struct dump_rec rec;

		eng_rec_init(e, &rec, DUMP_REC_BAD, NULL, 0);
		rec.xp = DUMP_XP_IB;
		rec.u.bad.err = rc;
		rec.u.bad.layer = layer;
		eng_emit(e, &rec);
		return;
	}
	if (r->bth.dqpn == 1 && r->bth.opcode == WIRE_IB_UD_SEND_ONLY)
		cm_packet(e, r);
	else
		qp_packet(e, p, r);
}

void eng_roce_packet(struct dump_eng *e, const struct wire_pkt *p)
{
	struct wire_roce r;
	int rc = wire_roce_decode(&r, p->l3_hdr, p->l3_caplen, p->l3_len);

	transport_packet(e, p, &r, rc, "roce");
}

void eng_ib_packet(struct dump_eng *e, const struct wire_pkt *p)
{
	struct wire_roce r;
	int rc = wire_ib_decode(&r, p->l3_hdr, p->l3_caplen, p->l3_len);

	transport_packet(e, p, &r, rc, "ib");
}
