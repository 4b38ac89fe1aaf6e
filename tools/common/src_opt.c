// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * src_opt.c - the sources a watching tool reads (src_opt.h).
 */
#define _GNU_SOURCE
#include "src_opt.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "optgroup.h"

/* Indexed by kind - 1: bit i of a set offers entry i. */
static const struct argp_option all[] = {
	{ "interface", 'i', "IFACE", 0, "capture live on IFACE (\"any\" for all)", 0 },
	{ "read", 'r', "FILE", 0, "read packets from a capture FILE (pcap or pcapng; \"-\" for stdin)",
	  0 },
	{ "kernel-info", SRC_KEY_KERNEL_INFO, NULL, 0,
	  "read the local kernel's RDS state (AF_RDS getsockopt RDS_INFO_*)", 0 },
	{ "librds", SRC_KEY_LIBRDS, "PID|PATH", 0,
	  "watch a librds process that publishes its monitor state (by process id, or its "
	  "socket's path)", 0 },
};

/* As messages name them, by kind - 1. */
static const char *const names[] = { "-i IFACE", "-r FILE", "--kernel-info", "--librds" };

const char *src_opt_names(const struct src_opt *so, char *buf, unsigned len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if ((so->set & (1u << i)) && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", names[i]);
	return buf;
}

void src_opt_take(struct src_opt *so, enum src_kind kind, const char *arg, struct argp_state *st)
{
	char b[80];

	if (so->kind != SRC_NONE)
		argp_error(st, "one source only: %s", src_opt_names(so, b, sizeof(b)));
	so->kind = kind;
	so->arg = arg;
}

static error_t parse(int key, char *arg, struct argp_state *st)
{
	struct src_opt *so = st->input;

	switch (key) {
	case 'i':
		src_opt_take(so, SRC_IFACE, arg, st);
		return 0;
	case 'r':
		src_opt_take(so, SRC_FILE, arg, st);
		return 0;
	case SRC_KEY_KERNEL_INFO:
		src_opt_take(so, SRC_KERNEL_INFO, arg, st);
		return 0;
	case SRC_KEY_LIBRDS:
		src_opt_take(so, SRC_LIBRDS, arg, st);
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

void src_opt_init(struct src_opt *so, unsigned set)
{
	memset(so, 0, sizeof(*so));
	so->set = set;
	optgroup_init(&so->argp, so->opts, all, sizeof(all) / sizeof(all[0]), set, NULL, parse);
}

enum wire_kver src_opt_kver_alias(struct argp_state *st, const char *arg)
{
	if (strcmp(arg, "6") && strcmp(arg, "7"))
		argp_error(st, "--kernel uses the kernel's RDS sockets, and %s opens none (it reads "
			       "and writes RDS's wire itself); the kernel generation to model is "
			       "--kver 6|7", program_invocation_short_name);
	fprintf(stderr, "%s: --kernel is deprecated: use --kver\n", program_invocation_short_name);
	return arg[0] == '6' ? WIRE_KVER_6 : WIRE_KVER_7;
}
