/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * packet-rds.c - RDS for Wireshark, decoded by libwire.
 *
 * Fields: every key of rdsdump's "msg" and "cm" JSON records becomes the
 * display-filter field rds.<key> (nested keys rds.<object>.<key>, as
 * rds.ext.type or rds.pd.ack_seq), registered by walking the same field
 * tables rdsdump renders with (dump_rec_fields()), so a key can never be
 * in one and not the other. Labels are the keys; value names come from
 * libwire's tables through those fields. The flag bits add rds.flags.<name>.
 *
 * RDS/TCP: port 16385, each PDU 48 + h_len bytes, through Wireshark's TCP
 * reassembly by its own loop rather than tcp_dissect_pdus(), which cannot
 * skip bytes: lost framing is found again by libwire's wire_resync, as
 * rdsdump does (see "Framing" below). The first pass frames; a later one
 * shows what the first found in each frame, and what the end of a stream
 * confirmed, which only a later pass can know (tcp_replay).
 *
 * RDS over IB/RoCE: a heuristic on InfiniBand payloads that claims an RC
 * SEND whose payload starts with an RDS header with a valid checksum (an
 * IB sender always sets it), and the later packets of the SEND and of the
 * flow; on a flow so known, a SEND whose h_csum does not verify is a
 * message with that rule broken, as in rdsdump, and SEND packets follow
 * rdsdump's PSN rule. A SEND longer than the path MTU arrives in
 * First/Middle/Last packets, gathered here up to the 48 + 4096 bytes an RDS
 * SEND can hold; whole SENDs go through libwire's wire_reasm, the same
 * fragment reassembly rdsdump uses, so that both find the same messages
 * and the same ib.frag.* rules. The RDS private data of CM REQ and REP
 * (service IDs 0x10648CA and 0x1064001) is decoded from the MAD by
 * libwire's CM and private-data decoders.
 *
 * libwire's rules become expert info named rds.rule.<rule name>; the rule
 * names are also the values of rds.rules.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <wireshark.h>
#include <epan/address.h>
#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/prefs.h>
#include <epan/proto_data.h>
#include <epan/to_str.h>
#include <epan/dissectors/packet-infiniband.h>
#include <epan/dissectors/packet-tcp.h>
#include <wiretap/wtap.h>

#include <wire/wire.h>

#include "out.h"
#include "render.h"
#include "packet-rds.h"

static int proto_rds = -1;
static gint ett_rds = -1;
static gint ett_flags = -1;
static gint ett_obj = -1;
static expert_field rule_ei[WIRE_RULE__COUNT];
static expert_field ei_ip_cut = EI_INIT;
static gint pref_kver = WIRE_KVER_7;
static gboolean pref_desegment = TRUE;

/* A SEND holds one fragment: a header and at most this much payload. */
#define RDSWS_SEND_MAX (WIRE_HDR_LEN + WIRE_FRAG_SIZE)

/* ------------------------------------------------------------------------
 * Fields from rdsdump's tables
 */

struct fdesc {
	int hf;
	enum ftenum ft;
	const struct out_field *f;
};

static GHashTable *fields;      /* "seq", "ext.type": struct fdesc */
static int *flag_bits[9];       /* rds.flags.<name>, NULL-ended */

static const value_string *vals_of(const struct wire_tok *t)
{
	size_t n = 0;
	value_string *vs;

	while (t[n].name)
		n++;
	vs = g_new0(value_string, n + 1);
	for (size_t i = 0; i < n; i++) {
		vs[i].value = t[i].value;
		vs[i].strptr = t[i].name;
	}
	return vs;
}

/* The Wireshark type of |f|: numbers as wide as their values can be. */
static enum ftenum ft_of(const struct out_field *f, int *base)
{
	*base = BASE_NONE;
	switch (f->type) {
	case OUT_U64:
		*base = BASE_DEC;
		return FT_UINT64;
	case OUT_I64:
		*base = BASE_DEC;
		return FT_INT64;
	case OUT_HEX:
	case OUT_FLAGS:
		*base = BASE_HEX;
		return f->digits <= 2 ? FT_UINT8 : f->digits <= 4 ? FT_UINT16 :
		       f->digits <= 8 ? FT_UINT32 : FT_UINT64;
	case OUT_ENUM:
		*base = BASE_DEC;
		return FT_UINT32;
	case OUT_BOOL:
		return FT_BOOLEAN;
	case OUT_STR:
	case OUT_QUOTED:
		return FT_STRING;
	case OUT_BYTES:
		return FT_BYTES;
	case OUT_DOUBLE:
	case OUT_FIXED:
		return FT_DOUBLE;
	case OUT_ARRAY:
		/* of names or strings: one string item per element */
		return f->sub ? FT_NONE : FT_STRING;
	case OUT_OBJECT:
	default:
		return FT_NONE;
	}
}

static void collect(GPtrArray *paths, GPtrArray *fs, const char *prefix,
		    const struct out_group *g)
{
	for (size_t i = 0; i < g->n; i++) {
		const struct out_field *f = &g->f[i];
		char *path;

		if (!f->key)
			continue;
		path = prefix ? g_strdup_printf("%s.%s", prefix, f->key) : g_strdup(f->key);
		if (g_hash_table_contains(fields, path)) {
			g_free(path);
			continue;
		}
		g_hash_table_insert(fields, path, g_new0(struct fdesc, 1));
		g_ptr_array_add(paths, path);
		g_ptr_array_add(fs, (gpointer)f);
		if (f->sub && (f->type == OUT_OBJECT || f->type == OUT_ARRAY))
			collect(paths, fs, path, f->sub);
	}
}

/* The RDMA record's own fields, rds.rdma.<key>: those every record has
 * (the common ones, which a "bad" record has too) are rds.<key> already. */
static void collect_rdma(GPtrArray *paths, GPtrArray *fs)
{
	const struct out_group *g = dump_rec_fields(DUMP_REC_RDMA);
	const struct out_group *bad = dump_rec_fields(DUMP_REC_BAD);
	struct out_field *own = g_new0(struct out_field, g->n);
	struct out_group *sub = g_new0(struct out_group, 1);
	size_t n = 0;

	for (size_t i = 0; i < g->n; i++) {
		bool common = false;

		for (size_t k = 0; g->f[i].key && k < bad->n; k++)
			common |= bad->f[k].key && !strcmp(bad->f[k].key, g->f[i].key);
		if (g->f[i].key && !common)
			own[n++] = g->f[i];
	}
	sub->name = g->name;
	sub->f = own;
	sub->n = n;
	collect(paths, fs, "rdma", sub);
}

static void register_fields(void)
{
	static const enum dump_rec_type recs[] = { DUMP_REC_MSG, DUMP_REC_CM };
	GPtrArray *paths = g_ptr_array_new();
	GPtrArray *fs = g_ptr_array_new();
	hf_register_info *hf;
	const struct out_field *flags = NULL;
	size_t n, nbits = 0;

	fields = g_hash_table_new(g_str_hash, g_str_equal);
	for (size_t i = 0; i < G_N_ELEMENTS(recs); i++)
		collect(paths, fs, NULL, dump_rec_fields(recs[i]));
	collect_rdma(paths, fs);
	n = paths->len;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(g_ptr_array_index(paths, i), "flags"))
			flags = g_ptr_array_index(fs, i);
	while (flags && flags->names && flags->names[nbits].name && nbits < 8)
		nbits++;
	hf = g_new0(hf_register_info, n + nbits);
	for (size_t i = 0; i < n; i++) {
		const char *path = g_ptr_array_index(paths, i);
		const struct out_field *f = g_ptr_array_index(fs, i);
		struct fdesc *d = g_hash_table_lookup(fields, path);
		header_field_info *hi = &hf[i].hfinfo;
		int base;

		d->hf = -1;
		d->f = f;
		d->ft = ft_of(f, &base);
		hf[i].p_id = &d->hf;
		hi->name = f->key;
		hi->abbrev = g_strdup_printf("rds.%s", path);
		hi->type = d->ft;
		hi->display = base;
		if (f->names && (f->type == OUT_ENUM || f->type == OUT_HEX))
			hi->strings = VALS(vals_of(f->names));
		hi->id = -1;
		hi->parent = 0;
		hi->ref_type = HF_REF_TYPE_NONE;
		hi->same_name_prev_id = -1;
	}
	for (size_t b = 0; b < nbits; b++) {
		header_field_info *hi = &hf[n + b].hfinfo;
		int *id = g_new(int, 1);
		char *abbrev = g_strdup_printf("rds.flags.%s", flags->names[b].name);

		*id = -1;
		flag_bits[b] = id;
		hf[n + b].p_id = id;
		hi->name = flags->names[b].name;
		hi->abbrev = g_ascii_strdown(abbrev, -1);
		g_free(abbrev);
		hi->type = FT_BOOLEAN;
		hi->display = 8;
		hi->bitmask = flags->names[b].value;
		hi->id = -1;
		hi->ref_type = HF_REF_TYPE_NONE;
		hi->same_name_prev_id = -1;
	}
	proto_register_field_array(proto_rds, hf, (int)(n + nbits));
	/* the hash table owns the paths */
	g_ptr_array_free(paths, FALSE);
	g_ptr_array_free(fs, FALSE);
}

static const struct fdesc *fd(const char *path)
{
	const struct fdesc *d = g_hash_table_lookup(fields, path);

	return d && d->hf > 0 ? d : NULL;
}

static proto_item *gen(proto_item *it)
{
	if (it)
		proto_item_set_generated(it);
	return it;
}

/* A number (or boolean) for |path| over |len| bytes at |off|. */
static proto_item *add_u(proto_tree *t, const char *path, tvbuff_t *tvb, int off,
			 int len, uint64_t v)
{
	const struct fdesc *d = fd(path);

	if (!d)
		return NULL;
	switch (d->ft) {
	case FT_UINT8:
	case FT_UINT16:
	case FT_UINT32:
		return proto_tree_add_uint(t, d->hf, tvb, off, len, (guint32)v);
	case FT_UINT64:
		return proto_tree_add_uint64(t, d->hf, tvb, off, len, v);
	case FT_INT64:
		return proto_tree_add_int64(t, d->hf, tvb, off, len, (gint64)v);
	case FT_BOOLEAN:
		return proto_tree_add_boolean(t, d->hf, tvb, off, len, v != 0);
	default:
		return NULL;
	}
}

