// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fuzz_roce.c - libFuzzer harness for wire_roce_decode(): memory safety,
 * what fuzz_verbs.h holds of every decoder of struct wire_roce, and:
 *  - what decodes is IPv4 or IPv6;
 *  - the ICRC verdict agrees with the two values and the roce.icrc rule;
 *  - the BTH's fields are within their widths, and a transport header
 *    version other than 0 is the roce.tver rule. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <wire/wire.h>

#include "fuzz_verbs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct wire_roce *r)
{
	if (r->ip_version != 4 && r->ip_version != 6)
		abort();
	if (r->icrc_checked) {
		if (r->icrc_ok != (r->icrc == r->icrc_computed))
			abort();
		if (r->icrc_ok == wire_rules_has(&r->rules, WIRE_RULE_ROCE_ICRC))
			abort();
	} else if (r->icrc_ok || wire_rules_has(&r->rules, WIRE_RULE_ROCE_ICRC)) {
		abort();
	}
	if (r->bth.padcnt > 3 || r->bth.tver > 15 || r->bth.dqpn > 0xffffff ||
	    r->bth.psn > 0xffffff)
		abort();
	if ((r->bth.tver != 0) != wire_rules_has(&r->rules, WIRE_RULE_ROCE_TVER))
		abort();
}

static bool same(const struct wire_roce *r, const struct wire_roce *full)
{
	return memcmp(&r->bth, &full->bth, sizeof(r->bth)) == 0 &&
	       r->has_reth == full->has_reth && r->has_aeth == full->has_aeth &&
	       r->has_deth == full->has_deth && r->has_imm == full->has_imm &&
	       r->udp_sport == full->udp_sport;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct verbs_fuzz f = { wire_roce_decode, check, same };
	struct wire_roce r;

	verbs_fuzz_one(&f, &r, data, size);
	(void)wire_roce_icrc(data, size);
	if (size)
		(void)wire_ib_opcode_name(data[0]);
	if (size)
		(void)wire_ib_opcode_seg(data[0]);
	return 0;
}
