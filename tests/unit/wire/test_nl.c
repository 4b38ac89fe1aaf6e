// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_nl.c - RDMA netlink local-service codec: known answers built the way
 * sa_query.c and addr.c build them, every rule, truncation, round trips. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "cmain.h"

#include <wire/wire.h>

#include "wtest.h"

/*
 * The vectors are little-endian: netlink headers and the cpu-order
 * attributes (TIMEOUT, SERVICE_ID, PKEY, QOS_CLASS, path flags) are written
 * the way an x86 or arm64 kernel stores them. On a big-endian host the
 * known-answer tests skip; the built-in-memory ones still run.
 */
static bool host_le(void)
{
	const uint16_t one = 1;

	return *(const uint8_t *)&one == 1;
}

#define NEED_LE() do { if (!host_le()) skip(); } while (0)

/*
 * RESOLVE request as ib_nl_make_request() sends it for an rdma_cm route
 * query on mlx5_0 port 1 (RDS, port 18634): nlmsghdr with NLM_F_REQUEST and
 * portid 0, the family header padded to NLMSG_ALIGN(66) = 68, then the six
 * attributes of ib_nl_set_path_rec_attrs(), each with RDMA_NLA_F_MANDATORY.
 */
static const char resolve_req[] =
	"a0 00 00 00  00 10  01 00  07 00 00 00  00 00 00 00\n" /* len 160, LS<<10|RESOLVE, REQUEST, seq 7, pid 0 */
	"6d 6c 78 35 5f 30 00 00 00 00 00 00 00 00 00 00\n"     /* device_name "mlx5_0" */
	"00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n"
	"00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n"
	"00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n"
	"01 00 00 00\n"                                       /* port 1, path_use ALL, pad */
	"0c 00 03 20  ca 48 06 01 00 00 00 00\n"              /* SERVICE_ID|M 0x10648ca (cpu) */
	"14 00 04 20  fe 80 00 00 00 00 00 00 00 02 c9 03 00 a1 b2 c3\n" /* DGID|M */
	"14 00 05 20  fe 80 00 00 00 00 00 00 00 02 c9 03 00 a1 b2 c4\n" /* SGID|M */
	"05 00 06 20  00 00 00 00\n"                          /* TCLASS|M 0 + pad */
	"06 00 07 20  ff ff 00 00\n"                          /* PKEY|M 0xffff + pad */
	"06 00 08 20  00 00 00 00\n";                         /* QOS_CLASS|M 0 + pad */

/* The packed (big-endian) SA PathRecord the three responses below carry,
 * with dlid/slid varied: service id, dgid, sgid, dlid, slid, flow/hop,
 * tclass, reversible|numb_path, pkey, qos|sl, mtu, rate, life, pref, rsvd. */
#define PATH_REC(dlid, slid) \
	"00 00 00 00 01 06 48 ca\n" \
	"fe 80 00 00 00 00 00 00 00 02 c9 03 00 a1 b2 c3\n" \
	"fe 80 00 00 00 00 00 00 00 02 c9 03 00 a1 b2 c4\n" \
	dlid " " slid " 00 00 00 00  00 81 ff ff  00 00 84 87 92 00\n" \
	"00 00 00 00 00 00\n"

/* ibacm answering path use ALL: three PATH_RECORDs (primary outbound,
 * primary inbound, primary inbound-reverse), no NLM_F_REQUEST. */
static const char resolve_resp[] =
	"f4 00 00 00  00 10  00 00  07 00 00 00  34 12 00 00\n" /* len 244, seq 7, pid 0x1234 */
	"4c 00 01 00  0a 00 00 00  00 00 00 00\n"             /* PATH_RECORD, PRIMARY|OUTBOUND */
	PATH_REC("00 05", "00 03")
	"4c 00 01 00  12 00 00 00  00 00 00 00\n"             /* PRIMARY|INBOUND */
	PATH_REC("00 03", "00 05")
	"4c 00 01 00  22 00 00 00  00 00 00 00\n"             /* PRIMARY|INBOUND_REVERSE */
	PATH_REC("00 05", "00 07");

static const char err_resp[] =
	"10 00 00 00  00 10  00 01  07 00 00 00  34 12 00 00\n"; /* RDMA_NL_LS_F_ERR */

static const char set_timeout[] =
	"18 00 00 00  01 10  01 00  01 00 00 00  34 12 00 00\n" /* LS<<10|SET_TIMEOUT, REQUEST */
	"08 00 02 00  88 13 00 00\n";                         /* TIMEOUT 5000 ms */

/* ib_nl_ip_send_msg(): ifindex family header, IPV4|M or IPV6|M. */
static const char ip_req_v4[] =
	"1c 00 00 00  02 10  01 00  09 00 00 00  00 00 00 00\n"
	"03 00 00 00\n"                                       /* ifindex 3 */
	"08 00 09 20  c0 a8 01 02\n";                         /* IPV4|M 192.168.1.2 */

static const char ip_req_v6[] =
	"28 00 00 00  02 10  01 00  0a 00 00 00  00 00 00 00\n"
	"03 00 00 00\n"
	"14 00 0a 20  20 01 0d b8 00 00 00 00 00 00 00 00 00 00 00 02\n"; /* IPV6|M */

static const char ip_resp[] =
	"24 00 00 00  02 10  00 00  09 00 00 00  34 12 00 00\n"
	"14 00 04 00  fe 80 00 00 00 00 00 00 00 02 c9 03 00 a1 b2 c3\n"; /* DGID */

static const uint8_t gid_c3[16] = { 0xfe, 0x80, [8] = 0x00, 0x02, 0xc9, 0x03,
				     0x00, 0xa1, 0xb2, 0xc3 };
static const uint8_t gid_c4[16] = { 0xfe, 0x80, [8] = 0x00, 0x02, 0xc9, 0x03,
				     0x00, 0xa1, 0xb2, 0xc4 };

static size_t vec(const char *hex, uint8_t *out, size_t cap)
{
	return hex_decode(hex, out, cap);
}

/* Decode from an exact-size heap copy, so ASan sees any read past |n|. */
static ssize_t decode_exact(struct wire_nl_ls *m, const uint8_t *b, size_t n)
{
	uint8_t *c = malloc(n ? n : 1);
	ssize_t r;

	assert_non_null(c);
	if (n)
		memcpy(c, b, n);
	r = wire_nl_decode(m, n ? c : NULL, n);
	free(c);
	return r;
}

