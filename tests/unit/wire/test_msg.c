// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_msg.c - classification in the kernel's order, kind rules, builders.
 * The builder outputs are compared byte for byte with the known answers of
 * docs/protocol/header.md and with what the lab saw 6.1 and 7.2 kernels send. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "cmain.h"

#include <wire/wire.h>

#include "hex.h"

static void expect_bytes(const struct wire_hdr *h, const char *hex)
{
	uint8_t got[WIRE_HDR_LEN], want[WIRE_HDR_LEN] = { 0 };

	hex_decode(hex, want, sizeof(want));
	wire_hdr_encode(h, got, sizeof(got));
	assert_memory_equal(got, want, sizeof(got));
}

static void test_builders_match_kernel_bytes(void **state)
{
	struct wire_hdr h;

	(void)state;
	wire_build_probe(&h, false, 1, WIRE_KVER_6, 8, 0x11223344);
	expect_bytes(&h, "0000000000000001 0000000000000000 00000000 0001 0000"
			 "00 00 00000000 0000 05 0008");
	wire_build_probe(&h, false, 1, WIRE_KVER_7, 8, 0x11223344);
	expect_bytes(&h, "0000000000000001 0000000000000000 00000000 0001 0000"
			 "00 00 00000000 0000 05 0008 06 11223344 08 00");
	wire_build_probe(&h, true, 1, WIRE_KVER_7, 8, 0x11223344);
	expect_bytes(&h, "0000000000000001 0000000000000000 00000000 0000 0001"
			 "00 00 00000000 0000 05 0008 06 11223344 08 00");
	wire_build_cong(&h);
	expect_bytes(&h, "0000000000000000 0000000000000000 00002000 0000 0000 01");
	/* Lab: the kernel's pongs to pings from port 4000, seq 2. */
	wire_build_pong(&h, 2, 4000);
	expect_bytes(&h, "0000000000000002 0000000000000000 00000000 0000 0fa0");
	wire_build_ping(&h, 1, 4000);
	expect_bytes(&h, "0000000000000001 0000000000000000 00000000 0fa0 0000");
}

static void test_classify_kernel_order(void **state)
{
	static const struct {
		uint16_t sport, dport;
		uint8_t flags;
		uint32_t len;
		enum wire_kind tcp, ib;
	} t[] = {
		{ 4000, 5000, 0, 10, WIRE_KIND_DATA, WIRE_KIND_DATA },
		{ 4000, 0, 0, 0, WIRE_KIND_PING, WIRE_KIND_PING },
		{ 0, 4000, 0, 0, WIRE_KIND_PONG, WIRE_KIND_PONG },
		{ 1, 0, 0, 0, WIRE_KIND_PROBE_PING, WIRE_KIND_PROBE_PING },
		{ 0, 1, 0, 0, WIRE_KIND_PROBE_PONG, WIRE_KIND_PROBE_PONG },
		{ 0, 0, 0x01, 8192, WIRE_KIND_CONG, WIRE_KIND_CONG },
		/* ports 0/0 and no payload: IB ack-only, TCP ping from port 0 */
		{ 0, 0, 0, 0, WIRE_KIND_PING, WIRE_KIND_ACK },
		/* exactly 0x01: anything more is not a map */
		{ 0, 0, 0x05, 8192, WIRE_KIND_PING, WIRE_KIND_PING },
		{ 4000, 5000, 0x03, 8192, WIRE_KIND_DATA, WIRE_KIND_DATA },
		/* a map with ports set is still a map: the kernel tests flags only */
		{ 4000, 5000, 0x01, 8192, WIRE_KIND_CONG, WIRE_KIND_CONG },
		/* retransmitted ping stays a ping */
		{ 4000, 0, 0x04, 0, WIRE_KIND_PING, WIRE_KIND_PING },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct wire_hdr h;

		wire_build_data(&h, 1, t[i].sport, t[i].dport, t[i].len);
		h.flags = t[i].flags;
		assert_int_equal(wire_classify(&h, WIRE_XPORT_TCP), t[i].tcp);
		assert_int_equal(wire_classify(&h, WIRE_XPORT_IB), t[i].ib);
	}
	assert_string_equal(wire_kind_name(WIRE_KIND_PROBE_PONG), "probe-pong");
	assert_string_equal(wire_kind_name(WIRE_KIND__COUNT), "?");
}

static bool has(const struct wire_hdr *h, enum wire_xport xp, enum wire_kver kv,
		enum wire_rule r)
{
	struct wire_rules s;

	wire_rules_clear(&s);
	wire_msg_check(h, xp, kv, &s);
	return wire_rules_has(&s, r);
}

