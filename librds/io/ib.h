/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * ib.h - the IB transport's insides (library rdsu_ib), split by role as
 * net/rds splits ib*.c:
 *
 *   ib.c       the transport object, its ops table, links and their
 *              verbs resources (PD, CQs, completion channel, QP, MRs)
 *   ib_cm.c    rdma_cm: the event channel, listeners, connect, accept,
 *              private data and version negotiation (ib_cm.c,
 *              rdma_transport.c)
 *   ib_recv.c  the receive ring and its completions (ib_recv.c)
 *   ib_send.c  the send ring and its completions (ib_send.c)
 *   ib_core.c  the hand-off to the core: the only file that calls the
 *              core's frame link API (rdsu.h, "Frame transports")
 *   ib_rdma.c  the core's RDMA seam: regions, RDMA and atomics posted
 *              ahead of their message's SEND (ib_rdma.c, ib_send.c)
 *
 * Everything runs on the loop's thread, non-blocking: the event channel's
 * and each link's completion channel's descriptors are sources in the
 * loop's epoll set.
 */
#ifndef RDSU_IO_IB_H
#define RDSU_IO_IB_H

#include "loop.h"

#include <rds/rdsu_ib.h>
#include <wire/wire.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define IB_FRAME (WIRE_HDR_LEN + WIRE_FRAG_SIZE)  /* a receive, a send slot */
#define IB_RESOLVE_MS 5000      /* RDS_RDMA_RESOLVE_TIMEOUT_MS */
#define IB_REJ_INCOMPAT 1       /* RDS_RDMA_REJ_INCOMPAT, consumer reject data */
#define IB_UNSIGNALLED_MAX 16   /* max_unsignaled_wr */
#define IB_REJ_CONSUMER 28      /* IB_CM_REJ_CONSUMER_DEFINED */
#define IB_RNR_TIMER 10         /* IB_RNR_TIMER_000_32: 0.32 ms */
/* RDMA: operations in flight per link (extra send queue entries), local
 * entries per operation, devices with a shared PD; the send-CQ wr_id tag
 * of an operation (slot counters never reach it). */
#define IB_OPS_MAX 64
#define IB_OP_SGE 16
#define IB_MAX_DEVS 8
#define IB_OP_TAG (1ull << 63)
/* Send work requests chained into one ibv_post_send (one doorbell), and
 * the inline data a QP is asked for (small frames and ACK-only ones go
 * in the WQE itself: no DMA read of the slot). */
#define IB_POST_BATCH 32
/* The receive ring grows in registered chunks of this many receives:
 * one at set-up, doubling under load up to recv_ring (ib_recv.c). */
#define IB_RECV_CHUNK 64
/* The send ring's slots at set-up; it doubles, up to send_ring, each
 * time it filled and then drained empty (ib_send.c). */
#define IB_SEND_INITIAL 32
#define IB_RECV_CHUNKS ((RDSU_IB_RING_MAX + IB_RECV_CHUNK - 1) / IB_RECV_CHUNK)
#define IB_INLINE_WANT 256
/* Frames of the largest message, and an ACK-only frame among them. */
#define IB_MSG_FRAMES (WIRE_MAX_MSG_LEN / WIRE_FRAG_SIZE + 1)

enum ib_state {
	IL_ADDR = 1,   /* resolving the address */
	IL_ROUTE,      /* resolving the route */
	IL_CONNECTING, /* REQ sent / REP sent, waiting for ESTABLISHED */
	IL_UP,
	IL_DEAD,       /* retired: freed at the end of the round */
};

/* An RDMA or atomic posted on a link: its local memory registered. */
struct ib_op {
	uint64_t id;            /* the core's; 0: free */
	unsigned n_mr;
	struct ibv_mr *mr[IB_OP_SGE];
};

/* A region registered for the core (rdsu_sock_get_mr). */
struct ib_mr {
	struct ib_mr *next;
	struct ibv_mr *mr;
	struct ibv_pd *pd;
};

