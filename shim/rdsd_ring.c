// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rdsd_ring.c - the send ring between a client process and rdsd
 * (rdsd_ring.h has the layout and the rules). Loads and stores only; the
 * consumer reads what the producer wrote through libwire's bounds-checked
 * reader, once, into locals.
 */
#include <string.h>

#include "rd.h"
#include "rdsd_ring.h"

static uint32_t align8(uint32_t n)
{
	return (n + 7u) & ~7u;
}

static bool size_ok(uint32_t size)
{
	return size >= RDSD_RING_MIN && size <= RDSD_RING_MAX && !(size & (size - 1));
}

int rdsd_ring_cons_init(struct rdsd_ring_cons *c, void *mem, uint32_t size)
{
	memset(c, 0, sizeof(*c));
	if (!mem || !size_ok(size))
		return -1;
	c->ctl = mem;
	c->data = (uint8_t *)mem + RDSD_RING_CTL;
	c->size = size;
	memset(c->ctl, 0, sizeof(*c->ctl));
	c->ctl->magic = RDSD_RING_MAGIC;
	c->ctl->size = size;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	return 0;
}

static enum rdsd_ring_res ring_bad(struct rdsd_ring_cons *c)
{
	c->broken = true;
	__atomic_store_n(&c->ctl->broken, 1u, __ATOMIC_RELAXED);
	return RDSD_RING_MALFORMED;
}

static void ring_publish(struct rdsd_ring_cons *c, uint32_t head)
{
	c->head = head;
	c->next = head;
	__atomic_store_n(&c->ctl->head, head, __ATOMIC_RELEASE);
}

enum rdsd_ring_res rdsd_ring_next(struct rdsd_ring_cons *c, const uint8_t **body, size_t *len)
{
	/* At most one pad before a message: a pad ends at the data's end,
	 * so the record after it starts at 0 and is not a pad that the
	 * producer wrote (a pad from 0 is the whole ring, then nothing). */
	for (int pads = 0; !c->broken && pads < 2; pads++) {
		uint32_t tail = __atomic_load_n(&c->ctl->tail, __ATOMIC_ACQUIRE);
		uint32_t avail = tail - c->head;
		uint32_t off = c->head & (c->size - 1);
		uint32_t room = c->size - off;      /* to the data's end, >= 8 */
		uint32_t blen, kind, need;
		const uint8_t *b;
		struct wire_rd rd;

		c->seen = tail;
		if (avail == 0)
			return RDSD_RING_EMPTY;
		if (avail > c->size || avail % RDSD_RING_REC)
			return ring_bad(c);
		wire_rd_init(&rd, c->data + off, avail < room ? avail : room);
		blen = wire_rd_he32(&rd);
		kind = wire_rd_he32(&rd);
		if (!wire_rd_ok(&rd) || blen > room - RDSD_RING_REC)
			return ring_bad(c);          /* past the data's end */
		need = align8(RDSD_RING_REC + blen);
		if (kind == RDSD_RING_PAD) {
			if (need != room)
				return ring_bad(c);
			if (avail < need)
				return RDSD_RING_TRUNCATED;
			ring_publish(c, c->head + need);
			continue;
		}
		if (kind != RDSD_RING_MSG)
			return ring_bad(c);
		b = wire_rd_take(&rd, blen);
		if (!b)
			return RDSD_RING_TRUNCATED;  /* fits, but not all published */
		*body = b;
		*len = blen;
		c->next = c->head + need;
		return RDSD_RING_OK;
	}
	return c->broken ? RDSD_RING_MALFORMED : ring_bad(c);
}

void rdsd_ring_consume(struct rdsd_ring_cons *c)
{
	if (!c->broken && c->next != c->head && c->next - c->head <= c->size)
		ring_publish(c, c->next);
}

bool rdsd_ring_arm(struct rdsd_ring_cons *c)
{
	uint32_t tail;

	if (c->broken)
		return false;
	__atomic_store_n(&c->ctl->sleeping, 1u, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	tail = __atomic_load_n(&c->ctl->tail, __ATOMIC_ACQUIRE);
	/* only what is new since rdsd last looked: a record left truncated
	 * must not keep rdsd awake */
	return tail != c->seen;
}

void rdsd_ring_disarm(struct rdsd_ring_cons *c)
{
	__atomic_store_n(&c->ctl->sleeping, 0u, __ATOMIC_RELAXED);
}

int rdsd_ring_prod_init(struct rdsd_ring_prod *p, void *mem, size_t len)
{
	struct rdsd_ring_ctl *ctl = mem;

	memset(p, 0, sizeof(*p));
	if (!mem || len < RDSD_RING_CTL || ctl->magic != RDSD_RING_MAGIC || !size_ok(ctl->size) ||
	    len - RDSD_RING_CTL != ctl->size)
		return -1;
	p->ctl = ctl;
	p->data = (uint8_t *)mem + RDSD_RING_CTL;
	p->size = ctl->size;
	p->tail = p->pend = __atomic_load_n(&ctl->tail, __ATOMIC_RELAXED);
	return 0;
}

static void put_rec(uint8_t *at, uint32_t len, uint32_t kind)
{
	memcpy(at, &len, sizeof(len));
	memcpy(at + 4, &kind, sizeof(kind));
}

void *rdsd_ring_reserve(struct rdsd_ring_prod *p, size_t len)
{
	uint32_t head = __atomic_load_n(&p->ctl->head, __ATOMIC_ACQUIRE);
	uint32_t used = p->tail - head, off = p->tail & (p->size - 1);
	uint32_t room = p->size - off, pos = p->tail, need, space;

	if (__atomic_load_n(&p->ctl->broken, __ATOMIC_RELAXED) || used > p->size ||
	    len > p->size - RDSD_RING_REC)
		return NULL;
	need = align8(RDSD_RING_REC + (uint32_t)len);
	space = p->size - used;
	if (need > room) {
		/* a pad to the end, the record at the start */
		if (room + need > space)
			return NULL;
		put_rec(p->data + off, room - RDSD_RING_REC, RDSD_RING_PAD);
		pos += room;
		off = 0;
	} else if (need > space) {
		return NULL;
	}
	put_rec(p->data + off, (uint32_t)len, RDSD_RING_MSG);
	p->pend = pos + need;
	return p->data + off + RDSD_RING_REC;
}

void rdsd_ring_commit(struct rdsd_ring_prod *p)
{
	p->tail = p->pend;
	__atomic_store_n(&p->ctl->tail, p->tail, __ATOMIC_RELEASE);
}

bool rdsd_ring_wake_wanted(struct rdsd_ring_prod *p)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&p->ctl->sleeping, __ATOMIC_RELAXED))
		return false;
	return __atomic_exchange_n(&p->ctl->sleeping, 0u, __ATOMIC_ACQ_REL) != 0;
}
