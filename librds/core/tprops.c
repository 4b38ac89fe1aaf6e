// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * tprops.c - what differs between transports, as data: the core reads
 * these properties where the kernel reads struct rds_transport's fields
 * (t_mp_capable, t_type) or where its tcp and ib code do different things.
 * Ref: net/rds/tcp.c rds_tcp_transport (t_mp_capable, RDS_TCP_PORT),
 * net/rds/ib.c rds_ib_transport, net/rds/ib_send.c (fragments, h_ack,
 * checksum, credits), net/rds/ib_cm.c rds_ib_cm_handle_connect (both sides
 * connect), net/rds/cong.c (no maps on IB loopback), net/rds/loop.c
 * rds_loop_transport (one path, no maps: rds_loop_xmit only announces a
 * map; the receive side gives the sending connection with its addresses
 * the other way round) and net/rds/recv.c rds_recv_rcvbuf_delta (a
 * loopback socket never congests).
 */
#include "core.h"

static const struct rdsu_tprops tprops_tcp = {
	.name = "tcp",
	.id = RDSU_TRANS_TCP,
	.framing = RDSU_FRAMING_STREAM,
	.ack = RDSU_ACK_STREAM_OFF,
	.max_paths = WIRE_MAX_PATHS,
	.frag_size = 0,
	.probe_ext = true,
	.connect = RDSU_CONNECT_SMALLER,
	.csum = false,
	.credits = false,
	.loop_maps = true,
	.rcv_cong = true,
	.port_v4 = WIRE_TCP_PORT,
	.port_v6 = WIRE_TCP_PORT,
};

static const struct rdsu_tprops tprops_ib = {
	.name = "infiniband",
	.id = RDSU_TRANS_IB,
	.framing = RDSU_FRAMING_FRAMES,
	.ack = RDSU_ACK_HDR,
	.max_paths = 1,
	.frag_size = WIRE_FRAG_SIZE,
	.probe_ext = false,
	.connect = RDSU_CONNECT_BOTH,
	.csum = true,
	.credits = true,
	.loop_maps = false,
	.rcv_cong = true,
	.port_v4 = WIRE_IB_PORT_V4,
	.port_v6 = WIRE_IB_PORT_V6,
};

/* A byte stream its transport (librds/io/lo.c) feeds back as its own input
 * and acknowledges at once, as rds_loop_xmit hands the message to
 * rds_recv_incoming and then to rds_send_drop_acked. The connect completes
 * at once (rds_loop_conn_path_connect), so "both connect". */
static const struct rdsu_tprops tprops_loop = {
	.name = "loopback",
	.id = RDSU_TRANS_LOOP,
	.framing = RDSU_FRAMING_STREAM,
	.ack = RDSU_ACK_STREAM_OFF,
	.max_paths = 1,
	.frag_size = 0,
	.probe_ext = false,
	.connect = RDSU_CONNECT_BOTH,
	.csum = false,
	.credits = false,
	.loop_maps = false,
	.local = true,
	.rcv_cong = false,
	.port_v4 = 0,
	.port_v6 = 0,
};

const struct rdsu_tprops *rdsu_tprops_get(unsigned trans)
{
	switch (trans) {
	case RDSU_TRANS_TCP:
		return &tprops_tcp;
	case RDSU_TRANS_IB:
		return &tprops_ib;
	case RDSU_TRANS_LOOP:
		return &tprops_loop;
	default:
		return NULL;
	}
}
