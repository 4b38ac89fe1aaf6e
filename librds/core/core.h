/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * core.h - librds core internals: the long-lived objects and the functions
 * modules call on each other. Never installed.
 *
 * Object model (net/rds names in brackets):
 *   rdsu_ep    endpoint: a local address set, its sockets and connections
 *   rdsu_sock  a bound socket [rds_sock]
 *   rdsu_conn  one (local address, peer address) pair [rds_connection]
 *   rdsu_path  one of up to 8 paths of a conn, each carried by at most one
 *              TCP connection at a time, named by a link id [rds_conn_path]
 *   rdsu_msg   an outgoing message on a path queue [rds_message]
 *   rdsu_rx    a received message on a socket queue [rds_incoming]
 */
#ifndef RDSU_CORE_H
#define RDSU_CORE_H

#include <rds/rdsu.h>

#include "list.h"

#define RDSU_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define RDSU_HASH_BUCKETS 256
/* ACK_REQUIRED countdowns (sysctls max_unacked_packets, _bytes) */
#define RDSU_MAX_UNACKED_PKTS 8
#define RDSU_MAX_UNACKED_BYTES (16u << 20)
/* Posted buffers that force an ACK-only frame to advertise them
 * (rds_ib_advertise_credits) */
#define RDSU_ADV_CREDITS_ACK 16
/* How long a path killed under a peer that files connections in arrival
 * order waits before it reconnects (path.c peer_slots_by_order): ample
 * for the RSTs of a whole ss -K batch and the peer's shutdown work. */
#define RDSU_ORDER_SETTLE (50 * RDSU_MSEC)

/*
 * What a transport is to the core (tprops.c), one constant table each:
 * the core branches on these properties, never on which transport it is.
 */
enum rdsu_tack {
	RDSU_ACK_STREAM_OFF = 1,        /* the transport reports a stream offset (TCP) */
	RDSU_ACK_HDR,                   /* h_ack in received frames, ACK-only frames (IB) */
};

enum rdsu_tconnect {
	RDSU_CONNECT_SMALLER = 1,       /* only the smaller address connects ("avoid duels") */
	RDSU_CONNECT_BOTH,              /* both do; the passive side settles races */
};

struct rdsu_tprops {
	const char *name;               /* RDS_INFO transport name */
	unsigned id;                    /* RDSU_TRANS_* */
	enum rdsu_framing framing;
	enum rdsu_tack ack;
	uint8_t max_paths;              /* 1: not t_mp_capable */
	uint32_t frag_size;             /* payload bytes per frame; 0: none */
	bool probe_ext;                 /* probes carry NPATHS, GEN_NUM, SPORT_IDX */
	enum rdsu_tconnect connect;
	bool csum;                      /* h_csum computed on output, verified on input */
	bool credits;                   /* h_credit / dp_credit flow control possible */
	bool loop_maps;                 /* congestion maps sent to our own addresses */
	/* The loopback transport (tprops.c): a message is delivered to the
	 * endpoint's own socket bound to the peer address, from the local
	 * address, and its congestion test reads the peer address's own map
	 * (the kernel's maps are shared per address); no maps are sent. */
	bool local;
	/* A socket bound with this transport congests for its own
	 * endpoint's senders (not the loopback transport's: cong.c
	 * rdsu_cong_test). */
	bool rcv_cong;
	uint16_t port_v4, port_v6;      /* RDSU_LREQ_CONNECT dport */
};

/* Per-object event sources queued on ep->ev_q; coalesced by e_queued. */
enum rdsu_evsrc_kind {
	RDSU_EVSRC_SOCK = 1,
	RDSU_EVSRC_PATH,
	RDSU_EVSRC_CONN,
};

struct rdsu_evsrc {
	struct rdsu_list e_item;
	uint8_t e_kind;
};

/* Pending transport requests of a path (cp_req). */
#define RDSU_REQ_CONNECT 0x1
#define RDSU_REQ_ATTACH 0x2
#define RDSU_REQ_OUTPUT 0x4

/* What a message is; decides how its header is built. */
enum rdsu_msg_kind {
	RDSU_MK_DATA = 0,       /* from a socket; dport 0 makes it a ping */
	RDSU_MK_PONG,           /* answer to a ping (rds_send_pong) */
	RDSU_MK_PROBE_PING,     /* sport 1, dport 0, exthdrs (rds_send_ping) */
	RDSU_MK_PROBE_PONG,     /* sport 0, dport 1, exthdrs */
};

