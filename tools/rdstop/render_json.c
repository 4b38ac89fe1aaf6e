// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * render_json.c - rdstop's batch JSON (--json): one object per snapshot,
 * a line each, through the tools' output layer (tools/common/out.h). Each
 * object's fields are the tables below, which the man page's OUTPUT
 * section lists; what the source cannot know is null, never 0.
 */
#include "render.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ibres.h"
#include "out.h"

#define F(k, t, ...) { .key = (k), .type = (t), __VA_ARGS__ }

enum {
	P_INDEX, P_LOCAL, P_LOCAL_PORT, P_PEER, P_PEER_PORT, P_STATE, P_NEXT_TX_SEQ,
	P_NEXT_RX_SEQ, P_HDR_REM, P_DATA_REM, P_SENT_NXT, P_EXPECTED_UNA, P_SEEN_UNA,
	P_TX_MSGS, P_RX_MSGS, P_TX_BYTES, P_RX_BYTES, P_RETRANSMITTED, P_DUPS,
	P_RECONNECTS, P_CONNECTS, P_RESETS, P__N
};
static const struct out_field path_fields[P__N] = {
	[P_INDEX] = F("index", OUT_I64),
	[P_LOCAL] = F("local", OUT_STR),
	[P_LOCAL_PORT] = F("local_port", OUT_U64),
	[P_PEER] = F("peer", OUT_STR),
	[P_PEER_PORT] = F("peer_port", OUT_U64),
	[P_STATE] = F("state", OUT_STR),
	[P_NEXT_TX_SEQ] = F("next_tx_seq", OUT_U64),
	[P_NEXT_RX_SEQ] = F("next_rx_seq", OUT_U64),
	[P_HDR_REM] = F("hdr_rem", OUT_U64),
	[P_DATA_REM] = F("data_rem", OUT_U64),
	[P_SENT_NXT] = F("sent_nxt", OUT_U64),
	[P_EXPECTED_UNA] = F("expected_una", OUT_U64),
	[P_SEEN_UNA] = F("seen_una", OUT_U64),
	[P_TX_MSGS] = F("tx_msgs", OUT_U64),
	[P_RX_MSGS] = F("rx_msgs", OUT_U64),
	[P_TX_BYTES] = F("tx_bytes", OUT_U64),
	[P_RX_BYTES] = F("rx_bytes", OUT_U64),
	[P_RETRANSMITTED] = F("retransmitted", OUT_U64),
	[P_DUPS] = F("dups", OUT_U64),
	[P_RECONNECTS] = F("reconnects", OUT_U64),
	[P_CONNECTS] = F("connects", OUT_U64),
	[P_RESETS] = F("resets", OUT_U64),
};
static const struct out_group path_group = OUT_GROUP("path", path_fields);

