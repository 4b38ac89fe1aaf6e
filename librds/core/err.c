// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * err.c - names for librds error codes and for the negative errno values
 * the socket-like calls return (without strerror(), which is not
 * thread-safe everywhere and depends on the locale).
 */
#define _GNU_SOURCE     /* strerrorname_np, strerrordesc_np */
#include "core.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

bool rdsu_err_is_fatal(int err)
{
	return err <= RDSU_ERR_FATAL && err > -300;
}

/* Any other errno a transport passes up (-ECONNREFUSED, -EAFNOSUPPORT,
 * -EMFILE, ...): glibc's name and description, which, unlike strerror(),
 * are the same in every locale and thread. */
static const char *errno_name(int err)
{
	/* A few in turn, so that one printf can name several errors. */
	static _Thread_local char buf[4][128];
	static _Thread_local unsigned next;
	const char *name = err < 0 ? strerrorname_np(-err) : NULL;
	char *b;

	if (!name)
		return "unknown error";
	b = buf[next++ % 4];
	snprintf(b, sizeof(buf[0]), "%s: %s", name, strerrordesc_np(-err));
	return b;
}

const char *rdsu_strerror(int err)
{
	switch (err) {
	case RDSU_OK:
		return "ok";
	case RDSU_ERR_AGAIN:
		return "nothing to do now";
	case RDSU_ERR_PROTO:
		return "peer violated the protocol";
	case RDSU_ERR_CLOSED:
		return "link closed";
	case RDSU_ERR_INVAL:
		return "invalid argument";
	case RDSU_ERR_REFUSED:
		return "connection refused";
	case RDSU_ERR_NOTFOUND:
		return "no such connection or address";
	case RDSU_ERR_FATAL:
		return "fatal error";
	case RDSU_ERR_NOMEM:
		return "out of memory";
	case -EAGAIN:
		return "EAGAIN: try again";
	case -EMSGSIZE:
		return "EMSGSIZE: message too long";
	case -ENOBUFS:
		return "ENOBUFS: destination port congested";
	case -EINVAL:
		return "EINVAL: invalid argument";
	case -EADDRINUSE:
		return "EADDRINUSE: address in use";
	case -EADDRNOTAVAIL:
		return "EADDRNOTAVAIL: address not available";
	case -ENOTCONN:
		return "ENOTCONN: socket not bound";
	case -EOPNOTSUPP:
		return "EOPNOTSUPP: operation not supported";
	case -ENOMEM:
		return "ENOMEM: out of memory";
	default:
		return errno_name(err);
	}
}
