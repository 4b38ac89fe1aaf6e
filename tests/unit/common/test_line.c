// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_line.c - line-per-message connections over a socketpair: a line
 * that trickles in byte by byte, several lines in one segment, nothing
 * yet (time limit 0), an overlong line refused and dropped with the
 * next line whole, EOF, and a line sent whole. */
#define _GNU_SOURCE

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include "cmain.h"

#include "line.h"

struct pair {
	int fd[2];
	char buf[16];
	struct line_in in;
};

static void pair_open(struct pair *p)
{
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p->fd), 0);
	line_in_init(&p->in, p->fd[0], p->buf, sizeof(p->buf));
}

static void pair_close(struct pair *p)
{
	close(p->fd[0]);
	if (p->fd[1] >= 0)
		close(p->fd[1]);
}

static void put(struct pair *p, const char *s)
{
	assert_int_equal(write(p->fd[1], s, strlen(s)), (ssize_t)strlen(s));
}

static void want_line(struct pair *p, const char *s)
{
	size_t len;
	char *l;

	assert_int_equal(line_recv(&p->in, 1000, &l, &len), 0);
	assert_int_equal(len, strlen(s));
	assert_string_equal(l, s);
}

static void test_line_pieces(void **state)
{
	struct pair p;
	size_t len;
	char *l;

	(void)state;
	pair_open(&p);
	assert_int_equal(line_recv(&p.in, 0, &l, &len), -ETIMEDOUT);
	put(&p, "a");
	assert_int_equal(line_recv(&p.in, 0, &l, &len), -ETIMEDOUT);
	put(&p, "bc\nde\n\nf");
	want_line(&p, "abc");
	want_line(&p, "de");
	want_line(&p, "");
	assert_int_equal(line_recv(&p.in, 0, &l, &len), -ETIMEDOUT);
	put(&p, "g\n");
	want_line(&p, "fg");
	pair_close(&p);
}

/* The buffer holds 16 bytes: a line of 15 and its newline fit, 16 do not. */
static void test_line_overlong(void **state)
{
	struct pair p;
	size_t len;
	char *l;

	(void)state;
	pair_open(&p);
	put(&p, "0123456789abcde\n");
	want_line(&p, "0123456789abcde");
	put(&p, "0123456789abcdef0123\nok\n");
	assert_int_equal(line_recv(&p.in, 1000, &l, &len), -EMSGSIZE);
	line_discard(&p.in);
	want_line(&p, "0123");
	want_line(&p, "ok");
	pair_close(&p);
}

static void test_line_eof_and_send(void **state)
{
	struct pair p;
	char got[8] = "";
	size_t len;
	char *l;

	(void)state;
	pair_open(&p);
	assert_int_equal(line_send(p.fd[0], "hi\n"), 0);
	assert_int_equal(read(p.fd[1], got, sizeof(got) - 1), 3);
	assert_string_equal(got, "hi\n");
	put(&p, "half");
	close(p.fd[1]);
	p.fd[1] = -1;
	assert_int_equal(line_recv(&p.in, 1000, &l, &len), -ECONNRESET);
	pair_close(&p);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_line_pieces),
	cmocka_unit_test(test_line_overlong),
	cmocka_unit_test(test_line_eof_and_send))