static proto_item *add_s(proto_tree *t, const char *path, tvbuff_t *tvb, int off,
			 int len, const char *s)
{
	const struct fdesc *d = fd(path);

	return d && d->ft == FT_STRING && s ? proto_tree_add_string(t, d->hf, tvb, off, len, s)
					    : NULL;
}

static proto_item *add_bytes(proto_tree *t, const char *path, tvbuff_t *tvb, int off,
			     int len)
{
	const struct fdesc *d = fd(path);

	return d && d->ft == FT_BYTES ? proto_tree_add_item(t, d->hf, tvb, off, len, ENC_NA)
				      : NULL;
}

/* An object, or an element of an array of objects: its own subtree. */
static proto_tree *add_obj(proto_tree *t, const char *path, tvbuff_t *tvb, int off,
			   int len, proto_item **it)
{
	const struct fdesc *d = fd(path);
	proto_item *i;

	if (!d || d->ft != FT_NONE)
		return NULL;
	i = proto_tree_add_item(t, d->hf, tvb, off, len, ENC_NA);
	if (it)
		*it = i;
	return proto_item_add_subtree(i, ett_obj);
}

static const char *tok_of(const char *path, uint32_t v)
{
	const struct fdesc *d = fd(path);

	return d && d->f->names ? wire_tok_name(d->f->names, v) : NULL;
}

/* rds.rules items and one expert info each, on |it|. */
static void add_rules(proto_tree *t, packet_info *pinfo, proto_item *it, tvbuff_t *tvb,
		      const struct wire_rules *rs)
{
	unsigned pos = 0;
	enum wire_rule r;

	while (wire_rules_next(rs, &pos, &r)) {
		gen(add_s(t, "rules", tvb, 0, 0, wire_rule_name(r)));
		if (r < WIRE_RULE__COUNT)
			expert_add_info(pinfo, it, &rule_ei[r]);
	}
}

/* ------------------------------------------------------------------------
 * Per-flow state (one direction of a TCP connection or of an RC QP pair),
 * filled on the first pass; what a frame shows is kept with the frame.
 */

struct flow {
	bool rds;                   /* a SEND here carried an RDS header */
	bool in_send;
	bool send_bad;              /* longer than an RDS SEND */
	bool have_psn;
	uint32_t next_psn;          /* of the SEND packet expected next */
	uint8_t *send;
	uint32_t send_len;
	struct wire_reasm ra;
	uint8_t *rbuf;
};

static wmem_map_t *flows;
/* "src>dst": the sender's last congestion map. A map belongs to the RDS
 * connection, the address pair, whatever TCP connection or path (or QP)
 * carries it, as rdsdump keeps it. */
static wmem_map_t *maps;

static struct flow *flow_get(packet_info *pinfo, const char *xp)
{
	char *key = wmem_strdup_printf(pinfo->pool, "%s %s:%u>%s:%u", xp,
				       address_to_str(pinfo->pool, &pinfo->src), pinfo->srcport,
				       address_to_str(pinfo->pool, &pinfo->dst), pinfo->destport);
	struct flow *f = wmem_map_lookup(flows, key);

	if (!f) {
		f = wmem_new0(wmem_file_scope(), struct flow);
		wmem_map_insert(flows, wmem_strdup(wmem_file_scope(), key), f);
	}
	return f;
}

static struct wire_cong_map **map_get(packet_info *pinfo)
{
	char *key = wmem_strdup_printf(pinfo->pool, "%s>%s",
				       address_to_str(pinfo->pool, &pinfo->src),
				       address_to_str(pinfo->pool, &pinfo->dst));
	struct wire_cong_map **m = wmem_map_lookup(maps, key);

	if (!m) {
		m = wmem_new0(wmem_file_scope(), struct wire_cong_map *);
		wmem_map_insert(maps, wmem_strdup(wmem_file_scope(), key), m);
	}
	return m;
}

/* What a congestion map changed, from the first pass. */
struct cong_res {
	bool map;
	bool first_map;
	uint32_t congested;
	uint32_t n;
	struct wire_port_range *r;
};

static struct cong_res *cong_track(packet_info *pinfo, const uint8_t *p, uint32_t caplen)
{
	struct wire_cong_map **prev = map_get(pinfo);
	static const struct wire_cong_map empty;
	struct cong_res *c = wmem_new0(wmem_file_scope(), struct cong_res);
	struct wire_cong_map cur;
	struct wire_port_range pr;
	uint32_t pos = 0;

	if (!p || wire_cong_decode(&cur, p, caplen) < 0)
		return c;
	c->map = true;
	c->first_map = *prev == NULL;
	c->congested = (uint32_t)wire_cong_count(&cur);
	while (wire_cong_diff_next(*prev ? *prev : &empty, &cur, &pos, &pr))
		c->n++;
	c->r = wmem_alloc_array(wmem_file_scope(), struct wire_port_range, c->n ? c->n : 1);
	pos = 0;
	for (uint32_t i = 0; i < c->n; i++)
		wire_cong_diff_next(*prev ? *prev : &empty, &cur, &pos, &c->r[i]);
	if (!*prev)
		*prev = wmem_new(wmem_file_scope(), struct wire_cong_map);
	**prev = cur;
	return c;
}

static void show_cong(proto_tree *t, tvbuff_t *tvb, int off, int len,
		      const struct cong_res *c)
{
	proto_tree *ct = add_obj(t, "cong", tvb, off, len, NULL);

	if (!ct)
		return;
	gen(add_u(ct, "cong.map", tvb, off, 0, c->map));
	if (!c->map)
		return;
	gen(add_u(ct, "cong.congested", tvb, off, 0, c->congested));
	gen(add_u(ct, "cong.nchanges", tvb, off, 0, c->n));
	gen(add_u(ct, "cong.first_map", tvb, off, 0, c->first_map));
	for (uint32_t i = 0; i < c->n; i++) {
		const struct wire_port_range *r = &c->r[i];
		/* the map's bytes, when they are in |tvb| (not on IB, where
		 * the message ends in another packet than it starts) */
		int b = len ? off + r->first / 8 : off;
		int e = len ? off + r->last / 8 : off - 1;
		proto_item *it = NULL;
		proto_tree *rt = add_obj(ct, "cong.changes", tvb, b, e - b + 1, &it);

		if (it)
			proto_item_append_text(it, ": %c%u-%u", r->congested ? '+' : '-',
					       r->first, r->last);
		add_u(rt, "cong.changes.first", tvb, b, len ? 1 : 0, r->first);
		add_u(rt, "cong.changes.last", tvb, len ? e : b, len ? 1 : 0, r->last);
		add_s(rt, "cong.changes.state", tvb, b, e - b + 1,
		      tok_of("cong.changes.state", r->congested));
	}
}

/* ------------------------------------------------------------------------
 * The RDS header
 */

/*
 * What each known extension's value shows: the field, where it is in the
 * value, its bytes, and the member of struct wire_ext libwire decoded it
 * into (as many bytes as the field).
 */
static const struct ext_fld {
	uint8_t type;
	const char *path;
	uint8_t at, len;
	size_t member;
} ext_flds[] = {
	{ WIRE_EXT_VERSION, "ext.version", 0, 4, offsetof(struct wire_ext, u.version) },
	{ WIRE_EXT_RDMA, "ext.rkey", 0, 4, offsetof(struct wire_ext, u.rdma_rkey) },
	{ WIRE_EXT_RDMA_DEST, "ext.rkey", 0, 4, offsetof(struct wire_ext, u.rdma_dest.rkey) },
	{ WIRE_EXT_RDMA_DEST, "ext.rdma_offset", 4, 4,
	  offsetof(struct wire_ext, u.rdma_dest.offset) },
	{ WIRE_EXT_RDMA_BYTES, "ext.rdma_bytes", 0, 4,
	  offsetof(struct wire_ext, u.rdma_bytes.bytes) },
	{ WIRE_EXT_RDMA_BYTES, "ext.rflags", 4, 1,
	  offsetof(struct wire_ext, u.rdma_bytes.rflags) },
	{ WIRE_EXT_NPATHS, "ext.npaths", 0, 2, offsetof(struct wire_ext, u.npaths) },
	{ WIRE_EXT_GEN_NUM, "ext.gen_num", 0, 4, offsetof(struct wire_ext, u.gen_num) },
	{ WIRE_EXT_CAP_BITS, "ext.cap_bits", 0, 4, offsetof(struct wire_ext, u.cap_bits) },
	{ WIRE_EXT_SPORT_IDX, "ext.sport_idx", 0, 1, offsetof(struct wire_ext, u.sport_idx) },
};

static uint32_t ext_member(const struct wire_ext *e, const struct ext_fld *x)
{
	const uint8_t *m = (const uint8_t *)e + x->member;
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;

	switch (x->len) {
	case 1:
		memcpy(&v8, m, 1);
		return v8;
	case 2:
		memcpy(&v16, m, 2);
		return v16;
	default:
		memcpy(&v32, m, 4);
		return v32;
	}
}

