// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_rdma.c - RDMA operations between two librds endpoints over the
 * simulator's IB links with its fake HCA: a region registered by one end
 * and sent by cookie (RDMA_MAP), written, read and hit by atomics from the
 * other; connections broken with operations pending (every operation ends
 * with exactly one notification, nothing is written after the end, the
 * region count returns to zero); a peer that lies about a cookie, lengths
 * that overflow, a region freed while in use, use-once regions,
 * RDS_CANCEL_SENT_TO, and every call over TCP. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "cmain.h"

#include "simtest.h"

#define PA 4000
#define PB 5000
#define REG 65536        /* the registered region */
#define GUARD 4096       /* bytes either side of it that must never change */
#define POISON 0xa5

struct rig {
	struct world *w;
	struct rdsu_sock *sa, *sb;   /* a owns the memory, b runs the RDMA */
	uint8_t *mem;                /* GUARD | REG | GUARD */
	uint64_t cookie;             /* as b received it */
};

static uint8_t *region(struct rig *r)
{
	return r->mem + GUARD;
}

static void guards_intact(struct rig *r)
{
	for (size_t i = 0; i < GUARD; i++) {
		assert_int_equal(r->mem[i], POISON);
		assert_int_equal(r->mem[GUARD + REG + i], POISON);
	}
}

/* a registers its region with the RDMA_MAP of a message to b; b reads the
 * message and its cookie. */
static void rig_new(struct rig *r, uint64_t seed, enum wire_kver kv, unsigned mr_flags)
{
	struct rdsu_addr bb;
	struct rdsu_op op = { 0 };
	struct rdsu_rxinfo ri;
	uint8_t buf[64];
	uint64_t mapped = 0;
	struct iovec iov = { (void *)"map", 3 };

	memset(r, 0, sizeof(*r));
	r->w = world_new2(seed, kv, kv, NULL);
	rdsu_sim_enable_rdma(r->w->sim, r->w->a);
	rdsu_sim_enable_rdma(r->w->sim, r->w->b);
	r->sa = sock_bound_ib(r->w, r->w->a, PA);
	r->sb = sock_bound_ib(r->w, r->w->b, PB);
	r->mem = malloc(REG + 2 * GUARD);
	assert_non_null(r->mem);
	memset(r->mem, POISON, REG + 2 * GUARD);
	memset(region(r), 0, REG);
	bb = node_addr(r->w->b);
	op.kind = RDSU_OP_MAP;
	op.flags = mr_flags;
	op.map_addr = region(r);
	op.map_len = REG;
	op.map_cookie = &mapped;
	assert_int_equal(rdsu_sock_submit_op(r->sa, &bb, PB, &iov, 1, &op, world_now(r->w)), 3);
	assert_int_not_equal(mapped, 0);
	assert_int_equal(rdsu_sock_mr_count(r->sa), 1);
	world_idle(r->w, 10 * RDSU_SEC);
	assert_int_equal(read_msg(r->sb, buf, sizeof(buf), &ri, world_now(r->w)), 3);
	assert_true(ri.has_cookie);
	assert_true(ri.cookie == mapped);
	/* zero-based: the cookie's offset is 0, its r_key the region's */
	assert_int_equal(rdsu_cookie_offset(ri.cookie), 0);
	r->cookie = ri.cookie;
	/* the message has been acknowledged: only the socket holds it */
	assert_int_equal(rdsu_ep_mr_count(EP(r->w, r->w->a)), 1);
	assert_int_equal(rdsu_sim_mr_count(r->w->sim, r->w->a), 1);
}

static void rig_free(struct rig *r)
{
	free(r->mem);
	world_free(r->w);
}

/* b sends a message to a carrying an RDMA of |local| against a's region at
 * |raddr|. Return: what the submit returns. */
static int rdma_op(struct rig *r, bool write, uint64_t cookie, uint64_t raddr, void *local,
		   size_t len, uint64_t token, unsigned flags)
{
	struct rdsu_addr aa = node_addr(r->w->a);
	struct iovec lv = { local, len };
	struct rdsu_op op = { 0 };

	op.kind = RDSU_OP_RDMA;
	op.flags = flags | (write ? RDSU_RDMA_READWRITE : 0);
	op.cookie = cookie;
	op.remote_addr = raddr;
	op.remote_len = len;
	op.local = &lv;
	op.nr_local = 1;
	op.user_token = token;
	return rdsu_sock_submit_op(r->sb, &aa, PA, NULL, 0, &op, world_now(r->w));
}

