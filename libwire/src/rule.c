// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* rule.c - the validity rule table: stable names, severities, references.
 * rdsdump flags these on messages and rds-conform reports them as verdicts,
 * so a name, once published, never changes. */
#include <wire/wire.h>

#include <string.h>

#define R(id, nm, sv, rf, tx) [id] = { id, nm, sv, rf, tx }
#define I WIRE_SEV_INFO
#define W WIRE_SEV_WARN
#define E WIRE_SEV_ERROR

static const struct wire_rule_info rules[WIRE_RULE__COUNT] = {
	R(WIRE_RULE_NONE, "none", I, "-", "No rule."),
	/* header */
	R(WIRE_RULE_HDR_LEN_MAX, "hdr.len.max", E, "RDS_MAX_MSG_SIZE (send.c rds_sendmsg)",
	  "h_len is above the message size limit (1 MiB): no kernel sends it, and a receiver that trusts it must buffer that much."),
	R(WIRE_RULE_HDR_CSUM_BAD, "hdr.csum.bad", E, "rds_message_verify_checksum (rds.h), rds_ib_process_recv",
	  "h_csum is non-zero and does not verify over the 48 header bytes; an IB receiver drops the connection."),
	R(WIRE_RULE_HDR_CSUM_ON_TCP, "hdr.csum.tcp", I, "tcp_send.c (header never checksummed)",
	  "h_csum is set on RDS/TCP, where no kernel computes or checks it."),
	R(WIRE_RULE_HDR_CSUM_MISSING_IB, "hdr.csum.missing", I, "rds_ib_xmit (ib_send.c)",
	  "h_csum is 0 on IB, where every kernel frame is checksummed; receivers accept 0 as absent."),
	R(WIRE_RULE_HDR_ACK_ON_TCP, "hdr.ack.tcp", W, "rds_tcp_xmit; kernel-behaviour.md K4.3",
	  "h_ack is non-zero on RDS/TCP; TCP acknowledgement is TCP's own and a kernel ignores the field."),
	R(WIRE_RULE_HDR_CREDIT_ON_TCP, "hdr.credit.tcp", W, "rds_tcp_xmit",
	  "h_credit is non-zero on RDS/TCP; credits exist only on IB and a TCP receiver ignores them."),
	R(WIRE_RULE_HDR_ACKREQ_ON_TCP, "hdr.flags.ackreq_tcp", W, "rds_ib_xmit (only IB writes the flag)",
	  "ACK_REQUIRED is set on RDS/TCP; only the IB transport puts it on the wire and TCP receivers ignore it."),
	R(WIRE_RULE_HDR_PAD_NONZERO, "hdr.pad.nonzero", W, "struct rds_header h_padding",
	  "h_padding is not zero; senders zero it and receivers never read it."),
	R(WIRE_RULE_HDR_FLAGS_UNKNOWN, "hdr.flags.unknown", W, "RDS_FLAG_* (rds.h)",
	  "h_flags has bits no kernel defines (0x40, 0x80)."),
	R(WIRE_RULE_HDR_FLAGS_HEARTBEAT, "hdr.flags.heartbeat", I, "non-mainline RDS_FLAG_HB_PING/HB_PONG",
	  "h_flags carries a non-mainline heartbeat bit (0x08/0x10) that upstream kernels ignore."),
	R(WIRE_RULE_HDR_EXTFLAG_ON_TCP, "hdr.flags.extension_tcp", I, "RDS_FLAG_EXTHDR_EXTENSION (7.x rds_ib_xmit)",
	  "EXTHDR_EXTENSION (0x20) is set on RDS/TCP; 7.x sets it only on IB messages with an RDMA_BYTES extension."),
	R(WIRE_RULE_HDR_PROBE_PORT_DATA, "hdr.port.probe", W, "RDS_FLAG_PROBE_PORT, rds_add_bound (bind.c)",
	  "Port 1 is used outside a probe ping/pong; no socket can bind it."),
	/* extension headers */
	R(WIRE_RULE_EXT_OVERRUN, "ext.overrun", E, "rds_message_next_extension (message.c)",
	  "An extension's payload runs past byte 16 of h_exthdr; a kernel stops parsing there."),
	R(WIRE_RULE_EXT_UNKNOWN, "ext.unknown", W, "rds_exthdr_size[] (message.c)",
	  "An extension type has no size entry for this receiver; a kernel parses it as zero-length and reads its payload bytes as further types."),
	R(WIRE_RULE_EXT_TYPE_HIGH, "ext.type_high", W, "__RDS_EXTHDR_MAX (rds.h)",
	  "An extension type is 16 or above; a kernel stops parsing there."),
	R(WIRE_RULE_EXT_TRAILING, "ext.trailing", W, "rds_message_populate_header (7.x zeroes h_exthdr)",
	  "h_exthdr has non-zero bytes after the end of the extension list."),
	R(WIRE_RULE_EXT_MULTIPLE, "ext.multiple", I, "rds_message_add_extension (6.x: one extension only)",
	  "More than one extension header: a 7.x sender; a 6.x sender can only ever put one."),
	R(WIRE_RULE_EXT_6X_MISPARSE, "ext.misparse_6x", W, "rds_exthdr_size[] 6.1 vs 7.x",
	  "A 6.x receiver parses these extensions differently from a 7.x one (RDMA_BYTES or SPORT_IDX taken as zero-length)."),
	R(WIRE_RULE_EXT_VERSION_SENT, "ext.version", I, "RDS_EXTHDR_VERSION",
	  "The VERSION extension is defined but no kernel ever sends it."),
	R(WIRE_RULE_EXT_DUPLICATE, "ext.duplicate", W, "rds_recv_hs_exthdrs (recv.c)",
	  "The same extension type appears twice; the kernel keeps the last value."),
	R(WIRE_RULE_EXT_NONMAINLINE, "ext.nonmainline", I, "non-mainline RDS_EXTHDR_CAP_BITS / RDS_EXTHDR_CSUM",
	  "A non-mainline extension type (7 CAP_BITS, 9 CSUM) that upstream kernels parse as zero-length."),
	R(WIRE_RULE_EXT_ON_DATA_IGNORED, "ext.ignored", I, "rds_recv_incoming_exthdrs (recv.c)",
	  "An extension a kernel ignores on this kind of message (data messages honour only RDMA and RDMA_DEST)."),
	/* congestion maps */
	R(WIRE_RULE_CONG_LEN, "cong.len", E, "rds_tcp_cong_recv, rds_ib_cong_recv",
	  "A congestion map whose h_len is not 8192; a kernel silently ignores it."),
	R(WIRE_RULE_CONG_SEQ, "cong.seq", W, "rds_cong_update_alloc (cong.c)",
	  "A congestion map with a non-zero sequence number; maps consume no sequence numbers."),
	R(WIRE_RULE_CONG_PORTS, "cong.ports", W, "rds_cong_update_alloc (cong.c)",
	  "A congestion map with non-zero ports; kernels send 0/0."),
	R(WIRE_RULE_CONG_FLAGS_MIXED, "cong.flags_mixed", E, "rds_tcp_data_recv, rds_ib_process_recv",
	  "CONG_BITMAP is set together with other flags; kernels test h_flags == 0x01 exactly, so this is not taken as a map."),
	R(WIRE_RULE_CONG_EXTHDR, "cong.exthdr", W, "rds_cong_update_alloc (cong.c)",
	  "A congestion map carries extension headers; kernels send none."),
	/* message kinds */
	R(WIRE_RULE_PING_PAYLOAD, "ping.payload", W, "rds-ping, rds_send_pong",
	  "A ping (dport 0) carries payload; the pong will not echo it."),
	R(WIRE_RULE_PING_FROM_PORT0, "ping.sport0", I, "rds_recv_incoming (recv.c)",
	  "A ping from port 0 to port 0; kernels never answer it (loop prevention)."),
	R(WIRE_RULE_PONG_PAYLOAD, "pong.payload", W, "rds_send_pong (send.c)",
	  "A message from port 0 (a pong) carries payload; kernel pongs are empty."),
	R(WIRE_RULE_PROBE_NO_NPATHS, "probe.npaths.missing", W, "rds_send_probe, rds_recv_hs_exthdrs",
	  "A probe ping or pong without NPATHS: the peer falls back to one path."),
	R(WIRE_RULE_PROBE_NPATHS_RANGE, "probe.npaths.range", W, "rds_recv_hs_exthdrs (recv.c)",
	  "NPATHS is 0, above 8 or not a power of two; the kernel clamps to 1..8 and hashes with n-1."),
	R(WIRE_RULE_PROBE_GEN_ZERO, "probe.gen_num.zero", I, "rds_conn_peer_gen_update (recv.c)",
	  "GEN_NUM is 0, which a receiver treats as unknown."),
	R(WIRE_RULE_ACK_ONLY_FIELDS, "ack.fields", W, "rds_ib_send_ack (ib_send.c)",
	  "An IB ack-only frame with a sequence number, flags or extensions; kernels send all zero."),
	R(WIRE_RULE_SEQ_ZERO, "seq.zero", W, "__rds_conn_path_init (connection.c)",
	  "A sequenced message (data, ping, pong, probe) with sequence 0; numbering starts at 1."),
	/* IB */
	R(WIRE_RULE_FRAG_MISMATCH, "ib.frag.mismatch", E, "rds_ib_process_recv (ib_recv.c)",
	  "A later fragment's seq, len, sport or dport differ from the first fragment's; the kernel resets the connection."),
	R(WIRE_RULE_FRAG_SHORT, "ib.frag.short", E, "rds_ib_xmit / rds_ib_process_recv",
	  "A fragment other than the last carries less than 4096 bytes; kernel receivers assume exactly 4096."),
	R(WIRE_RULE_FRAG_LONG, "ib.frag.long", E, "RDS_FRAG_SIZE, rds_ib_recv_refill",
	  "A fragment carries more than 4096 bytes or more than the message has left; a kernel's receive buffer cannot hold it."),
	R(WIRE_RULE_FRAG_FIRST_TOO_SMALL, "ib.frag.runt", E, "rds_ib_process_recv (ib_recv.c)",
	  "An IB receive shorter than the 48-byte header; the kernel resets the connection."),
	R(WIRE_RULE_IBPD_SHORT, "ib.pd.short", W, "rds_ib_protocol_compatible (ib_cm.c)",
	  "CM private data shorter than the RDS struct; the passive side then assumes protocol 4.0."),
	R(WIRE_RULE_IBPD_VERSION, "ib.pd.version", E, "rds_ib_protocol_compatible (ib_cm.c)",
	  "The proposed protocol version is not one a kernel accepts; it rejects with RDS_RDMA_REJ_INCOMPAT."),
	R(WIRE_RULE_IBPD_RESERVED, "ib.pd.reserved", W, "struct rds_ib_conn_priv_cmn",
	  "Reserved or padding bytes of the private data are not zero."),
	R(WIRE_RULE_IBPD_CREDIT, "ib.pd.credit", I, "rds_ib_set_flow_control (ib_recv.c)",
	  "Non-zero initial credits: flow control is offered (kernel-to-kernel it is always 0)."),
	R(WIRE_RULE_IBPD_MASK, "ib.pd.mask", I, "RDS_IB_SUPPORTED_PROTOCOLS",
	  "minor_mask is not 0x0003, the mask every current kernel sends."),
	/* RoCE and CM */
	R(WIRE_RULE_ROCE_ICRC, "roce.icrc", E, "IBTA RoCEv2 annex A17.3.3, rxe_icrc.c",
	  "The invariant CRC does not match; the receiving HCA drops the packet."),
	R(WIRE_RULE_ROCE_TVER, "roce.bth.tver", W, "IBTA 9.2 BTH TVer",
	  "BTH transport header version is not 0."),
	R(WIRE_RULE_ROCE_OPCODE, "roce.bth.opcode", W, "IBTA 9.2 table 38",
	  "BTH opcode is reserved or not one a RoCE device sends."),
	R(WIRE_RULE_ROCE_PAD, "roce.bth.pad", W, "IBTA 9.2 BTH PadCnt",
	  "PadCnt is non-zero on a packet that is not the last of its message, or the pad is larger than the payload."),
	R(WIRE_RULE_ROCE_UDP_LEN, "roce.udp.len", E, "RFC 768, RoCEv2 annex A17",
	  "The UDP length disagrees with the IP length."),
	R(WIRE_RULE_IBCM_PRIVATE_LEN, "ibcm.private.len", W, "rds_ib_cm_fill_conn_param (ib_cm.c)",
	  "CM private data after the rdma_cm header is not 32 (IPv4) or 56 (IPv6) bytes of RDS data."),
	R(WIRE_RULE_IBCM_SERVICE_ID, "ibcm.service_id", I, "rdma_cm RDMA_PS_TCP service IDs",
	  "The service ID is not RDMA_PS_TCP port 18634 or 16385, so this is not RDS."),
	R(WIRE_RULE_IBCM_CMA_VERSION, "ibcm.cma.version", W, "cma.c CMA_VERSION",
	  "The rdma_cm header version is not 0x00 or its IP version nibble is not 4 or 6."),
	/* netlink */
	R(WIRE_RULE_NL_LEN, "nl.len", E, "nlmsg_ok (include/net/netlink.h)",
	  "nlmsg_len is shorter than the header or longer than the datagram."),
	R(WIRE_RULE_NL_ATTR_POLICY, "nl.attr.policy", E, "ib_nl_policy (sa_query.c), nla_parse",
	  "An attribute's length is outside the kernel's policy for its type."),
	R(WIRE_RULE_NL_ATTR_UNKNOWN, "nl.attr.unknown", I, "nla_parse (unknown types skipped)",
	  "An attribute type the local-service layout does not define; skipped."),
	R(WIRE_RULE_NL_ATTR_MANDATORY, "nl.attr.mandatory", E, "RDMA_NLA_F_MANDATORY",
	  "An unknown attribute carries the mandatory bit; a receiver that does not understand it must fail the request."),
	R(WIRE_RULE_NL_ATTR_DUPLICATE, "nl.attr.duplicate", W, "nla_parse (last one wins)",
	  "An attribute other than PATH_RECORD appears more than once; the last value wins."),
	R(WIRE_RULE_NL_CLIENT, "nl.client", W, "RDMA_NL_GET_CLIENT",
	  "nlmsg_type names an RDMA netlink client other than local service (4)."),
	R(WIRE_RULE_NL_OP, "nl.op", W, "RDMA_NL_LS_OP_*",
	  "The local-service operation is not RESOLVE, SET_TIMEOUT or IP_RESOLVE."),
	R(WIRE_RULE_NL_PATH_COUNT, "nl.ls.paths", W, "LS_RESOLVE_PATH_USE_* (rdma_netlink.h)",
	  "More PATH_RECORD attributes than the decoder keeps (8); the rest were counted, not stored."),
	R(WIRE_RULE_NL_MISSING, "nl.ls.missing", W, "ib_nl_is_good_resolve_resp, ib_nl_handle_set_timeout",
	  "An attribute the operation needs is absent (PATH_RECORD in a resolve response, TIMEOUT in SET_TIMEOUT, DGID in an IP_RESOLVE response)."),
	/* native InfiniBand link */
	R(WIRE_RULE_IB_ICRC, "ib.icrc", E, "IBTA 7.8.1",
	  "The invariant CRC of a native InfiniBand packet does not match; the receiving HCA drops the packet."),
	R(WIRE_RULE_IB_VCRC, "ib.vcrc", E, "IBTA 7.8.2",
	  "The variant CRC does not match; the link drops the packet."),
	R(WIRE_RULE_IB_LEN, "ib.lrh.len", E, "IBTA 7.7.8 PktLen, 8.3 PayLen",
	  "LRH PktLen is shorter than the headers, longer than the frame, or disagrees with the GRH's PayLen."),
	R(WIRE_RULE_IB_LVER, "ib.lrh.lver", W, "IBTA 7.7.2 LVer",
	  "LRH link version is not 0."),
};