/* Independent little builder (not the encoder under test), host order. */
struct bld {
	uint8_t b[8192];
	size_t n;
};

static void bld_hdr(struct bld *x, uint16_t type, uint16_t flags, uint32_t seq)
{
	uint32_t zero = 0;

	memset(x, 0, sizeof(*x));
	memcpy(x->b + 4, &type, 2);
	memcpy(x->b + 6, &flags, 2);
	memcpy(x->b + 8, &seq, 4);
	memcpy(x->b + 12, &zero, 4);
	x->n = 16;
}

static void bld_raw(struct bld *x, const void *d, size_t n)
{
	memcpy(x->b + x->n, d, n);
	x->n += n;
}

static void bld_attr(struct bld *x, uint16_t type, const void *d, uint16_t n)
{
	uint16_t l = (uint16_t)(4 + n);

	memcpy(x->b + x->n, &l, 2);
	memcpy(x->b + x->n + 2, &type, 2);
	if (n)
		memcpy(x->b + x->n + 4, d, n);
	x->n += (4u + n + 3u) & ~3u;
}

static void bld_end(struct bld *x)
{
	uint32_t l = (uint32_t)x->n;

	memcpy(x->b, &l, 4);
}

/* The message built so far, finished and decoded into |m|. */
static ssize_t bld_decode(struct bld *x, struct wire_nl_ls *m)
{
	bld_end(x);
	return decode_exact(m, x->b, x->n);
}

#define T_LS(op) ((uint16_t)(WIRE_NL_CLIENT_LS << 10 | (op)))

static void assert_rules_only(const struct wire_rules *r, enum wire_rule a,
			      enum wire_rule b)
{
	size_t want = (a != WIRE_RULE_NONE) + (b != WIRE_RULE_NONE);

	if (a != WIRE_RULE_NONE)
		assert_true(wire_rules_has(r, a));
	if (b != WIRE_RULE_NONE)
		assert_true(wire_rules_has(r, b));
	assert_int_equal(wire_rules_count(r), want);
}

/* Every decoded field except nl_len (computed by the encoder) and rules. */
static void assert_nl_equal(const struct wire_nl_ls *a, const struct wire_nl_ls *b)
{
	unsigned i;

	assert_int_equal(a->nl_type, b->nl_type);
	assert_int_equal(a->nl_flags, b->nl_flags);
	assert_int_equal(a->nl_seq, b->nl_seq);
	assert_int_equal(a->nl_pid, b->nl_pid);
	assert_int_equal(a->client, b->client);
	assert_int_equal(a->op, b->op);
	assert_int_equal(a->is_request, b->is_request);
	assert_int_equal(a->is_err, b->is_err);
	assert_int_equal(a->has_resolve_hdr, b->has_resolve_hdr);
	assert_memory_equal(a->device_name, b->device_name, sizeof(a->device_name));
	assert_int_equal(a->port_num, b->port_num);
	assert_int_equal(a->path_use, b->path_use);
	assert_memory_equal(a->resolve_pad, b->resolve_pad, sizeof(a->resolve_pad));
	assert_int_equal(a->has_ip_resolve_hdr, b->has_ip_resolve_hdr);
	assert_int_equal(a->ifindex, b->ifindex);
	assert_memory_equal(a->present, b->present, sizeof(a->present));
	assert_memory_equal(a->mandatory, b->mandatory, sizeof(a->mandatory));
	assert_int_equal(a->timeout, b->timeout);
	assert_true(a->service_id == b->service_id);
	assert_memory_equal(a->dgid, b->dgid, 16);
	assert_memory_equal(a->sgid, b->sgid, 16);
	assert_int_equal(a->tclass, b->tclass);
	assert_int_equal(a->pkey, b->pkey);
	assert_int_equal(a->qos_class, b->qos_class);
	assert_memory_equal(a->ipv4, b->ipv4, 4);
	assert_memory_equal(a->ipv6, b->ipv6, 16);
	assert_int_equal(a->npaths, b->npaths);
	for (i = 0; i < a->npaths; i++) {
		assert_int_equal(a->paths[i].flags, b->paths[i].flags);
		assert_int_equal(a->paths[i].reserved, b->paths[i].reserved);
		assert_memory_equal(a->paths[i].rec, b->paths[i].rec, 64);
	}
}

/* encode(decode(bytes)) == bytes, and decode(encode(m)) == m. */
static void assert_reencodes(const struct wire_nl_ls *m, const uint8_t *in, size_t n)
{
	uint8_t out[WIRE_NL_MSG_MAX + 16];
	struct wire_nl_ls again;

	memset(out, 0xee, sizeof(out));
	assert_int_equal(wire_nl_encode(m, out, sizeof(out)), n);
	assert_memory_equal(out, in, n);
	assert_int_equal(out[n], 0xee);
	assert_int_equal(wire_nl_decode(&again, out, n), n);
	assert_nl_equal(m, &again);
	assert_int_equal(again.nl_len, n);
}

/* A known-answer vector and what it decodes to. */
struct kat {
	uint8_t in[512];
	size_t n;
	struct wire_nl_ls m;
};

/* The vector |hex| is one message of |len| bytes: it decodes whole, breaks
 * no rule and encodes back to itself. */
static void kat_decode(struct kat *k, const char *hex, size_t len)
{
	NEED_LE();
	k->n = vec(hex, k->in, sizeof(k->in));
	assert_int_equal(k->n, len);
	assert_int_equal(wire_nl_decode(&k->m, k->in, k->n), (ssize_t)len);
	assert_true(wire_rules_empty(&k->m.rules));
	assert_reencodes(&k->m, k->in, k->n);
}

