// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_cong.c - congestion map bit layout, iteration and differences. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "cmain.h"

#include <wire/wire.h>

static struct wire_cong_map a, b;

static void test_cong_bit_layout(void **state)
{
	(void)state;
	wire_cong_clear_all(&a);
	/* Port p is bit p % 8 (LSB first) of byte p / 8, on any host. */
	wire_cong_set(&a, 0);
	wire_cong_set(&a, 9);
	wire_cong_set(&a, 4000);
	wire_cong_set(&a, 65535);
	assert_int_equal(a.bits[0], 0x01);
	assert_int_equal(a.bits[1], 0x02);
	assert_int_equal(a.bits[500], 0x01); /* 4000 = 500 * 8 + 0 */
	assert_int_equal(a.bits[8191], 0x80);
	assert_true(wire_cong_test(&a, 9));
	assert_false(wire_cong_test(&a, 8));
	assert_int_equal(wire_cong_count(&a), 4);
	wire_cong_clear(&a, 9);
	assert_false(wire_cong_test(&a, 9));
	assert_int_equal(a.bits[1], 0);
	/* The spec's view: 1024 little-endian u64 words, array[0] = ports 0-63. */
	wire_cong_clear_all(&a);
	wire_cong_set(&a, 63);
	assert_int_equal(a.bits[7], 0x80);
}

static void test_cong_iterate(void **state)
{
	static const uint16_t ports[] = { 1, 2, 63, 64, 1000, 40000, 65535 };
	int32_t p = -1;
	size_t n = 0;

	(void)state;
	wire_cong_clear_all(&a);
	assert_int_equal(wire_cong_next(&a, 0), -1);
	for (size_t i = 0; i < sizeof(ports) / sizeof(ports[0]); i++)
		wire_cong_set(&a, ports[i]);
	while ((p = wire_cong_next(&a, (uint32_t)(p + 1))) >= 0)
		assert_int_equal(p, ports[n++]);
	assert_int_equal(n, sizeof(ports) / sizeof(ports[0]));
	assert_int_equal(wire_cong_next(&a, 65536), -1);
	assert_int_equal(wire_cong_next(&a, 70000), -1);
}

static void test_cong_codec(void **state)
{
	uint8_t buf[WIRE_CONG_MAP_BYTES + 1];

	(void)state;
	wire_cong_clear_all(&a);
	wire_cong_set(&a, 12345);
	assert_int_equal(wire_cong_encode(&a, buf, sizeof(buf)), WIRE_CONG_MAP_BYTES);
	assert_int_equal(wire_cong_encode(&a, buf, WIRE_CONG_MAP_BYTES - 1), WIRE_ERR_NOSPACE);
	assert_int_equal(wire_cong_decode(&b, buf, WIRE_CONG_MAP_BYTES), WIRE_CONG_MAP_BYTES);
	assert_memory_equal(&a, &b, sizeof(a));
	/* Anything but exactly 8192 is not a map (the kernel ignores it). */
	assert_int_equal(wire_cong_decode(&b, buf, 4096), WIRE_ERR_MALFORMED);
	assert_int_equal(wire_cong_decode(&b, buf, WIRE_CONG_MAP_BYTES + 1), WIRE_ERR_MALFORMED);
	assert_int_equal(wire_cong_decode(&b, buf, 0), WIRE_ERR_MALFORMED);
}

/* wire_cong_diff_next() from a to b gives the |n| ranges |want|, in order,
 * and then no more. */
static void expect_diff(const struct wire_port_range *want, size_t n)
{
	struct wire_port_range r;
	uint32_t pos = 0;

	for (size_t i = 0; i < n; i++) {
		assert_int_equal(wire_cong_diff_next(&a, &b, &pos, &r), 1);
		assert_int_equal(r.first, want[i].first);
		assert_int_equal(r.last, want[i].last);
		assert_int_equal(r.congested, want[i].congested);
	}
	assert_int_equal(wire_cong_diff_next(&a, &b, &pos, &r), 0);
}

static void test_cong_diff_ranges(void **state)
{
	static const struct wire_port_range moved[] = {
		{ 10, 10, false }, { 12, 12, false }, { 4000, 4003, true }, { 65535, 65535, true },
	};
	static const struct wire_port_range flipped[] = {
		{ 100, 100, false }, { 101, 101, true },
	};

	(void)state;
	wire_cong_clear_all(&a);
	wire_cong_clear_all(&b);
	expect_diff(NULL, 0);
	/* old: 10-12 congested; new: 4000-4003 congested, 11 still congested. */
	for (uint16_t p = 10; p <= 12; p++)
		wire_cong_set(&a, p);
	wire_cong_set(&b, 11);
	for (uint16_t p = 4000; p <= 4003; p++)
		wire_cong_set(&b, p);
	wire_cong_set(&b, 65535);
	expect_diff(moved, sizeof(moved) / sizeof(moved[0]));

	/* A run that flips direction mid-way splits into two ranges. */
	wire_cong_clear_all(&a);
	wire_cong_clear_all(&b);
	wire_cong_set(&a, 100);
	wire_cong_set(&b, 101);
	expect_diff(flipped, sizeof(flipped) / sizeof(flipped[0]));
}

static void test_cong_diff_matches_bruteforce(void **state)
{
	unsigned seed = 7;

	(void)state;
	for (int round = 0; round < 20; round++) {
		struct wire_port_range r;
		uint32_t pos = 0, expect = 0;

		wire_cong_clear_all(&a);
		wire_cong_clear_all(&b);
		for (int i = 0; i < 300; i++) {
			seed = seed * 1103515245u + 12345u;
			wire_cong_set((seed >> 16) & 1 ? &a : &b, (uint16_t)(seed >> 8));
		}
		for (uint32_t p = 0; p < 65536; p++)
			expect += wire_cong_test(&a, (uint16_t)p) != wire_cong_test(&b, (uint16_t)p);
		while (wire_cong_diff_next(&a, &b, &pos, &r) == 1) {
			for (uint32_t p = r.first; p <= r.last; p++) {
				assert_true(wire_cong_test(&b, (uint16_t)p) == r.congested);
				assert_true(wire_cong_test(&a, (uint16_t)p) != r.congested);
				expect--;
			}
		}
		assert_int_equal(expect, 0);
	}
}

static void test_cong_freed_mask(void **state)
{
	(void)state;
	wire_cong_clear_all(&a);
	wire_cong_clear_all(&b);
	wire_cong_set(&a, 5);
	wire_cong_set(&a, 64 + 7);
	wire_cong_set(&a, 200);
	wire_cong_set(&b, 200);
	/* 5 and 71 became free: bits 5 and 7 of the port-group mask. */
	assert_true(wire_cong_freed_mask(&a, &b) == ((1ull << 5) | (1ull << 7)));
	assert_true(wire_cong_freed_mask(&b, &a) == 0);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_cong_bit_layout),
	cmocka_unit_test(test_cong_iterate),
	cmocka_unit_test(test_cong_codec),
	cmocka_unit_test(test_cong_diff_ranges),
	cmocka_unit_test(test_cong_diff_matches_bruteforce),
	cmocka_unit_test(test_cong_freed_mask))
