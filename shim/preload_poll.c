// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * preload_poll.c - librds-preload.so: readiness and waiting: the
 * application's descriptor |a| made to tell the RDS socket's state
 * (rds_poll), and how a blocking call waits. The map of the shim is
 * shim/README.md.
 */
#include "preload.h"

static void wake(struct rdsp_waiter *w)
{
	uint64_t one = 1;

	if (w->woken)
		return;
	w->woken = true;
	(void)!REAL(write)(w->efd, &one, sizeof(one));
}

/* Wake the calls waiting on |s| for what its state |m| now gives. */
static void wake_for_locked(struct rdsp_sock *s, unsigned m)
{
	for (struct rdsp_waiter *w = s->waiters; w; w = w->next)
		if (w->ev == 0 || ((w->ev & POLLIN) && (m & RDSU_POLLIN)) ||
		    ((w->ev & POLLOUT) && (m & RDSU_POLLOUT)))
			wake(w);
}

void wake_all_locked(struct rdsp_sock *s)
{
	for (struct rdsp_waiter *w = s->waiters; w; w = w->next)
		wake(w);
}

/* Make |a| tell what the RDS socket's state is (see the header comment). */
void sync_sock(struct rdsp_sock *s)
{
	unsigned m;
	static char junk[4096];
	bool in;

	if (s->dm)
		return;
	m = s->us ? rdsu_sock_poll(s->us) : RDSU_POLLOUT;

	if (!s->opt.cong_monitor && (m & RDSU_POLLWRBAND))
		s->once_in = true;
	if (s->waiters)
		wake_for_locked(s, m);
	in = (m & RDSU_POLLIN) || (s->once_in && !s->opt.cong_monitor);
	if (in && (!s->in_token || (s->rx_edge && s->tokens < RDSP_EDGES))) {
		/* a byte more while readable: an edge for EPOLLET waiters,
		 * as the kernel's wake-up for each message gives them */
		if (REAL(send)(s->b, "r", 1, MSG_DONTWAIT | MSG_NOSIGNAL) == 1) {
			s->in_token = true;
			s->tokens++;
		}
	} else if (!in && s->in_token) {
		char c[RDSP_EDGES];

		while (REAL(recv)(s->a, c, sizeof(c), MSG_DONTWAIT) > 0)
			;
		s->in_token = false;
		s->tokens = 0;
	}
	s->rx_edge = false;
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

bool nonblocking(const struct rdsp_sock *s, int flags)
{
	int fl;

	if (flags & MSG_DONTWAIT)
		return true;
	fl = REAL(fcntl)(s->a, F_GETFL);
	return fl >= 0 && (fl & O_NONBLOCK);
}

/* SO_RCVTIMEO/SO_SNDTIMEO as the shim's end keeps them: ms, -1 for none. */
int timeo_ms(const struct rdsp_sock *s, int opt)
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

int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct timespec mono_after(const struct timespec *ts)
{
	struct timespec end;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += ts->tv_sec;
	end.tv_nsec += ts->tv_nsec;
	if (end.tv_nsec >= 1000000000) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000;
	}
	return end;
}

struct timespec mono_left(const struct timespec *end)
{
	struct timespec now, left;

	clock_gettime(CLOCK_MONOTONIC, &now);
	left.tv_sec = end->tv_sec - now.tv_sec;
	left.tv_nsec = end->tv_nsec - now.tv_nsec;
	if (left.tv_nsec < 0) {
		left.tv_sec--;
		left.tv_nsec += 1000000000;
	}
	if (left.tv_sec < 0)
		left.tv_sec = left.tv_nsec = 0;
	return left;
}

/*
 * Deadlines: one thread of the process (started by the first wait that
 * has one, again in a fork's child) wakes each waiter whose deadline has
 * passed. It sleeps on g_tcond, under g_lock, until the earliest.
 */
static pthread_cond_t g_tcond;
static pid_t g_tpid;

