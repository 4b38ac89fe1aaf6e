/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rdscmsg.h - a send's control messages (msg_control), decoded as the
 * kernel's rds_sendmsg reads them: a pure function over the bytes, shared
 * by librds-preload.so's two modes and fuzzed (fuzz/fuzz_rdscmsg.c).
 * What the cmsgs point at (an RDMA's local vector, an atomic's result, a
 * MAP's cookie) is the caller's to read, in its own memory.
 * Ref: net/rds/send.c rds_rm_size, rds_cmsg_send; net/rds/rdma.c
 * rds_rdma_extra_size, rds_cmsg_rdma_args, rds_cmsg_rdma_dest,
 * rds_cmsg_rdma_map, rds_cmsg_atomic (docs/kernel-behaviour.md "RDMA
 * operations through the shim").
 */
#ifndef RDSTK_SHIM_RDSCMSG_H
#define RDSTK_SHIM_RDSCMSG_H

#include <stddef.h>
#include <stdint.h>
#include <linux/rds.h>

/* The one operation a message carries: the cmsg type that asked for it. */
struct rdscmsg {
	int type;                    /* RDS_CMSG_*; 0: none */
	struct rds_rdma_args rdma;   /* RDMA_ARGS */
	struct rds_atomic_args atomic; /* the four atomics */
	uint64_t dest_cookie;        /* RDMA_DEST */
	struct rds_get_mr_args map;  /* RDMA_MAP */
	unsigned n_ops;              /* op cmsgs seen (the kernel takes an
				      * RDMA and an atomic together) */
	int zcopy;                   /* RDS_CMSG_ZCOPY_COOKIE seen */
	uint32_t zcookie;            /* ... the last one's cookie */
	int zcopy_short;             /* ... one was shorter than a u32
				      * (rds_cmsg_zcopy: -EINVAL once the
				      * send is known to be zero-copy) */
};

/*
 * rdscmsg_parse() - decode the |len| control bytes at |ctl| (NULL: none)
 * into |out|. Control messages of other levels are skipped, as the kernel
 * skips them. Errors, in the kernel's order:
 *   -EINVAL   a cmsg whose length is short or runs past the buffer
 *             (CMSG_OK), an unknown SOL_RDS type, an RDMA_ARGS with no
 *             local entry, DEST or MAP together with ARGS or an atomic,
 *             a cmsg too short for its argument, the same kind twice
 *             (two RDMA_ARGS, two atomics, two of DEST and MAP);
 *   -EMSGSIZE an RDMA_ARGS with more than UIO_MAXIOV (1024) local entries.
 * Return: 0; one of those.
 */
int rdscmsg_parse(const void *ctl, size_t len, struct rdscmsg *out);

#endif /* RDSTK_SHIM_RDSCMSG_H */
