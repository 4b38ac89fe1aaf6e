// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rdmadrv - librds's RDMA against a kernel's region, for the lab
 * (tests/lab/rdma_librds.py): librds on the IB transport drives, a
 * kernel AF_RDS socket owns the memory.
 *
 *   rdmadrv --bind ADDR --port P --peer ADDR --peer-port Q [--timeout S]
 *           [--ready-file PATH] [--owner]
 *
 * Every control message is one line of ASCII. Steps:
 *   -> HELLO                  the owner maps REG bytes (100 bytes past a
 *                             page boundary) filled with fill(1) with
 *   <- MAP                    RDS_CMSG_RDMA_MAP: librds gets the cookie
 *                             from its RDMA_DEST exthdr, then
 *   <- MR <cookie>            the cookie the kernel wrote, which must be
 *                             the same
 *   RDMA READ of the whole region (two local vectors), NOTIFY_ME: SUCCESS,
 *      the bytes fill(1)
 *   RDMA WRITE of fill(2) at WOFF, WLEN bytes (three vectors), NOTIFY_ME
 *      and FENCE: SUCCESS; -> CHECK WOFF WLEN 2, <- CHECKED ok (the owner
 *      hashes the region: fill(2) there, fill(1) elsewhere, guards intact)
 *   RDMA READ of that range back: fill(2)
 *   -> FREE                   RDS_FREE_MR with RDS_RDMA_INVALIDATE, <- FREED 0
 *   RDMA WRITE at 0: not SUCCESS (the region is gone); -> CHECK 0 0 1,
 *      <- CHECKED ok (nothing landed)
 *   -> BYE
 * --owner: the other way round, librds owns the memory and the kernel
 * drives: librds maps REG bytes filled with fill(1) with RDSU_OP_MAP and
 *   <- MAP, then MR <cookie>  (librds to the kernel)
 *   -> CHECK off len seed     after each of the kernel's RDMA writes:
 *   <- CHECKED ok             librds checks its region and guards
 *   -> BYE
 * fill(seed): byte i of the region is (i * 131 + seed * 7 + (i >> 8)) & 0xff.
 * Prints "rdmadrv: <step> ok|FAIL ..." lines; exit 0 all held, 1 not, 2 usage.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rds/rdsu_ib.h>
#include <rds/rdsu_io.h>

#define REG 65536
#define WOFF 4096
#define WLEN 32768

static struct rdsu_io *io;
static struct rdsu_sock *sock;
static struct rdsu_addr peer;
static uint16_t pport;
static rdsu_ns deadline;
static int fails;

static uint8_t fill(size_t i, unsigned seed)
{
	return (uint8_t)((i * 131 + seed * 7 + (i >> 8)) & 0xff);
}

static void step(const char *what, int ok, const char *more)
{
	printf("rdmadrv: %s %s%s%s\n", what, ok ? "ok" : "FAIL", more ? " " : "", more ? more : "");
	fflush(stdout);
	fails += !ok;
}

static int send_line(const char *text, const struct rdsu_op *op)
{
	struct iovec iov = { (void *)text, strlen(text) };

	for (;;) {
		int r = rdsu_sock_submit_op(sock, &peer, pport, &iov, 1, op, rdsu_clock());

		if (r != -EAGAIN && r != -ENOBUFS)
			return r;
		if (rdsu_io_wait(io, sock, RDSU_POLLOUT, deadline) < 0)
			return -ETIMEDOUT;
	}
}

/* The next message: its text in |buf|, its cookie in *cookie (0: none). */
static int recv_line(char *buf, size_t cap, uint64_t *cookie)
{
	for (;;) {
		struct iovec iov = { buf, cap - 1 };
		struct rdsu_rxinfo ri;
		ssize_t n = rdsu_sock_read(sock, &iov, 1, 0, &ri, rdsu_clock());

		if (n >= 0 && !ri.cong) {
			buf[n] = 0;
			if (cookie)
				*cookie = ri.has_cookie ? ri.cookie : 0;
			return 0;
		}
		if (n < 0 && n != -EAGAIN)
			return (int)n;
		if (rdsu_clock() > deadline || rdsu_io_wait(io, sock, RDSU_POLLIN, deadline) < 0)
			return -ETIMEDOUT;
	}
}

static int wait_notify(struct rdsu_notify *n)
{
	for (;;) {
		int r = rdsu_sock_next_notify(sock, n);

		if (r)
			return r;
		if (rdsu_clock() > deadline || rdsu_io_wait(io, sock, RDSU_POLLIN, deadline) < 0)
			return -ETIMEDOUT;
	}
}

/* One RDMA against |cookie| at |off|, |len| bytes over |nv| vectors of
 * |local|; its notification's status, or a negative errno. */
