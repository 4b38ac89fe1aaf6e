// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * test_info.c - RDS_INFO items: known answers, decode/encode identity,
 * truncation, array lengths, the getsockopt answer, counter names, and
 * every layout against the uapi header of this machine.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "cmain.h"

#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <linux/rds.h>

#include <wire/wire.h>

#include "hex.h"

static const unsigned all_opts[] = {
	WIRE_INFO_COUNTERS, WIRE_INFO_CONNECTIONS, WIRE_INFO_SEND_MESSAGES,
	WIRE_INFO_RETRANS_MESSAGES, WIRE_INFO_RECV_MESSAGES, WIRE_INFO_SOCKETS,
	WIRE_INFO_TCP_SOCKETS, WIRE_INFO_IB_CONNECTIONS, WIRE_INFO6_CONNECTIONS,
	WIRE_INFO6_SEND_MESSAGES, WIRE_INFO6_RETRANS_MESSAGES, WIRE_INFO6_RECV_MESSAGES,
	WIRE_INFO6_SOCKETS, WIRE_INFO6_TCP_SOCKETS, WIRE_INFO6_IB_CONNECTIONS,
};
#define N_OPTS (sizeof(all_opts) / sizeof(all_opts[0]))

static const uint8_t mapped_10_0_0_1[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 1 };
static const uint8_t mapped_10_0_0_2[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 2 };

/* Host-order fields are written little-endian in the vectors below. */
static bool host_is_le(void)
{
	const uint16_t one = 1;
	uint8_t b;

	memcpy(&b, &one, 1);
	return b == 1;
}

#define NEED_LE() do { if (!host_is_le()) skip(); } while (0)

/* A connection 10.0.0.1 -> 10.0.0.2 over tcp, connected, tos 5. */
static const char conn_v4_kat[] =
	"2a 00 00 00 00 00 00 00\n"       /* next_tx_seq 42 (host) */
	"07 00 00 00 00 00 00 00\n"       /* next_rx_seq 7 (host) */
	"0a 00 00 01  0a 00 00 02\n"      /* laddr, faddr (be) */
	"74 63 70 00 00 00 00 00 00 00 00 00 00 00 00 00\n"  /* "tcp" */
	"04 05\n";                        /* flags CONNECTED, tos 5 */

static void test_info_conn_v4_known_answer(void **state)
{
	uint8_t in[64], out[64];
	struct wire_info_conn c;
	size_t n;

	(void)state;
	NEED_LE();
	n = hex_decode(conn_v4_kat, in, sizeof(in));
	assert_int_equal(n, WIRE_INFO_CONN_LEN);
	assert_int_equal(wire_info_decode_conn(&c, 4, in, n), WIRE_INFO_CONN_LEN);
	assert_true(c.next_tx_seq == 42);
	assert_true(c.next_rx_seq == 7);
	assert_memory_equal(c.laddr, mapped_10_0_0_1, 16);
	assert_memory_equal(c.faddr, mapped_10_0_0_2, 16);
	assert_string_equal(c.transport, "tcp");
	assert_int_equal(c.flags, WIRE_INFO_CONN_CONNECTED);
	assert_int_equal(c.tos, 5);

	memset(out, 0xee, sizeof(out));
	assert_int_equal(wire_info_encode_conn(&c, 4, out, sizeof(out)), WIRE_INFO_CONN_LEN);
	assert_memory_equal(out, in, WIRE_INFO_CONN_LEN);
	assert_int_equal(out[WIRE_INFO_CONN_LEN], 0xee);
	assert_int_equal(wire_info_encode_conn(&c, 4, out, WIRE_INFO_CONN_LEN - 1),
			 WIRE_ERR_NOSPACE);
}

/* The same connection as RDS6_INFO_CONNECTIONS lists it: mapped, no tos. */
static const char conn_v6_kat[] =
	"2a 00 00 00 00 00 00 00  07 00 00 00 00 00 00 00\n"
	"00 00 00 00 00 00 00 00 00 00 ff ff 0a 00 00 01\n"
	"00 00 00 00 00 00 00 00 00 00 ff ff 0a 00 00 02\n"
	"74 63 70 00 00 00 00 00 00 00 00 00 00 00 00 00\n"
	"04\n";

static void test_info_conn_v6_matches_v4(void **state)
{
	uint8_t in4[64], in6[80], out[80];
	struct wire_info_conn c4, c6;

	(void)state;
	NEED_LE();
	assert_int_equal(hex_decode(conn_v4_kat, in4, sizeof(in4)), WIRE_INFO_CONN_LEN);
	assert_int_equal(hex_decode(conn_v6_kat, in6, sizeof(in6)), WIRE_INFO6_CONN_LEN);
	assert_int_equal(wire_info_decode_conn(&c4, 4, in4, WIRE_INFO_CONN_LEN),
			 WIRE_INFO_CONN_LEN);
	assert_int_equal(wire_info_decode_conn(&c6, 6, in6, WIRE_INFO6_CONN_LEN),
			 WIRE_INFO6_CONN_LEN);
	assert_int_equal(c6.tos, 0);
	c6.tos = c4.tos;
	assert_memory_equal(&c4, &c6, sizeof(c4));
	/* the IPv4 item re-encoded in the IPv6 layout is the kernel's RDS6 item */
	assert_int_equal(wire_info_encode_conn(&c4, 6, out, sizeof(out)),
			 WIRE_INFO6_CONN_LEN);
	assert_memory_equal(out, in6, WIRE_INFO6_CONN_LEN);
}

