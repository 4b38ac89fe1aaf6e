/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * preload.h - what the rooms of librds-preload.so share: AF_RDS sockets
 * for unmodified programs, backed by librds, loaded with LD_PRELOAD
 * (rdsrun). docs/architecture.md "The preload shim" has the design,
 * docs/shim.md what differs from the kernel, shim/README.md which file
 * holds which call.
 *
 * Every AF_RDS socket is one end (|a|) of an AF_UNIX stream socketpair;
 * the shim keeps the other end (|b|) and drives |a|'s readiness: one byte
 * waits in |a| while the RDS socket is readable, and |a|'s (minimal) send
 * buffer is kept full while SNDBUF is. poll, select and epoll then see the
 * RDS socket's state on a real descriptor. A blocking call waits in a
 * blocking read of an eventfd of its own (struct rdsp_waiter), woken when
 * the socket's state changes or its deadline passes: that read is
 * restarted by the kernel after a handler with SA_RESTART and fails with
 * EINTR after one without, as the kernel's rds_recvmsg and rds_sendmsg
 * waits (-ERESTARTSYS) are.
 *
 * One librds endpoint per process, created by the first bind, run by one
 * thread of the shim; all librds state is under one mutex. The descriptor
 * table is read without the mutex, so calls on other descriptors (also
 * librds's own calls on its TCP sockets, which come back through these
 * wrappers) pass through without taking it.
 */
#ifndef RDSTK_SHIM_PRELOAD_H
#define RDSTK_SHIM_PRELOAD_H

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/rds.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <stddef.h>
#include <alloca.h>
#include <stdio.h>

#include <rds/rdsu_io.h>
#include <rds/rdsu_tcp.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <dirent.h>

#include "rdsd_proto.h"
#include "rdsd_ring.h"
#include "rdscmsg.h"
#include "rdsep.h"
#include "rdsopt.h"

#ifndef SO_RCVTIMEO_NEW
#define SO_RCVTIMEO_NEW 66
#define SO_SNDTIMEO_NEW 67
#endif
#ifndef SO_RCVTIMEO_OLD
#define SO_RCVTIMEO_OLD 20
#define SO_SNDTIMEO_OLD 21
#endif

#define RDSP_EXPORT __attribute__((visibility("default")))
#define RDSP_MAX_MSG (1u << 20)      /* RDS_MAX_MSG_SIZE */
#define RDSP_POLL_MAX 4096          /* poll sets larger than this are not looked at */
#define RDSP_EDGES 64                /* readable bytes |a| holds at most */
#define RDSP_COALESCE (20 * 1000ull) /* ns: sends closer than this are batched */

/* One blocking call waiting on a socket (preload_poll.c wait_sock). */
struct rdsp_waiter {
	int efd;                     /* eventfd the call blocks reading */
	short ev;                    /* POLLIN, POLLOUT, or 0: any change */
	bool woken;
	int64_t deadline;            /* now_ms() clock; -1: none */
	struct rdsp_waiter *next;
};

/* One epoll registration of a per-process socket (preload_poll.c). */
struct rdsp_epreg {
	int epfd, fd;
	struct epoll_event ev;       /* as asked of the stand-in */
	struct rdsp_epreg *next;
};

