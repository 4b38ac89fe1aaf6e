/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * wire.h - libwire, the RDS wire-format codec. The one public header.
 *
 * libwire is pure: no I/O, no clock, no errno, no printing, and no
 * allocation. Every decoder takes (buf, len), is safe on any input, and
 * reads bytes only through one bounds-checked cursor. Decoded structs are
 * lossless (reserved and padding bytes are kept) so encode(decode(x)) == x.
 *
 * Normative reference is the Linux kernel (net/rds, drivers/infiniband,
 * include/uapi/rdma); where the RDS 3.1 wire spec disagrees the kernel wins
 * and docs/spec-errata.md records the difference.
 *
 * Return convention: >= 0 is success (often bytes consumed or written),
 * < 0 is a WIRE_ERR_* code.
 */
#ifndef WIRE_WIRE_H
#define WIRE_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(WIRE_BUILDING) && defined(__GNUC__)
#define WIRE_API __attribute__((visibility("default")))
#else
#define WIRE_API
#endif

/* ------------------------------------------------------------------------
 * Errors
 */

enum wire_err {
	WIRE_OK = 0,
	WIRE_ERR_TRUNC = -101,     /* need more bytes / capture cut short */
	WIRE_ERR_MALFORMED = -102, /* bytes present but violate the format */
	WIRE_ERR_UNSUPP = -103,    /* well formed, but not something we speak */
	WIRE_ERR_NOSPACE = -104,   /* encoder: output buffer too small */
	WIRE_ERR_INVAL = -105,     /* caller misuse (NULL, bad enum value) */
	WIRE_ERR_TOOBIG = -106,    /* a length field exceeds the set limit */
};

/* wire_strerror() - static description of a WIRE_ERR_* code (or "ok"). */
WIRE_API const char *wire_strerror(int err);

/* ------------------------------------------------------------------------
 * Value-name tables
 *
 * One table per enum, each an array of {value, name} ended by an entry whose
 * name is NULL. The wire_*_name() functions below are lookups in these
 * tables; the tables are exported so that every tool (and a dissector
 * generated from rdsdump's field list) names a value the same way.
 */

struct wire_tok {
	uint32_t value;
	const char *name;
};

/* wire_tok_name() - name of |v| in |t|; NULL if |v| is not in it. */
WIRE_API const char *wire_tok_name(const struct wire_tok *t, uint32_t v);
/* wire_tok_str() - name of |v| in |t|, or |dflt| if |v| is not in it. */
WIRE_API const char *wire_tok_str(const struct wire_tok *t, uint32_t v, const char *dflt);
/*
 * wire_tok_value() - inverse: the value named |name| (exact, case-sensitive)
 * in *out. Return: 0, or WIRE_ERR_INVAL if no entry has that name.
 */
WIRE_API int wire_tok_value(const struct wire_tok *t, const char *name, uint32_t *out);

/*
 * WIRE_TOK_NAMER() - define `const char *fn(type v)`: the name of |v| in
 * |toks|, or "?" if |v| is not in it. The one name function every
 * value-to-name table has, written once.
 */
#define WIRE_TOK_NAMER(fn, type, toks)                                          \
	const char *fn(type v)                                                  \
	{                                                                       \
		return wire_tok_str(toks, (uint32_t)v, "?");                    \
	}

/* ------------------------------------------------------------------------
 * Validity rules
 *
 * Syntax errors are WIRE_ERR_* codes; semantic findings are rules. Every
 * rule has a stable dotted name (used in rdsdump output, rds-conform
 * verdicts and tests), a severity and a sentence. Names never change and
 * enum values are append-only.
 */

enum wire_severity {
	WIRE_SEV_INFO = 0,  /* legal, but worth knowing (kernel-version quirk) */
	WIRE_SEV_WARN = 1,  /* a kernel tolerates it; a careful sender avoids it */
	WIRE_SEV_ERROR = 2, /* a kernel receiver drops it or resets the connection */
};

enum wire_rule {
	WIRE_RULE_NONE = 0,
	/* RDS header */
	WIRE_RULE_HDR_LEN_MAX,          /* hdr.len.max */
	WIRE_RULE_HDR_CSUM_BAD,         /* hdr.csum.bad */
	WIRE_RULE_HDR_CSUM_ON_TCP,      /* hdr.csum.tcp */
	WIRE_RULE_HDR_CSUM_MISSING_IB,  /* hdr.csum.missing */
	WIRE_RULE_HDR_ACK_ON_TCP,       /* hdr.ack.tcp */
	WIRE_RULE_HDR_CREDIT_ON_TCP,    /* hdr.credit.tcp */
	WIRE_RULE_HDR_ACKREQ_ON_TCP,    /* hdr.flags.ackreq_tcp */
	WIRE_RULE_HDR_PAD_NONZERO,      /* hdr.pad.nonzero */
	WIRE_RULE_HDR_FLAGS_UNKNOWN,    /* hdr.flags.unknown */
	WIRE_RULE_HDR_FLAGS_HEARTBEAT,  /* hdr.flags.heartbeat */
	WIRE_RULE_HDR_EXTFLAG_ON_TCP,   /* hdr.flags.extension_tcp */
	WIRE_RULE_HDR_PROBE_PORT_DATA,  /* hdr.port.probe */
	/* extension headers */
	WIRE_RULE_EXT_OVERRUN,          /* ext.overrun */
	WIRE_RULE_EXT_UNKNOWN,          /* ext.unknown */
	WIRE_RULE_EXT_TYPE_HIGH,        /* ext.type_high */
	WIRE_RULE_EXT_TRAILING,         /* ext.trailing */
	WIRE_RULE_EXT_MULTIPLE,         /* ext.multiple */
	WIRE_RULE_EXT_6X_MISPARSE,      /* ext.misparse_6x */
	WIRE_RULE_EXT_VERSION_SENT,     /* ext.version */
	WIRE_RULE_EXT_DUPLICATE,        /* ext.duplicate */
	WIRE_RULE_EXT_NONMAINLINE,      /* ext.nonmainline */
	WIRE_RULE_EXT_ON_DATA_IGNORED,  /* ext.ignored */
	/* congestion maps */
	WIRE_RULE_CONG_LEN,             /* cong.len */
	WIRE_RULE_CONG_SEQ,             /* cong.seq */
	WIRE_RULE_CONG_PORTS,           /* cong.ports */
	WIRE_RULE_CONG_FLAGS_MIXED,     /* cong.flags_mixed */
	WIRE_RULE_CONG_EXTHDR,          /* cong.exthdr */
	/* message kinds */
	WIRE_RULE_PING_PAYLOAD,         /* ping.payload */
	WIRE_RULE_PING_FROM_PORT0,      /* ping.sport0 */
	WIRE_RULE_PONG_PAYLOAD,         /* pong.payload */
	WIRE_RULE_PROBE_NO_NPATHS,      /* probe.npaths.missing */
	WIRE_RULE_PROBE_NPATHS_RANGE,   /* probe.npaths.range */
	WIRE_RULE_PROBE_GEN_ZERO,       /* probe.gen_num.zero */
	WIRE_RULE_ACK_ONLY_FIELDS,      /* ack.fields */
	WIRE_RULE_SEQ_ZERO,             /* seq.zero */
	/* IB fragments and private data */
	WIRE_RULE_FRAG_MISMATCH,        /* ib.frag.mismatch */
	WIRE_RULE_FRAG_SHORT,           /* ib.frag.short */
	WIRE_RULE_FRAG_LONG,            /* ib.frag.long */
	WIRE_RULE_FRAG_FIRST_TOO_SMALL, /* ib.frag.runt */
	WIRE_RULE_IBPD_SHORT,           /* ib.pd.short */
	WIRE_RULE_IBPD_VERSION,         /* ib.pd.version */
	WIRE_RULE_IBPD_RESERVED,        /* ib.pd.reserved */
	WIRE_RULE_IBPD_CREDIT,          /* ib.pd.credit */
	WIRE_RULE_IBPD_MASK,            /* ib.pd.mask */
	/* RoCEv2 / IB transport and CM */
	WIRE_RULE_ROCE_ICRC,            /* roce.icrc */
	WIRE_RULE_ROCE_TVER,            /* roce.bth.tver */
	WIRE_RULE_ROCE_OPCODE,          /* roce.bth.opcode */
	WIRE_RULE_ROCE_PAD,             /* roce.bth.pad */
	WIRE_RULE_ROCE_UDP_LEN,         /* roce.udp.len */
	WIRE_RULE_IBCM_PRIVATE_LEN,     /* ibcm.private.len */
	WIRE_RULE_IBCM_SERVICE_ID,      /* ibcm.service_id */
	WIRE_RULE_IBCM_CMA_VERSION,     /* ibcm.cma.version */
	/* RDMA netlink local service */
	WIRE_RULE_NL_LEN,               /* nl.len */
	WIRE_RULE_NL_ATTR_POLICY,       /* nl.attr.policy */
	WIRE_RULE_NL_ATTR_UNKNOWN,      /* nl.attr.unknown */
	WIRE_RULE_NL_ATTR_MANDATORY,    /* nl.attr.mandatory */
	WIRE_RULE_NL_ATTR_DUPLICATE,    /* nl.attr.duplicate */
	WIRE_RULE_NL_CLIENT,            /* nl.client */
	WIRE_RULE_NL_OP,                /* nl.op */
	WIRE_RULE_NL_PATH_COUNT,        /* nl.ls.paths */
	WIRE_RULE_NL_MISSING,           /* nl.ls.missing */
	/* native InfiniBand link */
	WIRE_RULE_IB_ICRC,              /* ib.icrc */
	WIRE_RULE_IB_VCRC,              /* ib.vcrc */
	WIRE_RULE_IB_LEN,               /* ib.lrh.len */
	WIRE_RULE_IB_LVER,              /* ib.lrh.lver */
	WIRE_RULE__COUNT
};

struct wire_rule_info {
	enum wire_rule id;
	const char *name;          /* stable dotted id, e.g. "hdr.len.max" */
	enum wire_severity sev;
	const char *ref;           /* kernel symbol or spec section it rests on */
	const char *text;          /* one sentence */
};

/* A set of rules found on one decoded object. A bitset, so it never overflows
 * and needs no allocation. */
struct wire_rules {
	uint64_t bits[2];
};

_Static_assert(WIRE_RULE__COUNT <= 128, "struct wire_rules holds 128 rules");

/* wire_rule_info() - table entry for |r|, or NULL if |r| is out of range. */
WIRE_API const struct wire_rule_info *wire_rule_info(enum wire_rule r);
/* wire_rule_name() - stable name of |r|, "?" if out of range. */
WIRE_API const char *wire_rule_name(enum wire_rule r);
/* wire_rule_by_name() - inverse of wire_rule_name(); WIRE_RULE_NONE if unknown. */
WIRE_API enum wire_rule wire_rule_by_name(const char *name);

WIRE_API void wire_rules_clear(struct wire_rules *s);
WIRE_API void wire_rules_add(struct wire_rules *s, enum wire_rule r);
WIRE_API bool wire_rules_has(const struct wire_rules *s, enum wire_rule r);
WIRE_API bool wire_rules_empty(const struct wire_rules *s);
WIRE_API size_t wire_rules_count(const struct wire_rules *s);
/* wire_rules_merge() - add every rule of |from| to |to|. */
WIRE_API void wire_rules_merge(struct wire_rules *to, const struct wire_rules *from);
/*
 * wire_rules_next() - iterate a set in enum order. Start with *pos = 0.
 * Return: 1 and *out set, or 0 when no rules remain.
 */
WIRE_API int wire_rules_next(const struct wire_rules *s, unsigned *pos,
			     enum wire_rule *out);
/* wire_rules_worst() - highest severity present; -1 if the set is empty. */
WIRE_API int wire_rules_worst(const struct wire_rules *s);

/* ------------------------------------------------------------------------
 * Constants (kernel names in comments)
 */

#define WIRE_HDR_LEN 48               /* sizeof(struct rds_header) */
#define WIRE_EXT_SPACE 16             /* RDS_HEADER_EXT_SPACE */
#define WIRE_MAX_MSG_LEN (1u << 20)   /* RDS_MAX_MSG_SIZE, sender-enforced */
#define WIRE_TCP_PORT 16385           /* RDS_TCP_PORT */
#define WIRE_IB_PORT_V4 18634         /* RDS_PORT: rdma_cm port for IPv4 */
#define WIRE_IB_PORT_V6 16385         /* RDS_CM_PORT: rdma_cm port for IPv6 */
#define WIRE_PROBE_PORT 1             /* RDS_FLAG_PROBE_PORT */
#define WIRE_MAX_PATHS 8              /* RDS_MPATH_WORKERS */
#define WIRE_FRAG_SIZE 4096           /* RDS_FRAG_SIZE */
#define WIRE_CONG_MAP_BYTES 8192      /* RDS_CONG_MAP_BYTES */
#define WIRE_ROCE_UDP_PORT 4791

/* Which transport a header travelled on: several rules differ. */
enum wire_xport {
	WIRE_XPORT_TCP = 0,
	WIRE_XPORT_IB = 1,
};

/* Which kernel generation's behaviour to model where they differ. */
enum wire_kver {
	WIRE_KVER_6 = 6,  /* 6.1 .. 6.19: one exthdr per header, no RDMA_BYTES/SPORT_IDX */
	WIRE_KVER_7 = 7,  /* 7.0 and later */
	WIRE_KVER_ALL = 99, /* everything known, including non-mainline types */
};

