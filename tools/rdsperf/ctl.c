// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ctl.c - rdsperf control messages (ctl.h).
 */
#define _GNU_SOURCE
#include "ctl.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"

const struct wire_tok perf_test_toks[] = {
	{ PERF_STREAM, "stream" },
	{ PERF_RR, "rr" },
	{ PERF_PINGPONG, "pingpong" },
	{ PERF_RDMA_WRITE, "rdma-write" },
	{ PERF_RDMA_READ, "rdma-read" },
	{ PERF_ATOMIC, "atomic" },
	{ 0, NULL },
};

WIRE_TOK_NAMER(perf_test_name, enum perf_test, perf_test_toks)

int perf_test_parse(const char *s, enum perf_test *out)
{
	uint32_t v;

	if (wire_tok_value(perf_test_toks, s, &v) < 0)
		return -1;
	*out = (enum perf_test)v;
	return 0;
}

int perf_params_check(const struct perf_params *p, char *err, size_t errlen)
{
	if ((unsigned)p->test > PERF_ATOMIC)
		return out_errf(err, errlen, "unknown test");
	if (p->size > PERF_MAX_SIZE || p->rsize > PERF_MAX_SIZE)
		return out_errf(err, errlen, "message size above %u bytes (RDS's largest)",
				PERF_MAX_SIZE);
	if (p->sockets < 1 || p->sockets > PERF_MAX_SOCKS)
		return out_errf(err, errlen, "sockets must be 1 to %u", PERF_MAX_SOCKS);
	if (p->depth < 1 || p->depth > PERF_MAX_DEPTH)
		return out_errf(err, errlen, "depth must be 1 to %u", PERF_MAX_DEPTH);
	if (p->paths != 1 && p->paths != 2 && p->paths != 4 && p->paths != 8)
		return out_errf(err, errlen, "paths must be 1, 2, 4 or 8");
	if (p->kver != 6 && p->kver != 7)
		return out_errf(err, errlen, "kver must be 6 or 7");
	if (!(p->duration > 0 && p->duration <= 86400))
		return out_errf(err, errlen, "duration must be above 0 and at most a day");
	if (!(p->omit >= 0 && p->omit <= 3600))
		return out_errf(err, errlen, "omit must be 0 to 3600 seconds");
	if (p->test == PERF_PINGPONG && (p->depth != 1 || p->sockets != 1))
		return out_errf(err, errlen, "pingpong is one socket with one message in flight");
	if (p->reverse && p->test != PERF_STREAM)
		return out_errf(err, errlen,
				"reverse is for stream tests (rr and pingpong go both ways)");
	if (perf_test_rdma(p->test)) {
		if ((uint64_t)p->sockets * p->depth > PERF_RDMA_MAX_SLOTS)
			return out_errf(err, errlen,
					"RDMA tests take at most %u operations in flight "
					"(sockets x depth)",
					PERF_RDMA_MAX_SLOTS);
		if (p->test == PERF_ATOMIC ? p->size != PERF_ATOMIC_SIZE : p->size == 0)
			return out_errf(err, errlen, "%s",
					p->test == PERF_ATOMIC
					    ? "atomics are 8 bytes"
					    : "an RDMA of 0 bytes moves nothing");
		if (p->rsize || p->verify)
			return out_errf(err, errlen,
					"RDMA tests have no responses and no payload check");
	}
	return 0;
}

/* ------------------------------------------------------------------------
 * Encoding: each message's fields described once (the output layer,
 * out.h), in the order they go on the wire; json-c only parses.
 */
#define F(k, t) { .key = (k), .type = (t) }
#define HEAD F("rdsperf", OUT_U64), F("op", OUT_STR)
enum { M_VERSION, M_OP, M__HEAD };

