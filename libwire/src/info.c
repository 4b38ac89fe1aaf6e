// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * info.c - RDS_INFO getsockopt items, the getsockopt answer and the
 * counter names. Ref: uapi <linux/rds.h> struct rds_info_*, rds6_info_*;
 * net/rds/info.c rds_info_getsockopt(); net/rds/stats.c, tcp_stats.c,
 * ib_stats.c (counter names).
 *
 * The integers the uapi header does not declare __be are written by the
 * kernel in its own byte order; getsockopt hands them to a process on the
 * same host, so they are read and written host-endian here (wire_rd_he*).
 * Addresses and ports are __be.
 */
#include <wire/wire.h>

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "rd.h"
#include "wr.h"

_Static_assert(WIRE_INFO_NAME_LEN + 8 == WIRE_INFO_COUNTER_LEN,
	       "struct rds_info_counter is 40 bytes, packed");
_Static_assert(8 + 8 + 4 + 4 + WIRE_INFO_TRANS_LEN + 1 + 1 == WIRE_INFO_CONN_LEN,
	       "struct rds_info_connection is 42 bytes, packed");
_Static_assert(8 + 8 + 16 + 16 + WIRE_INFO_TRANS_LEN + 1 == WIRE_INFO6_CONN_LEN,
	       "struct rds6_info_connection is 65 bytes, packed (no tos)");
_Static_assert(8 + 4 + 4 + 4 + 2 + 2 + 1 + 1 == WIRE_INFO_MSG_LEN,
	       "struct rds_info_message is 26 bytes, packed");
_Static_assert(8 + 4 + 16 + 16 + 2 + 2 + 1 + 1 == WIRE_INFO6_MSG_LEN,
	       "struct rds6_info_message is 50 bytes, packed");
_Static_assert(4 + 4 + 4 + 2 + 2 + 4 + 8 == WIRE_INFO_SOCK_LEN,
	       "struct rds_info_socket is 28 bytes, packed");
_Static_assert(4 + 16 + 16 + 2 + 2 + 4 + 8 == WIRE_INFO6_SOCK_LEN,
	       "struct rds6_info_socket is 52 bytes, packed");
_Static_assert(4 + 2 + 4 + 2 + 8 + 8 + 4 + 4 + 4 + 1 == WIRE_INFO_TCP_SOCK_LEN,
	       "struct rds_info_tcp_socket is 41 bytes, packed");
_Static_assert(16 + 2 + 16 + 2 + 8 + 8 + 4 + 4 + 4 == WIRE_INFO6_TCP_SOCK_LEN,
	       "struct rds6_info_tcp_socket is 64 bytes, packed (no tos)");
_Static_assert(4 + 4 + 16 + 16 + 5 * 4 + 1 + 1 + 2 + 4 == WIRE_INFO_RDMA_CONN_LEN,
	       "struct rds_info_rdma_connection: 2 pad bytes align cache_allocs");
_Static_assert(16 + 16 + 16 + 16 + 5 * 4 + 1 + 1 + 2 + 4 == WIRE_INFO6_RDMA_CONN_LEN,
	       "struct rds6_info_rdma_connection: 2 pad bytes align cache_allocs");

struct info_opt {
	unsigned opt;
	enum wire_info_kind kind;
	int family;
	size_t size;
	const char *name;
};

/* Only what rds_info_register_func() registers: 10002, 10009 and 10010
 * have names in the uapi header and no producer. */