/* A queued message: seq 9, 1000 bytes, 10.0.0.1:4000 -> 10.0.0.2:4001. */
static const char msg_v4_kat[] =
	"09 00 00 00 00 00 00 00  e8 03 00 00\n"   /* seq, len (host) */
	"0a 00 00 01  0a 00 00 02\n"
	"0f a0  0f a1  00 00\n";                   /* lport, fport (be), flags, tos */

static void test_info_msg_v4_known_answer(void **state)
{
	uint8_t in[64], out[64];
	struct wire_info_msg m;

	(void)state;
	NEED_LE();
	assert_int_equal(hex_decode(msg_v4_kat, in, sizeof(in)), WIRE_INFO_MSG_LEN);
	assert_int_equal(wire_info_decode_msg(&m, 4, in, WIRE_INFO_MSG_LEN),
			 WIRE_INFO_MSG_LEN);
	assert_true(m.seq == 9);
	assert_int_equal(m.len, 1000);
	assert_memory_equal(m.laddr, mapped_10_0_0_1, 16);
	assert_memory_equal(m.faddr, mapped_10_0_0_2, 16);
	assert_int_equal(m.lport, 4000);
	assert_int_equal(m.fport, 4001);
	assert_int_equal(wire_info_encode_msg(&m, 4, out, sizeof(out)), WIRE_INFO_MSG_LEN);
	assert_memory_equal(out, in, WIRE_INFO_MSG_LEN);
}

/* A socket bound to 10.0.0.1:4000, unconnected, 64 KiB buffers, inode 12345. */
static const char sock_v4_kat[] =
	"00 00 01 00\n"                   /* sndbuf 65536 */
	"0a 00 00 01  00 00 00 00\n"      /* bound, connected */
	"0f a0  00 00\n"                  /* ports */
	"00 00 01 00\n"                   /* rcvbuf */
	"39 30 00 00 00 00 00 00\n";      /* inum */

static void test_info_sock_v4_known_answer(void **state)
{
	static const uint8_t mapped_zero[16] = { [10] = 0xff, [11] = 0xff };
	uint8_t in[64], out[64];
	struct wire_info_sock s;

	(void)state;
	NEED_LE();
	assert_int_equal(hex_decode(sock_v4_kat, in, sizeof(in)), WIRE_INFO_SOCK_LEN);
	assert_int_equal(wire_info_decode_sock(&s, 4, in, WIRE_INFO_SOCK_LEN),
			 WIRE_INFO_SOCK_LEN);
	assert_int_equal(s.sndbuf, 65536);
	assert_int_equal(s.rcvbuf, 65536);
	assert_memory_equal(s.bound_addr, mapped_10_0_0_1, 16);
	assert_memory_equal(s.connected_addr, mapped_zero, 16);
	assert_int_equal(s.bound_port, 4000);
	assert_int_equal(s.connected_port, 0);
	assert_true(s.inum == 12345);
	assert_int_equal(wire_info_encode_sock(&s, 4, out, sizeof(out)), WIRE_INFO_SOCK_LEN);
	assert_memory_equal(out, in, WIRE_INFO_SOCK_LEN);
	/* :: (how the IPv6 list says "not connected") fits the IPv4 layout too */
	memset(s.connected_addr, 0, 16);
	assert_int_equal(wire_info_encode_sock(&s, 4, out, sizeof(out)), WIRE_INFO_SOCK_LEN);
	assert_memory_equal(out, in, WIRE_INFO_SOCK_LEN);
	/* a real IPv6 address does not */
	s.connected_addr[0] = 0x20;
	assert_int_equal(wire_info_encode_sock(&s, 4, out, sizeof(out)), WIRE_ERR_INVAL);
	assert_int_equal(wire_info_encode_sock(&s, 6, out, sizeof(out)), WIRE_INFO6_SOCK_LEN);
}

/* The kernel's TCP socket of a connection, mid-header, tos 0. */
static const char tcp_v4_kat[] =
	"0a 00 00 01  40 01\n"            /* local 10.0.0.1:16385 */
	"0a 00 00 02  b3 7e\n"            /* peer 10.0.0.2:45950 */
	"10 00 00 00 00 00 00 00\n"       /* hdr_rem 16 */
	"00 00 00 00 00 00 00 00\n"       /* data_rem 0 */
	"01 00 00 00  02 00 00 00  03 00 00 00\n"
	"00\n";

static void test_info_tcp_sock_v4_known_answer(void **state)
{
	uint8_t in[64], out[64];
	struct wire_info_tcp_sock t;

	(void)state;
	NEED_LE();
	assert_int_equal(hex_decode(tcp_v4_kat, in, sizeof(in)), WIRE_INFO_TCP_SOCK_LEN);
	assert_int_equal(wire_info_decode_tcp_sock(&t, 4, in, WIRE_INFO_TCP_SOCK_LEN),
			 WIRE_INFO_TCP_SOCK_LEN);
	assert_memory_equal(t.local_addr, mapped_10_0_0_1, 16);
	assert_int_equal(t.local_port, 16385);
	assert_memory_equal(t.peer_addr, mapped_10_0_0_2, 16);
	assert_int_equal(t.peer_port, 45950);
	assert_true(t.hdr_rem == 16);
	assert_true(t.data_rem == 0);
	assert_int_equal(t.last_sent_nxt, 1);
	assert_int_equal(t.last_expected_una, 2);
	assert_int_equal(t.last_seen_una, 3);
	assert_int_equal(wire_info_encode_tcp_sock(&t, 4, out, sizeof(out)),
			 WIRE_INFO_TCP_SOCK_LEN);
	assert_memory_equal(out, in, WIRE_INFO_TCP_SOCK_LEN);
}

