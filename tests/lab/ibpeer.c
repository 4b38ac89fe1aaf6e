// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ibpeer - librds on the IB transport against a kernel's rds_rdma, for
 * the lab (tests/lab/ib_kernel.py).
 *
 *   ibpeer --bind ADDR --port P --peer ADDR --peer-port Q [--pings N]
 *          [--passive] [--no-listen] [--timeout S] [--ready-file PATH]
 *
 * Binds ADDR:P on an endpoint that runs IB alone, then: N pings to the
 * peer (each answered by a pong from port 0); one message of each size in
 * SIZES to PEER:Q, tag "a2b", after which the peer answers with the CRC-32
 * of everything it received, which must equal ours; one message of each
 * size from the peer (tag "b2a"), each checked byte for byte, answered
 * with our CRC-32. --passive: the peer's messages come first (so the peer
 * connects to us), then the pings and ours. --ready-file: created once
 * the endpoint listens and the socket is bound. Message i of tag T and size n holds pattern(T, i) (see
 * fill()) repeated, which the Python side builds alike. At the end, one
 * line "ibpeer: version V.v frames_in N ..." with the transport's counters.
 * Exit: 0 all done and checked, 1 a check failed or the time ran out,
 * 2 usage.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rds/rdsu_ib.h>
#include <rds/rdsu_io.h>

static const uint32_t SIZES[] = { 0, 1, 4095, 4096, 4097, 65536, 1u << 20 };
#define N_SIZES (sizeof(SIZES) / sizeof(SIZES[0]))
#define BLOCK 251  /* a prime: fragments of 4096 never repeat in step */

static struct rdsu_io *io;
static struct rdsu_sock *sock;
static rdsu_ns deadline;
static uint8_t *rbuf;

static uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
	}
	return ~crc;
}

/* Byte j of message |i| of |tag|: block[j % 251] with
 * block[k] = (k*k + 7k + 13i + 31*tag[0] + tag[1]) mod 256. */
static void fill(uint8_t *p, uint32_t n, const char *tag, unsigned i)
{
	uint8_t block[BLOCK];

	for (unsigned k = 0; k < BLOCK; k++)
		block[k] = (uint8_t)(k * k + 7 * k + 13 * i + 31u * (uint8_t)tag[0] +
				     (uint8_t)tag[1]);
	for (uint32_t j = 0; j < n; j++)
		p[j] = block[j % BLOCK];
}

static int parse_addr(const char *s, struct rdsu_addr *a)
{
	struct in_addr v4;

	if (inet_pton(AF_INET, s, &v4) != 1)
		return -1;
	*a = rdsu_addr_v4(ntohl(v4.s_addr));
	return 0;
}

/* Run the loop until a message arrives. Return: its length, -1 at the
 * deadline. */
static ssize_t recv_one(struct rdsu_rxinfo *info)
{
	struct iovec iov = { .iov_base = rbuf, .iov_len = (1u << 20) + 1 };

	for (;;) {
		ssize_t n = rdsu_sock_read(sock, &iov, 1, 0, info, rdsu_clock());

		if (n >= 0 && !info->cong)
			return n;
		if (n < 0 && n != -EAGAIN)
			return -1;
		if (n >= 0)
			continue;  /* a congestion notification */
		if (rdsu_io_wait(io, sock, RDSU_POLLIN, deadline) <= 0)
			return -1;
	}
}

static int send_one(const struct rdsu_addr *to, uint16_t port, const void *p, size_t n)
{
	struct iovec iov = { .iov_base = (void *)p, .iov_len = n };

	for (;;) {
		int r = rdsu_sock_submit(sock, to, port, &iov, 1, rdsu_clock());

		if (r >= 0) {
			(void)rdsu_io_flush(io);
			return 0;
		}
		if (r != -EAGAIN && r != -ENOBUFS) {
			fprintf(stderr, "ibpeer: submit: %s\n", rdsu_strerror(r));
			return -1;
		}
		if (rdsu_io_wait(io, sock, RDSU_POLLOUT, deadline) <= 0)
			return -1;
	}
}

