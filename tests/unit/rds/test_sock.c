// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_sock.c - the socket-like calls and their errno values. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "cmain.h"

#include "utest.h"

static void test_sock_bind(void **state)
{
	struct rdsu_ep *ep = ep_make(SMALL, WIRE_KVER_7, 9);
	struct rdsu_addr a = rdsu_addr_v4(SMALL), other = rdsu_addr_v4(LARGE);
	struct rdsu_addr any = rdsu_addr_v4(0);
	struct rdsu_sock *s1, *s2, *s3;
	uint16_t port = 0, seen[64];
	struct rdsu_addr got;

	(void)state;
	assert_int_equal(rdsu_sock_new(ep, &s1), 0);
	assert_int_equal(rdsu_sock_get_name(s1, &got, &port), -ENOTCONN);
	assert_int_equal(rdsu_sock_bind(s1, &a, 1), -EINVAL);       /* the probe port */
	assert_int_equal(rdsu_sock_bind(s1, &any, 4000), -EINVAL);
	assert_int_equal(rdsu_sock_bind(s1, &other, 4000), -EADDRNOTAVAIL);
	assert_int_equal(rdsu_sock_bind(s1, &a, 4000), 0);
	assert_int_equal(rdsu_sock_bind(s1, &a, 4001), -EINVAL);    /* no re-bind */
	assert_int_equal(rdsu_sock_get_name(s1, &got, &port), 0);
	assert_int_equal(port, 4000);
	assert_int_equal(rdsu_addr_cmp(&got, &a), 0);
	assert_int_equal(rdsu_sock_new(ep, &s2), 0);
	assert_int_equal(rdsu_sock_bind(s2, &a, 4000), -EADDRINUSE);
	/* port 0: a free port, never 0 or 1 */
	for (int i = 0; i < 64; i++) {
		assert_int_equal(rdsu_sock_new(ep, &s3), 0);
		assert_int_equal(rdsu_sock_bind(s3, &a, 0), 0);
		assert_int_equal(rdsu_sock_get_name(s3, NULL, &seen[i]), 0);
		assert_true(seen[i] >= 2 && seen[i] != 4000);
		for (int j = 0; j < i; j++)
			assert_int_not_equal(seen[i], seen[j]);
	}
	/* closing frees the port */
	rdsu_sock_free(s1, T0);
	assert_int_equal(rdsu_sock_bind(s2, &a, 4000), 0);
	rdsu_ep_free(ep);
}

static void test_sock_submit_errors(void **state)
{
	struct rdsu_ep *ep = ep_make(SMALL, WIRE_KVER_7, 9);
	struct rdsu_sock *s, *u;
	struct rdsu_addr dst = rdsu_addr_v4(LARGE), self = rdsu_addr_v4(SMALL);
	struct rdsu_addr any = rdsu_addr_v4(0), v6 = { { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 } };
	static uint8_t big[WIRE_MAX_MSG_LEN + 1];
	struct iovec iov = { big, 100 };
	struct iovec two[2] = { { big, WIRE_MAX_MSG_LEN / 2 }, { big, WIRE_MAX_MSG_LEN / 2 + 1 } };

	(void)state;
	assert_int_equal(rdsu_sock_new(ep, &u), 0);
	assert_int_equal(rdsu_sock_submit(u, &dst, 5000, &iov, 1, T0), -ENOTCONN);
	s = sock_at(ep, SMALL, 4000);
	assert_int_equal(rdsu_sock_submit(s, &any, 5000, &iov, 1, T0), -EINVAL);
	assert_int_equal(rdsu_sock_submit(s, &v6, 5000, &iov, 1, T0), -EOPNOTSUPP);
	/* to ourselves: the loopback transport takes it (test_loopback.c) */
	assert_int_equal(rdsu_sock_submit(s, &self, 5000, &iov, 1, T0), 100);
	assert_int_equal(rdsu_sock_submit(s, &dst, 5000, NULL, 1, T0), -EINVAL);
	assert_int_equal(rdsu_sock_submit(s, &dst, 5000, &iov, -1, T0), -EINVAL);
	/* over 1 MiB in total, whatever SNDBUF says */
	assert_int_equal(rdsu_sock_set_sndbuf(s, 8 << 20, T0), 0);
	assert_int_equal(rdsu_sock_submit(s, &dst, 5000, two, 2, T0), -EMSGSIZE);
	two[1].iov_len--;
	assert_int_equal(rdsu_sock_submit(s, &dst, 5000, two, 2, T0), (int)WIRE_MAX_MSG_LEN);
	/* over SNDBUF */
	assert_int_equal(rdsu_sock_set_sndbuf(s, 1000, T0), 0);
	iov.iov_len = 1001;
	assert_int_equal(rdsu_sock_submit(s, &dst, 5000, &iov, 1, T0), -EMSGSIZE);
	/* full (1 MiB held): try again later */
	iov.iov_len = 10;
	assert_int_equal(rdsu_sock_submit(s, &dst, 5000, &iov, 1, T0), -EAGAIN);
	assert_int_equal(rdsu_sock_set_sndbuf(s, 0, T0), -EINVAL);
	assert_int_equal(rdsu_sock_get_sndbuf(s), 1000);
	assert_int_equal(rdsu_sock_set_rcvbuf(s, 0, T0), -EINVAL);
	assert_int_equal(rdsu_sock_get_rcvbuf(s), RDSU_DEFAULT_BUF);
	rdsu_ep_free(ep);
}

