// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * test_lo.c - the loopback transport (librds/io/lo.c, RDSU_TRANS_LOOP):
 * messages to the endpoint's own addresses delivered through the core's
 * receive path in one process, as net/rds/loop.c rds_loop_xmit does.
 * Delivery and order, pings, SNDBUF given back at once, a loopback
 * socket that never congests and a socket on another own address that
 * does, IPv4 and IPv6. TCP runs with no listener, so the addresses need
 * not exist on the host and nothing here touches the network.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "cmain.h"

#include <errno.h>
#include <string.h>

#include "iotest.h"

#define LO_A "127.0.31.1"
#define LO_B "127.0.31.2"
#define OWN_A "10.99.31.1" /* not a loopback address: its sockets are TCP's */

static struct rdsu_io *io;

static int teardown(void **state)
{
	(void)state;
	rdsu_io_free(io);
	io = NULL;
	return 0;
}

static struct rdsu_addr v6_one(void)
{
	struct rdsu_addr a = { { [15] = 1 } };

	return a;
}

/* An endpoint on |n| addresses, TCP not listening. */
static struct rdsu_ep *make(const struct rdsu_addr *a, unsigned n)
{
	struct io_cfgs c;

	io_cfgs_at(&c, LO_A);
	for (unsigned i = 0; i < n; i++)
		c.ep.laddrs[i] = a[i];
	c.ep.n_laddrs = n;
	c.io.tcp = &c.tcp;
	assert_int_equal(rdsu_io_new(&io, &c.ep, &c.io), 0);
	return rdsu_io_ep(io);
}

static struct rdsu_sock *sock_at(struct rdsu_ep *ep, const struct rdsu_addr *a, uint16_t port)
{
	struct rdsu_sock *s;

	assert_int_equal(rdsu_sock_new(ep, &s), 0);
	assert_int_equal(rdsu_sock_bind(s, a, port), 0);
	return s;
}

static void info_of(struct rdsu_ep *ep, struct rdsu_sock *s, struct rdsu_sock_info *out)
{
	size_t pos = 0;

	while (rdsu_ep_sock_next(ep, &pos, out) == 1)
		if (out->sock == s)
			return;
	fail_msg("socket not listed");
}

static uint64_t stat_of(struct rdsu_ep *ep, enum rdsu_stat st)
{
	struct rdsu_stats s;

	rdsu_ep_get_stats(ep, &s);
	return s.v[st];
}

/* 64 messages of growing sizes (0 up to 1 MiB) from a to b arrive whole,
 * in order, from a's address and port, and the socket's transport and the
 * connection's are the loopback transport's. */
