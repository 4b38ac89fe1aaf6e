// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * calls - the shim's call surface against the kernel's answers (issue 31):
 * signals in every blocking call with and without SA_RESTART, readv,
 * writev, write, sendmmsg, recvmmsg, dup/dup2/dup3, fcntl flags,
 * SOCK_NONBLOCK/SOCK_CLOEXEC, SO_RCVTIMEO/SO_SNDTIMEO, MSG_PEEK/MSG_TRUNC,
 * threads sharing a socket, the order of rds_sendmsg's errors (ENOTCONN
 * first), and what poll and select report (POLLWRBAND,
 * the one-shot POLLIN after a congestion map update). Written against the
 * kernel's AF_RDS only, as any unmodified program is; the kernel's answers
 * are in docs/kernel-behaviour.md ("The socket calls") and docs/shim.md.
 *
 *   calls client    the checks, on 127.0.0.1; exit 0 if all passed
 *   calls fork      a forked child and its parent sharing two sockets
 *   calls fork-own  a forked child binding its own socket per process
 *                   after its parent closed its only one (rds-stress)
 *   calls slow      a socket on 127.0.0.2:6000 with the smallest RCVBUF
 *                   that never reads (the client congests it), until killed
 *
 * CALLS_RDSD=1: the sockets are rdsd's; the checks rdsd cannot pass
 * (docs/shim.md, "Known differences with rdsd") are left out.
 *
 * Run on a kernel with RDS (no shim), the surface, the receive signals,
 * poll and fork checks pass; the full-SNDBUF and congestion checks do
 * not apply there: the kernel treats every address of the host as local
 * (127.0.3.7 and 127.0.0.2 go over its loopback transport, which holds no
 * SNDBUF and never congests), where a librds endpoint sends to any
 * address but its own over TCP (docs/shim.md).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/rds.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "afcheck.h"

static bool g_rdsd;

static int sock_on(unsigned port, int type)
{
	struct sockaddr_in a = sin_of("127.0.0.1", port);
	int fd = socket(AF_RDS, SOCK_SEQPACKET | type, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		perror("calls: socket/bind");
		exit(1);
	}
	return fd;
}

static ssize_t send_to(int fd, unsigned port, const void *m, size_t len)
{
	struct sockaddr_in to = sin_of("127.0.0.1", port);

	return sendto(fd, m, len, 0, (struct sockaddr *)&to, sizeof(to));
}

/* ---- signals ---- */

static volatile sig_atomic_t g_sigs;
static pid_t g_main_tid;

static void on_sig(int sig)
{
	(void)sig;
	g_sigs++;
}

static void handler(bool restart)
{
	struct sigaction sa = { .sa_handler = on_sig, .sa_flags = restart ? SA_RESTART : 0 };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
}

/* The main thread is asleep in a call: /proc/self/task/TID/stat says S. */
static void wait_main_sleeping(void)
{
	char path[64], buf[256];

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)g_main_tid);
	for (;;) {
		FILE *f = fopen(path, "r");
		char *p = NULL;

		if (f) {
			p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
			fclose(f);
		}
		if (p && p[1] == ' ' && p[2] == 'S')
			return;
		usleep(1000);
	}
}

enum after { AFTER_NOTHING, AFTER_SEND, AFTER_CANCEL };

struct poker {
	int fd;                      /* socket to send from, or to cancel on */
	unsigned port;               /* the receiver's, for AFTER_SEND */
	enum after after;
	bool nosig;                  /* only the after, no signal */
	bool await_return;           /* the call must return (EINTR) first */
};

/* Set by the main thread once the call a poker interrupts has returned. */
static volatile sig_atomic_t g_returned;

/* Signal the main thread once it sleeps in its call, then, once the
 * handler has run, make the call able to finish: a restarted call then
 * returns, one that was not returns EINTR. */