static void show_ext(proto_tree *t, tvbuff_t *tvb, const struct wire_ext *e)
{
	int off = wire_hdr_fields[WIRE_HF_EXT].off + e->off;
	proto_item *it = NULL;
	proto_tree *et = add_obj(t, "ext", tvb, off, 1 + e->len, &it);
	const char *name = wire_ext_name(e->type);

	if (it)
		proto_item_append_text(it, ": %s", name ? name : "unknown");
	/* the cookie an RDMA_DEST names: r_key | offset << 32 (rds_rdma_make_cookie) */
	if (it && e->known && e->type == WIRE_EXT_RDMA_DEST)
		proto_item_append_text(it, ", cookie 0x%016" PRIx64 " (r_key 0x%08x, offset %u)",
				       (uint64_t)e->u.rdma_dest.offset << 32 | e->u.rdma_dest.rkey,
				       e->u.rdma_dest.rkey, e->u.rdma_dest.offset);
	else if (it && e->known && e->type == WIRE_EXT_RDMA)
		proto_item_append_text(it, ", r_key 0x%08x", e->u.rdma_rkey);
	add_u(et, "ext.type", tvb, off, 1, e->type);
	add_s(et, "ext.name", tvb, off, 1, name);
	gen(add_u(et, "ext.known", tvb, off, 1, e->known));
	off++;
	for (size_t i = 0; e->known && i < sizeof(ext_flds) / sizeof(ext_flds[0]); i++) {
		const struct ext_fld *x = &ext_flds[i];

		if (x->type == e->type)
			add_u(et, x->path, tvb, off + x->at, x->len, ext_member(e, x));
	}
	gen(add_u(et, "ext.off", tvb, off - 1, 1, e->off));
	gen(add_u(et, "ext.len", tvb, off - 1, 1, e->len));
	if (e->len)
		add_bytes(et, "ext.value", tvb, off, e->len);
}

/*
 * The 48 header bytes at the start of |tvb| under a new rds item; the
 * header's rules (and the kind's, and the extensions' for the chosen
 * generation) are added to |rs|. Return: the rds subtree.
 */
/*
 * The header fields by libwire's layout table (wire_hdr_fields: offsets,
 * sizes and names said once), under the names rdsdump's record tables give
 * them (the JSON keys: libwire's but for three). tests/wireshark/hdrlayout.py checks, from tshark's
 * output, that every field of the table is shown at its offset and size.
 */
static const char *hdr_key(unsigned id)
{
	switch (id) {
	case WIRE_HF_SPORT:
		return "rds_sport";
	case WIRE_HF_DPORT:
		return "rds_dport";
	case WIRE_HF_EXT:
		return "exthdr";
	default:
		return wire_hdr_fields[id].name; /* seq, ack, len, flags, ... */
	}
}

static proto_tree *show_hdr(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			    enum wire_xport xp, struct wire_hdr *h, enum wire_kind *kind,
			    proto_item **ti)
{
	enum wire_kver kv = pref_kver == 6 ? WIRE_KVER_6 : WIRE_KVER_7;
	const struct wire_hdr_field *ext = &wire_hdr_fields[WIRE_HF_EXT];
	uint8_t b[WIRE_HDR_LEN];
	struct wire_exts x;
	proto_tree *t;
	const struct fdesc *d;

	tvb_memcpy(tvb, b, 0, WIRE_HDR_LEN);
	wire_hdr_decode(h, b, sizeof(b));
	*kind = wire_classify(h, xp);
	wire_exts_decode(&x, h->ext, kv);

	*ti = proto_tree_add_item(tree, proto_rds, tvb, 0, -1, ENC_NA);
	proto_item_append_text(*ti, ", %s, seq %" PRIu64 ", len %u, %u > %u",
			       wire_kind_name(*kind), h->seq, h->len, h->sport, h->dport);
	t = proto_item_add_subtree(*ti, ett_rds);
	col_append_sep_fstr(pinfo->cinfo, COL_INFO, " ; ", "%s seq %" PRIu64 " len %u %u > %u",
			    wire_kind_name(*kind), h->seq, h->len, h->sport, h->dport);

	gen(add_s(t, "xport", tvb, 0, 0, xp == WIRE_XPORT_TCP ? "tcp" : "ib"));
	gen(add_s(t, "kind", tvb, 0, 0, wire_kind_name(*kind)));
	for (unsigned id = 0; id < WIRE_HF_COUNT; id++) {
		const struct wire_hdr_field *f = &wire_hdr_fields[id];

		switch (id) {
		case WIRE_HF_FLAGS:
			d = fd(hdr_key(id));
			if (d)
				proto_tree_add_bitmask(t, tvb, f->off, d->hf, ett_flags, flag_bits,
						       ENC_NA);
			for (unsigned i = 0; i < 8; i++) {
				uint8_t bit = (uint8_t)(1u << i);
				char tmp[8];

				if (h->flags & bit)
					gen(add_s(t, "flag_names", tvb, f->off, f->len,
						  wire_flag_label(bit, tmp)));
			}
			break;
		case WIRE_HF_PAD:
		case WIRE_HF_EXT:
			add_bytes(t, hdr_key(id), tvb, f->off, f->len);
			break;
		default:
			add_u(t, hdr_key(id), tvb, f->off, f->len,
			      wire_hdr_get(h, (enum wire_hdr_fid)id));
			break;
		}
	}
	for (unsigned i = 0; i < x.count; i++)
		show_ext(t, tvb, &x.e[i]);
	gen(add_u(t, "ext_end", tvb, ext->off, ext->len, x.end));
	gen(add_u(t, "ext_overrun", tvb, ext->off, ext->len, x.overrun));
	gen(add_u(t, "ext_stopped_high", tvb, ext->off, ext->len, x.stopped_high));
	return t;
}

static void header_rules(const struct wire_hdr *h, enum wire_xport xp, struct wire_rules *rs)
{
	enum wire_kver kv = pref_kver == 6 ? WIRE_KVER_6 : WIRE_KVER_7;

	wire_hdr_check(h, xp, NULL, rs);
	wire_msg_check(h, xp, kv, rs);
}

/* Which RDS message of the frame this is (a TCP segment can hold several). */
static unsigned pdu_index(packet_info *pinfo)
{
	unsigned n = GPOINTER_TO_UINT(p_get_proto_data(pinfo->pool, pinfo, proto_rds, 0));

	p_add_proto_data(pinfo->pool, pinfo, proto_rds, 0, GUINT_TO_POINTER(n + 1));
	return n;
}

/* ------------------------------------------------------------------------
 * RDS/TCP
 */

/*
 * What the first pass showed in a frame, to show again on a later one
 * (tshark -2, the GUI dissecting a packet again). Wireshark's TCP then
 * hands over less than it did: a reassembly asked to grow is handed over
 * once, complete, in its last frame, and one that never completed (a hole,
 * the end of the stream) not at all, so framing again from what arrives
 * would lose messages the first pass found. Later passes show each
 * frame's record instead: bytes of the frame itself by their offset in
 * it, bytes TCP reassembled by a copy taken on the first pass.
 */
enum trec_op { TR_PDU, TR_SKIPPED, TR_DESYNC, TR_CUT };

struct tspan {
	const uint8_t *copy;     /* NULL: at raw in the frame */
	gint raw;
	gint cap, rep;
};

struct trec {
	uint8_t op;              /* enum trec_op */
	const char *why;         /* TR_SKIPPED */
	uint32_t hlen;           /* TR_DESYNC */
	struct tspan sp;
	struct trec *next;
};

/* A header that waits for the one after it as the stream ends here: what
 * rdsdump confirms by wire_resync_finish when nothing follows. */
struct teos {
	uint8_t *bytes;          /* the header and its payload (a chain of them) */
	gint len;
};

struct tflow;

struct tframe {
	struct tflow *f;
	struct trec *head, **tail;
	struct teos *eos;
};

/* file-scope key of a frame's struct tframe */
#define TFRAME_KEY 0x20000u

static struct tframe *tframe_get(packet_info *pinfo)
{
	struct tframe *fr = p_get_proto_data(wmem_file_scope(), pinfo, proto_rds, TFRAME_KEY);

	if (!fr) {
		fr = wmem_new0(wmem_file_scope(), struct tframe);
		fr->tail = &fr->head;
		p_add_proto_data(wmem_file_scope(), pinfo, proto_rds, TFRAME_KEY, fr);
	}
	return fr;
}

/* The frame's own bytes, as the first of the packet's data sources. */
static tvbuff_t *frame_tvb(packet_info *pinfo)
{
	return pinfo->data_src ? get_data_source_tvb(pinfo->data_src->data) : NULL;
}

static void tspan_take(packet_info *pinfo, tvbuff_t *tvb, struct tspan *sp)
{
	tvbuff_t *fr = frame_tvb(pinfo);

	sp->cap = (gint)tvb_captured_length(tvb);
	sp->rep = (gint)tvb_reported_length(tvb);
	sp->raw = tvb_raw_offset(tvb);
	sp->copy = NULL;
	if (fr && sp->cap > 0 && sp->raw >= 0 &&
	    (guint)sp->raw + (guint)sp->cap <= tvb_captured_length(fr) &&
	    tvb_get_ptr(fr, sp->raw, sp->cap) == tvb_get_ptr(tvb, 0, sp->cap))
		return;
	/* reassembled by TCP, or made here: gone by the next pass */
	sp->copy = sp->cap ? tvb_memdup(wmem_file_scope(), tvb, 0, sp->cap) : NULL;
	sp->raw = 0;
}

static tvbuff_t *tspan_tvb(tvbuff_t *frame, packet_info *pinfo, const struct tspan *sp)
{
	tvbuff_t *t;

	if (!sp->copy)
		return tvb_new_subset_length_caplen(frame, sp->raw, sp->cap, sp->rep);
	t = tvb_new_child_real_data(frame, sp->copy, (guint)sp->cap, sp->rep);
	add_new_data_source(pinfo, t, "RDS message");
	return t;
}

/* On the first pass: |tvb| shown as |op|, to be shown again. */
static void trec_add(packet_info *pinfo, enum trec_op op, tvbuff_t *tvb, const char *why,
		     uint32_t hlen)
{
	struct tframe *fr;
	struct trec *r;

	if (PINFO_FD_VISITED(pinfo))
		return;
	fr = tframe_get(pinfo);
	r = wmem_new0(wmem_file_scope(), struct trec);
	r->op = (uint8_t)op;
	r->why = why;
	r->hlen = hlen;
	tspan_take(pinfo, tvb, &r->sp);
	*fr->tail = r;
	fr->tail = &r->next;
}

