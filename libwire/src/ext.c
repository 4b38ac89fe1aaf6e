// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ext.c - RDS extension headers in the 16-byte h_exthdr area.
 * Ref: net/rds/message.c rds_exthdr_size[], rds_message_next_extension(),
 * rds_message_add_extension() (6.x: one extension only) and 7.x
 * rds_find_next_ext_space(); net/rds/recv.c rds_recv_hs_exthdrs().
 *
 *   +------+-----------------+------+---------+-----+------+
 *   | type | payload (size   | type | payload | ... | 0    |
 *   |  1   |  implied by type)|      |         |     | (end)|
 *   +------+-----------------+------+---------+-----+------+
 *   no length byte; the list ends at type 0, at a type >= 16, or at byte 16
 */
#include <wire/wire.h>

#include <string.h>

#include "fld.h"

/* -1: that receiver has no size entry and parses the type as zero-length. */
static const int8_t size_6x[WIRE_EXT_TYPE_MAX] = {
	[0] = 0, [1] = 4, [2] = 4, [3] = 8, [4] = -1, [5] = 2, [6] = 4,
	[7] = -1, [8] = -1, [9] = -1, [10] = -1, [11] = -1, [12] = -1,
	[13] = -1, [14] = -1, [15] = -1,
};

static const int8_t size_7x[WIRE_EXT_TYPE_MAX] = {
	[0] = 0, [1] = 4, [2] = 4, [3] = 8, [4] = 8, [5] = 2, [6] = 4,
	[7] = -1, [8] = 1, [9] = -1, [10] = -1, [11] = -1, [12] = -1,
	[13] = -1, [14] = -1, [15] = -1,
};

/* The non-mainline tree adds CAP_BITS (be32) and CSUM (be32 + bool, padded to 8). */
static const int8_t size_all[WIRE_EXT_TYPE_MAX] = {
	[0] = 0, [1] = 4, [2] = 4, [3] = 8, [4] = 8, [5] = 2, [6] = 4,
	[7] = 4, [8] = 1, [9] = 8, [10] = -1, [11] = -1, [12] = -1,
	[13] = -1, [14] = -1, [15] = -1,
};

const struct wire_tok wire_ext_toks[] = {
	{ WIRE_EXT_NONE, "NONE" },
	{ WIRE_EXT_VERSION, "VERSION" },
	{ WIRE_EXT_RDMA, "RDMA" },
	{ WIRE_EXT_RDMA_DEST, "RDMA_DEST" },
	{ WIRE_EXT_RDMA_BYTES, "RDMA_BYTES" },
	{ WIRE_EXT_NPATHS, "NPATHS" },
	{ WIRE_EXT_GEN_NUM, "GEN_NUM" },
	{ WIRE_EXT_CAP_BITS, "CAP_BITS" },
	{ WIRE_EXT_SPORT_IDX, "SPORT_IDX" },
	{ WIRE_EXT_CSUM, "CSUM" },
	{ 0, NULL },
};

const struct wire_tok wire_rdma_status_toks[] = {
	{ 0, "SUCCESS" }, { 1, "REMOTE_ERROR" }, { 2, "CANCELED" }, { 3, "DROPPED" },
	{ 4, "OTHER_ERROR" }, { 0, NULL },
};

static const int8_t *size_table(enum wire_kver kv)
{
	switch (kv) {
	case WIRE_KVER_6:
		return size_6x;
	case WIRE_KVER_7:
		return size_7x;
	default:
		return size_all;
	}
}

int wire_ext_size(unsigned type, enum wire_kver kv)
{
	if (type >= WIRE_EXT_TYPE_MAX)
		return -1;
	return size_table(kv)[type];
}

const char *wire_ext_name(unsigned type)
{
	return wire_tok_name(wire_ext_toks, type);
}

void wire_ext_iter_init(struct wire_ext_iter *it, const uint8_t ext[WIRE_EXT_SPACE],
			enum wire_kver kv)
{
	it->p = ext;
	it->pos = 0;
	it->kv = kv;
	it->done = false;
}

/*
 * The payload of each type that has fields, in wire order, all big-endian
 * but RDMA_BYTES' pad. CSUM has none: its bytes stay raw in val.
 */
