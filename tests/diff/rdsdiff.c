// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rdsdiff - the differential AF_RDS suite (issue 31). A program written
 * against the kernel's AF_RDS only, as any unmodified RDS program is. It
 * runs a list of cases, each a short sequence of calls, and prints for each
 * a canonical transcript: every call's return value and errno name, the
 * cmsgs a receive returned (level, type, length, a class of the content),
 * poll bits, and a timing class (immediate, times-out, waited) - never a
 * raw time, address of memory, inode or counter value that changes from
 * run to run. The same binary runs on a kernel in a lab guest and through
 * rdsrun on the host (per process and via rdsd); tests/diff/difftest.py
 * compares the transcripts and tests/diff/expected.txt lists the
 * differences that are expected, each with its reason.
 *
 *   rdsdiff --list                 the case ids, one a line
 *   rdsdiff [--case ID]... A H     run every case (or those named), each in
 *                                  a process of its own (fork and exec, so
 *                                  that each case starts as a new program)
 *
 * A is a loopback address (127.0.0.1: the kernel's loopback transport), H
 * a local address that is not on loopback (the kernel's TCP transport);
 * both must be the host's own. Ports 20000 + 16 * case number upwards.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/rds.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef RDS_TRANS_LOOP
#define RDS_TRANS_LOOP 3
#endif
#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY 60
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
#endif
#ifndef SO_TIMESTAMP_OLD
#define SO_TIMESTAMP_OLD 29
#endif

static const char *g_a, *g_h;   /* loopback address, non-loopback address */
static unsigned g_port;         /* this case's first port */
static long g_wmem_max, g_rmem_max;

/* ------------------------------------------------------------------ */
/* Canonical printing                                                  */
/* ------------------------------------------------------------------ */

static const char *errname(int e)
{
	const char *n = strerrorname_np(e);

	return n ? n : "E?";
}

/* "ret=R" or "ret=-1 ENAME" */
static void out(const char *step, long ret, int err, const char *extra)
{
	if (ret < 0)
		printf("%s ret=-1 %s%s%s\n", step, errname(err), extra ? " " : "",
		       extra ? extra : "");
	else
		printf("%s ret=%ld%s%s\n", step, ret, extra ? " " : "", extra ? extra : "");
	fflush(stdout);
}

#define CALL(step, expr)                                                                 \
	do {                                                                             \
		errno = 0;                                                               \
		long r_ = (long)(expr);                                                  \
		out(step, r_, errno, NULL);                                              \
	} while (0)

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The timing class of a call that took |dt| s and failed with |err| (0:
 * it did not) under a timeout of |limit| s (0: none): a class, never the
 * time, so that runs compare. The bounds are wide (a loaded CI machine, a
 * guest under TCG): a case that waits for something waits 0.6 s or more. */
static const char *timing(double dt, int err, double limit)
{
	if (limit > 0 && (err == EAGAIN || err == ETIMEDOUT) && dt >= limit * 0.8)
		return "times-out";
	if (dt < 0.5)
		return "immediate";
	return "waited";
}

static const char *addr_class(const struct sockaddr_in *s)
{
	char b[INET_ADDRSTRLEN];

	if (s->sin_family != AF_INET)
		return "family?";
	inet_ntop(AF_INET, &s->sin_addr, b, sizeof(b));
	if (!strcmp(b, g_a))
		return "A";
	if (!strcmp(b, g_h))
		return "H";
	if (s->sin_addr.s_addr == 0)
		return "any";
	return "other";
}

static void poll_out(const char *step, int fd, short events)
{
	struct pollfd p = { .fd = fd, .events = events };
	char b[128] = "";
	int r;

	errno = 0;
	r = poll(&p, 1, 0);
	if (r > 0) {
		static const struct { short bit; const char *name; } bits[] = {
			{ POLLIN, "IN" }, { POLLPRI, "PRI" }, { POLLOUT, "OUT" },
			{ POLLERR, "ERR" }, { POLLHUP, "HUP" }, { POLLNVAL, "NVAL" },
			{ POLLRDNORM, "RDNORM" }, { POLLRDBAND, "RDBAND" },
			{ POLLWRNORM, "WRNORM" }, { POLLWRBAND, "WRBAND" },
		};
		strcpy(b, "revents=");
		for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
			if (p.revents & bits[i].bit) {
				strcat(b, bits[i].name);
				strcat(b, "|");
			}
		b[strlen(b) - 1] = 0;
	}
	out(step, r, errno, r > 0 ? b : NULL);
}

/* ------------------------------------------------------------------ */
/* Sockets                                                             */
/* ------------------------------------------------------------------ */

static struct sockaddr_in sin_of(const char *a, unsigned port)
{
	struct sockaddr_in s = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };

	if (inet_pton(AF_INET, a, &s.sin_addr) != 1) {
		fprintf(stderr, "rdsdiff: bad address %s\n", a);
		exit(2);
	}
	return s;
}

static int sock(const char *step)
{
	errno = 0;
	int fd = socket(AF_RDS, SOCK_SEQPACKET, 0);

	out(step, fd < 0 ? -1 : 0, errno, NULL);
	return fd;
}

static int do_bind(const char *step, int fd, const char *a, unsigned port)
{
	struct sockaddr_in s = sin_of(a, port);

	errno = 0;
	int r = bind(fd, (struct sockaddr *)&s, sizeof(s));

	out(step, r, errno, NULL);
	return r;
}

/* A socket bound on |a|:|port| with a receive timeout of |tmo_ms|. */
static int bound(const char *step, const char *a, unsigned port, int tmo_ms)
{
	int fd = sock(step);

	if (fd < 0)
		return fd;
	if (tmo_ms) {
		struct timeval tv = { .tv_sec = tmo_ms / 1000, .tv_usec = (tmo_ms % 1000) * 1000 };

		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	char b[64];
	snprintf(b, sizeof(b), "%s.bind", step);
	do_bind(b, fd, a, port);
	return fd;
}

static long send_to(const char *step, int fd, const char *a, unsigned port, const void *buf,
		    size_t len, int flags, const void *cmsg, size_t cmsglen)
{
	struct sockaddr_in d = sin_of(a, port);
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr m = { .msg_name = &d, .msg_namelen = sizeof(d), .msg_iov = &iov,
			    .msg_iovlen = 1, .msg_control = (void *)cmsg,
			    .msg_controllen = cmsglen };
	double t0 = now();

	errno = 0;
	long r = sendmsg(fd, &m, flags);
	char b[64];

	int e = errno;
	snprintf(b, sizeof(b), "t=%s", timing(now() - t0, r < 0 ? e : 0, 0));
	out(step, r, e, b);
	return r;
}

static long send_str(const char *step, int fd, const char *a, unsigned port, const char *s)
{
	return send_to(step, fd, a, port, s, strlen(s), 0, NULL, 0);
}

static const char *cmsg_class(const struct cmsghdr *c, size_t room)
{
	size_t n = c->cmsg_len - CMSG_LEN(0);
	const unsigned char *d = CMSG_DATA(c);
	bool zero = true;

	if (c->cmsg_len < CMSG_LEN(0) || c->cmsg_len > room)
		return "bad-length";
	for (size_t i = 0; i < n; i++)
		if (d[i])
			zero = false;
	if (n == 0)
		return "empty";
	return zero ? "zero" : "nonzero";
}

static const char *cmsg_name(const struct cmsghdr *c, char *b, size_t bl)
{
	if (c->cmsg_level == SOL_RDS) {
		static const char *const t[] = {
			[RDS_CMSG_RDMA_ARGS] = "RDMA_ARGS", [RDS_CMSG_RDMA_DEST] = "RDMA_DEST",
			[RDS_CMSG_RDMA_MAP] = "RDMA_MAP", [RDS_CMSG_RDMA_STATUS] = "RDMA_STATUS",
			[RDS_CMSG_CONG_UPDATE] = "CONG_UPDATE",
			[RDS_CMSG_RXPATH_LATENCY] = "RXPATH_LATENCY",
			[RDS_CMSG_ZCOPY_COOKIE] = "ZCOPY_COOKIE",
			[RDS_CMSG_ZCOPY_COMPLETION] = "ZCOPY_COMPLETION",
		};
		if (c->cmsg_type >= 0 && (size_t)c->cmsg_type < sizeof(t) / sizeof(t[0]) &&
		    t[c->cmsg_type])
			snprintf(b, bl, "RDS/%s", t[c->cmsg_type]);
		else
			snprintf(b, bl, "RDS/%d", c->cmsg_type);
	} else if (c->cmsg_level == SOL_SOCKET) {
		snprintf(b, bl, "SOCKET/%d", c->cmsg_type);
	} else {
		snprintf(b, bl, "%d/%d", c->cmsg_level, c->cmsg_type);
	}
	return b;
}

/* recvmsg with |flags| into |cap| bytes: return value, errno, the flags
 * returned, the sender's class and port offset, the cmsgs, the payload's
 * first bytes (our own, so stable) and the timing class. */
static long recv_out(const char *step, int fd, size_t cap, int flags, double limit)
{
	char buf[4096], ctl[512] = { 0 }, b[1024], nb[64];
	struct sockaddr_in from = { 0 };
	struct iovec iov = { .iov_base = buf, .iov_len = cap < sizeof(buf) ? cap : sizeof(buf) };
	struct msghdr m = { .msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &iov,
			    .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	double t0 = now();

	errno = 0;
	long r = recvmsg(fd, &m, flags);
	int e = errno;
	double dt = now() - t0;
	int o;

	if (r < 0) {
		snprintf(b, sizeof(b), "t=%s", timing(dt, e, limit));
		out(step, r, e, b);
		return r;
	}
	o = snprintf(b, sizeof(b), "t=%s flags=%s%s%s", timing(dt, 0, limit),
		     m.msg_flags & MSG_TRUNC ? "TRUNC" : "",
		     m.msg_flags & MSG_CTRUNC ? "CTRUNC" : "",
		     m.msg_flags & ~(MSG_TRUNC | MSG_CTRUNC) ? "OTHER" : "");
	if (m.msg_namelen == 0 || from.sin_family == 0)
		o += snprintf(b + o, sizeof(b) - (size_t)o, " from=none");
	else
		o += snprintf(b + o, sizeof(b) - (size_t)o, " from=%s:+%d", addr_class(&from),
			      (int)ntohs(from.sin_port) - (int)g_port);
	if (m.msg_controllen > sizeof(ctl))
		m.msg_controllen = sizeof(ctl);
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		size_t room = (size_t)(ctl + sizeof(ctl) - (char *)c);
		if (c->cmsg_len < CMSG_LEN(0) || c->cmsg_len > room) {
			o += snprintf(b + o, sizeof(b) - (size_t)o, " cmsg=bad-length");
			break;
		}
		o += snprintf(b + o, sizeof(b) - (size_t)o, " cmsg=%s:%zu:%s",
			      cmsg_name(c, nb, sizeof(nb)), (size_t)(c->cmsg_len - CMSG_LEN(0)),
			      cmsg_class(c, room));
	}
	size_t shown = (size_t)r < iov.iov_len ? (size_t)r : iov.iov_len;
	if (shown > 16)
		shown = 16;
	o += snprintf(b + o, sizeof(b) - (size_t)o, " data=");
	for (size_t i = 0; i < shown && o < (int)sizeof(b) - 2; i++)
		b[o++] = buf[i] >= 0x20 && buf[i] < 0x7f ? buf[i] : '.';
	b[o] = 0;
	out(step, r, 0, b);
	return r;
}

/* getsockopt of an int-sized option: the value, or its class for buffer
 * sizes (which depend on the machine's sysctls). */
static void getopt_out(const char *step, int fd, int level, int name)
{
	union {
		int i;
		unsigned char raw[64];
	} v;
	socklen_t len = sizeof(v);
	char b[128];

	memset(&v, 0, sizeof(v));
	errno = 0;
	int r = getsockopt(fd, level, name, &v, &len);

	if (r < 0) {
		out(step, r, errno, NULL);
		return;
	}
	if (level == SOL_SOCKET && (name == SO_SNDBUF || name == SO_RCVBUF)) {
		long max = name == SO_SNDBUF ? g_wmem_max : g_rmem_max;
		snprintf(b, sizeof(b), "len=%u value=%s", (unsigned)len,
			 v.i == 2 * max ? "2*max" : v.i > 2 * max ? ">2*max" : "<2*max");
	} else if (len == sizeof(int)) {
		snprintf(b, sizeof(b), "len=%u value=%d", (unsigned)len, v.i);
	} else {
		bool zero = true;
		for (socklen_t i = 0; i < len; i++)
			if (v.raw[i])
				zero = false;
		snprintf(b, sizeof(b), "len=%u value=%s", (unsigned)len, zero ? "zero" : "nonzero");
	}
	out(step, r, 0, b);
}

static void setint(const char *step, int fd, int level, int name, int val)
{
	CALL(step, setsockopt(fd, level, name, &val, sizeof(val)));
}

static long readl(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = 0;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/* Runs |fn| in a forked child, its transcript lines prefixed "child ";
 * then the child's exit status. */
static void in_child(const char *step, void (*fn)(void *), void *arg)
{
	fflush(stdout);
	pid_t p = fork();

	if (p < 0) {
		out(step, -1, errno, NULL);
		return;
	}
	if (p == 0) {
		alarm(4);       /* a fork does not inherit the case's alarm */
		fn(arg);
		fflush(stdout);
		_exit(0);
	}
	int st = 0;
	waitpid(p, &st, 0);
	char b[32];
	snprintf(b, sizeof(b), "exit=%d", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	out(step, 0, 0, b);
}

/* Runs this program anew as "--sub WHAT" (a second program, as a shell
 * would start it: no state shared with this one but the environment);
 * its lines are its own steps. Then its exit status. */
static void spawn(const char *step, const char *what)
{
	char port[16];

	snprintf(port, sizeof(port), "%u", g_port);
	fflush(stdout);
	pid_t p = fork();
	if (p == 0) {
		execl("/proc/self/exe", "rdsdiff", "--sub", what, port, g_a, g_h, (char *)NULL);
		_exit(127);
	}
	int st = 0;
	waitpid(p, &st, 0);
	char b[32];
	snprintf(b, sizeof(b), "exit=%d", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	out(step, p < 0 ? -1 : 0, errno, b);
}

/* ------------------------------------------------------------------ */
/* Cases                                                               */
/* ------------------------------------------------------------------ */

#define P(n) (g_port + (n))

static void c_socket_types(void)
{
	CALL("socket-seqpacket", socket(AF_RDS, SOCK_SEQPACKET, 0) >= 0 ? 0 : -1);
	CALL("socket-nonblock-cloexec",
	     socket(AF_RDS, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0) >= 0 ? 0 : -1);
	CALL("socket-stream", socket(AF_RDS, SOCK_STREAM, 0));
	CALL("socket-dgram", socket(AF_RDS, SOCK_DGRAM, 0));
	CALL("socket-proto1", socket(AF_RDS, SOCK_SEQPACKET, 1));
}

static void c_bind_errors(void)
{
	int fd = sock("socket");
	struct sockaddr_in s = sin_of(g_a, P(0));
	struct sockaddr_in z = sin_of("0.0.0.0", P(0));
	struct sockaddr_in far = sin_of("192.0.2.1", P(0));

	CALL("bind-short", bind(fd, (struct sockaddr *)&s, sizeof(s) - 1));
	CALL("bind-any", bind(fd, (struct sockaddr *)&z, sizeof(z)));
	CALL("bind-not-local", bind(fd, (struct sockaddr *)&far, sizeof(far)));
	CALL("bind", bind(fd, (struct sockaddr *)&s, sizeof(s)));
	CALL("bind-again", bind(fd, (struct sockaddr *)&s, sizeof(s)));
	int g = sock("socket2");
	CALL("bind-same-port", bind(g, (struct sockaddr *)&s, sizeof(s)));
	struct sockaddr_in got = { 0 };
	socklen_t gl = sizeof(got);
	errno = 0;
	int r = getsockname(fd, (struct sockaddr *)&got, &gl);
	char b[64];
	snprintf(b, sizeof(b), "addr=%s:+%d len=%u", addr_class(&got),
		 (int)ntohs(got.sin_port) - (int)g_port, (unsigned)gl);
	out("getsockname", r, errno, b);
	struct sockaddr_in port0 = sin_of(g_a, 0);
	int h = sock("socket3");
	CALL("bind-port0", bind(h, (struct sockaddr *)&port0, sizeof(port0)));
	gl = sizeof(got);
	errno = 0;
	r = getsockname(h, (struct sockaddr *)&got, &gl);
	snprintf(b, sizeof(b), "addr=%s port=%s", addr_class(&got),
		 got.sin_port ? "nonzero" : "zero");
	out("getsockname-port0", r, errno, b);
}

static void c_bind_two_addresses(void)
{
	bound("bind-A", g_a, P(0), 0);
	bound("bind-H", g_h, P(1), 0);
}

static void c_bind_second_process(void)
{
	bound("bind-A", g_a, P(0), 0);
	spawn("second", "bind-A");
}

static void c_loop_send_recv(void)
{
	int s = bound("sender", g_a, P(0), 0);
	int r = bound("receiver", g_a, P(1), 1000);

	send_str("send", s, g_a, P(1), "hello");
	recv_out("recv", r, 4096, 0, 1.0);
}

static void c_local_send_recv_h(void)
{
	int s = bound("sender", g_h, P(0), 0);
	int r = bound("receiver", g_h, P(1), 1000);

	send_str("send", s, g_h, P(1), "hello");
	recv_out("recv", r, 4096, 0, 1.0);
}

static void c_transport_loop(void)
{
	int fd = sock("socket");

	getopt_out("transport-unbound", fd, SOL_RDS, SO_RDS_TRANSPORT);
	do_bind("bind-A", fd, g_a, P(0));
	getopt_out("transport-A", fd, SOL_RDS, SO_RDS_TRANSPORT);
	int h = bound("bind-H", g_h, P(1), 0);
	getopt_out("transport-H", h, SOL_RDS, SO_RDS_TRANSPORT);
}

static void c_transport_set(void)
{
	int a = sock("socket-ib");
	setint("set-ib", a, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_IB);
	int b = sock("socket-tcp");
	setint("set-tcp", b, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_TCP);
	getopt_out("get-tcp", b, SOL_RDS, SO_RDS_TRANSPORT);
	setint("set-tcp-again", b, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_TCP);
	do_bind("bind-H", b, g_h, P(0));
	int c = sock("socket-loop");
	setint("set-loop", c, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_LOOP);
	int d = sock("socket-bad");
	setint("set-99", d, SOL_RDS, SO_RDS_TRANSPORT, 99);
	int e = bound("socket-bound", g_a, P(1), 0);
	setint("set-after-bind", e, SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_TCP);
}

/* One RDS_INFO_* list read as rds-info does: probe with len 0, then a
 * buffer of the length learnt. Return: the item size (or -1, errno set)
 * and *buf (malloc'ed), *len its bytes. */
static int info_read(int fd, int opt, char **buf, socklen_t *len)
{
	socklen_t want = 0;
	int r;

	*buf = NULL;
	*len = 0;
	errno = 0;
	r = getsockopt(fd, SOL_RDS, opt, NULL, &want);
	if (r >= 0 || errno != ENOSPC)
		return r;
	*buf = malloc(want);
	*len = want;
	errno = 0;
	return getsockopt(fd, SOL_RDS, opt, *buf, len);
}

/* RDS_INFO_* size probe: with len 0 the kernel answers the length needed,
 * then the list itself and its item size. A message from A to A first, so
 * that every list that can have an item has one in every stack (the
 * kernel's connections outlive the processes of earlier cases). */
static void c_info(int opt)
{
	int fd = bound("bind-A", g_a, P(0), 0);
	int r2 = bound("bind-A2", g_a, P(1), 1000);
	socklen_t len = 0;
	char b[64];

	send_str("send", fd, g_a, P(1), "hello");
	recv_out("recv", r2, 4096, 0, 1.0);
	errno = 0;
	int r = getsockopt(fd, SOL_RDS, opt, NULL, &len);
	snprintf(b, sizeof(b), "len=%s", len ? "nonzero" : "zero");
	out("probe", r, errno, b);
	if (r < 0 && errno == ENOSPC && len) {
		socklen_t want = len + 4096;
		char *buf = malloc(want);
		errno = 0;
		socklen_t got = want;
		r = getsockopt(fd, SOL_RDS, opt, buf, &got);
		snprintf(b, sizeof(b), "len=%s whole=%s", got > 0 ? "nonzero" : "zero",
			 r > 0 && got % (socklen_t)r == 0 ? "yes" : "no");
		out("read", r, errno, b);
		free(buf);
	}
}

/* The kernel's size rules beyond the probe (net/rds/info.c
 * rds_info_getsockopt): a length one short of the list's, a negative one,
 * a buffer that is not mapped. */
static void c_info_rules(void)
{
	int fd = bound("bind-A", g_a, P(0), 0);
	socklen_t len = 0, need;
	char b[64];

	errno = 0;
	int r = getsockopt(fd, SOL_RDS, RDS_INFO_COUNTERS, NULL, &len);
	need = len;
	out("probe", r, errno, len ? "len=nonzero" : "len=zero");
	char *buf = malloc(need + 1);
	len = need - 1;
	errno = 0;
	r = getsockopt(fd, SOL_RDS, RDS_INFO_COUNTERS, buf, &len);
	out("short", r, errno, len == need ? "len=needed" : "len=other");
	len = need;
	errno = 0;
	r = getsockopt(fd, SOL_RDS, RDS_INFO_COUNTERS, buf, &len);
	snprintf(b, sizeof(b), "len=%s", len == need ? "needed" : "other");
	out("exact", r, errno, b);
	len = (socklen_t)-1;
	CALL("negative", getsockopt(fd, SOL_RDS, RDS_INFO_COUNTERS, buf, &len));
	len = need;
	CALL("null-buffer", getsockopt(fd, SOL_RDS, RDS_INFO_COUNTERS, NULL, &len));
	CALL("null-optlen", getsockopt(fd, SOL_RDS, RDS_INFO_COUNTERS, buf, NULL));
	len = 64;
	CALL("flows", getsockopt(fd, SOL_RDS, 10002, buf, &len));
	free(buf);
}

static const char *a4_class(uint32_t be)
{
	struct sockaddr_in s = { .sin_family = AF_INET, .sin_addr.s_addr = be };

	return addr_class(&s);
}

/* |p|: 16 bytes of a packed item, an in6_addr */
static const char *a6_class(const void *p)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	static const struct in6_addr any;
	struct in6_addr aa;
	const struct in6_addr *a = &aa;
	uint32_t v4;

	memcpy(&aa, p, sizeof(aa));
	if (!memcmp(a, &any, sizeof(any)))
		return "any";
	if (memcmp(a, mapped, sizeof(mapped)))
		return "v6";
	memcpy(&v4, &a->s6_addr[12], 4);
	return a4_class(v4);
}

static const char *port_class(uint16_t be)
{
	static char b[16];
	unsigned p = ntohs(be);

	if (p == 0)
		return "0";
	if (p >= g_port && p < g_port + 16)
		snprintf(b, sizeof(b), "P%u", p - g_port);
	else
		snprintf(b, sizeof(b), "other");
	return b;
}

/* Each listed field, by value or by class (the kernel's lists are the
 * host's since boot: counters and sequence numbers compared as at least
 * what this case did, inodes against fstat of our own descriptors). */
struct ifx {
	int a, b, u;                  /* sender (connected to b), receiver, unbound */
	uint64_t ino_a, ino_b, ino_u;
	int rcvbuf_b;                 /* SO_RCVBUF of b */
};

static const char *ino_class(const struct ifx *x, uint64_t ino)
{
	return ino == x->ino_a ? "a" : ino == x->ino_b ? "b" : ino == x->ino_u ? "u" : "other";
}

/* The value of counter |name| in list |buf|, or -1 when not listed. */
static long long counter_of(const char *buf, socklen_t len, const char *name)
{
	const struct rds_info_counter *c = (const void *)buf;

	for (size_t i = 0; buf && i < len / sizeof(*c); i++)
		if (!strncmp((const char *)c[i].name, name, sizeof(c[i].name)))
			return (long long)c[i].value;
	return -1;
}

/* The counters both stacks keep, as what this case added to them (the
 * kernel's count since boot, for every program of the host). */
static void f_counters(const char *before, socklen_t blen, const char *buf, socklen_t len)
{
	static const char *const want[] = { "conn_reset", "recv_queued", "recv_delivered",
					     "send_queued" };
	const struct rds_info_counter *c = (const void *)buf;
	size_t n = len / sizeof(*c);
	bool named = n > 0;
	char b[160];

	for (size_t i = 0; i < n; i++)
		named &= memchr(c[i].name, 0, sizeof(c[i].name)) != NULL && c[i].name[0];
	for (size_t w = 0; w < sizeof(want) / sizeof(want[0]); w++) {
		long long v0 = counter_of(before, blen, want[w]), v = counter_of(buf, len, want[w]);

		if (v < 0)
			snprintf(b, sizeof(b), "%s absent", want[w]);
		else
			snprintf(b, sizeof(b), "%s +%lld", want[w], v0 < 0 ? -1 : v - v0);
		out("counter", 0, 0, b);
	}
	out("counters-named", named, 0, NULL);
}

static void f_conns4(const char *buf, socklen_t len)
{
	const struct rds_info_connection *c = (const void *)buf;
	char b[200];

	for (size_t i = 0; i < len / sizeof(*c); i++) {
		if (strcmp(a4_class(c[i].laddr), "A") || strcmp(a4_class(c[i].faddr), "A"))
			continue;
		snprintf(b, sizeof(b), "A->A transport=%.16s flags=%u tos=%u tx>=3=%d rx<=tx=%d",
			 c[i].transport, c[i].flags, c[i].tos, c[i].next_tx_seq >= 3,
			 c[i].next_rx_seq <= c[i].next_tx_seq && c[i].next_rx_seq >= 3);
		out("conn", 0, 0, b);
	}
}

static void f_conns6(const char *buf, socklen_t len)
{
	const struct rds6_info_connection *c = (const void *)buf;
	char b[200];

	for (size_t i = 0; i < len / sizeof(*c); i++) {
		const char *ci = (const char *)&c[i];

		if (strcmp(a6_class(ci + offsetof(struct rds6_info_connection, laddr)), "A") ||
		    strcmp(a6_class(ci + offsetof(struct rds6_info_connection, faddr)), "A"))
			continue;
		snprintf(b, sizeof(b), "A->A transport=%.16s flags=%u tx>=3=%d rx<=tx=%d",
			 c[i].transport, c[i].flags, c[i].next_tx_seq >= 3,
			 c[i].next_rx_seq <= c[i].next_tx_seq && c[i].next_rx_seq >= 3);
		out("conn6", 0, 0, b);
	}
}

static void f_msgs(const char *step, const char *buf, socklen_t len, int six)
{
	size_t each = six ? sizeof(struct rds6_info_message) : sizeof(struct rds_info_message);
	char b[200];

	for (size_t i = 0; i < len / each; i++) {
		const char *la, *fa;
		uint16_t lp, fp;
		uint32_t ml;
		uint64_t seq;
		unsigned fl, tos = 0;

		if (six) {
			const struct rds6_info_message *m = (const void *)(buf + i * each);

			la = a6_class((const char *)m + offsetof(struct rds6_info_message, laddr));
			fa = a6_class((const char *)m + offsetof(struct rds6_info_message, faddr));
			lp = m->lport, fp = m->fport, ml = m->len, seq = m->seq, fl = m->flags;
		} else {
			const struct rds_info_message *m = (const void *)(buf + i * each);

			la = a4_class(m->laddr), fa = a4_class(m->faddr);
			lp = m->lport, fp = m->fport, ml = m->len, seq = m->seq, fl = m->flags;
			tos = m->tos;
		}
		snprintf(b, sizeof(b), "l=%s:%s", la, port_class(lp));
		snprintf(b + strlen(b), sizeof(b) - strlen(b), " f=%s:%s len=%u seq>=2=%d flags=%u tos=%u",
			 fa, port_class(fp), ml, seq >= 2, fl, tos);
		out(step, 0, 0, b);
	}
}

static void f_socks(const struct ifx *x, const char *buf, socklen_t len, int six)
{
	size_t each = six ? sizeof(struct rds6_info_socket) : sizeof(struct rds_info_socket);
	char b[200];

	for (size_t i = 0; i < len / each; i++) {
		const char *ba, *ca;
		uint16_t bp, cp;
		uint32_t sb, rb;
		uint64_t ino;

		if (six) {
			const struct rds6_info_socket *k = (const void *)(buf + i * each);

			ba = a6_class((const char *)k + offsetof(struct rds6_info_socket, bound_addr));
			ca = a6_class((const char *)k + offsetof(struct rds6_info_socket, connected_addr));
			bp = k->bound_port, cp = k->connected_port;
			sb = k->sndbuf, rb = k->rcvbuf, ino = k->inum;
		} else {
			const struct rds_info_socket *k = (const void *)(buf + i * each);

			ba = a4_class(k->bound_addr), ca = a4_class(k->connected_addr);
			bp = k->bound_port, cp = k->connected_port;
			sb = k->sndbuf, rb = k->rcvbuf, ino = k->inum;
		}
		const char *who = ino_class(x, ino);
		snprintf(b, sizeof(b), "inum=%s bound=%s:%s", who, ba, port_class(bp));
		snprintf(b + strlen(b), sizeof(b) - strlen(b), " conn=%s:%s sndbuf=%s rcvbuf=%s", ca,
			 port_class(cp),
			 !strcmp(who, "a") ? (sb == 65536 ? "set" : "other") : "-",
			 !strcmp(who, "b") ? (rb * 2 == (uint32_t)x->rcvbuf_b ? "half" : "other") : "-");
		out(six ? "sock6" : "sock", 0, 0, b);
	}
}

/* A program that reads its own RDS_INFO lists, field by field: a sender
 * connected to a receiver on A, two messages of which one is read, an
 * unbound socket. */
static void c_info_fields(void)
{
	static const int lists[] = {
		RDS_INFO_COUNTERS, RDS_INFO_CONNECTIONS, RDS_INFO_SEND_MESSAGES,
		RDS_INFO_RETRANS_MESSAGES, RDS_INFO_RECV_MESSAGES, RDS_INFO_SOCKETS,
		RDS_INFO_TCP_SOCKETS, 10011, 10012, 10013, 10014, 10015, 10016,
	};
	struct ifx x = { .a = bound("a", g_a, P(0), 0), .b = bound("b", g_a, P(1), 1000) };
	int sb = 65536;
	socklen_t l = sizeof(x.rcvbuf_b);
	struct stat st;
	struct sockaddr_in to = sin_of(g_a, P(1));

	char *before;
	socklen_t blen;

	(void)info_read(x.a, RDS_INFO_COUNTERS, &before, &blen);
	x.u = sock("u");
	CALL("sndbuf", setsockopt(x.a, SOL_SOCKET, SO_SNDBUF, &sb, sizeof(sb)));
	CALL("connect", connect(x.a, (struct sockaddr *)&to, sizeof(to)));
	getsockopt(x.b, SOL_SOCKET, SO_RCVBUF, &x.rcvbuf_b, &l);
	x.ino_a = fstat(x.a, &st) == 0 ? st.st_ino : 0;
	x.ino_b = fstat(x.b, &st) == 0 ? st.st_ino : 0;
	x.ino_u = fstat(x.u, &st) == 0 ? st.st_ino : 0;
	send_str("send1", x.a, g_a, P(1), "hello");
	send_str("send2", x.a, g_a, P(1), "hello, world");
	recv_out("recv", x.b, 4096, 0, 1.0);
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		char *buf, step[32], b[64];
		socklen_t len;
		int o = lists[i];
		int r = info_read(x.a, o, &buf, &len);

		snprintf(step, sizeof(step), "list-%d", o);
		/* which counters a stack keeps is its own (6.1 with rds_tcp and
		 * rds_rdma: 80), and the kernel's connections outlive the
		 * programs of earlier cases: those lists by class, their items
		 * of this case compared below */
		if (o == RDS_INFO_COUNTERS)
			snprintf(b, sizeof(b), "items>=%d", r > 0 && len / (socklen_t)r >= 3 ? 3 : 0);
		else if (o == RDS_INFO_CONNECTIONS || o == 10011)
			snprintf(b, sizeof(b), "items>=%d", r > 0 && len / (socklen_t)r >= 1 ? 1 : 0);
		else
			snprintf(b, sizeof(b), "items=%d", r > 0 ? (int)(len / (socklen_t)r) : -1);
		out(step, r, errno, b);
		if (r > 0 && o == RDS_INFO_COUNTERS)
			f_counters(before, blen, buf, len);
		else if (r > 0 && o == RDS_INFO_CONNECTIONS)
			f_conns4(buf, len);
		else if (r > 0 && o == 10011)
			f_conns6(buf, len);
		else if (r > 0 && (o == RDS_INFO_SOCKETS || o == 10015))
			f_socks(&x, buf, len, o == 10015);
		else if (r > 0 && o != RDS_INFO_TCP_SOCKETS && o != 10016)
			f_msgs(o == RDS_INFO_RECV_MESSAGES || o == 10014 ? "recvq" : "sendq", buf,
			       len, o >= 10011);
		free(buf);
	}
	free(before);
}

static void c_get_mr(void)
{
	int fd = sock("socket");
	char region[4096];
	uint64_t cookie = 0;
	struct rds_get_mr_args mr = { .vec = { .addr = (uintptr_t)region, .bytes = sizeof(region) },
				      .cookie_addr = (uintptr_t)&cookie };
	struct rds_get_mr_for_dest_args md = { .vec = mr.vec, .cookie_addr = mr.cookie_addr };
	struct sockaddr_in d = sin_of(g_h, P(9));

	memcpy(&md.dest_addr, &d, sizeof(d));
	CALL("get-mr-unbound", setsockopt(fd, SOL_RDS, RDS_GET_MR, &mr, sizeof(mr)));
	do_bind("bind-H", fd, g_h, P(0));
	CALL("get-mr", setsockopt(fd, SOL_RDS, RDS_GET_MR, &mr, sizeof(mr)));
	CALL("get-mr-short", setsockopt(fd, SOL_RDS, RDS_GET_MR, &mr, sizeof(mr) - 1));
	CALL("get-mr-for-dest", setsockopt(fd, SOL_RDS, RDS_GET_MR_FOR_DEST, &md, sizeof(md)));
	struct rds_free_mr_args fr = { .cookie = 12345 };
	CALL("free-mr", setsockopt(fd, SOL_RDS, RDS_FREE_MR, &fr, sizeof(fr)));
	struct rds_free_mr_args f0 = { .cookie = 0, .flags = RDS_RDMA_INVALIDATE };
	CALL("free-mr-0", setsockopt(fd, SOL_RDS, RDS_FREE_MR, &f0, sizeof(f0)));
}

/* A sendmsg over TCP (H to H) carrying one SOL_RDS cmsg of |type|. */
static void c_cmsg(int type, size_t len)
{
	int s = bound("sender", g_h, P(0), 0);
	bound("receiver", g_h, P(1), 0);
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(256)];
	} u;
	char region[64] = "x";
	struct rds_rdma_args ra = { .remote_vec = { .addr = 0, .bytes = 8 },
				    .local_vec_addr = 0, .nr_local = 0 };

	memset(&u, 0, sizeof(u));
	u.h.cmsg_level = SOL_RDS;
	u.h.cmsg_type = type;
	u.h.cmsg_len = CMSG_LEN(len);
	if (type == RDS_CMSG_RDMA_ARGS && len >= sizeof(ra))
		memcpy(CMSG_DATA(&u.h), &ra, sizeof(ra));
	send_to("send", s, g_h, P(1), region, 8, 0, &u, CMSG_SPACE(len));
}

static void c_cmsg_rdma_args(void) { c_cmsg(RDS_CMSG_RDMA_ARGS, sizeof(struct rds_rdma_args)); }
static void c_cmsg_rdma_dest(void) { c_cmsg(RDS_CMSG_RDMA_DEST, sizeof(uint64_t)); }
static void c_cmsg_rdma_map(void) { c_cmsg(RDS_CMSG_RDMA_MAP, sizeof(struct rds_get_mr_args)); }
static void c_cmsg_atomic(void) { c_cmsg(RDS_CMSG_ATOMIC_FADD, sizeof(struct rds_atomic_args)); }
static void c_cmsg_unknown(void) { c_cmsg(99, 8); }
static void c_cmsg_cookie_nozc(void) { c_cmsg(RDS_CMSG_ZCOPY_COOKIE, sizeof(uint32_t)); }

static void c_zerocopy(void)
{
	int s = sock("sender");

	setint("so-zerocopy", s, SOL_SOCKET, SO_ZEROCOPY, 1);
	getopt_out("get-zerocopy", s, SOL_SOCKET, SO_ZEROCOPY);
	do_bind("bind-H", s, g_h, P(0));
	int r = bound("receiver", g_h, P(1), 1000);
	static char page[4096] __attribute__((aligned(4096))) = "zc";
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(uint32_t))];
	} u;
	uint32_t cookie = 7;

	memset(&u, 0, sizeof(u));
	u.h.cmsg_level = SOL_RDS;
	u.h.cmsg_type = RDS_CMSG_ZCOPY_COOKIE;
	u.h.cmsg_len = CMSG_LEN(sizeof(cookie));
	memcpy(CMSG_DATA(&u.h), &cookie, sizeof(cookie));
	send_to("send-zc", s, g_h, P(1), page, sizeof(page), MSG_ZEROCOPY, &u, sizeof(u));
	recv_out("recv", r, 4096, 0, 1.0);
	/* the completion: poll for POLLIN on the sender, then a receive that
	 * carries RDS_CMSG_ZCOPY_COMPLETION and no data */
	struct pollfd p = { .fd = s, .events = POLLIN };
	poll(&p, 1, 1000);
	recv_out("recv-completion", s, 4096, MSG_DONTWAIT, 0);
	send_to("send-zc-nocookie", s, g_h, P(1), page, sizeof(page), MSG_ZEROCOPY, NULL, 0);
	int n = sock("no-so-zerocopy");
	do_bind("bind-H2", n, g_h, P(2));
	send_to("send-zc-without-so", n, g_h, P(1), page, sizeof(page), MSG_ZEROCOPY, NULL, 0);
}

