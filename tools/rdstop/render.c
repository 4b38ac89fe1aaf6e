// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * render.c - rdstop's plain-text rendering of one snapshot.
 */
#include "render.h"

#include "ibres.h"

#include <inttypes.h>
#include <string.h>

static const uint8_t v4_prefix[12] = { [10] = 0xff, [11] = 0xff };

/* "10.0.0.1:4000" or "[2001:db8::1]:4000" */
static const char *endpoint(const uint8_t a[16], uint16_t port, char *buf, size_t len)
{
	char s[64];

	char p[8] = "-";        /* port 0: not seen (no TCP port is 0) */

	top_addr_str(a, s, sizeof(s));
	if (port)
		snprintf(p, sizeof(p), "%u", port);
	if (!memcmp(a, v4_prefix, 12))
		snprintf(buf, len, "%s:%s", s, p);
	else
		snprintf(buf, len, "[%s]:%s", s, p);
	return buf;
}

static void rate(struct out *f, int width, bool known, double v)
{
	if (known)
		out_printf(f, " %*.1f", width, v);
	else
		out_printf(f, " %*s", width, "-");
}

static void print_map_count(struct out *f, const char *what, const struct wire_cong_map *m)
{
	if (m)
		out_printf(f, " %s %zu", what, wire_cong_count(m));
	else
		out_printf(f, " %s -", what);
}

/* What a capture counted on a connection, over all its paths. */
static void print_wire(struct out *f, const struct top_conn *c)
{
	out_printf(f, "  msgs tx %" PRIu64 " rx %" PRIu64 " bytes tx %" PRIu64 " rx %" PRIu64
		" retransmitted %" PRIu64 " dups %" PRIu64 " reconnects %" PRIu64 "\n",
		c->tx_msgs, c->rx_msgs, c->tx_bytes, c->rx_bytes, c->retrans, c->dups,
		c->reconnects);
	out_printf(f, "  congested ports:");
	print_map_count(f, "local", c->lcl_cong);
	print_map_count(f, "peer", c->peer_cong);
	out_printf(f, "\n");
}

