// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rio.c - the tools' socket API over librds or kernel AF_RDS (rio.h).
 */
#define _GNU_SOURCE
#include "rio.h"

#include "out.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <limits.h>
#include <linux/rds.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <wire/wire.h>

#ifndef SO_SNDBUFFORCE
#define SO_SNDBUFFORCE 32
#endif
#ifndef SO_RCVBUFFORCE
#define SO_RCVBUFFORCE 33
#endif

struct rio {
	bool kernel;
	enum rio_trans transport;
	uint32_t sndbuf, rcvbuf;        /* every socket's (rio_cfg); 0: the stack's */
	unsigned trans;         /* librds: RDSU_TRANS_* its sockets take */
	struct rdsu_io *io;
};

#ifdef RIO_HAVE_IB
const bool rio_have_ib = true;
#else
const bool rio_have_ib = false;
#endif

#define RIO_NOTES 64

struct rio_sock {
	struct rio *r;
	int fd;                 /* kernel */
	struct rdsu_sock *us;   /* librds */
	bool v6;
	uint16_t port;
	/* kernel: RDMA notifications rio_recv() met, for rio_next_notify() */
	struct rdsu_notify notes[RIO_NOTES];
	unsigned note_head, note_n;
};

void rio_cfg_default(struct rio_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	rdsu_ep_cfg_default(&cfg->ep);
	rdsu_io_cfg_default(&cfg->io);
	rdsu_tcp_cfg_default(&cfg->tcp);
	/* rio waits only in rdsu_io_run (never on rdsu_io_fd). */
	cfg->tcp.ring_wait = true;
#ifdef RIO_HAVE_IB
	rdsu_ib_cfg_default(&cfg->ib);
#endif
}

void rio_signals(void (*stop)(int sig))
{
	signal(SIGINT, stop);
	signal(SIGTERM, stop);
	signal(SIGPIPE, SIG_IGN);
}

const struct wire_tok rio_trans_toks[] = {
	{ RIO_TRANS_TCP, "tcp" },
	{ RIO_TRANS_IB, "ib" },
	{ RIO_TRANS_AUTO, "auto" },
	{ 0, NULL },
};

int rio_trans_parse(const char *s, enum rio_trans *t)
{
	uint32_t v;

	if (wire_tok_value(rio_trans_toks, s, &v) < 0)
		return -1;
	*t = (enum rio_trans)v;
	return 0;
}

const char *rio_trans_name(unsigned trans)
{
	static const struct wire_tok names[] = {
		{ RDSU_TRANS_IB, "IB" },
		{ RDSU_TRANS_TCP, "TCP" },
		{ RDSU_TRANS_LOOP, "loopback" },
		{ 0, NULL },
	};

	return wire_tok_str(names, trans, "none");
}

/* RDS_TRANS_* for SO_RDS_TRANSPORT, or -1 to leave the choice to bind. */
static int kernel_trans(enum rio_trans t)
{
	return t == RIO_TRANS_IB ? RDS_TRANS_IB : t == RIO_TRANS_TCP ? RDS_TRANS_TCP : -1;
}

/* Is every address of |ep| on an RDMA device? Anything that cannot be
 * told (no rdma_cm, no IB transport built) says no: TCP. */
static bool all_rdma(const struct rdsu_ep_cfg *ep)
{
#ifdef RIO_HAVE_IB
	for (unsigned i = 0; i < ep->n_laddrs; i++)
		if (rdsu_ib_laddr_check(&ep->laddrs[i]) != 1)
			return false;
	return ep->n_laddrs > 0;
#else
	(void)ep;
	return false;
#endif
}

enum rio_trans rio_trans_pick(enum rio_trans t, const struct rdsu_addr *laddr)
{
#ifdef RIO_HAVE_IB
	if (t == RIO_TRANS_AUTO)
		return rdsu_ib_laddr_check(laddr) == 1 ? RIO_TRANS_IB : RIO_TRANS_TCP;
#else
	(void)laddr;
#endif
	return t == RIO_TRANS_IB ? RIO_TRANS_IB : RIO_TRANS_TCP;
}

/* librds's transports for |cfg|: the loop's set and which addresses take
 * IB at bind. */
