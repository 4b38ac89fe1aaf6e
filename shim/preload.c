// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * preload.c - librds-preload.so: AF_RDS sockets for unmodified programs,
 * backed by librds, loaded with LD_PRELOAD (rdsrun). docs/architecture.md
 * "The preload shim" has the design, docs/shim.md what differs from the
 * kernel.
 *
 * Every AF_RDS socket is one end (|a|) of an AF_UNIX stream socketpair;
 * the shim keeps the other end (|b|) and drives |a|'s readiness: one byte
 * waits in |a| while the RDS socket is readable, and |a|'s (minimal) send
 * buffer is kept full while SNDBUF is. poll, select and epoll then see the
 * RDS socket's state on a real descriptor without being interposed, and
 * blocking calls block in poll() on |a|, so signals and timeouts are the
 * kernel's own.
 *
 * One librds endpoint per process, created by the first bind, run by one
 * thread of the shim; all librds state is under one mutex. The descriptor
 * table is read without the mutex, so calls on other descriptors (also
 * librds's own calls on its TCP sockets, which come back through these
 * wrappers) pass through without taking it.
 */
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
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <stddef.h>
#include <stdio.h>

#include <rds/rdsu_tcp.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <dirent.h>

#include "rdsd_proto.h"
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
#define RDSP_COALESCE (20 * 1000ull) /* ns: sends closer than this are batched */

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
	bool out_full;               /* |a|'s send buffer is kept full */
	bool once_in;                /* a map update's one-shot POLLIN, until read */
	/* Backed by rdsd (rdsd_proto.h): the descriptor is the connection
	 * to it; requests are answered on this process's channel. */
	bool dm;
	int chan;                    /* our end of the reply channel, or -1 */
	uint32_t chan_id, seq;
	pthread_mutex_t dlock;       /* one request at a time per process */
	/* Sends to |ok|'s destination within |credit| bytes are not waited
	 * for (RDSD_SEND_NOREPLY, rdsd_proto.h). */
	uint32_t credit;
	bool ok_valid;
	struct rdsd_req ok;
	struct rdsp_sock *next;
};

/* The real calls, resolved past this library. */
static int (*real_socket)(int, int, int);
static int (*real_bind)(int, const struct sockaddr *, socklen_t);
static int (*real_connect)(int, const struct sockaddr *, socklen_t);
static ssize_t (*real_sendto)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);
static ssize_t (*real_sendmsg)(int, const struct msghdr *, int);
static ssize_t (*real_send)(int, const void *, size_t, int);
static ssize_t (*real_recvfrom)(int, void *, size_t, int, struct sockaddr *, socklen_t *);
static ssize_t (*real_recvmsg)(int, struct msghdr *, int);
static ssize_t (*real_recv)(int, void *, size_t, int);
static ssize_t (*real_read)(int, void *, size_t);
static ssize_t (*real_write)(int, const void *, size_t);
static int (*real_getsockname)(int, struct sockaddr *, socklen_t *);
static int (*real_getpeername)(int, struct sockaddr *, socklen_t *);
static int (*real_setsockopt)(int, int, int, const void *, socklen_t);
static int (*real_getsockopt)(int, int, int, void *, socklen_t *);
static int (*real_close)(int);
static int (*real_dup)(int);
static int (*real_dup2)(int, int);
static int (*real_dup3)(int, int, int);
static int (*real_fcntl)(int, int, ...);
static int (*real_fcntl64)(int, int, ...);
static int (*real_ioctl)(int, unsigned long, ...);
static int (*real_listen)(int, int);
static int (*real_accept)(int, struct sockaddr *, socklen_t *);
static int (*real_accept4)(int, struct sockaddr *, socklen_t *, int);
static int (*real_shutdown)(int, int);

#define REAL(f) (real_##f ? real_##f : (*(void **)&real_##f = dlsym(RTLD_NEXT, #f), real_##f))

static void dm_adopt_inherited(void);

__attribute__((constructor)) static void rdsp_init(void)
{
	(void)REAL(socket); (void)REAL(bind); (void)REAL(connect); (void)REAL(sendto);
	(void)REAL(sendmsg); (void)REAL(send); (void)REAL(recvfrom); (void)REAL(recvmsg);
	(void)REAL(recv); (void)REAL(read); (void)REAL(write); (void)REAL(getsockname);
	(void)REAL(getpeername); (void)REAL(setsockopt); (void)REAL(getsockopt);
	(void)REAL(close); (void)REAL(dup); (void)REAL(dup2); (void)REAL(dup3);
	(void)REAL(fcntl); (void)REAL(fcntl64); (void)REAL(ioctl); (void)REAL(listen);
	(void)REAL(accept); (void)REAL(accept4); (void)REAL(shutdown);
	dm_adopt_inherited();
}

/* ------------------------------------------------------------------------
 * Descriptor table: written under g_lock, read without it
 */

#define RDSP_CHUNK 1024
#define RDSP_CHUNKS 1024

static _Atomic(struct rdsp_sock *) *_Atomic g_fdtab[RDSP_CHUNKS];

static struct rdsp_sock *fd_peek(int fd)
{
	_Atomic(struct rdsp_sock *) *chunk;

	if (fd < 0 || fd >= RDSP_CHUNK * RDSP_CHUNKS)
		return NULL;
	chunk = atomic_load_explicit(&g_fdtab[fd / RDSP_CHUNK], memory_order_acquire);
	if (!chunk)
		return NULL;
	return atomic_load_explicit(&chunk[fd % RDSP_CHUNK], memory_order_acquire);
}

/* Return: 0; -EMFILE beyond the table; -ENOMEM. */
static int fd_set_locked(int fd, struct rdsp_sock *s)
{
	_Atomic(struct rdsp_sock *) *chunk;

	if (fd < 0 || fd >= RDSP_CHUNK * RDSP_CHUNKS)
		return -EMFILE;
	chunk = atomic_load_explicit(&g_fdtab[fd / RDSP_CHUNK], memory_order_acquire);
	if (!chunk) {
		if (!s)
			return 0;
		chunk = calloc(RDSP_CHUNK, sizeof(*chunk));
		if (!chunk)
			return -ENOMEM;
		atomic_store_explicit(&g_fdtab[fd / RDSP_CHUNK], chunk, memory_order_release);
	}
	atomic_store_explicit(&chunk[fd % RDSP_CHUNK], s, memory_order_release);
	return 0;
}

/* ------------------------------------------------------------------------
 * The endpoint and its thread
 */

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rdsu_tcp *g_tcp;
static struct rdsu_addr g_laddr;
static struct rdsp_sock *g_socks;
static bool g_kernel_absent;
static bool g_child;             /* a fork's child: the endpoint is the parent's */

static int set_errno(int neg)
{
	errno = -neg;
	return -1;
}

/* Make |a| tell what the RDS socket's state is (see the header comment). */
static void sync_sock(struct rdsp_sock *s)
{
	unsigned m;
	static char junk[4096];
	bool in;

	if (s->dm)
		return;
	m = s->us ? rdsu_sock_poll(s->us) : RDSU_POLLOUT;

	if (!s->opt.cong_monitor && (m & RDSU_POLLWRBAND))
		s->once_in = true;
	in = (m & RDSU_POLLIN) || s->once_in;
	if (in && !s->in_token) {
		if (REAL(send)(s->b, "r", 1, MSG_DONTWAIT | MSG_NOSIGNAL) == 1)
			s->in_token = true;
	} else if (!in && s->in_token) {
		char c;

		if (REAL(recv)(s->a, &c, 1, MSG_DONTWAIT) == 1)
			s->in_token = false;
	}
	if (!(m & RDSU_POLLOUT) && !s->out_full) {
		while (REAL(send)(s->a, junk, sizeof(junk), MSG_DONTWAIT | MSG_NOSIGNAL) > 0)
			;
		s->out_full = true;
	} else if ((m & RDSU_POLLOUT) && s->out_full) {
		while (REAL(recv)(s->b, junk, sizeof(junk), MSG_DONTWAIT) > 0)
			;
		s->out_full = false;
	}
}

/* Carry out what librds has to do now and update every socket's state. */
static void pump_locked(void)
{
	struct rdsu_event ev;

	if (!g_tcp)
		return;
	(void)rdsu_tcp_run(g_tcp, 0);
	while (rdsu_ep_next_event(rdsu_tcp_ep(g_tcp), &ev) == 1)
		;
	for (struct rdsp_sock *s = g_socks; s; s = s->next)
		sync_sock(s);
}

/* Carry out what the application's call made the core queue (a message,
 * a congestion map after a read freed the port), without the run's poll. */
static void flush_locked(void)
{
	struct rdsu_event ev;

	if (!g_tcp)
		return;
	(void)rdsu_tcp_flush(g_tcp);
	while (rdsu_ep_next_event(rdsu_tcp_ep(g_tcp), &ev) == 1)
		;
	for (struct rdsp_sock *s = g_socks; s; s = s->next)
		sync_sock(s);
}

