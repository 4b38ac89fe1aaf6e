// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * node_ib.c - rds-conform: the crafted RDS-over-IB node (node_ib.h).
 *
 * One RC QP per connection through rdma_cm, as net/rds/ib_cm.c sets one
 * up (RDMA_PS_TCP, RNR retry 7), one CQ per direction polled by the
 * node's own waits, receives of 48 + 4096 bytes posted before the REQ or
 * the accept. Nothing here decides RDS: the cases say what goes out, and
 * what comes in is logged and reassembled by libwire.
 */
#define _GNU_SOURCE
#include "node_ib.h"


#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pcap/pcap.h>
#include <rds/rdsu_io.h>

#include "cases.h"

size_t cf_ib_pd(const struct cf_run *r, uint16_t version, uint64_t ack_seq, uint8_t *buf)
{
	struct wire_ibpd pd;
	int fam = rdsu_addr_is_v4(&r->cfg->peer) ? 4 : 6;
	ssize_t n;

	memset(&pd, 0, sizeof(pd));
	pd.family = fam;
	memcpy(pd.saddr, fam == 4 ? r->cfg->local.a + 12 : r->cfg->local.a, fam == 4 ? 4 : 16);
	memcpy(pd.daddr, fam == 4 ? r->cfg->peer.a + 12 : r->cfg->peer.a, fam == 4 ? 4 : 16);
	pd.major = (uint8_t)(version >> 8);
	pd.minor = (uint8_t)version;
	pd.minor_mask = WIRE_IB_SUPPORTED_MINORS;
	pd.ack_seq = ack_seq;
	n = wire_ibpd_encode(&pd, buf, WIRE_IBPD_V6_LEN);
	return n > 0 ? (size_t)n : 0;
}

void cf_ib_fix(struct cf_ibconn *c, struct wire_hdr *h)
{
	h->ack = c->tx_ack;
	wire_hdr_csum_set(h);
}

const char *cf_ib_rej_text(const struct cf_ibconn *c, char *buf, size_t cap)
{
	if (c->rej_len >= sizeof(int))
		snprintf(buf, cap, "REJ reason %d%s, consumer data %d", c->rej_status,
			 c->rej_status == CF_IB_REJ_CONSUMER ? " (consumer defined)" : "",
			 c->rej_data);
	else
		snprintf(buf, cap, "REJ reason %d%s, no consumer data", c->rej_status,
			 c->rej_status == CF_IB_REJ_CONSUMER ? " (consumer defined)" : "");
	return buf;
}

/* ------------------------------------------------------------------------
 * Capture: tcpdump on our address's netdev.
 */

