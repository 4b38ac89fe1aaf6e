// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_hdr.c - the 48-byte header, its checksum, flags and header rules.
 * Vectors: docs/protocol/header.md, Known answers (checksums from an
 * independent RFC 1071 implementation) and the lab captures of
 * docs/kernel-behaviour.md. */
#include <ctype.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "cmain.h"

#include <wire/wire.h>

#include "wtest.h"

static const char probe61[] =
	"00 00 00 00 00 00 00 01 00 00 00 00 00 00 00 00"
	"00 00 00 00 00 01 00 00 00 00 00 00 00 00 00 00"
	"05 00 08 00 00 00 00 00 00 00 00 00 00 00 00 00";
static const char ibdata[] = /* seq 7, len 10, 4000 -> 5000, ACK_REQUIRED, ack 3 */
	"00 00 00 00 00 00 00 07 00 00 00 00 00 00 00 03"
	"00 00 00 0a 0f a0 13 88 02 00 00 00 00 00 da c3"
	"00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00";
static const char iback[] = /* ack-only acking 5 */
	"00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 05"
	"00 00 00 00 00 00 00 00 00 00 00 00 00 00 ff fa"
	"00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00";

/* The header of the vector |hex|; its bytes are left in |b| unless NULL. */
static void hdr_of(const char *hex, uint8_t *b, struct wire_hdr *h)
{
	uint8_t tmp[WIRE_HDR_LEN];

	if (!b)
		b = tmp;
	assert_int_equal(hex_decode(hex, b, WIRE_HDR_LEN), WIRE_HDR_LEN);
	assert_int_equal(wire_hdr_decode(h, b, WIRE_HDR_LEN), WIRE_HDR_LEN);
}

/* wire_hdr_check() into emptied rules. */
static int check(const struct wire_hdr *h, enum wire_xport xp, const struct wire_limits *lim,
		 struct wire_rules *r)
{
	wire_rules_clear(r);
	return wire_hdr_check(h, xp, lim, r);
}

static void test_hdr_decode_fields(void **state)
{
	struct wire_hdr h;

	(void)state;
	hdr_of(ibdata, NULL, &h);
	assert_true(h.seq == 7);
	assert_true(h.ack == 3);
	assert_int_equal(h.len, 10);
	assert_int_equal(h.sport, 4000);
	assert_int_equal(h.dport, 5000);
	assert_int_equal(h.flags, WIRE_FLAG_ACK_REQUIRED);
	assert_int_equal(h.credit, 0);
	assert_int_equal(h.csum, 0xdac3);
}

static void test_hdr_all_offsets(void **state)
{
	/* Every field at its kernel offset, with distinct byte values. */
	uint8_t b[WIRE_HDR_LEN], out[WIRE_HDR_LEN];
	struct wire_hdr h;

	(void)state;
	for (unsigned i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)(i + 1);
	assert_int_equal(wire_hdr_decode(&h, b, sizeof(b)), WIRE_HDR_LEN);
	assert_true(h.seq == 0x0102030405060708ull);
	assert_true(h.ack == 0x090a0b0c0d0e0f10ull);
	assert_int_equal(h.len, 0x11121314);
	assert_int_equal(h.sport, 0x1516);
	assert_int_equal(h.dport, 0x1718);
	assert_int_equal(h.flags, 0x19);
	assert_int_equal(h.credit, 0x1a);
	assert_memory_equal(h.pad, b + 26, 4);
	assert_int_equal(h.csum, 0x1f20);
	assert_memory_equal(h.ext, b + 32, 16);
	assert_int_equal(wire_hdr_encode(&h, out, sizeof(out)), WIRE_HDR_LEN);
	assert_memory_equal(out, b, sizeof(b)); /* padding and all: lossless */
}

