// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_ibres.c - rdstop's RDMA netlink view (ibres.c): dump answers taken
 * into the snapshot, the join of an RDS IB connection to its QP (one rds_rdma
 * rdma_cm ID: its QP; none; several: unknown), and what the text, JSON and
 * metrics renderers make of it. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ibres.h"
#include "nlbld.h"
#include "prom.h"
#include "render.h"
#include "top.h"

static bool host_le(void)
{
	const uint16_t one = 1;

	return *(const uint8_t *)&one == 1;
}

static void v4(uint8_t a[16], uint8_t last)
{
	memset(a, 0, 16);
	a[10] = a[11] = 0xff;
	a[12] = 10;
	a[13] = 199;
	a[15] = last;
}

/* A kernel snapshot of 10.199.0.2 with one RDS IB connection to .3. */
static void snap(struct top_snap *s)
{
	struct top_conn *c;
	struct top_ib *b;

	top_snap_init(s);
	s->source = "kernel";
	c = top_snap_add_conn(s);
	assert_non_null(c);
	v4(c->laddr, 2);
	v4(c->faddr, 3);
	strcpy(c->transport, "infiniband");
	c->flags = WIRE_INFO_CONN_CONNECTED;
	b = top_snap_add_ib(s);
	assert_non_null(b);
	v4(b->r.src_addr, 2);
	v4(b->r.dst_addr, 3);
	top_snap_link(s);
}

/* |x|'s message, then NLMSG_DONE, as one datagram for dump |seq|. */
static int take(struct top_ibres *r, struct top_snap *s, struct bld *x, uint32_t seq)
{
	uint32_t done[5] = { 20, 3 | 2 << 16, seq, 1, 0 };
	uint8_t dg[4096];
	size_t n = bld_end(x);

	memcpy(x->b + 8, &seq, 4);
	memcpy(dg, x->b, n);
	memcpy(dg + n, done, sizeof(done));
	r->seq = seq;
	return top_ibres_take(r, s, dg, n + sizeof(done));
}

/* The four dumps rdstop sends, answered for rxe0 port 1 (ACTIVE): RC QP 17
 * (RTS, remote 18) and a GSI QP; rds_rdma's cm IDs: a listener, 17 for
 * 10.199.0.2 -> .3, and |extra| more for the same pair (QPs 19, 20, ...);
 * one rdma_ucm ID of a process for the same pair, which is not RDS's. */
static void answer(struct top_ibres *r, struct top_snap *s, int extra)
{
	struct bld x;

	bld_hdr(&x, WIRE_NLDEV_CMD_RES_GET, 0);
	bld_dev(&x, 1, "rxe0");
	nest_open(&x, WIRE_NLDEV_ATTR_RES_SUMMARY);
	nest_open(&x, WIRE_NLDEV_ATTR_RES_SUMMARY_ENTRY);
	bld_str(&x, WIRE_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME, "mr");
	bld_u64(&x, WIRE_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR, 7);
	nest_close(&x);
	nest_open(&x, WIRE_NLDEV_ATTR_RES_SUMMARY_ENTRY);
	bld_str(&x, WIRE_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME, "cq");
	bld_u64(&x, WIRE_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR, 5);
	nest_close(&x);
	nest_close(&x);
	assert_int_equal(take(r, s, &x, 1), 1);
	assert_int_equal(s->n_ibdevs, 1);

	bld_hdr(&x, WIRE_NLDEV_CMD_PORT_GET, 0);
	bld_dev(&x, 1, "rxe0");
	bld_u32(&x, WIRE_NLDEV_ATTR_PORT_INDEX, 1);
	bld_u8(&x, WIRE_NLDEV_ATTR_PORT_STATE, 4);
	bld_u8(&x, WIRE_NLDEV_ATTR_PORT_PHYS_STATE, 5);
	bld_str(&x, WIRE_NLDEV_ATTR_NDEV_NAME, "eth0");
	assert_int_equal(take(r, s, &x, 2), 1);

	bld_hdr(&x, WIRE_NLDEV_CMD_RES_QP_GET, 0);
	bld_dev(&x, 1, "rxe0");
	nest_open(&x, WIRE_NLDEV_ATTR_RES_QP);
	bld_qp(&x, &(struct bld_qp){ .port = 1, .lqpn = 1, .type = 1, .state = 3,
				     .kern = "ib_core" });
	bld_qp(&x, &(struct bld_qp){ .port = 1, .lqpn = 17, .rqpn = 18, .type = 2, .state = 3,
				     .kern = "rdma_cm" });
	nest_close(&x);
	assert_int_equal(take(r, s, &x, 3), 1);

	bld_hdr(&x, WIRE_NLDEV_CMD_RES_CM_ID_GET, 0);
	bld_dev(&x, 1, "rxe0");
	nest_open(&x, WIRE_NLDEV_ATTR_RES_CM_ID);
	bld_cm(&x, &(struct bld_cm){ .state = 8, .src = 2, .sport = 18635, .kern = "rds_rdma" });
	for (int i = 0; i <= extra; i++)
		bld_cm(&x, &(struct bld_cm){ .port = 1, .lqpn = 17 + 2 * (uint32_t)i, .state = 5,
					     .src = 2, .sport = 18635, .dst = 3, .dport = 40000,
					     .id = 3, .kern = "rds_rdma" });
	bld_cm(&x, &(struct bld_cm){ .port = 1, .lqpn = 30, .state = 5, .src = 2,
				     .sport = 7000, .dst = 3, .dport = 7001, .id = 9,
				     .kern = "rdma_ucm" });
	nest_close(&x);
	assert_int_equal(take(r, s, &x, 4), 1);
}

