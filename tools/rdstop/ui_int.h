/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * ui_int.h - what the screen's loop (ui.c) and its views (ui_*.c) share:
 * the screen state and the drawing helpers. Views read the snapshot and
 * rates and draw between the header (lines 0-1) and the status line.
 */
#ifndef TOP_UI_INT_H
#define TOP_UI_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "top.h"

enum ui_view { UI_PEERS = 0, UI_CONG, UI_COUNTERS, UI_SOCKS, UI__VIEWS };

/* Sort columns of the peers view, cycled by s. */
enum ui_sort {
	UI_SORT_PEER = 0, UI_SORT_TXM, UI_SORT_RXM, UI_SORT_TXB, UI_SORT_RXB,
	UI_SORT_RETR, UI_SORT_CONG, UI__SORTS
};

/* A row of the peers view: a connection, or one of its paths. */
struct ui_row {
	size_t conn;
	size_t path;                   /* index into top_snap.paths; SIZE_MAX: the connection */
};

#define UI_ZOOM_MAX 17                 /* 65536 ports down to one: at most 16 steps */

struct ui {
	const struct top_snap *s;
	const struct top_rates *r;     /* NULL before the second snapshot */
	uint64_t prev_ns;              /* the previous snapshot's time: later map updates are recent */
	enum ui_view view;
	bool help, paused, color, detail;
	bool gone;                     /* the watched process exited */
	double delay;
	/* peers */
	struct ui_row *rows;
	size_t n_rows, cap_rows;
	size_t sel, first;
	enum ui_sort sort;
	char filter[64];
	/* congestion */
	int side;                      /* 0 the peer's map, 1 the local side's, 2 the local node's */
	uint32_t zbase[UI_ZOOM_MAX], zspan[UI_ZOOM_MAX];
	int zlevel;
	size_t cell;
	/* counters, sockets */
	size_t scroll;
};

/* Colour pairs, used only when ui.color is set. */
enum { UI_C_HEAD = 1, UI_C_LOW, UI_C_MID, UI_C_HIGH, UI_C_SEL };

/* ui_num() - |v| in at most 5 characters ("12.3k"); "-" when !known. */
const char *ui_num(bool known, double v, char *buf, size_t len);
/* ui_line() - |text| at line |y|, clipped to the screen's width. */
void ui_line(int y, const char *text);

/* Views: draw() fills lines 2 .. LINES-2; key() returns true if it used the key. */
void ui_peers_build(struct ui *u);
void ui_peers_draw(struct ui *u);
bool ui_peers_key(struct ui *u, int ch);
/* ui_peers_conn() - the connection of the selected row; SIZE_MAX if none. */
size_t ui_peers_conn(const struct ui *u);
void ui_cong_draw(struct ui *u);
bool ui_cong_key(struct ui *u, int ch);
void ui_counters_draw(struct ui *u);
void ui_socks_draw(struct ui *u);
/* ui_list_key() - arrows and pages over a list of |n| rows, |page| shown. */
bool ui_list_key(size_t *scroll, size_t n, size_t page, int ch);

#endif /* TOP_UI_INT_H */
