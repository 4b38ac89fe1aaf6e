// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ui_peers.c - the peers view: a row per connection and one per path
 * under it, sortable by s, filtered by /, and a detail pane for the
 * selected row (enter).
 */
#define _GNU_SOURCE
#include <ncurses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibres.h"
#include "ui_int.h"

static const char *const sort_names[UI__SORTS] = {
	"peer", "tx msg/s", "rx msg/s", "tx B/s", "rx B/s", "retransmits", "congested",
};

static const struct top_conn_rate *rate_of(const struct ui *u, size_t c)
{
	const struct top_conn_rate *cr = u->r && c < u->r->n_conns ? &u->r->conns[c] : NULL;

	return cr && cr->known && !cr->reset ? cr : NULL;
}

static long cong_count(const struct wire_cong_map *m)
{
	return m ? (long)wire_cong_count(m) : -1;
}

static const char *short_state(uint8_t flags)
{
	if (flags & WIRE_INFO_CONN_CONNECTED)
		return "up";
	return flags & WIRE_INFO_CONN_CONNECTING ? "con" : "dwn";
}

static double sort_key(const struct ui *u, size_t c)
{
	const struct top_conn *k = &u->s->conns[c];
	const struct top_conn_rate *cr = rate_of(u, c);

	switch (u->sort) {
	case UI_SORT_TXM:
		return cr ? cr->tx_msgs_per_sec : -1;
	case UI_SORT_RXM:
		return cr ? cr->rx_msgs_per_sec : -1;
	case UI_SORT_TXB:
		return cr && cr->has_bytes ? cr->tx_bytes_per_sec : -1;
	case UI_SORT_RXB:
		return cr && cr->has_bytes ? cr->rx_bytes_per_sec : -1;
	case UI_SORT_RETR:
		return k->has_wire ? (double)k->retrans : -1;
	case UI_SORT_CONG:
		return (double)(cong_count(k->lcl_cong) + cong_count(k->peer_cong));
	default:
		return 0;
	}
}

static int cmp_conn(const void *a, const void *b, void *arg)
{
	const struct ui *sorting = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	double kx, ky;
	int d;

	if (sorting->sort == UI_SORT_PEER) {
		d = memcmp(sorting->s->conns[x].faddr, sorting->s->conns[y].faddr, 16);
		if (d)
			return d;
	} else {
		kx = sort_key(sorting, x);
		ky = sort_key(sorting, y);
		if (kx != ky)
			return kx > ky ? -1 : 1;
	}
	return x < y ? -1 : x > y;
}

/* The text of a row, as drawn and as the filter matches it. */
static void row_text(const struct ui *u, const struct ui_row *row, char *buf, size_t len)
{
	const struct top_conn *c = &u->s->conns[row->conn];
	const struct top_conn_rate *cr = rate_of(u, row->conn);
	char a[64], n[10][16], gen[16] = "-";

	if (row->path != SIZE_MAX) {
		const struct top_path *p = &u->s->paths[row->path];
		char idx[16] = "-", lp[8] = "-", fp[8] = "-";

		if (p->index >= 0)
			snprintf(idx, sizeof(idx), "%d", p->index);
		/* port 0: not seen yet (no TCP port is 0) */
		if (p->lport)
			snprintf(lp, sizeof(lp), "%u", p->lport);
		if (p->fport)
			snprintf(fp, sizeof(fp), "%u", p->fport);
		/* a librds endpoint's own path: its state and counts */
		if (p->has_state) {
			snprintf(buf, len, "  path %-2s %5s>%-5s  %-4s next tx %s rx %s"
				 "  connects %s resets %s", idx, lp, fp,
				 p->state == 2 ? "up" : p->state == 1 ? "con" : "dwn",
				 ui_num(true, (double)p->next_tx_seq, n[0], sizeof(n[0])),
				 ui_num(true, (double)p->next_rx_seq, n[1], sizeof(n[1])),
				 ui_num(true, (double)p->connects, n[2], sizeof(n[2])),
				 ui_num(true, (double)p->resets, n[3], sizeof(n[3])));
			return;
		}
		snprintf(buf, len, "  path %-2s %5s>%-5s  msgs %s/%s  bytes %s/%s"
			 "  retr %s  dups %s  rcn %s", idx, lp, fp,
			 ui_num(p->has_wire, (double)p->tx_msgs, n[0], sizeof(n[0])),
			 ui_num(p->has_wire, (double)p->rx_msgs, n[1], sizeof(n[1])),
			 ui_num(p->has_wire, (double)p->tx_bytes, n[2], sizeof(n[2])),
			 ui_num(p->has_wire, (double)p->rx_bytes, n[3], sizeof(n[3])),
			 ui_num(p->has_wire, (double)p->retrans, n[4], sizeof(n[4])),
			 ui_num(p->has_wire, (double)p->dups, n[5], sizeof(n[5])),
			 ui_num(p->has_wire, (double)p->reconnects, n[6], sizeof(n[6])));
		return;
	}
	if (c->has_gen)
		snprintf(gen, sizeof(gen), "%" PRIu32, c->gen);
	snprintf(buf, len, "%-15.15s %-3.3s %-3s %1u %5s %5s %5s %5s %4s %4s %4s %3s %4s %4s %s",
		 top_addr_str(c->faddr, a, sizeof(a)), c->transport, short_state(c->flags),
		 c->npaths,
		 ui_num(cr, cr ? cr->tx_msgs_per_sec : 0, n[0], sizeof(n[0])),
		 ui_num(cr, cr ? cr->rx_msgs_per_sec : 0, n[1], sizeof(n[1])),
		 ui_num(cr && cr->has_bytes, cr ? cr->tx_bytes_per_sec : 0, n[2], sizeof(n[2])),
		 ui_num(cr && cr->has_bytes, cr ? cr->rx_bytes_per_sec : 0, n[3], sizeof(n[3])),
		 c->has_wire ? "-" : ui_num(true, (double)c->sendq_msgs, n[4], sizeof(n[4])),
		 ui_num(c->has_wire, (double)c->retrans, n[5], sizeof(n[5])),
		 ui_num(c->has_wire, (double)c->dups, n[6], sizeof(n[6])),
		 ui_num(c->has_wire || c->has_reconnects, (double)c->reconnects, n[7],
			sizeof(n[7])),
		 ui_num(c->lcl_cong, c->lcl_cong ? (double)wire_cong_count(c->lcl_cong) : 0,
			n[8], sizeof(n[8])),
		 ui_num(c->peer_cong, c->peer_cong ? (double)wire_cong_count(c->peer_cong) : 0,
			n[9], sizeof(n[9])),
		 gen);
}