static int rdma(uint64_t cookie, bool write, uint64_t off, uint8_t *local, size_t len, int nv,
		uint64_t token, unsigned extra)
{
	struct iovec v[3];
	struct rdsu_op op;
	struct rdsu_notify n;
	size_t per = len / (size_t)nv;
	int r;

	for (int i = 0; i < nv; i++)
		v[i] = (struct iovec){ local + per * (size_t)i, i == nv - 1 ? len - per * (size_t)i : per };
	memset(&op, 0, sizeof(op));
	op.kind = RDSU_OP_RDMA;
	op.flags = RDSU_RDMA_NOTIFY_ME | extra | (write ? RDSU_RDMA_READWRITE : 0);
	op.cookie = cookie;
	op.remote_addr = off;
	op.remote_len = len;
	op.local = v;
	op.nr_local = nv;
	op.user_token = token;
	r = send_line(write ? "W" : "R", &op);
	if (r < 0)
		return r;
	r = wait_notify(&n);
	if (r < 0)
		return r;
	return n.user_token == token ? n.status : -EPROTO;
}

static int run(void)
{
	static uint8_t local[REG];
	char line[256], more[128];
	uint64_t cookie = 0, said = 0;
	int st;
	size_t i;

	if (send_line("HELLO", NULL) < 0 || recv_line(line, sizeof(line), &cookie) < 0)
		return step("hello", 0, "no MAP"), 1;
	if (strcmp(line, "MAP") != 0 || recv_line(line, sizeof(line), NULL) < 0)
		return step("hello", 0, line), 1;
	if (sscanf(line, "MR %" SCNi64, &said) != 1)
		return step("hello", 0, line), 1;
	snprintf(more, sizeof(more), "cookie %#" PRIx64 " r_key %#x offset %u (kernel %#" PRIx64 ")",
		 cookie, rdsu_cookie_rkey(cookie), rdsu_cookie_offset(cookie), said);
	step("cookie", cookie && cookie == said, more);

	memset(local, 0, sizeof(local));
	st = rdma(cookie, false, 0, local, REG, 2, 1, 0);
	for (i = 0; st == RDSU_RDMA_SUCCESS && i < REG && local[i] == fill(i, 1); i++)
		;
	snprintf(more, sizeof(more), "status %d, %zu bytes right", st, i);
	step("read", st == RDSU_RDMA_SUCCESS && i == REG, more);

	for (i = 0; i < WLEN; i++)
		local[i] = fill(WOFF + i, 2);
	st = rdma(cookie, true, WOFF, local, WLEN, 3, 2, RDSU_RDMA_FENCE);
	snprintf(more, sizeof(more), "status %d", st);
	step("write", st == RDSU_RDMA_SUCCESS, more);
	snprintf(line, sizeof(line), "CHECK %u %u 2", WOFF, WLEN);
	if (send_line(line, NULL) < 0 || recv_line(line, sizeof(line), NULL) < 0)
		return step("check", 0, "no answer"), 1;
	step("check", strcmp(line, "CHECKED ok") == 0, line);

	memset(local, 0, sizeof(local));
	st = rdma(cookie, false, WOFF, local, WLEN, 1, 3, 0);
	for (i = 0; st == RDSU_RDMA_SUCCESS && i < WLEN && local[i] == fill(WOFF + i, 2); i++)
		;
	snprintf(more, sizeof(more), "status %d, %zu bytes right", st, i);
	step("read-back", st == RDSU_RDMA_SUCCESS && i == WLEN, more);

	if (send_line("FREE", NULL) < 0 || recv_line(line, sizeof(line), NULL) < 0)
		return step("free", 0, "no answer"), 1;
	step("free", strcmp(line, "FREED 0") == 0, line);
	memset(local, 0x5a, 4096);
	st = rdma(cookie, true, 0, local, 4096, 1, 4, 0);
	snprintf(more, sizeof(more), "status %d", st);
	step("write-freed", st > RDSU_RDMA_SUCCESS, more);
	if (send_line("CHECK 0 0 1", NULL) < 0 || recv_line(line, sizeof(line), NULL) < 0)
		return step("check-freed", 0, "no answer"), 1;
	step("check-freed", strcmp(line, "CHECKED ok") == 0, line);
	(void)send_line("BYE", NULL);
	(void)rdsu_io_wait(io, sock, 0, rdsu_clock() + 2 * RDSU_SEC);
	return fails ? 1 : 0;
}

