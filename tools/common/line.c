// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * line.c - line-per-message TCP control connections (line.h).
 */
#define _GNU_SOURCE
#include "line.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rds/rdsu_io.h>

void line_in_init(struct line_in *c, int fd, char *buf, size_t cap)
{
	c->fd = fd;
	c->buf = buf;
	c->cap = cap;
	c->n = 0;
	c->taken = 0;
}

void line_discard(struct line_in *c)
{
	c->n = 0;
	c->taken = 0;
}

int line_recv(struct line_in *c, int timeout_ms, char **line, size_t *len)
{
	rdsu_ns end = rdsu_clock() + (rdsu_ns)(timeout_ms < 0 ? 0 : timeout_ms) * RDSU_MSEC;

	if (c->taken) {
		memmove(c->buf, c->buf + c->taken, c->n - c->taken);
		c->n -= c->taken;
		c->taken = 0;
	}
	for (;;) {
		char *nl = memchr(c->buf, '\n', c->n);
		struct pollfd pf = { .fd = c->fd, .events = POLLIN };
		int r, wait = -1;
		ssize_t k;

		if (nl) {
			*nl = '\0';
			*line = c->buf;
			*len = (size_t)(nl - c->buf);
			c->taken = *len + 1;
			return 0;
		}
		if (c->n >= c->cap)
			return -EMSGSIZE;
		if (timeout_ms >= 0) {
			rdsu_ns now = rdsu_clock();

			wait = now >= end ? 0 : (int)((end - now + RDSU_MSEC - 1) / RDSU_MSEC);
		}
		r = poll(&pf, 1, wait);
		if (r == 0)
			return -ETIMEDOUT;
		k = r < 0 ? -1 : recv(c->fd, c->buf + c->n, c->cap - c->n, 0);
		if (k == 0)
			return -ECONNRESET;
		if (k > 0)
			c->n += (size_t)k;
		else if (errno != EINTR)
			return -errno;
	}
}

int line_send(int fd, const char *s)
{
	size_t len = strlen(s), off = 0;

	while (off < len) {
		ssize_t k = send(fd, s + off, len - off, MSG_NOSIGNAL);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		off += (size_t)k;
	}
	return 0;
}

int line_connect(const struct rdsu_addr *a, uint16_t port, int timeout_ms)
{
	struct sockaddr_storage ss;
	socklen_t len = rdsu_sockaddr(a, port, &ss), el = sizeof(int);
	int fd = socket(ss.ss_family,
			SOCK_STREAM | SOCK_CLOEXEC | (timeout_ms >= 0 ? SOCK_NONBLOCK : 0), 0);
	int one = 1, err = 0;

	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&ss, len) < 0) {
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		int r;

		if (errno != EINPROGRESS) {
			err = -errno;
			goto fail;
		}
		r = poll(&p, 1, timeout_ms);
		if (r <= 0) {
			err = r == 0 ? -ETIMEDOUT : -errno;
			goto fail;
		}
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0 || err) {
			err = err ? -err : -EIO;
			goto fail;
		}
	}
	if (timeout_ms >= 0 && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		err = -errno;
		goto fail;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
fail:
	close(fd);
	return err;
}

int line_listen(const struct rdsu_addr *a, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t len = rdsu_sockaddr(a, port, &ss);
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 4) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}
