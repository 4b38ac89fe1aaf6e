/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * tcpreasm.h - rdsdump: TCP reassembly of one direction of one connection.
 *
 * Segments go in as captured (any order, duplicated, overlapping, cut short
 * by the snap length); an in-order byte stream comes out as events, with an
 * explicit event for everything a dissector must not paper over: lost bytes
 * (GAP), bytes the capture cut off (TRUNC), retransmissions (RETRANS),
 * retransmissions whose bytes differ from the first copy (CONFLICT), a
 * capture that starts mid-connection (MIDSTREAM), SYN, FIN, RST.
 *
 * Pure: no I/O, no clock, no printing. The only allocation is one arena
 * that starts empty and doubles as bytes actually wait (held ahead of a
 * hole, or kept as history), up to a size that follows from the limits,
 * never from a length field: a direction costs what it keeps, and at most
 * (ooo + history) * 1.25 bytes whatever the input.
 *
 * Stream offsets are 64-bit and count from the first byte after the SYN (or
 * from the first data byte seen when the SYN was not captured), so they
 * never wrap even though sequence numbers do.
 *
 * Events are pulled (input, then dump_tcp_dir_next_event() until it returns
 * 0) rather than written into a caller's array: one segment can release an
 * unbounded number of events (filling a hole releases every held run behind
 * it; hitting the limit can declare several holes lost), and a pull model
 * needs no "array too small, call again" protocol, no callback re-entrancy
 * rules, and lets tests and fuzzers drain in one loop (house style B3).
 */
#ifndef DUMP_TCPREASM_H
#define DUMP_TCPREASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Errors: a range of their own, next to libwire's -1xx and librds's -2xx. */
enum dump_tcp_err {
	DUMP_TCP_OK = 0,
	DUMP_TCP_ERR_INVAL = -301,  /* NULL, caplen > len, len above the maximum */
	DUMP_TCP_ERR_NOMEM = -302,  /* out of memory (no call returns it at present) */
	DUMP_TCP_ERR_BUSY = -303,   /* events of the previous call not drained */
	DUMP_TCP_ERR_CLOSED = -304, /* input after dump_tcp_dir_close() */
};

/* Same bits as the TCP header's flags byte (WIRE_TCP_FIN, ...), so a
 * decoded packet's flags can be passed as they are; other bits are ignored. */
#define DUMP_TCP_FIN 0x01
#define DUMP_TCP_SYN 0x02
#define DUMP_TCP_RST 0x04

/* Largest payload one segment may claim: far above any real segment (64 KiB,
 * or 512 KiB with BIG TCP), far below the 2^31 that sequence arithmetic can
 * order. */
#define DUMP_TCP_SEG_MAX (1u << 30)

#define DUMP_TCP_OOO_DEFAULT (4u << 20)     /* 4 MiB held out of order */
#define DUMP_TCP_HISTORY_DEFAULT (1u << 20) /* 1 MiB kept for comparison */
#define DUMP_TCP_JUMP_DEFAULT (1u << 30)    /* largest TCP window (scale 14) */

/*
 * Limits, all per direction; 0 in a field means its default.
 *
 * ooo: bytes beyond the next expected byte that may be held waiting for a
 *   hole to fill. A segment reaching past it forces the oldest hole to be
 *   declared lost (GAP), as often as needed.
 * history: delivered bytes kept so that a retransmission can be compared
 *   with what was delivered (CONFLICT). Older retransmitted bytes are still
 *   counted, as "unchecked". Use DUMP_TCP_HISTORY_NONE for none at all.
 * jump: a segment starting more than this beyond the next expected byte is
 *   not plausibly part of this connection (no receive window is that large)
 *   and is ignored (IGNORED) instead of declaring a huge gap.
 *
 * Memory: none at init; grown on demand, at most (ooo + history) * 1.25
 * bytes. When growing fails, bytes that would be held are not (they come
 * out as a GAP, counted in nomem_bytes) and less history is kept.
 */
struct dump_tcp_limits {
	size_t ooo;
	size_t history;
	uint32_t jump;
};

#define DUMP_TCP_HISTORY_NONE ((size_t)-1)

