// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ib_cm.c - connection management over rdma_cm, as net/rds/ib_cm.c and
 * rdma_transport.c do it: one event channel (a source in the loop's
 * epoll set), a listener per local address on port 18634 (IPv4) or
 * 16385 (IPv6) in RDMA_PS_TCP, active connects through address and
 * route resolution (5000 ms each), the CM private data of net/rds/ib.h
 * built and checked with libwire, version negotiation both ways
 * (rds_ib_protocol_compatible on the passive side, the REP's version
 * adopted on the active side, the reject with consumer data 1), and
 * every end of a connection reported as a link down.
 */
#define _GNU_SOURCE
#include "ib.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <unistd.h>

#define UVERBS_CLASS "/sys/class/infiniband_verbs"

/* What is kept of an event before it is acknowledged: acknowledging
 * first lets the handler destroy the event's id. */
struct cm_ev {
	enum rdma_cm_event_type type;
	struct rdma_cm_id *id;
	struct rdma_cm_id *listen_id;
	int status;
	uint8_t pd[WIRE_IBPD_V6_LEN];
	size_t pd_len;            /* bytes kept in pd */
	size_t pd_full;           /* bytes the event carried */
};

static uint16_t port_for(const struct rdsu_ib *t, int family)
{
	if (family == 4)
		return t->cfg.port_v4 ? t->cfg.port_v4 : WIRE_IB_PORT_V4;
	return t->cfg.port_v6 ? t->cfg.port_v6 : WIRE_IB_PORT_V6;
}

static int family_of(const struct rdsu_addr *a)
{
	return rdsu_addr_is_v4(a) ? 4 : 6;
}

static void addr_to_pd(const struct rdsu_addr *a, int family, uint8_t out[16])
{
	memset(out, 0, 16);
	if (family == 4)
		memcpy(out, a->a + 12, 4);
	else
		memcpy(out, a->a, 16);
}

static struct rdsu_addr addr_from_pd(const uint8_t in[16], int family)
{
	struct rdsu_addr a;

	if (family == 4) {
		memset(a.a, 0, 10);
		a.a[10] = a.a[11] = 0xff;
		memcpy(a.a + 12, in, 4);
	} else {
		memcpy(a.a, in, 16);
	}
	return a;
}

/* Our private data (rds_ib_cm_fill_conn_param): addresses, the version
 * proposed or chosen, the minors we support, and the core's ack_seq and
 * credit. */
static size_t build_pd(struct ib_link *l, uint16_t version, uint8_t *buf)
{
	struct wire_ibpd pd;
	ssize_t n;

	memset(&pd, 0, sizeof(pd));
	pd.family = l->family;
	addr_to_pd(&l->laddr, l->family, pd.saddr);
	addr_to_pd(&l->faddr, l->family, pd.daddr);
	/* FAULT ib-version: the REP names a version the REQ did not agree
	 * to (the faulty-peer mode, rdsu.h; tests only). */
	if (!l->active && (rdsu_ep_faults(l->t->ep) & RDSU_FAULT_IB_VERSION))
		version = WIRE_IBVER_4_0;
	pd.major = (uint8_t)(version >> 8);
	pd.minor = (uint8_t)version;
	pd.minor_mask = WIRE_IB_SUPPORTED_MINORS;
	rdsu_ib_core_offer(l, &pd);
	n = wire_ibpd_encode(&pd, buf, WIRE_IBPD_V6_LEN);
	return n > 0 ? (size_t)n : 0;
}

/* Our private data, with the receives just posted reported to the core:
 * reported first, the core offers them as credits (dp_credit) and keeps
 * advertising reposted ones; reported after, it offers none. */
static size_t offer_pd(struct ib_link *l, uint16_t version, uint8_t *buf, rdsu_ns now)
{
	bool credits = l->t->cfg.offer_credits;
	size_t n;

	if (credits)
		rdsu_ib_core_posted(l, l->rcur, now);
	n = build_pd(l, version, buf);
	if (!credits)
		rdsu_ib_core_posted(l, l->rcur, now);
	return n;
}

