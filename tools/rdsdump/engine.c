// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * engine.c - rdsdump's engine: captured packets in, decoded records out.
 *
 * RDS/TCP: every TCP connection on an RDS port has two directions, each
 * reassembled by tcpreasm and cut into messages by libwire's deframer (in
 * prefix mode, so a direction holds at most cfg.keep payload bytes). Bytes
 * the capture lost or cut are skipped inside a payload and resynchronised
 * on anywhere else (resync.c).
 * RDS over RoCEv2: RC SEND packets of a QP are put back into SENDs by PSN
 * (a PSN seen before is a retransmission, one too far ahead a loss), each
 * SEND is one RDS fragment, and libwire's reassembler makes messages.
 * Both feed one model of a kernel receiver per connection and path: the
 * sequence check of rds_recv_incoming, probes, generation numbers and the
 * peer's congestion map.
 *
 * Memory follows what is in flight: a flow's buffers start small and grow
 * as bytes wait (tcpreasm's ring, the resync window, the table of accepted
 * messages), never sized by a length field. Two limits hold the total:
 * max_flows flows at once, and max_mem bytes for everything, kept by
 * closing the least recently active flows early. Each early close is
 * counted (dump_eng_drops) so that the tool can say its output is
 * incomplete instead of leaving it to be noticed.
 */
#include "dump.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "resync.h"
#include "tcpreasm.h"

#define NBUCKET 4096u
#define MAX_CONNS 65536u
#define RESYNC_WIN_MAX (16u << 20)
#define FRAME_MAX (WIRE_HDR_LEN + WIRE_FRAG_SIZE)
#define RESYNC_WIN_MIN 4096u
/*
 * What one packet can add before the budget is looked at again: a ring
 * grown to its largest while the old one is still held, a resync window
 * grown to its largest, a new flow, a table of accepted messages. Below
 * max_mem by this much, the next packet cannot cross it.
 */
#define PKT_HEADROOM (4u << 20)

enum fr_mode { FR_FRAME, FR_RESYNC };

/* One direction of a TCP flow. */
struct tdir {
	struct dump_tcp_dir tcp;
	size_t tcp_mem;         /* dump_tcp_dir_mem() as counted in the engine's mem */
	bool tcp_ok;
	bool closed;            /* FIN or RST seen, or closed at the end */
	enum fr_mode mode;
	struct wire_deframer df;
	uint64_t df_base;       /* stream offset where the deframer started */
	uint8_t *keep;
	struct dump_resync rs;
	uint8_t *win;
	size_t win_len;         /* allocated at win (grows up to rs.cap) */
	uint64_t rs_base;       /* stream offset of the first byte given to resync */
	uint32_t segs;          /* DATA events that carried the message in progress */
	int dir;                /* relative to the connection */
};

/* Reassembly of one QP's SENDs (one direction of an RC connection). */
struct qstate {
	bool have_psn;
	uint32_t next_psn;
	uint8_t *fbuf;          /* FRAME_MAX: the SEND being assembled */
	size_t flen;
	bool in_send;
	struct wire_reasm ra;
	uint8_t *keep;
	struct wire_rules rules;/* of the packets of the message in progress */
	bool icrc_ok;
};

enum fkind { F_TCP, F_QP };

struct flow {
	enum fkind kind;
	struct dump_ep ep[2];   /* TCP: ep[0] the smaller endpoint; QP: src, dst */
	uint32_t qpn;
	struct flow *hnext;
	struct flow *prev, *next;       /* LRU list, most recent first */
	int conn;
	int path;
	bool has_slot;
	bool closed;
	bool noted_syn[2];
	struct tdir d[2];
	struct qstate q;
};

struct conn {
	struct dump_conn pub;
	struct conn *hnext;
	struct wire_cong_map *map[2];
	bool have_map[2];
	bool have_rx[WIRE_MAX_PATHS][2];
	uint64_t next_rx[WIRE_MAX_PATHS][2];
	struct flow *slot[WIRE_MAX_PATHS];
	uint64_t *seen[2];      /* signatures of accepted messages, per direction */
	uint32_t seen_cap[2];   /* entries at seen[d]: SEEN_SLOTS once full size */
	uint32_t seen_used[2];
	unsigned nflows;        /* flows that carry it now */
};

/* Accepted messages remembered per direction to recognise a resend that
 * is accepted a second time; direct-mapped, older entries overwritten.
 * Most connections carry a few messages, so the table starts as a small
 * open-addressed copy of the direct-mapped one (same keys, same answers)
 * and becomes the real thing when it would be as big. */
#define SEEN_SLOTS 4096u
#define SEEN_FIRST 16u

/* REQs waiting for their REP, to know the family of the private data. */
struct cmreq {
	uint32_t comm_id;
	int family;
	uint16_t proposed;
};

enum drop_why { DROP_NONE, DROP_MAX_FLOWS, DROP_MEM };

struct dump_eng {
	struct dump_cfg cfg;
	size_t mem;
	struct dump_eng_drops drops;
	struct flow *fb[NBUCKET];
	struct flow *lru_head, *lru_tail;
	unsigned nflows;
	struct conn *cb[NBUCKET];
	struct conn **conns;
	size_t nconns, conns_cap;
	size_t conn_sweep;      /* where make_room() looks for idle state next */
	struct cmreq reqs[64];
	unsigned nreq;
	struct wire_cong_map cong_tmp;
	/* the packet being processed (after the last one: its time and number
	 * stamp what the end of the capture releases) */
	struct dump_pkthdr ph;
	bool have_ph;
	const uint8_t *buf;
	bool finishing;
};

/* ------------------------------------------------------------------------
 * Names
 */

const struct wire_tok dump_note_toks[] = {
	{ DUMP_NOTE_SYN, "syn" },
	{ DUMP_NOTE_MIDSTREAM, "midstream" },
	{ DUMP_NOTE_FIN, "fin" },
	{ DUMP_NOTE_RST, "rst" },
	{ DUMP_NOTE_GAP, "gap" },
	{ DUMP_NOTE_TRUNC, "trunc" },
	{ DUMP_NOTE_RESYNC, "resync" },
	{ DUMP_NOTE_RETRANS, "retrans" },
	{ DUMP_NOTE_CONFLICT, "conflict" },
	{ DUMP_NOTE_AFTER_FIN, "after_fin" },
	{ DUMP_NOTE_IGNORED, "ignored" },
	{ DUMP_NOTE_REOPEN, "reopen" },
	{ DUMP_NOTE_PARTIAL, "partial" },
	{ DUMP_NOTE_DESYNC, "desync" },
	{ DUMP_NOTE_PSN_GAP, "psn_gap" },
	{ DUMP_NOTE_PSN_DUP, "psn_dup" },
	{ DUMP_NOTE_FRAG_ERR, "frag_error" },
	{ DUMP_NOTE_PATH_REFUSED, "path_refused" },
	{ DUMP_NOTE_LARGER, "larger_address" },
	{ 0, NULL },
};

const struct wire_tok dump_seq_toks[] = {
	{ DUMP_SEQ_NONE, "none" }, { DUMP_SEQ_FIRST, "first" }, { DUMP_SEQ_NEXT, "next" },
	{ DUMP_SEQ_SKIP, "skip" }, { DUMP_SEQ_DUP, "dup" },     { DUMP_SEQ_BACK, "back" },
	{ 0, NULL },
};

/* The value of the JSON key "xport". The one-line form and -z tag a flow
 * with its own words (TCP, IB, NL: render.c's flow tags), as tcpdump does. */
const struct wire_tok dump_xport_toks[] = {
	{ DUMP_XP_TCP, "tcp" },
	{ DUMP_XP_IB, "ib" },
	{ DUMP_XP_NL, "netlink" },
	{ 0, NULL },
};

const char *dump_note_name(enum dump_note n)
{
	return wire_tok_str(dump_note_toks, (uint32_t)n, "?");
}

const char *dump_seq_name(enum dump_seq s)
{
	return wire_tok_str(dump_seq_toks, (uint32_t)s, "?");
}

