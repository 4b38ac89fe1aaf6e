// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * mon.c - the librds monitor protocol: message header and snapshot
 * records (wire.h, docs/protocol/monitor.md). Ref: librds's read-only
 * monitor interface (rdsu.h rdsu_conn_info, rdsu_path_info,
 * rdsu_sock_info, rdsu_stats), which the records carry field for field.
 */
#include <wire/wire.h>

#include <string.h>

#include "rd.h"
#include "wr.h"

ssize_t wire_mon_hdr_decode(struct wire_mon_hdr *h, const uint8_t *buf, size_t len)
{
	struct wire_rd rd;

	if (!h || (!buf && len))
		return WIRE_ERR_INVAL;
	if (len < WIRE_MON_HDR_LEN)
		return WIRE_ERR_TRUNC;
	wire_rd_init(&rd, buf, len);
	if (wire_rd_be32(&rd) != WIRE_MON_MAGIC)
		return WIRE_ERR_MALFORMED;
	h->version = wire_rd_u8(&rd);
	h->type = wire_rd_u8(&rd);
	h->reserved = wire_rd_be16(&rd);
	h->len = wire_rd_be32(&rd);
	if (h->version != WIRE_MON_VERSION)
		return WIRE_ERR_UNSUPP;
	if (h->len > WIRE_MON_MAX_BODY)
		return WIRE_ERR_TOOBIG;
	return WIRE_MON_HDR_LEN;
}

ssize_t wire_mon_hdr_encode(const struct wire_mon_hdr *h, uint8_t *buf, size_t cap)
{
	struct wire_wr wr;

	if (!h || (!buf && cap))
		return WIRE_ERR_INVAL;
	wire_wr_init(&wr, buf, cap);
	wire_wr_be32(&wr, WIRE_MON_MAGIC);
	wire_wr_u8(&wr, h->version);
	wire_wr_u8(&wr, h->type);
	wire_wr_be16(&wr, h->reserved);
	wire_wr_be32(&wr, h->len);
	return wire_wr_ok(&wr) ? WIRE_MON_HDR_LEN : WIRE_ERR_NOSPACE;
}

/* A name field: a length byte, then WIRE_MON_NAME_LEN bytes, zero padded. */
static bool rd_name(struct wire_rd *rd, char out[WIRE_MON_NAME_LEN + 1])
{
	uint8_t n = wire_rd_u8(rd);
	const uint8_t *p = wire_rd_take(rd, WIRE_MON_NAME_LEN);

	memset(out, 0, WIRE_MON_NAME_LEN + 1);
	if (!p || n > WIRE_MON_NAME_LEN || memchr(p, 0, n))
		return false;
	memcpy(out, p, n);
	return true;
}

static bool wr_name(struct wire_wr *wr, const char *name)
{
	const char *end = memchr(name, 0, WIRE_MON_NAME_LEN + 1);
	size_t n;

	if (!end)
		return false;
	n = (size_t)(end - name);
	wire_wr_u8(wr, (uint8_t)n);
	wire_wr_bytes(wr, name, n);
	wire_wr_zero(wr, WIRE_MON_NAME_LEN - n);
	return true;
}

static size_t bits_set(const uint8_t *b)
{
	size_t n = 0;

	for (size_t i = 0; i < WIRE_CONG_MAP_BYTES; i++)
		n += (size_t)__builtin_popcount(b[i]);
	return n;
}

static size_t fixed_len(uint16_t type)
{
	switch (type) {
	case WIRE_MON_R_PROC:
		return WIRE_MON_PROC_LEN;
	case WIRE_MON_R_COUNTER:
		return WIRE_MON_COUNTER_LEN;
	case WIRE_MON_R_CONN:
		return WIRE_MON_CONN_LEN;
	case WIRE_MON_R_PATH:
		return WIRE_MON_PATH_LEN;
	case WIRE_MON_R_MAP:
		return WIRE_MON_MAP_LEN;
	case WIRE_MON_R_SOCK:
		return WIRE_MON_SOCK_LEN;
	case WIRE_MON_R_END:
		return 0;
	}
	return SIZE_MAX;
}

