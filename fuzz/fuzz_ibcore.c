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
 * RDMA (op bytes 250..255, a transport seam that records what it is
 * given): regions registered and freed by any cookie, operations of every
 * kind with the fuzzer's fields, completions of posted ops (and of made-up
 * ones) with any status, RDS_CANCEL_SENT_TO, notifications read. Checked:
 * every call answers a listed value; an op is notified at most once; a
 * completion the core took once is refused the second time; the regions
 * the core counts are those registered and not yet given back, and all
 * are given back when the endpoint goes.
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

/* The RDMA seam: what the core registered and posted. */
#define POSTS 64
static struct {
	unsigned regs, frees;
	uint32_t next_rkey;
	struct {
		uint64_t id, link;
		bool done;          /* the core took its completion */
	} post[POSTS];
	unsigned n_post;
	uint64_t cookies[16];
	unsigned n_cookies;
	uint64_t token;
	uint8_t notified[65536 / 8];
} rd;

static int f_get_mr(void *ud, const struct rdsu_addr *laddr, void *addr, uint64_t len,
		    unsigned flags, uint32_t *rkey, uint32_t *offset, void **handle)
{
	(void)laddr;
	(void)ud, (void)addr, (void)len, (void)flags;
	rd.regs++;
	*rkey = rd.next_rkey++;
	*offset = (uint32_t)((uintptr_t)addr & 4095);
	*handle = &rd;
	return 0;
}

static void f_free_mr(void *ud, void *handle, bool invalidate)
{
	(void)ud, (void)invalidate;
	if (handle != &rd)
		abort();
	rd.frees++;
}

static int f_xmit_op(void *ud, uint64_t link, const struct rdsu_op_req *op)
{
	(void)ud;
	if (link != lk.link || !op->id || op->kind < RDSU_OP_RDMA || op->kind > RDSU_OP_CSWP)
		abort();
	if (op->kind == RDSU_OP_RDMA) {
		uint64_t sum = 0;

		for (int i = 0; i < op->nr_local; i++)
			sum += op->local[i].iov_len;
		if (!op->nr_local || sum != op->bytes)
			abort();
	} else if (!op->result || ((uintptr_t)op->result & 7)) {
		abort();
	}
	rd.post[rd.n_post % POSTS].id = op->id;
	rd.post[rd.n_post % POSTS].link = link;
	rd.post[rd.n_post % POSTS].done = false;
	rd.n_post++;
	return 0;
}

static const struct rdsu_rdma_ops f_ops = { f_get_mr, f_free_mr, f_xmit_op };

static uint64_t pick_cookie(struct in *in)
{
	unsigned k = u8(in);

	if (rd.n_cookies && k < 200)
		return rd.cookies[k % rd.n_cookies] + ((uint64_t)(k & 0x10) << 28);
	return (uint64_t)u16(in) << 16 | u8(in);
}

