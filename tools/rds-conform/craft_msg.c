// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * craft_msg.c - rds-conform craft: option values to a message, and a
 * message to bytes (craft.h). Pure: no I/O, no clock, no allocation.
 * Ref: net/rds/rds.h struct rds_header; net/rds/send.c rds_send_probe;
 * net/rds/cong.c; net/rds/message.c rds_message_add_extension.
 *
 * Every value a user can give is taken as given, however wrong: the point
 * of a crafter is the message a correct sender would never write. Only
 * what cannot be expressed at all (a port above 65535, odd hex digits) is
 * an error.
 */
#include "craft.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "out.h"
#include "parse.h"

void craft_msg_init(struct craft_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->kind = CRAFT_DATA;
	m->kv = WIRE_KVER_7;
	m->csum = CRAFT_CSUM_ZERO;
	wire_cong_clear_all(&m->cong);
}

const uint8_t *craft_payload(const struct craft_msg *m, size_t *len)
{
	if (m->has_payload) {
		*len = m->payload_len;
		return m->payload;
	}
	if (m->kind == CRAFT_CONG) {
		*len = WIRE_CONG_MAP_BYTES;
		return m->cong.bits;
	}
	*len = 0;
	return NULL;
}

size_t craft_full_size(const struct craft_msg *m)
{
	size_t n;

	craft_payload(m, &n);
	return WIRE_HDR_LEN + n;
}

size_t craft_size(const struct craft_msg *m)
{
	size_t n = craft_full_size(m);

	return m->has_truncate && m->truncate < n ? m->truncate : n;
}

/* The extension area: --ext-raw verbatim, or each --ext in order, placed
 * by wire_ext_add as a 7.x sender does while it can, and byte for byte
 * (cut at 16) where a 7.x sender could not: unknown types, no room.
 * Return: bytes cut off. */
static size_t ext_area(const struct craft_msg *m, uint8_t area[WIRE_EXT_SPACE])
{
	size_t off = 0, cut = 0;

	if (m->has_ext_raw) {
		memcpy(area, m->ext_raw, WIRE_EXT_SPACE);
		return 0;
	}
	memset(area, 0, WIRE_EXT_SPACE);
	for (unsigned i = 0; i < m->n_ext; i++) {
		const struct craft_ext *x = &m->ext[i];
		size_t n;

		if (x->known && wire_ext_add(area, &x->e, WIRE_KVER_7) == 1) {
			off += x->n;
			continue;
		}
		n = x->n < WIRE_EXT_SPACE - off ? x->n : WIRE_EXT_SPACE - off;
		memcpy(area + off, x->b, n);
		off += n;
		cut += x->n - n;
	}
	return cut;
}

size_t craft_hdr(const struct craft_msg *m, uint64_t i, struct wire_hdr *h)
{
	uint64_t seq = m->set & CRAFT_SET_SEQ ? m->seq : m->preface ? 2 : 1;
	uint64_t step = m->set & CRAFT_SET_STEP ? m->seq_step : m->kind == CRAFT_CONG ? 0 : 1;
	size_t plen, cut = 0;

	craft_payload(m, &plen);
	switch (m->kind) {
	case CRAFT_DATA:
		wire_build_data(h, seq, 4000, 4001, 0);
		break;
	case CRAFT_PING:
		wire_build_ping(h, seq, 4000);
		break;
	case CRAFT_PONG:
		wire_build_pong(h, seq, 4000);
		break;
	case CRAFT_PROBE_PING:
	case CRAFT_PROBE_PONG:
		wire_build_probe(h, m->kind == CRAFT_PROBE_PONG, seq, m->kv, WIRE_MAX_PATHS,
				 CRAFT_DEFAULT_GEN);
		break;
	case CRAFT_CONG:
		wire_build_cong(h);
		break;
	}
	if (m->set & CRAFT_SET_SEQ || m->kind != CRAFT_CONG)
		h->seq = seq;
	h->seq += i * step;
	if (m->set & CRAFT_SET_ACK)
		h->ack = m->ack;
	h->len = m->set & CRAFT_SET_LEN ? m->len : (uint32_t)plen;
	if (m->set & CRAFT_SET_SPORT)
		h->sport = m->sport;
	if (m->set & CRAFT_SET_DPORT)
		h->dport = m->dport;
	if (m->set & CRAFT_SET_FLAGS)
		h->flags = m->flags;
	if (m->set & CRAFT_SET_CREDIT)
		h->credit = m->credit;
	if (m->set & CRAFT_SET_PAD)
		memcpy(h->pad, m->pad, sizeof(h->pad));
	if (m->has_ext_raw || m->n_ext)
		cut = ext_area(m, h->ext);
	h->csum = 0;
	switch (m->csum) {
	case CRAFT_CSUM_ZERO:
		break;
	case CRAFT_CSUM_AUTO:
		wire_hdr_csum_set(h);
		break;
	case CRAFT_CSUM_BAD: {
		uint16_t good = wire_hdr_csum_compute(h);

		h->csum = (uint16_t)(good + 1) ? (uint16_t)(good + 1) : (uint16_t)(good + 2);
		break;
	}
	case CRAFT_CSUM_VALUE:
		h->csum = m->csum_value;
		break;
	}
	return cut;
}