static int atomic_op(struct rig *r, enum rdsu_op_kind kind, uint64_t raddr, uint64_t *result,
		     uint64_t a1, uint64_t a2, bool masked, uint64_t m1, uint64_t m2,
		     uint64_t token)
{
	struct rdsu_addr aa = node_addr(r->w->a);
	struct rdsu_op op = { 0 };

	op.kind = kind;
	op.flags = RDSU_RDMA_NOTIFY_ME;
	op.cookie = r->cookie;
	op.remote_addr = raddr;
	op.result = result;
	op.masked = masked;
	op.user_token = token;
	if (kind == RDSU_OP_FADD) {
		op.add = a1;
		op.nocarry_mask = m1;
	} else {
		op.compare = a1;
		op.swap = a2;
		op.compare_mask = m1;
		op.swap_mask = m2;
	}
	return rdsu_sock_submit_op(r->sb, &aa, PA, NULL, 0, &op, world_now(r->w));
}

/* Collect b's notifications into |tok|/|st| (up to |max|). Return: count. */
static unsigned notes(struct rdsu_sock *s, uint64_t *tok, int *st, unsigned max)
{
	struct rdsu_notify n;
	unsigned k = 0;

	while (rdsu_sock_next_notify(s, &n) == 1) {
		assert_true(k < max);
		tok[k] = n.user_token;
		st[k] = n.status;
		k++;
	}
	return k;
}

static void drain_msgs(struct rdsu_sock *s)
{
	uint8_t buf[64];
	struct rdsu_rxinfo ri;

	while (read_msg(s, buf, sizeof(buf), &ri, 0) >= 0)
		;
}

/* Write, read back, FADD and CSWP, plain and masked, each notified once
 * with its token; the bytes checked on both sides; on 6.x and 7.x. */
static void rdma_roundtrip(enum wire_kver kv)
{
	static uint8_t out[REG], in[REG];
	uint64_t tok[16], old = 0, v;
	int st[16];
	struct rig r;

	rig_new(&r, 11, kv, RDSU_RDMA_READWRITE);
	for (size_t i = 0; i < REG; i++)
		out[i] = (uint8_t)(i * 13 + 7);
	/* write the second half of the region from b */
	assert_int_equal(rdma_op(&r, true, r.cookie, REG / 2, out, REG / 2, 1, RDSU_RDMA_NOTIFY_ME),
			 0);
	world_idle(r.w, 10 * RDSU_SEC);
	assert_memory_equal(region(&r) + REG / 2, out, REG / 2);
	for (size_t i = 0; i < REG / 2; i++)
		assert_int_equal(region(&r)[i], 0);
	assert_int_equal(notes(r.sb, tok, st, 16), 1);
	assert_true(tok[0] == 1);
	assert_int_equal(st[0], RDSU_RDMA_SUCCESS);
	/* read it back, in two local pieces, fenced */
	{
		struct rdsu_addr aa = node_addr(r.w->a);
		struct iovec lv[2] = { { in, 1000 }, { in + 1000, REG / 2 - 1000 } };
		struct rdsu_op op = { 0 };

		op.kind = RDSU_OP_RDMA;
		op.flags = RDSU_RDMA_NOTIFY_ME | RDSU_RDMA_FENCE;
		op.cookie = r.cookie;
		op.remote_addr = REG / 2;
		op.remote_len = REG / 2;
		op.local = lv;
		op.nr_local = 2;
		op.user_token = 2;
		assert_int_equal(rdsu_sock_submit_op(r.sb, &aa, PA, NULL, 0, &op, world_now(r.w)), 0);
	}
	world_idle(r.w, 10 * RDSU_SEC);
	assert_memory_equal(in, out, REG / 2);
	assert_int_equal(notes(r.sb, tok, st, 16), 1);
	assert_true(tok[0] == 2 && st[0] == RDSU_RDMA_SUCCESS);

	/* atomics on word 0 (zero) */
	assert_int_equal(atomic_op(&r, RDSU_OP_FADD, 0, &old, 5, 0, false, 0, 0, 3), 0);
	world_idle(r.w, 10 * RDSU_SEC);
	assert_true(old == 0);
	memcpy(&v, region(&r), 8);
	assert_true(v == 5);
	assert_int_equal(atomic_op(&r, RDSU_OP_CSWP, 0, &old, 5, 0x1234, false, 0, 0, 4), 0);
	assert_int_equal(atomic_op(&r, RDSU_OP_CSWP, 0, &old, 5, 0x9999, false, 0, 0, 5), 0);
	world_idle(r.w, 10 * RDSU_SEC);
	memcpy(&v, region(&r), 8);
	assert_true(v == 0x1234);    /* the second compare failed */
	assert_true(old == 0x1234);  /* ... and saw the first's swap */
	/* masked FADD: two 32-bit fields, no carry between them */
	v = 0x00000001ffffffffull;
	memcpy(region(&r) + 8, &v, 8);
	assert_int_equal(atomic_op(&r, RDSU_OP_FADD, 8, &old, 0x0000000100000001ull, 0, true,
				   0x0000000080000000ull, 0, 6),
			 0);
	/* masked CSWP: compare the low byte only, swap the high half only */
	v = 0x11223344556677aaull;
	memcpy(region(&r) + 16, &v, 8);
	assert_int_equal(atomic_op(&r, RDSU_OP_CSWP, 16, &old, 0xaa, 0xdeadbeef00000000ull, true,
				   0xff, 0xffffffff00000000ull, 7),
			 0);
	world_idle(r.w, 10 * RDSU_SEC);
	memcpy(&v, region(&r) + 8, 8);
	assert_true(v == 0x0000000200000000ull);
	memcpy(&v, region(&r) + 16, 8);
	assert_true(v == 0xdeadbeef556677aaull);
	assert_true(old == 0x11223344556677aaull);
	assert_int_equal(notes(r.sb, tok, st, 16), 5);
	for (unsigned i = 0; i < 5; i++) {
		assert_true(tok[i] == 3 + i);
		assert_int_equal(st[i], RDSU_RDMA_SUCCESS);
	}
	guards_intact(&r);

	/* freed: deregistered at once (nothing holds it), and a write
	 * against it is refused and writes nothing */
	assert_int_equal(rdsu_sock_free_mr(r.sa, r.cookie, 0), 0);
	assert_int_equal(rdsu_sock_free_mr(r.sa, r.cookie, 0), -EINVAL);
	assert_int_equal(rdsu_ep_mr_count(EP(r.w, r.w->a)), 0);
	assert_int_equal(rdsu_sim_mr_count(r.w->sim, r.w->a), 0);
	memset(region(&r), POISON, REG);
	assert_int_equal(rdma_op(&r, true, r.cookie, 0, out, 64, 8, RDSU_RDMA_NOTIFY_ME), 0);
	world_idle(r.w, 60 * RDSU_SEC);
	for (size_t i = 0; i < REG; i++)
		assert_int_equal(region(&r)[i], POISON);
	assert_int_equal(notes(r.sb, tok, st, 16), 1);
	assert_true(tok[0] == 8 && st[0] == RDSU_RDMA_REMOTE_ERROR);
	drain_msgs(r.sa);
	rig_free(&r);
}

