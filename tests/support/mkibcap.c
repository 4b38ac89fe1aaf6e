// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * mkibcap.c - writes the crafted captures of RDS over native InfiniBand
 * (LINKTYPE_INFINIBAND) and over RoCEv2 (Ethernet) with libwire's
 * encoders, and prints their manifest entries as JSON on stdout for
 * scripts/make-crafted-pcaps.py to merge into pcaps/crafted/manifest.json.
 *
 *     mkibcap OUTDIR
 *
 * Both captures hold the same two conversations, written the same way:
 * each RDS message cut into 4096-byte fragments that carry the full header
 * (as rds_ib_xmit), each fragment one RC SEND cut at a path MTU of 1024.
 * Everything is fixed (no clock, no randomness): a rerun writes the same
 * bytes, which the test crafted-ib-reproducible checks.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wire/wire.h>

#define PMTU 1024
#define SNAPLEN 262144
#define T0 1795996800u  /* 2026-11-30T00:00:00Z */
#define FRAME_MAX (WIRE_IB_LRH_LEN + WIRE_IB_GRH_LEN + PMTU + 64)

enum link { L_IB_LOCAL, L_IB_GLOBAL, L_ROCE4, L_ROCE6 };

/* One side of a conversation: its address (LID, GID or IP), its QP and
 * the PSN of the next packet it sends. */
struct side {
	uint16_t lid;
	uint8_t addr[16];
	uint8_t mac[6];
	uint32_t qpn;
	uint32_t psn;
};

struct conv {
	enum link link;
	struct side s[2];
};

struct cap {
	FILE *f;
	const char *name;
	unsigned linktype;
	unsigned frames;
	uint64_t usec;          /* time of the next frame, from T0 */
	char notes[64][200];
	unsigned nnotes;
};

static void fail(const char *what)
{
	fprintf(stderr, "mkibcap: %s: %s\n", what, strerror(errno ? errno : EIO));
	exit(2);
}