ssize_t craft_build(const struct craft_msg *m, uint64_t i, uint8_t *buf, size_t cap)
{
	uint8_t hb[WIRE_HDR_LEN];
	size_t n = craft_size(m), plen, hn;
	const uint8_t *pl = craft_payload(m, &plen);
	struct wire_hdr h;

	if (cap < n)
		return -1;
	craft_hdr(m, i, &h);
	wire_hdr_encode(&h, hb, sizeof(hb));
	hn = n < WIRE_HDR_LEN ? n : WIRE_HDR_LEN;
	memcpy(buf, hb, hn);
	if (n > WIRE_HDR_LEN)
		memcpy(buf + WIRE_HDR_LEN, pl, n - WIRE_HDR_LEN);
	return (ssize_t)n;
}

ssize_t craft_preface(uint32_t gen, uint8_t *buf, size_t cap)
{
	struct wire_hdr h;

	if (cap < CRAFT_PREFACE_LEN)
		return -1;
	wire_build_cong(&h);
	wire_hdr_encode(&h, buf, WIRE_HDR_LEN);
	memset(buf + WIRE_HDR_LEN, 0, WIRE_CONG_MAP_BYTES);
	/* cp_next_tx_seq starts at 1 and the map takes none */
	wire_build_probe(&h, false, 1, WIRE_KVER_7, WIRE_MAX_PATHS, gen);
	wire_hdr_encode(&h, buf + WIRE_HDR_LEN + WIRE_CONG_MAP_BYTES, WIRE_HDR_LEN);
	return CRAFT_PREFACE_LEN;
}

/* ------------------------------------------------------------------------
 * A line for a header
 */

struct line {
	char *buf;
	size_t cap, n;
};

static void add(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(l->n < l->cap ? l->buf + l->n : NULL, l->n < l->cap ? l->cap - l->n : 0,
		      fmt, ap);
	va_end(ap);
	if (r > 0)
		l->n += (size_t)r;
}

size_t craft_describe(const struct wire_hdr *h, char *buf, size_t cap)
{
	struct line l = { buf, cap, 0 };
	struct wire_exts x;
	char fl[96];

	if (cap)
		buf[0] = 0;
	add(&l, "%s %u > %u seq %llu len %u", wire_kind_name(wire_classify(h, WIRE_XPORT_TCP)),
	    h->sport, h->dport, (unsigned long long)h->seq, h->len);
	if (h->flags) {
		wire_flags_str(h->flags, fl, sizeof(fl));
		add(&l, " [%s]", fl);
	}
	if (h->ack)
		add(&l, " ack %llu", (unsigned long long)h->ack);
	if (h->credit)
		add(&l, " credit %u", h->credit);
	if (h->pad[0] | h->pad[1] | h->pad[2] | h->pad[3])
		add(&l, " pad %02x%02x%02x%02x", h->pad[0], h->pad[1], h->pad[2], h->pad[3]);
	if (h->csum)
		add(&l, " csum 0x%04x%s", h->csum, wire_hdr_csum_ok(h) ? "" : " bad");
	wire_exts_decode(&x, h->ext, WIRE_KVER_7);
	for (unsigned i = 0; i < x.count; i++) {
		const struct wire_ext *e = &x.e[i];

		switch (e->known ? e->type : 0xff) {
		case WIRE_EXT_VERSION:
			add(&l, " version 0x%08x", e->u.version);
			break;
		case WIRE_EXT_RDMA:
			add(&l, " rkey 0x%08x", e->u.rdma_rkey);
			break;
		case WIRE_EXT_RDMA_DEST:
			add(&l, " rkey 0x%08x rdma_offset %u", e->u.rdma_dest.rkey,
			    e->u.rdma_dest.offset);
			break;
		case WIRE_EXT_RDMA_BYTES:
			add(&l, " rdma_bytes %u%s%s", e->u.rdma_bytes.bytes,
			    e->u.rdma_bytes.rflags & WIRE_RDMA_WR_BYTES ? " write" : "",
			    e->u.rdma_bytes.rflags & WIRE_RDMA_RD_BYTES ? " read" : "");
			break;
		case WIRE_EXT_NPATHS:
			add(&l, " npaths %u", e->u.npaths);
			break;
		case WIRE_EXT_GEN_NUM:
			add(&l, " gen_num 0x%08x", e->u.gen_num);
			break;
		case WIRE_EXT_SPORT_IDX:
			add(&l, " sport_idx %u", e->u.sport_idx);
			break;
		default:
			add(&l, " ext %u", e->type);
			break;
		}
	}
	if (x.overrun)
		add(&l, " ext_overrun");
	return l.n;
}

