// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * cases_rdma.c - rds-conform: RDMA over RDS/IB (--transport ib, with the
 * agent). The peer's application registers memory through the agent
 * (RDS_CMSG_RDMA_MAP on a message to us), and our node runs RDMA WRITEs
 * against it as a kernel's RDS would, then sends the message that
 * carries the op (RDMA exthdr); or we hand the agent a cookie of ours and
 * the peer runs the RDMA, and the agent reports its notifications.
 *
 * The rules are net/rds/rdma.c's, send.c's and ib_*.c's; where the
 * kernels over Soft-RoCE do otherwise (docs/kernel-behaviour.md,
 * "RDMA operations, kernel against kernel") the verdict is NON-STRICT
 * with that row as its reason.
 */
#define _GNU_SOURCE
#include "cases.h"
#include "node_ib.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rds/rdsu_io.h>

#define REG_LEN 2048             /* a region inside one page */
#define FREE_SETTLE_MS 200
#define KBR KB ", RDMA operations"

struct rx {
	struct cf_ibconn *c;
	uint16_t q;                 /* our port */
	uint16_t a;                 /* the agent's socket */
};

/* The agent's socket and an IB session with the peer. Return: 0; -1
 * with res set. */
static int rx_open(struct cf_run *r, struct cf_result *res, struct rx *x)
{
	int e;

	memset(x, 0, sizeof(*x));
	if (!cf_need_agent(r, res))
		return -1;
	x->q = cf_port(r);
	x->a = cf_port(r);
	e = cf_agent_bind(r->agent, x->a, 0);
	if (e) {
		cf_agent_failed(r, res, "bind", e);
		x->a = 0;
		return -1;
	}
	if (cf_ib_session(r, res, &x->c))
		return -1;
	(void)cf_ib_drain(x->c, r->wait_ms / 8 < 200 ? 200 : r->wait_ms / 8);
	return 0;
}

static void rx_close(struct cf_run *r, struct rx *x)
{
	cf_ib_close(x->c);
	x->c = NULL;
	if (x->a)
		(void)cf_agent_unbind(r->agent, x->a);
}

/* A new session after one a refusal ended. The peer reconnects to us
 * meanwhile, and refuses ours while its own attempt is out (REJ consumer
 * data 1, kernel-behaviour.md "rds-conform over IB"): up to three rounds
 * of cf_ib_session's tries. Return: 0; -1 with res set. */
static int rx_again(struct cf_run *r, struct cf_result *res, struct rx *x)
{
	for (int i = 0; i < 3; i++) {
		cf_ib_close(x->c);
		x->c = NULL;
		if (!cf_ib_session(r, res, &x->c)) {
			res->verdict = CF_PASS;
			res->reason[0] = '\0';
			return 0;
		}
	}
	return -1;
}

/* The first extension of |type| in |h|. Return: true and *e. */
static bool ext_of(const struct wire_hdr *h, unsigned type, struct wire_ext *e)
{
	struct wire_exts x;

	wire_exts_decode(&x, h->ext, WIRE_KVER_ALL);
	for (unsigned i = 0; i < x.count; i++)
		if (x.e[i].type == type && x.e[i].known) {
			*e = x.e[i];
			return true;
		}
	return false;
}

/* The next message from the peer to our port |q|. Return: 1; 0 none
 * within the wait; -EPIPE. */
static int msg_to(struct cf_run *r, struct rx *x, struct cf_ibmsg *m)
{
	rdsu_ns end = cf_deadline(r->wait_ms);

	for (;;) {
		int left = cf_ms_left(end);
		int got = left ? cf_ib_recv(x->c, m, left) : 0;

		if (got <= 0 || (m->h.dport == x->q && m->kind != WIRE_KIND_CONG))
			return got;
	}
}

/*
 * The peer's application maps a region of REG_LEN bytes (|flags|, filled
 * with |seed|) with a message to us. Return: 0, *cookie and *m (its
 * message); -1 with res set (ERROR: the agent, or no message).
 */
