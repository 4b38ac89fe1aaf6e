// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * eng_recv.c - rdsdump's engine, the receiver model: connections, the
 * sequence rule, accepted messages, and what a completed message becomes.
 */
#include "eng.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------
 * Connections and the receiver model
 */

struct conn *eng_conn_get(struct dump_eng *e, enum dump_xport xp, const struct dump_ep *x,
			  const struct dump_ep *y)
{
	struct dump_ep a = *x, b = *y;
	uint32_t h;
	struct conn *c;

	a.port = b.port = 0;
	if (eng_ep_cmp(&a, &b, false) > 0) {
		struct dump_ep t = a;

		a = b;
		b = t;
	}
	h = eng_ep_hash(&b, eng_ep_hash(&a, 2166136261u ^ (uint32_t)xp)) & (NBUCKET - 1);
	for (c = e->cb[h]; c; c = c->hnext)
		if (c->pub.xp == xp && !eng_ep_cmp(&c->pub.a, &a, false) &&
		    !eng_ep_cmp(&c->pub.b, &b, false))
			return c;
	if (e->nconns >= MAX_CONNS)
		return NULL;    /* followed still, but not tracked */
	if (e->nconns == e->conns_cap) {
		size_t ncap = e->conns_cap ? e->conns_cap * 2 : 64;
		struct conn **n = realloc(e->conns, ncap * sizeof(*n));

		if (!n)
			return NULL;
		eng_mem_add(e, (ncap - e->conns_cap) * sizeof(*n));
		e->conns = n;
		e->conns_cap = ncap;
	}
	c = eng_zalloc(e, sizeof(*c));
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
int eng_conn_dir(const struct conn *c, const struct dump_ep *src)
{
	return memcmp(src->addr, c->pub.a.addr, sizeof(src->addr)) ? 1 : 0;
}

void eng_count_rules(struct conn *c, const struct wire_rules *rs)
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
	n = eng_zalloc(e, ncap * sizeof(*n));
	if (!n)
		return false;
	for (uint32_t i = 0; i < cap; i++)
		if (c->seen[d][i])
			*seen_slot(n, ncap, seen_key(c->seen[d][i])) = c->seen[d][i];
	eng_zfree(e, c->seen[d], cap * sizeof(*n));
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
void eng_finish_msg(struct dump_eng *e, struct dump_rec *r, enum wire_xport xp)
{
	struct dump_msg *m = &r->u.msg;
	struct conn *c = eng_conn_of(e, r->conn);
	int p = r->path, d = r->dir;
	struct dump_pstats *st = c && p >= 0 ? &c->pub.st[p][d] : NULL;
	bool swap_map = false;

	m->kind = wire_classify(&m->hdr, xp);
	if (c && !c->seen[d]) {
		c->seen[d] = eng_zalloc(e, SEEN_FIRST * sizeof(uint64_t));
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
			if (d == 0)
				eng_tcp_place_held(e, c);
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
			c->map[d] = eng_zalloc(e, sizeof(*c->map[d]));
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
		eng_count_rules(c, &r->rules);
	eng_emit(e, r);
	if (swap_map) {
		*c->map[d] = e->cong_tmp;
		c->have_map[d] = true;
	}
}
