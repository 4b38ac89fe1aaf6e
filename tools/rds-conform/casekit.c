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

bool cf_pings_unanswered(const struct cf_run *r)
{
	return r->peer.pongs == 0 && r->peer.pings_unanswered > 0;
}

int cf_ping(struct cf_conn *c, uint16_t sport, struct cf_msg *m, int ms)
{
	struct cf_peer *p = &c->r->peer;
	int wait = cf_answer_wait(c->r, cf_pings_unanswered(c->r), c->r->own_ping);
	struct wire_hdr h;
	int err, got;

	if (wait < ms)
		ms = wait;
	wire_build_ping(&h, c->r->tx_seq++, sport);
	err = cf_send(c, &h, NULL, 0);
	if (err)
		return err;
	/* Whatever comes back to the pinging port: a faulty pong may not
	 * look like a pong at all. */
	got = cf_recv_until(c, CF_KIND_ANSWER, sport, m, ms);
	if (got == 0)
		p->pings_unanswered++;
	else if (got > 0)
		p->pongs++;
	return got;
}

bool cf_no_probe_pong(struct cf_run *r, struct cf_result *res, enum cf_verdict v,
		      const char *owner)
{
	if (r->peer.probed)
		return false;
	if (v == CF_SKIP || v == CF_INFO) {
		res->verdict = v;
		cf_text(res->actual, "no probe pong within %d ms", r->peer.waited_ms);
	} else {
		cf_set(res, v, "no probe pong within %d ms", r->peer.waited_ms);
	}
	cf_text(res->reason, "after our probe ping came %s%s%s%s", r->peer.instead,
		r->peer.waited_ms < r->wait_ms ? " (no probe of this run has been "
		"answered, so the wait was a few of the peer's answer times)" : "",
		owner ? "; " : "", owner ? owner : "");
	return true;
}

bool cf_single_path(struct cf_run *r, struct cf_result *res)
{
	if (r->peer.paths >= 2)
		return false;
	res->verdict = CF_SKIP;
	if (r->peer.probed)
		cf_text(res->reason, "single-path peer: it agreed to %u path", r->peer.paths);
	else
		cf_text(res->reason, "no probe pong, so no path count agreed: the session stays on "
			"one path, as a kernel's does (after our probe ping came %s; linux/probe/3 "
			"judges that)", r->peer.instead);
	return true;
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
	rdsu_ns end = rdsu_clock() + (rdsu_ns)r->wait_ms * RDSU_MSEC;

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

