// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_ibpd.c - IB CM private data codec, version negotiation and adoption. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "cmain.h"

#include <wire/wire.h>

#include "hex.h"

/* 10.0.0.1 -> 10.0.0.2, 3.1, mask 0x0003, tos 0, ack_seq 0, credit 0:
 * what a 6.1 kernel's rds_ib_cm_fill_conn_param() puts in a REQ. */
static const char v4_kat[] =
	"0a 00 00 01  0a 00 00 02\n"      /* saddr, daddr */
	"03 01 00 03  00 00 00 00\n"      /* major minor mask | tos r1 r2 */
	"00 00 00 00 00 00 00 00\n"       /* ack_seq */
	"00 00 00 00  00 00 00 00\n";     /* credit | pad */

/* 2001:db8::1 -> 2001:db8::2, 3.1, mask 0x0003, tos 3, ack_seq 0x1122..88. */
static const char v6_kat[] =
	"20 01 0d b8 00 00 00 00 00 00 00 00 00 00 00 01\n"
	"20 01 0d b8 00 00 00 00 00 00 00 00 00 00 00 02\n"
	"03 01 00 03  03 00 00 00\n"
	"11 22 33 44 55 66 77 88\n"
	"00 00 00 00  00 00 00 00\n";

/* The vector |hex|, |len| bytes, decodes as |family| into |pd| and encodes
 * back to the same bytes, nothing written past them. */
static void identity(struct wire_ibpd *pd, int family, const char *hex, size_t len)
{
	uint8_t in[64], out[64];

	assert_int_equal(hex_decode(hex, in, sizeof(in)), len);
	assert_int_equal(wire_ibpd_decode(pd, family, in, len), (ssize_t)len);
	memset(out, 0xee, sizeof(out));
	assert_int_equal(wire_ibpd_encode(pd, out, sizeof(out)), (ssize_t)len);
	assert_memory_equal(out, in, len);
	assert_int_equal(out[len], 0xee);
}

static void test_ibpd_decode_v4_known_answer(void **state)
{
	struct wire_ibpd pd;

	(void)state;
	identity(&pd, 4, v4_kat, WIRE_IBPD_V4_LEN);
	assert_int_equal(pd.family, 4);
	assert_memory_equal(pd.saddr, "\x0a\x00\x00\x01", 4);
	assert_memory_equal(pd.daddr, "\x0a\x00\x00\x02", 4);
	assert_int_equal(pd.major, 3);
	assert_int_equal(pd.minor, 1);
	assert_int_equal(pd.minor_mask, WIRE_IB_SUPPORTED_MINORS);
	assert_int_equal(pd.tos, 0);
	assert_int_equal(pd.ack_seq, 0);
	assert_int_equal(pd.credit, 0);
	assert_int_equal(pd.extra, 0);
	assert_true(wire_rules_empty(&pd.rules));
}

