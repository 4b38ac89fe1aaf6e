// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * addr.c - RDS addresses in their 16-byte form. Ref: net/rds/threads.c
 * rds_addr_cmp() (the order that decides who connects), net/rds/bind.c
 * (IPv4 kept as v4-mapped IPv6).
 */
#include "core.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

static const uint8_t v4_prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

struct rdsu_addr rdsu_addr_v4(uint32_t host_order)
{
	struct rdsu_addr a;

	memcpy(a.a, v4_prefix, sizeof(v4_prefix));
	a.a[12] = (uint8_t)(host_order >> 24);
	a.a[13] = (uint8_t)(host_order >> 16);
	a.a[14] = (uint8_t)(host_order >> 8);
	a.a[15] = (uint8_t)host_order;
	return a;
}

bool rdsu_addr_is_v4(const struct rdsu_addr *a)
{
	return memcmp(a->a, v4_prefix, sizeof(v4_prefix)) == 0;
}

uint32_t rdsu_addr_get_v4(const struct rdsu_addr *a)
{
	if (!rdsu_addr_is_v4(a))
		return 0;
	return (uint32_t)a->a[12] << 24 | (uint32_t)a->a[13] << 16 | (uint32_t)a->a[14] << 8 |
	       a->a[15];
}

int rdsu_addr_cmp(const struct rdsu_addr *x, const struct rdsu_addr *y)
{
	return memcmp(x->a, y->a, sizeof(x->a));
}

/* :: and 0.0.0.0 (INADDR_ANY, which rds_bind refuses). */
bool rdsu_addr_is_any(const struct rdsu_addr *a)
{
	static const uint8_t zero[16];

	if (rdsu_addr_is_v4(a))
		return rdsu_addr_get_v4(a) == 0;
	return memcmp(a->a, zero, sizeof(zero)) == 0;
}

/* 127.0.0.0/8 and ::1: the addresses rds_trans_get_preferred gives the
 * loopback transport whatever else is configured (net/rds/transport.c). */
bool rdsu_addr_is_loopback(const struct rdsu_addr *a)
{
	static const uint8_t one[16] = { [15] = 1 };

	if (rdsu_addr_is_v4(a))
		return a->a[12] == 127;
	return memcmp(a->a, one, sizeof(one)) == 0;
}

const char *rdsu_addr_str(const struct rdsu_addr *a, char *buf, size_t cap)
{
	char tmp[INET6_ADDRSTRLEN];

	if (!cap)
		return buf;
	if (rdsu_addr_is_v4(a)) {
		snprintf(buf, cap, "%u.%u.%u.%u", a->a[12], a->a[13], a->a[14], a->a[15]);
		return buf;
	}
	/* RFC 5952's form, as ip, ping and ss print it, so an address can be
	 * pasted from one tool's output into another's search. inet_ntop is
	 * pure: no I/O, no locale. */
	if (!inet_ntop(AF_INET6, a->a, tmp, sizeof(tmp)))
		tmp[0] = '\0';
	snprintf(buf, cap, "%s", tmp);
	return buf;
}