static void c_timestamp(int level, int name, const char *what)
{
	int s = bound("sender", g_a, P(0), 0);
	int r = sock("receiver");

	(void)what;
	setint("set", r, level, name, 1);
	getopt_out("get", r, level, name);
	struct timeval tv = { .tv_sec = 1 };
	setsockopt(r, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	do_bind("bind-A", r, g_a, P(1));
	send_str("send", s, g_a, P(1), "stamp");
	recv_out("recv", r, 4096, 0, 1.0);
}

static void c_ts_sol_rds(void) { c_timestamp(SOL_RDS, SO_TIMESTAMP_OLD, "rds"); }
static void c_ts_sol_socket(void) { c_timestamp(SOL_SOCKET, SO_TIMESTAMP_OLD, "socket"); }

static void c_rxpath_latency(void)
{
	int s = bound("sender", g_a, P(0), 0);
	int r = bound("receiver", g_a, P(1), 1000);
	struct rds_rx_trace_so t = { .rx_traces = 2, .rx_trace_pos = { 0, 1 } };

	CALL("set", setsockopt(r, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY, &t, sizeof(t)));
	struct rds_rx_trace_so bad = { .rx_traces = RDS_MSG_RX_DGRAM_TRACE_MAX + 1 };
	CALL("set-too-many", setsockopt(r, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY, &bad, sizeof(bad)));
	send_str("send", s, g_a, P(1), "lat");
	recv_out("recv", r, 4096, 0, 1.0);
}

static volatile sig_atomic_t g_sigs;

static void on_alrm(int sig)
{
	(void)sig;
	g_sigs++;
}

static void signal_recv(bool restart)
{
	int r = bound("receiver", g_a, P(0), 2000);
	struct sigaction sa = { .sa_handler = on_alrm, .sa_flags = restart ? SA_RESTART : 0 };
	struct itimerval it = { .it_value = { .tv_usec = 700000 } };

	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	recv_out("recv", r, 4096, 0, 2.0);
	printf("signals %d\n", (int)g_sigs);
}

static void c_signal_recv(void) { signal_recv(false); }
static void c_signal_recv_restart(void) { signal_recv(true); }

/* The receiving port of a TCP peer congests: the non-blocking sender gets
 * ENOBUFS, then POLLOUT/POLLWRBAND as it changes. */
static void c_congestion(void)
{
	int s = sock("sender");
	int r = sock("receiver");
	int small = 4096;
	char msg[1024] = "c";
	int n = 0;

	setsockopt(r, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	fcntl(s, F_SETFL, O_NONBLOCK);
	do_bind("bind-s", s, g_h, P(0));
	do_bind("bind-r", r, g_h, P(1));
	poll_out("poll-s-before", s, POLLIN | POLLOUT | POLLWRBAND);
	long rc;
	struct sockaddr_in d = sin_of(g_h, P(1));
	do {
		rc = sendto(s, msg, sizeof(msg), 0, (struct sockaddr *)&d, sizeof(d));
		n++;
	} while (rc >= 0 && n < 2000);
	out("send-until-error", rc, errno, n < 2000 ? "stopped" : "never");
	/* drain the receiver until empty, with a timeout */
	struct timeval tv = { .tv_usec = 300000 };
	setsockopt(r, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	char b[2048];
	int got = 0;
	while (recv(r, b, sizeof(b), 0) >= 0)
		got++;
	out("drained", got > 0 ? 0 : -1, got > 0 ? 0 : errno, NULL);
	struct pollfd p = { .fd = s, .events = POLLOUT };
	poll(&p, 1, 1000);
	poll_out("poll-s-after", s, POLLIN | POLLOUT | POLLWRBAND);
	recv_out("recv-s-after", s, 4096, MSG_DONTWAIT, 0);
	poll_out("poll-s-after-recv", s, POLLIN | POLLOUT | POLLWRBAND);
}

/* A receiver on a loopback address that never reads: the kernel's
 * loopback transport never congests it (net/rds/recv.c
 * rds_recv_rcvbuf_delta); 300 messages of 1 KiB against 4 KiB of RCVBUF. */
static void c_loop_no_congestion(void)
{
	int s = sock("sender");
	int r = sock("receiver");
	int small = 4096;
	char msg[1024] = "l";
	int n = 0;
	long rc = 0;
	struct sockaddr_in d = sin_of(g_a, P(1));

	CALL("rcvbuf", setsockopt(r, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)));
	do_bind("bind-s", s, g_a, P(0));
	do_bind("bind-r", r, g_a, P(1));
	for (n = 0; n < 300; n++) {
		rc = sendto(s, msg, sizeof(msg), MSG_DONTWAIT, (struct sockaddr *)&d, sizeof(d));
		if (rc < 0)
			break;
	}
	out("send-300", rc, errno, n == 300 ? "all" : "stopped");
	poll_out("poll-s", s, POLLIN | POLLOUT);
}

static void c_cong_monitor(void)
{
	int m = sock("monitor");
	setint("cong-monitor", m, SOL_RDS, RDS_CONG_MONITOR, 1);
	getopt_out("get-cong-monitor", m, SOL_RDS, RDS_CONG_MONITOR);
	do_bind("bind", m, g_h, P(0));
	poll_out("poll", m, POLLIN | POLLOUT | POLLWRBAND);
	recv_out("recv", m, 4096, MSG_DONTWAIT, 0);
}

static void c_poll_idle(void)
{
	int fd = sock("socket");

	poll_out("poll-unbound", fd, POLLIN | POLLOUT | POLLWRBAND | POLLPRI);
	do_bind("bind", fd, g_a, P(0));
	poll_out("poll-bound", fd, POLLIN | POLLOUT | POLLWRBAND | POLLPRI);
	int s = bound("sender", g_a, P(1), 0);
	send_str("send", s, g_a, P(0), "p");
	struct pollfd p = { .fd = fd, .events = POLLIN };
	poll(&p, 1, 1000);
	poll_out("poll-with-message", fd, POLLIN | POLLOUT | POLLWRBAND | POLLPRI);
}

/* epoll of a new socket, then of one with a message waiting. */
static void c_epoll(void)
{
	int fd = bound("receiver", g_a, P(0), 0);
	int s = bound("sender", g_a, P(1), 0);
	int ep = epoll_create1(0);
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLWRBAND };
	char b[64];

	CALL("epoll-add", epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
	for (int i = 0; i < 3; i++) {
		struct epoll_event got = { 0 };
		char step[32];
		errno = 0;
		int n = epoll_wait(ep, &got, 1, 0);
		snprintf(b, sizeof(b), "events=%s%s%s", got.events & EPOLLIN ? "IN" : "",
			 got.events & EPOLLOUT ? "|OUT" : "", got.events & EPOLLWRBAND ? "|WRBAND" : "");
		snprintf(step, sizeof(step), "epoll-wait%d", i);
		out(step, n, errno, n > 0 ? b : NULL);
		if (i == 1) {
			send_str("send", s, g_a, P(0), "e");
			struct pollfd p = { .fd = fd, .events = POLLIN };
			poll(&p, 1, 1000);
		}
	}
}

static void c_recv_flags(void)
{
	int s = bound("sender", g_a, P(0), 0);
	int r = bound("receiver", g_a, P(1), 300);

	recv_out("recv-empty-dontwait", r, 4096, MSG_DONTWAIT, 0);
	recv_out("recv-empty-timeout", r, 4096, 0, 0.3);
	send_str("send1", s, g_a, P(1), "0123456789abcdef");
	send_str("send2", s, g_a, P(1), "second");
	struct pollfd p = { .fd = r, .events = POLLIN };
	poll(&p, 1, 1000);
	recv_out("recv-peek", r, 4096, MSG_PEEK, 0);
	recv_out("recv-trunc-short", r, 4, MSG_TRUNC, 0);
	recv_out("recv-short", r, 3, 0, 0);
	recv_out("recv-after", r, 4096, 0, 0.3);
	recv_out("recv-oob", r, 4096, MSG_OOB, 0);
	recv_out("recv-errqueue", r, 4096, MSG_ERRQUEUE, 0);
}

static void c_send_errors(void)
{
	int u = sock("unbound");
	char b[8] = "x";

	send_to("send-unbound", u, g_a, P(1), b, 1, 0, NULL, 0);
	CALL("send-noname", send(u, b, 1, 0));
	int s = bound("sender", g_a, P(0), 0);
	CALL("send-noname-bound", send(s, b, 1, 0));
	send_to("send-port0", s, g_a, 0, b, 1, 0, NULL, 0);
	send_to("send-oob", s, g_a, P(1), b, 1, MSG_OOB, NULL, 0);
	send_to("send-dontwait", s, g_a, P(1), b, 1, MSG_DONTWAIT, NULL, 0);
	send_to("send-zero", s, g_a, P(1), b, 0, 0, NULL, 0);
	send_to("send-nobody-A", s, g_a, P(7), b, 1, 0, NULL, 0);
	struct sockaddr_in d = sin_of(g_a, P(1));
	CALL("sendto-shortname", sendto(s, b, 1, 0, (struct sockaddr *)&d, sizeof(d) - 1));
	int big = 2 << 20;
	char *m = calloc(1, (size_t)big);
	send_to("send-2MiB", s, g_a, P(1), m, (size_t)big, 0, NULL, 0);
	free(m);
}

static void c_connect(void)
{
	int s = bound("sender", g_a, P(0), 0);
	int r = bound("receiver", g_a, P(1), 1000);
	struct sockaddr_in d = sin_of(g_a, P(1));

	CALL("connect", connect(s, (struct sockaddr *)&d, sizeof(d)));
	struct sockaddr_in got = { 0 };
	socklen_t gl = sizeof(got);
	errno = 0;
	int rc = getpeername(s, (struct sockaddr *)&got, &gl);
	char b[64];
	snprintf(b, sizeof(b), "addr=%s:+%d", addr_class(&got), (int)ntohs(got.sin_port) - (int)g_port);
	out("getpeername", rc, errno, rc == 0 ? b : NULL);
	CALL("send", send(s, "conn", 4, 0));
	CALL("write", write(s, "wr", 2));
	recv_out("recv1", r, 4096, 0, 1.0);
	recv_out("recv2", r, 4096, 0, 1.0);
	struct sockaddr_in un = { .sin_family = AF_UNSPEC };
	CALL("connect-unspec", connect(s, (struct sockaddr *)&un, sizeof(un)));
	CALL("listen", listen(s, 1));
	CALL("accept", accept(s, NULL, NULL));
	CALL("shutdown", shutdown(s, SHUT_RDWR));
}

static void c_readv_writev(void)
{
	int s = bound("sender", g_a, P(0), 0);
	int r = bound("receiver", g_a, P(1), 1000);
	struct sockaddr_in d = sin_of(g_a, P(1));

	connect(s, (struct sockaddr *)&d, sizeof(d));
	struct iovec w[2] = { { "ab", 2 }, { "cd", 2 } };
	CALL("writev", writev(s, w, 2));
	char x[4], y[16];
	struct iovec v[2] = { { x, sizeof(x) }, { y, sizeof(y) } };
	struct pollfd p = { .fd = r, .events = POLLIN };
	poll(&p, 1, 1000);
	CALL("readv", readv(r, v, 2));
	CALL("read-empty-nonblock", (fcntl(r, F_SETFL, O_NONBLOCK), read(r, x, sizeof(x))));
}

static void c_mmsg(void)
{
	int s = bound("sender", g_a, P(0), 0);
	int r = bound("receiver", g_a, P(1), 1000);
	struct sockaddr_in d = sin_of(g_a, P(1));
	struct iovec i1 = { "m1", 2 }, i2 = { "m2", 2 };
	struct mmsghdr mm[2] = {
		{ .msg_hdr = { .msg_name = &d, .msg_namelen = sizeof(d), .msg_iov = &i1, .msg_iovlen = 1 } },
		{ .msg_hdr = { .msg_name = &d, .msg_namelen = sizeof(d), .msg_iov = &i2, .msg_iovlen = 1 } },
	};

	CALL("sendmmsg", sendmmsg(s, mm, 2, 0));
	char b1[16], b2[16];
	struct iovec o1 = { b1, sizeof(b1) }, o2 = { b2, sizeof(b2) };
	struct mmsghdr rm[2] = { { .msg_hdr = { .msg_iov = &o1, .msg_iovlen = 1 } },
				 { .msg_hdr = { .msg_iov = &o2, .msg_iovlen = 1 } } };
	struct pollfd p = { .fd = r, .events = POLLIN };
	poll(&p, 1, 1000);
	usleep(100000);
	errno = 0;
	int n = recvmmsg(r, rm, 2, MSG_DONTWAIT, NULL);
	char b[64];
	snprintf(b, sizeof(b), "len0=%u len1=%u", n > 0 ? rm[0].msg_len : 0,
		 n > 1 ? rm[1].msg_len : 0);
	out("recvmmsg", n, errno, b);
}

static void c_sockopts_rds(void)
{
	int fd = sock("socket");
	static const struct { int name; const char *n; } o[] = {
		{ RDS_CANCEL_SENT_TO, "cancel-sent-to" }, { RDS_GET_MR, "get-mr" },
		{ RDS_FREE_MR, "free-mr" }, { 4, "opt4" }, { RDS_RECVERR, "recverr" },
		{ RDS_CONG_MONITOR, "cong-monitor" }, { RDS_GET_MR_FOR_DEST, "get-mr-for-dest" },
		{ SO_RDS_TRANSPORT, "transport" }, { 9, "opt9" },
		{ SO_RDS_MSG_RXPATH_LATENCY, "rxpath-latency" }, { SO_TIMESTAMP_OLD, "timestamp" },
		{ 9999, "opt9999" }, { 10018, "info-past-last" },
	};
	char step[64];

	for (size_t i = 0; i < sizeof(o) / sizeof(o[0]); i++) {
		snprintf(step, sizeof(step), "get-%s", o[i].n);
		getopt_out(step, fd, SOL_RDS, o[i].name);
	}
	setint("set-recverr", fd, SOL_RDS, RDS_RECVERR, 1);
	getopt_out("get-recverr-after", fd, SOL_RDS, RDS_RECVERR);
	char one = 1;
	CALL("set-recverr-short", setsockopt(fd, SOL_RDS, RDS_RECVERR, &one, 1));
	struct sockaddr_in d = sin_of(g_a, P(5));
	CALL("cancel-sent-to-unbound", setsockopt(fd, SOL_RDS, RDS_CANCEL_SENT_TO, &d, sizeof(d)));
	do_bind("bind", fd, g_a, P(0));
	CALL("cancel-sent-to", setsockopt(fd, SOL_RDS, RDS_CANCEL_SENT_TO, &d, sizeof(d)));
	CALL("cancel-sent-to-short", setsockopt(fd, SOL_RDS, RDS_CANCEL_SENT_TO, &d, 4));
	setint("set-opt9999", fd, SOL_RDS, 9999, 1);
	setint("set-level-ip", fd, SOL_IP, IP_TOS, 1);
}

static void c_sockopts_socket(void)
{
	int fd = sock("socket");
	static const struct { int name; const char *n; } o[] = {
		{ SO_TYPE, "type" }, { SO_PROTOCOL, "protocol" }, { SO_DOMAIN, "domain" },
		{ SO_ERROR, "error" }, { SO_SNDBUF, "sndbuf" }, { SO_RCVBUF, "rcvbuf" },
		{ SO_RCVTIMEO_OLD, "rcvtimeo" }, { SO_SNDTIMEO_OLD, "sndtimeo" },
		{ SO_TIMESTAMP_OLD, "timestamp" }, { SO_ZEROCOPY, "zerocopy" },
		{ SO_ACCEPTCONN, "acceptconn" }, { SO_REUSEADDR, "reuseaddr" },
		{ SO_KEEPALIVE, "keepalive" }, { SO_PRIORITY, "priority" },
		{ SO_LINGER, "linger" }, { SO_PEERCRED, "peercred" },
		{ SO_BROADCAST, "broadcast" }, { SO_RCVLOWAT, "rcvlowat" },
	};
	char step[64];

	for (size_t i = 0; i < sizeof(o) / sizeof(o[0]); i++) {
		snprintf(step, sizeof(step), "get-%s", o[i].n);
		getopt_out(step, fd, SOL_SOCKET, o[i].name);
	}
	setint("set-sndbuf-huge", fd, SOL_SOCKET, SO_SNDBUF, 64 << 20);
	getopt_out("get-sndbuf-huge", fd, SOL_SOCKET, SO_SNDBUF);
	setint("set-rcvbuf-huge", fd, SOL_SOCKET, SO_RCVBUF, 64 << 20);
	getopt_out("get-rcvbuf-huge", fd, SOL_SOCKET, SO_RCVBUF);
	setint("set-priority", fd, SOL_SOCKET, SO_PRIORITY, 3);
	getopt_out("get-priority", fd, SOL_SOCKET, SO_PRIORITY);
	setint("set-reuseaddr", fd, SOL_SOCKET, SO_REUSEADDR, 1);
	setint("set-keepalive", fd, SOL_SOCKET, SO_KEEPALIVE, 1);
}

static void c_ioctl(void)
{
	int fd = sock("socket");
	int v = 0;

	CALL("fionread-unbound", ioctl(fd, FIONREAD, &v));
	unsigned char tos = 5;
	CALL("settos", ioctl(fd, SIOCRDSSETTOS, &tos));
	tos = 0;
	errno = 0;
	int r = ioctl(fd, SIOCRDSGETTOS, &tos);
	char b[16];
	snprintf(b, sizeof(b), "tos=%u", tos);
	out("gettos", r, errno, r == 0 ? b : NULL);
	do_bind("bind", fd, g_a, P(0));
	tos = 6;
	CALL("settos-bound", ioctl(fd, SIOCRDSSETTOS, &tos));
	CALL("fionbio", ioctl(fd, FIONBIO, &(int){ 1 }));
	CALL("siocoutq", ioctl(fd, TIOCOUTQ, &v));
	CALL("bad-ioctl", ioctl(fd, 0x89ff, &v));
}

static void c_fcntl_dup(void)
{
	int fd = bound("bind", g_a, P(0), 0);
	int s = bound("sender", g_a, P(1), 0);

	errno = 0;
	int fl = fcntl(fd, F_GETFL);
	char b[32];
	snprintf(b, sizeof(b), "nonblock=%d", fl >= 0 && (fl & O_NONBLOCK) ? 1 : 0);
	out("getfl", fl < 0 ? -1 : 0, errno, b);
	CALL("setfl-nonblock", fcntl(fd, F_SETFL, fl | O_NONBLOCK));
	recv_out("recv-nonblock", fd, 4096, 0, 0);
	int d = dup(fd);
	out("dup", d < 0 ? -1 : 0, errno, NULL);
	send_str("send", s, g_a, P(0), "dup");
	struct pollfd p = { .fd = d, .events = POLLIN };
	poll(&p, 1, 1000);
	recv_out("recv-dup", d, 4096, 0, 0);
	int d2 = dup2(fd, 200);
	out("dup2", d2 < 0 ? -1 : d2 == 200 ? 0 : 1, errno, NULL);
	int d3 = dup3(fd, 201, O_CLOEXEC);
	out("dup3", d3 < 0 ? -1 : d3 == 201 ? 0 : 1, errno, NULL);
	CALL("close-orig", close(fd));
	send_str("send2", s, g_a, P(0), "after");
	p.fd = 200;
	poll(&p, 1, 1000);
	recv_out("recv-dup2-after-close", 200, 4096, 0, 0);
	CALL("close-dup", close(d));
	CALL("close-again", close(d));
	CALL("getfd-cloexec", fcntl(201, F_GETFD) & FD_CLOEXEC);
}

static void fork_child(void *arg)
{
	int *fds = arg;

	send_str("child-send", fds[0], g_a, P(1), "kid");
	recv_out("child-recv", fds[1], 4096, 0, 1.0);
	CALL("child-close", close(fds[0]));
}

static void c_fork(void)
{
	int fds[2];

	fds[0] = bound("sender", g_a, P(0), 0);
	fds[1] = bound("receiver", g_a, P(1), 1000);
	in_child("child", fork_child, fds);
	send_str("parent-send", fds[0], g_a, P(1), "dad");
	recv_out("parent-recv", fds[1], 4096, 0, 1.0);
}

static void c_exec(void)
{
	int r = bound("receiver", g_a, P(1), 1000);
	int s = bound("sender", g_a, P(0), 0);
	char fa[16], fb[16];

	fflush(stdout);
	pid_t p = fork();
	if (p == 0) {
		snprintf(fa, sizeof(fa), "%d", s);
		snprintf(fb, sizeof(fb), "%d", r);
		execl("/proc/self/exe", "rdsdiff", "--exec-child", fa, fb, g_a, g_h,
		      (char *)NULL);
		_exit(127);
	}
	int st = 0;
	waitpid(p, &st, 0);
	printf("exec exit=%d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}

static void exec_child(int s, int r)
{
	struct sockaddr_in got = { 0 };
	socklen_t gl = sizeof(got);
	char b[64];

	errno = 0;
	int rc = getsockname(s, (struct sockaddr *)&got, &gl);
	snprintf(b, sizeof(b), "addr=%s:+%d", addr_class(&got), (int)ntohs(got.sin_port) - (int)g_port);
	out("exec-getsockname", rc, errno, rc == 0 ? b : NULL);
	send_str("exec-send", s, g_a, P(1), "exec");
	recv_out("exec-recv", r, 4096, 0, 1.0);
}

static void other_user(void *arg)
{
	(void)arg;
	if (setgid(65534) < 0 || setuid(65534) < 0) {
		printf("child-setuid failed\n");
		return;
	}
	int s = bound("child-bind", g_a, P(1), 1000);
	send_str("child-send", s, g_a, P(1), "self");
	recv_out("child-recv", s, 4096, 0, 1.0);
}

static void c_other_user(void)
{
	in_child("child", other_user, NULL);
}

static void c_exit_unacked(void)
{
	int r = bound("receiver", g_h, P(1), 1000);

	spawn("second", "send-exit");
	recv_out("recv", r, 4096, 0, 1.0);
}

/* The second programs of spawn(). */
static int sub(const char *what)
{
	if (!strcmp(what, "bind-A")) {
		bound("second-bind-A", g_a, P(1), 0);
		return 0;
	}
	if (!strcmp(what, "send-exit")) {
		/* from A to H, and exit at once */
		int s = bound("second-sender", g_a, P(0), 0);
		send_str("second-send", s, g_h, P(1), "bye");
		return 0;
	}
	fprintf(stderr, "rdsdiff: no --sub %s\n", what);
	return 2;
}

static void c_big_message(void)
{
	int s = sock("sender");
	int big = 4 << 20;

	CALL("sndbufforce-4MiB", setsockopt(s, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big)));
	do_bind("bind-H", s, g_h, P(0));
	int r = sock("receiver");
	CALL("rcvbufforce-4MiB", setsockopt(r, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)));
	struct timeval tv = { .tv_sec = 2 };
	setsockopt(r, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	do_bind("bind-H2", r, g_h, P(1));
	size_t n = 1 << 20;
	char *m = calloc(1, n);
	memcpy(m, "big", 3);
	send_to("send-1MiB", s, g_h, P(1), m, n, 0, NULL, 0);
	free(m);
	m = calloc(1, n + 1);
	send_to("send-1MiB+1", s, g_h, P(1), m, n + 1, MSG_DONTWAIT, NULL, 0);
	free(m);
	recv_out("recv", r, 4096, 0, 2.0);
}

static void c_sndbuf_default(void)
{
	int s = bound("sender", g_h, P(0), 0);
	int r = bound("receiver", g_h, P(1), 1000);
	size_t n = (size_t)readl("/proc/sys/net/core/wmem_default") / 2 + 1024;
	char *m = calloc(1, n);

	getopt_out("get-sndbuf", s, SOL_SOCKET, SO_SNDBUF);
	send_to("send-above-default", s, g_h, P(1), m, n, 0, NULL, 0);
	free(m);
	recv_out("recv", r, 16, 0, 1.0);
}

static void c_close_pending(void)
{
	int s = bound("sender", g_a, P(0), 0);
	int r = bound("receiver", g_a, P(1), 0);

	send_str("send", s, g_a, P(1), "x");
	CALL("close-receiver", close(r));
	send_str("send-after-close", s, g_a, P(1), "y");
	CALL("close-sender", close(s));
	int again = bound("rebind", g_a, P(1), 300);
	recv_out("recv-rebound", again, 4096, 0, 0.3);
}

/* ------------------------------------------------------------------ */
/* Zero-copy, timestamps and the latency trace in depth (issue 31:     */
/* MSG_ZEROCOPY, SO_TIMESTAMP*, SO_RDS_MSG_RXPATH_LATENCY)             */
/* ------------------------------------------------------------------ */

#ifndef SO_TIMESTAMP_NEW
#define SO_TIMESTAMP_NEW 63
#endif
#ifndef SO_TIMESTAMPNS_OLD
#define SO_TIMESTAMPNS_OLD 35
#endif

/* A MSG_ZEROCOPY send of |len| bytes at |buf| carrying |cookie| (no
 * cookie cmsg when |cookie| < 0). */
static long zc_send(const char *step, int fd, const char *a, unsigned port, const void *buf,
		    size_t len, long cookie)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(uint32_t))];
	} u;
	uint32_t c = (uint32_t)cookie;

	memset(&u, 0, sizeof(u));
	u.h.cmsg_level = SOL_RDS;
	u.h.cmsg_type = RDS_CMSG_ZCOPY_COOKIE;
	u.h.cmsg_len = CMSG_LEN(sizeof(c));
	memcpy(CMSG_DATA(&u.h), &c, sizeof(c));
	return send_to(step, fd, a, port, buf, len, MSG_ZEROCOPY, cookie < 0 ? NULL : &u,
		       cookie < 0 ? 0 : sizeof(u));
}

