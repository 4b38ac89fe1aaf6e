/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * ibres.h - the kernel source's view of RDMA netlink, pure half: the
 * answers of the RDMA_NLDEV dumps (decoded by libwire) gathered, then
 * joined to the snapshot's RDS IB connections. rnl.c sends the dumps and
 * hands each datagram here, so all of this runs in unit tests on bytes.
 *
 * The join (docs/monitoring.md, "IB resources"): RDS_INFO_IB_CONNECTIONS
 * gives a connection's addresses, not its QP; the rdma_cm IDs that
 * rds_rdma owns (RES_CM_ID_GET, kernel owner "rds_rdma") give their
 * addresses and their QP number. One ID with a QP for the connection's
 * (local, peer) pair names its QP, which RES_QP_GET describes (type RC,
 * state, port); none or several leave it unknown, never guessed.
 */
#ifndef TOP_IBRES_H
#define TOP_IBRES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "top.h"

/* The kernel module that owns RDS's rdma_cm IDs (rdma_create_id() names
 * its caller's module: net/rds/ib_cm.c rds_ib_conn_path_connect). */
#define TOP_IBRES_OWNER "rds_rdma"

struct top_ibres_cm {
	uint32_t dev, port, lqpn;
	uint8_t src[16], dst[16];
};

struct top_ibres_qp {
	uint32_t dev, lqpn, rqpn, port;
	bool has_rqpn, has_port, has_state;
	uint8_t type, state;
};

struct top_ibres {
	struct top_ibres_cm *cms;
	size_t n_cms, cap_cms;
	struct top_ibres_qp *qps;
	size_t n_qps, cap_qps;
	uint32_t seq;                  /* the dump being answered */
};

void top_ibres_init(struct top_ibres *r);
void top_ibres_fini(struct top_ibres *r);

/*
 * top_ibres_take() - one datagram of a dump's answer (sequence r->seq):
 * devices and their resource counts (RES_GET) into s->ibdevs, ports
 * (PORT_GET) into their device, QPs and rds_rdma's cm IDs into |r|.
 * Messages of another sequence are skipped.
 * Return: 1 at the dump's end (NLMSG_DONE), 0 for more, -EPROTO (bytes
 * libwire refuses), -ENOMEM, or the -errno of an NLMSG_ERROR.
 */
int top_ibres_take(struct top_ibres *r, struct top_snap *s, const uint8_t *buf, size_t len);

/* top_ibres_join() - fill each of s->ibs's join fields from |r| and s->ibdevs;
 * sets s->has_rdma. */
void top_ibres_join(const struct top_ibres *r, struct top_snap *s);

/* top_ib_qp_str() - "RTS" (the QP state), "unknown" (ambiguous join), "-"
 * (no QP or no view); the names are libwire's. */
const char *top_ib_qp_str(const struct top_ib *b);

#endif /* TOP_IBRES_H */
