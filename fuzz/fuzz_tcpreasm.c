// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * fuzz_tcpreasm.c - rdsdump's TCP reassembly over fuzz-chosen segments.
 *
 * Input: a 5-byte header, then records.
 *   header:  mode byte, then the ISN (be32).
 *            mode bits 0-1: ooo limit (16, 100, 4096, 65536);
 *                 bits 2-3: history (none, 7, 100, 8192);
 *                 bit 4:    consistent data: every copy of a sequence
 *                           number carries the same byte (pat(seq)), so
 *                           a CONFLICT is a bug and DATA must match;
 *                 bit 5:    jump limit 1000 instead of the default.
 *   record:  ctl byte: bit 0 FIN, bit 1 SYN, bit 2 RST, bit 3 truncated,
 *            bit 4 close (the rest of the input must then be refused),
 *            bits 5-7 scale;
 *            be16 signed offset from ISN + 1, shifted left by 3 * scale
 *            (so the whole sequence space, wrap-around included, is near);
 *            be16 length (masked to 0..4095);
 *            if truncated, one byte: cut = 16 * byte + 1 bytes off the end;
 *            without consistent data, the captured bytes from the input.
 *
 * Invariants: DATA, GAP and TRUNC tile the stream from 0 and their sum is
 * the next offset; counters equal the sums of their events; the arena
 * only grows, within the limits, and the history plus the held bytes fit
 * in it; every held byte lies in [next, next + ooo) and the held bitmap's
 * population is held_bytes <= ooo; DATA points into either
 * the segment or the arena; after close nothing is held and input is
 * refused; with consistent data there is no CONFLICT and DATA is exact.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tcpreasm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define LEN_MASK 0x0fff

static const size_t ooos[4] = { 16, 100, 4096, 65536 };
static const size_t hists[4] = { DUMP_TCP_HISTORY_NONE, 7, 100, 8192 };

static uint8_t segbuf[LEN_MASK + 1];

static uint8_t pat(uint32_t seq)
{
	return (uint8_t)((seq * 2654435761u) >> 24);
}

struct state {
	struct dump_tcp_dir d;
	bool consistent;
	size_t mem;
	uint64_t pos;
	uint64_t sum[DUMP_TCP_EV__COUNT];
	unsigned fins;
	const uint8_t *seg;
	size_t seglen;
};

/* Held bits over ring positions [p, p + n), p + n <= cap. */
static uint64_t pop_lin(const uint64_t *bm, size_t p, size_t n)
{
	uint64_t cnt = 0;

	while (n) {
		size_t b = p % 64, k = 64 - b;
		uint64_t m;

		if (k > n)
			k = n;
		m = (k == 64 ? ~0ull : (1ull << k) - 1) << b;
		cnt += (uint64_t)__builtin_popcountll(bm[p / 64] & m);
		p += k;
		n -= k;
	}
	return cnt;
}

/* Held bits over stream offsets [off, off + n), n <= cap. */
static uint64_t held_pop(const struct dump_tcp_dir *d, uint64_t off, uint64_t n)
{
	size_t p = (size_t)(off % d->cap), k = d->cap - p;

	if (k >= n)
		return pop_lin(d->held, p, (size_t)n);
	return pop_lin(d->held, p, k) + pop_lin(d->held, 0, (size_t)n - k);
}

static void check_state(struct state *st)
{
	const struct dump_tcp_dir *d = &st->d;
	const struct dump_tcp_stats *s = dump_tcp_dir_stats(d);
	uint64_t all, ahead, win;
	size_t max = d->ooo_max + d->hist_max;

	/* the arena only grows, up to what the limits allow */
	if (dump_tcp_dir_mem(d) < st->mem ||
	    dump_tcp_dir_mem(d) > max + 2 * (max / 64 + 1) * sizeof(uint64_t) ||
	    d->cap > max)
		abort();
	st->mem = dump_tcp_dir_mem(d);
	if (s->held_bytes > d->ooo_max || s->held_max > d->ooo_max)
		abort();
	if (dump_tcp_dir_next_offset(d) != st->pos)
		abort();
	if (s->bytes != st->sum[DUMP_TCP_EV_DATA] ||
	    s->gap_bytes != st->sum[DUMP_TCP_EV_GAP] ||
	    s->trunc_bytes != st->sum[DUMP_TCP_EV_TRUNC] ||
	    s->retrans_bytes != st->sum[DUMP_TCP_EV_RETRANS] ||
	    s->conflict_bytes != st->sum[DUMP_TCP_EV_CONFLICT] ||
	    s->after_fin_bytes != st->sum[DUMP_TCP_EV_AFTER_FIN])
		abort();
	if (s->bytes + s->gap_bytes + s->trunc_bytes != st->pos)
		abort();
	if (s->unchecked_bytes > s->retrans_bytes)
		abort();
	/* the live span (history, then held bytes) fits in the ring */
	ahead = d->held_end > d->next ? d->held_end - d->next : 0;
	if (!d->cap) {
		if (s->held_bytes || d->hist_len)
			abort();
		return;
	}
	if (d->hist_len + (s->held_bytes ? ahead : 0) > d->cap)
		abort();
	win = d->cap - d->hist_len < d->ooo_max ? d->cap - d->hist_len : d->ooo_max;
	all = held_pop(d, 0, d->cap);
	if (all != s->held_bytes || held_pop(d, d->next, win) != all)
		abort();
}

