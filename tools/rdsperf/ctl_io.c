// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ctl_io.c - rdsperf's control connection: lines sent and received on TCP.
 */
#define _GNU_SOURCE
#include "rdsperf.h"

#include <argp.h>
#include <errno.h>
#include <json-c/json.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "parse.h"

/* ------------------------------------------------------------------------
 * Control connection: whole lines with a time limit, never more than
 * CTL_MAX_LINE bytes buffered.
 */

/* Send |line| (taken: freed here) on |fd|. Return: 0; negative errno. */
int ctl_send_fd(int fd, char *line)
{
	size_t len, off = 0;

	if (!line)
		return -ENOMEM;
	len = strlen(line);
	while (off < len) {
		ssize_t k = send(fd, line + off, len - off, MSG_NOSIGNAL);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int e = -errno;

			free(line);
			return e;
		}
		off += (size_t)k;
	}
	free(line);
	return 0;
}

int ctl_send(struct ctl *c, char *line)
{
	return ctl_send_fd(c->fd, line);
}

/* The next line into |out| (NUL-terminated, no newline), whole within
 * |timeout_ms| (-1: no limit), however it trickles in. Return: 0;
 * -ETIMEDOUT; -ECONNRESET at EOF; -EMSGSIZE for an overlong line. */
int ctl_recv(struct ctl *c, char *out, int timeout_ms)
{
	rdsu_ns end = rdsu_clock() + (rdsu_ns)(timeout_ms < 0 ? 0 : timeout_ms) * RDSU_MSEC;

	for (;;) {
		char *nl = memchr(c->buf, '\n', c->n);
		struct pollfd pf = { .fd = c->fd, .events = POLLIN };
		rdsu_ns now;
		ssize_t k;
		int r, wait = -1;

		if (nl) {
			size_t len = (size_t)(nl - c->buf);

			memcpy(out, c->buf, len);
			out[len] = 0;
			memmove(c->buf, nl + 1, c->n - len - 1);
			c->n -= len + 1;
			return 0;
		}
		if (c->n >= CTL_MAX_LINE)
			return -EMSGSIZE;
		if (timeout_ms >= 0) {
			now = rdsu_clock();
			if (now >= end)
				return -ETIMEDOUT;
			wait = (int)((end - now + RDSU_MSEC - 1) / RDSU_MSEC);
		}
		r = poll(&pf, 1, wait);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			return -ETIMEDOUT;
		k = recv(c->fd, c->buf + c->n, CTL_MAX_LINE - c->n, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -ECONNRESET;
		c->n += (size_t)k;
	}
}

int ctl_connect(const struct rdsu_addr *a, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t len = rdsu_sockaddr(a, port, &ss);
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&ss, len) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}
