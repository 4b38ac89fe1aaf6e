// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * pcapw.c - rds-conform: byte streams written as a capture of TCP
 * connections (pcapw.h). Ref: RFC 791 (IPv4), RFC 8200 (IPv6), RFC 9293
 * (TCP), RFC 1071 (checksums); LINKTYPE_RAW.
 *
 * Every header is complete and consistent (lengths, checksums, sequence
 * and acknowledgement numbers), so rdsdump, tcpdump and Wireshark follow
 * the connections without complaint: the capture is only as useful as
 * the trust its readers put in it.
 */
#define _DEFAULT_SOURCE /* libpcap needs u_char; clock_gettime */
#include "pcapw.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pcap/pcap.h>
#include <wire/wire.h>

#define SEG_MAX 65000u           /* payload per segment: fits IPv4's 16-bit length */
#define IP4_LEN 20
#define IP6_LEN 40
#define TCP_LEN 20

struct cf_pcap {
	pcap_t *dead;
	pcap_dumper_t *d;
	uint16_t ip_id;
	struct timeval last;
	uint8_t pkt[IP6_LEN + TCP_LEN + SEG_MAX];
};

void cf_pcap_close(struct cf_pcap *p)
{
	if (!p)
		return;
	if (p->d)
		pcap_dump_close(p->d);
	if (p->dead)
		pcap_close(p->dead);
	free(p);
}

int cf_pcap_open(struct cf_pcap **out, const char *path)
{
	struct cf_pcap *p = calloc(1, sizeof(*p));
	int err = -ENOMEM;

	*out = NULL;
	if (!p)
		return -ENOMEM;
	p->dead = pcap_open_dead(DLT_RAW, 65535);
	if (!p->dead)
		goto err;
	errno = 0;
	p->d = pcap_dump_open(p->dead, path);
	if (!p->d) {
		err = errno ? -errno : -EIO;
		goto err;
	}
	*out = p;
	return 0;
err:
	cf_pcap_close(p);
	return err;
}

/* A deterministic initial sequence number per side, different for each
 * address and port pair, so that two files of the same exchange compare
 * equal but two connections in one file are told apart. */
static uint32_t isn(const struct rdsu_addr *a, uint16_t aport, const struct rdsu_addr *b,
		    uint16_t bport)
{
	uint32_t h = 2166136261u;

	for (int i = 0; i < 16; i++)
		h = (h ^ a->a[i]) * 16777619u;
	for (int i = 0; i < 16; i++)
		h = (h ^ b->a[i]) * 16777619u;
	h = (h ^ aport) * 16777619u;
	h = (h ^ bport) * 16777619u;
	return h;
}