struct ib_link {
	struct rdsu_ib *t;
	struct ib_link *next;
	uint64_t id;            /* the core's link id; 0 while not the core's */
	enum ib_state state;
	bool active;            /* we sent the REQ */
	bool core_knows;        /* the core holds the id: report it down */
	int family;             /* 4 or 6: which private data */
	struct rdsu_addr laddr, faddr;
	uint16_t proposed, version;

	struct rdma_cm_id *cm;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cc;
	struct rdsu_src ccsrc;
	struct ibv_cq *scq, *rcq;
	struct ibv_mr *smr;
	uint8_t *sbuf;
	unsigned nrecv, nsend;  /* the rings' bounds (the QP's and CQs' sizes) */
	unsigned scur;          /* send slots now (<= nsend), in sbuf */
	bool sgrow;             /* the send ring filled: grow it once empty */
	bool sarmed;            /* the send CQ is armed: its next completion wakes us */
	unsigned rcur;          /* receives in the ring now (<= nrecv), in chunks */
	unsigned rtaken;        /* receive completions of the current poll */
	uint8_t *rchunk[IB_RECV_CHUNKS];
	struct ibv_mr *rmr[IB_RECV_CHUNKS];
	unsigned rposted;       /* receives posted and not completed */
	uint64_t s_head, s_tail;/* send slots posted / completed, as counters */
	unsigned unsignalled;   /* SENDs since the last signalled one */
	bool rsolicited;        /* the receive CQ wakes on solicited completions only */
	bool rbig;              /* a message of several frames came: grow past one */

	uint32_t orem;          /* ib_core.c: payload bytes of the message being sent
				 * still to come after the last frame posted */
	unsigned max_sge;       /* local entries an RDMA op may have */
	bool fence_next;        /* the next SEND carries IBV_SEND_FENCE */
	unsigned max_inline;    /* the QP's max_inline_data */
	unsigned npend;         /* SENDs queued in wr[] for the next doorbell */
	struct ibv_send_wr wr[IB_POST_BATCH];
	struct ibv_sge sge[IB_POST_BATCH];
	struct ib_op ops[IB_OPS_MAX];
};

struct rdsu_ib {
	struct rdsu_transport tr;
	struct rdsu_ib_cfg cfg;
	struct rdsu_ep *ep;
	struct rdma_event_channel *ch;
	struct rdsu_src chsrc;
	struct rdma_cm_id *listen[2 * RDSU_MAX_LADDRS];
	unsigned n_listen;
	/* Addresses whose listener went with its device (DEVICE_REMOVAL):
	 * listened on again, once a second, until a device has them. */
	struct rdsu_addr relisten[2 * RDSU_MAX_LADDRS];
	unsigned n_relisten;
	rdsu_ns relisten_at;
	bool dev_gone;          /* a DEVICE_REMOVAL since librdmacm last synced */
	rdsu_ns devcheck_at;    /* the next look for a device that went (ib_cm.c) */
	struct ib_link *links;
	struct ib_link *dead;   /* retired this round */
	struct rdsu_ib_stats st;
	struct {
		struct ibv_device *dev;
		struct ibv_pd *pd;  /* on a context of our own (rdsu_ib_pd_get) */
		unsigned refs;      /* links and regions on it */
	} pds[IB_MAX_DEVS];
	unsigned n_pds;
	struct ib_mr *mrs;
	uint64_t ncomp;         /* receive and RDMA op completions polled, ever
				 * (busy-poll's progress; a SEND's frees a slot only) */
	bool spin;              /* busy-poll before the next sleep: there was
				 * traffic since the last spin that found none */
};

/* ib.c */
rdsu_ib_make_fn rdsu_ib_make;
struct ib_link *rdsu_ib_link_new(struct rdsu_ib *t, struct rdma_cm_id *cm, bool active);
/* Create PD, CQs, completion channel, QP and rings on the link's device,
 * and post the receives. Return: 0; a negative errno. */
