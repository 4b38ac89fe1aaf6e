// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * test_tcp.c - the TCP transport (librds/io/tcp.c) on real loopback
 * sockets: two rdsu_tcp endpoints in one process (127.0.0.1 and
 * 127.0.0.2, run in turns from one poll), and hand-made TCP peers that
 * speak RDS bytes built and parsed with libwire where a test needs a peer
 * that misbehaves or holds still.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rds/rdsu_tcp.h>

#include "iotest.h"

#define LO "127.0.0.1"
#define HI "127.0.0.2"
#define GEN 0x7e57u

/* ------------------------------------------------------------------------
 * What a test opened, so that a failed test (cmocka longjmps out of it)
 * does not leave port 16385 taken for the next one.
 */

static struct rdsu_tcp *live_tcp[4];
static int live_fd[16];
static unsigned n_live_fd;

static struct rdsu_tcp *track(struct rdsu_tcp *t)
{
	for (unsigned i = 0; i < 4; i++)
		if (!live_tcp[i]) {
			live_tcp[i] = t;
			return t;
		}
	fail_msg("more than 4 endpoints in one test");
	return t;
}

static void tcp_free(struct rdsu_tcp *t)
{
	for (unsigned i = 0; i < 4; i++)
		if (live_tcp[i] == t)
			live_tcp[i] = NULL;
	rdsu_tcp_free(t);
}

static int track_fd(int fd)
{
	assert_true(fd >= 0 && n_live_fd < 16);
	live_fd[n_live_fd++] = fd;
	return fd;
}

static void fd_close(int fd)
{
	for (unsigned i = 0; i < n_live_fd; i++)
		if (live_fd[i] == fd) {
			live_fd[i] = live_fd[--n_live_fd];
			break;
		}
	close(fd);
}

static int teardown(void **state)
{
	(void)state;
	for (unsigned i = 0; i < 4; i++)
		tcp_free(live_tcp[i]);
	while (n_live_fd)
		fd_close(live_fd[0]);
	return 0;
}

/* ------------------------------------------------------------------------
 * Endpoints
 */

static void ep_cfg(struct rdsu_ep_cfg *c, const char *a)
{
	ep_cfg_at(c, a);
	c->gen_num = GEN;
	/* Source ports start at group (seed >> 32) & 0xff = 0 of the range. */
	c->seed = 0x5eed;
	/* port_for_path() picks by the kernel's path rule. */
	c->path_rule = RDSU_PATH_BY_PORT;
}

static struct rdsu_tcp *tcp_new(const struct rdsu_ep_cfg *c, const struct rdsu_tcp_cfg *tc)
{
	struct rdsu_tcp *t = NULL;
	int r = rdsu_tcp_new(&t, c, tc);

	if (r < 0)
		fail_msg("rdsu_tcp_new: %s", rdsu_strerror(r));
	return track(t);
}

static struct rdsu_tcp *simple(const char *a)
{
	struct rdsu_ep_cfg c;

	ep_cfg(&c, a);
	return tcp_new(&c, NULL);
}

/* Wait up to |ms| for either endpoint's descriptor, then run both once. */
static void pump(struct rdsu_tcp *a, struct rdsu_tcp *b, int ms)
{
	struct pollfd pf[2] = { { .fd = rdsu_tcp_fd(a), .events = POLLIN },
				{ .fd = b ? rdsu_tcp_fd(b) : -1, .events = POLLIN } };

	(void)poll(pf, 2, ms);
	assert_true(rdsu_tcp_run(a, 0) >= 0);
	if (b)
		assert_true(rdsu_tcp_run(b, 0) >= 0);
}

#define WAIT_UNTIL(cond, secs, a, b)                                                        \
	do {                                                                                \
		rdsu_ns end_ = rdsu_clock() + (rdsu_ns)((secs) * 1e9);                     \
		while (!(cond)) {                                                           \
			if (rdsu_clock() > end_)                                            \
				fail_msg("%s:%d: timed out waiting for %s", __FILE__, __LINE__, \
					 #cond);                                            \
			pump((a), (b), 10);                                                 \
		}                                                                           \
	} while (0)

static struct rdsu_sock *sock_at(struct rdsu_tcp *t, const char *a, uint16_t port)
{
	struct rdsu_sock *s;
	struct rdsu_addr x = addr(a);

	assert_int_equal(rdsu_sock_new(rdsu_tcp_ep(t), &s), 0);
	assert_int_equal(rdsu_sock_bind(s, &x, port), 0);
	return s;
}

static int submit(struct rdsu_tcp *t, struct rdsu_sock *s, const char *to, uint16_t dport,
		  const void *p, size_t n)
{
	struct iovec iov = { .iov_base = (void *)p, .iov_len = n };
	struct rdsu_addr d = addr(to);
	int r = rdsu_sock_submit(s, &d, dport, &iov, 1, rdsu_clock());

	assert_true(rdsu_tcp_run(t, 0) >= 0);
	return r;
}

static ssize_t sock_read(struct rdsu_sock *s, void *buf, size_t cap, struct rdsu_rxinfo *info)
{
	struct iovec iov = { .iov_base = buf, .iov_len = cap };

	return rdsu_sock_read(s, &iov, 1, 0, info, rdsu_clock());
}

static bool conn_of(struct rdsu_tcp *t, const char *l, const char *f, struct rdsu_conn_info *ci)
{
	struct rdsu_addr a = addr(l), b = addr(f);

	return rdsu_ep_conn_get(rdsu_tcp_ep(t), &a, &b, ci) == 0;
}

static uint64_t ep_stat(struct rdsu_tcp *t, enum rdsu_stat k)
{
	struct rdsu_stats st;

	rdsu_ep_get_stats(rdsu_tcp_ep(t), &st);
	return st.v[k];
}

static struct rdsu_tcp_stats tstats(struct rdsu_tcp *t)
{
	struct rdsu_tcp_stats st;

	rdsu_tcp_get_stats(t, &st);
	return st;
}

/* HI's path 0 from LO is up (a raw peer of LO's connected). */
static bool path0_up(struct rdsu_tcp *hi)
{
	struct rdsu_conn_info ci;

	return conn_of(hi, HI, LO, &ci) && ci.path[0].state == RDSU_PATH_UP;
}

static bool paths_up(struct rdsu_tcp *t, const char *l, const char *f, unsigned n)
{
	struct rdsu_conn_info ci;

	if (!conn_of(t, l, f, &ci) || ci.npaths != n)
		return false;
	for (unsigned i = 0; i < n; i++)
		if (ci.path[i].state != RDSU_PATH_UP)
			return false;
	return true;
}

static unsigned held_links(struct rdsu_tcp *t, const char *l, const char *f)
{
	struct rdsu_conn_info ci;

	return conn_of(t, l, f, &ci) ? ci.held_links : 0;
}

static int fd_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* A port whose sockets use |path| of 8 (rdsu_mprds_hash, hash_initval 0). */
static uint16_t port_on_path(unsigned path, uint16_t from)
{
	for (uint16_t p = from;; p++)
		if (rdsu_mprds_hash(p, 0, 8) == path)
			return p;
}

/* ------------------------------------------------------------------------
 * Hand-made TCP peers
 */

static int raw_bound(const char *a, uint16_t port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	int one = 1, fd = track_fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));

	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	assert_int_equal(inet_pton(AF_INET, a, &sa.sin_addr), 1);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		fail_msg("bind %s:%u: %s", a, port, strerror(errno));
	return fd;
}

static int raw_listen(const char *a, uint16_t port)
{
	int fd = raw_bound(a, port);

	assert_int_equal(listen(fd, 8), 0);
	assert_int_equal(fcntl(fd, F_SETFL, O_NONBLOCK), 0);
	return fd;
}

/* Connect from |from|:|sport| (0: any) to |to|:|port|; the kernel completes
 * the handshake without the endpoint running. Return a non-blocking fd,
 * or -errno from connect. */
static int raw_connect(const char *from, uint16_t sport, const char *to, uint16_t port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = raw_bound(from, sport), e;

	assert_int_equal(inet_pton(AF_INET, to, &sa.sin_addr), 1);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		e = -errno;
		fd_close(fd);
		return e;
	}
	assert_int_equal(fcntl(fd, F_SETFL, O_NONBLOCK), 0);
	return fd;
}

/* From a source port p with p % 8 == |res| (7.x's path encoding). */
static int raw_connect_res(const char *from, unsigned res, const char *to)
{
	for (unsigned p = 41000 + res; p < 42000; p += 8) {
		int fd = raw_connect(from, (uint16_t)p, to, RDSU_TCP_PORT);

		if (fd >= 0)
			return fd;  /* else the four-tuple lingers from an earlier run */
	}
	fail_msg("no source port %% 8 == %u could connect", res);
	return -1;
}

static uint16_t local_port(int fd)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);

	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	return ntohs(sa.sin_port);
}

static void raw_reset(int fd)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)), 0);
	fd_close(fd);
}

/* Read exactly |n| bytes from raw |fd| while the endpoints run.
 * Return: n; 0 at EOF; -errno (-ECONNRESET, -ETIMEDOUT after |secs|). */
static ssize_t raw_read(int fd, void *buf, size_t n, struct rdsu_tcp *a, struct rdsu_tcp *b,
			double secs)
{
	rdsu_ns end = rdsu_clock() + (rdsu_ns)(secs * 1e9);
	size_t got = 0;

	while (got < n) {
		ssize_t r = recv(fd, (uint8_t *)buf + got, n - got, MSG_DONTWAIT);

		if (r == 0)
			return 0;
		if (r > 0) {
			got += (size_t)r;
			continue;
		}
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -errno;
		if (rdsu_clock() > end)
			return -ETIMEDOUT;
		pump(a, b, 5);
	}
	return (ssize_t)n;
}

/* One RDS message from raw |fd|: header into |h|, the first |cap| bytes of
 * the payload into |payload|. Return: 1; 0 at EOF; -errno. */
static int raw_msg(int fd, struct wire_hdr *h, uint8_t *payload, size_t cap, struct rdsu_tcp *a,
		   struct rdsu_tcp *b)
{
	uint8_t hb[WIRE_HDR_LEN];
	ssize_t r = raw_read(fd, hb, sizeof(hb), a, b, 5);

