// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_craft.c - rds-conform craft's pure builder: every header field
 * where it belongs, the automatic length, each checksum mode, extension
 * headers as a 7.x sender writes them (decoded back by libwire), maps
 * from port lists, truncation, repetition, the preface, and the option
 * values it refuses. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "cmain.h"

#include "craft.h"

static char err[256];

static struct wire_hdr build(const struct craft_msg *m, uint64_t i, uint8_t *buf, size_t cap,
			     ssize_t *n)
{
	struct wire_hdr h;

	*n = craft_build(m, i, buf, cap);
	assert_true(*n >= WIRE_HDR_LEN);
	assert_int_equal(wire_hdr_decode(&h, buf, (size_t)*n), WIRE_HDR_LEN);
	return h;
}

static void test_craft_defaults(void **state)
{
	struct craft_msg m;
	uint8_t buf[64];
	ssize_t n;
	struct wire_hdr h, want;

	(void)state;
	craft_msg_init(&m);
	h = build(&m, 0, buf, sizeof(buf), &n);
	assert_int_equal(n, WIRE_HDR_LEN);
	wire_build_data(&want, 1, 4000, 4001, 0);
	assert_memory_equal(&h, &want, sizeof(h));
	/* with a preface, the first message follows its probe ping (seq 1) */
	m.preface = true;
	h = build(&m, 0, buf, sizeof(buf), &n);
	assert_int_equal(h.seq, 2);
}

static void test_craft_fields(void **state)
{
	static const uint8_t pl[5] = "hello";
	static const uint8_t want[WIRE_HDR_LEN] = {
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,   /* seq */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x09,   /* ack */
		0x00, 0x00, 0x00, 0x05,                           /* len: auto */
		0x12, 0x34, 0xab, 0xcd,                           /* ports */
		0x46, 0x07,                                       /* flags, credit */
		0xde, 0xad, 0xbe, 0xef,                           /* pad */
		0x00, 0x00,                                       /* csum */
	};
	struct craft_msg m;
	uint8_t buf[64];
	ssize_t n;

	(void)state;
	craft_msg_init(&m);
	m.set = CRAFT_SET_SEQ | CRAFT_SET_ACK | CRAFT_SET_SPORT | CRAFT_SET_DPORT |
		CRAFT_SET_FLAGS | CRAFT_SET_CREDIT | CRAFT_SET_PAD;
	m.seq = 0x0102030405060708ull;
	m.ack = 9;
	m.sport = 0x1234;
	m.dport = 0xabcd;
	assert_int_equal(craft_parse_flags("ackreq,retrans,0x40", &m.flags, err, sizeof(err)), 0);
	m.credit = 7;
	memcpy(m.pad, "\xde\xad\xbe\xef", 4);
	m.has_payload = true;
	m.payload = pl;
	m.payload_len = sizeof(pl);
	build(&m, 0, buf, sizeof(buf), &n);
	assert_int_equal(n, WIRE_HDR_LEN + 5);
	assert_memory_equal(buf, want, sizeof(want));
	assert_memory_equal(buf + WIRE_HDR_LEN, "hello", 5);
	/* a wrong length on purpose; the payload stays what it is */
	m.set |= CRAFT_SET_LEN;
	m.len = 100;
	assert_int_equal(build(&m, 0, buf, sizeof(buf), &n).len, 100);
	assert_int_equal(n, WIRE_HDR_LEN + 5);
	/* too small a buffer */
	assert_int_equal(craft_build(&m, 0, buf, 52), -1);
}

