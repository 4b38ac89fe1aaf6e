/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * ctl.h - rdsperf's control channel: one JSON object per line over TCP,
 * like iperf3's. The client proposes a test ("start"), the server answers
 * with the ports of its RDS sockets ("ready") or why not ("error"), the
 * client says "stop" when its time is up and the server answers with what
 * it counted ("result"). Every object carries "rdsperf": CTL_VERSION; a
 * peer speaking another version is refused with a clear error, never
 * guessed at.
 *
 * Everything here is pure (strings in, structures out) so the decoder,
 * which reads what a remote peer sent, is unit-tested and fuzzed.
 */
#ifndef RDSPERF_CTL_H
#define RDSPERF_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <wire/wire.h>

#define CTL_VERSION 1
#define CTL_PORT 18515          /* default control port */
#define CTL_MAX_LINE 65536      /* longer lines are an error, not a buffer */
#define PERF_MAX_SOCKS 64
#define PERF_MAX_SIZE (1u << 20) /* RDS_MAX_MSG_SIZE on the wire */
#define PERF_MAX_DEPTH 4096
#define PERF_MAX_BUF (1u << 30)

enum perf_test { PERF_STREAM, PERF_RR, PERF_PINGPONG, PERF_RDMA_WRITE, PERF_RDMA_READ, PERF_ATOMIC };

/* rdma-write, rdma-read and atomic: operations on memory the server
 * registered (rdma.c), at most this many in flight in all (sockets x
 * depth), each on a slot of its own. */
#define PERF_RDMA_MAX_SLOTS 256
#define PERF_ATOMIC_SIZE 8      /* an atomic's operand */
static inline bool perf_test_rdma(enum perf_test t)
{
	return t == PERF_RDMA_WRITE || t == PERF_RDMA_READ || t == PERF_ATOMIC;
}

struct perf_params {
	enum perf_test test;
	uint32_t size;          /* stream: message size; rr/pingpong: request size */
	uint32_t rsize;         /* rr/pingpong: response size */
	uint32_t depth;         /* rr: requests outstanding per socket */
	uint32_t sockets;       /* client sockets, each paired with one server socket */
	uint32_t paths;         /* librds: paths to advertise (1, 2, 4, 8) */
	uint32_t kver;          /* librds: 6 or 7 */
	bool path_by_pair;      /* librds: a message's path by its port pair, not the kernel's rule */
	double duration;        /* seconds of measurement after the omit */
	double omit;            /* seconds of warm-up not counted */
	uint32_t buf;           /* SNDBUF and RCVBUF of every socket, both ends
				 * (0: the stack's default) */
	bool verify;            /* fill and check every payload byte */
	bool reverse;           /* stream: the server sends, the client receives */
	char client_addr[64];   /* the client's RDS address */
	uint16_t client_ports[PERF_MAX_SOCKS];
};

/* What the server counted between start and stop. */
struct perf_result {
	uint64_t msgs, bytes;   /* messages and payload bytes received; sent, with reverse */
	uint64_t sent;          /* responses sent (rr, pingpong) */
	uint64_t verify_errors; /* messages whose payload or sequence was wrong */
	uint64_t eagain, enobufs;
	int64_t rds_retransmits; /* librds: messages resent; -1 on the kernel */
	double cpu;             /* CPU seconds (user + system) over the test */
	double wall;            /* seconds from ready to stop */
	bool kernel;            /* the server ran on AF_RDS */
	bool has_hash;          /* RDMA tests: the server's region at the end */
	uint64_t region_hash;   /* ... its digest (payload_digest) */
};

/* The tests' names, both ways: perf_test_toks, perf_test_name() ("?" if
 * unknown) and perf_test_parse() (-1 if unknown). */
extern const struct wire_tok perf_test_toks[];
const char *perf_test_name(enum perf_test t);
int perf_test_parse(const char *s, enum perf_test *out);

/* The encoders return a newly allocated line (with "\n"); NULL on ENOMEM. */
char *ctl_start_line(const struct perf_params *p);
/* |reverse|: the server will send. A server that leaves it out predates
 * reverse tests and would not send: the client refuses to wait for that. */
char *ctl_ready_line(const uint16_t *ports, unsigned n, bool kernel, bool reverse);
char *ctl_error_line(const char *why);
char *ctl_stop_line(void);
char *ctl_result_line(const struct perf_result *r);

/*
 * The decoders take one line (without the newline). Return: 0; -1 with
 * |err| saying what was wrong (not JSON, wrong version, a field missing,
 * out of range, or an "error" object, whose text is copied).
 */
int ctl_parse_start(const char *line, struct perf_params *p, char *err, size_t errlen);
int ctl_parse_ready(const char *line, uint16_t *ports, unsigned n, bool *kernel, bool *reverse,
		    char *err, size_t errlen);
int ctl_parse_stop(const char *line, char *err, size_t errlen);
int ctl_parse_result(const char *line, struct perf_result *r, char *err, size_t errlen);

/* perf_params_check() - the ranges both ends enforce. Return: 0; -1 and
 * |err|. */
int perf_params_check(const struct perf_params *p, char *err, size_t errlen);

#endif /* RDSPERF_CTL_H */
