// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * tcpreasm.c - dump_tcp_*: TCP reassembly of one direction, for rdsdump.
 *
 * One ring, indexed by stream offset modulo its size, holds both the last
 * bytes delivered (to compare retransmissions with) and the bytes received
 * ahead of a hole. The live span [next - hist_len, held_end) always fits
 * in the ring, so history and held bytes never overwrite each other. The
 * ring starts empty and doubles (re-laid by offset) only when the span is
 * about to outgrow it, up to history + ooo: a direction costs what it
 * actually keeps, and most keep a few KiB. Two bitmaps over the ring say
 * which bytes are held (received, not delivered) and which hold a captured
 * value (as opposed to a placeholder for bytes the snap length cut off, or
 * a hole that became history).
 *
 * Invariants (the fuzzer checks the visible ones):
 *   - every held byte lies in [next, next + ooo_max) and below held_end;
 *   - the live span [next - hist_len, max(next, held_end)) fits in cap;
 *   - no byte at or beyond a FIN is held;
 *   - DATA, GAP and TRUNC events tile [0, next) in order;
 *   - next == bytes + gap_bytes + trunc_bytes.
 *
 * When copies disagree, the first one received wins: delivered bytes cannot
 * be taken back, and treating held bytes the same way keeps the answer
 * independent of whether the hole before them had filled yet. The loser is
 * reported as a CONFLICT either way. A captured value does replace a
 * snaplen placeholder, since that is knowledge, not a second opinion.
 */
#include "tcpreasm.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include <wire/wire.h>

enum {
	PH_IDLE = 0,
	PH_BODY,  /* the segment's own bytes */
	PH_DRAIN, /* held runs the segment made contiguous */
	PH_CLOSE, /* end of capture: everything held, holes as GAPs */
	PH_FIN,   /* FIN once the stream has reached it */
};

/* ------------------------------------------------------------------------
 * Bitmaps, linear: bit i of a ring position. Callers split at the ring end.
 */

static bool bm_get(const uint64_t *bm, size_t i)
{
	return bm[i / 64] >> (i % 64) & 1;
}

/* Bits b .. b + k - 1 of one word (k in 1 .. 64 - b). */
static uint64_t bm_mask(size_t b, size_t k)
{
	return (k == 64 ? ~0ull : (1ull << k) - 1) << b;
}

/* Bits [i, i + n) a word at a time: the next word's index and the mask of
 * the range in it; false when the range is done. */
static bool bm_next(size_t *i, size_t *n, size_t *word, uint64_t *mask)
{
	size_t b = *i % 64, k = 64 - b;

	if (!*n)
		return false;
	if (k > *n)
		k = *n;
	*word = *i / 64;
	*mask = bm_mask(b, k);
	*i += k;
	*n -= k;
	return true;
}

static void bm_put(uint64_t *bm, size_t i, size_t n, bool val)
{
	size_t w;
	uint64_t m;

	while (bm_next(&i, &n, &w, &m)) {
		if (val)
			bm[w] |= m;
		else
			bm[w] &= ~m;
	}
}

/* Length of the run of bits equal to |val| starting at bit |i|, at most |n|. */
static size_t bm_run(const uint64_t *bm, size_t i, size_t n, bool val)
{
	size_t done = 0;

	while (done < n) {
		size_t b = (i + done) % 64, k = 64 - b, r;
		uint64_t w = bm[(i + done) / 64];

		if (!val)
			w = ~w;
		/* Shifting fills the top with zeros, which end the run at k. */
		w = ~(w >> b);
		r = w ? (size_t)__builtin_ctzll(w) : 64;
		if (r > n - done)
			r = n - done;
		done += r;
		if (r < k)
			break;
	}
	return done;
}

static size_t bm_count(const uint64_t *bm, size_t i, size_t n)
{
	size_t cnt = 0, w;
	uint64_t m;

	while (bm_next(&i, &n, &w, &m))
		cnt += (size_t)__builtin_popcountll(bm[w] & m);
	return cnt;
}

/* ------------------------------------------------------------------------
 * The ring, addressed by stream offset. Every range passed here is at most
 * cap long, so it wraps at most once.
 */

static size_t rpos(const struct dump_tcp_dir *d, uint64_t off)
{
	return (size_t)(off % d->cap);
}

