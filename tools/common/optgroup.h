/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * optgroup.h - what the shared option groups (rio_opt.h, out_opt.h,
 * src_opt.h) have in common: each declares all its options once, in one
 * table, and offers a tool the subset it asks for as an argp child.
 */
#ifndef RDSTK_OPTGROUP_H
#define RDSTK_OPTGROUP_H

#include <argp.h>
#include <stddef.h>

/*
 * optgroup_init() - |argp| as a child whose options are the entries of
 * |all| (|n| of them) that |set| offers, copied to |dst| (room for n + 1,
 * zeroed: the end mark), parsed by |parser|. An entry is offered when
 * set & bit(entry's key) is not 0; |bit| NULL: entry i is bit i.
 */
void optgroup_init(struct argp *argp, struct argp_option *dst, const struct argp_option *all,
		   size_t n, unsigned set, unsigned (*bit)(int key), argp_parser_t parser);

#endif /* RDSTK_OPTGROUP_H */