static void test_nl_resolve_request(void **state)
{
	struct kat k;

	(void)state;
	kat_decode(&k, resolve_req, 160);
	assert_int_equal(k.m.nl_len, 160);
	assert_int_equal(k.m.nl_type, 0x1000);
	assert_int_equal(k.m.client, WIRE_NL_CLIENT_LS);
	assert_int_equal(k.m.op, WIRE_NL_LS_OP_RESOLVE);
	assert_true(k.m.is_request);
	assert_false(k.m.is_err);
	assert_int_equal(k.m.nl_seq, 7);
	assert_int_equal(k.m.nl_pid, 0);
	assert_true(k.m.has_resolve_hdr);
	assert_false(k.m.has_ip_resolve_hdr);
	assert_string_equal(k.m.device_name, "mlx5_0");
	assert_int_equal(k.m.port_num, 1);
	assert_int_equal(k.m.path_use, 0);
	assert_true(k.m.present[WIRE_NL_LS_SERVICE_ID]);
	assert_true(k.m.service_id == 0x10648caull);
	assert_memory_equal(k.m.dgid, gid_c3, 16);
	assert_memory_equal(k.m.sgid, gid_c4, 16);
	assert_int_equal(k.m.tclass, 0);
	assert_int_equal(k.m.pkey, 0xffff);
	assert_int_equal(k.m.qos_class, 0);
	for (unsigned t = WIRE_NL_LS_SERVICE_ID; t <= WIRE_NL_LS_QOS_CLASS; t++) {
		assert_true(k.m.present[t]);
		assert_true(k.m.mandatory[t]);
	}
	assert_false(k.m.present[WIRE_NL_LS_PATH_RECORD]);
	assert_false(k.m.present[WIRE_NL_LS_TIMEOUT]);
	assert_false(k.m.present[WIRE_NL_LS_IPV4]);
	assert_int_equal(k.m.npaths, 0);
}

static void test_nl_resolve_response_paths(void **state)
{
	struct kat k;

	(void)state;
	kat_decode(&k, resolve_resp, 244);
	assert_false(k.m.is_request);
	assert_false(k.m.has_resolve_hdr);
	assert_int_equal(k.m.nl_pid, 0x1234);
	assert_true(k.m.present[WIRE_NL_LS_PATH_RECORD]);
	assert_false(k.m.mandatory[WIRE_NL_LS_PATH_RECORD]);
	assert_int_equal(k.m.npaths, 3);
	assert_int_equal(k.m.paths[0].flags, 0x0a);
	assert_int_equal(k.m.paths[1].flags, 0x12);
	assert_int_equal(k.m.paths[2].flags, 0x22);
	assert_int_equal(k.m.paths[0].reserved, 0);
	assert_memory_equal(k.m.paths[0].rec, k.in + 28, 64);
	assert_memory_equal(k.m.paths[1].rec + 8, gid_c3, 16);
	assert_int_equal(k.m.paths[2].rec[40], 0x00);
	assert_int_equal(k.m.paths[2].rec[43], 0x07);        /* slid 7 */
	assert_int_equal(k.m.paths[2].rec[49], 0x81);        /* reversible, 1 path */
}

static void test_nl_error_response(void **state)
{
	struct kat k;

	(void)state;
	/* An error response carries nothing by design: no nl.ls.missing. */
	kat_decode(&k, err_resp, 16);
	assert_true(k.m.is_err);
	assert_false(k.m.is_request);
	assert_int_equal(k.m.nl_flags, WIRE_NL_LS_F_ERR);
	assert_int_equal(k.m.npaths, 0);
}

static void test_nl_set_timeout(void **state)
{
	struct kat k;

	(void)state;
	kat_decode(&k, set_timeout, 24);
	assert_int_equal(k.m.op, WIRE_NL_LS_OP_SET_TIMEOUT);
	assert_true(k.m.is_request);
	/* SET_TIMEOUT has no family header even though it is a request. */
	assert_false(k.m.has_resolve_hdr);
	assert_false(k.m.has_ip_resolve_hdr);
	assert_true(k.m.present[WIRE_NL_LS_TIMEOUT]);
	assert_false(k.m.mandatory[WIRE_NL_LS_TIMEOUT]);
	assert_int_equal(k.m.timeout, 5000);
}

static void test_nl_ip_resolve(void **state)
{
	static const uint8_t v6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };
	struct kat k;

	(void)state;
	kat_decode(&k, ip_req_v4, 28);
	assert_int_equal(k.m.op, WIRE_NL_LS_OP_IP_RESOLVE);
	assert_true(k.m.has_ip_resolve_hdr);
	assert_false(k.m.has_resolve_hdr);
	assert_int_equal(k.m.ifindex, 3);
	assert_true(k.m.present[WIRE_NL_LS_IPV4]);
	assert_true(k.m.mandatory[WIRE_NL_LS_IPV4]);
	assert_memory_equal(k.m.ipv4, "\xc0\xa8\x01\x02", 4);
	assert_false(k.m.present[WIRE_NL_LS_IPV6]);

	kat_decode(&k, ip_req_v6, 40);
	assert_true(k.m.has_ip_resolve_hdr);
	assert_true(k.m.present[WIRE_NL_LS_IPV6]);
	assert_true(k.m.mandatory[WIRE_NL_LS_IPV6]);
	assert_memory_equal(k.m.ipv6, v6, 16);

	kat_decode(&k, ip_resp, 36);
	assert_false(k.m.is_request);
	assert_false(k.m.has_ip_resolve_hdr);
	assert_true(k.m.present[WIRE_NL_LS_DGID]);
	assert_false(k.m.mandatory[WIRE_NL_LS_DGID]);
	assert_memory_equal(k.m.dgid, gid_c3, 16);
}

static void test_nl_multi_message(void **state)
{
	uint8_t in[1024];
	struct wire_nl_ls m;
	size_t n = 0, off = 0;
	ssize_t r;
	int count = 0;

	(void)state;
	NEED_LE();
	n += vec(set_timeout, in + n, sizeof(in) - n);
	n += vec(resolve_resp, in + n, sizeof(in) - n);
	n += vec(err_resp, in + n, sizeof(in) - n);
	n += vec(ip_resp, in + n, sizeof(in) - n);
	while (off < n) {
		r = wire_nl_decode(&m, in + off, n - off);
		assert_true(r > 0);
		switch (count) {
		case 0:
			assert_int_equal(m.op, WIRE_NL_LS_OP_SET_TIMEOUT);
			assert_int_equal(r, 24);
			break;
		case 1:
			assert_int_equal(m.npaths, 3);
			assert_int_equal(r, 244);
			break;
		case 2:
			assert_true(m.is_err);
			break;
		case 3:
			assert_true(m.present[WIRE_NL_LS_DGID]);
			break;
		}
		off += (size_t)r;
		count++;
	}
	assert_int_equal(count, 4);
	assert_int_equal(off, n);
}

