// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * fuzz_ibcore.c - the librds core over a frame transport (IB), every
 * choice the fuzzer's: the frames a peer sends (crafted from fields with a
 * valid or broken checksum, or raw bytes), the private data, posted
 * receive buffers, time and timers, links breaking and coming back,
 * application sends and reads. Properties checked besides "no crash, no
 * leak": every frame input returns a listed value; every frame the core
 * hands out is 48..4144 bytes with a valid non-zero checksum, ACK-only
 * frames have their fixed shape, and the fragments of each message agree
 * (libwire's reassembler never fails on them); a message delivered to a
 * socket is one a reference reassembler, fed the same frames, completed
 * (no delivery of a message whose frames disagree); SNDBUF accounting
 * never goes below zero or beyond one message over.
 *
 * Input: byte 0 picks the side (bit 0: we connect) and whether we offer
 * credits (bit 1); then ops of one byte plus arguments.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rds/rdsu.h>
#include <wire/wire.h>

#include "fuzz_in.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REF_RING 4096

/* FNV-1a, to compare delivered payloads with reference ones. */
static uint64_t hash(const uint8_t *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

static struct {
	uint64_t link;          /* 0: none */
	bool up;
	struct wire_reasm in_ref;  /* what the peer sent, reassembled by libwire */
	struct wire_reasm out_chk; /* what the core sent */
} lk;

/* Messages the reference completed, per destination socket, in order:
 * the core delivers a subsequence of them (it drops duplicates). */
static struct {
	struct {
		uint32_t len;
		uint16_t sport;
		uint64_t h;
	} e[REF_RING];
	unsigned head, n;
	bool overflow;          /* entries were lost: a miss proves nothing */
} ref[2];

static uint8_t *ref_buf, *chk_buf;
static uint8_t frame[RDSU_FRAME_MAX + 64];

static void link_reset(uint64_t id, bool up)
{
	lk.link = id;
	lk.up = up;
	(void)wire_reasm_init(&lk.in_ref, 0, ref_buf, WIRE_MAX_MSG_LEN);
	(void)wire_reasm_init(&lk.out_chk, 0, chk_buf, WIRE_MAX_MSG_LEN);
}

static void ref_feed(const uint8_t *p, size_t n)
{
	struct wire_frame f;
	unsigned q;

	if (wire_reasm_input(&lk.in_ref, p, n, &f) != 1 || f.hdr.dport < 5000 ||
	    f.hdr.dport > 5001 || f.hdr.flags == WIRE_FLAG_CONG_BITMAP)
		return;
	q = f.hdr.dport - 5000u;
	if (ref[q].n == REF_RING) {
		ref[q].head = (ref[q].head + 1) % REF_RING;
		ref[q].n--;
		ref[q].overflow = true;
	}
	ref[q].e[(ref[q].head + ref[q].n) % REF_RING].len = f.len;
	ref[q].e[(ref[q].head + ref[q].n) % REF_RING].sport = f.hdr.sport;
	ref[q].e[(ref[q].head + ref[q].n) % REF_RING].h = hash(f.payload, f.len);
	ref[q].n++;
}

/* The delivered message must be the next completed one for its socket,
 * or a later one (those between were dropped). */
static bool ref_take(unsigned q, uint32_t len, uint16_t sport, uint64_t h)
{
	while (ref[q].n) {
		unsigned i = ref[q].head;

		ref[q].head = (ref[q].head + 1) % REF_RING;
		ref[q].n--;
		if (ref[q].e[i].len == len && ref[q].e[i].sport == sport && ref[q].e[i].h == h)
			return true;
	}
	return ref[q].overflow;
}

static void check_out(const uint8_t *p, size_t n)
{
	struct wire_frame f;
	struct wire_hdr h;

	if (n < WIRE_HDR_LEN || n > RDSU_FRAME_MAX)
		abort();
	(void)wire_hdr_decode(&h, p, n);
	if (!h.csum || !wire_hdr_csum_ok(&h))
		abort();
	if (!h.sport && !h.dport && n == WIRE_HDR_LEN && (h.seq || h.len || h.flags))
		abort(); /* an ACK-only frame is seq 0, len 0, flags 0 */
	if (wire_reasm_input(&lk.out_chk, p, n, &f) < 0)
		abort();
}

static void reqs(struct rdsu_ep *ep, struct in *in, rdsu_ns now)
{
	struct rdsu_lreq r;

	while (rdsu_ep_next_link_req(ep, &r) == 1) {
		if (r.type == RDSU_LREQ_CLOSE && r.link == lk.link)
			lk.link = 0;
		if (r.type != RDSU_LREQ_CONNECT)
			continue;
		if (r.trans != RDSU_TRANS_IB || r.dport != WIRE_IB_PORT_V4)
			abort();
		if (lk.link || !(u8(in) & 1)) {
			if (rdsu_link_down(ep, r.link, now) != 0)
				abort();
			continue;
		}
		link_reset(r.link, false);
	}
}

static void hs_from(struct in *in, struct rdsu_link_hs *hs)
{
	memset(hs, 0, sizeof(*hs));
	hs->ack_seq = u8(in);
	hs->credit = u8(in) & 7;
	hs->version = WIRE_IBVER_3_1;
}

static void check_socks(struct rdsu_ep *ep)
{
	struct rdsu_sock_info si;
	size_t pos = 0;

	while (rdsu_ep_sock_next(ep, &pos, &si))
		if (si.snd_bytes > (uint64_t)si.sndbuf + WIRE_MAX_MSG_LEN)
			abort(); /* below zero wraps to here too */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = { data, size };
	unsigned mode = u8(&in);
	struct rdsu_addr la = rdsu_addr_v4(0x0a000001), fa = rdsu_addr_v4(0x0a000002);
	static uint8_t payload[70000], rbuf[WIRE_MAX_MSG_LEN + 64];
	struct rdsu_ep_cfg cfg;
	struct rdsu_ep *ep;
	struct rdsu_sock *socks[2];
	rdsu_ns now = RDSU_SEC;
	struct rdsu_event ev;
	uint64_t seq = 1;

	if (!ref_buf) {
		ref_buf = malloc(WIRE_MAX_MSG_LEN);
		chk_buf = malloc(WIRE_MAX_MSG_LEN);
	}
	memset(&lk, 0, sizeof(lk));
	memset(ref, 0, sizeof(ref));
	rdsu_ep_cfg_default(&cfg);
	cfg.laddrs[0] = la;
	cfg.n_laddrs = 1;
	cfg.gen_num = 0x1234;
	cfg.seed = size;
	cfg.rdma_laddrs = 1;
	if (rdsu_ep_new(&ep, &cfg))
		abort();
	for (int i = 0; i < 2; i++)
		if (rdsu_sock_new(ep, &socks[i]) || rdsu_sock_bind(socks[i], &la, (uint16_t)(5000 + i)))
			abort();
	rdsu_sock_set_rcvbuf(socks[1], 3000, now);
	rdsu_sock_set_sndbuf(socks[1], 20000, now);
	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 7);
	if (mode & 1) {
		struct iovec iov = { payload, 10 };

		(void)rdsu_sock_submit(socks[0], &fa, 6000, &iov, 1, now);
	}

	while (in.left) {
		unsigned op = u8(&in) % 10;

		reqs(ep, &in, now);
		switch (op) {
		case 0: /* a frame from fields: a fragment of a message */
		case 1: { /* raw bytes */
			struct wire_hdr h;
			size_t n;
			int r;

			if (op == 0) {
				unsigned fl = u8(&in);

				memset(&h, 0, sizeof(h));
				h.seq = fl & 0x80 ? u8(&in) : seq;
				h.ack = u8(&in);
				h.len = fl & 0x40 ? (uint32_t)u16(&in) * 17 : u16(&in) % 9000;
				h.sport = (uint16_t)(u8(&in) % 4 ? 6000 : 0);
				h.dport = (uint16_t)(5000 + u8(&in) % 3);
				h.flags = (uint8_t)(fl & 0x07);
				h.credit = (uint8_t)(fl & 0x08 ? u8(&in) : 0);
				n = WIRE_HDR_LEN + (fl & 0x20 ? u16(&in) % (WIRE_FRAG_SIZE + 2)
							       : (h.len < WIRE_FRAG_SIZE ? h.len
										 : WIRE_FRAG_SIZE));
				if (!(fl & 0x10))
					wire_hdr_csum_set(&h);
				wire_hdr_encode(&h, frame, sizeof(frame));
				memcpy(frame + WIRE_HDR_LEN, payload + (seq & 255), n - WIRE_HDR_LEN);
				if (!(fl & 0x80) && u8(&in) & 1)
					seq++;
			} else {
				n = u16(&in) % sizeof(frame);
				if (n > in.left)
					n = in.left;
				memcpy(frame, in.p, n);
				in.p += n;
				in.left -= n;
			}
			if (!lk.link)
				break;
			r = rdsu_link_input_frame(ep, lk.link, frame, n, now);
			if (r == RDSU_ERR_PROTO || r == RDSU_ERR_CLOSED) {
				lk.link = 0;
			} else if (r != 0) {
				abort();
			} else if (lk.up) {
				ref_feed(frame, n);
			}
			break;
		}
		case 2: /* the transport sends */
			for (int i = 0; lk.link && i < 64; i++) {
				ssize_t n = rdsu_link_output_frame(ep, lk.link, frame, sizeof(frame), now);

				if (n == RDSU_ERR_CLOSED) {
					lk.link = 0;
					break;
				}
				if (n < 0)
					abort();
				if (n == 0)
					break;
				check_out(frame, (size_t)n);
			}
			break;
		case 3: { /* a connection request arrives, with private data */
			struct rdsu_link_hs hs;
			uint64_t id = 0;
			int r = rdsu_link_accept_on(ep, RDSU_TRANS_IB, &la, &fa, 0, now, &id);

			hs_from(&in, &hs);
			if (r == RDSU_ACCEPT_UP) {
				if (mode & 2 && rdsu_link_posted(ep, id, 1 + u8(&in), now))
					abort();
				if (rdsu_link_hs_peer(ep, id, &hs, now) ||
				    rdsu_link_hs_offer(ep, id, &hs))
					abort();
				link_reset(id, true);
			} else if (r != RDSU_ERR_REFUSED || id) {
				abort();
			}
			break;
		}
		case 4: /* our connect is answered */
			if (lk.link && !lk.up) {
				struct rdsu_link_hs hs;

				if (mode & 2)
					(void)rdsu_link_posted(ep, lk.link, 1 + u8(&in), now);
				if (rdsu_link_hs_offer(ep, lk.link, &hs))
					abort();
				hs_from(&in, &hs);
				if (rdsu_link_hs_peer(ep, lk.link, &hs, now) ||
				    rdsu_link_established(ep, lk.link, 0, now))
					abort();
				link_reset(lk.link, true);
			}
			break;
		case 5: /* the link breaks */
			if (lk.link) {
				if (rdsu_link_down(ep, lk.link, now))
					abort();
				lk.link = 0;
			}
			break;
		case 6: { /* time passes */
			now += (rdsu_ns)u16(&in) * 100000;
			if (rdsu_ep_deadline(ep) <= now)
				rdsu_ep_expire(ep, now);
			break;
		}
		case 7: { /* the application sends */
			struct iovec iov = { payload, u16(&in) % (sizeof(payload) + 1) };
			int r = rdsu_sock_submit(socks[u8(&in) & 1], &fa, 6000, &iov, 1, now);

			if (r < 0 && r != -EAGAIN && r != -ENOBUFS && r != -EMSGSIZE)
				abort();
			break;
		}
		case 8: /* the application reads */
			for (int i = 0; i < 2; i++) {
				struct iovec iov = { rbuf, sizeof(rbuf) };
				struct rdsu_rxinfo ri;
				ssize_t n = rdsu_sock_read(socks[i], &iov, 1, 0, &ri, now);

				if (n > 0 || (n == 0 && !ri.cong)) {
					if (!ref_take((unsigned)i, ri.len, ri.sport, hash(rbuf, (size_t)n)))
						abort();
				}
			}
			break;
		default: /* buffers posted */
			if (lk.link && rdsu_link_posted(ep, lk.link, u8(&in), now) &&
			    lk.up)
				abort();
			break;
		}
		check_socks(ep);
		while (rdsu_ep_next_event(ep, &ev) == 1)
			;
	}
	rdsu_ep_free(ep);
	return 0;
}
