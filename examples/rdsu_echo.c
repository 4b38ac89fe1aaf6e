// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rdsu_echo - the smallest useful librds program: an RDS echo server and
 * client over TCP, with the application's own poll() loop around
 * rdsu_tcp_fd() ("bring your own loop").
 *
 *   rdsu_echo server ADDR PORT            echo every message back
 *   rdsu_echo client ADDR PEER PORT N     send N messages, await N echoes
 *
 * Interoperates with the kernel's RDS: the server answers an AF_RDS client
 * (and rds-ping, since every RDS stack answers pings itself).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rds/rdsu_tcp.h>

static struct rdsu_addr addr_of(const char *s)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1) {
		fprintf(stderr, "rdsu_echo: %s is not an IPv4 address\n", s);
		exit(2);
	}
	return rdsu_addr_v4(ntohl(a.s_addr));
}

/* Sleep in poll() until librds has something to do, then let it run. */
static int step(struct rdsu_tcp *t, int timeout_ms)
{
	struct pollfd pfd = { .fd = rdsu_tcp_fd(t), .events = POLLIN };

	if (poll(&pfd, 1, timeout_ms) < 0 && errno != EINTR)
		return -errno;
	return rdsu_tcp_run(t, 0);
}

int main(int argc, char **argv)
{
	bool server = argc == 4 && !strcmp(argv[1], "server");
	bool client = argc == 6 && !strcmp(argv[1], "client");
	struct rdsu_ep_cfg cfg;
	struct rdsu_tcp *t;
	struct rdsu_sock *s;
	struct rdsu_addr me, peer = { { 0 } };
	uint16_t port;
	long want = 0, sent = 0, echoed = 0;
	static uint8_t buf[1 << 20];
	int e;

	if (!server && !client) {
		fprintf(stderr, "usage: rdsu_echo server ADDR PORT\n"
				"       rdsu_echo client ADDR PEER PORT N\n");
		return 2;
	}
	me = addr_of(argv[2]);
	port = (uint16_t)atoi(argv[server ? 3 : 4]);
	if (client) {
		peer = addr_of(argv[3]);
		want = atol(argv[5]);
	}
	rdsu_ep_cfg_default(&cfg);
	cfg.laddrs[0] = me;
	cfg.n_laddrs = 1;        /* gen_num and seed 0: drawn at random */
	e = rdsu_tcp_new(&t, &cfg, NULL);
	if (e < 0) {
		fprintf(stderr, "rdsu_echo: %s\n", rdsu_strerror(e));
		return 1;
	}
	/* A client binds an ephemeral port; the server the one it serves. */
	if ((e = rdsu_sock_new(rdsu_tcp_ep(t), &s)) < 0 ||
	    (e = rdsu_sock_bind(s, &me, server ? port : 0)) < 0) {
		fprintf(stderr, "rdsu_echo: bind: %s\n", rdsu_strerror(e));
		rdsu_tcp_free(t);
		return 1;
	}
	if (server)
		printf("rdsu_echo: serving on %s:%u\n", argv[2], port);
	fflush(stdout);
	while (server || echoed < want) {
		struct iovec iov = { buf, sizeof(buf) };
		struct rdsu_rxinfo info;
		ssize_t n;

		if (client && sent < want) {
			char msg[64];
			struct iovec out = { msg, 0 };

			out.iov_len = (size_t)snprintf(msg, sizeof(msg), "hello %ld", sent);
			e = rdsu_sock_submit(s, &peer, port, &out, 1, rdsu_clock());
			if (e >= 0)
				sent++;
			else if (e != -EAGAIN && e != -ENOBUFS)
				break;
			/* Queued: the transport writes it on its next run. */
			(void)rdsu_tcp_run(t, 0);
		}
		while ((n = rdsu_sock_read(s, &iov, 1, 0, &info, rdsu_clock())) >= 0) {
			if (info.cong)
				continue;
			if (server) {
				struct iovec back = { buf, (size_t)n };

				/* Echo to the sender's port; a congested one gets
				 * -ENOBUFS and this echo is dropped. */
				(void)rdsu_sock_submit(s, &info.from, info.sport, &back, 1,
						       rdsu_clock());
			} else if (info.sport == port) {
				echoed++;
			}
		}
		if (step(t, client && sent < want ? 0 : 1000) < 0)
			break;
	}
	if (client)
		printf("rdsu_echo: %ld sent, %ld echoed\n", sent, echoed);
	rdsu_sock_free(s, rdsu_clock());
	rdsu_tcp_free(t);
	return client && echoed == want ? 0 : (client ? 1 : 0);
}
