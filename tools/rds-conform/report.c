// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * report.c - rds-conform: the results of a run as text, TAP 13, JUnit XML
 * or JSON (report.h). Ref: TAP 13 (testanything.org/tap-version-13),
 * the JUnit XML schema Jenkins and GitLab read, RFC 8259.
 *
 * A result's texts can hold whatever a peer sent (a case may quote the
 * bytes it got back), so every text goes through one display form before
 * any format sees it: valid, printable UTF-8 is kept; control characters
 * (C0, DEL, C1), the non-characters U+FFFE/U+FFFF and every byte that is
 * not part of valid UTF-8 are written \xNN, and a backslash \\ (as rdsdump
 * writes a peer's device name). The display form is valid UTF-8 with no
 * control characters, so it can neither break a terminal, a TAP line, an
 * XML document nor a JSON string; each format then escapes only its own
 * metacharacters.
 */
#define _POSIX_C_SOURCE 200809L /* strnlen */
#include "report.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>


#include "out.h"

/* ------------------------------------------------------------------------
 * The display form
 */

/* Length of the valid UTF-8 sequence at |s| (at most |n| bytes) and its
 * code point; 0 when s[0] does not start one (overlong forms, surrogates
 * and values above U+10FFFF are not valid). */
static size_t u8_next(const unsigned char *s, size_t n, uint32_t *cp)
{
	uint32_t c = s[0], min;
	size_t len;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2, c &= 0x1f, min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3, c &= 0x0f, min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4, c &= 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

static bool printable(uint32_t cp)
{
	return !(cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || cp == 0xfffe || cp == 0xffff);
}

/* The display form of |s| (NUL-terminated, or cut at |max| bytes), in a
 * buffer the caller frees; NULL when out of memory. */
static char *display(const char *s, size_t max)
{
	const unsigned char *u = (const unsigned char *)(s ? s : "");
	size_t n = strnlen((const char *)u, max);
	char *out = malloc(4 * n + 1), *o = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < n;) {
		uint32_t cp = 0;
		size_t len = u8_next(u + i, n - i, &cp);

		if (len && printable(cp)) {
			if (cp == '\\')
				*o++ = '\\';
			memcpy(o, u + i, len);
			o += len;
			i += len;
			continue;
		}
		/* escape the bytes of a control character, or the one bad byte */
		for (size_t k = 0; k < (len ? len : 1); k++, i++) {
			*o++ = '\\';
			*o++ = 'x';
			*o++ = wire_hex_digit(u[i] >> 4);
			*o++ = wire_hex_digit(u[i] & 15);
		}
	}
	*o = 0;
	return out;
}

/* Output state: the first error sticks, so the renderers need not check
 * every call. */
struct rep {
	FILE *f;
	bool err;
};

static void put(struct rep *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct rep *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vfprintf(o->f, fmt, ap) < 0)
		o->err = true;
	va_end(ap);
}

enum esc {
	ESC_NONE,       /* text */
	ESC_YAML,       /* inside a YAML double-quoted scalar */
	ESC_TAP_DESC,   /* a TAP description: '#' would start a directive */
	ESC_XML,        /* XML text and attribute values */
};

/* Write the display form of |s| with the escapes of |e|. */
static void put_text(struct rep *o, const char *s, size_t max, enum esc e)
{
	char *d = display(s, max);

	if (!d) {
		o->err = true;
		return;
	}
	for (const char *p = d; *p; p++) {
		const char *rep = NULL;

		switch (e) {
		case ESC_NONE:
			break;
		case ESC_YAML:
			if (*p == '"')
				rep = "\\\"";
			else if (*p == '\\')
				rep = "\\\\";
			break;
		case ESC_TAP_DESC:
			if (*p == '#')
				rep = "\\#";
			break;
		case ESC_XML:
			switch (*p) {
			case '&':
				rep = "&amp;";
				break;
			case '<':
				rep = "&lt;";
				break;
			case '>':
				rep = "&gt;";
				break;
			case '"':
				rep = "&quot;";
				break;
			case '\'':
				rep = "&apos;";
				break;
			}
			break;
		}
		if (rep ? fputs(rep, o->f) < 0 : putc(*p, o->f) == EOF)
			o->err = true;
	}
	free(d);
}

/* Case fields, with a stand-in when a result has no case (a driver bug,
 * but a report still renders). */
static const char *c_id(const struct cf_result *r)
{
	return r->c && r->c->id ? r->c->id : "?";
}

