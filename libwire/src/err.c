// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* err.c - error strings and the library version. */
#include <wire/wire.h>

const char *wire_strerror(int err)
{
	switch (err) {
	case WIRE_OK:
		return "ok";
	case WIRE_ERR_TRUNC:
		return "truncated: more bytes are needed";
	case WIRE_ERR_MALFORMED:
		return "malformed: the bytes violate the format";
	case WIRE_ERR_UNSUPP:
		return "unsupported: well formed but not a format libwire speaks";
	case WIRE_ERR_NOSPACE:
		return "no space in the output buffer";
	case WIRE_ERR_INVAL:
		return "invalid argument";
	case WIRE_ERR_TOOBIG:
		return "a length field exceeds the configured limit";
	default:
		return "unknown error";
	}
}

const char *wire_version(void)
{
	return WIRE_VERSION_STRING;
}
