// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * eng_tcp.c - rdsdump's engine on RDS/TCP: each direction reassembled,
 * deframed and resynchronised, and the path an accepting kernel gives a
 * new connection.
 */
#include "eng.h"

#include <stdlib.h>
#include <string.h>

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
	t->keep = eng_zalloc(e, e->cfg.keep);
	if (!t->keep)
		return -1;
	frame_from(e, t, 0);
	return 0;
}

static uint64_t path_hint(struct dump_eng *e, const struct flow *f, const struct tdir *t,
			  bool *have)
{
	struct conn *c = eng_conn_of(e, f->conn);

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
		t->win = eng_zalloc(e, first);
		if (!t->win)
			return;     /* stays in resync, taking nothing: bytes are lost */
		t->win_len = first;
		wire_resync_init(&t->rs, t->win, cap, e->cfg.max_len);
		wire_resync_set_win(&t->rs, t->win, first);
	}
	wire_resync_reset(&t->rs, have ? &hint : NULL);
	t->mode = FR_RESYNC;
	t->rs_base = at;
	t->segs = 0;
}

/* What resync gave up so far, as one note. */
static void resync_note(struct dump_eng *e, struct flow *f, int d, uint64_t skipped)
{
	if (skipped)
		eng_note(e, f, d, DUMP_NOTE_RESYNC, skipped, 0, f->d[d].rs_base);
}

