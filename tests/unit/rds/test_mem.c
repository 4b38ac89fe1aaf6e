// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_mem.c - the message buffer cache: size classes, reuse without the
 * allocator, the cap on what is kept, nothing left after rdsu_ep_free. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "cmain.h"

#include "utest.h"

#include "core.h"

struct counts {
	unsigned allocs, frees;
	size_t last_size;
};

static void *count_alloc(size_t size, void *ud)
{
	struct counts *c = ud;

	c->allocs++;
	c->last_size = size;
	return malloc(size);
}

static void count_free(void *p, void *ud)
{
	struct counts *c = ud;

	c->frees++;
	free(p);
}

static struct rdsu_ep *counted_ep(struct counts *n)
{
	struct rdsu_ep_cfg c;

	ep_cfg_on(&c, SMALL, 1);
	c.mem.alloc = count_alloc;
	c.mem.free = count_free;
	c.mem.ud = n;
	return ep_new_ok(&c);
}

/* Every size gets at least what it asked for and at most a quarter more;
 * small ones exactly what they asked for. */
static void test_buf_classes(void **state)
{
	struct counts n = { 0 };
	struct rdsu_ep *ep = counted_ep(&n);
	static const size_t sizes[] = { 1, 100, 4095, 4096, 4097, 5000, 65536, 65536 + 40,
					98304, 1048576 + 64, 1500000, 2097152, 2097153,
					3000000 };

	(void)state;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t sz = sizes[i];
		uint8_t *p = rdsu_buf_alloc(ep, sz);

		assert_non_null(p);
		assert_true(n.last_size >= sz);
		if (sz < RDSU_BUF_MIN || sz > 2097152)
			assert_int_equal(n.last_size, sz);
		else
			assert_true(n.last_size <= sz + sz / 4);
		memset(p, 0xa5, sz); /* ASan: the whole size is ours */
		rdsu_buf_free(ep, p, sz);
	}
	rdsu_ep_free(ep);
	assert_int_equal(n.allocs, n.frees);
}

/* A freed buffer serves the next one of its class without the allocator;
 * another class does not take it. */
static void test_buf_reuse(void **state)
{
	struct counts n = { 0 };
	struct rdsu_ep *ep = counted_ep(&n);
	void *a, *b, *c;
	unsigned allocs;

	(void)state;
	a = rdsu_buf_alloc(ep, 65536 + 40);
	rdsu_buf_free(ep, a, 65536 + 40);
	allocs = n.allocs;
	b = rdsu_buf_alloc(ep, 65536 + 48);
	assert_ptr_equal(a, b);
	assert_int_equal(n.allocs, allocs);
	c = rdsu_buf_alloc(ep, 8192);
	assert_ptr_not_equal(c, a);
	assert_int_equal(n.allocs, allocs + 1);
	rdsu_buf_free(ep, b, 65536 + 48);
	rdsu_buf_free(ep, c, 8192);
	rdsu_ep_free(ep);
	assert_int_equal(n.allocs, n.frees);
}

/* No more than RDSU_BUF_CACHE bytes are kept: the rest goes back. */
static void test_buf_cap(void **state)
{
	struct counts n = { 0 };
	struct rdsu_ep *ep = counted_ep(&n);
	enum { N = RDSU_BUF_CACHE / 65536 + 8 };
	void *v[N];
	unsigned frees;

	(void)state;
	for (unsigned i = 0; i < N; i++)
		v[i] = rdsu_buf_alloc(ep, 65536);
	frees = n.frees;
	for (unsigned i = 0; i < N; i++)
		rdsu_buf_free(ep, v[i], 65536);
	assert_int_equal(n.frees - frees, 8);
	assert_true(ep->bufs.bytes <= RDSU_BUF_CACHE);
	rdsu_ep_free(ep);
	assert_int_equal(n.allocs, n.frees);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_buf_classes),
	cmocka_unit_test(test_buf_reuse),
	cmocka_unit_test(test_buf_cap))
