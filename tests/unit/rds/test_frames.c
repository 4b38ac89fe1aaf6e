// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_frames.c - the frame calls (IB) between two librds endpoints, the
 * test carrying each frame as an RC SEND would: fragments of 4096 bytes
 * with the full header, h_csum, h_ack and ACK-only frames, ACK_REQUIRED
 * countdowns, SNDBUF returned by h_ack, retransmission after a break,
 * credits, and the receive checks that reset the path. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "cmain.h"

#include "utest.h"

#define APORT 4000
#define BPORT 5000

struct pair {
	struct rdsu_ep *a, *b;
	struct rdsu_sock *sa, *sb;
	uint64_t la, lb;
	rdsu_ns now;
	/* frames a -> b of the last pump */
	struct wire_hdr fh[1024];
	uint32_t flen[1024];
	size_t nf;
	size_t acks_ba;         /* ACK-only frames b -> a */
	bool post_a;            /* a reposts a buffer per frame it takes */
};

static struct rdsu_sock *ib_sock(struct rdsu_ep *ep, uint32_t addr, uint16_t port)
{
	struct rdsu_sock *s;
	struct rdsu_addr a = rdsu_addr_v4(addr);

	assert_int_equal(rdsu_sock_new(ep, &s), 0);
	assert_int_equal(rdsu_sock_set_transport(s, RDSU_TRANS_IB), 0);
	assert_int_equal(rdsu_sock_bind(s, &a, port), 0);
	assert_int_equal(rdsu_sock_set_sndbuf(s, 4u << 20, T0), 0);
	assert_int_equal(rdsu_sock_set_rcvbuf(s, 4u << 20, T0), 0);
	return s;
}

static void drain(struct rdsu_ep *ep)
{
	struct rdsu_lreq r;

	while (rdsu_ep_next_link_req(ep, &r) == 1)
		;
}

/* a connects (its CONNECT is pending), b accepts; private data both ways
 * with |a_posted| buffers posted by a before its offer. */
static void pair_link(struct pair *p, uint32_t a_posted)
{
	struct rdsu_addr sa = rdsu_addr_v4(SMALL), la = rdsu_addr_v4(LARGE);
	struct rdsu_link_hs ha, hb;
	struct rdsu_lreq r;

	assert_int_equal(next_req(p->a, RDSU_LREQ_CONNECT, &r), 1);
	assert_int_equal(r.trans, RDSU_TRANS_IB);
	p->la = r.link;
	if (a_posted)
		assert_int_equal(rdsu_link_posted(p->a, p->la, a_posted, p->now), 0);
	assert_int_equal(rdsu_link_hs_offer(p->a, p->la, &ha), 0);
	assert_int_equal(ha.credit, a_posted);
	assert_int_equal(rdsu_link_accept_on(p->b, RDSU_TRANS_IB, &la, &sa, 0, p->now, &p->lb),
			 RDSU_ACCEPT_UP);
	ha.version = WIRE_IBVER_3_1;
	assert_int_equal(rdsu_link_hs_peer(p->b, p->lb, &ha, p->now), 0);
	assert_int_equal(rdsu_link_hs_offer(p->b, p->lb, &hb), 0);
	hb.version = WIRE_IBVER_3_1;
	assert_int_equal(rdsu_link_hs_peer(p->a, p->la, &hb, p->now), 0);
	assert_int_equal(rdsu_link_established(p->a, p->la, 0, p->now), 0);
	drain(p->b);
}

/* An endpoint of the faulty-peer mode (|faults| 0: a correct one). */
static struct rdsu_ep *ep_faulty(uint32_t addr, uint32_t gen, uint32_t faults)
{
	struct rdsu_ep_cfg c;

	ep_cfg_test(&c, addr, WIRE_KVER_7, gen, RDSU_PATH_BY_PORT);
	c.faults = faults;
	return ep_new_ok(&c);
}

/* b commits |b_faults| (tests of the faulty-peer mode). */
static void pair_new_f(struct pair *p, uint32_t a_posted, uint32_t b_faults)
{
	memset(p, 0, sizeof(*p));
	p->now = T0;
	p->a = ep_make(SMALL, WIRE_KVER_7, 11);
	p->b = ep_faulty(LARGE, 22, b_faults);
	p->sa = ib_sock(p->a, SMALL, APORT);
	p->sb = ib_sock(p->b, LARGE, BPORT);
	/* a first message brings the connection up */
	{
		struct rdsu_addr d = rdsu_addr_v4(LARGE);
		struct iovec iov = { "hello", 5 };

		assert_int_equal(rdsu_sock_submit(p->sa, &d, BPORT, &iov, 1, p->now), 5);
	}
	pair_link(p, a_posted);
}