static enum wire_kver kver_7 = WIRE_KVER_7, kver_6 = WIRE_KVER_6;

/* rdma_roundtrip() with the peer version *state points to. */
static void test_rdma_roundtrip(void **state)
{
	rdma_roundtrip(*(enum wire_kver *)*state);
}

/* Many operations in flight when the connection breaks, at several
 * moments: each one ends with exactly one notification (SUCCESS if it was
 * carried out and completed, DROPPED if not, never retransmitted); no
 * read lands after its end; everything registered is given back. */
static void test_rdma_break_pending(void **state)
{
	enum { N = 24 };
	static uint8_t out[N][512], in[N][512];
	unsigned dropped_total = 0, ok_total = 0;

	(void)state;
	for (unsigned trial = 0; trial < 12; trial++) {
		uint64_t tok[2 * N], res[N];
		int st[2 * N], seen[N] = { 0 };
		unsigned k;
		struct rig r;

		rig_new(&r, 100 + trial, WIRE_KVER_7, RDSU_RDMA_READWRITE);
		for (unsigned i = 1; i < N; i += 3)
			memset(region(&r) + 4096 + 512 * i, (int)(0xc0 + i), 512);
		for (unsigned i = 0; i < N; i++) {
			memset(out[i], (int)(i + 1), sizeof(out[i]));
			memset(in[i], 0, sizeof(in[i]));
			if (i % 3 == 2)
				assert_int_equal(atomic_op(&r, RDSU_OP_FADD, 8 * i, &res[i], 1, 0,
							   false, 0, 0, i),
						 0);
			else
				assert_int_equal(rdma_op(&r, i % 3 == 0, r.cookie, 4096 + 512 * i,
							 i % 3 == 0 ? out[i] : in[i], 512, i,
							 RDSU_RDMA_NOTIFY_ME),
						 0);
		}
		/* break it a little later each trial: some ops done, some
		 * carried out but not completed, some not yet posted */
		rdsu_sim_run_for(r.w->sim, 25000 * trial);
		rdsu_sim_reset_conns(r.w->sim, r.w->b, r.w->a, 0xff);
		/* what ends with the link must not be touched afterwards */
		world_idle(r.w, 120 * RDSU_SEC);
		k = notes(r.sb, tok, st, 2 * N);
		assert_int_equal(k, N);
		for (unsigned j = 0; j < k; j++) {
			assert_true(tok[j] < N);
			seen[tok[j]]++;
			assert_true(st[j] == RDSU_RDMA_SUCCESS || st[j] == RDSU_RDMA_DROPPED);
			if (st[j] == RDSU_RDMA_DROPPED) {
				dropped_total++;
				/* a dropped read wrote nothing local */
				if (tok[j] % 3 == 1)
					for (size_t b = 0; b < 512; b++)
						assert_int_equal(in[tok[j]][b], 0);
			} else {
				ok_total++;
				if (tok[j] % 3 == 1)
					for (size_t b = 0; b < 512; b++)
						assert_int_equal(in[tok[j]][b], 0xc0 + tok[j]);
				if (tok[j] % 3 == 0)
					assert_memory_equal(region(&r) + 4096 + 512 * tok[j],
							    out[tok[j]], 512);
				if (tok[j] % 3 == 2) {
					uint64_t v;

					memcpy(&v, region(&r) + 8 * tok[j], 8);
					assert_true(v == 1 && res[tok[j]] == 0);
				}
			}
		}
		for (unsigned i = 0; i < N; i++)
			assert_int_equal(seen[i], 1);
		/* an FADD is carried out at most once: the word is 0 or 1 */
		for (unsigned i = 2; i < N; i += 3) {
			uint64_t v;

			memcpy(&v, region(&r) + 8 * i, 8);
			assert_true(v <= 1);
		}
		guards_intact(&r);
		/* nothing written into the region after it is freed */
		assert_int_equal(rdsu_sock_free_mr(r.sa, r.cookie, RDSU_RDMA_INVALIDATE), 0);
		memset(region(&r), POISON, REG);
		for (unsigned i = 0; i < 4; i++)
			(void)rdma_op(&r, true, r.cookie, 0, out[i], 512, 100 + i, 0);
		world_idle(r.w, 120 * RDSU_SEC);
		for (size_t i = 0; i < REG; i++)
			assert_int_equal(region(&r)[i], POISON);
		assert_int_equal(rdsu_ep_mr_count(EP(r.w, r.w->a)), 0);
		assert_int_equal(rdsu_sim_mr_count(r.w->sim, r.w->a), 0);
		assert_int_equal(rdsu_sim_mr_count(r.w->sim, r.w->b), 0);
		drain_msgs(r.sa);
		rig_free(&r);
	}
	/* the moments chosen do hit both outcomes */
	assert_true(dropped_total > 0);
	assert_true(ok_total > 0);
}

