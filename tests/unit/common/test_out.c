// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_out.c - the output layer: one call sequence as labelled text and as
 * JSON, each type's text form, JSON keys in table order whatever the call
 * order, levels, nulls, nested objects re-entered, arrays, long values, and
 * the JSON bytes against json-c's serialiser (escapes, doubles, layouts). */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include "cmain.h"
#include <json-c/json.h>

#include "out.h"

#define F(k, t, lv, ...) { .key = (k), .type = (t), .level = (lv), __VA_ARGS__ }

static const struct wire_tok colours[] = {
	{ 1, "RED" }, { 2, "GREEN" }, { 8, "BLUE" }, { 0, NULL },
};

enum { E_NAME, E_N, E__N };
static const struct out_field elem_fields[E__N] = {
	[E_NAME] = F("name", OUT_STR, 1, .label = "items"),
	[E_N] = F("n", OUT_U64, 2),
};
static const struct out_group elem_group = OUT_GROUP("item", elem_fields);

enum { S_A, S_B, S__N };
static const struct out_field sub_fields[S__N] = {
	[S_A] = F("a", OUT_U64, 1),
	[S_B] = F("b", OUT_U64, 2),
};
static const struct out_group sub_group = OUT_GROUP("sub", sub_fields);

enum {
	T_ID, T_U, T_I, T_HEX, T_BOOL, T_STR, T_QUOTED, T_BYTES, T_DBL, T_ENUM,
	T_PAREN, T_FLAGS, T_NULL, T_JSONLY, T_DEEP, T_SUB, T_NAMES, T_ITEMS, T__N
};
static const struct out_field test_fields[T__N] = {
	[T_ID] = F("id", OUT_STR, 0),
	[T_U] = F("u", OUT_U64, 1),
	[T_I] = F("i", OUT_I64, 1),
	[T_HEX] = F("hex", OUT_HEX, 1, .digits = 4),
	[T_BOOL] = F("bool", OUT_BOOL, 1),
	[T_STR] = F("str", OUT_STR, 1),
	[T_QUOTED] = F("quoted", OUT_QUOTED, 1),
	[T_BYTES] = F("bytes", OUT_BYTES, 1),
	[T_DBL] = F("dbl", OUT_DOUBLE, 1, .digits = 3),
	[T_ENUM] = F("enum", OUT_ENUM, 1, .names = colours, .unknown = "other"),
	[T_PAREN] = F("paren", OUT_ENUM, 1, .style = OUT_NAME_PAREN, .names = colours),
	[T_FLAGS] = F("flags", OUT_FLAGS, 1, .digits = 2, .names = colours),
	[T_NULL] = F("null", OUT_U64, 1),
	[T_JSONLY] = F("jsonly", OUT_U64, 0),
	[T_DEEP] = F("deep", OUT_U64, 2),
	[T_SUB] = F("sub", OUT_OBJECT, 1, .sub = &sub_group),
	[T_NAMES] = F("names", OUT_ARRAY, 1, .sep = ',', .names = colours),
	[T_ITEMS] = F("items", OUT_ARRAY, 1, .sub = &elem_group),
};
static const struct out_group test_group = OUT_GROUP("test", test_fields);

static const uint8_t three[] = { 0x00, 0xab, 0xff };

/* The array "names" of the values |a| and |b|. */
static void names(struct out *o, unsigned a, unsigned b)
{
	out_arr_open(o, T_NAMES);
	out_elem_name(o, a);
	out_elem_name(o, b);
	out_close(o);
}

