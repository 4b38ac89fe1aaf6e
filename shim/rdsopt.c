// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* rdsopt.c - the SOL_RDS options a shimmed socket keeps (rdsopt.h). */
#include "rdsopt.h"
#include "rdsep.h"

#include <errno.h>
#include <linux/rds.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY 60
#endif
/* asm-generic/socket.h's numbers, where libc's headers lack them */
#ifndef SO_TIMESTAMP_OLD
#define SO_TIMESTAMP_OLD 29
#define SO_TIMESTAMPNS_OLD 35
#endif
#ifndef SO_TIMESTAMP_NEW
#define SO_TIMESTAMP_NEW 63
#define SO_TIMESTAMPNS_NEW 64
#endif

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
			if (us)
				(void)rdsu_sock_set_recverr(us, o->recverr);
		} else {
			o->cong_monitor = iv != 0;
			if (us)
				(void)rdsu_sock_set_cong_monitor(us, o->cong_monitor);
		}
		return 0;
	case SO_RDS_TRANSPORT:
		/* rds_set_transport: once, before bind; a transport not
		 * loaded (here: IB not built) is ENOPROTOOPT. */
		if (o->transport != RDSU_TRANS_NONE || us)
			return -EOPNOTSUPP;
		if (!v || len != sizeof(int))
			return -EINVAL;
		memcpy(&iv, v, sizeof(iv));
		if (iv < 0 || iv >= RDSU_TRANS_COUNT)
			return -EINVAL;
		if (iv != RDSU_TRANS_TCP && !(iv == RDSU_TRANS_IB && rdsep_have_ib))
			return -ENOPROTOOPT;
		o->transport = (unsigned)iv;
		return 0;
	case SO_TIMESTAMP_OLD:
	case SO_TIMESTAMP_NEW:
		/* rds_enable_recvtstamp: NEW sets SOCK_TSTAMP_NEW and never
		 * clears it; neither touches SOCK_RCVTSTAMPNS */
		if (len != sizeof(int))
			return -EFAULT;
		if (!v)
			return -EFAULT;
		memcpy(&iv, v, sizeof(iv));
		if (name == SO_TIMESTAMP_NEW)
			o->ts_new = true;
		if (iv && !o->ts)
			o->ts_since = rdsu_clock();
		o->ts = iv != 0;
		return 0;
	case SO_RDS_MSG_RXPATH_LATENCY: {
		struct rds_rx_trace_so t;

		/* rds_recv_track_latency: every refusal is -EFAULT */
		if (!v || len != sizeof(t))
			return -EFAULT;
		memcpy(&t, v, sizeof(t));
		if (t.rx_traces > RDS_MSG_RX_DGRAM_TRACE_MAX)
			return -EFAULT;
		o->rx_traces = t.rx_traces;
		for (unsigned i = 0; i < t.rx_traces; i++) {
			if (t.rx_trace_pos[i] >= RDS_MSG_RX_DGRAM_TRACE_MAX) {
				o->rx_traces = 0;
				return -EFAULT;
			}
			o->rx_trace[i] = t.rx_trace_pos[i];
		}
		return 0;
	}
	default:
		return -ENOPROTOOPT;
	}
}

int rdsopt_set_socket(struct rdsopt *o, int name, const void *v, size_t len)
{
	int iv;

	switch (name) {
	case SO_ZEROCOPY:
	case SO_TIMESTAMP_OLD:
	case SO_TIMESTAMP_NEW:
	case SO_TIMESTAMPNS_OLD:
	case SO_TIMESTAMPNS_NEW:
		break;
	default:
		return 1;
	}
	if (!v || len < sizeof(int))
		return -EINVAL;
	memcpy(&iv, v, sizeof(iv));
	if (name == SO_ZEROCOPY) {
		if (iv < 0 || iv > 1)
			return -EINVAL;
		o->zerocopy = iv;
		return 0;
	}
	/* __sock_set_timestamps */
	if (iv) {
		o->ts_new = name == SO_TIMESTAMP_NEW || name == SO_TIMESTAMPNS_NEW;
		o->ts_ns = name == SO_TIMESTAMPNS_OLD || name == SO_TIMESTAMPNS_NEW;
		if (!o->ts)
			o->ts_since = rdsu_clock();
		o->ts = true;
	} else {
		o->ts = o->ts_ns = false;
	}
	return 0;
}