static int peer_map(struct cf_run *r, struct cf_result *res, struct rx *x, uint32_t flags,
		    uint32_t seed, uint64_t *cookie, struct cf_ibmsg *m)
{
	int err = 0, e = cf_agent_map(r->agent, x->a, &r->cfg->local, x->q, REG_LEN, flags, seed,
				      cookie, &err);

	if (e || err) {
		cf_agent_failed(r, res, "map", e ? e : -err);
		if (!e)
			cf_text(res->reason, "the peer's RDS_CMSG_RDMA_MAP failed: %s", strerror(err));
		return -1;
	}
	e = msg_to(r, x, m);
	if (e <= 0) {
		res->verdict = CF_ERROR;
		cf_text(res->reason, "the message that maps the region did not come (%s)",
			e < 0 ? x->c->why : "timeout");
		return -1;
	}
	/* Acknowledge it (a ping carries h_ack) as a kernel peer soon does:
	 * until then the message holds a reference to the region, and
	 * RDS_FREE_MR releases nothing (rdma.c __rds_put_mr_final). */
	{
		struct cf_ibmsg p;

		(void)cf_ib_ping(x->c, cf_port(r), &p, r->wait_ms);
	}
	return 0;
}

/* The region's content after writes: base fill, and |n| bytes of fill
 * |wseed| at |off| (the region, then the rest of its page). */
static void expect(uint8_t *buf, size_t total, uint32_t seed, uint32_t off, uint32_t n,
		   uint32_t wseed)
{
	cf_region_fill(buf, REG_LEN, seed);
	cf_region_fill(buf + REG_LEN, (uint32_t)(total - REG_LEN), seed + 1);
	if (n)
		cf_region_fill(buf + off, n, wseed);
}

/* Bytes the region and the rest of its page take. */
static size_t reg_total(void)
{
	return (CF_REGION_OFF + REG_LEN + CF_PAGE - 1) / CF_PAGE * CF_PAGE - CF_REGION_OFF;
}

/* Does the peer's region hold base |seed| with |n| bytes of |wseed| at
 * |off|? Return: 1 yes, 0 no, -1 the agent failed (res set). */
static int region_is(struct cf_run *r, struct cf_result *res, struct rx *x, uint64_t cookie,
		     uint32_t seed, uint32_t off, uint32_t n, uint32_t wseed)
{
	uint8_t buf[CF_PAGE];
	size_t total = reg_total();
	uint64_t h, t;
	int e = cf_agent_region(r->agent, x->a, cookie, &h, &t);

	if (e) {
		cf_agent_failed(r, res, "region", e);
		return -1;
	}
	expect(buf, total, seed, off, n, wseed);
	return h == cf_region_hash(buf, REG_LEN) &&
	       t == cf_region_hash(buf + REG_LEN, total - REG_LEN);
}

/* The message an RDMA rides on, as a kernel sends it after the op: an
 * RDMA exthdr with the r_key (rds_ib_xmit_rdma, send.c). Its pong says
 * the peer has processed it. */
static int carry(struct cf_run *r, struct rx *x, uint32_t rkey)
{
	uint8_t pay[32];
	struct wire_hdr h;
	struct wire_ext e = { .type = WIRE_EXT_RDMA, .u.rdma_rkey = rkey };
	struct cf_ibmsg m;
	int err;

	cf_idx_payload(pay, sizeof(pay), rkey);
	wire_build_data(&h, r->tx_seq++, x->q, x->a, sizeof(pay));
	(void)wire_ext_add(h.ext, &e, WIRE_KVER_6);
	cf_ib_fix(x->c, &h);
	err = cf_ib_send_msg(x->c, &h, pay, sizeof(pay));
	if (err)
		return err;
	return cf_ib_ping(x->c, cf_port(r), &m, r->wait_ms) == 1 ? 0 : -EPIPE;
}

/* An RDMA WRITE of |n| bytes of |wseed| at |raddr| of the peer's region
 * (zero-based: its cookie's offset is added, rds_cmsg_rdma_args), under
 * |rkey|, and its carrying message when it was taken. Return: as
 * cf_ib_rdma. */
