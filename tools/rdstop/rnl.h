/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rnl.h - RDMA netlink for the kernel source (rnl.c does the I/O, ibres.c
 * the decoding and the join).
 */
#ifndef TOP_RNL_H
#define TOP_RNL_H

#include <stddef.h>

#include "top.h"

/*
 * top_rnl_read() - read RDMA netlink's devices, ports, QPs and rdma_cm IDs
 * and join them to s->ibs (s->has_rdma set on success).
 * Return: 0; -EPROTONOSUPPORT (no RDMA netlink: ib_core not loaded), another
 * -errno, with a sentence in |why|. A failure leaves the IB rows unjoined.
 */
int top_rnl_read(struct top_snap *s, char *why, size_t whylen);

#endif /* TOP_RNL_H */
