// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * render.c - dump_print_*: rdsdump's records as text (one line, -v, -vv,
 * -X, -XX) and JSON, and the -z statistics. Formats: docs/man/rdsdump.8.md.
 */
#define _POSIX_C_SOURCE 200809L

#include "render.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include <wire/wire.h>

/* ------------------------------------------------------------------------
 * Names shared by text and JSON
 */

/* dump_note_name(), dump_seq_name() and dump_xport_name() live with the
 * engine (engine.c); the text-only labels are here. */

static const char *xport_label(enum dump_xport x)
{
	switch (x) {
	case DUMP_XP_TCP:
		return "TCP";
	case DUMP_XP_IB:
		return "IB";
	case DUMP_XP_NL:
		return "NL";
	}
	return "?";
}

static const char *const rec_types[] = {
	[DUMP_REC_MSG] = "msg", [DUMP_REC_NOTE] = "note", [DUMP_REC_CM] = "cm",
	[DUMP_REC_NL] = "nl",   [DUMP_REC_BAD] = "bad",
};

static const char *rec_type_name(enum dump_rec_type t)
{
	if ((unsigned)t >= sizeof(rec_types) / sizeof(rec_types[0]) || !rec_types[t])
		return "?";
	return rec_types[t];
}

/* IB CM REJ reasons an RDS capture is likely to show (IBTA table 112,
 * include/rdma/ib_cm.h IB_CM_REJ_*); others print as numbers only. */
static const char *rej_reason_name(uint16_t r)
{
	switch (r) {
	case 1:
		return "no_qp";
	case 3:
		return "no_resources";
	case 4:
		return "timeout";
	case 5:
		return "unsupported";
	case 8:
		return "invalid_service_id";
	case 10:
		return "stale_conn";
	case 28:
		return "consumer";
	default:
		return NULL;
	}
}

static const char *rej_msg_name(uint8_t m)
{
	switch (m) {
	case 0:
		return "REQ";
	case 1:
		return "REP";
	default:
		return "other";
	}
}

/* ------------------------------------------------------------------------
 * Text buffer: a record's text is gathered here and written at once
 */

#define SB_CAP 8192

struct sb {
	FILE *f;
	size_t n;
	char b[SB_CAP];
};

static void sb_flush(struct sb *s)
{
	if (s->n)
		fwrite(s->b, 1, s->n, s->f);
	s->n = 0;
}

/* Room for |need| (<= SB_CAP) contiguous bytes. */
static char *sb_room(struct sb *s, size_t need)
{
	if (SB_CAP - s->n < need)
		sb_flush(s);
	return s->b + s->n;
}

static void sb_putn(struct sb *s, const char *p, size_t len)
{
	while (len) {
		size_t k;

		if (s->n == SB_CAP)
			sb_flush(s);
		k = SB_CAP - s->n < len ? SB_CAP - s->n : len;
		memcpy(s->b + s->n, p, k);
		s->n += k;
		p += k;
		len -= k;
	}
}

static void sb_puts(struct sb *s, const char *p)
{
	sb_putn(s, p, strlen(p));
}

static void sb_putc(struct sb *s, char c)
{
	*sb_room(s, 1) = c;
	s->n++;
}

static void sb_u64(struct sb *s, uint64_t v)
{
	char t[20];
	int i = sizeof(t);

	do {
		t[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	sb_putn(s, t + i, sizeof(t) - (size_t)i);
}

static void sb_i64(struct sb *s, int64_t v)
{
	if (v < 0) {
		sb_putc(s, '-');
		sb_u64(s, (uint64_t)0 - (uint64_t)v);
	} else {
		sb_u64(s, (uint64_t)v);
	}
}

static const char hexdig[] = "0123456789abcdef";

/* "0x" and at least |digits| lowercase hex digits. */
static void sb_hex(struct sb *s, uint64_t v, int digits)
{
	char t[18];
	int i = sizeof(t);

	while (v || digits > 0) {
		t[--i] = hexdig[v & 15];
		v >>= 4;
		digits--;
	}
	t[--i] = 'x';
	t[--i] = '0';
	sb_putn(s, t + i, sizeof(t) - (size_t)i);
}

/* Bytes as plain hex digits, no separators. */
static void sb_hexbytes(struct sb *s, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char *w = sb_room(s, 2);

		w[0] = hexdig[p[i] >> 4];
		w[1] = hexdig[p[i] & 15];
		s->n += 2;
	}
}

static void sb_bool(struct sb *s, bool b)
{
	sb_puts(s, b ? "true" : "false");
}

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
			dst[n++] = hexdig[c >> 4];
			dst[n++] = hexdig[c & 15];
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
	} else {
		strcpy(buf, "?");
	}
	return buf;
}

static void sb_addr(struct sb *s, int family, const uint8_t *a)
{
	char buf[INET6_ADDRSTRLEN];

	sb_puts(s, addr_str(buf, family, a));
}

/* tcpdump's form: 10.0.0.1.16385, and [fd00::1].16385 for IPv6 */
static void sb_addr_port(struct sb *s, const struct dump_ep *e)
{
	if (e->family == 6)
		sb_putc(s, '[');
	sb_addr(s, e->family, e->addr);
	if (e->family == 6)
		sb_putc(s, ']');
	sb_putc(s, '.');
	sb_u64(s, e->port);
}

static void sb_2dig(char *w, unsigned v)
{
	w[0] = (char)('0' + v / 10 % 10);
	w[1] = (char)('0' + v % 10);
}