/* The calls in text order, which is not table order. */
static void describe(struct out *o)
{
	out_begin(o, &test_group);
	out_u64(o, T_JSONLY, 5);
	out_u64(o, T_DEEP, 6);
	out_obj_open(o, T_SUB);
	out_u64(o, S_A, 1);
	out_close(o);
	out_u64(o, T_U, UINT64_MAX);
	out_i64(o, T_I, INT64_MIN);
	out_hex(o, T_HEX, 0x1f);
	out_eol(o);
	out_bool(o, T_BOOL, false);
	out_str(o, T_STR, "");
	out_str(o, T_QUOTED, "a, b");
	out_bytes(o, T_BYTES, three, sizeof(three));
	out_double(o, T_DBL, 0.25);
	out_null(o, T_NULL);
	out_eol(o);
	out_enum(o, T_ENUM, 2);
	out_enum(o, T_PAREN, 3);
	out_flags(o, T_FLAGS, 0x13);
	names(o, 8, 4);
	out_eol(o);
	out_arr_open(o, T_ITEMS);
	for (unsigned i = 0; i < 2; i++) {
		out_elem_obj(o);
		out_str(o, E_NAME, i ? "y" : "x");
		out_u64(o, E_N, i);
		out_eol(o);
		out_close(o);
	}
	out_close(o);
	/* entered again: adds to the same object */
	out_obj_open(o, T_SUB);
	out_u64(o, S_B, 2);
	out_eol(o);
	out_close(o);
	out_str(o, T_ID, "rec");
	out_end(o);
}

/* An out writing to memory; sink_close() gives what it wrote. */
struct sink {
	char *buf;
	size_t len;
	FILE *f;
	struct out *o;
};

static struct out *sink_open(struct sink *k, enum out_mode mode, int verbose)
{
	k->buf = NULL;
	k->len = 0;
	k->f = open_memstream(&k->buf, &k->len);
	k->o = malloc(sizeof(*k->o));
	assert_non_null(k->f);
	assert_non_null(k->o);
	out_init(k->o, k->f, mode, verbose, 0);
	return k->o;
}

static char *sink_close(struct sink *k)
{
	out_fini(k->o);
	free(k->o);
	assert_int_equal(fclose(k->f), 0);
	return k->buf;
}

/* Close |k|: it wrote |want|. */
static void sink_is(struct sink *k, const char *want)
{
	char *got = sink_close(k);

	assert_string_equal(got, want);
	free(got);
}

/* describe() in |mode| at |verbose| writes |want|. */
static void run_is(enum out_mode mode, int verbose, const char *want)
{
	struct sink k;

	describe(sink_open(&k, mode, verbose));
	sink_is(&k, want);
}

static void test_out_text_v(void **state)
{
	(void)state;
	run_is(OUT_TEXT, 1,
	       "    a 1, u 18446744073709551615, i -9223372036854775808, "
	       "hex 0x001f\n"
	       "    bool false, str \"\", quoted \"a, b\", bytes 00abff, dbl 0.250\n"
	       "    enum 2 GREEN, paren 3, flags 0x13 [RED|GREEN|0x10], "
	       "names BLUE,4\n"
	       "    items x\n"
	       "    items y\n");
}

static void test_out_text_vv(void **state)
{
	(void)state;
	run_is(OUT_TEXT, 2,
	       "    deep 6, a 1, u 18446744073709551615, i -9223372036854775808, "
	       "hex 0x001f\n"
	       "    bool false, str \"\", quoted \"a, b\", bytes 00abff, dbl 0.250\n"
	       "    enum 2 GREEN, paren 3, flags 0x13 [RED|GREEN|0x10], "
	       "names BLUE,4\n"
	       "    items x, n 0\n"
	       "    items y, n 1\n"
	       "    b 2\n");
}

static void test_out_json(void **state)
{
	(void)state;
	/* table order; "null" set to null; nothing for keys never set */
	run_is(OUT_JSON, 0,
	       "{\"id\":\"rec\",\"u\":18446744073709551615,"
	       "\"i\":-9223372036854775808,\"hex\":31,\"bool\":false,\"str\":\"\","
	       "\"quoted\":\"a, b\",\"bytes\":\"00abff\",\"dbl\":0.25,\"enum\":2,"
	       "\"paren\":3,\"flags\":19,\"null\":null,\"jsonly\":5,\"deep\":6,"
	       "\"sub\":{\"a\":1,\"b\":2},\"names\":[\"BLUE\",4],"
	       "\"items\":[{\"name\":\"x\",\"n\":0},{\"name\":\"y\",\"n\":1}]}\n");
}

