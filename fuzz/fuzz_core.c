// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * fuzz_core.c - the librds core as a peer's kernel and a transport would
 * drive it, every choice the fuzzer's: the bytes arriving on each link and
 * their chunking, time steps and timer runs, acknowledgements, links
 * dropping and arriving, application sends and reads. Properties checked
 * besides "no crash, no leak": input is consumed exactly or refused with a
 * listed error, everything the core writes deframes cleanly with maps
 * exactly as the kernel sends them, SNDBUF is never exceeded by more than
 * one message, and the queue counters agree with the queues.
 *
 * Input: byte 0 picks the generation (bit 0) and which side we are
 * (bit 1); then a sequence of ops, each one byte plus its arguments.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rds/rdsu.h>
#include <wire/wire.h>

#include "fuzz_in.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_LINKS 12
#define GATHER (WIRE_MAX_MSG_LEN + 64)

struct olink {
	uint64_t id;
	bool up;                /* accepted up, established, or ATTACHed */
	uint64_t written;
	uint64_t acked;
	struct wire_deframer d; /* checks what the core writes */
};

static struct olink links[MAX_LINKS];
static uint8_t *gather[MAX_LINKS];
static uint8_t obuf[16384];

static struct olink *link_new(uint64_t id, bool up)
{
	for (int i = 0; i < MAX_LINKS; i++)
		if (!links[i].id) {
			if (!gather[i])
				gather[i] = malloc(GATHER);
			memset(&links[i], 0, sizeof(links[i]));
			links[i].id = id;
			links[i].up = up;
			wire_deframer_init(&links[i].d, 0, gather[i], GATHER);
			return &links[i];
		}
	return NULL;
}

static struct olink *link_find(uint64_t id)
{
	for (int i = 0; i < MAX_LINKS; i++)
		if (links[i].id && links[i].id == id)
			return &links[i];
	return NULL;
}

static struct olink *link_pick(unsigned k)
{
	int n = 0, live[MAX_LINKS];

	for (int i = 0; i < MAX_LINKS; i++)
		if (links[i].id)
			live[n++] = i;
	return n ? &links[live[k % (unsigned)n]] : NULL;
}

/* What the core wrote must be a clean RDS/TCP stream. */
static void check_output(struct olink *l, const uint8_t *p, size_t n)
{
	size_t used = 0;

	while (used < n) {
		struct wire_frame f;
		bool ready;
		ssize_t k = wire_deframer_input(&l->d, p + used, n - used, &f, &ready);

		if (k < 0 || (k == 0 && !ready))
			abort();
		used += (size_t)k;
		if (!ready)
			continue;
		if (f.hdr.ack || f.hdr.credit || f.hdr.csum)
			abort(); /* TCP never sets them */
		if (f.hdr.flags & WIRE_FLAG_CONG_BITMAP) {
			if (f.hdr.flags != WIRE_FLAG_CONG_BITMAP || f.len != WIRE_CONG_MAP_BYTES ||
			    f.hdr.seq || f.hdr.sport || f.hdr.dport)
				abort();
		} else if (f.hdr.seq == 0 || (f.hdr.flags & ~WIRE_FLAG_RETRANSMITTED)) {
			abort();
		}
	}
}

static void pull(struct rdsu_ep *ep, struct olink *l, size_t cap, rdsu_ns now)
{
	for (int rounds = 0; rounds < 64; rounds++) {
		ssize_t n = rdsu_link_output(ep, l->id, obuf, cap, now);

		if (n == RDSU_ERR_CLOSED) {
			l->id = 0;
			return;
		}
		if (n < 0 || (size_t)n > cap)
			abort();
		if (n == 0)
			return;
		check_output(l, obuf, (size_t)n);
		l->written += (uint64_t)n;
	}
}

static void check_state(struct rdsu_ep *ep)
{
	struct rdsu_conn_info ci;
	struct rdsu_sock_info si;
	size_t pos = 0;

	while (rdsu_ep_conn_next(ep, &pos, &ci))
		for (unsigned i = 0; i < WIRE_MAX_PATHS; i++) {
			const struct rdsu_path_info *pi = &ci.path[i];

			if (pi->acked_bytes > pi->tx_bytes)
				abort();
			if (pi->send_q_bytes > (uint64_t)pi->send_q_msgs * WIRE_MAX_MSG_LEN ||
			    pi->retrans_q_bytes > (uint64_t)pi->retrans_q_msgs * WIRE_MAX_MSG_LEN)
				abort();
			if (pi->state != RDSU_PATH_DOWN && !pi->link)
				abort();
		}
	pos = 0;
	while (rdsu_ep_sock_next(ep, &pos, &si)) {
		/* the last message may overshoot, never more */
		if (si.snd_bytes > (uint64_t)si.sndbuf + WIRE_MAX_MSG_LEN)
			abort();
		if (si.rx_msgs == 0 && si.rcv_bytes)
			abort();
	}
}

