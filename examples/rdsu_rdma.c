// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rdsu_rdma - RDS RDMA with librds: one node registers a buffer and sends
 * its cookie with a message (RDMA_MAP); the other writes into the buffer,
 * reads it back and adds to a counter in it with FADD, each operation
 * riding on a message and notified when done. Then the owner frees the
 * region and a late write is refused (REMOTE_ERROR) without touching it.
 *
 * It runs both nodes in librds's simulator (librds/sim, with its fake HCA),
 * so it needs no RDMA device and shows the calls in order; an application
 * on real RDS over IB makes the same rdsu_sock_* calls on its endpoint.
 *
 *   rdsu_rdma        prints each step; exit 0 if every check held
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "sim.h"

#define PORT_OWNER 4000
#define PORT_USER 5000

static int failures;

static void check(int ok, const char *what)
{
	printf("%-60s %s\n", what, ok ? "ok" : "FAILED");
	failures += !ok;
}

static struct rdsu_sock *ib_sock(struct rdsu_ep *ep, uint32_t addr, uint16_t port)
{
	struct rdsu_addr a = rdsu_addr_v4(addr);
	struct rdsu_sock *s = NULL;

	if (rdsu_sock_new(ep, &s) || rdsu_sock_set_transport(s, RDSU_TRANS_IB) ||
	    rdsu_sock_bind(s, &a, port))
		return NULL;
	return s;
}

/* |op| submitted by |user| to the owner at |to| with no message bytes,
 * then the simulation run dry: the status its notification gave (an enum
 * rdsu_rdma_status), or -1 when it was not submitted or no notification
 * of its user_token came. */
static int carry_out(struct rdsu_sim *sim, struct rdsu_sock *user, const struct rdsu_addr *to,
		     const struct rdsu_op *op)
{
	struct rdsu_notify n;

	if (rdsu_sock_submit_op(user, to, PORT_OWNER, NULL, 0, op, rdsu_sim_now(sim)) != 0)
		return -1;
	rdsu_sim_run_idle(sim, rdsu_sim_now(sim) + 60 * RDSU_SEC);
	if (rdsu_sock_next_notify(user, &n) != 1 || n.user_token != op->user_token)
		return -1;
	return n.status;
}

/* An RDMA write (|write|) or read of all of |lv| at |remote_addr| of the
 * region |cookie|, to be notified with |token| when done. */
static void rdma_op(struct rdsu_op *op, uint64_t cookie, uint64_t remote_addr,
		    struct iovec *lv, bool write, uint64_t token)
{
	memset(op, 0, sizeof(*op));
	op->kind = RDSU_OP_RDMA;
	op->flags = (write ? RDSU_RDMA_READWRITE : 0) | RDSU_RDMA_NOTIFY_ME;
	op->cookie = cookie;
	op->remote_addr = remote_addr;
	op->remote_len = lv->iov_len;
	op->local = lv;
	op->nr_local = 1;
	op->user_token = token;
}