static void test_craft_csum(void **state)
{
	struct craft_msg m;
	struct wire_hdr h;
	uint16_t good;

	(void)state;
	craft_msg_init(&m);
	m.kind = CRAFT_PROBE_PING;
	craft_hdr(&m, 0, &h);
	assert_int_equal(h.csum, 0);
	assert_true(wire_hdr_csum_ok(&h));      /* absent */

	assert_int_equal(craft_parse_csum("auto", &m.csum, &m.csum_value, err, sizeof(err)), 0);
	craft_hdr(&m, 0, &h);
	assert_int_not_equal(h.csum, 0);
	assert_true(wire_hdr_csum_ok(&h));
	good = h.csum;

	assert_int_equal(craft_parse_csum("bad", &m.csum, &m.csum_value, err, sizeof(err)), 0);
	craft_hdr(&m, 0, &h);
	assert_int_equal(h.csum, (uint16_t)(good + 1));
	assert_false(wire_hdr_csum_ok(&h));

	assert_int_equal(craft_parse_csum("0xbeef", &m.csum, &m.csum_value, err, sizeof(err)), 0);
	craft_hdr(&m, 0, &h);
	assert_int_equal(h.csum, 0xbeef);

	assert_int_equal(craft_parse_csum("zero", &m.csum, &m.csum_value, err, sizeof(err)), 0);
	craft_hdr(&m, 0, &h);
	assert_int_equal(h.csum, 0);
	assert_int_equal(craft_parse_csum("good", &m.csum, &m.csum_value, err, sizeof(err)), -1);
	assert_int_equal(craft_parse_csum("65536", &m.csum, &m.csum_value, err, sizeof(err)), -1);

	/* auto covers the fields set after the kind, the extensions too */
	craft_msg_init(&m);
	m.csum = CRAFT_CSUM_AUTO;
	assert_int_equal(craft_parse_ext("rdma=7", &m.ext[m.n_ext++], err, sizeof(err)), 0);
	m.set |= CRAFT_SET_LEN;
	m.len = 12345;
	craft_hdr(&m, 0, &h);
	assert_true(wire_hdr_csum_ok(&h));
}

/* --ext as a 7.x sender writes: the probe's three give exactly the bytes
 * wire_build_probe() does, and libwire decodes every value back. */