/* rds_send_queue_rm: queued while the bytes held are below SNDBUF, so
 * the last message may overshoot, and at exactly SNDBUF it is full. */
static void test_sock_sndbuf_boundary(void **state)
{
	struct rdsu_ep *ep = ep_make(SMALL, WIRE_KVER_7, 9);
	struct rdsu_sock *s = sock_at(ep, SMALL, 4000);
	struct rdsu_addr dst = rdsu_addr_v4(LARGE);
	static uint8_t buf[4000];
	struct iovec iov = { buf, sizeof(buf) };

	(void)state;
	assert_int_equal(rdsu_sock_set_sndbuf(s, 8000, T0), 0);
	assert_int_equal(rdsu_sock_submit(s, &dst, 5000, &iov, 1, T0), 4000);
	assert_true(rdsu_sock_poll(s) & RDSU_POLLOUT);
	assert_int_equal(rdsu_sock_submit(s, &dst, 5000, &iov, 1, T0), 4000);
	assert_false(rdsu_sock_poll(s) & RDSU_POLLOUT);
	assert_int_equal(rdsu_sock_submit(s, &dst, 5000, &iov, 1, T0), -EAGAIN);
	assert_int_equal(rdsu_sock_set_sndbuf(s, 8001, T0), 0);
	assert_int_equal(rdsu_sock_submit(s, &dst, 5000, &iov, 1, T0), 4000);
	assert_int_equal(rdsu_sock_submit(s, &dst, 5000, &iov, 1, T0), -EAGAIN);
	assert_int_equal(stat(ep, RDSU_STAT_SEND_QUEUE_FULL), 2);
	rdsu_ep_free(ep);
}

/* A transport looks at acknowledgements eagerly only while a socket
 * waits for SNDBUF room: from its -EAGAIN until room is back (here by a
 * larger SNDBUF), or until the socket goes. */
static void test_sock_acks_wanted(void **state)
{
	struct rdsu_ep *ep = ep_make(SMALL, WIRE_KVER_7, 9);
	struct rdsu_sock *s = sock_at(ep, SMALL, 4000), *t = sock_at(ep, SMALL, 4001);
	struct rdsu_addr dst = rdsu_addr_v4(LARGE);
	static uint8_t buf[4000];
	struct iovec iov = { buf, sizeof(buf) };

	(void)state;
	assert_false(rdsu_ep_acks_wanted(NULL));
	assert_false(rdsu_ep_acks_wanted(ep));
	assert_int_equal(rdsu_sock_set_sndbuf(s, 4000, T0), 0);
	assert_int_equal(rdsu_sock_set_sndbuf(t, 4000, T0), 0);
	assert_int_equal(rdsu_sock_submit(s, &dst, 5000, &iov, 1, T0), 4000);
	assert_false(rdsu_ep_acks_wanted(ep));
	assert_int_equal(rdsu_sock_submit(s, &dst, 5000, &iov, 1, T0), -EAGAIN);
	assert_true(rdsu_ep_acks_wanted(ep));
	assert_int_equal(rdsu_sock_submit(s, &dst, 5000, &iov, 1, T0), -EAGAIN);
	assert_int_equal(rdsu_sock_submit(t, &dst, 5000, &iov, 1, T0), 4000);
	assert_int_equal(rdsu_sock_submit(t, &dst, 5000, &iov, 1, T0), -EAGAIN);
	assert_int_equal(rdsu_sock_set_sndbuf(s, 8001, T0), 0);
	assert_true(rdsu_ep_acks_wanted(ep)); /* t still waits */
	rdsu_sock_free(t, T0);
	assert_false(rdsu_ep_acks_wanted(ep));
	rdsu_ep_free(ep);
}