static void pair_new(struct pair *p, uint32_t a_posted)
{
	pair_new_f(p, a_posted, 0);
}

static void pair_free(struct pair *p)
{
	rdsu_ep_free(p->a);
	rdsu_ep_free(p->b);
}

/* Move frames both ways until neither side has one. */
static void pump(struct pair *p)
{
	static uint8_t buf[RDSU_FRAME_MAX];
	bool moved = true;

	p->nf = 0;
	p->acks_ba = 0;
	while (moved) {
		ssize_t n;

		moved = false;
		while ((n = rdsu_link_output_frame(p->a, p->la, buf, sizeof(buf), p->now)) > 0) {
			struct wire_hdr h;

			assert_true((size_t)n <= RDSU_FRAME_MAX);
			(void)wire_hdr_decode(&h, buf, (size_t)n);
			assert_true(h.csum != 0 && wire_hdr_csum_ok(&h));
			if (p->nf < 1024) {
				p->fh[p->nf] = h;
				p->flen[p->nf++] = (uint32_t)n - WIRE_HDR_LEN;
			}
			assert_int_equal(rdsu_link_input_frame(p->b, p->lb, buf, (size_t)n, p->now), 0);
			moved = true;
		}
		while ((n = rdsu_link_output_frame(p->b, p->lb, buf, sizeof(buf), p->now)) > 0) {
			struct wire_hdr h;

			(void)wire_hdr_decode(&h, buf, (size_t)n);
			assert_true(h.csum != 0 && wire_hdr_csum_ok(&h));
			if (n == WIRE_HDR_LEN && h.sport == 0 && h.dport == 0) {
				assert_true(h.seq == 0 && h.len == 0);
				p->acks_ba++;
			}
			assert_int_equal(rdsu_link_input_frame(p->a, p->la, buf, (size_t)n, p->now), 0);
			if (p->post_a)
				assert_int_equal(rdsu_link_posted(p->a, p->la, 1, p->now), 0);
			moved = true;
		}
		drain(p->a);
		drain(p->b);
	}
}

static ssize_t read_b(struct pair *p, uint8_t *buf, size_t cap)
{
	struct iovec iov = { buf, cap };
	struct rdsu_rxinfo ri;

	return rdsu_sock_read(p->sb, &iov, 1, 0, &ri, p->now);
}

static int submit_a(struct pair *p, const uint8_t *data, size_t len)
{
	struct rdsu_addr d = rdsu_addr_v4(LARGE);
	struct iovec iov = { (void *)(uintptr_t)data, len };

	return rdsu_sock_submit(p->sa, &d, BPORT, &iov, 1, p->now);
}

static uint64_t snd_bytes(struct rdsu_ep *ep, struct rdsu_sock *s)
{
	struct rdsu_sock_info si;
	size_t pos = 0;

	while (rdsu_ep_sock_next(ep, &pos, &si) == 1)
		if (si.sock == s)
			return si.snd_bytes;
	fail();
	return 0;
}

/* Fragments of 4096 with the full header each; reassembled byte for byte. */
static void test_frames_sizes(void **state)
{
	static const uint32_t sizes[] = { 0, 1, 4095, 4096, 4097, 65536, 1u << 20 };
	uint8_t *out = malloc(1u << 20), *in = malloc((1u << 20) + 1);
	struct pair p;

	(void)state;
	pair_new(&p, 0);
	pump(&p);
	assert_int_equal(read_b(&p, in, 16), 5);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		uint32_t len = sizes[k], nd = 0;

		for (uint32_t i = 0; i < len; i++)
			out[i] = (uint8_t)(i * 7 + k + (i >> 12));
		assert_int_equal(submit_a(&p, out, len), (int)len);
		pump(&p);
		for (size_t i = 0; i < p.nf; i++) {
			if (p.fh[i].dport != BPORT)
				continue;
			assert_int_equal(p.fh[i].len, len);
			assert_true(p.fh[i].seq == p.fh[0].seq);
			assert_int_equal(p.flen[i], wire_frag_len(len, nd));
			nd++;
		}
		assert_int_equal(nd, wire_frag_count(len));
		assert_int_equal(read_b(&p, in, (1u << 20) + 1), (ssize_t)len);
		if (len)
			assert_memory_equal(in, out, len);
	}
	assert_int_equal(read_b(&p, in, 16), -EAGAIN);
	pair_free(&p);
	free(out);
	free(in);
}

