// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * cases_ib.c - rds-conform: RDS over InfiniBand / RoCE (rds_rdma), run
 * with --transport ib through the crafted IB node (node_ib.h): the CM
 * private data and its versions, fragments, h_csum, h_ack and ACK-only
 * frames, ACK_REQUIRED, congestion maps. The rules are net/rds/ib*.c's
 * (docs/kernel-behaviour.md K6); the wire spec describes RDS/TCP only.
 */
#include "cases.h"
#include "node_ib.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rds/rdsu_io.h>

/* The peer's REP private data, decoded. Return: true and *pd. */
static bool rep_pd(const struct cf_ibconn *c, struct wire_ibpd *pd)
{
	int fam = rdsu_addr_is_v4(&c->faddr) ? 4 : 6;

	return c->pd_len && wire_ibpd_decode(pd, fam, c->pd, c->pd_len) > 0;
}

static const char *ver_text(uint16_t v, char buf[16])
{
	snprintf(buf, 16, "%u.%u", v >> 8, v & 0xff);
	return buf;
}

/* What the peer answered a proposal of |pd| with: "3.1", "REJ ...", or
 * why nothing came. Return: the version answered, 0 for a REJ, -1 none. */
static int offer(struct cf_run *r, const uint8_t *pd, size_t len, unsigned tries, char *what,
		 size_t cap, struct wire_ibpd *rep)
{
	struct cf_ibconn *c;
	struct wire_ibpd x;
	int err = cf_ib_connect(r, pd, len, tries, &c), v = -1;
	char vb[16];

	if (!rep)
		rep = &x;
	if (!err && rep_pd(c, rep)) {
		v = rep->major << 8 | rep->minor;
		snprintf(what, cap, "%s", ver_text((uint16_t)v, vb));
	} else if (!err) {
		v = 0xffff;
		snprintf(what, cap, "accepted, REP private data of %zu bytes that does not decode",
			 c->pd_len);
	} else if (err == -ECONNREFUSED) {
		v = 0;
		cf_ib_rej_text(c, what, cap);
	} else {
		snprintf(what, cap, "%s", c ? c->why : strerror(-err));
	}
	cf_ib_close(c);
	return v;
}

CASE(case_ib_pd_31)
{
	uint8_t pd[WIRE_IBPD_V6_LEN];
	size_t n = cf_ib_pd(r, WIRE_IBVER_3_1, 0, pd);
	struct wire_ibpd rep;
	char what[160], a[64], b[64];
	int v = offer(r, pd, n, 1000, what, sizeof(what), &rep);
	struct rdsu_addr sa, da;
	int fam = rdsu_addr_is_v4(&r->cfg->peer) ? 4 : 6;

	cf_text(res->expected, "REP private data naming version 3.1, from the peer's address to "
		"ours, mask 0x0003");
	if (v < 0) {
		cf_set(res, CF_ERROR, "no answer to our REQ");
		cf_text(res->reason, "%s", what);
		return;
	}
	if (v != WIRE_IBVER_3_1) {
		cf_set(res, CF_FAIL, "a 3.1 proposal was answered: %s", what);
		return;
	}
	memset(&sa, 0, sizeof(sa));
	memset(&da, 0, sizeof(da));
	if (fam == 4) {
		sa.a[10] = sa.a[11] = da.a[10] = da.a[11] = 0xff;
		memcpy(sa.a + 12, rep.saddr, 4);
		memcpy(da.a + 12, rep.daddr, 4);
	} else {
		memcpy(sa.a, rep.saddr, 16);
		memcpy(da.a, rep.daddr, 16);
	}
	if (rdsu_addr_cmp(&sa, &r->cfg->peer) || rdsu_addr_cmp(&da, &r->cfg->local))
		cf_set(res, CF_FAIL, "3.1, but from %s to %s", cf_addr(&sa, a), cf_addr(&da, b));
	else
		cf_set(res, CF_PASS, "3.1 from %s to %s, mask 0x%04x, ack_seq %llu, credit %u",
		       cf_addr(&sa, a), cf_addr(&da, b), rep.minor_mask,
		       (unsigned long long)rep.ack_seq, rep.credit);
}

