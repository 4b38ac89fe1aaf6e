// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_recv.c - what the core does with each incoming message: the
 * duplicate rule, pings, maps (and what is not a map), the 1 MiB refusal,
 * any chunking. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include "cmain.h"

#include "utest.h"

static int setup(void **state)
{
	struct fixture *fx = fixture_new(LARGE, 5000);

	peer_init(&fx->p, fx->ep, accept_from_small(fx->ep, 32776));
	peer_pull(&fx->p); /* our map and probe */
	peer_clear(&fx->p);
	*state = fx;
	return 0;
}

static ssize_t rd(struct fixture *fx, uint8_t *buf, size_t cap, struct rdsu_rxinfo *info)
{
	struct iovec iov = { buf, cap };

	return rdsu_sock_read(fx->s, &iov, 1, 0, info, T0);
}

static void feed_data(struct fixture *fx, uint64_t seq, uint8_t flags, const char *text)
{
	struct wire_hdr h;
	uint32_t len = (uint32_t)strlen(text);

	wire_build_data(&h, seq, 4000, 5000, len);
	h.flags = flags;
	assert_int_equal(peer_feed(&fx->p, &h, (const uint8_t *)text, false), WIRE_HDR_LEN + len);
}

static void expect(struct fixture *fx, const char *text)
{
	uint8_t buf[64];
	struct rdsu_rxinfo info;

	if (!text) {
		assert_int_equal(rd(fx, buf, sizeof(buf), &info), -EAGAIN);
		return;
	}
	assert_int_equal(rd(fx, buf, sizeof(buf), &info), strlen(text));
	assert_memory_equal(buf, text, strlen(text));
	assert_int_equal(info.sport, 4000);
	assert_int_equal(rdsu_addr_get_v4(&info.from), SMALL);
}

/* rds_recv_incoming: drop only RETRANSMITTED with seq < next; anything
 * else is taken and next = seq + 1, even backwards. */
static void test_recv_duplicate_rule(void **state)
{
	struct fixture *fx = *state;

	feed_data(fx, 5, 0, "five");
	expect(fx, "five");
	feed_data(fx, 5, WIRE_FLAG_RETRANSMITTED, "dup5");
	expect(fx, NULL);
	feed_data(fx, 3, 0, "three");       /* not flagged: taken, next = 4 */
	expect(fx, "three");
	assert_true(conn_of(fx->ep, LARGE, SMALL).path[0].next_rx_seq == 4);
	feed_data(fx, 3, WIRE_FLAG_RETRANSMITTED, "dup3");
	expect(fx, NULL);
	feed_data(fx, 4, WIRE_FLAG_RETRANSMITTED, "four"); /* resent but new */
	expect(fx, "four");
	assert_int_equal(stat(fx->ep, RDSU_STAT_RECV_DROP_OLD_SEQ), 2);
	assert_int_equal(stat(fx->ep, RDSU_STAT_RECV_QUEUED), 3);
	/* each read by expect(): the kernel's recv_delivered counts recvmsg's */
	assert_int_equal(stat(fx->ep, RDSU_STAT_RECV_DELIVERED), 3);
}

/* rdsu_ep_msg_next lists a bound socket's unread messages last, as
 * rds_sock_inc_info does for RDS_INFO_RECV_MESSAGES: the socket's
 * address and port, the sender's, the header's sequence and length. */
static void test_recv_queue_listed(void **state)
{
	struct fixture *fx = *state;
	struct rdsu_msg_iter it = { 0 };
	struct rdsu_msg_info mi;
	uint64_t seqs[2] = { 0 };
	int n = 0;

	feed_data(fx, 7, 0, "seven");
	feed_data(fx, 8, 0, "eight!");
	while (rdsu_ep_msg_next(fx->ep, &it, &mi) == 1) {
		if (mi.queue != RDSU_MSGQ_RECV)
			continue;
		assert_true(n < 2);
		assert_int_equal(rdsu_addr_get_v4(&mi.laddr), LARGE);
		assert_int_equal(rdsu_addr_get_v4(&mi.faddr), SMALL);
		assert_int_equal(mi.dport, 5000);
		assert_int_equal(mi.sport, 4000);
		assert_int_equal(mi.len, n ? 6 : 5);
		seqs[n++] = mi.seq;
	}
	assert_int_equal(n, 2);
	assert_true(seqs[0] == 7 && seqs[1] == 8);
	expect(fx, "seven");
	memset(&it, 0, sizeof(it));
	n = 0;
	while (rdsu_ep_msg_next(fx->ep, &it, &mi) == 1)
		n += mi.queue == RDSU_MSGQ_RECV && mi.seq == 8;
	assert_int_equal(n, 1);
}