static void test_ibpd_decode_v6_known_answer(void **state)
{
	static const uint8_t sa[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	static const uint8_t da[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };
	struct wire_ibpd pd;

	(void)state;
	identity(&pd, 6, v6_kat, WIRE_IBPD_V6_LEN);
	assert_int_equal(pd.family, 6);
	assert_memory_equal(pd.saddr, sa, 16);
	assert_memory_equal(pd.daddr, da, 16);
	assert_int_equal(pd.major, 3);
	assert_int_equal(pd.minor, 1);
	assert_int_equal(pd.minor_mask, 0x0003);
	assert_int_equal(pd.tos, 3);
	assert_true(pd.ack_seq == UINT64_C(0x1122334455667788));
	assert_int_equal(pd.credit, 0);
	assert_true(wire_rules_empty(&pd.rules));
}

/* Encoding a struct built from scratch gives the known-answer bytes. */
static void test_ibpd_encode_from_fields(void **state)
{
	struct wire_ibpd pd = { .family = 4, .major = 3, .minor = 1,
				.minor_mask = WIRE_IB_SUPPORTED_MINORS };
	uint8_t want[64], out[WIRE_IBPD_V4_LEN];

	(void)state;
	hex_decode(v4_kat, want, sizeof(want));
	memcpy(pd.saddr, "\x0a\x00\x00\x01", 4);
	memcpy(pd.daddr, "\x0a\x00\x00\x02", 4);
	assert_int_equal(wire_ibpd_encode(&pd, out, sizeof(out)), WIRE_IBPD_V4_LEN);
	assert_memory_equal(out, want, WIRE_IBPD_V4_LEN);
	assert_int_equal(wire_ibpd_encode(&pd, out, sizeof(out) - 1), WIRE_ERR_NOSPACE);
	pd.family = 6;
	assert_int_equal(wire_ibpd_encode(&pd, out, sizeof(out)), WIRE_ERR_NOSPACE);
}

/* Reserved, tail padding and credit survive decode -> encode, and are flagged. */
static void test_ibpd_roundtrip_nonzero_reserved(void **state)
{
	static const char v4_odd[] =
		"c0 a8 01 02  c0 a8 01 03\n"
		"04 07 ff ff  e0 aa bb cc\n"      /* 4.7, mask ffff, tos e0, r1 aa, r2 bbcc */
		"00 00 00 00 00 00 00 09\n"
		"00 00 01 00  de ad be ef\n";     /* credit 256, pad */
	static const char v6_odd[] =
		"fe 80 00 00 00 00 00 00 02 11 22 ff fe 33 44 55\n"
		"fe 80 00 00 00 00 00 00 02 11 22 ff fe 33 44 66\n"
		"03 01 00 03  00 01 00 00\n"      /* r1 = 1 only */
		"00 00 00 00 00 00 00 00\n"
		"00 00 00 00  00 00 00 80\n";     /* last pad byte */
	struct wire_ibpd pd;

	(void)state;
	identity(&pd, 4, v4_odd, WIRE_IBPD_V4_LEN);
	assert_int_equal(pd.reserved1, 0xaa);
	assert_int_equal(pd.reserved2, 0xbbcc);
	assert_memory_equal(pd.pad, "\xde\xad\xbe\xef", 4);
	assert_int_equal(pd.credit, 256);
	assert_true(wire_rules_has(&pd.rules, WIRE_RULE_IBPD_RESERVED));
	assert_true(wire_rules_has(&pd.rules, WIRE_RULE_IBPD_CREDIT));
	assert_true(wire_rules_has(&pd.rules, WIRE_RULE_IBPD_MASK));
	/* 4.x with supported bits in the mask is accepted: no version rule */
	assert_false(wire_rules_has(&pd.rules, WIRE_RULE_IBPD_VERSION));

	identity(&pd, 6, v6_odd, WIRE_IBPD_V6_LEN);
	assert_int_equal(wire_rules_count(&pd.rules), 1);
	assert_true(wire_rules_has(&pd.rules, WIRE_RULE_IBPD_RESERVED));
}

/* IPv4 over rdma_cm: the REQ leaves 56 user bytes, the kernel fills 32. */
static void test_ibpd_longer_blob_sets_extra(void **state)
{
	uint8_t in[WIRE_IBPD_V6_LEN + 40] = { 0 }, out[WIRE_IBPD_V6_LEN];
	struct wire_ibpd pd;

	(void)state;
	hex_decode(v4_kat, in, sizeof(in));
	assert_int_equal(wire_ibpd_decode(&pd, 4, in, 56), WIRE_IBPD_V4_LEN);
	assert_int_equal(pd.extra, 24);
	assert_int_equal(pd.major, 3);

	hex_decode(v6_kat, in, sizeof(in));
	assert_int_equal(wire_ibpd_decode(&pd, 6, in, sizeof(in)), WIRE_IBPD_V6_LEN);
	assert_int_equal(pd.extra, 40);
	assert_int_equal(wire_ibpd_encode(&pd, out, sizeof(out)), WIRE_IBPD_V6_LEN);
	assert_memory_equal(out, in, WIRE_IBPD_V6_LEN);
}

static void test_ibpd_trunc_every_offset(void **state)
{
	uint8_t in[64];
	struct wire_ibpd pd;
	size_t i;

	(void)state;
	hex_decode(v4_kat, in, sizeof(in));
	for (i = 0; i < WIRE_IBPD_V4_LEN; i++) {
		assert_int_equal(wire_ibpd_decode(&pd, 4, in, i), WIRE_ERR_TRUNC);
		/* short -> the passive side assumes 4.0; nothing -> reject */
		assert_int_equal(wire_rules_count(&pd.rules), 1);
		assert_true(wire_rules_has(&pd.rules, i ? WIRE_RULE_IBPD_SHORT :
							  WIRE_RULE_IBPD_VERSION));
	}
	hex_decode(v6_kat, in, sizeof(in));
	for (i = 0; i < WIRE_IBPD_V6_LEN; i++) {
		assert_int_equal(wire_ibpd_decode(&pd, 6, in, i), WIRE_ERR_TRUNC);
		assert_true(wire_rules_has(&pd.rules, i ? WIRE_RULE_IBPD_SHORT :
							  WIRE_RULE_IBPD_VERSION));
	}
	assert_int_equal(wire_ibpd_decode(&pd, 6, NULL, 0), WIRE_ERR_TRUNC);
}

static void test_ibpd_bad_arguments(void **state)
{
	uint8_t in[64] = { 0 };
	struct wire_ibpd pd = { .family = 5 };

	(void)state;
	assert_int_equal(wire_ibpd_decode(&pd, 5, in, sizeof(in)), WIRE_ERR_INVAL);
	assert_int_equal(wire_ibpd_decode(&pd, 0, in, sizeof(in)), WIRE_ERR_INVAL);
	assert_int_equal(wire_ibpd_decode(NULL, 4, in, sizeof(in)), WIRE_ERR_INVAL);
	assert_int_equal(wire_ibpd_decode(&pd, 4, NULL, 32), WIRE_ERR_INVAL);
	pd.family = 5;
	assert_int_equal(wire_ibpd_encode(&pd, in, sizeof(in)), WIRE_ERR_INVAL);
	assert_int_equal(wire_ibpd_encode(NULL, in, sizeof(in)), WIRE_ERR_INVAL);
	pd.family = 4;
	assert_int_equal(wire_ibpd_encode(&pd, NULL, 32), WIRE_ERR_INVAL);
	assert_int_equal(wire_ibpd_encode(&pd, NULL, 0), WIRE_ERR_NOSPACE);
}

struct nego_case {
	const char *name;
	int family;
	bool null_buf;
	size_t len;             /* bytes passed; the blob is always full size */
	uint8_t major, minor;
	uint16_t mask;
	uint16_t want;
};

/* Every branch of rds_ib_protocol_compatible(). */
static const struct nego_case nego_cases[] = {
	{ "no private data (NULL)", 4, true, 32, 3, 1, 3, 0 },
	{ "no private data (len 0)", 4, false, 0, 3, 1, 3, 0 },
	{ "v6 no private data", 6, false, 0, 3, 1, 3, 0 },
	{ "v4 short -> 4.0", 4, false, 31, 3, 1, 3, WIRE_IBVER_4_0 },
	{ "v4 one byte -> 4.0", 4, false, 1, 2, 0, 0, WIRE_IBVER_4_0 },
	{ "v6 short (v4-sized) -> 4.0", 6, false, 32, 3, 1, 3, WIRE_IBVER_4_0 },
	{ "v6 short by one -> 4.0", 6, false, 55, 9, 9, 0, WIRE_IBVER_4_0 },
	{ "major 0 -> 4.0", 4, false, 32, 0, 0, 0, WIRE_IBVER_4_0 },
	{ "major 0 any minor/mask -> 4.0", 6, false, 56, 0, 7, 0xffff, WIRE_IBVER_4_0 },
	{ "4.0 mask 1", 4, false, 32, 4, 0, 0x0001, WIRE_IBVER_4_0 },
	{ "4.1 mask 3", 4, false, 32, 4, 1, 0x0003, WIRE_IBVER_4_1 },
	{ "4.x mask 2 -> 4.1", 6, false, 56, 4, 0, 0x0002, WIRE_IBVER_4_1 },
	{ "4.x mask ffff -> 4.1", 4, false, 32, 4, 9, 0xffff, WIRE_IBVER_4_1 },
	{ "4.x mask only unknown bits", 4, false, 32, 4, 2, 0xfffc, 0 },
	{ "4.x mask 0", 6, false, 56, 4, 1, 0x0000, 0 },
	{ "3.1", 4, false, 32, 3, 1, 0x0003, WIRE_IBVER_3_1 },
	{ "3.1 mask 0", 6, false, 56, 3, 1, 0x0000, WIRE_IBVER_3_1 },
	{ "3.1 longer blob", 4, false, 56, 3, 1, 0x0003, WIRE_IBVER_3_1 },
	{ "3.0", 4, false, 32, 3, 0, 0x0003, 0 },
	{ "3.2", 4, false, 32, 3, 2, 0x0003, 0 },
	{ "2.0", 4, false, 32, 2, 0, 0x0000, 0 },
	{ "2.1 mask 3", 6, false, 56, 2, 1, 0x0003, 0 },
	{ "5.0 mask 3", 4, false, 32, 5, 0, 0x0003, 0 },
	{ "5.1", 6, false, 56, 5, 1, 0x0000, 0 },
	{ "255.255", 4, false, 32, 255, 255, 0xffff, 0 },
	{ "family 5", 5, false, 56, 3, 1, 3, 0 },
};

static void test_ib_negotiate_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(nego_cases) / sizeof(nego_cases[0]); i++) {
		const struct nego_case *c = &nego_cases[i];
		struct wire_ibpd pd = { .family = c->family == 6 ? 6 : 4,
					.major = c->major, .minor = c->minor,
					.minor_mask = c->mask };
		uint8_t blob[WIRE_IBPD_V6_LEN + 8] = { 0 };
		uint16_t got;

		assert_true(wire_ibpd_encode(&pd, blob, sizeof(blob)) > 0);
		got = wire_ib_negotiate(c->null_buf ? NULL : blob, c->len, c->family);
		if (got != c->want)
			fail_msg("%s: got 0x%04x want 0x%04x", c->name, got, c->want);

		/* The decoder's version rule agrees with the passive side. */
		if (!c->null_buf && c->family == pd.family &&
		    wire_ibpd_decode(&pd, c->family, blob, c->len) >= 0 &&
		    wire_rules_has(&pd.rules, WIRE_RULE_IBPD_VERSION) != (c->want == 0))
			fail_msg("%s: ib.pd.version disagrees with negotiate", c->name);
	}
}