static int write_at(struct cf_run *r, struct rx *x, uint64_t cookie, uint32_t rkey,
		    uint64_t raddr, uint32_t n, uint32_t wseed)
{
	int e = cf_ib_rdma(x->c, true, rkey, raddr + rdsu_cookie_offset(cookie), n, wseed);

	if (!e)
		(void)carry(r, x, rkey);
	return e;
}

CASE(case_rdma_dest)
{
	struct rx x;
	struct cf_ibmsg m;
	struct wire_ext e;
	uint64_t cookie;

	cf_text(res->expected, "a message the peer sends with RDS_CMSG_RDMA_MAP carries RDMA_DEST "
		"{r_key, offset}: the cookie its application got, offset %u (the region's place in "
		"its page)", CF_REGION_OFF % CF_PAGE);
	if (rx_open(r, res, &x) || peer_map(r, res, &x, 0, 11, &cookie, &m))
		goto out;
	if (!ext_of(&m.h, WIRE_EXT_RDMA_DEST, &e))
		cf_set(res, CF_FAIL, "the message (seq %llu) carries no RDMA_DEST",
		       (unsigned long long)m.h.seq);
	else if (rdsu_cookie_make(e.u.rdma_dest.rkey, e.u.rdma_dest.offset) != cookie)
		cf_set(res, CF_FAIL, "RDMA_DEST {r_key 0x%08x, offset %u}, the application's cookie "
		       "0x%016llx", e.u.rdma_dest.rkey, e.u.rdma_dest.offset,
		       (unsigned long long)cookie);
	else if (e.u.rdma_dest.offset != CF_REGION_OFF % CF_PAGE)
		cf_set(res, CF_FAIL, "RDMA_DEST {r_key 0x%08x, offset %u}: not the region's offset in "
		       "its page", e.u.rdma_dest.rkey, e.u.rdma_dest.offset);
	else
		cf_set(res, CF_PASS, "RDMA_DEST {r_key 0x%08x, offset %u} = the cookie 0x%016llx",
		       e.u.rdma_dest.rkey, e.u.rdma_dest.offset, (unsigned long long)cookie);
out:
	rx_close(r, &x);
}

CASE(case_rdma_write)
{
	struct rx x;
	struct cf_ibmsg m;
	uint64_t cookie;
	int e, ok;

	cf_text(res->expected, "an RDMA WRITE of 512 bytes at byte 100 of the region (plus the "
		"cookie's offset) under its r_key is taken and lands there, nothing around it "
		"changes");
	if (rx_open(r, res, &x) || peer_map(r, res, &x, 0, 21, &cookie, &m))
		goto out;
	e = write_at(r, &x, cookie, rdsu_cookie_rkey(cookie), 100, 512, 22);
	if (e) {
		cf_set(res, CF_FAIL, "the RDMA WRITE was not taken: %s", e == -EREMOTEIO ?
		       x.c->why : strerror(-e));
		goto out;
	}
	ok = region_is(r, res, &x, cookie, 21, 100, 512, 22);
	if (ok == 1)
		cf_set(res, CF_PASS, "512 bytes landed at byte 100 of the region (r_key 0x%08x, "
		       "offset %u)", rdsu_cookie_rkey(cookie), rdsu_cookie_offset(cookie));
	else if (ok == 0)
		cf_set(res, CF_FAIL, "taken, but the region does not hold the bytes at byte 100, or "
		       "bytes around it changed");
out:
	rx_close(r, &x);
}

