// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rdstools ADDR_A ADDR_B PORT - the calls Oracle's rds-tools make, in
 * the ways they make them (docs/shim.md, "rds-tools"), checked through
 * the shim:
 *   ping   rds-ping: eight sockets bound to port 0, zero-length sendto
 *          to port 0, poll for POLLIN, zero-length recvfrom MSG_DONTWAIT
 *          naming the answering address;
 *   info   rds-info: an unbound socket, every RDS_INFO_* list read with
 *          the NULL/0 probe and an ENOSPC, realloc and retry loop;
 *   stress rds-stress: tasks forked per side, each socket SO_REUSEADDR,
 *          bound, SO_SNDBUF/SO_RCVBUF set and read back, RDS_CONG_MONITOR,
 *          O_NONBLOCK, the RDS_FREE_MR probe; requests and acks to every
 *          task of the other side with sendmsg (msg_name), poll for
 *          POLLIN|POLLOUT, recvmsg MSG_DONTWAIT with a control buffer,
 *          sequence checked per peer.
 * Both sides' tasks share one address each: with the kernel or rdsd.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/rds.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "afcheck.h"

#define NTASKS 2
#define DEPTH 4
#define NREQ 300
#define REQ_SIZE 1024
#define ACK_SIZE 64

static int bound(const char *addr, uint16_t port)
{
	struct sockaddr_in sin = sin_of(addr, port);
	int fd = socket(AF_RDS, SOCK_SEQPACKET, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
		perror("rdstools: socket/bind");
		exit(1);
	}
	return fd;
}

/* ---- rds-ping ---- */

static void ping(const char *a, const char *b)
{
	struct sockaddr_in dst = sin_of(b, 0);
	struct pollfd pfd[8];
	unsigned long tos = 1;       /* -Q 1: rds-ping passes an unsigned long */
	int got = 0;

	for (int i = 0; i < 8; i++) {
		pfd[i].fd = bound(a, 0);
		pfd[i].events = POLLIN;
		CHECK(ioctl(pfd[i].fd, SIOCRDSSETTOS, &tos) == 0, "ping %d: SIOCRDSSETTOS", i);
	}
	for (int i = 0; i < 8; i++)
		CHECK(sendto(pfd[i].fd, NULL, 0, 0, (struct sockaddr *)&dst, sizeof(dst)) == 0,
		      "ping %d: zero-length sendto to port 0", i);
	while (got < 8) {
		int n = poll(pfd, 8, 10000);

		CHECK(n > 0, "ping: poll for the pongs");
		if (n <= 0)
			break;
		for (int i = 0; i < 8; i++) {
			struct sockaddr_in from;
			socklen_t alen = sizeof(from);
			ssize_t r;

			if (!(pfd[i].revents & POLLIN))
				continue;
			r = recvfrom(pfd[i].fd, NULL, 0, MSG_DONTWAIT, (struct sockaddr *)&from, &alen);
			CHECK(r == 0, "ping %d: zero-length pong: %zd", i, r);
			CHECK(alen == sizeof(from) && from.sin_addr.s_addr == dst.sin_addr.s_addr &&
			      from.sin_port == 0, "ping %d: pong from %s:0", i, b);
			pfd[i].events = 0;
			got++;
		}
	}
	for (int i = 0; i < 8; i++)
		close(pfd[i].fd);
	printf("ping: 8 of 8 answered\n");
}

/* rds-ping with IPv6 addresses: bind(::1, 0), a ping to [::1]:0 */
static void ping6(void)
{
	struct sockaddr_in6 src = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	struct sockaddr_in6 dst = src, from;
	socklen_t alen = sizeof(from);
	struct pollfd p = { .events = POLLIN };

	p.fd = socket(AF_RDS, SOCK_SEQPACKET, 0);
	CHECK(p.fd >= 0 && bind(p.fd, (struct sockaddr *)&src, sizeof(src)) == 0, "ping6: bind ::1");
	CHECK(sendto(p.fd, NULL, 0, 0, (struct sockaddr *)&dst, sizeof(dst)) == 0, "ping6: sendto");
	CHECK(poll(&p, 1, 10000) == 1, "ping6: poll");
	CHECK(recvfrom(p.fd, NULL, 0, MSG_DONTWAIT, (struct sockaddr *)&from, &alen) == 0 &&
	      alen == sizeof(from) && from.sin6_family == AF_INET6 &&
	      !memcmp(&from.sin6_addr, &dst.sin6_addr, 16), "ping6: pong from [::1]:0");
	close(p.fd);
	printf("ping6: answered\n");
}