/* --owner */
static int run_owner(void)
{
	enum { GUARD = 64 };
	static uint8_t mem[REG + 2 * GUARD], expect[REG];
	uint8_t *region = mem + GUARD;
	char line[256], more[160];
	struct rdsu_op op;
	uint64_t cookie = 0;
	size_t i;
	int r;

	memset(mem, 0xee, sizeof(mem));
	for (i = 0; i < REG; i++)
		region[i] = expect[i] = fill(i, 1);
	memset(&op, 0, sizeof(op));
	op.kind = RDSU_OP_MAP;
	op.flags = RDSU_RDMA_READWRITE;
	op.map_addr = region;
	op.map_len = REG;
	op.map_cookie = &cookie;
	r = send_line("MAP", &op);
	if (r < 0) {
		snprintf(more, sizeof(more), "%s", strerror(-r));
		return step("map", 0, more), 1;
	}
	snprintf(line, sizeof(line), "MR %#" PRIx64, cookie);
	step("map", send_line(line, NULL) >= 0, line);
	for (;;) {
		unsigned off, len, seed;
		size_t bad = 0;
		bool guards = true;

		if (recv_line(line, sizeof(line), NULL) < 0)
			return step("owner", 0, "no BYE"), 1;
		if (strcmp(line, "BYE") == 0)
			break;
		if (sscanf(line, "CHECK %u %u %u", &off, &len, &seed) != 3)
			continue; /* a message that carried the kernel's RDMA */
		for (i = off; i < (size_t)off + len && i < REG; i++)
			expect[i] = fill(i, seed);
		for (i = 0; i < REG; i++)
			bad += region[i] != expect[i];
		for (i = 0; i < GUARD; i++)
			guards = guards && mem[i] == 0xee && mem[GUARD + REG + i] == 0xee;
		snprintf(more, sizeof(more), "%u %u %u: %zu bytes differ, guards %s", off, len,
			 seed, bad, guards ? "intact" : "HIT");
		step("owner-check", !bad && guards, more);
		(void)send_line(!bad && guards ? "CHECKED ok" : "CHECKED bad", NULL);
	}
	(void)rdsu_io_wait(io, sock, 0, rdsu_clock() + 2 * RDSU_SEC);
	step("owner-regions", rdsu_sock_mr_count(sock) == 1, NULL);
	return fails ? 1 : 0;
}

static int parse_addr(const char *s, struct rdsu_addr *a)
{
	struct in_addr in;

	if (inet_pton(AF_INET, s, &in) != 1)
		return -1;
	*a = rdsu_addr_v4(ntohl(in.s_addr));
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "bind", 1, NULL, 'b' }, { "port", 1, NULL, 'p' },
		{ "peer", 1, NULL, 'P' }, { "peer-port", 1, NULL, 'q' },
		{ "timeout", 1, NULL, 't' }, { "ready-file", 1, NULL, 'r' },
		{ "owner", 0, NULL, 'o' }, { NULL, 0, NULL, 0 },
	};
	struct rdsu_addr me;
	bool have_me = false, have_peer = false, owner = false;
	unsigned port = 0, timeout = 120;
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
		case 'q': pport = (uint16_t)atoi(optarg); break;
		case 't': timeout = (unsigned)atoi(optarg); break;
		case 'r': ready = optarg; break;
		case 'o': owner = true; break;
		default: return 2;
		}
	}
	if (!have_me || !have_peer || !port || port > 65535 || !pport) {
		fprintf(stderr, "usage: rdmadrv --bind ADDR --port P --peer ADDR --peer-port Q\n");
		return 2;
	}
	rdsu_ep_cfg_default(&ec);
	ec.laddrs[0] = me;
	ec.n_laddrs = 1;
	ec.rdma_laddrs = 1;
	rdsu_io_cfg_default(&ic);
	rdsu_ib_cfg_default(&bc);
	ic.transports = RDSU_IO_IB;
	ic.ib = &bc;
	r = rdsu_io_new(&io, &ec, &ic);
	if (r < 0) {
		fprintf(stderr, "rdmadrv: rdsu_io_new: %s\n", rdsu_strerror(r));
		return 1;
	}
	if (rdsu_sock_new(rdsu_io_ep(io), &sock) < 0 || rdsu_sock_bind(sock, &me, (uint16_t)port) < 0) {
		fprintf(stderr, "rdmadrv: socket set-up failed\n");
		return 1;
	}
	if (ready) {
		FILE *f = fopen(ready, "w");

		if (f)
			fclose(f);
	}
	deadline = rdsu_clock() + (rdsu_ns)timeout * RDSU_SEC;
	r = owner ? run_owner() : run();
	printf("rdmadrv: %s\n", r ? "FAIL" : "done");
	rdsu_sock_free(sock, rdsu_clock());
	rdsu_io_free(io);
	return r;
}
