// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_rdsd_ring.c - the send ring between a client process and rdsd
 * (shim/rdsd_ring.c): records in order, wrap-around of the data and of
 * the u32 indices, a full ring, a producer killed in the middle of a
 * record, and what rdsd makes of a ring whose indices or record headers
 * were scribbled on (truncated: wait; malformed: read no more, and never
 * a byte outside the data). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include "cmain.h"

#include "rdsd_ring.h"

struct pair {
	void *mem;
	size_t len;
	struct rdsd_ring_cons c;
	struct rdsd_ring_prod p;
};

/* A ring of |size| data bytes in memory a forked child shares. */
static void pair_new(struct pair *r, uint32_t size)
{
	r->len = RDSD_RING_CTL + size;
	r->mem = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(r->mem != MAP_FAILED);
	assert_int_equal(rdsd_ring_cons_init(&r->c, r->mem, size), 0);
	assert_int_equal(rdsd_ring_prod_init(&r->p, r->mem, r->len), 0);
}

static void pair_free(struct pair *r)
{
	munmap(r->mem, r->len);
}

/* One message of |len| bytes, each (seq + i), published. */
static bool put(struct pair *r, size_t len, uint8_t seq)
{
	uint8_t *b = rdsd_ring_reserve(&r->p, len);

	if (!b)
		return false;
	for (size_t i = 0; i < len; i++)
		b[i] = (uint8_t)(seq + i);
	rdsd_ring_commit(&r->p);
	return true;
}

/* The next message is |len| bytes from |seq|, inside the data; consumed. */
static void take(struct pair *r, size_t len, uint8_t seq)
{
	const uint8_t *b = NULL;
	size_t n = 0;

	assert_int_equal(rdsd_ring_next(&r->c, &b, &n), RDSD_RING_OK);
	assert_int_equal(n, len);
	assert_true(b >= r->c.data && b + n <= r->c.data + r->c.size);
	for (size_t i = 0; i < len; i++)
		assert_int_equal(b[i], (uint8_t)(seq + i));
	rdsd_ring_consume(&r->c);
}

static enum rdsd_ring_res next(struct pair *r)
{
	const uint8_t *b;
	size_t n;

	return rdsd_ring_next(&r->c, &b, &n);
}

static void test_sizes(void **state)
{
	struct rdsd_ring_cons c;
	uint8_t mem[RDSD_RING_CTL + 128];
	struct rdsd_ring_prod p;

	(void)state;
	assert_int_equal(rdsd_ring_cons_init(&c, mem, 100), -1);   /* not a power of two */
	assert_int_equal(rdsd_ring_cons_init(&c, mem, 32), -1);    /* below the least */
	assert_int_equal(rdsd_ring_cons_init(&c, mem, 128), 0);
	/* the producer checks the page against the length it mapped */
	assert_int_equal(rdsd_ring_prod_init(&p, mem, sizeof(mem) - 8), -1);
	assert_int_equal(rdsd_ring_prod_init(&p, mem, sizeof(mem)), 0);
	((struct rdsd_ring_ctl *)mem)->magic = 0;
	assert_int_equal(rdsd_ring_prod_init(&p, mem, sizeof(mem)), -1);
}

static void test_order(void **state)
{
	struct pair r;

	(void)state;
	pair_new(&r, 4096);
	assert_int_equal(next(&r), RDSD_RING_EMPTY);
	assert_true(put(&r, 10, 1));
	assert_true(put(&r, 0, 2));
	assert_true(put(&r, 300, 3));
	take(&r, 10, 1);
	take(&r, 0, 2);
	take(&r, 300, 3);
	assert_int_equal(next(&r), RDSD_RING_EMPTY);
	/* rdsd published how far it read, for the producer's room */
	assert_int_equal(r.c.ctl->head, r.p.tail);
	pair_free(&r);
}

/* Records of every size through a small ring, thousands of times: pads
 * at the end of the data, and the u32 indices passing 2^32. */
