// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * capwalk.c - runs libwire over a real capture and prints what it found, one
 * line per item, in a form tests compare with the independent Python
 * reading (tests/lab/rdscap.py). Classic pcap only; no libpcap, so the test
 * needs nothing beyond libwire.
 *
 *   capwalk FILE.pcap    prints: roce <n> icrc_ok <n> icrc_bad <n>
 *                                cm <REQ|REP|...> service 0x... pd <maj>.<min> ...
 *                                ibmsg <src> <dst> <kind> seq <n> len <n> frags <n>
 * Exit: 0 when every RoCE packet's ICRC verified and every frame decoded.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <wire/wire.h>

struct qp_asm {
	uint8_t src[4], dst[4];
	uint32_t qpn;
	uint8_t buf[WIRE_HDR_LEN + WIRE_FRAG_SIZE];
	size_t len;
	bool active;
	bool have_psn;
	uint32_t next_psn;      /* next PSN expected on this QP */
	struct wire_reasm r;
	uint8_t *msg;
};

#define MAXQP 16

static struct qp_asm qps[MAXQP];

static struct qp_asm *qp_for(const struct wire_roce *r)
{
	for (int i = 0; i < MAXQP; i++)
		if (qps[i].r.max_len && qps[i].qpn == r->bth.dqpn &&
		    !memcmp(qps[i].dst, r->dst, 4) && !memcmp(qps[i].src, r->src, 4))
			return &qps[i];
	for (int i = 0; i < MAXQP; i++) {
		if (qps[i].r.max_len)
			continue;
		memcpy(qps[i].src, r->src, 4);
		memcpy(qps[i].dst, r->dst, 4);
		qps[i].qpn = r->bth.dqpn;
		qps[i].msg = malloc(WIRE_MAX_MSG_LEN);
		wire_reasm_init(&qps[i].r, 0, qps[i].msg, WIRE_MAX_MSG_LEN);
		return &qps[i];
	}
	return NULL;
}

static int frame_done(struct qp_asm *q)
{
	struct wire_frame f;
	int rc = wire_reasm_input(&q->r, q->buf, q->len, &f);

	q->len = 0;
	if (rc < 0) {
		printf("reasm error %s\n", wire_strerror(rc));
		return 1;
	}
	if (rc == 1) {
		struct wire_hdr h = f.hdr;

		printf("ibmsg %u.%u.%u.%u %u.%u.%u.%u %s seq %" PRIu64 " ack %" PRIu64
		       " len %u flags 0x%02x csum_ok %d\n",
		       q->src[0], q->src[1], q->src[2], q->src[3], q->dst[0], q->dst[1],
		       q->dst[2], q->dst[3], wire_kind_name(wire_classify(&h, WIRE_XPORT_IB)),
		       h.seq, h.ack, f.len, h.flags, wire_hdr_csum_ok(&h) && h.csum != 0);
	}
	return 0;
}

int main(int argc, char **argv)
{
	FILE *fp;
	uint8_t gh[24], ph[16];
	static uint8_t pkt[262144];
	unsigned roce = 0, ok = 0, bad = 0, errs = 0, dups = 0, gaps = 0;

	if (argc != 2 || !(fp = fopen(argv[1], "rb")) || fread(gh, 1, 24, fp) != 24) {
		fprintf(stderr, "usage: capwalk FILE.pcap\n");
		return 2;
	}
	while (fread(ph, 1, 16, fp) == 16) {
		uint32_t incl, orig;
		struct wire_pkt p;
		struct wire_roce r;

		memcpy(&incl, ph + 8, 4);
		memcpy(&orig, ph + 12, 4);
		if (incl > sizeof(pkt) || fread(pkt, 1, incl, fp) != incl)
			break;
		if (wire_pkt_decode(&p, WIRE_LINK_ETHERNET, pkt, incl, orig) != 0 ||
		    p.l4 != WIRE_L4_UDP || p.dport != WIRE_ROCE_UDP_PORT)
			continue;
		roce++;
		if (wire_roce_decode(&r, p.l3_hdr, p.l3_caplen, p.l3_len) != 0) {
			errs++;
			continue;
		}
		if (r.icrc_checked && r.icrc_ok)
			ok++;
		else
			bad++;
		if (r.bth.opcode == WIRE_IB_UD_SEND_ONLY && r.bth.dqpn == 1) {
			struct wire_ibcm cm;
			struct wire_ibpd pd;

			if (wire_ibcm_decode(&cm, r.payload, r.payload_len) != 0) {
				errs++;
				continue;
			}
			printf("cm %s", wire_ibcm_attr_name(cm.attr_id));
			if (cm.attr_id == WIRE_IBCM_REQ)
				printf(" service 0x%016" PRIx64, cm.service_id);
			if ((cm.attr_id == WIRE_IBCM_REQ && cm.has_cma &&
			     wire_ibpd_decode(&pd, cm.cma_ip_version, cm.user_data, cm.user_len) > 0) ||
			    (cm.attr_id == WIRE_IBCM_REP &&
			     wire_ibpd_decode(&pd, 4, cm.private_data, cm.private_len) > 0))
				printf(" pd %u.%u mask 0x%04x credit %u negotiated 0x%04x",
				       pd.major, pd.minor, pd.minor_mask, pd.credit,
				       cm.attr_id == WIRE_IBCM_REQ ?
				       wire_ib_negotiate(cm.user_data, cm.user_len, cm.cma_ip_version) : 0);
			printf("\n");
			continue;
		}
		if (wire_ib_opcode_seg(r.bth.opcode) != WIRE_IB_SEG_NONE) {
			struct qp_asm *q = qp_for(&r);
			enum wire_ib_seg seg = wire_ib_opcode_seg(r.bth.opcode);

			if (!q)
				continue;
			/* RC retransmits reuse PSNs: a packet behind the expected PSN
			 * (24-bit serial arithmetic) was seen already. One ahead of it
			 * means the capture lost packets. */
			if (q->have_psn) {
				uint32_t d = (r.bth.psn - q->next_psn) & 0xffffff;

				if (d >= 0x800000) {
					dups++;
					continue;
				}
				if (d) {
					printf("psn gap: %u packets missing\n", d);
					gaps++;
					q->len = 0;
				}
			}
			q->have_psn = true;
			q->next_psn = (r.bth.psn + 1) & 0xffffff;
			if (seg == WIRE_IB_SEG_FIRST || seg == WIRE_IB_SEG_ONLY)
				q->len = 0;
			if (q->len + r.payload_len > sizeof(q->buf)) {
				printf("send larger than a fragment\n");
				errs++;
				q->len = 0;
				continue;
			}
			memcpy(q->buf + q->len, r.payload, r.payload_len);
			q->len += r.payload_len;
			if (seg == WIRE_IB_SEG_LAST || seg == WIRE_IB_SEG_ONLY)
				errs += (unsigned)frame_done(q);
		}
	}
	fclose(fp);
	printf("roce %u icrc_ok %u icrc_bad %u errors %u retransmitted %u gaps %u\n", roce, ok,
	       bad, errs, dups, gaps);
	return roce && !bad && !errs && !gaps ? 0 : 1;
}
