// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * preload_poll.c - librds-preload.so: readiness and waiting: the
 * application's descriptor |a| made to tell the RDS socket's state
 * (rds_poll), and how a blocking call waits. The map of the shim is
 * shim/README.md.
 */
#include "preload.h"

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

/* Wait, unlocked, for |ev| on |a|: 0 when it came, -ETIMEDOUT past
 * |deadline| (-1: none), -EINTR. */
int wait_a(int a, short ev, int64_t deadline)
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