static void *timer_thread(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&g_lock);
	for (;;) {
		int64_t now = now_ms(), next = -1;

		for (struct rdsp_sock *s = g_socks; s; s = s->next)
			for (struct rdsp_waiter *w = s->waiters; w; w = w->next) {
				if (w->deadline < 0 || w->woken)
					continue;
				if (w->deadline <= now)
					wake(w);
				else if (next < 0 || w->deadline < next)
					next = w->deadline;
			}
		if (next < 0) {
			pthread_cond_wait(&g_tcond, &g_lock);
		} else {
			struct timespec ts = { .tv_sec = next / 1000,
					       .tv_nsec = (long)(next % 1000) * 1000000 };

			(void)pthread_cond_timedwait(&g_tcond, &g_lock, &ts);
		}
	}
	return NULL;
}

static int timer_locked(void)
{
	pthread_condattr_t ca;
	sigset_t all, old;
	pthread_t th;
	int e;

	if (g_tpid == getpid()) {
		pthread_cond_signal(&g_tcond);
		return 0;
	}
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&g_tcond, &ca);
	pthread_condattr_destroy(&ca);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	e = pthread_create(&th, NULL, timer_thread, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e)
		return -e;
	pthread_detach(th);
	g_tpid = getpid();
	return 0;
}

/*
 * Wait, with g_lock held and dropped meanwhile, until |s|'s state gives
 * |ev| (POLLIN, POLLOUT; 0: any change of the endpoint's state) or
 * |deadline| (now_ms(); -1: none) passes. The wait is a blocking read of
 * an eventfd, which fails with -ERESTARTSYS on a signal as the kernel's
 * wait_event_interruptible does: restarted by the kernel for a handler
 * with SA_RESTART, EINTR without. Return: 0 (look again); -ETIMEDOUT;
 * -EINTR; -EBADF when the socket was closed meanwhile, RDSP_MOVED when
 * it moved to rdsd; what eventfd fails with.
 */
int wait_sock_locked(struct rdsp_sock *s, short ev, int64_t deadline)
{
	struct rdsp_waiter w = { .ev = ev, .deadline = deadline }, **pp;
	uint64_t v;
	int e = 0;

	if (deadline >= 0 && now_ms() >= deadline)
		return -ETIMEDOUT;
	w.efd = eventfd(0, EFD_CLOEXEC);
	if (w.efd < 0)
		return -errno;
	w.next = s->waiters;
	s->waiters = &w;
	if (deadline >= 0) {
		e = timer_locked();
		if (e < 0)
			goto out;
	}
	pthread_mutex_unlock(&g_lock);
	if (REAL(read)(w.efd, &v, sizeof(v)) < 0)
		e = -errno;
	pthread_mutex_lock(&g_lock);
out:
	for (pp = &s->waiters; *pp; pp = &(*pp)->next)
		if (*pp == &w) {
			*pp = w.next;
			break;
		}
	REAL(close)(w.efd);
	if (s->closed)
		return s->moved ? RDSP_MOVED : -EBADF;
	if (e < 0)
		return e;
	if (deadline >= 0 && now_ms() >= deadline)
		return -ETIMEDOUT;
	return 0;
}

/*
 * poll, ppoll, select and pselect on a set holding RDS sockets: the real
 * descriptor tells POLLIN and POLLOUT; what rds_poll (net/rds/af_rds.c)
 * answers beyond that is set here:
 *  - POLLWRBAND only with the one-shot POLLIN a congestion map update
 *    gives a socket not in monitor mode (the stand-in Unix socket reports
 *    it with every POLLOUT);
 *  - that one-shot is spent by the poll that reports it
 *    (rds_cong_updated_since), where the stand-in would stay readable
 *    until the next recvmsg.
 * POLLIN is asked of the real descriptor in place of POLLWRBAND, so that
 * the one-shot wakes a poll for POLLWRBAND alone (which a queued message
 * then wakes too, and the poll goes on waiting).
 */
static bool any_ours(const struct pollfd *fds, nfds_t n)
{
	for (nfds_t i = 0; i < n; i++)
		if (fd_peek(fds[i].fd))
			return true;
	return false;
}

/* The real ppoll, also woken when an own socket of the set moves to rdsd
 * meanwhile: the kernel's poll looks again at a descriptor when woken, but
 * waits only on the files it found at first (do_poll), so it would never
 * wake for what now has the socket's number. Return: as ppoll, the move's
 * eventfd not counted. */
