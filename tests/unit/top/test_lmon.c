// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * test_lmon.c - the librds source's pure half: monitor records into the
 * model (connections with paths summed, both maps, the local node's map,
 * sockets, counters), the time line from successive maps, unknown
 * records skipped, and bodies refused; and the kernel source's local map
 * derived from receive queues with the kernel's hysteresis.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "cmain.h"

#include <errno.h>

#include <wire/wire.h>

#include "kinfo.h"
#include "lmon.h"
#include "top.h"

static const uint8_t A1[16] = { [10] = 0xff, [11] = 0xff, 127, 0, 0, 1 };
static const uint8_t A2[16] = { [10] = 0xff, [11] = 0xff, 127, 0, 0, 2 };

static uint8_t body[64 * 1024];
static size_t blen;

static void put(const struct wire_mon_item *it)
{
	ssize_t n = wire_mon_rec_encode(it, body + blen, sizeof(body) - blen);

	assert_true(n > 0);
	blen += (size_t)n;
}

static void put_raw(const uint8_t *p, size_t n)
{
	memcpy(body + blen, p, n);
	blen += n;
}

static struct wire_cong_map peer_map, local_map;
static uint8_t conn_trans = 2; /* RDS_TRANS_* of build()'s connection */

/* A process with one connection of two paths, maps, a socket and a
 * counter; |peer_port| congested in the peer's map when not 0. */
static void build(uint16_t peer_port, uint64_t seq)
{
	struct wire_mon_item it;

	blen = 0;
	memset(&it, 0, sizeof(it));
	it.type = WIRE_MON_R_PROC;
	it.u.proc.pid = 77;
	it.u.proc.now_ns = 5000000000ull;
	strcpy(it.u.proc.name, "rdsperf");
	put(&it);
	memset(&it, 0, sizeof(it));
	it.type = WIRE_MON_R_COUNTER;
	strcpy(it.u.counter.name, "recv_delivered");
	it.u.counter.value = seq;
	put(&it);
	memset(&it, 0, sizeof(it));
	it.type = WIRE_MON_R_CONN;
	memcpy(it.u.conn.laddr, A1, 16);
	memcpy(it.u.conn.faddr, A2, 16);
	it.u.conn.transport = conn_trans;
	it.u.conn.npaths = 2;
	it.u.conn.peer_gen = 9;
	put(&it);
	for (uint8_t p = 0; p < 2; p++) {
		memset(&it, 0, sizeof(it));
		it.type = WIRE_MON_R_PATH;
		it.u.path.index = p;
		it.u.path.state = 2;
		it.u.path.outgoing = 1;
		it.u.path.local_sport = (uint16_t)(40000 + p);
		it.u.path.link = 1 + p;
		it.u.path.next_tx_seq = seq + p;
		it.u.path.next_rx_seq = 1;
		it.u.path.send_q_msgs = 1;
		it.u.path.send_q_bytes = 100;
		it.u.path.tx_bytes = 1000 * seq;
		it.u.path.connects = 2;
		put(&it);
	}
	/* a record of a later version, skipped */
	put_raw((const uint8_t[]){ 0x7f, 0x00, 0, 0, 0, 2, 0xaa, 0xbb }, 8);
	wire_cong_clear_all(&peer_map);
	if (peer_port)
		wire_cong_set(&peer_map, peer_port);
	memset(&it, 0, sizeof(it));
	it.type = WIRE_MON_R_MAP;
	it.u.map.kind = WIRE_MON_MAP_PEER;
	it.u.map.count = (uint32_t)wire_cong_count(&peer_map);
	it.u.map.bits = it.u.map.count ? peer_map.bits : NULL;
	put(&it);
	wire_cong_clear_all(&local_map);
	wire_cong_set(&local_map, 4000);
	memset(&it, 0, sizeof(it));
	it.type = WIRE_MON_R_MAP;
	it.u.map.kind = WIRE_MON_MAP_LOCAL;
	memcpy(it.u.map.addr, A1, 16);
	it.u.map.count = 1;
	it.u.map.bits = local_map.bits;
	put(&it);
	memset(&it, 0, sizeof(it));
	it.type = WIRE_MON_R_SOCK;
	memcpy(it.u.sock.laddr, A1, 16);
	it.u.sock.port = 4000;
	it.u.sock.flags = WIRE_MON_SOCK_BOUND | WIRE_MON_SOCK_CONGESTED;
	it.u.sock.rcvbuf = 1000;
	it.u.sock.rcv_bytes = 2000;
	it.u.sock.rx_msgs = 3;
	put(&it);
	memset(&it, 0, sizeof(it));
	it.type = WIRE_MON_R_END;
	put(&it);
}