/* One message in nine asks for an ack, starting with the first; each is
 * answered by an ACK-only frame whose h_ack frees it. */
static void test_frames_ack_required(void **state)
{
	struct pair p;
	uint8_t buf[64];
	struct rdsu_stats st;

	(void)state;
	pair_new(&p, 0);
	pump(&p);
	assert_int_equal(p.nf, 3); /* the map in two fragments, the first message */
	assert_true(p.fh[0].flags == WIRE_FLAG_CONG_BITMAP && p.fh[1].flags == WIRE_FLAG_CONG_BITMAP);
	assert_true(p.fh[2].flags & WIRE_FLAG_ACK_REQUIRED);
	/* b's own map, starting as the ack was asked for, carried it */
	assert_int_equal(p.acks_ba, 0);
	assert_int_equal(conn_of(p.a, SMALL, LARGE).path[0].retrans_q_msgs, 0);
	assert_int_equal(snd_bytes(p.a, p.sa), 0);
	assert_int_equal(read_b(&p, buf, sizeof(buf)), 5);
	for (int i = 1; i <= 18; i++) {
		assert_int_equal(submit_a(&p, (const uint8_t *)"x", 1), 1);
		pump(&p);
		assert_int_equal(p.nf, 1);
		assert_int_equal(!!(p.fh[0].flags & WIRE_FLAG_ACK_REQUIRED), i % 9 == 0);
		assert_int_equal(p.acks_ba, i % 9 == 0);
		assert_int_equal(read_b(&p, buf, sizeof(buf)), 1);
	}
	/* unasked, the acks waited: the last ACK-only frame freed them all */
	assert_int_equal(conn_of(p.a, SMALL, LARGE).path[0].retrans_q_msgs, 0);
	assert_int_equal(conn_of(p.a, SMALL, LARGE).path[0].peer_ack, 19);
	rdsu_ep_get_stats(p.b, &st);
	assert_int_equal(st.v[RDSU_STAT_ACK_SENT], 2);
	rdsu_ep_get_stats(p.a, &st);
	assert_int_equal(st.v[RDSU_STAT_ACK_RECV], 2);
	assert_int_equal(st.v[RDSU_STAT_RECV_QUEUED], 0);
	pair_free(&p);
}

/* A full SNDBUF empties by h_ack: the half-full rule asks for the ack. */
static void test_frames_sndbuf(void **state)
{
	static uint8_t m[1000];
	struct pair p;
	uint8_t in[1000];
	int sent = 0;

	(void)state;
	pair_new(&p, 0);
	pump(&p);
	assert_int_equal(read_b(&p, in, sizeof(in)), 5);
	assert_int_equal(rdsu_sock_set_sndbuf(p.sa, 2500, p.now), 0);
	while (submit_a(&p, m, sizeof(m)) == (int)sizeof(m))
		sent++;
	assert_int_equal(sent, 3);
	assert_int_equal(submit_a(&p, m, sizeof(m)), -EAGAIN);
	pump(&p);
	assert_true(p.acks_ba >= 1);
	assert_int_equal(snd_bytes(p.a, p.sa), 0);
	assert_int_equal(submit_a(&p, m, sizeof(m)), (int)sizeof(m));
	pair_free(&p);
}

/* After a break the unacknowledged messages go again flagged
 * RETRANSMITTED (and ACK_REQUIRED); the copy the peer had is dropped. */
