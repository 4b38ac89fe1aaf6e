// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * test_io.c - the loop object (librds/io/loop.c, rdsu_io.h): its
 * configuration, the rdsu_tcp names as views of one rdsu_io, and a
 * message between an endpoint made with rdsu_io_new and one made with
 * rdsu_tcp_new on loopback. Addresses 127.0.7.1 and 127.0.7.2, apart from
 * the TCP suite's, so the two can run side by side.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "cmain.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>

#include <rds/rdsu_io.h>
#include <rds/rdsu_tcp.h>

#include "iotest.h"

#define A_ADDR "127.0.7.1"
#define B_ADDR "127.0.7.2"

static struct rdsu_io *live_io;
static struct rdsu_tcp *live_tcp;

static int teardown(void **state)
{
	(void)state;
	rdsu_io_free(live_io);
	rdsu_tcp_free(live_tcp);
	live_io = NULL;
	live_tcp = NULL;
	return 0;
}

static void test_io_cfg(void **state)
{
	struct io_cfgs c;
	struct rdsu_io *io = NULL;

	(void)state;
	io_cfgs_at(&c, A_ADDR);
	assert_int_equal(c.io.transports, RDSU_IO_TCP);
	assert_int_equal(rdsu_io_new(NULL, &c.ep, &c.io), RDSU_ERR_INVAL);
	assert_int_equal(rdsu_io_new(&io, NULL, &c.io), RDSU_ERR_INVAL);
	/* IB is not built: asking for it is a configuration error, not a
	 * silent TCP-only endpoint. */
	c.io.transports = RDSU_IO_TCP | 1u << RDSU_TRANS_IB;
	assert_int_equal(rdsu_io_new(&io, &c.ep, &c.io), RDSU_ERR_INVAL);
	c.io.transports = RDSU_IO_TCP;
	c.io.size = sizeof(c.io) - 1;
	assert_int_equal(rdsu_io_new(&io, &c.ep, &c.io), RDSU_ERR_INVAL);
	c.io.size = sizeof(c.io);
	c.tcp.size = sizeof(c.tcp) - 1;
	c.io.tcp = &c.tcp;
	assert_int_equal(rdsu_io_new(&io, &c.ep, &c.io), RDSU_ERR_INVAL);
	c.tcp.size = sizeof(c.tcp);
	/* 0 transports means TCP. */
	c.io.transports = 0;
	assert_int_equal(rdsu_io_new(&io, &c.ep, &c.io), 0);
	live_io = io;
	struct rdsu_tcp *t = rdsu_io_tcp(io);

	assert_non_null(t);
	assert_ptr_equal(rdsu_tcp_io(t), io);
	assert_ptr_equal(rdsu_tcp_ep(t), rdsu_io_ep(io));
	assert_true(rdsu_io_fd(io) >= 0);
	assert_int_equal(rdsu_tcp_fd(t), rdsu_io_fd(io));
	assert_int_equal(rdsu_io_run(io, 0), 0);
	assert_int_equal(rdsu_io_flush(io), 0);

	struct rdsu_tcp_stats st;

	rdsu_tcp_get_stats(t, &st);
	assert_int_equal(st.runs, 1);
	assert_int_equal(rdsu_tcp_run(t, 0), 0);
	rdsu_tcp_get_stats(t, &st);
	assert_int_equal(st.runs, 2);
	assert_int_equal(st.sleeps, 0);

	assert_int_equal(rdsu_io_run(NULL, 0), RDSU_ERR_INVAL);
	assert_int_equal(rdsu_io_flush(NULL), RDSU_ERR_INVAL);
	assert_int_equal(rdsu_io_fd(NULL), -1);
	assert_null(rdsu_io_ep(NULL));
	assert_null(rdsu_io_tcp(NULL));
	rdsu_io_free(NULL);
}

/* A wait with nothing to wait for ends at its deadline, woken by the
 * loop's timerfd or the wait's own timeout, not by a transport. */
static void test_io_wait_deadline(void **state)
{
	struct rdsu_ep_cfg ec;
	struct rdsu_sock *s;
	struct rdsu_addr a = addr(A_ADDR);

	(void)state;
	ep_cfg_at(&ec, A_ADDR);
	assert_int_equal(rdsu_io_new(&live_io, &ec, NULL), 0);
	assert_int_equal(rdsu_sock_new(rdsu_io_ep(live_io), &s), 0);
	assert_int_equal(rdsu_sock_bind(s, &a, 4000), 0);
	assert_int_equal(rdsu_io_wait(live_io, s, RDSU_POLLIN, rdsu_clock() + 20 * RDSU_MSEC), 0);
	assert_int_equal(rdsu_io_wait(live_io, s, RDSU_POLLOUT, RDSU_NS_NEVER), RDSU_POLLOUT);
	rdsu_sock_free(s, rdsu_clock());
}

