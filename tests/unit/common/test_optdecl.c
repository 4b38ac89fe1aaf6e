// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_optdecl.c - the declarative option layer: every kind converts,
 * range-checks and stores into its field (and only there), a refusal
 * leaves the field as it was and reads "bad WHAT 'ARG': RANGE", argp's
 * options come out of the same table, and badly made tables are caught. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include "cmain.h"

#include <rds/rdsu.h>

#include "optdecl.h"

enum color { RED = 1, GREEN = 2, BLUE = 7 };

static const struct wire_tok colors[] = {
	{ RED, "red" }, { GREEN, "green" }, { BLUE, "blue" }, { 0, NULL }
};

struct o {
	uint8_t u8;
	uint16_t port;
	uint32_t count;
	uint64_t size, big;
	double secs;
	unsigned color;
	bool flag, seen;
	unsigned marks;
	struct rdsu_addr addr;
	enum wire_kver kv;
	const char *str;
	uint32_t guard;  /* written by no entry: a wrong offset or size shows here */
};

enum { K_U8 = 0x100, K_PORT, K_COUNT, K_SIZE, K_SECS, K_COLOR, K_FLAG, K_STR, K_CUSTOM, K_BIG, K_MARKED, K_KVER, K_ADDR };

static const struct optdecl table[] = {
	{ .kind = OPTD_HEADER, .doc = "Things:", .group = 1 },
	{ K_U8, "u8", "N", "a byte", 0, 1, OPTD_UINT, OPTD_FIELD(struct o, u8), .min = 0, .max = 255,
	  .what = "byte" },
	{ K_PORT, "port", "P", "a port", 0, 1, OPTD_UINT, OPTD_FIELD(struct o, port), .min = 1,
	  .max = 65535, .what = "port", OPTD_SEEN(struct o, seen) },
	{ K_COUNT, "count", "N", "a count", 0, 1, OPTD_COUNT, OPTD_FIELD(struct o, count), .min = 1,
	  .max = 1u << 20, .what = "count", .range = "a number above 0" },
	/* K and M only, whatever the range: a G is not a count's */
	{ K_BIG, "big", "N", "a big count", 0, 1, OPTD_COUNT, OPTD_FIELD(struct o, big), .min = 0,
	  .max = UINT64_MAX, .what = "big count" },
	{ K_SIZE, "size", "BYTES", "a size", 0, 1, OPTD_SIZE, OPTD_FIELD(struct o, size), .min = 0,
	  .max = UINT64_C(1) << 32, .what = "size", .unit = " bytes" },
	{ K_SECS, "secs", "S", "seconds", 0, 1, OPTD_SECONDS, OPTD_FIELD(struct o, secs),
	  .fmin = 0.5, .fmax = 10, .what = "delay" },
	{ K_COLOR, "color", "C", "a color", 0, 1, OPTD_ENUM, OPTD_FIELD(struct o, color),
	  .names = colors, .what = "color" },
	{ K_MARKED, "marked", NULL, "a flag that marks", 0, 1, OPTD_FLAG, OPTD_FIELD(struct o, flag),
	  OPTD_SEEN_BIT(struct o, marks, 4) },
	{ K_KVER, "kver", "6|7", "a generation", 0, 1, OPTD_ENUM, OPTD_FIELD(struct o, kv),
	  .names = optdecl_kver_toks, .what = "kver" },
	{ K_ADDR, "addr", "ADDR", "an address", 0, 1, OPTD_ADDR, OPTD_FIELD(struct o, addr),
	  .what = "address" },
	{ K_FLAG, "flag", NULL, "a flag", 0, 1, OPTD_FLAG, OPTD_FIELD(struct o, flag) },
	{ K_STR, "str", "S", "a string", 0, 1, OPTD_STR, OPTD_FIELD(struct o, str) },
	{ K_CUSTOM, "custom", "X", "the tool's own", OPTION_HIDDEN, 1, .kind = OPTD_CUSTOM },
};

struct good {
	int key;
	const char *arg;
	size_t off, size;
	uint64_t want;  /* the field's bytes, as a number (seconds: want_f) */
	double want_f;
};

