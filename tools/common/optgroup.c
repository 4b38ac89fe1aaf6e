// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * optgroup.c - a shared option group's subset as an argp child (optgroup.h).
 */
#include "optgroup.h"

#include <string.h>

void optgroup_init(struct argp *argp, struct argp_option *dst, const struct argp_option *all,
		   size_t n, unsigned set, unsigned (*bit)(int key), argp_parser_t parser)
{
	size_t k = 0;

	memset(argp, 0, sizeof(*argp));
	for (size_t i = 0; i < n; i++)
		if (set & (bit ? bit(all[i].key) : 1u << i))
			dst[k++] = all[i];
	memset(&dst[k], 0, sizeof(dst[k]));
	argp->options = dst;
	argp->parser = parser;
}