static const struct info_opt info_opts[] = {
	{ WIRE_INFO_COUNTERS, WIRE_INFO_KIND_COUNTER, 0, WIRE_INFO_COUNTER_LEN,
	  "RDS_INFO_COUNTERS" },
	{ WIRE_INFO_CONNECTIONS, WIRE_INFO_KIND_CONN, 4, WIRE_INFO_CONN_LEN,
	  "RDS_INFO_CONNECTIONS" },
	{ WIRE_INFO_SEND_MESSAGES, WIRE_INFO_KIND_MSG, 4, WIRE_INFO_MSG_LEN,
	  "RDS_INFO_SEND_MESSAGES" },
	{ WIRE_INFO_RETRANS_MESSAGES, WIRE_INFO_KIND_MSG, 4, WIRE_INFO_MSG_LEN,
	  "RDS_INFO_RETRANS_MESSAGES" },
	{ WIRE_INFO_RECV_MESSAGES, WIRE_INFO_KIND_MSG, 4, WIRE_INFO_MSG_LEN,
	  "RDS_INFO_RECV_MESSAGES" },
	{ WIRE_INFO_SOCKETS, WIRE_INFO_KIND_SOCK, 4, WIRE_INFO_SOCK_LEN,
	  "RDS_INFO_SOCKETS" },
	{ WIRE_INFO_TCP_SOCKETS, WIRE_INFO_KIND_TCP_SOCK, 4, WIRE_INFO_TCP_SOCK_LEN,
	  "RDS_INFO_TCP_SOCKETS" },
	{ WIRE_INFO_IB_CONNECTIONS, WIRE_INFO_KIND_RDMA_CONN, 4, WIRE_INFO_RDMA_CONN_LEN,
	  "RDS_INFO_IB_CONNECTIONS" },
	{ WIRE_INFO6_CONNECTIONS, WIRE_INFO_KIND_CONN, 6, WIRE_INFO6_CONN_LEN,
	  "RDS6_INFO_CONNECTIONS" },
	{ WIRE_INFO6_SEND_MESSAGES, WIRE_INFO_KIND_MSG, 6, WIRE_INFO6_MSG_LEN,
	  "RDS6_INFO_SEND_MESSAGES" },
	{ WIRE_INFO6_RETRANS_MESSAGES, WIRE_INFO_KIND_MSG, 6, WIRE_INFO6_MSG_LEN,
	  "RDS6_INFO_RETRANS_MESSAGES" },
	{ WIRE_INFO6_RECV_MESSAGES, WIRE_INFO_KIND_MSG, 6, WIRE_INFO6_MSG_LEN,
	  "RDS6_INFO_RECV_MESSAGES" },
	{ WIRE_INFO6_SOCKETS, WIRE_INFO_KIND_SOCK, 6, WIRE_INFO6_SOCK_LEN,
	  "RDS6_INFO_SOCKETS" },
	{ WIRE_INFO6_TCP_SOCKETS, WIRE_INFO_KIND_TCP_SOCK, 6, WIRE_INFO6_TCP_SOCK_LEN,
	  "RDS6_INFO_TCP_SOCKETS" },
	{ WIRE_INFO6_IB_CONNECTIONS, WIRE_INFO_KIND_RDMA_CONN, 6, WIRE_INFO6_RDMA_CONN_LEN,
	  "RDS6_INFO_IB_CONNECTIONS" },
};

static const struct info_opt *info_opt(unsigned opt)
{
	for (size_t i = 0; i < sizeof(info_opts) / sizeof(info_opts[0]); i++)
		if (info_opts[i].opt == opt)
			return &info_opts[i];
	return NULL;
}

size_t wire_info_item_size(unsigned opt)
{
	const struct info_opt *o = info_opt(opt);

	return o ? o->size : 0;
}

enum wire_info_kind wire_info_opt_kind(unsigned opt)
{
	const struct info_opt *o = info_opt(opt);

	return o ? o->kind : WIRE_INFO_KIND_NONE;
}

int wire_info_opt_family(unsigned opt)
{
	const struct info_opt *o = info_opt(opt);

	return o ? o->family : 0;
}

const char *wire_info_opt_name(unsigned opt)
{
	const struct info_opt *o = info_opt(opt);

	return o ? o->name : NULL;
}

/* The size of |kind| in |family|'s layout; 0 for a family it lacks. */
static size_t kind_size(enum wire_info_kind kind, int family)
{
	for (size_t i = 0; i < sizeof(info_opts) / sizeof(info_opts[0]); i++)
		if (info_opts[i].kind == kind && info_opts[i].family == family)
			return info_opts[i].size;
	return 0;
}

/* ::ffff:0:0/96, the prefix of an IPv4 address in the 16-byte form. */
static const uint8_t v4_mapped[12] = { [10] = 0xff, [11] = 0xff };

static void rd_addr(struct wire_rd *rd, int family, uint8_t out[16])
{
	if (family == 6) {
		wire_rd_copy(rd, out, 16);
		return;
	}
	memcpy(out, v4_mapped, sizeof(v4_mapped));
	wire_rd_copy(rd, out + 12, 4);
}