static void stats_line(void)
{
	struct rdsu_ib_stats st;

	if (rdsu_ib_get_stats(io, &st) < 0)
		return;
	printf("ibpeer: version %u.%u established %llu connects %llu rejected_by_peer %llu "
	       "downs %llu frames_in %llu frames_out %llu acks_in %llu acks_out %llu\n",
	       st.version >> 8, st.version & 0xff, (unsigned long long)st.established,
	       (unsigned long long)st.connects, (unsigned long long)st.rejected_by_peer,
	       (unsigned long long)st.downs, (unsigned long long)st.frames_in,
	       (unsigned long long)st.frames_out, (unsigned long long)st.acks_in,
	       (unsigned long long)st.acks_out);
	fflush(stdout);
}

static int pings_to(const struct rdsu_addr *peer, unsigned pings)
{
	struct rdsu_rxinfo info;
	ssize_t n;

	for (unsigned i = 0; i < pings; i++) {
		rdsu_ns t0 = rdsu_clock();

		if (send_one(peer, 0, "", 0) < 0 || (n = recv_one(&info)) < 0)
			return -1;
		if (n != 0 || info.sport != 0) {
			fprintf(stderr, "ibpeer: ping %u answered by %zd bytes from port %u\n", i,
				n, info.sport);
			return -1;
		}
		printf("ibpeer: pong %u in %.1f ms\n", i, (double)(rdsu_clock() - t0) / 1e6);
		fflush(stdout);
	}
	return 0;
}

/* Every size of "a2b" to the peer, then its CRC-32 of them must be ours. */
static int send_sizes(const struct rdsu_addr *peer, uint16_t pport, uint8_t *buf)
{
	struct rdsu_rxinfo info;
	char want[16], got[32];
	uint32_t crc = 0;
	ssize_t n;

	for (unsigned i = 0; i < N_SIZES; i++) {
		fill(buf, SIZES[i], "a2b", i);
		crc = crc32_update(crc, buf, SIZES[i]);
		if (send_one(peer, pport, buf, SIZES[i]) < 0)
			return -1;
	}
	snprintf(want, sizeof(want), "%08x", crc);
	n = recv_one(&info);
	if (n < 0 || (size_t)n >= sizeof(got))
		return -1;
	memcpy(got, rbuf, (size_t)n);
	got[n] = 0;
	if (strcmp(got, want) != 0) {
		fprintf(stderr, "ibpeer: peer's CRC of a2b %s, ours %s\n", got, want);
		return -1;
	}
	printf("ibpeer: a2b digest ok %s\n", want);
	fflush(stdout);
	return 0;
}

/* Every size of "b2a" from the peer, checked, answered with our CRC-32. */
static int recv_sizes(const struct rdsu_addr *peer, uint16_t pport, uint8_t *buf)
{
	struct rdsu_rxinfo info;
	uint32_t crc = 0;
	char crc_hex[16];
	ssize_t n;

	for (unsigned i = 0; i < N_SIZES; i++) {
		n = recv_one(&info);
		if (n < 0)
			return -1;
		fill(buf, SIZES[i], "b2a", i);
		if ((uint32_t)n != SIZES[i] || info.sport != pport ||
		    memcmp(rbuf, buf, SIZES[i]) != 0) {
			fprintf(stderr, "ibpeer: b2a message %u: %zd bytes from port %u, want %u\n",
				i, n, info.sport, SIZES[i]);
			return -1;
		}
		crc = crc32_update(crc, rbuf, (size_t)n);
		printf("ibpeer: received b2a %u %zd\n", i, n);
		fflush(stdout);
	}
	snprintf(crc_hex, sizeof(crc_hex), "%08x", crc);
	if (send_one(peer, pport, crc_hex, strlen(crc_hex)) < 0)
		return -1;
	printf("ibpeer: b2a digest sent %s\n", crc_hex);
	fflush(stdout);
	return 0;
}

/* Active: we speak first, so we connect. Passive: the peer speaks first
 * and connects to our listener. */
