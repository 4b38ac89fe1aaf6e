// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_ibcm.c - IB CM MADs: an RDS REQ with its rdma_cm header and private
 * data, REP, REJ, RTU, DREQ, DREP, MRA, truncation and every rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include "cmain.h"

#include <wire/wire.h>

#include "wtest.h"

/*
 * A REQ as RDS (rds_ib_conn_path_connect -> rdma_connect) sends it from
 * 192.168.1.10 to 192.168.1.20:18634. Offsets from
 * include/rdma/ibta_vol1_c12.h (CM_REQ_*) plus the 24-byte MAD header.
 */
static const char REQ_RDS_V4[] =
	"01 07 02 03 0000 0000 0000000000001234 0010 0000 00000000 # MAD hdr, REQ\n"
	"11223344 00000000          # local comm ID, reserved\n"
	"00000000010648ca           # service ID: RDMA_PS_TCP, port 18634\n"
	"0002c90300a1b2c3           # local CA GUID\n"
	"00000000 00000000          # reserved, local Q_Key\n"
	"000123 07 000000 07        # local QPN, resp. resources, EECN, depth\n"
	"000000 00 abcdef 00        # remote EECN, ..., starting PSN, ...\n"
	"ffff 30 00                 # P_Key, path MTU, ...\n"
	"# primary and alternate path (88 bytes), unused here\n"
	"0000000000000000000000000000000000000000000000000000000000000000\n"
	"0000000000000000000000000000000000000000000000000000000000000000\n"
	"000000000000000000000000000000000000000000000000\n"
	"# private data (92): struct cma_hdr (36)\n"
	"00 40 9a3c                 # cma_version 0, IPv4, source port 39484\n"
	"000000000000000000000000 c0a8010a   # src: IPv4 in the last 4 bytes\n"
	"000000000000000000000000 c0a80114   # dst\n"
	"# struct rds_ib_connect_private (32)\n"
	"c0a8010a c0a80114          # dp_saddr, dp_daddr\n"
	"03 01 0003 00 00 0000      # major 3, minor 1, mask, tos, reserved\n"
	"0000000000000000 00000000 00000000  # ack_seq, credit, pad\n"
	"# rest of the private data, zeroed by rdma_cm (24)\n"
	"000000000000000000000000000000000000000000000000\n";

#define MAD_HDR 24

static void mad_hdr(uint8_t *m, uint16_t attr)
{
	memset(m, 0, WIRE_MAD_LEN);
	m[0] = 1;
	m[1] = WIRE_IBCM_CLASS;
	m[2] = 2;
	m[3] = 3;
	m[15] = 0x42;                   /* TID */
	m[16] = (uint8_t)(attr >> 8);
	m[17] = (uint8_t)attr;
}

static void put32(uint8_t *p, uint32_t v)
{
	struct wire_wr w;

	wire_wr_init(&w, p, 4);
	wire_wr_be32(&w, v);
}

static void put64(uint8_t *p, uint64_t v)
{
	struct wire_wr w;

	wire_wr_init(&w, p, 8);
	wire_wr_be64(&w, v);
}

static size_t req_v4(uint8_t *m)
{
	return hex_decode(REQ_RDS_V4, m, WIRE_MAD_LEN);
}

/* Decode an exact-size heap copy; check pointers stay inside it. */
static int decode_exact(struct wire_ibcm *cm, const uint8_t *p, size_t len)
{
	uint8_t *copy = malloc(len ? len : 1);
	int rc;

	assert_non_null(copy);
	memcpy(copy, p, len);
	rc = wire_ibcm_decode(cm, copy, len);
	if (cm->private_len) {
		assert_true(cm->private_data >= copy);
		assert_true(cm->private_len <= len - (size_t)(cm->private_data - copy));
		cm->private_data = p + (cm->private_data - copy);
	}
	if (cm->user_len) {
		assert_true(cm->user_data >= copy);
		assert_true(cm->user_len <= len - (size_t)(cm->user_data - copy));
		cm->user_data = p + (cm->user_data - copy);
	}
	free(copy);
	return rc;
}

