// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_model.c - rdstop's snapshot model: linking lists and rates. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "cmain.h"

#include "render.h"
#include "top.h"

#define SEC 1000000000ull

static void v4(uint8_t a[16], uint8_t last)
{
	memset(a, 0, 16);
	a[10] = a[11] = 0xff;
	a[12] = 10;
	a[15] = last;
}

static struct top_conn *conn(struct top_snap *s, uint8_t l, uint8_t f, uint64_t tx,
			     uint64_t rx)
{
	struct top_conn *c = top_snap_add_conn(s);

	assert_non_null(c);
	v4(c->laddr, l);
	v4(c->faddr, f);
	strcpy(c->transport, "tcp");
	c->flags = WIRE_INFO_CONN_CONNECTED;
	c->next_tx_seq = tx;
	c->next_rx_seq = rx;
	return c;
}

static void counter(struct top_snap *s, const char *name, uint64_t v)
{
	struct top_counter *c = top_snap_add_counter(s);

	assert_non_null(c);
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->value = v;
}

static void msg(struct top_snap *s, enum top_queue q, uint8_t l, uint16_t lport, uint8_t f,
		uint32_t len)
{
	struct top_msg *m = top_snap_add_msg(s);

	assert_non_null(m);
	m->q = q;
	v4(m->laddr, l);
	v4(m->faddr, f);
	m->lport = lport;
	m->fport = 9;
	m->len = len;
}

static void test_model_link_paths_queues_sockets(void **state)
{
	struct top_snap s;
	struct top_sock *k;
	struct top_path *p;

	(void)state;
	top_snap_init(&s);
	conn(&s, 1, 2, 10, 20);
	conn(&s, 1, 3, 0, 0);
	k = top_snap_add_sock(&s);
	v4(k->bound_addr, 1);
	k->bound_port = 4000;
	for (int i = 0; i < 3; i++) {
		p = top_snap_add_path(&s);
		assert_int_equal(p->index, -1);
		v4(p->laddr, 1);
		v4(p->faddr, 2);
	}
	p = top_snap_add_path(&s);
	v4(p->laddr, 7);       /* no connection */
	v4(p->faddr, 8);

	msg(&s, TOP_Q_SEND, 1, 4000, 2, 100);
	msg(&s, TOP_Q_SEND, 1, 4000, 2, 50);
	msg(&s, TOP_Q_RETRANS, 1, 4000, 2, 100);
	msg(&s, TOP_Q_RECV, 1, 4000, 3, 7);
	msg(&s, TOP_Q_RECV, 1, 4001, 3, 1000);   /* another socket's */

	top_snap_link(&s);
	top_snap_link(&s);                       /* idempotent */
	assert_int_equal(s.conns[0].npaths, 3);
	assert_int_equal(s.conns[1].npaths, 0);
	assert_int_equal(s.paths[0].conn, 0);
	assert_int_equal(s.paths[3].conn, SIZE_MAX);
	assert_int_equal(s.conns[0].sendq_msgs, 2);
	assert_int_equal(s.conns[0].sendq_bytes, 150);
	assert_int_equal(s.conns[0].retransq_msgs, 1);
	assert_int_equal(s.conns[0].retransq_bytes, 100);
	assert_int_equal(s.conns[1].sendq_msgs, 0);
	assert_int_equal(s.socks[0].sendq_msgs, 2);
	assert_int_equal(s.socks[0].sendq_bytes, 150);
	assert_int_equal(s.socks[0].recvq_msgs, 1);
	assert_int_equal(s.socks[0].recvq_bytes, 7);
	top_snap_fini(&s);
	assert_int_equal(s.n_conns, 0);
	assert_null(s.conns);
}

static void test_model_source_path_count_kept(void **state)
{
	struct top_snap s;
	struct top_path *p;

	(void)state;
	top_snap_init(&s);
	conn(&s, 1, 2, 0, 0)->npaths = 8;
	p = top_snap_add_path(&s);
	v4(p->laddr, 1);
	v4(p->faddr, 2);
	top_snap_link(&s);
	assert_int_equal(s.conns[0].npaths, 8);
	top_snap_fini(&s);
}

