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

#include <linux/rds.h>
#include <rds/rdsu.h>

struct rdsopt {
	unsigned transport;      /* SO_RDS_TRANSPORT set, or RDSU_TRANS_NONE */
	bool recverr, cong_monitor;
	/* the socket flags the kernel's RDS reads (K7.9, K7.10):
	 * SOCK_ZEROCOPY, SOCK_RCVTSTAMP, SOCK_TSTAMP_NEW, SOCK_RCVTSTAMPNS */
	bool zerocopy, ts, ts_new, ts_ns;
	rdsu_ns ts_since;        /* rdsu_clock() when SOCK_RCVTSTAMP was set */
	/* SO_RDS_MSG_RXPATH_LATENCY: rs_rx_traces, rs_rx_trace */
	uint8_t rx_traces, rx_trace[RDS_MSG_RX_DGRAM_TRACE_MAX];
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
/* The SOL_SOCKET options the kernel's socket layer keeps for RDS's
 * receive: SO_ZEROCOPY and the four SO_TIMESTAMP(NS)_OLD/_NEW
 * (sock_setsockopt: an |len| below an int -EINVAL; SO_ZEROCOPY takes 0
 * or 1, else -EINVAL). Return: 0 done; 1 not one of them; -EINVAL. */
int rdsopt_set_socket(struct rdsopt *o, int name, const void *v, size_t len);
/* ... their values as sock_getsockopt gives them. Return: 0 and *out;
 * 1 not one of them. */
int rdsopt_get_socket(const struct rdsopt *o, int name, int *out);

/* rdsopt_copy_rx() - SO_ZEROCOPY, the stamp flags and the trace of
 * |from| onto |to|, the rest of |to| as it is. */
void rdsopt_copy_rx(struct rdsopt *to, const struct rdsopt *from);

/* The receive cmsgs rds_cmsg_recv adds after a message, and the
 * completion rds_recvmsg_zcookie adds (|zc| NULL: none), written into
 * |ctl|'s |room| bytes from offset *used (advanced), as put_cmsg writes
 * them: one that does not fit whole is cut and sets *ctrunc. |t| the
 * message's times (NULL: none known), |now| rdsu_clock() now, |real_off|
 * CLOCK_REALTIME minus rdsu_clock(). */
void rdsopt_rx_cmsgs(const struct rdsopt *o, const struct rdsu_rx_times *t, rdsu_ns now,
		     int64_t real_off, void *ctl, size_t room, size_t *used, bool *ctrunc);
/* Does a completion fit (rds_recvmsg_zcookie: SOCK_ZEROCOPY and
 * CMSG_SPACE of it left)? */
bool rdsopt_zc_fits(const struct rdsopt *o, size_t room, size_t used);
void rdsopt_zc_cmsg(const struct rdsu_zc_notice *zc, void *ctl, size_t room, size_t *used);

#endif /* RDSTK_SHIM_RDSOPT_H */
