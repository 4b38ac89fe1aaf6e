// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * roce.c - RoCEv2 packets: IPv4/IPv6, UDP to 4791, the IB Base Transport
 * Header, the extended transport headers the opcode implies, payload, pad
 * and the invariant CRC.
 * Ref: IBTA vol. 1 ch. 9.2-9.5 (BTH, table 38 opcodes), annex A17 (RoCEv2,
 * ICRC); drivers/infiniband/sw/rxe (rxe_hdr.h, rxe_opcode.c, rxe_icrc.c).
 */
#include <wire/wire.h>

#include <string.h>

#include "rd.h"

#define IP4_MIN_LEN 20
#define IP6_LEN 40
#define UDP_LEN 8
#define BTH_LEN 12
#define ICRC_LEN 4
#define IPPROTO_UDP_NUM 17

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

static const struct {
	unsigned bit;
	unsigned len;
} eh_len[] = {
	{ EH_RDETH, 4 }, { EH_DETH, 8 },  { EH_XRCETH, 4 },
	{ EH_RETH, 16 }, { EH_ATOMIC, 28 }, { EH_AETH, 4 },
	{ EH_ATOMIC_ACK, 8 }, { EH_IMM, 4 }, { EH_IETH, 4 },
};

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

	for (size_t i = 0; i < sizeof(eh_len) / sizeof(eh_len[0]); i++)
		if (d & eh_len[i].bit)
			n += eh_len[i].len;
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

static uint32_t crc_byte(uint32_t crc, uint8_t b)
{
	crc ^= b;
	crc = (crc >> 4) ^ crc_nibble[crc & 0xf];
	return (crc >> 4) ^ crc_nibble[crc & 0xf];
}

static uint32_t crc_update(uint32_t crc, struct wire_rd *rd)
{
	while (wire_rd_left(rd))
		crc = crc_byte(crc, wire_rd_u8(rd));
	return crc;
}

/*
 * Which bytes of the leading headers the ICRC treats as all ones: fields
 * a router may rewrite (IPv4 TOS, TTL, checksum; IPv6 traffic class, flow
 * label, hop limit), the UDP checksum, and BTH byte 4 (FECN, BECN and the
 * reserved bits a switch may set). Returns the OR-mask for byte |i|.
 */
static uint8_t icrc_mask(int ipver, size_t iphl, size_t i)
{
	if (ipver == 4) {
		if (i == 1 || i == 8 || i == 10 || i == 11)
			return 0xff;
	} else if (ipver == 6) {
		if (i == 0)
			return 0x0f;    /* keep the version nibble */
		if ((i >= 1 && i <= 3) || i == 7)
			return 0xff;
	} else {
		return 0;
	}
	if (i == iphl + 6 || i == iphl + 7)
		return 0xff;
	if (i == iphl + UDP_LEN + 4)
		return 0xff;
	return 0;
}

/*
 * rxe_icrc.c starts from the register value after eight 0xff bytes (the
 * masked LRH an IB packet would have), runs the reflected CRC and stores
 * the complement in host order; on the little-endian hosts RoCE NICs talk
 * to that is the plain CRC-32 of the masked bytes, read little-endian.
 * IPv4 options are part of the covered IP header (annex A17.3.3 covers the
 * whole IP header); rxe itself never sends any.
 */
uint32_t wire_roce_icrc(const uint8_t *ip, size_t len)
{
	struct wire_rd rd, hdr;
	uint32_t crc = 0xffffffff;
	size_t iphl = 0, nmask;
	int ipver = 0;

	for (int i = 0; i < 8; i++)
		crc = crc_byte(crc, 0xff);
	wire_rd_init(&rd, ip, len);
	if (wire_rd_left(&rd)) {
		struct wire_rd peek = rd;
		uint8_t b0 = wire_rd_u8(&peek);

		ipver = b0 >> 4;
		if (ipver == 4)
			iphl = (size_t)(b0 & 0x0f) * 4 < IP4_MIN_LEN ?
			       IP4_MIN_LEN : (size_t)(b0 & 0x0f) * 4;
		else if (ipver == 6)
			iphl = IP6_LEN;
		else
			ipver = 0;
	}
	nmask = ipver ? iphl + UDP_LEN + BTH_LEN : 0;
	if (nmask > wire_rd_left(&rd))
		nmask = wire_rd_left(&rd);
	hdr = wire_rd_sub(&rd, nmask);
	for (size_t i = 0; i < nmask; i++)
		crc = crc_byte(crc, wire_rd_u8(&hdr) | icrc_mask(ipver, iphl, i));
	crc = crc_update(crc, &rd);
	return ~crc;
}

