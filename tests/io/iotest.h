// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * iotest.h - what the transport tests on loopback (tests/io) each need to
 * name their endpoints: an address from its text, an endpoint
 * configuration on one address, and the loop's configurations. Include
 * after cmocka.h.
 */
#ifndef RDS_TEST_IOTEST_H
#define RDS_TEST_IOTEST_H

#include <arpa/inet.h>
#include <netinet/in.h>

#include <rds/rdsu.h>
#include <rds/rdsu_io.h>
#include <rds/rdsu_tcp.h>

/* addr() - the IPv4 address |s| ("127.0.0.1") as librds takes it. */
static inline struct rdsu_addr addr(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return rdsu_addr_v4(ntohl(a.s_addr));
}

/* ep_cfg_at() - the default endpoint configuration, on address |a| alone. */
static inline void ep_cfg_at(struct rdsu_ep_cfg *c, const char *a)
{
	rdsu_ep_cfg_default(c);
	c->laddrs[0] = addr(a);
	c->n_laddrs = 1;
}

/* What rdsu_io_new() takes, each at its defaults: the endpoint on one
 * address, the loop's configuration, and a TCP configuration that does
 * not listen (no test here needs a peer) for the loop's to point at. */
struct io_cfgs {
	struct rdsu_ep_cfg ep;
	struct rdsu_io_cfg io;
	struct rdsu_tcp_cfg tcp;
};

static inline void io_cfgs_at(struct io_cfgs *c, const char *a)
{
	ep_cfg_at(&c->ep, a);
	rdsu_io_cfg_default(&c->io);
	rdsu_tcp_cfg_default(&c->tcp);
	c->tcp.no_listen = true;
}

#endif
