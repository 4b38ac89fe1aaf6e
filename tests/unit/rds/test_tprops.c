// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_tprops.c - the transport a socket and a connection use, and the
 * rules the core takes from the transport's properties: both IB ends
 * connect, one path, no probes, the passive side settling connect races
 * (rds_ib_cm_handle_connect), the connect request naming the transport. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "cmain.h"

#include "utest.h"

static struct rdsu_sock *sock_tr(struct rdsu_ep *ep, uint32_t addr, uint16_t port,
				 unsigned trans)
{
	struct rdsu_sock *s;
	struct rdsu_addr a = rdsu_addr_v4(addr);

	assert_int_equal(rdsu_sock_new(ep, &s), 0);
	assert_int_equal(rdsu_sock_set_transport(s, trans), 0);
	assert_int_equal(rdsu_sock_bind(s, &a, port), 0);
	return s;
}

static void send1(struct rdsu_sock *s, uint32_t to, uint16_t dport, rdsu_ns now)
{
	struct rdsu_addr dst = rdsu_addr_v4(to);
	struct iovec iov = { "m", 1 };

	assert_int_equal(rdsu_sock_submit(s, &dst, dport, &iov, 1, now), 1);
}

/* SO_RDS_TRANSPORT: once, before bind; 1 is the kernel's gap. */
static void test_tprops_sockopt(void **state)
{
	struct rdsu_ep *ep = ep_make(SMALL, WIRE_KVER_7, 9);
	struct rdsu_addr a = rdsu_addr_v4(SMALL);
	struct rdsu_sock *s;

	(void)state;
	assert_int_equal(rdsu_sock_new(ep, &s), 0);
	assert_true(rdsu_sock_get_transport(s) == RDSU_TRANS_NONE);
	assert_int_equal(rdsu_sock_set_transport(s, 1), -ENOPROTOOPT);
	assert_int_equal(rdsu_sock_set_transport(s, 3), -EINVAL);
	assert_int_equal(rdsu_sock_set_transport(s, RDSU_TRANS_IB), 0);
	assert_int_equal(rdsu_sock_set_transport(s, RDSU_TRANS_TCP), -EOPNOTSUPP);
	assert_int_equal(rdsu_sock_bind(s, &a, 4000), 0);
	assert_true(rdsu_sock_get_transport(s) == RDSU_TRANS_IB);
	rdsu_sock_free(s, T0);
	/* not forced: the address's, TCP here */
	assert_int_equal(rdsu_sock_new(ep, &s), 0);
	assert_int_equal(rdsu_sock_bind(s, &a, 4001), 0);
	assert_true(rdsu_sock_get_transport(s) == RDSU_TRANS_TCP);
	assert_int_equal(rdsu_sock_set_transport(s, RDSU_TRANS_IB), -EOPNOTSUPP);
	rdsu_sock_free(s, T0);
	rdsu_ep_free(ep);
}

/* An address on an RDMA device takes IB at bind. */
static void test_tprops_rdma_laddr(void **state)
{
	struct rdsu_ep_cfg c;
	struct rdsu_ep *ep;
	struct rdsu_sock *s;

	(void)state;
	ep_cfg_on(&c, SMALL, 9);
	c.laddrs[1] = rdsu_addr_v4(0x0a000003u);
	c.n_laddrs = 2;
	c.rdma_laddrs = 1u << 1;
	ep = ep_new_ok(&c);
	s = sock_at(ep, 0x0a000003u, 4000);
	assert_true(rdsu_sock_get_transport(s) == RDSU_TRANS_IB);
	s = sock_at(ep, SMALL, 4000);
	assert_true(rdsu_sock_get_transport(s) == RDSU_TRANS_TCP);
	rdsu_ep_free(ep);
	/* a bit beyond the address set */
	c.rdma_laddrs = 1u << 2;
	assert_int_equal(rdsu_ep_new(&ep, &c), RDSU_ERR_INVAL);
}

/* IB from the larger address: it connects itself (no kick), to the rdma_cm
 * port, one path, no probe ping; a TCP socket to the same peer has a
 * connection of its own. */