/*
 * A send's flush is a TCP write per message, where librds in the
 * application's own loop writes a burst at once. A send soon after the
 * last flush (within RDSP_COALESCE) leaves its message queued and wakes
 * the thread, which flushes whatever has been queued by the time it has
 * the lock: a stream's messages leave in batches, while a send after a
 * pause (a request, a reply) still leaves at once.
 */
static int g_kick = -1;          /* eventfd: a deferred flush is wanted */
static bool g_flush_pending;
static rdsu_ns g_last_flush;

static void send_flush_locked(void)
{
	rdsu_ns now = rdsu_clock();

	if (g_kick >= 0 && now - g_last_flush < RDSP_COALESCE) {
		if (!g_flush_pending) {
			uint64_t one = 1;

			g_flush_pending = true;
			if (REAL(write)(g_kick, &one, sizeof(one)) != sizeof(one))
				g_flush_pending = false;
		}
		if (g_flush_pending)
			return;
	}
	g_last_flush = now;
	flush_locked();
}

static void *io_thread(void *arg)
{
	struct pollfd pfd[2] = { { .fd = rdsu_tcp_fd(g_tcp), .events = POLLIN },
				 { .fd = g_kick, .events = POLLIN } };

	(void)arg;
	for (;;) {
		if (poll(pfd, g_kick >= 0 ? 2 : 1, -1) < 0 && errno != EINTR)
			break;
		if (pfd[1].revents & POLLIN) {
			uint64_t n;

			(void)REAL(read)(g_kick, &n, sizeof(n));
		}
		pthread_mutex_lock(&g_lock);
		if (g_flush_pending) {
			g_flush_pending = false;
			g_last_flush = rdsu_clock();
			flush_locked();
		}
		pump_locked();
		pthread_mutex_unlock(&g_lock);
	}
	return NULL;
}

static void atfork_prepare(void)
{
	pthread_mutex_lock(&g_lock);
}

static void atfork_parent(void)
{
	pthread_mutex_unlock(&g_lock);
}

static void atfork_child(void)
{
	g_child = true;
	/* rdsd's sockets are shared with the parent, as the kernel's are;
	 * the replies to this process need a channel of its own. */
	for (struct rdsp_sock *s = g_socks; s; s = s->next)
		if (s->dm) {
			if (s->chan >= 0)
				REAL(close)(s->chan);
			s->chan = -1;
			s->credit = 0;
			s->ok_valid = false;
			pthread_mutex_init(&s->dlock, NULL);
		}
	pthread_mutex_unlock(&g_lock);
}

/* The endpoint on |addr|, made by the first bind of the process.
 * Return: 0; -EADDRNOTAVAIL for another address or one not on this host;
 * what rdsu_tcp_new and pthread_create fail with. */
