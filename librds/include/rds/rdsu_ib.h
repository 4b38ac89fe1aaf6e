/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rdsu_ib.h - the InfiniBand/RoCE transport of librds (library rdsu_ib,
 * over librdmacm and libibverbs; docs/librds.md, "The IB transport"),
 * wire-compatible with the kernel's rds_rdma: rdma_cm RDMA_PS_TCP on
 * port 18634 (IPv4) and 16385 (IPv6), one RC QP per connection, the CM
 * private data of net/rds/ib.h, SENDs of a 48-byte header and up to 4096
 * payload bytes into posted receives of 48 + 4096 bytes.
 *
 * It runs inside an rdsu_io (rdsu_io.h) like the TCP transport: ask for
 * it with RDSU_IO_IB in rdsu_io_cfg.transports and point rdsu_io_cfg.ib at
 * a configuration from rdsu_ib_cfg_default(). Its rdma_cm event channel
 * and completion channels sit in the loop's epoll set, so rdsu_io_fd()
 * stays the one descriptor to poll. Only programs that call into this
 * header link libibverbs and librdmacm.
 *
 * Return values: as rdsu_io.h.
 */
#ifndef RDS_RDSU_IB_H
#define RDS_RDSU_IB_H

#include <rds/rdsu.h>
#include <rds/rdsu_io.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Ring bounds: the kernel's defaults (net.rds.ib.max_send_wr 256,
 * max_recv_wr 1024) and how far a configuration may move them. */
#define RDSU_IB_SEND_RING_DEFAULT 256
#define RDSU_IB_RECV_RING_DEFAULT 1024
#define RDSU_IB_RING_MIN 16
#define RDSU_IB_RING_MAX 16384
#define RDSU_IB_RETRY_DEFAULT 6
#define RDSU_IB_RETRY_MAX 6
/* Busy-polling (rdsu_ib_cfg.busy_poll_us): the default, as the value
 * net.core.busy_poll's documentation suggests, and the largest allowed. */
#define RDSU_IB_BUSY_POLL_DEFAULT 50
#define RDSU_IB_BUSY_POLL_MAX 100000

struct rdsu_ib_cfg;
struct rdsu_transport;
/* How rdsu_io_new() creates the transport (set by rdsu_ib_cfg_default). */
typedef int rdsu_ib_make_fn(struct rdsu_io *io, const struct rdsu_ib_cfg *cfg,
			    struct rdsu_transport **out);

struct rdsu_ib_cfg {
	size_t size;            /* sizeof(struct rdsu_ib_cfg) */
	/* Send slots of 48 + 4096 bytes per connection at most (the ring
	 * starts with 32, or this if fewer, and doubles up to this each time
	 * it filled and drained): SENDs posted and not yet completed,
	 * ACK-only frames included
	 * (RDSU_IB_RING_MIN..RDSU_IB_RING_MAX; the QP is sized one more, as
	 * the kernel's). Capped by the device's max_qp_wr - 1. */
	unsigned send_ring;
	/* Receives of 48 + 4096 bytes posted per connection at most (same
	 * bounds and cap): the ring starts with 64 (or this, if fewer) and
	 * doubles up to this as traffic needs, in registered chunks of 64,
	 * so an idle connection holds about 265 KB of receive buffers. */
	unsigned recv_ring;
	bool no_listen;         /* connect only */
	/* Listen and connect on these rdma_cm ports instead of 18634
	 * (IPv4) and 16385 (IPv6): tests with several endpoints per
	 * address. 0 = the kernel's. */
	uint16_t port_v4, port_v6;
	/* Set by rdsu_ib_cfg_default(); the loop creates the transport
	 * through it, so that rdsu_io itself never links verbs. */
	rdsu_ib_make_fn *make;
	/* Offer credits: the receives posted at set-up go into the CM
	 * private data's dp_credit and every receive reposted later into
	 * h_credit, so a peer that honours them never sends into an empty
	 * ring (RNR). The kernel never offers (net.rds.ib.flow_control is
	 * 0); it honours a peer's offer. Default off, as the kernel. */
	bool offer_credits;
	/* RC transport retries of a SEND the peer does not acknowledge
	 * (0..6, as rdma_conn_param.retry_count; the active side's value
	 * holds for both QPs). 7 is not allowed: Soft-RoCE (rdma_rxe) never
	 * counts a 7 down, so a dead peer or a cut link would never end the
	 * QP. Default 6; the kernel's rds_ib_retry_count is 1, which an
	 * emulated link's losses exhaust now and then. */
	uint8_t retry_count;
	/*
	 * Busy-poll the completion queues for up to this many microseconds
	 * before the loop sleeps (0..RDSU_IB_BUSY_POLL_MAX; 0: never), as
	 * SO_BUSY_POLL does for a socket: a reply that lands within it is
	 * taken without a completion-channel wakeup. Bounded so an idle
	 * endpoint does not burn a core: the loop spins only after traffic
	 * (a completion since the last spin), and a spin that finds nothing
	 * stops spinning until the next completion wakes it.
	 * rdsu_ib_cfg_default() sets RDSU_IB_BUSY_POLL_DEFAULT, or the
	 * value of the environment variable RDSU_IB_BUSY_POLL (microseconds;
	 * 0 turns it off) when that is set and in range.
	 */
	unsigned busy_poll_us;
};