CASE(case_ib_pd_4x)
{
	static const struct { uint16_t mask, want; } t[] = {
		{ 0x0003, WIRE_IBVER_4_1 }, { 0x0001, WIRE_IBVER_4_0 },
	};
	uint8_t pd[WIRE_IBPD_V6_LEN];
	char what[2][160], vb[16];
	bool ok = true;

	cf_text(res->expected, "4.x proposals answered with the highest common minor: mask 0x3 "
		"4.1, mask 0x1 4.0");
	for (size_t i = 0; i < 2; i++) {
		size_t n = cf_ib_pd(r, WIRE_IBVER_4_1, 0, pd);
		int v;

		/* the mask is at 2..3 of the common part */
		pd[n - WIRE_IBPD_CMN_LEN + 2] = (uint8_t)(t[i].mask >> 8);
		pd[n - WIRE_IBPD_CMN_LEN + 3] = (uint8_t)t[i].mask;
		v = offer(r, pd, n, 1000, what[i], sizeof(what[i]), NULL);
		if (v < 0) {
			cf_set(res, CF_ERROR, "no answer to our REQ");
			cf_text(res->reason, "%s", what[i]);
			return;
		}
		if (v != t[i].want)
			ok = false;
	}
	cf_set(res, ok ? CF_PASS : CF_FAIL, "4.x mask 0x3: %s (want %s); mask 0x1: %s", what[0],
	       ver_text(WIRE_IBVER_4_1, vb), what[1]);
}

CASE(case_ib_pd_reject)
{
	static const uint16_t bad[] = { WIRE_IBVER_3_0, 0x0500 };
	uint8_t pd[WIRE_IBPD_V6_LEN];
	char what[160], vb[16];

	cf_text(res->expected, "proposals of 3.0 and 5.0 rejected: REJ consumer defined, "
		"consumer data 1");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t n = cf_ib_pd(r, bad[i], 0, pd);
		struct cf_ibconn *c;
		int err;

		/* Three answers: a REJ may also be the peer's own reconnect
		 * racing ours; an acceptance is one. */
		err = cf_ib_connect(r, pd, n, 3, &c);
		if (err == -ECONNREFUSED) {
			if (c->rej_status != CF_IB_REJ_CONSUMER || c->rej_len < sizeof(int) ||
			    c->rej_data != 1) {
				cf_set(res, CF_FAIL, "%s: %s", ver_text(bad[i], vb),
				       cf_ib_rej_text(c, what, sizeof(what)));
				cf_ib_close(c);
				return;
			}
		} else if (!err) {
			struct wire_ibpd rep;

			cf_set(res, CF_FAIL, "%s accepted (REP %s)", ver_text(bad[i], vb),
			       rep_pd(c, &rep) ? ver_text((uint16_t)(rep.major << 8 | rep.minor),
							  what) : "undecodable");
			cf_ib_close(c);
			return;
		} else {
			cf_set(res, CF_ERROR, "no answer to a %s proposal", ver_text(bad[i], vb));
			cf_text(res->reason, "%s", c ? c->why : strerror(-err));
			cf_ib_close(c);
			return;
		}
		cf_ib_close(c);
	}
	cf_set(res, CF_PASS, "3.0 and 5.0 rejected, consumer data 1");
}

CASE(case_ib_pd_major0)
{
	uint8_t pd[WIRE_IBPD_V6_LEN];
	size_t n = cf_ib_pd(r, 0, 0, pd);
	char what[160];
	int v = offer(r, pd, n, 1000, what, sizeof(what), NULL);

	res->verdict = CF_INFO;
	cf_text(res->actual, "major 0 answered: %s", what);
	cf_text(res->reason, "rds_ib_protocol_compatible takes major 0 as an old peer (4.0)");
	if (v < 0)
		res->verdict = CF_ERROR;
}