/* An IB connection whose alignment padding is not zero: kept as is. */
static const char rdma_v4_kat[] =
	"0a 00 00 01  0a 00 00 02\n"
	"fe 80 00 00 00 00 00 00 00 00 00 00 00 00 00 01\n"
	"fe 80 00 00 00 00 00 00 00 00 00 00 00 00 00 02\n"
	"00 01 00 00  00 04 00 00  08 00 00 00\n"  /* 256, 1024, 8 */
	"00 00 00 00  00 00 00 00\n"               /* mr_max, mr_size */
	"03 03 aa bb\n"                            /* tos, sl, pad */
	"11 00 00 00\n";                           /* cache_allocs */

static void test_info_rdma_conn_v4_keeps_padding(void **state)
{
	uint8_t in[80], out[80];
	struct wire_info_rdma_conn r;

	(void)state;
	NEED_LE();
	assert_int_equal(hex_decode(rdma_v4_kat, in, sizeof(in)), WIRE_INFO_RDMA_CONN_LEN);
	assert_int_equal(wire_info_decode_rdma_conn(&r, 4, in, WIRE_INFO_RDMA_CONN_LEN),
			 WIRE_INFO_RDMA_CONN_LEN);
	assert_memory_equal(r.src_addr, mapped_10_0_0_1, 16);
	assert_int_equal(r.src_gid[0], 0xfe);
	assert_int_equal(r.dst_gid[15], 2);
	assert_int_equal(r.max_send_wr, 256);
	assert_int_equal(r.max_recv_wr, 1024);
	assert_int_equal(r.max_send_sge, 8);
	assert_int_equal(r.tos, 3);
	assert_int_equal(r.sl, 3);
	assert_int_equal(r.pad[0], 0xaa);
	assert_int_equal(r.pad[1], 0xbb);
	assert_int_equal(r.cache_allocs, 17);
	assert_int_equal(wire_info_encode_rdma_conn(&r, 4, out, sizeof(out)),
			 WIRE_INFO_RDMA_CONN_LEN);
	assert_memory_equal(out, in, WIRE_INFO_RDMA_CONN_LEN);
}

static void test_info_counter_known_answer(void **state)
{
	uint8_t in[WIRE_INFO_COUNTER_LEN] = "recv_ping";
	uint8_t out[WIRE_INFO_COUNTER_LEN];
	struct wire_info_counter c;

	(void)state;
	NEED_LE();
	in[32] = 3;
	in[33] = 1;                /* 259 */
	in[20] = 'x';              /* bytes after the NUL are kept */
	assert_int_equal(wire_info_decode_counter(&c, in, sizeof(in)), WIRE_INFO_COUNTER_LEN);
	assert_string_equal(c.name, "recv_ping");
	assert_true(c.value == 259);
	assert_int_equal(wire_info_encode_counter(&c, out, sizeof(out)), WIRE_INFO_COUNTER_LEN);
	assert_memory_equal(out, in, sizeof(in));

	/* a name of all 32 bytes is still a C string */
	memset(in, 'a', 32);
	assert_int_equal(wire_info_decode_counter(&c, in, sizeof(in)), WIRE_INFO_COUNTER_LEN);
	assert_int_equal(strlen(c.name), 32);
}

/* Deterministic bytes without a libc generator. */
static void fill(uint8_t *b, size_t n, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		b[i] = (uint8_t)x;
	}
}

static void test_info_decode_encode_identity(void **state)
{
	uint8_t in[WIRE_INFO_ITEM_MAX + 8], out[WIRE_INFO_ITEM_MAX + 8];
	struct wire_info_item it;

	(void)state;
	for (size_t i = 0; i < N_OPTS; i++) {
		size_t size = wire_info_item_size(all_opts[i]);

		for (uint32_t seed = 0; seed < 64; seed++) {
			fill(in, sizeof(in), seed + 100 * (uint32_t)i);
			/* longer input: only the first item is taken */
			assert_int_equal(wire_info_decode(&it, all_opts[i], in, size + 3),
					 (ssize_t)size);
			assert_int_equal(it.opt, all_opts[i]);
			memset(out, 0xee, sizeof(out));
			assert_int_equal(wire_info_encode(&it, out, sizeof(out)), (ssize_t)size);
			assert_memory_equal(out, in, size);
			assert_int_equal(out[size], 0xee);
			assert_int_equal(wire_info_encode(&it, out, size - 1), WIRE_ERR_NOSPACE);
		}
	}
}

static void test_info_truncated_at_every_offset(void **state)
{
	uint8_t in[WIRE_INFO_ITEM_MAX];
	struct wire_info_item it;

	(void)state;
	fill(in, sizeof(in), 7);
	for (size_t i = 0; i < N_OPTS; i++) {
		size_t size = wire_info_item_size(all_opts[i]);

		for (size_t n = 0; n < size; n++)
			assert_int_equal(wire_info_decode(&it, all_opts[i], in, n),
					 WIRE_ERR_TRUNC);
		assert_int_equal(wire_info_decode(&it, all_opts[i], in, size), (ssize_t)size);
	}
}

