/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rdsu.h - librds, a userspace RDS endpoint stack. The one public header.
 *
 * The core is sans-IO: it never reads a clock, performs I/O, touches errno,
 * prints, or draws random numbers of its own. Time is an argument (rdsu_ns),
 * bytes go in and out through the link calls below, deadlines are pulled
 * (rdsu_ep_deadline/rdsu_ep_expire) and so are events (rdsu_ep_next_event,
 * rdsu_ep_next_link_req). A transport (TCP sockets, or the in-memory
 * simulator in librds/sim) moves the bytes; the application talks to the
 * socket-like calls. docs/librds.md states both contracts.
 *
 * Behaviour follows the Linux kernel's RDS/TCP (net/rds, 6.1 and 7.x);
 * comments name the kernel function a choice rests on.
 *
 * Threading: one endpoint and everything hanging off it is used by one
 * thread at a time. Nothing is shared between endpoints.
 *
 * Return conventions. Endpoint, link and monitor calls return >= 0 on
 * success or an enum rdsu_err code (-2xx). The socket-like calls
 * (rdsu_sock_*) return what the kernel's system calls would: >= 0, or a
 * negative errno value (-EAGAIN, -EMSGSIZE, -ENOBUFS, -EINVAL,
 * -EADDRINUSE, -ENOTCONN, ...), so an application ported from AF_RDS keeps
 * its error handling. The two ranges do not overlap; rdsu_strerror() names
 * both.
 */
#ifndef RDS_RDSU_H
#define RDS_RDSU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <wire/wire.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(RDSU_BUILDING) && defined(__GNUC__)
#define RDSU_API __attribute__((visibility("default")))
#else
#define RDSU_API
#endif

/* ------------------------------------------------------------------------
 * Time, errors, addresses, memory
 */

/* Monotonic time in nanoseconds, chosen by the caller. */
typedef uint64_t rdsu_ns;
#define RDSU_NS_NEVER UINT64_MAX
#define RDSU_MSEC 1000000ull
#define RDSU_SEC 1000000000ull

enum rdsu_err {
	RDSU_OK = 0,
	RDSU_ERR_AGAIN = -201,   /* nothing to do now; not an error for loops */
	RDSU_ERR_PROTO = -202,   /* the peer broke the protocol; the path was reset */
	/* -203 and -205 are not used: congestion is -ENOBUFS, as the socket
	 * API says it, and a failed OS call its own negative errno */
	RDSU_ERR_CLOSED = -204,  /* the link is not (or no longer) the core's: close it */
	RDSU_ERR_INVAL = -206,   /* caller misuse: NULL, bad value, bad config */
	RDSU_ERR_REFUSED = -207, /* accept: reset this incoming connection */
	RDSU_ERR_NOTFOUND = -208,/* no such connection or address */
	RDSU_ERR_FATAL = -280,   /* at or below: the object is unusable, only _free() */
	RDSU_ERR_NOMEM = -281,   /* an allocation failed; the call had no effect */
};

/* rdsu_strerror() - text for an rdsu_err or a negative errno value: static,
 * except for an errno librds does not name itself (its glibc name and
 * description), which stays valid for the calling thread's next three
 * calls. */
RDSU_API const char *rdsu_strerror(int err);
/* rdsu_err_is_fatal() - true for codes at or below RDSU_ERR_FATAL. */
RDSU_API bool rdsu_err_is_fatal(int err);

/*
 * An RDS address: always the 16-byte IPv6 form, IPv4 as ::ffff:a.b.c.d, so
 * comparing two addresses is memcmp() (rds_addr_cmp in net/rds/threads.c,
 * which decides who connects).
 */
struct rdsu_addr {
	uint8_t a[16];
};

/* rdsu_addr_v4() - ::ffff:|host_order| (e.g. 0x7f000001 for 127.0.0.1). */
RDSU_API struct rdsu_addr rdsu_addr_v4(uint32_t host_order);
/* rdsu_addr_is_v4() - true for a v4-mapped address. */
RDSU_API bool rdsu_addr_is_v4(const struct rdsu_addr *a);
/* rdsu_addr_get_v4() - the IPv4 address in host order (0 if not v4-mapped). */
RDSU_API uint32_t rdsu_addr_get_v4(const struct rdsu_addr *a);
/* rdsu_addr_cmp() - <0, 0, >0 as rds_addr_cmp(): unsigned big-endian order. */
RDSU_API int rdsu_addr_cmp(const struct rdsu_addr *x, const struct rdsu_addr *y);
/* rdsu_addr_str() - "10.0.0.1" or "fe80::1" into |buf|; returns |buf|. */
RDSU_API const char *rdsu_addr_str(const struct rdsu_addr *a, char *buf, size_t cap);

/* Allocator hooks (nghttp2_mem); zeroed fields mean libc malloc/free. */
struct rdsu_mem {
	void *(*alloc)(size_t size, void *ud);
	void (*free)(void *p, void *ud);
	void *ud;
};

/* ------------------------------------------------------------------------
 * Endpoint: one per bound local address set
 */

#define RDSU_MAX_LADDRS 8

/*
 * Transports, numbered as the kernel's RDS_TRANS_* (SO_RDS_TRANSPORT).
 * A connection is keyed by (local address, peer address, transport), as
 * the kernel's; a socket picks its transport at bind (127.0.0.0/8 and ::1
 * take RDSU_TRANS_LOOP, then rdsu_ep_cfg.rdma_laddrs) unless
 * rdsu_sock_set_transport() forced one.
 */
#define RDSU_TRANS_IB 0
#define RDSU_TRANS_TCP 2
#define RDSU_TRANS_COUNT 3
/* The loopback transport, the kernel's internal RDS_TRANS_LOOP: a socket
 * bound to 127.0.0.0/8 or ::1 has it (SO_RDS_TRANSPORT reads 3), and a
 * message to such an address or to one of the endpoint's own addresses
 * travels on it, delivered to the endpoint's own sockets (docs/librds.md,
 * "The loopback transport"). Not a value rdsu_sock_set_transport takes. */
#define RDSU_TRANS_LOOP 3
#define RDSU_TRANS_NONE 0xffffffffu  /* RDS_TRANS_NONE: not chosen yet */

/* How a transport carries messages (docs/librds.md, "Transports"). */
enum rdsu_framing {
	RDSU_FRAMING_STREAM = 1, /* a byte stream (TCP); acked by stream offset */
	RDSU_FRAMING_FRAMES,     /* whole frames of one fragment (IB); acked by h_ack */
};
#define RDSU_DEFAULT_BUF 106496     /* wmem_default / 2, as rds_sk_sndbuf() reads it */
/* How far SNDBUF and RCVBUF of a socket the application left alone grow
 * (rdsu_ep_cfg.buf_max): tcp_wmem[2], the bound of TCP's own send buffer
 * auto-tuning. */
#define RDSU_AUTO_BUF_MAX (4u << 20)

/*
 * How a socket's message picks one of the negotiated paths. The kernel
 * hashes the sending socket's bound port alone (RDS_MPATH_HASH), so a
 * request and its reply, sent by two sockets, travel on two different TCP
 * connections: each side then reads a connection it never writes on, and
 * every read costs a pure ACK. Hashing the unordered pair {source port,
 * destination port} puts both directions of a socket pair on one
 * connection, where acknowledgements ride on the replies. Either rule keeps
 * what RDS promises: messages from one socket to one destination port stay
 * on one path, in order. Only the sender's choice differs; any receiver,
 * kernel or librds, takes a message on whichever path it arrives.
 * rdsu_ep_cfg_default() picks the pair; a zeroed configuration, or one
 * sized before the field, has the kernel's.
 */
enum rdsu_path_rule {
	RDSU_PATH_BY_PORT = 0,      /* the kernel's: hash of the bound port */
	RDSU_PATH_BY_PAIR = 1,      /* hash of {sport, dport} (rdsu_ep_cfg_default) */
};