static void test_tprops_ib_connects_both(void **state)
{
	struct rdsu_ep *ep = ep_make(LARGE, WIRE_KVER_7, 9);
	struct rdsu_sock *ib = sock_tr(ep, LARGE, 5000, RDSU_TRANS_IB);
	struct rdsu_sock *tcp = sock_tr(ep, LARGE, 5001, RDSU_TRANS_TCP);
	struct rdsu_lreq r;
	struct rdsu_conn_info ci;
	size_t pos = 0;
	unsigned n = 0, seen = 0;

	(void)state;
	send1(ib, SMALL, 4000, T0);
	assert_int_equal(next_req(ep, RDSU_LREQ_CONNECT, &r), 1);
	assert_int_equal(r.trans, RDSU_TRANS_IB);
	assert_int_equal(r.dport, WIRE_IB_PORT_V4);
	assert_int_equal(r.sport_mod, 0);
	assert_int_equal(r.path, 0);
	assert_int_equal(rdsu_link_established(ep, r.link, 0, T0), 0);
	ci = conn_of(ep, LARGE, SMALL);
	assert_int_equal(ci.transport, RDSU_TRANS_IB);
	assert_true(ci.we_connect);
	assert_int_equal(ci.npaths, 1);
	assert_false(ci.probe_pending);
	assert_int_equal(stat(ep, RDSU_STAT_PROBE_SENT), 0);
	/* the stream calls are not for a frame link */
	assert_int_equal(rdsu_link_input(ep, r.link, (const uint8_t *)"x", 1, T0), RDSU_ERR_INVAL);
	/* TCP from the larger address is a kick, on its own connection */
	send1(tcp, SMALL, 4000, T0);
	assert_int_equal(next_req(ep, RDSU_LREQ_CONNECT, &r), 1);
	assert_int_equal(r.trans, RDSU_TRANS_TCP);
	assert_int_equal(r.dport, RDSU_TCP_PORT);
	assert_int_equal(rdsu_link_established(ep, r.link, 40000, T0), RDSU_ERR_CLOSED);
	while (rdsu_ep_conn_next(ep, &pos, &ci) == 1) {
		n++;
		seen |= 1u << ci.transport;
	}
	assert_int_equal(n, 2);
	assert_int_equal(seen, (1u << RDSU_TRANS_IB) | (1u << RDSU_TRANS_TCP));
	rdsu_ep_free(ep);
}

/* Both ends reconnect over IB with the backoff: the larger one too. */
static void test_tprops_ib_larger_reconnects(void **state)
{
	struct rdsu_ep *ep = ep_make(LARGE, WIRE_KVER_7, 9);
	struct rdsu_sock *s = sock_tr(ep, LARGE, 5000, RDSU_TRANS_IB);
	struct rdsu_lreq r;

	(void)state;
	send1(s, SMALL, 4000, T0);
	assert_int_equal(next_req(ep, RDSU_LREQ_CONNECT, &r), 1);
	assert_int_equal(rdsu_link_established(ep, r.link, 0, T0), 0);
	assert_int_equal(rdsu_link_down(ep, r.link, T0), 0);
	assert_int_equal(next_req(ep, RDSU_LREQ_CONNECT, &r), 1);
	assert_int_equal(rdsu_link_down(ep, r.link, T0), 0);
	assert_int_equal(next_req(ep, RDSU_LREQ_CONNECT, &r), 0);
	assert_true(rdsu_ep_deadline(ep) < T0 + RDSU_MSEC);
	assert_int_equal(rdsu_ep_expire(ep, T0 + RDSU_MSEC), 1);
	assert_int_equal(next_req(ep, RDSU_LREQ_CONNECT, &r), 1);
	assert_int_equal(r.trans, RDSU_TRANS_IB);
	rdsu_ep_free(ep);
}

/* rds_ib_cm_handle_connect: a request while the path connects is refused
 * (the race), one while it is up drops the up link as stale and is
 * refused, one while it is down takes it; a smaller address is no reason
 * to refuse. */
static void test_tprops_ib_accept_race(void **state)
{
	struct rdsu_ep *ep = ep_make(SMALL, WIRE_KVER_7, 9);
	struct rdsu_sock *s = sock_tr(ep, SMALL, 4000, RDSU_TRANS_IB);
	struct rdsu_addr la = rdsu_addr_v4(SMALL), fa = rdsu_addr_v4(LARGE);
	struct rdsu_lreq r;
	uint64_t ours, link;

	(void)state;
	send1(s, LARGE, 5000, T0);
	assert_int_equal(next_req(ep, RDSU_LREQ_CONNECT, &r), 1);
	ours = r.link;
	assert_int_equal(rdsu_link_accept_on(ep, RDSU_TRANS_IB, &la, &fa, 0, T0, &link),
			 RDSU_ERR_REFUSED);
	assert_int_equal(stat(ep, RDSU_STAT_ACCEPT_RACED), 1);
	assert_int_equal(rdsu_link_established(ep, ours, 0, T0), 0);
	assert_int_equal(rdsu_link_accept_on(ep, RDSU_TRANS_IB, &la, &fa, 0, T0, &link),
			 RDSU_ERR_REFUSED);
	assert_int_equal(stat(ep, RDSU_STAT_ACCEPT_STALE), 1);
	assert_int_equal(next_req(ep, RDSU_LREQ_CLOSE, &r), 1);
	assert_true(r.link == ours && r.reset);
	/* the drop reconnected at once; that attempt fails, and a request
	 * during the backoff finds the path down and takes it */
	assert_int_equal(next_req(ep, RDSU_LREQ_CONNECT, &r), 1);
	assert_int_equal(rdsu_link_down(ep, r.link, T0), 0);
	assert_int_equal(rdsu_link_accept_on(ep, RDSU_TRANS_IB, &la, &fa, 0, T0, &link),
			 RDSU_ACCEPT_UP);
	assert_int_equal(conn_of(ep, SMALL, LARGE).path[0].state, RDSU_PATH_UP);
	assert_int_equal(rdsu_link_accept_on(ep, 1, &la, &fa, 0, T0, &link), RDSU_ERR_INVAL);
	rdsu_ep_free(ep);
}

