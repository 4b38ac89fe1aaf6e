// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_deframe.c - the RDS/TCP stream deframer under every chunking. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <wire/wire.h>

/* A stream like the start of a real connection: map, probe, pings, data of
 * the sizes the lab captures use. */
static const uint32_t sizes[] = { 8192, 0, 0, 0, 1, 4095, 4096, 4097, 65536, 7 };
#define NMSG (sizeof(sizes) / sizeof(sizes[0]))

static uint8_t *stream;
static size_t stream_len;
static uint8_t gather[WIRE_MAX_MSG_LEN];

static uint8_t pattern(size_t msg, size_t i)
{
	return (uint8_t)(msg * 31 + i * 7 + 1);
}

static int setup(void **state)
{
	size_t off = 0;

	(void)state;
	stream_len = 0;
	for (size_t i = 0; i < NMSG; i++)
		stream_len += WIRE_HDR_LEN + sizes[i];
	stream = malloc(stream_len);
	for (size_t i = 0; i < NMSG; i++) {
		struct wire_hdr h;

		if (i == 0)
			wire_build_cong(&h);
		else if (i == 1)
			wire_build_probe(&h, false, 1, WIRE_KVER_7, 8, 42);
		else
			wire_build_data(&h, i, 4000, i == 2 ? 0 : 5000, sizes[i]);
		wire_hdr_encode(&h, stream + off, WIRE_HDR_LEN);
		off += WIRE_HDR_LEN;
		for (size_t j = 0; j < sizes[i]; j++)
			stream[off + j] = pattern(i, j);
		off += sizes[i];
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(stream);
	return 0;
}

/* The messages of the stream seen so far, and where the next one starts. */
struct seen {
	size_t idx;
	uint64_t off;
};

/* |f| is the next message of the stream, whole and in place. */
static void check_frame(struct seen *s, const struct wire_frame *f)
{
	assert_true(s->idx < NMSG);
	assert_int_equal(f->len, sizes[s->idx]);
	assert_int_equal(f->hdr.len, sizes[s->idx]);
	assert_true(f->offset == s->off);
	for (size_t j = 0; j < f->len; j++)
		if (f->payload[j] != pattern(s->idx, j))
			fail_msg("message %zu byte %zu differs", s->idx, j);
	s->off += WIRE_HDR_LEN + f->len;
	s->idx++;
}

/* Feed the stream in chunks chosen by |next_chunk| and check every message. */
static void run_chunked(size_t (*next_chunk)(size_t pos, void *arg), void *arg)
{
	struct wire_deframer d;
	struct seen seen = { 0 };
	size_t pos = 0;

	assert_int_equal(wire_deframer_init(&d, 0, gather, sizeof(gather)), 0);
	while (pos < stream_len) {
		size_t n = next_chunk(pos, arg);
		size_t done = 0;

		if (n > stream_len - pos)
			n = stream_len - pos;
		while (done < n) {
			struct wire_frame f;
			bool ready;
			ssize_t used = wire_deframer_input(&d, stream + pos + done,
							   n - done, &f, &ready);

			assert_true(used >= 0);
			done += (size_t)used;
			if (ready) {
				check_frame(&seen, &f);
			} else {
				assert_int_equal(done, n); /* no progress only when input is used up */
			}
		}
		pos += n;
	}
	assert_int_equal(seen.idx, NMSG);
	assert_false(wire_deframer_pending(&d));
	assert_true(d.offset == stream_len);
}

static size_t fixed(size_t pos, void *arg)
{
	(void)pos;
	return *(size_t *)arg;
}

static void test_deframe_whole_buffer(void **state)
{
	size_t all = (size_t)-1;

	(void)state;
	run_chunked(fixed, &all);
}

static void test_deframe_one_byte_at_a_time(void **state)
{
	size_t one = 1;

	(void)state;
	run_chunked(fixed, &one);
}

static void test_deframe_many_chunk_sizes(void **state)
{
	static const size_t c[] = { 2, 3, 5, 47, 48, 49, 95, 96, 97, 4095, 4096, 4144, 8240 };

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		size_t n = c[i];

		run_chunked(fixed, &n);
	}
}

static size_t random_chunk(size_t pos, void *arg)
{
	unsigned *seed = arg;

	(void)pos;
	*seed = *seed * 1103515245u + 12345u;
	return 1 + (*seed >> 8) % 300;
}

static void test_deframe_random_chunks(void **state)
{
	(void)state;
	for (unsigned s = 1; s <= 20; s++) {
		unsigned seed = s;

		run_chunked(random_chunk, &seed);
	}
}