static void sb_usec(struct sb *s, uint32_t nsec)
{
	char t[7];
	uint32_t us = nsec / 1000;

	t[0] = '.';
	for (int i = 6; i >= 1; i--) {
		t[i] = (char)('0' + us % 10);
		us /= 10;
	}
	sb_putn(s, t, sizeof(t));
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

static void put_ts(struct sb *s, const struct dump_render *o, const struct dump_rec *r)
{
	if (o->tsmode == 1)
		return;
	if (o->tsmode == 2) {
		sb_i64(s, r->ts_sec);
	} else {
		time_t t = (time_t)r->ts_sec;
		struct tm tm;
		char *w;

		if (!localtime_r(&t, &tm))
			memset(&tm, 0, sizeof(tm));
		w = sb_room(s, 8);
		sb_2dig(w, (unsigned)tm.tm_hour);
		w[2] = ':';
		sb_2dig(w + 3, (unsigned)tm.tm_min);
		w[5] = ':';
		sb_2dig(w + 6, (unsigned)tm.tm_sec);
		s->n += 8;
	}
	sb_usec(s, r->ts_nsec);
	sb_putc(s, ' ');
}

static void put_flow(struct sb *s, const struct dump_rec *r)
{
	if (r->type == DUMP_REC_BAD) {
		sb_puts(s, "frame ");
		sb_u64(s, r->frame);
		sb_puts(s, ": ");
		return;
	}
	switch (r->xp) {
	case DUMP_XP_TCP:
		sb_puts(s, "TCP ");
		sb_addr_port(s, &r->src);
		sb_puts(s, " > ");
		sb_addr_port(s, &r->dst);
		if (r->path >= 0) {
			sb_puts(s, " path ");
			sb_u64(s, (uint64_t)r->path);
		}
		break;
	case DUMP_XP_IB:
		sb_puts(s, "IB ");
		sb_addr(s, r->src.family, r->src.addr);
		sb_puts(s, " > ");
		sb_addr(s, r->dst.family, r->dst.addr);
		if (r->type != DUMP_REC_CM) {
			sb_puts(s, " qp ");
			sb_hex(s, r->qpn, 6);
		}
		break;
	case DUMP_XP_NL:
		sb_puts(s, "NL");
		break;
	}
	sb_puts(s, ": ");
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

static const char *sev_name(int sev)
{
	switch (sev) {
	case WIRE_SEV_ERROR:
		return "error";
	case WIRE_SEV_WARN:
		return "warn";
	default:
		return "info";
	}
}

/* Names joined by |sep|. */
static void sb_rule_list(struct sb *s, const struct wire_rules *set, char sep)
{
	struct rule_it it;
	enum wire_rule r;
	bool first = true;

	rule_it_init(&it, set);
	while (rule_it_next(&it, &r)) {
		if (!first)
			sb_putc(s, sep);
		first = false;
		sb_puts(s, wire_rule_name(r));
	}
}

/* ------------------------------------------------------------------------
 * One line
 */

static void sb_flags(struct sb *s, uint8_t flags)
{
	bool first = true;

	sb_putc(s, '[');
	for (unsigned i = 0; i < 8; i++) {
		uint8_t bit = (uint8_t)(1u << i);
		const char *name;

		if (!(flags & bit))
			continue;
		if (!first)
			sb_putc(s, '|');
		first = false;
		name = wire_flag_name(bit);
		if (name)
			sb_puts(s, name);
		else
			sb_hex(s, bit, 2);
	}
	sb_putc(s, ']');
}

/* Known extensions' values, in the order they sit in the header. */
static void line_exts(struct sb *s, const struct wire_exts *x)
{
	for (unsigned i = 0; i < x->count; i++) {
		const struct wire_ext *e = &x->e[i];

		if (!e->known)
			continue;
		switch (e->type) {
		case WIRE_EXT_VERSION:
			sb_puts(s, " version ");
			sb_hex(s, e->u.version, 8);
			break;
		case WIRE_EXT_RDMA:
			sb_puts(s, " rkey ");
			sb_hex(s, e->u.rdma_rkey, 8);
			break;
		case WIRE_EXT_RDMA_DEST:
			sb_puts(s, " rkey ");
			sb_hex(s, e->u.rdma_dest.rkey, 8);
			sb_puts(s, " rdma_offset ");
			sb_u64(s, e->u.rdma_dest.offset);
			break;
		case WIRE_EXT_RDMA_BYTES:
			sb_puts(s, " rdma_bytes ");
			sb_u64(s, e->u.rdma_bytes.bytes);
			if (e->u.rdma_bytes.rflags & WIRE_RDMA_WR_BYTES)
				sb_puts(s, " write");
			if (e->u.rdma_bytes.rflags & WIRE_RDMA_RD_BYTES)
				sb_puts(s, " read");
			break;
		case WIRE_EXT_NPATHS:
			sb_puts(s, " npaths ");
			sb_u64(s, e->u.npaths);
			break;
		case WIRE_EXT_GEN_NUM:
			sb_puts(s, " gen_num ");
			sb_hex(s, e->u.gen_num, 8);
			break;
		case WIRE_EXT_CAP_BITS:
			sb_puts(s, " cap_bits ");
			sb_hex(s, e->u.cap_bits, 8);
			break;
		case WIRE_EXT_SPORT_IDX:
			sb_puts(s, " sport_idx ");
			sb_u64(s, e->u.sport_idx);
			break;
		default:
			sb_puts(s, " ext ");
			sb_u64(s, e->type);
			break;
		}
	}
}

static const struct wire_cong_map zero_map;

static const struct wire_cong_map *cong_old(const struct dump_msg *m)
{
	return m->cong_prev ? m->cong_prev : &zero_map;
}

static void sb_range(struct sb *s, const struct wire_port_range *pr)
{
	sb_u64(s, pr->first);
	if (pr->last != pr->first) {
		sb_putc(s, '-');
		sb_u64(s, pr->last);
	}
}

static void line_cong(struct sb *s, const struct dump_msg *m)
{
	struct wire_port_range pr;
	uint32_t pos = 0;
	size_t n = 0;

	sb_puts(s, ": ");
	if (!m->cong_cur) {
		sb_puts(s, m->hdr.len == WIRE_CONG_MAP_BYTES ? "map not captured" : "not a map");
		return;
	}
	while (wire_cong_diff_next(cong_old(m), m->cong_cur, &pos, &pr)) {
		if (n < DUMP_CONG_RANGES_MAX) {
			sb_puts(s, n ? ", " : "ports ");
			sb_range(s, &pr);
			sb_puts(s, pr.congested ? " congested" : " free");
		}
		n++;
	}
	if (!n) {
		/* a first map is news even when it holds nothing */
		sb_puts(s, m->cong_prev ? "no change" : "all ports free");
	} else if (n > DUMP_CONG_RANGES_MAX) {
		sb_puts(s, " ... (");
		sb_u64(s, n - DUMP_CONG_RANGES_MAX);
		sb_puts(s, " more)");
	}
}

static void line_msg(struct sb *s, const struct dump_rec *r)
{
	const struct dump_msg *m = &r->u.msg;
	const struct wire_hdr *h = &m->hdr;

	sb_puts(s, wire_kind_name(m->kind));
	if (m->kind == WIRE_KIND_ACK) {
		sb_putc(s, ' ');
		sb_u64(s, h->ack);
		sb_puts(s, " credit ");
		sb_u64(s, h->credit);
	} else {
		if (m->kind != WIRE_KIND_CONG) {
			sb_putc(s, ' ');
			sb_u64(s, h->sport);
			sb_puts(s, " > ");
			sb_u64(s, h->dport);
		}
		sb_puts(s, " seq ");
		sb_u64(s, h->seq);
		sb_puts(s, " len ");
		sb_u64(s, h->len);
	}
	/* a map is exactly CONG_BITMAP: nothing to say; anything else shows */
	if (h->flags && m->kind != WIRE_KIND_CONG) {
		sb_putc(s, ' ');
		sb_flags(s, h->flags);
	}
	if (r->xp == DUMP_XP_IB && m->frags > 1) {
		sb_puts(s, " frags ");
		sb_u64(s, m->frags);
	}
	if (m->kind != WIRE_KIND_ACK) {
		if (h->ack) {
			sb_puts(s, " ack ");
			sb_u64(s, h->ack);
		}
		if (h->credit) {
			sb_puts(s, " credit ");
			sb_u64(s, h->credit);
		}
	}
	line_exts(s, &m->exts);
	switch (m->seq) {
	case DUMP_SEQ_DUP:
		sb_puts(s, " dup (a kernel drops it)");
		break;
	case DUMP_SEQ_SKIP:
		sb_puts(s, " skip ");
		sb_u64(s, h->seq - m->seq_expected);
		break;
	case DUMP_SEQ_BACK:
		sb_puts(s, " back from ");
		sb_u64(s, m->seq_expected);
		break;
	default:
		break;
	}
	if (m->again)
		sb_puts(s, " again (delivered twice)");
	if (m->gen_changed) {
		sb_puts(s, " gen_num changed ");
		sb_hex(s, m->gen_prev, 8);
		sb_puts(s, " -> ");
		sb_hex(s, m->exts.gen_num, 8);
	}
	if (m->incomplete)
		sb_puts(s, " incomplete");
	if (m->kind == WIRE_KIND_CONG)
		line_cong(s, m);
}

static void line_note(struct sb *s, const struct dump_rec *r)
{
	const struct dump_note_rec *n = &r->u.note;

	switch (n->what) {
	case DUMP_NOTE_SYN:
		sb_puts(s, "tcp syn");
		return;
	case DUMP_NOTE_FIN:
		sb_puts(s, "tcp fin");
		return;
	case DUMP_NOTE_RST:
		sb_puts(s, "tcp rst");
		return;
	case DUMP_NOTE_REOPEN:
		sb_puts(s, "tcp reopen");
		return;
	case DUMP_NOTE_MIDSTREAM:
		sb_puts(s, "midstream");
		return;
	case DUMP_NOTE_GAP:
		sb_puts(s, "gap ");
		break;
	case DUMP_NOTE_TRUNC:
		sb_puts(s, "trunc ");
		break;
	case DUMP_NOTE_RESYNC:
		sb_puts(s, "resync skipped ");
		break;
	case DUMP_NOTE_RETRANS:
		sb_puts(s, "retrans ");
		break;
	case DUMP_NOTE_CONFLICT:
		sb_puts(s, "conflict ");
		break;
	case DUMP_NOTE_AFTER_FIN:
		sb_puts(s, "after fin ");
		break;
	case DUMP_NOTE_IGNORED:
		sb_puts(s, "ignored ");
		sb_u64(s, n->len);
		sb_puts(s, " bytes at seq ");
		sb_u64(s, n->aux);
		return;
	case DUMP_NOTE_PARTIAL:
		sb_puts(s, "partial message: ");
		sb_u64(s, n->len);
		sb_puts(s, " of ");
		sb_u64(s, n->aux);
		break;
	case DUMP_NOTE_DESYNC:
		sb_puts(s, "desync: h_len ");
		sb_u64(s, n->len);
		sb_puts(s, " above limit");
		return;
	case DUMP_NOTE_PSN_GAP:
		sb_puts(s, "psn gap ");
		sb_u64(s, n->len);
		sb_puts(s, " packets before ");
		sb_hex(s, n->aux, 6);
		return;
	case DUMP_NOTE_PSN_DUP:
		sb_puts(s, "psn dup ");
		sb_hex(s, n->aux, 6);
		return;
	case DUMP_NOTE_FRAG_ERR:
		sb_puts(s, "fragments do not reassemble");
		return;
	case DUMP_NOTE_PATH_REFUSED:
		sb_puts(s, "path refused (no free slot)");
		return;
	case DUMP_NOTE_LARGER:
		sb_puts(s, "opened by the larger address");
		return;
	default:
		sb_puts(s, "note ");
		sb_u64(s, (uint64_t)n->what);
		return;
	}
	if (n->what != DUMP_NOTE_PARTIAL)
		sb_u64(s, n->len);
	sb_puts(s, " bytes");
}

static void sb_version(struct sb *s, uint16_t v)
{
	if (!v) {
		sb_puts(s, "reject");
		return;
	}
	sb_u64(s, v >> 8);
	sb_putc(s, '.');
	sb_u64(s, v & 0xff);
}

static bool cm_has_version(const struct wire_ibcm *cm)
{
	return cm->attr_id == WIRE_IBCM_REQ || cm->attr_id == WIRE_IBCM_REP;
}

static void line_cm(struct sb *s, const struct dump_rec *r)
{
	const struct dump_cm_rec *c = &r->u.cm;
	const struct wire_ibcm *cm = c->cm;
	const char *name;

	sb_puts(s, "cm ");
	if (!cm) {
		sb_puts(s, "?");
		return;
	}
	name = wire_ibcm_attr_name(cm->attr_id);
	if (name) {
		sb_puts(s, name);
	} else {
		sb_puts(s, "attr ");
		sb_hex(s, cm->attr_id, 4);
	}
	switch (cm->attr_id) {
	case WIRE_IBCM_REQ:
		sb_puts(s, " service ");
		sb_hex(s, cm->service_id, 16);
		__attribute__((fallthrough));
	case WIRE_IBCM_REP:
		sb_puts(s, " qpn ");
		sb_hex(s, cm->local_qpn, 6);
		sb_puts(s, " psn ");
		sb_hex(s, cm->starting_psn, 6);
		break;
	case WIRE_IBCM_REJ:
		sb_puts(s, " reason ");
		sb_u64(s, cm->rej_reason);
		name = rej_reason_name(cm->rej_reason);
		if (name) {
			sb_puts(s, " (");
			sb_puts(s, name);
			sb_putc(s, ')');
		}
		sb_puts(s, " msg ");
		sb_puts(s, rej_msg_name(cm->rej_msg));
		break;
	case WIRE_IBCM_DREQ:
		sb_puts(s, " qpn ");
		sb_hex(s, cm->remote_qpn, 6);
		break;
	default:
		break;
	}
	if (c->pd) {
		sb_puts(s, " rds ");
		sb_u64(s, c->pd->major);
		sb_putc(s, '.');
		sb_u64(s, c->pd->minor);
		sb_puts(s, " mask ");
		sb_hex(s, c->pd->minor_mask, 4);
		sb_puts(s, " credit ");
		sb_u64(s, c->pd->credit);
	}
	if (cm_has_version(cm)) {
		sb_puts(s, " -> ");
		sb_version(s, c->version);
	}
}

static void sb_dev(struct sb *s, const struct wire_nl_ls *nl)
{
	char buf[WIRE_NL_DEVICE_NAME_MAX * 4 + 1];

	esc_str(buf, sizeof(buf), nl->device_name, WIRE_NL_DEVICE_NAME_MAX);
	sb_puts(s, buf[0] ? buf : "\"\"");
}

/* Present attributes, comma-joined, by name (or number). */
static void sb_nl_attrs(struct sb *s, const struct wire_nl_ls *nl, const bool *which)
{
	bool first = true;

	for (unsigned i = 0; i < WIRE_NL_LS_ATTR_MAX; i++) {
		const char *name;

		if (!which[i])
			continue;
		if (!first)
			sb_putc(s, ',');
		first = false;
		name = wire_nl_attr_name(i);
		if (name)
			sb_puts(s, name);
		else
			sb_u64(s, i);
	}
}

static void line_nl(struct sb *s, const struct dump_rec *r)
{
	const struct wire_nl_ls *nl = r->u.nl;
	const char *op;
	char buf[INET6_ADDRSTRLEN];

	if (!nl) {
		sb_puts(s, "ls ?");
		return;
	}
	if (nl->client != WIRE_NL_CLIENT_LS) {
		sb_puts(s, "nl client ");
		sb_u64(s, nl->client);
		sb_puts(s, " op ");
		sb_u64(s, nl->op);
	} else {
		sb_puts(s, "ls ");
		op = wire_nl_op_name(nl->op);
		if (op) {
			sb_puts(s, op);
		} else {
			sb_puts(s, "op ");
			sb_u64(s, nl->op);
		}
	}
	sb_puts(s, nl->is_request ? " request" : " response");
	sb_puts(s, " seq ");
	sb_u64(s, nl->nl_seq);
	sb_puts(s, " pid ");
	sb_u64(s, nl->nl_pid);
	if (nl->is_err)
		sb_puts(s, " error");
	if (nl->has_resolve_hdr) {
		sb_puts(s, " dev ");
		sb_dev(s, nl);
		sb_puts(s, " port ");
		sb_u64(s, nl->port_num);
	}
	if (nl->has_ip_resolve_hdr) {
		sb_puts(s, " ifindex ");
		sb_u64(s, nl->ifindex);
	}
	if (nl->present[WIRE_NL_LS_TIMEOUT]) {
		sb_puts(s, " timeout ");
		sb_u64(s, nl->timeout);
	}
	if (nl->present[WIRE_NL_LS_IPV4]) {
		sb_puts(s, " ipv4 ");
		sb_addr(s, 4, nl->ipv4);
	}
	if (nl->present[WIRE_NL_LS_IPV6]) {
		sb_puts(s, " ipv6 ");
		sb_addr(s, 6, nl->ipv6);
	}
	if (nl->is_request) {
		bool any = false;

		for (unsigned i = 0; i < WIRE_NL_LS_ATTR_MAX; i++)
			any |= nl->present[i];
		if (any) {
			sb_puts(s, " attrs ");
			sb_nl_attrs(s, nl, nl->present);
		}
	} else {
		if (nl->present[WIRE_NL_LS_PATH_RECORD]) {
			sb_puts(s, " paths ");
			sb_u64(s, nl->npaths);
		}
		if (nl->present[WIRE_NL_LS_DGID]) {
			sb_puts(s, " dgid ");
			sb_puts(s, addr_str(buf, 6, nl->dgid));
		}
	}
}

static void line_bad(struct sb *s, const struct dump_rec *r)
{
	sb_puts(s, r->u.bad.layer ? r->u.bad.layer : "?");
	sb_puts(s, ": ");
	sb_puts(s, wire_strerror(r->u.bad.err));
}

/* ------------------------------------------------------------------------
 * Field lines (-v, -vv): "    label value, label value", labels = JSON keys
 */

struct fl {
	struct sb *s;
	bool open;
};

static void fl_key(struct fl *l, const char *key)
{
	if (!l->open) {
		sb_puts(l->s, "    ");
		l->open = true;
	} else {
		sb_puts(l->s, ", ");
	}
	sb_puts(l->s, key);
	sb_putc(l->s, ' ');
}

static void fl_end(struct fl *l)
{
	if (l->open)
		sb_putc(l->s, '\n');
	l->open = false;
}

static void fl_u64(struct fl *l, const char *key, uint64_t v)
{
	fl_key(l, key);
	sb_u64(l->s, v);
}

static void fl_hex(struct fl *l, const char *key, uint64_t v, int digits)
{
	fl_key(l, key);
	sb_hex(l->s, v, digits);
}

static void fl_bool(struct fl *l, const char *key, bool v)
{
	fl_key(l, key);
	sb_bool(l->s, v);
}

static void fl_str(struct fl *l, const char *key, const char *v)
{
	fl_key(l, key);
	sb_puts(l->s, v);
}

static void fl_addr(struct fl *l, const char *key, int family, const uint8_t *a)
{
	fl_key(l, key);
	sb_addr(l->s, family, a);
}

static void fl_bytes(struct fl *l, const char *key, const uint8_t *p, size_t len)
{
	fl_key(l, key);
	sb_hexbytes(l->s, p, len);
}

static void fl_rules(struct fl *l, const struct wire_rules *set, int verbose)
{
	struct rule_it it;
	enum wire_rule r;

	if (wire_rules_empty(set))
		return;
	if (verbose < 2) {
		fl_key(l, "rules");
		sb_rule_list(l->s, set, ',');
		fl_end(l);
		return;
	}
	/* the sentence is free text: quoted, so ", " inside it is no separator */
	rule_it_init(&it, set);
	while (rule_it_next(&it, &r)) {
		const struct wire_rule_info *ri = wire_rule_info(r);

		fl_key(l, "rules");
		sb_puts(l->s, wire_rule_name(r));
		if (ri) {
			sb_putc(l->s, ' ');
			sb_puts(l->s, sev_name((int)ri->sev));
			sb_puts(l->s, " \"");
			sb_puts(l->s, ri->text);
			sb_putc(l->s, '"');
		}
		fl_end(l);
	}
}

static void fl_common(struct fl *l, const struct dump_rec *r, int verbose)
{
	fl_u64(l, "frame", r->frame);
	if (r->conn >= 0) {
		fl_u64(l, "conn", (uint64_t)r->conn);
		fl_u64(l, "dir", (uint64_t)r->dir);
	}
	if (r->path >= 0)
		fl_u64(l, "path", (uint64_t)r->path);
	if (r->xp == DUMP_XP_TCP && r->type != DUMP_REC_BAD)
		fl_u64(l, "offset", r->offset);
	if (r->xp == DUMP_XP_IB && r->type != DUMP_REC_BAD)
		fl_hex(l, "qpn", r->qpn, 6);
	fl_end(l);
	if (verbose >= 2) {
		int64_t ns;

		if (ts_ns(r, &ns)) {
			fl_key(l, "ts_ns");
			sb_i64(l->s, ns);
		}
		fl_u64(l, "pkt_len", r->pkt_len);
		fl_u64(l, "pkt_caplen", r->pkt_caplen);
		fl_end(l);
	}
}

static void fl_ext(struct fl *l, const struct wire_ext *e, int verbose)
{
	const char *name = wire_ext_name(e->type);

	fl_key(l, "ext");
	sb_u64(l->s, e->type);
	sb_putc(l->s, ' ');
	sb_puts(l->s, name ? name : "unknown");
	if (!e->known)
		fl_bool(l, "known", false);
	if (e->known) {
		switch (e->type) {
		case WIRE_EXT_VERSION:
			fl_hex(l, "version", e->u.version, 8);
			break;
		case WIRE_EXT_RDMA:
			fl_hex(l, "rkey", e->u.rdma_rkey, 8);
			break;
		case WIRE_EXT_RDMA_DEST:
			fl_hex(l, "rkey", e->u.rdma_dest.rkey, 8);
			fl_u64(l, "rdma_offset", e->u.rdma_dest.offset);
			break;
		case WIRE_EXT_RDMA_BYTES:
			fl_u64(l, "rdma_bytes", e->u.rdma_bytes.bytes);
			fl_hex(l, "rflags", e->u.rdma_bytes.rflags, 2);
			break;
		case WIRE_EXT_NPATHS:
			fl_u64(l, "npaths", e->u.npaths);
			break;
		case WIRE_EXT_GEN_NUM:
			fl_hex(l, "gen_num", e->u.gen_num, 8);
			break;
		case WIRE_EXT_CAP_BITS:
			fl_hex(l, "cap_bits", e->u.cap_bits, 8);
			break;
		case WIRE_EXT_SPORT_IDX:
			fl_u64(l, "sport_idx", e->u.sport_idx);
			break;
		default:
			break;
		}
	}
	if (verbose >= 2) {
		fl_u64(l, "off", e->off);
		fl_u64(l, "len", e->len);
		if (e->len && e->val)
			fl_bytes(l, "value", e->val, e->len);
	}
	fl_end(l);
}

static void fl_cong(struct fl *l, const struct dump_msg *m, int verbose)
{
	struct wire_port_range pr;
	uint32_t pos = 0;
	size_t n = 0;

	fl_bool(l, "map", m->cong_cur != NULL);
	if (!m->cong_cur) {
		fl_end(l);
		return;
	}
	while (wire_cong_diff_next(cong_old(m), m->cong_cur, &pos, &pr))
		n++;
	fl_u64(l, "congested", m->cong_count);
	fl_u64(l, "nchanges", n);
	fl_bool(l, "first_map", m->cong_prev == NULL);
	fl_end(l);
	if (verbose < 2 || !n)
		return;
	/* every range, a line per DUMP_CONG_RANGES_MAX: +congested -free */
	pos = 0;
	n = 0;
	while (wire_cong_diff_next(cong_old(m), m->cong_cur, &pos, &pr)) {
		if (n % DUMP_CONG_RANGES_MAX == 0) {
			fl_end(l);
			fl_key(l, "changes");
		} else {
			sb_putc(l->s, ' ');
		}
		sb_putc(l->s, pr.congested ? '+' : '-');
		sb_range(l->s, &pr);
		n++;
	}
	fl_end(l);
}

static void fl_msg(struct fl *l, const struct dump_rec *r, int verbose)
{
	const struct dump_msg *m = &r->u.msg;
	const struct wire_hdr *h = &m->hdr;

	fl_u64(l, "seq", h->seq);
	fl_u64(l, "ack", h->ack);
	fl_u64(l, "len", h->len);
	fl_u64(l, "rds_sport", h->sport);
	fl_u64(l, "rds_dport", h->dport);
	fl_hex(l, "flags", h->flags, 2);
	if (h->flags) {
		sb_putc(l->s, ' ');
		sb_flags(l->s, h->flags);
	}
	fl_u64(l, "credit", h->credit);
	fl_hex(l, "csum", h->csum, 4);
	fl_end(l);

	fl_str(l, "kind", wire_kind_name(m->kind));
	fl_str(l, "seq_state", dump_seq_name(m->seq));
	if (m->seq == DUMP_SEQ_SKIP || m->seq == DUMP_SEQ_DUP || m->seq == DUMP_SEQ_BACK)
		fl_u64(l, "seq_expected", m->seq_expected);
	if (m->again)
		fl_bool(l, "again", true);
	fl_u64(l, "caplen", m->caplen);
	fl_bool(l, "incomplete", m->incomplete);
	if (r->xp == DUMP_XP_IB) {
		fl_u64(l, "frags", m->frags);
		fl_bool(l, "icrc_ok", m->icrc_ok);
	} else {
		fl_u64(l, "segs", m->segs);
	}
	fl_end(l);

	for (unsigned i = 0; i < m->exts.count; i++)
		fl_ext(l, &m->exts.e[i], verbose);
	if (verbose >= 2) {
		fl_bytes(l, "pad", h->pad, sizeof(h->pad));
		fl_bytes(l, "exthdr", h->ext, sizeof(h->ext));
		fl_u64(l, "ext_end", m->exts.end);
		fl_bool(l, "ext_overrun", m->exts.overrun);
		fl_bool(l, "ext_stopped_high", m->exts.stopped_high);
		fl_end(l);
	}
	if (m->kind == WIRE_KIND_PROBE_PING || m->kind == WIRE_KIND_PROBE_PONG ||
	    m->gen_changed) {
		fl_u64(l, "conn_npaths", m->npaths);
		fl_bool(l, "gen_changed", m->gen_changed);
		if (m->gen_changed)
			fl_hex(l, "gen_prev", m->gen_prev, 8);
		fl_end(l);
	}
	if (m->kind == WIRE_KIND_CONG)
		fl_cong(l, m, verbose);
}

static void fl_note(struct fl *l, const struct dump_rec *r)
{
	fl_str(l, "note", dump_note_name(r->u.note.what));
	fl_u64(l, "len", r->u.note.len);
	fl_u64(l, "aux", r->u.note.aux);
	fl_end(l);
}

static void fl_pd(struct fl *l, const struct wire_ibpd *pd)
{
	fl_u64(l, "family", (uint64_t)pd->family);
	fl_addr(l, "saddr", pd->family, pd->saddr);
	fl_addr(l, "daddr", pd->family, pd->daddr);
	fl_u64(l, "major", pd->major);
	fl_u64(l, "minor", pd->minor);
	fl_hex(l, "minor_mask", pd->minor_mask, 4);
	fl_u64(l, "tos", pd->tos);
	fl_u64(l, "ack_seq", pd->ack_seq);
	fl_u64(l, "credit", pd->credit);
	fl_end(l);
}

static void fl_cm(struct fl *l, const struct dump_rec *r, int verbose)
{
	const struct dump_cm_rec *c = &r->u.cm;
	const struct wire_ibcm *cm = c->cm;
	const char *name;

	if (!cm)
		return;
	fl_hex(l, "attr_id", cm->attr_id, 4);
	fl_hex(l, "local_comm_id", cm->local_comm_id, 8);
	if (cm->attr_id != WIRE_IBCM_REQ)
		fl_hex(l, "remote_comm_id", cm->remote_comm_id, 8);
	switch (cm->attr_id) {
	case WIRE_IBCM_REQ:
		fl_hex(l, "service_id", cm->service_id, 16);
		__attribute__((fallthrough));
	case WIRE_IBCM_REP:
		fl_hex(l, "local_qpn", cm->local_qpn, 6);
		fl_hex(l, "starting_psn", cm->starting_psn, 6);
		break;
	case WIRE_IBCM_DREQ:
		fl_hex(l, "remote_qpn", cm->remote_qpn, 6);
		break;
	case WIRE_IBCM_REJ:
		fl_u64(l, "rej_reason", cm->rej_reason);
		name = rej_reason_name(cm->rej_reason);
		if (name) {
			sb_puts(l->s, " (");
			sb_puts(l->s, name);
			sb_putc(l->s, ')');
		}
		fl_u64(l, "rej_msg", cm->rej_msg);
		sb_putc(l->s, ' ');
		sb_puts(l->s, rej_msg_name(cm->rej_msg));
		break;
	default:
		break;
	}
	fl_u64(l, "private_len", cm->private_len);
	fl_end(l);
	if (cm->has_cma) {
		fl_u64(l, "cma_version", cm->cma_version);
		fl_u64(l, "cma_ip_version", cm->cma_ip_version);
		fl_u64(l, "cma_port", cm->cma_port);
		fl_addr(l, "cma_src", cm->cma_ip_version, cm->cma_src);
		fl_addr(l, "cma_dst", cm->cma_ip_version, cm->cma_dst);
		fl_end(l);
	}
	if (c->pd)
		fl_pd(l, c->pd);
	if (cm_has_version(cm)) {
		fl_key(l, "version");
		sb_version(l->s, c->version);
		fl_end(l);
	}
	if (verbose >= 2) {
		fl_u64(l, "base_version", cm->base_version);
		fl_hex(l, "mgmt_class", cm->mgmt_class, 2);
		fl_u64(l, "class_version", cm->class_version);
		fl_hex(l, "method", cm->method, 2);
		fl_hex(l, "status", cm->status, 4);
		fl_hex(l, "tid", cm->tid, 16);
		fl_hex(l, "attr_mod", cm->attr_mod, 8);
		fl_end(l);
		if (c->pd) {
			fl_u64(l, "reserved1", c->pd->reserved1);
			fl_u64(l, "reserved2", c->pd->reserved2);
			fl_bytes(l, "pad", c->pd->pad, sizeof(c->pd->pad));
			fl_u64(l, "extra", c->pd->extra);
			fl_end(l);
		}
	}
}

static void fl_nl(struct fl *l, const struct dump_rec *r, int verbose)
{
	const struct wire_nl_ls *nl = r->u.nl;
	const char *op;
	bool any;

	if (!nl)
		return;
	fl_u64(l, "nl_len", nl->nl_len);
	fl_hex(l, "nl_type", nl->nl_type, 4);
	fl_hex(l, "nl_flags", nl->nl_flags, 4);
	fl_u64(l, "client", nl->client);
	fl_u64(l, "op", nl->op);
	op = wire_nl_op_name(nl->op);
	if (op && nl->client == WIRE_NL_CLIENT_LS) {
		sb_putc(l->s, ' ');
		sb_puts(l->s, op);
	}
	fl_bool(l, "request", nl->is_request);
	fl_bool(l, "error", nl->is_err);
	fl_u64(l, "seq", nl->nl_seq);
	fl_u64(l, "pid", nl->nl_pid);
	fl_end(l);
	if (nl->has_resolve_hdr) {
		fl_key(l, "dev");
		sb_dev(l->s, nl);
		fl_u64(l, "port", nl->port_num);
		fl_u64(l, "path_use", nl->path_use);
		fl_end(l);
	}
	if (nl->has_ip_resolve_hdr) {
		fl_u64(l, "ifindex", nl->ifindex);
		fl_end(l);
	}
	any = false;
	for (unsigned i = 0; i < WIRE_NL_LS_ATTR_MAX; i++)
		any |= nl->present[i];
	if (any) {
		fl_key(l, "attrs");
		sb_nl_attrs(l->s, nl, nl->present);
		any = false;
		for (unsigned i = 0; i < WIRE_NL_LS_ATTR_MAX; i++)
			any |= nl->mandatory[i];
		if (any) {
			fl_key(l, "mandatory");
			sb_nl_attrs(l->s, nl, nl->mandatory);
		}
		fl_end(l);
	}
	if (nl->present[WIRE_NL_LS_TIMEOUT])
		fl_u64(l, "timeout", nl->timeout);
	if (nl->present[WIRE_NL_LS_SERVICE_ID])
		fl_hex(l, "service_id", nl->service_id, 16);
	if (nl->present[WIRE_NL_LS_DGID])
		fl_addr(l, "dgid", 6, nl->dgid);
	if (nl->present[WIRE_NL_LS_SGID])
		fl_addr(l, "sgid", 6, nl->sgid);
	if (nl->present[WIRE_NL_LS_TCLASS])
		fl_u64(l, "tclass", nl->tclass);
	if (nl->present[WIRE_NL_LS_PKEY])
		fl_hex(l, "pkey", nl->pkey, 4);
	if (nl->present[WIRE_NL_LS_QOS_CLASS])
		fl_u64(l, "qos_class", nl->qos_class);
	if (nl->present[WIRE_NL_LS_IPV4])
		fl_addr(l, "ipv4", 4, nl->ipv4);
	if (nl->present[WIRE_NL_LS_IPV6])
		fl_addr(l, "ipv6", 6, nl->ipv6);
	if (nl->present[WIRE_NL_LS_PATH_RECORD])
		fl_u64(l, "paths", nl->npaths);
	fl_end(l);
	if (verbose >= 2) {
		unsigned np = nl->npaths < WIRE_NL_MAX_PATHS ? nl->npaths : WIRE_NL_MAX_PATHS;

		for (unsigned i = 0; i < np; i++) {
			fl_hex(l, "flags", nl->paths[i].flags, 8);
			fl_u64(l, "reserved", nl->paths[i].reserved);
			fl_bytes(l, "rec", nl->paths[i].rec, sizeof(nl->paths[i].rec));
			fl_end(l);
		}
		if (nl->has_resolve_hdr) {
			fl_bytes(l, "resolve_pad", nl->resolve_pad, sizeof(nl->resolve_pad));
			fl_end(l);
		}
	}
}

static void fl_bad(struct fl *l, const struct dump_rec *r)
{
	fl_str(l, "layer", r->u.bad.layer ? r->u.bad.layer : "?");
	fl_key(l, "error");
	sb_putc(l->s, '"');
	sb_puts(l->s, wire_strerror(r->u.bad.err));
	sb_putc(l->s, '"');
	fl_key(l, "err");
	sb_i64(l->s, r->u.bad.err);
	fl_end(l);
}

/* ------------------------------------------------------------------------
 * Hex dumps (-X, -XX), tcpdump's layout
 */

static void sb_hexdump(struct sb *s, const uint8_t *p, size_t len)
{
	for (size_t off = 0; off < len; off += 16) {
		size_t n = len - off < 16 ? len - off : 16;
		char *w;
		size_t k = 0;

		/* offset up to 16 digits, 8 groups of 5, 2 + 16 ASCII, newline */
		w = sb_room(s, 1 + 2 + 16 + 2 + 40 + 2 + 16 + 1);
		w[k++] = '\t';
		w[k++] = '0';
		w[k++] = 'x';
		{
			int digits = 4;

			while (digits < 16 && (off >> (4 * digits)))
				digits++;
			for (int d = digits - 1; d >= 0; d--)
				w[k++] = hexdig[(off >> (4 * d)) & 15];
		}
		w[k++] = ':';
		w[k++] = ' ';
		for (size_t i = 0; i < 16; i += 2) {
			w[k++] = ' ';
			for (size_t j = i; j < i + 2; j++) {
				if (j < n) {
					w[k++] = hexdig[p[off + j] >> 4];
					w[k++] = hexdig[p[off + j] & 15];
				} else {
					w[k++] = ' ';
					w[k++] = ' ';
				}
			}
		}
		w[k++] = ' ';
		w[k++] = ' ';
		for (size_t i = 0; i < n; i++) {
			uint8_t c = p[off + i];

			w[k++] = (c >= 0x20 && c < 0x7f) ? (char)c : '.';
		}
		w[k++] = '\n';
		s->n += k;
	}
}

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
 * JSON
 */

static void j_u64(struct json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, json_object_new_uint64(v));
}

static void j_i64(struct json_object *o, const char *k, int64_t v)
{
	json_object_object_add(o, k, json_object_new_int64(v));
}

static void j_str(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, v ? json_object_new_string(v) : NULL);
}

