// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* test_report.c - rds-conform's reports: each format's exact output for
 * one result of every verdict, TAP's plan and line counts, JSON read back
 * with json-c, and hostile peer bytes that must leave every format valid.
 * With an argument FILE it writes the hostile JUnit report there instead,
 * for tests/cli/conform-report-xml.py to parse with a real XML parser. */
#define _POSIX_C_SOURCE 200809L /* open_memstream, strtok_r */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <json-c/json.h>

#include "report.h"

static const struct cf_case cases[] = {
	{ "rds31/hdr/1", CF_MUST, "header is 48 bytes", "a header is 48 bytes", "RDS 3.1 s2",
	  0, NULL },
	{ "rds31/cong/2", CF_MUST, "map length is 8192", "a map is exactly 8192 bytes",
	  "net/rds/cong.c", CF_NEED_AGENT, NULL },
	{ "linux/tcp/3", CF_SHOULD, "probe answered", "a probe ping gets a pong",
	  "docs/kernel-behaviour.md", 0, NULL },
	{ "linux/probe/4", CF_INFO_ONLY, "probe extensions", "which extensions a probe carries",
	  "net/rds/send.c rds_send_probe", 0, NULL },
	{ "rds31/mpath/5", CF_MUST, "larger address refused", "a larger address is refused",
	  "net/rds/tcp_listen.c", CF_NEED_LARGER | CF_NEED_HOSTILE, NULL },
	{ "rds31/seq/6", CF_MUST, "retransmit dropped", "a retransmitted old seq is dropped",
	  "net/rds/recv.c", 0, NULL },
};

static struct cf_result res[6];

static const struct cf_meta meta = {
	.peer = "10.0.0.2:16385",
	.peer_stack = "kernel 7.2.13 (AF_RDS)",
	.version = "0.1.0",
	.started = "2024-05-01T10:00:00Z",
	.strict = false,
	.secs = 1.5,
};

static int setup(void **state)
{
	static const enum cf_verdict v[6] = { CF_PASS, CF_FAIL, CF_NON_STRICT, CF_INFO,
					      CF_SKIP, CF_ERROR };

	(void)state;
	memset(res, 0, sizeof(res));
	for (int i = 0; i < 6; i++) {
		res[i].c = &cases[i];
		res[i].verdict = v[i];
		res[i].secs = 0.25 * i;
	}
	cf_text(res[0].expected, "48");
	cf_text(res[0].actual, "48");
	cf_text(res[1].expected, "h_len 8192");
	cf_text(res[1].actual, "h_len 100 accepted");
	snprintf(res[1].pcap, sizeof(res[1].pcap), "cong-2.pcap");
	cf_text(res[2].expected, "probe pong");
	cf_text(res[2].actual, "no answer in 2 s");
	cf_text(res[2].reason, "only a SHOULD");
	cf_text(res[3].actual, "NPATHS 8, GEN_NUM, SPORT_IDX");
	cf_text(res[4].reason, "no local address larger than the peer's");
	cf_text(res[5].reason, "connect: Connection refused");
	return 0;
}

/* The report of |n| results in |fmt|, in a buffer the caller frees. */
static char *render(enum cf_format fmt, const struct cf_meta *m, const struct cf_result *r,
		    size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(cf_report(f, fmt, m, r, n), 0);
	fclose(f);
	return buf;
}

static void expect_output(enum cf_format fmt, const char *want)
{
	char *got = render(fmt, &meta, res, 6);

	if (strcmp(got, want) != 0)
		fprintf(stderr, "---- got:\n%s---- want:\n%s----\n", got, want);
	assert_string_equal(got, want);
	free(got);
}

static void test_report_format_by_name(void **state)
{
	enum cf_format f = CF_FMT_TEXT;

	(void)state;
	assert_int_equal(cf_format_by_name("tap", &f), 0);
	assert_int_equal(f, CF_FMT_TAP);
	assert_int_equal(cf_format_by_name("junit", &f), 0);
	assert_int_equal(f, CF_FMT_JUNIT);
	assert_int_equal(cf_format_by_name("json", &f), 0);
	assert_int_equal(f, CF_FMT_JSON);
	assert_int_equal(cf_format_by_name("text", &f), 0);
	assert_int_equal(f, CF_FMT_TEXT);
	assert_int_equal(cf_format_by_name("xml", &f), -1);
	assert_int_equal(cf_format_by_name("", &f), -1);
}