const char *dump_xport_name(enum dump_xport x)
{
	return wire_tok_str(dump_xport_toks, (uint32_t)x, "?");
}

/* ------------------------------------------------------------------------
 * Helpers
 */

static void mem_add(struct dump_eng *e, size_t n)
{
	e->mem += n;
	if (e->mem > e->drops.mem_max)
		e->drops.mem_max = e->mem;
}

static void *zalloc(struct dump_eng *e, size_t n)
{
	void *p = calloc(1, n);

	if (p)
		mem_add(e, n);
	else
		e->drops.nomem++;
	return p;
}

static void zfree(struct dump_eng *e, void *p, size_t n)
{
	if (p) {
		e->mem -= n;
		free(p);
	}
}

static int ep_cmp(const struct dump_ep *a, const struct dump_ep *b, bool ports)
{
	int c = memcmp(a->addr, b->addr, sizeof(a->addr));

	if (c || !ports)
		return c;
	return (int)a->port - (int)b->port;
}

static uint32_t hash_bytes(const void *p, size_t n, uint32_t h)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}

static uint32_t ep_hash(const struct dump_ep *ep, uint32_t h)
{
	h = hash_bytes(ep->addr, sizeof(ep->addr), h);
	return hash_bytes(&ep->port, sizeof(ep->port), h);
}

static bool is_rds_port(const struct dump_eng *e, uint16_t port)
{
	for (unsigned i = 0; i < e->cfg.ntcp_ports; i++)
		if (e->cfg.tcp_ports[i] == port)
			return true;
	return false;
}

static void emit(struct dump_eng *e, struct dump_rec *r)
{
	e->cfg.sink(e->cfg.ctx, r);
}

/* A record about |f| (NULL: none) in direction |d| (its source is
 * f->ep[d] for TCP), stamped with the current packet. */
static void rec_init(struct dump_eng *e, struct dump_rec *r, enum dump_rec_type t,
		     const struct flow *f, int d)
{
	memset(r, 0, sizeof(*r));
	r->type = t;
	r->conn = -1;
	r->path = -1;
	if (e->have_ph) {
		r->frame = e->ph.frame;
		r->ts_sec = e->ph.ts_sec;
		r->ts_nsec = e->ph.ts_nsec;
		if (!e->finishing && e->buf) {
			r->pkt = e->buf;
			r->pkt_caplen = e->ph.caplen;
			r->pkt_len = e->ph.len;
		}
	}
	if (!f)
		return;
	r->conn = f->conn;
	r->path = f->path;
	if (f->kind == F_TCP) {
		r->xp = DUMP_XP_TCP;
		r->src = f->ep[d];
		r->dst = f->ep[!d];
		r->dir = f->d[d].dir;
	} else {
		r->xp = DUMP_XP_IB;
		r->src = f->ep[0];
		r->dst = f->ep[1];
		r->qpn = f->qpn;
		r->dir = d;
	}
}

static struct conn *conn_of(struct dump_eng *e, int id)
{
	return id >= 0 && (size_t)id < e->nconns ? e->conns[id] : NULL;
}

static void note(struct dump_eng *e, const struct flow *f, int d, enum dump_note what,
		 uint64_t len, uint64_t aux, uint64_t offset)
{
	struct dump_rec r;
	struct conn *c = conn_of(e, f ? f->conn : -1);

	rec_init(e, &r, DUMP_REC_NOTE, f, d);
	r.u.note.what = what;
	r.u.note.len = len;
	r.u.note.aux = aux;
	r.offset = offset;
	if (c && r.path >= 0) {
		struct dump_pstats *st = &c->pub.st[r.path][r.dir];

		if (what == DUMP_NOTE_GAP || what == DUMP_NOTE_PSN_GAP) {
			st->gaps++;
			st->gap_bytes += len;
		} else if (what == DUMP_NOTE_RESYNC) {
			st->resyncs++;
		}
	}
	if (what == DUMP_NOTE_DESYNC)
		wire_rules_add(&r.rules, WIRE_RULE_HDR_LEN_MAX);
	emit(e, &r);
}

/* ------------------------------------------------------------------------
 * Connections and the receiver model
 */

static struct conn *conn_get(struct dump_eng *e, enum dump_xport xp, const struct dump_ep *x,
			     const struct dump_ep *y)
{
	struct dump_ep a = *x, b = *y;
	uint32_t h;
	struct conn *c;

	a.port = b.port = 0;
	if (ep_cmp(&a, &b, false) > 0) {
		struct dump_ep t = a;

		a = b;
		b = t;
	}
	h = ep_hash(&b, ep_hash(&a, 2166136261u ^ (uint32_t)xp)) & (NBUCKET - 1);
	for (c = e->cb[h]; c; c = c->hnext)
		if (c->pub.xp == xp && !ep_cmp(&c->pub.a, &a, false) &&
		    !ep_cmp(&c->pub.b, &b, false))
			return c;
	if (e->nconns >= MAX_CONNS)
		return NULL;    /* followed still, but not tracked */
	if (e->nconns == e->conns_cap) {
		size_t ncap = e->conns_cap ? e->conns_cap * 2 : 64;
		struct conn **n = realloc(e->conns, ncap * sizeof(*n));

		if (!n)
			return NULL;
		mem_add(e, (ncap - e->conns_cap) * sizeof(*n));
		e->conns = n;
		e->conns_cap = ncap;
	}
	c = zalloc(e, sizeof(*c));
	if (!c)
		return NULL;
	c->pub.id = (int)e->nconns;
	c->pub.xp = xp;
	c->pub.a = a;
	c->pub.b = b;
	c->hnext = e->cb[h];
	e->cb[h] = c;
	e->conns[e->nconns++] = c;
	return c;
}

/* Direction of a message from |src| within connection |c|. */
static int conn_dir(const struct conn *c, const struct dump_ep *src)
{
	return memcmp(src->addr, c->pub.a.addr, sizeof(src->addr)) ? 1 : 0;
}

static void count_rules(struct conn *c, const struct wire_rules *rs)
{
	unsigned pos = 0;
	enum wire_rule id;

	while (wire_rules_next(rs, &pos, &id))
		c->pub.rule_counts[id]++;
}

static uint32_t seen_key(uint64_t sig)
{
	return (uint32_t)((sig >> 20) % SEEN_SLOTS);
}

/* Where |key| is (or goes) in a table of |cap| entries. */
static uint64_t *seen_slot(uint64_t *tab, uint32_t cap, uint32_t key)
{
	if (cap == SEEN_SLOTS)
		return &tab[key];
	/* at most half full, so an empty entry ends every probe */
	for (uint32_t i = key % cap;; i = (i + 1) % cap)
		if (!tab[i] || seen_key(tab[i]) == key)
			return &tab[i];
}

/* Room for one more key in direction d's table; false if none could be had. */
static bool seen_grow(struct dump_eng *e, struct conn *c, int d)
{
	uint32_t cap = c->seen_cap[d], ncap;
	uint64_t *n;

	if (cap == SEEN_SLOTS || (c->seen_used[d] + 1) * 2 <= cap)
		return true;
	ncap = cap * 2 >= SEEN_SLOTS / 2 ? SEEN_SLOTS : cap * 2;
	n = zalloc(e, ncap * sizeof(*n));
	if (!n)
		return false;
	for (uint32_t i = 0; i < cap; i++)
		if (c->seen[d][i])
			*seen_slot(n, ncap, seen_key(c->seen[d][i])) = c->seen[d][i];
	zfree(e, c->seen[d], cap * sizeof(*n));
	c->seen[d] = n;
	c->seen_cap[d] = ncap;
	return true;
}

/*
 * The receiver accepts this message: was it accepted before? A resend
 * carries the same seq, ports and length (rds_send_path_reset resends the
 * message unchanged but for the flag), though the same numbers on another
 * path are a different message: only RETRANSMITTED copies are compared.
 */
