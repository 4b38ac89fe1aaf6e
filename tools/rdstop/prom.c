// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * prom.c - rdstop's metrics: the description table (one row a metric:
 * name, type, scope, HELP and the function that reads its value from the
 * snapshot) and the one writer that renders it in the Prometheus text
 * format or OpenMetrics. Decode once (the sources fill a top_snap),
 * render many (text, JSON, these).
 *
 * Cardinality is bounded: connections are ranked by messages sent and
 * received; the first |top| have series of their own (and their paths),
 * the rest are summed into one set labelled local="other", peer="other".
 */
#define _GNU_SOURCE
#include "prom.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What a value function sees. */
struct pctx {
	const struct top_snap *s;      /* NULL: no snapshot */
	const struct prom_self *self;
	const struct top_conn *c;      /* PROM_S_CONN, PROM_S_PATH */
	bool other;                    /* c is the sum of the folded connections */
	const struct top_path *p;      /* PROM_S_PATH */
	unsigned group;                /* PROM_S_GROUP */
	const char *state;             /* PROM_S_STATE */
	const struct top_ib *ib;       /* PROM_S_IB */
	const struct top_ibdev *dev;   /* PROM_S_IBPORT, PROM_S_IBRES */
	unsigned port_i;               /* PROM_S_IBPORT: index into dev->ports */
	unsigned kind;                 /* PROM_S_IBRES: index into ib_kinds[] */
	size_t folded;                 /* connections in the "other" set */
	/* congested ports by port group, counted once a rendering */
	bool local_known, peer_known;
	uint64_t local_groups[64], peer_groups[64];
};

typedef bool (*prom_get)(const struct pctx *x, double *v);

struct prom_metric {
	const char *name;              /* without prefix, without _total */
	enum prom_type type;
	enum prom_scope scope;
	prom_get get;                  /* false: no sample (the source cannot know) */
	const char *help;
};

/* ------------------------------------------------------------------------
 * Derived values
 */

static uint64_t conn_sent(const struct top_conn *c)
{
	if (c->has_wire)
		return c->tx_msgs;
	if (c->seq_sum)
		return c->tx_seq_sum;
	return c->next_tx_seq ? c->next_tx_seq - 1 : 0;
}

static uint64_t conn_recv(const struct top_conn *c)
{
	if (c->has_wire)
		return c->rx_msgs;
	if (c->seq_sum)
		return c->rx_seq_sum;
	return c->next_rx_seq ? c->next_rx_seq - 1 : 0;
}

/* Add the congested ports of |m| to |groups| by port group (port % 64):
 * port p is bit p % 8 of byte p / 8, so its group is (byte % 8) * 8 + bit. */
static void map_add_groups(const struct wire_cong_map *m, uint64_t groups[64])
{
	for (size_t b = 0; b < sizeof(m->bits); b += 8) {
		uint64_t w;

		memcpy(&w, m->bits + b, 8);
		if (!w)
			continue;
		for (unsigned k = 0; k < 8; k++)
			for (unsigned bit = 0; bit < 8; bit++)
				groups[k * 8 + bit] += (m->bits[b + k] >> bit) & 1;
	}
}

/* ------------------------------------------------------------------------
 * Value functions
 */

#define GET(fn) static bool fn(const struct pctx *x, double *v)

GET(g_up)
{
	*v = x->self->up;
	return true;
}

GET(g_info)
{
	(void)x;
	*v = 1;
	return true;
}

GET(g_snapshots)
{
	*v = (double)x->self->snapshots;
	return true;
}

GET(g_errors)
{
	*v = (double)x->self->errors;
	return true;
}

GET(g_collect)
{
	*v = x->self->collect_seconds;
	return true;
}

GET(g_scrapes)
{
	*v = (double)x->self->scrapes;
	return true;
}

GET(g_http_errors)
{
	*v = (double)x->self->http_errors;
	return true;
}

GET(g_folded)
{
	*v = (double)x->folded;
	return x->s != NULL;
}

GET(g_top)
{
	*v = x->self->top;
	return true;
}

GET(g_truncated)
{
	*v = x->s->truncated;
	return true;
}

GET(g_conns_state)
{
	size_t n = 0;
	char buf[32];

	for (size_t i = 0; i < x->s->n_conns; i++) {
		const char *st = top_conn_state(x->s->conns[i].flags, buf, sizeof(buf));

		n += strncmp(st, x->state, strlen(x->state)) == 0;
	}
	*v = (double)n;
	return true;
}

GET(g_ib_conns)
{
	*v = (double)x->s->n_ibs;
	return true;
}

GET(g_sockets)
{
	*v = (double)x->s->n_socks;
	return !x->s->no_sockets;
}

GET(g_sockets_congested)
{
	size_t n = 0;
	bool known = false;

	for (size_t i = 0; i < x->s->n_socks; i++) {
		known |= x->s->socks[i].has_cong;
		n += x->s->socks[i].has_cong && x->s->socks[i].congested;
	}
	*v = (double)n;
	return known;
}

#define SOCK_SUM(fn, field)                                       \
	GET(fn)                                                   \
	{                                                         \
		uint64_t n = 0;                                   \
		for (size_t i = 0; i < x->s->n_socks; i++)        \
			n += x->s->socks[i].field;                \
		*v = (double)n;                                   \
		return !x->s->no_sockets;                         \
	}
SOCK_SUM(g_recvq_msgs, recvq_msgs)
SOCK_SUM(g_recvq_bytes, recvq_bytes)
SOCK_SUM(g_sock_sendq_bytes, sendq_bytes)

#define CONN_SUM(fn, field)                                       \
	GET(fn)                                                   \
	{                                                         \
		uint64_t n = 0;                                   \
		for (size_t i = 0; i < x->s->n_conns; i++)        \
			n += x->s->conns[i].field;                \
		*v = (double)n;                                   \
		return true;                                      \
	}
CONN_SUM(g_sendq_msgs, sendq_msgs)
CONN_SUM(g_sendq_bytes, sendq_bytes)
CONN_SUM(g_retransq_msgs, retransq_msgs)
CONN_SUM(g_retransq_bytes, retransq_bytes)

GET(g_local_cong_group)
{
	*v = (double)x->local_groups[x->group];
	return x->local_known;
}

GET(g_peer_cong_group)
{
	*v = (double)x->peer_groups[x->group];
	return x->peer_known;
}

