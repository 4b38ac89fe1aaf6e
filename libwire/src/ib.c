// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ib.c - InfiniBand transport packets: the BTH, the extended transport
 * headers the opcode implies, payload, pad and the CRCs, shared by RoCEv2
 * (roce.c) and the native link (LINKTYPE_INFINIBAND: LRH, optional GRH,
 * ICRC and VCRC), which this file decodes and encodes.
 * Ref: IBTA vol. 1 ch. 7.7 (LRH), 7.8 (ICRC, VCRC), 8.3 (GRH), 9.2-9.5
 * (BTH, table 38 opcodes); drivers/infiniband/sw/rxe (rxe_hdr.h,
 * rxe_opcode.c, rxe_icrc.c).
 */
#include <wire/wire.h>

#include <string.h>

#include "fld.h"
#include "ibt.h"

#define LRH_LEN WIRE_IB_LRH_LEN
#define GRH_LEN WIRE_IB_GRH_LEN
#define BTH_LEN WIRE_IB_BTH_LEN
#define ICRC_LEN WIRE_IB_ICRC_LEN
#define VCRC_LEN WIRE_IB_VCRC_LEN

/* Extended transport headers, in the order they follow the BTH. */
enum {
	EH_RDETH = 1u << 0,      /* 4: RD only */
	EH_DETH = 1u << 1,       /* 8 */
	EH_XRCETH = 1u << 2,     /* 4: XRC requests only */
	EH_RETH = 1u << 3,       /* 16 */
	EH_ATOMIC = 1u << 4,     /* 28 */
	EH_AETH = 1u << 5,       /* 4 */
	EH_ATOMIC_ACK = 1u << 6, /* 8 */
	EH_IMM = 1u << 7,        /* 4 */
	EH_IETH = 1u << 8,       /* 4 */
	/* not headers: what the opcode allows */
	OP_PAYLOAD = 1u << 12,   /* may carry payload */
	OP_PAD_OK = 1u << 13,    /* ends a message, so PadCnt may be non-zero */
	OP_VALID = 1u << 14,     /* defined by the spec */
	OP_ROCE = 1u << 15,      /* and something a RoCE device sends */
};

#define NOT_KEPT SIZE_MAX
#define HAS(flag) offsetof(struct wire_roce, flag)

/*
 * Each extended header's bytes and the struct wire_roce flag that says it
 * was there. Its fields, big-endian, are in eh_flds[]; bytes past them
 * (reserved parts, the atomic headers libwire does not keep) are skipped
 * on decode and written as zeros.
 */
static const struct {
	unsigned bit;
	unsigned len;
	size_t has;
} ehs[] = {
	{ EH_RDETH, 4, NOT_KEPT },
	{ EH_DETH, 8, HAS(has_deth) },
	{ EH_XRCETH, 4, NOT_KEPT },
	{ EH_RETH, 16, HAS(has_reth) },
	{ EH_ATOMIC, 28, HAS(has_atomic_eth) },
	{ EH_AETH, 4, HAS(has_aeth) },
	{ EH_ATOMIC_ACK, 8, HAS(has_atomic_ack) },
	{ EH_IMM, 4, HAS(has_imm) },
	{ EH_IETH, 4, HAS(has_ieth) },
};

#undef HAS

#define F(bit, member) WIRE_FLD_OF(EH_##bit, struct wire_roce, member, WIRE_FLD_BE, false)
#define F24(bit, member) WIRE_FLD_BE_IN(EH_##bit, struct wire_roce, member, 3)

static const struct wire_fld eh_flds[] = {
	F(DETH, deth.qkey),
	F(DETH, deth.resv),
	F24(DETH, deth.src_qp),
	F(RETH, reth.va),
	F(RETH, reth.rkey),
	F(RETH, reth.dma_len),
	F(AETH, aeth.syndrome),
	F24(AETH, aeth.msn),
	F(IMM, imm),
	F(IETH, ieth_rkey),
};

#undef F
#undef F24

/*
 * The low five opcode bits select the operation; RC, UC, RD and XRC share
 * this numbering (IBTA table 38). Zero marks a reserved operation.
 */
