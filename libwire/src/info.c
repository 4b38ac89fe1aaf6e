// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * info.c - RDS_INFO getsockopt items, the getsockopt answer and the
 * counter names. Ref: uapi <linux/rds.h> struct rds_info_*, rds6_info_*;
 * net/rds/info.c rds_info_getsockopt(); net/rds/stats.c, tcp_stats.c,
 * ib_stats.c (counter names).
 *
 * The integers the uapi header does not declare __be are written by the
 * kernel in its own byte order; getsockopt hands them to a process on the
 * same host, so they are read and written host-endian here (WIRE_FLD_HE).
 * Addresses and ports are __be.
 */
#include <wire/wire.h>

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "fld.h"

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
 * Every item's fields in wire order, each row tagged with its item's kind.
 * F4: in the IPv4 layout only.
 */
#define F(kind, type, member, fk) \
	WIRE_FLD_OF(WIRE_INFO_KIND_##kind, struct wire_info_##type, member, WIRE_FLD_##fk, false)
#define F4(kind, type, member, fk) \
	WIRE_FLD_OF(WIRE_INFO_KIND_##kind, struct wire_info_##type, member, WIRE_FLD_##fk, true)

static const struct wire_fld info_flds[] = {
	/*
	 * rds_info_counter, 40 bytes:
	 *
	 *  0                                32              40
	 *  +--------------------------------+---------------+
	 *  | name (NUL-terminated ASCII)    | value (host)  |
	 *  +--------------------------------+---------------+
	 */
	F(COUNTER, counter, name, TEXT),
	F(COUNTER, counter, value, HE),

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
	F(CONN, conn, next_tx_seq, HE),
	F(CONN, conn, next_rx_seq, HE),
	F(CONN, conn, laddr, MAPPED),
	F(CONN, conn, faddr, MAPPED),
	F(CONN, conn, transport, TEXT),
	F(CONN, conn, flags, BE),
	F4(CONN, conn, tos, BE),

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
	F(MSG, msg, seq, HE),
	F(MSG, msg, len, HE),
	F(MSG, msg, laddr, MAPPED),
	F(MSG, msg, faddr, MAPPED),
	F(MSG, msg, lport, BE),
	F(MSG, msg, fport, BE),
	F(MSG, msg, flags, BE),
	F(MSG, msg, tos, BE),

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
	F(SOCK, sock, sndbuf, HE),
	F(SOCK, sock, bound_addr, MAPPED),
	F(SOCK, sock, connected_addr, MAPPED),
	F(SOCK, sock, bound_port, BE),
	F(SOCK, sock, connected_port, BE),
	F(SOCK, sock, rcvbuf, HE),
	F(SOCK, sock, inum, HE),

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
	F(TCP_SOCK, tcp_sock, local_addr, MAPPED),
	F(TCP_SOCK, tcp_sock, local_port, BE),
	F(TCP_SOCK, tcp_sock, peer_addr, MAPPED),
	F(TCP_SOCK, tcp_sock, peer_port, BE),
	F(TCP_SOCK, tcp_sock, hdr_rem, HE),
	F(TCP_SOCK, tcp_sock, data_rem, HE),
	F(TCP_SOCK, tcp_sock, last_sent_nxt, HE),
	F(TCP_SOCK, tcp_sock, last_expected_una, HE),
	F(TCP_SOCK, tcp_sock, last_seen_una, HE),
	F4(TCP_SOCK, tcp_sock, tos, BE),

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
	F(RDMA_CONN, rdma_conn, src_addr, MAPPED),
	F(RDMA_CONN, rdma_conn, dst_addr, MAPPED),
	F(RDMA_CONN, rdma_conn, src_gid, BYTES),
	F(RDMA_CONN, rdma_conn, dst_gid, BYTES),
	F(RDMA_CONN, rdma_conn, max_send_wr, HE),
	F(RDMA_CONN, rdma_conn, max_recv_wr, HE),
	F(RDMA_CONN, rdma_conn, max_send_sge, HE),
	F(RDMA_CONN, rdma_conn, rdma_mr_max, HE),
	F(RDMA_CONN, rdma_conn, rdma_mr_size, HE),
	F(RDMA_CONN, rdma_conn, tos, BE),
	F(RDMA_CONN, rdma_conn, sl, BE),
	F(RDMA_CONN, rdma_conn, pad, BYTES),
	F(RDMA_CONN, rdma_conn, cache_allocs, HE),
};

#undef F
#undef F4

/* |obj| is the host struct of |kind|, |size| bytes. */
static ssize_t item_decode(void *obj, size_t size, enum wire_info_kind kind, int family,
			   const uint8_t *buf, size_t len)
{
	ssize_t need = check_args(obj, kind, family, buf, len, false);
	struct wire_rd rd;

	if (need < 0)
		return need;
	memset(obj, 0, size);
	wire_rd_init(&rd, buf, (size_t)need);
	wire_fld_read(&rd, info_flds, WIRE_FLD_N(info_flds), kind, obj, family == 6);
	return rd_done(&rd, need);
}

static ssize_t item_encode(const void *obj, enum wire_info_kind kind, int family,
			   uint8_t *buf, size_t cap)
{
	ssize_t need = check_args(obj, kind, family, buf, cap, true);
	struct wire_wr wr;

	if (need < 0)
		return need;
	wire_wr_init(&wr, buf, (size_t)need);
	if (!wire_fld_write(&wr, info_flds, WIRE_FLD_N(info_flds), kind, obj, family == 6))
		return WIRE_ERR_INVAL;
	return wr_done(&wr, need);
}

ssize_t wire_info_decode_counter(struct wire_info_counter *c, const uint8_t *buf,
				 size_t len)
{
	return item_decode(c, sizeof(*c), WIRE_INFO_KIND_COUNTER, 0, buf, len);
}

ssize_t wire_info_encode_counter(const struct wire_info_counter *c, uint8_t *buf,
				 size_t cap)
{
	return item_encode(c, WIRE_INFO_KIND_COUNTER, 0, buf, cap);
}

/* The decoder and encoder of one kind that has an IPv4 and an IPv6 layout. */
#define INFO_CODEC(kind, type)                                                                 \
	ssize_t wire_info_decode_##type(struct wire_info_##type *x, int family,                \
					const uint8_t *buf, size_t len)                        \
	{                                                                                      \
		return item_decode(x, sizeof(*x), WIRE_INFO_KIND_##kind, family, buf, len);    \
	}                                                                                      \
	ssize_t wire_info_encode_##type(const struct wire_info_##type *x, int family,          \
					uint8_t *buf, size_t cap)                              \
	{                                                                                      \
		return item_encode(x, WIRE_INFO_KIND_##kind, family, buf, cap);                \
	}

INFO_CODEC(CONN, conn)
INFO_CODEC(MSG, msg)
INFO_CODEC(SOCK, sock)
INFO_CODEC(TCP_SOCK, tcp_sock)
INFO_CODEC(RDMA_CONN, rdma_conn)

#undef INFO_CODEC

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
	return item_decode(&it->u, sizeof(it->u), o->kind, o->family, buf, len);
}

ssize_t wire_info_encode(const struct wire_info_item *it, uint8_t *buf, size_t cap)
{
	const struct info_opt *o;

	if (!it || (!buf && cap))
		return WIRE_ERR_INVAL;
	o = info_opt(it->opt);
	if (!o)
		return WIRE_ERR_UNSUPP;
	return item_encode(&it->u, o->kind, o->family, buf, cap);
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
