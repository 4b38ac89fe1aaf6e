// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_rdscmsg.c - the shim's decoder of a send's control messages
 * (shim/rdscmsg.c) against rds_rm_size's and rds_cmsg_send's rules: each
 * operation's argument decoded, other levels skipped, and every error the
 * kernel gives for the bytes alone, in its order. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>
#include "cmain.h"

#include "rdscmsg.h"

#ifndef SOL_RDS
#define SOL_RDS 276
#endif

/* A control buffer built one cmsg at a time, as an application builds it. */
struct ctl {
	union {
		uint8_t b[1024];
		struct cmsghdr align;
	} u;
	size_t len;
};

static void add(struct ctl *c, int level, int type, const void *arg, size_t n)
{
	struct cmsghdr *h = (struct cmsghdr *)(void *)(c->u.b + c->len);

	assert_true(c->len + CMSG_SPACE(n) <= sizeof(c->u.b));
	h->cmsg_len = CMSG_LEN(n);
	h->cmsg_level = level;
	h->cmsg_type = type;
	memcpy(CMSG_DATA(h), arg, n);
	c->len += CMSG_SPACE(n);
}

/* One control message of level SOL_RDS: its type and argument. */
struct part {
	int type;
	const void *arg;
	size_t n;
};

static const struct rds_rdma_args args = {
	.cookie = 0x100000abcull, .remote_vec = { 8, 4096 }, .local_vec_addr = 0x1000,
	.nr_local = 3, .flags = RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, .user_token = 77,
};

static void test_none(void **state)
{
	struct rdscmsg m;
	struct ctl c = { .len = 0 };
	int other = 3;

	(void)state;
	assert_int_equal(rdscmsg_parse(NULL, 100, &m), 0);
	assert_int_equal(m.n_ops, 0);
	add(&c, SOL_SOCKET, SCM_RIGHTS, &other, sizeof(other));
	assert_int_equal(rdscmsg_parse(c.u.b, c.len, &m), 0);
	assert_int_equal(m.n_ops, 0);
	assert_int_equal(m.type, 0);
	/* fewer bytes than a header: the walk ends (__CMSG_FIRSTHDR) */
	assert_int_equal(rdscmsg_parse(c.u.b, sizeof(struct cmsghdr) - 1, &m), 0);
}

static void test_each_op(void **state)
{
	struct rds_atomic_args at = { .cookie = 5, .local_addr = 0x2000, .remote_addr = 16,
				      .m_cswp = { 1, 2, 3, 4 }, .flags = RDS_RDMA_NOTIFY_ME,
				      .user_token = 9 };
	struct rds_get_mr_args map = { { 0x3000, 100 }, 0x4000, RDS_RDMA_USE_ONCE };
	uint64_t dest = 0x1234567890ull;
	static const int atomics[] = { RDS_CMSG_ATOMIC_FADD, RDS_CMSG_ATOMIC_CSWP,
				       RDS_CMSG_MASKED_ATOMIC_FADD, RDS_CMSG_MASKED_ATOMIC_CSWP };
	struct rdscmsg m;
	struct ctl c = { .len = 0 };

	(void)state;
	add(&c, SOL_RDS, RDS_CMSG_RDMA_ARGS, &args, sizeof(args));
	assert_int_equal(rdscmsg_parse(c.u.b, c.len, &m), 0);
	assert_int_equal(m.type, RDS_CMSG_RDMA_ARGS);
	assert_int_equal(m.n_ops, 1);
	assert_memory_equal(&m.rdma, &args, sizeof(args));

	for (size_t i = 0; i < sizeof(atomics) / sizeof(atomics[0]); i++) {
		c.len = 0;
		add(&c, SOL_RDS, atomics[i], &at, sizeof(at));
		assert_int_equal(rdscmsg_parse(c.u.b, c.len, &m), 0);
		assert_int_equal(m.type, atomics[i]);
		assert_memory_equal(&m.atomic, &at, sizeof(at));
	}
	c.len = 0;
	add(&c, SOL_RDS, RDS_CMSG_RDMA_DEST, &dest, sizeof(dest));
	assert_int_equal(rdscmsg_parse(c.u.b, c.len, &m), 0);
	assert_int_equal(m.type, RDS_CMSG_RDMA_DEST);
	assert_true(m.dest_cookie == dest);
	c.len = 0;
	add(&c, SOL_RDS, RDS_CMSG_RDMA_MAP, &map, sizeof(map));
	assert_int_equal(rdscmsg_parse(c.u.b, c.len, &m), 0);
	assert_int_equal(m.type, RDS_CMSG_RDMA_MAP);
	assert_memory_equal(&m.map, &map, sizeof(map));

	/* the kernel takes an RDMA and an atomic in one message */
	c.len = 0;
	add(&c, SOL_RDS, RDS_CMSG_RDMA_ARGS, &args, sizeof(args));
	add(&c, SOL_RDS, RDS_CMSG_ATOMIC_FADD, &at, sizeof(at));
	assert_int_equal(rdscmsg_parse(c.u.b, c.len, &m), 0);
	assert_int_equal(m.n_ops, 2);
	assert_int_equal(m.type, RDS_CMSG_RDMA_ARGS);
}

