/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * agent.h - rds-conform's side channel to the peer's applications.
 *
 * `rds-conform agent` runs next to the peer under test with RDS sockets on
 * the peer's own stack (the kernel's AF_RDS with --kernel, else a librds
 * endpoint that is itself the peer) and answers requests from the suite
 * over TCP, one JSON object per line each way:
 *
 *   {"op":"hello"}                         -> {"ok":true,"stack":"...","addr":"..."}
 *   {"op":"bind","port":P,"rcvbuf":N}      -> {"ok":true}     (rcvbuf 0: default)
 *   {"op":"close","port":P}                -> {"ok":true}
 *   {"op":"hold","port":P,"on":B}          -> {"ok":true}     (stop/resume reading)
 *   {"op":"send","port":P,"to":"A","dport":D,"first":I,"count":N,"size":S,"wait_ms":T}
 *       -> {"ok":true,"sent":n,"enobufs":k,"eagain":k,"errno":e}
 *       (messages first .. first+N-1; a full send buffer is waited on for
 *       up to T ms in all; ENOBUFS or another error stops it)
 *   {"op":"recv","port":P,"want":N,"wait_ms":T}
 *       -> {"ok":true,"msgs":[{"from":"A","sport":S,"len":L,"idx":I,"good":B},...],
 *           "lost":n}   (deliveries since the last recv, oldest first)
 *   RDMA (RDS over IB; docs/kernel-behaviour.md, "RDMA operations"):
 *   {"op":"map","port":P,"to":"A","dport":D,"size":S,"flags":F,"seed":X}
 *       -> {"ok":true,"errno":e,"cookie":C}   (a region of S bytes at
 *       CF_REGION_OFF past a page boundary, filled cf_region_fill(X),
 *       the rest of its last page cf_region_fill(X + 1), registered by
 *       a message to A:D with RDS_CMSG_RDMA_MAP of flags F)
 *   {"op":"free_mr","port":P,"cookie":C,"flags":F} -> {"ok":true,"errno":e}
 *   {"op":"region","port":P,"cookie":C}    -> {"ok":true,"hash":H,"tail":T}
 *       (cf_region_hash of the region, and of the rest of its last page)
 *   {"op":"rdma","port":P,"to":"A","dport":D,"cookie":C,"raddr":R,"size":S,
 *    "flags":F,"token":K,"seed":X}
 *       -> {"ok":true,"errno":e}   (a message to A:D with RDS_CMSG_RDMA_ARGS:
 *       S bytes at R of the peer's region C, flags F, user token K; a
 *       write sends cf_region_fill(X))
 *   {"op":"notes","port":P,"want":N,"wait_ms":T}
 *       -> {"ok":true,"notes":[{"token":K,"status":S},...]} (RDMA
 *       notifications since the last notes, oldest first)
 *   anything else                          -> {"ok":false,"error":"..."}
 *
 * Message content is cf_idx_payload()'s, so the agent reports which
 * message arrived and whether its bytes are intact: delivery cases check
 * exactly-once and order from these reports instead of assuming them.
 */
#ifndef CONFORM_AGENT_H
#define CONFORM_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rds/rdsu.h>

#define CF_AGENT_PORT 18600         /* default side-channel TCP port */
#define CF_AGENT_LINE_MAX 4096      /* longest request line */

/* ---- the request codec (pure; fuzzed) ---- */

enum cf_agent_op {
	CF_OP_HELLO = 0,
	CF_OP_BIND,
	CF_OP_CLOSE,
	CF_OP_HOLD,
	CF_OP_SEND,
	CF_OP_RECV,
	CF_OP_MAP,
	CF_OP_FREE_MR,
	CF_OP_REGION,
	CF_OP_RDMA,
	CF_OP_NOTES,
};

/* The agent's regions: CF_REGION_OFF bytes past a page boundary, so that
 * the cookie's offset is not 0 (rds_rdma_cookie_offset), at most
 * CF_REGION_MAX bytes. */
#define CF_REGION_OFF 256
#define CF_REGION_MAX 65536
#define CF_PAGE 4096

/* cf_region_fill() - the content a region or an RDMA write of seed |seed|
 * holds; cf_region_hash() - the digest the agent answers for bytes. */
