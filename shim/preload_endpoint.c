// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * preload_endpoint.c - librds-preload.so: the process's own librds
 * endpoint (per-process mode), the thread that runs it, and what fork
 * does to it: the process's sockets move to rdsd first, so that parent
 * and child share them as the kernel's. The map of the shim is
 * shim/README.md.
 */
#include "preload.h"

pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
struct rdsu_io *g_io;
bool g_rdma;              /* the endpoint runs IB for its address */
static struct rdsu_addr g_laddr;
struct rdsp_sock *g_socks;
bool g_child;             /* a fork's child: the endpoint is the parent's */

/* librds's events: a socket that got something to read since (a
 * message, a notice) is marked, so that sync_sock gives epoll's
 * edge-triggered waiters a new edge, as the kernel's wake-up per message
 * does; then every socket's state. */
static void take_events_locked(void)
{
	struct rdsu_event ev;

	while (rdsu_ep_next_event(rdsu_io_ep(g_io), &ev) == 1)
		if (ev.type == RDSU_EV_SOCK && (ev.mask & RDSU_POLLIN) && ev.ctx)
			((struct rdsp_sock *)ev.ctx)->rx_edge = true;
	for (struct rdsp_sock *s = g_socks; s; s = s->next)
		sync_sock(s);
}

/* Carry out what librds has to do now and update every socket's state. */
void pump_locked(void)
{
	if (!g_io)
		return;
	(void)rdsu_io_run(g_io, 0);
	take_events_locked();
}

/* Carry out what the application's call made the core queue (a message,
 * a congestion map after a read freed the port), without the run's poll. */
