/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * report.h - rds-conform: one set of results (conform.h) rendered as text,
 * TAP 13, JUnit XML or JSON. Pure: no I/O but the FILE it is given.
 */
#ifndef CONFORM_REPORT_H
#define CONFORM_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "conform.h"

enum cf_format {
	CF_FMT_TEXT = 0,
	CF_FMT_TAP,
	CF_FMT_JUNIT,
	CF_FMT_JSON,
};

/* What the run was, for every report's heading. */
struct cf_meta {
	const char *peer;        /* "10.0.0.2:16385" */
	const char *peer_stack;  /* from the agent: "kernel 7.2.13 (AF_RDS)",
				  * "librds 0.4.0", or NULL without an agent */
	const char *version;     /* rds-conform's own */
	const char *started;     /* ISO 8601 UTC */
	bool strict;
	bool lines_shown;        /* text: the heading and the per-case lines were
				  * already written to the same stream by
				  * cf_heading and cf_progress */
	double secs;             /* whole run */
};

/* cf_format_by_name() - "text", "tap", "junit", "json". Return: 0 and *f;
 * -1 for any other name. */
int cf_format_by_name(const char *name, enum cf_format *f);

/*
 * cf_report() - write the report of |n| results to |out|.
 *   text   a line per case (verdict, id, title), and for every result that
 *          is not PASS the requirement, expected, actual and reason; a
 *          summary line with the count of each verdict
 *   tap    TAP version 13: "ok"/"not ok" per case (FAIL and ERROR are not
 *          ok; SKIP is "ok ... # SKIP reason"; NON-STRICT and INFO are ok
 *          with a YAML block), YAML diagnostics with level, requirement,
 *          expected, actual, reason
 *   junit  one <testsuite> of <testcase classname="prefix" name="id">;
 *          FAIL as <failure>, ERROR as <error>, SKIP as <skipped>;
 *          NON-STRICT and INFO pass with <system-out> saying so
 *   json   one object: meta, counts per verdict, exit code, and an array of
 *          cases with every field of the case and the result
 * Return: 0; -1 if |out| reported an error.
 */
int cf_report(FILE *out, enum cf_format fmt, const struct cf_meta *m,
	      const struct cf_result *res, size_t n);

/*
 * cf_progress() - the text format's line for one result, written as each
 * case ends (so a long run shows progress); cf_report(CF_FMT_TEXT) then
 * writes the details and summary.
 */
void cf_progress(FILE *out, const struct cf_result *r);
/* cf_heading() - the text report's heading and a blank line, written before
 * the first cf_progress line when those are the report's case lines
 * (cf_meta.lines_shown; the report then leaves the heading out). */
void cf_heading(FILE *out, const struct cf_meta *m);

#endif /* CONFORM_REPORT_H */
