// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ibpeer - librds on the IB transport against a kernel's rds_rdma, for
 * the lab (tests/lab/ib_kernel.py).
 *
 *   ibpeer --bind ADDR --port P --peer ADDR --peer-port Q [--pings N]
 *          [--passive] [--no-listen] [--timeout S] [--ready-file PATH]
 *          [--mirror] [--no-sizes] [--many N] [--cong-port C --cong-count K]
 *          [--cong-recv-port C] [--offer-credits] [--recv-ring R] [--send-ring S]
 *          [--retry-count N] [--soak --ctl DIR --rdma-port R --rdma-peer-port S]
 *
 * Binds ADDR:P on an endpoint that runs IB alone, then: N pings to the
 * peer (each answered by a pong from port 0); one message of each size in
 * SIZES to PEER:Q, tag "a2b", after which the peer answers with the CRC-32
 * of everything it received, which must equal ours; one message of each
 * size from the peer (tag "b2a"), each checked byte for byte, answered
 * with our CRC-32. --passive: the peer's messages come first (so the peer
 * connects to us), then the pings and ours. --mirror: the other side of
 * that exchange (what the kernel's role in ib_kernel.py does), for a
 * second ibpeer: tags swapped, no pings. --no-sizes: skip it all.
 * --ready-file: created once the endpoint listens and the sockets are
 * bound. Message i of tag T and size n holds pattern(T, i) (see fill())
 * repeated, which the Python side builds alike.
 *
 * --many N: then N messages each way at once (tags "ma" out and "mb" in,
 * swapped by --mirror), sizes MANY_SIZES in turn, each checked on arrival
 * against its index (many_fill()): exactly once and in order, whatever
 * breaks the connection meanwhile. Progress lines "ibpeer: many rx R tx T"
 * let the harness time its breaks.
 * --cong-port C --cong-count K: then K messages of 4096 bytes (tag "cg")
 * to PEER:C, whose receiver stops reading for a while: ENOBUFS counted and
 * retried until PEER:C answers "cong K" (its count of good ones).
 * --cong-recv-port C: that receiver (a second socket on C, SO_RCVBUF
 * 40000): reads 20, stops for 6 s, reads the rest, answers from C.
 * --offer-credits: the IB transport offers credits (rdsu_ib_cfg);
 * --recv-ring / --send-ring / --retry-count: its ring sizes and RC retries.
 * --soak: messages both ways (tags "ma" out, "mb" in, byte 4 the
 * sender's life) until DIR/stop, every one checked exactly once and in
 * order, while a second socket on port R keeps RDMA ops in flight against
 * the region the peer's port S maps for it; the faults, the checks and
 * the files in DIR are described at soak() below and in
 * tests/lab/ib_soak.py. Lines "ibpeer: soak at|done ..." carry the
 * figures (RSS, resets, notifications per status, regions, queues).
 * At the end, one line "ibpeer: version V.v frames_in N ..." with the
 * transport's and the endpoint's counters.
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
#include <unistd.h>

#include <rds/rdsu_ib.h>
#include <rds/rdsu_io.h>

#include "rss.h"

static const uint32_t SIZES[] = { 0, 1, 4095, 4096, 4097, 65536, 1u << 20 };
#define N_SIZES (sizeof(SIZES) / sizeof(SIZES[0]))
#define BLOCK 251  /* a prime: fragments of 4096 never repeat in step */
/* Small to two fragments and a bit: what a break can cut in the middle. */
static const uint32_t MANY_SIZES[] = { 8, 100, 1000, 4097, 9000 };
#define N_MANY (sizeof(MANY_SIZES) / sizeof(MANY_SIZES[0]))
#define CONG_SIZE 4096
#define CONG_RCVBUF 40000
#define CONG_READ_FIRST 20
#define CONG_STALL (6 * RDSU_SEC)

static struct rdsu_io *io;
static struct rdsu_sock *sock, *cong_sock, *rdma_sock;
static struct rdsu_addr soak_peer;
static rdsu_ns deadline;
static uint8_t *rbuf;
/* The basic exchange's and --many's tags, out and in (--mirror swaps). */
static const char *tag_out = "a2b", *tag_in = "b2a";
static const char *many_out = "ma", *many_in = "mb";

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

/* Message |i| of a --many stream of |tag|, |n| >= 4 bytes: |i| big-endian,
 * then byte j is block[(i + j) % 251] with block[k] = (k*k + 7k +
 * 31*tag[0] + tag[1]) mod 256. A message out of place fails its index;
 * one torn or mixed fails the bytes. */
static void many_fill(uint8_t *p, uint32_t n, const char *tag, uint32_t i)
{
	uint8_t block[BLOCK];

	for (unsigned k = 0; k < BLOCK; k++)
		block[k] = (uint8_t)(k * k + 7 * k + 31u * (uint8_t)tag[0] + (uint8_t)tag[1]);
	p[0] = (uint8_t)(i >> 24);
	p[1] = (uint8_t)(i >> 16);
	p[2] = (uint8_t)(i >> 8);
	p[3] = (uint8_t)i;
	for (uint32_t j = 4; j < n; j++)
		p[j] = block[(i + j) % BLOCK];
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
static ssize_t recv_on(struct rdsu_sock *s, struct rdsu_rxinfo *info)
{
	struct iovec iov = { .iov_base = rbuf, .iov_len = (1u << 20) + 1 };

	for (;;) {
		ssize_t n = rdsu_sock_read(s, &iov, 1, 0, info, rdsu_clock());

		if (n >= 0 && !info->cong)
			return n;
		if (n < 0 && n != -EAGAIN)
			return -1;
		if (n >= 0)
			continue;  /* a congestion notification */
		if (rdsu_io_wait(io, s, RDSU_POLLIN, deadline) <= 0)
			return -1;
	}
}

static ssize_t recv_one(struct rdsu_rxinfo *info)
{
	return recv_on(sock, info);
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
	static const enum rdsu_stat shown[] = {
		RDSU_STAT_CONN_RESET, RDSU_STAT_SEND_RETRANSMITTED, RDSU_STAT_RECV_DROP_OLD_SEQ,
		RDSU_STAT_CONG_SEND_ERROR, RDSU_STAT_CONG_UPDATE_RECEIVED,
		RDSU_STAT_ACCEPT_REFUSED, RDSU_STAT_CONNECT_REQ,
	};
	struct rdsu_ib_stats st;
	struct rdsu_stats es;

	rdsu_ep_get_stats(rdsu_io_ep(io), &es);
	printf("ibpeer: stats");
	for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++)
		printf(" %s %llu", rdsu_stat_name(shown[i]), (unsigned long long)es.v[shown[i]]);
	printf("\n");
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

/* Every size of tag_out to the peer, then its CRC-32 of them must be ours. */
static int send_sizes(const struct rdsu_addr *peer, uint16_t pport, uint8_t *buf)
{
	struct rdsu_rxinfo info;
	char want[16], got[32];
	uint32_t crc = 0;
	ssize_t n;

	for (unsigned i = 0; i < N_SIZES; i++) {
		fill(buf, SIZES[i], tag_out, i);
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
		fprintf(stderr, "ibpeer: peer's CRC of %s %s, ours %s\n", tag_out, got, want);
		return -1;
	}
	printf("ibpeer: %s digest ok %s\n", tag_out, want);
	fflush(stdout);
	return 0;
}

/* Every size of tag_in from the peer, checked, answered with our CRC-32. */
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
		fill(buf, SIZES[i], tag_in, i);
		if ((uint32_t)n != SIZES[i] || info.sport != pport ||
		    memcmp(rbuf, buf, SIZES[i]) != 0) {
			fprintf(stderr, "ibpeer: %s message %u: %zd bytes from port %u, want %u\n",
				tag_in, i, n, info.sport, SIZES[i]);
			return -1;
		}
		crc = crc32_update(crc, rbuf, (size_t)n);
		printf("ibpeer: received %s %u %zd\n", tag_in, i, n);
		fflush(stdout);
	}
	snprintf(crc_hex, sizeof(crc_hex), "%08x", crc);
	if (send_one(peer, pport, crc_hex, strlen(crc_hex)) < 0)
		return -1;
	printf("ibpeer: %s digest sent %s\n", tag_in, crc_hex);
	fflush(stdout);
	return 0;
}

/* Where the connection stands, when a run stalls: the path's state and
 * queues and the transport's counters. */
static void stall_line(const char *what, uint32_t rx, uint32_t tx, int last)
{
	struct rdsu_conn_info ci;
	struct rdsu_ib_stats st;
	size_t pos = 0;

	printf("ibpeer: %s stalled at rx %u tx %u (last submit %d)", what, rx, tx, last);
	if (rdsu_ep_conn_next(rdsu_io_ep(io), &pos, &ci) == 1) {
		const struct rdsu_path_info *p = &ci.path[0];

		printf(" path %s next_tx %llu next_rx %llu send_q %u retrans_q %u ack_seq %llu "
		       "peer_ack %llu resets %llu fc %d credits %u",
		       rdsu_path_state_name(p->state), (unsigned long long)p->next_tx_seq,
		       (unsigned long long)p->next_rx_seq, p->send_q_msgs, p->retrans_q_msgs,
		       (unsigned long long)p->ack_seq, (unsigned long long)p->peer_ack,
		       (unsigned long long)p->resets, p->flow_control, p->send_credits);
	}
	if (rdsu_ib_get_stats(io, &st) == 0)
		printf(" frames_in %llu frames_out %llu send_full %llu downs %llu inflight %u "
		       "posted %u connects %llu established %llu rejected_by_peer %llu "
		       "rejected %llu attempts %llu last_down %d/%d",
		       (unsigned long long)st.frames_in, (unsigned long long)st.frames_out,
		       (unsigned long long)st.send_full, (unsigned long long)st.downs,
		       st.send_inflight, st.recv_posted, (unsigned long long)st.connects,
		       (unsigned long long)st.established, (unsigned long long)st.rejected_by_peer,
		       (unsigned long long)st.rejected, (unsigned long long)st.attempts,
		       st.last_down_event, st.last_down_status);
	printf("\n");
	fflush(stdout);
}

/* Each connection or attempt that ended since the last call: what ended
 * it (rdsu_ib_stats.last_down_*; several in one call show the last). */
static void downs_line(void)
{
	static uint64_t seen;
	struct rdsu_ib_stats st;

	if (rdsu_ib_get_stats(io, &st) < 0 || st.downs == seen)
		return;
	seen = st.downs;
	printf("ibpeer: down %llu: event %d status %d attempts %llu connects %llu "
	       "established %llu rejected_by_peer %llu\n",
	       (unsigned long long)st.downs, st.last_down_event, st.last_down_status,
	       (unsigned long long)st.attempts, (unsigned long long)st.connects,
	       (unsigned long long)st.established, (unsigned long long)st.rejected_by_peer);
	fflush(stdout);
}

/* One --many message from the peer, number |i|: in its place, whole.
 * Return: 0; -1 (said why). */
static int many_check(const struct rdsu_rxinfo *info, ssize_t n, uint32_t i, uint16_t pport,
		      uint8_t *want)
{
	uint32_t len = MANY_SIZES[i % N_MANY];
	uint32_t idx = (uint32_t)rbuf[0] << 24 | (uint32_t)rbuf[1] << 16 |
		       (uint32_t)rbuf[2] << 8 | rbuf[3];

	if (n >= 4 && idx != i) {
		fprintf(stderr, "ibpeer: many: message %u of %zd bytes where %u was due\n", idx,
			n, i);
		return -1;
	}
	many_fill(want, len, many_in, i);
	if ((uint32_t)n != len || info->sport != pport || memcmp(rbuf, want, len) != 0) {
		fprintf(stderr, "ibpeer: many: message %u: %zd bytes from port %u, want %u\n", i,
			n, info->sport, len);
		return -1;
	}
	return 0;
}

/* Each message waiting on |sock| (congestion notices skipped) to |fn|
 * with |ctx|. Return: 0; -1 (a read or |fn| failed). */
static int read_waiting(int (*fn)(void *ctx, const struct rdsu_rxinfo *info, ssize_t n),
			void *ctx, bool *moved)
{
	struct iovec riov = { .iov_base = rbuf, .iov_len = (1u << 20) + 1 };

	for (;;) {
		struct rdsu_rxinfo info;
		ssize_t n = rdsu_sock_read(sock, &riov, 1, 0, &info, rdsu_clock());

		if (n == -EAGAIN)
			return 0;
		if (n < 0 || (!info.cong && fn(ctx, &info, n) < 0))
			return -1;
		*moved |= !info.cong;
	}
}

struct many_rx {
	uint32_t rx, count;
	uint16_t pport;
	uint8_t *want;
};

static int many_one(void *ctx, const struct rdsu_rxinfo *info, ssize_t n)
{
	struct many_rx *m = ctx;

	if (m->rx >= m->count) {
		fprintf(stderr, "ibpeer: many: a message past the last (%zd bytes)\n", n);
		return -1;
	}
	if (many_check(info, n, m->rx, m->pport, m->want) < 0)
		return -1;
	m->rx++;
	return 0;
}

/* |count| messages each way at once, every one checked on arrival;
 * |listen_first|: ours only after the peer's first (it connects). */
static int many(const struct rdsu_addr *peer, uint16_t pport, uint32_t count,
		bool listen_first, uint8_t *buf, uint8_t *want)
{
	struct many_rx m = { .count = count, .pport = pport, .want = want };
	uint32_t tx = 0, shown = 0;
	rdsu_ns t0 = rdsu_clock(), moved_at = t0;
	int last = 0;

	/* A few hundred messages in flight: whatever a break catches
	 * unacknowledged is resent, and the emulated link is not flooded. */
	if (rdsu_sock_set_sndbuf(sock, 1u << 20, rdsu_clock()) < 0)
		return -1;

	while (tx < count || m.rx < count) {
		bool moved = false;
		bool may_send = !(listen_first && m.rx == 0);

		while (tx < count && may_send) {
			uint32_t len = MANY_SIZES[tx % N_MANY];
			struct iovec iov = { .iov_base = buf, .iov_len = len };
			int r;

			many_fill(buf, len, many_out, tx);
			r = rdsu_sock_submit(sock, peer, pport, &iov, 1, rdsu_clock());
			last = r;
			if (r == -EAGAIN || r == -ENOBUFS)
				break;
			if (r < 0) {
				fprintf(stderr, "ibpeer: many: submit: %s\n", rdsu_strerror(r));
				return -1;
			}
			tx++;
			moved = true;
		}
		(void)rdsu_io_flush(io);
		if (read_waiting(many_one, &m, &moved) < 0)
			return -1;
		downs_line();
		if (m.rx + tx >= shown + 2000 || (m.rx == count && tx == count)) {
			shown = m.rx + tx;
			printf("ibpeer: many rx %u tx %u\n", m.rx, tx);
			fflush(stdout);
		}
		if (rdsu_clock() > deadline) {
			fprintf(stderr, "ibpeer: many: out of time at rx %u tx %u\n", m.rx, tx);
			return -1;
		}
		if (moved) {
			moved_at = rdsu_clock();
		} else if (rdsu_clock() - moved_at > 5 * RDSU_SEC) {
			stall_line("many", m.rx, tx, last);
			moved_at = rdsu_clock();
		}
		if (!moved) {
			unsigned mask = RDSU_POLLIN;
			rdsu_ns until = rdsu_clock() + 100 * RDSU_MSEC;

			/* ENOBUFS leaves POLLOUT set: waiting on it would
			 * return at once without running the loop, which is
			 * what brings the map that clears the port. */
			if (last == -ENOBUFS)
				until = rdsu_clock() + 2 * RDSU_MSEC;
			else if (tx < count && may_send)
				mask |= RDSU_POLLOUT;
			if (rdsu_io_wait(io, sock, mask, until) < 0)
				return -1;
		}
	}
	printf("ibpeer: many done %u each way in %.1f s\n", count,
	       (double)(rdsu_clock() - t0) / 1e9);
	fflush(stdout);
	return 0;
}

/* |count| messages to a receiver that stops reading: ENOBUFS while its
 * port is in the peer's map, retried a moment later. */
static int cong_send(const struct rdsu_addr *peer, uint16_t cport, uint32_t count,
		     uint8_t *buf)
{
	struct rdsu_rxinfo info;
	uint64_t nobufs = 0;
	char want[32];
	ssize_t n;

	/* A few messages in flight, not all: the sends that come after the
	 * peer's map are the ones that must meet ENOBUFS. */
	if (rdsu_sock_set_sndbuf(sock, 16 * CONG_SIZE, rdsu_clock()) < 0)
		return -1;
	for (uint32_t i = 0; i < count; i++) {
		struct iovec iov = { .iov_base = buf, .iov_len = CONG_SIZE };

		many_fill(buf, CONG_SIZE, "cg", i);
		for (;;) {
			int r = rdsu_sock_submit(sock, peer, cport, &iov, 1, rdsu_clock());

			if (r >= 0)
				break;
			if (r == -ENOBUFS) {
				nobufs++;
				(void)rdsu_io_wait(io, sock, 0, rdsu_clock() + 2 * RDSU_MSEC);
			} else if (r != -EAGAIN) {
				fprintf(stderr, "ibpeer: cong: submit: %s\n", rdsu_strerror(r));
				return -1;
			} else if (rdsu_io_wait(io, sock, RDSU_POLLOUT, deadline) <= 0) {
				return -1;
			}
			if (rdsu_clock() > deadline)
				return -1;
		}
		(void)rdsu_io_flush(io);
	}
	snprintf(want, sizeof(want), "cong %u", count);
	n = recv_one(&info);
	if (n < 0 || (size_t)n != strlen(want) || memcmp(rbuf, want, (size_t)n) != 0 ||
	    info.sport != cport) {
		fprintf(stderr, "ibpeer: cong: answer of %zd bytes from port %u\n", n, info.sport);
		return -1;
	}
	printf("ibpeer: cong sent %u enobufs %llu answered\n", count, (unsigned long long)nobufs);
	fflush(stdout);
	return 0;
}

/* The receiver that stops reading, on its own socket. */
static int cong_recv(const struct rdsu_addr *peer, uint16_t pport, uint32_t count,
		     uint8_t *want)
{
	struct rdsu_rxinfo info;
	char ans[32];

	for (uint32_t i = 0; i < count; i++) {
		ssize_t n;

		if (i == CONG_READ_FIRST) {
			printf("ibpeer: cong stalls after %u\n", i);
			fflush(stdout);
			(void)rdsu_io_wait(io, cong_sock, 0, rdsu_clock() + CONG_STALL);
		}
		n = recv_on(cong_sock, &info);
		many_fill(want, CONG_SIZE, "cg", i);
		if (n != CONG_SIZE || memcmp(rbuf, want, CONG_SIZE) != 0) {
			fprintf(stderr, "ibpeer: cong: message %u: %zd bytes, not ours\n", i, n);
			return -1;
		}
	}
	snprintf(ans, sizeof(ans), "cong %u", count);
	{
		struct iovec iov = { .iov_base = ans, .iov_len = strlen(ans) };

		while (rdsu_sock_submit(cong_sock, peer, pport, &iov, 1, rdsu_clock()) < 0)
			if (rdsu_io_wait(io, cong_sock, RDSU_POLLOUT, deadline) <= 0)
				return -1;
	}
	(void)rdsu_io_flush(io);
	printf("ibpeer: cong received %u\n", count);
	fflush(stdout);
	return 0;
}

struct plan {
	unsigned pings;
	bool passive, sizes;
	uint32_t many;
	uint16_t cong_port, cong_recv_port;
	uint32_t cong_count;
	bool soak;
	const char *ctl;
	uint16_t rdma_port, rdma_peer_port;
};

/* ------------------------------------------------------------------------
 * --soak S (tests/lab/ib_soak.py): messages both ways for S seconds while
 * the harness breaks things, and RDMA against the kernel's region on a
 * second socket. The harness talks to us through files in --ctl DIR:
 * "refuse-N" asks for the N-th refused RDMA (an r_key nobody registered,
 * which ends the QP), "qpkill-N" for the N-th time our own QP is put in
 * the error state with RDMA in flight (rdsu_ib_fault_qp), "stop" ends
 * the sending; we answer "peer_tx" (our
 * message count) and wait for "kernel_tx" (the kernel's, with the life
 * it ended in) before the last check.
 *
 * Message i of the soak streams: many_fill(tag, i), byte 4 replaced by
 * the sender's life (the kernel's role counts its boots; ours is 0).
 * Within a life the receiver wants i = last + 1: below is a duplicate,
 * above a loss. A message of a new life may skip (the rebooted side's
 * queues died with it: RDS promises nothing across that), which is
 * counted apart.
 */
#define SOAK_OPS 4           /* RDMA ops in flight */
#define SOAK_OP_LEN 8192
#define SOAK_GUARD 64
#define SOAK_REG 65536       /* the kernel's region */
#define SOAK_POISON 0xee
#define SOAK_LMAP_EVERY (3 * RDSU_SEC)

struct soak_slot {
	uint64_t token;         /* 0: free */
	bool write;
	uint8_t *mem;           /* SOAK_GUARD + SOAK_OP_LEN + SOAK_GUARD */
};

struct soak {
	const char *ctl;
	struct rdsu_sock *rs;   /* RDMA, to the kernel's owner socket */
	uint16_t rport;
	struct soak_slot slot[SOAK_OPS];
	uint64_t cookie, next_token, resets_at_cookie, bad_token;
	rdsu_ns hello_at, lmap_at;
	unsigned refuse_next, qpkill_next;
	/* counts */
	uint64_t ops, notified, st[RDSU_RDMA_OTHER_ERROR + 1], bad_notify, guards_hit;
	uint64_t refused_posted, refused_notified, lmaps, hellos, cookies;
	uint64_t lost, dup, lost_life, dup_life;
	uint32_t rx_last;       /* last index + 1 of the current life */
	int rx_life;
	uint16_t pport;         /* the streams' peer port */
	uint8_t *want;
	uint8_t *lmap_mem;
};

static bool ctl_has(const struct soak *sk, const char *name)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", sk->ctl, name);
	return access(p, F_OK) == 0;
}

