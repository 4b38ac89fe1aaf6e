// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rdsd_proto.c - what rdsd reads from a client, decoded: a pure function
 * of the bytes of one message (fuzz/fuzz_rdsd.c), so that everything
 * rdsd does with a request starts from fields already checked.
 */
#include <string.h>
#include <sys/socket.h>

#include "rdsd_proto.h"

static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

enum rdsd_decode rdsd_req_decode(const uint8_t *buf, size_t len, struct rdsd_req *q,
				 const uint8_t **payload, size_t *plen)
{
	if (len < sizeof(*q))
		return RDSD_DECODE_TRUNCATED;
	memcpy(q, buf, sizeof(*q));
	*payload = buf + sizeof(*q);
	*plen = len - sizeof(*q);
	if (q->op < RDSD_OP_CHAN || q->op > RDSD_OP_LAST)
		return RDSD_DECODE_MALFORMED;
	if (q->family != 0 && q->family != AF_INET && q->family != AF_INET6)
		return RDSD_DECODE_MALFORMED;
	/* an IPv4 address travels as ::ffff:a.b.c.d, and only so */
	if ((q->family == AF_INET) != !memcmp(q->addr, v4mapped, sizeof(v4mapped)) &&
	    q->family != 0)
		return RDSD_DECODE_MALFORMED;
	switch (q->op) {
	case RDSD_OP_SEND:
	case RDSD_OP_SETOPT:
		if (*plen > RDSD_MAX_MSG)
			return RDSD_DECODE_MALFORMED;
		break;
	default:
		/* the other requests carry nothing after the header */
		if (*plen)
			return RDSD_DECODE_MALFORMED;
		break;
	}
	return RDSD_DECODE_OK;
}
