// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ibpd.c - RDS/IB connection private data and protocol-version choice.
 * Ref: net/rds/ib.h struct rds_ib_connect_private, rds6_ib_connect_private,
 * rds_ib_conn_priv_cmn; net/rds/ib_cm.c rds_ib_protocol_compatible(),
 * rds_ib_cm_connect_complete(), rds_ib_cm_initiate_connect().
 */
#include <wire/wire.h>

#include <string.h>

#include "fld.h"

_Static_assert(1 + 1 + 2 + 1 + 1 + 2 + 8 + 4 + 4 == WIRE_IBPD_CMN_LEN,
	       "common part: 20 bytes of fields + 4 bytes of tail padding (u64 alignment)");
_Static_assert(4 + 4 + WIRE_IBPD_CMN_LEN == WIRE_IBPD_V4_LEN,
	       "struct rds_ib_connect_private is 32 bytes");
_Static_assert(16 + 16 + WIRE_IBPD_CMN_LEN == WIRE_IBPD_V6_LEN,
	       "struct rds6_ib_connect_private is 56 bytes");

/* Which listener took the request fixes the layout; nothing in the bytes does. */
static size_t ibpd_size(int family)
{
	switch (family) {
	case 4:
		return WIRE_IBPD_V4_LEN;
	case 6:
		return WIRE_IBPD_V6_LEN;
	default:
		return 0;
	}
}

static size_t ibpd_addr_len(int family)
{
	return family == 4 ? 4 : 16;
}

/*
 * The passive side's answer for private data of full length. Major 0 is
 * taken as "a peer from before version negotiation" (the kernel cannot tell
 * 2.0 from 3.0 and picks 4.0). For major 4 the answer is 4.<n> with n the
 * highest minor both sides support, found by shifting the common mask down.
 * Only 3.1 is accepted outside major 4; 3.0 support is gone.
 */
static uint16_t ibpd_passive_choice(uint8_t major, uint8_t minor, uint16_t mask)
{
	uint16_t common = mask & WIRE_IB_SUPPORTED_MINORS;
	uint16_t v;

	if (major == 0)
		return WIRE_IBVER_4_0;
	if (major == 4 && common) {
		v = WIRE_IBVER_4_0;
		while ((common >>= 1) != 0)
			v++;
		return v;
	}
	if (major == 3 && minor == 1)
		return WIRE_IBVER_3_1;
	return 0;
}

/*
 * IPv4, 32 bytes (struct rds_ib_connect_private):
 *
 *  0       4       8  9  10    12 13 14    16              24      28      32
 *  +-------+-------+--+--+-----+--+--+-----+---------------+-------+-------+
 *  | saddr | daddr |mj|mn|mask |to|r1| r2  |    ack_seq    |credit |  pad  |
 *  +-------+-------+--+--+-----+--+--+-----+---------------+-------+-------+
 *
 * IPv6, 56 bytes (struct rds6_ib_connect_private): the same common part
 * (major ... pad, 24 bytes) at offset 32, after 16-byte saddr and daddr.
 *
 * mask, ack_seq and credit are big-endian; the 4 pad bytes are the C
 * struct's tail padding (the u64 makes the common part 8-aligned), zeroed
 * by the kernel's memset and kept here so a re-encode is exact.
 */
#define F(member, kind) WIRE_FLD_OF(0, struct wire_ibpd, member, WIRE_FLD_##kind, false)

static const struct wire_fld ibpd_flds[] = {
	F(saddr, PREFIX),
	F(daddr, PREFIX),
	F(major, BE),
	F(minor, BE),
	F(minor_mask, BE),
	F(tos, BE),
	F(reserved1, BE),
	F(reserved2, BE),
	F(ack_seq, BE),
	F(credit, BE),
	F(pad, BYTES),
};

#undef F

