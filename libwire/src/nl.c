// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * nl.c - RDMA netlink local-service (RDMA_NL_LS) messages, as merged.
 * Ref: include/uapi/rdma/rdma_netlink.h (RDMA_NL_LS_*, LS_NLA_TYPE_*,
 * struct rdma_ls_resolve_header), include/uapi/rdma/ib_user_sa.h
 * (struct ib_path_rec_data), drivers/infiniband/core/sa_query.c
 * (ib_nl_set_path_rec_attrs, ib_nl_policy), drivers/infiniband/core/addr.c
 * (ib_nl_ip_send_msg, ib_nl_addr_policy), drivers/infiniband/core/netlink.c
 * (rdma_nl_rcv_skb). docs/protocol/netlink.md has the full layout.
 *
 * Sizes are validated by libnl-3's nla_parse() against a policy that mirrors
 * the kernel's. libnl wants an aligned, writable struct nlattr array, and its
 * nla_type() leaves RDMA_NLA_F_MANDATORY in place (so a mandatory attribute
 * would look like an unknown type 0x2000 + n and escape validation), hence
 * the attribute area is first walked with the rd.h cursor and copied into a
 * stack scratch buffer with that bit cleared; libnl only ever sees the copy.
 */
/* libnl's <netlink/netlink.h> wants glibc extensions (struct ucred); this
 * must come before the first system header, which wire.h pulls in. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <wire/wire.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <linux/netlink.h>

#include <netlink/attr.h>

#include "nlhdr.h"
#include "rd.h"
#include "wr.h"

#if defined(__has_include)
#if __has_include(<rdma/rdma_netlink.h>) && __has_include(<rdma/ib_user_sa.h>)
#include <rdma/ib_user_sa.h>
#include <rdma/rdma_netlink.h>
/* The public constants are spelled out in wire.h; keep them honest. */
_Static_assert(WIRE_NL_CLIENT_LS == RDMA_NL_LS, "RDMA_NL_LS");
_Static_assert(WIRE_NL_LS_F_ERR == RDMA_NL_LS_F_ERR, "RDMA_NL_LS_F_ERR");
_Static_assert(WIRE_NL_ATTR_MANDATORY == RDMA_NLA_F_MANDATORY, "RDMA_NLA_F_MANDATORY");
_Static_assert(WIRE_NL_DEVICE_NAME_MAX == LS_DEVICE_NAME_MAX, "LS_DEVICE_NAME_MAX");
_Static_assert((int)WIRE_NL_LS_ATTR_MAX == (int)LS_NLA_TYPE_MAX, "LS_NLA_TYPE_MAX");
_Static_assert((int)WIRE_NL_LS_IPV6 == (int)LS_NLA_TYPE_IPV6, "LS_NLA_TYPE_IPV6");
_Static_assert((int)WIRE_NL_LS_OP_IP_RESOLVE == (int)RDMA_NL_LS_OP_IP_RESOLVE, "IP_RESOLVE");
_Static_assert(sizeof(struct rdma_ls_resolve_header) == 66, "resolve header");
_Static_assert(sizeof(struct rdma_ls_ip_resolve_header) == 4, "ip resolve header");
_Static_assert(sizeof(struct ib_path_rec_data) == 72, "ib_path_rec_data");
#endif
#endif

/*
 * nlmsghdr, host order (the kernel fills it with cpu-order stores):
 *
 *  0        4      6       8        12       16
 *  +--------+------+-------+--------+--------+
 *  |  len   | type | flags |  seq   |  pid   |
 *  +--------+------+-------+--------+--------+
 *  type = client << 10 | op   (RDMA_NL_GET_TYPE)
 */
#define LS_NLMSG_HDRLEN 16u        /* NLMSG_HDRLEN, unsigned */
#define NL_CLIENT_SHIFT 10
#define NL_CLIENT_MASK 0x3fu       /* six bits above the op */
#define NL_OP_MASK 0x3ffu