/* A peer that lies about a cookie (an r_key a never gave, or one past the
 * region): a clear REMOTE_ERROR, the connection breaks, nothing outside
 * the region is written. */
static void test_rdma_lying_cookie(void **state)
{
	static uint8_t out[4096];
	uint64_t tok[4];
	int st[4];
	struct rig r;

	(void)state;
	rig_new(&r, 21, WIRE_KVER_7, RDSU_RDMA_READWRITE);
	memset(out, 0x77, sizeof(out));
	/* an r_key nobody registered */
	assert_int_equal(rdma_op(&r, true, rdsu_cookie_make(rdsu_cookie_rkey(r.cookie) + 999, 0), 0,
				 out, sizeof(out), 1, RDSU_RDMA_NOTIFY_ME),
			 0);
	world_idle(r.w, 60 * RDSU_SEC);
	assert_int_equal(notes(r.sb, tok, st, 4), 1);
	assert_int_equal(st[0], RDSU_RDMA_REMOTE_ERROR);
	/* the right r_key with an offset that points past the region, and
	 * one that runs over its end by one byte */
	assert_int_equal(rdma_op(&r, true, rdsu_cookie_make(rdsu_cookie_rkey(r.cookie), REG), 0,
				 out, 1, 2, RDSU_RDMA_NOTIFY_ME),
			 0);
	world_idle(r.w, 60 * RDSU_SEC);
	assert_int_equal(rdma_op(&r, true, r.cookie, REG - sizeof(out) + 1, out, sizeof(out), 3,
				 RDSU_RDMA_NOTIFY_ME),
			 0);
	world_idle(r.w, 60 * RDSU_SEC);
	assert_int_equal(notes(r.sb, tok, st, 4), 2);
	assert_int_equal(st[0], RDSU_RDMA_REMOTE_ERROR);
	assert_int_equal(st[1], RDSU_RDMA_REMOTE_ERROR);
	guards_intact(&r);
	for (size_t i = 0; i < REG; i++)
		assert_int_equal(region(&r)[i], 0);
	/* the connection came back: a good write still works */
	assert_int_equal(rdma_op(&r, true, r.cookie, REG - sizeof(out), out, sizeof(out), 4,
				 RDSU_RDMA_NOTIFY_ME),
			 0);
	world_idle(r.w, 60 * RDSU_SEC);
	assert_int_equal(notes(r.sb, tok, st, 4), 1);
	assert_int_equal(st[0], RDSU_RDMA_SUCCESS);
	assert_memory_equal(region(&r) + REG - sizeof(out), out, sizeof(out));
	guards_intact(&r);
	drain_msgs(r.sa);
	rig_free(&r);
}