static void drain(struct state *st)
{
	struct dump_tcp_ev ev;
	int rc;

	while ((rc = dump_tcp_dir_next_event(&st->d, &ev)) == 1) {
		const struct dump_tcp_dir *d = &st->d;

		if (ev.type <= DUMP_TCP_EV_NONE || ev.type >= DUMP_TCP_EV__COUNT)
			abort();
		st->sum[ev.type] += ev.len;
		if (ev.type == DUMP_TCP_EV_DATA) {
			if (!ev.data)
				abort();
			if (ev.held) {
				if (ev.data < d->ring || ev.len > d->cap ||
				    (size_t)(ev.data - d->ring) > d->cap - ev.len)
					abort();
			} else {
				if (ev.data < st->seg || ev.len > st->seglen ||
				    (size_t)(ev.data - st->seg) > st->seglen - ev.len)
					abort();
			}
			if (st->consistent)
				for (uint64_t i = 0; i < ev.len; i++)
					if (ev.data[i] != pat(ev.seq + (uint32_t)i))
						abort();
		} else if (ev.data) {
			abort();
		}
		switch (ev.type) {
		case DUMP_TCP_EV_DATA:
		case DUMP_TCP_EV_GAP:
		case DUMP_TCP_EV_TRUNC:
			if (ev.offset != st->pos || ev.len == 0)
				abort();
			if (ev.seq != d->base_seq + (uint32_t)ev.offset)
				abort();
			st->pos += ev.len;
			break;
		case DUMP_TCP_EV_FIN:
			if (ev.offset != st->pos || ++st->fins > 1)
				abort();
			break;
		case DUMP_TCP_EV_CONFLICT:
			if (st->consistent || ev.len == 0)
				abort();
			break;
		case DUMP_TCP_EV_RETRANS:
			if (ev.aux > ev.len || ev.len == 0)
				abort();
			break;
		default:
			break;
		}
	}
	if (rc != 0)
		abort();
	check_state(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct state st;
	struct dump_tcp_limits lim = { 0 };
	size_t pos = 0;
	uint32_t isn;
	uint8_t mode;
	bool closed = false;

	if (size < 5)
		return 0;
	mode = data[0];
	isn = (uint32_t)data[1] << 24 | (uint32_t)data[2] << 16 |
	      (uint32_t)data[3] << 8 | data[4];
	pos = 5;
	memset(&st, 0, sizeof(st));
	lim.ooo = ooos[mode & 3];
	lim.history = hists[(mode >> 2) & 3];
	lim.jump = (mode & 0x20) ? 1000 : 0;
	st.consistent = mode & 0x10;
	if (dump_tcp_dir_init(&st.d, &lim) != 0)
		abort();
	st.mem = dump_tcp_dir_mem(&st.d);

	while (size - pos >= 5) {
		struct dump_tcp_seg seg = { 0 };
		uint8_t ctl = data[pos];
		int16_t rel = (int16_t)(uint16_t)((unsigned)data[pos + 1] << 8 | data[pos + 2]);
		size_t len = ((size_t)data[pos + 3] << 8 | data[pos + 4]) & LEN_MASK;
		size_t caplen = len;
		unsigned scale = 3 * (ctl >> 5);
		int rc;

		pos += 5;
		if (ctl & 0x10) {
			rc = dump_tcp_dir_close(&st.d);
			if (rc != 0)
				abort();
			drain(&st);
			if (st.d.st.held_bytes != 0)
				abort();
			closed = true;
			continue;
		}
		if ((ctl & 0x08) && pos < size) {
			size_t cut = 16 * (size_t)data[pos++] + 1;

			caplen = cut < len ? len - cut : 0;
		}
		seg.flags = ctl & (DUMP_TCP_FIN | DUMP_TCP_SYN | DUMP_TCP_RST);
		seg.seq = isn + 1 + (uint32_t)(int32_t)rel * (1u << scale);
		if (seg.flags & DUMP_TCP_SYN)
			seg.seq--;
		if (st.consistent) {
			uint32_t first = seg.seq + ((seg.flags & DUMP_TCP_SYN) ? 1 : 0);

			for (size_t i = 0; i < caplen; i++)
				segbuf[i] = pat(first + (uint32_t)i);
		} else {
			size_t n = caplen < size - pos ? caplen : size - pos;

			memcpy(segbuf, data + pos, n);
			memset(segbuf + n, 0, caplen - n);
			pos += n;
		}
		seg.data = segbuf;
		seg.caplen = caplen;
		seg.len = len;
		st.seg = segbuf;
		st.seglen = caplen;
		rc = dump_tcp_dir_input(&st.d, &seg);
		if (closed) {
			if (rc != DUMP_TCP_ERR_CLOSED)
				abort();
			continue;
		}
		if (rc != 0)
			abort();
		drain(&st);
	}
	if (!closed) {
		if (dump_tcp_dir_close(&st.d) != 0)
			abort();
		drain(&st);
		if (st.d.st.held_bytes != 0)
			abort();
	}
	dump_tcp_dir_fini(&st.d);
	return 0;
}
