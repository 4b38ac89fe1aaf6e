// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_frag.c - IB fragment arithmetic and the receive-side reassembler. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "cmain.h"

#include <wire/wire.h>

#include "hex.h"

#define FRAME_MAX (WIRE_HDR_LEN + 2 * WIRE_FRAG_SIZE)

static uint8_t gather[WIRE_MAX_MSG_LEN];

/* Payload byte at message offset |off|: never repeats within 251 bytes, so a
 * fragment copied to the wrong place shows. */
static uint8_t pat(uint32_t off)
{
	return (uint8_t)(off % 251 + 1);
}

struct fspec {
	uint64_t seq;
	uint64_t ack;
	uint32_t len;           /* h_len */
	uint16_t sport, dport;
	uint8_t flags, credit;
	uint32_t off;           /* message offset of this fragment's payload */
	uint32_t n;             /* payload bytes carried */
};

static uint8_t frame[FRAME_MAX];

/* Build one SEND as rds_ib_xmit would: header copy (checksummed) + payload. */
static size_t mkframe(const struct fspec *f)
{
	struct wire_hdr h;

	memset(&h, 0, sizeof(h));
	h.seq = f->seq;
	h.ack = f->ack;
	h.len = f->len;
	h.sport = f->sport;
	h.dport = f->dport;
	h.flags = f->flags;
	h.credit = f->credit;
	wire_hdr_csum_set(&h);
	assert_int_equal(wire_hdr_encode(&h, frame, sizeof(frame)), WIRE_HDR_LEN);
	assert_true(f->n <= sizeof(frame) - WIRE_HDR_LEN);
	for (uint32_t i = 0; i < f->n; i++)
		frame[WIRE_HDR_LEN + i] = pat(f->off + i);
	return WIRE_HDR_LEN + f->n;
}

/* Fragment |i| of a well-formed message of |len| bytes. */
static size_t mkfrag(uint64_t seq, uint32_t len, uint32_t i)
{
	struct fspec f = { .seq = seq, .len = len, .sport = 4000, .dport = 5000,
			   .off = i * WIRE_FRAG_SIZE, .n = wire_frag_len(len, i) };

	return mkframe(&f);
}

static size_t mkack(uint64_t ack)
{
	struct fspec f = { .ack = ack };

	return mkframe(&f);
}

/* A reassembler gathering into |gather|, as most tests want it. */
static void init(struct wire_reasm *r)
{
	assert_int_equal(wire_reasm_init(r, 0, gather, sizeof(gather)), 0);
}

/* wire_reasm_input() of the frame |f| describes. */
static int feed(struct wire_reasm *r, const struct fspec *f, struct wire_frame *out)
{
	return wire_reasm_input(r, frame, mkframe(f), out);
}

/* wire_reasm_input() of fragment |i| of the message |seq| of |len| bytes. */
static int frag(struct wire_reasm *r, uint64_t seq, uint32_t len, uint32_t i,
		struct wire_frame *out)
{
	return wire_reasm_input(r, frame, mkfrag(seq, len, i), out);
}

static int ack(struct wire_reasm *r, uint64_t n, struct wire_frame *out)
{
	return wire_reasm_input(r, frame, mkack(n), out);
}

/* Every fragment of the message |seq| of |len| bytes in order: the last
 * one, and only it, completes the message. */
static void whole(struct wire_reasm *r, uint64_t seq, uint32_t len, struct wire_frame *out)
{
	uint32_t n = wire_frag_count(len);

	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(frag(r, seq, len, i, out), i + 1 == n);
}

static void check_payload(const struct wire_frame *out, uint32_t len)
{
	assert_non_null(out->payload);
	for (uint32_t i = 0; i < len; i++)
		if (out->payload[i] != pat(i))
			fail_msg("payload byte %u is %u, want %u", i, out->payload[i], pat(i));
}