enum {
	C_LOCAL, C_PEER, C_TRANSPORT, C_STATE, C_TOS, C_PATHS, C_GENERATION, C_NEXT_TX_SEQ,
	C_NEXT_RX_SEQ, C_TX_MSGS_PER_SEC, C_RX_MSGS_PER_SEC, C_TX_BYTES_PER_SEC,
	C_RX_BYTES_PER_SEC, C_SENDQ_MSGS, C_SENDQ_BYTES, C_RETRANSQ_MSGS, C_RETRANSQ_BYTES,
	C_TX_MSGS, C_RX_MSGS, C_TX_BYTES, C_RX_BYTES, C_RETRANSMITTED, C_DUPS, C_RECONNECTS,
	C_LOCAL_CONGESTED, C_PEER_CONGESTED, C_LOCAL_CONGESTED_PORTS,
	C_PEER_CONGESTED_PORTS, C_PATH, C__N
};
static const struct out_field conn_fields[C__N] = {
	[C_LOCAL] = F("local", OUT_STR),
	[C_PEER] = F("peer", OUT_STR),
	[C_TRANSPORT] = F("transport", OUT_STR),
	[C_STATE] = F("state", OUT_STR),
	[C_TOS] = F("tos", OUT_U64),
	[C_PATHS] = F("paths", OUT_U64),
	[C_GENERATION] = F("generation", OUT_U64),
	[C_NEXT_TX_SEQ] = F("next_tx_seq", OUT_U64),
	[C_NEXT_RX_SEQ] = F("next_rx_seq", OUT_U64),
	[C_TX_MSGS_PER_SEC] = F("tx_msgs_per_sec", OUT_FIXED, .digits = 1),
	[C_RX_MSGS_PER_SEC] = F("rx_msgs_per_sec", OUT_FIXED, .digits = 1),
	[C_TX_BYTES_PER_SEC] = F("tx_bytes_per_sec", OUT_FIXED, .digits = 1),
	[C_RX_BYTES_PER_SEC] = F("rx_bytes_per_sec", OUT_FIXED, .digits = 1),
	[C_SENDQ_MSGS] = F("sendq_msgs", OUT_U64),
	[C_SENDQ_BYTES] = F("sendq_bytes", OUT_U64),
	[C_RETRANSQ_MSGS] = F("retransq_msgs", OUT_U64),
	[C_RETRANSQ_BYTES] = F("retransq_bytes", OUT_U64),
	[C_TX_MSGS] = F("tx_msgs", OUT_U64),
	[C_RX_MSGS] = F("rx_msgs", OUT_U64),
	[C_TX_BYTES] = F("tx_bytes", OUT_U64),
	[C_RX_BYTES] = F("rx_bytes", OUT_U64),
	[C_RETRANSMITTED] = F("retransmitted", OUT_U64),
	[C_DUPS] = F("dups", OUT_U64),
	[C_RECONNECTS] = F("reconnects", OUT_U64),
	[C_LOCAL_CONGESTED] = F("local_congested", OUT_U64),
	[C_PEER_CONGESTED] = F("peer_congested", OUT_U64),
	[C_LOCAL_CONGESTED_PORTS] = F("local_congested_ports", OUT_ARRAY),
	[C_PEER_CONGESTED_PORTS] = F("peer_congested_ports", OUT_ARRAY),
	[C_PATH] = F("path", OUT_ARRAY, .sub = &path_group),
};
static const struct out_group conn_group = OUT_GROUP("connection", conn_fields);

enum { E_TIME_S, E_LOCAL, E_PEER, E_SIDE, E_FIRST, E_LAST, E_CONGESTED, E_GROUPS, E__N };
static const struct out_field event_fields[E__N] = {
	[E_TIME_S] = F("time_s", OUT_FIXED, .digits = 3),
	[E_LOCAL] = F("local", OUT_STR),
	[E_PEER] = F("peer", OUT_STR),
	[E_SIDE] = F("side", OUT_STR),
	[E_FIRST] = F("first", OUT_U64),
	[E_LAST] = F("last", OUT_U64),
	[E_CONGESTED] = F("congested", OUT_BOOL),
	[E_GROUPS] = F("groups", OUT_U64),
};
static const struct out_group event_group = OUT_GROUP("cong_event", event_fields);

enum {
	K_BOUND, K_BOUND_PORT, K_CONNECTED, K_CONNECTED_PORT, K_SNDBUF, K_RCVBUF,
	K_RECVQ_MSGS, K_RECVQ_BYTES, K_SENDQ_MSGS, K_SENDQ_BYTES, K_INODE, K_CONGESTED, K__N
};
static const struct out_field sock_fields[K__N] = {
	[K_BOUND] = F("bound", OUT_STR),
	[K_BOUND_PORT] = F("bound_port", OUT_U64),
	[K_CONNECTED] = F("connected", OUT_STR),
	[K_CONNECTED_PORT] = F("connected_port", OUT_U64),
	[K_SNDBUF] = F("sndbuf", OUT_U64),
	[K_RCVBUF] = F("rcvbuf", OUT_U64),
	[K_RECVQ_MSGS] = F("recvq_msgs", OUT_U64),
	[K_RECVQ_BYTES] = F("recvq_bytes", OUT_U64),
	[K_SENDQ_MSGS] = F("sendq_msgs", OUT_U64),
	[K_SENDQ_BYTES] = F("sendq_bytes", OUT_U64),
	[K_INODE] = F("inode", OUT_U64),
	[K_CONGESTED] = F("congested", OUT_BOOL),
};
static const struct out_group sock_group = OUT_GROUP("socket", sock_fields);