static int ppoll_moves(struct pollfd *fds, nfds_t n, const struct timespec *ts,
		       const sigset_t *mask)
{
	int efd = __atomic_load_n(&g_move_efd, __ATOMIC_RELAXED), r;
	bool own = false;
	struct pollfd *pf;

	for (nfds_t i = 0; i < n && !own; i++) {
		struct rdsp_sock *s = fd_peek(fds[i].fd);

		own = s && !s->dm;
	}
	if (!own || efd < 0)
		return REAL(ppoll)(fds, n, ts, mask);
	pf = alloca((n + 1) * sizeof(*pf));
	memcpy(pf, fds, n * sizeof(*pf));
	pf[n] = (struct pollfd){ .fd = efd, .events = POLLIN };
	r = REAL(ppoll)(pf, n + 1, ts, mask);
	if (r < 0)
		return r;
	for (nfds_t i = 0; i < n; i++)
		fds[i].revents = pf[i].revents;
	return pf[n].revents ? r - 1 : r;
}

static int poll_common(struct pollfd *fds, nfds_t n, const struct timespec *ts,
		       const sigset_t *mask)
{
	struct timespec end = { 0 }, left;
	short *asked;
	int r;

	if (n > (nfds_t)RDSP_POLL_MAX)
		return REAL(ppoll)(fds, n, ts, mask);
	asked = alloca(n * sizeof(*asked));
	if (ts) {
		left = *ts;
		end = mono_after(ts);
	}
	for (nfds_t i = 0; i < n; i++) {
		asked[i] = fds[i].events;
		/* POLLWRBAND is ours to tell: the real descriptor would give it
		 * with every POLLOUT; the one-shot comes as its POLLIN */
		if (fd_peek(fds[i].fd) && (fds[i].events & POLLWRBAND))
			fds[i].events = (short)((fds[i].events & ~POLLWRBAND) | POLLIN);
	}
	for (bool first = true;; first = false) {
		/* an rdsd socket's one-shot has no byte in the descriptor
		 * (sync_sock): it must not wait behind the real poll */
		struct timespec zero = { 0, 0 };
		bool at_once = false, moved;
		unsigned moves = atomic_load(&g_moves);

		for (nfds_t i = 0; first && i < n; i++) {
			struct rdsp_sock *s = fd_peek(fds[i].fd);

			at_once |= s && s->dm &&
				   (((s->once_in && !s->opt.cong_monitor) &&
				     (asked[i] & (POLLIN | POLLRDNORM | POLLWRBAND))) ||
				    (s->zq.n && (asked[i] & (POLLIN | POLLRDNORM))));
		}
		r = ppoll_moves(fds, n, at_once ? &zero : ts ? &left : NULL, mask);
		if (r < 0)
			break;
		pthread_mutex_lock(&g_lock);
		r = 0;
		/* a socket that moved to rdsd meanwhile was polled as its old
		 * stand-in, whose end the move closed: look again */
		moved = atomic_load(&g_moves) != moves;
		for (nfds_t i = 0; i < n; i++) {
			struct rdsp_sock *s = fd_peek(fds[i].fd);
			short ev = fds[i].revents;

			if (s && moved)
				fds[i].revents = ev = 0;
			if (s && !(ev & POLLNVAL)) {
				ev &= (short)~POLLWRBAND;
				/* an rdsd socket's notices are this process's
				 * (rds_poll: readable while one waits) */
				if (s->dm && s->zq.n)
					ev |= POLLIN | POLLRDNORM;
				if (s->once_in && !s->opt.cong_monitor) {
					ev |= POLLIN | POLLRDNORM | POLLWRBAND;
					s->once_in = false;
					sync_sock(s);
				}
				ev &= (short)(POLLERR | POLLHUP | asked[i]);
				fds[i].revents = ev;
			}
			if (fds[i].revents)
				r++;
		}
		pthread_mutex_unlock(&g_lock);
		if (r > 0)
			break;
		/* only what the caller did not ask for came: wait on */
		if (ts) {
			left = mono_left(&end);
			if (left.tv_sec == 0 && left.tv_nsec == 0)
				break;
		}
	}
	for (nfds_t i = 0; i < n; i++)
		fds[i].events = asked[i];
	return r;
}

