// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * resync.c - finding a header again in an RDS/TCP stream; see wire.h.
 */
#include <wire/wire.h>

#include <string.h>

/* Flags a kernel sets on TCP: CONG_BITMAP, ACK_REQUIRED (queued with it,
 * harmless), RETRANSMITTED, and 7.x's EXTHDR_EXTENSION. */
#define TCP_FLAGS (WIRE_FLAG_CONG_BITMAP | WIRE_FLAG_ACK_REQUIRED | \
		   WIRE_FLAG_RETRANSMITTED | WIRE_FLAG_EXTHDR_EXTENSION)

/* No real path numbers this far in a capture; payload that happens to look
 * like a header mostly has random high bytes here. */
#define SEQ_MAX (1ull << 40)

bool wire_hdr_plausible(const struct wire_hdr *h, uint32_t max_len)
{
	if (!max_len)
		max_len = WIRE_MAX_MSG_LEN;
	if (h->ack || h->credit || h->pad[0] || h->pad[1] || h->pad[2] || h->pad[3])
		return false;
	if (h->flags & ~TCP_FLAGS)
		return false;
	if (h->len > max_len || h->seq >= SEQ_MAX)
		return false;
	if (h->flags == WIRE_FLAG_CONG_BITMAP)
		return h->len == WIRE_CONG_MAP_BYTES && h->seq == 0 && h->sport == 0 &&
		       h->dport == 0;
	if (h->seq == 0)
		return false;
	if (h->sport == 0 && h->dport == 0)
		return false;       /* TCP has no ack-only frames */
	/* the first extension type must be one a walk can start with */
	return h->ext[0] < WIRE_EXT_TYPE_MAX;
}

void wire_resync_init(struct wire_resync *r, uint8_t *win, size_t cap, uint32_t max_len)
{
	memset(r, 0, sizeof(*r));
	r->win = win;
	r->cap = cap;
	r->room = cap;
	r->max_len = max_len ? max_len : WIRE_MAX_MSG_LEN;
}

void wire_resync_set_win(struct wire_resync *r, uint8_t *win, size_t room)
{
	r->win = win;
	r->room = room < r->cap ? room : r->cap;
}

size_t wire_resync_want(const struct wire_resync *r, size_t len)
{
	if (r->found || r->len + len <= r->room || r->room == r->cap)
		return r->room;
	return len < r->cap - r->len ? r->len + len : r->cap;
}

void wire_resync_reset(struct wire_resync *r, const uint64_t *hint)
{
	r->len = 0;
	r->scan = 0;
	r->skipped = 0;
	r->found = false;
	r->start = 0;
	r->npend = 0;
	r->have_hint = hint != NULL;
	r->hint_seq = hint ? *hint : 0;
}

static bool plausible_at(const struct wire_resync *r, size_t off, struct wire_hdr *h)
{
	if (wire_hdr_decode(h, r->win + off, r->len - off) != WIRE_HDR_LEN)
		return false;
	return wire_hdr_plausible(h, r->max_len);
}

static bool near_hint(const struct wire_resync *r, const struct wire_hdr *h)
{
	/*
	 * A few dozen messages fit in a lost segment. The window must stay
	 * narrow: a real header seen k bytes late reads as seq << 8k, which
	 * for a recent message is never this close to the expected number.
	 */
	return r->have_hint && h->seq >= r->hint_seq && h->seq - r->hint_seq < 64;
}

/* Give up the first |n| bytes of the window. */
static void drop(struct wire_resync *r, size_t n)
{
	unsigned j = 0;

	memmove(r->win, r->win + n, r->len - n);
	r->len -= n;
	r->scan = r->scan > n ? r->scan - n : 0;
	r->skipped += n;
	for (unsigned i = 0; i < r->npend; i++)
		if (r->pend[i] >= n)
			r->pend[j++] = r->pend[i] - n;
	r->npend = j;
}

static void accept(struct wire_resync *r, size_t at)
{
	r->found = true;
	r->start = at;
	r->skipped += at;
	r->npend = 0;
}

/* 1: confirmed, 0: rejected, -1: its successor is not here yet. */
static int judge(const struct wire_resync *r, size_t at)
{
	struct wire_hdr h, next;
	uint64_t end;

	if (!plausible_at(r, at, &h))
		return 0;
	end = (uint64_t)at + WIRE_HDR_LEN + h.len;
	if (near_hint(r, &h) || end + WIRE_HDR_LEN - at > r->cap)
		return 1;
	if (end + WIRE_HDR_LEN > r->len)
		return -1;
	return plausible_at(r, (size_t)end, &next) ? 1 : 0;
}

static void scan(struct wire_resync *r)
{
	unsigned j = 0;

	/* earlier candidates first: the earliest confirmed one wins */
	for (unsigned i = 0; i < r->npend; i++) {
		int v = judge(r, r->pend[i]);

		if (v == 1) {
			accept(r, r->pend[i]);
			return;
		}
		if (v < 0)
			r->pend[j++] = r->pend[i];
	}
	r->npend = j;
	for (; r->scan + WIRE_HDR_LEN <= r->len; r->scan++) {
		int v = judge(r, r->scan);

		if (v == 1) {
			accept(r, r->scan);
			return;
		}
		if (v < 0) {
			/* a full list forgets its oldest candidate */
			if (r->npend == sizeof(r->pend) / sizeof(r->pend[0])) {
				memmove(r->pend, r->pend + 1, sizeof(r->pend) - sizeof(r->pend[0]));
				r->npend--;
			}
			r->pend[r->npend++] = r->scan;
		}
	}
}

size_t wire_resync_feed(struct wire_resync *r, const uint8_t *data, size_t len)
{
	size_t n;

	if (r->found || !len)
		return 0;
	if (r->len == r->room) {
		/* keep what may still start a header: the oldest waiting
		 * candidate, or the unfinished tail */
		size_t keep = r->npend ? r->pend[0] : r->scan;

		if (keep == 0)
			keep = 1;       /* cannot happen with a big enough window */
		drop(r, keep);
	}
	n = r->room - r->len;
	if (n > len)
		n = len;
	/* memmove: the caller may refeed bytes from this very window */
	memmove(r->win + r->len, data, n);
	r->len += n;
	scan(r);
	if (!r->found) {
		size_t keep = r->npend ? r->pend[0] : r->scan;

		/* bytes before the first possible start are dead; move the
		 * rest down once they are half the window, not on every call */
		if (keep > r->room / 2)
			drop(r, keep);
	}
	return n;
}

bool wire_resync_finish(struct wire_resync *r)
{
	if (r->found)
		return true;
	for (unsigned i = 0; i < r->npend; i++) {
		size_t at = r->pend[i];
		struct wire_hdr h;

		while (at + WIRE_HDR_LEN <= r->len && plausible_at(r, at, &h) &&
		       h.len <= r->len - at - WIRE_HDR_LEN)
			at += WIRE_HDR_LEN + h.len;
		if (at == r->len) {
			accept(r, r->pend[i]);
			return true;
		}
	}
	return false;
}

uint64_t wire_resync_flush(struct wire_resync *r)
{
	if (!r->found) {
		r->skipped += r->len;
		r->len = 0;
		r->scan = 0;
		r->npend = 0;
	}
	return r->skipped;
}
