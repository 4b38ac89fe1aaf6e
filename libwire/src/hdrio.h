/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* hdrio.h - header field reader shared by wire_hdr_decode() and the stream
 * deframer's hot path. Internal. */
#ifndef WIRE_HDRIO_H
#define WIRE_HDRIO_H

#include <wire/wire.h>

#include "rd.h"

/* Reads exactly WIRE_HDR_LEN bytes; the caller has checked they are there. */
static inline void wire_hdr_read(struct wire_hdr *h, const uint8_t *b)
{
	struct wire_rd rd;

	wire_rd_init(&rd, b, WIRE_HDR_LEN);
	h->seq = wire_rd_be64(&rd);
	h->ack = wire_rd_be64(&rd);
	h->len = wire_rd_be32(&rd);
	h->sport = wire_rd_be16(&rd);
	h->dport = wire_rd_be16(&rd);
	h->flags = wire_rd_u8(&rd);
	h->credit = wire_rd_u8(&rd);
	wire_rd_copy(&rd, h->pad, sizeof(h->pad));
	h->csum = wire_rd_be16(&rd);
	wire_rd_copy(&rd, h->ext, sizeof(h->ext));
}

#endif
