// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * cases_data.c - rds-conform: what the peer's applications get. Delivery
 * both ways, and congestion, judged from the agent's reports of what its
 * sockets received rather than from the wire alone.
 */
#include "cases.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rds/rdsu_tcp.h>

static const uint32_t sizes[] = { 8, 47, 48, 49, 1000, 4095, 4096, 4097, 65535, 65536, 100000 };
#define N_SIZES (sizeof(sizes) / sizeof(sizes[0]))

CASE(case_deliver_in)
{
	const uint32_t count = 110;
	uint16_t q = cf_port(r), a = cf_port(r);
	struct cf_delivery *d;
	struct cf_conn *c;
	char addr[64];
	long n;

	cf_text(res->expected, "%u messages of 8 to 100000 bytes to one port arrive exactly once, "
		"in order, intact, from our address and port", count);
	if (!cf_need_agent(r, res))
		return;
	d = calloc(count + 16, sizeof(*d));
	if (!d || cf_agent_bind(r->agent, a, 0)) {
		cf_agent_failed(r, res, "bind", -EREMOTEIO);
		free(d);
		return;
	}
	if (cf_session(r, res, &r->cfg->local, 1, &c))
		goto out;
	for (uint32_t i = 0; i < count; i++)
		if (cf_send_data(c, q, a, i, sizes[i % N_SIZES], 0)) {
			cf_set(res, CF_ERROR, "sending message %u failed", i);
			cf_close(c, true);
			goto out;
		}
	n = cf_agent_take(r, res, a, count, d, count + 16);
	cf_drain(c, 50);
	cf_close(c, true);
	if (n < 0)
		goto out;
	for (long i = 0; i < n && i < (long)count + 16; i++) {
		if (!d[i].good || d[i].idx != (uint64_t)i ||
		    d[i].len != sizes[(size_t)i % N_SIZES] || d[i].sport != q ||
		    rdsu_addr_cmp(&d[i].from, &r->cfg->local)) {
			cf_set(res, CF_FAIL, "delivery %ld: message %lld of %u bytes from %s:%u%s", i,
			       d[i].good ? (long long)d[i].idx : -1LL, d[i].len,
			       cf_addr(&d[i].from, addr), d[i].sport,
			       d[i].good ? "" : " (content damaged)");
			goto out;
		}
	}
	if (n != (long)count)
		cf_set(res, CF_FAIL, "%ld of %u messages delivered", n, count);
	else
		cf_set(res, CF_PASS, "%u messages delivered once, in order, intact", count);
out:
	cf_agent_unbind(r->agent, a);
	free(d);
}

CASE(case_deliver_out)
{
	const uint32_t count = 100, size = 1000;
	uint16_t q = cf_port(r), a = cf_port(r);
	struct cf_conn *c;
	struct cf_sent st;
	struct cf_msg m;
	uint64_t want = 0, prev = 0;
	int err, got;

	cf_text(res->expected, "%u messages sent by the peer's socket arrive once, in order, "
		"intact, numbered one apart, from its port", count);
	if (!cf_need_agent(r, res))
		return;
	if (cf_session(r, res, &r->cfg->local, 1, &c))
		return;
	err = cf_agent_bind(r->agent, a, 0);
	if (!err)
		err = cf_agent_send(r->agent, a, &r->cfg->local, q, 0, count, size,
				    (uint32_t)r->wait_ms, &st);
	if (err || st.sent != count) {
		if (err)
			cf_agent_failed(r, res, "send", err);
		else
			cf_set(res, CF_ERROR, "the agent sent %u of %u (ENOBUFS %u, errno %d)", st.sent,
			       count, st.enobufs, st.err);
		goto out;
	}
	while (want < count && (got = cf_recv(c, &m, r->wait_ms)) > 0) {
		uint64_t idx;

		if (m.s->kind != WIRE_KIND_DATA || m.s->h.dport != q)
			continue;
		if (m.s->h.sport != a || !cf_idx_check(m.payload, m.len, &idx) || idx != want ||
		    m.len != size || (want && m.s->h.seq != prev + 1)) {
			cf_set(res, CF_FAIL, "message %llu: seq %llu (previous %llu), port %u, %u bytes, "
			       "content %s", (unsigned long long)want, (unsigned long long)m.s->h.seq,
			       (unsigned long long)prev, m.s->h.sport, m.len,
			       cf_idx_check(m.payload, m.len, &idx) ? "names another message" : "damaged");
			goto out;
		}
		prev = m.s->h.seq;
		want++;
	}
	if (want < count)
		cf_set(res, CF_FAIL, "%llu of %u messages came", (unsigned long long)want, count);
	else
		cf_set(res, CF_PASS, "%u messages, seq %llu..%llu", count,
		       (unsigned long long)(prev - count + 1), (unsigned long long)prev);
out:
	cf_close(c, true);
	cf_agent_unbind(r->agent, a);
}

