// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * payload.c - numbered message contents (payload.h). Made a word at a
 * time: the senders must outrun the stack they measure or test.
 */
#include "payload.h"

#include <string.h>

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

static uint64_t key_of(uint16_t stream, uint64_t i)
{
	return mix(((uint64_t)stream << 48) ^ i ^ 0x5244535553ull);
}

static uint64_t word_at(uint64_t k, uint32_t j)
{
	uint64_t w = k + j;

	w ^= w >> 29;
	w *= 0xbf58476d1ce4e5b9ull;
	w ^= w >> 32;
	return w;
}

static void head_of(uint8_t head[8], uint16_t stream, uint64_t i)
{
	for (int k = 0; k < 6; k++)
		head[k] = (uint8_t)(i >> (40 - 8 * k));
	head[6] = (uint8_t)(stream >> 8);
	head[7] = (uint8_t)stream;
}

uint64_t payload_index(const uint8_t *p)
{
	uint64_t i = 0;

	for (int k = 0; k < 6; k++)
		i = i << 8 | p[k];
	return i;
}

void payload_fill(uint8_t *p, uint32_t len, uint16_t stream, uint64_t i)
{
	uint64_t k = key_of(stream, i);
	uint8_t head[8];
	uint32_t j;

	head_of(head, stream, i);
	memcpy(p, head, len < 8 ? len : 8);
	for (j = 8; j + 8 <= len; j += 8) {
		uint64_t w = word_at(k, j);

		memcpy(p + j, &w, 8);
	}
	for (; j < len; j++)
		p[j] = (uint8_t)(k >> (j & 7) * 8);
}

bool payload_check(const uint8_t *p, uint32_t len, uint16_t stream, uint64_t i)
{
	uint64_t k = key_of(stream, i);
	uint8_t head[8];
	uint32_t j;

	head_of(head, stream, i);
	if (memcmp(p, head, len < 8 ? len : 8))
		return false;
	for (j = 8; j + 8 <= len; j += 8) {
		uint64_t w = word_at(k, j);

		if (memcmp(p + j, &w, 8))
			return false;
	}
	for (; j < len; j++)
		if (p[j] != (uint8_t)(k >> (j & 7) * 8))
			return false;
	return true;
}

uint64_t payload_digest(uint64_t h, const uint8_t *p, size_t n)
{
	size_t j = 0;

	for (; j + 8 <= n; j += 8) {
		uint64_t w;

		memcpy(&w, p + j, 8);
		h = (h ^ w) * 0x100000001b3ull;
		h ^= h >> 31;
	}
	for (; j < n; j++)
		h = (h ^ p[j]) * 0x100000001b3ull;
	return mix(h ^ n);
}
