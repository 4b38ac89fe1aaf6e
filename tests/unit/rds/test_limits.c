// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * test_limits.c - the endpoint's limits against hostile peers (issue 21,
 * docs/security.md), on a virtual clock: peers nobody sends to are given
 * up, connects in flight are capped, links are capped in all and per
 * peer, and a connection that never speaks RDS (or stalls inside a
 * message) is reset without costing the peer's own connection anything.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "cmain.h"

#include "utest.h"

#define PEER(i) (LARGE + 0x100u + (uint32_t)(i)) /* larger than SMALL */

static struct rdsu_ep *ep_limits(uint32_t addr, void (*tune)(struct rdsu_ep_cfg *))
{
	struct rdsu_ep_cfg c;

	ep_cfg_on(&c, addr, 9);
	c.seed = 99;
	if (tune)
		tune(&c);
	return ep_new_ok(&c);
}

static size_t n_conns(const struct rdsu_ep *ep)
{
	struct rdsu_conn_info ci;
	size_t pos = 0, n = 0;

	while (rdsu_ep_conn_next(ep, &pos, &ci))
		n++;
	return n;
}

/* A kick from |from| (larger): refused, and answered by a connect. */
static void kick(struct rdsu_ep *ep, uint32_t from, rdsu_ns now)
{
	struct rdsu_addr l = rdsu_addr_v4(SMALL), f = rdsu_addr_v4(from);
	uint64_t link;

	assert_int_equal(rdsu_link_accept(ep, &l, &f, 40000, now, &link), RDSU_ERR_REFUSED);
}

/* Fail every connect asked for at |now|. Return: how many. */
static unsigned fail_connects(struct rdsu_ep *ep, rdsu_ns now)
{
	struct rdsu_lreq r;
	uint64_t links[256];
	unsigned n = 0;

	while (rdsu_ep_next_link_req(ep, &r) == 1)
		if (r.type == RDSU_LREQ_CONNECT) {
			assert_true(n < 256);
			links[n++] = r.link;
		}
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(rdsu_link_down(ep, links[i], now), 0);
	return n;
}

/* Run the clock from |now| to |until|, failing every connect. Return:
 * connects asked for. */
static unsigned run_failing(struct rdsu_ep *ep, rdsu_ns now, rdsu_ns until)
{
	unsigned n = 0, k;

	for (;;) {
		rdsu_ns d;

		/* a failure may ask again at once (the first retry) */
		while ((k = fail_connects(ep, now)) > 0)
			n += k;
		d = rdsu_ep_deadline(ep);
		if (d > until)
			return n;
		if (d > now)
			now = d;
		(void)rdsu_ep_expire(ep, now);
	}
}

/*
 * A kick from an address nobody listens on: reconnects back off as the
 * kernel's do (1 ms doubling to 1 s), and after give_up (60 s) without a
 * path up and with nothing to send the peer is forgotten and its memory
 * freed. The kernel retries for ever (rds_queue_reconnect): 1,000 such
 * addresses meant 1,900 failing connects a second for the process's life.
 */
static void test_give_up_kicked_peer(void **state)
{
	struct rdsu_ep *ep = ep_limits(SMALL, NULL);
	unsigned n;

	(void)state;
	kick(ep, LARGE, T0);
	assert_int_equal(n_conns(ep), 1);
	n = run_failing(ep, T0, T0 + 59 * RDSU_SEC);
	/* ~10 doublings, then one every 0.5 s on average */
	assert_true(n > 20 && n < 200);
	assert_int_equal(n_conns(ep), 1);
	n += run_failing(ep, T0 + 59 * RDSU_SEC, T0 + 3600 * RDSU_SEC);
	assert_true(n < 200);
	assert_int_equal(n_conns(ep), 0);
	assert_int_equal(stat(ep, RDSU_STAT_CONN_GIVEN_UP), 1);
	assert_true(rdsu_ep_deadline(ep) == RDSU_NS_NEVER);
	/* a new kick starts afresh */
	kick(ep, LARGE, T0 + 3600 * RDSU_SEC);
	assert_int_equal(n_conns(ep), 1);
	rdsu_ep_free(ep);
}

