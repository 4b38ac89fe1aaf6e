/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * resync.h - rdsdump: find the next RDS header in a TCP stream whose framing
 * was lost (the capture started mid-connection, bytes were never captured,
 * or a header claimed an absurd length).
 *
 * RDS/TCP has no record marker, so a header is recognised by what the
 * kernel always writes into one on TCP: h_ack 0, h_credit 0, zero padding,
 * only flags a TCP sender sets, an extension area a receiver can walk, a
 * length within the limit, and a sequence number that is not 0 unless the
 * message is a congestion map. One such header could be payload by chance;
 * two in a row at the distance the first one's h_len gives almost cannot,
 * so a candidate is accepted when its successor is plausible too, or when
 * its sequence number is the one the path expects next. A candidate whose
 * successor has not arrived yet waits, but does not block a later candidate
 * that confirms first: the typical false candidate is a real header seen a
 * few bytes off, whose length field then reads as something huge. With a
 * window of max_len + 2 headers every candidate can be confirmed; a smaller
 * window accepts one too large for it on its own.
 *
 * Pure; the window is the caller's buffer, so memory is fixed.
 */
#ifndef DUMP_RESYNC_H
#define DUMP_RESYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <wire/wire.h>

struct dump_resync {
	uint8_t *win;           /* caller's window */
	size_t cap;             /* what the window may grow to: judges by it */
	size_t room;            /* bytes at win now (<= cap) */
	size_t len;             /* bytes in the window */
	size_t scan;            /* offsets below this were looked at */
	size_t pend[16];        /* candidates waiting for their successor */
	unsigned npend;
	uint32_t max_len;
	bool have_hint;
	uint64_t hint_seq;      /* next sequence number the path expects */
	uint64_t skipped;       /* bytes given up since the last reset */
	bool found;             /* win[start..len) begins with a header */
	size_t start;
};

/* dump_hdr_plausible() - could these 48 bytes be a header a kernel wrote
 * on TCP? */
bool dump_hdr_plausible(const struct wire_hdr *h, uint32_t max_len);

/* dump_resync_init() - |win| of |cap| bytes (at least 2 headers' worth). */
void dump_resync_init(struct dump_resync *r, uint8_t *win, size_t cap, uint32_t max_len);
/*
 * A window may also start smaller and grow: the verdicts are those of a
 * |cap| window as long as the caller grows it to dump_resync_want() before
 * each feed; where it cannot, the window drops its oldest bytes at |room|
 * as a full one does at |cap|.
 * dump_resync_want() - bytes the window should have to take |len| more
 * without dropping any (never above cap; room when that is enough).
 * dump_resync_set_win() - the window is now |win| of |room| bytes, holding
 * the same first r->len bytes (realloc keeps them).
 */
size_t dump_resync_want(const struct dump_resync *r, size_t len);
void dump_resync_set_win(struct dump_resync *r, uint8_t *win, size_t room);
/* dump_resync_reset() - start looking again; |hint| NULL if no sequence
 * number is expected. */
void dump_resync_reset(struct dump_resync *r, const uint64_t *hint);
/*
 * dump_resync_feed() - take stream bytes. Return: bytes taken (> 0 when
 * len > 0 and nothing was found yet; 0 once found). When r->found is set,
 * win[start..len) is the stream from the header on, and r->skipped the
 * bytes before it that were given up.
 */
size_t dump_resync_feed(struct dump_resync *r, const uint8_t *data, size_t len);
/*
 * dump_resync_finish() - the stream ends here: a waiting candidate whose
 * chain of plausible headers ends exactly at the last byte is confirmed by
 * that (a capture that starts mid-stream and holds one message more).
 * Return: true and r->found set, or false.
 */
bool dump_resync_finish(struct dump_resync *r);
/*
 * dump_resync_flush() - the stream ended (or broke) while looking: every
 * byte in the window is given up. Return: r->skipped after that.
 */
uint64_t dump_resync_flush(struct dump_resync *r);

#endif /* DUMP_RESYNC_H */
