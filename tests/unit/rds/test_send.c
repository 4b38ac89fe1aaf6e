// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_send.c - what the core writes: the map first, sequence numbers,
 * TCP acknowledgement freeing messages, resending after a reconnect with
 * RETRANSMITTED and the same numbers, peek/advance, OUTPUT requests. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "cmain.h"

#include "utest.h"

/* SMALL with one path agreed: everything on path 0. */
static int setup(void **state)
{
	*state = fixture_one_path(4003);
	return 0;
}

static void submit(struct fixture *fx, const char *text)
{
	struct iovec iov = { (void *)text, strlen(text) };

	assert_int_equal(rdsu_sock_submit(fx->s, &fx->dst, 5000, &iov, 1, T0), strlen(text));
}

static void test_send_first_link_bytes(void **state)
{
	struct fixture *fx = fixture_new(SMALL, 4000);
	struct iovec iov = { "hello", 5 };

	(void)state;
	fx->dst = rdsu_addr_v4(LARGE);
	assert_int_equal(rdsu_sock_submit(fx->s, &fx->dst, 5000, &iov, 1, T0), 5);
	peer_init(&fx->p, fx->ep, connect_to_large(fx->ep, 0, T0));
	peer_pull(&fx->p);
	/* the whole empty map, then the probe (seq 1), then the data (seq 2) */
	assert_int_equal(fx->p.n, 3);
	assert_int_equal(fx->p.f[0].h.flags, WIRE_FLAG_CONG_BITMAP);
	assert_true(fx->p.f[0].h.seq == 0);
	assert_int_equal(fx->p.f[0].len, WIRE_CONG_MAP_BYTES);
	for (unsigned i = 0; i < WIRE_CONG_MAP_BYTES; i++)
		assert_int_equal(fx->p.f[0].data[i], 0);
	assert_int_equal(wire_classify(&fx->p.f[1].h, WIRE_XPORT_TCP), WIRE_KIND_PROBE_PING);
	assert_true(fx->p.f[1].h.seq == 1);
	assert_true(fx->p.f[2].h.seq == 2);
	assert_int_equal(fx->p.f[2].h.sport, 4000);
	assert_int_equal(fx->p.f[2].h.dport, 5000);
	assert_int_equal(fx->p.f[2].len, 5);
	assert_memory_equal(fx->p.f[2].data, "hello", 5);
	assert_true(fx->p.written == 3 * WIRE_HDR_LEN + WIRE_CONG_MAP_BYTES + 5);
	fixture_free(fx);
}

static void test_send_acked_frees(void **state)
{
	struct fixture *fx = *state;
	struct rdsu_conn_info ci;
	uint64_t base = fx->p.written;

	submit(fx, "aaaa");
	submit(fx, "bbbbbbbb");
	peer_pull(&fx->p);
	ci = conn_of(fx->ep, SMALL, LARGE);
	assert_int_equal(ci.path[0].retrans_q_msgs, 2);
	/* one byte short of the first message's end: nothing freed */
	assert_int_equal(rdsu_link_acked(fx->ep, fx->p.link, base + WIRE_HDR_LEN + 3, T0), 0);
	assert_int_equal(rdsu_link_acked(fx->ep, fx->p.link, base + WIRE_HDR_LEN + 4, T0), 1);
	ci = conn_of(fx->ep, SMALL, LARGE);
	assert_int_equal(ci.path[0].retrans_q_msgs, 1);
	assert_true(ci.path[0].retrans_q_bytes == 8);
	/* backwards or beyond what was written: caller error */
	assert_int_equal(rdsu_link_acked(fx->ep, fx->p.link, base, T0), RDSU_ERR_INVAL);
	assert_int_equal(rdsu_link_acked(fx->ep, fx->p.link, fx->p.written + 1, T0),
			 RDSU_ERR_INVAL);
	assert_int_equal(rdsu_link_acked(fx->ep, fx->p.link, fx->p.written, T0), 1);
	assert_true(stat(fx->ep, RDSU_STAT_SEND_DROP_ACKED) >= 2);
}

/* rds_send_path_reset: unacked messages go back in front, flagged, with
 * their sequence numbers; a message half written is resent whole. */
static void test_send_retransmit_after_reconnect(void **state)
{
	struct fixture *fx = *state;
	uint64_t seq1, seq2;
	struct rdsu_conn_info ci;

	submit(fx, "first");
	submit(fx, "second");
	fx->p.chunk = WIRE_HDR_LEN + 5 + 10; /* first whole, second cut */
	{
		uint8_t buf[WIRE_HDR_LEN + 15];
		ssize_t n = rdsu_link_output(fx->ep, fx->p.link, buf, sizeof(buf), T0);
		struct wire_hdr h;

		assert_int_equal(n, sizeof(buf));
		wire_hdr_decode(&h, buf, WIRE_HDR_LEN);
		seq1 = h.seq;
		assert_int_equal(h.flags, 0);
	}
	seq2 = seq1 + 1;
	submit(fx, "third");
	assert_int_equal(rdsu_link_down(fx->ep, fx->p.link, T0), 0);
	ci = conn_of(fx->ep, SMALL, LARGE);
	assert_int_equal(ci.path[0].state, RDSU_PATH_CONNECTING); /* at once */
	assert_int_equal(ci.path[0].send_q_msgs, 3);
	assert_true(stat(fx->ep, RDSU_STAT_SEND_RETRANSMITTED) == 2);

	peer_relink(&fx->p, connect_to_large(fx->ep, 0, T0));
	fx->p.chunk = 0;
	peer_clear(&fx->p);
	peer_pull(&fx->p);
	/* map, first, second (both flagged), third, then the new probe */
	assert_int_equal(fx->p.n, 5);
	assert_int_equal(wire_classify(&fx->p.f[0].h, WIRE_XPORT_TCP), WIRE_KIND_CONG);
	assert_true(fx->p.f[1].h.seq == seq1);
	assert_int_equal(fx->p.f[1].h.flags, WIRE_FLAG_RETRANSMITTED);
	assert_memory_equal(fx->p.f[1].data, "first", 5);
	assert_true(fx->p.f[2].h.seq == seq2);
	assert_int_equal(fx->p.f[2].h.flags, WIRE_FLAG_RETRANSMITTED);
	assert_memory_equal(fx->p.f[2].data, "second", 6);
	assert_true(fx->p.f[3].h.seq == seq2 + 1);
	assert_int_equal(fx->p.f[3].h.flags, 0);
	assert_memory_equal(fx->p.f[3].data, "third", 5);
	assert_int_equal(wire_classify(&fx->p.f[4].h, WIRE_XPORT_TCP), WIRE_KIND_PROBE_PING);
	assert_true(fx->p.f[4].h.seq == seq2 + 2);
}