GET(g_events_lost)
{
	*v = (double)x->s->events_lost;
	return true;
}

GET(c_up)
{
	*v = (x->c->flags & WIRE_INFO_CONN_CONNECTED) != 0;
	return !x->other;
}

GET(c_paths)
{
	*v = x->c->npaths;
	return !x->other && x->c->npaths;
}

GET(c_sent)
{
	*v = (double)conn_sent(x->c);
	return true;
}

GET(c_recv)
{
	*v = (double)conn_recv(x->c);
	return true;
}

GET(c_sent_bytes)
{
	*v = (double)x->c->tx_bytes;
	return x->c->has_bytes;
}

GET(c_recv_bytes)
{
	*v = (double)x->c->rx_bytes;
	return x->c->has_bytes;
}

GET(c_sendq_msgs)
{
	*v = (double)x->c->sendq_msgs;
	return true;
}

GET(c_sendq_bytes)
{
	*v = (double)x->c->sendq_bytes;
	return true;
}

GET(c_retransq_msgs)
{
	*v = (double)x->c->retransq_msgs;
	return true;
}

GET(c_retransq_bytes)
{
	*v = (double)x->c->retransq_bytes;
	return true;
}

GET(c_reconnects)
{
	*v = (double)x->c->reconnects;
	return x->c->has_reconnects || x->c->has_wire;
}

GET(c_retrans)
{
	*v = (double)x->c->retrans;
	return x->c->has_wire;
}

GET(c_dups)
{
	*v = (double)x->c->dups;
	return x->c->has_wire;
}

GET(c_peer_cong)
{
	*v = x->c->peer_cong ? (double)wire_cong_count(x->c->peer_cong) : 0;
	return x->c->peer_cong != NULL;
}

GET(c_lcl_cong)
{
	*v = x->c->lcl_cong ? (double)wire_cong_count(x->c->lcl_cong) : 0;
	return x->c->lcl_cong != NULL;
}

GET(p_state)
{
	*v = x->p->state;
	return x->p->has_state;
}

GET(p_connects)
{
	*v = (double)x->p->connects;
	return x->p->has_state;
}

GET(p_resets)
{
	*v = (double)x->p->resets;
	return x->p->has_state;
}

GET(p_sent)
{
	if (x->p->has_wire)
		*v = (double)x->p->tx_msgs;
	else
		*v = x->p->next_tx_seq ? (double)(x->p->next_tx_seq - 1) : 0;
	return x->p->has_wire || x->p->has_seq;
}

GET(p_recv)
{
	if (x->p->has_wire)
		*v = (double)x->p->rx_msgs;
	else
		*v = x->p->next_rx_seq ? (double)(x->p->next_rx_seq - 1) : 0;
	return x->p->has_wire || x->p->has_seq;
}

GET(p_reconnects)
{
	*v = (double)x->p->reconnects;
	return x->p->has_wire;
}

/* ------------------------------------------------------------------------
 * The table
 */

GET(g_ib_unknown)
{
	size_t n = 0;

	for (size_t i = 0; i < x->s->n_ibs; i++)
		n += x->s->ibs[i].join != TOP_IBJ_OK;
	*v = (double)n;
	return x->s->has_rdma;
}

GET(b_qp_state)
{
	*v = x->ib->qp_state;
	return x->ib->join == TOP_IBJ_OK && x->ib->has_qp;
}

GET(d_port_state)
{
	*v = x->dev->ports[x->port_i].state;
	return true;
}

/* The resource kinds of a device's summary that are exported. */
static const char *const ib_kinds[] = { "qp", "cq", "mr", "pd", "cm_id" };
#define N_IB_KINDS (sizeof(ib_kinds) / sizeof(ib_kinds[0]))

GET(d_resources)
{
	const uint64_t n[N_IB_KINDS] = { x->dev->qps, x->dev->cqs, x->dev->mrs, x->dev->pds,
					 x->dev->cm_ids };

	*v = (double)n[x->kind];
	return x->dev->has_counts;
}

#define M(n, t, sc, g, h) { .name = (n), .type = (t), .scope = (sc), .get = (g), .help = (h) }