struct rdsu_ep_cfg {
	size_t size;                /* sizeof(struct rdsu_ep_cfg) */
	struct rdsu_addr laddrs[RDSU_MAX_LADDRS]; /* the local address set */
	unsigned n_laddrs;          /* 1..RDSU_MAX_LADDRS */
	/*
	 * How to behave where kernel generations differ. WIRE_KVER_7: probes
	 * carry NPATHS, GEN_NUM and SPORT_IDX; connections ask for a source
	 * port with port % 8 == path index; an incoming connection goes to
	 * slot (peer source port % npaths) once the peer advertised SPORT_IDX,
	 * and waits ("held") while that slot is busy or the path count is not
	 * known yet. WIRE_KVER_6: probes carry
	 * NPATHS only, any source port, incoming connections take the first
	 * free slot in arrival order and are refused when none is free.
	 */
	enum wire_kver kver;
	uint16_t npaths;            /* paths we advertise: 1, 2, 4 or 8 (default 8) */
	uint32_t gen_num;           /* our generation number (GEN_NUM); non-zero,
				     * random per process start (rds_gen_num) */
	uint64_t seed;              /* drives backoff jitter and ephemeral ports */
	uint32_t hash_initval;      /* rs_hash_initval of every socket (default 0) */
	bool ping_enable;           /* answer pings (sysctl ping_enable, default true) */
	uint32_t sndbuf;            /* default SNDBUF of new sockets, payload bytes */
	uint32_t rcvbuf;            /* default RCVBUF of new sockets, payload bytes */
	rdsu_ns reconnect_min;      /* reconnect_min_delay_ms (default 1 ms) */
	rdsu_ns reconnect_max;      /* reconnect_max_delay_ms (default 1 s) */
	struct rdsu_mem mem;
	/*
	 * TESTS ONLY, NEVER SET IN PRODUCTION: a mask of enum rdsu_fault
	 * bits that make this endpoint a faulty peer, breaking the protocol
	 * on purpose so that a conformance suite can be shown to catch it
	 * (see "Faulty-peer mode" below). Default 0: no faults.
	 */
	uint32_t faults;
	/* Which path a message takes when several are up (rdsu_path_of).
	 * rdsu_ep_cfg_default: RDSU_PATH_BY_PAIR; a configuration sized
	 * before this field gets RDSU_PATH_BY_PORT, the kernel's. */
	enum rdsu_path_rule path_rule;
	/* Bit i: laddrs[i] is on an RDMA device, so sockets bound to it use
	 * RDSU_TRANS_IB unless told otherwise (the kernel's choice at bind,
	 * IB before TCP); other addresses use RDSU_TRANS_TCP. 0, and any
	 * configuration sized before this field: TCP everywhere. */
	uint32_t rdma_laddrs;
	/*
	 * Buffer auto-tuning (docs/librds.md, "Socket buffers"): a socket
	 * whose SNDBUF or RCVBUF the application did not set starts at
	 * |sndbuf| and |rcvbuf| and grows with use up to |buf_max| payload
	 * bytes; a value set on the socket is kept as given, as the kernel
	 * keeps it. rdsu_ep_cfg_default: RDSU_AUTO_BUF_MAX. 0, a value not
	 * above |sndbuf| (|rcvbuf|), and any configuration sized before this
	 * field: that buffer stays fixed, as the kernel's.
	 */
	uint32_t buf_max;
	/*
	 * Limits against hostile peers (docs/security.md). 0, and any
	 * configuration sized before these fields, means the default.
	 * max_conns: peers (connections) in the table (default 4096); a
	 * send to a new peer beyond it fails with -ENOMEM, a connection
	 * from one is refused. max_links: TCP connections in any state,
	 * held ones included (default 4096); max_peer_links: of those, per
	 * peer (default 16: 8 paths, and 8 held while a peer that lost all
	 * at once reconnects faster than we see the old ones go; a held
	 * connection may carry messages TCP acknowledged, which a reset
	 * would lose, so this is the only bound on held connections: they
	 * have no timer); max_connecting: outgoing
	 * connections in flight at once (default 64). A connect over a cap
	 * waits, on its path's reconnect timer, for up to reconnect_max.
	 * UINT32_MAX: no cap.
	 */
	uint32_t max_conns;
	uint32_t max_links;
	uint32_t max_peer_links;
	uint32_t max_connecting;
	/* An incoming TCP connection on a path whose first whole RDS message
	 * has not arrived this long after it got the path is reset; until
	 * it arrives, no data of ours goes on it (default 10 s). A held
	 * connection waits for its path without this limit. */
	rdsu_ns handshake_timeout;
	/* A connection with a message begun that then brings no byte for
	 * this long is reset (default 60 s). */
	rdsu_ns idle_timeout;
	/* A peer that never had a path up, with no connection held and no
	 * data of ours queued or unacknowledged for it, is forgotten this
	 * long after it was made: reconnecting stops and its memory is
	 * freed (default 60 s). A peer that was up once is kept, sequence
	 * numbers and all, as the kernel keeps every peer. RDSU_NS_NEVER
	 * for any of the three: never (the kernel's behaviour). */
	rdsu_ns give_up;
};

struct rdsu_ep;
struct rdsu_sock;

/*
 * rdsu_ep_cfg_default() - fill |cfg| with the kernel's defaults: 7.x
 * behaviour, npaths 8, ping_enable, SNDBUF/RCVBUF 106496, reconnect 1 ms ..
 * 1 s; but for the path rule, RDSU_PATH_BY_PAIR (set RDSU_PATH_BY_PORT
 * to choose paths as the kernel does), and buffers that grow with use up
 * to RDSU_AUTO_BUF_MAX (buf_max; 0 keeps them at 106496). The caller
 * still sets laddrs, n_laddrs, gen_num and seed.
 */
RDSU_API void rdsu_ep_cfg_default(struct rdsu_ep_cfg *cfg);
/*
 * rdsu_ep_new() - create an endpoint for cfg->laddrs. cfg->size may also
 * be that of the structure before |faults| was added (it ends at |mem|):
 * such a configuration runs without faults.
 * Return: 0 and *out set; RDSU_ERR_INVAL (size too small, no or duplicate
 * or unspecified address, mixed families, gen_num 0, npaths not a power of
 * two in 1..8, kver or path_rule unknown, reconnect_min 0 or >
 * reconnect_max, a fault bit that is not RDSU_FAULT__ALL's, an rdma_laddrs
 * bit at or beyond n_laddrs); RDSU_ERR_NOMEM.
 */
RDSU_API int rdsu_ep_new(struct rdsu_ep **out, const struct rdsu_ep_cfg *cfg);
/* rdsu_ep_free() - free the endpoint, its sockets, connections and queues.
 * NULL is a no-op. Links are forgotten: the transport closes its sockets. */
RDSU_API void rdsu_ep_free(struct rdsu_ep *ep);

/* rdsu_ep_deadline() - earliest time rdsu_ep_expire() has work, or
 * RDSU_NS_NEVER. */
RDSU_API rdsu_ns rdsu_ep_deadline(const struct rdsu_ep *ep);
/*
 * rdsu_ep_expire() - run every timer due at |now| (reconnect backoff).
 * Return: number of timers run (>= 0).
 */
RDSU_API int rdsu_ep_expire(struct rdsu_ep *ep, rdsu_ns now);

/* ------------------------------------------------------------------------
 * Faulty-peer mode: FOR TESTING CONFORMANCE SUITES ONLY
 *
 * Each bit of rdsu_ep_cfg.faults seeds one protocol defect into the core,
 * at the place where the correct behaviour is implemented, so that a
 * checker (rds-conform, rdsdump's rules) can be run against a peer known
 * to be wrong in exactly that way and shown to notice. A faulty endpoint
 * breaks interoperability, can lose or duplicate messages, and with
 * RDSU_FAULT_HUGE_HLEN_CRASH kills its process: never set these outside a
 * test. docs/librds.md lists them; rdsu_fault_info() is the table.
 */

enum rdsu_fault {
	RDSU_FAULT_SEQ_ZERO = 1 << 0,         /* seq-zero */
	RDSU_FAULT_SEQ_SKIP = 1 << 1,         /* seq-skip */
	RDSU_FAULT_PONG_WRONG_PORT = 1 << 2,  /* pong-wrong-port */
	RDSU_FAULT_PONG_PAYLOAD = 1 << 3,     /* pong-payload */
	RDSU_FAULT_PING_PORT0_ANSWERED = 1 << 4, /* ping-port0-answered */
	RDSU_FAULT_NO_MAP = 1 << 5,           /* no-map */
	RDSU_FAULT_SHORT_MAP = 1 << 6,        /* short-map */
	RDSU_FAULT_MAP_FLAGS = 1 << 7,        /* map-flags */
	RDSU_FAULT_PROBE_NO_NPATHS = 1 << 8,  /* probe-no-npaths */
	RDSU_FAULT_ACK_SENT = 1 << 9,         /* ack-sent */
	RDSU_FAULT_RETRANS_NO_FLAG = 1 << 10, /* retrans-no-flag */
	RDSU_FAULT_DUP_DELIVER = 1 << 11,     /* dup-deliver */
	RDSU_FAULT_ACCEPT_LARGER = 1 << 12,   /* accept-larger */
	RDSU_FAULT_UNKNOWN_EXT_RESET = 1 << 13, /* unknown-ext-reset */
	RDSU_FAULT_HUGE_HLEN_CRASH = 1 << 14, /* huge-hlen-crash */
	RDSU_FAULT_PROBE_NO_PONG = 1 << 15,   /* probe-no-pong */
	RDSU_FAULT_PROBE_PONG_LATE = 1 << 16, /* probe-pong-late */
	RDSU_FAULT_PROBE_PONG_PORT0 = 1 << 17, /* probe-pong-port0 */
	RDSU_FAULT_PROBE_EXTRA_PING = 1 << 18, /* probe-extra-ping */
	RDSU_FAULT_ANSWER_DELAY_1S = 1 << 19, /* answer-delay-1s */
	RDSU_FAULT_ANSWER_DELAY_3S = 1 << 20, /* answer-delay-3s */
	/* over IB (frame transports) */
	RDSU_FAULT_IB_CSUM_BAD = 1 << 21,     /* ib-csum-bad */
	RDSU_FAULT_IB_CSUM_IGNORED = 1 << 22, /* ib-csum-ignored */
	RDSU_FAULT_IB_NO_ACK = 1 << 23,       /* ib-no-ack */
	RDSU_FAULT_IB_ACK_ZERO = 1 << 24,     /* ib-ack-zero */
	RDSU_FAULT_IB_FRAG_MISMATCH = 1 << 25, /* ib-frag-mismatch */
	RDSU_FAULT_IB_FRAG_ACCEPT = 1 << 26,  /* ib-frag-accept */
	RDSU_FAULT_IB_VERSION = 1 << 27,      /* ib-version (the IB transport's CM) */
	RDSU_FAULT_IB_VERSION_ACCEPT = 1 << 28, /* ib-version-accept (likewise) */
	RDSU_FAULT_IB_ACK_IGNORED = 1 << 29,  /* ib-ack-ignored */
};