static void test_hdr_truncated_every_offset(void **state)
{
	uint8_t b[WIRE_HDR_LEN] = { 0 };
	struct wire_hdr h;

	(void)state;
	for (size_t n = 0; n < WIRE_HDR_LEN; n++)
		assert_int_equal(wire_hdr_decode(&h, b, n), WIRE_ERR_TRUNC);
	assert_int_equal(wire_hdr_decode(&h, b, WIRE_HDR_LEN + 7), WIRE_HDR_LEN);
}

static void test_hdr_encode_nospace(void **state)
{
	struct wire_hdr h = { 0 };
	uint8_t b[WIRE_HDR_LEN];

	(void)state;
	for (size_t n = 0; n < WIRE_HDR_LEN; n++)
		assert_int_equal(wire_hdr_encode(&h, b, n), WIRE_ERR_NOSPACE);
	assert_int_equal(wire_hdr_decode(NULL, b, sizeof(b)), WIRE_ERR_INVAL);
}

static void test_csum_known_answers(void **state)
{
	uint8_t b[WIRE_HDR_LEN];
	struct wire_hdr h;

	(void)state;
	hdr_of(ibdata, b, &h);
	assert_true(wire_hdr_csum_ok(&h));
	assert_int_equal(wire_hdr_csum_compute(&h), 0xdac3);
	assert_int_equal(wire_csum(b, sizeof(b)), 0); /* verifies in place */

	hdr_of(iback, b, &h);
	assert_int_equal(wire_hdr_csum_compute(&h), 0xfffa);
	assert_true(wire_hdr_csum_ok(&h));

	/* Building the same frames from scratch gives the same bytes. */
	wire_build_ack(&h, 5, 0);
	wire_hdr_encode(&h, b, sizeof(b));
	{
		uint8_t want[WIRE_HDR_LEN];

		hex_decode(iback, want, sizeof(want));
		assert_memory_equal(b, want, sizeof(b));
	}
}

static void test_csum_zero_is_absent_and_bad_detected(void **state)
{
	struct wire_hdr h;
	struct wire_rules r;

	(void)state;
	hdr_of(ibdata, NULL, &h);
	h.csum = 0;
	assert_true(wire_hdr_csum_ok(&h));
	h.csum = 0xdac4;
	assert_false(wire_hdr_csum_ok(&h));
	check(&h, WIRE_XPORT_IB, NULL, &r);
	assert_true(wire_rules_has(&r, WIRE_RULE_HDR_CSUM_BAD));
	/* Any single-bit change in a checksummed header is caught. */
	wire_hdr_csum_set(&h);
	for (unsigned byte = 0; byte < WIRE_HDR_LEN; byte++) {
		for (unsigned bit = 0; bit < 8; bit++) {
			uint8_t b[WIRE_HDR_LEN];
			struct wire_hdr t;

			wire_hdr_encode(&h, b, sizeof(b));
			b[byte] ^= (uint8_t)(1u << bit);
			wire_hdr_decode(&t, b, sizeof(b));
			if (t.csum == 0)
				continue; /* flipping the csum to zero means "absent" */
			assert_false(wire_hdr_csum_ok(&t));
		}
	}
}

static void test_csum_odd_length(void **state)
{
	const uint8_t b[3] = { 0x01, 0x02, 0x03 };

	(void)state;
	/* 0x0102 + 0x0300 = 0x0402 -> ~ = 0xfbfd */
	assert_int_equal(wire_csum(b, 3), 0xfbfd);
	assert_int_equal(wire_csum(b, 0), 0xffff);
}