static void print_conns(struct out *f, const struct top_snap *s, const struct top_rates *r)
{
	char la[64], fa[64], st[32], ep1[80], ep2[80];
	struct top_paths pi;

	top_paths_init(&pi, s);
	out_printf(f, "\nCONNECTIONS\n");
	out_printf(f, "%-16s %-16s %-10s %-19s %3s %5s %12s %12s %8s %8s %6s %6s\n",
		"LOCAL", "PEER", "TRANSPORT", "STATE", "TOS", "PATHS", "NEXT_TX", "NEXT_RX",
		"TX_MSG/s", "RX_MSG/s", "SENDQ", "RETRQ");
	for (size_t i = 0; i < s->n_conns; i++) {
		const struct top_conn *c = &s->conns[i];
		const struct top_conn_rate *cr = r && i < r->n_conns ? &r->conns[i] : NULL;
		bool known = cr && cr->known && !cr->reset;

		out_printf(f, "%-16s %-16s %-10s %-19s %3u %5u",
			top_addr_str(c->laddr, la, sizeof(la)),
			top_addr_str(c->faddr, fa, sizeof(fa)), c->transport,
			top_conn_state(c->flags, st, sizeof(st)), c->tos, c->npaths);
		/* a capture sees messages, not the ends' sequence counters or queues */
		if (c->has_wire)
			out_printf(f, " %12s %12s", "-", "-");
		else
			out_printf(f, " %12" PRIu64 " %12" PRIu64, c->next_tx_seq, c->next_rx_seq);
		rate(f, 8, known, known ? cr->tx_msgs_per_sec : 0);
		rate(f, 8, known, known ? cr->rx_msgs_per_sec : 0);
		if (c->has_wire)
			out_printf(f, " %6s %6s\n", "-", "-");
		else
			out_printf(f, " %6" PRIu64 " %6" PRIu64 "\n", c->sendq_msgs, c->retransq_msgs);
		if (c->has_gen)
			out_printf(f, "  generation %" PRIu32 "\n", c->gen);
		if (known && cr->has_bytes)
			out_printf(f, "  bytes/s tx %.1f rx %.1f\n", cr->tx_bytes_per_sec,
				cr->rx_bytes_per_sec);
		if (c->has_wire) {
			print_wire(f, c);
		} else if (c->lcl_cong || c->peer_cong || c->has_reconnects) {
			/* a librds endpoint knows both maps; the kernel only its own */
			if (c->has_reconnects)
				out_printf(f, "  reconnects %" PRIu64 "\n", c->reconnects);
			out_printf(f, "  congested ports:");
			print_map_count(f, "local", c->lcl_cong);
			print_map_count(f, "peer", c->peer_cong);
			out_printf(f, "\n");
		}
		for (size_t j = top_paths_first(&pi, i); j != SIZE_MAX;
		     j = top_paths_next(&pi, i, j)) {
			const struct top_path *p = &s->paths[j];

			if (p->index >= 0)
				out_printf(f, "  path %d", p->index);
			else
				out_printf(f, "  path -");
			out_printf(f, " %s -> %s", endpoint(p->laddr, p->lport, ep1, sizeof(ep1)),
				endpoint(p->faddr, p->fport, ep2, sizeof(ep2)));
			if (p->has_state)
				out_printf(f, " %s connects %" PRIu64 " resets %" PRIu64,
					p->state == 2 ? "up" : p->state == 1 ? "connecting" : "down",
					p->connects, p->resets);
			if (p->has_seq)
				out_printf(f, " next_tx %" PRIu64 " next_rx %" PRIu64, p->next_tx_seq,
					p->next_rx_seq);
			if (p->has_wire)
				out_printf(f, " msgs tx %" PRIu64 " rx %" PRIu64 " bytes tx %" PRIu64
					" rx %" PRIu64 " retransmitted %" PRIu64 " dups %" PRIu64
					" reconnects %" PRIu64, p->tx_msgs, p->rx_msgs, p->tx_bytes,
					p->rx_bytes, p->retrans, p->dups, p->reconnects);
			if (p->has_tcp)
				out_printf(f, " hdr_rem %" PRIu64 " data_rem %" PRIu64
					" sent_nxt %" PRIu32 " expected_una %" PRIu32
					" seen_una %" PRIu32, p->hdr_rem, p->data_rem,
					p->last_sent_nxt, p->last_expected_una, p->last_seen_una);
			out_printf(f, "\n");
		}
	}
	top_paths_fini(&pi);
}

/* "rxe0/1 ACTIVE", "-" when the join named no port. */
static const char *ib_port_str(const struct top_snap *s, const struct top_ib *b, char *buf,
			       size_t len)
{
	if (b->join != TOP_IBJ_OK || b->dev >= s->n_ibdevs) {
		snprintf(buf, len, "-");
		return buf;
	}
	snprintf(buf, len, "%s/%" PRIu32 " %s", s->ibdevs[b->dev].name, b->port,
		 b->has_port_state ? wire_tok_str(wire_nldev_port_state_toks, b->port_state, "?")
				   : "?");
	return buf;
}