static const struct prom_metric metrics[] = {
	M("build", PROM_INFO, PROM_S_INFO, g_info,
	  "rdstop's version, the source it watches (kernel, librds, capture), the "
	  "kernel release and the transports seen; the value is always 1."),
	M("up", PROM_GAUGE, PROM_S_STACK, g_up,
	  "1 when the exporter's last snapshot of its source worked, else 0 (the "
	  "stack's metrics are then absent)."),
	M("exporter_snapshots", PROM_COUNTER, PROM_S_STACK, g_snapshots,
	  "Snapshots the exporter took of its source, one an interval, whatever "
	  "the number of scrapes."),
	M("exporter_snapshot_errors", PROM_COUNTER, PROM_S_STACK, g_errors,
	  "Snapshots that failed (the source could not be read, memory ran out)."),
	M("exporter_collect_duration_seconds", PROM_GAUGE, PROM_S_STACK, g_collect,
	  "How long the last snapshot took to read from the source and render."),
	M("exporter_scrapes", PROM_COUNTER, PROM_S_STACK, g_scrapes,
	  "HTTP requests answered with the metrics."),
	M("exporter_http_errors", PROM_COUNTER, PROM_S_STACK, g_http_errors,
	  "HTTP requests refused: a path other than /metrics, a method other than "
	  "GET or HEAD (libmicrohttpd refuses requests over its bounds itself, "
	  "uncounted)."),
	M("exporter_top_connections", PROM_GAUGE, PROM_S_STACK, g_top,
	  "Connections that get series of their own (--prometheus-top); the rest "
	  "are summed into the peer=\"other\" series."),
	M("exporter_folded_connections", PROM_GAUGE, PROM_S_STACK, g_folded,
	  "Connections summed into the peer=\"other\" series in the last snapshot."),
	M("snapshot_truncated", PROM_GAUGE, PROM_S_STACK, g_truncated,
	  "1 when the source cut the last snapshot short (a list exceeded its "
	  "limit), else 0."),
	M("connections", PROM_GAUGE, PROM_S_STATE, g_conns_state,
	  "RDS connections (local, peer, transport, tos) by the state of path 0."),
	M("ib_connections", PROM_GAUGE, PROM_S_STACK, g_ib_conns,
	  "RDS connections over InfiniBand or RoCE (RDS_INFO_IB_CONNECTIONS)."),
	M("ib_qp_unknown", PROM_GAUGE, PROM_S_STACK, g_ib_unknown,
	  "RDS IB connections whose queue pair RDMA netlink does not name: no "
	  "rds_rdma rdma_cm ID with a QP for the address pair, or more than one."),
	M("ib_qp_state", PROM_GAUGE, PROM_S_IB, b_qp_state,
	  "The state of an RDS IB connection's queue pair as RDMA netlink reports it "
	  "(IB_QPS_*): 0 RESET, 1 INIT, 2 RTR, 3 RTS, 4 SQD, 5 SQE, 6 ERR. Only for "
	  "connections with series of their own whose QP the join names."),
	M("ib_port_state", PROM_GAUGE, PROM_S_IBPORT, d_port_state,
	  "An RDMA device port's state (IB_PORT_*): 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, "
	  "5 ACTIVE_DEFER; devices RDMA netlink lists while RDS has IB connections."),
	M("ib_device_resources", PROM_GAUGE, PROM_S_IBRES, d_resources,
	  "Resources of an RDMA device by kind (qp, cq, mr, pd, cm_id), every owner's "
	  "(RDMA netlink's resource summary), not only RDS's."),
	M("sockets", PROM_GAUGE, PROM_S_STACK, g_sockets, "RDS sockets."),
	M("sockets_congested", PROM_GAUGE, PROM_S_STACK, g_sockets_congested,
	  "RDS sockets whose port is congested: their receive queue is over the "
	  "receive buffer, so senders to it are told to stop."),
	M("receive_queue_messages", PROM_GAUGE, PROM_S_STACK, g_recvq_msgs,
	  "Messages waiting in the sockets' receive queues, summed."),
	M("receive_queue_bytes", PROM_GAUGE, PROM_S_STACK, g_recvq_bytes,
	  "Payload bytes waiting in the sockets' receive queues, summed."),
	M("socket_send_queue_bytes", PROM_GAUGE, PROM_S_STACK, g_sock_sendq_bytes,
	  "Payload bytes the sockets have queued for sending and not had "
	  "acknowledged, summed."),
	M("send_queue_messages", PROM_GAUGE, PROM_S_STACK, g_sendq_msgs,
	  "Messages queued on all connections and not yet put on the wire."),
	M("send_queue_bytes", PROM_GAUGE, PROM_S_STACK, g_sendq_bytes,
	  "Payload bytes queued on all connections and not yet put on the wire."),
	M("retransmit_queue_messages", PROM_GAUGE, PROM_S_STACK, g_retransq_msgs,
	  "Messages sent on all connections and kept until the peer acknowledges "
	  "them (resent after a reconnect)."),
	M("retransmit_queue_bytes", PROM_GAUGE, PROM_S_STACK, g_retransq_bytes,
	  "Payload bytes sent on all connections and kept until acknowledged."),
	M("local_congested_ports", PROM_GAUGE, PROM_S_GROUP, g_local_cong_group,
	  "Ports of this host's congestion map that are congested, by port group "
	  "(port % 64, the groups RDS_CONG_MONITOR reports)."),
	M("peer_congested_ports", PROM_GAUGE, PROM_S_GROUP, g_peer_cong_group,
	  "Congested ports in the peers' congestion maps as last received, summed "
	  "over the peers, by port group (port % 64)."),
	M("congestion_events_lost", PROM_GAUGE, PROM_S_STACK, g_events_lost,
	  "Congestion map changes the source saw but did not keep in its time line."),
	M("connection_up", PROM_GAUGE, PROM_S_CONN, c_up,
	  "1 when the connection's path 0 is connected, else 0."),
	M("connection_paths", PROM_GAUGE, PROM_S_CONN, c_paths,
	  "Paths of the connection (multipath RDS over TCP has up to 8)."),
	M("connection_sent_messages", PROM_COUNTER, PROM_S_CONN, c_sent,
	  "Messages sent on the connection (the next sequence number less one, over "
	  "all paths where the source knows them; a capture counts what it saw); "
	  "includes congestion map updates and pings."),
	M("connection_received_messages", PROM_COUNTER, PROM_S_CONN, c_recv,
	  "Messages received on the connection, counted as the sent ones are."),
	M("connection_sent_bytes", PROM_COUNTER, PROM_S_CONN, c_sent_bytes,
	  "Bytes sent on the connection's current transport links (restarts at a "
	  "reconnect)."),
	M("connection_received_bytes", PROM_COUNTER, PROM_S_CONN, c_recv_bytes,
	  "Bytes received on the connection's current transport links."),
	M("connection_send_queue_messages", PROM_GAUGE, PROM_S_CONN, c_sendq_msgs,
	  "Messages queued on the connection and not yet put on the wire."),
	M("connection_send_queue_bytes", PROM_GAUGE, PROM_S_CONN, c_sendq_bytes,
	  "Payload bytes queued on the connection and not yet put on the wire."),
	M("connection_retransmit_queue_messages", PROM_GAUGE, PROM_S_CONN, c_retransq_msgs,
	  "Messages sent on the connection and kept until the peer acknowledges them."),
	M("connection_retransmit_queue_bytes", PROM_GAUGE, PROM_S_CONN, c_retransq_bytes,
	  "Payload bytes sent on the connection and kept until acknowledged."),
	M("connection_reconnects", PROM_COUNTER, PROM_S_CONN, c_reconnects,
	  "Times a path of the connection came up again after its first time."),
	M("connection_retransmitted_messages", PROM_COUNTER, PROM_S_CONN, c_retrans,
	  "Messages a capture saw sent again (flagged RETRANSMITTED)."),
	M("connection_duplicate_messages", PROM_COUNTER, PROM_S_CONN, c_dups,
	  "Messages a capture saw that the receiver drops as already received."),
	M("connection_peer_congested_ports", PROM_GAUGE, PROM_S_CONN, c_peer_cong,
	  "Congested ports in the peer's congestion map as last received: sends "
	  "to them wait."),
	M("connection_local_congested_ports", PROM_GAUGE, PROM_S_CONN, c_lcl_cong,
	  "Congested ports in the map this side last sent to the peer."),
	M("path_state", PROM_GAUGE, PROM_S_PATH, p_state,
	  "The path's state: 0 down, 1 connecting, 2 up."),
	M("path_connects", PROM_COUNTER, PROM_S_PATH, p_connects,
	  "Times the path came up."),
	M("path_resets", PROM_COUNTER, PROM_S_PATH, p_resets,
	  "Times the path went down."),
	M("path_sent_messages", PROM_COUNTER, PROM_S_PATH, p_sent,
	  "Messages sent on the path (its next sequence number less one)."),
	M("path_received_messages", PROM_COUNTER, PROM_S_PATH, p_recv,
	  "Messages received on the path."),
	M("path_reconnects", PROM_COUNTER, PROM_S_PATH, p_reconnects,
	  "Transport connections a capture saw on the path after its first."),
};