#define C_STR(r, field) ((r)->c && (r)->c->field ? (r)->c->field : "")

/* How a format writes a labelled text: |open|, the label (padded to
 * |width|), |sep|, the text with the escapes of |e|, |close|; an empty text
 * too where |empty| says so. */
struct form {
	const char *open;
	int width;
	const char *sep;
	enum esc e;
	const char *close;
	bool empty;
};

static const struct form text_line = { "  ", 12, " ", ESC_NONE, "\n", false };
static const struct form yaml_line = { "  ", 0, ": \"", ESC_YAML, "\"\n", true };
static const struct form xml_line = { "", 0, ": ", ESC_XML, "\n", false };
static const struct form xml_attr = { " ", 0, "=\"", ESC_XML, "\"", true };

/* |s| (NULL: empty) labelled in form |fm|. */
static void labelled(struct rep *o, const struct form *fm, const char *label, const char *s,
		     size_t max)
{
	if ((!s || !*s) && !fm->empty)
		return;
	put(o, "%s%-*s%s", fm->open, fm->width, label, fm->sep);
	put_text(o, s, max, fm->e);
	put(o, "%s", fm->close);
}

/* A result's details, in the order every format lists them; a level
 * without a case and an empty pcap are left out in every format. */
static void details(struct rep *o, const struct cf_result *r, const struct form *fm)
{
	if (r->c)
		labelled(o, fm, "level", cf_level_name(r->c->level), SIZE_MAX);
	labelled(o, fm, "requirement", C_STR(r, requirement), SIZE_MAX);
	labelled(o, fm, "source", C_STR(r, source), SIZE_MAX);
	labelled(o, fm, "expected", r->expected, CF_TEXT);
	labelled(o, fm, "actual", r->actual, CF_TEXT);
	labelled(o, fm, "reason", r->reason, CF_TEXT);
	if (r->pcap[0])
		labelled(o, fm, "pcap", r->pcap, sizeof(r->pcap));
}

static void count(const struct cf_result *res, size_t n, size_t counts[CF__VERDICTS])
{
	memset(counts, 0, sizeof(size_t) * CF__VERDICTS);
	for (size_t i = 0; i < n; i++)
		if ((unsigned)res[i].verdict < CF__VERDICTS)
			counts[res[i].verdict]++;
}

/* ------------------------------------------------------------------------
 * Text
 */

static void progress(struct rep *o, const struct cf_result *r)
{
	size_t idl = strlen(c_id(r));

	put(o, "%-10s ", cf_verdict_name(r->verdict));
	put_text(o, c_id(r), SIZE_MAX, ESC_NONE);
	/* IDs are short ASCII (catalog.c): a column keeps titles aligned. */
	put(o, "%*s", idl < 18 ? (int)(18 - idl) : 1, "");
	put_text(o, C_STR(r, title), SIZE_MAX, ESC_NONE);
	put(o, "\n");
}

void cf_progress(FILE *out, const struct cf_result *r)
{
	struct rep o = { out, false };

	progress(&o, r);
	fflush(out);
}

static void summary(struct rep *o, const size_t counts[CF__VERDICTS], size_t n)
{
	put(o, "%zu cases:", n);
	for (int v = 0; v < CF__VERDICTS; v++)
		put(o, "%s %zu %s", v ? "," : "", counts[v], cf_verdict_name(v));
}

/* The run in one line: the text report's heading, and (with |tap|, its
 * separators plain) the comment after TAP's plan. */
static void heading(struct rep *o, const struct cf_meta *m, bool tap)
{
	put(o, tap ? "# rds-conform " : "rds-conform ");
	put_text(o, m->version, SIZE_MAX, ESC_NONE);
	put(o, tap ? " peer " : ": peer ");
	put_text(o, m->peer, SIZE_MAX, ESC_NONE);
	if (m->peer_stack) {
		put(o, " (");
		put_text(o, m->peer_stack, SIZE_MAX, ESC_NONE);
		put(o, ")");
	}
	if (m->started) {
		put(o, tap ? " started " : ", started ");
		put_text(o, m->started, SIZE_MAX, ESC_NONE);
	}
	put(o, "%s\n", !m->strict ? "" : tap ? " strict" : ", strict");
}

void cf_heading(FILE *out, const struct cf_meta *m)
{
	struct rep o = { out, false };

	heading(&o, m, false);
	put(&o, "\n");
	fflush(out);
}

