// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * eng.h - what the engine's files share (engine.c: the flow table and the
 * API; eng_recv.c: the receiver model; eng_tcp.c, eng_roce.c, eng_nl.c:
 * one file per carrier). Not installed, not used outside the engine.
 */
#ifndef RDS_DUMP_ENG_H
#define RDS_DUMP_ENG_H

#include "dump.h"
#include <wire/wire.h>
#include "tcpreasm.h"

#define NBUCKET 4096u
#define MAX_CONNS 65536u
#define RESYNC_WIN_MAX (16u << 20)
#define FRAME_MAX (WIRE_HDR_LEN + WIRE_FRAG_SIZE)
#define RESYNC_WIN_MIN 4096u
/*
 * What one packet can add before the budget is looked at again: a ring
 * grown to its largest while the old one is still held, a resync window
 * grown to its largest, a new flow, a table of accepted messages. Below
 * max_mem by this much, the next packet cannot cross it.
 */
#define PKT_HEADROOM (4u << 20)

enum fr_mode { FR_FRAME, FR_RESYNC };

/* One direction of a TCP flow. */
struct tdir {
	struct dump_tcp_dir tcp;
	size_t tcp_mem;         /* dump_tcp_dir_mem() as counted in the engine's mem */
	bool tcp_ok;
	bool closed;            /* FIN or RST seen, or closed at the end */
	enum fr_mode mode;
	struct wire_deframer df;
	uint64_t df_base;       /* stream offset where the deframer started */
	uint8_t *keep;
	struct wire_resync rs;
	uint8_t *win;
	size_t win_len;         /* allocated at win (grows up to rs.cap) */
	uint64_t rs_base;       /* stream offset of the first byte given to resync */
	uint32_t segs;          /* DATA events that carried the message in progress */
	int dir;                /* relative to the connection */
};

/* Reassembly of one QP's SENDs (one direction of an RC connection). */
struct qstate {
	bool rds;               /* a SEND here was taken as RDS (wire_ib_claims_qp) */
	bool have_psn;
	uint32_t next_psn;
	uint8_t *fbuf;          /* FRAME_MAX: the SEND being assembled */
	size_t flen;
	bool in_send;
	struct wire_reasm ra;
	uint8_t *keep;
	struct wire_rules rules;/* of the packets of the message in progress */
	bool icrc_ok;
	/* RDMA: the WRITE (or READ RESPONSE) in progress, and the PSNs a
	 * READ REQUEST took (one per response packet, at most len / 256) */
	struct dump_rdma_rec op, resp;
	bool in_op, in_resp;
	uint32_t read_slack;
	/* the operations since the last message, for the next message's
	 * RDMA extension header to claim by r_key */
	struct { uint32_t rkey; uint64_t len; uint64_t frame; } pend[8];
	uint32_t npend;
	uint64_t claimed[8];    /* the frames of the ops a message claimed */
};

enum fkind { F_TCP, F_QP };

struct flow {
	enum fkind kind;
	struct dump_ep ep[2];   /* TCP: ep[0] the smaller endpoint; QP: src, dst */
	uint32_t qpn;
	struct flow *hnext;
	struct flow *prev, *next;       /* LRU list, most recent first */
	int conn;
	int path;
	int8_t held;            /* TCP: the connector's ep index while a 7.x
				 * acceptor holds the connection (its path is
				 * not known yet), else -1 */
	bool has_slot;
	bool closed;
	bool noted_syn[2];
	struct tdir d[2];
	struct qstate q;
};

struct conn {
	struct dump_conn pub;
	struct conn *hnext;
	struct wire_cong_map *map[2];
	bool have_map[2];
	bool have_rx[WIRE_MAX_PATHS][2];
	uint64_t next_rx[WIRE_MAX_PATHS][2];
	struct flow *slot[WIRE_MAX_PATHS];
	uint64_t *seen[2];      /* signatures of accepted messages, per direction */
	uint32_t seen_cap[2];   /* entries at seen[d]: SEEN_SLOTS once full size */
	uint32_t seen_used[2];
	unsigned nflows;        /* flows that carry it now */
};

