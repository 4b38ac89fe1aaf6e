// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * sock.c - the socket-like API with AF_RDS semantics, always non-blocking.
 * Ref: net/rds/af_rds.c (release, poll, setsockopt RDS_CANCEL_SENT_TO and
 * RDS_CONG_MONITOR), net/rds/bind.c rds_bind()/rds_add_bound() (port 1
 * refused, port 0 picks >= 2), net/rds/send.c rds_sendmsg() (order of
 * checks: size, SNDBUF, connect, congestion, queue), net/rds/recv.c
 * rds_recvmsg() (congestion notification first, MSG_TRUNC, MSG_PEEK).
 * Errors are negative errno values, as the system calls return them.
 * Buffer auto-tuning, which the kernel's RDS does not have (its SNDBUF and
 * RCVBUF stay at half of wmem_default and rmem_default), is here too:
 * sndbuf_tune() and rdsu_sock_rcvbuf_grow().
 */
#include "core.h"

#include <errno.h>
#include <string.h>

static unsigned bind_hash(int lidx, uint16_t port)
{
	return ((unsigned)lidx * 65537u + port * 2654435761u) % RDSU_HASH_BUCKETS;
}

struct rdsu_sock *rdsu_sock_find_bound(const struct rdsu_ep *ep, int lidx, uint16_t port)
{
	struct rdsu_sock *rs = ep->bind_hash[bind_hash(lidx, port)];

	for (; rs; rs = rs->rs_bind_next)
		if (rs->rs_lidx == lidx && rs->rs_port == port)
			return rs;
	return NULL;
}

/* ep->n_want_out counts the sockets waiting for SNDBUF room, which only
 * an acknowledgement brings: the transport asks (rdsu_ep_acks_wanted)
 * before spending a system call to learn about acknowledgements. */
static void want_out(struct rdsu_sock *rs, bool on)
{
	if (rs->rs_want_out == on)
		return;
	rs->rs_want_out = on;
	if (on)
		rs->rs_ep->n_want_out++;
	else
		rs->rs_ep->n_want_out--;
}

bool rdsu_ep_acks_wanted(const struct rdsu_ep *ep)
{
	return ep && ep->n_want_out > 0;
}

void rdsu_sock_ev(struct rdsu_sock *rs, unsigned mask)
{
	rs->rs_ev_mask |= mask;
	rdsu_ep_ev_queue(rs->rs_ep, &rs->rs_ev);
}

