// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * clock.c - the time librds's transports give the core: CLOCK_MONOTONIC
 * in nanoseconds. The core never reads a clock (docs/librds.md); every
 * call made next to a transport takes this one.
 */
#define _GNU_SOURCE
#include <rds/rdsu_io.h>

#include <time.h>

rdsu_ns rdsu_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (rdsu_ns)ts.tv_sec * RDSU_SEC + (rdsu_ns)ts.tv_nsec;
}