/* ------------------------------------------------------------------------
 * RDS header (net/rds/rds.h struct rds_header)
 *
 *  0       8       16   20 22 24 25 26   30 32               48
 *  +-------+-------+----+--+--+--+--+----+--+----------------+
 *  |  seq  |  ack  |len |sp|dp|fl|cr|pad |ck|    exthdr      |
 *  +-------+-------+----+--+--+--+--+----+--+----------------+
 *  all multi-byte fields big-endian
 */

enum wire_flag {
	WIRE_FLAG_CONG_BITMAP = 0x01,     /* RDS_FLAG_CONG_BITMAP */
	WIRE_FLAG_ACK_REQUIRED = 0x02,    /* RDS_FLAG_ACK_REQUIRED */
	WIRE_FLAG_RETRANSMITTED = 0x04,   /* RDS_FLAG_RETRANSMITTED */
	WIRE_FLAG_HB_PING = 0x08,         /* non-mainline RDS_FLAG_HB_PING */
	WIRE_FLAG_HB_PONG = 0x10,         /* non-mainline RDS_FLAG_HB_PONG */
	WIRE_FLAG_EXTHDR_EXTENSION = 0x20,/* RDS_FLAG_EXTHDR_EXTENSION, 7.x */
};

struct wire_hdr {
	uint64_t seq;
	uint64_t ack;
	uint32_t len;
	uint16_t sport;
	uint16_t dport;
	uint8_t flags;
	uint8_t credit;
	uint8_t pad[4];
	uint16_t csum;
	uint8_t ext[WIRE_EXT_SPACE];
};

/*
 * The header's layout, said once: each field's offset and size in the 48
 * bytes, in wire order, named as net/rds/rds.h names it without "h_".
 * The sizes are those of struct wire_hdr's members, and
 * wire_hdr_decode()/wire_hdr_encode() read and write in this order (a unit
 * test holds the three together); the Wireshark plugin takes its offsets
 * from here.
 */
enum wire_hdr_fid {
	WIRE_HF_SEQ,
	WIRE_HF_ACK,
	WIRE_HF_LEN,
	WIRE_HF_SPORT,
	WIRE_HF_DPORT,
	WIRE_HF_FLAGS,
	WIRE_HF_CREDIT,
	WIRE_HF_PAD,
	WIRE_HF_CSUM,
	WIRE_HF_EXT,
	WIRE_HF_COUNT
};

struct wire_hdr_field {
	const char *name; /* "seq", "ack", "len", "sport", ... "ext" */
	uint8_t off;
	uint8_t len;
};

/* wire_hdr_fields - the layout, indexed by enum wire_hdr_fid. */
WIRE_API extern const struct wire_hdr_field wire_hdr_fields[WIRE_HF_COUNT];
/* wire_hdr_get() - the value of integer field |id| of |h| (0 for the byte
 * fields WIRE_HF_PAD and WIRE_HF_EXT and for an unknown id). */
WIRE_API uint64_t wire_hdr_get(const struct wire_hdr *h, enum wire_hdr_fid id);

/* wire_hex_digit() - the lower-case hex digit of the low 4 bits of |v|:
 * the one hex table of the tree. */
static inline char wire_hex_digit(unsigned v)
{
	return "0123456789abcdef"[v & 15];
}

/* wire_hex_value() - the value of hex digit |c| (either case); -1 when |c|
 * is not one. */
static inline int wire_hex_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* wire_hdr_decode() - Return: WIRE_HDR_LEN, or WIRE_ERR_TRUNC if len < 48. */
WIRE_API ssize_t wire_hdr_decode(struct wire_hdr *h, const uint8_t *buf, size_t len);
/* wire_hdr_encode() - Return: WIRE_HDR_LEN, or WIRE_ERR_NOSPACE if cap < 48. */
WIRE_API ssize_t wire_hdr_encode(const struct wire_hdr *h, uint8_t *buf, size_t cap);

/*
 * wire_csum() - RFC 1071 Internet checksum of |len| bytes: the one's
 * complement of the one's-complement sum of big-endian 16-bit words (an odd
 * trailing byte is padded with zero). Returned in host order.
 */
WIRE_API uint16_t wire_csum(const uint8_t *buf, size_t len);
/* wire_hdr_csum_compute() - the h_csum value for |h| (computed with h_csum = 0,
 * over all 48 bytes, as rds_message_make_checksum). */
WIRE_API uint16_t wire_hdr_csum_compute(const struct wire_hdr *h);
/* wire_hdr_csum_set() - store wire_hdr_csum_compute() in h->csum. */
WIRE_API void wire_hdr_csum_set(struct wire_hdr *h);
/* wire_hdr_csum_ok() - true if h_csum is 0 (absent) or verifies
 * (rds_message_verify_checksum). */
WIRE_API bool wire_hdr_csum_ok(const struct wire_hdr *h);

/* wire_flag_name() - name of a single flag bit ("CONG_BITMAP", ...), NULL if
 * the bit is not known. */
WIRE_API const char *wire_flag_name(uint8_t bit);
/* wire_flag_label() - wire_flag_name(), or "0x40" written into |tmp| for a
 * bit without a name, so that every bit has a printable label. */
WIRE_API const char *wire_flag_label(uint8_t bit, char tmp[static 8]);
/* wire_flag_toks - the flag bits by value (RDS_FLAG_*). */
WIRE_API extern const struct wire_tok wire_flag_toks[];
/*
 * wire_flags_str() - "ACK_REQUIRED|RETRANSMITTED" (unknown bits as "0x40",
 * no flags as "none"), NUL-terminated and truncated to |cap|.
 * Return: the length the full string needs (snprintf style).
 */
WIRE_API size_t wire_flags_str(uint8_t flags, char *buf, size_t cap);

/* Kernel limits a checker works against. */
struct wire_limits {
	uint32_t max_len;  /* h_len above this is WIRE_RULE_HDR_LEN_MAX; 0 = 1 MiB */
};

/*
 * wire_hdr_check() - every header-level rule for |h| seen on |xp|: length
 * limit, checksum, fields TCP never sets, padding, flags, probe port misuse.
 * |lim| may be NULL for the defaults. Adds to |out| (not cleared first).
 * Return: number of rules added.
 */
WIRE_API int wire_hdr_check(const struct wire_hdr *h, enum wire_xport xp,
			    const struct wire_limits *lim, struct wire_rules *out);

/* ------------------------------------------------------------------------
 * Extension headers (net/rds/message.c rds_message_next_extension,
 * rds_message_add_extension; 7.x rds_find_next_ext_space)
 *
 * [type:1][payload: length implied by type] ... [0 = end]
 */

enum wire_ext_type {
	WIRE_EXT_NONE = 0,        /* RDS_EXTHDR_NONE */
	WIRE_EXT_VERSION = 1,     /* be32 version; never sent by a kernel */
	WIRE_EXT_RDMA = 2,        /* be32 rkey */
	WIRE_EXT_RDMA_DEST = 3,   /* be32 rkey, be32 offset */
	WIRE_EXT_RDMA_BYTES = 4,  /* be32 bytes, u8 rflags, u8 pad[3]; 7.x */
	WIRE_EXT_NPATHS = 5,      /* be16 */
	WIRE_EXT_GEN_NUM = 6,     /* be32 */
	WIRE_EXT_CAP_BITS = 7,    /* be32; non-mainline */
	WIRE_EXT_SPORT_IDX = 8,   /* u8 (0); 7.x */
	WIRE_EXT_CSUM = 9,        /* non-mainline; see wire_ext_size() */
	WIRE_EXT_TYPE_MAX = 16,   /* __RDS_EXTHDR_MAX: types >= this end parsing */
};

/* RDMA_BYTES rflags */
#define WIRE_RDMA_WR_BYTES 0x01
#define WIRE_RDMA_RD_BYTES 0x02

/*
 * wire_ext_size() - payload size of |type| as a receiver of generation
 * |kv| knows it: the kernel's rds_exthdr_size[] for WIRE_KVER_6/7, plus the
 * non-mainline CAP_BITS and CSUM for WIRE_KVER_ALL.
 * Return: size in bytes (0 for NONE), or -1 if that receiver has no entry
 * (a kernel then parses it as zero-length).
 */
WIRE_API int wire_ext_size(unsigned type, enum wire_kver kv);
/* wire_ext_name() - "NPATHS", ...; NULL if unknown. */
WIRE_API const char *wire_ext_name(unsigned type);
/* wire_ext_toks - extension types (RDS_EXTHDR_*). */
WIRE_API extern const struct wire_tok wire_ext_toks[];
/* wire_rdma_status_toks - the status of an RDMA notification
 * (RDS_CMSG_RDMA_STATUS: RDS_RDMA_SUCCESS 0 .. RDS_RDMA_OTHER_ERROR 4). */
WIRE_API extern const struct wire_tok wire_rdma_status_toks[];

struct wire_ext {
	uint8_t type;
	uint8_t off;            /* offset of the type byte inside h_exthdr */
	uint8_t len;            /* payload bytes (0 for unknown types) */
	bool known;             /* |type| has a size for the chosen kver */
	const uint8_t *val;     /* payload inside the caller's 16 bytes */
	union {
		uint32_t version;
		uint32_t rdma_rkey;
		struct {
			uint32_t rkey;
			uint32_t offset;
		} rdma_dest;
		struct {
			uint32_t bytes;
			uint8_t rflags;
			uint8_t pad[3];
		} rdma_bytes;
		uint16_t npaths;
		uint32_t gen_num;
		uint32_t cap_bits;
		uint8_t sport_idx;
	} u;
};

struct wire_ext_iter {
	const uint8_t *p;       /* the 16 exthdr bytes */
	unsigned pos;
	enum wire_kver kv;
	bool done;
};

WIRE_API void wire_ext_iter_init(struct wire_ext_iter *it,
				 const uint8_t ext[WIRE_EXT_SPACE], enum wire_kver kv);
/*
 * wire_ext_next() - step to the next extension header, exactly as a
 * receiver of generation |kv| walks them: stop at type 0, at type >= 16
 * or at the end of the 16 bytes; a type with no size entry is returned with
 * known = false and len 0, and parsing continues at the very next byte
 * (this is how a 6.x receiver mis-parses a 7.x RDMA_BYTES or SPORT_IDX).
 * Return: 1 if |out| was filled, 0 at the end, WIRE_ERR_MALFORMED if a
 * payload would run past byte 16 (the kernel stops there silently).
 */
WIRE_API int wire_ext_next(struct wire_ext_iter *it, struct wire_ext *out);

/* All extension headers of one header, decoded once. */
struct wire_exts {
	uint8_t count;
	struct wire_ext e[WIRE_EXT_SPACE];
	enum wire_kver kv;
	bool overrun;           /* parsing stopped at a payload past byte 16 */
	bool stopped_high;      /* parsing stopped at a type >= 16 */
	uint8_t end;            /* offset where parsing stopped */
	/* convenience: the values a probe handshake needs */
	bool has_npaths, has_gen_num, has_sport_idx;
	uint16_t npaths;
	uint32_t gen_num;
	struct wire_rules rules;
};

/*
 * wire_exts_decode() - walk all extension headers as a |kv| receiver would
 * and record rules: ext.overrun, ext.unknown, ext.type_high, ext.trailing
 * (non-zero bytes after the end), ext.multiple (with |kv| 6 only: more than
 * one, which a 6.x sender cannot produce), ext.misparse_6x (a 6.x receiver
 * would act on different values than a 7.x one: a phantom or lost entry of
 * a type 6.x knows), ext.version, ext.duplicate, ext.nonmainline.
 * Return: number of extensions decoded (never fails).
 */
WIRE_API int wire_exts_decode(struct wire_exts *x, const uint8_t ext[WIRE_EXT_SPACE],
			      enum wire_kver kv);

/*
 * wire_ext_differs_6x() - true if a 6.x receiver would parse these 16 bytes
 * into a different list of extensions than a 7.x receiver.
 */
WIRE_API bool wire_ext_differs_6x(const uint8_t ext[WIRE_EXT_SPACE]);

/*
 * wire_ext_add() - append one extension as a sender of generation |kv| does.
 * 6.x (rds_message_add_extension): only if the area is empty; otherwise the
 * call is silently a no-op, as in the kernel (return 0). 7.x: appended after
 * the existing ones while it fits. The payload is taken from |e->u| by type;
 * |e->len| is ignored for known types. Unknown types are refused.
 * Return: 1 added, 0 silently dropped (6.x rule), WIRE_ERR_NOSPACE if it
 * does not fit, WIRE_ERR_INVAL for an unknown type.
 */
WIRE_API int wire_ext_add(uint8_t ext[WIRE_EXT_SPACE], const struct wire_ext *e,
			  enum wire_kver kv);

/* ------------------------------------------------------------------------
 * Congestion map (net/rds/cong.c): 8192 bytes, port p = bit (p % 8) of
 * byte p / 8, least-significant bit first. Set = congested.
 */

struct wire_cong_map {
	uint8_t bits[WIRE_CONG_MAP_BYTES];
};

WIRE_API void wire_cong_clear_all(struct wire_cong_map *m);
WIRE_API void wire_cong_set(struct wire_cong_map *m, uint16_t port);
WIRE_API void wire_cong_clear(struct wire_cong_map *m, uint16_t port);
WIRE_API bool wire_cong_test(const struct wire_cong_map *m, uint16_t port);
WIRE_API size_t wire_cong_count(const struct wire_cong_map *m);
/*
 * wire_cong_next() - first congested port >= |from|.
 * Return: the port (0..65535), or -1 if none.
 */
WIRE_API int32_t wire_cong_next(const struct wire_cong_map *m, uint32_t from);

/*
 * wire_cong_decode() - copy a map payload. A payload whose length is not
 * exactly 8192 is not a map: a TCP kernel receiver silently ignores it.
 * Return: 8192, or WIRE_ERR_MALFORMED if len != 8192.
 */
