/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * render.h - rdstop's renderers: each takes a snapshot and the rates that
 * led to it and writes one document. Sources and the model know nothing
 * of them, so another output form is one more function here.
 */
#ifndef TOP_RENDER_H
#define TOP_RENDER_H

#include <stdio.h>

#include "out.h"
#include "top.h"

/*
 * top_print_text() - the plain-text snapshot of batch mode (like top -b):
 * a summary line, then connections with their path rows, IB connections,
 * sockets, and counters. |r| NULL (the first snapshot) prints "-" for
 * rates.
 */
void top_print_text(struct out *f, const struct top_snap *s, const struct top_rates *r);
/*
 * top_print_json() - the same snapshot as one JSON object on one line
 * (--json), through the output layer's field tables (render_json.c);
 * what the source cannot know is null.
 */
void top_print_json(FILE *f, const struct top_snap *s, const struct top_rates *r);

#endif /* TOP_RENDER_H */