#define N_METRICS (sizeof(metrics) / sizeof(metrics[0]))

/* ------------------------------------------------------------------------
 * The stack's counters (RDS_INFO_COUNTERS, librds's rdsu_stat): what each
 * counts, in our words from net/rds (stats.c, tcp_stats.c, ib_stats.c and
 * the places that count them) and librds/include/rds/rdsu.h.
 */

struct ctr_help {
	const char *name;
	const char *help;
	bool gauge;
};

static const struct ctr_help ctr_helps[] = {
	{ "conn_reset", "Paths reset (dropped and reconnected), for any reason.", false },
	{ "recv_drop_bad_checksum", "Received headers whose checksum was wrong; the path is "
	  "reset.", false },
	{ "recv_drop_old_seq", "Received messages dropped as already delivered (a sequence "
	  "number below the next expected).", false },
	{ "recv_drop_no_sock", "Received messages for a port no socket is bound to.", false },
	{ "recv_drop_dead_sock", "Received messages for a socket that was closing.", false },
	{ "recv_deliver_raced", "Deliveries that raced with a socket closing.", false },
	{ "recv_delivered", "Messages delivered to the program: returned by a receive call.", false },
	{ "recv_queued", "Messages queued to a socket's receive queue.", false },
	{ "recv_immediate_retry", "Receive work retried at once.", false },
	{ "recv_delayed_retry", "Receive work put off to the worker.", false },
	{ "recv_ack_required", "Received messages that asked for an acknowledgement.", false },
	{ "recv_rdma_bytes", "Bytes received through RDMA operations.", false },
	{ "recv_ping", "Pings received (messages to port 0).", false },
	{ "send_queue_empty", "Times the send worker found the send queue empty.", false },
	{ "send_queue_full", "Sends refused because the socket's send buffer was full.", false },
	{ "send_lock_contention", "Sends that found the transmit path busy.", false },
	{ "send_lock_queue_raced", "Sends that raced with another sender for the queue.",
	  false },
	{ "send_immediate_retry", "Transmit work retried at once.", false },
	{ "send_delayed_retry", "Transmit work put off to the worker.", false },
	{ "send_drop_acked", "Sent messages freed because the peer acknowledged them.", false },
	{ "send_ack_required", "Sent messages that ask the peer for an acknowledgement.",
	  false },
	{ "send_queued", "Messages queued for sending by applications.", false },
	{ "send_rdma", "RDMA operations sent.", false },
	{ "send_rdma_bytes", "Bytes sent through RDMA operations.", false },
	{ "send_pong", "Pongs (and librds's probes) queued in answer to pings.", false },
	{ "page_remainder_hit", "Receive fragments that reused the rest of a page.", false },
	{ "page_remainder_miss", "Receive fragments that needed a new page.", false },
	{ "copy_to_user", "Bytes copied to applications.", false },
	{ "copy_from_user", "Bytes copied from applications.", false },
	{ "cong_update_queued", "Changes of this host's congestion map queued for the "
	  "peers.", false },
	{ "cong_update_received", "Congestion map updates received from peers.", false },
	{ "cong_send_error", "Sends refused because the destination port was congested "
	  "(ENOBUFS).", false },
	{ "cong_send_blocked", "Sends that waited for a congested port.", false },
	{ "recv_bytes_added_to_sock", "Payload bytes added to sockets' receive queues.",
	  false },
	{ "recv_bytes_freed_fromsock", "Payload bytes applications took from receive queues.",
	  false },
	{ "send_stuck_rm", "Sent messages found stuck and completed by force.", false },
	{ "mprds_catchup_tx0_retries", "Multipath catch-up sends that had to wait for "
	  "path 0 (7.x kernels).", false },
	{ "tcp_data_ready_calls", "Times the TCP transport was told data arrived.", false },
	{ "tcp_write_space_calls", "Times the TCP transport was told send space freed.",
	  false },
	{ "tcp_sndbuf_full", "Times a TCP socket's send buffer was full.", false },
	{ "tcp_connect_raced", "Incoming TCP connections that raced with an outgoing one.",
	  false },
	{ "tcp_listen_closed_stale", "Incoming TCP connections that replaced a stale one.",
	  false },
	{ "send_retransmitted", "Messages put back to be sent again after a reconnect.",
	  false },
	{ "send_dropped", "Queued messages dropped: cancelled, closed or flushed.", false },
	{ "cong_map_sent", "Congestion maps written to peers.", false },
	{ "recv_drop_bad_map", "Congestion maps of the wrong size, ignored.", false },
	{ "recv_too_big", "Received messages over the size limit; the path is reset.", false },
	{ "recv_drop_nomem", "Received messages dropped for want of memory.", false },
	{ "probe_sent", "Probe pings queued.", false },
	{ "probe_recv", "Probe pings and pongs processed.", false },
	{ "gen_reset", "Times a peer's generation changed (the peer restarted).", false },
	{ "connect_req", "Outgoing transport connections requested.", false },
	{ "kick_dropped", "Outgoing connections closed because the peer's came first.",
	  false },
	{ "accept_refused", "Incoming transport connections reset.", false },
	{ "accept_held", "Incoming transport connections held until the path was free.",
	  false },
	{ "recv_port_seq", "Resent messages judged by the sending port's sequence otherwise "
	  "than the path's would have been.", false },
	{ "connect_raced", "Incoming connections refused while the path was connecting.",
	  false },
	{ "listen_closed_stale", "Up paths dropped for a new incoming connection.", false },
	{ "recv_bad_fragment", "Runt or mismatched fragments received; the path is reset.",
	  false },
	{ "ack_sent", "Acknowledgement-only frames sent.", false },
	{ "ack_received", "Acknowledgement-only frames received.", false },
	{ "conn_given_up", "Peers forgotten after reconnecting failed for too long.", false },
	{ "connect_deferred", "Connects delayed by the limits on connections in flight.",
	  false },
	{ "connecting_peak", "The most outgoing connections in flight at once.", true },
	{ "limit_conns", "New peers refused by the connection limit.", false },
	{ "limit_links", "Incoming connections refused by the link limit.", false },
	{ "limit_peer_links", "Incoming connections refused by the per-peer link limit.",
	  false },
	{ "handshake_timeout", "Incoming connections reset for not finishing the "
	  "handshake in time.", false },
	{ "idle_timeout", "Connections reset for being idle too long.", false },
	{ "ib_connect_raced", "Incoming IB connections that raced with an outgoing one.", false },
	{ "ib_listen_closed_stale", "Incoming IB connections that replaced a stale one.",
	  false },
	{ "ib_evt_handler_call", "Completion queue events handled.", false },
	{ "ib_tasklet_call", "Runs of the completion tasklet.", false },
	{ "ib_tx_cq_event", "Send completion queue events.", false },
	{ "ib_tx_ring_full", "Sends that found the send ring full.", false },
	{ "ib_tx_throttle", "Sends held back for want of the peer's credits.", false },
	{ "ib_tx_sg_mapping_failure", "Sends whose scatter list could not be mapped.", false },
	{ "ib_tx_stalled", "Times the send ring stalled.", false },
	{ "ib_tx_credit_updates", "Credit updates sent to the peer.", false },
	{ "ib_rx_cq_event", "Receive completion queue events.", false },
	{ "ib_rx_ring_empty", "Times the receive ring ran empty.", false },
	{ "ib_rx_refill_from_cq", "Receive ring refills done from completion handling.",
	  false },
	{ "ib_rx_refill_from_thread", "Receive ring refills done by the worker.", false },
	{ "ib_rx_alloc_limit", "Receive buffers refused by the allocation limit.", false },
	{ "ib_rx_total_frags", "Receive fragments taken.", false },
	{ "ib_rx_total_incs", "Messages reassembled from received fragments.", false },
	{ "ib_rx_credit_updates", "Credit updates received from the peer.", false },
	{ "ib_ack_sent", "Acknowledgements sent.", false },
	{ "ib_ack_send_failure", "Acknowledgements that could not be sent.", false },
	{ "ib_ack_send_delayed", "Acknowledgements put off.", false },
	{ "ib_ack_send_piggybacked", "Acknowledgements carried in data messages.", false },
	{ "ib_ack_received", "Acknowledgements received.", false },
	{ "ib_rdma_mr_8k_alloc", "8 KiB memory regions allocated for RDMA.", false },
	{ "ib_rdma_mr_8k_free", "8 KiB memory regions freed.", false },
	{ "ib_rdma_mr_8k_used", "8 KiB memory regions taken from the pool.", false },
	{ "ib_rdma_mr_8k_pool_flush", "Flushes of the 8 KiB region pool.", false },
	{ "ib_rdma_mr_8k_pool_wait", "Waits for a free 8 KiB region.", false },
	{ "ib_rdma_mr_8k_pool_depleted", "Times the 8 KiB region pool ran out.", false },
	{ "ib_rdma_mr_1m_alloc", "1 MiB memory regions allocated for RDMA.", false },
	{ "ib_rdma_mr_1m_free", "1 MiB memory regions freed.", false },
	{ "ib_rdma_mr_1m_used", "1 MiB memory regions taken from the pool.", false },
	{ "ib_rdma_mr_1m_pool_flush", "Flushes of the 1 MiB region pool.", false },
	{ "ib_rdma_mr_1m_pool_wait", "Waits for a free 1 MiB region.", false },
	{ "ib_rdma_mr_1m_pool_depleted", "Times the 1 MiB region pool ran out.", false },
	{ "ib_rdma_mr_8k_reused", "8 KiB regions reused without a new registration.", false },
	{ "ib_rdma_mr_1m_reused", "1 MiB regions reused without a new registration.", false },
	{ "ib_atomic_cswp", "RDMA compare-and-swap operations.", false },
	{ "ib_atomic_fadd", "RDMA fetch-and-add operations.", false },
	/* a capture's counters (rdsdump's -z columns), summed over paths */
	{ "capture_msgs", "RDS messages the capture saw.", false },
	{ "capture_bytes", "Payload bytes (h_len) of the messages the capture saw.", false },
	{ "capture_retransmitted", "Messages the capture saw flagged RETRANSMITTED.", false },
	{ "capture_dups", "Messages a receiver drops as already received.", false },
	{ "capture_skips", "Times the sequence numbers jumped forward.", false },
	{ "capture_skipped", "Sequence numbers the capture never saw.", false },
	{ "capture_backs", "Times the sequence numbers went backwards.", false },
	{ "capture_again", "Messages a receiver delivers twice.", false },
	{ "capture_cong_updates", "Congestion map updates the capture saw.", false },
	{ "capture_rule_msgs", "Messages that broke at least one protocol rule.", false },
	{ "capture_gaps", "Holes in the captured TCP streams or IB packet sequences.",
	  false },
	{ "capture_gap_bytes", "TCP bytes (IB packets) lost in those holes.", false },
	{ "capture_resyncs", "Times the dissector resynchronised on a stream.", false },
	{ "capture_conns", "Transport connections that carried RDS paths.", false },
};