static void test_craft_ext(void **state)
{
	struct craft_msg m;
	struct wire_hdr h, probe;
	struct wire_exts x;

	(void)state;
	craft_msg_init(&m);
	assert_int_equal(craft_parse_ext("npaths=8", &m.ext[m.n_ext++], err, sizeof(err)), 0);
	assert_int_equal(craft_parse_ext("gen=0x1234", &m.ext[m.n_ext++], err, sizeof(err)), 0);
	assert_int_equal(craft_parse_ext("sport-idx", &m.ext[m.n_ext++], err, sizeof(err)), 0);
	assert_int_equal(craft_hdr(&m, 0, &h), 0);
	wire_build_probe(&probe, false, 1, WIRE_KVER_7, 8, 0x1234);
	assert_memory_equal(h.ext, probe.ext, WIRE_EXT_SPACE);
	wire_exts_decode(&x, h.ext, WIRE_KVER_7);
	assert_true(x.has_npaths && x.has_gen_num && x.has_sport_idx);
	assert_int_equal(x.npaths, 8);
	assert_int_equal(x.gen_num, 0x1234);

	/* what a 7.x IB sender puts on an RDMA message: RDMA, then RDMA_BYTES */
	craft_msg_init(&m);
	assert_int_equal(craft_parse_ext("rdma=0x11223344", &m.ext[m.n_ext++], err, sizeof(err)), 0);
	assert_int_equal(craft_parse_ext("rdma-bytes=1000:wr|rd", &m.ext[m.n_ext++], err,
					 sizeof(err)), 0);
	assert_int_equal(craft_hdr(&m, 0, &h), 0);
	wire_exts_decode(&x, h.ext, WIRE_KVER_7);
	assert_int_equal(x.count, 2);
	assert_int_equal(x.e[0].type, WIRE_EXT_RDMA);
	assert_int_equal(x.e[0].u.rdma_rkey, 0x11223344);
	assert_int_equal(x.e[1].type, WIRE_EXT_RDMA_BYTES);
	assert_int_equal(x.e[1].u.rdma_bytes.bytes, 1000);
	assert_int_equal(x.e[1].u.rdma_bytes.rflags, WIRE_RDMA_WR_BYTES | WIRE_RDMA_RD_BYTES);

	craft_msg_init(&m);
	assert_int_equal(craft_parse_ext("rdma-dest=0x11223344:4096", &m.ext[m.n_ext++], err,
					 sizeof(err)), 0);
	assert_int_equal(craft_parse_ext("rdma-bytes=7:2", &m.ext[m.n_ext++], err, sizeof(err)), 0);
	/* 9 + 9 bytes: the second is cut after its first 7 */
	assert_int_equal(craft_hdr(&m, 0, &h), 2);
	wire_exts_decode(&x, h.ext, WIRE_KVER_7);
	assert_int_equal(x.e[0].type, WIRE_EXT_RDMA_DEST);
	assert_int_equal(x.e[0].u.rdma_dest.rkey, 0x11223344);
	assert_int_equal(x.e[0].u.rdma_dest.offset, 4096);
	assert_true(x.overrun);

	/* version, rdma, and raw types placed byte for byte */
	craft_msg_init(&m);
	assert_int_equal(craft_parse_ext("version=0x0301", &m.ext[m.n_ext++], err, sizeof(err)), 0);
	assert_int_equal(craft_parse_ext("12=aabb", &m.ext[m.n_ext++], err, sizeof(err)), 0);
	assert_int_equal(craft_parse_ext("rdma=5", &m.ext[m.n_ext++], err, sizeof(err)), 0);
	assert_int_equal(craft_hdr(&m, 0, &h), 0);
	{
		static const uint8_t want[WIRE_EXT_SPACE] = { 1, 0, 0, 3, 1, 12, 0xaa, 0xbb,
							      2, 0, 0, 0, 5, 0, 0, 0 };

		assert_memory_equal(h.ext, want, sizeof(want));
	}
	wire_exts_decode(&x, h.ext, WIRE_KVER_7);
	assert_true(wire_rules_has(&x.rules, WIRE_RULE_EXT_UNKNOWN));

	/* what does not fit is cut at 16, and counted */
	craft_msg_init(&m);
	for (int i = 0; i < 3; i++)
		assert_int_equal(craft_parse_ext("rdma-dest=1:2", &m.ext[m.n_ext++], err,
						 sizeof(err)), 0);
	assert_int_equal(craft_hdr(&m, 0, &h), 27 - 16);
	assert_int_equal(h.ext[9], WIRE_EXT_RDMA_DEST);
	wire_exts_decode(&x, h.ext, WIRE_KVER_7);
	assert_true(x.overrun);

	/* cap-bits is non-mainline: placed raw, type 7 and a be32 */
	craft_msg_init(&m);
	assert_int_equal(craft_parse_ext("cap-bits=0x01020304", &m.ext[m.n_ext++], err,
					 sizeof(err)), 0);
	craft_hdr(&m, 0, &h);
	assert_memory_equal(h.ext, "\x07\x01\x02\x03\x04\x00", 6);

	/* --ext-raw verbatim */
	craft_msg_init(&m);
	m.has_ext_raw = true;
	memset(m.ext_raw, 0xee, sizeof(m.ext_raw));
	craft_hdr(&m, 0, &h);
	assert_memory_equal(h.ext, m.ext_raw, WIRE_EXT_SPACE);

	/* and a probe's own extensions are replaced by --ext */
	craft_msg_init(&m);
	m.kind = CRAFT_PROBE_PONG;
	craft_hdr(&m, 0, &h);
	wire_exts_decode(&x, h.ext, WIRE_KVER_7);
	assert_int_equal(x.gen_num, CRAFT_DEFAULT_GEN);
	assert_int_equal(h.sport, 0);
	assert_int_equal(h.dport, 1);
	assert_int_equal(craft_parse_ext("npaths=3", &m.ext[m.n_ext++], err, sizeof(err)), 0);
	craft_hdr(&m, 0, &h);
	wire_exts_decode(&x, h.ext, WIRE_KVER_7);
	assert_int_equal(x.count, 1);
	assert_int_equal(x.npaths, 3);
	/* a 6.x probe carries NPATHS only */
	craft_msg_init(&m);
	m.kind = CRAFT_PROBE_PING;
	m.kv = WIRE_KVER_6;
	craft_hdr(&m, 0, &h);
	wire_exts_decode(&x, h.ext, WIRE_KVER_7);
	assert_int_equal(x.count, 1);

	/* refused */
	assert_int_equal(craft_parse_ext("npaths", &m.ext[0], err, sizeof(err)), -1);
	assert_int_equal(craft_parse_ext("npaths=70000", &m.ext[0], err, sizeof(err)), -1);
	assert_int_equal(craft_parse_ext("bogus=1", &m.ext[0], err, sizeof(err)), -1);
	assert_int_equal(craft_parse_ext("rdma-dest=1", &m.ext[0], err, sizeof(err)), -1);
	assert_int_equal(craft_parse_ext("rdma-bytes=1:xx", &m.ext[0], err, sizeof(err)), -1);
	assert_int_equal(craft_parse_ext("0=00", &m.ext[0], err, sizeof(err)), -1);
	assert_int_equal(craft_parse_ext("9=123", &m.ext[0], err, sizeof(err)), -1);
	assert_int_equal(craft_parse_ext("=1", &m.ext[0], err, sizeof(err)), -1);
}