static int librds_transports(const struct rio_cfg *cfg, struct rdsu_ep_cfg *ep,
			     struct rdsu_io_cfg *io, unsigned *trans)
{
	bool ib = cfg->transport == RIO_TRANS_IB ||
		  (cfg->transport == RIO_TRANS_AUTO && all_rdma(ep));

	io->tcp = &cfg->tcp;
	io->ib = NULL;
	ep->rdma_laddrs = 0;
	*trans = ib ? RDSU_TRANS_IB : RDSU_TRANS_TCP;
	if (!ib) {
		io->transports = RDSU_IO_TCP;
		return 0;
	}
	if (!rio_have_ib)
		return -EPROTONOSUPPORT;
	io->ib = &cfg->ib;
	ep->rdma_laddrs = (uint32_t)((1u << ep->n_laddrs) - 1);
	/* Forced, IB alone (no TCP listener, as a socket pinned to IB
	 * never uses one); chosen, TCP beside it as the kernel listens
	 * with both. */
	io->transports = RDSU_IO_IB | (cfg->transport == RIO_TRANS_IB ? 0 : RDSU_IO_TCP);
	return 0;
}

int rio_cfg_add_addr(struct rio_cfg *cfg, const struct rdsu_addr *a)
{
	for (unsigned i = 0; i < cfg->ep.n_laddrs; i++)
		if (!memcmp(&cfg->ep.laddrs[i], a, sizeof(*a)))
			return 0;
	if (cfg->ep.n_laddrs >= RDSU_MAX_LADDRS)
		return -E2BIG;
	cfg->ep.laddrs[cfg->ep.n_laddrs++] = *a;
	return 0;
}

/* The address the kernel would send from: a connected UDP socket's name.
 * connect() on UDP sends nothing. */
int rio_route_source(const struct rdsu_addr *dst, struct rdsu_addr *src)
{
	struct sockaddr_storage ss;
	socklen_t len = rdsu_sockaddr(dst, RDSU_TCP_PORT, &ss);
	int fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0), e = 0;
	uint16_t port;

	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&ss, len) < 0)
		e = -errno;
	len = sizeof(ss);
	if (!e && getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		e = -errno;
	close(fd);
	if (!e)
		e = rdsu_sockaddr_get(&ss, src, &port);
	return e;
}

/* The address of interface |ifname| of |peer|'s family (NULL: IPv4, else
 * IPv6), as ping -I IFACE binds to it. Return: 0; -ENODEV no such
 * interface; -EADDRNOTAVAIL none of that family. */
static int iface_addr(const char *ifname, const struct rdsu_addr *peer, struct rdsu_addr *a)
{
	struct rdsu_addr v6 = { 0 };
	struct ifaddrs *ifs;
	bool seen = false, have_v6 = false;
	int e = -EADDRNOTAVAIL;

	if (getifaddrs(&ifs) < 0)
		return -errno;
	for (struct ifaddrs *i = ifs; i && e; i = i->ifa_next) {
		struct sockaddr_storage ss = { 0 };
		uint16_t port;

		if (strcmp(i->ifa_name, ifname))
			continue;
		seen = true;
		if (!i->ifa_addr || (i->ifa_addr->sa_family != AF_INET &&
				     i->ifa_addr->sa_family != AF_INET6))
			continue;
		memcpy(&ss, i->ifa_addr, i->ifa_addr->sa_family == AF_INET ?
		       sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
		if (rdsu_sockaddr_get(&ss, a, &port) < 0)
			continue;
		if (!peer && !rdsu_addr_is_v4(a) && !have_v6) {
			v6 = *a;
			have_v6 = true;
		} else if (rdsu_addr_is_v4(a) == (!peer || rdsu_addr_is_v4(peer))) {
			e = 0;
		}
	}
	freeifaddrs(ifs);
	if (e && have_v6) {
		*a = v6;
		e = 0;
	}
	return e && !seen ? -ENODEV : e;
}

int rio_local_pick(const struct rio_local *l, const struct rdsu_addr *peer, struct rdsu_addr *out)
{
	if (l->iface)
		return iface_addr(l->iface, peer, out);
	if (l->given) {
		*out = l->addr;
		return 0;
	}
	return peer ? rio_route_source(peer, out) : -EDESTADDRREQ;
}

int rio_open(struct rio **out, const struct rio_cfg *cfg)
{
	struct rio *r = calloc(1, sizeof(*r));
	int e;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	r->kernel = cfg->kernel;
	r->transport = cfg->transport;
	r->sndbuf = cfg->sndbuf;
	r->rcvbuf = cfg->rcvbuf;
	if (r->kernel) {
		/* Is AF_RDS there at all? (Most distributions blacklist it.) */
		int fd = socket(AF_RDS, SOCK_SEQPACKET, 0), tr = kernel_trans(cfg->transport);

		if (fd < 0) {
			e = -errno;
			free(r);
			return e;
		}
		/* ... and the transport asked for (ENOPROTOOPT: its module is
		 * not loaded), so that the error names the module, not bind. */
		e = tr >= 0 && setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &tr, sizeof(tr)) < 0 ? -errno
											    : 0;
		close(fd);
		if (e < 0) {
			free(r);
			return e;
		}
		r->trans = tr >= 0 ? (unsigned)tr : RDSU_TRANS_NONE;
	} else {
		struct rdsu_ep_cfg ec = cfg->ep;
		struct rdsu_io_cfg ic = cfg->io;

		e = librds_transports(cfg, &ec, &ic, &r->trans);
		if (e == 0)
			e = rdsu_io_new(&r->io, &ec, &ic);
		if (e < 0) {
			free(r);
			return e;
		}
		if (cfg->monitor && !rdsu_io_monitor_path(r->io))
			(void)rdsu_io_monitor(r->io, NULL);
	}
	*out = r;
	return 0;
}

