/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * loop.h - the event loop inside struct rdsu_io (loop.c), as its
 * transports see it: one epoll set for every descriptor, one timerfd, and
 * the core's link requests handed to the transport that owns each link.
 */
#ifndef RDSU_IO_LOOP_H
#define RDSU_IO_LOOP_H

#include "transport.h"

#include <sys/types.h>

#define RDSU_IO_MAX_TRANSPORTS 3

/* Bytes read from links per round, over every transport. A round that
 * read every ready link dry (16 x 256 KiB each) queued megabytes on the
 * sockets before the application could read any: their RCVBUF overflowed,
 * the ports went congested and back, and a map went to every path each
 * time. Unread links stay ready (epoll is level-triggered) for the next
 * round. */
#define RDSU_READ_BUDGET (512 * 1024)

struct rdsu_io {
	struct rdsu_ep *ep;
	int epfd, timerfd;
	struct rdsu_src timer;
	rdsu_ns timer_armed;
	rdsu_ns swept;                /* last epoll round */
	ssize_t rd_budget;            /* RDSU_READ_BUDGET, per round */
	struct rdsu_transport *tr[RDSU_IO_MAX_TRANSPORTS];
	unsigned n_tr;
	struct rdsu_tcp *tcp;
	uint64_t runs, sleeps;        /* rdsu_tcp_stats runs, sleeps */
	struct rdsu_mon *mon;         /* the monitor socket (mon.c), NULL if none */
	/* A transport without descriptors (the loopback) delivered during
	 * this round's requests: a socket may be ready, so the round must
	 * not sleep. */
	bool worked;
	struct rdsu_addr laddrs[RDSU_MAX_LADDRS];  /* for their local maps */
	unsigned n_laddrs;
};

/* Register, change (|op| EPOLL_CTL_ADD/MOD) the interest of |s|.
 * Return: 0; a negative errno. */
int rdsu_loop_watch(struct rdsu_io *io, struct rdsu_src *s, uint32_t events, int op);
/* Take |s| out of the epoll set (its descriptor stays open). */
void rdsu_loop_unwatch(struct rdsu_io *io, struct rdsu_src *s);
/* Carry out every link request the core has queued. A transport calls it
 * where the core may have queued a close it must honour before going on. */
void rdsu_loop_requests(struct rdsu_io *io, rdsu_ns now);
/* Arm the timerfd for the next due time, so rdsu_io_fd() alone tells an
 * application's loop when to run. */
void rdsu_loop_arm(struct rdsu_io *io, rdsu_ns now);

/* The TCP transport (tcp.c). Return: 0; RDSU_ERR_INVAL; RDSU_ERR_NOMEM. */
int rdsu_tcp_create(struct rdsu_tcp **out, const struct rdsu_tcp_cfg *cfg);
/* Bind a created transport to |io|, whose endpoint exists. */
void rdsu_tcp_bind_io(struct rdsu_tcp *t, struct rdsu_io *io, uint64_t seed);
struct rdsu_transport *rdsu_tcp_transport(struct rdsu_tcp *t);

/* The loopback transport (lo.c), which every loop runs, as the kernel
 * always has rds_loop_transport. Return: 0; RDSU_ERR_NOMEM. */
int rdsu_lo_create(struct rdsu_io *io, struct rdsu_transport **out);

#endif /* RDSU_IO_LOOP_H */
