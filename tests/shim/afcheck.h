/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * afcheck.h - what the AF_RDS test programs (afrds.c, calls.c,
 * rdstools.c) check with: CHECK reports a failed condition with its line
 * and errno and marks the run failed; FAILS wants a call to fail with one
 * errno; reader() is a thread that blocks in one recv.
 * Each program includes it once; it defines its own state.
 */
#ifndef AFCHECK_H
#define AFCHECK_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>

static int failed;

#define CHECK(cond, ...)                                                                 \
	do {                                                                             \
		if (!(cond)) {                                                           \
			fprintf(stderr, "FAIL line %d: ", __LINE__);                     \
			fprintf(stderr, __VA_ARGS__);                                    \
			fprintf(stderr, " (errno %s)\n", strerrorname_np(errno) ?       \
				strerrorname_np(errno) : "0");                           \
			failed = 1;                                                      \
		}                                                                        \
	} while (0)

/* |call| fails with |err|. */
#define FAILS(call, err, what) CHECK((call) < 0 && errno == (err), "%s: want %s", what, #err)

/* An IPv4 address and port; a test's own typo in |a| ends the run. */
static inline struct sockaddr_in sin_of(const char *a, unsigned port)
{
	struct sockaddr_in s = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };

	if (inet_pton(AF_INET, a, &s.sin_addr) != 1) {
		fprintf(stderr, "bad address %s\n", a);
		exit(2);
	}
	return s;
}

/* A thread's one blocking recv(2) on |fd| (start it with n = -1): what it
 * returned in |n|, the bytes in |buf|. */
struct reader {
	int fd;
	ssize_t n;
	char buf[64];
};

static inline void *reader(void *arg)
{
	struct reader *rd = arg;

	rd->n = recv(rd->fd, rd->buf, sizeof(rd->buf), 0);
	return NULL;
}

#endif