static void j_bool(struct json_object *o, const char *k, bool v)
{
	json_object_object_add(o, k, json_object_new_boolean(v));
}

static void j_null(struct json_object *o, const char *k)
{
	json_object_object_add(o, k, NULL);
}

static void j_addr(struct json_object *o, const char *k, int family, const uint8_t *a)
{
	char buf[INET6_ADDRSTRLEN];

	if (family != 4 && family != 6)
		j_null(o, k);
	else
		j_str(o, k, addr_str(buf, family, a));
}

static void j_bytes(struct json_object *o, const char *k, const uint8_t *p, size_t len)
{
	char small[256];
	char *buf = small;

	if (len * 2 + 1 > sizeof(small)) {
		buf = malloc(len * 2 + 1);
		if (!buf) {
			j_null(o, k);
			return;
		}
	}
	for (size_t i = 0; i < len; i++) {
		buf[2 * i] = hexdig[p[i] >> 4];
		buf[2 * i + 1] = hexdig[p[i] & 15];
	}
	buf[len * 2] = '\0';
	j_str(o, k, buf);
	if (buf != small)
		free(buf);
}

static void j_rules(struct json_object *o, const struct wire_rules *set)
{
	struct json_object *a = json_object_new_array();
	struct rule_it it;
	enum wire_rule r;

	rule_it_init(&it, set);
	while (rule_it_next(&it, &r))
		json_object_array_add(a, json_object_new_string(wire_rule_name(r)));
	json_object_object_add(o, "rules", a);
}

