// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ui.c - rdstop's interactive screen: the loop (refresh every delay, read
 * keys in between), the header, the help and the prompts. The views are
 * in ui_peers.c, ui_cong.c and ui_lists.c; all of them only read the
 * snapshot, in the htop manner of keeping collection apart from views.
 */
#define _GNU_SOURCE
#include "parse.h"
#include "ui.h"

#include <errno.h>
#include <ncurses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rio.h"
#include "ui_int.h"

#define MIN_COLS 80
#define MIN_LINES 24

static const char *const view_names[UI__VIEWS] = { "Peers", "Congestion", "Counters", "Sockets" };

static const char *const help_text[] = {
	"rdstop keys",
	"",
	"  1 2 3 4, tab   views: peers, congestion, counters, sockets",
	"  up/down, PgUp/PgDn, home/end   move the selection or scroll",
	"  s              peers: next sort column",
	"  /              peers: filter rows by a substring (empty: all)",
	"  enter          peers: detail pane; congestion: zoom into the cell",
	"  arrows         congestion: move the cell cursor",
	"  - backspace    congestion: zoom out",
	"  m              congestion: the other end's map",
	"  space          refresh now",
	"  p              pause or resume",
	"  d              delay between refreshes (a replay's step of capture time)",
	"  h ?            this help",
	"  q              quit",
	"",
	"A field the source cannot know shows \"-\". Any key closes this help.",
};

const char *ui_num(bool known, double v, char *buf, size_t len)
{
	static const char units[] = " kMGTP";
	int u = 0;

	if (!known) {
		snprintf(buf, len, "-");
		return buf;
	}
	while (v >= 999.5 && u < 5) {
		v /= 1000;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, v < 10 && v != (double)(long)v ? "%.1f" : "%.0f", v);
	else
		snprintf(buf, len, v < 9.95 ? "%.1f%c" : "%.0f%c", v, units[u]);
	return buf;
}

void ui_line(int y, const char *text)
{
	if (y < 0 || y >= LINES)
		return;
	move(y, 0);
	clrtoeol();
	addnstr(text, COLS);
}

