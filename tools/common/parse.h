/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * parse.h - the tools' command-line values: numbers, counts, seconds,
 * addresses and names, each taken whole (no sign, no trailing text) and
 * checked against a range, so every tool says "not a number" the same way.
 * Errors are reported by the caller, which knows the option's name.
 */
#ifndef RDSTK_PARSE_H
#define RDSTK_PARSE_H

#include <stdint.h>

#include <rds/rdsu.h>
#include <wire/wire.h>

/* parse_uint() - an unsigned number in |base| (10, or 0 for C's 0x and 0
 * prefixes) within [min, max]. Return: 0; -1 (empty, a sign, trailing
 * text, out of range). */
int parse_uint(const char *s, int base, uint64_t min, uint64_t max, uint64_t *out);

/* parse_count() - a decimal count within [min, max], with an optional K or
 * M suffix (x1024, x1048576). Return: 0; -1. */
int parse_count(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* parse_size() - bytes, or with a K, M or G suffix (powers of 1024),
 * within [min, max]. Return: 0; -1. */
int parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* parse_list() - a comma-separated list of at most |cap| counts, each as
 * parse_count() takes it. Return: the count (>= 1); -1. */
int parse_list(const char *s, uint64_t min, uint64_t max, uint64_t *vals, unsigned cap);

/* parse_seconds() - a decimal number of seconds within [min, max].
 * Return: 0; -1 (empty, trailing text, NaN). */
int parse_seconds(const char *s, double min, double max, double *out);

/* parse_addr() - "10.0.0.1" or "::1" into |a| (IPv4 as ::ffff:a.b.c.d).
 * Return: 0; -1. */
int parse_addr(const char *s, struct rdsu_addr *a);

/* The path rules' names, "pair" and "port" (an OPTD_ENUM's). */
extern const struct wire_tok parse_path_rule_toks[];

/* parse_path_rule() - "pair" or "port" (rdsu_ep_cfg.path_rule).
 * Return: 0; -1. */
int parse_path_rule(const char *s, enum rdsu_path_rule *out);

#endif /* RDSTK_PARSE_H */