static void *poker(void *arg)
{
	struct poker *p = arg;
	sig_atomic_t before = g_sigs;

	wait_main_sleeping();
	if (!p->nosig && p->await_return) {
		/* Until the call has returned: asleep is not yet in the call
		 * (a lock on the way in sleeps too), and a signal that came
		 * before the call is spent, so signal again. */
		while (!g_returned) {
			syscall(SYS_tgkill, getpid(), g_main_tid, SIGUSR1);
			for (int i = 0; i < 100 && !g_returned; i++)
				usleep(1000);
		}
	} else if (!p->nosig) {
		syscall(SYS_tgkill, getpid(), g_main_tid, SIGUSR1);
		while (g_sigs == before)
			usleep(1000);
		usleep(20000);   /* let an interrupted call return, not timed */
	}
	if (p->after == AFTER_SEND) {
		if (send_to(p->fd, p->port, "after", 5) != 5)
			perror("calls: poker send");
	} else if (p->after == AFTER_CANCEL) {
		struct sockaddr_in nobody = sin_of("127.0.3.7", 4000);

		if (setsockopt(p->fd, SOL_RDS, RDS_CANCEL_SENT_TO, &nobody, sizeof(nobody)) < 0)
			perror("calls: poker cancel");
	}
	return NULL;
}