/* Pings and probes take part in the sequence check too. */
static void test_recv_duplicate_ping_not_answered(void **state)
{
	struct fixture *fx = *state;
	struct wire_hdr h;

	wire_build_ping(&h, 7, 6000);
	assert_int_equal(peer_feed(&fx->p, &h, NULL, false), WIRE_HDR_LEN);
	h.flags = WIRE_FLAG_RETRANSMITTED;
	assert_int_equal(peer_feed(&fx->p, &h, NULL, false), WIRE_HDR_LEN);
	peer_pull(&fx->p);
	assert_int_equal(count_kind(&fx->p, WIRE_KIND_PONG), 1);
}

static void test_recv_ping_pong(void **state)
{
	struct fixture *fx = *state;
	struct wire_hdr h;
	const struct oframe *f;
	uint64_t next = conn_of(fx->ep, LARGE, SMALL).path[0].next_tx_seq;

	wire_build_ping(&h, 1, 0); /* from port 0: never answered */
	assert_int_equal(peer_feed(&fx->p, &h, NULL, false), WIRE_HDR_LEN);
	wire_build_ping(&h, 2, 6000);
	assert_int_equal(peer_feed(&fx->p, &h, NULL, false), WIRE_HDR_LEN);
	peer_pull(&fx->p);
	assert_int_equal(fx->p.n, 1);
	f = &fx->p.f[0];
	assert_int_equal(wire_classify(&f->h, WIRE_XPORT_TCP), WIRE_KIND_PONG);
	assert_int_equal(f->h.sport, 0);
	assert_int_equal(f->h.dport, 6000);
	assert_int_equal(f->h.len, 0);
	assert_int_equal(f->h.flags, 0);
	assert_true(f->h.seq == next); /* a pong takes a sequence number */
	assert_true(conn_of(fx->ep, LARGE, SMALL).path[0].next_tx_seq == next + 1);
	/* a ping is not delivered anywhere */
	expect(fx, NULL);
	assert_int_equal(stat(fx->ep, RDSU_STAT_RECV_PING), 1);
}

/* A pong to a ping we sent is a zero-length message from port 0. */
static void test_recv_pong_delivered(void **state)
{
	struct fixture *fx = *state;
	struct wire_hdr h;
	uint8_t buf[8];
	struct rdsu_rxinfo info;

	wire_build_pong(&h, 3, 5000);
	assert_int_equal(peer_feed(&fx->p, &h, NULL, false), WIRE_HDR_LEN);
	assert_int_equal(rd(fx, buf, sizeof(buf), &info), 0);
	assert_int_equal(info.sport, 0);
	assert_int_equal(info.len, 0);
	/* a probe pong never reaches a socket, even one on port 1 */
	wire_build_probe(&h, true, 4, WIRE_KVER_7, 8, 3);
	assert_int_equal(peer_feed(&fx->p, &h, NULL, false), WIRE_HDR_LEN);
	assert_int_equal(rd(fx, buf, sizeof(buf), &info), -EAGAIN);
}

static void test_recv_map(void **state)
{
	struct fixture *fx = *state;
	struct rdsu_addr l = rdsu_addr_v4(LARGE), f = rdsu_addr_v4(SMALL);
	struct wire_cong_map m;
	uint8_t bytes[WIRE_CONG_MAP_BYTES];
	struct wire_hdr h;

	wire_cong_clear_all(&m);
	wire_cong_set(&m, 4001);
	wire_cong_encode(&m, bytes, sizeof(bytes));
	/* bit for port 4001: byte 500, bit 1 (LSB first) */
	assert_int_equal(bytes[500], 0x02);
	wire_build_cong(&h);
	assert_int_equal(peer_feed(&fx->p, &h, bytes, true), WIRE_HDR_LEN + WIRE_CONG_MAP_BYTES);
	assert_true(wire_cong_test(rdsu_ep_peer_map(fx->ep, &l, &f), 4001));
	assert_int_equal(stat(fx->ep, RDSU_STAT_CONG_UPDATE_RECEIVED), 1);
	/* maps take no sequence number */
	assert_true(conn_of(fx->ep, LARGE, SMALL).path[0].next_rx_seq == 0);

	/* flags 0x01 with another length: consumed and ignored */
	wire_build_cong(&h);
	h.len = 100;
	memset(bytes, 0xff, 100);
	assert_int_equal(peer_feed(&fx->p, &h, bytes, false), WIRE_HDR_LEN + 100);
	assert_true(wire_cong_test(rdsu_ep_peer_map(fx->ep, &l, &f), 4001));
	assert_false(wire_cong_test(rdsu_ep_peer_map(fx->ep, &l, &f), 1));
	assert_int_equal(stat(fx->ep, RDSU_STAT_RECV_DROP_BAD_MAP), 1);

	/* 0x05 is not "exactly 0x01": not a map (here: a ping from port 0) */
	wire_build_cong(&h);
	h.flags = WIRE_FLAG_CONG_BITMAP | WIRE_FLAG_RETRANSMITTED;
	memset(bytes, 0, sizeof(bytes));
	assert_int_equal(peer_feed(&fx->p, &h, bytes, false), WIRE_HDR_LEN + WIRE_CONG_MAP_BYTES);
	assert_true(wire_cong_test(rdsu_ep_peer_map(fx->ep, &l, &f), 4001));
	assert_int_equal(stat(fx->ep, RDSU_STAT_CONG_UPDATE_RECEIVED), 1);
}