/* A last message whose nlmsg_len is not a multiple of 4 is consumed up to
 * the end of the datagram, not past it. */
static void test_nl_consumed_capped(void **state)
{
	struct wire_nl_ls m;
	struct bld x;
	uint8_t tc = 3;

	(void)state;
	bld_hdr(&x, T_LS(WIRE_NL_LS_OP_RESOLVE), 0, 1);
	bld_attr(&x, WIRE_NL_LS_TCLASS, &tc, 1);
	x.n = 21;                        /* nlmsg_len without the attr padding */
	bld_end(&x);
	assert_int_equal(decode_exact(&m, x.b, 21), 21);
	assert_true(m.present[WIRE_NL_LS_TCLASS]);
	assert_int_equal(m.tclass, 3);
	/* The same with the padding present in the datagram: NLMSG_ALIGN. */
	assert_int_equal(wire_nl_decode(&m, x.b, 24), 24);
	/* And followed by another message. */
	assert_int_equal(wire_nl_decode(&m, x.b, 40), 24);
}

static const char *const all_vectors[] = {
	resolve_req, resolve_resp, err_resp, set_timeout, ip_req_v4, ip_req_v6,
	ip_resp,
};

/*
 * Cut every vector at every byte. Shorter than the nlmsghdr is TRUNC; with
 * a header the buffer is the whole datagram, so nlmsg_len pointing past it
 * is MALFORMED nl.len. Then the same cut with nlmsg_len agreeing with it:
 * never TRUNC, never a crash, and success only on an attribute boundary.
 */
static void test_nl_truncation_every_offset(void **state)
{
	uint8_t in[512], cut[512];
	struct wire_nl_ls m;
	size_t i, n, l;
	ssize_t r;

	(void)state;
	NEED_LE();
	for (i = 0; i < sizeof(all_vectors) / sizeof(all_vectors[0]); i++) {
		n = vec(all_vectors[i], in, sizeof(in));
		for (l = 0; l < n; l++) {
			r = decode_exact(&m, in, l);
			if (l < 16) {
				assert_int_equal(r, WIRE_ERR_TRUNC);
				assert_true(wire_rules_empty(&m.rules));
				continue;
			}
			assert_int_equal(r, WIRE_ERR_MALFORMED);
			assert_rules_only(&m.rules, WIRE_RULE_NL_LEN, WIRE_RULE_NONE);

			memcpy(cut, in, l);
			cut[0] = (uint8_t)l;
			cut[1] = (uint8_t)(l >> 8);
			r = decode_exact(&m, cut, l);
			assert_true(r == WIRE_ERR_MALFORMED || r == (ssize_t)l);
			if (r < 0)
				assert_true(wire_rules_has(&m.rules, WIRE_RULE_NL_LEN) ||
					    wire_rules_has(&m.rules, WIRE_RULE_NL_ATTR_POLICY));
		}
		assert_int_equal(decode_exact(&m, in, n), n);
	}
}

static void test_nl_rule_len(void **state)
{
	struct wire_nl_ls m;
	struct bld x;
	uint32_t t = 1000;

	(void)state;
	/* nlmsg_len below the header. */
	bld_hdr(&x, T_LS(WIRE_NL_LS_OP_SET_TIMEOUT), 1, 1);
	bld_attr(&x, WIRE_NL_LS_TIMEOUT, &t, 4);
	bld_end(&x);
	x.b[0] = 15;
	assert_int_equal(decode_exact(&m, x.b, x.n), WIRE_ERR_MALFORMED);
	assert_rules_only(&m.rules, WIRE_RULE_NL_LEN, WIRE_RULE_NONE);

	/* nlmsg_len past the datagram. */
	x.b[0] = 28;
	assert_int_equal(decode_exact(&m, x.b, 24), WIRE_ERR_MALFORMED);
	assert_rules_only(&m.rules, WIRE_RULE_NL_LEN, WIRE_RULE_NONE);
	assert_int_equal(m.nl_len, 28);          /* header still reported */

	/* An attribute longer than what nlmsg_len leaves. */
	x.b[0] = 24;
	x.b[16] = 12;
	assert_int_equal(decode_exact(&m, x.b, 24), WIRE_ERR_MALFORMED);
	assert_rules_only(&m.rules, WIRE_RULE_NL_LEN, WIRE_RULE_NONE);

	/* 1..3 stray bytes after the last attribute. */
	bld_hdr(&x, T_LS(WIRE_NL_LS_OP_SET_TIMEOUT), 1, 1);
	bld_attr(&x, WIRE_NL_LS_TIMEOUT, &t, 4);
	x.n += 2;
	assert_int_equal(bld_decode(&x, &m), WIRE_ERR_MALFORMED);
	assert_rules_only(&m.rules, WIRE_RULE_NL_LEN, WIRE_RULE_NONE);

	/* A RESOLVE request too short for its 68-byte family header. */
	bld_hdr(&x, T_LS(WIRE_NL_LS_OP_RESOLVE), 1, 1);
	x.n += 66;
	assert_int_equal(bld_decode(&x, &m), WIRE_ERR_MALFORMED);
	assert_rules_only(&m.rules, WIRE_RULE_NL_LEN, WIRE_RULE_NONE);
	x.n += 2;
	assert_int_equal(bld_decode(&x, &m), 84);
	assert_true(m.has_resolve_hdr);

	/* An IP_RESOLVE request without room for ifindex. */
	bld_hdr(&x, T_LS(WIRE_NL_LS_OP_IP_RESOLVE), 1, 1);
	x.n += 2;
	assert_int_equal(bld_decode(&x, &m), WIRE_ERR_MALFORMED);
	assert_rules_only(&m.rules, WIRE_RULE_NL_LEN, WIRE_RULE_NONE);

	/* Fewer than 16 bytes at all: truncated, not malformed. */
	assert_int_equal(decode_exact(&m, x.b, 15), WIRE_ERR_TRUNC);
	assert_int_equal(decode_exact(&m, x.b, 0), WIRE_ERR_TRUNC);
}