CASE(case_rdma_rkey)
{
	struct rx x;
	struct cf_ibmsg m;
	uint64_t cookie;
	uint32_t bad;
	char why[160];
	int e;

	cf_text(res->expected, "an RDMA WRITE under an r_key the peer never gave is refused "
		"(remote access error) and nothing lands");
	if (rx_open(r, res, &x) || peer_map(r, res, &x, 0, 31, &cookie, &m))
		goto out;
	/* the same MR index, another key byte: never a valid key */
	bad = rdsu_cookie_rkey(cookie) ^ 0x5a;
	e = write_at(r, &x, cookie, bad, 0, 256, 32);
	snprintf(why, sizeof(why), "%s", x.c->why);
	if (e == -EREMOTEIO) {
		int same = region_is(r, res, &x, cookie, 31, 0, 0, 0);

		if (same == 1)
			cf_set(res, CF_PASS, "r_key 0x%08x refused (%s); the region unchanged", bad,
			       why);
		else if (same == 0)
			cf_set(res, CF_FAIL, "r_key 0x%08x refused, but the region changed", bad);
	} else if (e == 0) {
		cf_set(res, CF_FAIL, "an RDMA WRITE under r_key 0x%08x (the region's is 0x%08x) was "
		       "taken", bad, rdsu_cookie_rkey(cookie));
	} else {
		cf_set(res, CF_ERROR, "no answer to the RDMA WRITE");
		cf_text(res->reason, "%s", strerror(-e));
	}
out:
	rx_close(r, &x);
}

/* A write that should be refused: "refused", "landed" or why neither. */
static const char *outcome(int e)
{
	return e == -EREMOTEIO ? "refused" : e == 0 ? "taken" : strerror(-e);
}

CASE(case_rdma_range)
{
	struct rx x;
	struct cf_ibmsg m;
	uint64_t cookie, far = reg_total();
	uint32_t rkey;
	int in_page, past;

	cf_text(res->expected, "an RDMA WRITE past the region's %u bytes is refused: just past "
		"its end, and past its last page", REG_LEN);
	if (rx_open(r, res, &x) || peer_map(r, res, &x, 0, 41, &cookie, &m))
		goto out;
	rkey = rdsu_cookie_rkey(cookie);
	in_page = write_at(r, &x, cookie, rkey, REG_LEN, 64, 42);
	if (in_page == -EREMOTEIO && rx_again(r, res, &x))
		goto out;
	past = write_at(r, &x, cookie, rkey, far, 64, 43);
	if (in_page != 0 && in_page != -EREMOTEIO) {
		cf_set(res, CF_ERROR, "no answer to the RDMA WRITE past the region");
		cf_text(res->reason, "%s", strerror(-in_page));
	} else if (past == 0) {
		cf_set(res, CF_FAIL, "an RDMA WRITE at byte %llu, past the region's last page, was "
		       "taken", (unsigned long long)far);
	} else if (past != -EREMOTEIO) {
		cf_set(res, CF_ERROR, "no answer to the RDMA WRITE past the last page");
		cf_text(res->reason, "%s", strerror(-past));
	} else if (in_page == 0) {
		cf_set(res, CF_NON_STRICT, "past the last page refused; at byte %u (past the region, "
		       "inside its last page) taken, and the bytes landed outside the region",
		       REG_LEN);
		cf_text(res->reason, "as the kernels over Soft-RoCE: the FRMR maps the region's "
			"whole pages (ib_frmr.c rds_ib_map_frmr, ib_map_mr_sg_zbva with PAGE_SIZE; "
			KBR ")");
	} else {
		cf_set(res, CF_PASS, "refused just past the region and past its last page");
	}
out:
	rx_close(r, &x);
}