#define RDSU_FAULT__COUNT 30
#define RDSU_FAULT__ALL ((1u << RDSU_FAULT__COUNT) - 1)

struct rdsu_fault_info {
	enum rdsu_fault fault;      /* == 1 << bit */
	const char *name;           /* stable, for --fault NAME: "seq-zero" */
	const char *text;           /* one line: what the faulty peer does */
};

/* rdsu_fault_info() - table entry of bit |bit| (0 .. RDSU_FAULT__COUNT - 1:
 * the fault 1 << bit), or NULL beyond. */
RDSU_API const struct rdsu_fault_info *rdsu_fault_info(unsigned bit);
/* rdsu_fault_name() - its name ("seq-zero", ...), or NULL beyond the table. */
RDSU_API const char *rdsu_fault_name(unsigned bit);
/* rdsu_fault_by_name() - the fault mask named |name|, 0 if none is. */
RDSU_API uint32_t rdsu_fault_by_name(const char *name);
/* rdsu_ep_faults() - the faults |ep| commits: for a transport whose own
 * layer holds the behaviour a defect breaks (the IB transport's CM
 * version negotiation). */
RDSU_API uint32_t rdsu_ep_faults(const struct rdsu_ep *ep);

/* ------------------------------------------------------------------------
 * Events for the application (pulled, coalesced: at most one pending event
 * per socket, path and connection, so the queue never grows without bound)
 */

/* Socket readiness bits (rdsu_sock_poll, RDSU_EV_SOCK). */
#define RDSU_POLLIN 0x1     /* a message or a congestion notification to read */
#define RDSU_POLLOUT 0x2    /* SNDBUF has room (says nothing about congestion) */
#define RDSU_POLLWRBAND 0x4 /* a peer congestion map changed since last asked */

enum rdsu_path_state {
	RDSU_PATH_DOWN = 0,
	RDSU_PATH_CONNECTING,    /* an outgoing connection was requested */
	RDSU_PATH_UP,
};

enum rdsu_ev_type {
	RDSU_EV_SOCK = 1,        /* readiness of |sock| changed: |mask| became true */
	RDSU_EV_PATH,            /* path |path| of (laddr, faddr) is now |state| */
	RDSU_EV_PEER,            /* npaths learnt or the peer generation changed */
};

struct rdsu_event {
	enum rdsu_ev_type type;
	struct rdsu_sock *sock;  /* SOCK */
	void *ctx;               /* SOCK: rdsu_sock_set_ctx() value */
	unsigned mask;           /* SOCK: RDSU_POLL* bits */
	struct rdsu_addr laddr;  /* PATH, PEER */
	struct rdsu_addr faddr;  /* PATH, PEER */
	uint8_t path;            /* PATH */
	enum rdsu_path_state state; /* PATH: state at the time of the pull */
	uint16_t npaths;         /* PEER: negotiated path count (0 = unknown) */
	uint32_t peer_gen;       /* PEER: last GEN_NUM seen (0 = none) */
	bool gen_changed;        /* PEER: the peer restarted; sequences were reset */
};

/*
 * rdsu_ep_next_event() - pull one application event.
 * Return: 1 and *ev filled, 0 if none is pending.
 */
RDSU_API int rdsu_ep_next_event(struct rdsu_ep *ep, struct rdsu_event *ev);

/* ------------------------------------------------------------------------
 * Transport contract (see docs/librds.md). A "link" is one TCP connection
 * carrying one path; the core names it with a 64-bit id that is never
 * reused. Every call on an id the core has let go of returns
 * RDSU_ERR_CLOSED: the transport then closes that socket.
 */

#define RDSU_TCP_PORT WIRE_TCP_PORT  /* 16385, RDS_TCP_PORT */

enum rdsu_lreq_type {
	/* Connect laddr -> faddr:dport, from a source port p with
	 * p % sport_mod == sport_res when sport_mod is non-zero (7.x path
	 * encoding, rds_tcp_conn_path_connect); then rdsu_link_established()
	 * or rdsu_link_down(). */
	RDSU_LREQ_CONNECT = 1,
	/* Close this link: with an RST (SO_LINGER 0) when |reset|, else an
	 * orderly shutdown. Do not report it down afterwards. */
	RDSU_LREQ_CLOSE,
	/* The link has bytes to write: call rdsu_link_output() (or peek and
	 * advance) until it yields 0, or the socket is full and you wait for
	 * POLLOUT. Sent again only after output has run dry once. */
	RDSU_LREQ_OUTPUT,
	/* A held incoming link now carries a path: start reading it. */
	RDSU_LREQ_ATTACH,
};

struct rdsu_lreq {
	enum rdsu_lreq_type type;
	uint64_t link;
	struct rdsu_addr laddr;
	struct rdsu_addr faddr;
	uint16_t dport;          /* CONNECT: RDSU_TCP_PORT */
	uint8_t path;            /* path index the link carries */
	uint8_t sport_mod;       /* CONNECT: 0 = any source port, else 8 */
	uint8_t sport_res;       /* CONNECT: wanted source port % sport_mod */
	bool reset;              /* CLOSE: abort with RST */
	unsigned trans;          /* CONNECT: the connection's RDSU_TRANS_* */
};

/*
 * rdsu_ep_next_link_req() - pull one request for the transport. Closes
 * come first, then per-path requests in the order they arose.
 * Return: 1 and *req filled, 0 if none is pending.
 */
RDSU_API int rdsu_ep_next_link_req(struct rdsu_ep *ep, struct rdsu_lreq *req);

/*
 * rdsu_link_established() - an outgoing link from RDSU_LREQ_CONNECT is
 * connected; |sport| is the local TCP port it got (for monitors).
 * Return: 0, the path is up: read and write it (also when told twice);
 * RDSU_ERR_CLOSED: close it (the larger address's connection is only a
 * kick, rds_tcp_state_change; or the id is stale).
 */
RDSU_API int rdsu_link_established(struct rdsu_ep *ep, uint64_t link, uint16_t sport,
				   rdsu_ns now);

#define RDSU_ACCEPT_UP 0   /* the link carries a path now */
#define RDSU_ACCEPT_HELD 1 /* keep the socket open but do not read it until
			    * RDSU_LREQ_ATTACH (7.x stashes, not resets, so
			    * TCP-acked bytes are not lost) */

/*
 * rdsu_link_accept() - an incoming TCP connection to RDSU_TCP_PORT arrived
 * on local address |laddr| from |faddr|:|peer_sport|. As
 * rds_tcp_accept_one(): a connection from a larger (or equal) address is
 * refused and, while at most one path is negotiated, we connect path 0
 * ourselves ("avoid duels"); otherwise it takes a slot (see
 * rdsu_ep_cfg.kver).
 * Return: RDSU_ACCEPT_UP or RDSU_ACCEPT_HELD with *link set;
 * RDSU_ERR_REFUSED: reset the socket; RDSU_ERR_NOTFOUND: |laddr| is not
 * ours (reset it too); RDSU_ERR_NOMEM.
 */
RDSU_API int rdsu_link_accept(struct rdsu_ep *ep, const struct rdsu_addr *laddr,
			      const struct rdsu_addr *faddr, uint16_t peer_sport, rdsu_ns now,
			      uint64_t *link);
/*
 * rdsu_link_accept_on() - rdsu_link_accept() for the connection of
 * transport |trans| (RDSU_TRANS_*). Where both ends connect (IB), as
 * rds_ib_cm_handle_connect(): a request while path 0 is connecting is
 * refused (the connect race: the backoff settles it), one while path 0 is
 * up drops that link as stale and is refused too (the peer retries); a
 * request while it is down takes it.
 * Return: as rdsu_link_accept(); RDSU_ERR_INVAL for an unknown |trans|.
 */
RDSU_API int rdsu_link_accept_on(struct rdsu_ep *ep, unsigned trans,
				 const struct rdsu_addr *laddr, const struct rdsu_addr *faddr,
				 uint16_t peer_sport, rdsu_ns now, uint64_t *link);

