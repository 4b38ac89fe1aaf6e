// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * preload_rdsd.c - librds-preload.so: the rdsd backend's plumbing
 * (docs/architecture.md, "Sharing one RDS presence"): finding or starting
 * rdsd, connecting a socket to it, adopting inherited connections, the
 * reply channel and one request's round trip (dm_call). The map of the
 * shim is shim/README.md.
 */
#include "preload.h"

#include <sys/mman.h>

/* A call on an rdsd socket runs without g_lock (it may wait for rdsd),
 * one at a time per socket in this process. */
void dm_enter(struct rdsp_sock *s)
{
	pthread_mutex_unlock(&g_lock);
	pthread_mutex_lock(&s->dlock);
}

void dm_leave(struct rdsp_sock *s)
{
	pthread_mutex_unlock(&s->dlock);
	pthread_mutex_lock(&g_lock);
}

/* RDSRUN_DAEMON: 0 never, 1/spawn use rdsd and start one when none runs,
 * unset: use one that runs. */
int dm_mode(void)
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

/* rdsd's abstract name followed by |suffix| (preload_share.c names a
 * per-process endpoint's listener so). */
socklen_t dm_sun_named(struct sockaddr_un *sun, const char *suffix)
{
	char n[sizeof(sun->sun_path)];
	size_t len = (size_t)snprintf(n, sizeof(n), "%s%s", dm_daemon_name(), suffix);

	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (len > sizeof(sun->sun_path) - 1)
		len = sizeof(sun->sun_path) - 1;
	memcpy(sun->sun_path + 1, n, len);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len);
}

static socklen_t dm_sun(struct sockaddr_un *sun)
{
	return dm_sun_named(sun, "");
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
	pid = REAL(fork)();
	if (pid == 0) {
		/* the daemon outlives us: a grandchild, in a session of its own */
		if (REAL(fork)() == 0) {
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
			char *argv[] = { "rdsd", "--listen-fd", "3", "--linger", "2",
					 log && *log ? "-v" : NULL, NULL };

			unsetenv("LD_PRELOAD");
			/* the real exec: ours would look for sockets to move */
			REAL(execve)(path, argv, environ);
			_exit(127);
		}
		_exit(0);
	}
	if (pid > 0)
		(void)waitpid(pid, NULL, 0);
	REAL(close)(lfd);
}

/* A new connection to rdsd, or -1 (errno) when none answers. */
int dm_connect(int mode, int type)
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

struct rdsp_sock *dm_new(int fd)
{
	struct rdsp_sock *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->dm = true;
	s->a = fd;
	s->b = -1;
	s->chan = -1;
	s->ring_efd = -1;
	s->fds = 1;
	rdsopt_init(&s->opt);
	pthread_mutex_init(&s->dlock, NULL);
	return s;
}

/* Take |fd| (a connection to rdsd this process did not make) as an RDS
 * socket. */
void dm_adopt(int fd)
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
void dm_adopt_inherited(void)
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
int dm_write(int fd, const struct msghdr *mh)
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
int dm_chan(struct rdsp_sock *s, int fd)
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
int dm_call(struct rdsp_sock *s, int fd, struct rdsd_req *q, const struct iovec *pl,
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

/* The process's ring goes (close, a fork's child): later sends of this
 * process ask for a new one. */
void dm_ring_drop(struct rdsp_sock *s)
{
	if (s->ring_mem)
		munmap(s->ring_mem, s->ring_len);
	if (s->ring_efd >= 0)
		REAL(close)(s->ring_efd);
	s->ring_mem = NULL;
	s->ring_efd = -1;
	s->ring_tried = false;
}

/* The ring's two descriptors from rdsd's answer: 0, or -1 (any taken
 * are closed). */
static int dm_ring_fds(struct msghdr *mh, int out[2])
{
	struct cmsghdr *c = CMSG_FIRSTHDR(mh);
	size_t n = 0;

	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
	    c->cmsg_len >= CMSG_LEN(0))
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
	if (n > 2)
		n = 2;
	if (n)
		memcpy(out, CMSG_DATA(c), n * sizeof(int));
	if (n == 2 && !(mh->msg_flags & MSG_CTRUNC))
		return 0;
	for (size_t i = 0; i < n; i++)
		REAL(close)(out[i]);
	return -1;
}

/* Ask rdsd for this process's send ring (RDSD_OP_RING), once. */
static void dm_ring_open(struct rdsp_sock *s, int fd)
{
	struct rdsd_req q = { .op = RDSD_OP_RING, .chan = s->chan_id, .seq = ++s->seq };
	struct iovec iov = { &q, sizeof(q) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	s->ring_tried = true;
	if (dm_write(fd, &mh) < 0)
		return;
	for (;;) {
		union {
			char buf[CMSG_SPACE(2 * sizeof(int))];
			struct cmsghdr align;
		} cbuf;
		struct rdsd_rep rep;
		struct iovec riov = { &rep, sizeof(rep) };
		struct msghdr rmh = { .msg_iov = &riov, .msg_iovlen = 1, .msg_control = cbuf.buf,
				      .msg_controllen = sizeof(cbuf.buf) };
		ssize_t n = REAL(recvmsg)(s->chan, &rmh, MSG_CMSG_CLOEXEC);
		int fds[2];
		size_t len;
		void *mem;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		if (dm_ring_fds(&rmh, fds) < 0) {
			if ((size_t)n >= sizeof(rep) && rep.seq == q.seq)
				return;      /* refused: over the connection */
			continue;            /* a stale answer */
		}
		len = RDSD_RING_CTL + (size_t)rep.pad;
		mem = rep.seq == q.seq && rep.ret == 0 && rep.pad <= RDSD_RING_MAX
			      ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0)
			      : MAP_FAILED;
		REAL(close)(fds[0]);
		if (mem == MAP_FAILED || rdsd_ring_prod_init(&s->ring, mem, len) < 0) {
			if (mem != MAP_FAILED)
				munmap(mem, len);
			REAL(close)(fds[1]);
			if (rep.seq == q.seq)
				return;
			continue;
		}
		s->ring_mem = mem;
		s->ring_len = len;
		s->ring_efd = fds[1];
		return;
	}
}

/* A send not waited for (|q|, then |total| bytes of |mh|) into this
 * process's ring, rdsd woken if it sleeps. Return: 0; -1 when it goes
 * over the connection instead (no ring, too big for one, the ring full).
 * rdsd reads a ring before any later request on the connection, so
 * either way the sends stay in order. */
int dm_ring_put(struct rdsp_sock *s, int fd, const struct rdsd_req *q, const struct msghdr *mh,
		size_t total)
{
	uint8_t *b;

	if (!s->ring_mem && !s->ring_tried)
		dm_ring_open(s, fd);
	if (!s->ring_mem || total + sizeof(*q) > s->ring.size / 4)
		return -1;
	b = rdsd_ring_reserve(&s->ring, sizeof(*q) + total);
	if (!b)
		return -1;
	memcpy(b, q, sizeof(*q));
	b += sizeof(*q);
	for (size_t i = 0; i < mh->msg_iovlen; i++) {
		if (mh->msg_iov[i].iov_len)
			memcpy(b, mh->msg_iov[i].iov_base, mh->msg_iov[i].iov_len);
		b += mh->msg_iov[i].iov_len;
	}
	rdsd_ring_commit(&s->ring);
	if (rdsd_ring_wake_wanted(&s->ring)) {
		uint64_t one = 1;

		(void)!REAL(write)(s->ring_efd, &one, sizeof(one));
	}
	return 0;
}
