// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * sockaddr.c - RDS addresses (always the 16-byte form, IPv4 v4-mapped as
 * net/rds/bind.c keeps them) to and from the sockaddr of the family the
 * socket calls want.
 */
#include <rds/rdsu_io.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

socklen_t rdsu_sockaddr(const struct rdsu_addr *a, uint16_t port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (rdsu_addr_is_v4(a)) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		s4->sin_addr.s_addr = htonl(rdsu_addr_get_v4(a));
		return sizeof(*s4);
	}
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

	s6->sin6_family = AF_INET6;
	s6->sin6_port = htons(port);
	memcpy(&s6->sin6_addr, a->a, 16);
	return sizeof(*s6);
}

int rdsu_sockaddr_get(const struct sockaddr_storage *ss, struct rdsu_addr *a, uint16_t *port)
{
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;

		*a = rdsu_addr_v4(ntohl(s4->sin_addr.s_addr));
		if (port)
			*port = ntohs(s4->sin_port);
		return 0;
	}
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

		memcpy(a->a, &s6->sin6_addr, 16);
		if (port)
			*port = ntohs(s6->sin6_port);
		return 0;
	}
	return -EAFNOSUPPORT;
}