static int endpoint_locked(const struct rdsu_addr *addr)
{
	struct rdsu_ep_cfg cfg;
	struct rdsu_tcp_cfg tcfg;
	sigset_t all, old;
	pthread_t th;
	int e;

	if (g_tcp)
		return memcmp(addr, &g_laddr, sizeof(*addr)) ? -EADDRNOTAVAIL : 0;
	rdsu_ep_cfg_default(&cfg);
	cfg.laddrs[0] = *addr;
	cfg.n_laddrs = 1;
	rdsu_tcp_cfg_default(&tcfg);
	tcfg.ring_wait = false;  /* the thread polls rdsu_tcp_fd() */
	e = rdsu_tcp_new(&g_tcp, &cfg, &tcfg);
	if (e < 0) {
		g_tcp = NULL;
		return e == -EADDRNOTAVAIL || e == -EADDRINUSE || e == -ENOMEM ? e
		       : -EADDRNOTAVAIL;
	}
	g_laddr = *addr;
	g_kick = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	/* Signals stay with the application's threads. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	e = pthread_create(&th, NULL, io_thread, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e) {
		rdsu_tcp_free(g_tcp);
		g_tcp = NULL;
		if (g_kick >= 0)
			REAL(close)(g_kick);
		g_kick = -1;
		return -e;
	}
	pthread_detach(th);
	static bool atfork_done;
	if (!atfork_done) {
		pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
		atfork_done = true;
	}
	return 0;
}

/* The RDS socket of |fd|, held (busy) and with g_lock taken, or NULL
 * for a descriptor that is not one. */
static struct rdsp_sock *get_locked(int fd)
{
	struct rdsp_sock *s;

	if (!fd_peek(fd))
		return NULL;
	pthread_mutex_lock(&g_lock);
	s = fd_peek(fd);
	if (!s) {
		pthread_mutex_unlock(&g_lock);
		return NULL;
	}
	s->busy++;
	return s;
}

static void release_sock_locked(struct rdsp_sock *s)
{
	struct rdsp_sock **pp;

	for (pp = &g_socks; *pp; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	if (s->us && !g_child) {
		rdsu_sock_free(s->us, rdsu_clock());
		s->us = NULL;
		/* Its port's congestion bit may have been cleared: tell the peers. */
		flush_locked();
	}
	if (s->b >= 0)
		REAL(close)(s->b);
	if (s->dm && s->chan >= 0)
		REAL(close)(s->chan);
	s->chan = -1;
	s->closed = true;
}

static void put_locked(struct rdsp_sock *s)
{
	if (--s->busy == 0 && s->closed && s->fds == 0)
		free(s);
	pthread_mutex_unlock(&g_lock);
}

/* Drop |fd|'s name for its socket (close, or dup2 over it). */
static void forget_fd_locked(int fd)
{
	struct rdsp_sock *s = fd_peek(fd);

	if (!s)
		return;
	(void)fd_set_locked(fd, NULL);
	if (--s->fds == 0) {
		release_sock_locked(s);
		if (s->busy == 0)
			free(s);
	}
}

static bool nonblocking(const struct rdsp_sock *s, int flags)
{
	int fl;

	if (flags & MSG_DONTWAIT)
		return true;
	fl = REAL(fcntl)(s->a, F_GETFL);
	return fl >= 0 && (fl & O_NONBLOCK);
}

/* SO_RCVTIMEO/SO_SNDTIMEO as the shim's end keeps them: ms, -1 for none. */
static int timeo_ms(const struct rdsp_sock *s, int opt)
{
	struct timeval tv = { 0 };
	socklen_t len = sizeof(tv);

	if (REAL(getsockopt)(s->b, SOL_SOCKET, opt, &tv, &len) < 0 ||
	    (tv.tv_sec == 0 && tv.tv_usec == 0))
		return -1;
	if (tv.tv_sec > INT_MAX / 1000 - 1)
		return INT_MAX;
	return (int)(tv.tv_sec * 1000 + (tv.tv_usec + 999) / 1000);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait, unlocked, for |ev| on |a|: 0 when it came, -ETIMEDOUT past
 * |deadline| (-1: none), -EINTR. */
static int wait_a(int a, short ev, int64_t deadline)
{
	struct pollfd pfd = { .fd = a, .events = ev };
	int ms = -1, n;

	if (deadline >= 0) {
		int64_t left = deadline - now_ms();

		if (left <= 0)
			return -ETIMEDOUT;
		ms = left > INT_MAX ? INT_MAX : (int)left;
	}
	n = poll(&pfd, 1, ms);
	if (n < 0)
		return -errno;
	if (n == 0 && deadline >= 0 && now_ms() >= deadline)
		return -ETIMEDOUT;
	return 0;
}

/* ------------------------------------------------------------------------
 * Addresses
 */

/* An RDS destination or bind address from a sockaddr, as rds_bind and
 * rds_sendmsg read it. Return: 0; -EINVAL. */
static int addr_in(const struct sockaddr *sa, socklen_t len, struct rdsu_addr *a, uint16_t *port)
{
	if (!sa || len < (socklen_t)sizeof(sa_family_t))
		return -EINVAL;
	if (sa->sa_family == AF_INET) {
		struct sockaddr_in sin;
		uint32_t h;

		if (len < (socklen_t)sizeof(sin))
			return -EINVAL;
		memcpy(&sin, sa, sizeof(sin));
		h = ntohl(sin.sin_addr.s_addr);
		if (h == INADDR_ANY || h == INADDR_BROADCAST || IN_MULTICAST(h))
			return -EINVAL;
		*a = rdsu_addr_v4(h);
		*port = ntohs(sin.sin_port);
		return 0;
	}
	if (sa->sa_family == AF_INET6) {
		struct sockaddr_in6 sin6;

		if (len < (socklen_t)sizeof(sin6))
			return -EINVAL;
		memcpy(&sin6, sa, sizeof(sin6));
		static const uint8_t zero[16];

		memcpy(a->a, &sin6.sin6_addr, 16);
		if (!memcmp(a->a, zero, 16) || a->a[0] == 0xff)
			return -EINVAL;   /* unspecified, multicast */
		if (a->a[0] == 0xfe && (a->a[1] & 0xc0) == 0x80 && !sin6.sin6_scope_id)
			return -EINVAL;   /* link-local needs its scope */
		*port = ntohs(sin6.sin6_port);
		return 0;
	}
	return -EINVAL;
}

/* Copy |ss| (length |klen|) out as the kernel's move_addr_to_user does:
 * at most the caller's length, and the full length reported. */
static void addr_out(const struct sockaddr_storage *ss, socklen_t klen, void *uaddr,
		     socklen_t *ulen)
{
	if (!uaddr || !ulen)
		return;
	memcpy(uaddr, ss, *ulen < klen ? *ulen : klen);
	*ulen = klen;
}

/* rds_notify_cong's message: no address, the congestion mask as one
 * RDS_CMSG_CONG_UPDATE if |cap| bytes of control room hold it. */
static void cong_msg_out(struct msghdr *mh, size_t cap, uint64_t mask)
{
	mh->msg_namelen = 0;
	if (cap >= CMSG_SPACE(sizeof(uint64_t))) {
		struct cmsghdr *c = mh->msg_control;

		c->cmsg_level = SOL_RDS;
		c->cmsg_type = RDS_CMSG_CONG_UPDATE;
		c->cmsg_len = CMSG_LEN(sizeof(uint64_t));
		memcpy(CMSG_DATA(c), &mask, sizeof(uint64_t));
		mh->msg_controllen = CMSG_SPACE(sizeof(uint64_t));
	} else {
		mh->msg_flags |= MSG_CTRUNC;
	}
}

/* RDS_CANCEL_SENT_TO's value: 16 <= len < 28 is IPv4, as
 * rds_cancel_sent_to reads it. Return: 0; -EINVAL. */
static int cancel_addr(const void *v, socklen_t len, struct rdsu_addr *a, uint16_t *port)
{
	struct sockaddr_storage ss = { 0 };

	if (!v || len < (socklen_t)sizeof(struct sockaddr_in))
		return -EINVAL;
	if (len < (socklen_t)sizeof(struct sockaddr_in6)) {
		memcpy(&ss, v, sizeof(struct sockaddr_in));
		ss.ss_family = AF_INET;
	} else {
		memcpy(&ss, v, sizeof(struct sockaddr_in6));
		ss.ss_family = AF_INET6;
	}
	return rdsu_sockaddr_get(&ss, a, port) < 0 ? -EINVAL : 0;
}

/* ------------------------------------------------------------------------
 * The rdsd backend (docs/architecture.md, "Sharing one RDS presence")
 */

enum { DM_OFF, DM_AUTO, DM_SPAWN };

/* A call on an rdsd socket runs without g_lock (it may wait for rdsd),
 * one at a time per socket in this process. */
static void dm_enter(struct rdsp_sock *s)
{
	pthread_mutex_unlock(&g_lock);
	pthread_mutex_lock(&s->dlock);
}

static void dm_leave(struct rdsp_sock *s)
{
	pthread_mutex_unlock(&s->dlock);
	pthread_mutex_lock(&g_lock);
}

/* RDSRUN_DAEMON: 0 never, 1/spawn use rdsd and start one when none runs,
 * unset: use one that runs. */
static int dm_mode(void)
{
	const char *v = getenv("RDSRUN_DAEMON");

	if (!v || !*v)
		return DM_AUTO;
	if (!strcmp(v, "0"))
		return DM_OFF;
	return DM_SPAWN;
}

static const char *dm_daemon_name(void)
{
	const char *n = getenv("RDSD_NAME");

	return n && *n ? n : RDSD_DEFAULT_NAME;
}

static socklen_t dm_sun(struct sockaddr_un *sun)
{
	const char *n = dm_daemon_name();
	size_t len = strlen(n);

	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (len > sizeof(sun->sun_path) - 1)
		len = sizeof(sun->sun_path) - 1;
	memcpy(sun->sun_path + 1, n, len);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len);
}

/* Is |fd| a connection to an rdsd (one received with SCM_RIGHTS)? */
static bool dm_is_conn(int fd)
{
	struct sockaddr_un sun, want;
	socklen_t l = sizeof(sun), wl = dm_sun(&want);
	int v = 0;
	socklen_t vl = sizeof(v);

	if (REAL(getsockopt)(fd, SOL_SOCKET, SO_TYPE, &v, &vl) < 0 || v != SOCK_SEQPACKET)
		return false;
	if (REAL(getpeername)(fd, (struct sockaddr *)&sun, &l) < 0)
		return false;
	return l == wl && !memcmp(&sun, &want, wl);
}

/* Where rdsd is: RDSD_PATH, else beside this library. */
static bool dm_daemon_path(char *out, size_t cap)
{
	const char *p = getenv("RDSD_PATH");
	Dl_info di;
	const char *slash;

	if (p && *p) {
		snprintf(out, cap, "%s", p);
		return true;
	}
	if (!dladdr((void *)dm_daemon_path, &di) || !di.dli_fname)
		return false;
	slash = strrchr(di.dli_fname, '/');
	if (!slash)
		return false;
	snprintf(out, cap, "%.*s/rdsd", (int)(slash - di.dli_fname), di.dli_fname);
	return access(out, X_OK) == 0;
}

/* Start an rdsd in this network namespace on a listener bound here, so
 * that the connect that follows cannot miss it; a process that loses
 * the race for the name uses the winner's. */
static void dm_spawn(void)
{
	struct sockaddr_un sun;
	socklen_t l = dm_sun(&sun);
	char path[PATH_MAX];
	pid_t pid;
	int lfd;

	if (!dm_daemon_path(path, sizeof(path)))
		return;
	lfd = REAL(socket)(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		return;
	if (REAL(bind)(lfd, (struct sockaddr *)&sun, l) < 0 || REAL(listen)(lfd, 128) < 0) {
		REAL(close)(lfd);
		return;
	}
	pid = fork();
	if (pid == 0) {
		/* the daemon outlives us: a grandchild, in a session of its own */
		if (fork() == 0) {
			const char *log = getenv("RDSD_LOG");
			int nul = open("/dev/null", O_RDWR);
			int err = log && *log ? open(log, O_WRONLY | O_CREAT | O_APPEND, 0644) : nul;

			setsid();
			REAL(dup2)(nul, 0);
			REAL(dup2)(nul, 1);
			REAL(dup2)(err < 0 ? nul : err, 2);
			if (lfd == 3)
				(void)REAL(fcntl)(3, F_SETFD, 0);
			else
				REAL(dup2)(lfd, 3);
			(void)syscall(SYS_close_range, 4, ~0u, 0);
			unsetenv("LD_PRELOAD");
			execl(path, "rdsd", "--listen-fd", "3", "--linger", "2",
			      log && *log ? "-v" : (char *)NULL, (char *)NULL);
			_exit(127);
		}
		_exit(0);
	}
	if (pid > 0)
		(void)waitpid(pid, NULL, 0);
	REAL(close)(lfd);
}

/* A new connection to rdsd, or -1 (errno) when none answers. */
static int dm_connect(int mode, int type)
{
	struct sockaddr_un sun;
	socklen_t l = dm_sun(&sun);

	for (int tries = 0; tries < 2; tries++) {
		int fd = REAL(socket)(AF_UNIX, SOCK_SEQPACKET | (type & SOCK_CLOEXEC), 0);
		int v = 4 * (int)RDSD_MAX_MSG;

		if (fd < 0)
			return -1;
		if (REAL(connect)(fd, (struct sockaddr *)&sun, l) == 0) {
			/* a whole message must fit in one request */
			if (REAL(setsockopt)(fd, SOL_SOCKET, SO_SNDBUFFORCE, &v, sizeof(v)) < 0)
				(void)REAL(setsockopt)(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
			if (type & SOCK_NONBLOCK)
				(void)REAL(fcntl)(fd, F_SETFL, O_NONBLOCK);
			return fd;
		}
		REAL(close)(fd);
		if (mode != DM_SPAWN || tries)
			return -1;
		dm_spawn();
	}
	return -1;
}

static struct rdsp_sock *dm_new(int fd)
{
	struct rdsp_sock *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->dm = true;
	s->a = fd;
	s->b = -1;
	s->chan = -1;
	s->fds = 1;
	rdsopt_init(&s->opt);
	pthread_mutex_init(&s->dlock, NULL);
	return s;
}

/* Take |fd| (a connection to rdsd this process did not make) as an RDS
 * socket. */
static void dm_adopt(int fd)
{
	struct rdsp_sock *s;

	if (fd_peek(fd) || !dm_is_conn(fd))
		return;
	s = dm_new(fd);
	if (!s)
		return;
	pthread_mutex_lock(&g_lock);
	if (fd_set_locked(fd, s) == 0) {
		s->next = g_socks;
		g_socks = s;
	} else {
		free(s);
	}
	pthread_mutex_unlock(&g_lock);
}

/* An rdsd socket survives exec as the kernel's does: the descriptors a
 * program starts with are looked at once. */
static void dm_adopt_inherited(void)
{
	DIR *d;
	struct dirent *e;

	if (dm_mode() == DM_OFF)
		return;
	d = opendir("/proc/self/fd");
	if (!d)
		return;
	while ((e = readdir(d))) {
		struct stat st;
		int fd = atoi(e->d_name);

		if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd == dirfd(d))
			continue;
		if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode))
			dm_adopt(fd);
	}
	closedir(d);
}

/* Write all of |mh| to rdsd, waiting if the descriptor is non-blocking. */
static int dm_write(int fd, const struct msghdr *mh)
{
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLOUT };

		if (REAL(sendmsg)(fd, mh, MSG_NOSIGNAL) >= 0)
			return 0;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return -errno;
		(void)poll(&pfd, 1, -1);
	}
}