ssize_t wire_ibpd_decode(struct wire_ibpd *pd, int family, const uint8_t *buf,
			 size_t len)
{
	size_t need = ibpd_size(family);
	struct wire_rd rd;

	if (!pd || (!buf && len))
		return WIRE_ERR_INVAL;
	memset(pd, 0, sizeof(*pd));
	if (!need)
		return WIRE_ERR_INVAL;
	pd->family = family;
	if (len < need) {
		/*
		 * Not decodable, but the kernel still decides something:
		 * nothing at all is rejected, a short blob is taken as 4.0.
		 * Say which, so a caller need not repeat the comparison.
		 */
		wire_rules_add(&pd->rules, len ? WIRE_RULE_IBPD_SHORT :
						 WIRE_RULE_IBPD_VERSION);
		return WIRE_ERR_TRUNC;
	}

	wire_rd_init(&rd, buf, need);
	wire_fld_read(&rd, ibpd_flds, WIRE_FLD_N(ibpd_flds), 0, pd, family == 6);
	if (!wire_rd_ok(&rd) || wire_rd_left(&rd))
		return WIRE_ERR_MALFORMED;     /* a layout bug, not bad input */
	/* Fields are only ever appended (ib.h), so a longer blob is fine. */
	pd->extra = len - need;

	if (!ibpd_passive_choice(pd->major, pd->minor, pd->minor_mask))
		wire_rules_add(&pd->rules, WIRE_RULE_IBPD_VERSION);
	if (pd->reserved1 || pd->reserved2 || pd->pad[0] || pd->pad[1] ||
	    pd->pad[2] || pd->pad[3])
		wire_rules_add(&pd->rules, WIRE_RULE_IBPD_RESERVED);
	if (pd->credit)
		wire_rules_add(&pd->rules, WIRE_RULE_IBPD_CREDIT);
	if (pd->minor_mask != WIRE_IB_SUPPORTED_MINORS)
		wire_rules_add(&pd->rules, WIRE_RULE_IBPD_MASK);
	return (ssize_t)need;
}

ssize_t wire_ibpd_encode(const struct wire_ibpd *pd, uint8_t *buf, size_t cap)
{
	size_t need;
	struct wire_wr wr;

	if (!pd || (!buf && cap))
		return WIRE_ERR_INVAL;
	need = ibpd_size(pd->family);
	if (!need)
		return WIRE_ERR_INVAL;
	if (cap < need)
		return WIRE_ERR_NOSPACE;

	wire_wr_init(&wr, buf, need);
	wire_fld_write(&wr, ibpd_flds, WIRE_FLD_N(ibpd_flds), 0, pd, pd->family == 6);
	if (!wire_wr_ok(&wr) || wr.done != need)
		return WIRE_ERR_NOSPACE;
	return (ssize_t)need;
}

uint16_t wire_ib_negotiate(const uint8_t *buf, size_t len, int family)
{
	size_t need = ibpd_size(family);
	struct wire_rd rd;
	uint8_t major, minor;
	uint16_t mask;

	/* "RDS always has privdata": none at all is refused outright. */
	if (!need || !buf || !len)
		return 0;
	/*
	 * rdma_cm hands over a zero-filled buffer of its own size, so a short
	 * length means a peer that predates the struct, not a cut-off one.
	 */
	if (len < need)
		return WIRE_IBVER_4_0;

	wire_rd_init(&rd, buf, need);
	wire_rd_skip(&rd, 2 * ibpd_addr_len(family));
	major = wire_rd_u8(&rd);
	minor = wire_rd_u8(&rd);
	mask = wire_rd_be16(&rd);
	if (!wire_rd_ok(&rd))
		return 0;
	return ibpd_passive_choice(major, minor, mask);
}

uint16_t wire_ib_adopt(uint16_t proposed, const struct wire_ibpd *rep)
{
	uint16_t v = proposed;

	/*
	 * rds_ib_cm_connect_complete() reads the REP only when it is at least
	 * the struct's size (a caller passes NULL otherwise), and major 0 means
	 * "empty": the version set before connecting stays.
	 */
	if (rep && rep->major)
		v = (uint16_t)((unsigned)rep->major << 8 | rep->minor);
	/* RDS_PROTOCOL_VERSION and _COMPAT_VERSION are both 3.1: below drops. */
	if (v < WIRE_IBVER_3_1)
		return 0;
	return v;
}