/* Linear piece of [off, off + n) that starts at off. */
static size_t rlin(const struct dump_tcp_dir *d, uint64_t off, uint64_t n)
{
	size_t k = d->cap - rpos(d, off);

	return n < k ? (size_t)n : k;
}

static uint64_t run_at(const struct dump_tcp_dir *d, const uint64_t *bm,
		       uint64_t off, uint64_t n, bool val)
{
	uint64_t done = 0;

	while (done < n) {
		size_t k = rlin(d, off + done, n - done);
		size_t r = bm_run(bm, rpos(d, off + done), k, val);

		done += r;
		if (r < k)
			break;
	}
	return done;
}

static void put_at(const struct dump_tcp_dir *d, uint64_t *bm, uint64_t off,
		   uint64_t n, bool val)
{
	while (n) {
		size_t k = rlin(d, off, n);

		bm_put(bm, rpos(d, off), k, val);
		off += k;
		n -= k;
	}
}

static uint64_t count_at(const struct dump_tcp_dir *d, const uint64_t *bm,
			 uint64_t off, uint64_t n)
{
	uint64_t cnt = 0;

	while (n) {
		size_t k = rlin(d, off, n);

		cnt += bm_count(bm, rpos(d, off), k);
		off += k;
		n -= k;
	}
	return cnt;
}

static void ring_write(struct dump_tcp_dir *d, uint64_t off, const uint8_t *src,
		       uint64_t n)
{
	while (n) {
		size_t k = rlin(d, off, n);

		memcpy(d->ring + rpos(d, off), src, k);
		put_at(d, d->valid, off, k, true);
		src += k;
		off += k;
		n -= k;
	}
}

/* ------------------------------------------------------------------------
 * Growing the ring
 */

/* First ring: a few segments' worth, enough for most directions for good. */
#define RING_MIN 4096u

static size_t arena_bytes(size_t cap, size_t *words)
{
	*words = cap / 64 + 1;
	return 2 * *words * sizeof(uint64_t) + cap;
}

/*
 * Make the ring at least |need| bytes (need <= hist_max + ooo_max). The
 * live span keeps its offsets: each byte and both its bits move to
 * off % new cap. Return: false if the memory could not be had (the ring
 * is then as it was).
 */
static bool grow(struct dump_tcp_dir *d, uint64_t need)
{
	size_t ncap, words, len, max = d->hist_max + d->ooo_max;
	uint64_t lo, hi;
	uint8_t *a, *ring;
	uint64_t *held, *valid;

	if (need <= d->cap)
		return true;
	ncap = d->cap ? d->cap : RING_MIN;
	while (ncap < need && ncap < max)
		ncap = ncap > max / 2 ? max : ncap * 2;
	if (ncap > max)
		ncap = max;
	if (ncap < need)
		return false;
	len = arena_bytes(ncap, &words);
	/* calloc: the bitmaps must start clear; the ring contents do not matter */
	a = calloc(1, len);
	if (!a)
		return false;
	held = (uint64_t *)(void *)a;
	valid = held + words;
	ring = a + 2 * words * sizeof(uint64_t);
	lo = d->next - d->hist_len;
	hi = d->held_end > d->next ? d->held_end : d->next;
	for (uint64_t off = lo; d->cap && off < hi; off++) {
		size_t o = rpos(d, off), n = (size_t)(off % ncap);

		ring[n] = d->ring[o];
		if (bm_get(d->held, o))
			bm_put(held, n, 1, true);
		if (bm_get(d->valid, o))
			bm_put(valid, n, 1, true);
	}
	free(d->arena);
	d->arena = a;
	d->arena_len = len;
	d->cap = ncap;
	d->held = held;
	d->valid = valid;
	d->ring = ring;
	if (d->arena_len > d->st.mem_max)
		d->st.mem_max = d->arena_len;
	return true;
}

/* Bytes kept ahead of next once next has moved on by |n|. */
static uint64_t ahead_after(const struct dump_tcp_dir *d, uint64_t n)
{
	return d->held_end > d->next + n ? d->held_end - (d->next + n) : 0;
}

/*
 * History to keep when next moves on by |n|: all of it if the ring can
 * grow to hold it, else what the ring holds beside the held bytes (older
 * retransmissions are then "unchecked", never wrong).
 */