/* This process's reply channel for |s|, handed to rdsd on first use. */
static int dm_chan(struct rdsp_sock *s, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} cbuf;
	struct rdsd_req q = { .op = RDSD_OP_CHAN };
	struct iovec iov = { &q, sizeof(q) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf.buf, .msg_controllen = sizeof(cbuf.buf) };
	struct cmsghdr *c;
	int sv[2], e;

	if (s->chan >= 0)
		return 0;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	s->chan_id = (uint32_t)getpid() ^ ((uint32_t)(uintptr_t)s << 8) ^ (uint32_t)now_ms();
	q.chan = s->chan_id;
	memset(cbuf.buf, 0, sizeof(cbuf.buf));
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &sv[1], sizeof(int));
	e = dm_write(fd, &mh);
	REAL(close)(sv[1]);
	if (e < 0) {
		REAL(close)(sv[0]);
		return e;
	}
	s->chan = sv[0];
	return 0;
}

/* One request and its reply: the reply's value, -errno. |out| takes the
 * reply's payload (|*outlen| bytes at most, set to the bytes given);
 * |optlen|, if not NULL, the length the reply reports. */
static int dm_call(struct rdsp_sock *s, int fd, struct rdsd_req *q, const struct iovec *pl,
		   int npl, void *out, size_t *outlen, uint32_t *optlen)
{
	struct iovec iov[IOV_MAX + 1];
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)npl + 1 };
	bool cancelled = false;
	uint32_t want;
	int e;

	e = dm_chan(s, fd);
	if (e < 0)
		return e;
	q->chan = s->chan_id;
	q->seq = ++s->seq;
	want = q->seq;
	iov[0] = (struct iovec){ q, sizeof(*q) };
	for (int i = 0; i < npl; i++)
		iov[i + 1] = pl[i];
	e = dm_write(fd, &mh);
	if (e < 0)
		return e == -EPIPE || e == -ECONNRESET ? -ENOTCONN : e;
	for (;;) {
		struct rdsd_rep rep;
		struct iovec riov[2] = { { &rep, sizeof(rep) },
					 { out, out && outlen ? *outlen : 0 } };
		struct msghdr rmh = { .msg_iov = riov, .msg_iovlen = 2 };
		ssize_t n = REAL(recvmsg)(s->chan, &rmh, 0);

		if (n < 0 && errno == EINTR && q->op == RDSD_OP_SEND && !cancelled) {
			/* a signal stops a waiting send, as rds_sendmsg's wait */
			struct rdsd_req c = { .op = RDSD_OP_CANCEL, .chan = s->chan_id };
			struct iovec ci = { &c, sizeof(c) };
			struct msghdr cmh = { .msg_iov = &ci, .msg_iovlen = 1 };

			c.seq = ++s->seq;
			if (dm_write(fd, &cmh) == 0)
				cancelled = true;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -ENOTCONN;    /* rdsd is gone */
		if ((size_t)n < sizeof(rep) || rep.seq != want)
			continue;            /* a stale answer */
		if (outlen)
			*outlen = (size_t)n - sizeof(rep);
		if (optlen)
			*optlen = rep.pad;
		if (cancelled) {
			/* the cancel's own answer follows: take it */
			struct rdsd_rep crep;

			while (REAL(recv)(s->chan, &crep, sizeof(crep), 0) > 0 && crep.seq != s->seq)
				;
		}
		return rep.ret;
	}
}

static void dm_put_addr(struct rdsd_req *q, const struct rdsu_addr *a, uint16_t port)
{
	q->family = rdsu_addr_is_v4(a) ? AF_INET : AF_INET6;
	memcpy(q->addr, a->a, 16);
	q->port = port;
}

static int dm_bind(struct rdsp_sock *s, int fd, const struct rdsu_addr *a, uint16_t port)
{
	struct rdsd_req q = { .op = RDSD_OP_BIND };

	dm_put_addr(&q, a, port);
	return dm_call(s, fd, &q, NULL, 0, NULL, NULL, NULL);
}

static int dm_connect_to(struct rdsp_sock *s, int fd, const struct rdsu_addr *a, uint16_t port)
{
	struct rdsd_req q = { .op = RDSD_OP_CONNECT };

	dm_put_addr(&q, a, port);
	return dm_call(s, fd, &q, NULL, 0, NULL, NULL, NULL);
}

static int dm_name(struct rdsp_sock *s, int fd, bool peer, struct sockaddr_storage *ss,
		   socklen_t *klen)
{
	struct rdsd_req q = { .op = RDSD_OP_NAME, .arg = peer };
	struct rdsd_rx rx = { 0 };
	size_t len = sizeof(rx);
	struct rdsu_addr a;
	int e = dm_call(s, fd, &q, NULL, 0, &rx, &len, NULL);

	if (e < 0)
		return e;
	memset(ss, 0, sizeof(*ss));
	memcpy(a.a, rx.addr, 16);
	if (rx.family == 0) {
		ss->ss_family = AF_UNSPEC;
		*klen = sizeof(struct sockaddr_in);
	} else {
		*klen = rdsu_sockaddr(&a, rx.port, ss);
	}
	return 0;
}

/*
 * The send's SOL_RDS cmsgs: every one asks for RDMA, atomics or
 * zero-copy, which a TCP socket cannot give (-EOPNOTSUPP), or is unknown
 * (-EINVAL); others are ignored, as rds_rm_size does. Return: 0 or that
 * error. One check for both paths, a socket of its own and an rdsd one.
 */
static int send_cmsgs_refused(const struct msghdr *mh)
{
	if (!mh->msg_control || !mh->msg_controllen)
		return 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR((struct msghdr *)mh, c)) {
		if (c->cmsg_level != SOL_RDS)
			continue;
		switch (c->cmsg_type) {
		case RDS_CMSG_RDMA_ARGS: case RDS_CMSG_RDMA_DEST: case RDS_CMSG_RDMA_MAP:
		case RDS_CMSG_ATOMIC_FADD: case RDS_CMSG_ATOMIC_CSWP:
		case RDS_CMSG_MASKED_ATOMIC_FADD: case RDS_CMSG_MASKED_ATOMIC_CSWP:
		case RDS_CMSG_ZCOPY_COOKIE:
			return -EOPNOTSUPP;
		default:
			return -EINVAL;
		}
	}
	return 0;
}

static ssize_t dm_send(struct rdsp_sock *s, int fd, const struct msghdr *mh, int flags)
{
	struct rdsd_req q = { .op = RDSD_OP_SEND };
	size_t total = 0;
	int e;

	if (flags & ~(MSG_DONTWAIT | MSG_NOSIGNAL))
		return -EOPNOTSUPP;
	if (mh->msg_name && mh->msg_namelen) {
		struct rdsu_addr dst;
		uint16_t dport;

		e = addr_in(mh->msg_name, mh->msg_namelen, &dst, &dport);
		if (e < 0)
			return e;
		dm_put_addr(&q, &dst, dport);
	}
	if (mh->msg_iovlen > IOV_MAX)
		return -EMSGSIZE;
	for (size_t i = 0; i < mh->msg_iovlen; i++)
		total += mh->msg_iov[i].iov_len;
	if (total > RDSP_MAX_MSG)
		return -EMSGSIZE;
	e = send_cmsgs_refused(mh);
	if (e)
		return e;
	if (s->ok_valid && s->chan >= 0 && total <= s->credit && q.family == s->ok.family &&
	    q.port == s->ok.port && !memcmp(q.addr, s->ok.addr, sizeof(q.addr))) {
		struct iovec iov[IOV_MAX + 1];
		struct msghdr m = { .msg_iov = iov, .msg_iovlen = mh->msg_iovlen + 1 };

		q.arg = RDSD_SEND_NOREPLY;
		q.chan = s->chan_id;
		iov[0] = (struct iovec){ &q, sizeof(q) };
		for (size_t i = 0; i < mh->msg_iovlen; i++)
			iov[i + 1] = mh->msg_iov[i];
		e = dm_write(fd, &m);
		if (e < 0)
			return e == -EPIPE || e == -ECONNRESET ? -ENOTCONN : e;
		s->credit -= (uint32_t)total;
		return (ssize_t)total;
	}
	{
		int fl = REAL(fcntl)(fd, F_GETFL);

		q.arg = (flags & MSG_DONTWAIT) || (fl >= 0 && (fl & O_NONBLOCK)) ? 0 : RDSD_SEND_BLOCK;
	}
	if (q.arg) {
		struct timeval tv = { 0 };
		socklen_t l = sizeof(tv);

		q.timeout_ms = -1;
		if (REAL(getsockopt)(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, &l) == 0 &&
		    (tv.tv_sec || tv.tv_usec))
			q.timeout_ms = tv.tv_sec > INT_MAX / 1000 - 1 ? INT_MAX
				       : (int32_t)(tv.tv_sec * 1000 + (tv.tv_usec + 999) / 1000);
	}
	{
		struct rdsd_req sent = q;
		uint32_t credit = 0;

		e = dm_call(s, fd, &q, mh->msg_iov, (int)mh->msg_iovlen, NULL, NULL, &credit);
		s->ok_valid = e >= 0;
		s->credit = e >= 0 ? credit : 0;
		if (e >= 0)
			s->ok = sent;
		return e;
	}
}

