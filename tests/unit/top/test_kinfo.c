// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * test_kinfo.c - the kernel source's pure half against a fake kernel: the
 * fake answers getsockopt as rds_info_getsockopt() does (wire_info_answer)
 * from lists encoded with libwire, so the read loop, the decoding into the
 * model and the linking run on a host without the rds module.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "cmain.h"

#include <wire/wire.h>

#include "kinfo.h"
#include "top.h"

#define MAX_ITEMS 8

struct fake_list {
	unsigned opt;
	uint8_t bytes[MAX_ITEMS * WIRE_INFO_ITEM_MAX];
	size_t n;
};

struct fake {
	struct fake_list lists[12];
	size_t n_lists;
	unsigned grow_opt;          /* this list gains an item per call */
	unsigned grow_calls;        /* ... for this many calls */
	unsigned calls;
	int item_size_bias;         /* a kernel of another layout */
	size_t claim;               /* non-zero: a list of this many bytes */
};

static struct fake_list *find(struct fake *f, unsigned opt)
{
	for (size_t i = 0; i < f->n_lists; i++)
		if (f->lists[i].opt == opt)
			return &f->lists[i];
	return NULL;
}

static struct fake_list *list(struct fake *f, unsigned opt)
{
	struct fake_list *l = find(f, opt);

	if (!l) {
		l = &f->lists[f->n_lists++];
		l->opt = opt;
	}
	return l;
}

static void add(struct fake *f, const struct wire_info_item *it)
{
	struct fake_list *l = list(f, it->opt);
	size_t size = wire_info_item_size(it->opt);

	assert_true(l->n < MAX_ITEMS);
	assert_int_equal(wire_info_encode(it, l->bytes + l->n * size, size), (ssize_t)size);
	l->n++;
}

static int fake_gso(void *ctx, unsigned opt, void *buf, size_t *len)
{
	struct fake *f = ctx;
	struct fake_list *l = find(f, opt);
	size_t size = wire_info_item_size(opt);
	size_t optlen = 0;
	int r;

	f->calls++;
	if (!l)
		return -ENOPROTOOPT;
	if (opt == f->grow_opt && f->grow_calls) {
		f->grow_calls--;
		memcpy(l->bytes + l->n * size, l->bytes, size);
		l->n++;
	}
	if (f->claim) {
		*len = f->claim;
		return -ENOSPC;
	}
	r = wire_info_answer(l->n, size, *len, &optlen);
	if (r > 0) {
		memcpy(buf, l->bytes, optlen);
		r += f->item_size_bias;
	}
	*len = optlen;
	return r;
}

/* 10.0.0.1 and 10.0.0.2 as the info lists carry them (IPv4-mapped). */
#define A1 { [10] = 0xff, [11] = 0xff, [12] = 10, [15] = 1 }
#define A2 { [10] = 0xff, [11] = 0xff, [12] = 10, [15] = 2 }

/* A kernel with one RDS/TCP connection 10.0.0.1 -> 10.0.0.2 on two paths,
 * one socket with a message queued each way, and two counters; the
 * retransmit list is registered and empty, and there is no IB list
 * (rds_rdma is not loaded). */