WIRE_API ssize_t wire_cong_decode(struct wire_cong_map *m, const uint8_t *buf, size_t len);
WIRE_API ssize_t wire_cong_encode(const struct wire_cong_map *m, uint8_t *buf, size_t cap);

/* A run of consecutive ports that changed the same way. */
struct wire_port_range {
	uint16_t first;
	uint16_t last;          /* inclusive */
	bool congested;         /* true: became congested; false: became free */
};

/*
 * wire_cong_diff_next() - iterate the changes from |old| to |cur| as maximal
 * ranges, in port order. Start with *pos = 0.
 * Return: 1 and |out| filled, or 0 when there are no more changes.
 */
WIRE_API int wire_cong_diff_next(const struct wire_cong_map *old,
				 const struct wire_cong_map *cur, uint32_t *pos,
				 struct wire_port_range *out);
/*
 * wire_cong_freed_mask() - the 64-bit port-group mask an IB receiver passes to
 * rds_cong_map_updated(): OR over all 1024 words of (old & ~cur), so bit k is
 * set if any port p with p % 64 == k became free.
 */
WIRE_API uint64_t wire_cong_freed_mask(const struct wire_cong_map *old,
				       const struct wire_cong_map *cur);

/* ------------------------------------------------------------------------
 * Message classification and builders
 */

enum wire_kind {
	WIRE_KIND_DATA = 0,
	WIRE_KIND_PING,         /* dport 0 (sport 0: a ping nobody answers) */
	WIRE_KIND_PONG,         /* sport 0, dport != 0, != probe port */
	WIRE_KIND_PROBE_PING,   /* sport 1, dport 0 */
	WIRE_KIND_PROBE_PONG,   /* sport 0, dport 1 */
	WIRE_KIND_ACK,          /* IB ack-only: ports 0/0, no payload */
	WIRE_KIND_CONG,         /* h_flags == 0x01 exactly */
	WIRE_KIND__COUNT
};

/* wire_kind_name() - "data", "ping", "pong", "probe-ping", "probe-pong",
 * "ack", "cong". */
WIRE_API const char *wire_kind_name(enum wire_kind k);
/* wire_kind_toks - enum wire_kind. */
WIRE_API extern const struct wire_tok wire_kind_toks[];

/*
 * wire_classify() - what a kernel receiver on |xp| takes |h| to be, in the
 * kernel's order: IB ack-only first (ports 0/0 and no payload), then
 * h_flags == 0x01 exactly for a map, then ping/probe on dport 0, probe pong,
 * pong, data.
 */
WIRE_API enum wire_kind wire_classify(const struct wire_hdr *h, enum wire_xport xp);

/*
 * wire_msg_check() - rules that depend on the kind: map length/seq/ports,
 * ping/pong payload, probe NPATHS, ack-only fields, sequence 0 on a
 * sequenced message, extension rules for |kv|. Adds to |out|.
 * Return: number of rules added.
 */
WIRE_API int wire_msg_check(const struct wire_hdr *h, enum wire_xport xp,
			    enum wire_kver kv, struct wire_rules *out);

/* Builders fill a whole header (all other fields zero). */
WIRE_API void wire_build_data(struct wire_hdr *h, uint64_t seq, uint16_t sport,
			      uint16_t dport, uint32_t len);
WIRE_API void wire_build_ping(struct wire_hdr *h, uint64_t seq, uint16_t sport);
WIRE_API void wire_build_pong(struct wire_hdr *h, uint64_t seq, uint16_t dport);
/*
 * wire_build_probe() - probe ping (pong = false: sport 1, dport 0) or probe
 * pong (sport 0, dport 1) as a |kv| kernel sends it: 6.x NPATHS only (the
 * GEN_NUM is lost to the one-exthdr rule), 7.x NPATHS, GEN_NUM, SPORT_IDX.
 */
WIRE_API void wire_build_probe(struct wire_hdr *h, bool pong, uint64_t seq,
			       enum wire_kver kv, uint16_t npaths, uint32_t gen_num);
/* wire_build_ack() - IB ack-only frame acknowledging |ack|, checksummed. */
WIRE_API void wire_build_ack(struct wire_hdr *h, uint64_t ack, uint8_t credit);
/* wire_build_cong() - congestion-map header (seq 0, len 8192, flags 0x01). */
WIRE_API void wire_build_cong(struct wire_hdr *h);

/* ------------------------------------------------------------------------
 * RDS/TCP stream deframer (net/rds/tcp_recv.c t_tinc_hdr_rem/t_tinc_data_rem)
 *
 * Incremental: accepts the byte stream in any chunking, down to one byte at
 * a time, and yields one whole message per completion. It never allocates:
 * when a message lies whole inside the caller's chunk the payload points
 * there (zero copy); otherwise the payload is gathered into the buffer the
 * caller gave at init, which must hold max_len bytes. An h_len above max_len
 * is refused before a byte of its payload is consumed.
 */

struct wire_frame {
	struct wire_hdr hdr;
	const uint8_t *payload; /* valid until the next call on the deframer */
	uint32_t len;           /* == hdr.len */
	uint32_t caplen;        /* payload bytes at |payload|: == len, except in
				 * prefix mode, where a split payload keeps only
				 * its first cap bytes */
	uint64_t offset;        /* stream offset of the header's first byte */
};

struct wire_deframer {
	uint8_t hbuf[WIRE_HDR_LEN];
	uint32_t hgot;          /* header bytes gathered */
	uint32_t dgot;          /* payload bytes gathered */
	bool in_data;
	int failed;             /* sticky error code, 0 if none */
	uint32_t max_len;
	uint8_t *buf;           /* caller's gather buffer (may be NULL: see init) */
	size_t cap;
	bool prefix;            /* keep only the first cap payload bytes */
	bool lend;              /* the caller grows buf on demand (init_lend) */
	uint32_t hole;          /* payload bytes before the first skipped one;
				 * UINT32_MAX when nothing was skipped */
	uint64_t offset;        /* stream bytes consumed so far */
	uint64_t msg_offset;    /* stream offset of the message in progress */
	struct wire_hdr hdr;    /* header of the message in progress */
};

/*
 * wire_deframer_init() - |max_len| 0 means WIRE_MAX_MSG_LEN. |buf| of |cap|
 * bytes gathers payloads that arrive split; it must be >= max_len or NULL.
 * With NULL, split payloads cannot be gathered and input returns
 * WIRE_ERR_NOSPACE for them (useful only for whole-buffer parsing).
 * Return: 0, or WIRE_ERR_INVAL if 0 < cap < max_len.
 */
WIRE_API int wire_deframer_init(struct wire_deframer *d, uint32_t max_len,
				uint8_t *buf, size_t cap);
/*
 * wire_deframer_init_prefix() - a dissector's deframer: frames every
 * message up to |max_len| (0 = 1 MiB; UINT32_MAX follows the stream as a
 * kernel receiver does, which never checks h_len), but of a payload that
 * arrives split it keeps only the first |cap| bytes in |buf| and consumes
 * the rest uncopied; wire_frame.caplen says how many bytes are there.
 * Memory is |cap| whatever the peer claims.
 * Return: 0, or WIRE_ERR_INVAL if |d| is NULL or |buf| is NULL with cap > 0.
 */
WIRE_API int wire_deframer_init_prefix(struct wire_deframer *d, uint32_t max_len,
				       uint8_t *buf, size_t cap);
/*
 * wire_deframer_input() - consume bytes from |in|; stops after at most one
 * completed message.
 * Return: bytes consumed (>= 0); *ready is set to true when |out| holds a
 * message. Errors: WIRE_ERR_TOOBIG when an h_len exceeds max_len (the
 * header is in wire_deframer_hdr(); the error is sticky), WIRE_ERR_NOSPACE
 * (see init).
 */
WIRE_API ssize_t wire_deframer_input(struct wire_deframer *d, const uint8_t *in,
				     size_t len, struct wire_frame *out, bool *ready);
/*
 * wire_deframer_skip() - |len| stream bytes that exist but were not captured
 * (a snap length cut them). Inside the payload of the message in progress
 * they are counted as received, not stored: the frame completes as usual and
 * its caplen stops at the first missing byte. A header cannot be skipped:
 * the caller has lost the framing and must resynchronise.
 * Return: bytes accounted (<= len; it stops after a completed message, with
 * *ready set), 0 when not inside a payload, WIRE_ERR_* if the deframer failed.
 */
WIRE_API ssize_t wire_deframer_skip(struct wire_deframer *d, size_t len,
				    struct wire_frame *out, bool *ready);
/*
 * wire_deframer_init_lend() - an endpoint's deframer that owns no buffer:
 * a payload split across inputs is gathered into whatever the caller has
 * lent (wire_deframer_set_buf), and input stops consuming when that is
 * full. Then wire_deframer_need() is non-zero and the caller grows the
 * buffer (say to min(need, 2 * cap)), keeping its first bytes, and goes
 * on. So memory follows bytes received, never a header's claim.
 * Return: 0; WIRE_ERR_INVAL.
 */
WIRE_API int wire_deframer_init_lend(struct wire_deframer *d, uint32_t max_len);
/* wire_deframer_need() - lend mode: 0 while input can go on; else the
 * lent buffer is full and the message in progress needs this many bytes
 * in all (its h_len). */
WIRE_API size_t wire_deframer_need(const struct wire_deframer *d);
/* wire_deframer_set_buf() - lend mode: the buffer to gather into from now
 * on; its first bytes must be the ones gathered so far (as realloc keeps
 * them). Return: 0; WIRE_ERR_INVAL (not lend mode, |cap| below what is
 * gathered). */
WIRE_API int wire_deframer_set_buf(struct wire_deframer *d, uint8_t *buf, size_t cap);
/* wire_deframer_hdr() - header of the message in progress (or the refused one). */
WIRE_API const struct wire_hdr *wire_deframer_hdr(const struct wire_deframer *d);
/* wire_deframer_pending() - true when a message is partly received: at a
 * connection close this means a truncated message. */
WIRE_API bool wire_deframer_pending(const struct wire_deframer *d);

/* ------------------------------------------------------------------------
 * RDS/TCP resynchronisation (src/resync.c): find the next RDS header in a
 * TCP stream whose framing was lost (the capture started mid-connection,
 * bytes were never captured, or a header claimed an absurd length). One
 * rule for every reader of captures: rdsdump and the Wireshark plugin.
 *
 * RDS/TCP has no record marker, so a header is recognised by what the
 * kernel always writes into one on TCP: h_ack 0, h_credit 0, zero padding,
 * only flags a TCP sender sets, an extension area a receiver can walk, a
 * length within the limit, and a sequence number that is not 0 unless the
 * message is a congestion map. One such header could be payload by chance;
 * two in a row at the distance the first one's h_len gives almost cannot,
 * so a candidate is accepted when its successor is plausible too, or when
 * its sequence number is the one the path expects next. A candidate whose
 * successor has not arrived yet waits, but does not block a later candidate
 * that confirms first: the typical false candidate is a real header seen a
 * few bytes off, whose length field then reads as something huge. With a
 * window of max_len + 2 headers every candidate can be confirmed; a smaller
 * window accepts one too large for it on its own.
 *
 * Pure; the window is the caller's buffer, so memory is fixed.
 */
struct wire_resync {
	uint8_t *win;           /* caller's window */
	size_t cap;             /* what the window may grow to: judges by it */
	size_t room;            /* bytes at win now (<= cap) */
	size_t len;             /* bytes in the window */
	size_t scan;            /* offsets below this were looked at */
	size_t pend[16];        /* candidates waiting for their successor */
	unsigned npend;
	uint32_t max_len;
	bool have_hint;
	uint64_t hint_seq;      /* next sequence number the path expects */
	uint64_t skipped;       /* bytes given up since the last reset */
	bool found;             /* win[start..len) begins with a header */
	size_t start;
};

/* wire_hdr_plausible() - could these 48 bytes be a header a kernel wrote
 * on TCP? */
WIRE_API bool wire_hdr_plausible(const struct wire_hdr *h, uint32_t max_len);

/* wire_resync_init() - |win| of |cap| bytes (at least 2 headers' worth). */
WIRE_API void wire_resync_init(struct wire_resync *r, uint8_t *win, size_t cap,
			       uint32_t max_len);
/*
 * A window may also start smaller and grow: the verdicts are those of a
 * |cap| window as long as the caller grows it to wire_resync_want() before
 * each feed; where it cannot, the window drops its oldest bytes at |room|
 * as a full one does at |cap|.
 * wire_resync_want() - bytes the window should have to take |len| more
 * without dropping any (never above cap; room when that is enough).
 * wire_resync_set_win() - the window is now |win| of |room| bytes, holding
 * the same first r->len bytes (realloc keeps them).
 */
WIRE_API size_t wire_resync_want(const struct wire_resync *r, size_t len);
WIRE_API void wire_resync_set_win(struct wire_resync *r, uint8_t *win, size_t room);
/* wire_resync_reset() - start looking again; |hint| NULL if no sequence
 * number is expected. */
WIRE_API void wire_resync_reset(struct wire_resync *r, const uint64_t *hint);
/*
 * wire_resync_feed() - take stream bytes. Return: bytes taken (> 0 when
 * len > 0 and nothing was found yet; 0 once found). When r->found is set,
 * win[start..len) is the stream from the header on, and r->skipped the
 * bytes before it that were given up.
 */
WIRE_API size_t wire_resync_feed(struct wire_resync *r, const uint8_t *data, size_t len);
/*
 * wire_resync_finish() - the stream ends here: a waiting candidate whose
 * chain of plausible headers ends exactly at the last byte is confirmed by
 * that (a capture that starts mid-stream and holds one message more).
 * Return: true and r->found set, or false.
 */
