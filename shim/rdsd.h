/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rdsd.h - what the rooms of rdsd share (shim/README.md has the map).
 *
 * rdsd - one RDS presence for every shimmed program of a network
 * namespace (docs/architecture.md, "Sharing one RDS presence: rdsd";
 * the protocol is rdsd_proto.h).
 *
 * It owns one librds TCP endpoint per local address a socket bound to,
 * delivers messages between its own addresses itself (the kernel's
 * loopback transport), and frees a socket when the last descriptor of
 * its connection is closed, by whatever process, also one killed.
 *
 * Single-threaded: one epoll set holds the listener, every socket's
 * connection, every reply channel and every endpoint's descriptor.
 */
#ifndef RDSTK_SHIM_RDSD_H
#define RDSTK_SHIM_RDSD_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/rds.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <rds/rdsu_tcp.h>
#include <rds/rdsu_io.h>
#include <wire/wire.h>

#include "rdsd_proto.h"
#include "rdsd_ring.h"
#include "rdsep.h"
#include "rdsinfo.h"
#include "rdsopt.h"

enum obj_kind { OBJ_LISTEN, OBJ_SOCK, OBJ_CHAN, OBJ_EP, OBJ_RING };

struct obj {
	enum obj_kind kind;
};

struct ep {
	struct obj o;
	struct rdsu_io *io;
	bool rdma;                /* IB runs for |addr| (rdsep.h) */
	struct rdsu_addr addr;
	unsigned nsocks;          /* sockets bound on it */
	struct ep *next;
};

struct chan {
	struct obj o;
	int fd;
	uint32_t id;
	struct dsock *s;
	struct dring *ring;       /* its process's send ring, or NULL */
	struct chan *next;
};

/* A process's send ring for one socket (rdsd_ring.h, rdsd_shm.c): memory
 * rdsd made and sealed, mapped by both; its eventfd, edge-triggered in
 * rdsd's epoll set, is rung by the process only while rdsd sleeps. */
struct dring {
	struct obj o;
	struct chan *c;
	int efd;
	void *mem;
	size_t len;
	struct rdsd_ring_cons rc;
	bool told;                /* that it is malformed, logged */
};

/* A send that waits for room or for a congested port (a blocking send). */
struct parked {
	uint32_t chan, seq;
	struct rdsu_addr dst;
	uint16_t dport;
	bool cong_wait;          /* waits for the port, without a timeout */
	bool noreply;            /* the sender did not wait (RDSD_SEND_NOREPLY) */
	int64_t deadline_ms;     /* -1: none */
	size_t len;
	uint8_t *data;
	struct parked *next;
};

/* A message from one of our own sockets, waiting for room in the
 * receiver's connection. The receiver's RCVBUF bounds these: past it its
 * port is congested for local senders, as rds_recv_rcvbuf_delta congests
 * a port whose queue passed RCVBUF (the kernel skips that for a socket on
 * the loopback transport; rdsd does not, docs/kernel-behaviour.md). */
struct local_rx {
	struct local_rx *next;
	struct rdsd_rx rx;
	size_t len;
	uint8_t data[];
};

/*
 * What rdsd holds for one user (SO_PEERCRED's uid): every socket and every
 * reply channel is a descriptor of rdsd's, counted against the user's
 * share (--max-fds, docs/security.md "rdsd's clients").
 */
struct user {
	uid_t uid;
	unsigned fds;
	size_t ring_bytes;        /* of its send rings, at most RDSD_USER_RING_BYTES */
	struct user *next;
};

/* Per socket, past these a request fails rather than rdsd growing
 * (docs/security.md "rdsd's clients"): */
#define RDSD_MAX_CHANS 64             /* reply channels (processes using it) */
#define RDSD_MAX_BUF (4u << 20)       /* SNDBUF, RCVBUF: payload bytes each, for root;
                                       * others as the kernel: wmem_max, rmem_max */
/* Endpoints (local addresses with a TCP listener each, ~48 KiB and three
 * descriptors): past this many, a new address takes the place of one no
 * socket is bound to, or its bind fails ENOBUFS. */
