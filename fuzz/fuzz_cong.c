// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fuzz_cong.c - map decode/encode identity; the difference ranges between
 * two maps account for exactly the ports that changed. */
#include <stdlib.h>
#include <string.h>

#include <wire/wire.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct wire_cong_map a, b, x;
static uint8_t out[WIRE_CONG_MAP_BYTES];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wire_port_range r;
	uint32_t pos = 0;
	size_t changed = 0, ranged = 0;

	if (wire_cong_decode(&a, data, size) >= 0) {
		if (size != WIRE_CONG_MAP_BYTES)
			abort();
		if (wire_cong_encode(&a, out, sizeof(out)) != WIRE_CONG_MAP_BYTES ||
		    memcmp(out, data, sizeof(out)) != 0)
			abort();
		return 0;
	}
	/* Otherwise the input is a list of ports to toggle in two maps. */
	wire_cong_clear_all(&a);
	wire_cong_clear_all(&b);
	for (size_t i = 0; i + 2 < size; i += 3) {
		uint16_t p = (uint16_t)(data[i] << 8 | data[i + 1]);

		if (data[i + 2] & 1)
			wire_cong_set(&a, p);
		if (data[i + 2] & 2)
			wire_cong_set(&b, p);
	}
	for (int32_t p = wire_cong_next(&a, 0); p >= 0; p = wire_cong_next(&a, (uint32_t)p + 1))
		if (!wire_cong_test(&a, (uint16_t)p))
			abort();
	for (size_t i = 0; i < WIRE_CONG_MAP_BYTES; i++)
		x.bits[i] = a.bits[i] ^ b.bits[i];
	changed = wire_cong_count(&x);
	while (wire_cong_diff_next(&a, &b, &pos, &r) == 1) {
		if (r.last < r.first || !wire_cong_test(&x, r.first) ||
		    wire_cong_test(&b, r.last) != r.congested)
			abort();
		ranged += (size_t)(r.last - r.first) + 1;
	}
	if (ranged != changed)
		abort();
	return 0;
}
