// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ipfrag.c - IPv4/IPv6 fragments back into datagrams (ipfrag.h). Ref:
 * RFC 791, RFC 8200 4.5, RFC 5722; net/ipv4/ip_fragment.c ip_frag_queue(),
 * ip_frag_reasm(); net/ipv4/inet_fragment.c inet_frag_queue_insert();
 * net/ipv6/reassembly.c.
 *
 * Every fragment but the last starts and ends on an 8-byte boundary, so
 * which bytes are held is a bitmap of 8-byte units; the last fragment
 * starts on one too, and its final unit may be partly used.
 */
#include "ipfrag.h"

#include <stdlib.h>
#include <string.h>

#define UNITS ((DUMP_IPFRAG_DATA_MAX + 7u) / 8u)

struct dump_ipfrag_dg {
	enum wire_l3 l3;
	uint8_t src[16], dst[16];
	uint32_t id;
	uint8_t proto;
	uint64_t first_ns;      /* capture time of its first fragment */
	uint32_t end;           /* highest end of data held */
	bool last;              /* the fragment without more seen: end is the total */
	uint32_t got;           /* data bytes held */
	uint32_t hlen;          /* header kept (from offset 0), 0 until seen */
	uint8_t have[UNITS / 8u];
	/* header right before the data, so the datagram comes out in one piece */
	uint8_t pkt[DUMP_IPFRAG_HDR_MAX + DUMP_IPFRAG_DATA_MAX];
};

size_t dump_ipfrag_dg_size(void)
{
	return sizeof(struct dump_ipfrag_dg);
}

void dump_ipfrag_init(struct dump_ipfrag *t)
{
	memset(t, 0, sizeof(*t));
}

static void dg_free(struct dump_ipfrag *t, struct dump_ipfrag_dg *d)
{
	if (!d)
		return;
	free(d);
	t->mem -= sizeof(*d);
}

/* Take slot |i| out of the table (the last slot moves into it). */
static struct dump_ipfrag_dg *slot_take(struct dump_ipfrag *t, unsigned i)
{
	struct dump_ipfrag_dg *d = t->dg[i];

	t->dg[i] = t->dg[--t->n];
	t->dg[t->n] = NULL;
	return d;
}

void dump_ipfrag_expire(struct dump_ipfrag *t, uint64_t now_ns)
{
	for (unsigned i = 0; i < t->n;) {
		const struct dump_ipfrag_dg *d = t->dg[i];

		/* a capture's clock may step back: only time gone by counts */
		if (now_ns > d->first_ns && now_ns - d->first_ns >= DUMP_IPFRAG_TIMEOUT_NS) {
			t->st.timeout++;
			dg_free(t, slot_take(t, i));
			continue;
		}
		i++;
	}
}

size_t dump_ipfrag_evict_oldest(struct dump_ipfrag *t)
{
	unsigned old = 0;

	if (!t->n)
		return 0;
	for (unsigned i = 1; i < t->n; i++)
		if (t->dg[i]->first_ns < t->dg[old]->first_ns)
			old = i;
	t->st.evicted++;
	t->st.evicted_bytes += t->dg[old]->got;
	dg_free(t, slot_take(t, old));
	return sizeof(struct dump_ipfrag_dg);
}

static bool same_dg(const struct dump_ipfrag_dg *d, const struct wire_pkt *p,
		    const struct wire_ipfrag *f)
{
	size_t alen = p->l3 == WIRE_L3_IPV4 ? 4 : 16;

	/* IPv6's key has no protocol (ip6frag_key) */
	return d->l3 == p->l3 && d->id == f->id &&
	       (p->l3 == WIRE_L3_IPV6 || d->proto == f->proto) &&
	       !memcmp(d->src, p->src, alen) && !memcmp(d->dst, p->dst, alen);
}

static int find(const struct dump_ipfrag *t, const struct wire_pkt *p,
		const struct wire_ipfrag *f)
{
	for (unsigned i = 0; i < t->n; i++)
		if (same_dg(t->dg[i], p, f))
			return (int)i;
	return -1;
}

static bool unit_has(const struct dump_ipfrag_dg *d, uint32_t u)
{
	return d->have[u / 8] & (1u << (u % 8));
}

/* Units [a, b) of |d|: 0 none held, 1 all held, 2 some. */
static int held(const struct dump_ipfrag_dg *d, uint32_t a, uint32_t b)
{
	uint32_t n = 0;

	for (uint32_t u = a; u < b; u++)
		n += unit_has(d, u);
	return n == 0 ? 0 : n == b - a ? 1 : 2;
}

/* A new datagram's slot, making room as asked. NULL: none to be had. */
static struct dump_ipfrag_dg *dg_new(struct dump_ipfrag *t, size_t room)
{
	struct dump_ipfrag_dg *d;

	if (t->n == DUMP_IPFRAG_MAX)
		room += dump_ipfrag_evict_oldest(t);
	while (room < sizeof(*d) && t->n)
		room += dump_ipfrag_evict_oldest(t);
	if (room < sizeof(*d))
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	t->mem += sizeof(*d);
	t->dg[t->n++] = d;
	return d;
}