static void report_text(struct rep *o, const struct cf_meta *m, const struct cf_result *res,
			size_t n)
{
	size_t counts[CF__VERDICTS];

	count(res, n, counts);
	if (!m->lines_shown)
		heading(o, m, false);
	if (!m->lines_shown) {
		put(o, "\n");
		for (size_t i = 0; i < n; i++)
			progress(o, &res[i]);
	}
	for (size_t i = 0; i < n; i++) {
		const struct cf_result *r = &res[i];

		if (r->verdict == CF_PASS)
			continue;
		put(o, "\n%s ", cf_verdict_name(r->verdict));
		put_text(o, c_id(r), SIZE_MAX, ESC_NONE);
		put(o, ": ");
		put_text(o, C_STR(r, title), SIZE_MAX, ESC_NONE);
		put(o, "\n");
		details(o, r, &text_line);
	}
	put(o, "\n");
	summary(o, counts, n);
	put(o, " in %.3f s; exit %d\n", m->secs, cf_exit_code(res, n));
}

/* ------------------------------------------------------------------------
 * TAP 13
 */

static void report_tap(struct rep *o, const struct cf_meta *m, const struct cf_result *res,
		       size_t n)
{
	size_t counts[CF__VERDICTS];

	count(res, n, counts);
	put(o, "TAP version 13\n1..%zu\n", n);
	heading(o, m, true);
	for (size_t i = 0; i < n; i++) {
		const struct cf_result *r = &res[i];
		bool ok = r->verdict != CF_FAIL && r->verdict != CF_ERROR;

		put(o, "%s %zu - ", ok ? "ok" : "not ok", i + 1);
		put_text(o, c_id(r), SIZE_MAX, ESC_TAP_DESC);
		put(o, " ");
		put_text(o, C_STR(r, title), SIZE_MAX, ESC_TAP_DESC);
		if (r->verdict == CF_SKIP) {
			/* a directive runs to the end of the line: only the
			 * display form's own guarantees are needed */
			put(o, " # SKIP ");
			put_text(o, r->reason, CF_TEXT, ESC_NONE);
		}
		put(o, "\n");
		if (r->verdict == CF_PASS)
			continue;
		put(o, "  ---\n");
		put(o, "  verdict: \"%s\"\n", cf_verdict_name(r->verdict));
		details(o, r, &yaml_line);
		put(o, "  duration_ms: %.3f\n", r->secs * 1000.0);
		put(o, "  ...\n");
	}
	put(o, "# ");
	summary(o, counts, n);
	put(o, "; exit %d\n", cf_exit_code(res, n));
}

/* ------------------------------------------------------------------------
 * JUnit XML
 */

/* The attributes <testsuites> and its one <testsuite> share. */
static void xml_suite(struct rep *o, const struct cf_meta *m, const size_t counts[CF__VERDICTS],
		      size_t n)
{
	put(o, " name=\"rds-conform\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
	       "skipped=\"%zu\" time=\"%.3f\"",
	    n, counts[CF_FAIL], counts[CF_ERROR], counts[CF_SKIP], m->secs);
}

static void xml_property(struct rep *o, const char *name, const char *value)
{
	put(o, "      <property");
	labelled(o, &xml_attr, "name", name, SIZE_MAX);
	labelled(o, &xml_attr, "value", value, SIZE_MAX);
	put(o, "/>\n");
}