static void test_ib_adopt(void **state)
{
	struct wire_ibpd rep = { .family = 4 };

	(void)state;
	/* REP too short or absent: the pre-set version (4.1 in the kernel) stays */
	assert_int_equal(wire_ib_adopt(WIRE_IBVER_4_1, NULL), WIRE_IBVER_4_1);
	/* major 0: "empty", keep */
	rep.major = 0;
	rep.minor = 9;
	assert_int_equal(wire_ib_adopt(WIRE_IBVER_4_1, &rep), WIRE_IBVER_4_1);
	assert_int_equal(wire_ib_adopt(WIRE_IBVER_3_1, &rep), WIRE_IBVER_3_1);
	assert_int_equal(wire_ib_adopt(WIRE_IBVER_3_0, &rep), 0);
	/* the REP's choice wins */
	rep.major = 3;
	rep.minor = 1;
	assert_int_equal(wire_ib_adopt(WIRE_IBVER_4_1, &rep), WIRE_IBVER_3_1);
	rep.major = 4;
	rep.minor = 0;
	assert_int_equal(wire_ib_adopt(WIRE_IBVER_3_1, &rep), WIRE_IBVER_4_0);
	rep.minor = 1;
	assert_int_equal(wire_ib_adopt(WIRE_IBVER_3_1, &rep), WIRE_IBVER_4_1);
	/* anything at or above 3.1 is kept, even versions nobody negotiates */
	rep.major = 5;
	rep.minor = 2;
	assert_int_equal(wire_ib_adopt(WIRE_IBVER_3_1, &rep), 0x0502);
	rep.major = 3;
	rep.minor = 7;
	assert_int_equal(wire_ib_adopt(WIRE_IBVER_3_1, &rep), 0x0307);
	/* below 3.1: the active side drops the connection */
	rep.minor = 0;
	assert_int_equal(wire_ib_adopt(WIRE_IBVER_4_1, &rep), 0);
	rep.major = 2;
	rep.minor = 255;
	assert_int_equal(wire_ib_adopt(WIRE_IBVER_4_1, &rep), 0);
	rep.major = 1;
	assert_int_equal(wire_ib_adopt(WIRE_IBVER_3_1, &rep), 0);
}

