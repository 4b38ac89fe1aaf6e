// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * deframe.c - incremental RDS/TCP stream deframer.
 * Ref: net/rds/tcp_recv.c rds_tcp_data_recv() (t_tinc_hdr_rem,
 * t_tinc_data_rem): [48-byte header][h_len bytes], back to back.
 *
 * The hot path handles a header and payload that lie whole in the caller's
 * chunk without copying; only records split across chunks are gathered, into
 * the caller's buffer. Nothing here allocates, and an h_len above the limit
 * is refused before any of its payload is taken. In lend mode the caller
 * grows the buffer as payload bytes actually arrive, so what a peer's
 * h_len claims never sizes an allocation by itself.
 */
#include <wire/wire.h>

#include <string.h>

#include "hdrio.h"

/* What the three inits share: |d| reset for messages up to |max_len| (0:
 * WIRE_MAX_MSG_LEN) gathered into |buf| of |cap| bytes, which must hold the
 * largest unless only a |prefix| of each payload is kept. */
static int deframer_setup(struct wire_deframer *d, uint32_t max_len, uint8_t *buf, size_t cap,
			  bool prefix)
{
	if (!d || (prefix && !buf && cap))
		return WIRE_ERR_INVAL;
	memset(d, 0, sizeof(*d));
	d->max_len = max_len ? max_len : WIRE_MAX_MSG_LEN;
	d->hole = UINT32_MAX;
	if (!prefix && buf && cap < d->max_len)
		return WIRE_ERR_INVAL;
	d->buf = buf;
	d->cap = buf ? cap : 0;
	d->prefix = prefix;
	return 0;
}

int wire_deframer_init(struct wire_deframer *d, uint32_t max_len, uint8_t *buf, size_t cap)
{
	return deframer_setup(d, max_len, buf, cap, false);
}

int wire_deframer_init_prefix(struct wire_deframer *d, uint32_t max_len, uint8_t *buf,
			      size_t cap)
{
	return deframer_setup(d, max_len, buf, cap, true);
}

int wire_deframer_init_lend(struct wire_deframer *d, uint32_t max_len)
{
	int rc = deframer_setup(d, max_len, NULL, 0, false);

	if (!rc)
		d->lend = true;
	return rc;
}

size_t wire_deframer_need(const struct wire_deframer *d)
{
	if (!d || !d->lend || !d->in_data || d->dgot < d->cap || d->dgot >= d->hdr.len)
		return 0;
	return d->hdr.len;
}

int wire_deframer_set_buf(struct wire_deframer *d, uint8_t *buf, size_t cap)
{
	if (!d || !d->lend || (!buf && cap) || cap < d->dgot)
		return WIRE_ERR_INVAL;
	d->buf = buf;
	d->cap = cap;
	return 0;
}

const struct wire_hdr *wire_deframer_hdr(const struct wire_deframer *d)
{
	return &d->hdr;
}

bool wire_deframer_pending(const struct wire_deframer *d)
{
	return d->hgot > 0 || d->in_data;
}

static void emit(struct wire_deframer *d, struct wire_frame *out, const uint8_t *payload)
{
	out->hdr = d->hdr;
	out->payload = payload;
	out->len = d->hdr.len;
	out->caplen = payload == d->buf && d->prefix && d->hdr.len > d->cap ?
		(uint32_t)d->cap : d->hdr.len;
	if (out->caplen > d->hole)
		out->caplen = d->hole;
	d->hole = UINT32_MAX;
	out->offset = d->msg_offset;
	d->in_data = false;
	d->dgot = 0;
}

ssize_t wire_deframer_skip(struct wire_deframer *d, size_t len, struct wire_frame *out,
			   bool *ready)
{
	uint32_t need;
	size_t n;

	*ready = false;
	if (d->failed)
		return d->failed;
	if (!d->in_data)
		return 0;
	need = d->hdr.len - d->dgot;
	n = len < need ? len : need;
	if (d->dgot < d->hole)
		d->hole = d->dgot;
	d->dgot += (uint32_t)n;
	d->offset += n;
	if (d->dgot == d->hdr.len) {
		/* nothing of it may be handed out in place: it is not whole */
		emit(d, out, d->buf);
		*ready = true;
	}
	return (ssize_t)n;
}

ssize_t wire_deframer_input(struct wire_deframer *d, const uint8_t *in, size_t len,
			    struct wire_frame *out, bool *ready)
{
	size_t used = 0;

	*ready = false;
	if (d->failed)
		return d->failed;
	if (!in && len)
		return WIRE_ERR_INVAL;

	if (!d->in_data) {
		if (d->hgot == 0)
			d->msg_offset = d->offset;
		if (d->hgot == 0 && len >= WIRE_HDR_LEN) {
			wire_hdr_read(&d->hdr, in);
			used = WIRE_HDR_LEN;
		} else {
			size_t n = WIRE_HDR_LEN - d->hgot;

			if (n > len)
				n = len;
			memcpy(d->hbuf + d->hgot, in, n);
			d->hgot += (uint32_t)n;
			used = n;
			if (d->hgot < WIRE_HDR_LEN)
				goto out;
			wire_hdr_read(&d->hdr, d->hbuf);
			d->hgot = 0;
		}
		if (d->hdr.len > d->max_len) {
			d->offset += used;
			d->failed = WIRE_ERR_TOOBIG;
			return WIRE_ERR_TOOBIG;
		}
		d->in_data = true;
		d->dgot = 0;
	}

	{
		uint32_t need = d->hdr.len - d->dgot;
		size_t left = len - used;

		if (d->dgot == 0 && left >= need) {
			emit(d, out, in + used);
			used += need;
			*ready = true;
			goto out;
		}
		if (left > need)
			left = need;
		if (d->lend) {
			/* Gather what fits; when full, stop until the caller
			 * lends more (wire_deframer_need). */
			if (left > d->cap - d->dgot)
				left = d->cap - d->dgot;
			if (left == 0)
				goto out;
		} else if (!d->buf && !d->prefix) {
			d->failed = WIRE_ERR_NOSPACE;
			return WIRE_ERR_NOSPACE;
		}
		if (d->dgot < d->cap) {
			size_t keep = d->cap - d->dgot;

			memcpy(d->buf + d->dgot, in + used, keep < left ? keep : left);
		}
		d->dgot += (uint32_t)left;
		used += left;
		if (d->dgot == d->hdr.len) {
			emit(d, out, d->buf);
			*ready = true;
		}
	}
out:
	d->offset += used;
	return (ssize_t)used;
}