static void test_info_table(void **state)
{
	static const struct {
		unsigned opt;
		size_t size;
		enum wire_info_kind kind;
		int family;
	} t[] = {
		{ RDS_INFO_COUNTERS, sizeof(struct rds_info_counter), WIRE_INFO_KIND_COUNTER, 0 },
		{ RDS_INFO_CONNECTIONS, sizeof(struct rds_info_connection), WIRE_INFO_KIND_CONN, 4 },
		{ RDS_INFO_SEND_MESSAGES, sizeof(struct rds_info_message), WIRE_INFO_KIND_MSG, 4 },
		{ RDS_INFO_RETRANS_MESSAGES, sizeof(struct rds_info_message), WIRE_INFO_KIND_MSG, 4 },
		{ RDS_INFO_RECV_MESSAGES, sizeof(struct rds_info_message), WIRE_INFO_KIND_MSG, 4 },
		{ RDS_INFO_SOCKETS, sizeof(struct rds_info_socket), WIRE_INFO_KIND_SOCK, 4 },
		{ RDS_INFO_TCP_SOCKETS, sizeof(struct rds_info_tcp_socket),
		  WIRE_INFO_KIND_TCP_SOCK, 4 },
		{ RDS_INFO_IB_CONNECTIONS, sizeof(struct rds_info_rdma_connection),
		  WIRE_INFO_KIND_RDMA_CONN, 4 },
		{ RDS6_INFO_CONNECTIONS, sizeof(struct rds6_info_connection), WIRE_INFO_KIND_CONN, 6 },
		{ RDS6_INFO_SEND_MESSAGES, sizeof(struct rds6_info_message), WIRE_INFO_KIND_MSG, 6 },
		{ RDS6_INFO_RETRANS_MESSAGES, sizeof(struct rds6_info_message), WIRE_INFO_KIND_MSG, 6 },
		{ RDS6_INFO_RECV_MESSAGES, sizeof(struct rds6_info_message), WIRE_INFO_KIND_MSG, 6 },
		{ RDS6_INFO_SOCKETS, sizeof(struct rds6_info_socket), WIRE_INFO_KIND_SOCK, 6 },
		{ RDS6_INFO_TCP_SOCKETS, sizeof(struct rds6_info_tcp_socket),
		  WIRE_INFO_KIND_TCP_SOCK, 6 },
		{ RDS6_INFO_IB_CONNECTIONS, sizeof(struct rds6_info_rdma_connection),
		  WIRE_INFO_KIND_RDMA_CONN, 6 },
	};
	size_t max = 0;

	(void)state;
	assert_int_equal(WIRE_INFO_FIRST, RDS_INFO_FIRST);
	assert_int_equal(WIRE_INFO_LAST, RDS_INFO_LAST);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_int_equal(wire_info_item_size(t[i].opt), t[i].size);
		assert_int_equal(wire_info_opt_kind(t[i].opt), t[i].kind);
		assert_int_equal(wire_info_opt_family(t[i].opt), t[i].family);
		assert_non_null(wire_info_opt_name(t[i].opt));
		if (t[i].size > max)
			max = t[i].size;
	}
	assert_int_equal(max, WIRE_INFO_ITEM_MAX);
	/* numbers with a name and no producer */
	assert_int_equal(wire_info_item_size(10002), 0);
	assert_int_equal(wire_info_item_size(RDS_INFO_CONNECTION_STATS), 0);
	assert_int_equal(wire_info_item_size(RDS_INFO_IWARP_CONNECTIONS), 0);
	assert_int_equal(wire_info_item_size(RDS_INFO_LAST + 1), 0);
	assert_null(wire_info_opt_name(RDS_INFO_FIRST - 1));
	assert_int_equal(WIRE_INFO_CONN_SENDING, RDS_INFO_CONNECTION_FLAG_SENDING);
	assert_int_equal(WIRE_INFO_CONN_CONNECTING, RDS_INFO_CONNECTION_FLAG_CONNECTING);
	assert_int_equal(WIRE_INFO_CONN_CONNECTED, RDS_INFO_CONNECTION_FLAG_CONNECTED);
	assert_int_equal(WIRE_INFO_MSG_ACK, RDS_INFO_MESSAGE_FLAG_ACK);
	assert_int_equal(WIRE_INFO_MSG_FAST_ACK, RDS_INFO_MESSAGE_FLAG_FAST_ACK);
	assert_int_equal(WIRE_INFO_TRANS_LEN, TRANSNAMSIZ);
	assert_int_equal(WIRE_INFO_GID_LEN, RDS_IB_GID_LEN);
}

/*
 * Layouts against the uapi structs: fill one through its members (the
 * compiler places them), decode its bytes, and find each value where the
 * member was. This is the only place the uapi structs touch item bytes.
 */
static void v4(uint8_t out[16], uint32_t host)
{
	memset(out, 0, 16);
	out[10] = out[11] = 0xff;
	out[12] = (uint8_t)(host >> 24);
	out[13] = (uint8_t)(host >> 16);
	out[14] = (uint8_t)(host >> 8);
	out[15] = (uint8_t)host;
}

