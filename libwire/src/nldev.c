// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * nldev.c - RDMA netlink device messages (RDMA_NL_NLDEV): the answers of
 * the GET, PORT_GET, RES_GET, RES_QP_GET and RES_CM_ID_GET dumps, read
 * for rdstop's view of an RDS over IB connection's queue pair.
 * Ref: include/uapi/rdma/rdma_netlink.h (RDMA_NLDEV_CMD_*,
 * RDMA_NLDEV_ATTR_*), drivers/infiniband/core/nldev.c (fill_nldev_handle,
 * fill_port_info, fill_res_info, fill_res_qp_entry, fill_res_cm_id_entry,
 * fill_res_name_pid, res_get_common_dumpit); docs/kernel-behaviour.md K6.10.
 *
 * Layout (host order, as the kernel stores it): a 16-byte nlmsghdr whose
 * type is client << 10 | command, then attributes {u16 len, u16 type,
 * payload, zero pad to 4}. A 64-bit value is preceded, where needed, by a
 * PAD attribute (type 0) that aligns it (nla_put_u64_64bit). A resource
 * dump nests a table (RES_QP, RES_CM_ID) of entries (RES_QP_ENTRY,
 * RES_CM_ID_ENTRY), each itself a nest of attributes. Every byte is read
 * through the rd.h cursor; nothing is cast to a struct.
 */
#include <wire/wire.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "nlhdr.h"
#include "rd.h"
#include "wr.h"

#if defined(__has_include)
#if __has_include(<rdma/rdma_netlink.h>)
#include <rdma/rdma_netlink.h>
/* wire.h spells the numbers out; keep them honest where the header is. */
_Static_assert(WIRE_NL_CLIENT_NLDEV == RDMA_NL_NLDEV, "RDMA_NL_NLDEV");
_Static_assert((int)WIRE_NLDEV_CMD_PORT_GET == (int)RDMA_NLDEV_CMD_PORT_GET, "PORT_GET");
_Static_assert((int)WIRE_NLDEV_CMD_RES_GET == (int)RDMA_NLDEV_CMD_RES_GET, "RES_GET");
_Static_assert((int)WIRE_NLDEV_CMD_RES_QP_GET == (int)RDMA_NLDEV_CMD_RES_QP_GET, "RES_QP_GET");
_Static_assert((int)WIRE_NLDEV_CMD_RES_CM_ID_GET == (int)RDMA_NLDEV_CMD_RES_CM_ID_GET, "CM_ID_GET");
_Static_assert((int)WIRE_NLDEV_ATTR_PORT_STATE == (int)RDMA_NLDEV_ATTR_PORT_STATE, "PORT_STATE");
_Static_assert((int)WIRE_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR == (int)RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR, "SUMMARY_ENTRY_CURR");
_Static_assert((int)WIRE_NLDEV_ATTR_RES_KERN_NAME == (int)RDMA_NLDEV_ATTR_RES_KERN_NAME, "KERN_NAME");
_Static_assert((int)WIRE_NLDEV_ATTR_RES_DST_ADDR == (int)RDMA_NLDEV_ATTR_RES_DST_ADDR, "DST_ADDR");
_Static_assert((int)WIRE_NLDEV_ATTR_NDEV_NAME == (int)RDMA_NLDEV_ATTR_NDEV_NAME, "NDEV_NAME");
_Static_assert((int)WIRE_NLDEV_ATTR_RES_CM_IDN == (int)RDMA_NLDEV_ATTR_RES_CM_IDN, "CM_IDN");
#endif
#endif

#define NLDEV_HDRLEN WIRE_NLHDR_LEN
#define NLDEV_NLA_HDRLEN 4u         /* NLA_HDRLEN */
#define NLDEV_ALIGN(n) (((n) + 3u) & ~(size_t)3u)
#define NLDEV_TYPE_MASK 0x3fffu     /* NLA_F_NESTED and NLA_F_NET_BYTEORDER off */
#define NLDEV_CLIENT_SHIFT 10
#define NLDEV_OP_MASK 0x3ffu
#define NLMSG_NOOP_T 1
#define NLMSG_ERROR_T 2
#define NLMSG_DONE_T 3
#define NLMSG_MIN_T 0x10            /* NLMSG_MIN_TYPE: below are control messages */
#define NLM_F_REQUEST_F 0x1
#define NLM_F_DUMP_F 0x300          /* NLM_F_ROOT | NLM_F_MATCH */
#define AF_INET_V 2
#define AF_INET6_V 10

const struct wire_tok wire_nldev_qp_state_toks[] = {
	{ 0, "RESET" }, { 1, "INIT" }, { 2, "RTR" }, { 3, "RTS" },
	{ 4, "SQD" }, { 5, "SQE" }, { 6, "ERR" }, { 0, NULL },
};