RDSP_EXPORT int poll(struct pollfd *fds, nfds_t n, int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	if (!any_ours(fds, n))
		return REAL(poll)(fds, n, ms);
	return poll_common(fds, n, ms < 0 ? NULL : &ts, NULL);
}

/* glibc declares ppoll's |fds| write-only, which it is not. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
RDSP_EXPORT int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *ts,
		      const sigset_t *mask)
{
	if (!any_ours(fds, n))
		return REAL(ppoll)(fds, n, ts, mask);
	return poll_common(fds, n, ts, mask);
}
#pragma GCC diagnostic pop

/* select as the kernel's do_select sees a poll mask: readable for
 * POLLIN, POLLRDNORM, POLLRDBAND, POLLHUP, POLLERR; writable for POLLOUT,
 * POLLWRNORM, POLLWRBAND, POLLERR; exceptional for POLLPRI. */
static int select_common(int nfds, fd_set *r, fd_set *w, fd_set *x, struct timespec *ts,
			 const sigset_t *mask)
{
	struct pollfd p[FD_SETSIZE] = { { 0 } };
	nfds_t n = 0;
	int ret = 0;

	for (int fd = 0; fd < nfds; fd++) {
		short ev = 0;

		if (r && FD_ISSET(fd, r))
			ev |= POLLIN | POLLRDNORM | POLLRDBAND;
		if (w && FD_ISSET(fd, w))
			ev |= POLLOUT | POLLWRNORM | POLLWRBAND;
		if (x && FD_ISSET(fd, x))
			ev |= POLLPRI;
		if (ev)
			p[n++] = (struct pollfd){ .fd = fd, .events = ev };
	}
	{
		struct timespec end = { 0 };

		if (ts)
			end = mono_after(ts);
		if (poll_common(p, n, ts, mask) < 0)
			return -1;
		if (ts) /* select tells what is left of the timeout */
			*ts = mono_left(&end);
	}
	for (nfds_t i = 0; i < n; i++)
		if (p[i].revents & POLLNVAL)
			return set_errno(-EBADF);
	if (r)
		FD_ZERO(r);
	if (w)
		FD_ZERO(w);
	if (x)
		FD_ZERO(x);
	for (nfds_t i = 0; i < n; i++) {
		short ev = p[i].revents;

		if (r && (p[i].events & POLLIN) &&
		    (ev & (POLLIN | POLLRDNORM | POLLRDBAND | POLLHUP | POLLERR))) {
			FD_SET(p[i].fd, r);
			ret++;
		}
		if (w && (p[i].events & POLLOUT) &&
		    (ev & (POLLOUT | POLLWRNORM | POLLWRBAND | POLLERR))) {
			FD_SET(p[i].fd, w);
			ret++;
		}
		if (x && (p[i].events & POLLPRI) && (ev & POLLPRI)) {
			FD_SET(p[i].fd, x);
			ret++;
		}
	}
	return ret;
}

static bool set_has_ours(int nfds, fd_set *r, fd_set *w, fd_set *x)
{
	if (nfds < 0 || nfds > FD_SETSIZE)
		return false;
	for (int fd = 0; fd < nfds; fd++)
		if (((r && FD_ISSET(fd, r)) || (w && FD_ISSET(fd, w)) || (x && FD_ISSET(fd, x))) &&
		    fd_peek(fd))
			return true;
	return false;
}

RDSP_EXPORT int select(int nfds, fd_set *r, fd_set *w, fd_set *x, struct timeval *tv)
{
	struct timespec ts;
	int ret;

	if (!set_has_ours(nfds, r, w, x))
		return REAL(select)(nfds, r, w, x, tv);
	if (tv) {
		if (tv->tv_sec < 0 || tv->tv_usec < 0)
			return set_errno(-EINVAL);
		ts.tv_sec = tv->tv_sec + tv->tv_usec / 1000000;
		ts.tv_nsec = (tv->tv_usec % 1000000) * 1000;
	}
	ret = select_common(nfds, r, w, x, tv ? &ts : NULL, NULL);
	if (tv) {
		tv->tv_sec = ts.tv_sec;
		tv->tv_usec = ts.tv_nsec / 1000;
	}
	return ret;
}

