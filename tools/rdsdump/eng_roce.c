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
	int32_t gap;
	int d;

	if (seg == WIRE_IB_SEG_NONE)
		return;
	f = qp_flow(e, r);
	if (!f)
		return;
	eng_lru_front(e, f);
	eng_make_room(e, f);
	q = &f->q;
	d = f->d[0].dir;
	gap = wire_ib_psn_step(&q->have_psn, &q->next_psn, r->bth.psn);
	if (gap < 0) {
		eng_note(e, f, d, DUMP_NOTE_PSN_DUP, 1, r->bth.psn, 0);
		return;
	}
	if (gap) {
		eng_note(e, f, d, DUMP_NOTE_PSN_GAP, (uint64_t)gap, r->bth.psn, 0);
		qp_reset(e, f);
	}
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