const struct wire_tok wire_nldev_qp_type_toks[] = {
	{ 0, "SMI" }, { 1, "GSI" }, { 2, "RC" }, { 3, "UC" }, { 4, "UD" },
	{ 5, "RAW_IPV6" }, { 6, "RAW_ETHERTYPE" }, { 8, "RAW_PACKET" },
	{ 9, "XRC_INI" }, { 10, "XRC_TGT" }, { 0, NULL },
};

const struct wire_tok wire_nldev_port_state_toks[] = {
	{ 0, "NOP" }, { 1, "DOWN" }, { 2, "INIT" }, { 3, "ARMED" },
	{ 4, "ACTIVE" }, { 5, "ACTIVE_DEFER" }, { 0, NULL },
};

const struct wire_tok wire_nldev_cm_state_toks[] = {
	{ 0, "IDLE" }, { 1, "ADDR_QUERY" }, { 2, "ADDR_RESOLVED" },
	{ 3, "ROUTE_QUERY" }, { 4, "ROUTE_RESOLVED" }, { 5, "CONNECT" },
	{ 6, "DISCONNECT" }, { 7, "ADDR_BOUND" }, { 8, "LISTEN" },
	{ 9, "DEVICE_REMOVAL" }, { 10, "DESTROYING" }, { 0, NULL },
};

/* One attribute taken from |rd|: its type (flags off) and a cursor over its
 * payload; the padding after it is stepped over (the last attribute of a
 * nest may lack it). Return: 1, 0 at the end, WIRE_ERR_MALFORMED. */
static int attr_next(struct wire_rd *rd, uint16_t *type, struct wire_rd *pl)
{
	uint16_t len;
	size_t pad;

	if (!wire_rd_left(rd))
		return 0;
	if (wire_rd_left(rd) < NLDEV_NLA_HDRLEN)
		return WIRE_ERR_MALFORMED;
	len = wire_rd_he16(rd);
	*type = wire_rd_he16(rd) & NLDEV_TYPE_MASK;
	if (len < NLDEV_NLA_HDRLEN || len - NLDEV_NLA_HDRLEN > wire_rd_left(rd))
		return WIRE_ERR_MALFORMED;
	wire_rd_init(pl, wire_rd_take(rd, len - NLDEV_NLA_HDRLEN), len - NLDEV_NLA_HDRLEN);
	pad = NLDEV_ALIGN(len) - len;
	wire_rd_skip(rd, pad < wire_rd_left(rd) ? pad : wire_rd_left(rd));
	return 1;
}

/* Fixed-size integers: exactly their size, as nla_put_u8/u32/u64 write. */
static bool get_u8(struct wire_rd *pl, uint8_t *v)
{
	if (wire_rd_left(pl) != 1)
		return false;
	*v = wire_rd_u8(pl);
	return true;
}

static bool get_u32(struct wire_rd *pl, uint32_t *v)
{
	if (wire_rd_left(pl) != 4)
		return false;
	*v = wire_rd_he32(pl);
	return true;
}

static bool get_u64(struct wire_rd *pl, uint64_t *v)
{
	if (wire_rd_left(pl) != 8)
		return false;
	wire_rd_copy(pl, v, 8);
	return true;
}

/* A NUL-terminated string (nla_put_string) that fits |cap| - 1 chars. */
static bool get_str(struct wire_rd *pl, char *dst, size_t cap)
{
	size_t n = wire_rd_left(pl);
	const uint8_t *b;

	if (!n || n > cap)
		return false;
	b = wire_rd_take(pl, n);
	if (!b || b[n - 1] != '\0' || memchr(b, '\0', n) != b + n - 1)
		return false;
	memcpy(dst, b, n);
	return true;
}

/* A sockaddr as the cm ID keeps it (sa_family host order, then the
 * port and address in network order). Another family is kept as 0. */
static bool get_sockaddr(struct wire_rd *pl, uint16_t *fam, uint8_t addr[16],
			 uint16_t *port)
{
	uint16_t f;

	if (wire_rd_left(pl) < 2)
		return false;
	f = wire_rd_he16(pl);
	memset(addr, 0, 16);
	*fam = 0;
	*port = 0;
	if (f == AF_INET_V) {
		if (wire_rd_left(pl) < 6)
			return false;
		*port = wire_rd_be16(pl);
		addr[10] = addr[11] = 0xff;
		wire_rd_copy(pl, addr + 12, 4);
	} else if (f == AF_INET6_V) {
		if (wire_rd_left(pl) < 22)
			return false;
		*port = wire_rd_be16(pl);
		wire_rd_skip(pl, 4);          /* flowinfo */
		wire_rd_copy(pl, addr, 16);
	} else {
		return true;
	}
	*fam = f;
	return true;
}

