// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * hdr.c - the 48-byte RDS header and its checksum.
 * Ref: net/rds/rds.h struct rds_header, rds_message_make_checksum(),
 * rds_message_verify_checksum(); RFC 1071.
 */
#include <wire/wire.h>

#include <stdio.h>
#include <string.h>

#include "hdrio.h"
#include "wr.h"

/* Each field's size is its struct wire_hdr member's; each offset is the
 * previous field's end. */
#define SZ(m) ((uint8_t)sizeof(((struct wire_hdr *)0)->m))
enum {
	OFF_SEQ = 0,
	OFF_ACK = OFF_SEQ + SZ(seq),
	OFF_LEN = OFF_ACK + SZ(ack),
	OFF_SPORT = OFF_LEN + SZ(len),
	OFF_DPORT = OFF_SPORT + SZ(sport),
	OFF_FLAGS = OFF_DPORT + SZ(dport),
	OFF_CREDIT = OFF_FLAGS + SZ(flags),
	OFF_PAD = OFF_CREDIT + SZ(credit),
	OFF_CSUM = OFF_PAD + SZ(pad),
	OFF_EXT = OFF_CSUM + SZ(csum),
	OFF_END = OFF_EXT + SZ(ext),
};

_Static_assert(OFF_END == WIRE_HDR_LEN,
	       "header fields must add up to 48 bytes (the 3.1 spec's 40 is wrong)");
_Static_assert(OFF_CSUM == 30 && OFF_EXT == 32, "h_csum at 30, h_exthdr at 32 (rds.h)");

const struct wire_hdr_field wire_hdr_fields[WIRE_HF_COUNT] = {
	[WIRE_HF_SEQ] = { "seq", OFF_SEQ, SZ(seq) },
	[WIRE_HF_ACK] = { "ack", OFF_ACK, SZ(ack) },
	[WIRE_HF_LEN] = { "len", OFF_LEN, SZ(len) },
	[WIRE_HF_SPORT] = { "sport", OFF_SPORT, SZ(sport) },
	[WIRE_HF_DPORT] = { "dport", OFF_DPORT, SZ(dport) },
	[WIRE_HF_FLAGS] = { "flags", OFF_FLAGS, SZ(flags) },
	[WIRE_HF_CREDIT] = { "credit", OFF_CREDIT, SZ(credit) },
	[WIRE_HF_PAD] = { "pad", OFF_PAD, SZ(pad) },
	[WIRE_HF_CSUM] = { "csum", OFF_CSUM, SZ(csum) },
	[WIRE_HF_EXT] = { "ext", OFF_EXT, SZ(ext) },
};

uint64_t wire_hdr_get(const struct wire_hdr *h, enum wire_hdr_fid id)
{
	switch (id) {
	case WIRE_HF_SEQ:
		return h->seq;
	case WIRE_HF_ACK:
		return h->ack;
	case WIRE_HF_LEN:
		return h->len;
	case WIRE_HF_SPORT:
		return h->sport;
	case WIRE_HF_DPORT:
		return h->dport;
	case WIRE_HF_FLAGS:
		return h->flags;
	case WIRE_HF_CREDIT:
		return h->credit;
	case WIRE_HF_CSUM:
		return h->csum;
	default:
		return 0;
	}
}

/*
 *  0               8               16      20  22  24 25 26      30  32          48
 *  +---------------+---------------+-------+---+---+--+--+-------+---+-----------+
 *  |  h_sequence   |     h_ack     | h_len |spt|dpt|fl|cr|  pad  |csm| h_exthdr  |
 *  +---------------+---------------+-------+---+---+--+--+-------+---+-----------+
 */
ssize_t wire_hdr_decode(struct wire_hdr *h, const uint8_t *buf, size_t len)
{
	if (!h || (!buf && len))
		return WIRE_ERR_INVAL;
	if (len < WIRE_HDR_LEN)
		return WIRE_ERR_TRUNC;
	wire_hdr_read(h, buf);
	return WIRE_HDR_LEN;
}

ssize_t wire_hdr_encode(const struct wire_hdr *h, uint8_t *buf, size_t cap)
{
	struct wire_wr wr;

	if (!h || (!buf && cap))
		return WIRE_ERR_INVAL;
	if (cap < WIRE_HDR_LEN)
		return WIRE_ERR_NOSPACE;
	wire_wr_init(&wr, buf, WIRE_HDR_LEN);
	wire_wr_be64(&wr, h->seq);
	wire_wr_be64(&wr, h->ack);
	wire_wr_be32(&wr, h->len);
	wire_wr_be16(&wr, h->sport);
	wire_wr_be16(&wr, h->dport);
	wire_wr_u8(&wr, h->flags);
	wire_wr_u8(&wr, h->credit);
	wire_wr_bytes(&wr, h->pad, sizeof(h->pad));
	wire_wr_be16(&wr, h->csum);
	wire_wr_bytes(&wr, h->ext, sizeof(h->ext));
	return WIRE_HDR_LEN;
}

