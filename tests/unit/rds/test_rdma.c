// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_rdma.c - the cookie format, the notification rule, and the
 * extension headers a message carrying an RDMA op or a cookie goes out
 * with on an IB link (6.x: one exthdr; 7.x: RDMA then RDMA_BYTES and flag
 * 0x20), the op handed to the transport before the message's first frame;
 * completions reported once and only on their own link. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "cmain.h"

#include "utest.h"
#include "core.h"

#define PA 4000
#define PB 5000

static void test_rdma_cookie(void **state)
{
	uint64_t c = rdsu_cookie_make(0x12345678u, 0x9abcdef0u);

	(void)state;
	/* rds_rdma_make_cookie: r_key low, offset high */
	assert_true(c == 0x9abcdef012345678ull);
	assert_int_equal(rdsu_cookie_rkey(c), 0x12345678u);
	assert_int_equal(rdsu_cookie_offset(c), 0x9abcdef0u);
	assert_true(rdsu_cookie_make(1, 0) == 1);
	assert_true(rdsu_cookie_make(0, 1) == 1ull << 32);
	for (uint32_t k = 0; k < 1000; k++) {
		uint32_t r = k * 2654435761u, o = k * 40503u + 7;
		uint64_t x = rdsu_cookie_make(r, o);

		assert_int_equal(rdsu_cookie_rkey(x), r);
		assert_int_equal(rdsu_cookie_offset(x), o);
	}
}

/* Who is told (net/rds/send.c): a completion or a cancel only with
 * NOTIFY_ME; a drop also for a failure when RECVERR was on. */
static void test_rdma_notify_rule(void **state)
{
	static const struct {
		unsigned flags;
		bool recverr;
		enum rdsu_rop_end end;
		int status;
		bool want;
	} t[] = {
		{ RDSU_RDMA_NOTIFY_ME, false, RDSU_ROP_END_COMPLETE, RDSU_RDMA_SUCCESS, true },
		{ RDSU_RDMA_NOTIFY_ME, false, RDSU_ROP_END_COMPLETE, RDSU_RDMA_REMOTE_ERROR, true },
		{ 0, false, RDSU_ROP_END_COMPLETE, RDSU_RDMA_SUCCESS, false },
		{ 0, true, RDSU_ROP_END_COMPLETE, RDSU_RDMA_REMOTE_ERROR, false },
		{ RDSU_RDMA_SILENT, true, RDSU_ROP_END_COMPLETE, RDSU_RDMA_OTHER_ERROR, false },
		{ RDSU_RDMA_NOTIFY_ME, false, RDSU_ROP_END_CANCEL, RDSU_RDMA_CANCELED, true },
		{ 0, true, RDSU_ROP_END_CANCEL, RDSU_RDMA_CANCELED, false },
		{ RDSU_RDMA_NOTIFY_ME, false, RDSU_ROP_END_DROP, RDSU_RDMA_DROPPED, true },
		{ 0, true, RDSU_ROP_END_DROP, RDSU_RDMA_DROPPED, true },
		{ RDSU_RDMA_SILENT, true, RDSU_ROP_END_DROP, RDSU_RDMA_DROPPED, true },
		{ 0, false, RDSU_ROP_END_DROP, RDSU_RDMA_DROPPED, false },
		{ 0, true, RDSU_ROP_END_DROP, RDSU_RDMA_SUCCESS, false },
	};

	(void)state;
	for (size_t i = 0; i < RDSU_ARRAY_SIZE(t); i++)
		assert_int_equal(rdsu_rdma_notify_rule(t[i].flags, t[i].recverr, t[i].end,
						       t[i].status),
				 t[i].want);
}

/* A transport that records what it is asked. */
struct fake {
	unsigned regs, frees, posts;
	struct rdsu_op_req last;
	uint64_t link;
	int frames_before_post;  /* frames output when the op was posted */
	int frames;
	uint32_t next_rkey;
};