int rdsu_ib_link_setup(struct ib_link *l);
/* The link failed or ended: tell the core (if it knows it) and retire it. */
void rdsu_ib_link_lost(struct ib_link *l, rdsu_ns now);
/* rdsu_ib_link_lost() for a reason kept in rdsu_ib_stats: an rdma_cm
 * event and its status; IB_WHY_WC and a completion's status;
 * IB_WHY_CALL and a call's negative errno. */
#define IB_WHY_WC (-1)
#define IB_WHY_CALL (-2)
static inline void rdsu_ib_lost_why(struct ib_link *l, int event, int status, rdsu_ns now)
{
	l->t->st.last_down_event = event;
	l->t->st.last_down_status = status;
	rdsu_ib_link_lost(l, now);
}
/* Retire without telling the core (it asked for the close). */
void rdsu_ib_link_retire(struct ib_link *l);
/* A completion that failed or that the ring cannot have asked for: the
 * link is lost. Return: false, for the poll to stop. */
static inline bool rdsu_ib_wc_lost(struct ib_link *l, int status, rdsu_ns now)
{
	rdsu_ib_lost_why(l, IB_WHY_WC, status, now);
	return false;
}
/* Poll |cq| empty, handing each completion to |one|, which returns false
 * to stop (the link was lost or retired). A failed poll loses the link.
 * Return: false if the link was lost or |one| stopped. */
static inline bool rdsu_ib_cq_drain(struct ib_link *l, struct ibv_cq *cq,
				    bool (*one)(struct ib_link *l, const struct ibv_wc *wc,
						rdsu_ns now),
				    rdsu_ns now)
{
	struct ibv_wc wc[16];
	int n;

	while ((n = ibv_poll_cq(cq, 16, wc)) > 0) {
		if (cq == l->rcq)
			l->t->ncomp += (unsigned)n;
		for (int i = 0; i < n; i++)
			if (!one(l, &wc[i], now))
				return false;
	}
	if (n < 0) {
		rdsu_ib_link_lost(l, now);
		return false;
	}
	return true;
}

/* ib_cm.c */
int rdsu_ib_cm_open(struct rdsu_ib *t);
int rdsu_ib_cm_listen(struct rdsu_ib *t, const struct rdsu_addr *a);
void rdsu_ib_cm_connect(struct rdsu_ib *t, const struct rdsu_lreq *req, rdsu_ns now);
void rdsu_ib_cm_events(struct rdsu_ib *t, rdsu_ns now);
void rdsu_ib_cm_close(struct rdsu_ib *t);
/* Once a second while we hold anything on a device: has one begun to
 * go without a DEVICE_REMOVAL (ib_cm.c)? Everything of ours on it is
 * given back as on that event; *wait_ms is cut to the next look.
 * Return: true if a device went (the round is to end). */
bool rdsu_ib_cm_devcheck(struct rdsu_ib *t, rdsu_ns now, int *wait_ms);
/* Listen again where a listener went with its device, at most once a
 * second; *wait_ms is cut to the next try. */
void rdsu_ib_cm_relisten(struct rdsu_ib *t, rdsu_ns now, int *wait_ms);

/* ib_recv.c */
int rdsu_ib_recv_post(struct ib_link *l, unsigned idx);
/* Post the ring's first chunk (set-up; the core is told in ib_cm.c). */
int rdsu_ib_recv_fill(struct ib_link *l);
/* Grow the ring to |to| receives (a whole number of chunks, or nrecv),
 * posting the new ones. Return: the receives added; -errno. */
int rdsu_ib_recv_grow(struct ib_link *l, unsigned to);
/* Free the ring's chunks (the QP is gone). */
void rdsu_ib_recv_free(struct ib_link *l);
/* Poll the receive CQ empty. Return: false if the link was lost or retired. */
bool rdsu_ib_recv_poll(struct ib_link *l, rdsu_ns now);

/* ib_send.c */
/* The next free send slot (IB_FRAME bytes), or NULL when the ring is full. */
uint8_t *rdsu_ib_send_slot(struct ib_link *l);
/* Queue the slot rdsu_ib_send_slot() gave, |len| bytes, for the next
 * rdsu_ib_send_flush() (which a full batch calls itself); |last|: a
 * message's last frame or an ACK-only one (signalled and solicited).
 * Return: 0; -errno. */