static uint64_t hist_room(struct dump_tcp_dir *d, uint64_t n)
{
	uint64_t want = d->hist_len + n, ahead = ahead_after(d, n);

	if (want > d->hist_max)
		want = d->hist_max;
	if (!want || grow(d, want + ahead))
		return want;
	return d->cap > ahead ? d->cap - ahead : 0;
}

/* ------------------------------------------------------------------------
 * Helpers on the stream
 */

static int64_t seq_delta(uint32_t diff)
{
	/* Sequence space is ordered modulo 2^32 within half the space. */
	return diff < 0x80000000u ? (int64_t)diff : (int64_t)diff - 0x100000000ll;
}

static uint32_t seq_at(const struct dump_tcp_dir *d, uint64_t off)
{
	return d->base_seq + (uint32_t)off;
}

static int64_t off_of(const struct dump_tcp_dir *d, uint32_t seq)
{
	return (int64_t)d->next + seq_delta(seq - seq_at(d, d->next));
}

/* Segment byte at stream offset |off| (which the caller knows is captured). */
static const uint8_t *seg_at(const struct dump_tcp_dir *d, uint64_t off)
{
	return d->sdata + (size_t)((int64_t)off - d->sbase);
}

static bool held_at_next(const struct dump_tcp_dir *d)
{
	return d->st.held_bytes && bm_get(d->held, rpos(d, d->next));
}

/* Bytes from next that are not held, at most |n|. Nothing is held beyond the
 * window nor a ring's length past next, so a run that reaches either goes
 * on to |n|. */
static uint64_t free_run(const struct dump_tcp_dir *d, uint64_t n)
{
	uint64_t scan = n < d->ooo_max ? n : d->ooo_max, r;

	if (!d->st.held_bytes)
		return n;
	if (scan > d->cap)
		scan = d->cap;
	r = run_at(d, d->held, d->next, scan, false);
	return r == scan ? n : r;
}

/* Move next on by |n|; |room| caps the history (what hist_room() allowed). */
static void advance(struct dump_tcp_dir *d, uint64_t n, uint64_t room)
{
	d->next += n;
	d->hist_len += n;
	if (d->hist_len > room)
		d->hist_len = room;
}

static void ev_set(const struct dump_tcp_dir *d, struct dump_tcp_ev *ev,
		   enum dump_tcp_ev_type t, uint64_t off, uint64_t len)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = t;
	ev->offset = off;
	ev->len = len;
	ev->seq = seq_at(d, off);
}

static void queue(struct dump_tcp_dir *d, enum dump_tcp_ev_type t, uint64_t off,
		  uint64_t len, uint64_t aux)
{
	struct dump_tcp_ev *ev;

	/* input() queues at most five per segment: a sixth is a bug here */
	assert(d->qhead + d->qlen < sizeof(d->q) / sizeof(d->q[0]));
	ev = &d->q[d->qhead + d->qlen++];
	ev_set(d, ev, t, off, len);
	ev->aux = aux;
}

/* ------------------------------------------------------------------------
 * Delivery: each fills one event and moves next.
 */

/* The held run at next, as far as it stays DATA or TRUNC and does not wrap. */
static void emit_held(struct dump_tcp_dir *d, struct dump_tcp_ev *ev)
{
	size_t p = rpos(d, d->next);
	bool v = bm_get(d->valid, p);
	size_t n = bm_run(d->held, p, d->cap - p, true);

	n = bm_run(d->valid, p, n, v);
	bm_put(d->held, p, n, false);
	d->st.held_bytes -= n;
	if (v) {
		ev_set(d, ev, DUMP_TCP_EV_DATA, d->next, n);
		ev->data = d->ring + p;
		ev->held = true;
		d->st.bytes += n;
	} else {
		ev_set(d, ev, DUMP_TCP_EV_TRUNC, d->next, n);
		d->st.trunc_bytes += n;
	}
	/* the bytes were in the ring already: history grows into them */
	advance(d, n, d->hist_max);
}

/* The segment's bytes at next, in place. Only their tail is kept, as history. */
static void emit_direct(struct dump_tcp_dir *d, struct dump_tcp_ev *ev, uint64_t n)
{
	const uint8_t *p = seg_at(d, d->next);
	uint64_t room = hist_room(d, n), k = n < room ? n : room;

	ev_set(d, ev, DUMP_TCP_EV_DATA, d->next, n);
	ev->data = p;
	ring_write(d, d->next + n - k, p + (n - k), k);
	d->st.bytes += n;
	advance(d, n, room);
}