RDSP_EXPORT int pselect(int nfds, fd_set *r, fd_set *w, fd_set *x, const struct timespec *t,
			const sigset_t *mask)
{
	struct timespec ts;

	if (!set_has_ours(nfds, r, w, x))
		return REAL(pselect)(nfds, r, w, x, t, mask);
	if (t)
		ts = *t;
	return select_common(nfds, r, w, x, t ? &ts : NULL, mask);
}

/*
 * epoll_ctl on an RDS socket: epoll polls the stand-in, which reports
 * POLLWRBAND with every POLLOUT; rds_poll reports it only with a map
 * update's one-shot, and epoll_ctl's own poll of a new socket spends that
 * (K7.7). So EPOLLWRBAND is not asked of the stand-in: an epoll user
 * never sees it (docs/shim.md, "epoll"). The rest passes as it is: level
 * and edge triggering, EPOLLONESHOT, the program's data.
 */
/* Keep |s|'s registration in |epfd| under |fd| as |op| made it. */
static void epreg_note_locked(struct rdsp_sock *s, int epfd, int op, int fd,
			      const struct epoll_event *ev)
{
	struct rdsp_epreg **pp, *r;

	for (pp = &s->eps; *pp; pp = &(*pp)->next)
		if ((*pp)->epfd == epfd && (*pp)->fd == fd)
			break;
	r = *pp;
	if (op == EPOLL_CTL_DEL) {
		if (r) {
			*pp = r->next;
			free(r);
		}
		return;
	}
	if (!r) {
		r = calloc(1, sizeof(*r));
		if (!r)
			return;   /* then it is not registered again after a move */
		r->epfd = epfd;
		r->fd = fd;
		*pp = r;
	}
	r->ev = *ev;
}

void epreg_free_locked(struct rdsp_sock *s)
{
	while (s->eps) {
		struct rdsp_epreg *r = s->eps;

		s->eps = r->next;
		free(r);
	}
}

/* |from|'s descriptors now name an rdsd socket (preload_share.c): the
 * epoll sets that held |from| lost it with its last reference (dup2), so
 * each registration is made again on the same descriptor. */
void epreg_move_locked(struct rdsp_sock *from)
{
	for (struct rdsp_epreg *r = from->eps; r; r = r->next) {
		struct epoll_event e = r->ev;
		struct rdsp_sock *now = fd_peek(r->fd);

		if (now && now->dm)
			(void)REAL(epoll_ctl)(r->epfd, EPOLL_CTL_ADD, r->fd, &e);
	}
	epreg_free_locked(from);
}

RDSP_EXPORT int epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev)
{
	struct epoll_event e;
	struct rdsp_sock *s;
	int r;

	if (op == EPOLL_CTL_DEL && fd_peek(fd)) {
		r = REAL(epoll_ctl)(epfd, op, fd, ev);
		s = get_locked(fd);
		if (s) {
			if (r == 0)
				epreg_note_locked(s, epfd, op, fd, NULL);
			put_locked(s);
		}
		return r;
	}
	if (!ev || (op != EPOLL_CTL_ADD && op != EPOLL_CTL_MOD) || !fd_peek(fd))
		return REAL(epoll_ctl)(epfd, op, fd, ev);
	/* the kernel's epoll_ctl polls the socket (ep_item_poll), which
	 * spends a pending one-shot */
	s = get_locked(fd);
	if (!s)
		return REAL(epoll_ctl)(epfd, op, fd, ev);
	if (!s->opt.cong_monitor && s->once_in) {
		s->once_in = false;
		sync_sock(s);
	}
	e = *ev;
	e.events &= ~(uint32_t)EPOLLWRBAND;
	r = REAL(epoll_ctl)(epfd, op, fd, &e);
	/* a per-process socket may move to rdsd: keep what it asked */
	if (r == 0 && !s->dm)
		epreg_note_locked(s, epfd, op, fd, &e);
	put_locked(s);
	return r;
}