static int ctl_put(const struct soak *sk, const char *name, const char *text)
{
	char p[512], tmp[520];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", sk->ctl, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", p);
	f = fopen(tmp, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0 || rename(tmp, p) != 0)
		return -1;
	return 0;
}

static uint64_t stat_of(enum rdsu_stat which)
{
	struct rdsu_stats es;

	rdsu_ep_get_stats(rdsu_io_ep(io), &es);
	return es.v[which];
}

/* A slot's bytes between the guards: the op's local buffer. */
static uint8_t *slot_buf(struct soak_slot *s)
{
	return s->mem + SOAK_GUARD;
}

/* A free slot must hold the poison it got when its op ended, guards
 * included: anything else was written after the op was over. */
static bool slot_clean(const struct soak_slot *s)
{
	for (size_t i = 0; i < SOAK_OP_LEN + 2 * SOAK_GUARD; i++)
		if (s->mem[i] != SOAK_POISON)
			return false;
	return true;
}

static bool guards_ok(const struct soak_slot *s)
{
	for (size_t i = 0; i < SOAK_GUARD; i++)
		if (s->mem[i] != SOAK_POISON || s->mem[SOAK_GUARD + SOAK_OP_LEN + i] != SOAK_POISON)
			return false;
	return true;
}

static int soak_send_rs(struct soak *sk, const char *text, const struct rdsu_op *op)
{
	struct iovec iov = { (void *)text, strlen(text) };

	return rdsu_sock_submit_op(sk->rs, &soak_peer, sk->rport, &iov, 1, op, rdsu_clock());
}

