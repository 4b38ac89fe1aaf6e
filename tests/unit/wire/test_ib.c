// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_ib.c - native InfiniBand packets (LRH, GRH, ICRC, VCRC) and the
 * RoCEv2 and native encoders: known answers, masks, truncation at every
 * offset, malformed vs truncated vs unsupported, encode/decode identity. */
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
 * Known answers computed outside libwire, in Python: the ICRC is
 * zlib.crc32 over the packet up to the ICRC with the variant bits set to
 * ones (local: the VL nibble of byte 0 and BTH byte 4; global: LRH bytes
 * 0-7, the GRH's traffic class and flow label nibbles and bytes, its hop
 * limit, BTH byte 4), stored little-endian; the VCRC a bitwise reflected
 * CRC-16 (polynomial 0x100b, reflected 0xd008, seed 0xffff, complemented)
 * over LRH through ICRC, stored little-endian. tshark 4.0.17 opened both
 * as LINKTYPE_INFINIBAND and shows the same LRH, GRH, BTH and AETH fields
 * and the same ICRC and VCRC bytes; it does not verify either.
 */
static const char IB_LOCAL_SEND_ONLY[] =
	"00 02 0003 0014 0002                               # LRH VL0 LNH 2, DLID 3, 20 words, SLID 2\n"
	WT_SEND_HELLO_HEX
	"467c2c13                                           # ICRC\n"
	"80d0                                               # VCRC\n";

static const char IB_GLOBAL_ACK[] =
	"10 33 0004 0011 0005                               # LRH VL1 SL3 LNH 3, 17 words\n"
	"6 68 12345 0014 1b 40                              # GRH tc 0x68 flow 0x12345\n"
	"fe800000000000000000000000000001\n"
	"fe800000000000000000000000000002\n"
	"11 00 ffff 00 000022 00 000007                     # RC ACKNOWLEDGE\n"
	"1f000005                                           # AETH\n"
	"36a5a375                                           # ICRC\n"
	"7aa4                                               # VCRC\n";

/* wire_roce_encode() of the same SEND as IB_LOCAL_SEND_ONLY, from
 * 10.0.0.1 port 0xc0de to 10.0.0.2; IPv4 checksum and ICRC by Python. */
static const char ROCE_ENCODED[] =
	"45 00 0064 0000 4000 40 11 2687 0a000001 0a000002\n"
	"c0de 12b7 0050 0000\n"
	WT_SEND_HELLO_HEX
	"a1955ed9\n";

static int decode_exact(struct wire_roce *r, const uint8_t *p, size_t len, size_t wire_len)
{
	return verbs_decode_exact(wire_ib_decode, r, p, len, wire_len);
}

static void test_ib_local_send_only_kat(void **state)
{
	struct wt_kat k;

	(void)state;
	wt_verbs_kat(&k, wire_ib_decode, IB_LOCAL_SEND_ONLY, 82, 0, 0x132c7c46);
	assert_true(k.r.has_lrh);
	assert_false(k.r.has_grh);
	assert_int_equal(k.r.ip_version, 0);
	assert_int_equal(k.r.lrh.vl, 0);
	assert_int_equal(k.r.lrh.lnh, WIRE_IB_LNH_LOCAL);
	assert_int_equal(k.r.lrh.dlid, 3);
	assert_int_equal(k.r.lrh.slid, 2);
	assert_int_equal(k.r.lrh.pktlen, 20);
	wt_send_hello_is(&k.r, k.b + 8);
	assert_int_equal(wire_ib_icrc(k.b, k.n - 6), 0x132c7c46);
	assert_true(k.r.vcrc_checked);
	assert_true(k.r.vcrc_ok);
	assert_int_equal(k.r.vcrc, 0xd080);
	assert_int_equal(wire_ib_vcrc(k.b, k.n - 2), 0xd080);
}

static void test_ib_global_ack_kat(void **state)
{
	struct wt_kat k;

	(void)state;
	wt_verbs_kat(&k, wire_ib_decode, IB_GLOBAL_ACK, 70, 70, 0x75a3a536);
	assert_true(k.r.has_grh);
	assert_int_equal(k.r.lrh.vl, 1);
	assert_int_equal(k.r.lrh.sl, 3);
	assert_int_equal(k.r.lrh.lnh, WIRE_IB_LNH_GLOBAL);
	assert_int_equal(k.r.grh.ipver, 6);
	assert_int_equal(k.r.grh.tclass, 0x68);
	assert_int_equal(k.r.grh.flow, 0x12345);
	assert_int_equal(k.r.grh.paylen, 20);
	assert_int_equal(k.r.grh.nxthdr, WIRE_IB_GRH_NXTHDR);
	assert_int_equal(k.r.grh.hoplmt, 0x40);
	assert_int_equal(k.r.ip_version, 6);
	assert_int_equal(k.r.src[15], 1);
	assert_int_equal(k.r.dst[15], 2);
	wt_ack5_is(&k.r);
	assert_true(k.r.vcrc_ok);
	assert_int_equal(k.r.vcrc, 0xa47a);
}

