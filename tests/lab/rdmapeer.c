// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rdmapeer - drives the kernel's AF_RDS RDMA API (memory registration,
 * RDMA read and write, atomics, notifications) for the lab
 * (tests/lab/rdma_kernel.py, docs/kernel-behaviour.md "RDMA").
 *
 *   rdmapeer --role owner|driver --bind ADDR --port P --peer ADDR
 *            --peer-port Q [--timeout S] [--bad-peer ADDR] [--no-atomics]
 *            [--ready-file PATH]
 *
 * Two programs talk over one RDS socket each (SO_RDS_TRANSPORT =
 * RDS_TRANS_IB): the OWNER registers memory and answers requests, the
 * DRIVER runs the RDMA operations against the owner's regions and
 * records what its kernel answers. Either side may later be another
 * implementation (librds) that speaks the same protocol:
 *
 * Every control message is one line of ASCII, words split by one space,
 * numbers in C notation (strtoull base 0). Driver to owner:
 *   HELLO                        answered by HELLO
 *   MAP name len off flags seed  the owner maps len bytes at off bytes
 *                                past a page boundary, fills them with
 *                                fill(seed) and sends "MR name" with an
 *                                RDS_CMSG_RDMA_MAP cmsg (flags as given),
 *                                then "MRINFO name rc cookie hash" (rc 0
 *                                or the sendmsg errno; the cookie the
 *                                kernel wrote to cookie_addr)
 *   HASH name                    "HASH name hash guard": FNV-1a 64 of
 *                                the region, and of 64 bytes either side
 *   FREE name flags              RDS_FREE_MR of its cookie: "FREED name rc"
 *   FREE0 flags                  RDS_FREE_MR of cookie 0: "FREED - rc"
 *   DEST name                    "DEST name" with RDS_CMSG_RDMA_DEST
 *                                carrying the cookie: "DESTINFO name rc"
 *   SETU64 name off value        stores a u64 (host order) in the region:
 *                                "SET name"
 *   GETU64 name off              "GOT name value"
 *   OP id                        (carries an RDMA or atomic): "ACKOP id"
 *   BYE                          the owner exits 0 (answered by BYE)
 * The owner answers to the address and port each request came from.
 * fill(seed): byte i is (i * 131 + seed * 7 + (i >> 8)) & 0xff; hash:
 * FNV-1a 64 (offset 0xcbf29ce484222325, prime 0x100000001b3).
 *
 * The driver prints "R key value" lines, one per fact recorded (errno
 * names, notification statuses, byte checks); the harness compares them
 * with what docs/kernel-behaviour.md says. Exit: 0 all steps ran (facts
 * recorded, whatever they are) and the byte checks held, 1 a step could
 * not run or a check failed, 2 usage.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/rds.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef AF_RDS
#define AF_RDS 21
#endif
#ifndef SOL_RDS
#define SOL_RDS 276
#endif

#define PAGE 4096
#define GUARD 64
#define MAX_REGIONS 16
#define MAX_NOTES 256
#define MAX_QUEUED 32
#define WAIT_S 20

static int timeout_s = 300;
static const char *ready_file;
static int failures;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void fill(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 131 + seed * 7 + (i >> 8));
}

static uint64_t fnv(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (n--)
		h = (h ^ *p++) * 0x100000001b3ull;
	return h;
}

static const char *ename(int e)
{
	static char other[16];

	switch (e) {
	case 0: return "0";
	case EINVAL: return "EINVAL";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EAGAIN: return "EAGAIN";
	case ENOTCONN: return "ENOTCONN";
	case EFAULT: return "EFAULT";
	case ENOBUFS: return "ENOBUFS";
	case EMSGSIZE: return "EMSGSIZE";
	case ENODEV: return "ENODEV";
	case EPERM: return "EPERM";
	case ENOMEM: return "ENOMEM";
	case ENOPROTOOPT: return "ENOPROTOOPT";
	case EADDRNOTAVAIL: return "EADDRNOTAVAIL";
	case ENETUNREACH: return "ENETUNREACH";
	case ECONNREFUSED: return "ECONNREFUSED";
	case EPROTOTYPE: return "EPROTOTYPE";
	default:
		snprintf(other, sizeof(other), "errno%d", e);
		return other;
	}
}

static const char *sname(int st)
{
	static const char *const names[] = { "SUCCESS", "REMOTE_ERROR", "CANCELED",
					     "DROPPED", "OTHER_ERROR" };

	if (st == -1)
		return "none";
	if (st >= 0 && st < 5)
		return names[st];
	return "unknown";
}

static void fact(const char *key, const char *fmt, ...)
{
	va_list ap;

	printf("R %s ", key);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static void check(int ok, const char *what)
{
	if (!ok) {
		failures++;
		printf("CHECK FAILED: %s\n", what);
	} else {
		printf("check ok: %s\n", what);
	}
	fflush(stdout);
}

/* One AF_RDS socket, the notifications and messages it has read. */
struct note { uint64_t token; int status; uint64_t at; };
struct qmsg { char text[256]; uint64_t dest; int has_dest; struct sockaddr_in from; };
struct ep {
	int fd;
	uint64_t t0;
	struct note notes[MAX_NOTES];
	int n_notes;
	struct qmsg q[MAX_QUEUED];
	int nq;
};

static int sock_new(struct ep *e, const char *addr, int port, int trans, int tos)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	int one = 8 << 20;

	memset(e, 0, sizeof(*e));
	e->t0 = now_ms();
	e->fd = socket(AF_RDS, SOCK_SEQPACKET, 0);
	if (e->fd < 0)
		return -errno;
	if (setsockopt(e->fd, SOL_RDS, SO_RDS_TRANSPORT, &trans, sizeof(trans)))
		return -errno;
	setsockopt(e->fd, SOL_SOCKET, SO_SNDBUFFORCE, &one, sizeof(one));
	setsockopt(e->fd, SOL_SOCKET, SO_RCVBUFFORCE, &one, sizeof(one));
	if (tos) {
		unsigned char t = (unsigned char)tos;

		if (ioctl(e->fd, SIOCRDSSETTOS, &t))
			return -errno;
	}
	inet_pton(AF_INET, addr, &sin.sin_addr);
	for (int i = 0; i < 120; i++) {
		if (!bind(e->fd, (struct sockaddr *)&sin, sizeof(sin)))
			return 0;
		if (errno != EADDRNOTAVAIL)
			return -errno;
		usleep(250000);
	}
	return -EADDRNOTAVAIL;
}

/* sendmsg of |text| to addr:port with up to two cmsgs; retries EAGAIN and
 * ENOBUFS (the connection coming up, a full send buffer) while |retry|.
 * Returns 0 or the errno. */