/*
 * RESOLVE request family header (struct rdma_ls_resolve_header), reserved
 * with NLMSG_ALIGN so the attributes start on a 4-byte boundary:
 *
 *  0                          64   65   66    68
 *  +--------------------------+----+----+-----+
 *  | device_name[64] (NUL pad) |port|use | pad |
 *  +--------------------------+----+----+-----+
 *
 * IP_RESOLVE request family header (struct rdma_ls_ip_resolve_header):
 *
 *  0          4
 *  +----------+
 *  | ifindex  |   u32, host order
 *  +----------+
 */
#define LS_RESOLVE_HDR_LEN 66
#define LS_RESOLVE_HDR_SPACE NLMSG_ALIGN(LS_RESOLVE_HDR_LEN)
#define LS_IP_RESOLVE_HDR_LEN 4

/*
 * Attribute (struct nlattr), host order, padded to NLA_ALIGN (4):
 *
 *  0       2       4             nla_len   NLA_ALIGN(nla_len)
 *  +-------+-------+----------------+---------+
 *  |  len  | type  |    payload     |  zero   |
 *  +-------+-------+----------------+---------+
 *  type bit 13 = RDMA_NLA_F_MANDATORY; bits 14/15 are NLA_F_NESTED and
 *  NLA_F_NET_BYTEORDER, which nla_type() masks (libnl and kernel alike).
 */
#define LS_NLA_HDRLEN 4u           /* NLA_HDRLEN, unsigned */
#define LS_PATH_REC_LEN 72         /* sizeof(struct ib_path_rec_data) */
#define LS_GID_LEN 16              /* sizeof(struct rdma_nla_ls_gid) */

/* Room for the largest attribute area a WIRE_NL_MSG_MAX message can hold. */
#define LS_AREA_MAX (WIRE_NL_MSG_MAX - LS_NLMSG_HDRLEN)

/*
 * The exact payload size of every type: the uapi size table in
 * rdma_netlink.h. The encoder writes these; the decoder notes any other.
 */
static const uint16_t ls_size[WIRE_NL_LS_ATTR_MAX] = {
	[WIRE_NL_LS_PATH_RECORD] = LS_PATH_REC_LEN,
	[WIRE_NL_LS_TIMEOUT] = 4,
	[WIRE_NL_LS_SERVICE_ID] = 8,
	[WIRE_NL_LS_DGID] = LS_GID_LEN,
	[WIRE_NL_LS_SGID] = LS_GID_LEN,
	[WIRE_NL_LS_TCLASS] = 1,
	[WIRE_NL_LS_PKEY] = 2,
	[WIRE_NL_LS_QOS_CLASS] = 2,
	[WIRE_NL_LS_IPV4] = 4,
	[WIRE_NL_LS_IPV6] = 16,
};

/*
 * Where each attribute after PATH_RECORD keeps its one value: ls_size[]
 * bytes, in host order as the kernel writes them.
 */
static const size_t ls_member[WIRE_NL_LS_ATTR_MAX] = {
	[WIRE_NL_LS_TIMEOUT] = offsetof(struct wire_nl_ls, timeout),
	[WIRE_NL_LS_SERVICE_ID] = offsetof(struct wire_nl_ls, service_id),
	[WIRE_NL_LS_DGID] = offsetof(struct wire_nl_ls, dgid),
	[WIRE_NL_LS_SGID] = offsetof(struct wire_nl_ls, sgid),
	[WIRE_NL_LS_TCLASS] = offsetof(struct wire_nl_ls, tclass),
	[WIRE_NL_LS_PKEY] = offsetof(struct wire_nl_ls, pkey),
	[WIRE_NL_LS_QOS_CLASS] = offsetof(struct wire_nl_ls, qos_class),
	[WIRE_NL_LS_IPV4] = offsetof(struct wire_nl_ls, ipv4),
	[WIRE_NL_LS_IPV6] = offsetof(struct wire_nl_ls, ipv6),
};