static uint32_t rd_le32(struct wire_rd *rd)
{
	const uint8_t *b = wire_rd_take(rd, 4);

	return b ? (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 |
		   (uint32_t)b[1] << 8 | b[0] : 0;
}

/*
 *  0       4       8               16                              32
 *  +-------+-------+---------------+-------------------------------+
 *  |ver=4  |  IHL  |      TOS      |         total length          |
 *  +-------+-------+---------------+-----+-------------------------+
 *  |        identification         |flags|     fragment offset     |
 *  +---------------+---------------+-----+-------------------------+
 *  |      TTL      | protocol = 17 |        header checksum        |
 *  +---------------+---------------+-------------------------------+
 *  |                        source address                         |
 *  |                      destination address                      |
 *  |                 options (IHL > 5), IHL*4 - 20 bytes            |
 *  +---------------------------------------------------------------+
 */
static int decode_ipv4(struct wire_roce *r, struct wire_rd *rd, size_t *pktlen,
		       size_t *iphl)
{
	struct wire_rd h = wire_rd_sub(rd, IP4_MIN_LEN);
	unsigned ihl, proto, frag;
	size_t tot;

	if (!wire_rd_ok(&h))
		return WIRE_ERR_TRUNC;
	ihl = wire_rd_u8(&h) & 0x0f;
	wire_rd_skip(&h, 1);            /* TOS */
	tot = wire_rd_be16(&h);
	wire_rd_skip(&h, 2);            /* identification */
	frag = wire_rd_be16(&h);
	wire_rd_skip(&h, 1);            /* TTL */
	proto = wire_rd_u8(&h);
	wire_rd_skip(&h, 2);            /* checksum: masked by the ICRC anyway */
	wire_rd_copy(&h, r->src, 4);
	wire_rd_copy(&h, r->dst, 4);

	if (ihl < 5 || tot < ihl * 4u)
		return WIRE_ERR_MALFORMED;
	if (proto != IPPROTO_UDP_NUM)
		return WIRE_ERR_UNSUPP;
	/* A fragment (MF set or an offset) cannot be decoded on its own. */
	if (frag & 0x3fff)
		return WIRE_ERR_UNSUPP;
	*pktlen = tot;
	*iphl = ihl * 4u;
	return 0;
}

/*
 *  0       4               12                                      32
 *  +-------+---------------+---------------------------------------+
 *  |ver=6  | traffic class |              flow label               |
 *  +-------+---------------+-------+---------------+---------------+
 *  |        payload length         | next hdr = 17 |   hop limit   |
 *  +-------------------------------+---------------+---------------+
 *  |                   source address (16 bytes)                   |
 *  |                destination address (16 bytes)                 |
 *  +---------------------------------------------------------------+
 */
static int decode_ipv6(struct wire_roce *r, struct wire_rd *rd, size_t *pktlen,
		       size_t *iphl)
{
	struct wire_rd h = wire_rd_sub(rd, IP6_LEN);
	size_t plen;
	unsigned next;

	if (!wire_rd_ok(&h))
		return WIRE_ERR_TRUNC;
	wire_rd_skip(&h, 4);
	plen = wire_rd_be16(&h);
	next = wire_rd_u8(&h);
	wire_rd_skip(&h, 1);
	wire_rd_copy(&h, r->src, 16);
	wire_rd_copy(&h, r->dst, 16);

	/* RoCEv2 puts UDP right after the fixed header; extension headers
	 * (and jumbograms, which need one) are not decoded. */
	if (next != IPPROTO_UDP_NUM)
		return WIRE_ERR_UNSUPP;
	*pktlen = IP6_LEN + plen;
	*iphl = IP6_LEN;
	return 0;
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
	if (d & EH_RDETH)
		wire_rd_skip(rd, 4);
	if (d & EH_DETH) {
		r->has_deth = true;
		r->deth.qkey = wire_rd_be32(rd);
		r->deth.resv = wire_rd_u8(rd);
		r->deth.src_qp = wire_rd_be24(rd);
	}
	if (d & EH_XRCETH)
		wire_rd_skip(rd, 4);
	if (d & EH_RETH) {
		r->has_reth = true;
		r->reth.va = wire_rd_be64(rd);
		r->reth.rkey = wire_rd_be32(rd);
		r->reth.dma_len = wire_rd_be32(rd);
	}
	if (d & EH_ATOMIC) {
		r->has_atomic_eth = true;
		wire_rd_skip(rd, 28);
	}
	if (d & EH_AETH) {
		r->has_aeth = true;
		r->aeth.syndrome = wire_rd_u8(rd);
		r->aeth.msn = wire_rd_be24(rd);
	}
	if (d & EH_ATOMIC_ACK) {
		r->has_atomic_ack = true;
		wire_rd_skip(rd, 8);
	}
	if (d & EH_IMM) {
		r->has_imm = true;
		r->imm = wire_rd_be32(rd);
	}
	if (d & EH_IETH) {
		r->has_ieth = true;
		r->ieth_rkey = wire_rd_be32(rd);
	}
}

/*
 * Every length check runs twice: first against what the headers declare
 * (a violation is MALFORMED, whatever was captured), then against what was
 * captured (TRUNC). So cutting a capture shorter can turn a result into
 * TRUNC but never into anything else.
 */
int wire_roce_decode(struct wire_roce *r, const uint8_t *ip, size_t len,
		     size_t wire_len)
{
	struct wire_rd rd, udp, bth, peek;
	size_t pktlen = 0, iphl = 0, room, udplen, ehlen, body, avail;
	unsigned d;
	int ret;

	if (!r)
		return WIRE_ERR_INVAL;
	memset(r, 0, sizeof(*r));
	if (!ip)
		len = 0;
	wire_rd_init(&rd, ip, len);
	if (!wire_rd_left(&rd))
		return WIRE_ERR_TRUNC;
	peek = rd;
	r->ip_version = wire_rd_u8(&peek) >> 4;
	if (r->ip_version == 4)
		ret = decode_ipv4(r, &rd, &pktlen, &iphl);
	else if (r->ip_version == 6)
		ret = decode_ipv6(r, &rd, &pktlen, &iphl);
	else
		ret = WIRE_ERR_UNSUPP;
	if (ret)
		return ret;
	/* The frame that carried it was shorter than the IP length says. */
	if (wire_len && wire_len < pktlen)
		return WIRE_ERR_MALFORMED;
	if (!wire_rd_skip(&rd, iphl - (r->ip_version == 4 ? IP4_MIN_LEN : IP6_LEN)))
		return WIRE_ERR_TRUNC;          /* IPv4 options */

	/*
	 *  0               16              32              48              64
	 *  +---------------+---------------+---------------+---------------+
	 *  |  source port  | dest port 4791|    length     |   checksum    |
	 *  +---------------+---------------+---------------+---------------+
	 */
	room = pktlen - iphl;
	if (room < UDP_LEN)
		return WIRE_ERR_MALFORMED;
	udp = wire_rd_sub(&rd, UDP_LEN);
	if (!wire_rd_ok(&udp))
		return WIRE_ERR_TRUNC;
	r->udp_sport = wire_rd_be16(&udp);
	r->udp_dport = wire_rd_be16(&udp);
	udplen = wire_rd_be16(&udp);
	if (r->udp_dport != WIRE_ROCE_UDP_PORT)
		return WIRE_ERR_UNSUPP;
	if (udplen != room) {
		wire_rules_add(&r->rules, WIRE_RULE_ROCE_UDP_LEN);
		return WIRE_ERR_MALFORMED;
	}
	room -= UDP_LEN;

	if (room < BTH_LEN + ICRC_LEN)
		return WIRE_ERR_MALFORMED;
	bth = wire_rd_sub(&rd, BTH_LEN);
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
	if (wire_rd_left(&rd) < ehlen)
		return WIRE_ERR_TRUNC;
	decode_ext(r, d, &rd);
	body = room - ehlen;

	if (r->bth.padcnt > body) {
		wire_rules_add(&r->rules, WIRE_RULE_ROCE_PAD);
		return WIRE_ERR_MALFORMED;
	}
	/* Only a message's last packet may be padded: earlier ones are
	 * whole PMTUs, and header-only packets have nothing to pad. */
	if (r->bth.padcnt && (d & OP_VALID) && !(d & OP_PAD_OK))
		wire_rules_add(&r->rules, WIRE_RULE_ROCE_PAD);

	avail = wire_rd_left(&rd);
	r->payload = rd.p;
	r->payload_len = body - r->bth.padcnt;
	if (r->payload_len > avail)
		r->payload_len = avail;         /* capture cut inside the payload */

	/* The ICRC can be checked only when the whole IP packet is here. */
	if (len >= pktlen) {
		struct wire_rd tail;

		wire_rd_skip(&rd, body);
		tail = wire_rd_sub(&rd, ICRC_LEN);
		r->icrc = rd_le32(&tail);
		r->icrc_computed = wire_roce_icrc(ip, pktlen - ICRC_LEN);
		r->icrc_checked = true;
		r->icrc_ok = r->icrc == r->icrc_computed;
		if (!r->icrc_ok)
			wire_rules_add(&r->rules, WIRE_RULE_ROCE_ICRC);
	}
	return 0;
}