/*
 * rdsu_link_input() - bytes read from the link's TCP socket, any chunking.
 * Return: bytes consumed: |len|, or 0 for a held link (stop reading until
 * RDSU_LREQ_ATTACH) or an outgoing one not yet reported established;
 * RDSU_ERR_PROTO: a header announced more than 1 MiB (or the gather buffer
 * for a split payload could not grow), the path was reset and a close
 * requested; RDSU_ERR_CLOSED; RDSU_ERR_INVAL for a link of a frame
 * transport (IB), as for peek, advance, output and acked.
 */
RDSU_API ssize_t rdsu_link_input(struct rdsu_ep *ep, uint64_t link, const uint8_t *in,
				 size_t len, rdsu_ns now);

/*
 * rdsu_link_peek() - the next bytes to write, in place: *p and *len are a
 * span inside the core, valid until the next call on |ep|. Every byte
 * peeked and then advanced over must reach the socket, in order.
 * Return: 0 (with *len 0 when there is nothing to write); RDSU_ERR_CLOSED.
 */
RDSU_API int rdsu_link_peek(struct rdsu_ep *ep, uint64_t link, const uint8_t **p,
			    size_t *len, rdsu_ns now);
/*
 * rdsu_link_advance() - |n| bytes of the last peek were written.
 * Return: 0; RDSU_ERR_INVAL if |n| exceeds the peeked span; RDSU_ERR_CLOSED.
 */
RDSU_API int rdsu_link_advance(struct rdsu_ep *ep, uint64_t link, size_t n, rdsu_ns now);
/*
 * rdsu_link_output() - peek and advance in one: copy up to |cap| bytes to
 * write into |buf|. The transport must write all of them, in order
 * (keeping what send() did not take for later).
 * Return: bytes copied (0 = nothing to write); RDSU_ERR_CLOSED.
 */
RDSU_API ssize_t rdsu_link_output(struct rdsu_ep *ep, uint64_t link, uint8_t *buf, size_t cap,
				  rdsu_ns now);

/*
 * rdsu_link_acked() - TCP has acknowledged the first |acked| bytes of what
 * this link wrote (SIOCOUTQ: acked = bytes written - outq). Messages wholly
 * acknowledged are freed and their bytes return to SNDBUF
 * (rds_tcp_write_space -> rds_send_path_drop_acked).
 * Return: number of messages freed (>= 0); RDSU_ERR_INVAL if |acked| is
 * beyond what was output or goes backwards; RDSU_ERR_CLOSED.
 */
RDSU_API int rdsu_link_acked(struct rdsu_ep *ep, uint64_t link, uint64_t acked, rdsu_ns now);

/*
 * rdsu_ep_acks_wanted() - true while a socket waits for SNDBUF room
 * (its submit returned -EAGAIN), which only rdsu_link_acked() can give.
 * A transport that pays a system call per look at acknowledgements
 * (SIOCOUTQ) looks right after writing only then; otherwise a periodic
 * look, to free acknowledged messages, is enough.
 */
RDSU_API bool rdsu_ep_acks_wanted(const struct rdsu_ep *ep);

/*
 * rdsu_link_down() - the link ended (EOF, RST, error, or an outgoing
 * connect failed). Unacknowledged messages go back in front of the queue
 * marked RETRANSMITTED (rds_send_path_reset); the smaller address
 * schedules a reconnect with backoff (rds_queue_reconnect).
 * Return: 0; RDSU_ERR_CLOSED if the id is stale (nothing happened).
 */
RDSU_API int rdsu_link_down(struct rdsu_ep *ep, uint64_t link, rdsu_ns now);

/* ------------------------------------------------------------------------
 * Frame transports (IB; docs/librds.md "Transports"). A link carries
 * whole frames: the 48-byte header and up to 4096 payload bytes, each
 * the payload of one RC SEND. The connection calls above (accept_on,
 * established, down) and the requests are shared; these replace input,
 * peek/advance/output and acked.
 */

#define RDSU_FRAME_MAX (WIRE_HDR_LEN + WIRE_FRAG_SIZE) /* a posted receive, a send buffer */

/*
 * rdsu_link_input_frame() - one receive completion: |len| bytes at |frame|.
 * h_ack frees our messages up to it and returns their SNDBUF, h_credit
 * adds send credits, an ACK-only frame (ports 0, no payload) ends there,
 * fragments are reassembled and a whole message is handled as on TCP.
 * Return: 0; 0 also for a link not up (held or not yet established);
 * RDSU_ERR_PROTO: shorter than 48 or longer than RDSU_FRAME_MAX, a
 * non-zero h_csum that does not verify, a fragment whose seq, len or ports
 * differ from its message's first, a non-final fragment not of 4096
 * bytes, one longer than what remains, h_len above 1 MiB, or no memory to
 * gather it: the path was reset and a CLOSE with reset requested;
 * RDSU_ERR_CLOSED; RDSU_ERR_INVAL (a stream link, or |frame| NULL).
 */
RDSU_API int rdsu_link_input_frame(struct rdsu_ep *ep, uint64_t link, const uint8_t *frame,
				   size_t len, rdsu_ns now);
/*
 * rdsu_link_output_frame() - copy the next frame to send into |buf| (cap
 * at least RDSU_FRAME_MAX): a fragment of a message or map, every one
 * with the message's full header (h_ack the piggy-back ack, h_csum set),
 * or an ACK-only frame. An ACK-only frame is owed when a message that
 * asked for one (ACK_REQUIRED) arrived, or 16 posted receive buffers wait
 * to be advertised; it is handed out once, before the rest of a message
 * in progress, and not at all if a message starting now carries the ack.
 * The core hands out no more than the peer's credits allow when it offered
 * any (one per frame, the last for a frame that advertises credits).
 * Call until it returns 0; RDSU_LREQ_OUTPUT comes again when there is more.
 * Return: the frame's length (>= 48); 0: nothing to send (or no credit);
 * RDSU_ERR_CLOSED; RDSU_ERR_INVAL (a stream link, |cap| too small).
 */
RDSU_API ssize_t rdsu_link_output_frame(struct rdsu_ep *ep, uint64_t link, uint8_t *buf,
					size_t cap, rdsu_ns now);
/*
 * rdsu_link_output_stalled() - whether the peer's credits stop output with
 * more to send, asked right after rdsu_link_output_frame(): the frame just
 * handed out is then the last until the peer advertises credits, and must
 * wake the peer (IB: signalled and SOLICITED, as rds_ib_xmit marks the
 * last send before a flow-control stop). A peer woken only at the end of
 * a message would otherwise never repost and advertise while the sender
 * waits for credits in the middle of one.
 * Return: 1 stalled; 0 not (the peer offered no credits, credits are
 * left, or nothing waits); RDSU_ERR_CLOSED; RDSU_ERR_INVAL (a stream link).
 */
RDSU_API int rdsu_link_output_stalled(struct rdsu_ep *ep, uint64_t link);

/* The connection private data the core decides (struct rds_ib_conn_priv_cmn). */
struct rdsu_link_hs {
	uint64_t ack_seq;        /* dp_ack_seq */
	uint32_t credit;         /* dp_credit */
	uint16_t version;        /* hs_peer: the negotiated version (WIRE_IBVER_*), kept
				  * for the monitor; hs_offer leaves it 0 */
};

/*
 * rdsu_link_hs_offer() - the values for our private data on |link|
 * (connecting, or just accepted): ack_seq, and as credit the receive
 * buffers posted so far with rdsu_link_posted() (non-zero: we advertise
 * posted buffers in h_credit from then on).
 * Return: 0; RDSU_ERR_CLOSED; RDSU_ERR_INVAL (a stream or held link).
 */
RDSU_API int rdsu_link_hs_offer(struct rdsu_ep *ep, uint64_t link, struct rdsu_link_hs *out);
/*
 * rdsu_link_hs_peer() - the peer's private data on |link|, before
 * rdsu_link_established() on the active side, right after
 * rdsu_link_accept_on() on the passive one: dp_ack_seq is applied as an
 * ack; a non-zero dp_credit turns on flow control with that many credits
 * (off for 0, as the kernel).
 * Return: 0; RDSU_ERR_CLOSED; RDSU_ERR_INVAL.
 */
RDSU_API int rdsu_link_hs_peer(struct rdsu_ep *ep, uint64_t link, const struct rdsu_link_hs *peer,
			       rdsu_ns now);
/*
 * rdsu_link_posted() - the transport posted |n| more receive buffers of
 * RDSU_FRAME_MAX bytes on |link| (the credits to advertise).
 * Return: 0; RDSU_ERR_CLOSED; RDSU_ERR_INVAL.
 */
RDSU_API int rdsu_link_posted(struct rdsu_ep *ep, uint64_t link, uint32_t n, rdsu_ns now);

/*
 * rdsu_sport_pick() - the n-th source port candidate (n = 0, 1, ...) for a
 * link with sport % 8 == |res|: ALIGN(low, 8) + 8 * n + res, as
 * rds_tcp_conn_path_connect walks groups of 8 (7.2 was seen to start at
 * n = 1 and move one group on per reconnect).
 * Return: the port, or 0 when it would exceed |high| or |res| > 7.
 */