int rdsopt_get_socket(const struct rdsopt *o, int name, int *out)
{
	switch (name) {
	case SO_ZEROCOPY:
		*out = o->zerocopy;
		return 0;
	case SO_TIMESTAMP_OLD:
		*out = o->ts && !o->ts_new && !o->ts_ns;
		return 0;
	case SO_TIMESTAMPNS_OLD:
		*out = o->ts_ns && !o->ts_new;
		return 0;
	case SO_TIMESTAMP_NEW:
		*out = o->ts && o->ts_new;
		return 0;
	case SO_TIMESTAMPNS_NEW:
		*out = o->ts_ns && o->ts_new;
		return 0;
	default:
		return 1;
	}
}

void rdsopt_copy_rx(struct rdsopt *to, const struct rdsopt *from)
{
	to->zerocopy = from->zerocopy;
	to->ts = from->ts;
	to->ts_new = from->ts_new;
	to->ts_ns = from->ts_ns;
	to->ts_since = from->ts_since;
	to->rx_traces = from->rx_traces;
	memcpy(to->rx_trace, from->rx_trace, sizeof(to->rx_trace));
}

/* put_cmsg: the header and as much of |data| as fits; MSG_CTRUNC when
 * not all of it did. */
static void put_cmsg(void *ctl, size_t room, size_t *used, bool *ctrunc, int level, int type,
		     const void *data, size_t len)
{
	struct cmsghdr h = { .cmsg_len = CMSG_LEN(len), .cmsg_level = level, .cmsg_type = type };
	size_t left = room > *used ? room - *used : 0;
	size_t cmlen = CMSG_LEN(len);

	if (!ctl || left < sizeof(h)) {
		if (ctrunc)
			*ctrunc = true;
		return;
	}
	if (left < cmlen) {
		if (ctrunc)
			*ctrunc = true;
		cmlen = left;
		h.cmsg_len = cmlen;
	}
	memcpy((char *)ctl + *used, &h, sizeof(h));
	memcpy((char *)ctl + *used + CMSG_LEN(0), data, cmlen - CMSG_LEN(0));
	cmlen = CMSG_SPACE(len);
	*used += cmlen < left ? cmlen : left;
}

void rdsopt_rx_cmsgs(const struct rdsopt *o, const struct rdsu_rx_times *t, rdsu_ns now,
		     int64_t real_off, void *ctl, size_t room, size_t *used, bool *ctrunc)
{
	/* rds_cmsg_recv: a stamp taken at queueing, while SOCK_RCVTSTAMP
	 * was set; always a timeval's worth (never SOCK_RCVTSTAMPNS's) */
	if (o->ts && t && t->queued && t->queued >= o->ts_since) {
		int64_t ns = (int64_t)t->queued + real_off;
		int64_t tv[2] = { ns / 1000000000, ns % 1000000000 / 1000 };

		if (!o->ts_new) {
			struct timeval old = { .tv_sec = (time_t)tv[0], .tv_usec = (suseconds_t)tv[1] };

			put_cmsg(ctl, room, used, ctrunc, SOL_SOCKET, SO_TIMESTAMP_OLD, &old,
				 sizeof(old));
		} else {
			put_cmsg(ctl, room, used, ctrunc, SOL_SOCKET, SO_TIMESTAMP_NEW, tv, sizeof(tv));
		}
	}
	if (o->rx_traces) {
		/* stages: i_rx_lat_trace[j + 1] - [j] of HDR, START, END and
		 * CMSG (now), in nanoseconds */
		struct rds_cmsg_rx_trace r;
		uint64_t at[RDS_MSG_RX_DGRAM_TRACE_MAX + 1] = { 0 };

		if (t) {
			at[0] = t->hdr;
			at[1] = t->start;
			at[2] = t->queued;
		}
		at[3] = now;
		memset(&r, 0, sizeof(r));
		r.rx_traces = o->rx_traces;
		for (unsigned i = 0; i < o->rx_traces; i++) {
			unsigned j = o->rx_trace[i];

			r.rx_trace_pos[i] = (uint8_t)j;
			r.rx_trace[i] = at[j + 1] - at[j];
		}
		put_cmsg(ctl, room, used, ctrunc, SOL_RDS, RDS_CMSG_RXPATH_LATENCY, &r, sizeof(r));
	}
}

bool rdsopt_zc_fits(const struct rdsopt *o, size_t room, size_t used)
{
	return o->zerocopy && room >= used && room - used >= CMSG_SPACE(sizeof(struct rds_zcopy_cookies));
}

void rdsopt_zc_cmsg(const struct rdsu_zc_notice *zc, void *ctl, size_t room, size_t *used)
{
	struct rds_zcopy_cookies ck;

	memset(&ck, 0, sizeof(ck));
	ck.num = zc->num;
	memcpy(ck.cookies, zc->cookies, sizeof(ck.cookies));
	put_cmsg(ctl, room, used, NULL, SOL_RDS, RDS_CMSG_ZCOPY_COMPLETION, &ck, sizeof(ck));
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