static void conn_param(const struct rdsu_ib *t, struct rdma_conn_param *cp, const uint8_t *pd,
		       size_t len)
{
	memset(cp, 0, sizeof(*cp));
	cp->private_data = pd;
	cp->private_data_len = (uint8_t)len;
	cp->responder_resources = 1;
	cp->initiator_depth = 1;
	/* Finite (rdsu_ib_cfg.retry_count): a link that stays cut ends the
	 * QP with a failed completion, which is what brings the path down. */
	cp->retry_count = t->cfg.retry_count;
	cp->rnr_retry_count = 7;  /* infinite, as the kernel: no credits */
}

/* rdma_set_min_rnr_timer() has no librdmacm counterpart, and without it
 * the CM leaves the QP's timer at 0, which means 655.36 ms: a peer that
 * meets our receive ring empty would wait that long per retry. The QP is
 * in RTS here (rdma_accept and the REP's handling move it), where the
 * timer may still be changed: the kernel's 0.32 ms. On failure the CM's
 * value stays (slower under receive overrun, nothing else). */
static void min_rnr_timer(struct ib_link *l)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.min_rnr_timer = IB_RNR_TIMER;
	if (l->cm->qp && ibv_modify_qp(l->cm->qp, &a, IBV_QP_MIN_RNR_TIMER) == 0)
		l->t->st.rnr_timer_set++;
}