/* The field of |size| bytes at |off|, as a number. */
static uint64_t read_field(const struct o *o, size_t off, size_t size)
{
	union {
		uint8_t b;
		uint16_t h;
		uint32_t w;
		uint64_t d;
	} u = { .d = 0 };

	memcpy(&u, (const char *)o + off, size);
	return size == 1 ? u.b : size == 2 ? u.h : size == 4 ? u.w : u.d;
}

static void test_convert(void **state)
{
	static const struct good good[] = {
		{ K_U8, "0", offsetof(struct o, u8), 1, 0, 0 },
		{ K_U8, "255", offsetof(struct o, u8), 1, 255, 0 },
		{ K_U8, "0x7f", offsetof(struct o, u8), 1, 127, 0 },
		{ K_PORT, "1", offsetof(struct o, port), 2, 1, 0 },
		{ K_PORT, "65535", offsetof(struct o, port), 2, 65535, 0 },
		{ K_COUNT, "3", offsetof(struct o, count), 4, 3, 0 },
		{ K_COUNT, "4K", offsetof(struct o, count), 4, 4096, 0 },
		{ K_COUNT, "1M", offsetof(struct o, count), 4, 1u << 20, 0 },
		{ K_BIG, "2M", offsetof(struct o, big), 8, 2u << 20, 0 },
		{ K_BIG, "18446744073709551615", offsetof(struct o, big), 8, UINT64_MAX, 0 },
		{ K_SIZE, "0", offsetof(struct o, size), 8, 0, 0 },
		{ K_SIZE, "2G", offsetof(struct o, size), 8, UINT64_C(2) << 30, 0 },
		{ K_SIZE, "4G", offsetof(struct o, size), 8, UINT64_C(4) << 30, 0 },
		{ K_COLOR, "red", offsetof(struct o, color), sizeof(unsigned), RED, 0 },
		{ K_COLOR, "blue", offsetof(struct o, color), sizeof(unsigned), BLUE, 0 },
		{ K_KVER, "6", offsetof(struct o, kv), sizeof(enum wire_kver), WIRE_KVER_6, 0 },
		{ K_KVER, "7", offsetof(struct o, kv), sizeof(enum wire_kver), WIRE_KVER_7, 0 },
		{ K_SECS, "0.5", offsetof(struct o, secs), 8, 0, 0.5 },
		{ K_SECS, "2.25", offsetof(struct o, secs), 8, 0, 2.25 },
		{ K_SECS, "10", offsetof(struct o, secs), 8, 0, 10 },
	};

	(void)state;
	for (size_t i = 0; i < OPTD_N(good); i++) {
		const struct good *g = &good[i];
		const struct optdecl *d = optdecl_find(table, OPTD_N(table), g->key);
		struct o o;

		memset(&o, 0xa5, sizeof(o));
		assert_non_null(d);
		assert_int_equal(optdecl_set(d, &o, g->arg), 0);
		if (g->key == K_SECS) {
			double f;

			memcpy(&f, (char *)&o + g->off, sizeof(f));
			assert_true(f == g->want_f);
		} else {
			assert_int_equal(read_field(&o, g->off, g->size), g->want);
		}
		/* nothing beyond the field is touched */
		assert_int_equal(o.guard, 0xa5a5a5a5u);
	}
}