static void test_lmon_snapshot(void **state)
{
	struct top_lmon *l;
	struct top_lmon_proc proc;
	struct top_snap s;
	char err[256];
	const struct top_conn *c;

	(void)state;
	assert_int_equal(top_lmon_new(&l), 0);
	build(0, 10);
	top_snap_init(&s);
	assert_int_equal(top_lmon_decode(l, body, blen, 1000, &s, &proc, err, sizeof(err)), 0);
	assert_int_equal(proc.pid, 77);
	assert_string_equal(proc.name, "rdsperf");
	assert_true(proc.whole);
	assert_string_equal(s.source, "librds");
	assert_int_equal(s.n_conns, 1);
	c = &s.conns[0];
	assert_string_equal(c->transport, "tcp");
	assert_int_equal(c->npaths, 2);
	assert_int_equal(c->flags, WIRE_INFO_CONN_CONNECTED);
	assert_true(c->has_gen);
	/* both paths' messages, queues and bytes */
	assert_int_equal(c->tx_seq_sum, 9 + 10);
	assert_int_equal(c->sendq_msgs, 2);
	assert_int_equal(c->sendq_bytes, 200);
	assert_int_equal(c->tx_bytes, 20000);
	assert_int_equal(c->reconnects, 2);
	assert_int_equal(s.n_paths, 2);
	assert_int_equal(s.paths[1].lport, 40001);
	assert_int_equal(s.paths[1].fport, 16385);
	assert_non_null(c->peer_cong);
	assert_int_equal(wire_cong_count(c->peer_cong), 0);
	assert_non_null(c->lcl_cong);
	assert_true(wire_cong_test(c->lcl_cong, 4000));
	assert_non_null(s.local_cong);
	assert_true(wire_cong_test(s.local_cong, 4000));
	assert_int_equal(s.n_socks, 1);
	assert_true(s.socks[0].congested);
	assert_int_equal(s.socks[0].recvq_bytes, 2000);
	assert_int_equal(s.n_counters, 1);
	/* the first snapshot's local map is news */
	assert_int_equal(s.n_events, 1);
	assert_false(s.events[0].from_peer);
	assert_int_equal(s.events[0].conn, SIZE_MAX);
	top_snap_fini(&s);

	/* the peer's port 5000 congested: one update, on the connection */
	build(5000, 20);
	top_snap_init(&s);
	assert_int_equal(top_lmon_decode(l, body, blen, 2000, &s, &proc, err, sizeof(err)), 0);
	assert_true(wire_cong_test(s.conns[0].peer_cong, 5000));
	assert_int_equal(s.n_events, 2);
	assert_true(s.events[1].from_peer);
	assert_int_equal(s.events[1].conn, 0);
	assert_int_equal(s.events[1].first, 5000);
	assert_int_equal(s.events[1].last, 5000);
	assert_true(s.events[1].congested);
	assert_int_equal(s.events[1].t_ns, 2000);
	top_snap_fini(&s);
	top_lmon_free(l);
}

