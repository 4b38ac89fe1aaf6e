/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rdsopt.h - the SOL_RDS options that librds-preload.so (a socket of its
 * own) and rdsd (a socket it serves) each keep for a socket, with their
 * rules in one place. Ref: net/rds/af_rds.c rds_setsockopt(),
 * rds_set_transport(), rds_getsockopt().
 */
#ifndef RDSTK_SHIM_RDSOPT_H
#define RDSTK_SHIM_RDSOPT_H

#include <stdbool.h>
#include <stddef.h>

#include <rds/rdsu.h>

struct rdsopt {
	unsigned transport;      /* SO_RDS_TRANSPORT set, or RDSU_TRANS_NONE */
	bool recverr, cong_monitor;
};

void rdsopt_init(struct rdsopt *o);
/* Set RDS_RECVERR, RDS_CONG_MONITOR or SO_RDS_TRANSPORT from the |len|
 * bytes at |v|; a congestion monitor also on |us| when the socket has
 * one. Return: 0; -EINVAL, -EOPNOTSUPP or -ENOPROTOOPT as the kernel
 * answers; -ENOPROTOOPT for any other |name|. */
int rdsopt_set(struct rdsopt *o, struct rdsu_sock *us, int name, const void *v, size_t len);
/* RDS_RECVERR or SO_RDS_TRANSPORT (of a socket bound, |us| set, TCP).
 * Return: 0 and *out set; -ENOPROTOOPT for any other |name|. */
int rdsopt_get(const struct rdsopt *o, const struct rdsu_sock *us, int name, int *out);

#endif /* RDSTK_SHIM_RDSOPT_H */
