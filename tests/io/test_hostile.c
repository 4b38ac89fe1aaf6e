// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * test_hostile.c - the endpoint's limits on loopback sockets (issue 21):
 * kicks from 1,200 larger addresses nobody listens on (attack 2) make a
 * bounded number of connects that ends, and the memory they took comes
 * back; a raw connection from a peer's own address (attack 3), made
 * before or after the peer's, costs the peer no message, and those held
 * behind the peer's paths are bounded by max_peer_links; silent raw
 * connections at max_links give their places to the client's, oldest
 * first (issue 35). Counts come from
 * librds's counters; nothing here asserts a time.
 * Addresses: 127.21.0.1 (kicked), 127.22.x.y (kickers); 127.21.1.1 (a
 * client, and the raw connections), 127.21.1.2 (its server), 127.21.0.101-120
 * (silent connections).
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
#include <fcntl.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rds/rdsu_tcp.h>

#include "iotest.h"

#define KICKED "127.21.0.1"
#define N_KICK 1200
#define BATCH 50 /* under the listen backlog (64): connect() returns at once */
#define CLIENT "127.21.1.1"
#define SERVER "127.21.1.2"
#define N_MSG 200

/* Bytes the core holds (rdsu_ep_cfg.mem): a size word before each block. */
static size_t live, peak;

static void *count_alloc(size_t size, void *ud)
{
	size_t *p = malloc(sizeof(size_t) + size);

	(void)ud;
	if (!p)
		return NULL;
	*p = size;
	live += size;
	if (live > peak)
		peak = live;
	return p + 1;
}

static void count_free(void *q, void *ud)
{
	size_t *p = q;

	(void)ud;
	if (!p)
		return;
	live -= p[-1];
	free(p - 1);
}

static struct rdsu_tcp *endpoint(const char *a, rdsu_ns handshake, rdsu_ns give_up, bool counted)
{
	struct rdsu_ep_cfg c;
	struct rdsu_tcp *t;

	ep_cfg_at(&c, a);
	c.gen_num = 21;
	c.seed = 21;
	c.reconnect_max = 100 * RDSU_MSEC;
	c.handshake_timeout = handshake;
	c.give_up = give_up;
	if (counted) {
		c.mem.alloc = count_alloc;
		c.mem.free = count_free;
	}
	assert_int_equal(rdsu_tcp_new(&t, &c, NULL), 0);
	return t;
}

static uint64_t stat(struct rdsu_tcp *t, enum rdsu_stat s)
{
	struct rdsu_stats st;

	rdsu_ep_get_stats(rdsu_tcp_ep(t), &st);
	return st.v[s];
}

static size_t n_conns(struct rdsu_tcp *t)
{
	struct rdsu_conn_info ci;
	size_t pos = 0, n = 0;

	while (rdsu_ep_conn_next(rdsu_tcp_ep(t), &pos, &ci))
		n++;
	return n;
}

/* A connection to |to|:16385 from |from|, any port; the handshake ends
 * in the listener's backlog. */
static int raw_connect(const struct sockaddr_in *from, const char *to)
{
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(RDSU_TCP_PORT) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	inet_pton(AF_INET, to, &dst.sin_addr);
	assert_int_equal(bind(fd, (const struct sockaddr *)from, sizeof(*from)), 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&dst, sizeof(dst)), 0);
	return fd;
}

static struct sockaddr_in kicker(unsigned i)
{
	struct sockaddr_in a = { .sin_family = AF_INET };

	a.sin_addr.s_addr = htonl(0x7f160000u | ((i / 250) << 8) | (i % 250 + 1)); /* 127.22.x.y */
	return a;
}

/*
 * Attack 2: every kick from a larger address is refused and answered by a
 * connect back, which fails (nobody listens there). The kernel retries
 * such a peer for ever; here at most max_connecting (64) are in flight,
 * and after give_up (1 s here) with nothing to send the peer is dropped
 * and its memory returned. Then no connect is made any more.
 */
