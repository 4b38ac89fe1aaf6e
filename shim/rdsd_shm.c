// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rdsd_shm.c - the send rings (rdsd_ring.h): made for a process's reply
 * channel on RDSD_OP_RING, drained into do_send, armed before rdsd
 * sleeps, freed with the channel. The map of the shim is shim/README.md.
 *
 * What a ring holds is untrusted: rdsd_ring_next checks every index and
 * length against rdsd's own copy of the size before a byte is used, the
 * request header is decoded once (rdsd_req_decode, from a copy), only
 * RDSD_OP_SEND is taken from a ring, and its reply channel is the ring's,
 * whatever the record says. The payload is read once, by librds's copy
 * (or local delivery's); nothing keeps a pointer into the ring after a
 * record is consumed.
 */
#include "rdsd.h"

#include <sys/eventfd.h>
#include <sys/mman.h>

/* A sealed memfd of |len| bytes, mapped: the process that gets it can
 * write to it but not shrink it under us (no SIGBUS for rdsd) nor grow
 * it. Return: its descriptor and *mem, or -1. */
static int ring_memfd(size_t len, void **mem)
{
	int fd = memfd_create("rdsd-ring", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)len) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0)
		goto fail;
	*mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (*mem == MAP_FAILED)
		goto fail;
	return fd;
fail:
	close(fd);
	return -1;
}

/* Answer: 0 with the ring's memfd and eventfd; -EEXIST, -ENOBUFS past
 * the user's share (the process then sends over its connection), -ENOMEM. */
void ring_open(struct dsock *s, const struct rdsd_req *q)
{
	size_t len = RDSD_RING_CTL + RDSD_RING_SIZE;
	struct chan *c = chan_find(s, q->chan);
	struct dring *r = NULL;
	int mfd = -1, fds[2];
	void *mem = NULL;

	if (!c)
		return;  /* nowhere to answer */
	if (c->ring) {
		reply(s, c->id, q->seq, -EEXIST, 0, NULL, 0);
		return;
	}
	if (s->user->ring_bytes + len > RDSD_USER_RING_BYTES || !user_take(s->user)) {
		logf_("socket %d: no send ring (uid %d's share)", s->fd, (int)s->user->uid);
		reply(s, c->id, q->seq, -ENOBUFS, 0, NULL, 0);
		return;
	}
	r = calloc(1, sizeof(*r));
	if (r)
		mfd = ring_memfd(len, &mem);
	if (mfd >= 0)
		r->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (mfd < 0 || r->efd < 0 || rdsd_ring_cons_init(&r->rc, mem, RDSD_RING_SIZE) < 0 ||
	    ep_add(r->efd, r, EPOLLIN | EPOLLET) < 0) {
		if (r && r->efd >= 0 && mfd >= 0)
			close(r->efd);
		if (mfd >= 0) {
			munmap(mem, len);
			close(mfd);
		}
		free(r);
		user_drop(s->user);
		reply(s, c->id, q->seq, -ENOMEM, 0, NULL, 0);
		return;
	}
	r->o.kind = OBJ_RING;
	r->c = c;
	r->mem = mem;
	r->len = len;
	c->ring = r;
	s->user->ring_bytes += len;
	fds[0] = mfd;
	fds[1] = r->efd;
	reply_rights(s, c->id, q->seq, 0, RDSD_RING_SIZE, fds, 2);
	close(mfd);  /* the mapping stays */
	logf_("socket %d: a send ring for channel %u", s->fd, c->id);
}

void ring_free(struct chan *c)
{
	struct dring *r = c->ring;

	forget_events(r);
	close(r->efd);      /* out of epoll with it */
	munmap(r->mem, r->len);
	c->s->user->ring_bytes -= r->len;
	user_drop(c->s->user);
	c->ring = NULL;
	free(r);
}

/* Every send published in |c|'s ring, in order, as far as it goes: a
 * record not all published waits; a malformed one ends the ring. */
void ring_drain_chan(struct dsock *s, struct chan *c)
{
	struct dring *r = c->ring;
	bool any = false;

	if (!r)
		return;
	rdsd_ring_disarm(&r->rc);
	g_send_batch = true;
	for (;;) {
		enum rdsd_ring_res res;
		enum rdsd_decode d;
		const uint8_t *body, *pl;
		size_t len, plen;
		struct rdsd_req q;

		res = rdsd_ring_next(&r->rc, &body, &len);
		if (res != RDSD_RING_OK) {
			if (res == RDSD_RING_MALFORMED && !r->told) {
				logf_("socket %d: channel %u's ring is malformed: read no more",
				      s->fd, c->id);
				r->told = true;
			}
			break;
		}
		d = rdsd_req_decode(body, len, &q, &pl, &plen);
		if (d != RDSD_DECODE_OK || q.op != RDSD_OP_SEND) {
			logf_("socket %d: channel %u's ring holds a bad request: skipped",
			      s->fd, c->id);
			rdsd_ring_consume(&r->rc);
			continue;
		}
		q.chan = c->id;     /* answers go to this process only */
		do_send(s, &q, pl, plen);
		rdsd_ring_consume(&r->rc);
		any = true;
	}
	g_send_batch = false;
	if (any && s->ep)
		(void)rdsu_io_flush(s->ep->io);
}

void ring_drain(struct dsock *s)
{
	for (struct chan *c = s->chans; c; c = c->next)
		ring_drain_chan(s, c);
}

/* Before rdsd sleeps: every ring told so. Return: true when one of them
 * got something since it was read (do not sleep). */
bool rings_arm(void)
{
	bool any = false;

	for (struct dsock *s = g_socks; s; s = s->next)
		for (struct chan *c = s->chans; c; c = c->next)
			if (c->ring && rdsd_ring_arm(&c->ring->rc))
				any = true;
	return any;
}