WIRE_API bool wire_resync_finish(struct wire_resync *r);
/*
 * wire_resync_flush() - the stream ended (or broke) while looking: every
 * byte in the window is given up. Return: r->skipped after that.
 */
WIRE_API uint64_t wire_resync_flush(struct wire_resync *r);

/* ------------------------------------------------------------------------
 * InfiniBand CM private data (net/rds/ib.h)
 *
 * IPv4, 32 bytes:             IPv6, 56 bytes:
 *   0 saddr  4 daddr            0 saddr(16) 16 daddr(16)
 *   8 common part (24)         32 common part (24)
 * common: 0 major 1 minor 2 minor_mask(be16) 4 tos 5 reserved1 6 reserved2
 *         8 ack_seq(be64) 16 credit(be32) 20 pad(4)
 */

#define WIRE_IBPD_V4_LEN 32
#define WIRE_IBPD_V6_LEN 56
#define WIRE_IBPD_CMN_LEN 24

#define WIRE_IBVER_3_0 0x0300
#define WIRE_IBVER_3_1 0x0301
#define WIRE_IBVER_4_0 0x0400
#define WIRE_IBVER_4_1 0x0401
#define WIRE_IB_SUPPORTED_MINORS 0x0003  /* RDS_IB_SUPPORTED_PROTOCOLS */

struct wire_ibpd {
	int family;             /* 4 or 6 */
	uint8_t saddr[16];      /* IPv4: first 4 bytes */
	uint8_t daddr[16];
	uint8_t major;
	uint8_t minor;
	uint16_t minor_mask;
	uint8_t tos;
	uint8_t reserved1;
	uint16_t reserved2;
	uint64_t ack_seq;
	uint32_t credit;
	uint8_t pad[4];
	size_t extra;           /* bytes after the struct (accepted, not decoded) */
	struct wire_rules rules;
};

/*
 * wire_ibpd_decode() - decode the variant for |family| (4 or 6; which
 * listener got the request decides it in the kernel). Longer blobs are
 * accepted (fields are only ever appended); |extra| says by how much.
 * Return: bytes decoded (32 or 56), WIRE_ERR_TRUNC if shorter,
 * WIRE_ERR_INVAL for another family. On WIRE_ERR_TRUNC pd->rules still
 * says what the passive side makes of it: ib.pd.short (1..size-1 bytes,
 * taken as 4.0) or ib.pd.version (no bytes at all, rejected).
 */
WIRE_API ssize_t wire_ibpd_decode(struct wire_ibpd *pd, int family,
				  const uint8_t *buf, size_t len);
WIRE_API ssize_t wire_ibpd_encode(const struct wire_ibpd *pd, uint8_t *buf, size_t cap);

/*
 * wire_ib_negotiate() - the passive side's choice, as
 * rds_ib_protocol_compatible(): no private data -> reject (0); shorter than
 * the struct or major 0 -> 4.0; major 4 with a common minor in the mask ->
 * 4.<highest common>; 3.1 -> 3.1; anything else -> reject (0).
 * Return: the version (WIRE_IBVER_*) or 0 for reject.
 */
WIRE_API uint16_t wire_ib_negotiate(const uint8_t *buf, size_t len, int family);
/*
 * wire_ib_adopt() - the active side on ESTABLISHED: take the REP's
 * (major, minor) when major != 0, else keep |proposed| (the kernel pre-sets
 * 4.1). |rep| is NULL when the REP's private data did not decode (short).
 * Return: the version in use, or 0 if it is below 3.1 (the kernel drops).
 */
WIRE_API uint16_t wire_ib_adopt(uint16_t proposed, const struct wire_ibpd *rep);

/* ------------------------------------------------------------------------
 * IB fragmentation (net/rds/ib_send.c, ib_recv.c): every SEND carries a
 * full 48-byte header followed by up to 4096 payload bytes; all fragments
 * but the last carry exactly 4096.
 */

/* wire_frag_count() - SENDs for a message of |len| bytes (1 for len 0). */
WIRE_API uint32_t wire_frag_count(uint32_t len);
/* wire_frag_len() - payload bytes in fragment |i|; 0 if i is out of range. */
WIRE_API uint32_t wire_frag_len(uint32_t len, uint32_t i);

struct wire_reasm {
	bool active;            /* a message is in progress */
	struct wire_hdr first;  /* header of its first fragment */
	uint32_t got;           /* payload bytes gathered */
	uint32_t frags;         /* fragments gathered */
	uint32_t max_len;
	uint8_t *buf;           /* caller's buffer, >= max_len, or NULL */
	size_t cap;
	bool prefix;            /* keep only the first cap payload bytes */
	bool lend;              /* the caller grows buf on demand (init_lend) */
	struct wire_rules rules;/* rules of the last completed or failed message */
};

/*
 * wire_reasm_init() - as wire_deframer_init(): |max_len| 0 = 1 MiB, |buf|
 * NULL means payloads are not gathered (headers are still checked).
 */
WIRE_API int wire_reasm_init(struct wire_reasm *r, uint32_t max_len, uint8_t *buf,
			     size_t cap);
/*
 * wire_reasm_init_prefix() - as wire_deframer_init_prefix(): messages up to
 * |max_len| are reassembled and checked, only their first |cap| payload
 * bytes are kept (wire_frame.caplen).
 */
WIRE_API int wire_reasm_init_prefix(struct wire_reasm *r, uint32_t max_len, uint8_t *buf,
				    size_t cap);
/*
 * wire_reasm_input() - one received SEND (header + fragment payload), as
 * rds_ib_process_recv(): an ack-only frame completes on its own and does not
 * disturb a message in progress; a later fragment whose seq, len, sport or
 * dport differ from the first is ib.frag.mismatch; a non-final fragment that
 * is not 4096 bytes is ib.frag.short; a fragment longer than 4096 or than
 * what remains is ib.frag.long; a frame shorter than 48 bytes is ib.frag.runt.
 * Return: 1 if |out| holds a completed message (payload NULL when no buffer),
 * 0 if more fragments are needed, WIRE_ERR_MALFORMED on a violation (the
 * message in progress is abandoned; r->rules says why), WIRE_ERR_TOOBIG if
 * h_len exceeds max_len.
 */
WIRE_API int wire_reasm_input(struct wire_reasm *r, const uint8_t *frame, size_t len,
			      struct wire_frame *out);

/* ------------------------------------------------------------------------
 * RoCEv2 and IB transport headers (IBTA vol. 1 ch. 9; RoCEv2 annex A17),
 * enough to find RDS inside captures.
 *
 * BTH (12): opcode | SE M pad(2) tver(4) | pkey(16) | F B resv(6) |
 *           dqpn(24) | A resv(7) | psn(24)
 */

/* Opcodes the decoder names; others decode with their raw value. */
enum wire_ib_opcode {
	WIRE_IB_RC_SEND_FIRST = 0x00,
	WIRE_IB_RC_SEND_MIDDLE = 0x01,
	WIRE_IB_RC_SEND_LAST = 0x02,
	WIRE_IB_RC_SEND_LAST_IMM = 0x03,
	WIRE_IB_RC_SEND_ONLY = 0x04,
	WIRE_IB_RC_SEND_ONLY_IMM = 0x05,
	WIRE_IB_RC_WRITE_FIRST = 0x06,
	WIRE_IB_RC_WRITE_MIDDLE = 0x07,
	WIRE_IB_RC_WRITE_LAST = 0x08,
	WIRE_IB_RC_WRITE_LAST_IMM = 0x09,
	WIRE_IB_RC_WRITE_ONLY = 0x0a,
	WIRE_IB_RC_WRITE_ONLY_IMM = 0x0b,
	WIRE_IB_RC_READ_REQUEST = 0x0c,
	WIRE_IB_RC_READ_RESP_FIRST = 0x0d,
	WIRE_IB_RC_READ_RESP_MIDDLE = 0x0e,
	WIRE_IB_RC_READ_RESP_LAST = 0x0f,
	WIRE_IB_RC_READ_RESP_ONLY = 0x10,
	WIRE_IB_RC_ACK = 0x11,
	WIRE_IB_RC_ATOMIC_ACK = 0x12,
	WIRE_IB_RC_CMP_SWAP = 0x13,
	WIRE_IB_RC_FETCH_ADD = 0x14,
	WIRE_IB_RC_SEND_LAST_INV = 0x16,
	WIRE_IB_RC_SEND_ONLY_INV = 0x17,
	WIRE_IB_UD_SEND_ONLY = 0x64,
	WIRE_IB_UD_SEND_ONLY_IMM = 0x65,
	WIRE_IB_CNP = 0x81,
};

/* Where a SEND packet sits in its message. */
enum wire_ib_seg {
	WIRE_IB_SEG_NONE = 0,   /* not a SEND */
	WIRE_IB_SEG_FIRST,
	WIRE_IB_SEG_MIDDLE,
	WIRE_IB_SEG_LAST,
	WIRE_IB_SEG_ONLY,
};

struct wire_bth {
	uint8_t opcode;
	bool se;
	bool migreq;
	uint8_t padcnt;
	uint8_t tver;
	uint16_t pkey;
	uint8_t resv8a;         /* F, B and 6 reserved bits, raw */
	uint32_t dqpn;
	bool ackreq;
	uint8_t resv7;
	uint32_t psn;
};

struct wire_reth {
	uint64_t va;
	uint32_t rkey;
	uint32_t dma_len;
};

struct wire_aeth {
	uint8_t syndrome;
	uint32_t msn;
};

struct wire_deth {
	uint32_t qkey;
	uint8_t resv;
	uint32_t src_qp;
};

/* Link Next Header (IBTA 7.7.3): what follows the LRH. */
enum wire_ib_lnh {
	WIRE_IB_LNH_RAW = 0,    /* raw packet, no IBA transport */
	WIRE_IB_LNH_IP6 = 1,    /* raw IPv6 */
	WIRE_IB_LNH_LOCAL = 2,  /* IBA local: BTH */
	WIRE_IB_LNH_GLOBAL = 3, /* IBA global: GRH, then BTH */
};

#define WIRE_IB_LRH_LEN 8
#define WIRE_IB_GRH_LEN 40
#define WIRE_IB_BTH_LEN 12
#define WIRE_IB_ICRC_LEN 4
#define WIRE_IB_VCRC_LEN 2
#define WIRE_IB_GRH_NXTHDR 0x1b /* IBA transport follows the GRH */

/* Local Route Header (IBTA 7.7), every field as on the wire. */
struct wire_lrh {
	uint8_t vl;             /* 4 bits */
	uint8_t lver;           /* 4 bits, 0 */
	uint8_t sl;             /* 4 bits */
	uint8_t resv2;          /* 2 bits */
	uint8_t lnh;            /* 2 bits, enum wire_ib_lnh */
	uint16_t dlid;
	uint8_t resv5;          /* 5 bits */
	uint16_t pktlen;        /* 11 bits: 4-byte words from the LRH through the ICRC */
	uint16_t slid;
};

/* Global Route Header (IBTA 8.3), laid out as an IPv6 header. */
struct wire_grh {
	uint8_t ipver;          /* 4 bits, 6 */
	uint8_t tclass;
	uint32_t flow;          /* 20 bits */
	uint16_t paylen;        /* bytes after the GRH through the ICRC */
	uint8_t nxthdr;         /* WIRE_IB_GRH_NXTHDR */
	uint8_t hoplmt;
	uint8_t sgid[16];
	uint8_t dgid[16];
};

/* One RoCEv2 packet, decoded from its IP header to its ICRC; or one native
 * InfiniBand packet, from its LRH to its VCRC (has_lrh). */
struct wire_roce {
	int ip_version;         /* 4 or 6 */
	uint8_t src[16];        /* IPv4: first 4 bytes */
	uint8_t dst[16];
	uint16_t udp_sport;
	uint16_t udp_dport;
	struct wire_bth bth;
	bool has_reth, has_aeth, has_deth, has_imm, has_ieth, has_atomic_eth,
		has_atomic_ack;
	struct wire_reth reth;
	struct wire_aeth aeth;
	struct wire_deth deth;
	uint32_t imm;           /* immediate data, as on the wire (big-endian value) */
	uint32_t ieth_rkey;
	const uint8_t *payload; /* after all transport headers, before pad and ICRC */
	size_t payload_len;
	uint32_t icrc;          /* as carried */
	uint32_t icrc_computed;
	bool icrc_checked;      /* false when the packet was truncated */
	bool icrc_ok;
	/* native InfiniBand only (wire_ib_decode); zero for RoCEv2 */
	bool has_lrh;
	struct wire_lrh lrh;
	bool has_grh;           /* then ip_version is 6 and src/dst the GIDs */
	struct wire_grh grh;
	bool vcrc_checked;      /* the 2 bytes after the ICRC were captured */
	bool vcrc_ok;
	uint16_t vcrc;          /* as carried */
	uint16_t vcrc_computed;
	struct wire_rules rules;
};

/*
 * wire_roce_decode() - an IPv4 or IPv6 packet carrying UDP to port 4791.
 * |len| is what was captured; |wire_len| what was on the wire (0 = same).
 * When the capture is complete the ICRC is verified (roce.icrc on mismatch).
 * Return: 0, WIRE_ERR_TRUNC if headers are cut short, WIRE_ERR_MALFORMED,
 * WIRE_ERR_UNSUPP if it is not UDP/4791.
 */
WIRE_API int wire_roce_decode(struct wire_roce *r, const uint8_t *ip, size_t len,
			      size_t wire_len);
