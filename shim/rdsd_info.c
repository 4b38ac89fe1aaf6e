// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rdsd_info.c - RDS_INFO_* (net/rds/info.c rds_info_getsockopt) over
 * rdsd's endpoints and sockets; the lists themselves are rdsinfo.c's,
 * shared with the per-process library. The map of the shim is
 * shim/README.md.
 */
#include "rdsd.h"
#include "rdsinfo.h"

static const struct rdsu_ep *src_ep(void *ctx, size_t n)
{
	struct ep *e = g_eps;

	(void)ctx;
	while (e && n--)
		e = e->next;
	return e ? rdsu_io_ep(e->io) : NULL;
}

static int src_sock(void *ctx, size_t n, struct rdsinfo_sock *out)
{
	struct dsock *s = g_socks;

	(void)ctx;
	/* g_socks is newest first, the kernel's rds_sock_list oldest first */
	if (n >= g_nsocks)
		return 0;
	for (n = g_nsocks - 1 - n; s && n--;)
		s = s->next;
	if (!s)
		return 0;
	*out = s->id;
	return 1;
}

/* rds_info_getsockopt over our state. Return: as getsockopt's value. */
int do_info(unsigned opt, size_t buflen, uint8_t *buf, size_t cap, size_t *optlen)
{
	const struct rdsinfo_src src = {
		.ep = src_ep,
		.sock = src_sock,
#ifdef RDSEP_HAVE_IB
		.ib = true,
#endif
	};
	size_t copy;

	return rdsinfo_get(&src, opt, buflen, buf, cap, optlen, &copy);
}