static void report_junit(struct rep *o, const struct cf_meta *m, const struct cf_result *res,
			 size_t n)
{
	size_t counts[CF__VERDICTS];

	count(res, n, counts);
	put(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites");
	xml_suite(o, m, counts, n);
	put(o, ">\n  <testsuite");
	xml_suite(o, m, counts, n);
	if (m->started)
		labelled(o, &xml_attr, "timestamp", m->started, SIZE_MAX);
	put(o, ">\n    <properties>\n");
	xml_property(o, "peer", m->peer);
	if (m->peer_stack)
		xml_property(o, "peer_stack", m->peer_stack);
	xml_property(o, "version", m->version);
	xml_property(o, "strict", m->strict ? "true" : "false");
	put(o, "    </properties>\n");
	for (size_t i = 0; i < n; i++) {
		const struct cf_result *r = &res[i];
		const char *id = c_id(r), *slash = strrchr(id, '/');
		/* the id up to its last component: "rds31/cong" of "rds31/cong/1" */
		size_t plen = slash ? (size_t)(slash - id) : strlen(id);
		const char *msg = r->reason[0] ? r->reason : r->actual;

		put(o, "    <testcase");
		labelled(o, &xml_attr, "classname", id, plen);
		labelled(o, &xml_attr, "name", id, SIZE_MAX);
		put(o, " time=\"%.3f\"", r->secs);
		switch (r->verdict) {
		case CF_PASS:
			put(o, "/>\n");
			continue;
		case CF_FAIL:
		case CF_ERROR:
			put(o, ">\n      <%s", r->verdict == CF_FAIL ? "failure" : "error");
			labelled(o, &xml_attr, "message", msg, CF_TEXT);
			put(o, " type=\"%s\">", cf_verdict_name(r->verdict));
			details(o, r, &xml_line);
			put(o, "</%s>\n", r->verdict == CF_FAIL ? "failure" : "error");
			break;
		case CF_SKIP:
			put(o, ">\n      <skipped");
			labelled(o, &xml_attr, "message", r->reason, CF_TEXT);
			put(o, "/>\n");
			break;
		default:
			put(o, ">\n      <system-out>%s: ", cf_verdict_name(r->verdict));
			put_text(o, C_STR(r, title), SIZE_MAX, ESC_XML);
			put(o, "\n");
			details(o, r, &xml_line);
			put(o, "</system-out>\n");
			break;
		}
		put(o, "    </testcase>\n");
	}
	put(o, "  </testsuite>\n</testsuites>\n");
}

/* ------------------------------------------------------------------------
 * JSON
 */

#define F(k, t, ...) { .key = (k), .type = (t), __VA_ARGS__ }

/* Seconds with three decimals, as the other formats print them, so that a
 * double's 17 digits do not make the document depend on rounding noise. */
#define SECS(k) F(k, OUT_FIXED, .digits = 3)

static const struct wire_tok need_toks[] = {
	{ CF_NEED_AGENT, "agent" },
	{ CF_NEED_LARGER, "larger" },
	{ CF_NEED_HOSTILE, "hostile" },
	{ 0, NULL },
};

enum {
	JC_ID, JC_LEVEL, JC_TITLE, JC_REQUIREMENT, JC_SOURCE, JC_NEEDS, JC_VERDICT,
	JC_EXPECTED, JC_ACTUAL, JC_REASON, JC_SECS, JC_PCAP, JC__N
};
static const struct out_field case_fields[JC__N] = {
	[JC_ID] = F("id", OUT_STR),
	[JC_LEVEL] = F("level", OUT_STR, .names = cf_level_toks),
	[JC_TITLE] = F("title", OUT_STR),
	[JC_REQUIREMENT] = F("requirement", OUT_STR),
	[JC_SOURCE] = F("source", OUT_STR),
	[JC_NEEDS] = F("needs", OUT_ARRAY, .names = need_toks),
	[JC_VERDICT] = F("verdict", OUT_STR, .names = cf_verdict_toks),
	[JC_EXPECTED] = F("expected", OUT_STR),
	[JC_ACTUAL] = F("actual", OUT_STR),
	[JC_REASON] = F("reason", OUT_STR),
	[JC_SECS] = SECS("secs"),
	[JC_PCAP] = F("pcap", OUT_STR),
};
static const struct out_group case_group = OUT_GROUP("case", case_fields);

enum { JM_PEER, JM_PEER_STACK, JM_VERSION, JM_STARTED, JM_STRICT, JM_SECS, JM__N };
static const struct out_field meta_fields[JM__N] = {
	[JM_PEER] = F("peer", OUT_STR),
	[JM_PEER_STACK] = F("peer_stack", OUT_STR),
	[JM_VERSION] = F("version", OUT_STR),
	[JM_STARTED] = F("started", OUT_STR),
	[JM_STRICT] = F("strict", OUT_BOOL),
	[JM_SECS] = SECS("secs"),
};
static const struct out_group meta_group = OUT_GROUP("meta", meta_fields);

enum { JD_META, JD_COUNTS, JD_TOTAL, JD_EXIT, JD_CASES, JD__N };
static const struct out_field doc_fields[JD__N] = {
	[JD_META] = F("meta", OUT_OBJECT, .sub = &meta_group),
	[JD_COUNTS] = F("counts", OUT_OBJECT), /* verdict name: cases */
	[JD_TOTAL] = F("total", OUT_U64),
	[JD_EXIT] = F("exit", OUT_I64),
	[JD_CASES] = F("cases", OUT_ARRAY, .sub = &case_group),
};
static const struct out_group doc_group = OUT_GROUP("report", doc_fields);

#undef SECS
#undef F

/* A string in display form, or null for NULL. */
static void j_str(struct out *j, unsigned id, const char *s, size_t max)
{
	char *d = s ? display(s, max) : NULL;

	if (s && !d)
		j->err = true;
	out_str(j, id, d);
	free(d);
}

static void j_case(struct out *j, const struct cf_result *r)
{
	out_elem_obj(j);
	j_str(j, JC_ID, c_id(r), SIZE_MAX);
	j_str(j, JC_LEVEL, r->c ? cf_level_name(r->c->level) : NULL, SIZE_MAX);
	j_str(j, JC_TITLE, C_STR(r, title), SIZE_MAX);
	j_str(j, JC_REQUIREMENT, C_STR(r, requirement), SIZE_MAX);
	j_str(j, JC_SOURCE, C_STR(r, source), SIZE_MAX);
	out_arr_open(j, JC_NEEDS);
	for (const struct wire_tok *t = need_toks; r->c && t->name; t++)
		if (r->c->needs & t->value)
			out_elem_str(j, t->name);
	out_close(j);
	j_str(j, JC_VERDICT, cf_verdict_name(r->verdict), SIZE_MAX);
	j_str(j, JC_EXPECTED, r->expected, CF_TEXT);
	j_str(j, JC_ACTUAL, r->actual, CF_TEXT);
	j_str(j, JC_REASON, r->reason, CF_TEXT);
	out_double(j, JC_SECS, r->secs);
	j_str(j, JC_PCAP, r->pcap[0] ? r->pcap : NULL, sizeof(r->pcap));
	out_close(j);
}

static void report_json(struct rep *o, const struct cf_meta *m, const struct cf_result *res,
			size_t n)
{
	struct out *j = malloc(sizeof(*j));
	size_t cnt[CF__VERDICTS];

	if (!j) {
		o->err = true;
		return;
	}
	count(res, n, cnt);
	out_init(j, o->f, OUT_JSON, 0, OUT_JSON_PRETTY | OUT_JSON_SPACED | OUT_JSON_NOSLASH);
	out_begin(j, &doc_group);
	out_obj_open(j, JD_META);
	j_str(j, JM_PEER, m->peer, SIZE_MAX);
	j_str(j, JM_PEER_STACK, m->peer_stack, SIZE_MAX);
	j_str(j, JM_VERSION, m->version, SIZE_MAX);
	j_str(j, JM_STARTED, m->started, SIZE_MAX);
	out_bool(j, JM_STRICT, m->strict);
	out_double(j, JM_SECS, m->secs);
	out_close(j);
	out_obj_open(j, JD_COUNTS);
	for (int v = 0; v < CF__VERDICTS; v++)
		out_member_u64(j, cf_verdict_name(v), cnt[v]);
	out_close(j);
	out_u64(j, JD_TOTAL, n);
	out_i64(j, JD_EXIT, cf_exit_code(res, n));
	out_arr_open(j, JD_CASES);
	for (size_t i = 0; i < n; i++)
		j_case(j, &res[i]);
	out_close(j);
	out_end(j);
	if (j->err || ferror(o->f))
		o->err = true;
	out_fini(j);
	free(j);
}

/* ------------------------------------------------------------------------
 * The formats
 */

static const struct {
	const char *name;
	void (*report)(struct rep *o, const struct cf_meta *m, const struct cf_result *res,
		       size_t n);
} formats[] = {
	[CF_FMT_TEXT] = { "text", report_text },
	[CF_FMT_TAP] = { "tap", report_tap },
	[CF_FMT_JUNIT] = { "junit", report_junit },
	[CF_FMT_JSON] = { "json", report_json },
};

int cf_format_by_name(const char *name, enum cf_format *f)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		if (strcmp(name, formats[i].name) == 0) {
			*f = (enum cf_format)i;
			return 0;
		}
	}
	return -1;
}

int cf_report(FILE *out, enum cf_format fmt, const struct cf_meta *m,
	      const struct cf_result *res, size_t n)
{
	struct rep o = { out, false };

	if ((size_t)fmt >= sizeof(formats) / sizeof(formats[0]))
		return -1;
	formats[fmt].report(&o, m, res, n);
	if (fflush(out) != 0 || ferror(out))
		o.err = true;
	return o.err ? -1 : 0;
}
