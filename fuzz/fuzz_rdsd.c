// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * fuzz_rdsd.c - rdsd's request decoder (shim/rdsd_proto.c), which reads
 * whatever a local client writes to its connection. Properties abort():
 * shorter than a request is truncated and nothing else is; a request that
 * decodes has a known op, family and address form, its header is the
 * input's first bytes unchanged, and its payload lies inside the input
 * within what its op takes; the answer depends on the bytes alone.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "rdsd_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool ok)
{
	if (!ok)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t v4mapped[12] = { [10] = 0xff, [11] = 0xff };
	struct rdsd_req q, q2;
	const uint8_t *pl = NULL, *pl2 = NULL;
	size_t plen = 0, plen2 = 0;
	enum rdsd_decode d = rdsd_req_decode(data, size, &q, &pl, &plen);

	check(rdsd_req_decode(data, size, &q2, &pl2, &plen2) == d);
	check((d == RDSD_DECODE_TRUNCATED) == (size < sizeof(q)));
	if (d == RDSD_DECODE_TRUNCATED)
		return 0;
	check(d == RDSD_DECODE_OK || d == RDSD_DECODE_MALFORMED);
	check(pl == data + sizeof(q) && plen == size - sizeof(q));
	check(!memcmp(&q, data, sizeof(q)) && !memcmp(&q, &q2, sizeof(q)));
	if (d != RDSD_DECODE_OK)
		return 0;
	check(q.op >= RDSD_OP_CHAN && q.op <= RDSD_OP_LAST);
	check(q.family == 0 || q.family == AF_INET || q.family == AF_INET6);
	if (q.family == AF_INET)
		check(!memcmp(q.addr, v4mapped, sizeof(v4mapped)));
	if (q.family == AF_INET6)
		check(memcmp(q.addr, v4mapped, sizeof(v4mapped)) != 0);
	if (q.op == RDSD_OP_SEND || q.op == RDSD_OP_SETOPT)
		check(plen <= RDSD_MAX_MSG);
	else
		check(plen == 0);
	return 0;
}
