// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * pkt.c - from a captured frame to the bytes RDS rides in: link layer
 * (Ethernet with VLAN tags, Linux cooked v1/v2, raw IP, nlmon; native
 * InfiniBand is handed on whole to wire_ib_decode()), IPv4 with
 * options, IPv6 with extension headers, TCP and UDP.
 * Ref: pcap LINKTYPE_* registry; RFC 791, 8200, 9293, 768.
 *
 * The capture may stop before the packet does (snaplen): headers cut short
 * are WIRE_ERR_TRUNC, a payload cut short decodes with payload_caplen <
 * payload_len. Lengths come from the IP header, so Ethernet padding is not
 * taken for payload.
 */
#include <wire/wire.h>

#include <string.h>

#include "rd.h"

#define ETH_P_IPV4 0x0800
#define ETH_P_IPV6 0x86dd
#define ETH_P_8021Q 0x8100
#define ETH_P_8021AD 0x88a8
#define ARPHRD_NETLINK 824

static int l3_ip(struct wire_pkt *p, struct wire_rd *rd);

/*
 * Ethernet: dst(6) src(6) type(2), each VLAN tag adds TCI(2) type(2).
 */
static int link_ethernet(struct wire_pkt *p, struct wire_rd *rd)
{
	uint16_t type;

	wire_rd_skip(rd, 12);
	type = wire_rd_be16(rd);
	while ((type == ETH_P_8021Q || type == ETH_P_8021AD) && wire_rd_ok(rd)) {
		wire_rd_skip(rd, 2);
		type = wire_rd_be16(rd);
		p->vlans++;
	}
	if (!wire_rd_ok(rd))
		return WIRE_ERR_TRUNC;
	p->ethertype = type;
	if (type != ETH_P_IPV4 && type != ETH_P_IPV6)
		return 0;
	return l3_ip(p, rd);
}

/*
 * Linux cooked v1 (16): pkttype(2) hatype(2) halen(2) addr(8) proto(2)
 * Linux cooked v2 (20): proto(2) rsvd(2) ifindex(4) hatype(2) pkttype(1)
 *                       halen(1) addr(8)
 */
static int link_sll(struct wire_pkt *p, struct wire_rd *rd, bool v2)
{
	uint16_t hatype, proto;

	if (v2) {
		proto = wire_rd_be16(rd);
		wire_rd_skip(rd, 6);
		hatype = wire_rd_be16(rd);
		wire_rd_skip(rd, 10);
	} else {
		wire_rd_skip(rd, 2);
		hatype = wire_rd_be16(rd);
		wire_rd_skip(rd, 10);
		proto = wire_rd_be16(rd);
	}
	if (!wire_rd_ok(rd))
		return WIRE_ERR_TRUNC;
	p->sll_proto = proto;
	if (hatype == ARPHRD_NETLINK) {
		p->l3 = WIRE_L3_NETLINK;
		p->payload = rd->p;
		p->payload_caplen = wire_rd_left(rd);
		p->payload_len = p->payload_caplen;
		return 0;
	}
	p->ethertype = proto;
	if (proto != ETH_P_IPV4 && proto != ETH_P_IPV6)
		return 0;
	return l3_ip(p, rd);
}

static void set_payload(struct wire_pkt *p, struct wire_rd *rd, size_t wire_left)
{
	p->payload = rd->p;
	p->payload_len = wire_left;
	p->payload_caplen = wire_rd_left(rd) < wire_left ? wire_rd_left(rd) : wire_left;
}

/*
 * Both start with the ports:
 * TCP: sport(2) dport(2) seq(4) ack(4) doff(4)|rsvd(4) flags(8) window(2)
 *      csum(2) urg(2) options(doff*4 - 20)
 * UDP: sport(2) dport(2) length(2) csum(2)
 */