static void test_report_text(void **state)
{
	(void)state;
	expect_output(CF_FMT_TEXT,
		"rds-conform 0.1.0: peer 10.0.0.2:16385 (kernel 7.2.13 (AF_RDS)), started "
		"2024-05-01T10:00:00Z\n"
		"\n"
		"PASS       rds31/hdr/1       header is 48 bytes\n"
		"FAIL       rds31/cong/2      map length is 8192\n"
		"NON-STRICT linux/tcp/3       probe answered\n"
		"INFO       linux/probe/4     probe extensions\n"
		"SKIP       rds31/mpath/5     larger address refused\n"
		"ERROR      rds31/seq/6       retransmit dropped\n"
		"\n"
		"FAIL rds31/cong/2: map length is 8192\n"
		"  level        MUST\n"
		"  requirement  a map is exactly 8192 bytes\n"
		"  source       net/rds/cong.c\n"
		"  expected     h_len 8192\n"
		"  actual       h_len 100 accepted\n"
		"  pcap         cong-2.pcap\n"
		"\n"
		"NON-STRICT linux/tcp/3: probe answered\n"
		"  level        SHOULD\n"
		"  requirement  a probe ping gets a pong\n"
		"  source       docs/kernel-behaviour.md\n"
		"  expected     probe pong\n"
		"  actual       no answer in 2 s\n"
		"  reason       only a SHOULD\n"
		"\n"
		"INFO linux/probe/4: probe extensions\n"
		"  level        INFO\n"
		"  requirement  which extensions a probe carries\n"
		"  source       net/rds/send.c rds_send_probe\n"
		"  actual       NPATHS 8, GEN_NUM, SPORT_IDX\n"
		"\n"
		"SKIP rds31/mpath/5: larger address refused\n"
		"  level        MUST\n"
		"  requirement  a larger address is refused\n"
		"  source       net/rds/tcp_listen.c\n"
		"  reason       no local address larger than the peer's\n"
		"\n"
		"ERROR rds31/seq/6: retransmit dropped\n"
		"  level        MUST\n"
		"  requirement  a retransmitted old seq is dropped\n"
		"  source       net/rds/recv.c\n"
		"  reason       connect: Connection refused\n"
		"\n"
		"6 cases: 1 PASS, 1 FAIL, 1 NON-STRICT, 1 INFO, 1 SKIP, 1 ERROR in 1.500 s; "
		"exit 1\n");
}

static void test_report_progress(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	cf_progress(f, &res[2]);
	fclose(f);
	assert_string_equal(buf, "NON-STRICT linux/tcp/3       probe answered\n");
	free(buf);
}