static void test_msg_rules(void **state)
{
	struct wire_hdr h;
	struct wire_rules s;

	(void)state;
	/* Clean kernel messages raise nothing. */
	wire_build_probe(&h, false, 1, WIRE_KVER_7, 8, 0x11223344);
	wire_rules_clear(&s);
	assert_int_equal(wire_msg_check(&h, WIRE_XPORT_TCP, WIRE_KVER_7, &s), 0);
	wire_build_probe(&h, false, 1, WIRE_KVER_6, 8, 0x11223344);
	assert_int_equal(wire_msg_check(&h, WIRE_XPORT_TCP, WIRE_KVER_6, &s), 0);
	wire_build_cong(&h);
	assert_int_equal(wire_msg_check(&h, WIRE_XPORT_TCP, WIRE_KVER_7, &s), 0);
	wire_build_ack(&h, 5, 0);
	assert_int_equal(wire_msg_check(&h, WIRE_XPORT_IB, WIRE_KVER_7, &s), 0);

	/* Congestion maps. */
	wire_build_cong(&h);
	h.len = 4096;
	assert_true(has(&h, WIRE_XPORT_TCP, WIRE_KVER_7, WIRE_RULE_CONG_LEN));
	wire_build_cong(&h);
	h.seq = 3;
	assert_true(has(&h, WIRE_XPORT_TCP, WIRE_KVER_7, WIRE_RULE_CONG_SEQ));
	wire_build_cong(&h);
	h.dport = 9;
	assert_true(has(&h, WIRE_XPORT_TCP, WIRE_KVER_7, WIRE_RULE_CONG_PORTS));
	wire_build_cong(&h);
	h.ext[0] = WIRE_EXT_NPATHS;
	assert_true(has(&h, WIRE_XPORT_TCP, WIRE_KVER_7, WIRE_RULE_CONG_EXTHDR));
	wire_build_cong(&h);
	h.flags |= WIRE_FLAG_RETRANSMITTED;
	assert_true(has(&h, WIRE_XPORT_TCP, WIRE_KVER_7, WIRE_RULE_CONG_FLAGS_MIXED));

	/* Pings and pongs. */
	wire_build_ping(&h, 1, 4000);
	h.len = 5;
	assert_true(has(&h, WIRE_XPORT_TCP, WIRE_KVER_7, WIRE_RULE_PING_PAYLOAD));
	wire_build_ping(&h, 0, 0);
	assert_true(has(&h, WIRE_XPORT_TCP, WIRE_KVER_7, WIRE_RULE_PING_FROM_PORT0));
	assert_false(has(&h, WIRE_XPORT_TCP, WIRE_KVER_7, WIRE_RULE_SEQ_ZERO));
	wire_build_pong(&h, 1, 4000);
	h.len = 1;
	assert_true(has(&h, WIRE_XPORT_TCP, WIRE_KVER_7, WIRE_RULE_PONG_PAYLOAD));

	/* Probes. */
	wire_build_data(&h, 1, 1, 0, 0);
	assert_true(has(&h, WIRE_XPORT_TCP, WIRE_KVER_7, WIRE_RULE_PROBE_NO_NPATHS));
	wire_build_probe(&h, true, 1, WIRE_KVER_7, 3, 1);
	assert_true(has(&h, WIRE_XPORT_TCP, WIRE_KVER_7, WIRE_RULE_PROBE_NPATHS_RANGE));
	wire_build_probe(&h, true, 1, WIRE_KVER_7, 0, 1);
	assert_true(has(&h, WIRE_XPORT_TCP, WIRE_KVER_7, WIRE_RULE_PROBE_NPATHS_RANGE));
	wire_build_probe(&h, true, 1, WIRE_KVER_7, 16, 1);
	assert_true(has(&h, WIRE_XPORT_TCP, WIRE_KVER_7, WIRE_RULE_PROBE_NPATHS_RANGE));
	wire_build_probe(&h, true, 1, WIRE_KVER_7, 8, 0);
	assert_true(has(&h, WIRE_XPORT_TCP, WIRE_KVER_7, WIRE_RULE_PROBE_GEN_ZERO));
	/* A 7.x probe seen by a 6.x receiver: SPORT_IDX is unknown there. */
	wire_build_probe(&h, false, 1, WIRE_KVER_7, 8, 5);
	assert_true(has(&h, WIRE_XPORT_TCP, WIRE_KVER_6, WIRE_RULE_EXT_UNKNOWN));
	assert_true(has(&h, WIRE_XPORT_TCP, WIRE_KVER_6, WIRE_RULE_EXT_MULTIPLE));
	assert_false(has(&h, WIRE_XPORT_TCP, WIRE_KVER_7, WIRE_RULE_EXT_MULTIPLE));

	/* Sequence 0 on a sequenced message; exthdrs a data receiver ignores. */
	wire_build_data(&h, 0, 4000, 5000, 1);
	assert_true(has(&h, WIRE_XPORT_TCP, WIRE_KVER_7, WIRE_RULE_SEQ_ZERO));
	wire_build_data(&h, 1, 4000, 5000, 1);
	h.ext[0] = WIRE_EXT_NPATHS;
	h.ext[2] = 8;
	assert_true(has(&h, WIRE_XPORT_TCP, WIRE_KVER_7, WIRE_RULE_EXT_ON_DATA_IGNORED));
	h.ext[0] = WIRE_EXT_RDMA;
	assert_false(has(&h, WIRE_XPORT_TCP, WIRE_KVER_7, WIRE_RULE_EXT_ON_DATA_IGNORED));

	/* Ack-only frames with fields set. */
	wire_build_ack(&h, 5, 0);
	h.flags = WIRE_FLAG_ACK_REQUIRED;
	assert_true(has(&h, WIRE_XPORT_IB, WIRE_KVER_7, WIRE_RULE_ACK_ONLY_FIELDS));
}