static void test_frames_retransmit(void **state)
{
	static uint8_t buf[RDSU_FRAME_MAX];
	struct pair p;
	struct rdsu_lreq r;
	uint8_t in[16];
	ssize_t n;
	int got = 0;

	(void)state;
	pair_new(&p, 0);
	pump(&p);
	assert_int_equal(read_b(&p, in, sizeof(in)), 5);
	assert_int_equal(submit_a(&p, (const uint8_t *)"one", 3), 3);
	assert_int_equal(submit_a(&p, (const uint8_t *)"two", 3), 3);
	/* the first reaches b, its ack does not come back; the second is lost */
	n = rdsu_link_output_frame(p.a, p.la, buf, sizeof(buf), p.now);
	assert_true(n == WIRE_HDR_LEN + 3);
	assert_int_equal(rdsu_link_input_frame(p.b, p.lb, buf, (size_t)n, p.now), 0);
	n = rdsu_link_output_frame(p.a, p.la, buf, sizeof(buf), p.now);
	assert_true(n == WIRE_HDR_LEN + 3);
	assert_int_equal(rdsu_link_down(p.a, p.la, p.now), 0);
	assert_int_equal(rdsu_link_down(p.b, p.lb, p.now), 0);
	/* both reconnect at once; b's attempt fails (a refuses it: a is
	 * connecting), a's is taken */
	assert_int_equal(next_req(p.b, RDSU_LREQ_CONNECT, &r), 1);
	assert_int_equal(rdsu_link_down(p.b, r.link, p.now), 0);
	pair_link(&p, 0);
	pump(&p);
	for (size_t i = 0; i < p.nf; i++)
		if (p.fh[i].dport == BPORT)
			assert_int_equal(p.fh[i].flags,
					 WIRE_FLAG_RETRANSMITTED | WIRE_FLAG_ACK_REQUIRED);
	while (read_b(&p, in, sizeof(in)) > 0)
		got++;
	assert_int_equal(got, 2);
	assert_int_equal(stat(p.b, RDSU_STAT_RECV_DROP_OLD_SEQ), 1);
	assert_int_equal(conn_of(p.a, SMALL, LARGE).path[0].retrans_q_msgs, 0);
	pair_free(&p);
}

/* a offers credits: b spends one per frame and keeps the last for a
 * frame that advertises (it has none to advertise), so it stops until a
 * advertises more; a offers nothing for b to spend. */
static void test_frames_credits(void **state)
{
	struct pair p;
	struct rdsu_addr d = rdsu_addr_v4(SMALL);
	struct iovec iov = { "r", 1 };
	struct rdsu_conn_info ca, cb;
	uint8_t in[16];

	(void)state;
	pair_new(&p, 4);
	cb = conn_of(p.b, LARGE, SMALL);
	ca = conn_of(p.a, SMALL, LARGE);
	assert_true(cb.path[0].flow_control && cb.path[0].send_credits == 4);
	assert_false(ca.path[0].flow_control);
	assert_int_equal(cb.path[0].version, WIRE_IBVER_3_1);
	pump(&p);
	/* the map's two frames (carrying the ack of "hello") took two */
	assert_int_equal(conn_of(p.b, LARGE, SMALL).path[0].send_credits, 2);
	for (int i = 0; i < 10; i++)
		assert_int_equal(rdsu_sock_submit(p.sb, &d, APORT, &iov, 1, p.now), 1);
	pump(&p);
	/* one message went; the last credit waits for an update */
	assert_int_equal(conn_of(p.b, LARGE, SMALL).path[0].send_credits, 1);
	assert_int_equal(conn_of(p.a, SMALL, LARGE).path[0].next_rx_seq, 2);
	/* 16 posted buffers make a send an ACK-only frame advertising them */
	assert_int_equal(rdsu_link_posted(p.a, p.la, 16, p.now), 0);
	p.post_a = true;
	pump(&p);
	assert_true(p.nf >= 1);
	assert_int_equal(p.fh[0].len, 0);
	assert_int_equal(p.fh[0].credit, 16);
	{
		struct iovec riov = { in, sizeof(in) };
		struct rdsu_rxinfo ri;
		int got = 0;

		while (rdsu_sock_read(p.sa, &riov, 1, 0, &ri, p.now) == 1)
			got++;
		assert_int_equal(got, 10);
	}
	pair_free(&p);
}

/* A message longer than the peer's credits: the last frame they let out
 * is reported as a stall (the transport makes it wake the peer, or the
 * peer sleeps on its filled receives), the ones before it are not; once
 * the peer advertises more the rest goes and nothing stalls. Without
 * credits offered nothing ever does. */