/* A frame that ends at the ICRC has no VCRC to check; one cut inside the
 * VCRC (captured short of the wire length) neither. */
static void test_ib_vcrc_absent(void **state)
{
	uint8_t b[256];
	size_t n = hex_decode(IB_LOCAL_SEND_ONLY, b, sizeof(b));
	struct wire_roce r;

	(void)state;
	assert_int_equal(decode_exact(&r, b, n - 2, 0), 0);
	assert_true(r.icrc_ok);
	assert_false(r.vcrc_checked);
	assert_int_equal(decode_exact(&r, b, n - 1, n), 0);
	assert_true(r.icrc_ok);
	assert_false(r.vcrc_checked);
	assert_false(r.vcrc_ok);
}

/* A switch may change VL and Resv8a, a router the whole LRH and the GRH's
 * traffic class, flow label and hop limit: the ICRC stays, the VCRC not. */
static void test_ib_icrc_masks(void **state)
{
	static const size_t local_variant[] = { 12 };
	static const size_t global_variant[] = { 2, 3, 6, 7, 9, 10, 11, 15, 52 };
	uint8_t b[256], c[256];
	struct wire_roce r;
	size_t n;

	(void)state;
	n = hex_decode(IB_LOCAL_SEND_ONLY, b, sizeof(b));
	memcpy(c, b, n);
	c[0] ^= 0x70;                   /* VL */
	assert_int_equal(decode_exact(&r, c, n, 0), 0);
	assert_true(r.icrc_ok);
	assert_false(r.vcrc_ok);
	assert_true(wire_rules_has(&r.rules, WIRE_RULE_IB_VCRC));
	assert_false(wire_rules_has(&r.rules, WIRE_RULE_IB_ICRC));
	wt_icrc_variant(wire_ib_decode, b, n, local_variant, WT_COUNT(local_variant));
	/* the SL of a local packet and a DLID are covered */
	memcpy(c, b, n);
	c[1] ^= 0x10;
	assert_int_equal(decode_exact(&r, c, n, 0), 0);
	assert_false(r.icrc_ok);
	assert_true(wire_rules_has(&r.rules, WIRE_RULE_IB_ICRC));
	memcpy(c, b, n);
	c[3] ^= 0x01;
	assert_int_equal(decode_exact(&r, c, n, 0), 0);
	assert_false(r.icrc_ok);

	n = hex_decode(IB_GLOBAL_ACK, b, sizeof(b));
	wt_icrc_variant(wire_ib_decode, b, n, global_variant, WT_COUNT(global_variant));
	memcpy(c, b, n);
	c[0] ^= 0x30;                   /* VL, and SL below: both masked when global */
	c[1] ^= 0x20;
	c[8] ^= 0x05;                   /* traffic class low nibble */
	assert_int_equal(decode_exact(&r, c, n, 0), 0);
	assert_true(r.icrc_ok);
	/* an SGID byte is covered */
	memcpy(c, b, n);
	c[8 + 8 + 3] ^= 1;
	assert_int_equal(decode_exact(&r, c, n, 0), 0);
	assert_false(r.icrc_ok);
	assert_true(wire_rules_has(&r.rules, WIRE_RULE_IB_ICRC));
}

/* Every prefix is TRUNC until the transport headers are whole, then decodes
 * with the ICRC unchecked until the packet is whole. */
static void test_ib_truncation_every_offset(void **state)
{
	const char *vs[] = { IB_LOCAL_SEND_ONLY, IB_GLOBAL_ACK };
	const size_t hdr_end[] = { 8 + 12, 8 + 40 + 12 + 4 };

	(void)state;
	for (size_t v = 0; v < 2; v++) {
		uint8_t b[256];
		size_t n = hex_decode(vs[v], b, sizeof(b));
		size_t pkt = n - 2;

		for (size_t cut = 0; cut < n; cut++) {
			struct wire_roce r;
			int rc = decode_exact(&r, b, cut, n);

			assert_int_equal(decode_exact(&r, b, cut, 0), rc);
			if (cut < hdr_end[v]) {
				assert_int_equal(rc, WIRE_ERR_TRUNC);
				continue;
			}
			assert_int_equal(rc, 0);
			assert_int_equal(r.icrc_checked, cut >= pkt);
			assert_false(r.vcrc_checked);
		}
	}
}