void rio_close(struct rio *r)
{
	if (!r)
		return;
	rdsu_io_free(r->io);
	free(r);
}

struct rdsu_io *rio_io(struct rio *r)
{
	return r ? r->io : NULL;
}

struct rdsu_tcp *rio_tcp(struct rio *r)
{
	return rdsu_io_tcp(rio_io(r));
}

unsigned rio_transport(const struct rio *r)
{
	return r->trans;
}

int rio_socket(struct rio *r, const struct rdsu_addr *addr, uint16_t port, struct rio_sock **out)
{
	struct rio_sock *s = calloc(1, sizeof(*s));
	int e;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->r = r;
	s->fd = -1;
	s->v6 = !rdsu_addr_is_v4(addr);
	if (r->kernel) {
		struct sockaddr_storage ss;
		socklen_t len = rdsu_sockaddr(addr, port, &ss);
		int tr = kernel_trans(r->transport);

		s->fd = socket(AF_RDS, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (s->fd < 0)
			goto err;
		/* Unset, bind picks IB if the address can take it, else TCP. */
		if ((tr >= 0 && setsockopt(s->fd, SOL_RDS, SO_RDS_TRANSPORT, &tr, sizeof(tr)) < 0) ||
		    bind(s->fd, (struct sockaddr *)&ss, len) < 0)
			goto err;
		len = sizeof(ss);
		if (getsockname(s->fd, (struct sockaddr *)&ss, &len) < 0)
			goto err;
		{
			struct rdsu_addr bound;

			if (rdsu_sockaddr_get(&ss, &bound, &s->port) < 0) {
				errno = EAFNOSUPPORT;
				goto err;
			}
		}
	} else {
		struct rdsu_addr a;

		e = rdsu_sock_new(rdsu_io_ep(r->io), &s->us);
		if (e < 0) {
			free(s);
			return e;
		}
		/* What the endpoint's addresses already give, said as
		 * SO_RDS_TRANSPORT when the user forced it. */
		e = r->transport == RIO_TRANS_AUTO ? 0 : rdsu_sock_set_transport(s->us, r->trans);
		if (e == 0)
			e = rdsu_sock_bind(s->us, addr, port);
		if (e < 0) {
			rdsu_sock_free(s->us, rdsu_clock());
			free(s);
			return e;
		}
		(void)rdsu_sock_get_name(s->us, &a, &s->port);
	}
	if ((r->sndbuf || r->rcvbuf) && (e = rio_set_bufs(s, r->sndbuf, r->rcvbuf)) < 0) {
		rio_sock_close(s);
		return e;
	}
	*out = s;
	return 0;
err:
	e = -errno;
	if (s->fd >= 0)
		close(s->fd);
	free(s);
	return e;
}

void rio_sock_close(struct rio_sock *s)
{
	if (!s)
		return;
	if (s->fd >= 0)
		close(s->fd);
	if (s->us) {
		rdsu_sock_free(s->us, rdsu_clock());
		(void)rdsu_io_run(s->r->io, 0);
	}
	free(s);
}

uint16_t rio_sock_port(const struct rio_sock *s)
{
	return s->port;
}

unsigned rio_sock_transport(const struct rio_sock *s)
{
	int tr = -1;
	socklen_t len = sizeof(tr);

	if (s->us)
		return rdsu_sock_get_transport(s->us);
	if (getsockopt(s->fd, SOL_RDS, SO_RDS_TRANSPORT, &tr, &len) < 0)
		return RDSU_TRANS_NONE;
	return (unsigned)tr;
}

static int ksetbuf(int fd, int force, int plain, uint32_t v)
{
	int iv = (int)v;

	/* The kernel doubles the value and rds_sk_sndbuf halves it again. */
	if (setsockopt(fd, SOL_SOCKET, force, &iv, sizeof(iv)) == 0)
		return 0;
	if (setsockopt(fd, SOL_SOCKET, plain, &iv, sizeof(iv)) == 0)
		return 0;
	return -errno;
}

const char *rio_addr_port_str(const struct rdsu_addr *a, uint16_t port, char *buf, size_t cap)
{
	char s[64];

	rdsu_addr_str(a, s, sizeof(s));
	/* brackets, or an IPv6 address's last group reads as the port */
	snprintf(buf, cap, rdsu_addr_is_v4(a) ? "%s:%u" : "[%s]:%u", s, port);
	return buf;
}

int rio_set_bufs(struct rio_sock *s, uint32_t sndbuf, uint32_t rcvbuf)
{
	int e = 0;
	rdsu_ns now = rdsu_clock();

	if (s->fd >= 0) {
		if (sndbuf && (e = ksetbuf(s->fd, SO_SNDBUFFORCE, SO_SNDBUF, sndbuf)) < 0)
			return e;
		if (rcvbuf && (e = ksetbuf(s->fd, SO_RCVBUFFORCE, SO_RCVBUF, rcvbuf)) < 0)
			return e;
		return 0;
	}
	if (sndbuf && (e = rdsu_sock_set_sndbuf(s->us, sndbuf, now)) < 0)
		return e;
	if (rcvbuf && (e = rdsu_sock_set_rcvbuf(s->us, rcvbuf, now)) < 0)
		return e;
	(void)rdsu_io_run(s->r->io, 0);
	return 0;
}

uint32_t rio_max_msg(const struct rio_sock *s)
{
	int v = 0;
	socklen_t len = sizeof(v);

	if (s->fd < 0)
		return rdsu_sock_max_msg(s->us);
	/* SO_SNDBUF reads back doubled; rds_sk_sndbuf() is half of it */
	if (getsockopt(s->fd, SOL_SOCKET, SO_SNDBUF, &v, &len) < 0 || v < 0)
		return 0;
	v /= 2;
	return (uint32_t)v < WIRE_MAX_MSG_LEN ? (uint32_t)v : WIRE_MAX_MSG_LEN;
}

static int send_msg(struct rio_sock *s, const struct rdsu_addr *dst, uint16_t dport,
		    const void *buf, size_t len, bool more)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	if (s->fd >= 0) {
		struct sockaddr_storage ss;
		struct msghdr mh = { 0 };

		mh.msg_name = &ss;
		mh.msg_namelen = rdsu_sockaddr(dst, dport, &ss);
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		return sendmsg(s->fd, &mh, MSG_DONTWAIT) < 0 ? -errno : 0;
	}
	int r = rdsu_sock_submit(s->us, dst, dport, &iov, 1, rdsu_clock());

	if (r < 0)
		return r;
	/* Start writing now, as sendmsg would. */
	if (!more)
		(void)rdsu_io_run(s->r->io, 0);
	return 0;
}