const struct wire_rule_info *wire_rule_info(enum wire_rule r)
{
	if ((unsigned)r >= WIRE_RULE__COUNT || !rules[r].name)
		return NULL;
	return &rules[r];
}

const char *wire_rule_name(enum wire_rule r)
{
	const struct wire_rule_info *ri = wire_rule_info(r);

	return ri ? ri->name : "?";
}

enum wire_rule wire_rule_by_name(const char *name)
{
	if (!name)
		return WIRE_RULE_NONE;
	for (unsigned i = 1; i < WIRE_RULE__COUNT; i++)
		if (rules[i].name && strcmp(rules[i].name, name) == 0)
			return (enum wire_rule)i;
	return WIRE_RULE_NONE;
}

void wire_rules_clear(struct wire_rules *s)
{
	s->bits[0] = s->bits[1] = 0;
}

void wire_rules_add(struct wire_rules *s, enum wire_rule r)
{
	if ((unsigned)r == 0 || (unsigned)r >= WIRE_RULE__COUNT)
		return;
	s->bits[r / 64] |= UINT64_C(1) << (r % 64);
}

bool wire_rules_has(const struct wire_rules *s, enum wire_rule r)
{
	if ((unsigned)r >= WIRE_RULE__COUNT)
		return false;
	return s->bits[r / 64] >> (r % 64) & 1;
}

bool wire_rules_empty(const struct wire_rules *s)
{
	return !s->bits[0] && !s->bits[1];
}

size_t wire_rules_count(const struct wire_rules *s)
{
	return (size_t)__builtin_popcountll(s->bits[0]) +
	       (size_t)__builtin_popcountll(s->bits[1]);
}

void wire_rules_merge(struct wire_rules *to, const struct wire_rules *from)
{
	to->bits[0] |= from->bits[0];
	to->bits[1] |= from->bits[1];
}

int wire_rules_next(const struct wire_rules *s, unsigned *pos, enum wire_rule *out)
{
	for (unsigned i = *pos; i < WIRE_RULE__COUNT; i++) {
		if (wire_rules_has(s, (enum wire_rule)i)) {
			*out = (enum wire_rule)i;
			*pos = i + 1;
			return 1;
		}
	}
	*pos = WIRE_RULE__COUNT;
	return 0;
}

int wire_rules_worst(const struct wire_rules *s)
{
	int worst = -1;
	unsigned pos = 0;
	enum wire_rule r;

	while (wire_rules_next(s, &pos, &r))
		if ((int)rules[r].sev > worst)
			worst = (int)rules[r].sev;
	return worst;
}