	if (r <= 0)
		return (int)r;
	assert_int_equal(wire_hdr_decode(h, hb, sizeof(hb)), WIRE_HDR_LEN);
	for (uint32_t done = 0; done < h->len;) {
		uint8_t chunk[4096];
		size_t want = h->len - done < sizeof(chunk) ? h->len - done : sizeof(chunk);

		r = raw_read(fd, chunk, want, a, b, 5);
		if (r <= 0)
			return (int)r;
		if (done < cap)
			memcpy(payload + done, chunk, cap - done < want ? cap - done : want);
		done += (uint32_t)want;
	}
	return 1;
}

static void raw_send(int fd, const struct wire_hdr *h, const void *payload)
{
	uint8_t buf[WIRE_HDR_LEN + 256];
	struct wire_hdr c = *h;

	assert_true(h->len <= 256 || !payload);
	wire_hdr_csum_set(&c);
	assert_int_equal(wire_hdr_encode(&c, buf, sizeof(buf)), WIRE_HDR_LEN);
	if (payload)
		memcpy(buf + WIRE_HDR_LEN, payload, h->len);
	size_t n = WIRE_HDR_LEN + (payload ? h->len : 0);

	assert_int_equal(send(fd, buf, n, MSG_NOSIGNAL), (ssize_t)n);
}

/* A raw peer's first words, as a kernel's: its all-clear congestion map.
 * Until a connection it accepted has said that much, an endpoint sends
 * no data on it. */
static void raw_hello(int fd)
{
	static uint8_t buf[WIRE_HDR_LEN + WIRE_CONG_MAP_BYTES];
	struct wire_hdr h;

	memset(&h, 0, sizeof(h));
	h.flags = WIRE_FLAG_CONG_BITMAP;
	h.len = WIRE_CONG_MAP_BYTES;
	assert_int_equal(wire_hdr_encode(&h, buf, WIRE_HDR_LEN), WIRE_HDR_LEN);
	assert_int_equal(send(fd, buf, sizeof(buf), MSG_NOSIGNAL), (ssize_t)sizeof(buf));
}

/* The first thing on every path that comes up is the whole congestion
 * map (rds_connect_path_complete): flags exactly 0x01, seq 0, 8192 bytes. */
static void expect_map(int fd, struct rdsu_tcp *a, struct rdsu_tcp *b)
{
	struct wire_hdr h;

	assert_int_equal(raw_msg(fd, &h, NULL, 0, a, b), 1);
	assert_int_equal(h.flags, WIRE_FLAG_CONG_BITMAP);
	assert_int_equal(h.len, WIRE_CONG_MAP_BYTES);
	assert_int_equal(h.seq, 0);
}

/* ------------------------------------------------------------------------
 * Set-up and its errors
 */

static void test_new_errors(void **state)
{
	(void)state;
	int fds = fd_count();
	struct rdsu_ep_cfg c, c2;
	struct rdsu_tcp_cfg tc;
	struct rdsu_tcp *t = simple(LO), *t2 = NULL;

	/* Port 16385 of the address is taken: by another endpoint... */
	ep_cfg(&c, LO);
	assert_int_equal(rdsu_tcp_new(&t2, &c, NULL), -EADDRINUSE);
	assert_null(t2);
	/* ...or by any listener (the kernel's rds_tcp, say). */
	int l = raw_listen(HI, RDSU_TCP_PORT);

	ep_cfg(&c, HI);
	assert_int_equal(rdsu_tcp_new(&t2, &c, NULL), -EADDRINUSE);
	/* The second of two addresses is taken: the first is let go again. */
	ep_cfg(&c2, "127.0.0.3");
	c2.laddrs[1] = addr(HI);
	c2.n_laddrs = 2;
	assert_int_equal(rdsu_tcp_new(&t2, &c2, NULL), -EADDRINUSE);
	fd_close(l);
	ep_cfg(&c, "127.0.0.3");
	t2 = tcp_new(&c, NULL);
	tcp_free(t2);
	/* Not an address of this host. */
	ep_cfg(&c, "192.0.2.1");
	assert_int_equal(rdsu_tcp_new(&t2, &c, NULL), -EADDRNOTAVAIL);
	/* Bad configurations. */
	ep_cfg(&c, HI);
	rdsu_tcp_cfg_default(&tc);
	tc.port_low = 50000;
	tc.port_high = 40000;
	assert_int_equal(rdsu_tcp_new(&t2, &c, &tc), RDSU_ERR_INVAL);
	rdsu_tcp_cfg_default(&tc);
	tc.size = sizeof(tc) - 1;
	assert_int_equal(rdsu_tcp_new(&t2, &c, &tc), RDSU_ERR_INVAL);
	c.npaths = 3;
	assert_int_equal(rdsu_tcp_new(&t2, &c, NULL), RDSU_ERR_INVAL);
	assert_int_equal(rdsu_tcp_new(NULL, &c, NULL), RDSU_ERR_INVAL);
	assert_int_equal(rdsu_tcp_new(&t2, NULL, NULL), RDSU_ERR_INVAL);
	assert_int_equal(rdsu_tcp_run(NULL, 0), RDSU_ERR_INVAL);
	assert_int_equal(rdsu_tcp_fd(NULL), -1);
	assert_null(rdsu_tcp_ep(NULL));
	rdsu_tcp_free(NULL);
	tcp_free(t);
	/* Nothing of all that is left open. */
	assert_int_equal(fd_count(), fds);
}

static void test_ipv6(void **state)
{
	(void)state;
	struct rdsu_ep_cfg c;
	struct rdsu_addr a;
	struct rdsu_tcp *t = NULL;
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6, .sin6_port = htons(RDSU_TCP_PORT),
				   .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	int fd = track_fd(socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0));
	char b;

	ep_cfg(&c, LO);
	memcpy(a.a, &in6addr_loopback, 16);
	c.laddrs[0] = a;
	if (rdsu_tcp_new(&t, &c, NULL) == -EADDRNOTAVAIL) {
		fd_close(fd);
		skip();  /* no ::1 in this network namespace */
	}
	assert_non_null(track(t));
	/* ::1 to ::1 would be loopback, which RDS/TCP refuses with a reset. */
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(fcntl(fd, F_SETFL, O_NONBLOCK), 0);
	assert_int_equal(raw_read(fd, &b, 1, t, NULL, 5), -ECONNRESET);
	assert_int_equal(ep_stat(t, RDSU_STAT_ACCEPT_REFUSED), 1);
	assert_int_equal(tstats(t).accept_reset, 1);
	fd_close(fd);
	tcp_free(t);
}

/* ------------------------------------------------------------------------
 * Who connects, and from which port
 */

static void test_sport_encodes_path(void **state)
{
	(void)state;
	struct rdsu_ep_cfg c;
	struct rdsu_tcp_cfg tc;
	struct rdsu_conn_info lo_ci, hi_ci;
	/* Group 0's port for path 0 is taken: that connect moves on a group. */
	int busy = raw_listen(LO, 40000);

	ep_cfg(&c, LO);
	rdsu_tcp_cfg_default(&tc);
	tc.port_low = 40000;
	tc.port_high = 40063;
	struct rdsu_tcp *lo = tcp_new(&c, &tc), *hi = simple(HI);
	struct rdsu_sock *tx = sock_at(lo, LO, 4000);

	assert_int_equal(submit(lo, tx, HI, 5000, "x", 1), 1);
	WAIT_UNTIL(paths_up(lo, LO, HI, 8) && paths_up(hi, HI, LO, 8), 10, lo, hi);
	assert_true(conn_of(lo, LO, HI, &lo_ci));
	assert_true(conn_of(hi, HI, LO, &hi_ci));
	assert_true(lo_ci.we_connect);
	assert_false(hi_ci.we_connect);
	for (unsigned i = 0; i < 8; i++) {
		uint16_t p = lo_ci.path[i].local_sport;

		if (!lo_ci.path[i].outgoing || p % 8 != i || p < 40000 || p > 40063 || p == 40000)
			fail_msg("path %u: outgoing %d from port %u", i, lo_ci.path[i].outgoing, p);
		/* The acceptor put it in slot sport % 8. */
		assert_false(hi_ci.path[i].outgoing);
		assert_int_equal(hi_ci.path[i].peer_sport, p);
	}
	assert_true(tstats(lo).port_retries >= 1);
	assert_int_equal(tstats(lo).connects, 8);
	tcp_free(lo);
	tcp_free(hi);
	fd_close(busy);
}

static void test_kick(void **state)
{
	(void)state;
	struct rdsu_tcp *lo = simple(LO), *hi = simple(HI);
	struct rdsu_sock *rx = sock_at(lo, LO, 5000), *tx = sock_at(hi, HI, 6000);
	struct rdsu_conn_info ci;
	struct rdsu_rxinfo info;
	char buf[16];

	/* The larger address sends first: it may only knock. */
	assert_int_equal(submit(hi, tx, LO, 5000, "kick", 4), 4);
	WAIT_UNTIL(sock_read(rx, buf, sizeof(buf), &info) == 4, 10, lo, hi);
	assert_memory_equal(buf, "kick", 4);
	assert_int_equal(info.sport, 6000);
	assert_true(ep_stat(hi, RDSU_STAT_KICK_DROPPED) >= 1);
	assert_true(ep_stat(lo, RDSU_STAT_ACCEPT_REFUSED) >= 1);
	assert_true(tstats(lo).accept_reset >= 1);
	assert_true(conn_of(lo, LO, HI, &ci));
	assert_true(ci.we_connect);
	assert_true(ci.path[0].outgoing);
	assert_true(conn_of(hi, HI, LO, &ci));
	assert_false(ci.we_connect);
	assert_false(ci.path[0].outgoing);
	tcp_free(lo);
	tcp_free(hi);
}

/* A hand-made larger peer knocks: reset, and the endpoint connects back to
 * its port 16385, sending the map and then a 7.x probe. */
