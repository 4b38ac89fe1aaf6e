// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ibcm.c - IB Communication Manager MADs (REQ, MRA, REJ, REP, RTU, DREQ,
 * DREP) and the rdma_cm header at the front of a REQ's private data.
 * Ref: IBTA vol. 1 ch. 12.6 (tables 106-113), include/rdma/ibta_vol1_c12.h,
 * include/rdma/ib_mad.h (struct ib_mad_hdr), drivers/infiniband/core/cma.c
 * (struct cma_hdr, cma_format_hdr), include/rdma/rdma_cm.h (RDMA_IB_IP_PS_*).
 */
#include <wire/wire.h>

#include <string.h>

#include "rd.h"

#define MAD_HDR_LEN 24
#define MAD_BASE_VERSION 1
#define CMA_HDR_LEN 36
#define REQ_PRIVATE_LEN 92
#define REQ_USER_LEN (REQ_PRIVATE_LEN - CMA_HDR_LEN)
#define CMA_VERSION_0 0x00
#define RDMA_PS_TCP 0x0106u
#define RDMA_PS_UDP 0x0111u
#define RDMA_PS_IB 0x013fu

_Static_assert(MAD_HDR_LEN + 140 + REQ_PRIVATE_LEN == WIRE_MAD_LEN,
	       "REQ private data ends the MAD");

uint64_t wire_ibcm_rds_service_id(uint16_t port)
{
	return (uint64_t)RDMA_PS_TCP << 16 | port;
}

/* The SIDR and path-migration attributes are named though never decoded
 * (IBTA table 108). */
const struct wire_tok wire_ibcm_attr_toks[] = {
	{ WIRE_IBCM_REQ, "REQ" },   { WIRE_IBCM_MRA, "MRA" },
	{ WIRE_IBCM_REJ, "REJ" },   { WIRE_IBCM_REP, "REP" },
	{ WIRE_IBCM_RTU, "RTU" },   { WIRE_IBCM_DREQ, "DREQ" },
	{ WIRE_IBCM_DREP, "DREP" }, { 0x0017, "SIDR_REQ" },
	{ 0x0018, "SIDR_REP" },     { 0x0019, "LAP" },
	{ 0x001a, "APR" },          { 0, NULL },
};

const char *wire_ibcm_attr_name(uint16_t attr_id)
{
	return wire_tok_name(wire_ibcm_attr_toks, attr_id);
}

/*
 * Where each message's fixed fields end and its private data starts, as
 * offsets into the 232-byte MAD data area (after the 24-byte MAD header).
 * Private data always runs to the end of the 256-byte MAD.
 */
static int private_off(uint16_t attr_id)
{
	switch (attr_id) {
	case WIRE_IBCM_REQ:
		return 140;
	case WIRE_IBCM_MRA:
		return 10;
	case WIRE_IBCM_REJ:
		return 84;
	case WIRE_IBCM_REP:
		return 36;
	case WIRE_IBCM_RTU:
		return 8;
	case WIRE_IBCM_DREQ:
		return 12;
	case WIRE_IBCM_DREP:
		return 8;
	default:
		return -1;
	}
}

/*
 * REQ (table 106), the fields RDS captures care about:
 *   0 local comm ID   4 reserved   8 service ID(64)   16 local CA GUID(64)
 *  24 reserved       28 local Q_Key  32 local QPN(24) | responder resources
 *  36 local EECN(24) | initiator depth  40 remote EECN(24) | ...
 *  44 starting PSN(24) | ...       48 .. 139 path records, timeouts
 * 140 private data (92)
 */
static void decode_req(struct wire_ibcm *cm, struct wire_rd *rd)
{
	cm->local_comm_id = wire_rd_be32(rd);
	wire_rd_skip(rd, 4);
	cm->service_id = wire_rd_be64(rd);
	wire_rd_skip(rd, 16);           /* CA GUID, reserved, Q_Key */
	cm->local_qpn = wire_rd_be24(rd);
	wire_rd_skip(rd, 9);            /* resources, EECNs, depth */
	cm->starting_psn = wire_rd_be24(rd);
}

/*
 * REP (table 108):
 *   0 local comm ID   4 remote comm ID   8 local Q_Key   12 local QPN(24)
 *  16 local EECN(24)  20 starting PSN(24) | ...   24 .. 35 flags, GUID
 *  36 private data (196)
 */