/*
 * ib_nl_policy with DGID tightened as ib_nl_addr_policy does (exactly 16),
 * plus IPV4/IPV6, which no kernel policy lists because only the kernel sends
 * them. Integer types keep the kernel's minimum-length semantics (libnl's
 * nla_attr_minlen); binary ones are exact, because a short GID or path
 * record cannot be stored and the kernel copies the full size out of it
 * anyway (ib_nl_process_good_resolve_rsp, ib_nl_process_ip_rsep).
 */
static const struct nla_policy ls_policy[WIRE_NL_LS_ATTR_MAX] = {
	[WIRE_NL_LS_PATH_RECORD] = { .type = NLA_UNSPEC,
		.minlen = LS_PATH_REC_LEN, .maxlen = LS_PATH_REC_LEN },
	[WIRE_NL_LS_TIMEOUT] = { .type = NLA_U32 },
	[WIRE_NL_LS_SERVICE_ID] = { .type = NLA_U64 },
	[WIRE_NL_LS_DGID] = { .type = NLA_UNSPEC,
		.minlen = LS_GID_LEN, .maxlen = LS_GID_LEN },
	[WIRE_NL_LS_SGID] = { .type = NLA_UNSPEC,
		.minlen = LS_GID_LEN, .maxlen = LS_GID_LEN },
	[WIRE_NL_LS_TCLASS] = { .type = NLA_U8 },
	[WIRE_NL_LS_PKEY] = { .type = NLA_U16 },
	[WIRE_NL_LS_QOS_CLASS] = { .type = NLA_U16 },
	[WIRE_NL_LS_IPV4] = { .type = NLA_UNSPEC, .minlen = 4, .maxlen = 4 },
	[WIRE_NL_LS_IPV6] = { .type = NLA_UNSPEC, .minlen = 16, .maxlen = 16 },
};

const struct wire_tok wire_nl_attr_toks[] = {
	{ WIRE_NL_LS_UNSPEC, "UNSPEC" },
	{ WIRE_NL_LS_PATH_RECORD, "PATH_RECORD" },
	{ WIRE_NL_LS_TIMEOUT, "TIMEOUT" },
	{ WIRE_NL_LS_SERVICE_ID, "SERVICE_ID" },
	{ WIRE_NL_LS_DGID, "DGID" },
	{ WIRE_NL_LS_SGID, "SGID" },
	{ WIRE_NL_LS_TCLASS, "TCLASS" },
	{ WIRE_NL_LS_PKEY, "PKEY" },
	{ WIRE_NL_LS_QOS_CLASS, "QOS_CLASS" },
	{ WIRE_NL_LS_IPV4, "IPV4" },
	{ WIRE_NL_LS_IPV6, "IPV6" },
	{ 0, NULL },
};

const struct wire_tok wire_nl_op_toks[] = {
	{ WIRE_NL_LS_OP_RESOLVE, "RESOLVE" },
	{ WIRE_NL_LS_OP_SET_TIMEOUT, "SET_TIMEOUT" },
	{ WIRE_NL_LS_OP_IP_RESOLVE, "IP_RESOLVE" },
	{ 0, NULL },
};

const char *wire_nl_attr_name(unsigned type)
{
	/* Accept a raw nla_type as seen on the wire (RDMA_NLA_TYPE_MASK). */
	type &= ~(unsigned)(NLA_F_NESTED | NLA_F_NET_BYTEORDER |
			    WIRE_NL_ATTR_MANDATORY);
	return wire_tok_name(wire_nl_attr_toks, type);
}

const char *wire_nl_op_name(unsigned op)
{
	return wire_tok_name(wire_nl_op_toks, op);
}

/*
 * The attribute area as libnl sees it. uint32_t gives the 4-byte alignment
 * struct nlattr and nla_get_u32() need; mand[] remembers, per 4-byte slot,
 * which attributes carried RDMA_NLA_F_MANDATORY before it was cleared.
 */
