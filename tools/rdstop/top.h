/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * top.h - rdstop's model: one snapshot of an RDS stack (connections and
 * their paths, counters, sockets, queued messages, congestion maps) and
 * the rates between two snapshots. Pure: filled by a source (source.h),
 * read by renderers; nothing here does I/O or reads a clock.
 */
#ifndef TOP_H
#define TOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <wire/wire.h>

/* A connection: one (local, peer, transport, tos) pair and its paths. */
/*
 * Counts listed once, for the structs below and for the sums made from them:
 * the queue lengths a connection sums from its message lists (prom.c sums
 * them again for its "other" row), and what a capture counts for a path and
 * sums for its connection (cap.c).
 */
#define TOP_QUEUE_COUNTS(X) X(sendq_msgs) X(sendq_bytes) X(retransq_msgs) X(retransq_bytes)
#define TOP_WIRE_COUNTS(X) X(tx_msgs) X(rx_msgs) X(tx_bytes) X(rx_bytes) X(retrans) X(dups) X(reconnects)

struct top_conn {
	uint8_t laddr[16];             /* IPv4 as ::ffff:a.b.c.d */
	uint8_t faddr[16];
	char transport[WIRE_INFO_TRANS_LEN + 1];
	uint8_t flags;                 /* WIRE_INFO_CONN_* of path 0 */
	uint8_t tos;
	uint64_t next_tx_seq;          /* path 0 */
	uint64_t next_rx_seq;
	unsigned npaths;               /* path rows found; 0 = none known */
	bool has_gen;
	uint32_t gen;                  /* peer generation, where the source knows it */
	bool has_bytes;                /* the source counts payload bytes */
	uint64_t tx_bytes, rx_bytes;
	/* filled by top_snap_link() from the message lists */
#define TOP_DECL_COUNT(f) uint64_t f;
	TOP_QUEUE_COUNTS(TOP_DECL_COUNT)
	/* the peer's congestion map as last received; NULL = unknown */
	struct wire_cong_map *peer_cong;
	/* the local side's map as last sent to the peer; NULL = unknown */
	struct wire_cong_map *lcl_cong;
	/* what a capture counts: messages each way (these drive the rates
	 * instead of sequence numbers), RETRANSMITTED messages, duplicates a
	 * receiver drops, and transport connections after the first */
	bool has_wire;
	uint64_t tx_msgs, rx_msgs;
	uint64_t retrans, dups, reconnects;
	/* a librds endpoint: messages sent and received over all paths
	 * (these drive the rates), and reconnects (above) counted by it */
	bool seq_sum, has_reconnects;
	uint64_t tx_seq_sum, rx_seq_sum;
};

/* A path of a connection: for the kernel's TCP transport, one TCP socket. */
struct top_path {
	size_t conn;                   /* index into top_snap.conns; SIZE_MAX if none */
	int index;                     /* path number; -1 if the source cannot tell */
	uint8_t laddr[16];
	uint16_t lport;
	uint8_t faddr[16];
	uint16_t fport;
	bool has_seq;
	uint64_t next_tx_seq, next_rx_seq;
	bool has_tcp;                  /* the TCP receive/ack state below is set */
	uint64_t hdr_rem, data_rem;
	uint32_t last_sent_nxt, last_expected_una, last_seen_una;
	bool has_wire;                 /* a capture's counts for this path */
	TOP_WIRE_COUNTS(TOP_DECL_COUNT)
#undef TOP_DECL_COUNT
	bool has_state;                /* a librds endpoint's own path state */
	uint8_t state;                 /* 0 down, 1 connecting, 2 up */
	uint64_t connects, resets;
};

struct top_counter {
	char name[WIRE_INFO_NAME_LEN + 1];
	uint64_t value;
};

struct top_sock {
	uint8_t bound_addr[16];
	uint16_t bound_port;
	uint8_t connected_addr[16];    /* :: if not connected */
	uint16_t connected_port;
	uint32_t sndbuf, rcvbuf;       /* payload limits */
	uint64_t inum;
	/* filled by top_snap_link() */
	uint64_t recvq_msgs, recvq_bytes;
	uint64_t sendq_msgs, sendq_bytes;  /* queued for sending, incl. unacked */
	bool has_cong;                 /* the source says whether its port is congested */
	bool congested;
};

enum top_queue {
	TOP_Q_SEND = 0,
	TOP_Q_RETRANS,
	TOP_Q_RECV,
};

/* A queued message; in receive queues the local side is the receiver. */
struct top_msg {
	enum top_queue q;
	uint64_t seq;
	uint32_t len;
	uint8_t laddr[16];
	uint16_t lport;
	uint8_t faddr[16];
	uint16_t fport;
	uint8_t flags, tos;
};

