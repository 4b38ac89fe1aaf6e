/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * node.h - rds-conform: the crafted RDS/TCP node the cases drive.
 *
 * Not an RDS stack: a case opens TCP connections to the peer's port 16385
 * (or takes the peer's connections on a listener), writes exactly the
 * headers it wants and reads back every message the peer sends, decoded by
 * libwire's deframer into a bounded buffer. Each connection keeps a log of
 * what the peer sent, so a case can judge the whole exchange; pings and
 * probe pings from the peer are answered (switchable), as any node would.
 * Every byte both ways goes into the case's capture when --pcap is given.
 */
#ifndef CONFORM_NODE_H
#define CONFORM_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <wire/wire.h>

#include "conform.h"
#include "pcapw.h"

struct cf_agent;

/* The run's settings (main.c fills them from the options). */
struct cf_cfg {
	struct rdsu_addr peer;
	uint16_t port;              /* the peer's RDS/TCP port, 16385, or with
				     * |ib| its rdma_cm port, 18634 (IPv6 16385) */
	bool ib;                    /* --transport ib: the IB node and cases */
	struct rdsu_addr local;     /* smaller than the peer: the connecting side */
	struct rdsu_addr larger;    /* larger than the peer, if have_larger */
	bool have_larger;
	int timeout_ms;             /* longest wait for one expected event, or
				     * the floor of it when !timeout_given */
	bool timeout_given;         /* --timeout: no scaling to the peer */
	const char *pcap_dir;       /* NULL: no captures */
	bool strict;
};

/* What earlier cases learnt about the peer (a probe exchange fills it). */
struct cf_peer {
	bool probed;                /* the last session's probe ping got a probe pong */
	bool has_npaths, has_gen, has_sport_idx;
	uint16_t npaths;            /* what it advertised (1 without NPATHS) */
	uint16_t paths;             /* agreed: min(ours, its); 1 without a probe pong */
	uint32_t gen;
	unsigned n_exts;            /* extension headers in its probe pong */
	/* The probe answer of the last session, as observed: a peer that
	 * answers wrongly or not at all is judged by the probe cases, and
	 * every other case runs single-path. */
	int pong_ms;                /* the probe pong came after this long; -1 none */
	char instead[200];          /* when none came: what did (for reasons) */
	int waited_ms;              /* how long it was waited for */
	unsigned sessions;          /* sessions opened in this run */
	unsigned unanswered;        /* of them, without a probe pong in the wait */
	unsigned pings_unanswered;  /* ordinary pings of ours that got no pong */
	unsigned pongs;             /* pongs to ordinary pings */
	int first_ms;               /* connect to the peer's first message, last session; -1 */
};

/* The state one case runs with. */
struct cf_run {
	const struct cf_cfg *cfg;
	struct cf_agent *agent;     /* NULL without one */
	struct cf_pcap *pcap;       /* this case's capture, or NULL */
	struct cf_peer peer;
	uint32_t gen;               /* our generation number; a case may change it */
	uint64_t tx_seq;            /* the next sequence number our node sends: one
				     * counter for all our connections, never going
				     * back (gaps are legal, kernel-behaviour.md K4.4), so a new
				     * connection never looks like a retransmission */
	uint16_t next_port;         /* RDS ports our node sends from */
	int wait_ms;                /* longest wait for one expected event: the
				     * timeout, scaled to the peer's answer time
				     * (cf_calibrate) */
	int answer_ms;              /* the peer's answer time, -1 unknown */
	bool own_ping;              /* this case owns the ping requirement, */
	bool own_probe;             /* or the probe's: it waits the whole timeout
				     * for an answer even when the peer has left
				     * earlier ones unanswered (run_case clears
				     * both) */
};

/* What the peer sent on a connection: one entry per message. */
struct cf_seen {
	struct wire_hdr h;
	enum wire_kind kind;
	struct wire_rules rules;    /* wire_msg_check, RDS/TCP, 7.x receiver */
	uint8_t head[16];           /* first payload bytes */
	uint32_t caplen;            /* of head */
};

#define CF_LOG_MAX 4096

enum cf_close {
	CF_OPEN = 0,
	CF_FIN,                     /* the peer closed (read returned 0, or
				     * EPIPE: a reset after its FIN) */
	CF_RST,                     /* reset while open (ECONNRESET) */
};

struct cf_conn {
	struct cf_run *r;
	int fd;
	struct rdsu_addr laddr, faddr;
	uint16_t lport, fport;
	struct cf_pcap_flow flow;
	int dir_out;                /* our side in |flow| */
	struct wire_deframer dfr;
	uint8_t *gather;            /* the deframer's buffer, WIRE_MAX_MSG_LEN */
	uint8_t in[65536];
	size_t in_len, in_off;
	enum cf_close closed;
	int deframe_err;            /* the peer's stream was not RDS (sticky) */
	bool answer;                /* answer pings and probe pings (default) */
	uint16_t npaths;            /* what our probes advertise (default 1) */
	uint64_t rx_bytes;
	struct cf_seen *log;        /* CF_LOG_MAX entries */
	size_t n_log, n_dropped;
	rdsu_ns t_open;             /* when the connection was made */
	rdsu_ns t_first;            /* when the peer's first message came; 0 none */
	struct wire_cong_map map;   /* the last map the peer sent */
	unsigned n_maps;
};

/* A received message; payload valid until the next call on the conn. */
struct cf_msg {
	const struct cf_seen *s;
	const uint8_t *payload;
	uint32_t len;
};

/* cf_connect() - a TCP connection from |from| (port |from_port|, 0 =
 * ephemeral) to the peer's RDS port; |rcvbuf| > 0 sets SO_RCVBUF first
 * (a small one makes the peer's messages wait unacknowledged).
 * Return: 0; negative errno. */
int cf_connect(struct cf_run *r, const struct rdsu_addr *from, uint16_t from_port,
	       int rcvbuf, struct cf_conn **out);
/* cf_connect_path() - as cf_connect from an ephemeral-range source port
 * with port % n == i, as a 7.x kernel's path i (SPORT_IDX). */
int cf_connect_path(struct cf_run *r, const struct rdsu_addr *from, unsigned i, unsigned n,
		    int rcvbuf, struct cf_conn **out);
/* cf_listen() - a listening socket on |addr|:port for the peer to connect
 * to. Return: the fd; negative errno. */
int cf_listen(const struct cf_run *r, const struct rdsu_addr *addr);
/* cf_accept() - wait up to |ms| for the peer's connection on |lfd|.
 * Return: 0 and *out; -ETIMEDOUT; negative errno. */
int cf_accept(struct cf_run *r, int lfd, int ms, struct cf_conn **out);
/* cf_close() - close (with an RST when |rst|) and free; NULL is a no-op. */
void cf_close(struct cf_conn *c, bool rst);

/* cf_send() - |h| exactly as given (not even h_len is fixed up) and |len|
 * payload bytes. Return: 0; negative errno. */
int cf_send(struct cf_conn *c, const struct wire_hdr *h, const void *payload, size_t len);
/* cf_send_raw() - bytes as they are. Return: 0; negative errno. */
int cf_send_raw(struct cf_conn *c, const void *buf, size_t len);
/* cf_send_data() - a data message from |sport| to |dport| with the next
 * sequence number and |len| bytes whose content names |idx| (the agent
 * checks it). Return: 0; negative errno. */
int cf_send_data(struct cf_conn *c, uint16_t sport, uint16_t dport, uint64_t idx, uint32_t len,
		 uint8_t flags);
/* cf_send_map() - a whole congestion map with |congested| ports set. */
int cf_send_map(struct cf_conn *c, const uint16_t *congested, size_t n);
/* cf_send_probe() - a probe ping (|pong| false) or pong with the next
 * sequence number and the extension headers a 7.x kernel sends (NPATHS
 * |npaths|, GEN_NUM r->gen, SPORT_IDX), 6.x style (NPATHS only) when
 * |kv| is WIRE_KVER_6. */
int cf_send_probe(struct cf_conn *c, bool pong, uint16_t npaths, enum wire_kver kv);

/* cf_deadline() - the clock |ms| milliseconds from now. */
rdsu_ns cf_deadline(int ms);
/* cf_ms_left() - the milliseconds from now to |end| for a wait that may
 * not stop short of it (rounded down, plus 1); 0 once |end| has passed. */
int cf_ms_left(rdsu_ns end);

/*
 * cf_recv() - the next message from the peer, waiting up to |ms|. Pings
 * and probe pings are answered first when c->answer. Every message is
 * logged. Return: 1 and *m; 0 on timeout; -EPIPE when the peer closed or
 * reset (c->closed says which); -EPROTO when its stream cannot be framed.
 */
int cf_recv(struct cf_conn *c, struct cf_msg *m, int ms);
/* cf_recv_until() - receive until a message of |kind| (with |dport| if
 * not negative) arrives; not a resent one. Return: as cf_recv, 1 with *m
 * that message. */
int cf_recv_until(struct cf_conn *c, enum wire_kind kind, int dport, struct cf_msg *m, int ms);
/* The |kind| for cf_recv_until() of an answer: any kind but a congestion
 * map update (a faulty answer may not look like what it answers). */
#define CF_KIND_ANSWER WIRE_KIND__COUNT
/* cf_drain() - receive whatever arrives within |ms| (logging it).
 * Return: messages received; -EPIPE / -EPROTO as cf_recv. */
int cf_drain(struct cf_conn *c, int ms);
/*
 * How a wait for the peer to end a connection came out. A verdict rests on
 * exactly one of these, never on "some error": bytes that are not RDS
 * are not a close, and a close is not a reset.
 */
enum cf_end {
	CF_END_FIN = 1,             /* closed by FIN; whatever came before was
				     * whole RDS messages (c->n_log of them) */
	CF_END_RST,                 /* reset while open */
	CF_END_GARBAGE,             /* bytes that are not RDS: the stream could
				     * not be framed (c->deframe_err), or it
				     * ended inside a message */
	CF_END_OPEN,                /* still open when the wait ran out */
};

/* cf_wait_end() - wait up to |ms| for the peer to close or reset,
 * receiving (and logging) what comes first. */
enum cf_end cf_wait_end(struct cf_conn *c, int ms);
/* cf_end_name() - "closed (FIN)", "reset", "sent bytes that are not RDS",
 * "kept it open". */
const char *cf_end_name(enum cf_end e);

/*
 * cf_session() - connect from |from| and do what a kernel does on a new
 * path 0: send an empty map and a probe ping advertising |npaths| (7.x
 * extension headers), then wait for the peer's probe pong (recording its
 * extension headers in r->peer). A probe ping that gets no probe pong is
 * an observation, not a failure: the session goes on single-path, as a
 * kernel's does, with r->peer.probed false and r->peer.instead naming
 * what came (the probe cases judge it). Once a peer has left a probe
 * unanswered, later sessions wait only a few of its answer times for
 * the pong unless r->own_probe. Return: 0; negative errno when no
 * connection could be had (*out NULL, the case's result ERROR with the
 * reason).
 */
int cf_session(struct cf_run *r, struct cf_result *res, const struct rdsu_addr *from,
	       uint16_t npaths, struct cf_conn **out);
/* cf_session_rcvbuf() - cf_session with SO_RCVBUF |rcvbuf| on the socket. */
int cf_session_rcvbuf(struct cf_run *r, struct cf_result *res, const struct rdsu_addr *from,
		      uint16_t npaths, int rcvbuf, struct cf_conn **out);

/*
 * cf_calibrate() - the run's first exchange: a session whose probe pong
 * is waited for up to 5 timeouts (1 with --timeout), timing the peer's
 * map (a round trip) and its answer. Without --timeout every wait of the
 * run becomes max(timeout, 3 x answer + round trip), so a slow peer gets
 * the verdicts a fast one does. It counts as the run's first session.
 * Return: 0; negative errno when no connection could be had (|why| says).
 */
int cf_calibrate(struct cf_run *r, char *why, size_t cap);

/* cf_answer_wait() - how long to wait for an answer the peer has never
 * given in this run when |silent| (it answers none): a few of its answer
 * times, or the whole timeout when |owner| (the case owns the answer) or
 * not |silent|. */
int cf_answer_wait(const struct cf_run *r, bool silent, bool owner);

/* cf_port() - a fresh RDS port for our node's messages. */
uint16_t cf_port(struct cf_run *r);

/* cf_idx_payload() - the content of message |idx| (below 2^48; size
 * |len|), as our node and the agent write and check it: payload.h's
 * numbered contents, which rdsperf --verify and the test drivers use too. */
void cf_idx_payload(uint8_t *buf, uint32_t len, uint64_t idx);
/* cf_idx_check() - the index a payload names, if its content matches.
 * Return: true and *idx; false. */
bool cf_idx_check(const uint8_t *buf, uint32_t len, uint64_t *idx);
/* cf_idx_head() - the index the first 8 bytes of such a message name,
 * unchecked (the rest may not have been kept). */
uint64_t cf_idx_head(const uint8_t head[8]);

/* cf_addr() - an address as text (static buffer per call site; for
 * messages). */
const char *cf_addr(const struct rdsu_addr *a, char buf[64]);

#endif /* CONFORM_NODE_H */