static int tcp_pdu(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
	unsigned idx = pdu_index(pinfo);
	struct wire_rules rs;
	struct wire_hdr h;
	enum wire_kind kind;
	proto_item *ti;
	proto_tree *t;
	uint32_t caplen;

	col_set_str(pinfo->cinfo, COL_PROTOCOL, "RDS");
	if (idx == 0)
		col_clear(pinfo->cinfo, COL_INFO);
	/* throws when the capture holds less than a header */
	t = show_hdr(tvb, pinfo, tree, WIRE_XPORT_TCP, &h, &kind, &ti);
	trec_add(pinfo, TR_PDU, tvb, NULL, 0);
	caplen = tvb_captured_length(tvb) - WIRE_HDR_LEN;
	gen(add_s(t, "type", tvb, 0, 0, "msg"));
	gen(add_u(t, "caplen", tvb, WIRE_HDR_LEN, caplen, caplen));
	gen(add_u(t, "incomplete", tvb, 0, 0, caplen < h.len));
	if (kind == WIRE_KIND_CONG) {
		/* 1 + idx: key 0 counts the messages of the frame */
		struct cong_res *c = p_get_proto_data(wmem_file_scope(), pinfo, proto_rds, 1 + idx);

		if (!c && !PINFO_FD_VISITED(pinfo)) {
			const uint8_t *p = caplen == h.len && h.len == WIRE_CONG_MAP_BYTES ?
				tvb_get_ptr(tvb, WIRE_HDR_LEN, (gint)caplen) : NULL;

			c = cong_track(pinfo, p, caplen);
			p_add_proto_data(wmem_file_scope(), pinfo, proto_rds, 1 + idx, c);
		}
		if (c)
			show_cong(t, tvb, WIRE_HDR_LEN, (int)caplen, c);
	}
	wire_rules_clear(&rs);
	header_rules(&h, WIRE_XPORT_TCP, &rs);
	add_rules(t, pinfo, ti, tvb, &rs);
	if (caplen)
		call_data_dissector(tvb_new_subset_remaining(tvb, WIRE_HDR_LEN), pinfo, tree);
	return tvb_captured_length(tvb);
}

/*
 * Framing of one TCP direction. Wireshark's TCP reassembly hands over the
 * stream from where the last call asked it to continue, so a header is
 * expected at offset 0 unless the framing was lost: the capture started
 * mid-connection, a header claimed more than a message can hold, or the
 * snap length cut a header. Then libwire's wire_resync, the rule rdsdump
 * resynchronises by, says where the next header is, and the bytes before
 * it are skipped (a subdissector may leave bytes undissected; only what it
 * asks to be reassembled comes back). Where the capture cut a segment,
 * TCP cannot reassemble: a message that runs past the captured bytes is
 * shown incomplete, and the segments its payload fills are skipped by
 * their TCP sequence numbers rather than framed as new messages.
 */
enum tmode { T_FRAME, T_RESYNC };

struct tstate {
	uint8_t mode;            /* enum tmode */
	bool have_pos;
	bool have_hint;
	guint32 pos;             /* TCP sequence number framing goes on from */
	bool have_pend;          /* a message at pos waits for reassembly */
	uint8_t pend[WIRE_HDR_LEN]; /* its header */
	uint64_t hint;           /* next sequence number the flow expects */
};

/* TCP saw the connection open (conversation completeness SYN or SYN-ACK). */
#define TCP_SAW_OPEN 0x03

struct tflow {
	struct tstate st;
	struct teos *eos;        /* the flow's last call left one */
};

static wmem_map_t *tflows;

/* One direction of one TCP connection: a 4-tuple used again is a new
 * stream to Wireshark, with sequence numbers of its own. */
static struct tflow *tflow_get(packet_info *pinfo)
{
	struct tcp_analysis *tcpd = get_tcp_conversation_data(NULL, pinfo);
	char *key = wmem_strdup_printf(pinfo->pool, "%u %s:%u>%s:%u", tcpd ? tcpd->stream : 0,
				       address_to_str(pinfo->pool, &pinfo->src), pinfo->srcport,
				       address_to_str(pinfo->pool, &pinfo->dst), pinfo->destport);
	struct tflow *f = wmem_map_lookup(tflows, key);

	if (!f) {
		f = wmem_new0(wmem_file_scope(), struct tflow);
		f->st.mode = tcpd && (tcpd->conversation_completeness & TCP_SAW_OPEN) ?
			     T_FRAME : T_RESYNC;
		wmem_map_insert(tflows, wmem_strdup(wmem_file_scope(), key), f);
	}
	return f;
}

/*
 * Where the next header starts in |len| bytes at |off|, by wire_resync.
 * Return: 1 found at *at; 0 not yet: *at is the first byte that may still
 * start one and *need how many more bytes would settle it (0: any more),
 * and *eos where a header starts that the stream ending right here would
 * confirm (wire_resync_finish), or -1.
 */
static int tcp_find(tvbuff_t *tvb, packet_info *pinfo, int off, int len,
		    const struct tstate *st, int *at, int *need, int *eos)
{
	uint8_t *buf = tvb_memdup(pinfo->pool, tvb, off, len);
	struct wire_resync rs;
	size_t pos;

	/* judged as rdsdump's window of a message and two headers */
	wire_resync_init(&rs, buf, (size_t)WIRE_MAX_MSG_LEN + 2 * WIRE_HDR_LEN, 0);
	wire_resync_set_win(&rs, buf, (size_t)len);
	wire_resync_reset(&rs, st->have_hint ? &st->hint : NULL);
	wire_resync_feed(&rs, buf, (size_t)len);
	*need = 0;
	*eos = -1;
	if (rs.found) {
		*at = off + (int)rs.skipped;
		return 1;
	}
	if (rs.npend) {
		struct wire_hdr h;

		pos = rs.pend[0];
		wire_hdr_decode(&h, rs.win + pos, rs.len - pos);
		*need = (int)(pos + 2 * WIRE_HDR_LEN + h.len - rs.len);
	} else {
		pos = rs.scan;
	}
	*at = off + (int)(rs.skipped + pos);
	if (wire_resync_finish(&rs))
		*eos = off + (int)rs.skipped;
	return 0;
}

/* The flow's last call no longer ends where the stream could. */
static void teos_drop(struct tflow *f)
{
	if (!f->eos)
		return;
	wmem_free(wmem_file_scope(), f->eos->bytes);
	f->eos->bytes = NULL;
	f->eos->len = 0;
	f->eos = NULL;
}

/* The bytes from |at| in |tvb| are whole messages if the stream ends here. */
static void teos_keep(packet_info *pinfo, struct tflow *f, tvbuff_t *tvb, int at)
{
	struct tframe *fr = tframe_get(pinfo);
	struct teos *e = wmem_new(wmem_file_scope(), struct teos);

	e->len = (gint)tvb_captured_length(tvb) - at;
	e->bytes = tvb_memdup(wmem_file_scope(), tvb, at, e->len);
	fr->f = f;
	fr->eos = e;
	f->eos = e;
}

/* Bytes the framing gave up: data, and said so in the info column. */
static void tcp_skipped(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, int off, int len,
			const char *why)
{
	tvbuff_t *sub;

	if (len <= 0)
		return;
	sub = tvb_new_subset_length(tvb, off, len);
	trec_add(pinfo, TR_SKIPPED, sub, why, 0);
	col_set_str(pinfo->cinfo, COL_PROTOCOL, "RDS");
	col_append_sep_fstr(pinfo->cinfo, COL_INFO, " ; ", "%d bytes %s", len, why);
	call_data_dissector(sub, pinfo, tree);
}

/* A header whose h_len no message can have: rdsdump's desync. */
static void tcp_desync(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, int off,
		       uint32_t hlen)
{
	proto_item *ti = proto_tree_add_item(tree, proto_rds, tvb, off, WIRE_HDR_LEN, ENC_NA);
	proto_tree *t = proto_item_add_subtree(ti, ett_rds);
	struct wire_rules rs;

	trec_add(pinfo, TR_DESYNC, tvb_new_subset_length(tvb, off, WIRE_HDR_LEN), NULL, hlen);
	proto_item_append_text(ti, ", desync: h_len %u above limit", hlen);
	col_set_str(pinfo->cinfo, COL_PROTOCOL, "RDS");
	wire_rules_clear(&rs);
	wire_rules_add(&rs, WIRE_RULE_HDR_LEN_MAX);
	add_rules(t, pinfo, ti, tvb, &rs);
}

/*
 * The segment starts past where framing stood: the bytes between were
 * never captured, and the reassembly asked for cannot complete (Wireshark
 * then passes the segment on as if it began a PDU). As in rdsdump, a
 * message whose payload the hole fell into is shown incomplete here and
 * framing goes on after it; a hole over a header loses the framing.
 * Return: where framing goes on in |tvb| (its length: nothing here).
 */
static int tcp_hole(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, struct tstate *st,
		    const struct tcpinfo *ti, void *data)
{
	int rep = (int)tvb_reported_length(tvb);
	struct wire_hdr h;
	int64_t d;

	if (st->mode != T_FRAME || !st->have_pend) {
		st->mode = T_RESYNC;
		st->have_hint = false;
		return 0;
	}
	st->have_pend = false;
	wire_hdr_decode(&h, st->pend, sizeof(st->pend));
	{
		uint8_t *copy = wmem_memdup(pinfo->pool, st->pend, sizeof(st->pend));
		tvbuff_t *ht = tvb_new_child_real_data(tvb, copy, WIRE_HDR_LEN, WIRE_HDR_LEN);

		add_new_data_source(pinfo, ht, "RDS header of an incomplete message");
		tcp_pdu(ht, pinfo, tree, data);
	}
	d = (int64_t)(gint32)(st->pos + WIRE_HDR_LEN + h.len - ti->seq);
	if (d < 0) {
		st->mode = T_RESYNC;
		st->have_hint = false;
		return 0;
	}
	if (d > 0)
		tcp_skipped(tvb, pinfo, tree, 0, d < rep ? (int)d : rep, "of a message's payload");
	if (d >= rep) {
		/* framing goes on in a later segment */
		st->pos += WIRE_HDR_LEN + h.len;
		return rep;
	}
	return (int)d;
}

