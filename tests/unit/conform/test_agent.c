// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * test_agent.c - the agent's request parser: what it takes, and that every
 * out-of-range or malformed request is refused with a reason.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include "cmain.h"

#include "agent.h"

static int parse(const char *s, struct cf_agent_req *q, char *err)
{
	return cf_agent_parse(s, strlen(s), q, err, 160);
}

static void test_valid(void **state)
{
	struct cf_agent_req q;
	char err[160];

	(void)state;
	assert_int_equal(parse("{\"op\":\"hello\"}", &q, err), 0);
	assert_int_equal(q.op, CF_OP_HELLO);
	assert_int_equal(parse("{\"op\":\"bind\",\"port\":4000,\"rcvbuf\":65536}", &q, err), 0);
	assert_int_equal(q.op, CF_OP_BIND);
	assert_int_equal(q.port, 4000);
	assert_int_equal(q.rcvbuf, 65536);
	assert_int_equal(parse("{\"op\":\"hold\",\"port\":4000,\"on\":false}", &q, err), 0);
	assert_false(q.on);
	assert_int_equal(parse("{\"op\":\"send\",\"port\":4000,\"to\":\"10.0.0.1\",\"dport\":5000,"
			       "\"first\":7,\"count\":3,\"size\":1048576,\"wait_ms\":50}", &q, err), 0);
	assert_int_equal(q.op, CF_OP_SEND);
	assert_int_equal(q.dport, 5000);
	assert_int_equal(q.first, 7);
	assert_int_equal(q.count, 3);
	assert_int_equal(q.size, 1048576);
	assert_int_equal(q.wait_ms, 50);
	assert_true(rdsu_addr_is_v4(&q.to));
	assert_int_equal(rdsu_addr_get_v4(&q.to), 0x0a000001);
	assert_int_equal(parse("{\"op\":\"send\",\"port\":4000,\"to\":\"::1\",\"dport\":0,"
			       "\"count\":1,\"size\":0}", &q, err), 0);
	assert_false(rdsu_addr_is_v4(&q.to));
	assert_int_equal(parse("{\"op\":\"recv\",\"port\":4000}", &q, err), 0);
	assert_int_equal(q.want, 0);
	assert_int_equal(parse("{\"op\":\"close\",\"port\":65535}", &q, err), 0);
	/* RDMA: each request and the field it must carry */
	{
		static const struct {
			const char *json;
			enum cf_agent_op op;
			size_t at;          /* offsetof the checked field */
			uint64_t want;
		} t[] = {
			{ "{\"op\":\"map\",\"port\":4000,\"to\":\"10.0.0.1\",\"dport\":5000,\"size\":2048,"
			  "\"flags\":8,\"seed\":11}", CF_OP_MAP, offsetof(struct cf_agent_req, size), 2048 },
			{ "{\"op\":\"free_mr\",\"port\":4000,\"cookie\":1099511627781,\"flags\":4}",
			  CF_OP_FREE_MR, offsetof(struct cf_agent_req, cookie), 1099511627781ull },
			{ "{\"op\":\"region\",\"port\":4000,\"cookie\":5}", CF_OP_REGION,
			  offsetof(struct cf_agent_req, cookie), 5 },
			{ "{\"op\":\"rdma\",\"port\":4000,\"to\":\"10.0.0.1\",\"dport\":5000,\"cookie\":5,"
			  "\"raddr\":64,\"size\":1000,\"flags\":33,\"token\":9,\"seed\":72}", CF_OP_RDMA,
			  offsetof(struct cf_agent_req, token), 9 },
			{ "{\"op\":\"notes\",\"port\":4000,\"want\":2,\"wait_ms\":100}", CF_OP_NOTES,
			  offsetof(struct cf_agent_req, want), 2 },
		};

		for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
			uint64_t v = 0;

			assert_int_equal(parse(t[i].json, &q, err), 0);
			assert_int_equal(q.op, t[i].op);
			if (t[i].op == CF_OP_MAP || t[i].op == CF_OP_NOTES)
				v = *(const uint32_t *)((const char *)&q + t[i].at);
			else
				v = *(const uint64_t *)((const char *)&q + t[i].at);
			assert_int_equal(v, t[i].want);
		}
		assert_int_equal(q.raddr, 0);  /* the last: notes */
	}
}