/* Lengths that overflow, counts beyond the bounds, misaligned atomics:
 * refused at submit with the kernel's errors, nothing queued. */
static void test_rdma_bad_lengths(void **state)
{
	struct rdsu_addr aa;
	struct rdsu_op op;
	struct iovec lv[2];
	static struct iovec many[RDSU_RDMA_MAX_IOV + 1];
	static uint8_t buf[64];
	uint64_t res[2], cookie;
	struct rig r;

	(void)state;
	rig_new(&r, 31, WIRE_KVER_7, RDSU_RDMA_READWRITE);
	aa = node_addr(r.w->a);
	memset(&op, 0, sizeof(op));
	op.kind = RDSU_OP_RDMA;
	op.cookie = r.cookie;
	op.local = lv;
	/* remote_addr + remote_len wraps */
	lv[0] = (struct iovec){ buf, 16 };
	op.nr_local = 1;
	op.remote_addr = UINT64_MAX - 8;
	op.remote_len = 16;
	assert_int_equal(rdsu_sock_submit_op(r.sb, &aa, PA, NULL, 0, &op, world_now(r.w)), -EINVAL);
	/* ... or with the cookie's offset added */
	op.cookie = rdsu_cookie_make(rdsu_cookie_rkey(r.cookie), 0xffffffffu);
	op.remote_addr = UINT64_MAX - 0xffffffffull + 1;
	assert_int_equal(rdsu_sock_submit_op(r.sb, &aa, PA, NULL, 0, &op, world_now(r.w)), -EINVAL);
	op.cookie = r.cookie;
	/* a local entry that wraps the address space */
	lv[0] = (struct iovec){ (void *)(UINTPTR_MAX - 4), 16 };
	op.remote_addr = 0;
	assert_int_equal(rdsu_sock_submit_op(r.sb, &aa, PA, NULL, 0, &op, world_now(r.w)), -EINVAL);
	/* an empty one */
	lv[0] = (struct iovec){ buf, 0 };
	assert_int_equal(rdsu_sock_submit_op(r.sb, &aa, PA, NULL, 0, &op, world_now(r.w)), -EINVAL);
	/* local bytes beyond remote_len */
	lv[0] = (struct iovec){ buf, 32 };
	assert_int_equal(rdsu_sock_submit_op(r.sb, &aa, PA, NULL, 0, &op, world_now(r.w)), -EINVAL);
	/* local total beyond 4 GiB in two entries */
	lv[0] = (struct iovec){ (void *)0x1000, 0xffffffffull };
	lv[1] = (struct iovec){ (void *)0x1000, 0x10 };
	op.nr_local = 2;
	op.remote_len = UINT64_MAX / 2;
	assert_int_equal(rdsu_sock_submit_op(r.sb, &aa, PA, NULL, 0, &op, world_now(r.w)), -EINVAL);
	/* no entry; too many */
	op.nr_local = 0;
	assert_int_equal(rdsu_sock_submit_op(r.sb, &aa, PA, NULL, 0, &op, world_now(r.w)), -EINVAL);
	for (unsigned i = 0; i <= RDSU_RDMA_MAX_IOV; i++)
		many[i] = (struct iovec){ buf, 1 };
	op.local = many;
	op.nr_local = RDSU_RDMA_MAX_IOV + 1;
	assert_int_equal(rdsu_sock_submit_op(r.sb, &aa, PA, NULL, 0, &op, world_now(r.w)), -EMSGSIZE);
	/* atomics: the local word misaligned or missing */
	assert_int_equal(atomic_op(&r, RDSU_OP_FADD, 0, (uint64_t *)((uint8_t *)res + 4), 1, 0,
				   false, 0, 0, 1),
			 -EFAULT);
	assert_int_equal(atomic_op(&r, RDSU_OP_CSWP, 0, NULL, 1, 2, false, 0, 0, 1), -EFAULT);
	/* regions: wrapping, empty, too large */
	assert_int_equal(rdsu_sock_get_mr(r.sa, (void *)(UINTPTR_MAX - 4), 16, 0, &cookie), -EINVAL);
	assert_int_equal(rdsu_sock_get_mr(r.sa, buf, 0, 0, &cookie), -EINVAL);
	assert_int_equal(rdsu_sock_get_mr(r.sa, buf, (2u << 20), 0, &cookie), -EMSGSIZE);
	/* DEST of a cookie that is not ours */
	memset(&op, 0, sizeof(op));
	op.kind = RDSU_OP_DEST;
	op.cookie = r.cookie;
	assert_int_equal(rdsu_sock_submit_op(r.sb, &aa, PA, NULL, 0, &op, world_now(r.w)), -EINVAL);
	op.kind = (enum rdsu_op_kind)99;
	assert_int_equal(rdsu_sock_submit_op(r.sb, &aa, PA, NULL, 0, &op, world_now(r.w)), -EINVAL);
	/* nothing went anywhere: no notification, no region on b */
	world_idle(r.w, 10 * RDSU_SEC);
	assert_int_equal(rdsu_sock_next_notify(r.sb, &(struct rdsu_notify){ 0 }), 0);
	assert_int_equal(rdsu_ep_mr_count(EP(r.w, r.w->b)), 0);
	guards_intact(&r);
	rig_free(&r);
}