static ssize_t dm_recv(int fd, struct msghdr *mh, int flags, bool nb)
{
	struct iovec iov[IOV_MAX + 1];
	struct rdsd_rx rx;
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = mh->msg_iovlen + 1 };
	size_t cap = mh->msg_control ? mh->msg_controllen : 0;
	ssize_t n;

	iov[0] = (struct iovec){ &rx, sizeof(rx) };
	for (size_t i = 0; i < mh->msg_iovlen; i++)
		iov[i + 1] = mh->msg_iov[i];
	n = REAL(recvmsg)(fd, &m, flags & (MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT));
	if (n < 0) {
		if (errno == EAGAIN && !nb)
			return -ETIMEDOUT;   /* SO_RCVTIMEO ran out: rds_recvmsg's answer */
		return -errno;
	}
	if ((size_t)n < sizeof(rx))
		return -EAGAIN;          /* rdsd is gone: nothing will come */
	n -= (ssize_t)sizeof(rx);
	mh->msg_flags = m.msg_flags & MSG_TRUNC;
	mh->msg_controllen = 0;
	if (rx.kind == RDSD_RX_CONG) {
		mh->msg_flags = 0;
		cong_msg_out(mh, cap, rx.cong);
		return 0;
	}
	if (mh->msg_name) {
		struct sockaddr_storage ss;
		struct rdsu_addr a;
		socklen_t klen;

		memcpy(a.a, rx.addr, 16);
		klen = rdsu_sockaddr(&a, rx.port, &ss);
		addr_out(&ss, klen, mh->msg_name, &mh->msg_namelen);
	}
	return n;
}

static int dm_setopt(struct rdsp_sock *s, int fd, int level, int name, const void *v,
		     socklen_t len)
{
	struct rdsd_req q = { .op = RDSD_OP_SETOPT, .level = level, .name = name };
	struct iovec pl = { (void *)v, v ? len : 0 };

	if (level == SOL_RDS && name == RDS_CANCEL_SENT_TO) {
		struct rdsu_addr a;
		uint16_t port;

		if (cancel_addr(v, len, &a, &port))
			return -EINVAL;
		dm_put_addr(&q, &a, port);
		pl.iov_len = 0;
	}
	if (level == SOL_RDS && (name == RDS_GET_MR || name == RDS_GET_MR_FOR_DEST)) {
		struct rdsd_rx rx;
		size_t l = sizeof(rx);
		struct rdsd_req nq = { .op = RDSD_OP_NAME };
		int e;

		if (!v || len != (socklen_t)(name == RDS_GET_MR ? sizeof(struct rds_get_mr_args)
					     : sizeof(struct rds_get_mr_for_dest_args)))
			return -EINVAL;
		e = dm_call(s, fd, &nq, NULL, 0, &rx, &l, NULL);
		return e < 0 ? e : rx.family ? -EOPNOTSUPP : -ENOTCONN;
	}
	if (level == SOL_RDS && name == RDS_FREE_MR)
		return -EINVAL;
	return dm_call(s, fd, &q, &pl, 1, NULL, NULL, NULL);
}

static int dm_getopt(struct rdsp_sock *s, int fd, int level, int name, void *v, socklen_t *len)
{
	struct rdsd_req q = { .op = RDSD_OP_GETOPT, .level = level, .name = name };
	uint32_t optlen = 0;
	size_t got;
	int e;

	if (!len)
		return -EFAULT;
	q.arg = *len > INT_MAX ? INT_MAX : (int32_t)*len;
	got = v ? (size_t)*len : 0;
	e = dm_call(s, fd, &q, NULL, 0, v, &got, &optlen);
	if (e < 0 && e != -ENOSPC)
		return e;
	*len = (socklen_t)optlen;
	return e;
}

/* ------------------------------------------------------------------------
 * socket, bind, connect, names
 */

RDSP_EXPORT int socket(int domain, int type, int protocol)
{
	const char *force;
	struct rdsp_sock *s;
	int sv[2], e, one = 1;

	if (domain != AF_RDS)
		return REAL(socket)(domain, type, protocol);
	force = getenv("RDSRUN_FORCE");
	if (!(force && !strcmp(force, "1")) && !__atomic_load_n(&g_kernel_absent, __ATOMIC_RELAXED)) {
		int fd = REAL(socket)(domain, type, protocol);

		if (fd >= 0 || errno != EAFNOSUPPORT)
			return fd;
		__atomic_store_n(&g_kernel_absent, true, __ATOMIC_RELAXED);
	}
	if ((type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC)) != SOCK_SEQPACKET || protocol != 0)
		return set_errno(-ESOCKTNOSUPPORT);
	if (dm_mode() != DM_OFF) {
		int fd = dm_connect(dm_mode(), type);

		if (fd >= 0) {
			s = dm_new(fd);
			if (!s) {
				REAL(close)(fd);
				return set_errno(-ENOMEM);
			}
			pthread_mutex_lock(&g_lock);
			e = fd_set_locked(fd, s);
			if (e == 0) {
				s->next = g_socks;
				g_socks = s;
			}
			pthread_mutex_unlock(&g_lock);
			if (e < 0) {
				REAL(close)(fd);
				free(s);
				return set_errno(e);
			}
			return fd;
		}
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	s = calloc(1, sizeof(*s));
	if (!s) {
		REAL(close)(sv[0]);
		REAL(close)(sv[1]);
		return set_errno(-ENOMEM);
	}
	s->a = sv[0];
	s->b = sv[1];
	s->fds = 1;
	rdsopt_init(&s->opt);
	/* The smallest send buffer: filling it costs one 4 KiB write. */
	(void)REAL(setsockopt)(s->a, SOL_SOCKET, SO_SNDBUF, &one, sizeof(one));
	(void)REAL(fcntl)(s->b, F_SETFL, O_NONBLOCK);
	if (type & SOCK_NONBLOCK)
		(void)REAL(fcntl)(s->a, F_SETFL, O_NONBLOCK);
	if (!(type & SOCK_CLOEXEC))
		(void)REAL(fcntl)(s->a, F_SETFD, 0);
	pthread_mutex_lock(&g_lock);
	e = fd_set_locked(s->a, s);
	if (e == 0) {
		s->next = g_socks;
		g_socks = s;
		sync_sock(s);
	}
	pthread_mutex_unlock(&g_lock);
	if (e < 0) {
		REAL(close)(sv[0]);
		REAL(close)(sv[1]);
		free(s);
		return set_errno(e);
	}
	return s->a;
}

/* SO_SNDBUF or SO_SNDBUFFORCE: 1; SO_RCVBUF or SO_RCVBUFFORCE: 0; -1 for
 * any other option. */
static int buf_opt(int name)
{
	if (name == SO_SNDBUF || name == SO_SNDBUFFORCE)
		return 1;
	if (name == SO_RCVBUF || name == SO_RCVBUFFORCE)
		return 0;
	return -1;
}

/* The send (|snd|) or receive buffer size the kernel keeps for our real
 * socket |fd|, doubled as it reports it. Return: 0 and *val; -errno, *val 0. */
static int kept_buf(int fd, bool snd, int *val)
{
	socklen_t l = sizeof(*val);

	*val = 0;
	if (REAL(getsockopt)(fd, SOL_SOCKET, snd ? SO_SNDBUF : SO_RCVBUF, val, &l) < 0)
		return -errno;
	return 0;
}

/* Give |us| the buffer size kept for the shim's end |fd|; RDS counts half. */
static void us_buf(struct rdsu_sock *us, int fd, bool snd, rdsu_ns now)
{
	int val;

	(void)kept_buf(fd, snd, &val);
	if (val / 2 <= 0)
		return;
	if (snd)
		(void)rdsu_sock_set_sndbuf(us, (uint32_t)val / 2, now);
	else
		(void)rdsu_sock_set_rcvbuf(us, (uint32_t)val / 2, now);
}

