// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_resync.c - finding a header again after the framing was lost. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include "cmain.h"

#include <wire/wire.h>

static uint8_t stream[1 << 18];
static size_t bounds[512];      /* header offsets */
static size_t nb, slen;
static uint8_t win[WIRE_MAX_MSG_LEN + 2 * WIRE_HDR_LEN];

/* Messages with payloads of a pseudo-random byte pattern and zero runs,
 * which are the usual source of false headers. */
static void build(uint32_t seed, uint32_t big)
{
	uint32_t x = seed;

	slen = nb = 0;
	for (uint64_t seq = 1; nb < 64; seq++) {
		struct wire_hdr h;
		uint32_t len;

		x = x * 1103515245u + 12345u;
		len = nb == 10 && big ? big : (x >> 8) % 3000;
		wire_build_data(&h, seq, 4000, 5000, len);
		bounds[nb++] = slen;
		wire_hdr_encode(&h, stream + slen, WIRE_HDR_LEN);
		slen += WIRE_HDR_LEN;
		for (uint32_t i = 0; i < len; i++) {
			x = x * 1103515245u + 12345u;
			stream[slen + i] = (i / 64) % 2 ? 0 : (uint8_t)(x >> 16);
		}
		slen += len;
	}
}

/* Feed from |from| in chunks of |chunk|; Return: header offset found. */
static size_t run(struct wire_resync *r, size_t from, size_t chunk)
{
	size_t pos = from;

	while (pos < slen && !r->found) {
		size_t n = slen - pos < chunk ? slen - pos : chunk;

		pos += wire_resync_feed(r, stream + pos, n);
	}
	assert_true(r->found);
	/* the window holds the stream from the header on */
	assert_memory_equal(r->win + r->start, stream + from + r->skipped, r->len - r->start);
	return from + (size_t)r->skipped;
}

static size_t next_bound(size_t off)
{
	for (size_t i = 0; i < nb; i++)
		if (bounds[i] >= off)
			return bounds[i];
	return SIZE_MAX;
}

static void test_resync_plausible(void **state)
{
	struct wire_hdr h;

	(void)state;
	wire_build_data(&h, 5, 4000, 5000, 100);
	assert_true(wire_hdr_plausible(&h, 0));
	wire_build_cong(&h);
	assert_true(wire_hdr_plausible(&h, 0));
	wire_build_probe(&h, false, 1, WIRE_KVER_7, 8, 77);
	assert_true(wire_hdr_plausible(&h, 0));
	memset(&h, 0, sizeof(h));
	assert_false(wire_hdr_plausible(&h, 0));        /* zeros are not a header */
	wire_build_data(&h, 5, 4000, 5000, 100);
	h.ack = 1;
	assert_false(wire_hdr_plausible(&h, 0));
	wire_build_data(&h, 5, 4000, 5000, 2u << 20);
	assert_false(wire_hdr_plausible(&h, 0));
	assert_true(wire_hdr_plausible(&h, UINT32_MAX));
	wire_build_data(&h, 5, 4000, 5000, 1);
	h.flags = 0x40;
	assert_false(wire_hdr_plausible(&h, 0));
	wire_build_data(&h, 5, 4000, 5000, 1);
	h.ext[0] = 0x20;
	assert_false(wire_hdr_plausible(&h, 0));
}

/* From every offset of a stretch of the stream, in several chunkings, the
 * first header found is the next real one. */
static void test_resync_every_offset(void **state)
{
	struct wire_resync r;
	static const size_t chunks[] = { 1, 7, 100, 1448, 70000 };

	(void)state;
	build(1, 0);
	wire_resync_init(&r, win, sizeof(win), 0);
	for (size_t off = 1; off < 5000; off += 13) {
		for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
			wire_resync_reset(&r, NULL);
			assert_int_equal(run(&r, off, chunks[c]), next_bound(off));
		}
	}
}

static void test_resync_hint_accepts_alone(void **state)
{
	struct wire_resync r;
	uint64_t hint = 7;
	size_t from;

	(void)state;
	build(2, 0);
	from = bounds[5] + 1;
	wire_resync_init(&r, win, sizeof(win), 0);
	wire_resync_reset(&r, &hint);
	/* only the header itself and no successor: the hint decides */
	wire_resync_feed(&r, stream + from, bounds[6] + WIRE_HDR_LEN - from);
	assert_true(r.found);
	assert_int_equal(from + r.skipped, bounds[6]);
}

/* A message larger than the window is accepted on its own header. */
static void test_resync_large_message(void **state)
{
	struct wire_resync r;

	(void)state;
	build(3, 100000);
	wire_resync_init(&r, win, 4096, 0);
	wire_resync_reset(&r, NULL);
	assert_int_equal(run(&r, bounds[10] - 500, 1448), bounds[10]);
}

static void test_resync_garbage_only(void **state)
{
	struct wire_resync r;
	static uint8_t junk[200000];
	uint32_t x = 9;
	size_t pos = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(junk); i++) {
		x = x * 1103515245u + 12345u;
		junk[i] = (uint8_t)(x >> 16);
	}
	wire_resync_init(&r, win, 8192, 0);
	wire_resync_reset(&r, NULL);
	while (pos < sizeof(junk))
		pos += wire_resync_feed(&r, junk + pos, sizeof(junk) - pos);
	assert_false(r.found);
	assert_true(r.len < 8192);      /* the window does not hold on to garbage */
	assert_true(wire_resync_flush(&r) == sizeof(junk));
}

/* One message and the end of the stream: confirmed by ending exactly. */
static void test_resync_finish(void **state)
{
	struct wire_resync r;
	uint8_t s[10 + WIRE_HDR_LEN + 5];
	struct wire_hdr h;

	(void)state;
	memset(s, 0x11, 10);
	wire_build_data(&h, 77, 4000, 5000, 5);
	wire_hdr_encode(&h, s + 10, WIRE_HDR_LEN);
	memset(s + 10 + WIRE_HDR_LEN, 0xee, 5);
	wire_resync_init(&r, win, sizeof(win), 0);
	wire_resync_reset(&r, NULL);
	wire_resync_feed(&r, s, sizeof(s));
	assert_false(r.found);
	assert_true(wire_resync_finish(&r));
	assert_int_equal(r.start, 10);
	assert_true(r.skipped == 10);
	/* one byte short of the end: not confirmed */
	wire_resync_reset(&r, NULL);
	wire_resync_feed(&r, s, sizeof(s) - 1);
	assert_false(wire_resync_finish(&r));
}

CMOCKA_MAIN(
	cmocka_unit_test(test_resync_plausible),
	cmocka_unit_test(test_resync_every_offset),
	cmocka_unit_test(test_resync_hint_accepts_alone),
	cmocka_unit_test(test_resync_large_message),
	cmocka_unit_test(test_resync_garbage_only),
	cmocka_unit_test(test_resync_finish))
