// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_ctl.c - rdsperf's control messages: what one end encodes the other
 * decodes unchanged, and whatever a peer sends that is not a well-formed
 * message of this version is refused with a reason. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "cmain.h"

#include "ctl.h"

static char err[256];

static void chomp(char *s)
{
	size_t n = strlen(s);

	assert_true(n > 0 && s[n - 1] == '\n');
	s[n - 1] = 0;
}

static struct perf_params sample(void)
{
	struct perf_params p;

	memset(&p, 0, sizeof(p));
	p.test = PERF_RR;
	p.size = 64;
	p.rsize = 1 << 20;
	p.depth = 16;
	p.sockets = 3;
	p.paths = 4;
	p.kver = 6;
	p.path_by_pair = true;
	p.duration = 2.5;
	p.omit = 0.5;
	p.verify = true;
	strcpy(p.client_addr, "fe80::1");
	p.client_ports[0] = 1;
	p.client_ports[1] = 40000;
	p.client_ports[2] = 65535;
	return p;
}

static void test_start_round_trip(void **state)
{
	struct perf_params p = sample(), q;
	char *line = ctl_start_line(&p);

	(void)state;
	chomp(line);
	assert_int_equal(ctl_parse_start(line, &q, err, sizeof(err)), 0);
	assert_memory_equal(&p, &q, sizeof(p));
	free(line);
}

static void test_ready_result_stop(void **state)
{
	uint16_t ports[3] = { 10, 20, 30 }, got[3];
	struct perf_result r, s;
	bool kernel = false, reverse = false;
	char *line;

	(void)state;
	/* memset: the comparison below covers the padding too */
	memset(&r, 0, sizeof(r));
	r.msgs = 5;
	r.bytes = 6;
	r.sent = 7;
	r.verify_errors = 8;
	r.eagain = 9;
	r.enobufs = 10;
	r.rds_retransmits = -1;
	r.cpu = 1.5;
	r.wall = 2.5;
	r.kernel = true;
	line = ctl_ready_line(ports, 3, true, true);
	chomp(line);
	assert_int_equal(ctl_parse_ready(line, got, 3, &kernel, &reverse, err, sizeof(err)), 0);
	assert_memory_equal(ports, got, sizeof(ports));
	assert_true(kernel);
	assert_true(reverse);
	/* the client asked for 2 sockets: 3 ports is wrong */
	assert_int_equal(ctl_parse_ready(line, got, 2, &kernel, &reverse, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "3 ports"));
	free(line);

	line = ctl_result_line(&r);
	chomp(line);
	assert_int_equal(ctl_parse_result(line, &s, err, sizeof(err)), 0);
	assert_memory_equal(&r, &s, sizeof(r));
	free(line);

	line = ctl_stop_line();
	chomp(line);
	assert_int_equal(ctl_parse_stop(line, err, sizeof(err)), 0);
	/* a stop is not a result */
	assert_int_equal(ctl_parse_result(line, &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "expected \"result\""));
	free(line);
}

static void test_error_passes_reason(void **state)
{
	uint16_t got[1];
	bool kernel, reverse;
	char *line = ctl_error_line("no AF_RDS here");

	(void)state;
	chomp(line);
	assert_int_equal(ctl_parse_ready(line, got, 1, &kernel, &reverse, err, sizeof(err)), -1);
	assert_string_equal(err, "peer: no AF_RDS here");
	free(line);
}

struct bad {
	const char *line, *why;
};

static void test_start_refused(void **state)
{
	static const struct bad bad[] = {
		{ "", "not a JSON object" },
		{ "[1,2]", "not a JSON object" },
		{ "{\"op\":\"start\"}", "not an rdsperf" },
		{ "{\"rdsperf\":2,\"op\":\"start\"}", "version 2" },
		{ "{\"rdsperf\":\"1\",\"op\":\"start\"}", "not an rdsperf" },
		{ "{\"rdsperf\":1}", "without \"op\"" },
		{ "{\"rdsperf\":1,\"op\":\"start\",\"test\":\"bulk\"}", "\"test\"" },
		{ "{\"rdsperf\":1,\"op\":\"start\",\"test\":\"stream\"}", "\"size\" missing" },
	};
	struct perf_params q;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		assert_int_equal(ctl_parse_start(bad[i].line, &q, err, sizeof(err)), -1);
		if (!strstr(err, bad[i].why))
			fail_msg("%s: '%s' lacks '%s'", bad[i].line, err, bad[i].why);
	}
}

/* Take a good start line and change one field at a time. */
static void check_field(const char *field, const char *value, const char *why)
{
	struct perf_params p = sample(), q;
	char *line = ctl_start_line(&p), *at, buf[1024], key[64];
	size_t klen;

	chomp(line);
	snprintf(key, sizeof(key), "\"%s\":", field);
	klen = strlen(key);
	at = strstr(line, key);
	assert_non_null(at);
	{
		char *end = at + klen;
		int depth = 0;

		/* the value ends at the next , or } outside brackets */
		for (; *end && (depth || (*end != ',' && *end != '}')); end++)
			depth += *end == '[' ? 1 : *end == ']' ? -1 : 0;
		snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(at - line + (ptrdiff_t)klen), line, value,
			 end);
	}
	err[0] = 0;
	if (ctl_parse_start(buf, &q, err, sizeof(err)) != -1 || !strstr(err, why))
		fail_msg("%s=%s: '%s' lacks '%s'", field, value, err, why);
	free(line);
}

