/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * craft.h - rds-conform craft: build any RDS/TCP message, right or wrong
 * on purpose, and send it, dump it in hex or write it into a capture.
 *
 * The builder (craft_msg.c, in conform_core) is pure: a description of the
 * message (struct craft_msg, filled from the options) becomes bytes, and
 * the option values are parsed by functions that only look at strings.
 * craft.c does the I/O: options, files, sockets, capture, printing.
 */
#ifndef CONFORM_CRAFT_H
#define CONFORM_CRAFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <rds/rdsu.h>
#include <wire/wire.h>

#include "out.h"

/* Shortcuts that fill the header as a kernel does (wire_build_*). */
enum craft_kind {
	CRAFT_DATA = 0,     /* sport 4000, dport 4001 unless given */
	CRAFT_PING,         /* sport 4000, dport 0 */
	CRAFT_PONG,         /* sport 0, dport 4000 */
	CRAFT_PROBE_PING,   /* sport 1, dport 0, NPATHS/GEN_NUM(/SPORT_IDX) */
	CRAFT_PROBE_PONG,   /* sport 0, dport 1, likewise */
	CRAFT_CONG,         /* seq 0, flags 0x01, 8192-byte map */
};

enum craft_csum {
	CRAFT_CSUM_ZERO = 0, /* 0: absent, as every TCP sender leaves it */
	CRAFT_CSUM_AUTO,     /* the valid checksum (wire_hdr_csum_set) */
	CRAFT_CSUM_BAD,      /* the valid one plus one (plus two where that
			      * would be 0, which means absent) */
	CRAFT_CSUM_VALUE,    /* csum_value as given */
};

/* Which fields the options gave; the others come from the kind. */
#define CRAFT_SET_SEQ 0x001
#define CRAFT_SET_ACK 0x002
#define CRAFT_SET_LEN 0x004
#define CRAFT_SET_SPORT 0x008
#define CRAFT_SET_DPORT 0x010
#define CRAFT_SET_FLAGS 0x020
#define CRAFT_SET_CREDIT 0x040
#define CRAFT_SET_PAD 0x080
#define CRAFT_SET_STEP 0x100

/* One extension header as the bytes a 7.x sender writes: type, then the
 * payload (known types encoded by wire_ext_add). */
struct craft_ext {
	uint8_t b[WIRE_EXT_SPACE];
	uint8_t n;               /* bytes in b, 1..16 */
	bool known;              /* placed by wire_ext_add when it fits */
	struct wire_ext e;       /* for wire_ext_add */
};

#define CRAFT_MAX_EXTS 16
#define CRAFT_DEFAULT_GEN 0x52445331u   /* "RDS1": probes without --ext */

struct craft_msg {
	enum craft_kind kind;
	enum wire_kver kv;       /* probe contents: 6.x NPATHS only, 7.x all */
	unsigned set;            /* CRAFT_SET_* */
	uint64_t seq, ack, seq_step;
	uint32_t len;
	uint16_t sport, dport;
	uint8_t flags, credit;
	uint8_t pad[4];
	enum craft_csum csum;
	uint16_t csum_value;
	struct craft_ext ext[CRAFT_MAX_EXTS];
	unsigned n_ext;
	bool has_ext_raw;
	uint8_t ext_raw[WIRE_EXT_SPACE];
	struct wire_cong_map cong;  /* CRAFT_CONG without a payload option */
	bool has_payload;
	const uint8_t *payload;     /* the caller's */
	size_t payload_len;
	bool has_truncate;
	size_t truncate;            /* bytes of each message sent */
	bool preface;               /* sequence numbers start after the preface's */
};

/* craft_msg_init() - a data message with every default. */
void craft_msg_init(struct craft_msg *m);

/*
 * craft_hdr() - the header of repetition |i| (0-based): the kind's
 * fields, then every field given, seq advanced by i * seq_step, the
 * extension area, and the checksum last.
 * Return: extension bytes that did not fit into the 16 (cut off).
 */
size_t craft_hdr(const struct craft_msg *m, uint64_t i, struct wire_hdr *h);

/* craft_payload() - the payload and its length (the map for a congestion
 * map without a payload option). */
const uint8_t *craft_payload(const struct craft_msg *m, size_t *len);

/* craft_full_size() - header and payload; craft_size() - what is sent of
 * it (at most --truncate bytes). */
size_t craft_full_size(const struct craft_msg *m);
size_t craft_size(const struct craft_msg *m);

/*
 * craft_build() - repetition |i| into |buf|, cut to craft_size().
 * Return: bytes written; -1 if |cap| is too small.
 */
ssize_t craft_build(const struct craft_msg *m, uint64_t i, uint8_t *buf, size_t cap);

#define CRAFT_PREFACE_LEN (2 * WIRE_HDR_LEN + WIRE_CONG_MAP_BYTES)

/*
 * craft_preface() - what a 7.x kernel sends first on a new connection, so
 * that a peer takes what follows as from a normal sender: its congestion
 * map (no port congested) and a probe ping (seq 1, NPATHS 8, GEN_NUM
 * |gen|, SPORT_IDX). Return: CRAFT_PREFACE_LEN; -1 if |cap| is too small.
 */
ssize_t craft_preface(uint32_t gen, uint8_t *buf, size_t cap);