RDSP_EXPORT int bind(int fd, const struct sockaddr *sa, socklen_t len)
{
	struct rdsp_sock *s = get_locked(fd);
	struct rdsu_addr addr;
	uint16_t port;
	int e;

	if (!s)
		return REAL(bind)(fd, sa, len);
	e = addr_in(sa, len, &addr, &port);
	if (e == 0 && s->dm) {
		dm_enter(s);
		e = dm_bind(s, fd, &addr, port);
		dm_leave(s);
		put_locked(s);
		return e < 0 ? set_errno(e) : 0;
	}
	if (e == 0 && s->us)
		e = -EINVAL;                 /* no re-bind */
	if (e == 0 && g_child)
		e = -EBADF;
	if (e == 0)
		e = endpoint_locked(&addr);
	if (e == 0) {
		struct rdsu_sock *us;
		rdsu_ns now = rdsu_clock();

		e = rdsu_sock_new(rdsu_tcp_ep(g_tcp), &us);
		if (e == 0) {
			if (s->sndbuf_set)
				us_buf(us, s->b, true, now);
			if (s->rcvbuf_set)
				us_buf(us, s->b, false, now);
			(void)rdsu_sock_set_cong_monitor(us, s->opt.cong_monitor);
			rdsu_sock_set_ctx(us, s);
			e = rdsu_sock_bind(us, &addr, port);
			if (e < 0)
				rdsu_sock_free(us, now);
			else
				s->us = us;
		}
	}
	if (e == 0)
		sync_sock(s);
	put_locked(s);
	return e < 0 ? set_errno(e) : 0;
}

RDSP_EXPORT int connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	struct rdsp_sock *s = get_locked(fd);
	struct rdsu_addr addr;
	uint16_t port;
	int e = 0;

	if (!s)
		return REAL(connect)(fd, sa, len);
	/* rds_connect: only a default destination is recorded. */
	if (!sa || len < (socklen_t)sizeof(sa_family_t))
		e = -EINVAL;
	else if (sa->sa_family != AF_INET && sa->sa_family != AF_INET6)
		e = -EAFNOSUPPORT;
	else if (sa->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in) &&
		 ((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr == INADDR_ANY)
		e = -EDESTADDRREQ;
	else
		e = addr_in(sa, len, &addr, &port);
	if (e == 0) {
		s->connected = true;
		s->conn_addr = addr;
		s->conn_port = port;
		if (s->dm) {
			dm_enter(s);
			s->ok_valid = false;
			e = dm_connect_to(s, fd, &addr, port);
			dm_leave(s);
		}
	}
	put_locked(s);
	return e < 0 ? set_errno(e) : 0;
}

/* rds_getname: the bound (or connected) address; an unbound, unconnected
 * socket answers AF_UNSPEC with an IPv4-sized zero address. */
static int name_of(struct rdsp_sock *s, bool peer, struct sockaddr_storage *ss, socklen_t *klen)
{
	struct rdsu_addr a;
	uint16_t port = 0;

	memset(ss, 0, sizeof(*ss));
	if (peer) {
		if (!s->connected)
			return -ENOTCONN;
		*klen = rdsu_sockaddr(&s->conn_addr, s->conn_port, ss);
		return 0;
	}
	if (s->us && rdsu_sock_get_name(s->us, &a, &port) == 0) {
		*klen = rdsu_sockaddr(&a, port, ss);
		return 0;
	}
	if (s->connected) {
		/* the connected address's family, the address itself zero */
		if (rdsu_addr_is_v4(&s->conn_addr)) {
			ss->ss_family = AF_INET;
			*klen = sizeof(struct sockaddr_in);
		} else {
			ss->ss_family = AF_INET6;
			*klen = sizeof(struct sockaddr_in6);
		}
		return 0;
	}
	ss->ss_family = AF_UNSPEC;
	*klen = sizeof(struct sockaddr_in);
	return 0;
}

static int getname(int fd, struct sockaddr *sa, socklen_t *len, bool peer)
{
	struct rdsp_sock *s = get_locked(fd);
	struct sockaddr_storage ss;
	socklen_t klen = 0;
	int e;

	if (!s)
		return peer ? REAL(getpeername)(fd, sa, len) : REAL(getsockname)(fd, sa, len);
	if (s->dm) {
		dm_enter(s);
		e = dm_name(s, fd, peer, &ss, &klen);
		dm_leave(s);
	} else {
		e = name_of(s, peer, &ss, &klen);
	}
	put_locked(s);
	if (e < 0)
		return set_errno(e);
	if (!len)
		return set_errno(-EFAULT);
	addr_out(&ss, klen, sa, len);
	return 0;
}

RDSP_EXPORT int getsockname(int fd, struct sockaddr *sa, socklen_t *len)
{
	return getname(fd, sa, len, false);
}

RDSP_EXPORT int getpeername(int fd, struct sockaddr *sa, socklen_t *len)
{
	return getname(fd, sa, len, true);
}

/* sock_no_listen, sock_no_accept, sock_no_shutdown */
RDSP_EXPORT int listen(int fd, int backlog)
{
	if (!fd_peek(fd))
		return REAL(listen)(fd, backlog);
	return set_errno(-EOPNOTSUPP);
}

RDSP_EXPORT int accept(int fd, struct sockaddr *sa, socklen_t *len)
{
	if (!fd_peek(fd))
		return REAL(accept)(fd, sa, len);
	return set_errno(-EOPNOTSUPP);
}

RDSP_EXPORT int accept4(int fd, struct sockaddr *sa, socklen_t *len, int flags)
{
	if (!fd_peek(fd))
		return REAL(accept4)(fd, sa, len, flags);
	return set_errno(-EOPNOTSUPP);
}

RDSP_EXPORT int shutdown(int fd, int how)
{
	if (!fd_peek(fd))
		return REAL(shutdown)(fd, how);
	return set_errno(-EOPNOTSUPP);
}

/* ------------------------------------------------------------------------
 * Sending
 */

/* rds_sendmsg with the socket held; the lock is dropped while waiting. */
static ssize_t do_send(struct rdsp_sock *s, const struct msghdr *mh, int flags)
{
	struct rdsu_addr dst;
	uint16_t dport;
	size_t total = 0;
	int64_t deadline = -1;
	bool nb, looked = false;
	int e;

	if (flags & ~MSG_DONTWAIT)
		return -EOPNOTSUPP;   /* MSG_ZEROCOPY: no completions to give */
	if (mh->msg_name && mh->msg_namelen) {
		e = addr_in(mh->msg_name, mh->msg_namelen, &dst, &dport);
		if (e < 0)
			return e;
	} else if (s->connected) {
		dst = s->conn_addr;
		dport = s->conn_port;
	} else {
		return -ENOTCONN;
	}
	if (!s->us)
		return -ENOTCONN;
	if (g_child)
		return -EBADF;
	if (mh->msg_iovlen > IOV_MAX)
		return -EMSGSIZE;
	for (size_t i = 0; i < mh->msg_iovlen; i++)
		total += mh->msg_iov[i].iov_len;
	if (total > RDSP_MAX_MSG || total > rdsu_sock_max_msg(s->us))
		return -EMSGSIZE;
	{
		int ce = send_cmsgs_refused(mh);

		if (ce)
			return ce;
	}
	nb = nonblocking(s, flags);
	for (;;) {
		e = rdsu_sock_submit(s->us, &dst, dport, mh->msg_iov, (int)mh->msg_iovlen,
				     rdsu_clock());
		if (e >= 0) {
			s->sent = true;
			send_flush_locked();
			return e;
		}
		if (e == -EAGAIN && !looked) {
			/* Only a run of the transport looks for acknowledgements
			 * now that a socket waits for room (rdsu_ep_acks_wanted),
			 * and sets its timer to look again soon; until then it
			 * looks every few milliseconds. */
			looked = true;
			pump_locked();
			continue;
		}
		looked = false;
		if (nb || (e != -EAGAIN && e != -ENOBUFS))
			return e;
		if (e == -EAGAIN && deadline < 0) {
			int ms = timeo_ms(s, SO_SNDTIMEO);

			if (ms >= 0)
				deadline = now_ms() + ms;
		}
		sync_sock(s);
		pthread_mutex_unlock(&g_lock);
		if (e == -EAGAIN) {
			e = wait_a(s->a, POLLOUT, deadline);
		} else {
			/* rds_cong_wait: until the port is free, without a timeout;
			 * no descriptor tells us, so look again every 5 ms. */
			struct pollfd none = { .fd = -1 };

			e = poll(&none, 1, 5) < 0 ? -errno : 0;
		}
		pthread_mutex_lock(&g_lock);
		if (s->closed)
			return -EBADF;
		if (e < 0)
			return e;
	}
}