static void test_report_tap(void **state)
{
	(void)state;
	expect_output(CF_FMT_TAP,
		"TAP version 13\n"
		"1..6\n"
		"# rds-conform 0.1.0 peer 10.0.0.2:16385 (kernel 7.2.13 (AF_RDS)) started "
		"2024-05-01T10:00:00Z\n"
		"ok 1 - rds31/hdr/1 header is 48 bytes\n"
		"not ok 2 - rds31/cong/2 map length is 8192\n"
		"  ---\n"
		"  verdict: \"FAIL\"\n"
		"  level: \"MUST\"\n"
		"  requirement: \"a map is exactly 8192 bytes\"\n"
		"  source: \"net/rds/cong.c\"\n"
		"  expected: \"h_len 8192\"\n"
		"  actual: \"h_len 100 accepted\"\n"
		"  reason: \"\"\n"
		"  pcap: \"cong-2.pcap\"\n"
		"  duration_ms: 250.000\n"
		"  ...\n"
		"ok 3 - linux/tcp/3 probe answered\n"
		"  ---\n"
		"  verdict: \"NON-STRICT\"\n"
		"  level: \"SHOULD\"\n"
		"  requirement: \"a probe ping gets a pong\"\n"
		"  source: \"docs/kernel-behaviour.md\"\n"
		"  expected: \"probe pong\"\n"
		"  actual: \"no answer in 2 s\"\n"
		"  reason: \"only a SHOULD\"\n"
		"  duration_ms: 500.000\n"
		"  ...\n"
		"ok 4 - linux/probe/4 probe extensions\n"
		"  ---\n"
		"  verdict: \"INFO\"\n"
		"  level: \"INFO\"\n"
		"  requirement: \"which extensions a probe carries\"\n"
		"  source: \"net/rds/send.c rds_send_probe\"\n"
		"  expected: \"\"\n"
		"  actual: \"NPATHS 8, GEN_NUM, SPORT_IDX\"\n"
		"  reason: \"\"\n"
		"  duration_ms: 750.000\n"
		"  ...\n"
		"ok 5 - rds31/mpath/5 larger address refused # SKIP no local address larger than "
		"the peer's\n"
		"  ---\n"
		"  verdict: \"SKIP\"\n"
		"  level: \"MUST\"\n"
		"  requirement: \"a larger address is refused\"\n"
		"  source: \"net/rds/tcp_listen.c\"\n"
		"  expected: \"\"\n"
		"  actual: \"\"\n"
		"  reason: \"no local address larger than the peer's\"\n"
		"  duration_ms: 1000.000\n"
		"  ...\n"
		"not ok 6 - rds31/seq/6 retransmit dropped\n"
		"  ---\n"
		"  verdict: \"ERROR\"\n"
		"  level: \"MUST\"\n"
		"  requirement: \"a retransmitted old seq is dropped\"\n"
		"  source: \"net/rds/recv.c\"\n"
		"  expected: \"\"\n"
		"  actual: \"\"\n"
		"  reason: \"connect: Connection refused\"\n"
		"  duration_ms: 1250.000\n"
		"  ...\n"
		"# 6 cases: 1 PASS, 1 FAIL, 1 NON-STRICT, 1 INFO, 1 SKIP, 1 ERROR; exit 1\n");
}

/* TAP structure whatever the texts: one plan, one test line per result in
 * order, every YAML block opened and closed at two spaces. */
static void test_report_tap_lines(void **state)
{
	char *out = render(CF_FMT_TAP, &meta, res, 6), *save = NULL;
	int plans = 0, tests = 0, not_ok = 0, opened = 0, closed = 0;
	bool in_yaml = false;

	(void)state;
	for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char want[16];

		if (strcmp(l, "1..6") == 0) {
			plans++;
		} else if (strcmp(l, "  ---") == 0) {
			assert_false(in_yaml);
			in_yaml = true;
			opened++;
		} else if (strcmp(l, "  ...") == 0) {
			assert_true(in_yaml);
			in_yaml = false;
			closed++;
		} else if (in_yaml) {
			assert_true(strncmp(l, "  ", 2) == 0 && l[2] != ' ');
		} else if (strncmp(l, "ok ", 3) == 0 || strncmp(l, "not ok ", 7) == 0) {
			tests++;
			not_ok += l[0] == 'n';
			snprintf(want, sizeof(want), "%d - ", tests);
			assert_non_null(strstr(l, want));
		} else {
			assert_true(l[0] == '#' || strcmp(l, "TAP version 13") == 0);
		}
	}
	assert_int_equal(plans, 1);
	assert_int_equal(tests, 6);
	assert_int_equal(not_ok, 2);
	assert_int_equal(opened, 5);
	assert_int_equal(closed, 5);
	free(out);

	/* no results: a plan of 1..0 and nothing else */
	out = render(CF_FMT_TAP, &meta, res, 0);
	assert_non_null(strstr(out, "\n1..0\n"));
	assert_null(strstr(out, "ok "));
	free(out);
}