/* A session whose map (and whatever comes with it) has arrived. */
static int settled(struct cf_run *r, struct cf_result *res, struct cf_ibconn **c)
{
	if (cf_ib_session(r, res, c))
		return -1;
	(void)cf_ib_drain(*c, r->wait_ms / 4 < 300 ? 300 : r->wait_ms / 4);
	return 0;
}

/* After a defect of ours: the peer ends the connection. */
static void judge_end(struct cf_run *r, struct cf_result *res, struct cf_ibconn *c,
		      const char *what)
{
	if (cf_ib_wait_end(c, r->wait_ms))
		cf_set(res, CF_PASS, "%s: the peer ended the connection (%s)", what, c->why);
	else
		cf_set(res, CF_FAIL, "%s: the connection stayed up for %d ms", what, r->wait_ms);
}

CASE(case_ib_frag_mismatch)
{
	static uint8_t pay[2 * WIRE_FRAG_SIZE];
	uint8_t f[CF_IB_FRAME];
	struct cf_ibconn *c;
	struct wire_hdr h;

	cf_text(res->expected, "a message whose second fragment names another sequence number "
		"ends the connection (fragment header mismatch)");
	if (settled(r, res, &c))
		return;
	cf_idx_payload(pay, sizeof(pay), 1);
	wire_build_data(&h, r->tx_seq++, cf_port(r), cf_port(r), sizeof(pay));
	cf_ib_fix(c, &h);
	wire_hdr_encode(&h, f, WIRE_HDR_LEN);
	memcpy(f + WIRE_HDR_LEN, pay, WIRE_FRAG_SIZE);
	(void)cf_ib_send(c, f, sizeof(f), false);
	h.seq = r->tx_seq++;
	cf_ib_fix(c, &h);
	wire_hdr_encode(&h, f, WIRE_HDR_LEN);
	memcpy(f + WIRE_HDR_LEN, pay + WIRE_FRAG_SIZE, WIRE_FRAG_SIZE);
	(void)cf_ib_send(c, f, sizeof(f), true);
	judge_end(r, res, c, "second fragment's sequence number differs");
	cf_ib_close(c);
}

CASE(case_ib_frag_runt)
{
	struct cf_ibconn *c;
	uint8_t f[20];
	struct wire_hdr h;
	uint8_t full[WIRE_HDR_LEN];

	cf_text(res->expected, "a completion of 20 bytes (shorter than a header) ends the "
		"connection");
	if (settled(r, res, &c))
		return;
	wire_build_ping(&h, r->tx_seq++, cf_port(r));
	cf_ib_fix(c, &h);
	wire_hdr_encode(&h, full, sizeof(full));
	memcpy(f, full, sizeof(f));
	(void)cf_ib_send(c, f, sizeof(f), true);
	judge_end(r, res, c, "20-byte SEND");
	cf_ib_close(c);
}

CASE(case_ib_csum_bad)
{
	struct cf_ibconn *c;
	struct cf_ibmsg m;
	struct wire_hdr h;
	uint16_t port;
	int got;

	cf_text(res->expected, "a ping whose h_csum is wrong is not answered; the connection "
		"ends");
	if (settled(r, res, &c))
		return;
	port = cf_port(r);
	wire_build_ping(&h, r->tx_seq++, port);
	cf_ib_fix(c, &h);
	h.csum = (uint16_t)(h.csum + 1 ? h.csum + 1 : 2);
	(void)cf_ib_send_msg(c, &h, NULL, 0);
	for (;;) {
		got = cf_ib_recv(c, &m, r->wait_ms);
		if (got <= 0 || (m.h.dport == port && m.kind != WIRE_KIND_CONG))
			break;
	}
	if (got > 0) {
		cf_set(res, CF_FAIL, "the ping with h_csum 0x%04x was answered (pong seq %llu)",
		       h.csum, (unsigned long long)m.h.seq);
	} else {
		judge_end(r, res, c, "ping with a wrong h_csum");
		if (res->verdict == CF_FAIL)
			cf_set(res, CF_FAIL, "not answered, but the connection stayed up for %d ms",
			       r->wait_ms);
	}
	cf_ib_close(c);
}