const char *prom_counter_help(const char *name, bool *gauge)
{
	*gauge = false;
	for (size_t i = 0; i < sizeof(ctr_helps) / sizeof(ctr_helps[0]); i++) {
		if (strcmp(ctr_helps[i].name, name) == 0) {
			*gauge = ctr_helps[i].gauge;
			return ctr_helps[i].help;
		}
	}
	return NULL;
}

/* ------------------------------------------------------------------------
 * The writer
 */

/* HELP text (|quote| false) or a label value: escaped as the format
 * says; a byte outside printable ASCII (a name a source gave, which need
 * not be UTF-8, and Prometheus refuses a scrape that is not) becomes '?'. */
static void put_escaped(FILE *f, const char *s, bool quote)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '\\')
			fputs("\\\\", f);
		else if (ch == '\n')
			fputs("\\n", f);
		else if (quote && ch == '"')
			fputs("\\\"", f);
		else
			fputc(ch >= 0x20 && ch < 0x7f ? ch : '?', f);
	}
}

/* A counter name as a metric name: what is not [a-z0-9_] becomes _. */
static void put_name(FILE *f, const char *s)
{
	for (; *s; s++) {
		char ch = *s;

		fputc((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '_' ? ch : '_', f);
	}
}

static void put_value(FILE *f, double v)
{
	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		fprintf(f, " %.0f\n", v);
	else
		fprintf(f, " %.9g\n", v);
}

static const char *type_name(enum prom_type t, enum prom_fmt fmt)
{
	switch (t) {
	case PROM_COUNTER:
		return "counter";
	case PROM_INFO:
		return fmt == PROM_FMT_OPENMETRICS ? "info" : "gauge";
	case PROM_GAUGE:
		break;
	}
	return "gauge";
}

static const char *suffix(enum prom_type t)
{
	return t == PROM_COUNTER ? "_total" : t == PROM_INFO ? "_info" : "";
}

/* The family's HELP and TYPE lines. In the text format they name the
 * sample (with _total); OpenMetrics names the family without it. */
static void put_head(FILE *f, const char *name, bool raw_name, enum prom_type t,
		     const char *help, enum prom_fmt fmt)
{
	const char *sfx = fmt == PROM_FMT_OPENMETRICS ? "" : suffix(t);

	fputs("# HELP " PROM_PREFIX, f);
	raw_name ? put_name(f, name) : (void)fputs(name, f);
	fputs(sfx, f);
	fputc(' ', f);
	put_escaped(f, help, false);
	fputs("\n# TYPE " PROM_PREFIX, f);
	raw_name ? put_name(f, name) : (void)fputs(name, f);
	fprintf(f, "%s %s\n", sfx, type_name(t, fmt));
}

static void put_conn_labels(FILE *f, const struct pctx *x)
{
	char a[64];

	if (x->other) {
		fputs("local=\"other\",peer=\"other\",transport=\"other\",tos=\"other\"", f);
		return;
	}
	fprintf(f, "local=\"%s\",", top_addr_str(x->c->laddr, a, sizeof(a)));
	fprintf(f, "peer=\"%s\",transport=\"", top_addr_str(x->c->faddr, a, sizeof(a)));
	put_escaped(f, x->c->transport, true);
	fprintf(f, "\",tos=\"%u\"", x->c->tos);
}

struct ranked {
	const struct top_snap *s;
	size_t *order;                 /* connections, busiest first */
	size_t n_own;                  /* the first n_own have series of their own */
	struct top_conn other;         /* the sum of the rest */
	bool has_other;
	struct top_paths pi;
	int *path_no;                  /* [n_paths]: the path label */
	bool *own;                     /* [n_conns]: has series of its own */
};

static int by_traffic(const void *a, const void *b, void *snap)
{
	const struct top_snap *s = snap;
	const struct top_conn *x = &s->conns[*(const size_t *)a];
	const struct top_conn *y = &s->conns[*(const size_t *)b];
	uint64_t tx = conn_sent(x) + conn_recv(x), ty = conn_sent(y) + conn_recv(y);
	int c;

	if (tx != ty)
		return tx > ty ? -1 : 1;
	c = memcmp(x->faddr, y->faddr, 16);
	if (c)
		return c;
	c = memcmp(x->laddr, y->laddr, 16);
	if (c)
		return c;
	c = strcmp(x->transport, y->transport);
	return c ? c : (int)x->tos - (int)y->tos;
}

static int rank(struct ranked *r, const struct top_snap *s, unsigned top)
{
	memset(r, 0, sizeof(*r));
	r->s = s;
	top_paths_init(&r->pi, s);
	if (!s->n_conns)
		return 0;
	r->order = malloc(s->n_conns * sizeof(*r->order));
	r->path_no = malloc((s->n_paths ? s->n_paths : 1) * sizeof(*r->path_no));
	if (!r->order || !r->path_no)
		return -1;
	for (size_t i = 0; i < s->n_conns; i++)
		r->order[i] = i;
	qsort_r(r->order, s->n_conns, sizeof(*r->order), by_traffic, (void *)s);
	r->n_own = s->n_conns < top ? s->n_conns : top;
	r->own = calloc(s->n_conns, sizeof(*r->own));
	if (!r->own)
		return -1;
	for (size_t i = 0; i < r->n_own; i++)
		r->own[r->order[i]] = true;
	/* paths the source could not number get their place in the connection */
	for (size_t c = 0; c < s->n_conns; c++) {
		int k = 0;

		for (size_t j = top_paths_first(&r->pi, c); j != SIZE_MAX;
		     j = top_paths_next(&r->pi, c, j), k++)
			r->path_no[j] = s->paths[j].index >= 0 ? s->paths[j].index : k;
	}
	for (size_t i = r->n_own; i < s->n_conns; i++) {
		const struct top_conn *c = &s->conns[r->order[i]];
		struct top_conn *o = &r->other;

		r->has_other = true;
		o->seq_sum = true;
		o->tx_seq_sum += conn_sent(c);
		o->rx_seq_sum += conn_recv(c);
		o->has_bytes |= c->has_bytes;
		o->tx_bytes += c->tx_bytes;
		o->rx_bytes += c->rx_bytes;
#define TOP_ADD_COUNT(f) o->f += c->f;
		TOP_QUEUE_COUNTS(TOP_ADD_COUNT)
#undef TOP_ADD_COUNT
		o->has_reconnects |= c->has_reconnects || c->has_wire;
		o->reconnects += c->reconnects;
		/* a capture's message counts drive conn_sent()/conn_recv() */
		o->has_wire |= c->has_wire;
		o->tx_msgs += c->tx_msgs;
		o->rx_msgs += c->rx_msgs;
		o->retrans += c->retrans;
		o->dups += c->dups;
	}
	return 0;
}

static void unrank(struct ranked *r)
{
	free(r->order);
	free(r->path_no);
	free(r->own);
	top_paths_fini(&r->pi);
}

static void put_info_labels(FILE *f, const struct pctx *x)
{
	char tr[64] = "";
	size_t n = 0;

	for (size_t i = 0; x->s && i < x->s->n_conns; i++) {
		const char *t = x->s->conns[i].transport;
		const char *p = strstr(tr, t);
		size_t l = strlen(t);

		if (!l || (p && (p == tr || p[-1] == ',') && (p[l] == ',' || !p[l])))
			continue;
		if (n + l + 2 >= sizeof(tr))
			break;
		n += (size_t)snprintf(tr + n, sizeof(tr) - n, "%s%s", n ? "," : "", t);
	}
	fputs("{version=\"", f);
	put_escaped(f, x->self->version ? x->self->version : "", true);
	fputs("\",source=\"", f);
	put_escaped(f, x->s && x->s->source ? x->s->source : "", true);
	fputs("\",kernel=\"", f);
	put_escaped(f, x->self->kernel ? x->self->kernel : "", true);
	fputs("\",transports=\"", f);
	put_escaped(f, tr, true);
	fputs("\"}", f);
}

/* The samples of an RDMA netlink scope (PROM_S_IB, PROM_S_IBPORT,
 * PROM_S_IBRES); with |f| NULL only whether there is one (0 or 1). */
static size_t put_ib(FILE *f, const struct prom_metric *m, struct pctx *x,
		     const struct ranked *r)
{
	const char *sfx = suffix(m->type);
	const struct top_snap *s = x->s;
	size_t n = 0;
	char a[64];
	double v;

	for (size_t i = 0; m->scope == PROM_S_IB && i < s->n_ibs; i++) {
		x->ib = &s->ibs[i];
		if (x->ib->conn >= s->n_conns || !r->own[x->ib->conn] || !m->get(x, &v))
			continue;
		if (!f)
			return 1;
		fprintf(f, PROM_PREFIX "%s%s{local=\"%s\",", m->name, sfx,
			top_addr_str(x->ib->r.src_addr, a, sizeof(a)));
		fprintf(f, "peer=\"%s\",tos=\"%u\",device=\"",
			top_addr_str(x->ib->r.dst_addr, a, sizeof(a)), x->ib->r.tos);
		put_escaped(f, x->ib->dev < s->n_ibdevs ? s->ibdevs[x->ib->dev].name : "", true);
		fprintf(f, "\",port=\"%" PRIu32 "\",qpn=\"%" PRIu32 "\"}", x->ib->port,
			x->ib->qpn);
		put_value(f, v);
		n++;
	}
	for (size_t d = 0; m->scope != PROM_S_IB && d < s->n_ibdevs; d++) {
		unsigned k_n = m->scope == PROM_S_IBPORT ? s->ibdevs[d].n_ports : N_IB_KINDS;

		x->dev = &s->ibdevs[d];
		for (unsigned k = 0; k < k_n; k++) {
			x->port_i = x->kind = k;
			if (!m->get(x, &v))
				continue;
			if (!f)
				return 1;
			fprintf(f, PROM_PREFIX "%s%s{device=\"", m->name, sfx);
			put_escaped(f, x->dev->name, true);
			if (m->scope == PROM_S_IBPORT)
				fprintf(f, "\",port=\"%" PRIu32 "\"}", x->dev->ports[k].port);
			else
				fprintf(f, "\",kind=\"%s\"}", ib_kinds[k]);
			put_value(f, v);
			n++;
		}
	}
	return n;
}

/* The connections a metric has a sample for, in rank order and then the
 * one that sums the rest (when there is one): point x->c at the i-th;
 * false (x->other cleared) after the last. */
static bool next_conn(struct pctx *x, const struct ranked *r, size_t i)
{
	x->other = i == r->n_own && r->has_other;
	if (i >= r->n_own && !x->other)
		return false;
	x->c = x->other ? &r->other : &x->s->conns[r->order[i]];
	return true;
}

/* The paths of the ranked connections, in order: from *i = 0 and
 * *j = SIZE_MAX, point x->c and x->p at the next one (*j its index);
 * false after the last. */
static bool next_path(struct pctx *x, const struct ranked *r, size_t *i, size_t *j)
{
	for (; *i < r->n_own; (*i)++, *j = SIZE_MAX) {
		size_t c = r->order[*i];

		*j = *j == SIZE_MAX ? top_paths_first(&r->pi, c) : top_paths_next(&r->pi, c, *j);
		if (*j != SIZE_MAX) {
			x->c = &x->s->conns[c];
			x->p = &x->s->paths[*j];
			return true;
		}
	}
	return false;
}

/* One metric's samples; return how many. */
static size_t put_metric(FILE *f, const struct prom_metric *m, struct pctx *x,
			 const struct ranked *r)
{
	static const char *const states[] = { "connected", "connecting", "down" };
	const char *sfx = suffix(m->type);
	size_t n = 0;
	double v;

#define SAMPLE_START() fputs(PROM_PREFIX, f), fputs(m->name, f), fputs(sfx, f)
	switch (m->scope) {
	case PROM_S_STACK:
		if (!m->get(x, &v))
			break;
		SAMPLE_START();
		put_value(f, v);
		n++;
		break;
	case PROM_S_INFO:
		m->get(x, &v);
		SAMPLE_START();
		put_info_labels(f, x);
		put_value(f, v);
		n++;
		break;
	case PROM_S_COUNTER:
		break;
	case PROM_S_STATE:
		for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
			x->state = states[i];
			if (!m->get(x, &v))
				continue;
			SAMPLE_START();
			fprintf(f, "{state=\"%s\"}", states[i]);
			put_value(f, v);
			n++;
		}
		break;
	case PROM_S_GROUP:
		for (unsigned g = 0; g < 64; g++) {
			x->group = g;
			if (!m->get(x, &v))
				break;
			SAMPLE_START();
			fprintf(f, "{group=\"%u\"}", g);
			put_value(f, v);
			n++;
		}
		break;
	case PROM_S_CONN:
		for (size_t i = 0; next_conn(x, r, i); i++) {
			if (!m->get(x, &v))
				continue;
			SAMPLE_START();
			fputc('{', f);
			put_conn_labels(f, x);
			fputc('}', f);
			put_value(f, v);
			n++;
		}
		break;
	case PROM_S_IB:
	case PROM_S_IBPORT:
	case PROM_S_IBRES:
		n = put_ib(f, m, x, r);
		break;
	case PROM_S_PATH:
		for (size_t i = 0, j = SIZE_MAX; next_path(x, r, &i, &j);) {
			if (!m->get(x, &v))
				continue;
			SAMPLE_START();
			fputc('{', f);
			put_conn_labels(f, x);
			fprintf(f, ",path=\"%d\"}", r->path_no[j]);
			put_value(f, v);
			n++;
		}
		break;
	}
#undef SAMPLE_START
	return n;
}

