// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ksource.c - the kernel source's thin half: an AF_RDS socket and the
 * getsockopt calls that kinfo.c's loop drives. Nothing else here.
 */
#include "source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <wire/wire.h>

#include "kinfo.h"

#ifndef AF_RDS
#define AF_RDS 21
#endif
#ifndef SOL_RDS
#define SOL_RDS 276
#endif

struct ksource {
	int fd;
	struct top_kinfo_buf buf;
	struct wire_cong_map local;   /* the last snapshot's local node map */
	bool have_local;
};

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
	r = top_kinfo_snapshot(kernel_gso, k, &k->buf, out, &failed);
	if (r == 0) {
		r = top_kinfo_local_map(out, k->have_local ? &k->local : NULL);
		if (r < 0) {
			snprintf(err, errlen, "out of memory");
			return r;
		}
		k->local = *out->local_cong;
		k->have_local = true;
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
	top_kinfo_buf_fini(&k->buf);
	free(k);
}

const struct top_source top_source_kernel = {
	.name = "kernel",
	.open = kernel_open,
	.snapshot = kernel_snapshot,
	.close = kernel_close,
};