/*
 * An unconnected socket has no peer: the IPv6 lists say ::, the IPv4
 * ones 0.0.0.0, so both zero forms fit the IPv4 layout.
 */
static bool addr_fits(int family, const uint8_t a[16])
{
	static const uint8_t zero[12];

	if (family == 6)
		return true;
	return !memcmp(a, v4_mapped, 12) || !memcmp(a, zero, 12);
}

static void wr_addr(struct wire_wr *wr, int family, const uint8_t a[16])
{
	if (family == 6)
		wire_wr_bytes(wr, a, 16);
	else
		wire_wr_bytes(wr, a + 12, 4);
}

static void rd_text(struct wire_rd *rd, char *out, size_t n)
{
	wire_rd_copy(rd, out, n);
	out[n] = '\0';
}

/*
 * Common entry checks. Return: the item size, or a WIRE_ERR_* code.
 * |len| is the input length for a decoder and the capacity for an encoder.
 */
static ssize_t check_args(const void *obj, enum wire_info_kind kind, int family,
			  const uint8_t *buf, size_t len, bool encode)
{
	size_t need;

	if (!obj || (!buf && len))
		return WIRE_ERR_INVAL;
	need = kind_size(kind, family);
	if (!need)
		return WIRE_ERR_INVAL;
	if (len < need)
		return encode ? WIRE_ERR_NOSPACE : WIRE_ERR_TRUNC;
	return (ssize_t)need;
}

/* A layout bug, not bad input: every decoder reads exactly |need| bytes. */
static ssize_t rd_done(const struct wire_rd *rd, ssize_t need)
{
	return wire_rd_ok(rd) && !wire_rd_left(rd) ? need : WIRE_ERR_MALFORMED;
}

static ssize_t wr_done(const struct wire_wr *wr, ssize_t need)
{
	return wire_wr_ok(wr) && wr->done == (size_t)need ? need : WIRE_ERR_NOSPACE;
}

/*
 * rds_info_counter, 40 bytes:
 *
 *  0                                32              40
 *  +--------------------------------+---------------+
 *  | name (NUL-terminated ASCII)    | value (host)  |
 *  +--------------------------------+---------------+
 */
ssize_t wire_info_decode_counter(struct wire_info_counter *c, const uint8_t *buf,
				 size_t len)
{
	ssize_t need = check_args(c, WIRE_INFO_KIND_COUNTER, 0, buf, len, false);
	struct wire_rd rd;

	if (need < 0)
		return need;
	memset(c, 0, sizeof(*c));
	wire_rd_init(&rd, buf, (size_t)need);
	rd_text(&rd, c->name, WIRE_INFO_NAME_LEN);
	c->value = wire_rd_he64(&rd);
	return rd_done(&rd, need);
}

ssize_t wire_info_encode_counter(const struct wire_info_counter *c, uint8_t *buf,
				 size_t cap)
{
	ssize_t need = check_args(c, WIRE_INFO_KIND_COUNTER, 0, buf, cap, true);
	struct wire_wr wr;

	if (need < 0)
		return need;
	wire_wr_init(&wr, buf, (size_t)need);
	wire_wr_bytes(&wr, c->name, WIRE_INFO_NAME_LEN);
	wire_wr_he64(&wr, c->value);
	return wr_done(&wr, need);
}

/*
 * rds_info_connection, 42 bytes (rds6_info_connection, 65: addresses of 16
 * bytes at 16 and 32, transport at 48, flags at 64, no tos):
 *
 *  0            8            16    20    24                40 41 42
 *  +------------+------------+-----+-----+-----------------+--+--+
 *  | next_tx_seq| next_rx_seq|laddr|faddr| transport[16]   |fl|to|
 *  +------------+------------+-----+-----+-----------------+--+--+
 *    host         host         be    be
 */
ssize_t wire_info_decode_conn(struct wire_info_conn *c, int family,
			      const uint8_t *buf, size_t len)
{
	ssize_t need = check_args(c, WIRE_INFO_KIND_CONN, family, buf, len, false);
	struct wire_rd rd;

	if (need < 0)
		return need;
	memset(c, 0, sizeof(*c));
	wire_rd_init(&rd, buf, (size_t)need);
	c->next_tx_seq = wire_rd_he64(&rd);
	c->next_rx_seq = wire_rd_he64(&rd);
	rd_addr(&rd, family, c->laddr);
	rd_addr(&rd, family, c->faddr);
	rd_text(&rd, c->transport, WIRE_INFO_TRANS_LEN);
	c->flags = wire_rd_u8(&rd);
	if (family == 4)
		c->tos = wire_rd_u8(&rd);
	return rd_done(&rd, need);
}