/* The pcap link type of each Wireshark encapsulation libwire decodes TCP in. */
static const struct {
	int encap;
	int link;
} wire_links[] = {
	{ WTAP_ENCAP_ETHERNET, WIRE_LINK_ETHERNET }, { WTAP_ENCAP_RAW_IP, WIRE_LINK_RAW },
	{ WTAP_ENCAP_RAW_IP4, WIRE_LINK_IPV4 },      { WTAP_ENCAP_RAW_IP6, WIRE_LINK_IPV6 },
	{ WTAP_ENCAP_SLL, WIRE_LINK_LINUX_SLL },     { WTAP_ENCAP_SLL2, WIRE_LINK_LINUX_SLL2 },
};

/* |encap|'s pcap link type in wire_links; -1: none. */
static int wire_link(int encap)
{
	for (size_t i = 0; i < sizeof(wire_links) / sizeof(wire_links[0]); i++)
		if (wire_links[i].encap == encap)
			return wire_links[i].link;
	return -1;
}

/*
 * Whether the frame's TCP segment rides in an IP packet whose IPv4 total
 * length or IPv6 payload length runs past the end of the frame (cut on the
 * wire; a snap length shortens only what was captured). A kernel drops
 * such a packet and rdsdump reports it malformed; Wireshark's IP passes
 * on what the frame holds, with captured and reported lengths equal, so
 * the TCP payload shows no sign of it. The frame is decoded again by
 * libwire's wire_pkt_decode(), rdsdump's own first step, so that both
 * draw the line in the same place; the ports make sure it is the segment
 * handed here and not one inside a tunnel.
 */
static bool tcp_ip_cut(packet_info *pinfo)
{
	tvbuff_t *fr = frame_tvb(pinfo);
	struct wire_pkt p;
	int link;
	guint cap;

	if (!fr || !pinfo->rec || pinfo->rec->rec_type != REC_TYPE_PACKET)
		return false;
	link = wire_link(pinfo->rec->rec_header.packet_header.pkt_encap);
	if (link < 0)
		return false;
	cap = tvb_captured_length(fr);
	if (wire_pkt_decode(&p, link, cap ? tvb_get_ptr(fr, 0, (gint)cap) : NULL, cap,
			    pinfo->fd->pkt_len) != WIRE_ERR_MALFORMED)
		return false;
	return p.l4 == WIRE_L4_TCP && p.sport == pinfo->srcport && p.dport == pinfo->destport;
}

/* The segment of a packet tcp_ip_cut() found cut: bytes no receiver takes. */
static void tcp_cut(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree)
{
	proto_item *ti = proto_tree_add_item(tree, proto_rds, tvb, 0, -1, ENC_NA);

	trec_add(pinfo, TR_CUT, tvb, NULL, 0);
	proto_item_append_text(ti, ", not RDS data: IP packet longer than its frame");
	expert_add_info(pinfo, ti, &ei_ip_cut);
	col_set_str(pinfo->cinfo, COL_PROTOCOL, "RDS");
	col_append_sep_fstr(pinfo->cinfo, COL_INFO, " ; ",
			    "%u bytes of an IP packet longer than its frame",
			    tvb_reported_length(tvb));
	call_data_dissector(tvb, pinfo, tree);
}

static int dissect_rds_tcp(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
	struct tcpinfo *ti = data;
	struct tflow *f;
	struct tstate st;
	int off = 0, end;
	int cap = (int)tvb_captured_length(tvb), rep = (int)tvb_reported_length(tvb);
	bool reasm = pref_desegment && pinfo->can_desegment && cap == rep;

	if (PINFO_FD_VISITED(pinfo))
		return rep;     /* the frame's record is shown again (tcp_replay) */
	/* as in rdsdump, such a segment never reaches the stream */
	if (tcp_ip_cut(pinfo)) {
		tcp_cut(tvb, pinfo, tree);
		return rep;
	}
	f = tflow_get(pinfo);
	teos_drop(f);
	st = f->st;
	/*
	 * TCP hands a reassembly over from its first segment again when more
	 * was asked for at an offset into it, and a segment the capture cut
	 * may lie inside a message's payload: either way, what comes before
	 * the position framing reached was dealt with.
	 */
	if (st.have_pos && ti) {
		gint32 d = (gint32)(st.pos - ti->seq);

		if (d > 0 && !ti->is_reassembled)
			tcp_skipped(tvb, pinfo, tree, 0, d < rep ? d : rep, "of a message's payload");
		if (d >= rep)
			return rep;
		if (d > 0)
			off = d;
		if (d < 0 && !ti->is_reassembled)
			off = tcp_hole(tvb, pinfo, tree, &st, ti, data);
		if (off >= rep) {
			f->st = st;
			return rep;
		}
	}
	st.have_pend = false;
	end = rep;
	while (off < rep) {
		struct wire_hdr h;
		uint8_t b[WIRE_HDR_LEN];
		int at = 0, need = 0, eos = -1, found;
		uint64_t pdu;

		if (st.mode == T_RESYNC) {
			found = off + WIRE_HDR_LEN <= cap ?
				tcp_find(tvb, pinfo, off, cap - off, &st, &at, &need, &eos) : 0;
			if (!found && off + WIRE_HDR_LEN > cap)
				at = off;
			tcp_skipped(tvb, pinfo, tree, off, at - off, "skipped to find a header");
			if (found) {
				off = at;
				st.mode = T_FRAME;
				continue;
			}
			if (reasm) {
				pinfo->desegment_offset = at;
				pinfo->desegment_len = need > 0 ? (guint32)need :
						       DESEGMENT_ONE_MORE_SEGMENT;
				off = at;
				if (eos >= 0)
					teos_keep(pinfo, f, tvb, eos);
			}
			break;
		}
		if (off + WIRE_HDR_LEN > rep) {
			if (reasm) {
				pinfo->desegment_offset = off;
				pinfo->desegment_len = (guint32)(off + WIRE_HDR_LEN - rep);
			}
			break;
		}
		if (off + WIRE_HDR_LEN > cap) {
			/* the capture cut the header: the framing is lost */
			st.mode = T_RESYNC;
			st.have_hint = false;
			tcp_skipped(tvb, pinfo, tree, off, cap - off, "of a header cut by the capture");
			off = rep;
			break;
		}
		tvb_memcpy(tvb, b, off, WIRE_HDR_LEN);
		wire_hdr_decode(&h, b, sizeof(b));
		if (h.len > WIRE_MAX_MSG_LEN) {
			tcp_desync(tvb, pinfo, tree, off, h.len);
			off += WIRE_HDR_LEN;
			st.mode = T_RESYNC;
			continue;
		}
		if (wire_classify(&h, WIRE_XPORT_TCP) != WIRE_KIND_CONG && h.seq) {
			st.have_hint = true;
			st.hint = h.seq + 1;
		}
		pdu = WIRE_HDR_LEN + (uint64_t)h.len;
		if ((uint64_t)(rep - off) < pdu && reasm) {
			pinfo->desegment_offset = off;
			pinfo->desegment_len = (guint32)(pdu - (uint64_t)(rep - off));
			st.have_pend = true;
			memcpy(st.pend, b, sizeof(b));
			break;
		}
		if ((uint64_t)(rep - off) < pdu) {
			/* no reassembly here: what the segment holds of it */
			tcp_pdu(tvb_new_subset_remaining(tvb, off), pinfo, tree, data);
			end = off + (int)pdu;
			off = rep;
			break;
		}
		tcp_pdu(tvb_new_subset_length(tvb, off, (gint)pdu), pinfo, tree, data);
		off += (int)pdu;
	}
	if (pinfo->desegment_len)
		end = pinfo->desegment_offset;
	st.have_pos = ti != NULL;
	st.pos = ti ? ti->seq + (guint32)end : 0;
	f->st = st;
	return rep;
}

/*
 * A later pass: the frame shows what the first pass showed in it, and the
 * messages its flow's last call held back for a header that was to follow
 * when none did: the stream ended there (end of the capture, FIN, RST),
 * which rdsdump confirms them by and which the first pass could not know.
 */
static int tcp_replay(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data _U_)
{
	struct tframe *fr;
	struct teos *e;

	if (!PINFO_FD_VISITED(pinfo))
		return 0;
	fr = p_get_proto_data(wmem_file_scope(), pinfo, proto_rds, TFRAME_KEY);
	if (!fr)
		return 0;
	for (struct trec *r = fr->head; r; r = r->next) {
		tvbuff_t *t = tspan_tvb(tvb, pinfo, &r->sp);

		switch (r->op) {
		case TR_PDU:
			tcp_pdu(t, pinfo, tree, NULL);
			break;
		case TR_SKIPPED:
			tcp_skipped(t, pinfo, tree, 0, r->sp.rep, r->why);
			break;
		case TR_DESYNC:
			tcp_desync(t, pinfo, tree, 0, r->hlen);
			break;
		case TR_CUT:
			tcp_cut(t, pinfo, tree);
			break;
		default:
			break;
		}
	}
	e = fr->eos;
	if (e && fr->f && fr->f->eos == e && e->bytes) {
		tvbuff_t *t = tvb_new_child_real_data(tvb, e->bytes, (guint)e->len, e->len);
		int off = 0;

		add_new_data_source(pinfo, t, "RDS at the end of the stream");
		while (off + WIRE_HDR_LEN <= e->len) {
			struct wire_hdr h;
			uint8_t b[WIRE_HDR_LEN];

			tvb_memcpy(t, b, off, WIRE_HDR_LEN);
			wire_hdr_decode(&h, b, sizeof(b));
			if (h.len > (uint32_t)(e->len - off - WIRE_HDR_LEN))
				break;
			tcp_pdu(tvb_new_subset_length(t, off, WIRE_HDR_LEN + (gint)h.len), pinfo,
				tree, NULL);
			off += WIRE_HDR_LEN + (int)h.len;
		}
	}
	return (int)tvb_captured_length(tvb);
}