/* recvmsg(MSG_DONTWAIT) with room for data and cmsgs; a completion is
 * shown with its cookies (ours, so stable). */
static long zc_reap(const char *step, int fd)
{
	char buf[64], ctl[512];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
			    .msg_controllen = sizeof(ctl) };
	char b[512] = "";
	int o = 0;

	errno = 0;
	long r = recvmsg(fd, &m, MSG_DONTWAIT);
	int e = errno;

	if (r >= 0)
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
			char nb[64];
			struct rds_zcopy_cookies ck;

			if (c->cmsg_level == SOL_RDS && c->cmsg_type == RDS_CMSG_ZCOPY_COMPLETION &&
			    c->cmsg_len >= CMSG_LEN(sizeof(ck))) {
				memcpy(&ck, CMSG_DATA(c), sizeof(ck));
				o += snprintf(b + o, sizeof(b) - (size_t)o, " completion num=%u cookies=",
					      ck.num);
				for (unsigned i = 0; i < ck.num && i < RDS_MAX_ZCOOKIES; i++)
					o += snprintf(b + o, sizeof(b) - (size_t)o, "%s%u", i ? "," : "",
						      ck.cookies[i]);
			} else {
				o += snprintf(b + o, sizeof(b) - (size_t)o, " cmsg=%s",
					      cmsg_name(c, nb, sizeof(nb)));
			}
		}
	out(step, r, e, o ? b + 1 : NULL);
	return r;
}