/* Data of ours for the peer keeps it, as the kernel keeps every peer. */
static void test_no_give_up_with_data(void **state)
{
	struct rdsu_ep *ep = ep_limits(SMALL, NULL);
	struct rdsu_sock *s = sock_at(ep, SMALL, 4000);
	struct rdsu_addr to = rdsu_addr_v4(LARGE);
	struct iovec iov = { (void *)"data", 4 };

	(void)state;
	assert_int_equal(rdsu_sock_submit(s, &to, 5000, &iov, 1, T0), 4);
	(void)run_failing(ep, T0, T0 + 600 * RDSU_SEC);
	assert_int_equal(n_conns(ep), 1);
	assert_int_equal(stat(ep, RDSU_STAT_CONN_GIVEN_UP), 0);
	/* cancelled: nothing to send any more, so it goes */
	rdsu_sock_free(s, T0 + 600 * RDSU_SEC);
	(void)run_failing(ep, T0 + 600 * RDSU_SEC, T0 + 700 * RDSU_SEC);
	assert_int_equal(n_conns(ep), 0);
	rdsu_ep_free(ep);
}

static void tune_connecting(struct rdsu_ep_cfg *c)
{
	c->max_connecting = 4;
}

/* Kicks from ten addresses: four connects in flight at most; the rest
 * wait on their timers and go as the first ones end. */
static void test_max_connecting(void **state)
{
	struct rdsu_ep *ep = ep_limits(SMALL, tune_connecting);
	struct rdsu_lreq r;
	uint64_t links[10];
	unsigned n = 0;
	rdsu_ns now = T0;

	(void)state;
	for (unsigned i = 0; i < 10; i++)
		kick(ep, PEER(i), now);
	while (rdsu_ep_next_link_req(ep, &r) == 1)
		if (r.type == RDSU_LREQ_CONNECT)
			links[n++] = r.link;
	assert_int_equal(n, 4);
	assert_int_equal(stat(ep, RDSU_STAT_CONNECT_DEFERRED), 6);
	assert_int_equal(stat(ep, RDSU_STAT_CONNECTING_PEAK), 4);
	/* none of the others before one ends */
	now += RDSU_SEC + RDSU_MSEC;
	(void)rdsu_ep_expire(ep, now);
	assert_int_equal(next_req(ep, RDSU_LREQ_CONNECT, &r), 0);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(rdsu_link_established(ep, links[i], 33000, now), 0);
	(void)rdsu_ep_expire(ep, now + 2 * RDSU_SEC);
	n = 0;
	while (rdsu_ep_next_link_req(ep, &r) == 1)
		n += r.type == RDSU_LREQ_CONNECT;
	assert_int_equal(n, 4);
	assert_int_equal(stat(ep, RDSU_STAT_CONNECTING_PEAK), 4);
	rdsu_ep_free(ep);
}

static void tune_links(struct rdsu_ep_cfg *c)
{
	c->max_peer_links = 2;
	c->max_links = 3;
	c->max_conns = 3;
}

/* Per peer, in all, and peers in the table. */
static void test_link_caps(void **state)
{
	struct rdsu_ep *ep = ep_limits(LARGE, tune_links);
	struct rdsu_addr l = rdsu_addr_v4(LARGE), small = rdsu_addr_v4(SMALL);
	struct rdsu_addr other = rdsu_addr_v4(SMALL - 1), third = rdsu_addr_v4(SMALL - 2);
	struct rdsu_addr fourth = rdsu_addr_v4(SMALL - 3);
	struct rdsu_sock *s = sock_at(ep, LARGE, 4000);
	struct iovec iov = { (void *)"data", 4 };
	uint64_t link;

	(void)state;
	assert_int_equal(rdsu_link_accept(ep, &l, &small, 40000, T0, &link), RDSU_ACCEPT_UP);
	assert_int_equal(rdsu_link_accept(ep, &l, &small, 40001, T0, &link), RDSU_ACCEPT_HELD);
	assert_int_equal(rdsu_link_accept(ep, &l, &small, 40002, T0, &link), RDSU_ERR_REFUSED);
	assert_int_equal(stat(ep, RDSU_STAT_LIMIT_PEER_LINKS), 1);
	assert_int_equal(rdsu_link_accept(ep, &l, &other, 40000, T0, &link), RDSU_ACCEPT_UP);
	assert_int_equal(rdsu_link_accept(ep, &l, &third, 40000, T0, &link), RDSU_ERR_REFUSED);
	assert_int_equal(stat(ep, RDSU_STAT_LIMIT_LINKS), 1);
	/* the third peer's connection, refused, still made it a peer */
	assert_int_equal(n_conns(ep), 3);
	assert_int_equal(rdsu_link_accept(ep, &l, &fourth, 40000, T0, &link), RDSU_ERR_REFUSED);
	assert_int_equal(rdsu_sock_submit(s, &fourth, 5000, &iov, 1, T0), -ENOMEM);
	assert_int_equal(stat(ep, RDSU_STAT_LIMIT_CONNS), 2);
	assert_int_equal(n_conns(ep), 3);
	rdsu_ep_free(ep);
}