RDSU_API uint16_t rdsu_sport_pick(uint16_t low, uint16_t high, uint8_t res, unsigned n);

/*
 * rdsu_mprds_hash() - the path a socket bound to |port| uses when |npaths|
 * are negotiated: jhash_1word(port, initval) & (npaths - 1)
 * (RDS_MPATH_HASH, rds_send_mprds_hash); 0 when npaths <= 1.
 */
RDSU_API unsigned rdsu_mprds_hash(uint16_t port, uint32_t initval, unsigned npaths);
/*
 * rdsu_path_of() - the path a message from a socket bound to |sport| to
 * |dport| uses under |rule| when |npaths| are negotiated. RDSU_PATH_BY_PORT:
 * rdsu_mprds_hash(sport, initval, npaths). RDSU_PATH_BY_PAIR:
 * jhash_1word(min << 16 | max, 0) & (npaths - 1) of the two ports, the same
 * from either end whatever each end's initval. 0 when npaths <= 1.
 */
RDSU_API unsigned rdsu_path_of(enum rdsu_path_rule rule, uint16_t sport, uint16_t dport,
			       uint32_t initval, unsigned npaths);

/* ------------------------------------------------------------------------
 * Sockets (AF_RDS SOCK_SEQPACKET semantics, always non-blocking)
 */

/*
 * rdsu_sock_new() - an unbound socket with the endpoint's SNDBUF/RCVBUF.
 * Return: 0 and *out set; -ENOMEM.
 */
RDSU_API int rdsu_sock_new(struct rdsu_ep *ep, struct rdsu_sock **out);
/*
 * rdsu_sock_free() - close: queued receive data is dropped (the port's
 * congestion bit is cleared, rds_cong_remove_socket), and every message
 * not yet acknowledged is removed from the queues and never (re)sent
 * (rds_send_drop_to(rs, NULL)). NULL is a no-op.
 */
RDSU_API void rdsu_sock_free(struct rdsu_sock *s, rdsu_ns now);
/*
 * rdsu_sock_bind() - bind to (|addr|, |port|) (rds_bind, rds_add_bound).
 * Port 0 picks a free port >= 2.
 * Return: 0; -EINVAL (already bound, port 1, unspecified address);
 * -EADDRNOTAVAIL (|addr| not in the endpoint's set); -EADDRINUSE;
 * -ENOMEM.
 */
RDSU_API int rdsu_sock_bind(struct rdsu_sock *s, const struct rdsu_addr *addr, uint16_t port);
/* rdsu_sock_get_name() - bound address and port. Return: 0; -ENOTCONN if unbound. */
RDSU_API int rdsu_sock_get_name(const struct rdsu_sock *s, struct rdsu_addr *addr,
				uint16_t *port);

/*
 * rdsu_sock_submit() - send one message of the iovecs' bytes to
 * (|dst|, |dport|) (rds_sendmsg, MSG_DONTWAIT). Port 0 is a ping. The
 * connection is created and connected on first use; a message stays queued
 * until TCP acknowledged it, across reconnects. A destination in
 * 127.0.0.0/8, ::1 or the endpoint's own address set takes the loopback
 * transport (RDSU_TRANS_LOOP): the message is handed to the endpoint's
 * own sockets when the transport next writes.
 * Return: the payload length; -ENOTCONN (unbound); -EINVAL (iovcnt < 0,
 * unspecified destination); -EOPNOTSUPP (IPv4/IPv6 mismatch with the bound
 * address); -EMSGSIZE (payload > 1 MiB, or > SNDBUF as set on the
 * socket; a socket with an auto-tuned SNDBUF takes up to buf_max, the
 * size its SNDBUF may grow to); -ENOBUFS
 * (destination port congested in the peer's map; with the congestion
 * monitor on, the port's bit is remembered for notification); -EAGAIN
 * (SNDBUF full: the socket already holds >= SNDBUF unacknowledged bytes;
 * the last message may overshoot, as rds_send_queue_rm); -ENOMEM.
 */
RDSU_API int rdsu_sock_submit(struct rdsu_sock *s, const struct rdsu_addr *dst, uint16_t dport,
			      const struct iovec *iov, int iovcnt, rdsu_ns now);

#define RDSU_READ_PEEK 0x1  /* MSG_PEEK: leave the message queued */

struct rdsu_rxinfo {
	bool cong;               /* a congestion notification, no data (RDS_CMSG_CONG_UPDATE) */
	uint64_t cong_mask;      /* ... its port-group mask (bit port % 64) */
	struct rdsu_addr from;   /* message source address */
	uint16_t sport;          /* message source port (0 for pongs) */
	uint32_t len;            /* full message length */
	bool trunc;              /* the iovecs were shorter (MSG_TRUNC) */
	bool has_cookie;         /* the message carried RDMA_DEST (RDS_CMSG_RDMA_DEST) */
	uint64_t cookie;         /* ... the peer's cookie, as sent */
};

/*
 * rdsu_sock_read() - as recvmsg(): a pending congestion notification first
 * (returns 0, info->cong set, bits cleared), then one message, copied into
 * the iovecs.
 * Return: bytes copied; -EAGAIN if nothing is queued; -ENOTCONN (unbound);
 * -EINVAL (iovcnt < 0).
 */
RDSU_API ssize_t rdsu_sock_read(struct rdsu_sock *s, const struct iovec *iov, int iovcnt,
				unsigned flags, struct rdsu_rxinfo *info, rdsu_ns now);

/*
 * rdsu_sock_poll() - current RDSU_POLL* mask (rds_poll). Like the kernel,
 * RDSU_POLLWRBAND (and POLLIN, for sockets not in monitor mode) reports a
 * peer map update once: asking clears it.
 */
RDSU_API unsigned rdsu_sock_poll(struct rdsu_sock *s);

/*
 * rdsu_sock_set_sndbuf() / _rcvbuf() - the payload byte budgets, exactly
 * the value given (the kernel doubles SO_SNDBUF and rds_sk_sndbuf halves it),
 * kept from then on: auto-tuning (rdsu_ep_cfg.buf_max) stops for that
 * buffer, as setting SO_SNDBUF stops TCP's. _get_ gives the current
 * budget, auto-tuned or set.
 * Return: 0; -EINVAL for 0.
 */
RDSU_API int rdsu_sock_set_sndbuf(struct rdsu_sock *s, uint32_t bytes, rdsu_ns now);
RDSU_API int rdsu_sock_set_rcvbuf(struct rdsu_sock *s, uint32_t bytes, rdsu_ns now);
RDSU_API uint32_t rdsu_sock_get_sndbuf(const struct rdsu_sock *s);
RDSU_API uint32_t rdsu_sock_get_rcvbuf(const struct rdsu_sock *s);
/* rdsu_sock_max_msg() - the largest payload a send takes (above it:
 * -EMSGSIZE): SNDBUF as set, the size an auto-tuned SNDBUF may grow to,
 * and never above 1 MiB. */
RDSU_API uint32_t rdsu_sock_max_msg(const struct rdsu_sock *s);
/*
 * rdsu_sock_set_transport() - SO_RDS_TRANSPORT: the socket's connections
 * use transport |trans| (RDSU_TRANS_*) whatever its address would pick.
 * Return: 0; -EOPNOTSUPP when bound or already set; -ENOPROTOOPT for 1
 * (the kernel's RDS_TRANS_GAP); -EINVAL for another unknown number,
 * RDSU_TRANS_LOOP included (the kernel takes only 0..2).
 */
RDSU_API int rdsu_sock_set_transport(struct rdsu_sock *s, unsigned trans);
/* rdsu_sock_get_transport() - the socket's RDSU_TRANS_*: RDSU_TRANS_NONE
 * until set or bound; RDSU_TRANS_LOOP once bound to 127.0.0.0/8 or ::1
 * without a transport set. */
RDSU_API unsigned rdsu_sock_get_transport(const struct rdsu_sock *s);
/* rdsu_sock_set_cong_monitor() - RDS_CONG_MONITOR on or off. Return: 0. */
RDSU_API int rdsu_sock_set_cong_monitor(struct rdsu_sock *s, bool on);
/*
 * rdsu_sock_cancel_sent_to() - RDS_CANCEL_SENT_TO: drop every message of
 * this socket to (|dst|, |dport|) that TCP has not acknowledged, queued or
 * on the retransmit queue (rds_send_drop_to). A message being written at
 * this moment is finished on the wire but never resent.
 * Return: number of messages dropped; -ENOTCONN (unbound).
 */
RDSU_API int rdsu_sock_cancel_sent_to(struct rdsu_sock *s, const struct rdsu_addr *dst,
				      uint16_t dport, rdsu_ns now);
/* rdsu_sock_set_ctx() / _get_ctx() - an application pointer for events. */
RDSU_API void rdsu_sock_set_ctx(struct rdsu_sock *s, void *ctx);
RDSU_API void *rdsu_sock_get_ctx(const struct rdsu_sock *s);