static void test_deframe_zero_copy_when_whole(void **state)
{
	struct wire_deframer d;
	struct wire_frame f;
	bool ready;

	(void)state;
	wire_deframer_init(&d, 0, gather, sizeof(gather));
	/* message 0 is the map: header at 0, payload at 48 */
	assert_int_equal(wire_deframer_input(&d, stream, stream_len, &f, &ready),
			 WIRE_HDR_LEN + 8192);
	assert_true(ready);
	assert_ptr_equal(f.payload, stream + WIRE_HDR_LEN);
	assert_int_equal(wire_classify(&f.hdr, WIRE_XPORT_TCP), WIRE_KIND_CONG);
}

static void test_deframe_refuses_oversize_without_taking_payload(void **state)
{
	uint8_t b[WIRE_HDR_LEN + 16] = { 0 };
	struct wire_deframer d;
	struct wire_frame f;
	struct wire_hdr h;
	bool ready;

	(void)state;
	wire_build_data(&h, 1, 4000, 5000, 0xffffffffu); /* a hostile h_len */
	wire_hdr_encode(&h, b, sizeof(b));
	/* No gather buffer at all: nothing could be allocated for it anyway. */
	assert_int_equal(wire_deframer_init(&d, 1024, NULL, 0), 0);
	for (size_t i = 0; i < WIRE_HDR_LEN - 1; i++) {
		assert_int_equal(wire_deframer_input(&d, b + i, 1, &f, &ready), 1);
		assert_false(ready);
	}
	assert_true(wire_deframer_pending(&d));
	assert_int_equal(wire_deframer_input(&d, b + WIRE_HDR_LEN - 1, 17, &f, &ready),
			 WIRE_ERR_TOOBIG);
	assert_false(ready);
	assert_true(wire_deframer_hdr(&d)->len == 0xffffffffu);
	assert_true(d.offset == WIRE_HDR_LEN); /* the payload was not taken */
	/* Sticky. */
	assert_int_equal(wire_deframer_input(&d, b, 1, &f, &ready), WIRE_ERR_TOOBIG);

	/* Exactly at the limit is fine; one above is not. */
	wire_build_data(&h, 1, 4000, 5000, 16);
	wire_hdr_encode(&h, b, sizeof(b));
	wire_deframer_init(&d, 16, NULL, 0);
	assert_int_equal(wire_deframer_input(&d, b, sizeof(b), &f, &ready), sizeof(b));
	assert_true(ready);
	h.len = 17;
	wire_hdr_encode(&h, b, sizeof(b));
	wire_deframer_init(&d, 16, NULL, 0);
	assert_int_equal(wire_deframer_input(&d, b, sizeof(b), &f, &ready), WIRE_ERR_TOOBIG);
}

static void test_deframe_init_and_nospace(void **state)
{
	struct wire_deframer d;
	struct wire_frame f;
	bool ready;
	uint8_t small[8];

	(void)state;
	assert_int_equal(wire_deframer_init(&d, 100, small, sizeof(small)), WIRE_ERR_INVAL);
	assert_int_equal(wire_deframer_init(NULL, 0, NULL, 0), WIRE_ERR_INVAL);
	assert_int_equal(wire_deframer_init(&d, 0, NULL, 0), 0);
	assert_int_equal(d.max_len, WIRE_MAX_MSG_LEN);
	/* Without a buffer, a payload split across chunks cannot be gathered. */
	assert_int_equal(wire_deframer_input(&d, stream, WIRE_HDR_LEN + 10, &f, &ready),
			 WIRE_ERR_NOSPACE);
	/* An empty chunk is fine and consumes nothing. */
	wire_deframer_init(&d, 0, NULL, 0);
	assert_int_equal(wire_deframer_input(&d, stream, 0, &f, &ready), 0);
	assert_false(ready);
}

static void test_deframe_truncated_at_close(void **state)
{
	struct wire_deframer d;
	struct wire_frame f;
	bool ready;

	(void)state;
	/* Stop at every offset inside the first two messages: pending tells a
	 * truncated message from a clean boundary. */
	for (size_t cut = 0; cut <= 2 * WIRE_HDR_LEN + 8192; cut++) {
		size_t pos = 0;

		wire_deframer_init(&d, 0, gather, sizeof(gather));
		while (pos < cut) {
			ssize_t n = wire_deframer_input(&d, stream + pos, cut - pos, &f, &ready);

			assert_true(n >= 0);
			pos += (size_t)n;
		}
		bool boundary = cut == 0 || cut == WIRE_HDR_LEN + 8192 ||
				cut == 2 * WIRE_HDR_LEN + 8192;
		assert_true(wire_deframer_pending(&d) == !boundary);
	}
}