struct rdsp_sock {
	int a, b;                    /* the application's end, the shim's end */
	unsigned fds;                /* application descriptors naming it (dup) */
	unsigned busy;               /* calls under way (they may wait unlocked) */
	bool closed;                 /* the last descriptor was closed */
	struct rdsu_sock *us;        /* NULL until bound */
	bool connected;
	struct rdsu_addr conn_addr;
	uint16_t conn_port;
	struct rdsopt opt;
	/* SO_SNDBUF/SO_RCVBUF set by the application: librds keeps such a
	 * value as the kernel does; one never set grows with use. */
	bool sndbuf_set, rcvbuf_set;
	uint8_t tos;
	bool sent;                   /* a message left: TOS is fixed */
	bool in_token;               /* the readable byte waits in |a| */
	bool rx_edge;                /* something came to read since the last sync */
	unsigned tokens;             /* bytes waiting in |a| (one an edge, RDSP_EDGES at most) */
	bool out_full;               /* |a|'s send buffer is kept full */
	bool once_in;                /* a map update's one-shot POLLIN, until polled or read */
	struct rdsp_waiter *waiters; /* blocking calls waiting on it */
	int sk_err;                  /* recvmmsg's error kept for the next one */
	/* Backed by rdsd (rdsd_proto.h): the descriptor is the connection
	 * to it; requests are answered on this process's channel. */
	bool dm;
	int chan;                    /* our end of the reply channel, or -1 */
	uint32_t chan_id, seq;
	pthread_mutex_t dlock;       /* one request at a time per process */
	/* Sends to |ok|'s destination within |credit| bytes are not waited
	 * for (RDSD_SEND_NOREPLY, rdsd_proto.h). */
	uint32_t credit;
	/* zero-copy notices of this process's sends (rdsd copies what it
	 * is sent, so a send's buffer is free when the send returns) */
	struct rdsu_zcq zq;
	bool ok_valid;
	struct rdsd_req ok;
	/* closed because its descriptors now name an rdsd socket (the
	 * process's presence moved, preload_share.c): a call waiting on it
	 * starts again on what the descriptor names */
	bool moved;
	/* the epoll sets holding it (epoll_ctl), registered again on the
	 * descriptor when it moves */
	struct rdsp_epreg *eps;
	/* The send ring rdsd made for this process (rdsd_ring.h): sends not
	 * waited for go there (dm_ring_put); without one, or when it is
	 * full, over the connection. */
	bool ring_tried;
	void *ring_mem;
	size_t ring_len;
	int ring_efd;
	struct rdsd_ring_prod ring;
	struct rdsp_sock *next;
};

/* wait_sock_locked's answer to a call whose socket moved to rdsd while it
 * waited: the call is made again on the descriptor (never an errno the
 * program sees). */
#define RDSP_MOVED (-ERESTART)

/* The real calls, resolved past this library (preload_socket.c). */
extern int (*real_socket)(int, int, int);
extern int (*real_bind)(int, const struct sockaddr *, socklen_t);
extern int (*real_connect)(int, const struct sockaddr *, socklen_t);
extern ssize_t (*real_sendto)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);
extern ssize_t (*real_sendmsg)(int, const struct msghdr *, int);
extern ssize_t (*real_send)(int, const void *, size_t, int);
extern ssize_t (*real_recvfrom)(int, void *, size_t, int, struct sockaddr *, socklen_t *);
extern ssize_t (*real_recvmsg)(int, struct msghdr *, int);
extern ssize_t (*real_recv)(int, void *, size_t, int);
extern ssize_t (*real_read)(int, void *, size_t);
extern ssize_t (*real_write)(int, const void *, size_t);
extern ssize_t (*real_readv)(int, const struct iovec *, int);
extern ssize_t (*real_writev)(int, const struct iovec *, int);
extern int (*real_sendmmsg)(int, struct mmsghdr *, unsigned int, int);
extern int (*real_recvmmsg)(int, struct mmsghdr *, unsigned int, int, struct timespec *);
extern int (*real_poll)(struct pollfd *, nfds_t, int);
extern int (*real_ppoll)(struct pollfd *, nfds_t, const struct timespec *, const sigset_t *);
extern int (*real_select)(int, fd_set *, fd_set *, fd_set *, struct timeval *);
extern int (*real_pselect)(int, fd_set *, fd_set *, fd_set *, const struct timespec *,
			   const sigset_t *);
extern int (*real_getsockname)(int, struct sockaddr *, socklen_t *);
extern int (*real_getpeername)(int, struct sockaddr *, socklen_t *);
extern int (*real_setsockopt)(int, int, int, const void *, socklen_t);
extern int (*real_getsockopt)(int, int, int, void *, socklen_t *);
extern int (*real_close)(int);
extern int (*real_dup)(int);
extern int (*real_dup2)(int, int);
extern int (*real_dup3)(int, int, int);
extern int (*real_fcntl)(int, int, ...);
extern int (*real_fcntl64)(int, int, ...);
extern int (*real_ioctl)(int, unsigned long, ...);
extern int (*real_listen)(int, int);
extern int (*real_accept)(int, struct sockaddr *, socklen_t *);
extern int (*real_accept4)(int, struct sockaddr *, socklen_t *, int);
extern int (*real_shutdown)(int, int);
extern pid_t (*real_fork)(void);
extern int (*real_execve)(const char *, char *const[], char *const[]);
extern int (*real_execvpe)(const char *, char *const[], char *const[]);
extern int (*real_fexecve)(int, char *const[], char *const[]);
extern int (*real_epoll_ctl)(int, int, int, struct epoll_event *);

#define REAL(f) (real_##f ? real_##f : (*(void **)&real_##f = dlsym(RTLD_NEXT, #f), real_##f))