static bool ifname_of(const struct rdsu_addr *a, char name[IF_NAMESIZE])
{
	struct ifaddrs *ifs, *i;
	bool found = false;

	if (getifaddrs(&ifs) < 0)
		return false;
	for (i = ifs; i && !found; i = i->ifa_next) {
		struct sockaddr_storage ss;
		struct rdsu_addr x;
		uint16_t port;

		if (!i->ifa_addr || (i->ifa_addr->sa_family != AF_INET &&
				     i->ifa_addr->sa_family != AF_INET6))
			continue;
		memset(&ss, 0, sizeof(ss));
		memcpy(&ss, i->ifa_addr, i->ifa_addr->sa_family == AF_INET ?
		       sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
		if (rdsu_sockaddr_get(&ss, &x, &port) == 0 && rdsu_addr_cmp(&x, a) == 0) {
			snprintf(name, IF_NAMESIZE, "%s", i->ifa_name);
			found = true;
		}
	}
	freeifaddrs(ifs);
	return found;
}

/* tcpdump's standard error, read up to "listening on" */
static int cap_err = -1;

int cf_ib_capture_start(const struct cf_run *r, const char *path, char *why, size_t cap)
{
	char ifn[IF_NAMESIZE], line[256];
	/* -Z root: the file is written by the user who asked for it (a
	 * tcpdump that drops to its own user wrote nothing into a guest's
	 * 9p share) */
	char *argv[] = { "tcpdump", "-i", ifn, "-s", "0", "-U", "--immediate-mode", "-Z", "root",
			 "-w", (char *)path, "udp", "port", "4791", NULL };
	posix_spawn_file_actions_t fa;
	int p[2], pid, rc;
	size_t got = 0;

	if (!ifname_of(&r->cfg->local, ifn)) {
		snprintf(why, cap, "no interface has our address");
		return 0;
	}
	if (pipe2(p, O_CLOEXEC) < 0) {
		snprintf(why, cap, "pipe: %s", strerror(errno));
		return 0;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], 2);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	rc = posix_spawnp(&pid, "tcpdump", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (rc) {
		close(p[0]);
		snprintf(why, cap, "tcpdump: %s", strerror(rc));
		return 0;
	}
	/* It says "listening on" once its filter is in place: only then
	 * does the case's exchange begin. */
	for (;;) {
		struct pollfd pf = { .fd = p[0], .events = POLLIN };
		ssize_t n;

		if (poll(&pf, 1, 10000) <= 0)
			break;
		n = read(p[0], line + got, sizeof(line) - 1 - got);
		if (n <= 0)
			break;
		got += (size_t)n;
		line[got] = '\0';
		if (strstr(line, "listening on")) {
			/* kept open: what it says at its end must not kill it
			 * (SIGPIPE) before the file is closed */
			cap_err = p[0];
			return pid;
		}
		if (got == sizeof(line) - 1)
			got = 0;
	}
	close(p[0]);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	snprintf(why, cap, "tcpdump did not start: %.100s", got ? line : "no output");
	return 0;
}

void cf_ib_capture_stop(int pid)
{
	if (pid <= 0)
		return;
	/* Time for the last packets to be read: SIGINT ends its loop with
	 * whatever is still queued unread. */
	sleep(1);
	kill(pid, SIGINT);
	waitpid(pid, NULL, 0);
	if (cap_err >= 0)
		close(cap_err);
	cap_err = -1;
}

long cf_ib_capture_split(const char *all, const char *out, double t0, double t1, char *why,
			 size_t cap)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *in = pcap_open_offline(all, err);
	pcap_dumper_t *d;
	struct pcap_pkthdr *ph;
	const u_char *data;
	long n = 0;

	if (!in) {
		snprintf(why, cap, "%s", err);
		return -1;
	}
	d = pcap_dump_open(in, out);
	if (!d) {
		snprintf(why, cap, "%s", pcap_geterr(in));
		pcap_close(in);
		return -1;
	}
	while (pcap_next_ex(in, &ph, &data) == 1) {
		double t = (double)ph->ts.tv_sec + (double)ph->ts.tv_usec / 1e6;

		if (t >= t0 && t <= t1) {
			pcap_dump((u_char *)d, ph, data);
			n++;
		}
	}
	pcap_dump_close(d);
	pcap_close(in);
	return n;
}

#ifdef CF_HAVE_IB

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define NRECV 256
#define NSEND 64
#define RESOLVE_MS 5000          /* RDS_RDMA_RESOLVE_TIMEOUT_MS */
/* Rings in whole pages: aligned_alloc wants a multiple of the alignment,
 * and registration pins whole pages anyway. */
#define PAGES(n) (((n) + 4095) & ~(size_t)4095)

struct cf_ibv {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *scq, *rcq;
	struct ibv_mr *rmr, *smr;
	uint8_t *rbuf, *sbuf;
	unsigned s_next, s_busy;    /* next slot; slots posted, not completed */
	uint8_t *gather;
	/* RDMA: our source / sink, and the memory the peer is given */
	uint8_t *lbuf, *xbuf;
	struct ibv_mr *lmr, *xmr;
	bool rdma_done;
	enum ibv_wc_status rdma_status;
};

#define RDMA_WR_ID UINT64_MAX

static struct cf_ibconn *conn_new(struct cf_run *r)
{
	struct cf_ibconn *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->r = r;
	c->laddr = r->cfg->local;
	c->faddr = r->cfg->peer;
	c->answer = true;
	c->ack = true;
	c->v = calloc(1, sizeof(*c->v));
	c->frames = calloc(CF_IB_LOG_MAX, sizeof(*c->frames));
	c->msgs = calloc(CF_IB_LOG_MAX, sizeof(*c->msgs));
	if (c->v)
		c->v->gather = malloc(WIRE_MAX_MSG_LEN);
	if (!c->v || !c->frames || !c->msgs || !c->v->gather ||
	    wire_reasm_init_prefix(&c->ra, 0, c->v->gather, WIRE_MAX_MSG_LEN) < 0) {
		if (c->v)
			free(c->v->gather);
		free(c->v);
		free(c->frames);
		free(c->msgs);
		free(c);
		return NULL;
	}
	return c;
}

