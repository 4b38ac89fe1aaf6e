/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * tcp.h - the TCP transport's insides, shared by its files, split by role
 * as net/rds splits tcp*.c: tcp.c (the transport object, its ops table,
 * the link table, socket tuning, closes and drains), tcp_connect.c
 * (source port per path, connect, its completion), tcp_listen.c
 * (listeners, accept, held links), tcp_recv.c (reads, drains' reads),
 * tcp_send.c (writes, acknowledgement by SIOCOUTQ), tcp_wait.c (the
 * direct and ring waits on a hot link).
 */
#ifndef RDSU_IO_TCP_H
#define RDSU_IO_TCP_H

#include <rds/rdsu_tcp.h>

#include "loop.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef RDSU_HAVE_LIBURING
#include <liburing.h>
#endif

#define LINK_BUCKETS 4096     /* link id -> socket; 1000 peers x 8 paths stay short */
#define READ_CHUNK (256 * 1024)
#define STAGE_SIZE (64 * 1024)
#define DIRECT_MIN (16 * 1024) /* spans this long are written from the core's memory */
#define READS_PER_ROUND 16    /* then let other sockets have a turn */
#define ACK_POLL_MIN (200 * 1000ull)
#define ACK_POLL_MAX (50 * RDSU_MSEC)
/* While no socket waits for SNDBUF room, acknowledgements only free
 * memory: look this often at most, not every 200 us of a busy link. */
#define ACK_POLL_IDLE (5 * RDSU_MSEC)
#define DRAIN_DEFAULT (5 * RDSU_SEC)
/*
 * A wait that only one link's bytes can end (the endpoint has that one
 * link, nothing to write, no socket waiting for acknowledgements) blocks
 * in recv() on it rather than in epoll_wait(): one system call and one
 * wakeup instead of two, which was most of the difference to a plain TCP
 * ping-pong (docs/performance.md, issue 7). Such a wait is bounded by
 * SO_RCVTIMEO, asked for DIRECT_ASK; the kernel keeps it in jiffies and
 * rounds up (4 ms at HZ=250), so the bound used is the value read back.
 * A direct wait starts only when the core's next deadline and the
 * caller's are at least that far away, and only within that time of the
 * last epoll round, so a new connection or the acknowledgement timer
 * (which only frees memory while no socket waits for room) is seen at
 * most twice the bound late.
 */
#define DIRECT_ASK_US 1000
/*
 * With several links, a wait that the hot link (the only one read lately,
 * twice within RING_HOT) will most likely end is an io_uring wait
 * (ring_wait): a recv on that link and a poll of the epoll set, in one
 * io_uring_enter, so its bytes cost one system call and one wakeup, as a
 * direct wait's do. The epoll set stays watched, so unlike a direct wait
 * nothing needs a bound: the timerfd, the listener and every other link
 * end the wait as they end an epoll wait. Guessing wrong costs one
 * epoll_wait(0) after the poll ends the wait; the heat rule keeps that
 * rare. The same 4 ms as a direct wait's bound at HZ=250.
 */
#define RING_HOT (4 * RDSU_MSEC)
/*
 * A direct wait is also taken with several links once every other link
 * has been quiet this long: nothing read on one since the hot link's
 * streak began, nothing written on one since. A ring wait costs more than
 * a blocking recv() (measured on one vCPU, where an unpinned ping-pong's
 * two ends run: 15.0-15.9 against 13.8-14.3 us a round trip, the
 * io_uring recv's poll arming, task work and timer), and one flow alone
 * on an endpoint of several links is what a ping-pong is. A link that
 * wakes after such a silence is heard at most twice the direct bound late
 * (its first bytes; its second read makes it the hot one, or the ring
 * wait takes over).
 */
#define DIRECT_QUIET (500 * RDSU_MSEC)

/* A socket closed while an epoll batch may still name it becomes TS_DEAD
 * and is freed at the end of the round. */
enum tsock_kind { TS_LISTEN = 1, TS_LINK, TS_DRAIN, TS_DEAD };

enum tlink_state {
	TL_CONNECTING = 1, /* non-blocking connect in flight */
	TL_UP,             /* the core reads and writes it */
	TL_HELD,           /* accepted, the core holds it for a slot: not read */
};

struct tsock {
	struct rdsu_src src;          /* fd, epoll interest */
	enum tsock_kind kind;
	/* TS_LINK */
	uint64_t id;
	enum tlink_state state;
	struct tsock *hnext;          /* link hash chain */
	rdsu_ns in_at, in_gap;        /* last read with bytes; time since the one before */
	bool direct;                  /* blocking, with SO_RCVTIMEO: may be waited on directly */
	bool no_direct;               /* making it so failed */
	bool hot;                     /* t->hot: read through the ring, not epoll */
	struct tsock *anext, *aprev;  /* links with unacknowledged bytes */
	bool on_ack_list;
	bool want_out;                /* the core has bytes for it */
	uint64_t written;             /* bytes the socket took */
	uint64_t acked;               /* last value told to the core */
	uint8_t *rem;                 /* copied-out bytes send() did not take */
	size_t rem_len, rem_off;
	uint8_t *held_in;             /* bytes read while the core held the link */
	size_t held_len;
	bool held_dead;               /* held_end: ended while held, out of the epoll set */
	bool accepted;                /* incoming: may be evicted (evict_silent) */
	uint64_t accept_no;            /* t->st.accepts then: evict_silent takes the oldest */
	uint64_t rx;                  /* bytes read from it */
	/* connect retries over source port candidates */
	struct rdsu_lreq req;
	unsigned port_try;
	/* TS_DRAIN; TS_DEAD's list */
	rdsu_ns drain_until;
	struct tsock *dnext;
	/* TS_LISTEN */
	struct rdsu_addr laddr;
};

struct rdsu_tcp {
	struct rdsu_transport tr;
	struct rdsu_io *io;           /* tr.io */
	struct rdsu_ep *ep;           /* io->ep */
	struct rdsu_tcp_cfg cfg;
	struct tsock *listen[RDSU_MAX_LADDRS];
	unsigned n_listen;
	struct tsock *links[LINK_BUCKETS];
	unsigned n_links;             /* in links[], in any state */
	struct tsock *last_in;        /* the link read last, while it is in links[] */
	unsigned in_streak;           /* reads in a row by last_in, up to 2 */
	rdsu_ns streak_at;            /* last_in's first read of its streak */
	rdsu_ns other_out_at;         /* the last write on a link not last_in */
	rdsu_ns direct_max;           /* bound of a direct wait (SO_RCVTIMEO read back) */
	struct tsock *ack_head;       /* links whose written > acked */
	struct tsock *drain_head;
	struct tsock *dead_head;
	unsigned port_group;          /* 7.x: next source port group to try */
	rdsu_ns ack_poll;             /* current interval between SIOCOUTQ rounds */
	rdsu_ns accept_rest;          /* listeners rest until then (RDSU_NS_NEVER: they don't) */
	rdsu_ns accept_backoff;       /* the last rest; 0 after an accept succeeds */
	rdsu_ns ack_due;
	uint8_t *rbuf;
	uint8_t *stage;
	struct rdsu_tcp_stats st;
#ifdef RDSU_HAVE_LIBURING
	/* ring_wait. Invariant: a recv is armed only on |hot|, and every
	 * io_uring_enter is followed by ring_reap, so no completed recv's
	 * bytes wait while other code reads the same socket. */
	struct io_uring ring;
	int ring_state;               /* 0 not tried yet, 1 usable, -1 not */
	uint8_t *hbuf;                /* the armed recv's buffer (t->rbuf is reused meanwhile) */
	struct tsock *hot;
	bool recv_armed, poll_armed, recv_done, poll_done;
	int recv_res;
#endif
};

static inline struct rdsu_tcp *tcp_of(struct rdsu_transport *tr)
{
	return (struct rdsu_tcp *)tr;
}

/* tcp.c */
void rdsu_tcp_link_hash(struct rdsu_tcp *t, struct tsock *l);
struct tsock *rdsu_tcp_link_find(struct rdsu_tcp *t, uint64_t id);
int rdsu_tcp_watch(struct rdsu_tcp *t, struct tsock *s, uint32_t events, int op);
uint32_t rdsu_tcp_link_events(const struct tsock *l);
void rdsu_tcp_link_rewatch(struct rdsu_tcp *t, struct tsock *l);
void rdsu_tcp_linger0(int fd);
void rdsu_tcp_sock_free(struct tsock *s);
void rdsu_tcp_link_close(struct rdsu_tcp *t, struct tsock *l, bool reset);
void rdsu_tcp_drain_end(struct rdsu_tcp *t, struct tsock *d);
void rdsu_tcp_link_lost(struct rdsu_tcp *t, struct tsock *l, rdsu_ns now);
void rdsu_tcp_tune(const struct rdsu_tcp *t, int fd);

/* tcp_connect.c */
void rdsu_tcp_connect_start(struct rdsu_tcp *t, const struct rdsu_lreq *r, rdsu_ns now);
void rdsu_tcp_connect_done(struct rdsu_tcp *t, struct tsock *l, rdsu_ns now);

/* tcp_auth.c */
/* Sign |fd| (of |family|) with cfg's key for every peer. Return: 0; a
 * negative errno (-ENOPROTOOPT: the kernel has no such option). */
int rdsu_tcp_auth_set(const struct rdsu_tcp_cfg *cfg, int fd, int family);
/* Is cfg's auth usable here? Return: 0; RDSU_ERR_INVAL (a bad kind or key
 * length); a negative errno from trying it on a socket. */
int rdsu_tcp_auth_check(const struct rdsu_tcp_cfg *cfg);

/* tcp_listen.c */
int rdsu_tcp_listen(struct rdsu_transport *tr, const struct rdsu_addr *a);
void rdsu_tcp_accept(struct rdsu_tcp *t, struct tsock *ls, rdsu_ns now);
void rdsu_tcp_accept_resume(struct rdsu_tcp *t);
int rdsu_tcp_held_append(struct tsock *l, const uint8_t *p, size_t n);
void rdsu_tcp_attach(struct rdsu_tcp *t, struct tsock *l, rdsu_ns now);
void rdsu_tcp_held_end(struct rdsu_tcp *t, struct tsock *l, rdsu_ns now);

/* tcp_recv.c */
int rdsu_tcp_feed(struct rdsu_tcp *t, struct tsock *l, const uint8_t *p, size_t n, rdsu_ns now);
ssize_t rdsu_tcp_rd(struct rdsu_tcp *t, struct tsock *l, int flags);
bool rdsu_tcp_took_buf(struct rdsu_tcp *t, struct tsock *l, const uint8_t *buf, ssize_t n,
		       rdsu_ns now);
bool rdsu_tcp_took(struct rdsu_tcp *t, struct tsock *l, ssize_t n, rdsu_ns now);
void rdsu_tcp_input(struct rdsu_tcp *t, struct tsock *l, rdsu_ns now);
void rdsu_tcp_salvage(struct rdsu_tcp *t, struct tsock *l, rdsu_ns now);
void rdsu_tcp_drain_read(struct rdsu_tcp *t, struct tsock *d);
void rdsu_tcp_drain_expire(struct rdsu_tcp *t, rdsu_ns now);

/* tcp_send.c */
void rdsu_tcp_ack_list_del(struct rdsu_tcp *t, struct tsock *l);
void rdsu_tcp_output(struct rdsu_tcp *t, struct tsock *l, rdsu_ns now);
bool rdsu_tcp_acks(struct rdsu_transport *tr, rdsu_ns now, bool flush);

/* tcp_wait.c */
bool rdsu_tcp_ring_unhot(struct rdsu_tcp *t, rdsu_ns now, bool deliver);
int rdsu_tcp_wait_hot(struct rdsu_transport *tr, bool alone, int *wait_ms, rdsu_ns *nowp,
		      int *res);

#endif /* RDSU_IO_TCP_H */