enum { N_NAME, N_VALUE, N_PER_SEC, N__N };
static const struct out_field ctr_fields[N__N] = {
	[N_NAME] = F("name", OUT_STR),
	[N_VALUE] = F("value", OUT_U64),
	[N_PER_SEC] = F("per_sec", OUT_FIXED, .digits = 1),
};
static const struct out_group ctr_group = OUT_GROUP("counter", ctr_fields);

/* An RDS IB connection and its queue pair as RDMA netlink shows it. */
enum {
	B_LOCAL, B_PEER, B_TOS, B_SL, B_SEND_WR, B_RECV_WR, B_SEND_SGE, B_MR_MAX, B_MR_SIZE,
	B_CACHE_ALLOCS, B_JOIN, B_DEVICE, B_PORT, B_PORT_STATE, B_QPN, B_QP_STATE, B_RQPN,
	B__N
};
static const struct out_field ib_fields[B__N] = {
	[B_LOCAL] = F("local", OUT_STR),
	[B_PEER] = F("peer", OUT_STR),
	[B_TOS] = F("tos", OUT_U64),
	[B_SL] = F("sl", OUT_U64),
	[B_SEND_WR] = F("send_wr", OUT_U64),
	[B_RECV_WR] = F("recv_wr", OUT_U64),
	[B_SEND_SGE] = F("send_sge", OUT_U64),
	[B_MR_MAX] = F("mr_max", OUT_U64),
	[B_MR_SIZE] = F("mr_size", OUT_U64),
	[B_CACHE_ALLOCS] = F("cache_allocs", OUT_U64),
	[B_JOIN] = F("join", OUT_STR),
	[B_DEVICE] = F("device", OUT_STR),
	[B_PORT] = F("port", OUT_U64),
	[B_PORT_STATE] = F("port_state", OUT_STR),
	[B_QPN] = F("qpn", OUT_U64),
	[B_QP_STATE] = F("qp_state", OUT_STR),
	[B_RQPN] = F("rqpn", OUT_U64),
};
static const struct out_group ib_group = OUT_GROUP("ib_connection", ib_fields);

/* A port of an RDMA device. */
enum { R_PORT, R_STATE, R_PHYS_STATE, R_NETDEV, R__N };
static const struct out_field port_fields[R__N] = {
	[R_PORT] = F("port", OUT_U64),
	[R_STATE] = F("state", OUT_STR),
	[R_PHYS_STATE] = F("phys_state", OUT_U64),
	[R_NETDEV] = F("netdev", OUT_STR),
};
static const struct out_group port_group = OUT_GROUP("rdma_port", port_fields);

/* An RDMA device and its resources, every owner's. */
enum { D_NAME, D_INDEX, D_QPS, D_CQS, D_MRS, D_PDS, D_CM_IDS, D_PORTS, D__N };
static const struct out_field dev_fields[D__N] = {
	[D_NAME] = F("name", OUT_STR),
	[D_INDEX] = F("index", OUT_U64),
	[D_QPS] = F("qps", OUT_U64),
	[D_CQS] = F("cqs", OUT_U64),
	[D_MRS] = F("mrs", OUT_U64),
	[D_PDS] = F("pds", OUT_U64),
	[D_CM_IDS] = F("cm_ids", OUT_U64),
	[D_PORTS] = F("ports", OUT_ARRAY, .sub = &port_group),
};
static const struct out_group dev_group = OUT_GROUP("rdma_device", dev_fields);