static void j_common(struct json_object *o, const struct dump_rec *r)
{
	time_t t = (time_t)r->ts_sec;
	struct tm tm;
	char iso[64];
	int64_t ns;

	j_str(o, "type", rec_type_name(r->type));
	j_u64(o, "frame", r->frame);
	if (ts_ns(r, &ns))
		j_i64(o, "ts_ns", ns);
	else
		j_null(o, "ts_ns");
	if (gmtime_r(&t, &tm)) {
		snprintf(iso, sizeof(iso), "%04d-%02d-%02dT%02d:%02d:%02d.%09uZ",
			 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
			 tm.tm_sec, (unsigned)r->ts_nsec);
		j_str(o, "ts", iso);
	} else {
		j_null(o, "ts");
	}
	j_str(o, "xport", dump_xport_name(r->xp));
	j_addr(o, "src", r->src.family, r->src.addr);
	if (r->src.family == 4 || r->src.family == 6)
		j_u64(o, "sport", r->src.port);
	else
		j_null(o, "sport");
	j_addr(o, "dst", r->dst.family, r->dst.addr);
	if (r->dst.family == 4 || r->dst.family == 6)
		j_u64(o, "dport", r->dst.port);
	else
		j_null(o, "dport");
	if (r->xp == DUMP_XP_IB && r->type != DUMP_REC_BAD)
		j_u64(o, "qpn", r->qpn);
	else
		j_null(o, "qpn");
	if (r->conn >= 0) {
		j_i64(o, "conn", r->conn);
		j_i64(o, "dir", r->dir);
	} else {
		j_null(o, "conn");
		j_null(o, "dir");
	}
	if (r->path >= 0)
		j_i64(o, "path", r->path);
	else
		j_null(o, "path");
	if (r->xp == DUMP_XP_TCP && r->type != DUMP_REC_BAD)
		j_u64(o, "offset", r->offset);
	else
		j_null(o, "offset");
	j_u64(o, "pkt_len", r->pkt_len);
	j_u64(o, "pkt_caplen", r->pkt_caplen);
}