static void test_ib_malformed(void **state)
{
	uint8_t b[256], c[256];
	struct wire_roce r;
	size_t n;

	(void)state;
	n = hex_decode(IB_LOCAL_SEND_ONLY, b, sizeof(b));
	/* the frame on the wire is shorter than PktLen */
	assert_int_equal(decode_exact(&r, b, n - 10, n - 10), WIRE_ERR_MALFORMED);
	assert_true(wire_rules_has(&r.rules, WIRE_RULE_IB_LEN));
	/* PktLen too small for LRH, BTH and ICRC: 5 words */
	memcpy(c, b, n);
	c[5] = 5;
	assert_int_equal(decode_exact(&r, c, n, 0), WIRE_ERR_MALFORMED);
	assert_true(wire_rules_has(&r.rules, WIRE_RULE_IB_LEN));
	/* a pad larger than the payload */
	c[5] = 6;
	c[9] = 0x30;
	assert_int_equal(decode_exact(&r, c, 24, 0), WIRE_ERR_MALFORMED);
	/* GRH PayLen disagrees with PktLen */
	n = hex_decode(IB_GLOBAL_ACK, b, sizeof(b));
	memcpy(c, b, n);
	c[8 + 5] = 0x18;
	assert_int_equal(decode_exact(&r, c, n, 0), WIRE_ERR_MALFORMED);
	assert_true(wire_rules_has(&r.rules, WIRE_RULE_IB_LEN));
	/* nothing at all */
	assert_int_equal(wire_ib_decode(&r, NULL, 0, 0), WIRE_ERR_TRUNC);
	assert_int_equal(wire_ib_decode(NULL, b, n, 0), WIRE_ERR_INVAL);
}

static void test_ib_unsupported_and_rules(void **state)
{
	static const struct wt_edit unsupp[] = {
		{ IB_LOCAL_SEND_ONLY, 1, 0x00 },        /* raw */
		{ IB_LOCAL_SEND_ONLY, 1, 0x01 },        /* raw IPv6 */
		{ IB_GLOBAL_ACK, 8 + 6, 0x11 },         /* next header UDP: not IBA */
	};
	static const struct wt_edit lver1 = { IB_LOCAL_SEND_ONLY, 0, 0x01 };
	struct wire_roce r;

	(void)state;
	for (size_t i = 0; i < WT_COUNT(unsupp); i++)
		assert_int_equal(wt_verbs_set(wire_ib_decode, &r, &unsupp[i]), WIRE_ERR_UNSUPP);
	/* LVer 1: decoded, flagged */
	assert_int_equal(wt_verbs_set(wire_ib_decode, &r, &lver1), 0);
	assert_true(wire_rules_has(&r.rules, WIRE_RULE_IB_LVER));
	assert_false(r.icrc_ok);
}

/* Every field of a native packet is kept, so encoding what was decoded
 * gives the same bytes back; and every shorter buffer is NOSPACE. */
static void test_ib_encode_identity(void **state)
{
	const char *vs[] = { IB_LOCAL_SEND_ONLY, IB_GLOBAL_ACK };

	(void)state;
	for (size_t v = 0; v < 2; v++) {
		uint8_t b[256], out[256];
		size_t n = hex_decode(vs[v], b, sizeof(b));
		struct wire_roce r;

		assert_int_equal(decode_exact(&r, b, n, 0), 0);
		assert_int_equal(wire_ib_encode(&r, out, sizeof(out)), (ssize_t)n);
		assert_memory_equal(out, b, n);
		for (size_t cap = 0; cap < n; cap++)
			assert_int_equal(wire_ib_encode(&r, out, cap), WIRE_ERR_NOSPACE);
	}
}

static void test_ib_encode_invalid(void **state)
{
	uint8_t out[256];
	struct wire_roce r;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.bth.opcode = WIRE_IB_RC_SEND_ONLY;
	assert_int_equal(wire_ib_encode(&r, out, sizeof(out)), WIRE_ERR_INVAL);
	r.lrh.lnh = WIRE_IB_LNH_LOCAL;
	r.payload = (const uint8_t *)"abc";
	r.payload_len = 3;              /* not a whole word without pad */
	assert_int_equal(wire_ib_encode(&r, out, sizeof(out)), WIRE_ERR_INVAL);
	r.bth.padcnt = 1;
	assert_int_equal(wire_ib_encode(&r, out, sizeof(out)), 8 + 12 + 4 + 4 + 2);
	assert_int_equal(wire_ib_encode(NULL, out, sizeof(out)), WIRE_ERR_INVAL);
	assert_int_equal(wire_roce_encode(&r, out, sizeof(out)), WIRE_ERR_INVAL);
}