static int f_get_mr(void *ud, const struct rdsu_addr *laddr, void *addr, uint64_t len,
		    unsigned flags, uint32_t *rkey, uint32_t *offset, void **handle)
{
	(void)laddr;
	struct fake *f = ud;

	(void)addr, (void)len, (void)flags;
	f->regs++;
	*rkey = f->next_rkey++;
	*offset = (uint32_t)((uintptr_t)addr & 4095); /* as verbs: the offset in its page */
	*handle = f;
	return 0;
}

static void f_free_mr(void *ud, void *handle, bool invalidate)
{
	struct fake *f = ud;

	(void)invalidate;
	assert_ptr_equal(handle, f);
	f->frees++;
}

static int f_xmit_op(void *ud, uint64_t link, const struct rdsu_op_req *op)
{
	struct fake *f = ud;

	f->posts++;
	f->last = *op;
	f->link = link;
	f->frames_before_post = f->frames;
	return 0;
}

static const struct rdsu_rdma_ops fake_ops = { f_get_mr, f_free_mr, f_xmit_op };

struct one {
	struct rdsu_ep *ep;
	struct rdsu_sock *s;
	uint64_t link;
	struct fake f;
};

/* An endpoint at SMALL of generation |kv| with the fake transport, an IB
 * socket at PA, and its link to LARGE up. */
static void one_new(struct one *o, enum wire_kver kv)
{
	struct rdsu_addr a = rdsu_addr_v4(SMALL), b = rdsu_addr_v4(LARGE);
	struct rdsu_link_hs hs;
	struct rdsu_lreq r;
	uint8_t z = 0;
	struct iovec iov = { &z, 1 };

	memset(o, 0, sizeof(*o));
	o->f.next_rkey = 0x100;
	o->ep = ep_make(SMALL, kv, 1);
	assert_int_equal(rdsu_ep_set_rdma(o->ep, RDSU_TRANS_TCP, &fake_ops, &o->f), RDSU_ERR_INVAL);
	assert_int_equal(rdsu_ep_set_rdma(o->ep, RDSU_TRANS_IB, &fake_ops, &o->f), 0);
	assert_int_equal(rdsu_sock_new(o->ep, &o->s), 0);
	assert_int_equal(rdsu_sock_set_transport(o->s, RDSU_TRANS_IB), 0);
	assert_int_equal(rdsu_sock_bind(o->s, &a, PA), 0);
	/* a first message brings the connection up */
	assert_int_equal(rdsu_sock_submit(o->s, &b, PB, &iov, 1, T0), 1);
	assert_int_equal(next_req(o->ep, RDSU_LREQ_CONNECT, &r), 1);
	o->link = r.link;
	assert_int_equal(rdsu_link_hs_offer(o->ep, o->link, &hs), 0);
	hs.version = WIRE_IBVER_3_1;
	hs.credit = 0;
	assert_int_equal(rdsu_link_hs_peer(o->ep, o->link, &hs, T0), 0);
	assert_int_equal(rdsu_link_established(o->ep, o->link, 0, T0), 0);
}

/* Output frames until one to PB with |len| payload bytes: its header. */
static void one_data_frame(struct one *o, uint32_t len, struct wire_hdr *out)
{
	static uint8_t buf[RDSU_FRAME_MAX];
	ssize_t n;

	while ((n = rdsu_link_output_frame(o->ep, o->link, buf, sizeof(buf), T0)) > 0) {
		struct wire_hdr h;

		o->f.frames++;
		assert_int_equal(wire_hdr_decode(&h, buf, (size_t)n), WIRE_HDR_LEN);
		if (h.dport == PB && h.len == len) {
			*out = h;
			return;
		}
	}
	fail_msg("no data frame of %u bytes", len);
}

static void one_free(struct one *o)
{
	rdsu_ep_free(o->ep);
}

