// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * fuzz_agentreq.c - the request parser of `rds-conform agent`, which reads
 * whatever reaches its TCP port. A request that parses must be one the
 * agent can act on safely: a known op, a bindable port, sizes and counts
 * inside the limits the parser promises. Properties abort().
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <wire/wire.h>

#include "agent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool ok)
{
	if (!ok)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cf_agent_req q;
	char err[160];

	err[0] = '\0';
	if (cf_agent_parse((const char *)data, size, &q, err, sizeof(err)) != 0) {
		/* a refusal always says why */
		check(err[0] != '\0' && memchr(err, '\0', sizeof(err)) != NULL);
		return 0;
	}
	check(size <= CF_AGENT_LINE_MAX);
	check(q.op <= CF_OP_NOTES);
	if (q.op == CF_OP_HELLO)
		return 0;
	check(q.port >= 2);
	switch (q.op) {
	case CF_OP_BIND:
		check(q.rcvbuf <= (1u << 30));
		break;
	case CF_OP_SEND:
		check(q.count >= 1 && q.count <= 1000000);
		check(q.size <= WIRE_MAX_MSG_LEN);
		check(q.wait_ms <= 600000);
		break;
	case CF_OP_RECV:
	case CF_OP_NOTES:
		check(q.want <= 1000000 && q.wait_ms <= 600000);
		break;
	case CF_OP_MAP:
	case CF_OP_RDMA:
		/* an agent buffer holds any size it takes */
		check(q.size >= 1 && q.size <= CF_REGION_MAX && q.flags <= 0xff);
		check(q.raddr <= INT64_MAX && q.token <= INT64_MAX);
		break;
	case CF_OP_FREE_MR:
		check(q.flags <= 0xff && q.cookie <= INT64_MAX);
		break;
	default:
		break;
	}
	return 0;
}