void cf_ib_close(struct cf_ibconn *c)
{
	struct cf_ibv *v;

	if (!c)
		return;
	v = c->v;
	if (v->id && v->id->qp) {
		(void)rdma_disconnect(v->id);
		rdma_destroy_qp(v->id);
	}
	if (v->lmr)
		ibv_dereg_mr(v->lmr);
	if (v->xmr)
		ibv_dereg_mr(v->xmr);
	if (v->rmr)
		ibv_dereg_mr(v->rmr);
	if (v->smr)
		ibv_dereg_mr(v->smr);
	if (v->scq)
		ibv_destroy_cq(v->scq);
	if (v->rcq)
		ibv_destroy_cq(v->rcq);
	if (v->pd)
		ibv_dealloc_pd(v->pd);
	if (v->id)
		rdma_destroy_id(v->id);
	if (v->ch)
		rdma_destroy_event_channel(v->ch);
	free(v->rbuf);
	free(v->sbuf);
	free(v->lbuf);
	free(v->xbuf);
	free(v->gather);
	free(v);
	free(c->frames);
	free(c->msgs);
	free(c);
}

static int post_recv(struct cf_ibconn *c, unsigned i)
{
	struct cf_ibv *v = c->v;
	struct ibv_sge sge = {
		.addr = (uintptr_t)(v->rbuf + (size_t)i * CF_IB_FRAME),
		.length = CF_IB_FRAME,
		.lkey = v->rmr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(v->id->qp, &wr, &bad) ? -EIO : 0;
}

/* PD, CQs, QP and posted receives on the id's device. */
static int setup_qp(struct cf_ibconn *c)
{
	struct cf_ibv *v = c->v;
	struct ibv_qp_init_attr qa;

	if (!v->id->verbs)
		return -ENODEV;
	v->pd = ibv_alloc_pd(v->id->verbs);
	v->scq = ibv_create_cq(v->id->verbs, NSEND + 1, NULL, NULL, 0);
	v->rcq = ibv_create_cq(v->id->verbs, NRECV + 1, NULL, NULL, 0);
	v->rbuf = aligned_alloc(4096, PAGES((size_t)NRECV * CF_IB_FRAME));
	v->sbuf = aligned_alloc(4096, PAGES((size_t)NSEND * CF_IB_FRAME));
	if (!v->pd || !v->scq || !v->rcq || !v->rbuf || !v->sbuf)
		return -ENOMEM;
	v->rmr = ibv_reg_mr(v->pd, v->rbuf, (size_t)NRECV * CF_IB_FRAME, IBV_ACCESS_LOCAL_WRITE);
	v->smr = ibv_reg_mr(v->pd, v->sbuf, (size_t)NSEND * CF_IB_FRAME, 0);
	if (!v->rmr || !v->smr)
		return -ENOMEM;
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = v->scq;
	qa.recv_cq = v->rcq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = NSEND + 1;
	qa.cap.max_recv_wr = NRECV + 1;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(v->id, v->pd, &qa))
		return -errno ? -errno : -EIO;
	for (unsigned i = 0; i < NRECV; i++)
		if (post_recv(c, i) < 0)
			return -EIO;
	return 0;
}

static void conn_param(struct rdma_conn_param *cp, const uint8_t *pd, size_t len)
{
	memset(cp, 0, sizeof(*cp));
	cp->private_data = len ? pd : NULL;
	cp->private_data_len = (uint8_t)len;
	cp->responder_resources = 1;
	cp->initiator_depth = 1;
	/* Soft-RoCE under qemu loses more than the kernel's retry count of
	 * 1 allows; a retry is invisible to RDS. */
	cp->retry_count = 7;
	cp->rnr_retry_count = 7;
}

/* The connection is over: |what| says how, |detail| what named it. */
static void ended(struct cf_ibconn *c, const char *what, const char *detail)
{
	if (c->closed)
		return;
	c->closed = true;
	snprintf(c->why, sizeof(c->why), "%s: %s", what, detail);
}

/* One CM event, if one is there within |ms|. Return: 1 and *type (the
 * event's private data kept in c->pd or the REJ fields); 0 none. */