static bool add_row(struct ui *u, size_t conn, size_t path)
{
	char text[256];
	struct ui_row row = { conn, path };

	if (u->filter[0]) {
		row_text(u, &row, text, sizeof(text));
		if (!strstr(text, u->filter))
			return true;
	}
	if (u->n_rows == u->cap_rows) {
		size_t ncap = u->cap_rows ? u->cap_rows * 2 : 64;
		struct ui_row *n = realloc(u->rows, ncap * sizeof(*n));

		if (!n)
			return false;
		u->rows = n;
		u->cap_rows = ncap;
	}
	u->rows[u->n_rows++] = row;
	return true;
}

void ui_peers_build(struct ui *u)
{
	const struct top_snap *s = u->s;
	size_t *order = s->n_conns ? malloc(s->n_conns * sizeof(*order)) : NULL;
	struct top_paths pi;

	u->n_rows = 0;
	if (!order)
		return;
	for (size_t i = 0; i < s->n_conns; i++)
		order[i] = i;
	qsort_r(order, s->n_conns, sizeof(*order), cmp_conn, u);
	top_paths_init(&pi, s);
	for (size_t i = 0; i < s->n_conns; i++) {
		if (!add_row(u, order[i], SIZE_MAX))
			break;
		for (size_t j = top_paths_first(&pi, order[i]); j != SIZE_MAX;
		     j = top_paths_next(&pi, order[i], j))
			if (!add_row(u, order[i], j))
				break;
	}
	top_paths_fini(&pi);
	free(order);
	if (u->sel >= u->n_rows)
		u->sel = u->n_rows ? u->n_rows - 1 : 0;
}

size_t ui_peers_conn(const struct ui *u)
{
	return u->sel < u->n_rows ? u->rows[u->sel].conn : SIZE_MAX;
}

/* "  IB QP 17 RTS rxe0/1 ACTIVE" after |line| for a connection with an IB
 * row (RDMA netlink's view, ibres.c): "QP unknown" when the join is
 * ambiguous, "no QP" when it named none. */
static void ib_detail(const struct top_snap *s, size_t conn, char *line, size_t len)
{
	size_t l = strlen(line);

	for (size_t i = 0; i < s->n_ibs; i++) {
		const struct top_ib *b = &s->ibs[i];

		if (b->conn != conn || b->join == TOP_IBJ_NONE)
			continue;
		if (b->join == TOP_IBJ_OK)
			snprintf(line + l, len - l, "  IB QP %" PRIu32 " %s %s/%" PRIu32 " %s", b->qpn,
				 top_ib_qp_str(b), b->dev < s->n_ibdevs ? s->ibdevs[b->dev].name : "?",
				 b->port, b->has_port_state ?
				 wire_tok_str(wire_nldev_port_state_toks, b->port_state, "?") : "?");
		else
			snprintf(line + l, len - l, "  IB QP %s",
				 b->join == TOP_IBJ_AMBIG ? "unknown" : "none");
		return;
	}
}