static void deliver_in_order(const struct rdsu_addr *la, const struct rdsu_addr *lb)
{
	struct rdsu_addr both[2] = { *la, *lb };
	struct rdsu_ep *ep = make(both, rdsu_addr_cmp(la, lb) ? 2 : 1);
	struct rdsu_sock *a = sock_at(ep, la, 4000), *b = sock_at(ep, lb, 5000);
	static uint8_t out[1 << 20], in[1 << 20];
	struct rdsu_conn_info ci;
	uint32_t lens[64];

	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = (uint8_t)(i * 7 + 3);
	assert_int_equal(rdsu_sock_set_sndbuf(a, 8 << 20, rdsu_clock()), 0);
	for (unsigned i = 0; i < 64; i++) {
		struct iovec iov = { out + i, 0 };

		lens[i] = i == 63 ? (1u << 20) - 64 : i * i * 97;
		iov.iov_len = lens[i];
		assert_int_equal(rdsu_sock_submit(a, lb, 5000, &iov, 1, rdsu_clock()),
				 (int)lens[i]);
	}
	assert_int_equal(rdsu_io_run(io, 0), 0);
	for (unsigned i = 0; i < 64; i++) {
		struct iovec iov = { in, sizeof(in) };
		struct rdsu_rxinfo ri;

		assert_int_equal(rdsu_sock_read(b, &iov, 1, 0, &ri, rdsu_clock()), (int)lens[i]);
		assert_int_equal(rdsu_addr_cmp(&ri.from, la), 0);
		assert_int_equal(ri.sport, 4000);
		assert_memory_equal(in, out + i, lens[i]);
	}
	{
		struct iovec iov = { in, 1 };
		struct rdsu_rxinfo ri;

		assert_int_equal(rdsu_sock_read(b, &iov, 1, 0, &ri, rdsu_clock()), -EAGAIN);
	}
	assert_int_equal(rdsu_sock_get_transport(a),
			 rdsu_addr_is_v4(la) && la->a[12] != 127 ? RDSU_TRANS_TCP : RDSU_TRANS_LOOP);
	assert_int_equal(rdsu_ep_conn_get(ep, la, lb, &ci), 0);
	assert_int_equal(ci.transport, RDSU_TRANS_LOOP);
	assert_int_equal(ci.npaths, 1);
	assert_int_equal(ci.path[0].state, RDSU_PATH_UP);
	assert_int_equal(stat_of(ep, RDSU_STAT_RECV_QUEUED), 64);
	assert_int_equal(stat_of(ep, RDSU_STAT_RECV_DELIVERED), 64);
	/* nothing went to TCP */
	{
		struct rdsu_tcp_stats ts;

		rdsu_tcp_get_stats(rdsu_io_tcp(io), &ts);
		assert_int_equal(ts.connects, 0);
	}
	/* b's answer travels its own connection, b to a */
	{
		struct iovec iov = { "re", 2 };
		struct rdsu_rxinfo ri;

		assert_int_equal(rdsu_sock_submit(b, la, 4000, &iov, 1, rdsu_clock()), 2);
		assert_int_equal(rdsu_io_run(io, 0), 0);
		iov = (struct iovec){ in, sizeof(in) };
		assert_int_equal(rdsu_sock_read(a, &iov, 1, 0, &ri, rdsu_clock()), 2);
		assert_int_equal(rdsu_addr_cmp(&ri.from, lb), 0);
		assert_int_equal(ri.sport, 5000);
	}
	rdsu_sock_free(a, rdsu_clock());
	rdsu_sock_free(b, rdsu_clock());
}

static void test_lo_deliver_v4(void **state)
{
	struct rdsu_addr a = addr(LO_A);

	(void)state;
	deliver_in_order(&a, &a);
}

static void test_lo_deliver_v6(void **state)
{
	struct rdsu_addr a = v6_one();

	(void)state;
	deliver_in_order(&a, &a);
}

/* Between two own addresses: delivered to the socket on the peer
 * address, from the sender's (rds_loop_xmit's reversed roles). */
static void test_lo_deliver_two_addrs(void **state)
{
	struct rdsu_addr a = addr(LO_A), b = addr(LO_B);

	(void)state;
	deliver_in_order(&a, &b);
}

/* An own address that is not a loopback one: TCP's socket, loopback's
 * connection (t_prefer_loopback). */
static void test_lo_deliver_own(void **state)
{
	struct rdsu_addr a = addr(OWN_A);

	(void)state;
	deliver_in_order(&a, &a);
}

/* A ping to port 0 of our own address is answered: a zero-length message
 * from port 0, counted as the kernel counts it. */
static void ping(const struct rdsu_addr *a)
{
	struct rdsu_ep *ep = make(a, 1);
	struct rdsu_sock *s = sock_at(ep, a, 0);
	struct iovec iov = { NULL, 0 };
	uint8_t buf[8];
	struct rdsu_rxinfo ri;

	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(rdsu_sock_submit(s, a, 0, &iov, 0, rdsu_clock()), 0);
		assert_int_equal(rdsu_io_wait(io, s, RDSU_POLLIN, rdsu_clock() + 5 * RDSU_SEC),
				 RDSU_POLLIN);
		iov = (struct iovec){ buf, sizeof(buf) };
		assert_int_equal(rdsu_sock_read(s, &iov, 1, 0, &ri, rdsu_clock()), 0);
		assert_false(ri.cong);
		assert_int_equal(ri.sport, 0);
		assert_int_equal(ri.len, 0);
		assert_int_equal(rdsu_addr_cmp(&ri.from, a), 0);
		iov = (struct iovec){ NULL, 0 };
	}
	assert_int_equal(stat_of(ep, RDSU_STAT_RECV_PING), 3);
	rdsu_sock_free(s, rdsu_clock());
}

static void test_lo_ping_v4(void **state)
{
	struct rdsu_addr a = addr("127.0.0.1");

	(void)state;
	ping(&a);
}

