// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * render.c - dump_print_*: rdsdump's records as text (one line, -v, -vv,
 * -X, -XX) and JSON, and the -z statistics. Formats: docs/man/rdsdump.8.md.
 * The field lines and JSON are one description per record type (the field
 * tables and rec_*() below, through tools/common/out.h); the one line is a
 * summary with words of its own.
 */
#define _POSIX_C_SOURCE 200809L

#include "render.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


#include <wire/wire.h>

#include "out.h"

/* ------------------------------------------------------------------------
 * Value names (dump_note_toks, dump_seq_toks and dump_xport_toks live with
 * the engine, engine.c)
 */

/* How the one line and -z tag a flow, tcpdump's way. The JSON names the
 * same transports with dump_xport_toks ("netlink" where this says NL): both
 * are fixed by docs/man/rdsdump.8.md and the golden files. */
static const struct wire_tok flow_toks[] = {
	{ DUMP_XP_TCP, "TCP" },
	{ DUMP_XP_IB, "IB" },
	{ DUMP_XP_NL, "NL" },
	{ 0, NULL },
};

static const struct wire_tok rec_type_toks[] = {
	{ DUMP_REC_MSG, "msg" }, { DUMP_REC_NOTE, "note" }, { DUMP_REC_CM, "cm" },
	{ DUMP_REC_NL, "nl" },   { DUMP_REC_BAD, "bad" },   { DUMP_REC_RDMA, "rdma" },
	{ 0, NULL },
};

/* IB CM REJ reasons an RDS capture is likely to show (IBTA table 112,
 * include/rdma/ib_cm.h IB_CM_REJ_*); others print as numbers only. */
static const struct wire_tok rej_reason_toks[] = {
	{ 1, "no_qp" },
	{ 3, "no_resources" },
	{ 4, "timeout" },
	{ 5, "unsupported" },
	{ 8, "invalid_service_id" },
	{ 10, "stale_conn" },
	{ 28, "consumer" },
	{ 0, NULL },
};

/* The message a REJ rejects (IBTA: 0 REQ, 1 REP, 2 other). */
static const struct wire_tok rej_msg_toks[] = {
	{ 0, "REQ" },
	{ 1, "REP" },
	{ 2, "other" },
	{ 0, NULL },
};
static const char rej_msg_other[] = "other";

/*
 * A peer's string, made printable and kept one token: bytes outside
 * 0x21..0x7e become \xNN and a backslash \\, so the text never splits a
 * line or a field and reads back unambiguously. Stops at NUL or |max|.
 */
static size_t esc_str(char *dst, size_t cap, const char *src, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < max && src[i]; i++) {
		unsigned char c = (unsigned char)src[i];

		if (n + 5 > cap)
			break;
		if (c == '\\') {
			dst[n++] = '\\';
			dst[n++] = '\\';
		} else if (c > 0x20 && c < 0x7f) {
			dst[n++] = (char)c;
		} else {
			dst[n++] = '\\';
			dst[n++] = 'x';
			dst[n++] = wire_hex_digit(c >> 4);
			dst[n++] = wire_hex_digit(c & 15);
		}
	}
	dst[n] = '\0';
	return n;
}

/* An address in a buffer of at least INET6_ADDRSTRLEN bytes. */
static const char *addr_str(char *buf, int family, const uint8_t *a)
{
	if (family == 4) {
		char *w = buf;

		for (int i = 0; i < 4; i++) {
			unsigned v = a[i];

			if (i)
				*w++ = '.';
			if (v >= 100)
				*w++ = (char)('0' + v / 100);
			if (v >= 10)
				*w++ = (char)('0' + v / 10 % 10);
			*w++ = (char)('0' + v % 10);
		}
		*w = '\0';
	} else if (family == 6) {
		if (!inet_ntop(AF_INET6, a, buf, INET6_ADDRSTRLEN))
			strcpy(buf, "?");
	} else if (family == DUMP_FAM_LID) {
		/* decimal, as ibstat and the subnet manager print LIDs */
		snprintf(buf, INET6_ADDRSTRLEN, "lid:%u", (unsigned)a[0] << 8 | a[1]);
	} else {
		strcpy(buf, "?");
	}
	return buf;
}

static void put_addr(struct out *s, int family, const uint8_t *a)
{
	char buf[INET6_ADDRSTRLEN];

	out_puts(s, addr_str(buf, family, a));
}

/* tcpdump's form: 10.0.0.1.16385, and [fd00::1].16385 for IPv6 */
static void put_addr_port(struct out *s, const struct dump_ep *e)
{
	if (e->family == 6)
		out_putc(s, '[');
	put_addr(s, e->family, e->addr);
	if (e->family == 6)
		out_putc(s, ']');
	out_putc(s, '.');
	out_put_u64(s, e->port);
}

static void put_2dig(char *w, unsigned v)
{
	w[0] = (char)('0' + v / 10 % 10);
	w[1] = (char)('0' + v % 10);
}

static void put_usec(struct out *s, uint32_t nsec)
{
	char t[7];
	uint32_t us = nsec / 1000;

	t[0] = '.';
	for (int i = 6; i >= 1; i--) {
		t[i] = (char)('0' + us % 10);
		us /= 10;
	}
	out_putn(s, t, sizeof(t));
}

/* Capture time in nanoseconds; false when a file's timestamp is too far
 * from 1970 for 64 bits (pcapng allows it). */
static bool ts_ns(const struct dump_rec *r, int64_t *out)
{
	int64_t ns;

	if (__builtin_mul_overflow(r->ts_sec, (int64_t)1000000000, &ns) ||
	    __builtin_add_overflow(ns, (int64_t)r->ts_nsec, out))
		return false;
	return true;
}

static void put_ts(struct out *s, const struct dump_render *o, const struct dump_rec *r)
{
	if (o->tsmode == 1)
		return;
	if (o->tsmode == 2) {
		out_put_i64(s, r->ts_sec);
	} else {
		time_t t = (time_t)r->ts_sec;
		struct tm tm;
		char *w;

		if (!localtime_r(&t, &tm))
			memset(&tm, 0, sizeof(tm));
		w = out_room(s, 8);
		put_2dig(w, (unsigned)tm.tm_hour);
		w[2] = ':';
		put_2dig(w + 3, (unsigned)tm.tm_min);
		w[5] = ':';
		put_2dig(w + 6, (unsigned)tm.tm_sec);
		s->n += 8;
	}
	put_usec(s, r->ts_nsec);
	out_putc(s, ' ');
}

static void put_flow(struct out *s, const struct dump_rec *r)
{
	if (r->type == DUMP_REC_BAD) {
		out_puts(s, "frame ");
		out_put_u64(s, r->frame);
		out_puts(s, ": ");
		return;
	}
	out_puts(s, wire_tok_str(flow_toks, r->xp, ""));
	switch (r->xp) {
	case DUMP_XP_TCP:
		out_putc(s, ' ');
		put_addr_port(s, &r->src);
		out_puts(s, " > ");
		put_addr_port(s, &r->dst);
		if (r->path >= 0) {
			out_puts(s, " path ");
			out_put_u64(s, (uint64_t)r->path);
		}
		break;
	case DUMP_XP_IB:
		out_putc(s, ' ');
		put_addr(s, r->src.family, r->src.addr);
		out_puts(s, " > ");
		put_addr(s, r->dst.family, r->dst.addr);
		if (r->type != DUMP_REC_CM) {
			out_puts(s, " qp ");
			out_put_hex(s, r->qpn, 6);
		}
		break;
	case DUMP_XP_NL:
		break;
	}
	out_puts(s, ": ");
}

/* ------------------------------------------------------------------------
 * Rules, worst first
 */

/* Iterate a rule set in severity order (error, warn, info), enum order
 * within one, so the one that matters most is read first. Return: 1 and
 * *out, 0 at the end. */
struct rule_it {
	const struct wire_rules *set;
	int sev;
	unsigned pos;
};

static void rule_it_init(struct rule_it *it, const struct wire_rules *set)
{
	it->set = set;
	it->sev = WIRE_SEV_ERROR;
	it->pos = 0;
}

static int rule_it_next(struct rule_it *it, enum wire_rule *out)
{
	while (it->sev >= WIRE_SEV_INFO) {
		enum wire_rule r;

		while (wire_rules_next(it->set, &it->pos, &r)) {
			const struct wire_rule_info *ri = wire_rule_info(r);
			int sev = ri ? (int)ri->sev : WIRE_SEV_ERROR;

			if (sev == it->sev) {
				*out = r;
				return 1;
			}
		}
		it->sev--;
		it->pos = 0;
	}
	return 0;
}

static const struct wire_tok sev_toks[] = {
	{ WIRE_SEV_ERROR, "error" },
	{ WIRE_SEV_WARN, "warn" },
	{ WIRE_SEV_INFO, "info" },
	{ 0, NULL },
};

/* Names joined by |sep|. */
static void put_rule_list(struct out *s, const struct wire_rules *set, char sep)
{
	struct rule_it it;
	enum wire_rule r;
	bool first = true;

	rule_it_init(&it, set);
	while (rule_it_next(&it, &r)) {
		if (!first)
			out_putc(s, sep);
		first = false;
		out_puts(s, wire_rule_name(r));
	}
}

/* ------------------------------------------------------------------------
 * Fields: one table per record type and nested object
 *
 * A table per JSON object gives its keys in JSON order with their types and
 * the -v count that shows them in text (0: JSON only); rec_*() make one
 * call per field in the order of the text's lines. The labels of the field
 * lines are the JSON keys by construction (the one exception, an
 * extension's "ext", names its array).
 */

#define F(k, t, lv, ...) { .key = (k), .type = (t), .level = (lv), __VA_ARGS__ }

/* Every record starts with these keys and ends with rules and hex. */
enum {
	C_TYPE, C_FRAME, C_TS_NS, C_TS, C_XPORT, C_SRC, C_SPORT, C_DST, C_DPORT,
	C_QPN, C_CONN, C_DIR, C_PATH, C_OFFSET, C_PKT_LEN, C_PKT_CAPLEN, C__N
};