/* ------------------------------------------------------------------------
 * RDMA on RoCE: the RDMA WRITE, READ REQUEST / RESPONSE and atomic packets
 * of an RDS QP, and the RDS message each request belongs to. rdsdump's
 * engine (dump_eng, the same code and the same ties as rdsdump's rdma
 * records) is fed every InfiniBand frame once, in order, in the first
 * pass: by the IB heuristic for a SEND it is handed, by a postdissector
 * for the rest (a READ REQUEST or an atomic carries no payload, so no
 * heuristic sees it). What it says of a frame is kept for every pass.
 * A message claims the requests of its QP with the r_key of its RDMA
 * extension header (dump_msg.rdma_frames); a READ RESPONSE is tied to
 * its READ REQUEST by the PSN it answers, on the same RDS connection.
 */

struct rdma_info {
	bool op;                    /* an RDMA or atomic completes in this frame */
	struct dump_rdma_rec r;
	guint32 msg_frame;          /* request: the message that claimed it */
	guint32 req_frame;          /* READ RESPONSE: its READ REQUEST */
	bool msg;                   /* an RDS message that claimed some */
	uint32_t ops, unmatched;
	uint64_t bytes;
	guint32 op_frames[8];
};

static struct dump_eng *rdma_eng;
static guint32 rdma_fed;        /* the last frame handed to the engine */
static wmem_map_t *rdma_infos;  /* frame: struct rdma_info */
static wmem_map_t *rdma_reads;  /* conn << 32 | PSN: READ REQUEST frame */
static int hf_rdma_msg_frame = -1, hf_rdma_req_frame = -1, hf_rdma_frame = -1;

static struct rdma_info *rdma_info_of(guint32 frame, bool make)
{
	struct rdma_info *i = wmem_map_lookup(rdma_infos, GUINT_TO_POINTER(frame));

	if (!i && make) {
		i = wmem_new0(wmem_file_scope(), struct rdma_info);
		wmem_map_insert(rdma_infos, GUINT_TO_POINTER(frame), i);
	}
	return i;
}

static gpointer read_key(const struct dump_rec *r)
{
	return GSIZE_TO_POINTER(((gsize)(guint32)r->conn << 24) ^ r->u.rdma.psn);
}

static void rdma_sink(void *ctx, const struct dump_rec *r)
{
	struct rdma_info *i;

	(void)ctx;
	if (r->type == DUMP_REC_RDMA) {
		i = rdma_info_of((guint32)r->frame, true);
		i->op = true;
		i->r = r->u.rdma;
		if (r->u.rdma.op == DUMP_RDMA_READ)
			wmem_map_insert(rdma_reads, read_key(r), GUINT_TO_POINTER(r->frame));
		else if (r->u.rdma.op == DUMP_RDMA_READ_RESP)
			i->req_frame = GPOINTER_TO_UINT(wmem_map_lookup(rdma_reads, read_key(r)));
	} else if (r->type == DUMP_REC_MSG && r->xp == DUMP_XP_IB &&
		   (r->u.msg.rdma_ops || r->u.msg.rdma_unmatched)) {
		const struct dump_msg *m = &r->u.msg;

		i = rdma_info_of((guint32)r->frame, true);
		i->msg = true;
		i->ops = m->rdma_ops;
		i->bytes = m->rdma_bytes;
		i->unmatched = m->rdma_unmatched;
		for (uint32_t k = 0; k < m->rdma_ops && k < G_N_ELEMENTS(i->op_frames); k++) {
			i->op_frames[k] = (guint32)m->rdma_frames[k];
			rdma_info_of(i->op_frames[k], true)->msg_frame = (guint32)r->frame;
		}
	}
}

/* Hand this frame to the engine, once, in the first pass. */
static void rdma_feed(packet_info *pinfo)
{
	tvbuff_t *fr = frame_tvb(pinfo);
	struct dump_pkthdr ph;
	guint cap;
	int link;

	if (PINFO_FD_VISITED(pinfo) || pinfo->num <= rdma_fed || !fr || !pinfo->rec ||
	    pinfo->rec->rec_type != REC_TYPE_PACKET)
		return;
	rdma_fed = pinfo->num;
	link = wire_link(pinfo->rec->rec_header.packet_header.pkt_encap);
	if (link < 0)
		return;
	if (!rdma_eng) {
		struct dump_cfg cfg = { .kv = (enum wire_kver)pref_kver, .sink = rdma_sink };

		if (dump_eng_new(&rdma_eng, &cfg))
			return;
	}
	cap = tvb_captured_length(fr);
	memset(&ph, 0, sizeof(ph));
	ph.frame = pinfo->num;
	ph.ts_sec = pinfo->abs_ts.secs;
	ph.ts_nsec = (uint32_t)pinfo->abs_ts.nsecs;
	ph.caplen = cap;
	ph.len = pinfo->fd->pkt_len;
	ph.linktype = link;
	(void)dump_eng_packet(rdma_eng, &ph, cap ? tvb_get_ptr(fr, 0, (gint)cap) : NULL);
}

static void rdma_init(void)
{
	rdma_fed = 0;
}

static void rdma_cleanup(void)
{
	dump_eng_free(rdma_eng);
	rdma_eng = NULL;
}

/* A message's RDMA: the requests it claimed, by frame. */
static void show_rdma_msg(proto_tree *t, proto_item *ti, tvbuff_t *tvb,
			  const struct rdma_info *i)
{
	gen(add_u(t, "rdma_ops", tvb, 0, 0, i->ops));
	gen(add_u(t, "rdma_bytes", tvb, 0, 0, i->bytes));
	gen(add_u(t, "rdma_unmatched", tvb, 0, 0, i->unmatched));
	for (uint32_t k = 0; k < i->ops && k < G_N_ELEMENTS(i->op_frames); k++)
		gen(proto_tree_add_uint(t, hf_rdma_frame, tvb, 0, 0, i->op_frames[k]));
	proto_item_append_text(ti, ", RDMA: %u op%s (%" PRIu64 " bytes)", i->ops,
			       i->ops == 1 ? "" : "s", i->bytes);
}

/* An RDMA or atomic of an RDS QP in this frame: rds.rdma.<key>. */
static int dissect_rds_rdma(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			    void *data _U_)
{
	const struct rdma_info *i;
	const struct dump_rdma_rec *a;
	const char *op;
	proto_item *ti;
	proto_tree *t;

	if (proto_is_frame_protocol(pinfo->layers, "infiniband"))
		rdma_feed(pinfo);
	i = rdma_info_of(pinfo->num, false);
	if (!i || !i->op)
		return 0;
	a = &i->r;
	op = wire_tok_name(dump_rdma_op_toks, a->op);
	ti = proto_tree_add_item(tree, proto_rds, tvb, 0, 0, ENC_NA);
	proto_item_append_text(ti, ", RDMA %s r_key 0x%08x", op ? op : "?", a->rkey);
	t = proto_item_add_subtree(ti, ett_rds);
	gen(add_s(t, "type", tvb, 0, 0, "rdma"));
	gen(add_s(t, "xport", tvb, 0, 0, "ib"));
	gen(add_s(t, "rdma.op", tvb, 0, 0, op));
	if (a->op != DUMP_RDMA_READ_RESP) {
		gen(add_u(t, "rdma.rkey", tvb, 0, 0, a->rkey));
		gen(add_u(t, "rdma.va", tvb, 0, 0, a->va));
		gen(add_u(t, "rdma.len", tvb, 0, 0, a->len));
	}
	gen(add_u(t, "rdma.bytes", tvb, 0, 0, a->bytes));
	gen(add_u(t, "rdma.packets", tvb, 0, 0, a->packets));
	gen(add_u(t, "rdma.psn", tvb, 0, 0, a->psn));
	if (a->op == DUMP_RDMA_CSWP || a->op == DUMP_RDMA_FADD) {
		gen(add_u(t, "rdma.swap_add", tvb, 0, 0, a->swap_add));
		gen(add_u(t, "rdma.compare", tvb, 0, 0, a->compare));
	}
	if (i->msg_frame) {
		gen(proto_tree_add_uint(t, hf_rdma_msg_frame, tvb, 0, 0, i->msg_frame));
		proto_item_append_text(ti, ", carried by the message in frame %u", i->msg_frame);
	}
	if (i->req_frame) {
		gen(proto_tree_add_uint(t, hf_rdma_req_frame, tvb, 0, 0, i->req_frame));
		proto_item_append_text(ti, ", answers the READ REQUEST in frame %u", i->req_frame);
	}
	col_append_fstr(pinfo->cinfo, COL_INFO, " [RDS RDMA %s]", op ? op : "?");
	return (int)tvb_captured_length(tvb);
}

/* ------------------------------------------------------------------------
 * RDS over InfiniBand / RoCE
 */

/* What one IB packet is to RDS, from the first pass. */
struct ib_res {
	bool hdr;                /* it starts a SEND with an RDS header */
	uint8_t stray;           /* enum ib_stray: on an RDS flow, in no message */
	int rc;                  /* wire_reasm_input() on the SEND it ends; 2: none */
	struct wire_frame fr;    /* rc 1: the message */
	uint32_t frags;
	struct wire_rules rules; /* the reassembly's */
	struct cong_res *cong;
};

/*
 * A SEND packet of a flow known as RDS that is part of no message: still
 * RDS's, or a heuristic such as RPC-over-RDMA's takes it and with it the
 * rest of the conversation.
 */
enum ib_stray { IB_IN_MSG, IB_PSN_DUP, IB_NO_START };

static bool send_starts(uint8_t op)
{
	enum wire_ib_seg s = wire_ib_opcode_seg(op);

	return s == WIRE_IB_SEG_FIRST || s == WIRE_IB_SEG_ONLY;
}