static void test_nl_rule_policy(void **state)
{
	uint8_t gid20[20] = { 0xfe, 0x80 }, big[80] = { 0 };
	uint64_t t8 = 7000;
	uint16_t t2 = 7;
	struct wire_nl_ls m;
	struct bld x;

	(void)state;
	/* TIMEOUT of 2 bytes: below NLA_U32, libnl says -NLE_RANGE. */
	bld_hdr(&x, T_LS(WIRE_NL_LS_OP_SET_TIMEOUT), 1, 1);
	bld_attr(&x, WIRE_NL_LS_TIMEOUT, &t2, 2);
	assert_int_equal(bld_decode(&x, &m), WIRE_ERR_MALFORMED);
	assert_rules_only(&m.rules, WIRE_RULE_NL_ATTR_POLICY, WIRE_RULE_NONE);

	/* The same with the mandatory bit: still validated. */
	bld_hdr(&x, T_LS(WIRE_NL_LS_OP_SET_TIMEOUT), 1, 1);
	bld_attr(&x, WIRE_NL_LS_TIMEOUT | WIRE_NL_ATTR_MANDATORY, &t2, 2);
	assert_int_equal(bld_decode(&x, &m), WIRE_ERR_MALFORMED);
	assert_rules_only(&m.rules, WIRE_RULE_NL_ATTR_POLICY, WIRE_RULE_NONE);

	/* A GID of 20 bytes (ib_nl_policy .len = 16). */
	bld_hdr(&x, T_LS(WIRE_NL_LS_OP_IP_RESOLVE), 0, 1);
	bld_attr(&x, WIRE_NL_LS_DGID, gid20, 20);
	assert_int_equal(bld_decode(&x, &m), WIRE_ERR_MALFORMED);
	assert_rules_only(&m.rules, WIRE_RULE_NL_ATTR_POLICY, WIRE_RULE_NONE);

	/* A GID of 8 bytes (ib_nl_addr_policy minimum 16). */
	bld_hdr(&x, T_LS(WIRE_NL_LS_OP_IP_RESOLVE), 0, 1);
	bld_attr(&x, WIRE_NL_LS_DGID, gid20, 8);
	assert_int_equal(bld_decode(&x, &m), WIRE_ERR_MALFORMED);
	assert_true(wire_rules_has(&m.rules, WIRE_RULE_NL_ATTR_POLICY));

	/* PATH_RECORD of 71 and 80 bytes. */
	bld_hdr(&x, T_LS(WIRE_NL_LS_OP_RESOLVE), 0, 1);
	bld_attr(&x, WIRE_NL_LS_PATH_RECORD, big, 71);
	assert_int_equal(bld_decode(&x, &m), WIRE_ERR_MALFORMED);
	assert_true(wire_rules_has(&m.rules, WIRE_RULE_NL_ATTR_POLICY));
	bld_hdr(&x, T_LS(WIRE_NL_LS_OP_RESOLVE), 0, 1);
	bld_attr(&x, WIRE_NL_LS_PATH_RECORD, big, 80);
	assert_int_equal(bld_decode(&x, &m), WIRE_ERR_MALFORMED);

	/* IPV4 of 16 bytes. */
	bld_hdr(&x, T_LS(WIRE_NL_LS_OP_IP_RESOLVE), 1, 1);
	bld_raw(&x, "\x01\0\0\0", 4);
	bld_attr(&x, WIRE_NL_LS_IPV4, gid20, 16);
	assert_int_equal(bld_decode(&x, &m), WIRE_ERR_MALFORMED);
	assert_true(wire_rules_has(&m.rules, WIRE_RULE_NL_ATTR_POLICY));

	/* nla_len below the nlattr header. */
	bld_hdr(&x, T_LS(WIRE_NL_LS_OP_SET_TIMEOUT), 1, 1);
	bld_attr(&x, WIRE_NL_LS_TIMEOUT, &t8, 4);
	x.b[16] = 3;
	assert_int_equal(bld_decode(&x, &m), WIRE_ERR_MALFORMED);
	assert_rules_only(&m.rules, WIRE_RULE_NL_ATTR_POLICY, WIRE_RULE_NONE);

	/* TIMEOUT of 8 bytes: the kernel's liberal parse warns and reads the
	 * first four; so do we, and report it without failing. */
	bld_hdr(&x, T_LS(WIRE_NL_LS_OP_SET_TIMEOUT), 1, 1);
	bld_attr(&x, WIRE_NL_LS_TIMEOUT, &t8, 8);
	assert_int_equal(bld_decode(&x, &m), x.n);
	assert_rules_only(&m.rules, WIRE_RULE_NL_ATTR_POLICY, WIRE_RULE_NONE);
	if (host_le())
		assert_int_equal(m.timeout, 7000);
}

static void test_nl_rule_unknown_mandatory(void **state)
{
	uint32_t v = 0xdeadbeef, t = 3000;
	struct wire_nl_ls m;
	struct bld x;

	(void)state;
	/* An unknown type is skipped; the rest of the message still decodes. */
	bld_hdr(&x, T_LS(WIRE_NL_LS_OP_SET_TIMEOUT), 1, 1);
	bld_attr(&x, WIRE_NL_LS_ATTR_MAX, &v, 4);
	bld_attr(&x, WIRE_NL_LS_TIMEOUT, &t, 4);
	assert_int_equal(bld_decode(&x, &m), x.n);
	assert_rules_only(&m.rules, WIRE_RULE_NL_ATTR_UNKNOWN, WIRE_RULE_NONE);
	assert_int_equal(m.timeout, 3000);

	/* UNSPEC (0) is not an attribute either (nla_parse skips it). */
	bld_hdr(&x, T_LS(WIRE_NL_LS_OP_SET_TIMEOUT), 1, 1);
	bld_attr(&x, 0, &v, 4);
	bld_attr(&x, WIRE_NL_LS_TIMEOUT, &t, 4);
	assert_int_equal(bld_decode(&x, &m), x.n);
	assert_rules_only(&m.rules, WIRE_RULE_NL_ATTR_UNKNOWN, WIRE_RULE_NONE);
	assert_false(m.present[0]);

	/* Unknown and mandatory: the receiver must fail the request. */
	bld_hdr(&x, T_LS(WIRE_NL_LS_OP_SET_TIMEOUT), 1, 1);
	bld_attr(&x, 0x7f | WIRE_NL_ATTR_MANDATORY, &v, 4);
	bld_attr(&x, WIRE_NL_LS_TIMEOUT, &t, 4);
	assert_int_equal(bld_decode(&x, &m), x.n);
	assert_rules_only(&m.rules, WIRE_RULE_NL_ATTR_UNKNOWN,
			  WIRE_RULE_NL_ATTR_MANDATORY);

	/* Known and mandatory is just recorded. */
	bld_hdr(&x, T_LS(WIRE_NL_LS_OP_SET_TIMEOUT), 1, 1);
	bld_attr(&x, WIRE_NL_LS_TIMEOUT | WIRE_NL_ATTR_MANDATORY, &t, 4);
	assert_int_equal(bld_decode(&x, &m), x.n);
	assert_true(wire_rules_empty(&m.rules));
	assert_true(m.mandatory[WIRE_NL_LS_TIMEOUT]);

	/* NLA_F_NET_BYTEORDER / NLA_F_NESTED are masked by nla_type(). */
	bld_hdr(&x, T_LS(WIRE_NL_LS_OP_SET_TIMEOUT), 1, 1);
	bld_attr(&x, WIRE_NL_LS_TIMEOUT | 0x4000, &t, 4);
	assert_int_equal(bld_decode(&x, &m), x.n);
	assert_true(m.present[WIRE_NL_LS_TIMEOUT]);
	assert_int_equal(m.timeout, 3000);
}