/* [next, next + n) is not in the capture; its history must not be compared. */
static void emit_missing(struct dump_tcp_dir *d, struct dump_tcp_ev *ev,
			 enum dump_tcp_ev_type t, uint64_t n)
{
	uint64_t room = hist_room(d, n), k = n < room ? n : room;

	ev_set(d, ev, t, d->next, n);
	put_at(d, d->valid, d->next + n - k, k, false);
	if (t == DUMP_TCP_EV_GAP) {
		d->st.gap_bytes += n;
		d->st.gaps++;
	} else {
		d->st.trunc_bytes += n;
	}
	advance(d, n, room);
}

/* ------------------------------------------------------------------------
 * Holding
 */

/* Captured segment bytes replace snaplen placeholders in held [off, off + n). */
static void fill_placeholders(struct dump_tcp_dir *d, uint64_t off, uint64_t n)
{
	uint64_t end = off + n;

	if (end > d->c)
		end = d->c;
	while (off < end) {
		uint64_t r;

		off += run_at(d, d->valid, off, end - off, true);
		r = run_at(d, d->valid, off, end - off, false);
		ring_write(d, off, seg_at(d, off), r);
		off += r;
	}
}

/*
 * Walk [a, b) (inside the hold window): placeholders under held runs are
 * filled; with |add|, the free runs become held with the segment's bytes (or
 * placeholders past its captured end).
 */
static void absorb(struct dump_tcp_dir *d, uint64_t a, uint64_t b, bool add)
{
	uint64_t off = a, added = 0;

	while (off < b) {
		uint64_t r = run_at(d, d->held, off, b - off, true), k = 0;

		fill_placeholders(d, off, r);
		off += r;
		if (off >= b)
			break;
		r = run_at(d, d->held, off, b - off, false);
		if (add) {
			if (d->c > off) {
				k = d->c - off < r ? d->c - off : r;
				ring_write(d, off, seg_at(d, off), k);
			}
			put_at(d, d->valid, off + k, r - k, false);
			put_at(d, d->held, off, r, true);
			added += r;
		}
		off += r;
	}
	if (!added)
		return;
	d->st.held_bytes += added;
	if (d->st.held_bytes > d->st.held_max)
		d->st.held_max = d->st.held_bytes;
	d->st.ooo_segments++;
	if (b > d->held_end)
		d->held_end = b;
}

/* ------------------------------------------------------------------------
 * Retransmissions: compare what the segment says with what we already have.
 */

struct cmp {
	uint64_t checked, diff, first;
};

/* Compare the segment with the ring over [off, off + n), where valid. */
static void cmp_range(const struct dump_tcp_dir *d, uint64_t off, uint64_t n,
		      struct cmp *cm)
{
	uint64_t end = off + n;

	while (off < end) {
		uint64_t r;

		off += run_at(d, d->valid, off, end - off, false);
		r = run_at(d, d->valid, off, end - off, true);
		cm->checked += r;
		while (r) {
			size_t k = rlin(d, off, r);
			const uint8_t *a = d->ring + rpos(d, off), *b = seg_at(d, off);

			if (memcmp(a, b, k) != 0) {
				for (size_t i = 0; i < k; i++) {
					if (a[i] == b[i])
						continue;
					if (!cm->diff)
						cm->first = off + i;
					cm->diff++;
				}
			}
			off += k;
			r -= k;
		}
	}
}

