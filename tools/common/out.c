// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * out.c - out_*: fields described once, rendered as labelled text or JSON
 * (json-c). See out.h for the model.
 */
#include "out.h"

#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

static const char hexdig[] = "0123456789abcdef";

/* ------------------------------------------------------------------------
 * The text buffer
 */

void out_flush(struct out *o)
{
	if (o->n)
		fwrite(o->b, 1, o->n, o->f);
	o->n = 0;
}

char *out_room(struct out *o, size_t need)
{
	if (OUT_BUF - o->n < need)
		out_flush(o);
	return o->b + o->n;
}

void out_putn(struct out *o, const char *p, size_t len)
{
	while (len) {
		size_t k;

		if (o->n == OUT_BUF)
			out_flush(o);
		k = OUT_BUF - o->n < len ? OUT_BUF - o->n : len;
		memcpy(o->b + o->n, p, k);
		o->n += k;
		p += k;
		len -= k;
	}
}

void out_puts(struct out *o, const char *s)
{
	out_putn(o, s, strlen(s));
}

void out_putc(struct out *o, char c)
{
	*out_room(o, 1) = c;
	o->n++;
}

void out_put_u64(struct out *o, uint64_t v)
{
	char t[20];
	int i = sizeof(t);

	do {
		t[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	out_putn(o, t + i, sizeof(t) - (size_t)i);
}

void out_put_i64(struct out *o, int64_t v)
{
	if (v < 0) {
		out_putc(o, '-');
		out_put_u64(o, (uint64_t)0 - (uint64_t)v);
	} else {
		out_put_u64(o, (uint64_t)v);
	}
}

void out_put_hex(struct out *o, uint64_t v, int digits)
{
	char t[18];
	int i = sizeof(t);

	while (v || digits > 0) {
		t[--i] = hexdig[v & 15];
		v >>= 4;
		digits--;
	}
	t[--i] = 'x';
	t[--i] = '0';
	out_putn(o, t + i, sizeof(t) - (size_t)i);
}

static void put_hexbytes(struct out *o, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char *w = out_room(o, 2);

		w[0] = hexdig[p[i] >> 4];
		w[1] = hexdig[p[i] & 15];
		o->n += 2;
	}
}

void out_put_flags(struct out *o, const struct wire_tok *names, uint64_t v, int digits)
{
	bool first = true;

	out_putc(o, '[');
	for (unsigned i = 0; i < 64; i++) {
		uint64_t bit = UINT64_C(1) << i;
		const char *name;

		if (!(v & bit))
			continue;
		if (!first)
			out_putc(o, '|');
		first = false;
		name = wire_tok_name(names, (uint32_t)bit);
		if (name && bit <= UINT32_MAX)
			out_puts(o, name);
		else
			out_put_hex(o, bit, digits);
	}
	out_putc(o, ']');
}

/* ------------------------------------------------------------------------
 * Records
 */

/* |v|, noting in o->err that json-c could not make it. */
static struct json_object *made(struct out *o, struct json_object *v)
{
	if (!v)
		o->err = true;
	return v;
}

void out_init(struct out *o, FILE *f, enum out_mode mode, int verbose, int json_flags)
{
	o->f = f;
	o->mode = mode;
	o->verbose = verbose;
	o->json_flags = json_flags;
	o->indent = "    ";
	o->open = false;
	o->err = false;
	o->line = false;
	o->kv = ' ';
	o->depth = 0;
	o->unset = mode == OUT_JSON ? made(o, json_object_new_object()) : NULL;
	o->n = 0;
}

void out_fini(struct out *o)
{
	out_flush(o);
	json_object_put(o->unset);
	o->unset = NULL;
}

/* An object holding every key of |g|, each marked unset. */
static struct json_object *prefilled(struct out *o, const struct out_group *g)
{
	struct json_object *j = made(o, json_object_new_object());

	for (size_t i = 0; j && g && i < g->n; i++)
		if (json_object_object_add_ex(j, g->f[i].key, json_object_get(o->unset),
					      JSON_C_OBJECT_ADD_KEY_IS_NEW |
						      JSON_C_OBJECT_ADD_CONSTANT_KEY) < 0)
			o->err = true;
	return j;
}

/* Drop the keys no call set, at every depth. */
static void prune(struct out *o, struct json_object *j)
{
	if (json_object_is_type(j, json_type_array)) {
		size_t n = json_object_array_length(j);

		for (size_t i = 0; i < n; i++)
			prune(o, json_object_array_get_idx(j, i));
		return;
	}
	if (!json_object_is_type(j, json_type_object))
		return;
	for (struct lh_entry *e = json_object_get_object(j)->head; e;) {
		struct lh_entry *next = e->next;
		struct json_object *v = (struct json_object *)lh_entry_v(e);

		if (v == o->unset)
			lh_table_delete_entry(json_object_get_object(j), e);
		else if (json_object_is_type(v, json_type_object) ||
			 json_object_is_type(v, json_type_array))
			prune(o, v);
		e = next;
	}
}

static void push(struct out *o, const struct out_group *g, const struct out_field *arr,
		 struct json_object *j)
{
	if (o->depth >= OUT_DEPTH)
		abort(); /* a field table nested deeper than OUT_DEPTH */
	o->st[o->depth++] = (struct out_frame){ .g = g, .arr = arr, .j = j, .first = true };
}

void out_begin(struct out *o, const struct out_group *g)
{
	o->err = o->mode == OUT_JSON && !o->unset;
	o->depth = 0;
	o->open = false;
	o->line = false;
	push(o, g, NULL, o->mode == OUT_JSON ? prefilled(o, g) : NULL);
}

struct json_object *out_take(struct out *o)
{
	struct json_object *j = NULL;

	if (o->mode == OUT_JSON && o->depth > 0) {
		j = o->st[0].j;
		prune(o, j);
	}
	o->depth = 0;
	o->open = false;
	if (o->err) {
		json_object_put(j);
		j = NULL;
	}
	return j;
}

void out_end(struct out *o)
{
	if (o->mode == OUT_JSON && o->depth > 0 && o->st[0].j) {
		struct json_object *j = o->st[0].j;
		size_t len;
		const char *txt;

		prune(o, j);
		txt = json_object_to_json_string_length(j, o->json_flags, &len);
		out_putn(o, txt, len);
		out_putc(o, '\n');
		json_object_put(j);
	}
	out_eol(o);
	o->depth = 0;
	out_flush(o);
}

const struct out_group *out_group_cur(const struct out *o)
{
	return o->depth > 0 ? o->st[o->depth - 1].g : NULL;
}

/* ------------------------------------------------------------------------
 * Fields
 */

static const struct out_field *field(const struct out *o, unsigned id)
{
	const struct out_frame *fr;

	if (o->depth <= 0)
		return NULL;
	fr = &o->st[o->depth - 1];
	if (fr->arr || !fr->g || id >= fr->g->n)
		return NULL;
	return &fr->g->f[id];
}

static bool shown(const struct out *o, const struct out_field *f)
{
	return o->mode == OUT_TEXT && f->level && (o->line || f->level <= o->verbose);
}

static void key(struct out *o, const struct out_field *f)
{
	if (o->line) {
		out_putc(o, ' ');
		out_puts(o, f->label ? f->label : f->key);
		out_putc(o, o->kv);
		return;
	}
	if (!o->open) {
		out_puts(o, o->indent);
		o->open = true;
	} else {
		out_puts(o, ", ");
	}
	out_puts(o, f->label ? f->label : f->key);
	out_putc(o, ' ');
}

/* Field |f| of the innermost object is |v| (NULL: JSON null). */
static void jset(struct out *o, const struct out_field *f, struct json_object *v)
{
	struct json_object *j = o->st[o->depth - 1].j;

	if (!j || json_object_object_add_ex(j, f->key, v, JSON_C_OBJECT_ADD_CONSTANT_KEY) < 0) {
		o->err = true;
		json_object_put(v);
	}
}

/* The field to write: NULL when the call is for nothing in this mode. */
static const struct out_field *target(struct out *o, unsigned id)
{
	const struct out_field *f = field(o, id);

	if (!f)
		return NULL;
	if (o->mode == OUT_JSON)
		return f;
	if (!shown(o, f))
		return NULL;
	key(o, f);
	return f;
}

void out_u64(struct out *o, unsigned id, uint64_t v)
{
	const struct out_field *f = target(o, id);

	if (!f)
		return;
	if (o->mode == OUT_JSON)
		jset(o, f, made(o, json_object_new_uint64(v)));
	else if (f->type == OUT_HEX)
		out_put_hex(o, v, f->digits);
	else
		out_put_u64(o, v);
}

void out_i64(struct out *o, unsigned id, int64_t v)
{
	const struct out_field *f = target(o, id);

	if (!f)
		return;
	if (o->mode == OUT_JSON)
		jset(o, f, made(o, json_object_new_int64(v)));
	else
		out_put_i64(o, v);
}

void out_hex(struct out *o, unsigned id, uint64_t v)
{
	const struct out_field *f = target(o, id);

	if (!f)
		return;
	if (o->mode == OUT_JSON)
		jset(o, f, made(o, json_object_new_uint64(v)));
	else
		out_put_hex(o, v, f->digits);
}

void out_bool(struct out *o, unsigned id, bool v)
{
	const struct out_field *f = target(o, id);

	if (!f)
		return;
	if (o->mode == OUT_JSON)
		jset(o, f, made(o, json_object_new_boolean(v)));
	else
		out_puts(o, v ? "true" : "false");
}

void out_str(struct out *o, unsigned id, const char *v)
{
	const struct out_field *f = target(o, id);

	if (!f)
		return;
	if (o->mode == OUT_JSON) {
		jset(o, f, v ? made(o, json_object_new_string(v)) : NULL);
	} else if (f->type == OUT_QUOTED) {
		out_putc(o, '"');
		out_puts(o, v ? v : "");
		out_putc(o, '"');
	} else {
		/* one token whatever the value: absent "?", empty "" */
		out_puts(o, !v ? "?" : *v ? v : "\"\"");
	}
}

void out_bytes(struct out *o, unsigned id, const uint8_t *p, size_t len)
{
	const struct out_field *f = target(o, id);
	char small[256];
	char *buf = small;

	if (!f)
		return;
	if (o->mode == OUT_TEXT) {
		put_hexbytes(o, p, len);
		return;
	}
	if (len * 2 + 1 > sizeof(small)) {
		buf = malloc(len * 2 + 1);
		if (!buf) {
			o->err = true;
			jset(o, f, NULL);
			return;
		}
	}
	for (size_t i = 0; i < len; i++) {
		buf[2 * i] = hexdig[p[i] >> 4];
		buf[2 * i + 1] = hexdig[p[i] & 15];
	}
	buf[len * 2] = '\0';
	jset(o, f, made(o, json_object_new_string(buf)));
	if (buf != small)
		free(buf);
}

void out_double(struct out *o, unsigned id, double v)
{
	const struct out_field *f = target(o, id);
	char t[64];
	int n;

	if (!f)
		return;
	n = snprintf(t, sizeof(t), "%.*f", (int)f->digits, v);
	if (n < 0)
		n = 0;
	else if ((size_t)n >= sizeof(t))
		n = sizeof(t) - 1;
	if (o->mode == OUT_TEXT)
		out_putn(o, t, (size_t)n);
	else if (f->type == OUT_FIXED)
		jset(o, f, made(o, json_object_new_double_s(v, t)));
	else
		jset(o, f, made(o, json_object_new_double(v)));
}

void out_enum(struct out *o, unsigned id, uint64_t v)
{
	const struct out_field *f = target(o, id);
	const char *name;

	if (!f)
		return;
	if (o->mode == OUT_JSON) {
		jset(o, f, made(o, json_object_new_uint64(v)));
		return;
	}
	out_put_u64(o, v);
	name = v <= UINT32_MAX ? wire_tok_name(f->names, (uint32_t)v) : NULL;
	if (!name)
		name = f->unknown;
	if (!name)
		return;
	if (f->style == OUT_NAME_PAREN) {
		out_puts(o, " (");
		out_puts(o, name);
		out_putc(o, ')');
	} else {
		out_putc(o, ' ');
		out_puts(o, name);
	}
}

void out_flags(struct out *o, unsigned id, uint64_t v)
{
	const struct out_field *f = target(o, id);

	if (!f)
		return;
	if (o->mode == OUT_JSON) {
		jset(o, f, made(o, json_object_new_uint64(v)));
		return;
	}
	out_put_hex(o, v, f->digits);
	if (v) {
		out_putc(o, ' ');
		out_put_flags(o, f->names, v, f->digits);
	}
}

void out_null(struct out *o, unsigned id)
{
	const struct out_field *f = field(o, id);

	if (f && o->mode == OUT_JSON)
		jset(o, f, NULL);
}

void out_json(struct out *o, unsigned id, struct json_object *v)
{
	const struct out_field *f = field(o, id);

	if (f && o->mode == OUT_JSON)
		jset(o, f, v);
	else
		json_object_put(v);
}

/* ------------------------------------------------------------------------
 * Objects and arrays
 */

void out_obj_open(struct out *o, unsigned id)
{
	const struct out_field *f = field(o, id);
	struct json_object *j = NULL;

	if (!f)
		abort(); /* a call that does not match its table */
	if (o->mode == OUT_JSON) {
		struct json_object *parent = o->st[o->depth - 1].j;

		if (!json_object_object_get_ex(parent, f->key, &j) || j == o->unset ||
		    !json_object_is_type(j, json_type_object)) {
			j = prefilled(o, f->sub);
			jset(o, f, j);
		}
	}
	push(o, f->sub, NULL, j);
}

void out_arr_open(struct out *o, unsigned id)
{
	const struct out_field *f = field(o, id);
	struct json_object *j = NULL;

	if (!f)
		abort();
	if (o->mode == OUT_JSON) {
		j = made(o, json_object_new_array());
		jset(o, f, j);
	}
	push(o, f->sub, f, j);
}

static const struct out_field *array(const struct out *o)
{
	const struct out_frame *fr = o->depth > 0 ? &o->st[o->depth - 1] : NULL;

	if (!fr || !fr->arr)
		abort(); /* an element outside an array */
	return fr->arr;
}

void out_elem_obj(struct out *o)
{
	const struct out_field *a = array(o);
	struct json_object *j = NULL;

	if (o->mode == OUT_JSON) {
		j = prefilled(o, a->sub);
		if (json_object_array_add(o->st[o->depth - 1].j, j) < 0) {
			o->err = true;
			json_object_put(j);
			j = NULL;
		}
	}
	push(o, a->sub, NULL, j);
}

/* Text: the array's label before the first element, its separator after. */
static bool elem_text(struct out *o, const struct out_field *a)
{
	struct out_frame *fr = &o->st[o->depth - 1];

	if (!shown(o, a))
		return false;
	if (fr->first)
		key(o, a);
	else
		out_putc(o, a->sep);
	fr->first = false;
	return true;
}

/* An element of the innermost array: JSON appends |jv| (made by the caller
 * in JSON mode only); text: true when the caller is to write the value. */
static bool elem(struct out *o, struct json_object *jv)
{
	const struct out_field *a = array(o);

	if (o->mode == OUT_JSON) {
		if (!jv || json_object_array_add(o->st[o->depth - 1].j, jv) < 0) {
			o->err = true;
			json_object_put(jv);
		}
		return false;
	}
	return elem_text(o, a);
}

void out_elem_str(struct out *o, const char *s)
{
	if (elem(o, out_is_json(o) ? json_object_new_string(s) : NULL))
		out_puts(o, s);
}

void out_elem_u64(struct out *o, uint64_t v)
{
	if (elem(o, out_is_json(o) ? json_object_new_uint64(v) : NULL))
		out_put_u64(o, v);
}

void out_elem_bool(struct out *o, bool v)
{
	if (elem(o, out_is_json(o) ? json_object_new_boolean(v) : NULL))
		out_puts(o, v ? "true" : "false");
}

void out_member_u64(struct out *o, const char *key, uint64_t v)
{
	struct json_object *j = o->depth > 0 ? o->st[o->depth - 1].j : NULL;

	if (o->mode == OUT_JSON && j && json_object_is_type(j, json_type_object) &&
	    json_object_object_add(j, key, made(o, json_object_new_uint64(v))) < 0)
		o->err = true;
}

void out_elem_name(struct out *o, uint64_t v)
{
	const struct out_field *a = array(o);
	const char *name = v <= UINT32_MAX ? wire_tok_name(a->names, (uint32_t)v) : NULL;
	struct json_object *jv = NULL;

	if (out_is_json(o))
		jv = name ? json_object_new_string(name) : json_object_new_int64((int64_t)v);
	if (!elem(o, jv))
		return;
	if (name)
		out_puts(o, name);
	else
		out_put_u64(o, v);
}

void out_close(struct out *o)
{
	if (o->depth > 1)
		o->depth--;
}

void out_line(struct out *o, bool on, char kv)
{
	o->line = on && o->mode == OUT_TEXT;
	o->kv = kv;
}

void out_eol(struct out *o)
{
	if (o->mode == OUT_TEXT && o->open)
		out_putc(o, '\n');
	o->open = false;
}

void out_label(struct out *o, unsigned id)
{
	const struct out_field *f = field(o, id);

	if (f && o->mode == OUT_TEXT)
		key(o, f);
}