static int summary_entry(struct wire_nldev *m, struct wire_rd *nest)
{
	struct wire_nldev_summary s = { .name = "" };
	struct wire_rd pl;
	uint16_t t;
	int r;

	while ((r = attr_next(nest, &t, &pl)) == 1) {
		if (t == WIRE_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME) {
			if (!get_str(&pl, s.name, sizeof(s.name)))
				return WIRE_ERR_MALFORMED;
		} else if (t == WIRE_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR) {
			if (!get_u64(&pl, &s.curr))
				return WIRE_ERR_MALFORMED;
		}
	}
	if (r < 0)
		return r;
	if (m->n_summary < WIRE_NLDEV_SUMMARY_MAX)
		m->summary[m->n_summary++] = s;
	else
		m->summary_over = true;
	return 0;
}

static int summary(struct wire_nldev *m, struct wire_rd *tab)
{
	struct wire_rd pl;
	uint16_t t;
	int r;

	while ((r = attr_next(tab, &t, &pl)) == 1) {
		if (t != WIRE_NLDEV_ATTR_RES_SUMMARY_ENTRY)
			continue;
		r = summary_entry(m, &pl);
		if (r < 0)
			return r;
	}
	return r;
}

/* One top-level attribute. Return: 0, WIRE_ERR_MALFORMED. */
static int top_attr(struct wire_nldev *m, uint16_t t, struct wire_rd *pl,
		    const uint8_t *buf)
{
	bool ok = true;

	switch (t) {
	case WIRE_NLDEV_ATTR_DEV_INDEX:
		ok = m->has_dev_index = get_u32(pl, &m->dev_index);
		break;
	case WIRE_NLDEV_ATTR_DEV_NAME:
		ok = get_str(pl, m->dev_name, sizeof(m->dev_name));
		break;
	case WIRE_NLDEV_ATTR_PORT_INDEX:
		ok = m->has_port = get_u32(pl, &m->port);
		break;
	case WIRE_NLDEV_ATTR_PORT_STATE:
		ok = m->has_port_state = get_u8(pl, &m->port_state);
		break;
	case WIRE_NLDEV_ATTR_PORT_PHYS_STATE:
		ok = m->has_phys_state = get_u8(pl, &m->phys_state);
		break;
	case WIRE_NLDEV_ATTR_NDEV_INDEX:
		ok = m->has_ndev_index = get_u32(pl, &m->ndev_index);
		break;
	case WIRE_NLDEV_ATTR_NDEV_NAME:
		ok = get_str(pl, m->ndev_name, sizeof(m->ndev_name));
		break;
	case WIRE_NLDEV_ATTR_RES_SUMMARY:
		return summary(m, pl) < 0 ? WIRE_ERR_MALFORMED : 0;
	case WIRE_NLDEV_ATTR_RES_QP:
	case WIRE_NLDEV_ATTR_RES_CM_ID: {
		/* walked now so a bad table fails here, read by wire_nldev_next() */
		struct wire_rd walk = *pl, e;
		uint16_t et;
		int r;

		m->table = t;
		m->table_off = (size_t)(pl->p - buf);
		m->table_len = wire_rd_left(pl);
		while ((r = attr_next(&walk, &et, &e)) == 1)
			;
		return r;
	}
	default:
		break;
	}
	return ok ? 0 : WIRE_ERR_MALFORMED;
}

ssize_t wire_nldev_decode(struct wire_nldev *m, const uint8_t *buf, size_t len)
{
	struct wire_rd rd, body, pl;
	size_t consumed;
	uint16_t t;
	int r;

	if (!m || (!buf && len))
		return WIRE_ERR_INVAL;
	memset(m, 0, sizeof(*m));
	if (len < NLDEV_HDRLEN)
		return WIRE_ERR_TRUNC;
	wire_rd_init(&rd, buf, len);
	wire_nlhdr_read(&rd, &m->nl_len, &m->nl_type, &m->nl_flags, &m->nl_seq, &m->nl_pid);
	if (m->nl_len < NLDEV_HDRLEN)
		return WIRE_ERR_MALFORMED;
	if (m->nl_len > len)
		return WIRE_ERR_TRUNC;
	consumed = NLDEV_ALIGN((size_t)m->nl_len);
	if (consumed > len)
		consumed = len;
	wire_rd_init(&body, wire_rd_take(&rd, m->nl_len - NLDEV_HDRLEN),
		     m->nl_len - NLDEV_HDRLEN);
	if (m->nl_type < NLMSG_MIN_T) {
		m->is_done = m->nl_type == NLMSG_DONE_T;
		m->is_error = m->nl_type == NLMSG_ERROR_T;
		if (m->is_error) {
			/* struct nlmsgerr: int error, then the request's header */
			if (wire_rd_left(&body) < 4)
				return WIRE_ERR_MALFORMED;
			m->error = (int32_t)wire_rd_he32(&body);
		}
		return (ssize_t)consumed;
	}
	m->client = (uint16_t)(m->nl_type >> NLDEV_CLIENT_SHIFT);
	m->op = (uint16_t)(m->nl_type & NLDEV_OP_MASK);
	if (m->client != WIRE_NL_CLIENT_NLDEV)
		return WIRE_ERR_UNSUPP;
	while ((r = attr_next(&body, &t, &pl)) == 1) {
		if (top_attr(m, t, &pl, buf) < 0)
			return WIRE_ERR_MALFORMED;
	}
	return r < 0 ? r : (ssize_t)consumed;
}