int rio_send(struct rio_sock *s, const struct rdsu_addr *dst, uint16_t dport, const void *buf,
	     size_t len)
{
	return send_msg(s, dst, dport, buf, len, false);
}

int rio_send_more(struct rio_sock *s, const struct rdsu_addr *dst, uint16_t dport,
		  const void *buf, size_t len)
{
	return send_msg(s, dst, dport, buf, len, true);
}

int rio_flush(struct rio *r)
{
	return r->kernel ? 0 : rdsu_io_flush(r->io);
}

static uint64_t queued(struct rio *r, bool written_too)
{
	struct rdsu_conn_info ci;
	size_t pos = 0;
	uint64_t n = 0;

	if (r->kernel)
		return 0;
	while (rdsu_ep_conn_next(rdsu_io_ep(r->io), &pos, &ci) == 1)
		for (unsigned i = 0; i < WIRE_MAX_PATHS; i++)
			n += ci.path[i].send_q_msgs + (written_too ? ci.path[i].retrans_q_msgs : 0);
	return n;
}

uint64_t rio_backlog(struct rio *r)
{
	return queued(r, false);
}

uint64_t rio_unacked(struct rio *r)
{
	return queued(r, true);
}

static int recv_op_kernel(struct rio_sock *s, void *buf, size_t cap, struct rio_rx *rx);

