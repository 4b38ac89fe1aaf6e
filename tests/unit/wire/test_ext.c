// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_ext.c - extension headers: sizes per kernel generation, several in
 * one header, the 6.x one-extension sender rule and the 6.x receiver's
 * mis-parse of 7.x types. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "cmain.h"

#include <wire/wire.h>

#include "hex.h"

static void ext16(const char *hex, uint8_t out[WIRE_EXT_SPACE])
{
	memset(out, 0, WIRE_EXT_SPACE);
	hex_decode(hex, out, WIRE_EXT_SPACE);
}

static void test_ext_sizes(void **state)
{
	static const struct {
		unsigned type;
		int s6, s7, sall;
	} t[] = {
		{ WIRE_EXT_NONE, 0, 0, 0 },
		{ WIRE_EXT_VERSION, 4, 4, 4 },
		{ WIRE_EXT_RDMA, 4, 4, 4 },
		{ WIRE_EXT_RDMA_DEST, 8, 8, 8 },
		{ WIRE_EXT_RDMA_BYTES, -1, 8, 8 },
		{ WIRE_EXT_NPATHS, 2, 2, 2 },
		{ WIRE_EXT_GEN_NUM, 4, 4, 4 },
		{ WIRE_EXT_CAP_BITS, -1, -1, 4 },
		{ WIRE_EXT_SPORT_IDX, -1, 1, 1 },
		{ WIRE_EXT_CSUM, -1, -1, 8 },
		{ 10, -1, -1, -1 },
		{ 15, -1, -1, -1 },
		{ 16, -1, -1, -1 },
		{ 255, -1, -1, -1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_int_equal(wire_ext_size(t[i].type, WIRE_KVER_6), t[i].s6);
		assert_int_equal(wire_ext_size(t[i].type, WIRE_KVER_7), t[i].s7);
		assert_int_equal(wire_ext_size(t[i].type, WIRE_KVER_ALL), t[i].sall);
	}
	assert_string_equal(wire_ext_name(WIRE_EXT_SPORT_IDX), "SPORT_IDX");
	assert_null(wire_ext_name(16));
}

static void test_ext_probe_7x_three(void **state)
{
	uint8_t e[WIRE_EXT_SPACE];
	struct wire_ext_iter it;
	struct wire_ext x;

	(void)state;
	ext16("05 0008 06 11223344 08 00", e);
	wire_ext_iter_init(&it, e, WIRE_KVER_7);
	assert_int_equal(wire_ext_next(&it, &x), 1);
	assert_int_equal(x.type, WIRE_EXT_NPATHS);
	assert_int_equal(x.off, 0);
	assert_int_equal(x.u.npaths, 8);
	assert_int_equal(wire_ext_next(&it, &x), 1);
	assert_int_equal(x.type, WIRE_EXT_GEN_NUM);
	assert_int_equal(x.off, 3);
	assert_int_equal(x.u.gen_num, 0x11223344);
	assert_int_equal(wire_ext_next(&it, &x), 1);
	assert_int_equal(x.type, WIRE_EXT_SPORT_IDX);
	assert_int_equal(x.len, 1);
	assert_true(x.known);
	assert_int_equal(wire_ext_next(&it, &x), 0);
	assert_int_equal(wire_ext_next(&it, &x), 0); /* stays at the end */
}

static void test_ext_6x_receiver_misparses_7x(void **state)
{
	uint8_t e[WIRE_EXT_SPACE];
	struct wire_exts x6, x7;

	(void)state;
	/* RDMA (rkey 0x08050102) then RDMA_BYTES: a 6.x receiver has no size
	 * for type 4, takes it as zero-length and reads its payload bytes as
	 * types: 00 ends the list, so the byte count is lost silently. */
	ext16("02 08050102 04 00001000 01 000000", e);
	wire_exts_decode(&x7, e, WIRE_KVER_7);
	assert_int_equal(x7.count, 2);
	assert_int_equal(x7.e[1].type, WIRE_EXT_RDMA_BYTES);
	assert_int_equal(x7.e[1].u.rdma_bytes.bytes, 0x1000);
	assert_int_equal(x7.e[1].u.rdma_bytes.rflags, WIRE_RDMA_WR_BYTES);
	assert_false(wire_rules_has(&x7.rules, WIRE_RULE_EXT_UNKNOWN));

	wire_exts_decode(&x6, e, WIRE_KVER_6);
	assert_int_equal(x6.count, 2);
	assert_int_equal(x6.e[1].type, WIRE_EXT_RDMA_BYTES);
	assert_false(x6.e[1].known);
	assert_int_equal(x6.e[1].len, 0);
	assert_int_equal(x6.end, 6); /* stopped at the first payload byte 00 */
	assert_true(wire_rules_has(&x6.rules, WIRE_RULE_EXT_UNKNOWN));
	assert_true(wire_ext_differs_6x(e));
	/* ...but 6.x still acts on the same RDMA rkey: no harmful misparse. */
	assert_false(wire_rules_has(&x6.rules, WIRE_RULE_EXT_6X_MISPARSE));

	/* A byte count whose bytes look like NPATHS: 6.x reads a phantom
	 * NPATHS=2 out of RDMA_BYTES' payload. */
	ext16("04 05000200 00 000000", e);
	wire_exts_decode(&x6, e, WIRE_KVER_6);
	assert_true(x6.has_npaths);
	assert_int_equal(x6.npaths, 2);
	assert_true(wire_rules_has(&x6.rules, WIRE_RULE_EXT_6X_MISPARSE));
	wire_exts_decode(&x7, e, WIRE_KVER_7);
	assert_false(x7.has_npaths);
	assert_true(wire_rules_has(&x7.rules, WIRE_RULE_EXT_6X_MISPARSE));

	/* SPORT_IDX with a non-zero dummy byte: 6.x then reads that byte as a
	 * type (here 5, NPATHS) and takes the following bytes as its value. */
	ext16("08 05 0002", e);
	wire_exts_decode(&x6, e, WIRE_KVER_6);
	assert_int_equal(x6.count, 2);
	assert_int_equal(x6.e[1].type, WIRE_EXT_NPATHS);
	assert_int_equal(x6.npaths, 2);
	assert_true(wire_rules_has(&x6.rules, WIRE_RULE_EXT_6X_MISPARSE));
	wire_exts_decode(&x7, e, WIRE_KVER_7);
	assert_int_equal(x7.count, 1);
	assert_false(x7.has_npaths);
	assert_true(wire_rules_has(&x7.rules, WIRE_RULE_EXT_TRAILING));

	/* A plain 6.1 probe is read the same by both generations, and a 7.2
	 * probe differs only harmlessly (SPORT_IDX's 0 ends the 6.x list). */
	ext16("05 0008", e);
	assert_false(wire_ext_differs_6x(e));
	ext16("05 0008 06 11223344 08 00", e);
	assert_true(wire_ext_differs_6x(e));
	wire_exts_decode(&x6, e, WIRE_KVER_6);
	assert_false(wire_rules_has(&x6.rules, WIRE_RULE_EXT_6X_MISPARSE));
	assert_true(wire_rules_has(&x6.rules, WIRE_RULE_EXT_MULTIPLE));
	wire_exts_decode(&x7, e, WIRE_KVER_7);
	assert_false(wire_rules_has(&x7.rules, WIRE_RULE_EXT_MULTIPLE));
}

static void test_ext_stop_rules(void **state)
{
	static const struct {
		const char *hex;
		enum wire_kver kv;
		int count, end, npaths; /* -1: either */
		bool overrun, stopped_high;
		size_t nrules;
		enum wire_rule rules[3];        /* all the rules found */
	} t[] = {
		/* VERSION at 0 (to 4), RDMA_DEST at 5 (to 13), RDMA at 14 needs 4 more */
		{ "01 00000301 03 00001234 00001000 02 00", WIRE_KVER_7, -1, -1, -1, true, false,
		  2, { WIRE_RULE_EXT_OVERRUN, WIRE_RULE_EXT_VERSION_SENT } },
		/* type >= 16 ends the list */
		{ "05 0008 10 ff", WIRE_KVER_7, 1, 3, -1, false, true,
		  2, { WIRE_RULE_EXT_TYPE_HIGH, WIRE_RULE_EXT_TRAILING } },
		/* duplicates (the last one wins, as in the kernel), non-mainline,
		 * trailing garbage after the terminator */
		{ "05 0001 05 0008 07 00000001 00 aa", WIRE_KVER_ALL, 3, -1, 8, false, false,
		  3, { WIRE_RULE_EXT_DUPLICATE, WIRE_RULE_EXT_NONMAINLINE,
		       WIRE_RULE_EXT_TRAILING } },
		/* exactly filling 16 bytes needs no terminator */
		{ "03 01020304 05060708 03 01020304 0506", WIRE_KVER_7, 1, -1, -1, true, false,
		  1, { WIRE_RULE_EXT_OVERRUN } },
		/* 02 at 15 needs 4 bytes */
		{ "06 01020304 06 01020304 06 01020304 02", WIRE_KVER_7, 3, -1, -1, true, false,
		  2, { WIRE_RULE_EXT_OVERRUN, WIRE_RULE_EXT_DUPLICATE } },
		/* 9 + 5 + 2 = 16 exactly */
		{ "03 00000001 00000002 06 00000003 08 00", WIRE_KVER_7, 3, 16, -1, false, false,
		  0, { 0 } },
	};
	uint8_t e[WIRE_EXT_SPACE];
	struct wire_exts x;
	struct wire_ext_iter it;
	struct wire_ext one;

	(void)state;
	ext16(t[0].hex, e);
	wire_ext_iter_init(&it, e, WIRE_KVER_7);
	assert_int_equal(wire_ext_next(&it, &one), 1);
	assert_int_equal(wire_ext_next(&it, &one), 1);
	assert_int_equal(one.u.rdma_dest.rkey, 0x1234);
	assert_int_equal(one.u.rdma_dest.offset, 0x1000);
	assert_int_equal(wire_ext_next(&it, &one), WIRE_ERR_MALFORMED);
	assert_int_equal(wire_ext_next(&it, &one), 0);

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		ext16(t[i].hex, e);
		wire_exts_decode(&x, e, t[i].kv);
		if (t[i].count >= 0)
			assert_int_equal(x.count, t[i].count);
		if (t[i].end >= 0)
			assert_int_equal(x.end, t[i].end);
		if (t[i].npaths >= 0)
			assert_int_equal(x.npaths, t[i].npaths);
		assert_int_equal(x.overrun, t[i].overrun);
		assert_int_equal(x.stopped_high, t[i].stopped_high);
		assert_int_equal(wire_rules_has(&x.rules, WIRE_RULE_EXT_OVERRUN), t[i].overrun);
		assert_int_equal(wire_rules_count(&x.rules), t[i].nrules);
		for (size_t k = 0; k < t[i].nrules; k++)
			if (!wire_rules_has(&x.rules, t[i].rules[k]))
				fail_msg("case %zu: no rule %s", i, wire_rule_name(t[i].rules[k]));
	}
}

