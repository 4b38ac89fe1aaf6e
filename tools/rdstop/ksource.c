// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ksource.c - the kernel source's thin half: an AF_RDS socket and the
 * getsockopt calls that kinfo.c's loop drives, and a second one with
 * RDS_CONG_MONITOR whose RDS_CMSG_CONG_UPDATE notifications are read at
 * each snapshot. The kernel notifies a monitor socket only of peers'
 * maps, and only of the port groups (port % 64) where that socket's own
 * send was refused with ENOBUFS (rds_cong_wait() arms rs_cong_mask,
 * rds_cong_map_updated() reports rs_cong_mask & the updated groups): a
 * watcher that sends nothing hears nothing, and no socket hears of the
 * local map. So the local map and its time line are derived from the
 * receive queues (kinfo.c), and what the monitor socket says joins the
 * time line as peer-side news when it says anything.
 */
#include "source.h"

#include <errno.h>
#include <linux/rds.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <wire/wire.h>

#include "kinfo.h"
#include "rnl.h"


struct ksource {
	int fd;
	int mon;                      /* the RDS_CONG_MONITOR socket; -1: none */
	char news[160];               /* top_snap.cong_news */
	char rdma_why[160];           /* top_snap.rdma_error */
	struct top_kinfo_buf buf;
	struct wire_cong_map local;   /* the last snapshot's local node map */
	bool have_local;
	struct top_kinfo_news nw;
};

/* The monitor socket, or -1 with the reason in k->news. It is left
 * unbound: the kernel keeps one list of monitors for every map, and a
 * bound port would be one more socket in the lists rdstop shows. */
static int monitor_open(struct ksource *k)
{
	int one = 1;
	int fd = socket(AF_RDS, SOCK_SEQPACKET, 0);

	if (fd >= 0 && setsockopt(fd, SOL_RDS, RDS_CONG_MONITOR, &one, sizeof(one)) == 0) {
		snprintf(k->news, sizeof(k->news),
			 "local map from receive queues; peers' from RDS_CONG_MONITOR");
		return fd;
	}
	snprintf(k->news, sizeof(k->news),
		 "local map from receive queues; no RDS_CONG_MONITOR socket: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

/* The groups of every RDS_CMSG_CONG_UPDATE waiting on the monitor socket. */
static uint64_t monitor_read(struct ksource *k)
{
	uint64_t groups = 0;

	/* each read takes one notification; a bound keeps a storm of them
	 * from holding up the snapshot */
	for (int i = 0; i < 64; i++) {
		union {
			struct cmsghdr h;
			char b[CMSG_SPACE(sizeof(uint64_t)) * 4];
		} c;
		char one;
		struct iovec iov = { &one, 1 };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = c.b,
				    .msg_controllen = sizeof(c.b) };

		if (recvmsg(k->mon, &m, MSG_DONTWAIT) < 0)
			break;
		for (struct cmsghdr *h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h)) {
			uint64_t g;

			if (h->cmsg_level != SOL_RDS || h->cmsg_type != RDS_CMSG_CONG_UPDATE ||
			    h->cmsg_len < CMSG_LEN(sizeof(g)))
				continue;
			memcpy(&g, CMSG_DATA(h), sizeof(g));
			groups |= g;
		}
	}
	return groups;
}

static int kernel_gso(void *ctx, unsigned opt, void *buf, size_t *len)
{
	struct ksource *k = ctx;
	socklen_t l = (socklen_t)*len;
	int r = getsockopt(k->fd, SOL_RDS, (int)opt, buf, &l);

	*len = l;
	return r < 0 ? -errno : r;
}

static int kernel_open(void **state, const struct top_source_args *a, char *err,
		       size_t errlen)
{
	struct ksource *k = calloc(1, sizeof(*k));
	int e;

	(void)a;
	if (!k) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	k->fd = socket(AF_RDS, SOCK_SEQPACKET, 0);
	if (k->fd < 0) {
		e = errno;
		if (e == EAFNOSUPPORT)
			snprintf(err, errlen,
				 "AF_RDS is not available: load rds (modprobe rds_tcp)");
		else
			snprintf(err, errlen, "AF_RDS socket: %s", strerror(e));
		free(k);
		return -e;
	}
	k->mon = monitor_open(k);
	*state = k;
	return 0;
}

static int kernel_snapshot(void *state, uint64_t now_ns, struct top_snap *out, char *err,
			   size_t errlen)
{
	struct ksource *k = state;
	unsigned failed = 0;
	int r;

	out->now_ns = now_ns;
	out->source = "kernel";
	out->cong_news = k->news;
	if (k->mon >= 0) {
		out->has_cong_mask = true;
		out->cong_mask = monitor_read(k);
	}
	r = top_kinfo_snapshot(kernel_gso, k, &k->buf, out, &failed);
	if (r == 0) {
		r = top_kinfo_local_map(out, k->have_local ? &k->local : NULL);
		if (r == 0)
			r = top_kinfo_news(&k->nw, k->have_local ? &k->local : NULL, out);
		if (r < 0) {
			snprintf(err, errlen, "out of memory");
			return r;
		}
		k->local = *out->local_cong;
		k->have_local = true;
		/* RDMA netlink only where RDS has IB connections: rds_rdma then
		 * holds ib_core loaded, and a NETLINK_RDMA socket on a host
		 * without it would have the kernel load it (netlink_create) */
		if (out->n_ibs && top_rnl_read(out, k->rdma_why, sizeof(k->rdma_why)) < 0)
			out->rdma_error = k->rdma_why;
		return 0;
	}
	if (r < 0) {
		const char *name = wire_info_opt_name(failed);

		if (r == -EPROTO)
			snprintf(err, errlen, "%s: the kernel's items do not have the "
				 "layout of <linux/rds.h>", name ? name : "RDS_INFO");
		else if (r == -E2BIG)
			snprintf(err, errlen, "%s: more than %u bytes", name ? name : "RDS_INFO",
				 TOP_KINFO_MAX);
		else
			snprintf(err, errlen, "%s: %s", name ? name : "RDS_INFO", strerror(-r));
	}
	return r;
}

static void kernel_close(void *state)
{
	struct ksource *k = state;

	if (!k)
		return;
	close(k->fd);
	if (k->mon >= 0)
		close(k->mon);
	top_kinfo_buf_fini(&k->buf);
	free(k);
}

const struct top_source top_source_kernel = {
	.name = "kernel",
	.open = kernel_open,
	.snapshot = kernel_snapshot,
	.close = kernel_close,
};
