/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * nlbld.h - a netlink message builder for tests: nlmsghdr, attributes and
 * nests in host order, as the kernel's nla_put*() lays them out (RDMA
 * netlink device dumps: libwire's and rdstop's tests).
 */
#ifndef TESTS_NLBLD_H
#define TESTS_NLBLD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <wire/wire.h>

/* A message builder: nlmsghdr, attributes, nests (host order). */
struct bld {
	uint8_t b[2048];
	size_t n;
	size_t nest[4];
	int depth;
};

static inline void put16(struct bld *x, uint16_t v)
{
	memcpy(x->b + x->n, &v, 2);
	x->n += 2;
}

static inline void put32(struct bld *x, uint32_t v)
{
	memcpy(x->b + x->n, &v, 4);
	x->n += 4;
}

static inline void bld_hdr(struct bld *x, uint16_t cmd, uint32_t seq)
{
	memset(x, 0, sizeof(*x));
	put32(x, 0);
	put16(x, (uint16_t)(WIRE_NL_CLIENT_NLDEV << 10 | cmd));
	put16(x, 2);                    /* NLM_F_MULTI */
	put32(x, seq);
	put32(x, 4242);
}

static inline void bld_attr(struct bld *x, uint16_t type, const void *d, uint16_t n)
{
	put16(x, (uint16_t)(4 + n));
	put16(x, type);
	if (n)
		memcpy(x->b + x->n, d, n);
	x->n += n;
	while (x->n % 4)
		x->b[x->n++] = 0;
}

static inline void bld_u32(struct bld *x, uint16_t type, uint32_t v)
{
	bld_attr(x, type, &v, 4);
}

static inline void bld_u8(struct bld *x, uint16_t type, uint8_t v)
{
	bld_attr(x, type, &v, 1);
}

static inline void bld_str(struct bld *x, uint16_t type, const char *s)
{
	bld_attr(x, type, s, (uint16_t)(strlen(s) + 1));
}

/* nla_put_u64_64bit: a PAD attribute first when the value would not be
 * 8-byte aligned (as the kernel does on 32-bit-unaligned skbs). */
static inline void bld_u64(struct bld *x, uint16_t type, uint64_t v)
{
	if ((x->n + 4) % 8)
		bld_attr(x, WIRE_NLDEV_ATTR_PAD, NULL, 0);
	bld_attr(x, type, &v, 8);
}

static inline void nest_open(struct bld *x, uint16_t type)
{
	x->nest[x->depth++] = x->n;
	put16(x, 0);
	put16(x, type);
}

static inline void nest_close(struct bld *x)
{
	size_t at = x->nest[--x->depth];
	uint16_t l = (uint16_t)(x->n - at);

	memcpy(x->b + at, &l, 2);
}

static inline size_t bld_end(struct bld *x)
{
	uint32_t l = (uint32_t)x->n;

	memcpy(x->b, &l, 4);
	return x->n;
}

static inline void bld_dev(struct bld *x, uint32_t index, const char *name)
{
	bld_u32(x, WIRE_NLDEV_ATTR_DEV_INDEX, index);
	bld_str(x, WIRE_NLDEV_ATTR_DEV_NAME, name);
}

/* A resource entry's nest of |type| opened, its port index first as
 * fill_res_qp_entry() and fill_res_cm_id_entry() put it, left out when 0. */
static inline void bld_entry_open(struct bld *x, uint16_t type, uint32_t port)
{
	nest_open(x, type);
	if (port)
		bld_u32(x, WIRE_NLDEV_ATTR_PORT_INDEX, port);
}

/* A QP entry as fill_res_qp_entry() writes it; port 0 and rqpn 0 are left
 * out (the kernel omits them before the QP has them / for UD). */
struct bld_qp {
	uint32_t port, lqpn, rqpn;
	uint8_t type, state;
	const char *kern;
};

static inline void bld_qp(struct bld *x, const struct bld_qp *q)
{
	bld_entry_open(x, WIRE_NLDEV_ATTR_RES_QP_ENTRY, q->port);
	bld_u32(x, WIRE_NLDEV_ATTR_RES_LQPN, q->lqpn);
	bld_str(x, WIRE_NLDEV_ATTR_RES_KERN_NAME, q->kern);
	if (q->rqpn)
		bld_u32(x, WIRE_NLDEV_ATTR_RES_RQPN, q->rqpn);
	bld_u32(x, 24, 0);              /* RES_SQ_PSN: not read, skipped */
	bld_u8(x, WIRE_NLDEV_ATTR_RES_TYPE, q->type);
	bld_u8(x, WIRE_NLDEV_ATTR_RES_STATE, q->state);
	nest_close(x);
}

/* A sockaddr_in of 10.199.0.|last| in a 128-byte __kernel_sockaddr_storage. */
static inline void bld_sin(struct bld *x, uint16_t type, uint8_t last, uint16_t port)
{
	uint8_t ss[128] = { 2, 0, (uint8_t)(port >> 8), (uint8_t)port, 10, 199, 0, last };

	bld_attr(x, type, ss, sizeof(ss));
}

/* An rdma_cm ID entry as fill_res_cm_id_entry() writes it; lqpn 0 (no QP),
 * dst 0 (a listener) and port 0 are left out. */
struct bld_cm {
	uint32_t port, lqpn, id;
	uint8_t state, src, dst;
	uint16_t sport, dport;
	const char *kern;
};

static inline void bld_cm(struct bld *x, const struct bld_cm *c)
{
	bld_entry_open(x, WIRE_NLDEV_ATTR_RES_CM_ID_ENTRY, c->port);
	if (c->lqpn) {
		bld_u32(x, WIRE_NLDEV_ATTR_RES_LQPN, c->lqpn);
		bld_u8(x, WIRE_NLDEV_ATTR_RES_TYPE, 2);
	}
	bld_u32(x, WIRE_NLDEV_ATTR_RES_PS, 0x106);
	bld_u8(x, WIRE_NLDEV_ATTR_RES_STATE, c->state);
	bld_sin(x, WIRE_NLDEV_ATTR_RES_SRC_ADDR, c->src, c->sport);
	if (c->dst)
		bld_sin(x, WIRE_NLDEV_ATTR_RES_DST_ADDR, c->dst, c->dport);
	bld_u32(x, WIRE_NLDEV_ATTR_RES_CM_IDN, c->id);
	bld_str(x, WIRE_NLDEV_ATTR_RES_KERN_NAME, c->kern);
	nest_close(x);
}

#endif /* TESTS_NLBLD_H */
