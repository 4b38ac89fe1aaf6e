// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * agent_codec.c - the agent's request parser (agent.h). The agent listens
 * on a TCP port, so anything may arrive: json-c parses with its depth
 * limit, and every field is range-checked here before the agent acts.
 */
#include "agent.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include <wire/wire.h>

#include "parse.h"
#include "payload.h"
#include "rio.h"

static const char *const op_names[] = {
	[CF_OP_HELLO] = "hello", [CF_OP_BIND] = "bind", [CF_OP_CLOSE] = "close",
	[CF_OP_HOLD] = "hold",   [CF_OP_SEND] = "send", [CF_OP_RECV] = "recv",
	[CF_OP_MAP] = "map",     [CF_OP_FREE_MR] = "free_mr", [CF_OP_REGION] = "region",
	[CF_OP_RDMA] = "rdma",   [CF_OP_NOTES] = "notes",
};

void cf_region_fill(uint8_t *p, uint32_t len, uint32_t seed)
{
	payload_fill(p, len, (uint16_t)seed, 0x524d /* "RM" */ + (uint64_t)(seed >> 16));
}

uint64_t cf_region_hash(const uint8_t *p, size_t len)
{
	return payload_digest(PAYLOAD_DIGEST0, p, len);
}

/* A JSON integer in [lo, hi] at |key|; |need| makes it mandatory, and
 * an optional one that is absent is 0. */
static int num(struct json_object *o, const char *key, int64_t lo, int64_t hi, bool need,
	       uint64_t *out, char *err, size_t cap)
{
	struct json_object *v;
	int64_t x;

	if (!json_object_object_get_ex(o, key, &v)) {
		*out = 0;
		if (need)
			snprintf(err, cap, "\"%s\" is missing", key);
		return need ? -1 : 0;
	}
	if (!json_object_is_type(v, json_type_int)) {
		snprintf(err, cap, "\"%s\" is not an integer", key);
		return -1;
	}
	x = json_object_get_int64(v);
	if (x < lo || x > hi) {
		snprintf(err, cap, "\"%s\" %lld is outside %lld..%lld", key, (long long)x,
			 (long long)lo, (long long)hi);
		return -1;
	}
	*out = (uint64_t)x;
	return 0;
}

/* "to", an address. */
static int to_addr(struct json_object *o, struct cf_agent_req *q, char *err, size_t cap)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, "to", &v) || !json_object_is_type(v, json_type_string) ||
	    parse_addr(json_object_get_string(v), &q->to) < 0) {
		snprintf(err, cap, "\"to\" is missing or not an address");
		return -1;
	}
	return 0;
}

/* The RDMA ops' fields, as |q->op| needs them. */
static int parse_rdma(struct json_object *o, struct cf_agent_req *q, char *err, size_t cap)
{
	bool dst = q->op == CF_OP_MAP || q->op == CF_OP_RDMA;
	bool ck = q->op == CF_OP_FREE_MR || q->op == CF_OP_REGION || q->op == CF_OP_RDMA;
	uint64_t x = 0;

	if (dst) {
		if (to_addr(o, q, err, cap) || num(o, "dport", 0, 65535, true, &x, err, cap))
			return -1;
		q->dport = (uint16_t)x;
		if (num(o, "size", 1, CF_REGION_MAX, true, &x, err, cap))
			return -1;
		q->size = (uint32_t)x;
		if (num(o, "seed", 0, UINT32_MAX, false, &x, err, cap))
			return -1;
		q->seed = (uint32_t)x;
	}
	if (ck) {
		if (num(o, "cookie", 0, INT64_MAX, true, &x, err, cap))
			return -1;
		q->cookie = x;
	}
	if (q->op != CF_OP_REGION && num(o, "flags", 0, 0xff, false, &x, err, cap))
		return -1;
	q->flags = (uint32_t)x;
	if (q->op == CF_OP_RDMA) {
		if (num(o, "raddr", 0, INT64_MAX, true, &x, err, cap))
			return -1;
		q->raddr = x;
		if (num(o, "token", 0, INT64_MAX, false, &x, err, cap))
			return -1;
		q->token = x;
	}
	return 0;
}