/* ------------------------------------------------------------------------
 * Option values
 */

int craft_parse_num(const char *s, uint64_t max, uint64_t *out, char *err, size_t cap)
{
	uint64_t v;

	if (!s || parse_uint(s, 0, 0, UINT64_MAX, &v))
		return out_errf(err, cap, "'%s' is not a number", s ? s : "");
	if (v > max)
		return out_errf(err, cap, "%s is above %llu", s, (unsigned long long)max);
	*out = v;
	return 0;
}

/* The kinds --kind takes. */
static const struct wire_tok craft_kind_toks[] = {
	{ CRAFT_DATA, "data" },             { CRAFT_PING, "ping" },
	{ CRAFT_PONG, "pong" },             { CRAFT_PROBE_PING, "probe-ping" },
	{ CRAFT_PROBE_PONG, "probe-pong" }, { CRAFT_CONG, "cong" },
	{ 0, NULL },
};

int craft_parse_kind(const char *s, enum craft_kind *k, char *err, size_t cap)
{
	uint32_t v;

	if (wire_tok_value(craft_kind_toks, s, &v) == 0) {
		*k = (enum craft_kind)v;
		return 0;
	}
	return out_errf(err, cap,
			"unknown kind '%s' (data, ping, pong, probe-ping, probe-pong, cong)", s);
}

int craft_parse_flags(const char *s, uint8_t *out, char *err, size_t cap)
{
	static const struct {
		const char *name;
		uint8_t bit;
	} names[] = {
		{ "cong", WIRE_FLAG_CONG_BITMAP },    { "ackreq", WIRE_FLAG_ACK_REQUIRED },
		{ "retrans", WIRE_FLAG_RETRANSMITTED }, { "hbping", WIRE_FLAG_HB_PING },
		{ "hbpong", WIRE_FLAG_HB_PONG },       { "ext", WIRE_FLAG_EXTHDR_EXTENSION },
	};
	uint8_t v = 0;
	const char *p = s;

	if (!*s)
		return out_errf(err, cap, "no flags given (use 0 for none)");
	while (*p) {
		size_t n = strcspn(p, ",|");
		char w[32];
		bool found = false;

		if (n == 0 || n >= sizeof(w))
			return out_errf(err, cap, "bad flag list '%s'", s);
		memcpy(w, p, n);
		w[n] = 0;
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !found; i++)
			if (strcasecmp(w, names[i].name) == 0)
				v |= names[i].bit, found = true;
		for (unsigned bit = 1; bit < 0x100 && !found; bit <<= 1) {
			const char *kn = wire_flag_name((uint8_t)bit);

			if (kn && strcasecmp(w, kn) == 0)
				v |= (uint8_t)bit, found = true;
		}
		if (!found) {
			uint64_t num;
			char e2[64];

			if (craft_parse_num(w, 0xff, &num, e2, sizeof(e2)))
				return out_errf(err, cap,
						"unknown flag '%s' (cong, ackreq, retrans, hbping, "
						"hbpong, ext, or a number up to 0xff)",
						w);
			v |= (uint8_t)num;
		}
		p += n;
		if (*p)
			p++;
		if (*p == 0 && (p[-1] == ',' || p[-1] == '|'))
			return out_errf(err, cap, "bad flag list '%s'", s);
	}
	*out = v;
	return 0;
}