/* Accepted messages remembered per direction to recognise a resend that
 * is accepted a second time; direct-mapped, older entries overwritten.
 * Most connections carry a few messages, so the table starts as a small
 * open-addressed copy of the direct-mapped one (same keys, same answers)
 * and becomes the real thing when it would be as big. */
#define SEEN_SLOTS 4096u
#define SEEN_FIRST 16u

/* REQs waiting for their REP, to know the family of the private data. */
struct cmreq {
	uint32_t comm_id;
	int family;
	uint16_t proposed;
};

enum drop_why { DROP_NONE, DROP_MAX_FLOWS, DROP_MEM };

struct dump_eng {
	struct dump_cfg cfg;
	size_t mem;
	struct dump_eng_drops drops;
	struct flow *fb[NBUCKET];
	struct flow *lru_head, *lru_tail;
	unsigned nflows;
	struct conn *cb[NBUCKET];
	struct conn **conns;
	size_t nconns, conns_cap;
	size_t conn_sweep;      /* where eng_make_room() looks for idle state next */
	struct cmreq reqs[64];
	unsigned nreq;
	struct wire_cong_map cong_tmp;
	/* the packet being processed (after the last one: its time and number
	 * stamp what the end of the capture releases) */
	struct dump_pkthdr ph;
	bool have_ph;
	const uint8_t *buf;
	bool finishing;
	struct dump_ipfrag ipf;
};

/* engine.c */
void eng_mem_add(struct dump_eng *e, size_t n);
void *eng_zalloc(struct dump_eng *e, size_t n);
void eng_zfree(struct dump_eng *e, void *p, size_t n);
int eng_ep_cmp(const struct dump_ep *a, const struct dump_ep *b, bool ports);
uint32_t eng_ep_hash(const struct dump_ep *ep, uint32_t h);
bool eng_is_rds_port(const struct dump_eng *e, uint16_t port);
void eng_emit(struct dump_eng *e, struct dump_rec *r);
void eng_rec_init(struct dump_eng *e, struct dump_rec *r, enum dump_rec_type t,
		  const struct flow *f, int d);
struct conn *eng_conn_of(struct dump_eng *e, int id);
void eng_note(struct dump_eng *e, const struct flow *f, int d, enum dump_note what,
	      uint64_t len, uint64_t aux, uint64_t offset);
void eng_lru_front(struct dump_eng *e, struct flow *f);
struct flow *eng_flow_find(struct dump_eng *e, enum fkind k, const struct dump_ep *a,
			   const struct dump_ep *b, uint32_t qpn);
void eng_tcp_account(struct dump_eng *e, struct tdir *t);
void eng_tdir_free(struct dump_eng *e, struct tdir *t);
void eng_release_slot(struct dump_eng *e, struct flow *f);
void eng_flow_free(struct dump_eng *e, struct flow *f);
void eng_flow_set_conn(struct flow *f, struct conn *c);
void eng_make_room(struct dump_eng *e, const struct flow *keep);
struct flow *eng_flow_new(struct dump_eng *e, enum fkind k, const struct dump_ep *a,
			  const struct dump_ep *b, uint32_t qpn);

/* eng_recv.c */
struct conn *eng_conn_get(struct dump_eng *e, enum dump_xport xp, const struct dump_ep *x,
			  const struct dump_ep *y);
int eng_conn_dir(const struct conn *c, const struct dump_ep *src);
/* eng_tcp.c: the connector advertised its path count; place the
 * connections a 7.x acceptor held until then. */
void eng_tcp_place_held(struct dump_eng *e, struct conn *c);
void eng_count_rules(struct conn *c, const struct wire_rules *rs);
void eng_finish_msg(struct dump_eng *e, struct dump_rec *r, enum wire_xport xp);

/* eng_tcp.c */
void eng_tcp_close_flow(struct dump_eng *e, struct flow *f);
void eng_tcp_packet(struct dump_eng *e, const struct wire_pkt *p);

/* eng_roce.c */
void eng_qp_close_flow(struct dump_eng *e, struct flow *f);
void eng_roce_packet(struct dump_eng *e, const struct wire_pkt *p);
void eng_ib_packet(struct dump_eng *e, const struct wire_pkt *p);

/* eng_nl.c */
int eng_nl_packet(struct dump_eng *e, const struct wire_pkt *p);

#endif
