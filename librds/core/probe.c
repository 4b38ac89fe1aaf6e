// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * probe.c - the multipath handshake: probe pings and pongs, the path
 * count, the peer's generation number, which path a socket's messages take,
 * and holding the extra paths until path 0 has caught up.
 * Ref: net/rds/send.c rds_send_ping(), rds_send_probe() (NPATHS, GEN_NUM,
 * SPORT_IDX; 6.x keeps only the first), rds_send_mprds_hash() (6.x: probe
 * when the hash is not 0 and npaths unknown; 7.x: path 0 until known),
 * rds_mprds_cp0_catchup (7.x); net/rds/recv.c rds_recv_hs_exthdrs()
 * (npaths = max(1, min(ours, theirs)), absent NPATHS keeps the old value),
 * rds_conn_peer_gen_update() (a changed non-zero GEN_NUM resets every
 * path's sequence numbers and flushes the retransmit queues),
 * rds_start_mprds() (the smaller address opens the other paths);
 * net/rds/tcp_listen.c rds_tcp_accept_one() (the accepting side probes
 * while npaths is unknown; 7.x drops path 0 when its source port does not
 * say path 0); include/linux/jhash.h jhash_1word().
 */
#include "core.h"

#include <string.h>

static uint32_t rol32(uint32_t x, unsigned k)
{
	return x << k | x >> (32 - k);
}

/* jhash_1word(): __jhash_final over (a + iv, iv, iv),
 * iv = initval + JHASH_INITVAL + (1 << 2). Each of its seven steps folds
 * one word into the next of c, a, b in turn: x ^= y; x -= rol32(y, k). */
static uint32_t jhash_1word(uint32_t a, uint32_t initval)
{
	static const unsigned k[] = { 14, 11, 25, 16, 4, 14, 24 };
	uint32_t iv = initval + 0xdeadbeefu + (1u << 2);
	uint32_t w[3] = { iv, a + iv, iv }; /* c, a, b */

	for (unsigned i = 0; i < RDSU_ARRAY_SIZE(k); i++) {
		uint32_t y = w[(i + 2) % 3];

		w[i % 3] ^= y;
		w[i % 3] -= rol32(y, k[i]);
	}
	return w[0];
}

unsigned rdsu_mprds_hash(uint16_t port, uint32_t initval, unsigned npaths)
{
	if (npaths <= 1)
		return 0;
	/* The host-order port, as the lab confirmed on 6.1 and 7.2. A peer
	 * advertising a count that is not a power of two gets the kernel's
	 * mask anyway. */
	return jhash_1word(port, initval) & (npaths - 1);
}

unsigned rdsu_path_of(enum rdsu_path_rule rule, uint16_t sport, uint16_t dport,
		      uint32_t initval, unsigned npaths)
{
	uint16_t lo = sport < dport ? sport : dport, hi = sport < dport ? dport : sport;

	if (rule == RDSU_PATH_BY_PORT)
		return rdsu_mprds_hash(sport, initval, npaths);
	if (npaths <= 1)
		return 0;
	/* No initval: both ends must come to the same path. */
	return jhash_1word((uint32_t)lo << 16 | hi, 0) & (npaths - 1);
}

void rdsu_probe_build(const struct rdsu_conn *c, struct wire_hdr *h, bool pong, uint64_t seq)
{
	const struct rdsu_ep_cfg *cfg = &c->c_ep->cfg;

	wire_build_probe(h, pong, seq, cfg->kver, cfg->npaths, cfg->gen_num);
	/* rds_send_probe adds them only for a t_mp_capable transport. */
	if (!c->c_tp->probe_ext) {
		memset(h->ext, 0, sizeof(h->ext));
		return;
	}
	/* FAULT probe-no-npaths: every kernel puts NPATHS in its probes
	 * (rds_send_probe); leave it out and keep the others. The peer then
	 * keeps its old count, i.e. one path (rds_recv_hs_exthdrs). */
	if (rdsu_faulty(c->c_ep, RDSU_FAULT_PROBE_NO_NPATHS)) {
		struct wire_exts x;

		wire_exts_decode(&x, h->ext, cfg->kver);
		memset(h->ext, 0, sizeof(h->ext));
		for (unsigned i = 0; i < x.count; i++)
			if (x.e[i].type != WIRE_EXT_NPATHS)
				(void)wire_ext_add(h->ext, &x.e[i], cfg->kver);
	}
}

/* FAULT probe-pong-late: long past any reasonable wait for an answer (a
 * conformance suite's default is 2 s), short enough for a test. */
#define PROBE_LATE (5 * RDSU_SEC)

static void hold(struct rdsu_path *cp, enum rdsu_msg_kind kind, uint16_t dport, rdsu_ns at,
		 bool numbered)
{
	uint64_t seq = 0;

	/* A test peer: more answers outstanding than this are dropped. */
	if (cp->cp_n_held == sizeof(cp->cp_held) / sizeof(cp->cp_held[0]))
		return;
	if (numbered) {
		seq = cp->cp_next_tx_seq++;
		if (rdsu_faulty(cp->cp_conn->c_ep, RDSU_FAULT_SEQ_SKIP))
			cp->cp_next_tx_seq++;
	}
	cp->cp_held[cp->cp_n_held++] = (struct rdsu_held){ .at = at, .link = cp->cp_link,
							   .seq = seq, .dport = dport,
							   .kind = (uint8_t)kind };
}

void rdsu_answer(struct rdsu_path *cp, enum rdsu_msg_kind kind, uint16_t dport, rdsu_ns now)
{
	struct rdsu_ep *ep = cp->cp_conn->c_ep;
	rdsu_ns delay = 0;

	/* FAULT answer-delay-1s, answer-delay-3s (both: 4 s): a slow peer,
	 * as an emulated or loaded one is; what it sends is right. The
	 * answer is numbered now, as a kernel numbers a pong before it acts
	 * on the ping's extension headers (a new GEN_NUM restarts the
	 * numbering after it); only its leaving is late. */
	if (rdsu_faulty(ep, RDSU_FAULT_ANSWER_DELAY_1S))
		delay += RDSU_SEC;
	if (rdsu_faulty(ep, RDSU_FAULT_ANSWER_DELAY_3S))
		delay += 3 * RDSU_SEC;
	if (delay)
		hold(cp, kind, dport, now + delay, true);
	else
		(void)rdsu_send_ctl(cp, kind, dport, now);
}

void rdsu_probe_answer(struct rdsu_path *cp, rdsu_ns now)
{
	struct rdsu_ep *ep = cp->cp_conn->c_ep;

	/* FAULT probe-no-pong: the ping's extension headers are still acted
	 * on (rdsu_probe_input), only the pong is left out, so the prober
	 * never learns the count from it. */
	if (rdsu_faulty(ep, RDSU_FAULT_PROBE_NO_PONG))
		return;
	/* FAULT probe-pong-late: held on a timer of the path, one at a time;
	 * the answer to a ping of a connection that is gone would look like
	 * a prompt one on the next, so it goes only on its own. */
	if (rdsu_faulty(ep, RDSU_FAULT_PROBE_PONG_LATE)) {
		for (unsigned i = 0; i < cp->cp_n_held; i++)
			if (cp->cp_held[i].kind == RDSU_MK_PROBE_PONG)
				return;
		hold(cp, RDSU_MK_PROBE_PONG, WIRE_PROBE_PORT, now + PROBE_LATE, false);
		return;
	}
	/* FAULT probe-pong-port0: a plain pong to port 0, with no extension
	 * headers; a kernel ignores it as a ping from port 0. */
	if (rdsu_faulty(ep, RDSU_FAULT_PROBE_PONG_PORT0)) {
		rdsu_answer(cp, RDSU_MK_PONG, 0, now);
		return;
	}
	/* FAULT probe-extra-ping: a probe ping in place of the pong, outside
	 * the one-in-flight rule (c_probe_pending is not consulted). */
	if (rdsu_faulty(ep, RDSU_FAULT_PROBE_EXTRA_PING)) {
		(void)rdsu_send_ctl(cp, RDSU_MK_PROBE_PING, 0, now);
		return;
	}
	rdsu_answer(cp, RDSU_MK_PROBE_PONG, WIRE_PROBE_PORT, now);
}

rdsu_ns rdsu_held_deadline(const struct rdsu_path *cp)
{
	rdsu_ns best = RDSU_NS_NEVER;

	for (unsigned i = 0; i < cp->cp_n_held; i++)
		if (cp->cp_held[i].at < best)
			best = cp->cp_held[i].at;
	return best;
}

int rdsu_held_expire(struct rdsu_path *cp, rdsu_ns now)
{
	unsigned i = 0;
	int ran = 0;

	while (i < cp->cp_n_held) {
		struct rdsu_held h = cp->cp_held[i];

		if (h.at > now) {
			i++;
			continue;
		}
		/* in order of holding: the first due goes first */
		memmove(&cp->cp_held[i], &cp->cp_held[i + 1],
			(cp->cp_n_held - i - 1) * sizeof(cp->cp_held[0]));
		cp->cp_n_held--;
		ran++;
		if (cp->cp_state == RDSU_PATH_UP && cp->cp_link == h.link)
			(void)rdsu_send_ctl_seq(cp, (enum rdsu_msg_kind)h.kind, h.dport, h.seq, now);
	}
	return ran;
}

/* At most one probe ping in flight (c_ping_triggered). */
static bool probe_send(struct rdsu_conn *c, rdsu_ns now)
{
	if (rdsu_send_ctl(&c->c_path[0], RDSU_MK_PROBE_PING, 0, now) <= 0)
		return false;
	c->c_probe_pending = true;
	c->c_probes_out++;
	return true;
}

void rdsu_probe_ping(struct rdsu_conn *c, rdsu_ns now)
{
	/* Only a multipath transport has a path count to learn. */
	if (c->c_tp->max_paths > 1 && !c->c_probe_pending)
		(void)probe_send(c, now);
}

bool rdsu_probe_cp0_caught_up(struct rdsu_conn *c)
{
	struct rdsu_path *cp0 = &c->c_path[0];
	const struct rdsu_msg *head;
	uint64_t min = UINT64_MAX;

	if (c->c_fence != RDSU_FENCE_NONE)
		return false;
	if (!c->c_cp0_catchup)
		return true;
	/* Written-but-unacknowledged messages are older than queued ones,
	 * except after a reset put them back in front: look at both heads. */
	if ((head = rdsu_msg_head(&cp0->cp_retrans_q)))
		min = head->m_seq;
	if ((head = rdsu_msg_head(&cp0->cp_send_q)) && head->m_seq < min)
		min = head->m_seq;
	if (min > c->c_cp0_catchup) {
		c->c_cp0_catchup = 0;
		return true;
	}
	return false;
}

/*
 * The fan-out fence. A socket's messages move from path 0 to their own path
 * when the count becomes known; those still on path 0 must reach the
 * peer's application first. TCP's acknowledgement is not enough: the peer
 * reads its connections in its own order, and a large message acknowledged
 * on path 0 can still be unread when small ones on another path are
 * delivered (seen on loopback). The peer answers a ping only once it has
 * processed everything before it on that connection, so the pong to a probe
 * ping queued behind them is the proof. Pongs carry nothing of their
 * ping: the fence's is known by count, every probe ping being answered
 * once and in order, across path-0 resets too (path.c). The
 * acknowledgement is waited for as well (rdsu_probe_cp0_caught_up).
 * (7.x rds_mprds_cp0_catchup waits only until path 0 has sent them.)
 */
void rdsu_probe_fence_send(struct rdsu_conn *c, rdsu_ns now)
{
	if (c->c_fence != RDSU_FENCE_NEED)
		return;
	if (!probe_send(c, now))
		return;  /* no memory: tried again when path 0 comes up */
	/* Pongs come back in the order of the pings on path 0. */
	c->c_fence_due = c->c_probes_out;
	c->c_fence = RDSU_FENCE_SENT;
}

static void fence_pong(struct rdsu_conn *c)
{
	if (c->c_probes_out)
		c->c_probes_out--;
	if (c->c_fence != RDSU_FENCE_SENT || --c->c_fence_due)
		return;
	c->c_fence = RDSU_FENCE_NONE;
	/* Path 0's acknowledgements may all be in already: they could not
	 * end the hold while the fence stood, so look now, or it stays set
	 * until some path has something to send. */
	(void)rdsu_probe_cp0_caught_up(c);
	for (unsigned i = 1; i < WIRE_MAX_PATHS; i++)
		rdsu_path_kick(&c->c_path[i]);
}

static void gen_update(struct rdsu_conn *c, uint32_t gen)
{
	if (gen == 0 || gen == c->c_peer_gen)
		return;
	if (c->c_peer_gen) {
		for (unsigned i = 0; i < WIRE_MAX_PATHS; i++) {
			struct rdsu_path *cp = &c->c_path[i];

			cp->cp_next_tx_seq = rdsu_path_first_seq(c);
			cp->cp_next_rx_seq = 0;
			rdsu_send_flush_retrans(cp);
		}
		rdsu_recv_seen_reset(c);
		/* Sequence order on path 0 means nothing any more, and
		 * the restarted peer owes no pongs. */
		c->c_fence = RDSU_FENCE_NONE;
		c->c_probes_out = 0;
		c->c_probe_pending = false;
		c->c_cp0_catchup = 0;
		c->c_cp0_data = false;
		c->c_gen_changed = true;
		rdsu_stat_inc(c->c_ep, RDSU_STAT_GEN_RESET);
	}
	c->c_peer_gen = gen;
	rdsu_conn_event(c);
}

void rdsu_probe_input(struct rdsu_conn *c, const struct wire_hdr *h, bool pong, rdsu_ns now)
{
	struct rdsu_ep *ep = c->c_ep;
	struct wire_exts x;
	uint16_t old = c->c_npaths, n;

	rdsu_stat_inc(ep, RDSU_STAT_PROBE_RECV);
	wire_exts_decode(&x, h->ext, ep->cfg.kver);
	if (x.has_npaths)
		n = x.npaths < ep->cfg.npaths ? x.npaths : ep->cfg.npaths;
	else
		n = old;
	if (n > c->c_tp->max_paths)
		n = c->c_tp->max_paths;
	if (n < 1)
		n = 1;
	if (ep->cfg.kver != WIRE_KVER_6)
		c->c_with_sport_idx = x.has_sport_idx;
	if (x.has_gen_num)
		gen_update(c, x.gen_num);
	c->c_probe_pending = false;
	if (pong)
		fence_pong(c);
	if (n != old) {
		c->c_npaths = n;
		/* Data sent on path 0 before the fan-out goes first, so a
		 * socket's order survives its move to another path. */
		if (old <= 1 && n > 1 && c->c_cp0_data) {
			c->c_cp0_catchup = c->c_path[0].cp_next_tx_seq - 1;
			c->c_fence = RDSU_FENCE_NEED;
			rdsu_probe_fence_send(c, now);
		}
		rdsu_conn_event(c);
	}
	if (!c->c_active && c->c_with_sport_idx && n > 1) {
		struct rdsu_path *cp0 = &c->c_path[0];

		/* Slot 0 was given in arrival order before we knew the peer
		 * encodes paths in source ports; re-sync if it is wrong. */
		if (cp0->cp_state == RDSU_PATH_UP && !cp0->cp_outgoing &&
		    cp0->cp_peer_sport % n != 0)
			rdsu_path_drop(cp0, true, false, now);
	}
	if (c->c_npaths > 1 && c->c_active)
		for (unsigned i = 1; i < c->c_npaths; i++)
			rdsu_path_connect_if_down(&c->c_path[i], now);
	rdsu_conn_retry_held(c, now);
	/* Data held on an unsure path 0 (send.c path0_unsure) may go now. */
	rdsu_path_kick(&c->c_path[0]);
}

unsigned rdsu_probe_pick_path(struct rdsu_conn *c, const struct rdsu_sock *rs, uint16_t dport,
			      rdsu_ns now)
{
	enum rdsu_path_rule rule = c->c_ep->cfg.path_rule;

	if (c->c_ep->cfg.kver == WIRE_KVER_6 && c->c_npaths == 0) {
		/* 6.x would block here for the pong; a non-blocking sender
		 * uses path 0 meanwhile. */
		if (rdsu_path_of(rule, rs->rs_port, dport, rs->rs_hash_initval, WIRE_MAX_PATHS))
			rdsu_probe_ping(c, now);
		return 0;
	}
	return rdsu_path_of(rule, rs->rs_port, dport, rs->rs_hash_initval, c->c_npaths);
}

/*
 * Path 0 came up. The accepting side probes while the count is unknown
 * (rds_tcp_accept_one). The connecting side probes on every path-0 (re)connect
 * in 7.x mode, which is what 7.x's probe after each path-0 shutdown
 * amounts to, and in 6.x mode while the count is unknown.
 */
void rdsu_probe_path_up(struct rdsu_path *cp, rdsu_ns now)
{
	struct rdsu_conn *c = cp->cp_conn;

	if (cp->cp_index != 0)
		return;
	if (c->c_npaths == 0 || (cp->cp_outgoing && c->c_ep->cfg.kver != WIRE_KVER_6))
		rdsu_probe_ping(c, now);
	/* A fence whose ping could not be queued (no memory) tries again. */
	rdsu_probe_fence_send(c, now);
}

