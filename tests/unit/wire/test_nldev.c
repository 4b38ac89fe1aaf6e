// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_nldev.c - RDMA netlink device dumps (nldev.c): messages built the
 * way drivers/infiniband/core/nldev.c builds them, bytes a 7.2 guest's
 * kernel answered over Soft-RoCE (tests/lab/rdstop_ib.py keeps them),
 * truncation at every offset, each malformation, the request. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <wire/wire.h>

#include "hex.h"
#include "nlbld.h"
#include "wtest.h"

static bool host_le(void)
{
	const uint16_t one = 1;

	return *(const uint8_t *)&one == 1;
}

#define NEED_LE() do { if (!host_le()) skip(); } while (0)

/* RES_GET's answer for one device (fill_nldev_handle, fill_res_info). */
static size_t res_msg(struct bld *x)
{
	static const char *const names[] = { "pd", "cq", "qp", "cm_id", "mr", "ctx", "srq" };
	static const uint64_t curr[] = { 3, 5, 4, 2, 7, 0, 0 };

	bld_hdr(x, WIRE_NLDEV_CMD_RES_GET, 9);
	bld_dev(x, 1, "rxe0");
	nest_open(x, WIRE_NLDEV_ATTR_RES_SUMMARY);
	for (size_t i = 0; i < WT_COUNT(names); i++) {
		nest_open(x, WIRE_NLDEV_ATTR_RES_SUMMARY_ENTRY);
		bld_str(x, WIRE_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME, names[i]);
		bld_u64(x, WIRE_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR, curr[i]);
		nest_close(x);
	}
	nest_close(x);
	return bld_end(x);
}

/* RES_QP_GET's answer: a GSI QP and an RDS RC QP in ERR (fill_res_qp_entry). */
static size_t qp_msg(struct bld *x)
{
	bld_hdr(x, WIRE_NLDEV_CMD_RES_QP_GET, 10);
	bld_dev(x, 1, "rxe0");
	nest_open(x, WIRE_NLDEV_ATTR_RES_QP);
	bld_qp(x, &(struct bld_qp){ .port = 1, .lqpn = 1, .type = 1, .state = 3,
				    .kern = "ib_core" });
	bld_qp(x, &(struct bld_qp){ .port = 1, .lqpn = 17, .rqpn = 18, .type = 2, .state = 6,
				    .kern = "rdma_cm" });
	nest_close(x);
	return bld_end(x);
}

/* RES_CM_ID_GET's answer: RDS's listener (no QP) and a connection. */
static size_t cm_msg(struct bld *x)
{
	bld_hdr(x, WIRE_NLDEV_CMD_RES_CM_ID_GET, 11);
	bld_dev(x, 1, "rxe0");
	nest_open(x, WIRE_NLDEV_ATTR_RES_CM_ID);
	bld_cm(x, &(struct bld_cm){ .state = 8, .src = 2, .sport = 18635, .id = 0,
				    .kern = "rds_rdma" });
	bld_cm(x, &(struct bld_cm){ .port = 1, .lqpn = 17, .state = 5, .src = 2,
				    .sport = 18635, .dst = 3, .dport = 40000, .id = 3,
				    .kern = "rds_rdma" });
	nest_close(x);
	return bld_end(x);
}

/* Captured on a 7.2 guest (tests/lab/rdstop_ib.py, nl-*.hex) with one RDS IB
 * connection 10.199.0.2 <-> .3 over rxe0: the first datagram of each dump. */
static const char cap72_res[] =
	"d400000009140200010000009600000008000100000000000900020072786530"
	"00000000b0000f001800100007001100706400000c0012000200000000000000"
	"1800100007001100637100000c00120003000000000000001800100007001100"
	"717000000c00120002000000000000001c0010000a001100636d5f6964000000"
	"0c001200030000000000000018001000070011006d7200000c00120000000000"
	"000000001800100008001100637478000c001200000000000000000018001000"
	"08001100737271000c0012000000000000000000";

static const char cap72_port[] =
	"5000000005140200010000009600000008000100000000000900020072786530"
	"00000000080003000100000005000c000400000005000d000500000008003200"
	"02000000090033006574683000000000";