/* ---- rds-info ---- */

static void info(uint16_t our_port, const char *a)
{
	static const struct { int opt; int size; bool ok; } lists[] = {
		{ RDS_INFO_COUNTERS, 40, true }, { RDS_INFO_SOCKETS, 28, true },
		{ RDS_INFO_CONNECTIONS, 42, true }, { RDS_INFO_RECV_MESSAGES, 26, true },
		{ RDS_INFO_SEND_MESSAGES, 26, true }, { RDS_INFO_RETRANS_MESSAGES, 26, true },
		{ RDS_INFO_TCP_SOCKETS, 41, true }, { RDS_INFO_IB_CONNECTIONS, 68, false },
		{ RDS6_INFO_CONNECTIONS, 65, true }, { RDS6_INFO_SOCKETS, 52, true },
		{ RDS6_INFO_TCP_SOCKETS, 64, true },
	};
	int fd = socket(AF_RDS, SOCK_SEQPACKET, 0);
	int keep = bound(a, our_port);

	CHECK(fd >= 0, "info: socket");
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		socklen_t len = 0;
		void *data = NULL;
		int each, tries = 0;

		while ((each = getsockopt(fd, SOL_RDS, lists[i].opt, data, &len)) < 0) {
			if (errno != ENOSPC || ++tries > 4)
				break;
			data = realloc(data, len);
		}
		if (!lists[i].ok) {
			/* as a kernel without rds_rdma, or one with it: a shim
			 * built with librds's IB transport answers the list */
			CHECK((each < 0 && errno == ENOPROTOOPT) || each == lists[i].size,
			      "info %d: ENOPROTOOPT without IB, the item size with it", lists[i].opt);
			free(data);
			continue;
		}
		CHECK(each == lists[i].size, "info %d: item size %d", lists[i].opt, each);
		CHECK(each > 0 && len % (socklen_t)each == 0, "info %d: whole items (%u)",
		      lists[i].opt, (unsigned)len);
		if (lists[i].opt == RDS_INFO_COUNTERS) {
			struct rds_info_counter c;

			CHECK(len >= sizeof(c), "info: counters listed");
			if (len >= sizeof(c)) {
				memcpy(&c, data, sizeof(c));
				CHECK(c.name[0] != 0, "info: a counter's name");
			}
		}
		if (lists[i].opt == RDS_INFO_SOCKETS && each == 28) {
			bool found = false;

			for (socklen_t off = 0; off + 28 <= len; off += 28) {
				struct rds_info_socket k;

				memcpy(&k, (char *)data + off, sizeof(k));
				found |= ntohs(k.bound_port) == our_port;
			}
			CHECK(found, "info: our socket on port %u listed", our_port);
		}
		free(data);
	}
	{
		/* the size probe: a buffer too small answers ENOSPC and the length */
		char small[8];
		socklen_t len = sizeof(small);

		CHECK(getsockopt(fd, SOL_RDS, RDS_INFO_COUNTERS, small, &len) < 0 &&
		      errno == ENOSPC && len > sizeof(small) && len % 40 == 0,
		      "info: ENOSPC with the length needed (%u)", (unsigned)len);
	}
	close(fd);
	close(keep);
	printf("info: every list read\n");
}

/* ---- rds-stress ---- */

struct hdr {
	uint32_t seq;
	uint32_t from_addr, to_addr;
	uint16_t from_port, to_port;
	uint16_t index;
	uint8_t op;              /* 1 request, 2 ack */
} __attribute__((packed));

/* rds-stress starts its tasks together once every one is bound (a
 * message to a port nobody has bound yet is dropped, as the kernel's) */
static int g_ready[2], g_go[2];

