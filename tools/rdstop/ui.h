/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * ui.h - rdstop's interactive screen (ncurses): the loop, the keys and the
 * views. It reads snapshots and rates and never changes them.
 */
#ifndef TOP_UI_H
#define TOP_UI_H

#include <stddef.h>

#include "source.h"

/*
 * top_ui_run() - refresh from |src| every |delay| seconds until q (or
 * |count| refreshes, 0 = no limit). Return: 0; a negative errno with
 * |err| set when the source failed.
 */
int top_ui_run(const struct top_source *src, void *state, double delay,
	       unsigned long long count, char *err, size_t errlen);

#endif /* TOP_UI_H */