/* m_flags */
#define RDSU_MF_RETRANS 0x01    /* RDS_MSG_RETRANSMITTED: sets the header flag */
#define RDSU_MF_FLUSH 0x02      /* RDS_MSG_FLUSH: peer restarted, never resend */
#define RDSU_MF_ON_RETRANS 0x04 /* on cp_retrans_q (else on cp_send_q) */
#define RDSU_MF_DROPPED 0x08    /* cancelled/closed while being written */
#define RDSU_MF_ACK_REQ 0x10    /* RDS_MSG_ACK_REQUIRED: sets the header flag */
#define RDSU_MF_ZCOPY 0x20      /* MSG_ZEROCOPY: m_zcookie is queued when it leaves the socket */

struct rdsu_msg {
	struct rdsu_list m_conn_item;   /* cp_send_q or cp_retrans_q */
	struct rdsu_list m_sock_item;   /* rs_msgs, while m_rs is set */
	struct rdsu_sock *m_rs;         /* owner charged for m_len; NULL for control */
	struct rdsu_path *m_cp;
	uint64_t m_seq;
	uint64_t m_ack_off;             /* stream offset past its last byte (m_ack_seq) */
	rdsu_ns m_queued;               /* data: when the application submitted it */
	uint32_t m_len;
	uint16_t m_sport;
	uint16_t m_dport;
	uint8_t m_kind;
	uint8_t m_flags;
	struct rdsu_rop *m_op;          /* RDMA, atomic or cookie it carries (rdma.c) */
	uint32_t m_zcookie;             /* RDSU_MF_ZCOPY: its RDS_CMSG_ZCOPY_COOKIE */
	uint8_t m_data[];
};

/* The first message on path queue |q| (cp_send_q, cp_retrans_q), or NULL
 * when it is empty. */
static inline struct rdsu_msg *rdsu_msg_head(const struct rdsu_list *q)
{
	return rdsu_list_empty(q) ? NULL : rdsu_container_of(q->next, struct rdsu_msg, m_conn_item);
}

struct rdsu_rx {
	struct rdsu_list r_item;
	struct rdsu_addr r_faddr;
	uint16_t r_sport;
	uint64_t r_seq;                 /* h_sequence, for RDS_INFO_RECV_MESSAGES */
	bool r_has_cookie;              /* RDMA_DEST came with it */
	uint64_t r_cookie;
	rdsu_ns r_hdr, r_start, r_queued; /* rdsu_sock_rx_times() */
	uint32_t r_len;
	uint8_t r_data[];
};

struct rdsu_sock {
	struct rdsu_ep *rs_ep;
	size_t rs_index;                /* in ep->socks */
	struct rdsu_evsrc rs_ev;
	unsigned rs_ev_mask;
	void *rs_ctx;

	bool rs_bound;
	unsigned rs_trans;              /* RDSU_TRANS_*, NONE until set or bound */
	int rs_lidx;                    /* index of the bound address in the set */
	uint16_t rs_port;
	struct rdsu_sock *rs_bind_next; /* ep->bind_hash chain */
	uint32_t rs_hash_initval;

	uint32_t rs_sndbuf;
	uint32_t rs_rcvbuf;
	uint64_t rs_snd_bytes;
	uint64_t rs_rcv_bytes;
	bool rs_want_out;               /* saw -EAGAIN: tell when SNDBUF has room */
	/* auto-tuning (sock.c): only of a buffer the application left alone */
	bool rs_sndbuf_auto, rs_rcvbuf_auto;
	bool rs_tune_limited;           /* saw -EAGAIN since rs_tune_t0 */
	bool rs_rcv_drained;            /* the application emptied rs_rx_q since RCVBUF grew */
	rdsu_ns rs_tune_t0;             /* this measurement started */
	rdsu_ns rs_tune_q0;             /* ... m_queued of the message that started it */
	uint64_t rs_tune_bytes;         /* ... bytes acknowledged since */
	uint64_t rs_tune_rate;          /* best rate (bytes/s) at the current SNDBUF */
	uint64_t rs_tune_prev;          /* ... at the SNDBUF before it */
	struct rdsu_list rs_msgs;       /* our messages not yet acknowledged */

	struct rdsu_list rs_rx_q;
	uint32_t rs_rx_count;