/* Two empty snapshots, taken |sa| and |sb| seconds in. */
static void two_snaps(struct top_snap *a, struct top_snap *b, uint64_t sa, uint64_t sb)
{
	top_snap_init(a);
	top_snap_init(b);
	a->now_ns = sa * SEC;
	b->now_ns = sb * SEC;
}

static void test_model_rates(void **state)
{
	struct top_snap a, b;
	struct top_rates r;
	struct top_conn *c;

	(void)state;
	two_snaps(&a, &b, 5, 7);                  /* 2 s apart */
	counter(&a, "recv_delivered", 100);
	counter(&a, "send_queued", 10);
	counter(&a, "recv_bytes_added_to_sock", 1000);
	counter(&a, "conn_reset", 9);
	counter(&b, "recv_delivered", 140);
	counter(&b, "send_queued", 30);
	counter(&b, "recv_bytes_added_to_sock", 5096);
	counter(&b, "conn_reset", 2);             /* went backwards */
	counter(&b, "tcp_sndbuf_full", 4);        /* new */

	conn(&a, 1, 2, 100, 50);
	c = conn(&a, 1, 3, 10, 10);
	c->has_bytes = true;
	c->tx_bytes = 1000;
	c->rx_bytes = 0;
	conn(&a, 1, 4, 500, 500);

	conn(&b, 1, 4, 3, 3);                     /* reset: seqs went back */
	c = conn(&b, 1, 3, 30, 11);
	c->has_bytes = true;
	c->tx_bytes = 3000;
	c->rx_bytes = 4;
	conn(&b, 1, 2, 200, 50);
	conn(&b, 1, 5, 1, 1);                     /* new */
	conn(&b, 1, 2, 200, 50)->tos = 3;         /* another tos: another connection */

	assert_int_equal(top_rates_compute(&r, &a, &b), 0);
	assert_true(r.seconds == 2.0);
	assert_int_equal(r.n_counters, 5);
	assert_string_equal(r.counters[0].name, "recv_delivered");
	assert_int_equal(r.counters[0].delta, 40);
	assert_true(r.counters[0].per_sec == 20.0);
	assert_true(r.counters[3].reset);
	assert_true(r.counters[3].per_sec == 0.0);
	assert_int_equal(r.counters[4].delta, 0);  /* nothing to compare with */
	assert_false(r.counters[4].reset);
	assert_true(r.has_msgs);
	assert_true(r.msgs_in_per_sec == 20.0);
	assert_true(r.msgs_out_per_sec == 10.0);
	assert_true(r.has_bytes_in);
	assert_true(r.bytes_in_per_sec == 2048.0);

	assert_int_equal(r.n_conns, 5);
	assert_true(r.conns[0].known && r.conns[0].reset);
	assert_true(r.conns[1].known && !r.conns[1].reset);
	assert_true(r.conns[1].tx_msgs_per_sec == 10.0);
	assert_true(r.conns[1].rx_msgs_per_sec == 0.5);
	assert_true(r.conns[1].has_bytes);
	assert_true(r.conns[1].tx_bytes_per_sec == 1000.0);
	assert_true(r.conns[1].rx_bytes_per_sec == 2.0);
	assert_true(r.conns[2].known);
	assert_true(r.conns[2].tx_msgs_per_sec == 50.0);
	assert_true(r.conns[2].rx_msgs_per_sec == 0.0);
	assert_false(r.conns[2].has_bytes);
	assert_false(r.conns[3].known);
	assert_false(r.conns[4].known);
	top_rates_fini(&r);

	/* the first snapshot, or no time between two: nothing known */
	assert_int_equal(top_rates_compute(&r, NULL, &b), 0);
	assert_false(r.has_msgs);
	assert_false(r.conns[2].known);
	assert_true(r.counters[0].per_sec == 0.0);
	top_rates_fini(&r);
	b.now_ns = a.now_ns;
	assert_int_equal(top_rates_compute(&r, &a, &b), 0);
	assert_false(r.has_msgs);
	assert_false(r.conns[2].known);
	top_rates_fini(&r);

	top_snap_fini(&a);
	top_snap_fini(&b);
}

/* A capture's connection counts messages, not sequence numbers: its rates
 * come from the counts, and a count going backwards is a reset. */
