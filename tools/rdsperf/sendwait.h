/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * sendwait.h - what a client socket waits for between two rounds of the
 * test loop (engine.c): pure, so the rule is unit-tested apart from the
 * I/O.
 */
#ifndef RDSPERF_SENDWAIT_H
#define RDSPERF_SENDWAIT_H

#include <stdbool.h>
#include <stdint.h>

#define PERF_WAIT_IN 0x1u   /* readable: responses (rio's RIO_POLLIN) */
#define PERF_WAIT_OUT 0x2u  /* writable again after EAGAIN (RIO_POLLOUT) */

struct perf_sendwait {
	bool blocked;           /* the last send met EAGAIN */
	uint64_t cong_until;    /* ENOBUFS: not again before then (ns) */
	bool window_open;       /* the test would send now: a stream, or a
				 * request window with room */
	bool responses;         /* it reads responses (every test but stream) */
};

/*
 * perf_sendwait_plan() - the readiness to wait for on one socket at
 * |now| (ns), with *deadline (ns) lowered to when the socket may go again
 * without any: the end of an ENOBUFS back-off, or |now| itself when
 * nothing holds it back.
 * Return: PERF_WAIT_* bits.
 */
unsigned perf_sendwait_plan(const struct perf_sendwait *s, uint64_t now, uint64_t *deadline);

#endif /* RDSPERF_SENDWAIT_H */
