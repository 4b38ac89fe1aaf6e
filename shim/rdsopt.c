// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* rdsopt.c - the SOL_RDS options a shimmed socket keeps (rdsopt.h). */
#include "rdsopt.h"

#include <errno.h>
#include <linux/rds.h>
#include <string.h>

void rdsopt_init(struct rdsopt *o)
{
	memset(o, 0, sizeof(*o));
	o->transport = RDSU_TRANS_NONE;
}

int rdsopt_set(struct rdsopt *o, struct rdsu_sock *us, int name, const void *v, size_t len)
{
	int iv;

	switch (name) {
	case RDS_RECVERR:
	case RDS_CONG_MONITOR:
		if (!v || len < sizeof(int))
			return -EINVAL;
		memcpy(&iv, v, sizeof(iv));
		if (name == RDS_RECVERR) {
			o->recverr = iv != 0;
		} else {
			o->cong_monitor = iv != 0;
			if (us)
				(void)rdsu_sock_set_cong_monitor(us, o->cong_monitor);
		}
		return 0;
	case SO_RDS_TRANSPORT:
		/* rds_set_transport: once, before bind; IB is absent. */
		if (o->transport != RDSU_TRANS_NONE || us)
			return -EOPNOTSUPP;
		if (!v || len != sizeof(int))
			return -EINVAL;
		memcpy(&iv, v, sizeof(iv));
		if (iv < 0 || iv >= RDSU_TRANS_COUNT)
			return -EINVAL;
		if (iv != RDSU_TRANS_TCP)
			return -ENOPROTOOPT;
		o->transport = (unsigned)iv;
		return 0;
	default:
		return -ENOPROTOOPT;
	}
}

int rdsopt_get(const struct rdsopt *o, const struct rdsu_sock *us, int name, int *out)
{
	switch (name) {
	case RDS_RECVERR:
		*out = o->recverr;
		return 0;
	case SO_RDS_TRANSPORT:
		/* rs_transport's t_type once bound: RDS_TRANS_LOOP (3) for
		 * 127.0.0.0/8 and ::1 (rds_trans_get_preferred), as librds
		 * answers for its socket; what was set, or none, before. */
		*out = (int)(us ? rdsu_sock_get_transport(us) : o->transport);
		return 0;
	default:
		return -ENOPROTOOPT;
	}
}