static pthread_t poke(struct poker *p)
{
	pthread_t th;
	sigset_t set, old;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	pthread_create(&th, NULL, poker, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return th;
}

static void set_timeo(int fd, int opt, long ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	CHECK(setsockopt(fd, SOL_SOCKET, opt, &tv, sizeof(tv)) == 0, "set timeout");
}

/* rds_recvmsg, rds_sendmsg and rds_cong_wait wait with
 * wait_event_interruptible(_timeout): -ERESTARTSYS, restarted after a
 * handler with SA_RESTART (also when a timeout is set), EINTR without;
 * poll is never restarted. */
static void checks_signals(void)
{
	int r = sock_on(5001, 0), s = sock_on(5002, 0);
	char buf[64];
	ssize_t n;

	for (int timed = 0; timed < 2; timed++) {
		struct poker p = { .fd = s, .port = 5001, .after = AFTER_SEND };
		pthread_t th;

		set_timeo(r, SO_RCVTIMEO, timed ? 60000 : 0);
		handler(false);
		th = poke(&p);
		n = recv(r, buf, sizeof(buf), 0);
		CHECK(n < 0 && errno == EINTR, "recv (timeout %d), no SA_RESTART: EINTR, got %zd",
		      timed, n);
		pthread_join(th, NULL);
		/* the poker's message, sent after the signal */
		CHECK(recv(r, buf, sizeof(buf), 0) == 5, "the poker's message");

		/* rdsd: a timed wait is a Unix socket's, EINTR (docs/shim.md) */
		if (g_rdsd && timed)
			continue;
		handler(true);
		th = poke(&p);
		n = recv(r, buf, sizeof(buf), 0);
		CHECK(n == 5 && !memcmp(buf, "after", 5),
		      "recv (timeout %d), SA_RESTART: restarted, got %zd", timed, n);
		pthread_join(th, NULL);
	}
	set_timeo(r, SO_RCVTIMEO, 0);

	{
		struct pollfd pf = { r, POLLIN, 0 };
		struct poker p = { .fd = s, .port = 5001, .after = AFTER_NOTHING };
		pthread_t th;

		(void)poll(&pf, 1, 0);   /* a pending one-shot (checks_poll) spent */
		handler(true);
		th = poke(&p);
		FAILS(poll(&pf, 1, -1), EINTR, "poll, SA_RESTART: EINTR (never restarted)");
		pthread_join(th, NULL);
	}

	if (!g_rdsd) {
		/* A full SNDBUF: a message to an address nobody serves stays
		 * queued. */
		int t = sock_on(5003, 0), v = 4096;
		struct sockaddr_in nobody = sin_of("127.0.3.7", 4000);
		static char msg[4096];

		CHECK(setsockopt(t, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v)) == 0, "SO_SNDBUF");
		CHECK(sendto(t, msg, sizeof(msg), 0, (struct sockaddr *)&nobody, sizeof(nobody)) ==
		      (ssize_t)sizeof(msg), "first message queues");
		for (int timed = 0; timed < 2; timed++) {
			struct poker p = { .fd = t, .after = AFTER_CANCEL, .await_return = true };
			pthread_t th;

			set_timeo(t, SO_SNDTIMEO, timed ? 60000 : 0);
			handler(false);
			g_returned = 0;
			th = poke(&p);
			n = sendto(t, msg, sizeof(msg), 0, (struct sockaddr *)&nobody, sizeof(nobody));
			g_returned = 1;
			CHECK(n < 0 && errno == EINTR,
			      "send on full SNDBUF (timeout %d), no SA_RESTART: EINTR, got %zd", timed,
			      n);
			pthread_join(th, NULL);
			/* the poker cancelled the queued message: queue one again */
			CHECK(sendto(t, msg, sizeof(msg), 0, (struct sockaddr *)&nobody,
				     sizeof(nobody)) == (ssize_t)sizeof(msg), "queue again");

			handler(true);
			th = poke(&p);
			n = sendto(t, msg, sizeof(msg), 0, (struct sockaddr *)&nobody, sizeof(nobody));
			CHECK(n == (ssize_t)sizeof(msg),
			      "send on full SNDBUF (timeout %d), SA_RESTART: restarted, got %zd", timed,
			      n);
			pthread_join(th, NULL);
		}
		set_timeo(t, SO_SNDTIMEO, 100);
		FAILS(sendto(t, msg, sizeof(msg), 0, (struct sockaddr *)&nobody, sizeof(nobody)),
		      ETIMEDOUT, "SO_SNDTIMEO: ETIMEDOUT");
		{
			/* A message waits on |t| and its SNDBUF is full: a poll
			 * for POLLOUT alone waits until room comes, the message
			 * does not end it. */
			struct pollfd pf = { t, POLLOUT, 0 };
			struct poker p = { .fd = t, .after = AFTER_CANCEL, .nosig = true };
			pthread_t th;
			int pn;

			CHECK(send_to(s, 5003, "queued", 6) == 6, "a message for t");
			th = poke(&p);
			pn = poll(&pf, 1, -1);
			CHECK(pn == 1 && pf.revents == POLLOUT, "poll POLLOUT until room: %d %#x", pn,
			      pf.revents);
			pthread_join(th, NULL);
		}
		close(t);
	}
	set_timeo(r, SO_RCVTIMEO, 100);
	n = recv(r, buf, sizeof(buf), 0);
	CHECK(n < 0 && errno == ETIMEDOUT, "SO_RCVTIMEO: ETIMEDOUT, got %zd", n);
	signal(SIGUSR1, SIG_IGN);
	close(r);
	close(s);
}

/* ---- the call surface ---- */

/* rds_sendmsg answers ENOTCONN for an unbound socket, or one without a
 * destination, before it looks at the size, the cmsgs or MSG_ZEROCOPY
 * (net/rds/send.c; an rdsd socket's client checked those first). */