enum { R_PROM, R_JSON, R_TEXT };

/* Whether |s| rendered by the exporter, --json or -b (|how|) holds |want|. */
static bool shows(const struct top_snap *s, int how, const char *want)
{
	struct prom_self self = { .version = "1", .up = true, .top = 100 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct out *o;
	bool found;

	assert_non_null(f);
	if (how == R_PROM) {
		prom_write(f, s, &self, PROM_FMT_TEXT);
	} else if (how == R_JSON) {
		top_print_json(f, s, NULL);
	} else {
		o = out_new(f, OUT_TEXT, 0, 0);
		assert_non_null(o);
		top_print_text(o, s, NULL);
		out_free(o);
	}
	fclose(f);
	found = strstr(buf, want) != NULL;
	free(buf);
	return found;
}

/* What a rendering of a snapshot must hold (or, |absent|, must not). */
struct shown {
	int how;
	bool absent;
	const char *want;
};

static void expect_shown(const struct top_snap *s, const struct shown *e, size_t n)
{
	static const char *const names[] = { "exporter", "--json", "-b" };

	for (size_t i = 0; i < n; i++)
		if (shows(s, e[i].how, e[i].want) == e[i].absent)
			fail_msg("%s %s: %s", names[e[i].how], e[i].absent ? "shows" : "lacks",
				 e[i].want);
}

#define EXPECT_SHOWN(s, e) expect_shown(s, e, sizeof(e) / sizeof((e)[0]))

/* The snapshot joined to answer(..., |extra|). */
static void joined(struct top_snap *s, int extra)
{
	struct top_ibres r;

	snap(s);
	top_ibres_init(&r);
	answer(&r, s, extra);
	top_ibres_join(&r, s);
	top_ibres_fini(&r);
}

static void test_ibres_join_one(void **state)
{
	static const struct shown one[] = {
		{ R_PROM, false, "\nafrds_ib_qp_state{local=\"10.199.0.2\",peer=\"10.199.0.3\","
				 "tos=\"0\",device=\"rxe0\",port=\"1\",qpn=\"17\"} 3\n" },
		{ R_PROM, false, "\nafrds_ib_port_state{device=\"rxe0\",port=\"1\"} 4\n" },
		{ R_PROM, false, "\nafrds_ib_device_resources{device=\"rxe0\",kind=\"mr\"} 7\n" },
		{ R_PROM, false, "\nafrds_ib_qp_unknown 0\n" },
		{ R_JSON, false, "\"join\":\"ok\",\"device\":\"rxe0\",\"port\":1,"
				 "\"port_state\":\"ACTIVE\",\"qpn\":17,\"qp_state\":\"RTS\","
				 "\"rqpn\":18}" },
		{ R_JSON, false, "\"rdma_devices\":[{\"name\":\"rxe0\",\"index\":1,\"qps\":0,"
				 "\"cqs\":5,\"mrs\":7," },
		{ R_TEXT, false, "      17 RTS     rxe0/1 ACTIVE\n" },
	};
	struct top_snap s;
	struct top_ib *b;

	(void)state;
	if (!host_le())
		skip();
	joined(&s, 0);
	b = &s.ibs[0];
	assert_true(s.has_rdma);
	assert_int_equal(b->join, TOP_IBJ_OK);
	assert_int_equal(b->qpn, 17);
	assert_true(b->has_qp);
	assert_int_equal(b->qp_state, 3);
	assert_true(b->has_rqpn);
	assert_int_equal(b->rqpn, 18);
	assert_int_equal(b->port, 1);
	assert_true(b->has_port_state);
	assert_int_equal(b->port_state, 4);
	assert_int_equal(b->dev, 0);
	assert_string_equal(top_ib_qp_str(b), "RTS");
	assert_int_equal(s.ibdevs[0].mrs, 7);
	assert_int_equal(s.ibdevs[0].cqs, 5);
	assert_string_equal(s.ibdevs[0].ports[0].ndev, "eth0");

	EXPECT_SHOWN(&s, one);
	top_snap_fini(&s);
}

/* Two rds_rdma IDs with QPs for one address pair (two TOS, or an old and a
 * new one during a reconnect): unknown, never one of them. */
static void test_ibres_join_ambiguous(void **state)
{
	static const struct shown ambiguous[] = {
		{ R_PROM, true, "afrds_ib_qp_state{" },
		{ R_PROM, false, "\nafrds_ib_qp_unknown 1\n" },
		{ R_JSON, false, "\"join\":\"ambiguous\",\"device\":null,\"port\":null,"
				 "\"port_state\":null,\"qpn\":null,\"qp_state\":null" },
		{ R_TEXT, false, " unknown unknown -\n" },
	};
	struct top_snap s;

	(void)state;
	if (!host_le())
		skip();
	joined(&s, 1);
	assert_int_equal(s.ibs[0].join, TOP_IBJ_AMBIG);
	assert_string_equal(top_ib_qp_str(&s.ibs[0]), "unknown");
	EXPECT_SHOWN(&s, ambiguous);
	top_snap_fini(&s);
}

/* No RDMA netlink view at all: nothing is said of QPs. */
static void test_ibres_no_view(void **state)
{
	static const struct shown no_view[] = {
		{ R_PROM, true, "afrds_ib_qp_unknown" },
		{ R_PROM, true, "afrds_ib_port_state" },
		{ R_JSON, false, "\"join\":\"no_view\"" },
		{ R_JSON, false, "\"rdma_devices\":null" },
	};
	struct top_snap s;

	(void)state;
	snap(&s);
	EXPECT_SHOWN(&s, no_view);
	top_snap_fini(&s);
}

/* The answers' edges: another dump's sequence is skipped, an NLMSG_ERROR
 * is its errno, bytes libwire refuses are -EPROTO, and a process's
 * rdma_cm ID for the pair (rdma_ucm) is not RDS's. */
static void test_ibres_take_edges(void **state)
{
	struct top_ibres r;
	struct top_snap s;
	struct bld x;
	uint32_t err[9] = { 36, 2, 5, 1, (uint32_t)-EINVAL, 16, 0, 5, 0 };
	uint16_t bad = 2;

	(void)state;
	if (!host_le())
		skip();
	snap(&s);
	top_ibres_init(&r);
	r.seq = 5;
	assert_int_equal(top_ibres_take(&r, &s, (const uint8_t *)err, sizeof(err)), -EINVAL);
	bld_hdr(&x, WIRE_NLDEV_CMD_RES_GET, 4);
	bld_dev(&x, 1, "rxe0");
	bld_end(&x);
	assert_int_equal(top_ibres_take(&r, &s, x.b, x.n), 0);
	assert_int_equal(s.n_ibdevs, 0);
	memcpy(x.b + 16, &bad, 2);
	r.seq = 4;
	assert_int_equal(top_ibres_take(&r, &s, x.b, x.n), -EPROTO);

	/* only the rdma_ucm ID: no QP for the connection */
	bld_hdr(&x, WIRE_NLDEV_CMD_RES_CM_ID_GET, 0);
	bld_dev(&x, 1, "rxe0");
	nest_open(&x, WIRE_NLDEV_ATTR_RES_CM_ID);
	bld_cm(&x, &(struct bld_cm){ .port = 1, .lqpn = 30, .state = 5, .src = 2, .sport = 1,
				     .dst = 3, .dport = 2, .kern = "rdma_ucm" });
	nest_close(&x);
	assert_int_equal(take(&r, &s, &x, 6), 1);
	top_ibres_join(&r, &s);
	assert_int_equal(s.ibs[0].join, TOP_IBJ_NOQP);
	assert_string_equal(top_ib_qp_str(&s.ibs[0]), "-");
	top_ibres_fini(&r);
	top_snap_fini(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ibres_join_one),
		cmocka_unit_test(test_ibres_join_ambiguous),
		cmocka_unit_test(test_ibres_no_view),
		cmocka_unit_test(test_ibres_take_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
