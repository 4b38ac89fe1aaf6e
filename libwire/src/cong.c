// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * cong.c - the RDS congestion map: 65536 port bits in 8192 bytes.
 * Ref: net/rds/cong.c (set_bit_le on the map pages, sent verbatim),
 * rds_tcp_cong_recv(), rds_ib_cong_recv().
 *
 *   byte:   0        1             8191
 *         +--------+--------+ ... +--------+
 *   port: |7......0|15.....8|     |65535..65528|   bit (p % 8) of byte p / 8, LSB first
 *         +--------+--------+ ... +--------+
 */
#include <wire/wire.h>

#include <string.h>

void wire_cong_clear_all(struct wire_cong_map *m)
{
	memset(m->bits, 0, sizeof(m->bits));
}

void wire_cong_set(struct wire_cong_map *m, uint16_t port)
{
	m->bits[port >> 3] |= (uint8_t)(1u << (port & 7));
}

void wire_cong_clear(struct wire_cong_map *m, uint16_t port)
{
	m->bits[port >> 3] &= (uint8_t)~(1u << (port & 7));
}

bool wire_cong_test(const struct wire_cong_map *m, uint16_t port)
{
	return m->bits[port >> 3] >> (port & 7) & 1;
}

/* Load 8 map bytes as the little-endian word the kernel's bitops see. */
static uint64_t word_le(const uint8_t *b)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

size_t wire_cong_count(const struct wire_cong_map *m)
{
	size_t n = 0;

	for (size_t i = 0; i < WIRE_CONG_MAP_BYTES; i += 8)
		n += (size_t)__builtin_popcountll(word_le(m->bits + i));
	return n;
}

int32_t wire_cong_next(const struct wire_cong_map *m, uint32_t from)
{
	while (from < 65536) {
		uint32_t w = from >> 6;
		uint64_t v = word_le(m->bits + w * 8) >> (from & 63);

		if (v)
			return (int32_t)(from + (uint32_t)__builtin_ctzll(v));
		from = (w + 1) << 6;
	}
	return -1;
}

ssize_t wire_cong_decode(struct wire_cong_map *m, const uint8_t *buf, size_t len)
{
	if (!m || !buf)
		return WIRE_ERR_INVAL;
	if (len != WIRE_CONG_MAP_BYTES)
		return WIRE_ERR_MALFORMED;
	memcpy(m->bits, buf, WIRE_CONG_MAP_BYTES);
	return WIRE_CONG_MAP_BYTES;
}

ssize_t wire_cong_encode(const struct wire_cong_map *m, uint8_t *buf, size_t cap)
{
	if (!m || (!buf && cap))
		return WIRE_ERR_INVAL;
	if (cap < WIRE_CONG_MAP_BYTES)
		return WIRE_ERR_NOSPACE;
	memcpy(buf, m->bits, WIRE_CONG_MAP_BYTES);
	return WIRE_CONG_MAP_BYTES;
}

/* Bit p of the result is set when port p changed between the maps. */
static int32_t next_change(const struct wire_cong_map *a, const struct wire_cong_map *b,
			   uint32_t from)
{
	while (from < 65536) {
		uint32_t w = from >> 6;
		uint64_t v = (word_le(a->bits + w * 8) ^ word_le(b->bits + w * 8)) >>
			     (from & 63);

		if (v)
			return (int32_t)(from + (uint32_t)__builtin_ctzll(v));
		from = (w + 1) << 6;
	}
	return -1;
}

int wire_cong_diff_next(const struct wire_cong_map *old, const struct wire_cong_map *cur,
			uint32_t *pos, struct wire_port_range *out)
{
	int32_t first = next_change(old, cur, *pos);
	uint32_t p;
	bool congested;

	if (first < 0) {
		*pos = 65536;
		return 0;
	}
	congested = wire_cong_test(cur, (uint16_t)first);
	for (p = (uint32_t)first + 1; p < 65536; p++) {
		bool changed = wire_cong_test(old, (uint16_t)p) != wire_cong_test(cur, (uint16_t)p);

		if (!changed || wire_cong_test(cur, (uint16_t)p) != congested)
			break;
	}
	out->first = (uint16_t)first;
	out->last = (uint16_t)(p - 1);
	out->congested = congested;
	*pos = p;
	return 1;
}

uint64_t wire_cong_freed_mask(const struct wire_cong_map *old, const struct wire_cong_map *cur)
{
	uint64_t mask = 0;

	for (size_t i = 0; i < WIRE_CONG_MAP_BYTES; i += 8)
		mask |= word_le(old->bits + i) & ~word_le(cur->bits + i);
	return mask;
}