CASE(case_ib_csum_peer)
{
	struct cf_ibconn *c;
	struct cf_ibmsg m;
	unsigned bad = 0, zero = 0;
	size_t first_bad = 0;

	cf_text(res->expected, "every frame the peer sends has a valid, non-zero h_csum");
	if (settled(r, res, &c))
		return;
	for (int i = 0; i < 3; i++)
		if (cf_ib_ping(c, cf_port(r), &m, r->wait_ms) < 0)
			break;
	(void)cf_ib_drain(c, 200);
	for (size_t i = 0; i < c->n_frames; i++) {
		const struct cf_ibframe *f = &c->frames[i];

		if (f->len < WIRE_HDR_LEN)
			continue;
		if (!f->csum_ok && !bad++)
			first_bad = i;
		else if (f->h.csum == 0)
			zero++;
	}
	if (!c->n_frames) {
		cf_set(res, CF_ERROR, "the peer sent no frame");
		cf_text(res->reason, "nothing to judge: neither a map nor a pong came");
	} else if (bad) {
		cf_set(res, CF_FAIL, "%u of %zu frames with a wrong h_csum (first: seq %llu, "
		       "h_csum 0x%04x)", bad, c->n_frames,
		       (unsigned long long)c->frames[first_bad].h.seq, c->frames[first_bad].h.csum);
	} else if (zero) {
		cf_set(res, CF_NON_STRICT, "%u of %zu frames without h_csum (0)", zero, c->n_frames);
		cf_text(res->reason, "a receiver takes h_csum 0 as absent, but rds_ib_xmit always "
			"fills it");
	} else {
		cf_set(res, CF_PASS, "%zu frames, every h_csum valid", c->n_frames);
	}
	cf_ib_close(c);
}

/* The first frame at or after |from| whose h_ack is |ack| or more. */
static long acked_at(const struct cf_ibconn *c, size_t from, uint64_t ack)
{
	for (size_t i = from; i < c->n_frames; i++)
		if (c->frames[i].len >= WIRE_HDR_LEN && c->frames[i].h.ack >= ack)
			return (long)i;
	return -1;
}

static bool is_ack_only(const struct cf_ibframe *f)
{
	return f->len == WIRE_HDR_LEN && f->h.sport == 0 && f->h.dport == 0;
}

/* Wait until a frame acknowledges |seq| (from frame |from| on). */
static long wait_acked(struct cf_run *r, struct cf_ibconn *c, size_t from, uint64_t seq)
{
	rdsu_ns end = rdsu_clock() + (rdsu_ns)r->wait_ms * RDSU_MSEC;
	long at;

	while ((at = acked_at(c, from, seq)) < 0 && rdsu_clock() < end && !c->closed) {
		struct cf_ibmsg m;

		(void)cf_ib_recv(c, &m, 20);
	}
	return at;
}

CASE(case_ib_ack_required)
{
	static uint8_t pay[100];
	struct cf_ibconn *c;
	struct wire_hdr h;
	size_t from;
	long at;

	cf_text(res->expected, "a message with ACK_REQUIRED is acknowledged (h_ack >= its "
		"sequence number) without further traffic from us, in an ACK-only frame");
	if (settled(r, res, &c))
		return;
	c->answer = false;
	from = c->n_frames;
	cf_idx_payload(pay, sizeof(pay), 7);
	wire_build_data(&h, r->tx_seq++, cf_port(r), cf_port(r), sizeof(pay));
	h.flags |= WIRE_FLAG_ACK_REQUIRED;
	cf_ib_fix(c, &h);
	(void)cf_ib_send_msg(c, &h, pay, sizeof(pay));
	at = wait_acked(r, c, from, h.seq);
	if (at < 0)
		cf_set(res, CF_FAIL, "no frame acknowledged seq %llu within %d ms%s",
		       (unsigned long long)h.seq, r->wait_ms, c->closed ? " (the connection ended)" :
		       "");
	else if (is_ack_only(&c->frames[at]))
		cf_set(res, CF_PASS, "an ACK-only frame with h_ack %llu",
		       (unsigned long long)c->frames[at].h.ack);
	else
		cf_set(res, CF_PASS, "acknowledged piggy-back: seq %llu carried h_ack %llu",
		       (unsigned long long)c->frames[at].h.seq,
		       (unsigned long long)c->frames[at].h.ack);
	cf_ib_close(c);
}