	bool rs_congested;              /* our port is set in the local map */
	bool rs_cong_monitor;
	bool rs_seen_cong;              /* got -ENOBUFS: tell about the next map */
	uint64_t rs_cong_mask;
	uint64_t rs_cong_notify;
	uint64_t rs_cong_gen;           /* ep->cong_gen when last polled */

	/* RDMA (rdma.c): regions findable by cookie [rs_rdma_keys], and
	 * notifications to read [rs_notify_queue] */
	struct rdsu_list rs_mrs;
	unsigned rs_n_mrs;
	struct rdsu_list rs_notify_q;
	unsigned rs_n_ops;              /* live operations, notified or not */
	bool rs_recverr;

	/* zero-copy notices (zcopy.c): a ring of RDSU_ZC_MAX, allocated at
	 * the first zero-copy send [rs_zcookie_queue] */
	struct rdsu_zcq rs_zc;           /* ring NULL until then */
	unsigned rs_zc_inflight;        /* zero-copy messages not yet left */
	bool rs_zc_arm;                 /* the next message queued carries rs_zc_cookie */
	uint32_t rs_zc_cookie;
};

/* A registered region [rds_mr]. Held by its socket while findable, and
 * by each queued message that sends its cookie. */
struct rdsu_mr {
	struct rdsu_list mr_item;       /* rs_mrs while findable */
	struct rdsu_sock *mr_rs;        /* NULL once no longer findable */
	unsigned mr_trans;
	uint32_t mr_rkey;
	uint32_t mr_off;                /* the cookie's offset */
	uint64_t mr_len;
	unsigned mr_flags;
	void *mr_handle;                /* the transport's */
	unsigned mr_refs;
	bool mr_invalidate;
};

/* Operation states */
enum rdsu_rop_state {
	RDSU_ROP_QUEUED = 0,            /* its message has not started */
	RDSU_ROP_POSTED,                /* given to the transport, not ended */
	RDSU_ROP_ENDED,
};

/* An operation a message carries [rm_rdma_op, rm_atomic_op, m_rdma_cookie]. */
struct rdsu_rop {
	struct rdsu_list o_item;        /* ep->ops */
	struct rdsu_list o_notify_item; /* rs_notify_q while a notification waits */
	struct rdsu_sock *o_rs;         /* NULL once the socket is gone */
	struct rdsu_msg *o_msg;         /* NULL once the message is freed */
	struct rdsu_path *o_cp;         /* POSTED: the path whose link has it */
	uint64_t o_link;                /* POSTED: that link */
	uint8_t o_state;                /* enum rdsu_rop_state */
	bool o_recverr;                 /* the socket's RECVERR at submit */
	bool o_cancel;                  /* cancelled while POSTED: says so when it ends */
	bool o_notified;                /* its one notification is decided */
	bool o_queued;                  /* ... and waits on rs_notify_q */
	int o_status;
	unsigned o_flags;
	uint64_t o_token;
	struct rdsu_op_req o_req;       /* RDMA, FADD, CSWP */
	struct rdsu_mr *o_mr;           /* DEST, MAP: the region whose cookie goes */
	uint64_t o_cookie;
	struct iovec o_iov[];           /* RDMA: the local entries, copied */
};

/* The transport's RDMA seam, per transport (rdsu_ep_set_rdma). */
struct rdsu_rdma_seam {
	const struct rdsu_rdma_ops *ops;
	void *ud;
};

/* The bytes a path is writing: one message or map at a time, never
 * interleaved (rds_send_xmit). */
struct rdsu_xmit {
	bool active;
	uint8_t hdr[WIRE_HDR_LEN];
	const uint8_t *payload;
	uint32_t plen;
	uint32_t off;                   /* bytes of header + payload written */
	struct rdsu_msg *rm;            /* NULL while writing a map */
};

struct rdsu_path {
	struct rdsu_conn *cp_conn;
	uint8_t cp_index;
	enum rdsu_path_state cp_state;

	/* the link carrying it */
	uint64_t cp_link;               /* 0 = none */
	bool cp_outgoing;
	uint16_t cp_peer_sport;
	uint16_t cp_local_sport;

	/* sequence state (rds_conn_path: cp_next_tx_seq, cp_next_rx_seq) */
	uint64_t cp_next_tx_seq;
	uint64_t cp_next_rx_seq;