static void compare(struct dump_tcp_dir *d, int64_t s, int64_t c, int64_t e)
{
	int64_t nx = (int64_t)d->next;
	uint64_t dup = 0, first = s > 0 ? (uint64_t)s : 0;
	struct cmp cm = { 0 };

	if (s < nx) {
		int64_t b = e < nx ? e : nx;
		int64_t lo = s > nx - (int64_t)d->hist_len ? s : nx - (int64_t)d->hist_len;
		int64_t hi = c < b ? c : b;

		dup += (uint64_t)(b - s);
		if (lo < hi)
			cmp_range(d, (uint64_t)lo, (uint64_t)(hi - lo), &cm);
	}
	if (d->st.held_bytes && e > nx) {
		uint64_t off = (uint64_t)(s > nx ? s : nx);
		uint64_t hi = (uint64_t)e;

		/* nothing is held at or past held_end, and scanning further
		 * would meet the same ring positions again */
		if (hi > d->held_end)
			hi = d->held_end;
		while (off < hi) {
			uint64_t r = run_at(d, d->held, off, hi - off, true);
			uint64_t ce = (uint64_t)c < off + r ? (uint64_t)c : off + r;

			if (r && !dup)
				first = off;
			dup += r;
			if ((int64_t)off < c && off < ce)
				cmp_range(d, off, ce - off, &cm);
			off += r;
			off += run_at(d, d->held, off, hi - off, false);
		}
	}
	if (!dup)
		return;
	queue(d, DUMP_TCP_EV_RETRANS, first, dup, dup - cm.checked);
	d->st.retrans_bytes += dup;
	d->st.unchecked_bytes += dup - cm.checked;
	if (cm.diff) {
		queue(d, DUMP_TCP_EV_CONFLICT, cm.first, cm.diff, 0);
		d->st.conflict_bytes += cm.diff;
		d->st.conflicts++;
	}
}

/* A FIN at fin_off: whatever is held beyond it can never be delivered. */
static void purge_after_fin(struct dump_tcp_dir *d)
{
	uint64_t n, cnt;

	if (!d->st.held_bytes || d->held_end <= d->fin_off)
		return;
	n = d->held_end - d->fin_off;
	cnt = count_at(d, d->held, d->fin_off, n);
	put_at(d, d->held, d->fin_off, n, false);
	d->held_end = d->fin_off;
	if (!cnt)
		return;
	d->st.held_bytes -= cnt;
	d->st.after_fin_bytes += cnt;
	queue(d, DUMP_TCP_EV_AFTER_FIN, d->fin_off, cnt, 0);
}

/* ------------------------------------------------------------------------
 * Steps of next_event(): each returns true with one event in |ev|.
 */

static bool body_step(struct dump_tcp_dir *d, struct dump_tcp_ev *ev)
{
	uint64_t n;

	/* held runs delivered below may have carried next past s */
	if (d->s < d->next)
		d->s = d->next;
	if (d->s >= d->e)
		return false;
	if (d->s == d->next) {
		if (held_at_next(d)) {
			emit_held(d, ev);
			return true;
		}
		n = free_run(d, d->e - d->next);
		if (d->s < d->c) {
			if (n > d->c - d->s)
				n = d->c - d->s;
			emit_direct(d, ev, n);
		} else {
			emit_missing(d, ev, DUMP_TCP_EV_TRUNC, n);
		}
		return true;
	}
	if (d->e - d->next > d->ooo_max) {
		/* No room to hold it: the oldest hole is lost. */
		if (held_at_next(d))
			emit_held(d, ev);
		else
			emit_missing(d, ev, DUMP_TCP_EV_GAP, free_run(d, d->s - d->next));
		return true;
	}
	if (grow(d, d->hist_len + (d->e > d->held_end ? d->e : d->held_end) - d->next))
		absorb(d, d->s, d->e, true);
	else
		d->st.nomem_bytes += d->e - d->s;       /* a GAP when its turn comes */
	d->s = d->e;
	return false;
}

static bool close_step(struct dump_tcp_dir *d, struct dump_tcp_ev *ev)
{
	if (d->st.held_bytes) {
		if (held_at_next(d))
			emit_held(d, ev);
		else
			emit_missing(d, ev, DUMP_TCP_EV_GAP, free_run(d, d->ooo_max));
		return true;
	}
	if (d->fin_seen && d->next < d->fin_off) {
		emit_missing(d, ev, DUMP_TCP_EV_GAP, d->fin_off - d->next);
		return true;
	}
	return false;
}

/* ------------------------------------------------------------------------
 * API
 */