static void test_frag_count(void **state)
{
	static const struct { uint32_t len, n; } cases[] = {
		{ 0, 1 }, { 1, 1 }, { 4095, 1 }, { 4096, 1 }, { 4097, 2 },
		{ 8192, 2 }, { 8193, 3 }, { 65536, 16 }, { 1u << 20, 256 },
		{ UINT32_MAX, 1u << 20 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(wire_frag_count(cases[i].len), cases[i].n);
}

static void test_frag_len(void **state)
{
	static const uint32_t lens[] = { 0, 1, 4095, 4096, 4097, 10000, 65536,
					 1u << 20, UINT32_MAX };

	(void)state;
	assert_int_equal(wire_frag_len(0, 0), 0);
	assert_int_equal(wire_frag_len(0, 1), 0);
	assert_int_equal(wire_frag_len(10000, 0), 4096);
	assert_int_equal(wire_frag_len(10000, 1), 4096);
	assert_int_equal(wire_frag_len(10000, 2), 1808);
	assert_int_equal(wire_frag_len(10000, 3), 0);
	assert_int_equal(wire_frag_len(8192, 1), 4096);
	assert_int_equal(wire_frag_len(8192, 2), 0);
	assert_int_equal(wire_frag_len(1, UINT32_MAX), 0);
	for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		uint64_t sum = 0;
		uint32_t n = wire_frag_count(lens[k]);

		for (uint32_t i = 0; i < n; i++) {
			uint32_t fl = wire_frag_len(lens[k], i);

			assert_true(fl <= WIRE_FRAG_SIZE);
			if (i + 1 < n)
				assert_int_equal(fl, WIRE_FRAG_SIZE);
			sum += fl;
		}
		assert_true(sum == lens[k]);
	}
}

static void test_reasm_init(void **state)
{
	struct wire_reasm r;
	uint8_t small[16];

	(void)state;
	assert_int_equal(wire_reasm_init(&r, 0, NULL, 0), 0);
	assert_int_equal(r.max_len, WIRE_MAX_MSG_LEN);
	assert_false(r.active);
	assert_int_equal(wire_reasm_init(&r, 0, gather, sizeof(gather)), 0);
	assert_int_equal(wire_reasm_init(&r, 17, small, sizeof(small)), WIRE_ERR_INVAL);
	assert_int_equal(wire_reasm_init(&r, 0, small, sizeof(small)), WIRE_ERR_INVAL);
	assert_int_equal(wire_reasm_init(&r, 16, small, sizeof(small)), 0);
	assert_int_equal(wire_reasm_init(NULL, 0, NULL, 0), WIRE_ERR_INVAL);
}

static void test_reasm_three_fragments(void **state)
{
	struct wire_reasm r;
	struct wire_frame out;
	size_t n;

	(void)state;
	init(&r);
	assert_int_equal(frag(&r, 7, 10000, 0, &out), 0);
	assert_true(r.active);
	assert_int_equal(frag(&r, 7, 10000, 1, &out), 0);
	n = mkfrag(7, 10000, 2);
	assert_int_equal(n, WIRE_HDR_LEN + 1808);
	assert_int_equal(wire_reasm_input(&r, frame, n, &out), 1);
	assert_false(r.active);
	assert_int_equal(r.frags, 3);
	assert_int_equal(out.len, 10000);
	assert_int_equal(out.hdr.len, 10000);
	assert_true(out.hdr.seq == 7);
	assert_int_equal(out.hdr.sport, 4000);
	assert_int_equal(out.hdr.dport, 5000);
	assert_true(out.payload == gather);
	check_payload(&out, 10000);
	assert_true(wire_rules_empty(&r.rules));
}

/* Prefix mode: a 3-fragment message is checked whole, only 5000 bytes kept;
 * a message far above 1 MiB is still reassembled (headers checked). */
static void test_reasm_prefix_mode(void **state)
{
	static uint8_t keep[5000];
	struct wire_reasm r;
	struct wire_frame out;

	(void)state;
	assert_int_equal(wire_reasm_init_prefix(&r, 0, NULL, 1), WIRE_ERR_INVAL);
	assert_int_equal(wire_reasm_init_prefix(&r, UINT32_MAX, keep, sizeof(keep)), 0);
	whole(&r, 7, 10000, &out);
	assert_int_equal(out.len, 10000);
	assert_int_equal(out.caplen, sizeof(keep));
	assert_true(out.payload == keep);
	check_payload(&out, sizeof(keep));

	assert_int_equal(frag(&r, 8, 3u << 20, 0, &out), 0);
	assert_true(r.active);
	assert_int_equal(frag(&r, 8, 3u << 20, 1, &out), 0);
	assert_int_equal(r.got, 2 * WIRE_FRAG_SIZE);
}

/* Exactly 4096 and exactly 8192: the last fragment is a full one. */
static void test_reasm_exact_multiples(void **state)
{
	static const uint32_t lens[] = { 4096, 8192 };
	struct wire_reasm r;
	struct wire_frame out;

	(void)state;
	init(&r);
	for (uint32_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		whole(&r, k + 1, lens[k], &out);
		assert_int_equal(out.len, lens[k]);
		check_payload(&out, lens[k]);
	}
}

/* An empty data message is one header-only SEND with ports set. */
static void test_reasm_zero_length_message(void **state)
{
	struct wire_reasm r;
	struct wire_frame out;
	size_t n;

	(void)state;
	init(&r);
	n = mkfrag(3, 0, 0);
	assert_int_equal(n, WIRE_HDR_LEN);
	assert_int_equal(wire_reasm_input(&r, frame, n, &out), 1);
	assert_int_equal(out.len, 0);
	assert_int_equal(out.hdr.sport, 4000);
	assert_int_equal(r.frags, 1);
}

static void test_reasm_ack_only_interleaved(void **state)
{
	struct wire_reasm r;
	struct wire_frame out;

	(void)state;
	init(&r);
	/* alone */
	assert_int_equal(ack(&r, 5, &out), 1);
	assert_int_equal(out.len, 0);
	assert_null(out.payload);
	assert_true(out.hdr.ack == 5);
	assert_int_equal(out.hdr.csum, 0xfffa);  /* protocol/header.md */
	assert_false(r.active);

	/* between fragments of a message: delivered, message untouched */
	assert_int_equal(frag(&r, 9, 10000, 0, &out), 0);
	assert_int_equal(ack(&r, 8, &out), 1);
	assert_true(out.hdr.ack == 8);
	assert_int_equal(out.len, 0);
	assert_true(r.active);
	assert_int_equal(r.got, 4096);
	assert_int_equal(frag(&r, 9, 10000, 1, &out), 0);
	assert_int_equal(ack(&r, 9, &out), 1);
	assert_int_equal(frag(&r, 9, 10000, 2, &out), 1);
	assert_int_equal(out.len, 10000);
	assert_true(out.hdr.seq == 9);
	check_payload(&out, 10000);
}

/* Ack-only is decided by ports and received length, as the kernel does:
 * h_len does not matter, and ports 0/0 with payload are not an ack. */
static void test_reasm_ack_only_recognition(void **state)
{
	struct fspec odd_ack = { .len = 100 };
	struct fspec ping00 = { .seq = 4, .len = 3, .n = 3 };
	struct wire_reasm r;
	struct wire_frame out;

	(void)state;
	init(&r);
	assert_int_equal(feed(&r, &odd_ack, &out), 1);
	assert_int_equal(out.len, 0);
	assert_int_equal(out.hdr.len, 100);
	assert_false(r.active);

	assert_int_equal(feed(&r, &ping00, &out), 1);
	assert_int_equal(out.len, 3);
	assert_int_equal(out.hdr.sport, 0);
	assert_int_equal(out.hdr.dport, 0);
	check_payload(&out, 3);
}

/* Fragments may carry different h_ack and h_credit (ib_send.c writes credits
 * into one fragment's copy); the first fragment's header is reported. */
static void test_reasm_credit_and_ack_may_differ(void **state)
{
	struct fspec f = { .seq = 11, .ack = 1, .len = 5000, .sport = 1, .dport = 2,
			   .flags = WIRE_FLAG_ACK_REQUIRED, .n = 4096 };
	struct wire_reasm r;
	struct wire_frame out;

	(void)state;
	init(&r);
	assert_int_equal(feed(&r, &f, &out), 0);
	f.ack = 2;
	f.credit = 17;
	f.flags = 0;
	f.off = 4096;
	f.n = 904;
	assert_int_equal(feed(&r, &f, &out), 1);
	assert_true(out.hdr.ack == 1);
	assert_int_equal(out.hdr.credit, 0);
	assert_int_equal(out.hdr.flags, WIRE_FLAG_ACK_REQUIRED);
	check_payload(&out, 5000);
	assert_true(wire_rules_empty(&r.rules));
}

static void expect_fail(struct wire_reasm *r, size_t n, enum wire_rule why)
{
	struct wire_frame out;

	assert_int_equal(wire_reasm_input(r, frame, n, &out), WIRE_ERR_MALFORMED);
	assert_false(r->active);
	assert_int_equal(wire_rules_count(&r->rules), 1);
	if (!wire_rules_has(&r->rules, why))
		fail_msg("expected rule %s", wire_rule_name(why));
}

/* One frame of a test's message: |f| gets this h_len, offset and payload
 * length, and the reassembler takes it or refuses it for |why|. */
struct step {
	uint32_t len, off, n;
	bool taken;
	enum wire_rule why;
};

static void run_steps(struct wire_reasm *r, struct fspec f, const struct step *s, size_t n)
{
	struct wire_frame out;

	for (size_t i = 0; i < n; i++) {
		f.len = s[i].len;
		f.off = s[i].off;
		f.n = s[i].n;
		assert_int_equal(mkframe(&f), WIRE_HDR_LEN + f.n);
		if (s[i].taken)
			assert_int_equal(wire_reasm_input(r, frame, WIRE_HDR_LEN + f.n, &out), 0);
		else
			expect_fail(r, WIRE_HDR_LEN + f.n, s[i].why);
	}
}

static void test_reasm_mismatch_each_field(void **state)
{
	struct wire_reasm r;
	struct wire_frame out;

	(void)state;
	for (int field = 0; field < 4; field++) {
		struct fspec f = { .seq = 20, .len = 9000, .sport = 4000, .dport = 5000,
				   .n = 4096 };

		init(&r);
		assert_int_equal(feed(&r, &f, &out), 0);
		f.off = 4096;
		switch (field) {
		case 0:
			f.seq = 21;
			break;
		case 1:
			f.len = 9001;
			break;
		case 2:
			f.sport = 4001;
			break;
		default:
			f.dport = 5001;
			break;
		}
		expect_fail(&r, mkframe(&f), WIRE_RULE_FRAG_MISMATCH);
	}
}

/* A message from port 1 to port 2 through a fresh reassembler. */
static void fresh_steps(uint64_t seq, const struct step *s, size_t n)
{
	struct fspec f = { .seq = seq, .sport = 1, .dport = 2 };
	struct wire_reasm r;

	init(&r);
	run_steps(&r, f, s, n);
}

static const struct step too_short[] = {
	/* first fragment of a multi-fragment message below 4096 */
	{ 10000, 0, 4095, false, WIRE_RULE_FRAG_SHORT },
	/* a middle fragment below 4096 */
	{ 10000, 0, 4096, true, 0 },
	{ 10000, 4096, 1, false, WIRE_RULE_FRAG_SHORT },
	/* the last fragment carrying less than the remainder */
	{ 10000, 0, 4096, true, 0 },
	{ 10000, 4096, 4096, true, 0 },
	{ 10000, 8192, 1807, false, WIRE_RULE_FRAG_SHORT },
	/* header only, but h_len says there is payload */
	{ 10, 0, 0, false, WIRE_RULE_FRAG_SHORT },
};

static const struct step too_long[] = {
	/* above the receive buffer size */
	{ 10000, 0, 4097, false, WIRE_RULE_FRAG_LONG },
	{ 20000, 0, 8192, false, WIRE_RULE_FRAG_LONG },
	/* more than the message has left */
	{ 5000, 0, 4096, true, 0 },
	{ 5000, 4096, 905, false, WIRE_RULE_FRAG_LONG },
	/* single fragment longer than h_len */
	{ 100, 0, 101, false, WIRE_RULE_FRAG_LONG },
	{ 0, 0, 1, false, WIRE_RULE_FRAG_LONG },
};

static void test_reasm_short(void **state)
{
	(void)state;
	fresh_steps(30, too_short, sizeof(too_short) / sizeof(too_short[0]));
}

static void test_reasm_long(void **state)
{
	(void)state;
	fresh_steps(40, too_long, sizeof(too_long) / sizeof(too_long[0]));
}

static void test_reasm_toobig(void **state)
{
	static uint8_t small[8192];
	struct wire_reasm r;
	struct wire_frame out;

	(void)state;
	assert_int_equal(wire_reasm_init(&r, 8192, small, sizeof(small)), 0);
	assert_int_equal(frag(&r, 50, 8193, 0, &out), WIRE_ERR_TOOBIG);
	assert_false(r.active);
	assert_int_equal(r.got, 0);
	/* its later fragments are refused the same way, not mis-taken */
	assert_int_equal(frag(&r, 50, 8193, 1, &out), WIRE_ERR_TOOBIG);
	/* the limit itself is fine */
	whole(&r, 51, 8192, &out);
	assert_true(out.payload == small);
	check_payload(&out, 8192);

	/* default limit: 1 MiB + 1 */
	assert_int_equal(wire_reasm_init(&r, 0, NULL, 0), 0);
	assert_int_equal(frag(&r, 52, WIRE_MAX_MSG_LEN + 1, 0, &out), WIRE_ERR_TOOBIG);
}

static void test_reasm_runt(void **state)
{
	struct wire_reasm r;
	struct wire_frame out;
	size_t n;

	(void)state;
	init(&r);
	n = mkfrag(60, 100, 0);
	expect_fail(&r, WIRE_HDR_LEN - 1, WIRE_RULE_FRAG_FIRST_TOO_SMALL);
	expect_fail(&r, 0, WIRE_RULE_FRAG_FIRST_TOO_SMALL);
	assert_int_equal(wire_reasm_input(&r, NULL, 0, &out), WIRE_ERR_MALFORMED);
	assert_int_equal(wire_reasm_input(&r, NULL, 5, &out), WIRE_ERR_INVAL);
	assert_int_equal(wire_reasm_input(&r, frame, n, NULL), WIRE_ERR_INVAL);

	/* a runt in the middle of a message abandons it */
	assert_int_equal(frag(&r, 61, 10000, 0, &out), 0);
	expect_fail(&r, 10, WIRE_RULE_FRAG_FIRST_TOO_SMALL);
	/* fragment 1 now looks like a first fragment that is fine by itself */
	assert_int_equal(frag(&r, 61, 10000, 1, &out), 0);
	assert_int_equal(r.frags, 1);
}

static void test_reasm_null_buffer(void **state)
{
	/* checks still apply */
	static const struct step s[] = {
		{ 10000, 0, 4096, true, 0 },
		{ 10000, 4096, 4000, false, WIRE_RULE_FRAG_SHORT },
		{ 10000, 0, 4097, false, WIRE_RULE_FRAG_LONG },
	};
	struct fspec f = { .seq = 70, .sport = 1, .dport = 2 };
	struct wire_reasm r;
	struct wire_frame out;

	(void)state;
	assert_int_equal(wire_reasm_init(&r, 0, NULL, 0), 0);
	whole(&r, 70, 10000, &out);
	assert_null(out.payload);
	assert_int_equal(out.len, 10000);
	assert_int_equal(r.got, 10000);

	run_steps(&r, f, s, sizeof(s) / sizeof(s[0]));
	assert_int_equal(wire_reasm_init(&r, 4096, NULL, 0), 0);
	assert_int_equal(frag(&r, 71, 4097, 0, &out), WIRE_ERR_TOOBIG);
}

/* After a violation the next frame starts a new message from scratch. */
static void test_reasm_restart_after_abandon(void **state)
{
	struct wire_reasm r;
	struct wire_frame out;

	(void)state;
	init(&r);
	assert_int_equal(frag(&r, 80, 10000, 0, &out), 0);
	assert_int_equal(frag(&r, 80, 10000, 1, &out), 0);
	/* a fragment of another message: the one in progress is abandoned */
	expect_fail(&r, mkfrag(81, 9000, 1), WIRE_RULE_FRAG_MISMATCH);
	assert_true(wire_rules_has(&r.rules, WIRE_RULE_FRAG_MISMATCH));
	/* the rules of the failed message stay until the next completion */
	assert_int_equal(frag(&r, 82, 9000, 0, &out), 0);
	assert_true(wire_rules_has(&r.rules, WIRE_RULE_FRAG_MISMATCH));
	assert_int_equal(r.got, 4096);
	assert_int_equal(r.frags, 1);
	assert_int_equal(frag(&r, 82, 9000, 1, &out), 0);
	assert_int_equal(frag(&r, 82, 9000, 2, &out), 1);
	assert_true(out.hdr.seq == 82);
	assert_int_equal(out.len, 9000);
	check_payload(&out, 9000);
	assert_true(wire_rules_empty(&r.rules));
}

/* A whole 1 MiB message, the largest a kernel sends: 256 fragments. */
static void test_reasm_max_message(void **state)
{
	struct wire_reasm r;
	struct wire_frame out;

	(void)state;
	init(&r);
	whole(&r, 90, WIRE_MAX_MSG_LEN, &out);
	assert_int_equal(r.frags, 256);
	assert_int_equal(out.len, WIRE_MAX_MSG_LEN);
	check_payload(&out, WIRE_MAX_MSG_LEN);
}

/* The IB data frame of docs/protocol/header.md goes through as one fragment. */
static void test_reasm_known_frame(void **state)
{
	static const char hex[] =
		"00 00 00 00 00 00 00 07 00 00 00 00 00 00 00 03\n"
		"00 00 00 0a 0f a0 13 88 02 00 00 00 00 00 da c3\n"
		"00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n"
		"30 31 32 33 34 35 36 37 38 39\n";
	uint8_t in[64];
	struct wire_reasm r;
	struct wire_frame out;
	size_t n;

	(void)state;
	n = hex_decode(hex, in, sizeof(in));
	init(&r);
	assert_int_equal(wire_reasm_input(&r, in, n, &out), 1);
	assert_int_equal(out.len, 10);
	assert_memory_equal(out.payload, "0123456789", 10);
	assert_true(out.hdr.ack == 3);
	assert_int_equal(out.hdr.csum, 0xdac3);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_frag_count),
	cmocka_unit_test(test_frag_len),
	cmocka_unit_test(test_reasm_init),
	cmocka_unit_test(test_reasm_three_fragments),
	cmocka_unit_test(test_reasm_prefix_mode),
	cmocka_unit_test(test_reasm_exact_multiples),
	cmocka_unit_test(test_reasm_zero_length_message),
	cmocka_unit_test(test_reasm_ack_only_interleaved),
	cmocka_unit_test(test_reasm_ack_only_recognition),
	cmocka_unit_test(test_reasm_credit_and_ack_may_differ),
	cmocka_unit_test(test_reasm_mismatch_each_field),
	cmocka_unit_test(test_reasm_short),
	cmocka_unit_test(test_reasm_long),
	cmocka_unit_test(test_reasm_toobig),
	cmocka_unit_test(test_reasm_runt),
	cmocka_unit_test(test_reasm_null_buffer),
	cmocka_unit_test(test_reasm_restart_after_abandon),
	cmocka_unit_test(test_reasm_max_message),
	cmocka_unit_test(test_reasm_known_frame))