enum {
	ST_TEST = M__HEAD, ST_SIZE, ST_RSIZE, ST_DEPTH, ST_SOCKETS, ST_PATHS, ST_KVER,
	ST_PATH_RULE, ST_DURATION, ST_OMIT, ST_BUF, ST_VERIFY, ST_REVERSE, ST_CLIENT_ADDR,
	ST_CLIENT_PORTS, ST__N
};
static const struct out_field start_fields[ST__N] = {
	HEAD,
	[ST_TEST] = F("test", OUT_STR),         [ST_SIZE] = F("size", OUT_U64),
	[ST_RSIZE] = F("rsize", OUT_U64),       [ST_DEPTH] = F("depth", OUT_U64),
	[ST_SOCKETS] = F("sockets", OUT_U64),   [ST_PATHS] = F("paths", OUT_U64),
	[ST_KVER] = F("kver", OUT_U64),         [ST_PATH_RULE] = F("path_rule", OUT_STR),
	[ST_DURATION] = F("duration", OUT_DOUBLE), [ST_OMIT] = F("omit", OUT_DOUBLE),
	[ST_BUF] = F("buf", OUT_U64),           [ST_VERIFY] = F("verify", OUT_BOOL),
	[ST_REVERSE] = F("reverse", OUT_BOOL),  [ST_CLIENT_ADDR] = F("client_addr", OUT_STR),
	[ST_CLIENT_PORTS] = F("client_ports", OUT_ARRAY),
};
static const struct out_group start_group = OUT_GROUP("start", start_fields);

enum { RD_PORTS = M__HEAD, RD_KERNEL, RD_REVERSE, RD__N };
static const struct out_field ready_fields[RD__N] = {
	HEAD,
	[RD_PORTS] = F("ports", OUT_ARRAY),
	[RD_KERNEL] = F("kernel", OUT_BOOL),
	[RD_REVERSE] = F("reverse", OUT_BOOL),
};
static const struct out_group ready_group = OUT_GROUP("ready", ready_fields);

enum { ER_ERROR = M__HEAD, ER__N };
static const struct out_field error_fields[ER__N] = { HEAD, [ER_ERROR] = F("error", OUT_STR) };
static const struct out_group error_group = OUT_GROUP("error", error_fields);

static const struct out_field stop_fields[M__HEAD] = { HEAD };
static const struct out_group stop_group = OUT_GROUP("stop", stop_fields);

enum {
	RS_MSGS = M__HEAD, RS_BYTES, RS_SENT, RS_VERIFY_ERRORS, RS_EAGAIN, RS_ENOBUFS,
	RS_RDS_RETRANSMITS, RS_CPU, RS_WALL, RS_KERNEL, RS_REGION_HASH, RS__N
};
static const struct out_field result_fields[RS__N] = {
	HEAD,
	[RS_MSGS] = F("msgs", OUT_U64),       [RS_BYTES] = F("bytes", OUT_U64),
	[RS_SENT] = F("sent", OUT_U64),       [RS_VERIFY_ERRORS] = F("verify_errors", OUT_U64),
	[RS_EAGAIN] = F("eagain", OUT_U64),   [RS_ENOBUFS] = F("enobufs", OUT_U64),
	[RS_RDS_RETRANSMITS] = F("rds_retransmits", OUT_I64),
	[RS_CPU] = F("cpu", OUT_DOUBLE),      [RS_WALL] = F("wall", OUT_DOUBLE),
	[RS_KERNEL] = F("kernel", OUT_BOOL),
	/* RDMA tests only: a 64-bit digest, as a hex string (JSON numbers
	 * stop at 2^53 in many readers) */
	[RS_REGION_HASH] = F("region_hash", OUT_STR),
};
static const struct out_group result_group = OUT_GROUP("result", result_fields);
#undef HEAD
#undef F

/* A message of |g| opened: its version and op (the group's name). */
static struct out *msg(const struct out_group *g)
{
	struct out *o = out_new(NULL, OUT_JSON, 0, 0);

	if (!o)
		return NULL;
	out_begin(o, g);
	out_u64(o, M_VERSION, CTL_VERSION);
	out_str(o, M_OP, g->name);
	return o;
}

/* The message |o| built, as a line; NULL without memory. */
static char *line_of(struct out *o)
{
	char *t, *s = NULL;

	if (!o)
		return NULL;
	t = out_take(o);
	if (t && asprintf(&s, "%s\n", t) < 0)
		s = NULL;
	free(t);
	out_free(o);
	return s;
}

static void ports_array(struct out *o, unsigned id, const uint16_t *ports, unsigned n)
{
	out_arr_open(o, id);
	for (unsigned i = 0; i < n; i++)
		out_elem_u64(o, ports[i]);
	out_close(o);
}