struct ls_scratch {
	uint32_t area[LS_AREA_MAX / 4 + 1];
	uint8_t mand[(LS_AREA_MAX / 4 + 8) / 8];
};

static bool ls_mand_get(const struct ls_scratch *s, size_t off)
{
	size_t slot = off / 4;

	return s->mand[slot / 8] >> (slot % 8) & 1;
}

static void ls_mand_set(struct ls_scratch *s, size_t off)
{
	size_t slot = off / 4;

	s->mand[slot / 8] |= (uint8_t)(1u << (slot % 8));
}

/*
 * Copy the attributes left in |rd| into |s|. Every attribute must
 * have a header-sized nla_len and fit in the area: nla_ok() in libnl and the
 * kernel would silently stop at such an attribute and ignore the rest, which
 * would hide bytes from the decoded struct. Only the final attribute may
 * lose its alignment padding to nlmsg_len, which nla_ok() also accepts.
 */
static int ls_copy_attrs(struct wire_nl_ls *m, struct ls_scratch *s,
			 struct wire_rd *rd)
{
	uint8_t *dst = (uint8_t *)s->area;
	size_t off = 0;

	memset(s->mand, 0, sizeof(s->mand));
	while (wire_rd_left(rd) > 0) {
		uint16_t nla_len, nla_type;
		size_t pad;

		if (wire_rd_left(rd) < LS_NLA_HDRLEN) {
			wire_rules_add(&m->rules, WIRE_RULE_NL_LEN);
			return WIRE_ERR_MALFORMED;
		}
		nla_len = wire_rd_he16(rd);
		nla_type = wire_rd_he16(rd);
		if (nla_len < LS_NLA_HDRLEN) {
			wire_rules_add(&m->rules, WIRE_RULE_NL_ATTR_POLICY);
			return WIRE_ERR_MALFORMED;
		}
		if (nla_len - LS_NLA_HDRLEN > wire_rd_left(rd)) {
			wire_rules_add(&m->rules, WIRE_RULE_NL_LEN);
			return WIRE_ERR_MALFORMED;
		}
		if (nla_type & WIRE_NL_ATTR_MANDATORY)
			ls_mand_set(s, off);
		nla_type &= (uint16_t)~WIRE_NL_ATTR_MANDATORY;
		memcpy(dst + off, &nla_len, 2);
		memcpy(dst + off + 2, &nla_type, 2);
		wire_rd_copy(rd, dst + off + LS_NLA_HDRLEN, nla_len - LS_NLA_HDRLEN);
		pad = NLA_ALIGN(nla_len) - nla_len;
		if (pad > wire_rd_left(rd))
			pad = wire_rd_left(rd);
		wire_rd_skip(rd, pad);
		off += NLA_ALIGN(nla_len);
	}
	/* off never passes the area size + 3; area[] has a spare word. */
	return wire_rd_ok(rd) ? 0 : WIRE_ERR_MALFORMED;
}

static void ls_get_path(struct wire_nl_path *p, const struct nlattr *nla)
{
	const uint8_t *d = nla_data(nla);

	memcpy(&p->flags, d, 4);
	memcpy(&p->reserved, d + 4, 4);
	memcpy(p->rec, d + 8, sizeof(p->rec));
}

/*
 * Walk the validated copy: bookkeeping per attribute (unknown, mandatory,
 * duplicate, path records, lengths the kernel only warns about) in arrival
 * order, then single-valued attributes from libnl's tb[], where the last
 * duplicate wins exactly as the kernel's nla_parse leaves it.
 */
