// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * drive.h - what the traffic drivers of the librds interop tests
 * (rdsdrive, rdsloop) share: message content, stream digests, option
 * numbers and the JSON picture of librds's state the test scripts assert on.
 */
#ifndef RDS_TEST_DRIVE_H
#define RDS_TEST_DRIVE_H

#include <json-c/json.h>
#include <stdint.h>

#include "payload.h"
#include "rio.h"

static inline rdsu_ns drive_secs(double s)
{
	return (rdsu_ns)(s * 1e9);
}

/* A running digest of a stream (start from DRIVE_DIGEST0). */
#define DRIVE_DIGEST0 0xcbf29ce484222325ull
uint64_t drive_digest_add(uint64_t h, const uint8_t *p, size_t n);
/* Print "PROG: what: error" and exit 1. */
_Noreturn void drive_fail(const char *what, int err);
/* Payload bytes every librds socket still holds (SNDBUF in use). */
uint64_t drive_snd_held(struct rio *r);
/* "connections", "stats" (and "local_congested" for |bind|, if given) of
 * the librds endpoint under |r|; nothing on kernel sockets. */
void drive_json_librds(struct json_object *j, struct rio *r, const struct rdsu_addr *bind);

#endif