static int cm_event(struct cf_ibconn *c, int ms, enum rdma_cm_event_type *type)
{
	struct cf_ibv *v = c->v;
	struct rdma_cm_event *e;
	struct pollfd pf = { .fd = v->ch->fd, .events = POLLIN };

	if (rdma_get_cm_event(v->ch, &e) < 0) {
		if (ms <= 0 || poll(&pf, 1, ms) <= 0 || rdma_get_cm_event(v->ch, &e) < 0)
			return 0;
	}
	*type = e->event;
	if (e->event == RDMA_CM_EVENT_REJECTED) {
		c->rej_status = e->status;
		c->rej_len = e->param.conn.private_data ? e->param.conn.private_data_len : 0;
		c->rej_data = 0;
		if (c->rej_len >= sizeof(int))
			memcpy(&c->rej_data, e->param.conn.private_data, sizeof(int));
	} else if (e->event == RDMA_CM_EVENT_ESTABLISHED && e->param.conn.private_data) {
		c->pd_len = e->param.conn.private_data_len;
		if (c->pd_len > sizeof(c->pd))
			c->pd_len = sizeof(c->pd);
		memcpy(c->pd, e->param.conn.private_data, c->pd_len);
	}
	rdma_ack_cm_event(e);
	return 1;
}

/* Wait for one of the set-up events. Return: the event; -1 on timeout. */
static int cm_wait(struct cf_ibconn *c, int ms)
{
	rdsu_ns end = cf_deadline(ms);
	enum rdma_cm_event_type t;

	for (;;) {
		int left = cf_ms_left(end);

		if (!left)
			return -1;
		if (cm_event(c, left, &t))
			return (int)t;
	}
}

static int connect_once(struct cf_ibconn *c, const uint8_t *pd, size_t len)
{
	struct cf_ibv *v = c->v;
	struct sockaddr_storage src, dst;
	struct rdma_conn_param cp;
	int ev, wait = c->r->wait_ms > RESOLVE_MS ? c->r->wait_ms : RESOLVE_MS;

	v->ch = rdma_create_event_channel();
	if (!v->ch) {
		c->setup = CF_IB_FAILED;
		snprintf(c->why, sizeof(c->why), "no rdma_cm: %s", strerror(errno ? errno : ENODEV));
		return -ENODEV;
	}
	(void)fcntl(v->ch->fd, F_SETFL, fcntl(v->ch->fd, F_GETFL) | O_NONBLOCK);
	if (rdma_create_id(v->ch, &v->id, c, RDMA_PS_TCP)) {
		c->setup = CF_IB_FAILED;
		snprintf(c->why, sizeof(c->why), "rdma_create_id: %s", strerror(errno));
		return -errno;
	}
	(void)rdsu_sockaddr(&c->laddr, 0, &src);
	(void)rdsu_sockaddr(&c->faddr, c->r->cfg->port, &dst);
	if (rdma_resolve_addr(v->id, (struct sockaddr *)&src, (struct sockaddr *)&dst,
			      RESOLVE_MS) ||
	    cm_wait(c, wait) != RDMA_CM_EVENT_ADDR_RESOLVED) {
		c->setup = CF_IB_UNREACHABLE;
		snprintf(c->why, sizeof(c->why), "address resolution failed (no RDMA device "
			 "with our address, or no route)");
		return -EHOSTUNREACH;
	}
	if (rdma_resolve_route(v->id, RESOLVE_MS) ||
	    cm_wait(c, wait) != RDMA_CM_EVENT_ROUTE_RESOLVED) {
		c->setup = CF_IB_UNREACHABLE;
		snprintf(c->why, sizeof(c->why), "route resolution failed");
		return -EHOSTUNREACH;
	}
	if (setup_qp(c) < 0) {
		c->setup = CF_IB_FAILED;
		snprintf(c->why, sizeof(c->why), "QP set-up failed");
		return -EIO;
	}
	conn_param(&cp, pd, len);
	if (rdma_connect(v->id, &cp)) {
		c->setup = CF_IB_FAILED;
		snprintf(c->why, sizeof(c->why), "rdma_connect: %s", strerror(errno));
		return -errno;
	}
	ev = cm_wait(c, wait);
	switch (ev) {
	case RDMA_CM_EVENT_ESTABLISHED:
		c->setup = CF_IB_UP;
		return 0;
	case RDMA_CM_EVENT_REJECTED:
		c->setup = CF_IB_REJECTED;
		cf_ib_rej_text(c, c->why, sizeof(c->why));
		return -ECONNREFUSED;
	case -1:
		c->setup = CF_IB_UNREACHABLE;
		snprintf(c->why, sizeof(c->why), "no answer to our REQ within %d ms", wait);
		return -ETIMEDOUT;
	default:
		c->setup = CF_IB_UNREACHABLE;
		snprintf(c->why, sizeof(c->why), "rdma_cm: %s after our REQ", rdma_event_str(ev));
		return -EHOSTUNREACH;
	}
}