void flush_locked(void)
{
	if (!g_io)
		return;
	(void)rdsu_io_flush(g_io);
	take_events_locked();
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
static int g_share = -1;         /* listener: another process asks us to move (preload_share.c) */
static bool g_flush_pending;

static rdsu_ns g_last_flush;

void send_flush_locked(void)
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
	struct pollfd pfd[3] = { { .fd = rdsu_io_fd(g_io), .events = POLLIN },
				 { .fd = g_kick, .events = POLLIN },
				 { .fd = g_share, .events = POLLIN } };

	(void)arg;
	for (;;) {
		if (REAL(poll)(pfd, 3, -1) < 0 && errno != EINTR)
			break;
		if (pfd[1].revents & POLLIN) {
			uint64_t n;

			(void)REAL(read)(pfd[1].fd, &n, sizeof(n));
		}
		if (pfd[2].revents & POLLIN)
			(void)share_answer(pfd[2].fd);
		pthread_mutex_lock(&g_lock);
		if (!g_io) {
			/* the endpoint was handed to rdsd (move_to_rdsd) */
			pthread_mutex_unlock(&g_lock);
			REAL(close)(pfd[1].fd);
			if (pfd[2].fd >= 0)
				REAL(close)(pfd[2].fd);
			break;
		}
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
	/* Only an endpoint the parent still holds is the parent's; with none
	 * (fork() drops an idle one, below) the child makes its own. */
	g_child = g_io != NULL;
	/* rdsd's sockets are shared with the parent, as the kernel's are;
	 * the replies to this process need a channel of its own. */
	for (struct rdsp_sock *s = g_socks; s; s = s->next)
		if (s->dm) {
			if (s->chan >= 0)
				REAL(close)(s->chan);
			s->chan = -1;
			dm_ring_drop(s);   /* the parent's: the child asks for its own */
			s->credit = 0;
			s->ok_valid = false;
			pthread_mutex_init(&s->dlock, NULL);
		}
	pthread_mutex_unlock(&g_lock);
}

/* The endpoint on |addr|, made by the first bind of the process, with
 * IB beside TCP when |addr| is on an RDMA device (rdsep.h).
 * Return: 0; -EADDRNOTAVAIL for another address or one not on this host;
 * what rdsu_io_new and pthread_create fail with. */
int endpoint_locked(const struct rdsu_addr *addr)
{
	sigset_t all, old;
	pthread_t th;
	int e;

	if (g_io)
		return memcmp(addr, &g_laddr, sizeof(*addr)) ? -EADDRNOTAVAIL : 0;
	e = rdsep_new(&g_io, addr, &g_rdma);
	if (e < 0)
		return e;
	g_laddr = *addr;
	g_kick = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	/* where a second process's bind of the address asks us to move */
	g_share = dm_mode() != DM_OFF ? share_listen(addr) : -1;
	/* Signals stay with the application's threads. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	e = pthread_create(&th, NULL, io_thread, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e) {
		rdsu_io_free(g_io);
		g_io = NULL;
		g_rdma = false;
		if (g_kick >= 0)
			REAL(close)(g_kick);
		g_kick = -1;
		if (g_share >= 0)
			REAL(close)(g_share);
		g_share = -1;
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

/* bind's EADDRINUSE alone would not say that the kernel's own RDS is in
 * the way, nor what to do: once, on stderr. */
void tell_addr_in_use(const struct rdsu_addr *addr)
{
	static bool told;
	char a[64];

	if (!told)
		fprintf(stderr, "librds-preload: bind %s: %s\n", rdsu_addr_str(addr, a, sizeof(a)),
			rdsep_strerror(addr, -EADDRINUSE));
	told = true;
}

/*
 * fork: the kernel's child shares its parent's sockets. A socket of the
 * process's own librds endpoint cannot be shared (the endpoint, its
 * thread and its queues are the parent's memory), so before the first
 * fork that has such sockets the process's presence moves to rdsd
 * (started when none runs): each socket is made again in rdsd with its
 * options, its bound address and port and its connected address, under
 * the same descriptor numbers (dup2), and the endpoint is freed first so
 * that rdsd can take its address. Messages the endpoint still held
 * (received and not read, sent and not acknowledged) are dropped, as
 * closing the sockets would drop them. RDSRUN_DAEMON=0 forbids rdsd: the
 * child's sockets then answer EBADF (docs/shim.md).
 */
struct moved {
	struct rdsp_sock *s;
	int conn;                    /* the new connection to rdsd */
	bool bound, nonblock;
	struct sockaddr_storage name, peer;
	socklen_t namelen, peerlen;
	int sndbuf, rcvbuf;          /* the values set, or 0 */
	struct timeval rcvtimeo, sndtimeo;
	struct rdsopt opt;
	uint8_t tos;
};

/* What socket |s| holds that rdsd must be told again. */
static void note_sock_locked(struct moved *m, struct rdsp_sock *s)
{
	struct rdsu_addr a;
	uint16_t port;
	int v;
	socklen_t l;

	memset(m, 0, sizeof(*m));
	m->s = s;
	m->conn = -1;
	if (s->us && rdsu_sock_get_name(s->us, &a, &port) == 0) {
		m->bound = true;
		m->namelen = rdsu_sockaddr(&a, port, &m->name);
	}
	if (s->connected)
		m->peerlen = rdsu_sockaddr(&s->conn_addr, s->conn_port, &m->peer);
	v = REAL(fcntl)(s->a, F_GETFL);
	m->nonblock = v >= 0 && (v & O_NONBLOCK);
	l = sizeof(v);
	if (s->sndbuf_set && REAL(getsockopt)(s->b, SOL_SOCKET, SO_SNDBUF, &v, &l) == 0)
		m->sndbuf = v / 2;   /* the kernel doubled what was asked */
	l = sizeof(v);
	if (s->rcvbuf_set && REAL(getsockopt)(s->b, SOL_SOCKET, SO_RCVBUF, &v, &l) == 0)
		m->rcvbuf = v / 2;
	l = sizeof(m->rcvtimeo);
	(void)REAL(getsockopt)(s->b, SOL_SOCKET, SO_RCVTIMEO, &m->rcvtimeo, &l);
	l = sizeof(m->sndtimeo);
	(void)REAL(getsockopt)(s->b, SOL_SOCKET, SO_SNDTIMEO, &m->sndtimeo, &l);
	m->opt = s->opt;
	m->tos = s->tos;
}

/* The process's own sockets, noted. Returns how many; -1 when out of
 * memory (*mv is then the caller's to free). */
static ssize_t note_socks(struct moved **mv)
{
	size_t n = 0, cap = 0;

	pthread_mutex_lock(&g_lock);
	for (struct rdsp_sock *s = g_socks; s; s = s->next) {
		if (s->dm || s->closed)
			continue;
		if (n == cap) {
			struct moved *g = realloc(*mv, (cap ? cap * 2 : 8) * sizeof(**mv));

			if (!g) {
				pthread_mutex_unlock(&g_lock);
				return -1;
			}
			*mv = g;
			cap = cap ? cap * 2 : 8;
		}
		note_sock_locked(&(*mv)[n++], s);
	}
	pthread_mutex_unlock(&g_lock);
	return (ssize_t)n;
}

/* Free the endpoint, so that rdsd can take its address. */
static void free_endpoint_locked(struct moved *mv, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct rdsp_sock *s = mv[i].s;

		if (s->us) {
			rdsu_sock_free(s->us, rdsu_clock());
			s->us = NULL;
		}
	}
	if (g_io) {
		uint64_t one = 1;

		rdsu_io_free(g_io);
		g_io = NULL;
		g_rdma = false;
		if (g_kick >= 0)
			(void)!REAL(write)(g_kick, &one, sizeof(one));   /* the thread ends */
		g_kick = -1;
		g_share = -1;   /* the thread closes it */
		g_flush_pending = false;
	}
}

/* The same descriptor numbers now name rdsd sockets. */
static void swap_locked(struct moved *m)
{
	struct rdsp_sock *s = m->s, *ns = dm_new(m->conn);
	int fds[64], k = fd_names_locked(s, fds, 64);

	if (!ns || k > 64) {
		free(ns);
		return;    /* left as it was: its calls answer EBADF in the child */
	}
	ns->fds = 0;
	for (int j = 0; j < k; j++) {
		int fl = REAL(fcntl)(fds[j], F_GETFD);

		if (REAL(dup2)(m->conn, fds[j]) < 0)
			continue;
		(void)REAL(fcntl)(fds[j], F_SETFD, fl > 0 ? fl : 0);
		(void)fd_set_locked(fds[j], ns);
		ns->fds++;
		ns->a = fds[j];
	}
	if (m->nonblock)
		(void)REAL(fcntl)(m->conn, F_SETFL, O_NONBLOCK);
	REAL(close)(m->conn);
	m->conn = ns->a;
	ns->next = g_socks;
	g_socks = ns;
	epreg_move_locked(s);
	/* the old socket goes, as a close would take it; a call waiting on
	 * it starts again on the new one (RDSP_MOVED) */
	s->moved = true;
	s->fds = 0;
	release_sock_locked(s);
	if (s->busy == 0)
		free(s);
}

/* Its state again, through the calls a program would make. */
static void restore(const struct moved *m)
{
	int fd = m->conn, one = 1;

	if (!fd_peek(fd) || !fd_peek(fd)->dm)
		return;
	if (m->sndbuf)
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &m->sndbuf, sizeof(int));
	if (m->rcvbuf)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &m->rcvbuf, sizeof(int));
	if (m->rcvtimeo.tv_sec || m->rcvtimeo.tv_usec)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &m->rcvtimeo, sizeof(m->rcvtimeo));
	if (m->sndtimeo.tv_sec || m->sndtimeo.tv_usec)
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &m->sndtimeo, sizeof(m->sndtimeo));
	if (m->opt.cong_monitor)
		(void)setsockopt(fd, SOL_RDS, RDS_CONG_MONITOR, &one, sizeof(one));
	if (m->opt.recverr)
		(void)setsockopt(fd, SOL_RDS, RDS_RECVERR, &one, sizeof(one));
	/* the receive options an rdsd socket keeps in the client */
	rdsopt_copy_rx(&fd_peek(fd)->opt, &m->opt);
	if (m->opt.transport != RDSU_TRANS_NONE) {
		int t = (int)m->opt.transport;

		(void)setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &t, sizeof(t));
	}
	if (m->bound && bind(fd, (const struct sockaddr *)&m->name, m->namelen) < 0) {
		fprintf(stderr, "librds-preload: fork: rdsd could not take a socket's "
			"address: %s\n", strerror(errno));
	}
	if (m->tos)
		(void)ioctl(fd, SIOCRDSSETTOS, &m->tos);
	if (m->peerlen)
		(void)connect(fd, (const struct sockaddr *)&m->peer, m->peerlen);
}

