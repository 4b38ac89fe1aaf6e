// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * lsource.c - the librds source's thin half: the Unix socket a librds
 * process publishes its monitor state on (rdsu_io_monitor()), a request
 * per snapshot and the answer read whole; lmon.c decodes it. Also the
 * list of the processes that publish (--list).
 */
#define _GNU_SOURCE
#include "source.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <rds/rdsu_io.h>
#include <wire/wire.h>

#include "lmon.h"

/* A publisher runs the monitor in its loop's rounds: one that has not
 * answered in this long is not running its loop. */
#define LSRC_TIMEOUT_MS 5000

struct lsource {
	int fd;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char who[64];                  /* "process 1234 (rdsperf)" */
	struct top_lmon *lm;
	uint8_t *buf;
	size_t cap;
};

/* PID or PATH into a socket path. */
static int resolve(const char *arg, char *path, size_t len, char *err, size_t errlen)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char *end;
	long pid;
	int n;

	if (strchr(arg, '/')) {
		n = snprintf(path, len, "%s", arg);
	} else {
		errno = 0;
		pid = strtol(arg, &end, 10);
		if (errno || *end || end == arg || pid <= 0) {
			snprintf(err, errlen, "--librds takes a process id or a socket path, "
				 "not '%s'", arg);
			return -EINVAL;
		}
		if (rdsu_io_monitor_dir(dir, sizeof(dir)) < 0) {
			snprintf(err, errlen, "the monitor directory's name is too long");
			return -ENAMETOOLONG;
		}
		n = snprintf(path, len, "%s/%ld.sock", dir, pid);
	}
	if (n < 0 || (size_t)n >= len) {
		snprintf(err, errlen, "%s: too long for a Unix socket path", arg);
		return -ENAMETOOLONG;
	}
	return 0;
}

