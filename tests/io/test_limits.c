// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * test_limits.c - the TCP transport when the process runs out of
 * descriptors (issue 21, attack 1): with connections waiting and accept()
 * failing with EMFILE, the endpoint must rest its listeners instead of
 * spinning on them, keep serving the peer it already has, and accept the
 * waiting connections once descriptors are free again. Its own executable
 * because it lowers RLIMIT_NOFILE for the whole process. And the optional
 * peer authentication (rdsu_tcp_cfg.auth): nodes with the cluster's key
 * talk, a connection without it never reaches the endpoint. Addresses
 * 127.0.8.1 (the endpoint), 127.0.8.2 (a peer it serves), 127.0.8.3 (the
 * attacker's raw connections).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "cmain.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rds/rdsu_tcp.h>

#include "iotest.h"

#define SRV "127.0.8.1"
#define PEER "127.0.8.2"
#define RAW "127.0.8.3"
#define N_RAW 8

/* Restored by the teardown even when an assertion ends the test early
 * (LeakSanitizer itself needs a descriptor at exit). */
static struct rlimit old_limit;
static bool limited;
static int fill[4096], n_fill;

static int teardown(void **state)
{
	(void)state;
	while (n_fill)
		close(fill[--n_fill]);
	if (limited)
		(void)setrlimit(RLIMIT_NOFILE, &old_limit);
	limited = false;
	return 0;
}

static int endpoint_auth(const char *a, enum rdsu_tcp_auth kind, const char *key,
			 struct rdsu_tcp **out)
{
	struct rdsu_ep_cfg c;
	struct rdsu_tcp_cfg tc;

	ep_cfg_at(&c, a);
	c.gen_num = 7;
	c.seed = 7;
	rdsu_tcp_cfg_default(&tc);
	tc.auth = kind;
	if (key) {
		tc.auth_key_len = (uint8_t)strlen(key);
		memcpy(tc.auth_key, key, tc.auth_key_len);
	}
	*out = NULL;
	return rdsu_tcp_new(out, &c, &tc);
}

static struct rdsu_tcp *endpoint(const char *a)
{
	struct rdsu_tcp *t;

	assert_int_equal(endpoint_auth(a, RDSU_TCP_AUTH_NONE, NULL, &t), 0);
	return t;
}

static int raw_connect(void)
{
	struct sockaddr_in from = { .sin_family = AF_INET }, to = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	inet_pton(AF_INET, RAW, &from.sin_addr);
	inet_pton(AF_INET, SRV, &to.sin_addr);
	to.sin_port = htons(RDSU_TCP_PORT);
	assert_int_equal(bind(fd, (struct sockaddr *)&from, sizeof(from)), 0);
	/* The handshake completes into the listener's backlog: no accept()
	 * is needed for connect() to return. */
	assert_int_equal(connect(fd, (struct sockaddr *)&to, sizeof(to)), 0);
	return fd;
}

/* Run both endpoints for |ms|; return the server's rounds meanwhile. */
static uint64_t pump(struct rdsu_tcp *srv, struct rdsu_tcp *peer, int ms)
{
	struct rdsu_tcp_stats a, b;
	rdsu_ns end = rdsu_clock() + (rdsu_ns)ms * RDSU_MSEC;

	rdsu_tcp_get_stats(srv, &a);
	while (rdsu_clock() < end) {
		(void)rdsu_tcp_run(srv, 5);
		(void)rdsu_tcp_run(peer, 0);
	}
	rdsu_tcp_get_stats(srv, &b);
	return b.runs - a.runs;
}

/* Every agreed path between the two is up: a path still to connect
 * would need a descriptor of its own. */
static bool all_paths_up(struct rdsu_tcp *srv)
{
	struct rdsu_conn_info ci;
	struct rdsu_addr a = addr(SRV), b = addr(PEER);

	if (rdsu_ep_conn_get(rdsu_tcp_ep(srv), &a, &b, &ci) < 0 || !ci.npaths)
		return false;
	for (unsigned i = 0; i < ci.npaths; i++)
		if (ci.path[i].state != RDSU_PATH_UP)
			return false;
	return true;
}

/* A message from the peer reaches the server's socket within |ms|. */
static bool delivered(struct rdsu_tcp *srv, struct rdsu_tcp *peer, struct rdsu_sock *tx,
		      struct rdsu_sock *rx, uint32_t tag, int ms)
{
	struct iovec iov = { &tag, sizeof(tag) };
	struct rdsu_addr to = addr(SRV);
	rdsu_ns end = rdsu_clock() + (rdsu_ns)ms * RDSU_MSEC;

	if (rdsu_sock_submit(tx, &to, 4000, &iov, 1, rdsu_clock()) < 0)
		return false;
	while (rdsu_clock() < end) {
		uint32_t got = 0;
		struct iovec in = { &got, sizeof(got) };
		struct rdsu_rxinfo info;

		(void)rdsu_tcp_run(peer, 0);
		(void)rdsu_tcp_run(srv, 5);
		while (rdsu_sock_read(rx, &in, 1, 0, &info, rdsu_clock()) >= 0)
			if (!info.cong && got == tag)
				return true;
	}
	return false;
}

static void test_descriptor_exhaustion(void **state)
{
	struct rdsu_tcp *srv = endpoint(SRV), *peer = endpoint(PEER);
	struct rdsu_sock *rx, *tx;
	struct rdsu_addr a = addr(SRV), b = addr(PEER);
	struct rdsu_tcp_stats st;
	struct rlimit low;
	int raw[N_RAW];
	int dummy;
	uint64_t rounds;
	rdsu_ns end;

	(void)state;
	assert_int_equal(rdsu_sock_new(rdsu_tcp_ep(srv), &rx), 0);
	assert_int_equal(rdsu_sock_bind(rx, &a, 4000), 0);
	assert_int_equal(rdsu_sock_new(rdsu_tcp_ep(peer), &tx), 0);
	assert_int_equal(rdsu_sock_bind(tx, &b, 5000), 0);
	/* The peer is served before the attack... */
	assert_true(delivered(srv, peer, tx, rx, 1, 5000));
	end = rdsu_clock() + 5000 * RDSU_MSEC;
	while (!all_paths_up(srv) && rdsu_clock() < end)
		(void)pump(srv, peer, 10);
	assert_true(all_paths_up(srv));

	/* ...then the process has no descriptor left and connections wait. */
	for (int i = 0; i < N_RAW; i++)
		raw[i] = raw_connect();
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old_limit), 0);
	dummy = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_true(dummy >= 0);
	low = old_limit;
	low.rlim_cur = (rlim_t)dummy + 1;
	close(dummy);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	limited = true;
	while (n_fill < 4096 && (fill[n_fill] = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
		n_fill++;
	assert_int_equal(errno, EMFILE);

	/* A readable listener that cannot be accepted from must not turn
	 * every round into an immediate one: 500 ms of waits of up to 5 ms
	 * each are about 100 rounds; a busy loop makes tens of thousands. */
	rounds = pump(srv, peer, 500);
	rdsu_tcp_get_stats(srv, &st);
	print_message("rounds in 500 ms of exhaustion: %llu; accept failures %llu\n",
		      (unsigned long long)rounds, (unsigned long long)st.accept_exhausted);
	assert_true(st.accept_exhausted >= 1);
	assert_true(rounds < 1000);
	/* The peer it already had is still served. */
	assert_true(delivered(srv, peer, tx, rx, 2, 5000));

	/* Descriptors come back: the waiting connections are taken. */
	teardown(NULL);
	(void)pump(srv, peer, 600);
	rdsu_tcp_get_stats(srv, &st);
	assert_int_equal(st.accept_paused, 0);
	/* Each raw connection was accepted (and refused by the core: a
	 * larger address than ours connects only to kick). */
	assert_true(st.accepts >= N_RAW);
	assert_true(delivered(srv, peer, tx, rx, 3, 5000));

	for (int i = 0; i < N_RAW; i++)
		close(raw[i]);
	rdsu_sock_free(rx, rdsu_clock());
	rdsu_sock_free(tx, rdsu_clock());
	rdsu_tcp_free(srv);
	rdsu_tcp_free(peer);
}

/* A plain TCP connect to the endpoint: true if the handshake completed
 * within |ms| (a listener with a key drops an unsigned SYN). */
static bool raw_reaches(int ms)
{
	struct sockaddr_in from = { .sin_family = AF_INET }, to = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), err = 0;
	socklen_t len = sizeof(err);
	struct pollfd p;
	bool up;

	assert_true(fd >= 0);
	inet_pton(AF_INET, RAW, &from.sin_addr);
	inet_pton(AF_INET, SRV, &to.sin_addr);
	to.sin_port = htons(RDSU_TCP_PORT);
	assert_int_equal(bind(fd, (struct sockaddr *)&from, sizeof(from)), 0);
	(void)connect(fd, (struct sockaddr *)&to, sizeof(to));
	p = (struct pollfd){ .fd = fd, .events = POLLOUT };
	up = poll(&p, 1, ms) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 &&
	     err == 0;
	close(fd);
	return up;
}

