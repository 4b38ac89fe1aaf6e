// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* filter.c - dump_filter_*: rdsdump's RDS-field filters (filter.h). */
#define _POSIX_C_SOURCE 200809L

#include "filter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <wire/wire.h>

#include "out.h"

/* Longest word of a list worth reporting back; longer ones are cut. */
#define WORD_MAX 64

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
		return out_errf(err, errlen, "invalid RDS port \"%s\" (0 to 65535)",
				arg ? word(w, arg, strlen(arg)) : "");
	f->ports[v / 64] |= 1ull << (v % 64);
	f->port_set = true;
	return 0;
}

/*
 * The words of a list option: a name of |names| (any case) stands for its
 * value, or for bit |value| where |bit| says so; |other| takes what the
 * table does not name (numbers, aliases) first.
 */
struct words {
	const char *what, *hint;
	const struct wire_tok *names;
	bool bit;
	int (*other)(const char *s, size_t len, uint32_t *acc);
};

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

static int one_word(const struct words *ws, const char *s, size_t len, uint32_t *acc)
{
	uint32_t v;

	if (ws->other && ws->other(s, len, acc) == 0)
		return 0;
	if (tok_word(ws->names, s, len, &v) < 0)
		return -1;
	*acc |= ws->bit ? 1u << v : v;
	return 0;
}

/*
 * Add the values of comma list |list| to *|into| and mark it set; nothing
 * on a fault. Empty words (",,", a trailing comma) are refused: they are
 * typos, not "everything".
 */
static int add_words(const struct words *ws, const char *list, uint32_t *into, bool *set,
		     char *err, size_t errlen)
{
	const char *p = list;
	char w[WORD_MAX + 1];
	uint32_t acc = 0;

	if (!list || !*list)
		return out_errf(err, errlen, "empty %s list", ws->what);
	for (;;) {
		const char *c = strchr(p, ',');
		size_t len = c ? (size_t)(c - p) : strlen(p);

		if (!len)
			return out_errf(err, errlen, "empty word in %s list \"%s\"", ws->what,
					word(w, list, strlen(list)));
		if (one_word(ws, p, len, &acc) < 0)
			return out_errf(err, errlen, "unknown %s \"%s\" (%s)", ws->what,
					word(w, p, len), ws->hint);
		if (!c)
			break;
		p = c + 1;
	}
	*into |= acc;
	*set = true;
	return 0;
}

/* "probe": both probe kinds. */
static int probe_word(const char *s, size_t len, uint32_t *acc)
{
	if (len != 5 || strncasecmp(s, "probe", 5))
		return -1;
	*acc |= 1u << WIRE_KIND_PROBE_PING | 1u << WIRE_KIND_PROBE_PONG;
	return 0;
}

static const struct words kind_words = {
	"kind", "data, ping, pong, probe, probe-ping, probe-pong, cong, ack", wire_kind_toks,
	true, probe_word
};

int dump_filter_add_kinds(struct dump_filter *f, const char *list, char *err, size_t errlen)
{
	return add_words(&kind_words, list, &f->kinds, &f->kind_set, err, errlen);
}

/* A flag mask as a number, 0x01 to 0xff. */
static int flag_number(const char *s, size_t len, uint32_t *acc)
{
	unsigned long v;

	/* "any of no flags" would select nothing */
	if (!parse_num(s, len, 0xff, &v) || !v)
		return -1;
	*acc |= (uint32_t)v;
	return 0;
}

static const struct words flag_words = {
	"flag", "a name such as RETRANSMITTED, or a number 0x01 to 0xff", wire_flag_toks, false,
	flag_number
};

int dump_filter_add_flags(struct dump_filter *f, const char *list, char *err, size_t errlen)
{
	return add_words(&flag_words, list, &f->flags, &f->flags_set, err, errlen);
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