/* The negotiated REP a kernel sends back decodes and is adopted as 3.1. */
static void test_ib_negotiate_then_adopt(void **state)
{
	uint8_t req[64];
	struct wire_ibpd rep;
	uint16_t v;
	size_t n;

	(void)state;
	n = hex_decode(v4_kat, req, sizeof(req));
	v = wire_ib_negotiate(req, n, 4);
	assert_int_equal(v, WIRE_IBVER_3_1);
	assert_int_equal(wire_ibpd_decode(&rep, 4, req, n), WIRE_IBPD_V4_LEN);
	rep.major = (uint8_t)(v >> 8);
	rep.minor = (uint8_t)v;
	assert_int_equal(wire_ib_adopt(WIRE_IBVER_4_1, &rep), WIRE_IBVER_3_1);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_ibpd_decode_v4_known_answer),
	cmocka_unit_test(test_ibpd_decode_v6_known_answer),
	cmocka_unit_test(test_ibpd_encode_from_fields),
	cmocka_unit_test(test_ibpd_roundtrip_nonzero_reserved),
	cmocka_unit_test(test_ibpd_longer_blob_sets_extra),
	cmocka_unit_test(test_ibpd_trunc_every_offset),
	cmocka_unit_test(test_ibpd_bad_arguments),
	cmocka_unit_test(test_ib_negotiate_table),
	cmocka_unit_test(test_ib_adopt),
	cmocka_unit_test(test_ib_negotiate_then_adopt))