static void test_rule_table(void **state)
{
	(void)state;
	/* Every rule has a unique, lowercase dotted name, a reference and text,
	 * and the name maps back to the rule. */
	for (unsigned i = 1; i < WIRE_RULE__COUNT; i++) {
		const struct wire_rule_info *ri = wire_rule_info((enum wire_rule)i);

		assert_non_null(ri);
		assert_int_equal(ri->id, i);
		assert_non_null(strchr(ri->name, '.'));
		for (const char *c = ri->name; *c; c++)
			assert_true((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
				    *c == '.' || *c == '_');
		assert_true(strlen(ri->text) > 20);
		assert_true(strlen(ri->ref) > 2);
		assert_true(ri->sev <= WIRE_SEV_ERROR);
		assert_int_equal(wire_rule_by_name(ri->name), i);
		for (unsigned j = 1; j < i; j++)
			assert_string_not_equal(ri->name, wire_rule_name((enum wire_rule)j));
	}
	assert_null(wire_rule_info(WIRE_RULE__COUNT));
	assert_string_equal(wire_rule_name(WIRE_RULE__COUNT), "?");
	assert_int_equal(wire_rule_by_name("no.such.rule"), WIRE_RULE_NONE);
}

static void test_rule_set(void **state)
{
	struct wire_rules s, t;
	unsigned pos = 0;
	enum wire_rule r;

	(void)state;
	wire_rules_clear(&s);
	assert_true(wire_rules_empty(&s));
	assert_int_equal(wire_rules_worst(&s), -1);
	wire_rules_add(&s, WIRE_RULE_NL_MISSING);   /* high in the enum */
	wire_rules_add(&s, WIRE_RULE_HDR_LEN_MAX);
	wire_rules_add(&s, WIRE_RULE_HDR_LEN_MAX);  /* a set: once */
	wire_rules_add(&s, WIRE_RULE__COUNT);       /* ignored */
	wire_rules_add(&s, WIRE_RULE_NONE);         /* ignored */
	assert_int_equal(wire_rules_count(&s), 2);
	assert_int_equal(wire_rules_worst(&s), WIRE_SEV_ERROR);
	assert_int_equal(wire_rules_next(&s, &pos, &r), 1);
	assert_int_equal(r, WIRE_RULE_HDR_LEN_MAX);
	assert_int_equal(wire_rules_next(&s, &pos, &r), 1);
	assert_int_equal(r, WIRE_RULE_NL_MISSING);
	assert_int_equal(wire_rules_next(&s, &pos, &r), 0);
	wire_rules_clear(&t);
	wire_rules_add(&t, WIRE_RULE_EXT_MULTIPLE);
	wire_rules_merge(&t, &s);
	assert_int_equal(wire_rules_count(&t), 3);
	assert_string_equal(wire_strerror(WIRE_ERR_TRUNC), "truncated: more bytes are needed");
	assert_string_equal(wire_strerror(-1), "unknown error");
	assert_non_null(wire_version());
}

CMOCKA_MAIN(
	cmocka_unit_test(test_builders_match_kernel_bytes),
	cmocka_unit_test(test_classify_kernel_order),
	cmocka_unit_test(test_msg_rules),
	cmocka_unit_test(test_rule_table),
	cmocka_unit_test(test_rule_set))