static void test_larger_peer_refused(void **state)
{
	(void)state;
	struct rdsu_tcp *lo = simple(LO);
	int lis = raw_listen(HI, RDSU_TCP_PORT), k = raw_connect(HI, 0, LO, RDSU_TCP_PORT), a = -1;
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	struct wire_hdr h;
	struct wire_exts x;
	char b;

	assert_true(k >= 0);
	assert_int_equal(raw_read(k, &b, 1, lo, NULL, 5), -ECONNRESET);
	assert_int_equal(ep_stat(lo, RDSU_STAT_ACCEPT_REFUSED), 1);
	WAIT_UNTIL((a = accept4(lis, (struct sockaddr *)&sa, &len, SOCK_NONBLOCK)) >= 0, 5, lo, NULL);
	track_fd(a);
	assert_int_equal(ntohl(sa.sin_addr.s_addr), 0x7f000001);
	assert_int_equal(ntohs(sa.sin_port) % 8, 0);
	expect_map(a, lo, NULL);
	assert_int_equal(raw_msg(a, &h, NULL, 0, lo, NULL), 1);
	assert_int_equal(wire_classify(&h, WIRE_XPORT_TCP), WIRE_KIND_PROBE_PING);
	wire_exts_decode(&x, h.ext, WIRE_KVER_7);
	assert_true(x.has_npaths && x.has_gen_num && x.has_sport_idx);
	assert_int_equal(x.npaths, 8);
	assert_int_equal(x.gen_num, GEN);
	/* A peer claiming one of our own addresses is loopback: refused. */
	int self = raw_connect(LO, 0, LO, RDSU_TCP_PORT);

	assert_int_equal(raw_read(self, &b, 1, lo, NULL, 5), -ECONNRESET);
	assert_int_equal(ep_stat(lo, RDSU_STAT_ACCEPT_REFUSED), 2);
	fd_close(self);
	fd_close(k);
	fd_close(a);
	fd_close(lis);
	tcp_free(lo);
}

/* A hand-made smaller peer is accepted: map first, the acceptor's probe,
 * pings answered; a header announcing more than 1 MiB resets it. */
static void test_smaller_peer_accepted(void **state)
{
	(void)state;
	struct rdsu_tcp *hi = simple(HI);
	int k = raw_connect(LO, 0, HI, RDSU_TCP_PORT);
	struct wire_hdr h;
	char b;

	expect_map(k, hi, NULL);
	assert_int_equal(raw_msg(k, &h, NULL, 0, hi, NULL), 1);
	assert_int_equal(wire_classify(&h, WIRE_XPORT_TCP), WIRE_KIND_PROBE_PING);
	wire_build_ping(&h, 1, 4000);
	raw_send(k, &h, NULL);
	assert_int_equal(raw_msg(k, &h, NULL, 0, hi, NULL), 1);
	assert_int_equal(wire_classify(&h, WIRE_XPORT_TCP), WIRE_KIND_PONG);
	assert_int_equal(h.dport, 4000);
	assert_int_equal(h.len, 0);
	wire_build_data(&h, 2, 4000, 5000, WIRE_MAX_MSG_LEN + 1);
	raw_send(k, &h, NULL);
	assert_int_equal(raw_read(k, &b, 1, hi, NULL, 5), -ECONNRESET);
	assert_int_equal(ep_stat(hi, RDSU_STAT_RECV_TOO_BIG), 1);
	assert_int_equal(tstats(hi).resets_sent, 1);
	fd_close(k);
	tcp_free(hi);
}

/* ------------------------------------------------------------------------
 * Bytes
 */

static void pattern(uint8_t *p, size_t n, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = (uint8_t)(x >> 23);
	}
}

static uint8_t msg_buf[WIRE_MAX_MSG_LEN], msg_ref[WIRE_MAX_MSG_LEN];

/* Submit |n| messages of |len| bytes, message i filled from seed |seed| + i. */
static void send_msgs(struct rdsu_tcp *t, struct rdsu_sock *tx, unsigned n, size_t len,
		      uint32_t seed)
{
	for (unsigned i = 0; i < n; i++) {
		pattern(msg_buf, len, seed + i);
		assert_int_equal(submit(t, tx, HI, 5000, msg_buf, len), (int)len);
	}
}

/* ...and read them back in order, every byte compared. */
static void expect_msgs(struct rdsu_tcp *lo, struct rdsu_tcp *hi, struct rdsu_sock *rx,
			unsigned n, size_t len, uint32_t seed)
{
	rdsu_ns end = rdsu_clock() + 20 * RDSU_SEC;
	struct rdsu_rxinfo info;

	for (unsigned got = 0; got < n;) {
		ssize_t r = sock_read(rx, msg_buf, sizeof(msg_buf), &info);

		if (r == -EAGAIN) {
			if (rdsu_clock() > end)
				fail_msg("only %u of %u messages arrived", got, n);
			pump(lo, hi, 10);
			continue;
		}
		pattern(msg_ref, len, seed + got);
		assert_int_equal(r, len);
		assert_memory_equal(msg_buf, msg_ref, len);
		got++;
	}
}

/* Through 64 KiB socket buffers: a burst of short messages, gathered in
 * the staging buffer, and 1 MiB, written from the core's memory, both
 * stop half-way; what send() left is written first, and every byte
 * arrives in order. */
static void test_partial_writes(void **state)
{
	(void)state;
	struct rdsu_ep_cfg c;
	struct rdsu_tcp_cfg tc;

	rdsu_tcp_cfg_default(&tc);
	tc.so_sndbuf = tc.so_rcvbuf = 65536;
	ep_cfg(&c, LO);
	struct rdsu_tcp *lo = tcp_new(&c, &tc);

	ep_cfg(&c, HI);
	struct rdsu_tcp *hi = tcp_new(&c, &tc);
	struct rdsu_sock *tx = sock_at(lo, LO, port_on_path(0, 4000)), *rx = sock_at(hi, HI, 5000);

	assert_int_equal(rdsu_sock_set_sndbuf(tx, 4u << 20, rdsu_clock()), 0);
	assert_int_equal(rdsu_sock_set_rcvbuf(rx, 64u << 20, rdsu_clock()), 0);
	send_msgs(lo, tx, 1000, 1000, 1);
	expect_msgs(lo, hi, rx, 1000, 1000, 1);
	uint64_t staged = tstats(lo).write_blocked;

	if (staged < 1)
		fail_msg("1 MB of short messages never filled a 64 KiB socket");
	send_msgs(lo, tx, 2, WIRE_MAX_MSG_LEN, 5000);
	expect_msgs(lo, hi, rx, 2, WIRE_MAX_MSG_LEN, 5000);
	struct rdsu_tcp_stats st = tstats(lo);

	if (st.write_blocked < staged + 2)
		fail_msg("2 MiB blocked only %llu times", (unsigned long long)(st.write_blocked - staged));
	assert_true(st.bytes_out >= 1000 * 1000 + 2 * WIRE_MAX_MSG_LEN);
	tcp_free(lo);
	tcp_free(hi);
}

static uint64_t snd_bytes(struct rdsu_tcp *t)
{
	struct rdsu_sock_info si;
	size_t pos = 0;
	uint64_t n = 0;

	while (rdsu_ep_sock_next(rdsu_tcp_ep(t), &pos, &si) == 1)
		n += si.snd_bytes;
	return n;
}

/* SNDBUF frees when TCP acknowledged, not when the bytes were written: a
 * peer whose stack does not run takes only what its 4 KiB receive buffer
 * holds, and POLLOUT comes back only once it reads. */
static void test_acks_free_sndbuf(void **state)
{
	(void)state;
	struct rdsu_ep_cfg c;
	struct rdsu_tcp_cfg tc;
	struct rdsu_conn_info ci;
	struct rdsu_rxinfo info;
	uint8_t msg[4096] = { 0 };
	uint64_t written = 0, acked = 0;

	ep_cfg(&c, LO);
	struct rdsu_tcp *lo = tcp_new(&c, NULL);

	ep_cfg(&c, HI);
	rdsu_tcp_cfg_default(&tc);
	tc.so_rcvbuf = 4096;
	struct rdsu_tcp *hi = tcp_new(&c, &tc);
	struct rdsu_sock *tx = sock_at(lo, LO, 4000), *rx = sock_at(hi, HI, 5000);

	assert_int_equal(rdsu_sock_set_sndbuf(tx, 65536, rdsu_clock()), 0);
	assert_int_equal(rdsu_sock_set_rcvbuf(rx, 64u << 20, rdsu_clock()), 0);
	assert_int_equal(submit(lo, tx, HI, 5000, msg, 1), 1);
	WAIT_UNTIL(sock_read(rx, msg, sizeof(msg), &info) == 1, 10, lo, hi);
	WAIT_UNTIL(paths_up(lo, LO, HI, 8) && paths_up(hi, HI, LO, 8), 10, lo, hi);
	/* The first message went on path 0 before the count was known: the
	 * fan-out fence must be through before path 1 writes. */
	WAIT_UNTIL(conn_of(lo, LO, HI, &ci) && !ci.fanout_hold, 10, lo, hi);
	/* From here on the peer's stack sleeps. */
	rdsu_ns end = rdsu_clock() + 500 * RDSU_MSEC;

	while (rdsu_clock() < end) {
		while (submit(lo, tx, HI, 5000, msg, sizeof(msg)) == (int)sizeof(msg))
			;
		pump(lo, NULL, 5);
	}
	assert_int_equal(submit(lo, tx, HI, 5000, msg, sizeof(msg)), -EAGAIN);
	assert_false(rdsu_sock_poll(tx) & RDSU_POLLOUT);
	assert_true(snd_bytes(lo) >= 65536);
	assert_true(conn_of(lo, LO, HI, &ci));
	for (unsigned i = 0; i < 8; i++) {
		written += ci.path[i].tx_bytes;
		acked += ci.path[i].acked_bytes;
	}
	if (written <= acked)
		fail_msg("written %llu, acknowledged %llu: nothing waits for an ACK",
			 (unsigned long long)written, (unsigned long long)acked);
	/* The peer reads: TCP acknowledges, SNDBUF frees. */
	WAIT_UNTIL(rdsu_sock_poll(tx) & RDSU_POLLOUT, 10, lo, hi);
	WAIT_UNTIL(snd_bytes(lo) == 0, 10, lo, hi);
	tcp_free(lo);
	tcp_free(hi);
}

/* Two endpoints with every path up and the fan-out fence through, so
 * nothing but what a test sends moves any more. */
static void quiet_pair(struct rdsu_tcp *lo, struct rdsu_tcp *hi, struct rdsu_sock *tx,
		       struct rdsu_sock *rx)
{
	struct rdsu_conn_info ci;
	struct rdsu_rxinfo info;
	uint8_t b[8];

	assert_int_equal(submit(lo, tx, HI, 5000, "x", 1), 1);
	WAIT_UNTIL(sock_read(rx, b, sizeof(b), &info) == 1, 10, lo, hi);
	WAIT_UNTIL(paths_up(lo, LO, HI, 8) && paths_up(hi, HI, LO, 8), 10, lo, hi);
	WAIT_UNTIL(conn_of(lo, LO, HI, &ci) && !ci.fanout_hold && snd_bytes(lo) == 0, 10, lo, hi);
}

