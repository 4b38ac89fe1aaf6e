// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_pkt.c - link, IP and TCP/UDP layers of captured frames. */
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

/* Ethernet, IPv4 10.199.0.3 -> 10.199.0.2, TCP 32776 -> 16385 with a
 * 12-byte timestamp option, 48 bytes of payload (an RDS ping header). */
static const char eth_tcp[] =
	"52540000c701 52540000c702 0800"
	"45 00 0064 1234 4000 40 06 0000 0ac70003 0ac70002"
	"8008 4001 00000064 000000c8 80 18 01f6 0000 0000"
	"0101080a 00000001 00000002"
	"0000000000000001 0000000000000000 00000000 0fa0 0000"
	"00 00 00000000 0000 00000000000000000000000000000000";

static size_t load(const char *hex, uint8_t *b, size_t cap)
{
	return hex_decode(hex, b, cap);
}

static void test_pkt_ethernet_ipv4_tcp(void **state)
{
	uint8_t b[256];
	size_t n = load(eth_tcp, b, sizeof(b));
	struct wire_pkt p;
	struct wire_hdr h;

	(void)state;
	assert_int_equal(n, 14 + 100);
	assert_int_equal(wire_pkt_decode(&p, WIRE_LINK_ETHERNET, b, n, n), 0);
	assert_int_equal(p.l3, WIRE_L3_IPV4);
	assert_int_equal(p.ethertype, 0x0800);
	assert_memory_equal(p.src, "\x0a\xc7\x00\x03", 4);
	assert_memory_equal(p.dst, "\x0a\xc7\x00\x02", 4);
	assert_int_equal(p.l4, WIRE_L4_TCP);
	assert_int_equal(p.sport, 32776);
	assert_int_equal(p.dport, WIRE_TCP_PORT);
	assert_int_equal(p.tcp_seq, 100);
	assert_int_equal(p.tcp_ack, 200);
	assert_int_equal(p.tcp_flags, WIRE_TCP_ACK | WIRE_TCP_PSH);
	assert_int_equal(p.payload_len, 48);
	assert_int_equal(p.payload_caplen, 48);
	assert_ptr_equal(p.l3_hdr, b + 14);
	assert_int_equal(wire_hdr_decode(&h, p.payload, p.payload_caplen), WIRE_HDR_LEN);
	assert_int_equal(h.sport, 4000);
	assert_int_equal(wire_classify(&h, WIRE_XPORT_TCP), WIRE_KIND_PING);
}

static void test_pkt_padding_is_not_payload(void **state)
{
	uint8_t b[256];
	size_t n = load(eth_tcp, b, sizeof(b));
	struct wire_pkt p;

	(void)state;
	memset(b + n, 0xee, 10); /* Ethernet trailer */
	assert_int_equal(wire_pkt_decode(&p, WIRE_LINK_ETHERNET, b, n + 10, n + 10), 0);
	assert_int_equal(p.payload_len, 48);
	assert_int_equal(p.payload_caplen, 48);
}

static void test_pkt_truncated_every_offset(void **state)
{
	uint8_t b[256];
	size_t n = load(eth_tcp, b, sizeof(b));

	(void)state;
	for (size_t cap = 0; cap < n; cap++) {
		uint8_t *copy = malloc(cap ? cap : 1);
		struct wire_pkt p;
		int rc;

		memcpy(copy, b, cap);
		rc = wire_pkt_decode(&p, WIRE_LINK_ETHERNET, copy, cap, n);
		free(copy);
		if (cap < 14 + 20 + 32) {
			assert_int_equal(rc, WIRE_ERR_TRUNC);
		} else {
			/* headers complete: the payload is what was captured */
			assert_int_equal(rc, 0);
			assert_int_equal(p.payload_len, 48);
			assert_int_equal(p.payload_caplen, cap - 66);
		}
	}
}

static void test_pkt_vlan_and_malformed(void **state)
{
	uint8_t b[300], v[300];
	size_t n = load(eth_tcp, b, sizeof(b));
	struct wire_pkt p;

	(void)state;
	/* two VLAN tags in front of the IPv4 ethertype */
	memcpy(v, b, 12);
	memcpy(v + 12, "\x88\xa8\x00\x0a\x81\x00\x00\x14", 8);
	memcpy(v + 20, b + 12, n - 12);
	assert_int_equal(wire_pkt_decode(&p, WIRE_LINK_ETHERNET, v, n + 8, n + 8), 0);
	assert_int_equal(p.vlans, 2);
	assert_int_equal(p.l4, WIRE_L4_TCP);
	/* IHL 4 */
	memcpy(v, b, n);
	v[14] = 0x44;
	assert_int_equal(wire_pkt_decode(&p, WIRE_LINK_ETHERNET, v, n, n), WIRE_ERR_MALFORMED);
	/* TCP data offset 4 */
	memcpy(v, b, n);
	v[14 + 20 + 12] = 0x40;
	assert_int_equal(wire_pkt_decode(&p, WIRE_LINK_ETHERNET, v, n, n), WIRE_ERR_MALFORMED);
	/* total length beyond the frame that was on the wire */
	memcpy(v, b, n);
	v[17] = 0x80;
	assert_int_equal(wire_pkt_decode(&p, WIRE_LINK_ETHERNET, v, n, n), WIRE_ERR_MALFORMED);
	/* ARP: not IP, decodes to l3 NONE */
	memcpy(v, b, n);
	v[12] = 0x08;
	v[13] = 0x06;
	assert_int_equal(wire_pkt_decode(&p, WIRE_LINK_ETHERNET, v, n, n), 0);
	assert_int_equal(p.l3, WIRE_L3_NONE);
	assert_int_equal(wire_pkt_decode(&p, 9999, v, n, n), WIRE_ERR_UNSUPP);
}