static void test_flags_names(void **state)
{
	static const struct wt_name names[] = {
		{ 0x01, "CONG_BITMAP" }, { 0x02, "ACK_REQUIRED" }, { 0x04, "RETRANSMITTED" },
		{ 0x08, "HB_PING" }, { 0x10, "HB_PONG" }, { 0x20, "EXTHDR_EXTENSION" },
		{ 0x40, NULL }, { 0x03, NULL },
	};
	char buf[128], tmp[8];

	(void)state;
	for (size_t i = 0; i < WT_COUNT(names); i++)
		wt_name_is(wire_flag_name((uint8_t)names[i].v), names[i].name);
	assert_string_equal(wire_flag_label(0x20, tmp), "EXTHDR_EXTENSION");
	assert_string_equal(wire_flag_label(0x40, tmp), "0x40");
	assert_int_equal(wire_flags_str(0, buf, sizeof(buf)), 4);
	assert_string_equal(buf, "none");
	wire_flags_str(0x06, buf, sizeof(buf));
	assert_string_equal(buf, "ACK_REQUIRED|RETRANSMITTED");
	wire_flags_str(0xc1, buf, sizeof(buf));
	assert_string_equal(buf, "CONG_BITMAP|0x40|0x80");
	/* Truncation keeps the return value of the full length. */
	assert_int_equal(wire_flags_str(0x06, buf, 5), strlen("ACK_REQUIRED|RETRANSMITTED"));
	assert_string_equal(buf, "ACK_");
}

static void test_hdr_rules_tcp(void **state)
{
	struct wire_hdr h;
	struct wire_rules r;

	(void)state;
	hdr_of(probe61, NULL, &h);
	assert_int_equal(check(&h, WIRE_XPORT_TCP, NULL, &r), 0);

	/* IB-only fields on TCP are each flagged. */
	hdr_of(ibdata, NULL, &h);
	h.credit = 3;
	h.flags |= WIRE_FLAG_EXTHDR_EXTENSION;
	check(&h, WIRE_XPORT_TCP, NULL, &r);
	assert_true(wire_rules_has(&r, WIRE_RULE_HDR_ACK_ON_TCP));
	assert_true(wire_rules_has(&r, WIRE_RULE_HDR_CREDIT_ON_TCP));
	assert_true(wire_rules_has(&r, WIRE_RULE_HDR_ACKREQ_ON_TCP));
	assert_true(wire_rules_has(&r, WIRE_RULE_HDR_CSUM_ON_TCP));
	assert_true(wire_rules_has(&r, WIRE_RULE_HDR_EXTFLAG_ON_TCP));
	assert_true(wire_rules_has(&r, WIRE_RULE_HDR_CSUM_BAD)); /* credit changed */
}

static void test_hdr_rules_each(void **state)
{
	struct wire_hdr h;
	struct wire_rules r;
	struct wire_limits lim = { .max_len = 100 };

	(void)state;
	wire_build_data(&h, 1, 4000, 5000, WIRE_MAX_MSG_LEN);
	assert_int_equal(check(&h, WIRE_XPORT_TCP, NULL, &r), 0);
	h.len = WIRE_MAX_MSG_LEN + 1;
	wire_hdr_check(&h, WIRE_XPORT_TCP, NULL, &r);
	assert_true(wire_rules_has(&r, WIRE_RULE_HDR_LEN_MAX));

	wire_build_data(&h, 1, 4000, 5000, 101);
	check(&h, WIRE_XPORT_TCP, &lim, &r);
	assert_true(wire_rules_has(&r, WIRE_RULE_HDR_LEN_MAX));

	wire_build_data(&h, 1, 4000, 5000, 1);
	h.pad[2] = 1;
	h.flags = 0x40 | WIRE_FLAG_HB_PING;
	check(&h, WIRE_XPORT_TCP, NULL, &r);
	assert_true(wire_rules_has(&r, WIRE_RULE_HDR_PAD_NONZERO));
	assert_true(wire_rules_has(&r, WIRE_RULE_HDR_FLAGS_UNKNOWN));
	assert_true(wire_rules_has(&r, WIRE_RULE_HDR_FLAGS_HEARTBEAT));

	/* Port 1 outside a probe. */
	wire_build_data(&h, 1, 1, 5000, 1);
	check(&h, WIRE_XPORT_TCP, NULL, &r);
	assert_true(wire_rules_has(&r, WIRE_RULE_HDR_PROBE_PORT_DATA));
	wire_build_probe(&h, true, 3, WIRE_KVER_7, 8, 9);
	assert_int_equal(check(&h, WIRE_XPORT_TCP, NULL, &r), 0);

	/* IB without a checksum is worth knowing, not wrong. */
	wire_build_data(&h, 1, 4000, 5000, 1);
	check(&h, WIRE_XPORT_IB, NULL, &r);
	assert_true(wire_rules_has(&r, WIRE_RULE_HDR_CSUM_MISSING_IB));
	wire_hdr_csum_set(&h);
	assert_int_equal(check(&h, WIRE_XPORT_IB, NULL, &r), 0);
}