enum {
	S_SOURCE, S_TIME_S, S_REPLAY, S_ENDED, S_TRUNCATED, S_INTERVAL_S, S_MSGS_IN_PER_SEC,
	S_MSGS_OUT_PER_SEC, S_BYTES_IN_PER_SEC, S_LOCAL_CONGESTED, S_LOCAL_CONGESTED_PORTS,
	S_CONNECTIONS, S_IB_CONNECTIONS, S_IB, S_RDMA_DEVICES, S_RDMA_ERROR, S_CONG_EVENTS, S_CONG_EVENTS_LOST, S_CONG_NEWS,
	S_CONG_MONITOR, S_SOCKETS, S_COUNTERS, S__N
};
static const struct out_field snap_fields[S__N] = {
	[S_SOURCE] = F("source", OUT_STR),
	[S_TIME_S] = F("time_s", OUT_FIXED, .digits = 3),
	[S_REPLAY] = F("replay", OUT_BOOL),
	[S_ENDED] = F("ended", OUT_BOOL),
	[S_TRUNCATED] = F("truncated", OUT_BOOL),
	[S_INTERVAL_S] = F("interval_s", OUT_FIXED, .digits = 3),
	[S_MSGS_IN_PER_SEC] = F("msgs_in_per_sec", OUT_FIXED, .digits = 1),
	[S_MSGS_OUT_PER_SEC] = F("msgs_out_per_sec", OUT_FIXED, .digits = 1),
	[S_BYTES_IN_PER_SEC] = F("bytes_in_per_sec", OUT_FIXED, .digits = 1),
	[S_LOCAL_CONGESTED] = F("local_congested", OUT_U64),
	[S_LOCAL_CONGESTED_PORTS] = F("local_congested_ports", OUT_ARRAY),
	[S_CONNECTIONS] = F("connections", OUT_ARRAY, .sub = &conn_group),
	[S_IB_CONNECTIONS] = F("ib_connections", OUT_U64),
	[S_IB] = F("ib", OUT_ARRAY, .sub = &ib_group),
	[S_RDMA_DEVICES] = F("rdma_devices", OUT_ARRAY, .sub = &dev_group),
	[S_RDMA_ERROR] = F("rdma_error", OUT_STR),
	[S_CONG_EVENTS] = F("cong_events", OUT_ARRAY, .sub = &event_group),
	[S_CONG_EVENTS_LOST] = F("cong_events_lost", OUT_U64),
	[S_CONG_NEWS] = F("cong_news", OUT_STR),
	[S_CONG_MONITOR] = F("cong_monitor", OUT_BOOL),
	[S_SOCKETS] = F("sockets", OUT_ARRAY, .sub = &sock_group),
	[S_COUNTERS] = F("counters", OUT_ARRAY, .sub = &ctr_group),
};
static const struct out_group snap_group = OUT_GROUP("snapshot", snap_fields);

#undef F

static const uint8_t zero16[16];
static const uint8_t v4_zero[16] = { [10] = 0xff, [11] = 0xff };

/* A map's |n| congested ports as runs ("4000", "4000-4003"), or null. */
static void ports(struct out *o, unsigned id, const struct wire_cong_map *m, size_t n)
{
	/* most maps are all clear: no walk over 65536 bits for them */
	int32_t p = m && n ? wire_cong_next(m, 0) : -1;

	if (!m) {
		out_null(o, id);
		return;
	}
	out_arr_open(o, id);
	while (p >= 0) {
		int32_t q = p;
		char buf[32];

		while (q < 65535 && wire_cong_test(m, (uint16_t)(q + 1)))
			q++;
		if (q == p)
			snprintf(buf, sizeof(buf), "%d", p);
		else
			snprintf(buf, sizeof(buf), "%d-%d", p, q);
		out_elem_str(o, buf);
		p = q < 65535 ? wire_cong_next(m, (uint32_t)q + 1) : -1;
	}
	out_close(o);
}