#define COMMON_FIELDS							\
	[C_TYPE] = F("type", OUT_STR, 0, .names = rec_type_toks),	\
	[C_FRAME] = F("frame", OUT_U64, 1),				\
	[C_TS_NS] = F("ts_ns", OUT_I64, 2),				\
	[C_TS] = F("ts", OUT_STR, 0),					\
	[C_XPORT] = F("xport", OUT_STR, 0, .names = dump_xport_toks),	\
	[C_SRC] = F("src", OUT_STR, 0),					\
	[C_SPORT] = F("sport", OUT_U64, 0),				\
	[C_DST] = F("dst", OUT_STR, 0),					\
	[C_DPORT] = F("dport", OUT_U64, 0),				\
	[C_QPN] = F("qpn", OUT_HEX, 1, .digits = 6),			\
	[C_CONN] = F("conn", OUT_I64, 1),				\
	[C_DIR] = F("dir", OUT_I64, 1),					\
	[C_PATH] = F("path", OUT_I64, 1),				\
	[C_OFFSET] = F("offset", OUT_U64, 1),				\
	[C_PKT_LEN] = F("pkt_len", OUT_U64, 2),				\
	[C_PKT_CAPLEN] = F("pkt_caplen", OUT_U64, 2)

#define TAIL_FIELDS(rules, hex)						\
	[rules] = F("rules", OUT_ARRAY, 1, .sep = ','),			\
	[hex] = F("hex", OUT_BYTES, 0)

/* An extension, an element of a message's "ext". */
enum {
	X_TYPE, X_NAME, X_KNOWN, X_OFF, X_LEN, X_VALUE, X_VERSION, X_RKEY,
	X_RDMA_OFFSET, X_RDMA_BYTES, X_RFLAGS, X_NPATHS, X_GEN_NUM, X_CAP_BITS,
	X_SPORT_IDX, X__N
};

static const struct out_field ext_fields[X__N] = {
	[X_TYPE] = F("type", OUT_ENUM, 1, .label = "ext", .names = wire_ext_toks,
		     .unknown = "unknown"),
	[X_NAME] = F("name", OUT_STR, 0, .names = wire_ext_toks),
	[X_KNOWN] = F("known", OUT_BOOL, 1),
	[X_OFF] = F("off", OUT_U64, 2),
	[X_LEN] = F("len", OUT_U64, 2),
	[X_VALUE] = F("value", OUT_BYTES, 2),
	[X_VERSION] = F("version", OUT_HEX, 1, .digits = 8),
	[X_RKEY] = F("rkey", OUT_HEX, 1, .digits = 8),
	[X_RDMA_OFFSET] = F("rdma_offset", OUT_U64, 1),
	[X_RDMA_BYTES] = F("rdma_bytes", OUT_U64, 1),
	[X_RFLAGS] = F("rflags", OUT_HEX, 1, .digits = 2),
	[X_NPATHS] = F("npaths", OUT_U64, 1),
	[X_GEN_NUM] = F("gen_num", OUT_HEX, 1, .digits = 8),
	[X_CAP_BITS] = F("cap_bits", OUT_HEX, 1, .digits = 8),
	[X_SPORT_IDX] = F("sport_idx", OUT_U64, 1),
};
static const struct out_group ext_group = OUT_GROUP("ext", ext_fields);

/* A change of the congestion map, an element of "changes". */
enum { CH_FIRST, CH_LAST, CH_STATE, CH__N };

static const struct wire_tok cong_state_toks[] = {
	{ 0, "free" }, { 1, "congested" }, { 0, NULL },
};

static const struct out_field change_fields[CH__N] = {
	[CH_FIRST] = F("first", OUT_U64, 0),
	[CH_LAST] = F("last", OUT_U64, 0),
	[CH_STATE] = F("state", OUT_STR, 0, .names = cong_state_toks),
};
static const struct out_group change_group = OUT_GROUP("change", change_fields);

/* A map's "cong" object. */
enum { G_MAP, G_CONGESTED, G_NCHANGES, G_FIRST_MAP, G_CHANGES, G__N };

static const struct out_field cong_fields[G__N] = {
	[G_MAP] = F("map", OUT_BOOL, 1),
	[G_CONGESTED] = F("congested", OUT_U64, 1),
	[G_NCHANGES] = F("nchanges", OUT_U64, 1),
	[G_FIRST_MAP] = F("first_map", OUT_BOOL, 1),
	/* text: +FIRST[-LAST] became congested, -FIRST[-LAST] free */
	[G_CHANGES] = F("changes", OUT_ARRAY, 2, .sub = &change_group),
};
static const struct out_group cong_group = OUT_GROUP("cong", cong_fields);

enum {
	M_KIND = C__N, M_SEQ, M_ACK, M_LEN, M_RDS_SPORT, M_RDS_DPORT, M_FLAGS,
	M_FLAG_NAMES, M_CREDIT, M_CSUM, M_PAD, M_EXTHDR, M_EXT, M_EXT_END,
	M_EXT_OVERRUN, M_EXT_STOPPED_HIGH, M_SEQ_STATE, M_SEQ_EXPECTED, M_AGAIN,
	M_CAPLEN, M_INCOMPLETE, M_FRAGS, M_SEGS, M_ICRC_OK, M_CONN_NPATHS,
	M_GEN_CHANGED, M_GEN_PREV, M_CONG, M_RDMA_OPS, M_RDMA_BYTES,
	M_RDMA_UNMATCHED, M_RULES, M_HEX, M__N
};

static const struct out_field msg_fields[M__N] = {
	COMMON_FIELDS,
	[M_KIND] = F("kind", OUT_STR, 1, .names = wire_kind_toks),
	[M_SEQ] = F("seq", OUT_U64, 1),
	[M_ACK] = F("ack", OUT_U64, 1),
	[M_LEN] = F("len", OUT_U64, 1),
	[M_RDS_SPORT] = F("rds_sport", OUT_U64, 1),
	[M_RDS_DPORT] = F("rds_dport", OUT_U64, 1),
	[M_FLAGS] = F("flags", OUT_FLAGS, 1, .digits = 2, .names = wire_flag_toks),
	[M_FLAG_NAMES] = F("flag_names", OUT_ARRAY, 0, .names = wire_flag_toks),
	[M_CREDIT] = F("credit", OUT_U64, 1),
	[M_CSUM] = F("csum", OUT_HEX, 1, .digits = 4),
	[M_PAD] = F("pad", OUT_BYTES, 2),
	[M_EXTHDR] = F("exthdr", OUT_BYTES, 2),
	[M_EXT] = F("ext", OUT_ARRAY, 1, .sub = &ext_group),
	[M_EXT_END] = F("ext_end", OUT_U64, 2),
	[M_EXT_OVERRUN] = F("ext_overrun", OUT_BOOL, 2),
	[M_EXT_STOPPED_HIGH] = F("ext_stopped_high", OUT_BOOL, 2),
	[M_SEQ_STATE] = F("seq_state", OUT_STR, 1, .names = dump_seq_toks),
	[M_SEQ_EXPECTED] = F("seq_expected", OUT_U64, 1),
	[M_AGAIN] = F("again", OUT_BOOL, 1),
	[M_CAPLEN] = F("caplen", OUT_U64, 1),
	[M_INCOMPLETE] = F("incomplete", OUT_BOOL, 1),
	[M_FRAGS] = F("frags", OUT_U64, 1),
	[M_SEGS] = F("segs", OUT_U64, 1),
	[M_ICRC_OK] = F("icrc_ok", OUT_BOOL, 1),
	[M_CONN_NPATHS] = F("conn_npaths", OUT_U64, 1),
	[M_GEN_CHANGED] = F("gen_changed", OUT_BOOL, 1),
	[M_GEN_PREV] = F("gen_prev", OUT_HEX, 1, .digits = 8),
	[M_CONG] = F("cong", OUT_OBJECT, 1, .sub = &cong_group),
	[M_RDMA_OPS] = F("rdma_ops", OUT_U64, 1),
	[M_RDMA_BYTES] = F("rdma_bytes", OUT_U64, 1),
	[M_RDMA_UNMATCHED] = F("rdma_unmatched", OUT_U64, 1),
	TAIL_FIELDS(M_RULES, M_HEX),
};

enum { N_NOTE = C__N, N_LEN, N_AUX, N_RULES, N_HEX, N__N };

static const struct out_field note_fields[N__N] = {
	COMMON_FIELDS,
	[N_NOTE] = F("note", OUT_STR, 1, .names = dump_note_toks),
	[N_LEN] = F("len", OUT_U64, 1),
	[N_AUX] = F("aux", OUT_U64, 1),
	TAIL_FIELDS(N_RULES, N_HEX),
};

/* The RDS private data of a CM REQ or REP, "pd". */
enum {
	P_FAMILY, P_SADDR, P_DADDR, P_MAJOR, P_MINOR, P_MINOR_MASK, P_TOS,
	P_RESERVED1, P_RESERVED2, P_ACK_SEQ, P_CREDIT, P_PAD, P_EXTRA, P__N
};

static const struct out_field pd_fields[P__N] = {
	[P_FAMILY] = F("family", OUT_U64, 1),
	[P_SADDR] = F("saddr", OUT_STR, 1),
	[P_DADDR] = F("daddr", OUT_STR, 1),
	[P_MAJOR] = F("major", OUT_U64, 1),
	[P_MINOR] = F("minor", OUT_U64, 1),
	[P_MINOR_MASK] = F("minor_mask", OUT_HEX, 1, .digits = 4),
	[P_TOS] = F("tos", OUT_U64, 1),
	[P_RESERVED1] = F("reserved1", OUT_U64, 2),
	[P_RESERVED2] = F("reserved2", OUT_U64, 2),
	[P_ACK_SEQ] = F("ack_seq", OUT_U64, 1),
	[P_CREDIT] = F("credit", OUT_U64, 1),
	[P_PAD] = F("pad", OUT_BYTES, 2),
	[P_EXTRA] = F("extra", OUT_U64, 2),
};
static const struct out_group pd_group = OUT_GROUP("pd", pd_fields);

enum {
	CM_CM = C__N, CM_ATTR_ID, CM_BASE_VERSION, CM_MGMT_CLASS, CM_CLASS_VERSION,
	CM_METHOD, CM_STATUS, CM_TID, CM_ATTR_MOD, CM_LOCAL_COMM_ID,
	CM_REMOTE_COMM_ID, CM_SERVICE_ID, CM_LOCAL_QPN, CM_STARTING_PSN,
	CM_REMOTE_QPN, CM_REJ_REASON, CM_REJ_MSG, CM_PRIVATE_LEN, CM_CMA_VERSION,
	CM_CMA_IP_VERSION, CM_CMA_PORT, CM_CMA_SRC, CM_CMA_DST, CM_PD, CM_VERSION,
	CM_RULES, CM_HEX, CM__N
};