static void seen_check(struct dump_eng *e, struct conn *c, int d, struct dump_msg *m)
{
	uint64_t sig = 1469598103934665603ull;
	uint64_t *slot;

	if (!c->seen[d])
		return;
	sig = (sig ^ m->hdr.seq) * 1099511628211ull;
	sig = (sig ^ m->hdr.len) * 1099511628211ull;
	sig = (sig ^ ((uint64_t)m->hdr.sport << 16 | m->hdr.dport)) * 1099511628211ull;
	sig |= 1;               /* 0 marks an empty slot */
	slot = seen_slot(c->seen[d], c->seen_cap[d], seen_key(sig));
	if (m->hdr.flags & WIRE_FLAG_RETRANSMITTED && *slot == sig)
		m->again = true;
	if (!*slot) {
		if (!seen_grow(e, c, d))
			return;
		slot = seen_slot(c->seen[d], c->seen_cap[d], seen_key(sig));
		c->seen_used[d]++;
	}
	*slot = sig;
}

/*
 * A completed message: classify, check, run the receiver model, emit.
 * r is prepared by the caller (addresses, path, dir, payload).
 */
static void finish_msg(struct dump_eng *e, struct dump_rec *r, enum wire_xport xp)
{
	struct dump_msg *m = &r->u.msg;
	struct conn *c = conn_of(e, r->conn);
	int p = r->path, d = r->dir;
	struct dump_pstats *st = c && p >= 0 ? &c->pub.st[p][d] : NULL;
	bool swap_map = false;

	m->kind = wire_classify(&m->hdr, xp);
	if (c && !c->seen[d]) {
		c->seen[d] = zalloc(e, SEEN_FIRST * sizeof(uint64_t));
		c->seen_cap[d] = c->seen[d] ? SEEN_FIRST : 0;
	}
	wire_exts_decode(&m->exts, m->hdr.ext, e->cfg.kv);
	wire_hdr_check(&m->hdr, xp, NULL, &r->rules);
	wire_msg_check(&m->hdr, xp, e->cfg.kv, &r->rules);
	wire_rules_merge(&r->rules, &m->exts.rules);

	/* rds_recv_incoming: per path, drop only a RETRANSMITTED message below
	 * the next expected number; anything else is taken and sets it. */
	if (c && p >= 0 && m->kind != WIRE_KIND_CONG && m->kind != WIRE_KIND_ACK) {
		uint64_t nx = c->next_rx[p][d];
		uint64_t s = m->hdr.seq;

		if (!c->have_rx[p][d]) {
			m->seq = DUMP_SEQ_FIRST;
		} else if (s == nx) {
			m->seq = DUMP_SEQ_NEXT;
		} else if (s > nx) {
			m->seq = DUMP_SEQ_SKIP;
			st->skips++;
			st->skipped += s - nx;
		} else if (m->hdr.flags & WIRE_FLAG_RETRANSMITTED) {
			m->seq = DUMP_SEQ_DUP;
			st->dups++;
		} else {
			m->seq = DUMP_SEQ_BACK;
			st->backs++;
		}
		m->seq_expected = nx;
		if (m->seq != DUMP_SEQ_DUP) {
			c->next_rx[p][d] = s + 1;
			c->have_rx[p][d] = true;
			seen_check(e, c, d, m);
			if (m->again)
				st->again++;
		}
	}

	/* rds_recv_hs_exthdrs: NPATHS sets the count, a changed GEN_NUM
	 * resets the receiver's sequence state on every path */
	if (c && (m->kind == WIRE_KIND_PROBE_PING || m->kind == WIRE_KIND_PROBE_PONG)) {
		if (m->exts.has_npaths) {
			uint16_t n = m->exts.npaths;

			c->pub.adv_npaths[d] = n ? n : 1;
			c->pub.sport_idx[d] = m->exts.has_sport_idx;
			n = c->pub.adv_npaths[d];
			if (c->pub.adv_npaths[!d] && c->pub.adv_npaths[!d] < n)
				n = c->pub.adv_npaths[!d];
			c->pub.npaths = n > WIRE_MAX_PATHS ? WIRE_MAX_PATHS : n;
		}
		if (m->exts.has_gen_num && m->exts.gen_num) {
			if (c->pub.gen[d] && c->pub.gen[d] != m->exts.gen_num) {
				m->gen_changed = true;
				m->gen_prev = c->pub.gen[d];
				c->pub.gen_changes[d]++;
				memset(c->have_rx, 0, sizeof(c->have_rx));
			}
			c->pub.gen[d] = m->exts.gen_num;
		}
	}
	if (c)
		m->npaths = c->pub.npaths;

	if (m->kind == WIRE_KIND_CONG && c && m->hdr.len == WIRE_CONG_MAP_BYTES &&
	    m->caplen == WIRE_CONG_MAP_BYTES &&
	    wire_cong_decode(&e->cong_tmp, m->payload, m->caplen) == WIRE_CONG_MAP_BYTES) {
		if (!c->map[d])
			c->map[d] = zalloc(e, sizeof(*c->map[d]));
		if (c->map[d]) {
			m->cong_prev = c->have_map[d] ? c->map[d] : NULL;
			m->cong_cur = &e->cong_tmp;
			m->cong_count = (uint32_t)wire_cong_count(&e->cong_tmp);
			swap_map = true;
		}
		if (st)
			st->cong_updates++;
	}

	if (st) {
		st->msgs++;
		st->bytes += m->hdr.len;
		if (m->hdr.flags & WIRE_FLAG_RETRANSMITTED)
			st->retransmitted++;
		if (!wire_rules_empty(&r->rules))
			st->rule_msgs++;
	}
	if (c)
		count_rules(c, &r->rules);
	emit(e, r);
	if (swap_map) {
		*c->map[d] = e->cong_tmp;
		c->have_map[d] = true;
	}
}

/* ------------------------------------------------------------------------
 * Flow table
 */

static uint32_t flow_hash(enum fkind k, const struct dump_ep *a, const struct dump_ep *b,
			  uint32_t qpn)
{
	uint32_t h = 2166136261u ^ (uint32_t)k;

	h = ep_hash(a, h);
	h = ep_hash(b, h);
	return hash_bytes(&qpn, sizeof(qpn), h) & (NBUCKET - 1);
}

static void lru_unlink(struct dump_eng *e, struct flow *f)
{
	if (f->prev)
		f->prev->next = f->next;
	else
		e->lru_head = f->next;
	if (f->next)
		f->next->prev = f->prev;
	else
		e->lru_tail = f->prev;
	f->prev = f->next = NULL;
}

static void lru_front(struct dump_eng *e, struct flow *f)
{
	if (e->lru_head == f)
		return;
	if (f->prev || f->next || e->lru_tail == f)
		lru_unlink(e, f);
	f->next = e->lru_head;
	if (e->lru_head)
		e->lru_head->prev = f;
	e->lru_head = f;
	if (!e->lru_tail)
		e->lru_tail = f;
}

static struct flow *flow_find(struct dump_eng *e, enum fkind k, const struct dump_ep *a,
			      const struct dump_ep *b, uint32_t qpn)
{
	uint32_t h = flow_hash(k, a, b, qpn);

	for (struct flow *f = e->fb[h]; f; f = f->hnext)
		if (f->kind == k && f->qpn == qpn && !ep_cmp(&f->ep[0], a, true) &&
		    !ep_cmp(&f->ep[1], b, true))
			return f;
	return NULL;
}

/* The direction's ring may have grown (or gone): count it in the total. */
static void tcp_account(struct dump_eng *e, struct tdir *t)
{
	size_t now = dump_tcp_dir_mem(&t->tcp);

	e->mem -= t->tcp_mem;
	mem_add(e, now);
	t->tcp_mem = now;
}

static void tdir_free(struct dump_eng *e, struct tdir *t)
{
	if (t->tcp_ok) {
		e->drops.nomem_bytes += dump_tcp_dir_stats(&t->tcp)->nomem_bytes;
		dump_tcp_dir_fini(&t->tcp);
		tcp_account(e, t);
		t->tcp_ok = false;
	}
	zfree(e, t->keep, e->cfg.keep);
	t->keep = NULL;
	zfree(e, t->win, t->win_len);
	t->win = NULL;
	t->win_len = 0;
}