int main(void)
{
	static uint8_t buffer[4096], out[1024], back[1024];
	struct rdsu_sim_cfg scfg;
	struct rdsu_ep_cfg c[2];
	struct rdsu_sim *sim;
	struct rdsu_sock *owner, *user;
	struct rdsu_addr oaddr = rdsu_addr_v4(0x0a000001u), uaddr = rdsu_addr_v4(0x0a000002u);
	struct rdsu_op op;
	struct rdsu_rxinfo ri;
	struct iovec iov, lv;
	uint64_t cookie = 0, old = 0, counter;
	char text[32];

	rdsu_sim_cfg_default(&scfg);
	if (rdsu_sim_new(&sim, &scfg))
		return 2;
	/* on any setup failure below the process exits; nothing to free */
	for (int i = 0; i < 2; i++) {
		rdsu_ep_cfg_default(&c[i]);
		c[i].laddrs[0] = i ? uaddr : oaddr;
		c[i].n_laddrs = 1;
		c[i].gen_num = 0x1000u + (uint32_t)i; /* a real program draws these */
		c[i].seed = 42u + (uint64_t)i;
		if (rdsu_sim_add_node(sim, &c[i]) != i)
			return 2;
		rdsu_sim_enable_rdma(sim, i);
	}
	owner = ib_sock(rdsu_sim_ep(sim, 0), 0x0a000001u, PORT_OWNER);
	user = ib_sock(rdsu_sim_ep(sim, 1), 0x0a000002u, PORT_USER);
	if (!owner || !user)
		return 2;

	/* 1. The owner registers its buffer and sends the cookie along
	 *    with a message (RDS_CMSG_RDMA_MAP). */
	memset(&op, 0, sizeof(op));
	op.kind = RDSU_OP_MAP;
	op.flags = RDSU_RDMA_READWRITE;
	op.map_addr = buffer;
	op.map_len = sizeof(buffer);
	op.map_cookie = &cookie;
	iov = (struct iovec){ "here", 4 };
	check(rdsu_sock_submit_op(owner, &uaddr, PORT_USER, &iov, 1, &op, rdsu_sim_now(sim)) == 4,
	      "owner: message with RDMA_MAP sent");
	rdsu_sim_run_idle(sim, rdsu_sim_now(sim) + 10 * RDSU_SEC);
	iov = (struct iovec){ text, sizeof(text) };
	check(rdsu_sock_read(user, &iov, 1, 0, &ri, rdsu_sim_now(sim)) == 4 && ri.has_cookie &&
		      ri.cookie == cookie,
	      "user: message and cookie received (RDS_CMSG_RDMA_DEST)");
	printf("  cookie %#018llx: r_key %#x, offset %u\n", (unsigned long long)ri.cookie,
	       rdsu_cookie_rkey(ri.cookie), rdsu_cookie_offset(ri.cookie));

	/* 2. The user writes 1 KiB at offset 1024 of the region (zero-based)
	 *    with a message, and asks to be told when it is done. */
	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = (uint8_t)(i * 7);
	lv = (struct iovec){ out, sizeof(out) };
	rdma_op(&op, ri.cookie, 1024, &lv, true, 1);
	check(carry_out(sim, user, &oaddr, &op) == RDSU_RDMA_SUCCESS,
	      "user: RDMA write submitted, notified SUCCESS");
	check(memcmp(buffer + 1024, out, sizeof(out)) == 0, "owner: the bytes are in its buffer");

	/* 3. ... reads them back ... */
	lv = (struct iovec){ back, sizeof(back) };
	rdma_op(&op, ri.cookie, 1024, &lv, false, 2);
	check(carry_out(sim, user, &oaddr, &op) == RDSU_RDMA_SUCCESS,
	      "user: RDMA read submitted, notified SUCCESS");
	check(memcmp(back, out, sizeof(out)) == 0, "user: read back what it wrote");

	/* 4. ... and adds 5 to the counter at offset 0 (FADD). */
	memset(&op, 0, sizeof(op));
	op.kind = RDSU_OP_FADD;
	op.flags = RDSU_RDMA_NOTIFY_ME;
	op.cookie = ri.cookie;
	op.remote_addr = 0;
	op.result = &old;
	op.add = 5;
	op.user_token = 3;
	check(carry_out(sim, user, &oaddr, &op) == RDSU_RDMA_SUCCESS,
	      "user: FADD submitted, notified SUCCESS");
	memcpy(&counter, buffer, 8);
	check(old == 0 && counter == 5, "counter 0 -> 5, old value returned");

	/* 5. The owner frees the region; a late write is refused. */
	check(rdsu_sock_free_mr(owner, cookie, RDSU_RDMA_INVALIDATE) == 0, "owner: region freed");
	memset(buffer, 0, sizeof(buffer));
	lv = (struct iovec){ out, sizeof(out) };
	rdma_op(&op, ri.cookie, 0, &lv, true, 4);
	check(carry_out(sim, user, &oaddr, &op) == RDSU_RDMA_REMOTE_ERROR,
	      "user: write against the freed region submitted, refused: REMOTE_ERROR");
	counter = 0;
	for (size_t i = 0; i < sizeof(buffer); i++)
		counter |= buffer[i];
	check(counter == 0, "owner: nothing written after the free");
	check(rdsu_ep_mr_count(rdsu_sim_ep(sim, 0)) == 0, "owner: no region left registered");

	rdsu_sim_free(sim);
	return failures ? 1 : 0;
}
