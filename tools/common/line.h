/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * line.h - a TCP control connection carrying one line per message, as
 * rdsperf's control channel and rds-conform's agent speak JSON: whole
 * lines sent, whole lines received within a time limit however they
 * trickle in, and never more than one line's worth buffered, so a peer
 * that never sends a newline costs a bounded buffer and an error, not
 * memory.
 */
#ifndef RDSTK_LINE_H
#define RDSTK_LINE_H

#include <stddef.h>
#include <stdint.h>

#include <rds/rdsu.h>

/* The receiving side of a connection; its buffer is the caller's. */
struct line_in {
	int fd;
	char *buf;
	size_t cap;         /* the longest line, its newline included */
	size_t n;           /* bytes held */
	size_t taken;       /* bytes of the line last returned */
};

/* line_in_init() - receive on |fd| into |buf| (|cap| bytes: the longest
 * line, newline included). */
void line_in_init(struct line_in *c, int fd, char *buf, size_t cap);

/* line_recv() - the next line, whole within |timeout_ms| (-1: no limit;
 * 0: only what has arrived), its newline replaced by a NUL, in *line
 * (|len| bytes without the NUL) until the next call. Return: 0;
 * -ETIMEDOUT; -ECONNRESET at EOF; -EMSGSIZE when |cap| bytes hold no
 * newline (line_discard() drops them); another negative errno. */
int line_recv(struct line_in *c, int timeout_ms, char **line, size_t *len);

/* line_discard() - drop everything held, as after -EMSGSIZE. */
void line_discard(struct line_in *c);

/* line_send() - every byte of |s| (a line ends with its own "\n").
 * Return: 0; negative errno. */
int line_send(int fd, const char *s);

/* line_connect() - a TCP connection to |a|:|port|, made within
 * |timeout_ms| (-1: the system's limit), blocking and without Nagle's
 * delay. Return: the fd; negative errno. */
int line_connect(const struct rdsu_addr *a, uint16_t port, int timeout_ms);

/* line_listen() - a TCP socket listening on |a|:|port| (reusing the
 * address of a predecessor in TIME_WAIT). Return: the fd; negative
 * errno. */
int line_listen(const struct rdsu_addr *a, uint16_t port);

#endif /* RDSTK_LINE_H */