static void test_craft_kinds(void **state)
{
	static const struct {
		enum craft_kind kind;
		enum wire_kind want;
	} t[] = {
		{ CRAFT_PONG, WIRE_KIND_PONG },
		{ CRAFT_PROBE_PING, WIRE_KIND_PROBE_PING },
		{ CRAFT_PROBE_PONG, WIRE_KIND_PROBE_PONG },
	};
	struct craft_msg m;
	struct wire_hdr h;
	enum craft_kind k;

	(void)state;
	craft_msg_init(&m);
	assert_int_equal(craft_parse_kind("ping", &k, err, sizeof(err)), 0);
	m.kind = k;
	craft_hdr(&m, 0, &h);
	assert_int_equal(wire_classify(&h, WIRE_XPORT_TCP), WIRE_KIND_PING);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		m.kind = t[i].kind;
		craft_hdr(&m, 0, &h);
		assert_int_equal(wire_classify(&h, WIRE_XPORT_TCP), t[i].want);
	}
	assert_int_equal(craft_parse_kind("probe", &k, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "probe"));
}

static void test_craft_cong(void **state)
{
	static uint8_t buf[WIRE_HDR_LEN + WIRE_CONG_MAP_BYTES];
	struct wire_cong_map map;
	struct craft_msg m;
	struct wire_hdr h;
	ssize_t n;

	(void)state;
	craft_msg_init(&m);
	m.kind = CRAFT_CONG;
	assert_int_equal(craft_parse_ports("4000,5000-5010", &m.cong, err, sizeof(err)), 0);
	h = build(&m, 0, buf, sizeof(buf), &n);
	assert_int_equal(n, WIRE_HDR_LEN + WIRE_CONG_MAP_BYTES);
	assert_int_equal(h.len, WIRE_CONG_MAP_BYTES);
	assert_int_equal(h.flags, WIRE_FLAG_CONG_BITMAP);
	assert_int_equal(h.seq, 0);
	assert_int_equal(wire_classify(&h, WIRE_XPORT_TCP), WIRE_KIND_CONG);
	assert_int_equal(wire_cong_decode(&map, buf + WIRE_HDR_LEN, WIRE_CONG_MAP_BYTES),
			 WIRE_CONG_MAP_BYTES);
	assert_int_equal(wire_cong_count(&map), 12);
	assert_true(wire_cong_test(&map, 4000));
	assert_true(wire_cong_test(&map, 5000) && wire_cong_test(&map, 5010));
	assert_false(wire_cong_test(&map, 5011) || wire_cong_test(&map, 4999));
	/* repeated maps keep seq 0, as the kernel's */
	assert_int_equal(build(&m, 3, buf, sizeof(buf), &n).seq, 0);

	assert_int_equal(craft_parse_ports("", &m.cong, err, sizeof(err)), -1);
	assert_int_equal(craft_parse_ports("10-5", &m.cong, err, sizeof(err)), -1);
	assert_int_equal(craft_parse_ports("4000,", &m.cong, err, sizeof(err)), -1);
	assert_int_equal(craft_parse_ports("65536", &m.cong, err, sizeof(err)), -1);
	assert_int_equal(craft_parse_ports("0,65535", &m.cong, err, sizeof(err)), 0);
}