static void test_info_uapi_conn(void **state)
{
	struct rds_info_connection k4;
	struct rds6_info_connection k6;
	struct wire_info_conn c;
	uint8_t a[16];

	(void)state;
	memset(&k4, 0, sizeof(k4));
	k4.next_tx_seq = 0x1112131415161718ull;
	k4.next_rx_seq = 0x2122232425262728ull;
	k4.laddr = htonl(0x0a000001);
	k4.faddr = htonl(0x0a000002);
	memcpy(k4.transport, "infiniband", 11);
	k4.flags = RDS_INFO_CONNECTION_FLAG_SENDING;
	k4.tos = 9;
	assert_int_equal(wire_info_decode_conn(&c, 4, (const uint8_t *)&k4, sizeof(k4)),
			 sizeof(k4));
	assert_true(c.next_tx_seq == k4.next_tx_seq);
	assert_true(c.next_rx_seq == k4.next_rx_seq);
	v4(a, 0x0a000001);
	assert_memory_equal(c.laddr, a, 16);
	v4(a, 0x0a000002);
	assert_memory_equal(c.faddr, a, 16);
	assert_string_equal(c.transport, "infiniband");
	assert_int_equal(c.flags, 1);
	assert_int_equal(c.tos, 9);

	memset(&k6, 0, sizeof(k6));
	k6.next_tx_seq = 5;
	k6.next_rx_seq = 6;
	memset(&k6.laddr, 0x11, 16);
	memset(&k6.faddr, 0x22, 16);
	memcpy(k6.transport, "tcp", 4);
	k6.flags = RDS_INFO_CONNECTION_FLAG_CONNECTING;
	assert_int_equal(wire_info_decode_conn(&c, 6, (const uint8_t *)&k6, sizeof(k6)),
			 sizeof(k6));
	assert_true(c.next_tx_seq == 5 && c.next_rx_seq == 6);
	assert_memory_equal(c.laddr, &k6.laddr, 16);
	assert_memory_equal(c.faddr, &k6.faddr, 16);
	assert_string_equal(c.transport, "tcp");
	assert_int_equal(c.flags, 2);
	assert_int_equal(offsetof(struct rds6_info_connection, flags), 64);
}

static void test_info_uapi_msg(void **state)
{
	struct rds_info_message k4;
	struct rds6_info_message k6;
	struct wire_info_msg m;
	uint8_t a[16];

	(void)state;
	memset(&k4, 0, sizeof(k4));
	k4.seq = 0x0102030405060708ull;
	k4.len = 0xa0b0c0d0;
	k4.laddr = htonl(0xc0a80001);
	k4.faddr = htonl(0xc0a80002);
	k4.lport = htons(18634);
	k4.fport = htons(2);
	k4.flags = RDS_INFO_MESSAGE_FLAG_FAST_ACK;
	k4.tos = 7;
	assert_int_equal(wire_info_decode_msg(&m, 4, (const uint8_t *)&k4, sizeof(k4)),
			 sizeof(k4));
	assert_true(m.seq == k4.seq);
	assert_int_equal(m.len, k4.len);
	v4(a, 0xc0a80001);
	assert_memory_equal(m.laddr, a, 16);
	v4(a, 0xc0a80002);
	assert_memory_equal(m.faddr, a, 16);
	assert_int_equal(m.lport, 18634);
	assert_int_equal(m.fport, 2);
	assert_int_equal(m.flags, 2);
	assert_int_equal(m.tos, 7);

	memset(&k6, 0, sizeof(k6));
	k6.seq = 77;
	k6.len = 88;
	memset(&k6.laddr, 0x33, 16);
	memset(&k6.faddr, 0x44, 16);
	k6.lport = htons(1000);
	k6.fport = htons(2000);
	k6.flags = 1;
	k6.tos = 2;
	assert_int_equal(wire_info_decode_msg(&m, 6, (const uint8_t *)&k6, sizeof(k6)),
			 sizeof(k6));
	assert_true(m.seq == 77);
	assert_int_equal(m.len, 88);
	assert_memory_equal(m.laddr, &k6.laddr, 16);
	assert_memory_equal(m.faddr, &k6.faddr, 16);
	assert_int_equal(m.lport, 1000);
	assert_int_equal(m.fport, 2000);
	assert_int_equal(m.flags, 1);
	assert_int_equal(m.tos, 2);
}

static void test_info_uapi_sock(void **state)
{
	struct rds_info_socket k4;
	struct rds6_info_socket k6;
	struct wire_info_sock s;
	uint8_t a[16];

	(void)state;
	memset(&k4, 0, sizeof(k4));
	k4.sndbuf = 123456;
	k4.bound_addr = htonl(0x7f000001);
	k4.connected_addr = htonl(0x7f000002);
	k4.bound_port = htons(4000);
	k4.connected_port = htons(4001);
	k4.rcvbuf = 654321;
	k4.inum = 0xdeadbeefcafeull;
	assert_int_equal(wire_info_decode_sock(&s, 4, (const uint8_t *)&k4, sizeof(k4)),
			 sizeof(k4));
	assert_int_equal(s.sndbuf, 123456);
	v4(a, 0x7f000001);
	assert_memory_equal(s.bound_addr, a, 16);
	v4(a, 0x7f000002);
	assert_memory_equal(s.connected_addr, a, 16);
	assert_int_equal(s.bound_port, 4000);
	assert_int_equal(s.connected_port, 4001);
	assert_int_equal(s.rcvbuf, 654321);
	assert_true(s.inum == 0xdeadbeefcafeull);

	memset(&k6, 0, sizeof(k6));
	k6.sndbuf = 1;
	memset(&k6.bound_addr, 0x55, 16);
	memset(&k6.connected_addr, 0x66, 16);
	k6.bound_port = htons(3);
	k6.connected_port = htons(4);
	k6.rcvbuf = 5;
	k6.inum = 6;
	assert_int_equal(wire_info_decode_sock(&s, 6, (const uint8_t *)&k6, sizeof(k6)),
			 sizeof(k6));
	assert_int_equal(s.sndbuf, 1);
	assert_memory_equal(s.bound_addr, &k6.bound_addr, 16);
	assert_memory_equal(s.connected_addr, &k6.connected_addr, 16);
	assert_int_equal(s.bound_port, 3);
	assert_int_equal(s.connected_port, 4);
	assert_int_equal(s.rcvbuf, 5);
	assert_true(s.inum == 6);
}

