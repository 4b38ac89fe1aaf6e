// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_zcopy.c - zero-copy notices (zcopy.c): a cookie queued when its
 * message leaves the socket, the kernel's batches (the first notice
 * filled to RDSU_ZC_BATCH, then one cookie a notice), the bound of
 * RDSU_ZC_MAX (-ENOMEM past it), POLLIN while one waits, a cancelled
 * message notified too, the refusals; and the receive times. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "utest.h"

/* SMALL with one path up to LARGE, everything on path 0. */
static int setup(void **state)
{
	*state = fixture_one_path(4003);
	return 0;
}

/* Everything the core has written goes, and the peer acknowledges it
 * (peer_pull() keeps too few frames for RDSU_ZC_MAX messages). */
static void out_ack(struct fixture *fx)
{
	static uint8_t buf[1 << 16];
	ssize_t n;

	while ((n = rdsu_link_output(fx->ep, fx->p.link, buf, sizeof(buf), fx->p.now)) > 0)
		fx->p.written += (uint64_t)n;
	peer_ack_all(&fx->p);
}

static int zc(struct fixture *fx, uint32_t cookie)
{
	struct iovec iov = { "z", 1 };

	return rdsu_sock_submit_zc(fx->s, &fx->dst, 5000, &iov, 1, NULL, cookie, T0);
}

static void test_zc_batches(void **state)
{
	struct fixture *fx = *state;
	struct rdsu_zc_notice n;

	for (uint32_t c = 1; c <= 10; c++)
		assert_int_equal(zc(fx, c), 1);
	/* nothing before the peer has them */
	assert_int_equal(rdsu_sock_next_zc(fx->s, &n), 0);
	assert_false(rdsu_sock_poll(fx->s) & RDSU_POLLIN);
	peer_pull(&fx->p);
	peer_ack_all(&fx->p);
	assert_true(rdsu_sock_poll(fx->s) & RDSU_POLLIN);
	assert_int_equal(rdsu_sock_next_zc(fx->s, &n), 1);
	assert_int_equal(n.num, RDSU_ZC_BATCH);
	for (uint32_t i = 0; i < RDSU_ZC_BATCH; i++)
		assert_int_equal(n.cookies[i], i + 1);
	assert_int_equal(rdsu_sock_next_zc(fx->s, &n), 1);
	assert_int_equal(n.num, 1);
	assert_int_equal(n.cookies[0], 9);
	/* a new cookie joins the first notice while it has room */
	assert_int_equal(zc(fx, 11), 1);
	peer_pull(&fx->p);
	peer_ack_all(&fx->p);
	assert_int_equal(rdsu_sock_next_zc(fx->s, &n), 1);
	assert_int_equal(n.num, 2);
	assert_int_equal(n.cookies[0], 10);
	assert_int_equal(n.cookies[1], 11);
	assert_int_equal(rdsu_sock_next_zc(fx->s, &n), 0);
	assert_false(rdsu_sock_poll(fx->s) & RDSU_POLLIN);
}

/* The queue overflows: in flight and queued notices together are held
 * to RDSU_ZC_MAX, a send past it -ENOMEM, and reading makes room. */
static void test_zc_bound(void **state)
{
	struct fixture *fx = *state;
	struct rdsu_zc_notice n;
	unsigned sent = 0, got = 0, notices = 0;

	assert_int_equal(rdsu_sock_set_sndbuf(fx->s, 1u << 20, T0), 0);
	while (zc(fx, sent) == 1)
		sent++;
	assert_int_equal(sent, RDSU_ZC_MAX);
	assert_int_equal(zc(fx, 0), -ENOMEM);
	out_ack(fx);
	/* 8 in the first notice, one in each after: 1 + 1016 queued */
	for (unsigned more = 0; zc(fx, 5000 + more) == 1; more++)
		sent++;
	assert_int_equal(sent, RDSU_ZC_MAX + RDSU_ZC_BATCH - 1);
	while (rdsu_sock_next_zc(fx->s, &n) == 1) {
		notices++;
		got += n.num;
	}
	assert_int_equal(got, RDSU_ZC_MAX);
	assert_int_equal(notices, RDSU_ZC_MAX - RDSU_ZC_BATCH + 1);
	assert_int_equal(zc(fx, 1), 1);
}

