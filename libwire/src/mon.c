// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * mon.c - the librds monitor protocol: message header and snapshot
 * records (wire.h, docs/protocol/monitor.md). Ref: librds's read-only
 * monitor interface (rdsu.h rdsu_conn_info, rdsu_path_info,
 * rdsu_sock_info, rdsu_stats), which the records carry field for field.
 */
#include <wire/wire.h>

#include <string.h>

#include "fld.h"

/* After the magic, in wire order. */
#define F(member) WIRE_FLD_OF(0, struct wire_mon_hdr, member, WIRE_FLD_BE, false)

static const struct wire_fld hdr_flds[] = {
	F(version),
	F(type),
	F(reserved),
	F(len),
};

#undef F

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
	wire_fld_read(&rd, hdr_flds, WIRE_FLD_N(hdr_flds), 0, h, false);
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
	wire_fld_write(&wr, hdr_flds, WIRE_FLD_N(hdr_flds), 0, h, false);
	return wire_wr_ok(&wr) ? WIRE_MON_HDR_LEN : WIRE_ERR_NOSPACE;
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

/*
 * Every record's fields in wire order, each row tagged with its record
 * type. Records are only ever items, so a member is named from the item.
 */
#define F(type, member, kind) \
	WIRE_FLD_OF(WIRE_MON_R_##type, struct wire_mon_item, u.member, WIRE_FLD_##kind, false)

static const struct wire_fld mon_flds[] = {
	F(PROC, proc.pid, BE),
	F(PROC, proc.laddrs, BE),
	F(PROC, proc.now_ns, BE),
	F(PROC, proc.transports, BE),
	F(PROC, proc.name, NAME),

	F(COUNTER, counter.group, BE),
	F(COUNTER, counter.name, NAME),
	F(COUNTER, counter.value, BE),

	F(CONN, conn.laddr, BYTES),
	F(CONN, conn.faddr, BYTES),
	F(CONN, conn.transport, BE),
	F(CONN, conn.npaths, BE),
	F(CONN, conn.my_gen, BE),
	F(CONN, conn.peer_gen, BE),
	F(CONN, conn.flags, BE),
	F(CONN, conn.held_links, BE),
	F(CONN, conn.peer_congested, BE),

	F(PATH, path.index, BE),
	F(PATH, path.state, BE),
	F(PATH, path.outgoing, BE),
	F(PATH, path.local_sport, BE),
	F(PATH, path.peer_sport, BE),
	F(PATH, path.link, BE),
	F(PATH, path.next_tx_seq, BE),
	F(PATH, path.next_rx_seq, BE),
	F(PATH, path.send_q_msgs, BE),
	F(PATH, path.send_q_bytes, BE),
	F(PATH, path.retrans_q_msgs, BE),
	F(PATH, path.retrans_q_bytes, BE),
	F(PATH, path.tx_bytes, BE),
	F(PATH, path.acked_bytes, BE),
	F(PATH, path.rx_bytes, BE),
	F(PATH, path.connects, BE),
	F(PATH, path.resets, BE),
	F(PATH, path.map_queued, BE),

	/* then the bitmap, when count is not 0 */
	F(MAP, map.kind, BE),
	F(MAP, map.addr, BYTES),
	F(MAP, map.count, BE),

	F(SOCK, sock.laddr, BYTES),
	F(SOCK, sock.port, BE),
	F(SOCK, sock.flags, BE),
	F(SOCK, sock.sndbuf, BE),
	F(SOCK, sock.rcvbuf, BE),
	F(SOCK, sock.snd_bytes, BE),
	F(SOCK, sock.rcv_bytes, BE),
	F(SOCK, sock.rx_msgs, BE),
};

#undef F

/* The records have one layout: no field is IPv4-only. */
static bool dec_value(struct wire_mon_item *it, struct wire_rd *v)
{
	struct wire_mon_map *m = &it->u.map;

	if (!wire_fld_read(v, mon_flds, WIRE_FLD_N(mon_flds), it->type, it, false))
		return false;
	switch (it->type) {
	case WIRE_MON_R_MAP:
		if (!m->count)
			return true;
		/* the bitmap is part of the map, not a later field */
		m->bits = wire_rd_take(v, WIRE_CONG_MAP_BYTES);
		return m->bits && bits_set(m->bits) == m->count;
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
	const struct wire_mon_map *m = &it->u.map;
	bool map = it->type == WIRE_MON_R_MAP;

	if (map && ((m->count != 0) != (m->bits != NULL) ||
		    (m->bits && bits_set(m->bits) != m->count)))
		return false;
	if (!wire_fld_write(wr, mon_flds, WIRE_FLD_N(mon_flds), it->type, it, false))
		return false;
	if (map && m->bits)
		wire_wr_bytes(wr, m->bits, WIRE_CONG_MAP_BYTES);
	return true;
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
