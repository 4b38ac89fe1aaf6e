// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * server.c - rdsperf's server: one test at a time; while it runs, other
 * clients are told what runs and for how long; between tests every
 * control connection waits on its own deadline.
 */
#define _GNU_SOURCE
#include "rdsperf.h"

#include <argp.h>
#include <errno.h>
#include <json-c/json.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "parse.h"

/* ------------------------------------------------------------------------
 * Server
 */

/*
 * Tell a client why it is dropped, then let the line reach it: closing
 * with its bytes unread would send an RST, which can overtake the line.
 * So: the error line, our FIN, and whatever it still sends read and
 * thrown away until its FIN or CTL_DRAIN_MS. The caller closes |fd|.
 */
static void refuse(int fd, const char *why)
{
	char junk[4096];
	rdsu_ns end;

	if (ctl_send_fd(fd, ctl_error_line(why)) < 0)
		return;
	shutdown(fd, SHUT_WR);
	end = rdsu_clock() + CTL_DRAIN_MS * RDSU_MSEC;
	for (;;) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		rdsu_ns now = rdsu_clock();

		if (now >= end || poll(&pf, 1, (int)((end - now) / RDSU_MSEC) + 1) <= 0)
			return;
		if (recv(fd, junk, sizeof(junk), 0) <= 0)
			return;
	}
}

/*
 * While a test runs, other clients are answered "busy" at once rather
 * than left waiting in the listen queue for the test to end. A thread of
 * its own, because the test loop (engine.c) waits only on its sockets and
 * the client's control line. Between tests nobody is busy: every control
 * connection waits in the lobby (perf_run_server) on its own deadline.
 */
struct doorman {
	int lfd;
	char who[64];           /* the RDS address of the test's client */
	const char *test;       /* its test's name */
	double secs;            /* its length: warm-up and measurement */
	rdsu_ns t0;             /* its start */
	atomic_bool done;
	pthread_t th;
	int handoff;            /* a newcomer to serve next, or -1 */
};

/* What a client hears while |d|'s test runs. */
static void busy_line(const struct doorman *d, char *out, size_t len)
{
	double ran = (double)(rdsu_clock() - d->t0) / (double)RDSU_SEC;

	snprintf(out, len,
		 "busy: a %s test for %s is running, %.0f s of its %.0f s so far; one test "
		 "at a time, try again when it ends",
		 d->test, d->who, ran, d->secs);
}

