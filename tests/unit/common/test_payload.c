// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_payload.c - numbered message contents: what is filled checks, at
 * every length around the word and header sizes; another stream, another
 * index (where the message is long enough to name it) or one changed byte
 * does not; the header names index and stream. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include "cmain.h"

#include "payload.h"

static void test_payload_roundtrip(void **state)
{
	uint8_t p[80];

	(void)state;
	for (uint32_t len = 0; len <= sizeof(p); len++) {
		payload_fill(p, len, 4000, 12345);
		assert_true(payload_check(p, len, 4000, 12345));
		/* the head names the index in bytes 0..5 and the stream in 6..7;
		 * shorter messages carry what fits */
		if (len >= 8)
			assert_false(payload_check(p, len, 4001, 12345));
		if (len >= 6)
			assert_false(payload_check(p, len, 4000, 12346));
		for (uint32_t j = 0; j < len; j++) {
			p[j] ^= 0x10;
			assert_false(payload_check(p, len, 4000, 12345));
			p[j] ^= 0x10;
		}
	}
}

static void test_payload_head(void **state)
{
	static const uint8_t head[8] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x0f, 0xa0 };
	uint8_t p[64];

	(void)state;
	payload_fill(p, sizeof(p), 0x0fa0, 0x010203040506ull);
	assert_memory_equal(p, head, 8);
	assert_true(payload_index(p) == 0x010203040506ull);
	/* the rest depends on the key: two streams differ beyond the head */
	uint8_t q[64];
	payload_fill(q, sizeof(q), 0x0fa1, 0x010203040506ull);
	assert_memory_not_equal(p + 8, q + 8, sizeof(p) - 8);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_payload_roundtrip),
	cmocka_unit_test(test_payload_head))