/* rdsu_ib_cfg_default() - the kernel's ring sizes and ports. */
RDSU_API void rdsu_ib_cfg_default(struct rdsu_ib_cfg *cfg);

/*
 * rdsu_ib_laddr_check() - is local address |a| on an InfiniBand or RoCE
 * device (Soft-RoCE included; not iWARP), so that the kernel's bind would
 * give a socket on it IB? What sets a bit of rdsu_ep_cfg.rdma_laddrs.
 * Return: 1 it is; 0 it is not (or is no local address); -ENODEV no
 * rdma_cm here at all (no RDMA device, or rdma_ucm not loaded); another
 * negative errno from rdma_cm; RDSU_ERR_INVAL for NULL.
 */
RDSU_API int rdsu_ib_laddr_check(const struct rdsu_addr *a);

struct rdsu_ib_stats {
	uint64_t connects;        /* rdma_connect() calls */
	uint64_t established;     /* connections up, either side */
	uint64_t rejected_by_peer;/* REJECTED events (consumer data 1 or other) */
	uint64_t rejected;        /* requests we refused (version, core) */
	uint64_t downs;           /* connections reported down */
	uint64_t frames_in, frames_out;  /* receive / send completions of frames */
	uint64_t bytes_in, bytes_out;    /* their bytes, headers included */
	uint64_t acks_out;        /* ACK-only frames sent */
	uint64_t acks_in;         /* ACK-only frames received */
	uint64_t send_full;       /* output stopped with every send slot in flight */
	uint16_t version;         /* the last connection's protocol (0x0301 = 3.1) */
	/* QPs given the kernel's minimum RNR timer (0.32 ms); one short of
	 * established means the device refused it for one */
	uint64_t rnr_timer_set;
	/* Snapshots over the links now up: SENDs posted and not yet
	 * completed, receives posted and not yet completed. */
	uint32_t send_inflight, recv_posted;
	uint64_t attempts;        /* active connects started (address resolutions) */
	/* What ended the last connection or attempt that ended: an rdma_cm
	 * event (enum rdma_cm_event_type) and its status, or -1 and a work
	 * completion's status (enum ibv_wc_status), or -2 and the negative
	 * errno of a verbs or rdma_cm call that failed. */
	int32_t last_down_event, last_down_status;
	/* RDMA (ib_rdma.c): regions registered now; RDMA and atomics
	 * posted, and completed (reported to the core) */
	uint64_t mrs;
	uint64_t ops_posted, ops_done;
	/* Busy-polling: spins started, and those that found a completion
	 * (the rest ended at busy_poll_us and the loop slept). */
	uint64_t spins, spin_hits;
	/* The receive rings (ib_recv.c): bytes of receive buffers
	 * registered now over every link, and the times a ring grew. */
	uint64_t recv_ring_bytes;
	uint64_t recv_grown;
	/* ... and the send rings likewise */
	uint64_t send_ring_bytes;
	uint64_t send_grown;
	/* Devices given back: on rdma_cm's DEVICE_REMOVAL, and on seeing
	 * one go before that event could come (docs/librds.md, "A device
	 * that goes"). */
	uint64_t dev_removed, dev_vanished;
};

/*
 * rdsu_ib_get_stats() - the IB transport's counters.
 * Return: 0; RDSU_ERR_NOTFOUND when |io| runs without IB; RDSU_ERR_INVAL
 * for a NULL argument.
 */
RDSU_API int rdsu_ib_get_stats(struct rdsu_io *io, struct rdsu_ib_stats *st);

/*
 * rdsu_ib_fault_qp() - move the QP of every connection that is up into
 * the error state, as a failing HCA does: what is posted on it ends
 * flushed, the connection goes down and the core reconnects. For tests
 * (tests/lab/ib_soak.py, fault "qperr").
 * Return: the connections broken (0 or more); RDSU_ERR_NOTFOUND when
 * |io| runs without IB; RDSU_ERR_INVAL for a NULL |io|.
 */
RDSU_API int rdsu_ib_fault_qp(struct rdsu_io *io);

#ifdef __cplusplus
}
#endif

#endif /* RDS_RDSU_IB_H */