int craft_parse_csum(const char *s, enum craft_csum *mode, uint16_t *value, char *err,
		     size_t cap)
{
	uint64_t v;

	if (strcmp(s, "auto") == 0)
		*mode = CRAFT_CSUM_AUTO;
	else if (strcmp(s, "zero") == 0)
		*mode = CRAFT_CSUM_ZERO;
	else if (strcmp(s, "bad") == 0)
		*mode = CRAFT_CSUM_BAD;
	else if (craft_parse_num(s, 0xffff, &v, err, cap) == 0)
		*mode = CRAFT_CSUM_VALUE, *value = (uint16_t)v;
	else
		return out_errf(err, cap, "'%s' is not auto, zero, bad or a number up to 0xffff",
				s);
	return 0;
}

int craft_parse_hex(const char *s, uint8_t *out, size_t max, size_t *n, char *err, size_t cap)
{
	size_t got = 0;
	int hi = -1;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (const char *p = s; *p; p++) {
		int v = wire_hex_value((unsigned char)*p);

		if (v < 0) {
			if (strchr(" :-.", *p) && hi < 0)
				continue;
			return out_errf(err, cap, "'%c' is not a hex digit", *p);
		}
		if (hi < 0) {
			hi = v;
			continue;
		}
		if (got == max)
			return out_errf(err, cap, "more than %zu bytes of hex", max);
		out[got++] = (uint8_t)(hi << 4 | v);
		hi = -1;
	}
	if (hi >= 0)
		return out_errf(err, cap, "odd number of hex digits");
	*n = got;
	return 0;
}

/* "KEY:REST" numbers: the part before ':' and, if there, the one after. */
static int two_nums(const char *v, uint64_t *a, uint64_t *b, bool need_b, char *err, size_t cap)
{
	char first[64];
	const char *colon = strchr(v, ':');
	size_t n = colon ? (size_t)(colon - v) : strlen(v);

	if (n >= sizeof(first))
		return out_errf(err, cap, "'%s' is too long", v);
	memcpy(first, v, n);
	first[n] = 0;
	if (craft_parse_num(first, UINT32_MAX, a, err, cap))
		return -1;
	if (!colon) {
		if (need_b)
			return out_errf(err, cap, "'%s' needs two numbers, A:B", v);
		*b = 0;
		return 0;
	}
	return craft_parse_num(colon + 1, UINT32_MAX, b, err, cap);
}

static int rflags(const char *s, uint64_t *out, char *err, size_t cap)
{
	uint64_t v = 0;
	const char *p = s;

	if (craft_parse_num(s, 0xff, out, err, cap) == 0)
		return 0;
	while (*p) {
		size_t n = strcspn(p, "|,+");

		if (n == 2 && strncmp(p, "wr", 2) == 0)
			v |= WIRE_RDMA_WR_BYTES;
		else if (n == 2 && strncmp(p, "rd", 2) == 0)
			v |= WIRE_RDMA_RD_BYTES;
		else
			return out_errf(err, cap,
					"rdma-bytes flags '%s': wr, rd, wr|rd or a number", s);
		p += n;
		if (*p)
			p++;
	}
	*out = v;
	return 0;
}