/* A change of a congestion map as it crossed the wire: one run of ports
 * that became congested or free in one update. */
struct top_cong_event {
	uint64_t t_ns;                 /* the snapshot clock's time of the update */
	size_t conn;                   /* index into top_snap.conns */
	bool from_peer;                /* the peer's map (else the local side's) */
	uint16_t first, last;          /* inclusive */
	bool congested;                /* became congested; false: became free */
	/* a monitor socket's RDS_CMSG_CONG_UPDATE instead of a run: the port
	 * groups (bit port % 64) of peers' maps that were updated, which
	 * peer not said; first, last and congested do not apply */
	uint64_t groups;
};

/* How an IB connection was joined to RDMA netlink's resources (ibres.c). */
enum top_ib_join {
	TOP_IBJ_NONE = 0,              /* no RDMA netlink view: not asked, or it failed */
	TOP_IBJ_NOQP,                  /* no rds_rdma cm ID with a QP for the address pair */
	TOP_IBJ_AMBIG,                 /* more than one: which is unknown */
	TOP_IBJ_OK,                    /* exactly one */
};

/* An IB connection's queue and memory-registration sizes, and, joined from
 * RDMA netlink, its queue pair and port. */
struct top_ib {
	size_t conn;                   /* SIZE_MAX if no connection row matched */
	struct wire_info_rdma_conn r;
	enum top_ib_join join;
	/* join == TOP_IBJ_OK: */
	size_t dev;                    /* index into top_snap.ibdevs */
	uint32_t port;                 /* 0: not known */
	uint32_t qpn;
	bool has_qp;                   /* the QP dump listed qpn */
	uint8_t qp_state, qp_type;     /* IB_QPS_*, IB_QPT_* */
	bool has_rqpn;
	uint32_t rqpn;
	bool has_port_state;
	uint8_t port_state;            /* IB_PORT_* */
};

/* An RDMA device as RDMA netlink lists it, with its resource counts (all
 * owners: RDMA_NLDEV_CMD_RES_GET's summary) and its ports' states. */
#define TOP_IBDEV_PORTS 4
struct top_ibdev {
	char name[WIRE_NLDEV_NAME_MAX + 1];
	uint32_t index;
	bool has_counts;
	uint64_t qps, cqs, mrs, pds, cm_ids;
	unsigned n_ports;
	struct {
		uint32_t port;
		uint8_t state, phys_state;
		char ndev[WIRE_NLDEV_NDEV_NAME_MAX + 1];
	} ports[TOP_IBDEV_PORTS];
};

struct top_snap {
	uint64_t now_ns;               /* monotonic time the source was read */
	const char *source;            /* "kernel", ... */
	struct top_conn *conns;
	size_t n_conns, cap_conns;
	struct top_path *paths;
	size_t n_paths, cap_paths;
	struct top_counter *counters;
	size_t n_counters, cap_counters;
	struct top_sock *socks;
	size_t n_socks, cap_socks;
	struct top_msg *msgs;
	size_t n_msgs, cap_msgs;
	struct top_ib *ibs;
	size_t n_ibs, cap_ibs;
	/* RDMA netlink's devices; has_rdma: it was read (the kernel source) */
	bool has_rdma;
	const char *rdma_error;        /* why it could not be read; NULL */
	struct top_ibdev *ibdevs;
	size_t n_ibdevs, cap_ibdevs;
	struct wire_cong_map *local_cong;  /* NULL = unknown */
	bool has_cong_mask;            /* a RDS_CONG_MONITOR socket is open */
	uint64_t cong_mask;            /* RDS_CMSG_CONG_UPDATE groups since the last snapshot */
	/* the kernel source: where the time line comes from, for the header
	 * of the time line; NULL for the other sources */
	const char *cong_news;
	/* the time line of map updates, oldest first; a source keeps only
	 * the most recent ones (events_lost counts the rest) */
	struct top_cong_event *events;
	size_t n_events, cap_events;
	uint64_t events_lost;
	/* a recorded capture: now_ns is capture time since its first packet,
	 * which makes every screen and rate reproducible */
	bool replay;
	bool ended;                    /* the capture has no more packets */
	bool no_sockets;               /* the source cannot see sockets */
	/* the source gave queue totals per connection and socket, not a
	 * list of messages: top_snap_link() keeps them */
	bool queue_totals;
	bool truncated;                /* the source cut the snapshot short */
};

/* top_snap_init() - an empty snapshot. */
void top_snap_init(struct top_snap *s);
/* top_snap_fini() - free everything |s| holds; it is empty afterwards. */
void top_snap_fini(struct top_snap *s);

