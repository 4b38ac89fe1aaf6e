// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * iotest.h - what the transport tests on loopback (tests/io) each need to
 * name their endpoints: an address from its text and an endpoint
 * configuration on one address. Include after cmocka.h.
 */
#ifndef RDS_TEST_IOTEST_H
#define RDS_TEST_IOTEST_H

#include <arpa/inet.h>
#include <netinet/in.h>

#include <rds/rdsu.h>

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

#endif
