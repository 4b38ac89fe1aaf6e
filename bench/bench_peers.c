// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * bench_peers.c - memory a librds endpoint spends per idle peer.
 *
 *   bench_peers PEERS [NPATHS [HOLD]]
 *
 * A centre endpoint on 127.3.0.1 (this process) and PEERS endpoints on
 * 127.4.x.y (a child process). Every peer sends one 64-byte message to the
 * centre, which brings its connection up on all NPATHS paths (default 8,
 * as the kernel) with a congestion map each way; then everything idles.
 * The centre's cost is measured two ways, before and after:
 *   core   bytes librds's core holds (a counting allocator in cfg.mem);
 *   rss    the centre process's resident set (VmRSS), which adds the
 *          transport's per-connection state, malloc overhead and stacks.
 * Kernel socket buffers are not in either: they are the kernel's, the
 * same for any RDS/TCP stack (SO_SNDBUF/SO_RCVBUF autotuning).
 *
 * Prints one line: peers, paths, connections, core bytes per peer, RSS
 * bytes per peer, seconds to bring all up.
 *
 * With HOLD (seconds), the centre then publishes its monitor state
 * (rdsu_io_monitor(), the default path) and keeps running its loop that
 * long, for rdstop --librds to watch a thousand peers (bench/rdstop.sh);
 * a second line says "monitor=PATH pid=PID".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rds/rdsu.h>
#include <rds/rdsu_tcp.h>

#include "rss.h"

#define CENTRE_PORT 5000

static size_t core_bytes;

static void *count_alloc(size_t size, void *ud)
{
	size_t *p = malloc(size + 16);

	(void)ud;
	if (!p)
		return NULL;
	*p = size;
	core_bytes += size;
	return (char *)p + 16;
}

static void count_free(void *q, void *ud)
{
	size_t *p;

	(void)ud;
	if (!q)
		return;
	p = (size_t *)((char *)q - 16);
	core_bytes -= *p;
	free(p);
}

static struct rdsu_addr peer_addr(unsigned i)
{
	return rdsu_addr_v4(0x7f040000u | ((i / 250u) << 8) | (i % 250u + 1u));
}

static void die(const char *what, int e)
{
	fprintf(stderr, "bench_peers: %s: %s\n", what, rdsu_strerror(e));
	exit(2);
}

static struct rdsu_tcp *endpoint(struct rdsu_addr a, unsigned npaths, bool counted)
{
	struct rdsu_ep_cfg cfg;
	struct rdsu_tcp_cfg tc;
	struct rdsu_tcp *t;
	int e;

	rdsu_ep_cfg_default(&cfg);
	cfg.laddrs[0] = a;
	cfg.n_laddrs = 1;
	cfg.npaths = (uint16_t)npaths;
	cfg.gen_num = 1 + (uint32_t)rand();
	cfg.seed = (uint64_t)rand();
	/* the centre holds PEERS x PATHS links, past the defaults against
	 * hostile peers (4096 links and peers) */
	cfg.max_links = 1u << 20;
	cfg.max_conns = 1u << 20;
	if (counted) {
		cfg.mem.alloc = count_alloc;
		cfg.mem.free = count_free;
	}
	rdsu_tcp_cfg_default(&tc);
	e = rdsu_tcp_new(&t, &cfg, &tc);
	if (e < 0)
		die("rdsu_tcp_new", e);
	return t;
}