static int l4(struct wire_pkt *p, struct wire_rd *rd, size_t wire_left)
{
	bool later_fragment = p->ip_fragment && !p->ip_first_fragment;
	unsigned doff;
	uint16_t ulen;

	if (later_fragment || (p->ip_proto != 6 && p->ip_proto != 17)) {
		p->l4 = WIRE_L4_OTHER;
		set_payload(p, rd, wire_left);
		return 0;
	}
	/* set first: a caller told of an error knows it was in here */
	p->l4 = p->ip_proto == 6 ? WIRE_L4_TCP : WIRE_L4_UDP;
	p->sport = wire_rd_be16(rd);
	p->dport = wire_rd_be16(rd);
	if (p->l4 == WIRE_L4_TCP) {
		p->tcp_seq = wire_rd_be32(rd);
		p->tcp_ack = wire_rd_be32(rd);
		doff = (unsigned)(wire_rd_u8(rd) >> 4) * 4;
		p->tcp_flags = wire_rd_u8(rd);
		p->tcp_window = wire_rd_be16(rd);
		wire_rd_skip(rd, 4);
		if (!wire_rd_ok(rd))
			return WIRE_ERR_TRUNC;
		if (doff < 20 || doff > wire_left)
			return WIRE_ERR_MALFORMED;
		if (!wire_rd_skip(rd, doff - 20))
			return WIRE_ERR_TRUNC;
		set_payload(p, rd, wire_left - doff);
		return 0;
	}
	ulen = wire_rd_be16(rd);
	wire_rd_skip(rd, 2);
	if (!wire_rd_ok(rd))
		return WIRE_ERR_TRUNC;
	if (wire_left < 8 || ulen < 8)
		return WIRE_ERR_MALFORMED;
	/* The UDP length may be shorter than the IP payload (padding);
	 * longer is impossible. */
	if (ulen > wire_left)
		return WIRE_ERR_MALFORMED;
	set_payload(p, rd, (size_t)ulen - 8);
	return 0;
}

/*
 * IPv4: ver|ihl(8) tos(8) total(16) id(16) flags|frag(16) ttl(8) proto(8)
 *       csum(16) src(32) dst(32) options((ihl-5)*4)
 */
static int ipv4(struct wire_pkt *p, struct wire_rd *rd)
{
	unsigned ihl;
	uint16_t total, frag;

	p->l3 = WIRE_L3_IPV4;
	ihl = (unsigned)(wire_rd_u8(rd) & 0x0f) * 4;
	wire_rd_skip(rd, 1);
	total = wire_rd_be16(rd);
	wire_rd_skip(rd, 2);
	frag = wire_rd_be16(rd);
	wire_rd_skip(rd, 1);
	p->ip_proto = wire_rd_u8(rd);
	wire_rd_skip(rd, 2);
	wire_rd_copy(rd, p->src, 4);
	wire_rd_copy(rd, p->dst, 4);
	if (!wire_rd_ok(rd))
		return WIRE_ERR_TRUNC;
	if (ihl < 20 || total < ihl)
		return WIRE_ERR_MALFORMED;
	if (!wire_rd_skip(rd, ihl - 20))
		return WIRE_ERR_TRUNC;
	p->l3_len = total;
	p->ip_fragment = (frag & 0x2000) || (frag & 0x1fff);
	p->ip_first_fragment = p->ip_fragment && !(frag & 0x1fff);
	return l4(p, rd, (size_t)total - ihl);
}

/*
 * IPv6: ver|tc|flow(32) payload length(16) next(8) hop limit(8) src(128)
 * dst(128), then extension headers until an upper-layer protocol.
 */