static void test_wrap(void **state)
{
	struct pair r;
	uint32_t start = 0xffffff00u;

	(void)state;
	pair_new(&r, 256);
	r.c.head = r.c.next = r.c.seen = start;
	r.c.ctl->head = r.c.ctl->tail = start;
	r.p.tail = r.p.pend = start;
	for (unsigned i = 0; i < 5000; i++) {
		size_t len = (i * 37u) % 120u;

		assert_true(put(&r, len, (uint8_t)i));
		if (i % 3 == 0 && len < 60) {
			assert_true(put(&r, 5, (uint8_t)(i + 100)));
			take(&r, len, (uint8_t)i);
			take(&r, 5, (uint8_t)(i + 100));
		} else {
			take(&r, len, (uint8_t)i);
		}
	}
	assert_true(r.c.head < start);   /* it went round */
	assert_int_equal(next(&r), RDSD_RING_EMPTY);
	pair_free(&r);
}

/* A full ring refuses, whatever the size; a consumed record makes room. */
static void test_full(void **state)
{
	struct pair r;
	unsigned n = 0;

	(void)state;
	pair_new(&r, 256);
	assert_null(rdsd_ring_reserve(&r.p, 256));       /* never fits */
	assert_null(rdsd_ring_reserve(&r.p, 249));
	while (put(&r, 24, (uint8_t)n))                  /* 32 bytes a record */
		n++;
	assert_int_equal(n, 8);
	assert_null(rdsd_ring_reserve(&r.p, 0));
	take(&r, 24, 0);
	assert_true(put(&r, 24, 8));
	assert_null(rdsd_ring_reserve(&r.p, 0));
	for (unsigned i = 1; i <= 8; i++)
		take(&r, 24, (uint8_t)i);
	/* 9 records in, at 32: one of 120 (128 bytes) leaves 96 to the
	 * end; one of 100 (112) then needs a pad of 96 and the start, room
	 * for both or for neither */
	assert_int_equal(next(&r), RDSD_RING_EMPTY);
	assert_true(put(&r, 120, 50));
	assert_null(rdsd_ring_reserve(&r.p, 100));       /* 96 + 112 > 128 free */
	take(&r, 120, 50);
	assert_true(put(&r, 100, 60));                   /* pad, then at 0 */
	take(&r, 100, 60);
	pair_free(&r);
}

/* The producer dies with a record reserved and half written: rdsd reads
 * what was published before it, and nothing of the half record. */
static void test_killed_mid_write(void **state)
{
	struct pair r;
	pid_t pid;
	int st;

	(void)state;
	pair_new(&r, 4096);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		uint8_t *b;

		put(&r, 100, 7);
		put(&r, 50, 8);
		b = rdsd_ring_reserve(&r.p, 1000);
		if (b)
			memset(b, 0xee, 500);
		raise(SIGKILL);
		_exit(1);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	take(&r, 100, 7);
	take(&r, 50, 8);
	assert_int_equal(next(&r), RDSD_RING_EMPTY);
	/* nothing new: rdsd may sleep on it */
	assert_false(rdsd_ring_arm(&r.c));
	pair_free(&r);
}

/* A tail published over part of a record: truncated, looked at again
 * when more is published, and it does not keep rdsd awake meanwhile. */
static void test_truncated(void **state)
{
	struct pair r;
	uint8_t *b;

	(void)state;
	pair_new(&r, 4096);
	b = rdsd_ring_reserve(&r.p, 64);
	assert_non_null(b);
	for (unsigned i = 0; i < 64; i++)
		b[i] = (uint8_t)(3 + i);
	r.c.ctl->tail = 16;                               /* of 72 */
	assert_int_equal(next(&r), RDSD_RING_TRUNCATED);
	assert_false(rdsd_ring_arm(&r.c));
	rdsd_ring_commit(&r.p);
	assert_true(rdsd_ring_arm(&r.c));
	take(&r, 64, 3);
	pair_free(&r);
}