char *ctl_start_line(const struct perf_params *p)
{
	struct out *o = msg(&start_group);

	if (!o)
		return NULL;
	out_str(o, ST_TEST, perf_test_name(p->test));
	out_u64(o, ST_SIZE, p->size);
	out_u64(o, ST_RSIZE, p->rsize);
	out_u64(o, ST_DEPTH, p->depth);
	out_u64(o, ST_SOCKETS, p->sockets);
	out_u64(o, ST_PATHS, p->paths);
	out_u64(o, ST_KVER, p->kver);
	out_str(o, ST_PATH_RULE, p->path_by_pair ? "pair" : "port");
	out_double(o, ST_DURATION, p->duration);
	out_double(o, ST_OMIT, p->omit);
	out_u64(o, ST_BUF, p->buf);
	out_bool(o, ST_VERIFY, p->verify);
	out_bool(o, ST_REVERSE, p->reverse);
	out_str(o, ST_CLIENT_ADDR, p->client_addr);
	ports_array(o, ST_CLIENT_PORTS, p->client_ports,
		    p->sockets < PERF_MAX_SOCKS ? p->sockets : PERF_MAX_SOCKS);
	return line_of(o);
}

char *ctl_ready_line(const uint16_t *ports, unsigned n, bool kernel, bool reverse)
{
	struct out *o = msg(&ready_group);

	if (!o)
		return NULL;
	ports_array(o, RD_PORTS, ports, n);
	out_bool(o, RD_KERNEL, kernel);
	out_bool(o, RD_REVERSE, reverse);
	return line_of(o);
}

char *ctl_error_line(const char *why)
{
	struct out *o = msg(&error_group);

	if (o)
		out_str(o, ER_ERROR, why);
	return line_of(o);
}

char *ctl_stop_line(void)
{
	return line_of(msg(&stop_group));
}

char *ctl_result_line(const struct perf_result *r)
{
	struct out *o = msg(&result_group);

	if (!o)
		return NULL;
	out_u64(o, RS_MSGS, r->msgs);
	out_u64(o, RS_BYTES, r->bytes);
	out_u64(o, RS_SENT, r->sent);
	out_u64(o, RS_VERIFY_ERRORS, r->verify_errors);
	out_u64(o, RS_EAGAIN, r->eagain);
	out_u64(o, RS_ENOBUFS, r->enobufs);
	out_i64(o, RS_RDS_RETRANSMITS, r->rds_retransmits);
	out_double(o, RS_CPU, r->cpu);
	out_double(o, RS_WALL, r->wall);
	out_bool(o, RS_KERNEL, r->kernel);
	if (r->has_hash) {
		char h[24];

		snprintf(h, sizeof(h), "%016llx", (unsigned long long)r->region_hash);
		out_str(o, RS_REGION_HASH, h);
	}
	return line_of(o);
}

/* ------------------------------------------------------------------------
 * Decoding: everything a remote peer sent is checked for type and range.
 */

static struct json_object *parse(const char *line, const char *want_op, char *err, size_t errlen)
{
	struct json_object *j, *v;
	size_t len = strnlen(line, CTL_MAX_LINE + 1);
	const char *op;

	if (len > CTL_MAX_LINE) {
		out_errf(err, errlen, "control line longer than %u bytes", CTL_MAX_LINE);
		return NULL;
	}
	j = json_tokener_parse(line);
	if (!j || !json_object_is_type(j, json_type_object)) {
		out_errf(err, errlen, "control line is not a JSON object");
		json_object_put(j);
		return NULL;
	}
	if (!json_object_object_get_ex(j, "rdsperf", &v) || !json_object_is_type(v, json_type_int)) {
		out_errf(err, errlen, "not an rdsperf control message");
		goto bad;
	}
	if (json_object_get_int64(v) != CTL_VERSION) {
		out_errf(err, errlen, "peer speaks rdsperf control version %lld, this rdsperf %d",
			 (long long)json_object_get_int64(v), CTL_VERSION);
		goto bad;
	}
	if (!json_object_object_get_ex(j, "op", &v) || !json_object_is_type(v, json_type_string)) {
		out_errf(err, errlen, "control message without \"op\"");
		goto bad;
	}
	op = json_object_get_string(v);
	if (!strcmp(op, "error") && strcmp(want_op, "error")) {
		struct json_object *e;

		out_errf(err, errlen, "peer: %s",
			 json_object_object_get_ex(j, "error", &e) &&
				 json_object_is_type(e, json_type_string)
			     ? json_object_get_string(e)
			     : "(no reason given)");
		goto bad;
	}
	if (strcmp(op, want_op)) {
		out_errf(err, errlen, "expected \"%s\", peer sent \"%.40s\"", want_op, op);
		goto bad;
	}
	return j;
bad:
	json_object_put(j);
	return NULL;
}