	/* sending */
	struct rdsu_list cp_send_q;
	struct rdsu_list cp_retrans_q;
	uint32_t cp_send_msgs, cp_retrans_msgs;
	uint64_t cp_send_bytes, cp_retrans_bytes;
	struct rdsu_xmit cp_xmit;
	bool cp_map_queued;
	bool cp_map_sent;                /* a map went out on the current link */
	uint8_t *cp_map_snap;           /* WIRE_CONG_MAP_BYTES, allocated on first map */
	uint64_t cp_tx_off;             /* stream bytes written on this link */
	uint64_t cp_acked;              /* ... of which TCP acknowledged */
	bool cp_out_armed;              /* an OUTPUT request is out and not yet drained */

	/* RDS-level acknowledgement and credits (RDSU_ACK_HDR transports,
	 * rds_ib_connection's i_ack_next, i_credits; frame.c) */
	uint64_t cp_rx_ack;             /* seq of the last whole non-map message taken */
	uint64_t cp_hack;               /* greatest h_ack applied on this link */
	bool cp_ack_wanted;             /* an ACK-only frame is owed */
	uint32_t cp_unacked_pkts;       /* ACK_REQUIRED countdowns */
	uint32_t cp_unacked_bytes;
	bool cp_fc_send;                /* the peer offered credits: spend them */
	bool cp_fc_adv;                 /* we offered credits: advertise posted buffers */
	uint32_t cp_send_credits;
	uint32_t cp_post_credits;       /* receive buffers posted, not yet advertised */
	uint32_t cp_peer_credits;       /* advertised and not yet used by the peer */
	uint16_t cp_version;            /* negotiated protocol version (monitor) */
	uint32_t cp_frag_off;           /* payload bytes of cp_xmit handed out in frames */

	/* receiving */
	struct wire_deframer cp_dfr;
	struct wire_reasm cp_reasm;     /* frame transports */
	uint8_t *cp_gather;             /* lent to cp_dfr, grown as split payloads arrive */
	size_t cp_gather_cap;
	uint64_t cp_rx_bytes;

	/* reconnecting (rds_queue_reconnect) */
	rdsu_ns cp_reconnect_at;        /* RDS_RECONNECT_PENDING when != NEVER */
	/* FAULT probe-pong-late, answer-delay-*: answers held on a timer,
	 * each for the link its ping came on (dropped if that is gone). */
	struct rdsu_held {
		rdsu_ns at;
		uint64_t link;
		uint64_t seq;           /* taken when held; 0 when sent */
		uint16_t dport;
		uint8_t kind;           /* enum rdsu_msg_kind */
	} cp_held[8];
	unsigned cp_n_held;
	rdsu_ns cp_backoff;             /* cp_reconnect_jiffies */
	bool cp_connecting;             /* counted in ep->n_connecting */

	/* Limits (docs/security.md). An incoming stream link proves itself
	 * with its first whole message; until then it carries no data of
	 * ours and is closed at cp_link_at + handshake_timeout. A link with
	 * a message begun is reset when no byte came for idle_timeout. */
	bool cp_proven;
	rdsu_ns cp_link_at;             /* accepted */
	rdsu_ns cp_rx_at;               /* last bytes in */
	rdsu_ns cp_rx_hdr_at;           /* the frame in progress: its first header byte, */
	rdsu_ns cp_rx_start_at;         /* ... its last header byte (0: not yet) */
	uint64_t cp_rx_msg_end;         /* cp_rx_bytes at the last whole message */

	/* transport requests and events */
	struct rdsu_list cp_req_item;
	unsigned cp_req;
	struct rdsu_evsrc cp_ev;

	uint64_t cp_connects, cp_resets;
};

struct rdsu_conn {
	struct rdsu_ep *c_ep;
	size_t c_index;                 /* in ep->conns; low bits of its link ids */
	struct rdsu_conn *c_hash_next;
	struct rdsu_addr c_laddr;
	struct rdsu_addr c_faddr;
	int c_lidx;
	const struct rdsu_tprops *c_tp; /* its transport, part of its key */
	bool c_active;                  /* we connect (for RDSU_CONNECT_SMALLER:
					 * laddr < faddr) */

