// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * eng_nl.c - rdsdump's engine on netlink (nlmon captures): each RDMA
 * and route message one record.
 */
#include "eng.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------
 * Netlink
 */

int eng_nl_packet(struct dump_eng *e, const struct wire_pkt *p)
{
	size_t off = 0;
	int kept = 0;

	while (off < p->payload_caplen) {
		struct wire_nl_ls m;
		struct dump_rec r;
		ssize_t n = wire_nl_decode(&m, p->payload + off, p->payload_caplen - off);

		if (n == WIRE_ERR_UNSUPP) {
			/* another netlink family, or too long to decode */
			size_t step = ((size_t)m.nl_len + 3) & ~(size_t)3;

			if (m.nl_len < 16 || step > p->payload_caplen - off)
				break;
			off += step;
			continue;
		}
		eng_rec_init(e, &r, n < 0 ? DUMP_REC_BAD : DUMP_REC_NL, NULL, 0);
		r.xp = DUMP_XP_NL;
		kept = 1;
		if (n < 0) {
			r.u.bad.err = (int)n;
			r.u.bad.layer = "netlink";
			eng_emit(e, &r);
			break;
		}
		r.u.nl = &m;
		r.rules = m.rules;
		eng_emit(e, &r);
		off += (size_t)n;
	}
	return kept;
}