CASE(case_rdma_freed)
{
	struct rx x;
	struct cf_ibmsg m;
	uint64_t ck[2];
	int err[2], e[2] = { 0, 0 }, landed;

	cf_text(res->expected, "RDS_FREE_MR answers 0, and the freed region takes no RDMA %d ms "
		"later: freed plainly, and freed with RDS_RDMA_INVALIDATE", FREE_SETTLE_MS);
	if (rx_open(r, res, &x))
		goto out;
	for (int i = 0; i < 2; i++) {
		if (peer_map(r, res, &x, 0, 51 + 10 * (uint32_t)i, &ck[i], &m))
			goto out;
		if (cf_agent_free_mr(r->agent, x.a, ck[i], i ? RDSU_RDMA_INVALIDATE : 0, &err[i])) {
			cf_agent_failed(r, res, "free_mr", -EREMOTEIO);
			goto out;
		}
		if (err[i]) {
			cf_set(res, CF_FAIL, "RDS_FREE_MR%s of a mapped cookie: %s",
			       i ? " with INVALIDATE" : "", strerror(err[i]));
			goto out;
		}
		/* a margin for a peer that invalidates after the call
		 * returns (the kernel waits for its LOCAL_INV: ib_frmr.c
		 * rds_ib_post_inv) */
		usleep(FREE_SETTLE_MS * 1000);
		e[i] = write_at(r, &x, ck[i], rdsu_cookie_rkey(ck[i]), 0, 256, 52 + 10 * (uint32_t)i);
		if (e[i] == -EREMOTEIO && i == 0 && rx_again(r, res, &x))
			goto out;
	}
	landed = e[0] == 0 ? region_is(r, res, &x, ck[0], 51, 0, 256, 52) : 0;
	if (landed < 0)
		goto out;
	if ((e[0] && e[0] != -EREMOTEIO) || (e[1] && e[1] != -EREMOTEIO)) {
		cf_set(res, CF_ERROR, "no answer to an RDMA WRITE into a freed region");
		cf_text(res->reason, "%s", strerror(-(e[0] && e[0] != -EREMOTEIO ? e[0] : e[1])));
	} else if (e[1] == 0) {
		cf_set(res, CF_FAIL, "a region freed with INVALIDATE took an RDMA WRITE (freed "
		       "plainly: %s)", outcome(e[0]));
	} else if (e[0] == 0) {
		cf_set(res, CF_NON_STRICT, "freed with INVALIDATE: refused; freed plainly: taken, "
		       "and the bytes %s", landed == 1 ? "landed" : "did not land");
		cf_text(res->reason, "as the kernels over Soft-RoCE: RDS_FREE_MR without INVALIDATE "
			"returns the FRMR to its pool without a LOCAL_INV, r_key valid (rdma.c "
			"rds_free_mr, ib_rdma.c rds_ib_free_mr; only INVALIDATE's flush posts one, "
			"ib_frmr.c rds_ib_post_inv; " KBR ")");
	} else {
		cf_set(res, CF_PASS, "freed plainly and with INVALIDATE: both refused");
	}
out:
	rx_close(r, &x);
}

CASE(case_rdma_once)
{
	int e1, e2, ferr = 0, landed;
	struct cf_ibmsg m;
	uint64_t cookie;
	uint32_t rkey;
	struct rx x;

	cf_text(res->expected, "a USE_ONCE region takes one RDMA: the first WRITE is taken, its "
		"message takes the region out of the socket's table (RDS_FREE_MR then EINVAL), "
		"a second WRITE is refused");
	if (rx_open(r, res, &x) || peer_map(r, res, &x, RDSU_RDMA_USE_ONCE, 61, &cookie, &m))
		goto out;
	rkey = rdsu_cookie_rkey(cookie);
	/* both at byte 1024: the second's bytes replace the first's if taken */
	e1 = write_at(r, &x, cookie, rkey, 1024, 128, 62);
	if (e1) {
		cf_set(res, CF_FAIL, "the first RDMA WRITE into a USE_ONCE region: %s", outcome(e1));
		goto out;
	}
	if (cf_agent_free_mr(r->agent, x.a, cookie, 0, &ferr)) {
		cf_agent_failed(r, res, "free_mr", -EREMOTEIO);
		goto out;
	}
	e2 = write_at(r, &x, cookie, rkey, 1024, 128, 63);
	landed = region_is(r, res, &x, cookie, 61, 1024, 128, 63);
	if (landed < 0)
		goto out;
	if (ferr != EINVAL)
		cf_set(res, CF_FAIL, "after the first RDMA's message RDS_FREE_MR answered %s, not "
		       "EINVAL: the region stayed the socket's", ferr ? strerror(ferr) : "0");
	else if (e2 == 0)
		cf_set(res, CF_NON_STRICT, "first WRITE taken, RDS_FREE_MR then EINVAL, but a second "
		       "WRITE was taken too (bytes %s)", landed == 1 ? "landed" : "did not land");
	else if (e2 == -EREMOTEIO)
		cf_set(res, CF_PASS, "first WRITE taken, RDS_FREE_MR then EINVAL, second refused");
	else {
		cf_set(res, CF_ERROR, "no answer to the second RDMA WRITE");
		cf_text(res->reason, "%s", strerror(-e2));
	}
	if (res->verdict == CF_NON_STRICT)
		cf_text(res->reason, "as the kernels over Soft-RoCE: rds_rdma_unuse (rdma.c) "
			"releases a USE_ONCE region mapped without INVALIDATE with no LOCAL_INV "
			"(ib_rdma.c rds_ib_free_mr, invalidate 0), so its r_key stays valid (" KBR
			")");
out:
	rx_close(r, &x);
}