/* A region freed while a queued message still sends its cookie stays
 * registered until that message is gone; one freed while the peer's
 * write is on its way is not written. */
static void test_rdma_freed_in_use(void **state)
{
	static uint8_t out[1024], mine[4096];
	struct rdsu_addr bb;
	struct rdsu_op op = { 0 };
	struct rdsu_rxinfo ri;
	uint8_t buf[16];
	uint64_t c2, tok[2];
	int st[2];
	struct rig r;

	(void)state;
	rig_new(&r, 41, WIRE_KVER_7, RDSU_RDMA_READWRITE);
	bb = node_addr(r.w->b);
	assert_int_equal(rdsu_sock_get_mr(r.sa, mine, sizeof(mine), 0, &c2), 0);
	assert_int_equal(rdsu_ep_mr_count(EP(r.w, r.w->a)), 2);
	op.kind = RDSU_OP_DEST;
	op.cookie = c2;
	assert_int_equal(rdsu_sock_submit_op(r.sa, &bb, PB, NULL, 0, &op, world_now(r.w)), 0);
	assert_int_equal(rdsu_sock_free_mr(r.sa, c2, 0), 0);
	assert_int_equal(rdsu_sock_mr_count(r.sa), 1);
	/* held by the queued message */
	assert_int_equal(rdsu_ep_mr_count(EP(r.w, r.w->a)), 2);
	world_idle(r.w, 10 * RDSU_SEC);
	assert_int_equal(read_msg(r.sb, buf, sizeof(buf), &ri, world_now(r.w)), 0);
	assert_true(ri.has_cookie && ri.cookie == c2);
	/* until b's next message acknowledges it (h_ack), a keeps the
	 * message, and the message the region */
	assert_int_equal(rdsu_ep_mr_count(EP(r.w, r.w->a)), 2);
	assert_int_equal(send_msg(r.sb, r.w->a, PA, 0, 8, world_now(r.w)), 8);
	world_idle(r.w, 10 * RDSU_SEC);
	drain_msgs(r.sa);
	assert_int_equal(rdsu_ep_mr_count(EP(r.w, r.w->a)), 1);
	assert_int_equal(rdsu_sim_mr_count(r.w->sim, r.w->a), 1);

	/* b's write leaves; a frees the region before it arrives */
	memset(out, 0x3c, sizeof(out));
	assert_int_equal(rdma_op(&r, true, r.cookie, 0, out, sizeof(out), 9, RDSU_RDMA_NOTIFY_ME),
			 0);
	rdsu_sim_run_for(r.w->sim, 1000); /* posted, not arrived */
	assert_int_equal(rdsu_sock_free_mr(r.sa, r.cookie, 0), 0);
	assert_int_equal(rdsu_ep_mr_count(EP(r.w, r.w->a)), 0);
	world_idle(r.w, 60 * RDSU_SEC);
	for (size_t i = 0; i < REG; i++)
		assert_int_equal(region(&r)[i], 0);
	guards_intact(&r);
	assert_int_equal(notes(r.sb, tok, st, 2), 1);
	assert_true(tok[0] == 9 && st[0] == RDSU_RDMA_REMOTE_ERROR);
	/* closing the socket gives back anything still held */
	assert_int_equal(rdsu_sock_get_mr(r.sa, mine, sizeof(mine), 0, &c2), 0);
	rdsu_sock_free(r.sa, world_now(r.w));
	assert_int_equal(rdsu_ep_mr_count(EP(r.w, r.w->a)), 0);
	assert_int_equal(rdsu_sim_mr_count(r.w->sim, r.w->a), 0);
	rig_free(&r);
}