/* RDSU_LREQ_CONNECT goes to the transport it names; one this loop does
 * not run fails at once, so the core backs off, and TCP never sees it. */
static void test_io_connect_routing(void **state)
{
	struct rdsu_ep_cfg ec;
	struct rdsu_sock *s;
	struct rdsu_addr a = addr(A_ADDR), b = addr(B_ADDR);
	struct rdsu_conn_info ci;
	struct rdsu_tcp_stats st;
	struct iovec iov = { "x", 1 };

	(void)state;
	ep_cfg_at(&ec, A_ADDR);
	ec.rdma_laddrs = 1;
	assert_int_equal(rdsu_io_new(&live_io, &ec, NULL), 0);
	assert_int_equal(rdsu_sock_new(rdsu_io_ep(live_io), &s), 0);
	assert_int_equal(rdsu_sock_bind(s, &a, 4000), 0);
	assert_int_equal(rdsu_sock_get_transport(s), RDSU_TRANS_IB);
	assert_int_equal(rdsu_sock_submit(s, &b, 5000, &iov, 1, rdsu_clock()), 1);
	assert_int_equal(rdsu_io_run(live_io, 0), 0);
	assert_int_equal(rdsu_ep_conn_get(rdsu_io_ep(live_io), &a, &b, &ci), 0);
	assert_int_equal(ci.transport, RDSU_TRANS_IB);
	assert_int_equal(ci.path[0].state, RDSU_PATH_DOWN);
	assert_true(ci.path[0].backoff > 0);
	rdsu_tcp_get_stats(rdsu_io_tcp(live_io), &st);
	assert_int_equal(st.connects, 0);
	rdsu_sock_free(s, rdsu_clock());
}

/* rdsu_io_new's endpoint and rdsu_tcp_new's talk: one loop each, driven
 * by their two descriptors from one poll. */
static void test_io_message(void **state)
{
	struct rdsu_ep_cfg ea, eb;
	struct rdsu_io_cfg ic;
	struct rdsu_tcp_cfg tc;
	struct rdsu_sock *sa, *sb;
	struct rdsu_addr a = addr(A_ADDR), b = addr(B_ADDR);
	char msg[] = "over the seam", buf[64];
	struct iovec iov = { .iov_base = msg, .iov_len = sizeof(msg) };
	struct iovec riov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct rdsu_rxinfo info;
	ssize_t n = -1;

	(void)state;
	ep_cfg_at(&ea, A_ADDR);
	ep_cfg_at(&eb, B_ADDR);
	rdsu_tcp_cfg_default(&tc);
	rdsu_io_cfg_default(&ic);
	ic.tcp = &tc;
	assert_int_equal(rdsu_io_new(&live_io, &ea, &ic), 0);
	assert_int_equal(rdsu_tcp_new(&live_tcp, &eb, NULL), 0);
	assert_int_equal(rdsu_sock_new(rdsu_io_ep(live_io), &sa), 0);
	assert_int_equal(rdsu_sock_bind(sa, &a, 4000), 0);
	assert_int_equal(rdsu_sock_new(rdsu_tcp_ep(live_tcp), &sb), 0);
	assert_int_equal(rdsu_sock_bind(sb, &b, 5000), 0);
	assert_int_equal(rdsu_sock_submit(sa, &b, 5000, &iov, 1, rdsu_clock()), (int)sizeof(msg));
	assert_int_equal(rdsu_io_flush(live_io), 0);
	for (rdsu_ns end = rdsu_clock() + 5 * RDSU_SEC; rdsu_clock() < end;) {
		struct pollfd pf[2] = {
			{ .fd = rdsu_io_fd(live_io), .events = POLLIN },
			{ .fd = rdsu_tcp_fd(live_tcp), .events = POLLIN },
		};

		(void)poll(pf, 2, 10);
		assert_true(rdsu_io_run(live_io, 0) >= 0);
		assert_true(rdsu_tcp_run(live_tcp, 0) >= 0);
		n = rdsu_sock_read(sb, &riov, 1, 0, &info, rdsu_clock());
		if (n >= 0 && !info.cong)
			break;
	}
	assert_int_equal(n, (ssize_t)sizeof(msg));
	assert_memory_equal(buf, msg, sizeof(msg));
	assert_int_equal(info.sport, 4000);

	struct rdsu_tcp_stats st;

	rdsu_tcp_get_stats(rdsu_io_tcp(live_io), &st);
	assert_true(st.connects >= 1);
	assert_true(st.bytes_out >= sizeof(msg));
	rdsu_sock_free(sa, rdsu_clock());
	rdsu_sock_free(sb, rdsu_clock());
}

CMOCKA_MAIN(
	cmocka_unit_test_teardown(test_io_cfg, teardown),
	cmocka_unit_test_teardown(test_io_wait_deadline, teardown),
	cmocka_unit_test_teardown(test_io_connect_routing, teardown),
	cmocka_unit_test_teardown(test_io_message, teardown))