uint16_t wire_csum(const uint8_t *buf, size_t len)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)buf[i] << 8 | buf[i + 1];
	if (i < len)
		sum += (uint32_t)buf[i] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

uint16_t wire_hdr_csum_compute(const struct wire_hdr *h)
{
	struct wire_hdr tmp = *h;
	uint8_t b[WIRE_HDR_LEN];

	tmp.csum = 0;
	wire_hdr_encode(&tmp, b, sizeof(b));
	return wire_csum(b, sizeof(b));
}

void wire_hdr_csum_set(struct wire_hdr *h)
{
	h->csum = wire_hdr_csum_compute(h);
}

/* Verifying over all 48 bytes with the stored value in place must give 0;
 * a zero h_csum means "no checksum" (TCP never sets one). */
bool wire_hdr_csum_ok(const struct wire_hdr *h)
{
	uint8_t b[WIRE_HDR_LEN];

	if (h->csum == 0)
		return true;
	wire_hdr_encode(h, b, sizeof(b));
	return wire_csum(b, sizeof(b)) == 0;
}

const struct wire_tok wire_flag_toks[] = {
	{ WIRE_FLAG_CONG_BITMAP, "CONG_BITMAP" },
	{ WIRE_FLAG_ACK_REQUIRED, "ACK_REQUIRED" },
	{ WIRE_FLAG_RETRANSMITTED, "RETRANSMITTED" },
	{ WIRE_FLAG_HB_PING, "HB_PING" },
	{ WIRE_FLAG_HB_PONG, "HB_PONG" },
	{ WIRE_FLAG_EXTHDR_EXTENSION, "EXTHDR_EXTENSION" },
	{ 0, NULL },
};

const char *wire_flag_name(uint8_t bit)
{
	return wire_tok_name(wire_flag_toks, bit);
}

const char *wire_flag_label(uint8_t bit, char tmp[static 8])
{
	const char *name = wire_flag_name(bit);

	if (name)
		return name;
	snprintf(tmp, 8, "0x%02x", bit);
	return tmp;
}

size_t wire_flags_str(uint8_t flags, char *buf, size_t cap)
{
	char all[128]; /* every name plus two unknown bits fits */
	size_t n = 0;

	if (!flags)
		n = (size_t)snprintf(all, sizeof(all), "none");
	for (unsigned i = 0; i < 8; i++) {
		char tmp[8];

		if (flags & (1u << i))
			n += (size_t)snprintf(all + n, sizeof(all) - n, "%s%s", n ? "|" : "",
					      wire_flag_label((uint8_t)(1u << i), tmp));
	}
	if (cap)
		snprintf(buf, cap, "%s", all);
	return n;
}

int wire_hdr_check(const struct wire_hdr *h, enum wire_xport xp,
		   const struct wire_limits *lim, struct wire_rules *out)
{
	struct wire_rules before = *out;
	uint32_t max = lim && lim->max_len ? lim->max_len : WIRE_MAX_MSG_LEN;
	bool probe = (h->sport == WIRE_PROBE_PORT && h->dport == 0) ||
		     (h->sport == 0 && h->dport == WIRE_PROBE_PORT);

	if (h->len > max)
		wire_rules_add(out, WIRE_RULE_HDR_LEN_MAX);
	if (!wire_hdr_csum_ok(h))
		wire_rules_add(out, WIRE_RULE_HDR_CSUM_BAD);
	if (h->pad[0] | h->pad[1] | h->pad[2] | h->pad[3])
		wire_rules_add(out, WIRE_RULE_HDR_PAD_NONZERO);
	if (h->flags & 0xc0)
		wire_rules_add(out, WIRE_RULE_HDR_FLAGS_UNKNOWN);
	if (h->flags & (WIRE_FLAG_HB_PING | WIRE_FLAG_HB_PONG))
		wire_rules_add(out, WIRE_RULE_HDR_FLAGS_HEARTBEAT);
	if (!probe && (h->sport == WIRE_PROBE_PORT || h->dport == WIRE_PROBE_PORT))
		wire_rules_add(out, WIRE_RULE_HDR_PROBE_PORT_DATA);
	if (xp == WIRE_XPORT_TCP) {
		if (h->csum)
			wire_rules_add(out, WIRE_RULE_HDR_CSUM_ON_TCP);
		if (h->ack)
			wire_rules_add(out, WIRE_RULE_HDR_ACK_ON_TCP);
		if (h->credit)
			wire_rules_add(out, WIRE_RULE_HDR_CREDIT_ON_TCP);
		if (h->flags & WIRE_FLAG_ACK_REQUIRED)
			wire_rules_add(out, WIRE_RULE_HDR_ACKREQ_ON_TCP);
		if (h->flags & WIRE_FLAG_EXTHDR_EXTENSION)
			wire_rules_add(out, WIRE_RULE_HDR_EXTFLAG_ON_TCP);
	} else if (h->csum == 0) {
		wire_rules_add(out, WIRE_RULE_HDR_CSUM_MISSING_IB);
	}
	return (int)(wire_rules_count(out) - wire_rules_count(&before));
}