/*
 * wire_roce_icrc() - the RoCEv2 invariant CRC over |ip| (IP header through
 * payload and pad, |len| excluding the 4 ICRC bytes), with the variant fields
 * masked as the spec says. Return: the value as stored on the wire, read
 * little-endian.
 */
WIRE_API uint32_t wire_roce_icrc(const uint8_t *ip, size_t len);
/*
 * wire_roce_encode() - the RoCEv2 packet |r| describes, from its IP header
 * to a valid ICRC, into |buf|: IPv4 (r->ip_version 4: DF, TTL 64, a valid
 * header checksum) or IPv6 (hop limit 64), UDP from r->udp_sport to 4791
 * with checksum 0 as rxe sends it, the BTH, the extended headers the opcode
 * implies (taken from r->reth, aeth, deth, imm, ieth; those libwire does
 * not keep are written as zeros), r->payload_len bytes of payload and
 * bth.padcnt zero bytes of pad. The has_* flags, udp_dport and the ICRC
 * fields of |r| are ignored.
 * Return: bytes written, WIRE_ERR_NOSPACE, WIRE_ERR_INVAL (NULL arguments,
 * an IP version other than 4 or 6, or a packet longer than 65535 bytes).
 */
WIRE_API ssize_t wire_roce_encode(const struct wire_roce *r, uint8_t *buf, size_t cap);

/*
 * wire_ib_decode() - a native InfiniBand packet (LINKTYPE_INFINIBAND):
 * LRH, a GRH when LNH says so, BTH and what follows as wire_roce_decode()
 * decodes it, ICRC, and the VCRC when the frame has it. LRH PktLen sizes
 * the packet; |wire_len| (0 = not known) is the frame's length on the wire.
 * The ICRC is verified when the packet was captured whole (ib.icrc), the
 * VCRC when its two bytes were (ib.vcrc). With a GRH, ip_version is 6 and
 * src/dst hold the source and destination GIDs; without one both are zero
 * and the LIDs are in r->lrh.
 * Return: 0; WIRE_ERR_TRUNC if headers are cut short; WIRE_ERR_MALFORMED
 * when PktLen, the GRH's PayLen and the frame disagree (ib.lrh.len) or
 * the headers do not fit; WIRE_ERR_UNSUPP for a raw packet (LNH 0 or 1) or
 * a GRH whose next header is not IBA transport.
 */
WIRE_API int wire_ib_decode(struct wire_roce *r, const uint8_t *lrh, size_t len,
			    size_t wire_len);
/*
 * wire_ib_encode() - the native InfiniBand packet |r| describes, as
 * wire_roce_encode() builds the transport part, behind r->lrh (and r->grh
 * when r->lrh.lnh is WIRE_IB_LNH_GLOBAL), with a valid ICRC and VCRC.
 * PktLen and the GRH's PayLen are computed; the other LRH and GRH fields
 * are written as given.
 * Return: bytes written, WIRE_ERR_NOSPACE, WIRE_ERR_INVAL (NULL arguments,
 * LNH not 2 or 3, or a packet longer than PktLen's 11 bits can count).
 */
WIRE_API ssize_t wire_ib_encode(const struct wire_roce *r, uint8_t *buf, size_t cap);
/*
 * wire_ib_icrc() - the invariant CRC of a native InfiniBand packet, over
 * |len| bytes from the LRH (the ICRC itself excluded), with the variant
 * fields as ones (IBTA 7.8.1): LRH VL and BTH Resv8a on a local packet; the
 * whole LRH, GRH traffic class, flow label and hop limit and BTH Resv8a on
 * a global one (LNH 3). Return: the value as stored on the wire, read
 * little-endian.
 */
WIRE_API uint32_t wire_ib_icrc(const uint8_t *lrh, size_t len);
/*
 * wire_ib_vcrc() - the variant CRC (IBTA 7.8.2: CRC-16, polynomial 0x100B,
 * seed 0xffff, complemented) over |len| bytes from the LRH through the
 * ICRC. Return: the value as stored on the wire, read little-endian.
 */
WIRE_API uint16_t wire_ib_vcrc(const uint8_t *lrh, size_t len);
/* One RC SEND cut into packets of at most |pmtu| payload bytes. */
struct wire_ib_send_iter {
	const uint8_t *msg;
	size_t len;
	size_t off;
	uint32_t pmtu;
	bool started;
};

/* wire_ib_send_init() - iterate over the packets of a SEND of |len| bytes
 * at |msg| with path MTU |pmtu| (256, 512, 1024, 2048 or 4096; anything
 * else is taken as 4096). */
WIRE_API void wire_ib_send_init(struct wire_ib_send_iter *it, const uint8_t *msg,
				size_t len, uint32_t pmtu);
/*
 * wire_ib_send_next() - the next packet: sets r->bth.opcode (RC
 * SEND_ONLY, or SEND_FIRST, SEND_MIDDLE..., SEND_LAST), r->bth.padcnt (the
 * last packet padded to a whole word), r->payload and r->payload_len; the
 * caller owns the rest (PSN, QP, addresses) and encodes each packet.
 * Return: 1 if |r| was set, 0 after the last packet.
 */
WIRE_API int wire_ib_send_next(struct wire_ib_send_iter *it, struct wire_roce *r);
/* wire_ib_opcode_name() - "RC SEND_FIRST", ...; NULL if unknown. */
WIRE_API const char *wire_ib_opcode_name(uint8_t opcode);
/* wire_ib_opcode_toks - every BTH opcode libwire knows, by value. */
WIRE_API extern const struct wire_tok wire_ib_opcode_toks[];
/* wire_ib_opcode_seg() - position of a SEND opcode within its message. */
WIRE_API enum wire_ib_seg wire_ib_opcode_seg(uint8_t opcode);
/*
 * wire_ib_psn_step() - a reader's rule for the next SEND packet of a QP
 * (24-bit serial arithmetic): a PSN behind the expected one was seen
 * already (an RC retransmission reuses it); one ahead means packets before
 * it were lost or come later, and the SEND in progress cannot complete.
 * *have false: any PSN is the expected one. Return: -1 behind (*next
 * unchanged), else the packets missed before it (0 in order), *next and
 * *have set past it.
 */
WIRE_API int32_t wire_ib_psn_step(bool *have, uint32_t *next, uint32_t psn);
/*
 * wire_ib_claims_qp() - a reader's rule for taking a QP it has not seen
 * carry RDS as RDS, by the payload of a SEND's first packet: |len| bytes
 * that start with an RDS header whose h_len is within WIRE_MAX_MSG_LEN and
 * whose h_csum is set and verifies. Every kernel RDS/IB sender checksums
 * every header it sends; the bytes of another ULP on the same link (NFS,
 * iSER, NVMe, SMB Direct) pass that only by chance, where they pass a zero
 * h_csum (the receiver's "absent") and a length check easily. Once a QP is
 * taken, its later SENDs are RDS whatever their checksum, which is then a
 * rule (hdr.csum.*), not a reason to look away.
 */
WIRE_API bool wire_ib_claims_qp(const uint8_t *payload, size_t len);

/* IB CM (IBTA vol. 1 ch. 12), carried in MADs on QP1. */
enum wire_ibcm_attr {
	WIRE_IBCM_REQ = 0x0010,
	WIRE_IBCM_MRA = 0x0011,
	WIRE_IBCM_REJ = 0x0012,
	WIRE_IBCM_REP = 0x0013,
	WIRE_IBCM_RTU = 0x0014,
	WIRE_IBCM_DREQ = 0x0015,
	WIRE_IBCM_DREP = 0x0016,
};

#define WIRE_MAD_LEN 256
#define WIRE_IBCM_CLASS 0x07

struct wire_ibcm {
	/* MAD common header */
	uint8_t base_version;
	uint8_t mgmt_class;
	uint8_t class_version;
	uint8_t method;
	uint16_t status;
	uint64_t tid;
	uint16_t attr_id;       /* enum wire_ibcm_attr */
	uint32_t attr_mod;
	/* CM message */
	uint32_t local_comm_id;
	uint32_t remote_comm_id;
	uint64_t service_id;    /* REQ */
	uint32_t local_qpn;     /* REQ, REP */
	uint32_t remote_qpn;    /* DREQ */
	uint32_t starting_psn;  /* REQ, REP */
	uint16_t rej_reason;    /* REJ */
	uint8_t rej_msg;        /* REJ: which message is rejected */
	const uint8_t *private_data;
	size_t private_len;     /* REQ 92, REP 196, REJ 148, RTU 224, DREQ 220, DREP 224 */
	/* rdma_cm header at the start of REQ private data (cma_hdr), if present */
	bool has_cma;
	uint8_t cma_version;
	uint8_t cma_ip_version; /* 4 or 6 */
	uint16_t cma_port;      /* source port */
	uint8_t cma_src[16];    /* IPv4: first 4 bytes (wire: last 4 of 16) */
	uint8_t cma_dst[16];
	const uint8_t *user_data;  /* private data after the cma header */
	size_t user_len;
	struct wire_rules rules;
};

/*
 * wire_ibcm_decode() - a CM MAD (the 256 bytes after BTH+DETH on QP1).
 * Return: 0, WIRE_ERR_TRUNC, WIRE_ERR_UNSUPP (not the CM class / attribute).
 */
WIRE_API int wire_ibcm_decode(struct wire_ibcm *cm, const uint8_t *mad, size_t len);
/* wire_ibcm_attr_name() - "REQ", "REP", ...; NULL if unknown. */
WIRE_API const char *wire_ibcm_attr_name(uint16_t attr_id);
/* wire_ibcm_attr_toks - CM MAD attribute IDs (enum wire_ibcm_attr). */
WIRE_API extern const struct wire_tok wire_ibcm_attr_toks[];
/* wire_ibcm_rds_service_id() - the IB service ID rdma_cm derives for
 * RDMA_PS_TCP and |port| (0x0000000001060000 | port). */
WIRE_API uint64_t wire_ibcm_rds_service_id(uint16_t port);

/* ------------------------------------------------------------------------
 * RDMA netlink local-service messages (<rdma/rdma_netlink.h>, as merged).
 * nlmsghdr; for RESOLVE requests a 66-byte family header (device name, port,
 * path use); for IP_RESOLVE requests a 4-byte ifindex; then attributes.
 * Responses carry attributes right after the nlmsghdr.
 */

enum wire_nl_ls_op {
	WIRE_NL_LS_OP_RESOLVE = 0,
	WIRE_NL_LS_OP_SET_TIMEOUT = 1,
	WIRE_NL_LS_OP_IP_RESOLVE = 2,
};

enum wire_nl_ls_attr {
	WIRE_NL_LS_UNSPEC = 0,
	WIRE_NL_LS_PATH_RECORD,
	WIRE_NL_LS_TIMEOUT,
	WIRE_NL_LS_SERVICE_ID,
	WIRE_NL_LS_DGID,
	WIRE_NL_LS_SGID,
	WIRE_NL_LS_TCLASS,
	WIRE_NL_LS_PKEY,
	WIRE_NL_LS_QOS_CLASS,
	WIRE_NL_LS_IPV4,
	WIRE_NL_LS_IPV6,
	WIRE_NL_LS_ATTR_MAX     /* LS_NLA_TYPE_MAX */
};

#define WIRE_NL_CLIENT_LS 4         /* RDMA_NL_LS */
#define WIRE_NL_LS_F_ERR 0x0100     /* RDMA_NL_LS_F_ERR */
#define WIRE_NL_ATTR_MANDATORY 0x2000 /* RDMA_NLA_F_MANDATORY */
#define WIRE_NL_DEVICE_NAME_MAX 64  /* LS_DEVICE_NAME_MAX */
#define WIRE_NL_MAX_PATHS 8
#define WIRE_NL_MSG_MAX 4096        /* largest message decoded */

struct wire_nl_path {
	uint32_t flags;         /* IB_PATH_* (host order, as the kernel writes it) */
	uint32_t reserved;
	uint8_t rec[64];        /* path_rec[16]: the packed IB SA PathRecord */
};

struct wire_nl_ls {
	/* nlmsghdr */
	uint32_t nl_len;
	uint16_t nl_type;
	uint16_t nl_flags;
	uint32_t nl_seq;
	uint32_t nl_pid;
	uint16_t client;        /* RDMA_NL_GET_CLIENT(nl_type) */
	uint16_t op;            /* RDMA_NL_GET_OP(nl_type) */
	bool is_request;        /* NLM_F_REQUEST */
	bool is_err;            /* RDMA_NL_LS_F_ERR */
	/* family headers */
	bool has_resolve_hdr;
	char device_name[WIRE_NL_DEVICE_NAME_MAX + 1];
	uint8_t port_num;
	uint8_t path_use;
	uint8_t resolve_pad[2]; /* NLMSG_ALIGN tail; the kernel does not clear it */
	bool has_ip_resolve_hdr;
	uint32_t ifindex;
	/* attributes: present[] and mandatory[] indexed by enum wire_nl_ls_attr */
	bool present[WIRE_NL_LS_ATTR_MAX];
	bool mandatory[WIRE_NL_LS_ATTR_MAX];
	uint32_t timeout;
	uint64_t service_id;
	uint8_t dgid[16];
	uint8_t sgid[16];
	uint8_t tclass;
	uint16_t pkey;
	uint16_t qos_class;
	uint8_t ipv4[4];
	uint8_t ipv6[16];
	uint8_t npaths;
	struct wire_nl_path paths[WIRE_NL_MAX_PATHS];
	struct wire_rules rules;
};

