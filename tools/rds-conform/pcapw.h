/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * pcapw.h - rds-conform: write an exchange the suite took part in (or a
 * crafted message) as a capture file that rdsdump, tcpdump and Wireshark
 * read. The TCP connections are synthesised from the byte streams (raw IP
 * link type, IPv4 or IPv6 headers, TCP headers with consistent sequence
 * and acknowledgement numbers), since the suite sees its sockets' bytes,
 * not packets; libpcap writes the file.
 */
#ifndef CONFORM_PCAPW_H
#define CONFORM_PCAPW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rds/rdsu.h>

struct cf_pcap;

/* One TCP connection as the file shows it; side 0 is |a|, the side that
 * opened it (SYN). */
struct cf_pcap_flow {
	struct rdsu_addr a, b;
	uint16_t aport, bport;
	uint32_t seq[2];         /* next sequence number each side sends */
	bool open;               /* the handshake was written */
};

/* cf_pcap_open() - create |path|. Return: 0; negative errno. */
int cf_pcap_open(struct cf_pcap **out, const char *path);
/* cf_pcap_close() - flush and close; NULL is a no-op. */
void cf_pcap_close(struct cf_pcap *p);

void cf_pcap_flow_init(struct cf_pcap_flow *f, const struct rdsu_addr *a, uint16_t aport,
		       const struct rdsu_addr *b, uint16_t bport);
/* Each writes packets stamped with the current time. Return: 0; negative
 * errno. */
int cf_pcap_syn(struct cf_pcap *p, struct cf_pcap_flow *f);  /* SYN, SYN-ACK, ACK */
/* |len| bytes from side |dir| (0: a to b), cut into segments of at most
 * 65000 bytes. */
int cf_pcap_data(struct cf_pcap *p, struct cf_pcap_flow *f, int dir, const void *buf,
		 size_t len);
int cf_pcap_fin(struct cf_pcap *p, struct cf_pcap_flow *f, int dir);
/* One whole IP packet as given (a RoCEv2 packet, say). */
int cf_pcap_packet(struct cf_pcap *p, const void *pkt, size_t len);
int cf_pcap_rst(struct cf_pcap *p, struct cf_pcap_flow *f, int dir);

#endif /* CONFORM_PCAPW_H */