static int stress_task(const char *me, const char *peer, uint16_t port, int id)
{
	struct sockaddr_in sin = sin_of(me, (uint16_t)(port + 1 + id));
	struct sockaddr_in dst[NTASKS];
	uint32_t send_seq[NTASKS] = { 0 }, recv_seq[NTASKS] = { 0 };
	unsigned pending[NTASKS] = { 0 }, unacked[NTASKS] = { 0 }, sent[NTASKS] = { 0 };
	unsigned acked[NTASKS] = { 0 }, reqs[NTASKS] = { 0 };
	int bytes = NTASKS * DEPTH * (REQ_SIZE + ACK_SIZE) * 2, val, one = 1, fd;
	struct rds_free_mr_args fm;
	socklen_t optlen = sizeof(val);
	struct pollfd pfd;

	fd = socket(AF_RDS, SOCK_SEQPACKET, 0);
	CHECK(fd >= 0, "stress: socket");
	CHECK(setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == 0, "SO_REUSEADDR");
	CHECK(bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0, "stress: bind %s:%u", me,
	      port + 1 + id);
	CHECK(setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof(bytes)) == 0, "SO_SNDBUF");
	CHECK(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes)) == 0, "SO_RCVBUF");
	CHECK(getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &val, &optlen) == 0 && val / 2 >= bytes,
	      "SO_SNDBUF read back: %d", val);
	optlen = sizeof(val);
	CHECK(getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &val, &optlen) == 0 && val / 2 >= bytes,
	      "SO_RCVBUF read back: %d", val);
	CHECK(setsockopt(fd, SOL_RDS, RDS_CONG_MONITOR, &one, sizeof(one)) == 0,
	      "RDS_CONG_MONITOR");
	CHECK(fcntl(fd, F_SETFL, O_NONBLOCK) == 0, "O_NONBLOCK");
	{
		struct sockaddr_in got;
		socklen_t l = sizeof(got);

		CHECK(getsockname(fd, (struct sockaddr *)&got, &l) == 0 &&
		      got.sin_addr.s_addr == sin.sin_addr.s_addr && got.sin_port == sin.sin_port,
		      "getsockname");
	}
	/* check_rdma_support's probe: TCP has no MRs to flush */
	memset(&fm, 0, sizeof(fm));
	CHECK(setsockopt(fd, SOL_RDS, RDS_FREE_MR, &fm, sizeof(fm)) < 0 && errno == EINVAL,
	      "RDS_FREE_MR probe: EINVAL on TCP");
	for (int i = 0; i < NTASKS; i++)
		dst[i] = sin_of(peer, (uint16_t)(port + 1 + i));
	{
		char c = 'r';

		close(g_go[1]);
		CHECK(write(g_ready[1], &c, 1) == 1, "stress: ready");
		(void)read(g_go[0], &c, 1);   /* EOF: all are bound */
	}
	pfd.fd = fd;
	pfd.events = POLLIN | POLLOUT;
	for (int spins = 0; spins < 2000000; spins++) {
		bool done = true;
		int can_send;

		for (int i = 0; i < NTASKS; i++)
			done &= acked[i] == NREQ && reqs[i] == NREQ && unacked[i] == 0;
		if (done)
			break;
		/* POLLOUT asked for while there is something to send */
		for (int i = 0; i < NTASKS; i++)
			if (unacked[i] || (pending[i] < DEPTH && sent[i] < NREQ))
				pfd.events |= POLLOUT;
		if (poll(&pfd, 1, 30000) <= 0) {
			CHECK(0, "stress task %s/%d: stalled", me, id);
			break;
		}
		pfd.events = POLLIN;
		if (pfd.revents & POLLIN) {
			for (;;) {
				char buf[REQ_SIZE], cbuf[256];
				struct sockaddr_in from;
				struct iovec iov = { buf, sizeof(buf) };
				struct msghdr mh = { .msg_name = &from, .msg_namelen = sizeof(from),
						     .msg_iov = &iov, .msg_iovlen = 1,
						     .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
				struct hdr h;
				ssize_t r = recvmsg(fd, &mh, MSG_DONTWAIT);
				int t;

				if (r < 0)
					break;
				if (r == 0)
					continue;   /* a congestion update */
				CHECK(mh.msg_namelen >= sizeof(from), "stress: sender's address");
				memcpy(&h, buf, sizeof(h));
				t = ntohs(from.sin_port) - port - 1;
				if (t < 0 || t >= NTASKS) {
					CHECK(0, "stress: message from port %u", ntohs(from.sin_port));
					return 1;
				}
				CHECK(h.from_addr == from.sin_addr.s_addr && h.from_port == from.sin_port &&
				      h.to_port == sin.sin_port, "stress: header addresses");
				CHECK(ntohl(h.seq) == recv_seq[t], "stress: seq %u from task %d, want %u",
				      ntohl(h.seq), t, recv_seq[t]);
				recv_seq[t] = ntohl(h.seq) + 1;
				if (h.op == 1) {
					CHECK(r == REQ_SIZE, "stress: request size %zd", r);
					reqs[t]++;
					unacked[t]++;
				} else {
					CHECK(r == ACK_SIZE, "stress: ack size %zd", r);
					acked[t]++;
					pending[t]--;
				}
			}
		}
		can_send = !!(pfd.revents & POLLOUT);
		for (int i = 0; i < NTASKS; i++) {
			while (can_send && (unacked[i] || (pending[i] < DEPTH && sent[i] < NREQ))) {
				char buf[REQ_SIZE] = { 0 };
				bool ack = unacked[i] > 0;
				struct hdr h = { .seq = htonl(send_seq[i]),
						 .from_addr = sin.sin_addr.s_addr,
						 .to_addr = dst[i].sin_addr.s_addr,
						 .from_port = sin.sin_port, .to_port = dst[i].sin_port,
						 .op = ack ? 2 : 1 };
				struct iovec iov = { buf, ack ? ACK_SIZE : REQ_SIZE };
				struct msghdr mh = { .msg_name = &dst[i], .msg_namelen = sizeof(dst[i]),
						     .msg_iov = &iov, .msg_iovlen = 1 };
				ssize_t r;

				memcpy(buf, &h, sizeof(h));
				r = sendmsg(fd, &mh, 0);
				if (r < 0) {
					CHECK(errno == EAGAIN || errno == ENOBUFS, "stress: sendmsg");
					pfd.events |= POLLOUT;
					break;
				}
				CHECK(r == (ssize_t)iov.iov_len, "stress: sendmsg length %zd", r);
				send_seq[i]++;
				if (ack) {
					unacked[i]--;
				} else {
					pending[i]++;
					sent[i]++;
				}
			}
		}
	}
	close(fd);
	return failed ? 1 : 0;
}

