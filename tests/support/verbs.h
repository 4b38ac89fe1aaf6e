/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* verbs.h - test helpers for the decoders of struct wire_roce
 * (wire_ib_decode, wire_roce_decode). */
#ifndef TEST_VERBS_H
#define TEST_VERBS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <wire/wire.h>

typedef int (*verbs_decode_fn)(struct wire_roce *r, const uint8_t *p, size_t len,
			       size_t wire_len);

/*
 * verbs_decode_exact() - |decode| run on an exact-size heap copy of |p|,
 * so ASan sees any over-read; the payload must lie inside the copy, and
 * r->payload then points into |p| (nothing else in |r| points into the
 * copy). Return: what |decode| returned.
 */
static inline int verbs_decode_exact(verbs_decode_fn decode, struct wire_roce *r,
				     const uint8_t *p, size_t len, size_t wire_len)
{
	uint8_t *copy = malloc(len ? len : 1);
	int rc;

	assert_non_null(copy);
	memcpy(copy, p, len);
	rc = decode(r, copy, len, wire_len);
	if (r->payload_len) {
		assert_true(r->payload >= copy);
		assert_true((size_t)(r->payload - copy) <= len);
		assert_true(r->payload_len <= len - (size_t)(r->payload - copy));
	}
	r->payload = r->payload ? p + (r->payload - copy) : NULL;
	free(copy);
	return rc;
}

#endif