static const struct out_field cm_fields[CM__N] = {
	COMMON_FIELDS,
	[CM_CM] = F("cm", OUT_STR, 0, .names = wire_ibcm_attr_toks),
	[CM_ATTR_ID] = F("attr_id", OUT_HEX, 1, .digits = 4, .names = wire_ibcm_attr_toks),
	[CM_BASE_VERSION] = F("base_version", OUT_U64, 2),
	[CM_MGMT_CLASS] = F("mgmt_class", OUT_HEX, 2, .digits = 2),
	[CM_CLASS_VERSION] = F("class_version", OUT_U64, 2),
	[CM_METHOD] = F("method", OUT_HEX, 2, .digits = 2),
	[CM_STATUS] = F("status", OUT_HEX, 2, .digits = 4),
	[CM_TID] = F("tid", OUT_HEX, 2, .digits = 16),
	[CM_ATTR_MOD] = F("attr_mod", OUT_HEX, 2, .digits = 8),
	[CM_LOCAL_COMM_ID] = F("local_comm_id", OUT_HEX, 1, .digits = 8),
	[CM_REMOTE_COMM_ID] = F("remote_comm_id", OUT_HEX, 1, .digits = 8),
	[CM_SERVICE_ID] = F("service_id", OUT_HEX, 1, .digits = 16),
	[CM_LOCAL_QPN] = F("local_qpn", OUT_HEX, 1, .digits = 6),
	[CM_STARTING_PSN] = F("starting_psn", OUT_HEX, 1, .digits = 6),
	[CM_REMOTE_QPN] = F("remote_qpn", OUT_HEX, 1, .digits = 6),
	[CM_REJ_REASON] = F("rej_reason", OUT_ENUM, 1, .style = OUT_NAME_PAREN,
			    .names = rej_reason_toks),
	[CM_REJ_MSG] = F("rej_msg", OUT_ENUM, 1, .names = rej_msg_toks,
			 .unknown = rej_msg_other),
	[CM_PRIVATE_LEN] = F("private_len", OUT_U64, 1),
	[CM_CMA_VERSION] = F("cma_version", OUT_U64, 1),
	[CM_CMA_IP_VERSION] = F("cma_ip_version", OUT_U64, 1),
	[CM_CMA_PORT] = F("cma_port", OUT_U64, 1),
	[CM_CMA_SRC] = F("cma_src", OUT_STR, 1),
	[CM_CMA_DST] = F("cma_dst", OUT_STR, 1),
	[CM_PD] = F("pd", OUT_OBJECT, 1, .sub = &pd_group),
	[CM_VERSION] = F("version", OUT_STR, 1),
	TAIL_FIELDS(CM_RULES, CM_HEX),
};

/* A path record of a netlink response, an element of "path_records". */
enum { PR_FLAGS, PR_RESERVED, PR_REC, PR__N };

static const struct out_field path_fields[PR__N] = {
	[PR_FLAGS] = F("flags", OUT_HEX, 2, .digits = 8),
	[PR_RESERVED] = F("reserved", OUT_U64, 2),
	[PR_REC] = F("rec", OUT_BYTES, 2),
};
static const struct out_group path_group = OUT_GROUP("path_record", path_fields);

enum {
	NL_CLIENT = C__N, NL_OP, NL_OP_NAME, NL_NL_LEN, NL_NL_TYPE, NL_NL_FLAGS,
	NL_SEQ, NL_PID, NL_REQUEST, NL_ERROR, NL_DEV, NL_PORT, NL_PATH_USE,
	NL_RESOLVE_PAD, NL_IFINDEX, NL_ATTRS, NL_MANDATORY, NL_TIMEOUT,
	NL_SERVICE_ID, NL_DGID, NL_SGID, NL_TCLASS, NL_PKEY, NL_QOS_CLASS,
	NL_IPV4, NL_IPV6, NL_PATHS, NL_PATH_RECORDS, NL_RULES, NL_HEX, NL__N
};

static const struct out_field nl_fields[NL__N] = {
	COMMON_FIELDS,
	[NL_CLIENT] = F("client", OUT_U64, 1),
	[NL_OP] = F("op", OUT_ENUM, 1, .names = wire_nl_op_toks),
	[NL_OP_NAME] = F("op_name", OUT_STR, 0, .names = wire_nl_op_toks),
	[NL_NL_LEN] = F("nl_len", OUT_U64, 1),
	[NL_NL_TYPE] = F("nl_type", OUT_HEX, 1, .digits = 4),
	[NL_NL_FLAGS] = F("nl_flags", OUT_HEX, 1, .digits = 4),
	[NL_SEQ] = F("seq", OUT_U64, 1),
	[NL_PID] = F("pid", OUT_U64, 1),
	[NL_REQUEST] = F("request", OUT_BOOL, 1),
	[NL_ERROR] = F("error", OUT_BOOL, 1),
	[NL_DEV] = F("dev", OUT_STR, 1),
	[NL_PORT] = F("port", OUT_U64, 1),
	[NL_PATH_USE] = F("path_use", OUT_U64, 1),
	[NL_RESOLVE_PAD] = F("resolve_pad", OUT_BYTES, 2),
	[NL_IFINDEX] = F("ifindex", OUT_U64, 1),
	[NL_ATTRS] = F("attrs", OUT_ARRAY, 1, .sep = ',', .names = wire_nl_attr_toks),
	[NL_MANDATORY] = F("mandatory", OUT_ARRAY, 1, .sep = ',', .names = wire_nl_attr_toks),
	[NL_TIMEOUT] = F("timeout", OUT_U64, 1),
	[NL_SERVICE_ID] = F("service_id", OUT_HEX, 1, .digits = 16),
	[NL_DGID] = F("dgid", OUT_STR, 1),
	[NL_SGID] = F("sgid", OUT_STR, 1),
	[NL_TCLASS] = F("tclass", OUT_U64, 1),
	[NL_PKEY] = F("pkey", OUT_HEX, 1, .digits = 4),
	[NL_QOS_CLASS] = F("qos_class", OUT_U64, 1),
	[NL_IPV4] = F("ipv4", OUT_STR, 1),
	[NL_IPV6] = F("ipv6", OUT_STR, 1),
	[NL_PATHS] = F("paths", OUT_U64, 1),
	[NL_PATH_RECORDS] = F("path_records", OUT_ARRAY, 2, .sub = &path_group),
	TAIL_FIELDS(NL_RULES, NL_HEX),
};

enum {
	R_OP = C__N, R_RKEY, R_VA, R_LEN, R_BYTES, R_PACKETS, R_PSN, R_SWAP_ADD,
	R_COMPARE, R_RULES, R_HEX, R__N
};

static const struct out_field rdma_fields[R__N] = {
	COMMON_FIELDS,
	[R_OP] = F("op", OUT_STR, 1, .names = dump_rdma_op_toks),
	[R_RKEY] = F("rkey", OUT_HEX, 1, .digits = 8),
	[R_VA] = F("va", OUT_HEX, 1, .digits = 16),
	[R_LEN] = F("len", OUT_U64, 1),
	[R_BYTES] = F("bytes", OUT_U64, 1),
	[R_PACKETS] = F("packets", OUT_U64, 1),
	[R_PSN] = F("psn", OUT_HEX, 1, .digits = 6),
	[R_SWAP_ADD] = F("swap_add", OUT_HEX, 1, .digits = 16),
	[R_COMPARE] = F("compare", OUT_HEX, 1, .digits = 16),
	TAIL_FIELDS(R_RULES, R_HEX),
};

enum { B_LAYER = C__N, B_ERROR, B_ERR, B_RULES, B_HEX, B__N };

static const struct out_field bad_fields[B__N] = {
	COMMON_FIELDS,
	[B_LAYER] = F("layer", OUT_STR, 1),
	[B_ERROR] = F("error", OUT_QUOTED, 1),
	[B_ERR] = F("err", OUT_I64, 1),
	TAIL_FIELDS(B_RULES, B_HEX),
};

#undef F

static const struct out_group rec_groups[] = {
	[DUMP_REC_MSG] = OUT_GROUP("msg", msg_fields),
	[DUMP_REC_NOTE] = OUT_GROUP("note", note_fields),
	[DUMP_REC_CM] = OUT_GROUP("cm", cm_fields),
	[DUMP_REC_NL] = OUT_GROUP("nl", nl_fields),
	[DUMP_REC_BAD] = OUT_GROUP("bad", bad_fields),
	[DUMP_REC_RDMA] = OUT_GROUP("rdma", rdma_fields),
};

const struct out_group *dump_rec_fields(enum dump_rec_type t)
{
	if ((unsigned)t >= sizeof(rec_groups) / sizeof(rec_groups[0]) || !rec_groups[t].f)
		return NULL;
	return &rec_groups[t];
}

static bool has_addr(int family)
{
	return family == 4 || family == 6 || family == DUMP_FAM_LID;
}

/* An address, or JSON null and text "?" for a family that is none. */
static void f_addr(struct out *o, unsigned id, int family, const uint8_t *a)
{
	char buf[INET6_ADDRSTRLEN];

	out_str(o, id, has_addr(family) ? addr_str(buf, family, a) : NULL);
}

/* The attributes of |which|, by name (or number). */
static void nl_attrs(struct out *o, unsigned id, const bool *which)
{
	out_arr_open(o, id);
	for (unsigned i = 0; i < WIRE_NL_LS_ATTR_MAX; i++)
		if (which[i])
			out_elem_name(o, i);
	out_close(o);
}

/* ------------------------------------------------------------------------
 * One line
 */

/* A known extension's values, the same in the one line and -v; the one
 * line says the RDMA_BYTES direction in words. Return: false for a type
 * with no values. */
