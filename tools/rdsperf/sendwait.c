// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * sendwait.c - perf_sendwait_plan(), see sendwait.h.
 */
#include "sendwait.h"

unsigned perf_sendwait_plan(const struct perf_sendwait *s, uint64_t now, uint64_t *deadline)
{
	unsigned want = s->responses ? PERF_WAIT_IN : 0;
	uint64_t go;

	if (s->blocked && s->cong_until <= now)
		return want | PERF_WAIT_OUT;
	if (!s->window_open)
		return want;
	/* Free to send, or once the ENOBUFS back-off ends: the round that
	 * met the ENOBUFS may itself have outlasted the back-off, and no
	 * readiness would ever say so. */
	go = s->cong_until > now ? s->cong_until : now;
	if (go < *deadline)
		*deadline = go;
	return want;
}