int cf_ib_connect(struct cf_run *r, const uint8_t *pd, size_t len, unsigned tries,
		  struct cf_ibconn **out)
{
	rdsu_ns end = rdsu_clock() + (rdsu_ns)(r->wait_ms > 5000 ? r->wait_ms : 5000) *
		RDSU_MSEC;
	int err;

	*out = NULL;
	for (unsigned n = 1;; n++) {
		struct cf_ibconn *c = conn_new(r);

		if (!c)
			return -ENOMEM;
		err = connect_once(c, pd, len);
		if (err != -ECONNREFUSED || n >= tries || rdsu_clock() >= end) {
			*out = c;
			return err;
		}
		cf_ib_close(c);
		/* The peer's reconnect to us is between its tries. */
		usleep(100000 + 50000 * (n % 4));
	}
}

int cf_ib_session(struct cf_run *r, struct cf_result *res, struct cf_ibconn **out)
{
	uint8_t pd[WIRE_IBPD_V6_LEN];
	size_t n = cf_ib_pd(r, WIRE_IBVER_3_1, 0, pd);
	int err = cf_ib_connect(r, pd, n, 1000, out);

	if (!err)
		return 0;
	res->verdict = CF_ERROR;
	cf_text(res->reason, "no IB connection to the peer: %s", *out ? (*out)->why :
		strerror(-err));
	cf_ib_close(*out);
	*out = NULL;
	return err;
}

/* ------------------------------------------------------------------------
 * Frames.
 */

static int send_poll(struct cf_ibconn *c)
{
	struct ibv_wc wc[16];
	int n;

	while ((n = ibv_poll_cq(c->v->scq, 16, wc)) > 0) {
		for (int i = 0; i < n; i++) {
			c->v->s_busy--;
			if (wc[i].wr_id == RDMA_WR_ID) {
				c->v->rdma_done = true;
				c->v->rdma_status = wc[i].status;
			}
			if (wc[i].status != IBV_WC_SUCCESS)
				ended(c, "our send failed", ibv_wc_status_str(wc[i].status));
		}
	}
	return n < 0 ? -EIO : 0;
}

static void pump(struct cf_ibconn *c, int ms);

int cf_ib_send(struct cf_ibconn *c, const void *frame, size_t len, bool se)
{
	struct cf_ibv *v = c->v;
	struct ibv_sge sge;
	struct ibv_send_wr wr, *bad;
	uint8_t *slot;
	rdsu_ns end = rdsu_clock() + (rdsu_ns)c->r->wait_ms * RDSU_MSEC;

	if (c->setup != CF_IB_UP || c->closed)
		return -EPIPE;
	if (len > CF_IB_FRAME)
		return -EMSGSIZE;
	while (v->s_busy >= NSEND) {
		pump(c, 1);
		if (c->closed)
			return -EPIPE;
		if (rdsu_clock() > end)
			return -ETIMEDOUT;
	}
	slot = v->sbuf + (size_t)v->s_next * CF_IB_FRAME;
	if (len)
		memcpy(slot, frame, len);
	sge = (struct ibv_sge){ .addr = (uintptr_t)slot, .length = (uint32_t)len,
				.lkey = v->smr->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = v->s_next;
	wr.sg_list = &sge;
	wr.num_sge = len ? 1 : 0;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED | (se ? IBV_SEND_SOLICITED : 0);
	if (ibv_post_send(v->id->qp, &wr, &bad)) {
		ended(c, "ibv_post_send", strerror(errno));
		return -EPIPE;
	}
	v->s_next = (v->s_next + 1) % NSEND;
	v->s_busy++;
	return 0;
}

int cf_ib_send_msg(struct cf_ibconn *c, const struct wire_hdr *h, const void *payload,
		   uint32_t len)
{
	uint8_t f[CF_IB_FRAME];
	uint32_t n = wire_frag_count(len), off = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t fl = wire_frag_len(len, i);
		int err;

		wire_hdr_encode(h, f, WIRE_HDR_LEN);
		if (fl)
			memcpy(f + WIRE_HDR_LEN, (const uint8_t *)payload + off, fl);
		off += fl;
		err = cf_ib_send(c, f, WIRE_HDR_LEN + fl, i + 1 == n);
		if (err)
			return err;
	}
	return 0;
}

