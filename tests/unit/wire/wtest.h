/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* wtest.h - packet builders and checks that several libwire tests share. */
#ifndef WTEST_H
#define WTEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <wire/wire.h>

#include "hex.h"
#include "verbs.h"
#include "wr.h"

#define WT_COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* A value and the name a lookup must give it; NULL: it has none. */
struct wt_name {
	unsigned v;
	const char *name;
};

static inline void wt_name_is(const char *got, const char *want)
{
	if (want)
		assert_string_equal(got, want);
	else
		assert_null(got);
}

/* One SEND of the RDS header (seq 1, ack 0, ports 4000 -> 4001,
 * ACK_REQUIRED) and "hello": RC SEND_ONLY, SE, pad 3, QPN 0x11, PSN 1, as
 * test_ib carries it natively and test_roce over RoCEv2. */
#define WT_SEND_HELLO_HEX \
	"04 b0 ffff 00 000011 80 000001                     # RC SEND_ONLY SE pad 3\n" \
	"0000000000000001 0000000000000000 00000005         # RDS: seq 1, ack 0, len 5\n" \
	"0fa0 0fa1 02 00 00000000 deb8                      # ports, ACK_REQUIRED, csum\n" \
	"00000000000000000000000000000000                   # exthdr\n" \
	"68656c6c6f 000000                                  # 'hello' + 3 pad bytes\n"

/* |r| decoded WT_SEND_HELLO_HEX, its BTH at |bth|. */
static inline void wt_send_hello_is(const struct wire_roce *r, const uint8_t *bth)
{
	struct wire_hdr h;

	assert_int_equal(r->bth.opcode, WIRE_IB_RC_SEND_ONLY);
	assert_true(r->bth.se);
	assert_false(r->bth.migreq);
	assert_int_equal(r->bth.padcnt, 3);
	assert_int_equal(r->bth.tver, 0);
	assert_int_equal(r->bth.pkey, 0xffff);
	assert_int_equal(r->bth.resv8a, 0);
	assert_int_equal(r->bth.dqpn, 0x11);
	assert_true(r->bth.ackreq);
	assert_int_equal(r->bth.psn, 1);
	assert_false(r->has_reth || r->has_aeth || r->has_deth || r->has_imm ||
		     r->has_ieth || r->has_atomic_eth || r->has_atomic_ack);
	assert_ptr_equal(r->payload, bth + 12);
	assert_int_equal(r->payload_len, 48 + 5);
	/* The payload is a whole RDS header and its 5 bytes. */
	assert_int_equal(wire_hdr_decode(&h, r->payload, r->payload_len), WIRE_HDR_LEN);
	assert_int_equal(h.len, 5);
	assert_int_equal(h.sport, 4000);
	assert_memory_equal(r->payload + WIRE_HDR_LEN, "hello", 5);
}

/* |r| is an RC ACKNOWLEDGE, AETH syndrome 0x1f and MSN 5, with a good ICRC. */
static inline void wt_ack5_is(const struct wire_roce *r)
{
	assert_int_equal(r->bth.opcode, WIRE_IB_RC_ACK);
	assert_true(r->has_aeth);
	assert_int_equal(r->aeth.syndrome, 0x1f);
	assert_int_equal(r->aeth.msn, 5);
	assert_int_equal(r->payload_len, 0);
	assert_true(r->icrc_ok);
}

/* An IPv4 RoCEv2 packet, from the parts a test chooses. */
struct wt_roce4 {
	const char *addrs;      /* source and destination, 8 bytes */
	uint16_t sport;
	const uint8_t *bth;     /* 12 bytes */
	const uint8_t *ext;
	size_t elen;
	const uint8_t *pay;
	size_t plen;
	unsigned pad;           /* zero bytes after the payload */
};

/*
 * wt_roce4_build() - |s| into |b| (|cap| bytes): IPv4 without options or
 * checksum, UDP to 4791 without checksum, then BTH, |ext|, payload, pad
 * and the ICRC wire_roce_icrc() gives (test_roce's vectors pin it down),
 * little-endian. Return: the packet's length.
 */
