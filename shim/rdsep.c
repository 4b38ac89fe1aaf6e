// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* rdsep.c - the shim's and rdsd's librds endpoint for one address (rdsep.h). */
#include "rdsep.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <rds/rdsu_tcp.h>
#ifdef RDSEP_HAVE_IB
#include <rds/rdsu_ib.h>
const bool rdsep_have_ib = true;
#else
const bool rdsep_have_ib = false;
#endif

/* 127.0.0.0/8 or ::1: the loopback transport's (rds_trans_get_preferred). */
static bool is_loopback(const struct rdsu_addr *a)
{
	static const uint8_t one[16] = { [15] = 1 };

	return rdsu_addr_is_v4(a) ? a->a[12] == 127 : !memcmp(a->a, one, sizeof(one));
}

int rdsep_new(struct rdsu_io **out, const struct rdsu_addr *a, bool *rdma)
{
	struct rdsu_ep_cfg cfg;
	struct rdsu_io_cfg icfg;
	struct rdsu_tcp_cfg tcfg;
#ifdef RDSEP_HAVE_IB
	struct rdsu_ib_cfg ibcfg;
#endif
	int e;

	*out = NULL;
	*rdma = false;
	rdsu_ep_cfg_default(&cfg);
	cfg.laddrs[0] = *a;
	cfg.n_laddrs = 1;
	rdsu_io_cfg_default(&icfg);
	rdsu_tcp_cfg_default(&tcfg);
	tcfg.ring_wait = false;  /* the caller polls rdsu_io_fd() */
	icfg.tcp = &tcfg;
	icfg.transports = RDSU_IO_TCP;
#ifdef RDSEP_HAVE_IB
	/* rds_ib_laddr_check: bound to an RDMA device (IB or RoCE), not
	 * loopback (rds_trans_get_preferred gives 127/8 and ::1 the
	 * loopback transport first). No rdma_cm at all reads as no. */
	if (!is_loopback(a) && rdsu_ib_laddr_check(a) == 1) {
		rdsu_ib_cfg_default(&ibcfg);
		icfg.ib = &ibcfg;
		icfg.transports |= RDSU_IO_IB;
		cfg.rdma_laddrs = 1;
		*rdma = true;
	}
#endif
	e = rdsu_io_new(out, &cfg, &icfg);
	if (e < 0) {
		*out = NULL;
		*rdma = false;
		return e == -EADDRNOTAVAIL || e == -EADDRINUSE || e == -ENOMEM ? e : -EADDRNOTAVAIL;
	}
	return 0;
}

int rdsep_bind_check(unsigned trans, bool rdma)
{
	return trans == RDSU_TRANS_IB && !rdma ? -ENOPROTOOPT : 0;
}

const char *rdsep_strerror(const struct rdsu_addr *a, int e)
{
	unsigned tr = RDSU_IO_TCP;

#ifdef RDSEP_HAVE_IB
	/* as rdsep_new picks the transports */
	if (e == -EADDRINUSE && !is_loopback(a) && rdsu_ib_laddr_check(a) == 1)
		tr |= RDSU_IO_IB;
#else
	(void)a;
#endif
	return rdsu_io_strerror(e, tr);
}
