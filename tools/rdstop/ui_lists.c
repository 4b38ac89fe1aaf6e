// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ui_lists.c - the counters view (every counter by name with its rate
 * since the last refresh) and the sockets view (bound sockets, their
 * queues against SNDBUF/RCVBUF, whether their port is congested).
 */
#include <ncurses.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ui_int.h"

/* A list view of |n| rows: its heading on line 2, |none| on line 3 when
 * it has no rows, and the scroll kept on a row. Return: the first row to
 * draw, on line 3. */
static size_t list_begin(struct ui *u, const char *heading, size_t n, const char *none)
{
	ui_line(2, heading);
	if (!n)
		ui_line(3, none);
	if (u->scroll >= n)
		u->scroll = n ? n - 1 : 0;
	return u->scroll;
}

void ui_counters_draw(struct ui *u)
{
	const struct top_snap *s = u->s;
	static const char heading[] =
		"NAME                                            VALUE     PER_SEC";
	char line[160], n[16];
	int y = 3;

	for (size_t i = list_begin(u, heading, s->n_counters, "(the source has no counters)");
	     i < s->n_counters && y <= LINES - 2; i++, y++) {
		const struct top_counter_rate *cr =
			u->r && u->r->seconds > 0 && i < u->r->n_counters ? &u->r->counters[i] : NULL;

		snprintf(line, sizeof(line), "%-32s %20" PRIu64 " %11s", s->counters[i].name,
			 s->counters[i].value,
			 cr && !cr->reset ? (snprintf(n, sizeof(n), "%.1f", cr->per_sec), n) : "-");
		ui_line(y, line);
	}
}

/* "12% of 212992" */
static void against(char *buf, size_t len, uint64_t q, uint32_t limit)
{
	if (limit)
		snprintf(buf, len, "%" PRIu64 " %3" PRIu64 "%%", q, q * 100 / limit);
	else
		snprintf(buf, len, "%" PRIu64 "   -", q);
}

void ui_socks_draw(struct ui *u)
{
	const struct top_snap *s = u->s;
	static const char heading[] =
		"BOUND                 CONNECTED               RECVQ_B  RCV%  SENDQ_B  SND%  CONG";
	char line[200], b[64], cn[64], rq[32], sq[32];
	int y = 3;

	if (s->no_sockets) {
		snprintf(line, sizeof(line), "The %s does not show sockets.",
			 s->source ? s->source : "source");
		ui_line(2, line);
		return;
	}
	for (size_t i = list_begin(u, heading, s->n_socks, "(no sockets)");
	     i < s->n_socks && y <= LINES - 2; i++, y++) {
		const struct top_sock *k = &s->socks[i];
		static const uint8_t zero[16];
		static const uint8_t v4_zero[16] = { [10] = 0xff, [11] = 0xff };
		bool conn = memcmp(k->connected_addr, zero, 16) && memcmp(k->connected_addr, v4_zero, 16);
		char a[64];

		snprintf(b, sizeof(b), "%s:%u", top_addr_str(k->bound_addr, a, sizeof(a)), k->bound_port);
		if (conn)
			snprintf(cn, sizeof(cn), "%s:%u", top_addr_str(k->connected_addr, a, sizeof(a)),
				 k->connected_port);
		else
			snprintf(cn, sizeof(cn), "-");
		against(rq, sizeof(rq), k->recvq_bytes, k->rcvbuf);
		against(sq, sizeof(sq), k->sendq_bytes, k->sndbuf);
		snprintf(line, sizeof(line), "%-21.21s %-21.21s %13s %13s  %s", b, cn, rq, sq,
			 s->local_cong ? (wire_cong_test(s->local_cong, k->bound_port) ? "yes" : "no") :
					 "-");
		ui_line(y, line);
	}
}
