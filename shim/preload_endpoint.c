// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * preload_endpoint.c - librds-preload.so: the process's own librds
 * endpoint (per-process mode), the thread that runs it, and what fork
 * does to it. The map of the shim is shim/README.md.
 */
#include "preload.h"

pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
struct rdsu_io *g_io;
bool g_rdma;              /* the endpoint runs IB for its address */
static struct rdsu_addr g_laddr;
struct rdsp_sock *g_socks;
bool g_child;             /* a fork's child: the endpoint is the parent's */

/* Carry out what librds has to do now and update every socket's state. */
void pump_locked(void)
{
	struct rdsu_event ev;

	if (!g_io)
		return;
	(void)rdsu_io_run(g_io, 0);
	while (rdsu_ep_next_event(rdsu_io_ep(g_io), &ev) == 1)
		;
	for (struct rdsp_sock *s = g_socks; s; s = s->next)
		sync_sock(s);
}

/* Carry out what the application's call made the core queue (a message,
 * a congestion map after a read freed the port), without the run's poll. */
void flush_locked(void)
{
	struct rdsu_event ev;

	if (!g_io)
		return;
	(void)rdsu_io_flush(g_io);
	while (rdsu_ep_next_event(rdsu_io_ep(g_io), &ev) == 1)
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
	struct pollfd pfd[2] = { { .fd = rdsu_io_fd(g_io), .events = POLLIN },
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