/* Does |m| have a sample for this snapshot? The head is written only then. */
static bool has_sample(const struct prom_metric *m, struct pctx *x, const struct ranked *r)
{
	double v;

	switch (m->scope) {
	case PROM_S_STACK:
		return m->get(x, &v);
	case PROM_S_INFO:
	case PROM_S_STATE:
		return true;
	case PROM_S_COUNTER:
		return false;
	case PROM_S_IB:
	case PROM_S_IBPORT:
	case PROM_S_IBRES:
		return put_ib(NULL, m, x, r) > 0;
	case PROM_S_GROUP:
		x->group = 0;
		return m->get(x, &v);
	case PROM_S_CONN: {
		bool ok = false;

		for (size_t i = 0; !ok && next_conn(x, r, i); i++)
			ok = m->get(x, &v);
		x->other = false;
		return ok;
	}
	case PROM_S_PATH:
		for (size_t i = 0, j = SIZE_MAX; next_path(x, r, &i, &j);)
			if (m->get(x, &v))
				return true;
		return false;
	}
	return false;
}

/* Is the stack counter |name| one of the table's names (it would clash)? */
static bool clashes(const char *name)
{
	for (size_t i = 0; i < N_METRICS; i++)
		if (strcmp(metrics[i].name, name) == 0)
			return true;
	return false;
}