static bool send_ends(uint8_t op)
{
	enum wire_ib_seg s = wire_ib_opcode_seg(op);

	return s == WIRE_IB_SEG_LAST || s == WIRE_IB_SEG_ONLY;
}

/*
 * A SEND that starts with an RDS header: on a flow not yet known as RDS,
 * by the rule rdsdump takes a QP by (wire_ib_claims_qp: a set h_csum that
 * verifies); on a flow that is, every SEND whose length an RDS message can
 * have, a bad h_csum being a rule broken, not a reason to look away.
 */
static bool looks_rds(tvbuff_t *tvb, bool known)
{
	uint8_t b[WIRE_HDR_LEN];
	struct wire_hdr h;

	if (tvb_captured_length(tvb) < WIRE_HDR_LEN)
		return false;
	tvb_memcpy(tvb, b, 0, WIRE_HDR_LEN);
	if (!known)
		return wire_ib_claims_qp(b, sizeof(b));
	wire_hdr_decode(&h, b, sizeof(b));
	return h.len <= WIRE_MAX_MSG_LEN;
}

static struct ib_res *ib_stray(enum ib_stray why)
{
	struct ib_res *r = wmem_new0(wmem_file_scope(), struct ib_res);

	r->stray = (uint8_t)why;
	r->rc = 2;
	return r;
}

static struct ib_res *ib_first_pass(tvbuff_t *tvb, packet_info *pinfo,
				    const struct infinibandinfo *info)
{
	struct flow *fl = flow_get(pinfo, "ib");
	uint8_t op = info->opCode;
	uint32_t n = tvb_captured_length(tvb);
	struct ib_res *r;

	/* the payload Wireshark hands over still has the BTH pad bytes */
	if (send_ends(op))
		n = n > info->pad_count ? n - info->pad_count : 0;

	/* rdsdump's PSN rule: a packet seen already is RDS's but in no message;
	 * one after a hole ends the SEND and message in progress */
	if (wire_ib_opcode_seg(op) != WIRE_IB_SEG_NONE) {
		int32_t gap = wire_ib_psn_step(&fl->have_psn, &fl->next_psn,
					       info->packet_seq_num & 0xffffff);

		if (gap < 0)
			return fl->rds ? ib_stray(IB_PSN_DUP) : NULL;
		if (gap) {
			fl->in_send = false;
			fl->send_len = 0;
			if (fl->send)
				wire_reasm_init_prefix(&fl->ra, 0, fl->rbuf, WIRE_CONG_MAP_BYTES);
		}
	}

	if (send_starts(op)) {
		if (!looks_rds(tvb, fl->rds))
			return NULL;
		fl->rds = true;
		fl->in_send = true;
		fl->send_bad = false;
		fl->send_len = 0;
	} else if (!fl->rds || wire_ib_opcode_seg(op) == WIRE_IB_SEG_NONE) {
		return NULL;
	} else if (!fl->in_send) {
		return ib_stray(IB_NO_START);
	}
	r = wmem_new0(wmem_file_scope(), struct ib_res);
	r->hdr = send_starts(op);
	r->rc = 2;
	if (!fl->send) {
		fl->send = wmem_alloc(wmem_file_scope(), RDSWS_SEND_MAX);
		fl->rbuf = wmem_alloc(wmem_file_scope(), WIRE_CONG_MAP_BYTES);
		wire_reasm_init_prefix(&fl->ra, 0, fl->rbuf, WIRE_CONG_MAP_BYTES);
	}
	if (n > RDSWS_SEND_MAX - fl->send_len)
		fl->send_bad = true;
	else
		tvb_memcpy(tvb, fl->send + fl->send_len, 0, n);
	fl->send_len += fl->send_bad ? 0 : n;
	if (!send_ends(op))
		return r;
	fl->in_send = false;
	if (fl->send_bad) {
		/* longer than any RDS SEND: what wire_reasm says of a long
		 * fragment, without handing it bytes that were not kept */
		r->rc = WIRE_ERR_MALFORMED;
		fl->ra.active = false;
		wire_rules_clear(&r->rules);
		wire_rules_add(&r->rules, WIRE_RULE_FRAG_LONG);
		return r;
	}
	r->rc = wire_reasm_input(&fl->ra, fl->send, fl->send_len, &r->fr);
	r->frags = fl->ra.frags;
	r->rules = fl->ra.rules;
	if (r->rc == 1) {
		if (r->fr.hdr.sport == 0 && r->fr.hdr.dport == 0 && r->fr.len == 0)
			r->frags = 1;
		if (wire_classify(&r->fr.hdr, WIRE_XPORT_IB) == WIRE_KIND_CONG)
			r->cong = cong_track(pinfo, r->fr.caplen == WIRE_CONG_MAP_BYTES ?
					     r->fr.payload : NULL, r->fr.caplen);
	}
	return r;
}

static gboolean dissect_rds_ib(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
	struct infinibandinfo *info = data;
	struct ib_res *r = p_get_proto_data(wmem_file_scope(), pinfo, proto_rds, 0);
	struct wire_rules rs;
	struct wire_hdr h;
	enum wire_kind kind;
	proto_item *ti = NULL;
	proto_tree *t = NULL;

	rdma_feed(pinfo);
	if (!r && !PINFO_FD_VISITED(pinfo) && info) {
		r = ib_first_pass(tvb, pinfo, info);
		if (r)
			p_add_proto_data(wmem_file_scope(), pinfo, proto_rds, 0, r);
	}
	if (!r)
		return false;
	col_set_str(pinfo->cinfo, COL_PROTOCOL, "RDS");
	col_clear(pinfo->cinfo, COL_INFO);
	wire_rules_clear(&rs);
	if (r->stray) {
		const char *why = r->stray == IB_PSN_DUP ?
			"PSN seen already (retransmission)" :
			"SEND packet whose first packet was not seen in order";

		ti = proto_tree_add_item(tree, proto_rds, tvb, 0, -1, ENC_NA);
		proto_item_append_text(ti, ", %s", why);
		t = proto_item_add_subtree(ti, ett_rds);
		gen(add_s(t, "xport", tvb, 0, 0, "ib"));
		col_set_str(pinfo->cinfo, COL_INFO, why);
	} else if (r->hdr) {
		t = show_hdr(tvb, pinfo, tree, WIRE_XPORT_IB, &h, &kind, &ti);
		header_rules(&h, WIRE_XPORT_IB, &rs);
	} else {
		ti = proto_tree_add_item(tree, proto_rds, tvb, 0, -1, ENC_NA);
		proto_item_append_text(ti, ", fragment continued");
		t = proto_item_add_subtree(ti, ett_rds);
		gen(add_s(t, "xport", tvb, 0, 0, "ib"));
		col_set_str(pinfo->cinfo, COL_INFO, "fragment continued");
	}
	if (r->rc == 1) {
		gen(add_s(t, "type", tvb, 0, 0, "msg"));
		gen(add_u(t, "frags", tvb, 0, 0, r->frags));
		gen(add_u(t, "caplen", tvb, 0, 0, r->fr.caplen));
		proto_item_append_text(ti, ", message of %u fragment%s complete", r->frags,
				       r->frags == 1 ? "" : "s");
		if (!r->hdr)
			col_append_fstr(pinfo->cinfo, COL_INFO, ": %s seq %" PRIu64 " len %u complete",
					wire_kind_name(wire_classify(&r->fr.hdr, WIRE_XPORT_IB)),
					r->fr.hdr.seq, r->fr.len);
		if (r->cong)
			show_cong(t, tvb, 0, 0, r->cong);
		{
			const struct rdma_info *ri = rdma_info_of(pinfo->num, false);

			if (ri && ri->msg)
				show_rdma_msg(t, ti, tvb, ri);
		}
	}
	wire_rules_merge(&rs, &r->rules);
	add_rules(t, pinfo, ti, tvb, &rs);
	if (tvb_captured_length(tvb) > (r->hdr ? WIRE_HDR_LEN : 0))
		call_data_dissector(tvb_new_subset_remaining(tvb, r->hdr ? WIRE_HDR_LEN : 0),
				    pinfo, tree);
	return true;
}

/*
 * CM private data. The heuristic is handed the private data of a REQ (92
 * bytes, or the 56 after the rdma_cm header when Wireshark has taken that
 * apart) or of a REP (196); the MAD around it, which holds the service ID
 * and the communication IDs, is in the same data source at a fixed
 * distance, so libwire decodes the whole MAD. A REQ to an RDS service ID
 * names its comm ID; the REP answering that comm ID is RDS too.
 */
static wmem_map_t *cm_reqs;     /* REQ local comm ID: address family */

/* Where the MAD starts, before private data of |plen| bytes; 0 if none. */
static int mad_back(guint plen, uint16_t *attr)
{
	*attr = plen == 196 ? WIRE_IBCM_REP : WIRE_IBCM_REQ;
	return plen == 92 ? 24 + 140 : plen == 56 ? 24 + 140 + 36 : plen == 196 ? 24 + 36 : 0;
}