void cf_region_fill(uint8_t *p, uint32_t len, uint32_t seed);
uint64_t cf_region_hash(const uint8_t *p, size_t len);

struct cf_agent_req {
	enum cf_agent_op op;
	uint16_t port, dport;
	uint32_t rcvbuf;
	bool on;
	struct rdsu_addr to;
	uint64_t first;
	uint32_t count, size, want, wait_ms;
	uint64_t cookie, raddr, token; /* RDMA */
	uint32_t flags, seed;
};

/* cf_agent_parse() - one request line (not NUL-terminated, |len| bytes).
 * Return: 0 and *q; -1 with a reason in |err| (malformed JSON, unknown op,
 * a field missing or out of range). */
int cf_agent_parse(const char *line, size_t len, struct cf_agent_req *q, char *err,
		   size_t cap);

/* ---- the suite's side ---- */

struct cf_agent;

struct cf_delivery {
	struct rdsu_addr from;
	uint16_t sport;
	uint32_t len;
	uint64_t idx;
	bool good;                  /* content matched its index */
};

struct cf_sent {
	uint32_t sent, enobufs, eagain;
	int err;                    /* last other errno, 0 if none */
};

/* cf_agent_connect() - "ADDR" or "ADDR:PORT" ("[v6]:PORT"), then hello.
 * Return: 0; negative errno with the reason in |why|. */
int cf_agent_connect(const char *where, int timeout_ms, struct cf_agent **out, char *why,
		     size_t cap);
void cf_agent_close(struct cf_agent *a);
/* The peer's stack as the agent names it. */
const char *cf_agent_stack(const struct cf_agent *a);
/* The agent's last error text ("" if none). */
const char *cf_agent_error(const struct cf_agent *a);
/* The agent answers; false once its connection is gone. */
bool cf_agent_alive(struct cf_agent *a);

/* Each returns 0, or a negative errno (-EREMOTEIO: the agent refused; see
 * cf_agent_error). */
int cf_agent_bind(struct cf_agent *a, uint16_t port, uint32_t rcvbuf);
int cf_agent_unbind(struct cf_agent *a, uint16_t port);
int cf_agent_hold(struct cf_agent *a, uint16_t port, bool on);
int cf_agent_send(struct cf_agent *a, uint16_t port, const struct rdsu_addr *to, uint16_t dport,
		  uint64_t first, uint32_t count, uint32_t size, uint32_t wait_ms,
		  struct cf_sent *out);
/* cf_agent_recv() - deliveries on |port| since the last call, waiting up
 * to |wait_ms| for |want| of them; at most |cap| are stored, *n says how
 * many arrived in all. */
int cf_agent_recv(struct cf_agent *a, uint16_t port, uint32_t want, uint32_t wait_ms,
		  struct cf_delivery *out, size_t cap, size_t *n);

/* RDMA requests: 0, or a negative errno as the others; *err is the
 * errno the peer's stack answered (0 done). */
int cf_agent_map(struct cf_agent *a, uint16_t port, const struct rdsu_addr *to, uint16_t dport,
		 uint32_t size, uint32_t flags, uint32_t seed, uint64_t *cookie, int *err);
int cf_agent_free_mr(struct cf_agent *a, uint16_t port, uint64_t cookie, uint32_t flags,
		     int *err);
int cf_agent_region(struct cf_agent *a, uint16_t port, uint64_t cookie, uint64_t *hash,
		    uint64_t *tail);
int cf_agent_rdma(struct cf_agent *a, uint16_t port, const struct rdsu_addr *to, uint16_t dport,
		  uint64_t cookie, uint64_t raddr, uint32_t size, uint32_t flags, uint64_t token,
		  uint32_t seed, int *err);
/* cf_agent_notes() - the notifications since the last call, waiting up
 * to |wait_ms| for |want|; at most |cap| stored, *n says how many came. */
int cf_agent_notes(struct cf_agent *a, uint16_t port, uint32_t want, uint32_t wait_ms,
		   struct rdsu_notify *out, size_t cap, size_t *n);

/* ---- the agent itself ---- */

/* agent_main() - `rds-conform agent ...` (argv[0] is "agent"). */
int agent_main(int argc, char **argv);

#endif /* CONFORM_AGENT_H */
