// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ui_cong.c - the congestion view: one end's 65,536-port map as a heat map
 * that fits the screen (each cell a power-of-two run of ports, shaded by
 * how many are congested), zoomed cell by cell down to single ports, and
 * the time line of map updates below.
 */
#include <ncurses.h>
#include <stdio.h>
#include <string.h>

#include "ui_int.h"

#define LABEL 6                        /* "65024 " */
#define MIN_TIMELINE 4

static const struct wire_cong_map *map_of(const struct ui *u, size_t c, const char **who,
					  char *buf, size_t len)
{
	const struct top_conn *k = c < u->s->n_conns ? &u->s->conns[c] : NULL;
	char a[64];

	if (u->side == 2) {
		*who = "the local node";
		return u->s->local_cong;
	}
	if (!k) {
		*who = "no connection";
		return NULL;
	}
	snprintf(buf, len, "%s (%s)", top_addr_str(u->side ? k->laddr : k->faddr, a, sizeof(a)),
		 u->side ? "local side" : "peer");
	*who = buf;
	return u->side ? k->lcl_cong : k->peer_cong;
}

/* The grid for the current zoom: |cols| cells a row, |rows| rows, |per|
 * ports a cell, each a power of two so cells never straddle a row. */
static void layout(const struct ui *u, int height, uint32_t *cols, uint32_t *rows,
		   uint32_t *per)
{
	uint32_t span = u->zspan[u->zlevel];

	*cols = 1;
	while (*cols * 2 <= (uint32_t)(COLS - LABEL) && *cols * 2 <= span)
		*cols *= 2;
	*per = 1;
	while (span / (*cols * *per) > (uint32_t)(height > 1 ? height : 1))
		*per *= 2;
	*rows = (span + *cols * *per - 1) / (*cols * *per);
}

static bool recent(const struct ui *u, size_t c, uint32_t first, uint32_t last)
{
	for (size_t i = 0; i < u->s->n_events; i++) {
		const struct top_cong_event *ev = &u->s->events[i];

		/* the local node's own updates have no connection */
		bool mine = u->side == 2 ? ev->conn == SIZE_MAX && !ev->from_peer :
			    ev->conn == c && ev->from_peer == (u->side == 0);

		if (ev->t_ns > u->prev_ns && mine && ev->first <= last && ev->last >= first)
			return true;
	}
	return false;
}

static uint32_t count_range(const struct wire_cong_map *m, uint32_t first, uint32_t n)
{
	uint32_t k = 0;
	int32_t p = wire_cong_next(m, first);

	while (p >= 0 && (uint32_t)p < first + n) {
		k++;
		p = wire_cong_next(m, (uint32_t)p + 1);
	}
	return k;
}

static char shade(uint32_t k, uint32_t n, int *pair)
{
	*pair = k == 0 ? 0 : k * 2 <= n ? UI_C_LOW : k < n ? UI_C_MID : UI_C_HIGH;
	if (k == 0)
		return '.';
	if (k == n)
		return '#';
	if (k * 4 <= n)
		return ':';
	return k * 4 <= n * 3 ? '+' : '*';
}

static void draw_timeline(const struct ui *u, size_t c, int y, int bottom)
{
	char line[160], a[64];

	ui_line(y++, "TIME LINE (newest first; * since the last refresh)");
	if (u->s->cong_news && y <= bottom) {
		snprintf(line, sizeof(line), "  %s", u->s->cong_news);
		ui_line(y++, line);
	}
	if (u->s->events_lost && y <= bottom) {
		snprintf(line, sizeof(line), "  (%llu earlier updates not kept)",
			 (unsigned long long)u->s->events_lost);
		ui_line(bottom--, line);
	}
	for (size_t i = u->s->n_events; i-- > 0 && y <= bottom;) {
		const struct top_cong_event *ev = &u->s->events[i];
		const struct top_conn *k = ev->conn < u->s->n_conns ? &u->s->conns[ev->conn] : NULL;
		char ports[32];

		bool node = u->side == 2 && ev->conn == SIZE_MAX && !ev->from_peer;

		if (ev->groups) {
			/* the monitor socket does not say whose map */
			snprintf(line, sizeof(line), "%c %c%.3f  peers' maps, port groups 0x%016llx",
				 ev->t_ns > u->prev_ns ? '*' : ' ', u->s->replay ? '+' : '@',
				 (double)ev->t_ns / 1e9, (unsigned long long)ev->groups);
			ui_line(y++, line);
			continue;
		}
		if (!node && (ev->conn != c || !k))
			continue;
		if (ev->first == ev->last)
			snprintf(ports, sizeof(ports), "port %u", ev->first);
		else
			snprintf(ports, sizeof(ports), "ports %u-%u", ev->first, ev->last);
		snprintf(line, sizeof(line), "%c %c%.3f  %-15s %-17s %s",
			 ev->t_ns > u->prev_ns ? '*' : ' ', u->s->replay ? '+' : '@',
			 (double)ev->t_ns / 1e9,
			 node ? "local node" :
				top_addr_str(ev->from_peer ? k->faddr : k->laddr, a, sizeof(a)), ports,
			 ev->congested ? "congested" : "free");
		ui_line(y++, line);
	}
}