static void test_frames_credit_stall(void **state)
{
	static uint8_t msg[10 * 4096], buf[RDSU_FRAME_MAX];
	struct pair p;
	struct rdsu_addr d = rdsu_addr_v4(SMALL);
	struct iovec iov = { msg, sizeof(msg) };
	int frames = 0, stalls = 0;
	ssize_t n;

	(void)state;
	pair_new(&p, 4);
	pump(&p);
	/* the map took two of b's four credits: two left, one kept back */
	assert_int_equal(conn_of(p.b, LARGE, SMALL).path[0].send_credits, 2);
	assert_int_equal(rdsu_link_output_stalled(p.b, p.lb), 0);
	assert_int_equal(rdsu_sock_submit(p.sb, &d, APORT, &iov, 1, p.now), (int)sizeof(msg));
	while ((n = rdsu_link_output_frame(p.b, p.lb, buf, sizeof(buf), p.now)) > 0) {
		frames++;
		stalls += rdsu_link_output_stalled(p.b, p.lb);
		assert_int_equal(rdsu_link_input_frame(p.a, p.la, buf, (size_t)n, p.now), 0);
	}
	assert_int_equal(frames, 1);
	assert_int_equal(stalls, 1);
	assert_int_equal(rdsu_link_output_stalled(p.b, p.lb), 1);
	/* a reposts what it took and advertises plenty: the rest goes */
	assert_int_equal(rdsu_link_posted(p.a, p.la, 64, p.now), 0);
	p.post_a = true;
	pump(&p);
	assert_int_equal(rdsu_link_output_stalled(p.b, p.lb), 0);
	assert_int_equal(conn_of(p.a, SMALL, LARGE).path[0].next_rx_seq, 2);
	/* a was offered nothing: its output never stalls on credits */
	assert_int_equal(submit_a(&p, msg, sizeof(msg)), (int)sizeof(msg));
	while ((n = rdsu_link_output_frame(p.a, p.la, buf, sizeof(buf), p.now)) > 0)
		assert_int_equal(rdsu_link_output_stalled(p.a, p.la), 0);
	pair_free(&p);
}

/* rds_ib_process_recv's connection errors reset the path. */
enum bad { BAD_RUNT, BAD_LONG, BAD_CSUM, BAD_MISMATCH, BAD_SHORT, BAD_OVER };

static void frame_to_b(struct pair *p, enum bad how)
{
	static uint8_t buf[RDSU_FRAME_MAX + 16];
	struct wire_hdr h;
	struct rdsu_lreq r;
	size_t flen = 4096;
	int ret;

	memset(&h, 0, sizeof(h));
	h.seq = 2;
	h.len = 8192;
	h.sport = APORT;
	h.dport = BPORT;
	memset(buf, 0x5a, sizeof(buf));
	wire_hdr_csum_set(&h);
	wire_hdr_encode(&h, buf, WIRE_HDR_LEN);
	switch (how) {
	case BAD_RUNT:
		ret = rdsu_link_input_frame(p->b, p->lb, buf, 20, p->now);
		break;
	case BAD_LONG:
		ret = rdsu_link_input_frame(p->b, p->lb, buf, RDSU_FRAME_MAX + 1, p->now);
		break;
	case BAD_CSUM:
		buf[WIRE_HDR_LEN - 1] ^= 1; /* in the extension area, under h_csum */
		ret = rdsu_link_input_frame(p->b, p->lb, buf, WIRE_HDR_LEN + flen, p->now);
		break;
	case BAD_SHORT:
		ret = rdsu_link_input_frame(p->b, p->lb, buf, WIRE_HDR_LEN + 100, p->now);
		break;
	case BAD_OVER:
		h.len = 100;
		wire_hdr_csum_set(&h);
		wire_hdr_encode(&h, buf, WIRE_HDR_LEN);
		ret = rdsu_link_input_frame(p->b, p->lb, buf, WIRE_HDR_LEN + 101, p->now);
		break;
	default:
		assert_int_equal(rdsu_link_input_frame(p->b, p->lb, buf, WIRE_HDR_LEN + flen, p->now),
				 0);
		h.seq = 3;
		wire_hdr_csum_set(&h);
		wire_hdr_encode(&h, buf, WIRE_HDR_LEN);
		ret = rdsu_link_input_frame(p->b, p->lb, buf, WIRE_HDR_LEN + flen, p->now);
		break;
	}
	assert_int_equal(ret, RDSU_ERR_PROTO);
	assert_int_equal(next_req(p->b, RDSU_LREQ_CLOSE, &r), 1);
	assert_true(r.link == p->lb && r.reset);
	assert_int_equal(conn_of(p->b, LARGE, SMALL).path[0].resets, 1);
}