CASE(case_ib_hack)
{
	struct cf_ibconn *c;
	struct cf_ibmsg m;
	uint64_t seq;
	int got;

	cf_text(res->expected, "the pong to our ping carries h_ack = the ping's sequence number");
	if (settled(r, res, &c))
		return;
	seq = r->tx_seq;
	got = cf_ib_ping(c, cf_port(r), &m, r->wait_ms);
	if (got <= 0) {
		cf_set(res, CF_ERROR, "no pong");
		cf_text(res->reason, "%s", got == 0 ? "our ping went unanswered (ib/ping/1 judges "
			"that)" : c->why);
	} else if (m.h.ack == seq) {
		cf_set(res, CF_PASS, "pong seq %llu with h_ack %llu", (unsigned long long)m.h.seq,
		       (unsigned long long)m.h.ack);
	} else if (m.h.ack > seq) {
		cf_set(res, CF_FAIL, "pong h_ack %llu acknowledges beyond our ping's %llu",
		       (unsigned long long)m.h.ack, (unsigned long long)seq);
	} else {
		cf_set(res, CF_FAIL, "pong h_ack %llu, our ping was %llu", (unsigned long long)m.h.ack,
		       (unsigned long long)seq);
	}
	cf_ib_close(c);
}

CASE(case_ib_ack_only)
{
	static uint8_t pay[2 * WIRE_FRAG_SIZE];
	uint8_t f[CF_IB_FRAME];
	struct cf_ibconn *c;
	struct wire_hdr h;
	size_t from;
	long at;

	cf_text(res->expected, "an ACK-only frame between two fragments of a message is taken "
		"as an acknowledgement, not a fragment: the message completes and is "
		"acknowledged");
	if (settled(r, res, &c))
		return;
	c->answer = false;
	from = c->n_frames;
	cf_idx_payload(pay, sizeof(pay), 9);
	wire_build_data(&h, r->tx_seq++, cf_port(r), cf_port(r), sizeof(pay));
	h.flags |= WIRE_FLAG_ACK_REQUIRED;
	cf_ib_fix(c, &h);
	wire_hdr_encode(&h, f, WIRE_HDR_LEN);
	memcpy(f + WIRE_HDR_LEN, pay, WIRE_FRAG_SIZE);
	(void)cf_ib_send(c, f, sizeof(f), false);
	(void)cf_ib_ack_only(c, c->tx_ack);
	memcpy(f + WIRE_HDR_LEN, pay + WIRE_FRAG_SIZE, WIRE_FRAG_SIZE);
	(void)cf_ib_send(c, f, sizeof(f), true);
	at = wait_acked(r, c, from, h.seq);
	if (at >= 0)
		cf_set(res, CF_PASS, "the message (seq %llu) was acknowledged with h_ack %llu",
		       (unsigned long long)h.seq, (unsigned long long)c->frames[at].h.ack);
	else if (c->closed)
		cf_set(res, CF_FAIL, "the peer ended the connection (%s): the ACK-only frame was "
		       "taken as a fragment", c->why);
	else
		cf_set(res, CF_FAIL, "seq %llu (ACK_REQUIRED) never acknowledged",
		       (unsigned long long)h.seq);
	cf_ib_close(c);
}

/* The sequence numbers the peer resent (RETRANSMITTED) on |c| within
 * |ms|, among |want| (n of them): a bit per entry. */
