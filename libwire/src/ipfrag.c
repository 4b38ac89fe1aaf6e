// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ipfrag.c - what a reassembler needs of one IPv4 or IPv6 fragment that
 * wire_pkt_decode() marked as one: its datagram's key, its place in the
 * datagram and its bytes. Ref: RFC 791 (fragmentation), RFC 8200 4.5;
 * net/ipv4/ip_fragment.c ip_frag_queue(), net/ipv6/reassembly.c
 * ipv6_frag_rcv() and ip6_frag_queue().
 *
 * IPv4: ver|ihl(8) tos(8) total(16) id(16) flags|offset/8(16) ... options
 * IPv6: fixed header(40), per-fragment extension headers, then
 *       next(8) rsvd(8) offset/8(13)|rsvd(2)|M(1) id(32), the data.
 */
#include <wire/wire.h>

#include <string.h>

#include "rd.h"

#define IPV6_HDR 40u

static int ipfrag_v4(struct wire_ipfrag *f, const struct wire_pkt *p, struct wire_rd *rd)
{
	unsigned ihl;
	uint16_t off;
	size_t end;

	ihl = (unsigned)(wire_rd_u8(rd) & 0x0f) * 4;
	wire_rd_skip(rd, 3);
	f->id = wire_rd_be16(rd);
	off = wire_rd_be16(rd);
	wire_rd_skip(rd, 1);
	f->proto = wire_rd_u8(rd);
	if (!wire_rd_ok(rd))
		return WIRE_ERR_TRUNC;
	if (ihl < 20 || p->l3_len < ihl)
		return WIRE_ERR_MALFORMED;
	f->offset = (uint32_t)(off & 0x1fff) * 8;
	f->more = (off & 0x2000) != 0;
	f->hdr = p->l3_hdr;
	f->hdr_len = ihl;
	f->data_len = p->l3_len - ihl;
	/* ip_frag_queue(): a fragment with more to come ends on an 8-byte
	 * boundary, the rest is cut off */
	if (f->more)
		f->data_len &= ~(size_t)7;
	end = f->offset + f->data_len;
	/* ip_frag_reasm(): the datagram, header included, fits 65535 bytes */
	if ((f->more && !f->data_len) || end + ihl > 65535)
		return WIRE_ERR_MALFORMED;
	wire_rd_init(rd, p->l3_hdr, p->l3_caplen);
	wire_rd_skip(rd, ihl);
	f->data = wire_rd_take(rd, f->data_len);
	return f->data || !f->data_len ? 0 : WIRE_ERR_TRUNC;
}

static int ipfrag_v6(struct wire_ipfrag *f, const struct wire_pkt *p, struct wire_rd *rd)
{
	uint8_t next;
	size_t at = IPV6_HDR;
	uint16_t off;

	wire_rd_skip(rd, 6);
	next = wire_rd_u8(rd);
	wire_rd_skip(rd, 33);
	/* the per-fragment headers come before the fragment header */
	while (wire_rd_ok(rd) && (next == 0 || next == 43 || next == 60 || next == 51)) {
		uint8_t nh = wire_rd_u8(rd);
		uint8_t l = wire_rd_u8(rd);
		size_t hl = next == 51 ? ((size_t)l + 2) * 4 : ((size_t)l + 1) * 8;

		if (!wire_rd_skip(rd, hl - 2))
			return WIRE_ERR_TRUNC;
		at += hl;
		next = nh;
	}
	if (!wire_rd_ok(rd))
		return WIRE_ERR_TRUNC;
	if (next != 44)
		return WIRE_ERR_INVAL;
	f->proto = wire_rd_u8(rd);
	wire_rd_skip(rd, 1);
	off = wire_rd_be16(rd);
	f->id = wire_rd_be32(rd);
	if (!wire_rd_ok(rd))
		return WIRE_ERR_TRUNC;
	at += 8;
	if (p->l3_len < at)
		return WIRE_ERR_MALFORMED;
	f->offset = off & 0xfff8;
	f->more = (off & 1) != 0;
	f->hdr = p->l3_hdr;
	f->hdr_len = IPV6_HDR;
	f->data_len = p->l3_len - at;
	/* ipv6_frag_rcv(): a fragment with more to come and a length not a
	 * multiple of 8 is a parameter problem; the payload fits 65535 */
	if ((f->more && (!f->data_len || (f->data_len & 7))) ||
	    f->offset + f->data_len > 65535)
		return WIRE_ERR_MALFORMED;
	f->data = wire_rd_take(rd, f->data_len);
	return f->data || !f->data_len ? 0 : WIRE_ERR_TRUNC;
}

int wire_ipfrag_decode(struct wire_ipfrag *f, const struct wire_pkt *p)
{
	struct wire_rd rd;

	if (!f || !p || !p->ip_fragment || !p->l3_hdr)
		return WIRE_ERR_INVAL;
	memset(f, 0, sizeof(*f));
	wire_rd_init(&rd, p->l3_hdr, p->l3_caplen);
	if (p->l3 == WIRE_L3_IPV4)
		return ipfrag_v4(f, p, &rd);
	if (p->l3 == WIRE_L3_IPV6)
		return ipfrag_v6(f, p, &rd);
	return WIRE_ERR_INVAL;
}