static void print_ibs(struct out *f, const struct top_snap *s)
{
	char la[64], fa[64], qpn[16], port[96];

	if (!s->n_ibs)
		return;
	out_printf(f, "\nIB CONNECTIONS\n");
	out_printf(f, "%-16s %-16s %8s %8s %4s %8s %8s %3s %2s %8s %8s %-7s %s\n", "LOCAL",
		"PEER", "SEND_WR", "RECV_WR", "SGE", "MR_MAX", "MR_SIZE", "TOS", "SL", "CACHE",
		"QPN", "QP", "PORT");
	for (size_t i = 0; i < s->n_ibs; i++) {
		const struct top_ib *ib = &s->ibs[i];
		const struct wire_info_rdma_conn *b = &ib->r;

		if (ib->join == TOP_IBJ_OK)
			snprintf(qpn, sizeof(qpn), "%" PRIu32, ib->qpn);
		else
			snprintf(qpn, sizeof(qpn), "%s",
				 ib->join == TOP_IBJ_AMBIG ? "unknown" : "-");
		out_printf(f, "%-16s %-16s %8" PRIu32 " %8" PRIu32 " %4" PRIu32 " %8" PRIu32
			" %8" PRIu32 " %3u %2u %8" PRIu32 " %8s %-7s %s\n",
			top_addr_str(b->src_addr, la, sizeof(la)),
			top_addr_str(b->dst_addr, fa, sizeof(fa)), b->max_send_wr,
			b->max_recv_wr, b->max_send_sge, b->rdma_mr_max, b->rdma_mr_size,
			b->tos, b->sl, b->cache_allocs, qpn, top_ib_qp_str(ib),
			ib_port_str(s, ib, port, sizeof(port)));
	}
	if (s->rdma_error)
		out_printf(f, "(no QPs: %s)\n", s->rdma_error);
	for (size_t i = 0; i < s->n_ibdevs; i++) {
		const struct top_ibdev *d = &s->ibdevs[i];

		if (d->has_counts)
			out_printf(f, "RDMA %s: qp %" PRIu64 " cq %" PRIu64 " mr %" PRIu64
				   " pd %" PRIu64 " cm_id %" PRIu64 " (all owners)\n", d->name,
				   d->qps, d->cqs, d->mrs, d->pds, d->cm_ids);
	}
}

static void print_events(struct out *f, const struct top_snap *s)
{
	char a[64];

	out_printf(f, "\nCONGESTION MAP UPDATES\n");
	if (s->cong_news)
		out_printf(f, "(%s)\n", s->cong_news);
	if (s->events_lost)
		out_printf(f, "(%" PRIu64 " earlier updates not kept)\n", s->events_lost);
	for (size_t i = 0; i < s->n_events; i++) {
		const struct top_cong_event *ev = &s->events[i];
		const struct top_conn *c = ev->conn < s->n_conns ? &s->conns[ev->conn] : NULL;

		if (ev->groups) {
			out_printf(f, "+%.3f peers' maps, port groups 0x%016" PRIx64
				" (port %% 64) updated\n", (double)ev->t_ns / 1e9, ev->groups);
			continue;
		}
		out_printf(f, "+%.3f %s", (double)ev->t_ns / 1e9,
			c ? top_addr_str(ev->from_peer ? c->faddr : c->laddr, a, sizeof(a)) :
			    ev->from_peer ? "?" : "local node");
		if (ev->first == ev->last)
			out_printf(f, " port %u", ev->first);
		else
			out_printf(f, " ports %u-%u", ev->first, ev->last);
		out_printf(f, " %s\n", ev->congested ? "congested" : "free");
	}
}

/* The local node's map as runs of ports, where the source knows it. */
static void print_local_map(struct out *f, const struct top_snap *s)
{
	int32_t p = wire_cong_next(s->local_cong, 0);
	unsigned runs = 0;

	out_printf(f, "\nLOCAL CONGESTION MAP\n%zu ports congested", wire_cong_count(s->local_cong));
	while (p >= 0) {
		int32_t q = p;

		while (q < 65535 && wire_cong_test(s->local_cong, (uint16_t)(q + 1)))
			q++;
		if (++runs > 32) {
			out_printf(f, " ...");
			break;
		}
		if (q == p)
			out_printf(f, "%s %d", runs == 1 ? ":" : ",", p);
		else
			out_printf(f, "%s %d-%d", runs == 1 ? ":" : ",", p, q);
		p = q < 65535 ? wire_cong_next(s->local_cong, (uint32_t)q + 1) : -1;
	}
	out_printf(f, "\n");
}

