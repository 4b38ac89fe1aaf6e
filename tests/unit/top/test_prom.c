// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_prom.c - rdstop's metrics writer (prom.c): the top connections and
 * the "other" sum, congestion by port group, names, HELP, OpenMetrics. */
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

#include "prom.h"
#include "top.h"

static void v4(uint8_t a[16], uint8_t last)
{
	memset(a, 0, 16);
	a[10] = a[11] = 0xff;
	a[12] = 10;
	a[15] = last;
}

static struct top_conn *conn(struct top_snap *s, uint8_t f, uint64_t tx, uint64_t rx)
{
	struct top_conn *c = top_snap_add_conn(s);

	assert_non_null(c);
	v4(c->laddr, 1);
	v4(c->faddr, f);
	strcpy(c->transport, "tcp");
	c->flags = WIRE_INFO_CONN_CONNECTED;
	c->seq_sum = true;
	c->tx_seq_sum = tx;
	c->rx_seq_sum = rx;
	c->has_reconnects = true;
	return c;
}

static char *render(const struct top_snap *s, unsigned top, enum prom_fmt fmt)
{
	struct prom_self self = { .version = "9.9", .kernel = "k\"1", .up = true, .top = top,
				  .snapshots = 3 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	prom_write(f, s, &self, fmt);
	fclose(f);
	return buf;
}

/* The value of the sample line that starts with |head| (name and labels). */
static double sample(const char *text, const char *head)
{
	const char *p = text;
	size_t l = strlen(head);

	while ((p = strstr(p, head))) {
		if ((p == text || p[-1] == '\n') && p[l] == ' ')
			return strtod(p + l + 1, NULL);
		p += l;
	}
	return -1;
}

static void snap3(struct top_snap *s)
{
	struct top_counter *k;

	top_snap_init(s);
	s->source = "librds";
	s->queue_totals = true;        /* as the librds source gives them */
	conn(s, 2, 100, 50)->reconnects = 1;
	conn(s, 3, 5, 5)->reconnects = 2;
	conn(s, 4, 7, 1)->reconnects = 4;
	s->conns[2].sendq_msgs = 9;
	strcpy(s->conns[2].transport, "t\xff\x01\\");
	k = top_snap_add_counter(s);
	strcpy(k->name, "recv_delivered");
	k->value = 40;
	k = top_snap_add_counter(s);
	strcpy(k->name, "connecting_peak");
	k->value = 2;
	k = top_snap_add_counter(s);
	strcpy(k->name, "new-thing");
	k->value = 1;
	top_snap_link(s);
}

/* A capture's connections count messages on the wire (has_wire): the
 * "other" row sums those too, not only the sequence-number sums. */
static void test_prom_other_from_a_capture(void **state)
{
	struct top_snap s;
	char *t;

	(void)state;
	top_snap_init(&s);
	s.source = "capture";
	for (uint8_t f = 2; f <= 4; f++) {
		struct top_conn *c = conn(&s, f, 0, 0);

		c->seq_sum = false;
		c->has_wire = true;
		c->tx_msgs = f == 2 ? 100 : f;
		c->rx_msgs = f == 2 ? 50 : 2 * f;
	}
	top_snap_link(&s);
	t = render(&s, 1, PROM_FMT_TEXT);
	assert_true(sample(t, "afrds_connection_sent_messages_total{local=\"10.0.0.1\","
			      "peer=\"10.0.0.2\",transport=\"tcp\",tos=\"0\"}") == 100);
	assert_true(sample(t, "afrds_connection_sent_messages_total{local=\"other\","
			      "peer=\"other\",transport=\"other\",tos=\"other\"}") == 7);
	assert_true(sample(t, "afrds_connection_received_messages_total{local=\"other\","
			      "peer=\"other\",transport=\"other\",tos=\"other\"}") == 14);
	free(t);
	top_snap_fini(&s);
}

static void test_prom_top_and_other(void **state)
{
	struct top_snap s;
	char *t;

	(void)state;
	snap3(&s);
	t = render(&s, 1, PROM_FMT_TEXT);
	/* the busiest connection has series of its own */
	assert_true(sample(t, "afrds_connection_sent_messages_total{local=\"10.0.0.1\","
			      "peer=\"10.0.0.2\",transport=\"tcp\",tos=\"0\"}") == 100);
	/* the other two are summed */
	assert_true(sample(t, "afrds_connection_sent_messages_total{local=\"other\","
			      "peer=\"other\",transport=\"other\",tos=\"other\"}") == 12);
	assert_true(sample(t, "afrds_connection_reconnects_total{local=\"other\","
			      "peer=\"other\",transport=\"other\",tos=\"other\"}") == 6);
	assert_true(sample(t, "afrds_connection_send_queue_messages{local=\"other\","
			      "peer=\"other\",transport=\"other\",tos=\"other\"}") == 9);
	/* "other" has no up: a sum of states is not a state */
	assert_null(strstr(t, "afrds_connection_up{local=\"other\""));
	assert_null(strstr(t, "peer=\"10.0.0.3\""));
	assert_true(sample(t, "afrds_exporter_folded_connections") == 2);
	assert_true(sample(t, "afrds_connections{state=\"connected\"}") == 3);
	assert_true(sample(t, "afrds_send_queue_messages") == 9);
	/* counters: _total, HELP from the table; a level is a gauge; an
	 * unknown name made a valid metric name */
	assert_true(sample(t, "afrds_recv_delivered_total") == 40);
	assert_non_null(strstr(t, "# HELP afrds_recv_delivered_total Messages delivered"));
	assert_non_null(strstr(t, "# TYPE afrds_connecting_peak gauge\nafrds_connecting_peak 2\n"));
	assert_true(sample(t, "afrds_new_thing_total") == 1);
	/* label values escaped */
	assert_non_null(strstr(t, "kernel=\"k\\\"1\""));
	assert_true(sample(t, "afrds_up") == 1);
	free(t);

	/* top 10: all three of their own, no "other" */
	t = render(&s, 10, PROM_FMT_TEXT);
	assert_null(strstr(t, "{local=\"other\""));
	/* its transport's name escaped, the bytes that are not printable ASCII
	 * replaced */
	assert_true(sample(t, "afrds_connection_sent_messages_total{local=\"10.0.0.1\","
			      "peer=\"10.0.0.4\",transport=\"t??\\\\\",tos=\"0\"}") == 7);
	free(t);
	top_snap_fini(&s);
}

static void test_prom_groups(void **state)
{
	struct top_snap s;
	struct wire_cong_map *m = calloc(1, sizeof(*m)), *p = calloc(1, sizeof(*p));
	char *t;

	(void)state;
	assert_non_null(m);
	assert_non_null(p);
	top_snap_init(&s);
	s.source = "librds";
	wire_cong_set(m, 4000);        /* group 32 */
	wire_cong_set(m, 4064);        /* group 32 */
	wire_cong_set(m, 8);           /* group 8 */
	wire_cong_set(p, 65535);       /* group 63 */
	s.local_cong = m;
	conn(&s, 2, 1, 1)->peer_cong = p;
	t = render(&s, 5, PROM_FMT_TEXT);
	assert_true(sample(t, "afrds_local_congested_ports{group=\"32\"}") == 2);
	assert_true(sample(t, "afrds_local_congested_ports{group=\"8\"}") == 1);
	assert_true(sample(t, "afrds_local_congested_ports{group=\"0\"}") == 0);
	assert_true(sample(t, "afrds_peer_congested_ports{group=\"63\"}") == 1);
	assert_true(sample(t, "afrds_peer_congested_ports{group=\"32\"}") == 0);
	assert_true(sample(t, "afrds_connection_peer_congested_ports{local=\"10.0.0.1\","
			      "peer=\"10.0.0.2\",transport=\"tcp\",tos=\"0\"}") == 1);
	free(t);
	top_snap_fini(&s);        /* frees the maps */
}

static void test_prom_openmetrics(void **state)
{
	struct top_snap s;
	char *t;

	(void)state;
	snap3(&s);
	t = render(&s, 1, PROM_FMT_OPENMETRICS);
	/* families without _total, samples with it; info; # EOF last */
	assert_non_null(strstr(t, "# TYPE afrds_recv_delivered counter\n"));
	assert_true(sample(t, "afrds_recv_delivered_total") == 40);
	assert_non_null(strstr(t, "# TYPE afrds_build info\n"));
	assert_non_null(strstr(t, "afrds_build_info{version=\"9.9\",source=\"librds\""));
	assert_int_equal(strcmp(t + strlen(t) - 6, "# EOF\n"), 0);
	free(t);
	t = render(&s, 1, PROM_FMT_TEXT);
	assert_non_null(strstr(t, "# TYPE afrds_recv_delivered_total counter\n"));
	assert_non_null(strstr(t, "# TYPE afrds_build_info gauge\n"));
	assert_null(strstr(t, "# EOF"));
	free(t);
	top_snap_fini(&s);

	assert_int_equal(prom_accept_fmt(NULL), PROM_FMT_TEXT);
	assert_int_equal(prom_accept_fmt("text/plain;version=0.0.4;q=0.5,*/*;q=0.1"), PROM_FMT_TEXT);
	assert_int_equal(prom_accept_fmt("application/openmetrics-text;version=1.0.0,text/plain;q=0.5"),
			 PROM_FMT_OPENMETRICS);
}

static void test_prom_no_snapshot(void **state)
{
	char *t;

	(void)state;
	/* a failed snapshot: the exporter's own metrics only */
	t = render(NULL, 1, PROM_FMT_TEXT);
	assert_true(sample(t, "afrds_exporter_snapshots_total") == 3);
	assert_null(strstr(t, "afrds_connections"));
	assert_null(strstr(t, "afrds_sockets"));
	assert_non_null(strstr(t, "afrds_build_info{"));
	free(t);
}

/* Every counter the kernel's RDS_INFO_COUNTERS gives (6.x and 7.x, core,
 * TCP, IB) has its meaning in HELP. */
static void test_prom_kernel_counter_help(void **state)
{
	static const enum wire_info_ctrs sets[] = { WIRE_INFO_CTRS_CORE, WIRE_INFO_CTRS_TCP,
						    WIRE_INFO_CTRS_IB };
	size_t total = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		const char *const *names;
		size_t n = wire_info_counter_names(sets[i], WIRE_KVER_7, &names);

		for (size_t j = 0; j < n; j++) {
			bool gauge;

			if (!prom_counter_help(names[j], &gauge))
				fail_msg("no HELP for the kernel counter %s", names[j]);
		}
		total += n;
	}
	assert_true(total >= 80);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_prom_top_and_other),
	cmocka_unit_test(test_prom_other_from_a_capture),
	cmocka_unit_test(test_prom_groups),
	cmocka_unit_test(test_prom_openmetrics),
	cmocka_unit_test(test_prom_no_snapshot),
	cmocka_unit_test(test_prom_kernel_counter_help))