/* The kernel's RDMA notifications rio_recv() met, kept (as many as
 * RIO_NOTES, the rest dropped) for rio_next_notify(). */
static void keep_notes(struct rio_sock *s, const struct rio_rx *rx)
{
	for (unsigned i = 0; i < rx->n_notes && s->note_n < RIO_NOTES; i++)
		s->notes[(s->note_head + s->note_n++) % RIO_NOTES] = rx->notes[i];
}

int rio_next_notify(struct rio_sock *s, struct rdsu_notify *n)
{
	if (s->fd < 0)
		return rdsu_sock_next_notify(s->us, n) == 1;
	if (!s->note_n)
		return 0;
	*n = s->notes[s->note_head];
	s->note_head = (s->note_head + 1) % RIO_NOTES;
	s->note_n--;
	return 1;
}


ssize_t rio_recv(struct rio_sock *s, void *buf, size_t cap, struct rdsu_addr *from,
		 uint16_t *sport, bool *trunc)
{
	struct iovec iov = { .iov_base = buf, .iov_len = cap };

	if (s->fd >= 0) {
		struct rio_rx rx;
		int e;

		/* RDMA notifications: kept for rio_next_notify() */
		do {
			memset(&rx, 0, sizeof(rx));
			e = recv_op_kernel(s, buf, cap, &rx);
			keep_notes(s, &rx);
		} while (e == 0);
		if (e < 0)
			return e;
		*from = rx.from;
		*sport = rx.sport;
		*trunc = rx.trunc;
		return (ssize_t)rx.len;
	}
	for (;;) {
		struct rdsu_rxinfo info;
		ssize_t n = rdsu_sock_read(s->us, &iov, 1, 0, &info, rdsu_clock());

		if (n < 0)
			return n;
		if (info.cong)
			continue;
		*from = info.from;
		*sport = info.sport;
		*trunc = info.trunc;
		return (ssize_t)info.len;
	}
}

static unsigned ready_librds(struct rio_sock *s, unsigned want)
{
	unsigned m = rdsu_sock_poll(s->us), got = 0;

	if ((want & RIO_POLLIN) && (m & RDSU_POLLIN))
		got |= RIO_POLLIN;
	if ((want & RIO_POLLOUT) && (m & RDSU_POLLOUT))
		got |= RIO_POLLOUT;
	return got;
}

static int ms_until(rdsu_ns deadline)
{
	rdsu_ns now = rdsu_clock();

	if (deadline == RDSU_NS_NEVER)
		return -1;
	if (deadline <= now)
		return 0;
	return (int)((deadline - now + RDSU_MSEC - 1) / RDSU_MSEC);
}

int rio_wait(struct rio *r, struct rio_sock *const *socks, const unsigned *want, unsigned *got,
	     size_t n, rdsu_ns deadline)
{
	if (r->kernel) {
		struct pollfd pf[64];
		int k;

		if (n > 64)
			return -EINVAL;
		for (size_t i = 0; i < n; i++) {
			pf[i].fd = socks[i]->fd;
			pf[i].events = (short)(((want[i] & RIO_POLLIN) ? POLLIN : 0) |
					       ((want[i] & RIO_POLLOUT) ? POLLOUT : 0));
			pf[i].revents = 0;
		}
		k = poll(pf, n, ms_until(deadline));
		if (k < 0)
			return -errno;
		for (size_t i = 0; i < n; i++)
			got[i] = ((pf[i].revents & POLLIN) ? RIO_POLLIN : 0) |
				 ((pf[i].revents & POLLOUT) ? RIO_POLLOUT : 0);
		return k;
	}
	for (;;) {
		int k = 0, e;

		for (size_t i = 0; i < n; i++) {
			got[i] = ready_librds(socks[i], want[i]);
			k += got[i] != 0;
		}
		if (k)
			return k;
		if (rdsu_clock() >= deadline)
			return 0;
		e = rdsu_io_run(r->io, ms_until(deadline));
		if (e < 0 && e != -EINTR)
			return e;
		if (e == -EINTR)
			return -EINTR;
	}
}