/* quiet_pair() for the tests that fill |tx|'s SNDBUF: 64 KiB of it, and
 * room at |rx| for all that arrives. */
static void fill_pair(struct rdsu_tcp *lo, struct rdsu_tcp *hi, struct rdsu_sock *tx,
		      struct rdsu_sock *rx)
{
	assert_int_equal(rdsu_sock_set_rcvbuf(rx, 64u << 20, rdsu_clock()), 0);
	quiet_pair(lo, hi, tx, rx);
	assert_int_equal(rdsu_sock_set_sndbuf(tx, 65536, rdsu_clock()), 0);
}

/* Read |n| messages of 4096 bytes at |rx|, running only |hi| (and
 * flushing |flush|, if given, between reads). */
static void read_4k(struct rdsu_tcp *hi, struct rdsu_sock *rx, unsigned n, struct rdsu_tcp *flush)
{
	struct rdsu_rxinfo info;

	for (unsigned got = 0; got < n;) {
		if (sock_read(rx, msg_buf, sizeof(msg_buf), &info) == 4096) {
			got++;
			continue;
		}
		pump(hi, NULL, 10);
		if (flush)
			assert_int_equal(rdsu_tcp_flush(flush), 0);
	}
}

/* A batch of submits followed by one rdsu_tcp_flush leaves in one send(),
 * and with no socket waiting for SNDBUF room nobody asks SIOCOUTQ. */
static void test_flush_coalesces(void **state)
{
	(void)state;
	struct rdsu_tcp *lo = simple(LO), *hi = simple(HI);
	struct rdsu_sock *tx = sock_at(lo, LO, 4000), *rx = sock_at(hi, HI, 5000);
	struct iovec iov = { .iov_base = msg_buf, .iov_len = 100 };
	struct rdsu_addr d = addr(HI);

	quiet_pair(lo, hi, tx, rx);
	struct rdsu_tcp_stats before = tstats(lo);

	for (unsigned i = 0; i < 20; i++) {
		pattern(msg_buf, 100, 70 + i);
		assert_int_equal(rdsu_sock_submit(tx, &d, 5000, &iov, 1, rdsu_clock()), 100);
	}
	assert_int_equal(tstats(lo).writes, before.writes);
	assert_int_equal(rdsu_tcp_flush(lo), 0);
	struct rdsu_tcp_stats after = tstats(lo);

	assert_int_equal(after.writes - before.writes, 1);
	assert_int_equal(after.bytes_out - before.bytes_out, 20 * (WIRE_HDR_LEN + 100));
	assert_int_equal(after.ack_checks, before.ack_checks);
	assert_int_equal(rdsu_tcp_flush(NULL), RDSU_ERR_INVAL);
	expect_msgs(lo, hi, rx, 20, 100, 70);
	tcp_free(lo);
	tcp_free(hi);
}

/*
 * Regression: rdsu_tcp_run looked at acknowledgements before its wait,
 * freed SNDBUF there, and then slept the caller's whole timeout anyway.
 * Here the peer's TCP acknowledges everything while our stack does not
 * run; the next round must find it, make the socket writable and return
 * without a sleeping wait (counted, not timed: with the bug this round
 * sleeps until some event and the count says so).
 */
static void test_run_no_sleep_after_acks(void **state)
{
	(void)state;
	struct rdsu_ep_cfg c;
	struct rdsu_tcp_cfg tc;
	unsigned sent = 0;

	rdsu_tcp_cfg_default(&tc);
	tc.so_sndbuf = 1 << 20;
	ep_cfg(&c, LO);
	struct rdsu_tcp *lo = tcp_new(&c, &tc);

	rdsu_tcp_cfg_default(&tc);
	tc.so_rcvbuf = 4096;
	ep_cfg(&c, HI);
	struct rdsu_tcp *hi = tcp_new(&c, &tc);
	struct rdsu_sock *tx = sock_at(lo, LO, 4000), *rx = sock_at(hi, HI, 5000);

	fill_pair(lo, hi, tx, rx);
	/* The peer's stack sleeps: once its small receive window is full our
	 * bytes wait unacknowledged in our socket and SNDBUF stays full. */
	for (unsigned i = 0; i < 10000; i++) {
		int r = submit(lo, tx, HI, 5000, msg_buf, 4096);

		if (r == -EAGAIN && !(rdsu_sock_poll(tx) & RDSU_POLLOUT))
			break;
		if (r == -EAGAIN)
			continue;
		assert_int_equal(r, 4096);
		sent++;
	}
	assert_false(rdsu_sock_poll(tx) & RDSU_POLLOUT);
	/* The peer reads it all; its TCP acknowledges without us running. */
	read_4k(hi, rx, sent, NULL);
	usleep(50 * 1000); /* let the last ACK land; asserts nothing */
	uint64_t sleeps = tstats(lo).sleeps;

	assert_true(rdsu_tcp_run(lo, 10 * 1000) >= 0);
	assert_true(rdsu_sock_poll(tx) & RDSU_POLLOUT);
	assert_int_equal(tstats(lo).sleeps, sleeps);
	tcp_free(lo);
	tcp_free(hi);
}

/*
 * Regression: a sender that only submits and calls rdsu_tcp_flush (as
 * rdsperf's rr server does, never sleeping in rdsu_tcp_run) was never told
 * its bytes were acknowledged: flush looked at no acknowledgement, so a
 * socket waiting for SNDBUF room waited for ever. The peer's TCP has
 * acknowledged everything; flush alone must make the socket writable.
 */
static void test_flush_sees_acks(void **state)
{
	(void)state;
	struct rdsu_tcp *lo = simple(LO), *hi = simple(HI);
	struct rdsu_sock *tx = sock_at(lo, LO, 4000), *rx = sock_at(hi, HI, 5000);
	struct iovec iov = { .iov_base = msg_buf, .iov_len = 4096 };
	struct rdsu_addr d = addr(HI);
	unsigned sent = 0;

	fill_pair(lo, hi, tx, rx);
	while (rdsu_sock_submit(tx, &d, 5000, &iov, 1, rdsu_clock()) == 4096) {
		assert_int_equal(rdsu_tcp_flush(lo), 0);
		sent++;
	}
	assert_false(rdsu_sock_poll(tx) & RDSU_POLLOUT);
	read_4k(hi, rx, sent, lo);
	/* Only flush, never run: within a second the room must show. */
	for (rdsu_ns end = rdsu_clock() + RDSU_SEC;
	     !(rdsu_sock_poll(tx) & RDSU_POLLOUT) && rdsu_clock() < end;) {
		usleep(1000);
		assert_int_equal(rdsu_tcp_flush(lo), 0);
	}
	assert_true(rdsu_sock_poll(tx) & RDSU_POLLOUT);
	tcp_free(lo);
	tcp_free(hi);
}

/* ------------------------------------------------------------------------
 * The loop and its descriptor
 */

/* Nobody listens on 127.0.0.2: the path reconnects on a backoff of at most
 * 50 ms, and only the descriptor, polled with no timeout of our own that
 * could matter, says when. A descriptor that stayed readable would spin. */
static void test_reconnect_timer_wakes_fd(void **state)
{
	(void)state;
	struct rdsu_ep_cfg c;
	unsigned wakes = 0;

	ep_cfg(&c, LO);
	c.reconnect_max = 50 * RDSU_MSEC;
	struct rdsu_tcp *lo = tcp_new(&c, NULL);
	struct rdsu_sock *tx = sock_at(lo, LO, 4000);
	struct pollfd pf = { .fd = rdsu_tcp_fd(lo), .events = POLLIN };

	assert_int_equal(submit(lo, tx, HI, 5000, "x", 1), 1);
	for (rdsu_ns end = rdsu_clock() + RDSU_SEC; rdsu_clock() < end;) {
		int r = poll(&pf, 1, 2000);

		if (r != 1)
			fail_msg("descriptor not readable for 2 s while a reconnect was due");
		assert_true(rdsu_tcp_run(lo, 0) >= 0);
		wakes++;
	}
	struct rdsu_tcp_stats st = tstats(lo);

	if (st.connects < 10 || st.connect_failed < 10 || wakes > 4 * st.connects + 10)
		fail_msg("%u wakeups for %llu connects (%llu failed)", wakes,
			 (unsigned long long)st.connects, (unsigned long long)st.connect_failed);
	tcp_free(lo);
}

static void test_wait(void **state)
{
	(void)state;
	struct rdsu_tcp *lo = simple(LO);
	struct rdsu_sock *s = sock_at(lo, LO, 4000);
	rdsu_ns t0 = rdsu_clock();

	assert_int_equal(rdsu_tcp_wait(lo, s, RDSU_POLLIN, t0 + 50 * RDSU_MSEC), 0);
	assert_true(rdsu_clock() - t0 >= 50 * RDSU_MSEC);
	assert_true(rdsu_clock() - t0 < 2 * RDSU_SEC);
	assert_int_equal(rdsu_tcp_wait(lo, s, RDSU_POLLOUT | RDSU_POLLIN, RDSU_NS_NEVER), RDSU_POLLOUT);
	tcp_free(lo);
}

/*
 * Direct waits. An endpoint with one link that has just been reading
 * waits in recv() on that link instead of epoll_wait (rdsu_tcp_run). Here
 * the one link is a hand-made smaller peer's that never sends a probe
 * (one path); rdsu_tcp_run(t, 1000) alone must answer its pings.
 */

/* A smaller hand-made peer connected to |t| on 127.0.0.2, the map and the
 * endpoint's probe read. */
static int one_link_peer(struct rdsu_tcp *t)
{
	int k = raw_connect(LO, 0, HI, RDSU_TCP_PORT);
	struct wire_hdr h;

	expect_map(k, t, NULL);
	assert_int_equal(raw_msg(k, &h, NULL, 0, t, NULL), 1);
	assert_int_equal(wire_classify(&h, WIRE_XPORT_TCP), WIRE_KIND_PROBE_PING);
	return k;
}