static void test_roce_encode_kat(void **state)
{
	uint8_t ib[256], want[256], out[256];
	size_t n = hex_decode(IB_LOCAL_SEND_ONLY, ib, sizeof(ib));
	size_t wn = hex_decode(ROCE_ENCODED, want, sizeof(want));
	struct wire_roce r, back;

	(void)state;
	/* the transport part of the native packet, carried by RoCEv2 */
	assert_int_equal(decode_exact(&r, ib, n, 0), 0);
	r.ip_version = 4;
	memcpy(r.src, "\x0a\x00\x00\x01", 4);
	memcpy(r.dst, "\x0a\x00\x00\x02", 4);
	r.udp_sport = 0xc0de;
	assert_int_equal(wire_roce_encode(&r, out, sizeof(out)), (ssize_t)wn);
	assert_memory_equal(out, want, wn);
	assert_int_equal(wire_roce_decode(&back, out, wn, wn), 0);
	assert_true(back.icrc_ok);
	assert_memory_equal(&back.bth, &r.bth, sizeof(r.bth));
	assert_int_equal(back.payload_len, r.payload_len);
	assert_memory_equal(back.payload, r.payload, r.payload_len);
	for (size_t cap = 0; cap < wn; cap++)
		assert_int_equal(wire_roce_encode(&r, out, cap), WIRE_ERR_NOSPACE);
}

/* IPv6 and an opcode with extended headers: decode(encode(x)) keeps them. */
static void test_roce_encode_v6_round_trip(void **state)
{
	static const uint8_t pay[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	uint8_t out[256];
	struct wire_roce r, back;
	ssize_t n;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.ip_version = 6;
	r.src[0] = 0xfe;
	r.src[15] = 1;
	r.dst[0] = 0xfe;
	r.dst[15] = 2;
	r.udp_sport = 0xabcd;
	r.bth.opcode = WIRE_IB_RC_WRITE_ONLY_IMM;
	r.bth.pkey = 0xffff;
	r.bth.dqpn = 0x123456;
	r.bth.psn = 0xfffffe;
	r.reth.va = 0x1122334455667788ull;
	r.reth.rkey = 0x99aabbcc;
	r.reth.dma_len = 8;
	r.imm = 0xdeadbeef;
	r.payload = pay;
	r.payload_len = sizeof(pay);
	n = wire_roce_encode(&r, out, sizeof(out));
	assert_int_equal(n, 40 + 8 + 12 + 16 + 4 + 8 + 4);
	assert_int_equal(wire_roce_decode(&back, out, (size_t)n, (size_t)n), 0);
	assert_true(back.icrc_ok);
	assert_true(wire_rules_empty(&back.rules));
	assert_int_equal(back.ip_version, 6);
	assert_memory_equal(back.src, r.src, 16);
	assert_int_equal(back.udp_sport, 0xabcd);
	assert_memory_equal(&back.bth, &r.bth, sizeof(r.bth));
	assert_true(back.has_reth && back.has_imm);
	assert_int_equal(back.reth.va, r.reth.va);
	assert_int_equal(back.reth.rkey, r.reth.rkey);
	assert_int_equal(back.imm, r.imm);
	assert_memory_equal(back.payload, pay, sizeof(pay));
}

/* A 4144-byte RDS fragment at PMTU 1024: FIRST, 3 MIDDLE, LAST of 48;
 * whole multiples and the empty SEND are one ONLY or end on a full LAST. */
static void test_ib_send_iter(void **state)
{
	static uint8_t msg[4144 + 3];
	static const struct {
		size_t len;
		uint32_t pmtu;
		uint8_t ops[6];
		size_t n;
		uint8_t lastpad;
	} t[] = {
		{ 4144, 1024, { 0x00, 0x01, 0x01, 0x01, 0x02 }, 5, 0 },
		{ 4147, 1024, { 0x00, 0x01, 0x01, 0x01, 0x02 }, 5, 1 },
		{ 2048, 1024, { 0x00, 0x02 }, 2, 0 },
		{ 53, 4096, { 0x04 }, 1, 3 },
		{ 0, 4096, { 0x04 }, 1, 0 },
		{ 4144, 3000, { 0x00, 0x02 }, 2, 0 },   /* not an MTU: 4096 */
	};
	struct wire_ib_send_iter it;
	struct wire_roce r;

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		size_t k = 0, off = 0;

		wire_ib_send_init(&it, msg, t[i].len, t[i].pmtu);
		memset(&r, 0, sizeof(r));
		while (wire_ib_send_next(&it, &r) == 1) {
			assert_true(k < t[i].n);
			assert_int_equal(r.bth.opcode, t[i].ops[k]);
			assert_int_equal(r.bth.padcnt, k + 1 == t[i].n ? t[i].lastpad : 0);
			if (r.payload_len)
				assert_ptr_equal(r.payload, msg + off);
			off += r.payload_len;
			k++;
		}
		assert_int_equal(k, t[i].n);
		assert_int_equal(off, t[i].len);
		assert_int_equal(wire_ib_send_next(&it, &r), 0);
	}
}