static void handle_reqs(struct rdsu_ep *ep, struct in *in, rdsu_ns now)
{
	struct rdsu_lreq r;

	while (rdsu_ep_next_link_req(ep, &r) == 1) {
		struct olink *l = link_find(r.link);

		switch (r.type) {
		case RDSU_LREQ_CONNECT:
			if (r.sport_mod && r.sport_res >= r.sport_mod)
				abort();
			if (u8(in) & 1) {
				int e = rdsu_link_established(ep, r.link,
							      (uint16_t)(32768 + r.path), now);

				if (e == 0)
					link_new(r.link, true);
				else if (e != RDSU_ERR_CLOSED)
					abort();
			} else if (rdsu_link_down(ep, r.link, now) != 0) {
				abort();
			}
			break;
		case RDSU_LREQ_CLOSE:
			if (l)
				l->id = 0;
			break;
		case RDSU_LREQ_ATTACH:
			if (!l || l->up)
				abort();
			l->up = true;
			break;
		default:
			break;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = { data, size };
	unsigned mode = u8(&in);
	bool small = mode & 2;
	uint32_t me = small ? 0x0a000001 : 0x0a000002, peer = small ? 0x0a000002 : 0x0a000001;
	struct rdsu_addr la = rdsu_addr_v4(me), fa = rdsu_addr_v4(peer);
	struct rdsu_ep_cfg cfg;
	struct rdsu_ep *ep;
	struct rdsu_sock *socks[2];
	rdsu_ns now = RDSU_SEC;
	static uint8_t payload[70000];
	struct rdsu_event ev;

	memset(links, 0, sizeof(links));
	rdsu_ep_cfg_default(&cfg);
	cfg.laddrs[0] = la;
	cfg.n_laddrs = 1;
	cfg.kver = mode & 1 ? WIRE_KVER_6 : WIRE_KVER_7;
	cfg.gen_num = 0x1234;
	cfg.seed = size;
	if (rdsu_ep_new(&ep, &cfg))
		abort();
	for (int i = 0; i < 2; i++) {
		if (rdsu_sock_new(ep, &socks[i]) ||
		    rdsu_sock_bind(socks[i], &la, (uint16_t)(5000 + i)))
			abort();
	}
	rdsu_sock_set_rcvbuf(socks[1], 3000, now);
	rdsu_sock_set_sndbuf(socks[1], 20000, now);
	rdsu_sock_set_cong_monitor(socks[1], true);
	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 7);

	while (in.left) {
		unsigned op = u8(&in) % 9;
		struct olink *l;

		switch (op) {
		case 0: { /* bytes from the peer on some link, any chunking */
			size_t n = u16(&in);
			ssize_t r;

			l = link_pick(u8(&in));
			if (n > in.left)
				n = in.left;
			if (!l) {
				in.p += n;
				in.left -= n;
				break;
			}
			r = rdsu_link_input(ep, l->id, in.p, n, now);
			in.p += n;
			in.left -= n;
			if (r == RDSU_ERR_PROTO || r == RDSU_ERR_CLOSED)
				l->id = 0;
			else if (r < 0 || ((size_t)r != n && (l->up || r != 0)))
				abort(); /* all of it, or nothing while held */
			break;
		}
		case 1: { /* time passes; maybe the timers run */
			rdsu_ns d = rdsu_ep_deadline(ep);

			now += (rdsu_ns)u16(&in) * 100000;
			if (d < now || (u8(&in) & 1))
				rdsu_ep_expire(ep, now);
			if (rdsu_ep_deadline(ep) < now && rdsu_ep_deadline(ep) != RDSU_NS_NEVER)
				abort(); /* expire left something overdue */
			break;
		}
		case 2: /* the transport writes */
			l = link_pick(u8(&in));
			if (l)
				pull(ep, l, 1 + u16(&in) % sizeof(obuf), now);
			break;
		case 3: /* TCP acknowledges part of it */
			l = link_pick(u8(&in));
			if (l && l->up) {
				uint64_t a = l->acked + (l->written - l->acked) * u8(&in) / 255;
				int r = rdsu_link_acked(ep, l->id, a, now);

				if (r == RDSU_ERR_CLOSED)
					l->id = 0;
				else if (r < 0)
					abort();
				else
					l->acked = a;
			}
			break;
		case 4: /* a link dies */
			l = link_pick(u8(&in));
			if (l) {
				int r = rdsu_link_down(ep, l->id, now);

				if (r != 0 && r != RDSU_ERR_CLOSED)
					abort();
				l->id = 0;
			}
			break;
		case 5: { /* a connection arrives */
			uint64_t id = 0;
			int r = rdsu_link_accept(ep, &la, &fa, (uint16_t)u16(&in), now, &id);

			if (r == RDSU_ACCEPT_UP || r == RDSU_ACCEPT_HELD) {
				if (!id || !link_new(id, r == RDSU_ACCEPT_UP))
					rdsu_link_down(ep, id, now);
			} else if (r != RDSU_ERR_REFUSED && r != RDSU_ERR_NOMEM) {
				abort();
			} else if (id) {
				abort();
			}
			break;
		}
		case 6: { /* the application sends */
			struct iovec iov = { payload, u16(&in) % (sizeof(payload) + 1) };
			unsigned which = u8(&in) & 1;
			uint16_t dport = (uint16_t)(u8(&in) % 8);
			int r = rdsu_sock_submit(socks[which], &fa, dport, &iov, 1, now);

			if (r != (int)iov.iov_len && r != -EAGAIN && r != -ENOBUFS &&
			    r != -EMSGSIZE)
				abort();
			break;
		}
		case 7: { /* the application reads */
			uint8_t buf[512];
			struct iovec iov = { buf, u8(&in) * 2u };
			unsigned which = u8(&in) & 1;
			struct rdsu_rxinfo info;
			ssize_t r = rdsu_sock_read(socks[which], &iov, 1, 0, &info, now);

			if (r != -EAGAIN && (r < 0 || (size_t)r > iov.iov_len ||
					     (info.trunc != (info.len > iov.iov_len)) ||
					     (info.cong && r != 0)))
				abort();
			break;
		}
		default:
			handle_reqs(ep, &in, now);
			break;
		}
		while (rdsu_ep_next_event(ep, &ev) == 1)
			if (ev.type == RDSU_EV_SOCK && ev.sock != socks[0] && ev.sock != socks[1])
				abort();
		check_state(ep);
	}
	rdsu_ep_free(ep);
	return 0;
}
