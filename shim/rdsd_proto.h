/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rdsd_proto.h - what librds-preload.so and rdsd say to each other
 * (docs/architecture.md, "Sharing one RDS presence: rdsd").
 *
 * Every AF_RDS socket of a shimmed program is one SOCK_SEQPACKET
 * connection to the rdsd of its network namespace, at the abstract
 * address "\0rdsd" (RDSD_NAME overrides the name). The application's
 * descriptor is that connection:
 *   program -> rdsd: requests (struct rdsd_req, then the payload);
 *   rdsd -> program: only received messages (struct rdsd_rx, then the
 *                    message), so the descriptor is readable exactly when
 *                    a message waits, whoever holds it.
 * Replies travel on a channel of the calling process (a socketpair whose
 * other end it handed over with RDSD_OP_CHAN and SCM_RIGHTS), so that
 * several processes holding one socket (fork, SCM_RIGHTS) each get
 * their own replies.
 */
#ifndef RDSTK_SHIM_RDSD_PROTO_H
#define RDSTK_SHIM_RDSD_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define RDSD_DEFAULT_NAME "rdsd"
#define RDSD_MAX_MSG (1u << 20)         /* RDS_MAX_MSG_SIZE */
#define RDSD_LEVEL_IOCTL 0x10000        /* SIOCRDS{SET,GET}TOS, as options */

enum rdsd_op {
	RDSD_OP_CHAN = 1,    /* SCM_RIGHTS: the reply channel |chan| */
	RDSD_OP_BIND,        /* addr, port */
	RDSD_OP_CONNECT,     /* addr, port (family 0: AF_UNSPEC) */
	RDSD_OP_SEND,        /* payload; addr/port if family, else connected;
			      * arg: RDSD_SEND_*, timeout_ms (-1 none); the
			      * reply's pad is the sender's credit */
	RDSD_OP_SETOPT,      /* level, name, payload = value */
	RDSD_OP_GETOPT,      /* level, name, arg = buffer length */
	RDSD_OP_NAME,        /* arg 0: getsockname, 1: getpeername */
	RDSD_OP_CANCEL,      /* a waiting send of |chan| stops with EINTR */
	RDSD_OP_RING,        /* a send ring for |chan|'s process (rdsd_ring.h):
			      * answered with SCM_RIGHTS, the ring's memfd
			      * then its eventfd; the reply's pad is the
			      * ring's data size */
};
#define RDSD_OP_LAST RDSD_OP_RING

/*
 * A send's reply carries a credit: SNDBUF room left, less what waits in
 * rdsd. Sends to the destination of the last one answered with success,
 * within that credit, cannot meet a full SNDBUF or an error of their own,
 * so the shim does not wait for their replies (RDSD_SEND_NOREPLY) and a
 * stream runs at rdsd's pace, not at a round trip per message. rdsd sends
 * them in order; one that meets a port congested since (the race a
 * kernel's sender has with a map in flight) waits in rdsd for the port.
 */
#define RDSD_SEND_BLOCK 0x1
#define RDSD_SEND_NOREPLY 0x2

struct rdsd_req {
	uint32_t op;
	uint32_t seq;            /* echoed in the reply */
	uint32_t chan;           /* reply channel */
	int32_t level, name;
	int32_t arg;
	int32_t timeout_ms;
	uint16_t family;         /* AF_INET, AF_INET6, 0 */
	uint16_t port;
	uint8_t addr[16];        /* IPv4 as ::ffff:a.b.c.d */
};

struct rdsd_rep {
	uint32_t seq;
	int32_t ret;             /* >= 0 or -errno */
	uint32_t len;            /* payload bytes that follow */
	uint32_t pad;            /* GETOPT: the option's length; SEND: credit */
};

enum rdsd_rx_kind {
	RDSD_RX_MSG = 0,
	RDSD_RX_CONG = 1,        /* RDS_CMSG_CONG_UPDATE, mask in cong */
};

struct rdsd_rx {
	uint8_t kind;
	uint8_t pad;
	uint16_t family;
	uint16_t port;
	uint16_t pad2;
	uint8_t addr[16];
	uint64_t cong;
	/* RDSD_RX_MSG: when the message reached rdsd, on CLOCK_MONOTONIC
	 * in ns (rdsu_sock_rx_times: the first and last header byte, 0 for
	 * a local delivery, and its queueing), for SO_TIMESTAMP and
	 * SO_RDS_MSG_RXPATH_LATENCY, which the client keeps */
	uint64_t hdr, start, queued;
};

/* One message from a client, decoded (rdsd_proto.c). Truncated: shorter
 * than a request, nothing to answer; malformed: an unknown op, family or
 * address form, or a payload the op does not take (answered -EINVAL). */
enum rdsd_decode {
	RDSD_DECODE_OK = 0,
	RDSD_DECODE_TRUNCATED,
	RDSD_DECODE_MALFORMED,
};

/* |len| bytes at |buf| into *q; the payload is the rest (*payload, *plen:
 * within |buf|). Reads nothing else and keeps no state. */
enum rdsd_decode rdsd_req_decode(const uint8_t *buf, size_t len, struct rdsd_req *q,
				 const uint8_t **payload, size_t *plen);

#endif