/* A socket with SO_ZEROCOPY bound on H: the sender of the cases below. */
static int zc_sender(void)
{
	int s = sock("sender");

	setint("so-zerocopy", s, SOL_SOCKET, SO_ZEROCOPY, 1);
	do_bind("bind-H", s, g_h, P(0));
	return s;
}

/* Where zero-copy is refused: a loopback socket (and a bad SO_ZEROCOPY
 * value); on TCP no SO_ZEROCOPY, an empty message. */
static void c_zc_loop(void)
{
	static char page[4096] = "zc";
	int l = sock("loop");

	setint("so-zerocopy-2", l, SOL_SOCKET, SO_ZEROCOPY, 2);
	setint("so-zerocopy", l, SOL_SOCKET, SO_ZEROCOPY, 1);
	do_bind("bind-A", l, g_a, P(0));
	zc_send("send-zc-loop", l, g_a, P(0), page, sizeof(page), 7);
	zc_send("send-zc-loop-nocookie", l, g_a, P(0), page, sizeof(page), -1);
}

static void c_zc_refused(void)
{
	static char page[4096] = "zc";
	int h = bound("tcp", g_h, P(1), 0);
	zc_send("send-zc-without-so-cookie", h, g_h, P(1), page, sizeof(page), 7);
	setint("so-zerocopy-h", h, SOL_SOCKET, SO_ZEROCOPY, 1);
	zc_send("send-zc-empty", h, g_h, P(1), page, 0, 7);
	send_to("send-plain", h, g_h, P(1), page, 8, 0, NULL, 0);
	zc_reap("reap-self", h);
	zc_reap("reap-self-2", h);
}

