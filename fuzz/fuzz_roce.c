// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fuzz_roce.c - libFuzzer harness for wire_roce_decode(): memory safety,
 * plus properties that must hold for every input:
 *  - results are one of 0, TRUNC, MALFORMED, UNSUPP;
 *  - payload pointer and length stay inside the input;
 *  - the ICRC verdict agrees with the two values and the roce.icrc rule;
 *  - a shorter capture of the same packet (same wire length) gives the same
 *    result or TRUNC, and when both decode, the same headers. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <wire/wire.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_one(const struct wire_roce *r, int rc, const uint8_t *data,
		      size_t len)
{
	if (rc != 0 && rc != WIRE_ERR_TRUNC && rc != WIRE_ERR_MALFORMED &&
	    rc != WIRE_ERR_UNSUPP)
		abort();
	if (rc != 0)
		return;
	if (r->ip_version != 4 && r->ip_version != 6)
		abort();
	if (r->payload_len) {
		if (r->payload < data)
			abort();
		if ((size_t)(r->payload - data) > len ||
		    r->payload_len > len - (size_t)(r->payload - data))
			abort();
	}
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

static void check_cut(const struct wire_roce *full, int rc_full,
		      const uint8_t *data, size_t cut, size_t size)
{
	struct wire_roce r;
	int rc = wire_roce_decode(&r, data, cut, size);

	check_one(&r, rc, data, cut);
	if (rc != rc_full && rc != WIRE_ERR_TRUNC)
		abort();
	if (rc != 0 || rc_full != 0)
		return;
	if (memcmp(&r.bth, &full->bth, sizeof(r.bth)) != 0 ||
	    r.has_reth != full->has_reth || r.has_aeth != full->has_aeth ||
	    r.has_deth != full->has_deth || r.has_imm != full->has_imm ||
	    r.udp_sport != full->udp_sport || r.payload != full->payload ||
	    r.payload_len > full->payload_len)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wire_roce r0, r;
	int rc0, rc;

	/* wire_len 0: the capture is all there was */
	rc0 = wire_roce_decode(&r0, data, size, 0);
	check_one(&r0, rc0, data, size);
	/* wire_len == len: only "frame shorter than the IP length" differs */
	rc = wire_roce_decode(&r, data, size, size);
	check_one(&r, rc, data, size);
	if (rc != rc0 && rc != WIRE_ERR_MALFORMED)
		abort();

	if (size) {
		check_cut(&r, rc, data, size - 1, size);
		check_cut(&r, rc, data, size / 2, size);
		check_cut(&r, rc, data, data[size - 1] % size, size);
	}
	(void)wire_roce_icrc(data, size);
	if (size)
		(void)wire_ib_opcode_name(data[0]);
	if (size)
		(void)wire_ib_opcode_seg(data[0]);
	return 0;
}