/*
 * A connection that never speaks RDS: nothing of our data goes on it
 * (its pings may), and after handshake_timeout it is reset.
 */
static void test_handshake_timeout(void **state)
{
	struct rdsu_ep *ep = ep_limits(LARGE, NULL);
	struct rdsu_sock *s = sock_at(ep, LARGE, 4000);
	struct rdsu_addr small = rdsu_addr_v4(SMALL);
	struct iovec iov = { (void *)"data", 4 };
	struct rdsu_lreq r;
	struct peer p;

	(void)state;
	peer_init(&p, ep, accept_from_small(ep, 32768));
	assert_int_equal(rdsu_sock_submit(s, &small, 5000, &iov, 1, T0), 4);
	peer_pull(&p);
	assert_int_equal(count_kind(&p, WIRE_KIND_DATA), 0);
	assert_true(rdsu_ep_deadline(ep) == T0 + 10 * RDSU_SEC);
	assert_int_equal(rdsu_ep_expire(ep, T0 + 10 * RDSU_SEC - 1), 0);
	assert_int_equal(rdsu_ep_expire(ep, T0 + 10 * RDSU_SEC), 1);
	assert_int_equal(stat(ep, RDSU_STAT_HANDSHAKE_TIMEOUT), 1);
	assert_int_equal(next_req(ep, RDSU_LREQ_CLOSE, &r), 1);
	assert_true(r.link == p.link && r.reset);
	assert_int_equal(conn_of(ep, LARGE, SMALL).path[0].state, RDSU_PATH_DOWN);

	/* A peer that speaks: a header is enough, and the data follows. */
	peer_relink(&p, accept_from_small(ep, 32768));
	peer_clear(&p);
	peer_hello(&p);
	peer_pull(&p);
	assert_int_equal(count_kind(&p, WIRE_KIND_DATA), 1);
	assert_int_equal(rdsu_ep_expire(ep, T0 + 3600 * RDSU_SEC), 0);
	assert_int_equal(conn_of(ep, LARGE, SMALL).path[0].state, RDSU_PATH_UP);
	peer_fini(&p);
	rdsu_ep_free(ep);
}

/*
 * A raw connection from the peer's own address (issue 21, attack 3),
 * made before the peer's: it takes slot 0, the peer's own connection is
 * held behind it, and no data goes to it. At handshake_timeout it is
 * reset, the peer's connection gets the slot with everything queued.
 * The kernel gives the raw connection the slot for good (6.x resets the
 * peer's, 7.x stashes it): docs/kernel-behaviour.md.
 */
static void test_raw_first_then_peer(void **state)
{
	struct rdsu_ep *ep = ep_limits(LARGE, NULL);
	struct rdsu_sock *s = sock_at(ep, LARGE, 4000);
	struct rdsu_addr l = rdsu_addr_v4(LARGE), small = rdsu_addr_v4(SMALL);
	struct iovec iov = { (void *)"data", 4 };
	uint64_t raw = accept_from_small(ep, 50000), real;
	struct rdsu_lreq r;
	struct peer p;

	(void)state;
	peer_init(&p, ep, raw);
	assert_int_equal(rdsu_sock_submit(s, &small, 5000, &iov, 1, T0), 4);
	peer_pull(&p);
	assert_int_equal(count_kind(&p, WIRE_KIND_DATA), 0);
	assert_int_equal(rdsu_link_accept(ep, &l, &small, 32768, T0 + RDSU_SEC, &real),
			 RDSU_ACCEPT_HELD);
	assert_int_equal(rdsu_ep_expire(ep, T0 + 10 * RDSU_SEC), 1);
	assert_int_equal(next_req(ep, RDSU_LREQ_CLOSE, &r), 1);
	assert_true(r.link == raw && r.reset);
	assert_int_equal(next_req(ep, RDSU_LREQ_ATTACH, &r), 1);
	assert_true(r.link == real);
	peer_relink(&p, real);
	peer_clear(&p);
	p.now = T0 + 10 * RDSU_SEC;
	peer_hello(&p);
	peer_pull(&p);
	assert_int_equal(count_kind(&p, WIRE_KIND_DATA), 1);
	peer_fini(&p);
	rdsu_ep_free(ep);
}