static void decode_rep(struct wire_ibcm *cm, struct wire_rd *rd)
{
	cm->local_comm_id = wire_rd_be32(rd);
	cm->remote_comm_id = wire_rd_be32(rd);
	wire_rd_skip(rd, 4);
	cm->local_qpn = wire_rd_be24(rd);
	wire_rd_skip(rd, 5);
	cm->starting_psn = wire_rd_be24(rd);
}

/*
 * REJ (table 107):
 *   0 local comm ID   4 remote comm ID
 *   8 msg rejected(2 bits) resv(6)   9 ARI length(7 bits) resv(1)
 *  10 reason(16)     12 additional rejection info (72)   84 private (148)
 * MRA (table 105) shares the first nine bytes (message MRAed at 8).
 */
static void decode_rej(struct wire_ibcm *cm, struct wire_rd *rd)
{
	cm->local_comm_id = wire_rd_be32(rd);
	cm->remote_comm_id = wire_rd_be32(rd);
	cm->rej_msg = wire_rd_u8(rd) >> 6;
	wire_rd_skip(rd, 1);
	cm->rej_reason = wire_rd_be16(rd);
}

/*
 * rdma_cm's header, first in REQ private data for IP port spaces
 * (struct cma_hdr):
 *
 *  0        1        2                4                   20               36
 *  +--------+--------+----------------+-------------------+----------------+
 *  |version |ipv|rsv |  source port   | source address    | dest address   |
 *  +--------+--------+----------------+-------------------+----------------+
 * An IPv4 address sits in the last 4 of its 16 bytes (union cma_ip_addr).
 */
static void decode_cma(struct wire_ibcm *cm, struct wire_rd *rd)
{
	uint8_t a[16];

	cm->has_cma = true;
	cm->cma_version = wire_rd_u8(rd);
	cm->cma_ip_version = wire_rd_u8(rd) >> 4;
	cm->cma_port = wire_rd_be16(rd);
	wire_rd_copy(rd, a, 16);
	if (cm->cma_ip_version == 4)
		memcpy(cm->cma_src, a + 12, 4);
	else
		memcpy(cm->cma_src, a, 16);
	wire_rd_copy(rd, a, 16);
	if (cm->cma_ip_version == 4)
		memcpy(cm->cma_dst, a + 12, 4);
	else
		memcpy(cm->cma_dst, a, 16);
	if (cm->cma_version != CMA_VERSION_0 ||
	    (cm->cma_ip_version != 4 && cm->cma_ip_version != 6))
		wire_rules_add(&cm->rules, WIRE_RULE_IBCM_CMA_VERSION);
}

static bool is_rds_service(uint64_t sid)
{
	return sid == wire_ibcm_rds_service_id(WIRE_IB_PORT_V4) ||
	       sid == wire_ibcm_rds_service_id(WIRE_IB_PORT_V6);
}

/*
 * The private data after the cma header of an RDS REQ is 56 bytes, of
 * which RDS fills 32 (IPv4) or 56 (IPv6) and rdma_cm zeroes the rest
 * (rds_ib_cm_fill_conn_param sets private_data_len to the struct size).
 * Anything non-zero beyond the struct means a sender with a different idea
 * of the layout. A shorter capture cannot be judged.
 */
static void check_rds_user_data(struct wire_ibcm *cm)
{
	size_t want = cm->cma_ip_version == 6 ? WIRE_IBPD_V6_LEN : WIRE_IBPD_V4_LEN;
	struct wire_rd rd;

	if (cm->user_len != REQ_USER_LEN)
		return;
	wire_rd_init(&rd, cm->user_data, cm->user_len);
	wire_rd_skip(&rd, want);
	while (wire_rd_left(&rd))
		if (wire_rd_u8(&rd) != 0) {
			wire_rules_add(&cm->rules, WIRE_RULE_IBCM_PRIVATE_LEN);
			return;
		}
}

/* Whether the service ID says rdma_cm put its header in front. */
static bool has_cma_hdr(uint64_t sid, struct wire_rd pd)
{
	uint64_t ps = sid >> 16;
	uint8_t v, ipv;

	if (sid >> 32)
		return false;
	if (ps == RDMA_PS_TCP || ps == RDMA_PS_UDP)
		return true;
	if (ps != RDMA_PS_IB)
		return false;
	/* RDMA_PS_IB is shared with AF_IB ids, which send no header: only
	 * take it when it looks like one. */
	v = wire_rd_u8(&pd);
	ipv = wire_rd_u8(&pd) >> 4;
	return wire_rd_ok(&pd) && v == CMA_VERSION_0 && (ipv == 4 || ipv == 6);
}