struct cm { int type; const void *data; size_t len; };

static int send_to(struct ep *e, const char *addr, int port, const char *text,
		   const struct cm *c1, const struct cm *c2, int retry, int *tries)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	union { char buf[1024]; struct cmsghdr align; } u;
	struct iovec iov = { .iov_base = (void *)text, .iov_len = strlen(text) };
	struct msghdr m = { .msg_name = &sin, .msg_namelen = sizeof(sin),
			    .msg_iov = &iov, .msg_iovlen = 1 };
	const struct cm *cs[2] = { c1, c2 };
	size_t clen = 0;
	uint64_t end = now_ms() + (uint64_t)WAIT_S * 1000;
	int n = 0;

	inet_pton(AF_INET, addr, &sin.sin_addr);
	memset(u.buf, 0, sizeof(u.buf));
	for (int i = 0; i < 2; i++) {
		if (!cs[i])
			continue;
		struct cmsghdr *h = (struct cmsghdr *)(u.buf + clen);

		h->cmsg_level = SOL_RDS;
		h->cmsg_type = cs[i]->type;
		h->cmsg_len = CMSG_LEN(cs[i]->len);
		memcpy(CMSG_DATA(h), cs[i]->data, cs[i]->len);
		clen += CMSG_SPACE(cs[i]->len);
	}
	if (clen) {
		m.msg_control = u.buf;
		m.msg_controllen = clen;
	}
	for (;;) {
		n++;
		if (sendmsg(e->fd, &m, 0) >= 0) {
			if (tries)
				*tries = n;
			return 0;
		}
		int err = errno;

		if (!retry || (err != EAGAIN && err != ENOBUFS) || now_ms() > end) {
			if (tries)
				*tries = n;
			return err;
		}
		usleep(err == EAGAIN ? 100000 : 20000);
	}
}

/* Reads one thing (a message or notifications) within |ms|: 1 read,
 * 0 nothing in time. */
static int pump(struct ep *e, int ms)
{
	struct pollfd p = { .fd = e->fd, .events = POLLIN };
	union { char buf[4096]; struct cmsghdr align; } u;
	char data[65536];
	struct sockaddr_in from;
	struct iovec iov = { .iov_base = data, .iov_len = sizeof(data) - 1 };
	struct msghdr m = { .msg_name = &from, .msg_namelen = sizeof(from),
			    .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	int has_dest = 0, notes = 0;
	uint64_t dest = 0;

	if (poll(&p, 1, ms) <= 0)
		return 0;
	ssize_t n = recvmsg(e->fd, &m, MSG_DONTWAIT);

	if (n < 0)
		return 0;
	for (struct cmsghdr *h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h)) {
		if (h->cmsg_level != SOL_RDS)
			continue;
		if (h->cmsg_type == RDS_CMSG_RDMA_STATUS && e->n_notes < MAX_NOTES) {
			struct rds_rdma_notify nt;

			memcpy(&nt, CMSG_DATA(h), sizeof(nt));
			e->notes[e->n_notes++] = (struct note){ nt.user_token, nt.status,
								 now_ms() - e->t0 };
			printf("note token %" PRIu64 " status %d\n", (uint64_t)nt.user_token,
			       nt.status);
			notes++;
		} else if (h->cmsg_type == RDS_CMSG_RDMA_DEST) {
			memcpy(&dest, CMSG_DATA(h), sizeof(dest));
			has_dest = 1;
		}
	}
	if (n == 0 && notes)
		return 1;
	data[n] = 0;
	if (e->nq < MAX_QUEUED) {
		struct qmsg *q = &e->q[e->nq++];

		snprintf(q->text, sizeof(q->text), "%.255s", data);
		q->dest = dest;
		q->has_dest = has_dest;
		q->from = from;
	}
	printf("rx \"%.80s\"%s\n", data, has_dest ? " +RDMA_DEST" : "");
	fflush(stdout);
	return 1;
}

/* The first queued message starting with |prefix| (word-wise), waiting
 * up to |s| seconds; removed from the queue into *out. 0 found. */
static int wait_msg(struct ep *e, const char *prefix, int s, struct qmsg *out)
{
	uint64_t end = now_ms() + (uint64_t)s * 1000;
	size_t pl = strlen(prefix);

	for (;;) {
		for (int i = 0; i < e->nq; i++) {
			if (!strncmp(e->q[i].text, prefix, pl) &&
			    (e->q[i].text[pl] == ' ' || !e->q[i].text[pl])) {
				if (out)
					*out = e->q[i];
				memmove(&e->q[i], &e->q[i + 1], (size_t)(e->nq - i - 1) * sizeof(e->q[0]));
				e->nq--;
				return 0;
			}
		}
		uint64_t t = now_ms();

		if (t >= end)
			return -1;
		pump(e, (int)(end - t));
	}
}

/* The status of |token|'s notification, waiting up to |s| s; -1 none. */
static int wait_note(struct ep *e, uint64_t token, int s)
{
	uint64_t end = now_ms() + (uint64_t)s * 1000;

	for (;;) {
		for (int i = 0; i < e->n_notes; i++)
			if (e->notes[i].token == token)
				return e->notes[i].status;
		uint64_t t = now_ms();

		if (t >= end)
			return -1;
		pump(e, (int)(end - t));
	}
}

static int count_notes(struct ep *e, uint64_t token)
{
	int n = 0;

	for (int i = 0; i < e->n_notes; i++)
		n += e->notes[i].token == token;
	return n;
}

/* ------------------------------------------------------------------ owner */

struct region {
	char name[32];
	uint8_t *base, *p;
	size_t len, off, map;
	uint64_t cookie;
};
static struct region regions[MAX_REGIONS];
static int n_regions;

static struct region *region_find(const char *name)
{
	for (int i = 0; i < n_regions; i++)
		if (!strcmp(regions[i].name, name))
			return &regions[i];
	return NULL;
}