static void test_kick_storm(void **state)
{
	struct rdsu_tcp *t = endpoint(KICKED, 0, RDSU_SEC, true);
	size_t base = live, kicked_peak;
	uint64_t connects, given_up;
	rdsu_ns end;

	(void)state;
	for (unsigned b = 0; b < N_KICK; b += BATCH) {
		int fd[BATCH];

		for (unsigned i = 0; i < BATCH; i++) {
			struct sockaddr_in from = kicker(b + i);

			fd[i] = raw_connect(&from, KICKED);
		}
		end = rdsu_clock() + 20 * RDSU_SEC;
		while (stat(t, RDSU_STAT_ACCEPT_REFUSED) < b + BATCH && rdsu_clock() < end)
			(void)rdsu_tcp_run(t, 10);
		for (unsigned i = 0; i < BATCH; i++)
			close(fd[i]);
	}
	assert_int_equal(stat(t, RDSU_STAT_ACCEPT_REFUSED), N_KICK);
	assert_true(n_conns(t) > 0);
	kicked_peak = peak;
	/* All given up; then quiet. */
	end = rdsu_clock() + 60 * RDSU_SEC;
	while (n_conns(t) && rdsu_clock() < end)
		(void)rdsu_tcp_run(t, 10);
	assert_int_equal(n_conns(t), 0);
	given_up = stat(t, RDSU_STAT_CONN_GIVEN_UP);
	assert_int_equal(given_up, N_KICK);
	connects = stat(t, RDSU_STAT_CONNECT_REQ);
	print_message("%u kicks: %llu connects, %llu deferred, at most %llu in flight; "
		      "core memory %zu -> peak %zu -> %zu bytes\n",
		      N_KICK, (unsigned long long)connects,
		      (unsigned long long)stat(t, RDSU_STAT_CONNECT_DEFERRED),
		      (unsigned long long)stat(t, RDSU_STAT_CONNECTING_PEAK), base, kicked_peak,
		      live);
	assert_true(stat(t, RDSU_STAT_CONNECTING_PEAK) <= 64);
	assert_true(stat(t, RDSU_STAT_CONNECT_DEFERRED) > 0);
	/* each peer: ~8 doublings up to 100 ms, then one every 50 ms on
	 * average until give_up */
	assert_true(connects >= N_KICK && connects <= 100ull * N_KICK);
	end = rdsu_clock() + 300 * RDSU_MSEC;
	while (rdsu_clock() < end)
		(void)rdsu_tcp_run(t, 10);
	assert_int_equal(stat(t, RDSU_STAT_CONNECT_REQ), connects);
	/* What is left is the table's index (a pointer per peer ever held at
	 * once) and the close ring. */
	assert_true(live - base <= 64 * 1024);
	rdsu_tcp_free(t);
	assert_int_equal(live, 0);
}

/* Send |n| numbered messages from |tx| and read them all at |rx| in
 * order, each once, running both endpoints. Return: messages read. */
static unsigned exchange(struct rdsu_tcp *a, struct rdsu_tcp *b, struct rdsu_sock *tx,
			 struct rdsu_sock *rx, const char *to, uint32_t first, unsigned n)
{
	struct rdsu_addr dst = addr(to);
	unsigned sent = 0, got = 0;
	rdsu_ns end = rdsu_clock() + 30 * RDSU_SEC;

	while (got < n && rdsu_clock() < end) {
		uint32_t v, w = first + sent;
		struct iovec iov = { &w, sizeof(w) }, in = { &v, sizeof(v) };
		struct rdsu_rxinfo info;

		if (sent < n && rdsu_sock_submit(tx, &dst, 4000, &iov, 1, rdsu_clock()) == 4)
			sent++;
		(void)rdsu_tcp_run(a, 0);
		(void)rdsu_tcp_run(b, 2);
		while (rdsu_sock_read(rx, &in, 1, 0, &info, rdsu_clock()) >= 0) {
			if (info.cong)
				continue;
			assert_int_equal(v, first + got);
			got++;
		}
	}
	return got;
}

static void pair(struct rdsu_tcp **cl, struct rdsu_tcp **sv, struct rdsu_sock **tx,
		 struct rdsu_sock **rx)
{
	struct rdsu_addr c = addr(CLIENT), s = addr(SERVER);