static void test_frames_errors(void **state)
{
	(void)state;
	for (int how = BAD_RUNT; how <= BAD_OVER; how++) {
		struct pair p;

		pair_new(&p, 0);
		pump(&p);
		frame_to_b(&p, (enum bad)how);
		assert_int_equal(stat(p.b, how == BAD_CSUM ? RDSU_STAT_RECV_BAD_CSUM
							   : RDSU_STAT_RECV_BAD_FRAG), 1);
		pair_free(&p);
	}
}

/* A zero h_csum is "absent" and taken; a probe is answered without
 * extensions (IB is not multipath capable). */
static void test_frames_csum_zero_probe(void **state)
{
	uint8_t buf[RDSU_FRAME_MAX];
	struct wire_hdr h;
	struct pair p;
	ssize_t n;

	(void)state;
	pair_new(&p, 0);
	pump(&p);
	wire_build_probe(&h, false, 2, WIRE_KVER_7, 8, 11);
	h.csum = 0;
	wire_hdr_encode(&h, buf, WIRE_HDR_LEN);
	assert_int_equal(rdsu_link_input_frame(p.b, p.lb, buf, WIRE_HDR_LEN, p.now), 0);
	n = rdsu_link_output_frame(p.b, p.lb, buf, sizeof(buf), p.now);
	assert_int_equal(n, WIRE_HDR_LEN);
	(void)wire_hdr_decode(&h, buf, WIRE_HDR_LEN);
	assert_int_equal(h.dport, WIRE_PROBE_PORT);
	for (size_t i = 0; i < sizeof(h.ext); i++)
		assert_int_equal(h.ext[i], 0);
	assert_int_equal(conn_of(p.b, LARGE, SMALL).npaths, 1);
	pair_free(&p);
}

/* ------------------------------------------------------------------------
 * The faulty-peer mode over IB: each defect of the frame calls shows on
 * the frames, and does not without it.
 */

/* b's next frame to a, and what a makes of it. */
static int frame_b_to_a(struct pair *p, struct wire_hdr *h)
{
	static uint8_t buf[RDSU_FRAME_MAX];
	ssize_t n = rdsu_link_output_frame(p->b, p->lb, buf, sizeof(buf), p->now);

	assert_true(n >= WIRE_HDR_LEN);
	(void)wire_hdr_decode(h, buf, (size_t)n);
	return rdsu_link_input_frame(p->a, p->la, buf, (size_t)n, p->now);
}

static void test_frames_fault_csum_bad(void **state)
{
	(void)state;
	for (int bad = 0; bad < 2; bad++) {
		struct wire_hdr h;
		struct pair p;
		int r;

		pair_new_f(&p, 0, bad ? RDSU_FAULT_IB_CSUM_BAD : 0);
		r = frame_b_to_a(&p, &h);  /* the first fragment of b's map */
		assert_int_equal(wire_hdr_csum_ok(&h), !bad);
		assert_int_equal(r, bad ? RDSU_ERR_PROTO : 0);
		pair_free(&p);
	}
}

static void test_frames_fault_frag_mismatch(void **state)
{
	(void)state;
	for (int bad = 0; bad < 2; bad++) {
		struct wire_hdr h0, h1;
		struct pair p;

		pair_new_f(&p, 0, bad ? RDSU_FAULT_IB_FRAG_MISMATCH : 0);
		assert_int_equal(frame_b_to_a(&p, &h0), 0);
		assert_int_equal(frame_b_to_a(&p, &h1), bad ? RDSU_ERR_PROTO : 0);
		assert_true(h0.flags == WIRE_FLAG_CONG_BITMAP && h1.flags == WIRE_FLAG_CONG_BITMAP);
		assert_int_equal(h1.seq, h0.seq + (uint64_t)bad);
		pair_free(&p);
	}
}

/* Nine messages from a: the ninth asks for an ack. Return: ACK-only
 * frames b sent for them. */
static size_t nine(struct pair *p)
{
	uint8_t in[64];
	size_t acks = 0;

	pump(p);
	assert_int_equal(read_b(p, in, sizeof(in)), 5);
	for (int i = 1; i <= 9; i++) {
		assert_int_equal(submit_a(p, (const uint8_t *)"x", 1), 1);
		pump(p);
		acks += p->acks_ba;
		assert_int_equal(read_b(p, in, sizeof(in)), 1);
	}
	return acks;
}