#define PAY OP_PAYLOAD
#define END (OP_PAYLOAD | OP_PAD_OK)
static const uint16_t op_hdrs[32] = {
	[0x00] = OP_VALID | PAY,                  /* SEND_FIRST */
	[0x01] = OP_VALID | PAY,                  /* SEND_MIDDLE */
	[0x02] = OP_VALID | END,                  /* SEND_LAST */
	[0x03] = OP_VALID | END | EH_IMM,         /* SEND_LAST_IMM */
	[0x04] = OP_VALID | END,                  /* SEND_ONLY */
	[0x05] = OP_VALID | END | EH_IMM,         /* SEND_ONLY_IMM */
	[0x06] = OP_VALID | PAY | EH_RETH,        /* RDMA_WRITE_FIRST */
	[0x07] = OP_VALID | PAY,                  /* RDMA_WRITE_MIDDLE */
	[0x08] = OP_VALID | END,                  /* RDMA_WRITE_LAST */
	[0x09] = OP_VALID | END | EH_IMM,         /* RDMA_WRITE_LAST_IMM */
	[0x0a] = OP_VALID | END | EH_RETH,        /* RDMA_WRITE_ONLY */
	[0x0b] = OP_VALID | END | EH_RETH | EH_IMM, /* RDMA_WRITE_ONLY_IMM */
	[0x0c] = OP_VALID | EH_RETH,              /* RDMA_READ_REQUEST */
	[0x0d] = OP_VALID | PAY | EH_AETH,        /* RDMA_READ_RESPONSE_FIRST */
	[0x0e] = OP_VALID | PAY,                  /* RDMA_READ_RESPONSE_MIDDLE */
	[0x0f] = OP_VALID | END | EH_AETH,        /* RDMA_READ_RESPONSE_LAST */
	[0x10] = OP_VALID | END | EH_AETH,        /* RDMA_READ_RESPONSE_ONLY */
	[0x11] = OP_VALID | EH_AETH,              /* ACKNOWLEDGE */
	[0x12] = OP_VALID | EH_AETH | EH_ATOMIC_ACK, /* ATOMIC_ACKNOWLEDGE */
	[0x13] = OP_VALID | EH_ATOMIC,            /* COMPARE_SWAP */
	[0x14] = OP_VALID | EH_ATOMIC,            /* FETCH_ADD */
	[0x16] = OP_VALID | END | EH_IETH,        /* SEND_LAST_INV */
	[0x17] = OP_VALID | END | EH_IETH,        /* SEND_ONLY_INV */
};
#undef PAY
#undef END

/* Read responses and acknowledgements travel responder to requester. */
static bool op_is_response(unsigned op)
{
	return op >= 0x0d && op <= 0x12;
}

enum ib_transport {
	TR_RC = 0,
	TR_UC = 1,
	TR_RD = 2,
	TR_UD = 3,
	TR_CNP = 4,
	TR_XRC = 5,
};

/* Headers and properties of |opcode|; 0 for a reserved one. */
static unsigned opcode_desc(uint8_t opcode)
{
	unsigned op = opcode & 0x1f;
	unsigned d = op_hdrs[op];

	switch (opcode >> 5) {
	case TR_RC:
		return d ? d | OP_ROCE : 0;
	case TR_UC:
		/* UC has sends and writes only */
		return op <= 0x0b ? d | OP_ROCE : 0;
	case TR_RD:
		/* Reliable datagram is in the spec but no RoCE device has it. */
		if (op > 0x14 || !d)
			return 0;
		return d | EH_RDETH | (op_is_response(op) ? 0 : EH_DETH);
	case TR_UD:
		if (op == 0x04 || op == 0x05)
			return d | EH_DETH | OP_ROCE;
		return 0;
	case TR_CNP:
		/* annex A17.9: the RoCEv2 CNP is 0x81, with 16 reserved bytes */
		return opcode == WIRE_IB_CNP ? OP_VALID | OP_PAYLOAD | OP_ROCE : 0;
	case TR_XRC:
		if (!d)
			return 0;
		return d | OP_ROCE | (op_is_response(op) ? 0 : EH_XRCETH);
	default:
		/* 0xc0 reserved, 0xe0 manufacturer specific */
		return 0;
	}
}