/*
 * wire_nl_decode() - one netlink message from |buf| (a datagram may hold
 * several: call again at the returned offset). Attribute sizes are checked
 * with libnl-3's nla_parse() against the kernel's policy; unknown
 * attributes are skipped and reported (nl.attr.unknown), as is an unknown
 * one carrying the mandatory bit (nl.attr.mandatory).
 * Return: bytes consumed (NLMSG_ALIGN(nl_len), capped at len),
 * WIRE_ERR_TRUNC, WIRE_ERR_MALFORMED, WIRE_ERR_UNSUPP (not the LS client,
 * or longer than WIRE_NL_MSG_MAX), WIRE_ERR_INVAL (m NULL, or buf NULL with len).
 */
WIRE_API ssize_t wire_nl_decode(struct wire_nl_ls *m, const uint8_t *buf, size_t len);
/*
 * wire_nl_encode() - build the message from |m| (nl_len is computed; the
 * family header is written when has_*_hdr is set; attributes in enum
 * order, each with the mandatory bit when m->mandatory[type]).
 * Return: bytes written, WIRE_ERR_NOSPACE, WIRE_ERR_INVAL (m NULL, npaths >
 * WIRE_NL_MAX_PATHS, client > 63, op > 1023, or both family headers).
 */
WIRE_API ssize_t wire_nl_encode(const struct wire_nl_ls *m, uint8_t *buf, size_t cap);
/* wire_nl_attr_name() - "PATH_RECORD", ...; NULL if unknown. */
WIRE_API const char *wire_nl_attr_name(unsigned type);
/* wire_nl_op_name() - "RESOLVE", "SET_TIMEOUT", "IP_RESOLVE"; NULL if unknown. */
WIRE_API const char *wire_nl_op_name(unsigned op);
/* wire_nl_attr_toks, wire_nl_op_toks - local-service attribute types (after
 * the flag bits are masked off) and operations. */
WIRE_API extern const struct wire_tok wire_nl_attr_toks[];
WIRE_API extern const struct wire_tok wire_nl_op_toks[];

/* ------------------------------------------------------------------------
 * RDMA netlink device messages (RDMA_NL_NLDEV, <rdma/rdma_netlink.h>): the
 * answers of the dumps rdstop reads to see an RDS over IB connection's QP.
 * nlmsghdr, then attributes; resource dumps nest a table of entries, one
 * per QP or rdma_cm ID. Decoding is in two steps, with no allocation:
 * wire_nldev_decode() takes the message's top-level attributes (device,
 * port, resource summary) and notes where the table lies; then
 * wire_nldev_next() walks the table one entry at a time.
 */

enum wire_nldev_cmd {
	WIRE_NLDEV_CMD_GET = 1,         /* RDMA_NLDEV_CMD_GET */
	WIRE_NLDEV_CMD_PORT_GET = 5,
	WIRE_NLDEV_CMD_RES_GET = 9,
	WIRE_NLDEV_CMD_RES_QP_GET = 10,
	WIRE_NLDEV_CMD_RES_CM_ID_GET = 11,
};

/* The attribute types read (RDMA_NLDEV_ATTR_*); others are skipped. */
enum wire_nldev_attr {
	WIRE_NLDEV_ATTR_PAD = 0,
	WIRE_NLDEV_ATTR_DEV_INDEX = 1,
	WIRE_NLDEV_ATTR_DEV_NAME = 2,
	WIRE_NLDEV_ATTR_PORT_INDEX = 3,
	WIRE_NLDEV_ATTR_PORT_STATE = 12,
	WIRE_NLDEV_ATTR_PORT_PHYS_STATE = 13,
	WIRE_NLDEV_ATTR_RES_SUMMARY = 15,
	WIRE_NLDEV_ATTR_RES_SUMMARY_ENTRY = 16,
	WIRE_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME = 17,
	WIRE_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR = 18,
	WIRE_NLDEV_ATTR_RES_QP = 19,
	WIRE_NLDEV_ATTR_RES_QP_ENTRY = 20,
	WIRE_NLDEV_ATTR_RES_LQPN = 21,
	WIRE_NLDEV_ATTR_RES_RQPN = 22,
	WIRE_NLDEV_ATTR_RES_TYPE = 26,
	WIRE_NLDEV_ATTR_RES_STATE = 27,
	WIRE_NLDEV_ATTR_RES_PID = 28,
	WIRE_NLDEV_ATTR_RES_KERN_NAME = 29,
	WIRE_NLDEV_ATTR_RES_CM_ID = 30,
	WIRE_NLDEV_ATTR_RES_CM_ID_ENTRY = 31,
	WIRE_NLDEV_ATTR_RES_PS = 32,
	WIRE_NLDEV_ATTR_RES_SRC_ADDR = 33,
	WIRE_NLDEV_ATTR_RES_DST_ADDR = 34,
	WIRE_NLDEV_ATTR_NDEV_INDEX = 50,
	WIRE_NLDEV_ATTR_NDEV_NAME = 51,
	WIRE_NLDEV_ATTR_RES_CM_IDN = 63,
};

#define WIRE_NL_CLIENT_NLDEV 5          /* RDMA_NL_NLDEV */
#define WIRE_NLDEV_NAME_MAX 64          /* IB_DEVICE_NAME_MAX */
#define WIRE_NLDEV_KERN_NAME_MAX 32     /* a module name */
#define WIRE_NLDEV_NDEV_NAME_MAX 16     /* IFNAMSIZ */
#define WIRE_NLDEV_SUMMARY_MAX 16       /* summary entries kept (6.1 has 7) */
#define WIRE_NLDEV_RES_NAME_MAX 16

/* One line of a device's resource summary ("qp", "cq", "mr", ...). */
struct wire_nldev_summary {
	char name[WIRE_NLDEV_RES_NAME_MAX + 1];
	uint64_t curr;
};

struct wire_nldev {
	/* nlmsghdr */
	uint32_t nl_len;
	uint16_t nl_type;
	uint16_t nl_flags;
	uint32_t nl_seq;
	uint32_t nl_pid;
	uint16_t client;                /* RDMA_NL_GET_CLIENT(nl_type); 0 for control */
	uint16_t op;                    /* RDMA_NL_GET_OP(nl_type): enum wire_nldev_cmd */
	bool is_done;                   /* NLMSG_DONE: the dump's end */
	bool is_error;                  /* NLMSG_ERROR: error below (0 is an ack) */
	int32_t error;                  /* -errno */
	/* top-level attributes; has_* says each was present */
	bool has_dev_index, has_port, has_port_state, has_phys_state, has_ndev_index;
	uint32_t dev_index;
	char dev_name[WIRE_NLDEV_NAME_MAX + 1];
	uint32_t port;
	uint8_t port_state;             /* IB_PORT_*: 1 DOWN .. 4 ACTIVE */
	uint8_t phys_state;
	uint32_t ndev_index;
	char ndev_name[WIRE_NLDEV_NDEV_NAME_MAX + 1];
	uint8_t n_summary;
	bool summary_over;              /* more entries than WIRE_NLDEV_SUMMARY_MAX */
	struct wire_nldev_summary summary[WIRE_NLDEV_SUMMARY_MAX];
	/* the table of entries (RES_QP or RES_CM_ID): its type, 0 if none,
	 * and its payload's place in the decoded buffer */
	uint16_t table;
	size_t table_off, table_len;
};

/* One entry of a resource table: a QP or an rdma_cm ID (the fields its
 * kind has; has_* says which came). */
struct wire_nldev_entry {
	uint16_t type;                  /* RES_QP_ENTRY or RES_CM_ID_ENTRY */
	bool has_port, has_lqpn, has_rqpn, has_type, has_state, has_pid, has_ps, has_id;
	uint32_t port;
	uint32_t lqpn, rqpn;
	uint8_t qp_type;                /* IB_QPT_*: 2 RC, 4 UD, ... */
	uint8_t state;                  /* QP: IB_QPS_*; cm ID: the rdma_cm state */
	uint32_t pid;
	uint32_t ps;                    /* rdma_cm port space */
	uint32_t id;                    /* the cm ID's restrack number */
	char kern_name[WIRE_NLDEV_KERN_NAME_MAX + 1]; /* the kernel owner; "" if a process */
	/* the cm ID's addresses: family 2 (AF_INET) or 10 (AF_INET6), or 0
	 * (absent or another family); IPv4 as ::ffff:a.b.c.d; port host order */
	uint16_t src_family, dst_family;
	uint8_t src_addr[16], dst_addr[16];
	uint16_t src_port, dst_port;
};

/*
 * wire_nldev_decode() - one netlink message of an RDMA_NL_NLDEV dump from
 * |buf| (a datagram holds several: call again at the returned offset).
 * Truncated and malformed: a buffer shorter than the 16-byte header, or
 * than the header's length, is WIRE_ERR_TRUNC (more bytes would make it
 * whole); a header length below 16, an attribute shorter than its header
 * or running past the message, a known attribute of the wrong size, a
 * string without its NUL or longer than its field, and a nested table that
 * does not hold whole attributes are WIRE_ERR_MALFORMED. Unknown attributes
 * are skipped, as the kernel's own parser skips them.
 * Return: bytes consumed (NLMSG_ALIGN(nl_len), capped at len),
 * WIRE_ERR_TRUNC, WIRE_ERR_MALFORMED, WIRE_ERR_UNSUPP (another client;
 * nl_len and the header fields are set, so a reader can step over it),
 * WIRE_ERR_INVAL (m NULL, or buf NULL with len).
 */
WIRE_API ssize_t wire_nldev_decode(struct wire_nldev *m, const uint8_t *buf, size_t len);
/*
 * wire_nldev_next() - the table entry at *pos (start at 0) of the message
 * |m| that wire_nldev_decode() took from |buf|; advances *pos.
 * Return: 1 and *e set; 0 at the end; WIRE_ERR_MALFORMED (an entry or one
 * of its attributes as wire_nldev_decode() describes), WIRE_ERR_INVAL.
 */
WIRE_API int wire_nldev_next(const struct wire_nldev *m, const uint8_t *buf, size_t *pos,
			     struct wire_nldev_entry *e);
/* wire_nldev_qp_state_toks - IB_QPS_* as `rdma res show qp` names them
 * (RESET, INIT, RTR, RTS, SQD, SQE, ERR). */
WIRE_API extern const struct wire_tok wire_nldev_qp_state_toks[];
/* wire_nldev_qp_type_toks - IB_QPT_* (SMI, GSI, RC, UC, UD, ...). */
WIRE_API extern const struct wire_tok wire_nldev_qp_type_toks[];
/* wire_nldev_port_state_toks - IB_PORT_* (NOP, DOWN, INIT, ARMED, ACTIVE,
 * ACTIVE_DEFER). */
WIRE_API extern const struct wire_tok wire_nldev_port_state_toks[];
/* wire_nldev_cm_state_toks - the rdma_cm ID states (IDLE ... DESTROYING). */
WIRE_API extern const struct wire_tok wire_nldev_cm_state_toks[];
/*
 * wire_nldev_request() - the dump request rdstop sends: nlmsghdr of
 * RDMA_NL_NLDEV |cmd| with NLM_F_REQUEST | NLM_F_DUMP and |seq|, and
 * DEV_INDEX |dev_index| unless it is UINT32_MAX (RES_GET and GET dump every
 * device; the per-device dumps need it).
 * Return: bytes written (16 or 24), WIRE_ERR_NOSPACE, WIRE_ERR_INVAL.
 */
WIRE_API ssize_t wire_nldev_request(uint8_t *buf, size_t cap, unsigned cmd, uint32_t seq,
				    uint32_t dev_index);

/* ------------------------------------------------------------------------
 * Capture packets: link layer, IP and TCP/UDP, far enough to find RDS/TCP,
 * RoCEv2 and netlink inside a capture. Fragments and IP options are
 * described, not reassembled (wire_ipfrag_decode() gives a reassembler
 * what it needs of a fragment).
 */

/* pcap link types (LINKTYPE_* values, as stored in capture files). */
enum wire_linktype {
	WIRE_LINK_ETHERNET = 1,
	WIRE_LINK_RAW = 101,        /* raw IPv4 or IPv6 */
	WIRE_LINK_LINUX_SLL = 113,  /* Linux cooked v1 ("any") */
	WIRE_LINK_IPV4 = 228,
	WIRE_LINK_INFINIBAND = 247, /* native InfiniBand, from the LRH */
	WIRE_LINK_IPV6 = 229,
	WIRE_LINK_NETLINK = 253,    /* nlmon */
	WIRE_LINK_LINUX_SLL2 = 276, /* Linux cooked v2 */
};

enum wire_l3 {
	WIRE_L3_NONE = 0,           /* a link-layer frame we do not look inside */
	WIRE_L3_IPV4,
	WIRE_L3_IPV6,
	WIRE_L3_NETLINK,
	WIRE_L3_IB,                 /* native InfiniBand: l3_hdr is the LRH */
};

enum wire_l4 {
	WIRE_L4_NONE = 0,
	WIRE_L4_TCP,
	WIRE_L4_UDP,
	WIRE_L4_OTHER,              /* another protocol, or a non-first fragment */
};

#define WIRE_TCP_FIN 0x01
#define WIRE_TCP_SYN 0x02
#define WIRE_TCP_RST 0x04
#define WIRE_TCP_PSH 0x08
#define WIRE_TCP_ACK 0x10