/* A ping from |k|, read by one rdsu_tcp_run(t, 1000), its pong read back. */
static void ping_pong(int k, struct rdsu_tcp *t, uint64_t seq)
{
	struct wire_hdr h;

	wire_build_ping(&h, seq, 4000);
	raw_send(k, &h, NULL);
	assert_true(rdsu_tcp_run(t, 1000) >= 0);
	do
		assert_int_equal(raw_msg(k, &h, NULL, 0, t, NULL), 1);
	while (wire_classify(&h, WIRE_XPORT_TCP) != WIRE_KIND_PONG);
	assert_int_equal(h.dport, 4000);
}

/* Pings until one was read by a direct wait: the link must have read
 * twice within the wait's bound first, and no core deadline be nearer.
 * Return: the next ping's seq. */
static uint64_t heat(int k, struct rdsu_tcp *t, uint64_t seq)
{
	for (rdsu_ns end = rdsu_clock() + 5 * RDSU_SEC; rdsu_clock() < end;) {
		struct rdsu_tcp_stats a = tstats(t), b;

		ping_pong(k, t, seq++);
		b = tstats(t);
		if (b.direct_waits == a.direct_waits + 1 && b.direct_timeouts == a.direct_timeouts)
			return seq;
	}
	fail_msg("pings on the only link for 5 s, none read by a direct wait");
	return seq;
}

/* The pings are answered without epoll_wait; a new connection that comes
 * while the wait blocks on the link is accepted in the same round once
 * the direct wait's bound passes (here it is held: slot 0 is taken), and
 * with two links every wait goes through epoll again. */
static void test_direct_wait(void **state)
{
	(void)state;
	struct rdsu_tcp *hi = simple(HI);
	int k = one_link_peer(hi), k2 = -1;
	uint64_t seq = heat(k, hi, 1);
	struct rdsu_tcp_stats a, b;

	for (unsigned i = 0; i < 50 && k2 < 0; i++) {
		seq = heat(k, hi, seq);
		assert_true(rdsu_tcp_run(hi, 0) >= 0);  /* the epoll round a direct wait follows */
		k2 = raw_connect(LO, 0, HI, RDSU_TCP_PORT);
		a = tstats(hi);
		assert_true(rdsu_tcp_run(hi, 1000) >= 0);
		b = tstats(hi);
		if (b.direct_timeouts == a.direct_timeouts + 1) {
			/* The direct wait gave up; epoll found the connection. */
			assert_int_equal(b.accepts, a.accepts + 1);
			assert_int_equal(held_links(hi, HI, LO), 1);
			break;
		}
		/* No direct wait this time (a deadline was near): again. */
		fd_close(k2);
		k2 = -1;
		WAIT_UNTIL(tstats(hi).links_up == 1, 5, hi, NULL);
	}
	if (k2 < 0)
		fail_msg("no direct wait gave way to a new connection in 50 tries");
	a = tstats(hi);
	for (unsigned i = 0; i < 20; i++)
		ping_pong(k, hi, seq++);
	b = tstats(hi);
	assert_int_equal(b.direct_waits, a.direct_waits);
	fd_close(k2);
	fd_close(k);
	tcp_free(hi);
}

/* A core timer (here the reconnect of a path to 127.0.0.3, where nobody
 * listens) still ends a wait that began on the only link: the direct wait
 * finds nothing and gives way to epoll, where the timerfd wakes it. A
 * direct wait without its bound would block until the caller's timeout,
 * 10 s each round. */
static void test_direct_wait_timer(void **state)
{
	(void)state;
	struct rdsu_ep_cfg c;

	ep_cfg(&c, HI);
	c.reconnect_min = 200 * RDSU_MSEC;
	c.reconnect_max = 200 * RDSU_MSEC;
	struct rdsu_tcp *hi = tcp_new(&c, NULL);
	struct rdsu_sock *tx = sock_at(hi, HI, 4000);
	int k = one_link_peer(hi);
	uint64_t seq = 1;

	assert_int_equal(submit(hi, tx, "127.0.0.3", 5000, "x", 1), 1);
	for (unsigned i = 0; i < 100; i++) {
		struct rdsu_tcp_stats a;

		seq = heat(k, hi, seq);
		a = tstats(hi);
		assert_true(rdsu_tcp_run(hi, 10 * 1000) >= 0);
		if (tstats(hi).direct_timeouts != a.direct_timeouts + 1)
			continue;  /* the reconnect was due too soon for a direct wait */
		rdsu_ns end = rdsu_clock() + 5 * RDSU_SEC;

		while (tstats(hi).connects == a.connects) {
			if (rdsu_clock() > end)
				fail_msg("the reconnect timer did not end a wait in 5 s");
			assert_true(rdsu_tcp_run(hi, 10 * 1000) >= 0);
		}
		fd_close(k);
		tcp_free(hi);
		return;
	}
	fail_msg("no direct wait in 100 tries");
}

/* ------------------------------------------------------------------------
 * Ring waits: with several links, a wait on the hot link's recv and the
 * epoll set together (io_uring). lo and hi have 8 paths; sockets on ports
 * of the same path (rdsu_mprds_hash) keep a ping-pong on one link.
 */

struct ring_pair {
	struct rdsu_tcp *lo, *hi;
	struct rdsu_sock *sl, *sh, *other;  /* other: lo's socket on another path */
	uint16_t pl, ph;
	uint32_t seq;
};

/* An endpoint at |a| that may wait through the ring (ring_wait). */
static struct rdsu_tcp *ring_tcp(const char *a, const struct rdsu_ep_cfg *c)
{
	struct rdsu_tcp_cfg tc;
	struct rdsu_ep_cfg d;

	if (!c) {
		ep_cfg(&d, a);
		c = &d;
	}
	rdsu_tcp_cfg_default(&tc);
	tc.ring_wait = true;
	return tcp_new(c, &tc);
}

static void ring_pair_of(struct ring_pair *rp, struct rdsu_tcp *lo, struct rdsu_tcp *hi)
{
	memset(rp, 0, sizeof(*rp));
	rp->lo = lo;
	rp->hi = hi;
	rp->pl = port_on_path(3, 4000);
	rp->ph = port_on_path(3, 5000);
	rp->sl = sock_at(rp->lo, LO, rp->pl);
	rp->sh = sock_at(rp->hi, HI, rp->ph);
	rp->other = sock_at(rp->lo, LO, port_on_path(5, 6000));
	assert_int_equal(submit(rp->lo, rp->sl, HI, rp->ph, "x", 1), 1);
	WAIT_UNTIL(paths_up(rp->lo, LO, HI, 8) && paths_up(rp->hi, HI, LO, 8), 10, rp->lo, rp->hi);
	WAIT_UNTIL(sock_read(rp->sh, (uint8_t[8]){ 0 }, 8, NULL) == 1, 5, rp->lo, rp->hi);
	/* The first messages on path 3 wait for "x" to be acknowledged on
	 * path 0 (the fence of a socket's move): both ends run until then. */
	assert_int_equal(submit(rp->lo, rp->sl, HI, rp->ph, "y", 1), 1);
	assert_int_equal(submit(rp->hi, rp->sh, LO, rp->pl, "z", 1), 1);
	WAIT_UNTIL(sock_read(rp->sh, (uint8_t[8]){ 0 }, 8, NULL) == 1, 5, rp->lo, rp->hi);
	WAIT_UNTIL(sock_read(rp->sl, (uint8_t[8]){ 0 }, 8, NULL) == 1, 5, rp->lo, rp->hi);
}

/* Both ends with ring_wait; |hi| made by the caller if not NULL. */
static void ring_pair(struct ring_pair *rp, struct rdsu_tcp *hi)
{
	ring_pair_of(rp, ring_tcp(LO, NULL), hi ? hi : ring_tcp(HI, NULL));
}

/* |seq| from |sa| of |a| to port |dport| of |b|, read from |sb| after as
 * many rdsu_tcp_run(b, 1000) as it takes. */
static void hop(struct rdsu_tcp *a, struct rdsu_sock *sa, const char *to, uint16_t dport,
		struct rdsu_tcp *b, struct rdsu_sock *sb, uint32_t seq)
{
	uint32_t got = 0;
	struct rdsu_rxinfo info;

	assert_int_equal(submit(a, sa, to, dport, &seq, sizeof(seq)), (int)sizeof(seq));
	for (unsigned i = 0;; i++) {
		ssize_t r = sock_read(sb, &got, sizeof(got), &info);

		if (r == (ssize_t)sizeof(got)) {
			assert_int_equal(got, seq);
			return;
		}
		assert_int_equal(r, -EAGAIN);
		if (i == 100)
			fail_msg("message %u not delivered in 100 waits", seq);
		assert_true(rdsu_tcp_run(b, 1000) >= 0);
	}
}

static void ring_round(struct ring_pair *rp)
{
	hop(rp->lo, rp->sl, HI, rp->ph, rp->hi, rp->sh, ++rp->seq);
	hop(rp->hi, rp->sh, LO, rp->pl, rp->lo, rp->sl, ++rp->seq);
}

static void skip_without_ring(struct rdsu_tcp *t)
{
	if (tstats(t).ring_unavailable) {
		print_message("io_uring cannot be used here (not built in or not allowed): skipped\n");
		skip();
	}
}

/* Rounds until the next wait of hi is a ring wait: hi's link read twice
 * within RING_HOT. Return: hi's stats just before that wait. */
static struct rdsu_tcp_stats ring_heat(struct ring_pair *rp)
{
	for (unsigned i = 0; i < 3; i++)
		ring_round(rp);
	/* The last hop of a round is lo's: one more to hi, unanswered. */
	hop(rp->lo, rp->sl, HI, rp->ph, rp->hi, rp->sh, ++rp->seq);
	return tstats(rp->hi);
}

/* Without ring_wait (the default: a caller may poll rdsu_tcp_fd) the
 * same ping-pong never waits through the ring. */
static void test_ring_needs_opt_in(void **state)
{
	(void)state;
	struct ring_pair rp;

	ring_pair_of(&rp, simple(LO), simple(HI));
	for (unsigned i = 0; i < 50; i++)
		ring_round(&rp);
	assert_int_equal(tstats(rp.lo).ring_waits, 0);
	assert_int_equal(tstats(rp.hi).ring_waits, 0);
	tcp_free(rp.lo);
	tcp_free(rp.hi);
}

/* Every message of a ping-pong on one of 8 links arrives, in order, and
 * both ends read by ring waits. */