static void checks_send_order(void)
{
	int u = socket(AF_RDS, SOCK_SEQPACKET, 0), s = sock_on(5013, 0);
	struct sockaddr_in to = sin_of("127.0.0.1", 5011);
	size_t big = 2u << 20;
	char *m = calloc(1, big), b[1] = { 'x' };
	union {
		struct cmsghdr c;
		char b[CMSG_SPACE(8)];
	} cm = { 0 };
	struct iovec iov = { b, 1 };
	struct msghdr mh = { .msg_name = &to, .msg_namelen = sizeof(to), .msg_iov = &iov,
			     .msg_iovlen = 1, .msg_control = &cm, .msg_controllen = sizeof(cm) };

	CHECK(u >= 0 && m, "socket");
	cm.c.cmsg_level = SOL_RDS;
	cm.c.cmsg_type = 99;    /* no such cmsg: EINVAL once bound */
	cm.c.cmsg_len = CMSG_LEN(8);
	FAILS(sendto(u, m, big, 0, (struct sockaddr *)&to, sizeof(to)), ENOTCONN,
	      "unbound, 2 MiB");
	FAILS(sendmsg(u, &mh, 0), ENOTCONN, "unbound, an unknown cmsg");
	FAILS(sendto(u, b, 1, MSG_ZEROCOPY, (struct sockaddr *)&to, sizeof(to)), ENOTCONN,
	      "unbound, MSG_ZEROCOPY without a cookie");
	{
		int one = 1;

		CHECK(setsockopt(u, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one)) == 0, "SO_ZEROCOPY");
		FAILS(sendto(u, b, 1, MSG_ZEROCOPY, (struct sockaddr *)&to, sizeof(to)), ENOTCONN,
		      "unbound, SO_ZEROCOPY, MSG_ZEROCOPY");
		/* rds_cancel_sent_to: ENOTCONN before the value's length */
		FAILS(setsockopt(u, SOL_RDS, RDS_CANCEL_SENT_TO, b, 1), ENOTCONN,
		      "unbound, RDS_CANCEL_SENT_TO with 1 byte");
		FAILS(setsockopt(s, SOL_RDS, RDS_CANCEL_SENT_TO, b, 1), EINVAL,
		      "bound, RDS_CANCEL_SENT_TO with 1 byte");
	}
	FAILS(sendmsg(s, &mh, 0), EINVAL, "bound, an unknown cmsg");
	mh.msg_name = NULL;
	mh.msg_namelen = 0;
	FAILS(sendmsg(s, &mh, 0), ENOTCONN, "bound, no destination, an unknown cmsg");
	FAILS(send(s, m, big, 0), ENOTCONN, "bound, no destination, 2 MiB");
	FAILS(sendto(s, m, big, 0, (struct sockaddr *)&to, sizeof(to)), EMSGSIZE, "bound, 2 MiB");
	/* rds_connect needs no bind: connected, still unbound (its name is
	 * the any address) */
	CHECK(connect(u, (struct sockaddr *)&to, sizeof(to)) == 0, "connect an unbound socket");
	FAILS(sendmsg(u, &mh, 0), ENOTCONN, "connected, unbound, an unknown cmsg");
	{
		struct rds_get_mr_args mr = { .vec = { (unsigned long)b, 1 } };

		FAILS(setsockopt(u, SOL_RDS, RDS_GET_MR, &mr, sizeof(mr)), ENOTCONN,
		      "connected, unbound, RDS_GET_MR");
	}
	free(m);
	close(u);
	close(s);
}

