// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ibres.c - RDMA netlink's devices, ports, QPs and rdma_cm IDs gathered
 * from the dumps' answers and joined to RDS IB connections (ibres.h).
 * Ref: drivers/infiniband/core/nldev.c; docs/kernel-behaviour.md K6.10.
 */
#include "ibres.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <wire/wire.h>

void top_ibres_init(struct top_ibres *r)
{
	memset(r, 0, sizeof(*r));
}

void top_ibres_fini(struct top_ibres *r)
{
	free(r->cms);
	free(r->qps);
	top_ibres_init(r);
}

static struct top_ibdev *dev_of(struct top_snap *s, uint32_t index)
{
	for (size_t i = 0; i < s->n_ibdevs; i++)
		if (s->ibdevs[i].index == index)
			return &s->ibdevs[i];
	return NULL;
}

static int take_dev(struct top_snap *s, const struct wire_nldev *m)
{
	struct top_ibdev *d = dev_of(s, m->dev_index);

	if (!d) {
		d = top_snap_add_ibdev(s);
		if (!d)
			return -ENOMEM;
		d->index = m->dev_index;
		memcpy(d->name, m->dev_name, sizeof(d->name));
	}
	for (unsigned i = 0; i < m->n_summary; i++) {
		const struct wire_nldev_summary *e = &m->summary[i];

		d->has_counts = true;
		if (!strcmp(e->name, "qp"))
			d->qps = e->curr;
		else if (!strcmp(e->name, "cq"))
			d->cqs = e->curr;
		else if (!strcmp(e->name, "mr"))
			d->mrs = e->curr;
		else if (!strcmp(e->name, "pd"))
			d->pds = e->curr;
		else if (!strcmp(e->name, "cm_id"))
			d->cm_ids = e->curr;
	}
	return 0;
}

static void take_port(struct top_snap *s, const struct wire_nldev *m)
{
	struct top_ibdev *d = dev_of(s, m->dev_index);

	if (!d || !m->has_port || d->n_ports == TOP_IBDEV_PORTS)
		return;
	d->ports[d->n_ports].port = m->port;
	d->ports[d->n_ports].state = m->port_state;
	d->ports[d->n_ports].phys_state = m->phys_state;
	memcpy(d->ports[d->n_ports].ndev, m->ndev_name, sizeof(d->ports[0].ndev));
	d->n_ports++;
}

static int take_entry(struct top_ibres *r, const struct wire_nldev *m,
		      const struct wire_nldev_entry *e)
{
	if (e->type == WIRE_NLDEV_ATTR_RES_QP_ENTRY && e->has_lqpn) {
		struct top_ibres_qp *q = top_grow((void **)&r->qps, &r->n_qps, &r->cap_qps,
					      sizeof(*q));

		if (!q)
			return -ENOMEM;
		q->dev = m->dev_index;
		q->lqpn = e->lqpn;
		q->has_rqpn = e->has_rqpn;
		q->rqpn = e->rqpn;
		q->has_port = e->has_port;
		q->port = e->port;
		q->has_state = e->has_state;
		q->state = e->state;
		q->type = e->has_type ? e->qp_type : 0xff;
		return 0;
	}
	if (e->type == WIRE_NLDEV_ATTR_RES_CM_ID_ENTRY && e->has_lqpn && e->src_family &&
	    e->dst_family && !strcmp(e->kern_name, TOP_IBRES_OWNER)) {
		struct top_ibres_cm *c = top_grow((void **)&r->cms, &r->n_cms, &r->cap_cms,
					      sizeof(*c));

		if (!c)
			return -ENOMEM;
		c->dev = m->dev_index;
		c->port = e->has_port ? e->port : 0;
		c->lqpn = e->lqpn;
		memcpy(c->src, e->src_addr, 16);
		memcpy(c->dst, e->dst_addr, 16);
	}
	return 0;
}