static bool dec_value(struct wire_mon_item *it, struct wire_rd *v)
{
	switch (it->type) {
	case WIRE_MON_R_PROC: {
		struct wire_mon_proc *p = &it->u.proc;

		p->pid = wire_rd_be32(v);
		p->laddrs = wire_rd_be32(v);
		p->now_ns = wire_rd_be64(v);
		p->transports = wire_rd_u8(v);
		return rd_name(v, p->name);
	}
	case WIRE_MON_R_COUNTER: {
		struct wire_mon_counter *c = &it->u.counter;

		c->group = wire_rd_u8(v);
		if (!rd_name(v, c->name))
			return false;
		c->value = wire_rd_be64(v);
		return true;
	}
	case WIRE_MON_R_CONN: {
		struct wire_mon_conn *c = &it->u.conn;

		wire_rd_copy(v, c->laddr, 16);
		wire_rd_copy(v, c->faddr, 16);
		c->transport = wire_rd_u8(v);
		c->npaths = wire_rd_be16(v);
		c->my_gen = wire_rd_be32(v);
		c->peer_gen = wire_rd_be32(v);
		c->flags = wire_rd_u8(v);
		c->held_links = wire_rd_u8(v);
		c->peer_congested = wire_rd_be32(v);
		return true;
	}
	case WIRE_MON_R_PATH: {
		struct wire_mon_path *p = &it->u.path;

		p->index = wire_rd_u8(v);
		p->state = wire_rd_u8(v);
		p->outgoing = wire_rd_u8(v);
		p->local_sport = wire_rd_be16(v);
		p->peer_sport = wire_rd_be16(v);
		p->link = wire_rd_be64(v);
		p->next_tx_seq = wire_rd_be64(v);
		p->next_rx_seq = wire_rd_be64(v);
		p->send_q_msgs = wire_rd_be32(v);
		p->send_q_bytes = wire_rd_be64(v);
		p->retrans_q_msgs = wire_rd_be32(v);
		p->retrans_q_bytes = wire_rd_be64(v);
		p->tx_bytes = wire_rd_be64(v);
		p->acked_bytes = wire_rd_be64(v);
		p->rx_bytes = wire_rd_be64(v);
		p->connects = wire_rd_be64(v);
		p->resets = wire_rd_be64(v);
		p->map_queued = wire_rd_u8(v);
		return true;
	}
	case WIRE_MON_R_MAP: {
		struct wire_mon_map *m = &it->u.map;

		m->kind = wire_rd_u8(v);
		wire_rd_copy(v, m->addr, 16);
		m->count = wire_rd_be32(v);
		m->bits = NULL;
		if (!m->count)
			return true;
		/* the bitmap is part of the map, not a later field */
		m->bits = wire_rd_take(v, WIRE_CONG_MAP_BYTES);
		return m->bits && bits_set(m->bits) == m->count;
	}
	case WIRE_MON_R_SOCK: {
		struct wire_mon_sock *s = &it->u.sock;

		wire_rd_copy(v, s->laddr, 16);
		s->port = wire_rd_be16(v);
		s->flags = wire_rd_u8(v);
		s->sndbuf = wire_rd_be32(v);
		s->rcvbuf = wire_rd_be32(v);
		s->snd_bytes = wire_rd_be64(v);
		s->rcv_bytes = wire_rd_be64(v);
		s->rx_msgs = wire_rd_be32(v);
		return true;
	}
	case WIRE_MON_R_END:
		return wire_rd_left(v) == 0;
	}
	return true;
}

ssize_t wire_mon_rec_decode(struct wire_mon_item *it, const uint8_t *buf, size_t len)
{
	struct wire_rd rd, v;
	uint32_t vlen;
	size_t fixed;

	if (!it || (!buf && len))
		return WIRE_ERR_INVAL;
	memset(it, 0, sizeof(*it));
	wire_rd_init(&rd, buf, len);
	it->type = wire_rd_be16(&rd);
	vlen = wire_rd_be32(&rd);
	if (!wire_rd_ok(&rd) || vlen > wire_rd_left(&rd))
		return WIRE_ERR_TRUNC;
	v = wire_rd_sub(&rd, vlen);
	fixed = fixed_len(it->type);
	if (fixed != SIZE_MAX) {
		if (vlen < fixed || !dec_value(it, &v) || !wire_rd_ok(&v))
			return WIRE_ERR_MALFORMED;
	}
	return (ssize_t)(WIRE_MON_REC_HDR_LEN + (size_t)vlen);
}

