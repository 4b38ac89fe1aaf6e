// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * fuzz_rdsdring.c - what rdsd reads from a client's send ring
 * (shim/rdsd_ring.c, then rdsd_req_decode on each message, as
 * shim/rdsd_shm.c does), over any bytes a client could leave there.
 * Input: byte 0 picks the data size (64 << (b % 7)), bytes 1-4 rdsd's
 * head, 5-8 the shared tail, the rest the data (zero-filled).
 * Properties abort(): every message lies inside the data, starts on a
 * record boundary and fits before the data's end; head moves forward by
 * at most what was published, never past the tail; malformed is for
 * good; the answers depend on the bytes alone (a second run agrees).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rdsd_proto.h"
#include "rdsd_ring.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool ok)
{
	if (!ok)
		abort();
}

#define STEPS 256

/* One run over the input; |log| gets each step's answer and length. */
static int run(const uint8_t *in, size_t n, uint8_t *mem, uint32_t rsize, uint32_t head,
	       uint32_t tail, uint64_t *log)
{
	struct rdsd_ring_cons c;
	uint32_t published = tail - head;
	int steps = 0;

	check(rdsd_ring_cons_init(&c, mem, rsize) == 0);
	memset(c.data, 0, rsize);
	memcpy(c.data, in, n < rsize ? n : rsize);
	c.head = c.next = c.seen = head;
	c.ctl->head = head;
	c.ctl->tail = tail;
	for (; steps < STEPS; steps++) {
		const uint8_t *b = NULL, *pl;
		size_t len = 0, plen;
		struct rdsd_req q;
		uint32_t before = c.head;
		enum rdsd_ring_res r = rdsd_ring_next(&c, &b, &len);

		log[steps] = (uint64_t)r << 32 | (uint32_t)len;
		if (r == RDSD_RING_MALFORMED) {
			check(rdsd_ring_next(&c, &b, &len) == RDSD_RING_MALFORMED);
			check(!rdsd_ring_arm(&c));
			break;
		}
		/* pads consumed on the way move head within what was published */
		check(c.head - head <= published || published > rsize);
		if (r != RDSD_RING_OK)
			break;
		check(published <= rsize);
		check(b >= c.data + RDSD_RING_REC && b + len <= c.data + rsize);
		check((size_t)(b - c.data) % 8 == 0);
		check(len <= rsize - RDSD_RING_REC);
		(void)rdsd_req_decode(b, len, &q, &pl, &plen);
		rdsd_ring_consume(&c);
		check(c.head != before && c.head - head <= published);
		check(c.ctl->head == c.head);
	}
	return steps;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint64_t log1[STEPS + 1], log2[STEPS + 1];
	uint32_t rsize, head, tail;
	uint8_t *mem;
	int s1, s2;

	if (size < 9)
		return 0;
	rsize = 64u << (data[0] % 7);
	memcpy(&head, data + 1, 4);
	memcpy(&tail, data + 5, 4);
	head &= ~7u;   /* rdsd's own head is always on a record */
	mem = malloc(RDSD_RING_CTL + rsize);
	if (!mem)
		return 0;
	memset(log1, 0, sizeof(log1));
	memset(log2, 0, sizeof(log2));
	s1 = run(data + 9, size - 9, mem, rsize, head, tail, log1);
	s2 = run(data + 9, size - 9, mem, rsize, head, tail, log2);
	check(s1 == s2 && !memcmp(log1, log2, sizeof(log1)));
	free(mem);
	return 0;
}