static void *doorman_run(void *arg)
{
	struct doorman *d = arg;
	char busy[256];

	while (!atomic_load(&d->done)) {
		struct pollfd pf = { .fd = d->lfd, .events = POLLIN };
		int fd;

		/* a tenth of a second: how long the next client waits for
		 * the listener once the test ends */
		if (poll(&pf, 1, 100) <= 0)
			continue;
		fd = accept4(d->lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		/* The test may be on its way out (a client running a sweep
		 * reconnects as soon as its last result is in): then the
		 * newcomer joins the lobby, not one to turn away. */
		for (int i = 0; i < BUSY_GRACE_MS / 10 && !atomic_load(&d->done); i++)
			usleep(10000);
		if (atomic_load(&d->done)) {
			d->handoff = fd;
			return NULL;
		}
		busy_line(d, busy, sizeof(busy));
		refuse(fd, busy);
		close(fd);
	}
	return NULL;
}

/* Start the doorman for the test |p| (for the RDS address it names).
 * Return: 0;
 * -1 (no thread: others wait in the listen queue, as they would without
 * one). After doorman_stop(), d->handoff is a client accepted
 * meanwhile, or -1. */
static int doorman_start(struct doorman *d, int lfd, const struct perf_params *p)
{
	sigset_t all, old;
	int e;

	snprintf(d->who, sizeof(d->who), "%s", p->client_addr);
	d->test = perf_test_name(p->test);
	d->secs = p->omit + p->duration;
	d->t0 = rdsu_clock();
	d->lfd = lfd;
	d->handoff = -1;
	atomic_store(&d->done, false);
	/* signals stay with the main thread, whose loops check |perf_stop| */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	e = pthread_create(&d->th, NULL, doorman_run, d);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return e ? -1 : 0;
}

static void doorman_stop(struct doorman *d)
{
	atomic_store(&d->done, true);
	pthread_join(d->th, NULL);
}

/*
 * A reverse stream: the server is the sender, with the client's sender
 * loop, until its time is up or the client's "stop" comes. What it sent
 * goes back in the result's message and byte counts.
 */
static int serve_reverse(struct perf_server *s, const struct rdsu_addr *client)
{
	struct perf_client *c = calloc(1, sizeof(*c));
	int e;

	if (!c)
		return -ENOMEM;
	c->p = s->p;
	c->r = s->r;
	c->dst = *client;
	for (unsigned i = 0; i < s->p->sockets; i++) {
		c->socks[i] = s->socks[i];
		c->dports[i] = s->p->client_ports[i];
	}
	c->threads = 1;
	c->sched = SCHED_POLL;
	/* no lines are printed; the ticks bound how long a blocked sender
	 * takes to see the client's "stop" */
	c->interval = 0.05;
	c->stop = &perf_stop;
	c->watch_fd = s->ctl_fd;
	e = perf_client_run(c);
	s->res.msgs = c->total.msgs;
	s->res.bytes = c->total.bytes;
	s->res.eagain = c->total.eagain;
	s->res.enobufs = c->total.enobufs;
	s->res.cpu = c->cpu;
	s->res.wall = c->measured;
	free(c);
	return e;
}

/*
 * RDS refuses a message larger than the sender's SNDBUF (EMSGSIZE), so a
 * test whose messages cannot fit is refused before it starts rather than
 * failing on its first send. Here the server's sends: responses, or the
 * stream of a reverse test. Return: 0; -1 and |err|.
 */
static int check_size(const struct perf_server *s, const struct perf_params *p,
		      char *err, size_t errlen)
{
	uint32_t len = p->reverse ? p->size : p->test == PERF_STREAM ? 0 : p->rsize;

	if (perf_test_rdma(p->test))
		return 0;  /* 8-byte messages carry the operations */
	uint32_t budget = rio_max_msg(s->socks[0]);

	if (len <= budget)
		return 0;
	snprintf(err, errlen,
		 "%s of %u bytes do not fit the server's send buffer of %u bytes (RDS refuses a "
		 "message larger than SNDBUF): raise it with -w %u",
		 p->reverse ? "messages" : "responses", len, budget, len);
	return -1;
}

/* An RDMA test the server could not set up: why, to both. Over TCP the
 * kernel and librds answer EOPNOTSUPP (net/rds/rdma.c: RDS/TCP has no
 * get_mr, docs/kernel-behaviour.md "RDMA operations"). */
static void rdma_refused(struct ctl *cc, bool kernel, const struct rdsu_addr *laddr,
			 const char *step, int e)
{
	char err[512], a[64];

	snprintf(err, sizeof(err), "server %s on %s: %s: %s%s", perf_stack_name(kernel),
		 rdsu_addr_str(laddr, a, sizeof(a)), step, rdsu_strerror(e),
		 e == -EOPNOTSUPP ? " (RDMA needs RDS over IB: an address on an RDMA device, or "
				    "--transport ib at both ends; RDS over TCP and loopback have none)" : "");
	fprintf(stderr, "rdsperf: %s\n", err);
	ctl_send(cc, ctl_error_line(err));
}

/*
 * The test |p| that the client on |cc| asked for, from its start to its
 * result; the doorman answers others meanwhile. Return: 0, the
 * connection may ask for another; negative, close it.
 */
static int run_test(struct opts *o, struct ctl *cc, int lfd, struct perf_params *p,
		    struct doorman *door)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	struct perf_server s;
	struct perf_rdma_srv mem = { 0 };
	const char *step = NULL;
	struct rdsu_addr client, laddr;
	struct rio_cfg cfg = o->cfg;
	struct rio *r = NULL;
	uint16_t ports[PERF_MAX_SOCKS], port;
	char *line, err[256], a[64];
	int64_t rt0;
	unsigned n = 0;
	int e;

	/* RDS is served on the address the client reached us at */
	if (getsockname(cc->in.fd, (struct sockaddr *)&ss, &len) < 0 ||
	    rdsu_sockaddr_get(&ss, &laddr, &port) < 0)
		return -ENOTCONN;
	memset(&s, 0, sizeof(s));
	if (parse_addr(p->client_addr, &client) < 0) {
		ctl_send(cc, ctl_error_line("client_addr is not an address"));
		return -EINVAL;
	}
	if (!(line = malloc(CTL_MAX_LINE + 1)))
		return -ENOMEM;
	cfg.ep.npaths = (uint16_t)p->paths;
	cfg.ep.kver = p->kver == 6 ? WIRE_KVER_6 : WIRE_KVER_7;
	cfg.ep.path_rule = p->path_by_pair ? RDSU_PATH_BY_PAIR : RDSU_PATH_BY_PORT;
	rio_cfg_add_addr(&cfg, &laddr);
	e = rio_open(&r, &cfg);
	while (e == 0 && n < p->sockets) {
		e = rio_socket(r, &laddr, 0, &s.socks[n]);
		if (e < 0)
			break;
		ports[n] = rio_sock_port(s.socks[n]);
		e = rio_set_bufs(s.socks[n++], p->buf, p->buf);
	}
	if (e < 0) {
		snprintf(err, sizeof(err), "server %s on %s: %s", perf_stack_name(cfg.kernel),
			 rdsu_addr_str(&laddr, a, sizeof(a)), rdsu_strerror(e));
		fprintf(stderr, "rdsperf: %s\n", err);
		ctl_send(cc, ctl_error_line(err));
	} else if (perf_test_rdma(p->test) &&
		   (e = perf_rdma_serve(&mem, r, s.socks[0], p, &client, &step)) < 0) {
		rdma_refused(cc, cfg.kernel, &laddr, step, e);
		e = 0;  /* the client may propose another */
	} else if ((e = check_size(&s, p, err, sizeof(err))) < 0) {
		fprintf(stderr, "rdsperf: %s\n", err);
		ctl_send(cc, ctl_error_line(err));
		e = 0;  /* the client may propose another */
	} else {
		bool guarded = doorman_start(door, lfd, p) == 0;

		if (ctl_send(cc, ctl_ready_line(ports, p->sockets, cfg.kernel, p->reverse)) == 0) {
			fprintf(stderr, "rdsperf: %s from %s, %u socket%s, %u bytes\n",
				perf_test_name(p->test), p->client_addr, p->sockets,
				p->sockets == 1 ? "" : "s", p->size);
			s.p = p;
			s.r = r;
			s.ctl_fd = cc->in.fd;
			rt0 = perf_librds_retransmits(r);
			e = p->reverse ? serve_reverse(&s, &client) : perf_server_run(&s);
			s.res.rds_retransmits = rt0 < 0 ? -1 : perf_librds_retransmits(r) - rt0;
			s.res.kernel = cfg.kernel;
			s.res.has_hash = mem.mem != NULL;
			if (mem.mem)
				s.res.region_hash = perf_rdma_hash(&mem);
			/* while the client still holds its connection: the
			 * kernel invalidates a region on the connection it was
			 * registered on (net/rds/ib_frmr.c rds_ib_post_inv),
			 * and the client goes once it has the result */
			perf_rdma_unmap(&mem);
			if (e < 0)
				fprintf(stderr, "rdsperf: test failed: %s\n", rdsu_strerror(e));
			/* the stop line (or EOF) is what ended the loop */
			if (ctl_recv(cc, line, CTL_TIMEOUT_MS) == 0 &&
			    ctl_parse_stop(line, err, sizeof(err)) == 0)
				e = ctl_send(cc, ctl_result_line(&s.res));
			else
				e = -ECONNRESET;
		} else {
			e = -ECONNRESET;
		}
		if (guarded)
			doorman_stop(door);
	}
	perf_rdma_unmap(&mem);
	for (unsigned i = 0; i < n; i++)
		rio_sock_close(s.socks[i]);
	rio_close(r);
	/* after the stack: nothing can be written into it any more */
	perf_rdma_srv_free(&mem);
	free(line);
	return e;
}

