// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * engine.c - rdsdump's engine: captured packets in, decoded records out.
 * This file holds the flow table, the memory budget and the API; the
 * receiver model is eng_recv.c and each carrier has a file of its own
 * (eng_tcp.c, eng_roce.c, eng_nl.c), sharing eng.h.
 *
 * RDS/TCP: every TCP connection on an RDS port has two directions, each
 * reassembled by tcpreasm and cut into messages by libwire's deframer (in
 * prefix mode, so a direction holds at most cfg.keep payload bytes). Bytes
 * the capture lost or cut are skipped inside a payload and resynchronised
 * on anywhere else (resync.c).
 * RDS over RoCEv2 and native InfiniBand: RC SEND packets of a QP are put
 * back into SENDs by PSN (a PSN seen before is a retransmission, one too
 * far ahead a loss), each SEND is one RDS fragment, and libwire's
 * reassembler makes messages.
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
#include "eng.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>


/* ------------------------------------------------------------------------
 * Names
 */

const struct wire_tok dump_rdma_op_toks[] = {
	{ DUMP_RDMA_WRITE, "write" },
	{ DUMP_RDMA_READ, "read" },
	{ DUMP_RDMA_READ_RESP, "read_response" },
	{ DUMP_RDMA_CSWP, "compare_swap" },
	{ DUMP_RDMA_FADD, "fetch_add" },
	{ 0, NULL },
};

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

WIRE_TOK_NAMER(dump_note_name, enum dump_note, dump_note_toks)

WIRE_TOK_NAMER(dump_seq_name, enum dump_seq, dump_seq_toks)

WIRE_TOK_NAMER(dump_xport_name, enum dump_xport, dump_xport_toks)

/* ------------------------------------------------------------------------
 * Helpers
 */

void eng_mem_add(struct dump_eng *e, size_t n)
{
	e->mem += n;
	if (e->mem > e->drops.mem_max)
		e->drops.mem_max = e->mem;
}

void *eng_zalloc(struct dump_eng *e, size_t n)
{
	void *p = calloc(1, n);

	if (p)
		eng_mem_add(e, n);
	else
		e->drops.nomem++;
	return p;
}

void eng_zfree(struct dump_eng *e, void *p, size_t n)
{
	if (p) {
		e->mem -= n;
		free(p);
	}
}

int eng_ep_cmp(const struct dump_ep *a, const struct dump_ep *b, bool ports)
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

uint32_t eng_ep_hash(const struct dump_ep *ep, uint32_t h)
{
	h = hash_bytes(ep->addr, sizeof(ep->addr), h);
	return hash_bytes(&ep->port, sizeof(ep->port), h);
}

bool eng_is_rds_port(const struct dump_eng *e, uint16_t port)
{
	for (unsigned i = 0; i < e->cfg.ntcp_ports; i++)
		if (e->cfg.tcp_ports[i] == port)
			return true;
	return false;
}

void eng_emit(struct dump_eng *e, struct dump_rec *r)
{
	e->cfg.sink(e->cfg.ctx, r);
}

/* A record about |f| (NULL: none) in direction |d| (its source is
 * f->ep[d] for TCP), stamped with the current packet. */