static void test_nl_rule_duplicate(void **state)
{
	uint8_t path[72] = { 0x0a };
	uint32_t t1 = 1000, t2 = 2000;
	struct wire_nl_ls m;
	struct bld x;

	(void)state;
	bld_hdr(&x, T_LS(WIRE_NL_LS_OP_SET_TIMEOUT), 1, 1);
	bld_attr(&x, WIRE_NL_LS_TIMEOUT | WIRE_NL_ATTR_MANDATORY, &t1, 4);
	bld_attr(&x, WIRE_NL_LS_TIMEOUT, &t2, 4);
	assert_int_equal(bld_decode(&x, &m), x.n);
	assert_rules_only(&m.rules, WIRE_RULE_NL_ATTR_DUPLICATE, WIRE_RULE_NONE);
	assert_int_equal(m.timeout, 2000);        /* last one wins */
	assert_true(m.mandatory[WIRE_NL_LS_TIMEOUT]); /* any occurrence */

	/* Several PATH_RECORDs are the norm, not duplicates. */
	bld_hdr(&x, T_LS(WIRE_NL_LS_OP_RESOLVE), 0, 1);
	bld_attr(&x, WIRE_NL_LS_PATH_RECORD, path, 72);
	bld_attr(&x, WIRE_NL_LS_PATH_RECORD, path, 72);
	assert_int_equal(bld_decode(&x, &m), x.n);
	assert_true(wire_rules_empty(&m.rules));
	assert_int_equal(m.npaths, 2);
}

static void test_nl_rule_client(void **state)
{
	struct wire_nl_ls m;
	struct bld x;

	(void)state;
	/* RDMA_NL_IWCM (2), any op. */
	bld_hdr(&x, 2 << 10 | 1, 1, 5);
	assert_int_equal(bld_decode(&x, &m), WIRE_ERR_UNSUPP);
	assert_rules_only(&m.rules, WIRE_RULE_NL_CLIENT, WIRE_RULE_NONE);
	assert_int_equal(m.client, 2);
	assert_int_equal(m.op, 1);
	assert_int_equal(m.nl_len, 16);   /* so a caller can still step over it */

	/* NLMSG_ERROR (2): client 0. */
	bld_hdr(&x, 2, 0, 5);
	x.n += 4;
	assert_int_equal(bld_decode(&x, &m), WIRE_ERR_UNSUPP);
	assert_true(wire_rules_has(&m.rules, WIRE_RULE_NL_CLIENT));
}

static void test_nl_rule_op(void **state)
{
	uint32_t junk = 0xffffffff;
	struct wire_nl_ls m;
	struct bld x;

	(void)state;
	bld_hdr(&x, T_LS(7), 1, 5);
	bld_raw(&x, &junk, 4);       /* layout unknown: not interpreted */
	assert_int_equal(bld_decode(&x, &m), 20);
	assert_rules_only(&m.rules, WIRE_RULE_NL_OP, WIRE_RULE_NONE);
	assert_int_equal(m.op, 7);
	assert_null(wire_nl_op_name(m.op));
}

static void test_nl_rule_path_count(void **state)
{
	uint8_t path[72] = { 0 };
	struct wire_nl_ls m;
	struct bld x;
	unsigned i;

	(void)state;
	bld_hdr(&x, T_LS(WIRE_NL_LS_OP_RESOLVE), 0, 1);
	for (i = 0; i < WIRE_NL_MAX_PATHS; i++) {
		path[8] = (uint8_t)i;
		bld_attr(&x, WIRE_NL_LS_PATH_RECORD, path, 72);
	}
	assert_int_equal(bld_decode(&x, &m), x.n);
	assert_true(wire_rules_empty(&m.rules));
	assert_int_equal(m.npaths, WIRE_NL_MAX_PATHS);

	path[8] = 0x99;
	bld_attr(&x, WIRE_NL_LS_PATH_RECORD, path, 72);
	assert_int_equal(bld_decode(&x, &m), x.n);
	assert_rules_only(&m.rules, WIRE_RULE_NL_PATH_COUNT, WIRE_RULE_NONE);
	assert_int_equal(m.npaths, WIRE_NL_MAX_PATHS);
	for (i = 0; i < WIRE_NL_MAX_PATHS; i++)
		assert_int_equal(m.paths[i].rec[0], i);
}