static bool ext_values(struct out *o, const struct wire_ext *e)
{
	switch (e->type) {
	case WIRE_EXT_VERSION:
		out_hex(o, X_VERSION, e->u.version);
		return true;
	case WIRE_EXT_RDMA:
		out_hex(o, X_RKEY, e->u.rdma_rkey);
		return true;
	case WIRE_EXT_RDMA_DEST:
		out_hex(o, X_RKEY, e->u.rdma_dest.rkey);
		out_u64(o, X_RDMA_OFFSET, e->u.rdma_dest.offset);
		return true;
	case WIRE_EXT_RDMA_BYTES:
		out_u64(o, X_RDMA_BYTES, e->u.rdma_bytes.bytes);
		if (!o->line) {
			out_hex(o, X_RFLAGS, e->u.rdma_bytes.rflags);
			return true;
		}
		if (e->u.rdma_bytes.rflags & WIRE_RDMA_WR_BYTES)
			out_puts(o, " write");
		if (e->u.rdma_bytes.rflags & WIRE_RDMA_RD_BYTES)
			out_puts(o, " read");
		return true;
	case WIRE_EXT_NPATHS:
		out_u64(o, X_NPATHS, e->u.npaths);
		return true;
	case WIRE_EXT_GEN_NUM:
		out_hex(o, X_GEN_NUM, e->u.gen_num);
		return true;
	case WIRE_EXT_CAP_BITS:
		out_hex(o, X_CAP_BITS, e->u.cap_bits);
		return true;
	case WIRE_EXT_SPORT_IDX:
		out_u64(o, X_SPORT_IDX, e->u.sport_idx);
		return true;
	default:
		return false;
	}
}

/* Known extensions' values, in the order they sit in the header. */
static void line_exts(struct out *s, const struct wire_exts *x)
{
	out_arr_open(s, M_EXT);
	for (unsigned i = 0; i < x->count; i++) {
		const struct wire_ext *e = &x->e[i];

		if (!e->known)
			continue;
		out_elem_obj(s);
		if (!ext_values(s, e)) {
			out_puts(s, " ext ");
			out_put_u64(s, e->type);
		}
		out_close(s);
	}
	out_close(s);
}

static const struct wire_cong_map zero_map;

static const struct wire_cong_map *cong_old(const struct dump_msg *m)
{
	return m->cong_prev ? m->cong_prev : &zero_map;
}

static void put_range(struct out *s, const struct wire_port_range *pr)
{
	out_put_u64(s, pr->first);
	if (pr->last != pr->first) {
		out_putc(s, '-');
		out_put_u64(s, pr->last);
	}
}

static void line_cong(struct out *s, const struct dump_msg *m)
{
	struct wire_port_range pr;
	uint32_t pos = 0;
	size_t n = 0;

	out_puts(s, ": ");
	if (!m->cong_cur) {
		out_puts(s, m->hdr.len == WIRE_CONG_MAP_BYTES ? "map not captured" : "not a map");
		return;
	}
	while (wire_cong_diff_next(cong_old(m), m->cong_cur, &pos, &pr)) {
		if (n < DUMP_CONG_RANGES_MAX) {
			out_puts(s, n ? ", " : "ports ");
			put_range(s, &pr);
			out_puts(s, pr.congested ? " congested" : " free");
		}
		n++;
	}
	if (!n) {
		/* a first map is news even when it holds nothing */
		out_puts(s, m->cong_prev ? "no change" : "all ports free");
	} else if (n > DUMP_CONG_RANGES_MAX) {
		out_puts(s, " ... (");
		out_put_u64(s, n - DUMP_CONG_RANGES_MAX);
		out_puts(s, " more)");
	}
}

static void line_msg(struct out *s, const struct dump_rec *r)
{
	const struct dump_msg *m = &r->u.msg;
	const struct wire_hdr *h = &m->hdr;

	out_puts(s, wire_kind_name(m->kind));
	if (m->kind == WIRE_KIND_ACK) {
		out_putc(s, ' ');
		out_put_u64(s, h->ack);
		out_puts(s, " credit ");
		out_put_u64(s, h->credit);
	} else {
		if (m->kind != WIRE_KIND_CONG) {
			out_putc(s, ' ');
			out_put_u64(s, h->sport);
			out_puts(s, " > ");
			out_put_u64(s, h->dport);
		}
		out_u64(s, M_SEQ, h->seq);
		out_u64(s, M_LEN, h->len);
	}
	/* a map is exactly CONG_BITMAP: nothing to say; anything else shows */
	if (h->flags && m->kind != WIRE_KIND_CONG) {
		out_putc(s, ' ');
		out_put_flags(s, wire_flag_toks, h->flags, 2);
	}
	if (r->xp == DUMP_XP_IB && m->frags > 1)
		out_u64(s, M_FRAGS, m->frags);
	if (m->kind != WIRE_KIND_ACK) {
		if (h->ack)
			out_u64(s, M_ACK, h->ack);
		if (h->credit)
			out_u64(s, M_CREDIT, h->credit);
	}
	line_exts(s, &m->exts);
	switch (m->seq) {
	case DUMP_SEQ_DUP:
		out_puts(s, " dup (a kernel drops it)");
		break;
	case DUMP_SEQ_SKIP:
		out_puts(s, " skip ");
		out_put_u64(s, h->seq - m->seq_expected);
		break;
	case DUMP_SEQ_BACK:
		out_puts(s, " back from ");
		out_put_u64(s, m->seq_expected);
		break;
	default:
		break;
	}
	if (m->again)
		out_puts(s, " again (delivered twice)");
	if (m->gen_changed) {
		out_puts(s, " gen_num changed ");
		out_put_hex(s, m->gen_prev, 8);
		out_puts(s, " -> ");
		out_put_hex(s, m->exts.gen_num, 8);
	}
	if (m->incomplete)
		out_puts(s, " incomplete");
	if (m->rdma_ops) {
		out_puts(s, " rdma_ops ");
		out_put_u64(s, m->rdma_ops);
		out_puts(s, " (");
		out_put_u64(s, m->rdma_bytes);
		out_puts(s, " bytes)");
	}
	if (m->rdma_unmatched) {
		out_puts(s, " rdma_unmatched ");
		out_put_u64(s, m->rdma_unmatched);
	}
	if (m->kind == WIRE_KIND_CONG)
		line_cong(s, m);
}

/* "rdma write rkey 0x00000400 va 0x0000000000000064 len 13288 packets 13" */
static void line_rdma(struct out *s, const struct dump_rec *r)
{
	const struct dump_rdma_rec *a = &r->u.rdma;

	out_puts(s, "rdma ");
	out_puts(s, wire_tok_str(dump_rdma_op_toks, a->op, "?"));
	if (a->op != DUMP_RDMA_READ_RESP) {
		out_puts(s, " rkey ");
		out_put_hex(s, a->rkey, 8);
		out_puts(s, " va ");
		out_put_hex(s, a->va, 16);
		out_u64(s, R_LEN, a->len);
	}
	if (a->op == DUMP_RDMA_WRITE || a->op == DUMP_RDMA_READ_RESP) {
		out_u64(s, R_BYTES, a->bytes);
		out_u64(s, R_PACKETS, a->packets);
	}
	if (a->op == DUMP_RDMA_CSWP || a->op == DUMP_RDMA_FADD) {
		out_puts(s, a->op == DUMP_RDMA_FADD ? " add " : " swap ");
		out_put_hex(s, a->swap_add, 16);
		if (a->op == DUMP_RDMA_CSWP) {
			out_puts(s, " compare ");
			out_put_hex(s, a->compare, 16);
		}
	}
}

/* A note's one-line words, and what follows them: nothing, its length in
 * bytes, or the PSN it names. The notes with a sentence of their own are
 * line_note()'s cases. */
enum note_tail { NOTE_ALONE, NOTE_BYTES, NOTE_PSN };
static const struct {
	const char *words;
	enum note_tail tail;
} note_lines[DUMP_NOTE__COUNT] = {
	[DUMP_NOTE_SYN] = { "tcp syn", NOTE_ALONE },
	[DUMP_NOTE_FIN] = { "tcp fin", NOTE_ALONE },
	[DUMP_NOTE_RST] = { "tcp rst", NOTE_ALONE },
	[DUMP_NOTE_REOPEN] = { "tcp reopen", NOTE_ALONE },
	[DUMP_NOTE_MIDSTREAM] = { "midstream", NOTE_ALONE },
	[DUMP_NOTE_GAP] = { "gap ", NOTE_BYTES },
	[DUMP_NOTE_TRUNC] = { "trunc ", NOTE_BYTES },
	[DUMP_NOTE_RESYNC] = { "resync skipped ", NOTE_BYTES },
	[DUMP_NOTE_RETRANS] = { "retrans ", NOTE_BYTES },
	[DUMP_NOTE_CONFLICT] = { "conflict ", NOTE_BYTES },
	[DUMP_NOTE_AFTER_FIN] = { "after fin ", NOTE_BYTES },
	[DUMP_NOTE_PSN_DUP] = { "psn dup ", NOTE_PSN },
	[DUMP_NOTE_FRAG_ERR] = { "fragments do not reassemble", NOTE_ALONE },
	[DUMP_NOTE_PATH_REFUSED] = { "path refused (no free slot)", NOTE_ALONE },
	[DUMP_NOTE_LARGER] = { "opened by the larger address", NOTE_ALONE },
};

static void line_note(struct out *s, const struct dump_rec *r)
{
	const struct dump_note_rec *n = &r->u.note;

	switch (n->what) {
	case DUMP_NOTE_IGNORED:
		out_puts(s, "ignored ");
		out_put_u64(s, n->len);
		out_puts(s, " bytes at seq ");
		out_put_u64(s, n->aux);
		return;
	case DUMP_NOTE_PARTIAL:
		out_puts(s, "partial message: ");
		out_put_u64(s, n->len);
		out_puts(s, " of ");
		out_put_u64(s, n->aux);
		out_puts(s, " bytes");
		return;
	case DUMP_NOTE_DESYNC:
		out_puts(s, "desync: h_len ");
		out_put_u64(s, n->len);
		out_puts(s, " above limit");
		return;
	case DUMP_NOTE_PSN_GAP:
		out_puts(s, "psn gap ");
		out_put_u64(s, n->len);
		out_puts(s, " packets before ");
		out_put_hex(s, n->aux, 6);
		return;
	default:
		break;
	}
	if ((unsigned)n->what >= DUMP_NOTE__COUNT || !note_lines[n->what].words) {
		out_puts(s, "note ");
		out_put_u64(s, (uint64_t)n->what);
		return;
	}
	out_puts(s, note_lines[n->what].words);
	if (note_lines[n->what].tail == NOTE_BYTES) {
		out_put_u64(s, n->len);
		out_puts(s, " bytes");
	} else if (note_lines[n->what].tail == NOTE_PSN) {
		out_put_hex(s, n->aux, 6);
	}
}

static void put_version(struct out *s, uint16_t v)
{
	if (!v) {
		out_puts(s, "reject");
		return;
	}
	out_put_u64(s, v >> 8);
	out_putc(s, '.');
	out_put_u64(s, v & 0xff);
}