static void test_frames_fault_acks(void **state)
{
	(void)state;
	for (int bad = 0; bad < 2; bad++) {
		struct pair p;

		pair_new_f(&p, 0, bad ? RDSU_FAULT_IB_NO_ACK : 0);
		assert_int_equal(nine(&p), bad ? 0 : 1);
		assert_int_equal(conn_of(p.a, SMALL, LARGE).path[0].retrans_q_msgs, bad ? 9 : 0);
		pair_free(&p);

		pair_new_f(&p, 0, bad ? RDSU_FAULT_IB_ACK_ZERO : 0);
		assert_int_equal(nine(&p), 1);
		assert_int_equal(conn_of(p.a, SMALL, LARGE).path[0].peer_ack, bad ? 0 : 10);
		pair_free(&p);

		/* ten messages from b, the first and the tenth asking for
		 * an ack: a's ACK-only frames free them all, unless b is
		 * deaf to h_ack */
		pair_new_f(&p, 0, bad ? RDSU_FAULT_IB_ACK_IGNORED : 0);
		pump(&p);
		for (int i = 0; i < 10; i++) {
			struct rdsu_addr d = rdsu_addr_v4(SMALL);
			struct iovec iov = { "y", 1 };

			assert_int_equal(rdsu_sock_submit(p.sb, &d, APORT, &iov, 1, p.now), 1);
			pump(&p);
		}
		assert_int_equal(conn_of(p.b, LARGE, SMALL).path[0].retrans_q_msgs, bad ? 10 : 0);
		pair_free(&p);
	}
}

/* A ping with a wrong h_csum, and a message whose second fragment names
 * another sequence number, to b. */
static void test_frames_fault_recv(void **state)
{
	static uint8_t buf[RDSU_FRAME_MAX];

	(void)state;
	for (int bad = 0; bad < 2; bad++) {
		struct wire_hdr h;
		struct pair p;

		pair_new_f(&p, 0, bad ? RDSU_FAULT_IB_CSUM_IGNORED : 0);
		pump(&p);
		wire_build_ping(&h, 2, APORT);
		wire_hdr_csum_set(&h);
		h.csum ^= 0x0100;
		wire_hdr_encode(&h, buf, WIRE_HDR_LEN);
		assert_int_equal(rdsu_link_input_frame(p.b, p.lb, buf, WIRE_HDR_LEN, p.now),
				 bad ? 0 : RDSU_ERR_PROTO);
		assert_int_equal(stat(p.b, RDSU_STAT_RECV_BAD_CSUM), !bad);
		pair_free(&p);

		pair_new_f(&p, 0, bad ? RDSU_FAULT_IB_FRAG_ACCEPT : 0);
		pump(&p);
		wire_build_data(&h, 2, APORT, BPORT, 2 * WIRE_FRAG_SIZE);
		wire_hdr_csum_set(&h);
		wire_hdr_encode(&h, buf, WIRE_HDR_LEN);
		assert_int_equal(rdsu_link_input_frame(p.b, p.lb, buf, sizeof(buf), p.now), 0);
		h.seq = 3;
		wire_hdr_csum_set(&h);
		wire_hdr_encode(&h, buf, WIRE_HDR_LEN);
		assert_int_equal(rdsu_link_input_frame(p.b, p.lb, buf, sizeof(buf), p.now),
				 bad ? 0 : RDSU_ERR_PROTO);
		assert_int_equal(conn_of(p.b, LARGE, SMALL).path[0].resets, !bad);
		pair_free(&p);
	}
}

CMOCKA_MAIN(
	cmocka_unit_test(test_frames_sizes),
	cmocka_unit_test(test_frames_ack_required),
	cmocka_unit_test(test_frames_sndbuf),
	cmocka_unit_test(test_frames_retransmit),
	cmocka_unit_test(test_frames_credits),
	cmocka_unit_test(test_frames_credit_stall),
	cmocka_unit_test(test_frames_errors),
	cmocka_unit_test(test_frames_csum_zero_probe),
	cmocka_unit_test(test_frames_fault_csum_bad),
	cmocka_unit_test(test_frames_fault_frag_mismatch),
	cmocka_unit_test(test_frames_fault_acks),
	cmocka_unit_test(test_frames_fault_recv))