static ssize_t send_common(int fd, const struct msghdr *mh, int flags)
{
	struct rdsp_sock *s = get_locked(fd);
	ssize_t n;

	if (!s)
		return set_errno(-EBADF);
	if (s->dm) {
		dm_enter(s);
		n = dm_send(s, fd, mh, flags);
		dm_leave(s);
	} else {
		n = do_send(s, mh, flags);
	}
	put_locked(s);
	return n < 0 ? set_errno((int)n) : n;
}

RDSP_EXPORT ssize_t sendmsg(int fd, const struct msghdr *mh, int flags)
{
	if (!fd_peek(fd))
		return REAL(sendmsg)(fd, mh, flags);
	if (!mh)
		return set_errno(-EFAULT);
	return send_common(fd, mh, flags);
}

RDSP_EXPORT ssize_t sendto(int fd, const void *buf, size_t len, int flags,
			   const struct sockaddr *sa, socklen_t salen)
{
	struct iovec iov = { (void *)buf, len };
	struct msghdr mh = { .msg_name = (void *)sa, .msg_namelen = sa ? salen : 0,
			     .msg_iov = &iov, .msg_iovlen = 1 };

	if (!fd_peek(fd))
		return REAL(sendto)(fd, buf, len, flags, sa, salen);
	return send_common(fd, &mh, flags);
}

RDSP_EXPORT ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	struct iovec iov = { (void *)buf, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (!fd_peek(fd))
		return REAL(send)(fd, buf, len, flags);
	return send_common(fd, &mh, flags);
}

RDSP_EXPORT ssize_t write(int fd, const void *buf, size_t len)
{
	struct iovec iov = { (void *)buf, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (!fd_peek(fd))
		return REAL(write)(fd, buf, len);
	return send_common(fd, &mh, 0);
}

/* ------------------------------------------------------------------------
 * Receiving
 */

static ssize_t do_recv(struct rdsp_sock *s, struct msghdr *mh, int flags)
{
	int64_t deadline = -1;
	bool nb;
	ssize_t n;

	if (flags & MSG_OOB)
		return 0;
	if (flags & MSG_ERRQUEUE)
		return -EAGAIN;     /* nothing ever reaches the error queue */
	if (mh->msg_iovlen > IOV_MAX)
		return -EMSGSIZE;
	if (g_child)
		return -EBADF;
	nb = nonblocking(s, flags);
	for (;;) {
		struct rdsu_rxinfo info;
		int e;

		s->once_in = false;
		n = s->us ? rdsu_sock_read(s->us, mh->msg_iov, (int)mh->msg_iovlen,
					   (flags & MSG_PEEK) ? RDSU_READ_PEEK : 0, &info,
					   rdsu_clock())
			  : -EAGAIN;
		if (n >= 0) {
			size_t cap = mh->msg_control ? mh->msg_controllen : 0;

			mh->msg_flags = 0;
			mh->msg_controllen = 0;
			if (info.cong) {
				cong_msg_out(mh, cap, info.cong_mask);
				n = 0;
			} else {
				if (mh->msg_name) {
					struct sockaddr_storage ss;
					socklen_t klen = rdsu_sockaddr(&info.from, info.sport, &ss);

					addr_out(&ss, klen, mh->msg_name, &mh->msg_namelen);
				}
				if (info.trunc) {
					mh->msg_flags |= MSG_TRUNC;
					if (flags & MSG_TRUNC)
						n = (ssize_t)info.len;
				}
			}
			/* A read can free the port: its map must leave now. */
			if (!(flags & MSG_PEEK))
				flush_locked();
			else
				sync_sock(s);
			return n;
		}
		sync_sock(s);
		if (n != -EAGAIN || nb)
			return n;
		if (deadline < 0) {
			int ms = timeo_ms(s, SO_RCVTIMEO);

			if (ms >= 0)
				deadline = now_ms() + ms;
		}
		pthread_mutex_unlock(&g_lock);
		e = wait_a(s->a, POLLIN, deadline);
		pthread_mutex_lock(&g_lock);
		if (s->closed)
			return -EBADF;
		if (e < 0)
			return e;
	}
}

static ssize_t recv_common(int fd, struct msghdr *mh, int flags)
{
	struct rdsp_sock *s = get_locked(fd);
	ssize_t n;

	if (!s)
		return set_errno(-EBADF);
	if (s->dm) {
		int fl = REAL(fcntl)(fd, F_GETFL);
		bool nb = (flags & MSG_DONTWAIT) || (fl >= 0 && (fl & O_NONBLOCK));

		if (flags & MSG_OOB) {
			n = 0;
		} else if (flags & MSG_ERRQUEUE) {
			n = -EAGAIN;
		} else if (mh->msg_iovlen > IOV_MAX) {
			n = -EMSGSIZE;
		} else {
			pthread_mutex_unlock(&g_lock);
			n = dm_recv(fd, mh, flags, nb);
			pthread_mutex_lock(&g_lock);
		}
	} else {
		n = do_recv(s, mh, flags);
	}

	put_locked(s);
	return n < 0 ? set_errno((int)n) : n;
}

/* Descriptors of rdsd's sockets that come over SCM_RIGHTS are sockets. */
static void adopt_rights(const struct msghdr *mh)
{
	if (!mh->msg_control || mh->msg_controllen == 0 || dm_mode() == DM_OFF)
		return;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR((struct msghdr *)mh, c)) {
		size_t n;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			dm_adopt(fd);
		}
	}
}

RDSP_EXPORT ssize_t recvmsg(int fd, struct msghdr *mh, int flags)
{
	if (!fd_peek(fd)) {
		ssize_t n = REAL(recvmsg)(fd, mh, flags);

		if (n >= 0 && mh)
			adopt_rights(mh);
		return n;
	}
	if (!mh)
		return set_errno(-EFAULT);
	return recv_common(fd, mh, flags);
}