int rio_idle(struct rio *r, rdsu_ns ns)
{
	rdsu_ns end = rdsu_clock() + ns;

	if (r->kernel) {
		struct timespec ts = { .tv_sec = (time_t)(ns / RDSU_SEC),
				       .tv_nsec = (long)(ns % RDSU_SEC) };

		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
		return 0;
	}
	for (;;) {
		int e, ms = ms_until(end);

		e = rdsu_io_run(r->io, ms);
		if (e < 0 && e != -EINTR)
			return e;
		if (rdsu_clock() >= end)
			return 0;
	}
}

int rio_fault_option(const char *arg, uint32_t *faults)
{
	const struct rdsu_fault_info *fi;
	uint32_t f;

	if (!strcmp(arg, "list")) {
		struct out *t = out_new(stdout, OUT_TEXT, 0, 0);

		if (!t)
			return -1;
		for (unsigned i = 0; (fi = rdsu_fault_info(i)); i++)
			out_printf(t, "%-20s %s\n", fi->name, fi->text);
		out_free(t);
		return 1;
	}
	f = rdsu_fault_by_name(arg);
	if (!f)
		return -1;
	*faults |= f;
	return 0;
}

const char *rio_open_strerror(const struct rio_cfg *cfg, int e)
{
	bool ib = cfg->transport == RIO_TRANS_IB;

	if (cfg->kernel) {
		/* socket(AF_RDS) fails so when no RDS module is loaded (most
		 * distributions build it but load nothing by default). */
		if (e == -EAFNOSUPPORT)
			return ib ? "AF_RDS is not available: load the rds_rdma module (modprobe rds_rdma)"
				  : "AF_RDS is not available: load the rds_tcp module (modprobe rds_tcp)";
		if (e == -ENOPROTOOPT)
			return ib ? "the kernel has no RDS over IB: load the rds_rdma module (modprobe "
				    "rds_rdma)"
				  : "the kernel has no RDS over TCP: load the rds_tcp module (modprobe "
				    "rds_tcp)";
		return rdsu_strerror(e);
	}
	if (e == -EPROTONOSUPPORT && ib && !rio_have_ib)
		return "--transport ib: built without librds's IB transport (rdsu_ib needs "
		       "libibverbs-dev and librdmacm-dev when the toolkit is built)";
	if (ib && e == -ENODEV)
		return "no RDMA device (librds on IB needs an InfiniBand or RoCE device, e.g. "
		       "'rdma link add rxe0 type rxe netdev eth0', and the rdma_ucm module)";
	if (ib && e == -EADDRNOTAVAIL)
		return "the address is on no InfiniBand or RoCE device";
	/* the kernel's rds_tcp or rds_rdma holds the port of every address
	 * (rdma_cm says EADDRNOTAVAIL there; librds makes it EADDRINUSE) */
	if (e == -EADDRINUSE) {
		unsigned tr = ib ? RDSU_IO_IB : RDSU_IO_TCP;

		if (cfg->transport == RIO_TRANS_AUTO && all_rdma(&cfg->ep))
			tr |= RDSU_IO_IB;
		return rdsu_io_strerror(e, tr);
	}
	return rdsu_strerror(e);
}

/* ------------------------------------------------------------------------
 * RDMA (rio.h): struct rdsu_op as the kernel's cmsgs.
 */

/* |op| as one SOL_RDS cmsg into |cbuf| (|iov|: room for the local vector
 * of an RDMA). Return: the control length; -EINVAL (unknown kind). */
