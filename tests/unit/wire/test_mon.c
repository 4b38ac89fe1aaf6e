// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * test_mon.c - the librds monitor protocol: header known answer and
 * refusals, every record's decode/encode identity, truncation at every
 * offset, short values, bad names, maps whose count lies, later fields
 * and unknown records skipped.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "cmain.h"

#include <wire/wire.h>

static void test_mon_hdr(void **state)
{
	static const uint8_t kat[] = { 'R', 'D', 'S', 'M', 1, 2, 0, 0, 0, 0, 0x10, 0x20 };
	struct wire_mon_hdr h = { .version = 1, .type = WIRE_MON_SNAP, .len = 0x1020 }, d;
	uint8_t b[WIRE_MON_HDR_LEN];

	(void)state;
	assert_int_equal(wire_mon_hdr_encode(&h, b, sizeof(b)), WIRE_MON_HDR_LEN);
	assert_memory_equal(b, kat, sizeof(kat));
	assert_int_equal(wire_mon_hdr_encode(&h, b, sizeof(b) - 1), WIRE_ERR_NOSPACE);
	assert_int_equal(wire_mon_hdr_decode(&d, kat, sizeof(kat)), WIRE_MON_HDR_LEN);
	assert_int_equal(d.type, WIRE_MON_SNAP);
	assert_int_equal(d.len, 0x1020);
	for (size_t n = 0; n < sizeof(kat); n++)
		assert_int_equal(wire_mon_hdr_decode(&d, kat, n), WIRE_ERR_TRUNC);
	memcpy(b, kat, sizeof(b));
	b[0] = 'X';
	assert_int_equal(wire_mon_hdr_decode(&d, b, sizeof(b)), WIRE_ERR_MALFORMED);
	memcpy(b, kat, sizeof(b));
	b[4] = 2;
	assert_int_equal(wire_mon_hdr_decode(&d, b, sizeof(b)), WIRE_ERR_UNSUPP);
	h.len = WIRE_MON_MAX_BODY + 1;
	assert_int_equal(wire_mon_hdr_encode(&h, b, sizeof(b)), WIRE_MON_HDR_LEN);
	assert_int_equal(wire_mon_hdr_decode(&d, b, sizeof(b)), WIRE_ERR_TOOBIG);
	assert_int_equal(wire_mon_hdr_decode(NULL, b, sizeof(b)), WIRE_ERR_INVAL);
}

static uint8_t bits[WIRE_CONG_MAP_BYTES];

/* One item of every record type, with every field set. */
static size_t items(struct wire_mon_item *it)
{
	size_t n = 0;

	memset(it, 0, 7 * sizeof(*it));
	it[n].type = WIRE_MON_R_PROC;
	it[n].u.proc = (struct wire_mon_proc){ .pid = 4242, .laddrs = 2, .now_ns = 1ull << 40,
					       .transports = 4, .name = "rdsperf" };
	n++;
	it[n].type = WIRE_MON_R_COUNTER;
	it[n].u.counter = (struct wire_mon_counter){ .group = WIRE_MON_G_TCP,
						     .name = "bytes_in", .value = 77 };
	n++;
	it[n].type = WIRE_MON_R_CONN;
	it[n].u.conn = (struct wire_mon_conn){ .laddr = { [10] = 0xff, [11] = 0xff, 127, 0, 0, 1 },
					       .faddr = { [10] = 0xff, [11] = 0xff, 127, 0, 0, 2 },
					       .transport = 2, .npaths = 8, .my_gen = 9,
					       .peer_gen = 10, .flags = 3, .held_links = 1,
					       .peer_congested = 2 };
	n++;
	it[n].type = WIRE_MON_R_PATH;
	it[n].u.path = (struct wire_mon_path){ .index = 3, .state = 2, .outgoing = 1,
					       .local_sport = 40000, .peer_sport = 16385,
					       .link = 5, .next_tx_seq = 11, .next_rx_seq = 12,
					       .send_q_msgs = 13, .send_q_bytes = 14,
					       .retrans_q_msgs = 15, .retrans_q_bytes = 16,
					       .tx_bytes = 17, .acked_bytes = 18, .rx_bytes = 19,
					       .connects = 20, .resets = 21, .map_queued = 1 };
	n++;
	memset(bits, 0, sizeof(bits));
	bits[0] = 0x81;
	bits[8191] = 0x01;
	it[n].type = WIRE_MON_R_MAP;
	it[n].u.map = (struct wire_mon_map){ .kind = WIRE_MON_MAP_PEER, .count = 3, .bits = bits };
	n++;
	it[n].type = WIRE_MON_R_SOCK;
	it[n].u.sock = (struct wire_mon_sock){ .laddr = { [10] = 0xff, [11] = 0xff, 127, 0, 0, 1 },
					       .port = 4000, .flags = 3, .sndbuf = 1 << 20,
					       .rcvbuf = 1 << 19, .snd_bytes = 100, .rcv_bytes = 200,
					       .rx_msgs = 2 };
	n++;
	it[n].type = WIRE_MON_R_END;
	n++;
	return n;
}