static const struct wire_info_item a_connection[] = {
	{ .opt = WIRE_INFO_COUNTERS, .u.counter = { .name = "recv_delivered", .value = 12 } },
	{ .opt = WIRE_INFO_COUNTERS, .u.counter = { .name = "tcp_data_ready_calls", .value = 30 } },
	{ .opt = WIRE_INFO6_CONNECTIONS,
	  .u.conn = { .laddr = A1, .faddr = A2, .transport = "tcp",
		      .flags = WIRE_INFO_CONN_CONNECTED, .next_tx_seq = 5, .next_rx_seq = 9 } },
	{ .opt = WIRE_INFO_CONNECTIONS,
	  .u.conn = { .laddr = A1, .faddr = A2, .transport = "tcp",
		      .flags = WIRE_INFO_CONN_CONNECTED, .next_tx_seq = 5, .next_rx_seq = 9,
		      .tos = 4 } },
	{ .opt = WIRE_INFO6_SOCKETS,
	  .u.sock = { .bound_addr = A1, .bound_port = 4000, .sndbuf = 131072, .rcvbuf = 131072,
		      .inum = 777 } },
	{ .opt = WIRE_INFO6_SEND_MESSAGES,
	  .u.msg = { .laddr = A1, .faddr = A2, .lport = 4000, .fport = 4001, .seq = 4,
		     .len = 300 } },
	{ .opt = WIRE_INFO6_RECV_MESSAGES,
	  .u.msg = { .laddr = A1, .faddr = A2, .lport = 4000, .fport = 4001, .seq = 4,
		     .len = 20 } },
	{ .opt = WIRE_INFO6_TCP_SOCKETS,
	  .u.tcp_sock = { .local_addr = A1, .peer_addr = A2, .local_port = 40000,
			  .peer_port = 16385 } },
	{ .opt = WIRE_INFO6_TCP_SOCKETS,
	  .u.tcp_sock = { .local_addr = A1, .peer_addr = A2, .local_port = 40001,
			  .peer_port = 16385, .hdr_rem = 48 } },
};

static void kernel_with_a_connection(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	for (size_t i = 0; i < sizeof(a_connection) / sizeof(a_connection[0]); i++)
		add(f, &a_connection[i]);
	list(f, WIRE_INFO6_RETRANS_MESSAGES);
}

/* What the reading tests share: the read buffer, the
 * snapshot, and the fake kernel with a connection. */
struct rig {
	struct top_kinfo_buf b;
	struct top_snap s;
	struct fake f;
	unsigned failed;
};

static struct rig *rig_new(void)
{
	struct rig *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	top_snap_init(&r->s);
	kernel_with_a_connection(&r->f);
	return r;
}

/* Both finis leave their object empty: a test may have called them. */
static void rig_free(struct rig *r)
{
	top_snap_fini(&r->s);
	top_kinfo_buf_fini(&r->b);
	free(r);
}

static void test_kinfo_snapshot_of_a_connection(void **state)
{
	struct rig *r = rig_new();

	(void)state;
	assert_int_equal(top_kinfo_snapshot(fake_gso, &r->f, &r->b, &r->s, &r->failed), 0);
	assert_int_equal(r->s.n_counters, 2);
	assert_string_equal(r->s.counters[1].name, "tcp_data_ready_calls");
	assert_true(r->s.counters[1].value == 30);

	assert_int_equal(r->s.n_conns, 1);
	assert_string_equal(r->s.conns[0].transport, "tcp");
	assert_int_equal(r->s.conns[0].tos, 4);       /* from the IPv4 list */
	assert_true(r->s.conns[0].next_tx_seq == 5 && r->s.conns[0].next_rx_seq == 9);
	assert_int_equal(r->s.conns[0].npaths, 2);
	assert_int_equal(r->s.conns[0].sendq_msgs, 1);
	assert_int_equal(r->s.conns[0].sendq_bytes, 300);

	assert_int_equal(r->s.n_paths, 2);
	assert_int_equal(r->s.paths[1].conn, 0);
	assert_int_equal(r->s.paths[1].lport, 40001);
	assert_true(r->s.paths[1].has_tcp);
	assert_true(r->s.paths[1].hdr_rem == 48);

	assert_int_equal(r->s.n_socks, 1);
	assert_int_equal(r->s.socks[0].rcvbuf, 131072);
	assert_int_equal(r->s.socks[0].recvq_msgs, 1);
	assert_int_equal(r->s.socks[0].recvq_bytes, 20);
	assert_int_equal(r->s.socks[0].sendq_bytes, 300);
	assert_int_equal(r->s.n_ibs, 0);
	rig_free(r);
}

