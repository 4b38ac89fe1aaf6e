/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * transport.h - what a transport is to the loop (loop.c): an ops table in
 * the manner of the kernel's struct rds_transport (net/rds/rds.h), trimmed
 * to a single-threaded userspace endpoint. The loop knows transports only
 * through this table; the core knows them only through the link calls of
 * rdsu.h (docs/librds.md, "Transports").
 *
 * RDMA is not in this table: a transport that carries it gives the core
 * its own seam (rdsu_ep_set_rdma: get_mr, free_mr, xmit_op, the kernel's
 * get_mr, free_mr, xmit_rdma, xmit_atomic) when it is made, and reports
 * completions with rdsu_link_op_done() (ib_rdma.c).
 *
 * What a transport tells the core, per link:
 *
 *   stream (TCP): rdsu_link_input() takes the byte stream in any chunking
 *     and the core deframes it; rdsu_link_peek/advance/output hand out
 *     the byte stream to write; rdsu_link_acked() says "the peer
 *     acknowledged the stream up to offset N", learnt from the OS
 *     (written - SIOCOUTQ), so the transport must report it when it grows
 *     (the acks op).
 *   frames (IB): each receive completion is one whole frame
 *     (the 48-byte header and up to 4096 payload bytes, every fragment
 *     carrying the full header); acknowledgement is RDS-level, h_ack in
 *     the frames themselves and ACK-only frames, so the core learns it
 *     from its input (rdsu_link_input_frame) and the acks op has nothing
 *     to do; rdsu_link_output_frame hands out one frame at a time. See
 *     docs/librds.md for what else the core owes such a transport.
 */
#ifndef RDSU_IO_TRANSPORT_H
#define RDSU_IO_TRANSPORT_H

#include <rds/rdsu_io.h>

#include <stdbool.h>
#include <stdint.h>

struct rdsu_io;
struct rdsu_transport;

/* A descriptor in the loop's epoll set. Its owner embeds it; the loop
 * hands readiness back to the owner's ready op, which may have retired
 * the source earlier in the same batch (it must then ignore it until its
 * reap op frees it). */
struct rdsu_src {
	struct rdsu_transport *tr;   /* NULL: the loop's own (the timerfd) */
	int fd;
	uint32_t events;             /* epoll interest registered */
};

/* What a transport's wait op did (see there). */
enum rdsu_twait {
	RDSU_TWAIT_NONE = 0, /* no wait, or one that timed out: the loop waits */
	RDSU_TWAIT_DONE,     /* it waited and handled what ended the wait */
	RDSU_TWAIT_POLL,     /* ... and the epoll set is ready as well */
};

struct rdsu_transport_ops {
	/* RDSU_TRANS_*, as the kernel's RDS_TRANS_*: its name, framing and
	 * the rest the core needs to know are rdsu_tprops_get(id)'s, said
	 * once in core/tprops.c */
	unsigned id;

	/* Start accepting connections to local address |a|.
	 * Return: 0; a negative errno. */
	int (*listen)(struct rdsu_transport *tr, const struct rdsu_addr *a);
	/* One of the transport's sources is ready with epoll |events|. */
	void (*ready)(struct rdsu_transport *tr, struct rdsu_src *src, uint32_t events,
		      rdsu_ns now);
	/* RDSU_LREQ_CONNECT: open the link, then rdsu_link_established() or
	 * rdsu_link_down(). */
	void (*connect)(struct rdsu_transport *tr, const struct rdsu_lreq *req, rdsu_ns now);
	/* The transport's link with core id |link|, or NULL: the loop asks
	 * each transport until one knows it. */
	void *(*find)(struct rdsu_transport *tr, uint64_t link);
	/* RDSU_LREQ_OUTPUT: the core has bytes (frames) for |lk|. */
	void (*output)(struct rdsu_transport *tr, void *lk, rdsu_ns now);
	/* RDSU_LREQ_CLOSE: close |lk|, aborting when |reset|; the core has
	 * let go of it, so it is not reported down. */
	void (*close)(struct rdsu_transport *tr, void *lk, bool reset, rdsu_ns now);
	/* RDSU_LREQ_ATTACH: start reading the held |lk|. */
	void (*attach)(struct rdsu_transport *tr, void *lk, rdsu_ns now);
	/* Tell the core what the peer acknowledged, if the transport learns
	 * that from the OS and it is time to look (|flush|: the cheap
	 * rdsu_io_flush look, only for a socket waiting for room). NULL for
	 * a transport whose acknowledgements arrive in its frames.
	 * Return: true if the core freed messages. */
	bool (*acks)(struct rdsu_transport *tr, rdsu_ns now, bool flush);
	/* The transport's own next due time (RDSU_NS_NEVER for none); the
	 * loop's timerfd fires for it and calls expire. */
	rdsu_ns (*deadline)(const struct rdsu_transport *tr);
	void (*expire)(struct rdsu_transport *tr, rdsu_ns now);
	/*
	 * Before the loop waits |*wait_ms| (0: it will not) on the epoll set:
	 * a transport that knows which of its sources will most likely end
	 * the wait may block on that source itself (TCP's direct and ring
	 * waits) and hand what it read to the core. |alone|: the loop has no
	 * other transport, so no other source can need the wait. May lower
	 * *wait_ms; updates *now after a wait. NULL: never waits itself.
	 * Return: an rdsu_twait, *res set for RDSU_TWAIT_DONE (what the
	 * round returns); a negative errno the round returns.
	 */
	int (*wait)(struct rdsu_transport *tr, bool alone, int *wait_ms, rdsu_ns *now,
		    int *res);
	/* The end of a round: free what was retired during it. */
	void (*reap)(struct rdsu_transport *tr);
	/* Close everything (no RST, no drain) and free the transport. */
	void (*free)(struct rdsu_transport *tr);
};

struct rdsu_transport {
	const struct rdsu_transport_ops *ops;
	struct rdsu_io *io;
};

#endif /* RDSU_IO_TRANSPORT_H */