/* Tell a waiting client |why| and close it without the drain refuse()
 * waits for: it sent nothing the line could be overtaken by (its bytes
 * so far are read into its line buffer), and the lobby must not stall. */
static void tell_close(struct ctl *cc, const char *why)
{
	(void)ctl_send_fd(cc->in.fd, ctl_error_line(why));
	shutdown(cc->in.fd, SHUT_WR);
	close(cc->in.fd);
	free(cc);
}

/*
 * The lobby: control connections between tests, each with its own
 * deadline for its next request (--ctl-timeout after its accept or its
 * last result). Whichever sends a whole request first runs its test;
 * one that is idle or slow holds no one up and is dropped at its
 * deadline. Over LOBBY_MAX waiting, a newcomer is told so.
 */
#define LOBBY_MAX 64

struct waiting {
	struct ctl *cc;
	rdsu_ns deadline;
	bool served;            /* it ran a test (for --one-off) */
};

/* The server's state between tests: pf[1 + i] watches lobby[i]. */
struct lobby {
	struct opts *o;
	int lfd;
	char *line;
	struct doorman door;
	struct waiting w[LOBBY_MAX];
	struct pollfd pf[1 + LOBBY_MAX];
	unsigned n;
	bool done;
};

/* Take waiting client |i| out; the last one moves into its slot with
 * its events. */