static void decode_req_private(struct wire_ibcm *cm)
{
	struct wire_rd pd;
	bool rds = is_rds_service(cm->service_id);

	if (!rds)
		wire_rules_add(&cm->rules, WIRE_RULE_IBCM_SERVICE_ID);
	wire_rd_init(&pd, cm->private_data, cm->private_len);
	if (cm->private_len < CMA_HDR_LEN || !has_cma_hdr(cm->service_id, pd))
		return;
	decode_cma(cm, &pd);
	cm->user_data = pd.p;
	cm->user_len = wire_rd_left(&pd);
	if (rds)
		check_rds_user_data(cm);
}

/*
 * MAD common header (IBTA 13.4.3, struct ib_mad_hdr), 24 bytes:
 *
 *  0      1      2      3      4             6             8
 *  +------+------+------+------+-------------+-------------+
 *  | base |class |clsver|method|   status    | class spec. |
 *  +------+------+------+------+-------------+-------------+
 *  8                           16            18            20          24
 *  +---------------------------+-------------+-------------+-----------+
 *  |     transaction ID        |  attr ID    |  reserved   | attr mod  |
 *  +---------------------------+-------------+-------------+-----------+
 * then 232 bytes of CM message.
 */
int wire_ibcm_decode(struct wire_ibcm *cm, const uint8_t *mad, size_t len)
{
	struct wire_rd rd, hdr, msg;
	size_t fixed, pdlen;
	int off;

	if (!cm)
		return WIRE_ERR_INVAL;
	memset(cm, 0, sizeof(*cm));
	wire_rd_init(&rd, mad, len);
	hdr = wire_rd_sub(&rd, MAD_HDR_LEN);
	if (!wire_rd_ok(&hdr))
		return WIRE_ERR_TRUNC;
	cm->base_version = wire_rd_u8(&hdr);
	cm->mgmt_class = wire_rd_u8(&hdr);
	cm->class_version = wire_rd_u8(&hdr);
	cm->method = wire_rd_u8(&hdr);
	cm->status = wire_rd_be16(&hdr);
	wire_rd_skip(&hdr, 2);
	cm->tid = wire_rd_be64(&hdr);
	cm->attr_id = wire_rd_be16(&hdr);
	wire_rd_skip(&hdr, 2);
	cm->attr_mod = wire_rd_be32(&hdr);

	if (cm->mgmt_class != WIRE_IBCM_CLASS)
		return WIRE_ERR_UNSUPP;
	off = private_off(cm->attr_id);
	if (off < 0)
		return WIRE_ERR_UNSUPP;
	fixed = (size_t)off;
	msg = wire_rd_sub(&rd, fixed);
	if (!wire_rd_ok(&msg))
		return WIRE_ERR_TRUNC;

	switch (cm->attr_id) {
	case WIRE_IBCM_REQ:
		decode_req(cm, &msg);
		break;
	case WIRE_IBCM_REP:
		decode_rep(cm, &msg);
		break;
	case WIRE_IBCM_REJ:
	case WIRE_IBCM_MRA:
		decode_rej(cm, &msg);
		if (cm->attr_id == WIRE_IBCM_MRA) {
			/* MRA has no reason; those bytes are its own fields */
			cm->rej_msg = 0;
			cm->rej_reason = 0;
		}
		break;
	case WIRE_IBCM_DREQ:
		cm->local_comm_id = wire_rd_be32(&msg);
		cm->remote_comm_id = wire_rd_be32(&msg);
		cm->remote_qpn = wire_rd_be24(&msg);
		break;
	default:                        /* RTU, DREP */
		cm->local_comm_id = wire_rd_be32(&msg);
		cm->remote_comm_id = wire_rd_be32(&msg);
		break;
	}

	/* A capture may stop inside the private data: keep what is there. */
	pdlen = WIRE_MAD_LEN - MAD_HDR_LEN - fixed;
	if (pdlen > wire_rd_left(&rd))
		pdlen = wire_rd_left(&rd);
	cm->private_data = rd.p;
	cm->private_len = pdlen;

	if (cm->attr_id == WIRE_IBCM_REQ)
		decode_req_private(cm);
	return 0;
}
