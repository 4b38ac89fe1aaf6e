/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * ibt.h - the IB transport part that RoCEv2 (roce.c) and native InfiniBand
 * (ib.c) share: BTH, extended transport headers, payload, pad and the CRC
 * the ICRC is made of. Internal; defined in ib.c.
 */
#ifndef WIRE_IBT_H
#define WIRE_IBT_H

#include <wire/wire.h>

#include "rd.h"
#include "wr.h"

/* One byte into the reflected CRC-32 register |crc| (no complement). */
uint32_t wire_ib_crc32(uint32_t crc, uint8_t b);

/*
 * Decodes from the BTH in |rd| up to the payload: |room| is what the outer
 * headers say the transport part holds, BTH through ICRC. Sets r->bth, the
 * extended headers, payload and payload_len (cut to what was captured),
 * and |*body| to the bytes of payload and pad the headers declare. Leaves
 * |rd| at the payload. Return: 0, WIRE_ERR_TRUNC, WIRE_ERR_MALFORMED.
 */
int wire_ib_transport_decode(struct wire_roce *r, struct wire_rd *rd, size_t room,
			     size_t *body);

/* Skips |body| bytes of |rd| and checks the ICRC after them against
 * |computed|; a mismatch adds |rule|. The caller has checked that the
 * packet was captured whole. */
void wire_ib_transport_icrc(struct wire_roce *r, struct wire_rd *rd, size_t body,
			    uint32_t computed, enum wire_rule rule);

/* Bytes wire_ib_transport_encode() writes: BTH through the pad. */
size_t wire_ib_transport_len(const struct wire_roce *r);

/* BTH, the extended headers r->bth.opcode implies, payload and pad. */
void wire_ib_transport_encode(const struct wire_roce *r, struct wire_wr *wr);

#endif /* WIRE_IBT_H */