int rdsu_ib_cm_open(struct rdsu_ib *t)
{
	int fl;

	t->chsrc.fd = -1;
	t->ch = rdma_create_event_channel();
	if (!t->ch)
		return errno == ENOENT || errno == 0 ? -ENODEV : -errno;
	fl = fcntl(t->ch->fd, F_GETFL);
	if (fl < 0 || fcntl(t->ch->fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	t->chsrc.tr = &t->tr;
	t->chsrc.fd = t->ch->fd;
	return rdsu_loop_watch(t->tr.io, &t->chsrc, EPOLLIN, EPOLL_CTL_ADD);
}

void rdsu_ib_cm_close(struct rdsu_ib *t)
{
	for (unsigned i = 0; i < t->n_listen; i++)
		rdma_destroy_id(t->listen[i]);
	t->n_listen = 0;
	if (t->chsrc.fd >= 0)
		rdsu_loop_unwatch(t->tr.io, &t->chsrc);
	if (t->ch)
		rdma_destroy_event_channel(t->ch);
	t->ch = NULL;
}

int rdsu_ib_cm_listen(struct rdsu_ib *t, const struct rdsu_addr *a)
{
	struct sockaddr_storage ss;
	struct rdma_cm_id *id;
	int fam = family_of(a);

	if (t->n_listen >= sizeof(t->listen) / sizeof(t->listen[0]))
		return RDSU_ERR_INVAL;
	(void)rdsu_sockaddr(a, port_for(t, fam), &ss);
	if (rdma_create_id(t->ch, &id, NULL, RDMA_PS_TCP))
		return -errno;
	/* Bound to the address, so only its RDMA device answers: an
	 * address on no RDMA device fails here (rds_ib_laddr_check). */
	if (rdma_bind_addr(id, (struct sockaddr *)&ss) || rdma_listen(id, 128)) {
		int e = errno ? -errno : -EADDRNOTAVAIL;

		rdma_destroy_id(id);
		/* rdma_cm answers EADDRNOTAVAIL, not EADDRINUSE, when the port
		 * is bound on the wildcard address (cma_check_port): the
		 * kernel's rds_rdma listens on 0.0.0.0:18634 and [::]:16385
		 * (rds_rdma_listen_init). If the address itself binds, the
		 * port is what is taken (docs/kernel-behaviour.md K6.1). */
		if (e == -EADDRNOTAVAIL && rdsu_ib_laddr_check(a) == 1)
			return -EADDRINUSE;
		return e == -ENODEV ? -EADDRNOTAVAIL : e;
	}
	t->listen[t->n_listen++] = id;
	return 0;
}

void rdsu_ib_cm_connect(struct rdsu_ib *t, const struct rdsu_lreq *req, rdsu_ns now)
{
	struct sockaddr_storage src, dst;
	struct rdma_cm_id *id;
	struct ib_link *l;

	if (rdma_create_id(t->ch, &id, NULL, RDMA_PS_TCP)) {
		(void)rdsu_link_down(t->ep, req->link, now);
		return;
	}
	l = rdsu_ib_link_new(t, id, true);
	if (!l) {
		rdma_destroy_id(id);
		(void)rdsu_link_down(t->ep, req->link, now);
		return;
	}
	l->id = req->link;
	l->core_knows = true;
	l->laddr = req->laddr;
	l->faddr = req->faddr;
	l->family = family_of(&req->faddr);
	l->proposed = WIRE_IBVER_3_1;  /* RDS_PROTOCOL_VERSION */
	l->state = IL_ADDR;
	(void)rdsu_sockaddr(&req->laddr, 0, &src);
	(void)rdsu_sockaddr(&req->faddr, port_for(t, l->family), &dst);
	t->st.attempts++;
	if (rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&dst, IB_RESOLVE_MS))
		rdsu_ib_lost_why(l, IB_WHY_CALL, -errno, now);
}

static void on_route(struct ib_link *l, rdsu_ns now)
{
	struct rdma_conn_param cp;
	uint8_t pd[WIRE_IBPD_V6_LEN];
	size_t n;

	int r = rdsu_ib_link_setup(l);

	if (r < 0) {
		rdsu_ib_lost_why(l, IB_WHY_CALL, r, now);
		return;
	}
	n = offer_pd(l, l->proposed, pd, now);
	conn_param(l->t, &cp, pd, n);
	l->state = IL_CONNECTING;
	l->t->st.connects++;
	if (rdma_connect(l->cm, &cp))
		rdsu_ib_lost_why(l, IB_WHY_CALL, -errno, now);
}

static void on_established(struct ib_link *l, const struct cm_ev *ev, rdsu_ns now)
{
	struct rdsu_ib *t = l->t;
	struct wire_ibpd rep;
	bool ok = false;

	if (l->active) {
		ok = wire_ibpd_decode(&rep, l->family, ev->pd, ev->pd_len) > 0;

		/* The kernel pre-sets 4.1 and takes the REP's version when
		 * it names one (rds_ib_cm_connect_complete). */
		l->version = wire_ib_adopt(WIRE_IBVER_4_1, ok ? &rep : NULL);
		if (!l->version) {
			rdsu_ib_link_lost(l, now);
			return;
		}
	}
	if (l->active)
		min_rnr_timer(l);
	l->state = IL_UP;
	t->st.established++;
	t->st.version = l->version;
	if (rdsu_ib_core_up(l, ok ? &rep : NULL, now))
		rdsu_ib_core_output(l, now);
}

static void on_rejected(struct ib_link *l, const struct cm_ev *ev, rdsu_ns now)
{
	int data = 0;

	l->t->st.rejected_by_peer++;
	if (ev->pd_len >= sizeof(int))
		memcpy(&data, ev->pd, sizeof(int));
	/* An older peer refusing our version asks for 3.1 (consumer data
	 * 1, or a negative errno): the reconnect proposes it. We propose
	 * nothing else, so every reconnect already does. */
	if (ev->status == IB_REJ_CONSUMER && data <= IB_REJ_INCOMPAT)
		l->proposed = WIRE_IBVER_3_1;
	rdsu_ib_lost_why(l, ev->type, ev->status, now);
}

static void reject(struct rdma_cm_id *id, bool incompat)
{
	int data = IB_REJ_INCOMPAT;

	if (incompat)
		(void)rdma_reject(id, &data, sizeof(data));
	else
		(void)rdma_reject(id, NULL, 0);
	rdma_destroy_id(id);
}

/* rds_ib_cm_handle_connect: check the version, ask the core, accept. */
static void on_request(struct rdsu_ib *t, const struct cm_ev *ev, rdsu_ns now)
{
	struct sockaddr *la = rdma_get_local_addr(ev->listen_id);
	int family = la->sa_family == AF_INET ? 4 : 6;
	uint16_t version = wire_ib_negotiate(ev->pd, ev->pd_full ? ev->pd_len : 0, family);
	struct rdma_conn_param cp;
	uint8_t pd[WIRE_IBPD_V6_LEN];
	struct wire_ibpd req;
	struct ib_link *l;
	bool ok;
	size_t n;

	/* FAULT ib-version-accept: what rds_ib_protocol_compatible refuses
	 * is taken as 3.1. */
	if (!version && ev->pd_full && (rdsu_ep_faults(t->ep) & RDSU_FAULT_IB_VERSION_ACCEPT))
		version = WIRE_IBVER_3_1;
	if (!version) {
		t->st.rejected++;
		reject(ev->id, true);
		return;
	}
	l = rdsu_ib_link_new(t, ev->id, false);
	if (!l) {
		reject(ev->id, false);
		return;
	}
	l->family = family;
	l->version = version;
	ok = wire_ibpd_decode(&req, family, ev->pd, ev->pd_len) > 0;
	if (ok) {
		/* The connection is the one the private data names, as the
		 * kernel keys it. */
		l->faddr = addr_from_pd(req.saddr, family);
		l->laddr = addr_from_pd(req.daddr, family);
	} else {
		struct sockaddr_storage ss;

		memcpy(&ss, rdma_get_peer_addr(ev->id), sizeof(struct sockaddr_in6));
		(void)rdsu_sockaddr_get(&ss, &l->faddr, NULL);
		memcpy(&ss, rdma_get_local_addr(ev->id), sizeof(struct sockaddr_in6));
		(void)rdsu_sockaddr_get(&ss, &l->laddr, NULL);
	}
	l->state = IL_CONNECTING;
	if (rdsu_ib_core_accept(l, ok ? &req : NULL, now) < 0) {
		t->st.rejected++;
		(void)rdma_reject(l->cm, NULL, 0);
		rdsu_ib_link_retire(l);
		return;
	}
	if (rdsu_ib_link_setup(l) < 0) {
		(void)rdma_reject(l->cm, NULL, 0);
		rdsu_ib_link_lost(l, now);
		return;
	}
	n = offer_pd(l, version, pd, now);
	conn_param(l->t, &cp, pd, n);
	if (rdma_accept(l->cm, &cp))
		rdsu_ib_link_lost(l, now);
	else
		min_rnr_timer(l);
}

/* The device under listener |id| is going (rdma link delete, a hot
 * unplug): the id must be given back, or the device cannot go, and the
 * address listened on again once a device has it. */
static void listener_gone(struct rdsu_ib *t, struct rdma_cm_id *id)
{
	for (unsigned i = 0; i < t->n_listen; i++) {
		struct sockaddr_storage ss;
		struct rdsu_addr a;

		if (t->listen[i] != id)
			continue;
		memset(&ss, 0, sizeof(ss));
		memcpy(&ss, rdma_get_local_addr(id), id->route.addr.src_addr.sa_family == AF_INET6
						       ? sizeof(struct sockaddr_in6)
						       : sizeof(struct sockaddr_in));
		if (rdsu_sockaddr_get(&ss, &a, NULL) == 0 &&
		    t->n_relisten < sizeof(t->relisten) / sizeof(t->relisten[0]))
			t->relisten[t->n_relisten++] = a;
		rdma_destroy_id(id);
		t->listen[i] = t->listen[--t->n_listen];
		return;
	}
}

/* librdmacm closes its context of a removed device only when it next
 * reads the device list (rdma_get_devices) with no id left on it, and
 * the kernel's removal waits for that close. */
static void sync_devices(void)
{
	struct ibv_context **d = rdma_get_devices(NULL);

	if (d)
		rdma_free_devices(d);
}

/* Has the device of |ctx| begun to go? Its uverbs node is the first
 * thing the kernel takes away (drivers/infiniband/core/uverbs_main.c
 * ib_uverbs_remove_one, cdev_device_del); a system without that sysfs
 * class says nothing. */
static bool dev_vanished(struct ibv_context *ctx)
{
	char path[96 + IBV_SYSFS_NAME_MAX], name[IBV_SYSFS_NAME_MAX + 2];
	size_t n;
	FILE *f;

	if (access(UVERBS_CLASS, F_OK) != 0)
		return false;
	snprintf(path, sizeof(path), "%s/%s/ibdev", UVERBS_CLASS, ctx->device->dev_name);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT;
	n = fread(name, 1, sizeof(name) - 1, f);
	fclose(f);
	name[n] = 0;
	name[strcspn(name, "\n")] = 0;
	/* the node's number went to another device */
	return strcmp(name, ctx->device->name) != 0;
}

/* rdsu_ib_cm_dispatch's DEVICE_REMOVAL for every id of ours on |ctx|,
 * when rdma_cm cannot send it: the kernel removes a device's clients
 * last registered first (drivers/infiniband/core/device.c
 * disable_device), and where ib_uverbs was loaded after rdma_cm (a
 * driver loaded after it, as rdma_rxe in the lab's guests) uverbs goes
 * first and, on a device that cannot take a context from a process
 * (rxe has no disassociate_ucontext), waits for every process to close
 * its files of the device; rdma_cm's DEVICE_REMOVAL would come only
 * after that. */
static void device_gone(struct rdsu_ib *t, struct ibv_context *ctx, rdsu_ns now)
{
	struct ib_link *l, *next;

	/* librdmacm marks the device dead (no new id gets it) and closes
	 * it once the ids below are destroyed */
	sync_devices();
	t->dev_gone = true;
	rdsu_ib_rdma_device_gone(t, ctx);
	for (unsigned i = 0; i < t->n_listen;) {
		if (t->listen[i]->verbs && t->listen[i]->verbs->device == ctx->device)
			listener_gone(t, t->listen[i]);
		else
			i++;
	}
	for (l = t->links; l; l = next) {
		next = l->next;
		if (l->cm->verbs && l->cm->verbs->device == ctx->device && l->state != IL_DEAD)
			rdsu_ib_lost_why(l, RDMA_CM_EVENT_DEVICE_REMOVAL, -ENODEV, now);
	}
}

/* One context per device: librdmacm's (listeners, ids) and librds's own
 * (rdsu_ib_pd_get: PDs, QPs, regions) are two contexts of one device. */
static void add_ctx(struct ibv_context **out, unsigned *n, struct ibv_context *c)
{
	for (unsigned k = 0; k < *n; k++)
		if (c && out[k]->device == c->device)
			return;
	if (c && *n < IB_MAX_DEVS)
		out[(*n)++] = c;
}

/* The devices we hold something on: listeners, links, regions. */
static unsigned devs_held(const struct rdsu_ib *t, struct ibv_context **out)
{
	unsigned n = 0;

	for (unsigned i = 0; i < t->n_listen; i++)
		add_ctx(out, &n, t->listen[i]->verbs);
	for (const struct ib_link *l = t->links; l; l = l->next)
		add_ctx(out, &n, l->cm->verbs);
	for (unsigned i = 0; i < t->n_pds; i++)
		add_ctx(out, &n, t->pds[i].pd->context);
	return n;
}

/* Whether devs_held() would find one: a PD (every set-up link and
 * region has one) answers at once, without walking the links. */
static bool holds_dev(const struct rdsu_ib *t)
{
	if (t->n_pds)
		return true;
	for (unsigned i = 0; i < t->n_listen; i++)
		if (t->listen[i]->verbs)
			return true;
	for (const struct ib_link *l = t->links; l; l = l->next)
		if (l->cm->verbs)
			return true;
	return false;
}

bool rdsu_ib_cm_devcheck(struct rdsu_ib *t, rdsu_ns now, int *wait_ms)
{
	bool gone = false;
	int left;

	/* Called before every wait: the devices are gathered only when the
	 * look is due, not on each round of a busy loop. */
	if (!holds_dev(t))
		return false;
	if (now >= t->devcheck_at) {
		struct ibv_context *ctx[IB_MAX_DEVS];
		unsigned n = devs_held(t, ctx);

		t->devcheck_at = now + RDSU_SEC;
		for (unsigned i = 0; i < n; i++)
			if (dev_vanished(ctx[i])) {
				t->st.dev_vanished++;
				device_gone(t, ctx[i], now);
				gone = true;
			}
	}
	left = (int)((t->devcheck_at - now + RDSU_MSEC - 1) / RDSU_MSEC);
	if (*wait_ms < 0 || *wait_ms > left)
		*wait_ms = left;
	return gone;
}

void rdsu_ib_cm_relisten(struct rdsu_ib *t, rdsu_ns now, int *wait_ms)
{
	int left;

	if (t->dev_gone) {
		/* the round that saw the event has reaped its links */
		t->dev_gone = false;
		sync_devices();
	}
	if (!t->n_relisten)
		return;
	if (now >= t->relisten_at) {
		t->relisten_at = now + RDSU_SEC;
		sync_devices();
		for (unsigned i = 0; i < t->n_relisten;) {
			if (rdsu_ib_cm_listen(t, &t->relisten[i]) == 0)
				t->relisten[i] = t->relisten[--t->n_relisten];
			else
				i++;
		}
		if (!t->n_relisten)
			return;
	}
	left = (int)((t->relisten_at - now + RDSU_MSEC - 1) / RDSU_MSEC);
	if (*wait_ms < 0 || *wait_ms > left)
		*wait_ms = left;
}

static void dispatch(struct rdsu_ib *t, const struct cm_ev *ev, rdsu_ns now)
{
	struct ib_link *l;

	if (ev->type == RDMA_CM_EVENT_CONNECT_REQUEST) {
		on_request(t, ev, now);
		return;
	}
	/* rds_ib_remove_one: what was on the device goes with it; the
	 * link's QP, CQs and id go when it is reaped at the round's end. */
	if (ev->type == RDMA_CM_EVENT_DEVICE_REMOVAL) {
		t->dev_gone = true;
		t->st.dev_removed++;
		if (ev->id->verbs)
			rdsu_ib_rdma_device_gone(t, ev->id->verbs);
		if (!ev->id->context) {
			listener_gone(t, ev->id);
			return;
		}
	}
	l = ev->id->context;
	if (!l || l->state == IL_DEAD)
		return;  /* a listener's, or a link already retired */
	switch (ev->type) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		l->state = IL_ROUTE;
		if (rdma_resolve_route(l->cm, IB_RESOLVE_MS))
			rdsu_ib_lost_why(l, IB_WHY_CALL, -errno, now);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		on_route(l, now);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		on_established(l, ev, now);
		break;
	case RDMA_CM_EVENT_REJECTED:
		on_rejected(l, ev, now);
		break;
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
		break;  /* only without a QP, which we always have */
	default:
		/* ADDR/ROUTE/CONNECT errors, UNREACHABLE, DISCONNECTED,
		 * DEVICE_REMOVAL, ADDR_CHANGE, TIMEWAIT_EXIT: the kernel
		 * drops the connection on each (rds_rdma_cm_event_handler). */
		rdsu_ib_lost_why(l, ev->type, ev->status, now);
		break;
	}
}

void rdsu_ib_cm_events(struct rdsu_ib *t, rdsu_ns now)
{
	struct rdma_cm_event *e;

	while (rdma_get_cm_event(t->ch, &e) == 0) {
		struct cm_ev ev = {
			.type = e->event,
			.id = e->id,
			.listen_id = e->listen_id,
			.status = e->status,
		};
		const void *pd = e->param.conn.private_data;
		size_t len = e->param.conn.private_data_len;

		if (pd && len) {
			ev.pd_full = len;
			ev.pd_len = len < sizeof(ev.pd) ? len : sizeof(ev.pd);
			memcpy(ev.pd, pd, ev.pd_len);
		}
		rdma_ack_cm_event(e);
		dispatch(t, &ev, now);
	}
}