static int run(const struct rdsu_addr *peer, uint16_t pport, unsigned pings, bool passive)
{
	uint8_t *buf = malloc(1u << 20);
	int r;

	if (!buf)
		return 1;
	if (passive)
		r = recv_sizes(peer, pport, buf) || pings_to(peer, pings) ||
		    send_sizes(peer, pport, buf);
	else
		r = pings_to(peer, pings) || send_sizes(peer, pport, buf) ||
		    recv_sizes(peer, pport, buf);
	/* Until the peer has our last message: its h_ack frees it. */
	if (!r)
		(void)rdsu_io_wait(io, sock, 0, rdsu_clock() + 2 * RDSU_SEC);
	free(buf);
	return r ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "bind", 1, NULL, 'b' }, { "port", 1, NULL, 'p' },
		{ "peer", 1, NULL, 'P' }, { "peer-port", 1, NULL, 'q' },
		{ "pings", 1, NULL, 'n' }, { "no-listen", 0, NULL, 'L' },
		{ "timeout", 1, NULL, 't' }, { "passive", 0, NULL, 'a' },
		{ "ready-file", 1, NULL, 'r' }, { NULL, 0, NULL, 0 },
	};
	struct rdsu_addr me, peer;
	bool have_me = false, have_peer = false, no_listen = false, passive = false;
	unsigned port = 0, pport = 0, pings = 3, timeout = 300;
	const char *ready = NULL;
	struct rdsu_ep_cfg ec;
	struct rdsu_io_cfg ic;
	struct rdsu_ib_cfg bc;
	int c, r;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'b': have_me = parse_addr(optarg, &me) == 0; break;
		case 'P': have_peer = parse_addr(optarg, &peer) == 0; break;
		case 'p': port = (unsigned)atoi(optarg); break;
		case 'q': pport = (unsigned)atoi(optarg); break;
		case 'n': pings = (unsigned)atoi(optarg); break;
		case 'L': no_listen = true; break;
		case 't': timeout = (unsigned)atoi(optarg); break;
		case 'a': passive = true; break;
		case 'r': ready = optarg; break;
		default: return 2;
		}
	}
	if (!have_me || !have_peer || !port || port > 65535 || !pport || pport > 65535) {
		fprintf(stderr, "usage: ibpeer --bind ADDR --port P --peer ADDR --peer-port Q\n");
		return 2;
	}
	rdsu_ep_cfg_default(&ec);
	ec.laddrs[0] = me;
	ec.n_laddrs = 1;
	ec.rdma_laddrs = 1;  /* the address is on rxe0: its sockets take IB */
	rdsu_io_cfg_default(&ic);
	rdsu_ib_cfg_default(&bc);
	bc.no_listen = no_listen;
	ic.transports = RDSU_IO_IB;
	ic.ib = &bc;
	r = rdsu_io_new(&io, &ec, &ic);
	if (r < 0) {
		fprintf(stderr, "ibpeer: rdsu_io_new: %s\n", rdsu_strerror(r));
		return 1;
	}
	rbuf = malloc((1u << 20) + 1);
	if (!rbuf || rdsu_sock_new(rdsu_io_ep(io), &sock) < 0 ||
	    rdsu_sock_bind(sock, &me, (uint16_t)port) < 0 ||
	    rdsu_sock_set_sndbuf(sock, 8u << 20, rdsu_clock()) < 0 ||
	    rdsu_sock_set_rcvbuf(sock, 8u << 20, rdsu_clock()) < 0) {
		fprintf(stderr, "ibpeer: socket set-up failed\n");
		return 1;
	}
	if (ready) {
		FILE *f = fopen(ready, "w");

		if (!f || fclose(f) != 0) {
			fprintf(stderr, "ibpeer: %s: %s\n", ready, strerror(errno));
			return 1;
		}
	}
	deadline = rdsu_clock() + (rdsu_ns)timeout * RDSU_SEC;
	r = run(&peer, (uint16_t)pport, pings, passive);
	stats_line();
	printf("ibpeer: %s\n", r ? "FAIL" : "done");
	rdsu_sock_free(sock, rdsu_clock());
	rdsu_io_free(io);
	free(rbuf);
	return r;
}
