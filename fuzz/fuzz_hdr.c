// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fuzz_hdr.c - header decode must re-encode byte-identically; checks and
 * classification must not crash for either transport or kernel generation. */
#include <stdlib.h>
#include <string.h>

#include <wire/wire.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wire_hdr h;
	struct wire_rules r;
	uint8_t out[WIRE_HDR_LEN];
	char flags[128];
	ssize_t rc = wire_hdr_decode(&h, data, size);

	if (size < WIRE_HDR_LEN) {
		if (rc != WIRE_ERR_TRUNC)
			abort();
		return 0;
	}
	if (rc != WIRE_HDR_LEN)
		abort();
	if (wire_hdr_encode(&h, out, sizeof(out)) != WIRE_HDR_LEN ||
	    memcmp(out, data, WIRE_HDR_LEN) != 0)
		abort();
	/* A verified checksum is stable: setting it again changes nothing. */
	if (h.csum && wire_hdr_csum_ok(&h)) {
		struct wire_hdr t = h;

		wire_hdr_csum_set(&t);
		if (t.csum != h.csum && !(h.csum == 0xffff && t.csum == 0))
			abort();
	}
	wire_flags_str(h.flags, flags, sizeof(flags));
	for (int xp = WIRE_XPORT_TCP; xp <= WIRE_XPORT_IB; xp++) {
		wire_rules_clear(&r);
		wire_hdr_check(&h, (enum wire_xport)xp, NULL, &r);
		wire_msg_check(&h, (enum wire_xport)xp, WIRE_KVER_6, &r);
		wire_msg_check(&h, (enum wire_xport)xp, WIRE_KVER_7, &r);
		if (wire_classify(&h, (enum wire_xport)xp) >= WIRE_KIND__COUNT)
			abort();
	}
	return 0;
}
