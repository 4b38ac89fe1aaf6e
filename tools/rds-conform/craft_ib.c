// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * craft_ib.c - rds-conform craft over IB: crafted messages through the
 * suite's IB node (node_ib.h) as RC SENDs, and what comes back.
 */
#include "craft.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "node_ib.h"
#include "rio.h"

#include <rds/rdsu_io.h>

struct craft_ib {
	struct cf_cfg cfg;
	struct cf_run run;
	struct cf_ibconn *c;
};

int craft_ib_open(const struct rdsu_addr *to, uint16_t port, const struct rdsu_addr *from,
		  struct craft_ib **out, char *why, size_t cap)
{
	struct craft_ib *x = calloc(1, sizeof(*x));
	uint8_t pd[WIRE_IBPD_V6_LEN];
	int err;

	*out = NULL;
	if (!x)
		return -ENOMEM;
	x->cfg.peer = *to;
	x->cfg.port = port;
	x->cfg.ib = true;
	x->cfg.timeout_ms = 5000;
	if (from) {
		x->cfg.local = *from;
	} else if (rio_route_source(to, &x->cfg.local) < 0) {
		snprintf(why, cap, "no route to the peer");
		free(x);
		return -EHOSTUNREACH;
	}
	x->run.cfg = &x->cfg;
	x->run.wait_ms = x->cfg.timeout_ms;
	x->run.tx_seq = 1;
	err = cf_ib_connect(&x->run, pd, cf_ib_pd(&x->run, WIRE_IBVER_3_1, 0, pd), 20, &x->c);
	if (err) {
		snprintf(why, cap, "%s", x->c ? x->c->why : strerror(-err));
		cf_ib_close(x->c);
		free(x);
		return err;
	}
	/* an observer: what the peer sends is printed, not answered */
	x->c->answer = false;
	x->c->ack = false;
	*out = x;
	return 0;
}

int craft_ib_send(struct craft_ib *x, const uint8_t *b, size_t n)
{
	uint8_t f[CF_IB_FRAME];
	size_t off = WIRE_HDR_LEN;
	int err;

	if (n <= WIRE_HDR_LEN) {
		err = cf_ib_send(x->c, b, n, true);
		goto out;
	}
	do {
		size_t fl = n - off < WIRE_FRAG_SIZE ? n - off : WIRE_FRAG_SIZE;

		memcpy(f, b, WIRE_HDR_LEN);
		memcpy(f + WIRE_HDR_LEN, b + off, fl);
		off += fl;
		err = cf_ib_send(x->c, f, WIRE_HDR_LEN + fl, off == n);
	} while (!err && off < n);
out:
	if (err)
		fprintf(stderr, "rds-conform craft: send over IB: %s\n",
			x->c->why[0] ? x->c->why : strerror(-err));
	return err;
}

void craft_ib_receive(struct craft_ib *x, struct out *o, long ms)
{
	rdsu_ns end = cf_deadline((int)ms);
	struct cf_ibmsg m;
	char line[512];
	size_t acks = 0;

	for (;;) {
		int left = cf_ms_left(end);

		if (!left || cf_ib_recv(x->c, &m, left) <= 0)
			break;
		craft_describe(&m.h, line, sizeof(line));
		out_printf(o, "recv: %s\n", line);
		out_flush(o);
		fflush(stdout);
	}
	for (size_t i = 0; i < x->c->n_frames; i++)
		if (x->c->frames[i].len == WIRE_HDR_LEN && !x->c->frames[i].h.sport &&
		    !x->c->frames[i].h.dport)
			acks++;
	out_printf(o, "received %zu frames (%zu ACK-only, %u fragments that did not fit); %s\n",
		   x->c->n_frames, acks, x->c->frag_errs,
		   x->c->closed ? x->c->why : "connection still up");
	out_flush(o);
}

void craft_ib_close(struct craft_ib *x)
{
	if (!x)
		return;
	cf_ib_close(x->c);
	free(x);
}
