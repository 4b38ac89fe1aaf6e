/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * out_opt.h - the output options every tool shares (-j/--json, -q/--quiet,
 * -v/--verbose), declared once as an argp child so that each flag has one
 * spelling, one help line and one meaning in every tool:
 *
 *   -j, --json     the results as JSON instead of text (through out.h)
 *   -q, --quiet    no line per record, reply or interval: the summary only
 *   -v, --verbose  more fields per record; -vv more still
 *
 * A tool offers the ones it has a use for (OUT_OPT_* bits); each writes
 * to the tool's own field as it is parsed, so the tool's parser sees it
 * at ARGP_KEY_END. Their header in --help is OUT_OPT_HEADER.
 */
#ifndef RDSTK_OUT_OPT_H
#define RDSTK_OUT_OPT_H

#include <argp.h>
#include <stdbool.h>

#define OUT_OPT_HEADER "Output:"

enum out_opt_set {
	OUT_OPT_JSON = 1u << 0,
	OUT_OPT_QUIET = 1u << 1,
	OUT_OPT_VERBOSE = 1u << 2,
};

struct out_opt {
	bool *json, *quiet;  /* the tool's fields; NULL when not offered */
	int *verbose;        /* counts -v, at most verbose_max */
	int verbose_max;
	struct argp argp;
	struct argp_option opts[4];
};

/*
 * out_opt_init() - the options of |set| as an argp child (&oo->argp)
 * writing to |json|, |quiet| and |verbose| (NULL for one not in |set|).
 * The tool lists the child with OUT_OPT_HEADER and hands |oo| to it at
 * ARGP_KEY_INIT (st->child_inputs[i] = oo).
 */
void out_opt_init(struct out_opt *oo, unsigned set, bool *json, bool *quiet, int *verbose,
		  int verbose_max);

#endif /* RDSTK_OUT_OPT_H */