	*cl = endpoint(CLIENT, 0, 0, false);
	*sv = endpoint(SERVER, RDSU_SEC, 0, false);
	assert_int_equal(rdsu_sock_new(rdsu_tcp_ep(*cl), tx), 0);
	assert_int_equal(rdsu_sock_bind(*tx, &c, 5000), 0);
	assert_int_equal(rdsu_sock_new(rdsu_tcp_ep(*sv), rx), 0);
	assert_int_equal(rdsu_sock_bind(*rx, &s, 4000), 0);
}

/*
 * Attack 3, the raw connection first: it takes the server's slot 0 for
 * the client's address, and the client's own connection waits behind it.
 * The kernel keeps it that way (docs/kernel-behaviour.md); the server
 * here resets it at handshake_timeout (1 s) and every message arrives.
 */
static void test_raw_from_peer_first(void **state)
{
	struct rdsu_tcp *cl, *sv;
	struct rdsu_sock *tx, *rx;
	struct sockaddr_in from = { .sin_family = AF_INET };
	int raw;

	(void)state;
	pair(&cl, &sv, &tx, &rx);
	inet_pton(AF_INET, CLIENT, &from.sin_addr);
	raw = raw_connect(&from, SERVER);
	for (int i = 0; i < 20; i++)
		(void)rdsu_tcp_run(sv, 5);
	assert_int_equal(exchange(cl, sv, tx, rx, SERVER, 0, N_MSG), N_MSG);
	assert_true(stat(sv, RDSU_STAT_HANDSHAKE_TIMEOUT) >= 1);
	close(raw);
	rdsu_tcp_free(cl);
	rdsu_tcp_free(sv);
}

/*
 * ... and after the client's connections are up: held, never given the
 * client's slots while its paths live, and not reset for their silence
 * (a held connection may be the client's own, carrying messages TCP
 * acknowledged), past handshake_timeout (1 s) and on, while the
 * client's messages go on arriving; also one that trickles a byte at a
 * time. max_peer_links bounds them: with the client's 8 paths up, 8
 * are held and the rest refused. Closed, they are gone.
 */
#define N_RAW 10

static void test_raw_from_peer_after(void **state)
{
	struct rdsu_tcp *cl, *sv;
	struct rdsu_sock *tx, *rx;
	struct sockaddr_in from = { .sin_family = AF_INET };
	struct rdsu_addr c = addr(CLIENT), s = addr(SERVER);
	struct rdsu_conn_info before, after;
	unsigned up = 0;
	int raw[N_RAW];
	rdsu_ns end;

	(void)state;
	pair(&cl, &sv, &tx, &rx);
	assert_int_equal(exchange(cl, sv, tx, rx, SERVER, 0, N_MSG), N_MSG);
	assert_int_equal(rdsu_ep_conn_get(rdsu_tcp_ep(sv), &s, &c, &before), 0);
	for (unsigned i = 0; i < WIRE_MAX_PATHS; i++)
		up += before.path[i].state == RDSU_PATH_UP;
	inet_pton(AF_INET, CLIENT, &from.sin_addr);
	for (unsigned i = 0; i < N_RAW; i++)
		raw[i] = raw_connect(&from, SERVER);
	for (uint32_t k = 1; k <= 5; k++) {
		assert_int_equal(send(raw[0], "\0", 1, MSG_NOSIGNAL), 1);
		assert_int_equal(exchange(cl, sv, tx, rx, SERVER, k * N_MSG, N_MSG), N_MSG);
	}
	/* twice handshake_timeout from the last raw connection */
	end = rdsu_clock() + 2 * RDSU_SEC;
	for (uint32_t k = 6; rdsu_clock() < end; k++)
		assert_int_equal(exchange(cl, sv, tx, rx, SERVER, k * N_MSG, N_MSG), N_MSG);
	assert_int_equal(stat(sv, RDSU_STAT_HANDSHAKE_TIMEOUT), 0);
	assert_int_equal(rdsu_ep_conn_get(rdsu_tcp_ep(sv), &s, &c, &after), 0);
	for (unsigned i = 0; i < WIRE_MAX_PATHS; i++)
		assert_true(after.path[i].link == before.path[i].link);
	assert_true(after.held_links + up <= 16);
	assert_true(after.held_links <= WIRE_MAX_PATHS);
	assert_int_equal(after.held_links + stat(sv, RDSU_STAT_LIMIT_PEER_LINKS), N_RAW);
	assert_int_equal(exchange(cl, sv, tx, rx, SERVER, 0, N_MSG), N_MSG);
	/* Closed, the silent ones go at once; the trickler's bytes wait for
	 * a slot, as a dying held connection of the peer's would. */
	for (unsigned i = 0; i < N_RAW; i++)
		close(raw[i]);
	end = rdsu_clock() + 10 * RDSU_SEC;
	while (after.held_links > 1 && rdsu_clock() < end) {
		(void)rdsu_tcp_run(sv, 10);
		assert_int_equal(rdsu_ep_conn_get(rdsu_tcp_ep(sv), &s, &c, &after), 0);
	}
	assert_int_equal(after.held_links, 1);
	/* the client goes: a slot frees, the trickler gets it and ends */
	rdsu_tcp_free(cl);
	end = rdsu_clock() + 10 * RDSU_SEC;
	while (after.held_links && rdsu_clock() < end) {
		(void)rdsu_tcp_run(sv, 10);
		assert_int_equal(rdsu_ep_conn_get(rdsu_tcp_ep(sv), &s, &c, &after), 0);
	}
	assert_int_equal(after.held_links, 0);
	rdsu_tcp_free(sv);
}