int cf_ib_ack_only(struct cf_ibconn *c, uint64_t ack)
{
	struct wire_hdr h;
	uint8_t f[WIRE_HDR_LEN];

	wire_build_ack(&h, ack, 0);
	wire_hdr_encode(&h, f, sizeof(f));
	c->acks_out++;
	return cf_ib_send(c, f, sizeof(f), true);
}

static void answer(struct cf_ibconn *c, const struct wire_hdr *h)
{
	struct wire_hdr p;

	/* rds_recv_incoming: a ping to port 0 from a port that is not 0
	 * gets a pong; a probe ping a pong to port 1 (IB: no extension). */
	if (!c->answer || h->dport != 0 || h->sport == 0)
		return;
	wire_build_pong(&p, c->r->tx_seq++, h->sport);
	cf_ib_fix(c, &p);
	(void)cf_ib_send_msg(c, &p, NULL, 0);
}

static void frame_in(struct cf_ibconn *c, const uint8_t *p, uint32_t len)
{
	struct cf_ibframe *f = c->n_frames < CF_IB_LOG_MAX ? &c->frames[c->n_frames++] : NULL;
	struct wire_frame wf;
	struct wire_hdr h;
	int r;

	if (len < WIRE_HDR_LEN) {
		if (f)
			*f = (struct cf_ibframe){ .len = len };
		return;
	}
	wire_hdr_decode(&h, p, len);
	if (f)
		*f = (struct cf_ibframe){ .h = h, .len = len, .csum_ok = wire_hdr_csum_ok(&h) };
	if (h.sport == 0 && h.dport == 0 && len == WIRE_HDR_LEN)
		return;  /* ACK-only: never a message (rds_ib_process_recv) */
	r = wire_reasm_input(&c->ra, p, len, &wf);
	if (r < 0) {
		c->frag_errs++;
		c->frag_rules = c->ra.rules;
		return;
	}
	if (r == 0)
		return;
	if (c->n_msgs < CF_IB_LOG_MAX) {
		struct cf_ibmsg *m = &c->msgs[c->n_msgs++];

		m->h = wf.hdr;
		m->kind = wire_classify(&wf.hdr, WIRE_XPORT_IB);
		m->frags = wire_frag_count(wf.hdr.len);
		m->caplen = wf.caplen < sizeof(m->head) ? wf.caplen : (uint32_t)sizeof(m->head);
		if (m->caplen)
			memcpy(m->head, wf.payload, m->caplen);
		if (m->kind == WIRE_KIND_CONG && wire_cong_decode(&c->map, wf.payload,
								   wf.caplen) > 0)
			c->n_maps++;
	}
	if (wire_classify(&wf.hdr, WIRE_XPORT_IB) == WIRE_KIND_CONG)
		return;
	c->rx_ack = wf.hdr.seq;
	if (!c->hold_ack)
		c->tx_ack = c->rx_ack;
	answer(c, &wf.hdr);
	if (c->ack && (wf.hdr.flags & WIRE_FLAG_ACK_REQUIRED))
		(void)cf_ib_ack_only(c, c->tx_ack);
}

static void recv_poll(struct cf_ibconn *c)
{
	struct ibv_wc wc[16];
	int n;

	while (!c->closed && (n = ibv_poll_cq(c->v->rcq, 16, wc)) > 0) {
		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				ended(c, "the QP failed", ibv_wc_status_str(wc[i].status));
				return;
			}
			frame_in(c, c->v->rbuf + wc[i].wr_id * CF_IB_FRAME, wc[i].byte_len);
			if (post_recv(c, (unsigned)wc[i].wr_id) < 0) {
				ended(c, "ibv_post_recv", "a receive could not be posted again");
				return;
			}
		}
	}
}

/* Everything that came within |ms|: CM events, receives, sends. */
static void pump(struct cf_ibconn *c, int ms)
{
	enum rdma_cm_event_type t;

	if (c->setup != CF_IB_UP)
		return;
	recv_poll(c);
	(void)send_poll(c);
	if (cm_event(c, ms, &t) && t != RDMA_CM_EVENT_ESTABLISHED) {
		recv_poll(c);
		ended(c, "rdma_cm", rdma_event_str(t));
	}
}