/* Ten zero-copy sends, their receiver reads them all, then the sender
 * reaps: the first completion holds RDS_MAX_ZCOOKIES, each later one
 * one cookie (rds_rm_zerocopy_callback fills only the first). A message
 * to the sender then carries the next completion with it. */
static void c_zc_batch(void)
{
	static char page[4096] = "zb";
	int s = zc_sender();
	int r = bound("receiver", g_h, P(1), 1000);
	long ok = 0;
	for (int i = 1; i <= 10; i++)
		ok += zc_send("send-zc", s, g_h, P(1), page, 100, i) == 100;
	for (int i = 0; i < 10; i++)
		recv_out("recv", r, 4096, 0, 1.0);
	struct pollfd p = { .fd = s, .events = POLLIN };
	for (int i = 0; i < 20 && poll(&p, 1, 100) >= 0; i++)
		;           /* the last completion may follow the last read */
	poll_out("poll-sender", s, POLLIN | POLLOUT);
	zc_reap("reap-1", s);
	send_str("send-to-sender", r, g_h, P(0), "m");
	p.fd = s;
	poll(&p, 1, 1000);
	zc_reap("reap-with-message", s);
	zc_reap("reap-3", s);
	zc_reap("reap-empty", s);
	poll_out("poll-after", s, POLLIN | POLLOUT);
	setint("so-zerocopy-off", s, SOL_SOCKET, SO_ZEROCOPY, 0);
	zc_send("send-zc-after-off", s, g_h, P(1), page, 100, 11);
}

