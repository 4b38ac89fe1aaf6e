/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rdsu_tcp.h - librds over real TCP sockets: the transport that carries the
 * sans-IO core's byte streams (docs/librds.md, "Transport contract"), and
 * the loop of rdsu_io.h with TCP as its only transport under the names it
 * had before there was a choice (rdsu_tcp_new creates that rdsu_io; the
 * rdsu_tcp_* calls below act on it; rdsu_tcp_io gives it).
 *
 * One rdsu_tcp, through its rdsu_io, owns one endpoint (rdsu_tcp_ep) and
 * every TCP socket that carries it: a listener on port 16385 of each local address, one
 * connection per path, and connections being drained after a close. All of
 * them sit in one epoll set; its descriptor (rdsu_tcp_fd) is what an
 * application with a loop of its own polls for POLLIN. A timerfd in the
 * same set makes the descriptor readable when the core has a deadline due
 * or acknowledgements are worth checking, so an application never needs a
 * timeout of its own for librds.
 *
 * Usage (single thread, like the core):
 *
 *	rdsu_tcp_new(&t, &ep_cfg, NULL);
 *	rdsu_sock_new(rdsu_tcp_ep(t), &s); rdsu_sock_bind(s, &addr, 4000);
 *	rdsu_sock_submit(s, &peer, 5000, iov, 1, rdsu_clock());
 *	for (;;) {
 *		rdsu_tcp_run(t, -1);       // or: poll rdsu_tcp_fd(t), then run(t, 0)
 *		while (rdsu_sock_read(s, ...) >= 0) ...
 *	}
 *
 * After socket calls that send, cancel, close or change buffers, call
 * rdsu_tcp_run(t, 0): the core queued work for the transport (a connect,
 * bytes to write) that only a run carries out. rdsu_tcp_wait() wraps the
 * loop for programs that just want to block on one socket.
 *
 * Return values: >= 0, or a negative errno value from the system call that
 * failed (-EADDRINUSE when port 16385 of a local address is taken, ...),
 * or an rdsu_err code from the core. rdsu_strerror() names both.
 */
#ifndef RDS_RDSU_TCP_H
#define RDS_RDSU_TCP_H

#include <rds/rdsu.h>
#include <rds/rdsu_io.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Peer authentication beyond the kernel's RDS (which has none): every
 * TCP connection, in and out, signed with one key shared by the cluster's
 * nodes, so a node without it cannot connect, reset or inject (a listener
 * with a key drops unsigned SYNs). docs/security.md. */
enum rdsu_tcp_auth {
	RDSU_TCP_AUTH_NONE = 0,
	RDSU_TCP_AUTH_AO,     /* TCP-AO (RFC 5925), HMAC-SHA1-96; Linux 6.7 and later */
	RDSU_TCP_AUTH_MD5,    /* TCP-MD5 (RFC 2385) where TCP-AO is missing */
};
#define RDSU_TCP_AUTH_KEY_MAX 80  /* TCP_AO_MAXKEYLEN, TCP_MD5SIG_MAXKEYLEN */

struct rdsu_tcp_cfg {
	size_t size;            /* sizeof(struct rdsu_tcp_cfg) */
	/* Listen on this TCP port of every local address (default 16385,
	 * RDS_TCP_PORT; the kernel has no other). */
	uint16_t listen_port;
	bool no_listen;         /* connect only (a larger address is then unreachable) */
	/* Connect to this port instead of 16385 (tests that run several
	 * endpoints on one address; 0 = as the core asks). */
	uint16_t connect_port;
	/* Source ports for 7.x path encoding (port % 8 == path); 0 = the
	 * system's ip_local_port_range, as rds_tcp_conn_path_connect uses. */
	uint16_t port_low, port_high;
	/* SO_SNDBUF/SO_RCVBUF of every TCP socket; 0 = autotuning (the
	 * kernel's net.rds.tcp.rds_tcp_sndbuf/rcvbuf default). */
	int so_sndbuf, so_rcvbuf;
	/* Keepalive as rds_tcp_keepalive: idle, interval (seconds), count.
	 * 0 = the kernel's 5, 5, 5. */
	int keepidle, keepintvl, keepcnt;
	/* How long a closed path's connection is drained after our FIN before
	 * it is closed for good (7.x rds_tcp_conn_path_shutdown waits up to
	 * 5 s for the peer's FIN). 0 = 5 s. */
	rdsu_ns drain;
	/* The caller waits only in rdsu_tcp_run() and never polls
	 * rdsu_tcp_fd() itself: then, with several links, a wait that one
	 * link's bytes will most likely end may be an io_uring wait on that
	 * link's recv and on the epoll set together (one system call and
	 * wakeup fewer per message of a ping-pong). While such a recv is
	 * armed the link is out of the epoll set, so a caller polling
	 * rdsu_tcp_fd() would not be woken by its bytes: hence opt-in.
	 * Ignored where io_uring cannot be used (rdsu_tcp_stats
	 * ring_unavailable). Default false. */
	bool ring_wait;
	/* Sign every connection with auth_key (auth_key_len bytes, 1 to
	 * RDSU_TCP_AUTH_KEY_MAX), for every peer address of the endpoint's
	 * families (a key per address prefix 0). Only peers with the same
	 * key and kind connect; a kernel RDS peer has no key and cannot.
	 * Default RDSU_TCP_AUTH_NONE. */
	enum rdsu_tcp_auth auth;
	uint8_t auth_key[RDSU_TCP_AUTH_KEY_MAX];
	uint8_t auth_key_len;
};

