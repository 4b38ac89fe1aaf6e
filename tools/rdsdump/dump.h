/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * dump.h - rdsdump's decoded records: what the engine (engine.c) makes of a
 * capture and what every renderer (render.c: one line, -v, -vv, -X, JSON,
 * -z) prints. Decode once, render many: a renderer never looks at packet
 * bytes except through a record, and every name it prints comes from here
 * or from libwire's tables, so the text labels and the JSON keys are the
 * same words.
 *
 * Records are handed to a sink callback and are valid only during the call:
 * their pointers lead into the engine's buffers and the capture's packet.
 */
#ifndef DUMP_DUMP_H
#define DUMP_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <wire/wire.h>

#include "ipfrag.h"

#ifdef __cplusplus
extern "C" {
#endif

enum dump_xport {
	DUMP_XP_TCP = 0,        /* RDS/TCP */
	DUMP_XP_IB = 1,         /* RDS over RoCEv2 (RC SENDs) and the IB CM */
	DUMP_XP_NL = 2,         /* RDMA netlink local service (nlmon) */
};

/* One end of a flow. */
/* Native InfiniBand without a GRH has no addresses but LIDs (the value of
 * AF_IB, the kernel's family for native IB addressing). */
#define DUMP_FAM_LID 27

struct dump_ep {
	uint8_t family;         /* 4, 6, DUMP_FAM_LID; 0 for netlink */
	uint8_t addr[16];       /* IPv4 in the first 4 bytes; a LID in the first 2 */
	uint16_t port;          /* TCP port; UDP port for RoCE; 0 for netlink */
};

enum dump_rec_type {
	DUMP_REC_MSG = 1,       /* an RDS message */
	DUMP_REC_NOTE,          /* something about the carrier (see enum dump_note) */
	DUMP_REC_CM,            /* an IB CM message (REQ, REP, ...) */
	DUMP_REC_NL,            /* an RDMA netlink local-service message */
	DUMP_REC_BAD,           /* a packet that could not be decoded */
	DUMP_REC_RDMA,          /* IB: an RDMA or atomic operation on an RDS QP */
};

/* What an RDMA record is (the RC opcodes of the operation's packets). */
enum dump_rdma_op {
	DUMP_RDMA_WRITE = 1,    /* RDMA WRITE FIRST ... LAST, or ONLY */
	DUMP_RDMA_READ,         /* RDMA READ REQUEST */
	DUMP_RDMA_READ_RESP,    /* RDMA READ RESPONSE FIRST ... LAST, or ONLY */
	DUMP_RDMA_CSWP,         /* COMPARE SWAP */
	DUMP_RDMA_FADD,         /* FETCH ADD */
};
/* Its names in text and JSON ("write", "read", ...). */
extern const struct wire_tok dump_rdma_op_toks[];

/* An RDMA operation, emitted at its last packet (a READ REQUEST and an
 * atomic are one packet). rkey, va and len are its RETH's (AtomicETH's
 * for atomics, len 8), for a READ RESPONSE the bytes it carried. The RDS
 * message that carried a request comes after it on the same QP with an
 * RDMA extension header of the same r_key (net/rds/ib_send.c: the RDMA
 * work request is posted before the SEND): that message's dump_msg
 * rdma_ops / rdma_bytes count it. */
struct dump_rdma_rec {
	enum dump_rdma_op op;
	uint32_t rkey;
	uint64_t va;
	uint64_t len;           /* requested (RETH DMA length) */
	uint64_t bytes;         /* payload bytes seen in its packets */
	uint32_t packets;
	uint32_t psn;           /* of its first packet */
	uint64_t swap_add, compare;     /* atomics */
};

/* What a NOTE record reports. len/aux meanings in the comments. */
enum dump_note {
	DUMP_NOTE_SYN = 1,      /* TCP connection opened (SYN seen) */
	DUMP_NOTE_MIDSTREAM,    /* capture starts inside a connection: resynchronising */
	DUMP_NOTE_FIN,          /* sender closed its direction */
	DUMP_NOTE_RST,          /* reset */
	DUMP_NOTE_GAP,          /* len stream bytes never captured */
	DUMP_NOTE_TRUNC,        /* len stream bytes cut off by the snap length */
	DUMP_NOTE_RESYNC,       /* len bytes skipped to find a plausible header */
	DUMP_NOTE_RETRANS,      /* len bytes retransmitted (TCP level) */
	DUMP_NOTE_CONFLICT,     /* len retransmitted bytes differ from the first copy */
	DUMP_NOTE_AFTER_FIN,    /* len bytes after the FIN */
	DUMP_NOTE_IGNORED,      /* segment implausibly far ahead; aux = its seq */
	DUMP_NOTE_REOPEN,       /* SYN with a new ISN: a new connection, same ports */
	DUMP_NOTE_PARTIAL,      /* a message cut short at the end of the stream:
				 * len bytes of it seen, aux = bytes it claimed */
	DUMP_NOTE_DESYNC,       /* a header claims len bytes, above the limit:
				 * not followed, resynchronising */
	DUMP_NOTE_PSN_GAP,      /* IB: len packets missing before PSN aux */
	DUMP_NOTE_PSN_DUP,      /* IB: packet with PSN aux seen before (retransmission) */
	DUMP_NOTE_FRAG_ERR,     /* IB: fragments that do not reassemble (rules say why) */
	DUMP_NOTE_PATH_REFUSED, /* TCP: no free path slot; a 6.x receiver resets it */
	DUMP_NOTE_LARGER,       /* TCP: opened by the larger address; the kernel
				 * never uses such a connection */
	DUMP_NOTE__COUNT
};

/* What a kernel receiver does with a message's sequence number
 * (rds_recv_incoming, per path: drop only if RETRANSMITTED and below the
 * next expected; otherwise accept and expect seq + 1). */
enum dump_seq {
	DUMP_SEQ_NONE = 0,      /* not sequenced: congestion map, IB ack */
	DUMP_SEQ_FIRST,         /* first sequenced message seen on this path */
	DUMP_SEQ_NEXT,          /* the next one, as expected */
	DUMP_SEQ_SKIP,          /* ahead of the next expected: some never seen
				 * (lost in the capture, or cancelled) */
	DUMP_SEQ_DUP,           /* RETRANSMITTED and below: a kernel drops it */
	DUMP_SEQ_BACK,          /* below, not RETRANSMITTED: a kernel accepts it
				 * and its counter moves back (peer restarted) */
};

struct dump_msg {
	struct wire_hdr hdr;
	enum wire_kind kind;
	struct wire_exts exts;  /* as a receiver of the chosen generation parses them */
	const uint8_t *payload; /* captured prefix of the payload */
	uint32_t caplen;        /* bytes at payload (<= hdr.len) */
	bool incomplete;        /* payload bytes lost to the snap length or a gap */
	uint32_t frags;         /* IB: SENDs it arrived in; TCP: 0 */
	uint32_t segs;          /* TCP: segments (packets) that carried it */

	enum dump_seq seq;
	uint64_t seq_expected;  /* next expected before this one (SKIP/DUP/BACK) */
	bool again;             /* a RETRANSMITTED copy of a message this receiver
				 * already accepted, and accepts again: delivered
				 * twice (6.x after a reconnect maps paths by
				 * arrival, so the resend meets another path's
				 * counter) */

	/* CONG: the sender's map before and after (cong_prev NULL for the
	 * first map of this direction); NULL when the payload is not a map */
	const struct wire_cong_map *cong_prev;
	const struct wire_cong_map *cong_cur;
	uint32_t cong_count;    /* ports congested in cong_cur */

	/* probes: the connection's path count after this message (0 unknown) */
	uint16_t npaths;
	bool gen_changed;       /* GEN_NUM differs from the one seen before: a
				 * kernel resets sequence state */
	uint32_t gen_prev;

	/* IB: every packet's ICRC verified (false if any could not be checked) */
	bool icrc_ok;

	/* IB: RDMA operations seen on this QP since the message before, whose
	 * r_key is the one in this message's RDMA extension header, and their
	 * requested bytes; rdma_unmatched: those with another r_key */
	uint32_t rdma_ops;
	uint64_t rdma_bytes;
	uint32_t rdma_unmatched;
	/* the frames (dump_rec.frame) of those rdma_ops records, in order;
	 * not rendered (the Wireshark plugin links packets by them) */
	const uint64_t *rdma_frames;
};

struct dump_note_rec {
	enum dump_note what;
	uint64_t len;
	uint64_t aux;
};

struct dump_cm_rec {
	const struct wire_ibcm *cm;
	const struct wire_ibpd *pd;     /* RDS private data, NULL if absent/short */
	uint16_t version;               /* REQ: what the passive side would choose
					 * (wire_ib_negotiate); REP: what the active
					 * side adopts (wire_ib_adopt); 0 reject/none */
};

struct dump_rec {
	enum dump_rec_type type;
	uint64_t frame;         /* 1-based number of the packet that completed it */
	int64_t ts_sec;         /* capture time of that packet */
	uint32_t ts_nsec;
	enum dump_xport xp;
	struct dump_ep src, dst;
	uint32_t qpn;           /* IB: destination QP of the SENDs */
	int conn;               /* RDS connection id (see dump_eng_conn), -1 none */
	int path;               /* path index, -1 unknown */
	int dir;                /* 0: from the smaller address, 1: from the larger */
	uint64_t offset;        /* TCP: stream offset of the header / event */

	union {
		struct dump_msg msg;            /* MSG */
		struct dump_note_rec note;      /* NOTE */
		struct dump_cm_rec cm;          /* CM */
		struct dump_rdma_rec rdma;      /* RDMA */
		const struct wire_nl_ls *nl;    /* NL */
		struct {
			int err;                /* WIRE_ERR_* */
			const char *layer;      /* "link", "ip", "tcp", "roce", "ibcm", "netlink" */
		} bad;                          /* BAD */
	} u;

	struct wire_rules rules;        /* every rule this record violates */

	/* the packet that completed the record, from its link-layer header */
	const uint8_t *pkt;
	size_t pkt_caplen;
	size_t pkt_len;
};

/* Counters for -z, per path and direction. */
struct dump_pstats {
	uint64_t msgs;
	uint64_t bytes;         /* payload bytes (h_len) */
	uint64_t retransmitted; /* messages with RETRANSMITTED */
	uint64_t dups;          /* DUMP_SEQ_DUP */
	uint64_t skips;         /* DUMP_SEQ_SKIP events */
	uint64_t skipped;       /* sequence numbers never seen */
	uint64_t backs;         /* DUMP_SEQ_BACK */
	uint64_t again;         /* delivered twice (dump_msg.again) */
	uint64_t cong_updates;
	uint64_t rule_msgs;     /* messages with at least one rule */
	uint64_t gaps;          /* TCP GAP / IB PSN_GAP notes */
	uint64_t gap_bytes;     /* TCP bytes, IB packets */
	uint64_t resyncs;
	uint64_t conns;         /* TCP connections (or QPs) that carried this path */
	uint64_t rdma_ops;      /* IB: RDMA and atomic operations sent this way
				 * (requests; a READ's data flows back) */
	uint64_t rdma_bytes;    /* IB: RDMA payload bytes that flowed this way
				 * (WRITE data, READ RESPONSE data) */
};

/*
 * The -z columns of a path and direction (struct dump_pstats), in table
 * order, conns last. dump_pstats_col() - the name of column |i| (its JSON
 * key and text heading); NULL past the last. dump_pstats_values() - the
 * columns of |p|.
 */
#define DUMP_PSTATS_COLS 16
const char *dump_pstats_col(size_t i);
void dump_pstats_values(const struct dump_pstats *p, uint64_t v[DUMP_PSTATS_COLS]);

/* One RDS connection: an address pair on one transport. */
struct dump_conn {
	int id;
	enum dump_xport xp;
	struct dump_ep a, b;    /* a < b (rds_addr_cmp order); ports 0 */
	uint16_t npaths;        /* negotiated (min of both sides' NPATHS), 0 unknown */
	uint16_t adv_npaths[2]; /* NPATHS each side advertised, 0 none seen */
	bool sport_idx[2];      /* each side's probes carried SPORT_IDX */
	uint32_t gen[2];        /* last GEN_NUM seen from each side, 0 none */
	uint32_t gen_changes[2];
	struct dump_pstats st[WIRE_MAX_PATHS][2];  /* [path][dir] */
	uint64_t rule_counts[WIRE_RULE__COUNT];    /* rule -> messages/records */
};

/* ------------------------------------------------------------------------
 * The engine: packets in, records out. Pure (no I/O, no clock); memory is
 * bounded by the configuration (max_mem), never by the capture.
 */

struct dump_eng;

typedef void (*dump_sink_fn)(void *ctx, const struct dump_rec *r);

struct dump_cfg {
	enum wire_kver kv;      /* receiver model for extension headers (default 7) */
	uint32_t max_len;       /* h_len above this: desync, resync (0 = 1 MiB) */
	uint32_t keep;          /* payload bytes kept per message (0 = 8192) */
	size_t tcp_ooo;         /* per TCP direction, see tcpreasm.h (0 = 512 KiB) */
	size_t tcp_history;     /* (0 = 64 KiB) */
	unsigned max_flows;     /* TCP connections and QPs followed at once (0 = 4096);
				 * the least recently active is closed to make room */
	size_t max_mem;         /* bytes the engine may allocate in all (0 =
				 * DUMP_MAX_MEM_DEFAULT); the least recently
				 * active flows are closed early to stay under */
	/* The capture may hide some of a peer pair's connections (a filter
	 * expression chose what was read): a path is then named only when
	 * the capture proves it (the connecting side's SPORT_IDX and the
	 * path count), never inferred from the order connections arrived,
	 * since an unseen earlier connection would shift every slot. */
	bool partial_view;
	uint16_t tcp_ports[16]; /* RDS/TCP ports (none given: 16385) */
	unsigned ntcp_ports;
	dump_sink_fn sink;
	void *ctx;
};

/* Without a budget, 4096 flows with both directions at their largest
 * (ring, resync window, message buffer: about 1.8 MiB each) would take
 * 14 GiB. 1 GiB is what a laptop can spare beside everything else, holds
 * several hundred flows at their largest and many thousands of ordinary
 * ones, which keep a few KiB. */
#define DUMP_MAX_MEM_DEFAULT ((size_t)1 << 30)
/* Smallest budget: room for the packet at hand (a ring and a resync
 * window at their largest) and some flows. */
#define DUMP_MAX_MEM_MIN ((size_t)16 << 20)

/* What the engine gave up to stay within max_flows and max_mem, or for
 * want of memory. All zero: the output is complete. */
struct dump_eng_drops {
	uint64_t flows_max;     /* flows closed before their end: max_flows */
	uint64_t flows_mem;     /* flows closed before their end: max_mem */
	uint64_t held_bytes;    /* stream bytes waiting behind a hole when their
				 * flow was closed early (out at once, the hole
				 * declared a gap) */
	uint64_t partial_bytes; /* bytes of messages in progress cut by those
				 * closes */
	uint64_t conns_mem;     /* idle connections whose receiver state
				 * (congestion maps, accepted messages) was
				 * dropped for max_mem */
	uint64_t nomem;         /* allocations that failed (a flow, a buffer) */
	uint64_t nomem_bytes;   /* stream bytes not kept for want of memory */
	size_t mem_max;         /* high-water mark of dump_eng_mem() */
	struct dump_ipfrag_stats ipfrag;        /* IP reassembly (ipfrag.h) */
};

/* Capture metadata of one packet. */
struct dump_pkthdr {
	uint64_t frame;         /* 1-based */
	int64_t ts_sec;
	uint32_t ts_nsec;
	size_t caplen;
	size_t len;
	int linktype;           /* LINKTYPE_* (enum wire_linktype) */
};

/* dump_eng_new() - Return: 0, -ENOMEM, -EINVAL (no sink, bad kver). */
int dump_eng_new(struct dump_eng **out, const struct dump_cfg *cfg);
void dump_eng_free(struct dump_eng *e);
/*
 * dump_eng_packet() - one captured packet; records go to the sink before
 * it returns.
 * Return: 1 if the packet is RDS traffic (RDS/TCP port, RoCEv2, an RDMA
 * netlink LS message) - what -w keeps; 0 if it is something else.
 */
int dump_eng_packet(struct dump_eng *e, const struct dump_pkthdr *ph, const uint8_t *buf);
/* dump_eng_finish() - end of capture: every flow is closed and whatever is
 * still held comes out (GAP, PARTIAL, ...). No packets after this. */
void dump_eng_finish(struct dump_eng *e);
/* dump_eng_conn_count(), dump_eng_conn() - connections in order of first
 * appearance, for -z. */
size_t dump_eng_conn_count(const struct dump_eng *e);
const struct dump_conn *dump_eng_conn(const struct dump_eng *e, size_t i);
/* dump_eng_mem() - bytes allocated now (for the memory bench). */
size_t dump_eng_mem(const struct dump_eng *e);
/* dump_eng_drops() - what was given up so far (see struct dump_eng_drops). */
const struct dump_eng_drops *dump_eng_drops(const struct dump_eng *e);

/* Names used in text and JSON ("gap", "midstream", "dup", ...): lookups in
 * the tables, "?" for a value not in them. */
extern const struct wire_tok dump_note_toks[];
extern const struct wire_tok dump_seq_toks[];
extern const struct wire_tok dump_xport_toks[];
const char *dump_note_name(enum dump_note n);
const char *dump_seq_name(enum dump_seq s);
const char *dump_xport_name(enum dump_xport x);

#ifdef __cplusplus
}
#endif

#endif /* DUMP_DUMP_H */
