// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * fuzz_mon.c - the librds monitor protocol as rdstop reads it from a
 * publisher it does not trust: a header, then records to the end. A
 * header that decodes re-encodes to its bytes; every record walks to
 * exactly its length, and a known record whose value is just its fixed
 * part (and bitmap) re-encodes to exactly its bytes; every shorter prefix
 * of a record is TRUNC. Properties abort().
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <wire/wire.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t out[WIRE_MON_REC_HDR_LEN + WIRE_MON_MAP_LEN + WIRE_CONG_MAP_BYTES];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wire_mon_hdr h;
	struct wire_mon_item it;
	size_t off = 0;
	ssize_t n;

	n = wire_mon_hdr_decode(&h, data, size);
	if (n == WIRE_MON_HDR_LEN) {
		if (wire_mon_hdr_encode(&h, out, sizeof(out)) != n || memcmp(out, data, (size_t)n))
			abort();
		off = (size_t)n;
	}
	while (off < size) {
		size_t left = size - off;

		n = wire_mon_rec_decode(&it, data + off, left);
		if (n < 0) {
			if (n != WIRE_ERR_TRUNC && n != WIRE_ERR_MALFORMED)
				abort();
			break;
		}
		if ((size_t)n > left || n < WIRE_MON_REC_HDR_LEN)
			abort();
		if (it.type >= WIRE_MON_R_PROC && it.type <= WIRE_MON_R_END) {
			ssize_t e = wire_mon_rec_encode(&it, out, sizeof(out));
			uint32_t vlen = (uint32_t)data[off + 2] << 24 | (uint32_t)data[off + 3] << 16 |
					(uint32_t)data[off + 4] << 8 | data[off + 5];

			if (e < 0)
				abort();
			/* later fields and name padding are not kept */
			if ((size_t)e == (size_t)n && it.type != WIRE_MON_R_PROC &&
			    it.type != WIRE_MON_R_COUNTER && memcmp(out, data + off, (size_t)n))
				abort();
			if ((size_t)e > WIRE_MON_REC_HDR_LEN + vlen)
				abort();
		}
		for (size_t k = 0; k < (size_t)n; k += 1 + (size_t)n / 64)
			if (wire_mon_rec_decode(&it, data + off, k) != WIRE_ERR_TRUNC)
				abort();
		off += (size_t)n;
	}
	return 0;
}