ssize_t wire_info_encode_conn(const struct wire_info_conn *c, int family,
			      uint8_t *buf, size_t cap)
{
	ssize_t need = check_args(c, WIRE_INFO_KIND_CONN, family, buf, cap, true);
	struct wire_wr wr;

	if (need < 0)
		return need;
	if (!addr_fits(family, c->laddr) || !addr_fits(family, c->faddr))
		return WIRE_ERR_INVAL;
	wire_wr_init(&wr, buf, (size_t)need);
	wire_wr_he64(&wr, c->next_tx_seq);
	wire_wr_he64(&wr, c->next_rx_seq);
	wr_addr(&wr, family, c->laddr);
	wr_addr(&wr, family, c->faddr);
	wire_wr_bytes(&wr, c->transport, WIRE_INFO_TRANS_LEN);
	wire_wr_u8(&wr, c->flags);
	if (family == 4)
		wire_wr_u8(&wr, c->tos);
	return wr_done(&wr, need);
}

/*
 * rds_info_message, 26 bytes (rds6_info_message, 50: addresses at 12 and
 * 28, ports at 44 and 46, flags 48, tos 49):
 *
 *  0            8     12    16    20  22  24 25 26
 *  +------------+-----+-----+-----+---+---+--+--+
 *  |    seq     | len |laddr|faddr|lpt|fpt|fl|to|
 *  +------------+-----+-----+-----+---+---+--+--+
 *    host        host   be    be   be  be
 */
ssize_t wire_info_decode_msg(struct wire_info_msg *m, int family, const uint8_t *buf,
			     size_t len)
{
	ssize_t need = check_args(m, WIRE_INFO_KIND_MSG, family, buf, len, false);
	struct wire_rd rd;

	if (need < 0)
		return need;
	memset(m, 0, sizeof(*m));
	wire_rd_init(&rd, buf, (size_t)need);
	m->seq = wire_rd_he64(&rd);
	m->len = wire_rd_he32(&rd);
	rd_addr(&rd, family, m->laddr);
	rd_addr(&rd, family, m->faddr);
	m->lport = wire_rd_be16(&rd);
	m->fport = wire_rd_be16(&rd);
	m->flags = wire_rd_u8(&rd);
	m->tos = wire_rd_u8(&rd);
	return rd_done(&rd, need);
}

ssize_t wire_info_encode_msg(const struct wire_info_msg *m, int family, uint8_t *buf,
			     size_t cap)
{
	ssize_t need = check_args(m, WIRE_INFO_KIND_MSG, family, buf, cap, true);
	struct wire_wr wr;

	if (need < 0)
		return need;
	if (!addr_fits(family, m->laddr) || !addr_fits(family, m->faddr))
		return WIRE_ERR_INVAL;
	wire_wr_init(&wr, buf, (size_t)need);
	wire_wr_he64(&wr, m->seq);
	wire_wr_he32(&wr, m->len);
	wr_addr(&wr, family, m->laddr);
	wr_addr(&wr, family, m->faddr);
	wire_wr_be16(&wr, m->lport);
	wire_wr_be16(&wr, m->fport);
	wire_wr_u8(&wr, m->flags);
	wire_wr_u8(&wr, m->tos);
	return wr_done(&wr, need);
}

/*
 * rds_info_socket, 28 bytes (rds6_info_socket, 52: addresses at 4 and
 * 20, ports at 36 and 38, rcvbuf 40, inum 44):
 *
 *  0      4     8     12  14  16     20           28
 *  +------+-----+-----+---+---+------+------------+
 *  |sndbuf|bound|conn |bpt|cpt|rcvbuf|    inum    |
 *  +------+-----+-----+---+---+------+------------+
 *    host   be    be   be  be   host     host
 */