static const char cap72_qp[] =
	"b00000000a140200010000009600000008000100000000000900020072786530"
	"000000008c00130050001400080003000100000008001500110000000c001d00"
	"72646d615f636d0008001600110000000800170097ef1f0008001800c5e75b00"
	"050019000000000005001a000200000005001b00030000003800140008000300"
	"0100000008001500010000000c001d0069625f636f7265000800180001000000"
	"05001a000100000005001b0003000000";

static const char cap72_cm_id[] =
	"d40200000b140200010000009600000008000100000000000900020072786530"
	"00000000b0021e00b0001f00080020000601000005001b000800000084002100"
	"020048ca00000000000000000000000000000000000000000000000000000000"
	"0000000000000000000000000000000000000000000000000000000000000000"
	"0000000000000000000000000000000000000000000000000000000000000000"
	"0000000000000000000000000000000000000000000000000000000000000000"
	"08003f00000000000d001d007264735f72646d6100000000b0001f0008002000"
	"0601000005001b0008000000840021000a004001000000000000000000000000"
	"0000000000000000000000000000000000000000000000000000000000000000"
	"0000000000000000000000000000000000000000000000000000000000000000"
	"0000000000000000000000000000000000000000000000000000000000000000"
	"0000000000000000000000000000000008003f00010000000d001d007264735f"
	"72646d61000000004c011f000800030001000000080015001100000005001a00"
	"02000000080020000601000005001b000500000084002100020048ca0ac70002"
	"0000000000000000000000000000000000000000000000000000000000000000"
	"0000000000000000000000000000000000000000000000000000000000000000"
	"0000000000000000000000000000000000000000000000000000000000000000"
	"000000000000000000000000000000000000000000000000840022000200e720"
	"0ac7000300000000000000000000000000000000000000000000000000000000"
	"0000000000000000000000000000000000000000000000000000000000000000"
	"0000000000000000000000000000000000000000000000000000000000000000"
	"0000000000000000000000000000000000000000000000000000000008003f00"
	"030000000d001d007264735f72646d6100000000";

/* Decode from an exact-size heap copy, so ASan sees any read past |n|. */
static ssize_t decode_exact(struct wire_nldev *m, const uint8_t *b, size_t n, uint8_t **copy)
{
	*copy = malloc(n ? n : 1);
	assert_non_null(*copy);
	memcpy(*copy, b, n);
	return wire_nldev_decode(m, *copy, n);
}

/* The next entry of |m|'s table (in |b|, from *pos) is RDS's connection:
 * the rdma_cm ID 10.199.0.2 port |sport| to 10.199.0.3 port |dport| on QP
 * 17, ESTABLISHED (5), owned by rds_rdma. */
static void expect_conn_id(const struct wire_nldev *m, const uint8_t *b, size_t *pos,
			   uint16_t sport, uint16_t dport, struct wire_nldev_entry *e)
{
	static const uint8_t a2[16] = { [10] = 0xff, [11] = 0xff, 10, 199, 0, 2 };
	static const uint8_t a3[16] = { [10] = 0xff, [11] = 0xff, 10, 199, 0, 3 };

	assert_int_equal(wire_nldev_next(m, b, pos, e), 1);
	assert_true(e->has_lqpn);
	assert_int_equal(e->lqpn, 17);
	assert_int_equal(e->state, 5);
	assert_memory_equal(e->src_addr, a2, 16);
	assert_memory_equal(e->dst_addr, a3, 16);
	assert_int_equal(e->src_port, sport);
	assert_int_equal(e->dst_port, dport);
	assert_string_equal(e->kern_name, "rds_rdma");
}

