// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_parse.c - command-line values: each taken whole or refused, ranges
 * inclusive at both ends, suffixes that overflow refused, signs and blanks
 * refused where strtoull would take them. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include "cmain.h"

#include "parse.h"

static void test_parse_uint(void **state)
{
	uint64_t v = 7;

	(void)state;
	assert_int_equal(parse_uint("42", 10, 0, 100, &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(parse_uint("0x10", 0, 0, 100, &v), 0);
	assert_int_equal(v, 16);
	assert_int_equal(parse_uint("010", 0, 0, 100, &v), 0);
	assert_int_equal(v, 8);
	assert_int_equal(parse_uint("010", 10, 0, 100, &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(parse_uint("18446744073709551615", 10, 0, UINT64_MAX, &v), 0);
	assert_true(v == UINT64_MAX);
	/* the bounds are inclusive */
	assert_int_equal(parse_uint("10", 10, 10, 600000, &v), 0);
	assert_int_equal(parse_uint("600000", 10, 10, 600000, &v), 0);
	v = 7;
	const char *bad[] = { "", "9", "600001", "-1", "+5", " 5", "5 ", "5x", "0x", "1e3",
			      "18446744073709551616" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(parse_uint(bad[i], 10, 10, 600000, &v), -1);
	assert_int_equal(parse_uint("-1", 0, 0, UINT64_MAX, &v), -1);
	assert_int_equal(v, 7);
}

static void test_parse_count(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(parse_count("3", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 3);
	assert_int_equal(parse_count("4K", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(parse_count("2m", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 2u << 20);
	assert_int_equal(parse_count("1G", 0, UINT64_MAX, &v), -1);
	assert_int_equal(parse_count("1KK", 0, UINT64_MAX, &v), -1);
	assert_int_equal(parse_count("K", 0, UINT64_MAX, &v), -1);
	assert_int_equal(parse_count("0x10", 0, UINT64_MAX, &v), -1);
	assert_int_equal(parse_count("18014398509481984K", 0, UINT64_MAX, &v), -1);
	assert_int_equal(parse_count("2K", 0, 2047, &v), -1);
}

static void test_parse_size(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(parse_size("1G", 0, UINT64_MAX, &v), 0);
	assert_true(v == 1ull << 30);
	assert_int_equal(parse_size("16m", 16 << 20, UINT64_MAX, &v), 0);
	assert_int_equal(parse_size("15M", 16 << 20, UINT64_MAX, &v), -1);
	assert_int_equal(parse_size("17179869184G", 0, UINT64_MAX, &v), -1);
	assert_int_equal(parse_size("1T", 0, UINT64_MAX, &v), -1);
}

static void test_parse_list(void **state)
{
	uint64_t v[3];

	(void)state;
	assert_int_equal(parse_list("1,2K,3", 0, 4096, v, 3), 3);
	assert_int_equal(v[0], 1);
	assert_int_equal(v[1], 2048);
	assert_int_equal(v[2], 3);
	assert_int_equal(parse_list("5", 0, 10, v, 3), 1);
	assert_int_equal(v[0], 5);
	assert_int_equal(parse_list("1,2,3,4", 0, 10, v, 3), -1);
	assert_int_equal(parse_list("1,,2", 0, 10, v, 3), -1);
	assert_int_equal(parse_list("1,", 0, 10, v, 3), -1);
	assert_int_equal(parse_list("", 0, 10, v, 3), -1);
	assert_int_equal(parse_list("1,11", 0, 10, v, 3), -1);
	assert_int_equal(parse_list("123456789012345678901234567890123,1", 0, UINT64_MAX, v, 3),
			 -1);
}

static void test_parse_seconds(void **state)
{
	double d;

	(void)state;
	assert_int_equal(parse_seconds("0.5", 0.01, 10, &d), 0);
	assert_true(d == 0.5);
	assert_int_equal(parse_seconds("0.001", 0.01, 10, &d), -1);
	assert_int_equal(parse_seconds("nan", 0, 10, &d), -1);
	assert_int_equal(parse_seconds("inf", 0, 1e300, &d), -1);
	assert_int_equal(parse_seconds("1s", 0, 10, &d), -1);
	assert_int_equal(parse_seconds("", 0, 10, &d), -1);
}

static void test_parse_addr(void **state)
{
	static const uint8_t v4[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 1 };
	static const uint8_t v6[16] = { [15] = 1 };
	struct rdsu_addr a;

	(void)state;
	assert_int_equal(parse_addr("10.0.0.1", &a), 0);
	assert_memory_equal(a.a, v4, 16);
	assert_int_equal(parse_addr("::1", &a), 0);
	assert_memory_equal(a.a, v6, 16);
	assert_int_equal(parse_addr("10.0.0", &a), -1);
	assert_int_equal(parse_addr("host", &a), -1);
	assert_int_equal(parse_addr("", &a), -1);
}

static void test_parse_path_rule(void **state)
{
	enum rdsu_path_rule r;

	(void)state;
	assert_int_equal(parse_path_rule("pair", &r), 0);
	assert_int_equal(r, RDSU_PATH_BY_PAIR);
	assert_int_equal(parse_path_rule("port", &r), 0);
	assert_int_equal(r, RDSU_PATH_BY_PORT);
	assert_int_equal(parse_path_rule("Port", &r), -1);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_parse_uint),
	cmocka_unit_test(test_parse_count),
	cmocka_unit_test(test_parse_size),
	cmocka_unit_test(test_parse_list),
	cmocka_unit_test(test_parse_seconds),
	cmocka_unit_test(test_parse_addr),
	cmocka_unit_test(test_parse_path_rule))