/* ------------------------------------------------------------------------
 * RDMA: memory regions and the operations a message carries (RDS over IB,
 * net/rds/rdma.c; docs/librds.md "RDMA"). They need a transport that
 * offers them (rdsu_ep_set_rdma): over TCP every call answers what the
 * kernel's RDS/TCP answers, mostly -EOPNOTSUPP.
 */

/* Flags, the kernel's RDS_RDMA_* values. */
#define RDSU_RDMA_READWRITE 0x01  /* op: write (else read); region: see get_mr */
#define RDSU_RDMA_FENCE 0x02      /* op: the message's SEND waits for the op */
#define RDSU_RDMA_INVALIDATE 0x04 /* region: invalidate on free */
#define RDSU_RDMA_USE_ONCE 0x08   /* region: released after the first RDMA on it */
#define RDSU_RDMA_DONTWAIT 0x10   /* accepted and ignored, as by the kernel */
#define RDSU_RDMA_NOTIFY_ME 0x20  /* op: a notification when it ends */
#define RDSU_RDMA_SILENT 0x40     /* op: accepted; see docs/librds.md */

/* Notification status (RDS_RDMA_SUCCESS ...). */
enum rdsu_rdma_status {
	RDSU_RDMA_SUCCESS = 0,
	RDSU_RDMA_REMOTE_ERROR = 1, /* the peer refused it: bad r_key, out of range */
	RDSU_RDMA_CANCELED = 2,     /* rdsu_sock_cancel_sent_to() */
	RDSU_RDMA_DROPPED = 3,      /* the connection broke: never retransmitted */
	RDSU_RDMA_OTHER_ERROR = 4,
};

/* Bounds (ours; the kernel has none but memory): regions a socket holds,
 * and operations a socket has in flight or notified and not yet read. */
#define RDSU_MR_MAX 4096
#define RDSU_OPS_MAX 1024
/* Local scatter/gather entries of one RDMA operation (UIO_MAXIOV). */
#define RDSU_RDMA_MAX_IOV 1024

/* rdsu_cookie_make() - a cookie in the kernel's format: |rkey| in the low
 * 32 bits, |offset| into the region in the high 32 (rds_rdma_make_cookie). */
RDSU_API uint64_t rdsu_cookie_make(uint32_t rkey, uint32_t offset);
/* rdsu_cookie_rkey(), rdsu_cookie_offset() - its two halves. */
RDSU_API uint32_t rdsu_cookie_rkey(uint64_t cookie);
RDSU_API uint32_t rdsu_cookie_offset(uint64_t cookie);

/*
 * rdsu_sock_get_mr() - RDS_GET_MR: register |len| bytes at |addr| with
 * the socket's transport and give their cookie. Regions are zero-based:
 * a peer addresses byte k of the region as k plus the cookie's offset
 * (the transport's: on IB the buffer's offset in its first page, as the
 * kernel's). |flags|: RDSU_RDMA_USE_ONCE, _INVALIDATE, and READWRITE, which
 * the transport may ignore (the kernel's FRMR registration always lets
 * the peer read and write).
 * Return: 0 and *cookie set; -ENOTCONN (unbound); -EOPNOTSUPP (the
 * socket's transport registers no memory: TCP); -EINVAL (NULL, 0 bytes,
 * addr + len wraps); -EMSGSIZE (over 1 MiB + a page, as the kernel);
 * -ENOBUFS (RDSU_MR_MAX regions held); -ENOMEM; the transport's error.
 */
RDSU_API int rdsu_sock_get_mr(struct rdsu_sock *s, void *addr, uint64_t len, unsigned flags,
			      uint64_t *cookie);
/*
 * rdsu_sock_free_mr() - RDS_FREE_MR: the region of |cookie| is no longer
 * found by its cookie; it is deregistered once no queued message holds it
 * (RDMA_DEST). |flags| RDSU_RDMA_INVALIDATE marks it for invalidation.
 * Return: 0; -EINVAL (no such region; cookie 0, which the kernel answers
 * with a flush only on IB, is -EINVAL here too).
 */
RDSU_API int rdsu_sock_free_mr(struct rdsu_sock *s, uint64_t cookie, unsigned flags);
/* rdsu_sock_mr_count() - regions the socket holds (findable by cookie). */
RDSU_API unsigned rdsu_sock_mr_count(const struct rdsu_sock *s);
/* rdsu_ep_mr_count() - regions registered with a transport and not yet
 * deregistered (held by sockets or by queued messages). */
RDSU_API unsigned rdsu_ep_mr_count(const struct rdsu_ep *ep);

enum rdsu_op_kind {
	RDSU_OP_RDMA = 1,   /* RDS_CMSG_RDMA_ARGS */
	RDSU_OP_FADD,       /* RDS_CMSG_ATOMIC_FADD, _MASKED_ATOMIC_FADD */
	RDSU_OP_CSWP,       /* RDS_CMSG_ATOMIC_CSWP, _MASKED_ATOMIC_CSWP */
	RDSU_OP_DEST,       /* RDS_CMSG_RDMA_DEST: send a region's cookie */
	RDSU_OP_MAP,        /* RDS_CMSG_RDMA_MAP: register, send its cookie */
};

/* What one message carries besides its payload. */
struct rdsu_op {
	enum rdsu_op_kind kind;
	unsigned flags;             /* RDSU_RDMA_*: READWRITE, FENCE, NOTIFY_ME, SILENT;
				     * MAP: the region's flags */
	uint64_t user_token;        /* handed back in the notification */
	/* RDMA, FADD, CSWP: the peer's cookie; DEST: one of ours */
	uint64_t cookie;
	/* RDMA: remote_vec; the cookie's offset is added (rds_cmsg_rdma_args) */
	uint64_t remote_addr;
	uint64_t remote_len;        /* at least the local total */
	const struct iovec *local;  /* RDMA: read into / write from these */
	int nr_local;
	/* FADD, CSWP: remote_addr (plus the cookie's offset) is the target;
	 * the old value lands at *result, 8-byte aligned */
	uint64_t *result;
	bool masked;                /* the masked forms; else the masks are
				     * set as the kernel sets them */
	uint64_t add, nocarry_mask; /* FADD */
	uint64_t compare, swap;     /* CSWP */
	uint64_t compare_mask, swap_mask;
	/* MAP: the region to register; its cookie is written to *map_cookie */
	void *map_addr;
	uint64_t map_len;
	uint64_t *map_cookie;       /* may be NULL */
};

/*
 * rdsu_sock_submit_op() - rdsu_sock_submit() with an operation: the
 * message carries an RDMA read or write against the peer's region, an
 * atomic on it, or one of our regions' cookie (DEST, MAP). RDMA and atomics
 * are posted before the message's first frame; the message tells the peer
 * (RDMA exthdr, 7.x also RDMA_BYTES; RDMA_DEST for DEST and MAP). A
 * message whose RDMA or atomic went out is never resent: the connection
 * breaking before the peer acknowledged it drops it (RDSU_RDMA_DROPPED).
 * |op| NULL: rdsu_sock_submit().
 * Return: as rdsu_sock_submit(), and -EINVAL (unknown kind; RDMA: no local
 * entry, an empty or wrapping one, more local bytes than remote_len,
 * remote_addr + remote_len wraps, over 4 GiB; DEST: not one of our
 * cookies); -EMSGSIZE (nr_local > RDSU_RDMA_MAX_IOV); -EFAULT (atomic:
 * result NULL or not 8-byte aligned); -EOPNOTSUPP (RDMA, atomic or MAP on a
 * transport without them: TCP); -EAGAIN (RDSU_OPS_MAX operations
 * outstanding); MAP: rdsu_sock_get_mr()'s errors.
 */
RDSU_API int rdsu_sock_submit_op(struct rdsu_sock *s, const struct rdsu_addr *dst,
				 uint16_t dport, const struct iovec *iov, int iovcnt,
				 const struct rdsu_op *op, rdsu_ns now);

/* One RDS_CMSG_RDMA_STATUS. */
struct rdsu_notify {
	uint64_t user_token;
	int status;                 /* enum rdsu_rdma_status */
};

/*
 * rdsu_sock_next_notify() - the next notification, in the order they
 * arose. An operation is notified at most once: when it ends with
 * RDSU_RDMA_NOTIFY_ME set, and also when it is dropped with a failure and
 * the socket has RECVERR on (rds_send_remove_from_sock). Pending ones make
 * the socket readable (RDSU_POLLIN).
 * Return: 1 and *out filled; 0 if none; -ENOTCONN (unbound).
 */
RDSU_API int rdsu_sock_next_notify(struct rdsu_sock *s, struct rdsu_notify *out);
/* ------------------------------------------------------------------------
 * Zero-copy notices (MSG_ZEROCOPY, RDS_CMSG_ZCOPY_COOKIE and
 * RDS_CMSG_ZCOPY_COMPLETION; docs/kernel-behaviour.md K7.9). librds copies
 * a message's bytes at submit as it always does, so the caller's buffer is
 * never read after the submit returns; the notice keeps the kernel's
 * timing and batching: a message's cookie is queued when the message
 * leaves the socket (acknowledged, cancelled or dropped: rds_message_purge
 * calling rds_rm_zerocopy_callback), added to the first queued notice
 * while it holds fewer than RDSU_ZC_BATCH cookies, else as a new notice at
 * the tail.
 */