static int ipv6(struct wire_pkt *p, struct wire_rd *rd)
{
	uint16_t plen;
	uint8_t next;
	size_t left;

	p->l3 = WIRE_L3_IPV6;
	wire_rd_skip(rd, 4);
	plen = wire_rd_be16(rd);
	next = wire_rd_u8(rd);
	wire_rd_skip(rd, 1);
	wire_rd_copy(rd, p->src, 16);
	wire_rd_copy(rd, p->dst, 16);
	if (!wire_rd_ok(rd))
		return WIRE_ERR_TRUNC;
	p->l3_len = 40u + plen;
	left = plen;
	for (;;) {
		size_t hl;
		uint8_t nh;

		if (next != 0 && next != 43 && next != 44 && next != 60 && next != 51)
			break;
		nh = wire_rd_u8(rd);
		if (next == 44) {
			uint16_t off;

			wire_rd_skip(rd, 1);
			off = wire_rd_be16(rd);
			wire_rd_skip(rd, 4);
			hl = 8;
			p->ip_fragment = true;
			p->ip_first_fragment = (off & 0xfff8) == 0;
		} else {
			uint8_t l = wire_rd_u8(rd);

			/* AH counts 4-byte units minus 2; the others 8-byte units minus 1 */
			hl = next == 51 ? ((size_t)l + 2) * 4 : ((size_t)l + 1) * 8;
			/* Longer than the payload length allows is wrong whatever
			 * was captured; check that before reading it. */
			if (wire_rd_ok(rd) && hl > left)
				return WIRE_ERR_MALFORMED;
			wire_rd_skip(rd, hl - 2);
		}
		if (!wire_rd_ok(rd))
			return WIRE_ERR_TRUNC;
		if (hl > left)
			return WIRE_ERR_MALFORMED;
		left -= hl;
		next = nh;
	}
	p->ip_proto = next;
	return l4(p, rd, left);
}

static int l3_ip(struct wire_pkt *p, struct wire_rd *rd)
{
	uint8_t v;

	if (wire_rd_left(rd) < 1)
		return WIRE_ERR_TRUNC;
	v = rd->p[0] >> 4;
	p->l3_hdr = rd->p;
	p->l3_caplen = wire_rd_left(rd);
	if (v == 4)
		return ipv4(p, rd);
	if (v == 6)
		return ipv6(p, rd);
	return WIRE_ERR_MALFORMED;
}

int wire_pkt_decode(struct wire_pkt *p, int linktype, const uint8_t *buf, size_t caplen,
		    size_t wirelen)
{
	struct wire_rd rd;
	int rc;

	if (!p || (!buf && caplen))
		return WIRE_ERR_INVAL;
	memset(p, 0, sizeof(*p));
	p->linktype = linktype;
	if (wirelen && caplen > wirelen)
		caplen = wirelen;
	wire_rd_init(&rd, buf, caplen);
	switch (linktype) {
	case WIRE_LINK_ETHERNET:
		rc = link_ethernet(p, &rd);
		break;
	case WIRE_LINK_LINUX_SLL:
	case WIRE_LINK_NETLINK:
		rc = link_sll(p, &rd, false);
		break;
	case WIRE_LINK_LINUX_SLL2:
		rc = link_sll(p, &rd, true);
		break;
	case WIRE_LINK_RAW:
	case WIRE_LINK_IPV4:
	case WIRE_LINK_IPV6:
		rc = l3_ip(p, &rd);
		break;
	case WIRE_LINK_INFINIBAND:
		/* LRH on: the link's own headers are wire_ib_decode()'s */
		p->l3 = WIRE_L3_IB;
		p->l3_hdr = buf;
		p->l3_caplen = caplen;
		p->l3_len = wirelen ? wirelen : caplen;
		return 0;
	default:
		return WIRE_ERR_UNSUPP;
	}
	/* The IP header's length is authoritative, but never beyond what the
	 * link layer carried: a frame cut on the wire is malformed, not padding. */
	if (!wirelen)
		wirelen = caplen;
	/* Netlink has no length of its own at this layer: the frame's is it. */
	if (rc == 0 && p->l3 == WIRE_L3_NETLINK)
		p->payload_len = wirelen - (size_t)(p->payload - buf);
	if (rc == 0 && p->l3_hdr && (p->l3 == WIRE_L3_IPV4 || p->l3 == WIRE_L3_IPV6)) {
		size_t link_hdr = (size_t)(p->l3_hdr - buf);

		if (p->l3_len > wirelen - link_hdr)
			return WIRE_ERR_MALFORMED;
	}
	if (rc == 0 && p->l3_hdr && p->l3_caplen > p->l3_len)
		p->l3_caplen = p->l3_len;
	return rc;
}