static void test_model_rates_from_wire_counts(void **state)
{
	struct top_snap a, b;
	struct top_rates r;
	struct top_conn *c;

	(void)state;
	two_snaps(&a, &b, 1, 3);
	c = conn(&a, 1, 2, 0, 0);
	c->has_wire = true;
	c->tx_msgs = 10;
	c->rx_msgs = 4;
	c = conn(&b, 1, 2, 0, 0);
	c->has_wire = true;
	c->tx_msgs = 30;
	c->rx_msgs = 8;
	assert_int_equal(top_rates_compute(&r, &a, &b), 0);
	assert_true(r.conns[0].known);
	assert_false(r.conns[0].reset);
	assert_true(r.conns[0].tx_msgs_per_sec > 9.99 && r.conns[0].tx_msgs_per_sec < 10.01);
	assert_true(r.conns[0].rx_msgs_per_sec > 1.99 && r.conns[0].rx_msgs_per_sec < 2.01);
	top_rates_fini(&r);

	b.conns[0].tx_msgs = 5;
	assert_int_equal(top_rates_compute(&r, &a, &b), 0);
	assert_true(r.conns[0].reset);
	top_rates_fini(&r);
	top_snap_fini(&a);
	top_snap_fini(&b);
}

static void test_model_strings(void **state)
{
	uint8_t a[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	char buf[64];

	(void)state;
	assert_string_equal(top_addr_str(a, buf, sizeof(buf)), "2001:db8::1");
	v4(a, 9);
	assert_string_equal(top_addr_str(a, buf, sizeof(buf)), "10.0.0.9");
	assert_string_equal(top_conn_state(WIRE_INFO_CONN_CONNECTED, buf, sizeof(buf)),
			    "connected");
	assert_string_equal(top_conn_state(WIRE_INFO_CONN_CONNECTING | WIRE_INFO_CONN_SENDING,
					   buf, sizeof(buf)), "connecting+sending");
	assert_string_equal(top_conn_state(0, buf, sizeof(buf)), "down");
}

static void test_model_text_render(void **state)
{
	struct top_snap a, b;
	struct top_rates r;
	struct top_path *p;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	struct out *o;

	(void)state;
	two_snaps(&a, &b, 0, 1);
	a.source = b.source = "kernel";
	conn(&a, 1, 2, 10, 10);
	conn(&b, 1, 2, 12, 13);
	counter(&a, "recv_ping", 1);
	counter(&b, "recv_ping", 4);
	p = top_snap_add_path(&b);
	v4(p->laddr, 1);
	v4(p->faddr, 2);
	p->lport = 45950;
	p->fport = 16385;
	p->has_tcp = true;
	p->hdr_rem = 48;
	top_snap_link(&b);
	assert_int_equal(top_rates_compute(&r, &a, &b), 0);

	f = open_memstream(&text, &len);
	assert_non_null(f);
	o = out_new(f, OUT_TEXT, 0, 0);
	assert_non_null(o);
	top_print_text(o, &b, &r);
	out_free(o);
	fclose(f);
	assert_non_null(strstr(text, "rdstop - kernel - 1 connections, 1 paths"));
	assert_non_null(strstr(text, "10.0.0.1         10.0.0.2         tcp        connected"));
	assert_non_null(strstr(text, "path - 10.0.0.1:45950 -> 10.0.0.2:16385 hdr_rem 48"));
	assert_non_null(strstr(text, "     2.0      3.0"));   /* tx, rx msg/s */
	assert_non_null(strstr(text, "recv_ping"));
	assert_non_null(strstr(text, "         3.0\n"));      /* recv_ping per second */
	free(text);

	/* the first snapshot shows "-" for every rate */
	f = open_memstream(&text, &len);
	o = out_new(f, OUT_TEXT, 0, 0);
	assert_non_null(o);
	top_print_text(o, &b, NULL);
	out_free(o);
	fclose(f);
	assert_non_null(strstr(text, "messages/s in -, out -; bytes/s in -\n"));
	assert_null(strstr(text, "3.0"));
	free(text);

	top_rates_fini(&r);
	top_snap_fini(&a);
	top_snap_fini(&b);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_model_link_paths_queues_sockets),
	cmocka_unit_test(test_model_source_path_count_kept),
	cmocka_unit_test(test_model_rates),
	cmocka_unit_test(test_model_rates_from_wire_counts),
	cmocka_unit_test(test_model_strings),
	cmocka_unit_test(test_model_text_render))