static unsigned desc_hdr_len(unsigned d)
{
	unsigned n = 0;

	for (size_t i = 0; i < sizeof(ehs) / sizeof(ehs[0]); i++)
		if (d & ehs[i].bit)
			n += ehs[i].len;
	return n;
}

/*
 * Names of exactly the opcodes opcode_desc() accepts: the transport's
 * prefix and the operation, grouped as the transports share them (UC has
 * sends and writes; RD adds reads and atomics; RC and XRC add the
 * invalidating sends; UD has two sends).
 */
#define OP(tr, t, op, n) { (uint32_t)(tr) << 5 | (op), t " " n }
#define SENDS_WRITES(tr, t)						\
	OP(tr, t, 0x00, "SEND_FIRST"), OP(tr, t, 0x01, "SEND_MIDDLE"),	\
	OP(tr, t, 0x02, "SEND_LAST"), OP(tr, t, 0x03, "SEND_LAST_IMM"),	\
	OP(tr, t, 0x04, "SEND_ONLY"), OP(tr, t, 0x05, "SEND_ONLY_IMM"),	\
	OP(tr, t, 0x06, "RDMA_WRITE_FIRST"),				\
	OP(tr, t, 0x07, "RDMA_WRITE_MIDDLE"),				\
	OP(tr, t, 0x08, "RDMA_WRITE_LAST"),				\
	OP(tr, t, 0x09, "RDMA_WRITE_LAST_IMM"),				\
	OP(tr, t, 0x0a, "RDMA_WRITE_ONLY"),				\
	OP(tr, t, 0x0b, "RDMA_WRITE_ONLY_IMM")
#define READS_ATOMICS(tr, t)						\
	OP(tr, t, 0x0c, "RDMA_READ_REQUEST"),				\
	OP(tr, t, 0x0d, "RDMA_READ_RESPONSE_FIRST"),			\
	OP(tr, t, 0x0e, "RDMA_READ_RESPONSE_MIDDLE"),			\
	OP(tr, t, 0x0f, "RDMA_READ_RESPONSE_LAST"),			\
	OP(tr, t, 0x10, "RDMA_READ_RESPONSE_ONLY"),			\
	OP(tr, t, 0x11, "ACKNOWLEDGE"),					\
	OP(tr, t, 0x12, "ATOMIC_ACKNOWLEDGE"),				\
	OP(tr, t, 0x13, "COMPARE_SWAP"), OP(tr, t, 0x14, "FETCH_ADD")
#define INV_SENDS(tr, t)						\
	OP(tr, t, 0x16, "SEND_LAST_INV"), OP(tr, t, 0x17, "SEND_ONLY_INV")

const struct wire_tok wire_ib_opcode_toks[] = {
	SENDS_WRITES(TR_RC, "RC"),   READS_ATOMICS(TR_RC, "RC"),
	INV_SENDS(TR_RC, "RC"),      SENDS_WRITES(TR_UC, "UC"),
	SENDS_WRITES(TR_RD, "RD"),   READS_ATOMICS(TR_RD, "RD"),
	OP(TR_UD, "UD", 0x04, "SEND_ONLY"),
	OP(TR_UD, "UD", 0x05, "SEND_ONLY_IMM"),
	{ WIRE_IB_CNP, "CNP" },
	SENDS_WRITES(TR_XRC, "XRC"), READS_ATOMICS(TR_XRC, "XRC"),
	INV_SENDS(TR_XRC, "XRC"),
	{ 0, NULL },
};
#undef INV_SENDS
#undef READS_ATOMICS
#undef SENDS_WRITES
#undef OP

const char *wire_ib_opcode_name(uint8_t opcode)
{
	return wire_tok_name(wire_ib_opcode_toks, opcode);
}

int32_t wire_ib_psn_step(bool *have, uint32_t *next, uint32_t psn)
{
	uint32_t gap = (psn - *next) & 0xffffff;

	if (!*have)
		gap = 0;
	else if (gap >= 0x800000)
		return -1;
	*have = true;
	*next = (psn + 1) & 0xffffff;
	return (int32_t)gap;
}

bool wire_ib_claims_qp(const uint8_t *payload, size_t len)
{
	struct wire_hdr h;

	if (wire_hdr_decode(&h, payload, len) != WIRE_HDR_LEN)
		return false;
	return h.len <= WIRE_MAX_MSG_LEN && h.csum != 0 && wire_hdr_csum_ok(&h);
}

