/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * nlhdr.h - the netlink message header both RDMA netlink decoders read
 * (nl.c: local service, nldev.c: devices): 16 bytes, host order, as the
 * kernel stores them (struct nlmsghdr).
 *
 *  0        4      6       8        12       16
 *  +--------+------+-------+--------+--------+
 *  |  len   | type | flags |  seq   |  pid   |
 *  +--------+------+-------+--------+--------+
 *  type = client << 10 | op   (RDMA_NL_GET_TYPE)
 */
#ifndef WIRE_NLHDR_H
#define WIRE_NLHDR_H

#include <stdint.h>

#include "rd.h"

#define WIRE_NLHDR_LEN 16u          /* NLMSG_HDRLEN */

/* Read the header's five fields from |rd| (zeros past its end). */
static inline void wire_nlhdr_read(struct wire_rd *rd, uint32_t *len, uint16_t *type,
				   uint16_t *flags, uint32_t *seq, uint32_t *pid)
{
	*len = wire_rd_he32(rd);
	*type = wire_rd_he16(rd);
	*flags = wire_rd_he16(rd);
	*seq = wire_rd_he32(rd);
	*pid = wire_rd_he32(rd);
}

#endif /* WIRE_NLHDR_H */