/* One RDMA from a free slot against the kernel's region. */
static int soak_post(struct soak *sk, struct soak_slot *s)
{
	struct rdsu_op op;
	struct iovec v;
	int r;

	if (!slot_clean(s)) {
		fprintf(stderr, "ibpeer: soak: a freed RDMA buffer was written after its op ended\n");
		sk->guards_hit++;
		memset(s->mem, SOAK_POISON, SOAK_OP_LEN + 2 * SOAK_GUARD);
	}
	s->write = (sk->next_token & 1) != 0;
	if (s->write)
		many_fill(slot_buf(s), SOAK_OP_LEN, "rw", (uint32_t)sk->next_token);
	v.iov_base = slot_buf(s);
	v.iov_len = SOAK_OP_LEN;
	memset(&op, 0, sizeof(op));
	op.kind = RDSU_OP_RDMA;
	op.flags = RDSU_RDMA_NOTIFY_ME | (s->write ? RDSU_RDMA_READWRITE : 0);
	op.cookie = sk->cookie;
	op.remote_addr = (sk->next_token * SOAK_OP_LEN) % SOAK_REG;
	op.remote_len = SOAK_OP_LEN;
	op.local = &v;
	op.nr_local = 1;
	op.user_token = ++sk->next_token;
	r = soak_send_rs(sk, s->write ? "W" : "R", &op);
	if (r < 0) {
		sk->next_token--;
		if (!s->write)
			memset(s->mem, SOAK_POISON, SOAK_OP_LEN + 2 * SOAK_GUARD);
		else
			memset(slot_buf(s), SOAK_POISON, SOAK_OP_LEN);
		return r;
	}
	s->token = op.user_token;
	sk->ops++;
	return 0;
}