static void test_info_uapi_tcp_sock(void **state)
{
	struct rds_info_tcp_socket k4;
	struct rds6_info_tcp_socket k6;
	struct wire_info_tcp_sock t;
	uint8_t a[16];

	(void)state;
	memset(&k4, 0, sizeof(k4));
	k4.local_addr = htonl(0x0a000001);
	k4.local_port = htons(16385);
	k4.peer_addr = htonl(0x0a000002);
	k4.peer_port = htons(50000);
	k4.hdr_rem = 48;
	k4.data_rem = 0x100000000ull;
	k4.last_sent_nxt = 10;
	k4.last_expected_una = 11;
	k4.last_seen_una = 12;
	k4.tos = 13;
	assert_int_equal(wire_info_decode_tcp_sock(&t, 4, (const uint8_t *)&k4, sizeof(k4)),
			 sizeof(k4));
	v4(a, 0x0a000001);
	assert_memory_equal(t.local_addr, a, 16);
	v4(a, 0x0a000002);
	assert_memory_equal(t.peer_addr, a, 16);
	assert_int_equal(t.local_port, 16385);
	assert_int_equal(t.peer_port, 50000);
	assert_true(t.hdr_rem == 48);
	assert_true(t.data_rem == 0x100000000ull);
	assert_int_equal(t.last_sent_nxt, 10);
	assert_int_equal(t.last_expected_una, 11);
	assert_int_equal(t.last_seen_una, 12);
	assert_int_equal(t.tos, 13);

	memset(&k6, 0, sizeof(k6));
	memset(&k6.local_addr, 0x77, 16);
	k6.local_port = htons(1);
	memset(&k6.peer_addr, 0x88, 16);
	k6.peer_port = htons(2);
	k6.hdr_rem = 3;
	k6.data_rem = 4;
	k6.last_sent_nxt = 5;
	k6.last_expected_una = 6;
	k6.last_seen_una = 7;
	assert_int_equal(wire_info_decode_tcp_sock(&t, 6, (const uint8_t *)&k6, sizeof(k6)),
			 sizeof(k6));
	assert_memory_equal(t.local_addr, &k6.local_addr, 16);
	assert_memory_equal(t.peer_addr, &k6.peer_addr, 16);
	assert_int_equal(t.local_port, 1);
	assert_int_equal(t.peer_port, 2);
	assert_true(t.hdr_rem == 3 && t.data_rem == 4);
	assert_int_equal(t.last_sent_nxt, 5);
	assert_int_equal(t.last_expected_una, 6);
	assert_int_equal(t.last_seen_una, 7);
	assert_int_equal(t.tos, 0);
}

/* The counts rds_info_rdma_connection and rds6_info_rdma_connection share
 * with wire_info_rdma_conn, by name: each is set to |base| + its place in
 * this list, and must come out of the decoder so. */
#define RDMA_CONN_COUNTS(X, s)                                                           \
	X(s, max_send_wr) X(s, max_recv_wr) X(s, max_send_sge) X(s, rdma_mr_max)         \
	X(s, rdma_mr_size) X(s, tos) X(s, sl) X(s, cache_allocs)
#define SET_COUNT(s, f) (s).f = v++;
#define CHECK_COUNT(s, f) assert_int_equal((s).f, v++);
#define RDMA_CONN_SET(k, base)                                                           \
	do {                                                                             \
		unsigned v = (base);                                                     \
		RDMA_CONN_COUNTS(SET_COUNT, k)                                           \
	} while (0)
#define RDMA_CONN_CHECK(r, base)                                                         \
	do {                                                                             \
		unsigned v = (base);                                                     \
		RDMA_CONN_COUNTS(CHECK_COUNT, r)                                         \
	} while (0)