static size_t put_counters(FILE *f, const struct top_snap *s, enum prom_fmt fmt)
{
	/* a capture's counters are the dissector's, not a stack's */
	const char *pfx = s->source && strcmp(s->source, "capture") == 0 ? "capture_" : "";
	size_t n = 0;

	for (size_t i = 0; i < s->n_counters; i++) {
		char name[sizeof(s->counters[i].name) + 16], fallback[160];
		bool gauge, dup = false;
		const char *help;
		enum prom_type t;

		snprintf(name, sizeof(name), "%s%s", pfx, s->counters[i].name);
		/* a name given twice (no source does) would repeat a family */
		for (size_t j = 0; j < i && !dup; j++)
			dup = strcmp(s->counters[j].name, s->counters[i].name) == 0;
		if (!s->counters[i].name[0] || dup || clashes(name))
			continue;
		help = prom_counter_help(name, &gauge);
		if (!help) {
			snprintf(fallback, sizeof(fallback),
				 "The stack counter %s, as the source names it.", name);
			help = fallback;
		}
		t = gauge ? PROM_GAUGE : PROM_COUNTER;
		put_head(f, name, true, t, help, fmt);
		fputs(PROM_PREFIX, f);
		put_name(f, name);
		fputs(suffix(t), f);
		put_value(f, (double)s->counters[i].value);
		n++;
	}
	return n;
}