/* One TCP segment of this direction, as captured. */
struct dump_tcp_seg {
	uint32_t seq;           /* sequence number of the segment (of the SYN if set) */
	uint8_t flags;          /* DUMP_TCP_SYN | DUMP_TCP_FIN | DUMP_TCP_RST */
	const uint8_t *data;    /* captured payload; may be NULL when caplen is 0 */
	size_t caplen;          /* payload bytes captured */
	size_t len;             /* payload bytes on the wire; > caplen when snaplen cut */
};

enum dump_tcp_ev_type {
	DUMP_TCP_EV_NONE = 0,
	/*
	 * Stream events. DATA, GAP and TRUNC tile the stream: each starts at
	 * the offset where the previous one ended, the first at 0.
	 */
	DUMP_TCP_EV_DATA,       /* len bytes at data, stream offset offset */
	DUMP_TCP_EV_GAP,        /* len bytes never captured: lost, resynchronise */
	DUMP_TCP_EV_TRUNC,      /* len bytes sent but cut by the snap length */
	/* Connection events: offset is where in the stream they happen. */
	DUMP_TCP_EV_SYN,        /* SYN seen; the stream starts at offset 0 */
	DUMP_TCP_EV_MIDSTREAM,  /* no SYN: offset 0 is the first data byte seen,
				 * likely inside a record, resynchronise */
	DUMP_TCP_EV_FIN,        /* the sender closed after offset - 1 */
	DUMP_TCP_EV_RST,        /* reset at offset; len = payload bytes ignored */
	DUMP_TCP_EV_REOPEN,     /* SYN with a new ISN: the addresses were reused
				 * for a new connection; segment ignored; start a
				 * new direction */
	/* Findings: offset is the first byte concerned; nothing is delivered. */
	DUMP_TCP_EV_RETRANS,    /* len bytes seen before (delivered or held);
				 * aux of them could not be compared */
	DUMP_TCP_EV_CONFLICT,   /* len bytes of a retransmission differ from the
				 * first copy, which is what was (or will be)
				 * delivered; offset = first differing byte */
	DUMP_TCP_EV_AFTER_FIN,  /* len bytes beyond the FIN, dropped */
	DUMP_TCP_EV_IGNORED,    /* segment starts implausibly far ahead (more
				 * than limits.jump); aux = its seq */
	DUMP_TCP_EV__COUNT
};

struct dump_tcp_ev {
	enum dump_tcp_ev_type type;
	uint64_t offset;        /* stream offset (see above) */
	uint64_t len;
	uint64_t aux;           /* RETRANS: unchecked bytes; IGNORED: seq */
	uint32_t seq;           /* sequence number of offset (mod 2^32) */
	/*
	 * DATA only: the bytes. They point into the caller's segment when it
	 * arrived in order (zero copy) and into the module's arena when they
	 * were held; valid until the next call on the direction.
	 */
	const uint8_t *data;
	bool held;              /* DATA: data points into the arena */
};

/* Counters for rdsdump -z; all monotonic except held_bytes. */
struct dump_tcp_stats {
	uint64_t segments;        /* every dump_tcp_dir_input() that was accepted */
	uint64_t bytes;           /* delivered as DATA */
	uint64_t retrans_bytes;   /* RETRANS len */
	uint64_t unchecked_bytes; /* RETRANS aux */
	uint64_t conflict_bytes;  /* CONFLICT len */
	uint64_t conflicts;       /* CONFLICT events */
	uint64_t gap_bytes;       /* GAP len */
	uint64_t gaps;            /* GAP events */
	uint64_t trunc_bytes;     /* TRUNC len */
	uint64_t ooo_segments;    /* segments that added held bytes */
	uint64_t after_fin_bytes; /* AFTER_FIN len */
	uint64_t ignored;         /* IGNORED and REOPEN segments */
	uint64_t held_bytes;      /* held now; never above limits.ooo */
	uint64_t held_max;        /* high-water mark of held_bytes */
	uint64_t nomem_bytes;     /* not held for want of memory (later a GAP) */
	uint64_t mem_max;         /* high-water mark of dump_tcp_dir_mem() */
};

/*
 * One direction. Caller-owned storage; members are private to tcpreasm.c
 * (visible so that it can live inside the caller's connection struct and
 * the fuzzer can check its invariants).
 */