static bool cm_has_version(const struct wire_ibcm *cm)
{
	return cm->attr_id == WIRE_IBCM_REQ || cm->attr_id == WIRE_IBCM_REP;
}

static void line_cm(struct out *s, const struct dump_rec *r)
{
	const struct dump_cm_rec *c = &r->u.cm;
	const struct wire_ibcm *cm = c->cm;
	const char *name;

	out_puts(s, "cm ");
	if (!cm) {
		out_puts(s, "?");
		return;
	}
	name = wire_ibcm_attr_name(cm->attr_id);
	if (name) {
		out_puts(s, name);
	} else {
		out_puts(s, "attr ");
		out_put_hex(s, cm->attr_id, 4);
	}
	switch (cm->attr_id) {
	case WIRE_IBCM_REQ:
		out_puts(s, " service ");
		out_put_hex(s, cm->service_id, 16);
		__attribute__((fallthrough));
	case WIRE_IBCM_REP:
		out_puts(s, " qpn ");
		out_put_hex(s, cm->local_qpn, 6);
		out_puts(s, " psn ");
		out_put_hex(s, cm->starting_psn, 6);
		break;
	case WIRE_IBCM_REJ:
		out_puts(s, " reason ");
		out_put_u64(s, cm->rej_reason);
		name = wire_tok_name(rej_reason_toks, cm->rej_reason);
		if (name) {
			out_puts(s, " (");
			out_puts(s, name);
			out_putc(s, ')');
		}
		out_puts(s, " msg ");
		out_puts(s, wire_tok_str(rej_msg_toks, cm->rej_msg, rej_msg_other));
		break;
	case WIRE_IBCM_DREQ:
		out_puts(s, " qpn ");
		out_put_hex(s, cm->remote_qpn, 6);
		break;
	default:
		break;
	}
	if (c->pd) {
		out_puts(s, " rds ");
		out_put_u64(s, c->pd->major);
		out_putc(s, '.');
		out_put_u64(s, c->pd->minor);
		out_puts(s, " mask ");
		out_put_hex(s, c->pd->minor_mask, 4);
		out_puts(s, " credit ");
		out_put_u64(s, c->pd->credit);
	}
	if (cm_has_version(cm)) {
		out_puts(s, " -> ");
		put_version(s, c->version);
	}
}

static void line_nl(struct out *s, const struct dump_rec *r)
{
	const struct wire_nl_ls *nl = r->u.nl;
	const char *op;

	if (!nl) {
		out_puts(s, "ls ?");
		return;
	}
	op = nl->client == WIRE_NL_CLIENT_LS ? wire_nl_op_name(nl->op) : NULL;
	if (nl->client != WIRE_NL_CLIENT_LS) {
		out_puts(s, "nl");
		out_u64(s, NL_CLIENT, nl->client);
	} else {
		out_puts(s, "ls");
	}
	if (op) {
		out_putc(s, ' ');
		out_puts(s, op);
	} else {
		out_u64(s, NL_OP, nl->op);
	}
	out_puts(s, nl->is_request ? " request" : " response");
	out_u64(s, NL_SEQ, nl->nl_seq);
	out_u64(s, NL_PID, nl->nl_pid);
	if (nl->is_err)
		out_puts(s, " error");
	if (nl->has_resolve_hdr) {
		char buf[WIRE_NL_DEVICE_NAME_MAX * 4 + 1];

		esc_str(buf, sizeof(buf), nl->device_name, WIRE_NL_DEVICE_NAME_MAX);
		out_str(s, NL_DEV, buf);
		out_u64(s, NL_PORT, nl->port_num);
	}
	if (nl->has_ip_resolve_hdr)
		out_u64(s, NL_IFINDEX, nl->ifindex);
	if (nl->present[WIRE_NL_LS_TIMEOUT])
		out_u64(s, NL_TIMEOUT, nl->timeout);
	if (nl->present[WIRE_NL_LS_IPV4])
		f_addr(s, NL_IPV4, 4, nl->ipv4);
	if (nl->present[WIRE_NL_LS_IPV6])
		f_addr(s, NL_IPV6, 6, nl->ipv6);
	if (nl->is_request) {
		nl_attrs(s, NL_ATTRS, nl->present);
	} else {
		if (nl->present[WIRE_NL_LS_PATH_RECORD])
			out_u64(s, NL_PATHS, nl->npaths);
		if (nl->present[WIRE_NL_LS_DGID])
			f_addr(s, NL_DGID, 6, nl->dgid);
	}
}

static void line_bad(struct out *s, const struct dump_rec *r)
{
	out_puts(s, r->u.bad.layer ? r->u.bad.layer : "?");
	out_puts(s, ": ");
	out_puts(s, wire_strerror(r->u.bad.err));
}

/* ------------------------------------------------------------------------
 * Field lines (-v, -vv) and JSON: a call per field, in text order
 */

static void rec_common(struct out *o, const struct dump_rec *r)
{
	int64_t ns;
	bool ok = ts_ns(r, &ns);

	if (out_is_json(o)) {
		time_t t = (time_t)r->ts_sec;
		struct tm tm;
		char iso[64];

		out_str(o, C_TYPE, wire_tok_str(rec_type_toks, r->type, "?"));
		if (gmtime_r(&t, &tm)) {
			snprintf(iso, sizeof(iso), "%04d-%02d-%02dT%02d:%02d:%02d.%09uZ",
				 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
				 tm.tm_min, tm.tm_sec, (unsigned)r->ts_nsec);
			out_str(o, C_TS, iso);
		} else {
			out_null(o, C_TS);
		}
		out_str(o, C_XPORT, dump_xport_name(r->xp));
		f_addr(o, C_SRC, r->src.family, r->src.addr);
		if (r->src.family == 4 || r->src.family == 6)
			out_u64(o, C_SPORT, r->src.port);
		else
			out_null(o, C_SPORT);
		f_addr(o, C_DST, r->dst.family, r->dst.addr);
		if (r->dst.family == 4 || r->dst.family == 6)
			out_u64(o, C_DPORT, r->dst.port);
		else
			out_null(o, C_DPORT);
	}
	out_u64(o, C_FRAME, r->frame);
	if (r->conn >= 0) {
		out_i64(o, C_CONN, r->conn);
		out_i64(o, C_DIR, r->dir);
	} else {
		out_null(o, C_CONN);
		out_null(o, C_DIR);
	}
	if (r->path >= 0)
		out_i64(o, C_PATH, r->path);
	else
		out_null(o, C_PATH);
	if (r->xp == DUMP_XP_TCP && r->type != DUMP_REC_BAD)
		out_u64(o, C_OFFSET, r->offset);
	else
		out_null(o, C_OFFSET);
	if (r->xp == DUMP_XP_IB && r->type != DUMP_REC_BAD)
		out_hex(o, C_QPN, r->qpn);
	else
		out_null(o, C_QPN);
	out_eol(o);
	if (ok)
		out_i64(o, C_TS_NS, ns);
	else
		out_null(o, C_TS_NS);
	out_u64(o, C_PKT_LEN, r->pkt_len);
	out_u64(o, C_PKT_CAPLEN, r->pkt_caplen);
	out_eol(o);
}

/* Worst first; -vv: a line each with its severity and sentence, quoted
 * since the sentence may hold ", ". */
static void rec_rules(struct out *o, unsigned id, const struct wire_rules *set)
{
	struct rule_it it;
	enum wire_rule r;

	rule_it_init(&it, set);
	if (out_is_json(o) || o->verbose < 2) {
		out_arr_open(o, id);
		while (rule_it_next(&it, &r))
			out_elem_str(o, wire_rule_name(r));
		out_close(o);
		out_eol(o);
		return;
	}
	while (rule_it_next(&it, &r)) {
		const struct wire_rule_info *ri = wire_rule_info(r);

		out_label(o, id);
		out_puts(o, wire_rule_name(r));
		if (ri) {
			out_putc(o, ' ');
			out_puts(o, wire_tok_str(sev_toks, ri->sev, "info"));
			out_puts(o, " \"");
			out_puts(o, ri->text);
			out_putc(o, '"');
		}
		out_eol(o);
	}
}

static void rec_ext(struct out *o, const struct wire_ext *e)
{
	out_elem_obj(o);
	out_enum(o, X_TYPE, e->type);
	out_str(o, X_NAME, wire_ext_name(e->type));
	/* the text says known only when it is not */
	if (out_is_json(o) || !e->known)
		out_bool(o, X_KNOWN, e->known);
	if (e->known)
		ext_values(o, e);
	out_u64(o, X_OFF, e->off);
	out_u64(o, X_LEN, e->len);
	if (e->len && e->val)
		out_bytes(o, X_VALUE, e->val, e->len);
	else
		out_null(o, X_VALUE);
	out_eol(o);
	out_close(o);
}

static void rec_cong(struct out *o, const struct dump_msg *m)
{
	struct wire_port_range pr;
	uint32_t pos = 0;
	size_t n = 0;

	if (m->kind != WIRE_KIND_CONG) {
		out_null(o, M_CONG);
		return;
	}
	out_obj_open(o, M_CONG);
	out_bool(o, G_MAP, m->cong_cur != NULL);
	if (!m->cong_cur)
		goto done;
	while (wire_cong_diff_next(cong_old(m), m->cong_cur, &pos, &pr))
		n++;
	out_u64(o, G_CONGESTED, m->cong_count);
	out_u64(o, G_NCHANGES, n);
	out_bool(o, G_FIRST_MAP, m->cong_prev == NULL);
	out_eol(o);
	pos = 0;
	if (out_is_json(o)) {
		out_arr_open(o, G_CHANGES);
		while (wire_cong_diff_next(cong_old(m), m->cong_cur, &pos, &pr)) {
			out_elem_obj(o);
			out_u64(o, CH_FIRST, pr.first);
			out_u64(o, CH_LAST, pr.last);
			out_str(o, CH_STATE, wire_tok_name(cong_state_toks, pr.congested));
			out_close(o);
		}
		out_close(o);
	} else if (o->verbose >= 2) {
		/* every range, DUMP_CONG_RANGES_MAX a line */
		n = 0;
		while (wire_cong_diff_next(cong_old(m), m->cong_cur, &pos, &pr)) {
			if (n % DUMP_CONG_RANGES_MAX == 0) {
				out_eol(o);
				out_label(o, G_CHANGES);
			} else {
				out_putc(o, ' ');
			}
			out_putc(o, pr.congested ? '+' : '-');
			put_range(o, &pr);
			n++;
		}
	}
done:
	out_eol(o);
	out_close(o);
}