RDSP_EXPORT ssize_t recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *sa,
			     socklen_t *salen)
{
	struct iovec iov = { buf, len };
	struct msghdr mh = { .msg_name = (sa && salen) ? sa : NULL,
			     .msg_namelen = (sa && salen) ? *salen : 0,
			     .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (!fd_peek(fd))
		return REAL(recvfrom)(fd, buf, len, flags, sa, salen);
	n = recv_common(fd, &mh, flags);
	if (n >= 0 && sa && salen)
		*salen = mh.msg_namelen;
	return n;
}

RDSP_EXPORT ssize_t recv(int fd, void *buf, size_t len, int flags)
{
	struct iovec iov = { buf, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (!fd_peek(fd))
		return REAL(recv)(fd, buf, len, flags);
	return recv_common(fd, &mh, flags);
}

RDSP_EXPORT ssize_t read(int fd, void *buf, size_t len)
{
	struct iovec iov = { buf, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (!fd_peek(fd))
		return REAL(read)(fd, buf, len);
	return recv_common(fd, &mh, 0);
}

/* ------------------------------------------------------------------------
 * Options
 */

/* SO_TYPE, SO_DOMAIN and SO_PROTOCOL of an AF_RDS socket. Return: true
 * and *out set for one of them. */
static bool sock_identity(int name, int *out)
{
	switch (name) {
	case SO_TYPE:
		*out = SOCK_SEQPACKET;
		return true;
	case SO_DOMAIN:
		*out = AF_RDS;
		return true;
	case SO_PROTOCOL:
		*out = 0;
		return true;
	default:
		return false;
	}
}

static int set_rds_opt(struct rdsp_sock *s, int name, const void *v, socklen_t len)
{
	int e;

	switch (name) {
	case RDS_CANCEL_SENT_TO: {
		struct rdsu_addr a;
		uint16_t port;

		if (!s->us)
			return -ENOTCONN;
		if (cancel_addr(v, len, &a, &port))
			return -EINVAL;
		e = rdsu_sock_cancel_sent_to(s->us, &a, port, rdsu_clock());
		flush_locked();
		return e < 0 ? e : 0;
	}
	case RDS_CONG_MONITOR:
		e = rdsopt_set(&s->opt, s->us, name, v, len);
		if (e == 0)
			sync_sock(s);
		return e;
	case RDS_GET_MR:
	case RDS_GET_MR_FOR_DEST:
		if (!v || len != (socklen_t)(name == RDS_GET_MR ? sizeof(struct rds_get_mr_args)
					     : sizeof(struct rds_get_mr_for_dest_args)))
			return -EINVAL;
		return s->us ? -EOPNOTSUPP : -ENOTCONN;
	case RDS_FREE_MR:
		/* no memory region is ever registered */
		return -EINVAL;
	default:
		return rdsopt_set(&s->opt, s->us, name, v, len);
	}
}

RDSP_EXPORT int setsockopt(int fd, int level, int name, const void *v, socklen_t len)
{
	struct rdsp_sock *s = get_locked(fd);
	int buf = buf_opt(name);
	int e = 0;

	if (!s)
		return REAL(setsockopt)(fd, level, name, v, len);
	if (s->dm) {
		dm_enter(s);
		if (level == SOL_RDS) {
			e = dm_setopt(s, fd, level, name, v, len);
		} else if (level == SOL_SOCKET && buf >= 0) {
			/* The kernel's socket layer on a real socket of ours (the
			 * reply channel) gives the value it keeps; rdsd takes it. */
			int val;

			s->ok_valid = false;
			e = dm_chan(s, fd);
			if (e == 0)
				e = REAL(setsockopt)(s->chan, level, name, v, len) < 0 ? -errno : 0;
			if (e == 0 && kept_buf(s->chan, buf, &val) == 0)
				e = dm_setopt(s, fd, SOL_SOCKET, buf ? SO_SNDBUF : SO_RCVBUF,
					      &val, sizeof(val));
		} else if (level == SOL_SOCKET) {
			e = REAL(setsockopt)(fd, level, name, v, len) < 0 ? -errno : 0;
		} else {
			e = -ENOPROTOOPT;
		}
		dm_leave(s);
		put_locked(s);
		return e < 0 ? set_errno(e) : 0;
	}
	if (level == SOL_RDS) {
		e = set_rds_opt(s, name, v, len);
	} else if (level == SOL_SOCKET) {
		/* Generic options live on the shim's end, which the kernel's
		 * socket layer checks and doubles as for any socket. */
		e = REAL(setsockopt)(s->b, level, name, v, len) < 0 ? -errno : 0;
		if (e == 0 && buf == 1)
			s->sndbuf_set = true;
		if (e == 0 && buf == 0)
			s->rcvbuf_set = true;
		if (e == 0 && s->us && buf >= 0) {
			us_buf(s->us, s->b, buf, rdsu_clock());
			flush_locked();
		}
	} else {
		e = -ENOPROTOOPT;
	}
	put_locked(s);
	return e < 0 ? set_errno(e) : 0;
}

static int put_int_opt(int val, void *v, socklen_t *len)
{
	if (!len || *len < (socklen_t)sizeof(int))
		return -EINVAL;
	memcpy(v, &val, sizeof(int));
	*len = sizeof(int);
	return 0;
}

RDSP_EXPORT int getsockopt(int fd, int level, int name, void *v, socklen_t *len)
{
	struct rdsp_sock *s = get_locked(fd);
	int e, iv;

	if (!s)
		return REAL(getsockopt)(fd, level, name, v, len);
	if (s->dm) {
		dm_enter(s);
		if (level == SOL_RDS) {
			e = dm_getopt(s, fd, level, name, v, len);
		} else if (level == SOL_SOCKET && (name == SO_SNDBUF || name == SO_RCVBUF)) {
			e = dm_getopt(s, fd, level, name, v, len);
		} else if (level == SOL_SOCKET && sock_identity(name, &iv)) {
			e = put_int_opt(iv, v, len);
		} else if (level == SOL_SOCKET) {
			e = REAL(getsockopt)(fd, level, name, v, len) < 0 ? -errno : 0;
		} else {
			e = -ENOPROTOOPT;
		}
		dm_leave(s);
		put_locked(s);
		/* RDS_INFO_* answer with the item size, as rds_info_getsockopt */
		return e < 0 ? set_errno(e) : e;
	}
	if (level == SOL_RDS) {
		/* RDS_INFO_* is not answered yet (docs/shim.md) */
		e = rdsopt_get(&s->opt, s->us, name, &iv);
		if (e == 0)
			e = put_int_opt(iv, v, len);
	} else if (level == SOL_SOCKET && sock_identity(name, &iv)) {
		e = put_int_opt(iv, v, len);
	} else if (level == SOL_SOCKET) {
		e = REAL(getsockopt)(s->b, level, name, v, len) < 0 ? -errno : 0;
	} else {
		e = -ENOPROTOOPT;
	}
	put_locked(s);
	return e < 0 ? set_errno(e) : 0;
}

/* ------------------------------------------------------------------------
 * Descriptors: close, dup, fcntl, ioctl
 */

RDSP_EXPORT int close(int fd)
{
	if (fd_peek(fd)) {
		pthread_mutex_lock(&g_lock);
		forget_fd_locked(fd);
		pthread_mutex_unlock(&g_lock);
	}
	return REAL(close)(fd);
}

/* |newfd| (>= 0) now names what |oldfd| names. */
static void dup_done_locked(int oldfd, int newfd)
{
	struct rdsp_sock *s = fd_peek(oldfd);

	if (newfd < 0 || newfd == oldfd)
		return;
	forget_fd_locked(newfd);
	if (s && fd_set_locked(newfd, s) == 0)
		s->fds++;
}

RDSP_EXPORT int dup(int oldfd)
{
	int r;

	if (!fd_peek(oldfd))
		return REAL(dup)(oldfd);
	pthread_mutex_lock(&g_lock);
	r = REAL(dup)(oldfd);
	dup_done_locked(oldfd, r);
	pthread_mutex_unlock(&g_lock);
	return r;
}

RDSP_EXPORT int dup2(int oldfd, int newfd)
{
	int r;

	if (!fd_peek(oldfd) && !fd_peek(newfd))
		return REAL(dup2)(oldfd, newfd);
	pthread_mutex_lock(&g_lock);
	r = REAL(dup2)(oldfd, newfd);
	dup_done_locked(oldfd, r);
	pthread_mutex_unlock(&g_lock);
	return r;
}

RDSP_EXPORT int dup3(int oldfd, int newfd, int flags)
{
	int r;

	if (!fd_peek(oldfd) && !fd_peek(newfd))
		return REAL(dup3)(oldfd, newfd, flags);
	pthread_mutex_lock(&g_lock);
	r = REAL(dup3)(oldfd, newfd, flags);
	dup_done_locked(oldfd, r);
	pthread_mutex_unlock(&g_lock);
	return r;
}

/* O_NONBLOCK and FD_CLOEXEC are the real descriptor's; only a duplicate
 * needs the table. */
static int fcntl_common(int (*real)(int, int, ...), int fd, int cmd, void *arg)
{
	int r;

	if (!real)
		return set_errno(-ENOSYS);
	if ((cmd != F_DUPFD && cmd != F_DUPFD_CLOEXEC) || !fd_peek(fd))
		return real(fd, cmd, arg);
	pthread_mutex_lock(&g_lock);
	r = real(fd, cmd, arg);
	dup_done_locked(fd, r);
	pthread_mutex_unlock(&g_lock);
	return r;
}

RDSP_EXPORT int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	return fcntl_common(REAL(fcntl), fd, cmd, arg);
}

RDSP_EXPORT int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	return fcntl_common(REAL(fcntl64) ? real_fcntl64 : REAL(fcntl), fd, cmd, arg);
}

RDSP_EXPORT int ioctl(int fd, unsigned long req, ...)
{
	struct rdsp_sock *s;
	va_list ap;
	void *arg;
	int e = 0;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!fd_peek(fd))
		return REAL(ioctl)(fd, req, arg);
	/* What the VFS answers for any file, and the socket layer's own
	 * SIOC* requests, are the real descriptor's; rds_ioctl knows only
	 * the TOS pair and everything else is -ENOTTY (FIONREAD too). */
	if (req == FIONBIO || req == FIOASYNC || req == FIOCLEX || req == FIONCLEX ||
	    ((req & 0xff00) == 0x8900 && req != SIOCRDSSETTOS && req != SIOCRDSGETTOS))
		return REAL(ioctl)(fd, req, arg);
	if (req != SIOCRDSSETTOS && req != SIOCRDSGETTOS)
		return set_errno(-ENOTTY);
	s = get_locked(fd);
	if (!s)
		return set_errno(-EBADF);
	if (s->dm) {
		dm_enter(s);
		if (!arg) {
			e = -EFAULT;
		} else if (req == SIOCRDSGETTOS) {
			socklen_t l = 1;

			e = dm_getopt(s, fd, RDSD_LEVEL_IOCTL, 0, arg, &l);
		} else {
			e = dm_setopt(s, fd, RDSD_LEVEL_IOCTL, 0, arg, 1);
		}
		dm_leave(s);
		put_locked(s);
		return e < 0 ? set_errno(e) : 0;
	}
	if (!arg) {
		e = -EFAULT;
	} else if (req == SIOCRDSGETTOS) {
		memcpy(arg, &s->tos, 1);
	} else {
		uint8_t tos;

		memcpy(&tos, arg, 1);
		/* rds_ioctl: once, before the first send; TCP maps every
		 * TOS to 0 (rds_tcp_get_tos_map) once the transport is known. */
		if (s->tos || s->sent)
			e = -EINVAL;
		else
			s->tos = (s->us || s->opt.transport == RDSU_TRANS_TCP) ? 0 : tos;
	}
	put_locked(s);
	return e < 0 ? set_errno(e) : 0;
}