static void release_slot(struct dump_eng *e, struct flow *f)
{
	struct conn *c = conn_of(e, f->conn);

	if (c && f->has_slot && f->path >= 0 && c->slot[f->path] == f)
		c->slot[f->path] = NULL;
	f->has_slot = false;
}

static void tcp_close_flow(struct dump_eng *e, struct flow *f);
static void qp_close_flow(struct dump_eng *e, struct flow *f);

static void flow_free(struct dump_eng *e, struct flow *f)
{
	uint32_t h = flow_hash(f->kind, &f->ep[0], &f->ep[1], f->qpn);
	struct flow **pp = &e->fb[h];

	if (f->kind == F_TCP)
		tcp_close_flow(e, f);
	else
		qp_close_flow(e, f);
	while (*pp && *pp != f)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = f->hnext;
	lru_unlink(e, f);
	release_slot(e, f);
	if (conn_of(e, f->conn))
		conn_of(e, f->conn)->nflows--;
	for (int d = 0; d < 2; d++)
		tdir_free(e, &f->d[d]);
	zfree(e, f->q.fbuf, FRAME_MAX);
	zfree(e, f->q.keep, e->cfg.keep);
	zfree(e, f, sizeof(*f));
	e->nflows--;
}

/* Bytes of |f| that an early close gives up: waiting behind a hole (they
 * come out now, the hole as a gap) and of messages in progress. */
static void count_cut(struct dump_eng *e, const struct flow *f)
{
	for (int d = 0; f->kind == F_TCP && d < 2; d++) {
		const struct tdir *t = &f->d[d];

		if (t->tcp_ok)
			e->drops.held_bytes += dump_tcp_dir_stats(&t->tcp)->held_bytes;
		if (t->mode == FR_FRAME && wire_deframer_pending(&t->df))
			e->drops.partial_bytes += t->df.offset - t->df.msg_offset;
		else if (t->mode == FR_RESYNC && t->win)
			e->drops.partial_bytes += t->rs.len;
	}
	if (f->kind == F_QP && f->q.ra.active)
		e->drops.partial_bytes += f->q.ra.got;
}

/* Close |f| before its end to make room; a flow already closed (kept only
 * to absorb stray packets) gives nothing up. */
static void evict(struct dump_eng *e, struct flow *f, enum drop_why why)
{
	if (!f->closed) {
		count_cut(e, f);
		if (why == DROP_MEM)
			e->drops.flows_mem++;
		else
			e->drops.flows_max++;
	}
	flow_free(e, f);
}

static void flow_set_conn(struct flow *f, struct conn *c)
{
	f->conn = c ? c->pub.id : -1;
	if (c)
		c->nflows++;
}

/*
 * The receiver state of a connection no flow carries now (its congestion
 * maps, 8 KiB each, and its table of accepted messages): kept for when it
 * reconnects, but not at the cost of the budget. Dropping it makes the
 * next map count as a first one and may miss a resend accepted twice, so
 * it is counted as a loss.
 */
static void conn_forget(struct dump_eng *e, struct conn *c)
{
	size_t before = e->mem;

	for (int d = 0; d < 2; d++) {
		zfree(e, c->map[d], sizeof(*c->map[d]));
		c->map[d] = NULL;
		c->have_map[d] = false;
		zfree(e, c->seen[d], c->seen_cap[d] * sizeof(uint64_t));
		c->seen[d] = NULL;
		c->seen_cap[d] = c->seen_used[d] = 0;
	}
	if (before > e->mem)
		e->drops.conns_mem++;
}

/*
 * Stay PKT_HEADROOM below the budget, and a sixteenth more for what the
 * count does not see (the allocator's own overhead and the holes it is
 * left with when rings grow, the capture library's buffers, the program):
 * the budget is meant for the whole process. |keep| (the flow of the
 * packet at hand) is spared.
 */
static void make_room(struct dump_eng *e, const struct flow *keep)
{
	size_t aside = PKT_HEADROOM + e->cfg.max_mem / 16;
	size_t limit = e->cfg.max_mem > aside ? e->cfg.max_mem - aside : 0;

	while (e->mem > limit && e->lru_tail && e->lru_tail != keep)
		evict(e, e->lru_tail, DROP_MEM);
	/* connections are never evicted (-z reports them all), only the
	 * state of idle ones, round-robin */
	for (size_t n = 0; e->mem > limit && n < e->nconns; n++) {
		struct conn *c = e->conns[e->conn_sweep++ % e->nconns];

		if (!c->nflows)
			conn_forget(e, c);
	}
}

static struct flow *flow_new(struct dump_eng *e, enum fkind k, const struct dump_ep *a,
			     const struct dump_ep *b, uint32_t qpn)
{
	struct flow *f;
	uint32_t h;

	if (e->nflows >= e->cfg.max_flows && e->lru_tail)
		evict(e, e->lru_tail, DROP_MAX_FLOWS);
	f = zalloc(e, sizeof(*f));
	if (!f)
		return NULL;
	f->kind = k;
	f->ep[0] = *a;
	f->ep[1] = *b;
	f->qpn = qpn;
	f->conn = -1;
	f->path = -1;
	h = flow_hash(k, a, b, qpn);
	f->hnext = e->fb[h];
	e->fb[h] = f;
	lru_front(e, f);
	e->nflows++;
	return f;
}

/* ------------------------------------------------------------------------
 * RDS/TCP
 */

/* Frame the stream afresh from stream offset |off| (a header starts there). */
static void frame_from(struct dump_eng *e, struct tdir *t, uint64_t off)
{
	t->mode = FR_FRAME;
	wire_deframer_init_prefix(&t->df, e->cfg.max_len, t->keep, e->cfg.keep);
	t->df_base = off;
}

static int tdir_open(struct dump_eng *e, struct tdir *t)
{
	struct dump_tcp_limits lim = { .ooo = e->cfg.tcp_ooo, .history = e->cfg.tcp_history };

	if (dump_tcp_dir_init(&t->tcp, &lim))
		return -1;
	t->tcp_ok = true;
	t->tcp_mem = 0;
	t->keep = zalloc(e, e->cfg.keep);
	if (!t->keep)
		return -1;
	frame_from(e, t, 0);
	return 0;
}

static uint64_t path_hint(struct dump_eng *e, const struct flow *f, const struct tdir *t,
			  bool *have)
{
	struct conn *c = conn_of(e, f->conn);

	*have = c && f->path >= 0 && c->have_rx[f->path][t->dir];
	return *have ? c->next_rx[f->path][t->dir] : 0;
}

static void start_resync(struct dump_eng *e, struct flow *f, struct tdir *t, uint64_t at)
{
	bool have;
	uint64_t hint = path_hint(e, f, t, &have);

	if (!t->win) {
		size_t cap = (size_t)e->cfg.max_len + 2 * WIRE_HDR_LEN;
		size_t first = cap < RESYNC_WIN_MIN ? cap : RESYNC_WIN_MIN;

		if (cap > RESYNC_WIN_MAX)
			cap = RESYNC_WIN_MAX;
		/* judged as a window of cap bytes, allocated as bytes come */
		t->win = zalloc(e, first);
		if (!t->win)
			return;     /* stays in resync, taking nothing: bytes are lost */
		t->win_len = first;
		dump_resync_init(&t->rs, t->win, cap, e->cfg.max_len);
		dump_resync_set_win(&t->rs, t->win, first);
	}
	dump_resync_reset(&t->rs, have ? &hint : NULL);
	t->mode = FR_RESYNC;
	t->rs_base = at;
	t->segs = 0;
}

/* What resync gave up so far, as one note. */
static void resync_note(struct dump_eng *e, struct flow *f, int d, uint64_t skipped)
{
	if (skipped)
		note(e, f, d, DUMP_NOTE_RESYNC, skipped, 0, f->d[d].rs_base);
}