static void test_nldev_res_summary(void **state)
{
	struct wire_nldev m;
	struct bld x;
	size_t n = res_msg(&x);
	uint8_t *c;

	(void)state;
	NEED_LE();
	assert_int_equal(decode_exact(&m, x.b, n, &c), (ssize_t)n);
	assert_int_equal(m.client, WIRE_NL_CLIENT_NLDEV);
	assert_int_equal(m.op, WIRE_NLDEV_CMD_RES_GET);
	assert_int_equal(m.nl_seq, 9);
	assert_true(m.has_dev_index);
	assert_int_equal(m.dev_index, 1);
	assert_string_equal(m.dev_name, "rxe0");
	assert_int_equal(m.n_summary, 7);
	assert_string_equal(m.summary[2].name, "qp");
	assert_int_equal(m.summary[2].curr, 4);
	assert_string_equal(m.summary[4].name, "mr");
	assert_int_equal(m.summary[4].curr, 7);
	assert_int_equal(m.table, 0);
	free(c);
}

static void test_nldev_qp_table(void **state)
{
	struct wire_nldev_entry e;
	struct wire_nldev m;
	struct bld x;
	size_t n = qp_msg(&x), pos = 0;
	uint8_t *c;

	(void)state;
	NEED_LE();
	assert_int_equal(decode_exact(&m, x.b, n, &c), (ssize_t)n);
	assert_int_equal(m.table, WIRE_NLDEV_ATTR_RES_QP);
	assert_int_equal(wire_nldev_next(&m, c, &pos, &e), 1);
	assert_int_equal(e.type, WIRE_NLDEV_ATTR_RES_QP_ENTRY);
	assert_int_equal(e.lqpn, 1);
	assert_int_equal(e.qp_type, 1);
	assert_false(e.has_rqpn);
	assert_string_equal(e.kern_name, "ib_core");
	assert_int_equal(wire_nldev_next(&m, c, &pos, &e), 1);
	assert_int_equal(e.lqpn, 17);
	assert_true(e.has_rqpn);
	assert_int_equal(e.rqpn, 18);
	assert_true(e.has_port);
	assert_int_equal(e.port, 1);
	assert_int_equal(e.qp_type, 2);
	assert_int_equal(e.state, 6);
	wt_name_is(wire_tok_name(wire_nldev_qp_state_toks, e.state), "ERR");
	wt_name_is(wire_tok_name(wire_nldev_qp_type_toks, e.qp_type), "RC");
	assert_int_equal(wire_nldev_next(&m, c, &pos, &e), 0);
	assert_int_equal(wire_nldev_next(&m, c, &pos, &e), 0);
	free(c);
}

static void test_nldev_cm_id_table(void **state)
{
	struct wire_nldev_entry e;
	struct wire_nldev m;
	struct bld x;
	size_t n = cm_msg(&x), pos = 0;
	uint8_t *c;

	(void)state;
	NEED_LE();
	assert_int_equal(decode_exact(&m, x.b, n, &c), (ssize_t)n);
	assert_int_equal(m.table, WIRE_NLDEV_ATTR_RES_CM_ID);
	assert_int_equal(wire_nldev_next(&m, c, &pos, &e), 1);
	assert_false(e.has_lqpn);
	assert_int_equal(e.src_family, 2);
	assert_int_equal(e.dst_family, 0);
	wt_name_is(wire_tok_name(wire_nldev_cm_state_toks, e.state), "LISTEN");
	expect_conn_id(&m, c, &pos, 18635, 40000, &e);
	assert_int_equal(e.id, 3);
	assert_int_equal(wire_nldev_next(&m, c, &pos, &e), 0);
	free(c);
}

static void test_nldev_control(void **state)
{
	/* NLMSG_DONE (with its int), NLMSG_ERROR -EINVAL (then the request's header) */
	static const char done[] = "14 00 00 00 03 00 02 00 0b 00 00 00 92 10 00 00 00 00 00 00";
	static const char err[] =
		"24 00 00 00 02 00 00 00 0c 00 00 00 92 10 00 00 ea ff ff ff"
		"10 00 00 00 0a 14 01 03 0c 00 00 00 00 00 00 00";
	uint8_t b[64];
	struct wire_nldev m;
	size_t n;

	(void)state;
	NEED_LE();
	n = hex_decode(done, b, sizeof(b));
	assert_int_equal(wire_nldev_decode(&m, b, n), 20);
	assert_true(m.is_done);
	assert_false(m.is_error);
	n = hex_decode(err, b, sizeof(b));
	assert_int_equal(wire_nldev_decode(&m, b, n), 36);
	assert_true(m.is_error);
	assert_int_equal(m.error, -22);
}

