// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_cong.c - RCVBUF thresholds to the byte, the map the peer gets,
 * ENOBUFS from the peer's map, monitor notifications. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "cmain.h"

#include "utest.h"

static uint8_t payload[4096];

/* The last map in p's frames. */
static const struct oframe *last_map(const struct peer *p)
{
	for (size_t i = p->n; i-- > 0;)
		if (wire_classify(&p->f[i].h, WIRE_XPORT_TCP) == WIRE_KIND_CONG)
			return &p->f[i];
	return NULL;
}

static void test_cong_thresholds(void **state)
{
	struct fixture *fx = fixture_new(LARGE, 4000);
	struct rdsu_addr me = rdsu_addr_v4(LARGE);
	struct wire_hdr h;
	const struct oframe *m;
	uint8_t buf[4096];
	struct iovec iov = { buf, sizeof(buf) };
	uint64_t seq = 1;

	(void)state;
	assert_int_equal(rdsu_sock_set_rcvbuf(fx->s, 65536, T0), 0);
	peer_init(&fx->p, fx->ep, accept_from_small(fx->ep, 32776));
	peer_pull(&fx->p);
	peer_clear(&fx->p);
	for (int i = 0; i < 16; i++) {
		wire_build_data(&h, seq++, 5500, 4000, sizeof(payload));
		assert_int_equal(peer_feed(&fx->p, &h, payload, false), WIRE_HDR_LEN + 4096);
	}
	/* 65536 queued: at the limit is not over it */
	assert_false(wire_cong_test(rdsu_ep_local_map(fx->ep, &me), 4000));
	assert_int_equal(peer_pull(&fx->p), 0);
	wire_build_data(&h, seq++, 5500, 4000, sizeof(payload));
	assert_int_equal(peer_feed(&fx->p, &h, payload, false), WIRE_HDR_LEN + 4096);
	assert_true(wire_cong_test(rdsu_ep_local_map(fx->ep, &me), 4000));
	peer_pull(&fx->p);
	m = last_map(&fx->p);
	assert_non_null(m);
	/* port 4000: byte 500, bit 0; nothing else set */
	assert_int_equal(m->data[500], 0x01);
	for (unsigned i = 0; i < WIRE_CONG_MAP_BYTES; i++)
		if (i != 500)
			assert_int_equal(m->data[i], 0);
	assert_true(m->h.seq == 0);
	assert_int_equal(m->h.flags, 0x01);
	peer_clear(&fx->p);
	/* 17 -> 8 messages: 32768 = half, still congested */
	for (int i = 0; i < 9; i++)
		assert_int_equal(rdsu_sock_read(fx->s, &iov, 1, 0, NULL, T0), 4096);
	assert_true(wire_cong_test(rdsu_ep_local_map(fx->ep, &me), 4000));
	assert_int_equal(peer_pull(&fx->p), 0);
	/* 7 messages: below half, free again */
	assert_int_equal(rdsu_sock_read(fx->s, &iov, 1, 0, NULL, T0), 4096);
	assert_false(wire_cong_test(rdsu_ep_local_map(fx->ep, &me), 4000));
	peer_pull(&fx->p);
	m = last_map(&fx->p);
	assert_non_null(m);
	assert_int_equal(m->data[500], 0);
	assert_int_equal(stat(fx->ep, RDSU_STAT_CONG_UPDATE_QUEUED), 2);
	fixture_free(fx);
}

/* Lowering RCVBUF under queued data congests at once. */
static void test_cong_rcvbuf_change(void **state)
{
	struct fixture *fx = fixture_new(LARGE, 4000);
	struct rdsu_addr me = rdsu_addr_v4(LARGE);
	struct wire_hdr h;

	(void)state;
	peer_init(&fx->p, fx->ep, accept_from_small(fx->ep, 32776));
	wire_build_data(&h, 1, 5500, 4000, 1000);
	assert_int_equal(peer_feed(&fx->p, &h, payload, false), WIRE_HDR_LEN + 1000);
	assert_false(wire_cong_test(rdsu_ep_local_map(fx->ep, &me), 4000));
	assert_int_equal(rdsu_sock_set_rcvbuf(fx->s, 999, T0), 0);
	assert_true(wire_cong_test(rdsu_ep_local_map(fx->ep, &me), 4000));
	fixture_free(fx);
}

static void test_cong_enobufs_and_monitor(void **state)
{
	struct fixture *fx = fixture_new(LARGE, 5000);
	struct rdsu_sock *m = sock_at(fx->ep, LARGE, 5001);
	struct iovec iov = { "q", 1 };
	struct wire_cong_map map;
	uint8_t bytes[WIRE_CONG_MAP_BYTES];
	struct wire_hdr h;
	struct rdsu_rxinfo info;
	uint8_t buf[8];
	struct iovec riov = { buf, sizeof(buf) };
	struct rdsu_event ev;
	unsigned wrband = 0;

	(void)state;
	fx->dst = rdsu_addr_v4(SMALL);
	peer_init(&fx->p, fx->ep, accept_from_small(fx->ep, 32776));
	assert_int_equal(rdsu_sock_set_cong_monitor(m, true), 0);
	wire_cong_clear_all(&map);
	wire_cong_set(&map, 4000);
	wire_cong_set(&map, 4065);
	wire_cong_encode(&map, bytes, sizeof(bytes));
	wire_build_cong(&h);
	assert_int_equal(peer_feed(&fx->p, &h, bytes, false), WIRE_HDR_LEN + WIRE_CONG_MAP_BYTES);
	assert_int_equal(rdsu_sock_submit(fx->s, &fx->dst, 4000, &iov, 1, T0), -ENOBUFS);
	assert_int_equal(rdsu_sock_submit(m, &fx->dst, 4065, &iov, 1, T0), -ENOBUFS);
	assert_int_equal(rdsu_sock_submit(m, &fx->dst, 4001, &iov, 1, T0), 1);
	assert_int_equal(stat(fx->ep, RDSU_STAT_CONG_SEND_ERROR), 2);
	/* a pong to a congested port is not sent either */
	wire_build_ping(&h, 1, 4000);
	assert_int_equal(peer_feed(&fx->p, &h, NULL, false), WIRE_HDR_LEN);
	peer_pull(&fx->p);
	assert_int_equal(count_kind(&fx->p, WIRE_KIND_PONG), 0);
	while (rdsu_ep_next_event(fx->ep, &ev))
		;
	/* the peer frees everything */
	wire_cong_clear_all(&map);
	wire_cong_encode(&map, bytes, sizeof(bytes));
	wire_build_cong(&h);
	assert_int_equal(peer_feed(&fx->p, &h, bytes, false), WIRE_HDR_LEN + WIRE_CONG_MAP_BYTES);
	while (rdsu_ep_next_event(fx->ep, &ev))
		if (ev.type == RDSU_EV_SOCK && ev.sock == fx->s)
			wrband |= ev.mask;
	assert_int_equal(wrband, RDSU_POLLWRBAND);
	/* the monitor hears about group 4065 % 64 = 33 only */
	assert_int_equal(rdsu_sock_read(m, &riov, 1, 0, &info, T0), 0);
	assert_true(info.cong);
	assert_true(info.cong_mask == 1ull << 33);
	assert_int_equal(rdsu_sock_read(m, &riov, 1, 0, &info, T0), -EAGAIN);
	assert_int_equal(rdsu_sock_submit(fx->s, &fx->dst, 4000, &iov, 1, T0), 1);
	fixture_free(fx);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_cong_thresholds),
	cmocka_unit_test(test_cong_rcvbuf_change),
	cmocka_unit_test(test_cong_enobufs_and_monitor))
