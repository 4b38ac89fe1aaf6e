/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * payload.h - the numbered message contents rdsperf --verify and the test
 * drivers send and check: bytes 0..5 the message's index in its stream and
 * 6..7 the stream (a port or socket number), big-endian, so a misplaced
 * message says what it is; the rest keyed by both, so a message of another
 * stream or index never passes for this one.
 */
#ifndef RDSTK_PAYLOAD_H
#define RDSTK_PAYLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* payload_fill() - message |i| of |stream|, |len| bytes. */
void payload_fill(uint8_t *p, uint32_t len, uint16_t stream, uint64_t i);
/* payload_check() - true when |p| is what payload_fill() makes. */
bool payload_check(const uint8_t *p, uint32_t len, uint16_t stream, uint64_t i);
/* payload_index() - the index a message of at least 8 bytes names. */
uint64_t payload_index(const uint8_t *p);

/* payload_digest() - a running digest of a stream's bytes, to compare
 * what arrived with what was sent (start from PAYLOAD_DIGEST0). */
#define PAYLOAD_DIGEST0 0xcbf29ce484222325ull
uint64_t payload_digest(uint64_t h, const uint8_t *p, size_t n);

#endif /* RDSTK_PAYLOAD_H */