/* The buffer of a zero-copy send unmapped before its completion: the
 * message arrives whole and the completion comes (the kernel pinned the
 * pages; the shim copied them). */
static void c_zc_unmap(void)
{
	int s = zc_sender();
	int r = bound("receiver", g_h, P(1), 1000);
	char *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		out("mmap", -1, errno, NULL);
		return;
	}
	strcpy(m, "unmapped");
	zc_send("send-zc", s, g_h, P(1), m, 4096, 5);
	CALL("munmap", munmap(m, 4096));
	recv_out("recv", r, 4096, 0, 1.0);
	struct pollfd p = { .fd = s, .events = POLLIN };
	poll(&p, 1, 1000);
	zc_reap("reap", s);
}

/* A blocking receive with completions waiting and no message: it waits
 * (completions do not end rds_recvmsg's wait) until a signal: EINTR. */
static void c_zc_signal(void)
{
	static char page[4096] = "zs";
	int s = zc_sender();
	int r = bound("receiver", g_h, P(1), 1000);

	setint("timestamp", s, SOL_SOCKET, SO_TIMESTAMP_OLD, 1);
	zc_send("send-zc", s, g_h, P(1), page, 100, 9);
	recv_out("recv", r, 4096, 0, 1.0);
	struct pollfd p = { .fd = s, .events = POLLIN };
	poll(&p, 1, 1000);
	poll_out("poll-sender", s, POLLIN);
	struct sigaction sa = { .sa_handler = on_alrm };
	struct itimerval it = { .it_value = { .tv_usec = 700000 } };
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	recv_out("recv-blocking", s, 4096, 0, 0);
	zc_reap("reap", s);
}

