// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * drive.h - what the traffic drivers of the librds interop tests
 * (rdsdrive, rdsloop) share beyond tools/common (payload.h: message content
 * and stream digests; rio_opt.h: the stack options): the JSON picture of
 * librds's state the test scripts assert on, and small helpers.
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

/* Print "PROG: what: error" and exit 1. */
_Noreturn void drive_fail(const char *what, int err);
/* Payload bytes every librds socket still holds (SNDBUF in use). */
uint64_t drive_snd_held(struct rio *r);
/* "connections", "stats" (and "local_congested" for |bind|, if given) of
 * the librds endpoint under |r|; nothing on kernel sockets. */
void drive_json_librds(struct json_object *j, struct rio *r, const struct rdsu_addr *bind);

#endif