void cf_pcap_flow_init(struct cf_pcap_flow *f, const struct rdsu_addr *a, uint16_t aport,
		       const struct rdsu_addr *b, uint16_t bport)
{
	memset(f, 0, sizeof(*f));
	f->a = *a;
	f->b = *b;
	f->aport = aport;
	f->bport = bport;
	f->seq[0] = isn(a, aport, b, bport);
	f->seq[1] = isn(b, bport, a, aport);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* The TCP checksum over the pseudo-header (|addrs|: source then
 * destination, |alen| bytes; then the protocol and the TCP length) and the
 * segment. One's-complement sums of even-length parts add (RFC 1071), so
 * wire_csum's sum of each part, uncomplemented, is summed once more. */
static uint16_t tcp_csum(const uint8_t *addrs, size_t alen, const uint8_t *seg, size_t len)
{
	uint8_t tail[4] = { 0, 6, (uint8_t)(len >> 8), (uint8_t)len }, parts[6];

	put16(parts, (uint16_t)~wire_csum(addrs, alen));
	put16(parts + 2, (uint16_t)~wire_csum(tail, sizeof(tail)));
	put16(parts + 4, (uint16_t)~wire_csum(seg, len));
	return wire_csum(parts, sizeof(parts));
}

/* Stamps never go backwards, even if the wall clock does: readers order
 * packets by them. */
static struct timeval stamp(struct cf_pcap *p)
{
	struct timespec ts;
	struct timeval tv;

	clock_gettime(CLOCK_REALTIME, &ts);
	tv.tv_sec = ts.tv_sec;
	tv.tv_usec = ts.tv_nsec / 1000;
	if (tv.tv_sec < p->last.tv_sec ||
	    (tv.tv_sec == p->last.tv_sec && tv.tv_usec <= p->last.tv_usec)) {
		tv = p->last;
		if (++tv.tv_usec == 1000000) {
			tv.tv_sec++;
			tv.tv_usec = 0;
		}
	}
	p->last = tv;
	return tv;
}

/* One segment from side |dir| with |flags|, carrying |len| bytes. */
static int segment(struct cf_pcap *p, const struct cf_pcap_flow *f, int dir, uint8_t flags,
		   uint32_t seq, uint32_t ack, const void *data, size_t len)
{
	const struct rdsu_addr *src = dir ? &f->b : &f->a, *dst = dir ? &f->a : &f->b;
	bool v4 = rdsu_addr_is_v4(src);
	size_t ip = v4 ? IP4_LEN : IP6_LEN, tcplen = TCP_LEN + len;
	uint8_t *h = p->pkt, *t = p->pkt + ip;
	struct pcap_pkthdr ph;

	if (v4 != rdsu_addr_is_v4(dst) || len > SEG_MAX)
		return -EINVAL;
	memset(h, 0, ip + TCP_LEN);
	if (v4) {
		h[0] = 0x45;
		put16(h + 2, (uint16_t)(ip + tcplen));
		put16(h + 4, p->ip_id++);
		put16(h + 6, 0x4000);   /* DF, as Linux sends TCP */
		h[8] = 64;
		h[9] = 6;
		memcpy(h + 12, src->a + 12, 4);
		memcpy(h + 16, dst->a + 12, 4);
		put16(h + 10, wire_csum(h, IP4_LEN));
	} else {
		h[0] = 0x60;
		put16(h + 4, (uint16_t)tcplen);
		h[6] = 6;
		h[7] = 64;
		memcpy(h + 8, src->a, 16);
		memcpy(h + 24, dst->a, 16);
	}
	put16(t, dir ? f->bport : f->aport);
	put16(t + 2, dir ? f->aport : f->bport);
	put32(t + 4, seq);
	put32(t + 8, ack);
	t[12] = (TCP_LEN / 4) << 4;
	t[13] = flags;
	put16(t + 14, 65535);
	if (len)
		memcpy(t + TCP_LEN, data, len);
	put16(t + 16, v4 ? tcp_csum(h + 12, 8, t, tcplen) : tcp_csum(h + 8, 32, t, tcplen));

	ph.ts = stamp(p);
	ph.caplen = ph.len = (bpf_u_int32)(ip + tcplen);
	pcap_dump((u_char *)p->d, &ph, p->pkt);
	return ferror(pcap_dump_file(p->d)) ? -EIO : 0;
}

int cf_pcap_packet(struct cf_pcap *p, const void *pkt, size_t len)
{
	struct pcap_pkthdr ph;

	if (len > sizeof(p->pkt))
		return -EINVAL;
	ph.ts = stamp(p);
	ph.caplen = ph.len = (bpf_u_int32)len;
	pcap_dump((u_char *)p->d, &ph, pkt);
	return ferror(pcap_dump_file(p->d)) ? -EIO : 0;
}

enum { TH_FIN = 0x01, TH_SYN = 0x02, TH_RST = 0x04, TH_PSH = 0x08, TH_ACK = 0x10 };

/* The next segment from side |dir| of the flow: at that side's sequence
 * number, acknowledging the other side's unless it is the first SYN; then
 * the side moves on by what takes sequence numbers (data, SYN, FIN). */
static int next_seg(struct cf_pcap *p, struct cf_pcap_flow *f, int dir, uint8_t flags,
		    const void *data, size_t len)
{
	int rc;

	if (dir != 0 && dir != 1)
		return -EINVAL;
	rc = segment(p, f, dir, flags, f->seq[dir], flags & TH_ACK ? f->seq[!dir] : 0, data, len);
	if (rc)
		return rc;
	f->seq[dir] += (uint32_t)len + (flags & (TH_SYN | TH_FIN) ? 1 : 0);
	return 0;
}

int cf_pcap_syn(struct cf_pcap *p, struct cf_pcap_flow *f)
{
	int rc = next_seg(p, f, 0, TH_SYN, NULL, 0);

	if (!rc)
		rc = next_seg(p, f, 1, TH_SYN | TH_ACK, NULL, 0);
	if (!rc)
		rc = next_seg(p, f, 0, TH_ACK, NULL, 0);
	if (!rc)
		f->open = true;
	return rc;
}

int cf_pcap_data(struct cf_pcap *p, struct cf_pcap_flow *f, int dir, const void *buf,
		 size_t len)
{
	const uint8_t *b = buf;

	if (dir != 0 && dir != 1)
		return -EINVAL;
	while (len) {
		size_t n = len < SEG_MAX ? len : SEG_MAX;
		int rc = next_seg(p, f, dir, TH_PSH | TH_ACK, b, n);

		if (rc)
			return rc;
		b += n;
		len -= n;
	}
	return 0;
}

int cf_pcap_fin(struct cf_pcap *p, struct cf_pcap_flow *f, int dir)
{
	return next_seg(p, f, dir, TH_FIN | TH_ACK, NULL, 0);
}

int cf_pcap_rst(struct cf_pcap *p, struct cf_pcap_flow *f, int dir)
{
	int rc = next_seg(p, f, dir, TH_RST | TH_ACK, NULL, 0);

	if (!rc)
		f->open = false;
	return rc;
}