static void ls_read_attrs(struct wire_nl_ls *m, struct ls_scratch *s,
			  int alen, struct nlattr **tb)
{
	struct nlattr *head = (struct nlattr *)s->area;
	struct nlattr *nla;
	bool too_many = false;
	int rem;

	nla_for_each_attr(nla, head, alen, rem) {
		size_t off = (size_t)((uint8_t *)nla - (uint8_t *)s->area);
		bool mand = ls_mand_get(s, off);
		int t = nla_type(nla);

		if (t <= WIRE_NL_LS_UNSPEC || t >= WIRE_NL_LS_ATTR_MAX) {
			/* nla_parse skips these; so does the kernel. */
			wire_rules_add(&m->rules, WIRE_RULE_NL_ATTR_UNKNOWN);
			if (mand)
				wire_rules_add(&m->rules, WIRE_RULE_NL_ATTR_MANDATORY);
			continue;
		}
		if (t != WIRE_NL_LS_PATH_RECORD && m->present[t])
			wire_rules_add(&m->rules, WIRE_RULE_NL_ATTR_DUPLICATE);
		m->present[t] = true;
		m->mandatory[t] = m->mandatory[t] || mand;
		/*
		 * libnl enforced the minimum; a longer integer is what the
		 * kernel's liberal parse warns about ("invalid length") and
		 * then reads the leading bytes of. Report it, keep going.
		 */
		if (nla_len(nla) != ls_size[t])
			wire_rules_add(&m->rules, WIRE_RULE_NL_ATTR_POLICY);
		if (t == WIRE_NL_LS_PATH_RECORD) {
			if (m->npaths < WIRE_NL_MAX_PATHS)
				ls_get_path(&m->paths[m->npaths++], nla);
			else
				too_many = true;
		}
	}
	if (too_many)
		wire_rules_add(&m->rules, WIRE_RULE_NL_PATH_COUNT);

	/* libnl enforced at least ls_size[] bytes, so this takes them all. */
	for (unsigned a = WIRE_NL_LS_PATH_RECORD + 1; a < WIRE_NL_LS_ATTR_MAX; a++)
		if (tb[a])
			nla_memcpy((uint8_t *)m + ls_member[a], tb[a], ls_size[a]);
}

/*
 * What the receiving side of each operation cannot do without
 * (ib_nl_process_good_resolve_rsp, ib_nl_handle_set_timeout,
 * ib_nl_process_ip_rsep; ibacm for the IP_RESOLVE request). Error
 * responses carry nothing by design.
 */
static void ls_check_missing(struct wire_nl_ls *m)
{
	bool missing = false;

	if (!m->is_request && m->is_err)
		return;
	switch (m->op) {
	case WIRE_NL_LS_OP_RESOLVE:
		missing = !m->is_request && !m->present[WIRE_NL_LS_PATH_RECORD];
		break;
	case WIRE_NL_LS_OP_SET_TIMEOUT:
		missing = !m->present[WIRE_NL_LS_TIMEOUT];
		break;
	case WIRE_NL_LS_OP_IP_RESOLVE:
		if (m->is_request)
			missing = !m->present[WIRE_NL_LS_IPV4] &&
				  !m->present[WIRE_NL_LS_IPV6];
		else
			missing = !m->present[WIRE_NL_LS_DGID];
		break;
	}
	if (missing)
		wire_rules_add(&m->rules, WIRE_RULE_NL_MISSING);
}

/*
 * Truncated vs malformed: netlink hands datagrams over whole (a reader that
 * saw MSG_TRUNC, or a capture with caplen < len, knows it cut the datagram
 * and must say so itself). So only a buffer that cannot hold even the
 * 16-byte nlmsghdr is WIRE_ERR_TRUNC. Once the header is readable, |len| is
 * taken as the complete datagram, and any disagreement with nlmsg_len, the
 * family header or an attribute length is WIRE_ERR_MALFORMED - the same
 * message the kernel's rdma_nl_rcv_skb() drops, not one it waits for.
 */
