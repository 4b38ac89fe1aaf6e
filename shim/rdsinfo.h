/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rdsinfo.h - getsockopt(SOL_RDS, RDS_INFO_*) in the kernel's layouts
 * (libwire's codec) and with its size rules, over whatever holds the
 * state: rdsd's endpoints and sockets (rdsd_info.c), or one process's
 * (preload_sockopt.c). Ref: net/rds/info.c rds_info_getsockopt and the
 * list producers it calls (docs/kernel-behaviour.md K7.6).
 */
#ifndef RDSTK_SHIM_RDSINFO_H
#define RDSTK_SHIM_RDSINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rds/rdsu.h>

/* One socket as RDS_INFO_SOCKETS lists it. */
struct rdsinfo_sock {
	bool bound, connected;
	struct rdsu_addr baddr, caddr;
	uint16_t bport, cport;          /* host order */
	uint32_t sndbuf, rcvbuf;        /* rds_sk_sndbuf: the payload budget */
	uint64_t ino;                   /* the application's descriptor's inode */
};

/* Where the lists come from. */
struct rdsinfo_src {
	void *ctx;
	/* The |n|th endpoint, NULL past the last. */
	const struct rdsu_ep *(*ep)(void *ctx, size_t n);
	/* The |n|th socket: 1 and *out filled, 0 past the last. */
	int (*sock)(void *ctx, size_t n, struct rdsinfo_sock *out);
	/* RDS_INFO_IB_CONNECTIONS is answered (the kernel's rds_rdma is
	 * loaded): librds has its IB transport. */
	bool ib;
};

/*
 * rdsinfo_get() - list |opt| (RDS_INFO_FIRST..LAST) of |src| into |buf|
 * (|cap| bytes) for a caller whose buffer holds |buflen| bytes.
 * *optlen is the length the kernel writes back; *copy how many bytes of
 * |buf| the kernel would have written to the caller's buffer (on ENOSPC
 * the items that fit of the lists whose producer copies item by item,
 * nothing of those that copy all or none).
 * Return: the item size; -ENOSPC; -ENOPROTOOPT for a number nothing is
 * registered for; -EINVAL for a |buflen| the kernel refuses.
 */
int rdsinfo_get(const struct rdsinfo_src *src, unsigned opt, size_t buflen, uint8_t *buf,
		size_t cap, size_t *optlen, size_t *copy);

#endif
