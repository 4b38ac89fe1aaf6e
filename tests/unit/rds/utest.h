/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * utest.h - one librds endpoint driven by hand: the test plays both the
 * transport and the peer kernel, feeding crafted bytes in and deframing
 * what the core writes with libwire.
 */
#ifndef UTEST_H
#define UTEST_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rds/rdsu.h>
#include <wire/wire.h>

#define SMALL 0x0a000001u /* 10.0.0.1 */
#define LARGE 0x0a000002u /* 10.0.0.2 */

#define T0 (1000 * RDSU_SEC)

/* ep_cfg_on() - the default configuration on the one address |addr|,
 * generation |gen|. */
static inline void ep_cfg_on(struct rdsu_ep_cfg *c, uint32_t addr, uint32_t gen)
{
	rdsu_ep_cfg_default(c);
	c->laddrs[0] = rdsu_addr_v4(addr);
	c->n_laddrs = 1;
	c->gen_num = gen;
}

/* ep_cfg_test() - ep_cfg_on() as most tests want it: kernel version |kv|,
 * a fixed seed and path rule |rule|. */
static inline void ep_cfg_test(struct rdsu_ep_cfg *c, uint32_t addr, enum wire_kver kv,
			       uint32_t gen, enum rdsu_path_rule rule)
{
	ep_cfg_on(c, addr, gen);
	c->kver = kv;
	c->seed = 99;
	c->path_rule = rule;
}

/* ep_new_ok() - the endpoint of |c|, which must be a valid configuration. */
static inline struct rdsu_ep *ep_new_ok(const struct rdsu_ep_cfg *c)
{
	struct rdsu_ep *ep;

	assert_int_equal(rdsu_ep_new(&ep, c), 0);
	return ep;
}

static inline struct rdsu_ep *ep_make_rule(uint32_t addr, enum wire_kver kv, uint32_t gen,
					   enum rdsu_path_rule rule)
{
	struct rdsu_ep_cfg c;

	ep_cfg_test(&c, addr, kv, gen, rule);
	return ep_new_ok(&c);
}

/* Most tests pick their ports by the kernel's path rule. */
static inline struct rdsu_ep *ep_make(uint32_t addr, enum wire_kver kv, uint32_t gen)
{
	return ep_make_rule(addr, kv, gen, RDSU_PATH_BY_PORT);
}

static inline struct rdsu_sock *sock_at(struct rdsu_ep *ep, uint32_t addr, uint16_t port)
{
	struct rdsu_sock *s;
	struct rdsu_addr a = rdsu_addr_v4(addr);

	assert_int_equal(rdsu_sock_new(ep, &s), 0);
	assert_int_equal(rdsu_sock_bind(s, &a, port), 0);
	return s;
}

/* Pull the next request of |type|, skipping OUTPUT requests unless asked. */
static inline int next_req(struct rdsu_ep *ep, enum rdsu_lreq_type type, struct rdsu_lreq *r)
{
	while (rdsu_ep_next_link_req(ep, r) == 1)
		if (r->type == type)
			return 1;
	return 0;
}

/* ------------------------------------------------------------------------
 * Frames the core wrote on a link
 */

struct oframe {
	struct wire_hdr h;
	uint32_t len;
	uint8_t *data; /* copy of the payload */
};

struct peer {
	struct rdsu_ep *ep;
	uint64_t link;
	uint64_t written;       /* bytes the core output on this link */
	struct wire_deframer d;
	uint8_t *gather;
	struct oframe f[512];
	size_t n;
	rdsu_ns now;
	unsigned chunk;         /* output chunk size (0: 7919) */
};

static inline void peer_init(struct peer *p, struct rdsu_ep *ep, uint64_t link)
{
	memset(p, 0, sizeof(*p));
	p->ep = ep;
	p->link = link;
	p->now = T0;
	p->gather = malloc(WIRE_MAX_MSG_LEN);
	wire_deframer_init(&p->d, 0, p->gather, WIRE_MAX_MSG_LEN);
}

