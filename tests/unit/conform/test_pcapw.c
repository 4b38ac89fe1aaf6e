// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_pcapw.c - rds-conform's capture writer: a file with two
 * connections (IPv4 and IPv6) carrying RDS messages, read back with
 * libpcap and libwire: addresses, ports, flags, IP and TCP checksums,
 * sequence and acknowledgement continuity, segment sizes and every
 * payload byte. With an argument FILE it writes the same capture there for
 * tests/cli/conform-pcapw-rdsdump.sh. */
#define _DEFAULT_SOURCE /* libpcap needs u_char; mkstemp */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <pcap/pcap.h>
#include <wire/wire.h>

#include "pcapw.h"

#define BIG 100000  /* a payload that takes two segments */

/* The streams the file carries: [conn][dir]. */
static uint8_t *stream[2][2];
static size_t slen[2][2];

static void append(int c, int dir, const void *b, size_t n)
{
	stream[c][dir] = realloc(stream[c][dir], slen[c][dir] + n);
	assert_non_null(stream[c][dir]);
	memcpy(stream[c][dir] + slen[c][dir], b, n);
	slen[c][dir] += n;
}

/* One RDS message: header and payload, sent on |f| and remembered. */
static void msg(struct cf_pcap *p, struct cf_pcap_flow *f, int c, int dir,
		const struct wire_hdr *h, const uint8_t *pl)
{
	uint8_t *b = malloc(WIRE_HDR_LEN + h->len);

	assert_non_null(b);
	assert_int_equal(wire_hdr_encode(h, b, WIRE_HDR_LEN), WIRE_HDR_LEN);
	if (h->len)
		memcpy(b + WIRE_HDR_LEN, pl, h->len);
	assert_int_equal(cf_pcap_data(p, f, dir, b, WIRE_HDR_LEN + h->len), 0);
	append(c, dir, b, WIRE_HDR_LEN + h->len);
	free(b);
}

static struct rdsu_addr v6(uint8_t last)
{
	struct rdsu_addr a = { { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, last } };

	return a;
}

static void write_capture(const char *path)
{
	static uint8_t big[BIG], text[100];
	struct rdsu_addr a4 = rdsu_addr_v4(0x0a000001), b4 = rdsu_addr_v4(0x0a000002);
	struct rdsu_addr a6 = v6(1), b6 = v6(2);
	struct cf_pcap_flow f0, f1;
	struct wire_cong_map map;
	struct cf_pcap *p;
	struct wire_hdr h;

	for (size_t i = 0; i < BIG; i++)
		big[i] = (uint8_t)(i * 7 + 3);
	for (size_t i = 0; i < sizeof(text); i++)
		text[i] = (uint8_t)('a' + i % 26);
	wire_cong_clear_all(&map);
	wire_cong_set(&map, 4000);
	wire_cong_set(&map, 4001);

	assert_int_equal(cf_pcap_open(&p, path), 0);
	cf_pcap_flow_init(&f0, &a4, 40000, &b4, WIRE_TCP_PORT);
	cf_pcap_flow_init(&f1, &a6, 40001, &b6, WIRE_TCP_PORT);
	assert_int_equal(cf_pcap_syn(p, &f0), 0);
	assert_true(f0.open);
	assert_int_equal(cf_pcap_syn(p, &f1), 0);

	wire_build_cong(&h);
	msg(p, &f0, 0, 0, &h, map.bits);
	wire_build_data(&h, 1, 4000, 4001, sizeof(text));
	msg(p, &f0, 0, 0, &h, text);
	wire_build_probe(&h, true, 1, WIRE_KVER_7, 8, 0x12345678);
	msg(p, &f0, 0, 1, &h, NULL);

	wire_build_data(&h, 7, 5000, 5001, BIG);
	msg(p, &f1, 1, 0, &h, big);
	wire_build_cong(&h);
	msg(p, &f1, 1, 1, &h, map.bits);

	assert_int_equal(cf_pcap_fin(p, &f0, 0), 0);
	assert_int_equal(cf_pcap_fin(p, &f0, 1), 0);
	assert_int_equal(cf_pcap_rst(p, &f1, 1), 0);
	assert_false(f1.open);
	cf_pcap_close(p);
}

