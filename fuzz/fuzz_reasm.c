// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * fuzz_reasm.c - the IB reassembler over a fuzz-chosen series of SENDs.
 *
 * Input: one mode byte, then records.
 *   mode:    bit 0 gather into a buffer; bits 1-2 pick max_len
 *            (1 MiB, 4096, 8192, 100).
 *   record:  tag byte. Tag with bit 7 set: a raw frame of (tag & 0x7f)
 *            bytes taken from the input (runts and small frames).
 *            Otherwise: be16 payload length (masked to 0..8191), then 48
 *            header bytes (zero-filled if the input runs out); the payload
 *            is generated, so multi-fragment messages fit in a small input.
 *
 * Invariants: a completed message's length is its header's h_len (0 for an
 * ack-only frame), its payload stays inside the buffer and equals the
 * concatenated fragment payloads, and failures leave nothing in progress.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <wire/wire.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PLEN_MASK 0x1fff

static uint8_t gather[WIRE_MAX_MSG_LEN];
static uint8_t shadow[WIRE_MAX_MSG_LEN];
static uint8_t frame[WIRE_HDR_LEN + PLEN_MASK + 1];

static const uint32_t max_lens[4] = { 0, 4096, 8192, 100 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wire_reasm r;
	struct wire_frame out;
	size_t pos = 0, sgot = 0, flen, plen;
	uint8_t mode, tag;
	bool use_buf;
	uint32_t max_len;
	unsigned seed = 0;

	if (size < 1)
		return 0;
	mode = data[pos++];
	use_buf = mode & 1;
	max_len = max_lens[(mode >> 1) & 3];
	if (wire_reasm_init(&r, max_len, use_buf ? gather : NULL,
			    use_buf ? sizeof(gather) : 0) != 0)
		abort();
	if (!max_len)
		max_len = WIRE_MAX_MSG_LEN;

	while (pos < size) {
		int rc;
		bool ack_only;
		struct wire_hdr h;

		memset(&h, 0, sizeof(h));
		tag = data[pos++];
		if (tag & 0x80) {
			flen = tag & 0x7f;
			if (flen > size - pos)
				flen = size - pos;
			memcpy(frame, data + pos, flen);
			pos += flen;
		} else {
			plen = 0;
			if (size - pos >= 2) {
				plen = ((size_t)data[pos] << 8 | data[pos + 1]) & PLEN_MASK;
				pos += 2;
			}
			memset(frame, 0, WIRE_HDR_LEN);
			flen = size - pos < WIRE_HDR_LEN ? size - pos : WIRE_HDR_LEN;
			memcpy(frame, data + pos, flen);
			pos += flen;
			for (size_t i = 0; i < plen; i++)
				frame[WIRE_HDR_LEN + i] = (uint8_t)(seed + i * 13);
			seed += 7;
			flen = WIRE_HDR_LEN + plen;
		}

		ack_only = false;
		if (flen >= WIRE_HDR_LEN) {
			if (wire_hdr_decode(&h, frame, flen) != WIRE_HDR_LEN)
				abort();
			ack_only = !h.sport && !h.dport && flen == WIRE_HDR_LEN;
		}

		memset(&out, 0xa5, sizeof(out));
		rc = wire_reasm_input(&r, frame, flen, &out);
		if (r.got > r.max_len || (r.active && r.first.len > r.max_len))
			abort();
		if (rc == 1 && ack_only) {
			/* delivered alone; a message in progress is untouched */
			if (out.len != 0 || out.payload || !wire_rules_empty(&r.rules))
				abort();
			if (out.hdr.seq != h.seq || out.hdr.ack != h.ack)
				abort();
			continue;
		}
		if (rc == 0 || rc == 1) {
			if (ack_only || flen < WIRE_HDR_LEN)
				abort();
			plen = flen - WIRE_HDR_LEN;
			if (sgot + plen > sizeof(shadow))
				abort();
			memcpy(shadow + sgot, frame + WIRE_HDR_LEN, plen);
			sgot += plen;
		}
		if (rc == 0) {
			if (!r.active || r.got != sgot || r.got >= r.first.len)
				abort();
			continue;
		}
		if (rc == 1) {
			if (r.active || out.len != out.hdr.len || out.len != sgot ||
			    out.len > max_len || !wire_rules_empty(&r.rules))
				abort();
			if (use_buf) {
				if (out.payload != gather || out.len > sizeof(gather) ||
				    memcmp(out.payload, shadow, out.len) != 0)
					abort();
			} else if (out.payload) {
				abort();
			}
			sgot = 0;
			continue;
		}
		/* an error: nothing is in progress any more */
		if (r.active)
			abort();
		sgot = 0;
		if (rc == WIRE_ERR_MALFORMED) {
			if (wire_rules_count(&r.rules) != 1)
				abort();
			if (flen < WIRE_HDR_LEN &&
			    !wire_rules_has(&r.rules, WIRE_RULE_FRAG_FIRST_TOO_SMALL))
				abort();
		} else if (rc == WIRE_ERR_TOOBIG) {
			if (h.len <= max_len)
				abort();
		} else {
			abort();
		}
	}
	return 0;
}