/* What the 7.2 kernel answered, whole and cut at every offset. */
static void test_nldev_captured_72(void **state)
{
	const char *const caps[] = { cap72_res, cap72_port, cap72_qp, cap72_cm_id };
	struct wire_nldev_entry e;
	struct wire_nldev m[4];
	uint8_t b[4][1024], *c;
	size_t n[4], pos = 0;

	(void)state;
	NEED_LE();
	for (int k = 0; k < 4; k++) {
		n[k] = hex_decode(caps[k], b[k], sizeof(b[k]));
		assert_int_equal(decode_exact(&m[k], b[k], n[k], &c), (ssize_t)n[k]);
		free(c);
		assert_true(m[k].has_dev_index);
		assert_int_equal(m[k].dev_index, 0);
		assert_string_equal(m[k].dev_name, "rxe0");
		for (size_t cut = 0; cut < n[k]; cut++) {
			struct wire_nldev t;

			assert_int_equal(decode_exact(&t, b[k], cut, &c), WIRE_ERR_TRUNC);
			free(c);
		}
	}
	/* RES_GET: pd 2, cq 3, qp 2, cm_id 3, mr 0, ctx 0, srq 0 */
	assert_int_equal(m[0].n_summary, 7);
	assert_string_equal(m[0].summary[3].name, "cm_id");
	assert_int_equal(m[0].summary[3].curr, 3);
	assert_string_equal(m[0].summary[1].name, "cq");
	assert_int_equal(m[0].summary[1].curr, 3);
	/* PORT_GET: port 1 ACTIVE, LINK_UP (5), on eth0 (ifindex 2) */
	assert_int_equal(m[1].port, 1);
	assert_int_equal(m[1].port_state, 4);
	assert_int_equal(m[1].phys_state, 5);
	assert_int_equal(m[1].ndev_index, 2);
	assert_string_equal(m[1].ndev_name, "eth0");
	/* RES_QP_GET: RDS's RC QP 17 (remote 17) in RTS, owned by rdma_cm; GSI */
	assert_int_equal(wire_nldev_next(&m[2], b[2], &pos, &e), 1);
	assert_int_equal(e.lqpn, 17);
	assert_int_equal(e.rqpn, 17);
	assert_int_equal(e.qp_type, 2);
	assert_int_equal(e.state, 3);
	assert_string_equal(e.kern_name, "rdma_cm");
	assert_int_equal(wire_nldev_next(&m[2], b[2], &pos, &e), 1);
	assert_int_equal(e.lqpn, 1);
	assert_int_equal(e.qp_type, 1);
	assert_int_equal(wire_nldev_next(&m[2], b[2], &pos, &e), 0);
	/* RES_CM_ID_GET: the IPv4 and IPv6 listeners, then the connection's ID */
	pos = 0;
	assert_int_equal(wire_nldev_next(&m[3], b[3], &pos, &e), 1);
	assert_int_equal(e.src_family, 2);
	assert_int_equal(e.src_port, 18634);
	assert_false(e.has_lqpn);
	assert_int_equal(wire_nldev_next(&m[3], b[3], &pos, &e), 1);
	assert_int_equal(e.src_family, 10);
	assert_int_equal(e.src_port, 16385);
	expect_conn_id(&m[3], b[3], &pos, 18634, 59168, &e);
	assert_int_equal(wire_nldev_next(&m[3], b[3], &pos, &e), 0);
}

/* A datagram of two messages: the second starts at the first's return. */
static void test_nldev_two_messages(void **state)
{
	uint8_t dg[4096];
	struct wire_nldev m;
	struct bld x;
	size_t n1 = res_msg(&x), n2;
	ssize_t r;

	(void)state;
	NEED_LE();
	memcpy(dg, x.b, n1);
	n2 = qp_msg(&x);
	memcpy(dg + n1, x.b, n2);
	r = wire_nldev_decode(&m, dg, n1 + n2);
	assert_int_equal(r, (ssize_t)n1);
	assert_int_equal(wire_nldev_decode(&m, dg + r, n1 + n2 - (size_t)r), (ssize_t)n2);
	assert_int_equal(m.op, WIRE_NLDEV_CMD_RES_QP_GET);
}

