// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * preload_share.c - librds-preload.so: a per-process socket shared with
 * another process. The kernel's AF_RDS sockets and addresses are the
 * host's; a per-process socket is this process's librds endpoint, which
 * no other process can reach. So whenever another process is to share
 * it, the process's presence moves to rdsd first (move_to_rdsd,
 * preload_endpoint.c; rdsd is started when none runs), as the first fork
 * does:
 *
 *  - a second process binds the address this one's endpoint holds: it
 *    asks this one, over an abstract Unix socket named after the address
 *    (share_listen, share_answer), to move; then its own sockets move and
 *    the bind is made through rdsd (share_addr_taken);
 *  - a socket's descriptor is sent over SCM_RIGHTS (share_before_rights);
 *  - exec with a socket whose descriptor is not close-on-exec (the exec
 *    calls below): the new program adopts rdsd's descriptors at load;
 *  - and, though nothing is shared then, a bind to a second address of
 *    the host, which the process's one endpoint cannot serve
 *    (share_second_addr).
 *
 * RDSRUN_DAEMON=0 forbids rdsd: nothing moves (docs/shim.md). The map of
 * the shim is shim/README.md.
 */
#include "preload.h"

int (*real_execve)(const char *, char *const[], char *const[]);
int (*real_execvpe)(const char *, char *const[], char *const[]);
int (*real_fexecve)(int, char *const[], char *const[]);

#define SHARE_WAIT_MS 10000   /* how long a bind waits for the holder to move */

/* The abstract name of the endpoint on |addr|: rdsd's name, ".pp.", the
 * address. */
static socklen_t share_sun(struct sockaddr_un *sun, const struct rdsu_addr *addr)
{
	char a[64], sfx[80];

	snprintf(sfx, sizeof(sfx), ".pp.%s", rdsu_addr_str(addr, a, sizeof(a)));
	return dm_sun_named(sun, sfx);
}

/* The listener of the endpoint made on |addr|, or -1 (then no other
 * process can ask this one to move, and its bind answers EADDRINUSE). */
