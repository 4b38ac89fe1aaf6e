// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rnl.c - the kernel source's RDMA netlink reads: a NETLINK_RDMA socket
 * through libnl-3's core (RDMA netlink is not generic netlink), the dumps
 * RES_GET (every device and its resource counts), then for each device
 * PORT_GET, RES_QP_GET and RES_CM_ID_GET (these want the device's index:
 * drivers/infiniband/core/nldev.c res_get_common_dumpit,
 * nldev_port_get_dumpit). Each datagram goes to ibres.c, which decodes it
 * with libwire and joins the result to the snapshot's IB connections.
 */
#include "rnl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netlink.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include <wire/wire.h>

#include "ibres.h"

#ifndef NETLINK_RDMA
#define NETLINK_RDMA 20
#endif

/* A dump: the request, then datagrams until NLMSG_DONE. Return: 0; -errno. */
static int dump(struct nl_sock *sk, struct top_ibres *r, struct top_snap *s, unsigned cmd,
		uint32_t dev)
{
	uint8_t req[32];
	ssize_t n = wire_nldev_request(req, sizeof(req), cmd, ++r->seq, dev);
	int st = 0;

	if (n < 0)
		return -EINVAL;
	if (nl_sendto(sk, req, (size_t)n) < 0)
		return -EIO;
	while (st == 0) {
		struct sockaddr_nl from;
		unsigned char *data = NULL;
		int got = nl_recv(sk, &from, &data, NULL);

		if (got <= 0) {
			free(data);
			return got == 0 ? -EPROTO : -EIO;
		}
		st = top_ibres_take(r, s, data, (size_t)got);
		free(data);
	}
	return st < 0 ? st : 0;
}

int top_rnl_read(struct top_snap *s, char *why, size_t whylen)
{
	struct nl_sock *sk = nl_socket_alloc();
	struct top_ibres r;
	int e;

	if (!sk) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	top_ibres_init(&r);
	/* a whole datagram each read, however large (MSG_PEEK first) */
	nl_socket_enable_msg_peek(sk);
	nl_socket_disable_auto_ack(sk);
	e = nl_connect(sk, NETLINK_RDMA);
	if (e < 0) {
		snprintf(why, whylen, "NETLINK_RDMA: %s (ib_core not loaded?)", nl_geterror(e));
		e = -EPROTONOSUPPORT;
		goto out;
	}
	e = dump(sk, &r, s, WIRE_NLDEV_CMD_RES_GET, UINT32_MAX);
	for (size_t i = 0; e == 0 && i < s->n_ibdevs; i++) {
		uint32_t dev = s->ibdevs[i].index;

		e = dump(sk, &r, s, WIRE_NLDEV_CMD_PORT_GET, dev);
		if (e == 0)
			e = dump(sk, &r, s, WIRE_NLDEV_CMD_RES_QP_GET, dev);
		if (e == 0)
			e = dump(sk, &r, s, WIRE_NLDEV_CMD_RES_CM_ID_GET, dev);
	}
	if (e == 0)
		top_ibres_join(&r, s);
	else
		snprintf(why, whylen, "RDMA netlink dump: %s",
			 e == -EPROTO ? "an answer libwire refuses" : strerror(-e));
out:
	top_ibres_fini(&r);
	nl_socket_free(sk);
	return e;
}