static void test_recv_too_big(void **state)
{
	struct fixture *fx = *state;
	struct wire_hdr h;
	uint8_t hdr[WIRE_HDR_LEN];
	struct rdsu_lreq r;
	uint64_t link = fx->p.link;

	wire_build_data(&h, 9, 4000, 5000, WIRE_MAX_MSG_LEN + 1);
	wire_hdr_encode(&h, hdr, sizeof(hdr));
	assert_int_equal(rdsu_link_input(fx->ep, link, hdr, sizeof(hdr), T0), RDSU_ERR_PROTO);
	assert_int_equal(stat(fx->ep, RDSU_STAT_RECV_TOO_BIG), 1);
	assert_int_equal(next_req(fx->ep, RDSU_LREQ_CLOSE, &r), 1);
	assert_true(r.link == link && r.reset);
	assert_int_equal(conn_of(fx->ep, LARGE, SMALL).path[0].state, RDSU_PATH_DOWN);
	assert_int_equal(rdsu_link_input(fx->ep, link, hdr, 1, T0), RDSU_ERR_CLOSED);
}

static void test_recv_one_mib_and_chunking(void **state)
{
	struct fixture *fx = *state;
	struct wire_hdr h;
	uint8_t *big = malloc(WIRE_MAX_MSG_LEN), *out = malloc(WIRE_MAX_MSG_LEN);
	struct iovec iov = { out, WIRE_MAX_MSG_LEN };
	struct rdsu_rxinfo info;

	for (size_t i = 0; i < WIRE_MAX_MSG_LEN; i++)
		big[i] = (uint8_t)(i * 13);
	assert_int_equal(rdsu_sock_set_rcvbuf(fx->s, 4 << 20, T0), 0);
	wire_build_data(&h, 1, 4000, 5000, WIRE_MAX_MSG_LEN);
	assert_int_equal(peer_feed(&fx->p, &h, big, false), WIRE_HDR_LEN + WIRE_MAX_MSG_LEN);
	assert_int_equal(rdsu_sock_read(fx->s, &iov, 1, 0, &info, T0), WIRE_MAX_MSG_LEN);
	assert_memory_equal(out, big, WIRE_MAX_MSG_LEN);
	/* split at every byte */
	wire_build_data(&h, 2, 4000, 5000, 3000);
	assert_int_equal(peer_feed(&fx->p, &h, big, true), WIRE_HDR_LEN + 3000);
	assert_int_equal(rdsu_sock_read(fx->s, &iov, 1, 0, &info, T0), 3000);
	assert_memory_equal(out, big, 3000);
	free(big);
	free(out);
}

static void test_recv_no_socket(void **state)
{
	struct fixture *fx = *state;
	struct wire_hdr h;

	wire_build_data(&h, 1, 4000, 5001, 2);
	assert_int_equal(peer_feed(&fx->p, &h, (const uint8_t *)"hi", false), WIRE_HDR_LEN + 2);
	assert_int_equal(stat(fx->ep, RDSU_STAT_RECV_DROP_NO_SOCK), 1);
	expect(fx, NULL);
}