static void test_ext_add_6x_one_only(void **state)
{
	uint8_t e[WIRE_EXT_SPACE] = { 0 };
	struct wire_ext x = { .type = WIRE_EXT_NPATHS, .u.npaths = 8 };
	uint8_t want[WIRE_EXT_SPACE];

	(void)state;
	assert_int_equal(wire_ext_add(e, &x, WIRE_KVER_6), 1);
	x.type = WIRE_EXT_GEN_NUM;
	x.u.gen_num = 0x11223344;
	assert_int_equal(wire_ext_add(e, &x, WIRE_KVER_6), 0); /* silently dropped */
	ext16("05 0008", want);
	assert_memory_equal(e, want, sizeof(e));
	/* 6.x has no SPORT_IDX to add at all. */
	memset(e, 0, sizeof(e));
	x.type = WIRE_EXT_SPORT_IDX;
	assert_int_equal(wire_ext_add(e, &x, WIRE_KVER_6), WIRE_ERR_INVAL);
}

static void test_ext_add_7x_appends(void **state)
{
	uint8_t e[WIRE_EXT_SPACE] = { 0 };
	uint8_t want[WIRE_EXT_SPACE];
	struct wire_ext x = { .type = WIRE_EXT_NPATHS, .u.npaths = 8 };

	(void)state;
	assert_int_equal(wire_ext_add(e, &x, WIRE_KVER_7), 1);
	x.type = WIRE_EXT_GEN_NUM;
	x.u.gen_num = 0x11223344;
	assert_int_equal(wire_ext_add(e, &x, WIRE_KVER_7), 1);
	memset(&x.u, 0, sizeof(x.u));
	x.type = WIRE_EXT_SPORT_IDX;
	assert_int_equal(wire_ext_add(e, &x, WIRE_KVER_7), 1);
	ext16("05 0008 06 11223344 08 00", want);
	assert_memory_equal(e, want, sizeof(e));
	/* 10 used; RDMA_DEST needs 9 -> no space; RDMA needs 5 -> fits. */
	x.type = WIRE_EXT_RDMA_DEST;
	assert_int_equal(wire_ext_add(e, &x, WIRE_KVER_7), WIRE_ERR_NOSPACE);
	x.type = WIRE_EXT_RDMA;
	x.u.rdma_rkey = 0xabcdef01;
	assert_int_equal(wire_ext_add(e, &x, WIRE_KVER_7), 1);
	assert_int_equal(e[10], WIRE_EXT_RDMA);
	assert_int_equal(e[11], 0xab);
	/* Unknown type in the area: the end cannot be found, refuse. */
	memset(e, 0, sizeof(e));
	e[0] = 12;
	assert_int_equal(wire_ext_add(e, &x, WIRE_KVER_7), WIRE_ERR_INVAL);
}