int dump_tcp_dir_init(struct dump_tcp_dir *d, const struct dump_tcp_limits *lim)
{
	size_t ooo = DUMP_TCP_OOO_DEFAULT, hist = DUMP_TCP_HISTORY_DEFAULT;
	uint64_t jump = DUMP_TCP_JUMP_DEFAULT;

	if (!d)
		return DUMP_TCP_ERR_INVAL;
	memset(d, 0, sizeof(*d));
	if (lim) {
		if (lim->ooo)
			ooo = lim->ooo;
		if (lim->history == DUMP_TCP_HISTORY_NONE)
			hist = 0;
		else if (lim->history)
			hist = lim->history;
		if (lim->jump)
			jump = lim->jump;
	}
	if (ooo > SIZE_MAX / 4 || hist > SIZE_MAX / 4)
		return DUMP_TCP_ERR_INVAL;
	if (jump > 0x7fffffff)
		jump = 0x7fffffff;
	d->ooo_max = ooo;
	d->hist_max = hist;
	d->jump = jump;
	d->ready = true;
	return 0;
}

void dump_tcp_dir_fini(struct dump_tcp_dir *d)
{
	if (!d)
		return;
	free(d->arena);
	d->arena = NULL;
	d->arena_len = 0;
	d->cap = 0;
	d->ready = false;
	d->ring = NULL;
	d->held = d->valid = NULL;
	d->phase = PH_IDLE;
	d->qlen = 0;
	d->closed = true;
}

static bool pending(const struct dump_tcp_dir *d)
{
	return d->qlen || d->phase != PH_IDLE;
}

int dump_tcp_dir_input(struct dump_tcp_dir *d, const struct dump_tcp_seg *seg)
{
	int64_t nx, s, c, e;
	uint32_t dseq;

	if (!d || !seg || !d->ready || seg->caplen > seg->len ||
	    seg->len > DUMP_TCP_SEG_MAX || (seg->caplen && !seg->data))
		return DUMP_TCP_ERR_INVAL;
	if (pending(d))
		return DUMP_TCP_ERR_BUSY;
	if (d->closing)
		return DUMP_TCP_ERR_CLOSED;
	d->st.segments++;
	d->qhead = 0;

	if (seg->flags & DUMP_TCP_RST) {
		/* The receiver ignores an RST's payload, and so do we. */
		s = d->started ? off_of(d, seg->seq) : 0;
		queue(d, DUMP_TCP_EV_RST, s > 0 ? (uint64_t)s : 0, seg->len, 0);
		return 0;
	}
	dseq = seg->seq;
	if (seg->flags & DUMP_TCP_SYN) {
		if (!d->started) {
			d->started = d->syn_seen = true;
			d->isn = seg->seq;
			d->base_seq = seg->seq + 1;
			queue(d, DUMP_TCP_EV_SYN, 0, 0, 0);
		} else if (!d->syn_seen || seg->seq != d->isn) {
			queue(d, DUMP_TCP_EV_REOPEN, d->next, seg->len, seg->seq);
			d->st.ignored++;
			return 0;
		}
		dseq = seg->seq + 1;
	} else if (!d->started) {
		if (!seg->len && !(seg->flags & DUMP_TCP_FIN))
			return 0;
		d->started = true;
		d->base_seq = seg->seq;
		queue(d, DUMP_TCP_EV_MIDSTREAM, 0, 0, 0);
	}

	nx = (int64_t)d->next;
	s = off_of(d, dseq);
	e = s + (int64_t)seg->len;
	c = s + (int64_t)seg->caplen;
	if (s > nx && (uint64_t)(s - nx) > d->jump) {
		queue(d, DUMP_TCP_EV_IGNORED, (uint64_t)s, seg->len, seg->seq);
		d->st.ignored++;
		return 0;
	}
	d->sdata = seg->data;
	d->sbase = s;

	/* A FIN behind what was delivered is outside the window: ignored, as
	 * the receiver would. */
	if ((seg->flags & DUMP_TCP_FIN) && !d->fin_seen && e >= nx) {
		d->fin_seen = true;
		d->fin_off = (uint64_t)e;
		purge_after_fin(d);
	}
	if (d->fin_seen && e > (int64_t)d->fin_off) {
		int64_t a = s > (int64_t)d->fin_off ? s : (int64_t)d->fin_off;

		queue(d, DUMP_TCP_EV_AFTER_FIN, (uint64_t)a, (uint64_t)(e - a), 0);
		d->st.after_fin_bytes += (uint64_t)(e - a);
		e = a;
		if (c > e)
			c = e;
	}
	if (s < e)
		compare(d, s, c, e);

	/* From here on only [next, e) matters. */
	d->s = (uint64_t)(s > nx ? s : nx);
	d->e = (uint64_t)(e > (int64_t)d->s ? e : (int64_t)d->s);
	d->c = (uint64_t)(c > (int64_t)d->s ? c : (int64_t)d->s);
	if (d->st.held_bytes && d->c > d->s && d->held_end > d->s)
		absorb(d, d->s, d->e < d->held_end ? d->e : d->held_end, false);
	d->phase = PH_BODY;
	return 0;
}

