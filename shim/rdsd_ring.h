/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rdsd_ring.h - the shared-memory ring a client process writes its sends
 * into and rdsd reads them from (docs/shim.md, "rdsd's send ring"); sans
 * IO: no system call in rdsd_ring.c, only loads and stores on memory the
 * caller mapped, so that tests/unit/shim/test_rdsd_ring.c and
 * fuzz/fuzz_rdsdring.c run what rdsd runs.
 *
 * One ring per (socket, process): rdsd makes it (a sealed memfd, so the
 * client can neither shrink it under rdsd nor grow it) and hands it over
 * on the process's reply channel. Layout: one control page
 * (struct rdsd_ring_ctl), then |size| data bytes, a power of two.
 *
 * The data holds records, each 8-byte aligned and never wrapping:
 *   u32 len   body bytes that follow the record header
 *   u32 kind  RDSD_RING_MSG (a struct rdsd_req, then the payload) or
 *             RDSD_RING_PAD (fills the bytes up to the end of the data)
 * The producer (the client) writes records past |tail| and then publishes
 * |tail| (release); the consumer (rdsd) reads them and publishes |head|.
 * Both are free-running u32 byte counts.
 *
 * To rdsd everything in the shared page and data is untrusted: it keeps
 * its own head and size, reads |tail| and every record header once into
 * locals through libwire's bounds-checked reader, and checks them against
 * its size before it uses them. A record that is not all published yet is
 * truncated (looked at again later); one that cannot be (past the data's
 * end, an unknown kind, a tail more than |size| ahead) is malformed, and
 * rdsd reads that ring no more.
 *
 * Wake-ups: rdsd sets |sleeping| before it waits (rdsd_ring_arm); a
 * producer that finds it set after publishing clears it and rings the
 * ring's eventfd (rdsd_ring_wake_wanted). A full fence on both sides
 * (Dekker) means one of them sees the other's store.
 */
#ifndef RDSTK_SHIM_RDSD_RING_H
#define RDSTK_SHIM_RDSD_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RDSD_RING_MAGIC 0x72647372u         /* "rsdr" */
#define RDSD_RING_CTL 4096u                 /* the control page */
#define RDSD_RING_SIZE (512u << 10)         /* data bytes of a ring rdsd makes */
#define RDSD_RING_MIN 64u                   /* the smallest data a ring may have */
#define RDSD_RING_MAX (16u << 20)           /* ... and the largest */
#define RDSD_RING_REC 8u                    /* a record's header */

enum rdsd_ring_kind {
	RDSD_RING_MSG = 1,
	RDSD_RING_PAD = 2,
};

/* The control page. Each index on a cache line of its own. */
struct rdsd_ring_ctl {
	uint32_t magic;          /* rdsd's: RDSD_RING_MAGIC */
	uint32_t size;           /* rdsd's: data bytes (the producer's copy) */
	uint32_t broken;         /* rdsd's: it reads this ring no more */
	uint8_t pad0[52];
	uint32_t tail;           /* the producer's: bytes published */
	uint8_t pad1[60];
	uint32_t head;           /* rdsd's: bytes consumed */
	uint8_t pad2[60];
	uint32_t sleeping;       /* rdsd's set, the producer's clear: wake it */
	uint8_t pad3[60];
};

enum rdsd_ring_res {
	RDSD_RING_OK = 0,
	RDSD_RING_EMPTY,         /* nothing published */
	RDSD_RING_TRUNCATED,     /* a record not all published yet */
	RDSD_RING_MALFORMED,     /* bytes no producer of ours writes */
};

/* rdsd's side: what it trusts is here, in its own memory. */
struct rdsd_ring_cons {
	struct rdsd_ring_ctl *ctl;
	uint8_t *data;
	uint32_t size;           /* a power of two, RDSD_RING_MIN..RDSD_RING_MAX */
	uint32_t head;           /* the authoritative head */
	uint32_t next;           /* head past the record rdsd_ring_next gave */
	uint32_t seen;           /* the tail it last read */
	bool broken;             /* sticky: a malformed ring is read no more */
};

/* |mem| (RDSD_RING_CTL + |size| bytes, rdsd's own mapping) as a new empty
 * ring. Return: 0; -1 when |size| is not a power of two in range. */
int rdsd_ring_cons_init(struct rdsd_ring_cons *c, void *mem, uint32_t size);

/* The next message: *body and *len (a struct rdsd_req and its payload,
 * within the data; the bytes may still change under the caller, who reads
 * them once). Pads are skipped. Does not consume: rdsd_ring_consume does.
 * Return: RDSD_RING_OK, _EMPTY, _TRUNCATED, or _MALFORMED (and from then
 * on always _MALFORMED). */
enum rdsd_ring_res rdsd_ring_next(struct rdsd_ring_cons *c, const uint8_t **body, size_t *len);

/* The message rdsd_ring_next gave is done with: head moves past it and is
 * published for the producer. */
void rdsd_ring_consume(struct rdsd_ring_cons *c);

/* Before rdsd sleeps: |sleeping| set, then a look at |tail|. Return: true
 * when something was published (do not sleep: read it). */
bool rdsd_ring_arm(struct rdsd_ring_cons *c);

/* rdsd is awake: the producer need not wake it. */
void rdsd_ring_disarm(struct rdsd_ring_cons *c);

/* The client's side. */
struct rdsd_ring_prod {
	struct rdsd_ring_ctl *ctl;
	uint8_t *data;
	uint32_t size;
	uint32_t tail;           /* published */
	uint32_t pend;           /* tail once the reserved record is published */
};

/* |mem| of |len| bytes, a ring rdsd made. Return: 0; -1 when its control
 * page does not describe a ring of that length. */
int rdsd_ring_prod_init(struct rdsd_ring_prod *p, void *mem, size_t len);

/* Room for a message of |len| body bytes, contiguous: its body, or NULL
 * when the ring has no room (or rdsd gave it up). Nothing is published
 * until rdsd_ring_commit. */
void *rdsd_ring_reserve(struct rdsd_ring_prod *p, size_t len);

/* Publish what rdsd_ring_reserve reserved. */
void rdsd_ring_commit(struct rdsd_ring_prod *p);

/* After a commit: does rdsd sleep (the caller rings its eventfd)? */
bool rdsd_ring_wake_wanted(struct rdsd_ring_prod *p);

#endif