static void test_lmon_refused(void **state)
{
	struct top_lmon *l;
	struct top_lmon_proc proc;
	struct top_snap s;
	char err[256];
	struct wire_mon_item it = { .type = WIRE_MON_R_PATH };

	(void)state;
	assert_int_equal(top_lmon_new(&l), 0);
	/* cut anywhere inside a record (here the socket's, before the
	 * END): refused; cut between records is a snapshot without its END */
	build(0, 1);
	for (size_t n = blen - WIRE_MON_REC_HDR_LEN - 1;
	     n > blen - 2 * WIRE_MON_REC_HDR_LEN - WIRE_MON_SOCK_LEN; n--) {
		top_snap_init(&s);
		assert_int_equal(top_lmon_decode(l, body, n, 1, &s, &proc, err, sizeof(err)),
				 -EPROTO);
		top_snap_fini(&s);
	}
	top_snap_init(&s);
	assert_int_equal(top_lmon_decode(l, body, blen - WIRE_MON_REC_HDR_LEN, 1, &s, &proc, err,
					 sizeof(err)), 0);
	assert_false(proc.whole);
	top_snap_fini(&s);
	/* no process record */
	blen = 0;
	put(&(struct wire_mon_item){ .type = WIRE_MON_R_END });
	top_snap_init(&s);
	assert_int_equal(top_lmon_decode(l, body, blen, 1, &s, &proc, err, sizeof(err)), -EPROTO);
	top_snap_fini(&s);
	/* a path before any connection */
	build(0, 1);
	blen = 0;
	{
		struct wire_mon_item p = { .type = WIRE_MON_R_PROC };

		put(&p);
	}
	put(&it);
	top_snap_init(&s);
	assert_int_equal(top_lmon_decode(l, body, blen, 1, &s, &proc, err, sizeof(err)), -EPROTO);
	assert_non_null(strstr(err, "before any connection"));
	top_snap_fini(&s);
	/* records after the end */
	build(0, 1);
	put(&(struct wire_mon_item){ .type = WIRE_MON_R_END });
	top_snap_init(&s);
	assert_int_equal(top_lmon_decode(l, body, blen, 1, &s, &proc, err, sizeof(err)), -EPROTO);
	top_snap_fini(&s);
	top_lmon_free(l);
}

static void test_kinfo_local_map(void **state)
{
	struct top_snap s;
	struct top_sock *k;
	struct top_conn *c;
	struct wire_cong_map prev;

	(void)state;
	top_snap_init(&s);
	c = top_snap_add_conn(&s);
	memcpy(c->laddr, A1, 16);
	memcpy(c->faddr, A2, 16);
	for (uint16_t p = 4000; p < 4003; p++) {
		k = top_snap_add_sock(&s);
		memcpy(k->bound_addr, A1, 16);
		k->bound_port = p;
		k->rcvbuf = 1000;
	}
	s.socks[0].recvq_bytes = 1001;   /* over: congested */
	s.socks[1].recvq_bytes = 600;    /* between: as before */
	s.socks[2].recvq_bytes = 400;    /* below half: free */
	assert_int_equal(top_kinfo_local_map(&s, NULL), 0);
	assert_true(wire_cong_test(s.local_cong, 4000));
	assert_false(wire_cong_test(s.local_cong, 4001));
	assert_false(wire_cong_test(s.local_cong, 4002));
	assert_true(wire_cong_test(s.conns[0].lcl_cong, 4000));
	wire_cong_clear_all(&prev);
	wire_cong_set(&prev, 4001);
	wire_cong_set(&prev, 4002);
	assert_int_equal(top_kinfo_local_map(&s, &prev), 0);
	assert_true(wire_cong_test(s.local_cong, 4001));
	assert_false(wire_cong_test(s.local_cong, 4002));
	assert_int_equal(wire_cong_count(s.local_cong), 2);
	assert_true(s.socks[1].has_cong && s.socks[1].congested);
	top_snap_fini(&s);
}

/* A connection of the loopback transport (3) is named as the kernel's
 * RDS_INFO_CONNECTIONS names it. */
static void test_lmon_loopback_name(void **state)
{
	struct top_lmon *l;
	struct top_lmon_proc proc;
	struct top_snap s;
	char err[256];

	(void)state;
	assert_int_equal(top_lmon_new(&l), 0);
	conn_trans = 3;
	build(0, 10);
	conn_trans = 2;
	top_snap_init(&s);
	assert_int_equal(top_lmon_decode(l, body, blen, 1000, &s, &proc, err, sizeof(err)), 0);
	assert_int_equal(s.n_conns, 1);
	assert_string_equal(s.conns[0].transport, "loopback");
	top_snap_fini(&s);
	top_lmon_free(l);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_lmon_snapshot),
	cmocka_unit_test(test_lmon_loopback_name),
	cmocka_unit_test(test_lmon_refused),
	cmocka_unit_test(test_kinfo_local_map))