/* Closing a socket drops its messages from the path queues for good. */
static void test_sock_close_drops_messages(void **state)
{
	struct fixture *fx = fixture_new(SMALL, 4000);
	struct rdsu_sock *keep = sock_at(fx->ep, SMALL, 4001);
	struct iovec iov = { "data", 4 };
	struct rdsu_conn_info ci;

	(void)state;
	fx->dst = rdsu_addr_v4(LARGE);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(rdsu_sock_submit(fx->s, &fx->dst, 5000, &iov, 1, T0), 4);
		assert_int_equal(rdsu_sock_submit(keep, &fx->dst, 5000, &iov, 1, T0), 4);
	}
	ci = conn_of(fx->ep, SMALL, LARGE);
	assert_int_equal(ci.path[0].send_q_msgs, 7); /* + the probe */
	rdsu_sock_free(fx->s, T0);
	ci = conn_of(fx->ep, SMALL, LARGE);
	assert_int_equal(ci.path[0].send_q_msgs, 4);
	assert_true(ci.path[0].send_q_bytes == 12);
	assert_int_equal(stat(fx->ep, RDSU_STAT_SEND_DROPPED), 3);
	fixture_free(fx);
}

static void test_sock_read_errors(void **state)
{
	struct rdsu_ep *ep = ep_make(SMALL, WIRE_KVER_7, 9);
	struct rdsu_sock *u, *s = sock_at(ep, SMALL, 4000);
	uint8_t buf[4];
	struct iovec iov = { buf, sizeof(buf) };

	(void)state;
	assert_int_equal(rdsu_sock_new(ep, &u), 0);
	assert_int_equal(rdsu_sock_read(u, &iov, 1, 0, NULL, T0), -ENOTCONN);
	assert_int_equal(rdsu_sock_read(s, &iov, 1, 0, NULL, T0), -EAGAIN);
	assert_int_equal(rdsu_sock_read(s, NULL, 1, 0, NULL, T0), -EINVAL);
	assert_int_equal(rdsu_sock_poll(s), RDSU_POLLOUT);
	assert_int_equal(rdsu_sock_cancel_sent_to(u, &(struct rdsu_addr){ { 0 } }, 1, T0),
			 -ENOTCONN);
	rdsu_sock_set_ctx(s, buf);
	assert_ptr_equal(rdsu_sock_get_ctx(s), buf);
	rdsu_ep_free(ep);
}

/* Events are coalesced: one per socket until pulled. */
static void test_sock_events(void **state)
{
	struct fixture *fx = fixture_new(LARGE, 5000);
	struct wire_hdr h;
	struct rdsu_event ev;
	int socks = 0;

	(void)state;
	rdsu_sock_set_ctx(fx->s, &fx->p);
	peer_init(&fx->p, fx->ep, accept_from_small(fx->ep, 32776));
	while (rdsu_ep_next_event(fx->ep, &ev))
		;
	for (uint64_t seq = 1; seq <= 5; seq++) {
		wire_build_data(&h, seq, 4000, 5000, 1);
		assert_int_equal(peer_feed(&fx->p, &h, (const uint8_t *)"z", false), WIRE_HDR_LEN + 1);
	}
	while (rdsu_ep_next_event(fx->ep, &ev))
		if (ev.type == RDSU_EV_SOCK) {
			socks++;
			assert_ptr_equal(ev.sock, fx->s);
			assert_ptr_equal(ev.ctx, &fx->p);
			assert_int_equal(ev.mask, RDSU_POLLIN);
		}
	assert_int_equal(socks, 1);
	assert_true(rdsu_sock_poll(fx->s) & RDSU_POLLIN);
	fixture_free(fx);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_sock_bind),
	cmocka_unit_test(test_sock_submit_errors),
	cmocka_unit_test(test_sock_sndbuf_boundary),
	cmocka_unit_test(test_sock_acks_wanted),
	cmocka_unit_test(test_sock_close_drops_messages),
	cmocka_unit_test(test_sock_read_errors),
	cmocka_unit_test(test_sock_events))