/* Transport counters; a monitor reads them beside rdsu_ep_get_stats(). */
struct rdsu_tcp_stats {
	uint64_t connects;         /* outgoing connections started */
	uint64_t connect_failed;   /* ... that failed (refused, unreachable) */
	uint64_t port_retries;     /* source port candidates that were busy */
	uint64_t accepts;          /* incoming connections accepted by TCP */
	uint64_t accept_reset;     /* ... reset because the core refused them */
	uint64_t links_up;         /* links handed to the core and still open */
	uint64_t links_down;       /* EOF, RST or error reported to the core */
	uint64_t closes;           /* closes the core asked for */
	uint64_t resets_sent;      /* ... of which with an RST */
	uint64_t draining;         /* connections now being drained */
	uint64_t bytes_in, bytes_out;
	uint64_t reads, writes;    /* system calls that moved bytes */
	uint64_t write_blocked;    /* writes that filled the socket buffer */
	uint64_t ack_checks;       /* SIOCOUTQ queries */
	uint64_t runs;             /* rounds of rdsu_tcp_run */
	uint64_t sleeps;           /* ... that waited with a timeout other than 0 */
	/* ... of those, how many blocked in recv() on the endpoint's one link
	 * instead of epoll_wait() (see rdsu_tcp_run), and how many of those
	 * found nothing before their bound (then epoll waits the rest) */
	uint64_t direct_waits, direct_timeouts;
	/* With several links, a wait that one link (the "hot" one, the only
	 * one read lately) would most likely end is an io_uring wait on its
	 * recv and on the epoll set together: how many, how many ended by
	 * that link's bytes (or its end), by the epoll set, or by the
	 * caller's timeout; armed recvs cancelled (the link cooled or
	 * closed); 1 while a recv is armed; 1 if io_uring could not be used
	 * (not built in, or the ring could not be set up): every wait is then
	 * an epoll wait. */
	uint64_t ring_waits, ring_recvs, ring_polls, ring_timeouts;
	uint64_t ring_cancels, ring_armed, ring_unavailable;
	/* Outgoing connections found reset when their connect completed,
	 * with the acceptor's bytes waiting: taken up to read those, then
	 * reported down (not counted in connect_failed). */
	uint64_t connect_late_reset;
	/* Held links (waiting for a slot) that the peer reset or closed
	 * with bytes unread: read and kept for the slot, then reported
	 * down. */
	uint64_t held_kept;
	/* accept() failed for want of a descriptor or of kernel memory
	 * (EMFILE, ENFILE, ENOBUFS, ENOMEM): the listeners then rest, the
	 * connections waiting in the kernel's backlog, for 10 ms doubling
	 * up to 200 ms per failure in a row (never a busy loop on a
	 * listener that stays readable); accept_paused is 1 while they do. */
	uint64_t accept_exhausted, accept_paused;
	/* Sockets whose key could not be set (auth): never connected. */
	uint64_t auth_failed;
	/* Accepted connections reset at the descriptor limit or at the
	 * endpoint's max_links to make room for a new one: the oldest that
	 * had not brought an RDS header's worth of bytes (docs/security.md). */
	uint64_t accept_evicted;
};

struct rdsu_tcp;

