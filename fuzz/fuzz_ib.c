// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fuzz_ib.c - libFuzzer harness for wire_ib_decode() and wire_ib_encode():
 * memory safety, what fuzz_verbs.h holds of every decoder of struct
 * wire_roce, and:
 *  - what decodes has an LRH, and a GRH exactly when the LRH says so;
 *  - the ICRC and VCRC verdicts agree with their values and rules;
 *  - what decodes, encodes, and the encoding decodes to the same headers
 *    and payload with both CRCs valid; when the input's CRCs were valid,
 *    its pad was zeros and it has no header libwire skips, the encoding is
 *    the input itself. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <wire/wire.h>

#include "fuzz_verbs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct wire_roce *r)
{
	if (!r->has_lrh || r->has_grh != (r->lrh.lnh == WIRE_IB_LNH_GLOBAL))
		abort();
	if (r->icrc_checked ? r->icrc_ok != (r->icrc == r->icrc_computed) : r->icrc_ok)
		abort();
	if ((r->icrc_checked && !r->icrc_ok) != wire_rules_has(&r->rules, WIRE_RULE_IB_ICRC))
		abort();
	if (r->vcrc_checked ? r->vcrc_ok != (r->vcrc == r->vcrc_computed) : r->vcrc_ok)
		abort();
	if ((r->vcrc_checked && !r->vcrc_ok) != wire_rules_has(&r->rules, WIRE_RULE_IB_VCRC))
		abort();
	if (r->vcrc_checked && !r->icrc_checked)
		abort();
}

static bool same(const struct wire_roce *r, const struct wire_roce *full)
{
	return memcmp(&r->lrh, &full->lrh, sizeof(r->lrh)) == 0 &&
	       memcmp(&r->bth, &full->bth, sizeof(r->bth)) == 0;
}

static bool skips_headers(const struct wire_roce *r)
{
	unsigned tr = r->bth.opcode >> 5;

	/* RD's RDETH, XRC's XRCETH and the atomic headers are not kept */
	return tr == 2 || tr == 5 || r->has_atomic_eth || r->has_atomic_ack;
}

static void check_encode(const struct wire_roce *r, const uint8_t *data, size_t size)
{
	static uint8_t out[8192 + 64];
	struct wire_roce back;
	ssize_t n = wire_ib_encode(r, out, sizeof(out));
	size_t pkt = (size_t)r->lrh.pktlen * 4, pad0 = 1;

	if (n < 0)
		return;         /* a payload cut by the capture, or no room */
	if (wire_ib_decode(&back, out, (size_t)n, (size_t)n) != 0 ||
	    !back.icrc_ok || !back.vcrc_ok)
		abort();
	if (memcmp(&back.bth, &r->bth, sizeof(back.bth)) != 0 ||
	    back.payload_len != r->payload_len ||
	    (back.payload_len && memcmp(back.payload, r->payload, back.payload_len)))
		abort();
	if (r->payload_len + r->bth.padcnt + (size_t)(r->payload - data) <= size)
		for (size_t i = 0; i < r->bth.padcnt; i++)
			pad0 &= r->payload[r->payload_len + i] == 0;
	if (r->icrc_ok && r->vcrc_ok && size == pkt + 2 && pad0 && !skips_headers(r) &&
	    ((size_t)n != size || memcmp(out, data, size) != 0))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct verbs_fuzz f = { wire_ib_decode, check, same };
	struct wire_roce r;

	if (verbs_fuzz_one(&f, &r, data, size) == 0)
		check_encode(&r, data, size);
	(void)wire_ib_icrc(data, size);
	(void)wire_ib_vcrc(data, size);
	return 0;
}