static void test_craft_truncate_and_count(void **state)
{
	uint8_t full[64], cut[64];
	struct craft_msg m;
	ssize_t n;

	(void)state;
	craft_msg_init(&m);
	m.has_payload = true;
	m.payload = (const uint8_t *)"0123456789";
	m.payload_len = 10;
	build(&m, 0, full, sizeof(full), &n);
	assert_int_equal(n, 58);
	m.has_truncate = true;
	m.truncate = 20;
	assert_int_equal(craft_size(&m), 20);
	assert_int_equal(craft_full_size(&m), 58);
	assert_int_equal(craft_build(&m, 0, cut, 20), 20);
	assert_memory_equal(cut, full, 20);
	m.truncate = 50;
	assert_int_equal(craft_build(&m, 0, cut, sizeof(cut)), 50);
	assert_memory_equal(cut, full, 50);
	m.truncate = 1000;          /* longer than the message: all of it */
	assert_int_equal(craft_size(&m), 58);

	/* repetitions advance seq by the step */
	m.has_truncate = false;
	m.set |= CRAFT_SET_SEQ;
	m.seq = 10;
	assert_int_equal(build(&m, 2, full, sizeof(full), &n).seq, 12);
	m.set |= CRAFT_SET_STEP;
	m.seq_step = 5;
	assert_int_equal(build(&m, 2, full, sizeof(full), &n).seq, 20);
	m.seq_step = 0;
	assert_int_equal(build(&m, 2, full, sizeof(full), &n).seq, 10);
}

static void test_craft_preface(void **state)
{
	static uint8_t buf[CRAFT_PREFACE_LEN];
	struct wire_hdr h;
	struct wire_exts x;

	(void)state;
	assert_int_equal(craft_preface(0xabcdef01, buf, sizeof(buf) - 1), -1);
	assert_int_equal(craft_preface(0xabcdef01, buf, sizeof(buf)), CRAFT_PREFACE_LEN);
	wire_hdr_decode(&h, buf, WIRE_HDR_LEN);
	assert_int_equal(wire_classify(&h, WIRE_XPORT_TCP), WIRE_KIND_CONG);
	assert_int_equal(h.len, WIRE_CONG_MAP_BYTES);
	for (size_t i = 0; i < WIRE_CONG_MAP_BYTES; i++)
		assert_int_equal(buf[WIRE_HDR_LEN + i], 0);
	wire_hdr_decode(&h, buf + WIRE_HDR_LEN + WIRE_CONG_MAP_BYTES, WIRE_HDR_LEN);
	assert_int_equal(wire_classify(&h, WIRE_XPORT_TCP), WIRE_KIND_PROBE_PING);
	assert_int_equal(h.seq, 1);
	wire_exts_decode(&x, h.ext, WIRE_KVER_7);
	assert_true(x.has_npaths && x.has_gen_num && x.has_sport_idx);
	assert_int_equal(x.npaths, 8);
	assert_int_equal(x.gen_num, 0xabcdef01);
}