/*
 * craft_describe() - one line for a header: "KIND SPORT > DPORT seq N len
 * N [FLAGS] [ack N] [credit N] [csum 0xNNNN[ bad]] [EXTENSIONS]", kind as
 * wire_classify() on TCP, extensions as a 7.x receiver parses them.
 * Return: the length the full line needs (snprintf style).
 */
size_t craft_describe(const struct wire_hdr *h, char *buf, size_t cap);

/*
 * Option values. Each returns 0, or -1 with a sentence in |err| saying
 * what is wrong with |s|.
 */
int craft_parse_kind(const char *s, enum craft_kind *k, char *err, size_t cap);
/* "cong,ackreq,retrans,hbping,hbpong,ext", kernel names (CONG_BITMAP, any
 * case) and numbers, joined by ',' or '|'. */
int craft_parse_flags(const char *s, uint8_t *out, char *err, size_t cap);
/* auto | zero | bad | a number 0..0xffff */
int craft_parse_csum(const char *s, enum craft_csum *mode, uint16_t *value, char *err,
		     size_t cap);
/* Hex digits, optionally "0x"-prefixed and separated by spaces, ':', '-'
 * or '.'; *n bytes, at most |max|. */
int craft_parse_hex(const char *s, uint8_t *out, size_t max, size_t *n, char *err, size_t cap);
/*
 * TYPE=VALUE: npaths=N, gen=N, sport-idx[=N], version=N, rdma=KEY,
 * rdma-dest=KEY:OFF, rdma-bytes=N[:FLAGS] (FLAGS a number or wr, rd,
 * wr|rd), cap-bits=N, or a type number with optional hex payload (9=0102).
 */
int craft_parse_ext(const char *s, struct craft_ext *e, char *err, size_t cap);
/* "4000,5000-5010": ports set in |m| (not cleared first). */
int craft_parse_ports(const char *s, struct wire_cong_map *m, char *err, size_t cap);
/* An unsigned number (C syntax: decimal, 0x hex, 0 octal) up to |max|. */
int craft_parse_num(const char *s, uint64_t max, uint64_t *out, char *err, size_t cap);
/* ADDR or ADDR:PORT, IPv6 as ADDR or [ADDR]:PORT; *port left alone when
 * none is given. */
int craft_parse_addr(const char *s, struct rdsu_addr *a, uint16_t *port, char *err, size_t cap);

/*
 * RDS over RoCEv2, for captures and for the live IB node: the RC QP a
 * crafted frame travels on, as a capture shows it. The defaults
 * (craft_qp_init) are what rxe would use over a 1500-byte Ethernet: path
 * MTU 1024, UDP source port from the QP number.
 */
struct craft_qp {
	struct rdsu_addr src, dst;  /* v4-mapped for IPv4 */
	uint16_t udp_sport;
	uint32_t dqpn;              /* the receiver's QP */
	uint32_t psn;               /* of the next packet; advanced per packet */
	uint32_t pmtu;              /* 256..4096 */
};

/* craft_qp_init() - |src| to |dst| on QP |dqpn|, PSN 0, path MTU 1024. */
void craft_qp_init(struct craft_qp *qp, const struct rdsu_addr *src,
		   const struct rdsu_addr *dst, uint32_t dqpn);

/* Takes one packet (IP header to ICRC); returns 0, or non-zero to stop. */
typedef int (*craft_pkt_fn)(void *ctx, const uint8_t *pkt, size_t len);

/*
 * craft_roce_packets() - |frame| (|len| bytes: an RDS frame, right or
 * wrong, as one RC SEND) as the RoCEv2 packets that carry it on |qp|:
 * SEND_ONLY, or SEND_FIRST, MIDDLE..., LAST at the path MTU, the last
 * padded to a word and asking for an ACK, each with a valid ICRC, handed
 * to |fn| in order. qp->psn advances by the packets made.
 * Return: packets made; -1 if |src| and |dst| are not of one family or
 * the frame is longer than a SEND may be (2^31 bytes); |fn|'s non-zero
 * value if it stopped.
 */
int craft_roce_packets(struct craft_qp *qp, const uint8_t *frame, size_t len, craft_pkt_fn fn,
		       void *ctx);

/* craft_main() - the craft subcommand; argv[0] is "craft". Return: the
 * exit status (0; 1 the connection failed; 2 bad options). */
int craft_main(int argc, char **argv);

/*
 * Over IB (craft_ib.c, --transport ib): an RC connection through the
 * conformance suite's IB node, 3.1 private data from |from| to |to|.
 * Each message goes as a kernel sends it, a SEND per 4096 payload bytes
 * each led by the header as built (so a wrong h_len is sent as it is);
 * a message cut below 48 bytes (--truncate) is one short SEND. What the
 * peer sends back is printed as whole messages, ACK-only frames counted.
 */
struct craft_ib;

/* craft_ib_open() - Return: 0 and *out; negative errno with |why|. */
int craft_ib_open(const struct rdsu_addr *to, uint16_t port, const struct rdsu_addr *from,
		  struct craft_ib **out, char *why, size_t cap);
/* craft_ib_send() - one message's bytes |b| (|n| of them). Return: 0;
 * negative errno with the reason on stderr. */
int craft_ib_send(struct craft_ib *x, const uint8_t *b, size_t n);
/* craft_ib_receive() - print what the peer sends for |ms|, on |o|. */
void craft_ib_receive(struct craft_ib *x, struct out *o, long ms);
void craft_ib_close(struct craft_ib *x);

#endif /* CONFORM_CRAFT_H */
