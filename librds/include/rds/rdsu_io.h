/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rdsu_io.h - librds over the operating system: an endpoint with its
 * transports and the event loop that drives them (docs/librds.md,
 * "Transports"), the clock and the addresses every transport uses.
 *
 * One rdsu_io owns one endpoint (rdsu_io_ep), the transports chosen in
 * rdsu_io_cfg, and one epoll set holding every descriptor of theirs and a
 * timerfd armed for the next due time (core deadline, a transport's own
 * timers). Its descriptor (rdsu_io_fd) is what an application with a loop
 * of its own polls for POLLIN, then calls rdsu_io_run(io, 0).
 *
 * After socket calls that send, cancel, close or change buffers, call
 * rdsu_io_run(io, 0) or rdsu_io_flush(io): the core queued work for the
 * transports (a connect, bytes to write) that only the loop carries out.
 * rdsu_tcp.h is the same loop with TCP alone, under the names it had
 * before there was a choice of transport.
 *
 * Return values: >= 0, or a negative errno value from the system call that
 * failed, or an rdsu_err code from the core. rdsu_strerror() names both.
 */
#ifndef RDS_RDSU_IO_H
#define RDS_RDSU_IO_H

#include <sys/socket.h>

#include <rds/rdsu.h>

#ifdef __cplusplus
extern "C" {
#endif

/* rdsu_clock() - CLOCK_MONOTONIC in nanoseconds: the time every core call
 * made next to a transport should be given. */
RDSU_API rdsu_ns rdsu_clock(void);

/* rdsu_sockaddr() - |a|:|port| as a sockaddr_in (v4-mapped) or sockaddr_in6.
 * Return: its length. */
RDSU_API socklen_t rdsu_sockaddr(const struct rdsu_addr *a, uint16_t port,
				 struct sockaddr_storage *ss);
/* rdsu_sockaddr_get() - the address and port of an AF_INET/AF_INET6 |ss|
 * (|port| may be NULL: the address alone).
 * Return: 0; -EAFNOSUPPORT for another family. */
RDSU_API int rdsu_sockaddr_get(const struct sockaddr_storage *ss, struct rdsu_addr *a,
			       uint16_t *port);

/* rdsu_io_cfg.transports bits, by RDSU_TRANS_* (rdsu.h) */
#define RDSU_IO_TCP (1u << RDSU_TRANS_TCP)
#define RDSU_IO_IB (1u << RDSU_TRANS_IB)   /* rdsu_ib.h, library rdsu_ib */

struct rdsu_tcp_cfg;
struct rdsu_ib_cfg;

struct rdsu_io_cfg {
	size_t size;            /* sizeof(struct rdsu_io_cfg) */
	/* RDSU_IO_* bits of the transports to run; 0 = TCP. RDSU_IO_IB
	 * needs |ib|; another bit is RDSU_ERR_INVAL. The loopback
	 * transport (RDSU_TRANS_LOOP, messages to the endpoint's own
	 * addresses) always runs, as the kernel always has it. */
	unsigned transports;
	/* The TCP transport's configuration (rdsu_tcp.h); NULL for the
	 * defaults. Read only during rdsu_io_new(). */
	const struct rdsu_tcp_cfg *tcp;
	/* The IB transport's configuration, from rdsu_ib_cfg_default() of
	 * library rdsu_ib (rdsu_ib.h); required with RDSU_IO_IB. Read only
	 * during rdsu_io_new(). Which connections use IB: rdsu_ep_cfg.
	 * rdma_laddrs and rdsu_sock_set_transport() (rdsu.h). */
	const struct rdsu_ib_cfg *ib;
};

struct rdsu_io;
struct rdsu_tcp;

/* rdsu_io_cfg_default() - TCP with its defaults. */
RDSU_API void rdsu_io_cfg_default(struct rdsu_io_cfg *cfg);

/*
 * rdsu_io_new() - create the endpoint described by |ep_cfg| (see
 * rdsu_ep_new), its transports, and listen on its addresses. |cfg| may be
 * NULL for the defaults. When ep_cfg->gen_num is 0 a random non-zero one
 * is drawn, and when ep_cfg->seed is 0 a random seed, as the kernel does
 * per module load (rds_gen_num).
 * Return: 0 and *out set; RDSU_ERR_INVAL (a transport not built, a bad
 * transport configuration, RDSU_IO_IB without |ib|); an rdsu_err from
 * rdsu_ep_new; a negative errno (-EADDRINUSE: something, perhaps the
 * kernel's rds_tcp or rds_rdma, already listens on the port;
 * -EADDRNOTAVAIL: the address is not on this host, or with IB on no RDMA
 * device; -ENODEV: IB found no RDMA device at all).
 */
RDSU_API int rdsu_io_new(struct rdsu_io **out, const struct rdsu_ep_cfg *ep_cfg,
			 const struct rdsu_io_cfg *cfg);
/*
 * rdsu_io_strerror() - rdsu_strerror(|err|), but for -EADDRINUSE from
 * rdsu_io_new() with the transports |transports| (RDSU_IO_* bits, 0 =
 * TCP) the reason and what to do: the kernel's rds_tcp or rds_rdma, when
 * loaded, holds the RDS ports of every address. Static text.
 */
RDSU_API const char *rdsu_io_strerror(int err, unsigned transports);
/* rdsu_io_free() - close every descriptor (no RST, no drain) and free the
 * endpoint with everything on it. NULL is a no-op. */
RDSU_API void rdsu_io_free(struct rdsu_io *io);

/* rdsu_io_ep() - the endpoint: sockets, events and monitor calls. */
RDSU_API struct rdsu_ep *rdsu_io_ep(struct rdsu_io *io);

/* rdsu_io_fd() - the descriptor to poll for POLLIN; when it is readable,
 * call rdsu_io_run(io, 0). */
RDSU_API int rdsu_io_fd(const struct rdsu_io *io);

/*
 * rdsu_io_run() - one round of the loop: carry out what the core asked
 * for, wait up to |timeout_ms| (-1: until something happens) for activity
 * or a due timer, hand readiness to the transports, run the core's timers,
 * and again carry out what that caused. Application events stay queued
 * for rdsu_ep_next_event(). A transport may wait on its one likely source
 * instead of the epoll set (TCP: rdsu_tcp_run). rdsu_io_run(io, 0) never
 * waits.
 * Return: number of descriptors that had activity (>= 0); -EINTR when a
 * signal interrupted the wait; another negative errno only for a failure
 * of the epoll set itself.
 */
RDSU_API int rdsu_io_run(struct rdsu_io *io, int timeout_ms);

/*
 * rdsu_io_flush() - write what the core has queued, now, without waiting
 * or looking at any other descriptor: the cheap call after a batch of
 * rdsu_sock_submit().
 * Return: 0; RDSU_ERR_INVAL for a NULL |io|.
 */
RDSU_API int rdsu_io_flush(struct rdsu_io *io);

/*
 * rdsu_io_wait() - run the loop until rdsu_sock_poll(|s|) has a bit of
 * |mask| or |deadline| (rdsu_clock() time, RDSU_NS_NEVER for none) passes.
 * Return: the bits of |mask| that are set (> 0); 0 at the deadline;
 * -EINTR; a negative errno as rdsu_io_run.
 */
RDSU_API int rdsu_io_wait(struct rdsu_io *io, struct rdsu_sock *s, unsigned mask,
			  rdsu_ns deadline);

/*
 * rdsu_io_monitor() - publish the endpoint's monitor state (the read-only
 * calls of rdsu.h: counters, connections with their paths and congestion
 * maps, the local maps, sockets) on a local Unix stream socket, for
 * rdstop --librds (docs/librds.md, "Monitor socket"). It costs nothing
 * until a watcher connects and asks: a snapshot is made on request, in
 * the thread that runs the loop, so the loop must run (rdsu_io_run) for
 * a watcher to be answered. At most 8 watchers; a snapshot is at most
 * 64 MiB. |path| NULL: the default, <dir>/<pid>.sock (<pid>-<n>.sock for
 * a process's further endpoints), where <dir> is $RDSU_MONITOR_DIR, else
 * $XDG_RUNTIME_DIR/rdsu, else /run/rdsu for root and /tmp/rdsu-<uid> for
 * others; the socket file is mode 0600 and removed by rdsu_io_free().
 * With RDSU_MONITOR=0 in the environment nothing is published (and 0 is
 * returned); with RDSU_MONITOR set to anything else, rdsu_io_new()
 * publishes at the default path by itself.
 * Return: 0; -EALREADY (published already); RDSU_ERR_INVAL; RDSU_ERR_NOMEM;
 * a negative errno (the directory could not be made, -EADDRINUSE: a live
 * process serves |path|, -ENAMETOOLONG).
 */
RDSU_API int rdsu_io_monitor(struct rdsu_io *io, const char *path);
/* rdsu_io_monitor_path() - where |io| publishes; NULL if it does not. */
RDSU_API const char *rdsu_io_monitor_path(const struct rdsu_io *io);
/* rdsu_io_monitor_dir() - the directory of the default paths, as this
 * process's environment names it (for a watcher; nothing is created).
 * Return: 0; RDSU_ERR_INVAL; -ENAMETOOLONG. */
RDSU_API int rdsu_io_monitor_dir(char *buf, size_t len);

/* rdsu_io_tcp() - the TCP transport (rdsu_tcp_get_stats), NULL if |io|
 * runs without it. */
RDSU_API struct rdsu_tcp *rdsu_io_tcp(struct rdsu_io *io);

#ifdef __cplusplus
}
#endif

#endif /* RDS_RDSU_IO_H */
