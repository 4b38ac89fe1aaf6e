// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * tcp_auth.c - the optional signing of every RDS/TCP connection with a
 * key shared by a cluster's nodes (rdsu_tcp_cfg.auth): TCP-AO (RFC 5925)
 * or, where the kernel lacks it, TCP-MD5 (RFC 2385). The kernel's RDS has
 * nothing of the kind: anyone who reaches port 16385 from a peer's address
 * can take that peer's paths (docs/security.md). With a key on the
 * listener the kernel drops unsigned SYNs before we see them, and a key on
 * each outgoing socket signs our side.
 *
 * The TCP-AO socket options came with Linux 6.7, after the uapi headers
 * this builds against, so their numbers and the layout of the key request
 * are spelled out here (include/uapi/linux/tcp.h: TCP_AO_ADD_KEY and
 * struct tcp_ao_add, 8-byte aligned).
 */
#define _GNU_SOURCE
#include "tcp.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef TCP_AO_ADD_KEY
#define TCP_AO_ADD_KEY 38
#endif

struct ao_add {
	struct sockaddr_storage addr;   /* the peer: here any, prefix 0 */
	char alg_name[64];
	int32_t ifindex;
	uint32_t flags;                 /* set_current:1, set_rnext:1, reserved:30 */
	uint16_t reserved2;
	uint8_t prefix;
	uint8_t sndid;
	uint8_t rcvid;
	uint8_t maclen;
	uint8_t keyflags;
	uint8_t keylen;
	uint8_t key[RDSU_TCP_AUTH_KEY_MAX];
} __attribute__((aligned(8)));

_Static_assert(sizeof(struct ao_add) == 288, "struct tcp_ao_add is 288 bytes");

/* Every node uses the same key id both ways: one master key per cluster. */
#define AO_KEY_ID 100

int rdsu_tcp_auth_set(const struct rdsu_tcp_cfg *cfg, int fd, int family)
{
	if (cfg->auth == RDSU_TCP_AUTH_AO) {
		struct ao_add a;

		memset(&a, 0, sizeof(a));
		a.addr.ss_family = (sa_family_t)family;
		strcpy(a.alg_name, "hmac(sha1)");
		a.flags = 0x3;          /* set_current, set_rnext */
		a.prefix = 0;
		a.sndid = a.rcvid = AO_KEY_ID;
		a.maclen = 12;          /* HMAC-SHA-1-96, RFC 5926 */
		a.keylen = cfg->auth_key_len;
		memcpy(a.key, cfg->auth_key, cfg->auth_key_len);
		if (setsockopt(fd, IPPROTO_TCP, TCP_AO_ADD_KEY, &a, sizeof(a)) < 0)
			return -errno;
		return 0;
	}
	if (cfg->auth == RDSU_TCP_AUTH_MD5) {
		struct tcp_md5sig m;

		memset(&m, 0, sizeof(m));
		m.tcpm_addr.ss_family = (sa_family_t)family;
		m.tcpm_flags = TCP_MD5SIG_FLAG_PREFIX;
		m.tcpm_prefixlen = 0;
		m.tcpm_keylen = cfg->auth_key_len;
		memcpy(m.tcpm_key, cfg->auth_key, cfg->auth_key_len);
		if (setsockopt(fd, IPPROTO_TCP, TCP_MD5SIG_EXT, &m, sizeof(m)) < 0)
			return -errno;
		return 0;
	}
	return 0;
}

int rdsu_tcp_auth_check(const struct rdsu_tcp_cfg *cfg)
{
	int fd, err;

	if (cfg->auth == RDSU_TCP_AUTH_NONE)
		return 0;
	if ((cfg->auth != RDSU_TCP_AUTH_AO && cfg->auth != RDSU_TCP_AUTH_MD5) ||
	    cfg->auth_key_len == 0 || cfg->auth_key_len > RDSU_TCP_AUTH_KEY_MAX)
		return RDSU_ERR_INVAL;
	/* Refuse now, not connection by connection, when the kernel cannot
	 * sign: an endpoint that silently ran unsigned would be worse. */
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	err = rdsu_tcp_auth_set(cfg, fd, AF_INET);
	close(fd);
	return err;
}