static unsigned resent_of(struct cf_ibconn *c, const uint64_t *want, size_t n, int ms)
{
	unsigned bits = 0;

	(void)cf_ib_drain(c, ms);
	for (size_t i = 0; i < c->n_msgs; i++)
		for (size_t k = 0; k < n; k++)
			if ((c->msgs[i].h.flags & WIRE_FLAG_RETRANSMITTED) &&
			    c->msgs[i].h.seq == want[k])
				bits |= 1u << k;
	return bits;
}

/* A session that acknowledges nothing of its own accord. */
static int quiet_session(struct cf_run *r, struct cf_result *res, uint64_t ack_seq,
			 struct cf_ibconn **c)
{
	uint8_t pd[WIRE_IBPD_V6_LEN];
	int err = cf_ib_connect(r, pd, cf_ib_pd(r, WIRE_IBVER_3_1, ack_seq, pd), 1000, c);

	if (err) {
		res->verdict = CF_ERROR;
		cf_text(res->reason, "no IB connection to the peer: %s", *c ? (*c)->why :
			strerror(-err));
		cf_ib_close(*c);
		*c = NULL;
		return err;
	}
	(*c)->ack = false;
	(*c)->hold_ack = true;
	return 0;
}

CASE(case_ib_hack_honoured)
{
	struct cf_ibconn *c;
	struct cf_ibmsg m;
	uint64_t q[3];
	unsigned b1, b2;
	int half = r->wait_ms / 2 < 1000 ? 1000 : r->wait_ms / 2;

	cf_text(res->expected, "of three pongs, the two our h_ack acknowledged are not resent "
		"after a reconnect and the third is, flagged RETRANSMITTED; once our private "
		"data's ack_seq acknowledges it, it is not resent either");
	if (quiet_session(r, res, 0, &c))
		return;
	(void)cf_ib_drain(c, 300);
	/* whatever came before is acknowledged; from here we say when */
	c->tx_ack = c->rx_ack;
	for (int i = 0; i < 3; i++) {
		if (cf_ib_ping(c, cf_port(r), &m, r->wait_ms) <= 0) {
			cf_set(res, CF_ERROR, "ping %d got no pong", i + 1);
			cf_text(res->reason, "%s", c->closed ? c->why : "ib/ping/1 judges that");
			cf_ib_close(c);
			return;
		}
		q[i] = m.h.seq;
	}
	(void)cf_ib_ack_only(c, q[1]);
	(void)cf_ib_drain(c, 300);
	cf_ib_close(c);

	if (quiet_session(r, res, 0, &c))
		return;
	b1 = resent_of(c, q, 3, half);
	c->tx_ack = q[1];
	cf_ib_close(c);
	if (b1 & 3) {
		cf_set(res, CF_FAIL, "pong seq %llu resent although our h_ack %llu acknowledged it",
		       (unsigned long long)q[b1 & 1 ? 0 : 1], (unsigned long long)q[1]);
		return;
	}
	if (!(b1 & 4)) {
		cf_set(res, CF_FAIL, "pong seq %llu, never acknowledged, was not resent within %d ms "
		       "of the reconnect", (unsigned long long)q[2], half);
		return;
	}
	if (quiet_session(r, res, q[2], &c))
		return;
	b2 = resent_of(c, q, 3, half);
	cf_ib_close(c);
	if (b2 & 4) {
		cf_set(res, CF_NON_STRICT, "h_ack honoured (pongs %llu, %llu not resent, %llu "
		       "resent flagged), but pong %llu resent again although our REQ's ack_seq "
		       "acknowledged it", (unsigned long long)q[0], (unsigned long long)q[1],
		       (unsigned long long)q[2], (unsigned long long)q[2]);
		cf_text(res->reason, "as the kernels do: they apply dp_ack_seq with "
			"rds_send_drop_acked, which looks at the retransmit list only, and by then "
			"the path reset has moved what was unacknowledged to the send queue (" KB
			": rds-conform over IB)");
	} else
		cf_set(res, CF_PASS, "pongs %llu, %llu acknowledged by h_ack %llu, not resent; %llu "
		       "resent flagged; after ack_seq %llu in our REQ, not resent",
		       (unsigned long long)q[0], (unsigned long long)q[1], (unsigned long long)q[1],
		       (unsigned long long)q[2], (unsigned long long)q[2]);
}