static void rec_msg(struct out *o, const struct dump_rec *r)
{
	const struct dump_msg *m = &r->u.msg;
	const struct wire_hdr *h = &m->hdr;
	bool said = m->kind == WIRE_KIND_PROBE_PING || m->kind == WIRE_KIND_PROBE_PONG ||
		    m->gen_changed;

	out_u64(o, M_SEQ, h->seq);
	out_u64(o, M_ACK, h->ack);
	out_u64(o, M_LEN, h->len);
	out_u64(o, M_RDS_SPORT, h->sport);
	out_u64(o, M_RDS_DPORT, h->dport);
	out_flags(o, M_FLAGS, h->flags);
	out_arr_open(o, M_FLAG_NAMES);
	for (unsigned i = 0; i < 8 && out_is_json(o); i++) {
		uint8_t bit = (uint8_t)(1u << i);
		char tmp[8];

		if (h->flags & bit)
			out_elem_str(o, wire_flag_label(bit, tmp));
	}
	out_close(o);
	out_u64(o, M_CREDIT, h->credit);
	out_hex(o, M_CSUM, h->csum);
	out_eol(o);

	out_str(o, M_KIND, wire_kind_name(m->kind));
	out_str(o, M_SEQ_STATE, dump_seq_name(m->seq));
	if (m->seq == DUMP_SEQ_SKIP || m->seq == DUMP_SEQ_DUP || m->seq == DUMP_SEQ_BACK)
		out_u64(o, M_SEQ_EXPECTED, m->seq_expected);
	else
		out_null(o, M_SEQ_EXPECTED);
	if (out_is_json(o) || m->again)
		out_bool(o, M_AGAIN, m->again);
	out_u64(o, M_CAPLEN, m->caplen);
	out_bool(o, M_INCOMPLETE, m->incomplete);
	if (r->xp == DUMP_XP_IB) {
		out_u64(o, M_FRAGS, m->frags);
		out_null(o, M_SEGS);
		out_bool(o, M_ICRC_OK, m->icrc_ok);
	} else {
		out_null(o, M_FRAGS);
		out_u64(o, M_SEGS, m->segs);
		out_null(o, M_ICRC_OK);
	}
	out_eol(o);

	out_arr_open(o, M_EXT);
	for (unsigned i = 0; i < m->exts.count; i++)
		rec_ext(o, &m->exts.e[i]);
	out_close(o);
	out_bytes(o, M_PAD, h->pad, sizeof(h->pad));
	out_bytes(o, M_EXTHDR, h->ext, sizeof(h->ext));
	out_u64(o, M_EXT_END, m->exts.end);
	out_bool(o, M_EXT_OVERRUN, m->exts.overrun);
	out_bool(o, M_EXT_STOPPED_HIGH, m->exts.stopped_high);
	out_eol(o);

	/* The text has a line for probes and generation changes, with the
	 * path count 0 while unknown; JSON has the path count of every
	 * message once it is known. */
	if (out_is_json(o) ? m->npaths != 0 : said)
		out_u64(o, M_CONN_NPATHS, m->npaths);
	else
		out_null(o, M_CONN_NPATHS);
	if (out_is_json(o) || said)
		out_bool(o, M_GEN_CHANGED, m->gen_changed);
	if (m->gen_changed)
		out_hex(o, M_GEN_PREV, m->gen_prev);
	else
		out_null(o, M_GEN_PREV);
	out_eol(o);
	rec_cong(o, m);
	if (r->xp == DUMP_XP_IB && (out_is_json(o) || m->rdma_ops || m->rdma_unmatched)) {
		out_u64(o, M_RDMA_OPS, m->rdma_ops);
		out_u64(o, M_RDMA_BYTES, m->rdma_bytes);
		out_u64(o, M_RDMA_UNMATCHED, m->rdma_unmatched);
		out_eol(o);
	} else {
		out_null(o, M_RDMA_OPS);
		out_null(o, M_RDMA_BYTES);
		out_null(o, M_RDMA_UNMATCHED);
	}
}

static void rec_rdma(struct out *o, const struct dump_rec *r)
{
	const struct dump_rdma_rec *a = &r->u.rdma;
	bool atomic = a->op == DUMP_RDMA_CSWP || a->op == DUMP_RDMA_FADD;

	out_str(o, R_OP, wire_tok_str(dump_rdma_op_toks, a->op, "?"));
	if (a->op == DUMP_RDMA_READ_RESP) {
		/* a response names neither the region nor the request */
		out_null(o, R_RKEY);
		out_null(o, R_VA);
		out_null(o, R_LEN);
	} else {
		out_hex(o, R_RKEY, a->rkey);
		out_hex(o, R_VA, a->va);
		out_u64(o, R_LEN, a->len);
	}
	out_u64(o, R_BYTES, a->bytes);
	out_u64(o, R_PACKETS, a->packets);
	out_hex(o, R_PSN, a->psn);
	if (atomic) {
		out_hex(o, R_SWAP_ADD, a->swap_add);
		out_hex(o, R_COMPARE, a->compare);
	} else {
		out_null(o, R_SWAP_ADD);
		out_null(o, R_COMPARE);
	}
	out_eol(o);
}

static void rec_note(struct out *o, const struct dump_rec *r)
{
	out_str(o, N_NOTE, dump_note_name(r->u.note.what));
	out_u64(o, N_LEN, r->u.note.len);
	out_u64(o, N_AUX, r->u.note.aux);
	out_eol(o);
}

static void rec_pd(struct out *o, const struct wire_ibpd *pd)
{
	out_obj_open(o, CM_PD);
	out_u64(o, P_FAMILY, (uint64_t)pd->family);
	f_addr(o, P_SADDR, pd->family, pd->saddr);
	f_addr(o, P_DADDR, pd->family, pd->daddr);
	out_u64(o, P_MAJOR, pd->major);
	out_u64(o, P_MINOR, pd->minor);
	out_hex(o, P_MINOR_MASK, pd->minor_mask);
	out_u64(o, P_TOS, pd->tos);
	out_u64(o, P_ACK_SEQ, pd->ack_seq);
	out_u64(o, P_CREDIT, pd->credit);
	out_eol(o);
	out_close(o);
}

static void rec_cm(struct out *o, const struct dump_rec *r)
{
	const struct dump_cm_rec *c = &r->u.cm;
	const struct wire_ibcm *cm = c->cm;
	uint16_t at;

	if (!cm) {
		out_null(o, CM_CM);
		return;
	}
	at = cm->attr_id;
	out_str(o, CM_CM, wire_ibcm_attr_name(at));
	out_hex(o, CM_ATTR_ID, at);
	out_hex(o, CM_LOCAL_COMM_ID, cm->local_comm_id);
	if (at != WIRE_IBCM_REQ)
		out_hex(o, CM_REMOTE_COMM_ID, cm->remote_comm_id);
	else
		out_null(o, CM_REMOTE_COMM_ID);
	if (at == WIRE_IBCM_REQ)
		out_hex(o, CM_SERVICE_ID, cm->service_id);
	else
		out_null(o, CM_SERVICE_ID);
	if (at == WIRE_IBCM_REQ || at == WIRE_IBCM_REP) {
		out_hex(o, CM_LOCAL_QPN, cm->local_qpn);
		out_hex(o, CM_STARTING_PSN, cm->starting_psn);
	} else {
		out_null(o, CM_LOCAL_QPN);
		out_null(o, CM_STARTING_PSN);
	}
	if (at == WIRE_IBCM_DREQ)
		out_hex(o, CM_REMOTE_QPN, cm->remote_qpn);
	else
		out_null(o, CM_REMOTE_QPN);
	if (at == WIRE_IBCM_REJ) {
		out_enum(o, CM_REJ_REASON, cm->rej_reason);
		out_enum(o, CM_REJ_MSG, cm->rej_msg);
	} else {
		out_null(o, CM_REJ_REASON);
		out_null(o, CM_REJ_MSG);
	}
	out_u64(o, CM_PRIVATE_LEN, cm->private_len);
	out_eol(o);
	if (cm->has_cma) {
		out_u64(o, CM_CMA_VERSION, cm->cma_version);
		out_u64(o, CM_CMA_IP_VERSION, cm->cma_ip_version);
		out_u64(o, CM_CMA_PORT, cm->cma_port);
		f_addr(o, CM_CMA_SRC, cm->cma_ip_version, cm->cma_src);
		f_addr(o, CM_CMA_DST, cm->cma_ip_version, cm->cma_dst);
		out_eol(o);
	} else {
		out_null(o, CM_CMA_VERSION);
		out_null(o, CM_CMA_IP_VERSION);
		out_null(o, CM_CMA_PORT);
		out_null(o, CM_CMA_SRC);
		out_null(o, CM_CMA_DST);
	}
	if (c->pd)
		rec_pd(o, c->pd);
	else
		out_null(o, CM_PD);
	if (cm_has_version(cm)) {
		char v[16];

		if (c->version)
			snprintf(v, sizeof(v), "%u.%u", (unsigned)(c->version >> 8),
				 (unsigned)(c->version & 0xff));
		else
			snprintf(v, sizeof(v), "reject");
		out_str(o, CM_VERSION, v);
		out_eol(o);
	} else {
		out_null(o, CM_VERSION);
	}
	out_u64(o, CM_BASE_VERSION, cm->base_version);
	out_hex(o, CM_MGMT_CLASS, cm->mgmt_class);
	out_u64(o, CM_CLASS_VERSION, cm->class_version);
	out_hex(o, CM_METHOD, cm->method);
	out_hex(o, CM_STATUS, cm->status);
	out_hex(o, CM_TID, cm->tid);
	out_hex(o, CM_ATTR_MOD, cm->attr_mod);
	out_eol(o);
	if (c->pd) {
		out_obj_open(o, CM_PD);
		out_u64(o, P_RESERVED1, c->pd->reserved1);
		out_u64(o, P_RESERVED2, c->pd->reserved2);
		out_bytes(o, P_PAD, c->pd->pad, sizeof(c->pd->pad));
		out_u64(o, P_EXTRA, c->pd->extra);
		out_eol(o);
		out_close(o);
	}
}

static bool any_of(const bool *which)
{
	for (unsigned i = 0; i < WIRE_NL_LS_ATTR_MAX; i++)
		if (which[i])
			return true;
	return false;
}