static bool enc_value(const struct wire_mon_item *it, struct wire_wr *wr)
{
	switch (it->type) {
	case WIRE_MON_R_PROC: {
		const struct wire_mon_proc *p = &it->u.proc;

		wire_wr_be32(wr, p->pid);
		wire_wr_be32(wr, p->laddrs);
		wire_wr_be64(wr, p->now_ns);
		wire_wr_u8(wr, p->transports);
		return wr_name(wr, p->name);
	}
	case WIRE_MON_R_COUNTER: {
		const struct wire_mon_counter *c = &it->u.counter;

		wire_wr_u8(wr, c->group);
		if (!wr_name(wr, c->name))
			return false;
		wire_wr_be64(wr, c->value);
		return true;
	}
	case WIRE_MON_R_CONN: {
		const struct wire_mon_conn *c = &it->u.conn;

		wire_wr_bytes(wr, c->laddr, 16);
		wire_wr_bytes(wr, c->faddr, 16);
		wire_wr_u8(wr, c->transport);
		wire_wr_be16(wr, c->npaths);
		wire_wr_be32(wr, c->my_gen);
		wire_wr_be32(wr, c->peer_gen);
		wire_wr_u8(wr, c->flags);
		wire_wr_u8(wr, c->held_links);
		wire_wr_be32(wr, c->peer_congested);
		return true;
	}
	case WIRE_MON_R_PATH: {
		const struct wire_mon_path *p = &it->u.path;

		wire_wr_u8(wr, p->index);
		wire_wr_u8(wr, p->state);
		wire_wr_u8(wr, p->outgoing);
		wire_wr_be16(wr, p->local_sport);
		wire_wr_be16(wr, p->peer_sport);
		wire_wr_be64(wr, p->link);
		wire_wr_be64(wr, p->next_tx_seq);
		wire_wr_be64(wr, p->next_rx_seq);
		wire_wr_be32(wr, p->send_q_msgs);
		wire_wr_be64(wr, p->send_q_bytes);
		wire_wr_be32(wr, p->retrans_q_msgs);
		wire_wr_be64(wr, p->retrans_q_bytes);
		wire_wr_be64(wr, p->tx_bytes);
		wire_wr_be64(wr, p->acked_bytes);
		wire_wr_be64(wr, p->rx_bytes);
		wire_wr_be64(wr, p->connects);
		wire_wr_be64(wr, p->resets);
		wire_wr_u8(wr, p->map_queued);
		return true;
	}
	case WIRE_MON_R_MAP: {
		const struct wire_mon_map *m = &it->u.map;

		if ((m->count != 0) != (m->bits != NULL) ||
		    (m->bits && bits_set(m->bits) != m->count))
			return false;
		wire_wr_u8(wr, m->kind);
		wire_wr_bytes(wr, m->addr, 16);
		wire_wr_be32(wr, m->count);
		if (m->bits)
			wire_wr_bytes(wr, m->bits, WIRE_CONG_MAP_BYTES);
		return true;
	}
	case WIRE_MON_R_SOCK: {
		const struct wire_mon_sock *s = &it->u.sock;

		wire_wr_bytes(wr, s->laddr, 16);
		wire_wr_be16(wr, s->port);
		wire_wr_u8(wr, s->flags);
		wire_wr_be32(wr, s->sndbuf);
		wire_wr_be32(wr, s->rcvbuf);
		wire_wr_be64(wr, s->snd_bytes);
		wire_wr_be64(wr, s->rcv_bytes);
		wire_wr_be32(wr, s->rx_msgs);
		return true;
	}
	case WIRE_MON_R_END:
		return true;
	}
	return false;
}

ssize_t wire_mon_rec_encode(const struct wire_mon_item *it, uint8_t *buf, size_t cap)
{
	struct wire_wr wr;
	uint8_t *lenp;
	size_t vlen;

	if (!it || (!buf && cap) || fixed_len(it->type) == SIZE_MAX)
		return WIRE_ERR_INVAL;
	wire_wr_init(&wr, buf, cap);
	wire_wr_be16(&wr, it->type);
	lenp = wire_wr_take(&wr, 4);
	if (!enc_value(it, &wr))
		return WIRE_ERR_INVAL;
	if (!wire_wr_ok(&wr))
		return WIRE_ERR_NOSPACE;
	vlen = wr.done - WIRE_MON_REC_HDR_LEN;
	lenp[0] = (uint8_t)(vlen >> 24);
	lenp[1] = (uint8_t)(vlen >> 16);
	lenp[2] = (uint8_t)(vlen >> 8);
	lenp[3] = (uint8_t)vlen;
	return (ssize_t)wr.done;
}
