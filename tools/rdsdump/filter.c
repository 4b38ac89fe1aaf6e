// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* filter.c - dump_filter_*: rdsdump's RDS-field filters (filter.h). */
#define _POSIX_C_SOURCE 200809L

#include "filter.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <wire/wire.h>

/* Longest word of a list worth reporting back; longer ones are cut. */
#define WORD_MAX 64

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* A whole-string unsigned number (decimal, 0x hex or 0 octal) up to |max|. */
static bool parse_num(const char *s, size_t len, unsigned long max, unsigned long *out)
{
	char buf[WORD_MAX + 1];
	char *end;
	unsigned long v;

	if (!len || len > WORD_MAX || s[0] < '0' || s[0] > '9')
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	v = strtoul(buf, &end, 0);
	if (errno || *end || v > max)
		return false;
	*out = v;
	return true;
}

/* A word of a list, for messages: printable, cut to WORD_MAX. */
static const char *word(char *buf, const char *s, size_t len)
{
	size_t n = len < WORD_MAX ? len : WORD_MAX;

	for (size_t i = 0; i < n; i++)
		buf[i] = (s[i] > 0x20 && s[i] < 0x7f) ? s[i] : '?';
	buf[n] = '\0';
	return buf;
}

int dump_filter_add_port(struct dump_filter *f, const char *arg, char *err, size_t errlen)
{
	char w[WORD_MAX + 1];
	unsigned long v;

	if (!arg || !parse_num(arg, strlen(arg), 65535, &v))
		return fail(err, errlen, "invalid RDS port \"%s\" (0 to 65535)",
			    arg ? word(w, arg, strlen(arg)) : "");
	f->ports[v / 64] |= 1ull << (v % 64);
	f->port_set = true;
	return 0;
}

/*
 * Walk a comma list, calling |one| per word. Empty words (",,", a trailing
 * comma) are refused: they are typos, not "everything".
 */
static int each_word(const char *list, const char *what, const char *hint, char *err,
		     size_t errlen, int (*one)(const char *s, size_t len, uint32_t *acc),
		     uint32_t *acc)
{
	const char *p = list;
	char w[WORD_MAX + 1];

	if (!list || !*list)
		return fail(err, errlen, "empty %s list", what);
	for (;;) {
		const char *c = strchr(p, ',');
		size_t len = c ? (size_t)(c - p) : strlen(p);

		if (!len)
			return fail(err, errlen, "empty word in %s list \"%s\"", what,
				    word(w, list, strlen(list)));
		if (one(p, len, acc) < 0)
			return fail(err, errlen, "unknown %s \"%s\" (%s)", what, word(w, p, len),
				    hint);
		if (!c)
			return 0;
		p = c + 1;
	}
}

/* The value of name |s| (|len| bytes, any case) in |t|. Return: 0; -1
 * when |t| has no such name. */
static int tok_word(const struct wire_tok *t, const char *s, size_t len, uint32_t *v)
{
	for (; t->name; t++) {
		if (strlen(t->name) == len && !strncasecmp(s, t->name, len)) {
			*v = t->value;
			return 0;
		}
	}
	return -1;
}

static int one_kind(const char *s, size_t len, uint32_t *acc)
{
	uint32_t v;

	if (len == 5 && !strncasecmp(s, "probe", 5)) {
		*acc |= 1u << WIRE_KIND_PROBE_PING | 1u << WIRE_KIND_PROBE_PONG;
		return 0;
	}
	if (tok_word(wire_kind_toks, s, len, &v) < 0)
		return -1;
	*acc |= 1u << v;
	return 0;
}

int dump_filter_add_kinds(struct dump_filter *f, const char *list, char *err, size_t errlen)
{
	uint32_t acc = 0;

	if (each_word(list, "kind", "data, ping, pong, probe, probe-ping, probe-pong, cong, ack",
		      err, errlen, one_kind, &acc) < 0)
		return -1;
	f->kinds |= acc;
	f->kind_set = true;
	return 0;
}

static int one_flag(const char *s, size_t len, uint32_t *acc)
{
	unsigned long v;
	uint32_t bit;

	if (parse_num(s, len, 0xff, &v)) {
		if (!v)
			return -1; /* "any of no flags" would select nothing */
		*acc |= (uint32_t)v;
		return 0;
	}
	if (tok_word(wire_flag_toks, s, len, &bit) < 0)
		return -1;
	*acc |= bit;
	return 0;
}

int dump_filter_add_flags(struct dump_filter *f, const char *list, char *err, size_t errlen)
{
	uint32_t acc = 0;

	if (each_word(list, "flag", "a name such as RETRANSMITTED, or a number 0x01 to 0xff",
		      err, errlen, one_flag, &acc) < 0)
		return -1;
	f->flags |= (uint8_t)acc;
	f->flags_set = true;
	return 0;
}

void dump_filter_set_rules(struct dump_filter *f)
{
	f->rules_only = true;
}

static bool msg_filter(const struct dump_filter *f)
{
	return f->port_set || f->kind_set || f->flags_set;
}

bool dump_filter_active(const struct dump_filter *f)
{
	return msg_filter(f) || f->rules_only;
}

static bool port_has(const struct dump_filter *f, uint16_t p)
{
	return f->ports[p / 64] >> (p % 64) & 1;
}

bool dump_filter_match(const struct dump_filter *f, const struct dump_rec *r)
{
	const struct wire_hdr *h;

	if (!dump_filter_active(f))
		return true;
	if (f->rules_only && wire_rules_empty(&r->rules))
		return false;
	if (r->type != DUMP_REC_MSG)
		return !msg_filter(f);
	h = &r->u.msg.hdr;
	if (f->port_set && !port_has(f, h->sport) && !port_has(f, h->dport))
		return false;
	if (f->kind_set && ((unsigned)r->u.msg.kind >= 32 || !(f->kinds >> r->u.msg.kind & 1)))
		return false;
	if (f->flags_set && !(h->flags & f->flags))
		return false;
	return true;
}