static void tcp_frame(struct dump_eng *e, struct flow *f, int d, const struct wire_frame *fr)
{
	struct tdir *t = &f->d[d];
	struct dump_rec r;
	uint32_t want = fr->len < e->cfg.keep ? fr->len : e->cfg.keep;

	rec_init(e, &r, DUMP_REC_MSG, f, d);
	r.offset = t->df_base + fr->offset;
	r.u.msg.hdr = fr->hdr;
	r.u.msg.payload = fr->payload;
	r.u.msg.caplen = fr->caplen;
	r.u.msg.incomplete = fr->caplen < want;
	r.u.msg.segs = t->segs ? t->segs : 1;
	finish_msg(e, &r, WIRE_XPORT_TCP);
}

/*
 * Feed stream bytes at stream offset |off| to the deframer. Return: bytes
 * consumed; fewer than |len| only when the framing was lost (the rest
 * belongs to resync).
 */
static size_t feed_frames(struct dump_eng *e, struct flow *f, int d, const uint8_t *p,
			  size_t len, uint64_t off)
{
	struct tdir *t = &f->d[d];
	size_t used = 0;

	while (used < len) {
		struct wire_frame fr;
		bool ready;
		ssize_t n = wire_deframer_input(&t->df, p + used, len - used, &fr, &ready);

		if (n == WIRE_ERR_TOOBIG) {
			const struct wire_hdr *h = wire_deframer_hdr(&t->df);
			uint64_t end = t->df_base + t->df.offset;

			note(e, f, d, DUMP_NOTE_DESYNC, h->len, h->seq,
			     t->df_base + t->df.msg_offset);
			/* the header was taken; look again right after it */
			start_resync(e, f, t, end);
			return (size_t)(end - off);
		}
		if (n < 0)
			return len;     /* cannot happen in prefix mode */
		used += (size_t)n;
		if (ready) {
			tcp_frame(e, f, d, &fr);
			/* the next message starts inside this segment */
			t->segs = used < len ? 1 : 0;
		}
	}
	return used;
}

/*
 * Grow the resync window to take |len| more bytes without giving any up
 * (what it is fed never points into it: tcp_data copies a find out). On
 * failure the window stays and drops its oldest bytes as a full one does.
 */
static void win_grow(struct dump_eng *e, struct tdir *t, size_t len)
{
	size_t want = dump_resync_want(&t->rs, len), n = t->win_len;
	uint8_t *w;

	if (want <= n)
		return;
	while (n < want)
		n = n > t->rs.cap / 2 ? t->rs.cap : n * 2;
	w = zalloc(e, n);
	if (!w)
		return;
	memcpy(w, t->win, t->rs.len);
	zfree(e, t->win, t->win_len);
	t->win = w;
	t->win_len = n;
	dump_resync_set_win(&t->rs, w, n);
}

static void tcp_data(struct dump_eng *e, struct flow *f, int d, const uint8_t *p, size_t len,
		     uint64_t off)
{
	struct tdir *t = &f->d[d];
	/* bytes to frame before the caller's: what resync found, copied out
	 * of its window so that the window is free to look again */
	uint8_t *own = NULL;
	const uint8_t *q = NULL;
	size_t qlen = 0;
	uint64_t qoff = 0;

	t->segs++;
	while (qlen || len) {
		bool mine = qlen > 0;
		const uint8_t *src = mine ? q : p;
		size_t slen = mine ? qlen : len;
		uint64_t soff = mine ? qoff : off;
		size_t n;

		if (t->mode == FR_FRAME) {
			n = feed_frames(e, f, d, src, slen, soff);
		} else if (!t->win) {
			n = slen;       /* no window could be had: these bytes are lost */
			e->drops.nomem_bytes += slen;
		} else {
			win_grow(e, t, slen);
			n = dump_resync_feed(&t->rs, src, slen);
		}
		if (mine) {
			q += n;
			qlen -= n;
			qoff += n;
		} else {
			p += n;
			len -= n;
			off += n;
		}
		if (t->mode == FR_RESYNC && t->win && t->rs.found) {
			size_t wlen = t->rs.len - t->rs.start;
			uint64_t hdr_off = t->rs_base + t->rs.skipped;
			uint8_t *nb = malloc(wlen + qlen);

			resync_note(e, f, d, t->rs.skipped);
			if (!nb) {
				dump_resync_reset(&t->rs, NULL);
				t->rs_base = mine ? qoff : off;
				continue;
			}
			memcpy(nb, t->win + t->rs.start, wlen);
			if (qlen)
				memcpy(nb + wlen, q, qlen);
			free(own);
			own = nb;
			q = own;
			qlen += wlen;
			qoff = hdr_off;
			dump_resync_reset(&t->rs, NULL);
			frame_from(e, t, hdr_off);
			t->segs = 1;
		}
	}
	free(own);
}

/* Bytes that exist but were not captured (GAP, TRUNC): inside a payload
 * the framing survives them; anywhere else it is lost. */
static void tcp_missing(struct dump_eng *e, struct flow *f, int d, uint64_t len, uint64_t off)
{
	struct tdir *t = &f->d[d];

	if (t->mode == FR_RESYNC) {
		/* what the window holds cannot continue across the hole */
		resync_note(e, f, d, dump_resync_flush(&t->rs));
		start_resync(e, f, t, off + len);
		return;
	}
	while (len) {
		struct wire_frame fr;
		bool ready;
		ssize_t n = wire_deframer_skip(&t->df, len, &fr, &ready);

		if (n <= 0)
			break;
		len -= (uint64_t)n;
		off += (uint64_t)n;
		if (ready) {
			tcp_frame(e, f, d, &fr);
			t->segs = 0;
		}
	}
	if (len)
		start_resync(e, f, t, off + len);
}

/* The stream of direction d ends (FIN, RST, end of capture). */
static void tdir_end(struct dump_eng *e, struct flow *f, int d, uint64_t off)
{
	struct tdir *t = &f->d[d];

	if (t->mode == FR_RESYNC && t->win && dump_resync_finish(&t->rs)) {
		uint64_t hdr_off = t->rs_base + t->rs.skipped;

		resync_note(e, f, d, t->rs.skipped);
		frame_from(e, t, hdr_off);
		/* whole messages by construction: nothing is left pending */
		feed_frames(e, f, d, t->win + t->rs.start, t->rs.len - t->rs.start, hdr_off);
		dump_resync_reset(&t->rs, NULL);
	}
	if (t->mode == FR_RESYNC && t->win) {
		resync_note(e, f, d, dump_resync_flush(&t->rs));
		dump_resync_reset(&t->rs, NULL);
		t->rs_base = off;
	} else if (t->mode == FR_FRAME && wire_deframer_pending(&t->df)) {
		const struct wire_hdr *h = wire_deframer_hdr(&t->df);
		uint64_t got = t->df.offset - t->df.msg_offset;

		note(e, f, d, DUMP_NOTE_PARTIAL, got,
		     t->df.in_data ? (uint64_t)WIRE_HDR_LEN + h->len : WIRE_HDR_LEN,
		     t->df_base + t->df.msg_offset);
		frame_from(e, t, off);
	}
}