	uint16_t c_npaths;              /* 0 until a probe told us */
	bool c_with_sport_idx;
	uint32_t c_peer_gen;
	bool c_gen_changed;             /* for the next PEER event */
	bool c_probe_pending;           /* c_ping_triggered */
	/* At the fan-out paths > 0 hold their messages until path 0 has
	 * had acknowledged what it held then (c_cp0_catchup, a sequence
	 * number) and the peer has answered a probe ping queued behind it
	 * (the fence; see probe.c). */
	uint64_t c_cp0_catchup;
	uint8_t c_fence;                /* RDSU_FENCE_* */
	uint32_t c_fence_due;           /* probe pongs still owed before the fence's */
	uint32_t c_probes_out;          /* probe pings sent, not yet answered */
	bool c_cp0_data;                /* data went on path 0 before the fan-out */

	/* incoming links waiting for a free slot, in arrival order (7.x
	 * stashes one; we keep up to one per path, so a fan-out that
	 * overtakes the probe telling us the path count is not refused) */
	struct {
		uint64_t link;
		rdsu_ns at;             /* held since */
		uint16_t sport;
	} c_held[WIRE_MAX_PATHS];
	unsigned c_n_held;

	/* While slots are filed in arrival order, a peer socket's messages
	 * still travel one sequence space (the kernel hashes a socket to one
	 * path), whichever of our slots carries it: the sequence number last
	 * taken from each sending port, for the duplicate check (recv.c).
	 * Allocated on first use, a fixed size. */
	struct rdsu_rx_seen *c_rx_seen;

	struct wire_cong_map c_fcong;   /* the peer's map */
	/* Since when no path is up (NEVER while one is): a peer nobody here
	 * sends to that never had a path up is forgotten give_up after that
	 * (conn.c). */
	rdsu_ns c_idle_since;
	/* A path of this peer came up and could carry messages (ours, or
	 * the peer's once it proved itself): what each side knows of the
	 * other's sequence numbers is kept for good, as the kernel keeps
	 * every peer. */
	bool c_was_up;
	uint32_t c_data_msgs;           /* our data messages on its path queues */
	struct rdsu_evsrc c_ev;
	struct rdsu_path c_path[WIRE_MAX_PATHS];
};

/* mem.c: freed message buffers by size class (rdsu_buf_alloc) */
#define RDSU_BUF_MIN 4096
#define RDSU_BUF_CLASSES 40             /* up to 2^21, above 1 MiB + headers */
#define RDSU_BUF_CACHE (8u << 20)       /* bytes kept at most */

struct rdsu_buf_cache {
	void *head[RDSU_BUF_CLASSES];
	size_t bytes;
};

struct rdsu_ep {
	struct rdsu_ep_cfg cfg;
	struct rdsu_buf_cache bufs;
	struct wire_cong_map *lmaps[RDSU_MAX_LADDRS]; /* one map per local address */

	/* conns[i] is NULL once that connection was given up; its index is
	 * reused, and link ids stay unique by their generation bits. */
	struct rdsu_conn **conns;
	size_t n_conns, cap_conns;      /* n_conns: used length of conns[] */
	size_t n_live;                  /* non-NULL entries */
	size_t n_links;                 /* links on paths, connecting or up, and held */
	size_t n_connecting;            /* outgoing links not yet established */
	struct rdsu_conn *conn_hash[RDSU_HASH_BUCKETS];

	struct rdsu_sock **socks;
	size_t n_socks, cap_socks;
	struct rdsu_sock *bind_hash[RDSU_HASH_BUCKETS];

	struct rdsu_list ev_q;
	struct rdsu_list req_q;
	uint64_t *close_q;              /* ring of link ids to close */
	bool *close_reset;
	size_t close_head, close_n, close_cap;

	uint64_t link_gen;
	uint64_t rng;
	uint64_t cong_gen;              /* bumped on every peer map received */
	size_t n_want_out;              /* sockets with rs_want_out */
	struct rdsu_rdma_seam rdma[RDSU_TRANS_COUNT];
	struct rdsu_list ops;           /* every live rdsu_rop */
	uint64_t op_next_id;
	unsigned n_mrs;                 /* registered, not yet given back */
	uint64_t stats[RDSU_STAT__COUNT];
};

#define RDSU_LINK_CONN_BITS 24
#define RDSU_LINK_CONN_MASK ((1ull << RDSU_LINK_CONN_BITS) - 1)

static inline void rdsu_stat_add(struct rdsu_ep *ep, enum rdsu_stat s, uint64_t n)
{
	ep->stats[s] += n;
}

static inline void rdsu_stat_inc(struct rdsu_ep *ep, enum rdsu_stat s)
{
	ep->stats[s]++;
}

/* Faulty-peer mode (tests only, rdsu.h): true when the endpoint was told
 * to commit defect |f|. Every use is commented "FAULT <name>". */