/* The RDS REQ with byte |at| set to |v|, decoded from its first |len| bytes. */
static void req_edited(uint8_t *m, struct wire_ibcm *cm, size_t at, uint8_t v, size_t len)
{
	req_v4(m);
	m[at] = v;
	assert_int_equal(decode_exact(cm, m, len), 0);
}

/* What a REQ and a REP both carry: comm IDs, QPN, PSN, and the private
 * data from |priv| bytes after the MAD header to the end of the MAD. */
struct conn_fields {
	uint32_t local, remote, qpn, psn;
	size_t priv;
	bool has_cma;
};

static void conn_fields_are(const struct wire_ibcm *cm, const uint8_t *m,
			    const struct conn_fields *w)
{
	assert_int_equal(cm->local_comm_id, w->local);
	assert_int_equal(cm->remote_comm_id, w->remote);
	assert_int_equal(cm->local_qpn, w->qpn);
	assert_int_equal(cm->starting_psn, w->psn);
	assert_ptr_equal(cm->private_data, m + MAD_HDR + w->priv);
	assert_int_equal(cm->private_len, WIRE_MAD_LEN - MAD_HDR - w->priv);
	assert_int_equal(cm->has_cma, w->has_cma);
}

static void test_ibcm_req_rds_ipv4(void **state)
{
	uint8_t m[WIRE_MAD_LEN];
	struct wire_ibcm cm;
	struct wire_ibpd pd;

	(void)state;
	assert_int_equal(req_v4(m), WIRE_MAD_LEN);
	assert_int_equal(decode_exact(&cm, m, sizeof(m)), 0);
	assert_int_equal(cm.base_version, 1);
	assert_int_equal(cm.mgmt_class, WIRE_IBCM_CLASS);
	assert_int_equal(cm.class_version, 2);
	assert_int_equal(cm.method, 3);
	assert_int_equal(cm.tid, 0x1234);
	assert_int_equal(cm.attr_id, WIRE_IBCM_REQ);
	conn_fields_are(&cm, m, &(struct conn_fields){ .local = 0x11223344, .remote = 0,
						       .qpn = 0x123, .psn = 0xabcdef,
						       .priv = 140, .has_cma = true });
	assert_int_equal(cm.private_len, 92);
	assert_int_equal(cm.service_id, 0x00000000010648caull);
	assert_int_equal(cm.service_id, wire_ibcm_rds_service_id(WIRE_IB_PORT_V4));
	assert_int_equal(cm.cma_version, 0);
	assert_int_equal(cm.cma_ip_version, 4);
	assert_int_equal(cm.cma_port, 39484);
	assert_memory_equal(cm.cma_src, "\xc0\xa8\x01\x0a", 4);
	assert_memory_equal(cm.cma_dst, "\xc0\xa8\x01\x14", 4);
	assert_ptr_equal(cm.user_data, m + MAD_HDR + 140 + 36);
	assert_int_equal(cm.user_len, 56);
	assert_true(wire_rules_empty(&cm.rules));

	/* what follows the cma header is RDS's own private data */
	assert_int_equal(wire_ibpd_decode(&pd, 4, cm.user_data, cm.user_len), 32);
	assert_int_equal(pd.major, 3);
	assert_int_equal(pd.minor, 1);
	assert_memory_equal(pd.saddr, cm.cma_src, 4);
	assert_memory_equal(pd.daddr, cm.cma_dst, 4);
}

static void test_ibcm_req_rds_ipv6(void **state)
{
	uint8_t m[WIRE_MAD_LEN];
	uint8_t *pd = m + MAD_HDR + 140;
	struct wire_ibcm cm;

	(void)state;
	req_v4(m);
	put64(m + MAD_HDR + 8, wire_ibcm_rds_service_id(WIRE_IB_PORT_V6));
	memset(pd, 0, 92);
	pd[1] = 0x60;
	for (int i = 0; i < 16; i++) {
		pd[4 + i] = (uint8_t)(0x20 + i);
		pd[20 + i] = (uint8_t)(0x40 + i);
	}
	/* 56 bytes of RDS IPv6 private data, the last one non-zero */
	memset(pd + 36, 0x5a, 56);
	assert_int_equal(decode_exact(&cm, m, sizeof(m)), 0);
	assert_int_equal(cm.service_id, 0x0000000001064001ull);
	assert_true(cm.has_cma);
	assert_int_equal(cm.cma_ip_version, 6);
	assert_int_equal(cm.cma_src[0], 0x20);
	assert_int_equal(cm.cma_src[15], 0x2f);
	assert_int_equal(cm.cma_dst[15], 0x4f);
	assert_int_equal(cm.user_len, 56);
	assert_true(wire_rules_empty(&cm.rules));
}