/* One decoded message. Return: 1 done, 0 more, < 0 an error. */
static int take_msg(struct top_ibres *r, struct top_snap *s, const struct wire_nldev *m,
		    const uint8_t *buf)
{
	struct wire_nldev_entry e;
	size_t pos = 0;
	int n;

	if (m->nl_seq != r->seq)
		return 0;
	if (m->is_done)
		return 1;
	if (m->is_error)
		return m->error < 0 ? m->error : 1;
	if (!m->client || !m->has_dev_index)
		return 0;
	switch (m->op) {
	case WIRE_NLDEV_CMD_RES_GET:
		return take_dev(s, m);
	case WIRE_NLDEV_CMD_PORT_GET:
		take_port(s, m);
		return 0;
	default:
		break;
	}
	while ((n = wire_nldev_next(m, buf, &pos, &e)) == 1) {
		int err = take_entry(r, m, &e);

		if (err)
			return err;
	}
	return n < 0 ? -EPROTO : 0;
}

int top_ibres_take(struct top_ibres *r, struct top_snap *s, const uint8_t *buf, size_t len)
{
	size_t off = 0;

	while (off < len) {
		struct wire_nldev m;
		ssize_t n = wire_nldev_decode(&m, buf + off, len - off);
		int st;

		if (n == WIRE_ERR_UNSUPP) {
			off += (m.nl_len + 3u) & ~3u;
			continue;
		}
		if (n <= 0)
			return -EPROTO;
		st = take_msg(r, s, &m, buf + off);
		if (st)
			return st;
		off += (size_t)n;
	}
	return 0;
}

static const struct top_ibres_qp *qp_of(const struct top_ibres *r, uint32_t dev,
					 uint32_t lqpn)
{
	for (size_t i = 0; i < r->n_qps; i++)
		if (r->qps[i].dev == dev && r->qps[i].lqpn == lqpn)
			return &r->qps[i];
	return NULL;
}

static void join_one(const struct top_ibres *r, struct top_snap *s, struct top_ib *b)
{
	const struct top_ibres_cm *cm = NULL;
	const struct top_ibres_qp *q;
	const struct top_ibdev *d;
	size_t found = 0;

	for (size_t i = 0; i < r->n_cms; i++) {
		if (memcmp(r->cms[i].src, b->r.src_addr, 16) ||
		    memcmp(r->cms[i].dst, b->r.dst_addr, 16))
			continue;
		cm = &r->cms[i];
		found++;
	}
	b->join = !found ? TOP_IBJ_NOQP : found > 1 ? TOP_IBJ_AMBIG : TOP_IBJ_OK;
	if (b->join != TOP_IBJ_OK)
		return;
	b->qpn = cm->lqpn;
	b->port = cm->port;
	b->dev = SIZE_MAX;
	d = dev_of(s, cm->dev);
	if (d)
		b->dev = (size_t)(d - s->ibdevs);
	q = qp_of(r, cm->dev, cm->lqpn);
	if (q && q->type == 2) {        /* IB_QPT_RC: what rds_ib_setup_qp makes */
		b->has_qp = q->has_state;
		b->qp_state = q->state;
		b->qp_type = q->type;
		b->has_rqpn = q->has_rqpn;
		b->rqpn = q->rqpn;
		if (q->has_port)
			b->port = q->port;
	}
	for (unsigned p = 0; d && p < d->n_ports; p++)
		if (d->ports[p].port == b->port) {
			b->has_port_state = true;
			b->port_state = d->ports[p].state;
		}
}

void top_ibres_join(const struct top_ibres *r, struct top_snap *s)
{
	s->has_rdma = true;
	for (size_t i = 0; i < s->n_ibs; i++)
		join_one(r, s, &s->ibs[i]);
}

const char *top_ib_qp_str(const struct top_ib *b)
{
	switch (b->join) {
	case TOP_IBJ_AMBIG:
		return "unknown";
	case TOP_IBJ_OK:
		if (b->has_qp)
			return wire_tok_str(wire_nldev_qp_state_toks, b->qp_state, "?");
		return "-";
	case TOP_IBJ_NONE:
	case TOP_IBJ_NOQP:
		break;
	}
	return "-";
}