static void tcp_event(struct dump_eng *e, struct flow *f, int d, const struct dump_tcp_ev *ev,
		      bool *reopen)
{
	struct tdir *t = &f->d[d];

	switch (ev->type) {
	case DUMP_TCP_EV_DATA:
		tcp_data(e, f, d, ev->data, (size_t)ev->len, ev->offset);
		break;
	case DUMP_TCP_EV_GAP:
	case DUMP_TCP_EV_TRUNC:
		note(e, f, d, ev->type == DUMP_TCP_EV_GAP ? DUMP_NOTE_GAP : DUMP_NOTE_TRUNC,
		     ev->len, 0, ev->offset);
		tcp_missing(e, f, d, ev->len, ev->offset);
		break;
	case DUMP_TCP_EV_SYN:
		if (!f->noted_syn[d])
			note(e, f, d, DUMP_NOTE_SYN, 0, ev->seq, ev->offset);
		f->noted_syn[d] = true;
		break;
	case DUMP_TCP_EV_MIDSTREAM:
		note(e, f, d, DUMP_NOTE_MIDSTREAM, 0, ev->seq, ev->offset);
		start_resync(e, f, t, ev->offset);
		break;
	case DUMP_TCP_EV_FIN:
	case DUMP_TCP_EV_RST:
		tdir_end(e, f, d, ev->offset);
		note(e, f, d, ev->type == DUMP_TCP_EV_FIN ? DUMP_NOTE_FIN : DUMP_NOTE_RST, ev->len,
		     0, ev->offset);
		t->closed = true;
		if (ev->type == DUMP_TCP_EV_RST)
			f->d[!d].closed = true;
		/* a kernel shutting a path down sends its FIN (or RST) as the
		 * path leaves UP: from then on a new connection may take it */
		release_slot(e, f);
		break;
	case DUMP_TCP_EV_REOPEN:
		*reopen = true;
		break;
	case DUMP_TCP_EV_RETRANS:
		note(e, f, d, DUMP_NOTE_RETRANS, ev->len, ev->aux, ev->offset);
		break;
	case DUMP_TCP_EV_CONFLICT:
		note(e, f, d, DUMP_NOTE_CONFLICT, ev->len, 0, ev->offset);
		break;
	case DUMP_TCP_EV_AFTER_FIN:
		/* a FIN sent again carries nothing worth a line */
		if (ev->len)
			note(e, f, d, DUMP_NOTE_AFTER_FIN, ev->len, 0, ev->offset);
		break;
	case DUMP_TCP_EV_IGNORED:
		note(e, f, d, DUMP_NOTE_IGNORED, ev->len, ev->aux, ev->offset);
		break;
	default:
		break;
	}
}

static void drain(struct dump_eng *e, struct flow *f, int d, bool *reopen)
{
	struct dump_tcp_ev ev;

	while (dump_tcp_dir_next_event(&f->d[d].tcp, &ev) == 1)
		tcp_event(e, f, d, &ev, reopen);
	tcp_account(e, &f->d[d]);
}

static void tcp_close_flow(struct dump_eng *e, struct flow *f)
{
	bool reopen = false;

	for (int d = 0; d < 2; d++) {
		struct tdir *t = &f->d[d];

		if (!t->tcp_ok)
			continue;
		if (dump_tcp_dir_close(&t->tcp) == 0)
			drain(e, f, d, &reopen);
		tdir_end(e, f, d, dump_tcp_dir_next_offset(&t->tcp));
		/* a closed flow stays only to absorb stray packets: its
		 * buffers go now */
		tdir_free(e, t);
	}
	release_slot(e, f);
	f->closed = true;
}

/*
 * Which path a new TCP connection is, as the accepting kernel decides
 * (rds_tcp_accept_one_path): 7.x with SPORT_IDX from the connecting side,
 * its source port modulo the path count; otherwise the first free slot.
 */
static void tcp_assign_path(struct dump_eng *e, struct flow *f, int connector)
{
	struct conn *c = conn_of(e, f->conn);
	const struct dump_ep *from;
	unsigned n;
	int cdir;

	if (!c || connector < 0)
		return;
	from = &f->ep[connector];
	cdir = conn_dir(c, from);
	if (cdir == 1) {
		/* rds_tcp_state_change / accept: never used, only a kick */
		note(e, f, connector, DUMP_NOTE_LARGER, 0, 0, 0);
		return;
	}
	/* With the count unknown (its probes were not captured) the peers
	 * know more than we do: any of the 8 slots may be meant. */
	n = c->pub.npaths ? c->pub.npaths : WIRE_MAX_PATHS;
	if (e->cfg.partial_view && !(c->pub.sport_idx[0] && c->pub.npaths))
		return;         /* unknown: no slot, no path number */
	if (c->pub.sport_idx[0] && c->pub.npaths) {
		f->path = (int)(from->port % c->pub.npaths);
	} else {
		for (unsigned i = 0; i < n; i++)
			if (!c->slot[i]) {
				f->path = (int)i;
				break;
			}
		if (f->path < 0) {
			note(e, f, connector, DUMP_NOTE_PATH_REFUSED, 0, 0, 0);
			return;
		}
	}
	if (!c->slot[f->path]) {
		c->slot[f->path] = f;
		f->has_slot = true;
	}
	c->pub.st[f->path][0].conns++;
}

static struct flow *tcp_flow_new(struct dump_eng *e, const struct wire_pkt *p,
				 const struct dump_ep *s, const struct dump_ep *dst)
{
	const struct dump_ep *a = s, *b = dst;
	struct flow *f;
	struct conn *c;
	int connector = -1;
	bool syn = (p->tcp_flags & (WIRE_TCP_SYN | WIRE_TCP_ACK)) == WIRE_TCP_SYN;

	if (ep_cmp(a, b, true) > 0) {
		a = dst;
		b = s;
	}
	f = flow_new(e, F_TCP, a, b, 0);
	if (!f)
		return NULL;
	c = conn_get(e, DUMP_XP_TCP, a, b);
	flow_set_conn(f, c);
	for (int d = 0; d < 2; d++) {
		if (tdir_open(e, &f->d[d])) {
			flow_free(e, f);
			return NULL;
		}
		f->d[d].dir = c ? conn_dir(c, &f->ep[d]) : d;
	}
	/* the connecting side: the SYN's sender, else the end not on the
	 * RDS port */
	if (syn)
		connector = ep_cmp(s, &f->ep[0], true) ? 1 : 0;
	else if (is_rds_port(e, dst->port) && !is_rds_port(e, s->port))
		connector = ep_cmp(s, &f->ep[0], true) ? 1 : 0;
	else if (is_rds_port(e, s->port) && !is_rds_port(e, dst->port))
		connector = ep_cmp(dst, &f->ep[0], true) ? 1 : 0;
	else
		connector = 0;
	tcp_assign_path(e, f, connector);
	return f;
}

static void tcp_packet(struct dump_eng *e, const struct wire_pkt *p)
{
	struct dump_ep s = { 0 }, dst = { 0 };
	const struct dump_ep *a, *b;
	struct dump_tcp_seg seg;
	struct flow *f;
	bool reopen = false;
	int d;

	s.family = dst.family = p->l3 == WIRE_L3_IPV4 ? 4 : 6;
	memcpy(s.addr, p->src, 16);
	memcpy(dst.addr, p->dst, 16);
	s.port = p->sport;
	dst.port = p->dport;
	a = ep_cmp(&s, &dst, true) <= 0 ? &s : &dst;
	b = a == &s ? &dst : &s;

	f = flow_find(e, F_TCP, a, b, 0);
	if (f && f->closed && (p->tcp_flags & (WIRE_TCP_SYN | WIRE_TCP_ACK)) == WIRE_TCP_SYN) {
		flow_free(e, f);        /* the ports were reused for a new connection */
		f = NULL;
	}
	if (!f) {
		/* a bare ACK, FIN or RST of a connection we never saw opens nothing */
		if (!p->payload_len && !(p->tcp_flags & WIRE_TCP_SYN))
			return;
		f = tcp_flow_new(e, p, &s, &dst);
		if (!f)
			return;
	}
	lru_front(e, f);
	make_room(e, f);
	if (f->closed)
		return;
	d = ep_cmp(&s, &f->ep[0], true) ? 1 : 0;
	seg.seq = p->tcp_seq;
	seg.flags = p->tcp_flags & (DUMP_TCP_SYN | DUMP_TCP_FIN | DUMP_TCP_RST);
	seg.data = p->payload;
	seg.caplen = p->payload_caplen;
	seg.len = p->payload_len;
	if (seg.len > DUMP_TCP_SEG_MAX)
		seg.len = DUMP_TCP_SEG_MAX;
	if (seg.caplen > seg.len)
		seg.caplen = seg.len;
	if (dump_tcp_dir_input(&f->d[d].tcp, &seg) != 0)
		return;
	drain(e, f, d, &reopen);
	if (reopen) {
		note(e, f, d, DUMP_NOTE_REOPEN, 0, p->tcp_seq, 0);
		flow_free(e, f);
		f = tcp_flow_new(e, p, &s, &dst);
		if (!f)
			return;
		d = ep_cmp(&s, &f->ep[0], true) ? 1 : 0;
		if (dump_tcp_dir_input(&f->d[d].tcp, &seg) != 0)
			return;
		reopen = false;
		drain(e, f, d, &reopen);
	}
	if (f->d[0].closed && f->d[1].closed)
		tcp_close_flow(e, f);
}

