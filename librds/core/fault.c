// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * fault.c - the names of the faulty-peer defects (rdsu_ep_cfg.faults),
 * for tools that list them and parse --fault NAME. TESTS ONLY: each
 * defect lives, commented "FAULT <name>", at the place in the core where
 * the correct behaviour is implemented.
 */
#include "core.h"

#include <string.h>

static const struct rdsu_fault_info faults[RDSU_FAULT__COUNT] = {
	{ RDSU_FAULT_SEQ_ZERO, "seq-zero",
	  "sequence numbers start at 0 instead of 1" },
	{ RDSU_FAULT_SEQ_SKIP, "seq-skip",
	  "sequence numbers rise by 2 instead of 1" },
	{ RDSU_FAULT_PONG_WRONG_PORT, "pong-wrong-port",
	  "a pong's source port is the ping's source port instead of 0" },
	{ RDSU_FAULT_PONG_PAYLOAD, "pong-payload",
	  "a pong carries 4 payload bytes instead of none" },
	{ RDSU_FAULT_PING_PORT0_ANSWERED, "ping-port0-answered",
	  "a ping from source port 0 is answered instead of ignored" },
	{ RDSU_FAULT_NO_MAP, "no-map",
	  "no congestion map is sent when a path comes up" },
	{ RDSU_FAULT_SHORT_MAP, "short-map",
	  "the congestion map has h_len 4096 (half a map) instead of 8192" },
	{ RDSU_FAULT_MAP_FLAGS, "map-flags",
	  "the congestion map's h_flags is 0x03 instead of exactly 0x01" },
	{ RDSU_FAULT_PROBE_NO_NPATHS, "probe-no-npaths",
	  "probe pings and pongs carry no NPATHS extension header" },
	{ RDSU_FAULT_ACK_SENT, "ack-sent",
	  "h_ack is the next expected sequence number instead of 0 on TCP" },
	{ RDSU_FAULT_RETRANS_NO_FLAG, "retrans-no-flag",
	  "messages resent after a reconnect lack the RETRANSMITTED flag" },
	{ RDSU_FAULT_DUP_DELIVER, "dup-deliver",
	  "retransmitted duplicates (seq below next expected) are delivered, not dropped" },
	{ RDSU_FAULT_ACCEPT_LARGER, "accept-larger",
	  "a TCP connection from the larger address is accepted instead of reset" },
	{ RDSU_FAULT_UNKNOWN_EXT_RESET, "unknown-ext-reset",
	  "an unknown extension header type resets the path instead of being skipped" },
	{ RDSU_FAULT_HUGE_HLEN_CRASH, "huge-hlen-crash",
	  "a header with h_len above 1 MiB calls abort() instead of resetting the path" },
	{ RDSU_FAULT_PROBE_NO_PONG, "probe-no-pong",
	  "a probe ping is acted on but not answered with a probe pong" },
	{ RDSU_FAULT_PROBE_PONG_LATE, "probe-pong-late",
	  "the probe pong leaves 5 s after the probe ping (on its connection) instead of at once" },
	{ RDSU_FAULT_PROBE_PONG_PORT0, "probe-pong-port0",
	  "the probe pong goes to port 0 (a pong from 0 to 0) instead of port 1" },
	{ RDSU_FAULT_PROBE_EXTRA_PING, "probe-extra-ping",
	  "a probe ping is answered with a probe ping of its own instead of a probe pong" },
	{ RDSU_FAULT_ANSWER_DELAY_1S, "answer-delay-1s",
	  "every pong and probe pong leaves 1 s after its ping (a slow peer, not a wrong one)" },
	{ RDSU_FAULT_ANSWER_DELAY_3S, "answer-delay-3s",
	  "every pong and probe pong leaves 3 s after its ping (a slow peer, not a wrong one)" },
	{ RDSU_FAULT_IB_CSUM_BAD, "ib-csum-bad",
	  "frames over IB carry the header checksum plus one instead of the checksum" },
	{ RDSU_FAULT_IB_CSUM_IGNORED, "ib-csum-ignored",
	  "a frame over IB whose h_csum does not verify is processed instead of resetting the path" },
	{ RDSU_FAULT_IB_NO_ACK, "ib-no-ack",
	  "ACK_REQUIRED over IB is ignored: no ACK-only frame is sent for it" },
	{ RDSU_FAULT_IB_ACK_ZERO, "ib-ack-zero",
	  "h_ack over IB is 0 instead of the last sequence number received" },
	{ RDSU_FAULT_IB_FRAG_MISMATCH, "ib-frag-mismatch",
	  "fragments after a message's first carry seq + 1, so their headers disagree" },
	{ RDSU_FAULT_IB_FRAG_ACCEPT, "ib-frag-accept",
	  "a fragment whose header disagrees with the first's is dropped instead of resetting the path" },
	{ RDSU_FAULT_IB_VERSION, "ib-version",
	  "the IB REP's private data names 4.0 whatever version was negotiated" },
	{ RDSU_FAULT_IB_VERSION_ACCEPT, "ib-version-accept",
	  "an IB REQ proposing an unknown version is accepted as 3.1 instead of rejected" },
	{ RDSU_FAULT_IB_ACK_IGNORED, "ib-ack-ignored",
	  "h_ack over IB frees nothing: acknowledged messages are resent after a reconnect" },
};

_Static_assert(RDSU_FAULT__COUNT <= 31, "enum rdsu_fault values fit an int");

const struct rdsu_fault_info *rdsu_fault_info(unsigned bit)
{
	return bit < RDSU_FAULT__COUNT ? &faults[bit] : NULL;
}

uint32_t rdsu_ep_faults(const struct rdsu_ep *ep)
{
	return ep ? ep->cfg.faults : 0;
}

const char *rdsu_fault_name(unsigned bit)
{
	return bit < RDSU_FAULT__COUNT ? faults[bit].name : NULL;
}

uint32_t rdsu_fault_by_name(const char *name)
{
	if (!name)
		return 0;
	for (unsigned i = 0; i < RDSU_FAULT__COUNT; i++)
		if (strcmp(faults[i].name, name) == 0)
			return (uint32_t)faults[i].fault;
	return 0;
}
