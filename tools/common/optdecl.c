// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * optdecl.c - options declared in one table, shown and parsed from it
 * (optdecl.h).
 */
#define _GNU_SOURCE
#include "optdecl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

const struct wire_tok optdecl_kver_toks[] = {
	{ WIRE_KVER_6, "6" },
	{ WIRE_KVER_7, "7" },
	{ 0, NULL },
};

static bool numeric(enum optd_kind k)
{
	return k == OPTD_UINT || k == OPTD_COUNT || k == OPTD_SIZE || k == OPTD_ENUM;
}

static uint64_t field_max(size_t size)
{
	return size >= 8 ? UINT64_MAX : (UINT64_C(1) << (8 * size)) - 1;
}

/* The largest value of |d|'s range or names. */
static uint64_t top(const struct optdecl *d)
{
	uint64_t m = 0;

	if (d->kind != OPTD_ENUM)
		return d->max;
	for (const struct wire_tok *t = d->names; t && t->name; t++)
		m = t->value > m ? t->value : m;
	return m;
}

/* What is wrong with |d|, or NULL. */
static const char *fault(const struct optdecl *d)
{
	if (d->kind == OPTD_CUSTOM || d->kind == OPTD_HEADER)
		return NULL;
	if (d->kind == OPTD_FLAG)
		return d->size == sizeof(bool) ? NULL : "a flag's field is not a bool";
	if (d->kind == OPTD_STR)
		return d->size == sizeof(char *) ? NULL : "a string's field is not a pointer";
	if (!d->what)
		return "no WHAT for its error";
	if (d->kind == OPTD_ADDR)
		return d->size == sizeof(struct rdsu_addr) ? NULL : "an address field is not one";
	if (d->kind == OPTD_SECONDS)
		return d->size != sizeof(double) ? "a seconds field is not a double"
		       : d->fmin > d->fmax ? "min above max" : NULL;
	if (!numeric(d->kind))
		return "an unknown kind";
	if (d->kind == OPTD_ENUM && (!d->names || !d->names[0].name))
		return "an enum without names";
	if (d->size != 1 && d->size != 2 && d->size != 4 && d->size != 8)
		return "a number field of 1, 2, 4 or 8 bytes is needed";
	if (d->kind != OPTD_ENUM && d->min > d->max)
		return "min above max";
	return top(d) > field_max(d->size) ? "its max does not fit its field" : NULL;
}

const char *optdecl_check(const struct optdecl *t, size_t n)
{
	static char buf[160];

	for (size_t i = 0; i < n; i++) {
		const char *why = fault(&t[i]);

		if (why) {
			snprintf(buf, sizeof(buf), "option %s (key %d): %s",
				 t[i].name ? t[i].name : "?", t[i].key, why);
			return buf;
		}
	}
	return NULL;
}

void optdecl_argp(const struct optdecl *t, size_t n, struct argp_option *dst)
{
	const char *why = optdecl_check(t, n);

	if (why) {
		fprintf(stderr, "optdecl: %s\n", why);
		abort();
	}
	for (size_t i = 0; i < n; i++)
		dst[i] = (struct argp_option){ t[i].name, t[i].key, t[i].arg, t[i].flags, t[i].doc,
					       t[i].group };
	memset(&dst[n], 0, sizeof(dst[n]));
}

const struct optdecl *optdecl_find(const struct optdecl *t, size_t n, int key)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].key == key && key != 0 && t[i].kind != OPTD_CUSTOM &&
		    t[i].kind != OPTD_HEADER)
			return &t[i];
	return NULL;
}

static void store_uint(void *p, size_t size, uint64_t v)
{
	switch (size) {
	case 1: {
		uint8_t x = (uint8_t)v;

		memcpy(p, &x, 1);
		break;
	}
	case 2: {
		uint16_t x = (uint16_t)v;

		memcpy(p, &x, 2);
		break;
	}
	case 4: {
		uint32_t x = (uint32_t)v;

		memcpy(p, &x, 4);
		break;
	}
	default:
		memcpy(p, &v, 8);
	}
}

/* |arg| as |d|'s kind says, in |v| (numbers) or |f| (seconds). */
static int convert(const struct optdecl *d, const char *arg, uint64_t *v, double *f)
{
	uint32_t e;

	switch (d->kind) {
	case OPTD_UINT:
		return parse_uint(arg, 0, d->min, d->max, v);
	case OPTD_COUNT:
		return parse_count(arg, d->min, d->max, v);
	case OPTD_SIZE:
		return parse_size(arg, d->min, d->max, v);
	case OPTD_SECONDS:
		return parse_seconds(arg, d->fmin, d->fmax, f);
	case OPTD_ENUM:
		if (wire_tok_value(d->names, arg, &e) != 0)
			return -1;
		*v = e;
		return 0;
	default:
		return -1;
	}
}