/* An address attribute: absent ones are null, and not in the text. */
static void nl_addr(struct out *o, unsigned id, bool present, int family, const uint8_t *a)
{
	if (present)
		f_addr(o, id, family, a);
	else
		out_null(o, id);
}

/* An attribute's number (as hex with |hex|), null where the message does
 * not carry it. */
static void nl_num(struct out *o, unsigned id, bool present, bool hex, uint64_t v)
{
	if (!present)
		out_null(o, id);
	else if (hex)
		out_hex(o, id, v);
	else
		out_u64(o, id, v);
}

static void rec_nl(struct out *o, const struct dump_rec *r)
{
	const struct wire_nl_ls *nl = r->u.nl;
	char buf[WIRE_NL_DEVICE_NAME_MAX * 4 + 1];
	bool ls;
	unsigned np;

	if (!nl) {
		out_null(o, NL_OP);
		return;
	}
	ls = nl->client == WIRE_NL_CLIENT_LS;
	out_u64(o, NL_NL_LEN, nl->nl_len);
	out_hex(o, NL_NL_TYPE, nl->nl_type);
	out_hex(o, NL_NL_FLAGS, nl->nl_flags);
	out_u64(o, NL_CLIENT, nl->client);
	/* the operations are named for the local-service client only */
	if (ls)
		out_enum(o, NL_OP, nl->op);
	else
		out_u64(o, NL_OP, nl->op);
	out_str(o, NL_OP_NAME, ls ? wire_nl_op_name(nl->op) : NULL);
	out_bool(o, NL_REQUEST, nl->is_request);
	out_bool(o, NL_ERROR, nl->is_err);
	out_u64(o, NL_SEQ, nl->nl_seq);
	out_u64(o, NL_PID, nl->nl_pid);
	out_eol(o);
	if (nl->has_resolve_hdr) {
		esc_str(buf, sizeof(buf), nl->device_name, WIRE_NL_DEVICE_NAME_MAX);
		out_str(o, NL_DEV, buf);
		out_u64(o, NL_PORT, nl->port_num);
		out_u64(o, NL_PATH_USE, nl->path_use);
		out_eol(o);
	} else {
		out_null(o, NL_DEV);
		out_null(o, NL_PORT);
		out_null(o, NL_PATH_USE);
		out_null(o, NL_RESOLVE_PAD);
	}
	if (nl->has_ip_resolve_hdr) {
		out_u64(o, NL_IFINDEX, nl->ifindex);
		out_eol(o);
	} else {
		out_null(o, NL_IFINDEX);
	}
	if (out_is_json(o) || any_of(nl->present)) {
		nl_attrs(o, NL_ATTRS, nl->present);
		nl_attrs(o, NL_MANDATORY, nl->mandatory);
		out_eol(o);
	}
	nl_num(o, NL_TIMEOUT, nl->present[WIRE_NL_LS_TIMEOUT], false, nl->timeout);
	nl_num(o, NL_SERVICE_ID, nl->present[WIRE_NL_LS_SERVICE_ID], true, nl->service_id);
	nl_addr(o, NL_DGID, nl->present[WIRE_NL_LS_DGID], 6, nl->dgid);
	nl_addr(o, NL_SGID, nl->present[WIRE_NL_LS_SGID], 6, nl->sgid);
	nl_num(o, NL_TCLASS, nl->present[WIRE_NL_LS_TCLASS], false, nl->tclass);
	nl_num(o, NL_PKEY, nl->present[WIRE_NL_LS_PKEY], true, nl->pkey);
	nl_num(o, NL_QOS_CLASS, nl->present[WIRE_NL_LS_QOS_CLASS], false, nl->qos_class);
	nl_addr(o, NL_IPV4, nl->present[WIRE_NL_LS_IPV4], 4, nl->ipv4);
	nl_addr(o, NL_IPV6, nl->present[WIRE_NL_LS_IPV6], 6, nl->ipv6);
	/* JSON counts the path records of every message, the text of those
	 * that carry the attribute */
	if (out_is_json(o) || nl->present[WIRE_NL_LS_PATH_RECORD])
		out_u64(o, NL_PATHS, nl->npaths);
	out_eol(o);
	np = nl->npaths < WIRE_NL_MAX_PATHS ? nl->npaths : WIRE_NL_MAX_PATHS;
	out_arr_open(o, NL_PATH_RECORDS);
	for (unsigned i = 0; i < np; i++) {
		out_elem_obj(o);
		out_hex(o, PR_FLAGS, nl->paths[i].flags);
		out_u64(o, PR_RESERVED, nl->paths[i].reserved);
		out_bytes(o, PR_REC, nl->paths[i].rec, sizeof(nl->paths[i].rec));
		out_eol(o);
		out_close(o);
	}
	out_close(o);
	if (nl->has_resolve_hdr) {
		out_bytes(o, NL_RESOLVE_PAD, nl->resolve_pad, sizeof(nl->resolve_pad));
		out_eol(o);
	}
}

static void rec_bad(struct out *o, const struct dump_rec *r)
{
	out_str(o, B_LAYER, r->u.bad.layer ? r->u.bad.layer : "?");
	out_str(o, B_ERROR, wire_strerror(r->u.bad.err));
	out_i64(o, B_ERR, r->u.bad.err);
	out_eol(o);
}

/* The renderers of each record type that has a field table (rec_groups):
 * its one-line form and its own field lines. */
static const struct {
	void (*line)(struct out *s, const struct dump_rec *r);
	void (*fields)(struct out *o, const struct dump_rec *r);
} rec_kinds[] = {
	[DUMP_REC_MSG] = { line_msg, rec_msg },
	[DUMP_REC_NOTE] = { line_note, rec_note },
	[DUMP_REC_CM] = { line_cm, rec_cm },
	[DUMP_REC_NL] = { line_nl, rec_nl },
	[DUMP_REC_BAD] = { line_bad, rec_bad },
	[DUMP_REC_RDMA] = { line_rdma, rec_rdma },
};

/* Every field of |r| but the hex bytes, in text order. */
static void rec_fields(struct out *o, const struct dump_rec *r)
{
	size_t n = out_group_cur(o)->n;

	rec_kinds[r->type].fields(o, r);
	/* TAIL_FIELDS end every table */
	rec_rules(o, (unsigned)(n - 2), &r->rules);
	rec_common(o, r);
}

/* ------------------------------------------------------------------------
 * Hex dumps (-X, -XX), tcpdump's layout
 */

/* What -X shows: a message's header (re-encoded: the decoder is lossless)
 * and up to DUMP_HEX_PAYLOAD_MAX payload bytes; another record's packet.
 * -XX: the packet. Return: bytes in *out (which may point into |tmp|). */
static size_t hex_bytes(const struct dump_render *o, const struct dump_rec *r,
			uint8_t tmp[WIRE_HDR_LEN + DUMP_HEX_PAYLOAD_MAX], const uint8_t **out)
{
	if (o->hex >= 2 || r->type != DUMP_REC_MSG) {
		*out = r->pkt;
		return r->pkt ? r->pkt_caplen : 0;
	}
	{
		const struct dump_msg *m = &r->u.msg;
		size_t pl = m->caplen < DUMP_HEX_PAYLOAD_MAX ? m->caplen : DUMP_HEX_PAYLOAD_MAX;

		wire_hdr_encode(&m->hdr, tmp, WIRE_HDR_LEN);
		if (pl && m->payload)
			memcpy(tmp + WIRE_HDR_LEN, m->payload, pl);
		else
			pl = 0;
		*out = tmp;
		return WIRE_HDR_LEN + pl;
	}
}

/* ------------------------------------------------------------------------
 * Records
 */

void dump_print_rec(const struct dump_render *o, const struct dump_rec *r)
{
	const struct out_group *g = dump_rec_fields(r->type);
	struct out s;

	out_init(&s, o->out, o->json ? OUT_JSON : OUT_TEXT, o->verbose,
		 OUT_JSON_NOSLASH);
	if (!g) {
		/* a record type without a table has no fields to give */
		if (!o->json) {
			put_ts(&s, o, r);
			put_flow(&s, r);
			out_puts(&s, "record type ");
			out_put_u64(&s, (uint64_t)r->type);
			out_putc(&s, '\n');
		}
		out_fini(&s);
		return;
	}
	out_begin(&s, g);
	if (!o->json) {
		put_ts(&s, o, r);
		put_flow(&s, r);
		out_line(&s, true, ' ');
		rec_kinds[r->type].line(&s, r);
		out_line(&s, false, 0);
		if (!wire_rules_empty(&r->rules)) {
			out_puts(&s, " !");
			put_rule_list(&s, &r->rules, ',');
		}
		out_putc(&s, '\n');
	}
	if (o->json || o->verbose > 0)
		rec_fields(&s, r);
	if (o->hex) {
		uint8_t tmp[WIRE_HDR_LEN + DUMP_HEX_PAYLOAD_MAX];
		const uint8_t *p;
		size_t len = hex_bytes(o, r, tmp, &p);

		if (o->json)
			out_bytes(&s, (unsigned)(g->n - 1), p, len);
		else
			out_put_hexdump(&s, p, len, false);
	}
	out_end(&s);
	out_fini(&s);
}

/* ------------------------------------------------------------------------
 * -z
 */

/* -z JSON: {"type":"stats","conns":[...]}; the text is a table of the
 * same counters under the same names. */
#define F(k, t, ...) { .key = (k), .type = (t), __VA_ARGS__ }

enum {
	SP_PATH, SP_DIR, SP_MSGS, SP_BYTES, SP_RETRANSMITTED, SP_DUPS, SP_SKIPS,
	SP_SKIPPED, SP_BACKS, SP_AGAIN, SP_CONG_UPDATES, SP_RULE_MSGS, SP_GAPS,
	SP_GAP_BYTES, SP_RESYNCS, SP_RDMA_OPS, SP_RDMA_BYTES, SP_CONNS, SP__N
};

/* A path and direction's counters; the columns of the text table are the
 * counters, SP_MSGS on. */