static void test_ring_pingpong(void **state)
{
	(void)state;
	struct ring_pair rp;

	ring_pair(&rp, NULL);
	for (unsigned i = 0; i < 200; i++)
		ring_round(&rp);
	skip_without_ring(rp.hi);
	struct rdsu_tcp_stats l = tstats(rp.lo), h = tstats(rp.hi);

	if (l.ring_recvs < 100 || h.ring_recvs < 100)
		fail_msg("ring recvs: lo %llu, hi %llu of 200 messages each",
			 (unsigned long long)l.ring_recvs, (unsigned long long)h.ring_recvs);
	tcp_free(rp.lo);
	tcp_free(rp.hi);
}

/* One rdsu_tcp_run(hi, 10 s), a ring wait on the hot link, ends for a
 * message on another link (the epoll set's poll completes) and reads it;
 * the hot link's recv stays armed. Return: hi's stats before that run. */
static struct rdsu_tcp_stats ring_other_link(struct ring_pair *rp)
{
	for (unsigned tries = 0; tries < 50; tries++) {
		struct rdsu_tcp_stats a = ring_heat(rp), b;
		uint32_t seq = ++rp->seq, got = 0;

		assert_int_equal(submit(rp->lo, rp->other, HI, rp->ph, &seq, sizeof(seq)), 4);
		assert_true(rdsu_tcp_run(rp->hi, 10 * 1000) >= 1);
		b = tstats(rp->hi);
		if (b.ring_waits != a.ring_waits + 1) {
			/* Not hot in time (a slow round): read it, again. */
			WAIT_UNTIL(sock_read(rp->sh, &got, sizeof(got), NULL) == 4, 5, rp->lo, rp->hi);
			continue;
		}
		assert_int_equal(b.ring_polls, a.ring_polls + 1);
		assert_int_equal(b.ring_recvs, a.ring_recvs);
		assert_int_equal(sock_read(rp->sh, &got, sizeof(got), NULL), 4);
		assert_int_equal(got, seq);
		assert_int_equal(b.ring_armed, 1);
		return a;
	}
	fail_msg("no ring wait in 50 tries");
	return tstats(rp->hi);
}

static void test_ring_other_link(void **state)
{
	(void)state;
	struct ring_pair rp;

	ring_pair(&rp, NULL);
	(void)ring_heat(&rp);
	skip_without_ring(rp.hi);
	(void)ring_other_link(&rp);
	/* And the ping-pong goes on. */
	for (unsigned i = 0; i < 20; i++)
		ring_round(&rp);
	tcp_free(rp.lo);
	tcp_free(rp.hi);
}

/* One flow alone on an endpoint of 8 links: once the other links have
 * been quiet for DIRECT_QUIET (500 ms), its waits are direct recv()s,
 * which cost less than ring waits; a message on another link still
 * arrives (the direct wait is bounded, and an epoll round comes at least
 * every bound), and makes the next waits ring waits again. Counts only. */
static void test_direct_wait_quiet_others(void **state)
{
	(void)state;
	struct ring_pair rp;
	struct rdsu_tcp_stats a, b;
	uint32_t seq, got = 0;

	ring_pair(&rp, NULL);
	(void)ring_heat(&rp);
	skip_without_ring(rp.hi);
	usleep(600 * 1000); /* the others quiet; asserts nothing */
	for (unsigned i = 0; i < 5; i++)
		ring_round(&rp);
	a = tstats(rp.hi);
	for (unsigned i = 0; i < 50; i++)
		ring_round(&rp);
	b = tstats(rp.hi);
	if (b.direct_waits < a.direct_waits + 25)
		fail_msg("direct waits %llu, ring waits %llu in 50 rounds",
			 (unsigned long long)(b.direct_waits - a.direct_waits),
			 (unsigned long long)(b.ring_waits - a.ring_waits));
	seq = ++rp.seq;
	assert_int_equal(submit(rp.lo, rp.other, HI, rp.ph, &seq, sizeof(seq)), 4);
	WAIT_UNTIL(sock_read(rp.sh, &got, sizeof(got), NULL) == 4, 5, rp.lo, rp.hi);
	assert_int_equal(got, seq);
	a = tstats(rp.hi);
	for (unsigned i = 0; i < 50; i++)
		ring_round(&rp);
	b = tstats(rp.hi);
	if (b.ring_waits < a.ring_waits + 25)
		fail_msg("after the other link: ring waits %llu, direct waits %llu in 50 rounds",
			 (unsigned long long)(b.ring_waits - a.ring_waits),
			 (unsigned long long)(b.direct_waits - a.direct_waits));
	tcp_free(rp.lo);
	tcp_free(rp.hi);
}

/* A core timer (the reconnect of a path to 127.0.0.3, where nobody
 * listens) and a new connection end a ring wait: the timerfd and the
 * listener are in the polled epoll set. Without the poll, each would wait
 * for the caller's 10 s. */
static void test_ring_wait_timer_accept(void **state)
{
	(void)state;
	struct rdsu_ep_cfg c;
	struct ring_pair rp;
	bool timer = false, accept = false;

	ep_cfg(&c, HI);
	c.reconnect_min = 200 * RDSU_MSEC;
	c.reconnect_max = 200 * RDSU_MSEC;
	ring_pair(&rp, ring_tcp(HI, &c));
	(void)ring_heat(&rp);
	skip_without_ring(rp.hi);
	assert_int_equal(submit(rp.hi, rp.sh, "127.0.0.3", 5000, "x", 1), 1);
	for (unsigned tries = 0; tries < 100 && !(timer && accept); tries++) {
		struct rdsu_tcp_stats a = ring_heat(&rp), b;
		int k = -1;

		if (timer)
			k = raw_connect(LO, 0, HI, RDSU_TCP_PORT);
		assert_true(rdsu_tcp_run(rp.hi, 10 * 1000) >= 1);
		b = tstats(rp.hi);
		if (b.ring_waits == a.ring_waits + 1 && b.ring_polls == a.ring_polls + 1) {
			if (k >= 0)
				accept = b.accepts == a.accepts + 1;
			else
				timer = b.connects > a.connects;
		}
		if (k >= 0)
			fd_close(k);
	}
	if (!timer || !accept)
		fail_msg("ring waits ended by the reconnect timer: %s, by a connection: %s",
			 timer ? "yes" : "no", accept ? "yes" : "no");
	tcp_free(rp.lo);
	tcp_free(rp.hi);
}

/* An endpoint freed while a recv is armed on its hot link closes that
 * connection too (io_uring holds the socket until the recv is cancelled):
 * the peer sees all 8 links go down. LeakSanitizer checks the rest. */
static void test_ring_free_armed(void **state)
{
	(void)state;
	struct ring_pair rp;
	int fds = fd_count();

	ring_pair(&rp, NULL);
	(void)ring_heat(&rp);
	skip_without_ring(rp.hi);
	struct rdsu_tcp_stats a = ring_other_link(&rp);
	uint64_t down = tstats(rp.lo).links_down;

	(void)a;
	assert_int_equal(tstats(rp.hi).ring_armed, 1);
	tcp_free(rp.hi);
	WAIT_UNTIL(tstats(rp.lo).links_down >= down + 8, 5, rp.lo, NULL);
	tcp_free(rp.lo);
	assert_int_equal(fd_count(), fds);
}

/* ------------------------------------------------------------------------
 * Held links and the orderly close
 */

/* Count unknown and slot 0 taken: a second connection is held, unread.
 * When slot 0 frees, it is attached and what arrived meanwhile is read:
 * here a ping, answered on it. */
static void test_held_then_attached(void **state)
{
	(void)state;
	struct rdsu_tcp *hi = simple(HI);
	struct rdsu_conn_info ci;
	struct wire_hdr h;
	int a = raw_connect(LO, 0, HI, RDSU_TCP_PORT), b;
	bool pong = false;

	WAIT_UNTIL(path0_up(hi), 5, hi, NULL);
	b = raw_connect(LO, 0, HI, RDSU_TCP_PORT);
	WAIT_UNTIL(held_links(hi, HI, LO) == 1, 5, hi, NULL);
	assert_int_equal(ep_stat(hi, RDSU_STAT_ACCEPT_HELD), 1);
	wire_build_ping(&h, 1, 4000);
	raw_send(b, &h, NULL);
	pump(hi, NULL, 50);
	fd_close(a);
	for (int i = 0; i < 10 && !pong; i++) {
		assert_int_equal(raw_msg(b, &h, NULL, 0, hi, NULL), 1);
		pong = wire_classify(&h, WIRE_XPORT_TCP) == WIRE_KIND_PONG && h.dport == 4000;
	}
	assert_true(pong);
	assert_true(conn_of(hi, HI, LO, &ci));
	assert_int_equal(ci.held_links, 0);
	assert_int_equal(ci.path[0].peer_sport, local_port(b));
	fd_close(b);
	tcp_free(hi);
}

/*
 * The orderly close (7.x rds_tcp_conn_path_shutdown): our FIN goes out,
 * late bytes from the peer are read and dropped without an RST, and the
 * socket is closed when the drain time is over (the descriptor wakes for
 * that too). The core asks for one when SPORT_IDX shows that slot 0 holds
 * another path's connection. Here the count comes first from a 6.x probe
 * on connection A (slot 0, source port % 8 == 1), B takes slot 1, and B's
 * 7.x probe brings SPORT_IDX: A is closed that way.
 */