static void test_refuse(void **state)
{
	static const struct {
		int key;
		const char *arg, *msg;
	} bad[] = {
		{ K_U8, "256", "bad byte '256': 0 to 255" },
		{ K_U8, "-1", "bad byte '-1': 0 to 255" },
		{ K_U8, "", "bad byte '': 0 to 255" },
		{ K_PORT, "0", "bad port '0': 1 to 65535" },
		{ K_PORT, "65536", "bad port '65536': 1 to 65535" },
		{ K_PORT, "80x", "bad port '80x': 1 to 65535" },
		{ K_COUNT, "0", "bad count '0': a number above 0" },
		{ K_COUNT, "2M", "bad count '2M': a number above 0" },
		{ K_COUNT, "1G", "bad count '1G': a number above 0" },
		{ K_BIG, "1G", "bad big count '1G': 0 to 18446744073709551615" },
		{ K_BIG, "0x10", "bad big count '0x10': 0 to 18446744073709551615" },
		{ K_SIZE, "5G", "bad size '5G': 0 to 4294967296 bytes" },
		{ K_SIZE, "1T", "bad size '1T': 0 to 4294967296 bytes" },
		{ K_SECS, "0.25", "bad delay '0.25': 0.5 to 10 seconds" },
		{ K_SECS, "nan", "bad delay 'nan': 0.5 to 10 seconds" },
		{ K_SECS, "1s", "bad delay '1s': 0.5 to 10 seconds" },
		{ K_COLOR, "Red", "bad color 'Red': red, green or blue" },
		{ K_COLOR, "", "bad color '': red, green or blue" },
		{ K_KVER, "5", "bad kver '5': 6 or 7" },
		{ K_KVER, "06", "bad kver '06': 6 or 7" },
		{ K_ADDR, "10.0.0.256", "bad address '10.0.0.256': an IPv4 or IPv6 address" },
		{ K_ADDR, "host", "bad address 'host': an IPv4 or IPv6 address" },
	};
	char buf[128];

	(void)state;
	for (size_t i = 0; i < OPTD_N(bad); i++) {
		const struct optdecl *d = optdecl_find(table, OPTD_N(table), bad[i].key);
		struct o o, before;

		memset(&o, 0x5a, sizeof(o));
		before = o;
		assert_non_null(d);
		assert_int_equal(optdecl_set(d, &o, bad[i].arg), -1);
		/* a refusal changes nothing */
		assert_memory_equal(&o, &before, sizeof(o));
		assert_string_equal(optdecl_error(d, bad[i].arg, buf, sizeof(buf)), bad[i].msg);
	}
}

static void test_flag_str_seen(void **state)
{
	struct o o = { 0 };
	const char *arg = "hello";

	(void)state;
	assert_int_equal(optdecl_set(optdecl_find(table, OPTD_N(table), K_FLAG), &o, NULL), 0);
	assert_true(o.flag);
	assert_int_equal(optdecl_set(optdecl_find(table, OPTD_N(table), K_STR), &o, arg), 0);
	assert_ptr_equal(o.str, arg);
	assert_false(o.seen);
	assert_int_equal(optdecl_set(optdecl_find(table, OPTD_N(table), K_PORT), &o, "80"), 0);
	assert_true(o.seen);
	assert_int_equal(o.port, 80);
	/* an address, as parse_addr() takes it (IPv4 mapped) */
	assert_int_equal(optdecl_set(optdecl_find(table, OPTD_N(table), K_ADDR), &o, "10.1.2.3"), 0);
	assert_true(rdsu_addr_is_v4(&o.addr));
	assert_memory_equal(&o.addr.a[12], "\x0a\x01\x02\x03", 4);
	assert_int_equal(optdecl_set(optdecl_find(table, OPTD_N(table), K_ADDR), &o, "fd00::1"), 0);
	assert_false(rdsu_addr_is_v4(&o.addr));
	assert_int_equal(o.addr.a[0], 0xfd);
	assert_int_equal(o.addr.a[15], 1);
	/* a mark is one bit, added to those there */
	o.marks = 1;
	o.flag = false;
	assert_int_equal(optdecl_set(optdecl_find(table, OPTD_N(table), K_MARKED), &o, NULL), 0);
	assert_true(o.flag);
	assert_int_equal(o.marks, 5);
	/* the tool's own options and the headers are not the layer's */
	assert_null(optdecl_find(table, OPTD_N(table), K_CUSTOM));
	assert_null(optdecl_find(table, OPTD_N(table), 0));
	assert_null(optdecl_find(table, OPTD_N(table), 'z'));
}

static void test_argp(void **state)
{
	struct argp_option opts[OPTD_N(table) + 1];

	(void)state;
	memset(opts, 0x11, sizeof(opts));
	optdecl_argp(table, OPTD_N(table), opts);
	for (size_t i = 0; i < OPTD_N(table); i++) {
		assert_int_equal(opts[i].key, table[i].key);
		assert_ptr_equal(opts[i].name, table[i].name);
		assert_ptr_equal(opts[i].arg, table[i].arg);
		assert_ptr_equal(opts[i].doc, table[i].doc);
		assert_int_equal(opts[i].flags, table[i].flags);
		assert_int_equal(opts[i].group, table[i].group);
	}
	assert_null(opts[OPTD_N(table)].name);
	assert_int_equal(opts[OPTD_N(table)].key, 0);
	assert_null(opts[OPTD_N(table)].doc);
}

