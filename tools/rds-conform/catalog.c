// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * catalog.c - rds-conform: the case catalogue, in run order. The man
 * page's catalogue, --list and every report come from this table.
 *
 * IDs: rds31/<topic>/<n> for requirements of the RDS 3.1 wire spec (which
 * has no numbered sections; the topic names the spec's heading), linux/...
 * for kernel behaviour the spec does not state, ib/<topic>/<n> for RDS over
 * InfiniBand as net/rds/ib*.c does it (the spec frames RDS/TCP only; these
 * run with --transport ib, and only they do). IDs never change meaning; a
 * retired case keeps its number unused.
 */
#include "cases.h"

#define SPEC "RDS 3.1 wire spec, "
#define IB CF_NEED_IB
#define RDMA (CF_NEED_IB | CF_NEED_AGENT)

const struct cf_case cf_cases[] = {
	/* ---- the header ---- */
	{ "rds31/header/1", CF_MUST, "messages are framed as 48-byte header and h_len payload",
	  "A message is an RDS header followed by h_len payload bytes, back to back; h_len never "
	  "exceeds 1 MiB (RDS_MAX_MSG_SIZE).",
	  SPEC "RDS 3.1 header (errata: 48 bytes, not 40); rds_tcp_data_recv", 0,
	  case_header_framing },
	{ "rds31/header/2", CF_MUST, "h_csum is the header checksum",
	  "h_csum holds the 1's complement checksum of the header.",
	  SPEC "RDS 3.1 header; rds_message_verify_checksum", 0, case_header_csum },
	{ "rds31/header/3", CF_SHOULD, "padding is zero and flags are defined ones",
	  "h_padding is zero and h_flags uses only the defined bits.",
	  SPEC "RDS 3.1 header, Flags; rds.h RDS_FLAG_*", 0, case_header_reserved },
	{ "rds31/ack/1", CF_SHOULD, "h_ack carries the latest received sequence number",
	  "The receiving node should place the latest received sequence number in h_ack.",
	  SPEC "Sequence numbers and acknowledgements", 0, case_ack_piggyback },
	{ "linux/tcp/1", CF_MUST, "no RDS-level acknowledgement on TCP",
	  "On RDS/TCP h_ack and h_credit are 0 and ACK_REQUIRED is never set: TCP acknowledges.",
	  "kernel-behaviour.md K4.3; rds_tcp_xmit", 0, case_tcp_no_acks },

	/* ---- sequence numbers ---- */
	{ "rds31/seq/1", CF_MUST, "sequence numbers start at 1",
	  "Messages other than congestion maps are numbered starting at 1.",
	  SPEC "Sequence numbers and acknowledgements; __rds_conn_path_init", 0, case_seq_start },
	{ "rds31/seq/2", CF_MUST, "sequence numbers rise by one per message, pings included",
	  "Each message (data, ping, pong, probe) takes the next number: the previous + 1.",
	  SPEC "Sequence numbers and acknowledgements; rds_send_probe", 0, case_seq_step },
	{ "rds31/seq/3", CF_SHOULD, "numbering restarts with a new connection",
	  "When a transport-layer connection is established, numbering starts at 1.",
	  SPEC "Sequence numbers and acknowledgements; kernel-behaviour.md K4.4", 0,
	  case_seq_reconnect },
	{ "rds31/seq/4", CF_MUST, "congestion maps carry sequence 0",
	  "Congestion map updates take no sequence number (h_sequence 0).",
	  SPEC "Sequence numbers and acknowledgements; rds_cong_update_alloc", 0, case_map_seq },

	/* ---- ping and pong ---- */
	{ "rds31/ping/1", CF_MUST, "a ping is answered from port 0 to the pinging port",
	  "A message to port 0 gets a reply to the sending port, from port 0.",
	  SPEC "Ping/Pong; rds_send_pong", 0, case_ping_pong },
	{ "rds31/ping/2", CF_MUST, "a pong carries no payload",
	  "The response to a ping contains no data payload.", SPEC "Ping/Pong", 0, case_pong_empty },
	{ "linux/ping/1", CF_MUST, "a ping from port 0 is not answered",
	  "A ping whose source port is 0 gets no reply: a pong is itself such a message, and "
	  "answering it would loop.", "rds_recv_incoming (recv.c)", 0, case_ping_port0 },

	/* ---- probe, multipath, generation ---- */
	{ "linux/probe/3", CF_MUST, "a probe ping is answered by a probe pong",
	  "A probe ping (port 1 to port 0) gets a pong from port 0 to port 1 on the same path, "
	  "at once; not a pong to another port, nor a probe ping in its place.",
	  "rds_recv_incoming, rds_send_probe; kernel-behaviour.md K5", 0, case_probe_answer },
	{ "rds31/mprds/1", CF_SHOULD, "the probe pong carries NPATHS",
	  "The pong to a probe ping should contain the receiver's number of paths.",
	  SPEC "Multipath RDS (MPRDS)", 0, case_probe_npaths_spec },
	{ "linux/probe/1", CF_MUST, "probe pongs carry NPATHS",
	  "Every kernel puts NPATHS in its probes; a probe pong without it leaves the prober at "
	  "one path.", "rds_send_probe, rds_recv_hs_exthdrs", 0, case_probe_npaths_linux },
	{ "rds31/mprds/2", CF_MUST, "NPATHS is a power of two from 1 to 8",
	  "The path count advertised is one a kernel can hash with (1, 2, 4 or 8).",
	  SPEC "Multipath RDS; RDS_MPATH_WORKERS", 0, case_probe_npaths_range },
	{ "rds31/gen/1", CF_SHOULD, "the probe pong carries GEN_NUM",
	  "Sender and receiver of the probe add their generation number (GEN_NUM).",
	  SPEC "RDS Generation Number", 0, case_probe_gen },
	{ "linux/probe/2", CF_INFO_ONLY, "SPORT_IDX offered or not",
	  "Reports whether the probe pong carries SPORT_IDX (7.x) or not (6.x).",
	  "rds_send_probe (7.x); kernel-behaviour.md K4.9", 0, case_probe_sport_idx },
	{ "rds31/exthdr/1", CF_SHOULD, "at most one extension header per message",
	  "The specification limits the extension headers of a message to one or none.",
	  SPEC "Extension Headers", 0, case_ext_count },
	{ "rds31/exthdr/2", CF_MUST, "an unknown extension type is tolerated",
	  "A message with an extension type the receiver does not know is processed; the type "
	  "is skipped.", SPEC "Extension Headers; rds_message_next_extension", 0,
	  case_ext_unknown },

	/* ---- connections ---- */
	{ "linux/cong/1", CF_MUST, "a congestion map on every new connection",
	  "A path that comes up carries the sender's whole map: h_len 8192, h_flags exactly 0x01, "
	  "seq 0, ports 0.", "rds_connect_path_complete; " KB ": Maps", 0, case_map_on_connect },
	{ "linux/tcp/2", CF_MUST, "a connection from the larger address is refused",
	  "Only connections from the smaller address carry RDS; one from the larger address is "
	  "closed (reset) without being served.", "rds_tcp_accept_one; kernel-behaviour.md K4.7",
	  CF_NEED_LARGER, case_larger_reset },
	{ "linux/tcp/3", CF_SHOULD, "the refused larger address is connected to (the kick)",
	  "After refusing a connection from the larger address, the smaller side connects path 0 "
	  "itself.", "rds_tcp_accept_one; kernel-behaviour.md K4.7", CF_NEED_LARGER,
	  case_larger_kick },
	{ "linux/mprds/1", CF_MUST, "extra paths up to the agreed count are accepted",
	  "With N paths agreed, connections for paths 1..N-1 are accepted and carry messages.",
	  "rds_tcp_accept_one_path; kernel-behaviour.md K4.9", 0, case_paths_accept },
	{ "linux/mprds/2", CF_MUST, "a connection beyond the agreed count is not served",
	  "With every agreed path up, a further connection is reset (6.x) or held unserved (7.x).",
	  "rds_tcp_accept_one_path; kernel-behaviour.md K4.9", 0, case_paths_beyond },
	{ "rds31/reconnect/1", CF_MUST, "the peer reconnects after the transport breaks",
	  "If the transport connection is broken, the node that connects reconnects.",
	  SPEC "Connection re-establishment; rds_queue_reconnect", CF_NEED_LARGER,
	  case_reconnect_smaller },
	{ "rds31/reconnect/2", CF_SHOULD, "both nodes attempt to reconnect",
	  "If the transport connection is broken, both nodes attempt to reconnect.",
	  SPEC "Connection re-establishment", 0, case_reconnect_larger },
	{ "linux/retrans/1", CF_MUST, "unacknowledged messages are resent, flagged, after a reconnect",
	  "Messages TCP had not acknowledged when the connection broke are sent again, first, "
	  "with their sequence numbers and RETRANSMITTED (0x04).",
	  "rds_send_path_reset; kernel-behaviour.md K4.5", CF_NEED_AGENT, case_retrans_flag },
	{ "rds31/dup/1", CF_MUST, "retransmitted duplicates are dropped",
	  "A message flagged RETRANSMITTED whose sequence number was already received is not "
	  "delivered again.", "rds_recv_incoming; kernel-behaviour.md K4.6", CF_NEED_AGENT,
	  case_dup_dropped },
	{ "rds31/gen/2", CF_MUST, "a changed generation number resets sequence state",
	  "A probe with a new GEN_NUM makes the receiver forget the sequence numbers of the old "
	  "incarnation.", SPEC "RDS Generation Number; rds_conn_peer_gen_update", CF_NEED_AGENT,
	  case_gen_reset },

	/* ---- delivery and congestion ---- */
	{ "rds31/delivery/1", CF_MUST, "messages to the peer arrive once, in order, intact",
	  "Every message sent to a bound port is delivered exactly once, in order, with its "
	  "source address and port.", SPEC "introduction (reliable, ordered delivery)",
	  CF_NEED_AGENT, case_deliver_in },
	{ "rds31/delivery/2", CF_MUST, "messages from the peer arrive once, in order, numbered",
	  "A socket's messages leave in order, each numbered one above the last.",
	  SPEC "introduction; Sequence numbers", CF_NEED_AGENT, case_deliver_out },
	{ "rds31/cong/1", CF_MUST, "a congested port is announced in a map",
	  "When a port's receive queue passes its receive buffer, a map with the port's bit set "
	  "goes to the nodes it is connected to.", SPEC "Congestion control", CF_NEED_AGENT,
	  case_cong_set },
	{ "rds31/cong/2", CF_SHOULD, "congestion starts when the queue reaches the buffer",
	  "A port is congested when its queued bytes are greater than or equal to SO_RCVBUF.",
	  SPEC "Congestion control", CF_NEED_AGENT, case_cong_threshold },
	{ "rds31/cong/3", CF_MUST, "messages to a congested port are accepted",
	  "Messages received for a port while it is congested must still be accepted.",
	  SPEC "Congestion control", CF_NEED_AGENT, case_cong_accept },
	{ "rds31/cong/4", CF_MUST, "a drained port is announced uncongested",
	  "When a port is no longer congested, a map with its bit clear is sent.",
	  SPEC "Congestion control", CF_NEED_AGENT, case_cong_clear },

	/* ---- hostile input (last: a faulty peer may not survive them) ---- */
	{ "linux/hostile/1", CF_MUST, "a huge h_len does not take the peer down",
	  "A header whose h_len is 4 GiB may cost that connection, not the peer or its other "
	  "connections.", "kernel-behaviour.md K4.2 (no receive-side h_len check)", CF_NEED_HOSTILE,
	  case_hostile_hlen },
	{ "linux/hostile/2", CF_MUST, "a congestion map of the wrong length is ignored",
	  "A map with h_len 4096 is skipped whole; the stream stays framed.",
	  "rds_tcp_cong_recv", CF_NEED_HOSTILE, case_hostile_map_len },
	{ "linux/hostile/3", CF_MUST, "a message truncated by the close is discarded",
	  "A connection that ends inside a message costs only that message.",
	  "rds_tcp_data_recv", CF_NEED_HOSTILE, case_hostile_truncated },
	{ "linux/hostile/4", CF_MUST, "garbage does not take the peer down",
	  "Random bytes on a connection cost at most that connection.", "rds_tcp_data_recv",
	  CF_NEED_HOSTILE, case_hostile_garbage },

	/* ---- RDS over IB (--transport ib) ---- */
	{ "ib/cm/1", CF_MUST, "a 3.1 proposal is answered with 3.1",
	  "A REQ whose private data proposes 3.1 is accepted with REP private data naming 3.1, "
	  "from the peer's address to ours.",
	  "rds_ib_protocol_compatible, rds_ib_cm_fill_conn_param; "
	  "kernel-behaviour.md K6.2, K6.3", IB,
	  case_ib_pd_31 },
	{ "ib/cm/2", CF_MUST, "a 4.x proposal is answered with the highest common minor",
	  "Major 4 with minor mask 0x3 is answered 4.1, with mask 0x1 4.0.",
	  "rds_ib_protocol_compatible; kernel-behaviour.md K6.3", IB, case_ib_pd_4x },
	{ "ib/cm/3", CF_MUST, "an incompatible version is rejected with consumer data 1",
	  "A REQ proposing 3.0 or 5.0 gets a REJ, reason consumer defined, consumer data 1 "
	  "(RDS_RDMA_REJ_INCOMPAT).", "rds_ib_cm_handle_connect; kernel-behaviour.md K6.3", IB,
	  case_ib_pd_reject },
	{ "ib/cm/4", CF_INFO_ONLY, "what a proposal of major 0 is answered with",
	  "Reports the answer to private data whose major version is 0.",
	  "rds_ib_protocol_compatible; kernel-behaviour.md K6.3", IB, case_ib_pd_major0 },
	{ "ib/cong/1", CF_MUST, "a congestion map when the IB connection comes up",
	  "The peer sends its whole map: h_len 8192, h_flags exactly 0x01, seq 0, as two "
	  "fragments of 4096 bytes that carry the same header.",
	  "rds_connect_path_complete, rds_ib_xmit; kernel-behaviour.md K6.5", IB,
	  case_ib_cong_map },
	{ "ib/ping/1", CF_MUST, "a ping over IB is answered, without extension headers",
	  "A ping gets a pong from port 0 to the pinging port with no payload; on IB no probe "
	  "extension header rides on it.", "rds_send_pong; kernel-behaviour.md K6.9", IB,
	  case_ib_ping },
	{ "ib/seq/1", CF_MUST, "messages over IB are numbered one after another",
	  "Each message the peer sends takes the next sequence number.",
	  SPEC "Sequence numbers and acknowledgements", IB, case_ib_seq },
	{ "ib/ack/1", CF_MUST, "h_ack acknowledges the last message received",
	  "Every header the peer sends carries in h_ack the sequence number of the last whole "
	  "message it received: the pong to our ping acknowledges the ping.",
	  "rds_ib_piggyb_ack, rds_ib_set_ack; kernel-behaviour.md K6.7", IB, case_ib_hack },
	{ "ib/ack/2", CF_MUST, "ACK_REQUIRED is answered",
	  "A message flagged ACK_REQUIRED is acknowledged at once, by an ACK-only frame when "
	  "nothing else is sent.", "rds_ib_attempt_ack, rds_ib_send_ack; kernel-behaviour.md K6.7",
	  IB, case_ib_ack_required },
	{ "ib/ack/3", CF_MUST, "an ACK-only frame is recognised, even between fragments",
	  "A header-only frame with ports 0 and no payload is an acknowledgement, never a "
	  "message or a fragment: a message it interrupts still completes.",
	  "rds_ib_process_recv; kernel-behaviour.md K6.7, K6.8", IB, case_ib_ack_only },
	{ "ib/ack/4", CF_MUST, "h_ack and the private data's ack_seq are honoured",
	  "Messages our h_ack acknowledged are freed, not resent after a reconnect; the others "
	  "are resent first, flagged RETRANSMITTED; an ack_seq in our REQ's private data frees "
	  "as h_ack does.", "rds_ib_process_recv, rds_send_drop_acked, rds_ib_cm_handle_connect; "
	  "kernel-behaviour.md K6.7, K6.9", IB, case_ib_hack_honoured },
	{ "ib/csum/1", CF_MUST, "the peer's frames carry a valid h_csum",
	  "Every frame over IB carries the header checksum.",
	  "rds_ib_xmit, rds_message_make_checksum; protocol/header.md, Checksum", IB,
	  case_ib_csum_peer },
	{ "ib/cong/2", CF_MUST, "a congested port is announced in a map over IB",
	  "When a port's receive queue passes its receive buffer, a map with its bit set goes "
	  "to us over the IB connection.", SPEC "Congestion control; rds_cong_queue_updates",
	  IB | CF_NEED_AGENT, case_ib_cong_set },
	/* each of these ends the peer's connection */
	{ "ib/csum/2", CF_MUST, "a frame with a wrong h_csum ends the connection",
	  "A frame whose non-zero h_csum does not verify is not processed: the connection is "
	  "dropped.", "rds_ib_process_recv; kernel-behaviour.md K6.8", IB, case_ib_csum_bad },
	{ "ib/frag/1", CF_MUST, "fragments whose headers disagree end the connection",
	  "A later fragment whose seq, len, sport or dport differ from the first fragment's is a "
	  "fragment header mismatch: the connection is dropped.",
	  "rds_ib_process_recv; kernel-behaviour.md K6.8", IB, case_ib_frag_mismatch },
	{ "ib/frag/2", CF_MUST, "a completion shorter than a header ends the connection",
	  "A receive completion of fewer than 48 bytes is a connection error.",
	  "rds_ib_process_recv; kernel-behaviour.md K6.8", IB, case_ib_frag_runt },

	/* ---- RDMA (--transport ib, with the agent); refused ones end the QP ---- */
	{ "ib/rdma/1", CF_MUST, "a region mapped with a message is named in RDMA_DEST",
	  "A message sent with RDS_CMSG_RDMA_MAP carries RDMA_DEST {r_key, offset}: the cookie "
	  "the application got (r_key | offset << 32), the offset being the region's place in "
	  "its page.", "rdma.c __rds_rdma_map, send.c rds_sendmsg "
	  "(rds_message_add_rdma_dest_extension); " KB ", RDMA operations", RDMA,
	  case_rdma_dest },
	{ "ib/rdma/2", CF_MUST, "an RDMA into a region lands at the cookie's offset",
	  "Regions are zero-based: byte k is at k plus the cookie's offset under its r_key; a "
	  "WRITE there changes those bytes and no others.",
	  "rdma.c rds_cmsg_rdma_args, ib_frmr.c rds_ib_map_frmr; " KB ", RDMA operations", RDMA,
	  case_rdma_write },
	{ "ib/rdma/3", CF_MUST, "an RDMA under a wrong r_key is refused",
	  "An RDMA under an r_key the peer never gave is refused by its HCA (remote access "
	  "error) and writes nothing.", "ib_send.c rds_ib_send_cqe_handler; " KB
	  ", RDMA operations", RDMA, case_rdma_rkey },
	{ "ib/rdma/4", CF_MUST, "an RDMA past the region is refused",
	  "An RDMA past the registered bytes is refused: past the region's end and past its "
	  "last page.", "rdma.c __rds_rdma_map (the registered length); " KB
	  ", RDMA operations", RDMA, case_rdma_range },
	{ "ib/rdma/5", CF_MUST, "a freed region takes no RDMA",
	  "After RDS_FREE_MR (0), the region's cookie no longer reaches memory, whether freed "
	  "plainly or with RDS_RDMA_INVALIDATE.", "rdma.c rds_free_mr, ib_rdma.c rds_ib_free_mr; "
	  KB ", RDMA operations", RDMA, case_rdma_freed },
	{ "ib/rdma/6", CF_MUST, "a use-once region takes one RDMA",
	  "A region mapped USE_ONCE is released by the message of its first RDMA "
	  "(RDS_FREE_MR then says EINVAL) and takes no second one.",
	  "recv.c rds_recv_incoming_exthdrs, rdma.c rds_rdma_unuse; " KB ", RDMA operations",
	  RDMA, case_rdma_once },
	{ "ib/rdma/7", CF_MUST, "exactly one notification per NOTIFY_ME op, with its token",
	  "An RDMA WRITE or READ with NOTIFY_ME is notified once (RDS_CMSG_RDMA_STATUS, the "
	  "user token, SUCCESS); one without it is not notified; the op's message carries RDMA "
	  "{r_key}.", "send.c rds_rdma_send_complete, ib_send.c rds_ib_send_unmap_rdma; " KB
	  ", RDMA operations", RDMA, case_rdma_notify },
	{ "ib/rdma/8", CF_MUST, "a refused NOTIFY_ME op is notified once, as failed",
	  "An RDMA the other side refuses is notified once with its token and REMOTE_ERROR, or "
	  "DROPPED when the connection's teardown reaches it before its completion does.",
	  "ib_send.c rds_ib_send_complete, send.c rds_send_remove_from_sock; " KB
	  ", RDMA operations", RDMA, case_rdma_notify_fail },
};

const size_t cf_n_cases = sizeof(cf_cases) / sizeof(cf_cases[0]);
