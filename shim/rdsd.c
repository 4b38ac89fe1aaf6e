// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rdsd.c - the program: its options, the listening socket, the event loop
 * (one epoll set holds the listener, every socket's connection, every
 * reply channel and every endpoint's descriptor), and the small helpers
 * every room uses. The map of the shim is shim/README.md.
 */
#include "rdsd.h"

static int g_epfd = -1;
static struct obj g_listen = { OBJ_LISTEN };
int g_lfd = -1;
struct epoll_event *g_round;  /* this round's events, while they are handled */
int g_round_n;
struct ep *g_eps;
struct dsock *g_socks;
unsigned g_nsocks;
static bool g_verbose;
bool g_any_user;
uint32_t g_wmem_max = 212992, g_rmem_max = 212992;  /* net.core.[wr]mem_max */
unsigned g_max_user_fds;     /* --max-fds; 0 until setup() picks the default */      /* --any-user: not only our own uid (and root) */
uint8_t *g_buf;       /* one request or one received message */
size_t g_bufcap;

int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void logf_(const char *fmt, ...)
{
	va_list ap;

	if (!g_verbose)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "rdsd[%d]: ", (int)getpid());
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

int ep_add(int fd, void *p, uint32_t ev)
{
	struct epoll_event e = { .events = ev, .data.ptr = p };

	return epoll_ctl(g_epfd, EPOLL_CTL_ADD, fd, &e);
}

void ep_mod(int fd, void *p, uint32_t ev)
{
	struct epoll_event e = { .events = ev, .data.ptr = p };

	(void)epoll_ctl(g_epfd, EPOLL_CTL_MOD, fd, &e);
}

/* The events of this round still to be handled that name |p|, which is
 * being freed, pointed at the listener (which only accepts). */
void forget_events(const void *p)
{
	for (int k = 0; k < g_round_n; k++)
		if (g_round[k].data.ptr == p)
			g_round[k].data.ptr = &g_listen;
}

/* A big enough buffer for a whole message in either direction: root may
 * go past wmem_max, others get what the system allows. */
void big_sndbuf(int fd)
{
	int v = 4 * (int)RDSD_MAX_MSG;

	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &v, sizeof(v)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
}

static int listen_on(const char *name)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	size_t n = strlen(name);
	int fd;

	if (n + 1 > sizeof(sun.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(sun.sun_path + 1, name, n);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sun, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)) < 0 ||
	    listen(fd, 128) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: rdsd [-v] [--name NAME] [--listen-fd FD] [--linger SEC] [--any-user]\n"
		"            [--max-fds N]\n"
		"  one RDS presence for the shimmed programs of this network namespace\n");
}

/* The command line into |name| and |linger|. Return: -1 to go on; the
 * exit status otherwise (--version, a usage error). */
static int parse_args(int argc, char **argv, const char **name, int *linger)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v")) {
			g_verbose = true;
		} else if (!strcmp(argv[i], "--name") && i + 1 < argc) {
			*name = argv[++i];
		} else if (!strcmp(argv[i], "--listen-fd") && i + 1 < argc) {
			g_lfd = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--linger") && i + 1 < argc) {
			*linger = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--max-fds") && i + 1 < argc && atoi(argv[i + 1]) > 0) {
			g_max_user_fds = (unsigned)atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--any-user")) {
			g_any_user = true;
		} else if (!strcmp(argv[i], "--version")) {
			printf("rdsd " RDSTK_VERSION "\n");
			return 0;
		} else {
			usage();
			return 2;
		}
	}
	return -1;
}

/* The buffer, the listening socket (ours or the one handed over) and the
 * epoll set. Return: 0; 1 after saying what failed. */
/* Every socket and reply channel is a descriptor of ours: the soft limit
 * raised to the hard one, and each user's share (--max-fds, default
 * RDSD_DEFAULT_USER_FDS) kept below it, 64 left for the endpoints. */
static void descriptor_limits(void)
{
	struct rlimit rl;
	rlim_t avail = 1024;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		if (rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max > (1u << 20) ? (1u << 20) : rl.rlim_max;
			(void)setrlimit(RLIMIT_NOFILE, &rl);
			(void)getrlimit(RLIMIT_NOFILE, &rl);
		}
		avail = rl.rlim_cur;
	}
	avail = avail > 128 ? avail - 64 : 64;
	if (!g_max_user_fds)
		g_max_user_fds = RDSD_DEFAULT_USER_FDS;
	if (g_max_user_fds > avail)
		g_max_user_fds = (unsigned)avail;
	logf_("each user may hold %u descriptors of rdsd", g_max_user_fds);
}

/* A sysctl's number into *v, which keeps its value when it cannot be read. */
static void read_sysctl(const char *path, uint32_t *v)
{
	FILE *f = fopen(path, "re");
	unsigned long n = 0;

	if (!f)
		return;
	if (fscanf(f, "%lu", &n) == 1 && n > 0 && n <= RDSD_MAX_BUF)
		*v = (uint32_t)n;
	else if (n > RDSD_MAX_BUF)
		*v = RDSD_MAX_BUF;
	fclose(f);
}