ssize_t wire_info_decode_sock(struct wire_info_sock *s, int family,
			      const uint8_t *buf, size_t len)
{
	ssize_t need = check_args(s, WIRE_INFO_KIND_SOCK, family, buf, len, false);
	struct wire_rd rd;

	if (need < 0)
		return need;
	memset(s, 0, sizeof(*s));
	wire_rd_init(&rd, buf, (size_t)need);
	s->sndbuf = wire_rd_he32(&rd);
	rd_addr(&rd, family, s->bound_addr);
	rd_addr(&rd, family, s->connected_addr);
	s->bound_port = wire_rd_be16(&rd);
	s->connected_port = wire_rd_be16(&rd);
	s->rcvbuf = wire_rd_he32(&rd);
	s->inum = wire_rd_he64(&rd);
	return rd_done(&rd, need);
}

ssize_t wire_info_encode_sock(const struct wire_info_sock *s, int family,
			      uint8_t *buf, size_t cap)
{
	ssize_t need = check_args(s, WIRE_INFO_KIND_SOCK, family, buf, cap, true);
	struct wire_wr wr;

	if (need < 0)
		return need;
	if (!addr_fits(family, s->bound_addr) || !addr_fits(family, s->connected_addr))
		return WIRE_ERR_INVAL;
	wire_wr_init(&wr, buf, (size_t)need);
	wire_wr_he32(&wr, s->sndbuf);
	wr_addr(&wr, family, s->bound_addr);
	wr_addr(&wr, family, s->connected_addr);
	wire_wr_be16(&wr, s->bound_port);
	wire_wr_be16(&wr, s->connected_port);
	wire_wr_he32(&wr, s->rcvbuf);
	wire_wr_he64(&wr, s->inum);
	return wr_done(&wr, need);
}

/*
 * rds_info_tcp_socket, 41 bytes (rds6_info_tcp_socket, 64: local 0, port
 * 16, peer 18, port 34, then the same tail from 36 without tos):
 *
 *  0     4   6     10  12        20        28   32   36   40 41
 *  +-----+---+-----+---+---------+---------+----+----+----+--+
 *  |local|lpt|peer |ppt| hdr_rem |data_rem |snxt|xuna|suna|to|
 *  +-----+---+-----+---+---------+---------+----+----+----+--+
 *    be   be   be   be    host      host    host host host
 */
ssize_t wire_info_decode_tcp_sock(struct wire_info_tcp_sock *t, int family,
				  const uint8_t *buf, size_t len)
{
	ssize_t need = check_args(t, WIRE_INFO_KIND_TCP_SOCK, family, buf, len, false);
	struct wire_rd rd;

	if (need < 0)
		return need;
	memset(t, 0, sizeof(*t));
	wire_rd_init(&rd, buf, (size_t)need);
	rd_addr(&rd, family, t->local_addr);
	t->local_port = wire_rd_be16(&rd);
	rd_addr(&rd, family, t->peer_addr);
	t->peer_port = wire_rd_be16(&rd);
	t->hdr_rem = wire_rd_he64(&rd);
	t->data_rem = wire_rd_he64(&rd);
	t->last_sent_nxt = wire_rd_he32(&rd);
	t->last_expected_una = wire_rd_he32(&rd);
	t->last_seen_una = wire_rd_he32(&rd);
	if (family == 4)
		t->tos = wire_rd_u8(&rd);
	return rd_done(&rd, need);
}

ssize_t wire_info_encode_tcp_sock(const struct wire_info_tcp_sock *t, int family,
				  uint8_t *buf, size_t cap)
{
	ssize_t need = check_args(t, WIRE_INFO_KIND_TCP_SOCK, family, buf, cap, true);
	struct wire_wr wr;

	if (need < 0)
		return need;
	if (!addr_fits(family, t->local_addr) || !addr_fits(family, t->peer_addr))
		return WIRE_ERR_INVAL;
	wire_wr_init(&wr, buf, (size_t)need);
	wr_addr(&wr, family, t->local_addr);
	wire_wr_be16(&wr, t->local_port);
	wr_addr(&wr, family, t->peer_addr);
	wire_wr_be16(&wr, t->peer_port);
	wire_wr_he64(&wr, t->hdr_rem);
	wire_wr_he64(&wr, t->data_rem);
	wire_wr_he32(&wr, t->last_sent_nxt);
	wire_wr_he32(&wr, t->last_expected_una);
	wire_wr_he32(&wr, t->last_seen_una);
	if (family == 4)
		wire_wr_u8(&wr, t->tos);
	return wr_done(&wr, need);
}

