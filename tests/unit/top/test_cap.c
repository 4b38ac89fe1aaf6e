// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_cap.c - rdstop's capture model: real captures through rdsdump's
 * engine into snapshots, partly and to the end, and the bounded time line. */
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
#include <pcap/pcap.h>

#include "cap.h"
#include "pcaplink.h"
#include "top.h"

#define SEC 1000000000ll

/* Feed |name| of kernel 7.2 into |c| up to |until_ns| after its first
 * packet (-1: all of it, then finish). */
static void feed(struct top_cap *c, const char *name, int64_t until_ns)
{
	char path[512], errbuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	int64_t t0 = -1;
	uint64_t frame = 0;
	pcap_t *pc;
	int lt;

	snprintf(path, sizeof(path), "%s/pcaps/captured/7.2/%s.pcap", RDS_SOURCE_DIR, name);
	pc = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	assert_non_null(pc);
	lt = dump_linktype(pcap_datalink(pc));
	while (pcap_next_ex(pc, &h, &data) == 1) {
		int64_t t = (int64_t)h->ts.tv_sec * SEC + h->ts.tv_usec;
		struct dump_pkthdr ph = dump_pkthdr_of(h, ++frame, lt);

		if (t0 < 0)
			t0 = t;
		if (until_ns >= 0 && t - t0 > until_ns)
			break;
		top_cap_packet(c, &ph, data, (uint64_t)(t - t0));
	}
	if (until_ns < 0)
		top_cap_finish(c, 0);
	pcap_close(pc);
}

static size_t events_of(const struct top_snap *s, bool from_peer, bool congested,
			uint16_t port)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n_events; i++)
		if (s->events[i].from_peer == from_peer && s->events[i].congested == congested &&
		    s->events[i].first <= port && s->events[i].last >= port)
			n++;
	return n;
}

/* The model under test and the snapshot it fills. */
struct rig {
	struct top_cap *c;
	struct top_snap s;
};

static struct rig *rig_new(void)
{
	struct rig *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	assert_int_equal(top_cap_new(&r->c), 0);
	top_snap_init(&r->s);
	return r;
}

static void rig_free(struct rig *r)
{
	top_snap_fini(&r->s);
	top_cap_free(r->c);
	free(r);
}

/* The snapshot of what the model has taken in so far. */
static struct top_snap *fill(struct rig *r)
{
	assert_int_equal(top_cap_fill(r->c, &r->s), 0);
	return &r->s;
}

static void test_congestion_whole(void **state)
{
	struct rig *r = rig_new();
	struct top_snap *s;
	const struct top_counter *k;
	uint64_t tx = 0;

	(void)state;
	feed(r->c, "tcp_congestion", -1);
	s = fill(r);
	assert_int_equal(s->n_conns, 1);
	assert_string_equal(s->conns[0].transport, "tcp");
	assert_int_equal(s->conns[0].npaths, 8);
	assert_true(s->conns[0].has_wire);
	assert_true(s->no_sockets);
	/* the smaller address (10.199.0.2) congested 4000, the larger 5000,
	 * and both freed them again */
	assert_int_equal(s->n_events, 4);
	assert_int_equal(events_of(s, false, true, 4000), 1);
	assert_int_equal(events_of(s, false, false, 4000), 1);
	assert_int_equal(events_of(s, true, true, 5000), 1);
	assert_int_equal(events_of(s, true, false, 5000), 1);
	assert_non_null(s->conns[0].lcl_cong);
	assert_non_null(s->conns[0].peer_cong);
	assert_int_equal(wire_cong_count(s->conns[0].lcl_cong), 0);
	assert_int_equal(wire_cong_count(s->conns[0].peer_cong), 0);
	/* path rows add up to the connection */
	for (size_t i = 0; i < s->n_paths; i++) {
		assert_int_equal(s->paths[i].conn, 0);
		tx += s->paths[i].tx_msgs;
	}
	assert_int_equal(tx, s->conns[0].tx_msgs);
	k = top_snap_counter(s, "msgs");
	assert_non_null(k);
	assert_int_equal(k->value, s->conns[0].tx_msgs + s->conns[0].rx_msgs);
	rig_free(r);
}

static void test_congestion_part(void **state)
{
	struct rig *r = rig_new();
	struct top_snap *s;

	(void)state;
	feed(r->c, "tcp_congestion", 2 * SEC);
	s = fill(r);
	assert_int_equal(s->n_events, 1);
	assert_int_equal(events_of(s, false, true, 4000), 1);
	assert_true(s->events[0].t_ns > 0 && s->events[0].t_ns <= 2 * SEC);
	assert_non_null(s->conns[0].lcl_cong);
	assert_true(wire_cong_test(s->conns[0].lcl_cong, 4000));
	assert_int_equal(wire_cong_count(s->conns[0].lcl_cong), 1);
	rig_free(r);
}

static void test_reconnect_counts(void **state)
{
	struct rig *r = rig_new();
	struct top_snap *s;

	(void)state;
	feed(r->c, "tcp_reconnect", -1);
	s = fill(r);
	assert_int_equal(s->n_conns, 1);
	assert_true(s->conns[0].reconnects > 0);
	assert_true(s->conns[0].retrans > 0);
	assert_true(s->conns[0].dups > 0);
	rig_free(r);
}

static void test_ring_bound(void **state)
{
	struct rig *r = rig_new();
	struct top_snap *s;

	(void)state;
	for (unsigned i = 0; i < TOP_CAP_EVENTS + 10; i++) {
		struct top_cong_event ev = { .t_ns = i, .first = (uint16_t)i, .last = (uint16_t)i };

		top_cap_add_event(r->c, &ev);
	}
	s = fill(r);
	assert_int_equal(s->n_events, TOP_CAP_EVENTS);
	assert_int_equal(s->events_lost, 10);
	/* oldest first, the first ten gone */
	assert_int_equal(s->events[0].t_ns, 10);
	assert_int_equal(s->events[TOP_CAP_EVENTS - 1].t_ns, TOP_CAP_EVENTS + 9);
	rig_free(r);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_congestion_whole),
	cmocka_unit_test(test_congestion_part),
	cmocka_unit_test(test_reconnect_counts),
	cmocka_unit_test(test_ring_bound))