/* Behind, in order and ahead, across the 24-bit wrap. */
static void test_ib_psn_step(void **state)
{
	bool have = false;
	uint32_t next = 0;

	(void)state;
	assert_int_equal(wire_ib_psn_step(&have, &next, 0xfffffe), 0);
	assert_true(have);
	assert_int_equal(next, 0xffffff);
	assert_int_equal(wire_ib_psn_step(&have, &next, 0xffffff), 0);
	assert_int_equal(next, 0);
	assert_int_equal(wire_ib_psn_step(&have, &next, 2), 2);
	assert_int_equal(next, 3);
	/* behind: a retransmission, and the expected PSN stays */
	assert_int_equal(wire_ib_psn_step(&have, &next, 0xffffff), -1);
	assert_int_equal(wire_ib_psn_step(&have, &next, 2), -1);
	assert_int_equal(next, 3);
	assert_int_equal(wire_ib_psn_step(&have, &next, 3), 0);
	/* half the space ahead is behind */
	assert_int_equal(wire_ib_psn_step(&have, &next, (4 + 0x800000) & 0xffffff), -1);
	assert_int_equal(wire_ib_psn_step(&have, &next, 4 + 0x7fffff), 0x7fffff);
}

/* A QP is taken by a header whose h_csum is set and verifies, nothing less. */
static void test_ib_claims_qp(void **state)
{
	struct wire_hdr h = { .seq = 1, .sport = 4000, .len = 0 };
	uint8_t b[WIRE_HDR_LEN + 4] = { 0 };

	(void)state;
	wire_hdr_encode(&h, b, sizeof(b));
	/* 0 is the receiver's "absent", and any ULP's bytes can have it */
	assert_false(wire_ib_claims_qp(b, sizeof(b)));
	wire_hdr_csum_set(&h);
	wire_hdr_encode(&h, b, sizeof(b));
	assert_true(wire_ib_claims_qp(b, sizeof(b)));
	assert_true(wire_ib_claims_qp(b, WIRE_HDR_LEN));
	assert_false(wire_ib_claims_qp(b, WIRE_HDR_LEN - 1));
	h.csum++;
	wire_hdr_encode(&h, b, sizeof(b));
	assert_false(wire_ib_claims_qp(b, sizeof(b)));
	/* a verifying header with a length no message can have */
	h.len = WIRE_MAX_MSG_LEN + 1;
	wire_hdr_csum_set(&h);
	wire_hdr_encode(&h, b, sizeof(b));
	assert_false(wire_ib_claims_qp(b, sizeof(b)));
	h.len = WIRE_MAX_MSG_LEN;
	wire_hdr_csum_set(&h);
	wire_hdr_encode(&h, b, sizeof(b));
	assert_true(wire_ib_claims_qp(b, sizeof(b)));
}

CMOCKA_MAIN(
	cmocka_unit_test(test_ib_local_send_only_kat),
	cmocka_unit_test(test_ib_global_ack_kat),
	cmocka_unit_test(test_ib_vcrc_absent),
	cmocka_unit_test(test_ib_icrc_masks),
	cmocka_unit_test(test_ib_truncation_every_offset),
	cmocka_unit_test(test_ib_malformed),
	cmocka_unit_test(test_ib_unsupported_and_rules),
	cmocka_unit_test(test_ib_encode_identity),
	cmocka_unit_test(test_ib_encode_invalid),
	cmocka_unit_test(test_roce_encode_kat),
	cmocka_unit_test(test_roce_encode_v6_round_trip),
	cmocka_unit_test(test_ib_send_iter),
	cmocka_unit_test(test_ib_psn_step),
	cmocka_unit_test(test_ib_claims_qp))