/* Nothing shows at -v 0, and a record with nothing set is an empty object. */
static void test_out_empty(void **state)
{
	struct sink k;
	struct out *o = sink_open(&k, OUT_JSON, 0);

	(void)state;
	run_is(OUT_TEXT, 0, "");

	out_begin(o, &test_group);
	out_arr_open(o, T_NAMES);
	out_close(o);
	out_end(o);
	sink_is(&k, "{\"names\":[]}\n");
}

/* A value longer than the text buffer, in both forms. */
static void test_out_long_values(void **state)
{
	size_t n = 3 * OUT_BUF;
	uint8_t *p = calloc(n, 1);

	(void)state;
	assert_non_null(p);
	p[n - 1] = 0x5a;
	for (int mode = OUT_TEXT; mode <= OUT_JSON; mode++) {
		struct sink k;
		struct out *o = sink_open(&k, (enum out_mode)mode, 1);
		char *got;

		out_begin(o, &test_group);
		out_bytes(o, T_BYTES, p, n);
		out_end(o);
		got = sink_close(&k);
		assert_int_equal(k.len, (mode == OUT_TEXT ? strlen("    bytes \n")
							  : strlen("{\"bytes\":\"\"}\n")) +
						2 * n);
		assert_memory_equal(strstr(got, "5a"), "5a", 2);
		free(got);
	}
	free(p);
}

/* The one-line form: any level but JSON-only, " label=value", no newline
 * of its own. */
static void test_out_line(void **state)
{
	struct sink k;
	struct out *o = sink_open(&k, OUT_TEXT, 0);

	(void)state;
	out_begin(o, &test_group);
	out_puts(o, "rec:");
	out_line(o, true, '=');
	out_u64(o, T_JSONLY, 5);
	out_u64(o, T_DEEP, 6);
	out_hex(o, T_HEX, 1);
	names(o, 1, 2);
	out_eol(o);
	out_line(o, false, 0);
	out_putc(o, '\n');
	out_u64(o, T_U, 7);
	out_end(o);
	sink_is(&k, "rec: deep=6 hex=0x0001 names=RED,GREEN\n");
}

/* A fixed-decimals double reads the same in text and JSON; out_take()
 * hands the text over. */
static void test_out_fixed_take(void **state)
{
	static const struct out_field fields[] = { F("secs", OUT_FIXED, 1, .digits = 3) };
	static const struct out_group g = OUT_GROUP("fixed", fields);
	struct sink k;
	struct out *o = sink_open(&k, OUT_JSON, 0);
	char *j;

	(void)state;
	out_begin(o, &g);
	out_double(o, 0, 0.25);
	j = out_take(o);
	assert_non_null(j);
	assert_false(o->err);
	assert_string_equal(j, "{\"secs\":0.250}");
	free(j);
	sink_is(&k, "");

	o = sink_open(&k, OUT_TEXT, 1);
	out_begin(o, &g);
	out_double(o, 0, 0.25);
	assert_null(out_take(o));
	out_end(o);
	sink_is(&k, "    secs 0.250");
}

static void test_out_put(void **state)
{
	struct sink k;
	struct out *o = sink_open(&k, OUT_TEXT, 0);

	(void)state;
	out_put_u64(o, 0);
	out_putc(o, ' ');
	out_put_i64(o, -1);
	out_putc(o, ' ');
	out_put_hex(o, 0, 1);
	out_putc(o, ' ');
	out_put_hex(o, UINT64_MAX, 4);
	out_putc(o, ' ');
	out_put_flags(o, colours, 0, 2);
	sink_is(&k, "0 -1 0x0 0xffffffffffffffff []");
}

/* A field set twice keeps its place and its last value; an object entered
 * again after others were set, in an object itself out of order. */