static inline bool rdsu_faulty(const struct rdsu_ep *ep, enum rdsu_fault f)
{
	return (ep->cfg.faults & (uint32_t)f) != 0;
}

/* mem.c */
void *rdsu_mem_alloc(struct rdsu_ep *ep, size_t size);
void *rdsu_mem_zalloc(struct rdsu_ep *ep, size_t size);
void rdsu_mem_free(struct rdsu_ep *ep, void *p);
void *rdsu_mem_cfg_alloc(const struct rdsu_mem *m, size_t size);
void rdsu_mem_cfg_free(const struct rdsu_mem *m, void *p);
void *rdsu_buf_alloc(struct rdsu_ep *ep, size_t size);
void rdsu_buf_free(struct rdsu_ep *ep, void *p, size_t size);
void rdsu_buf_cache_drain(struct rdsu_ep *ep);

/* addr.c */
bool rdsu_addr_is_any(const struct rdsu_addr *a);
bool rdsu_addr_is_loopback(const struct rdsu_addr *a);

/* ep.c */
uint64_t rdsu_ep_rand(struct rdsu_ep *ep);
int rdsu_ep_lidx(const struct rdsu_ep *ep, const struct rdsu_addr *a);
void rdsu_ep_ev_queue(struct rdsu_ep *ep, struct rdsu_evsrc *src);
void rdsu_ep_ev_cancel(struct rdsu_evsrc *src);
void rdsu_ep_req(struct rdsu_path *cp, unsigned req);
void rdsu_ep_req_clear(struct rdsu_path *cp, unsigned req);
void rdsu_ep_close_link(struct rdsu_ep *ep, uint64_t link, bool reset);
uint64_t rdsu_ep_new_link(struct rdsu_ep *ep, const struct rdsu_conn *c);

/* tprops.c */
const struct rdsu_tprops *rdsu_tprops_get(unsigned trans);

/* conn.c */
struct rdsu_conn *rdsu_conn_find(const struct rdsu_ep *ep, int lidx, const struct rdsu_addr *faddr,
				 unsigned trans);
struct rdsu_conn *rdsu_conn_get(struct rdsu_ep *ep, int lidx, const struct rdsu_addr *faddr,
				unsigned trans, rdsu_ns now);
void rdsu_conn_free_all(struct rdsu_ep *ep);
rdsu_ns rdsu_conn_deadline(const struct rdsu_conn *c);
/* rdsu_conn_expire() - close held links past their handshake time, and
 * forget |c| once given up (then it is freed). Return: timers run. */
int rdsu_conn_expire(struct rdsu_conn *c, rdsu_ns now);
unsigned rdsu_conn_links(const struct rdsu_conn *c);
bool rdsu_conn_slots_by_order(const struct rdsu_conn *c);
int rdsu_conn_find_link(struct rdsu_ep *ep, uint64_t link, struct rdsu_conn **c,
			struct rdsu_path **cp);
bool rdsu_conn_hold(struct rdsu_conn *c, uint64_t link, uint16_t sport, rdsu_ns now);
void rdsu_conn_unhold(struct rdsu_conn *c, uint64_t link);
void rdsu_conn_info_fill(const struct rdsu_conn *c, struct rdsu_conn_info *out);
int rdsu_conn_pick_slot(struct rdsu_conn *c, uint16_t peer_sport);
int rdsu_conn_attach(struct rdsu_conn *c, int slot, uint64_t link, uint16_t peer_sport,
		     rdsu_ns now);
/* rdsu_conn_accept() - give incoming |link| a slot, hold it, or refuse it
 * (the caps, 6.x's reset). Return: RDSU_ACCEPT_UP, _HELD; RDSU_ERR_REFUSED,
 * RDSU_ERR_NOMEM. */
int rdsu_conn_accept(struct rdsu_conn *c, uint64_t link, uint16_t peer_sport, rdsu_ns now);
void rdsu_conn_retry_held(struct rdsu_conn *c, rdsu_ns now);
void rdsu_conn_check_all_paths(struct rdsu_conn *c, rdsu_ns now);
void rdsu_conn_event(struct rdsu_conn *c);