/* The stamp rds_cmsg_recv gives for each way of asking: SO_TIMESTAMPNS
 * still a timeval (SCM_TIMESTAMP), SO_TIMESTAMP_NEW at SOL_RDS the 64-bit
 * form; a message queued before the option has none; a short value. */
static void c_ts_kinds(void)
{
	int s = bound("sender", g_a, P(0), 0);
	int r = bound("receiver", g_a, P(1), 1000);

	send_str("send-before", s, g_a, P(1), "before");
	struct pollfd p = { .fd = r, .events = POLLIN };
	poll(&p, 1, 1000);
	setint("set-ns", r, SOL_SOCKET, SO_TIMESTAMPNS_OLD, 1);
	getopt_out("get-ns", r, SOL_SOCKET, SO_TIMESTAMPNS_OLD);
	getopt_out("get-ts", r, SOL_SOCKET, SO_TIMESTAMP_OLD);
	recv_out("recv-before", r, 4096, 0, 1.0);
	send_str("send-ns", s, g_a, P(1), "ns");
	recv_out("recv-ns", r, 4096, 0, 1.0);
	short sh = 1;
	CALL("set-rds-short", setsockopt(r, SOL_RDS, SO_TIMESTAMP_OLD, &sh, sizeof(sh)));
	setint("set-rds-new", r, SOL_RDS, SO_TIMESTAMP_NEW, 1);
	getopt_out("get-new", r, SOL_SOCKET, SO_TIMESTAMP_NEW);
	send_str("send-new", s, g_a, P(1), "new");
	recv_out("recv-new", r, 4096, 0, 1.0);
	send_str("send-peek", s, g_a, P(1), "peek");
	poll(&p, 1, 1000);
	recv_out("recv-peek", r, 4096, MSG_PEEK, 0);
	setint("set-off", r, SOL_SOCKET, SO_TIMESTAMP_OLD, 0);
	recv_out("recv-off", r, 4096, 0, 1.0);
}

/* Every stage of the latency trace on loopback: which stages are zero
 * (the loopback transport sets neither header time), and the refusals. */
static void c_rxpath_stages(void)
{
	int s = bound("sender", g_a, P(0), 0);
	int r = bound("receiver", g_a, P(1), 1000);
	struct rds_rx_trace_so t = { .rx_traces = 3, .rx_trace_pos = { 0, 1, 2 } };
	struct rds_rx_trace_so bad = { .rx_traces = 1, .rx_trace_pos = { 3 } };

	CALL("set-bad-pos", setsockopt(r, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY, &bad, sizeof(bad)));
	CALL("set-short", setsockopt(r, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY, &t, 2));
	CALL("set", setsockopt(r, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY, &t, sizeof(t)));
	getopt_out("get", r, SOL_RDS, SO_RDS_MSG_RXPATH_LATENCY);
	send_str("send", s, g_a, P(1), "stage");
	struct pollfd p = { .fd = r, .events = POLLIN };
	poll(&p, 1, 1000);
	char buf[64], ctl[256];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
			    .msg_controllen = sizeof(ctl) };
	errno = 0;
	long n = recvmsg(r, &m, 0);
	char b[256] = "";
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); n >= 0 && c; c = CMSG_NXTHDR(&m, c)) {
		struct rds_cmsg_rx_trace tr;

		if (c->cmsg_level != SOL_RDS || c->cmsg_type != RDS_CMSG_RXPATH_LATENCY ||
		    c->cmsg_len < CMSG_LEN(sizeof(tr)))
			continue;
		memcpy(&tr, CMSG_DATA(c), sizeof(tr));
		int o = snprintf(b, sizeof(b), "traces=%u", tr.rx_traces);
		for (unsigned i = 0; i < tr.rx_traces && i < RDS_MSG_RX_DGRAM_TRACE_MAX; i++)
			o += snprintf(b + o, sizeof(b) - (size_t)o, " pos%u=%u:%s", i,
				      tr.rx_trace_pos[i], tr.rx_trace[i] ? "nonzero" : "zero");
	}
	out("recv", n, errno, b[0] ? b : NULL);
}

/* One epoll_wait of |ms| on |ep|: the count and the bits. */
static void ep_wait(const char *step, int ep, int ms)
{
	struct epoll_event got = { 0 };
	char b[64];

	errno = 0;
	int n = epoll_wait(ep, &got, 1, ms);
	snprintf(b, sizeof(b), "events=%s%s%s", got.events & EPOLLIN ? "IN" : "",
		 got.events & EPOLLOUT ? "|OUT" : "", got.events & EPOLLWRBAND ? "|WRBAND" : "");
	out(step, n, errno, n > 0 ? b : NULL);
}