/* Every cut of a whole message is truncated (more bytes would do), never
 * malformed, never a read past the cut. */
static void test_nldev_truncation_every_offset(void **state)
{
	size_t (*const msgs[])(struct bld *) = { res_msg, qp_msg, cm_msg };
	struct wire_nldev m;
	struct bld x;

	(void)state;
	NEED_LE();
	for (size_t k = 0; k < WT_COUNT(msgs); k++) {
		size_t n = msgs[k](&x);

		for (size_t cut = 0; cut < n; cut++) {
			uint8_t *c;

			assert_int_equal(decode_exact(&m, x.b, cut, &c), WIRE_ERR_TRUNC);
			free(c);
		}
	}
}

static void expect_malformed(struct bld *x, size_t n)
{
	struct wire_nldev m;
	uint8_t *c;

	assert_int_equal(decode_exact(&m, x->b, n, &c), WIRE_ERR_MALFORMED);
	free(c);
}

static void test_nldev_malformed(void **state)
{
	struct wire_nldev_entry e;
	struct wire_nldev m;
	struct bld x;
	size_t n, pos = 0;
	uint32_t bad;
	uint16_t l;

	(void)state;
	NEED_LE();
	/* nlmsg_len below the header */
	n = res_msg(&x);
	bad = 8;
	memcpy(x.b, &bad, 4);
	expect_malformed(&x, n);
	/* an attribute shorter than its own header */
	n = res_msg(&x);
	l = 3;
	memcpy(x.b + 16, &l, 2);
	expect_malformed(&x, n);
	/* an attribute running past the message */
	n = res_msg(&x);
	l = 200;
	memcpy(x.b + 16 + 8, &l, 2);     /* DEV_NAME's length */
	expect_malformed(&x, n);
	/* DEV_INDEX of 2 bytes */
	bld_hdr(&x, WIRE_NLDEV_CMD_PORT_GET, 1);
	bld_attr(&x, WIRE_NLDEV_ATTR_DEV_INDEX, "\1\0", 2);
	expect_malformed(&x, bld_end(&x));
	/* a name without its NUL */
	bld_hdr(&x, WIRE_NLDEV_CMD_PORT_GET, 1);
	bld_attr(&x, WIRE_NLDEV_ATTR_DEV_NAME, "rxe0", 4);
	expect_malformed(&x, bld_end(&x));
	/* a name longer than any device's */
	bld_hdr(&x, WIRE_NLDEV_CMD_PORT_GET, 1);
	{
		char longname[80];

		memset(longname, 'a', sizeof(longname) - 1);
		longname[sizeof(longname) - 1] = '\0';
		bld_str(&x, WIRE_NLDEV_ATTR_DEV_NAME, longname);
	}
	expect_malformed(&x, bld_end(&x));
	/* a table whose entry runs past the table */
	bld_hdr(&x, WIRE_NLDEV_CMD_RES_QP_GET, 1);
	nest_open(&x, WIRE_NLDEV_ATTR_RES_QP);
	put16(&x, 40);
	put16(&x, WIRE_NLDEV_ATTR_RES_QP_ENTRY);
	put32(&x, 0);
	nest_close(&x);
	expect_malformed(&x, bld_end(&x));
	/* an entry's attribute of the wrong size: the message decodes, the
	 * entry does not */
	bld_hdr(&x, WIRE_NLDEV_CMD_RES_QP_GET, 1);
	nest_open(&x, WIRE_NLDEV_ATTR_RES_QP);
	nest_open(&x, WIRE_NLDEV_ATTR_RES_QP_ENTRY);
	bld_attr(&x, WIRE_NLDEV_ATTR_RES_LQPN, "\1\0", 2);
	nest_close(&x);
	nest_close(&x);
	n = bld_end(&x);
	assert_int_equal(wire_nldev_decode(&m, x.b, n), (ssize_t)n);
	assert_int_equal(wire_nldev_next(&m, x.b, &pos, &e), WIRE_ERR_MALFORMED);
}