static void test_send_peek_advance(void **state)
{
	struct fixture *fx = *state;
	const uint8_t *p;
	size_t len;

	submit(fx, "xyz");
	assert_int_equal(rdsu_link_peek(fx->ep, fx->p.link, &p, &len, T0), 0);
	assert_int_equal(len, WIRE_HDR_LEN);
	assert_int_equal(rdsu_link_advance(fx->ep, fx->p.link, len + 1, T0), RDSU_ERR_INVAL);
	assert_int_equal(rdsu_link_advance(fx->ep, fx->p.link, 10, T0), 0);
	assert_int_equal(rdsu_link_peek(fx->ep, fx->p.link, &p, &len, T0), 0);
	assert_int_equal(len, WIRE_HDR_LEN - 10);
	assert_int_equal(rdsu_link_advance(fx->ep, fx->p.link, len, T0), 0);
	assert_int_equal(rdsu_link_peek(fx->ep, fx->p.link, &p, &len, T0), 0);
	assert_int_equal(len, 3);
	assert_memory_equal(p, "xyz", 3);
	assert_int_equal(rdsu_link_advance(fx->ep, fx->p.link, 3, T0), 0);
	assert_int_equal(rdsu_link_peek(fx->ep, fx->p.link, &p, &len, T0), 0);
	assert_int_equal(len, 0);
	assert_true(conn_of(fx->ep, SMALL, LARGE).path[0].tx_bytes ==
		    fx->p.written + WIRE_HDR_LEN + 3);
}

/* OUTPUT is an edge: raised when there is something, again only after
 * the transport found the link drained. */
static void test_send_output_requests(void **state)
{
	struct fixture *fx = *state;
	struct rdsu_lreq r;

	while (rdsu_ep_next_link_req(fx->ep, &r))
		;
	submit(fx, "one");
	assert_int_equal(next_req(fx->ep, RDSU_LREQ_OUTPUT, &r), 1);
	assert_true(r.link == fx->p.link);
	assert_int_equal(r.path, 0);
	submit(fx, "two");
	assert_int_equal(rdsu_ep_next_link_req(fx->ep, &r), 0);
	peer_pull(&fx->p);
	submit(fx, "three");
	assert_int_equal(next_req(fx->ep, RDSU_LREQ_OUTPUT, &r), 1);
}

/* Cancelled while being written: finished on the wire, never resent. */
static void test_send_cancel_mid_write(void **state)
{
	struct fixture *fx = *state;
	uint8_t buf[WIRE_HDR_LEN + 2];
	struct rdsu_conn_info ci;
	struct wire_frame f;
	bool ready;

	submit(fx, "abcdef");
	submit(fx, "ghi");
	assert_int_equal(rdsu_link_output(fx->ep, fx->p.link, buf, sizeof(buf), T0), sizeof(buf));
	assert_int_equal(wire_deframer_input(&fx->p.d, buf, sizeof(buf), &f, &ready), sizeof(buf));
	fx->p.written += sizeof(buf);
	assert_int_equal(rdsu_sock_cancel_sent_to(fx->s, &fx->dst, 5000, T0), 2);
	peer_pull(&fx->p);
	/* the rest of "abcdef" and nothing of "ghi" */
	assert_int_equal(fx->p.n, 1);
	assert_int_equal(fx->p.f[0].len, 6);
	assert_memory_equal(fx->p.f[0].data, "abcdef", 6);
	ci = conn_of(fx->ep, SMALL, LARGE);
	assert_int_equal(ci.path[0].send_q_msgs, 0);
	assert_int_equal(ci.path[0].retrans_q_msgs, 1); /* until acked or reset */
	assert_int_equal(rdsu_link_down(fx->ep, fx->p.link, T0), 0);
	ci = conn_of(fx->ep, SMALL, LARGE);
	assert_int_equal(ci.path[0].send_q_msgs, 0);
	assert_int_equal(ci.path[0].retrans_q_msgs, 0);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_send_first_link_bytes),
	cmocka_unit_test_setup_teardown(test_send_acked_frees, setup, fixture_teardown),
	cmocka_unit_test_setup_teardown(test_send_retransmit_after_reconnect, setup,
			fixture_teardown),
	cmocka_unit_test_setup_teardown(test_send_peek_advance, setup, fixture_teardown),
	cmocka_unit_test_setup_teardown(test_send_output_requests, setup, fixture_teardown),
	cmocka_unit_test_setup_teardown(test_send_cancel_mid_write, setup, fixture_teardown))