/* The child: PEERS endpoints, one message each, then idle until killed. */
static void peers(unsigned n, unsigned npaths, int ready_fd)
{
	struct rdsu_tcp **t = calloc(n, sizeof(*t));
	struct rdsu_addr centre = rdsu_addr_v4(0x7f030001);
	uint8_t msg[64] = { 0 };
	struct iovec iov = { msg, sizeof(msg) };

	for (unsigned i = 0; i < n; i++) {
		struct rdsu_sock *s;
		struct rdsu_addr a = peer_addr(i);
		int e;

		t[i] = endpoint(a, npaths, false);
		if ((e = rdsu_sock_new(rdsu_tcp_ep(t[i]), &s)) < 0 ||
		    (e = rdsu_sock_bind(s, &a, 4000)) < 0 ||
		    (e = rdsu_sock_submit(s, &centre, CENTRE_PORT, &iov, 1, rdsu_clock())) < 0)
			die("peer send", e);
	}
	(void)!write(ready_fd, "x", 1);
	for (;;)
		for (unsigned i = 0; i < n; i++)
			(void)rdsu_tcp_run(t[i], i + 1 == n ? 1 : 0);
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 0, npaths = argc > 2 ? (unsigned)atoi(argv[2]) : 8;
	unsigned hold = argc > 3 ? (unsigned)atoi(argv[3]) : 0;
	struct rlimit rl;
	struct rdsu_tcp *c;
	struct rdsu_sock *s;
	struct rdsu_addr centre = rdsu_addr_v4(0x7f030001);
	size_t core0;
	long rss0;
	rdsu_ns t0, idle_since = 0;
	unsigned got = 0;
	int pfd[2], e;
	pid_t pid;
	char x;

	if (n < 1 || n > 5000 || (npaths != 1 && npaths != 2 && npaths != 4 && npaths != 8)) {
		fprintf(stderr, "usage: bench_peers PEERS(1..5000) [NPATHS 1|2|4|8]\n");
		return 2;
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	c = endpoint(centre, npaths, true);
	if ((e = rdsu_sock_new(rdsu_tcp_ep(c), &s)) < 0 || (e = rdsu_sock_bind(s, &centre, CENTRE_PORT)) < 0)
		die("centre socket", e);
	(void)rdsu_tcp_run(c, 0);
	core0 = core_bytes;
	rss0 = rss_kb();
	if (pipe(pfd) < 0)
		return 2;
	pid = fork();
	if (pid == 0) {
		/* go with the centre, however it ends */
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(pfd[0]);
		peers(n, npaths, pfd[1]);
		_exit(0);
	}
	close(pfd[1]);
	if (read(pfd[0], &x, 1) != 1) {
		fprintf(stderr, "bench_peers: the peers did not start\n");
		return 2;
	}
	t0 = rdsu_clock();
	/* up: every message in, then every connection's paths up, then quiet */
	for (;;) {
		uint8_t buf[128];
		struct iovec iov = { buf, sizeof(buf) };
		struct rdsu_rxinfo info;
		unsigned up = 0;

		(void)rdsu_tcp_run(c, 10);
		while (rdsu_sock_read(s, &iov, 1, 0, &info, rdsu_clock()) >= 0)
			got += !info.cong;
		for (unsigned i = 0; i < n; i++) {
			struct rdsu_addr a = peer_addr(i);
			struct rdsu_conn_info ci;

			if (rdsu_ep_conn_get(rdsu_tcp_ep(c), &centre, &a, &ci) == 0)
				for (unsigned p = 0; p < npaths; p++)
					up += ci.path[p].state == RDSU_PATH_UP;
		}
		if (got == n && up == n * npaths) {
			if (!idle_since)
				idle_since = rdsu_clock();
			else if (rdsu_clock() - idle_since > RDSU_SEC)
				break;
		}
		if (rdsu_clock() - t0 > 300 * RDSU_SEC) {
			fprintf(stderr, "bench_peers: only %u of %u messages, %u of %u paths up\n", got, n, up,
				n * npaths);
			kill(pid, SIGKILL);
			return 1;
		}
	}
	printf("peers=%u paths=%u connections=%u core_bytes_per_peer=%.0f rss_bytes_per_peer=%.0f "
	       "up_s=%.2f\n",
	       n, npaths, n * npaths, (double)(core_bytes - core0) / n,
	       (double)(rss_kb() - rss0) * 1024 / n, (double)(idle_since - t0) / 1e9);
	if (hold) {
		rdsu_ns until;

		if ((e = rdsu_io_monitor(rdsu_tcp_io(c), NULL)) < 0)
			die("rdsu_io_monitor", e);
		printf("monitor=%s pid=%d\n", rdsu_io_monitor_path(rdsu_tcp_io(c)), (int)getpid());
		fflush(stdout);
		until = rdsu_clock() + (rdsu_ns)hold * RDSU_SEC;
		while (rdsu_clock() < until)
			(void)rdsu_tcp_run(c, 100);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	rdsu_sock_free(s, rdsu_clock());
	rdsu_tcp_free(c);
	return 0;
}
