// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* rdscmsg.c - a send's control messages decoded (rdscmsg.h). */
#include "rdscmsg.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>

#ifndef SOL_RDS
#define SOL_RDS 276
#endif

#define RDSCMSG_UIO_MAXIOV 1024u

/* The cursor over the control bytes: the header at |pos| and its data, or
 * nothing. Alignment as CMSG_ALIGN (the size of a long). */
struct cur {
	const uint8_t *p;
	size_t len, pos;
};

static size_t align_up(size_t n)
{
	return (n + sizeof(long) - 1) & ~(sizeof(long) - 1);
}

/* The header at the cursor: 1 and *h; 0 at the end (fewer bytes than a
 * header left, as __CMSG_FIRSTHDR and cmsg_nxthdr end the walk);
 * -EINVAL when its length is not CMSG_OK. */
static int cur_hdr(const struct cur *c, struct cmsghdr *h)
{
	if (c->pos > c->len || c->len - c->pos < sizeof(*h))
		return 0;
	memcpy(h, c->p + c->pos, sizeof(*h));
	if (h->cmsg_len < sizeof(*h) || h->cmsg_len > c->len - c->pos)
		return -EINVAL;
	return 1;
}

/* Copy the argument of the header at the cursor into |dst| (|n| bytes),
 * if its cmsg_len holds them (CMSG_LEN(n)). Return: 0; -EINVAL. */
static int cur_arg(const struct cur *c, const struct cmsghdr *h, void *dst, size_t n)
{
	if (h->cmsg_len < CMSG_LEN(n))
		return -EINVAL;
	memcpy(dst, c->p + c->pos + CMSG_LEN(0), n);
	return 0;
}

static void cur_next(struct cur *c, const struct cmsghdr *h)
{
	size_t step = align_up(h->cmsg_len);

	c->pos = step > c->len - c->pos ? c->len : c->pos + step;
}

/* rds_rm_size's walk: every cmsg CMSG_OK, every SOL_RDS type known, an
 * RDMA_ARGS's local entries between 1 and UIO_MAXIOV; DEST and MAP
 * never with ARGS or an atomic. (An RDMA_ARGS too short to hold its
 * argument is left to the second walk's length check.) */
static int size_walk(struct cur c)
{
	unsigned groups = 0;
	struct cmsghdr h;
	int r;

	while ((r = cur_hdr(&c, &h)) == 1) {
		struct rds_rdma_args a;

		if (h.cmsg_level != SOL_RDS) {
			cur_next(&c, &h);
			continue;
		}
		switch (h.cmsg_type) {
		case RDS_CMSG_RDMA_ARGS:
			groups |= 1;
			if (cur_arg(&c, &h, &a, sizeof(a)) == 0) {
				if (a.nr_local == 0)
					return -EINVAL;
				if (a.nr_local > RDSCMSG_UIO_MAXIOV)
					return -EMSGSIZE;
			}
			break;
		case RDS_CMSG_ZCOPY_COOKIE:
		case RDS_CMSG_RDMA_DEST:
		case RDS_CMSG_RDMA_MAP:
			groups |= 2;
			break;
		case RDS_CMSG_ATOMIC_CSWP:
		case RDS_CMSG_ATOMIC_FADD:
		case RDS_CMSG_MASKED_ATOMIC_CSWP:
		case RDS_CMSG_MASKED_ATOMIC_FADD:
			groups |= 1;
			break;
		default:
			return -EINVAL;
		}
		cur_next(&c, &h);
	}
	if (r < 0)
		return r;
	return groups == 3 ? -EINVAL : 0;
}

/* rds_cmsg_send's walk: each argument whole, each kind once. */
static int one(const struct cur *c, const struct cmsghdr *h, struct rdscmsg *o,
	       bool *have_rdma, bool *have_atomic, bool *have_cookie)
{
	bool *have;
	int e;

	switch (h->cmsg_type) {
	case RDS_CMSG_RDMA_ARGS:
		e = cur_arg(c, h, &o->rdma, sizeof(o->rdma));
		have = have_rdma;        /* rds_cmsg_rdma_args: op_active */
		break;
	case RDS_CMSG_ATOMIC_FADD:
	case RDS_CMSG_ATOMIC_CSWP:
	case RDS_CMSG_MASKED_ATOMIC_FADD:
	case RDS_CMSG_MASKED_ATOMIC_CSWP:
		e = cur_arg(c, h, &o->atomic, sizeof(o->atomic));
		have = have_atomic;
		break;
	case RDS_CMSG_RDMA_DEST:
		e = cur_arg(c, h, &o->dest_cookie, sizeof(o->dest_cookie));
		have = have_cookie;      /* m_rdma_cookie already set */
		break;
	case RDS_CMSG_RDMA_MAP:
		e = cur_arg(c, h, &o->map, sizeof(o->map));
		have = have_cookie;
		break;
	default:                         /* RDS_CMSG_ZCOPY_COOKIE */
		o->zcopy = 1;
		if (cur_arg(c, h, &o->zcookie, sizeof(o->zcookie)))
			o->zcopy_short = 1;
		return 0;
	}
	if (e || *have)
		return -EINVAL;
	*have = true;
	if (o->n_ops++ == 0)
		o->type = h->cmsg_type;
	return 0;
}

int rdscmsg_parse(const void *ctl, size_t len, struct rdscmsg *out)
{
	struct cur c = { ctl, ctl ? len : 0, 0 };
	bool have_rdma = false, have_atomic = false, have_cookie = false;
	struct cmsghdr h;
	int r;

	memset(out, 0, sizeof(*out));
	r = size_walk(c);
	if (r < 0)
		return r;
	while ((r = cur_hdr(&c, &h)) == 1) {
		if (h.cmsg_level == SOL_RDS) {
			r = one(&c, &h, out, &have_rdma, &have_atomic, &have_cookie);
			if (r < 0)
				return r;
		}
		cur_next(&c, &h);
	}
	return r;
}
