/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rd.h - the one bounds-checked reader every libwire decoder uses.
 *
 * Lengths are compared as remaining counts, never as pointers past the end.
 * A read past the end returns zeros and sets a sticky flag, so a
 * straight-line decoder checks once at the end (BoringSSL CBS with a
 * sticky error, tcpdump GET_* without longjmp).
 */
#ifndef WIRE_RD_H
#define WIRE_RD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct wire_rd {
	const uint8_t *p;
	size_t left;
	bool short_read;
};

static inline void wire_rd_init(struct wire_rd *rd, const void *buf, size_t len)
{
	rd->p = buf;
	rd->left = buf ? len : 0;
	rd->short_read = false;
}

static inline bool wire_rd_ok(const struct wire_rd *rd)
{
	return !rd->short_read;
}

static inline size_t wire_rd_left(const struct wire_rd *rd)
{
	return rd->left;
}

static inline const uint8_t *wire_rd_take(struct wire_rd *rd, size_t n)
{
	const uint8_t *b;

	if (n > rd->left) {
		rd->short_read = true;
		rd->left = 0;
		return NULL;
	}
	b = rd->p;
	rd->p += n;
	rd->left -= n;
	return b;
}

static inline bool wire_rd_skip(struct wire_rd *rd, size_t n)
{
	return wire_rd_take(rd, n) != NULL;
}

static inline uint8_t wire_rd_u8(struct wire_rd *rd)
{
	const uint8_t *b = wire_rd_take(rd, 1);

	return b ? b[0] : 0;
}

/* Copy n bytes out; on a short read the destination is zeroed. */
static inline bool wire_rd_copy(struct wire_rd *rd, void *dst, size_t n)
{
	const uint8_t *b = wire_rd_take(rd, n);

	if (!b) {
		memset(dst, 0, n);
		return false;
	}
	memcpy(dst, b, n);
	return true;
}

/* An unsigned integer of |n| <= 8 bytes, most significant first. */
static inline uint64_t wire_rd_be(struct wire_rd *rd, size_t n)
{
	const uint8_t *b = wire_rd_take(rd, n);
	uint64_t v = 0;

	if (!b)
		return 0;
	for (size_t i = 0; i < n; i++)
		v = v << 8 | b[i];
	return v;
}

/*
 * The widths the header path reads are spelled out: GCC turns these into
 * one byte-swapping load, and not the loop above.
 */
static inline uint16_t wire_rd_be16(struct wire_rd *rd)
{
	const uint8_t *b = wire_rd_take(rd, 2);

	return b ? (uint16_t)((unsigned)b[0] << 8 | b[1]) : 0;
}

static inline uint32_t wire_rd_be24(struct wire_rd *rd)
{
	return (uint32_t)wire_rd_be(rd, 3);
}

static inline uint32_t wire_rd_be32(struct wire_rd *rd)
{
	const uint8_t *b = wire_rd_take(rd, 4);

	return b ? (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
		   (uint32_t)b[2] << 8 | b[3] : 0;
}

static inline uint64_t wire_rd_be64(struct wire_rd *rd)
{
	uint64_t hi = wire_rd_be32(rd);

	return hi << 32 | wire_rd_be32(rd);
}

/*
 * Host-endian reads, for netlink (the kernel writes cpu-order integers):
 * the bytes as they are, zero on a short read.
 */
static inline uint16_t wire_rd_he16(struct wire_rd *rd)
{
	uint16_t v;

	wire_rd_copy(rd, &v, sizeof(v));
	return v;
}

static inline uint32_t wire_rd_he32(struct wire_rd *rd)
{
	uint32_t v;

	wire_rd_copy(rd, &v, sizeof(v));
	return v;
}

/*
 * Next n bytes as their own reader. If n is too large the parent is marked
 * short and the child is empty and short, so a loop over it ends at once.
 */
static inline struct wire_rd wire_rd_sub(struct wire_rd *rd, size_t n)
{
	struct wire_rd sub;
	const uint8_t *b = wire_rd_take(rd, n);

	wire_rd_init(&sub, b, b ? n : 0);
	sub.short_read = !b;
	return sub;
}

#endif /* WIRE_RD_H */