#define F(type, member, kind) \
	WIRE_FLD_OF(WIRE_EXT_##type, struct wire_ext, u.member, WIRE_FLD_##kind, false)

static const struct wire_fld ext_flds[] = {
	F(VERSION, version, BE),
	F(RDMA, rdma_rkey, BE),
	F(RDMA_DEST, rdma_dest.rkey, BE),
	F(RDMA_DEST, rdma_dest.offset, BE),
	F(RDMA_BYTES, rdma_bytes.bytes, BE),
	F(RDMA_BYTES, rdma_bytes.rflags, BE),
	F(RDMA_BYTES, rdma_bytes.pad, BYTES),
	F(NPATHS, npaths, BE),
	F(GEN_NUM, gen_num, BE),
	F(CAP_BITS, cap_bits, BE),
	F(SPORT_IDX, sport_idx, BE),
};

#undef F

static void ext_values(struct wire_ext *e)
{
	struct wire_rd rd;

	wire_rd_init(&rd, e->val, e->len);
	memset(&e->u, 0, sizeof(e->u));
	if (e->known)
		wire_fld_read(&rd, ext_flds, WIRE_FLD_N(ext_flds), e->type, e, false);
}

int wire_ext_next(struct wire_ext_iter *it, struct wire_ext *out)
{
	struct wire_rd rd;
	unsigned type;
	int size;

	if (it->done || it->pos >= WIRE_EXT_SPACE)
		goto end;
	wire_rd_init(&rd, it->p + it->pos, WIRE_EXT_SPACE - it->pos);
	type = wire_rd_u8(&rd);
	if (type == WIRE_EXT_NONE || type >= WIRE_EXT_TYPE_MAX)
		goto end;
	size = size_table(it->kv)[type];
	out->type = (uint8_t)type;
	out->off = (uint8_t)it->pos;
	out->known = size >= 0;
	out->len = (uint8_t)(size > 0 ? size : 0);
	out->val = rd.p;
	if (!wire_rd_skip(&rd, out->len)) {
		it->done = true;
		return WIRE_ERR_MALFORMED;
	}
	it->pos += 1u + out->len;
	ext_values(out);
	return 1;
end:
	it->done = true;
	return 0;
}

/* The list a |kv| receiver sees, as (type, offset, length) triples; two
 * generations agree only if every triple matches. */
static int ext_list(const uint8_t ext[WIRE_EXT_SPACE], enum wire_kver kv,
		    uint8_t list[WIRE_EXT_SPACE][3])
{
	struct wire_ext_iter it;
	struct wire_ext e;
	int n = 0;

	wire_ext_iter_init(&it, ext, kv);
	while (wire_ext_next(&it, &e) == 1) {
		list[n][0] = e.type;
		list[n][1] = e.off;
		list[n][2] = e.len;
		n++;
	}
	return n;
}

bool wire_ext_differs_6x(const uint8_t ext[WIRE_EXT_SPACE])
{
	uint8_t l6[WIRE_EXT_SPACE][3], l7[WIRE_EXT_SPACE][3];
	int n6 = ext_list(ext, WIRE_KVER_6, l6);
	int n7 = ext_list(ext, WIRE_KVER_7, l7);

	return n6 != n7 || memcmp(l6, l7, (size_t)n6 * sizeof(l6[0])) != 0;
}

/*
 * A difference between the generations only matters when it changes what a
 * 6.x receiver acts on: an entry of a type 6.x knows that appears in one
 * parse and not at the same offset with the same bytes in the other. A 7.x
 * SPORT_IDX whose dummy byte is 0 merely ends the 6.x list early: harmless.
 */
static bool misparse_6x(const uint8_t ext[WIRE_EXT_SPACE])
{
	uint8_t l6[WIRE_EXT_SPACE][3], l7[WIRE_EXT_SPACE][3];
	int n6 = ext_list(ext, WIRE_KVER_6, l6);
	int n7 = ext_list(ext, WIRE_KVER_7, l7);
	int k6 = 0, k7 = 0;

	for (;;) {
		while (k6 < n6 && wire_ext_size(l6[k6][0], WIRE_KVER_6) <= 0)
			k6++;
		while (k7 < n7 && wire_ext_size(l7[k7][0], WIRE_KVER_6) <= 0)
			k7++;
		if (k6 == n6 || k7 == n7)
			return (k6 == n6) != (k7 == n7);
		if (memcmp(l6[k6], l7[k7], 3) != 0)
			return true;
		k6++;
		k7++;
	}
}

int wire_exts_decode(struct wire_exts *x, const uint8_t ext[WIRE_EXT_SPACE],
		     enum wire_kver kv)
{
	struct wire_ext_iter it;
	uint32_t seen = 0;
	int rc;

	memset(x, 0, sizeof(*x));
	x->kv = kv;
	wire_ext_iter_init(&it, ext, kv);
	while ((rc = wire_ext_next(&it, &x->e[x->count])) == 1) {
		struct wire_ext *e = &x->e[x->count++];

		if (seen & (1u << e->type))
			wire_rules_add(&x->rules, WIRE_RULE_EXT_DUPLICATE);
		seen |= 1u << e->type;
		if (!e->known)
			wire_rules_add(&x->rules, WIRE_RULE_EXT_UNKNOWN);
		if (e->type == WIRE_EXT_CAP_BITS || e->type == WIRE_EXT_CSUM)
			wire_rules_add(&x->rules, WIRE_RULE_EXT_NONMAINLINE);
		if (e->type == WIRE_EXT_VERSION)
			wire_rules_add(&x->rules, WIRE_RULE_EXT_VERSION_SENT);
		if (!e->known)
			continue;
		switch (e->type) {
		case WIRE_EXT_NPATHS:
			x->has_npaths = true;
			x->npaths = e->u.npaths;
			break;
		case WIRE_EXT_GEN_NUM:
			x->has_gen_num = true;
			x->gen_num = e->u.gen_num;
			break;
		case WIRE_EXT_SPORT_IDX:
			x->has_sport_idx = true;
			break;
		default:
			break;
		}
	}
	if (rc == WIRE_ERR_MALFORMED) {
		x->overrun = true;
		wire_rules_add(&x->rules, WIRE_RULE_EXT_OVERRUN);
	}
	x->end = (uint8_t)(it.pos < WIRE_EXT_SPACE ? it.pos : WIRE_EXT_SPACE);
	if (!x->overrun && x->end < WIRE_EXT_SPACE &&
	    ext[x->end] >= WIRE_EXT_TYPE_MAX) {
		x->stopped_high = true;
		wire_rules_add(&x->rules, WIRE_RULE_EXT_TYPE_HIGH);
	}
	/* Bytes after the list: the type byte that ended it counts as the end. */
	for (unsigned i = x->end + 1u; !x->overrun && i < WIRE_EXT_SPACE; i++) {
		if (ext[i]) {
			wire_rules_add(&x->rules, WIRE_RULE_EXT_TRAILING);
			break;
		}
	}
	/* Only a 6.x sender is limited to one; for 7.x several are normal. */
	if (x->count > 1 && kv == WIRE_KVER_6)
		wire_rules_add(&x->rules, WIRE_RULE_EXT_MULTIPLE);
	if (misparse_6x(ext))
		wire_rules_add(&x->rules, WIRE_RULE_EXT_6X_MISPARSE);
	return x->count;
}

static void ext_payload(const struct wire_ext *e, uint8_t *dst, int size)
{
	uint8_t b[8] = { 0 };
	struct wire_wr wr;

	wire_wr_init(&wr, b, sizeof(b));
	wire_fld_write(&wr, ext_flds, WIRE_FLD_N(ext_flds), e->type, e, false);
	/* a type without fields (CSUM): its bytes as given, when given */
	if (!wr.done && e->val)
		memcpy(b, e->val, (size_t)size);
	memcpy(dst, b, (size_t)size);
}

int wire_ext_add(uint8_t ext[WIRE_EXT_SPACE], const struct wire_ext *e, enum wire_kver kv)
{
	struct wire_ext_iter it;
	struct wire_ext cur;
	int size, rc;
	unsigned pos;

	if (!ext || !e || e->type == WIRE_EXT_NONE)
		return WIRE_ERR_INVAL;
	size = wire_ext_size(e->type, kv);
	if (size < 0)
		return WIRE_ERR_INVAL;
	if (kv == WIRE_KVER_6) {
		/* rds_message_add_extension: "refuse to add more than one". */
		if (ext[0] != WIRE_EXT_NONE)
			return 0;
		if (1 + size >= WIRE_EXT_SPACE)
			return WIRE_ERR_NOSPACE;
		ext[0] = e->type;
		ext_payload(e, ext + 1, size);
		ext[1 + size] = WIRE_EXT_NONE;
		return 1;
	}
	/* 7.x: walk what is there; an unknown type means we cannot find the end. */
	wire_ext_iter_init(&it, ext, kv);
	while ((rc = wire_ext_next(&it, &cur)) == 1)
		if (!cur.known)
			return WIRE_ERR_INVAL;
	if (rc < 0)
		return WIRE_ERR_MALFORMED;
	pos = it.pos;
	if (pos + 1u + (unsigned)size > WIRE_EXT_SPACE)
		return WIRE_ERR_NOSPACE;
	ext[pos] = e->type;
	ext_payload(e, ext + pos + 1, size);
	if (pos + 1u + (unsigned)size < WIRE_EXT_SPACE)
		ext[pos + 1 + size] = WIRE_EXT_NONE;
	return 1;
}