/* path.c */
uint64_t rdsu_path_first_seq(const struct rdsu_conn *c);
void rdsu_path_init(struct rdsu_path *cp, struct rdsu_conn *c, uint8_t index);
void rdsu_path_fini(struct rdsu_path *cp);
void rdsu_path_connect_if_down(struct rdsu_path *cp, rdsu_ns now);
int rdsu_path_grow_gather(struct rdsu_path *cp, size_t need);
void rdsu_path_up(struct rdsu_path *cp, rdsu_ns now);
void rdsu_path_drop(struct rdsu_path *cp, bool close_link, bool reset, rdsu_ns now);
void rdsu_path_kick(struct rdsu_path *cp);
void rdsu_path_proven(struct rdsu_path *cp);
void rdsu_path_connecting_done(struct rdsu_path *cp);
rdsu_ns rdsu_path_deadline(const struct rdsu_path *cp);
int rdsu_path_expire(struct rdsu_path *cp, rdsu_ns now);
void rdsu_path_info_fill(const struct rdsu_path *cp, struct rdsu_path_info *out);

/* send.c */
int rdsu_send_data(struct rdsu_path *cp, struct rdsu_sock *rs, uint16_t dport, rdsu_ns now,
		   const struct iovec *iov, int iovcnt, uint32_t len, struct rdsu_rop *op);
int rdsu_send_ctl(struct rdsu_path *cp, enum rdsu_msg_kind kind, uint16_t dport, rdsu_ns now);
/* rdsu_send_ctl_seq() - as rdsu_send_ctl with the sequence number |seq|
 * taken earlier (0: the next), for FAULT answer-delay-*. */
int rdsu_send_ctl_seq(struct rdsu_path *cp, enum rdsu_msg_kind kind, uint16_t dport, uint64_t seq,
		      rdsu_ns now);
bool rdsu_send_has_output(struct rdsu_path *cp);
bool rdsu_send_credit_stalled(struct rdsu_path *cp);
void rdsu_send_peek(struct rdsu_path *cp, const uint8_t **p, size_t *len);
int rdsu_send_advance(struct rdsu_path *cp, size_t n);
int rdsu_send_acked(struct rdsu_path *cp, uint64_t acked, rdsu_ns now);
void rdsu_send_path_reset(struct rdsu_path *cp);
void rdsu_send_flush_retrans(struct rdsu_path *cp);
void rdsu_send_free_all(struct rdsu_path *cp);
int rdsu_send_drop_sock(struct rdsu_sock *rs, const struct rdsu_addr *faddr, uint16_t dport);

/* recv.c */
ssize_t rdsu_recv_input(struct rdsu_path *cp, const uint8_t *in, size_t len, rdsu_ns now);
int rdsu_recv_frame(struct rdsu_path *cp, const uint8_t *in, size_t len, rdsu_ns now);
void rdsu_recv_seen_reset(struct rdsu_conn *c);

/* send.c, frame transports */
ssize_t rdsu_send_frame(struct rdsu_path *cp, uint8_t *buf, size_t cap);
int rdsu_send_hack(struct rdsu_path *cp, uint64_t ack, rdsu_ns now);
void rdsu_send_credits(struct rdsu_path *cp, uint32_t n);
void rdsu_send_adv_check(struct rdsu_path *cp);

/* rdma.c */
/* How an operation ends, for the notification rule. */
enum rdsu_rop_end {
	RDSU_ROP_END_COMPLETE = 1,      /* the transport reported it (rds_rdma_send_complete) */
	RDSU_ROP_END_CANCEL,            /* RDS_CANCEL_SENT_TO (__rds_send_complete) */
	RDSU_ROP_END_DROP,              /* dropped, never resent (rds_send_remove_from_sock) */
};
/* rdsu_rdma_notify_rule() - whether an op with RDSU_RDMA_* |flags| and
 * |recverr| ending as |end| with |status| is notified. */
bool rdsu_rdma_notify_rule(unsigned flags, bool recverr, enum rdsu_rop_end end, int status);
bool rdsu_rdma_carries_op(const struct rdsu_msg *rm);
void rdsu_rdma_hdr_exts(const struct rdsu_path *cp, const struct rdsu_msg *rm, struct wire_hdr *h);
void rdsu_rdma_post(struct rdsu_path *cp, struct rdsu_msg *rm);
void rdsu_rdma_msg_gone(struct rdsu_ep *ep, struct rdsu_msg *rm, enum rdsu_rop_end end, int status);
void rdsu_rdma_path_down(struct rdsu_path *cp);
void rdsu_rdma_recv_exts(struct rdsu_sock *rs, const struct wire_hdr *h, bool *has_cookie,
			 uint64_t *cookie);