/* The refused RDMA: an r_key the kernel never gave out ends the QP
 * (docs/kernel-behaviour.md, "a refused RDMA ... ends the QP"). */
static int soak_refuse(struct soak *sk)
{
	static uint8_t tiny[64];
	struct iovec v = { tiny, sizeof(tiny) };
	struct rdsu_op op;
	int r;

	memset(&op, 0, sizeof(op));
	op.kind = RDSU_OP_RDMA;
	op.flags = RDSU_RDMA_NOTIFY_ME | RDSU_RDMA_READWRITE;
	op.cookie = rdsu_cookie_make(rdsu_cookie_rkey(sk->cookie) ^ 0x5a5a5a00u, 0);
	op.remote_len = sizeof(tiny);
	op.local = &v;
	op.nr_local = 1;
	op.user_token = sk->bad_token = (1ull << 62) | ++sk->refused_posted;
	r = soak_send_rs(sk, "BAD", &op);
	if (r < 0) {
		sk->refused_posted--;
		sk->bad_token = 0;
		return r;
	}
	printf("ibpeer: soak refuse %u posted\n", sk->refuse_next);
	fflush(stdout);
	return 0;
}

/* Register a region of ours, send its cookie and free it at once: the
 * message holds it until it leaves our queues, whatever breaks. */