int optdecl_set(const struct optdecl *d, void *base, const char *arg)
{
	char *field = (char *)base + d->off;
	uint64_t v = 0;
	double f = 0;

	if (fault(d) || d->kind == OPTD_CUSTOM || d->kind == OPTD_HEADER)
		return -1;
	if (d->kind == OPTD_FLAG) {
		*(bool *)field = true;
	} else if (d->kind == OPTD_STR) {
		if (!arg)
			return -1;
		memcpy(field, &arg, sizeof(arg));
	} else if (d->kind == OPTD_ADDR) {
		struct rdsu_addr a;

		if (!arg || parse_addr(arg, &a) < 0)
			return -1;
		memcpy(field, &a, sizeof(a));
	} else {
		if (!arg || convert(d, arg, &v, &f) < 0)
			return -1;
		if (d->kind == OPTD_SECONDS)
			memcpy(field, &f, sizeof(f));
		else
			store_uint(field, d->size, v);
	}
	if (d->has_seen && d->seen_bit)
		*(unsigned *)((char *)base + d->seen) |= d->seen_bit;
	else if (d->has_seen)
		*((bool *)((char *)base + d->seen)) = true;
	return 0;
}

/* "a, b or c" from |t|. */
static void names_of(const struct wire_tok *t, char *buf, size_t len)
{
	size_t k = 0;

	buf[0] = 0;
	for (size_t i = 0; t[i].name && k < len; i++) {
		const char *sep = i == 0 ? "" : t[i + 1].name ? ", " : " or ";
		int w = snprintf(buf + k, len - k, "%s%s", sep, t[i].name);

		k += w > 0 ? (size_t)w : 0;
	}
}

const char *optdecl_error(const struct optdecl *d, const char *arg, char *buf, size_t len)
{
	char range[160];
	const char *unit = d->unit ? d->unit : "";

	if (d->range)
		snprintf(range, sizeof(range), "%s", d->range);
	else if (d->kind == OPTD_ENUM && d->names)
		names_of(d->names, range, sizeof(range));
	else if (d->kind == OPTD_SECONDS)
		snprintf(range, sizeof(range), "%g to %g seconds", d->fmin, d->fmax);
	else if (d->kind == OPTD_ADDR)
		snprintf(range, sizeof(range), "an IPv4 or IPv6 address");
	else
		snprintf(range, sizeof(range), "%llu to %llu%s", (unsigned long long)d->min,
			 (unsigned long long)d->max, unit);
	snprintf(buf, len, "bad %s '%s': %s", d->what ? d->what : d->name ? d->name : "value",
		 arg ? arg : "", range);
	return buf;
}

error_t optdecl_take(const struct optdecl *t, size_t n, void *base, int key, const char *arg,
		     struct argp_state *st)
{
	const struct optdecl *d = optdecl_find(t, n, key);
	char msg[256];

	if (!d)
		return ARGP_ERR_UNKNOWN;
	if (optdecl_set(d, base, arg) < 0)
		argp_error(st, "%s", optdecl_error(d, arg, msg, sizeof(msg)));
	return 0;
}

/* What optdecl_parse() hands argp as the top parser's input. */
struct run {
	const struct optdecl_cmd *c;
	void *input;
};

/* The parser every tool's command line goes through: the table's options,
 * the children's inputs, then the tool's own parser for the rest. */
static error_t run_parse(int key, char *arg, struct argp_state *st)
{
	const struct run *r = st->input;
	const struct optdecl_cmd *c = r->c;
	error_t e;

	if (optdecl_take(c->t, c->n, r->input, key, arg, st) != ARGP_ERR_UNKNOWN)
		return 0;
	if (key == ARGP_KEY_INIT)
		for (size_t i = 0; c->argp->children && c->argp->children[i].argp &&
				   i < OPTD_CHILDREN; i++)
			st->child_inputs[i] = c->child_inputs[i];
	e = ARGP_ERR_UNKNOWN;
	if (c->argp->parser) {
		/* argp sets st->input anew before each call of a parser */
		st->input = r->input;
		e = c->argp->parser(key, arg, st);
		st->input = (void *)r;
	}
	if (e == ARGP_ERR_UNKNOWN && key == ARGP_KEY_ARG)
		argp_error(st, "unexpected argument '%s'", arg);
	if (key == ARGP_KEY_END && c->end && (e == 0 || e == ARGP_ERR_UNKNOWN)) {
		c->end(r->input, st);
		e = 0;
	}
	return key == ARGP_KEY_INIT && e == ARGP_ERR_UNKNOWN ? 0 : e;
}

error_t optdecl_parse(const struct optdecl_cmd *c, int argc, char **argv, void *input)
{
	struct argp ap = *c->argp;
	struct run r = { c, input };

	optdecl_argp(c->t, c->n, c->dst);
	ap.options = c->dst;
	ap.parser = run_parse;
	argp_err_exit_status = 2;
	if (argc > 0)
		argv[0] = c->name ? c->name : program_invocation_short_name;
	return argp_parse(&ap, argc, argv, c->flags, NULL, &r);
}