static struct json_object *j_ext(const struct wire_ext *e)
{
	struct json_object *o = json_object_new_object();
	const char *name = wire_ext_name(e->type);

	j_u64(o, "type", e->type);
	j_str(o, "name", name);
	j_bool(o, "known", e->known);
	j_u64(o, "off", e->off);
	j_u64(o, "len", e->len);
	if (e->len && e->val)
		j_bytes(o, "value", e->val, e->len);
	else
		j_null(o, "value");
	if (!e->known)
		return o;
	switch (e->type) {
	case WIRE_EXT_VERSION:
		j_u64(o, "version", e->u.version);
		break;
	case WIRE_EXT_RDMA:
		j_u64(o, "rkey", e->u.rdma_rkey);
		break;
	case WIRE_EXT_RDMA_DEST:
		j_u64(o, "rkey", e->u.rdma_dest.rkey);
		j_u64(o, "rdma_offset", e->u.rdma_dest.offset);
		break;
	case WIRE_EXT_RDMA_BYTES:
		j_u64(o, "rdma_bytes", e->u.rdma_bytes.bytes);
		j_u64(o, "rflags", e->u.rdma_bytes.rflags);
		break;
	case WIRE_EXT_NPATHS:
		j_u64(o, "npaths", e->u.npaths);
		break;
	case WIRE_EXT_GEN_NUM:
		j_u64(o, "gen_num", e->u.gen_num);
		break;
	case WIRE_EXT_CAP_BITS:
		j_u64(o, "cap_bits", e->u.cap_bits);
		break;
	case WIRE_EXT_SPORT_IDX:
		j_u64(o, "sport_idx", e->u.sport_idx);
		break;
	default:
		break;
	}
	return o;
}