static void test_errors(void **state)
{
	struct rds_rdma_args a = args;
	struct rds_atomic_args at = { .local_addr = 8 };
	uint64_t dest = 1;
	struct rdscmsg m;
	struct ctl c = { .len = 0 };
	struct cmsghdr *h;
	const struct part refused[][2] = {
		{ { RDS_CMSG_RDMA_ARGS, &args, sizeof(args) },
		  { RDS_CMSG_RDMA_ARGS, &args, sizeof(args) } },
		{ { RDS_CMSG_ATOMIC_FADD, &at, sizeof(at) },
		  { RDS_CMSG_MASKED_ATOMIC_CSWP, &at, sizeof(at) } },
		{ { RDS_CMSG_RDMA_DEST, &dest, sizeof(dest) },
		  { RDS_CMSG_RDMA_DEST, &dest, sizeof(dest) } },
		{ { RDS_CMSG_RDMA_DEST, &dest, sizeof(dest) },
		  { RDS_CMSG_ATOMIC_CSWP, &at, sizeof(at) } },
		{ { RDS_CMSG_RDMA_ARGS, &args, sizeof(args) },
		  { RDS_CMSG_ZCOPY_COOKIE, &dest, 4 } },
	};

	(void)state;
	/* unknown SOL_RDS type; STATUS and CONG_UPDATE are the receiver's */
	add(&c, SOL_RDS, 99, &dest, sizeof(dest));
	assert_int_equal(rdscmsg_parse(c.u.b, c.len, &m), -EINVAL);
	c.len = 0;
	add(&c, SOL_RDS, RDS_CMSG_RDMA_STATUS, &dest, sizeof(dest));
	assert_int_equal(rdscmsg_parse(c.u.b, c.len, &m), -EINVAL);

	/* not CMSG_OK: shorter than its header, longer than the buffer */
	c.len = 0;
	add(&c, SOL_RDS, RDS_CMSG_RDMA_DEST, &dest, sizeof(dest));
	h = (struct cmsghdr *)(void *)c.u.b;
	h->cmsg_len = sizeof(*h) - 1;
	assert_int_equal(rdscmsg_parse(c.u.b, c.len, &m), -EINVAL);
	h->cmsg_len = c.len + 1;
	assert_int_equal(rdscmsg_parse(c.u.b, c.len, &m), -EINVAL);
	/* ... also at another level */
	h->cmsg_level = SOL_SOCKET;
	assert_int_equal(rdscmsg_parse(c.u.b, c.len, &m), -EINVAL);

	/* RDMA_ARGS: no local entry; more than UIO_MAXIOV; short */
	c.len = 0;
	a.nr_local = 0;
	add(&c, SOL_RDS, RDS_CMSG_RDMA_ARGS, &a, sizeof(a));
	assert_int_equal(rdscmsg_parse(c.u.b, c.len, &m), -EINVAL);
	c.len = 0;
	a.nr_local = 1025;
	add(&c, SOL_RDS, RDS_CMSG_RDMA_ARGS, &a, sizeof(a));
	assert_int_equal(rdscmsg_parse(c.u.b, c.len, &m), -EMSGSIZE);
	c.len = 0;
	a.nr_local = 1024;
	add(&c, SOL_RDS, RDS_CMSG_RDMA_ARGS, &a, sizeof(a));
	assert_int_equal(rdscmsg_parse(c.u.b, c.len, &m), 0);
	c.len = 0;
	add(&c, SOL_RDS, RDS_CMSG_RDMA_ARGS, &a, sizeof(a) - 1);
	assert_int_equal(rdscmsg_parse(c.u.b, c.len, &m), -EINVAL);

	/* rds_rm_size's checks come first: a short DEST before an ARGS
	 * over UIO_MAXIOV is the latter's EMSGSIZE */
	c.len = 0;
	add(&c, SOL_RDS, RDS_CMSG_RDMA_DEST, &dest, 4);
	a.nr_local = 5000;
	add(&c, SOL_RDS, RDS_CMSG_RDMA_ARGS, &a, sizeof(a));
	assert_int_equal(rdscmsg_parse(c.u.b, c.len, &m), -EMSGSIZE);

	/* pairs refused (EINVAL): the same kind twice; DEST or MAP never with
	 * ARGS or an atomic, in either order */
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		int rc;

		c.len = 0;
		for (size_t j = 0; j < 2; j++)
			add(&c, SOL_RDS, refused[i][j].type, refused[i][j].arg, refused[i][j].n);
		rc = rdscmsg_parse(c.u.b, c.len, &m);
		if (rc != -EINVAL)
			fail_msg("refused pair %zu: %d, want -EINVAL", i, rc);
	}

	/* a zero-copy cookie alone decodes (the caller refuses it) */
	c.len = 0;
	add(&c, SOL_RDS, RDS_CMSG_ZCOPY_COOKIE, &dest, 4);
	assert_int_equal(rdscmsg_parse(c.u.b, c.len, &m), 0);
	assert_int_equal(m.zcopy, 1);
	assert_int_equal(m.n_ops, 0);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_none),
	cmocka_unit_test(test_each_op),
	cmocka_unit_test(test_errors))
