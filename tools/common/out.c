// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * out.c - out_*: fields described once, rendered as labelled text or JSON
 * written as it comes. See out.h for the model.
 */
#define _GNU_SOURCE
#include "out.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* |b| as two lower-case hex digits at |w|. */
static void hex2(char *w, uint8_t b)
{
	w[0] = wire_hex_digit(b >> 4);
	w[1] = wire_hex_digit(b & 15);
}

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

void out_printf(struct out *o, const char *fmt, ...)
{
	char t[256], *big = NULL;
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(t, sizeof(t), fmt, ap);
	va_end(ap);
	if (k < 0)
		return;
	if ((size_t)k < sizeof(t)) {
		out_putn(o, t, (size_t)k);
		return;
	}
	va_start(ap, fmt);
	k = vasprintf(&big, fmt, ap);
	va_end(ap);
	if (k >= 0)
		out_putn(o, big, (size_t)k);
	free(big);
}

void out_putc(struct out *o, char c)
{
	*out_room(o, 1) = c;
	o->n++;
}

/* tcpdump -X's layout (out.h). */
void out_put_hexdump(struct out *s, const uint8_t *p, size_t len, bool squeeze)
{
	bool starred = false;

	for (size_t off = 0; off < len; off += 16) {
		size_t n = len - off < 16 ? len - off : 16;
		char *w;
		size_t k = 0;

		if (squeeze && off && n == 16 && off + 16 < len &&
		    memcmp(p + off, p + off - 16, 16) == 0) {
			if (!starred)
				out_puts(s, "\t*\n");
			starred = true;
			continue;
		}
		starred = false;

		/* offset up to 16 digits, 8 groups of 5, 2 + 16 ASCII, newline */
		w = out_room(s, 1 + 2 + 16 + 2 + 40 + 2 + 16 + 1);
		w[k++] = '\t';
		w[k++] = '0';
		w[k++] = 'x';
		{
			int digits = 4;

			while (digits < 16 && (off >> (4 * digits)))
				digits++;
			for (int d = digits - 1; d >= 0; d--)
				w[k++] = wire_hex_digit((off >> (4 * d)) & 15);
		}
		w[k++] = ':';
		w[k++] = ' ';
		for (size_t i = 0; i < 16; i += 2) {
			w[k++] = ' ';
			for (size_t j = i; j < i + 2; j++) {
				if (j < n) {
					w[k++] = wire_hex_digit(p[off + j] >> 4);
					w[k++] = wire_hex_digit(p[off + j] & 15);
				} else {
					w[k++] = ' ';
					w[k++] = ' ';
				}
			}
		}
		w[k++] = ' ';
		w[k++] = ' ';
		for (size_t i = 0; i < n; i++) {
			uint8_t c = p[off + i];

			w[k++] = (c >= 0x20 && c < 0x7f) ? (char)c : '.';
		}
		w[k++] = '\n';
		s->n += k;
	}
}