/* The REQ reaches QP1 as a RoCEv2 UD SEND_ONLY with a DETH. */
static void test_ibcm_req_inside_roce(void **state)
{
	/* BTH: UD SEND_ONLY to QP1, then DETH: GSI Q_Key, source QP1 */
	static const uint8_t bth[12] = { 0x64, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01,
					 0x00, 0x00, 0x00, 0x07 };
	static const uint8_t deth[8] = { 0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01 };
	uint8_t mad[WIRE_MAD_LEN];
	uint8_t p[20 + 8 + 12 + 8 + WIRE_MAD_LEN + 4];
	size_t tot = sizeof(p);
	struct wt_roce4 s = {
		.addrs = "\xc0\xa8\x01\x0a\xc0\xa8\x01\x14", .sport = 0xc53a,
		.bth = bth, .ext = deth, .elen = sizeof(deth), .pay = mad,
	};
	struct wire_roce r;
	struct wire_ibcm cm;

	(void)state;
	s.plen = req_v4(mad);
	assert_int_equal(wt_roce4_build(p, sizeof(p), &s), tot);

	assert_int_equal(wire_roce_decode(&r, p, tot, 0), 0);
	assert_true(r.icrc_ok);
	assert_int_equal(r.bth.opcode, WIRE_IB_UD_SEND_ONLY);
	assert_int_equal(r.bth.dqpn, 1);
	assert_true(r.has_deth);
	assert_int_equal(r.deth.qkey, 0x80010000);
	assert_int_equal(r.deth.src_qp, 1);
	assert_int_equal(r.payload_len, WIRE_MAD_LEN);
	assert_int_equal(wire_ibcm_decode(&cm, r.payload, r.payload_len), 0);
	assert_int_equal(cm.attr_id, WIRE_IBCM_REQ);
	assert_int_equal(cm.user_len, 56);
}

static void test_ibcm_rep(void **state)
{
	uint8_t m[WIRE_MAD_LEN];
	uint8_t *d = m + MAD_HDR;
	struct wire_ibcm cm;
	struct wire_ibpd pd;

	(void)state;
	mad_hdr(m, WIRE_IBCM_REP);
	put32(d + 0, 0xaaaa0001);       /* local comm ID */
	put32(d + 4, 0x11223344);       /* remote comm ID */
	put32(d + 12, 0x00045600);      /* local QPN 0x456 */
	put32(d + 20, 0x00765400);      /* starting PSN 0x7654 */
	/* private data: RDS IPv4, protocol 3.1 */
	memcpy(d + 36, "\xc0\xa8\x01\x14\xc0\xa8\x01\x0a\x03\x01\x00\x03", 12);
	assert_int_equal(decode_exact(&cm, m, sizeof(m)), 0);
	assert_int_equal(cm.attr_id, WIRE_IBCM_REP);
	conn_fields_are(&cm, m, &(struct conn_fields){ .local = 0xaaaa0001, .remote = 0x11223344,
						       .qpn = 0x456, .psn = 0x7654,
						       .priv = 36, .has_cma = false });
	assert_int_equal(cm.private_len, 196);
	assert_int_equal(cm.user_len, 0);
	assert_true(wire_rules_empty(&cm.rules));
	assert_int_equal(wire_ibpd_decode(&pd, 4, cm.private_data, cm.private_len), 32);
	assert_int_equal(pd.major, 3);
}