static void test_kinfo_read_probes_then_reads(void **state)
{
	struct rig *r = rig_new();

	(void)state;
	assert_int_equal(top_kinfo_read(fake_gso, &r->f, WIRE_INFO6_TCP_SOCKETS, &r->b),
			 WIRE_INFO6_TCP_SOCK_LEN);
	assert_int_equal(r->f.calls, 2);              /* probe, read */
	assert_int_equal(r->b.len, 2 * WIRE_INFO6_TCP_SOCK_LEN);
	/* the buffer is kept: the next read needs no probe */
	r->f.calls = 0;
	assert_int_equal(top_kinfo_read(fake_gso, &r->f, WIRE_INFO6_TCP_SOCKETS, &r->b),
			 WIRE_INFO6_TCP_SOCK_LEN);
	assert_int_equal(r->f.calls, 1);
	/* an empty list answers the probe itself */
	r->f.calls = 0;
	assert_int_equal(top_kinfo_read(fake_gso, &r->f, WIRE_INFO6_RETRANS_MESSAGES, &r->b),
			 WIRE_INFO6_MSG_LEN);
	assert_int_equal(r->b.len, 0);
	rig_free(r);
}

static void test_kinfo_read_retries_a_growing_list(void **state)
{
	struct rig *r = rig_new();

	(void)state;
	/* grows by one item on every call: the probe's answer is stale by
	 * the read, and the room the loop leaves absorbs the growth */
	r->f.grow_opt = WIRE_INFO6_SEND_MESSAGES;
	r->f.grow_calls = 5;
	assert_int_equal(top_kinfo_read(fake_gso, &r->f, WIRE_INFO6_SEND_MESSAGES, &r->b),
			 WIRE_INFO6_MSG_LEN);
	assert_int_equal(r->f.calls, 2);
	assert_int_equal(r->b.len, find(&r->f, WIRE_INFO6_SEND_MESSAGES)->n * WIRE_INFO6_MSG_LEN);
	assert_int_equal(r->b.len, 3 * WIRE_INFO6_MSG_LEN);
	top_kinfo_buf_fini(&r->b);

	/* a list that always needs more than it is given: give up after
	 * TOP_KINFO_TRIES, and never ask for more than TOP_KINFO_MAX */
	kernel_with_a_connection(&r->f);
	r->f.claim = 4096;
	assert_int_equal(top_kinfo_read(fake_gso, &r->f, WIRE_INFO_COUNTERS, &r->b), -EAGAIN);
	assert_int_equal(r->f.calls, TOP_KINFO_TRIES);
	r->f.claim = (size_t)TOP_KINFO_MAX + 1;
	assert_int_equal(top_kinfo_read(fake_gso, &r->f, WIRE_INFO_COUNTERS, &r->b), -E2BIG);
	rig_free(r);
}

static void test_kinfo_errors(void **state)
{
	struct rig *r = rig_new();

	(void)state;
	/* an item size other than libwire's: refused, not misread */
	r->f.item_size_bias = 1;
	assert_int_equal(top_kinfo_snapshot(fake_gso, &r->f, &r->b, &r->s, &r->failed), -EPROTO);
	assert_int_equal(r->failed, WIRE_INFO_COUNTERS);
	top_snap_fini(&r->s);

	/* a list the module does not register is an error when asked alone */
	assert_int_equal(top_kinfo_read(fake_gso, &r->f, WIRE_INFO6_IB_CONNECTIONS, &r->b),
			 -ENOPROTOOPT);
	/* a number libwire has no layout for is not asked at all */
	r->f.calls = 0;
	assert_int_equal(top_kinfo_read(fake_gso, &r->f, 10002, &r->b), -EINVAL);
	assert_int_equal(r->f.calls, 0);

	/* bytes that are not whole items */
	top_snap_init(&r->s);
	assert_int_equal(top_kinfo_fill(&r->s, WIRE_INFO6_SOCKETS, r->b.p, 0), 0);
	{
		uint8_t bytes[WIRE_INFO6_SOCK_LEN + 1] = { 0 };

		assert_int_equal(top_kinfo_fill(&r->s, WIRE_INFO6_SOCKETS, bytes, sizeof(bytes)),
				 -EPROTO);
		assert_int_equal(top_kinfo_fill(&r->s, WIRE_INFO6_SOCKETS, bytes,
						WIRE_INFO6_SOCK_LEN), 1);
		assert_int_equal(top_kinfo_fill(&r->s, 10009, bytes, 0), -EINVAL);
	}
	rig_free(r);
}