static void j_cong(struct json_object *o, const struct dump_msg *m)
{
	struct json_object *c, *a;
	struct wire_port_range pr;
	uint32_t pos = 0;
	size_t n = 0;

	if (m->kind != WIRE_KIND_CONG) {
		j_null(o, "cong");
		return;
	}
	c = json_object_new_object();
	j_bool(c, "map", m->cong_cur != NULL);
	if (m->cong_cur) {
		a = json_object_new_array();
		while (wire_cong_diff_next(cong_old(m), m->cong_cur, &pos, &pr)) {
			struct json_object *x = json_object_new_object();

			j_u64(x, "first", pr.first);
			j_u64(x, "last", pr.last);
			j_str(x, "state", pr.congested ? "congested" : "free");
			json_object_array_add(a, x);
			n++;
		}
		j_u64(c, "congested", m->cong_count);
		j_u64(c, "nchanges", n);
		j_bool(c, "first_map", m->cong_prev == NULL);
		json_object_object_add(c, "changes", a);
	}
	json_object_object_add(o, "cong", c);
}

static void j_msg(struct json_object *o, const struct dump_rec *r)
{
	const struct dump_msg *m = &r->u.msg;
	const struct wire_hdr *h = &m->hdr;
	struct json_object *a;

	j_str(o, "kind", wire_kind_name(m->kind));
	j_u64(o, "seq", h->seq);
	j_u64(o, "ack", h->ack);
	j_u64(o, "len", h->len);
	j_u64(o, "rds_sport", h->sport);
	j_u64(o, "rds_dport", h->dport);
	j_u64(o, "flags", h->flags);
	a = json_object_new_array();
	for (unsigned i = 0; i < 8; i++) {
		uint8_t bit = (uint8_t)(1u << i);
		const char *name = wire_flag_name(bit);
		char tmp[8];

		if (!(h->flags & bit))
			continue;
		if (!name) {
			snprintf(tmp, sizeof(tmp), "0x%02x", bit);
			name = tmp;
		}
		json_object_array_add(a, json_object_new_string(name));
	}
	json_object_object_add(o, "flag_names", a);
	j_u64(o, "credit", h->credit);
	j_u64(o, "csum", h->csum);
	j_bytes(o, "pad", h->pad, sizeof(h->pad));
	j_bytes(o, "exthdr", h->ext, sizeof(h->ext));
	a = json_object_new_array();
	for (unsigned i = 0; i < m->exts.count; i++)
		json_object_array_add(a, j_ext(&m->exts.e[i]));
	json_object_object_add(o, "ext", a);
	j_u64(o, "ext_end", m->exts.end);
	j_bool(o, "ext_overrun", m->exts.overrun);
	j_bool(o, "ext_stopped_high", m->exts.stopped_high);
	j_str(o, "seq_state", dump_seq_name(m->seq));
	if (m->seq == DUMP_SEQ_SKIP || m->seq == DUMP_SEQ_DUP || m->seq == DUMP_SEQ_BACK)
		j_u64(o, "seq_expected", m->seq_expected);
	else
		j_null(o, "seq_expected");
	j_bool(o, "again", m->again);
	j_u64(o, "caplen", m->caplen);
	j_bool(o, "incomplete", m->incomplete);
	if (r->xp == DUMP_XP_IB) {
		j_u64(o, "frags", m->frags);
		j_null(o, "segs");
		j_bool(o, "icrc_ok", m->icrc_ok);
	} else {
		j_null(o, "frags");
		j_u64(o, "segs", m->segs);
		j_null(o, "icrc_ok");
	}
	if (m->npaths)
		j_u64(o, "conn_npaths", m->npaths);
	else
		j_null(o, "conn_npaths");
	j_bool(o, "gen_changed", m->gen_changed);
	if (m->gen_changed)
		j_u64(o, "gen_prev", m->gen_prev);
	else
		j_null(o, "gen_prev");
	j_cong(o, m);
}

static void j_note(struct json_object *o, const struct dump_rec *r)
{
	j_str(o, "note", dump_note_name(r->u.note.what));
	j_u64(o, "len", r->u.note.len);
	j_u64(o, "aux", r->u.note.aux);
}