int rdsu_ib_send_post(struct ib_link *l, size_t len, bool last);
/* Post the SENDs rdsu_ib_send_post() queued, chained, with one
 * doorbell. Return: 0; -errno (the link is to be lost). */
int rdsu_ib_send_flush(struct ib_link *l);
/* Give the send ring |n| slots (at most nsend) in a new registered
 * region; only while no slot is in flight. Return: 0; -errno (the old
 * ring stays). */
int rdsu_ib_send_resize(struct ib_link *l, unsigned n);
/* Poll the send CQ empty, freeing slots (and growing a ring that filled
 * once it is empty). Return: false if the link was lost. */
bool rdsu_ib_send_poll(struct ib_link *l, rdsu_ns now);
/* Arm the send CQ, unless it is armed: its next completion raises a
 * completion-channel event. Return: 0; -errno. */
int rdsu_ib_send_arm(struct ib_link *l);

/* ib_rdma.c */
/* The PD of |ctx|'s device (an id's verbs), on a verbs context this
 * process opened itself (pd->context), held; NULL on failure. */
struct ibv_pd *rdsu_ib_pd_get(struct rdsu_ib *t, struct ibv_context *ctx);
void rdsu_ib_pd_put(struct rdsu_ib *t, struct ibv_pd *pd);
int rdsu_ib_rdma_open(struct rdsu_ib *t);
void rdsu_ib_rdma_close(struct rdsu_ib *t);
/* The device of |ctx| is being removed: deregister the regions on it
 * (their cookies stop working, as the kernel's on rds_ib_remove_one) so
 * that nothing of ours keeps it. */
void rdsu_ib_rdma_device_gone(struct rdsu_ib *t, struct ibv_context *ctx);
/* A send completion tagged IB_OP_TAG. Return: false if the link was lost. */
bool rdsu_ib_rdma_wc(struct ib_link *l, const struct ibv_wc *wc, rdsu_ns now);
/* The link is being lost: report the ops whose completions already
 * wait in its send CQ (a remote access error before the disconnect it
 * causes), so they do not end as dropped. */
void rdsu_ib_rdma_flush(struct ib_link *l, rdsu_ns now);
/* An RDMA or atomic is in flight on the link (its completion is awaited). */
bool rdsu_ib_rdma_busy(const struct ib_link *l);
/* Deregister what the link's ops held; its QP is gone. */
void rdsu_ib_rdma_link_free(struct ib_link *l);

/* ib_core.c */
/* Op |id| on |l| completed with |status| (enum rdsu_rdma_status). */
void rdsu_ib_core_op_done(struct ib_link *l, uint64_t id, int status, rdsu_ns now);
/* An incoming request for |l| (addresses set) whose private data was
 * |pd|: ask the core. Return: 0, the core took it; -1 refuse it. */
int rdsu_ib_core_accept(struct ib_link *l, const struct wire_ibpd *pd, rdsu_ns now);
/* Our private data's ack_seq and credit for |l|, to send now. */
void rdsu_ib_core_offer(struct ib_link *l, struct wire_ibpd *pd);
/* |n| receives were (re)posted on |l|. */
void rdsu_ib_core_posted(struct ib_link *l, uint32_t n, rdsu_ns now);
/* ESTABLISHED; |rep| the REP's private data on the active side (NULL
 * when it did not decode). Return: false if the core refused the link
 * (it was retired). */
bool rdsu_ib_core_up(struct ib_link *l, const struct wire_ibpd *rep, rdsu_ns now);
/* One received frame. Return: 0; -1 when the link was lost or retired. */
int rdsu_ib_core_frame(struct ib_link *l, const uint8_t *p, size_t len, rdsu_ns now);
/* Copy the core's frames for |l| into send slots and post them. */
void rdsu_ib_core_output(struct ib_link *l, rdsu_ns now);
void rdsu_ib_core_down(struct ib_link *l, rdsu_ns now);

#endif /* RDSU_IO_IB_H */
