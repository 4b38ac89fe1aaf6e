// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_ipfrag.c - what wire_ipfrag_decode() gives of IPv4 and IPv6 fragments. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

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

static void decode(const char *hex, uint8_t *b, size_t cap, struct wire_pkt *p, size_t *n)
{
	*n = hex_decode(hex, b, cap);
	wire_pkt_decode(p, WIRE_LINK_RAW, b, *n, *n);
}

static void test_ipfrag_v4_first(void **state)
{
	uint8_t b[128];
	struct wire_pkt p;
	struct wire_ipfrag f;
	size_t n;

	(void)state;
	decode(v4, b, sizeof(b), &p, &n);
	assert_true(p.ip_fragment);
	assert_int_equal(wire_ipfrag_decode(&f, &p), 0);
	assert_int_equal(f.id, 0x4242);
	assert_int_equal(f.offset, 0);
	assert_true(f.more);
	assert_int_equal(f.proto, 6);
	assert_int_equal(f.hdr_len, 20);
	assert_ptr_equal(f.hdr, b);
	assert_int_equal(f.data_len, 16);       /* 20 cut to a multiple of 8 */
	assert_ptr_equal(f.data, b + 20);
	/* the last fragment keeps every byte */
	b[6] = 0x00;
	b[7] = 0x02;
	assert_int_equal(wire_pkt_decode(&p, WIRE_LINK_RAW, b, n, n), 0);
	assert_int_equal(wire_ipfrag_decode(&f, &p), 0);
	assert_false(f.more);
	assert_int_equal(f.offset, 16);
	assert_int_equal(f.data_len, 20);
}

static void test_ipfrag_v4_bad(void **state)
{
	uint8_t b[128];
	struct wire_pkt p;
	struct wire_ipfrag f;
	size_t n;

	(void)state;
	decode(v4, b, sizeof(b), &p, &n);
	/* captured short of its length: cannot be put back */
	assert_int_equal(wire_pkt_decode(&p, WIRE_LINK_RAW, b, n - 5, n), WIRE_ERR_TRUNC);
	assert_true(p.ip_fragment);
	assert_int_equal(wire_ipfrag_decode(&f, &p), WIRE_ERR_TRUNC);
	/* offset 8191 * 8 + 20 bytes: past 65535 */
	b[6] = 0x1f;
	b[7] = 0xff;
	assert_int_equal(wire_pkt_decode(&p, WIRE_LINK_RAW, b, n, n), 0);
	assert_int_equal(wire_ipfrag_decode(&f, &p), WIRE_ERR_MALFORMED);
	/* more to come with fewer than 8 bytes: nothing left */
	decode(v4, b, sizeof(b), &p, &n);
	b[3] = 20 + 7;
	assert_int_equal(wire_pkt_decode(&p, WIRE_LINK_RAW, b, 27, 27), WIRE_ERR_TRUNC);
	assert_true(p.ip_fragment);
	assert_int_equal(wire_ipfrag_decode(&f, &p), WIRE_ERR_MALFORMED);
	/* not a fragment */
	decode(v4, b, sizeof(b), &p, &n);
	b[6] = 0x40;
	assert_int_equal(wire_pkt_decode(&p, WIRE_LINK_RAW, b, n, n), 0);
	assert_int_equal(wire_ipfrag_decode(&f, &p), WIRE_ERR_INVAL);
	assert_int_equal(wire_ipfrag_decode(NULL, &p), WIRE_ERR_INVAL);
}

static void test_ipfrag_v6(void **state)
{
	uint8_t b[128];
	struct wire_pkt p;
	struct wire_ipfrag f;
	size_t n;

	(void)state;
	decode(v6, b, sizeof(b), &p, &n);
	assert_int_equal(n, 40 + 32);
	assert_true(p.ip_fragment && !p.ip_first_fragment);
	assert_int_equal(wire_ipfrag_decode(&f, &p), 0);
	assert_int_equal(f.id, 0x01020304);
	assert_int_equal(f.offset, 8);
	assert_true(f.more);
	assert_int_equal(f.proto, 6);
	assert_int_equal(f.hdr_len, 40);
	assert_int_equal(f.data_len, 16);
	assert_ptr_equal(f.data, b + 56);
	/* more to come and 15 bytes: a parameter problem to a kernel */
	b[5] = 0x1f;
	assert_int_equal(wire_pkt_decode(&p, WIRE_LINK_RAW, b, n - 1, n - 1), 0);
	assert_int_equal(wire_ipfrag_decode(&f, &p), WIRE_ERR_MALFORMED);
	/* the last fragment may end anywhere */
	b[51] = 0x08;
	assert_int_equal(wire_pkt_decode(&p, WIRE_LINK_RAW, b, n - 1, n - 1), 0);
	assert_int_equal(wire_ipfrag_decode(&f, &p), 0);
	assert_false(f.more);
	assert_int_equal(f.data_len, 15);
}

/* Cut at every length: never a read past the end, never data that was
 * not captured. */
static void test_ipfrag_cut_everywhere(void **state)
{
	uint8_t b[128];
	struct wire_pkt p;
	struct wire_ipfrag f;
	size_t n;

	(void)state;
	for (int v = 0; v < 2; v++) {
		n = hex_decode(v ? v6 : v4, b, sizeof(b));
		for (size_t cut = 1; cut < n; cut++) {
			uint8_t *c = malloc(cut);
			bool ok;

			memcpy(c, b, cut);
			wire_pkt_decode(&p, WIRE_LINK_RAW, c, cut, n);
			ok = p.ip_fragment && wire_ipfrag_decode(&f, &p) == 0;
			ok = ok && (size_t)(f.data - c) + f.data_len > cut;
			free(c);
			assert_false(ok);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipfrag_v4_first),
		cmocka_unit_test(test_ipfrag_v4_bad),
		cmocka_unit_test(test_ipfrag_v6),
		cmocka_unit_test(test_ipfrag_cut_everywhere),
	};
	return cmocka_run_group_tests_name("wire_ipfrag", tests, NULL, NULL);
}
