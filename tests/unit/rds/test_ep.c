// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_ep.c - configuration checks, addresses, error and counter names,
 * the monitor views. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "cmain.h"

#include "utest.h"

/* Configuration |k| (0 and 1 are valid, the others each break one rule). */
static int try_cfg(int k)
{
	struct rdsu_ep_cfg c;
	struct rdsu_ep *ep = NULL;
	int r;

	ep_cfg_on(&c, SMALL, 1);
	switch (k) {
	case 1: /* two addresses, one path, 6.x */
		c.laddrs[1] = rdsu_addr_v4(0x0a000009);
		c.n_laddrs = 2;
		c.npaths = 1;
		c.kver = WIRE_KVER_6;
		break;
	case 2:
		c.size = 8;
		break;
	case 3:
		c.n_laddrs = 0;
		break;
	case 4:
		c.n_laddrs = RDSU_MAX_LADDRS + 1;
		break;
	case 5:
		c.laddrs[0] = rdsu_addr_v4(0);
		break;
	case 6: /* the same address twice */
		c.laddrs[1] = c.laddrs[0];
		c.n_laddrs = 2;
		break;
	case 7: /* IPv4 and IPv6 mixed */
		c.laddrs[1] = (struct rdsu_addr){ { 0x20, 0x01, [15] = 1 } };
		c.n_laddrs = 2;
		break;
	case 8:
		c.gen_num = 0;
		break;
	case 9:
		c.npaths = 3;
		break;
	case 10:
		c.npaths = 16;
		break;
	case 11:
		c.npaths = 0;
		break;
	case 12:
		c.kver = WIRE_KVER_ALL;
		break;
	case 13:
		c.reconnect_min = 2 * RDSU_SEC;
		break;
	case 14:
		c.reconnect_min = 0;
		break;
	case 15:
		c.sndbuf = 0;
		break;
	default:
		break;
	}
	r = rdsu_ep_new(&ep, &c);
	rdsu_ep_free(ep);
	return r;
}

static void test_ep_cfg_checks(void **state)
{
	(void)state;
	assert_int_equal(try_cfg(0), 0);
	assert_int_equal(try_cfg(1), 0);
	for (int k = 2; k <= 15; k++)
		assert_int_equal(try_cfg(k), RDSU_ERR_INVAL);
	assert_int_equal(rdsu_ep_new(NULL, NULL), RDSU_ERR_INVAL);
	rdsu_ep_free(NULL);
}

static void test_ep_addr(void **state)
{
	struct rdsu_addr a = rdsu_addr_v4(0x7f000001), b = rdsu_addr_v4(0x7f000002);
	struct rdsu_addr v6 = { { 0xfe, 0x80, [15] = 1 } };
	static const uint8_t mapped[16] = { [10] = 0xff, [11] = 0xff, 127, 0, 0, 1 };
	char buf[64];

	(void)state;
	assert_memory_equal(a.a, mapped, 16);
	assert_true(rdsu_addr_is_v4(&a));
	assert_false(rdsu_addr_is_v4(&v6));
	assert_int_equal(rdsu_addr_get_v4(&b), 0x7f000002);
	assert_int_equal(rdsu_addr_get_v4(&v6), 0);
	assert_true(rdsu_addr_cmp(&a, &b) < 0);
	assert_true(rdsu_addr_cmp(&b, &a) > 0);
	assert_true(rdsu_addr_cmp(&a, &a) == 0);
	/* unsigned: 10.x < 200.x */
	{
		struct rdsu_addr lo = rdsu_addr_v4(0x0a000001), hi = rdsu_addr_v4(0xc8000001);

		assert_true(rdsu_addr_cmp(&lo, &hi) < 0);
	}
	assert_string_equal(rdsu_addr_str(&a, buf, sizeof(buf)), "127.0.0.1");
	assert_string_equal(rdsu_addr_str(&v6, buf, sizeof(buf)), "fe80::1");
}