static void test_craft_parse(void **state)
{
	uint8_t b[8], f = 0;
	size_t n = 0;
	uint64_t v;
	struct rdsu_addr a;
	uint16_t port = 7;

	(void)state;
	assert_int_equal(craft_parse_flags("cong", &f, err, sizeof(err)), 0);
	assert_int_equal(f, 0x01);
	assert_int_equal(craft_parse_flags("hbping|hbpong|ext", &f, err, sizeof(err)), 0);
	assert_int_equal(f, 0x38);
	assert_int_equal(craft_parse_flags("ACK_REQUIRED,retransmitted", &f, err, sizeof(err)), 0);
	assert_int_equal(f, 0x06);
	assert_int_equal(craft_parse_flags("0", &f, err, sizeof(err)), 0);
	assert_int_equal(f, 0);
	assert_int_equal(craft_parse_flags("0x100", &f, err, sizeof(err)), -1);
	assert_int_equal(craft_parse_flags("cong,", &f, err, sizeof(err)), -1);
	assert_int_equal(craft_parse_flags("urgent", &f, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "urgent"));

	assert_int_equal(craft_parse_hex("0xdeadBEEF", b, sizeof(b), &n, err, sizeof(err)), 0);
	assert_int_equal(n, 4);
	assert_memory_equal(b, "\xde\xad\xbe\xef", 4);
	assert_int_equal(craft_parse_hex("de:ad be-ef.01", b, sizeof(b), &n, err, sizeof(err)), 0);
	assert_int_equal(n, 5);
	assert_int_equal(craft_parse_hex("", b, sizeof(b), &n, err, sizeof(err)), 0);
	assert_int_equal(n, 0);
	assert_int_equal(craft_parse_hex("abc", b, sizeof(b), &n, err, sizeof(err)), -1);
	assert_int_equal(craft_parse_hex("a:b", b, sizeof(b), &n, err, sizeof(err)), -1);
	assert_int_equal(craft_parse_hex("zz", b, sizeof(b), &n, err, sizeof(err)), -1);
	assert_int_equal(craft_parse_hex("000000000000000000", b, sizeof(b), &n, err,
					 sizeof(err)), -1);

	assert_int_equal(craft_parse_num("0x10", 16, &v, err, sizeof(err)), 0);
	assert_int_equal(v, 16);
	assert_int_equal(craft_parse_num("17", 16, &v, err, sizeof(err)), -1);
	assert_int_equal(craft_parse_num("-1", UINT64_MAX, &v, err, sizeof(err)), -1);
	assert_int_equal(craft_parse_num("1x", UINT64_MAX, &v, err, sizeof(err)), -1);
	assert_int_equal(craft_parse_num("18446744073709551616", UINT64_MAX, &v, err, sizeof(err)),
			 -1);

	assert_int_equal(craft_parse_addr("127.0.0.1", &a, &port, err, sizeof(err)), 0);
	assert_int_equal(rdsu_addr_get_v4(&a), 0x7f000001);
	assert_int_equal(port, 7);
	assert_int_equal(craft_parse_addr("10.1.2.3:4000", &a, &port, err, sizeof(err)), 0);
	assert_int_equal(rdsu_addr_get_v4(&a), 0x0a010203);
	assert_int_equal(port, 4000);
	assert_int_equal(craft_parse_addr("::1", &a, &port, err, sizeof(err)), 0);
	assert_false(rdsu_addr_is_v4(&a));
	assert_int_equal(a.a[15], 1);
	assert_int_equal(port, 4000);
	assert_int_equal(craft_parse_addr("[fd00::2]:99", &a, &port, err, sizeof(err)), 0);
	assert_int_equal(a.a[0], 0xfd);
	assert_int_equal(port, 99);
	assert_int_equal(craft_parse_addr("[fd00::2]x", &a, &port, err, sizeof(err)), -1);
	assert_int_equal(craft_parse_addr("host.example", &a, &port, err, sizeof(err)), -1);
	assert_int_equal(craft_parse_addr("1.2.3.4:70000", &a, &port, err, sizeof(err)), -1);
}

static void test_craft_describe(void **state)
{
	struct craft_msg m;
	struct wire_hdr h;
	char line[256];

	(void)state;
	craft_msg_init(&m);
	m.kind = CRAFT_PROBE_PONG;
	m.csum = CRAFT_CSUM_BAD;
	craft_hdr(&m, 0, &h);
	craft_describe(&h, line, sizeof(line));
	snprintf(line + 200, 56, "csum 0x%04x bad", h.csum);
	assert_non_null(strstr(line, line + 200));
	line[200] = 0;
	assert_true(strncmp(line, "probe-pong 0 > 1 seq 1 len 0 csum 0x", 36) == 0);
	assert_non_null(strstr(line, " bad npaths 8 gen_num 0x52445331 sport_idx 0"));

	craft_msg_init(&m);
	m.set = CRAFT_SET_FLAGS | CRAFT_SET_ACK | CRAFT_SET_CREDIT;
	m.flags = WIRE_FLAG_RETRANSMITTED;
	m.ack = 5;
	m.credit = 2;
	craft_hdr(&m, 0, &h);
	craft_describe(&h, line, sizeof(line));
	assert_string_equal(line, "data 4000 > 4001 seq 1 len 0 [RETRANSMITTED] ack 5 credit 2");
	/* cut to the buffer, the full length returned */
	assert_int_equal(craft_describe(&h, line, 10), 59);
	assert_string_equal(line, "data 4000");
}