static void test_lo_ping_v6(void **state)
{
	struct rdsu_addr a = v6_one();

	(void)state;
	ping(&a);
}

/* SNDBUF is held from the submit until the loop hands the message over,
 * then given back at once (rds_send_drop_acked right after delivery),
 * whether or not the receiver has read it; nothing stays for resending. */
static void test_lo_sndbuf(void **state)
{
	struct rdsu_addr a = addr(LO_A);
	struct rdsu_ep *ep = make(&a, 1);
	struct rdsu_sock *s = sock_at(ep, &a, 4000), *r = sock_at(ep, &a, 5000);
	static uint8_t msg[40000];
	struct iovec iov = { msg, sizeof(msg) };
	struct rdsu_sock_info si;
	struct rdsu_conn_info ci;

	(void)state;
	assert_int_equal(rdsu_sock_set_sndbuf(s, 100000, rdsu_clock()), 0);
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(rdsu_sock_submit(s, &a, 5000, &iov, 1, rdsu_clock()),
				 (int)sizeof(msg));
	/* 120000 held, over the 100000 budget: the kernel's overshoot */
	assert_int_equal(rdsu_sock_submit(s, &a, 5000, &iov, 1, rdsu_clock()), -EAGAIN);
	info_of(ep, s, &si);
	assert_int_equal(si.snd_bytes, 3 * sizeof(msg));
	assert_int_equal(rdsu_io_flush(io), 0);
	info_of(ep, s, &si);
	assert_int_equal(si.snd_bytes, 0);
	assert_true(rdsu_sock_poll(s) & RDSU_POLLOUT);
	info_of(ep, r, &si);
	assert_int_equal(si.rx_msgs, 3);
	assert_int_equal(si.rcv_bytes, 3 * sizeof(msg));
	assert_int_equal(rdsu_ep_conn_get(ep, &a, &a, &ci), 0);
	assert_int_equal(ci.path[0].send_q_msgs + ci.path[0].retrans_q_msgs, 0);
	rdsu_sock_free(s, rdsu_clock());
	rdsu_sock_free(r, rdsu_clock());
}

/* A loopback socket never congests (rds_recv_rcvbuf_delta returns for
 * the loopback transport): far past its RCVBUF every send is taken. */
static void test_lo_rcvbuf_loopback_never_congests(void **state)
{
	struct rdsu_addr a = v6_one();
	struct rdsu_ep *ep = make(&a, 1);
	struct rdsu_sock *s = sock_at(ep, &a, 4000), *r = sock_at(ep, &a, 5000);
	static uint8_t msg[4096];
	struct iovec iov = { msg, sizeof(msg) };
	struct rdsu_sock_info si;

	(void)state;
	assert_int_equal(rdsu_sock_get_transport(r), RDSU_TRANS_LOOP);
	assert_int_equal(rdsu_sock_set_rcvbuf(r, 8192, rdsu_clock()), 0);
	for (unsigned i = 0; i < 32; i++) {
		assert_int_equal(rdsu_sock_submit(s, &a, 5000, &iov, 1, rdsu_clock()),
				 (int)sizeof(msg));
		assert_int_equal(rdsu_io_flush(io), 0);
	}
	info_of(ep, r, &si);
	assert_int_equal(si.rx_msgs, 32);
	assert_int_equal(stat_of(ep, RDSU_STAT_CONG_SEND_ERROR), 0);
	rdsu_sock_free(s, rdsu_clock());
	rdsu_sock_free(r, rdsu_clock());
}

/* A TCP socket on an own address does congest, and the map it marks is
 * the one a local sender reads (the kernel's one map per address): past
 * RCVBUF the sender gets -ENOBUFS; read below half and it may send again,
 * the change announced to a monitoring sender. */
