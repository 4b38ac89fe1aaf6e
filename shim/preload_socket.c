// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * preload_socket.c - librds-preload.so: socket life, as net/rds/af_rds.c:
 * the real calls this library stands in front of, socket(), holding a
 * socket during a call and releasing it, and the calls RDS refuses
 * (listen, accept, shutdown). The map of the shim is shim/README.md.
 */
#include "preload.h"

/* The real calls, resolved past this library. */
int (*real_socket)(int, int, int);
int (*real_bind)(int, const struct sockaddr *, socklen_t);
int (*real_connect)(int, const struct sockaddr *, socklen_t);
ssize_t (*real_sendto)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);
ssize_t (*real_sendmsg)(int, const struct msghdr *, int);
ssize_t (*real_send)(int, const void *, size_t, int);
ssize_t (*real_recvfrom)(int, void *, size_t, int, struct sockaddr *, socklen_t *);
ssize_t (*real_recvmsg)(int, struct msghdr *, int);
ssize_t (*real_recv)(int, void *, size_t, int);
ssize_t (*real_read)(int, void *, size_t);
ssize_t (*real_write)(int, const void *, size_t);
ssize_t (*real_readv)(int, const struct iovec *, int);
ssize_t (*real_writev)(int, const struct iovec *, int);
int (*real_sendmmsg)(int, struct mmsghdr *, unsigned int, int);
int (*real_recvmmsg)(int, struct mmsghdr *, unsigned int, int, struct timespec *);
int (*real_poll)(struct pollfd *, nfds_t, int);
int (*real_ppoll)(struct pollfd *, nfds_t, const struct timespec *, const sigset_t *);
int (*real_select)(int, fd_set *, fd_set *, fd_set *, struct timeval *);
int (*real_pselect)(int, fd_set *, fd_set *, fd_set *, const struct timespec *,
		    const sigset_t *);
int (*real_getsockname)(int, struct sockaddr *, socklen_t *);
int (*real_getpeername)(int, struct sockaddr *, socklen_t *);
int (*real_setsockopt)(int, int, int, const void *, socklen_t);
int (*real_getsockopt)(int, int, int, void *, socklen_t *);
int (*real_close)(int);
int (*real_dup)(int);
int (*real_dup2)(int, int);
int (*real_dup3)(int, int, int);
int (*real_fcntl)(int, int, ...);
int (*real_fcntl64)(int, int, ...);
int (*real_ioctl)(int, unsigned long, ...);
int (*real_listen)(int, int);
int (*real_accept)(int, struct sockaddr *, socklen_t *);
int (*real_accept4)(int, struct sockaddr *, socklen_t *, int);
int (*real_shutdown)(int, int);
pid_t (*real_fork)(void);
int (*real_epoll_ctl)(int, int, int, struct epoll_event *);

static bool g_kernel_absent;

__attribute__((constructor)) static void rdsp_init(void)
{
	(void)REAL(socket); (void)REAL(bind); (void)REAL(connect); (void)REAL(sendto);
	(void)REAL(sendmsg); (void)REAL(send); (void)REAL(recvfrom); (void)REAL(recvmsg);
	(void)REAL(recv); (void)REAL(read); (void)REAL(write); (void)REAL(getsockname);
	(void)REAL(getpeername); (void)REAL(setsockopt); (void)REAL(getsockopt);
	(void)REAL(close); (void)REAL(dup); (void)REAL(dup2); (void)REAL(dup3);
	(void)REAL(fcntl); (void)REAL(fcntl64); (void)REAL(ioctl); (void)REAL(listen);
	(void)REAL(accept); (void)REAL(accept4); (void)REAL(shutdown);
	(void)REAL(readv); (void)REAL(writev); (void)REAL(sendmmsg); (void)REAL(recvmmsg);
	(void)REAL(fork); (void)REAL(poll); (void)REAL(ppoll); (void)REAL(select); (void)REAL(pselect);
	dm_adopt_inherited();
}

int set_errno(int neg)
{
	errno = -neg;
	return -1;
}

/* The RDS socket of |fd|, held (busy) and with g_lock taken, or NULL
 * for a descriptor that is not one. */
struct rdsp_sock *get_locked(int fd)
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

void release_sock_locked(struct rdsp_sock *s)
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
	epreg_free_locked(s);
	/* the ring is written with only s->dlock held: a call still in
	 * progress on another thread keeps it until its put_locked */
	if (s->dm && s->busy == 0)
		dm_ring_drop(s);
	free(s->zq.ring);   /* the notices go with the socket */
	memset(&s->zq, 0, sizeof(s->zq));
	s->closed = true;
	wake_all_locked(s);
}

void put_locked(struct rdsp_sock *s)
{
	if (--s->busy == 0 && s->closed && s->fds == 0) {
		if (s->dm)
			dm_ring_drop(s);
		free(s);
	}
	pthread_mutex_unlock(&g_lock);
}

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
			s->once_in = true;   /* a new socket's one-shot (sync_sock) */
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
	/* rds_create leaves rs_cong_track 0, behind the host's map
	 * generation once any map was updated since the module loaded
	 * (rds_cong_updated_since, K7.7): the first poll reports the
	 * one-shot POLLIN|POLLWRBAND, as after a map update. */
	s->once_in = true;
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
		if (g_move_efd < 0)
			g_move_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
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
