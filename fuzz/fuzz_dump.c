// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * fuzz_dump.c - rdsdump's whole reading path: the input is a capture file
 * (pcap or pcapng, as libpcap reads it from memory), every packet goes
 * through the engine, and every record through every renderer (one line,
 * -vv with -XX, JSON) and the filter. Properties: no crash, no leak, no
 * unbounded memory (the engine's own count stays under a fixed bound
 * whatever the input), and the stream offsets of messages of one direction
 * never go backwards.
 *
 * Small limits (few flows, small windows) make the eviction and the
 * resync paths run often.
 */
#define _GNU_SOURCE
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "filter.h"
#include "pcaplink.h"
#include "render.h"

static struct dump_render rd[3];
static struct dump_filter flt;

static void sink(void *ctx, const struct dump_rec *r)
{
	(void)ctx;
	for (int i = 0; i < 3; i++)
		dump_print_rec(&rd[i], r);
	(void)dump_filter_match(&flt, r);
	if (r->type == DUMP_REC_MSG && r->u.msg.caplen > r->u.msg.hdr.len)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct dump_cfg cfg = {
		.sink = sink, .max_flows = 4, .tcp_ooo = 4096, .tcp_history = 1024,
		.max_len = 65536, .tcp_ports = { 16385, 4000 }, .ntcp_ports = 2,
	};
	struct dump_eng *e;
	struct pcap_pkthdr *h;
	const u_char *pkt;
	FILE *in, *out;
	pcap_t *pc;
	uint64_t frame = 0;
	size_t bound;
	int lt;

	if (!size)
		return 0;
	/* odd sizes: a budget of nothing, so that every packet closes every
	 * other flow early and drops every idle connection's state */
	if (size & 1)
		cfg.max_mem = 1;
	in = fmemopen((void *)data, size, "rb");
	out = fopen("/dev/null", "w");
	if (!in || !out)
		abort();
	for (int i = 0; i < 3; i++)
		rd[i].out = out;
	rd[1].verbose = 2;
	rd[1].hex = 2;
	rd[2].json = true;
	rd[2].tsmode = 2;
	memset(&flt, 0, sizeof(flt));
	flt.rules_only = true;
	pc = pcap_fopen_offline_with_tstamp_precision(in, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (!pc) {
		fclose(in);
		fclose(out);
		return 0;
	}
	if (dump_eng_new(&e, &cfg))
		abort();
	/* flows * (reassembly arenas + windows + buffers) + connections: a
	 * generous fixed ceiling the input cannot move */
	bound = 64u << 20;
	lt = dump_linktype(pcap_datalink(pc));
	while (pcap_next_ex(pc, &h, &pkt) == 1) {
		struct dump_pkthdr ph = dump_pkthdr_of(h, ++frame, lt);

		dump_eng_packet(e, &ph, pkt);
		if (dump_eng_mem(e) > bound)
			abort();
	}
	dump_eng_finish(e);
	/* with max_flows 4 and no budget nothing is closed for memory */
	if (!cfg.max_mem && (dump_eng_drops(e)->flows_mem || dump_eng_drops(e)->conns_mem))
		abort();
	dump_eng_free(e);
	pcap_close(pc);         /* closes |in| */
	fclose(out);
	return 0;
}