static void tcp_frame(struct dump_eng *e, struct flow *f, int d, const struct wire_frame *fr)
{
	struct tdir *t = &f->d[d];
	struct dump_rec r;
	uint32_t want = fr->len < e->cfg.keep ? fr->len : e->cfg.keep;

	eng_rec_init(e, &r, DUMP_REC_MSG, f, d);
	r.offset = t->df_base + fr->offset;
	r.u.msg.hdr = fr->hdr;
	r.u.msg.payload = fr->payload;
	r.u.msg.caplen = fr->caplen;
	r.u.msg.incomplete = fr->caplen < want;
	r.u.msg.segs = t->segs ? t->segs : 1;
	eng_finish_msg(e, &r, WIRE_XPORT_TCP);
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

			eng_note(e, f, d, DUMP_NOTE_DESYNC, h->len, h->seq,
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
	size_t want = wire_resync_want(&t->rs, len), n = t->win_len;
	uint8_t *w;

	if (want <= n)
		return;
	while (n < want)
		n = n > t->rs.cap / 2 ? t->rs.cap : n * 2;
	w = eng_zalloc(e, n);
	if (!w)
		return;
	memcpy(w, t->win, t->rs.len);
	eng_zfree(e, t->win, t->win_len);
	t->win = w;
	t->win_len = n;
	wire_resync_set_win(&t->rs, w, n);
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
			n = wire_resync_feed(&t->rs, src, slen);
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
				wire_resync_reset(&t->rs, NULL);
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
			wire_resync_reset(&t->rs, NULL);
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
		resync_note(e, f, d, wire_resync_flush(&t->rs));
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

	if (t->mode == FR_RESYNC && t->win && wire_resync_finish(&t->rs)) {
		uint64_t hdr_off = t->rs_base + t->rs.skipped;

		resync_note(e, f, d, t->rs.skipped);
		frame_from(e, t, hdr_off);
		/* whole messages by construction: nothing is left pending */
		feed_frames(e, f, d, t->win + t->rs.start, t->rs.len - t->rs.start, hdr_off);
		wire_resync_reset(&t->rs, NULL);
	}
	if (t->mode == FR_RESYNC && t->win) {
		resync_note(e, f, d, wire_resync_flush(&t->rs));
		wire_resync_reset(&t->rs, NULL);
		t->rs_base = off;
	} else if (t->mode == FR_FRAME && wire_deframer_pending(&t->df)) {
		const struct wire_hdr *h = wire_deframer_hdr(&t->df);
		uint64_t got = t->df.offset - t->df.msg_offset;

		eng_note(e, f, d, DUMP_NOTE_PARTIAL, got,
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
		eng_note(e, f, d, ev->type == DUMP_TCP_EV_GAP ? DUMP_NOTE_GAP : DUMP_NOTE_TRUNC,
		     ev->len, 0, ev->offset);
		tcp_missing(e, f, d, ev->len, ev->offset);
		break;
	case DUMP_TCP_EV_SYN:
		if (!f->noted_syn[d])
			eng_note(e, f, d, DUMP_NOTE_SYN, 0, ev->seq, ev->offset);
		f->noted_syn[d] = true;
		break;
	case DUMP_TCP_EV_MIDSTREAM:
		eng_note(e, f, d, DUMP_NOTE_MIDSTREAM, 0, ev->seq, ev->offset);
		start_resync(e, f, t, ev->offset);
		break;
	case DUMP_TCP_EV_FIN:
	case DUMP_TCP_EV_RST:
		tdir_end(e, f, d, ev->offset);
		eng_note(e, f, d, ev->type == DUMP_TCP_EV_FIN ? DUMP_NOTE_FIN : DUMP_NOTE_RST, ev->len,
		     0, ev->offset);
		t->closed = true;
		if (ev->type == DUMP_TCP_EV_RST)
			f->d[!d].closed = true;
		/* a kernel shutting a path down sends its FIN (or RST) as the
		 * path leaves UP: from then on a new connection may take it */
		eng_release_slot(e, f);
		break;
	case DUMP_TCP_EV_REOPEN:
		*reopen = true;
		break;
	case DUMP_TCP_EV_RETRANS:
		eng_note(e, f, d, DUMP_NOTE_RETRANS, ev->len, ev->aux, ev->offset);
		break;
	case DUMP_TCP_EV_CONFLICT:
		eng_note(e, f, d, DUMP_NOTE_CONFLICT, ev->len, 0, ev->offset);
		break;
	case DUMP_TCP_EV_AFTER_FIN:
		/* a FIN sent again carries nothing worth a line */
		if (ev->len)
			eng_note(e, f, d, DUMP_NOTE_AFTER_FIN, ev->len, 0, ev->offset);
		break;
	case DUMP_TCP_EV_IGNORED:
		eng_note(e, f, d, DUMP_NOTE_IGNORED, ev->len, ev->aux, ev->offset);
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
	eng_tcp_account(e, &f->d[d]);
}

void eng_tcp_close_flow(struct dump_eng *e, struct flow *f)
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
		eng_tdir_free(e, t);
	}
	eng_release_slot(e, f);
	f->closed = true;
}

/* Put |f| (from its endpoint |connector|) in the slot the acceptor gives
 * it: 7.x with SPORT_IDX from the connecting side, its source port modulo
 * the path count; otherwise the first free slot. */
static void tcp_place(struct dump_eng *e, struct conn *c, struct flow *f, int connector)
{
	unsigned n = c->pub.npaths ? c->pub.npaths : WIRE_MAX_PATHS;

	if (c->pub.sport_idx[0] && c->pub.npaths) {
		f->path = (int)(f->ep[connector].port % c->pub.npaths);
	} else {
		for (unsigned i = 0; i < n; i++)
			if (!c->slot[i]) {
				f->path = (int)i;
				break;
			}
		if (f->path < 0) {
			eng_note(e, f, connector, DUMP_NOTE_PATH_REFUSED, 0, 0, 0);
			return;
		}
	}
	if (!c->slot[f->path]) {
		c->slot[f->path] = f;
		f->has_slot = true;
	}
	c->pub.st[f->path][0].conns++;
}

/*
 * Which path a new TCP connection is, as the accepting kernel decides
 * (rds_tcp_accept_one_path). A 7.x acceptor (it advertised SPORT_IDX)
 * that does not know the connector's path count yet holds the connection
 * and places it once the count comes: by source port if the connector
 * sent SPORT_IDX, which a 7.x connector does after opening its paths, not
 * before. Naming it by arrival order meanwhile printed wrong paths (7.2's
 * path 2, port 32778, as "path 1"), so until then its path is unknown.
 */
static void tcp_assign_path(struct dump_eng *e, struct flow *f, int connector)
{
	struct conn *c = eng_conn_of(e, f->conn);
	const struct dump_ep *from;
	int cdir;

	if (!c || connector < 0)
		return;
	from = &f->ep[connector];
	cdir = eng_conn_dir(c, from);
	if (cdir == 1) {
		/* rds_tcp_state_change / accept: never used, only a kick */
		eng_note(e, f, connector, DUMP_NOTE_LARGER, 0, 0, 0);
		return;
	}
	/* With the count unknown (its probes were not captured) the peers
	 * know more than we do: any of the 8 slots may be meant. */
	if (e->cfg.partial_view && !(c->pub.sport_idx[0] && c->pub.npaths))
		return;         /* unknown: no slot, no path number */
	if (c->pub.sport_idx[1] && !c->pub.adv_npaths[0]) {
		f->held = (int8_t)connector;
		return;
	}
	tcp_place(e, c, f, connector);
}

void eng_tcp_place_held(struct dump_eng *e, struct conn *c)
{
	/* Arrival order first: the LRU list is most recent first, so walk
	 * it from the tail. */
	for (struct flow *f = e->lru_tail; f; f = f->prev) {
		int connector = f->held;

		if (f->kind != F_TCP || f->conn != c->pub.id || connector < 0)
			continue;
		f->held = -1;
		if (!f->closed)
			tcp_place(e, c, f, connector);
	}
}

static struct flow *tcp_flow_new(struct dump_eng *e, const struct wire_pkt *p,
				 const struct dump_ep *s, const struct dump_ep *dst)
{
	const struct dump_ep *a = s, *b = dst;
	struct flow *f;
	struct conn *c;
	int connector = -1;
	bool syn = (p->tcp_flags & (WIRE_TCP_SYN | WIRE_TCP_ACK)) == WIRE_TCP_SYN;

	if (eng_ep_cmp(a, b, true) > 0) {
		a = dst;
		b = s;
	}
	f = eng_flow_new(e, F_TCP, a, b, 0);
	if (!f)
		return NULL;
	c = eng_conn_get(e, DUMP_XP_TCP, a, b);
	eng_flow_set_conn(f, c);
	for (int d = 0; d < 2; d++) {
		if (tdir_open(e, &f->d[d])) {
			eng_flow_free(e, f);
			return NULL;
		}
		f->d[d].dir = c ? eng_conn_dir(c, &f->ep[d]) : d;
	}
	/* the connecting side: the SYN's sender, else the end not on the
	 * RDS port */
	if (syn)
		connector = eng_ep_cmp(s, &f->ep[0], true) ? 1 : 0;
	else if (eng_is_rds_port(e, dst->port) && !eng_is_rds_port(e, s->port))
		connector = eng_ep_cmp(s, &f->ep[0], true) ? 1 : 0;
	else if (eng_is_rds_port(e, s->port) && !eng_is_rds_port(e, dst->port))
		connector = eng_ep_cmp(dst, &f->ep[0], true) ? 1 : 0;
	else
		connector = 0;
	tcp_assign_path(e, f, connector);
	return f;
}

void eng_tcp_packet(struct dump_eng *e, const struct wire_pkt *p)
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
	a = eng_ep_cmp(&s, &dst, true) <= 0 ? &s : &dst;
	b = a == &s ? &dst : &s;

	f = eng_flow_find(e, F_TCP, a, b, 0);
	if (f && f->closed && (p->tcp_flags & (WIRE_TCP_SYN | WIRE_TCP_ACK)) == WIRE_TCP_SYN) {
		eng_flow_free(e, f);        /* the ports were reused for a new connection */
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
	eng_lru_front(e, f);
	eng_make_room(e, f);
	if (f->closed)
		return;
	d = eng_ep_cmp(&s, &f->ep[0], true) ? 1 : 0;
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
		eng_note(e, f, d, DUMP_NOTE_REOPEN, 0, p->tcp_seq, 0);
		eng_flow_free(e, f);
		f = tcp_flow_new(e, p, &s, &dst);
		if (!f)
			return;
		d = eng_ep_cmp(&s, &f->ep[0], true) ? 1 : 0;
		if (dump_tcp_dir_input(&f->d[d].tcp, &seg) != 0)
			return;
		reopen = false;
		drain(e, f, d, &reopen);
	}
	if (f->d[0].closed && f->d[1].closed)
		eng_tcp_close_flow(e, f);
}
