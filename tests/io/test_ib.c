// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * test_ib.c - the IB transport's configuration as the loop takes it
 * (rdsu_ib.h, rdsu_io.h): defaults, ring bounds, RDSU_IO_IB without a
 * configuration, and a host without an RDMA device (this one: IB runs in
 * the lab's guests, tests/lab/ib_kernel.py) failing rdsu_io_new with an
 * errno instead of a silent TCP-only endpoint.
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
#include <sys/socket.h>
#include <unistd.h>

#include <rds/rdsu_ib.h>
#include <rds/rdsu_io.h>
#include <rds/rdsu_tcp.h>

#include "iotest.h"

#define EP_ADDR "127.0.9.1"

static void test_ib_cfg_default(void **state)
{
	struct rdsu_ib_cfg c;

	(void)state;
	rdsu_ib_cfg_default(&c);
	assert_int_equal(c.size, sizeof(c));
	assert_int_equal(c.send_ring, 256);
	assert_int_equal(c.recv_ring, 1024);
	assert_int_equal(c.port_v4, 0);
	assert_int_equal(c.port_v6, 0);
	assert_false(c.no_listen);
	assert_non_null(c.make);
	/* as the kernel: no credits offered; finite RC retries */
	assert_false(c.offer_credits);
	assert_int_equal(c.retry_count, RDSU_IB_RETRY_DEFAULT);
	assert_true(c.retry_count < 7);
}

/* What each test configures: the loop's configurations on EP_ADDR, IB's
 * at its defaults, and the loop it may make. */
struct rig {
	struct io_cfgs c;
	struct rdsu_ib_cfg bc;
	struct rdsu_io *io;
};

static void rig_init(struct rig *r)
{
	io_cfgs_at(&r->c, EP_ADDR);
	rdsu_ib_cfg_default(&r->bc);
	r->io = NULL;
}

static void test_ib_cfg_refused(void **state)
{
	struct rig r;

	(void)state;
	rig_init(&r);
	/* IB needs the configuration that carries its constructor. */
	r.c.io.transports = RDSU_IO_IB;
	assert_int_equal(rdsu_io_new(&r.io, &r.c.ep, &r.c.io), RDSU_ERR_INVAL);
	r.bc.make = NULL;
	r.c.io.ib = &r.bc;
	assert_int_equal(rdsu_io_new(&r.io, &r.c.ep, &r.c.io), RDSU_ERR_INVAL);
	rdsu_ib_cfg_default(&r.bc);
	/* Rings outside their bounds. */
	unsigned bad[] = { 0, RDSU_IB_RING_MIN - 1, RDSU_IB_RING_MAX + 1 };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		r.bc.send_ring = bad[i];
		assert_int_equal(rdsu_io_new(&r.io, &r.c.ep, &r.c.io), RDSU_ERR_INVAL);
		r.bc.send_ring = RDSU_IB_SEND_RING_DEFAULT;
		r.bc.recv_ring = bad[i];
		assert_int_equal(rdsu_io_new(&r.io, &r.c.ep, &r.c.io), RDSU_ERR_INVAL);
		r.bc.recv_ring = RDSU_IB_RECV_RING_DEFAULT;
	}
	/* 7 is "retry for ever" to rdma_rxe: a cut link would never end
	 * the QP. */
	r.bc.retry_count = 7;
	assert_int_equal(rdsu_io_new(&r.io, &r.c.ep, &r.c.io), RDSU_ERR_INVAL);
	r.bc.retry_count = RDSU_IB_RETRY_DEFAULT;
	r.bc.size = sizeof(r.bc) - 1;
	assert_int_equal(rdsu_io_new(&r.io, &r.c.ep, &r.c.io), RDSU_ERR_INVAL);
	assert_null(r.io);
}

/* No RDMA device here: no rdma_cm, or no device with the address. */
static void test_ib_no_device(void **state)
{
	struct rig r;
	int e;

	(void)state;
	if (access("/dev/infiniband/rdma_cm", F_OK) == 0)
		skip();
	rig_init(&r);
	r.c.io.transports = RDSU_IO_IB;
	r.c.io.ib = &r.bc;
	e = rdsu_io_new(&r.io, &r.c.ep, &r.c.io);
	assert_true(e == -ENODEV || e == -EADDRNOTAVAIL);
	assert_null(r.io);
}

/* An endpoint without IB has no IB counters. */
static void test_ib_stats_without_ib(void **state)
{
	struct rig r;
	struct rdsu_ib_stats st;

	(void)state;
	rig_init(&r);
	r.c.io.tcp = &r.c.tcp;
	assert_int_equal(rdsu_io_new(&r.io, &r.c.ep, &r.c.io), 0);
	assert_int_equal(rdsu_ib_get_stats(r.io, &st), RDSU_ERR_NOTFOUND);
	assert_int_equal(rdsu_ib_get_stats(NULL, &st), RDSU_ERR_INVAL);
	assert_int_equal(rdsu_ib_get_stats(r.io, NULL), RDSU_ERR_INVAL);
	assert_int_equal(rdsu_ib_fault_qp(r.io), RDSU_ERR_NOTFOUND);
	assert_int_equal(rdsu_ib_fault_qp(NULL), RDSU_ERR_INVAL);
	rdsu_io_free(r.io);
}

/* The address of a sockaddr without its port, as the IB transport asks
 * for a listener's and a request's (ib_cm.c). */
static void test_sockaddr_get_no_port(void **state)
{
	struct sockaddr_storage ss;
	struct rdsu_addr a = rdsu_addr_v4(0x0ac70002), b;
	uint16_t port = 0;

	(void)state;
	assert_true(rdsu_sockaddr(&a, 18634, &ss) > 0);
	memset(&b, 0, sizeof(b));
	assert_int_equal(rdsu_sockaddr_get(&ss, &b, NULL), 0);
	assert_int_equal(rdsu_addr_cmp(&a, &b), 0);
	assert_int_equal(rdsu_sockaddr_get(&ss, &b, &port), 0);
	assert_int_equal(port, 18634);
	memset(&a, 0, sizeof(a));
	a.a[15] = 1;  /* ::1 */
	assert_true(rdsu_sockaddr(&a, 16385, &ss) > 0);
	assert_int_equal(rdsu_sockaddr_get(&ss, &b, NULL), 0);
	assert_int_equal(rdsu_addr_cmp(&a, &b), 0);
	ss.ss_family = AF_UNIX;
	assert_int_equal(rdsu_sockaddr_get(&ss, &b, NULL), -EAFNOSUPPORT);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_ib_cfg_default),
	cmocka_unit_test(test_ib_cfg_refused),
	cmocka_unit_test(test_ib_no_device),
	cmocka_unit_test(test_ib_stats_without_ib),
	cmocka_unit_test(test_sockaddr_get_no_port))
