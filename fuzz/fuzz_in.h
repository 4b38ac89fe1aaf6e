/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * fuzz_in.h - how the harnesses that drive an endpoint (fuzz_core,
 * fuzz_ibcore) take their choices from the fuzzer's bytes: one at a time,
 * zeros once the input is spent, so every input is a complete script.
 */
#ifndef FUZZ_IN_H
#define FUZZ_IN_H

#include <stddef.h>
#include <stdint.h>

struct in {
	const uint8_t *p;
	size_t left;
};

static inline unsigned u8(struct in *in)
{
	if (!in->left)
		return 0;
	in->left--;
	return *in->p++;
}

static inline unsigned u16(struct in *in)
{
	unsigned hi = u8(in);

	return hi << 8 | u8(in);
}

#endif /* FUZZ_IN_H */