/* The number of ports set in |m| (null if unknown); returns it. */
static size_t count(struct out *o, unsigned id, const struct wire_cong_map *m)
{
	size_t n = m ? wire_cong_count(m) : 0;

	if (m)
		out_u64(o, id, n);
	else
		out_null(o, id);
	return n;
}

static void rate(struct out *o, unsigned id, bool known, double v)
{
	if (known)
		out_double(o, id, v);
	else
		out_null(o, id);
}

static const char *path_state(uint8_t st)
{
	return st == 2 ? "up" : st == 1 ? "connecting" : "down";
}

static void path_json(struct out *o, const struct top_path *p)
{
	char a[64];

	out_elem_obj(o);
	out_i64(o, P_INDEX, p->index);
	out_str(o, P_LOCAL, top_addr_str(p->laddr, a, sizeof(a)));
	if (p->lport)
		out_u64(o, P_LOCAL_PORT, p->lport);
	else
		out_null(o, P_LOCAL_PORT);
	out_str(o, P_PEER, top_addr_str(p->faddr, a, sizeof(a)));
	if (p->fport)
		out_u64(o, P_PEER_PORT, p->fport);
	else
		out_null(o, P_PEER_PORT);
	if (p->has_state) {
		out_str(o, P_STATE, path_state(p->state));
		out_u64(o, P_CONNECTS, p->connects);
		out_u64(o, P_RESETS, p->resets);
	}
	if (p->has_seq) {
		out_u64(o, P_NEXT_TX_SEQ, p->next_tx_seq);
		out_u64(o, P_NEXT_RX_SEQ, p->next_rx_seq);
	}
	if (p->has_tcp) {
		out_u64(o, P_HDR_REM, p->hdr_rem);
		out_u64(o, P_DATA_REM, p->data_rem);
		out_u64(o, P_SENT_NXT, p->last_sent_nxt);
		out_u64(o, P_EXPECTED_UNA, p->last_expected_una);
		out_u64(o, P_SEEN_UNA, p->last_seen_una);
	}
	if (p->has_wire) {
		out_u64(o, P_TX_MSGS, p->tx_msgs);
		out_u64(o, P_RX_MSGS, p->rx_msgs);
		out_u64(o, P_TX_BYTES, p->tx_bytes);
		out_u64(o, P_RX_BYTES, p->rx_bytes);
		out_u64(o, P_RETRANSMITTED, p->retrans);
		out_u64(o, P_DUPS, p->dups);
		out_u64(o, P_RECONNECTS, p->reconnects);
	}
	out_close(o);
}