static void test_ep_names(void **state)
{
	(void)state;
	for (int i = 0; i < RDSU_STAT__COUNT; i++) {
		const char *n = rdsu_stat_name((enum rdsu_stat)i);

		assert_non_null(n);
		assert_string_not_equal(n, "?");
		for (int j = 0; j < i; j++)
			assert_string_not_equal(n, rdsu_stat_name((enum rdsu_stat)j));
	}
	assert_string_equal(rdsu_stat_name(RDSU_STAT__COUNT), "?");
	assert_string_equal(rdsu_stat_name(RDSU_STAT_RECV_DROP_OLD_SEQ), "recv_drop_old_seq");
	assert_string_equal(rdsu_stat_name(RDSU_STAT_SEND_PONG), "send_pong");
	for (int e = -281; e <= -201; e++)
		assert_non_null(rdsu_strerror(e));
	assert_string_equal(rdsu_strerror(RDSU_ERR_CLOSED), "link closed");
	assert_string_equal(rdsu_strerror(-ENOBUFS), "ENOBUFS: destination port congested");
	assert_string_equal(rdsu_strerror(12345), "unknown error");
	assert_true(rdsu_err_is_fatal(RDSU_ERR_NOMEM));
	assert_false(rdsu_err_is_fatal(RDSU_ERR_CLOSED));
	assert_false(rdsu_err_is_fatal(-ENOMEM));
	assert_string_equal(rdsu_path_state_name(RDSU_PATH_UP), "up");
}

/* Two local addresses: separate maps, separate connections to one peer,
 * and the order decides per address pair. */
static void test_ep_two_local_addresses(void **state)
{
	struct rdsu_ep_cfg c;
	struct rdsu_ep *ep;
	struct rdsu_addr lo = rdsu_addr_v4(0x0a000001), hi = rdsu_addr_v4(0x0a000009);
	struct rdsu_addr peer = rdsu_addr_v4(0x0a000005);
	struct rdsu_sock *s1, *s2;
	struct iovec iov = { "1", 1 };
	struct rdsu_conn_info ci;
	size_t pos = 0;
	int n = 0;

	(void)state;
	ep_cfg_on(&c, SMALL, 1);
	c.laddrs[0] = lo;
	c.laddrs[1] = hi;
	c.n_laddrs = 2;
	ep = ep_new_ok(&c);
	assert_int_equal(rdsu_sock_new(ep, &s1), 0);
	assert_int_equal(rdsu_sock_bind(s1, &lo, 4000), 0);
	assert_int_equal(rdsu_sock_new(ep, &s2), 0);
	assert_int_equal(rdsu_sock_bind(s2, &hi, 4000), 0); /* same port, other address */
	assert_int_equal(rdsu_sock_submit(s1, &peer, 5000, &iov, 1, T0), 1);
	assert_int_equal(rdsu_sock_submit(s2, &peer, 5000, &iov, 1, T0), 1);
	while (rdsu_ep_conn_next(ep, &pos, &ci)) {
		n++;
		if (rdsu_addr_cmp(&ci.laddr, &lo) == 0) {
			assert_true(ci.we_connect);
			assert_int_equal(ci.path[0].state, RDSU_PATH_CONNECTING);
		} else {
			assert_false(ci.we_connect);
			assert_int_equal(ci.path[0].state, RDSU_PATH_CONNECTING); /* a kick */
		}
	}
	assert_int_equal(n, 2);
	assert_non_null(rdsu_ep_local_map(ep, &hi));
	assert_ptr_not_equal(rdsu_ep_local_map(ep, &hi), rdsu_ep_local_map(ep, &lo));
	assert_null(rdsu_ep_local_map(ep, &peer));
	assert_null(rdsu_ep_peer_map(ep, &lo, &hi));
	assert_int_equal(rdsu_ep_conn_get(ep, &lo, &hi, &ci), RDSU_ERR_NOTFOUND);
	rdsu_ep_free(ep);
}