static void lobby_drop(struct lobby *l, unsigned i)
{
	l->w[i] = l->w[--l->n];
	l->pf[1 + i] = l->pf[1 + l->n];
}

/* Wait for a newcomer, a request or the nearest deadline. Returns a
 * descriptor to admit (the doorman's handoff or an accepted one), -1
 * for none, -2 when polling failed, -3 when a signal ended it. */
static int lobby_poll(struct lobby *l)
{
	rdsu_ns now = rdsu_clock(), next = RDSU_NS_NEVER;
	int fd = l->door.handoff, wait = -1;

	l->door.handoff = -1;
	l->pf[0] = (struct pollfd){ .fd = l->lfd, .events = POLLIN };
	for (unsigned i = 0; i < l->n; i++) {
		l->pf[1 + i] = (struct pollfd){ .fd = l->w[i].cc->in.fd, .events = POLLIN };
		if (l->w[i].deadline < next)
			next = l->w[i].deadline;
	}
	if (fd >= 0)
		return fd;
	if (next != RDSU_NS_NEVER)
		wait = next <= now ? 0 : (int)((next - now) / RDSU_MSEC) + 1;
	if (poll(l->pf, 1 + l->n, wait) < 0) {
		if (errno == EINTR)
			return -3;
		fprintf(stderr, "rdsperf: poll: %s\n", strerror(errno));
		return -2;
	}
	if (l->pf[0].revents & POLLIN)
		return accept4(l->lfd, NULL, NULL, SOCK_CLOEXEC);
	return -1;
}

static void lobby_admit(struct lobby *l, int fd)
{
	struct ctl *cc = l->n < LOBBY_MAX ? calloc(1, sizeof(*cc)) : NULL;
	char err[256];
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (!cc) {
		snprintf(err, sizeof(err),
			 "busy: %u clients are waiting to ask for a test; try again later", l->n);
		refuse(fd, err);
		close(fd);
		return;
	}
	ctl_init(cc, fd);
	l->w[l->n++] = (struct waiting){
		.cc = cc, .deadline = rdsu_clock() + (rdsu_ns)l->o->ctl_idle * RDSU_SEC
	};
	l->pf[l->n] = (struct pollfd){ .fd = fd, .events = POLLIN, .revents = POLLIN };
}

/* Client |i| asked for a test: those still waiting would wait for the
 * whole test, so they hear it now and go; it runs alone in slot 0.
 * Returns run_test()'s answer. */
static int lobby_run(struct lobby *l, unsigned i, struct perf_params *p)
{
	char busy[256];

	snprintf(l->door.who, sizeof(l->door.who), "%s", p->client_addr);
	l->door.test = perf_test_name(p->test);
	l->door.secs = p->omit + p->duration;
	l->door.t0 = rdsu_clock();
	busy_line(&l->door, busy, sizeof(busy));
	for (unsigned j = 0; j < l->n; j++)
		if (j != i)
			tell_close(l->w[j].cc, busy);
	l->w[0] = l->w[i];
	l->n = 1;
	l->w[0].served = true;
	return run_test(l->o, l->w[0].cc, l->lfd, p, &l->door);
}

