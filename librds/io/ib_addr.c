// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ib_addr.c - is an address on an RDMA device (rdsu_ib_laddr_check)?
 */
#include "ib.h"

#include <errno.h>

int rdsu_ib_laddr_check(const struct rdsu_addr *a)
{
	struct sockaddr_storage ss;
	struct rdma_cm_id *id;
	int r;

	if (!a)
		return RDSU_ERR_INVAL;
	/* As rds_ib_laddr_check: bind a throw-away id to the address; the
	 * device it lands on, if any, is the answer. No event channel: a
	 * bind waits for nothing and sends nothing. */
	if (rdma_create_id(NULL, &id, NULL, RDMA_PS_TCP))
		return errno == ENOENT || errno == 0 ? -ENODEV : -errno;
	(void)rdsu_sockaddr(a, 0, &ss);
	if (rdma_bind_addr(id, (struct sockaddr *)&ss))
		r = errno == EADDRNOTAVAIL || errno == ENODEV || errno == EINVAL ? 0 : -errno;
	else
		/* IB and RoCE (Soft-RoCE too) are IB_CA; the kernel refuses
		 * iWARP's RNICs for RDS. */
		r = id->verbs && id->verbs->device->node_type == IBV_NODE_CA;
	rdma_destroy_id(id);
	return r;
}