int rdsu_sock_new(struct rdsu_ep *ep, struct rdsu_sock **out)
{
	struct rdsu_sock *rs;

	if (!ep || !out)
		return -EINVAL;
	if (ep->n_socks == ep->cap_socks) {
		size_t cap = ep->cap_socks ? ep->cap_socks * 2 : 8;
		struct rdsu_sock **v = rdsu_mem_alloc(ep, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		if (ep->n_socks)
			memcpy(v, ep->socks, ep->n_socks * sizeof(*v));
		rdsu_mem_free(ep, ep->socks);
		ep->socks = v;
		ep->cap_socks = cap;
	}
	rs = rdsu_mem_zalloc(ep, sizeof(*rs));
	if (!rs)
		return -ENOMEM;
	rs->rs_ep = ep;
	rs->rs_ev.e_kind = RDSU_EVSRC_SOCK;
	rdsu_list_init(&rs->rs_ev.e_item);
	rdsu_list_init(&rs->rs_msgs);
	rdsu_list_init(&rs->rs_rx_q);
	rdsu_list_init(&rs->rs_mrs);
	rdsu_list_init(&rs->rs_notify_q);
	rs->rs_lidx = -1;
	rs->rs_trans = RDSU_TRANS_NONE;
	rs->rs_sndbuf = ep->cfg.sndbuf;
	rs->rs_rcvbuf = ep->cfg.rcvbuf;
	rs->rs_sndbuf_auto = ep->cfg.buf_max > ep->cfg.sndbuf;
	rs->rs_rcvbuf_auto = ep->cfg.buf_max > ep->cfg.rcvbuf;
	rs->rs_hash_initval = ep->cfg.hash_initval;
	rs->rs_cong_gen = ep->cong_gen;
	rs->rs_index = ep->n_socks;
	ep->socks[ep->n_socks++] = rs;
	*out = rs;
	return 0;
}

static void unbind(struct rdsu_sock *rs)
{
	struct rdsu_sock **pp;

	if (!rs->rs_bound)
		return;
	pp = &rs->rs_ep->bind_hash[bind_hash(rs->rs_lidx, rs->rs_port)];
	for (; *pp; pp = &(*pp)->rs_bind_next)
		if (*pp == rs) {
			*pp = rs->rs_bind_next;
			break;
		}
	rs->rs_bound = false;
}

void rdsu_sock_free(struct rdsu_sock *rs, rdsu_ns now)
{
	struct rdsu_ep *ep;
	struct rdsu_sock *last;

	(void)now;
	if (!rs)
		return;
	ep = rs->rs_ep;
	rdsu_send_drop_sock(rs, NULL, 0);
	rdsu_zc_sock_free(rs);
	rdsu_rdma_sock_free(rs);
	want_out(rs, false);
	while (!rdsu_list_empty(&rs->rs_rx_q)) {
		struct rdsu_rx *rx = rdsu_container_of(rs->rs_rx_q.next, struct rdsu_rx, r_item);

		rdsu_list_del_init(&rx->r_item);
		rs->rs_rcv_bytes -= rx->r_len;
		rdsu_stat_add(ep, RDSU_STAT_RECV_BYTES_FREED, rx->r_len);
		rdsu_buf_free(ep, rx, sizeof(*rx) + rx->r_len);
	}
	rdsu_cong_remove_sock(rs);
	unbind(rs);
	rdsu_ep_ev_cancel(&rs->rs_ev);
	last = ep->socks[--ep->n_socks];
	ep->socks[rs->rs_index] = last;
	last->rs_index = rs->rs_index;
	rdsu_mem_free(ep, rs);
}

int rdsu_sock_bind(struct rdsu_sock *rs, const struct rdsu_addr *addr, uint16_t port)
{
	struct rdsu_ep *ep = rs->rs_ep;
	unsigned h;
	int lidx;

	if (!addr || rs->rs_bound || port == WIRE_PROBE_PORT || rdsu_addr_is_any(addr))
		return -EINVAL;
	lidx = rdsu_ep_lidx(ep, addr);
	if (lidx < 0)
		return -EADDRNOTAVAIL;
	if (port == 0) {
		/* rds_add_bound: a random start, never 0 or 1. */
		uint32_t rover = 2 + (uint32_t)(rdsu_ep_rand(ep) % 65534);

		for (uint32_t i = 0; i < 65534; i++) {
			uint16_t p = (uint16_t)(2 + (rover - 2 + i) % 65534);

			if (!rdsu_sock_find_bound(ep, lidx, p)) {
				port = p;
				break;
			}
		}
		if (port == 0)
			return -EADDRINUSE;
	} else if (rdsu_sock_find_bound(ep, lidx, port)) {
		return -EADDRINUSE;
	}
	rs->rs_lidx = lidx;
	rs->rs_port = port;
	rs->rs_bound = true;
	/* rds_bind: a transport not forced is the address's
	 * (rds_trans_get_preferred: 127.0.0.0/8 and ::1 take the loopback
	 * transport, then an address on an RDMA device takes IB). No kernel
	 * has a loopback address on an RDMA device; a configuration that
	 * says so (tests running IB on 127.0.0.0/8) is taken at its word. */
	if (rs->rs_trans == RDSU_TRANS_NONE) {
		if (ep->cfg.rdma_laddrs & (1u << lidx))
			rs->rs_trans = RDSU_TRANS_IB;
		else if (rdsu_addr_is_loopback(addr))
			rs->rs_trans = RDSU_TRANS_LOOP;
		else
			rs->rs_trans = RDSU_TRANS_TCP;
	}
	h = bind_hash(lidx, port);
	rs->rs_bind_next = ep->bind_hash[h];
	ep->bind_hash[h] = rs;
	return 0;
}

int rdsu_sock_get_name(const struct rdsu_sock *rs, struct rdsu_addr *addr, uint16_t *port)
{
	if (!rs->rs_bound)
		return -ENOTCONN;
	if (addr)
		*addr = rs->rs_ep->cfg.laddrs[rs->rs_lidx];
	if (port)
		*port = rs->rs_port;
	return 0;
}

/*
 * The transport of |rs|'s connection to |dst|. __rds_conn_create: a
 * destination that is a local address makes the connection loopback, and
 * TCP hands it to the loopback transport (t_prefer_loopback). Local, for
 * an endpoint, is its own address set: the kernel owns all of 127.0.0.0/8
 * and ::1, but another librds endpoint (process, rdsd) may serve
 * 127.0.0.2 and is reached over TCP, as a host of its own. So a socket
 * bound to 127.0.0.1, whose transport reads RDSU_TRANS_LOOP, still
 * reaches another endpoint's address over its address's transport. The
 * kernel keeps IB on a loopback queue pair to its own addresses; we have
 * none, so IB takes the loopback transport too.
 */
static unsigned conn_trans(const struct rdsu_sock *rs, const struct rdsu_addr *dst)
{
	const struct rdsu_ep *ep = rs->rs_ep;

	if (rdsu_ep_lidx(ep, dst) >= 0)
		return RDSU_TRANS_LOOP;
	if (rs->rs_trans != RDSU_TRANS_LOOP)
		return rs->rs_trans;
	return ep->cfg.rdma_laddrs & (1u << rs->rs_lidx) ? RDSU_TRANS_IB : RDSU_TRANS_TCP;
}

int rdsu_sock_submit(struct rdsu_sock *rs, const struct rdsu_addr *dst, uint16_t dport,
		     const struct iovec *iov, int iovcnt, rdsu_ns now)
{
	return rdsu_sock_submit_internal(rs, dst, dport, iov, iovcnt, NULL, now);
}

/* rdsu_sock_submit() of a message that carries |op| (rdma.c), or none. */
int rdsu_sock_submit_internal(struct rdsu_sock *rs, const struct rdsu_addr *dst, uint16_t dport,
			      const struct iovec *iov, int iovcnt, struct rdsu_rop *op, rdsu_ns now)
{
	struct rdsu_ep *ep = rs->rs_ep;
	const struct rdsu_addr *laddr;
	struct rdsu_conn *c;
	struct rdsu_path *cp;
	uint64_t total = 0;
	int err;

	if (!dst || iovcnt < 0 || (iovcnt > 0 && !iov))
		return -EINVAL;
	for (int i = 0; i < iovcnt; i++) {
		if (iov[i].iov_len && !iov[i].iov_base)
			return -EINVAL;
		total += iov[i].iov_len;
		if (total > WIRE_MAX_MSG_LEN)
			return -EMSGSIZE;
	}
	if (!rs->rs_bound)
		return -ENOTCONN;
	laddr = &ep->cfg.laddrs[rs->rs_lidx];
	if (rdsu_addr_is_any(dst))
		return -EINVAL;
	if (rdsu_addr_is_v4(dst) != rdsu_addr_is_v4(laddr))
		return -EOPNOTSUPP;
	/* An auto-tuned SNDBUF is a size the socket grows into: a message
	 * is refused for what it could never get, not for the moment. */
	if (total > (rs->rs_sndbuf_auto ? ep->cfg.buf_max : rs->rs_sndbuf))
		return -EMSGSIZE;
	c = rdsu_conn_get(ep, rs->rs_lidx, dst, conn_trans(rs, dst), now);
	if (!c)
		return -ENOMEM;
	/* As rds_sendmsg: connecting starts before the congestion and
	 * buffer checks, so even a refused send brings the paths up. */
	cp = &c->c_path[rdsu_probe_pick_path(c, rs, dport, now)];
	if (ep->cfg.kver != WIRE_KVER_6 && c->c_path[0].cp_state != RDSU_PATH_UP) {
		rdsu_path_connect_if_down(&c->c_path[0], now);
		rdsu_probe_ping(c, now);
	}
	if (cp->cp_state != RDSU_PATH_UP)
		rdsu_conn_check_all_paths(c, now);

	err = rdsu_cong_check_send(c, rs, dport);
	if (err)
		return err;
	if (rs->rs_snd_bytes >= rs->rs_sndbuf) {
		rdsu_stat_inc(ep, RDSU_STAT_SEND_QUEUE_FULL);
		want_out(rs, true);
		rs->rs_tune_limited = true;
		return -EAGAIN;
	}
	err = rdsu_send_data(cp, rs, dport, now, iov, iovcnt, (uint32_t)total, op);
	if (err)
		return -ENOMEM;
	return (int)total;
}

/* A message of ours left the queues: give its bytes back to SNDBUF. */
void rdsu_sock_msg_release(struct rdsu_msg *rm)
{
	struct rdsu_sock *rs = rm->m_rs;

	if (!rs)
		return;
	rdsu_list_del_init(&rm->m_sock_item);
	rs->rs_snd_bytes -= rm->m_len;
	rdsu_zc_msg_left(rs, rm);
	rm->m_rs = NULL;
	if (rs->rs_want_out && rs->rs_snd_bytes < rs->rs_sndbuf) {
		want_out(rs, false);
		rdsu_sock_ev(rs, RDSU_POLLOUT);
	}
}

/*
 * SNDBUF auto-tuning. The window a stream needs is the path's
 * bandwidth-delay product, which a sender cannot see directly: a window
 * that is too small shows only as a delivery rate that grows with the
 * window. So the rate is measured once per window's worth of
 * acknowledged bytes (a round trip of the window), and while the sender
 * was held back by SNDBUF (EAGAIN) and the rate is a quarter or more above
 * the best rate of the window before, the window doubles, up to buf_max
 * (BBR's startup ends on the same test: the pipe is full once doubling
 * stops raising the rate by a quarter). A sender that never fills its
 * window, or whose rate no longer follows the window (a slow receiver, a
 * slow link: what is acknowledged does not come faster), keeps the window
 * it has. It never shrinks: its memory is the messages in flight, and
 * those are freed as they are acknowledged.
 *
 * The time a measurement covers is the longer of the time over which its
 * bytes were acknowledged and the time over which they were submitted,
 * as tcp_rate.c takes the longer of the ACK and send intervals: one
 * SIOCOUTQ frees at once what TCP acknowledged over a while, and would
 * otherwise read as a rate no link has.
 */
static void sndbuf_tune(struct rdsu_sock *rs, const struct rdsu_msg *rm, rdsu_ns now)
{
	uint32_t max = rs->rs_ep->cfg.buf_max;
	rdsu_ns dt;
	uint64_t rate;

	/* The first acknowledgement starts the clock; what is acknowledged
	 * in the instant a measurement starts belongs to the one before. */
	if (!rs->rs_tune_t0) {
		rs->rs_tune_t0 = now;
		rs->rs_tune_q0 = rm->m_queued;
	}
	if (now <= rs->rs_tune_t0)
		return;
	rs->rs_tune_bytes += rm->m_len;
	if (rs->rs_tune_bytes < rs->rs_sndbuf)
		return;
	dt = now - rs->rs_tune_t0;
	if (rm->m_queued > rs->rs_tune_q0 && rm->m_queued - rs->rs_tune_q0 > dt)
		dt = rm->m_queued - rs->rs_tune_q0;
	/* under 2^32 + 1 MiB bytes over a nanosecond or more: no overflow */
	rate = rs->rs_tune_bytes * RDSU_SEC / dt;
	if (rs->rs_tune_limited) {
		if (rate > rs->rs_tune_rate)
			rs->rs_tune_rate = rate;
		if (rs->rs_sndbuf < max && rate / 5 * 4 >= rs->rs_tune_prev) {
			rs->rs_sndbuf = rs->rs_sndbuf > max / 2 ? max : rs->rs_sndbuf * 2;
			rs->rs_tune_prev = rs->rs_tune_rate;
			rs->rs_tune_rate = 0;
		}
	}
	rs->rs_tune_t0 = now;
	rs->rs_tune_q0 = rm->m_queued;
	rs->rs_tune_bytes = 0;
	rs->rs_tune_limited = rs->rs_want_out;
}

/* A message of ours arrived: its bytes back to SNDBUF, and a sample of
 * the rate the window gives. */
void rdsu_sock_msg_acked(struct rdsu_msg *rm, rdsu_ns now)
{
	struct rdsu_sock *rs = rm->m_rs;

	if (rs && rs->rs_sndbuf_auto)
		sndbuf_tune(rs, rm, now);
	rdsu_sock_msg_release(rm);
}

/*
 * RCVBUF auto-tuning: the port is about to turn congested (its queue
 * holds more than RCVBUF). An application that emptied the queue since
 * RCVBUF last grew keeps up with what comes: what overflows is a burst
 * (the transport hands over up to RDSU_READ_BUDGET per round before the
 * application runs), and RCVBUF doubles to hold it, up to buf_max. One
 * that did not (it reads slower than the sender writes, or not at all)
 * gets the kernel's answer at the size RCVBUF has. Return: true if RCVBUF
 * now holds the queue.
 */
bool rdsu_sock_rcvbuf_grow(struct rdsu_sock *rs)
{
	uint32_t max = rs->rs_ep->cfg.buf_max;

	if (!rs->rs_rcvbuf_auto || !rs->rs_rcv_drained)
		return false;
	rs->rs_rcv_drained = false;
	while (rs->rs_rcvbuf < max && rs->rs_rcv_bytes > rs->rs_rcvbuf)
		rs->rs_rcvbuf = rs->rs_rcvbuf > max / 2 ? max : rs->rs_rcvbuf * 2;
	return rs->rs_rcv_bytes <= rs->rs_rcvbuf;
}

int rdsu_sock_deliver(struct rdsu_sock *rs, const struct rdsu_addr *faddr, uint16_t sport,
		      uint64_t seq, const uint8_t *data, uint32_t len)
{
	struct rdsu_rx *rx = rdsu_buf_alloc(rs->rs_ep, sizeof(*rx) + len);

	if (!rx)
		return RDSU_ERR_NOMEM;
	rdsu_list_init(&rx->r_item);
	rx->r_faddr = *faddr;
	rx->r_sport = sport;
	rx->r_seq = seq;
	rx->r_has_cookie = false;
	rx->r_cookie = 0;
	rx->r_hdr = rx->r_start = rx->r_queued = 0;
	rx->r_len = len;
	if (len)
		memcpy(rx->r_data, data, len);
	rdsu_list_add_tail(&rx->r_item, &rs->rs_rx_q);
	rs->rs_rx_count++;
	rdsu_sock_ev(rs, RDSU_POLLIN);
	rdsu_cong_rcvbuf_delta(rs, len);
	return 0;
}

/* The message rdsu_sock_deliver() queued last, or NULL. */
static struct rdsu_rx *last_rx(struct rdsu_sock *rs)
{
	if (rdsu_list_empty(&rs->rs_rx_q))
		return NULL;
	return rdsu_container_of(rs->rs_rx_q.prev, struct rdsu_rx, r_item);
}

void rdsu_sock_rx_cookie(struct rdsu_sock *rs, uint64_t cookie)
{
	struct rdsu_rx *rx = last_rx(rs);

	if (!rx)
		return;
	rx->r_has_cookie = true;
	rx->r_cookie = cookie;
}

void rdsu_sock_rx_stamp(struct rdsu_sock *rs, rdsu_ns hdr, rdsu_ns start, rdsu_ns queued)
{
	struct rdsu_rx *rx = last_rx(rs);

	if (!rx)
		return;
	rx->r_hdr = hdr;
	rx->r_start = start;
	rx->r_queued = queued;
}

int rdsu_sock_rx_times(const struct rdsu_sock *rs, struct rdsu_rx_times *out)
{
	const struct rdsu_rx *rx;

	if (!rs || !out || rdsu_list_empty(&rs->rs_rx_q))
		return 0;
	rx = rdsu_container_of(rs->rs_rx_q.next, struct rdsu_rx, r_item);
	out->hdr = rx->r_hdr;
	out->start = rx->r_start;
	out->queued = rx->r_queued;
	return 1;
}

ssize_t rdsu_sock_read(struct rdsu_sock *rs, const struct iovec *iov, int iovcnt,
		       unsigned flags, struct rdsu_rxinfo *info, rdsu_ns now)
{
	struct rdsu_rxinfo dummy;
	struct rdsu_rx *rx;
	size_t off = 0;

	(void)now;
	if (!info)
		info = &dummy;
	memset(info, 0, sizeof(*info));
	if (iovcnt < 0 || (iovcnt > 0 && !iov))
		return -EINVAL;
	if (!rs->rs_bound)
		return -ENOTCONN;
	if (rs->rs_cong_notify) {
		info->cong = true;
		info->cong_mask = rs->rs_cong_notify;
		if (!(flags & RDSU_READ_PEEK))
			rs->rs_cong_notify = 0;
		return 0;
	}
	if (rdsu_list_empty(&rs->rs_rx_q))
		return -EAGAIN;
	rx = rdsu_container_of(rs->rs_rx_q.next, struct rdsu_rx, r_item);
	for (int i = 0; i < iovcnt && off < rx->r_len; i++) {
		size_t n = iov[i].iov_len;

		if (n > rx->r_len - off)
			n = rx->r_len - off;
		if (n)
			memcpy(iov[i].iov_base, rx->r_data + off, n);
		off += n;
	}
	info->from = rx->r_faddr;
	info->sport = rx->r_sport;
	info->len = rx->r_len;
	info->trunc = off < rx->r_len;
	info->has_cookie = rx->r_has_cookie;
	info->cookie = rx->r_cookie;
	/* K7.6: rds_recvmsg counts each message it returns, peeked too */
	rdsu_stat_inc(rs->rs_ep, RDSU_STAT_RECV_DELIVERED);
	if (!(flags & RDSU_READ_PEEK)) {
		uint32_t len = rx->r_len;

		rdsu_list_del_init(&rx->r_item);
		rs->rs_rx_count--;
		rdsu_buf_free(rs->rs_ep, rx, sizeof(*rx) + len);
		rdsu_cong_rcvbuf_delta(rs, -(int64_t)len);
		if (rdsu_list_empty(&rs->rs_rx_q))
			rs->rs_rcv_drained = true;
	}
	return (ssize_t)off;
}

unsigned rdsu_sock_poll(struct rdsu_sock *rs)
{
	unsigned mask = 0;

	if (!rdsu_list_empty(&rs->rs_rx_q) || !rdsu_list_empty(&rs->rs_notify_q) || rs->rs_zc.n)
		mask |= RDSU_POLLIN;
	if (rs->rs_snd_bytes < rs->rs_sndbuf)
		mask |= RDSU_POLLOUT;
	if (rs->rs_cong_monitor) {
		if (rs->rs_cong_notify)
			mask |= RDSU_POLLIN;
	} else if (rs->rs_cong_gen != rs->rs_ep->cong_gen) {
		/* rds_poll: a map update since the last poll, reported once. */
		rs->rs_cong_gen = rs->rs_ep->cong_gen;
		mask |= RDSU_POLLIN | RDSU_POLLWRBAND;
	}
	return mask;
}

int rdsu_sock_set_sndbuf(struct rdsu_sock *rs, uint32_t bytes, rdsu_ns now)
{
	(void)now;
	if (!bytes)
		return -EINVAL;
	rs->rs_sndbuf = bytes;
	rs->rs_sndbuf_auto = false;
	if (rs->rs_want_out && rs->rs_snd_bytes < rs->rs_sndbuf) {
		want_out(rs, false);
		rdsu_sock_ev(rs, RDSU_POLLOUT);
	}
	return 0;
}

int rdsu_sock_set_rcvbuf(struct rdsu_sock *rs, uint32_t bytes, rdsu_ns now)
{
	(void)now;
	if (!bytes)
		return -EINVAL;
	rs->rs_rcvbuf = bytes;
	rs->rs_rcvbuf_auto = false;
	/* Re-judge the port against the new limit. */
	if (rs->rs_bound)
		rdsu_cong_rcvbuf_delta(rs, 0);
	return 0;
}

uint32_t rdsu_sock_get_sndbuf(const struct rdsu_sock *rs)
{
	return rs->rs_sndbuf;
}

uint32_t rdsu_sock_max_msg(const struct rdsu_sock *rs)
{
	uint32_t b = rs->rs_sndbuf_auto ? rs->rs_ep->cfg.buf_max : rs->rs_sndbuf;

	return b < WIRE_MAX_MSG_LEN ? b : WIRE_MAX_MSG_LEN;
}

uint32_t rdsu_sock_get_rcvbuf(const struct rdsu_sock *rs)
{
	return rs->rs_rcvbuf;
}

int rdsu_sock_set_transport(struct rdsu_sock *rs, unsigned trans)
{
	/* rds_set_transport: once, and only before bind. */
	if (rs->rs_bound || rs->rs_trans != RDSU_TRANS_NONE)
		return -EOPNOTSUPP;
	if (trans == RDSU_TRANS_IB + 1)
		return -ENOPROTOOPT; /* RDS_TRANS_GAP, the iWARP number */
	/* RDS_TRANS_LOOP is internal: rds_set_transport takes 0..2 only. */
	if (trans >= RDSU_TRANS_COUNT || !rdsu_tprops_get(trans))
		return -EINVAL;
	rs->rs_trans = trans;
	return 0;
}

unsigned rdsu_sock_get_transport(const struct rdsu_sock *rs)
{
	return rs->rs_trans;
}

int rdsu_sock_set_cong_monitor(struct rdsu_sock *rs, bool on)
{
	rs->rs_cong_monitor = on;
	if (!on) {
		rs->rs_cong_mask = 0;
		rs->rs_cong_notify = 0;
	}
	return 0;
}

int rdsu_sock_cancel_sent_to(struct rdsu_sock *rs, const struct rdsu_addr *dst, uint16_t dport,
			     rdsu_ns now)
{
	(void)now;
	if (!rs->rs_bound)
		return -ENOTCONN;
	if (!dst)
		return -EINVAL;
	return rdsu_send_drop_sock(rs, dst, dport);
}

void rdsu_sock_set_ctx(struct rdsu_sock *rs, void *ctx)
{
	rs->rs_ctx = ctx;
}

void *rdsu_sock_get_ctx(const struct rdsu_sock *rs)
{
	return rs->rs_ctx;
}

void rdsu_sock_info_fill(const struct rdsu_sock *rs, struct rdsu_sock_info *out)
{
	memset(out, 0, sizeof(*out));
	out->sock = (struct rdsu_sock *)rs;
	out->bound = rs->rs_bound;
	if (rs->rs_bound)
		out->laddr = rs->rs_ep->cfg.laddrs[rs->rs_lidx];
	out->port = rs->rs_port;
	out->sndbuf = rs->rs_sndbuf;
	out->rcvbuf = rs->rs_rcvbuf;
	out->snd_bytes = rs->rs_snd_bytes;
	out->rcv_bytes = rs->rs_rcv_bytes;
	out->rx_msgs = rs->rs_rx_count;
	out->congested = rs->rs_congested;
	out->cong_monitor = rs->rs_cong_monitor;
	out->cong_mask = rs->rs_cong_mask;
	out->cong_notify = rs->rs_cong_notify;
}