static void soak_lmap(struct soak *sk)
{
	uint64_t cookie = 0;
	struct rdsu_op op;

	memset(&op, 0, sizeof(op));
	op.kind = RDSU_OP_MAP;
	op.flags = RDSU_RDMA_READWRITE;
	op.map_addr = sk->lmap_mem;
	op.map_len = 16384;
	op.map_cookie = &cookie;
	if (soak_send_rs(sk, "LMAP", &op) < 0)
		return;
	sk->lmaps++;
	if (rdsu_sock_free_mr(sk->rs, cookie, RDSU_RDMA_INVALIDATE) < 0)
		fprintf(stderr, "ibpeer: soak: free_mr of a mapped region failed\n");
}

static void soak_notify(struct soak *sk)
{
	struct rdsu_notify n;

	while (rdsu_sock_next_notify(sk->rs, &n) == 1) {
		struct soak_slot *s = NULL;

		sk->notified++;
		if (n.status >= 0 && n.status <= RDSU_RDMA_OTHER_ERROR)
			sk->st[n.status]++;
		if (n.user_token && n.user_token == sk->bad_token) {
			sk->refused_notified++;
			sk->bad_token = 0;
			printf("ibpeer: soak refuse %u notified status %d\n", sk->refuse_next - 1,
			       n.status);
			if (n.status == RDSU_RDMA_SUCCESS)
				sk->bad_notify++;
			sk->cookie = 0;
			continue;
		}
		for (unsigned i = 0; i < SOAK_OPS; i++)
			if (sk->slot[i].token && sk->slot[i].token == n.user_token)
				s = &sk->slot[i];
		if (!s) {
			fprintf(stderr, "ibpeer: soak: notification for token %llu, none pending\n",
				(unsigned long long)n.user_token);
			sk->bad_notify++;
			continue;
		}
		if (!guards_ok(s))
			sk->guards_hit++;
		s->token = 0;
		memset(s->mem, SOAK_POISON, SOAK_OP_LEN + 2 * SOAK_GUARD);
		if (n.status != RDSU_RDMA_SUCCESS)
			sk->cookie = 0; /* the region may be gone: ask again */
	}
}

static bool soak_ops_pending(const struct soak *sk);

/* The RDMA side's turn: a cookie (asked for after every reset), ops in
 * flight, a refused one when the harness asks, a region of ours now and
 * then. */
static void soak_rdma(struct soak *sk, bool stopping)
{
	struct iovec iov;
	char buf[64], name[32];
	rdsu_ns now = rdsu_clock();

	soak_notify(sk);
	for (;;) {
		struct rdsu_rxinfo ri;
		ssize_t n;

		iov.iov_base = buf;
		iov.iov_len = sizeof(buf) - 1;
		n = rdsu_sock_read(sk->rs, &iov, 1, 0, &ri, now);
		if (n < 0)
			break;
		if (!ri.cong && ri.has_cookie && n == 3 && memcmp(buf, "MAP", 3) == 0) {
			sk->cookie = ri.cookie;
			sk->cookies++;
			sk->resets_at_cookie = stat_of(RDSU_STAT_CONN_RESET);
		}
	}
	if (stopping)
		return;
	if (sk->cookie && stat_of(RDSU_STAT_CONN_RESET) != sk->resets_at_cookie)
		sk->cookie = 0;
	if (!sk->cookie) {
		if (!sk->hello_at || now - sk->hello_at > 2 * RDSU_SEC) {
			if (soak_send_rs(sk, "HELLO", NULL) >= 0) {
				sk->hellos++;
				sk->hello_at = now;
			}
		}
		return;
	}
	sk->hello_at = 0;
	snprintf(name, sizeof(name), "qpkill-%u", sk->qpkill_next);
	if (soak_ops_pending(sk) && ctl_has(sk, name)) {
		int n = rdsu_ib_fault_qp(io), p = 0;

		for (unsigned i = 0; i < SOAK_OPS; i++)
			p += sk->slot[i].token != 0;
		printf("ibpeer: soak qpkill %u broke %d with %d ops in flight\n", sk->qpkill_next++,
		       n, p);
		fflush(stdout);
	}
	snprintf(name, sizeof(name), "refuse-%u", sk->refuse_next);
	if (!sk->bad_token && ctl_has(sk, name) && soak_refuse(sk) == 0) {
		sk->refuse_next++;
		return;
	}
	for (unsigned i = 0; i < SOAK_OPS; i++)
		if (!sk->slot[i].token && soak_post(sk, &sk->slot[i]) < 0)
			break;
	if (now - sk->lmap_at > SOAK_LMAP_EVERY) {
		sk->lmap_at = now;
		soak_lmap(sk);
	}
}

