/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * pcaplink.h - rdsdump: from what libpcap hands out to what the engine
 * takes. Shared by main.c, the fuzz harness and the tests, so that all of
 * them read captures the same way. Only for code that links libpcap.
 */
#ifndef DUMP_PCAPLINK_H
#define DUMP_PCAPLINK_H

#include <pcap/pcap.h>

#include "dump.h"

/*
 * dump_linktype() - the LINKTYPE_* value (enum wire_linktype) of a libpcap
 * DLT_* value; -1 for one rdsdump does not read. They differ for raw IP:
 * libpcap maps LINKTYPE_RAW (101) in files to the platform's DLT_RAW.
 */
static inline int dump_linktype(int dlt)
{
	switch (dlt) {
	case DLT_EN10MB:
		return WIRE_LINK_ETHERNET;
	case DLT_RAW:
	case 101:
		return WIRE_LINK_RAW;
	case DLT_LINUX_SLL:
		return WIRE_LINK_LINUX_SLL;
#ifdef DLT_LINUX_SLL2
	case DLT_LINUX_SLL2:
		return WIRE_LINK_LINUX_SLL2;
#endif
	case DLT_NETLINK:
		return WIRE_LINK_NETLINK;
	case DLT_IPV4:
		return WIRE_LINK_IPV4;
	case DLT_IPV6:
		return WIRE_LINK_IPV6;
	case DLT_INFINIBAND:
		return WIRE_LINK_INFINIBAND;
	}
	return -1;
}

/* dump_pkthdr_of() - packet number |frame| of link type |lt|, from a
 * capture opened with PCAP_TSTAMP_PRECISION_NANO (tv_usec holds ns). */
static inline struct dump_pkthdr dump_pkthdr_of(const struct pcap_pkthdr *h, uint64_t frame,
						 int lt)
{
	struct dump_pkthdr ph = {
		.frame = frame,
		.ts_sec = h->ts.tv_sec,
		.ts_nsec = (uint32_t)h->ts.tv_usec,
		.caplen = h->caplen,
		.len = h->len,
		.linktype = lt,
	};

	return ph;
}

#endif /* DUMP_PCAPLINK_H */
