// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * casekit.c - rds-conform: what the cases share (cases.h).
 */
#include "cases.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rds/rdsu_tcp.h>

void cf_set(struct cf_result *res, enum cf_verdict v, const char *fmt, ...)
{
	va_list ap;

	res->verdict = v;
	va_start(ap, fmt);
	vsnprintf(res->actual, CF_TEXT, fmt, ap);
	va_end(ap);
}

long cf_first_seq(const struct cf_conn *c, size_t from)
{
	for (size_t i = from; i < c->n_log; i++)
		if (c->log[i].kind != WIRE_KIND_CONG &&
		    !(c->log[i].h.flags & WIRE_FLAG_RETRANSMITTED))
			return (long)i;
	return -1;
}

int cf_ping(struct cf_conn *c, uint16_t sport, struct cf_msg *m, int ms)
{
	struct wire_hdr h;
	int err;

	wire_build_ping(&h, c->r->tx_seq++, sport);
	err = cf_send(c, &h, NULL, 0);
	if (err)
		return err;
	/* Whatever comes back to the pinging port: a faulty pong may not
	 * look like a pong at all. */
	for (;;) {
		int got = cf_recv(c, m, ms);

		if (got <= 0)
			return got;
		/* Not a resent pong of an earlier connection's ping. */
		if (m->s->h.dport == sport && m->s->kind != WIRE_KIND_CONG &&
		    !(m->s->h.flags & WIRE_FLAG_RETRANSMITTED))
			return 1;
	}
}

int cf_conn_path(struct cf_run *r, unsigned i, unsigned n, struct cf_conn **out)
{
	return cf_connect_path(r, &r->cfg->local, i, n, 0, out);
}

bool cf_need_agent(struct cf_run *r, struct cf_result *res)
{
	if (r->agent)
		return true;
	res->verdict = CF_SKIP;
	cf_text(res->reason, "needs the agent beside the peer (--agent ADDR[:PORT])");
	return false;
}

void cf_agent_failed(struct cf_run *r, struct cf_result *res, const char *what, int err)
{
	res->verdict = CF_ERROR;
	cf_text(res->reason, "agent: %s: %s", what,
		r->agent && cf_agent_error(r->agent)[0] ? cf_agent_error(r->agent) : strerror(-err));
}

/* Wait for |n| deliveries on the agent's |port|. Return: how many came,
 * or negative with res set to ERROR. */
long cf_agent_take(struct cf_run *r, struct cf_result *res, uint16_t port, uint32_t n,
		       struct cf_delivery *d, size_t cap)
{
	size_t got = 0, total = 0;
	rdsu_ns end = rdsu_clock() + (rdsu_ns)r->cfg->timeout_ms * RDSU_MSEC;

	while (total < n && rdsu_clock() < end) {
		int err = cf_agent_recv(r->agent, port, (uint32_t)(n - total), 200,
					d + (total < cap ? total : cap),
					total < cap ? cap - total : 0, &got);

		if (err) {
			cf_agent_failed(r, res, "recv", err);
			return -1;
		}
		total += got;
	}
	return (long)total;
}