int cf_ib_recv(struct cf_ibconn *c, struct cf_ibmsg *m, int ms)
{
	rdsu_ns end = rdsu_clock() + (rdsu_ns)ms * RDSU_MSEC;

	for (;;) {
		if (c->n_read < c->n_msgs) {
			*m = c->msgs[c->n_read++];
			return 1;
		}
		if (c->closed || c->setup != CF_IB_UP)
			return -EPIPE;
		if (rdsu_clock() >= end)
			return 0;
		pump(c, 1);
	}
}

int cf_ib_drain(struct cf_ibconn *c, int ms)
{
	struct cf_ibmsg m;
	int n = 0, got;
	rdsu_ns end = cf_deadline(ms);

	for (;;) {
		int left = cf_ms_left(end);

		if (!left)
			return n;
		got = cf_ib_recv(c, &m, left);
		if (got < 0)
			return n ? n : got;
		n += got;
	}
}

bool cf_ib_wait_end(struct cf_ibconn *c, int ms)
{
	rdsu_ns end = rdsu_clock() + (rdsu_ns)ms * RDSU_MSEC;

	while (!c->closed && rdsu_clock() < end)
		pump(c, 5);
	return c->closed;
}

int cf_ib_ping(struct cf_ibconn *c, uint16_t sport, struct cf_ibmsg *m, int ms)
{
	struct wire_hdr h;
	rdsu_ns end;
	int err;

	wire_build_ping(&h, c->r->tx_seq++, sport);
	cf_ib_fix(c, &h);
	err = cf_ib_send_msg(c, &h, NULL, 0);
	if (err)
		return err;
	end = cf_deadline(ms);
	for (;;) {
		int left = cf_ms_left(end);
		int got = left ? cf_ib_recv(c, m, left) : 0;

		if (got <= 0)
			return got;
		if (m->h.dport == sport && m->kind != WIRE_KIND_CONG &&
		    !(m->h.flags & WIRE_FLAG_RETRANSMITTED))
			return 1;
	}
}

/* A buffer of CF_IB_RDMA_MAX bytes registered with |access|, zero-based
 * when |zero| (the peer's addresses count from 0, as the kernel's FRMR
 * regions do). */
static int rdma_buf(struct cf_ibconn *c, int access, bool zero, uint8_t **buf,
		    struct ibv_mr **mr)
{
	if (*mr)
		return 0;
	*buf = aligned_alloc(4096, CF_IB_RDMA_MAX);
	if (!*buf)
		return -ENOMEM;
	*mr = zero ? ibv_reg_mr_iova(c->v->pd, *buf, CF_IB_RDMA_MAX, 0, access) :
		     ibv_reg_mr(c->v->pd, *buf, CF_IB_RDMA_MAX, access);
	return *mr ? 0 : (errno ? -errno : -EIO);
}

