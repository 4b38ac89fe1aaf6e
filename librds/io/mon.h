/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * mon.h - the monitor socket of struct rdsu_io (mon.c), as the loop sees
 * it: sources of its own in the epoll set, served in the loop's rounds.
 */
#ifndef RDSU_IO_MON_H
#define RDSU_IO_MON_H

#include <stdbool.h>
#include <stdint.h>

#include "transport.h"

struct rdsu_mon;

/* Readiness of |s| if it is the monitor's. Return: false if it is not. */
bool rdsu_mon_ready(struct rdsu_io *io, struct rdsu_src *s, uint32_t events, rdsu_ns now);
/* Close the socket and its clients and remove the socket file. */
void rdsu_mon_free(struct rdsu_io *io);
/* Publish at the default path when RDSU_MONITOR asks for it. */
void rdsu_mon_env(struct rdsu_io *io);

#endif /* RDSU_IO_MON_H */