/*
 * rds_info_rdma_connection, 68 bytes, not packed (rds6: addresses of 16
 * bytes, so everything from the gids on moves by 24: gids 32/48, ...,
 * tos 84, sl 85, cache_allocs 88, 92 in all):
 *
 *  0   4   8        24       40  44  48  52  56  60 61 62  64   68
 *  +---+---+--------+--------+---+---+---+---+---+--+--+---+----+
 *  |src|dst|src_gid |dst_gid |sWR|rWR|sge|mrx|mrs|to|sl|pad|ca  |
 *  +---+---+--------+--------+---+---+---+---+---+--+--+---+----+
 *   be  be                     host ....................     host
 */
ssize_t wire_info_decode_rdma_conn(struct wire_info_rdma_conn *r, int family,
				   const uint8_t *buf, size_t len)
{
	ssize_t need = check_args(r, WIRE_INFO_KIND_RDMA_CONN, family, buf, len, false);
	struct wire_rd rd;

	if (need < 0)
		return need;
	memset(r, 0, sizeof(*r));
	wire_rd_init(&rd, buf, (size_t)need);
	rd_addr(&rd, family, r->src_addr);
	rd_addr(&rd, family, r->dst_addr);
	wire_rd_copy(&rd, r->src_gid, WIRE_INFO_GID_LEN);
	wire_rd_copy(&rd, r->dst_gid, WIRE_INFO_GID_LEN);
	r->max_send_wr = wire_rd_he32(&rd);
	r->max_recv_wr = wire_rd_he32(&rd);
	r->max_send_sge = wire_rd_he32(&rd);
	r->rdma_mr_max = wire_rd_he32(&rd);
	r->rdma_mr_size = wire_rd_he32(&rd);
	r->tos = wire_rd_u8(&rd);
	r->sl = wire_rd_u8(&rd);
	wire_rd_copy(&rd, r->pad, sizeof(r->pad));
	r->cache_allocs = wire_rd_he32(&rd);
	return rd_done(&rd, need);
}

ssize_t wire_info_encode_rdma_conn(const struct wire_info_rdma_conn *r, int family,
				   uint8_t *buf, size_t cap)
{
	ssize_t need = check_args(r, WIRE_INFO_KIND_RDMA_CONN, family, buf, cap, true);
	struct wire_wr wr;

	if (need < 0)
		return need;
	if (!addr_fits(family, r->src_addr) || !addr_fits(family, r->dst_addr))
		return WIRE_ERR_INVAL;
	wire_wr_init(&wr, buf, (size_t)need);
	wr_addr(&wr, family, r->src_addr);
	wr_addr(&wr, family, r->dst_addr);
	wire_wr_bytes(&wr, r->src_gid, WIRE_INFO_GID_LEN);
	wire_wr_bytes(&wr, r->dst_gid, WIRE_INFO_GID_LEN);
	wire_wr_he32(&wr, r->max_send_wr);
	wire_wr_he32(&wr, r->max_recv_wr);
	wire_wr_he32(&wr, r->max_send_sge);
	wire_wr_he32(&wr, r->rdma_mr_max);
	wire_wr_he32(&wr, r->rdma_mr_size);
	wire_wr_u8(&wr, r->tos);
	wire_wr_u8(&wr, r->sl);
	wire_wr_bytes(&wr, r->pad, sizeof(r->pad));
	wire_wr_he32(&wr, r->cache_allocs);
	return wr_done(&wr, need);
}

/* What the entry points that take an option number check first: |out|
 * (|size| bytes, cleared) and the bytes; *o the option's description.
 * Return: 0; WIRE_ERR_INVAL; WIRE_ERR_UNSUPP. */
static int opt_args(void *out, size_t size, unsigned opt, const uint8_t *buf, size_t len,
		    const struct info_opt **o)
{
	if (!out || (!buf && len))
		return WIRE_ERR_INVAL;
	memset(out, 0, size);
	*o = info_opt(opt);
	return *o ? 0 : WIRE_ERR_UNSUPP;
}