/*
 * Prefix mode: every message is framed whatever its size, a split payload
 * keeps only its first cap bytes, and an h_len far above 1 MiB is followed
 * through rather than refused (a kernel receiver never checks it).
 */
static void test_deframe_prefix_mode(void **state)
{
	static uint8_t small[100];
	uint8_t big[WIRE_HDR_LEN * 2 + 300];
	struct wire_deframer d;
	struct wire_frame f;
	size_t pos = 0, idx = 0;
	bool ready;

	(void)state;
	assert_int_equal(wire_deframer_init_prefix(&d, UINT32_MAX, NULL, 10), WIRE_ERR_INVAL);
	assert_int_equal(wire_deframer_init_prefix(&d, UINT32_MAX, small, sizeof(small)), 0);
	/* 7-byte chunks: every payload but the empty ones arrives split */
	while (pos < stream_len) {
		size_t n = stream_len - pos < 7 ? stream_len - pos : 7;
		ssize_t used = wire_deframer_input(&d, stream + pos, n, &f, &ready);

		assert_true(used > 0);
		pos += (size_t)used;
		if (!ready)
			continue;
		assert_int_equal(f.len, sizes[idx]);
		assert_int_equal(f.caplen, sizes[idx] < sizeof(small) ? sizes[idx] : sizeof(small));
		for (size_t j = 0; j < f.caplen; j++)
			assert_int_equal(f.payload[j], pattern(idx, j));
		idx++;
	}
	assert_int_equal(idx, NMSG);

	/* 3 GiB claimed: framed, nothing refused, the next header is found
	 * where the kernel would look for it */
	{
		struct wire_hdr h;

		memset(big, 0, sizeof(big));
		wire_build_data(&h, 1, 4000, 5000, 0xc0000000u);
		wire_hdr_encode(&h, big, WIRE_HDR_LEN);
		assert_int_equal(wire_deframer_init_prefix(&d, UINT32_MAX, small, sizeof(small)), 0);
		assert_int_equal(wire_deframer_input(&d, big, sizeof(big), &f, &ready),
				 (ssize_t)sizeof(big));
		assert_false(ready);
		assert_true(wire_deframer_pending(&d));
		assert_true(wire_deframer_hdr(&d)->len == 0xc0000000u);
	}
}

/* Bytes the snap length cut: skipped inside a payload, refused elsewhere. */
/*
 * Lend mode: the same stream in several chunkings with a buffer grown only
 * when the deframer says it is full. The lent size never runs ahead of the
 * payload bytes that arrived (at most double them, at least 4 KiB), so a
 * header's claim alone never sizes it.
 */
static void run_lend(size_t chunk)
{
	struct wire_deframer d;
	uint8_t *buf = NULL;
	struct seen seen = { 0 };
	size_t cap = 0, pos = 0, lends = 0;

	assert_int_equal(wire_deframer_init_lend(&d, 0), 0);
	assert_int_equal(wire_deframer_need(&d), 0);
	while (pos < stream_len) {
		size_t n = chunk < stream_len - pos ? chunk : stream_len - pos;
		size_t done = 0;

		while (done < n) {
			struct wire_frame f;
			bool ready;
			ssize_t used = wire_deframer_input(&d, stream + pos + done, n - done, &f,
							   &ready);
			size_t need;

			assert_true(used >= 0);
			done += (size_t)used;
			if (ready) {
				check_frame(&seen, &f);
				continue;
			}
			need = wire_deframer_need(&d);
			if (!need) {
				assert_int_equal(done, n);
				continue;
			}
			/* Full: what was gathered fills the buffer exactly. */
			assert_int_equal(need, sizes[seen.idx]);
			assert_int_equal(d.dgot, cap);
			size_t ncap = cap ? cap * 2 : 4096;

			if (ncap > need)
				ncap = need;
			assert_true(ncap <= 4096 || ncap <= 2 * d.dgot);
			buf = realloc(buf, ncap);
			assert_non_null(buf);
			assert_int_equal(wire_deframer_set_buf(&d, buf, ncap), 0);
			cap = ncap;
			lends++;
		}
		pos += n;
	}
	assert_int_equal(seen.idx, NMSG);
	assert_false(wire_deframer_pending(&d));
	if (chunk < 4096)
		assert_true(lends > 0);
	/* Never shrink below what is gathered; never used outside lend mode. */
	struct wire_deframer plain;

	assert_int_equal(wire_deframer_init(&plain, 0, NULL, 0), 0);
	assert_int_equal(wire_deframer_set_buf(&plain, buf, cap), WIRE_ERR_INVAL);
	assert_int_equal(wire_deframer_need(&plain), 0);
	free(buf);
}