/* Appenders. Return: the new element (zeroed, with conn = SIZE_MAX where
 * it has one), or NULL when memory ran out. */
struct top_conn *top_snap_add_conn(struct top_snap *s);
struct top_path *top_snap_add_path(struct top_snap *s);
struct top_counter *top_snap_add_counter(struct top_snap *s);
struct top_sock *top_snap_add_sock(struct top_snap *s);
struct top_msg *top_snap_add_msg(struct top_snap *s);
struct top_ib *top_snap_add_ib(struct top_snap *s);
struct top_cong_event *top_snap_add_event(struct top_snap *s);
struct top_ibdev *top_snap_add_ibdev(struct top_snap *s);
/* top_grow() - grow |*arr| (|*n| elements of |size|, room for |*cap|) by
 * one zeroed element. Return: the element, or NULL. */
void *top_grow(void **arr, size_t *n, size_t *cap, size_t size);

/* top_snap_find_conn() - index of the connection with these addresses
 * (and |transport| unless NULL); SIZE_MAX if none. */
size_t top_snap_find_conn(const struct top_snap *s, const uint8_t laddr[16],
			  const uint8_t faddr[16], const char *transport);

/*
 * top_snap_link() - derive what spans lists: paths and IB rows to their
 * connection (by address pair), each connection's path count (when its
 * source gave none) and send/retransmit queue totals, each socket's
 * receive and send queue totals (by bound address and port). Idempotent.
 */
void top_snap_link(struct top_snap *s);

/*
 * The paths of each connection, in snapshot order, found in one pass over
 * the paths instead of one pass per connection (1000 peers of 8 paths:
 * 8 million comparisons a refresh). top_paths_init() cannot fail: without
 * memory first() and next() search. For a connection c:
 *	for (j = top_paths_first(&pi, c); j != SIZE_MAX; j = top_paths_next(&pi, c, j))
 */
struct top_paths {
	const struct top_snap *s;
	size_t *first;  /* [n_conns]: its first path; NULL: search */
	size_t *next;   /* [n_paths]: the next path of the same connection */
};
void top_paths_init(struct top_paths *pi, const struct top_snap *s);
size_t top_paths_first(const struct top_paths *pi, size_t conn);
size_t top_paths_next(const struct top_paths *pi, size_t conn, size_t path);
void top_paths_fini(struct top_paths *pi);

/* top_snap_counter() - the counter named |name|, or NULL. */
const struct top_counter *top_snap_counter(const struct top_snap *s, const char *name);

struct top_counter_rate {
	const char *name;              /* points into the newer snapshot */
	uint64_t value;
	uint64_t delta;
	double per_sec;
	bool reset;                    /* went backwards: module reloaded */
};

struct top_conn_rate {
	bool known;                    /* found in the older snapshot too */
	bool reset;                    /* a sequence number went backwards */
	double tx_msgs_per_sec;
	double rx_msgs_per_sec;
	bool has_bytes;
	double tx_bytes_per_sec;
	double rx_bytes_per_sec;
};

struct top_rates {
	double seconds;                /* between the snapshots */
	struct top_counter_rate *counters;  /* one per counter of the newer snapshot */
	size_t n_counters;
	struct top_conn_rate *conns;   /* one per connection of the newer snapshot */
	size_t n_conns;
	/* stack totals from the core counters, where both snapshots have them */
	bool has_msgs;
	double msgs_in_per_sec;        /* recv_delivered */
	double msgs_out_per_sec;       /* send_queued */
	bool has_bytes_in;
	double bytes_in_per_sec;       /* recv_bytes_added_to_sock */
};

/*
 * top_rates_compute() - rates from |old| to |cur|, |cur| taken
 * |cur->now_ns - old->now_ns| later (|old| NULL or no time between them
 * gives known = false everywhere and zero rates). Connections are matched
 * by (laddr, faddr, transport, tos); a message is one sequence number.
 * Return: 0; -ENOMEM (|r| is then empty).
 */
int top_rates_compute(struct top_rates *r, const struct top_snap *old,
		      const struct top_snap *cur);
/* top_rates_fini() - free the arrays of |r|. */
void top_rates_fini(struct top_rates *r);

/* top_addr_str() - "10.0.0.1" for a v4-mapped address, else IPv6 text. */
const char *top_addr_str(const uint8_t a[16], char *buf, size_t len);
/* top_conn_state() - "connected", "connecting", "down" from the info flags,
 * with "+sending" when a send is in progress. */
const char *top_conn_state(uint8_t flags, char *buf, size_t len);

#endif /* TOP_H */
