// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_roce.c - RoCEv2 decoder: known-answer packets, every extended
 * header family, truncation at every offset, malformed vs truncated, rules. */
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
 * Known-answer vectors. The ICRCs were computed outside libwire, with
 * Python's zlib.crc32 over eight 0xff bytes followed by the packet with
 * the variant fields set to all ones, stored little-endian, e.g.
 *   m = bytearray(pkt[:-4]); m[1] = m[8] = m[10] = m[11] = 0xff
 *   m[26] = m[27] = m[32] = 0xff    # IPv4: UDP csum, BTH resv8a
 *   struct.pack('<I', zlib.crc32(b'\xff' * 8 + bytes(m)))
 * That convention was confirmed on a real ConnectX-4 Lx capture (CX4_CNP
 * below, from scapy's test/contrib/roce.uts): the same recipe reproduces
 * the ICRC the NIC sent. The three hand-built packets were also wrapped
 * in Ethernet, written to a pcap and opened with tshark 4.0.17
 * (-o infiniband.identify_payload:FALSE -T fields -e infiniband.bth.*
 * -e infiniband.reth.* -e infiniband.aeth.* -e infiniband.invariant.crc):
 * it decodes the same opcode, SE, PadCnt, P_Key, QPN, A, PSN, RETH and
 * AETH values and the same four ICRC bytes (it shows them big-endian:
 * 0x7352700e, 0x5e17ae6b, 0xf7c3847c). tshark 4.0 does not verify the
 * ICRC, so the value check rests on zlib and the hardware capture.
 */
static const char V4_SEND_ONLY[] =
	"45 02 0064 1234 4000 40 11 a4e4 c0a8010a c0a80114  # IPv4, 100 bytes\n"
	"c0de 12b7 0050 0000                                # UDP -> 4791, len 80\n"
	WT_SEND_HELLO_HEX
	"7352700e                                           # ICRC\n";

static const char V6_WRITE_ONLY_IMM[] =
	"6 68 12345 0034 11 40                              # IPv6 tc 0x68 flow 0x12345\n"
	"fe800000000000000000000000000001\n"
	"fe800000000000000000000000000002\n"
	"c0de 12b7 0034 0000                                # UDP len 52\n"
	"0b 00 ffff 00 000022 80 123456                     # RC RDMA_WRITE_ONLY_IMM\n"
	"00007f0012345000 abcdef01 00000008                 # RETH va rkey len\n"
	"deadbeef                                           # ImmDt\n"
	"0001020304050607                                   # payload\n"
	"5e17ae6b                                           # ICRC\n";

static const char V4_OPTS_ACK[] =
	"46 02 0034 1234 4000 40 11 a213 c0a8010a c0a80114  # IPv4 IHL 6\n"
	"01010100                                           # NOP NOP NOP EOL\n"
	"c0de 12b7 001c 0000                                # UDP len 28\n"
	"11 00 ffff 00 000011 00 000007                     # RC ACKNOWLEDGE\n"
	"1f000005                                           # AETH syndrome 0x1f msn 5\n"
	"f7c3847c                                           # ICRC\n";

/* A CNP as a ConnectX-4 Lx sent it (BECN set in BTH byte 4). */
static const char CX4_CNP[] =
	"45c2 003c 718c 4000 4011 9161 0a001101 0a001201\n"
	"0000 12b7 0028 0000\n"
	"81 00 ffff 40 000118 00 000000\n"
	"00000000000000000000000000000000\n"
	"82fd002a\n";

static int decode_exact(struct wire_roce *r, const uint8_t *p, size_t len, size_t wire_len)
{
	return verbs_decode_exact(wire_roce_decode, r, p, len, wire_len);
}

static void test_roce_v4_send_only_kat(void **state)
{
	struct wt_kat k;

	(void)state;
	wt_verbs_kat(&k, wire_roce_decode, V4_SEND_ONLY, 100, 0, 0x0e705273);
	assert_int_equal(k.r.ip_version, 4);
	assert_memory_equal(k.r.src, "\xc0\xa8\x01\x0a", 4);
	assert_memory_equal(k.r.dst, "\xc0\xa8\x01\x14", 4);
	assert_int_equal(k.r.udp_sport, 0xc0de);
	assert_int_equal(k.r.udp_dport, 4791);
	wt_send_hello_is(&k.r, k.b + 20 + 8);
	assert_int_equal(k.r.icrc_computed, 0x0e705273);
	assert_int_equal(wire_roce_icrc(k.b, k.n - 4), 0x0e705273);
}

static void test_roce_v6_write_only_imm_kat(void **state)
{
	struct wt_kat k;

	(void)state;
	wt_verbs_kat(&k, wire_roce_decode, V6_WRITE_ONLY_IMM, 92, 92, 0x6bae175e);
	assert_int_equal(k.r.ip_version, 6);
	assert_int_equal(k.r.src[0], 0xfe);
	assert_int_equal(k.r.src[15], 1);
	assert_int_equal(k.r.dst[15], 2);
	assert_int_equal(k.r.bth.opcode, WIRE_IB_RC_WRITE_ONLY_IMM);
	assert_int_equal(k.r.bth.psn, 0x123456);
	assert_int_equal(k.r.bth.dqpn, 0x22);
	assert_true(k.r.has_reth);
	assert_true(k.r.has_imm);
	assert_false(k.r.has_aeth);
	assert_int_equal(k.r.reth.va, 0x00007f0012345000ull);
	assert_int_equal(k.r.reth.rkey, 0xabcdef01);
	assert_int_equal(k.r.reth.dma_len, 8);
	assert_int_equal(k.r.imm, 0xdeadbeef);
	assert_int_equal(k.r.payload_len, 8);
	assert_memory_equal(k.r.payload, "\x00\x01\x02\x03\x04\x05\x06\x07", 8);
}

static void test_roce_v4_options_ack_kat(void **state)
{
	struct wt_kat k;

	(void)state;
	wt_verbs_kat(&k, wire_roce_decode, V4_OPTS_ACK, 52, 0, 0x7c84c3f7);
	assert_int_equal(k.r.udp_sport, 0xc0de);
	wt_ack5_is(&k.r);
}

static void test_roce_cx4_cnp_capture(void **state)
{
	struct wt_kat k;

	(void)state;
	wt_verbs_kat(&k, wire_roce_decode, CX4_CNP, 60, 0, 0x2a00fd82);
	assert_int_equal(k.r.bth.opcode, WIRE_IB_CNP);
	assert_int_equal(k.r.bth.resv8a, 0x40);   /* BECN */
	assert_int_equal(k.r.bth.dqpn, 0x118);
	assert_int_equal(k.r.payload_len, 16);
	assert_string_equal(wire_ib_opcode_name(k.r.bth.opcode), "CNP");
}

/* Routers and switches may rewrite the variant fields: the ICRC must not
 * change. Anything else must change it. */
static void test_roce_icrc_masks(void **state)
{
	static const size_t v4_variant[] = { 1, 8, 10, 11, 26, 27, 32 };
	static const size_t v6_variant[] = { 1, 2, 3, 7, 46, 47, 52 };
	uint8_t b[256];
	size_t n;
	struct wire_roce r;

	(void)state;
	n = hex_decode(V4_SEND_ONLY, b, sizeof(b));
	wt_icrc_variant(wire_roce_decode, b, n, v4_variant, WT_COUNT(v4_variant));
	n = hex_decode(V6_WRITE_ONLY_IMM, b, sizeof(b));
	wt_icrc_variant(wire_roce_decode, b, n, v6_variant, WT_COUNT(v6_variant));
	/* the low nibble of byte 0 is traffic class: masked */
	b[0] ^= 0x05;
	assert_int_equal(decode_exact(&r, b, n, 0), 0);
	assert_true(r.icrc_ok);
	/* an invariant byte: the PSN */
	b[40 + 8 + 11] ^= 1;
	assert_int_equal(decode_exact(&r, b, n, 0), 0);
	assert_true(r.icrc_checked);
	assert_false(r.icrc_ok);
	assert_true(wire_rules_has(&r.rules, WIRE_RULE_ROCE_ICRC));
	assert_int_equal(wire_rules_count(&r.rules), 1);
	/* a flipped ICRC byte */
	n = hex_decode(V4_OPTS_ACK, b, sizeof(b));
	b[n - 1] ^= 0x80;
	assert_int_equal(decode_exact(&r, b, n, 0), 0);
	assert_false(r.icrc_ok);
	assert_true(wire_rules_has(&r.rules, WIRE_RULE_ROCE_ICRC));
}

/*
 * Builder for the header-family tests: IPv4/UDP/BTH, |ext| as given,
 * |plen| payload bytes, |pad| pad bytes and a correct ICRC (computed by
 * wire_roce_icrc, which the vectors above pin down).
 */
static size_t build(uint8_t *b, uint8_t opcode, uint8_t flags, const uint8_t *ext,
		    size_t elen, size_t plen, unsigned pad)
{
	const uint8_t bth[12] = { opcode, (uint8_t)(flags | pad << 4), 0xff, 0xff,
				  0x00, 0x00, 0x00, 0x33 };
	uint8_t pay[1024];
	struct wt_roce4 s = {
		.addrs = "\x0a\x00\x00\x01\x0a\x00\x00\x02", .sport = 0xc001,
		.bth = bth, .ext = ext, .elen = elen, .pay = pay, .plen = plen, .pad = pad,
	};

	assert_true(plen <= sizeof(pay));
	for (size_t i = 0; i < plen; i++)
		pay[i] = (uint8_t)(0xa0 + i);
	return wt_roce4_build(b, 20 + 8 + 12 + elen + plen + pad + 4, &s);
}

enum {
	F_RETH = 1, F_AETH = 2, F_DETH = 4, F_IMM = 8, F_IETH = 16,
	F_ATOMIC = 32, F_ATOMIC_ACK = 64,
};

static void test_roce_ext_header_families(void **state)
{
	static const struct {
		uint8_t opcode;
		unsigned flags;
		size_t elen;
		size_t plen;
		bool opcode_rule;
	} t[] = {
		{ 0x00, 0, 0, 64, false },                      /* RC SEND_FIRST */
		{ 0x01, 0, 0, 64, false },                      /* RC SEND_MIDDLE */
		{ 0x03, F_IMM, 4, 7, false },                   /* RC SEND_LAST_IMM */
		{ 0x05, F_IMM, 4, 3, false },                   /* RC SEND_ONLY_IMM */
		{ 0x06, F_RETH, 16, 32, false },                /* RC WRITE_FIRST */
		{ 0x07, 0, 0, 32, false },                      /* RC WRITE_MIDDLE */
		{ 0x09, F_IMM, 4, 5, false },                   /* RC WRITE_LAST_IMM */
		{ 0x0a, F_RETH, 16, 9, false },                 /* RC WRITE_ONLY */
		{ 0x0c, F_RETH, 16, 0, false },                 /* RC READ_REQUEST */
		{ 0x0d, F_AETH, 4, 64, false },                 /* RC READ_RESP_FIRST */
		{ 0x0e, 0, 0, 64, false },                      /* RC READ_RESP_MIDDLE */
		{ 0x10, F_AETH, 4, 11, false },                 /* RC READ_RESP_ONLY */
		{ 0x12, F_AETH | F_ATOMIC_ACK, 12, 0, false },  /* RC ATOMIC_ACK */
		{ 0x13, F_ATOMIC, 28, 0, false },               /* RC CMP_SWAP */
		{ 0x14, F_ATOMIC, 28, 0, false },               /* RC FETCH_ADD */
		{ 0x16, F_IETH, 4, 6, false },                  /* RC SEND_LAST_INV */
		{ 0x17, F_IETH, 4, 6, false },                  /* RC SEND_ONLY_INV */
		{ 0x24, 0, 0, 10, false },                      /* UC SEND_ONLY */
		{ 0x2b, F_RETH | F_IMM, 20, 10, false },        /* UC WRITE_ONLY_IMM */
		{ 0x64, F_DETH, 8, 256, false },                /* UD SEND_ONLY */
		{ 0x65, F_DETH | F_IMM, 12, 5, false },         /* UD SEND_ONLY_IMM */
		{ 0xa4, 0, 4, 10, false },                      /* XRC SEND_ONLY (XRCETH) */
		{ 0xb1, F_AETH, 4, 0, false },                  /* XRC ACK: no XRCETH */
		{ 0x44, F_DETH, 12, 10, true },                 /* RD SEND_ONLY: RDETH+DETH */
		{ 0x51, F_AETH, 8, 0, true },                   /* RD ACK: RDETH+AETH */
		{ 0x15, 0, 0, 10, true },                       /* reserved RC op */
		{ 0x2c, 0, 0, 10, true },                       /* UC has no READ */
		{ 0x60, 0, 0, 10, true },                       /* UD SEND_FIRST */
		{ 0xe0, 0, 0, 10, true },                       /* manufacturer */
		{ 0x80, 0, 0, 16, true },                       /* IB CNP, not RoCE */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint8_t ext[64], b[512];
		struct wire_roce r;
		size_t n;

		for (size_t k = 0; k < sizeof(ext); k++)
			ext[k] = (uint8_t)(0x10 + k);
		n = build(b, t[i].opcode, 0, ext, t[i].elen, t[i].plen, 0);
		assert_int_equal(decode_exact(&r, b, n, 0), 0);
		assert_int_equal(r.bth.opcode, t[i].opcode);
		assert_true(r.icrc_ok);
		assert_int_equal(!!r.has_reth, !!(t[i].flags & F_RETH));
		assert_int_equal(!!r.has_aeth, !!(t[i].flags & F_AETH));
		assert_int_equal(!!r.has_deth, !!(t[i].flags & F_DETH));
		assert_int_equal(!!r.has_imm, !!(t[i].flags & F_IMM));
		assert_int_equal(!!r.has_ieth, !!(t[i].flags & F_IETH));
		assert_int_equal(!!r.has_atomic_eth, !!(t[i].flags & F_ATOMIC));
		assert_int_equal(!!r.has_atomic_ack, !!(t[i].flags & F_ATOMIC_ACK));
		assert_ptr_equal(r.payload, b + 40 + t[i].elen);
		assert_int_equal(r.payload_len, t[i].plen);
		assert_int_equal(wire_rules_has(&r.rules, WIRE_RULE_ROCE_OPCODE),
				 t[i].opcode_rule);
	}
}

static void test_roce_ext_header_values(void **state)
{
	static const uint8_t deth_imm[] = {
		0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,  /* Q_Key, QP1 */
		0x11, 0x22, 0x33, 0x44,                          /* ImmDt */
	};
	static const uint8_t ieth[] = { 0x01, 0x02, 0x03, 0x04 };
	uint8_t b[512];
	struct wire_roce r;
	size_t n;

	(void)state;
	n = build(b, WIRE_IB_UD_SEND_ONLY_IMM, 0, deth_imm, sizeof(deth_imm), 4, 0);
	assert_int_equal(decode_exact(&r, b, n, 0), 0);
	assert_int_equal(r.deth.qkey, 0x80010000);
	assert_int_equal(r.deth.resv, 0);
	assert_int_equal(r.deth.src_qp, 1);
	assert_int_equal(r.imm, 0x11223344);
	n = build(b, WIRE_IB_RC_SEND_ONLY_INV, 0, ieth, sizeof(ieth), 1, 3);
	assert_int_equal(decode_exact(&r, b, n, 0), 0);
	assert_int_equal(r.ieth_rkey, 0x01020304);
	assert_int_equal(r.payload_len, 1);
	assert_int_equal(r.bth.padcnt, 3);
	assert_true(wire_rules_empty(&r.rules));
}

/* Every prefix of a valid packet is TRUNC or decodes with the ICRC unchecked. */
static void check_every_prefix(const uint8_t *b, size_t n, size_t hdr_end)
{
	for (size_t cut = 0; cut < n; cut++) {
		struct wire_roce r;
		int rc = decode_exact(&r, b, cut, n);
		int rc0 = decode_exact(&r, b, cut, 0);

		assert_int_equal(rc, rc0);
		if (cut < hdr_end) {
			assert_int_equal(rc, WIRE_ERR_TRUNC);
		} else {
			assert_int_equal(rc, 0);
			assert_false(r.icrc_checked);
			assert_true(wire_rules_empty(&r.rules));
		}
	}
}

static void test_roce_truncation_every_offset(void **state)
{
	uint8_t b[512], ext[16] = { 0 };
	size_t n;

	(void)state;
	n = hex_decode(V4_SEND_ONLY, b, sizeof(b));
	check_every_prefix(b, n, 40);
	n = hex_decode(V6_WRITE_ONLY_IMM, b, sizeof(b));
	check_every_prefix(b, n, 60 + 20);
	n = hex_decode(V4_OPTS_ACK, b, sizeof(b));
	check_every_prefix(b, n, 24 + 8 + 12 + 4);
	n = hex_decode(CX4_CNP, b, sizeof(b));
	check_every_prefix(b, n, 40);
	n = build(b, WIRE_IB_RC_WRITE_FIRST, 0, ext, 16, 100, 0);
	check_every_prefix(b, n, 56);
}

/* Capture cut inside the payload: the payload is what was captured. */
static void test_roce_truncated_payload(void **state)
{
	uint8_t b[256];
	size_t n = hex_decode(V4_SEND_ONLY, b, sizeof(b));
	struct wire_roce r;

	(void)state;
	assert_int_equal(decode_exact(&r, b, 40 + 48, n), 0);
	assert_int_equal(r.payload_len, 48);
	assert_false(r.icrc_checked);
	assert_false(r.icrc_ok);
	/* cut in the pad: payload complete, ICRC still unchecked */
	assert_int_equal(decode_exact(&r, b, n - 5, n), 0);
	assert_int_equal(r.payload_len, 53);
	assert_false(r.icrc_checked);
	/* captured past the IP packet (Ethernet padding): still checked */
	{
		uint8_t c[300];

		memcpy(c, b, n);
		memset(c + n, 0, 6);
		assert_int_equal(decode_exact(&r, c, n + 6, n + 6), 0);
		assert_true(r.icrc_checked);
		assert_true(r.icrc_ok);
		assert_int_equal(r.payload_len, 53);
	}
}

static void test_roce_malformed_vs_truncated(void **state)
{
	uint8_t b[256], c[256];
	size_t n = hex_decode(V4_SEND_ONLY, b, sizeof(b));
	struct wire_roce r;

	(void)state;
	/* IHL 4: malformed, whether or not the rest is there */
	memcpy(c, b, n);
	c[0] = 0x44;
	assert_int_equal(decode_exact(&r, c, n, 0), WIRE_ERR_MALFORMED);
	assert_int_equal(decode_exact(&r, c, 20, n), WIRE_ERR_MALFORMED);
	assert_int_equal(decode_exact(&r, c, 19, n), WIRE_ERR_TRUNC);

	/* IP total length shorter than the IP header */
	memcpy(c, b, n);
	c[2] = 0;
	c[3] = 16;
	assert_int_equal(decode_exact(&r, c, n, 0), WIRE_ERR_MALFORMED);

	/* IHL 7 but only 24 bytes captured: options cut short */
	memcpy(c, b, n);
	c[0] = 0x47;
	assert_int_equal(decode_exact(&r, c, 24, n), WIRE_ERR_TRUNC);

	/* UDP length disagrees with IP length: roce.udp.len, malformed even
	 * when the capture stops right after the UDP header */
	memcpy(c, b, n);
	c[25] = 0x4f;
	assert_int_equal(decode_exact(&r, c, n, 0), WIRE_ERR_MALFORMED);
	assert_true(wire_rules_has(&r.rules, WIRE_RULE_ROCE_UDP_LEN));
	assert_int_equal(decode_exact(&r, c, 28, n), WIRE_ERR_MALFORMED);
	assert_true(wire_rules_has(&r.rules, WIRE_RULE_ROCE_UDP_LEN));
	assert_int_equal(decode_exact(&r, c, 27, n), WIRE_ERR_TRUNC);

	/* IP and UDP agree but leave no room for BTH + ICRC */
	memcpy(c, b, n);
	c[3] = 20 + 8 + 15;
	c[25] = 8 + 15;
	assert_int_equal(decode_exact(&r, c, 43, 0), WIRE_ERR_MALFORMED);
	assert_false(wire_rules_has(&r.rules, WIRE_RULE_ROCE_UDP_LEN));

	/* room for BTH + ICRC but not for the RETH a WRITE_FIRST needs */
	memcpy(c, b, n);
	c[3] = 20 + 8 + 12 + 4 + 8;
	c[25] = 8 + 12 + 4 + 8;
	c[28] = WIRE_IB_RC_WRITE_FIRST;
	c[29] = 0;
	assert_int_equal(decode_exact(&r, c, 52, 0), WIRE_ERR_MALFORMED);
	assert_int_equal(decode_exact(&r, c, 40, 52), WIRE_ERR_MALFORMED);

	/* pad larger than the payload: roce.bth.pad */
	memcpy(c, b, n);
	c[3] = 20 + 8 + 12 + 2 + 4;
	c[25] = 8 + 12 + 2 + 4;
	assert_int_equal(decode_exact(&r, c, 46, 0), WIRE_ERR_MALFORMED);
	assert_true(wire_rules_has(&r.rules, WIRE_RULE_ROCE_PAD));
	assert_int_equal(decode_exact(&r, c, 40, 46), WIRE_ERR_MALFORMED);
	assert_int_equal(decode_exact(&r, c, 39, 46), WIRE_ERR_TRUNC);

	/* the frame on the wire was shorter than the IP length */
	assert_int_equal(decode_exact(&r, b, 40, 60), WIRE_ERR_MALFORMED);
	assert_int_equal(decode_exact(&r, b, 19, 60), WIRE_ERR_TRUNC);

	/* empty and NULL */
	assert_int_equal(wire_roce_decode(&r, NULL, 0, 0), WIRE_ERR_TRUNC);
	assert_int_equal(wire_roce_decode(&r, NULL, 100, 0), WIRE_ERR_TRUNC);
	assert_int_equal(wire_roce_decode(NULL, b, n, 0), WIRE_ERR_INVAL);
}

static void test_roce_unsupported(void **state)
{
	static const struct wt_edit t[] = {
		{ V4_SEND_ONLY, 9, 6 },                 /* TCP */
		{ V4_SEND_ONLY, 23, 0xb8 },             /* port 4792 */
		{ V4_SEND_ONLY, 0, 0x55 },              /* IP version 5 */
		{ V4_SEND_ONLY, 6, 0x20 },              /* MF: a fragment */
		{ V4_SEND_ONLY, 7, 0x01 },              /* fragment offset */
		{ V6_WRITE_ONLY_IMM, 6, 0 },            /* hop-by-hop options */
	};
	struct wire_roce r;

	(void)state;
	for (size_t i = 0; i < WT_COUNT(t); i++)
		assert_int_equal(wt_verbs_set(wire_roce_decode, &r, &t[i]), WIRE_ERR_UNSUPP);
}

static void test_roce_rules(void **state)
{
	uint8_t b[512], c[512];
	size_t n;
	struct wire_roce r;

	(void)state;
	/* TVer 1 */
	n = build(b, WIRE_IB_RC_SEND_ONLY, 0x01, NULL, 0, 8, 0);
	assert_int_equal(decode_exact(&r, b, n, 0), 0);
	assert_int_equal(r.bth.tver, 1);
	assert_true(wire_rules_has(&r.rules, WIRE_RULE_ROCE_TVER));
	assert_true(r.icrc_ok);
	/* reserved opcode */
	n = build(b, 0x15, 0, NULL, 0, 8, 0);
	assert_int_equal(decode_exact(&r, b, n, 0), 0);
	assert_true(wire_rules_has(&r.rules, WIRE_RULE_ROCE_OPCODE));
	assert_null(wire_ib_opcode_name(0x15));
	/* PadCnt on a first packet, and on a header-only ACK */
	n = build(b, WIRE_IB_RC_SEND_FIRST, 0, NULL, 0, 61, 3);
	assert_int_equal(decode_exact(&r, b, n, 0), 0);
	assert_true(wire_rules_has(&r.rules, WIRE_RULE_ROCE_PAD));
	assert_int_equal(r.payload_len, 61);
	n = build(b, WIRE_IB_RC_ACK, 0, (const uint8_t *)"\0\0\0\1", 4, 0, 2);
	assert_int_equal(decode_exact(&r, b, n, 0), 0);
	assert_true(wire_rules_has(&r.rules, WIRE_RULE_ROCE_PAD));
	/* ...but not on a last packet */
	n = build(b, WIRE_IB_RC_SEND_LAST, 0, NULL, 0, 61, 3);
	assert_int_equal(decode_exact(&r, b, n, 0), 0);
	assert_true(wire_rules_empty(&r.rules));
	/* ICRC */
	memcpy(c, b, n);
	c[n - 4] ^= 1;
	assert_int_equal(decode_exact(&r, c, n, 0), 0);
	assert_true(wire_rules_has(&r.rules, WIRE_RULE_ROCE_ICRC));
	assert_int_equal(r.icrc ^ r.icrc_computed, 1);
	/* UDP length (covered in detail above) */
	memcpy(c, b, n);
	c[25]++;
	assert_int_equal(decode_exact(&r, c, n, 0), WIRE_ERR_MALFORMED);
	assert_true(wire_rules_has(&r.rules, WIRE_RULE_ROCE_UDP_LEN));
}

/*
 * RDS over RoCE: one IB SEND of 48 + 2101 bytes (an RDS header and a
 * fragment) over a 1024-byte path MTU is SEND_FIRST, SEND_MIDDLE and a
 * SEND_LAST of 101 bytes padded to 104.
 */
static void test_roce_rds_send_sequence(void **state)
{
	static const size_t plen[] = { 1024, 1024, 48 + 2101 - 2048 };
	static const uint8_t ops[] = {
		WIRE_IB_RC_SEND_FIRST, WIRE_IB_RC_SEND_MIDDLE, WIRE_IB_RC_SEND_LAST,
	};
	static const enum wire_ib_seg segs[] = {
		WIRE_IB_SEG_FIRST, WIRE_IB_SEG_MIDDLE, WIRE_IB_SEG_LAST,
	};
	uint8_t b[1200];

	(void)state;
	for (int i = 0; i < 3; i++) {
		struct wire_roce r;
		unsigned pad = (4 - plen[i] % 4) % 4;
		size_t n = build(b, ops[i], 0, NULL, 0, plen[i], pad);

		assert_int_equal(decode_exact(&r, b, n, 0), 0);
		assert_int_equal(wire_ib_opcode_seg(r.bth.opcode), segs[i]);
		assert_int_equal(r.payload_len, plen[i]);
		assert_true(wire_rules_empty(&r.rules));
	}
}

static void test_roce_opcode_names(void **state)
{
	static const struct wt_name names[] = {
		{ 0x00, "RC SEND_FIRST" }, { 0x04, "RC SEND_ONLY" },
		{ 0x0b, "RC RDMA_WRITE_ONLY_IMM" }, { 0x11, "RC ACKNOWLEDGE" },
		{ 0x17, "RC SEND_ONLY_INV" }, { 0x2a, "UC RDMA_WRITE_ONLY" },
		{ 0x64, "UD SEND_ONLY" }, { 0x65, "UD SEND_ONLY_IMM" },
		{ 0xa0, "XRC SEND_FIRST" }, { 0x81, "CNP" },
		{ 0x2c, NULL }, { 0x60, NULL }, { 0x80, NULL }, { 0xff, NULL },
	};
	static const struct {
		uint8_t op;
		enum wire_ib_seg seg;
	} segs[] = {
		{ 0x00, WIRE_IB_SEG_FIRST }, { 0x01, WIRE_IB_SEG_MIDDLE },
		{ 0x02, WIRE_IB_SEG_LAST }, { 0x03, WIRE_IB_SEG_LAST }, { 0x16, WIRE_IB_SEG_LAST },
		{ 0x04, WIRE_IB_SEG_ONLY }, { 0x05, WIRE_IB_SEG_ONLY }, { 0x17, WIRE_IB_SEG_ONLY },
		{ 0x64, WIRE_IB_SEG_ONLY }, { 0x20, WIRE_IB_SEG_FIRST }, { 0x06, WIRE_IB_SEG_NONE },
		{ 0x11, WIRE_IB_SEG_NONE }, { 0x36, WIRE_IB_SEG_NONE }, { 0x60, WIRE_IB_SEG_NONE },
		{ 0x81, WIRE_IB_SEG_NONE },
	};

	(void)state;
	for (size_t i = 0; i < WT_COUNT(names); i++)
		wt_name_is(wire_ib_opcode_name((uint8_t)names[i].v), names[i].name);
	for (unsigned op = 0; op < 256; op++) {
		const char *s = wire_ib_opcode_name((uint8_t)op);

		if (s)
			assert_true(strlen(s) > 2);
	}
	for (size_t i = 0; i < WT_COUNT(segs); i++)
		assert_int_equal(wire_ib_opcode_seg(segs[i].op), segs[i].seg);
}

static void test_roce_icrc_any_input(void **state)
{
	uint8_t b[64];

	(void)state;
	memset(b, 0xff, sizeof(b));
	/* short or odd inputs are hashed as far as they go */
	for (size_t n = 0; n < sizeof(b); n++)
		(void)wire_roce_icrc(b, n);
	(void)wire_roce_icrc(NULL, 0);
	b[0] = 0x41;                            /* IHL 1: treated as 20 */
	(void)wire_roce_icrc(b, sizeof(b));
}

CMOCKA_MAIN(
	cmocka_unit_test(test_roce_v4_send_only_kat),
	cmocka_unit_test(test_roce_v6_write_only_imm_kat),
	cmocka_unit_test(test_roce_v4_options_ack_kat),
	cmocka_unit_test(test_roce_cx4_cnp_capture),
	cmocka_unit_test(test_roce_icrc_masks),
	cmocka_unit_test(test_roce_ext_header_families),
	cmocka_unit_test(test_roce_ext_header_values),
	cmocka_unit_test(test_roce_truncation_every_offset),
	cmocka_unit_test(test_roce_truncated_payload),
	cmocka_unit_test(test_roce_malformed_vs_truncated),
	cmocka_unit_test(test_roce_unsupported),
	cmocka_unit_test(test_roce_rules),
	cmocka_unit_test(test_roce_rds_send_sequence),
	cmocka_unit_test(test_roce_opcode_names),
	cmocka_unit_test(test_roce_icrc_any_input))
