// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_ipfrag.c - what wire_ipfrag_decode() gives of IPv4 and IPv6 fragments. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "cmain.h"

#include <wire/wire.h>

#include "hex.h"

/* raw IPv4, total 40, id 0x4242, MF, offset 0, TCP; 20 bytes of data */
static const char v4[] =
	"45 00 0028 4242 2000 40 06 0000 0ac70202 0ac70203"
	"9cb2 4001 000003e8 000007d0 5018 01f6 0000 0000";

/* raw IPv6 with a hop-by-hop header, then a fragment header (next TCP,
 * offset 8 bytes, M, id 0x01020304) and 16 bytes of data */
static const char v6[] =
	"60000000 0020 00 40"
	"fd000000000000000000000000000002 fd000000000000000000000000000003"
	"2c 00 0000 00000000"
	"06 00 0009 01020304"
	"00112233445566778899aabbccddeeff";

/* A packet as the tests take it apart: its bytes, wire_pkt_decode()'s view
 * of them and the fragment found there. */
struct frag {
	uint8_t b[128];
	size_t n;
	struct wire_pkt p;
	struct wire_ipfrag f;
};

/* The vector |hex| into |t|, decoded whole. */
static void load(struct frag *t, const char *hex)
{
	t->n = hex_decode(hex, t->b, sizeof(t->b));
	wire_pkt_decode(&t->p, WIRE_LINK_RAW, t->b, t->n, t->n);
}

/* The first |caplen| bytes of |t| (|len| on the wire) decode to |pkt_rc|;
 * return what wire_ipfrag_decode() makes of them. */
static int refrag(struct frag *t, size_t caplen, size_t len, int pkt_rc)
{
	assert_int_equal(wire_pkt_decode(&t->p, WIRE_LINK_RAW, t->b, caplen, len), pkt_rc);
	return wire_ipfrag_decode(&t->f, &t->p);
}

/* The fragment decoded from |t| is |want|: its header starts the packet and
 * its data is |data_off| bytes in. */
static void frag_is(const struct frag *t, const struct wire_ipfrag *want, size_t data_off)
{
	assert_int_equal(t->f.id, want->id);
	assert_int_equal(t->f.offset, want->offset);
	assert_int_equal(t->f.more, want->more);
	assert_int_equal(t->f.proto, want->proto);
	assert_ptr_equal(t->f.hdr, t->b);
	assert_int_equal(t->f.hdr_len, want->hdr_len);
	assert_ptr_equal(t->f.data, t->b + data_off);
	assert_int_equal(t->f.data_len, want->data_len);
}

static void test_ipfrag_v4_first(void **state)
{
	struct frag t;

	(void)state;
	load(&t, v4);
	assert_true(t.p.ip_fragment);
	assert_int_equal(wire_ipfrag_decode(&t.f, &t.p), 0);
	/* 20 bytes of data cut to a multiple of 8 */
	frag_is(&t, &(struct wire_ipfrag){ .id = 0x4242, .offset = 0, .more = true, .proto = 6,
					   .hdr_len = 20, .data_len = 16 }, 20);
	/* the last fragment keeps every byte */
	t.b[6] = 0x00;
	t.b[7] = 0x02;
	assert_int_equal(refrag(&t, t.n, t.n, 0), 0);
	frag_is(&t, &(struct wire_ipfrag){ .id = 0x4242, .offset = 16, .more = false, .proto = 6,
					   .hdr_len = 20, .data_len = 20 }, 20);
}

static void test_ipfrag_v4_bad(void **state)
{
	struct frag t;

	(void)state;
	load(&t, v4);
	/* captured short of its length: cannot be put back */
	assert_int_equal(refrag(&t, t.n - 5, t.n, WIRE_ERR_TRUNC), WIRE_ERR_TRUNC);
	assert_true(t.p.ip_fragment);
	/* offset 8191 * 8 + 20 bytes: past 65535 */
	t.b[6] = 0x1f;
	t.b[7] = 0xff;
	assert_int_equal(refrag(&t, t.n, t.n, 0), WIRE_ERR_MALFORMED);
	/* more to come with fewer than 8 bytes: nothing left */
	load(&t, v4);
	t.b[3] = 20 + 7;
	assert_int_equal(refrag(&t, 27, 27, WIRE_ERR_TRUNC), WIRE_ERR_MALFORMED);
	assert_true(t.p.ip_fragment);
	/* not a fragment */
	load(&t, v4);
	t.b[6] = 0x40;
	assert_int_equal(refrag(&t, t.n, t.n, 0), WIRE_ERR_INVAL);
	assert_int_equal(wire_ipfrag_decode(NULL, &t.p), WIRE_ERR_INVAL);
}

static void test_ipfrag_v6(void **state)
{
	struct frag t;

	(void)state;
	load(&t, v6);
	assert_int_equal(t.n, 40 + 32);
	assert_true(t.p.ip_fragment && !t.p.ip_first_fragment);
	assert_int_equal(wire_ipfrag_decode(&t.f, &t.p), 0);
	frag_is(&t, &(struct wire_ipfrag){ .id = 0x01020304, .offset = 8, .more = true,
					   .proto = 6, .hdr_len = 40, .data_len = 16 }, 56);
	/* more to come and 15 bytes: a parameter problem to a kernel */
	t.b[5] = 0x1f;
	assert_int_equal(refrag(&t, t.n - 1, t.n - 1, 0), WIRE_ERR_MALFORMED);
	/* the last fragment may end anywhere */
	t.b[51] = 0x08;
	assert_int_equal(refrag(&t, t.n - 1, t.n - 1, 0), 0);
	frag_is(&t, &(struct wire_ipfrag){ .id = 0x01020304, .offset = 8, .more = false,
					   .proto = 6, .hdr_len = 40, .data_len = 15 }, 56);
}

/* Cut at every length: never a read past the end, never data that was
 * not captured. */
static void test_ipfrag_cut_everywhere(void **state)
{
	struct frag t;

	(void)state;
	for (int v = 0; v < 2; v++) {
		load(&t, v ? v6 : v4);
		for (size_t cut = 1; cut < t.n; cut++) {
			uint8_t *c = malloc(cut);
			bool ok;

			memcpy(c, t.b, cut);
			wire_pkt_decode(&t.p, WIRE_LINK_RAW, c, cut, t.n);
			ok = t.p.ip_fragment && wire_ipfrag_decode(&t.f, &t.p) == 0;
			ok = ok && (size_t)(t.f.data - c) + t.f.data_len > cut;
			free(c);
			assert_false(ok);
		}
	}
}

CMOCKA_MAIN(
	cmocka_unit_test(test_ipfrag_v4_first),
	cmocka_unit_test(test_ipfrag_v4_bad),
	cmocka_unit_test(test_ipfrag_v6),
	cmocka_unit_test(test_ipfrag_cut_everywhere))