static void conn_json(struct out *o, const struct top_snap *s, const struct top_paths *pi,
		      size_t i, const struct top_conn_rate *cr)
{
	const struct top_conn *c = &s->conns[i];
	bool known = cr && cr->known && !cr->reset;
	char a[64], st[32];

	out_elem_obj(o);
	out_str(o, C_LOCAL, top_addr_str(c->laddr, a, sizeof(a)));
	out_str(o, C_PEER, top_addr_str(c->faddr, a, sizeof(a)));
	out_str(o, C_TRANSPORT, c->transport);
	out_str(o, C_STATE, top_conn_state(c->flags, st, sizeof(st)));
	out_u64(o, C_TOS, c->tos);
	out_u64(o, C_PATHS, c->npaths);
	if (c->has_gen)
		out_u64(o, C_GENERATION, c->gen);
	else
		out_null(o, C_GENERATION);
	if (c->has_wire) {
		out_null(o, C_NEXT_TX_SEQ);
		out_null(o, C_NEXT_RX_SEQ);
	} else {
		out_u64(o, C_NEXT_TX_SEQ, c->next_tx_seq);
		out_u64(o, C_NEXT_RX_SEQ, c->next_rx_seq);
	}
	rate(o, C_TX_MSGS_PER_SEC, known, known ? cr->tx_msgs_per_sec : 0);
	rate(o, C_RX_MSGS_PER_SEC, known, known ? cr->rx_msgs_per_sec : 0);
	rate(o, C_TX_BYTES_PER_SEC, known && cr->has_bytes, known ? cr->tx_bytes_per_sec : 0);
	rate(o, C_RX_BYTES_PER_SEC, known && cr->has_bytes, known ? cr->rx_bytes_per_sec : 0);
	if (c->has_wire) {
		out_null(o, C_SENDQ_MSGS);
		out_null(o, C_RETRANSQ_MSGS);
		out_u64(o, C_TX_MSGS, c->tx_msgs);
		out_u64(o, C_RX_MSGS, c->rx_msgs);
		out_u64(o, C_TX_BYTES, c->tx_bytes);
		out_u64(o, C_RX_BYTES, c->rx_bytes);
		out_u64(o, C_RETRANSMITTED, c->retrans);
		out_u64(o, C_DUPS, c->dups);
	} else {
		out_u64(o, C_SENDQ_MSGS, c->sendq_msgs);
		out_u64(o, C_SENDQ_BYTES, c->sendq_bytes);
		out_u64(o, C_RETRANSQ_MSGS, c->retransq_msgs);
		out_u64(o, C_RETRANSQ_BYTES, c->retransq_bytes);
		if (c->seq_sum) {
			out_u64(o, C_TX_MSGS, c->tx_seq_sum);
			out_u64(o, C_RX_MSGS, c->rx_seq_sum);
		}
		if (c->has_bytes) {
			out_u64(o, C_TX_BYTES, c->tx_bytes);
			out_u64(o, C_RX_BYTES, c->rx_bytes);
		}
	}
	if (c->has_wire || c->has_reconnects)
		out_u64(o, C_RECONNECTS, c->reconnects);
	else
		out_null(o, C_RECONNECTS);
	ports(o, C_LOCAL_CONGESTED_PORTS, c->lcl_cong, count(o, C_LOCAL_CONGESTED, c->lcl_cong));
	ports(o, C_PEER_CONGESTED_PORTS, c->peer_cong, count(o, C_PEER_CONGESTED, c->peer_cong));
	out_arr_open(o, C_PATH);
	for (size_t j = top_paths_first(pi, i); j != SIZE_MAX; j = top_paths_next(pi, i, j))
		path_json(o, &s->paths[j]);
	out_close(o);
	out_close(o);
}

static void event_json(struct out *o, const struct top_snap *s, const struct top_cong_event *e)
{
	const struct top_conn *c = e->conn < s->n_conns ? &s->conns[e->conn] : NULL;
	char a[64];

	out_elem_obj(o);
	out_double(o, E_TIME_S, (double)e->t_ns / 1e9);
	if (c) {
		out_str(o, E_LOCAL, top_addr_str(c->laddr, a, sizeof(a)));
		out_str(o, E_PEER, top_addr_str(c->faddr, a, sizeof(a)));
	}
	out_str(o, E_SIDE, e->from_peer ? "peer" : c ? "local" : "node");
	if (e->groups) {
		out_u64(o, E_GROUPS, e->groups);
	} else {
		out_u64(o, E_FIRST, e->first);
		out_u64(o, E_LAST, e->last);
		out_bool(o, E_CONGESTED, e->congested);
	}
	out_close(o);
}

static const char *const join_names[] = {
	[TOP_IBJ_NONE] = "no_view", [TOP_IBJ_NOQP] = "none",
	[TOP_IBJ_AMBIG] = "ambiguous", [TOP_IBJ_OK] = "ok",
};