static int op_cmsg(const struct rdsu_op *op, char *cbuf, size_t cap, struct rds_iovec *iov)
{
	struct cmsghdr *h = (struct cmsghdr *)cbuf;
	union {
		struct rds_rdma_args rdma;
		struct rds_atomic_args atomic;
		struct rds_get_mr_args map;
		uint64_t cookie;
	} a;
	size_t len;
	int type;

	memset(&a, 0, sizeof(a));
	switch (op->kind) {
	case RDSU_OP_RDMA:
		for (int i = 0; i < op->nr_local; i++)
			iov[i] = (struct rds_iovec){ (uintptr_t)op->local[i].iov_base,
						     op->local[i].iov_len };
		a.rdma = (struct rds_rdma_args){
			.cookie = op->cookie,
			.remote_vec = { op->remote_addr, op->remote_len },
			.local_vec_addr = (uintptr_t)iov,
			.nr_local = (uint64_t)op->nr_local,
			.flags = op->flags,
			.user_token = op->user_token,
		};
		type = RDS_CMSG_RDMA_ARGS;
		len = sizeof(a.rdma);
		break;
	case RDSU_OP_FADD:
	case RDSU_OP_CSWP:
		a.atomic.cookie = op->cookie;
		a.atomic.local_addr = (uintptr_t)op->result;
		a.atomic.remote_addr = op->remote_addr;
		a.atomic.flags = op->flags;
		a.atomic.user_token = op->user_token;
		if (op->kind == RDSU_OP_FADD && op->masked) {
			a.atomic.m_fadd.add = op->add;
			a.atomic.m_fadd.nocarry_mask = op->nocarry_mask;
			type = RDS_CMSG_MASKED_ATOMIC_FADD;
		} else if (op->kind == RDSU_OP_FADD) {
			a.atomic.fadd.add = op->add;
			type = RDS_CMSG_ATOMIC_FADD;
		} else if (op->masked) {
			a.atomic.m_cswp.compare = op->compare;
			a.atomic.m_cswp.swap = op->swap;
			a.atomic.m_cswp.compare_mask = op->compare_mask;
			a.atomic.m_cswp.swap_mask = op->swap_mask;
			type = RDS_CMSG_MASKED_ATOMIC_CSWP;
		} else {
			a.atomic.cswp.compare = op->compare;
			a.atomic.cswp.swap = op->swap;
			type = RDS_CMSG_ATOMIC_CSWP;
		}
		len = sizeof(a.atomic);
		break;
	case RDSU_OP_MAP:
		a.map = (struct rds_get_mr_args){
			.vec = { (uintptr_t)op->map_addr, op->map_len },
			.cookie_addr = (uintptr_t)op->map_cookie,
			.flags = op->flags,
		};
		type = RDS_CMSG_RDMA_MAP;
		len = sizeof(a.map);
		break;
	case RDSU_OP_DEST:
		a.cookie = op->cookie;
		type = RDS_CMSG_RDMA_DEST;
		len = sizeof(a.cookie);
		break;
	default:
		return -EINVAL;
	}
	if (CMSG_SPACE(len) > cap)
		return -EINVAL;
	memset(cbuf, 0, CMSG_SPACE(len));
	h->cmsg_level = SOL_RDS;
	h->cmsg_type = type;
	h->cmsg_len = CMSG_LEN(len);
	memcpy(CMSG_DATA(h), &a, len);
	return (int)CMSG_SPACE(len);
}

int rio_send_op(struct rio_sock *s, const struct rdsu_addr *dst, uint16_t dport,
		const void *buf, size_t len, const struct rdsu_op *op)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	if (s->fd >= 0) {
		union { char b[256]; struct cmsghdr align; } c;
		struct rds_iovec local[16], *lv = local;
		struct sockaddr_storage ss;
		struct msghdr mh = { 0 };
		int n, e = 0;

		if (op->kind == RDSU_OP_RDMA && op->nr_local > 16) {
			if (op->nr_local > RDSU_RDMA_MAX_IOV)
				return -EMSGSIZE;
			if (!(lv = calloc((size_t)op->nr_local, sizeof(*lv))))
				return -ENOMEM;
		}
		n = op->kind == RDSU_OP_RDMA && op->nr_local < 0 ? -EINVAL
								 : op_cmsg(op, c.b, sizeof(c.b), lv);
		if (n >= 0) {
			mh.msg_name = &ss;
			mh.msg_namelen = rdsu_sockaddr(dst, dport, &ss);
			mh.msg_iov = &iov;
			mh.msg_iovlen = 1;
			mh.msg_control = c.b;
			mh.msg_controllen = (size_t)n;
			e = sendmsg(s->fd, &mh, MSG_DONTWAIT) < 0 ? -errno : 0;
		}
		if (lv != local)
			free(lv);
		return n < 0 ? n : e;
	}
	int r = rdsu_sock_submit_op(s->us, dst, dport, &iov, 1, op, rdsu_clock());

	if (r < 0)
		return r;
	(void)rdsu_io_run(s->r->io, 0);
	return 0;
}