static void test_kinfo_ib_rows(void **state)
{
	static const struct wire_info_item it = {
		.opt = WIRE_INFO6_IB_CONNECTIONS,
		.u.rdma_conn = { .src_addr = A1, .dst_addr = A2, .max_send_wr = 256 },
	};
	struct rig *r = rig_new();

	(void)state;
	add(&r->f, &it);
	assert_int_equal(top_kinfo_snapshot(fake_gso, &r->f, &r->b, &r->s, NULL), 0);
	assert_int_equal(r->s.n_ibs, 1);
	assert_int_equal(r->s.ibs[0].conn, 0);
	assert_int_equal(r->s.ibs[0].r.max_send_wr, 256);
	rig_free(r);
}

/* The kernel's time line: runs of the local map that changed since the
 * last snapshot, the monitor socket's groups as a peer-side event, the
 * oldest dropped past TOP_KINFO_EVENTS. */
static void test_kinfo_news(void **state)
{
	struct top_kinfo_news *nw = calloc(1, sizeof(*nw));
	struct wire_cong_map prev;
	struct top_snap s;

	(void)state;
	assert_non_null(nw);
	top_snap_init(&s);
	s.now_ns = 1000;
	s.local_cong = calloc(1, sizeof(*s.local_cong));
	assert_non_null(s.local_cong);
	wire_cong_set(s.local_cong, 4000);
	wire_cong_set(s.local_cong, 4001);
	assert_int_equal(top_kinfo_news(nw, NULL, &s), 0);
	assert_int_equal(s.n_events, 1);
	assert_int_equal(s.events[0].first, 4000);
	assert_int_equal(s.events[0].last, 4001);
	assert_true(s.events[0].congested);
	assert_false(s.events[0].from_peer);
	assert_true(s.events[0].conn == SIZE_MAX);
	top_snap_fini(&s);

	/* 4001 free again; the monitor heard of group 33 (port 4001 % 64) */
	wire_cong_clear_all(&prev);
	wire_cong_set(&prev, 4000);
	wire_cong_set(&prev, 4001);
	top_snap_init(&s);
	s.now_ns = 2000;
	s.local_cong = calloc(1, sizeof(*s.local_cong));
	assert_non_null(s.local_cong);
	wire_cong_set(s.local_cong, 4000);
	s.has_cong_mask = true;
	s.cong_mask = UINT64_C(1) << 33;
	assert_int_equal(top_kinfo_news(nw, &prev, &s), 0);
	assert_int_equal(s.n_events, 3);
	assert_int_equal(s.events[1].first, 4001);
	assert_false(s.events[1].congested);
	assert_int_equal(s.events[1].t_ns, 2000);
	assert_true(s.events[2].from_peer);
	assert_true(s.events[2].groups == UINT64_C(1) << 33);
	top_snap_fini(&s);

	/* nothing changed: the same time line, no new event */
	top_snap_init(&s);
	s.now_ns = 3000;
	s.has_cong_mask = true;
	for (unsigned i = 0; i < TOP_KINFO_EVENTS; i++) {
		s.cong_mask = 1;
		assert_int_equal(top_kinfo_news(nw, NULL, &s), 0);
		free(s.events);
		s.events = NULL;
		s.n_events = s.cap_events = 0;
	}
	s.cong_mask = 0;
	assert_int_equal(top_kinfo_news(nw, NULL, &s), 0);
	assert_int_equal(s.n_events, TOP_KINFO_EVENTS);
	assert_int_equal(s.events_lost, 3);
	assert_true(s.events[0].groups == 1);
	top_snap_fini(&s);
	free(nw);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_kinfo_snapshot_of_a_connection),
	cmocka_unit_test(test_kinfo_read_probes_then_reads),
	cmocka_unit_test(test_kinfo_read_retries_a_growing_list),
	cmocka_unit_test(test_kinfo_errors),
	cmocka_unit_test(test_kinfo_ib_rows),
	cmocka_unit_test(test_kinfo_news))