static void test_info_uapi_rdma_conn(void **state)
{
	struct rds_info_rdma_connection k4;
	struct rds6_info_rdma_connection k6;
	struct wire_info_rdma_conn r;
	uint8_t a[16];

	(void)state;
	memset(&k4, 0, sizeof(k4));
	k4.src_addr = htonl(0x0a000001);
	k4.dst_addr = htonl(0x0a000002);
	memset(k4.src_gid, 0x99, 16);
	memset(k4.dst_gid, 0xaa, 16);
	RDMA_CONN_SET(k4, 1);
	assert_int_equal(offsetof(struct rds_info_rdma_connection, cache_allocs), 64);
	assert_int_equal(wire_info_decode_rdma_conn(&r, 4, (const uint8_t *)&k4, sizeof(k4)),
			 sizeof(k4));
	v4(a, 0x0a000001);
	assert_memory_equal(r.src_addr, a, 16);
	v4(a, 0x0a000002);
	assert_memory_equal(r.dst_addr, a, 16);
	assert_memory_equal(r.src_gid, k4.src_gid, 16);
	assert_memory_equal(r.dst_gid, k4.dst_gid, 16);
	RDMA_CONN_CHECK(r, 1);

	memset(&k6, 0, sizeof(k6));
	memset(&k6.src_addr, 0x12, 16);
	memset(&k6.dst_addr, 0x34, 16);
	memset(k6.src_gid, 0x56, 16);
	memset(k6.dst_gid, 0x78, 16);
	RDMA_CONN_SET(k6, 11);
	assert_int_equal(offsetof(struct rds6_info_rdma_connection, cache_allocs), 88);
	assert_int_equal(wire_info_decode_rdma_conn(&r, 6, (const uint8_t *)&k6, sizeof(k6)),
			 sizeof(k6));
	assert_memory_equal(r.src_addr, &k6.src_addr, 16);
	assert_memory_equal(r.dst_addr, &k6.dst_addr, 16);
	assert_memory_equal(r.src_gid, k6.src_gid, 16);
	assert_memory_equal(r.dst_gid, k6.dst_gid, 16);
	RDMA_CONN_CHECK(r, 11);
}

static void test_info_uapi_counter(void **state)
{
	struct rds_info_counter k;
	struct wire_info_counter c;

	(void)state;
	memset(&k, 0, sizeof(k));
	memcpy(k.name, "send_queued", 12);
	k.value = 0x8000000000000001ull;
	assert_int_equal(offsetof(struct rds_info_counter, value), 32);
	assert_int_equal(wire_info_decode_counter(&c, (const uint8_t *)&k, sizeof(k)),
			 sizeof(k));
	assert_string_equal(c.name, "send_queued");
	assert_true(c.value == k.value);
}

static void test_info_iter(void **state)
{
	uint8_t buf[3 * WIRE_INFO6_CONN_LEN + 1];
	struct wire_info_iter it;
	struct wire_info_item item;
	int n = 0;

	(void)state;
	fill(buf, sizeof(buf), 3);
	assert_int_equal(wire_info_iter_init(&it, WIRE_INFO6_CONNECTIONS, buf,
					     3 * WIRE_INFO6_CONN_LEN), 3);
	while (wire_info_next(&it, &item) == 1) {
		assert_int_equal(item.kind, WIRE_INFO_KIND_CONN);
		assert_int_equal(item.family, 6);
		assert_memory_equal(item.u.conn.laddr, buf + n * WIRE_INFO6_CONN_LEN + 16, 16);
		n++;
	}
	assert_int_equal(n, 3);
	assert_int_equal(wire_info_next(&it, &item), 0);

	/* an empty list is a list */
	assert_int_equal(wire_info_iter_init(&it, WIRE_INFO_SOCKETS, NULL, 0), 0);
	assert_int_equal(wire_info_next(&it, &item), 0);
}

static void test_info_iter_malformed_lengths(void **state)
{
	uint8_t buf[4 * WIRE_INFO_ITEM_MAX];
	struct wire_info_iter it;
	struct wire_info_item item;

	(void)state;
	memset(buf, 0, sizeof(buf));
	for (size_t i = 0; i < N_OPTS; i++) {
		size_t size = wire_info_item_size(all_opts[i]);

		for (size_t len = 0; len <= 3 * size; len++) {
			ssize_t r = wire_info_iter_init(&it, all_opts[i], buf, len);

			if (len % size)
				assert_int_equal(r, WIRE_ERR_MALFORMED);
			else
				assert_int_equal(r, (ssize_t)(len / size));
		}
	}
	assert_int_equal(wire_info_iter_init(&it, 10002, buf, 10), WIRE_ERR_UNSUPP);
	assert_int_equal(wire_info_iter_init(&it, WIRE_INFO_SOCKETS, NULL, 28), WIRE_ERR_INVAL);
	memset(&it, 0, sizeof(it));
	assert_int_equal(wire_info_next(&it, &item), WIRE_ERR_INVAL);
}

static void test_info_bad_arguments(void **state)
{
	uint8_t buf[WIRE_INFO_ITEM_MAX] = { 0 };
	struct wire_info_conn c;
	struct wire_info_item it;

	(void)state;
	assert_int_equal(wire_info_decode_conn(&c, 5, buf, sizeof(buf)), WIRE_ERR_INVAL);
	assert_int_equal(wire_info_decode_conn(NULL, 4, buf, sizeof(buf)), WIRE_ERR_INVAL);
	assert_int_equal(wire_info_decode_conn(&c, 4, NULL, 4), WIRE_ERR_INVAL);
	assert_int_equal(wire_info_encode_conn(&c, 0, buf, sizeof(buf)), WIRE_ERR_INVAL);
	assert_int_equal(wire_info_decode(&it, 10009, buf, sizeof(buf)), WIRE_ERR_UNSUPP);
	memset(&it, 0, sizeof(it));
	it.opt = 10010;
	assert_int_equal(wire_info_encode(&it, buf, sizeof(buf)), WIRE_ERR_UNSUPP);
}