static const struct out_field stats_path_fields[SP__N] = {
	[SP_PATH] = F("path", OUT_I64),
	[SP_DIR] = F("dir", OUT_I64),
	[SP_MSGS] = F("msgs", OUT_U64),
	[SP_BYTES] = F("bytes", OUT_U64),
	[SP_RETRANSMITTED] = F("retransmitted", OUT_U64),
	[SP_DUPS] = F("dups", OUT_U64),
	[SP_SKIPS] = F("skips", OUT_U64),
	[SP_SKIPPED] = F("skipped", OUT_U64),
	[SP_BACKS] = F("backs", OUT_U64),
	[SP_AGAIN] = F("again", OUT_U64),
	[SP_CONG_UPDATES] = F("cong_updates", OUT_U64),
	[SP_RULE_MSGS] = F("rule_msgs", OUT_U64),
	[SP_GAPS] = F("gaps", OUT_U64),
	[SP_GAP_BYTES] = F("gap_bytes", OUT_U64),
	[SP_RESYNCS] = F("resyncs", OUT_U64),
	[SP_RDMA_OPS] = F("rdma_ops", OUT_U64),
	[SP_RDMA_BYTES] = F("rdma_bytes", OUT_U64),
	[SP_CONNS] = F("conns", OUT_U64),
};
static const struct out_group stats_path_group = OUT_GROUP("stats_path", stats_path_fields);

enum {
	SC_CONN, SC_XPORT, SC_A, SC_B, SC_NPATHS, SC_ADV_NPATHS, SC_SPORT_IDX, SC_GEN,
	SC_GEN_CHANGES, SC_PATHS, SC_RULES, SC__N
};

/* Pairs are [a>b, b>a]. */
static const struct out_field stats_conn_fields[SC__N] = {
	[SC_CONN] = F("conn", OUT_I64),
	[SC_XPORT] = F("xport", OUT_STR, .names = dump_xport_toks),
	[SC_A] = F("a", OUT_STR),
	[SC_B] = F("b", OUT_STR),
	[SC_NPATHS] = F("npaths", OUT_U64),
	[SC_ADV_NPATHS] = F("adv_npaths", OUT_ARRAY),
	[SC_SPORT_IDX] = F("sport_idx", OUT_ARRAY),
	[SC_GEN] = F("gen", OUT_ARRAY),
	[SC_GEN_CHANGES] = F("gen_changes", OUT_ARRAY),
	[SC_PATHS] = F("paths", OUT_ARRAY, .sub = &stats_path_group),
	[SC_RULES] = F("rules", OUT_OBJECT), /* rule name: messages */
};
static const struct out_group stats_conn_group = OUT_GROUP("stats_conn", stats_conn_fields);

enum { ST_TYPE, ST_CONNS, ST__N };

static const struct out_field stats_fields[ST__N] = {
	[ST_TYPE] = F("type", OUT_STR),
	[ST_CONNS] = F("conns", OUT_ARRAY, .sub = &stats_conn_group),
};
static const struct out_group stats_group = OUT_GROUP("stats", stats_fields);

#undef F

#define NCOLS (SP__N - SP_MSGS)
#define st_col(i) (stats_path_fields[SP_MSGS + (i)].key)

_Static_assert(NCOLS == DUMP_PSTATS_COLS, "dump.h's count of the -z columns");

const char *dump_pstats_col(size_t i)
{
	return i < NCOLS ? st_col(i) : NULL;
}

void dump_pstats_values(const struct dump_pstats *p, uint64_t v[NCOLS])
{
	v[0] = p->msgs;
	v[1] = p->bytes;
	v[2] = p->retransmitted;
	v[3] = p->dups;
	v[4] = p->skips;
	v[5] = p->skipped;
	v[6] = p->backs;
	v[7] = p->again;
	v[8] = p->cong_updates;
	v[9] = p->rule_msgs;
	v[10] = p->gaps;
	v[11] = p->gap_bytes;
	v[12] = p->resyncs;
	v[13] = p->rdma_ops;
	v[14] = p->rdma_bytes;
	v[15] = p->conns;
}

static bool st_used(const struct dump_pstats *p)
{
	uint64_t v[NCOLS];

	dump_pstats_values(p, v);
	for (size_t i = 0; i < NCOLS; i++)
		if (v[i])
			return true;
	return false;
}

/* The next path and direction of |c| that carried anything, from *k (0
 * to start), path-major: *p, *d and its values in |v|. Return: false past
 * the last. */
static bool st_next(const struct dump_conn *c, int *k, int *p, int *d, uint64_t v[NCOLS])
{
	while (*k < WIRE_MAX_PATHS * 2) {
		const struct dump_pstats *ps = &c->st[*k / 2][*k % 2];

		*p = *k / 2;
		*d = *k % 2;
		(*k)++;
		if (st_used(ps)) {
			dump_pstats_values(ps, v);
			return true;
		}
	}
	return false;
}

static int udigits(uint64_t v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

static void put_pad(struct out *s, int n)
{
	while (n-- > 0)
		out_putc(s, ' ');
}

static void stats_text(const struct dump_render *o, const struct dump_conn *c)
{
	uint64_t v[NCOLS];
	struct out s;
	int w[NCOLS], k, p, d;
	bool any = false;
	bool rules = false;

	out_init(&s, o->out, OUT_TEXT, 0, 0);
	out_puts(&s, "conn ");
	out_put_u64(&s, (uint64_t)c->id);
	out_putc(&s, ' ');
	out_puts(&s, wire_tok_str(flow_toks, c->xp, "?"));
	out_putc(&s, ' ');
	put_addr(&s, c->a.family, c->a.addr);
	out_puts(&s, " <-> ");
	put_addr(&s, c->b.family, c->b.addr);
	out_puts(&s, " npaths ");
	out_put_u64(&s, c->npaths);
	out_puts(&s, " adv_npaths ");
	out_put_u64(&s, c->adv_npaths[0]);
	out_putc(&s, ' ');
	out_put_u64(&s, c->adv_npaths[1]);
	out_puts(&s, " sport_idx ");
	out_put_u64(&s, c->sport_idx[0]);
	out_putc(&s, ' ');
	out_put_u64(&s, c->sport_idx[1]);
	out_puts(&s, " gen ");
	out_put_hex(&s, c->gen[0], 8);
	out_putc(&s, ' ');
	out_put_hex(&s, c->gen[1], 8);
	out_puts(&s, " gen_changes ");
	out_put_u64(&s, c->gen_changes[0]);
	out_putc(&s, ' ');
	out_put_u64(&s, c->gen_changes[1]);
	out_putc(&s, '\n');

	for (size_t i = 0; i < NCOLS; i++)
		w[i] = (int)strlen(st_col(i));
	for (k = 0; st_next(c, &k, &p, &d, v);) {
		any = true;
		for (size_t i = 0; i < NCOLS; i++)
			if (udigits(v[i]) > w[i])
				w[i] = udigits(v[i]);
	}
	if (!any) {
		out_puts(&s, "  no messages\n");
	} else {
		out_puts(&s, "  path dir");
		for (size_t i = 0; i < NCOLS; i++) {
			out_putc(&s, ' ');
			put_pad(&s, w[i] - (int)strlen(st_col(i)));
			out_puts(&s, st_col(i));
		}
		out_putc(&s, '\n');
		for (k = 0; st_next(c, &k, &p, &d, v);) {
			out_puts(&s, "  ");
			put_pad(&s, 4 - udigits((uint64_t)p));
			out_put_u64(&s, (uint64_t)p);
			out_puts(&s, d ? " b>a" : " a>b");
			for (size_t i = 0; i < NCOLS; i++) {
				out_putc(&s, ' ');
				put_pad(&s, w[i] - udigits(v[i]));
				out_put_u64(&s, v[i]);
			}
			out_putc(&s, '\n');
		}
	}
	for (unsigned r = 1; r < WIRE_RULE__COUNT; r++) {
		if (!c->rule_counts[r])
			continue;
		out_puts(&s, rules ? ", " : "  rules ");
		rules = true;
		out_puts(&s, wire_rule_name((enum wire_rule)r));
		out_putc(&s, ' ');
		out_put_u64(&s, c->rule_counts[r]);
	}
	if (rules)
		out_putc(&s, '\n');
	out_flush(&s);
}

static void stats_pair(struct out *o, unsigned id, uint64_t a, uint64_t b)
{
	out_arr_open(o, id);
	out_elem_u64(o, a);
	out_elem_u64(o, b);
	out_close(o);
}

static void stats_json(struct out *o, const struct dump_conn *c)
{
	char buf[INET6_ADDRSTRLEN];
	uint64_t v[NCOLS];
	int k, p, d;

	out_elem_obj(o);
	out_i64(o, SC_CONN, c->id);
	out_str(o, SC_XPORT, dump_xport_name(c->xp));
	out_str(o, SC_A, has_addr(c->a.family) ? addr_str(buf, c->a.family, c->a.addr) : NULL);
	out_str(o, SC_B, has_addr(c->b.family) ? addr_str(buf, c->b.family, c->b.addr) : NULL);
	out_u64(o, SC_NPATHS, c->npaths);
	stats_pair(o, SC_ADV_NPATHS, c->adv_npaths[0], c->adv_npaths[1]);
	out_arr_open(o, SC_SPORT_IDX);
	out_elem_bool(o, c->sport_idx[0]);
	out_elem_bool(o, c->sport_idx[1]);
	out_close(o);
	stats_pair(o, SC_GEN, c->gen[0], c->gen[1]);
	stats_pair(o, SC_GEN_CHANGES, c->gen_changes[0], c->gen_changes[1]);
	out_arr_open(o, SC_PATHS);
	for (k = 0; st_next(c, &k, &p, &d, v);) {
		out_elem_obj(o);
		out_i64(o, SP_PATH, p);
		out_i64(o, SP_DIR, d);
		for (size_t i = 0; i < NCOLS; i++)
			out_u64(o, (unsigned)(SP_MSGS + i), v[i]);
		out_close(o);
	}
	out_close(o);
	out_obj_open(o, SC_RULES);
	for (unsigned r = 1; r < WIRE_RULE__COUNT; r++)
		if (c->rule_counts[r])
			out_member_u64(o, wire_rule_name((enum wire_rule)r), c->rule_counts[r]);
	out_close(o);
	out_close(o);
}

void dump_print_stats(const struct dump_render *o, const struct dump_conn *const *conns,
		      size_t n)
{
	if (o->json) {
		struct out s;

		out_init(&s, o->out, OUT_JSON, 0,
			 OUT_JSON_NOSLASH);
		out_begin(&s, &stats_group);
		out_str(&s, ST_TYPE, "stats");
		out_arr_open(&s, ST_CONNS);
		for (size_t i = 0; i < n; i++)
			stats_json(&s, conns[i]);
		out_close(&s);
		out_end(&s);
		out_fini(&s);
		return;
	}
	for (size_t i = 0; i < n; i++)
		stats_text(o, conns[i]);
}