static void test_start_ranges(void **state)
{
	(void)state;
	check_field("size", "1048577", "\"size\" out of range");
	check_field("size", "-1", "\"size\" out of range");
	check_field("size", "1.5", "not an integer");
	check_field("rsize", "99999999999", "out of range");
	check_field("sockets", "0", "sockets must be 1 to");
	check_field("sockets", "65", "out of range");
	check_field("depth", "0", "depth must be");
	check_field("paths", "3", "paths must be 1, 2, 4 or 8");
	check_field("kver", "5", "kver must be 6 or 7");
	check_field("path_rule", "\"hash\"", "\"path_rule\" is not");
	check_field("path_rule", "1", "\"path_rule\" is not");
	check_field("duration", "0", "duration");
	check_field("duration", "\"10\"", "not a number");
	check_field("omit", "-1", "omit");
	check_field("verify", "1", "true/false");
	check_field("client_addr", "7", "client_addr");
	check_field("client_ports", "[1,2]", "has 2 ports, expected 3");
	check_field("client_ports", "[1,2,0]", "port out of range");
	check_field("client_ports", "[1,2,\"x\"]", "not a port number");
	check_field("client_ports", "{}", "not a list");
	check_field("test", "\"pingpong\"", "pingpong is one socket");
	check_field("reverse", "true", "reverse is for stream tests");
	check_field("reverse", "\"yes\"", "true/false");
}

/* A stream the server sends; and the lines of an rdsperf that has no
 * reverse tests, which must mean "forward", both ways. */
static void test_reverse(void **state)
{
	struct perf_params p = sample(), q;
	uint16_t got[1];
	bool kernel, reverse = true;
	char *line;

	(void)state;
	p.test = PERF_STREAM;
	p.depth = 1;
	p.reverse = true;
	line = ctl_start_line(&p);
	chomp(line);
	assert_int_equal(ctl_parse_start(line, &q, err, sizeof(err)), 0);
	assert_true(q.reverse);
	free(line);
	assert_int_equal(ctl_parse_start("{\"rdsperf\":1,\"op\":\"start\",\"test\":\"stream\","
					 "\"size\":64,\"rsize\":0,\"depth\":1,\"sockets\":1,"
					 "\"paths\":8,\"kver\":7,\"buf\":0,\"duration\":1,"
					 "\"omit\":0,\"verify\":false,\"client_addr\":\"127.0.0.2\","
					 "\"client_ports\":[5]}",
					 &q, err, sizeof(err)),
			 0);
	assert_false(q.reverse);
	assert_int_equal(ctl_parse_ready("{\"rdsperf\":1,\"op\":\"ready\",\"ports\":[7],"
					 "\"kernel\":false}",
					 got, 1, &kernel, &reverse, err, sizeof(err)),
			 0);
	assert_false(reverse);
}

/* The RDMA tests: their names, their ranges, and the server's digest of
 * its memory, all 64 bits of it, in the result (absent: none). */
static void test_rdma(void **state)
{
	struct perf_params p = sample(), q;
	struct perf_result r, s;
	char *line;

	(void)state;
	p.test = PERF_RDMA_READ;
	p.rsize = 0;
	p.verify = false;
	p.depth = 8;
	line = ctl_start_line(&p);
	chomp(line);
	assert_int_equal(ctl_parse_start(line, &q, err, sizeof(err)), 0);
	assert_int_equal(q.test, PERF_RDMA_READ);
	assert_string_equal(perf_test_name(PERF_ATOMIC), "atomic");
	free(line);
	p.depth = 128;  /* 3 x 128 operations in flight */
	assert_int_equal(perf_params_check(&p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "at most 256"));
	p.depth = 8;
	p.test = PERF_ATOMIC;
	assert_int_equal(perf_params_check(&p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "8 bytes"));
	p.size = 8;
	p.verify = true;
	assert_int_equal(perf_params_check(&p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no payload check"));

	memset(&r, 0, sizeof(r));
	r.has_hash = true;
	r.region_hash = 0xfedcba9876543210ull;
	line = ctl_result_line(&r);
	chomp(line);
	assert_non_null(strstr(line, "\"region_hash\":\"fedcba9876543210\""));
	assert_int_equal(ctl_parse_result(line, &s, err, sizeof(err)), 0);
	assert_memory_equal(&r, &s, sizeof(r));
	free(line);
	r.has_hash = false;
	line = ctl_result_line(&r);
	chomp(line);
	assert_null(strstr(line, "region_hash"));
	assert_int_equal(ctl_parse_result(line, &s, err, sizeof(err)), 0);
	assert_false(s.has_hash);
	free(line);
	assert_int_equal(ctl_parse_result("{\"rdsperf\":1,\"op\":\"result\",\"msgs\":0,"
					  "\"bytes\":0,\"sent\":0,\"verify_errors\":0,"
					  "\"eagain\":0,\"enobufs\":0,\"rds_retransmits\":0,"
					  "\"cpu\":0,\"wall\":0,\"kernel\":true,"
					  "\"region_hash\":\"12345\"}",
					  &s, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "16 hex digits"));
}

static void test_overlong_line(void **state)
{
	char *line = malloc(CTL_MAX_LINE + 2);
	struct perf_params q;

	(void)state;
	memset(line, ' ', CTL_MAX_LINE + 1);
	line[CTL_MAX_LINE + 1] = 0;
	assert_int_equal(ctl_parse_start(line, &q, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "longer than"));
	free(line);
}

CMOCKA_MAIN(
	cmocka_unit_test(test_start_round_trip),
	cmocka_unit_test(test_ready_result_stop),
	cmocka_unit_test(test_error_passes_reason),
	cmocka_unit_test(test_start_refused),
	cmocka_unit_test(test_start_ranges),
	cmocka_unit_test(test_reverse),
	cmocka_unit_test(test_rdma),
	cmocka_unit_test(test_overlong_line))
