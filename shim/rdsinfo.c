// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rdsinfo.c - RDS_INFO_* over a set of librds endpoints and sockets, in
 * the kernel's layouts (libwire's codec), for rdsd (rdsd_info.c) and the
 * per-process library (preload_sockopt.c) alike. Each list follows the
 * kernel's producer named beside it (docs/kernel-behaviour.md K7.6).
 */
#include "rdsinfo.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rds/rdsu_io.h>
#include <rds/rdsu_tcp.h>
#include <wire/wire.h>

struct info_out {
	const struct rdsinfo_src *src;
	uint8_t *buf;
	size_t cap;              /* what the caller's buffer takes */
	size_t count;
	size_t size;
	struct wire_info_item it; /* the next item; opt, kind and family are the list's */
};

static void info_put(struct info_out *o)
{
	if ((o->count + 1) * o->size <= o->cap)
		(void)wire_info_encode(&o->it, o->buf + o->count * o->size, o->size);
	o->count++;
}

static bool fam_ok(int family, const struct rdsu_addr *a)
{
	/* IPv4 lists hold IPv4 items (c_isv6, a v4-mapped rs_bound_addr);
	 * the RDS6 lists hold both */
	return family == 6 || rdsu_addr_is_v4(a);
}

/* rds_stats_info (stats.c): the core counters, then the transports'. */
static void info_counters(struct info_out *o)
{
	struct rdsu_stats sum = { { 0 } }, st;
	struct wire_info_counter *k = &o->it.u.counter;
	const struct rdsu_ep *ep;

	for (size_t n = 0; (ep = o->src->ep(o->src->ctx, n)) != NULL; n++) {
		rdsu_ep_get_stats(ep, &st);
		for (int i = 0; i < RDSU_STAT__COUNT; i++)
			sum.v[i] += st.v[i];
	}
	for (int i = 0; i < RDSU_STAT__COUNT; i++) {
		snprintf(k->name, sizeof(k->name), "%s", rdsu_stat_name((enum rdsu_stat)i));
		k->value = sum.v[i];
		info_put(o);
	}
}

/* |put| for every endpoint's connections to peers of the list's family. */
static void info_each_conn(struct info_out *o,
			   void (*put)(struct info_out *o, const struct rdsu_conn_info *ci))
{
	const struct rdsu_ep *ep;

	for (size_t n = 0; (ep = o->src->ep(o->src->ctx, n)) != NULL; n++) {
		struct rdsu_conn_info ci;
		size_t pos = 0;

		while (rdsu_ep_conn_next(ep, &pos, &ci) == 1)
			if (fam_ok(o->it.family, &ci.laddr))
				put(o, &ci);
	}
}

/* rds_conn_info_visitor (connection.c): path 0 of each connection. */
static void info_conn(struct info_out *o, const struct rdsu_conn_info *ci)
{
	struct wire_info_conn *c = &o->it.u.conn;
	const struct rdsu_path_info *p = &ci->path[0];

	memset(c, 0, sizeof(*c));
	c->next_tx_seq = p->next_tx_seq;
	c->next_rx_seq = p->next_rx_seq;
	memcpy(c->laddr, ci->laddr.a, 16);
	memcpy(c->faddr, ci->faddr.a, 16);
	/* t_name: "tcp", "loopback" (net/rds/loop.c), "infiniband" */
	snprintf(c->transport, sizeof(c->transport), "%s",
		 ci->transport == RDSU_TRANS_LOOP ? "loopback"
		 : ci->transport == RDSU_TRANS_IB ? "infiniband" : "tcp");
	if (p->state == RDSU_PATH_UP)
		c->flags |= WIRE_INFO_CONN_CONNECTED;
	else if (p->state == RDSU_PATH_CONNECTING)
		c->flags |= WIRE_INFO_CONN_CONNECTING;
	if (p->send_q_msgs)
		c->flags |= WIRE_INFO_CONN_SENDING;
	info_put(o);
}

static void info_conns(struct info_out *o)
{
	info_each_conn(o, info_conn);
}

/* rds_conn_message_info (connection.c) for the send and retransmit
 * queues; rds_sock_inc_info (af_rds.c) for the receive queues, where the
 * local side is the receiving socket. */
static void info_msgs(struct info_out *o)
{
	struct wire_info_msg *m = &o->it.u.msg;
	unsigned opt = o->it.opt;
	enum rdsu_msg_queue q;
	const struct rdsu_ep *ep;

	if (opt == WIRE_INFO_SEND_MESSAGES || opt == WIRE_INFO6_SEND_MESSAGES)
		q = RDSU_MSGQ_SEND;
	else if (opt == WIRE_INFO_RETRANS_MESSAGES || opt == WIRE_INFO6_RETRANS_MESSAGES)
		q = RDSU_MSGQ_RETRANS;
	else
		q = RDSU_MSGQ_RECV;
	for (size_t n = 0; (ep = o->src->ep(o->src->ctx, n)) != NULL; n++) {
		struct rdsu_msg_iter iter = { 0 };
		struct rdsu_msg_info mi;

		while (rdsu_ep_msg_next(ep, &iter, &mi) == 1) {
			if (mi.queue != q || !fam_ok(o->it.family, &mi.laddr))
				continue;
			memset(m, 0, sizeof(*m));
			m->seq = mi.seq;
			m->len = mi.len;
			memcpy(m->laddr, mi.laddr.a, 16);
			memcpy(m->faddr, mi.faddr.a, 16);
			m->lport = q == RDSU_MSGQ_RECV ? mi.dport : mi.sport;
			m->fport = q == RDSU_MSGQ_RECV ? mi.sport : mi.dport;
			info_put(o);
		}
	}
}