static void reply(struct ep *e, const struct qmsg *q, const char *fmt, ...)
{
	char text[256], addr[INET_ADDRSTRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	inet_ntop(AF_INET, &q->from.sin_addr, addr, sizeof(addr));
	int err = send_to(e, addr, ntohs(q->from.sin_port), text, NULL, NULL, 1, NULL);

	if (err)
		printf("owner: reply \"%s\": %s\n", text, ename(err));
}

static int owner(const char *bind_addr, int port, const char *peer, int peer_port)
{
	struct ep e;
	int err = sock_new(&e, bind_addr, port, RDS_TRANS_IB, 0);

	if (err) {
		printf("owner: socket: %s\n", ename(-err));
		return 1;
	}
	/* Registration before any connection exists: the kernel answers
	 * EAGAIN until the path is up (net/rds/send.c rds_cmsg_send). */
	{
		static uint8_t probe[PAGE] __attribute__((aligned(PAGE)));
		uint64_t cookie = 0;
		struct rds_get_mr_args a = { .vec = { (uintptr_t)probe, PAGE },
					     .cookie_addr = (uintptr_t)&cookie,
					     .flags = RDS_RDMA_READWRITE };
		struct cm c = { RDS_CMSG_RDMA_MAP, &a, sizeof(a) };
		int tries = 0;

		err = send_to(&e, peer, peer_port, "PROBE", &c, NULL, 0, NULL);
		printf("R owner_map_before_connection %s\n", ename(err));
		if (err == EAGAIN)
			err = send_to(&e, peer, peer_port, "PROBE", &c, NULL, 1, &tries);
		printf("R owner_map_probe %s tries %d cookie 0x%" PRIx64 "\n", ename(err), tries,
		       cookie);
		fflush(stdout);
		if (ready_file)
			fclose(fopen(ready_file, "w"));
	}
	uint64_t end = now_ms() + (uint64_t)timeout_s * 1000;

	while (now_ms() < end) {
		struct qmsg q;

		if (!e.nq && !pump(&e, 1000))
			continue;
		if (!e.nq)
			continue;
		q = e.q[0];
		memmove(&e.q[0], &e.q[1], (size_t)(e.nq - 1) * sizeof(e.q[0]));
		e.nq--;
		char w[6][64] = { { 0 } };

		sscanf(q.text, "%63s %63s %63s %63s %63s %63s", w[0], w[1], w[2], w[3], w[4], w[5]);
		struct region *r = region_find(w[1]);

		if (!strcmp(w[0], "HELLO")) {
			reply(&e, &q, "HELLO");
		} else if (!strcmp(w[0], "BYE")) {
			reply(&e, &q, "BYE");
			return 0;
		} else if (!strcmp(w[0], "OP")) {
			reply(&e, &q, "ACKOP %s", w[1]);
		} else if (!strcmp(w[0], "MAP") && n_regions < MAX_REGIONS) {
			if (!r)
				r = &regions[n_regions++];
			snprintf(r->name, sizeof(r->name), "%.31s", w[1]);
			r->len = strtoull(w[2], NULL, 0);
			r->off = strtoull(w[3], NULL, 0);
			r->map = (r->off + r->len + 2 * PAGE + GUARD + PAGE - 1) & ~(size_t)(PAGE - 1);
			r->base = mmap(NULL, r->map, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
			if (r->base == MAP_FAILED)
				return 1;
			memset(r->base, 0xee, r->map);
			r->p = r->base + PAGE + r->off;
			fill(r->p, r->len, (unsigned)strtoul(w[5], NULL, 0));
			r->cookie = 0;
			struct rds_get_mr_args a = { .vec = { (uintptr_t)r->p, r->len },
						     .cookie_addr = (uintptr_t)&r->cookie,
						     .flags = strtoull(w[4], NULL, 0) };
			struct cm c = { RDS_CMSG_RDMA_MAP, &a, sizeof(a) };
			char text[64];
			char addr[INET_ADDRSTRLEN];

			snprintf(text, sizeof(text), "MR %s", r->name);
			inet_ntop(AF_INET, &q.from.sin_addr, addr, sizeof(addr));
			err = send_to(&e, addr, ntohs(q.from.sin_port), text, &c, NULL, 1, NULL);
			reply(&e, &q, "MRINFO %s %d 0x%" PRIx64 " 0x%" PRIx64, r->name, err, r->cookie,
			      fnv(r->p, r->len));
		} else if (!strcmp(w[0], "HASH") && r) {
			uint64_t g = fnv(r->p - GUARD, GUARD) ^ fnv(r->p + r->len, GUARD);

			reply(&e, &q, "HASH %s 0x%" PRIx64 " 0x%" PRIx64, r->name, fnv(r->p, r->len), g);
		} else if (!strcmp(w[0], "FREE") && r) {
			struct rds_free_mr_args f = { r->cookie, strtoull(w[2], NULL, 0) };

			err = setsockopt(e.fd, SOL_RDS, RDS_FREE_MR, &f, sizeof(f)) ? errno : 0;
			reply(&e, &q, "FREED %s %s", r->name, ename(err));
		} else if (!strcmp(w[0], "FREE0")) {
			struct rds_free_mr_args f = { 0, strtoull(w[1], NULL, 0) };

			err = setsockopt(e.fd, SOL_RDS, RDS_FREE_MR, &f, sizeof(f)) ? errno : 0;
			reply(&e, &q, "FREED - %s", ename(err));
		} else if (!strcmp(w[0], "DEST") && r) {
			struct cm c = { RDS_CMSG_RDMA_DEST, &r->cookie, sizeof(r->cookie) };
			char text[64], addr[INET_ADDRSTRLEN];

			snprintf(text, sizeof(text), "DEST %s", r->name);
			inet_ntop(AF_INET, &q.from.sin_addr, addr, sizeof(addr));
			err = send_to(&e, addr, ntohs(q.from.sin_port), text, &c, NULL, 1, NULL);
			reply(&e, &q, "DESTINFO %s %s", r->name, ename(err));
		} else if (!strcmp(w[0], "SETU64") && r) {
			uint64_t v = strtoull(w[3], NULL, 0);

			memcpy(r->p + strtoull(w[2], NULL, 0), &v, 8);
			reply(&e, &q, "SET %s", r->name);
		} else if (!strcmp(w[0], "GETU64") && r) {
			uint64_t v;

			memcpy(&v, r->p + strtoull(w[2], NULL, 0), 8);
			reply(&e, &q, "GOT %s 0x%" PRIx64, r->name, v);
		} else if (!strcmp(w[0], "PROBE") || !strcmp(w[0], "MR")) {
			/* the other side's registrations: nothing to answer */
		} else {
			printf("owner: unknown or bad request \"%s\"\n", q.text);
		}
	}
	printf("owner: timed out\n");
	return 1;
}

/* ----------------------------------------------------------------- driver */

static const char *peer_addr;
static int peer_port;
static struct ep S;          /* the driver's main IB socket */
static uint64_t good_cookie; /* region A's, for ops queued behind a bad one */

struct remote { uint64_t cookie, hash, guard; size_t len; uint8_t *mirror; };

static int ask(struct ep *e, const char *answer, struct qmsg *out, const char *fmt, ...)
{
	char text[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	int err = send_to(e, peer_addr, peer_port, text, NULL, NULL, 1, NULL);

	if (err) {
		printf("driver: send \"%s\": %s\n", text, ename(err));
		return -1;
	}
	if (wait_msg(e, answer, WAIT_S * 3, out)) {
		printf("driver: no \"%s\" answer to \"%s\"\n", answer, text);
		return -1;
	}
	return 0;
}

static uint64_t guard_hash(void)
{
	uint8_t g[GUARD];

	memset(g, 0xee, GUARD);
	return fnv(g, GUARD) ^ fnv(g, GUARD);
}

/* Asks the owner to map a region; returns 0 with its cookie (checked
 * against the RDMA_DEST that came with "MR name") and fill hash. */
static int remote_map(const char *name, size_t len, size_t off, unsigned flags, unsigned seed,
		      struct remote *r)
{
	struct qmsg mr, info;
	char want[64], w[5][64];

	snprintf(want, sizeof(want), "MRINFO %s", name);
	if (ask(&S, want, &info, "MAP %s %zu %zu 0x%x %u", name, len, off, flags, seed))
		return -1;
	sscanf(info.text, "%63s %63s %63s %63s %63s", w[0], w[1], w[2], w[3], w[4]);
	if (strcmp(w[2], "0")) {
		printf("driver: owner's RDMA_MAP of %s failed: %s\n", name, info.text);
		return -1;
	}
	r->cookie = strtoull(w[3], NULL, 0);
	r->hash = strtoull(w[4], NULL, 0);
	r->len = len;
	snprintf(want, sizeof(want), "MR %s", name);
	if (wait_msg(&S, want, WAIT_S, &mr)) {
		printf("driver: no \"%s\"\n", want);
		return -1;
	}
	fact("mr_dest_cmsg", "%s %s", name, mr.has_dest ? "present" : "absent");
	check(mr.has_dest && mr.dest == r->cookie, "the RDMA_DEST cmsg holds the owner's cookie");
	r->guard = guard_hash();
	r->mirror = malloc(len);
	fill(r->mirror, len, seed);
	check(fnv(r->mirror, len) == r->hash, "the owner's fill hash is ours");
	return 0;
}

static int remote_hash(const char *name, uint64_t *hash, uint64_t *guard)
{
	struct qmsg q;
	char want[64], w[4][64];

	snprintf(want, sizeof(want), "HASH %s", name);
	if (ask(&S, want, &q, "HASH %s", name))
		return -1;
	sscanf(q.text, "%63s %63s %63s %63s", w[0], w[1], w[2], w[3]);
	*hash = strtoull(w[2], NULL, 0);
	*guard = strtoull(w[3], NULL, 0);
	return 0;
}

/* One RDMA op (|nv| local vectors over |buf|) against |cookie| at remote
 * offset |raddr|, carried by "OP id". Returns the sendmsg errno. */
static int rdma_op(struct ep *e, const char *id, uint64_t cookie, uint64_t raddr, uint8_t *buf,
		   size_t len, int nv, unsigned flags, uint64_t token, const struct cm *extra)
{
	struct rds_iovec v[8];
	size_t done = 0;

	for (int i = 0; i < nv; i++) {
		size_t part = i == nv - 1 ? len - done : len / (size_t)nv + 37 * (size_t)i;

		v[i].addr = (uintptr_t)(buf + done);
		v[i].bytes = part;
		done += part;
	}
	struct rds_rdma_args a = { .cookie = cookie, .remote_vec = { raddr, len },
				   .local_vec_addr = (uintptr_t)v, .nr_local = (uint64_t)nv,
				   .flags = flags, .user_token = token };
	struct cm c = { RDS_CMSG_RDMA_ARGS, &a, sizeof(a) };
	char text[64];

	snprintf(text, sizeof(text), "OP %s", id);
	return send_to(e, peer_addr, peer_port, text, &c, extra, 1, NULL);
}

static int atomic_op(struct ep *e, const char *id, int type, uint64_t cookie, uint64_t raddr,
		     uint64_t *local, uint64_t a1, uint64_t a2, uint64_t m1, uint64_t m2,
		     unsigned flags, uint64_t token)
{
	struct rds_atomic_args a = { .cookie = cookie, .local_addr = (uintptr_t)local,
				     .remote_addr = raddr, .flags = flags, .user_token = token };

	switch (type) {
	case RDS_CMSG_ATOMIC_FADD: a.fadd.add = a1; break;
	case RDS_CMSG_ATOMIC_CSWP: a.cswp.compare = a1; a.cswp.swap = a2; break;
	case RDS_CMSG_MASKED_ATOMIC_FADD: a.m_fadd.add = a1; a.m_fadd.nocarry_mask = m1; break;
	default:
		a.m_cswp.compare = a1; a.m_cswp.swap = a2;
		a.m_cswp.compare_mask = m1; a.m_cswp.swap_mask = m2;
		break;
	}
	struct cm c = { type, &a, sizeof(a) };
	char text[64];

	snprintf(text, sizeof(text), "OP %s", id);
	return send_to(e, peer_addr, peer_port, text, &c, NULL, 1, NULL);
}

static void ackop(struct ep *e, const char *id)
{
	char want[64];

	snprintf(want, sizeof(want), "ACKOP %s", id);
	if (wait_msg(e, want, WAIT_S * 3, NULL)) {
		fact("ackop", "%s missing", id);
		failures++;
	}
}

/* After an RDMA on |name| that may or may not have landed: did the
 * region change from |before| (hash), and did the bytes either side of it
 * change from *|guard| (updated)? "yes" or "no", "+guard" if they did. */
static const char *landed(const char *name, uint64_t before, uint64_t *guard)
{
	static char out[32];
	uint64_t h, g;

	if (remote_hash(name, &h, &g))
		return "unknown";
	snprintf(out, sizeof(out), "%s%s", h == before ? "no" : "yes", g != *guard ? "+guard" : "");
	*guard = g;
	return out;
}

/* An RDMA write that the peer's HCA refuses, on a socket of its own with
 * TOS |tos| (a connection of its own), followed by |behind| good writes
 * queued behind it: the status of each (-1: none behind, and see below). */
static void fatal_case(const char *name, const char *bind_addr, int port, int tos,
		       uint64_t cookie, uint64_t raddr, uint8_t *buf, size_t len,
		       uint64_t token, int behind)
{
	struct ep E;
	char key[80];
	int err = sock_new(&E, bind_addr, port, RDS_TRANS_IB, tos);

	if (err) {
		snprintf(key, sizeof(key), "%s_socket", name);
		fact(key, "%s", ename(-err));
		failures++;
		return;
	}
	/* the connection up first (HELLO answered), so the op meets a QP */
	for (int i = 0; i < 30; i++) {
		if (!send_to(&E, peer_addr, peer_port, "HELLO", NULL, NULL, 1, NULL) &&
		    !wait_msg(&E, "HELLO", 2, NULL))
			break;
	}
	/* a negative |behind|: no NOTIFY_ME, RDS_RECVERR on the socket
	 * instead (net/rds/send.c rds_send_remove_from_sock notifies a
	 * failure then) */
	unsigned notify = RDS_RDMA_NOTIFY_ME;

	if (behind < 0) {
		int one = 1;

		setsockopt(E.fd, SOL_RDS, RDS_RECVERR, &one, sizeof(one));
		notify = 0;
		behind = 0;
	}
	err = rdma_op(&E, name, cookie, raddr, buf, len, 1, RDS_RDMA_READWRITE | notify, token,
		      NULL);
	snprintf(key, sizeof(key), "%s_write_send", name);
	fact(key, "%s", ename(err));
	for (int i = 0; i < behind; i++) {
		char id[32];

		snprintf(id, sizeof(id), "%s-behind%d", name, i);
		rdma_op(&E, id, good_cookie, 0, buf, 4096, 1,
			RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, token + 1 + (uint64_t)i, NULL);
	}
	snprintf(key, sizeof(key), "%s_write_status", name);
	fact(key, "%s", sname(wait_note(&E, token, notify ? WAIT_S : WAIT_S / 2)));
	for (int i = 0; i < behind; i++) {
		snprintf(key, sizeof(key), "%s_behind%d_status", name, i);
		fact(key, "%s", sname(wait_note(&E, token + 1 + (uint64_t)i, i ? 2 : 10)));
	}
	for (int i = 0; i <= behind; i++) {
		if (count_notes(&E, token + (uint64_t)i) > 1) {
			snprintf(key, sizeof(key), "%s_duplicate_note", name);
			fact(key, "%" PRIu64, token + (uint64_t)i);
			failures++;
		}
	}
	close(E.fd);
}

static int driver(
const char *bind_addr, int port, const char *bad_peer, int atomics)
{
	struct qmsg q;
	int err = sock_new(&S, bind_addr, port, RDS_TRANS_IB, 0);

	if (err) {
		printf("driver: socket: %s\n", ename(-err));
		return 1;
	}
	/* the owner may not be bound yet: a message to an unbound port is
	 * dropped (and acknowledged), so ask again until it answers */
	for (int i = 0;; i++) {
		err = send_to(&S, peer_addr, peer_port, "HELLO", NULL, NULL, 1, NULL);
		if (!err && !wait_msg(&S, "HELLO", 2, NULL))
			break;
		if (i == 60) {
			printf("driver: the owner never answered HELLO (%s)\n", ename(err));
			return 1;
		}
	}

	/* -- registration through the socket option ------------------------ */
	static uint8_t local[1 << 20] __attribute__((aligned(PAGE)));
	uint64_t ck = 0;
	struct rds_get_mr_args g = { .vec = { (uintptr_t)local, 8192 },
				     .cookie_addr = (uintptr_t)&ck, .flags = RDS_RDMA_READWRITE };

	err = setsockopt(S.fd, SOL_RDS, RDS_GET_MR, &g, sizeof(g)) ? errno : 0;
	fact("ib_get_mr", "%s", ename(err));
	if (!err) {
		struct rds_free_mr_args f = { ck, 0 };

		fact("ib_get_mr_cookie", "0x%" PRIx64, ck);
		setsockopt(S.fd, SOL_RDS, RDS_FREE_MR, &f, sizeof(f));
	}
	{
		struct rds_get_mr_for_dest_args d = { .vec = { (uintptr_t)local, 8192 },
						      .cookie_addr = (uintptr_t)&ck,
						      .flags = RDS_RDMA_READWRITE };
		struct sockaddr_in *sin = (struct sockaddr_in *)&d.dest_addr;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(peer_port);
		inet_pton(AF_INET, peer_addr, &sin->sin_addr);
		err = setsockopt(S.fd, SOL_RDS, RDS_GET_MR_FOR_DEST, &d, sizeof(d)) ? errno : 0;
		fact("ib_get_mr_for_dest", "%s", ename(err));
	}
	{
		struct rds_free_mr_args f = { 0x1234, 0 };

		err = setsockopt(S.fd, SOL_RDS, RDS_FREE_MR, &f, sizeof(f)) ? errno : 0;
		fact("ib_free_mr_unknown", "%s", ename(err));
		f.cookie = 0;
		f.flags = RDS_RDMA_INVALIDATE;
		err = setsockopt(S.fd, SOL_RDS, RDS_FREE_MR, &f, sizeof(f)) ? errno : 0;
		fact("ib_free_mr_zero_invalidate", "%s", ename(err));
	}
	{
		int u = socket(AF_RDS, SOCK_SEQPACKET, 0);

		err = setsockopt(u, SOL_RDS, RDS_GET_MR, &g, sizeof(g)) ? errno : 0;
		fact("unbound_get_mr", "%s", ename(err));
		struct rds_free_mr_args f = { 0, RDS_RDMA_INVALIDATE };

		err = setsockopt(u, SOL_RDS, RDS_FREE_MR, &f, sizeof(f)) ? errno : 0;
		fact("unbound_free_mr_zero", "%s", ename(err));
		close(u);
	}

	/* -- a region at an offset into its page: cookie, read, write ------- */
	struct remote A;
	const size_t alen = 3 * PAGE + 1000;

	if (remote_map("A", alen, 100, RDS_RDMA_READWRITE, 1, &A))
		return 1;
	fact("cookie_A", "0x%016" PRIx64 " rkey 0x%08" PRIx32 " offset %" PRIu32, A.cookie,
	     (uint32_t)A.cookie, (uint32_t)(A.cookie >> 32));
	good_cookie = A.cookie;
	fact("cookie_A_offset", "%" PRIu32, (uint32_t)(A.cookie >> 32));

	memset(local, 0, alen);
	uint64_t t = now_ms();

	err = rdma_op(&S, "read1", A.cookie, 0, local, alen, 2, RDS_RDMA_NOTIFY_ME, 11, NULL);
	fact("read_2vec_send", "%s", ename(err));
	int st = wait_note(&S, 11, WAIT_S);

	fact("read_2vec_status", "%s", sname(st));
	fact("read_2vec_note_ms", "%" PRIu64, now_ms() - t);
	ackop(&S, "read1");
	check(fnv(local, alen) == A.hash, "RDMA read: our bytes hash as the owner's region");

	uint64_t h, gd;

	fill(local, alen, 2);
	err = rdma_op(&S, "write1", A.cookie, 0, local, alen, 3,
		      RDS_RDMA_READWRITE | RDS_RDMA_FENCE | RDS_RDMA_NOTIFY_ME, 12, NULL);
	fact("write_3vec_fence_send", "%s", ename(err));
	fact("write_3vec_fence_status", "%s", sname(wait_note(&S, 12, WAIT_S)));
	ackop(&S, "write1");
	memcpy(A.mirror, local, alen);
	if (!remote_hash("A", &h, &gd)) {
		check(h == fnv(A.mirror, alen), "RDMA write: the owner's region hashes as ours");
		check(gd == guard_hash(), "RDMA write: nothing written outside the region");
	}
	/* part of the region, no notification asked, silent */
	fill(local, 3000, 3);
	err = rdma_op(&S, "write2", A.cookie, 4000, local, 3000, 1,
		      RDS_RDMA_READWRITE | RDS_RDMA_SILENT, 13, NULL);
	fact("write_silent_nonotify_send", "%s", ename(err));
	ackop(&S, "write2");
	memcpy(A.mirror + 4000, local, 3000);
	if (!remote_hash("A", &h, &gd))
		check(h == fnv(A.mirror, alen), "RDMA write at offset 4000: the region as ours");
	memset(local, 0, alen);
	err = rdma_op(&S, "read2", A.cookie, 3990, local, 3020, 1,
		      RDS_RDMA_NOTIFY_ME | RDS_RDMA_SILENT, 14, NULL);
	fact("read_silent_notify_status", "%s", sname(wait_note(&S, 14, WAIT_S)));
	ackop(&S, "read2");
	check(!memcmp(local, A.mirror + 3990, 3020), "RDMA read at offset 3990 gives our bytes");

	/* local vectors longer than the remote vector: refused at sendmsg */
	{
		struct rds_iovec v = { (uintptr_t)local, 8192 };
		struct rds_rdma_args a = { .cookie = A.cookie, .remote_vec = { 0, 4096 },
					   .local_vec_addr = (uintptr_t)&v, .nr_local = 1,
					   .flags = RDS_RDMA_READWRITE, .user_token = 15 };
		struct cm c = { RDS_CMSG_RDMA_ARGS, &a, sizeof(a) };
		struct cm d = { RDS_CMSG_RDMA_DEST, &A.cookie, 8 };

		err = send_to(&S, peer_addr, peer_port, "OP bad", &c, NULL, 0, NULL);
		fact("rdma_local_longer_than_remote", "%s", ename(err));
		a.remote_vec.bytes = 8192;
		err = send_to(&S, peer_addr, peer_port, "OP bad", &c, &d, 0, NULL);
		fact("rdma_args_with_rdma_dest", "%s", ename(err));
		a.nr_local = 0;
		err = send_to(&S, peer_addr, peer_port, "OP bad", &c, NULL, 0, NULL);
		fact("rdma_nr_local_zero", "%s", ename(err));
	}

	/* -- RDMA_DEST sent by the owner ------------------------------------ */
	if (!ask(&S, "DESTINFO A", &q, "DEST A")) {
		fact("owner_rdma_dest_send", "%s", q.text + strlen("DESTINFO A "));
		struct qmsg d;

		if (!wait_msg(&S, "DEST A", WAIT_S, &d)) {
			fact("rdma_dest_cmsg", "%s", d.has_dest ? "present" : "absent");
			check(d.has_dest && d.dest == A.cookie, "RDMA_DEST carries A's cookie");
		}
	}

	/* -- use-once regions ------------------------------------------------ */
	const char *uo[2] = { "U", "UI" };
	unsigned uoflags[2] = { RDS_RDMA_READWRITE | RDS_RDMA_USE_ONCE,
				RDS_RDMA_READWRITE | RDS_RDMA_USE_ONCE | RDS_RDMA_INVALIDATE };

	for (int i = 0; i < 2; i++) {
		struct remote U;
		char key[64], id[32];

		if (remote_map(uo[i], 8192, 0, uoflags[i], 4, &U))
			return 1;
		fill(local, 8192, 5);
		snprintf(id, sizeof(id), "%s-1", uo[i]);
		err = rdma_op(&S, id, U.cookie, 0, local, 8192, 1,
			      RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, 21 + 10 * (uint64_t)i, NULL);
		snprintf(key, sizeof(key), "useonce_%s_first_status", uo[i]);
		fact(key, "%s", sname(wait_note(&S, 21 + 10 * (uint64_t)i, WAIT_S)));
		ackop(&S, id);
		if (!remote_hash(uo[i], &h, &gd))
			check(h == fnv(local, 8192), "use-once: the first write landed");
		uint64_t before = h;

		fill(local, 8192, 6);
		snprintf(id, sizeof(id), "%s-2", uo[i]);
		err = rdma_op(&S, id, U.cookie, 0, local, 8192, 1,
			      RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, 22 + 10 * (uint64_t)i, NULL);
		snprintf(key, sizeof(key), "useonce_%s_second_send", uo[i]);
		fact(key, "%s", ename(err));
		snprintf(key, sizeof(key), "useonce_%s_second_status", uo[i]);
		fact(key, "%s", sname(wait_note(&S, 22 + 10 * (uint64_t)i, WAIT_S)));
		ackop(&S, id);
		snprintf(key, sizeof(key), "useonce_%s_second_landed", uo[i]);
		fact(key, "%s", landed(uo[i], before, &U.guard));
		char want[64];

		snprintf(want, sizeof(want), "FREED %s", uo[i]);
		if (!ask(&S, want, &q, "FREE %s 0", uo[i])) {
			snprintf(key, sizeof(key), "useonce_%s_free_after", uo[i]);
			fact(key, "%s", q.text + strlen(want) + 1);
		}
	}

	/* -- a region freed without INVALIDATE: its r_key still works ----- */
	{
		struct remote F;

		if (remote_map("F", 8192, 0, RDS_RDMA_READWRITE, 7, &F))
			return 1;
		if (ask(&S, "FREED F", &q, "FREE F 0"))
			return 1;
		fact("freed_F_free", "%s", q.text + strlen("FREED F "));
		fill(local, 8192, 8);
		err = rdma_op(&S, "F", F.cookie, 0, local, 8192, 1,
			      RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, 41, NULL);
		fact("freed_F_write_send", "%s", ename(err));
		fact("freed_F_write_status", "%s", sname(wait_note(&S, 41, WAIT_S)));
		ackop(&S, "F");
		fact("freed_F_write_landed", "%s", landed("F", F.hash, &F.guard));
		if (!ask(&S, "FREED F", &q, "FREE F 0"))
			fact("freed_F_free_again", "%s", q.text + strlen("FREED F "));
	}

	/* -- RDS_CANCEL_SENT_TO with an RDMA queued to a peer that never
	 *    answers ------------------------------------------------------------ */
	if (bad_peer) {
		struct ep C;

		err = sock_new(&C, bind_addr, port + 1, RDS_TRANS_IB, 0);
		if (!err) {
			struct rds_iovec v = { (uintptr_t)local, 4096 };
			struct rds_rdma_args a = { .cookie = A.cookie, .remote_vec = { 0, 4096 },
						   .local_vec_addr = (uintptr_t)&v, .nr_local = 1,
						   .flags = RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME,
						   .user_token = 71 };
			struct cm c = { RDS_CMSG_RDMA_ARGS, &a, sizeof(a) };
			struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(4000) };

			err = send_to(&C, bad_peer, 4000, "OP cancel", &c, NULL, 0, NULL);
			fact("cancel_rdma_send", "%s", ename(err));
			inet_pton(AF_INET, bad_peer, &sin.sin_addr);
			err = setsockopt(C.fd, SOL_RDS, RDS_CANCEL_SENT_TO, &sin, sizeof(sin)) ? errno : 0;
			fact("cancel_sent_to", "%s", ename(err));
			fact("cancel_rdma_status", "%s", sname(wait_note(&C, 71, 5)));
			fact("cancel_rdma_notes", "%d", count_notes(&C, 71));
			close(C.fd);
		} else {
			fact("cancel_socket", "%s", ename(-err));
		}
	}

	/* -- the same calls on an RDS/TCP socket ------------------------------ */
	{
		struct ep T;

		err = sock_new(&T, bind_addr, port + 2, RDS_TRANS_TCP, 0);
		fact("tcp_socket", "%s", ename(-err));
		if (!err) {
			uint64_t old = 0;

			err = setsockopt(T.fd, SOL_RDS, RDS_GET_MR, &g, sizeof(g)) ? errno : 0;
			fact("tcp_get_mr", "%s", ename(err));
			struct rds_free_mr_args f = { 0, RDS_RDMA_INVALIDATE };

			err = setsockopt(T.fd, SOL_RDS, RDS_FREE_MR, &f, sizeof(f)) ? errno : 0;
			fact("tcp_free_mr_zero", "%s", ename(err));
			f.cookie = A.cookie;
			err = setsockopt(T.fd, SOL_RDS, RDS_FREE_MR, &f, sizeof(f)) ? errno : 0;
			fact("tcp_free_mr_unknown", "%s", ename(err));
			err = rdma_op(&T, "tcp", A.cookie, 0, local, 4096, 1,
				      RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, 81, NULL);
			fact("tcp_rdma_args", "%s", ename(err));
			err = atomic_op(&T, "tcp", RDS_CMSG_ATOMIC_FADD, A.cookie, 0, &old, 1, 0, 0, 0,
					RDS_RDMA_NOTIFY_ME, 82);
			fact("tcp_atomic_fadd", "%s", ename(err));
			struct rds_get_mr_args m = { .vec = { (uintptr_t)local, 4096 },
						     .cookie_addr = (uintptr_t)&ck,
						     .flags = RDS_RDMA_READWRITE };
			struct cm c = { RDS_CMSG_RDMA_MAP, &m, sizeof(m) };

			err = send_to(&T, peer_addr, peer_port, "MR tcp", &c, NULL, 0, NULL);
			fact("tcp_rdma_map", "%s", ename(err));
			c = (struct cm){ RDS_CMSG_RDMA_DEST, &A.cookie, 8 };
			err = send_to(&T, peer_addr, peer_port, "DEST tcp", &c, NULL, 0, NULL);
			fact("tcp_rdma_dest_unknown", "%s", ename(err));
			close(T.fd);
		}
	}

	/* -- atomics, on a connection of their own (TOS 1, then 10 + i) ---------------------- */
	if (atomics) {
		struct remote X;
		struct ep E;
		static uint64_t old[4] __attribute__((aligned(64)));
		uint8_t *odd = (uint8_t *)old + 4;
		char w[3][64];

		if (remote_map("X", PAGE, 0, RDS_RDMA_READWRITE, 11, &X))
			return 1;
		ask(&S, "SET X", NULL, "SETU64 X 0 1000");
		ask(&S, "SET X", NULL, "SETU64 X 8 0xffffffff");
		ask(&S, "SET X", NULL, "SETU64 X 16 0x1111222233334444");
		err = sock_new(&E, bind_addr, port + 3, RDS_TRANS_IB, 1);
		fact("atomic_socket", "%s", ename(-err));
		if (err)
			return 1;
		err = atomic_op(&E, "odd-local", RDS_CMSG_ATOMIC_FADD, X.cookie, 0,
				(uint64_t *)(void *)odd, 1, 0, 0, 0, RDS_RDMA_NOTIFY_ME, 90);
		fact("atomic_misaligned_local", "%s", ename(err));
		struct { const char *id; int type; uint64_t raddr, a1, a2, m1, m2; } at[] = {
			{ "fadd", RDS_CMSG_ATOMIC_FADD, 0, 5, 0, 0, 0 },
			{ "cswp", RDS_CMSG_ATOMIC_CSWP, 0, 1005, 77, 0, 0 },
			{ "cswp-miss", RDS_CMSG_ATOMIC_CSWP, 0, 1, 99, 0, 0 },
			{ "mfadd", RDS_CMSG_MASKED_ATOMIC_FADD, 8, 1, 0, 0x80000000ull, 0 },
			{ "mcswp", RDS_CMSG_MASKED_ATOMIC_CSWP, 16, 0x4444, 0xaaaabbbbccccddddull,
			  0xffff, 0xffff0000ffff0000ull },
			{ "odd-remote", RDS_CMSG_ATOMIC_FADD, 4, 1, 0, 0, 0 },
		};
		for (unsigned i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
			char key[64];
			uint64_t before = 0;

			if (at[i].raddr <= 16) {
				char want[16];

				snprintf(want, sizeof(want), "GOT X");
				if (!ask(&S, want, &q, "GETU64 X %" PRIu64, at[i].raddr & ~7ull)) {
					sscanf(q.text, "%63s %63s %63s", w[0], w[1], w[2]);
					before = strtoull(w[2], NULL, 0);
				}
			}
			old[0] = 0xdeadbeef;
			err = atomic_op(&E, at[i].id, at[i].type, X.cookie, at[i].raddr, &old[0],
					at[i].a1, at[i].a2, at[i].m1, at[i].m2, RDS_RDMA_NOTIFY_ME,
					91 + i);
			snprintf(key, sizeof(key), "atomic_%s_send", at[i].id);
			fact(key, "%s", ename(err));
			if (err)
				continue;
			st = wait_note(&E, 91 + i, WAIT_S / 4);
			snprintf(key, sizeof(key), "atomic_%s_status", at[i].id);
			fact(key, "%s", sname(st));
			if (st == -1) {
				/* the op never left (its post failed): that
				 * connection's queue is stuck behind it, so the
				 * next op takes a connection of its own */
				close(E.fd);
				err = sock_new(&E, bind_addr, port + 10 + (int)i, RDS_TRANS_IB,
					       10 + (int)i);
				if (err)
					break;
				continue;
			}
			ackop(&E, at[i].id);
			snprintf(key, sizeof(key), "atomic_%s_old", at[i].id);
			fact(key, "%s", old[0] == before ? "matches" : "differs");
			printf("atomic %s: old 0x%" PRIx64 " before 0x%" PRIx64 "\n", at[i].id, old[0],
			       before);
			if (!ask(&S, "GOT X", &q, "GETU64 X %" PRIu64, at[i].raddr & ~7ull)) {
				sscanf(q.text, "%63s %63s %63s", w[0], w[1], w[2]);
				snprintf(key, sizeof(key), "atomic_%s_after", at[i].id);
				fact(key, "0x%" PRIx64, strtoull(w[2], NULL, 0));
			}
		}
		close(E.fd);
	}

	/* -- the cases that end the QP (a NAK puts it in the error state,
	 *    net/rds/send.c rds_send_xmit): each on a connection of its own
	 *    (TOS 2, 3, 4), so that the control connection (TOS 0) lives on
	 *    to look at the owner's memory afterwards. */
	{
		struct remote FI;

		if (remote_map("FI", 8192, 0, RDS_RDMA_READWRITE, 7, &FI))
			return 1;
		if (ask(&S, "FREED FI", &q, "FREE FI %u", RDS_RDMA_INVALIDATE))
			return 1;
		fact("freed_FI_free", "%s", q.text + strlen("FREED FI "));
		fill(local, 8192, 8);
		fatal_case("freed_FI", bind_addr, port + 4, 2, FI.cookie, 0, local, 8192, 42, 0);
		fact("freed_FI_write_landed", "%s", landed("FI", FI.hash, &FI.guard));
		if (!ask(&S, "FREED FI", &q, "FREE FI 0"))
			fact("freed_FI_free_again", "%s", q.text + strlen("FREED FI "));
	}
	/* past the registered bytes but inside their last page: the MR
	 * covers whole pages (net/rds/ib_frmr.c) */
	fill(local, 200, 9);
	fatal_case("past_len", bind_addr, port + 5, 3, A.cookie, alen - 100, local, 200, 51, 0);
	{
		const char *l = landed("A", fnv(A.mirror, alen), &A.guard);

		fact("past_len_write_landed", "%s", l);
		if (l[0] == 'y')
			memcpy(A.mirror + alen - 100, local, 100);
	}
	/* past the last page: A is 100 + alen bytes from its first page's
	 * start, so 4 pages */
	fill(local, 200, 12);
	fatal_case("past_pages", bind_addr, port + 7, 5, A.cookie, 4 * PAGE - 100 - 100, local, 200,
		   56, 0);
	{
		uint64_t h2 = fnv(A.mirror, alen);

		fact("past_pages_write_landed", "%s", landed("A", h2, &A.guard));
	}
	fatal_case("wrong_rkey", bind_addr, port + 6, 4, A.cookie ^ 0x00ffff00ull, 0, local, 4096,
		   61, 3);
	/* the same refused write without NOTIFY_ME on a socket with
	 * RDS_RECVERR */
	fatal_case("recverr", bind_addr, port + 8, 6, A.cookie ^ 0x00ffff00ull, 0, local, 4096, 67,
		   -1);
	/* and the control connection still carries RDMA */
	fill(local, alen, 10);
	err = rdma_op(&S, "after", A.cookie, 0, local, alen, 1,
		      RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, 66, NULL);
	fact("write_after_qp_errors_status", "%s", sname(wait_note(&S, 66, WAIT_S)));
	ackop(&S, "after");
	memcpy(A.mirror, local, alen);
	if (!remote_hash("A", &h, &gd))
		check(h == fnv(A.mirror, alen), "a write on TOS 0 after the others' QP errors");

	/* -- the owner flushes, and every op's notifications counted ----------- */
	if (!ask(&S, "FREED -", &q, "FREE0 %u", RDS_RDMA_INVALIDATE))
		fact("owner_free_zero_invalidate", "%s", q.text + strlen("FREED - "));
	ask(&S, "BYE", NULL, "BYE");
	for (uint64_t tk = 11; tk <= 66; tk++) {
		int n = count_notes(&S, tk);

		if (n > 1) {
			fact("duplicate_notification", "%" PRIu64 " %d", tk, n);
			failures++;
		}
	}
	fact("nonotify_write_notes", "%d", count_notes(&S, 13));
	printf("driver: %d notifications, %d check failures\n", S.n_notes, failures);
	return failures ? 1 : 0;
}

static void on_alarm(int sig)
{
	(void)sig;
	static const char m[] = "rdmapeer: timed out\n";

	(void)!write(1, m, sizeof(m) - 1);
	_exit(1);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "role", required_argument, NULL, 'r' },
		{ "bind", required_argument, NULL, 'b' },
		{ "port", required_argument, NULL, 'p' },
		{ "peer", required_argument, NULL, 'P' },
		{ "peer-port", required_argument, NULL, 'q' },
		{ "timeout", required_argument, NULL, 't' },
		{ "bad-peer", required_argument, NULL, 'x' },
		{ "no-atomics", no_argument, NULL, 'n' },
		{ "ready-file", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	const char *role = NULL, *bind_addr = NULL, *bad = NULL;
	int port = 0, atomics = 1, c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'r': role = optarg; break;
		case 'b': bind_addr = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'P': peer_addr = optarg; break;
		case 'q': peer_port = atoi(optarg); break;
		case 't': timeout_s = atoi(optarg); break;
		case 'x': bad = optarg; break;
		case 'n': atomics = 0; break;
		case 'f': ready_file = optarg; break;
		default: return 2;
		}
	}
	if (!role || !bind_addr || !peer_addr || port <= 0 || peer_port <= 0 || timeout_s <= 0) {
		fprintf(stderr, "usage: rdmapeer --role owner|driver --bind ADDR --port P "
				"--peer ADDR --peer-port Q [--timeout S] [--bad-peer ADDR] "
				"[--no-atomics] [--ready-file PATH]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, on_alarm);
	alarm((unsigned)timeout_s + 30);
	if (!strcmp(role, "owner"))
		return owner(bind_addr, port, peer_addr, peer_port);
	if (!strcmp(role, "driver"))
		return driver(bind_addr, port, bad, atomics);
	fprintf(stderr, "rdmapeer: unknown role %s\n", role);
	return 2;
}