static void draw_detail(struct ui *u, int y)
{
	const struct ui_row *row = &u->rows[u->sel];
	const struct top_conn *c = &u->s->conns[row->conn];
	const struct top_conn_rate *cr = rate_of(u, row->conn);
	char la[64], fa[64], st[32], line[256], n[4][16];

	ui_line(y++, "--- detail (enter closes) ---");
	snprintf(line, sizeof(line), "local %s  peer %s  %s  %s  tos %u  paths %u",
		 top_addr_str(c->laddr, la, sizeof(la)), top_addr_str(c->faddr, fa, sizeof(fa)),
		 c->transport, top_conn_state(c->flags, st, sizeof(st)), c->tos, c->npaths);
	ui_line(y++, line);
	if (c->has_gen)
		snprintf(line, sizeof(line), "generation %" PRIu32, c->gen);
	else
		snprintf(line, sizeof(line), "generation unknown");
	ib_detail(u->s, row->conn, line, sizeof(line));
	ui_line(y++, line);
	if (c->has_wire)
		snprintf(line, sizeof(line), "msgs tx %" PRIu64 " rx %" PRIu64 "  bytes tx %" PRIu64
			 " rx %" PRIu64 "  retransmitted %" PRIu64 "  dups %" PRIu64
			 "  reconnects %" PRIu64, c->tx_msgs, c->rx_msgs, c->tx_bytes, c->rx_bytes,
			 c->retrans, c->dups, c->reconnects);
	else
		snprintf(line, sizeof(line), "next tx %" PRIu64 " rx %" PRIu64 "  send queue %" PRIu64
			 " msgs %" PRIu64 " B  retransmit queue %" PRIu64 " msgs %" PRIu64 " B",
			 c->next_tx_seq, c->next_rx_seq, c->sendq_msgs, c->sendq_bytes,
			 c->retransq_msgs, c->retransq_bytes);
	ui_line(y++, line);
	snprintf(line, sizeof(line), "msg/s tx %s rx %s  B/s tx %s rx %s",
		 ui_num(cr, cr ? cr->tx_msgs_per_sec : 0, n[0], sizeof(n[0])),
		 ui_num(cr, cr ? cr->rx_msgs_per_sec : 0, n[1], sizeof(n[1])),
		 ui_num(cr && cr->has_bytes, cr ? cr->tx_bytes_per_sec : 0, n[2], sizeof(n[2])),
		 ui_num(cr && cr->has_bytes, cr ? cr->rx_bytes_per_sec : 0, n[3], sizeof(n[3])));
	ui_line(y++, line);
	snprintf(line, sizeof(line), "congested ports: local side %s, peer %s",
		 ui_num(c->lcl_cong, c->lcl_cong ? (double)wire_cong_count(c->lcl_cong) : 0,
			n[0], sizeof(n[0])),
		 ui_num(c->peer_cong, c->peer_cong ? (double)wire_cong_count(c->peer_cong) : 0,
			n[1], sizeof(n[1])));
	ui_line(y, line);
}

void ui_peers_draw(struct ui *u)
{
	int bottom = LINES - 2, y = 3, page;
	char text[256], line[128];

	snprintf(line, sizeof(line), "sort: %s%s%s", sort_names[u->sort],
		 u->filter[0] ? "  filter: " : "", u->filter);
	ui_line(2, line);
	if (u->color)
		attron(COLOR_PAIR(UI_C_HEAD));
	ui_line(y++, "PEER            XP  ST  P TXM/s RXM/s TXB/s RXB/s SNDQ RETR DUPS RCN CGL  CGP  GEN");
	if (u->color)
		attroff(COLOR_PAIR(UI_C_HEAD));
	if (u->detail && u->n_rows)
		bottom -= 6;
	page = bottom - y + 1;
	if (page < 1)
		page = 1;
	if (u->sel < u->first)
		u->first = u->sel;
	if (u->sel >= u->first + (size_t)page)
		u->first = u->sel - (size_t)page + 1;
	if (!u->n_rows)
		ui_line(y, u->filter[0] ? "(no row matches the filter)" : "(no connections)");
	for (size_t i = u->first; i < u->n_rows && y <= bottom; i++, y++) {
		row_text(u, &u->rows[i], text, sizeof(text));
		if (i == u->sel)
			attron(A_REVERSE);
		ui_line(y, text);
		if (i == u->sel)
			attroff(A_REVERSE);
	}
	if (u->detail && u->n_rows)
		draw_detail(u, LINES - 7);
}

bool ui_peers_key(struct ui *u, int ch)
{
	switch (ch) {
	case 's':
		u->sort = (u->sort + 1) % UI__SORTS;
		ui_peers_build(u);
		return true;
	case '\n':
	case KEY_ENTER:
		u->detail = !u->detail;
		return true;
	}
	return ui_list_key(&u->sel, u->n_rows, (size_t)(LINES > 8 ? LINES - 6 : 1), ch);
}
