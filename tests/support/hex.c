// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* hex.c - hex text to bytes, for readable test vectors. */
#include "hex.h"

#include <stdio.h>
#include <stdlib.h>

#include <wire/wire.h>

size_t hex_decode(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = 0;
	int hi = -1;

	for (const char *p = hex; *p; p++) {
		if (*p == '#') {
			while (*p && *p != '\n')
				p++;
			if (!*p)
				break;
			continue;
		}
		int v = wire_hex_value((unsigned char)*p);

		if (v < 0)
			continue;
		if (hi < 0) {
			hi = v;
			continue;
		}
		if (n >= cap) {
			fprintf(stderr, "hex_decode: vector larger than %zu\n", cap);
			abort();
		}
		out[n++] = (uint8_t)(hi << 4 | v);
		hi = -1;
	}
	if (hi >= 0) {
		fprintf(stderr, "hex_decode: odd number of digits\n");
		abort();
	}
	return n;
}