/* RDSP_VA_ARG() - the one optional argument of fcntl, fcntl64 or ioctl
 * (after |last|) into |out|, read as a pointer and passed on to the real
 * call as one: an int or a pointer, whichever the command takes. */
#define RDSP_VA_ARG(last, out)                                                                     \
	do {                                                                                       \
		va_list ap_;                                                                       \
		va_start(ap_, last);                                                               \
		(out) = va_arg(ap_, void *);                                                       \
		va_end(ap_);                                                                       \
	} while (0)

/* The per-process endpoint (preload_endpoint.c): g_lock guards every
 * socket and all librds state; g_socks lists every socket of the process. */
extern pthread_mutex_t g_lock;
extern struct rdsu_io *g_io;
extern bool g_rdma;
extern struct rdsp_sock *g_socks;
extern bool g_child;

/* rdsd's modes (RDSRUN_DAEMON, preload_rdsd.c dm_mode) */
enum { DM_OFF, DM_AUTO, DM_SPAWN };

/* preload_socket.c */
int set_errno(int neg);
struct rdsp_sock *get_locked(int fd);
void release_sock_locked(struct rdsp_sock *s);
void put_locked(struct rdsp_sock *s);

/* preload_fd.c */
struct rdsp_sock *fd_peek(int fd);
int fd_set_locked(int fd, struct rdsp_sock *s);
int fd_names_locked(const struct rdsp_sock *s, int *out, int cap);

/* preload_endpoint.c */
void pump_locked(void);
void flush_locked(void);
void send_flush_locked(void);
int endpoint_locked(const struct rdsu_addr *addr);
int move_to_rdsd(void);
void tell_addr_in_use(const struct rdsu_addr *addr);
extern _Atomic unsigned g_moves;
extern int g_move_efd;
extern __thread bool t_in_move;

/* preload_share.c */
int share_listen(const struct rdsu_addr *addr);
bool share_answer(int lfd);
int share_addr_taken(const struct rdsu_addr *addr);
int share_ask(const struct rdsu_addr *addr);
int share_second_addr(const struct rdsu_addr *addr);
void share_before_rights(const struct msghdr *mh);

/* preload_poll.c */
void sync_sock(struct rdsp_sock *s);
bool nonblocking(const struct rdsp_sock *s, int flags);
int timeo_ms(const struct rdsp_sock *s, int opt);
int64_t now_ms(void);
/* CLOCK_MONOTONIC: the time |ts| from now; what is left until |end|, zero
 * once it has passed (the timeouts of ppoll, pselect and recvmmsg). */
struct timespec mono_after(const struct timespec *ts);
struct timespec mono_left(const struct timespec *end);
int wait_sock_locked(struct rdsp_sock *s, short ev, int64_t deadline);
void wake_all_locked(struct rdsp_sock *s);
int zc_take_locked(struct rdsp_sock *s, struct rdsu_zc_notice *out);
void epreg_move_locked(struct rdsp_sock *from);
void epreg_free_locked(struct rdsp_sock *s);

/* preload_bind.c */
int addr_in(const struct sockaddr *sa, socklen_t len, struct rdsu_addr *a, uint16_t *port);
void addr_out(const struct sockaddr_storage *ss, socklen_t klen, void *uaddr,
	      socklen_t *ulen);
void dm_put_addr(struct rdsd_req *q, const struct rdsu_addr *a, uint16_t port);
int dm_notconn_or(struct rdsp_sock *s, int fd, bool named, int e);

/* preload_sockopt.c */
int dm_transport(struct rdsp_sock *s, int fd);
void us_buf(struct rdsu_sock *us, int fd, bool snd, rdsu_ns now);

/* preload_rdsd.c */
void dm_enter(struct rdsp_sock *s);
void dm_leave(struct rdsp_sock *s);
int dm_mode(void);
int dm_connect(int mode, int type);
socklen_t dm_sun_named(struct sockaddr_un *sun, const char *suffix);
struct rdsp_sock *dm_new(int fd);
void dm_adopt(int fd);
void dm_adopt_inherited(void);
int dm_write(int fd, const struct msghdr *mh);
int dm_chan(struct rdsp_sock *s, int fd);
int dm_ring_put(struct rdsp_sock *s, int fd, const struct rdsd_req *q, const struct msghdr *mh,
		size_t total);
void dm_ring_drop(struct rdsp_sock *s);
int dm_call(struct rdsp_sock *s, int fd, struct rdsd_req *q, const struct iovec *pl,
	    int npl, void *out, size_t *outlen, uint32_t *optlen);

#endif
