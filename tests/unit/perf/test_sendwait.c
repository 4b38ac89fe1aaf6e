// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_sendwait.c - what a client socket of rdsperf waits for between
 * rounds: POLLOUT after EAGAIN, the back-off's end after ENOBUFS, and
 * nothing at all once the socket may send: a back-off that ran out while
 * the round was still going (an emulated guest takes longer than the
 * 100 us back-off for a round) must not leave the loop asleep until the
 * interval ends, which cut the lab's 64 KiB streams to a few messages a
 * second. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "cmain.h"

#include "sendwait.h"

#define NOW 1000000000ull
#define IV_END (NOW + 900000000ull)   /* the interval's end, 0.9 s away */

static void test_blocked_waits_pollout(void **state)
{
	struct perf_sendwait s = { .blocked = true, .window_open = true };
	uint64_t deadline = IV_END;

	(void)state;
	assert_int_equal(perf_sendwait_plan(&s, NOW, &deadline), PERF_WAIT_OUT);
	assert_int_equal(deadline, IV_END);
}

static void test_enobufs_waits_backoff(void **state)
{
	struct perf_sendwait s = { .cong_until = NOW + 100000, .window_open = true };
	uint64_t deadline = IV_END;

	(void)state;
	assert_int_equal(perf_sendwait_plan(&s, NOW, &deadline), 0);
	assert_int_equal(deadline, NOW + 100000);
}

/* The back-off ended before the wait: go round again at once. */
static void test_backoff_over_does_not_sleep(void **state)
{
	struct perf_sendwait s = { .cong_until = NOW - 1, .window_open = true };
	uint64_t deadline = IV_END;

	(void)state;
	assert_int_equal(perf_sendwait_plan(&s, NOW, &deadline), 0);
	assert_int_equal(deadline, NOW);
}

/* A request window that is full waits for responses, and only them. */
static void test_window_full_waits_responses(void **state)
{
	struct perf_sendwait s = { .cong_until = NOW - 1, .responses = true };
	uint64_t deadline = IV_END;

	(void)state;
	assert_int_equal(perf_sendwait_plan(&s, NOW, &deadline), PERF_WAIT_IN);
	assert_int_equal(deadline, IV_END);
	s.window_open = true;
	assert_int_equal(perf_sendwait_plan(&s, NOW, &deadline), PERF_WAIT_IN);
	assert_int_equal(deadline, NOW);
}

/* The earliest socket sets the deadline; a later one does not raise it. */
static void test_deadline_only_lowered(void **state)
{
	struct perf_sendwait a = { .cong_until = NOW + 50000, .window_open = true };
	struct perf_sendwait b = { .cong_until = NOW + 70000, .window_open = true };
	uint64_t deadline = IV_END;

	(void)state;
	(void)perf_sendwait_plan(&a, NOW, &deadline);
	(void)perf_sendwait_plan(&b, NOW, &deadline);
	assert_int_equal(deadline, NOW + 50000);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_blocked_waits_pollout),
	cmocka_unit_test(test_enobufs_waits_backoff),
	cmocka_unit_test(test_backoff_over_does_not_sleep),
	cmocka_unit_test(test_window_full_waits_responses),
	cmocka_unit_test(test_deadline_only_lowered))