static void test_drain(void **state)
{
	(void)state;
	struct rdsu_ep_cfg c;
	struct rdsu_tcp_cfg tc;
	struct rdsu_conn_info ci;
	struct wire_hdr h;
	unsigned wakes = 0;
	int r, err = 0;
	socklen_t elen = sizeof(err);
	char x;

	ep_cfg(&c, HI);
	rdsu_tcp_cfg_default(&tc);
	tc.drain = 300 * RDSU_MSEC;
	struct rdsu_tcp *hi = tcp_new(&c, &tc);
	int a = raw_connect_res(LO, 1, HI), b;

	expect_map(a, hi, NULL);
	wire_build_probe(&h, false, 1, WIRE_KVER_6, 8, 0);
	raw_send(a, &h, NULL);
	WAIT_UNTIL(conn_of(hi, HI, LO, &ci) && ci.npaths == 8, 5, hi, NULL);
	b = raw_connect_res(LO, 2, HI);
	WAIT_UNTIL(conn_of(hi, HI, LO, &ci) && ci.path[1].state == RDSU_PATH_UP, 5, hi, NULL);
	assert_int_equal(ci.path[1].peer_sport, local_port(b));
	wire_build_probe(&h, false, 1, WIRE_KVER_7, 8, 0x1234);
	raw_send(b, &h, NULL);
	/* A: what was queued on it, then our end of the stream. */
	while ((r = raw_msg(a, &h, NULL, 0, hi, NULL)) == 1)
		;
	assert_int_equal(r, 0);
	rdsu_ns fin = rdsu_clock();

	assert_int_equal(tstats(hi).draining, 1);
	assert_int_equal(tstats(hi).resets_sent, 0);
	wire_build_ping(&h, 2, 4000);
	raw_send(a, &h, NULL);
	pump(hi, NULL, 100);
	assert_int_equal(getsockopt(a, SOL_SOCKET, SO_ERROR, &err, &elen), 0);
	assert_int_equal(err, 0);
	assert_int_equal(recv(a, &x, 1, MSG_DONTWAIT), 0);
	while (tstats(hi).draining && rdsu_clock() - fin < 2 * RDSU_SEC) {
		struct pollfd pf = { .fd = rdsu_tcp_fd(hi), .events = POLLIN };

		if (poll(&pf, 1, 1000) == 1)
			wakes++;
		assert_true(rdsu_tcp_run(hi, 0) >= 0);
	}
	assert_int_equal(tstats(hi).draining, 0);
	assert_true(rdsu_clock() - fin >= 250 * RDSU_MSEC);
	assert_true(wakes < 20);
	/* Gone: what we send now draws the RST (in CLOSE_WAIT it reads as EPIPE). */
	(void)send(a, "late", 4, MSG_NOSIGNAL);
	WAIT_UNTIL(getsockopt(a, SOL_SOCKET, SO_ERROR, &err, &elen) == 0 &&
		   (err == EPIPE || err == ECONNRESET), 2, hi, NULL);
	fd_close(a);
	fd_close(b);
	tcp_free(hi);
}

/* ------------------------------------------------------------------------
 * Freeing
 */

/* Eight paths busy both ways, messages half written, received but unread,
 * waiting for acknowledgement, and a held link: free both endpoints.
 * Every descriptor is closed; LeakSanitizer checks the memory at exit. */
static void test_free_busy(void **state)
{
	(void)state;
	int fds = fd_count();
	struct rdsu_tcp *lo = simple(LO), *hi = simple(HI);
	struct rdsu_sock *rxl = sock_at(lo, LO, 5000), *rxh = sock_at(hi, HI, 5000);
	static uint8_t msg[256 * 1024];

	assert_int_equal(rdsu_sock_set_rcvbuf(rxl, 64u << 20, rdsu_clock()), 0);
	assert_int_equal(rdsu_sock_set_rcvbuf(rxh, 64u << 20, rdsu_clock()), 0);
	for (unsigned p = 0; p < 8; p++) {
		struct rdsu_sock *tl = sock_at(lo, LO, port_on_path(p, (uint16_t)(4000 + 100 * p)));
		struct rdsu_sock *th = sock_at(hi, HI, port_on_path(p, (uint16_t)(4000 + 100 * p)));

		assert_int_equal(rdsu_sock_set_sndbuf(tl, 1u << 20, rdsu_clock()), 0);
		assert_int_equal(rdsu_sock_set_sndbuf(th, 1u << 20, rdsu_clock()), 0);
		for (int i = 0; i < 3; i++) {
			int r1 = submit(lo, tl, HI, 5000, msg, sizeof(msg));
			int r2 = submit(hi, th, LO, 5000, msg, 1000);

			if (r1 != (int)sizeof(msg) || r2 != 1000)
				fail_msg("path %u: submit %s / %s", p, rdsu_strerror(r1), rdsu_strerror(r2));
		}
	}
	WAIT_UNTIL(paths_up(lo, LO, HI, 8) && paths_up(hi, HI, LO, 8), 10, lo, hi);
	int k = raw_connect(LO, 0, HI, RDSU_TCP_PORT);

	WAIT_UNTIL(held_links(hi, HI, LO) == 1, 5, lo, hi);
	pump(lo, hi, 1);
	tcp_free(lo);
	tcp_free(hi);
	fd_close(k);
	assert_int_equal(fd_count(), fds);
}

/* ------------------------------------------------------------------------
 * Defects once found in tcp.c (each failed before its fix)
 */

/*
 * A held link whose peer sent a message and then reset the connection.
 * EPOLLERR|EPOLLHUP are reported whatever the interest, level-triggered:
 * a dead link left in the epoll set makes every wait return at once (the
 * loop spun once, tcp.c on_event). And the peer took that connection for
 * its path and TCP acknowledged the message, so it was freed there: the
 * message must reach the core when the slot frees and the link is
 * attached (tcp.c held_end; it was dropped with the link). A held link
 * reset with nothing unread is let go at once.
 */
static unsigned wakes_while(struct rdsu_tcp *t, rdsu_ns ms)
{
	unsigned wakes = 0;

	for (rdsu_ns end = rdsu_clock() + ms * RDSU_MSEC; rdsu_clock() < end;) {
		struct pollfd pf = { .fd = rdsu_tcp_fd(t), .events = POLLIN };

		if (poll(&pf, 1, 100) == 1)
			wakes++;
		assert_true(rdsu_tcp_run(t, 0) >= 0);
	}
	return wakes;
}

static void test_held_link_reset(void **state)
{
	(void)state;
	struct rdsu_tcp *hi = simple(HI);
	struct rdsu_sock *rx = sock_at(hi, HI, 5000);
	struct rdsu_rxinfo info;
	struct wire_hdr h;
	char buf[16];
	int a = raw_connect(LO, 0, HI, RDSU_TCP_PORT), b;
	unsigned wakes;

	WAIT_UNTIL(path0_up(hi), 5, hi, NULL);
	/* Nothing unread: let go. */
	b = raw_connect(LO, 0, HI, RDSU_TCP_PORT);
	WAIT_UNTIL(held_links(hi, HI, LO) == 1, 5, hi, NULL);
	raw_reset(b);
	WAIT_UNTIL(held_links(hi, HI, LO) == 0, 5, hi, NULL);
	/* A message unread: kept, quietly, for the slot. */
	b = raw_connect(LO, 0, HI, RDSU_TCP_PORT);
	WAIT_UNTIL(held_links(hi, HI, LO) == 1, 5, hi, NULL);
	wire_build_data(&h, 1, 7000, 5000, 5);
	raw_send(b, &h, "hello");
	pump(hi, NULL, 20);
	raw_reset(b);
	wakes = wakes_while(hi, 500);
	if (wakes > 20)
		fail_msg("reset held link: %u wakeups in 0.5 s (tcp.c on_event, TL_HELD with "
			 "EPOLLERR|EPOLLHUP and unread bytes)", wakes);
	assert_int_equal(held_links(hi, HI, LO), 1);
	assert_int_equal(tstats(hi).held_kept, 1);
	/* The slot's connection ends: the kept link takes the slot, gives
	 * its message and is reported down. */
	raw_reset(a);
	WAIT_UNTIL(held_links(hi, HI, LO) == 0 && sock_read(rx, buf, sizeof(buf), &info) == 5, 5,
		   hi, NULL);
	assert_memory_equal(buf, "hello", 5);
	tcp_free(hi);
}

/*
 * A peer that reconnects its path again and again while we do not run:
 * each connection carries messages (TCP acknowledged them) and is reset
 * before the next is made, so when we run, our accept queue holds a
 * dozen connections of one path, each already ended but the last. Each
 * old one must give its bytes and its slot before the next is filed;
 * filed first, they were held behind a slot still draining until the
 * stash was full, and the rest were refused with their messages
 * (tcp_listen.c settle_peer; loop-kill under two CPU hogs lost 170 to
 * 420 per port).
 */
#define PILE_GENS 13
#define PILE_MSGS 3

static void test_reconnects_piled_in_backlog(void **state)
{
	(void)state;
	struct rdsu_tcp *hi = simple(HI);
	struct rdsu_sock *rx = sock_at(hi, HI, 5000);
	struct rdsu_conn_info ci;
	struct rdsu_rxinfo info;
	struct wire_hdr h;
	uint32_t v, got = 0;
	int k[PILE_GENS];

	k[0] = raw_connect_res(LO, 0, HI);
	WAIT_UNTIL(path0_up(hi), 5, hi, NULL);
	for (unsigned g = 0; g < PILE_GENS; g++) {
		if (g)
			k[g] = raw_connect_res(LO, 0, HI);
		for (uint32_t i = 0; i < PILE_MSGS; i++) {
			v = g * PILE_MSGS + i;
			wire_build_data(&h, v + 1, 7000, 5000, sizeof(v));
			raw_send(k[g], &h, &v);
		}
		if (g + 1 < PILE_GENS)
			raw_reset(k[g]);
	}
	usleep(20000);
	for (rdsu_ns end = rdsu_clock() + 10 * RDSU_SEC;
	     got < PILE_GENS * PILE_MSGS && rdsu_clock() < end;) {
		pump(hi, NULL, 10);
		while (sock_read(rx, &v, sizeof(v), &info) == sizeof(v)) {
			if (v != got)
				fail_msg("message %u, expected %u", v, got);
			got++;
		}
	}
	if (got != PILE_GENS * PILE_MSGS)
		fail_msg("%u of %u messages (held %llu, refused %llu)", got,
			 PILE_GENS * PILE_MSGS,
			 (unsigned long long)ep_stat(hi, RDSU_STAT_ACCEPT_HELD),
			 (unsigned long long)ep_stat(hi, RDSU_STAT_LIMIT_PEER_LINKS));
	assert_true(conn_of(hi, HI, LO, &ci));
	assert_int_equal(ci.path[0].peer_sport, local_port(k[PILE_GENS - 1]));
	fd_close(k[PILE_GENS - 1]);
	tcp_free(hi);
}

/*
 * The same re-sync when the probe that brings SPORT_IDX arrives on slot 0's
 * own connection (a peer whose first connection came from a port that
 * says another path): rdsu_link_input() queues the orderly CLOSE and
 * returns RDSU_ERR_CLOSED for the rest of the bytes; feed() (tcp.c) then
 * closes the socket at once (link_close), so the CLOSE request finds no
 * link and the drain never happens: no FIN-then-drain, and any unread
 * bytes turn the close into an RST.
 */