/*
 * ... and made after the peer's connection spoke: held, never given the
 * peer's slot while the peer's path lives, and never reset for its
 * silence, since a held connection may be the peer's own with messages
 * TCP acknowledged (test_held_outlives_handshake). What bounds them is
 * max_peer_links: 8 held at most beside the peer's path, the rest
 * refused. The peer's path stays up on its own connection throughout.
 * When that path goes, the first held one gets the slot, and as a path
 * that has said nothing RDS it is reset at handshake_timeout.
 */
static void test_raw_after_peer(void **state)
{
	struct rdsu_ep *ep = ep_limits(LARGE, NULL);
	struct rdsu_addr l = rdsu_addr_v4(LARGE), small = rdsu_addr_v4(SMALL);
	uint64_t real = accept_from_small(ep, 32768), raw[WIRE_MAX_PATHS], extra;
	struct rdsu_lreq r;
	struct peer p;

	(void)state;
	peer_init(&p, ep, real);
	peer_hello(&p);
	for (unsigned i = 0; i < WIRE_MAX_PATHS; i++)
		assert_int_equal(rdsu_link_accept(ep, &l, &small, (uint16_t)(50000 + i), T0, &raw[i]),
				 RDSU_ACCEPT_HELD);
	assert_int_equal(rdsu_link_accept(ep, &l, &small, 50100, T0, &extra), RDSU_ERR_REFUSED);
	assert_int_equal(stat(ep, RDSU_STAT_LIMIT_PEER_LINKS), 1);
	assert_true(rdsu_ep_deadline(ep) == RDSU_NS_NEVER);
	assert_int_equal(rdsu_ep_expire(ep, T0 + 3600 * RDSU_SEC), 0);
	assert_int_equal(next_req(ep, RDSU_LREQ_CLOSE, &r), 0);
	assert_int_equal(conn_of(ep, LARGE, SMALL).held_links, WIRE_MAX_PATHS);
	assert_true(conn_of(ep, LARGE, SMALL).path[0].link == real);
	assert_int_equal(conn_of(ep, LARGE, SMALL).path[0].state, RDSU_PATH_UP);
	assert_int_equal(stat(ep, RDSU_STAT_HANDSHAKE_TIMEOUT), 0);

	/* the peer's own connection goes: the oldest held one takes slot 0 */
	assert_int_equal(rdsu_link_down(ep, real, T0 + 3600 * RDSU_SEC), 0);
	assert_int_equal(next_req(ep, RDSU_LREQ_ATTACH, &r), 1);
	assert_true(r.link == raw[0]);
	assert_int_equal(conn_of(ep, LARGE, SMALL).held_links, WIRE_MAX_PATHS - 1);
	assert_int_equal(rdsu_ep_expire(ep, T0 + 3610 * RDSU_SEC), 1);
	assert_int_equal(next_req(ep, RDSU_LREQ_CLOSE, &r), 1);
	assert_true(r.link == raw[0] && r.reset);
	assert_int_equal(stat(ep, RDSU_STAT_HANDSHAKE_TIMEOUT), 1);
	peer_fini(&p);
	rdsu_ep_free(ep);
}

/*
 * The peer reconnects while we still have its old connection on the
 * slot (we have not seen it go yet): the new one is held, and the peer,
 * for which it is established, writes its messages on it, which TCP
 * acknowledges from our socket buffer. However long the old one takes
 * to go, the held one is not reset: it gets the slot and its messages.
 */