ssize_t wire_info_decode(struct wire_info_item *it, unsigned opt, const uint8_t *buf,
			 size_t len)
{
	const struct info_opt *o;
	int rc = opt_args(it, sizeof(*it), opt, buf, len, &o);

	if (rc)
		return rc;
	it->opt = opt;
	it->kind = o->kind;
	it->family = o->family;
	switch (o->kind) {
	case WIRE_INFO_KIND_COUNTER:
		return wire_info_decode_counter(&it->u.counter, buf, len);
	case WIRE_INFO_KIND_CONN:
		return wire_info_decode_conn(&it->u.conn, o->family, buf, len);
	case WIRE_INFO_KIND_MSG:
		return wire_info_decode_msg(&it->u.msg, o->family, buf, len);
	case WIRE_INFO_KIND_SOCK:
		return wire_info_decode_sock(&it->u.sock, o->family, buf, len);
	case WIRE_INFO_KIND_TCP_SOCK:
		return wire_info_decode_tcp_sock(&it->u.tcp_sock, o->family, buf, len);
	case WIRE_INFO_KIND_RDMA_CONN:
		return wire_info_decode_rdma_conn(&it->u.rdma_conn, o->family, buf, len);
	case WIRE_INFO_KIND_NONE:
		break;
	}
	return WIRE_ERR_UNSUPP;
}

ssize_t wire_info_encode(const struct wire_info_item *it, uint8_t *buf, size_t cap)
{
	const struct info_opt *o;

	if (!it || (!buf && cap))
		return WIRE_ERR_INVAL;
	o = info_opt(it->opt);
	if (!o)
		return WIRE_ERR_UNSUPP;
	switch (o->kind) {
	case WIRE_INFO_KIND_COUNTER:
		return wire_info_encode_counter(&it->u.counter, buf, cap);
	case WIRE_INFO_KIND_CONN:
		return wire_info_encode_conn(&it->u.conn, o->family, buf, cap);
	case WIRE_INFO_KIND_MSG:
		return wire_info_encode_msg(&it->u.msg, o->family, buf, cap);
	case WIRE_INFO_KIND_SOCK:
		return wire_info_encode_sock(&it->u.sock, o->family, buf, cap);
	case WIRE_INFO_KIND_TCP_SOCK:
		return wire_info_encode_tcp_sock(&it->u.tcp_sock, o->family, buf, cap);
	case WIRE_INFO_KIND_RDMA_CONN:
		return wire_info_encode_rdma_conn(&it->u.rdma_conn, o->family, buf, cap);
	case WIRE_INFO_KIND_NONE:
		break;
	}
	return WIRE_ERR_UNSUPP;
}

ssize_t wire_info_iter_init(struct wire_info_iter *it, unsigned opt, const uint8_t *buf,
			    size_t len)
{
	const struct info_opt *o;
	int rc = opt_args(it, sizeof(*it), opt, buf, len, &o);

	if (rc)
		return rc;
	/* rds_info_getsockopt() sets optlen to count * size, nothing else. */
	if (len % o->size)
		return WIRE_ERR_MALFORMED;
	it->buf = buf;
	it->len = len;
	it->size = o->size;
	it->opt = opt;
	return (ssize_t)(len / o->size);
}

int wire_info_next(struct wire_info_iter *it, struct wire_info_item *out)
{
	ssize_t n;

	if (!it || !out || !it->size)
		return WIRE_ERR_INVAL;
	if (it->len - it->off < it->size)
		return 0;
	n = wire_info_decode(out, it->opt, it->buf + it->off, it->len - it->off);
	if (n < 0)
		return (int)n;
	it->off += (size_t)n;
	return 1;
}

/* The page size rds_info_getsockopt() bounds the length with. */
#define INFO_PAGE 4096

int wire_info_answer(size_t count, size_t item_size, size_t buflen, size_t *optlen)
{
	size_t total;

	if (!optlen)
		return WIRE_ERR_INVAL;
	/* "check for all kinds of wrapping": before the producer is looked up */
	if (buflen > (size_t)INT_MAX - INFO_PAGE + 1)
		return -EINVAL;
	if (!item_size)
		return -ENOPROTOOPT;
	/*
	 * The kernel multiplies in int; no list comes near INT_MAX bytes, so
	 * a product beyond it saturates rather than modelling the wrap.
	 */
	if (item_size > INT_MAX || count > (size_t)INT_MAX / item_size)
		total = INT_MAX;
	else
		total = count * item_size;
	*optlen = total;
	if (total > buflen)
		return -ENOSPC;
	return (int)item_size;
}

