/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * node_ib.h - rds-conform: the crafted RDS-over-IB node the IB cases drive.
 *
 * Not an RDS stack, as node.h's TCP node is not: one RC QP through
 * rdma_cm (RDMA_PS_TCP, the peer's port 18634 or 16385), private data
 * of any bytes the case builds (libwire's encoder, or something no
 * encoder would give), and any frame sent as one RC SEND exactly as the
 * case wrote it: a bad h_csum, fragments whose headers disagree, fewer
 * than 48 bytes. What the peer sends is kept twice: each receive
 * completion as it came (length, header, checksum) and each whole
 * message as libwire's IB reassembly made it. Pings are answered and
 * ACK_REQUIRED is acknowledged with an ACK-only frame (both switchable);
 * the h_ack our frames carry is the node's to set.
 *
 * Built with libibverbs and librdmacm only (CF_HAVE_IB); without them
 * every call fails with -EOPNOTSUPP and the IB cases say so.
 */
#ifndef CONFORM_NODE_IB_H
#define CONFORM_NODE_IB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <wire/wire.h>

#include "node.h"

#define CF_IB_LOG_MAX 2048
#define CF_IB_FRAME (WIRE_HDR_LEN + WIRE_FRAG_SIZE)
#define CF_IB_REJ_CONSUMER 28   /* IB_CM_REJ_CONSUMER_DEFINED */

/* One receive completion from the peer. */
struct cf_ibframe {
	struct wire_hdr h;          /* valid when len >= 48 */
	uint32_t len;               /* the completion's byte_len */
	bool csum_ok;               /* h_csum verifies (0 counts as absent) */
};

/* One whole message from the peer (ACK-only frames are not messages). */
struct cf_ibmsg {
	struct wire_hdr h;          /* its first fragment's header */
	enum wire_kind kind;        /* wire_classify, IB */
	uint32_t frags;
	uint8_t head[16];
	uint32_t caplen;
};

/* How the connection set-up came out. */
enum cf_ibsetup {
	CF_IB_UP = 1,               /* ESTABLISHED */
	CF_IB_REJECTED,             /* REJ: rej_status, rej_data */
	CF_IB_UNREACHABLE,          /* no answer, or an address / route error */
	CF_IB_FAILED,               /* a local verbs or rdma_cm call failed */
};

struct cf_ibv;

struct cf_ibconn {
	struct cf_run *r;
	struct cf_ibv *v;           /* verbs and rdma_cm resources */
	struct rdsu_addr laddr, faddr;
	enum cf_ibsetup setup;
	bool closed;                /* DISCONNECTED, or the QP failed */
	char why[160];              /* what ended it or kept it from coming up */

	/* the CM exchange: the REP's private data (active side) or the
	 * REQ's (passive), and a REJ's reason and consumer data */
	uint8_t pd[64];
	size_t pd_len;
	int rej_status;
	int rej_data;
	size_t rej_len;

	bool answer;                /* answer pings (default true) */
	bool ack;                   /* answer ACK_REQUIRED with an ACK-only frame */
	bool hold_ack;              /* tx_ack stays where the case put it */
	uint64_t rx_ack;            /* the last whole non-map message's sequence */
	uint64_t tx_ack;            /* the h_ack our frames carry */

	struct cf_ibframe *frames;  /* CF_IB_LOG_MAX each */
	size_t n_frames;
	struct cf_ibmsg *msgs;
	size_t n_msgs, n_read;      /* logged / returned by cf_ib_recv */
	unsigned frag_errs;         /* the peer's fragments that did not fit */
	struct wire_rules frag_rules;
	struct wire_reasm ra;
	struct wire_cong_map map;   /* the peer's last map */
	unsigned n_maps;
	unsigned acks_out;          /* ACK-only frames we sent */
};

/* cf_ib_pd() - private data from our address to the peer's proposing
 * |version| (WIRE_IBVER_*: major << 8 | minor), mask 0x0003, no ack_seq,
 * no credit. Return: its length (32 IPv4, 56 IPv6). */
size_t cf_ib_pd(const struct cf_run *r, uint16_t version, uint64_t ack_seq, uint8_t *buf);

/*
 * cf_ib_connect() - an RC connection to the peer's rdma_cm port with |pd|
 * (|len| bytes, any content) as the REQ's private data. A rejection is
 * tried again (while the peer's own reconnect is under way it refuses
 * ours, consumer data 1 as for a version) until |tries| REJs came or the
 * run's wait is over; |tries| 1 takes the first answer. *out is set
 * whenever a connection object exists, up or not, and says how it came
 * out. Return: 0 up; -ECONNREFUSED rejected; -EHOSTUNREACH; -ETIMEDOUT;
 * -EOPNOTSUPP without IB; negative errno.
 */
int cf_ib_connect(struct cf_run *r, const uint8_t *pd, size_t len, unsigned tries,
		  struct cf_ibconn **out);
/* cf_ib_session() - cf_ib_connect with 3.1 private data, the result set
 * to ERROR with the reason when no connection came. */
int cf_ib_session(struct cf_run *r, struct cf_result *res, struct cf_ibconn **out);
/* cf_ib_close() - disconnect and free; NULL is a no-op. */
void cf_ib_close(struct cf_ibconn *c);

/* cf_ib_send() - |len| bytes as one RC SEND, SOLICITED when |se|.
 * Return: 0; -EPIPE once closed; negative errno. */
int cf_ib_send(struct cf_ibconn *c, const void *frame, size_t len, bool se);
/* cf_ib_send_msg() - a message as a kernel sends it: a SEND per 4096
 * payload bytes (one for none), each the header |h| as given (h_ack and
 * h_csum are not touched) and its share of |payload|; the last SOLICITED. */
int cf_ib_send_msg(struct cf_ibconn *c, const struct wire_hdr *h, const void *payload,
		   uint32_t len);
/* cf_ib_fix() - h_ack := tx_ack and the valid h_csum: what a good
 * sender puts in a header before it leaves. */
void cf_ib_fix(struct cf_ibconn *c, struct wire_hdr *h);
/* cf_ib_ping() - a ping from |sport| with the next sequence number;
 * waits up to |ms| for whatever comes to |sport|. Return: 1 and *m;
 * 0 timeout; negative as cf_ib_recv. */
int cf_ib_ping(struct cf_ibconn *c, uint16_t sport, struct cf_ibmsg *m, int ms);
/* cf_ib_ack_only() - an ACK-only frame acknowledging |ack|. */
int cf_ib_ack_only(struct cf_ibconn *c, uint64_t ack);

/*
 * cf_ib_recv() - the next whole message from the peer, waiting up to
 * |ms|. Return: 1 and *m; 0 timeout; -EPIPE closed (c->why).
 */
int cf_ib_recv(struct cf_ibconn *c, struct cf_ibmsg *m, int ms);
/* cf_ib_drain() - receive for |ms|. Return: messages; -EPIPE closed. */
int cf_ib_drain(struct cf_ibconn *c, int ms);
/* cf_ib_wait_end() - up to |ms| for the peer to end the connection.
 * Return: true when it did. */
bool cf_ib_wait_end(struct cf_ibconn *c, int ms);

/*
 * RDMA from the crafted node (the ib/rdma cases). cf_ib_rdma() posts one
 * RDMA WRITE (|write|) or READ of |len| bytes (at most CF_IB_RDMA_MAX)
 * between a buffer of ours (for a write filled cf_region_fill(|seed|))
 * and the peer's memory at |va| under |rkey|, signalled, and waits for
 * its completion. The peer refusing it (a remote access error) ends our
 * QP, as it ends the kernel's. Return: 0 done; -EREMOTEIO refused, with
 * the completion status in c->why; -EPIPE closed before; -ETIMEDOUT.
 */
#define CF_IB_RDMA_MAX 65536
int cf_ib_rdma(struct cf_ibconn *c, bool write, uint32_t rkey, uint64_t va, uint32_t len,
	       uint32_t seed);
/* cf_ib_expose() - CF_IB_RDMA_MAX bytes of ours filled cf_region_fill(|seed|)
 * that the peer may read and write, registered zero-based (the cookie
 * the peer is given is rkey | 0 << 32: offset 0). Return: 0 and *rkey;
 * negative errno. cf_ib_exposed() - those bytes. */
int cf_ib_expose(struct cf_ibconn *c, uint32_t seed, uint32_t *rkey);
const uint8_t *cf_ib_exposed(const struct cf_ibconn *c);

/* cf_ib_rej_text() - "REJ reason 28 (consumer defined), consumer data 1". */
const char *cf_ib_rej_text(const struct cf_ibconn *c, char *buf, size_t cap);

/*
 * Per-case capture over IB: the exchange is RoCEv2 on the netdev that
 * carries our address, so tcpdump there writes it (the node does not
 * synthesise IB packets). One tcpdump runs for the whole run: one
 * started and stopped around each case misses what the first and last
 * moments carry on a slow machine (a guest under emulation lost whole
 * short cases). cf_ib_capture_start() returns its pid (0: none could
 * start, |why| says); cf_ib_capture_stop() ends it, after a second for
 * the last packets; cf_ib_capture_split() then copies the packets of
 * [t0, t1] (CLOCK_REALTIME, seconds) into a case's own file.
 * Return (split): packets copied; -1 with |why|.
 */
int cf_ib_capture_start(const struct cf_run *r, const char *path, char *why, size_t cap);
void cf_ib_capture_stop(int pid);
long cf_ib_capture_split(const char *all, const char *out, double t0, double t1, char *why,
			 size_t cap);

#endif /* CONFORM_NODE_IB_H */