static void test_held_outlives_handshake(void **state)
{
	struct rdsu_ep *ep = ep_limits(LARGE, NULL);
	struct rdsu_sock *rx = sock_at(ep, LARGE, 5000);
	struct rdsu_addr l = rdsu_addr_v4(LARGE), small = rdsu_addr_v4(SMALL);
	uint64_t old = accept_from_small(ep, 32768), again;
	uint8_t buf[16];
	struct iovec in = { buf, sizeof(buf) };
	struct rdsu_rxinfo info;
	struct wire_hdr h;
	struct rdsu_lreq r;
	struct peer p;

	(void)state;
	peer_init(&p, ep, old);
	peer_hello(&p);
	assert_int_equal(rdsu_link_accept(ep, &l, &small, 32769, T0 + RDSU_SEC, &again),
			 RDSU_ACCEPT_HELD);
	assert_int_equal(rdsu_ep_expire(ep, T0 + 60 * RDSU_SEC), 0);
	assert_int_equal(next_req(ep, RDSU_LREQ_CLOSE, &r), 0);
	assert_int_equal(conn_of(ep, LARGE, SMALL).held_links, 1);

	assert_int_equal(rdsu_link_down(ep, old, T0 + 61 * RDSU_SEC), 0);
	assert_int_equal(next_req(ep, RDSU_LREQ_ATTACH, &r), 1);
	assert_true(r.link == again);
	/* what the socket buffered while it was held */
	peer_relink(&p, again);
	p.now = T0 + 61 * RDSU_SEC;
	peer_hello(&p);
	wire_build_data(&h, 1, 4000, 5000, 4);
	assert_int_equal(peer_feed(&p, &h, (const uint8_t *)"late", false), WIRE_HDR_LEN + 4);
	assert_int_equal(rdsu_sock_read(rx, &in, 1, 0, &info, p.now), 4);
	assert_memory_equal(buf, "late", 4);
	assert_int_equal(stat(ep, RDSU_STAT_HANDSHAKE_TIMEOUT), 0);
	assert_int_equal(conn_of(ep, LARGE, SMALL).path[0].state, RDSU_PATH_UP);
	peer_fini(&p);
	rdsu_ep_free(ep);
}

/* A message begun and then starved (one byte a minute): the path is reset
 * at idle_timeout after the last byte; an idle path with nothing begun is
 * left alone. */
static void test_idle_timeout(void **state)
{
	struct rdsu_ep *ep = ep_limits(LARGE, NULL);
	struct wire_hdr h;
	uint8_t buf[WIRE_HDR_LEN + 10] = { 0 };
	struct peer p;

	(void)state;
	peer_init(&p, ep, accept_from_small(ep, 32768));
	peer_hello(&p);
	assert_true(rdsu_ep_deadline(ep) == RDSU_NS_NEVER);
	wire_build_data(&h, 1, 4000, 5000, 100);
	wire_hdr_encode(&h, buf, WIRE_HDR_LEN);
	assert_int_equal(rdsu_link_input(ep, p.link, buf, sizeof(buf), T0 + RDSU_SEC),
			 (ssize_t)sizeof(buf));
	assert_true(rdsu_ep_deadline(ep) == T0 + 61 * RDSU_SEC);
	assert_int_equal(rdsu_ep_expire(ep, T0 + 61 * RDSU_SEC), 1);
	assert_int_equal(stat(ep, RDSU_STAT_IDLE_TIMEOUT), 1);
	assert_int_equal(conn_of(ep, LARGE, SMALL).path[0].state, RDSU_PATH_DOWN);
	peer_fini(&p);
	rdsu_ep_free(ep);
}

static void tune_never(struct rdsu_ep_cfg *c)
{
	c->handshake_timeout = RDSU_NS_NEVER;
	c->idle_timeout = RDSU_NS_NEVER;
	c->give_up = RDSU_NS_NEVER;
}

/* RDSU_NS_NEVER: the kernel's behaviour, no timer at all. */
static void test_never(void **state)
{
	struct rdsu_ep *ep = ep_limits(SMALL, tune_never);

	(void)state;
	kick(ep, LARGE, T0);
	(void)run_failing(ep, T0, T0 + 3600 * RDSU_SEC);
	assert_int_equal(n_conns(ep), 1);
	rdsu_ep_free(ep);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_give_up_kicked_peer),
	cmocka_unit_test(test_no_give_up_with_data),
	cmocka_unit_test(test_max_connecting),
	cmocka_unit_test(test_link_caps),
	cmocka_unit_test(test_handshake_timeout),
	cmocka_unit_test(test_raw_first_then_peer),
	cmocka_unit_test(test_raw_after_peer),
	cmocka_unit_test(test_held_outlives_handshake),
	cmocka_unit_test(test_idle_timeout),
	cmocka_unit_test(test_never))