/* ------------------------------------------------------------------------
 * RDS over RoCEv2
 */

static void qp_reset(struct dump_eng *e, struct flow *f)
{
	f->q.flen = 0;
	f->q.in_send = false;
	wire_reasm_init_prefix(&f->q.ra, e->cfg.max_len, f->q.keep, e->cfg.keep);
	wire_rules_clear(&f->q.rules);
	f->q.icrc_ok = true;
}

static void qp_close_flow(struct dump_eng *e, struct flow *f)
{
	if (f->q.ra.active)
		note(e, f, f->d[0].dir, DUMP_NOTE_PARTIAL, f->q.ra.got, f->q.ra.first.len, 0);
	if (f->q.fbuf)
		qp_reset(e, f);
	f->closed = true;
}

static struct flow *qp_flow(struct dump_eng *e, const struct wire_roce *r)
{
	struct dump_ep s = { 0 }, dst = { 0 };
	struct flow *f;
	struct conn *c;

	s.family = dst.family = (uint8_t)r->ip_version;
	memcpy(s.addr, r->src, 16);
	memcpy(dst.addr, r->dst, 16);
	f = flow_find(e, F_QP, &s, &dst, r->bth.dqpn);
	if (f)
		return f;
	f = flow_new(e, F_QP, &s, &dst, r->bth.dqpn);
	if (!f)
		return NULL;
	f->q.fbuf = zalloc(e, FRAME_MAX);
	f->q.keep = zalloc(e, e->cfg.keep);
	if (!f->q.fbuf || !f->q.keep) {
		flow_free(e, f);
		return NULL;
	}
	qp_reset(e, f);
	c = conn_get(e, DUMP_XP_IB, &s, &dst);
	flow_set_conn(f, c);
	f->path = 0;            /* IB is not multipath */
	f->d[0].dir = c ? conn_dir(c, &s) : 0;
	if (c)
		c->pub.st[0][f->d[0].dir].conns++;
	return f;
}

static void qp_send_done(struct dump_eng *e, struct flow *f)
{
	struct wire_frame fr;
	struct dump_rec r;
	int d = f->d[0].dir;
	int rc = wire_reasm_input(&f->q.ra, f->q.fbuf, f->q.flen, &fr);

	f->q.flen = 0;
	f->q.in_send = false;
	if (rc == 0)
		return;
	if (rc == WIRE_ERR_TOOBIG) {
		struct wire_hdr h;

		wire_hdr_decode(&h, f->q.fbuf, FRAME_MAX);
		note(e, f, d, DUMP_NOTE_DESYNC, h.len, h.seq, 0);
		qp_reset(e, f);
		return;
	}
	if (rc < 0) {
		rec_init(e, &r, DUMP_REC_NOTE, f, d);
		r.u.note.what = DUMP_NOTE_FRAG_ERR;
		r.rules = f->q.ra.rules;
		emit(e, &r);
		qp_reset(e, f);
		return;
	}
	rec_init(e, &r, DUMP_REC_MSG, f, d);
	r.u.msg.hdr = fr.hdr;
	r.u.msg.payload = fr.payload;
	r.u.msg.caplen = fr.caplen;
	r.u.msg.frags = fr.hdr.sport == 0 && fr.hdr.dport == 0 && fr.len == 0 ? 1 : f->q.ra.frags;
	r.u.msg.icrc_ok = f->q.icrc_ok;
	r.rules = f->q.rules;
	finish_msg(e, &r, WIRE_XPORT_IB);
	if (!f->q.ra.active) {
		wire_rules_clear(&f->q.rules);
		f->q.icrc_ok = true;
	}
}

static void qp_packet(struct dump_eng *e, const struct wire_pkt *p, const struct wire_roce *r)
{
	enum wire_ib_seg seg = wire_ib_opcode_seg(r->bth.opcode);
	struct flow *f;
	struct qstate *q;
	int d;

	if (seg == WIRE_IB_SEG_NONE)
		return;
	f = qp_flow(e, r);
	if (!f)
		return;
	lru_front(e, f);
	make_room(e, f);
	q = &f->q;
	d = f->d[0].dir;
	/* RC retransmissions reuse PSNs (24-bit serial arithmetic): behind
	 * the next expected one was seen already; ahead means lost packets */
	if (q->have_psn) {
		uint32_t gap = (r->bth.psn - q->next_psn) & 0xffffff;

		if (gap >= 0x800000) {
			note(e, f, d, DUMP_NOTE_PSN_DUP, 1, r->bth.psn, 0);
			return;
		}
		if (gap) {
			note(e, f, d, DUMP_NOTE_PSN_GAP, gap, r->bth.psn, 0);
			qp_reset(e, f);
		}
	}
	q->have_psn = true;
	q->next_psn = (r->bth.psn + 1) & 0xffffff;
	if (p->l3_caplen < p->l3_len) {
		note(e, f, d, DUMP_NOTE_TRUNC, p->l3_len - p->l3_caplen, r->bth.psn, 0);
		qp_reset(e, f);
		return;
	}
	if (seg == WIRE_IB_SEG_FIRST || seg == WIRE_IB_SEG_ONLY) {
		q->flen = 0;
		q->in_send = true;
	} else if (!q->in_send) {
		return;         /* the start of this SEND was not seen */
	}
	wire_rules_merge(&q->rules, &r->rules);
	if (!r->icrc_checked || !r->icrc_ok)
		q->icrc_ok = false;
	if (r->payload_len > FRAME_MAX - q->flen) {
		struct dump_rec rec;

		rec_init(e, &rec, DUMP_REC_NOTE, f, d);
		rec.u.note.what = DUMP_NOTE_FRAG_ERR;
		rec.u.note.len = q->flen + r->payload_len;
		wire_rules_add(&rec.rules, WIRE_RULE_FRAG_LONG);
		emit(e, &rec);
		qp_reset(e, f);
		return;
	}
	memcpy(q->fbuf + q->flen, r->payload, r->payload_len);
	q->flen += r->payload_len;
	if (seg == WIRE_IB_SEG_LAST || seg == WIRE_IB_SEG_ONLY)
		qp_send_done(e, f);
}

static void cm_packet(struct dump_eng *e, const struct wire_roce *r)
{
	struct wire_ibcm cm;
	struct wire_ibpd pd;
	struct dump_rec rec;
	struct dump_ep s = { 0 }, dst = { 0 };
	struct conn *c;
	int rc = wire_ibcm_decode(&cm, r->payload, r->payload_len);

	s.family = dst.family = (uint8_t)r->ip_version;
	memcpy(s.addr, r->src, 16);
	memcpy(dst.addr, r->dst, 16);
	rec_init(e, &rec, DUMP_REC_CM, NULL, 0);
	rec.xp = DUMP_XP_IB;
	rec.src = s;
	rec.dst = dst;
	rec.qpn = r->bth.dqpn;
	if (rc == WIRE_ERR_UNSUPP)
		return;
	if (rc < 0) {
		rec.type = DUMP_REC_BAD;
		rec.u.bad.err = rc;
		rec.u.bad.layer = "ibcm";
		emit(e, &rec);
		return;
	}
	c = conn_get(e, DUMP_XP_IB, &s, &dst);
	rec.conn = c ? c->pub.id : -1;
	rec.dir = c ? conn_dir(c, &s) : 0;
	rec.u.cm.cm = &cm;
	rec.rules = cm.rules;
	wire_rules_merge(&rec.rules, &r->rules);
	if (cm.attr_id == WIRE_IBCM_REQ && cm.has_cma) {
		int fam = cm.cma_ip_version == 6 ? 6 : 4;
		ssize_t n = wire_ibpd_decode(&pd, fam, cm.user_data, cm.user_len);
		struct cmreq *q = &e->reqs[e->nreq++ % 64];

		rec.u.cm.version = wire_ib_negotiate(cm.user_data, cm.user_len, fam);
		q->comm_id = cm.local_comm_id;
		q->family = fam;
		q->proposed = n > 0 ? (uint16_t)(pd.major << 8 | pd.minor) : 0;
		if (n > 0)
			rec.u.cm.pd = &pd;
		wire_rules_merge(&rec.rules, &pd.rules);
	} else if (cm.attr_id == WIRE_IBCM_REP) {
		int fam = 4;
		uint16_t proposed = WIRE_IBVER_4_1;
		ssize_t n;

		for (unsigned i = 0; i < 64 && i < e->nreq; i++)
			if (e->reqs[i].comm_id == cm.remote_comm_id) {
				fam = e->reqs[i].family;
				if (e->reqs[i].proposed)
					proposed = e->reqs[i].proposed;
			}
		n = wire_ibpd_decode(&pd, fam, cm.private_data, cm.private_len);
		rec.u.cm.version = wire_ib_adopt(proposed, n > 0 ? &pd : NULL);
		if (n > 0)
			rec.u.cm.pd = &pd;
	}
	if (c)
		count_rules(c, &rec.rules);
	emit(e, &rec);
}

