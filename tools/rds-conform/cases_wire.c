// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * cases_wire.c - rds-conform: what the peer puts in its headers: framing,
 * reserved fields, sequence numbers, ping and pong, the probe and its
 * extension headers. Each case opens its own session (map and probe ping
 * from the smaller address, as a kernel's path 0), so any one of them can
 * be run alone.
 */
#include "cases.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rds/rdsu_tcp.h>

/* A session and two pings, the exchange most header cases judge. */
static int exchange(struct cf_run *r, struct cf_result *res, struct cf_conn **out)
{
	uint16_t p = cf_port(r);
	struct cf_msg m;

	if (cf_session(r, res, &r->cfg->local, 1, out))
		return -1;
	for (int i = 0; i < 2; i++)
		if (cf_ping(*out, p, &m, r->wait_ms) < 0)
			break;
	cf_drain(*out, 100);
	return 0;
}

static const char *kind_of(const struct cf_seen *s)
{
	return wire_kind_name(s->kind);
}

/* A case judged on the headers of one exchange(): |judge| sets the
 * verdict from the connection's log. */
static void on_exchange(struct cf_run *r, struct cf_result *res, const char *expected,
			void (*judge)(struct cf_result *res, const struct cf_conn *c))
{
	struct cf_conn *c;

	cf_text(res->expected, "%s", expected);
	if (exchange(r, res, &c))
		return;
	judge(res, c);
	cf_close(c, true);
}

static void judge_framing(struct cf_result *res, const struct cf_conn *c)
{
	size_t big = 0;

	for (size_t i = 0; i < c->n_log; i++)
		if (c->log[i].h.len > WIRE_MAX_MSG_LEN)
			big++;
	if (c->deframe_err)
		cf_set(res, CF_FAIL, "the stream could not be framed after %zu messages (%s)", c->n_log,
		       wire_strerror(c->deframe_err));
	else if (c->n_log == 0)
		cf_set(res, CF_FAIL, "no message framed");
	else
		cf_set(res, CF_PASS, "%zu messages framed, %zu with h_len above 1 MiB", c->n_log, big);
}

CASE(case_header_framing)
{
	on_exchange(r, res, "every message is a 48-byte header and h_len (<= 1 MiB) payload bytes",
		    judge_framing);
}

static void judge_csum(struct cf_result *res, const struct cf_conn *c)
{
	size_t zero = 0, good = 0, bad = 0;

	for (size_t i = 0; i < c->n_log; i++) {
		if (c->log[i].h.csum == 0)
			zero++;
		else if (wire_hdr_csum_ok(&c->log[i].h))
			good++;
		else
			bad++;
	}
	if (bad)
		cf_set(res, CF_FAIL, "%zu of %zu headers carry a wrong checksum", bad, c->n_log);
	else if (zero) {
		cf_set(res, CF_NON_STRICT, "%zu of %zu headers have h_csum 0", zero, c->n_log);
		cf_text(res->reason, "RDS/TCP kernels never compute h_csum (only IB does); a "
			"receiver takes 0 as no checksum (" KB ": TCP h_ack, h_credit, h_csum always 0)");
	} else
		cf_set(res, CF_PASS, "all %zu headers checksummed", good);
}

CASE(case_header_csum)
{
	on_exchange(r, res, "h_csum is the 1's complement checksum of the header", judge_csum);
}

static void judge_reserved(struct cf_result *res, const struct cf_conn *c)
{
	for (size_t i = 0; i < c->n_log; i++) {
		const struct cf_seen *s = &c->log[i];

		if (wire_rules_has(&s->rules, WIRE_RULE_HDR_PAD_NONZERO) ||
		    wire_rules_has(&s->rules, WIRE_RULE_HDR_FLAGS_UNKNOWN)) {
			cf_set(res, CF_NON_STRICT,
			       "%s seq %llu: h_flags 0x%02x, padding %02x%02x%02x%02x", kind_of(s),
			       (unsigned long long)s->h.seq, s->h.flags, s->h.pad[0], s->h.pad[1],
			       s->h.pad[2], s->h.pad[3]);
			cf_text(res->reason, "a SHOULD: receivers ignore both");
			return;
		}
	}
	cf_set(res, CF_PASS, "%zu headers, padding zero, known flags only", c->n_log);
}

CASE(case_header_reserved)
{
	on_exchange(r, res, "h_padding 0 and no h_flags bit outside 0x01..0x20", judge_reserved);
}

static void judge_ack(struct cf_result *res, const struct cf_conn *c)
{
	size_t acks = 0;

	for (size_t i = 0; i < c->n_log; i++)
		if (c->log[i].h.ack)
			acks++;
	if (acks) {
		cf_set(res, CF_PASS, "%zu of %zu headers carry an h_ack", acks, c->n_log);
	} else {
		cf_set(res, CF_NON_STRICT, "h_ack 0 in all %zu headers", c->n_log);
		cf_text(res->reason, "on RDS/TCP a message counts as acknowledged when TCP acknowledges "
			"its last byte; kernels leave h_ack 0 (" KB " K4.3; " KB
			": TCP h_ack always 0)");
	}
}

CASE(case_ack_piggyback)
{
	on_exchange(r, res, "h_ack carries the latest sequence number received", judge_ack);
}

static void judge_tcp_no_acks(struct cf_result *res, const struct cf_conn *c)
{
	for (size_t i = 0; i < c->n_log; i++) {
		const struct cf_seen *s = &c->log[i];

		if (s->h.ack || s->h.credit || (s->h.flags & WIRE_FLAG_ACK_REQUIRED)) {
			cf_set(res, CF_FAIL, "%s seq %llu: h_ack %llu, h_credit %u, h_flags 0x%02x",
			       kind_of(s), (unsigned long long)s->h.seq,
			       (unsigned long long)s->h.ack, s->h.credit, s->h.flags);
			return;
		}
	}
	cf_set(res, CF_PASS, "%zu headers, none acknowledging at the RDS level", c->n_log);
}

CASE(case_tcp_no_acks)
{
	on_exchange(r, res, "h_ack 0, h_credit 0 and no ACK_REQUIRED on every RDS/TCP header",
		    judge_tcp_no_acks);
}

/* A session and a ping; the pong's number. Return: 0; 1 when no pong
 * came (*c still open); -1 with res set. */
static int session_pong(struct cf_run *r, struct cf_result *res, uint16_t p,
			struct cf_conn **c, uint64_t *seq)
{
	struct cf_msg m;

	if (cf_session(r, res, &r->cfg->local, 1, c))
		return -1;
	if (cf_ping(*c, p, &m, r->wait_ms) <= 0)
		return 1;
	*seq = m.s->h.seq;
	return 0;
}

/* A case that numbers the peer's pongs, against a peer that answers no
 * ping: nothing of its numbering to ask for. */
static void no_pongs(struct cf_result *res)
{
	res->verdict = CF_SKIP;
	cf_text(res->reason, "the peer answers no pings, so nothing it numbers can be asked "
		"for (rds31/ping/1 judges that)");
}

/* A message numbered 0 in the log (rule seq.zero), or NULL. */
static const struct cf_seen *seq_zero(const struct cf_conn *c)
{
	for (size_t i = 0; i < c->n_log; i++)
		if (wire_rules_has(&c->log[i].rules, WIRE_RULE_SEQ_ZERO))
			return &c->log[i];
	return NULL;
}

CASE(case_seq_start)
{
	uint16_t p = cf_port(r);
	const struct cf_seen *z;
	struct cf_seen zero;    /* a copy: the log goes with its connection */
	struct cf_conn *c;
	uint64_t first_seq = 0, after;
	enum wire_kind first_kind = WIRE_KIND_DATA;
	long first;

	/*
	 * A peer numbers from 1 when it first meets us, and again when we
	 * come back as a new generation (rds_conn_peer_gen_update): the
	 * second is observable however many runs came before. The reset
	 * comes after the probe pong is queued (rds_recv_incoming sends the
	 * pong, then reads the extension headers), so the pong to our next
	 * ping is the first message of the new numbering.
	 */
	int got;

	cf_text(res->expected, "numbering starts at 1: the first message after we return as a new "
		"generation is seq 1, and no message is ever seq 0");
	got = session_pong(r, res, p, &c, &after);
	if (got < 0)
		return;
	first = cf_first_seq(c, 0);
	if (first >= 0) {
		first_seq = c->log[first].h.seq;
		first_kind = c->log[first].kind;
	}
	z = seq_zero(c);
	if (z)
		zero = *z;
	cf_close(c, true);
	if (got == 1) {
		/* Without pongs only what the peer sent of itself is numbered
		 * (a probe ping of its own, if it sent one). */
		if (z)
			cf_set(res, CF_FAIL, "%s with seq 0", wire_kind_name(zero.kind));
		else if (first_seq == 1)
			cf_set(res, CF_PASS, "the first message numbered was seq 1 (the peer answers "
			       "no pings)");
		else
			no_pongs(res);
		/* A later number proves nothing: a path's numbering goes on
		 * across connections (docs/kernel-behaviour.md K4.4), and only
		 * a new generation, learnt from a probe ping it does not
		 * answer, restarts it. */
		if (first >= 0 && first_seq != 1)
			cf_text(res->reason, "the peer answers no pings, and its first message here "
				"(%s seq %llu) goes on from an earlier connection's numbering, as a "
				"path's does (" KB " K4.4): nothing numbered anew can be asked for "
				"(rds31/ping/1 judges that)", wire_kind_name(first_kind),
				(unsigned long long)first_seq);
		return;
	}
	if (!z) {
		r->gen++;
		if (session_pong(r, res, p, &c, &after)) {
			if (res->verdict == CF__VERDICTS) {
				cf_set(res, CF_FAIL, "the peer answered our ping before our new "
				       "generation but not after it");
				cf_close(c, true);
			}
			return;
		}
		z = seq_zero(c);
		if (z)
			zero = *z;
		cf_close(c, true);
	}
	if (z)
		cf_set(res, CF_FAIL, "%s%s with seq 0", wire_kind_name(zero.kind),
		       zero.h.flags & WIRE_FLAG_RETRANSMITTED ? " (RETRANSMITTED)" : "");
	else if (after == 1)
		cf_set(res, CF_PASS, "after our new generation the peer numbered from 1");
	else if (first_seq == 1) {
		cf_set(res, CF_PASS, "the first message numbered was seq 1; after our new generation "
		       "the peer went on at %llu", (unsigned long long)after);
		cf_text(res->reason, "the peer keeps its numbering across our generations "
			"(rds31/gen/2 judges that)");
	} else
		cf_set(res, CF_FAIL, "first message numbered %llu; after our new generation %llu",
		       (unsigned long long)first_seq, (unsigned long long)after);
}

CASE(case_seq_step)
{
	uint16_t p = cf_port(r);
	struct cf_conn *c;
	struct cf_msg m;
	long from = -1;

	cf_text(res->expected, "each sequenced message (pings and pongs included) is the previous + 1");
	if (cf_session(r, res, &r->cfg->local, 1, &c))
		return;
	for (int i = 0; i < 5; i++)
		if (cf_ping(c, p, &m, r->wait_ms) <= 0)
			break;
	cf_drain(c, 100);
	if (cf_pings_unanswered(r)) {
		no_pongs(res);
		cf_close(c, true);
		return;
	}
	/* From the probe pong on: what a peer sent before it learnt of
	 * this connection may be numbered from older state. Without a
	 * probe pong, from its first numbered message. */
	for (size_t i = 0; i < c->n_log; i++)
		if (c->log[i].kind == WIRE_KIND_PROBE_PONG &&
		    !(c->log[i].h.flags & WIRE_FLAG_RETRANSMITTED))
			from = (long)i;
	if (from < 0 && !r->peer.probed)
		from = cf_first_seq(c, 0);
	if (from < 0 || c->n_log - (size_t)from < (r->peer.probed ? 6u : 5u)) {
		cf_set(res, CF_FAIL, "only %zu sequenced messages after the %s; 5 pongs were due",
		       from < 0 ? 0 : c->n_log - (size_t)from,
		       r->peer.probed ? "probe pong" : "first");
		cf_close(c, true);
		return;
	}
	uint64_t prev = c->log[from].h.seq;
	size_t n = 1;

	for (size_t i = (size_t)from + 1; i < c->n_log; i++) {
		const struct cf_seen *s = &c->log[i];

		/* maps take no number; a resent message keeps its old one */
		if (s->kind == WIRE_KIND_CONG || (s->h.flags & WIRE_FLAG_RETRANSMITTED))
			continue;
		if (s->h.seq != prev + 1) {
			cf_set(res, CF_FAIL, "%s seq %llu follows seq %llu", kind_of(s),
			       (unsigned long long)s->h.seq, (unsigned long long)prev);
			cf_close(c, true);
			return;
		}
		prev = s->h.seq;
		n++;
	}
	cf_set(res, CF_PASS, "%zu messages numbered %llu..%llu", n,
	       (unsigned long long)c->log[from].h.seq, (unsigned long long)prev);
	cf_close(c, true);
}

CASE(case_seq_reconnect)
{
	uint16_t p = cf_port(r);
	struct cf_conn *c;
	struct cf_msg m;
	uint64_t last;

	cf_text(res->expected, "a new transport connection numbers from 1 again");
	if (cf_session(r, res, &r->cfg->local, 1, &c))
		return;
	if (cf_ping(c, p, &m, r->wait_ms) <= 0) {
		no_pongs(res);
		cf_close(c, true);
		return;
	}
	last = m.s->h.seq;
	cf_close(c, true);
	if (cf_session(r, res, &r->cfg->local, 1, &c))
		return;
	if (cf_ping(c, p, &m, r->wait_ms) <= 0) {
		cf_set(res, CF_FAIL, "no pong on the second connection, though the first answered");
		cf_close(c, true);
		return;
	}
	long f = cf_first_seq(c, 0);

	if (f >= 0 && c->log[f].h.seq == 1) {
		cf_set(res, CF_PASS, "first connection ended at seq %llu, the second began at 1",
		       (unsigned long long)last);
	} else if (f >= 0 && c->log[f].h.seq > last) {
		cf_set(res, CF_NON_STRICT, "first connection ended at seq %llu, the second went on "
		       "at %llu", (unsigned long long)last, (unsigned long long)c->log[f].h.seq);
		cf_text(res->reason, "kernels keep a path's numbers across reconnects, so that "
			"resent messages can be recognised (" KB " K4.4; " KB ": tcp_reconnect, "
			"'Sequence numbers are not reset')");
	} else {
		cf_set(res, CF_FAIL, "first connection ended at seq %llu, the second began at %llu",
		       (unsigned long long)last, f >= 0 ? (unsigned long long)c->log[f].h.seq : 0ull);
	}
	cf_close(c, true);
}

static void judge_map_seq(struct cf_result *res, const struct cf_conn *c)
{
	size_t maps = 0;

	for (size_t i = 0; i < c->n_log; i++) {
		const struct cf_seen *s = &c->log[i];

		if (s->kind != WIRE_KIND_CONG)
			continue;
		maps++;
		if (s->h.seq) {
			cf_set(res, CF_FAIL, "a map with seq %llu", (unsigned long long)s->h.seq);
			return;
		}
	}
	if (maps)
		cf_set(res, CF_PASS, "%zu maps, all seq 0", maps);
	else
		cf_set(res, CF_SKIP, "the peer sent no map on this connection");
	if (!maps)
		cf_text(res->reason, "nothing to check (linux/cong/1 judges the missing map)");
}

CASE(case_map_seq)
{
	on_exchange(r, res, "congestion maps carry seq 0 and take no number", judge_map_seq);
}

/* The reply to a ping from a fresh port. Return: 1 and *m; 0 none. */
static int pinged(struct cf_run *r, struct cf_result *res, struct cf_conn **c, uint16_t *port,
		  struct cf_msg *m)
{
	int got;

	*port = cf_port(r);
	if (cf_session(r, res, &r->cfg->local, 1, c))
		return -1;
	got = cf_ping(*c, *port, m, r->wait_ms);
	if (got < 0) {
		cf_set(res, CF_FAIL, "the connection ended after our ping (%s)",
		       (*c)->closed == CF_RST ? "reset" : (*c)->closed == CF_FIN ? "closed" : "not RDS");
		cf_close(*c, true);
		return -1;
	}
	return got;
}

CASE(case_ping_pong)
{
	struct cf_conn *c;
	struct cf_msg m;
	uint16_t p;
	int got;

	r->own_ping = true;
	got = pinged(r, res, &c, &p, &m);
	if (got < 0)
		return;
	cf_text(res->expected, "a reply from port 0 to port %u", p);
	if (got == 0) {
		cf_set(res, CF_FAIL, "no reply to port %u within %d ms", p, r->wait_ms);
		cf_text(res->reason, "a Linux node with net.rds.ping_enable=0 answers no ping "
			"(" KB ": ping_enable=0)");
	}
	else if (m.s->h.sport != 0)
		cf_set(res, CF_FAIL, "the reply came from port %u", m.s->h.sport);
	else
		cf_set(res, CF_PASS, "pong seq %llu from port 0 to %u", (unsigned long long)m.s->h.seq, p);
	cf_close(c, true);
}

CASE(case_pong_empty)
{
	struct cf_conn *c;
	struct cf_msg m;
	uint16_t p;
	int got = pinged(r, res, &c, &p, &m);

	if (got < 0)
		return;
	cf_text(res->expected, "the pong carries no payload (h_len 0)");
	if (got == 0) {
		res->verdict = CF_SKIP;
		cf_text(res->reason, "no pong to judge (rds31/ping/1 judges the missing one)");
	}
	else if (m.len)
		cf_set(res, CF_FAIL, "the pong carries %u payload bytes", m.len);
	else
		cf_set(res, CF_PASS, "pong with h_len 0");
	cf_close(c, true);
}

CASE(case_ping_port0)
{
	uint16_t p = cf_port(r);
	struct cf_conn *c;
	struct cf_msg m;
	struct wire_hdr h;
	int got;

	size_t from;

	cf_text(res->expected, "no reply to a ping from port 0 (it would answer a pong with a pong)");
	r->own_ping = true;
	if (cf_session(r, res, &r->cfg->local, 1, &c))
		return;
	/* A wrong answer to our probe ping (a pong to port 0) is not a
	 * reply to the ping below: let it come first. */
	if (!r->peer.probed)
		cf_drain(c, cf_answer_wait(r, true, false));
	from = c->n_log;
	wire_build_ping(&h, r->tx_seq++, 0);
	cf_send(c, &h, NULL, 0);
	/* Then an ordinary ping: its pong bounds the wait, since replies on
	 * one connection come in order. */
	got = cf_ping(c, p, &m, r->wait_ms);
	for (size_t i = from; i < c->n_log; i++) {
		const struct cf_seen *s = &c->log[i];

		if (s->h.dport == 0 && s->h.sport == 0 && s->kind != WIRE_KIND_CONG) {
			cf_set(res, CF_FAIL, "the peer answered: seq %llu from port 0 to port 0",
			       (unsigned long long)s->h.seq);
			cf_close(c, true);
			return;
		}
	}
	if (got == 0 && cf_pings_unanswered(r)) {
		cf_set(res, CF_PASS, "no reply to port 0 within %d ms", r->wait_ms);
		cf_text(res->reason, "the peer answers no ping at all (rds31/ping/1 judges that)");
	} else if (got <= 0)
		cf_set(res, CF_ERROR, "the ping from port %u that follows got no pong", p);
	else
		cf_set(res, CF_PASS, "no reply to port 0; the next ping's pong came");
	cf_close(c, true);
}

/* A session that records the peer's probe pong in r->peer. */
static bool probed(struct cf_run *r, struct cf_result *res, uint16_t npaths)
{
	struct cf_conn *c;

	if (cf_session(r, res, &r->cfg->local, npaths, &c))
		return false;
	cf_close(c, true);
	return true;
}

CASE(case_probe_answer)
{
	struct cf_conn *c;
	struct cf_msg m;
	unsigned extra = 0;
	rdsu_ns t0;
	int got;

	cf_text(res->expected, "our probe ping is answered by a probe pong (from port 0 to port 1) "
		"within %d ms, and by no probe ping of its own in its place", r->wait_ms);
	r->own_probe = true;
	if (cf_session(r, res, &r->cfg->local, 8, &c))
		return;
	if (r->peer.probed) {
		/* A probe ping beside the pong is the kernel's own when it
		 * does not know the count yet; one in place of the pong is
		 * not an answer. */
		cf_set(res, CF_PASS, "probe pong after %d ms", r->peer.pong_ms);
		cf_close(c, true);
		return;
	}
	for (size_t i = 0; i < c->n_log; i++)
		extra += c->log[i].kind == WIRE_KIND_PROBE_PING;
	/* Late is not never: wait as long again, so the reason can say. */
	t0 = rdsu_clock();
	got = cf_recv_until(c, WIRE_KIND_PROBE_PONG, -1, &m, r->wait_ms);
	if (got > 0)
		cf_set(res, CF_FAIL, "no probe pong within %d ms; it came %.0f ms later",
		       r->wait_ms, (double)(rdsu_clock() - t0) / 1e6);
	else
		cf_set(res, CF_FAIL, "no probe pong within %d ms (nor in %d ms more)",
		       r->wait_ms, r->wait_ms);
	cf_text(res->reason, "after our probe ping came %s%s", r->peer.instead,
		extra ? "" : "; a Linux node with net.rds.ping_enable=0 answers no probe ping "
		"(" KB ": ping_enable=0)");
	cf_close(c, true);
}

/* The probe pong carries NPATHS: without it (or without a probe pong,
 * |no_pong| saying why that matters) the verdict is |missing|, for the
 * reason |why| where there is one. */
static void has_npaths(struct cf_run *r, struct cf_result *res, enum cf_verdict missing,
		       const char *expected, const char *no_pong, const char *why)
{
	cf_text(res->expected, "%s", expected);
	if (!probed(r, res, 8) || cf_no_probe_pong(r, res, missing, no_pong))
		return;
	if (r->peer.has_npaths) {
		cf_set(res, CF_PASS, "probe pong NPATHS %u", r->peer.npaths);
		return;
	}
	cf_set(res, missing, "probe pong without NPATHS");
	if (why)
		cf_text(res->reason, "%s", why);
}

CASE(case_probe_npaths_spec)
{
	has_npaths(r, res, CF_NON_STRICT,
		   "the probe pong carries NPATHS (the responder's path count)",
		   "a SHOULD; linux/probe/3 judges the missing answer",
		   "a SHOULD in the spec: a peer without multipath may leave it out");
}

CASE(case_probe_npaths_linux)
{
	has_npaths(r, res, CF_FAIL,
		   "the probe pong carries NPATHS; without it a kernel falls back to one path",
		   "without a probe pong a kernel prober stays at one path", NULL);
}

CASE(case_probe_npaths_range)
{
	cf_text(res->expected, "NPATHS is a power of two from 1 to 8");
	if (!probed(r, res, 8) || cf_no_probe_pong(r, res, CF_SKIP, "no NPATHS to check"))
		return;
	if (!r->peer.has_npaths) {
		res->verdict = CF_SKIP;
		cf_text(res->reason, "the probe pong has no NPATHS");
		return;
	}
	uint16_t n = r->peer.npaths;

	if (n >= 1 && n <= WIRE_MAX_PATHS && !(n & (n - 1)))
		cf_set(res, CF_PASS, "NPATHS %u", n);
	else
		cf_set(res, CF_FAIL, "NPATHS %u", n);
}

CASE(case_probe_gen)
{
	cf_text(res->expected, "the probe pong carries GEN_NUM, the responder's generation number");
	if (!probed(r, res, 8) || cf_no_probe_pong(r, res, CF_NON_STRICT, "a SHOULD; linux/probe/3 "
						   "judges the missing answer"))
		return;
	if (r->peer.has_gen) {
		cf_set(res, CF_PASS, "GEN_NUM 0x%08x", r->peer.gen);
	} else {
		cf_set(res, CF_NON_STRICT, "probe pong without GEN_NUM (%u extension header%s)",
		       r->peer.n_exts, r->peer.n_exts == 1 ? "" : "s");
		cf_text(res->reason, "6.x kernels put one extension header in a message, so their "
			"probes carry NPATHS only and lose GEN_NUM (" KB ": Probe extensions, 6.1)");
	}
}

CASE(case_probe_sport_idx)
{
	cf_text(res->expected, "(observation) whether the probe pong offers SPORT_IDX");
	if (!probed(r, res, 8) || cf_no_probe_pong(r, res, CF_INFO, NULL))
		return;
	res->verdict = CF_INFO;
	if (r->peer.has_sport_idx) {
		cf_text(res->actual, "SPORT_IDX offered");
		cf_text(res->reason, "7.x behaviour: the receiver files each extra path by its TCP "
			"source port %% npaths (" KB ": Probe extensions, 7.2)");
	} else {
		cf_text(res->actual, "no SPORT_IDX");
		cf_text(res->reason, "6.x behaviour: paths are filed in arrival order, so a "
			"reconnect can swap them (" KB ": Probe extensions and tcp_reconnect, 6.1)");
	}
}

CASE(case_ext_count)
{
	cf_text(res->expected, "at most one extension header per message");
	if (!probed(r, res, 8) || cf_no_probe_pong(r, res, CF_SKIP, "no probe pong to count the "
						   "extension headers of"))
		return;
	if (r->peer.n_exts <= 1) {
		cf_set(res, CF_PASS, "%u extension header%s in the probe pong", r->peer.n_exts,
		       r->peer.n_exts == 1 ? "" : "s");
	} else {
		cf_set(res, CF_NON_STRICT, "%u extension headers in the probe pong", r->peer.n_exts);
		cf_text(res->reason, "7.x kernels send NPATHS, GEN_NUM and SPORT_IDX together "
			"(" KB ": Probe extensions, 7.2); the spec allows one or none");
	}
}

CASE(case_ext_unknown)
{
	uint16_t p = cf_port(r);
	struct cf_conn *c;
	struct cf_msg m;
	struct wire_hdr h;
	int got;

	cf_text(res->expected, "a ping with an unknown extension type (12) is answered; the "
		"connection stays up");
	if (cf_session(r, res, &r->cfg->local, 1, &c))
		return;
	wire_build_ping(&h, r->tx_seq++, p);
	h.ext[0] = 12;   /* no kernel has a size for it */
	h.ext[1] = 0;
	cf_send(c, &h, NULL, 0);
	for (;;) {
		got = cf_recv(c, &m, r->wait_ms);
		if (got <= 0 || m.s->h.dport == p)
			break;
	}
	if (got > 0)
		cf_set(res, CF_PASS, "pong seq %llu", (unsigned long long)m.s->h.seq);
	else if (got == 0 && cf_pings_unanswered(r)) {
		res->verdict = CF_SKIP;
		cf_text(res->reason, "the connection stayed up, but the peer answers no pings, so "
			"whether the ping was processed cannot be seen (rds31/ping/1 judges that)");
	} else if (got == 0)
		cf_set(res, CF_FAIL, "no reply within %d ms", r->wait_ms);
	else
		cf_set(res, CF_FAIL, "the peer %s the connection",
		       c->closed == CF_RST ? "reset" : "closed");
	cf_close(c, true);
}