/* New link on the same peer (after a reconnect): a fresh stream. */
static inline void peer_relink(struct peer *p, uint64_t link)
{
	p->link = link;
	p->written = 0;
	wire_deframer_init(&p->d, 0, p->gather, WIRE_MAX_MSG_LEN);
}

static inline void peer_clear(struct peer *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->f[i].data);
	p->n = 0;
}

static inline void peer_fini(struct peer *p)
{
	peer_clear(p);
	free(p->gather);
}

/* Take everything the core has to write; Return: bytes taken. */
static inline size_t peer_pull(struct peer *p)
{
	static uint8_t buf[65536];
	size_t total = 0;

	for (;;) {
		size_t cap = p->chunk ? p->chunk : 7919;
		ssize_t n = rdsu_link_output(p->ep, p->link, buf, cap, p->now);
		size_t used = 0;

		assert_true(n >= 0);
		if (n == 0)
			break;
		p->written += (size_t)n;
		total += (size_t)n;
		while (used < (size_t)n) {
			struct wire_frame f;
			bool ready;
			ssize_t k = wire_deframer_input(&p->d, buf + used, (size_t)n - used, &f,
							&ready);

			assert_true(k >= 0);
			used += (size_t)k;
			if (ready) {
				assert_true(p->n < sizeof(p->f) / sizeof(p->f[0]));
				p->f[p->n].h = f.hdr;
				p->f[p->n].len = f.len;
				p->f[p->n].data = malloc(f.len ? f.len : 1);
				if (f.len)
					memcpy(p->f[p->n].data, f.payload, f.len);
				p->n++;
			}
		}
	}
	return total;
}

static inline void peer_ack_all(struct peer *p)
{
	assert_true(rdsu_link_acked(p->ep, p->link, p->written, p->now) >= 0);
}

/* Feed one message to the core, optionally one byte at a time. */
static inline ssize_t peer_feed(struct peer *p, const struct wire_hdr *h, const uint8_t *payload,
				bool bytewise)
{
	uint8_t *buf = malloc(WIRE_HDR_LEN + h->len);
	size_t len = WIRE_HDR_LEN + h->len;
	ssize_t r = 0;

	wire_hdr_encode(h, buf, WIRE_HDR_LEN);
	/* (payload, not h->len, decides: GCC cannot tie a NULL payload to a
	 * zero length through the inlining and warns) */
	if (payload)
		memcpy(buf + WIRE_HDR_LEN, payload, h->len);
	if (!bytewise) {
		r = rdsu_link_input(p->ep, p->link, buf, len, p->now);
	} else {
		for (size_t i = 0; i < len && r >= 0; i++) {
			ssize_t k = rdsu_link_input(p->ep, p->link, buf + i, 1, p->now);

			r = k < 0 ? k : r + k;
		}
	}
	free(buf);
	return r;
}

/* The peer's first words on a connection, as every kernel's: its
 * congestion map (rds_connect_path_complete). Until then no data of the
 * endpoint goes on a connection it accepted. */
static inline void peer_hello(struct peer *p)
{
	static const uint8_t clear[WIRE_CONG_MAP_BYTES];
	struct wire_hdr h;

	memset(&h, 0, sizeof(h));
	h.flags = WIRE_FLAG_CONG_BITMAP;
	h.len = WIRE_CONG_MAP_BYTES;
	assert_int_equal(peer_feed(p, &h, clear, false), WIRE_HDR_LEN + WIRE_CONG_MAP_BYTES);
}

static inline size_t count_kind(const struct peer *p, enum wire_kind k)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n; i++)
		n += wire_classify(&p->f[i].h, WIRE_XPORT_TCP) == k;
	return n;
}

static inline const struct oframe *find_kind(const struct peer *p, enum wire_kind k)
{
	for (size_t i = 0; i < p->n; i++)
		if (wire_classify(&p->f[i].h, WIRE_XPORT_TCP) == k)
			return &p->f[i];
	return NULL;
}