enum wire_ib_seg wire_ib_opcode_seg(uint8_t opcode)
{
	unsigned tr = opcode >> 5;

	if (tr == TR_CNP || !opcode_desc(opcode))
		return WIRE_IB_SEG_NONE;
	switch (opcode & 0x1f) {
	case 0x00:
		return WIRE_IB_SEG_FIRST;
	case 0x01:
		return WIRE_IB_SEG_MIDDLE;
	case 0x02:
	case 0x03:
	case 0x16:
		return WIRE_IB_SEG_LAST;
	case 0x04:
	case 0x05:
	case 0x17:
		return WIRE_IB_SEG_ONLY;
	default:
		return WIRE_IB_SEG_NONE;
	}
}

/*
 * CRC-32, reflected Ethernet polynomial, four bits at a time: a 16-entry
 * constant table needs no initialisation and no mutable state, which a
 * pure library wants more than the last factor of speed.
 */
static const uint32_t crc_nibble[16] = {
	0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac,
	0x76dc4190, 0x6b6b51f4, 0x4db26158, 0x5005713c,
	0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
	0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
};

uint32_t wire_ib_crc32(uint32_t crc, uint8_t b)
{
	crc ^= b;
	crc = (crc >> 4) ^ crc_nibble[crc & 0xf];
	return (crc >> 4) ^ crc_nibble[crc & 0xf];
}

/*
 * BTH, 12 bytes (IBTA 9.2):
 *
 *  0               8   9   10      12              16              24  32
 *  +---------------+---+---+-------+---------------+-------------------+
 *  |    opcode     |SE | M |PadCnt |     TVer      |    partition key  |
 *  +---+---+-------+---+---+-------+---------------+-------------------+
 *  | F | B | resv6 |            destination QP (24 bits)               |
 *  +---+-----------+---------------------------------------------------+
 *  | A |   resv7   |          packet sequence number (24 bits)         |
 *  +---+-----------+---------------------------------------------------+
 */
static void decode_bth(struct wire_bth *b, struct wire_rd *rd)
{
	uint8_t fl, a;

	b->opcode = wire_rd_u8(rd);
	fl = wire_rd_u8(rd);
	b->se = fl & 0x80;
	b->migreq = fl & 0x40;
	b->padcnt = (fl >> 4) & 0x03;
	b->tver = fl & 0x0f;
	b->pkey = wire_rd_be16(rd);
	b->resv8a = wire_rd_u8(rd);
	b->dqpn = wire_rd_be24(rd);
	a = wire_rd_u8(rd);
	b->ackreq = a & 0x80;
	b->resv7 = a & 0x7f;
	b->psn = wire_rd_be24(rd);
}

/*
 * Extended headers, each big-endian, in this order when present:
 *   RDETH  4  resv(8) EE-context(24)               RD only
 *   DETH   8  Q_Key(32) resv(8) source QP(24)      UD, RD requests
 *   XRCETH 4  resv(8) XRC SRQ(24)                  XRC requests
 *   RETH  16  VA(64) R_Key(32) DMA length(32)
 *   AtomicETH 28  VA(64) R_Key(32) swap/add(64) compare(64)
 *   AETH   4  syndrome(8) MSN(24)
 *   AtomicAckETH 8  original remote data(64)
 *   ImmDt  4  immediate data(32)
 *   IETH   4  R_Key to invalidate(32)
 */
static void decode_ext(struct wire_roce *r, unsigned d, struct wire_rd *rd)
{
	for (size_t i = 0; i < sizeof(ehs) / sizeof(ehs[0]); i++) {
		struct wire_rd h;

		if (!(d & ehs[i].bit))
			continue;
		if (ehs[i].has != NOT_KEPT)
			*(bool *)((uint8_t *)r + ehs[i].has) = true;
		h = wire_rd_sub(rd, ehs[i].len);
		wire_fld_read(&h, eh_flds, WIRE_FLD_N(eh_flds), ehs[i].bit, r, false);
	}
}

/* ------------------------------------------------------------------------
 * The transport part, shared with roce.c
 */

