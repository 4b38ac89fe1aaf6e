/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * cap.h - the capture source's pure half: packets go through rdsdump's
 * engine (dump.h) and what its records and per-connection statistics say
 * becomes a snapshot. No I/O and no clock: csource.c reads the packets
 * and says what time it is.
 *
 * A capture has no "local" side: a connection's laddr is the end with the
 * smaller address (the engine's side a), so "tx" is what that end sent.
 */
#ifndef TOP_CAP_H
#define TOP_CAP_H

#include <stddef.h>
#include <stdint.h>

#include "dump.h"
#include "top.h"

/* Map updates kept for the time line; older ones are counted, not kept. */
#define TOP_CAP_EVENTS 1024

struct top_cap;

/* top_cap_new() - Return: 0; -ENOMEM; -EINVAL from the engine. */
int top_cap_new(struct top_cap **out);
void top_cap_free(struct top_cap *c);
/* top_cap_packet() - one captured packet at |t_ns| on the snapshot clock. */
void top_cap_packet(struct top_cap *c, const struct dump_pkthdr *ph, const uint8_t *buf,
		    uint64_t t_ns);
/* top_cap_finish() - the capture ended: flush what the engine holds. */
void top_cap_finish(struct top_cap *c, uint64_t t_ns);
/* top_cap_add_event() - one map update onto the time line; beyond
 * TOP_CAP_EVENTS the oldest is dropped and counted. */
void top_cap_add_event(struct top_cap *c, const struct top_cong_event *ev);
/*
 * top_cap_fill() - what the capture has shown so far into the empty |out|:
 * connections with their paths, maps, the time line and totals as
 * counters. Return: 0; -ENOMEM (|out| partly filled).
 */
int top_cap_fill(const struct top_cap *c, struct top_snap *out);

#endif /* TOP_CAP_H */