static void refused(const char *s, const char *why)
{
	struct cf_agent_req q;
	char err[160] = "";

	assert_int_equal(parse(s, &q, err), -1);
	if (!strstr(err, why))
		fail_msg("%s: reason \"%s\" lacks \"%s\"", s, err, why);
}

static void test_refused(void **state)
{
	char big[CF_AGENT_LINE_MAX + 64];

	(void)state;
	refused("", "not one JSON object");
	refused("{\"op\":\"hello\"} x", "not one JSON object");
	refused("{\"op\":\"hello\"}{}", "not one JSON object");
	refused("[1,2]", "a request is a JSON object");
	refused("{\"port\":4000}", "\"op\" is missing");
	refused("{\"op\":7}", "\"op\" is missing");
	refused("{\"op\":\"reboot\",\"port\":4000}", "unknown op");
	refused("{\"op\":\"bind\"}", "\"port\" is missing");
	refused("{\"op\":\"bind\",\"port\":1}", "\"port\" 1 is outside 2..65535");
	refused("{\"op\":\"bind\",\"port\":65536}", "outside");
	refused("{\"op\":\"bind\",\"port\":\"4000\"}", "not an integer");
	refused("{\"op\":\"bind\",\"port\":4000,\"rcvbuf\":-1}", "\"rcvbuf\"");
	refused("{\"op\":\"hold\",\"port\":4000}", "\"on\"");
	refused("{\"op\":\"send\",\"port\":4000,\"dport\":1,\"count\":1,\"size\":1}", "\"to\"");
	refused("{\"op\":\"send\",\"port\":4000,\"to\":\"nohost\",\"dport\":1,\"count\":1,\"size\":1}",
		"\"to\"");
	refused("{\"op\":\"send\",\"port\":4000,\"to\":\"10.0.0.1\",\"dport\":1,\"count\":0,"
		"\"size\":1}", "\"count\"");
	refused("{\"op\":\"send\",\"port\":4000,\"to\":\"10.0.0.1\",\"dport\":1,\"count\":1,"
		"\"size\":1048577}", "\"size\"");
	refused("{\"op\":\"recv\",\"port\":4000,\"wait_ms\":600001}", "\"wait_ms\"");
	refused("{\"op\":\"map\",\"port\":4000,\"to\":\"10.0.0.1\",\"dport\":1,\"size\":65537}",
		"\"size\"");
	refused("{\"op\":\"map\",\"port\":4000,\"to\":\"10.0.0.1\",\"dport\":1,\"size\":0}",
		"\"size\"");
	refused("{\"op\":\"map\",\"port\":4000,\"dport\":1,\"size\":10}", "\"to\"");
	refused("{\"op\":\"free_mr\",\"port\":4000}", "\"cookie\" is missing");
	refused("{\"op\":\"free_mr\",\"port\":4000,\"cookie\":-1}", "\"cookie\"");
	refused("{\"op\":\"free_mr\",\"port\":4000,\"cookie\":1,\"flags\":256}", "\"flags\"");
	refused("{\"op\":\"rdma\",\"port\":4000,\"to\":\"10.0.0.1\",\"dport\":1,\"size\":10,"
		"\"cookie\":1}", "\"raddr\" is missing");
	refused("{\"op\":\"notes\",\"port\":4000,\"wait_ms\":600001}", "\"wait_ms\"");
	/* nesting deeper than the tokenizer's limit */
	refused("{\"op\":\"hello\",\"x\":[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]}",
		"not one JSON object");
	memset(big, ' ', sizeof(big));
	memcpy(big, "{\"op\":\"hello\"", 13);
	big[sizeof(big) - 2] = '}';
	big[sizeof(big) - 1] = '\0';
	refused(big, "longer than");
}

CMOCKA_MAIN(
	cmocka_unit_test(test_valid),
	cmocka_unit_test(test_refused))