/* The pseudo-header (|addrs|, then protocol and TCP length) and the
 * segment laid end to end, as the TCP checksum covers them: wire_csum over
 * the whole is 0 when the checksum in it is right. */
static bool tcp_csum_ok(const uint8_t *addrs, size_t alen, const uint8_t *seg, size_t len)
{
	uint8_t *b = malloc(alen + 4 + len);
	bool ok;

	assert_non_null(b);
	memcpy(b, addrs, alen);
	b[alen] = 0;
	b[alen + 1] = 6;
	b[alen + 2] = (uint8_t)(len >> 8);
	b[alen + 3] = (uint8_t)len;
	memcpy(b + alen + 4, seg, len);
	ok = wire_csum(b, alen + 4 + len) == 0;
	free(b);
	return ok;
}

struct side {
	uint32_t isn, next;     /* first and next expected sequence number */
	bool syn, fin;
	uint8_t *got;
	size_t ngot;
};

static void test_pcapw_read_back(void **state)
{
	char path[] = "/tmp/test_pcapw_XXXXXX";
	char errbuf[PCAP_ERRBUF_SIZE];
	int fd = mkstemp(path);
	struct side sd[2][2];
	struct pcap_pkthdr *ph;
	const u_char *data;
	int packets = 0, rsts = 0, big_segs = 0;
	pcap_t *pc;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	write_capture(path);
	memset(sd, 0, sizeof(sd));

	pc = pcap_open_offline(path, errbuf);
	assert_non_null(pc);
	assert_int_equal(pcap_datalink(pc), DLT_RAW);
	while (pcap_next_ex(pc, &ph, &data) == 1) {
		struct wire_pkt k;
		int c, dir;
		struct side *s;
		const uint8_t *tcp, *addrs;
		size_t tcplen, alen;

		packets++;
		assert_int_equal(ph->caplen, ph->len);
		assert_int_equal(wire_pkt_decode(&k, WIRE_LINK_RAW, data, ph->caplen, ph->len), 0);
		assert_int_equal(k.l4, WIRE_L4_TCP);
		assert_int_equal(k.tcp_window, 65535);
		/* which connection and side: by port, then by address */
		c = (k.sport == 40001 || k.dport == 40001);
		dir = k.sport == WIRE_TCP_PORT;
		assert_int_equal(k.l3, c ? WIRE_L3_IPV6 : WIRE_L3_IPV4);
		assert_int_equal(dir ? k.sport : k.dport, WIRE_TCP_PORT);
		assert_int_equal(dir ? k.dport : k.sport, 40000 + c);
		if (c == 0) {
			static const uint8_t a[4] = { 10, 0, 0, 1 }, b[4] = { 10, 0, 0, 2 };

			assert_memory_equal(k.src, dir ? b : a, 4);
			assert_memory_equal(k.dst, dir ? a : b, 4);
			assert_int_equal(wire_csum(data, 20), 0);
			tcp = data + 20;
			addrs = data + 12;
			alen = 8;
		} else {
			assert_int_equal(k.src[15], dir ? 2 : 1);
			assert_int_equal(k.dst[15], dir ? 1 : 2);
			assert_int_equal(k.src[0], 0xfd);
			tcp = data + 40;
			addrs = data + 8;
			alen = 32;
		}
		tcplen = ph->caplen - (size_t)(tcp - data);
		assert_int_equal(tcplen, 20 + k.payload_len);
		assert_true(tcp_csum_ok(addrs, alen, tcp, tcplen));
		assert_true(k.payload_len <= 65000);
		big_segs += k.payload_len == 65000;

		s = &sd[c][dir];
		if (k.tcp_flags & WIRE_TCP_SYN) {
			assert_false(s->syn);
			assert_int_equal(k.payload_len, 0);
			assert_int_equal(k.tcp_flags, dir ? 0x12 : 0x02);
			if (dir)
				assert_int_equal(k.tcp_ack, sd[c][0].next);
			s->syn = true;
			s->isn = k.tcp_seq;
			s->next = k.tcp_seq + 1;
			continue;
		}
		assert_true(s->syn);
		assert_false(s->fin);
		/* every later segment continues its side and acks the other */
		assert_int_equal(k.tcp_seq, s->next);
		assert_true(k.tcp_flags & WIRE_TCP_ACK);
		assert_int_equal(k.tcp_ack, sd[c][!dir].next);
		if (k.tcp_flags & WIRE_TCP_RST) {
			rsts++;
			continue;
		}
		if (k.payload_len) {
			assert_int_equal(k.tcp_flags, 0x18);
			s->got = realloc(s->got, s->ngot + k.payload_len);
			memcpy(s->got + s->ngot, k.payload, k.payload_len);
			s->ngot += k.payload_len;
			s->next += (uint32_t)k.payload_len;
		}
		if (k.tcp_flags & WIRE_TCP_FIN) {
			s->fin = true;
			s->next++;
		}
	}
	pcap_close(pc);
	unlink(path);

	/* SYN, SYN-ACK, ACK twice; cong, data, probe pong; data in two
	 * segments, cong; FIN twice, RST */
	assert_int_equal(packets, 6 + 3 + 3 + 3);
	assert_int_equal(rsts, 1);
	assert_int_equal(big_segs, 1);
	assert_true(sd[0][0].fin && sd[0][1].fin && !sd[1][0].fin && !sd[1][1].fin);
	for (int c = 0; c < 2; c++) {
		assert_true(sd[c][0].isn != sd[c][1].isn);
		for (int dir = 0; dir < 2; dir++) {
			struct wire_deframer d;
			struct wire_frame fr;
			size_t off = 0, n = 0;

			assert_int_equal(sd[c][dir].ngot, slen[c][dir]);
			assert_memory_equal(sd[c][dir].got, stream[c][dir], slen[c][dir]);
			/* and the stream frames into the messages written */
			assert_int_equal(wire_deframer_init(&d, 0, NULL, 0), 0);
			while (off < sd[c][dir].ngot) {
				bool ready = false;
				ssize_t r = wire_deframer_input(&d, sd[c][dir].got + off,
								sd[c][dir].ngot - off, &fr, &ready);

				assert_true(r > 0 && ready);
				off += (size_t)r;
				n++;
			}
			assert_int_equal(n, c == 0 && dir == 0 ? 2 : 1);
			free(sd[c][dir].got);
		}
	}
	for (int c = 0; c < 2; c++)
		for (int dir = 0; dir < 2; dir++) {
			free(stream[c][dir]);
			stream[c][dir] = NULL;
			slen[c][dir] = 0;
		}
}