static void rdma_exts(enum wire_kver kv, bool write)
{
	static const uint8_t ext6[WIRE_EXT_SPACE] = { 2, 0x00, 0x00, 0x12, 0x34 };
	/* RDMA {rkey}, RDMA_BYTES {bytes, rflags, pad} */
	uint8_t ext7[WIRE_EXT_SPACE] = { 2, 0x00, 0x00, 0x12, 0x34, 4, 0x00, 0x00, 0x03, 0x00,
					 write ? 1 : 2 };
	struct rdsu_addr b = rdsu_addr_v4(LARGE);
	static uint8_t local[768];
	struct iovec lv[2] = { { local, 256 }, { local + 256, 512 } };
	struct rdsu_op op = { 0 };
	struct wire_hdr h;
	struct one o;

	one_new(&o, kv);
	one_data_frame(&o, 1, &h);
	op.kind = RDSU_OP_RDMA;
	op.flags = RDSU_RDMA_NOTIFY_ME | RDSU_RDMA_FENCE | (write ? RDSU_RDMA_READWRITE : 0);
	op.cookie = rdsu_cookie_make(0x1234, 0x10);
	op.remote_addr = 0x20;
	op.remote_len = 4096;
	op.local = lv;
	op.nr_local = 2;
	op.user_token = 0xfeed;
	assert_int_equal(rdsu_sock_submit_op(o.s, &b, PB, NULL, 0, &op, T0), 0);
	assert_int_equal(o.f.posts, 0);
	one_data_frame(&o, 0, &h);
	/* posted before the frame that carries it */
	assert_int_equal(o.f.posts, 1);
	assert_int_equal(o.f.frames_before_post, o.f.frames - 1);
	assert_true(o.f.link == o.link);
	assert_int_equal(o.f.last.kind, RDSU_OP_RDMA);
	assert_int_equal(o.f.last.write, write);
	assert_true(o.f.last.fence);
	assert_int_equal(o.f.last.rkey, 0x1234);
	/* zero-based: remote_vec.addr plus the cookie's offset */
	assert_true(o.f.last.remote_addr == 0x30);
	assert_true(o.f.last.bytes == 768);
	assert_int_equal(o.f.last.nr_local, 2);
	assert_ptr_equal(o.f.last.local[1].iov_base, local + 256);
	if (kv == WIRE_KVER_6) {
		assert_memory_equal(h.ext, ext6, WIRE_EXT_SPACE);
		assert_int_equal(h.flags & WIRE_FLAG_EXTHDR_EXTENSION, 0);
	} else {
		assert_memory_equal(h.ext, ext7, WIRE_EXT_SPACE);
		assert_int_equal(h.flags & WIRE_FLAG_EXTHDR_EXTENSION, WIRE_FLAG_EXTHDR_EXTENSION);
	}
	/* a completion on another link, or of an unknown id, is refused;
	 * the right one notifies once */
	assert_int_equal(rdsu_link_op_done(o.ep, o.link + 1, o.f.last.id, RDSU_RDMA_SUCCESS, T0),
			 RDSU_ERR_CLOSED);
	assert_int_equal(rdsu_link_op_done(o.ep, o.link, o.f.last.id + 1, RDSU_RDMA_SUCCESS, T0),
			 RDSU_ERR_CLOSED);
	assert_int_equal(rdsu_link_op_done(o.ep, o.link, o.f.last.id, 9, T0), RDSU_ERR_INVAL);
	assert_int_equal(rdsu_sock_poll(o.s) & RDSU_POLLIN, 0);
	assert_int_equal(rdsu_link_op_done(o.ep, o.link, o.f.last.id, RDSU_RDMA_REMOTE_ERROR, T0),
			 0);
	assert_int_equal(rdsu_sock_poll(o.s) & RDSU_POLLIN, RDSU_POLLIN);
	assert_int_equal(rdsu_link_op_done(o.ep, o.link, o.f.last.id, RDSU_RDMA_SUCCESS, T0),
			 RDSU_ERR_CLOSED);
	{
		struct rdsu_notify n;

		assert_int_equal(rdsu_sock_next_notify(o.s, &n), 1);
		assert_true(n.user_token == 0xfeed);
		assert_int_equal(n.status, RDSU_RDMA_REMOTE_ERROR);
		assert_int_equal(rdsu_sock_next_notify(o.s, &n), 0);
	}
	one_free(&o);
}

static void test_rdma_exts_7x_write(void **state)
{
	(void)state;
	rdma_exts(WIRE_KVER_7, true);
}

