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
 *
 * The server serves many clients from one socket, so one client that
 * never reads its echoes must not take the socket's send budget from the
 * others (see shed_hog); the client gives up when nothing comes back.
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

/* With the kernel's semantics a destination that stops reading keeps its
 * echoes unacknowledged, and they hold the socket's SNDBUF until the
 * connection drops; as the larger address the server never reconnects, so
 * nothing would free it and every later echo, to anyone, would fail with
 * EAGAIN. When the budget is full, the destination holding more than half
 * of it is taken for one that is not reading and its echoes are cancelled
 * (RDS_CANCEL_SENT_TO), as a kernel RDS server would do with
 * setsockopt(RDS_CANCEL_SENT_TO). A reading client never holds that much:
 * its echoes are acknowledged as fast as they leave.
 * Return: the number of echoes cancelled (0: no single destination is to
 * blame, the budget is shared). */
static int shed_hog(struct rdsu_tcp *t, struct rdsu_sock *s, const struct rdsu_addr *me,
		    uint16_t port)
{
	struct rdsu_ep *ep = rdsu_tcp_ep(t);
	struct rdsu_msg_iter it = { 0 };
	struct rdsu_msg_info m;
	struct {
		struct rdsu_addr addr;
		uint16_t port;
		uint64_t bytes;
	} dst[16];
	size_t n = 0, worst = 0;

	/* Bounded table: destinations beyond it are not counted, which can
	 * only make the server shed less, never the wrong peer. */
	while (rdsu_ep_msg_next(ep, &it, &m) == 1) {
		size_t i;

		if (m.queue == RDSU_MSGQ_RECV || m.sport != port ||
		    rdsu_addr_cmp(&m.laddr, me) != 0)
			continue;
		for (i = 0; i < n; i++)
			if (dst[i].port == m.dport && !rdsu_addr_cmp(&dst[i].addr, &m.faddr))
				break;
		if (i == n) {
			if (n == sizeof(dst) / sizeof(dst[0]))
				continue;
			dst[n].addr = m.faddr;
			dst[n].port = m.dport;
			dst[n].bytes = 0;
			n++;
		}
		dst[i].bytes += m.len;
		if (dst[i].bytes > dst[worst].bytes)
			worst = i;
	}
	if (n == 0 || dst[worst].bytes * 2 <= rdsu_sock_get_sndbuf(s))
		return 0;
	return rdsu_sock_cancel_sent_to(s, &dst[worst].addr, dst[worst].port, rdsu_clock());
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
	/* The client gives up after this long without an echo. */
	const rdsu_ns quiet_max = 5000000000ull;
	rdsu_ns last_echo = rdsu_clock();
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
	/* Let rdstop --librds watch (it costs nothing while nobody does); a
	 * monitor socket that cannot be made is no reason to stop. */
	(void)rdsu_io_monitor(rdsu_tcp_io(t), NULL);
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
				e = rdsu_sock_submit(s, &info.from, info.sport, &back, 1,
						     rdsu_clock());
				if (e == -EAGAIN && shed_hog(t, s, &me, port) > 0)
					(void)rdsu_sock_submit(s, &info.from, info.sport, &back,
							       1, rdsu_clock());
			} else if (info.sport == port) {
				echoed++;
				last_echo = rdsu_clock();
			}
		}
		if (client && rdsu_clock() - last_echo > quiet_max) {
			fprintf(stderr, "rdsu_echo: no echo from %s port %u for %llu s: "
				"is an echo server running there?\n", argv[3], port,
				(unsigned long long)(quiet_max / 1000000000u));
			break;
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