CASE(case_ib_ping)
{
	struct cf_ibconn *c;
	struct cf_ibmsg m;
	uint16_t port;
	int got;

	cf_text(res->expected, "a ping over IB is answered from port 0, no payload, no "
		"extension header");
	if (settled(r, res, &c))
		return;
	port = cf_port(r);
	got = cf_ib_ping(c, port, &m, r->wait_ms);
	if (got < 0) {
		cf_set(res, CF_ERROR, "the connection ended");
		cf_text(res->reason, "%s", c->why);
	} else if (got == 0) {
		cf_set(res, CF_FAIL, "no reply to port %u within %d ms", port, r->wait_ms);
	} else if (m.h.sport != 0 || m.h.len != 0) {
		cf_set(res, CF_FAIL, "reply from port %u with %u payload bytes", m.h.sport, m.h.len);
	} else {
		bool ext = false;

		for (size_t i = 0; i < WIRE_EXT_SPACE; i++)
			ext |= m.h.ext[i] != 0;
		if (ext)
			cf_set(res, CF_FAIL, "pong seq %llu carries an extension header (type %u)",
			       (unsigned long long)m.h.seq, m.h.ext[0]);
		else
			cf_set(res, CF_PASS, "pong seq %llu from port 0, empty, no extension header",
			       (unsigned long long)m.h.seq);
	}
	cf_ib_close(c);
}

CASE(case_ib_seq)
{
	struct cf_ibconn *c;
	struct cf_ibmsg m;
	uint64_t prev = 0;

	cf_text(res->expected, "the pongs to three pings are numbered one after another");
	if (settled(r, res, &c))
		return;
	for (int i = 0; i < 3; i++) {
		int got = cf_ib_ping(c, cf_port(r), &m, r->wait_ms);

		if (got <= 0) {
			cf_set(res, CF_ERROR, "ping %d got no pong", i + 1);
			cf_text(res->reason, "%s", got < 0 ? c->why : "ib/ping/1 judges that");
			cf_ib_close(c);
			return;
		}
		if (i && m.h.seq != prev + 1) {
			cf_set(res, CF_FAIL, "pong %d seq %llu after %llu", i + 1,
			       (unsigned long long)m.h.seq, (unsigned long long)prev);
			cf_ib_close(c);
			return;
		}
		prev = m.h.seq;
	}
	cf_set(res, CF_PASS, "pongs %llu, %llu, %llu", (unsigned long long)prev - 2,
	       (unsigned long long)prev - 1, (unsigned long long)prev);
	cf_ib_close(c);
}

