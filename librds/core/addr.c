// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * addr.c - RDS addresses in their 16-byte form. Ref: net/rds/threads.c
 * rds_addr_cmp() (the order that decides who connects), net/rds/bind.c
 * (IPv4 kept as v4-mapped IPv6).
 */
#include "core.h"

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

const char *rdsu_addr_str(const struct rdsu_addr *a, char *buf, size_t cap)
{
	size_t off = 0;

	if (!cap)
		return buf;
	if (rdsu_addr_is_v4(a)) {
		snprintf(buf, cap, "%u.%u.%u.%u", a->a[12], a->a[13], a->a[14], a->a[15]);
		return buf;
	}
	/* Plain groups without zero compression: unambiguous and enough for
	 * logs and monitors. */
	buf[0] = '\0';
	for (int i = 0; i < 8 && off < cap; i++) {
		int n = snprintf(buf + off, cap - off, i ? ":%x" : "%x",
				 (unsigned)a->a[2 * i] << 8 | a->a[2 * i + 1]);

		if (n < 0)
			break;
		off += (size_t)n;
	}
	return buf;
}
