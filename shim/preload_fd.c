// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * preload_fd.c - librds-preload.so: descriptors: the table from
 * descriptor to socket, close, dup, dup2, dup3 and fcntl's F_DUPFD. The
 * map of the shim is shim/README.md.
 */
#include "preload.h"

#define RDSP_CHUNK 1024
#define RDSP_CHUNKS 1024

static _Atomic(struct rdsp_sock *) *_Atomic g_fdtab[RDSP_CHUNKS];

struct rdsp_sock *fd_peek(int fd)
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
int fd_set_locked(int fd, struct rdsp_sock *s)
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
	void *arg;

	RDSP_VA_ARG(cmd, arg);
	return fcntl_common(REAL(fcntl), fd, cmd, arg);
}

RDSP_EXPORT int fcntl64(int fd, int cmd, ...)
{
	void *arg;

	RDSP_VA_ARG(cmd, arg);
	return fcntl_common(REAL(fcntl64) ? real_fcntl64 : REAL(fcntl), fd, cmd, arg);
}

/* The descriptors naming |s|, up to |cap| of them in |out|. Return: how
 * many name it. */
int fd_names_locked(const struct rdsp_sock *s, int *out, int cap)
{
	int n = 0;

	for (int c = 0; c < RDSP_CHUNKS; c++) {
		_Atomic(struct rdsp_sock *) *chunk =
			atomic_load_explicit(&g_fdtab[c], memory_order_acquire);

		if (!chunk)
			continue;
		for (int i = 0; i < RDSP_CHUNK; i++)
			if (atomic_load_explicit(&chunk[i], memory_order_relaxed) == s) {
				if (n < cap)
					out[n] = c * RDSP_CHUNK + i;
				n++;
			}
	}
	return n;
}