static void checks_surface(void)
{
	int r = sock_on(5011, 0), s = sock_on(5012, 0), d;
	char a[4], b[16], buf[64];
	struct iovec iov[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
	struct sockaddr_in to = sin_of("127.0.0.1", 5011), from[4];
	struct mmsghdr mm[4];
	struct iovec miov[4];
	char mbuf[4][16];
	ssize_t n;

	/* write and writev: sock_write_iter's MSG_EOR, which RDS refuses */
	CHECK(connect(s, (struct sockaddr *)&to, sizeof(to)) == 0, "connect");
	FAILS(write(s, "w", 1), EOPNOTSUPP, "write");
	FAILS(writev(s, iov, 2), EOPNOTSUPP, "writev");
	{
		volatile int neg = -1;   /* hidden from the compiler's checks */

		FAILS(writev(s, iov, neg), EINVAL, "writev, negative count");
	}
	FAILS(send(s, "x", 1, MSG_NOSIGNAL), EOPNOTSUPP, "send MSG_NOSIGNAL");

	/* read and readv: 0 for no room, without waiting; else one message */
	CHECK(read(r, buf, 0) == 0, "read of 0 bytes returns 0 at once");
	CHECK(send(s, "0123456789", 10, 0) == 10, "send connected");
	n = readv(r, iov, 2);
	CHECK(n == 10 && !memcmp(a, "0123", 4) && !memcmp(b, "456789", 6), "readv: %zd", n);
	CHECK(readv(r, iov, 0) == 0, "readv of nothing");

	/* sendmmsg: MSG_BATCH on all but the last, refused: only one goes */
	memset(mm, 0, sizeof(mm));
	for (int i = 0; i < 4; i++) {
		miov[i] = (struct iovec){ mbuf[i], sizeof(mbuf[i]) };
		snprintf(mbuf[i], sizeof(mbuf[i]), "m%d", i);
		mm[i].msg_hdr.msg_iov = &miov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
		miov[i].iov_len = 2;
	}
	FAILS(sendmmsg(s, mm, 3, 0), EOPNOTSUPP, "sendmmsg of 3 (MSG_BATCH)");
	FAILS(recv(r, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN, "nothing sent");
	for (int i = 0; i < 3; i++) {
		CHECK(sendmmsg(s, &mm[i], 1, 0) == 1 && mm[i].msg_len == 2, "sendmmsg of 1");
	}
	/* recvmmsg: MSG_WAITFORONE, then whatever is there */
	for (int i = 0; i < 4; i++) {
		miov[i].iov_len = sizeof(mbuf[i]);
		memset(mbuf[i], 0, sizeof(mbuf[i]));
		mm[i].msg_hdr.msg_name = &from[i];
		mm[i].msg_hdr.msg_namelen = sizeof(from[i]);
	}
	n = recvmmsg(r, mm, 3, 0, NULL);   /* blocking: waits for all three */
	CHECK(n == 3, "recvmmsg: 3, got %zd", n);
	for (int i = 0; i < 3 && n == 3; i++)
		CHECK(mm[i].msg_len == 2 && mbuf[i][0] == 'm' && mbuf[i][1] == '0' + i &&
		      ntohs(from[i].sin_port) == 5012, "recvmmsg entry %d", i);
	FAILS(recvmmsg(r, mm, 4, MSG_DONTWAIT, NULL), EAGAIN, "recvmmsg, nothing");
	mm[0].msg_hdr.msg_name = NULL;     /* to the connected address again */
	mm[0].msg_hdr.msg_namelen = 0;
	CHECK(sendmmsg(s, &mm[0], 1, 0) == 1, "sendmmsg of 1");
	n = recvmmsg(r, mm, 4, MSG_WAITFORONE, NULL);
	CHECK(n == 1 && mm[0].msg_len == sizeof(mbuf[0]), "recvmmsg MSG_WAITFORONE: 1, got %zd", n);

	/* MSG_PEEK leaves it; MSG_TRUNC answers the whole length */
	CHECK(send(s, "peekaboo", 8, 0) == 8, "send");
	CHECK(recv(r, buf, sizeof(buf), MSG_PEEK) == 8, "MSG_PEEK");
	{
		struct iovec i1 = { buf, 4 };
		struct msghdr mh = { .msg_iov = &i1, .msg_iovlen = 1 };

		n = recvmsg(r, &mh, MSG_TRUNC);
		CHECK(n == 8 && (mh.msg_flags & MSG_TRUNC) && !memcmp(buf, "peek", 4),
		      "MSG_TRUNC: %zd", n);
	}

	/* dup, dup2, dup3 name the same socket; it lives until the last */
	d = dup(s);
	CHECK(d >= 0 && send(d, "dup", 3, 0) == 3, "send on dup");
	CHECK(recv(r, buf, sizeof(buf), 0) == 3, "from dup");
	{
		int d2 = dup2(s, 100), d3 = dup3(s, 101, O_CLOEXEC);

		CHECK(d2 == 100 && !(fcntl(d2, F_GETFD) & FD_CLOEXEC), "dup2");
		CHECK(d3 == 101 && (fcntl(d3, F_GETFD) & FD_CLOEXEC), "dup3 O_CLOEXEC");
		close(s);
		CHECK(send(d3, "d3", 2, 0) == 2, "send on dup3 after close of the first");
		CHECK(recv(r, buf, sizeof(buf), 0) == 2, "from dup3");
		close(d2);
		close(d3);
	}
	close(d);

	/* fcntl O_NONBLOCK; SOCK_NONBLOCK, SOCK_CLOEXEC */
	CHECK(fcntl(r, F_SETFL, fcntl(r, F_GETFL) | O_NONBLOCK) == 0 &&
	      (fcntl(r, F_GETFL) & O_NONBLOCK), "O_NONBLOCK");
	FAILS(recv(r, buf, sizeof(buf), 0), EAGAIN, "recv, O_NONBLOCK");
	FAILS(read(r, buf, sizeof(buf)), EAGAIN, "read, O_NONBLOCK");
	CHECK(fcntl(r, F_SETFL, fcntl(r, F_GETFL) & ~O_NONBLOCK) == 0, "blocking again");
	{
		int nb = sock_on(5013, SOCK_NONBLOCK | SOCK_CLOEXEC), bl = sock_on(5014, 0);

		FAILS(recv(nb, buf, sizeof(buf), 0), EAGAIN, "SOCK_NONBLOCK");
		CHECK(fcntl(nb, F_GETFD) & FD_CLOEXEC, "SOCK_CLOEXEC");
		CHECK(!(fcntl(bl, F_GETFD) & FD_CLOEXEC), "no SOCK_CLOEXEC");
		CHECK(fcntl(bl, F_SETFD, FD_CLOEXEC) == 0 && (fcntl(bl, F_GETFD) & FD_CLOEXEC),
		      "FD_CLOEXEC by fcntl");
		close(nb);
		close(bl);
	}

	/* threads sharing a socket: two blocked readers, one message each;
	 * a send from the socket while its readers wait */
	{
		struct reader r1 = { .fd = r, .n = -1 }, r2 = { .fd = r, .n = -1 };
		pthread_t t1, t2;

		pthread_create(&t1, NULL, reader, &r1);
		pthread_create(&t2, NULL, reader, &r2);
		usleep(50000);   /* not asserted: the readers are usually asleep */
		CHECK(send_to(r, 5011, "one", 3) == 3, "send to itself while read");
		CHECK(send_to(r, 5011, "two", 3) == 3, "send to itself while read");
		pthread_join(t1, NULL);
		pthread_join(t2, NULL);
		CHECK(r1.n == 3 && r2.n == 3 && memcmp(r1.buf, r2.buf, 3) &&
		      (!memcmp(r1.buf, "one", 3) || !memcmp(r1.buf, "two", 3)) &&
		      (!memcmp(r2.buf, "one", 3) || !memcmp(r2.buf, "two", 3)),
		      "one message each: %zd %zd", r1.n, r2.n);
	}
	close(r);
}

/* ---- poll ---- */

/* rds_poll: POLLWRBAND only with a map update's one-shot POLLIN; that
 * one-shot goes to the first poll after the update. */
static void checks_poll(const char *self)
{
	int x = sock_on(5021, 0), s = sock_on(5022, 0), st[2], enobufs = 0;
	struct pollfd pf = { x, POLLOUT | POLLWRBAND, 0 };
	struct sockaddr_in slow = sin_of("127.0.0.2", 6000);
	static char msg[2000];
	fd_set rs, ws;
	struct timeval tv = { 0, 0 };
	pid_t pid;
	char c;

	/* The kernel's new socket has seen no map generation yet
	 * (rs_cong_track 0): its first poll reports the one-shot if the host
	 * ever updated a map. Spend it, then look. */
	(void)poll(&pf, 1, 0);
	pf.revents = 0;
	CHECK(poll(&pf, 1, 0) == 1 && pf.revents == POLLOUT, "POLLOUT without POLLWRBAND: %#x",
	      pf.revents);
	FD_ZERO(&rs);
	FD_ZERO(&ws);
	FD_SET(x, &rs);
	FD_SET(x, &ws);
	CHECK(select(x + 1, &rs, &ws, NULL, &tv) == 1 && FD_ISSET(x, &ws) && !FD_ISSET(x, &rs),
	      "select: writable, not readable");
	if (g_rdsd) {
		close(x);
		close(s);
		return;
	}

	/* a process of its own on 127.0.0.2 whose port congests */
	CHECK(pipe(st) == 0, "pipe");
	pid = fork();
	if (pid == 0) {
		dup2(st[1], 1);
		execl(self, self, "slow", (char *)NULL);
		_exit(127);
	}
	close(st[1]);
	CHECK(read(st[0], &c, 1) == 1, "slow peer ready");
	for (int i = 0; i < 20000 && !enobufs; i++) {
		ssize_t n = sendto(s, msg, sizeof(msg), MSG_DONTWAIT, (struct sockaddr *)&slow,
				   sizeof(slow));

		if (n < 0 && errno == ENOBUFS) {
			enobufs = 1;
		} else if (n < 0) {
			struct pollfd po = { s, POLLOUT, 0 };

			(void)poll(&po, 1, 1000);
		} else {
			(void)poll(NULL, 0, 1);
		}
	}
	CHECK(enobufs, "the slow port never congested");
	pf = (struct pollfd){ x, POLLIN | POLLWRBAND, 0 };
	CHECK(poll(&pf, 1, 5000) == 1 && pf.revents == (POLLIN | POLLWRBAND),
	      "after a map update: POLLIN|POLLWRBAND once: %#x", pf.revents);
	{
		/* Spent: a later poll reports nothing (more updates may still
		 * come, each once), where it stays readable until a recv if
		 * not spent. */
		bool quiet = false;

		for (int i = 0; i < 100 && !quiet; i++) {
			pf = (struct pollfd){ x, POLLIN, 0 };
			quiet = poll(&pf, 1, 20) == 0;
		}
		CHECK(quiet, "the one-shot POLLIN is spent by the poll that reports it");
	}
	FAILS(recv(x, msg, sizeof(msg), MSG_DONTWAIT), EAGAIN, "no message for the update");
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	close(st[0]);
	close(x);
	close(s);
}

/* ---- fork ---- */

/* The kernel's child shares its parent's sockets: both send and receive
 * on them, and the parent goes on using them after the child is gone. */
static int checks_fork(void)
{
	int r = sock_on(7001, 0), s = sock_on(7002, 0);
	struct sockaddr_in got, from;
	socklen_t l = sizeof(got), fl = sizeof(from);
	char buf[64];
	pid_t pid;
	int st = -1;

	CHECK(send_to(s, 7001, "before", 6) == 6 && recv(r, buf, sizeof(buf), 0) == 6,
	      "before the fork");
	pid = fork();
	if (pid == 0) {
		ssize_t n = recv(r, buf, sizeof(buf), 0);

		if (n != 3 || memcmp(buf, "p2c", 3)) {
			fprintf(stderr, "FAIL: child: recv on the inherited socket: %zd (%s)\n", n,
				strerror(errno));
			_exit(1);
		}
		if (send_to(r, 7002, "c2p", 3) != 3) {
			fprintf(stderr, "FAIL: child: send on the inherited socket: %s\n",
				strerror(errno));
			_exit(1);
		}
		_exit(0);
	}
	CHECK(pid > 0, "fork");
	CHECK(send_to(s, 7001, "p2c", 3) == 3, "parent sends to the child's socket");
	CHECK(recvfrom(s, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl) == 3 &&
	      !memcmp(buf, "c2p", 3) && ntohs(from.sin_port) == 7001, "the child's message");
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the child passed");
	CHECK(getsockname(r, (struct sockaddr *)&got, &l) == 0 && ntohs(got.sin_port) == 7001,
	      "still bound after the fork");
	CHECK(send_to(s, 7001, "again", 5) == 5 && recv(r, buf, sizeof(buf), 0) == 5 &&
	      !memcmp(buf, "again", 5), "the parent after the child");
	close(r);
	close(s);
	printf("%s\n", failed ? "FAILED" : "all passed");
	return failed;
}

/* rds-stress's way (issue 30): the parent probes with a socket it
 * closes, then a forked child binds its own on the same address, per
 * process, and talks to the parent's new socket on another address. */
static int bound_on(const char *ip, unsigned port, int type)
{
	struct sockaddr_in a = sin_of(ip, port);
	int fd = socket(AF_RDS, SOCK_SEQPACKET | type, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		fprintf(stderr, "FAIL: socket/bind on %s:%u: %s\n", ip, port, strerror(errno));
		exit(1);
	}
	return fd;
}

static int checks_fork_own(void)
{
	struct sockaddr_in to = sin_of("127.0.4.2", 7013), from;
	socklen_t fl = sizeof(from);
	struct timeval tv = { 20, 0 };
	char buf[64];
	int st = -1, s, go[2];
	pid_t pid;
	char x;

	/* The child sends once the parent's endpoint listens: a first
	 * connection refused would put librds's reconnect backoff, not the
	 * fork, between the child and its answer on a loaded machine. */
	CHECK(pipe(go) == 0, "pipe");
	close(bound_on("127.0.4.1", 7011, 0));
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &x, 1) != 1)
			_exit(1);
		int c = bound_on("127.0.4.1", 7012, SOCK_NONBLOCK);

		for (int i = 0; i < 100; i++) {
			(void)sendto(c, "hello", 5, 0, (struct sockaddr *)&to, sizeof(to));
			usleep(100 * 1000);
			if (recv(c, buf, sizeof(buf), 0) == 2 && !memcmp(buf, "ok", 2))
				_exit(0);
		}
		fprintf(stderr, "FAIL: child: no answer from the parent\n");
		_exit(1);
	}
	CHECK(pid > 0, "fork");
	s = bound_on("127.0.4.2", 7013, 0);
	CHECK(setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == 0, "SO_RCVTIMEO");
	close(go[0]);
	CHECK(write(go[1], "g", 1) == 1, "the child told to start");
	close(go[1]);
	CHECK(recvfrom(s, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl) == 5 &&
	      !memcmp(buf, "hello", 5) && ntohs(from.sin_port) == 7012,
	      "the child's message from its own socket");
	CHECK(sendto(s, "ok", 2, 0, (struct sockaddr *)&from, fl) == 2, "the parent answers");
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the child bound, sent and heard the answer");
	close(s);
	printf("%s\n", failed ? "FAILED" : "all passed");
	return failed;
}

static int slow(void)
{
	struct sockaddr_in a = sin_of("127.0.0.2", 6000);
	int fd = socket(AF_RDS, SOCK_SEQPACKET, 0), one = 1;

	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		perror("calls slow");
		return 1;
	}
	if (write(1, "r", 1) != 1)
		return 1;
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	g_rdsd = getenv("CALLS_RDSD") && !strcmp(getenv("CALLS_RDSD"), "1");
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && !strcmp(argv[1], "slow"))
		return slow();
	if (argc == 2 && !strcmp(argv[1], "fork"))
		return checks_fork();
	if (argc == 2 && !strcmp(argv[1], "fork-own"))
		return checks_fork_own();
	if (argc != 2 || strcmp(argv[1], "client")) {
		fprintf(stderr, "usage: calls client | calls fork | calls fork-own | calls slow\n");
		return 2;
	}
	g_main_tid = (pid_t)syscall(SYS_gettid);
	checks_surface();
	checks_send_order();
	printf("surface done\n");
	checks_signals();
	printf("signals done\n");
	checks_poll(argv[0]);
	printf("%s\n", failed ? "FAILED" : "all passed");
	return failed;
}
