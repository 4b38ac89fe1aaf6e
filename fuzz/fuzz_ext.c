// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fuzz_ext.c - extension walking for every generation: stays inside the 16
 * bytes, agrees with the iterator, and what wire_ext_add builds parses back. */
#include <stdlib.h>
#include <string.h>

#include <wire/wire.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum wire_kver kvs[] = { WIRE_KVER_6, WIRE_KVER_7, WIRE_KVER_ALL };
	uint8_t ext[WIRE_EXT_SPACE] = { 0 };

	memcpy(ext, data, size < sizeof(ext) ? size : sizeof(ext));
	for (size_t k = 0; k < 3; k++) {
		struct wire_exts x;
		int n = wire_exts_decode(&x, ext, kvs[k]);

		if (n < 0 || n > WIRE_EXT_SPACE || x.end > WIRE_EXT_SPACE)
			abort();
		for (int i = 0; i < n; i++) {
			const struct wire_ext *e = &x.e[i];

			if (e->val < ext || e->val + e->len > ext + WIRE_EXT_SPACE)
				abort();
			if (e->off + 1u + e->len > WIRE_EXT_SPACE)
				abort();
		}
	}
	(void)wire_ext_differs_6x(ext);

	/* Build: append the types named by the remaining input; each one that
	 * reports success must be found again by the iterator. */
	if (size > WIRE_EXT_SPACE) {
		uint8_t b[WIRE_EXT_SPACE] = { 0 };
		int added = 0;
		struct wire_exts x;

		for (size_t i = WIRE_EXT_SPACE; i < size; i++) {
			struct wire_ext e = { .type = (uint8_t)(data[i] % WIRE_EXT_TYPE_MAX) };

			e.u.gen_num = (uint32_t)i * 2654435761u;
			if (wire_ext_add(b, &e, WIRE_KVER_7) == 1)
				added++;
		}
		wire_exts_decode(&x, b, WIRE_KVER_7);
		if (x.count != added || x.overrun)
			abort();
	}
	return 0;
}