/* Another netlink client: stepped over, not decoded. */
static void test_nldev_other_client(void **state)
{
	struct wire_nldev m;
	struct bld x;
	size_t n;
	uint16_t t = 4 << 10;           /* RDMA_NL_LS */

	(void)state;
	NEED_LE();
	n = res_msg(&x);
	memcpy(x.b + 4, &t, 2);
	assert_int_equal(wire_nldev_decode(&m, x.b, n), WIRE_ERR_UNSUPP);
	assert_int_equal(m.nl_len, n);
}

/* Unknown attributes (a later kernel's) are skipped. */
static void test_nldev_unknown_skipped(void **state)
{
	struct wire_nldev m;
	struct bld x;
	size_t n;

	(void)state;
	NEED_LE();
	bld_hdr(&x, WIRE_NLDEV_CMD_PORT_GET, 5);
	bld_u32(&x, WIRE_NLDEV_ATTR_DEV_INDEX, 2);
	bld_attr(&x, 97, "\1\2\3", 3);
	bld_u32(&x, WIRE_NLDEV_ATTR_PORT_INDEX, 1);
	bld_u8(&x, WIRE_NLDEV_ATTR_PORT_STATE, 1);
	bld_u8(&x, WIRE_NLDEV_ATTR_PORT_PHYS_STATE, 3);
	bld_str(&x, WIRE_NLDEV_ATTR_NDEV_NAME, "eth0");
	n = bld_end(&x);
	assert_int_equal(wire_nldev_decode(&m, x.b, n), (ssize_t)n);
	assert_true(m.has_port);
	assert_int_equal(m.port_state, 1);
	wt_name_is(wire_tok_name(wire_nldev_port_state_toks, m.port_state), "DOWN");
	assert_string_equal(m.ndev_name, "eth0");
}

static void test_nldev_request(void **state)
{
	static const char want[] =
		"18 00 00 00 0a 14 01 03 07 00 00 00 00 00 00 00 08 00 01 00 02 00 00 00";
	uint8_t b[32], w[32];
	size_t n;

	(void)state;
	NEED_LE();
	n = hex_decode(want, w, sizeof(w));
	assert_int_equal(wire_nldev_request(b, sizeof(b), WIRE_NLDEV_CMD_RES_QP_GET, 7, 2),
			 (ssize_t)n);
	assert_memory_equal(b, w, n);
	assert_int_equal(wire_nldev_request(b, sizeof(b), WIRE_NLDEV_CMD_RES_GET, 7,
					    UINT32_MAX), 16);
	assert_int_equal(wire_nldev_request(b, 23, WIRE_NLDEV_CMD_RES_QP_GET, 7, 2),
			 WIRE_ERR_NOSPACE);
	assert_int_equal(wire_nldev_request(b, sizeof(b), 2000, 7, 2), WIRE_ERR_INVAL);
}

static void test_nldev_inval(void **state)
{
	struct wire_nldev_entry e;
	struct wire_nldev m = { .table_len = 4 };
	size_t pos = 0;

	(void)state;
	assert_int_equal(wire_nldev_decode(NULL, (const uint8_t *)"", 0), WIRE_ERR_INVAL);
	assert_int_equal(wire_nldev_decode(&m, NULL, 4), WIRE_ERR_INVAL);
	assert_int_equal(wire_nldev_next(&m, NULL, &pos, &e), WIRE_ERR_INVAL);
	pos = 5;
	assert_int_equal(wire_nldev_next(&m, (const uint8_t *)"abcd", &pos, &e), WIRE_ERR_INVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nldev_res_summary),
		cmocka_unit_test(test_nldev_qp_table),
		cmocka_unit_test(test_nldev_cm_id_table),
		cmocka_unit_test(test_nldev_control),
		cmocka_unit_test(test_nldev_captured_72),
		cmocka_unit_test(test_nldev_two_messages),
		cmocka_unit_test(test_nldev_truncation_every_offset),
		cmocka_unit_test(test_nldev_malformed),
		cmocka_unit_test(test_nldev_other_client),
		cmocka_unit_test(test_nldev_unknown_skipped),
		cmocka_unit_test(test_nldev_request),
		cmocka_unit_test(test_nldev_inval),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
