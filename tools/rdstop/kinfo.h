/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * kinfo.h - the kernel source's pure half: the RDS_INFO read loop over an
 * injected getsockopt, and the decoding of each list into the model. Only
 * ksource.c calls the real getsockopt, so everything here runs in unit
 * tests on hosts without the rds module.
 */
#ifndef TOP_KINFO_H
#define TOP_KINFO_H

#include <stddef.h>
#include <stdint.h>

#include "top.h"

/* Largest buffer one list may take (a list that needs more fails with
 * -E2BIG): 16 MiB is over 250,000 connections or 320,000 messages. */
#define TOP_KINFO_MAX (16u << 20)
/* Size probes tried while a list keeps growing between calls. */
#define TOP_KINFO_TRIES 8

/*
 * The getsockopt to call: getsockopt(fd, SOL_RDS, opt, buf, len) with
 * its return value, or -errno on failure (-ENOSPC included).
 */
typedef int (*top_kinfo_gso)(void *ctx, unsigned opt, void *buf, size_t *len);

struct top_kinfo_buf {
	uint8_t *p;
	size_t cap;
	size_t len;                    /* bytes of whole items from the last read */
};

void top_kinfo_buf_fini(struct top_kinfo_buf *b);

/*
 * top_kinfo_read() - read list |opt| into |b| as a reader must: probe with
 * the current capacity, and while -ENOSPC comes back grow to the length
 * asked for (plus room for growth) and ask again, up to TOP_KINFO_TRIES
 * times and TOP_KINFO_MAX bytes.
 * Return: the item size the kernel returned; -ENOPROTOOPT (no such list:
 * its module is not loaded); -E2BIG (over TOP_KINFO_MAX); -EAGAIN (still
 * growing after all tries); -ENOMEM; -EPROTO (the kernel's item size or
 * length disagrees with libwire's); another -errno of |gso|.
 */
int top_kinfo_read(top_kinfo_gso gso, void *ctx, unsigned opt, struct top_kinfo_buf *b);

/*
 * top_kinfo_fill() - decode |len| bytes of list |opt| into |s|:
 * counters, connections (IPv6 list: all; the IPv4 list only adds the tos
 * to connections already known), messages, sockets, TCP sockets (as path
 * rows) and IB connections.
 * Return: items taken; -EPROTO if libwire refuses the bytes; -EINVAL for
 * a list the model has no place for; -ENOMEM.
 */
int top_kinfo_fill(struct top_snap *s, unsigned opt, const uint8_t *buf, size_t len);

/*
 * top_kinfo_snapshot() - read every list a kernel snapshot needs through |gso|
 * into |s| and link it; a list answered with -ENOPROTOOPT (its transport
 * module not loaded) is skipped.
 * Return: 0; the first other error of top_kinfo_read() or top_kinfo_fill(),
 * with the list's number in *failed.
 */
int top_kinfo_snapshot(top_kinfo_gso gso, void *ctx, struct top_kinfo_buf *b,
		       struct top_snap *s, unsigned *failed);

/*
 * top_kinfo_local_map() - the local node's congestion map as the kernel
 * keeps it, from what the lists show: a bound socket's port is congested
 * once its queued receive bytes exceed its RCVBUF (the socket list's
 * rcvbuf is already rds_sk_rcvbuf) and free again once they are below
 * half of it (rds_recv_rcvbuf_delta); in between it stays as |prev| had
 * it (NULL: free). Sets s->local_cong, and each connection's lcl_cong
 * to its local address's ports. Call after top_snap_link().
 * Return: 0; -ENOMEM.
 */
int top_kinfo_local_map(struct top_snap *s, const struct wire_cong_map *prev);

/* The kernel source's time line, the most recent TOP_KINFO_EVENTS kept. */
#define TOP_KINFO_EVENTS 256
struct top_kinfo_news {
	struct top_cong_event ev[TOP_KINFO_EVENTS];
	size_t first, n;
	uint64_t lost;
};

/*
 * top_kinfo_news() - add to |nw| at s->now_ns what changed: the runs of
 * s->local_cong that differ from |prev| (NULL: all free), and, when
 * s->has_cong_mask, the RDS_CMSG_CONG_UPDATE groups s->cong_mask of the
 * monitor socket as one peer-side event; then copy the time line into
 * |s| (events, events_lost). Call after top_kinfo_local_map().
 * Return: 0; -ENOMEM.
 */
int top_kinfo_news(struct top_kinfo_news *nw, const struct wire_cong_map *prev,
		   struct top_snap *s);

#endif /* TOP_KINFO_H */