static void test_report_junit(void **state)
{
	(void)state;
	expect_output(CF_FMT_JUNIT,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<testsuites name=\"rds-conform\" tests=\"6\" failures=\"1\" errors=\"1\" "
		"skipped=\"1\" time=\"1.500\">\n"
		"  <testsuite name=\"rds-conform\" tests=\"6\" failures=\"1\" errors=\"1\" "
		"skipped=\"1\" time=\"1.500\" timestamp=\"2024-05-01T10:00:00Z\">\n"
		"    <properties>\n"
		"      <property name=\"peer\" value=\"10.0.0.2:16385\"/>\n"
		"      <property name=\"peer_stack\" value=\"kernel 7.2.13 (AF_RDS)\"/>\n"
		"      <property name=\"version\" value=\"0.1.0\"/>\n"
		"      <property name=\"strict\" value=\"false\"/>\n"
		"    </properties>\n"
		"    <testcase classname=\"rds31/hdr\" name=\"rds31/hdr/1\" time=\"0.000\"/>\n"
		"    <testcase classname=\"rds31/cong\" name=\"rds31/cong/2\" time=\"0.250\">\n"
		"      <failure message=\"h_len 100 accepted\" type=\"FAIL\">level: MUST\n"
		"requirement: a map is exactly 8192 bytes\n"
		"source: net/rds/cong.c\n"
		"expected: h_len 8192\n"
		"actual: h_len 100 accepted\n"
		"pcap: cong-2.pcap\n"
		"</failure>\n"
		"    </testcase>\n"
		"    <testcase classname=\"linux/tcp\" name=\"linux/tcp/3\" time=\"0.500\">\n"
		"      <system-out>NON-STRICT: probe answered\n"
		"level: SHOULD\n"
		"requirement: a probe ping gets a pong\n"
		"source: docs/kernel-behaviour.md\n"
		"expected: probe pong\n"
		"actual: no answer in 2 s\n"
		"reason: only a SHOULD\n"
		"</system-out>\n"
		"    </testcase>\n"
		"    <testcase classname=\"linux/probe\" name=\"linux/probe/4\" time=\"0.750\">\n"
		"      <system-out>INFO: probe extensions\n"
		"level: INFO\n"
		"requirement: which extensions a probe carries\n"
		"source: net/rds/send.c rds_send_probe\n"
		"actual: NPATHS 8, GEN_NUM, SPORT_IDX\n"
		"</system-out>\n"
		"    </testcase>\n"
		"    <testcase classname=\"rds31/mpath\" name=\"rds31/mpath/5\" time=\"1.000\">\n"
		"      <skipped message=\"no local address larger than the peer&apos;s\"/>\n"
		"    </testcase>\n"
		"    <testcase classname=\"rds31/seq\" name=\"rds31/seq/6\" time=\"1.250\">\n"
		"      <error message=\"connect: Connection refused\" type=\"ERROR\">level: MUST\n"
		"requirement: a retransmitted old seq is dropped\n"
		"source: net/rds/recv.c\n"
		"reason: connect: Connection refused\n"
		"</error>\n"
		"    </testcase>\n"
		"  </testsuite>\n"
		"</testsuites>\n");
}

static const char json_want[] =
	"{\n"
	"  \"meta\": {\n"
	"    \"peer\": \"10.0.0.2:16385\",\n"
	"    \"peer_stack\": \"kernel 7.2.13 (AF_RDS)\",\n"
	"    \"version\": \"0.1.0\",\n"
	"    \"started\": \"2024-05-01T10:00:00Z\",\n"
	"    \"strict\": false,\n"
	"    \"secs\": 1.500\n"
	"  },\n"
	"  \"counts\": {\n"
	"    \"PASS\": 1,\n"
	"    \"FAIL\": 1,\n"
	"    \"NON-STRICT\": 1,\n"
	"    \"INFO\": 1,\n"
	"    \"SKIP\": 1,\n"
	"    \"ERROR\": 1\n"
	"  },\n"
	"  \"total\": 6,\n"
	"  \"exit\": 1,\n"
	"  \"cases\": [\n"
	"    {\n"
	"      \"id\": \"rds31/hdr/1\",\n"
	"      \"level\": \"MUST\",\n"
	"      \"title\": \"header is 48 bytes\",\n"
	"      \"requirement\": \"a header is 48 bytes\",\n"
	"      \"source\": \"RDS 3.1 s2\",\n"
	"      \"needs\": [\n"
	"      ],\n"
	"      \"verdict\": \"PASS\",\n"
	"      \"expected\": \"48\",\n"
	"      \"actual\": \"48\",\n"
	"      \"reason\": \"\",\n"
	"      \"secs\": 0.000,\n"
	"      \"pcap\": null\n"
	"    },\n";