#define RDSU_ZC_BATCH 8     /* RDS_MAX_ZCOOKIES */
/* Ours (the kernel's queue has no bound but memory): notices queued plus
 * zero-copy messages in flight, per socket. */
#define RDSU_ZC_MAX 1024

struct rdsu_zc_notice {
	uint32_t num;                        /* cookies[0 .. num-1] */
	uint32_t cookies[RDSU_ZC_BATCH];
};

/* A queue of notices in the kernel's batches, on |cap| notices at |ring|
 * that the caller provides (rdsu_sock_submit_zc's socket has one; the
 * shim's rdsd sockets keep theirs). Zero it, then set ring and cap. */
struct rdsu_zcq {
	struct rdsu_zc_notice *ring;
	unsigned cap, head, n;
};
/* rdsu_zcq_add() - queue |cookie| as rds_rm_zerocopy_callback does: into
 * the first notice while it holds fewer than RDSU_ZC_BATCH, else in a new
 * notice at the tail. Return: 0; -ENOBUFS when all |cap| are taken. */
RDSU_API int rdsu_zcq_add(struct rdsu_zcq *q, uint32_t cookie);
/* rdsu_zcq_take() - the first notice. Return: 1 and *out; 0 if none. */
RDSU_API int rdsu_zcq_take(struct rdsu_zcq *q, struct rdsu_zc_notice *out);

/*
 * rdsu_sock_submit_zc() - rdsu_sock_submit_op() (|op| may be NULL) of a
 * zero-copy message whose cookie is |cookie|.
 * Return: as rdsu_sock_submit_op(); -ENOTCONN (unbound); -EOPNOTSUPP (the
 * socket's transport is not TCP, as rds_sendmsg); -EINVAL (no payload:
 * the kernel has no pinned pages to carry the cookie, rds_cmsg_zcopy);
 * -ENOMEM also when RDSU_ZC_MAX notices are queued or in flight.
 */
RDSU_API int rdsu_sock_submit_zc(struct rdsu_sock *s, const struct rdsu_addr *dst,
				 uint16_t dport, const struct iovec *iov, int iovcnt,
				 const struct rdsu_op *op, uint32_t cookie, rdsu_ns now);
/*
 * rdsu_sock_next_zc() - take the first queued notice (rds_recvmsg_zcookie).
 * Pending ones make the socket readable (RDSU_POLLIN, as rds_poll).
 * Return: 1 and *out filled; 0 if none.
 */
RDSU_API int rdsu_sock_next_zc(struct rdsu_sock *s, struct rdsu_zc_notice *out);

/* When the message rdsu_sock_read() would return next reached us, on
 * rdsu_clock()'s clock (the kernel's i_rx_lat_trace, K7.10): |hdr| its
 * first header byte, |start| its last header byte (both 0 on the loopback
 * transport, as the kernel's, which sets neither), |queued| its queueing
 * on the socket. */
struct rdsu_rx_times {
	rdsu_ns hdr, start, queued;
};
/* rdsu_sock_rx_times() - the times of the first queued message.
 * Return: 1 and *out filled; 0 if no message is queued. */
RDSU_API int rdsu_sock_rx_times(const struct rdsu_sock *s, struct rdsu_rx_times *out);

/* rdsu_sock_set_recverr() - RDS_RECVERR, applied to operations submitted
 * from now on (op_recverr is taken at sendmsg). Return: 0. */
RDSU_API int rdsu_sock_set_recverr(struct rdsu_sock *s, bool on);

/* ------------------------------------------------------------------------
 * RDMA transport seam: what a transport that carries RDMA gives the core
 * (the kernel's get_mr, free_mr, xmit_rdma, xmit_atomic).
 */

/* One RDMA or atomic to post on a link, ahead of the message's frame. */
struct rdsu_op_req {
	uint64_t id;                /* for rdsu_link_op_done() */
	enum rdsu_op_kind kind;     /* RDMA, FADD or CSWP */
	bool write;                 /* RDMA: write (else read) */
	bool fence;
	uint32_t rkey;
	uint64_t remote_addr;       /* zero-based, the cookie's offset added */
	const struct iovec *local;  /* RDMA; valid until the op ends */
	int nr_local;
	uint64_t bytes;             /* RDMA: sum of the local entries */
	uint64_t *result;           /* atomics */
	uint64_t add, nocarry_mask; /* always masked, as the kernel posts them */
	uint64_t compare, swap, compare_mask, swap_mask;
};

struct rdsu_rdma_ops {
	/* Register |len| bytes at |addr| zero-based, for the device of the
	 * socket's bound address |laddr|: the peer addresses |addr| as
	 * *offset (the cookie's offset: 0, or as the kernel and verbs
	 * have it, |addr|'s offset in its page). Return: 0, *rkey, *offset
	 * and *handle set; a negative errno. */
	int (*get_mr)(void *ud, const struct rdsu_addr *laddr, void *addr, uint64_t len,
		      unsigned flags, uint32_t *rkey, uint32_t *offset, void **handle);
	/* Deregister; the core holds no reference any more. */
	void (*free_mr)(void *ud, void *handle, bool invalidate);
	/* Post |op| on |link| now; report its end with rdsu_link_op_done().
	 * Called from inside rdsu_link_output_frame(): it must not call
	 * the core. Return: 0; a negative errno (the op ends OTHER_ERROR,
	 * the message still goes). */
	int (*xmit_op)(void *ud, uint64_t link, const struct rdsu_op_req *op);
};

/*
 * rdsu_ep_set_rdma() - transport |trans| carries RDMA through |ops| (NULL:
 * no longer). Set it before sockets register memory.
 * Return: 0; RDSU_ERR_INVAL (unknown or stream transport).
 */
RDSU_API int rdsu_ep_set_rdma(struct rdsu_ep *ep, unsigned trans, const struct rdsu_rdma_ops *ops,
			      void *ud);
/*
 * rdsu_link_op_done() - op |id| posted on |link| completed with |status|
 * (enum rdsu_rdma_status: IB_WC_SUCCESS -> SUCCESS, REM_ACCESS_ERR ->
 * REMOTE_ERROR, others OTHER_ERROR; a flushed work request is not
 * reported: the link going down ends it).
 * Return: 0; RDSU_ERR_CLOSED (not an op of that link, or already ended);
 * RDSU_ERR_INVAL (bad status).
 */
RDSU_API int rdsu_link_op_done(struct rdsu_ep *ep, uint64_t link, uint64_t id, int status,
			       rdsu_ns now);

/* ------------------------------------------------------------------------
 * Read-only monitor interface: counters and state (the userspace
 * counterpart of RDS_INFO_*). Snapshots; nothing here changes state.
 */

enum rdsu_stat {
	RDSU_STAT_CONN_RESET = 0,        /* conn_reset: a path went down */
	RDSU_STAT_RECV_DROP_OLD_SEQ,     /* recv_drop_old_seq: duplicate dropped */
	RDSU_STAT_RECV_DROP_NO_SOCK,     /* recv_drop_no_sock */
	RDSU_STAT_RECV_QUEUED,           /* recv_queued: queued to a socket (rds_recv_incoming) */
	RDSU_STAT_RECV_PING,             /* recv_ping: pings answered */
	RDSU_STAT_SEND_QUEUED,           /* send_queued */
	RDSU_STAT_SEND_QUEUE_FULL,       /* send_queue_full: -EAGAIN */
	RDSU_STAT_SEND_DROP_ACKED,       /* send_drop_acked: freed by TCP ack */
	RDSU_STAT_SEND_PONG,             /* send_pong: pings, pongs and probes queued */
	RDSU_STAT_CONG_UPDATE_QUEUED,    /* cong_update_queued: local map changes */
	RDSU_STAT_CONG_UPDATE_RECEIVED,  /* cong_update_received */
	RDSU_STAT_CONG_SEND_ERROR,       /* cong_send_error: -ENOBUFS */
	RDSU_STAT_RECV_BYTES_ADDED,      /* recv_bytes_added_to_sock */
	RDSU_STAT_RECV_BYTES_FREED,      /* recv_bytes_freed_fromsock */
	RDSU_STAT_SEND_RETRANSMITTED,    /* messages put back for resending */
	RDSU_STAT_SEND_DROPPED,          /* cancelled, closed or flushed */
	RDSU_STAT_MAPS_SENT,             /* congestion maps written */
	RDSU_STAT_RECV_DROP_BAD_MAP,     /* map with h_len != 8192, ignored */
	RDSU_STAT_RECV_TOO_BIG,          /* h_len > 1 MiB: path reset */
	RDSU_STAT_RECV_DROP_NOMEM,
	RDSU_STAT_PROBE_SENT,            /* probe pings queued */
	RDSU_STAT_PROBE_RECV,            /* probe pings and pongs processed */
	RDSU_STAT_GEN_RESET,             /* peer generation changed */
	RDSU_STAT_CONNECT_REQ,           /* outgoing connections requested */
	RDSU_STAT_KICK_DROPPED,          /* our kick connections closed on establish */
	RDSU_STAT_ACCEPT_REFUSED,        /* incoming connections reset */
	RDSU_STAT_ACCEPT_HELD,           /* incoming connections held (7.x stash) */
	RDSU_STAT_RECV_PORT_SEQ,         /* resent messages the sending port's sequence
					  * judged otherwise than the slot's would have */
	RDSU_STAT_ACCEPT_RACED,          /* ib_connect_raced: refused, path connecting */
	RDSU_STAT_ACCEPT_STALE,          /* ib_listen_closed_stale: up path dropped */
	RDSU_STAT_RECV_BAD_CSUM,         /* recv_drop_bad_checksum: path reset */
	RDSU_STAT_RECV_BAD_FRAG,         /* runt or mismatched fragment: path reset */
	RDSU_STAT_ACK_SENT,              /* ACK-only frames sent */
	RDSU_STAT_ACK_RECV,              /* ACK-only frames received */
	RDSU_STAT_CONN_GIVEN_UP,         /* peers forgotten (give_up) */
	RDSU_STAT_CONNECT_DEFERRED,      /* connects delayed by max_connecting or max_links */
	RDSU_STAT_CONNECTING_PEAK,       /* most outgoing connections in flight at once */
	RDSU_STAT_LIMIT_CONNS,           /* new peers refused by max_conns */
	RDSU_STAT_LIMIT_LINKS,           /* incoming connections refused by max_links */
	RDSU_STAT_LIMIT_PEER_LINKS,      /* ... by max_peer_links */
	RDSU_STAT_HANDSHAKE_TIMEOUT,     /* incoming connections reset by handshake_timeout */
	RDSU_STAT_IDLE_TIMEOUT,          /* connections reset by idle_timeout */
	RDSU_STAT_RECV_DELIVERED,        /* recv_delivered: messages rdsu_sock_read returned,
					  * MSG_PEEK too (rds_recvmsg) */
	RDSU_STAT__COUNT
};