int share_listen(const struct rdsu_addr *addr)
{
	struct sockaddr_un sun;
	socklen_t l = share_sun(&sun, addr);
	int fd = REAL(socket)(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return -1;
	if (REAL(bind)(fd, (struct sockaddr *)&sun, l) < 0 || REAL(listen)(fd, 8) < 0) {
		REAL(close)(fd);
		return -1;
	}
	return fd;
}

/* Is the process at the other end of |fd| of this user, or root? Only
 * those are answered, and only those are asked (any process may bind an
 * abstract name). */
static bool share_peer_ok(int fd)
{
	struct ucred cr;
	socklen_t l = sizeof(cr);

	return REAL(getsockopt)(fd, SOL_SOCKET, SO_PEERCRED, &cr, &l) == 0 &&
	       (cr.uid == geteuid() || cr.uid == 0);
}

/*
 * Another process asks (on the endpoint thread, |lfd| readable): one byte
 * 'm', from a process of this user or root (rdsd, started by this
 * process, serves those); the answer is 0 once this process's sockets are
 * rdsd's and its endpoint is freed, else -EADDRINUSE. Return: whether the
 * endpoint is gone (the thread ends).
 */
bool share_answer(int lfd)
{
	struct pollfd p;
	int32_t r = -EADDRINUSE;
	char req = 0;
	int c = REAL(accept4)(lfd, NULL, NULL, SOCK_CLOEXEC);

	if (c < 0)
		return false;
	p = (struct pollfd){ .fd = c, .events = POLLIN };
	if (share_peer_ok(c) && REAL(poll)(&p, 1, 1000) == 1 &&
	    REAL(recv)(c, &req, 1, 0) == 1 && req == 'm' && move_to_rdsd() == 0)
		r = 0;
	(void)REAL(send)(c, &r, sizeof(r), MSG_NOSIGNAL);
	REAL(close)(c);
	return r == 0;
}

/* Ask the process whose endpoint holds |addr| to move to rdsd (also when
 * rdsd's own bind found the address held). Return: 0 moved; -ENOENT no
 * such process (not a shimmed one: the kernel's rds_tcp, a program on
 * librds, rdsd); -EADDRINUSE it would not. */
int share_ask(const struct rdsu_addr *addr)
{
	struct sockaddr_un sun;
	socklen_t l = share_sun(&sun, addr);
	struct pollfd p;
	int32_t r = -EADDRINUSE;
	int fd;

	/* a bind made by the move itself (restore) never asks: the holder
	 * might be this process, whose endpoint thread is the mover */
	if (t_in_move)
		return -ENOENT;
	fd = REAL(socket)(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -EADDRINUSE;
	if (REAL(connect)(fd, (struct sockaddr *)&sun, l) < 0 || !share_peer_ok(fd)) {
		REAL(close)(fd);
		return -ENOENT;
	}
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	if (REAL(send)(fd, "m", 1, MSG_NOSIGNAL) != 1 || REAL(poll)(&p, 1, SHARE_WAIT_MS) != 1 ||
	    REAL(recv)(fd, &r, sizeof(r), 0) != (ssize_t)sizeof(r))
		r = -EADDRINUSE;
	REAL(close)(fd);
	return r;
}

/*
 * This process's bind found |addr| held (rdsep_new: EADDRINUSE) and it
 * has no endpoint of its own. The holder, if it is a shimmed process per
 * process, is asked to move to rdsd; then, if an rdsd runs (the holder
 * started it, or it held the address already), this process's sockets
 * move there too. Return: 0 when they did (the bind is to be made again,
 * through rdsd); -EADDRINUSE.
 */
int share_addr_taken(const struct rdsu_addr *addr)
{
	int c;

	if (dm_mode() == DM_OFF)
		return -EADDRINUSE;
	(void)share_ask(addr);
	c = dm_connect(DM_AUTO, SOCK_CLOEXEC);
	if (c < 0)
		return -EADDRINUSE;
	REAL(close)(c);
	return move_to_rdsd() == 0 ? 0 : -EADDRINUSE;
}

/* Is |addr| one of this host's (namespace's) addresses? A datagram
 * socket binds only to one. */
static bool addr_local(const struct rdsu_addr *addr)
{
	struct sockaddr_storage ss;
	socklen_t l = rdsu_sockaddr(addr, 0, &ss);
	int fd = REAL(socket)(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	bool ok;

	if (fd < 0)
		return false;
	ok = REAL(bind)(fd, (struct sockaddr *)&ss, l) == 0;
	REAL(close)(fd);
	return ok;
}

/*
 * This process's endpoint is on another address than |addr| (one address
 * per endpoint); the kernel lets a process bind to any of the host's. If
 * |addr| is one, the process's sockets move to rdsd (started when none
 * runs), which serves every address. Return: 0 when they did (the bind is
 * to be made again); -EADDRNOTAVAIL.
 */
int share_second_addr(const struct rdsu_addr *addr)
{
	if (dm_mode() == DM_OFF || !addr_local(addr))
		return -EADDRNOTAVAIL;
	return move_to_rdsd() == 0 ? 0 : -EADDRNOTAVAIL;
}

/* Is one of this process's own sockets named by |fd|? */
static bool own_sock(int fd)
{
	struct rdsp_sock *s = fd_peek(fd);

	return s && !s->dm && !s->closed;
}

/* sendmsg on another descriptor: an own socket about to be sent over
 * SCM_RIGHTS moves to rdsd first, so that the receiver gets a socket it
 * can use (rdsd's, which it adopts: preload_recv.c). */
void share_before_rights(const struct msghdr *mh)
{
	bool ours = false;

	if (!mh || !mh->msg_control || mh->msg_controllen < sizeof(struct cmsghdr) ||
	    dm_mode() == DM_OFF)
		return;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c && !ours;
	     c = CMSG_NXTHDR((struct msghdr *)mh, c)) {
		size_t n;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n && !ours; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			ours = own_sock(fd);
		}
	}
	if (ours)
		(void)move_to_rdsd();
}

/* ------------------------------------------------------------------ */
/* exec                                                                */
/* ------------------------------------------------------------------ */

/* The process whose memory this is: a vfork child (posix_spawn's too)
 * shares its parent's memory, so it must not move anything. */
static pid_t g_pid;

static void share_atfork_child(void)
{
	g_pid = getpid();
}

__attribute__((constructor)) static void share_init(void)
{
	g_pid = getpid();
	(void)pthread_atfork(NULL, NULL, share_atfork_child);
	(void)REAL(execve); (void)REAL(execvpe); (void)REAL(fexecve);
}

/* The kernel's socket survives exec unless close-on-exec: an own socket
 * with a descriptor that survives moves to rdsd first, and the new
 * program's shim adopts it (dm_adopt_inherited). */
static void share_before_exec(void)
{
	bool keep = false;

	if (dm_mode() == DM_OFF || getpid() != g_pid)
		return;
	pthread_mutex_lock(&g_lock);
	for (struct rdsp_sock *s = g_socks; s && !keep; s = s->next) {
		int fds[64], k;

		if (s->dm || s->closed)
			continue;
		k = fd_names_locked(s, fds, 64);
		for (int j = 0; j < k && j < 64 && !keep; j++) {
			int fl = REAL(fcntl)(fds[j], F_GETFD);

			keep = fl >= 0 && !(fl & FD_CLOEXEC);
		}
	}
	pthread_mutex_unlock(&g_lock);
	if (keep)
		(void)move_to_rdsd();
}

/* The calls below share these two (not through the exported names,
 * which another preloaded library may stand in front of). */
static int do_execve(const char *path, char *const argv[], char *const envp[])
{
	share_before_exec();
	return REAL(execve)(path, argv, envp);
}

static int do_execvpe(const char *file, char *const argv[], char *const envp[])
{
	share_before_exec();
	return REAL(execvpe)(file, argv, envp);
}

RDSP_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	return do_execve(path, argv, envp);
}

