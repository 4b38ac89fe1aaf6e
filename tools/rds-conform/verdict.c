// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * verdict.c - rds-conform: names, selection and the exit code, shared by
 * the driver, the reports and their tests.
 */
#include "conform.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const struct wire_tok cf_verdict_toks[] = {
	{ CF_PASS, "PASS" }, { CF_FAIL, "FAIL" }, { CF_NON_STRICT, "NON-STRICT" },
	{ CF_INFO, "INFO" }, { CF_SKIP, "SKIP" }, { CF_ERROR, "ERROR" },
	{ 0, NULL },
};

const struct wire_tok cf_level_toks[] = {
	{ CF_MUST, "MUST" },
	{ CF_SHOULD, "SHOULD" },
	{ CF_INFO_ONLY, "INFO" },
	{ 0, NULL },
};

WIRE_TOK_NAMER(cf_verdict_name, enum cf_verdict, cf_verdict_toks)

WIRE_TOK_NAMER(cf_level_name, enum cf_level, cf_level_toks)

bool cf_case_selected(const struct cf_case *c, const char *prefix)
{
	size_t n = strlen(prefix);

	if (n == 0)
		return true;
	if (strncmp(c->id, prefix, n) != 0)
		return false;
	/* "rds31/cong" selects rds31/cong/1 but not rds31/congestion/1. */
	return c->id[n] == '\0' || c->id[n] == '/' || prefix[n - 1] == '/';
}

void cf_text(char field[CF_TEXT], const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(field, CF_TEXT, fmt, ap);
	va_end(ap);
}

int cf_exit_code(const struct cf_result *res, size_t n)
{
	bool error = false;

	for (size_t i = 0; i < n; i++) {
		if (res[i].verdict == CF_FAIL)
			return 1;
		if (res[i].verdict == CF_ERROR)
			error = true;
	}
	return error ? 2 : 0;
}