static void j_cm(struct json_object *o, const struct dump_rec *r)
{
	const struct dump_cm_rec *c = &r->u.cm;
	const struct wire_ibcm *cm = c->cm;
	const struct wire_ibpd *pd = c->pd;
	uint16_t at;

	if (!cm) {
		j_null(o, "cm");
		return;
	}
	at = cm->attr_id;
	j_str(o, "cm", wire_ibcm_attr_name(at));
	j_u64(o, "attr_id", at);
	j_u64(o, "base_version", cm->base_version);
	j_u64(o, "mgmt_class", cm->mgmt_class);
	j_u64(o, "class_version", cm->class_version);
	j_u64(o, "method", cm->method);
	j_u64(o, "status", cm->status);
	j_u64(o, "tid", cm->tid);
	j_u64(o, "attr_mod", cm->attr_mod);
	j_u64(o, "local_comm_id", cm->local_comm_id);
	if (at != WIRE_IBCM_REQ)
		j_u64(o, "remote_comm_id", cm->remote_comm_id);
	else
		j_null(o, "remote_comm_id");
	if (at == WIRE_IBCM_REQ)
		j_u64(o, "service_id", cm->service_id);
	else
		j_null(o, "service_id");
	if (at == WIRE_IBCM_REQ || at == WIRE_IBCM_REP) {
		j_u64(o, "local_qpn", cm->local_qpn);
		j_u64(o, "starting_psn", cm->starting_psn);
	} else {
		j_null(o, "local_qpn");
		j_null(o, "starting_psn");
	}
	if (at == WIRE_IBCM_DREQ)
		j_u64(o, "remote_qpn", cm->remote_qpn);
	else
		j_null(o, "remote_qpn");
	if (at == WIRE_IBCM_REJ) {
		j_u64(o, "rej_reason", cm->rej_reason);
		j_u64(o, "rej_msg", cm->rej_msg);
	} else {
		j_null(o, "rej_reason");
		j_null(o, "rej_msg");
	}
	j_u64(o, "private_len", cm->private_len);
	if (cm->has_cma) {
		j_u64(o, "cma_version", cm->cma_version);
		j_u64(o, "cma_ip_version", cm->cma_ip_version);
		j_u64(o, "cma_port", cm->cma_port);
		j_addr(o, "cma_src", cm->cma_ip_version, cm->cma_src);
		j_addr(o, "cma_dst", cm->cma_ip_version, cm->cma_dst);
	} else {
		j_null(o, "cma_version");
		j_null(o, "cma_ip_version");
		j_null(o, "cma_port");
		j_null(o, "cma_src");
		j_null(o, "cma_dst");
	}
	if (pd) {
		struct json_object *p = json_object_new_object();

		j_u64(p, "family", (uint64_t)pd->family);
		j_addr(p, "saddr", pd->family, pd->saddr);
		j_addr(p, "daddr", pd->family, pd->daddr);
		j_u64(p, "major", pd->major);
		j_u64(p, "minor", pd->minor);
		j_u64(p, "minor_mask", pd->minor_mask);
		j_u64(p, "tos", pd->tos);
		j_u64(p, "reserved1", pd->reserved1);
		j_u64(p, "reserved2", pd->reserved2);
		j_u64(p, "ack_seq", pd->ack_seq);
		j_u64(p, "credit", pd->credit);
		j_bytes(p, "pad", pd->pad, sizeof(pd->pad));
		j_u64(p, "extra", pd->extra);
		json_object_object_add(o, "pd", p);
	} else {
		j_null(o, "pd");
	}
	if (cm_has_version(cm)) {
		char v[16];

		if (c->version)
			snprintf(v, sizeof(v), "%u.%u", (unsigned)(c->version >> 8),
				 (unsigned)(c->version & 0xff));
		else
			snprintf(v, sizeof(v), "reject");
		j_str(o, "version", v);
	} else {
		j_null(o, "version");
	}
}

static struct json_object *j_nl_attrs(const bool *which)
{
	struct json_object *a = json_object_new_array();

	for (unsigned i = 0; i < WIRE_NL_LS_ATTR_MAX; i++) {
		const char *name;

		if (!which[i])
			continue;
		name = wire_nl_attr_name(i);
		json_object_array_add(a, name ? json_object_new_string(name)
					      : json_object_new_int64(i));
	}
	return a;
}

static void j_nl(struct json_object *o, const struct dump_rec *r)
{
	const struct wire_nl_ls *nl = r->u.nl;
	struct json_object *a;
	unsigned np;

	if (!nl) {
		j_null(o, "op");
		return;
	}
	j_u64(o, "client", nl->client);
	j_u64(o, "op", nl->op);
	j_str(o, "op_name", nl->client == WIRE_NL_CLIENT_LS ? wire_nl_op_name(nl->op) : NULL);
	j_u64(o, "nl_len", nl->nl_len);
	j_u64(o, "nl_type", nl->nl_type);
	j_u64(o, "nl_flags", nl->nl_flags);
	j_u64(o, "seq", nl->nl_seq);
	j_u64(o, "pid", nl->nl_pid);
	j_bool(o, "request", nl->is_request);
	j_bool(o, "error", nl->is_err);
	if (nl->has_resolve_hdr) {
		char buf[WIRE_NL_DEVICE_NAME_MAX * 4 + 1];

		esc_str(buf, sizeof(buf), nl->device_name, WIRE_NL_DEVICE_NAME_MAX);
		j_str(o, "dev", buf);
		j_u64(o, "port", nl->port_num);
		j_u64(o, "path_use", nl->path_use);
		j_bytes(o, "resolve_pad", nl->resolve_pad, sizeof(nl->resolve_pad));
	} else {
		j_null(o, "dev");
		j_null(o, "port");
		j_null(o, "path_use");
		j_null(o, "resolve_pad");
	}
	if (nl->has_ip_resolve_hdr)
		j_u64(o, "ifindex", nl->ifindex);
	else
		j_null(o, "ifindex");
	json_object_object_add(o, "attrs", j_nl_attrs(nl->present));
	json_object_object_add(o, "mandatory", j_nl_attrs(nl->mandatory));
	if (nl->present[WIRE_NL_LS_TIMEOUT])
		j_u64(o, "timeout", nl->timeout);
	else
		j_null(o, "timeout");
	if (nl->present[WIRE_NL_LS_SERVICE_ID])
		j_u64(o, "service_id", nl->service_id);
	else
		j_null(o, "service_id");
	j_addr(o, "dgid", nl->present[WIRE_NL_LS_DGID] ? 6 : 0, nl->dgid);
	j_addr(o, "sgid", nl->present[WIRE_NL_LS_SGID] ? 6 : 0, nl->sgid);
	if (nl->present[WIRE_NL_LS_TCLASS])
		j_u64(o, "tclass", nl->tclass);
	else
		j_null(o, "tclass");
	if (nl->present[WIRE_NL_LS_PKEY])
		j_u64(o, "pkey", nl->pkey);
	else
		j_null(o, "pkey");
	if (nl->present[WIRE_NL_LS_QOS_CLASS])
		j_u64(o, "qos_class", nl->qos_class);
	else
		j_null(o, "qos_class");
	j_addr(o, "ipv4", nl->present[WIRE_NL_LS_IPV4] ? 4 : 0, nl->ipv4);
	j_addr(o, "ipv6", nl->present[WIRE_NL_LS_IPV6] ? 6 : 0, nl->ipv6);
	j_u64(o, "paths", nl->npaths);
	a = json_object_new_array();
	np = nl->npaths < WIRE_NL_MAX_PATHS ? nl->npaths : WIRE_NL_MAX_PATHS;
	for (unsigned i = 0; i < np; i++) {
		struct json_object *p = json_object_new_object();

		j_u64(p, "flags", nl->paths[i].flags);
		j_u64(p, "reserved", nl->paths[i].reserved);
		j_bytes(p, "rec", nl->paths[i].rec, sizeof(nl->paths[i].rec));
		json_object_array_add(a, p);
	}
	json_object_object_add(o, "path_records", a);
}

static void j_bad(struct json_object *o, const struct dump_rec *r)
{
	j_str(o, "layer", r->u.bad.layer ? r->u.bad.layer : "?");
	j_str(o, "error", wire_strerror(r->u.bad.err));
	j_i64(o, "err", r->u.bad.err);
}

static void j_write(FILE *f, struct json_object *o)
{
	size_t len;
	const char *txt = json_object_to_json_string_length(
		o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);

	fwrite(txt, 1, len, f);
	fputc('\n', f);
}

static void print_json(const struct dump_render *o, const struct dump_rec *r)
{
	struct json_object *j = json_object_new_object();

	if (!j)
		return;
	j_common(j, r);
	switch (r->type) {
	case DUMP_REC_MSG:
		j_msg(j, r);
		break;
	case DUMP_REC_NOTE:
		j_note(j, r);
		break;
	case DUMP_REC_CM:
		j_cm(j, r);
		break;
	case DUMP_REC_NL:
		j_nl(j, r);
		break;
	case DUMP_REC_BAD:
		j_bad(j, r);
		break;
	}
	j_rules(j, &r->rules);
	if (o->hex) {
		uint8_t tmp[WIRE_HDR_LEN + DUMP_HEX_PAYLOAD_MAX];
		const uint8_t *p;
		size_t len = hex_bytes(o, r, tmp, &p);

		j_bytes(j, "hex", p, len);
	}
	j_write(o->out, j);
	json_object_put(j);
}

/* ------------------------------------------------------------------------
 * Records
 */