static int ep_add(const char *step, int fd, uint32_t events)
{
	int ep = epoll_create1(0);
	struct epoll_event ev = { .events = events };

	CALL(step, epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
	return ep;
}

/* epoll's three ways on one socket: edge-triggered (an edge for each
 * message, as rds_recv_incoming wakes for each), one-shot (disarmed
 * until EPOLL_CTL_MOD), level-triggered; EPOLLWRBAND asked of a socket
 * whose one-shot is spent. */
static void c_epoll_modes(void)
{
	int fd = bound("receiver", g_a, P(0), 300);
	int s = bound("sender", g_a, P(1), 0);
	int et = ep_add("add-et", fd, EPOLLIN | EPOLLET);

	ep_wait("et-idle", et, 0);
	send_str("send1", s, g_a, P(0), "1");
	ep_wait("et-first", et, 1000);
	ep_wait("et-again", et, 0);
	send_str("send2", s, g_a, P(0), "2");
	ep_wait("et-second", et, 1000);
	recv_out("recv1", fd, 4096, 0, 0.3);
	recv_out("recv2", fd, 4096, 0, 0.3);
	ep_wait("et-drained", et, 0);

	int os = ep_add("add-oneshot", fd, EPOLLIN | EPOLLONESHOT);
	send_str("send3", s, g_a, P(0), "3");
	ep_wait("os-first", os, 1000);
	send_str("send4", s, g_a, P(0), "4");
	ep_wait("os-disarmed", os, 300);
	struct epoll_event ev = { .events = EPOLLIN | EPOLLONESHOT };
	CALL("os-rearm", epoll_ctl(os, EPOLL_CTL_MOD, fd, &ev));
	ep_wait("os-rearmed", os, 0);

	int lt = ep_add("add-lt", fd, EPOLLIN);
	ep_wait("lt-1", lt, 0);
	ep_wait("lt-2", lt, 0);
	recv_out("recv3", fd, 4096, 0, 0.3);
	recv_out("recv4", fd, 4096, 0, 0.3);
	ep_wait("lt-drained", lt, 0);

	int wb = ep_add("add-wrband", fd, EPOLLOUT | EPOLLWRBAND);
	ep_wait("wrband", wb, 0);
	CALL("del", epoll_ctl(wb, EPOLL_CTL_DEL, fd, NULL));
	ep_wait("after-del", wb, 0);
}

/* The cookie queue's bound: 1100 zero-copy sends of one byte to a
 * receiver that reads none until the end. The kernel queues them all (no
 * bound but memory); the shim stops at RDSU_ZC_MAX notices queued and
 * messages in flight with ENOMEM (docs/shim.md). Then every cookie of
 * what was sent comes back, once. */
static void c_zc_overflow(void)
{
	int s = zc_sender();
	int r = bound("receiver", g_h, P(1), 300);
	int big = 4 << 20, n, e = 0;
	long rc = 0;

	setsockopt(r, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	for (n = 0; n < 1100; n++) {
		union {
			struct cmsghdr h;
			char b[CMSG_SPACE(sizeof(uint32_t))];
		} u;
		uint32_t c = (uint32_t)n;
		struct sockaddr_in d = sin_of(g_h, P(1));
		struct iovec iov = { "o", 1 };
		struct msghdr m = { .msg_name = &d, .msg_namelen = sizeof(d), .msg_iov = &iov,
				    .msg_iovlen = 1, .msg_control = &u, .msg_controllen = sizeof(u) };

		memset(&u, 0, sizeof(u));
		u.h.cmsg_level = SOL_RDS;
		u.h.cmsg_type = RDS_CMSG_ZCOPY_COOKIE;
		u.h.cmsg_len = CMSG_LEN(sizeof(c));
		memcpy(CMSG_DATA(&u.h), &c, sizeof(c));
		errno = 0;
		rc = sendmsg(s, &m, MSG_ZEROCOPY | MSG_DONTWAIT);
		if (rc < 0) {
			e = errno;
			break;
		}
	}
	out("send-1100", rc, e, n == 1100 ? "all" : "stopped");
	char b[16];
	int got = 0;
	while (recv(r, b, sizeof(b), 0) >= 0)
		got++;
	out("received", got == n ? 0 : -1, 0, got == n ? "all-sent" : "short");
	struct pollfd p = { .fd = s, .events = POLLIN };
	poll(&p, 1, 1000);
	unsigned cookies = 0, seen_twice = 0;
	static unsigned char seen[1100];
	for (;;) {
		char ctl[256];
		struct msghdr m = { .msg_control = ctl, .msg_controllen = sizeof(ctl) };
		struct rds_zcopy_cookies ck;
		struct cmsghdr *c;

		if (recvmsg(s, &m, MSG_DONTWAIT) < 0)
			break;
		for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
			if (c->cmsg_type != RDS_CMSG_ZCOPY_COMPLETION)
				continue;
			memcpy(&ck, CMSG_DATA(c), sizeof(ck));
			for (unsigned i = 0; i < ck.num && i < RDS_MAX_ZCOOKIES; i++) {
				cookies++;
				if (ck.cookies[i] < 1100 && seen[ck.cookies[i]]++)
					seen_twice++;
			}
		}
	}
	out("cookies", cookies == (unsigned)n && !seen_twice ? 0 : -1, 0,
	    cookies == (unsigned)n && !seen_twice ? "each-sent-once" : "wrong");
}

struct rcase {
	const char *id;
	void (*fn)(void);
	int info;
};

#define INFO(n) { "info-" #n, NULL, n }
static const struct rcase cases[] = {
	{ "socket-types", c_socket_types, 0 },
	{ "bind-errors", c_bind_errors, 0 },
	{ "bind-two-addresses", c_bind_two_addresses, 0 },
	{ "bind-second-process", c_bind_second_process, 0 },
	{ "loop-send-recv", c_loop_send_recv, 0 },
	{ "local-send-recv-h", c_local_send_recv_h, 0 },
	{ "transport-loop", c_transport_loop, 0 },
	{ "transport-set", c_transport_set, 0 },
	INFO(10000), INFO(10001), INFO(10002), INFO(10003), INFO(10004), INFO(10005),
	INFO(10006), INFO(10007), INFO(10008), INFO(10009), INFO(10010), INFO(10011),
	INFO(10012), INFO(10013), INFO(10014), INFO(10015), INFO(10016), INFO(10017),
	{ "info-rules", c_info_rules, 0 },
	{ "info-fields", c_info_fields, 0 },
	{ "get-mr", c_get_mr, 0 },
	{ "cmsg-rdma-args", c_cmsg_rdma_args, 0 },
	{ "cmsg-rdma-dest", c_cmsg_rdma_dest, 0 },
	{ "cmsg-rdma-map", c_cmsg_rdma_map, 0 },
	{ "cmsg-atomic-fadd", c_cmsg_atomic, 0 },
	{ "cmsg-unknown", c_cmsg_unknown, 0 },
	{ "cmsg-zcopy-cookie-alone", c_cmsg_cookie_nozc, 0 },
	{ "zerocopy", c_zerocopy, 0 },
	{ "timestamp-sol-rds", c_ts_sol_rds, 0 },
	{ "timestamp-sol-socket", c_ts_sol_socket, 0 },
	{ "rxpath-latency", c_rxpath_latency, 0 },
	{ "signal-recv", c_signal_recv, 0 },
	{ "signal-recv-restart", c_signal_recv_restart, 0 },
	{ "congestion", c_congestion, 0 },
	{ "cong-monitor", c_cong_monitor, 0 },
	{ "loop-no-congestion", c_loop_no_congestion, 0 },
	{ "poll-idle", c_poll_idle, 0 },
	{ "epoll", c_epoll, 0 },
	{ "recv-flags", c_recv_flags, 0 },
	{ "send-errors", c_send_errors, 0 },
	{ "connect", c_connect, 0 },
	{ "readv-writev", c_readv_writev, 0 },
	{ "mmsg", c_mmsg, 0 },
	{ "sockopts-rds", c_sockopts_rds, 0 },
	{ "sockopts-socket", c_sockopts_socket, 0 },
	{ "ioctl", c_ioctl, 0 },
	{ "fcntl-dup", c_fcntl_dup, 0 },
	{ "fork", c_fork, 0 },
	{ "exec", c_exec, 0 },
	{ "other-user", c_other_user, 0 },
	{ "exit-unacked", c_exit_unacked, 0 },
	{ "big-message", c_big_message, 0 },
	{ "sndbuf-default", c_sndbuf_default, 0 },
	{ "close-pending", c_close_pending, 0 },
	/* zero-copy, timestamps and the latency trace in depth */
	{ "zc-loop", c_zc_loop, 0 },
	{ "zc-refused", c_zc_refused, 0 },
	{ "zc-batch", c_zc_batch, 0 },
	{ "zc-unmap", c_zc_unmap, 0 },
	{ "zc-signal", c_zc_signal, 0 },
	{ "timestamp-kinds", c_ts_kinds, 0 },
	{ "rxpath-stages", c_rxpath_stages, 0 },
	{ "epoll-modes", c_epoll_modes, 0 },
	{ "zc-overflow", c_zc_overflow, 0 },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

static void on_hang(int sig)
{
	(void)sig;
	static const char m[] = "case hung: killed by its alarm\n";
	if (write(1, m, sizeof(m) - 1) < 0)
		_exit(3);
	_exit(3);
}

static int run_one(size_t i)
{
	g_port = 20000 + 16 * (unsigned)i;
	g_wmem_max = readl("/proc/sys/net/core/wmem_max");
	g_rmem_max = readl("/proc/sys/net/core/rmem_max");
	signal(SIGALRM, on_hang);
	alarm(6);
	if (cases[i].fn)
		cases[i].fn();
	else
		c_info(cases[i].info);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (size_t i = 0; i < NCASES; i++)
			printf("%s\n", cases[i].id);
		return 0;
	}
	if (argc == 6 && !strcmp(argv[1], "--exec-child")) {
		g_a = argv[4];
		g_h = argv[5];
		g_port = 20000 + 16 * 0;
		for (size_t i = 0; i < NCASES; i++)
			if (!strcmp(cases[i].id, "exec"))
				g_port = 20000 + 16 * (unsigned)i;
		signal(SIGALRM, on_hang);
		alarm(4);
		exec_child(atoi(argv[2]), atoi(argv[3]));
		return 0;
	}
	if (argc == 6 && !strcmp(argv[1], "--sub")) {
		g_port = (unsigned)atoi(argv[3]);
		g_a = argv[4];
		g_h = argv[5];
		signal(SIGALRM, on_hang);
		alarm(4);
		return sub(argv[2]);
	}
	if (argc >= 4 && !strcmp(argv[1], "--one")) {
		g_a = argv[3];
		g_h = argv[4];
		for (size_t i = 0; i < NCASES; i++)
			if (!strcmp(cases[i].id, argv[2]))
				return run_one(i);
		fprintf(stderr, "rdsdiff: no case %s\n", argv[2]);
		return 2;
	}
	/* rdsdiff [--case ID]... A H */
	const char *want[NCASES + 1];
	size_t nw = 0;
	int a = 1;
	while (a + 1 < argc && !strcmp(argv[a], "--case")) {
		if (nw < NCASES)
			want[nw++] = argv[a + 1];
		a += 2;
	}
	if (argc - a != 2) {
		fprintf(stderr, "usage: rdsdiff --list | rdsdiff [--case ID]... LOOPBACK-ADDR HOST-ADDR\n");
		return 2;
	}
	for (size_t w = 0; w < nw; w++) {
		size_t i;
		for (i = 0; i < NCASES && strcmp(cases[i].id, want[w]); i++)
			;
		if (i == NCASES) {
			fprintf(stderr, "rdsdiff: no case %s\n", want[w]);
			return 2;
		}
	}
	for (size_t i = 0; i < NCASES; i++) {
		bool run = nw == 0;
		for (size_t w = 0; w < nw; w++)
			run |= !strcmp(want[w], cases[i].id);
		if (!run)
			continue;
		printf("== %s\n", cases[i].id);
		fflush(stdout);
		pid_t p = fork();
		if (p < 0) {
			perror("rdsdiff: fork");
			return 1;
		}
		if (p == 0) {
			setpgid(0, 0);
			execl("/proc/self/exe", "rdsdiff", "--one", cases[i].id, argv[a], argv[a + 1],
			      (char *)NULL);
			perror("rdsdiff: exec");
			_exit(127);
		}
		int st = 0;
		waitpid(p, &st, 0);
		/* nothing of a case may print into the next: its process group
		 * (its own processes, by the group's id) goes with it */
		kill(-p, SIGKILL);
		printf("end exit=%d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	}
	return 0;
}
