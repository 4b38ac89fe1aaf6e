/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * cases.h - rds-conform: the case functions (cases_*.c) the catalogue
 * (catalog.c) lists, and the helpers they share.
 */
#ifndef CONFORM_CASES_H
#define CONFORM_CASES_H

#include <stdarg.h>

#include "agent.h"
#include "conform.h"
#include "node.h"

/* cf_set() - the verdict and the actual outcome in one call. */
void cf_set(struct cf_result *res, enum cf_verdict v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Where kernel behaviour departs from the spec, a case says so with a
 * reason that names the row of docs/kernel-behaviour.md it matches. */
#define KB "docs/kernel-behaviour.md"

/* cf_first_seq() - index in c->log of the first newly numbered message
 * (not a map, not RETRANSMITTED: a resent one keeps an older number) at
 * or after |from|, or -1. */
long cf_first_seq(const struct cf_conn *c, size_t from);
/* cf_ping() - a ping from |sport| and wait for its pong. Return: 1 and *m
 * (the pong); 0 timeout; negative as cf_recv. */
int cf_ping(struct cf_conn *c, uint16_t sport, struct cf_msg *m, int ms);
/* cf_pings_unanswered() - the peer has answered none of our pings in this
 * run, and left at least one unanswered. */
bool cf_pings_unanswered(const struct cf_run *r);
/* cf_no_probe_pong() - when the last session had no probe pong, give the
 * case |v| with the reason naming what came instead (and |owner|, the
 * case that judges the missing answer, or NULL). Return: true when it did
 * (the case is decided). */
bool cf_no_probe_pong(struct cf_run *r, struct cf_result *res, enum cf_verdict v,
		      const char *owner);
/* cf_single_path() - SKIP the case when the last session agreed on fewer
 * than 2 paths, saying why. Return: true when it did. */
bool cf_single_path(struct cf_run *r, struct cf_result *res);
/* cf_conn_path() - connect an extra path for index |i| of |n|: its source
 * port is chosen so that port % n == i, as a 7.x kernel does (SPORT_IDX).
 * Return: 0; negative errno. */
int cf_conn_path(struct cf_run *r, unsigned i, unsigned n, struct cf_conn **out);
/* cf_need_agent() - SKIP the case when there is no agent. Return: true
 * when it can go on. */
bool cf_need_agent(struct cf_run *r, struct cf_result *res);
/* cf_agent_failed() - ERROR with the agent's reason. */
void cf_agent_failed(struct cf_run *r, struct cf_result *res, const char *what, int err);

/* cf_agent_take() - wait up to the run's timeout for |n| deliveries on
 * the agent's |port|, storing at most |cap|. Return: how many came; -1
 * with res set to ERROR when the agent failed. */
long cf_agent_take(struct cf_run *r, struct cf_result *res, uint16_t port, uint32_t n,
		   struct cf_delivery *d, size_t cap);

#define CASE(name) void name(struct cf_run *r, struct cf_result *res)

/* cases_wire.c */
CASE(case_header_framing);
CASE(case_header_csum);
CASE(case_header_reserved);
CASE(case_ack_piggyback);
CASE(case_tcp_no_acks);
CASE(case_seq_start);
CASE(case_seq_step);
CASE(case_seq_reconnect);
CASE(case_map_seq);
CASE(case_ping_pong);
CASE(case_pong_empty);
CASE(case_ping_port0);
CASE(case_probe_answer);
CASE(case_probe_npaths_spec);
CASE(case_probe_npaths_linux);
CASE(case_probe_npaths_range);
CASE(case_probe_gen);
CASE(case_probe_sport_idx);
CASE(case_ext_count);
CASE(case_ext_unknown);
/* cases_conn.c */
CASE(case_map_on_connect);
CASE(case_larger_reset);
CASE(case_larger_kick);
CASE(case_paths_accept);
CASE(case_paths_beyond);
CASE(case_reconnect_smaller);
CASE(case_reconnect_larger);
CASE(case_retrans_flag);
CASE(case_dup_dropped);
CASE(case_gen_reset);
/* cases_data.c */
CASE(case_deliver_in);
CASE(case_deliver_out);
CASE(case_cong_set);
CASE(case_cong_threshold);
CASE(case_cong_accept);
CASE(case_cong_clear);
/* cases_hostile.c */
CASE(case_hostile_hlen);
CASE(case_hostile_map_len);
CASE(case_hostile_truncated);
CASE(case_hostile_garbage);

/* cases_ib.c */
CASE(case_ib_pd_31);
CASE(case_ib_pd_4x);
CASE(case_ib_pd_reject);
CASE(case_ib_pd_major0);
CASE(case_ib_frag_mismatch);
CASE(case_ib_frag_runt);
CASE(case_ib_csum_bad);
CASE(case_ib_csum_peer);
CASE(case_ib_ack_required);
CASE(case_ib_hack);
CASE(case_ib_ack_only);
CASE(case_ib_hack_honoured);
CASE(case_ib_ping);
CASE(case_ib_seq);
CASE(case_ib_cong_map);
CASE(case_ib_cong_set);
/* cases_rdma.c */
CASE(case_rdma_dest);
CASE(case_rdma_write);
CASE(case_rdma_rkey);
CASE(case_rdma_range);
CASE(case_rdma_freed);
CASE(case_rdma_once);
CASE(case_rdma_notify);
CASE(case_rdma_notify_fail);

#endif /* CONFORM_CASES_H */