#define RDSD_MAX_EPS 256
/* Per user: sockets, reply channels and send rings together (--max-fds). */
#define RDSD_DEFAULT_USER_FDS 8192
/* Per user: the memory of its send rings (RDSD_RING_CTL + RDSD_RING_SIZE
 * each, 127 rings); past it a process's sends go over its connection. */
#define RDSD_USER_RING_BYTES (64u << 20)

struct dsock {
	struct obj o;
	int fd;
	struct ep *ep;
	struct rdsu_sock *us;
	/* Its names, its buffers (payload budgets, as librds takes them) and
	 * the inode of the client's descriptor: what RDS_INFO_SOCKETS lists. */
	struct rdsinfo_sock id;
	struct rdsopt opt;
	bool sent;
	uint8_t tos;
	bool push_blocked;        /* the connection is full: wait for EPOLLOUT */
	struct local_rx *lq, **lq_tail; /* local deliveries the connection had no room for */
	size_t lq_bytes;          /* their payload, at most RCVBUF */
	struct user *user;
	struct chan *chans;
	unsigned nchans;
	struct parked *parked, **parked_tail;   /* in order */
	size_t parked_bytes;      /* of sends not waited for */
	size_t parked_all;        /* of every waiting send, at most 2 SNDBUF */
	struct dsock *next;
};

extern int g_lfd;
extern struct epoll_event *g_round;
extern int g_round_n;
extern struct ep *g_eps;
extern struct dsock *g_socks;
extern unsigned g_nsocks;
extern bool g_any_user;
extern unsigned g_max_user_fds;
extern uint32_t g_wmem_max, g_rmem_max;
extern uint8_t *g_buf;
extern size_t g_bufcap;

/* rdsd.c */
int64_t now_ms(void);
void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int ep_add(int fd, void *p, uint32_t ev);
void ep_mod(int fd, void *p, uint32_t ev);
void big_sndbuf(int fd);
void forget_events(const void *p);

/* rdsd_client.c */
bool user_take(struct user *u);
void user_drop(struct user *u);
struct chan *chan_find(struct dsock *s, uint32_t id);
void reply_rights(struct dsock *s, uint32_t chan, uint32_t seq, int ret, uint32_t pad,
		  const int *fds, int nfds);
void reply(struct dsock *s, uint32_t chan, uint32_t seq, int ret, uint32_t optlen,
	   const void *data, size_t len);
void parked_free(struct parked *p);
void sock_free(struct dsock *s);
void accept_one(void);
void chan_gone(struct chan *c);
bool sock_input(struct dsock *s);

/* rdsd_sock.c */
struct ep *ep_of(const struct rdsu_addr *a);
struct dsock *bound_sock(const struct rdsu_addr *a, uint16_t port);
int do_bind(struct dsock *s, const struct rdsd_req *q);
int do_setopt(struct dsock *s, const struct rdsd_req *q, const uint8_t *v, size_t len);
void do_getopt(struct dsock *s, const struct rdsd_req *q);
void do_name(struct dsock *s, const struct rdsd_req *q);

/* rdsd_send.c */
void addr_to_rx(const struct rdsu_addr *a, uint16_t port, struct rdsd_rx *rx);
void pump_local(struct dsock *s);
bool pump_rx(struct dsock *s);
void unpark(struct dsock *s, struct parked **pp);
void do_send(struct dsock *s, const struct rdsd_req *q, const uint8_t *data, size_t len);
void retry_parked(struct dsock *s);
void do_cancel(struct dsock *s, const struct rdsd_req *q);
extern bool g_send_batch;  /* sends from a ring: one flush after them */

/* rdsd_shm.c */
void ring_open(struct dsock *s, const struct rdsd_req *q);
void ring_free(struct chan *c);
void ring_drain_chan(struct dsock *s, struct chan *c);
void ring_drain(struct dsock *s);
bool rings_arm(void);

/* rdsd_info.c */
int do_info(unsigned opt, size_t buflen, uint8_t *buf, size_t cap, size_t *optlen);

#endif