/* One soak message from the peer: in its place within its life. */
static int soak_one(void *ctx, const struct rdsu_rxinfo *info, ssize_t n)
{
	struct soak *sk = ctx;
	uint16_t pport = sk->pport;
	uint8_t *want = sk->want;
	uint32_t idx, len;
	int life;

	if (n < 8 || info->sport != pport) {
		fprintf(stderr, "ibpeer: soak: %zd bytes from port %u\n", n, info->sport);
		return -1;
	}
	idx = (uint32_t)rbuf[0] << 24 | (uint32_t)rbuf[1] << 16 | (uint32_t)rbuf[2] << 8 | rbuf[3];
	life = rbuf[4];
	len = MANY_SIZES[idx % N_MANY];
	many_fill(want, len, many_in, idx);
	want[4] = (uint8_t)life;
	if ((uint32_t)n != len || memcmp(rbuf, want, len) != 0) {
		fprintf(stderr, "ibpeer: soak: message %u: %zd bytes, not the sender's\n", idx, n);
		return -1;
	}
	if (life < sk->rx_life) {
		sk->dup++;
		fprintf(stderr, "ibpeer: soak: message %u of an old life %d\n", idx, life);
	} else if (life > sk->rx_life) {
		/* a rebooted sender numbers on from what it had sent */
		if (idx > sk->rx_last)
			sk->lost_life += idx - sk->rx_last;
		else
			sk->dup_life += sk->rx_last - idx;
		sk->rx_life = life;
		sk->rx_last = idx + 1;
		printf("ibpeer: soak life %d from message %u\n", life, idx);
	} else if (idx == sk->rx_last) {
		sk->rx_last++;
	} else if (idx < sk->rx_last) {
		sk->dup++;
		fprintf(stderr, "ibpeer: soak: message %u again (next %u)\n", idx, sk->rx_last);
	} else {
		sk->lost += idx - sk->rx_last;
		fprintf(stderr, "ibpeer: soak: messages %u..%u lost\n", sk->rx_last, idx - 1);
		sk->rx_last = idx + 1;
	}
	return 0;
}

static void soak_line(const struct soak *sk, const char *what, uint32_t tx, rdsu_ns t0)
{
	struct rdsu_ib_stats st;
	size_t pos = 0;
	struct rdsu_conn_info ci;
	unsigned sendq = 0, retq = 0;

	memset(&st, 0, sizeof(st));
	(void)rdsu_ib_get_stats(io, &st);
	while (rdsu_ep_conn_next(rdsu_io_ep(io), &pos, &ci) == 1) {
		sendq += ci.path[0].send_q_msgs;
		retq += ci.path[0].retrans_q_msgs;
	}
	printf("ibpeer: soak %s t %.0f rx %u life %d tx %u rss_kb %ld resets %llu resent %llu "
	       "dups_dropped %llu ops %llu notified %llu success %llu remote_error %llu "
	       "canceled %llu dropped %llu other_error %llu bad_notify %llu guards_hit %llu "
	       "refused %llu/%llu lmaps %llu cookies %llu ep_mrs %u sock_mrs %u ib_mrs %llu "
	       "send_q %u retrans_q %u lost %llu dup %llu lost_life %llu dup_life %llu "
	       "dev_removed %llu dev_vanished %llu\n",
	       what, (double)(rdsu_clock() - t0) / 1e9, sk->rx_last, sk->rx_life, tx, rss_kb(),
	       (unsigned long long)stat_of(RDSU_STAT_CONN_RESET),
	       (unsigned long long)stat_of(RDSU_STAT_SEND_RETRANSMITTED),
	       (unsigned long long)stat_of(RDSU_STAT_RECV_DROP_OLD_SEQ),
	       (unsigned long long)sk->ops, (unsigned long long)sk->notified,
	       (unsigned long long)sk->st[0], (unsigned long long)sk->st[1],
	       (unsigned long long)sk->st[2], (unsigned long long)sk->st[3],
	       (unsigned long long)sk->st[4], (unsigned long long)sk->bad_notify,
	       (unsigned long long)sk->guards_hit, (unsigned long long)sk->refused_notified,
	       (unsigned long long)sk->refused_posted, (unsigned long long)sk->lmaps,
	       (unsigned long long)sk->cookies, rdsu_ep_mr_count(rdsu_io_ep(io)),
	       rdsu_sock_mr_count(sk->rs), (unsigned long long)st.mrs, sendq, retq,
	       (unsigned long long)sk->lost, (unsigned long long)sk->dup,
	       (unsigned long long)sk->lost_life, (unsigned long long)sk->dup_life,
	       (unsigned long long)st.dev_removed, (unsigned long long)st.dev_vanished);
	fflush(stdout);
}

/* The kernel's last count, once it wrote it: "TX LIFE". */
static bool soak_kernel_tx(const struct soak *sk, uint32_t *tx, int *life)
{
	char p[512];
	FILE *f;
	int ok;

	snprintf(p, sizeof(p), "%s/kernel_tx", sk->ctl);
	f = fopen(p, "r");
	if (!f)
		return false;
	ok = fscanf(f, "%u %d", tx, life) == 2;
	fclose(f);
	return ok;
}

static bool soak_ops_pending(const struct soak *sk)
{
	if (sk->bad_token)
		return true;
	for (unsigned i = 0; i < SOAK_OPS; i++)
		if (sk->slot[i].token)
			return true;
	return false;
}