void ui_cong_draw(struct ui *u)
{
	size_t c = ui_peers_conn(u);
	char who_buf[96], line[160];
	const char *who;
	const struct wire_cong_map *m = map_of(u, c, &who, who_buf, sizeof(who_buf));
	uint32_t base = u->zbase[u->zlevel], span = u->zspan[u->zlevel];
	uint32_t cols, rows, per, first;
	int bottom = LINES - 2, height = bottom - 4 - MIN_TIMELINE, y = 2;

	layout(u, height, &cols, &rows, &per);
	if (u->cell >= (size_t)cols * rows)
		u->cell = (size_t)cols * rows - 1;
	snprintf(line, sizeof(line), "map of %s: %s congested  m: other end",
		 who, m ? "" : "unknown");
	if (m)
		snprintf(line, sizeof(line), "map of %s: %zu congested  m: other end", who,
			 wire_cong_count(m));
	ui_line(y++, line);
	first = base + (uint32_t)u->cell * per;
	if (m)
		snprintf(line, sizeof(line), "ports %u-%u, %u a cell; cursor %u-%u: %u congested",
			 base, base + span - 1, per, first, first + per - 1,
			 count_range(m, first, per));
	else
		snprintf(line, sizeof(line), "ports %u-%u, %u a cell", base, base + span - 1, per);
	ui_line(y++, line);
	for (uint32_t r = 0; r < rows && y <= bottom; r++, y++) {
		mvprintw(y, 0, "%5u ", base + r * cols * per);
		clrtoeol();
		for (uint32_t k = 0; k < cols; k++) {
			uint32_t p = base + (r * cols + k) * per;
			uint32_t n = m ? count_range(m, p, per) : 0;
			bool chg = recent(u, c, p, p + per - 1);
			int pair;
			char ch = m ? shade(n, per, &pair) : '?';
			attr_t at = 0;

			if (!m)
				pair = 0;
			if (chg)
				ch = n ? '@' : 'o';
			if (u->color && pair)
				at |= COLOR_PAIR(pair);
			if (chg)
				at |= A_BOLD;
			if ((size_t)(r * cols + k) == u->cell)
				at |= A_REVERSE;
			attron(at);
			mvaddch(y, LABEL + (int)k, (chtype)(unsigned char)ch);
			attroff(at);
		}
	}
	ui_line(y++, ". none  : <=1/4  + <=3/4  * more  # all  @ o changed (now congested, free)");
	draw_timeline(u, c, y, bottom);
}

bool ui_cong_key(struct ui *u, int ch)
{
	int height = LINES - 2 - 4 - MIN_TIMELINE;
	uint32_t cols, rows, per;
	size_t n;

	layout(u, height, &cols, &rows, &per);
	n = (size_t)cols * rows;
	switch (ch) {
	case KEY_LEFT:
		if (u->cell)
			u->cell--;
		return true;
	case KEY_RIGHT:
		if (u->cell + 1 < n)
			u->cell++;
		return true;
	case KEY_UP:
		if (u->cell >= cols)
			u->cell -= cols;
		return true;
	case KEY_DOWN:
		if (u->cell + cols < n)
			u->cell += cols;
		return true;
	case '\n':
	case KEY_ENTER:
		if (per > 1 && u->zlevel + 1 < UI_ZOOM_MAX) {
			u->zbase[u->zlevel + 1] = u->zbase[u->zlevel] + (uint32_t)u->cell * per;
			u->zspan[u->zlevel + 1] = per;
			u->zlevel++;
			u->cell = 0;
		}
		return true;
	case KEY_BACKSPACE:
	case 127:
	case 27:
	case '-':
		if (u->zlevel) {
			u->zlevel--;
			u->cell = 0;
		}
		return true;
	case 'm':
		u->side = (u->side + 1) % (u->s->local_cong ? 3 : 2);
		return true;
	}
	return false;
}