static void roce_packet(struct dump_eng *e, const struct wire_pkt *p)
{
	struct wire_roce r;
	int rc = wire_roce_decode(&r, p->l3_hdr, p->l3_caplen, p->l3_len);

	if (rc < 0) {
		struct dump_rec rec;

		rec_init(e, &rec, DUMP_REC_BAD, NULL, 0);
		rec.xp = DUMP_XP_IB;
		rec.u.bad.err = rc;
		rec.u.bad.layer = "roce";
		emit(e, &rec);
		return;
	}
	if (r.bth.dqpn == 1 && r.bth.opcode == WIRE_IB_UD_SEND_ONLY)
		cm_packet(e, &r);
	else
		qp_packet(e, p, &r);
}

/* ------------------------------------------------------------------------
 * Netlink
 */

static int nl_packet(struct dump_eng *e, const struct wire_pkt *p)
{
	size_t off = 0;
	int kept = 0;

	while (off < p->payload_caplen) {
		struct wire_nl_ls m;
		struct dump_rec r;
		ssize_t n = wire_nl_decode(&m, p->payload + off, p->payload_caplen - off);

		if (n == WIRE_ERR_UNSUPP) {
			/* another netlink family, or too long to decode */
			size_t step = ((size_t)m.nl_len + 3) & ~(size_t)3;

			if (m.nl_len < 16 || step > p->payload_caplen - off)
				break;
			off += step;
			continue;
		}
		rec_init(e, &r, n < 0 ? DUMP_REC_BAD : DUMP_REC_NL, NULL, 0);
		r.xp = DUMP_XP_NL;
		kept = 1;
		if (n < 0) {
			r.u.bad.err = (int)n;
			r.u.bad.layer = "netlink";
			emit(e, &r);
			break;
		}
		r.u.nl = &m;
		r.rules = m.rules;
		emit(e, &r);
		off += (size_t)n;
	}
	return kept;
}

/* ------------------------------------------------------------------------
 * API
 */

int dump_eng_new(struct dump_eng **out, const struct dump_cfg *cfg)
{
	struct dump_eng *e;

	if (!out || !cfg || !cfg->sink)
		return -EINVAL;
	if (cfg->kv && cfg->kv != WIRE_KVER_6 && cfg->kv != WIRE_KVER_7 &&
	    cfg->kv != WIRE_KVER_ALL)
		return -EINVAL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->mem = e->drops.mem_max = sizeof(*e);
	e->cfg = *cfg;
	if (!e->cfg.kv)
		e->cfg.kv = WIRE_KVER_7;
	if (!e->cfg.max_len)
		e->cfg.max_len = WIRE_MAX_MSG_LEN;
	if (!e->cfg.keep)
		e->cfg.keep = WIRE_CONG_MAP_BYTES;
	if (e->cfg.keep < WIRE_CONG_MAP_BYTES)
		e->cfg.keep = WIRE_CONG_MAP_BYTES;  /* maps must be whole */
	if (!e->cfg.tcp_ooo)
		e->cfg.tcp_ooo = 512u << 10;
	if (!e->cfg.tcp_history)
		e->cfg.tcp_history = 64u << 10;
	if (!e->cfg.max_flows)
		e->cfg.max_flows = 4096;
	if (!e->cfg.max_mem)
		e->cfg.max_mem = DUMP_MAX_MEM_DEFAULT;
	if (!e->cfg.ntcp_ports) {
		e->cfg.tcp_ports[0] = WIRE_TCP_PORT;
		e->cfg.ntcp_ports = 1;
	}
	if (e->cfg.ntcp_ports > 16)
		e->cfg.ntcp_ports = 16;
	*out = e;
	return 0;
}

/* The layer a decoding failed in: as deep as the decoder got. */
static const char *bad_layer(int rc, const struct wire_pkt *p)
{
	if (rc == WIRE_ERR_UNSUPP)
		return "link";
	if (p->l3 == WIRE_L3_NETLINK)
		return "netlink";
	if (p->l3 == WIRE_L3_NONE)
		return p->ethertype == 0x0800 || p->ethertype == 0x86dd ? "ip" : "link";
	if (p->l4 == WIRE_L4_TCP)
		return "tcp";
	if (p->l4 == WIRE_L4_UDP)
		return "udp";
	return "ip";
}

int dump_eng_packet(struct dump_eng *e, const struct dump_pkthdr *ph, const uint8_t *buf)
{
	struct wire_pkt p;
	int rc;

	e->ph = *ph;
	e->have_ph = true;
	e->buf = buf;
	rc = wire_pkt_decode(&p, ph->linktype, buf, ph->caplen, ph->len);
	if (rc < 0) {
		struct dump_rec r;

		rec_init(e, &r, DUMP_REC_BAD, NULL, 0);
		r.u.bad.err = rc;
		r.u.bad.layer = bad_layer(rc, &p);
		emit(e, &r);
		return 1;
	}
	rc = 0;
	if (p.l3 == WIRE_L3_NETLINK) {
		rc = nl_packet(e, &p);
	} else if (p.l4 == WIRE_L4_TCP &&
		   (is_rds_port(e, p.sport) || is_rds_port(e, p.dport))) {
		tcp_packet(e, &p);
		rc = 1;
	} else if (p.l4 == WIRE_L4_UDP && p.dport == WIRE_ROCE_UDP_PORT) {
		roce_packet(e, &p);
		rc = 1;
	}
	e->buf = NULL;  /* the caller's packet is gone after this */
	return rc;
}

void dump_eng_finish(struct dump_eng *e)
{
	e->finishing = true;
	/* oldest first, so what comes out follows the capture's order */
	while (e->lru_tail)
		flow_free(e, e->lru_tail);
}

size_t dump_eng_conn_count(const struct dump_eng *e)
{
	return e->nconns;
}

const struct dump_conn *dump_eng_conn(const struct dump_eng *e, size_t i)
{
	return i < e->nconns ? &e->conns[i]->pub : NULL;
}

size_t dump_eng_mem(const struct dump_eng *e)
{
	return e->mem;
}

const struct dump_eng_drops *dump_eng_drops(const struct dump_eng *e)
{
	return &e->drops;
}

void dump_eng_free(struct dump_eng *e)
{
	if (!e)
		return;
	e->finishing = true;
	while (e->lru_tail) {
		/* no more records: the sink may be gone */
		struct flow *f = e->lru_tail;

		f->closed = true;
		lru_unlink(e, f);
		for (int d = 0; d < 2; d++)
			tdir_free(e, &f->d[d]);
		free(f->q.fbuf);
		free(f->q.keep);
		free(f);
	}
	for (size_t i = 0; i < e->nconns; i++) {
		free(e->conns[i]->map[0]);
		free(e->conns[i]->map[1]);
		free(e->conns[i]->seen[0]);
		free(e->conns[i]->seen[1]);
		free(e->conns[i]);
	}
	free(e->conns);
	free(e);
}