/* A use-once region is released by the first RDMA against it (the RDMA
 * exthdr of the message that carried it); the next is refused. */
static void test_rdma_use_once(void **state)
{
	static uint8_t out[256];
	uint64_t tok[2];
	int st[2];
	struct rig r;

	(void)state;
	rig_new(&r, 51, WIRE_KVER_7, RDSU_RDMA_READWRITE | RDSU_RDMA_USE_ONCE);
	memset(out, 0x42, sizeof(out));
	assert_int_equal(rdma_op(&r, true, r.cookie, 0, out, sizeof(out), 1, RDSU_RDMA_NOTIFY_ME),
			 0);
	world_idle(r.w, 10 * RDSU_SEC);
	drain_msgs(r.sa);
	assert_memory_equal(region(&r), out, sizeof(out));
	assert_int_equal(rdsu_sock_mr_count(r.sa), 0);
	assert_int_equal(rdsu_ep_mr_count(EP(r.w, r.w->a)), 0);
	assert_int_equal(rdsu_sock_free_mr(r.sa, r.cookie, 0), -EINVAL);
	memset(out, 0x43, sizeof(out));
	assert_int_equal(rdma_op(&r, true, r.cookie, 0, out, sizeof(out), 2, RDSU_RDMA_NOTIFY_ME),
			 0);
	world_idle(r.w, 60 * RDSU_SEC);
	assert_int_equal(notes(r.sb, tok, st, 2), 2);
	assert_int_equal(st[0], RDSU_RDMA_SUCCESS);
	assert_int_equal(st[1], RDSU_RDMA_REMOTE_ERROR);
	assert_int_equal(region(&r)[0], 0x42);
	rig_free(&r);
}

/* RDS_CANCEL_SENT_TO: operations not yet posted end CANCELED, notified
 * only when they asked (NOTIFY_ME); nothing reaches the peer. The
 * RECVERR rule: a drop notifies an op that did not ask when RECVERR was
 * on at its submit. */
static void test_rdma_cancel_and_recverr(void **state)
{
	static uint8_t out[8][64];
	struct rdsu_addr aa;
	uint64_t tok[16];
	int st[16];
	struct rig r;

	(void)state;
	rig_new(&r, 61, WIRE_KVER_7, RDSU_RDMA_READWRITE);
	aa = node_addr(r.w->a);
	/* a is off the network: everything stays queued at b */
	rdsu_sim_set_down(r.w->sim, r.w->a, true);
	rdsu_sim_run_for(r.w->sim, RDSU_SEC);
	for (unsigned i = 0; i < 8; i++)
		assert_int_equal(rdma_op(&r, true, r.cookie, 64 * i, out[i], 64, i,
					 i % 2 ? RDSU_RDMA_NOTIFY_ME : 0),
				 0);
	assert_int_equal(rdsu_sock_cancel_sent_to(r.sb, &aa, PA, world_now(r.w)), 8);
	assert_int_equal(notes(r.sb, tok, st, 16), 4);
	for (unsigned j = 0; j < 4; j++) {
		assert_true(tok[j] == 2 * j + 1);
		assert_int_equal(st[j], RDSU_RDMA_CANCELED);
	}
	rdsu_sim_set_down(r.w->sim, r.w->a, false);
	world_idle(r.w, 600 * RDSU_SEC);
	for (size_t i = 0; i < REG; i++)
		assert_int_equal(region(&r)[i], 0);
	assert_int_equal(notes(r.sb, tok, st, 16), 0);

	/* RECVERR: a write that did not ask is told of its drop */
	assert_int_equal(rdsu_sock_set_recverr(r.sb, true), 0);
	assert_int_equal(rdma_op(&r, true, r.cookie, 0, out[0], 64, 77, 0), 0);
	assert_int_equal(rdma_op(&r, true, r.cookie, 64, out[1], 64, 78, RDSU_RDMA_NOTIFY_ME), 0);
	rdsu_sim_run_for(r.w->sim, 30000); /* posted, not yet carried out */
	rdsu_sim_reset_conns(r.w->sim, r.w->b, r.w->a, 0xff);
	world_idle(r.w, 600 * RDSU_SEC);
	{
		unsigned k = notes(r.sb, tok, st, 16), n77 = 0, n78 = 0;

		for (unsigned j = 0; j < k; j++) {
			n77 += tok[j] == 77;
			n78 += tok[j] == 78;
		}
		assert_int_equal(n78, 1);
		assert_int_equal(n77, 1);
		for (unsigned j = 0; j < k; j++)
			if (tok[j] == 77)
				assert_int_equal(st[j], RDSU_RDMA_DROPPED);
	}
	drain_msgs(r.sa);
	rig_free(&r);
}