/* rds_sock_info, rds6_sock_info (af_rds.c): the IPv4 list holds the
 * sockets bound to an IPv4 address (an unbound one's :: is not
 * v4-mapped), the RDS6 list every socket. */
static void info_socks(struct info_out *o)
{
	struct wire_info_sock *k = &o->it.u.sock;
	int family = o->it.family;
	struct rdsinfo_sock s;

	for (size_t n = 0; o->src->sock(o->src->ctx, n, &s) == 1; n++) {
		if (family == 4 && (!s.bound || !rdsu_addr_is_v4(&s.baddr)))
			continue;
		memset(k, 0, sizeof(*k));
		k->sndbuf = s.sndbuf;
		k->rcvbuf = s.rcvbuf;
		if (s.bound) {
			memcpy(k->bound_addr, s.baddr.a, 16);
			k->bound_port = s.bport;
		}
		if (s.connected && fam_ok(family, &s.caddr)) {
			memcpy(k->connected_addr, s.caddr.a, 16);
			k->connected_port = s.cport;
		}
		k->inum = s.ino;
		info_put(o);
	}
}

/* rds_tcp_tc_info (tcp.c): one item for each path of a TCP connection
 * that is up on a socket. */
static void info_tcp_sock(struct info_out *o, const struct rdsu_conn_info *ci)
{
	struct wire_info_tcp_sock *t = &o->it.u.tcp_sock;

	if (ci->transport != RDSU_TRANS_TCP)
		return;
	for (int i = 0; i < WIRE_MAX_PATHS; i++) {
		const struct rdsu_path_info *p = &ci->path[i];

		if (!p->link || p->state != RDSU_PATH_UP)
			continue;
		memset(t, 0, sizeof(*t));
		memcpy(t->local_addr, ci->laddr.a, 16);
		memcpy(t->peer_addr, ci->faddr.a, 16);
		t->local_port = p->outgoing ? p->local_sport : RDSU_TCP_PORT;
		t->peer_port = p->outgoing ? RDSU_TCP_PORT : p->peer_sport;
		t->last_sent_nxt = (uint32_t)p->tx_bytes;
		t->last_expected_una = (uint32_t)p->tx_bytes;
		t->last_seen_una = (uint32_t)p->acked_bytes;
		info_put(o);
	}
}

static void info_tcp_socks(struct info_out *o)
{
	info_each_conn(o, info_tcp_sock);
}

/* rds_ib_ic_info (ib.c): each IB connection. librds knows the addresses;
 * the device's figures (GIDs, ring and MR sizes) are left 0, as the
 * kernel leaves them for a connection that is not up. */
static void info_rdma_conn(struct info_out *o, const struct rdsu_conn_info *ci)
{
	struct wire_info_rdma_conn *r = &o->it.u.rdma_conn;

	if (ci->transport != RDSU_TRANS_IB)
		return;
	memset(r, 0, sizeof(*r));
	memcpy(r->src_addr, ci->laddr.a, 16);
	memcpy(r->dst_addr, ci->faddr.a, 16);
	info_put(o);
}

static void info_rdma_conns(struct info_out *o)
{
	info_each_conn(o, info_rdma_conn);
}

int rdsinfo_get(const struct rdsinfo_src *src, unsigned opt, size_t buflen, uint8_t *buf,
		size_t cap, size_t *optlen, size_t *copy)
{
	static void (*const list[])(struct info_out *o) = {
		[WIRE_INFO_KIND_COUNTER] = info_counters,
		[WIRE_INFO_KIND_CONN] = info_conns,
		[WIRE_INFO_KIND_MSG] = info_msgs,
		[WIRE_INFO_KIND_SOCK] = info_socks,
		[WIRE_INFO_KIND_TCP_SOCK] = info_tcp_socks,
		[WIRE_INFO_KIND_RDMA_CONN] = info_rdma_conns,
	};
	struct info_out o = {
		.src = src,
		.buf = buf,
		.size = wire_info_item_size(opt),
		.it = { .opt = opt, .kind = wire_info_opt_kind(opt),
			.family = wire_info_opt_family(opt) },
	};
	size_t fit;
	int r;

	*copy = 0;
	/* the length checks come before the list is looked up */
	if (wire_info_answer(0, 1, buflen, optlen) == -EINVAL)
		return -EINVAL;
	/* without rds_rdma nothing is registered for the IB lists */
	if (!o.size || (o.it.kind == WIRE_INFO_KIND_RDMA_CONN && !src->ib) ||
	    o.it.kind >= sizeof(list) / sizeof(list[0]) || !list[o.it.kind])
		return -ENOPROTOOPT;
	o.cap = buflen < cap ? buflen : cap;
	list[o.it.kind](&o);
	r = wire_info_answer(o.count, o.size, buflen, optlen);
	fit = o.cap / o.size < o.count ? o.cap / o.size : o.count;
	/* rds_stats_info and rds_sock_info copy all their items or none;
	 * the others each item that fits (rds_for_each_conn_info) */
	if (r >= 0 || (o.it.kind != WIRE_INFO_KIND_COUNTER && o.it.kind != WIRE_INFO_KIND_SOCK))
		*copy = fit * o.size;
	return r;
}