static int dial(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Exactly |len| bytes into |p| by |deadline|. Return: 0; -ESRCH (closed);
 * -ETIMEDOUT; another -errno. */
static int read_full(int fd, uint8_t *p, size_t len, uint64_t deadline)
{
	while (len) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		uint64_t now = mono_ms();
		ssize_t n;
		int r;

		if (now >= deadline)
			return -ETIMEDOUT;
		r = poll(&pfd, 1, (int)(deadline - now));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ETIMEDOUT;
		n = recv(fd, p, len, 0);
		if (n == 0)
			return -ESRCH;
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return errno == ECONNRESET ? -ESRCH : -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * One request and its answer's body into l->buf. The buffer grows as
 * bytes come, never by what the header claims alone.
 * Return: the body's length; -ESRCH; -ETIMEDOUT; -EPROTO; -ENOMEM; -errno.
 */
static ssize_t ask(struct lsource *l, char *err, size_t errlen)
{
	struct wire_mon_hdr h = { .version = WIRE_MON_VERSION, .type = WIRE_MON_REQ };
	uint8_t hb[WIRE_MON_HDR_LEN];
	uint64_t deadline = mono_ms() + LSRC_TIMEOUT_MS;
	size_t got = 0;
	ssize_t n;
	int r;

	(void)wire_mon_hdr_encode(&h, hb, sizeof(hb));
	n = send(l->fd, hb, sizeof(hb), MSG_NOSIGNAL);
	if (n < 0)
		return errno == EPIPE || errno == ECONNRESET ? -ESRCH : -errno;
	r = read_full(l->fd, hb, sizeof(hb), deadline);
	if (r < 0)
		return r;
	n = wire_mon_hdr_decode(&h, hb, sizeof(hb));
	if (n < 0 || h.type != WIRE_MON_SNAP) {
		snprintf(err, errlen, "%s: not a librds monitor snapshot (%s)", l->path,
			 n < 0 ? wire_strerror((int)n) : "another message type");
		return -EPROTO;
	}
	while (got < h.len) {
		size_t want = h.len - got, step;

		if (got == l->cap) {
			size_t cap = l->cap ? l->cap * 2 : 64 * 1024;
			uint8_t *p;

			if (cap > h.len)
				cap = h.len;
			p = realloc(l->buf, cap);
			if (!p)
				return -ENOMEM;
			l->buf = p;
			l->cap = cap;
		}
		step = l->cap - got < want ? l->cap - got : want;
		r = read_full(l->fd, l->buf + got, step, deadline);
		if (r < 0)
			return r;
		got += step;
	}
	return (ssize_t)h.len;
}

static int librds_open(void **state, const struct top_source_args *a, char *err,
		       size_t errlen)
{
	struct lsource *l = calloc(1, sizeof(*l));
	int r;

	if (!l || top_lmon_new(&l->lm) < 0) {
		free(l);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r = resolve(a->librds, l->path, sizeof(l->path), err, errlen);
	if (r < 0)
		goto fail;
	snprintf(l->who, sizeof(l->who), "%s", a->librds);
	l->fd = dial(l->path);
	if (l->fd < 0) {
		r = l->fd;
		if (r == -ENOENT)
			snprintf(err, errlen, "%s: no such monitor socket: is the process running, "
				 "and does it publish (rdsu_io_monitor(), or RDSU_MONITOR=1)? "
				 "rdstop --list shows who does", l->path);
		else if (r == -ECONNREFUSED)
			snprintf(err, errlen, "%s: nobody listens: the process that made it has "
				 "exited", l->path);
		else
			snprintf(err, errlen, "%s: %s", l->path, strerror(-r));
		goto fail;
	}
	*state = l;
	return 0;
fail:
	top_lmon_free(l->lm);
	free(l);
	return r;
}

static int librds_snapshot(void *state, uint64_t now_ns, struct top_snap *out, char *err,
			   size_t errlen)
{
	struct lsource *l = state;
	struct top_lmon_proc proc;
	ssize_t n;
	int r;

	if (l->fd < 0) {
		snprintf(err, errlen, "librds %s is gone", l->who);
		return -ESRCH;
	}
	n = ask(l, err, errlen);
	if (n == -ESRCH) {
		snprintf(err, errlen, "librds %s is gone: its monitor socket closed", l->who);
		close(l->fd);
		l->fd = -1;
		return -ESRCH;
	}
	if (n == -ETIMEDOUT) {
		snprintf(err, errlen, "librds %s did not answer in %d s: its loop does not run",
			 l->who, LSRC_TIMEOUT_MS / 1000);
		return -ETIMEDOUT;
	}
	if (n == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	else if (n < 0 && n != -EPROTO)
		snprintf(err, errlen, "%s: %s", l->path, strerror((int)-n));
	if (n < 0)
		return (int)n;
	r = top_lmon_decode(l->lm, l->buf, (size_t)n, now_ns, out, &proc, err, errlen);
	if (r == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (r < 0)
		return r;
	snprintf(l->who, sizeof(l->who), "process %u (%s)", proc.pid, proc.name);
	out->truncated = !proc.whole;
	return 0;
}

static void librds_close(void *state)
{
	struct lsource *l = state;

	if (!l)
		return;
	if (l->fd >= 0)
		close(l->fd);
	top_lmon_free(l->lm);
	free(l->buf);
	free(l);
}

const struct top_source top_source_librds = {
	.name = "librds",
	.open = librds_open,
	.snapshot = librds_snapshot,
	.close = librds_close,
};

int top_librds_list(FILE *f)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct dirent *de;
	DIR *d;
	unsigned n = 0;

	if (rdsu_io_monitor_dir(dir, sizeof(dir)) < 0 || !(d = opendir(dir))) {
		fprintf(f, "no librds process publishes here (%s)\n", dir);
		return 0;
	}
	fprintf(f, "%-8s %-16s %6s %6s %s\n", "PID", "NAME", "CONNS", "SOCKS", "SOCKET");
	while ((de = readdir(d))) {
		struct top_source_args a = { 0 };
		struct top_snap s;
		char path[sizeof(dir) + 300], err[256];
		size_t L = strlen(de->d_name);
		void *st;
		int r;

		if (L < 6 || strcmp(de->d_name + L - 5, ".sock"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		a.librds = path;
		if (librds_open(&st, &a, err, sizeof(err)) < 0)
			continue;          /* left by a process that exited */
		top_snap_init(&s);
		r = librds_snapshot(st, 0, &s, err, sizeof(err));
		if (r == 0) {
			const struct lsource *l = st;
			unsigned pid = 0;
			char name[32] = "?";

			(void)sscanf(l->who, "process %u (%31[^)])", &pid, name);
			fprintf(f, "%-8u %-16s %6zu %6zu %s\n", pid, name, s.n_conns, s.n_socks,
				path);
			n++;
		}
		top_snap_fini(&s);
		librds_close(st);
	}
	closedir(d);
	if (!n)
		fprintf(f, "(none in %s)\n", dir);
	return 0;
}
