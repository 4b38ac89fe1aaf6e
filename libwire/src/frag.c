// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * frag.c - RDS/IB fragmentation: how a message is cut into SENDs and how a
 * receiver puts them back together.
 * Ref: net/rds/ib_send.c rds_ib_xmit(), net/rds/ib_recv.c
 * rds_ib_process_recv(), net/rds/ib.h RDS_FRAG_SIZE.
 */
#include <wire/wire.h>

#include <string.h>

#include "rd.h"

uint32_t wire_frag_count(uint32_t len)
{
	/* Even an empty message needs one SEND to carry its header. */
	if (len == 0)
		return 1;
	/* 64-bit sum: len + 4095 must not wrap for len near 4 GiB. */
	return (uint32_t)(((uint64_t)len + WIRE_FRAG_SIZE - 1) / WIRE_FRAG_SIZE);
}

uint32_t wire_frag_len(uint32_t len, uint32_t i)
{
	uint32_t n = wire_frag_count(len);

	if (i >= n)
		return 0;
	if (i + 1 < n)
		return WIRE_FRAG_SIZE;
	return len - i * WIRE_FRAG_SIZE;
}

/* What both inits share: |r| reset for messages up to |max_len| (0:
 * WIRE_MAX_MSG_LEN) gathered into |buf| of |cap| bytes, which must hold the
 * largest unless only a |prefix| of each payload is kept. */
static int reasm_setup(struct wire_reasm *r, uint32_t max_len, uint8_t *buf, size_t cap,
		       bool prefix)
{
	if (!r || (prefix && !buf && cap))
		return WIRE_ERR_INVAL;
	if (!max_len)
		max_len = WIRE_MAX_MSG_LEN;
	/* A buffer that cannot hold the largest allowed message is a bug. */
	if (!prefix && buf && cap < max_len)
		return WIRE_ERR_INVAL;
	memset(r, 0, sizeof(*r));
	r->max_len = max_len;
	r->buf = buf;
	r->cap = buf ? cap : 0;
	r->prefix = prefix;
	return 0;
}

int wire_reasm_init(struct wire_reasm *r, uint32_t max_len, uint8_t *buf, size_t cap)
{
	return reasm_setup(r, max_len, buf, cap, false);
}

int wire_reasm_init_prefix(struct wire_reasm *r, uint32_t max_len, uint8_t *buf, size_t cap)
{
	return reasm_setup(r, max_len, buf, cap, true);
}

/* The kernel resets the connection here; the partial message is lost. */
static int reasm_fail(struct wire_reasm *r, enum wire_rule why)
{
	r->active = false;
	wire_rules_clear(&r->rules);
	wire_rules_add(&r->rules, why);
	return WIRE_ERR_MALFORMED;
}

/*
 * One IB receive: the 48-byte header (SGE 0) and the fragment (SGE 1).
 *
 *  0                   48                                   48 + n
 *  +-------------------+------------------------------------+
 *  | struct rds_header | fragment payload, n <= 4096 bytes  |
 *  +-------------------+------------------------------------+
 *
 * Every fragment repeats the whole header. seq, len, sport and dport must
 * match the first fragment's; h_ack and h_credit may differ (credits are
 * written into one fragment's copy), so a memcmp would be wrong.
 */
int wire_reasm_input(struct wire_reasm *r, const uint8_t *frame, size_t len,
		     struct wire_frame *out)
{
	struct wire_rd rd;
	struct wire_hdr h;
	const uint8_t *data;
	uint32_t rem, want;
	size_t flen;

	if (!r || !out || (!frame && len))
		return WIRE_ERR_INVAL;
	if (len < WIRE_HDR_LEN)
		return reasm_fail(r, WIRE_RULE_FRAG_FIRST_TOO_SMALL);
	if (wire_hdr_decode(&h, frame, len) != WIRE_HDR_LEN)
		return reasm_fail(r, WIRE_RULE_FRAG_FIRST_TOO_SMALL);
	wire_rd_init(&rd, frame, len);
	wire_rd_skip(&rd, WIRE_HDR_LEN);
	flen = wire_rd_left(&rd);

	/*
	 * Ack-only: the kernel tests the ports and the received length, not
	 * h_len, and handles it before looking at the message in progress.
	 */
	if (h.sport == 0 && h.dport == 0 && flen == 0) {
		memset(out, 0, sizeof(*out));
		out->hdr = h;
		wire_rules_clear(&r->rules);
		return 1;
	}

	if (!r->active) {
		/* Refuse before gathering, so a bogus h_len costs nothing. */
		if (h.len > r->max_len) {
			wire_rules_clear(&r->rules);
			return WIRE_ERR_TOOBIG;
		}
		r->first = h;
		r->got = 0;
		r->frags = 0;
		r->active = true;
	} else if (h.seq != r->first.seq || h.len != r->first.len ||
		   h.sport != r->first.sport || h.dport != r->first.dport) {
		return reasm_fail(r, WIRE_RULE_FRAG_MISMATCH);
	}

	rem = r->first.len - r->got;
	if (flen > WIRE_FRAG_SIZE || flen > rem)
		return reasm_fail(r, WIRE_RULE_FRAG_LONG);
	/*
	 * The kernel counts fragments, not bytes: it takes off 4096 per
	 * fragment whatever arrived, so anything shorter than what it assumes
	 * (4096, or the remainder for the last one) leaves a hole.
	 */
	want = rem < WIRE_FRAG_SIZE ? rem : WIRE_FRAG_SIZE;
	if (flen < want)
		return reasm_fail(r, WIRE_RULE_FRAG_SHORT);

	data = wire_rd_take(&rd, flen);
	if (r->buf && flen && r->got < r->cap) {
		size_t keep = r->cap - r->got;

		memcpy(r->buf + r->got, data, keep < flen ? keep : flen);
	}
	r->got += (uint32_t)flen;
	r->frags++;
	if (r->got < r->first.len)
		return 0;

	r->active = false;
	wire_rules_clear(&r->rules);
	memset(out, 0, sizeof(*out));
	out->hdr = r->first;
	out->payload = r->buf;
	out->len = r->first.len;
	out->caplen = !r->buf ? 0 : r->first.len > r->cap ? (uint32_t)r->cap : r->first.len;
	return 1;
}
