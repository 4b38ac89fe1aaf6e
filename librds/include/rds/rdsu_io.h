/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rdsu_io.h - librds over the operating system: the clock and the
 * addresses every transport uses (docs/librds.md, "Transports").
 */
#ifndef RDS_RDSU_IO_H
#define RDS_RDSU_IO_H

#include <sys/socket.h>

#include <rds/rdsu.h>

#ifdef __cplusplus
extern "C" {
#endif

/* rdsu_clock() - CLOCK_MONOTONIC in nanoseconds: the time every core call
 * made next to a transport should be given. */
RDSU_API rdsu_ns rdsu_clock(void);

/* rdsu_sockaddr() - |a|:|port| as a sockaddr_in (v4-mapped) or sockaddr_in6.
 * Return: its length. */
RDSU_API socklen_t rdsu_sockaddr(const struct rdsu_addr *a, uint16_t port,
				 struct sockaddr_storage *ss);
/* rdsu_sockaddr_get() - the address and port of an AF_INET/AF_INET6 |ss|.
 * Return: 0; -EAFNOSUPPORT for another family. */
RDSU_API int rdsu_sockaddr_get(const struct sockaddr_storage *ss, struct rdsu_addr *a,
			       uint16_t *port);

#ifdef __cplusplus
}
#endif

#endif /* RDS_RDSU_IO_H */