struct pkts {
	uint8_t b[8][2048];
	size_t len[8];
	int n;
	int stop_at;            /* 1-based packet to answer 7 for, 0 none */
};

static int keep_pkt(void *ctx, const uint8_t *pkt, size_t len)
{
	struct pkts *p = ctx;

	assert_true(p->n < 8 && len <= sizeof(p->b[0]));
	memcpy(p->b[p->n], pkt, len);
	p->len[p->n++] = len;
	return p->n == p->stop_at ? 7 : 0;
}

/* A 4144-byte frame on a PMTU-1024 QP: five packets with valid ICRCs,
 * opcodes FIRST, MIDDLE x3, LAST, PSNs from the QP's (wrapping), the
 * payloads the frame in order. */
static void test_craft_roce_packets(void **state)
{
	static const uint8_t sizes[] = { 0x00, 0x01, 0x01, 0x01, 0x02 };
	static uint8_t frame[4144];
	static struct pkts p;
	struct rdsu_addr a = rdsu_addr_v4(0x0ac70002), b = rdsu_addr_v4(0x0ac70003);
	struct rdsu_addr v6 = { { 0xfd, [15] = 2 } };
	struct craft_qp qp;
	size_t off = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(frame); i++)
		frame[i] = (uint8_t)(i * 13);
	craft_qp_init(&qp, &a, &b, 0x123);
	qp.psn = 0xfffffe;
	assert_int_equal(craft_roce_packets(&qp, frame, sizeof(frame), keep_pkt, &p), 5);
	assert_int_equal(qp.psn, 3);
	for (int i = 0; i < 5; i++) {
		struct wire_roce r;

		assert_int_equal(wire_roce_decode(&r, p.b[i], p.len[i], p.len[i]), 0);
		assert_true(r.icrc_ok);
		assert_int_equal(r.ip_version, 4);
		assert_memory_equal(r.src, "\x0a\xc7\x00\x02", 4);
		assert_int_equal(r.bth.opcode, sizes[i]);
		assert_int_equal(r.bth.dqpn, 0x123);
		assert_int_equal(r.bth.psn, (0xfffffe + (uint32_t)i) & 0xffffff);
		assert_int_equal(r.bth.ackreq, i == 4);
		assert_memory_equal(r.payload, frame + off, r.payload_len);
		off += r.payload_len;
	}
	assert_int_equal(off, sizeof(frame));
	/* the callback stops it; mixed families are refused */
	memset(&p, 0, sizeof(p));
	p.stop_at = 2;
	assert_int_equal(craft_roce_packets(&qp, frame, sizeof(frame), keep_pkt, &p), 7);
	assert_int_equal(p.n, 2);
	craft_qp_init(&qp, &a, &v6, 1);
	assert_int_equal(craft_roce_packets(&qp, frame, 10, keep_pkt, &p), -1);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_craft_defaults),
	cmocka_unit_test(test_craft_fields),
	cmocka_unit_test(test_craft_csum),
	cmocka_unit_test(test_craft_ext),
	cmocka_unit_test(test_craft_kinds),
	cmocka_unit_test(test_craft_cong),
	cmocka_unit_test(test_craft_truncate_and_count),
	cmocka_unit_test(test_craft_preface),
	cmocka_unit_test(test_craft_parse),
	cmocka_unit_test(test_craft_describe),
	cmocka_unit_test(test_craft_roce_packets))