static void test_report_json(void **state)
{
	char *out = render(CF_FMT_JSON, &meta, res, 6);
	json_object *doc, *v, *cs, *c;

	(void)state;
	/* the head of the document exactly; the rest is read back */
	if (strncmp(out, json_want, strlen(json_want)) != 0)
		fprintf(stderr, "---- got:\n%s", out);
	assert_memory_equal(out, json_want, strlen(json_want));

	doc = json_tokener_parse(out);
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "exit", &v));
	assert_int_equal(json_object_get_int(v), 1);
	assert_true(json_object_object_get_ex(doc, "counts", &v));
	for (int i = 0; i < CF__VERDICTS; i++) {
		json_object *k;

		assert_true(json_object_object_get_ex(v, cf_verdict_name(i), &k));
		assert_int_equal(json_object_get_int(k), 1);
	}
	assert_true(json_object_object_get_ex(doc, "cases", &cs));
	assert_int_equal(json_object_array_length(cs), 6);
	for (size_t i = 0; i < 6; i++) {
		c = json_object_array_get_idx(cs, i);
		assert_true(json_object_object_get_ex(c, "id", &v));
		assert_string_equal(json_object_get_string(v), cases[i].id);
		assert_true(json_object_object_get_ex(c, "verdict", &v));
		assert_string_equal(json_object_get_string(v), cf_verdict_name(res[i].verdict));
		assert_true(json_object_object_get_ex(c, "secs", &v));
		assert_true(json_object_get_double(v) == 0.25 * (double)i);
	}
	c = json_object_array_get_idx(cs, 1);
	assert_true(json_object_object_get_ex(c, "actual", &v));
	assert_string_equal(json_object_get_string(v), "h_len 100 accepted");
	assert_true(json_object_object_get_ex(c, "pcap", &v));
	assert_string_equal(json_object_get_string(v), "cong-2.pcap");
	assert_true(json_object_object_get_ex(c, "needs", &v));
	assert_int_equal(json_object_array_length(v), 1);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(v, 0)), "agent");
	c = json_object_array_get_idx(cs, 4);
	assert_true(json_object_object_get_ex(c, "needs", &v));
	assert_int_equal(json_object_array_length(v), 2);
	json_object_put(doc);
	free(out);

	/* without an agent the peer's stack is null, not "" */
	{
		struct cf_meta m = meta;

		m.peer_stack = NULL;
		out = render(CF_FMT_JSON, &m, res, 6);
		assert_non_null(strstr(out, "\"peer_stack\": null"));
		free(out);
	}
}

/* What a hostile peer could make a case quote: markup, quotes, control
 * characters, an escape sequence, a lone continuation byte, an overlong
 * form, an encoded surrogate, a non-character, and a cut multi-byte char. */
static const char hostile[] =
	"<a href=\"x\">&amp;</a> ]]> 'q' \\ # \x01\x08\t\n\r\x1b[31m \x7f\xc2\x85 "
	"\x80 \xc0\xaf \xed\xa0\x80 \xef\xbf\xbe caf\xc3\xa9 \xe2\x82";
static const char hostile_disp[] =
	"<a href=\"x\">&amp;</a> ]]> 'q' \\\\ # \\x01\\x08\\x09\\x0a\\x0d\\x1b[31m \\x7f\\xc2\\x85 "
	"\\x80 \\xc0\\xaf \\xed\\xa0\\x80 \\xef\\xbf\\xbe caf\xc3\xa9 \\xe2\\x82";

static void make_hostile(struct cf_result *r, struct cf_meta *m)
{
	static const struct cf_case hc = { "evil/<&>/1", CF_MUST, "title \"<&'>\" #1",
					   "req \x02", "src", 0, NULL };

	*m = meta;
	m->peer_stack = hostile;
	for (int i = 0; i < 6; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		r[i].c = &hc;
		r[i].verdict = (enum cf_verdict)i;
		cf_text(r[i].expected, "%s", hostile);
		cf_text(r[i].actual, "%s", hostile);
		cf_text(r[i].reason, "%s", hostile);
	}
	/* and a field filled to the brim without a NUL */
	memset(r[0].actual, 'A', CF_TEXT);
}

