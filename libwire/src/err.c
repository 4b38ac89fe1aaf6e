// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* err.c - error strings and the library version. */
#include <wire/wire.h>

/* A wire_tok table like every other value-name map; the codes are negative. */
static const struct wire_tok err_toks[] = {
	{ (uint32_t)WIRE_OK, "ok" },
	{ (uint32_t)WIRE_ERR_TRUNC, "truncated: more bytes are needed" },
	{ (uint32_t)WIRE_ERR_MALFORMED, "malformed: the bytes violate the format" },
	{ (uint32_t)WIRE_ERR_UNSUPP, "unsupported: well formed but not a format libwire speaks" },
	{ (uint32_t)WIRE_ERR_NOSPACE, "no space in the output buffer" },
	{ (uint32_t)WIRE_ERR_INVAL, "invalid argument" },
	{ (uint32_t)WIRE_ERR_TOOBIG, "a length field exceeds the configured limit" },
	{ 0, NULL },
};

const char *wire_strerror(int err)
{
	return wire_tok_str(err_toks, (uint32_t)err, "unknown error");
}

const char *wire_version(void)
{
	return WIRE_VERSION_STRING;
}
