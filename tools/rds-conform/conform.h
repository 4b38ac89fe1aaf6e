/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * conform.h - rds-conform: the case catalogue and the results that every
 * report renders.
 *
 * A case is a row of a static table (catalog.c) with a function that
 * drives a peer and fills one cf_result. Reports (report.c: text, TAP 13,
 * JUnit XML, JSON) and the man page's catalogue are renderings of the
 * table and the results; nothing about a case is written twice.
 */
#ifndef CONFORM_H
#define CONFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rds/rdsu.h>
#include <wire/wire.h>

/* What the requirement says: the spec's MUST / SHOULD, or a kernel
 * behaviour that is only reported (INFO level cases never fail). */
enum cf_level {
	CF_MUST = 0,
	CF_SHOULD,
	CF_INFO_ONLY,
};

/*
 * Verdicts. A case sets one of them; the driver applies --strict (a SHOULD
 * that was not met, or a known kernel departure from the spec, is
 * NON-STRICT; with --strict it becomes FAIL).
 *   PASS        the peer did what the requirement asks
 *   FAIL        it did not (a MUST, or anything under --strict)
 *   NON_STRICT  it did not, but only a SHOULD is broken, or it behaves as
 *               the Linux kernel does where the kernel departs from the
 *               spec (reason says which, per docs/kernel-behaviour.md)
 *   INFO        an observation, not a requirement (e.g. which extension
 *               headers the probe carried)
 *   SKIP        not run: a precondition is missing (no agent, no larger
 *               address, a feature the peer did not offer)
 *   ERROR       could not be run to a verdict (the peer vanished, a
 *               socket call failed); the reason says what happened
 */
enum cf_verdict {
	CF_PASS = 0,
	CF_FAIL,
	CF_NON_STRICT,
	CF_INFO,
	CF_SKIP,
	CF_ERROR,
	CF__VERDICTS
};

/* Preconditions a case needs (cf_case.needs). */
#define CF_NEED_AGENT 0x1        /* the side channel (rds-conform agent) */
#define CF_NEED_LARGER 0x2       /* a local address larger than the peer's */
#define CF_NEED_HOSTILE 0x4      /* may crash a faulty peer: runs last */
#define CF_NEED_IB 0x8           /* an IB case: runs with --transport ib, and
				  * only the IB cases run then */

#define CF_TEXT 480              /* expected / actual / reason, one line each */

struct cf_run;
struct cf_result;

struct cf_case {
	const char *id;          /* "rds31/cong/1", "linux/tcp/3", "ib/ack/1": stable */
	enum cf_level level;
	const char *title;       /* one line: what is checked */
	const char *requirement; /* the rule in words */
	const char *source;      /* where it comes from: spec section, kernel
				  * function, or docs/kernel-behaviour.md */
	unsigned needs;          /* CF_NEED_* */
	void (*run)(struct cf_run *r, struct cf_result *res);
};

struct cf_result {
	const struct cf_case *c;
	enum cf_verdict verdict;
	char expected[CF_TEXT];
	char actual[CF_TEXT];
	char reason[CF_TEXT];    /* for NON_STRICT, INFO, SKIP, ERROR, and
				  * FAIL when --strict made it one */
	double secs;             /* wall time the case took */
	double t0, t1;           /* when it ran (CLOCK_REALTIME, s): its part
				  * of a capture of the whole run */
	char pcap[256];          /* the saved exchange, "" if none */
};

/* The verdicts' and levels' names (wire_tok tables, for reports and for
 * tools that read them back). */
extern const struct wire_tok cf_verdict_toks[];
extern const struct wire_tok cf_level_toks[];
/* cf_verdict_name() - "PASS", "FAIL", "NON-STRICT", "INFO", "SKIP", "ERROR". */
const char *cf_verdict_name(enum cf_verdict v);
/* cf_level_name() - "MUST", "SHOULD", "INFO". */
const char *cf_level_name(enum cf_level l);

/* The catalogue, in run order (catalog.c). */
extern const struct cf_case cf_cases[];
extern const size_t cf_n_cases;

/* cf_case_selected() - |c|'s id equals |prefix| or starts with |prefix|
 * followed by '/', or |prefix| ends with '/' and is a prefix of the id. */
bool cf_case_selected(const struct cf_case *c, const char *prefix);

/* cf_text() - a printf-style text into |field| (one of a result's
 * expected, actual or reason); the text is cut to fit. */
void cf_text(char field[CF_TEXT], const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * cf_exit_code() - 1 if any result is FAIL; otherwise 2 if any is ERROR
 * (the suite could not check everything); otherwise 0.
 */
int cf_exit_code(const struct cf_result *res, size_t n);

#endif /* CONFORM_H */