struct dump_tcp_dir {
	/* limits and the arena */
	size_t ooo_max;
	size_t hist_max;
	size_t cap;             /* ring size now: 0 (none) up to hist_max + ooo_max */
	uint64_t jump;
	bool ready;             /* init done, fini not yet */
	void *arena;
	size_t arena_len;
	uint8_t *ring;          /* byte of offset o at ring[o % cap] */
	uint64_t *held;         /* bit per ring byte: received, not yet delivered */
	uint64_t *valid;        /* bit per ring byte: its value was captured */

	/* stream */
	bool started, syn_seen, fin_seen, fin_done, closing, closed;
	uint32_t isn;           /* seq of the SYN */
	uint32_t base_seq;      /* seq of offset 0 */
	uint64_t next;          /* next offset to deliver */
	uint64_t hist_len;      /* ring holds [next - hist_len, next) */
	uint64_t held_end;      /* no byte at or beyond this is held */
	uint64_t fin_off;

	/* the segment being processed: [s, e), captured up to c */
	const uint8_t *sdata;
	int64_t sbase;          /* offset of sdata[0]; < 0 before the start */
	uint64_t s, c, e;
	int phase;
	struct dump_tcp_ev q[8];
	unsigned qhead, qlen;

	struct dump_tcp_stats st;
};

/*
 * dump_tcp_dir_init() - set up |d| with |lim| (NULL for all defaults).
 * Allocates nothing: the arena comes with the first bytes to keep.
 * Return: 0; DUMP_TCP_ERR_INVAL if |d| is NULL or ooo + history overflows.
 */
int dump_tcp_dir_init(struct dump_tcp_dir *d, const struct dump_tcp_limits *lim);

/* dump_tcp_dir_fini() - free the arena. NULL and repeated calls are fine. */
void dump_tcp_dir_fini(struct dump_tcp_dir *d);

/*
 * dump_tcp_dir_input() - take one segment. Nothing is delivered yet: pull
 * the events with dump_tcp_dir_next_event() until it returns 0. seg->data
 * must stay valid until then (DATA events may point into it).
 *
 * Every segment is accepted; what is odd about it becomes events, never an
 * error. Pure ACKs (no data, no flags) produce no events.
 * Return: 0; DUMP_TCP_ERR_INVAL for NULL arguments, caplen > len, len above
 * DUMP_TCP_SEG_MAX, or caplen > 0 with NULL data; DUMP_TCP_ERR_BUSY if
 * events of the previous call are still pending; DUMP_TCP_ERR_CLOSED after
 * dump_tcp_dir_close().
 */
int dump_tcp_dir_input(struct dump_tcp_dir *d, const struct dump_tcp_seg *seg);

/*
 * dump_tcp_dir_close() - end of capture (or of the connection): whatever is
 * still held is released, each hole before it as a GAP, then a GAP up to a
 * FIN seen ahead and the FIN itself. Pull the events as after input; then
 * held_bytes is 0 and the direction takes no more input.
 * Return: 0 (also when already closed); DUMP_TCP_ERR_INVAL if |d| is NULL;
 * DUMP_TCP_ERR_BUSY if events are pending.
 */
int dump_tcp_dir_close(struct dump_tcp_dir *d);

/*
 * dump_tcp_dir_next_event() - the next event of the last input or close.
 * Pointers in |ev| are valid until the next call on |d|.
 * Return: 1 if |ev| was filled, 0 when there are no more events,
 * DUMP_TCP_ERR_INVAL for NULL arguments.
 */
int dump_tcp_dir_next_event(struct dump_tcp_dir *d, struct dump_tcp_ev *ev);

/* dump_tcp_dir_stats() - counters of |d|. */
const struct dump_tcp_stats *dump_tcp_dir_stats(const struct dump_tcp_dir *d);

/* dump_tcp_dir_mem() - bytes allocated by |d| now; grows with what it keeps
 * (only input and close change it), never above the limits' maximum. */
size_t dump_tcp_dir_mem(const struct dump_tcp_dir *d);

/* dump_tcp_dir_next_offset() - stream offset of the next byte to deliver. */
uint64_t dump_tcp_dir_next_offset(const struct dump_tcp_dir *d);

/* dump_tcp_ev_name() - "data", "gap", ...; "?" for an unknown type. */
const char *dump_tcp_ev_name(enum dump_tcp_ev_type t);

/* dump_tcp_strerror() - static description of a DUMP_TCP_ERR_* code. */
const char *dump_tcp_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif /* DUMP_TCPREASM_H */