int craft_parse_ext(const char *s, struct craft_ext *x, char *err, size_t cap)
{
	const char *eq = strchr(s, '=');
	const char *v = eq ? eq + 1 : NULL;
	char name[32];
	size_t n = eq ? (size_t)(eq - s) : strlen(s);
	uint64_t a = 0, b = 0;
	struct wire_ext e;
	uint8_t area[WIRE_EXT_SPACE] = { 0 };
	enum wire_kver kv = WIRE_KVER_7;
	int size;

	memset(x, 0, sizeof(*x));
	memset(&e, 0, sizeof(e));
	if (n == 0 || n >= sizeof(name))
		return out_errf(err, cap, "'%s' is not TYPE=VALUE", s);
	memcpy(name, s, n);
	name[n] = 0;
	for (char *p = name; *p; p++)
		if (*p == '_')
			*p = '-';
	if (!v && strcmp(name, "sport-idx") != 0 && !isdigit((unsigned char)name[0]))
		return out_errf(err, cap, "extension '%s' needs a value (TYPE=VALUE)", s);

	if (strcmp(name, "npaths") == 0) {
		if (craft_parse_num(v, 0xffff, &a, err, cap))
			return -1;
		e.type = WIRE_EXT_NPATHS, e.u.npaths = (uint16_t)a;
	} else if (strcmp(name, "gen") == 0 || strcmp(name, "gen-num") == 0) {
		if (craft_parse_num(v, UINT32_MAX, &a, err, cap))
			return -1;
		e.type = WIRE_EXT_GEN_NUM, e.u.gen_num = (uint32_t)a;
	} else if (strcmp(name, "sport-idx") == 0) {
		if (v && craft_parse_num(v, 0xff, &a, err, cap))
			return -1;
		e.type = WIRE_EXT_SPORT_IDX, e.u.sport_idx = (uint8_t)a;
	} else if (strcmp(name, "version") == 0) {
		if (craft_parse_num(v, UINT32_MAX, &a, err, cap))
			return -1;
		e.type = WIRE_EXT_VERSION, e.u.version = (uint32_t)a;
	} else if (strcmp(name, "rdma") == 0) {
		if (craft_parse_num(v, UINT32_MAX, &a, err, cap))
			return -1;
		e.type = WIRE_EXT_RDMA, e.u.rdma_rkey = (uint32_t)a;
	} else if (strcmp(name, "rdma-dest") == 0) {
		if (two_nums(v, &a, &b, true, err, cap))
			return -1;
		e.type = WIRE_EXT_RDMA_DEST, e.u.rdma_dest.rkey = (uint32_t)a;
		e.u.rdma_dest.offset = (uint32_t)b;
	} else if (strcmp(name, "rdma-bytes") == 0) {
		const char *colon = strchr(v, ':');
		char first[32];
		size_t fn = colon ? (size_t)(colon - v) : strlen(v);

		if (fn >= sizeof(first))
			return out_errf(err, cap, "'%s' is too long", v);
		memcpy(first, v, fn);
		first[fn] = 0;
		if (craft_parse_num(first, UINT32_MAX, &a, err, cap) ||
		    (colon && rflags(colon + 1, &b, err, cap)))
			return -1;
		e.type = WIRE_EXT_RDMA_BYTES, e.u.rdma_bytes.bytes = (uint32_t)a;
		e.u.rdma_bytes.rflags = (uint8_t)b;
	} else if (strcmp(name, "cap-bits") == 0) {
		/* non-mainline: no 7.x sender writes it, so it is placed raw */
		if (craft_parse_num(v, UINT32_MAX, &a, err, cap))
			return -1;
		e.type = WIRE_EXT_CAP_BITS, e.u.cap_bits = (uint32_t)a;
		kv = WIRE_KVER_ALL;
	} else if (craft_parse_num(name, 0xff, &a, err, cap) == 0) {
		size_t pl = 0;

		if (a == 0)
			return out_errf(err, cap, "type 0 ends the list; use --ext-raw for it");
		x->b[0] = (uint8_t)a;
		if (v && craft_parse_hex(v, x->b + 1, WIRE_EXT_SPACE - 1, &pl, err, cap))
			return -1;
		x->n = (uint8_t)(1 + pl);
		x->known = false;
		return 0;
	} else {
		return out_errf(err, cap,
				"unknown extension '%s' (npaths, gen, sport-idx, version, rdma, "
				"rdma-dest, rdma-bytes, cap-bits, or a type number)",
				name);
	}
	size = wire_ext_size(e.type, kv);
	if (size < 0 || wire_ext_add(area, &e, kv) != 1)
		return out_errf(err, cap, "extension '%s' cannot be encoded", s);
	memcpy(x->b, area, (size_t)size + 1);
	x->n = (uint8_t)(size + 1);
	x->known = kv == WIRE_KVER_7;
	x->e = e;
	return 0;
}

int craft_parse_ports(const char *s, struct wire_cong_map *m, char *err, size_t cap)
{
	const char *p = s;

	if (!*s)
		return out_errf(err, cap, "empty port list");
	while (*p) {
		size_t n = strcspn(p, ",");
		char w[32], *dash;
		uint64_t lo, hi;

		if (n == 0 || n >= sizeof(w))
			return out_errf(err, cap, "bad port list '%s'", s);
		memcpy(w, p, n);
		w[n] = 0;
		dash = strchr(w, '-');
		if (dash)
			*dash = 0;
		if (craft_parse_num(w, 65535, &lo, err, cap))
			return -1;
		hi = lo;
		if (dash && craft_parse_num(dash + 1, 65535, &hi, err, cap))
			return -1;
		if (hi < lo)
			return out_errf(err, cap, "range %s-%s runs backwards", w, dash + 1);
		for (uint64_t port = lo; port <= hi; port++)
			wire_cong_set(m, (uint16_t)port);
		p += n;
		if (*p && !*++p)
			return out_errf(err, cap, "bad port list '%s'", s);
	}
	return 0;
}