int rio_free_mr(struct rio_sock *s, uint64_t cookie, unsigned flags)
{
	struct rds_free_mr_args f = { .cookie = cookie, .flags = flags };

	if (s->fd < 0)
		return rdsu_sock_free_mr(s->us, cookie, flags);
	return setsockopt(s->fd, SOL_RDS, RDS_FREE_MR, &f, sizeof(f)) < 0 ? -errno : 0;
}

/* The kernel's answer: notifications or one message, from the cmsgs. */
static int recv_op_kernel(struct rio_sock *s, void *buf, size_t cap, struct rio_rx *rx)
{
	struct iovec iov = { .iov_base = buf, .iov_len = cap };
	union {
		char b[CMSG_SPACE(sizeof(struct rds_rdma_notify)) * RIO_MAX_NOTES + 256];
		struct cmsghdr align;
	} c;
	struct sockaddr_storage ss;

	for (;;) {
		struct msghdr mh = { 0 };
		ssize_t n;

		mh.msg_name = &ss;
		mh.msg_namelen = sizeof(ss);
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = c.b;
		mh.msg_controllen = sizeof(c.b);
		n = recvmsg(s->fd, &mh, MSG_DONTWAIT | MSG_TRUNC);
		if (n < 0)
			return -errno;
		for (struct cmsghdr *h = CMSG_FIRSTHDR(&mh); h; h = CMSG_NXTHDR(&mh, h)) {
			if (h->cmsg_level != SOL_RDS)
				continue;
			if (h->cmsg_type == RDS_CMSG_RDMA_STATUS && rx->n_notes < RIO_MAX_NOTES &&
			    h->cmsg_len >= CMSG_LEN(sizeof(struct rds_rdma_notify))) {
				struct rds_rdma_notify nt;

				memcpy(&nt, CMSG_DATA(h), sizeof(nt));
				rx->notes[rx->n_notes++] =
					(struct rdsu_notify){ nt.user_token, nt.status };
			} else if (h->cmsg_type == RDS_CMSG_RDMA_DEST &&
				   h->cmsg_len >= CMSG_LEN(sizeof(uint64_t))) {
				memcpy(&rx->cookie, CMSG_DATA(h), sizeof(rx->cookie));
				rx->has_cookie = true;
			}
		}
		if (rx->n_notes)
			return 0;
		/* a congestion notification carries no address */
		if (mh.msg_namelen == 0 || rdsu_sockaddr_get(&ss, &rx->from, &rx->sport) < 0)
			continue;
		rx->len = (uint32_t)n;
		rx->trunc = (mh.msg_flags & MSG_TRUNC) != 0;
		return 1;
	}
}

int rio_recv_op(struct rio_sock *s, void *buf, size_t cap, struct rio_rx *rx)
{
	struct iovec iov = { .iov_base = buf, .iov_len = cap };

	memset(rx, 0, sizeof(*rx));
	if (s->fd >= 0)
		return recv_op_kernel(s, buf, cap, rx);
	while (rx->n_notes < RIO_MAX_NOTES && rdsu_sock_next_notify(s->us, &rx->notes[rx->n_notes]) == 1)
		rx->n_notes++;
	if (rx->n_notes)
		return 0;
	for (;;) {
		struct rdsu_rxinfo info;
		ssize_t n = rdsu_sock_read(s->us, &iov, 1, 0, &info, rdsu_clock());

		if (n < 0)
			return (int)n;
		if (info.cong)
			continue;
		rx->from = info.from;
		rx->sport = info.sport;
		rx->len = info.len;
		rx->trunc = info.trunc;
		rx->has_cookie = info.has_cookie;
		rx->cookie = info.cookie;
		return 1;
	}
}

const char *rio_rdma_status_name(int status)
{
	return status < 0 ? "?" : wire_tok_str(wire_rdma_status_toks, (uint32_t)status, "?");
}