/* |v| in decimal at the end of |t|; returns where the digits start. */
static size_t dec_u64(char t[20], uint64_t v)
{
	size_t i = 20;

	do {
		t[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return i;
}

void out_put_u64(struct out *o, uint64_t v)
{
	char t[20];
	size_t i = dec_u64(t, v);

	out_putn(o, t + i, sizeof(t) - i);
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
		t[--i] = wire_hex_digit(v & 15);
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
		hex2(out_room(o, 2), p[i]);
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
 * The JSON record: its text, written as the calls come
 */

/* Room for |need| more bytes of the record; NULL (and o->err) without
 * memory. The buffer keeps the size of the largest record. */
static char *jroom(struct out *o, size_t need)
{
	if (o->err)
		return NULL;
	if (o->jcap - o->jn < need) {
		size_t cap = o->jcap ? o->jcap : 4096;
		char *p;

		while (cap - o->jn < need)
			cap *= 2;
		p = realloc(o->jb, cap);
		if (!p) {
			o->err = true;
			return NULL;
		}
		o->jb = p;
		o->jcap = cap;
	}
	return o->jb + o->jn;
}

static void jput(struct out *o, const char *p, size_t len)
{
	char *w = jroom(o, len);

	if (w) {
		memcpy(w, p, len);
		o->jn += len;
	}
}

static void jputc(struct out *o, char c)
{
	char *w = jroom(o, 1);

	if (w) {
		*w = c;
		o->jn++;
	}
}

static void jput_u64(struct out *o, uint64_t v)
{
	char t[20];
	size_t i = dec_u64(t, v);

	jput(o, t + i, sizeof(t) - i);
}

static void jput_i64(struct out *o, int64_t v)
{
	if (v < 0) {
		jputc(o, '-');
		jput_u64(o, (uint64_t)0 - (uint64_t)v);
	} else {
		jput_u64(o, (uint64_t)v);
	}
}

/* The escape of byte |c| in a JSON string into |t| (its length), or 0 when
 * it stands for itself: json-c's choice of escapes. */
static size_t esc(unsigned char c, bool slash, char t[6])
{
	char e;

	if (c >= 0x20 && c != '"' && c != '\\' && (c != '/' || !slash))
		return 0;
	switch (c) {
	case '\b': e = 'b'; break;
	case '\f': e = 'f'; break;
	case '\n': e = 'n'; break;
	case '\r': e = 'r'; break;
	case '\t': e = 't'; break;
	case '"':
	case '\\':
	case '/': e = (char)c; break;
	default:
		memcpy(t, "\\u00", 4);
		hex2(t + 4, (uint8_t)c);
		return 6;
	}
	t[0] = '\\';
	t[1] = e;
	return 2;
}

static void jput_str(struct out *o, const char *s)
{
	bool slash = !(o->json_flags & OUT_JSON_NOSLASH);
	size_t from = 0, i;

	jputc(o, '"');
	for (i = 0; s[i]; i++) {
		char t[6];
		size_t k = esc((unsigned char)s[i], slash, t);

		if (!k)
			continue;
		jput(o, s + from, i - from);
		jput(o, t, k);
		from = i + 1;
	}
	jput(o, s + from, i - from);
	jputc(o, '"');
}

/* json-c's double: "%.17g", a decimal point where a locale put a comma,
 * ".0" after a whole number, NaN and Infinity as words. */
static void jput_double(struct out *o, double v)
{
	char t[48];
	char *c;
	int n;

	if (isnan(v)) {
		jput(o, "NaN", 3);
		return;
	}
	if (isinf(v)) {
		if (v > 0)
			jput(o, "Infinity", 8);
		else
			jput(o, "-Infinity", 9);
		return;
	}
	n = snprintf(t, sizeof(t), "%.17g", v);
	if (n < 0 || (size_t)n >= sizeof(t)) {
		jput(o, "null", 4);
		return;
	}
	c = strchr(t, ',');
	if (c)
		*c = '.';
	jput(o, t, (size_t)n);
	if (!strchr(t, '.') && !strchr(t, 'e'))
		jput(o, ".0", 2);
}

/* Past the JSON string that starts at s[i] (a '"'). */
static size_t skip_string(const char *s, size_t i, size_t n)
{
	for (i++; i < n; i++) {
		if (s[i] == '\\')
			i++;
		else if (s[i] == '"')
			return i + 1;
	}
	return n;
}

/* Past the JSON value that starts at s[i]. */
static size_t skip_value(const char *s, size_t i, size_t n)
{
	int depth = 0;

	while (i < n) {
		char c = s[i];

		if (c == '"') {
			i = skip_string(s, i, n);
			continue;
		}
		if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			if (--depth < 0)
				break;
		} else if (c == ',' && depth == 0) {
			break;
		}
		i++;
	}
	return i;
}

/* ------------------------------------------------------------------------
 * Frames and members
 */

static struct out_frame *top(struct out *o)
{
	return &o->st[o->depth - 1];
}

/* Enter a frame; in JSON its text starts with |br|. */
static void push(struct out *o, const struct out_group *g, const struct out_field *arr,
		 size_t mem, char br)
{
	if (o->depth >= OUT_DEPTH)
		abort(); /* a field table nested deeper than OUT_DEPTH */
	o->st[o->depth++] = (struct out_frame){ .g = g, .arr = arr, .start = o->jn,
						.m0 = o->nmem, .mem = mem, .last = -1,
						.sorted = true, .first = true };
	if (o->mode == OUT_JSON)
		jputc(o, br);
}

/* The id a map's key gets: after the group's fields and the keys so far. */
static unsigned map_id(const struct out_frame *fr)
{
	unsigned n = fr->g ? (unsigned)fr->g->n : 0;

	return (unsigned)(fr->last + 1) > n ? (unsigned)(fr->last + 1) : n;
}

/* A member entry for field |id| of the innermost object, whose text starts
 * at |start|; NULL without memory. */
static struct out_mem *mem_add(struct out *o, unsigned id, size_t start)
{
	struct out_frame *fr = top(o);
	struct out_mem *m;

	if (o->nmem == o->capmem) {
		size_t cap = o->capmem ? 2 * o->capmem : 64;

		m = realloc(o->mem, cap * sizeof(*m));
		if (!m) {
			o->err = true;
			return NULL;
		}
		o->mem = m;
		o->capmem = cap;
	}
	if ((int)id <= fr->last)
		fr->sorted = false;
	else
		fr->last = (int)id;
	fr->first = false;
	m = &o->mem[o->nmem++];
	*m = (struct out_mem){ .id = id, .start = start };
	return m;
}

/* Start member |id| named |key| of the innermost object: its key, for the
 * caller to write the value and then jdone(). SIZE_MAX: nothing to write. */
static size_t jkey(struct out *o, unsigned id, const char *key, bool obj)
{
	struct out_mem *m;
	size_t start;

	if (o->err)
		return SIZE_MAX;
	if (!top(o)->first)
		jputc(o, ',');
	start = o->jn;
	m = mem_add(o, id, start);
	if (!m)
		return SIZE_MAX;
	m->obj = obj;
	jput_str(o, key);
	jputc(o, ':');
	o->mem[o->nmem - 1].val = o->jn;
	return o->err ? SIZE_MAX : o->nmem - 1;
}

static size_t jfield(struct out *o, const struct out_field *f)
{
	return jkey(o, (unsigned)(f - top(o)->g->f), f->key, false);
}

static void jdone(struct out *o, size_t m)
{
	if (m != SIZE_MAX && !o->err)
		o->mem[m].end = o->jn;
}

/* Close the innermost object, whose members came out of table order, more
 * than once or were moved: its text again with each field once (its last
 * value) in field order. */
static void reorder(struct out *o, const struct out_frame *fr)
{
	const struct out_mem *m = o->mem + fr->m0;
	size_t n = o->nmem - fr->m0, k = 0, len = 2, w = 0;
	size_t *ord = malloc((n ? n : 1) * sizeof(*ord));
	char *t;

	if (!ord) {
		o->err = true;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		bool later = false;
		size_t p;

		for (size_t j = i + 1; j < n && !later; j++)
			later = !m[j].dead && m[j].id == m[i].id;
		if (m[i].dead || later)
			continue;
		for (p = k++; p > 0 && m[ord[p - 1]].id > m[i].id; p--)
			ord[p] = ord[p - 1];
		ord[p] = i;
		len += m[i].end - m[i].start + 1;
	}
	t = malloc(len);
	if (!t || !jroom(o, 1)) {
		o->err = true;
		free(ord);
		free(t);
		return;
	}
	t[w++] = '{';
	for (size_t i = 0; i < k; i++) {
		const struct out_mem *e = &m[ord[i]];

		if (i)
			t[w++] = ',';
		memcpy(t + w, o->jb + e->start, e->end - e->start);
		w += e->end - e->start;
	}
	t[w++] = '}';
	memcpy(o->jb + fr->start, t, w);
	o->jn = fr->start + w;
	free(t);
	free(ord);
}

/* Leave the innermost frame; in JSON close its text. */
static void pop(struct out *o)
{
	struct out_frame *fr = top(o);

	if (o->mode == OUT_JSON && !o->err) {
		if (fr->arr)
			jputc(o, ']');
		else if (fr->sorted)
			jputc(o, '}');
		else
			reorder(o, fr);
		o->nmem = fr->m0;
		if (fr->mem != SIZE_MAX && !o->err)
			o->mem[fr->mem].end = o->jn;
	}
	o->depth--;
}

/* Whether the escaped key text |s| (|n| bytes) is |key|. */
static bool key_is(const char *s, size_t n, const char *key, bool slash)
{
	size_t p = 0;

	for (; *key; key++) {
		char t[6];
		size_t k = esc((unsigned char)*key, slash, t);

		if (!k) {
			t[0] = *key;
			k = 1;
		}
		if (n - p < k || memcmp(s + p, t, k))
			return false;
		p += k;
	}
	return p == n;
}

/* The member entries of the innermost object from its text (an object
 * entered again, whose entries went when it closed). */
static void rescan(struct out *o)
{
	struct out_frame *fr = top(o);
	bool slash = !(o->json_flags & OUT_JSON_NOSLASH);
	size_t p = fr->start + 1;

	while (p < o->jn && !o->err) {
		size_t ks = p, ke = skip_string(o->jb, p, o->jn);
		unsigned id = map_id(fr);
		struct out_mem *m;

		for (size_t i = 0; fr->g && i < fr->g->n; i++)
			if (key_is(o->jb + ks + 1, ke - ks - 2, fr->g->f[i].key, slash)) {
				id = (unsigned)i;
				break;
			}
		m = mem_add(o, id, ks);
		if (!m)
			return;
		m->val = ke + 1;
		m->obj = m->val < o->jn && o->jb[m->val] == '{';
		m->end = skip_value(o->jb, m->val, o->jn);
		p = m->end + 1;
	}
}

/* Enter again the object of member |mi| of the innermost object: its text
 * without the '}' moves to the end, where members can be added. */
static void reopen(struct out *o, const struct out_field *f, size_t mi)
{
	size_t val = o->mem[mi].val, len = o->mem[mi].end - val - 1;
	unsigned id = o->mem[mi].id;
	size_t m;

	o->mem[mi].dead = true;
	top(o)->sorted = false;
	m = jkey(o, id, f->key, true);
	if (m == SIZE_MAX || !jroom(o, len)) {
		push(o, f->sub, NULL, SIZE_MAX, '{');
		return;
	}
	o->st[o->depth++] = (struct out_frame){ .g = f->sub, .start = o->jn, .m0 = o->nmem,
						.mem = m, .last = -1, .sorted = true,
						.first = true };
	memcpy(o->jb + o->jn, o->jb + val, len);
	o->jn += len;
	rescan(o);
}

/* ------------------------------------------------------------------------
 * Records
 */

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
	o->jb = NULL;
	o->jn = o->jcap = 0;
	o->mem = NULL;
	o->nmem = o->capmem = 0;
	o->n = 0;
}

void out_fini(struct out *o)
{
	out_flush(o);
	free(o->jb);
	free(o->mem);
	o->jb = NULL;
	o->mem = NULL;
	o->jn = o->jcap = o->nmem = o->capmem = 0;
}

struct out *out_new(FILE *f, enum out_mode mode, int verbose, int json_flags)
{
	struct out *o = malloc(sizeof(*o));

	if (o)
		out_init(o, f, mode, verbose, json_flags);
	return o;
}

void out_free(struct out *o)
{
	if (!o)
		return;
	out_fini(o);
	free(o);
}

void out_begin(struct out *o, const struct out_group *g)
{
	o->err = false;
	o->depth = 0;
	o->open = false;
	o->line = false;
	o->jn = 0;
	o->nmem = 0;
	push(o, g, NULL, SIZE_MAX, '{');
}

static void indent(struct out *o, int level)
{
	for (int i = 0; i < level; i++)
		out_putn(o, "  ", 2);
}

/* The compact JSON text |s| laid out as json-c's SPACED and PRETTY do,
 * into the text buffer. */
static void layout(struct out *o, const char *s, size_t n)
{
	bool pretty = o->json_flags & OUT_JSON_PRETTY;
	bool spaced = (o->json_flags & OUT_JSON_SPACED) && !pretty;
	int level = 0;

	for (size_t i = 0; i < n;) {
		char c = s[i];
		size_t e;

		switch (c) {
		case '"':
			e = skip_string(s, i, n);
			out_putn(o, s + i, e - i);
			i = e;
			continue;
		case '{':
		case '[':
			out_putc(o, c);
			if (i + 1 < n && (s[i + 1] == '}' || s[i + 1] == ']')) {
				/* as json-c: an empty one breaks its line */
				if (pretty) {
					out_putc(o, '\n');
					indent(o, level);
				} else if (spaced) {
					out_putc(o, ' ');
				}
				out_putc(o, s[i + 1]);
				i += 2;
				continue;
			}
			level++;
			break;
		case ',':
			out_putc(o, ',');
			break;
		case ':':
			out_putc(o, ':');
			if (o->json_flags & OUT_JSON_SPACED)
				out_putc(o, ' ');
			i++;
			continue;
		case '}':
		case ']':
			level--;
			if (pretty) {
				out_putc(o, '\n');
				indent(o, level);
			} else if (spaced) {
				out_putc(o, ' ');
			}
			out_putc(o, c);
			i++;
			continue;
		default:
			for (e = i; e < n && !strchr("\"{}[],:", s[e]); e++)
				;
			out_putn(o, s + i, e - i);
			i = e;
			continue;
		}
		/* after an opening bracket or a comma: the next member */
		if (pretty) {
			out_putc(o, '\n');
			indent(o, level);
		} else if (spaced) {
			out_putc(o, ' ');
		}
		i++;
	}
}

/* Close every frame of the record: true when its text is whole. */
static bool finish(struct out *o)
{
	while (o->depth > 0)
		pop(o);
	return o->mode == OUT_JSON && !o->err;
}

char *out_take(struct out *o)
{
	char *t = NULL;

	if (o->mode == OUT_JSON && o->depth > 0 && finish(o)) {
		t = malloc(o->jn + 1);
		if (t) {
			memcpy(t, o->jb, o->jn);
			t[o->jn] = '\0';
		}
	}
	o->depth = 0;
	o->open = false;
	return t;
}

void out_end(struct out *o)
{
	if (o->mode == OUT_JSON && o->depth > 0 && finish(o)) {
		if (o->json_flags & (OUT_JSON_SPACED | OUT_JSON_PRETTY)) {
			layout(o, o->jb, o->jn);
			out_putc(o, '\n');
		} else {
			/* a record can be a megabyte: written from where it is */
			jputc(o, '\n');
			if (!o->err) {
				out_flush(o);
				fwrite(o->jb, 1, o->jn, o->f);
			}
		}
	}
	out_eol(o);
	o->depth = 0;
	out_flush(o);
}

void out_write_json(struct out *o, const char *json)
{
	if (!json)
		return;
	if (o->json_flags & (OUT_JSON_SPACED | OUT_JSON_PRETTY))
		layout(o, json, strlen(json));
	else
		out_puts(o, json);
	out_putc(o, '\n');
	out_flush(o);
}

void out_list_add(struct out_list *l, const char *json)
{
	size_t len;

	if (!json || l->err) {
		l->err = true;
		return;
	}
	len = strlen(json);
	if (l->cap - l->n < len + 3) {
		size_t cap = l->cap ? 2 * l->cap : 256;
		char *s;

		while (cap - l->n < len + 3)
			cap *= 2;
		s = realloc(l->s, cap);
		if (!s) {
			l->err = true;
			return;
		}
		l->s = s;
		l->cap = cap;
	}
	l->s[l->n] = l->n ? ',' : '[';
	memcpy(l->s + l->n + 1, json, len);
	l->n += len + 1;
}

const char *out_list_text(struct out_list *l)
{
	if (l->err)
		return NULL;
	if (!l->n)
		return "[]";
	/* out_list_add() leaves room for these two */
	l->s[l->n] = ']';
	l->s[l->n + 1] = '\0';
	return l->s;
}

void out_list_free(struct out_list *l)
{
	free(l->s);
	*l = (struct out_list){ 0 };
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

/*
 * A value as JSON writes it: a number, a string to quote (JV_STR), JSON
 * text as it stands (JV_RAW: literals, nested documents) or bytes as a hex
 * string.
 */
struct jval {
	enum { JV_U64, JV_I64, JV_DOUBLE, JV_STR, JV_RAW, JV_BYTES } kind;
	uint64_t u;
	int64_t i;
	double d;
	const char *s;
	const uint8_t *p;
	size_t len;
};

static void jput_bytes(struct out *o, const uint8_t *p, size_t len)
{
	char *w = jroom(o, 2 * len + 2);

	if (!w)
		return;
	*w++ = '"';
	for (size_t i = 0; i < len; i++, w += 2)
		hex2(w, p[i]);
	*w = '"';
	o->jn += 2 * len + 2;
}

static void jput_val(struct out *o, const struct jval *v)
{
	switch (v->kind) {
	case JV_U64: jput_u64(o, v->u); break;
	case JV_I64: jput_i64(o, v->i); break;
	case JV_DOUBLE: jput_double(o, v->d); break;
	case JV_STR: jput_str(o, v->s); break;
	case JV_RAW: jput(o, v->s, strlen(v->s)); break;
	case JV_BYTES: jput_bytes(o, v->p, v->len); break;
	}
}

/* The value of member |m| from jkey() (SIZE_MAX: none), the member done;
 * a nested object written whole can be entered again. */
static void jvalue(struct out *o, size_t m, struct jval v)
{
	if (m == SIZE_MAX)
		return;
	jput_val(o, &v);
	if (v.kind == JV_RAW)
		o->mem[m].obj = v.s[0] == '{';
	jdone(o, m);
}

/*
 * Field |id| with the value |j| in JSON. Returns the field when the caller
 * is to write the text form of the value (its label written), NULL when
 * nothing more is to be written.
 */
static const struct out_field *put(struct out *o, unsigned id, struct jval j)
{
	const struct out_field *f = field(o, id);

	if (!f)
		return NULL;
	if (o->mode == OUT_JSON) {
		jvalue(o, jfield(o, f), j);
		return NULL;
	}
	if (!shown(o, f))
		return NULL;
	key(o, f);
	return f;
}

void out_u64(struct out *o, unsigned id, uint64_t v)
{
	const struct out_field *f = put(o, id, (struct jval){ .kind = JV_U64, .u = v });

	if (f && f->type == OUT_HEX)
		out_put_hex(o, v, f->digits);
	else if (f)
		out_put_u64(o, v);
}

void out_i64(struct out *o, unsigned id, int64_t v)
{
	if (put(o, id, (struct jval){ .kind = JV_I64, .i = v }))
		out_put_i64(o, v);
}

void out_hex(struct out *o, unsigned id, uint64_t v)
{
	const struct out_field *f = put(o, id, (struct jval){ .kind = JV_U64, .u = v });

	if (f)
		out_put_hex(o, v, f->digits);
}

void out_bool(struct out *o, unsigned id, bool v)
{
	const char *s = v ? "true" : "false";

	if (put(o, id, (struct jval){ .kind = JV_RAW, .s = s }))
		out_puts(o, s);
}

void out_str(struct out *o, unsigned id, const char *v)
{
	const struct out_field *f =
		put(o, id, (struct jval){ .kind = v ? JV_STR : JV_RAW, .s = v ? v : "null" });

	if (!f)
		return;
	if (f->type == OUT_QUOTED) {
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
	if (put(o, id, (struct jval){ .kind = JV_BYTES, .p = p, .len = len }))
		put_hexbytes(o, p, len);
}

/* A double in text, and in JSON where the field says OUT_FIXED: its
 * digits after the point fixed, cut to what |t| holds. */
void out_double(struct out *o, unsigned id, double v)
{
	const struct out_field *f = field(o, id);
	struct jval j = { .kind = JV_DOUBLE, .d = v };
	char t[64] = "";

	if (!f)
		return;
	if (f->type == OUT_FIXED || o->mode == OUT_TEXT) {
		snprintf(t, sizeof(t), "%.*f", (int)f->digits, v);
		j = (struct jval){ .kind = JV_RAW, .s = t };
	}
	if (put(o, id, j))
		out_puts(o, t);
}

void out_enum(struct out *o, unsigned id, uint64_t v)
{
	const struct out_field *f = put(o, id, (struct jval){ .kind = JV_U64, .u = v });
	const char *name;

	if (!f)
		return;
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
	const struct out_field *f = put(o, id, (struct jval){ .kind = JV_U64, .u = v });

	if (!f)
		return;
	out_put_hex(o, v, f->digits);
	if (v) {
		out_putc(o, ' ');
		out_put_flags(o, f->names, v, f->digits);
	}
}

void out_null(struct out *o, unsigned id)
{
	if (o->mode == OUT_JSON)
		put(o, id, (struct jval){ .kind = JV_RAW, .s = "null" });
}

void out_json(struct out *o, unsigned id, const char *json)
{
	if (o->mode == OUT_JSON)
		put(o, id, (struct jval){ .kind = JV_RAW, .s = json ? json : "null" });
}

/* ------------------------------------------------------------------------
 * Objects and arrays
 */

void out_obj_open(struct out *o, unsigned id)
{
	const struct out_field *f = field(o, id);
	size_t m = SIZE_MAX;

	if (!f)
		abort(); /* a call that does not match its table */
	if (o->mode == OUT_JSON && !o->err) {
		const struct out_frame *fr = top(o);

		/* the latest value of the field: an object is entered again */
		for (size_t i = o->nmem; i-- > fr->m0;)
			if (!o->mem[i].dead && o->mem[i].id == id) {
				if (o->mem[i].obj) {
					reopen(o, f, i);
					return;
				}
				break;
			}
		m = jkey(o, id, f->key, true);
	}
	push(o, f->sub, NULL, m, '{');
}

void out_arr_open(struct out *o, unsigned id)
{
	const struct out_field *f = field(o, id);
	size_t m = SIZE_MAX;

	if (!f)
		abort();
	if (o->mode == OUT_JSON)
		m = jfield(o, f);
	push(o, f->sub, f, m, '[');
}

static const struct out_field *array(const struct out *o)
{
	const struct out_frame *fr = o->depth > 0 ? &o->st[o->depth - 1] : NULL;

	if (!fr || !fr->arr)
		abort(); /* an element outside an array */
	return fr->arr;
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

/* An element of the innermost array: true when the caller is to write its
 * value (in JSON after the separator written here). */
static bool elem(struct out *o)
{
	const struct out_field *a = array(o);
	struct out_frame *fr = top(o);

	if (o->mode == OUT_TEXT)
		return elem_text(o, a);
	if (o->err)
		return false;
	if (!fr->first)
		jputc(o, ',');
	fr->first = false;
	return true;
}

void out_elem_obj(struct out *o)
{
	const struct out_field *a = array(o);

	if (o->mode == OUT_JSON)
		elem(o);
	push(o, a->sub, NULL, SIZE_MAX, '{');
}

/* An element of the innermost array with the value |j| in JSON: true when
 * the caller is to write the text form of the value. */
static bool elem_put(struct out *o, struct jval j)
{
	if (!elem(o))
		return false;
	if (o->mode == OUT_TEXT)
		return true;
	jput_val(o, &j);
	return false;
}

void out_elem_str(struct out *o, const char *s)
{
	if (elem_put(o, (struct jval){ .kind = JV_STR, .s = s }))
		out_puts(o, s);
}

void out_elem_u64(struct out *o, uint64_t v)
{
	if (elem_put(o, (struct jval){ .kind = JV_U64, .u = v }))
		out_put_u64(o, v);
}

void out_elem_bool(struct out *o, bool v)
{
	const char *s = v ? "true" : "false";

	if (elem_put(o, (struct jval){ .kind = JV_RAW, .s = s }))
		out_puts(o, s);
}

void out_member_u64(struct out *o, const char *key, uint64_t v)
{
	struct out_frame *fr = o->depth > 0 ? top(o) : NULL;

	if (o->mode != OUT_JSON || !fr || fr->arr)
		return;
	jvalue(o, jkey(o, map_id(fr), key, false), (struct jval){ .kind = JV_U64, .u = v });
}

/* Its name from the array's table where it has one, else the number. */
void out_elem_name(struct out *o, uint64_t v)
{
	const struct out_field *a = array(o);
	const char *name = v <= UINT32_MAX ? wire_tok_name(a->names, (uint32_t)v) : NULL;
	struct jval j = { .kind = JV_I64, .i = (int64_t)v };

	if (name)
		j = (struct jval){ .kind = JV_STR, .s = name };
	if (!elem_put(o, j))
		return;
	if (name)
		out_puts(o, name);
	else
		out_put_u64(o, v);
}

void out_close(struct out *o)
{
	if (o->depth > 1)
		pop(o);
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

int out_errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}
