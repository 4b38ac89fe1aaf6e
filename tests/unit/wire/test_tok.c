// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_tok.c - value-name tables: lookup both ways, the default for an
 * unknown value, and every exported table read back through its own
 * wire_*_name() function and through the inverse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include "cmain.h"

#include <wire/wire.h>

static const struct wire_tok colours[] = {
	{ 0, "zero" }, { 7, "seven" }, { 0x10000, "big" }, { 0, NULL },
};

static void test_tok_both_ways(void **state)
{
	uint32_t v = 99;

	(void)state;
	assert_string_equal(wire_tok_name(colours, 0), "zero");
	assert_string_equal(wire_tok_name(colours, 0x10000), "big");
	assert_null(wire_tok_name(colours, 8));
	assert_null(wire_tok_name(NULL, 0));
	assert_string_equal(wire_tok_str(colours, 7, "?"), "seven");
	assert_string_equal(wire_tok_str(colours, 8, "?"), "?");
	assert_null(wire_tok_str(colours, 8, NULL));

	assert_int_equal(wire_tok_value(colours, "seven", &v), 0);
	assert_int_equal(v, 7);
	v = 99;
	/* exact names only: a prefix or another case is no match */
	assert_int_equal(wire_tok_value(colours, "seve", &v), WIRE_ERR_INVAL);
	assert_int_equal(wire_tok_value(colours, "SEVEN", &v), WIRE_ERR_INVAL);
	assert_int_equal(wire_tok_value(colours, NULL, &v), WIRE_ERR_INVAL);
	assert_int_equal(wire_tok_value(NULL, "seven", &v), WIRE_ERR_INVAL);
	assert_int_equal(v, 99);
}

/* Each value and each name once, and every name comes back to its value. */
static void check_table(const struct wire_tok *t, size_t min)
{
	size_t n = 0;

	for (const struct wire_tok *a = t; a->name; a++, n++) {
		uint32_t v;

		for (const struct wire_tok *b = a + 1; b->name; b++) {
			assert_int_not_equal(a->value, b->value);
			assert_string_not_equal(a->name, b->name);
		}
		assert_int_equal(wire_tok_value(t, a->name, &v), 0);
		assert_int_equal(v, a->value);
	}
	assert_true(n >= min);
}

static void test_tok_exported_tables(void **state)
{
	(void)state;
	check_table(wire_flag_toks, 6);
	check_table(wire_ext_toks, 10);
	check_table(wire_rdma_status_toks, 5);
	check_table(wire_kind_toks, WIRE_KIND__COUNT);
	check_table(wire_ib_opcode_toks, 80);
	check_table(wire_ibcm_attr_toks, 11);
	check_table(wire_nl_attr_toks, WIRE_NL_LS_ATTR_MAX);
	check_table(wire_nl_op_toks, 3);

	for (const struct wire_tok *t = wire_flag_toks; t->name; t++)
		assert_ptr_equal(wire_flag_name((uint8_t)t->value), t->name);
	for (const struct wire_tok *t = wire_ext_toks; t->name; t++)
		assert_ptr_equal(wire_ext_name(t->value), t->name);
	for (const struct wire_tok *t = wire_kind_toks; t->name; t++)
		assert_ptr_equal(wire_kind_name((enum wire_kind)t->value), t->name);
	for (const struct wire_tok *t = wire_ib_opcode_toks; t->name; t++)
		assert_ptr_equal(wire_ib_opcode_name((uint8_t)t->value), t->name);
	for (const struct wire_tok *t = wire_ibcm_attr_toks; t->name; t++)
		assert_ptr_equal(wire_ibcm_attr_name((uint16_t)t->value), t->name);
	for (const struct wire_tok *t = wire_nl_attr_toks; t->name; t++)
		assert_ptr_equal(wire_nl_attr_name(t->value), t->name);
	for (const struct wire_tok *t = wire_nl_op_toks; t->name; t++)
		assert_ptr_equal(wire_nl_op_name(t->value), t->name);
}

/* The defaults of the functions that wrap the tables. */
static void test_tok_unknown_values(void **state)
{
	(void)state;
	assert_null(wire_flag_name(0));
	assert_null(wire_flag_name(0x03));
	assert_null(wire_flag_name(0x40));
	assert_null(wire_ext_name(WIRE_EXT_TYPE_MAX));
	assert_string_equal(wire_kind_name(WIRE_KIND__COUNT), "?");
	assert_null(wire_ib_opcode_name(0x15));
	assert_null(wire_ib_opcode_name(0x66)); /* UD has no SEND_ONLY_INV */
	assert_null(wire_ibcm_attr_name(0x001b));
	assert_null(wire_nl_attr_name(WIRE_NL_LS_ATTR_MAX));
	assert_null(wire_nl_op_name(3));
}

CMOCKA_MAIN(
	cmocka_unit_test(test_tok_both_ways),
	cmocka_unit_test(test_tok_exported_tables),
	cmocka_unit_test(test_tok_unknown_values))