static void test_nl_rule_missing(void **state)
{
	uint8_t gid[16] = { 0xfe, 0x80 };
	uint16_t pkey = 0xffff;
	struct wire_nl_ls m;
	struct bld x;

	(void)state;
	/* SET_TIMEOUT without TIMEOUT (ib_nl_handle_set_timeout ignores it). */
	bld_hdr(&x, T_LS(WIRE_NL_LS_OP_SET_TIMEOUT), 1, 1);
	assert_int_equal(bld_decode(&x, &m), 16);
	assert_rules_only(&m.rules, WIRE_RULE_NL_MISSING, WIRE_RULE_NONE);

	/* A good RESOLVE response without a single PATH_RECORD. */
	bld_hdr(&x, T_LS(WIRE_NL_LS_OP_RESOLVE), 0, 1);
	bld_attr(&x, WIRE_NL_LS_PKEY, &pkey, 2);
	assert_int_equal(bld_decode(&x, &m), x.n);
	assert_rules_only(&m.rules, WIRE_RULE_NL_MISSING, WIRE_RULE_NONE);

	/* An IP_RESOLVE response without DGID. */
	bld_hdr(&x, T_LS(WIRE_NL_LS_OP_IP_RESOLVE), 0, 1);
	bld_attr(&x, WIRE_NL_LS_SGID, gid, 16);
	assert_int_equal(bld_decode(&x, &m), x.n);
	assert_rules_only(&m.rules, WIRE_RULE_NL_MISSING, WIRE_RULE_NONE);

	/* An IP_RESOLVE request with neither address. */
	bld_hdr(&x, T_LS(WIRE_NL_LS_OP_IP_RESOLVE), 1, 1);
	bld_raw(&x, "\x02\0\0\0", 4);
	assert_int_equal(bld_decode(&x, &m), 20);
	assert_rules_only(&m.rules, WIRE_RULE_NL_MISSING, WIRE_RULE_NONE);

	/* An error response needs nothing. */
	bld_hdr(&x, T_LS(WIRE_NL_LS_OP_IP_RESOLVE), WIRE_NL_LS_F_ERR, 1);
	assert_int_equal(bld_decode(&x, &m), 16);
	assert_true(wire_rules_empty(&m.rules));
}

static void test_nl_size_limit(void **state)
{
	static struct bld x;
	struct wire_nl_ls m;
	uint16_t l, t;

	(void)state;
	/* Exactly WIRE_NL_MSG_MAX: one unknown attribute filling the area. */
	bld_hdr(&x, T_LS(WIRE_NL_LS_OP_RESOLVE), 0, 1);
	l = WIRE_NL_MSG_MAX - 16;
	t = 0x55;
	memcpy(x.b + 16, &l, 2);
	memcpy(x.b + 18, &t, 2);
	x.n = WIRE_NL_MSG_MAX;
	assert_int_equal(bld_decode(&x, &m), WIRE_NL_MSG_MAX);
	assert_true(wire_rules_has(&m.rules, WIRE_RULE_NL_ATTR_UNKNOWN));

	/* One word more: refused before any of it is looked at. */
	x.n = WIRE_NL_MSG_MAX + 4;
	assert_int_equal(bld_decode(&x, &m), WIRE_ERR_UNSUPP);
	assert_true(wire_rules_empty(&m.rules));
	assert_int_equal(m.nl_len, WIRE_NL_MSG_MAX + 4);

	/* A huge nlmsg_len not backed by bytes is simply inconsistent. */
	x.b[0] = 0xff;
	x.b[1] = 0xff;
	x.b[2] = 0xff;
	x.b[3] = 0x7f;
	assert_int_equal(decode_exact(&m, x.b, 64), WIRE_ERR_MALFORMED);
	assert_true(wire_rules_has(&m.rules, WIRE_RULE_NL_LEN));
}

/* A message with every field set, as a tool would build it. */
static void fill_full(struct wire_nl_ls *m)
{
	unsigned t, i;

	memset(m, 0, sizeof(*m));
	m->client = WIRE_NL_CLIENT_LS;
	m->op = WIRE_NL_LS_OP_RESOLVE;
	m->nl_type = T_LS(WIRE_NL_LS_OP_RESOLVE);
	m->nl_flags = 1;
	m->is_request = true;
	m->nl_seq = 0x01020304;
	m->nl_pid = 0x0a0b0c0d;
	m->has_resolve_hdr = true;
	memset(m->device_name, 'x', WIRE_NL_DEVICE_NAME_MAX); /* no NUL in 64 */
	m->port_num = 2;
	m->path_use = 2;
	m->resolve_pad[0] = 0xab;            /* uninitialised in the kernel */
	m->resolve_pad[1] = 0xcd;
	for (t = WIRE_NL_LS_PATH_RECORD; t < WIRE_NL_LS_ATTR_MAX; t++) {
		m->present[t] = true;
		m->mandatory[t] = t & 1;
	}
	m->timeout = 123456;
	m->service_id = 0x1122334455667788ull;
	memset(m->dgid, 0xd1, 16);
	memset(m->sgid, 0x51, 16);
	m->tclass = 0xb8;
	m->pkey = 0x8001;
	m->qos_class = 0x0abc;
	memcpy(m->ipv4, "\x0a\x00\x00\x01", 4);
	memset(m->ipv6, 0x66, 16);
	m->npaths = WIRE_NL_MAX_PATHS;
	for (i = 0; i < WIRE_NL_MAX_PATHS; i++) {
		m->paths[i].flags = 1u << i;
		m->paths[i].reserved = i * 0x01010101u;
		memset(m->paths[i].rec, (int)i + 0x30, 64);
	}
}