static void test_ibcm_rej(void **state)
{
	uint8_t m[WIRE_MAD_LEN];
	uint8_t *d = m + MAD_HDR;
	struct wire_ibcm cm;

	(void)state;
	mad_hdr(m, WIRE_IBCM_REJ);
	put32(d + 0, 0xaaaa0002);
	put32(d + 4, 0x11223344);
	d[8] = 0 << 6;                  /* REQ rejected */
	d[9] = 0;                       /* no ARI */
	d[10] = 0;
	d[11] = 28;                     /* IB_CM_REJ_CONSUMER_DEFINED */
	d[84] = 1;                      /* RDS_RDMA_REJ_INCOMPAT, host-endian int */
	assert_int_equal(decode_exact(&cm, m, sizeof(m)), 0);
	assert_int_equal(cm.local_comm_id, 0xaaaa0002);
	assert_int_equal(cm.remote_comm_id, 0x11223344);
	assert_int_equal(cm.rej_msg, 0);
	assert_int_equal(cm.rej_reason, 28);
	assert_ptr_equal(cm.private_data, m + MAD_HDR + 84);
	assert_int_equal(cm.private_len, 148);
	assert_int_equal(cm.private_data[0], 1);

	d[8] = 1 << 6;                  /* REP rejected */
	d[11] = 1;                      /* no QP */
	assert_int_equal(decode_exact(&cm, m, sizeof(m)), 0);
	assert_int_equal(cm.rej_msg, 1);
	assert_int_equal(cm.rej_reason, 1);
	assert_true(wire_rules_empty(&cm.rules));
}