/* Read what client |i| sent. Returns 1 to keep it where it is, 0 to
 * look at slot 0 again (it ran a test and may have sent its next
 * request already), -1 to close it. */
static int lobby_read(struct lobby *l, unsigned i)
{
	struct ctl *cc = l->w[i].cc;
	struct perf_params p;
	char err[256];
	int e = ctl_recv(cc, l->line, 0);

	if (e == -ETIMEDOUT)
		return 1;  /* a part of a line, or nothing yet */
	if (e == -EMSGSIZE) {
		snprintf(err, sizeof(err), "control line longer than %u bytes: closing",
			 CTL_MAX_LINE);
		fprintf(stderr, "rdsperf: %s\n", err);
		refuse(cc->in.fd, err);
	} else if (e == 0 && ctl_parse_start(l->line, &p, err, sizeof(err)) < 0) {
		fprintf(stderr, "rdsperf: bad request: %s\n", err);
		ctl_send(cc, ctl_error_line(err));
	} else if (e == 0 && lobby_run(l, i, &p) == 0) {
		l->w[0].deadline = rdsu_clock() + (rdsu_ns)l->o->ctl_idle * RDSU_SEC;
		l->pf[1].revents = POLLIN;
		return 0;
	}
	return -1;
}

/* Requests first: one that came whole in time is served. */
static void lobby_serve(struct lobby *l)
{
	for (unsigned i = 0; i < l->n; i++) {
		int r;

		if (!l->pf[1 + i].revents)
			continue;
		l->pf[1 + i].revents = 0;
		r = lobby_read(l, i);
		if (r == 0) {
			i = (unsigned)-1;
			continue;
		}
		if (r > 0)
			continue;
		if (i >= l->n)
			i = 0;  /* it ran a test: lobby_run left it alone in slot 0 */
		if (l->w[i].served && l->o->once)
			l->done = true;
		close(l->w[i].cc->in.fd);
		free(l->w[i].cc);
		lobby_drop(l, i--);
	}
}

/* Then the deadlines. */
static void lobby_expire(struct lobby *l)
{
	rdsu_ns now = rdsu_clock();
	char err[256];

	for (unsigned i = 0; i < l->n; i++) {
		if (l->w[i].deadline > now)
			continue;
		snprintf(err, sizeof(err), "no request within %u s: closing", l->o->ctl_idle);
		fprintf(stderr, "rdsperf: %s\n", err);
		if (l->w[i].served && l->o->once)
			l->done = true;
		tell_close(l->w[i].cc, err);
		lobby_drop(l, i--);
	}
}

int perf_run_server(struct opts *o)
{
	struct lobby l;
	struct rdsu_addr at;
	int e;

	memset(&l, 0, sizeof(l));
	memset(&at, 0, sizeof(at));     /* no -I: every address */
	l.o = o;
	if (o->cfg.local.given && (e = rio_local_pick(&o->cfg.local, NULL, &at)) < 0) {
		fprintf(stderr, "rdsperf: -I %s: %s\n", o->cfg.local.iface,
			e == -ENODEV ? "no such interface" : "the interface has no address");
		return 2;
	}
	l.lfd = line_listen(&at, o->ctl_port);
	if (l.lfd < 0) {
		fprintf(stderr, "rdsperf: control port %u: %s\n", o->ctl_port, strerror(-l.lfd));
		return 2;
	}
	if (!(l.line = malloc(CTL_MAX_LINE + 1))) {
		close(l.lfd);
		return 2;
	}
	fprintf(stderr, "rdsperf: serving on port %u (%s)\n", o->ctl_port, perf_stack_name(o->cfg.kernel));
	l.door.handoff = -1;
	while (!perf_stop && !l.done) {
		int fd = lobby_poll(&l);

		if (fd == -2)
			break;
		if (fd == -3)
			continue;
		if (fd >= 0)
			lobby_admit(&l, fd);
		lobby_serve(&l);
		lobby_expire(&l);
	}
	for (unsigned i = 0; i < l.n; i++) {
		close(l.w[i].cc->in.fd);
		free(l.w[i].cc);
	}
	if (l.door.handoff >= 0)
		close(l.door.handoff);
	free(l.line);
	close(l.lfd);
	return 0;
}