static int get_u(struct json_object *j, const char *k, uint64_t max, uint64_t *out, char *err,
		 size_t errlen)
{
	struct json_object *v;
	int64_t x;

	if (!json_object_object_get_ex(j, k, &v) || !json_object_is_type(v, json_type_int))
		return out_errf(err, errlen, "\"%s\" missing or not an integer", k);
	x = json_object_get_int64(v);
	if (x < 0 || (uint64_t)x > max)
		return out_errf(err, errlen, "\"%s\" out of range", k);
	*out = (uint64_t)x;
	return 0;
}

static int get_d(struct json_object *j, const char *k, double *out, char *err, size_t errlen)
{
	struct json_object *v;

	if (!json_object_object_get_ex(j, k, &v) ||
	    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		return out_errf(err, errlen, "\"%s\" missing or not a number", k);
	*out = json_object_get_double(v);
	if (!isfinite(*out))
		return out_errf(err, errlen, "\"%s\" not finite", k);
	return 0;
}

static int get_b(struct json_object *j, const char *k, bool *out, char *err, size_t errlen)
{
	struct json_object *v;

	if (!json_object_object_get_ex(j, k, &v) || !json_object_is_type(v, json_type_boolean))
		return out_errf(err, errlen, "\"%s\" missing or not true/false", k);
	*out = json_object_get_boolean(v);
	return 0;
}

/* A flag added after version 1's first release: absent is false. */
static int get_b_opt(struct json_object *j, const char *k, bool *out, char *err, size_t errlen)
{
	*out = false;
	return json_object_object_get_ex(j, k, NULL) ? get_b(j, k, out, err, errlen) : 0;
}

static int get_ports(struct json_object *j, const char *k, uint16_t *ports, unsigned n, char *err,
		     size_t errlen)
{
	struct json_object *a;

	if (!json_object_object_get_ex(j, k, &a) || !json_object_is_type(a, json_type_array))
		return out_errf(err, errlen, "\"%s\" missing or not a list", k);
	if (json_object_array_length(a) != n)
		return out_errf(err, errlen, "\"%s\" has %zu ports, expected %u", k,
				(size_t)json_object_array_length(a), n);
	for (unsigned i = 0; i < n; i++) {
		struct json_object *v = json_object_array_get_idx(a, i);
		int64_t x;

		if (!json_object_is_type(v, json_type_int))
			return out_errf(err, errlen, "\"%s\": not a port number", k);
		x = json_object_get_int64(v);
		if (x < 1 || x > 65535)
			return out_errf(err, errlen, "\"%s\": port out of range", k);
		ports[i] = (uint16_t)x;
	}
	return 0;
}

int ctl_parse_start(const char *line, struct perf_params *p, char *err, size_t errlen)
{
	struct json_object *j = parse(line, "start", err, errlen), *v;
	uint64_t u[7] = { 0 };
	int e = -1;

	if (!j)
		return -1;
	memset(p, 0, sizeof(*p));
	if (!json_object_object_get_ex(j, "test", &v) || !json_object_is_type(v, json_type_string) ||
	    perf_test_parse(json_object_get_string(v), &p->test) < 0) {
		out_errf(err, errlen, "\"test\" missing or unknown");
		goto out;
	}
	if (get_u(j, "size", PERF_MAX_SIZE, &u[0], err, errlen) ||
	    get_u(j, "rsize", PERF_MAX_SIZE, &u[1], err, errlen) ||
	    get_u(j, "depth", PERF_MAX_DEPTH, &u[2], err, errlen) ||
	    get_u(j, "sockets", PERF_MAX_SOCKS, &u[3], err, errlen) ||
	    get_u(j, "paths", 8, &u[4], err, errlen) || get_u(j, "kver", 7, &u[5], err, errlen) ||
	    get_u(j, "buf", PERF_MAX_BUF, &u[6], err, errlen) ||
	    get_d(j, "duration", &p->duration, err, errlen) ||
	    get_d(j, "omit", &p->omit, err, errlen) || get_b(j, "verify", &p->verify, err, errlen) ||
	    get_b_opt(j, "reverse", &p->reverse, err, errlen))
		goto out;
	p->size = (uint32_t)u[0];
	p->rsize = (uint32_t)u[1];
	p->depth = (uint32_t)u[2];
	p->sockets = (uint32_t)u[3];
	p->paths = (uint32_t)u[4];
	p->kver = (uint32_t)u[5];
	p->buf = (uint32_t)u[6];
	if (!json_object_object_get_ex(j, "client_addr", &v) ||
	    !json_object_is_type(v, json_type_string) ||
	    strlen(json_object_get_string(v)) >= sizeof(p->client_addr)) {
		out_errf(err, errlen, "\"client_addr\" missing or too long");
		goto out;
	}
	strcpy(p->client_addr, json_object_get_string(v));
	/* Absent from a client older than the rule: the kernel's, librds's
	 * default. */
	if (json_object_object_get_ex(j, "path_rule", &v)) {
		const char *r = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";

		if (strcmp(r, "pair") && strcmp(r, "port")) {
			out_errf(err, errlen, "\"path_rule\" is not \"pair\" or \"port\"");
			goto out;
		}
		p->path_by_pair = !strcmp(r, "pair");
	}
	if (perf_params_check(p, err, errlen) < 0 ||
	    get_ports(j, "client_ports", p->client_ports, p->sockets, err, errlen) < 0)
		goto out;
	e = 0;
out:
	json_object_put(j);
	return e;
}

int ctl_parse_ready(const char *line, uint16_t *ports, unsigned n, bool *kernel, bool *reverse,
		    char *err, size_t errlen)
{
	struct json_object *j = parse(line, "ready", err, errlen);
	int e = -1;

	if (!j)
		return -1;
	if (get_ports(j, "ports", ports, n, err, errlen) == 0 &&
	    get_b(j, "kernel", kernel, err, errlen) == 0 &&
	    get_b_opt(j, "reverse", reverse, err, errlen) == 0)
		e = 0;
	json_object_put(j);
	return e;
}

int ctl_parse_stop(const char *line, char *err, size_t errlen)
{
	struct json_object *j = parse(line, "stop", err, errlen);

	json_object_put(j);
	return j ? 0 : -1;
}

int ctl_parse_result(const char *line, struct perf_result *r, char *err, size_t errlen)
{
	struct json_object *j = parse(line, "result", err, errlen), *v;
	int e = -1;

	if (!j)
		return -1;
	memset(r, 0, sizeof(*r));
	if (get_u(j, "msgs", INT64_MAX, &r->msgs, err, errlen) ||
	    get_u(j, "bytes", INT64_MAX, &r->bytes, err, errlen) ||
	    get_u(j, "sent", INT64_MAX, &r->sent, err, errlen) ||
	    get_u(j, "verify_errors", INT64_MAX, &r->verify_errors, err, errlen) ||
	    get_u(j, "eagain", INT64_MAX, &r->eagain, err, errlen) ||
	    get_u(j, "enobufs", INT64_MAX, &r->enobufs, err, errlen) ||
	    get_d(j, "cpu", &r->cpu, err, errlen) || get_d(j, "wall", &r->wall, err, errlen) ||
	    get_b(j, "kernel", &r->kernel, err, errlen))
		goto out;
	if (!json_object_object_get_ex(j, "rds_retransmits", &v) ||
	    !json_object_is_type(v, json_type_int)) {
		out_errf(err, errlen, "\"rds_retransmits\" missing or not an integer");
		goto out;
	}
	r->rds_retransmits = json_object_get_int64(v);
	if (json_object_object_get_ex(j, "region_hash", &v)) {
		const char *h = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
		char *end;

		if (strlen(h) != 16 || strspn(h, "0123456789abcdef") != 16) {
			out_errf(err, errlen, "\"region_hash\" is not 16 hex digits");
			goto out;
		}
		r->region_hash = strtoull(h, &end, 16);
		r->has_hash = true;
	}
	e = 0;
out:
	json_object_put(j);
	return e;
}