static void ib_json(struct out *o, const struct top_snap *s, const struct top_ib *b)
{
	const struct wire_info_rdma_conn *w = &b->r;
	bool ok = b->join == TOP_IBJ_OK;
	char a[64];

	out_elem_obj(o);
	out_str(o, B_LOCAL, top_addr_str(w->src_addr, a, sizeof(a)));
	out_str(o, B_PEER, top_addr_str(w->dst_addr, a, sizeof(a)));
	out_u64(o, B_TOS, w->tos);
	out_u64(o, B_SL, w->sl);
	out_u64(o, B_SEND_WR, w->max_send_wr);
	out_u64(o, B_RECV_WR, w->max_recv_wr);
	out_u64(o, B_SEND_SGE, w->max_send_sge);
	out_u64(o, B_MR_MAX, w->rdma_mr_max);
	out_u64(o, B_MR_SIZE, w->rdma_mr_size);
	out_u64(o, B_CACHE_ALLOCS, w->cache_allocs);
	out_str(o, B_JOIN, join_names[b->join]);
	if (ok && b->dev < s->n_ibdevs)
		out_str(o, B_DEVICE, s->ibdevs[b->dev].name);
	else
		out_null(o, B_DEVICE);
	if (ok && b->port)
		out_u64(o, B_PORT, b->port);
	else
		out_null(o, B_PORT);
	if (ok && b->has_port_state)
		out_str(o, B_PORT_STATE, wire_tok_str(wire_nldev_port_state_toks,
						      b->port_state, "?"));
	else
		out_null(o, B_PORT_STATE);
	if (ok)
		out_u64(o, B_QPN, b->qpn);
	else
		out_null(o, B_QPN);
	if (ok && b->has_qp)
		out_str(o, B_QP_STATE, top_ib_qp_str(b));
	else
		out_null(o, B_QP_STATE);
	if (ok && b->has_rqpn)
		out_u64(o, B_RQPN, b->rqpn);
	else
		out_null(o, B_RQPN);
	out_close(o);
}

static void dev_json(struct out *o, const struct top_ibdev *d)
{
	out_elem_obj(o);
	out_str(o, D_NAME, d->name);
	out_u64(o, D_INDEX, d->index);
	if (d->has_counts) {
		out_u64(o, D_QPS, d->qps);
		out_u64(o, D_CQS, d->cqs);
		out_u64(o, D_MRS, d->mrs);
		out_u64(o, D_PDS, d->pds);
		out_u64(o, D_CM_IDS, d->cm_ids);
	}
	out_arr_open(o, D_PORTS);
	for (unsigned p = 0; p < d->n_ports; p++) {
		out_elem_obj(o);
		out_u64(o, R_PORT, d->ports[p].port);
		out_str(o, R_STATE, wire_tok_str(wire_nldev_port_state_toks,
						 d->ports[p].state, "?"));
		out_u64(o, R_PHYS_STATE, d->ports[p].phys_state);
		if (d->ports[p].ndev[0])
			out_str(o, R_NETDEV, d->ports[p].ndev);
		else
			out_null(o, R_NETDEV);
		out_close(o);
	}
	out_close(o);
	out_close(o);
}

static void sock_json(struct out *o, const struct top_sock *k)
{
	char a[64];
	bool conn = memcmp(k->connected_addr, zero16, 16) && memcmp(k->connected_addr, v4_zero, 16);

	out_elem_obj(o);
	out_str(o, K_BOUND, top_addr_str(k->bound_addr, a, sizeof(a)));
	out_u64(o, K_BOUND_PORT, k->bound_port);
	if (conn) {
		out_str(o, K_CONNECTED, top_addr_str(k->connected_addr, a, sizeof(a)));
		out_u64(o, K_CONNECTED_PORT, k->connected_port);
	} else {
		out_null(o, K_CONNECTED);
		out_null(o, K_CONNECTED_PORT);
	}
	out_u64(o, K_SNDBUF, k->sndbuf);
	out_u64(o, K_RCVBUF, k->rcvbuf);
	out_u64(o, K_RECVQ_MSGS, k->recvq_msgs);
	out_u64(o, K_RECVQ_BYTES, k->recvq_bytes);
	out_u64(o, K_SENDQ_MSGS, k->sendq_msgs);
	out_u64(o, K_SENDQ_BYTES, k->sendq_bytes);
	out_u64(o, K_INODE, k->inum);
	if (k->has_cong)
		out_bool(o, K_CONGESTED, k->congested);
	else
		out_null(o, K_CONGESTED);
	out_close(o);
}