/* The datagram as one packet: header lengths set to the whole, fragment
 * fields gone. */
static const uint8_t *assemble(struct dump_ipfrag_dg *d, size_t *len)
{
	uint8_t *h = d->pkt + DUMP_IPFRAG_HDR_MAX - d->hlen;

	if (d->l3 == WIRE_L3_IPV4) {
		uint32_t total = d->hlen + d->end;

		h[2] = (uint8_t)(total >> 8);
		h[3] = (uint8_t)total;
		/* MF and the offset go; DF and the reserved bit stay as sent
		 * (RoCEv2's ICRC covers them) */
		h[6] &= 0xc0;
		h[7] = 0;
	} else {
		h[4] = (uint8_t)(d->end >> 8);
		h[5] = (uint8_t)d->end;
		h[6] = d->proto;
	}
	*len = d->hlen + d->end;
	return h;
}

int dump_ipfrag_input(struct dump_ipfrag *t, const struct wire_pkt *p,
		      const struct wire_ipfrag *f, uint64_t now_ns, size_t room,
		      const uint8_t **out, size_t *out_len)
{
	struct dump_ipfrag_dg *d;
	uint32_t end = f->offset + (uint32_t)f->data_len;
	uint32_t ua = f->offset / 8, ub = (end + 7) / 8;
	int i;

	dg_free(t, t->done);
	t->done = NULL;
	dump_ipfrag_expire(t, now_ns);
	if ((p->l3 != WIRE_L3_IPV4 && p->l3 != WIRE_L3_IPV6) || end > DUMP_IPFRAG_DATA_MAX ||
	    f->hdr_len > DUMP_IPFRAG_HDR_MAX || (f->offset & 7))
		return DUMP_IPFRAG_BAD;
	t->st.frags++;
	i = find(t, p, f);
	/* ip_frag_queue(): a fragment with no data kills its datagram */
	if (!f->data_len) {
		if (i >= 0) {
			t->st.bad++;
			dg_free(t, slot_take(t, (unsigned)i));
		}
		return DUMP_IPFRAG_BAD;
	}
	if (i >= 0) {
		d = t->dg[i];
	} else {
		d = dg_new(t, room);
		if (!d) {
			t->st.evicted++;
			t->st.evicted_bytes += f->data_len;
			return DUMP_IPFRAG_NOROOM;
		}
		i = (int)t->n - 1;
		d->l3 = p->l3;
		memcpy(d->src, p->src, sizeof(d->src));
		memcpy(d->dst, p->dst, sizeof(d->dst));
		d->id = f->id;
		d->proto = f->proto;
		d->first_ns = now_ns;
	}
	/* ip_frag_queue(): an end before data held, a second end elsewhere,
	 * or data beyond the end: the datagram cannot be what it says */
	if ((!f->more && (end < d->end || (d->last && end != d->end))) ||
	    (f->more && end > d->end && d->last)) {
		t->st.bad++;
		dg_free(t, slot_take(t, (unsigned)i));
		return DUMP_IPFRAG_BAD;
	}
	switch (held(d, ua, ub)) {
	case 0:
		break;
	case 1:
		/* the same bytes again (a duplicate) are dropped alone */
		if (!memcmp(d->pkt + DUMP_IPFRAG_HDR_MAX + f->offset, f->data, f->data_len) &&
		    (f->more || d->last)) {
			t->st.dup++;
			return DUMP_IPFRAG_DUP;
		}
		__attribute__((fallthrough));
	default:
		/* RFC 5722: overlapping fragments drop the whole datagram */
		t->st.bad++;
		dg_free(t, slot_take(t, (unsigned)i));
		return DUMP_IPFRAG_BAD;
	}
	memcpy(d->pkt + DUMP_IPFRAG_HDR_MAX + f->offset, f->data, f->data_len);
	for (uint32_t u = ua; u < ub; u++)
		d->have[u / 8] |= (uint8_t)(1u << (u % 8));
	d->got += (uint32_t)f->data_len;
	if (end > d->end)
		d->end = end;
	if (!f->more)
		d->last = true;
	if (!f->offset) {
		d->hlen = (uint32_t)f->hdr_len;
		memcpy(d->pkt + DUMP_IPFRAG_HDR_MAX - d->hlen, f->hdr, f->hdr_len);
	}
	if (!d->last || !d->hlen || d->got != d->end)
		return DUMP_IPFRAG_HELD;
	t->st.done++;
	t->done = slot_take(t, (unsigned)i);
	*out = assemble(t->done, out_len);
	return DUMP_IPFRAG_DONE;
}

void dump_ipfrag_fini(struct dump_ipfrag *t)
{
	dg_free(t, t->done);
	t->done = NULL;
	while (t->n) {
		t->st.unfinished++;
		dg_free(t, slot_take(t, t->n - 1));
	}
}