static void test_pkt_fragments(void **state)
{
	uint8_t b[256];
	size_t n = load(eth_tcp, b, sizeof(b));
	struct wire_pkt p;

	(void)state;
	b[20] = 0x20; /* MF, offset 0: the first fragment carries TCP */
	b[21] = 0x00;
	assert_int_equal(wire_pkt_decode(&p, WIRE_LINK_ETHERNET, b, n, n), 0);
	assert_true(p.ip_fragment && p.ip_first_fragment);
	assert_int_equal(p.l4, WIRE_L4_TCP);
	b[20] = 0x00; /* offset 8 bytes: no TCP header here */
	b[21] = 0x01;
	assert_int_equal(wire_pkt_decode(&p, WIRE_LINK_ETHERNET, b, n, n), 0);
	assert_true(p.ip_fragment && !p.ip_first_fragment);
	assert_int_equal(p.l4, WIRE_L4_OTHER);
	assert_int_equal(p.payload_len, 80);
}

static void test_pkt_ipv6_ext_udp(void **state)
{
	/* raw IPv6 with a hop-by-hop header, then UDP 4791 with 4 bytes */
	static const char v6[] =
		"60000000 0014 00 40"
		"fe800000000000000000000000000001 fe800000000000000000000000000002"
		"11 00 0000 00000000"
		"c000 12b7 000c 0000 deadbeef";
	uint8_t b[128];
	size_t n = hex_decode(v6, b, sizeof(b));
	struct wire_pkt p;

	(void)state;
	assert_int_equal(wire_pkt_decode(&p, WIRE_LINK_RAW, b, n, n), 0);
	assert_int_equal(p.l3, WIRE_L3_IPV6);
	assert_int_equal(p.ip_proto, 17);
	assert_int_equal(p.l4, WIRE_L4_UDP);
	assert_int_equal(p.dport, WIRE_ROCE_UDP_PORT);
	assert_int_equal(p.payload_len, 4);
	assert_memory_equal(p.payload, "\xde\xad\xbe\xef", 4);
	for (size_t cap = 0; cap < 40 + 8 + 8; cap++)
		assert_int_equal(wire_pkt_decode(&p, WIRE_LINK_RAW, b, cap, n), WIRE_ERR_TRUNC);
	/* an extension header longer than the payload */
	b[41] = 5;
	assert_int_equal(wire_pkt_decode(&p, WIRE_LINK_RAW, b, n, n), WIRE_ERR_MALFORMED);
}

static void test_pkt_cooked_and_netlink(void **state)
{
	uint8_t e[256], c[300];
	size_t n = load(eth_tcp, e, sizeof(e));
	struct wire_pkt p;
	static const char nl[] =
		"0000 0338 0000 0000000000000000 0014" /* SLL: hatype 824, NETLINK_RDMA */
		"10000000 0010 0100 07000000 00000000";

	(void)state;
	/* SLL v1: pkttype, hatype 1, halen 6, addr, proto 0x0800 */
	memcpy(c, "\x00\x00\x00\x01\x00\x06\x52\x54\x00\x00\xc7\x01\x00\x00\x08\x00", 16);
	memcpy(c + 16, e + 14, n - 14);
	assert_int_equal(wire_pkt_decode(&p, WIRE_LINK_LINUX_SLL, c, n + 2, 0), 0);
	assert_int_equal(p.l4, WIRE_L4_TCP);
	assert_int_equal(p.payload_len, 48);
	/* SLL v2: proto first, then reserved, ifindex, hatype, pkttype, halen, addr */
	memcpy(c, "\x08\x00\x00\x00\x00\x00\x00\x03\x00\x01\x00\x06\x52\x54\x00\x00\xc7\x01\x00\x00",
	       20);
	memcpy(c + 20, e + 14, n - 14);
	assert_int_equal(wire_pkt_decode(&p, WIRE_LINK_LINUX_SLL2, c, n + 6, 0), 0);
	assert_int_equal(p.dport, WIRE_TCP_PORT);
	for (size_t cap = 0; cap < 20; cap++)
		assert_int_equal(wire_pkt_decode(&p, WIRE_LINK_LINUX_SLL2, c, cap, 0), WIRE_ERR_TRUNC);
	/* nlmon */
	n = hex_decode(nl, c, sizeof(c));
	assert_int_equal(wire_pkt_decode(&p, WIRE_LINK_NETLINK, c, n, n), 0);
	assert_int_equal(p.l3, WIRE_L3_NETLINK);
	assert_int_equal(p.sll_proto, 20);
	assert_int_equal(p.payload_len, 16);
	/* raw IPv4 */
	assert_int_equal(wire_pkt_decode(&p, WIRE_LINK_IPV4, e + 14, 100, 0), 0);
	assert_int_equal(p.l4, WIRE_L4_TCP);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_pkt_ethernet_ipv4_tcp),
	cmocka_unit_test(test_pkt_padding_is_not_payload),
	cmocka_unit_test(test_pkt_truncated_every_offset),
	cmocka_unit_test(test_pkt_vlan_and_malformed),
	cmocka_unit_test(test_pkt_fragments),
	cmocka_unit_test(test_pkt_ipv6_ext_udp),
	cmocka_unit_test(test_pkt_cooked_and_netlink))