static bool soak_queues_empty(void)
{
	size_t pos = 0;
	struct rdsu_conn_info ci;

	while (rdsu_ep_conn_next(rdsu_io_ep(io), &pos, &ci) == 1)
		if (ci.path[0].send_q_msgs || ci.path[0].retrans_q_msgs)
			return false;
	return true;
}

static int soak_free(struct soak *sk, int r)
{
	for (unsigned i = 0; i < SOAK_OPS; i++)
		free(sk->slot[i].mem);
	free(sk->lmap_mem);
	return r;
}

/* Messages both ways until "stop", RDMA beside them; then everything the
 * other side sent must have come, every op notified, the queues empty. */
static int soak(const struct rdsu_addr *peer, uint16_t pport, const struct plan *pl,
		uint8_t *buf, uint8_t *want)
{
	struct soak sk = { .ctl = pl->ctl, .rs = rdma_sock, .rport = pl->rdma_peer_port,
			   .pport = pport, .want = want };
	rdsu_ns t0 = rdsu_clock(), shown = t0;
	uint32_t tx = 0, ktx = 0;
	int klife = -1, last = 0;
	bool stopping = false, have_ktx = false;
	char text[64];

	soak_peer = *peer;
	for (unsigned i = 0; i < SOAK_OPS; i++) {
		sk.slot[i].mem = malloc(SOAK_OP_LEN + 2 * SOAK_GUARD);
		if (!sk.slot[i].mem)
			return soak_free(&sk, -1);
		memset(sk.slot[i].mem, SOAK_POISON, SOAK_OP_LEN + 2 * SOAK_GUARD);
	}
	sk.lmap_mem = aligned_alloc(4096, 16384);
	if (!sk.lmap_mem || rdsu_sock_set_sndbuf(sock, 1u << 20, rdsu_clock()) < 0)
		return soak_free(&sk, -1);
	memset(sk.lmap_mem, 0, 16384);
	soak_line(&sk, "start", tx, t0);
	for (;;) {
		bool moved = false;

		if (!stopping && ctl_has(&sk, "stop")) {
			stopping = true;
			snprintf(text, sizeof(text), "%u\n", tx);
			if (ctl_put(&sk, "peer_tx", text) < 0)
				return soak_free(&sk, -1);
			soak_line(&sk, "stopping", tx, t0);
		}
		while (!stopping) {
			uint32_t len = MANY_SIZES[tx % N_MANY];
			struct iovec iov = { .iov_base = buf, .iov_len = len };

			many_fill(buf, len, many_out, tx);
			buf[4] = 0;
			last = rdsu_sock_submit(sock, peer, pport, &iov, 1, rdsu_clock());
			if (last == -EAGAIN || last == -ENOBUFS)
				break;
			if (last < 0) {
				fprintf(stderr, "ibpeer: soak: submit: %s\n", rdsu_strerror(last));
				return soak_free(&sk, -1);
			}
			tx++;
			moved = true;
		}
		soak_rdma(&sk, stopping);
		(void)rdsu_io_flush(io);
		if (read_waiting(soak_one, &sk, &moved) < 0)
			return soak_free(&sk, -1);
		downs_line();
		if (rdsu_clock() - shown > 2 * RDSU_SEC) {
			shown = rdsu_clock();
			soak_line(&sk, "at", tx, t0);
		}
		if (stopping && !have_ktx)
			have_ktx = soak_kernel_tx(&sk, &ktx, &klife);
		if (have_ktx && sk.rx_life == klife && sk.rx_last == ktx && !soak_ops_pending(&sk) &&
		    soak_queues_empty())
			break;
		if (rdsu_clock() > deadline) {
			fprintf(stderr, "ibpeer: soak: out of time at rx %u (kernel sent %u, life %d) "
				"ops pending %d queues empty %d\n", sk.rx_last, ktx, klife,
				soak_ops_pending(&sk), soak_queues_empty());
			soak_line(&sk, "timeout", tx, t0);
			return soak_free(&sk, -1);
		}
		if (!moved)
			(void)rdsu_io_wait(io, sock, RDSU_POLLIN,
					   rdsu_clock() + (last == -ENOBUFS ? 2 : 20) * RDSU_MSEC);
	}
	/* What the transport still held for us (regions of queued messages)
	 * is given back as they leave; a moment for the last acks. */
	(void)rdsu_io_wait(io, sock, 0, rdsu_clock() + RDSU_SEC);
	soak_notify(&sk);
	soak_line(&sk, "done", tx, t0);
	return soak_free(&sk, sk.lost || sk.dup || sk.bad_notify || sk.guards_hit ? -1 : 0);
}

/* Active: we speak first, so we connect. Passive: the peer speaks first
 * and connects to our listener. Then --many, then congestion. */
static int run(const struct rdsu_addr *peer, uint16_t pport, const struct plan *pl)
{
	uint8_t *buf = malloc(1u << 20), *want = malloc(1u << 20);
	int r = 0;

	if (!buf || !want) {
		free(buf);
		free(want);
		return 1;
	}
	if (pl->sizes && pl->passive)
		r = recv_sizes(peer, pport, buf) || pings_to(peer, pl->pings) ||
		    send_sizes(peer, pport, buf);
	else if (pl->sizes)
		r = pings_to(peer, pl->pings) || send_sizes(peer, pport, buf) ||
		    recv_sizes(peer, pport, buf);
	if (!r && pl->soak)
		r = soak(peer, pport, pl, buf, want);
	if (!r && pl->many)
		r = many(peer, pport, pl->many, pl->passive, buf, want);
	if (!r && pl->cong_port)
		r = cong_send(peer, pl->cong_port, pl->cong_count, buf);
	if (!r && pl->cong_recv_port)
		r = cong_recv(peer, pport, pl->cong_count, want);
	/* Until the peer has our last message: its h_ack frees it. */
	if (!r)
		(void)rdsu_io_wait(io, sock, 0, rdsu_clock() + 2 * RDSU_SEC);
	free(buf);
	free(want);
	return r ? 1 : 0;
}

