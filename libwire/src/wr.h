/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * wr.h - bounds-checked writer, the mirror of rd.h. A write past the end
 * sets a sticky flag and writes nothing; encoders check once and return
 * WIRE_ERR_NOSPACE.
 */
#ifndef WIRE_WR_H
#define WIRE_WR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct wire_wr {
	uint8_t *p;
	size_t left;
	size_t done;
	bool overflow;
};

static inline void wire_wr_init(struct wire_wr *wr, void *buf, size_t cap)
{
	wr->p = buf;
	wr->left = buf ? cap : 0;
	wr->done = 0;
	wr->overflow = false;
}

static inline bool wire_wr_ok(const struct wire_wr *wr)
{
	return !wr->overflow;
}

static inline uint8_t *wire_wr_take(struct wire_wr *wr, size_t n)
{
	uint8_t *b;

	if (wr->overflow || n > wr->left) {
		wr->overflow = true;
		return NULL;
	}
	b = wr->p;
	wr->p += n;
	wr->left -= n;
	wr->done += n;
	return b;
}

static inline void wire_wr_u8(struct wire_wr *wr, uint8_t v)
{
	uint8_t *b = wire_wr_take(wr, 1);

	if (b)
		b[0] = v;
}

static inline void wire_wr_bytes(struct wire_wr *wr, const void *src, size_t n)
{
	uint8_t *b = wire_wr_take(wr, n);

	if (b && n)
		memcpy(b, src, n);
}

static inline void wire_wr_zero(struct wire_wr *wr, size_t n)
{
	uint8_t *b = wire_wr_take(wr, n);

	if (b && n)
		memset(b, 0, n);
}

/* The low |n| bytes of |v|, most significant first. */
static inline void wire_wr_be(struct wire_wr *wr, uint64_t v, size_t n)
{
	uint8_t *b = wire_wr_take(wr, n);

	if (!b)
		return;
	for (size_t i = n; i--; v >>= 8)
		b[i] = (uint8_t)v;
}

static inline void wire_wr_be16(struct wire_wr *wr, uint16_t v)
{
	wire_wr_be(wr, v, 2);
}

static inline void wire_wr_be24(struct wire_wr *wr, uint32_t v)
{
	wire_wr_be(wr, v, 3);
}

static inline void wire_wr_be32(struct wire_wr *wr, uint32_t v)
{
	wire_wr_be(wr, v, 4);
}

static inline void wire_wr_be64(struct wire_wr *wr, uint64_t v)
{
	wire_wr_be(wr, v, 8);
}

/* Host-endian writes, for netlink (the kernel reads cpu-order integers). */
static inline void wire_wr_he16(struct wire_wr *wr, uint16_t v)
{
	wire_wr_bytes(wr, &v, sizeof(v));
}

static inline void wire_wr_he32(struct wire_wr *wr, uint32_t v)
{
	wire_wr_bytes(wr, &v, sizeof(v));
}

#endif /* WIRE_WR_H */
