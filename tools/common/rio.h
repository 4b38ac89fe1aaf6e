/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rio.h - one small socket API for the tools over two RDS stacks: librds
 * (rdsu_io with its transports, the default) or the kernel's AF_RDS
 * sockets (--kernel), so
 * rdsping, rdsperf and the test drivers measure and exercise either with
 * the same code. Non-blocking sockets, a wait over several of them, and
 * errors as negative errno values (both stacks report the kernel's).
 */
#ifndef RDSTK_RIO_H
#define RDSTK_RIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <rds/rdsu.h>
#include <rds/rdsu_ib.h>
#include <rds/rdsu_io.h>
#include <rds/rdsu_tcp.h>

#define RIO_POLLIN 0x1
#define RIO_POLLOUT 0x2

/*
 * The RDS transport under either stack (--transport). AUTO is the kernel's
 * choice at bind: an address on an InfiniBand or RoCE device takes IB,
 * any other TCP; the kernel decides it itself, librds asks
 * rdsu_ib_laddr_check() for every address of the endpoint (IB only when
 * all of them are on such a device) and takes TCP when that cannot be
 * known (no IB transport built, no rdma_cm). TCP and IB are
 * SO_RDS_TRANSPORT RDS_TRANS_TCP and RDS_TRANS_IB on every socket.
 */
enum rio_trans {
	RIO_TRANS_AUTO,
	RIO_TRANS_TCP,
	RIO_TRANS_IB,
};

/* -I (rio_opt.h): where the tool's sockets bind. */
struct rio_local {
	bool given;
	struct rdsu_addr addr;      /* -I ADDR */
	const char *iface;          /* -I IFACE: its address of the peer's family */
};

/* The stack: the kernel's, or librds with the transports of |io|. */
struct rio_cfg {
	bool kernel;                /* AF_RDS instead of librds */
	enum rio_trans transport;
	struct rdsu_ep_cfg ep;      /* librds: addresses, kver, npaths, ... */
	/* librds: which transports; rio_open() sets transports, tcp and ib
	 * from |transport| and the addresses. */
	struct rdsu_io_cfg io;
	struct rdsu_tcp_cfg tcp;    /* librds: the TCP transport's configuration */
	/* librds: publish the monitor state for rdstop (rdsu_io_monitor()
	 * at the default path); a failure to is not the tool's */
	bool monitor;
	struct rdsu_ib_cfg ib;      /* librds: the IB transport's (when built) */
	struct rio_local local;     /* -I: the tool binds its sockets there */
	/* --sndbuf, --rcvbuf: SO_SNDBUF and SO_RCVBUF of every socket
	 * rio_socket() opens; 0: the stack's default */
	uint32_t sndbuf, rcvbuf;
};

/* Whether this build has librds's IB transport (library rdsu_ib). */
extern const bool rio_have_ib;

struct rio;
struct rio_sock;

/* rio_cfg_default() - librds with the kernel's defaults; the caller adds
 * addresses (rio_cfg_add_addr). */
void rio_cfg_default(struct rio_cfg *cfg);
/* rio_cfg_add_addr() - add a local address (librds: to the endpoint).
 * Return: 0; -E2BIG when full. */
int rio_cfg_add_addr(struct rio_cfg *cfg, const struct rdsu_addr *a);

/* rio_fault_option() - one --fault NAME (librds's faulty-peer mode, tests
 * only): NAME's bit is added to *faults; "list" prints the table to
 * stdout instead. Return: 0 added; 1 listed (the caller exits 0); -1 no
 * fault has that name. */
int rio_fault_option(const char *arg, uint32_t *faults);

/* rio_route_source() - the local address the kernel's routing would send
 * to |dst| from. Return: 0; negative errno (no route). */
int rio_route_source(const struct rdsu_addr *dst, struct rdsu_addr *src);

/*
 * rio_local_pick() - the local address for talking to |peer| (NULL: no
 * peer yet, IPv4 before IPv6) into *out: -I's address; the address of
 * -I's interface of the peer's family; with no -I, the route's source.
 * Return: 0; -ENODEV no such interface; -EADDRNOTAVAIL the interface has
 * no address of that family; -EDESTADDRREQ no -I and no peer; another
 * negative errno: no route.
 */
int rio_local_pick(const struct rio_local *l, const struct rdsu_addr *peer, struct rdsu_addr *out);

/* rio_signals() - SIGINT and SIGTERM call |stop|; SIGPIPE is ignored, so
 * that a peer gone is an error return from the call that writes to it. */
void rio_signals(void (*stop)(int sig));

/* The names --transport takes, "tcp", "ib" and "auto" (an OPTD_ENUM's). */
extern const struct wire_tok rio_trans_toks[];

/* rio_trans_parse() - "tcp", "ib" or "auto". Return: 0; -1 none of them. */
int rio_trans_parse(const char *s, enum rio_trans *t);

/*
 * rio_trans_pick() - what |t| comes to for a stack on |laddr|: auto is IB
 * when the address is on an RDMA device (as librds and the kernel choose),
 * else TCP. For the tools that speak RDS's wire themselves (rds-conform,
 * its crafter) and for naming the stack.
 */
enum rio_trans rio_trans_pick(enum rio_trans t, const struct rdsu_addr *laddr);

/* rio_open() - start the stack. Return: 0; negative errno or rdsu_err
 * (rdsu_strerror names both). -EAFNOSUPPORT: no AF_RDS in this kernel;
 * -ENOPROTOOPT: the kernel lacks the transport asked for (rds_tcp,
 * rds_rdma); -EPROTONOSUPPORT: IB asked of a librds built without it;
 * from librds on IB also -ENODEV (no RDMA), -EADDRNOTAVAIL (an address
 * on no RDMA device), -EADDRINUSE (port 18634 taken). */
int rio_open(struct rio **out, const struct rio_cfg *cfg);
/* rio_open_strerror() - why rio_open() failed, in words for a user: the
 * module to load, the packages a build lacked, the device missing. */
const char *rio_open_strerror(const struct rio_cfg *cfg, int e);
/* rio_transport() - the transport librds runs sockets on after
 * rio_open(): RDSU_TRANS_IB or RDSU_TRANS_TCP; with --kernel
 * RDSU_TRANS_NONE unless forced (the kernel picks per socket,
 * rio_sock_transport). */
unsigned rio_transport(const struct rio *r);
/* rio_trans_name() - "IB", "TCP", "loopback" (RDS_TRANS_LOOP, the
 * kernel's for 127.0.0.0/8 and ::1) or "none". */
const char *rio_trans_name(unsigned trans);
void rio_close(struct rio *r);
/* rio_io() - the librds loop: its endpoint (rdsu_io_ep) for monitor
 * calls; NULL with --kernel. */
struct rdsu_io *rio_io(struct rio *r);
/* rio_tcp() - librds's TCP transport, for its counters
 * (rdsu_tcp_get_stats); NULL with --kernel or without TCP. */
struct rdsu_tcp *rio_tcp(struct rio *r);

/* rio_addr_port_str() - "10.0.0.1:16385" or "[fd00::1]:16385" into |buf|,
 * as a user would type it back; returns |buf|. */
const char *rio_addr_port_str(const struct rdsu_addr *a, uint16_t port, char *buf, size_t cap);

/* rio_socket() - a socket bound to (|addr|, |port|); port 0 picks one.
 * It has the stack's --sndbuf and --rcvbuf (rio_cfg) when they were given.
 * Return: 0; negative errno. */
int rio_socket(struct rio *r, const struct rdsu_addr *addr, uint16_t port,
	       struct rio_sock **out);
void rio_sock_close(struct rio_sock *s);
/* rio_sock_port() - the bound port. */
uint16_t rio_sock_port(const struct rio_sock *s);
/* rio_sock_transport() - the socket's transport as SO_RDS_TRANSPORT reads
 * it (RDSU_TRANS_*, 3 for the kernel's loopback). */
unsigned rio_sock_transport(const struct rio_sock *s);
/* rio_set_bufs() - SNDBUF/RCVBUF as the kernel's payload budgets (0 =
 * leave). The kernel is given SO_SNDBUFFORCE/SO_RCVBUFFORCE when allowed,
 * else SO_SNDBUF/SO_RCVBUF (capped by wmem_max/rmem_max).
 * Return: 0; negative errno. */
int rio_set_bufs(struct rio_sock *s, uint32_t sndbuf, uint32_t rcvbuf);
/* rio_max_msg() - the largest message a socket can send (a larger one is
 * EMSGSIZE): the kernel's SNDBUF, librds's rdsu_sock_max_msg(). */
uint32_t rio_max_msg(const struct rio_sock *s);

/* rio_send() - one message, never blocking.
 * Return: 0; -EAGAIN, -ENOBUFS, -EMSGSIZE, ... as sendmsg on AF_RDS. */
int rio_send(struct rio_sock *s, const struct rdsu_addr *dst, uint16_t dport,
	     const void *buf, size_t len);
/* rio_send_more() - as rio_send, but librds only queues the message: it
 * leaves with the others of the batch at rio_flush(), in as few writes as
 * the socket takes (the kernel's AF_RDS writes each one at once). */
int rio_send_more(struct rio_sock *s, const struct rdsu_addr *dst, uint16_t dport,
		  const void *buf, size_t len);
/* rio_flush() - write what rio_send_more() queued. Return: 0; negative
 * errno. */
int rio_flush(struct rio *r);
/* rio_backlog() - messages librds holds that have not started on the wire
 * (all connections); 0 with --kernel, whose queues are the kernel's. A
 * sender of tiny messages, which SNDBUF (payload bytes) hardly limits,
 * keeps this bounded. */
uint64_t rio_backlog(struct rio *r);

/* rio_unacked() - messages librds holds that TCP has not acknowledged yet:
 * the backlog and those written (or partly written) since; 0 with
 * --kernel. Once 0, everything sent is in the peer's kernel. */
uint64_t rio_unacked(struct rio *r);

/* rio_recv() - one message, never blocking; |trunc| when |cap| was short.
 * Return: the message length (>= 0); -EAGAIN. Congestion notifications
 * are consumed and skipped. */
ssize_t rio_recv(struct rio_sock *s, void *buf, size_t cap, struct rdsu_addr *from,
		 uint16_t *sport, bool *trunc);

/* rio_next_notify() - the next RDS_CMSG_RDMA_STATUS (the kernel's arrive
 * through rio_recv(), which keeps them for this). Return: 1 and *n; 0 none. */
int rio_next_notify(struct rio_sock *s, struct rdsu_notify *n);

/*
 * rio_wait() - wait until one of |socks| is ready for what |want[i]| asks
 * (RIO_POLL* bits) or |deadline| (rdsu_clock time; RDSU_NS_NEVER) passes;
 * |got[i]| receives the ready bits. With librds the stack runs meanwhile.
 * Return: number of ready sockets; 0 at the deadline; negative errno.
 */
int rio_wait(struct rio *r, struct rio_sock *const *socks, const unsigned *want,
	     unsigned *got, size_t n, rdsu_ns deadline);

/* rio_idle() - let the stack run (write, retransmit, answer pings) for up
 * to |ns| without waiting on any socket. Return: 0; negative errno. */
int rio_idle(struct rio *r, rdsu_ns ns);

/*
 * RDMA over either stack (RDS over IB only; over TCP both answer what the
 * kernel's RDS/TCP answers, -EOPNOTSUPP). An operation is described as
 * librds's struct rdsu_op (rdsu.h); with --kernel the same fields become
 * sendmsg's RDS_CMSG_RDMA_ARGS, _ATOMIC_*, _MASKED_ATOMIC_* (op->masked),
 * _RDMA_DEST or _RDMA_MAP cmsg (<linux/rds.h>).
 */

/* rio_send_op() - one message of |len| bytes carrying |op|, never
 * blocking. Return: 0; negative errno as sendmsg on AF_RDS (-EAGAIN,
 * -ENOBUFS, -EOPNOTSUPP, -EINVAL, ...). */
int rio_send_op(struct rio_sock *s, const struct rdsu_addr *dst, uint16_t dport,
		const void *buf, size_t len, const struct rdsu_op *op);

/* rio_free_mr() - RDS_FREE_MR of |cookie| with |flags| (RDSU_RDMA_INVALIDATE).
 * Return: 0; negative errno (-EINVAL: no such region). */
int rio_free_mr(struct rio_sock *s, uint64_t cookie, unsigned flags);

#define RIO_MAX_NOTES 32

/* What rio_recv_op() received. */
struct rio_rx {
	struct rdsu_addr from;
	uint16_t sport;
	uint32_t len;               /* the message's full length */
	bool trunc;
	bool has_cookie;            /* RDS_CMSG_RDMA_DEST: the sender's cookie */
	uint64_t cookie;
	unsigned n_notes;           /* RDS_CMSG_RDMA_STATUS, in order */
	struct rdsu_notify notes[RIO_MAX_NOTES];
};

/*
 * rio_recv_op() - as recvmsg on AF_RDS: pending RDMA notifications first,
 * and nothing else with them (up to RIO_MAX_NOTES; the rest come with the
 * next call); else one message into |buf| with its cookie, if it carried
 * one. Congestion notifications are consumed and skipped.
 * Return: 1 a message (rx->len, rx->from, ...); 0 notifications only
 * (rx->n_notes > 0); -EAGAIN nothing; another negative errno.
 */
int rio_recv_op(struct rio_sock *s, void *buf, size_t cap, struct rio_rx *rx);

/* rio_rdma_status_name() - "SUCCESS", "REMOTE_ERROR", "CANCELED",
 * "DROPPED", "OTHER_ERROR" (RDS_RDMA_*), "?" for another number. */
const char *rio_rdma_status_name(int status);

#endif /* RDSTK_RIO_H */