/*
 * Silent raw connections at the server's max_links (issue 35): 20 of
 * them from 20 addresses of their own (smaller than the server's, so each
 * takes a peer's path as a real peer's would), none sending a byte, with
 * max_links 16 and no handshake_timeout to end them. The client's
 * connections still get in, each in the place of the oldest silent one,
 * and every message arrives; the silent ones that are left stay open.
 */
#define N_SILENT 20

static void test_silent_at_max_links(void **state)
{
	struct rdsu_tcp *cl, *sv;
	struct rdsu_sock *tx, *rx;
	struct rdsu_addr c = addr(CLIENT), s = addr(SERVER);
	struct rdsu_tcp_stats st;
	struct rdsu_ep_cfg cfg;
	int raw[N_SILENT];

	(void)state;
	ep_cfg_at(&cfg, SERVER);
	cfg.gen_num = 21;
	cfg.seed = 21;
	cfg.max_links = 16;
	cfg.handshake_timeout = RDSU_NS_NEVER;
	assert_int_equal(rdsu_tcp_new(&sv, &cfg, NULL), 0);
	cl = endpoint(CLIENT, 0, 0, false);
	assert_int_equal(rdsu_sock_new(rdsu_tcp_ep(cl), &tx), 0);
	assert_int_equal(rdsu_sock_bind(tx, &c, 5000), 0);
	assert_int_equal(rdsu_sock_new(rdsu_tcp_ep(sv), &rx), 0);
	assert_int_equal(rdsu_sock_bind(rx, &s, 4000), 0);
	for (unsigned i = 0; i < N_SILENT; i++) {
		struct sockaddr_in from = { .sin_family = AF_INET };

		from.sin_addr.s_addr = htonl(0x7f150000u | (101 + i)); /* 127.21.0.101.. */
		raw[i] = raw_connect(&from, SERVER);
		(void)rdsu_tcp_run(sv, 0);
	}
	for (int i = 0; i < 20; i++)
		(void)rdsu_tcp_run(sv, 5);
	assert_int_equal(exchange(cl, sv, tx, rx, SERVER, 0, N_MSG), N_MSG);
	rdsu_tcp_get_stats(sv, &st);
	print_message("max_links 16: %llu silent connections reset to make room, %llu refusals\n",
		      (unsigned long long)st.accept_evicted,
		      (unsigned long long)stat(sv, RDSU_STAT_LIMIT_LINKS));
	assert_true(st.accept_evicted >= N_SILENT - 16 + 1);
	assert_true(st.accept_evicted < N_SILENT);
	for (unsigned i = 0; i < N_SILENT; i++)
		close(raw[i]);
	rdsu_tcp_free(cl);
	rdsu_tcp_free(sv);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_kick_storm),
	cmocka_unit_test(test_raw_from_peer_first),
	cmocka_unit_test(test_raw_from_peer_after),
	cmocka_unit_test(test_silent_at_max_links))