int cf_ib_rdma(struct cf_ibconn *c, bool write, uint32_t rkey, uint64_t va, uint32_t len,
	       uint32_t seed)
{
	struct cf_ibv *v = c->v;
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	rdsu_ns end = rdsu_clock() + (rdsu_ns)c->r->wait_ms * RDSU_MSEC;
	int e;

	if (c->setup != CF_IB_UP || c->closed)
		return -EPIPE;
	if (len == 0 || len > CF_IB_RDMA_MAX)
		return -EINVAL;
	e = rdma_buf(c, IBV_ACCESS_LOCAL_WRITE, false, &v->lbuf, &v->lmr);
	if (e)
		return e;
	if (write)
		cf_region_fill(v->lbuf, len, seed);
	else
		memset(v->lbuf, 0, len);
	while (v->s_busy >= NSEND) {
		pump(c, 1);
		if (c->closed)
			return -EPIPE;
	}
	sge = (struct ibv_sge){ .addr = (uintptr_t)v->lbuf, .length = len, .lkey = v->lmr->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = RDMA_WR_ID;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = write ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = va;
	wr.wr.rdma.rkey = rkey;
	v->rdma_done = false;
	if (ibv_post_send(v->id->qp, &wr, &bad)) {
		ended(c, "ibv_post_send", strerror(errno));
		return -EPIPE;
	}
	v->s_busy++;
	/* Its completion, whatever else ends the connection meanwhile (the
	 * peer's DREQ may come before the NAK's completion is polled). */
	while (!v->rdma_done && rdsu_clock() < end) {
		if (c->closed) {
			(void)send_poll(c);
			usleep(1000);
		} else {
			pump(c, 1);
		}
	}
	if (!v->rdma_done)
		return c->closed ? -EPIPE : -ETIMEDOUT;
	switch (v->rdma_status) {
	case IBV_WC_SUCCESS:
		return 0;
	case IBV_WC_REM_ACCESS_ERR:
	case IBV_WC_REM_INV_REQ_ERR:
	case IBV_WC_REM_OP_ERR:
		snprintf(c->why, sizeof(c->why), "RDMA %s refused: %s", write ? "WRITE" : "READ",
			 ibv_wc_status_str(v->rdma_status));
		return -EREMOTEIO;
	default:
		snprintf(c->why, sizeof(c->why), "RDMA %s ended unanswered: %s",
			 write ? "WRITE" : "READ", ibv_wc_status_str(v->rdma_status));
		return -EPIPE;
	}
}

int cf_ib_expose(struct cf_ibconn *c, uint32_t seed, uint32_t *rkey)
{
	struct cf_ibv *v = c->v;
	int e;

	if (c->setup != CF_IB_UP)
		return -EPIPE;
	e = rdma_buf(c, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
		     true, &v->xbuf, &v->xmr);
	if (e)
		return e;
	cf_region_fill(v->xbuf, CF_IB_RDMA_MAX, seed);
	*rkey = v->xmr->rkey;
	return 0;
}

const uint8_t *cf_ib_exposed(const struct cf_ibconn *c)
{
	return c->v->xbuf;
}

#else /* !CF_HAVE_IB */

int cf_ib_rdma(struct cf_ibconn *c, bool write, uint32_t rkey, uint64_t va, uint32_t len,
	       uint32_t seed)
{
	(void)c;
	(void)write;
	(void)rkey;
	(void)va;
	(void)len;
	(void)seed;
	return -EOPNOTSUPP;
}

int cf_ib_expose(struct cf_ibconn *c, uint32_t seed, uint32_t *rkey)
{
	(void)c;
	(void)seed;
	(void)rkey;
	return -EOPNOTSUPP;
}

const uint8_t *cf_ib_exposed(const struct cf_ibconn *c)
{
	(void)c;
	return NULL;
}

int cf_ib_connect(struct cf_run *r, const uint8_t *pd, size_t len, unsigned tries,
		  struct cf_ibconn **out)
{
	(void)r;
	(void)pd;
	(void)len;
	(void)tries;
	*out = NULL;
	return -EOPNOTSUPP;
}

int cf_ib_session(struct cf_run *r, struct cf_result *res, struct cf_ibconn **out)
{
	(void)r;
	*out = NULL;
	res->verdict = CF_ERROR;
	cf_text(res->reason, "rds-conform was built without libibverbs and librdmacm");
	return -EOPNOTSUPP;
}

void cf_ib_close(struct cf_ibconn *c)
{
	(void)c;
}

int cf_ib_send(struct cf_ibconn *c, const void *frame, size_t len, bool se)
{
	(void)c;
	(void)frame;
	(void)len;
	(void)se;
	return -EOPNOTSUPP;
}

int cf_ib_send_msg(struct cf_ibconn *c, const struct wire_hdr *h, const void *payload,
		   uint32_t len)
{
	(void)c;
	(void)h;
	(void)payload;
	(void)len;
	return -EOPNOTSUPP;
}

int cf_ib_ack_only(struct cf_ibconn *c, uint64_t ack)
{
	(void)c;
	(void)ack;
	return -EOPNOTSUPP;
}

int cf_ib_recv(struct cf_ibconn *c, struct cf_ibmsg *m, int ms)
{
	(void)c;
	(void)m;
	(void)ms;
	return -EPIPE;
}

int cf_ib_drain(struct cf_ibconn *c, int ms)
{
	(void)c;
	(void)ms;
	return -EPIPE;
}

bool cf_ib_wait_end(struct cf_ibconn *c, int ms)
{
	(void)c;
	(void)ms;
	return true;
}

int cf_ib_ping(struct cf_ibconn *c, uint16_t sport, struct cf_ibmsg *m, int ms)
{
	(void)c;
	(void)sport;
	(void)m;
	(void)ms;
	return -EPIPE;
}

#endif /* CF_HAVE_IB */