struct rdsu_stats {
	uint64_t v[RDSU_STAT__COUNT];
};

/* rdsu_stat_name() - the counter's stable name ("conn_reset", ...), "?" if
 * out of range. Names matching the kernel's s_* counters are spelled alike. */
RDSU_API const char *rdsu_stat_name(enum rdsu_stat s);
/* rdsu_ep_get_stats() - copy the counters. */
RDSU_API void rdsu_ep_get_stats(const struct rdsu_ep *ep, struct rdsu_stats *out);
/* rdsu_path_state_name() - "down", "connecting", "up". */
RDSU_API const char *rdsu_path_state_name(enum rdsu_path_state st);

struct rdsu_path_info {
	uint8_t index;
	enum rdsu_path_state state;
	uint64_t link;              /* current link id, 0 if none */
	bool outgoing;              /* we connected it */
	uint16_t peer_sport;        /* incoming: the peer's TCP source port */
	uint16_t local_sport;       /* outgoing: our TCP source port */
	uint64_t next_tx_seq;       /* cp_next_tx_seq */
	uint64_t next_rx_seq;       /* cp_next_rx_seq */
	uint32_t send_q_msgs;       /* not yet started on the wire */
	uint64_t send_q_bytes;
	uint32_t retrans_q_msgs;    /* written, waiting for the TCP ack */
	uint64_t retrans_q_bytes;
	uint64_t tx_bytes;          /* stream bytes output on the current link */
	uint64_t acked_bytes;       /* ... of which TCP acknowledged */
	uint64_t rx_bytes;          /* stream bytes input on the current link */
	bool map_queued;            /* a congestion map waits to be written */
	rdsu_ns reconnect_at;       /* RDSU_NS_NEVER if no reconnect is scheduled */
	rdsu_ns backoff;            /* current backoff ceiling (0 after UP) */
	uint64_t connects;          /* times this path came up */
	uint64_t resets;            /* times it went down */
	/* frame transports (IB) */
	uint16_t version;           /* negotiated (rdsu_link_hs_peer), 0 = unknown */
	uint64_t ack_seq;           /* the ack we send: last whole message taken */
	uint64_t peer_ack;          /* the greatest h_ack the peer sent on this link */
	bool flow_control;          /* the peer offered credits */
	uint32_t send_credits;
};

struct rdsu_conn_info {
	struct rdsu_addr laddr;
	struct rdsu_addr faddr;
	bool we_connect;            /* we open paths (TCP: laddr < faddr; IB: both ends) */
	uint16_t npaths;            /* c_npaths: 0 until a probe told us */
	uint32_t my_gen;
	uint32_t peer_gen;          /* 0 = not seen */
	bool peer_sport_idx;        /* the peer advertised SPORT_IDX */
	bool probe_pending;         /* our probe ping awaits an answer */
	bool fanout_hold;           /* paths > 0 wait for path 0 (the fan-out fence) */
	uint8_t held_links;         /* incoming links held for a slot (7.x stash) */
	uint32_t peer_congested;    /* ports set in the peer's map */
	struct rdsu_path_info path[WIRE_MAX_PATHS];
	unsigned transport;         /* RDSU_TRANS_* */
};

/*
 * rdsu_ep_conn_next() - iterate connections; start with *pos = 0.
 * Return: 1 and *out filled, 0 at the end.
 */
RDSU_API int rdsu_ep_conn_next(const struct rdsu_ep *ep, size_t *pos,
			       struct rdsu_conn_info *out);
/* rdsu_ep_conn_get() - the connection (laddr, faddr), of the first
 * transport that made one.
 * Return: 0; RDSU_ERR_NOTFOUND. */
RDSU_API int rdsu_ep_conn_get(const struct rdsu_ep *ep, const struct rdsu_addr *laddr,
			      const struct rdsu_addr *faddr, struct rdsu_conn_info *out);

struct rdsu_sock_info {
	struct rdsu_sock *sock;
	bool bound;
	struct rdsu_addr laddr;
	uint16_t port;
	uint32_t sndbuf, rcvbuf;
	uint64_t snd_bytes;         /* rs_snd_bytes: submitted, not yet acknowledged */
	uint64_t rcv_bytes;         /* rs_rcv_bytes: queued for reading */
	uint32_t rx_msgs;
	bool congested;             /* our map has this port set */
	bool cong_monitor;
	uint64_t cong_mask;         /* monitor: ports (bit port % 64) awaiting news */
	uint64_t cong_notify;       /* monitor: news not yet read */
};

/* rdsu_ep_sock_next() - iterate sockets; start with *pos = 0.
 * Return: 1 and *out filled, 0 at the end. */
RDSU_API int rdsu_ep_sock_next(const struct rdsu_ep *ep, size_t *pos,
			       struct rdsu_sock_info *out);

enum rdsu_msg_queue {
	RDSU_MSGQ_SEND = 0,         /* RDS_INFO_SEND_MESSAGES */
	RDSU_MSGQ_RETRANS = 1,      /* RDS_INFO_RETRANS_MESSAGES */
	RDSU_MSGQ_RECV = 2,         /* RDS_INFO_RECV_MESSAGES: a bound socket's, unread */
};

/* Of RDSU_MSGQ_RECV: laddr and dport are the receiving socket's, faddr and
 * sport the sender's, path 0. */
struct rdsu_msg_info {
	struct rdsu_addr laddr, faddr;
	uint8_t path;
	enum rdsu_msg_queue queue;
	uint64_t seq;
	uint32_t len;
	uint16_t sport, dport;
	bool retransmitted;         /* will carry / carried RDS_FLAG_RETRANSMITTED */
};

/* Cursor for rdsu_ep_msg_next(); zero it to start. Valid only while the
 * endpoint is not otherwise called. */
struct rdsu_msg_iter {
	size_t conn;
	unsigned path;
	unsigned queue;
	const void *cur;
	size_t sock;                /* then the sockets' receive queues */
};

/* rdsu_ep_msg_next() - iterate messages on every path's send and
 * retransmit queues, then every bound socket's receive queue, in the
 * order of receipt. Return: 1 and *out filled, 0 at the end. */
RDSU_API int rdsu_ep_msg_next(const struct rdsu_ep *ep, struct rdsu_msg_iter *it,
			      struct rdsu_msg_info *out);

/* rdsu_ep_local_map() - our congestion map for local address |laddr|, as
 * the peers are told; NULL if |laddr| is not ours. */
RDSU_API const struct wire_cong_map *rdsu_ep_local_map(const struct rdsu_ep *ep,
						       const struct rdsu_addr *laddr);
/* rdsu_ep_peer_map() - the last map received on (laddr, faddr); NULL if
 * there is no such connection. All clear until a map arrives. */
RDSU_API const struct wire_cong_map *rdsu_ep_peer_map(const struct rdsu_ep *ep,
						      const struct rdsu_addr *laddr,
						      const struct rdsu_addr *faddr);

#ifdef __cplusplus
}
#endif

#endif /* RDS_RDSU_H */