static void test_rdma_exts_7x_read(void **state)
{
	(void)state;
	rdma_exts(WIRE_KVER_7, false);
}

static void test_rdma_exts_6x(void **state)
{
	(void)state;
	rdma_exts(WIRE_KVER_6, true);
}

/* RDMA_MAP: the region registered, its cookie in RDMA_DEST {rkey,
 * the transport's offset}, no op posted; the region held by the message after free. */
static void test_rdma_exts_map(void **state)
{
	static uint8_t mem[8192];
	uint32_t off = (uint32_t)((uintptr_t)mem & 4095); /* the fake's offset, as verbs' */
	uint8_t want[WIRE_EXT_SPACE] = { 3,
					 0x00,
					 0x00,
					 0x01,
					 0x00,
					 (uint8_t)(off >> 24),
					 (uint8_t)(off >> 16),
					 (uint8_t)(off >> 8),
					 (uint8_t)off };
	struct rdsu_addr b = rdsu_addr_v4(LARGE);
	struct rdsu_op op = { 0 };
	uint64_t cookie = 0;
	struct wire_hdr h;
	struct one o;

	(void)state;
	one_new(&o, WIRE_KVER_7);
	one_data_frame(&o, 1, &h);
	op.kind = RDSU_OP_MAP;
	op.flags = RDSU_RDMA_READWRITE;
	op.map_addr = mem;
	op.map_len = sizeof(mem);
	op.map_cookie = &cookie;
	assert_int_equal(rdsu_sock_submit_op(o.s, &b, PB, NULL, 0, &op, T0), 0);
	assert_true(cookie == rdsu_cookie_make(0x100, off));
	assert_int_equal(o.f.regs, 1);
	one_data_frame(&o, 0, &h);
	assert_int_equal(o.f.posts, 0);
	assert_memory_equal(h.ext, want, WIRE_EXT_SPACE);
	assert_int_equal(h.flags & WIRE_FLAG_EXTHDR_EXTENSION, 0);
	assert_int_equal(rdsu_sock_free_mr(o.s, cookie, 0), 0);
	assert_int_equal(o.f.frees, 0);
	assert_int_equal(rdsu_ep_mr_count(o.ep), 1);
	one_free(&o);
	/* the endpoint gives it back as it goes */
	assert_int_equal(o.f.frees, 1);
}

/* Regions: the bound per socket, cookies of a duplicate r_key refused. */
static void test_rdma_mr_bound(void **state)
{
	static uint8_t mem[16];
	uint64_t c;
	struct one o;

	(void)state;
	one_new(&o, WIRE_KVER_7);
	for (unsigned i = 0; i < RDSU_MR_MAX; i++)
		assert_int_equal(rdsu_sock_get_mr(o.s, mem, sizeof(mem), 0, &c), 0);
	assert_int_equal(rdsu_sock_get_mr(o.s, mem, sizeof(mem), 0, &c), -ENOBUFS);
	assert_int_equal(rdsu_sock_mr_count(o.s), RDSU_MR_MAX);
	assert_int_equal(rdsu_sock_free_mr(o.s, c, 0), 0);
	o.f.next_rkey = 0x100; /* a transport that repeats an r_key */
	assert_int_equal(rdsu_sock_get_mr(o.s, mem, sizeof(mem), 0, &c), -EEXIST);
	assert_int_equal(rdsu_ep_mr_count(o.ep), RDSU_MR_MAX - 1);
	rdsu_sock_free(o.s, T0);
	assert_int_equal(rdsu_ep_mr_count(o.ep), 0);
	assert_int_equal(o.f.frees, o.f.regs);
	one_free(&o);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_rdma_cookie),
	cmocka_unit_test(test_rdma_notify_rule),
	cmocka_unit_test(test_rdma_exts_7x_write),
	cmocka_unit_test(test_rdma_exts_7x_read),
	cmocka_unit_test(test_rdma_exts_6x),
	cmocka_unit_test(test_rdma_exts_map),
	cmocka_unit_test(test_rdma_mr_bound))
