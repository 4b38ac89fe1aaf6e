/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * fuzz_verbs.h - what fuzz_ib and fuzz_roce hold of their decoders alike
 * (wire_ib_decode, wire_roce_decode: one struct wire_roce, two framings):
 *  - results are one of 0, TRUNC, MALFORMED, UNSUPP;
 *  - payload pointer and length stay inside the input;
 *  - with the wire length given, only MALFORMED may differ from without;
 *  - a shorter capture of the same packet (same wire length) gives the same
 *    result or TRUNC, and when both decode, the same headers.
 * Each harness adds what is its framing's own.
 */
#ifndef FUZZ_VERBS_H
#define FUZZ_VERBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <wire/wire.h>

struct verbs_fuzz {
	int (*decode)(struct wire_roce *r, const uint8_t *p, size_t len, size_t wire_len);
	/* the framing's own properties of a packet that decoded; abort() */
	void (*check)(const struct wire_roce *r);
	/* a shorter capture |cut| of |full| shows the same headers */
	bool (*same)(const struct wire_roce *cut, const struct wire_roce *full);
};

static inline void verbs_check_one(const struct verbs_fuzz *f, const struct wire_roce *r,
				   int rc, const uint8_t *data, size_t len)
{
	if (rc != 0 && rc != WIRE_ERR_TRUNC && rc != WIRE_ERR_MALFORMED &&
	    rc != WIRE_ERR_UNSUPP)
		abort();
	if (rc != 0)
		return;
	if (r->payload_len) {
		if (r->payload < data || (size_t)(r->payload - data) > len ||
		    r->payload_len > len - (size_t)(r->payload - data))
			abort();
	}
	f->check(r);
}

static inline void verbs_check_cut(const struct verbs_fuzz *f, const struct wire_roce *full,
				   int rc_full, const uint8_t *data, size_t cut, size_t size)
{
	struct wire_roce r;
	int rc = f->decode(&r, data, cut, size);

	verbs_check_one(f, &r, rc, data, cut);
	if (rc != rc_full && rc != WIRE_ERR_TRUNC)
		abort();
	if (rc != 0 || rc_full != 0)
		return;
	if (r.payload != full->payload || r.payload_len > full->payload_len || !f->same(&r, full))
		abort();
}

/* verbs_fuzz_one() - |data| decoded as the whole capture and as |size|
 * bytes of the wire, then three shorter captures of it. Return: the
 * result with the wire length, and its packet in *r. */
static inline int verbs_fuzz_one(const struct verbs_fuzz *f, struct wire_roce *r,
				 const uint8_t *data, size_t size)
{
	struct wire_roce r0;
	int rc0, rc;

	/* wire_len 0: the capture is all there was */
	rc0 = f->decode(&r0, data, size, 0);
	verbs_check_one(f, &r0, rc0, data, size);
	/* wire_len == len: only "frame shorter than its length field" differs */
	rc = f->decode(r, data, size, size);
	verbs_check_one(f, r, rc, data, size);
	if (rc != rc0 && rc != WIRE_ERR_MALFORMED)
		abort();
	if (size) {
		verbs_check_cut(f, r, rc, data, size - 1, size);
		verbs_check_cut(f, r, rc, data, size / 2, size);
		verbs_check_cut(f, r, rc, data, data[size - 1] % size, size);
	}
	return rc;
}

#endif /* FUZZ_VERBS_H */
