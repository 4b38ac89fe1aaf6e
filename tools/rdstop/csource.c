// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * csource.c - the capture source's I/O half: libpcap reads a file (-r) or
 * an interface (-i) and cap.c decodes. A file is replayed on its own
 * clock: each snapshot reads one step (the delay) of capture time further,
 * so the same file gives the same snapshots whatever the machine.
 */
#include "source.h"

#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cap.h"
#include "pcaplink.h"

struct csource {
	pcap_t *pc;
	int lt;
	struct top_cap *cap;
	bool live;
	uint64_t step_ns;
	uint64_t frame;
	/* replay: the capture time of the first packet and the next snapshot */
	bool started;
	int64_t t0_sec;
	uint32_t t0_nsec;
	uint64_t target_ns;
	/* a packet read but beyond the current step; valid until the next read */
	bool held;
	struct pcap_pkthdr *h;
	const u_char *data;
	bool ended;
};

static uint64_t since_start(const struct csource *c, const struct pcap_pkthdr *h)
{
	int64_t ns = ((int64_t)h->ts.tv_sec - c->t0_sec) * 1000000000 +
		     ((int64_t)h->ts.tv_usec - (int64_t)c->t0_nsec);

	/* a capture is not always in time order; an earlier packet counts
	 * as at the start */
	return ns < 0 ? 0 : (uint64_t)ns;
}

static void feed(struct csource *c, const struct pcap_pkthdr *h, const u_char *data,
		 uint64_t t_ns)
{
	struct dump_pkthdr ph = dump_pkthdr_of(h, ++c->frame, c->lt);

	top_cap_packet(c->cap, &ph, data, t_ns);
}

static void on_live(u_char *user, const struct pcap_pkthdr *h, const u_char *data)
{
	struct csource *c = (struct csource *)user;

	feed(c, h, data, c->target_ns);
}

static int cap_open(void **state, const struct top_source_args *a, char *err, size_t errlen)
{
	char perr[PCAP_ERRBUF_SIZE] = "";
	struct csource *c = calloc(1, sizeof(*c));
	int e;

	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	c->step_ns = a->step_ns;
	c->live = a->iface != NULL;
	if (c->live) {
		c->pc = pcap_create(a->iface, perr);
		if (c->pc && (pcap_set_snaplen(c->pc, 65535) < 0 ||
			      pcap_set_immediate_mode(c->pc, 1) < 0 ||
			      pcap_set_tstamp_precision(c->pc, PCAP_TSTAMP_PRECISION_NANO) < 0 ||
			      pcap_activate(c->pc) < 0 || pcap_setnonblock(c->pc, 1, perr) < 0)) {
			snprintf(perr, sizeof(perr), "%s", pcap_geterr(c->pc));
			pcap_close(c->pc);
			c->pc = NULL;
		}
	} else {
		c->pc = pcap_open_offline_with_tstamp_precision(a->file, PCAP_TSTAMP_PRECISION_NANO,
								perr);
	}
	if (!c->pc) {
		snprintf(err, errlen, "%s: %s", c->live ? a->iface : a->file, perr);
		free(c);
		return -EIO;
	}
	c->lt = dump_linktype(pcap_datalink(c->pc));
	if (c->lt < 0) {
		snprintf(err, errlen, "%s: link type %s is not one rdsdump's engine reads",
			 c->live ? a->iface : a->file,
			 pcap_datalink_val_to_name(pcap_datalink(c->pc)) ?: "?");
		pcap_close(c->pc);
		free(c);
		return -EINVAL;
	}
	e = top_cap_new(&c->cap);
	if (e < 0) {
		snprintf(err, errlen, "out of memory");
		pcap_close(c->pc);
		free(c);
		return e;
	}
	*state = c;
	return 0;
}

/* Read the file up to the next step of capture time, or to its end. */
static int replay(struct csource *c, char *err, size_t errlen)
{
	int rc;

	if (!c->started) {
		rc = pcap_next_ex(c->pc, &c->h, &c->data);
		if (rc == 1) {
			c->t0_sec = c->h->ts.tv_sec;
			c->t0_nsec = (uint32_t)c->h->ts.tv_usec;
			c->held = true;
		}
		c->started = true;
	}
	c->target_ns += c->step_ns;
	if (c->ended)
		return 0;
	for (;;) {
		if (!c->held) {
			rc = pcap_next_ex(c->pc, &c->h, &c->data);
			if (rc == PCAP_ERROR_BREAK || rc == 0)
				break;
			if (rc < 0) {
				snprintf(err, errlen, "%s", pcap_geterr(c->pc));
				return -EIO;
			}
			c->held = true;
		}
		if (since_start(c, c->h) > c->target_ns)
			return 0;
		c->held = false;
		feed(c, c->h, c->data, since_start(c, c->h));
	}
	top_cap_finish(c->cap, c->target_ns);
	c->ended = true;
	return 0;
}

static int cap_snapshot(void *state, uint64_t now_ns, struct top_snap *out, char *err,
			size_t errlen)
{
	struct csource *c = state;
	int e;

	if (c->live) {
		c->target_ns = now_ns;
		while ((e = pcap_dispatch(c->pc, -1, on_live, (u_char *)c)) > 0)
			;
		if (e == PCAP_ERROR) {
			snprintf(err, errlen, "%s", pcap_geterr(c->pc));
			return -EIO;
		}
		out->now_ns = now_ns;
		out->source = "capture";
	} else {
		e = replay(c, err, errlen);
		if (e < 0)
			return e;
		out->now_ns = c->target_ns;
		out->source = "capture";
		out->replay = true;
		out->ended = c->ended;
	}
	e = top_cap_fill(c->cap, out);
	if (e < 0)
		snprintf(err, errlen, "out of memory");
	return e;
}

static void cap_close(void *state)
{
	struct csource *c = state;

	if (!c)
		return;
	pcap_close(c->pc);
	top_cap_free(c->cap);
	free(c);
}

static void cap_set_step(void *state, uint64_t step_ns)
{
	struct csource *c = state;

	c->step_ns = step_ns;
}

const struct top_source top_source_capture = {
	.name = "capture",
	.open = cap_open,
	.snapshot = cap_snapshot,
	.close = cap_close,
	.set_step = cap_set_step,
};
