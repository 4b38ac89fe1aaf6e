// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * roce.c - RoCEv2 packets: IPv4/IPv6 and UDP to 4791 around the IB
 * transport part (BTH, extended headers, payload, pad: ib.c), and the
 * invariant CRC over the IP and UDP headers in place of LRH and GRH.
 * Ref: IBTA vol. 1 ch. 9.2-9.5 (BTH, table 38 opcodes), annex A17 (RoCEv2,
 * ICRC); drivers/infiniband/sw/rxe (rxe_hdr.h, rxe_opcode.c, rxe_icrc.c).
 */
#include <wire/wire.h>

#include <string.h>

#include "ibt.h"

#define IP4_MIN_LEN 20
#define IP6_LEN 40
#define UDP_LEN 8
#define BTH_LEN WIRE_IB_BTH_LEN
#define ICRC_LEN WIRE_IB_ICRC_LEN
#define IPPROTO_UDP_NUM 17

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
		crc = wire_ib_crc32(crc, 0xff);
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
		crc = wire_ib_crc32(crc, wire_rd_u8(&hdr) | icrc_mask(ipver, iphl, i));
	while (wire_rd_left(&rd))
		crc = wire_ib_crc32(crc, wire_rd_u8(&rd));
	return ~crc;
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
 * Every length check runs twice: first against what the headers declare
 * (a violation is MALFORMED, whatever was captured), then against what was
 * captured (TRUNC). So cutting a capture shorter can turn a result into
 * TRUNC but never into anything else.
 */
int wire_roce_decode(struct wire_roce *r, const uint8_t *ip, size_t len,
		     size_t wire_len)
{
	struct wire_rd rd, udp, peek;
	size_t pktlen = 0, iphl = 0, room, udplen, body = 0;
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
	ret = wire_ib_transport_decode(r, &rd, room, &body);
	if (ret)
		return ret;
	/* The ICRC can be checked only when the whole IP packet is here. */
	if (len >= pktlen)
		wire_ib_transport_icrc(r, &rd, body, wire_roce_icrc(ip, pktlen - ICRC_LEN),
				       WIRE_RULE_ROCE_ICRC);
	return 0;
}

static uint16_t ip4_csum(const uint8_t *h, size_t n)
{
	uint32_t sum = 0;

	for (size_t i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)h[i] << 8 | h[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

ssize_t wire_roce_encode(const struct wire_roce *r, uint8_t *buf, size_t cap)
{
	struct wire_wr wr;
	size_t iphl, udplen, total;
	uint8_t *icrc;
	uint32_t crc;

	if (!r || !buf || (r->payload_len && !r->payload))
		return WIRE_ERR_INVAL;
	if (r->ip_version != 4 && r->ip_version != 6)
		return WIRE_ERR_INVAL;
	iphl = r->ip_version == 4 ? IP4_MIN_LEN : IP6_LEN;
	udplen = UDP_LEN + wire_ib_transport_len(r) + ICRC_LEN;
	total = iphl + udplen;
	if (udplen > 0xffff || (r->ip_version == 4 && total > 0xffff))
		return WIRE_ERR_INVAL;
	wire_wr_init(&wr, buf, cap);
	if (r->ip_version == 4) {
		wire_wr_u8(&wr, 0x45);
		wire_wr_u8(&wr, 0);                     /* TOS */
		wire_wr_be16(&wr, (uint16_t)total);
		wire_wr_be16(&wr, 0);                   /* identification */
		wire_wr_be16(&wr, 0x4000);              /* DF */
		wire_wr_u8(&wr, 64);
		wire_wr_u8(&wr, IPPROTO_UDP_NUM);
		wire_wr_be16(&wr, 0);                   /* checksum, below */
		wire_wr_bytes(&wr, r->src, 4);
		wire_wr_bytes(&wr, r->dst, 4);
	} else {
		wire_wr_be32(&wr, 6u << 28);
		wire_wr_be16(&wr, (uint16_t)udplen);
		wire_wr_u8(&wr, IPPROTO_UDP_NUM);
		wire_wr_u8(&wr, 64);
		wire_wr_bytes(&wr, r->src, 16);
		wire_wr_bytes(&wr, r->dst, 16);
	}
	wire_wr_be16(&wr, r->udp_sport);
	wire_wr_be16(&wr, WIRE_ROCE_UDP_PORT);
	wire_wr_be16(&wr, (uint16_t)udplen);
	wire_wr_be16(&wr, 0);   /* rxe sends no UDP checksum; the ICRC covers it */
	wire_ib_transport_encode(r, &wr);
	icrc = wire_wr_take(&wr, ICRC_LEN);
	if (!wire_wr_ok(&wr))
		return WIRE_ERR_NOSPACE;
	if (r->ip_version == 4) {
		uint16_t c = ip4_csum(buf, IP4_MIN_LEN);

		buf[10] = (uint8_t)(c >> 8);
		buf[11] = (uint8_t)c;
	}
	crc = wire_roce_icrc(buf, total - ICRC_LEN);
	for (int i = 0; i < 4; i++)
		icrc[i] = (uint8_t)(crc >> (8 * i));
	return (ssize_t)wr.done;
}
