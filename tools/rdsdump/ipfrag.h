/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * ipfrag.h - rdsdump: IPv4 and IPv6 fragments put back into datagrams
 * before TCP, as a receiving kernel does (net/ipv4/ip_fragment.c,
 * net/ipv6/reassembly.c), so a segment that was fragmented on its way is
 * seen as the receiver saw it.
 *
 * Bounded whatever the input: at most DUMP_IPFRAG_MAX datagrams in
 * progress, each one fixed-size buffer of DUMP_IPFRAG_DG bytes (a whole
 * datagram of 65535 bytes, never sized by a length field), so the table
 * holds at most DUMP_IPFRAG_MAX * DUMP_IPFRAG_DG bytes (4.2 MiB: about the
 * kernel's default ipfrag_high_thresh of 4 MiB). A datagram not complete
 * DUMP_IPFRAG_TIMEOUT_NS of capture time after its first fragment is
 * dropped (the kernel's ipfrag_time, 30 s). A new datagram that finds the
 * table full, or no room in the caller's budget, first drops the oldest.
 * Fragments that overlap one held before, except an exact copy (dropped
 * alone), and fragments inconsistent with the datagram's end (beyond an
 * end already known, or a second, different end) drop the whole datagram,
 * as ip_frag_queue() and inet_frag_queue_insert() do (RFC 5722).
 *
 * Pure: no I/O, no clock (time is an argument), no printing.
 */
#ifndef DUMP_IPFRAG_H
#define DUMP_IPFRAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <wire/wire.h>

#define DUMP_IPFRAG_MAX 64u
#define DUMP_IPFRAG_TIMEOUT_NS (30ull * 1000000000ull)
/* the largest header (IPv4 with options) and a datagram's data (65535) */
#define DUMP_IPFRAG_HDR_MAX 60u
#define DUMP_IPFRAG_DATA_MAX 65535u

struct dump_ipfrag_dg;

/* Counts since dump_ipfrag_init(). */
struct dump_ipfrag_stats {
	uint64_t frags;         /* fragments taken */
	uint64_t done;          /* datagrams put back together */
	uint64_t dup;           /* exact copies of a fragment held (dropped alone) */
	uint64_t bad;           /* datagrams dropped: overlapping or inconsistent fragments */
	uint64_t timeout;       /* datagrams dropped: not complete in 30 s of capture time */
	uint64_t evicted;       /* datagrams dropped for room: table full or budget */
	uint64_t evicted_bytes; /* fragment bytes those held */
	uint64_t unfinished;    /* datagrams still incomplete at dump_ipfrag_fini() */
	uint64_t trunc;         /* fragments the capture cut: not put back (the caller's count) */
};

struct dump_ipfrag {
	struct dump_ipfrag_dg *dg[DUMP_IPFRAG_MAX];     /* NULL: free */
	unsigned n;
	size_t mem;             /* bytes allocated now */
	struct dump_ipfrag_dg *done;                    /* the datagram last given out */
	struct dump_ipfrag_stats st;
};

/* Bytes one datagram in progress costs. */
size_t dump_ipfrag_dg_size(void);

enum dump_ipfrag_res {
	DUMP_IPFRAG_HELD = 0,   /* kept, the datagram is not complete */
	DUMP_IPFRAG_DONE = 1,   /* complete: *out is the datagram */
	DUMP_IPFRAG_DUP = 2,    /* an exact copy of a fragment held: dropped */
	DUMP_IPFRAG_BAD = 3,    /* it overlaps or contradicts: the datagram is dropped */
	DUMP_IPFRAG_NOROOM = 4, /* no room even after dropping the others */
};

void dump_ipfrag_init(struct dump_ipfrag *t);
/*
 * dump_ipfrag_input() - the fragment |f| of the packet |p| at capture time
 * |now_ns|. |room| is what the caller's budget allows this call to
 * allocate. Datagrams past their time are dropped first.
 * On DUMP_IPFRAG_DONE, *out and *out_len are the datagram as one IP packet
 * (the first fragment's header, its length fields set to the whole and
 * its fragment fields cleared; for IPv6 the fixed header with the
 * fragment header's next header), valid until the next call.
 * Return: enum dump_ipfrag_res.
 */
int dump_ipfrag_input(struct dump_ipfrag *t, const struct wire_pkt *p,
		      const struct wire_ipfrag *f, uint64_t now_ns, size_t room,
		      const uint8_t **out, size_t *out_len);
/* dump_ipfrag_expire() - drop datagrams whose time is up at |now_ns|. */
void dump_ipfrag_expire(struct dump_ipfrag *t, uint64_t now_ns);
/* dump_ipfrag_evict_oldest() - drop the oldest datagram for room.
 * Return: bytes freed (0: none held). */
size_t dump_ipfrag_evict_oldest(struct dump_ipfrag *t);
/* dump_ipfrag_fini() - free everything; what is held counts as unfinished. */
void dump_ipfrag_fini(struct dump_ipfrag *t);

#endif