/*
 * The congestion cases share one script: the agent binds a port with a
 * 64 KiB receive budget and stops reading it; we send 4 KiB messages
 * until a map with the port set arrives. A kernel congests after the
 * 17th (69632 > 65536 queued), not the 16th (" KB ": tcp_congestion).
 * Only rds31/cong/2 asks after which message: it sends one at a time and
 * waits a step for a map after each. The others only need the port
 * congested: they send the budget's worth and one more at once
 * (CONG_BURST) and step from there, so a peer that congests where a
 * kernel does costs them one step, not seventeen.
 */
#define CONG_RCVBUF 65536
#define CONG_MSG 4096
#define CONG_MAX 40
#define CONG_BURST (CONG_RCVBUF / CONG_MSG + 1)

struct cong {
	struct cf_conn *c;
	uint16_t q, a;
	unsigned sent;          /* messages sent */
	unsigned at;            /* sent when the congested map came; 0 never */
};

static bool map_has(const struct cf_conn *c, uint16_t port)
{
	return wire_cong_test(&c->map, port);
}

/* Receive until a map whose bit for |port| is |set|. */
static bool wait_map(struct cf_conn *c, uint16_t port, bool set, int ms)
{
	rdsu_ns end = cf_deadline(ms);
	struct cf_msg m;

	for (;;) {
		int left = cf_ms_left(end);

		if (!left || cf_recv(c, &m, left) <= 0)
			return false;
		if (m.s->kind == WIRE_KIND_CONG && m.len == WIRE_CONG_MAP_BYTES &&
		    map_has(c, port) == set)
			return true;
	}
}

/* Fill |g|'s port until a map says it is congested: |burst| messages
 * before the first wait for a map, then one per step. */
static int cong_fill(struct cf_run *r, struct cf_result *res, struct cong *g, unsigned burst)
{
	/* maps are no answer to anything: the floor, not the peer's pace */
	int step = r->cfg->timeout_ms / 10 < 100 ? 100 : r->cfg->timeout_ms / 10;

	memset(g, 0, sizeof(*g));
	if (!cf_need_agent(r, res))
		return -1;
	g->q = cf_port(r);
	g->a = cf_port(r);
	if (cf_agent_bind(r->agent, g->a, CONG_RCVBUF) || cf_agent_hold(r->agent, g->a, true)) {
		cf_agent_failed(r, res, "bind", -EREMOTEIO);
		return -1;
	}
	if (cf_session(r, res, &r->cfg->local, 1, &g->c))
		return -1;
	while (g->sent < CONG_MAX) {
		if (cf_send_data(g->c, g->q, g->a, g->sent, CONG_MSG, 0)) {
			cf_set(res, CF_ERROR, "sending message %u failed", g->sent);
			return -1;
		}
		g->sent++;
		if (g->sent < burst)
			continue;
		if (wait_map(g->c, g->a, true, step)) {
			g->at = g->sent;
			break;
		}
	}
	return 0;
}

/* Let the agent read again; take every delivery. Return: deliveries. */
static long cong_release(struct cf_run *r, struct cf_result *res, struct cong *g,
			 struct cf_delivery *d, size_t cap, unsigned expect)
{
	if (cf_agent_hold(r->agent, g->a, false)) {
		cf_agent_failed(r, res, "hold", -EREMOTEIO);
		return -1;
	}
	return cf_agent_take(r, res, g->a, expect, d, cap);
}

/* A port that never congested: nothing for this case to judge. */
static bool cong_never(struct cf_run *r, struct cf_result *res, struct cong *g)
{
	if (g->at)
		return false;
	cf_set(res, CF_SKIP, "the port never became congested");
	cf_text(res->reason, "rds31/cong/1 judges that");
	cong_release(r, res, g, NULL, 0, g->sent);
	return true;
}

/* cong_fill() and, when the port never congested, cong_never(): what the
 * cases that judge a congested port start with. Return: 0; -1 with the
 * verdict set. */