static void test_out_twice(void **state)
{
	struct sink k;
	struct out *o = sink_open(&k, OUT_JSON, 0);

	(void)state;
	out_begin(o, &test_group);
	out_u64(o, T_U, 1);
	out_obj_open(o, T_SUB);
	out_u64(o, S_B, 2);
	out_close(o);
	out_str(o, T_ID, "first");
	out_u64(o, T_U, 3);
	out_obj_open(o, T_SUB);
	out_u64(o, S_A, 4);
	out_u64(o, S_B, 5);
	out_close(o);
	out_null(o, T_ID);
	out_end(o);
	sink_is(&k, "{\"id\":null,\"u\":3,\"sub\":{\"a\":4,\"b\":5}}\n");
}

enum { J_S, J_D, J_M, J_SUB, J_E, J_A, J_EA, J_EO, J__N };
static const struct out_field jc_fields[J__N] = {
	[J_S] = F("s/\"", OUT_STR, 0),
	[J_D] = F("d", OUT_DOUBLE, 0),
	[J_M] = F("m", OUT_OBJECT, 0),
	[J_SUB] = F("sub", OUT_OBJECT, 0, .sub = &sub_group),
	[J_E] = F("e", OUT_OBJECT, 0, .sub = &sub_group),
	[J_A] = F("a", OUT_ARRAY, 0, .sub = &elem_group),
	[J_EA] = F("ea", OUT_ARRAY, 0, .names = colours),
	[J_EO] = F("eo", OUT_ARRAY, 0, .sub = &elem_group),
};
static const struct out_group jc_group = OUT_GROUP("jc", jc_fields);

/* The record below with |flags|, and json-c's serialisation of it. */
static void check_json_c(const char *s, int flags, int jflags)
{
	struct sink k;
	struct out *o = sink_open(&k, OUT_JSON, 0);
	struct json_object *j;
	char *got;

	o->json_flags = flags;
	out_begin(o, &jc_group);
	out_obj_open(o, J_E);
	out_close(o);
	out_str(o, J_S, s);
	out_obj_open(o, J_M);
	out_member_u64(o, "x/y", 1);
	out_member_u64(o, "z", 2);
	out_close(o);
	out_arr_open(o, J_A);
	for (unsigned i = 0; i < 2; i++) {
		out_elem_obj(o);
		out_u64(o, E_N, i);
		out_str(o, E_NAME, s + i);
		out_close(o);
	}
	out_close(o);
	out_arr_open(o, J_EA);
	out_close(o);
	out_arr_open(o, J_EO);
	out_elem_obj(o);
	out_close(o);
	out_close(o);
	out_double(o, J_D, 0.1);
	out_obj_open(o, J_SUB);
	out_u64(o, S_B, 2);
	out_close(o);
	out_end(o);
	got = sink_close(&k);

	/* json-c keeps an object's keys in the order they were added */
	j = json_object_new_object();
	json_object_object_add(j, "s/\"", json_object_new_string(s));
	json_object_object_add(j, "d", json_object_new_double(0.1));
	{
		struct json_object *m = json_object_new_object(), *a = json_object_new_array();
		struct json_object *sub = json_object_new_object(), *eo = json_object_new_array();

		json_object_object_add(m, "x/y", json_object_new_int64(1));
		json_object_object_add(m, "z", json_object_new_int64(2));
		json_object_object_add(j, "m", m);
		json_object_object_add(sub, "b", json_object_new_int64(2));
		json_object_object_add(j, "sub", sub);
		json_object_object_add(j, "e", json_object_new_object());
		for (int i = 0; i < 2; i++) {
			struct json_object *e = json_object_new_object();

			json_object_object_add(e, "name", json_object_new_string(s + i));
			json_object_object_add(e, "n", json_object_new_int64(i));
			json_object_array_add(a, e);
		}
		json_object_object_add(j, "a", a);
		json_object_object_add(j, "ea", json_object_new_array());
		json_object_array_add(eo, json_object_new_object());
		json_object_object_add(j, "eo", eo);
	}
	{
		const char *want = json_object_to_json_string_ext(j, jflags);
		size_t n = strlen(want);

		assert_int_equal(strlen(got), n + 1);
		assert_memory_equal(got, want, n);
		assert_int_equal(got[n], '\n');
	}
	json_object_put(j);
	free(got);
}

