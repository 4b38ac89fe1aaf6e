// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * cases_hostile.c - rds-conform: input no correct node sends. The peer may
 * drop the connection it came on, but it must survive and keep serving its
 * other connections: a witness connection (path 0 of two) is pinged
 * before and after, while the hostile bytes go on path 1.
 */
#include "cases.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

struct hostile {
	struct cf_conn *w, *h;  /* witness (path 0), hostile (path 1) */
	uint16_t p;
};

static int hostile_open(struct cf_run *r, struct cf_result *res, struct hostile *x)
{
	struct cf_msg m;
	int err;

	memset(x, 0, sizeof(*x));
	x->p = cf_port(r);
	if (cf_session(r, res, &r->cfg->local, 2, &x->w))
		return -1;
	x->w->npaths = 2;
	/* The hostile bytes need a second path of their own. */
	if (cf_single_path(r, res))
		return -1;
	if (cf_ping(x->w, x->p, &m, r->wait_ms) <= 0) {
		cf_set(res, CF_ERROR, "the witness connection answered no ping");
		return -1;
	}
	err = cf_conn_path(r, 1, 2, &x->h);
	if (err) {
		cf_set(res, CF_ERROR, "cannot open path 1: %s", strerror(-err));
		return -1;
	}
	x->h->npaths = 2;
	return 0;
}

/* Judge survival: the witness still answers, before and after the
 * hostile connection is closed. */
static void hostile_judge(struct cf_run *r, struct cf_result *res, struct hostile *x,
			  const char *what)
{
	struct cf_msg m;
	const char *fate;

	switch (cf_wait_end(x->h, r->wait_ms / 4 + 1)) {
	case CF_END_RST:
		fate = "reset it";
		break;
	case CF_END_FIN:
		fate = "closed it";
		break;
	case CF_END_GARBAGE:
		fate = "answered with bytes that are not RDS";
		break;
	default:
		fate = "kept it open";
		break;
	}
	if (cf_ping(x->w, x->p, &m, r->wait_ms) <= 0) {
		cf_set(res, CF_FAIL, "after %s the peer stopped serving its other connection "
		       "(witness %s)", what,
		       x->w->closed == CF_RST ? "reset" : x->w->closed == CF_FIN ? "closed" :
		       "silent");
		return;
	}
	cf_close(x->h, true);
	x->h = NULL;
	if (cf_ping(x->w, x->p, &m, r->wait_ms) <= 0) {
		cf_set(res, CF_FAIL, "after %s the witness stopped answering once the hostile "
		       "connection was closed", what);
		return;
	}
	if (r->agent && !cf_agent_alive(r->agent)) {
		cf_set(res, CF_FAIL, "after %s the agent beside the peer is gone", what);
		return;
	}
	cf_set(res, CF_PASS, "after %s the peer %s and kept serving", what, fate);
}

static void hostile_close(struct hostile *x)
{
	cf_close(x->h, true);
	cf_close(x->w, true);
}

CASE(case_hostile_hlen)
{
	struct hostile x;
	struct wire_hdr h;
	uint8_t junk[64];

	cf_text(res->expected, "a header with h_len 0xfffffff0 neither crashes the peer nor "
		"stops its other connections");
	if (!hostile_open(r, res, &x)) {
		wire_build_data(&h, r->tx_seq++, cf_port(r), cf_port(r), 0xfffffff0u);
		memset(junk, 0xa5, sizeof(junk));
		cf_send(x.h, &h, junk, sizeof(junk));
		hostile_judge(r, res, &x, "an h_len of 4 GiB");
	}
	hostile_close(&x);
}

CASE(case_hostile_map_len)
{
	struct hostile x;
	struct wire_hdr h;
	struct cf_msg m;
	uint8_t *half = calloc(1, WIRE_CONG_MAP_BYTES / 2);

	cf_text(res->expected, "a congestion map of 4096 bytes is ignored: the stream stays framed "
		"and the peer keeps serving");
	if (!half) {
		cf_set(res, CF_ERROR, "out of memory");
		return;
	}
	if (!hostile_open(r, res, &x)) {
		memset(half, 0xff, WIRE_CONG_MAP_BYTES / 2);
		wire_build_cong(&h);
		h.len = WIRE_CONG_MAP_BYTES / 2;
		cf_send(x.h, &h, half, WIRE_CONG_MAP_BYTES / 2);
		/* The next message on the same connection must still be read
		 * as one: a ping after the short map. */
		if (cf_ping(x.h, x.p, &m, r->wait_ms) <= 0)
			cf_set(res, CF_FAIL, "a ping after the short map went unanswered (%s)",
			       x.h->closed ? "connection dropped" : "silent");
		else
			hostile_judge(r, res, &x, "a 4096-byte map");
	}
	free(half);
	hostile_close(&x);
}

CASE(case_hostile_truncated)
{
	struct hostile x;
	struct wire_hdr h;
	uint8_t part[10] = { 0 };

	cf_text(res->expected, "a message cut short by the connection's end is discarded; the "
		"peer keeps serving");
	if (!hostile_open(r, res, &x)) {
		wire_build_data(&h, r->tx_seq++, cf_port(r), cf_port(r), 1000);
		cf_send(x.h, &h, part, sizeof(part));
		shutdown(x.h->fd, SHUT_WR);
		hostile_judge(r, res, &x, "a truncated message and FIN");
	}
	hostile_close(&x);
}

CASE(case_hostile_garbage)
{
	struct hostile x;
	uint8_t junk[4096];
	uint64_t s = 0x243f6a8885a308d3ull;

	cf_text(res->expected, "4096 random bytes on a connection do not crash the peer or stop "
		"its other connections");
	if (!hostile_open(r, res, &x)) {
		for (size_t i = 0; i < sizeof(junk); i++) {
			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			junk[i] = (uint8_t)s;
		}
		cf_send_raw(x.h, junk, sizeof(junk));
		hostile_judge(r, res, &x, "4096 random bytes");
	}
	hostile_close(&x);
}