static void test_nl_round_trip(void **state)
{
	uint8_t out[WIRE_NL_MSG_MAX], again[WIRE_NL_MSG_MAX];
	struct wire_nl_ls m, d;
	ssize_t n;
	size_t cap;

	(void)state;
	fill_full(&m);
	n = wire_nl_encode(&m, out, sizeof(out));
	/* 16 + 68 + 8 paths * 76 + 8 + 12 + 20 + 20 + 8 + 8 + 8 + 8 + 20 */
	assert_int_equal(n, 16 + 68 + 8 * 76 + 8 + 12 + 20 + 20 + 8 * 4 + 20);
	assert_int_equal(decode_exact(&d, out, (size_t)n), n);
	assert_nl_equal(&m, &d);
	assert_int_equal(d.device_name[WIRE_NL_DEVICE_NAME_MAX], 0);
	assert_int_equal(d.nl_len, n);
	assert_true(wire_rules_empty(&d.rules));
	/* and back to the same bytes */
	assert_int_equal(wire_nl_encode(&d, again, sizeof(again)), n);
	assert_memory_equal(out, again, (size_t)n);

	/* Every short buffer is NOSPACE, never a partial success. */
	for (cap = 0; cap < (size_t)n; cap++)
		assert_int_equal(wire_nl_encode(&m, out, cap), WIRE_ERR_NOSPACE);

	/* An IP_RESOLVE request: ifindex header. */
	fill_full(&m);
	m.op = WIRE_NL_LS_OP_IP_RESOLVE;
	m.nl_type = T_LS(WIRE_NL_LS_OP_IP_RESOLVE);
	m.has_resolve_hdr = false;
	memset(m.device_name, 0, sizeof(m.device_name));
	m.port_num = m.path_use = 0;
	memset(m.resolve_pad, 0, 2);
	m.has_ip_resolve_hdr = true;
	m.ifindex = 0x12345678;
	n = wire_nl_encode(&m, out, sizeof(out));
	assert_true(n > 0);
	assert_int_equal(decode_exact(&d, out, (size_t)n), n);
	assert_nl_equal(&m, &d);

	/* An error response with nothing in it. */
	memset(&m, 0, sizeof(m));
	m.client = WIRE_NL_CLIENT_LS;
	m.nl_type = T_LS(0);
	m.is_err = true;
	m.nl_flags = WIRE_NL_LS_F_ERR;
	n = wire_nl_encode(&m, out, sizeof(out));
	assert_int_equal(n, 16);
	assert_int_equal(decode_exact(&d, out, 16), 16);
	assert_nl_equal(&m, &d);
}

static void test_nl_encode_inval(void **state)
{
	uint8_t out[64];
	struct wire_nl_ls m;

	(void)state;
	assert_int_equal(wire_nl_encode(NULL, out, sizeof(out)), WIRE_ERR_INVAL);
	memset(&m, 0, sizeof(m));
	m.client = WIRE_NL_CLIENT_LS;
	m.npaths = WIRE_NL_MAX_PATHS + 1;
	assert_int_equal(wire_nl_encode(&m, out, sizeof(out)), WIRE_ERR_INVAL);
	m.npaths = 0;
	m.has_resolve_hdr = m.has_ip_resolve_hdr = true;
	assert_int_equal(wire_nl_encode(&m, out, sizeof(out)), WIRE_ERR_INVAL);
	m.has_resolve_hdr = m.has_ip_resolve_hdr = false;
	m.op = 0x400;
	assert_int_equal(wire_nl_encode(&m, out, sizeof(out)), WIRE_ERR_INVAL);
	m.op = 0;
	m.client = 64;
	assert_int_equal(wire_nl_encode(&m, out, sizeof(out)), WIRE_ERR_INVAL);
	m.client = WIRE_NL_CLIENT_LS;
	assert_int_equal(wire_nl_encode(&m, NULL, 0), WIRE_ERR_NOSPACE);
	assert_int_equal(wire_nl_decode(NULL, out, sizeof(out)), WIRE_ERR_INVAL);
	assert_int_equal(wire_nl_decode(&m, NULL, 4), WIRE_ERR_INVAL);
	assert_int_equal(wire_nl_decode(&m, NULL, 0), WIRE_ERR_TRUNC);
}

static void test_nl_names(void **state)
{
	static const struct wt_name ops[] = {
		{ WIRE_NL_LS_OP_RESOLVE, "RESOLVE" }, { WIRE_NL_LS_OP_SET_TIMEOUT, "SET_TIMEOUT" },
		{ WIRE_NL_LS_OP_IP_RESOLVE, "IP_RESOLVE" }, { 3, NULL },
	};
	static const struct wt_name attrs[] = {
		{ WIRE_NL_LS_PATH_RECORD, "PATH_RECORD" }, { WIRE_NL_LS_TIMEOUT, "TIMEOUT" },
		{ WIRE_NL_LS_SERVICE_ID, "SERVICE_ID" }, { WIRE_NL_LS_DGID, "DGID" },
		{ WIRE_NL_LS_SGID, "SGID" }, { WIRE_NL_LS_TCLASS, "TCLASS" },
		{ WIRE_NL_LS_PKEY, "PKEY" }, { WIRE_NL_LS_QOS_CLASS, "QOS_CLASS" },
		{ WIRE_NL_LS_IPV4, "IPV4" }, { WIRE_NL_LS_IPV6, "IPV6" },
		/* a raw wire type with the mandatory bit names the same attribute */
		{ 0x2004, "DGID" },
		{ WIRE_NL_LS_ATTR_MAX, NULL }, { 0xffff & ~0xe000u, NULL },
	};

	(void)state;
	for (size_t i = 0; i < WT_COUNT(ops); i++)
		wt_name_is(wire_nl_op_name(ops[i].v), ops[i].name);
	for (size_t i = 0; i < WT_COUNT(attrs); i++)
		wt_name_is(wire_nl_attr_name(attrs[i].v), attrs[i].name);
	/* every rule of this module has its stable name */
	assert_string_equal(wire_rule_name(WIRE_RULE_NL_LEN), "nl.len");
	assert_string_equal(wire_rule_name(WIRE_RULE_NL_PATH_COUNT), "nl.ls.paths");
	assert_string_equal(wire_rule_name(WIRE_RULE_NL_MISSING), "nl.ls.missing");
}

CMOCKA_MAIN(
	cmocka_unit_test(test_nl_resolve_request),
	cmocka_unit_test(test_nl_resolve_response_paths),
	cmocka_unit_test(test_nl_error_response),
	cmocka_unit_test(test_nl_set_timeout),
	cmocka_unit_test(test_nl_ip_resolve),
	cmocka_unit_test(test_nl_multi_message),
	cmocka_unit_test(test_nl_consumed_capped),
	cmocka_unit_test(test_nl_truncation_every_offset),
	cmocka_unit_test(test_nl_rule_len),
	cmocka_unit_test(test_nl_rule_policy),
	cmocka_unit_test(test_nl_rule_unknown_mandatory),
	cmocka_unit_test(test_nl_rule_duplicate),
	cmocka_unit_test(test_nl_rule_client),
	cmocka_unit_test(test_nl_rule_op),
	cmocka_unit_test(test_nl_rule_path_count),
	cmocka_unit_test(test_nl_rule_missing),
	cmocka_unit_test(test_nl_size_limit),
	cmocka_unit_test(test_nl_round_trip),
	cmocka_unit_test(test_nl_encode_inval),
	cmocka_unit_test(test_nl_names))