int dump_tcp_dir_close(struct dump_tcp_dir *d)
{
	if (!d)
		return DUMP_TCP_ERR_INVAL;
	if (pending(d))
		return DUMP_TCP_ERR_BUSY;
	if (d->closing)
		return 0;
	d->closing = true;
	d->qhead = 0;
	d->phase = PH_CLOSE;
	return 0;
}

int dump_tcp_dir_next_event(struct dump_tcp_dir *d, struct dump_tcp_ev *ev)
{
	if (!d || !ev)
		return DUMP_TCP_ERR_INVAL;
	for (;;) {
		if (d->qlen) {
			*ev = d->q[d->qhead++];
			d->qlen--;
			return 1;
		}
		switch (d->phase) {
		case PH_BODY:
			if (body_step(d, ev))
				return 1;
			d->phase = PH_DRAIN;
			break;
		case PH_DRAIN:
			if (held_at_next(d)) {
				emit_held(d, ev);
				return 1;
			}
			d->phase = PH_FIN;
			break;
		case PH_CLOSE:
			if (close_step(d, ev))
				return 1;
			d->phase = PH_FIN;
			break;
		case PH_FIN:
			d->phase = PH_IDLE;
			if (d->closing)
				d->closed = true;
			if (d->fin_seen && !d->fin_done && d->next == d->fin_off) {
				d->fin_done = true;
				ev_set(d, ev, DUMP_TCP_EV_FIN, d->fin_off, 0);
				return 1;
			}
			break;
		default:
			/* the segment may be gone once the caller sees 0 */
			d->sdata = NULL;
			return 0;
		}
	}
}

const struct dump_tcp_stats *dump_tcp_dir_stats(const struct dump_tcp_dir *d)
{
	return &d->st;
}

size_t dump_tcp_dir_mem(const struct dump_tcp_dir *d)
{
	return d->arena_len;
}

uint64_t dump_tcp_dir_next_offset(const struct dump_tcp_dir *d)
{
	return d->next;
}

const char *dump_tcp_ev_name(enum dump_tcp_ev_type t)
{
	static const char *const names[DUMP_TCP_EV__COUNT] = {
		[DUMP_TCP_EV_NONE] = "none",
		[DUMP_TCP_EV_DATA] = "data",
		[DUMP_TCP_EV_GAP] = "gap",
		[DUMP_TCP_EV_TRUNC] = "trunc",
		[DUMP_TCP_EV_SYN] = "syn",
		[DUMP_TCP_EV_MIDSTREAM] = "midstream",
		[DUMP_TCP_EV_FIN] = "fin",
		[DUMP_TCP_EV_RST] = "rst",
		[DUMP_TCP_EV_REOPEN] = "reopen",
		[DUMP_TCP_EV_RETRANS] = "retrans",
		[DUMP_TCP_EV_CONFLICT] = "conflict",
		[DUMP_TCP_EV_AFTER_FIN] = "after_fin",
		[DUMP_TCP_EV_IGNORED] = "ignored",
	};

	if ((unsigned)t >= DUMP_TCP_EV__COUNT || !names[t])
		return "?";
	return names[t];
}

const char *dump_tcp_strerror(int err)
{
	static const struct wire_tok texts[] = {
		{ DUMP_TCP_OK, "ok" },
		{ (uint32_t)DUMP_TCP_ERR_INVAL, "invalid argument" },
		{ (uint32_t)DUMP_TCP_ERR_NOMEM, "out of memory" },
		{ (uint32_t)DUMP_TCP_ERR_BUSY, "events of the previous call not drained" },
		{ (uint32_t)DUMP_TCP_ERR_CLOSED, "direction already closed" },
		{ 0, NULL },
	};

	return wire_tok_str(texts, (uint32_t)err, "unknown error");
}