CASE(case_ib_cong_map)
{
	struct cf_ibconn *c;
	long map = -1;
	size_t nf = 0;

	cf_text(res->expected, "a congestion map when the connection comes up: h_len 8192, "
		"h_flags 0x01, seq 0, in two fragments of 4096 that carry one header");
	if (cf_ib_session(r, res, &c))
		return;
	{
		rdsu_ns end = rdsu_clock() + (rdsu_ns)r->wait_ms * RDSU_MSEC;
		struct cf_ibmsg m;

		while (rdsu_clock() < end && map < 0 && !c->frag_errs) {
			if (cf_ib_recv(c, &m, 50) < 0)
				break;
			for (size_t i = 0; i < c->n_msgs && map < 0; i++)
				if (c->msgs[i].kind == WIRE_KIND_CONG)
					map = (long)i;
		}
	}
	for (size_t i = 0; i < c->n_frames; i++)
		if (c->frames[i].len > WIRE_HDR_LEN && c->frames[i].h.flags == WIRE_FLAG_CONG_BITMAP)
			nf++;
	if (c->frag_errs) {
		unsigned pos = 0;
		enum wire_rule why;

		cf_set(res, CF_FAIL, "the peer's fragments do not make a message (%s)",
		       wire_rules_next(&c->frag_rules, &pos, &why) ? wire_rule_name(why) : "?");
	} else if (map < 0) {
		cf_set(res, CF_FAIL, "no map within %d ms%s", r->wait_ms,
		       c->closed ? " (the connection ended)" : "");
	} else {
		const struct cf_ibmsg *m = &c->msgs[map];

		if (m->h.len != WIRE_CONG_MAP_BYTES || m->h.seq || m->h.sport || m->h.dport ||
		    m->h.flags != WIRE_FLAG_CONG_BITMAP || nf != 2)
			cf_set(res, CF_FAIL, "map h_len %u, seq %llu, ports %u/%u, flags 0x%02x, in %zu "
			       "frames", m->h.len, (unsigned long long)m->h.seq, m->h.sport, m->h.dport,
			       m->h.flags, nf);
		else
			cf_set(res, CF_PASS, "map of 8192 bytes in 2 frames, %u ports congested",
			       (unsigned)wire_cong_count(&c->map));
	}
	cf_ib_close(c);
}

/* ---- with the agent: a congested port announced over IB ---- */

#define IBCONG_RCVBUF 65536
#define IBCONG_MSG 4096
#define IBCONG_MAX 40
/* as rds31/cong/1 (cases_data.c): the budget's worth and one more at
 * once, then a step's wait for the map after each */
#define IBCONG_BURST (IBCONG_RCVBUF / IBCONG_MSG + 1)

CASE(case_ib_cong_set)
{
	static uint8_t pay[IBCONG_MSG];
	uint16_t q, a;
	struct cf_ibconn *c;
	unsigned sent = 0, at = 0;
	int step = r->cfg->timeout_ms / 10 < 100 ? 100 : r->cfg->timeout_ms / 10;

	cf_text(res->expected, "a port whose queue exceeds its receive buffer is set in a map "
		"sent to us over IB");
	if (!cf_need_agent(r, res))
		return;
	q = cf_port(r);
	a = cf_port(r);
	if (cf_agent_bind(r->agent, a, IBCONG_RCVBUF) || cf_agent_hold(r->agent, a, true)) {
		cf_agent_failed(r, res, "bind", -EREMOTEIO);
		return;
	}
	if (settled(r, res, &c))
		goto out;
	while (sent < IBCONG_MAX && !at) {
		struct wire_hdr h;
		rdsu_ns end;

		cf_idx_payload(pay, sizeof(pay), sent);
		wire_build_data(&h, r->tx_seq++, q, a, sizeof(pay));
		cf_ib_fix(c, &h);
		if (cf_ib_send_msg(c, &h, pay, sizeof(pay))) {
			cf_set(res, CF_ERROR, "sending message %u failed", sent);
			cf_text(res->reason, "%s", c->why);
			break;
		}
		sent++;
		if (sent < IBCONG_BURST)
			continue;
		end = rdsu_clock() + (rdsu_ns)step * RDSU_MSEC;
		while (rdsu_clock() < end && !at) {
			struct cf_ibmsg m;

			if (cf_ib_recv(c, &m, 20) < 0)
				break;
			if (c->n_maps && wire_cong_test(&c->map, a))
				at = sent;
		}
	}
	if (res->verdict != CF_ERROR) {
		if (at)
			cf_set(res, CF_PASS, "map with port %u set with %u x %u bytes sent", a, at,
			       IBCONG_MSG);
		else
			cf_set(res, CF_FAIL, "no map with port %u set after %u x %u bytes queued on a "
			       "%u-byte buffer", a, sent, IBCONG_MSG, IBCONG_RCVBUF);
	}
	(void)cf_agent_hold(r->agent, a, false);
	{
		struct cf_delivery d[1];

		(void)cf_agent_take(r, res, a, sent, d, 0);
	}
	cf_ib_close(c);
out:
	cf_agent_unbind(r->agent, a);
}