/* Over TCP every RDMA call gives the kernel's RDS/TCP answer. */
static void test_rdma_over_tcp(void **state)
{
	struct rdsu_sock *sa, *sb, *un;
	struct world *w = world_socks(71, &sa, PA, &sb, PB);
	struct rdsu_addr aa = node_addr(w->a);
	static uint8_t buf[64];
	struct iovec lv = { buf, sizeof(buf) };
	struct rdsu_op op = { 0 };
	uint64_t cookie = 0, res;

	(void)state;
	rdsu_sim_enable_rdma(w->sim, w->a); /* an IB seam changes nothing for TCP */
	assert_int_equal(rdsu_sock_get_mr(sa, buf, sizeof(buf), 0, &cookie), -EOPNOTSUPP);
	assert_int_equal(rdsu_sock_free_mr(sa, 0, RDSU_RDMA_INVALIDATE), -EINVAL);
	assert_int_equal(rdsu_sock_free_mr(sa, 0x1234, 0), -EINVAL);
	op.kind = RDSU_OP_RDMA;
	op.cookie = 0x1234;
	op.local = &lv;
	op.nr_local = 1;
	op.remote_len = sizeof(buf);
	assert_int_equal(rdsu_sock_submit_op(sb, &aa, PA, NULL, 0, &op, world_now(w)), -EOPNOTSUPP);
	op.kind = RDSU_OP_FADD;
	op.result = &res;
	assert_int_equal(rdsu_sock_submit_op(sb, &aa, PA, NULL, 0, &op, world_now(w)), -EOPNOTSUPP);
	op.kind = RDSU_OP_CSWP;
	assert_int_equal(rdsu_sock_submit_op(sb, &aa, PA, NULL, 0, &op, world_now(w)), -EOPNOTSUPP);
	op.kind = RDSU_OP_MAP;
	op.map_addr = buf;
	op.map_len = sizeof(buf);
	op.map_cookie = &cookie;
	assert_int_equal(rdsu_sock_submit_op(sb, &aa, PA, NULL, 0, &op, world_now(w)), -EOPNOTSUPP);
	op.kind = RDSU_OP_DEST;
	assert_int_equal(rdsu_sock_submit_op(sb, &aa, PA, NULL, 0, &op, world_now(w)), -EINVAL);
	/* unbound: ENOTCONN first, as __rds_rdma_map and rds_cmsg_rdma_args */
	assert_int_equal(rdsu_sock_new(EP(w, w->a), &un), 0);
	assert_int_equal(rdsu_sock_get_mr(un, buf, sizeof(buf), 0, &cookie), -ENOTCONN);
	op.kind = RDSU_OP_RDMA;
	assert_int_equal(rdsu_sock_submit_op(un, &aa, PA, NULL, 0, &op, world_now(w)), -ENOTCONN);
	assert_int_equal(rdsu_sock_next_notify(un, &(struct rdsu_notify){ 0 }), -ENOTCONN);
	rdsu_sock_free(un, world_now(w));
	assert_int_equal(cookie, 0);
	world_free(w);
}

CMOCKA_MAIN(
	CMOCKA_CASE(test_rdma_roundtrip, 7x, &kver_7),
	CMOCKA_CASE(test_rdma_roundtrip, 6x, &kver_6),
	cmocka_unit_test(test_rdma_break_pending),
	cmocka_unit_test(test_rdma_lying_cookie),
	cmocka_unit_test(test_rdma_bad_lengths),
	cmocka_unit_test(test_rdma_freed_in_use),
	cmocka_unit_test(test_rdma_use_once),
	cmocka_unit_test(test_rdma_cancel_and_recverr),
	cmocka_unit_test(test_rdma_over_tcp))
