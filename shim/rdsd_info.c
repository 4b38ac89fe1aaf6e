// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rdsd_info.c - RDS_INFO_* (net/rds/info.c rds_info_getsockopt) over
 * rdsd's state, in the kernel's layouts (libwire's codec). The map of the
 * shim is shim/README.md.
 */
#include "rdsd.h"

/* ---- RDS_INFO_*: the kernel's layouts (libwire's codec) ---- */

struct info_out {
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
	/* IPv4 lists hold IPv4 items; the RDS6 lists hold both */
	return family == 6 || rdsu_addr_is_v4(a);
}

static void info_counters(struct info_out *o)
{
	struct rdsu_stats sum = { { 0 } }, st;
	struct wire_info_counter *k = &o->it.u.counter;

	for (struct ep *e = g_eps; e; e = e->next) {
		rdsu_ep_get_stats(rdsu_tcp_ep(e->t), &st);
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
	for (struct ep *e = g_eps; e; e = e->next) {
		struct rdsu_conn_info ci;
		size_t pos = 0;

		while (rdsu_ep_conn_next(rdsu_tcp_ep(e->t), &pos, &ci) == 1)
			if (fam_ok(o->it.family, &ci.faddr))
				put(o, &ci);
	}
}

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

static void info_msgs(struct info_out *o)
{
	struct wire_info_msg *m = &o->it.u.msg;
	unsigned opt = o->it.opt;
	enum rdsu_msg_queue q;

	/* Not the receive queues: messages already handed to a connection
	 * are the reader's; those still in librds are not listed. */
	if (opt == WIRE_INFO_SEND_MESSAGES || opt == WIRE_INFO6_SEND_MESSAGES)
		q = RDSU_MSGQ_SEND;
	else if (opt == WIRE_INFO_RETRANS_MESSAGES || opt == WIRE_INFO6_RETRANS_MESSAGES)
		q = RDSU_MSGQ_RETRANS;
	else
		return;
	for (struct ep *e = g_eps; e; e = e->next) {
		struct rdsu_msg_iter iter = { 0 };
		struct rdsu_msg_info mi;

		while (rdsu_ep_msg_next(rdsu_tcp_ep(e->t), &iter, &mi) == 1) {
			if (mi.queue != q || !fam_ok(o->it.family, &mi.faddr))
				continue;
			memset(m, 0, sizeof(*m));
			m->seq = mi.seq;
			m->len = mi.len;
			memcpy(m->laddr, mi.laddr.a, 16);
			memcpy(m->faddr, mi.faddr.a, 16);
			m->lport = mi.sport;
			m->fport = mi.dport;
			info_put(o);
		}
	}
}

static void info_socks(struct info_out *o)
{
	struct wire_info_sock *k = &o->it.u.sock;
	int family = o->it.family;

	for (struct dsock *s = g_socks; s; s = s->next) {
		if (s->bound && !fam_ok(family, &s->baddr))
			continue;
		memset(k, 0, sizeof(*k));
		k->sndbuf = s->sndbuf;
		k->rcvbuf = s->rcvbuf;
		if (s->bound) {
			memcpy(k->bound_addr, s->baddr.a, 16);
			k->bound_port = s->bport;
		}
		if (s->connected && fam_ok(family, &s->caddr)) {
			memcpy(k->connected_addr, s->caddr.a, 16);
			k->connected_port = s->cport;
		}
		k->inum = s->ino;
		info_put(o);
	}
}

/* One item for each of |ci|'s paths that is up on a socket. */
static void info_tcp_sock(struct info_out *o, const struct rdsu_conn_info *ci)
{
	struct wire_info_tcp_sock *t = &o->it.u.tcp_sock;

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

/* rds_info_getsockopt over our state. Return: as getsockopt's value. */
int do_info(unsigned opt, size_t buflen, uint8_t *buf, size_t cap, size_t *optlen)
{
	static void (*const list[])(struct info_out *o) = {
		[WIRE_INFO_KIND_COUNTER] = info_counters,
		[WIRE_INFO_KIND_CONN] = info_conns,
		[WIRE_INFO_KIND_MSG] = info_msgs,
		[WIRE_INFO_KIND_SOCK] = info_socks,
		[WIRE_INFO_KIND_TCP_SOCK] = info_tcp_socks,
	};
	struct info_out o = {
		.buf = buf,
		.size = wire_info_item_size(opt),
		.it = { .opt = opt, .kind = wire_info_opt_kind(opt),
			.family = wire_info_opt_family(opt) },
	};
	int r;

	/* this host has rds_tcp and no rds_rdma: nothing answers for IB */
	if (!o.size || o.it.kind >= sizeof(list) / sizeof(list[0]) || !list[o.it.kind])
		return -ENOPROTOOPT;
	o.cap = buflen < cap ? buflen : cap;
	list[o.it.kind](&o);
	r = wire_info_answer(o.count, o.size, buflen, optlen);
	return r;
}