static void test_ep_msg_iter(void **state)
{
	struct rdsu_ep *ep = ep_make(SMALL, WIRE_KVER_7, 9);
	struct rdsu_sock *s = sock_at(ep, SMALL, 4000);
	struct rdsu_addr dst = rdsu_addr_v4(LARGE);
	struct iovec iov = { "abc", 3 };
	struct rdsu_msg_iter it = { 0 };
	struct rdsu_msg_info mi;
	struct peer p;
	int n = 0, retrans = 0;

	(void)state;
	for (int i = 0; i < 3; i++)
		assert_int_equal(rdsu_sock_submit(s, &dst, 5000, &iov, 1, T0), 3);
	peer_init(&p, ep, connect_to_large(ep, 0, T0));
	p.chunk = WIRE_HDR_LEN * 2 + WIRE_CONG_MAP_BYTES; /* map and probe only */
	{
		uint8_t *buf = malloc(p.chunk);

		assert_int_equal(rdsu_link_output(ep, p.link, buf, p.chunk, T0), (ssize_t)p.chunk);
		free(buf);
	}
	while (rdsu_ep_msg_next(ep, &it, &mi)) {
		n++;
		retrans += mi.queue == RDSU_MSGQ_RETRANS;
		if (mi.queue == RDSU_MSGQ_SEND) {
			assert_int_equal(mi.len, 3);
			assert_int_equal(mi.sport, 4000);
			assert_int_equal(mi.dport, 5000);
			assert_true(mi.seq >= 2 && mi.seq <= 4);
		}
	}
	assert_int_equal(n, 4);
	assert_int_equal(retrans, 1); /* the probe, written and unacknowledged */
	peer_fini(&p);
	rdsu_ep_free(ep);
}

/* Allocation failures surface as errors, never crashes. */
static int fail_after;

static void *failing_alloc(size_t size, void *ud)
{
	(void)ud;
	if (fail_after-- == 0)
		return NULL;
	return malloc(size);
}

static void failing_free(void *p, void *ud)
{
	(void)ud;
	free(p);
}

static void test_ep_alloc_failures(void **state)
{
	(void)state;
	for (int n = 0; n < 40; n++) {
		struct rdsu_ep_cfg c;
		struct rdsu_ep *ep = NULL;
		struct rdsu_sock *s = NULL;
		struct rdsu_addr me = rdsu_addr_v4(SMALL), dst = rdsu_addr_v4(LARGE);
		struct iovec iov = { "abc", 3 };
		struct rdsu_lreq r;

		ep_cfg_on(&c, SMALL, 1);
		c.mem.alloc = failing_alloc;
		c.mem.free = failing_free;
		fail_after = n;
		if (rdsu_ep_new(&ep, &c) != 0)
			continue;
		if (rdsu_sock_new(ep, &s) == 0 && rdsu_sock_bind(s, &me, 4000) == 0) {
			int rc = rdsu_sock_submit(s, &dst, 5000, &iov, 1, T0);

			assert_true(rc == 3 || rc == -ENOMEM);
			if (next_req(ep, RDSU_LREQ_CONNECT, &r)) {
				int e = rdsu_link_established(ep, r.link, 1, T0);

				assert_true(e == 0 || e == RDSU_ERR_CLOSED);
			}
		}
		rdsu_ep_free(ep);
	}
}

/* Freed with events of several connections still queued (a path up and
 * the peer's npaths/generation from its probe, each): connections were
 * freed one by one and a later one's unlink wrote through the freed
 * event node of an earlier one (ASan: heap-use-after-free). */
static void test_ep_free_with_events(void **state)
{
	struct rdsu_ep *ep = ep_make(0x0a0000ffu, WIRE_KVER_7, 7);
	struct rdsu_addr me = rdsu_addr_v4(0x0a0000ffu);
	struct peer p;
	struct wire_hdr h;
	uint64_t link;

	(void)state;
	for (uint32_t peer = 1; peer <= 3; peer++) {
		struct rdsu_addr from = rdsu_addr_v4(0x0a000010u + peer);

		assert_int_equal(rdsu_link_accept(ep, &me, &from, 40000, T0, &link),
				 RDSU_ACCEPT_UP);
		peer_init(&p, ep, link);
		probe_hdr(&h, false, 1, WIRE_KVER_7, 8, 100 + peer);
		assert_true(peer_feed(&p, &h, NULL, false) > 0);
		peer_fini(&p);
	}
	rdsu_ep_free(ep);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_ep_cfg_checks),
	cmocka_unit_test(test_ep_addr),
	cmocka_unit_test(test_ep_names),
	cmocka_unit_test(test_ep_two_local_addresses),
	cmocka_unit_test(test_ep_msg_iter),
	cmocka_unit_test(test_ep_alloc_failures),
	cmocka_unit_test(test_ep_free_with_events))