void top_print_json(FILE *f, const struct top_snap *s, const struct top_rates *r)
{
	struct out o;
	struct top_paths pi;
	bool per = r && r->seconds > 0;

	out_init(&o, f, OUT_JSON, 0, 0);
	out_begin(&o, &snap_group);
	out_str(&o, S_SOURCE, s->source ? s->source : "?");
	out_double(&o, S_TIME_S, (double)s->now_ns / 1e9);
	out_bool(&o, S_REPLAY, s->replay);
	out_bool(&o, S_ENDED, s->ended);
	out_bool(&o, S_TRUNCATED, s->truncated);
	rate(&o, S_INTERVAL_S, per, per ? r->seconds : 0);
	rate(&o, S_MSGS_IN_PER_SEC, r && r->has_msgs, r ? r->msgs_in_per_sec : 0);
	rate(&o, S_MSGS_OUT_PER_SEC, r && r->has_msgs, r ? r->msgs_out_per_sec : 0);
	rate(&o, S_BYTES_IN_PER_SEC, r && r->has_bytes_in, r ? r->bytes_in_per_sec : 0);
	ports(&o, S_LOCAL_CONGESTED_PORTS, s->local_cong,
	      count(&o, S_LOCAL_CONGESTED, s->local_cong));
	top_paths_init(&pi, s);
	out_arr_open(&o, S_CONNECTIONS);
	for (size_t i = 0; i < s->n_conns; i++)
		conn_json(&o, s, &pi, i, r && i < r->n_conns ? &r->conns[i] : NULL);
	out_close(&o);
	top_paths_fini(&pi);
	out_u64(&o, S_IB_CONNECTIONS, s->n_ibs);
	out_arr_open(&o, S_IB);
	for (size_t i = 0; i < s->n_ibs; i++)
		ib_json(&o, s, &s->ibs[i]);
	out_close(&o);
	if (s->has_rdma) {
		out_arr_open(&o, S_RDMA_DEVICES);
		for (size_t i = 0; i < s->n_ibdevs; i++)
			dev_json(&o, &s->ibdevs[i]);
		out_close(&o);
	} else {
		out_null(&o, S_RDMA_DEVICES);
	}
	if (s->rdma_error)
		out_str(&o, S_RDMA_ERROR, s->rdma_error);
	out_arr_open(&o, S_CONG_EVENTS);
	for (size_t i = 0; i < s->n_events; i++)
		event_json(&o, s, &s->events[i]);
	out_close(&o);
	out_u64(&o, S_CONG_EVENTS_LOST, s->events_lost);
	if (s->cong_news) {
		out_str(&o, S_CONG_NEWS, s->cong_news);
		out_bool(&o, S_CONG_MONITOR, s->has_cong_mask);
	}
	if (s->no_sockets) {
		out_null(&o, S_SOCKETS);
	} else {
		out_arr_open(&o, S_SOCKETS);
		for (size_t i = 0; i < s->n_socks; i++)
			sock_json(&o, &s->socks[i]);
		out_close(&o);
	}
	out_arr_open(&o, S_COUNTERS);
	for (size_t i = 0; i < s->n_counters; i++) {
		const struct top_counter_rate *cr =
			per && i < r->n_counters ? &r->counters[i] : NULL;

		out_elem_obj(&o);
		out_str(&o, N_NAME, s->counters[i].name);
		out_u64(&o, N_VALUE, s->counters[i].value);
		rate(&o, N_PER_SEC, cr && !cr->reset, cr ? cr->per_sec : 0);
		out_close(&o);
	}
	out_close(&o);
	out_end(&o);
	out_fini(&o);
}
