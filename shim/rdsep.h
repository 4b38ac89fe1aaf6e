/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rdsep.h - the librds endpoint that librds-preload.so (one per process)
 * and rdsd (one per local address) make for an address, with the
 * transports the kernel would offer a socket bound there: IB when the
 * address is on an RDMA device and the IB transport is built, TCP beside
 * it always (a socket may still ask for TCP with SO_RDS_TRANSPORT).
 * Ref: net/rds/bind.c rds_bind (rds_trans_get_preferred, then the first
 * transport whose laddr_check accepts the address, IB registered first).
 */
#ifndef RDSTK_SHIM_RDSEP_H
#define RDSTK_SHIM_RDSEP_H

#include <stdbool.h>

#include <rds/rdsu.h>
#include <rds/rdsu_io.h>

/* Is librds's IB transport linked in (library rdsu_ib was built)? */
extern const bool rdsep_have_ib;

/* rdsep_new() - the endpoint on |a| alone; *rdma says whether it runs IB
 * for it (the address is on an RDMA device). The loop is polled by its
 * caller on rdsu_io_fd() (no ring wait).
 * Return: 0; -EADDRNOTAVAIL, -EADDRINUSE or -ENOMEM as rdsu_io_new says;
 * -EADDRNOTAVAIL for any other failure. */
int rdsep_new(struct rdsu_io **out, const struct rdsu_addr *a, bool *rdma);

/* rdsep_strerror() - words for rdsep_new()'s |e| on |a|: for -EADDRINUSE,
 * the kernel's rds_tcp or rds_rdma when one holds the port of every
 * address (rdsu_io_strerror), and what to do. Static text. */
const char *rdsep_strerror(const struct rdsu_addr *a, int e);

/* rdsep_bind_check() - may a socket whose SO_RDS_TRANSPORT is |trans|
 * (RDSU_TRANS_NONE: not set) bind on an endpoint with |rdma|?
 * Return: 0; -ENOPROTOOPT for IB on an address on no RDMA device, as
 * rds_bind answers when the set transport's laddr_check refuses. */
int rdsep_bind_check(unsigned trans, bool rdma);

#endif /* RDSTK_SHIM_RDSEP_H */