static int parse_obj(struct json_object *o, struct cf_agent_req *q, char *err, size_t cap)
{
	struct json_object *v;
	const char *op;
	uint64_t x = 0;
	size_t i;

	if (!json_object_is_type(o, json_type_object)) {
		snprintf(err, cap, "a request is a JSON object");
		return -1;
	}
	if (!json_object_object_get_ex(o, "op", &v) || !json_object_is_type(v, json_type_string)) {
		snprintf(err, cap, "\"op\" is missing");
		return -1;
	}
	op = json_object_get_string(v);
	for (i = 0; i < sizeof(op_names) / sizeof(op_names[0]); i++)
		if (strcmp(op, op_names[i]) == 0)
			break;
	if (i == sizeof(op_names) / sizeof(op_names[0])) {
		snprintf(err, cap, "unknown op");
		return -1;
	}
	q->op = (enum cf_agent_op)i;
	if (q->op == CF_OP_HELLO)
		return 0;
	/* Every other op names a port; 0 and 1 are no socket's. */
	if (num(o, "port", 2, 65535, true, &x, err, cap))
		return -1;
	q->port = (uint16_t)x;
	switch (q->op) {
	case CF_OP_BIND:
		if (num(o, "rcvbuf", 0, 1 << 30, false, &x, err, cap))
			return -1;
		q->rcvbuf = (uint32_t)x;
		return 0;
	case CF_OP_HOLD:
		if (!json_object_object_get_ex(o, "on", &v) ||
		    !json_object_is_type(v, json_type_boolean)) {
			snprintf(err, cap, "\"on\" is missing or not a boolean");
			return -1;
		}
		q->on = json_object_get_boolean(v);
		return 0;
	case CF_OP_SEND:
		if (to_addr(o, q, err, cap))
			return -1;
		if (num(o, "dport", 0, 65535, true, &x, err, cap))
			return -1;
		q->dport = (uint16_t)x;
		if (num(o, "first", 0, INT64_MAX, false, &x, err, cap))
			return -1;
		q->first = x;
		if (num(o, "count", 1, 1000000, true, &x, err, cap))
			return -1;
		q->count = (uint32_t)x;
		if (num(o, "size", 0, WIRE_MAX_MSG_LEN, true, &x, err, cap))
			return -1;
		q->size = (uint32_t)x;
		break;
	case CF_OP_MAP:
	case CF_OP_FREE_MR:
	case CF_OP_REGION:
	case CF_OP_RDMA:
		return parse_rdma(o, q, err, cap);
	case CF_OP_NOTES:
	case CF_OP_RECV:
		if (num(o, "want", 0, 1000000, false, &x, err, cap))
			return -1;
		q->want = (uint32_t)x;
		break;
	default:
		return 0;
	}
	/* send and recv: how long the agent may wait */
	if (num(o, "wait_ms", 0, 600000, false, &x, err, cap))
		return -1;
	q->wait_ms = (uint32_t)x;
	return 0;
}

int cf_agent_parse(const char *line, size_t len, struct cf_agent_req *q, char *err, size_t cap)
{
	struct json_tokener *tok;
	struct json_object *o;
	int rc;

	memset(q, 0, sizeof(*q));
	if (len > CF_AGENT_LINE_MAX) {
		snprintf(err, cap, "request longer than %d bytes", CF_AGENT_LINE_MAX);
		return -1;
	}
	tok = json_tokener_new_ex(16);
	if (!tok) {
		snprintf(err, cap, "out of memory");
		return -1;
	}
	o = json_tokener_parse_ex(tok, line, (int)len);
	if (!o || json_tokener_get_error(tok) != json_tokener_success ||
	    json_tokener_get_parse_end(tok) != len) {
		snprintf(err, cap, "not one JSON object");
		json_object_put(o);
		json_tokener_free(tok);
		return -1;
	}
	json_tokener_free(tok);
	rc = parse_obj(o, q, err, cap);
	json_object_put(o);
	return rc;
}