/*
 * The loopback transport (rds_trans_get_preferred, __rds_conn_create): a
 * socket on 127.0.0.1 has it; a message to any of our own addresses takes
 * it whatever the socket's transport, IB included; a loopback socket
 * sending to a 127 address not ours reaches another endpoint over TCP.
 * Its connect names it (no port), it has one path and no probe, and no
 * transport may accept a connection of it.
 */
#define LO1 0x7f000001u  /* 127.0.0.1 */
#define LO9 0x7f000009u  /* 127.0.0.9, not ours */

static void test_tprops_loopback(void **state)
{
	struct rdsu_ep_cfg c;
	struct rdsu_ep *ep;
	struct rdsu_sock *lo, *ib, *tcp;
	struct rdsu_addr l1 = rdsu_addr_v4(LO1), l9 = rdsu_addr_v4(LO9), sm = rdsu_addr_v4(SMALL);
	struct rdsu_lreq r;
	uint64_t link;

	(void)state;
	ep_cfg_on(&c, LO1, 9);
	c.laddrs[1] = rdsu_addr_v4(SMALL);
	c.laddrs[2] = rdsu_addr_v4(0x0a000003u);
	c.n_laddrs = 3;
	c.rdma_laddrs = 1u << 2;
	ep = ep_new_ok(&c);
	lo = sock_at(ep, LO1, 4000);
	tcp = sock_at(ep, SMALL, 4000);
	ib = sock_at(ep, 0x0a000003u, 4000);
	assert_true(rdsu_sock_get_transport(lo) == RDSU_TRANS_LOOP);
	assert_true(rdsu_sock_get_transport(tcp) == RDSU_TRANS_TCP);
	assert_true(rdsu_sock_get_transport(ib) == RDSU_TRANS_IB);

	send1(lo, LO1, 5000, T0);
	assert_int_equal(next_req(ep, RDSU_LREQ_CONNECT, &r), 1);
	assert_int_equal(r.trans, RDSU_TRANS_LOOP);
	assert_int_equal(r.dport, 0);
	assert_int_equal(conn_of(ep, LO1, LO1).transport, RDSU_TRANS_LOOP);
	assert_int_equal(conn_of(ep, LO1, LO1).npaths, 1);
	/* up at once: no probe ping, no map, just the message */
	assert_int_equal(rdsu_link_established(ep, r.link, 0, T0), 0);
	assert_int_equal(conn_of(ep, LO1, LO1).path[0].send_q_msgs, 1);
	assert_false(conn_of(ep, LO1, LO1).probe_pending);

	send1(tcp, SMALL, 5000, T0);
	assert_int_equal(next_req(ep, RDSU_LREQ_CONNECT, &r), 1);
	assert_int_equal(r.trans, RDSU_TRANS_LOOP);
	send1(ib, SMALL, 5000, T0);
	assert_int_equal(next_req(ep, RDSU_LREQ_CONNECT, &r), 1);
	assert_int_equal(r.trans, RDSU_TRANS_LOOP);
	assert_int_equal(conn_of(ep, 0x0a000003u, SMALL).transport, RDSU_TRANS_LOOP);

	send1(lo, LO9, 5000, T0);
	assert_int_equal(next_req(ep, RDSU_LREQ_CONNECT, &r), 1);
	assert_int_equal(r.trans, RDSU_TRANS_TCP);
	assert_int_equal(conn_of(ep, LO1, LO9).transport, RDSU_TRANS_TCP);

	assert_int_equal(rdsu_link_accept_on(ep, RDSU_TRANS_LOOP, &l1, &l9, 0, T0, &link),
			 RDSU_ERR_INVAL);
	assert_int_equal(rdsu_link_accept_on(ep, RDSU_TRANS_LOOP, &sm, &l1, 0, T0, &link),
			 RDSU_ERR_INVAL);
	rdsu_ep_free(ep);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_tprops_sockopt),
	cmocka_unit_test(test_tprops_rdma_laddr),
	cmocka_unit_test(test_tprops_ib_connects_both),
	cmocka_unit_test(test_tprops_ib_larger_reconnects),
	cmocka_unit_test(test_tprops_ib_accept_race),
	cmocka_unit_test(test_tprops_loopback))
