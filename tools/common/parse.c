// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * parse.c - command-line values (parse.h).
 */
#include "parse.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* strtoull takes blanks and a sign (and wraps "-1" to the maximum), so
 * both are refused before it runs. */
static int leading_digit(const char *s)
{
	return isdigit((unsigned char)*s);
}

/* The number at the start of |s|, and where it ends. */
static int lead_uint(const char *s, int base, uint64_t *v, char **end)
{
	unsigned long long n;

	if (!leading_digit(s))
		return -1;
	errno = 0;
	n = strtoull(s, end, base);
	if (errno || *end == s)
		return -1;
	*v = n;
	return 0;
}

/* |v| times 2^|shift|, or -1 when that does not fit. */
static int scale(uint64_t *v, unsigned shift)
{
	if (*v > (UINT64_MAX >> shift))
		return -1;
	*v <<= shift;
	return 0;
}

static int in_range(uint64_t v, uint64_t min, uint64_t max, uint64_t *out)
{
	if (v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int parse_uint(const char *s, int base, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	uint64_t v;

	if (lead_uint(s, base, &v, &end) < 0 || *end)
		return -1;
	return in_range(v, min, max, out);
}

/* A suffix from |units| (any case) scales by 1024 per place. */
static int parse_scaled(const char *s, const char *units, uint64_t min, uint64_t max,
			uint64_t *out)
{
	const char *u;
	char *end;
	uint64_t v;

	if (lead_uint(s, 10, &v, &end) < 0)
		return -1;
	if (*end) {
		u = strchr(units, toupper((unsigned char)*end));
		if (!u || end[1] || scale(&v, 10 * (unsigned)(u - units + 1)) < 0)
			return -1;
	}
	return in_range(v, min, max, out);
}

int parse_count(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	return parse_scaled(s, "KM", min, max, out);
}

int parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	return parse_scaled(s, "KMG", min, max, out);
}

int parse_list(const char *s, uint64_t min, uint64_t max, uint64_t *vals, unsigned cap)
{
	char buf[32];
	unsigned n = 0;
	size_t len;

	for (;;) {
		len = strcspn(s, ",");
		if (n == cap || len >= sizeof(buf))
			return -1;
		memcpy(buf, s, len);
		buf[len] = '\0';
		if (parse_count(buf, min, max, &vals[n]) < 0)
			return -1;
		n++;
		if (!s[len])
			return (int)n;
		s += len + 1;
	}
}

int parse_seconds(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int parse_addr(const char *s, struct rdsu_addr *a)
{
	struct in_addr v4;

	if (inet_pton(AF_INET, s, &v4) == 1) {
		*a = rdsu_addr_v4(ntohl(v4.s_addr));
		return 0;
	}
	if (inet_pton(AF_INET6, s, a->a) == 1)
		return 0;
	return -1;
}

const struct wire_tok parse_path_rule_toks[] = {
	{ RDSU_PATH_BY_PAIR, "pair" },
	{ RDSU_PATH_BY_PORT, "port" },
	{ 0, NULL },
};

int parse_path_rule(const char *s, enum rdsu_path_rule *out)
{
	uint32_t v;

	if (wire_tok_value(parse_path_rule_toks, s, &v) != 0)
		return -1;
	*out = (enum rdsu_path_rule)v;
	return 0;
}