static void test_lo_rcvbuf_own_congests(void **state)
{
	struct rdsu_addr a = addr(OWN_A);
	struct rdsu_ep *ep = make(&a, 1);
	struct rdsu_sock *s = sock_at(ep, &a, 4000), *r = sock_at(ep, &a, 5000);
	static uint8_t msg[4096];
	struct iovec iov = { msg, sizeof(msg) };
	struct rdsu_sock_info si;
	struct rdsu_rxinfo ri;
	unsigned sent = 0;
	int rc;

	(void)state;
	assert_int_equal(rdsu_sock_get_transport(r), RDSU_TRANS_TCP);
	assert_int_equal(rdsu_sock_set_rcvbuf(r, 8192, rdsu_clock()), 0);
	assert_int_equal(rdsu_sock_set_cong_monitor(s, true), 0);
	while ((rc = rdsu_sock_submit(s, &a, 5000, &iov, 1, rdsu_clock())) > 0) {
		sent++;
		assert_int_equal(rdsu_io_flush(io), 0);
		assert_true(sent < 100);
	}
	assert_int_equal(rc, -ENOBUFS);
	/* more than 8192 queued congests: the third message */
	assert_int_equal(sent, 3);
	info_of(ep, r, &si);
	assert_true(si.congested);
	/* reading to below half (4096) frees the port */
	for (unsigned i = 0; i < 3; i++) {
		struct iovec in = { msg, sizeof(msg) };

		assert_int_equal(rdsu_sock_read(r, &in, 1, 0, &ri, rdsu_clock()), (int)sizeof(msg));
	}
	info_of(ep, r, &si);
	assert_false(si.congested);
	assert_int_equal(rdsu_io_flush(io), 0);
	/* the monitor hears of the change: a notification for port group 5000 % 64 */
	assert_true(rdsu_sock_poll(s) & RDSU_POLLIN);
	{
		struct iovec in = { msg, sizeof(msg) };

		assert_int_equal(rdsu_sock_read(s, &in, 1, 0, &ri, rdsu_clock()), 0);
		assert_true(ri.cong);
		assert_int_equal(ri.cong_mask, 1ull << (5000 % 64));
	}
	assert_int_equal(rdsu_sock_submit(s, &a, 5000, &iov, 1, rdsu_clock()), (int)sizeof(msg));
	rdsu_sock_free(s, rdsu_clock());
	rdsu_sock_free(r, rdsu_clock());
}

/* No socket on the port: dropped and counted, as rds_recv_incoming. A
 * socket bound to a loopback address reads back RDSU_TRANS_LOOP, which
 * SO_RDS_TRANSPORT may not set. */
static void test_lo_no_sock_and_transport(void **state)
{
	struct rdsu_addr a = addr("127.0.0.1");
	struct rdsu_ep *ep = make(&a, 1);
	struct rdsu_sock *s = sock_at(ep, &a, 4000), *u;
	struct iovec iov = { "x", 1 };

	(void)state;
	assert_int_equal(rdsu_sock_submit(s, &a, 4001, &iov, 1, rdsu_clock()), 1);
	assert_int_equal(rdsu_io_run(io, 0), 0);
	assert_int_equal(stat_of(ep, RDSU_STAT_RECV_DROP_NO_SOCK), 1);
	assert_int_equal(rdsu_sock_get_transport(s), RDSU_TRANS_LOOP);
	assert_int_equal(rdsu_sock_new(ep, &u), 0);
	assert_int_equal(rdsu_sock_set_transport(u, RDSU_TRANS_LOOP), -EINVAL);
	/* forced to TCP before bind, a loopback address keeps TCP */
	assert_int_equal(rdsu_sock_set_transport(u, RDSU_TRANS_TCP), 0);
	assert_int_equal(rdsu_sock_bind(u, &a, 4002), 0);
	assert_int_equal(rdsu_sock_get_transport(u), RDSU_TRANS_TCP);
	rdsu_sock_free(s, rdsu_clock());
	rdsu_sock_free(u, rdsu_clock());
}

CMOCKA_MAIN(
	cmocka_unit_test_teardown(test_lo_deliver_v4, teardown),
	cmocka_unit_test_teardown(test_lo_deliver_v6, teardown),
	cmocka_unit_test_teardown(test_lo_deliver_two_addrs, teardown),
	cmocka_unit_test_teardown(test_lo_deliver_own, teardown),
	cmocka_unit_test_teardown(test_lo_ping_v4, teardown),
	cmocka_unit_test_teardown(test_lo_ping_v6, teardown),
	cmocka_unit_test_teardown(test_lo_sndbuf, teardown),
	cmocka_unit_test_teardown(test_lo_rcvbuf_loopback_never_congests, teardown),
	cmocka_unit_test_teardown(test_lo_rcvbuf_own_congests, teardown),
	cmocka_unit_test_teardown(test_lo_no_sock_and_transport, teardown))
