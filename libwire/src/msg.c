// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * msg.c - what kind of message a header is, the rules that depend on the
 * kind, and builders for each kind.
 * Ref: net/rds/recv.c rds_recv_incoming() (ping, probe and pong handling),
 * tcp_recv.c / ib_recv.c (the exact h_flags == 0x01 map test, IB ack-only),
 * send.c rds_send_probe(), cong.c rds_cong_update_alloc(), ib_send.c
 * rds_ib_send_ack().
 */
#include <wire/wire.h>

#include <string.h>

const struct wire_tok wire_kind_toks[] = {
	{ WIRE_KIND_DATA, "data" },
	{ WIRE_KIND_PING, "ping" },
	{ WIRE_KIND_PONG, "pong" },
	{ WIRE_KIND_PROBE_PING, "probe-ping" },
	{ WIRE_KIND_PROBE_PONG, "probe-pong" },
	{ WIRE_KIND_ACK, "ack" },
	{ WIRE_KIND_CONG, "cong" },
	{ 0, NULL },
};

WIRE_TOK_NAMER(wire_kind_name, enum wire_kind, wire_kind_toks)

enum wire_kind wire_classify(const struct wire_hdr *h, enum wire_xport xp)
{
	/* IB tests ack-only before anything else; TCP has no ack frames, so
	 * the same header there is a ping from port 0 that nobody answers. */
	if (xp == WIRE_XPORT_IB && h->sport == 0 && h->dport == 0 && h->len == 0)
		return WIRE_KIND_ACK;
	if (h->flags == WIRE_FLAG_CONG_BITMAP)
		return WIRE_KIND_CONG;
	if (h->dport == 0)
		return h->sport == WIRE_PROBE_PORT ? WIRE_KIND_PROBE_PING : WIRE_KIND_PING;
	if (h->sport == 0)
		return h->dport == WIRE_PROBE_PORT ? WIRE_KIND_PROBE_PONG : WIRE_KIND_PONG;
	return WIRE_KIND_DATA;
}

static bool ext_empty(const struct wire_hdr *h)
{
	for (unsigned i = 0; i < WIRE_EXT_SPACE; i++)
		if (h->ext[i])
			return false;
	return true;
}

/* Extensions a kernel acts on for this kind; anything else is ext.ignored. */
static bool ext_used(enum wire_kind k, uint8_t type, enum wire_kver kv)
{
	switch (k) {
	case WIRE_KIND_DATA:
		return type == WIRE_EXT_RDMA || type == WIRE_EXT_RDMA_DEST;
	case WIRE_KIND_PROBE_PING:
	case WIRE_KIND_PROBE_PONG:
		return type == WIRE_EXT_NPATHS || type == WIRE_EXT_GEN_NUM ||
		       (type == WIRE_EXT_SPORT_IDX && kv != WIRE_KVER_6);
	default:
		return false;
	}
}

static void check_probe(const struct wire_exts *x, struct wire_rules *out)
{
	uint16_t n = x->npaths;

	if (!x->has_npaths)
		wire_rules_add(out, WIRE_RULE_PROBE_NO_NPATHS);
	else if (n == 0 || n > WIRE_MAX_PATHS || (n & (n - 1)))
		wire_rules_add(out, WIRE_RULE_PROBE_NPATHS_RANGE);
	if (x->has_gen_num && x->gen_num == 0)
		wire_rules_add(out, WIRE_RULE_PROBE_GEN_ZERO);
}

int wire_msg_check(const struct wire_hdr *h, enum wire_xport xp, enum wire_kver kv,
		   struct wire_rules *out)
{
	size_t before = wire_rules_count(out);
	enum wire_kind k = wire_classify(h, xp);
	struct wire_exts x;

	if ((h->flags & WIRE_FLAG_CONG_BITMAP) && h->flags != WIRE_FLAG_CONG_BITMAP)
		wire_rules_add(out, WIRE_RULE_CONG_FLAGS_MIXED);