bool ui_list_key(size_t *scroll, size_t n, size_t page, int ch)
{
	switch (ch) {
	case KEY_UP:
		if (*scroll)
			(*scroll)--;
		return true;
	case KEY_DOWN:
		if (*scroll + 1 < n)
			(*scroll)++;
		return true;
	case KEY_PPAGE:
		*scroll = *scroll > page ? *scroll - page : 0;
		return true;
	case KEY_NPAGE:
		*scroll = *scroll + page < n ? *scroll + page : (n ? n - 1 : 0);
		return true;
	case KEY_HOME:
		*scroll = 0;
		return true;
	case KEY_END:
		*scroll = n ? n - 1 : 0;
		return true;
	}
	return false;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void draw_header(const struct ui *u, const char *msg)
{
	const struct top_snap *s = u->s;
	char line[256], t[48] = "", in[16], out[16];
	int x = 0;

	if (s->replay)
		snprintf(t, sizeof(t), " +%.3f s", (double)s->now_ns / 1e9);
	snprintf(line, sizeof(line), "rdstop - %s%s - %zu conns, %zu paths - msg/s in %s out %s",
		 s->source ? s->source : "?", t, s->n_conns, s->n_paths,
		 ui_num(u->r && u->r->has_msgs, u->r ? u->r->msgs_in_per_sec : 0, in, sizeof(in)),
		 ui_num(u->r && u->r->has_msgs, u->r ? u->r->msgs_out_per_sec : 0, out, sizeof(out)));
	if (u->color)
		attron(COLOR_PAIR(UI_C_HEAD));
	ui_line(0, line);
	if (u->color)
		attroff(COLOR_PAIR(UI_C_HEAD));
	move(1, 0);
	clrtoeol();
	for (int v = 0; v < UI__VIEWS; v++) {
		snprintf(line, sizeof(line), v == (int)u->view ? "[%d %s]" : " %d %s ", v + 1,
			 view_names[v]);
		if (x + (int)strlen(line) + 1 >= COLS)
			break;
		if (v == (int)u->view)
			attron(A_BOLD);
		mvaddstr(1, x, line);
		if (v == (int)u->view)
			attroff(A_BOLD);
		x += (int)strlen(line);
	}
	snprintf(line, sizeof(line), "%s%s%s h: help",
		 u->gone ? "[process gone" : s->ended ? "[end of capture" : "",
		 u->paused ? (s->ended || u->gone ? ", paused" : "[paused") : "",
		 s->ended || u->gone || u->paused ? "]" : "");
	if (x + (int)strlen(line) < COLS)
		mvaddstr(1, COLS - (int)strlen(line), line);
	ui_line(LINES - 1, msg[0] ? msg :
		"q quit  tab/1-4 view  s sort  / filter  enter detail/zoom  p pause  d delay");
}

static void draw(struct ui *u, const char *msg)
{
	erase();
	if (COLS < MIN_COLS || LINES < MIN_LINES) {
		char line[128];

		snprintf(line, sizeof(line), "rdstop needs a %dx%d terminal; this one is %dx%d.",
			 MIN_COLS, MIN_LINES, COLS, LINES);
		ui_line(0, line);
		ui_line(1, "Please make it larger, or press q to quit.");
		refresh();
		return;
	}
	if (u->help) {
		for (size_t i = 0; i < sizeof(help_text) / sizeof(help_text[0]); i++)
			ui_line((int)i, help_text[i]);
		refresh();
		return;
	}
	switch (u->view) {
	case UI_PEERS:
		ui_peers_draw(u);
		break;
	case UI_CONG:
		ui_cong_draw(u);
		break;
	case UI_COUNTERS:
		ui_counters_draw(u);
		break;
	case UI_SOCKS:
		ui_socks_draw(u);
		break;
	default:
		break;
	}
	draw_header(u, msg);
	refresh();
}

/* A line of input on the status line; false when cancelled (empty input
 * is not a cancel: it clears a filter). */
static bool prompt(const char *what, char *buf, int len)
{
	int rc;

	ui_line(LINES - 1, what);
	echo();
	curs_set(1);
	timeout(-1);
	rc = getnstr(buf, len - 1);
	timeout(100);
	curs_set(0);
	noecho();
	return rc != ERR;
}

struct ui_data {
	struct top_snap prev, cur;
	struct top_rates rates;
	bool have_cur;                 /* cur holds a snapshot */
	bool have_rates;
};

static int take(const struct top_source *src, void *state, struct ui_data *d, char *err,
		size_t errlen)
{
	struct top_snap next;
	struct top_rates r;
	int e;

	top_snap_init(&next);
	e = src->snapshot(state, mono_ns(), &next, err, errlen);
	if (e < 0) {
		top_snap_fini(&next);
		return e;
	}
	if (top_rates_compute(&r, d->have_cur ? &d->cur : NULL, &next) < 0) {
		top_snap_fini(&next);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	top_snap_fini(&d->prev);
	d->prev = d->cur;
	d->cur = next;
	top_rates_fini(&d->rates);
	d->rates = r;
	d->have_rates = r.seconds > 0;
	d->have_cur = true;
	return 0;
}

static void setup_colour(struct ui *u)
{
	const char *nc = getenv("NO_COLOR");

	u->color = !(nc && nc[0]) && has_colors();
	if (!u->color)
		return;
	start_color();
	use_default_colors();
	init_pair(UI_C_HEAD, COLOR_BLACK, COLOR_CYAN);
	init_pair(UI_C_LOW, COLOR_GREEN, -1);
	init_pair(UI_C_MID, COLOR_YELLOW, -1);
	init_pair(UI_C_HIGH, COLOR_RED, -1);
	init_pair(UI_C_SEL, COLOR_BLACK, COLOR_WHITE);
}

/* The 'd' key: a new delay from a prompt; |msg| says what came of it. */
static void ask_delay(struct ui *u, const struct top_source *src, void *state, char *msg,
		      size_t msglen, uint64_t *due)
{
	char in[64] = "";
	double v;

	if (!prompt("delay in seconds: ", in, sizeof(in)))
		return;
	if (parse_seconds(in, 0.01, 86400, &v) < 0) {
		snprintf(msg, msglen, "not a delay: '%s' (seconds, at least 0.01)", in);
		return;
	}
	u->delay = v;
	if (src->set_step)
		src->set_step(state, (uint64_t)(v * 1e9 + 0.5));
	*due = mono_ns() + (uint64_t)(u->delay * 1e9);
	snprintf(msg, msglen, "delay %.2f s", v);
}

/* A key the current view handles: moving and choosing in its list. */
static void view_key(struct ui *u, const struct ui_data *d, int ch)
{
	size_t page = (size_t)(LINES > 5 ? LINES - 5 : 1);

	if (u->view == UI_PEERS)
		ui_peers_key(u, ch);
	else if (u->view == UI_CONG)
		ui_cong_key(u, ch);
	else if (u->view == UI_COUNTERS)
		ui_list_key(&u->scroll, d->cur.n_counters, page, ch);
	else
		ui_list_key(&u->scroll, d->cur.n_socks, page, ch);
}

/* Key |ch|. Return: 1 to quit; 2 to take a snapshot now; 0. */
static int on_key(struct ui *u, const struct ui_data *d, const struct top_source *src,
		  void *state, int ch, char *msg, size_t msglen, uint64_t *due)
{
	char in[64];

	switch (ch) {
	case ERR:
	case KEY_RESIZE:
		break;
	case 'q':
	case 'Q':
		return 1;
	case 'h':
	case '?':
		u->help = true;
		break;
	case '\t':
		u->view = (u->view + 1) % UI__VIEWS;
		u->scroll = 0;
		break;
	case '1':
	case '2':
	case '3':
	case '4':
		u->view = (enum ui_view)(ch - '1');
		u->scroll = 0;
		break;
	case 'p':
		u->paused = !u->paused;
		*due = mono_ns() + (uint64_t)(u->delay * 1e9);
		break;
	case ' ':
		return 2;
	case 'd':
		ask_delay(u, src, state, msg, msglen, due);
		break;
	case '/':
		in[0] = '\0';
		if (u->view == UI_PEERS && prompt("filter: ", in, sizeof(in))) {
			snprintf(u->filter, sizeof(u->filter), "%s", in);
			u->sel = u->first = 0;
		}
		break;
	default:
		view_key(u, d, ch);
		break;
	}
	return 0;
}

static void screen_open(struct ui *u)
{
	initscr();
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	timeout(100);
	setup_colour(u);
}

int top_ui_run(const struct top_source *src, void *state, double delay,
	       unsigned long long count, char *err, size_t errlen)
{
	static struct ui_data d;
	struct ui u = { .delay = delay };
	unsigned long long taken = 0;
	uint64_t due;
	char msg[160] = "";
	bool dirty = true;
	int rc = 0, ch, k;

	u.zspan[0] = 65536;
	top_snap_init(&d.prev);
	top_snap_init(&d.cur);
	rc = take(src, state, &d, err, errlen);
	if (rc < 0)
		return rc;
	taken = 1;
	screen_open(&u);
	due = mono_ns() + (uint64_t)(u.delay * 1e9);
	for (;;) {
		/* Drawn again only when something changed (a key, a resize,
		 * a snapshot): with a thousand peers a redraw is most of what
		 * rdstop costs, and the loop wakes ten times a second. */
		if (dirty) {
			u.s = &d.cur;
			u.r = d.have_rates ? &d.rates : NULL;
			u.prev_ns = d.have_rates ? d.prev.now_ns : 0;
			ui_peers_build(&u);
			draw(&u, msg);
			dirty = false;
		}
		ch = getch();
		if (ch != ERR) {
			msg[0] = '\0';
			dirty = true;
		}
		if (u.help && ch != ERR && ch != KEY_RESIZE) {
			u.help = false;
			continue;
		}
		k = on_key(&u, &d, src, state, ch, msg, sizeof(msg), &due);
		if (k == 1)
			break;
		/* a replay that reached its end, or a process that exited,
		 * has nothing more to show */
		if (d.cur.ended || u.gone)
			continue;
		if (k != 2 && (u.paused || mono_ns() < due))
			continue;
		if (count && taken >= count)
			break;
		rc = take(src, state, &d, err, errlen);
		dirty = true;
		if (rc == -ESRCH) {
			/* the last snapshot stays on the screen */
			u.gone = true;
			snprintf(msg, sizeof(msg), "%s", err);
			rc = 0;
			continue;
		}
		if (rc < 0)
			break;
		taken++;
		due = mono_ns() + (uint64_t)(u.delay * 1e9);
	}
	endwin();
	free(u.rows);
	top_rates_fini(&d.rates);
	top_snap_fini(&d.prev);
	top_snap_fini(&d.cur);
	return rc;
}