static void test_deframe_lend_mode(void **state)
{
	static const size_t c[] = { 1, 7, 48, 49, 1000, 4096, 5000, 70000 };

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		run_lend(c[i]);
}

/* A lent buffer smaller than what was gathered is refused, and an oversize
 * header is refused before any buffer is asked for. */
static void test_deframe_lend_limits(void **state)
{
	struct wire_deframer d;
	uint8_t hdr[WIRE_HDR_LEN], small[16], in[100];
	struct wire_hdr h;
	struct wire_frame f;
	bool ready;

	(void)state;
	assert_int_equal(wire_deframer_init_lend(&d, 1000), 0);
	wire_build_data(&h, 1, 4000, 5000, 5000);
	wire_hdr_encode(&h, hdr, sizeof(hdr));
	assert_int_equal(wire_deframer_input(&d, hdr, sizeof(hdr), &f, &ready), WIRE_ERR_TOOBIG);
	assert_int_equal(wire_deframer_need(&d), 0);

	assert_int_equal(wire_deframer_init_lend(&d, 0), 0);
	wire_build_data(&h, 1, 4000, 5000, 100);
	wire_hdr_encode(&h, hdr, sizeof(hdr));
	assert_int_equal(wire_deframer_input(&d, hdr, sizeof(hdr), &f, &ready), WIRE_HDR_LEN);
	assert_int_equal(wire_deframer_need(&d), 100);
	assert_int_equal(wire_deframer_set_buf(&d, small, sizeof(small)), 0);
	memset(in, 0xab, sizeof(in));
	assert_int_equal(wire_deframer_input(&d, in, 50, &f, &ready), 16);
	assert_false(ready);
	assert_int_equal(wire_deframer_set_buf(&d, small, 8), WIRE_ERR_INVAL);
	assert_int_equal(wire_deframer_set_buf(&d, NULL, 4), WIRE_ERR_INVAL);
}

static void test_deframe_skip(void **state)
{
	static uint8_t small[64];
	uint8_t s[WIRE_HDR_LEN + 10];
	struct wire_deframer d;
	struct wire_frame f;
	struct wire_hdr h;
	bool ready;

	(void)state;
	wire_build_data(&h, 3, 4000, 5000, 1000);
	wire_hdr_encode(&h, s, WIRE_HDR_LEN);
	memset(s + WIRE_HDR_LEN, 0xab, 10);
	assert_int_equal(wire_deframer_init_prefix(&d, 0, small, sizeof(small)), 0);
	assert_int_equal(wire_deframer_skip(&d, 5, &f, &ready), 0);  /* no header yet */
	assert_int_equal(wire_deframer_input(&d, s, sizeof(s), &f, &ready), (ssize_t)sizeof(s));
	assert_false(ready);
	assert_int_equal(wire_deframer_skip(&d, 5000, &f, &ready), 990);
	assert_true(ready);
	assert_int_equal(f.len, 1000);
	assert_int_equal(f.caplen, 10);
	assert_int_equal(f.payload[9], 0xab);
	assert_true(d.offset == WIRE_HDR_LEN + 1000);
	/* the next message is whole again */
	wire_build_data(&h, 4, 4000, 5000, 0);
	wire_hdr_encode(&h, s, WIRE_HDR_LEN);
	assert_int_equal(wire_deframer_input(&d, s, WIRE_HDR_LEN, &f, &ready), WIRE_HDR_LEN);
	assert_true(ready);
	assert_int_equal(f.caplen, 0);
	assert_true(f.hdr.seq == 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deframe_whole_buffer),
		cmocka_unit_test(test_deframe_one_byte_at_a_time),
		cmocka_unit_test(test_deframe_many_chunk_sizes),
		cmocka_unit_test(test_deframe_random_chunks),
		cmocka_unit_test(test_deframe_zero_copy_when_whole),
		cmocka_unit_test(test_deframe_refuses_oversize_without_taking_payload),
		cmocka_unit_test(test_deframe_init_and_nospace),
		cmocka_unit_test(test_deframe_truncated_at_close),
		cmocka_unit_test(test_deframe_prefix_mode),
		cmocka_unit_test(test_deframe_skip),
		cmocka_unit_test(test_deframe_lend_mode),
		cmocka_unit_test(test_deframe_lend_limits),
	};
	return cmocka_run_group_tests_name("wire_deframe", tests, setup, teardown);
}