ssize_t wire_nl_decode(struct wire_nl_ls *m, const uint8_t *buf, size_t len)
{
	struct nlattr *tb[WIRE_NL_LS_ATTR_MAX];
	struct ls_scratch s;
	struct wire_rd rd, body;
	size_t consumed, alen;
	int err;

	if (!m || (!buf && len))
		return WIRE_ERR_INVAL;
	memset(m, 0, sizeof(*m));
	if (len < LS_NLMSG_HDRLEN)
		return WIRE_ERR_TRUNC;

	wire_rd_init(&rd, buf, len);
	wire_nlhdr_read(&rd, &m->nl_len, &m->nl_type, &m->nl_flags, &m->nl_seq, &m->nl_pid);
	m->client = (uint16_t)(m->nl_type >> NL_CLIENT_SHIFT & NL_CLIENT_MASK);
	m->op = (uint16_t)(m->nl_type & NL_OP_MASK);
	m->is_request = m->nl_flags & NLM_F_REQUEST;
	m->is_err = m->nl_flags & WIRE_NL_LS_F_ERR;

	if (m->nl_len < LS_NLMSG_HDRLEN || m->nl_len > len) {
		wire_rules_add(&m->rules, WIRE_RULE_NL_LEN);
		return WIRE_ERR_MALFORMED;
	}
	/* Bounded before anything is sized from it. */
	if (m->nl_len > WIRE_NL_MSG_MAX)
		return WIRE_ERR_UNSUPP;
	if (m->client != WIRE_NL_CLIENT_LS) {
		wire_rules_add(&m->rules, WIRE_RULE_NL_CLIENT);
		return WIRE_ERR_UNSUPP;
	}
	/* As rdma_nl_rcv_skb steps: aligned, but never past the datagram. */
	consumed = NLMSG_ALIGN((size_t)m->nl_len);
	if (consumed > len)
		consumed = len;

	if (!wire_nl_op_name(m->op)) {
		/* Whether a family header follows is unknowable: stop here. */
		wire_rules_add(&m->rules, WIRE_RULE_NL_OP);
		return (ssize_t)consumed;
	}

	body = wire_rd_sub(&rd, m->nl_len - LS_NLMSG_HDRLEN);
	if (m->is_request && m->op == WIRE_NL_LS_OP_RESOLVE) {
		if (wire_rd_left(&body) < LS_RESOLVE_HDR_SPACE) {
			wire_rules_add(&m->rules, WIRE_RULE_NL_LEN);
			return WIRE_ERR_MALFORMED;
		}
		m->has_resolve_hdr = true;
		wire_rd_copy(&body, m->device_name, WIRE_NL_DEVICE_NAME_MAX);
		m->device_name[WIRE_NL_DEVICE_NAME_MAX] = '\0';
		m->port_num = wire_rd_u8(&body);
		m->path_use = wire_rd_u8(&body);
		wire_rd_copy(&body, m->resolve_pad, sizeof(m->resolve_pad));
	} else if (m->is_request && m->op == WIRE_NL_LS_OP_IP_RESOLVE) {
		if (wire_rd_left(&body) < LS_IP_RESOLVE_HDR_LEN) {
			wire_rules_add(&m->rules, WIRE_RULE_NL_LEN);
			return WIRE_ERR_MALFORMED;
		}
		m->has_ip_resolve_hdr = true;
		m->ifindex = wire_rd_he32(&body);
	}

	alen = wire_rd_left(&body);
	err = ls_copy_attrs(m, &s, &body);
	if (err)
		return err;

	memset(tb, 0, sizeof(tb));
	if (nla_parse(tb, WIRE_NL_LS_ATTR_MAX - 1, (struct nlattr *)s.area,
		      (int)alen, ls_policy) < 0) {
		wire_rules_add(&m->rules, WIRE_RULE_NL_ATTR_POLICY);
		return WIRE_ERR_MALFORMED;
	}
	ls_read_attrs(m, &s, (int)alen, tb);
	ls_check_missing(m);
	return (ssize_t)consumed;
}