void dump_print_rec(const struct dump_render *o, const struct dump_rec *r)
{
	struct sb s;

	if (o->json) {
		print_json(o, r);
		return;
	}
	s.f = o->out;
	s.n = 0;
	put_ts(&s, o, r);
	put_flow(&s, r);
	switch (r->type) {
	case DUMP_REC_MSG:
		line_msg(&s, r);
		break;
	case DUMP_REC_NOTE:
		line_note(&s, r);
		break;
	case DUMP_REC_CM:
		line_cm(&s, r);
		break;
	case DUMP_REC_NL:
		line_nl(&s, r);
		break;
	case DUMP_REC_BAD:
		line_bad(&s, r);
		break;
	default:
		sb_puts(&s, "record type ");
		sb_u64(&s, (uint64_t)r->type);
		break;
	}
	if (!wire_rules_empty(&r->rules)) {
		sb_puts(&s, " !");
		sb_rule_list(&s, &r->rules, ',');
	}
	sb_putc(&s, '\n');

	if (o->verbose > 0) {
		struct fl l = { .s = &s, .open = false };

		switch (r->type) {
		case DUMP_REC_MSG:
			fl_msg(&l, r, o->verbose);
			break;
		case DUMP_REC_NOTE:
			fl_note(&l, r);
			break;
		case DUMP_REC_CM:
			fl_cm(&l, r, o->verbose);
			break;
		case DUMP_REC_NL:
			fl_nl(&l, r, o->verbose);
			break;
		case DUMP_REC_BAD:
			fl_bad(&l, r);
			break;
		}
		fl_rules(&l, &r->rules, o->verbose);
		fl_common(&l, r, o->verbose);
	}
	if (o->hex) {
		uint8_t tmp[WIRE_HDR_LEN + DUMP_HEX_PAYLOAD_MAX];
		const uint8_t *p;
		size_t len = hex_bytes(o, r, tmp, &p);

		sb_hexdump(&s, p, len);
	}
	sb_flush(&s);
}

/* ------------------------------------------------------------------------
 * -z
 */

static const char *const st_cols[] = {
	"msgs",      "bytes",     "retransmitted", "dups",    "skips",
	"skipped",   "backs",     "again",         "cong_updates", "rule_msgs",
	"gaps",      "gap_bytes", "resyncs",       "conns",
};
#define NCOLS (sizeof(st_cols) / sizeof(st_cols[0]))

static void st_values(const struct dump_pstats *p, uint64_t v[NCOLS])
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
	v[13] = p->conns;
}

static bool st_used(const struct dump_pstats *p)
{
	uint64_t v[NCOLS];

	st_values(p, v);
	for (size_t i = 0; i < NCOLS; i++)
		if (v[i])
			return true;
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

static void sb_pad(struct sb *s, int n)
{
	while (n-- > 0)
		sb_putc(s, ' ');
}

static void stats_text(const struct dump_render *o, const struct dump_conn *c)
{
	struct sb s;
	int w[NCOLS];
	bool any = false;
	bool rules = false;

	s.f = o->out;
	s.n = 0;
	sb_puts(&s, "conn ");
	sb_u64(&s, (uint64_t)c->id);
	sb_putc(&s, ' ');
	sb_puts(&s, xport_label(c->xp));
	sb_putc(&s, ' ');
	sb_addr(&s, c->a.family, c->a.addr);
	sb_puts(&s, " <-> ");
	sb_addr(&s, c->b.family, c->b.addr);
	sb_puts(&s, " npaths ");
	sb_u64(&s, c->npaths);
	sb_puts(&s, " adv_npaths ");
	sb_u64(&s, c->adv_npaths[0]);
	sb_putc(&s, ' ');
	sb_u64(&s, c->adv_npaths[1]);
	sb_puts(&s, " sport_idx ");
	sb_u64(&s, c->sport_idx[0]);
	sb_putc(&s, ' ');
	sb_u64(&s, c->sport_idx[1]);
	sb_puts(&s, " gen ");
	sb_hex(&s, c->gen[0], 8);
	sb_putc(&s, ' ');
	sb_hex(&s, c->gen[1], 8);
	sb_puts(&s, " gen_changes ");
	sb_u64(&s, c->gen_changes[0]);
	sb_putc(&s, ' ');
	sb_u64(&s, c->gen_changes[1]);
	sb_putc(&s, '\n');

	for (size_t i = 0; i < NCOLS; i++)
		w[i] = (int)strlen(st_cols[i]);
	for (int p = 0; p < WIRE_MAX_PATHS; p++) {
		for (int d = 0; d < 2; d++) {
			uint64_t v[NCOLS];

			if (!st_used(&c->st[p][d]))
				continue;
			any = true;
			st_values(&c->st[p][d], v);
			for (size_t i = 0; i < NCOLS; i++)
				if (udigits(v[i]) > w[i])
					w[i] = udigits(v[i]);
		}
	}
	if (!any) {
		sb_puts(&s, "  no messages\n");
	} else {
		sb_puts(&s, "  path dir");
		for (size_t i = 0; i < NCOLS; i++) {
			sb_putc(&s, ' ');
			sb_pad(&s, w[i] - (int)strlen(st_cols[i]));
			sb_puts(&s, st_cols[i]);
		}
		sb_putc(&s, '\n');
		for (int p = 0; p < WIRE_MAX_PATHS; p++) {
			for (int d = 0; d < 2; d++) {
				uint64_t v[NCOLS];

				if (!st_used(&c->st[p][d]))
					continue;
				st_values(&c->st[p][d], v);
				sb_puts(&s, "  ");
				sb_pad(&s, 4 - udigits((uint64_t)p));
				sb_u64(&s, (uint64_t)p);
				sb_puts(&s, d ? " b>a" : " a>b");
				for (size_t i = 0; i < NCOLS; i++) {
					sb_putc(&s, ' ');
					sb_pad(&s, w[i] - udigits(v[i]));
					sb_u64(&s, v[i]);
				}
				sb_putc(&s, '\n');
			}
		}
	}
	for (unsigned r = 1; r < WIRE_RULE__COUNT; r++) {
		if (!c->rule_counts[r])
			continue;
		sb_puts(&s, rules ? ", " : "  rules ");
		rules = true;
		sb_puts(&s, wire_rule_name((enum wire_rule)r));
		sb_putc(&s, ' ');
		sb_u64(&s, c->rule_counts[r]);
	}
	if (rules)
		sb_putc(&s, '\n');
	sb_flush(&s);
}

static struct json_object *j_pair_u64(uint64_t a, uint64_t b)
{
	struct json_object *x = json_object_new_array();

	json_object_array_add(x, json_object_new_uint64(a));
	json_object_array_add(x, json_object_new_uint64(b));
	return x;
}

static struct json_object *stats_json(const struct dump_conn *c)
{
	struct json_object *o = json_object_new_object();
	struct json_object *a, *x;

	j_i64(o, "conn", c->id);
	j_str(o, "xport", dump_xport_name(c->xp));
	j_addr(o, "a", c->a.family, c->a.addr);
	j_addr(o, "b", c->b.family, c->b.addr);
	j_u64(o, "npaths", c->npaths);
	json_object_object_add(o, "adv_npaths", j_pair_u64(c->adv_npaths[0], c->adv_npaths[1]));
	x = json_object_new_array();
	json_object_array_add(x, json_object_new_boolean(c->sport_idx[0]));
	json_object_array_add(x, json_object_new_boolean(c->sport_idx[1]));
	json_object_object_add(o, "sport_idx", x);
	json_object_object_add(o, "gen", j_pair_u64(c->gen[0], c->gen[1]));
	json_object_object_add(o, "gen_changes",
			       j_pair_u64(c->gen_changes[0], c->gen_changes[1]));
	a = json_object_new_array();
	for (int p = 0; p < WIRE_MAX_PATHS; p++) {
		for (int d = 0; d < 2; d++) {
			uint64_t v[NCOLS];

			if (!st_used(&c->st[p][d]))
				continue;
			st_values(&c->st[p][d], v);
			x = json_object_new_object();
			j_i64(x, "path", p);
			j_i64(x, "dir", d);
			for (size_t i = 0; i < NCOLS; i++)
				j_u64(x, st_cols[i], v[i]);
			json_object_array_add(a, x);
		}
	}
	json_object_object_add(o, "paths", a);
	x = json_object_new_object();
	for (unsigned r = 1; r < WIRE_RULE__COUNT; r++)
		if (c->rule_counts[r])
			j_u64(x, wire_rule_name((enum wire_rule)r), c->rule_counts[r]);
	json_object_object_add(o, "rules", x);
	return o;
}

void dump_print_stats(const struct dump_render *o, const struct dump_conn *const *conns,
		      size_t n)
{
	if (o->json) {
		struct json_object *j = json_object_new_object();
		struct json_object *a = json_object_new_array();

		j_str(j, "type", "stats");
		for (size_t i = 0; i < n; i++)
			json_object_array_add(a, stats_json(conns[i]));
		json_object_object_add(j, "conns", a);
		j_write(o->out, j);
		json_object_put(j);
		return;
	}
	for (size_t i = 0; i < n; i++)
		stats_text(o, conns[i]);
}