/* A message cancelled before the peer had it is notified all the same
 * (rds_message_purge), and the socket's free drops what is queued. */
static void test_zc_cancel_and_free(void **state)
{
	struct fixture *fx = *state;
	struct rdsu_zc_notice n;

	assert_int_equal(zc(fx, 42), 1);
	assert_true(rdsu_sock_cancel_sent_to(fx->s, &fx->dst, 5000, T0) >= 1);
	assert_int_equal(rdsu_sock_next_zc(fx->s, &n), 1);
	assert_int_equal(n.num, 1);
	assert_int_equal(n.cookies[0], 42);
	assert_int_equal(zc(fx, 43), 1);
	assert_int_equal(rdsu_sock_cancel_sent_to(fx->s, &fx->dst, 5000, T0) >= 1, 1);
	/* one notice left queued: freed with the socket (ASan tells) */
}

static void test_zc_refused(void **state)
{
	struct fixture *fx = *state;
	struct rdsu_sock *u;
	struct iovec iov = { "z", 1 };

	assert_int_equal(rdsu_sock_submit_zc(fx->s, &fx->dst, 5000, &iov, 0, NULL, 1, T0), -EINVAL);
	assert_int_equal(rdsu_sock_new(fx->ep, &u), 0);
	assert_int_equal(rdsu_sock_submit_zc(u, &fx->dst, 5000, &iov, 1, NULL, 1, T0), -ENOTCONN);
	rdsu_sock_free(u, T0);
	assert_int_equal(rdsu_sock_submit_zc(NULL, &fx->dst, 5000, &iov, 1, NULL, 1, T0), -EINVAL);
}

/* The receive times: the first header byte, the last, the queueing,
 * each at the time its bytes came in. */
static void test_rx_times(void **state)
{
	struct fixture *fx = *state;
	struct rdsu_rx_times t;
	struct wire_hdr h;
	uint8_t buf[WIRE_HDR_LEN + 3];

	assert_int_equal(rdsu_sock_rx_times(fx->s, &t), 0);
	wire_build_data(&h, 2, 5000, 4003, 3);
	wire_hdr_encode(&h, buf, WIRE_HDR_LEN);
	memcpy(buf + WIRE_HDR_LEN, "abc", 3);
	assert_int_equal(rdsu_link_input(fx->ep, fx->p.link, buf, 10, T0 + 1), 10);
	assert_int_equal(rdsu_link_input(fx->ep, fx->p.link, buf + 10, WIRE_HDR_LEN - 10, T0 + 2),
			 WIRE_HDR_LEN - 10);
	assert_int_equal(rdsu_sock_rx_times(fx->s, &t), 0);
	assert_int_equal(rdsu_link_input(fx->ep, fx->p.link, buf + WIRE_HDR_LEN, 3, T0 + 3), 3);
	assert_int_equal(rdsu_sock_rx_times(fx->s, &t), 1);
	assert_true(t.hdr == T0 + 1);
	assert_true(t.start == T0 + 2);
	assert_true(t.queued == T0 + 3);
}

/* The queue alone, on a ring of two: 8 in the first, then one a notice,
 * and -ENOBUFS when the ring is full; taking makes room. */
static void test_zcq(void **state)
{
	struct rdsu_zc_notice ring[2], n;
	struct rdsu_zcq q = { .ring = ring, .cap = 2 };

	(void)state;
	for (uint32_t c = 0; c < RDSU_ZC_BATCH + 1; c++)
		assert_int_equal(rdsu_zcq_add(&q, c), 0);
	assert_int_equal(rdsu_zcq_add(&q, 99), -ENOBUFS);
	assert_int_equal(rdsu_zcq_take(&q, &n), 1);
	assert_int_equal(n.num, RDSU_ZC_BATCH);
	assert_int_equal(rdsu_zcq_add(&q, 100), 0);   /* joins the new first */
	assert_int_equal(rdsu_zcq_take(&q, &n), 1);
	assert_int_equal(n.num, 2);
	assert_int_equal(n.cookies[0], RDSU_ZC_BATCH);
	assert_int_equal(n.cookies[1], 100);
	assert_int_equal(rdsu_zcq_take(&q, &n), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zcq),
		cmocka_unit_test_setup_teardown(test_zc_batches, setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_zc_bound, setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_zc_cancel_and_free, setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_zc_refused, setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_rx_times, setup, fixture_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