static void test_mon_rec_identity(void **state)
{
	struct wire_mon_item it[7], d;
	static uint8_t b[WIRE_MON_REC_HDR_LEN + WIRE_MON_MAP_LEN + WIRE_CONG_MAP_BYTES + 16];
	static uint8_t b2[sizeof(b)];
	size_t n = items(it);

	(void)state;
	for (size_t i = 0; i < n; i++) {
		ssize_t len = wire_mon_rec_encode(&it[i], b, sizeof(b));

		assert_true(len >= WIRE_MON_REC_HDR_LEN);
		assert_int_equal(wire_mon_rec_encode(&it[i], b2, (size_t)len - 1), WIRE_ERR_NOSPACE);
		assert_int_equal(wire_mon_rec_decode(&d, b, (size_t)len), len);
		assert_int_equal(d.type, it[i].type);
		if (d.type == WIRE_MON_R_MAP) {
			assert_ptr_equal(d.u.map.bits, b + WIRE_MON_REC_HDR_LEN + WIRE_MON_MAP_LEN);
			assert_memory_equal(d.u.map.bits, bits, sizeof(bits));
			assert_int_equal(d.u.map.count, 3);
		} else {
			assert_memory_equal(&d.u, &it[i].u, sizeof(d.u));
		}
		/* the same bytes again */
		assert_int_equal(wire_mon_rec_encode(&d, b2, sizeof(b2)), len);
		assert_memory_equal(b, b2, (size_t)len);
		for (ssize_t k = 0; k < len; k++)
			assert_int_equal(wire_mon_rec_decode(&d, b, (size_t)k), WIRE_ERR_TRUNC);
	}
}

static void test_mon_rec_refused(void **state)
{
	struct wire_mon_item it[7], d;
	static uint8_t b[WIRE_MON_REC_HDR_LEN + WIRE_MON_MAP_LEN + WIRE_CONG_MAP_BYTES];
	ssize_t len;

	(void)state;
	items(it);
	/* a value one byte short of its type's fixed part */
	len = wire_mon_rec_encode(&it[3], b, sizeof(b));
	b[5]--;
	assert_int_equal(wire_mon_rec_decode(&d, b, (size_t)len - 1), WIRE_ERR_MALFORMED);
	/* a name whose length byte runs past its field */
	len = wire_mon_rec_encode(&it[1], b, sizeof(b));
	b[WIRE_MON_REC_HDR_LEN + 1] = WIRE_MON_NAME_LEN + 1;
	assert_int_equal(wire_mon_rec_decode(&d, b, (size_t)len), WIRE_ERR_MALFORMED);
	/* a NUL inside a name */
	len = wire_mon_rec_encode(&it[1], b, sizeof(b));
	b[WIRE_MON_REC_HDR_LEN + 3] = 0;
	assert_int_equal(wire_mon_rec_decode(&d, b, (size_t)len), WIRE_ERR_MALFORMED);
	/* a map whose count is not its bits */
	len = wire_mon_rec_encode(&it[4], b, sizeof(b));
	b[WIRE_MON_REC_HDR_LEN + 1 + 16 + 3]++;
	assert_int_equal(wire_mon_rec_decode(&d, b, (size_t)len), WIRE_ERR_MALFORMED);
	/* a map with a count and no bitmap */
	it[4].u.map.count = 0;
	it[4].u.map.bits = NULL;
	len = wire_mon_rec_encode(&it[4], b, sizeof(b));
	assert_int_equal(len, WIRE_MON_REC_HDR_LEN + WIRE_MON_MAP_LEN);
	b[WIRE_MON_REC_HDR_LEN + 1 + 16 + 3] = 1;
	assert_int_equal(wire_mon_rec_decode(&d, b, (size_t)len), WIRE_ERR_MALFORMED);
	/* the encoder will not write a lying map or a long name */
	it[4].u.map.count = 2;
	it[4].u.map.bits = bits;
	assert_int_equal(wire_mon_rec_encode(&it[4], b, sizeof(b)), WIRE_ERR_INVAL);
	memset(it[1].u.counter.name, 'a', sizeof(it[1].u.counter.name));
	assert_int_equal(wire_mon_rec_encode(&it[1], b, sizeof(b)), WIRE_ERR_INVAL);
	/* an END with a value */
	memcpy(b, (const uint8_t[]){ 0, WIRE_MON_R_END, 0, 0, 0, 1, 0 }, 7);
	assert_int_equal(wire_mon_rec_decode(&d, b, 7), WIRE_ERR_MALFORMED);
	/* unknown types are not written */
	it[0].type = 99;
	assert_int_equal(wire_mon_rec_encode(&it[0], b, sizeof(b)), WIRE_ERR_INVAL);
}

static void test_mon_rec_later_fields(void **state)
{
	struct wire_mon_item it[7], d;
	uint8_t b[256];
	ssize_t len;

	(void)state;
	items(it);
	/* a socket record with four bytes of a later version */
	len = wire_mon_rec_encode(&it[5], b, sizeof(b));
	memset(b + len, 0xee, 4);
	b[5] += 4;
	assert_int_equal(wire_mon_rec_decode(&d, b, (size_t)len + 4), len + 4);
	assert_memory_equal(&d.u.sock, &it[5].u.sock, sizeof(d.u.sock));
	/* an unknown record is skipped whole */
	memcpy(b, (const uint8_t[]){ 0x12, 0x34, 0, 0, 0, 3, 1, 2, 3 }, 9);
	assert_int_equal(wire_mon_rec_decode(&d, b, 9), 9);
	assert_int_equal(d.type, 0x1234);
	assert_int_equal(wire_mon_rec_decode(&d, b, 8), WIRE_ERR_TRUNC);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_mon_hdr),
	cmocka_unit_test(test_mon_rec_identity),
	cmocka_unit_test(test_mon_rec_refused),
	cmocka_unit_test(test_mon_rec_later_fields))