/* Read side details: MSG_TRUNC, MSG_PEEK, scatter. */
static void test_recv_read_trunc_peek(void **state)
{
	struct fixture *fx = *state;
	uint8_t a[3], b[4];
	struct iovec iov[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
	struct rdsu_rxinfo info;

	feed_data(fx, 1, 0, "0123456789");
	assert_int_equal(rdsu_sock_read(fx->s, iov, 2, RDSU_READ_PEEK, &info, T0), 7);
	assert_true(info.trunc);
	assert_int_equal(info.len, 10);
	assert_memory_equal(a, "012", 3);
	assert_memory_equal(b, "3456", 4);
	assert_int_equal(rdsu_sock_read(fx->s, iov, 1, 0, &info, T0), 3);
	assert_true(info.trunc);
	expect(fx, NULL);
	/* one queued, two returned: rds_recvmsg counts a peek as delivered */
	assert_int_equal(stat(fx->ep, RDSU_STAT_RECV_QUEUED), 1);
	assert_int_equal(stat(fx->ep, RDSU_STAT_RECV_DELIVERED), 2);
}

/* One message from |sport| to port 5000 on |p|'s link. */
static void feed_to(struct peer *p, uint16_t sport, uint16_t dport, uint64_t seq, uint8_t flags)
{
	struct wire_hdr h;
	uint8_t body[8];

	wire_build_data(&h, seq, sport, dport, sizeof(body));
	h.flags = flags;
	memcpy(body, &seq, sizeof(seq));
	assert_int_equal(peer_feed(p, &h, body, false), WIRE_HDR_LEN + sizeof(body));
}

static void feed_from(struct peer *p, uint16_t sport, uint64_t seq, uint8_t flags)
{
	feed_to(p, sport, 5000, seq, flags);
}

/* What a socket has, as "sport:seq" words. */
static void drain(struct rdsu_sock *s, char *out, size_t cap)
{
	uint8_t buf[16];
	struct iovec iov = { buf, sizeof(buf) };
	struct rdsu_rxinfo info;
	size_t n = 0;

	out[0] = 0;
	while (rdsu_sock_read(s, &iov, 1, 0, &info, T0) == 8) {
		uint64_t seq;

		memcpy(&seq, buf, sizeof(seq));
		n += (size_t)snprintf(out + n, cap - n, "%s%u:%llu", n ? " " : "",
				      (unsigned)info.sport, (unsigned long long)seq);
	}
}

/* A 6.x-mode endpoint's three incoming paths from SMALL, the path count
 * (8) known from the probe on path 0. */
static void three_paths(struct rdsu_ep *ep, struct peer *p0, struct peer *p1, struct peer *p2)
{
	struct wire_hdr h;

	peer_init(p0, ep, accept_from_small(ep, 50001));
	probe_hdr(&h, false, 1, WIRE_KVER_7, 8, 77);
	assert_int_equal(peer_feed(p0, &h, NULL, false), WIRE_HDR_LEN);
	peer_init(p1, ep, accept_from_small(ep, 50002));
	peer_init(p2, ep, accept_from_small(ep, 50003));
	assert_true(conn_of(ep, LARGE, SMALL).path[1].link == p1->link);
}

/* Paths 1 and 2 both die; the peer's path 2 is back first and takes
 * slot 1, its path 1 slot 2. */
static void swap_paths(struct rdsu_ep *ep, struct peer *p1, struct peer *p2)
{
	assert_int_equal(rdsu_link_down(ep, p1->link, T0), 0);
	assert_int_equal(rdsu_link_down(ep, p2->link, T0), 0);
	peer_relink(p2, accept_from_small(ep, 50004));
	peer_relink(p1, accept_from_small(ep, 50005));
	assert_true(conn_of(ep, LARGE, SMALL).path[1].link == p2->link);
	assert_true(conn_of(ep, LARGE, SMALL).path[2].link == p1->link);
}

/*
 * Playing 6.x, we file connections in arrival order (and a 6.x acceptor
 * does so with ours), so after the peer's paths 1 and 2 both drop they
 * may come back the other way round: its
 * path 1 (port 4001's sequence) in our slot 2, its path 2 (port 4002's) in
 * our slot 1. Its resends must still be delivered exactly once: each
 * slot's own next number would take 4002's copies on slot 1 (it expects 6)
 * and drop 4001's new 6 and 7 on slot 2 (it expects 51).
 */
static void test_recv_dups_follow_the_sender_port(void **state)
{
	struct rdsu_ep *ep = ep_make(LARGE, WIRE_KVER_6, 9);
	struct rdsu_sock *s = sock_at(ep, LARGE, 5000);
	struct peer p0, p1, p2;
	struct wire_hdr h;
	char got[512];

	(void)state;
	three_paths(ep, &p0, &p1, &p2);
	for (uint64_t q = 1; q <= 5; q++)
		feed_from(&p1, 4001, q, 0);
	for (uint64_t q = 1; q <= 50; q++)
		feed_from(&p2, 4002, q, 0);
	drain(s, got, sizeof(got));
	swap_paths(ep, &p1, &p2);

	for (uint64_t q = 4; q <= 7; q++)       /* 4, 5 delivered before */
		feed_from(&p1, 4001, q, WIRE_FLAG_RETRANSMITTED);
	for (uint64_t q = 49; q <= 51; q++)     /* 49, 50 delivered before */
		feed_from(&p2, 4002, q, WIRE_FLAG_RETRANSMITTED);
	feed_from(&p1, 4001, 8, 0);
	drain(s, got, sizeof(got));
	assert_string_equal(got, "4001:6 4001:7 4002:51 4001:8");
	assert_int_equal(stat(ep, RDSU_STAT_RECV_DROP_OLD_SEQ), 4);
	/* judged otherwise than by the slot: 4001:6 (taken, the slot's
	 * number follows it, so 7 agrees) and 4002:49 and :50 */
	assert_int_equal(stat(ep, RDSU_STAT_RECV_PORT_SEQ), 3);

	/* a restarted peer numbers from 1 again: its resent 2 is new */
	probe_hdr(&h, false, 1, WIRE_KVER_7, 8, 78);
	assert_int_equal(peer_feed(&p0, &h, NULL, false), WIRE_HDR_LEN);
	assert_int_equal(stat(ep, RDSU_STAT_GEN_RESET), 1);
	feed_from(&p1, 4001, 2, WIRE_FLAG_RETRANSMITTED);
	drain(s, got, sizeof(got));
	assert_string_equal(got, "4001:2");
	peer_fini(&p0);
	peer_fini(&p1);
	peer_fini(&p2);
	rdsu_ep_free(ep);
}

/*
 * The same swap, from a librds peer whose one socket (port 4001) talks to
 * two of our ports: by its pair rule, to 5000 on path 1 and to 5001 on
 * path 2. The duplicate check must follow the port pair: by the sending
 * port alone, 4001's last number taken would be 5001's 50, and the new 6
 * and 7 to 5000 would be dropped as old.
 */
static void test_recv_dups_follow_the_port_pair(void **state)
{
	struct rdsu_ep *ep = ep_make(LARGE, WIRE_KVER_6, 9);
	struct rdsu_sock *s0 = sock_at(ep, LARGE, 5000), *s1 = sock_at(ep, LARGE, 5001);
	struct peer p0, p1, p2;
	char got[512];

	(void)state;
	three_paths(ep, &p0, &p1, &p2);
	for (uint64_t q = 1; q <= 5; q++)
		feed_to(&p1, 4001, 5000, q, 0);
	for (uint64_t q = 1; q <= 50; q++)
		feed_to(&p2, 4001, 5001, q, 0);
	drain(s0, got, sizeof(got));
	drain(s1, got, sizeof(got));
	swap_paths(ep, &p1, &p2);

	for (uint64_t q = 4; q <= 7; q++)
		feed_to(&p1, 4001, 5000, q, WIRE_FLAG_RETRANSMITTED);
	for (uint64_t q = 49; q <= 51; q++)
		feed_to(&p2, 4001, 5001, q, WIRE_FLAG_RETRANSMITTED);
	drain(s0, got, sizeof(got));
	assert_string_equal(got, "4001:6 4001:7");
	drain(s1, got, sizeof(got));
	assert_string_equal(got, "4001:51");
	assert_int_equal(stat(ep, RDSU_STAT_RECV_DROP_OLD_SEQ), 4);
	peer_fini(&p0);
	peer_fini(&p1);
	peer_fini(&p2);
	rdsu_ep_free(ep);
}

CMOCKA_MAIN(
	cmocka_unit_test_setup_teardown(test_recv_duplicate_rule, setup, fixture_teardown),
	cmocka_unit_test_setup_teardown(test_recv_queue_listed, setup, fixture_teardown),
	cmocka_unit_test_setup_teardown(test_recv_duplicate_ping_not_answered, setup,
			fixture_teardown),
	cmocka_unit_test_setup_teardown(test_recv_ping_pong, setup, fixture_teardown),
	cmocka_unit_test_setup_teardown(test_recv_pong_delivered, setup, fixture_teardown),
	cmocka_unit_test_setup_teardown(test_recv_map, setup, fixture_teardown),
	cmocka_unit_test_setup_teardown(test_recv_too_big, setup, fixture_teardown),
	cmocka_unit_test_setup_teardown(test_recv_one_mib_and_chunking, setup, fixture_teardown),
	cmocka_unit_test_setup_teardown(test_recv_no_socket, setup, fixture_teardown),
	cmocka_unit_test_setup_teardown(test_recv_read_trunc_peek, setup, fixture_teardown),
	cmocka_unit_test(test_recv_dups_follow_the_sender_port),
	cmocka_unit_test(test_recv_dups_follow_the_port_pair))