/* ---- the peer runs the RDMA against us: its notifications ---- */

#define TOK(n) (0x7e57000000000000ull | (n))

/* rx_open, and memory of ours for the peer (filled |seed|) under *rkey.
 * Return: 0; -1 with res set. */
static int rx_expose(struct cf_run *r, struct cf_result *res, struct rx *x, uint32_t seed,
		     uint32_t *rkey)
{
	if (rx_open(r, res, x))
		return -1;
	if (!cf_ib_expose(x->c, seed, rkey))
		return 0;
	cf_set(res, CF_ERROR, "our memory could not be registered");
	cf_text(res->reason, "ibv_reg_mr failed");
	return -1;
}

/* The notifications the agent reports within the wait for |want|, and
 * then 300 ms more (a second one for an op would come then). Return:
 * how many; -1 with res set. */
static long notes(struct cf_run *r, struct cf_result *res, struct rx *x, uint32_t want,
		  struct rdsu_notify *n, size_t cap)
{
	size_t got = 0, more = 0;
	int e = cf_agent_notes(r->agent, x->a, want, (uint32_t)r->wait_ms, n, cap, &got);

	if (!e && got <= cap)
		e = cf_agent_notes(r->agent, x->a, 1000, 300, n + got, cap - got, &more);
	if (e) {
		cf_agent_failed(r, res, "notes", e);
		return -1;
	}
	return (long)(got + more);
}

static unsigned count_tok(const struct rdsu_notify *n, long k, uint64_t tok, int *status)
{
	unsigned c = 0;

	for (long i = 0; i < k; i++)
		if (n[i].user_token == tok) {
			c++;
			*status = n[i].status;
		}
	return c;
}

static const char *st_name(int s)
{
	const char *n = wire_tok_name(wire_rdma_status_toks, (uint32_t)s);

	return n ? n : "unknown";
}

/* Messages from the peer to |q| that carry RDMA {rkey}. */
static unsigned carried(struct cf_run *r, struct rx *x, uint32_t rkey)
{
	unsigned n = 0;
	struct wire_ext e;

	(void)cf_ib_drain(x->c, 200);
	(void)r;
	for (size_t i = 0; i < x->c->n_msgs; i++)
		if (x->c->msgs[i].h.dport == x->q && ext_of(&x->c->msgs[i].h, WIRE_EXT_RDMA, &e) &&
		    e.u.rdma_rkey == rkey)
			n++;
	return n;
}