/* One attribute as nla_put() lays it out: header, payload, zero padding. */
static void ls_put(struct wire_wr *wr, const struct wire_nl_ls *m,
		   unsigned type, const void *data)
{
	uint16_t size = ls_size[type];
	uint16_t t = (uint16_t)type;

	if (m->mandatory[type])
		t |= WIRE_NL_ATTR_MANDATORY;
	wire_wr_he16(wr, (uint16_t)(LS_NLA_HDRLEN + size));
	wire_wr_he16(wr, t);
	wire_wr_bytes(wr, data, size);
	wire_wr_zero(wr, NLA_ALIGN(size) - size);
}

static size_t ls_attr_space(unsigned type)
{
	return NLA_ALIGN(LS_NLA_HDRLEN + ls_size[type]);
}

ssize_t wire_nl_encode(const struct wire_nl_ls *m, uint8_t *buf, size_t cap)
{
	uint8_t path[LS_PATH_REC_LEN];
	struct wire_wr wr;
	size_t total = LS_NLMSG_HDRLEN;
	unsigned t, i;

	if (!m || m->npaths > WIRE_NL_MAX_PATHS || m->client > NL_CLIENT_MASK ||
	    m->op > NL_OP_MASK || (m->has_resolve_hdr && m->has_ip_resolve_hdr))
		return WIRE_ERR_INVAL;

	if (m->has_resolve_hdr)
		total += LS_RESOLVE_HDR_SPACE;
	if (m->has_ip_resolve_hdr)
		total += LS_IP_RESOLVE_HDR_LEN;
	if (m->present[WIRE_NL_LS_PATH_RECORD])
		total += m->npaths * ls_attr_space(WIRE_NL_LS_PATH_RECORD);
	for (t = WIRE_NL_LS_PATH_RECORD + 1; t < WIRE_NL_LS_ATTR_MAX; t++)
		if (m->present[t])
			total += ls_attr_space(t);

	wire_wr_init(&wr, buf, cap);
	/* nlmsg_put() + nlmsg_end(): the length covers the last padding. */
	wire_wr_he32(&wr, (uint32_t)total);
	wire_wr_he16(&wr, (uint16_t)(m->client << NL_CLIENT_SHIFT | m->op));
	wire_wr_he16(&wr, (uint16_t)(m->nl_flags |
				     (m->is_request ? NLM_F_REQUEST : 0) |
				     (m->is_err ? WIRE_NL_LS_F_ERR : 0)));
	wire_wr_he32(&wr, m->nl_seq);
	wire_wr_he32(&wr, m->nl_pid);

	if (m->has_resolve_hdr) {
		/* All 64 bytes as given, so a decoded name pads back as it came. */
		wire_wr_bytes(&wr, m->device_name, WIRE_NL_DEVICE_NAME_MAX);
		wire_wr_u8(&wr, m->port_num);
		wire_wr_u8(&wr, m->path_use);
		wire_wr_bytes(&wr, m->resolve_pad, sizeof(m->resolve_pad));
	}
	if (m->has_ip_resolve_hdr)
		wire_wr_he32(&wr, m->ifindex);

	/* Enum order, which is also the order sa_query.c emits. */
	if (m->present[WIRE_NL_LS_PATH_RECORD]) {
		for (i = 0; i < m->npaths; i++) {
			memcpy(path, &m->paths[i].flags, 4);
			memcpy(path + 4, &m->paths[i].reserved, 4);
			memcpy(path + 8, m->paths[i].rec, sizeof(m->paths[i].rec));
			ls_put(&wr, m, WIRE_NL_LS_PATH_RECORD, path);
		}
	}
	for (t = WIRE_NL_LS_PATH_RECORD + 1; t < WIRE_NL_LS_ATTR_MAX; t++)
		if (m->present[t])
			ls_put(&wr, m, t, (const uint8_t *)m + ls_member[t]);

	if (!wire_wr_ok(&wr))
		return WIRE_ERR_NOSPACE;
	return (ssize_t)wr.done;
}