/* The layout table is the codec's: a field whose every byte is 0xff on
 * the wire decodes to all ones in that field alone (wire_hdr_get), and
 * encodes back to 0xff exactly at the table's offsets; the fields tile
 * the 48 bytes in order. */
static void test_hdr_layout_table(void **state)
{
	unsigned next = 0;

	(void)state;
	for (unsigned id = 0; id < WIRE_HF_COUNT; id++) {
		const struct wire_hdr_field *f = &wire_hdr_fields[id];
		uint8_t b[WIRE_HDR_LEN] = { 0 }, back[WIRE_HDR_LEN];
		struct wire_hdr h;

		assert_non_null(f->name);
		assert_int_equal(f->off, next);
		next = f->off + f->len;
		memset(b + f->off, 0xff, f->len);
		assert_int_equal(wire_hdr_decode(&h, b, sizeof(b)), WIRE_HDR_LEN);
		for (unsigned o = 0; o < WIRE_HF_COUNT; o++) {
			uint64_t want = 0;

			if (o == id && o != WIRE_HF_PAD && o != WIRE_HF_EXT)
				want = f->len == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * f->len)) - 1;
			assert_true(wire_hdr_get(&h, (enum wire_hdr_fid)o) == want);
		}
		if (id == WIRE_HF_PAD)
			for (unsigned i = 0; i < sizeof(h.pad); i++)
				assert_int_equal(h.pad[i], 0xff);
		if (id == WIRE_HF_EXT)
			for (unsigned i = 0; i < sizeof(h.ext); i++)
				assert_int_equal(h.ext[i], 0xff);
		assert_int_equal(wire_hdr_encode(&h, back, sizeof(back)), WIRE_HDR_LEN);
		assert_memory_equal(back, b, sizeof(b));
	}
	assert_int_equal(next, WIRE_HDR_LEN);
	assert_string_equal(wire_hdr_fields[WIRE_HF_CSUM].name, "csum");
	assert_int_equal(wire_hdr_fields[WIRE_HF_CSUM].off, 30);
}

/* The one hex table: digits and values agree for every byte value. */
static void test_hex_helpers(void **state)
{
	(void)state;
	for (unsigned v = 0; v < 16; v++) {
		char c = wire_hex_digit(v);

		assert_int_equal(wire_hex_value(c), (int)v);
		assert_int_equal(wire_hex_value(toupper((unsigned char)c)), (int)v);
		assert_false(c >= 'A' && c <= 'F');
	}
	assert_int_equal(wire_hex_digit(0x1f), 'f');
	for (int c = 0; c < 256; c++)
		if (!isxdigit(c))
			assert_int_equal(wire_hex_value(c), -1);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_hdr_decode_fields),
	cmocka_unit_test(test_hdr_all_offsets),
	cmocka_unit_test(test_hdr_truncated_every_offset),
	cmocka_unit_test(test_hdr_encode_nospace),
	cmocka_unit_test(test_csum_known_answers),
	cmocka_unit_test(test_csum_zero_is_absent_and_bad_detected),
	cmocka_unit_test(test_csum_odd_length),
	cmocka_unit_test(test_flags_names),
	cmocka_unit_test(test_hdr_rules_tcp),
	cmocka_unit_test(test_hdr_rules_each),
	cmocka_unit_test(test_hdr_layout_table),
	cmocka_unit_test(test_hex_helpers))