int wire_ib_transport_decode(struct wire_roce *r, struct wire_rd *rd, size_t room,
			     size_t *body)
{
	struct wire_rd bth;
	size_t ehlen, avail, b;
	unsigned d;

	if (room < BTH_LEN + ICRC_LEN)
		return WIRE_ERR_MALFORMED;
	bth = wire_rd_sub(rd, BTH_LEN);
	if (!wire_rd_ok(&bth))
		return WIRE_ERR_TRUNC;
	decode_bth(&r->bth, &bth);
	room -= BTH_LEN + ICRC_LEN;
	if (r->bth.tver != 0)
		wire_rules_add(&r->rules, WIRE_RULE_ROCE_TVER);
	d = opcode_desc(r->bth.opcode);
	if (!(d & OP_ROCE))
		wire_rules_add(&r->rules, WIRE_RULE_ROCE_OPCODE);
	if (!(d & OP_VALID))
		d = OP_PAYLOAD; /* reserved: whatever follows is opaque */

	ehlen = desc_hdr_len(d);
	if (room < ehlen)
		return WIRE_ERR_MALFORMED;
	if (wire_rd_left(rd) < ehlen)
		return WIRE_ERR_TRUNC;
	decode_ext(r, d, rd);
	b = room - ehlen;

	if (r->bth.padcnt > b) {
		wire_rules_add(&r->rules, WIRE_RULE_ROCE_PAD);
		return WIRE_ERR_MALFORMED;
	}
	/* Only a message's last packet may be padded: earlier ones are
	 * whole PMTUs, and header-only packets have nothing to pad. */
	if (r->bth.padcnt && (d & OP_VALID) && !(d & OP_PAD_OK))
		wire_rules_add(&r->rules, WIRE_RULE_ROCE_PAD);

	avail = wire_rd_left(rd);
	r->payload = rd->p;
	r->payload_len = b - r->bth.padcnt;
	if (r->payload_len > avail)
		r->payload_len = avail;         /* capture cut inside the payload */
	*body = b;
	return 0;
}