/* Scribbled indices and headers: malformed, for good, and the producer
 * sees rdsd gave the ring up. */
static void bad_case(void (*scribble)(struct pair *))
{
	struct pair r;

	pair_new(&r, 256);
	assert_true(put(&r, 16, 1));
	scribble(&r);
	assert_int_equal(next(&r), RDSD_RING_MALFORMED);
	/* sticky, even once the bytes look right again */
	r.c.ctl->tail = 24;
	assert_int_equal(next(&r), RDSD_RING_MALFORMED);
	assert_false(rdsd_ring_arm(&r.c));
	assert_int_equal(r.c.ctl->broken, 1);
	assert_null(rdsd_ring_reserve(&r.p, 8));
	pair_free(&r);
}

static void tail_far(struct pair *r)
{
	r->c.ctl->tail = 256 + 8;                         /* more than the ring */
}

static void tail_behind(struct pair *r)
{
	r->c.ctl->tail = 0xfffffff8u;                     /* before the head */
}

static void tail_odd(struct pair *r)
{
	r->c.ctl->tail = 20;                              /* not on a record */
}

static void len_past_end(struct pair *r)
{
	uint32_t len = 250;

	memcpy(r->c.data, &len, 4);
}

static void len_huge(struct pair *r)
{
	uint32_t len = 0xfffffff0u;

	memcpy(r->c.data, &len, 4);
}

static void kind_unknown(struct pair *r)
{
	uint32_t kind = 9;

	memcpy(r->c.data + 4, &kind, 4);
}

static void pad_short(struct pair *r)
{
	uint32_t kind = RDSD_RING_PAD;

	memcpy(r->c.data + 4, &kind, 4);                  /* a pad of 16, not to the end */
}

static void test_corrupt(void **state)
{
	(void)state;
	bad_case(tail_far);
	bad_case(tail_behind);
	bad_case(tail_odd);
	bad_case(len_past_end);
	bad_case(len_huge);
	bad_case(kind_unknown);
	bad_case(pad_short);
}

/* rdsd keeps its own head and size: scribbling the shared copies changes
 * nothing it reads. */
static void test_shared_head_ignored(void **state)
{
	struct pair r;

	(void)state;
	pair_new(&r, 256);
	assert_true(put(&r, 16, 1));
	assert_true(put(&r, 16, 2));
	r.c.ctl->head = 0x12345678u;
	r.c.ctl->size = 1u << 30;
	take(&r, 16, 1);
	r.c.ctl->head = 0;
	take(&r, 16, 2);
	assert_int_equal(next(&r), RDSD_RING_EMPTY);
	pair_free(&r);
}

/* The wake-up handshake: armed and empty, rdsd may sleep; the producer's
 * next commit asks for one wake-up, not two. */
static void test_wake(void **state)
{
	struct pair r;

	(void)state;
	pair_new(&r, 256);
	assert_false(rdsd_ring_arm(&r.c));
	assert_true(put(&r, 8, 1));
	assert_true(rdsd_ring_wake_wanted(&r.p));
	assert_false(rdsd_ring_wake_wanted(&r.p));
	assert_true(rdsd_ring_arm(&r.c));                 /* published since read */
	rdsd_ring_disarm(&r.c);
	assert_true(put(&r, 8, 2));
	assert_false(rdsd_ring_wake_wanted(&r.p));        /* awake: no wake-up */
	take(&r, 8, 1);
	take(&r, 8, 2);
	pair_free(&r);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_sizes),
	cmocka_unit_test(test_order),
	cmocka_unit_test(test_wrap),
	cmocka_unit_test(test_full),
	cmocka_unit_test(test_killed_mid_write),
	cmocka_unit_test(test_truncated),
	cmocka_unit_test(test_corrupt),
	cmocka_unit_test(test_shared_head_ignored),
	cmocka_unit_test(test_wake))
