// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ctl_io.c - rdsperf's control connection: lines sent and received on TCP.
 */
#define _GNU_SOURCE
#include "rdsperf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------
 * Control connection: line.h's lines, never more than CTL_MAX_LINE bytes
 * buffered.
 */

void ctl_init(struct ctl *c, int fd)
{
	line_in_init(&c->in, fd, c->buf, sizeof(c->buf));
}

/* Send |line| (taken: freed here) on |fd|. Return: 0; negative errno. */
int ctl_send_fd(int fd, char *line)
{
	int e;

	if (!line)
		return -ENOMEM;
	e = line_send(fd, line);
	free(line);
	return e;
}

int ctl_send(struct ctl *c, char *line)
{
	return ctl_send_fd(c->in.fd, line);
}

/* The next line into |out| (NUL-terminated, no newline), whole within
 * |timeout_ms| (-1: no limit), however it trickles in. Return: 0;
 * -ETIMEDOUT; -ECONNRESET at EOF; -EMSGSIZE for an overlong line. */
int ctl_recv(struct ctl *c, char *out, int timeout_ms)
{
	size_t len;
	char *l;
	int e = line_recv(&c->in, timeout_ms, &l, &len);

	if (e == 0)
		memcpy(out, l, len + 1);
	return e;
}

int ctl_connect(const struct rdsu_addr *a, uint16_t port)
{
	return line_connect(a, port, -1);
}