static gboolean dissect_rds_cm(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, void *data)
{
	tvbuff_t *ds = tvb_get_ds_tvb(tvb);
	uint16_t attr;
	int back = mad_back(tvb_reported_length(tvb), &attr);
	int off = tvb_raw_offset(tvb);
	int mad_off = off - back;
	const struct fdesc *d;
	struct wire_ibcm cm;
	struct wire_ibpd pd;
	const uint8_t *mad;
	const uint8_t *p;
	size_t n;
	int family;
	proto_item *ti;
	proto_tree *t, *pt;
	char addr[64];

	if (!back || mad_off < 0 || tvb_captured_length_remaining(ds, mad_off) < WIRE_MAD_LEN)
		return false;
	mad = tvb_get_ptr(ds, mad_off, WIRE_MAD_LEN);
	if (wire_ibcm_decode(&cm, mad, WIRE_MAD_LEN) != 0 || cm.attr_id != attr)
		return false;
	if (cm.attr_id == WIRE_IBCM_REQ) {
		if (cm.service_id != wire_ibcm_rds_service_id(WIRE_IB_PORT_V4) &&
		    cm.service_id != wire_ibcm_rds_service_id(WIRE_IB_PORT_V6))
			return false;
		family = cm.has_cma && cm.cma_ip_version == 6 ? 6 : 4;
		wmem_map_insert(cm_reqs, GUINT_TO_POINTER(cm.local_comm_id), GINT_TO_POINTER(family));
		p = cm.has_cma ? cm.user_data : cm.private_data;
		n = cm.has_cma ? cm.user_len : cm.private_len;
	} else {
		family = GPOINTER_TO_INT(wmem_map_lookup(cm_reqs,
							 GUINT_TO_POINTER(cm.remote_comm_id)));
		if (!family)
			return false;
		p = cm.private_data;
		n = cm.private_len;
	}
	memset(&pd, 0, sizeof(pd));
	wire_ibpd_decode(&pd, family, p, n);
	/* the pd's offset in |tvb| */
	off = (int)(p - mad) - back;

	ti = proto_tree_add_item(tree, proto_rds, tvb, 0, -1, ENC_NA);
	proto_item_append_text(ti, ", CM %s private data, version %u.%u",
			       wire_ibcm_attr_name(cm.attr_id), pd.major, pd.minor);
	col_append_fstr(pinfo->cinfo, COL_INFO, " (RDS %u.%u credit %u ack_seq %" PRIu64 ")",
			pd.major, pd.minor, pd.credit, pd.ack_seq);
	t = proto_item_add_subtree(ti, ett_rds);
	gen(add_s(t, "type", tvb, 0, 0, "cm"));
	gen(add_s(t, "cm", tvb, 0, 0, wire_ibcm_attr_name(cm.attr_id)));
	if (cm.attr_id == WIRE_IBCM_REQ)
		gen(add_u(t, "service_id", tvb, 0, 0, cm.service_id));
	gen(add_u(t, "private_len", tvb, 0, 0, cm.private_len));
	if (cm.has_cma) {
		gen(add_u(t, "cma_version", tvb, 0, 0, cm.cma_version));
		gen(add_u(t, "cma_ip_version", tvb, 0, 0, cm.cma_ip_version));
		gen(add_u(t, "cma_port", tvb, 0, 0, cm.cma_port));
	}
	pt = add_obj(t, "pd", tvb, off, (int)(n < WIRE_IBPD_V6_LEN ? n : (size_t)(family == 6 ?
				WIRE_IBPD_V6_LEN : WIRE_IBPD_V4_LEN)), NULL);
	if (pt) {
		int c = off + (family == 6 ? 32 : 8);
		int al = family == 6 ? 16 : 4;

		add_u(pt, "pd.family", tvb, off, 0, (uint64_t)family);
		if (n >= (size_t)(family == 6 ? WIRE_IBPD_V6_LEN : WIRE_IBPD_V4_LEN)) {
			address a;

			set_address(&a, family == 6 ? AT_IPv6 : AT_IPv4, al, pd.saddr);
			address_to_str_buf(&a, addr, sizeof(addr));
			add_s(pt, "pd.saddr", tvb, off, al, addr);
			set_address(&a, family == 6 ? AT_IPv6 : AT_IPv4, al, pd.daddr);
			address_to_str_buf(&a, addr, sizeof(addr));
			add_s(pt, "pd.daddr", tvb, off + al, al, addr);
			add_u(pt, "pd.major", tvb, c, 1, pd.major);
			add_u(pt, "pd.minor", tvb, c + 1, 1, pd.minor);
			add_u(pt, "pd.minor_mask", tvb, c + 2, 2, pd.minor_mask);
			add_u(pt, "pd.tos", tvb, c + 4, 1, pd.tos);
			add_u(pt, "pd.reserved1", tvb, c + 5, 1, pd.reserved1);
			add_u(pt, "pd.reserved2", tvb, c + 6, 2, pd.reserved2);
			add_u(pt, "pd.ack_seq", tvb, c + 8, 8, pd.ack_seq);
			add_u(pt, "pd.credit", tvb, c + 16, 4, pd.credit);
			add_bytes(pt, "pd.pad", tvb, c + 20, 4);
			gen(add_u(pt, "pd.extra", tvb, c + 24, 0, pd.extra));
		}
	}
	d = fd("version");
	if (d) {
		uint16_t v = cm.attr_id == WIRE_IBCM_REQ ?
			wire_ib_negotiate(p, n, family) : (uint16_t)(pd.major << 8 | pd.minor);

		snprintf(addr, sizeof(addr), "%u.%u", v >> 8, v & 0xff);
		gen(add_s(t, "version", tvb, 0, 0, addr));
	}
	{
		struct wire_rules rs = cm.rules;

		wire_rules_merge(&rs, &pd.rules);
		add_rules(t, pinfo, ti, tvb, &rs);
	}
	return true;
}

/* ------------------------------------------------------------------------
 * Registration
 */

static void register_rules(expert_module_t *em)
{
	static const ei_register_info tmpl = {
		NULL, { NULL, PI_PROTOCOL, PI_NOTE, NULL, EXPFILL }
	};
	ei_register_info *ei = g_new(ei_register_info, WIRE_RULE__COUNT - 1);
	int n = 0;

	for (int r = 1; r < WIRE_RULE__COUNT; r++) {
		const struct wire_rule_info *ri = wire_rule_info((enum wire_rule)r);

		rule_ei[r].ei = EI_INIT_EI;
		rule_ei[r].hf = EI_INIT_HF;
		if (!ri)
			continue;
		ei[n] = tmpl;
		ei[n].ids = &rule_ei[r];
		ei[n].eiinfo.name = g_strdup_printf("rds.rule.%s", ri->name);
		ei[n].eiinfo.severity = ri->sev == WIRE_SEV_ERROR ? PI_ERROR :
					ri->sev == WIRE_SEV_WARN ? PI_WARN : PI_NOTE;
		ei[n].eiinfo.summary = g_strdup_printf("%s (%s)", ri->text, ri->name);
		n++;
	}
	expert_register_field_array(em, ei, n);
}

static void register_experts(expert_module_t *em)
{
	static ei_register_info ei[] = {
		{ &ei_ip_cut, { "rds.ip_cut", PI_PROTOCOL, PI_ERROR,
		  "Not RDS data: the IP packet is longer than its frame (cut on the wire; "
		  "a kernel drops it)", EXPFILL } },
	};

	expert_register_field_array(em, ei, G_N_ELEMENTS(ei));
}

void rdsws_register(void)
{
	static gint *ett[] = { &ett_rds, &ett_flags, &ett_obj };
	static const enum_val_t kvers[] = {
		{ "6", "6.x (one extension header, no RDMA_BYTES or SPORT_IDX)", WIRE_KVER_6 },
		{ "7", "7.0 and later", WIRE_KVER_7 },
		{ NULL, NULL, 0 },
	};
	expert_module_t *em;
	module_t *m;

	static hf_register_info links[] = {
		{ &hf_rdma_msg_frame, { "RDS message", "rds.rdma.msg_frame", FT_FRAMENUM, BASE_NONE,
		  FRAMENUM_TYPE(FT_FRAMENUM_REQUEST), 0, "The RDS message whose RDMA extension "
		  "header names this operation's r_key", HFILL } },
		{ &hf_rdma_req_frame, { "READ REQUEST", "rds.rdma.request_frame", FT_FRAMENUM,
		  BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_REQUEST), 0, "The READ REQUEST this "
		  "response answers", HFILL } },
		{ &hf_rdma_frame, { "RDMA operation", "rds.rdma_frame", FT_FRAMENUM, BASE_NONE,
		  FRAMENUM_TYPE(FT_FRAMENUM_RESPONSE), 0, "An RDMA or atomic this message "
		  "carried (its last packet)", HFILL } },
	};

	proto_rds = proto_register_protocol("Reliable Datagram Sockets", "RDS", "rds");
	register_fields();
	proto_register_field_array(proto_rds, links, G_N_ELEMENTS(links));
	proto_register_subtree_array(ett, G_N_ELEMENTS(ett));
	em = expert_register_protocol(proto_rds);
	register_rules(em);
	register_experts(em);
	m = prefs_register_protocol(proto_rds, NULL);
	prefs_register_enum_preference(m, "kernel",
		"Parse extension headers as kernel generation",
		"A 6.x receiver knows one extension header and not RDMA_BYTES or SPORT_IDX",
		&pref_kver, kvers, FALSE);
	prefs_register_bool_preference(m, "desegment",
		"Reassemble RDS messages spanning multiple TCP segments",
		"Uses TCP reassembly (the TCP preference \"Allow subdissectors to reassemble "
		"TCP streams\" must be on too)", &pref_desegment);
	flows = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), g_str_hash,
				       g_str_equal);
	maps = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), g_str_hash,
				      g_str_equal);
	tflows = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), g_str_hash,
					g_str_equal);
	cm_reqs = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), g_direct_hash,
					 g_direct_equal);
	rdma_infos = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(),
					    g_direct_hash, g_direct_equal);
	rdma_reads = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(),
					    g_direct_hash, g_direct_equal);
	register_init_routine(rdma_init);
	register_cleanup_routine(rdma_cleanup);
}

void rdsws_handoff(void)
{
	dissector_handle_t h = create_dissector_handle(dissect_rds_tcp, proto_rds);

	dissector_add_uint_with_preference("tcp.port", WIRE_TCP_PORT, h);
	register_postdissector(create_dissector_handle(tcp_replay, proto_rds));
	register_postdissector(create_dissector_handle(dissect_rds_rdma, proto_rds));
	heur_dissector_add("infiniband.payload", dissect_rds_ib, "RDS over InfiniBand",
			   "rds_ib", proto_rds, HEURISTIC_ENABLE);
	heur_dissector_add("infiniband.mad.cm.private", dissect_rds_cm,
			   "RDS CM private data", "rds_ib_cm", proto_rds, HEURISTIC_ENABLE);
}