static void print_socks(struct out *f, const struct top_snap *s)
{
	char ep1[80], ep2[80];

	out_printf(f, "\nSOCKETS\n");
	if (s->no_sockets) {
		out_printf(f, "(the %s does not show sockets)\n", s->source ? s->source : "source");
		return;
	}
	out_printf(f, "%-24s %-24s %8s %8s %6s %9s %6s %9s %10s\n", "BOUND", "CONNECTED",
		"SNDBUF", "RCVBUF", "RECVQ", "RECVQ_B", "SENDQ", "SENDQ_B", "INODE");
	for (size_t i = 0; i < s->n_socks; i++) {
		const struct top_sock *k = &s->socks[i];
		static const uint8_t zero[16];
		static const uint8_t v4_zero[16] = { [10] = 0xff, [11] = 0xff };
		bool conn = memcmp(k->connected_addr, zero, 16) != 0 &&
			    memcmp(k->connected_addr, v4_zero, 16) != 0;

		out_printf(f, "%-24s %-24s %8" PRIu32 " %8" PRIu32 " %6" PRIu64 " %9" PRIu64
			" %6" PRIu64 " %9" PRIu64 " %10" PRIu64 "\n",
			endpoint(k->bound_addr, k->bound_port, ep1, sizeof(ep1)),
			conn ? endpoint(k->connected_addr, k->connected_port, ep2, sizeof(ep2)) :
			       "-",
			k->sndbuf, k->rcvbuf, k->recvq_msgs, k->recvq_bytes, k->sendq_msgs,
			k->sendq_bytes, k->inum);
		if (k->has_cong && k->congested)
			out_printf(f, "  (port congested)\n");
	}
}

static void print_counters(struct out *f, const struct top_snap *s, const struct top_rates *r)
{
	out_printf(f, "\nCOUNTERS\n");
	out_printf(f, "%-32s %20s %12s\n", "NAME", "VALUE", "PER_SEC");
	for (size_t i = 0; i < s->n_counters; i++) {
		const struct top_counter *c = &s->counters[i];
		const struct top_counter_rate *cr =
			r && r->seconds > 0 && i < r->n_counters ? &r->counters[i] : NULL;

		out_printf(f, "%-32s %20" PRIu64, c->name, c->value);
		rate(f, 12, cr && !cr->reset, cr ? cr->per_sec : 0);
		out_printf(f, "\n");
	}
}

void top_print_text(struct out *f, const struct top_snap *s, const struct top_rates *r)
{
	out_printf(f, "rdstop - %s - %zu connections, %zu paths, %zu sockets, %zu queued messages\n",
		s->source ? s->source : "?", s->n_conns, s->n_paths, s->n_socks, s->n_msgs);
	out_printf(f, "messages/s in");
	rate(f, 0, r && r->has_msgs, r && r->has_msgs ? r->msgs_in_per_sec : 0);
	out_printf(f, ", out");
	rate(f, 0, r && r->has_msgs, r && r->has_msgs ? r->msgs_out_per_sec : 0);
	out_printf(f, "; bytes/s in");
	rate(f, 0, r && r->has_bytes_in, r && r->has_bytes_in ? r->bytes_in_per_sec : 0);
	if (r && r->seconds > 0)
		out_printf(f, " (over %.3f s)", r->seconds);
	out_printf(f, "\n");
	if (s->replay)
		out_printf(f, "capture time +%.3f s%s\n", (double)s->now_ns / 1e9,
			s->ended ? ", end of capture" : "");
	print_conns(f, s, r);
	print_ibs(f, s);
	if (s->truncated)
		out_printf(f, "(the publisher cut this snapshot at its size limit)\n");
	if (s->local_cong)
		print_local_map(f, s);
	if (s->replay || s->n_events)
		print_events(f, s);
	print_socks(f, s);
	print_counters(f, s, r);
}