	switch (k) {
	case WIRE_KIND_CONG:
		if (h->len != WIRE_CONG_MAP_BYTES)
			wire_rules_add(out, WIRE_RULE_CONG_LEN);
		if (h->seq)
			wire_rules_add(out, WIRE_RULE_CONG_SEQ);
		if (h->sport || h->dport)
			wire_rules_add(out, WIRE_RULE_CONG_PORTS);
		if (!ext_empty(h))
			wire_rules_add(out, WIRE_RULE_CONG_EXTHDR);
		return (int)(wire_rules_count(out) - before);
	case WIRE_KIND_ACK:
		if (h->seq || h->flags || !ext_empty(h))
			wire_rules_add(out, WIRE_RULE_ACK_ONLY_FIELDS);
		return (int)(wire_rules_count(out) - before);
	case WIRE_KIND_PING:
	case WIRE_KIND_PROBE_PING:
		if (h->len)
			wire_rules_add(out, WIRE_RULE_PING_PAYLOAD);
		if (k == WIRE_KIND_PING && h->sport == 0)
			wire_rules_add(out, WIRE_RULE_PING_FROM_PORT0);
		break;
	case WIRE_KIND_PONG:
	case WIRE_KIND_PROBE_PONG:
		if (h->len)
			wire_rules_add(out, WIRE_RULE_PONG_PAYLOAD);
		break;
	default:
		break;
	}
	/* A ping from port 0 is ignored before it is sequenced, so 0 is fine there. */
	if (h->seq == 0 && !(k == WIRE_KIND_PING && h->sport == 0))
		wire_rules_add(out, WIRE_RULE_SEQ_ZERO);

	wire_exts_decode(&x, h->ext, kv);
	wire_rules_merge(out, &x.rules);
	for (unsigned i = 0; i < x.count; i++)
		if (!ext_used(k, x.e[i].type, kv))
			wire_rules_add(out, WIRE_RULE_EXT_ON_DATA_IGNORED);
	if (k == WIRE_KIND_PROBE_PING || k == WIRE_KIND_PROBE_PONG)
		check_probe(&x, out);
	return (int)(wire_rules_count(out) - before);
}

void wire_build_data(struct wire_hdr *h, uint64_t seq, uint16_t sport, uint16_t dport,
		     uint32_t len)
{
	memset(h, 0, sizeof(*h));
	h->seq = seq;
	h->sport = sport;
	h->dport = dport;
	h->len = len;
}

void wire_build_ping(struct wire_hdr *h, uint64_t seq, uint16_t sport)
{
	wire_build_data(h, seq, sport, 0, 0);
}

void wire_build_pong(struct wire_hdr *h, uint64_t seq, uint16_t dport)
{
	wire_build_data(h, seq, 0, dport, 0);
}

void wire_build_probe(struct wire_hdr *h, bool pong, uint64_t seq, enum wire_kver kv,
		      uint16_t npaths, uint32_t gen_num)
{
	struct wire_ext e = { 0 };

	wire_build_data(h, seq, pong ? 0 : WIRE_PROBE_PORT, pong ? WIRE_PROBE_PORT : 0, 0);
	/* The same three calls rds_send_probe() makes; a 6.x header keeps only
	 * the first, which is exactly what 6.x kernels put on the wire. */
	e.type = WIRE_EXT_NPATHS;
	e.u.npaths = npaths;
	wire_ext_add(h->ext, &e, kv);
	e.type = WIRE_EXT_GEN_NUM;
	e.u.gen_num = gen_num;
	wire_ext_add(h->ext, &e, kv);
	if (kv != WIRE_KVER_6) {
		memset(&e.u, 0, sizeof(e.u));
		e.type = WIRE_EXT_SPORT_IDX;
		wire_ext_add(h->ext, &e, kv);
	}
}

void wire_build_ack(struct wire_hdr *h, uint64_t ack, uint8_t credit)
{
	memset(h, 0, sizeof(*h));
	h->ack = ack;
	h->credit = credit;
	wire_hdr_csum_set(h);
}

void wire_build_cong(struct wire_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->len = WIRE_CONG_MAP_BYTES;
	h->flags = WIRE_FLAG_CONG_BITMAP;
}