static void auth_case(enum rdsu_tcp_auth kind)
{
	struct rdsu_tcp *srv, *peer, *other;
	struct rdsu_sock *rx, *tx, *otx;
	struct rdsu_addr a = addr(SRV), b = addr(PEER), c = addr(RAW);
	struct rdsu_tcp_stats st;
	int e = endpoint_auth(SRV, kind, "cluster-secret", &srv);

	if (e == -ENOPROTOOPT || e == -EOPNOTSUPP) {
		print_message("this kernel cannot sign TCP (%s): not tested\n", rdsu_strerror(e));
		skip();
	}
	assert_int_equal(e, 0);
	assert_int_equal(endpoint_auth(PEER, kind, "cluster-secret", &peer), 0);
	assert_int_equal(endpoint_auth(RAW, kind, "not-the-secret", &other), 0);
	assert_int_equal(rdsu_sock_new(rdsu_tcp_ep(srv), &rx), 0);
	assert_int_equal(rdsu_sock_bind(rx, &a, 4000), 0);
	assert_int_equal(rdsu_sock_new(rdsu_tcp_ep(peer), &tx), 0);
	assert_int_equal(rdsu_sock_bind(tx, &b, 5000), 0);
	assert_int_equal(rdsu_sock_new(rdsu_tcp_ep(other), &otx), 0);
	assert_int_equal(rdsu_sock_bind(otx, &c, 5000), 0);

	/* Same key: served. */
	assert_true(delivered(srv, peer, tx, rx, 1, 5000));
	/* No key: the handshake never completes. */
	assert_false(raw_reaches(500));
	/* Another key: the endpoint never hears from it, nor it from us. */
	{
		uint32_t tag = 9;
		struct iovec iov = { &tag, sizeof(tag) };
		rdsu_ns end = rdsu_clock() + 1500 * RDSU_MSEC;

		assert_true(rdsu_sock_submit(otx, &a, 4000, &iov, 1, rdsu_clock()) >= 0);
		while (rdsu_clock() < end) {
			struct iovec in = { &tag, sizeof(tag) };
			struct rdsu_rxinfo info;

			(void)rdsu_tcp_run(other, 5);
			(void)rdsu_tcp_run(srv, 0);
			assert_true(rdsu_sock_read(rx, &in, 1, 0, &info, rdsu_clock()) < 0);
		}
	}
	rdsu_tcp_get_stats(srv, &st);
	/* Only the keyed peer's connections were accepted. */
	print_message("accepted %llu connection(s) with the key\n", (unsigned long long)st.accepts);
	assert_int_equal(st.auth_failed, 0);
	/* And the keyed peer is still served after all that. */
	assert_true(delivered(srv, peer, tx, rx, 2, 5000));
	rdsu_sock_free(rx, rdsu_clock());
	rdsu_sock_free(tx, rdsu_clock());
	rdsu_sock_free(otx, rdsu_clock());
	rdsu_tcp_free(srv);
	rdsu_tcp_free(peer);
	rdsu_tcp_free(other);
}

static enum rdsu_tcp_auth auth_ao = RDSU_TCP_AUTH_AO, auth_md5 = RDSU_TCP_AUTH_MD5;

/* auth_case() for the kind *state points to. */
static void test_auth(void **state)
{
	auth_case(*(enum rdsu_tcp_auth *)*state);
}

static void test_auth_cfg(void **state)
{
	struct rdsu_tcp *t;

	(void)state;
	/* A kind of auth without a key, or an unknown kind, is refused. */
	assert_int_equal(endpoint_auth(SRV, RDSU_TCP_AUTH_AO, NULL, &t), RDSU_ERR_INVAL);
	assert_int_equal(endpoint_auth(SRV, (enum rdsu_tcp_auth)7, "k", &t), RDSU_ERR_INVAL);
	assert_null(t);
}

CMOCKA_MAIN(
	cmocka_unit_test_teardown(test_descriptor_exhaustion, teardown),
	cmocka_unit_test(test_auth_cfg),
	CMOCKA_CASE(test_auth, ao, &auth_ao),
	CMOCKA_CASE(test_auth, md5, &auth_md5))