CASE(case_rdma_notify)
{
	struct rdsu_notify n[16];
	struct rx x;
	uint32_t rkey;
	int err[3] = { 0, 0, 0 }, st[3] = { -1, -1, -1 };
	unsigned c[3];
	long k;
	uint8_t want[1000];

	cf_text(res->expected, "a WRITE with NOTIFY_ME and a READ with NOTIFY_ME into our memory "
		"are each notified exactly once, SUCCESS, with their user tokens; a WRITE without "
		"NOTIFY_ME not at all; the bytes land and each op's message carries RDMA {r_key}");
	if (rx_expose(r, res, &x, 71, &rkey))
		goto out;
	{
		const struct { uint32_t flags, off, len, seed; } op[3] = {
			{ RDSU_RDMA_READWRITE | RDSU_RDMA_NOTIFY_ME, 64, 1000, 72 },
			{ RDSU_RDMA_READWRITE, 4096, 500, 73 },
			{ RDSU_RDMA_NOTIFY_ME, 8192, 512, 74 },
		};

		for (int i = 0; i < 3; i++)
			if (cf_agent_rdma(r->agent, x.a, &r->cfg->local, x.q,
					  rdsu_cookie_make(rkey, 0), op[i].off, op[i].len,
					  op[i].flags, TOK((unsigned)i + 1), op[i].seed, &err[i])) {
				cf_agent_failed(r, res, "rdma", -EREMOTEIO);
				goto out;
			}
	}
	for (int i = 0; i < 3; i++)
		if (err[i]) {
			cf_set(res, CF_FAIL, "the peer's sendmsg of op %d answered %s", i + 1,
			       strerror(err[i]));
			goto out;
		}
	k = notes(r, res, &x, 2, n, 16);
	if (k < 0)
		goto out;
	for (int i = 0; i < 3; i++)
		c[i] = count_tok(n, k, TOK((unsigned)i + 1), &st[i]);
	cf_region_fill(want, sizeof(want), 72);
	if (c[0] != 1 || c[2] != 1 || c[1] != 0 || k != 2)
		cf_set(res, CF_FAIL, "%ld notifications: %u for the notified WRITE, %u for the READ, "
		       "%u for the WRITE without NOTIFY_ME", k, c[0], c[2], c[1]);
	else if (st[0] != RDSU_RDMA_SUCCESS || st[2] != RDSU_RDMA_SUCCESS)
		cf_set(res, CF_FAIL, "WRITE notified %s, READ %s", st_name(st[0]), st_name(st[2]));
	else if (memcmp(cf_ib_exposed(x.c) + 64, want, sizeof(want)))
		cf_set(res, CF_FAIL, "notified SUCCESS, but the WRITE's bytes are not in our memory");
	else if (carried(r, &x, rkey) != 3)
		cf_set(res, CF_FAIL, "notified SUCCESS, but %u of the 3 messages carried RDMA {r_key "
		       "0x%08x}", carried(r, &x, rkey), rkey);
	else
		cf_set(res, CF_PASS, "WRITE and READ each notified once, SUCCESS, with their tokens; "
		       "none for the WRITE without NOTIFY_ME; bytes landed; 3 messages with RDMA "
		       "{0x%08x}", rkey);
out:
	rx_close(r, &x);
}

CASE(case_rdma_notify_fail)
{
	struct rdsu_notify n[16];
	int err = 0, st = -1;
	uint32_t rkey;
	struct rx x;
	long k;

	cf_text(res->expected, "a WRITE with NOTIFY_ME that our HCA refuses (an r_key we never "
		"gave) is notified exactly once, with its token and a failure status: "
		"REMOTE_ERROR, or DROPPED when the connection's teardown gets to it first");
	if (rx_expose(r, res, &x, 81, &rkey))
		goto out;
	if (cf_agent_rdma(r->agent, x.a, &r->cfg->local, x.q, rdsu_cookie_make(rkey ^ 0x5a, 0), 0,
			  256, RDSU_RDMA_READWRITE | RDSU_RDMA_NOTIFY_ME, TOK(9), 82, &err)) {
		cf_agent_failed(r, res, "rdma", -EREMOTEIO);
		goto out;
	}
	if (err) {
		cf_set(res, CF_FAIL, "the peer's sendmsg answered %s", strerror(err));
		goto out;
	}
	k = notes(r, res, &x, 1, n, 16);
	if (k < 0)
		goto out;
	if (count_tok(n, k, TOK(9), &st) != 1 || k != 1)
		cf_set(res, CF_FAIL, "%ld notifications, %u with the op's token", k,
		       count_tok(n, k, TOK(9), &st));
	else if (st == RDSU_RDMA_REMOTE_ERROR || st == RDSU_RDMA_DROPPED)
		cf_set(res, CF_PASS, "one notification with the token, %s", st_name(st));
	else
		cf_set(res, CF_FAIL, "one notification with the token, %s", st_name(st));
out:
	rx_close(r, &x);
}