/* net/rds/stats.c, in struct rds_statistics order (6.1). */
static const char *const ctr_core[] = {
	"conn_reset",
	"recv_drop_bad_checksum",
	"recv_drop_old_seq",
	"recv_drop_no_sock",
	"recv_drop_dead_sock",
	"recv_deliver_raced",
	"recv_delivered",
	"recv_queued",
	"recv_immediate_retry",
	"recv_delayed_retry",
	"recv_ack_required",
	"recv_rdma_bytes",
	"recv_ping",
	"send_queue_empty",
	"send_queue_full",
	"send_lock_contention",
	"send_lock_queue_raced",
	"send_immediate_retry",
	"send_delayed_retry",
	"send_drop_acked",
	"send_ack_required",
	"send_queued",
	"send_rdma",
	"send_rdma_bytes",
	"send_pong",
	"page_remainder_hit",
	"page_remainder_miss",
	"copy_to_user",
	"copy_from_user",
	"cong_update_queued",
	"cong_update_received",
	"cong_send_error",
	"cong_send_blocked",
	"recv_bytes_added_to_sock",
	"recv_bytes_freed_fromsock",
	"send_stuck_rm",
	/* 7.x only */
	"mprds_catchup_tx0_retries",
};

#define CTR_CORE_6X 36

static const char *const ctr_tcp[] = {
	"tcp_data_ready_calls",
	"tcp_write_space_calls",
	"tcp_sndbuf_full",
	"tcp_connect_raced",
	"tcp_listen_closed_stale",
};

static const char *const ctr_ib[] = {
	"ib_connect_raced",
	"ib_listen_closed_stale",
	"ib_evt_handler_call",
	"ib_tasklet_call",
	"ib_tx_cq_event",
	"ib_tx_ring_full",
	"ib_tx_throttle",
	"ib_tx_sg_mapping_failure",
	"ib_tx_stalled",
	"ib_tx_credit_updates",
	"ib_rx_cq_event",
	"ib_rx_ring_empty",
	"ib_rx_refill_from_cq",
	"ib_rx_refill_from_thread",
	"ib_rx_alloc_limit",
	"ib_rx_total_frags",
	"ib_rx_total_incs",
	"ib_rx_credit_updates",
	"ib_ack_sent",
	"ib_ack_send_failure",
	"ib_ack_send_delayed",
	"ib_ack_send_piggybacked",
	"ib_ack_received",
	"ib_rdma_mr_8k_alloc",
	"ib_rdma_mr_8k_free",
	"ib_rdma_mr_8k_used",
	"ib_rdma_mr_8k_pool_flush",
	"ib_rdma_mr_8k_pool_wait",
	"ib_rdma_mr_8k_pool_depleted",
	"ib_rdma_mr_1m_alloc",
	"ib_rdma_mr_1m_free",
	"ib_rdma_mr_1m_used",
	"ib_rdma_mr_1m_pool_flush",
	"ib_rdma_mr_1m_pool_wait",
	"ib_rdma_mr_1m_pool_depleted",
	"ib_rdma_mr_8k_reused",
	"ib_rdma_mr_1m_reused",
	"ib_atomic_cswp",
	"ib_atomic_fadd",
};

_Static_assert(sizeof(ctr_core) / sizeof(ctr_core[0]) == CTR_CORE_6X + 1,
	       "36 core counters in 6.x, one more in 7.x");
_Static_assert(sizeof(ctr_ib) / sizeof(ctr_ib[0]) == 39, "39 ib_* counters");

size_t wire_info_counter_names(enum wire_info_ctrs set, enum wire_kver kv,
			       const char *const **names)
{
	if (!names)
		return 0;
	*names = NULL;
	switch (set) {
	case WIRE_INFO_CTRS_CORE:
		*names = ctr_core;
		return kv == WIRE_KVER_6 ? CTR_CORE_6X :
					   sizeof(ctr_core) / sizeof(ctr_core[0]);
	case WIRE_INFO_CTRS_TCP:
		*names = ctr_tcp;
		return sizeof(ctr_tcp) / sizeof(ctr_tcp[0]);
	case WIRE_INFO_CTRS_IB:
		*names = ctr_ib;
		return sizeof(ctr_ib) / sizeof(ctr_ib[0]);
	}
	return 0;
}