int craft_parse_addr(const char *s, struct rdsu_addr *a, uint16_t *port, char *err, size_t cap)
{
	char host[64];
	const char *ps = NULL;
	uint8_t b[16];
	size_t n;

	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (!close || (close[1] && close[1] != ':'))
			return out_errf(err, cap, "'%s' is not [IPV6]:PORT", s);
		n = (size_t)(close - s - 1);
		if (n >= sizeof(host))
			return out_errf(err, cap, "'%s' is too long", s);
		memcpy(host, s + 1, n);
		host[n] = 0;
		if (close[1] == ':')
			ps = close + 2;
	} else {
		const char *colon = strchr(s, ':');

		/* one colon: IPv4:PORT; more: a bare IPv6 address */
		if (colon && !strchr(colon + 1, ':')) {
			n = (size_t)(colon - s);
			ps = colon + 1;
		} else {
			n = strlen(s);
		}
		if (n >= sizeof(host))
			return out_errf(err, cap, "'%s' is too long", s);
		memcpy(host, s, n);
		host[n] = 0;
	}
	if (inet_pton(AF_INET, host, b) == 1) {
		*a = rdsu_addr_v4((uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
				  (uint32_t)b[2] << 8 | b[3]);
	} else if (inet_pton(AF_INET6, host, b) == 1) {
		memcpy(a->a, b, 16);
	} else {
		return out_errf(err, cap, "'%s' is not an IPv4 or IPv6 address", host);
	}
	if (ps) {
		uint64_t v;

		if (craft_parse_num(ps, 65535, &v, err, cap))
			return -1;
		*port = (uint16_t)v;
	}
	return 0;
}

void craft_qp_init(struct craft_qp *qp, const struct rdsu_addr *src,
		   const struct rdsu_addr *dst, uint32_t dqpn)
{
	memset(qp, 0, sizeof(*qp));
	qp->src = *src;
	qp->dst = *dst;
	qp->dqpn = dqpn & 0xffffff;
	/* rxe: a port from the QP number, in the dynamic range */
	qp->udp_sport = (uint16_t)(0xc000 | (qp->dqpn & 0x3fff));
	qp->pmtu = 1024;
}

int craft_roce_packets(struct craft_qp *qp, const uint8_t *frame, size_t len, craft_pkt_fn fn,
		       void *ctx)
{
	uint8_t pkt[40 + 8 + 12 + 4096 + 4 + 4];
	bool v4 = rdsu_addr_is_v4(&qp->src);
	struct wire_ib_send_iter it;
	struct wire_roce r;
	int n = 0;

	if (v4 != rdsu_addr_is_v4(&qp->dst) || len > 0x7fffffff)
		return -1;
	wire_ib_send_init(&it, frame, len, qp->pmtu);
	memset(&r, 0, sizeof(r));
	r.ip_version = v4 ? 4 : 6;
	memcpy(r.src, v4 ? qp->src.a + 12 : qp->src.a, v4 ? 4 : 16);
	memcpy(r.dst, v4 ? qp->dst.a + 12 : qp->dst.a, v4 ? 4 : 16);
	r.udp_sport = qp->udp_sport;
	r.bth.pkey = 0xffff;
	r.bth.dqpn = qp->dqpn;
	while (wire_ib_send_next(&it, &r) == 1) {
		ssize_t k;
		int rc;

		r.bth.psn = qp->psn;
		r.bth.ackreq = r.bth.opcode == WIRE_IB_RC_SEND_ONLY ||
			       r.bth.opcode == WIRE_IB_RC_SEND_LAST;
		k = wire_roce_encode(&r, pkt, sizeof(pkt));
		if (k < 0)
			return -1;      /* a layout bug: pkt holds any MTU's packet */
		qp->psn = (qp->psn + 1) & 0xffffff;
		rc = fn(ctx, pkt, (size_t)k);
		if (rc)
			return rc;
		n++;
	}
	return n;
}