void eng_rec_init(struct dump_eng *e, struct dump_rec *r, enum dump_rec_type t,
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

struct conn *eng_conn_of(struct dump_eng *e, int id)
{
	return id >= 0 && (size_t)id < e->nconns ? e->conns[id] : NULL;
}

void eng_note(struct dump_eng *e, const struct flow *f, int d, enum dump_note what,
	      uint64_t len, uint64_t aux, uint64_t offset)
{
	struct dump_rec r;
	struct conn *c = eng_conn_of(e, f ? f->conn : -1);

	eng_rec_init(e, &r, DUMP_REC_NOTE, f, d);
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
	eng_emit(e, &r);
}

/* ------------------------------------------------------------------------
 * Flow table
 */

static uint32_t flow_hash(enum fkind k, const struct dump_ep *a, const struct dump_ep *b,
			  uint32_t qpn)
{
	uint32_t h = 2166136261u ^ (uint32_t)k;

	h = eng_ep_hash(a, h);
	h = eng_ep_hash(b, h);
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

void eng_lru_front(struct dump_eng *e, struct flow *f)
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

struct flow *eng_flow_find(struct dump_eng *e, enum fkind k, const struct dump_ep *a,
			   const struct dump_ep *b, uint32_t qpn)
{
	uint32_t h = flow_hash(k, a, b, qpn);

	for (struct flow *f = e->fb[h]; f; f = f->hnext)
		if (f->kind == k && f->qpn == qpn && !eng_ep_cmp(&f->ep[0], a, true) &&
		    !eng_ep_cmp(&f->ep[1], b, true))
			return f;
	return NULL;
}

/* The direction's ring may have grown (or gone): count it in the total. */
void eng_tcp_account(struct dump_eng *e, struct tdir *t)
{
	size_t now = dump_tcp_dir_mem(&t->tcp);

	e->mem -= t->tcp_mem;
	eng_mem_add(e, now);
	t->tcp_mem = now;
}

void eng_tdir_free(struct dump_eng *e, struct tdir *t)
{
	if (t->tcp_ok) {
		e->drops.nomem_bytes += dump_tcp_dir_stats(&t->tcp)->nomem_bytes;
		dump_tcp_dir_fini(&t->tcp);
		eng_tcp_account(e, t);
		t->tcp_ok = false;
	}
	eng_zfree(e, t->keep, e->cfg.keep);
	t->keep = NULL;
	eng_zfree(e, t->win, t->win_len);
	t->win = NULL;
	t->win_len = 0;
}

void eng_release_slot(struct dump_eng *e, struct flow *f)
{
	struct conn *c = eng_conn_of(e, f->conn);

	if (c && f->has_slot && f->path >= 0 && c->slot[f->path] == f)
		c->slot[f->path] = NULL;
	f->has_slot = false;
}


void eng_flow_free(struct dump_eng *e, struct flow *f)
{
	uint32_t h = flow_hash(f->kind, &f->ep[0], &f->ep[1], f->qpn);
	struct flow **pp = &e->fb[h];

	if (f->kind == F_TCP)
		eng_tcp_close_flow(e, f);
	else
		eng_qp_close_flow(e, f);
	while (*pp && *pp != f)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = f->hnext;
	lru_unlink(e, f);
	eng_release_slot(e, f);
	if (eng_conn_of(e, f->conn))
		eng_conn_of(e, f->conn)->nflows--;
	for (int d = 0; d < 2; d++)
		eng_tdir_free(e, &f->d[d]);
	eng_zfree(e, f->q.fbuf, FRAME_MAX);
	eng_zfree(e, f->q.keep, e->cfg.keep);
	eng_zfree(e, f, sizeof(*f));
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
	eng_flow_free(e, f);
}

void eng_flow_set_conn(struct flow *f, struct conn *c)
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
		eng_zfree(e, c->map[d], sizeof(*c->map[d]));
		c->map[d] = NULL;
		c->have_map[d] = false;
		eng_zfree(e, c->seen[d], c->seen_cap[d] * sizeof(uint64_t));
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
void eng_make_room(struct dump_eng *e, const struct flow *keep)
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

struct flow *eng_flow_new(struct dump_eng *e, enum fkind k, const struct dump_ep *a,
			  const struct dump_ep *b, uint32_t qpn)
{
	struct flow *f;
	uint32_t h;

	if (e->nflows >= e->cfg.max_flows && e->lru_tail)
		evict(e, e->lru_tail, DROP_MAX_FLOWS);
	f = eng_zalloc(e, sizeof(*f));
	if (!f)
		return NULL;
	f->kind = k;
	f->ep[0] = *a;
	f->ep[1] = *b;
	f->qpn = qpn;
	f->conn = -1;
	f->path = -1;
	f->held = -1;
	h = flow_hash(k, a, b, qpn);
	f->hnext = e->fb[h];
	e->fb[h] = f;
	eng_lru_front(e, f);
	e->nflows++;
	return f;
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
	dump_ipfrag_init(&e->ipf);
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

/* A decoded packet (a frame's, or a datagram put back together) to its carrier. */
static int dispatch(struct dump_eng *e, const struct wire_pkt *p)
{
	if (p->l3 == WIRE_L3_NETLINK)
		return eng_nl_packet(e, p);
	if (p->l4 == WIRE_L4_TCP && (eng_is_rds_port(e, p->sport) || eng_is_rds_port(e, p->dport))) {
		eng_tcp_packet(e, p);
		return 1;
	}
	if (p->l4 == WIRE_L4_UDP && p->dport == WIRE_ROCE_UDP_PORT) {
		eng_roce_packet(e, p);
		return 1;
	}
	if (p->l3 == WIRE_L3_IB) {
		eng_ib_packet(e, p);
		return 1;
	}
	return 0;
}

static void emit_bad(struct dump_eng *e, int rc, const char *layer)
{
	struct dump_rec r;

	eng_rec_init(e, &r, DUMP_REC_BAD, NULL, 0);
	r.u.bad.err = rc;
	r.u.bad.layer = layer;
	eng_emit(e, &r);
}

/*
 * An IP fragment: held until its datagram is whole, which then goes on as
 * a packet of its own, stamped with the frame that completed it (as a
 * receiving kernel takes it when the last piece arrives). The table's
 * memory counts against the budget like a flow's.
 * Return: 1 for a piece of a TCP or UDP datagram (-w keeps it: whether it
 * is RDS is known only once the datagram is whole), 0 otherwise.
 */
static int ip_fragment(struct dump_eng *e, const struct wire_pkt *p, const struct wire_ipfrag *f)
{
	size_t aside = PKT_HEADROOM + e->cfg.max_mem / 16;
	size_t limit = e->cfg.max_mem > aside ? e->cfg.max_mem - aside : 0;
	size_t before = e->ipf.mem, len = 0;
	uint64_t now = e->ph.ts_sec < 0 ? 0 :
		       (uint64_t)e->ph.ts_sec * 1000000000u + e->ph.ts_nsec;
	const uint8_t *dg = NULL;
	struct wire_pkt q;
	int res, rc;

	res = dump_ipfrag_input(&e->ipf, p, f, now, e->mem < limit ? limit - e->mem : 0, &dg,
				&len);
	e->mem -= before;
	eng_mem_add(e, e->ipf.mem);
	e->drops.ipfrag = e->ipf.st;
	if (res == DUMP_IPFRAG_BAD)
		emit_bad(e, WIRE_ERR_MALFORMED, "ip");
	if (res != DUMP_IPFRAG_DONE)
		return f->proto == 6 || f->proto == 17;
	rc = wire_pkt_decode(&q, WIRE_LINK_RAW, dg, len, len);
	if (rc < 0) {
		emit_bad(e, rc, bad_layer(rc, &q));
		return 1;
	}
	dispatch(e, &q);
	return f->proto == 6 || f->proto == 17;
}

int dump_eng_packet(struct dump_eng *e, const struct dump_pkthdr *ph, const uint8_t *buf)
{
	const char *layer = NULL;
	struct wire_pkt p;
	int rc;

	e->ph = *ph;
	e->have_ph = true;
	e->buf = buf;
	rc = wire_pkt_decode(&p, ph->linktype, buf, ph->caplen, ph->len);
	if (p.ip_fragment) {
		struct wire_ipfrag f;
		/* a first fragment may hold only part of its TCP or UDP header */
		int frc = wire_ipfrag_decode(&f, &p);

		if (frc == 0) {
			rc = ip_fragment(e, &p, &f);
			e->buf = NULL;
			return rc;
		}
		/* not captured whole: it cannot be put back; a frame cut on
		 * the wire, or a fragment no kernel takes, is reported */
		if (rc == 0 && frc == WIRE_ERR_TRUNC) {
			e->ipf.st.trunc++;
			e->drops.ipfrag = e->ipf.st;
			e->buf = NULL;
			return 0;
		}
		if (rc == 0) {
			rc = frc;
			layer = "ip";
		}
	}
	if (rc < 0) {
		emit_bad(e, rc, layer ? layer : bad_layer(rc, &p));
		e->buf = NULL;
		return 1;
	}
	rc = dispatch(e, &p);
	e->buf = NULL;  /* the caller's packet is gone after this */
	return rc;
}

void dump_eng_finish(struct dump_eng *e)
{
	e->finishing = true;
	/* what is still in pieces never reached a receiver */
	e->mem -= e->ipf.mem;
	dump_ipfrag_fini(&e->ipf);
	e->drops.ipfrag = e->ipf.st;
	/* oldest first, so what comes out follows the capture's order */
	while (e->lru_tail)
		eng_flow_free(e, e->lru_tail);
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
	dump_ipfrag_fini(&e->ipf);
	while (e->lru_tail) {
		/* no more records: the sink may be gone */
		struct flow *f = e->lru_tail;

		f->closed = true;
		lru_unlink(e, f);
		for (int d = 0; d < 2; d++)
			eng_tdir_free(e, &f->d[d]);
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