static inline size_t wt_roce4_build(uint8_t *b, size_t cap, const struct wt_roce4 *s)
{
	size_t udplen = 8 + 12 + s->elen + s->plen + s->pad + 4;
	struct wire_wr w;
	uint32_t c;

	wire_wr_init(&w, b, cap);
	wire_wr_u8(&w, 0x45);
	wire_wr_u8(&w, 0);
	wire_wr_be16(&w, (uint16_t)(20 + udplen));
	wire_wr_zero(&w, 4);
	wire_wr_u8(&w, 64);
	wire_wr_u8(&w, 17);
	wire_wr_zero(&w, 2);
	wire_wr_bytes(&w, s->addrs, 8);
	wire_wr_be16(&w, s->sport);
	wire_wr_be16(&w, WIRE_ROCE_UDP_PORT);
	wire_wr_be16(&w, (uint16_t)udplen);
	wire_wr_zero(&w, 2);
	wire_wr_bytes(&w, s->bth, 12);
	wire_wr_bytes(&w, s->ext, s->elen);
	wire_wr_bytes(&w, s->pay, s->plen);
	wire_wr_zero(&w, s->pad);
	assert_true(wire_wr_ok(&w));
	c = wire_roce_icrc(b, w.done);
	wire_wr_u8(&w, (uint8_t)c);
	wire_wr_u8(&w, (uint8_t)(c >> 8));
	wire_wr_u8(&w, (uint8_t)(c >> 16));
	wire_wr_u8(&w, (uint8_t)(c >> 24));
	assert_true(wire_wr_ok(&w));
	assert_int_equal(w.done, 20 + udplen);
	return w.done;
}

/* A known-answer packet: its bytes and what they decode to. */
struct wt_kat {
	uint8_t b[256];
	size_t n;
	struct wire_roce r;
};

/*
 * wt_verbs_kat() - the vector |hex| into |k|; it must be |len| bytes long,
 * and |decode| must take it whole (captured with |wire_len| on the wire),
 * find the ICRC it ends in, |icrc|, right, and no rule broken.
 */
static inline void wt_verbs_kat(struct wt_kat *k, verbs_decode_fn decode, const char *hex,
				size_t len, size_t wire_len, uint32_t icrc)
{
	k->n = hex_decode(hex, k->b, sizeof(k->b));
	assert_int_equal(k->n, len);
	assert_int_equal(verbs_decode_exact(decode, &k->r, k->b, k->n, wire_len), 0);
	assert_true(k->r.icrc_checked);
	assert_true(k->r.icrc_ok);
	assert_int_equal(k->r.icrc, icrc);
	assert_true(wire_rules_empty(&k->r.rules));
}

/* A vector with one byte changed. */
struct wt_edit {
	const char *hex;
	size_t at;
	uint8_t v;              /* the byte's new value */
};

/*
 * wt_verbs_set() - |decode| of the vector |e->hex| with its byte |e->at|
 * set to |e->v|, taken whole. Return: what |decode| returned; |r| as it
 * left it, but for the payload, which is not kept.
 */
static inline int wt_verbs_set(verbs_decode_fn decode, struct wire_roce *r,
			       const struct wt_edit *e)
{
	uint8_t c[512];
	size_t n = hex_decode(e->hex, c, sizeof(c));
	int rc;

	assert_true(e->at < n);
	c[e->at] = e->v;
	rc = verbs_decode_exact(decode, r, c, n, 0);
	r->payload = NULL;
	return rc;
}

/* Changing any of the |count| bytes at |at| of the packet |b| (a switch
 * or router may) leaves its ICRC valid. */
static inline void wt_icrc_variant(verbs_decode_fn decode, const uint8_t *b, size_t n,
				   const size_t *at, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		uint8_t c[512];
		struct wire_roce r;

		assert_true(n <= sizeof(c) && at[i] < n);
		memcpy(c, b, n);
		c[at[i]] ^= 0x5a;
		assert_int_equal(verbs_decode_exact(decode, &r, c, n, 0), 0);
		assert_true(r.icrc_ok);
	}
}

#endif /* WTEST_H */