static void test_ibcm_rtu_dreq_drep_mra(void **state)
{
	static const struct {
		uint16_t attr;
		size_t off, len;
	} t[] = {
		{ WIRE_IBCM_RTU, 8, 224 },
		{ WIRE_IBCM_DREQ, 12, 220 },
		{ WIRE_IBCM_DREP, 8, 224 },
		{ WIRE_IBCM_MRA, 10, 222 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint8_t m[WIRE_MAD_LEN];
		struct wire_ibcm cm;

		mad_hdr(m, t[i].attr);
		put32(m + MAD_HDR, 0x01020304);
		put32(m + MAD_HDR + 4, 0x05060708);
		put32(m + MAD_HDR + 8, 0x00abcd00 | 0xc0000000);
		assert_int_equal(decode_exact(&cm, m, sizeof(m)), 0);
		assert_int_equal(cm.attr_id, t[i].attr);
		assert_int_equal(cm.local_comm_id, 0x01020304);
		assert_int_equal(cm.remote_comm_id, 0x05060708);
		assert_ptr_equal(cm.private_data, m + MAD_HDR + t[i].off);
		assert_int_equal(cm.private_len, t[i].len);
		assert_int_equal(cm.remote_qpn, t[i].attr == WIRE_IBCM_DREQ ? 0xc0abcd : 0);
		assert_int_equal(cm.rej_reason, 0);
		assert_int_equal(cm.rej_msg, 0);
		assert_int_equal(cm.service_id, 0);
		assert_false(cm.has_cma);
		assert_true(wire_rules_empty(&cm.rules));
	}
}

static void test_ibcm_service_id_rule(void **state)
{
	uint8_t m[WIRE_MAD_LEN];
	struct wire_ibcm cm;

	(void)state;
	req_v4(m);
	put64(m + MAD_HDR + 8, wire_ibcm_rds_service_id(WIRE_IB_PORT_V6));
	assert_int_equal(decode_exact(&cm, m, sizeof(m)), 0);
	assert_false(wire_rules_has(&cm.rules, WIRE_RULE_IBCM_SERVICE_ID));

	/* another TCP port space port: rdma_cm, but not RDS */
	put64(m + MAD_HDR + 8, wire_ibcm_rds_service_id(12345));
	assert_int_equal(decode_exact(&cm, m, sizeof(m)), 0);
	assert_true(wire_rules_has(&cm.rules, WIRE_RULE_IBCM_SERVICE_ID));
	assert_true(cm.has_cma);
	assert_int_equal(wire_rules_count(&cm.rules), 1);

	/* RDMA_PS_UDP also carries the cma header */
	put64(m + MAD_HDR + 8, 0x0000000001114000ull);
	assert_int_equal(decode_exact(&cm, m, sizeof(m)), 0);
	assert_true(cm.has_cma);
	assert_true(wire_rules_has(&cm.rules, WIRE_RULE_IBCM_SERVICE_ID));

	/* RDMA_PS_IB: only when the bytes look like a cma header */
	put64(m + MAD_HDR + 8, 0x00000000013f0001ull);
	assert_int_equal(decode_exact(&cm, m, sizeof(m)), 0);
	assert_true(cm.has_cma);
	m[MAD_HDR + 140 + 1] = 0x00;
	assert_int_equal(decode_exact(&cm, m, sizeof(m)), 0);
	assert_false(cm.has_cma);
	assert_int_equal(cm.user_len, 0);

	/* a native IB service ID: no cma header at all */
	put64(m + MAD_HDR + 8, 0x1000000000000001ull);
	assert_int_equal(decode_exact(&cm, m, sizeof(m)), 0);
	assert_false(cm.has_cma);
	assert_int_equal(cm.private_len, 92);
	assert_true(wire_rules_has(&cm.rules, WIRE_RULE_IBCM_SERVICE_ID));

	assert_int_equal(wire_ibcm_rds_service_id(18634), 0x00000000010648caull);
	assert_int_equal(wire_ibcm_rds_service_id(16385), 0x0000000001064001ull);
}

static void test_ibcm_cma_version_rule(void **state)
{
	uint8_t m[WIRE_MAD_LEN];
	struct wire_ibcm cm;

	(void)state;
	/* cma_version 1 */
	req_edited(m, &cm, MAD_HDR + 140, 0x01, sizeof(m));
	assert_true(cm.has_cma);
	assert_int_equal(cm.cma_version, 1);
	assert_true(wire_rules_has(&cm.rules, WIRE_RULE_IBCM_CMA_VERSION));

	/* IP version nibble 5 */
	req_edited(m, &cm, MAD_HDR + 140 + 1, 0x50, sizeof(m));
	assert_int_equal(cm.cma_ip_version, 5);
	assert_true(wire_rules_has(&cm.rules, WIRE_RULE_IBCM_CMA_VERSION));
	/* an unknown family keeps the 16 raw bytes */
	assert_int_equal(cm.cma_src[15], 0x0a);

	/* low nibble is reserved */
	req_edited(m, &cm, MAD_HDR + 140 + 1, 0x4f, sizeof(m));
	assert_int_equal(cm.cma_ip_version, 4);
	assert_true(wire_rules_empty(&cm.rules));
}

static void test_ibcm_private_len_rule(void **state)
{
	uint8_t m[WIRE_MAD_LEN];
	struct wire_ibcm cm;

	(void)state;
	/* IPv4 REQ with bytes after the 32-byte RDS struct */
	req_edited(m, &cm, MAD_HDR + 140 + 36 + 40, 0x99, sizeof(m));
	assert_true(wire_rules_has(&cm.rules, WIRE_RULE_IBCM_PRIVATE_LEN));
	assert_int_equal(wire_rules_count(&cm.rules), 1);
	/* the last byte of the 32 is still inside it */
	req_edited(m, &cm, MAD_HDR + 140 + 36 + 31, 0x99, sizeof(m));
	assert_true(wire_rules_empty(&cm.rules));
	/* not judged on a REQ that is not RDS */
	req_v4(m);
	m[MAD_HDR + 140 + 36 + 40] = 0x99;
	put64(m + MAD_HDR + 8, wire_ibcm_rds_service_id(4000));
	assert_int_equal(decode_exact(&cm, m, sizeof(m)), 0);
	assert_false(wire_rules_has(&cm.rules, WIRE_RULE_IBCM_PRIVATE_LEN));
	/* nor when the capture stops inside the private data */
	req_edited(m, &cm, MAD_HDR + 140 + 36 + 40, 0x99, WIRE_MAD_LEN - 1);
	assert_false(wire_rules_has(&cm.rules, WIRE_RULE_IBCM_PRIVATE_LEN));
}

static void test_ibcm_unsupported(void **state)
{
	uint8_t m[WIRE_MAD_LEN];
	struct wire_ibcm cm;

	(void)state;
	req_v4(m);
	m[1] = 0x03;                            /* SubnAdm */
	assert_int_equal(decode_exact(&cm, m, sizeof(m)), WIRE_ERR_UNSUPP);
	assert_int_equal(cm.mgmt_class, 0x03);
	req_v4(m);
	m[17] = 0x17;                           /* SIDR_REQ */
	assert_int_equal(decode_exact(&cm, m, sizeof(m)), WIRE_ERR_UNSUPP);
	m[17] = 0x01;                           /* ClassPortInfo */
	assert_int_equal(decode_exact(&cm, m, sizeof(m)), WIRE_ERR_UNSUPP);
	assert_int_equal(wire_ibcm_decode(NULL, m, sizeof(m)), WIRE_ERR_INVAL);
}

/* Every cut: TRUNC before the fixed fields end, then a clipped private
 * data area, and the cma header only once all 36 bytes are there. */
static void test_ibcm_truncation_every_offset(void **state)
{
	static const struct {
		uint16_t attr;
		size_t off;
	} t[] = {
		{ WIRE_IBCM_REQ, 140 }, { WIRE_IBCM_REP, 36 }, { WIRE_IBCM_REJ, 84 },
		{ WIRE_IBCM_RTU, 8 }, { WIRE_IBCM_DREQ, 12 }, { WIRE_IBCM_DREP, 8 },
		{ WIRE_IBCM_MRA, 10 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint8_t m[WIRE_MAD_LEN + 8];
		size_t end = MAD_HDR + t[i].off;

		if (t[i].attr == WIRE_IBCM_REQ) {
			req_v4(m);
		} else {
			mad_hdr(m, t[i].attr);
			memset(m + MAD_HDR, 0x77, WIRE_MAD_LEN - MAD_HDR);
		}
		memset(m + WIRE_MAD_LEN, 0xee, 8);
		for (size_t cut = 0; cut <= sizeof(m); cut++) {
			struct wire_ibcm cm;
			int rc = decode_exact(&cm, m, cut);

			if (cut < end) {
				assert_int_equal(rc, WIRE_ERR_TRUNC);
				continue;
			}
			assert_int_equal(rc, 0);
			assert_int_equal(cm.private_len,
					 (cut < WIRE_MAD_LEN ? cut : WIRE_MAD_LEN) - end);
			if (t[i].attr == WIRE_IBCM_REQ) {
				assert_int_equal(cm.has_cma, cut >= end + 36);
				assert_true(wire_rules_empty(&cm.rules));
			}
		}
	}
}

static void test_ibcm_attr_names(void **state)
{
	static const struct wt_name names[] = {
		{ WIRE_IBCM_REQ, "REQ" }, { WIRE_IBCM_MRA, "MRA" }, { WIRE_IBCM_REJ, "REJ" },
		{ WIRE_IBCM_REP, "REP" }, { WIRE_IBCM_RTU, "RTU" }, { WIRE_IBCM_DREQ, "DREQ" },
		{ WIRE_IBCM_DREP, "DREP" }, { 0x0019, "LAP" }, { 0x0000, NULL }, { 0xffff, NULL },
	};

	(void)state;
	for (size_t i = 0; i < WT_COUNT(names); i++)
		wt_name_is(wire_ibcm_attr_name((uint16_t)names[i].v), names[i].name);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_ibcm_req_rds_ipv4),
	cmocka_unit_test(test_ibcm_req_rds_ipv6),
	cmocka_unit_test(test_ibcm_req_inside_roce),
	cmocka_unit_test(test_ibcm_rep),
	cmocka_unit_test(test_ibcm_rej),
	cmocka_unit_test(test_ibcm_rtu_dreq_drep_mra),
	cmocka_unit_test(test_ibcm_service_id_rule),
	cmocka_unit_test(test_ibcm_cma_version_rule),
	cmocka_unit_test(test_ibcm_private_len_rule),
	cmocka_unit_test(test_ibcm_unsupported),
	cmocka_unit_test(test_ibcm_truncation_every_offset),
	cmocka_unit_test(test_ibcm_attr_names))