/* rdsu_tcp_cfg_default() - every field at its default. */
RDSU_API void rdsu_tcp_cfg_default(struct rdsu_tcp_cfg *cfg);

/*
 * rdsu_tcp_new() - create the endpoint described by |ep_cfg| (see
 * rdsu_ep_new) and listen on its addresses. |cfg| may be NULL for the
 * defaults. When ep_cfg->gen_num is 0 a random non-zero one is drawn, and
 * when ep_cfg->seed is 0 a random seed, as the kernel does per module
 * load (rds_gen_num).
 * Return: 0 and *out set; an rdsu_err from rdsu_ep_new; a negative errno
 * (-EADDRINUSE: something, perhaps the kernel's rds_tcp, already listens
 * on the port; -EADDRNOTAVAIL: the address is not on this host).
 */
RDSU_API int rdsu_tcp_new(struct rdsu_tcp **out, const struct rdsu_ep_cfg *ep_cfg,
			  const struct rdsu_tcp_cfg *cfg);
/* rdsu_tcp_free() - close every socket (no RST, no drain) and free the
 * endpoint with everything on it. NULL is a no-op. */
RDSU_API void rdsu_tcp_free(struct rdsu_tcp *t);

/* rdsu_tcp_ep() - the endpoint: sockets, events and monitor calls. */
RDSU_API struct rdsu_ep *rdsu_tcp_ep(struct rdsu_tcp *t);

/* rdsu_tcp_io() - the loop object it belongs to (rdsu_io.h). */
RDSU_API struct rdsu_io *rdsu_tcp_io(struct rdsu_tcp *t);

/* rdsu_tcp_fd() - the descriptor to poll for POLLIN; when it is readable,
 * call rdsu_tcp_run(t, 0). */
RDSU_API int rdsu_tcp_fd(const struct rdsu_tcp *t);

/*
 * rdsu_tcp_run() - one round of the reference loop: carry out what the
 * core asked for, wait up to |timeout_ms| (-1: until something happens)
 * for socket activity or a due timer, then read, write, accept, complete
 * connects, report acknowledgements and run the core's timers, and again
 * carry out what that caused. Application events stay queued for
 * rdsu_ep_next_event(). When the endpoint has one link, which has just
 * been reading, and nothing else can be due before the timeout, the wait
 * blocks in recv() on that link's socket instead of the epoll set (one
 * system call and wakeup fewer per message of a ping-pong), for at most
 * a jiffy-rounded bound (4 ms at HZ=250), then polls as usual; a new
 * connection or the transport's own timers are seen within twice that.
 * With several links and ring_wait set, a wait that one link's bytes will
 * most likely end (the only link read lately) is an io_uring wait on that
 * link's recv and on the epoll set together, unbounded as an epoll wait
 * is. rdsu_tcp_run(t, 0) never waits either way.
 * Return: number of sockets that had activity (>= 0); -EINTR when a
 * signal interrupted an epoll wait (an interrupted ring wait returns 0);
 * another negative errno only for a failure of the epoll set itself.
 */
RDSU_API int rdsu_tcp_run(struct rdsu_tcp *t, int timeout_ms);

/*
 * rdsu_tcp_flush() - write what the core has queued, now, without waiting
 * or looking at any other socket: the cheap call after a batch of
 * rdsu_sock_submit(), so the batch leaves in as few writes as the socket
 * takes (rdsu_tcp_run(t, 0) does the same and polls besides).
 * Return: 0; RDSU_ERR_INVAL for a NULL |t|.
 */
RDSU_API int rdsu_tcp_flush(struct rdsu_tcp *t);

/*
 * rdsu_tcp_wait() - run the loop until rdsu_sock_poll(|s|) has a bit of
 * |mask| or |deadline| (rdsu_clock() time, RDSU_NS_NEVER for none) passes.
 * Return: the bits of |mask| that are set (> 0); 0 at the deadline;
 * -EINTR; a negative errno as rdsu_tcp_run.
 */
RDSU_API int rdsu_tcp_wait(struct rdsu_tcp *t, struct rdsu_sock *s, unsigned mask,
			   rdsu_ns deadline);

/* rdsu_tcp_get_stats() - copy the transport counters. */
RDSU_API void rdsu_tcp_get_stats(const struct rdsu_tcp *t, struct rdsu_tcp_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* RDS_RDSU_TCP_H */