static uint32_t rd_le32(struct wire_rd *rd)
{
	const uint8_t *b = wire_rd_take(rd, 4);

	return b ? (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 |
		   (uint32_t)b[1] << 8 | b[0] : 0;
}

void wire_ib_transport_icrc(struct wire_roce *r, struct wire_rd *rd, size_t body,
			    uint32_t computed, enum wire_rule rule)
{
	struct wire_rd tail;

	wire_rd_skip(rd, body);
	tail = wire_rd_sub(rd, ICRC_LEN);
	r->icrc = rd_le32(&tail);
	r->icrc_computed = computed;
	r->icrc_checked = true;
	r->icrc_ok = r->icrc == r->icrc_computed;
	if (!r->icrc_ok)
		wire_rules_add(&r->rules, rule);
}

static unsigned encode_desc(uint8_t opcode)
{
	unsigned d = opcode_desc(opcode);

	return d & OP_VALID ? d : 0;
}

size_t wire_ib_transport_len(const struct wire_roce *r)
{
	return BTH_LEN + desc_hdr_len(encode_desc(r->bth.opcode)) + r->payload_len +
	       r->bth.padcnt;
}

void wire_ib_transport_encode(const struct wire_roce *r, struct wire_wr *wr)
{
	const struct wire_bth *b = &r->bth;
	unsigned d = encode_desc(b->opcode);

	wire_wr_u8(wr, b->opcode);
	wire_wr_u8(wr, (uint8_t)((b->se ? 0x80 : 0) | (b->migreq ? 0x40 : 0) |
				 (b->padcnt & 0x03) << 4 | (b->tver & 0x0f)));
	wire_wr_be16(wr, b->pkey);
	wire_wr_u8(wr, b->resv8a);
	wire_wr_be24(wr, b->dqpn);
	wire_wr_u8(wr, (uint8_t)((b->ackreq ? 0x80 : 0) | (b->resv7 & 0x7f)));
	wire_wr_be24(wr, b->psn);
	for (size_t i = 0; i < sizeof(ehs) / sizeof(ehs[0]); i++) {
		size_t start = wr->done;

		if (!(d & ehs[i].bit))
			continue;
		wire_fld_write(wr, eh_flds, WIRE_FLD_N(eh_flds), ehs[i].bit, r, false);
		wire_wr_zero(wr, ehs[i].len - (wr->done - start));
	}
	if (r->payload_len)
		wire_wr_bytes(wr, r->payload, r->payload_len);
	wire_wr_zero(wr, b->padcnt);
}

/* ------------------------------------------------------------------------
 * Native InfiniBand: LRH, GRH, ICRC and VCRC
 */

/*
 * Which bits of the headers the ICRC of a native packet treats as ones
 * (IBTA 7.8.1): a switch may rewrite LRH VL and BTH Resv8a; past a router
 * the whole LRH is new and the GRH's traffic class, flow label and hop
 * limit may be. RoCEv2's eight leading 0xff bytes are that masked LRH.
 * Returns the OR-mask for byte |i| of a packet with Link Next Header |lnh|.
 */
static uint8_t icrc_mask(unsigned lnh, size_t i)
{
	if (lnh == WIRE_IB_LNH_GLOBAL) {
		if (i < LRH_LEN)
			return 0xff;
		i -= LRH_LEN;
		if (i == 0)
			return 0x0f;    /* keep IPVer */
		if ((i >= 1 && i <= 3) || i == 7)
			return 0xff;
		if (i == GRH_LEN + 4)
			return 0xff;
		return 0;
	}
	if (i == 0)
		return 0xf0;            /* VL */
	if (i == LRH_LEN + 4)
		return 0xff;
	return 0;
}

uint32_t wire_ib_icrc(const uint8_t *lrh, size_t len)
{
	struct wire_rd rd;
	uint32_t crc = 0xffffffff;
	unsigned lnh = 0;

	wire_rd_init(&rd, lrh, lrh ? len : 0);
	if (wire_rd_left(&rd) > 1)
		lnh = lrh[1] & 0x03;
	for (size_t i = 0; wire_rd_left(&rd); i++)
		crc = wire_ib_crc32(crc, wire_rd_u8(&rd) | icrc_mask(lnh, i));
	return ~crc;
}

/* CRC-16 with the IBA polynomial x^16+x^12+x^3+x+1 (0x100b), reflected as
 * the ICRC is, one bit at a time: the VCRC covers small packets. */
uint16_t wire_ib_vcrc(const uint8_t *lrh, size_t len)
{
	struct wire_rd rd;
	uint16_t crc = 0xffff;

	wire_rd_init(&rd, lrh, lrh ? len : 0);
	while (wire_rd_left(&rd)) {
		crc ^= wire_rd_u8(&rd);
		for (int k = 0; k < 8; k++)
			crc = (uint16_t)(crc & 1 ? (crc >> 1) ^ 0xd008 : crc >> 1);
	}
	return (uint16_t)~crc;
}

/*
 * LRH, 8 bytes (IBTA 7.7):
 *
 *  0       4       8       12  14  16                              32
 *  +-------+-------+-------+---+---+-------------------------------+
 *  |  VL   | LVer  |  SL   |rsv|LNH|      destination LID          |
 *  +-------+-------+-------+---+---+-------------------------------+
 *  |  resv5  |   PktLen (11 bits)  |         source LID            |
 *  +---------+---------------------+-------------------------------+
 */
static void decode_lrh(struct wire_lrh *l, struct wire_rd *rd)
{
	uint8_t b0 = wire_rd_u8(rd), b1 = wire_rd_u8(rd);
	uint16_t w;

	l->vl = b0 >> 4;
	l->lver = b0 & 0x0f;
	l->sl = b1 >> 4;
	l->resv2 = (b1 >> 2) & 0x03;
	l->lnh = b1 & 0x03;
	l->dlid = wire_rd_be16(rd);
	w = wire_rd_be16(rd);
	l->resv5 = (uint8_t)(w >> 11);
	l->pktlen = w & 0x07ff;
	l->slid = wire_rd_be16(rd);
}

/*
 * GRH, 40 bytes (IBTA 8.3), an IPv6 header in all but its names:
 *
 *  0       4               12                                      32
 *  +-------+---------------+---------------------------------------+
 *  |IPVer=6|    TClass     |              flow label               |
 *  +-------+---------------+-------+---------------+---------------+
 *  |            PayLen             | NxtHdr = 0x1b |    HopLmt     |
 *  +-------------------------------+---------------+---------------+
 *  |                     source GID (16 bytes)                     |
 *  |                  destination GID (16 bytes)                   |
 *  +---------------------------------------------------------------+
 */
static void decode_grh(struct wire_grh *g, struct wire_rd *rd)
{
	uint32_t w = wire_rd_be32(rd);

	g->ipver = (uint8_t)(w >> 28);
	g->tclass = (uint8_t)(w >> 20);
	g->flow = w & 0xfffff;
	g->paylen = wire_rd_be16(rd);
	g->nxthdr = wire_rd_u8(rd);
	g->hoplmt = wire_rd_u8(rd);
	wire_rd_copy(rd, g->sgid, 16);
	wire_rd_copy(rd, g->dgid, 16);
}

/*
 * As wire_roce_decode(): lengths the headers declare are checked before
 * what was captured, so a shorter capture can only turn a result into
 * TRUNC. PktLen is the packet's length; the frame may end there (no VCRC)
 * or carry the VCRC after it.
 */
int wire_ib_decode(struct wire_roce *r, const uint8_t *lrh, size_t len, size_t wire_len)
{
	struct wire_rd rd, h;
	size_t pktlen, hdrs, body = 0;
	int ret;

	if (!r)
		return WIRE_ERR_INVAL;
	memset(r, 0, sizeof(*r));
	if (!lrh)
		len = 0;
	wire_rd_init(&rd, lrh, len);
	h = wire_rd_sub(&rd, LRH_LEN);
	if (!wire_rd_ok(&h))
		return WIRE_ERR_TRUNC;
	r->has_lrh = true;
	decode_lrh(&r->lrh, &h);
	if (r->lrh.lver != 0)
		wire_rules_add(&r->rules, WIRE_RULE_IB_LVER);
	if (r->lrh.lnh != WIRE_IB_LNH_LOCAL && r->lrh.lnh != WIRE_IB_LNH_GLOBAL)
		return WIRE_ERR_UNSUPP;
	pktlen = (size_t)r->lrh.pktlen * 4;
	hdrs = LRH_LEN + (r->lrh.lnh == WIRE_IB_LNH_GLOBAL ? GRH_LEN : 0);
	if (pktlen < hdrs + BTH_LEN + ICRC_LEN || (wire_len && wire_len < pktlen)) {
		wire_rules_add(&r->rules, WIRE_RULE_IB_LEN);
		return WIRE_ERR_MALFORMED;
	}
	if (r->lrh.lnh == WIRE_IB_LNH_GLOBAL) {
		h = wire_rd_sub(&rd, GRH_LEN);
		if (!wire_rd_ok(&h))
			return WIRE_ERR_TRUNC;
		r->has_grh = true;
		decode_grh(&r->grh, &h);
		r->ip_version = 6;
		memcpy(r->src, r->grh.sgid, 16);
		memcpy(r->dst, r->grh.dgid, 16);
		if (r->grh.paylen != pktlen - hdrs) {
			wire_rules_add(&r->rules, WIRE_RULE_IB_LEN);
			return WIRE_ERR_MALFORMED;
		}
		if (r->grh.nxthdr != WIRE_IB_GRH_NXTHDR)
			return WIRE_ERR_UNSUPP;
	}
	ret = wire_ib_transport_decode(r, &rd, pktlen - hdrs, &body);
	if (ret)
		return ret;
	if (len < pktlen)
		return 0;
	wire_ib_transport_icrc(r, &rd, body, wire_ib_icrc(lrh, pktlen - ICRC_LEN),
			       WIRE_RULE_IB_ICRC);
	/* the VCRC, when the frame carried one and it was captured */
	if (len - pktlen >= VCRC_LEN && (!wire_len || wire_len - pktlen >= VCRC_LEN)) {
		uint8_t lo, hi;

		h = wire_rd_sub(&rd, VCRC_LEN);
		lo = wire_rd_u8(&h);
		hi = wire_rd_u8(&h);
		r->vcrc = (uint16_t)(lo | hi << 8);
		r->vcrc_computed = wire_ib_vcrc(lrh, pktlen);
		r->vcrc_checked = true;
		r->vcrc_ok = r->vcrc == r->vcrc_computed;
		if (!r->vcrc_ok)
			wire_rules_add(&r->rules, WIRE_RULE_IB_VCRC);
	}
	return 0;
}

static void put_le(uint8_t *p, uint32_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

ssize_t wire_ib_encode(const struct wire_roce *r, uint8_t *buf, size_t cap)
{
	const struct wire_lrh *l;
	struct wire_wr wr;
	size_t hdrs, pktlen;
	uint8_t *crc;

	if (!r || !buf)
		return WIRE_ERR_INVAL;
	l = &r->lrh;
	if (l->lnh != WIRE_IB_LNH_LOCAL && l->lnh != WIRE_IB_LNH_GLOBAL)
		return WIRE_ERR_INVAL;
	if (r->payload_len && !r->payload)
		return WIRE_ERR_INVAL;
	hdrs = LRH_LEN + (l->lnh == WIRE_IB_LNH_GLOBAL ? GRH_LEN : 0);
	pktlen = hdrs + wire_ib_transport_len(r) + ICRC_LEN;
	/* PktLen counts words: the pad makes payload and pad a multiple of 4 */
	if (pktlen % 4 || pktlen / 4 > 0x7ff)
		return WIRE_ERR_INVAL;
	wire_wr_init(&wr, buf, cap);
	wire_wr_u8(&wr, (uint8_t)((l->vl & 0x0f) << 4 | (l->lver & 0x0f)));
	wire_wr_u8(&wr, (uint8_t)((l->sl & 0x0f) << 4 | (l->resv2 & 0x03) << 2 | l->lnh));
	wire_wr_be16(&wr, l->dlid);
	wire_wr_be16(&wr, (uint16_t)((l->resv5 & 0x1f) << 11 | pktlen / 4));
	wire_wr_be16(&wr, l->slid);
	if (l->lnh == WIRE_IB_LNH_GLOBAL) {
		const struct wire_grh *g = &r->grh;

		wire_wr_be32(&wr, (uint32_t)(g->ipver & 0x0f) << 28 | (uint32_t)g->tclass << 20 |
				  (g->flow & 0xfffff));
		wire_wr_be16(&wr, (uint16_t)(pktlen - hdrs));
		wire_wr_u8(&wr, g->nxthdr);
		wire_wr_u8(&wr, g->hoplmt);
		wire_wr_bytes(&wr, g->sgid, 16);
		wire_wr_bytes(&wr, g->dgid, 16);
	}
	wire_ib_transport_encode(r, &wr);
	crc = wire_wr_take(&wr, ICRC_LEN + VCRC_LEN);
	if (!wire_wr_ok(&wr))
		return WIRE_ERR_NOSPACE;
	put_le(crc, wire_ib_icrc(buf, pktlen - ICRC_LEN), 4);
	put_le(crc + ICRC_LEN, wire_ib_vcrc(buf, pktlen), 2);
	return (ssize_t)wr.done;
}

void wire_ib_send_init(struct wire_ib_send_iter *it, const uint8_t *msg, size_t len,
		       uint32_t pmtu)
{
	memset(it, 0, sizeof(*it));
	it->msg = msg;
	it->len = msg ? len : 0;
	it->pmtu = pmtu == 256 || pmtu == 512 || pmtu == 1024 || pmtu == 2048 ? pmtu : 4096;
}

int wire_ib_send_next(struct wire_ib_send_iter *it, struct wire_roce *r)
{
	size_t n, left = it->len - it->off;
	bool first = !it->started, last;

	if (it->started && !left)
		return 0;
	n = left < it->pmtu ? left : it->pmtu;
	last = n == left;
	if (first)
		r->bth.opcode = last ? WIRE_IB_RC_SEND_ONLY : WIRE_IB_RC_SEND_FIRST;
	else
		r->bth.opcode = last ? WIRE_IB_RC_SEND_LAST : WIRE_IB_RC_SEND_MIDDLE;
	r->bth.padcnt = last ? (uint8_t)(-n & 3) : 0;
	r->payload = n ? it->msg + it->off : NULL;
	r->payload_len = n;
	it->off += n;
	it->started = true;
	return 1;
}