static void test_ext_add_roundtrip_every_type(void **state)
{
	(void)state;
	for (unsigned t = 1; t < WIRE_EXT_TYPE_MAX; t++) {
		uint8_t e[WIRE_EXT_SPACE] = { 0 };
		uint8_t raw[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
		struct wire_ext x = { .type = (uint8_t)t, .val = raw };
		struct wire_ext_iter it;
		struct wire_ext y;
		int rc;

		x.u.rdma_dest.rkey = 0x01020304;
		x.u.rdma_dest.offset = 0x05060708;
		rc = wire_ext_add(e, &x, WIRE_KVER_ALL);
		if (wire_ext_size(t, WIRE_KVER_ALL) < 0) {
			assert_int_equal(rc, WIRE_ERR_INVAL);
			continue;
		}
		assert_int_equal(rc, 1);
		wire_ext_iter_init(&it, e, WIRE_KVER_ALL);
		assert_int_equal(wire_ext_next(&it, &y), 1);
		assert_int_equal(y.type, t);
		assert_int_equal(y.len, wire_ext_size(t, WIRE_KVER_ALL));
		assert_int_equal(wire_ext_next(&it, &y), 0);
	}
}

CMOCKA_MAIN(
	cmocka_unit_test(test_ext_sizes),
	cmocka_unit_test(test_ext_probe_7x_three),
	cmocka_unit_test(test_ext_6x_receiver_misparses_7x),
	cmocka_unit_test(test_ext_stop_rules),
	cmocka_unit_test(test_ext_add_6x_one_only),
	cmocka_unit_test(test_ext_add_7x_appends),
	cmocka_unit_test(test_ext_add_roundtrip_every_type))