static int cong_start(struct cf_run *r, struct cf_result *res, struct cong *g)
{
	return cong_fill(r, res, g, CONG_BURST) || cong_never(r, res, g) ? -1 : 0;
}

static void cong_end(struct cf_run *r, struct cong *g)
{
	if (g->c)
		cf_close(g->c, true);
	if (g->a)
		cf_agent_unbind(r->agent, g->a);
}

CASE(case_cong_set)
{
	struct cong g;

	cf_text(res->expected, "a port whose queue exceeds its receive buffer is set in a map "
		"sent to us");
	if (!cong_fill(r, res, &g, CONG_BURST)) {
		if (g.at)
			cf_set(res, CF_PASS, "map with port %u set with %u x %u bytes sent (%u ports set)",
			       g.a, g.at, CONG_MSG, (unsigned)wire_cong_count(&g.c->map));
		else
			cf_set(res, CF_FAIL, "no map with port %u set after %u x %u bytes queued on a "
			       "%u-byte buffer", g.a, g.sent, CONG_MSG, CONG_RCVBUF);
		cong_release(r, res, &g, NULL, 0, g.sent);
	}
	cong_end(r, &g);
}

CASE(case_cong_threshold)
{
	struct cong g;
	const unsigned eq = CONG_RCVBUF / CONG_MSG;

	cf_text(res->expected, "congested when the queued bytes reach the receive buffer "
		"(%u x %u = %u)", eq, CONG_MSG, CONG_RCVBUF);
	if (!cong_fill(r, res, &g, 1)) {
		if (g.at == eq)
			cf_set(res, CF_PASS, "congested at %u bytes queued", g.at * CONG_MSG);
		else if (g.at == eq + 1) {
			cf_set(res, CF_NON_STRICT, "congested at %u bytes queued, not at %u",
			       g.at * CONG_MSG, CONG_RCVBUF);
			cf_text(res->reason, "kernels congest when the queue exceeds SO_RCVBUF, not "
				"when it equals it (" KB ": Congestion threshold)");
		} else if (g.at) {
			res->verdict = CF_INFO;
			cf_text(res->actual, "congested at %u bytes queued", g.at * CONG_MSG);
			cf_text(res->reason, "the agent's stack counts its receive budget differently");
		} else {
			cf_set(res, CF_SKIP, "never congested");
			cf_text(res->reason, "rds31/cong/1 judges that");
		}
		cong_release(r, res, &g, NULL, 0, g.sent);
	}
	cong_end(r, &g);
}

CASE(case_cong_accept)
{
	struct cf_delivery d[CONG_MAX + 8];
	struct cong g;
	long n;

	cf_text(res->expected, "messages sent to a port while it is congested are still accepted "
		"and delivered");
	if (cong_start(r, res, &g))
		goto out;
	for (int i = 0; i < 3; i++)
		cf_send_data(g.c, g.q, g.a, g.sent++, CONG_MSG, 0);
	n = cong_release(r, res, &g, d, CONG_MAX + 8, g.sent);
	if (n < 0)
		goto out;
	for (long i = 0; i < n && i < CONG_MAX + 8; i++) {
		if (!d[i].good || d[i].idx != (uint64_t)i) {
			cf_set(res, CF_FAIL, "delivery %ld is message %lld", i,
			       d[i].good ? (long long)d[i].idx : -1LL);
			goto out;
		}
	}
	if (n != (long)g.sent)
		cf_set(res, CF_FAIL, "%ld of %u delivered (3 sent while congested)", n, g.sent);
	else
		cf_set(res, CF_PASS, "all %u delivered, 3 of them sent while the port was congested",
		       g.sent);
out:
	cong_end(r, &g);
}

CASE(case_cong_clear)
{
	struct cong g;

	cf_text(res->expected, "when the congested port drains, a map with its bit clear follows");
	if (cong_start(r, res, &g))
		goto out;
	if (cong_release(r, res, &g, NULL, 0, g.sent) < 0)
		goto out;
	if (map_has(g.c, g.a) && !wait_map(g.c, g.a, false, r->wait_ms))
		cf_set(res, CF_FAIL, "port %u still set %d ms after the drain", g.a, r->wait_ms);
	else
		cf_set(res, CF_PASS, "map with port %u clear after the drain", g.a);
out:
	cong_end(r, &g);
}