static void put32le(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void cap_open(struct cap *c, const char *dir, const char *name, unsigned linktype)
{
	char path[4096];
	uint8_t h[24] = { 0 };

	memset(c, 0, sizeof(*c));
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	c->f = fopen(path, "wb");
	if (!c->f)
		fail(path);
	c->name = name;
	c->linktype = linktype;
	put32le(h, 0xa1b2c3d4);
	h[4] = 2;               /* version 2.4 */
	h[6] = 4;
	put32le(h + 16, SNAPLEN);
	put32le(h + 20, linktype);
	if (fwrite(h, 1, sizeof(h), c->f) != sizeof(h))
		fail(path);
}

static void cap_frame(struct cap *c, const uint8_t *b, size_t n)
{
	uint8_t h[16];

	put32le(h, (uint32_t)(T0 + c->usec / 1000000));
	put32le(h + 4, (uint32_t)(c->usec % 1000000));
	put32le(h + 8, (uint32_t)n);
	put32le(h + 12, (uint32_t)n);
	if (fwrite(h, 1, sizeof(h), c->f) != sizeof(h) || fwrite(b, 1, n, c->f) != n)
		fail(c->name);
	c->frames++;
	c->usec += 100;
}

static void cap_note(struct cap *c, unsigned first, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void cap_note(struct cap *c, unsigned first, const char *fmt, ...)
{
	char text[160];
	va_list ap;

	if (c->nnotes >= sizeof(c->notes) / sizeof(c->notes[0]))
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (c->frames > first + 1)
		snprintf(c->notes[c->nnotes++], sizeof(c->notes[0]), "frames %u-%u: %s",
			 first + 1, c->frames, text);
	else
		snprintf(c->notes[c->nnotes++], sizeof(c->notes[0]), "frame %u: %s",
			 first + 1, text);
}

/* One packet from side |d| with the transport part in |r|, wrapped as the
 * conversation's link wants it. |bad_icrc| flips the ICRC's last byte
 * (and, on the native link, recomputes the VCRC over the damage, as the
 * last link before the capture point would have). */
static void packet(struct cap *c, struct conv *cv, int d, struct wire_roce *r, bool bad_icrc)
{
	struct side *me = &cv->s[d], *peer = &cv->s[!d];
	uint8_t b[FRAME_MAX + 14];
	size_t off = 0;
	ssize_t n;

	r->bth.pkey = 0xffff;
	r->bth.dqpn = peer->qpn;
	r->bth.psn = me->psn;
	me->psn = (me->psn + 1) & 0xffffff;
	switch (cv->link) {
	case L_IB_LOCAL:
	case L_IB_GLOBAL:
		memset(&r->lrh, 0, sizeof(r->lrh));
		r->lrh.lnh = cv->link == L_IB_GLOBAL ? WIRE_IB_LNH_GLOBAL : WIRE_IB_LNH_LOCAL;
		r->lrh.dlid = peer->lid;
		r->lrh.slid = me->lid;
		if (cv->link == L_IB_GLOBAL) {
			memset(&r->grh, 0, sizeof(r->grh));
			r->grh.ipver = 6;
			r->grh.nxthdr = WIRE_IB_GRH_NXTHDR;
			r->grh.hoplmt = 0xff;
			memcpy(r->grh.sgid, me->addr, 16);
			memcpy(r->grh.dgid, peer->addr, 16);
		}
		n = wire_ib_encode(r, b, sizeof(b));
		break;
	default:
		/* Ethernet: dst, src, type */
		memcpy(b, peer->mac, 6);
		memcpy(b + 6, me->mac, 6);
		b[12] = cv->link == L_ROCE4 ? 0x08 : 0x86;
		b[13] = cv->link == L_ROCE4 ? 0x00 : 0xdd;
		off = 14;
		r->ip_version = cv->link == L_ROCE4 ? 4 : 6;
		memcpy(r->src, me->addr, 16);
		memcpy(r->dst, peer->addr, 16);
		/* rxe picks the source port from the QP number */
		r->udp_sport = (uint16_t)(0xc000 | (me->qpn & 0x3fff));
		n = wire_roce_encode(r, b + off, sizeof(b) - off);
		break;
	}
	if (n < 0) {
		errno = EINVAL;
		fail("encode");
	}
	if (bad_icrc) {
		size_t icrc_end = off + (size_t)n;

		if (cv->link == L_IB_LOCAL || cv->link == L_IB_GLOBAL) {
			uint16_t v;

			icrc_end -= WIRE_IB_VCRC_LEN;
			b[icrc_end - 1] ^= 0xff;
			v = wire_ib_vcrc(b, icrc_end);
			b[icrc_end] = (uint8_t)v;
			b[icrc_end + 1] = (uint8_t)(v >> 8);
		} else {
			b[icrc_end - 1] ^= 0xff;
		}
	}
	cap_frame(c, b, off + (size_t)n);
}

/* One RDS message from side |d|: header |h| (h_len is the payload's
 * length) and its payload, as RDS over IB sends it. */
static void message(struct cap *c, struct conv *cv, int d, const struct wire_hdr *h,
		    const uint8_t *payload, bool bad_icrc)
{
	static uint8_t frame[WIRE_HDR_LEN + 4096];
	uint32_t nfrag = wire_frag_count(h->len), done = 0;

	for (uint32_t i = 0; i < nfrag; i++) {
		uint32_t fl = wire_frag_len(h->len, i);
		struct wire_ib_send_iter it;
		struct wire_roce r;

		wire_hdr_encode(h, frame, sizeof(frame));
		if (fl)
			memcpy(frame + WIRE_HDR_LEN, payload + done, fl);
		done += fl;
		wire_ib_send_init(&it, frame, WIRE_HDR_LEN + fl, PMTU);
		memset(&r, 0, sizeof(r));
		while (wire_ib_send_next(&it, &r) == 1) {
			struct wire_roce p = r;

			/* the kernel asks for a transport ACK on a SEND's last packet */
			p.bth.ackreq = r.bth.opcode == WIRE_IB_RC_SEND_ONLY ||
				       r.bth.opcode == WIRE_IB_RC_SEND_LAST;
			packet(c, cv, d, &p, bad_icrc);
		}
	}
}

/* An RC ACKNOWLEDGE from side |d| for the peer's packets up to |psn|. */
static void rc_ack(struct cap *c, struct conv *cv, int d, uint32_t psn, uint32_t msn)
{
	struct wire_roce r;
	uint32_t keep = cv->s[d].psn;

	memset(&r, 0, sizeof(r));
	r.bth.opcode = WIRE_IB_RC_ACK;
	r.aeth.syndrome = 0x1f;         /* ACK, credits not counted */
	r.aeth.msn = msn;
	cv->s[d].psn = psn;             /* an ACK carries the PSN it acknowledges */
	packet(c, cv, d, &r, false);
	cv->s[d].psn = keep;
}

static void fill(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7 + (i >> 8));
}

static const char *side_name(const struct conv *cv, int d)
{
	static const char *const names[][2] = {
		[L_IB_LOCAL] = { "LID 2", "LID 3" },
		[L_IB_GLOBAL] = { "GID fe80::2", "GID fe80::3" },
		[L_ROCE4] = { "10.199.0.2", "10.199.0.3" },
		[L_ROCE6] = { "fd00::2", "fd00::3" },
	};

	return names[cv->link][d];
}

/* The long conversation: data, a transport ACK, a message of two
 * fragments (the first five packets), an ACK-only frame, a bad h_csum, a
 * bad ICRC, and a reply. */
static void conv_main(struct cap *c, struct conv *cv)
{
	static uint8_t big[5000];
	uint8_t small[100];
	struct wire_hdr h;
	unsigned f;

	fill(big, sizeof(big), 0x11);
	fill(small, sizeof(small), 0x80);

	f = c->frames;
	wire_build_data(&h, 1, 4000, 4001, 100);
	h.flags = WIRE_FLAG_ACK_REQUIRED;
	wire_hdr_csum_set(&h);
	message(c, cv, 0, &h, small, false);
	cap_note(c, f, "%s > %s: RC SEND_ONLY, RDS data 4000 > 4001 seq 1 len 100 "
		 "ACK_REQUIRED, valid h_csum", side_name(cv, 0), side_name(cv, 1));

	f = c->frames;
	rc_ack(c, cv, 1, (cv->s[0].psn - 1) & 0xffffff, 1);
	cap_note(c, f, "%s > %s: RC ACKNOWLEDGE (AETH 0x1f, MSN 1) for it: no RDS",
		 side_name(cv, 1), side_name(cv, 0));

	f = c->frames;
	wire_build_data(&h, 2, 4000, 4001, sizeof(big));
	wire_hdr_csum_set(&h);
	message(c, cv, 0, &h, big, false);
	cap_note(c, f, "RDS data seq 2 len 5000 in two fragments: SEND_FIRST, 3 MIDDLE, "
		 "LAST (4144 bytes), then SEND_ONLY (952 bytes)");

	f = c->frames;
	wire_build_ack(&h, 2, 0);
	message(c, cv, 1, &h, NULL, false);
	cap_note(c, f, "%s > %s: RDS ack-only frame, h_ack 2", side_name(cv, 1),
		 side_name(cv, 0));

	f = c->frames;
	wire_build_data(&h, 3, 4000, 4001, 10);
	wire_hdr_csum_set(&h);
	h.csum = (uint16_t)(h.csum + 1 ? h.csum + 1 : 2);
	message(c, cv, 0, &h, small, false);
	cap_note(c, f, "RDS data seq 3 len 10 whose h_csum is the valid one plus one");

	f = c->frames;
	wire_build_data(&h, 4, 4000, 4001, 20);
	wire_hdr_csum_set(&h);
	message(c, cv, 0, &h, small, true);
	cap_note(c, f, "RDS data seq 4 len 20 whose ICRC has its last byte flipped%s",
		 cv->link <= L_IB_GLOBAL ? " (the VCRC matches the damaged packet)" : "");

	f = c->frames;
	wire_build_data(&h, 1, 4001, 4000, 8);
	wire_hdr_csum_set(&h);
	message(c, cv, 1, &h, small, false);
	cap_note(c, f, "%s > %s: the reply, RDS data 4001 > 4000 seq 1 len 8",
		 side_name(cv, 1), side_name(cv, 0));
}

/* The short one: a 3000-byte message (one fragment, three packets) and
 * the ack-only frame for it. */
static void conv_short(struct cap *c, struct conv *cv)
{
	static uint8_t pay[3000];
	struct wire_hdr h;
	unsigned f = c->frames;

	fill(pay, sizeof(pay), 0x33);
	wire_build_data(&h, 1, 5000, 5001, sizeof(pay));
	wire_hdr_csum_set(&h);
	message(c, cv, 0, &h, pay, false);
	cap_note(c, f, "%s > %s: RDS data 5000 > 5001 seq 1 len 3000: SEND_FIRST, MIDDLE, "
		 "LAST (3048 bytes)", side_name(cv, 0), side_name(cv, 1));
	f = c->frames;
	wire_build_ack(&h, 1, 0);
	message(c, cv, 1, &h, NULL, false);
	cap_note(c, f, "%s > %s: RDS ack-only frame, h_ack 1", side_name(cv, 1),
		 side_name(cv, 0));
}

static void conv_init(struct conv *cv, enum link link)
{
	memset(cv, 0, sizeof(*cv));
	cv->link = link;
	for (int d = 0; d < 2; d++) {
		struct side *s = &cv->s[d];

		s->lid = (uint16_t)(link == L_IB_GLOBAL ? 4 + d : 2 + d);
		s->qpn = 0x11 + (uint32_t)d + (link == L_IB_GLOBAL || link == L_ROCE6 ? 0x10 : 0);
		s->psn = d ? 0xffffff : 0xfffff8;       /* both wrap inside the capture */
		memcpy(s->mac, "\x52\x54\x00\x12\xcc\x00", 6);
		s->mac[5] = (uint8_t)(2 + d);
		switch (link) {
		case L_ROCE4:
			memcpy(s->addr, "\x0a\xc7\x00\x02", 4);
			s->addr[3] = (uint8_t)(2 + d);
			break;
		case L_ROCE6:
			s->addr[0] = 0xfd;
			s->addr[15] = (uint8_t)(2 + d);
			break;
		default:
			s->addr[0] = 0xfe;
			s->addr[1] = 0x80;
			s->addr[15] = (uint8_t)(2 + d);
			break;
		}
	}
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
	putchar('"');
}

static void cap_close(struct cap *c, const char *source, bool comma)
{
	long bytes;

	if (fflush(c->f))
		fail(c->name);
	bytes = ftell(c->f);
	if (fclose(c->f))
		fail(c->name);
	printf(" ");
	json_str(c->name);
	printf(": {\"bytes\": %ld, \"frames\": %u, \"linktype\": %u, \"notes\": [", bytes,
	       c->frames, c->linktype);
	for (unsigned i = 0; i < c->nnotes; i++) {
		printf(i ? ", " : "");
		json_str(c->notes[i]);
	}
	printf("], \"script\": \"tests/support/mkibcap.c\", \"snaplen\": %u, \"source\": ",
	       SNAPLEN);
	json_str(source);
	printf("}%s\n", comma ? "," : "");
}

/* The two captures: one conversation in full and a short one after it,
 * each a layer of its own. */
static const struct {
	const char *file;
	unsigned linktype;
	enum link main, short_one;
	const char *note, *source;
} caps[] = {
	{ "ib-native.pcap", WIRE_LINK_INFINIBAND, L_IB_LOCAL, L_IB_GLOBAL,
	  "LID 2 and 3 without a GRH (LNH 2) first, then LID 4 and 5 with one (LNH 3); every "
	  "frame ends in its VCRC; PSNs wrap past 0xffffff",
	  "synthesized with libwire's wire_ib_encode" },
	{ "roce-crafted.pcap", WIRE_LINK_ETHERNET, L_ROCE4, L_ROCE6,
	  "the frames of ib-native.pcap as RoCEv2: IPv4 10.199.0.2/.3 first, then IPv6 "
	  "fd00::2/::3; UDP checksum 0 as rxe sends it",
	  "synthesized with libwire's wire_roce_encode" },
};

int main(int argc, char **argv)
{
	const size_t n = sizeof(caps) / sizeof(caps[0]);
	struct cap c;
	struct conv cv;

	if (argc != 2) {
		fprintf(stderr, "usage: mkibcap OUTDIR\n");
		return 2;
	}
	printf("{\n");
	for (size_t i = 0; i < n; i++) {
		cap_open(&c, argv[1], caps[i].file, caps[i].linktype);
		conv_init(&cv, caps[i].main);
		conv_main(&c, &cv);
		conv_init(&cv, caps[i].short_one);
		conv_short(&c, &cv);
		snprintf(c.notes[c.nnotes++], sizeof(c.notes[0]), "%s", caps[i].note);
		cap_close(&c, caps[i].source, i + 1 < n);
	}
	printf("}\n");
	return 0;
}
