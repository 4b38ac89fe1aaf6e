// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * out_opt.c - the output options every tool shares (out_opt.h).
 */
#include "out_opt.h"

#include <string.h>

#include "optgroup.h"

/* One help line each, the same in every tool's --help. */
static const struct argp_option all[] = {
	{ "json", 'j', NULL, 0, "the results as JSON instead of text", 0 },
	{ "quiet", 'q', NULL, 0, "no line per record, reply or interval: the summary only", 0 },
	{ "verbose", 'v', NULL, 0, "more fields per record; -vv more still", 0 },
};

static error_t parse(int key, char *arg, struct argp_state *st)
{
	const struct out_opt *oo = st->input;

	(void)arg;
	switch (key) {
	case 'j':
		*oo->json = true;
		return 0;
	case 'q':
		*oo->quiet = true;
		return 0;
	case 'v':
		if (*oo->verbose < oo->verbose_max)
			(*oo->verbose)++;
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

void out_opt_init(struct out_opt *oo, unsigned set, bool *json, bool *quiet, int *verbose,
		  int verbose_max)
{
	*oo = (struct out_opt){
		.json = json, .quiet = quiet, .verbose = verbose, .verbose_max = verbose_max
	};
	optgroup_init(&oo->argp, oo->opts, all, sizeof(all) / sizeof(all[0]), set, NULL, parse);
}
