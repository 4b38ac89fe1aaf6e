// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * fuzz_rdscmsg.c - the shim's decoder of a send's control messages
 * (shim/rdscmsg.c), which reads whatever an application put in
 * msg_control. Properties abort(): the answer depends on the bytes alone
 * (and is the same from a copy at another alignment), it is 0, -EINVAL or
 * -EMSGSIZE, and a decoded operation is of a type that asks for one, with
 * an RDMA's local entry count between 1 and 1024.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rdscmsg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool ok)
{
	if (!ok)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rdscmsg a, b;
	uint8_t *copy = malloc(size + 1);
	int r, r2;

	if (!copy)
		return 0;
	memcpy(copy + 1, data, size);
	r = rdscmsg_parse(data, size, &a);
	r2 = rdscmsg_parse(copy + 1, size, &b);
	free(copy);
	check(r == r2);
	check(r == 0 || r == -EINVAL || r == -EMSGSIZE);
	if (r < 0)
		return 0;
	check(!memcmp(&a, &b, sizeof(a)));
	check((a.n_ops == 0) == (a.type == 0));
	/* a cookie's value and shortness only with a cookie seen */
	check(a.zcopy || (!a.zcopy_short && a.zcookie == 0));
	check(a.n_ops <= 2);
	switch (a.type) {
	case 0:
		break;
	case RDS_CMSG_RDMA_ARGS:
		check(a.rdma.nr_local >= 1 && a.rdma.nr_local <= 1024);
		break;
	case RDS_CMSG_ATOMIC_FADD: case RDS_CMSG_ATOMIC_CSWP:
	case RDS_CMSG_MASKED_ATOMIC_FADD: case RDS_CMSG_MASKED_ATOMIC_CSWP:
	case RDS_CMSG_RDMA_DEST: case RDS_CMSG_RDMA_MAP:
		break;
	default:
		abort();
	}
	/* DEST and MAP never beside ARGS or an atomic */
	if (a.type == RDS_CMSG_RDMA_DEST || a.type == RDS_CMSG_RDMA_MAP)
		check(a.n_ops == 1);
	return 0;
}