size_t prom_write(FILE *f, const struct top_snap *s, const struct prom_self *self,
		  enum prom_fmt fmt)
{
	struct pctx x = { .s = s, .self = self };
	struct ranked r;
	size_t n = 0;
	bool ranked_ok = s && rank(&r, s, self->top) == 0;

	if (s && !ranked_ok) {
		unrank(&r);
		s = x.s = NULL;
	}
	if (s) {
		x.folded = s->n_conns - r.n_own;
		if (s->local_cong) {
			x.local_known = true;
			map_add_groups(s->local_cong, x.local_groups);
		}
		for (size_t i = 0; i < s->n_conns; i++) {
			if (!s->conns[i].peer_cong)
				continue;
			x.peer_known = true;
			map_add_groups(s->conns[i].peer_cong, x.peer_groups);
		}
	}
	for (size_t i = 0; i < N_METRICS; i++) {
		const struct prom_metric *m = &metrics[i];
		bool own = strncmp(m->name, "exporter_", 9) == 0 || m->scope == PROM_S_INFO ||
			   strcmp(m->name, "up") == 0;

		if (!s && !own)
			continue;
		if (!has_sample(m, &x, s ? &r : NULL))
			continue;
		put_head(f, m->name, false, m->type, m->help, fmt);
		n += put_metric(f, m, &x, s ? &r : NULL);
		if (i == 1 && s)
			n += put_counters(f, s, fmt);
	}
	if (s)
		unrank(&r);
	if (fmt == PROM_FMT_OPENMETRICS)
		fputs("# EOF\n", f);
	return n;
}

void prom_list(FILE *f)
{
	static const char *const scope_labels[] = {
		[PROM_S_STACK] = "",
		[PROM_S_INFO] = "version,source,kernel,transports",
		[PROM_S_COUNTER] = "",
		[PROM_S_CONN] = "local,peer,transport,tos",
		[PROM_S_PATH] = "local,peer,transport,tos,path",
		[PROM_S_GROUP] = "group",
		[PROM_S_STATE] = "state",
		[PROM_S_IB] = "local,peer,tos,device,port,qpn",
		[PROM_S_IBPORT] = "device,port",
		[PROM_S_IBRES] = "device,kind",
	};

	for (size_t i = 0; i < N_METRICS; i++) {
		const struct prom_metric *m = &metrics[i];

		fprintf(f, PROM_PREFIX "%s%s\t%s\t%s\t%s\n", m->name, suffix(m->type),
			type_name(m->type, PROM_FMT_TEXT), scope_labels[m->scope], m->help);
	}
	for (size_t i = 0; i < sizeof(ctr_helps) / sizeof(ctr_helps[0]); i++)
		fprintf(f, PROM_PREFIX "%s%s\t%s\t\t%s\n", ctr_helps[i].name,
			ctr_helps[i].gauge ? "" : "_total",
			ctr_helps[i].gauge ? "gauge" : "counter", ctr_helps[i].help);
}

const char *prom_content_type(enum prom_fmt fmt)
{
	return fmt == PROM_FMT_OPENMETRICS ?
		       "application/openmetrics-text; version=1.0.0; charset=utf-8" :
		       "text/plain; version=0.0.4; charset=utf-8";
}

enum prom_fmt prom_accept_fmt(const char *accept)
{
	return accept && strstr(accept, "application/openmetrics-text") ?
		       PROM_FMT_OPENMETRICS : PROM_FMT_TEXT;
}