void rdsu_rdma_sock_free(struct rdsu_sock *rs);
void rdsu_rdma_ep_free(struct rdsu_ep *ep);

/* cong.c */
void rdsu_cong_map_updated(struct rdsu_ep *ep);
bool rdsu_cong_test(const struct rdsu_conn *c, uint16_t port);
void rdsu_cong_rcvbuf_delta(struct rdsu_sock *rs, int64_t delta);
void rdsu_cong_queue_updates(struct rdsu_ep *ep, int lidx);
void rdsu_cong_peer_update(struct rdsu_conn *c, const uint8_t *map, size_t len);
int rdsu_cong_check_send(struct rdsu_conn *c, struct rdsu_sock *rs, uint16_t dport);
void rdsu_cong_remove_sock(struct rdsu_sock *rs);

/* probe.c */
void rdsu_probe_build(const struct rdsu_conn *c, struct wire_hdr *h, bool pong, uint64_t seq);
void rdsu_probe_input(struct rdsu_conn *c, const struct wire_hdr *h, bool pong, rdsu_ns now);
/* rdsu_probe_answer() - queue the probe pong to a probe ping on |cp|. */
void rdsu_probe_answer(struct rdsu_path *cp, rdsu_ns now);
/* rdsu_answer() - queue a pong (|kind| RDSU_MK_PONG or _PROBE_PONG) to
 * |dport| on |cp|: at once, or held under FAULT answer-delay-*. */
void rdsu_answer(struct rdsu_path *cp, enum rdsu_msg_kind kind, uint16_t dport, rdsu_ns now);
/* rdsu_held_deadline() - the earliest held answer's time, or NEVER. */
rdsu_ns rdsu_held_deadline(const struct rdsu_path *cp);
/* rdsu_held_expire() - send the held answers due at |now|. Return: how
 * many were due. */
int rdsu_held_expire(struct rdsu_path *cp, rdsu_ns now);
void rdsu_probe_ping(struct rdsu_conn *c, rdsu_ns now);
unsigned rdsu_probe_pick_path(struct rdsu_conn *c, const struct rdsu_sock *rs, uint16_t dport,
			      rdsu_ns now);
void rdsu_probe_path_up(struct rdsu_path *cp, rdsu_ns now);
enum { RDSU_FENCE_NONE, RDSU_FENCE_NEED, RDSU_FENCE_SENT };
bool rdsu_probe_cp0_caught_up(struct rdsu_conn *c);
void rdsu_probe_fence_send(struct rdsu_conn *c, rdsu_ns now);

/* sock.c */
struct rdsu_sock *rdsu_sock_find_bound(const struct rdsu_ep *ep, int lidx, uint16_t port);
int rdsu_sock_deliver(struct rdsu_sock *rs, const struct rdsu_addr *faddr, uint16_t sport,
		      uint64_t seq, const uint8_t *data, uint32_t len);
/* rdsu_sock_rx_cookie() - the last message rdsu_sock_deliver() queued on
 * |rs| carried the peer's cookie |cookie|. */
void rdsu_sock_rx_cookie(struct rdsu_sock *rs, uint64_t cookie);
/* rdsu_sock_rx_stamp() - ... and when it reached us (rdsu_sock_rx_times). */
void rdsu_sock_rx_stamp(struct rdsu_sock *rs, rdsu_ns hdr, rdsu_ns start, rdsu_ns queued);
/* zcopy.c: a zero-copy message |rm| of |rs| left the socket; the socket
 * is freed */
void rdsu_zc_msg_left(struct rdsu_sock *rs, struct rdsu_msg *rm);
void rdsu_zc_sock_free(struct rdsu_sock *rs);
int rdsu_sock_submit_internal(struct rdsu_sock *rs, const struct rdsu_addr *dst, uint16_t dport,
			      const struct iovec *iov, int iovcnt, struct rdsu_rop *op, rdsu_ns now);
void rdsu_sock_msg_release(struct rdsu_msg *rm);
void rdsu_sock_msg_acked(struct rdsu_msg *rm, rdsu_ns now);
bool rdsu_sock_rcvbuf_grow(struct rdsu_sock *rs);
void rdsu_sock_ev(struct rdsu_sock *rs, unsigned mask);
void rdsu_sock_info_fill(const struct rdsu_sock *rs, struct rdsu_sock_info *out);

#endif /* RDSU_CORE_H */