static bool valid_utf8_no_ctl(const char *s, bool allow_nl)
{
	const unsigned char *u = (const unsigned char *)s;

	while (*u) {
		unsigned n = *u < 0x80 ? 1 : (*u & 0xe0) == 0xc0 ? 2 : (*u & 0xf0) == 0xe0 ? 3
			   : (*u & 0xf8) == 0xf0 ? 4 : 0;

		if (!n)
			return false;
		if (n == 1 && (*u < 0x20 || *u == 0x7f) && !(allow_nl && *u == '\n'))
			return false;
		for (unsigned i = 1; i < n; i++)
			if ((u[i] & 0xc0) != 0x80)
				return false;
		u += n;
	}
	return true;
}

static void test_report_hostile(void **state)
{
	struct cf_result r[6];
	struct cf_meta m;
	json_object *doc, *cs, *v;
	char *out;

	(void)state;
	make_hostile(r, &m);
	for (int f = CF_FMT_TEXT; f <= CF_FMT_JSON; f++) {
		out = render((enum cf_format)f, &m, r, 6);
		assert_true(valid_utf8_no_ctl(out, true));
		assert_null(strstr(out, "\x1b"));
		if (f == CF_FMT_JUNIT) {
			/* no raw markup from the peer survives */
			assert_null(strstr(out, "<a "));
			assert_null(strstr(out, "]]>"));
			assert_non_null(strstr(out, "&lt;a href=&quot;x&quot;&gt;&amp;amp;&lt;/a&gt;"));
			assert_non_null(strstr(out, "classname=\"evil/&lt;&amp;&gt;\""));
			assert_non_null(strstr(out, "&apos;q&apos;"));
		}
		if (f == CF_FMT_TAP) {
			/* a '#' from the peer in a description is not a directive */
			assert_non_null(strstr(out, "title \"<&'>\" \\#1\n"));
			assert_non_null(strstr(out, "# SKIP <a href"));
		}
		if (f == CF_FMT_TEXT)
			assert_non_null(strstr(out, hostile_disp));
		free(out);
	}

	out = render(CF_FMT_JSON, &m, r, 6);
	doc = json_tokener_parse(out);
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "cases", &cs));
	assert_true(json_object_object_get_ex(json_object_array_get_idx(cs, 1), "reason", &v));
	assert_string_equal(json_object_get_string(v), hostile_disp);
	assert_true(json_object_object_get_ex(json_object_array_get_idx(cs, 0), "actual", &v));
	assert_int_equal(strlen(json_object_get_string(v)), CF_TEXT);
	json_object_put(doc);
	free(out);
}

static void test_report_write_error(void **state)
{
	FILE *f = fopen("/dev/null", "r");

	(void)state;
	assert_non_null(f);
	for (int fmt = CF_FMT_TEXT; fmt <= CF_FMT_JSON; fmt++)
		assert_int_equal(cf_report(f, (enum cf_format)fmt, &meta, res, 6), -1);
	fclose(f);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_format_by_name),
		cmocka_unit_test_setup(test_report_text, setup),
		cmocka_unit_test_setup(test_report_progress, setup),
		cmocka_unit_test_setup(test_report_tap, setup),
		cmocka_unit_test_setup(test_report_tap_lines, setup),
		cmocka_unit_test_setup(test_report_junit, setup),
		cmocka_unit_test_setup(test_report_json, setup),
		cmocka_unit_test(test_report_hostile),
		cmocka_unit_test_setup(test_report_write_error, setup),
	};

	if (argc == 2) {
		struct cf_result r[6];
		struct cf_meta m;
		FILE *f = fopen(argv[1], "w");

		make_hostile(r, &m);
		if (!f || cf_report(f, CF_FMT_JUNIT, &m, r, 6) != 0)
			return 1;
		return fclose(f) != 0;
	}
	return cmocka_run_group_tests_name("conform_report", tests, NULL, NULL);
}