static void test_out_json_c(void **state)
{
	char s[256];
	static const double dbl[] = { 0.1, 100, -0.0, 1e20, 1e-300, 123456789012345678.0,
				      -2.5, 1.0 / 3 };
	static const int layouts[][2] = {
		{ 0, JSON_C_TO_STRING_PLAIN },
		{ OUT_JSON_SPACED, JSON_C_TO_STRING_SPACED },
		{ OUT_JSON_PRETTY, JSON_C_TO_STRING_PRETTY },
		{ OUT_JSON_PRETTY | OUT_JSON_SPACED,
		  JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED },
		{ OUT_JSON_NOSLASH, JSON_C_TO_STRING_NOSLASHESCAPE },
		{ OUT_JSON_PRETTY | OUT_JSON_SPACED | OUT_JSON_NOSLASH,
		  JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
			  JSON_C_TO_STRING_NOSLASHESCAPE },
	};

	(void)state;
	/* every byte but NUL, and a path */
	for (int i = 1; i < 256; i++)
		s[i - 1] = (char)i;
	s[255] = '\0';
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		check_json_c(s, layouts[i][0], layouts[i][1]);
		check_json_c("/a/b", layouts[i][0], layouts[i][1]);
	}
	for (size_t i = 0; i < sizeof(dbl) / sizeof(dbl[0]); i++) {
		static const struct out_field fd[] = { F("d", OUT_DOUBLE, 0) };
		static const struct out_group gd = OUT_GROUP("d", fd);
		struct sink k;
		struct out *o = sink_open(&k, OUT_JSON, 0);
		struct json_object *j = json_object_new_object();
		char *got;

		out_begin(o, &gd);
		out_double(o, 0, dbl[i]);
		out_end(o);
		got = sink_close(&k);
		json_object_object_add(j, "d", json_object_new_double(dbl[i]));
		assert_int_equal(strncmp(got, json_object_to_json_string_ext(j, 0), strlen(got) - 1),
				 0);
		json_object_put(j);
		free(got);
	}
}

/* Parts taken and put together later, laid out with the document's flags. */
static void test_out_parts(void **state)
{
	static const struct out_field df[] = {
		{ .key = "items", .type = OUT_ARRAY, .sub = &elem_group },
	};
	static const struct out_group dg = OUT_GROUP("doc", df);
	struct out_list l = { 0 };
	struct sink k;
	struct out *o = sink_open(&k, OUT_JSON, 0);
	char *got;

	(void)state;
	assert_string_equal(out_list_text(&l), "[]");
	for (unsigned i = 0; i < 2; i++) {
		out_begin(o, &elem_group);
		out_u64(o, E_N, i);
		got = out_take(o);
		out_list_add(&l, got);
		free(got);
	}
	o->json_flags = OUT_JSON_PRETTY | OUT_JSON_SPACED;
	out_begin(o, &dg);
	out_json(o, 0, out_list_text(&l));
	out_end(o);
	out_write_json(o, "[]");
	out_list_free(&l);
	sink_is(&k, "{\n  \"items\": [\n    {\n      \"n\": 0\n    },\n"
				 "    {\n      \"n\": 1\n    }\n  ]\n}\n[\n]\n");
	out_list_add(&l, NULL);
	assert_null(out_list_text(&l));
	out_list_free(&l);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_out_text_v),
	cmocka_unit_test(test_out_text_vv),
	cmocka_unit_test(test_out_json),
	cmocka_unit_test(test_out_empty),
	cmocka_unit_test(test_out_long_values),
	cmocka_unit_test(test_out_line),
	cmocka_unit_test(test_out_fixed_take),
	cmocka_unit_test(test_out_put),
	cmocka_unit_test(test_out_twice),
	cmocka_unit_test(test_out_json_c),
	cmocka_unit_test(test_out_parts))