static int set_up_socket(struct rdsu_sock **s, const struct rdsu_addr *me, unsigned port,
			 uint32_t rcvbuf)
{
	return rdsu_sock_new(rdsu_io_ep(io), s) < 0 || rdsu_sock_bind(*s, me, (uint16_t)port) < 0 ||
	       rdsu_sock_set_sndbuf(*s, 8u << 20, rdsu_clock()) < 0 ||
	       rdsu_sock_set_rcvbuf(*s, rcvbuf, rdsu_clock()) < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	enum { O_MIRROR = 0x100, O_NO_SIZES, O_MANY, O_CONG_PORT, O_CONG_COUNT,
	       O_CONG_RECV, O_CREDITS, O_RECV_RING, O_SEND_RING, O_RETRY, O_SOAK, O_CTL,
	       O_RDMA_PORT, O_RDMA_PEER_PORT };
	static const struct option lo[] = {
		{ "bind", 1, NULL, 'b' }, { "port", 1, NULL, 'p' },
		{ "peer", 1, NULL, 'P' }, { "peer-port", 1, NULL, 'q' },
		{ "pings", 1, NULL, 'n' }, { "no-listen", 0, NULL, 'L' },
		{ "timeout", 1, NULL, 't' }, { "passive", 0, NULL, 'a' },
		{ "ready-file", 1, NULL, 'r' }, { "mirror", 0, NULL, O_MIRROR },
		{ "no-sizes", 0, NULL, O_NO_SIZES }, { "many", 1, NULL, O_MANY },
		{ "cong-port", 1, NULL, O_CONG_PORT }, { "cong-count", 1, NULL, O_CONG_COUNT },
		{ "cong-recv-port", 1, NULL, O_CONG_RECV },
		{ "offer-credits", 0, NULL, O_CREDITS }, { "recv-ring", 1, NULL, O_RECV_RING },
		{ "send-ring", 1, NULL, O_SEND_RING }, { "retry-count", 1, NULL, O_RETRY },
		{ "soak", 0, NULL, O_SOAK }, { "ctl", 1, NULL, O_CTL },
		{ "rdma-port", 1, NULL, O_RDMA_PORT }, { "rdma-peer-port", 1, NULL, O_RDMA_PEER_PORT },
		{ NULL, 0, NULL, 0 },
	};
	struct plan pl = { .pings = 3, .sizes = true, .cong_count = 300 };
	struct rdsu_addr me, peer;
	bool have_me = false, have_peer = false, no_listen = false, credits = false;
	unsigned port = 0, pport = 0, timeout = 300, rring = 0, sring = 0;
	int retry = -1;
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
		case 'n': pl.pings = (unsigned)atoi(optarg); break;
		case 'L': no_listen = true; break;
		case 't': timeout = (unsigned)atoi(optarg); break;
		case 'a': pl.passive = true; break;
		case 'r': ready = optarg; break;
		case O_MIRROR:
			tag_out = "b2a";
			tag_in = "a2b";
			many_out = "mb";
			many_in = "ma";
			pl.pings = 0;
			break;
		case O_NO_SIZES: pl.sizes = false; break;
		case O_MANY: pl.many = (uint32_t)strtoul(optarg, NULL, 10); break;
		case O_CONG_PORT: pl.cong_port = (uint16_t)atoi(optarg); break;
		case O_CONG_COUNT: pl.cong_count = (uint32_t)strtoul(optarg, NULL, 10); break;
		case O_CONG_RECV: pl.cong_recv_port = (uint16_t)atoi(optarg); break;
		case O_CREDITS: credits = true; break;
		case O_RECV_RING: rring = (unsigned)atoi(optarg); break;
		case O_SEND_RING: sring = (unsigned)atoi(optarg); break;
		case O_RETRY: retry = atoi(optarg); break;
		case O_SOAK: pl.soak = true; pl.sizes = false; pl.pings = 0; break;
		case O_CTL: pl.ctl = optarg; break;
		case O_RDMA_PORT: pl.rdma_port = (uint16_t)atoi(optarg); break;
		case O_RDMA_PEER_PORT: pl.rdma_peer_port = (uint16_t)atoi(optarg); break;
		default: return 2;
		}
	}
	if (!have_me || !have_peer || !port || port > 65535 || !pport || pport > 65535) {
		fprintf(stderr, "usage: ibpeer --bind ADDR --port P --peer ADDR --peer-port Q\n");
		return 2;
	}
	if (pl.soak && (!pl.ctl || !pl.rdma_port || !pl.rdma_peer_port)) {
		fprintf(stderr, "ibpeer: --soak needs --ctl, --rdma-port and --rdma-peer-port\n");
		return 2;
	}
	rdsu_ep_cfg_default(&ec);
	ec.laddrs[0] = me;
	ec.n_laddrs = 1;
	ec.rdma_laddrs = 1;  /* the address is on rxe0: its sockets take IB */
	rdsu_io_cfg_default(&ic);
	rdsu_ib_cfg_default(&bc);
	bc.no_listen = no_listen;
	bc.offer_credits = credits;
	if (rring)
		bc.recv_ring = rring;
	if (sring)
		bc.send_ring = sring;
	if (retry >= 0)
		bc.retry_count = (uint8_t)retry;
	ic.transports = RDSU_IO_IB;
	ic.ib = &bc;
	r = rdsu_io_new(&io, &ec, &ic);
	if (r < 0) {
		fprintf(stderr, "ibpeer: rdsu_io_new: %s\n", rdsu_strerror(r));
		return 1;
	}
	rbuf = malloc((1u << 20) + 1);
	if (!rbuf || set_up_socket(&sock, &me, port, 8u << 20) < 0 ||
	    (pl.cong_recv_port &&
	     set_up_socket(&cong_sock, &me, pl.cong_recv_port, CONG_RCVBUF) < 0) ||
	    (pl.soak && set_up_socket(&rdma_sock, &me, pl.rdma_port, 1u << 20) < 0)) {
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
	r = run(&peer, (uint16_t)pport, &pl);
	stats_line();
	printf("ibpeer: %s\n", r ? "FAIL" : "done");
	if (cong_sock)
		rdsu_sock_free(cong_sock, rdsu_clock());
	if (rdma_sock)
		rdsu_sock_free(rdma_sock, rdsu_clock());
	rdsu_sock_free(sock, rdsu_clock());
	rdsu_io_free(io);
	free(rbuf);
	return r;
}
