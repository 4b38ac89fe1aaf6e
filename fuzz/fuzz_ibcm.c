// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fuzz_ibcm.c - libFuzzer harness for wire_ibcm_decode(): memory safety,
 * plus properties:
 *  - results are one of 0, TRUNC, UNSUPP;
 *  - private and user data pointers stay inside the input, user data
 *    inside the private data;
 *  - a shorter capture gives the same result or TRUNC, and when both
 *    decode, the same fixed fields and a private area no longer. */
#include <stdint.h>
#include <stdlib.h>

#include <wire/wire.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void inside(const uint8_t *p, size_t n, const uint8_t *base, size_t len)
{
	if (!n)
		return;
	if (p < base || (size_t)(p - base) > len || n > len - (size_t)(p - base))
		abort();
}

static void check_one(const struct wire_ibcm *cm, int rc, const uint8_t *data,
		      size_t len)
{
	if (rc != 0 && rc != WIRE_ERR_TRUNC && rc != WIRE_ERR_UNSUPP)
		abort();
	if (rc != 0)
		return;
	if (cm->mgmt_class != WIRE_IBCM_CLASS || !wire_ibcm_attr_name(cm->attr_id))
		abort();
	if (cm->private_len > WIRE_MAD_LEN - 24)
		abort();
	inside(cm->private_data, cm->private_len, data, len);
	inside(cm->user_data, cm->user_len, cm->private_data, cm->private_len);
	if (cm->user_len && !cm->has_cma)
		abort();
	if (cm->local_qpn > 0xffffff || cm->remote_qpn > 0xffffff ||
	    cm->starting_psn > 0xffffff || cm->rej_msg > 3)
		abort();
	if (cm->attr_id != WIRE_IBCM_REQ && (cm->has_cma || !wire_rules_empty(&cm->rules)))
		abort();
}

static void check_cut(const struct wire_ibcm *full, int rc_full,
		      const uint8_t *data, size_t cut)
{
	struct wire_ibcm cm;
	int rc = wire_ibcm_decode(&cm, data, cut);

	check_one(&cm, rc, data, cut);
	if (rc != rc_full && rc != WIRE_ERR_TRUNC)
		abort();
	if (rc != 0 || rc_full != 0)
		return;
	if (cm.attr_id != full->attr_id || cm.tid != full->tid ||
	    cm.local_comm_id != full->local_comm_id ||
	    cm.remote_comm_id != full->remote_comm_id ||
	    cm.service_id != full->service_id ||
	    cm.private_data != full->private_data ||
	    cm.private_len > full->private_len ||
	    (cm.has_cma && !full->has_cma))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wire_ibcm cm;
	int rc = wire_ibcm_decode(&cm, data, size);

	check_one(&cm, rc, data, size);
	if (size) {
		check_cut(&cm, rc, data, size - 1);
		check_cut(&cm, rc, data, size / 2);
		check_cut(&cm, rc, data, data[size - 1] % size);
	}
	return 0;
}