static void stress(const char *a, const char *b, uint16_t port)
{
	pid_t kids[2 * NTASKS];
	int bad = 0;

	fflush(stdout);
	if (pipe(g_ready) < 0 || pipe(g_go) < 0) {
		perror("rdstools: pipe");
		exit(1);
	}
	for (int side = 0; side < 2; side++)
		for (int id = 0; id < NTASKS; id++) {
			pid_t p = fork();

			if (p == 0)
				_exit(stress_task(side ? b : a, side ? a : b, port, id));
			kids[side * NTASKS + id] = p;
		}
	for (int i = 0; i < 2 * NTASKS; i++) {
		char c;

		if (read(g_ready[0], &c, 1) != 1)
			break;
	}
	close(g_go[1]);
	for (int i = 0; i < 2 * NTASKS; i++) {
		int st = 0;

		waitpid(kids[i], &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
	}
	CHECK(bad == 0, "stress: %d of %d tasks failed", bad, 2 * NTASKS);
	if (!bad)
		printf("stress: %d tasks on %s and %s, %d requests each way per pair\n",
		       2 * NTASKS, a, b, NREQ);
}

int main(int argc, char **argv)
{
	uint16_t port;
	int keep;

	if (argc != 4) {
		fprintf(stderr, "usage: rdstools ADDR_A ADDR_B PORT\n");
		return 2;
	}
	port = (uint16_t)atoi(argv[3]);
	/* B answers pings once something is bound there */
	keep = bound(argv[2], (uint16_t)(port + 100));
	ping(argv[1], argv[2]);
	ping6();
	info((uint16_t)(port + 101), argv[1]);
	stress(argv[1], argv[2], port);
	close(keep);
	if (failed) {
		printf("FAILED\n");
		return 1;
	}
	printf("all passed\n");
	return 0;
}