RDSP_EXPORT int execv(const char *path, char *const argv[])
{
	return do_execve(path, argv, environ);
}

RDSP_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	return do_execvpe(file, argv, envp);
}

RDSP_EXPORT int execvp(const char *file, char *const argv[])
{
	return do_execvpe(file, argv, environ);
}

RDSP_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	share_before_exec();
	return REAL(fexecve)(fd, argv, envp);
}

/* execl, execlp, execle: the arguments up to the NULL as an array (and,
 * for execle, the environment after it). */
static char **share_args(const char *arg0, va_list ap, char ***envp)
{
	va_list cp;
	size_t n = 0;
	char **v;

	if (arg0) {
		va_copy(cp, ap);
		for (n = 1; va_arg(cp, char *); n++)
			;
		va_end(cp);
	}
	v = malloc((n + 1) * sizeof(*v));
	if (!v)
		return NULL;
	if (n)
		v[0] = (char *)arg0;
	for (size_t i = 1; i < n; i++)
		v[i] = va_arg(ap, char *);
	v[n] = NULL;
	if (n)
		(void)va_arg(ap, char *);   /* the NULL after the arguments */
	if (envp)
		*envp = va_arg(ap, char **);
	return v;
}

enum { EXEC_PATH, EXEC_FILE, EXEC_ENV };

static int exec_list(int how, const char *path, const char *arg, va_list ap)
{
	char **envp = environ, **v = share_args(arg, ap, how == EXEC_ENV ? &envp : NULL);
	int r;

	if (!v)
		return set_errno(-ENOMEM);
	r = how == EXEC_FILE ? do_execvpe(path, v, envp) : do_execve(path, v, envp);
	free(v);
	return r;
}

/* execl, execlp, execle: the same body, one a kind */
#define EXEC_LIST(name, how)                                        \
	RDSP_EXPORT int name(const char *path, const char *arg, ...) \
	{                                                           \
		va_list ap;                                         \
		int r;                                              \
									    \
		va_start(ap, arg);                                  \
		r = exec_list(how, path, arg, ap);                  \
		va_end(ap);                                         \
		return r;                                           \
	}

EXEC_LIST(execl, EXEC_PATH)
EXEC_LIST(execlp, EXEC_FILE)
EXEC_LIST(execle, EXEC_ENV)
