// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * tok.c - value-name tables (struct wire_tok): one table per enum, read both
 * ways. Ref: tcpdump's struct tok and tok2str() for the shape.
 */
#include <wire/wire.h>

#include <string.h>

const char *wire_tok_name(const struct wire_tok *t, uint32_t v)
{
	for (; t && t->name; t++)
		if (t->value == v)
			return t->name;
	return NULL;
}

const char *wire_tok_str(const struct wire_tok *t, uint32_t v, const char *dflt)
{
	const char *name = wire_tok_name(t, v);

	return name ? name : dflt;
}

int wire_tok_value(const struct wire_tok *t, const char *name, uint32_t *out)
{
	for (; t && t->name && name; t++) {
		if (strcmp(t->name, name) == 0) {
			*out = t->value;
			return 0;
		}
	}
	return WIRE_ERR_INVAL;
}