/* rds_info_getsockopt(): the answers a caller sees. */
static void test_info_answer(void **state)
{
	size_t optlen;

	(void)state;
	/* size probe with three connections */
	optlen = 1;
	assert_int_equal(wire_info_answer(3, WIRE_INFO_CONN_LEN, 0, &optlen), -ENOSPC);
	assert_int_equal(optlen, 3 * WIRE_INFO_CONN_LEN);
	/* probe of an empty list: no ENOSPC, the item size, length 0 */
	optlen = 1;
	assert_int_equal(wire_info_answer(0, WIRE_INFO_CONN_LEN, 0, &optlen),
			 WIRE_INFO_CONN_LEN);
	assert_int_equal(optlen, 0);
	/* exact and larger buffers; a buffer that is not a multiple is fine */
	assert_int_equal(wire_info_answer(3, 42, 126, &optlen), 42);
	assert_int_equal(optlen, 126);
	assert_int_equal(wire_info_answer(3, 42, 1000, &optlen), 42);
	assert_int_equal(optlen, 126);
	/* one byte short */
	assert_int_equal(wire_info_answer(3, 42, 125, &optlen), -ENOSPC);
	assert_int_equal(optlen, 126);
	/* lengths the kernel refuses before looking at the list */
	optlen = 7;
	assert_int_equal(wire_info_answer(1, 40, (size_t)INT_MAX - 4095 + 1, &optlen), -EINVAL);
	assert_int_equal(optlen, 7);
	assert_int_equal(wire_info_answer(1, 40, (size_t)INT_MAX - 4095, &optlen), 40);
	/* nothing registered */
	assert_int_equal(wire_info_answer(1, wire_info_item_size(10002), 100, &optlen),
			 -ENOPROTOOPT);
	assert_int_equal(optlen, 40);
	assert_int_equal(wire_info_answer(1, 40, 40, NULL), WIRE_ERR_INVAL);
	/* no wrap: a product past INT_MAX asks for more than any buffer */
	assert_int_equal(wire_info_answer(SIZE_MAX / 2, 92, 4096, &optlen), -ENOSPC);
	assert_int_equal(optlen, INT_MAX);
}

static void test_info_counter_names(void **state)
{
	const char *const *n;
	size_t k;

	(void)state;
	k = wire_info_counter_names(WIRE_INFO_CTRS_CORE, WIRE_KVER_6, &n);
	assert_int_equal(k, 36);
	assert_string_equal(n[0], "conn_reset");
	assert_string_equal(n[24], "send_pong");
	assert_string_equal(n[35], "send_stuck_rm");
	k = wire_info_counter_names(WIRE_INFO_CTRS_CORE, WIRE_KVER_7, &n);
	assert_int_equal(k, 37);
	assert_string_equal(n[36], "mprds_catchup_tx0_retries");
	assert_int_equal(wire_info_counter_names(WIRE_INFO_CTRS_CORE, WIRE_KVER_ALL, &n), 37);
	k = wire_info_counter_names(WIRE_INFO_CTRS_TCP, WIRE_KVER_6, &n);
	assert_int_equal(k, 5);
	assert_string_equal(n[0], "tcp_data_ready_calls");
	assert_string_equal(n[4], "tcp_listen_closed_stale");
	k = wire_info_counter_names(WIRE_INFO_CTRS_IB, WIRE_KVER_7, &n);
	assert_int_equal(k, 39);
	assert_string_equal(n[0], "ib_connect_raced");
	assert_string_equal(n[38], "ib_atomic_fadd");
	for (int set = WIRE_INFO_CTRS_CORE; set <= WIRE_INFO_CTRS_IB; set++) {
		k = wire_info_counter_names((enum wire_info_ctrs)set, WIRE_KVER_7, &n);
		for (size_t i = 0; i < k; i++)
			assert_true(strlen(n[i]) < WIRE_INFO_NAME_LEN);
	}
	assert_int_equal(wire_info_counter_names((enum wire_info_ctrs)9, WIRE_KVER_7, &n), 0);
	assert_null(n);
	assert_int_equal(wire_info_counter_names(WIRE_INFO_CTRS_TCP, WIRE_KVER_7, NULL), 0);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_info_conn_v4_known_answer),
	cmocka_unit_test(test_info_conn_v6_matches_v4),
	cmocka_unit_test(test_info_msg_v4_known_answer),
	cmocka_unit_test(test_info_sock_v4_known_answer),
	cmocka_unit_test(test_info_tcp_sock_v4_known_answer),
	cmocka_unit_test(test_info_rdma_conn_v4_keeps_padding),
	cmocka_unit_test(test_info_counter_known_answer),
	cmocka_unit_test(test_info_decode_encode_identity),
	cmocka_unit_test(test_info_truncated_at_every_offset),
	cmocka_unit_test(test_info_table),
	cmocka_unit_test(test_info_uapi_conn),
	cmocka_unit_test(test_info_uapi_msg),
	cmocka_unit_test(test_info_uapi_sock),
	cmocka_unit_test(test_info_uapi_tcp_sock),
	cmocka_unit_test(test_info_uapi_rdma_conn),
	cmocka_unit_test(test_info_uapi_counter),
	cmocka_unit_test(test_info_iter),
	cmocka_unit_test(test_info_iter_malformed_lengths),
	cmocka_unit_test(test_info_bad_arguments),
	cmocka_unit_test(test_info_answer),
	cmocka_unit_test(test_info_counter_names))