/* One attribute of a table entry. Return: true when it is well formed. */
static bool entry_attr(struct wire_nldev_entry *e, uint16_t t, struct wire_rd *pl)
{
	switch (t) {
	case WIRE_NLDEV_ATTR_PORT_INDEX:
		return (e->has_port = get_u32(pl, &e->port));
	case WIRE_NLDEV_ATTR_RES_LQPN:
		return (e->has_lqpn = get_u32(pl, &e->lqpn));
	case WIRE_NLDEV_ATTR_RES_RQPN:
		return (e->has_rqpn = get_u32(pl, &e->rqpn));
	case WIRE_NLDEV_ATTR_RES_TYPE:
		return (e->has_type = get_u8(pl, &e->qp_type));
	case WIRE_NLDEV_ATTR_RES_STATE:
		return (e->has_state = get_u8(pl, &e->state));
	case WIRE_NLDEV_ATTR_RES_PID:
		return (e->has_pid = get_u32(pl, &e->pid));
	case WIRE_NLDEV_ATTR_RES_PS:
		return (e->has_ps = get_u32(pl, &e->ps));
	case WIRE_NLDEV_ATTR_RES_CM_IDN:
		return (e->has_id = get_u32(pl, &e->id));
	case WIRE_NLDEV_ATTR_RES_KERN_NAME:
		return get_str(pl, e->kern_name, sizeof(e->kern_name));
	case WIRE_NLDEV_ATTR_RES_SRC_ADDR:
		return get_sockaddr(pl, &e->src_family, e->src_addr, &e->src_port);
	case WIRE_NLDEV_ATTR_RES_DST_ADDR:
		return get_sockaddr(pl, &e->dst_family, e->dst_addr, &e->dst_port);
	default:
		return true;
	}
}

int wire_nldev_next(const struct wire_nldev *m, const uint8_t *buf, size_t *pos,
		    struct wire_nldev_entry *e)
{
	struct wire_rd tab, nest, pl;
	uint16_t t;
	int r;

	if (!m || !pos || !e || (!buf && m->table_len) || *pos > m->table_len)
		return WIRE_ERR_INVAL;
	wire_rd_init(&tab, buf ? buf + m->table_off : NULL, m->table_len);
	wire_rd_skip(&tab, *pos);
	for (;;) {
		r = attr_next(&tab, &t, &nest);
		if (r <= 0) {
			*pos = m->table_len;
			return r;
		}
		*pos = m->table_len - wire_rd_left(&tab);
		if (t == WIRE_NLDEV_ATTR_RES_QP_ENTRY || t == WIRE_NLDEV_ATTR_RES_CM_ID_ENTRY)
			break;
	}
	memset(e, 0, sizeof(*e));
	e->type = t;
	while ((r = attr_next(&nest, &t, &pl)) == 1)
		if (!entry_attr(e, t, &pl))
			return WIRE_ERR_MALFORMED;
	return r < 0 ? r : 1;
}

ssize_t wire_nldev_request(uint8_t *buf, size_t cap, unsigned cmd, uint32_t seq,
			   uint32_t dev_index)
{
	struct wire_wr wr;
	size_t len = NLDEV_HDRLEN + (dev_index != UINT32_MAX ? 8 : 0);

	if (cmd > NLDEV_OP_MASK || (!buf && cap))
		return WIRE_ERR_INVAL;
	wire_wr_init(&wr, buf, cap);
	wire_wr_he32(&wr, (uint32_t)len);
	wire_wr_he16(&wr, (uint16_t)(WIRE_NL_CLIENT_NLDEV << NLDEV_CLIENT_SHIFT | cmd));
	wire_wr_he16(&wr, NLM_F_REQUEST_F | NLM_F_DUMP_F);
	wire_wr_he32(&wr, seq);
	wire_wr_he32(&wr, 0);
	if (dev_index != UINT32_MAX) {
		wire_wr_he16(&wr, 8);
		wire_wr_he16(&wr, WIRE_NLDEV_ATTR_DEV_INDEX);
		wire_wr_he32(&wr, dev_index);
	}
	return wire_wr_ok(&wr) ? (ssize_t)wr.done : WIRE_ERR_NOSPACE;
}