static void test_resync_close_drains(void **state)
{
	(void)state;
	struct rdsu_ep_cfg c;
	struct rdsu_tcp_cfg tc;
	struct wire_hdr h;
	int r;

	ep_cfg(&c, HI);
	rdsu_tcp_cfg_default(&tc);
	tc.drain = 300 * RDSU_MSEC;
	struct rdsu_tcp *hi = tcp_new(&c, &tc);
	int a = raw_connect_res(LO, 1, HI);

	expect_map(a, hi, NULL);
	wire_build_probe(&h, false, 1, WIRE_KVER_7, 8, 0x1234);
	raw_send(a, &h, NULL);
	while ((r = raw_msg(a, &h, NULL, 0, hi, NULL)) == 1)
		;
	assert_int_equal(r, 0);
	if (tstats(hi).draining != 1)
		fail_msg("slot 0 re-synced by a probe on its own connection: closed at once, "
			 "not drained (tcp.c feed(), RDSU_ERR_CLOSED after a queued CLOSE)");
	fd_close(a);
	tcp_free(hi);
}

/*
 * Bytes TCP has acknowledged must reach the core, even when the
 * connection is found dead by a send() before they were read: the peer
 * freed those messages on the acknowledgement and will not resend them.
 * output() (tcp.c, the "lost:" path after wr() fails) reports the link
 * down and closes it with the received bytes still unread: the message is
 * lost. (loop.py killboth loses messages this way under ss -K.)
 */
static void test_acked_input_survives_send_error(void **state)
{
	(void)state;
	struct rdsu_tcp *hi = simple(HI);
	struct rdsu_sock *rx = sock_at(hi, HI, 5000), *tx = sock_at(hi, HI, 6000);
	struct rdsu_rxinfo info;
	struct wire_hdr h;
	char buf[16];
	int k = raw_connect_res(LO, 0, HI);  /* a port naming path 0: data may flow */

	expect_map(k, hi, NULL);
	assert_int_equal(raw_msg(k, &h, NULL, 0, hi, NULL), 1);  /* the acceptor's probe */
	/* A message, acknowledged by TCP, then a reset; the stack has not run. */
	wire_build_data(&h, 1, 7000, 5000, 5);
	raw_send(k, &h, "hello");
	usleep(20000);
	raw_reset(k);
	usleep(20000);
	/* Our next send finds the connection dead before anything reads it. */
	assert_int_equal(submit(hi, tx, LO, 7000, "x", 1), 1);
	for (int i = 0; i < 10; i++)
		pump(hi, NULL, 10);
	if (sock_read(rx, buf, sizeof(buf), &info) != 5)
		fail_msg("a message TCP acknowledged was never delivered (recv_queued %llu; "
			 "tcp.c output(): link lost on a send() error before reading)",
			 (unsigned long long)ep_stat(hi, RDSU_STAT_RECV_QUEUED));
	assert_memory_equal(buf, "hello", 5);
	tcp_free(hi);
}

/*
 * The same for a connection of ours that the acceptor wrote on and reset
 * before our connect completion was looked at: SO_ERROR says ECONNRESET,
 * but TCP acknowledged the acceptor's bytes, so they must be read.
 * connect_done() (tcp.c) took such a connection for a failed connect and
 * closed it unread (loop.py killboth under load: a 7.x-mode acceptor's
 * resends on a new path lost, seen in a capture as an RST from the
 * connecting side acknowledging everything it never read).
 */
static void test_acked_input_survives_late_connect(void **state)
{
	(void)state;
	struct rdsu_tcp *lo = simple(LO);
	struct rdsu_sock *rx = sock_at(lo, LO, 5000), *tx = sock_at(lo, LO, 6000);
	struct rdsu_addr to = addr(HI);
	struct iovec iov = { .iov_base = "x", .iov_len = 1 };
	struct rdsu_rxinfo info;
	struct wire_hdr h;
	char buf[16];
	int ls = raw_listen(HI, RDSU_TCP_PORT), k = -1;

	/* The connect goes out; its completion is not looked at yet. */
	assert_int_equal(rdsu_sock_submit(tx, &to, 7000, &iov, 1, rdsu_clock()), 1);
	assert_int_equal(rdsu_tcp_flush(lo), 0);
	for (int i = 0; i < 200 && k < 0; i++) {
		k = accept(ls, NULL, NULL);
		if (k < 0)
			usleep(5000);
	}
	assert_true(k >= 0);
	track_fd(k);
	wire_build_data(&h, 1, 7000, 5000, 5);
	raw_send(k, &h, "hello");
	usleep(20000);
	raw_reset(k);
	usleep(20000);
	for (int i = 0; i < 10; i++)
		pump(lo, NULL, 10);
	if (sock_read(rx, buf, sizeof(buf), &info) != 5)
		fail_msg("a message TCP acknowledged on a connection reset before its connect "
			 "completion was seen was never delivered (tcp.c connect_done())");
	assert_memory_equal(buf, "hello", 5);
	assert_int_equal(tstats(lo).connect_late_reset, 1);
	fd_close(ls);
	tcp_free(lo);
}

/*
 * The fan-out fence. Messages a socket sent on path 0 before the path count
 * was known, acknowledged by TCP but not yet read by the peer, must not be
 * overtaken by its next message on its own path: the peer may read that
 * connection first (seen on loopback with a 550 KB message on path 0).
 * Paths above 0 wait for the pong to a probe ping queued behind them.
 */
static void test_fanout_fence(void **state)
{
	(void)state;
	struct rdsu_tcp *hi = simple(HI);
	uint16_t port = 4000;
	struct wire_hdr h;
	uint8_t pl[8];
	unsigned pings = 0;
	int r;

	while (rdsu_mprds_hash(port, 0, 8) != 1)
		port++;
	struct rdsu_sock *tx = sock_at(hi, HI, port);
	int k0 = raw_connect_res(LO, 0, HI);

	raw_hello(k0);
	expect_map(k0, hi, NULL);
	assert_int_equal(raw_msg(k0, &h, NULL, 0, hi, NULL), 1);
	assert_int_equal(wire_classify(&h, WIRE_XPORT_TCP), WIRE_KIND_PROBE_PING);
	pings++;
	/* Count unknown: path 0. Read here, so TCP has acknowledged them. */
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(submit(hi, tx, LO, 5000, "early", 5), 5);
		assert_int_equal(raw_msg(k0, &h, pl, sizeof(pl), hi, NULL), 1);
		assert_int_equal(wire_classify(&h, WIRE_XPORT_TCP), WIRE_KIND_DATA);
	}
	/* The peer's probe: 8 paths, 7.x source port encoding. */
	wire_build_probe(&h, false, 1, WIRE_KVER_7, 8, 0x1234);
	raw_send(k0, &h, NULL);
	int k1 = raw_connect_res(LO, 1, HI);

	raw_hello(k1);
	expect_map(k1, hi, NULL);
	assert_int_equal(submit(hi, tx, LO, 5000, "later", 5), 5);
	/* Until the pongs: the probe's pong and the fence's ping on path 0,
	 * nothing on path 1. */
	while ((r = raw_msg(k0, &h, NULL, 0, hi, NULL)) == 1) {
		if (wire_classify(&h, WIRE_XPORT_TCP) == WIRE_KIND_PROBE_PING)
			pings++;
		if (pings == 2)
			break;
	}
	assert_int_equal(r, 1);
	for (int i = 0; i < 20; i++)
		pump(hi, NULL, 5);
	assert_int_equal(recv(k1, pl, 1, MSG_DONTWAIT | MSG_PEEK), -1);
	/* Answer both pings: "later" goes on path 1. */
	for (unsigned i = 0; i < pings; i++) {
		wire_build_probe(&h, true, 2 + i, WIRE_KVER_7, 8, 0x1234);
		raw_send(k0, &h, NULL);
	}
	assert_int_equal(raw_msg(k1, &h, pl, sizeof(pl), hi, NULL), 1);
	assert_int_equal(h.len, 5);
	assert_memory_equal(pl, "later", 5);
	fd_close(k1);
	fd_close(k0);
	tcp_free(hi);
}

int main(void)
{
	const struct CMUnitTest transport[] = {
		cmocka_unit_test_teardown(test_new_errors, teardown),
		cmocka_unit_test_teardown(test_ipv6, teardown),
		cmocka_unit_test_teardown(test_sport_encodes_path, teardown),
		cmocka_unit_test_teardown(test_kick, teardown),
		cmocka_unit_test_teardown(test_larger_peer_refused, teardown),
		cmocka_unit_test_teardown(test_smaller_peer_accepted, teardown),
		cmocka_unit_test_teardown(test_partial_writes, teardown),
		cmocka_unit_test_teardown(test_acks_free_sndbuf, teardown),
		cmocka_unit_test_teardown(test_flush_coalesces, teardown),
		cmocka_unit_test_teardown(test_run_no_sleep_after_acks, teardown),
		cmocka_unit_test_teardown(test_flush_sees_acks, teardown),
		cmocka_unit_test_teardown(test_reconnect_timer_wakes_fd, teardown),
		cmocka_unit_test_teardown(test_wait, teardown),
		cmocka_unit_test_teardown(test_direct_wait, teardown),
		cmocka_unit_test_teardown(test_direct_wait_timer, teardown),
		cmocka_unit_test_teardown(test_ring_needs_opt_in, teardown),
		cmocka_unit_test_teardown(test_ring_pingpong, teardown),
		cmocka_unit_test_teardown(test_ring_other_link, teardown),
		cmocka_unit_test_teardown(test_direct_wait_quiet_others, teardown),
		cmocka_unit_test_teardown(test_ring_wait_timer_accept, teardown),
		cmocka_unit_test_teardown(test_ring_free_armed, teardown),
		cmocka_unit_test_teardown(test_held_then_attached, teardown),
		cmocka_unit_test_teardown(test_drain, teardown),
		cmocka_unit_test_teardown(test_free_busy, teardown),
		cmocka_unit_test_teardown(test_held_link_reset, teardown),
		cmocka_unit_test_teardown(test_reconnects_piled_in_backlog, teardown),
		cmocka_unit_test_teardown(test_resync_close_drains, teardown),
		cmocka_unit_test_teardown(test_acked_input_survives_send_error, teardown),
		cmocka_unit_test_teardown(test_acked_input_survives_late_connect, teardown),
		cmocka_unit_test_teardown(test_fanout_fence, teardown),
	};

	return cmocka_run_group_tests_name("tcp", transport, NULL, NULL);
}