_Atomic unsigned g_moves;   /* moves so far (a poll under way looks again) */
/* Readable once a move has happened: polls of own sockets watch it
 * (preload_poll.c), since the kernel's poll under way would not see the
 * new descriptor. Made with the first own socket, one a move. */
int g_move_efd = -1;
static pthread_mutex_t g_move_lock = PTHREAD_MUTEX_INITIALIZER;
__thread bool t_in_move;    /* this thread is moving the process (its binds ask no one) */
static void drop_idle_endpoint(void);

/* Move every socket of this process's own to rdsd (preload_share.c says
 * when). Return: 0 when none is left (and the endpoint is freed); -1. */
int move_to_rdsd(void)
{
	struct moved *mv = NULL;
	ssize_t n;
	int left = 0;

	pthread_mutex_lock(&g_move_lock);
	t_in_move = true;
	n = note_socks(&mv);
	if (n <= 0)
		goto out;
	/* rdsd first: without it nothing moves */
	for (ssize_t i = 0; i < n; i++) {
		mv[i].conn = dm_connect(DM_SPAWN, SOCK_CLOEXEC);
		if (mv[i].conn < 0) {
			for (ssize_t j = 0; j < i; j++)
				REAL(close)(mv[j].conn);
			goto out;
		}
	}
	pthread_mutex_lock(&g_lock);
	free_endpoint_locked(mv, (size_t)n);
	for (ssize_t i = 0; i < n; i++)
		swap_locked(&mv[i]);
	atomic_fetch_add(&g_moves, 1);
	if (g_move_efd >= 0) {
		/* Kept open until the next move: a poll woken by it looks at
		 * its descriptors again by number, and one reused meanwhile
		 * (the move makes new ones) would put it back to sleep. */
		static int retired = -1;
		uint64_t one = 1;

		(void)!REAL(write)(g_move_efd, &one, sizeof(one));
		if (retired >= 0)
			REAL(close)(retired);
		retired = g_move_efd;
		g_move_efd = -1;
	}
	pthread_mutex_unlock(&g_lock);
	for (ssize_t i = 0; i < n; i++)
		restore(&mv[i]);
out:
	free(mv);
	drop_idle_endpoint();
	pthread_mutex_lock(&g_lock);
	for (struct rdsp_sock *s = g_socks; s; s = s->next)
		if (!s->dm && !s->closed)
			left = -1;
	if (g_io)
		left = -1;
	pthread_mutex_unlock(&g_lock);
	t_in_move = false;
	pthread_mutex_unlock(&g_move_lock);
	return left;
}

/*
 * An endpoint with no socket left open serves nobody, but holds the
 * address (rdma_cm port 18634, TCP 16385), so a forked child could never
 * make its own: rds-stress's parent probes with a socket it closes and
 * then forks a process per task, each binding the same address. Such an
 * endpoint is freed before the fork; the parent makes a new one at its
 * next bind, as a fresh process would.
 */
static void drop_idle_endpoint(void)
{
	bool open = false;

	pthread_mutex_lock(&g_lock);
	for (struct rdsp_sock *s = g_socks; s; s = s->next)
		if (!s->dm && !s->closed && s->us)
			open = true;
	if (g_io && !open && !g_child)
		free_endpoint_locked(NULL, 0);
	pthread_mutex_unlock(&g_lock);
}

RDSP_EXPORT pid_t fork(void)
{
	if (dm_mode() != DM_OFF)
		(void)move_to_rdsd();
	drop_idle_endpoint();
	return REAL(fork)();
}