static int setup(const char *name)
{
	signal(SIGPIPE, SIG_IGN);
	descriptor_limits();
	read_sysctl("/proc/sys/net/core/wmem_max", &g_wmem_max);
	read_sysctl("/proc/sys/net/core/rmem_max", &g_rmem_max);
	g_bufcap = sizeof(struct rdsd_req) + RDSD_MAX_MSG + sizeof(struct rdsd_rx);
	g_buf = malloc(g_bufcap);
	if (!g_buf)
		return 1;
	if (g_lfd < 0) {
		g_lfd = listen_on(name);
		if (g_lfd < 0) {
			fprintf(stderr, "rdsd: listen on @%s: %s\n", name, strerror(errno));
			return 1;
		}
	} else {
		(void)fcntl(g_lfd, F_SETFL, O_NONBLOCK);
		(void)fcntl(g_lfd, F_SETFD, FD_CLOEXEC);
	}
	g_epfd = epoll_create1(EPOLL_CLOEXEC);
	if (g_epfd < 0 || ep_add(g_lfd, &g_listen, EPOLLIN) < 0) {
		perror("rdsd: epoll");
		return 1;
	}
	logf_("listening on @%s", name);
	return 0;
}

/* The socket of |evs[i]|, readable or writable again; freed when its
 * connection closed, and the later events of this round that name it or
 * one of its channels pointed at the listener (which only accepts). */
static void sock_event(struct epoll_event *evs, int i, int n)
{
	struct dsock *s = evs[i].data.ptr;

	if (evs[i].events & EPOLLOUT) {
		s->push_blocked = false;
		ep_mod(s->fd, s, EPOLLIN);
	}
	if (!(evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) || sock_input(s))
		return;
	for (int k = i + 1; k < n; k++) {
		bool gone = evs[k].data.ptr == s;

		for (struct chan *c = s->chans; c && !gone; c = c->next)
			gone = evs[k].data.ptr == c;
		if (gone)
			evs[k].data.ptr = &g_listen;
	}
	sock_free(s);
}

/* After a round's events: every endpoint's events drained (and run when a
 * send waits), then every socket's parked sends, local deliveries and
 * received messages moved on. */
static void after_round(bool parked)
{
	for (struct ep *e = g_eps; e; e = e->next) {
		struct rdsu_event ev;

		if (parked)
			(void)rdsu_io_run(e->io, 0);
		while (rdsu_ep_next_event(rdsu_io_ep(e->io), &ev) == 1)
			;
	}
	for (struct dsock *s = g_socks; s; s = s->next) {
		ring_drain(s);
		if (s->parked)
			retry_parked(s);
		pump_local(s);
		if (pump_rx(s))
			(void)rdsu_io_flush(s->ep->io);
	}
}

int main(int argc, char **argv)
{
	const char *name = getenv("RDSD_NAME");
	int linger = -1;            /* seconds without sockets before exiting; -1 never */
	int64_t idle_since = now_ms();
	bool had_sock = false;
	int r;

	if (!name || !*name)
		name = RDSD_DEFAULT_NAME;
	r = parse_args(argc, argv, &name, &linger);
	if (r >= 0)
		return r;
	if (setup(name))
		return 1;
	for (;;) {
		struct epoll_event evs[64];
		bool parked = false;
		int n, timeout = -1;

		for (struct dsock *s = g_socks; s; s = s->next)
			parked |= s->parked != NULL;
		if (parked)
			timeout = 2;  /* acknowledgements and freed ports, looked for */
		if (linger >= 0 && g_nsocks == 0)
			timeout = timeout < 0 ? 200 : timeout;
		if (rings_arm())
			timeout = 0;  /* a ring got sends while we were busy */
		n = epoll_wait(g_epfd, evs, 64, timeout);
		if (n < 0 && errno != EINTR) {
			perror("rdsd: epoll_wait");
			return 1;
		}
		g_round = evs;
		g_round_n = n;
		for (int i = 0; i < n; i++) {
			struct obj *o = evs[i].data.ptr;

			switch (o->kind) {
			case OBJ_LISTEN:
				for (int k = 0; k < 16; k++)
					accept_one();
				had_sock = true;
				break;
			case OBJ_EP:
				(void)rdsu_io_run(((struct ep *)o)->io, 0);
				break;
			case OBJ_CHAN:
				chan_gone((struct chan *)o);
				break;
			case OBJ_SOCK:
				sock_event(evs, i, n);
				break;
			case OBJ_RING:
				/* rung (edge-triggered, never read): drained
				 * after the round, with every other ring */
				break;
			}
		}
		g_round_n = 0;
		after_round(parked);
		if (g_nsocks)
			idle_since = now_ms();
		else if (linger >= 0 && had_sock && now_ms() - idle_since >= linger * 1000LL)
			break;
	}
	logf_("no sockets for %d s: exiting", linger);
	return 0;
}