/* The fixture of the tests that talk over one link: an endpoint, a
 * socket on it (sending to |dst|, where a test needs one) and the peer on
 * the link, which the test brings up (peer_init()) where it needs one. */
struct fixture {
	struct rdsu_ep *ep;
	struct rdsu_sock *s;
	struct rdsu_addr dst;
	struct peer p;
};

/* fixture_new() - the endpoint on |addr| and its socket at |port|. */
static inline struct fixture *fixture_new(uint32_t addr, uint16_t port)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	fx->ep = ep_make(addr, WIRE_KVER_7, 9);
	fx->s = sock_at(fx->ep, addr, port);
	return fx;
}

static inline void fixture_free(struct fixture *fx)
{
	peer_fini(&fx->p);
	rdsu_ep_free(fx->ep);
	free(fx);
}

static inline int fixture_teardown(void **state)
{
	fixture_free(*state);
	return 0;
}

/* ------------------------------------------------------------------------
 * Getting a link up
 */

/* |ep| is LARGE; the SMALL peer connects to it from |sport|. */
static inline uint64_t accept_from_small(struct rdsu_ep *ep, uint16_t sport)
{
	struct rdsu_addr l = rdsu_addr_v4(LARGE), f = rdsu_addr_v4(SMALL);
	uint64_t link = 0;

	assert_int_equal(rdsu_link_accept(ep, &l, &f, sport, T0, &link), RDSU_ACCEPT_UP);
	assert_true(link != 0);
	return link;
}

/* |ep| is SMALL and has something for LARGE: take its CONNECT request for
 * |path| and report it established. */
static inline uint64_t connect_to_large(struct rdsu_ep *ep, unsigned path, rdsu_ns now)
{
	struct rdsu_lreq r;

	assert_int_equal(next_req(ep, RDSU_LREQ_CONNECT, &r), 1);
	assert_int_equal(r.path, path);
	assert_int_equal(r.dport, RDSU_TCP_PORT);
	assert_int_equal(rdsu_addr_get_v4(&r.faddr), LARGE);
	assert_int_equal(rdsu_link_established(ep, r.link, (uint16_t)(32768 + path), now), 0);
	return r.link;
}

/* fixture_one_path() - SMALL's socket at |port|, sending to LARGE over
 * one path that is up: a ping brought it up, the peer's probe pong agreed
 * one path, everything written so far acknowledged. */
static inline struct fixture *fixture_one_path(uint16_t port)
{
	struct fixture *fx = fixture_new(SMALL, port);
	struct wire_hdr h;
	struct iovec iov = { NULL, 0 };

	fx->dst = rdsu_addr_v4(LARGE);
	assert_int_equal(rdsu_sock_submit(fx->s, &fx->dst, 0, &iov, 0, T0), 0); /* a ping */
	peer_init(&fx->p, fx->ep, connect_to_large(fx->ep, 0, T0));
	wire_build_probe(&h, true, 1, WIRE_KVER_7, 1, 0x77);
	assert_int_equal(peer_feed(&fx->p, &h, NULL, false), WIRE_HDR_LEN);
	peer_pull(&fx->p);
	peer_ack_all(&fx->p);
	peer_clear(&fx->p);
	return fx;
}

static inline struct rdsu_conn_info conn_of(struct rdsu_ep *ep, uint32_t l, uint32_t f)
{
	struct rdsu_addr la = rdsu_addr_v4(l), fa = rdsu_addr_v4(f);
	struct rdsu_conn_info ci;

	assert_int_equal(rdsu_ep_conn_get(ep, &la, &fa, &ci), 0);
	return ci;
}

static inline uint64_t stat(struct rdsu_ep *ep, enum rdsu_stat s)
{
	struct rdsu_stats st;

	rdsu_ep_get_stats(ep, &st);
	return st.v[s];
}

static inline void probe_hdr(struct wire_hdr *h, bool pong, uint64_t seq, enum wire_kver kv,
			     uint16_t npaths, uint32_t gen)
{
	wire_build_probe(h, pong, seq, kv, npaths, gen);
}

#endif /* UTEST_H */