struct wire_pkt {
	int linktype;
	uint16_t ethertype;         /* after any VLAN tags; 0 for raw/netlink */
	uint8_t vlans;              /* 802.1Q/802.1ad tags skipped */
	uint16_t sll_proto;         /* cooked captures: the protocol field */
	enum wire_l3 l3;
	const uint8_t *l3_hdr;      /* IP header (IB: LRH), for the ICRC and rdsdump -X */
	size_t l3_caplen;           /* captured bytes from l3_hdr on */
	size_t l3_len;              /* bytes the IP header says the packet has (IB: the frame's) */
	uint8_t src[16];            /* IPv4 in the first 4 bytes */
	uint8_t dst[16];
	uint8_t ip_proto;           /* final next-header value */
	bool ip_fragment;           /* part of a fragmented datagram */
	bool ip_first_fragment;     /* ... and it carries the L4 header */
	enum wire_l4 l4;
	uint16_t sport, dport;
	uint32_t tcp_seq, tcp_ack;
	uint8_t tcp_flags;
	uint16_t tcp_window;
	const uint8_t *payload;     /* L4 payload (netlink: the whole message) */
	size_t payload_caplen;      /* captured */
	size_t payload_len;         /* on the wire; > caplen when snaplen cut it */
};

/*
 * wire_pkt_decode() - one captured frame of |linktype|: |caplen| bytes
 * captured of |wirelen| on the wire (0 = same). Walks VLAN tags, IPv4
 * options, IPv6 extension headers (hop-by-hop, routing, destination,
 * fragment), and TCP options.
 * Return: 0; WIRE_ERR_TRUNC if the capture ends inside a header we need;
 * WIRE_ERR_MALFORMED for impossible lengths (IHL < 5, a TCP data offset
 * below 5, IP total length below its header); WIRE_ERR_UNSUPP for an
 * unknown link type. A frame that is not IP or netlink decodes with l3 NONE;
 * an INFINIBAND frame with l3 IB and nothing decoded (wire_ib_decode()).
 * On an error, l3 and l4 say how far decoding got: l4 TCP or UDP means the
 * error is in that header, l3 set with l4 NONE in the IP header.
 */
WIRE_API int wire_pkt_decode(struct wire_pkt *p, int linktype, const uint8_t *buf,
			     size_t caplen, size_t wirelen);

/*
 * One IPv4 or IPv6 fragment, as a reassembler keys and places it. The
 * datagram it belongs to is (source, destination, id, proto) for IPv4 and
 * (source, destination, id) for IPv6, as the kernel's ipq and frag_queue
 * keys are; src and dst are the wire_pkt's.
 */
struct wire_ipfrag {
	uint32_t id;                /* IPv4: 16 bits */
	uint32_t offset;            /* bytes into the datagram's data */
	bool more;                  /* IPv4 MF, IPv6 M */
	uint8_t proto;              /* IPv4 protocol; IPv6 the fragment header's next header */
	const uint8_t *hdr;         /* IPv4: header with options; IPv6: the fixed 40 bytes */
	size_t hdr_len;
	const uint8_t *data;        /* the fragment's data, captured whole */
	size_t data_len;
};

/*
 * wire_ipfrag_decode() - the fragment |p| (decoded by wire_pkt_decode(),
 * ip_fragment set; its own return may be an error in the TCP or UDP
 * header a first fragment holds only part of). An IPv4 fragment with more
 * to come is cut to a multiple of 8 bytes as ip_frag_queue() does.
 * Return: 0; WIRE_ERR_TRUNC if the capture holds less than the fragment;
 * WIRE_ERR_MALFORMED for a fragment no kernel takes (an IPv6 one with more
 * to come whose length is not a multiple of 8, an empty one with more to
 * come, data beyond 65535 bytes); WIRE_ERR_INVAL (f or p NULL, p no
 * fragment).
 */
WIRE_API int wire_ipfrag_decode(struct wire_ipfrag *f, const struct wire_pkt *p);

/* ------------------------------------------------------------------------
 * RDS_INFO getsockopt items (net/rds/info.c; layouts of uapi <linux/rds.h>
 * struct rds_info_*, rds6_info_*). getsockopt(SOL_RDS, RDS_INFO_*) fills
 * the caller's buffer with an array of fixed-size items, one layout per
 * option number.
 *
 * Byte order: fields the uapi header declares __be (addresses, ports) are
 * big-endian; every other integer (sequence numbers, lengths, buffer
 * sizes, counter values, inode numbers, IB queue sizes) is in the byte
 * order of the kernel that wrote it, which for getsockopt is this host's.
 * Decoded structs hold host-order values either way.
 *
 * Addresses are the 16-byte IPv6 form in both layouts, IPv4 as
 * ::ffff:a.b.c.d (what the kernel reports for IPv4 peers in the RDS6_INFO_*
 * lists), so an IPv4 item and its RDS6 counterpart decode alike.
 */

enum wire_info_opt {
	WIRE_INFO_COUNTERS = 10000,          /* RDS_INFO_COUNTERS */
	WIRE_INFO_CONNECTIONS = 10001,       /* IPv4 connections, path 0 */
	WIRE_INFO_SEND_MESSAGES = 10003,
	WIRE_INFO_RETRANS_MESSAGES = 10004,
	WIRE_INFO_RECV_MESSAGES = 10005,
	WIRE_INFO_SOCKETS = 10006,           /* IPv4-bound sockets */
	WIRE_INFO_TCP_SOCKETS = 10007,
	WIRE_INFO_IB_CONNECTIONS = 10008,
	WIRE_INFO6_CONNECTIONS = 10011,      /* RDS6_INFO_CONNECTIONS: all */
	WIRE_INFO6_SEND_MESSAGES = 10012,
	WIRE_INFO6_RETRANS_MESSAGES = 10013,
	WIRE_INFO6_RECV_MESSAGES = 10014,
	WIRE_INFO6_SOCKETS = 10015,
	WIRE_INFO6_TCP_SOCKETS = 10016,
	WIRE_INFO6_IB_CONNECTIONS = 10017,
};

#define WIRE_INFO_FIRST 10000          /* RDS_INFO_FIRST */
#define WIRE_INFO_LAST 10017           /* RDS_INFO_LAST */

/* Item sizes (sizeof the uapi structs; all packed but the rdma ones). */
#define WIRE_INFO_COUNTER_LEN 40
#define WIRE_INFO_CONN_LEN 42
#define WIRE_INFO6_CONN_LEN 65
#define WIRE_INFO_MSG_LEN 26
#define WIRE_INFO6_MSG_LEN 50
#define WIRE_INFO_SOCK_LEN 28
#define WIRE_INFO6_SOCK_LEN 52
#define WIRE_INFO_TCP_SOCK_LEN 41
#define WIRE_INFO6_TCP_SOCK_LEN 64
#define WIRE_INFO_RDMA_CONN_LEN 68
#define WIRE_INFO6_RDMA_CONN_LEN 92
#define WIRE_INFO_ITEM_MAX 92          /* the largest of them */

#define WIRE_INFO_NAME_LEN 32          /* rds_info_counter.name */
#define WIRE_INFO_TRANS_LEN 16         /* TRANSNAMSIZ */
#define WIRE_INFO_GID_LEN 16           /* RDS_IB_GID_LEN */

/* rds_info_connection.flags (RDS_INFO_CONNECTION_FLAG_*) */
#define WIRE_INFO_CONN_SENDING 0x01
#define WIRE_INFO_CONN_CONNECTING 0x02
#define WIRE_INFO_CONN_CONNECTED 0x04
/* rds_info_message.flags (RDS_INFO_MESSAGE_FLAG_*; defined, never set) */
#define WIRE_INFO_MSG_ACK 0x01
#define WIRE_INFO_MSG_FAST_ACK 0x02

enum wire_info_kind {
	WIRE_INFO_KIND_NONE = 0,   /* not an item list the kernel answers */
	WIRE_INFO_KIND_COUNTER,
	WIRE_INFO_KIND_CONN,
	WIRE_INFO_KIND_MSG,
	WIRE_INFO_KIND_SOCK,
	WIRE_INFO_KIND_TCP_SOCK,
	WIRE_INFO_KIND_RDMA_CONN,
};

/*
 * Text fields keep all their bytes (a kernel pads with NULs, but anything
 * may follow the first one) plus a NUL of our own, so they are C strings
 * and re-encode exactly.
 */
struct wire_info_counter {
	char name[WIRE_INFO_NAME_LEN + 1];
	uint64_t value;                /* host-endian */
};

/* rds_info_connection (42) / rds6_info_connection (65, no tos) */
struct wire_info_conn {
	uint64_t next_tx_seq;
	uint64_t next_rx_seq;
	uint8_t laddr[16];
	uint8_t faddr[16];
	char transport[WIRE_INFO_TRANS_LEN + 1];  /* "tcp", "infiniband", "loopback" */
	uint8_t flags;                 /* WIRE_INFO_CONN_* */
	uint8_t tos;                   /* IPv4 layout only */
};

/* rds_info_message (26) / rds6_info_message (50). In receive queues the
 * local side is the receiving socket. */
struct wire_info_msg {
	uint64_t seq;
	uint32_t len;
	uint8_t laddr[16];
	uint8_t faddr[16];
	uint16_t lport;
	uint16_t fport;
	uint8_t flags;
	uint8_t tos;
};

/* rds_info_socket (28) / rds6_info_socket (52) */
struct wire_info_sock {
	uint32_t sndbuf;               /* payload bytes, the SO_SNDBUF value */
	uint8_t bound_addr[16];
	uint8_t connected_addr[16];
	uint16_t bound_port;
	uint16_t connected_port;
	uint32_t rcvbuf;
	uint64_t inum;                 /* socket inode */
};

/* rds_info_tcp_socket (41) / rds6_info_tcp_socket (64, no tos) */
struct wire_info_tcp_sock {
	uint8_t local_addr[16];
	uint16_t local_port;
	uint8_t peer_addr[16];
	uint16_t peer_port;
	uint64_t hdr_rem;              /* header bytes still expected */
	uint64_t data_rem;             /* payload bytes still expected */
	uint32_t last_sent_nxt;
	uint32_t last_expected_una;
	uint32_t last_seen_una;
	uint8_t tos;                   /* IPv4 layout only */
};

/* rds_info_rdma_connection (68) / rds6_info_rdma_connection (92): not
 * packed, so two bytes of padding follow sl; they are kept. */
struct wire_info_rdma_conn {
	uint8_t src_addr[16];
	uint8_t dst_addr[16];
	uint8_t src_gid[WIRE_INFO_GID_LEN];
	uint8_t dst_gid[WIRE_INFO_GID_LEN];
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t rdma_mr_max;
	uint32_t rdma_mr_size;
	uint8_t tos;
	uint8_t sl;
	uint8_t pad[2];
	uint32_t cache_allocs;
};

/* One item of any list, tagged by its option number. */
struct wire_info_item {
	unsigned opt;                  /* enum wire_info_opt */
	enum wire_info_kind kind;
	int family;                    /* 4 or 6; 0 for counters */
	union {
		struct wire_info_counter counter;
		struct wire_info_conn conn;
		struct wire_info_msg msg;
		struct wire_info_sock sock;
		struct wire_info_tcp_sock tcp_sock;
		struct wire_info_rdma_conn rdma_conn;
	} u;
};

/* wire_info_item_size() - item size of |opt|; 0 if the kernel registers
 * nothing for it (10002 FLOWS, 10009 CONNECTION_STATS, 10010 IWARP, and
 * numbers outside 10000..10017), where getsockopt gives -ENOPROTOOPT. */
WIRE_API size_t wire_info_item_size(unsigned opt);
/* wire_info_opt_kind() - the layout of |opt|; WIRE_INFO_KIND_NONE if none. */
WIRE_API enum wire_info_kind wire_info_opt_kind(unsigned opt);
/* wire_info_opt_family() - 4 or 6 for the address layout of |opt|; 0 for
 * counters and unknown numbers. */
WIRE_API int wire_info_opt_family(unsigned opt);
/* wire_info_opt_name() - "RDS_INFO_COUNTERS", "RDS6_INFO_SOCKETS", ...;
 * NULL if |opt| has no item layout. */
WIRE_API const char *wire_info_opt_name(unsigned opt);

/*
 * wire_info_decode_<kind>() - one item from the first bytes of |buf|;
 * |family| (4 or 6) picks the uapi layout. IPv4 addresses come out as
 * ::ffff:a.b.c.d.
 * Return: bytes decoded (the item size), WIRE_ERR_TRUNC if |len| is
 * shorter, WIRE_ERR_INVAL (NULL, another family).
 *
 * wire_info_encode_<kind>() - the inverse. In the IPv4 layout an address
 * must be v4-mapped or all zero (written 0.0.0.0), and fields that layout
 * lacks are not written (IPv6: conn.tos, tcp_sock.tos).
 * Return: bytes written, WIRE_ERR_NOSPACE if |cap| is too small,
 * WIRE_ERR_INVAL (NULL, another family, an IPv6 address in the IPv4 layout).
 */
WIRE_API ssize_t wire_info_decode_counter(struct wire_info_counter *c,
					  const uint8_t *buf, size_t len);
WIRE_API ssize_t wire_info_encode_counter(const struct wire_info_counter *c,
					  uint8_t *buf, size_t cap);
WIRE_API ssize_t wire_info_decode_conn(struct wire_info_conn *c, int family,
				       const uint8_t *buf, size_t len);
WIRE_API ssize_t wire_info_encode_conn(const struct wire_info_conn *c, int family,
				       uint8_t *buf, size_t cap);
WIRE_API ssize_t wire_info_decode_msg(struct wire_info_msg *m, int family,
				      const uint8_t *buf, size_t len);
WIRE_API ssize_t wire_info_encode_msg(const struct wire_info_msg *m, int family,
				      uint8_t *buf, size_t cap);
WIRE_API ssize_t wire_info_decode_sock(struct wire_info_sock *s, int family,
				       const uint8_t *buf, size_t len);
WIRE_API ssize_t wire_info_encode_sock(const struct wire_info_sock *s, int family,
				       uint8_t *buf, size_t cap);