static void rdma_step(struct rdsu_ep *ep, struct rdsu_sock **socks, struct in *in, unsigned op,
		      rdsu_ns now)
{
	static uint8_t mem[4096];
	static uint64_t words[4];
	struct rdsu_addr fa = rdsu_addr_v4(0x0a000002);
	struct rdsu_sock *s = socks[u8(in) & 1];
	int r;

	switch (op) {
	case 0: { /* register */
		uint64_t c = 0;

		r = rdsu_sock_get_mr(s, mem + u8(in), 1 + u16(in) % 4000, u8(in) & 0x0f, &c);
		if (r == 0)
			rd.cookies[rd.n_cookies++ % 16] = c;
		else if (r != -ENOBUFS)
			abort();
		break;
	}
	case 1: { /* a message with an op */
		struct iovec lv[3];
		struct rdsu_op o;
		unsigned f = u8(in);

		memset(&o, 0, sizeof(o));
		o.kind = (enum rdsu_op_kind)(u8(in) % 6);
		o.flags = u8(in) & 0x7f;
		o.cookie = pick_cookie(in);
		o.remote_addr = f & 0x80 ? UINT64_MAX - u8(in) : u16(in);
		o.remote_len = f & 0x40 ? UINT64_MAX : u16(in);
		o.nr_local = (int)(f & 3);
		for (int i = 0; i < 3; i++)
			lv[i] = (struct iovec){ mem + u8(in), u8(in) };
		o.local = f & 4 ? NULL : lv;
		o.result = f & 8 ? (uint64_t *)((uint8_t *)words + (u8(in) & 15)) : NULL;
		o.masked = f & 0x10;
		o.add = u8(in);
		o.compare = u8(in);
		o.swap = u8(in);
		o.nocarry_mask = o.compare_mask = o.swap_mask = u8(in);
		o.map_addr = f & 0x20 ? mem : NULL;
		o.map_len = u16(in);
		o.user_token = rd.token++ & 0xffff;
		r = rdsu_sock_submit_op(s, &fa, 6000, NULL, 0, &o, now);
		if (r == 0) {
			if (o.kind == RDSU_OP_MAP)
				rd.cookies[rd.n_cookies++ % 16] = o.cookie;
		} else if (r != -EINVAL && r != -EFAULT && r != -EMSGSIZE && r != -EAGAIN &&
			   r != -ENOBUFS) {
			abort();
		}
		break;
	}
	case 2: { /* a completion */
		unsigned k = u8(in), st = u8(in) % 5;

		if (rd.n_post && k < 200) {
			unsigned i = (rd.n_post - 1 - k % (rd.n_post < POSTS ? rd.n_post : POSTS)) % POSTS;

			r = rdsu_link_op_done(ep, rd.post[i].link, rd.post[i].id, (int)st, now);
			if (r == 0 && rd.post[i].done)
				abort();
			if (r == 0)
				rd.post[i].done = true;
		} else {
			r = rdsu_link_op_done(ep, lk.link, u16(in), (int)st, now);
		}
		if (r != 0 && r != RDSU_ERR_CLOSED)
			abort();
		break;
	}
	case 3: /* free a region */
		r = rdsu_sock_free_mr(s, pick_cookie(in), u8(in) & RDSU_RDMA_INVALIDATE);
		if (r != 0 && r != -EINVAL)
			abort();
		break;
	case 4: /* cancel */
		if (rdsu_sock_cancel_sent_to(s, &fa, 6000, now) < 0)
			abort();
		break;
	default: { /* notifications */
		struct rdsu_notify n;

		for (int i = 0; i < 2; i++)
			while ((r = rdsu_sock_next_notify(socks[i], &n)) == 1) {
				if (n.status < 0 || n.status > RDSU_RDMA_OTHER_ERROR ||
				    n.user_token > 0xffff)
					abort();
				if (rd.notified[n.user_token / 8] & (1u << (n.user_token % 8)))
					abort(); /* twice */
				rd.notified[n.user_token / 8] |= (uint8_t)(1u << (n.user_token % 8));
			}
		if (r != 0)
			abort();
		break;
	}
	}
	if (rdsu_ep_mr_count(ep) != rd.regs - rd.frees)
		abort();
}

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
	memset(&rd, 0, sizeof(rd));
	rd.next_rkey = 0x100;
	rdsu_ep_cfg_default(&cfg);
	cfg.laddrs[0] = la;
	cfg.n_laddrs = 1;
	cfg.gen_num = 0x1234;
	cfg.seed = size;
	cfg.rdma_laddrs = 1;
	if (rdsu_ep_new(&ep, &cfg))
		abort();
	if (rdsu_ep_set_rdma(ep, RDSU_TRANS_IB, &f_ops, NULL))
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
		unsigned b = u8(&in), op = b % 10;

		reqs(ep, &in, now);
		if (b >= 250)
			rdma_step(ep, socks, &in, b - 250, now);
		else
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
	if (rd.regs != rd.frees)
		abort(); /* a region never given back */
	return 0;
}