static void test_check(void **state)
{
	static const struct wire_tok big[] = { { 300, "big" }, { 0, NULL } };
	const struct optdecl bad[] = {
		{ 1, "narrow", "N", NULL, 0, 0, OPTD_UINT, OPTD_FIELD(struct o, u8), .max = 256,
		  .what = "n" },
		{ 2, "three", "N", NULL, 0, 0, OPTD_UINT, .off = 0, .size = 3, .max = 1, .what = "n" },
		{ 3, "nowhat", "N", NULL, 0, 0, OPTD_UINT, OPTD_FIELD(struct o, port), .max = 1 },
		{ 4, "inverted", "N", NULL, 0, 0, OPTD_COUNT, OPTD_FIELD(struct o, port), .min = 5,
		  .max = 1, .what = "n" },
		{ 5, "secs", "S", NULL, 0, 0, OPTD_SECONDS, OPTD_FIELD(struct o, count), .fmax = 1,
		  .what = "s" },
		{ 6, "noname", "E", NULL, 0, 0, OPTD_ENUM, OPTD_FIELD(struct o, color), .what = "e" },
		{ 7, "bigenum", "E", NULL, 0, 0, OPTD_ENUM, OPTD_FIELD(struct o, u8), .names = big,
		  .what = "e" },
		{ 8, "flag", NULL, NULL, 0, 0, OPTD_FLAG, OPTD_FIELD(struct o, count) },
		{ 9, "str", "S", NULL, 0, 0, OPTD_STR, OPTD_FIELD(struct o, port) },
	};
	struct o o;

	(void)state;
	assert_null(optdecl_check(table, OPTD_N(table)));
	for (size_t i = 0; i < OPTD_N(bad); i++) {
		const char *why = optdecl_check(&bad[i], 1);

		assert_non_null(why);
		assert_non_null(strstr(why, bad[i].name));
		/* and a badly made entry never writes */
		memset(&o, 0, sizeof(o));
		assert_int_equal(optdecl_set(&bad[i], &o, "1"), -1);
	}
}

/* The tool's parser behind optdecl_parse(): it sees its own option with
 * its struct as input, never one the table converts. */
static const char *custom_arg;
static int own_calls_for_table;

static error_t own_parse(int key, char *arg, struct argp_state *st)
{
	struct o *o = st->input;

	if (optdecl_find(table, OPTD_N(table), key))
		own_calls_for_table++;
	if (key == K_CUSTOM) {
		custom_arg = arg;
		o->guard = 1;
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

static void own_end(void *input, struct argp_state *st)
{
	struct o *o = input;

	(void)st;
	o->guard |= 2;
}

static void test_parse(void **state)
{
	struct argp_option opts[OPTD_N(table) + 1];
	const struct argp ap = { NULL, own_parse, NULL, NULL, NULL, NULL, NULL };
	const struct optdecl_cmd cmd = {
		&ap, table, OPTD_N(table), opts, { NULL }, own_end, NULL, ARGP_NO_EXIT | ARGP_NO_HELP
	};
	char a0[] = "prog", a1[] = "--port", a2[] = "80", a3[] = "--custom=x", a4[] = "--secs",
	     a5[] = "2.5", a6[] = "--color", a7[] = "green", a8[] = "--flag";
	char *argv[] = { a0, a1, a2, a3, a4, a5, a6, a7, a8, NULL };
	struct o o = { 0 };

	(void)state;
	assert_int_equal(optdecl_parse(&cmd, 9, argv, &o), 0);
	assert_int_equal(o.port, 80);
	assert_true(o.seen);
	assert_true(o.secs == 2.5);
	assert_int_equal(o.color, GREEN);
	assert_true(o.flag);
	assert_string_equal(custom_arg, "x");
	/* the tool's own, then the end hook, each with the tool's struct */
	assert_int_equal(o.guard, 3);
	assert_int_equal(own_calls_for_table, 0);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_convert),
	cmocka_unit_test(test_refuse),
	cmocka_unit_test(test_flag_str_seen),
	cmocka_unit_test(test_argp),
	cmocka_unit_test(test_check),
	cmocka_unit_test(test_parse))
