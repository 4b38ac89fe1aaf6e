// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * fuzz_ibpd.c - IB CM private data: decode both layouts; whatever decodes
 * must re-encode to the same bytes, and the decoder's rules must agree with
 * wire_ib_negotiate() on the same bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <wire/wire.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one_family(const uint8_t *data, size_t size, int family)
{
	size_t need = family == 4 ? WIRE_IBPD_V4_LEN : WIRE_IBPD_V6_LEN;
	uint8_t out[WIRE_IBPD_V6_LEN];
	struct wire_ibpd pd;
	ssize_t n, m;
	uint16_t v, a;

	n = wire_ibpd_decode(&pd, family, data, size);
	v = wire_ib_negotiate(data, size, family);
	if (v != 0 && v != WIRE_IBVER_3_1 && v != WIRE_IBVER_4_0 &&
	    v != WIRE_IBVER_4_1)
		abort();

	if (n < 0) {
		if (n != WIRE_ERR_TRUNC || size >= need)
			abort();
		/* short: 4.0 on the passive side; nothing: reject */
		if (v != (size ? WIRE_IBVER_4_0 : 0))
			abort();
		if (!wire_rules_has(&pd.rules, size ? WIRE_RULE_IBPD_SHORT :
						      WIRE_RULE_IBPD_VERSION))
			abort();
		a = wire_ib_adopt(WIRE_IBVER_4_1, NULL);
		if (a != WIRE_IBVER_4_1)
			abort();
		return;
	}

	if ((size_t)n != need || pd.extra != size - need || pd.family != family)
		abort();
	m = wire_ibpd_encode(&pd, out, sizeof(out));
	if (m != n || memcmp(out, data, need) != 0)
		abort();
	if (wire_ibpd_encode(&pd, out, need - 1) != WIRE_ERR_NOSPACE)
		abort();
	if (wire_rules_has(&pd.rules, WIRE_RULE_IBPD_VERSION) != (v == 0))
		abort();
	if (wire_rules_has(&pd.rules, WIRE_RULE_IBPD_MASK) !=
	    (pd.minor_mask != WIRE_IB_SUPPORTED_MINORS))
		abort();

	a = wire_ib_adopt(WIRE_IBVER_4_1, &pd);
	if (a != 0 && a < WIRE_IBVER_3_1)
		abort();
	if (pd.major && a != 0 && a != (uint16_t)(pd.major << 8 | pd.minor))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wire_ibpd pd;

	one_family(data, size, 4);
	one_family(data, size, 6);
	if (wire_ibpd_decode(&pd, 0, data, size) != WIRE_ERR_INVAL)
		abort();
	if (wire_ib_negotiate(data, size, 5) != 0)
		abort();
	return 0;
}