static void test_pcapw_errors(void **state)
{
	struct rdsu_addr a4 = rdsu_addr_v4(0x0a000001), b6 = v6(2);
	struct cf_pcap_flow f;
	struct cf_pcap *p = (struct cf_pcap *)1;
	uint8_t x = 0;

	(void)state;
	assert_int_equal(cf_pcap_open(&p, "/nonexistent-dir/x.pcap"), -2 /* -ENOENT */);
	assert_null(p);
	cf_pcap_close(NULL);
	assert_int_equal(cf_pcap_open(&p, "/dev/null"), 0);
	cf_pcap_flow_init(&f, &a4, 1, &b6, 2);
	assert_true(cf_pcap_syn(p, &f) < 0);        /* mixed families */
	cf_pcap_flow_init(&f, &a4, 1, &a4, 2);
	assert_true(cf_pcap_data(p, &f, 2, &x, 1) < 0);
	assert_true(cf_pcap_fin(p, &f, -1) < 0);
	assert_int_equal(cf_pcap_data(p, &f, 0, &x, 0), 0);
	cf_pcap_close(p);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pcapw_read_back),
		cmocka_unit_test(test_pcapw_errors),
	};

	if (argc == 2) {
		write_capture(argv[1]);
		return 0;
	}
	return cmocka_run_group_tests_name("conform_pcapw", tests, NULL, NULL);
}