WIRE_API ssize_t wire_info_decode_tcp_sock(struct wire_info_tcp_sock *t, int family,
					   const uint8_t *buf, size_t len);
WIRE_API ssize_t wire_info_encode_tcp_sock(const struct wire_info_tcp_sock *t,
					   int family, uint8_t *buf, size_t cap);
WIRE_API ssize_t wire_info_decode_rdma_conn(struct wire_info_rdma_conn *r, int family,
					    const uint8_t *buf, size_t len);
WIRE_API ssize_t wire_info_encode_rdma_conn(const struct wire_info_rdma_conn *r,
					    int family, uint8_t *buf, size_t cap);

/*
 * wire_info_decode() - one item of list |opt| (any kind), tagged.
 * Return: as the per-kind decoders; WIRE_ERR_UNSUPP if |opt| has no layout.
 * wire_info_encode() - the inverse, by it->opt.
 * Return: as the per-kind encoders; WIRE_ERR_UNSUPP if it->opt has no layout.
 */
WIRE_API ssize_t wire_info_decode(struct wire_info_item *it, unsigned opt,
				  const uint8_t *buf, size_t len);
WIRE_API ssize_t wire_info_encode(const struct wire_info_item *it, uint8_t *buf,
				  size_t cap);

/* Walks the array a getsockopt returned. Never allocates. */
struct wire_info_iter {
	const uint8_t *buf;
	size_t len;
	size_t off;
	size_t size;                   /* item size of opt */
	unsigned opt;
};

/*
 * wire_info_iter_init() - prepare to walk |len| bytes of list |opt|
 * (the length getsockopt put in optlen).
 * Return: the number of items; WIRE_ERR_MALFORMED if |len| is not a
 * multiple of the item size (the kernel only ever returns whole items);
 * WIRE_ERR_UNSUPP if |opt| has no layout; WIRE_ERR_INVAL (NULL |it|, or
 * NULL |buf| with a length).
 */
WIRE_API ssize_t wire_info_iter_init(struct wire_info_iter *it, unsigned opt,
				     const uint8_t *buf, size_t len);
/* wire_info_next() - the next item. Return: 1 with |out| filled, 0 at the
 * end, WIRE_ERR_INVAL for NULL arguments or an iterator not initialised. */
WIRE_API int wire_info_next(struct wire_info_iter *it, struct wire_info_item *out);

/*
 * wire_info_answer() - what rds_info_getsockopt() answers when its producer
 * has |count| items of |item_size| bytes and the caller's *optlen was
 * |buflen| (0 is a size probe). The kernel computes in int and takes
 * 4 KiB pages.
 * Return: the getsockopt return value: |item_size| (positive) with
 * *optlen = count * item_size when that fits in |buflen|; -ENOSPC with
 * *optlen = count * item_size when it does not (a probe with items, too;
 * a probe of an empty list answers |item_size| and 0). -EINVAL, *optlen
 * untouched, for |buflen| above INT_MAX - 4095; -ENOPROTOOPT, *optlen
 * untouched, for |item_size| 0 (a number nothing registered). These are
 * negative errno values, not WIRE_ERR_* codes, except WIRE_ERR_INVAL
 * for a NULL |optlen|. Which items reach the buffer on -ENOSPC depends on
 * the list (docs/protocol/info.md).
 */
WIRE_API int wire_info_answer(size_t count, size_t item_size, size_t buflen,
			      size_t *optlen);

/* Counter sets, in the order RDS_INFO_COUNTERS lists them: core, then
 * each loaded transport by transport number (rds_trans_stats_info_copy:
 * IB (0) before TCP (2)). */
enum wire_info_ctrs {
	WIRE_INFO_CTRS_CORE = 0,       /* net/rds/stats.c rds_stat_names */
	WIRE_INFO_CTRS_TCP,            /* tcp_stats.c rds_tcp_stat_names */
	WIRE_INFO_CTRS_IB,             /* ib_stats.c rds_ib_stat_names */
};

/*
 * wire_info_counter_names() - the counter names of |set| as kernel
 * generation |kv| lists them (7.x appends mprds_catchup_tx0_retries to
 * the core set; WIRE_KVER_ALL is 7.x).
 * Return: the number of names, with *names set to a static array; 0 and
 * *names NULL for an unknown set or a NULL |names|.
 */
WIRE_API size_t wire_info_counter_names(enum wire_info_ctrs set, enum wire_kver kv,
					const char *const **names);

/* ------------------------------------------------------------------------
 * The librds monitor protocol (docs/protocol/monitor.md): what a librds
 * process that publishes its monitor state (rdsu_io_monitor()) answers on
 * its local socket, and what rdstop --librds reads. Not an RDS wire
 * format, but bytes from another process all the same: rdstop decodes
 * them here, through the one cursor.
 *
 * Every message is a 12-byte header and |len| bytes of body:
 *
 *    0        4         5      6          8                12
 *    +--------+---------+------+----------+----------------+
 *    | "RDSM" | version | type | reserved | len (be32)     | body ...
 *    +--------+---------+------+----------+----------------+
 *
 * A request (WIRE_MON_REQ) has no body. A snapshot (WIRE_MON_SNAP) is a
 * sequence of records, each a be16 type, a be32 length and that many
 * bytes of value; integers are big-endian, addresses 16 bytes (IPv4 as
 * ::ffff:a.b.c.d). A record longer than its type's fixed part carries
 * fields of a later version at its end, which a reader skips; a record of
 * a type it does not know it skips whole. The last record of a whole
 * snapshot is WIRE_MON_R_END; a publisher that reached its size limit
 * stops before it.
 */
#define WIRE_MON_MAGIC 0x5244534du      /* "RDSM" */
#define WIRE_MON_VERSION 1
#define WIRE_MON_HDR_LEN 12
#define WIRE_MON_REC_HDR_LEN 6
#define WIRE_MON_MAX_BODY (64u << 20)   /* the largest body either end takes */
#define WIRE_MON_NAME_LEN 31            /* longest counter or program name */

enum wire_mon_type {
	WIRE_MON_REQ = 1,                /* please send a snapshot */
	WIRE_MON_SNAP = 2,               /* a snapshot */
};

struct wire_mon_hdr {
	uint8_t version;
	uint8_t type;                    /* enum wire_mon_type */
	uint16_t reserved;
	uint32_t len;                    /* of the body */
};

/*
 * wire_mon_hdr_decode() - a message header from the first bytes of |buf|.
 * Return: WIRE_MON_HDR_LEN; WIRE_ERR_TRUNC (|len| < 12); WIRE_ERR_MALFORMED
 * (not "RDSM"); WIRE_ERR_UNSUPP (another version, whose records may mean
 * other things); WIRE_ERR_TOOBIG (a body above WIRE_MON_MAX_BODY, reported
 * before anything is taken in its name); WIRE_ERR_INVAL (NULL).
 * wire_mon_hdr_encode() - the inverse, magic included.
 * Return: WIRE_MON_HDR_LEN; WIRE_ERR_NOSPACE; WIRE_ERR_INVAL.
 */
WIRE_API ssize_t wire_mon_hdr_decode(struct wire_mon_hdr *h, const uint8_t *buf, size_t len);
WIRE_API ssize_t wire_mon_hdr_encode(const struct wire_mon_hdr *h, uint8_t *buf, size_t cap);

enum wire_mon_rec {
	WIRE_MON_R_PROC = 1,             /* the publishing process; first */
	WIRE_MON_R_COUNTER = 2,          /* one counter */
	WIRE_MON_R_CONN = 3,             /* a connection; its paths follow */
	WIRE_MON_R_PATH = 4,             /* a path of the last connection */
	WIRE_MON_R_MAP = 5,              /* a congestion map */
	WIRE_MON_R_SOCK = 6,             /* a socket */
	WIRE_MON_R_END = 7,              /* the snapshot is whole */
};

/* Fixed value sizes; a value may be longer (later fields), never shorter. */
#define WIRE_MON_PROC_LEN (4 + 4 + 8 + 1 + 1 + WIRE_MON_NAME_LEN)
#define WIRE_MON_COUNTER_LEN (1 + 1 + WIRE_MON_NAME_LEN + 8)
#define WIRE_MON_CONN_LEN (16 + 16 + 1 + 2 + 4 + 4 + 1 + 1 + 4)
#define WIRE_MON_PATH_LEN (1 + 1 + 1 + 2 + 2 + 8 * 3 + 4 + 8 + 4 + 8 + 8 * 5 + 1)
#define WIRE_MON_MAP_LEN (1 + 16 + 4)   /* + WIRE_CONG_MAP_BYTES when set */
#define WIRE_MON_SOCK_LEN (16 + 2 + 1 + 4 + 4 + 8 + 8 + 4)

struct wire_mon_proc {
	uint32_t pid;
	uint32_t laddrs;                 /* local addresses of the endpoint */
	uint64_t now_ns;                 /* the publisher's monotonic clock */
	uint8_t transports;              /* bit RDS_TRANS_TCP (2), RDS_TRANS_IB (0) */
	char name[WIRE_MON_NAME_LEN + 1];  /* program name, NUL-terminated */
};

enum wire_mon_group {
	WIRE_MON_G_CORE = 0,             /* rdsu_stat_name() counters */
	WIRE_MON_G_TCP = 1,              /* the TCP transport's */
	WIRE_MON_G_IB = 2,               /* the IB transport's */
};

struct wire_mon_counter {
	uint8_t group;                   /* enum wire_mon_group */
	char name[WIRE_MON_NAME_LEN + 1];
	uint64_t value;
};

#define WIRE_MON_CONN_WE_CONNECT 0x01
#define WIRE_MON_CONN_SPORT_IDX 0x02    /* the peer advertised SPORT_IDX */
#define WIRE_MON_CONN_PROBE 0x04        /* our probe awaits its answer */
#define WIRE_MON_CONN_FANOUT_HOLD 0x08

struct wire_mon_conn {
	uint8_t laddr[16], faddr[16];
	uint8_t transport;               /* RDS_TRANS_* */
	uint16_t npaths;                 /* 0 until a probe said */
	uint32_t my_gen, peer_gen;       /* peer_gen 0: not seen */
	uint8_t flags;                   /* WIRE_MON_CONN_* */
	uint8_t held_links;
	uint32_t peer_congested;         /* ports set in the peer's map */
};

struct wire_mon_path {
	uint8_t index;
	uint8_t state;                   /* 0 down, 1 connecting, 2 up */
	uint8_t outgoing;                /* 1: this end connected it */
	uint16_t local_sport, peer_sport;
	uint64_t link;                   /* 0: no link */
	uint64_t next_tx_seq, next_rx_seq;
	uint32_t send_q_msgs;
	uint64_t send_q_bytes;
	uint32_t retrans_q_msgs;
	uint64_t retrans_q_bytes;
	uint64_t tx_bytes, acked_bytes, rx_bytes;
	uint64_t connects, resets;
	uint8_t map_queued;
};

enum wire_mon_map_kind {
	WIRE_MON_MAP_LOCAL = 0,          /* the map of local address |addr| */
	WIRE_MON_MAP_PEER = 1,           /* the last connection's peer's */
};

struct wire_mon_map {
	uint8_t kind;                    /* enum wire_mon_map_kind */
	uint8_t addr[16];                /* MAP_LOCAL: the address; else zero */
	uint32_t count;                  /* ports set */
	const uint8_t *bits;             /* WIRE_CONG_MAP_BYTES in the caller's
					  * buffer; NULL when count is 0 */
};

#define WIRE_MON_SOCK_BOUND 0x01
#define WIRE_MON_SOCK_CONGESTED 0x02    /* the local map has its port set */
#define WIRE_MON_SOCK_MONITOR 0x04      /* RDS_CONG_MONITOR on */

struct wire_mon_sock {
	uint8_t laddr[16];
	uint16_t port;
	uint8_t flags;                   /* WIRE_MON_SOCK_* */
	uint32_t sndbuf, rcvbuf;
	uint64_t snd_bytes, rcv_bytes;
	uint32_t rx_msgs;
};

struct wire_mon_item {
	uint16_t type;                   /* enum wire_mon_rec, or one unknown */
	union {
		struct wire_mon_proc proc;
		struct wire_mon_counter counter;
		struct wire_mon_conn conn;
		struct wire_mon_path path;
		struct wire_mon_map map;
		struct wire_mon_sock sock;
	} u;
};

/*
 * wire_mon_rec_decode() - the record at the start of |buf| (a snapshot's
 * body from some record on). A type this library does not know decodes
 * to it->type alone and is skipped whole.
 * Return: bytes of the record (header and value); WIRE_ERR_TRUNC (|len|
 * ends inside it: in a whole body the body is malformed); WIRE_ERR_MALFORMED
 * (a value shorter than its type's fixed part; a name without its NUL or
 * longer than WIRE_MON_NAME_LEN; a map whose bitmap is missing or whose
 * count is not the number of bits set; an END with a value);
 * WIRE_ERR_INVAL (NULL).
 * wire_mon_rec_encode() - the inverse, by it->type.
 * Return: bytes written; WIRE_ERR_NOSPACE; WIRE_ERR_INVAL (NULL, an
 * unknown type, a name too long, a map whose count does not match bits).
 */
WIRE_API ssize_t wire_mon_rec_decode(struct wire_mon_item *it, const uint8_t *buf, size_t len);
WIRE_API ssize_t wire_mon_rec_encode(const struct wire_mon_item *it, uint8_t *buf, size_t cap);

/* ------------------------------------------------------------------------
 * Version
 */
WIRE_API const char *wire_version(void);

#ifdef __cplusplus
}
#endif

#endif /* WIRE_WIRE_H */
