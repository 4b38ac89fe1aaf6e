// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rdsrun - run a program with librds-preload.so, so that its AF_RDS
 * sockets are librds's when the kernel has no RDS (docs/man/rdsrun.1.md).
 */
#define _GNU_SOURCE
#include <argp.h>
#include <stdbool.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "optdecl.h"

const char *argp_program_version = "rdsrun " RDSTK_VERSION;

#define SHIM_NAME "librds-preload.so"

struct opts {
	const char *library;
	bool force;
	int prog;           /* argv index of PROG */
};

/* rdsrun's options, once: --help and the parser both come from it. */
static const struct optdecl options[] = {
	{ 'f', "force", NULL, "use librds even where the kernel has AF_RDS (RDSRUN_FORCE=1)", 0, 0,
	  OPTD_FLAG, OPTD_FIELD(struct opts, force) },
	{ 'L', "library", "PATH", "the shim to preload instead of the one found", 0, 0, OPTD_STR,
	  OPTD_FIELD(struct opts, library) },
};

static error_t parse(int key, char *arg, struct argp_state *st)
{
	struct opts *o = st->input;

	switch (key) {
	case ARGP_KEY_ARG:
		/* PROG and everything after it are the program's. */
		o->prog = st->next - 1;
		st->next = st->argc;
		return 0;
	case ARGP_KEY_END:
		if (!o->prog)
			argp_error(st, "no program to run");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static bool readable(const char *p)
{
	return access(p, R_OK) == 0;
}

/* The shim beside this program (the build tree), in ../lib of its
 * directory (an install), or where it was installed. */
static const char *find_library(char *buf, size_t cap)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		char *dir;

		self[n] = '\0';
		dir = dirname(self);
		if ((size_t)snprintf(buf, cap, "%s/%s", dir, SHIM_NAME) < cap && readable(buf))
			return buf;
		if ((size_t)snprintf(buf, cap, "%s/../%s/%s", dir, RDSRUN_LIBDIR_NAME, SHIM_NAME) <
		    cap && readable(buf))
			return buf;
	}
	return RDSRUN_INSTALLED;
}

int main(int argc, char **argv)
{
	static struct opts o;
	static struct argp_option argp_opts[OPTD_N(options) + 1];
	static const struct argp ap = {
		NULL, parse, "PROG [ARG...]",
		"Run PROG with librds-preload.so, which gives it AF_RDS sockets backed by "
		"librds (RDS over TCP in userspace) when the kernel has no RDS module.\v"
		"The shim is appended to LD_PRELOAD, so what is already there keeps its "
		"place. Exit status: PROG's; 2 on usage errors, 126 if PROG could not be "
		"run, 127 if it was not found.",
		NULL, NULL, NULL
	};
	static const struct optdecl_cmd cmd = {
		&ap, options, OPTD_N(options), argp_opts, { NULL }, NULL, NULL, ARGP_IN_ORDER
	};
	static char lib[PATH_MAX];
	const char *path, *old;
	char *pre;

	optdecl_parse(&cmd, argc, argv, &o);
	path = o.library ? o.library : find_library(lib, sizeof(lib));
	if (!readable(path)) {
		fprintf(stderr, "rdsrun: %s: %s\n", path, strerror(errno));
		return 2;
	}
	old = getenv("LD_PRELOAD");
	if (old && *old) {
		if (asprintf(&pre, "%s:%s", old, path) < 0)
			return 2;
	} else {
		pre = strdup(path);
		if (!pre)
			return 2;
	}
	if (setenv("LD_PRELOAD", pre, 1) < 0 || (o.force && setenv("RDSRUN_FORCE", "1", 1) < 0)) {
		fprintf(stderr, "rdsrun: %s\n", strerror(errno));
		return 2;
	}
	free(pre);
	execvp(argv[o.prog], argv + o.prog);
	fprintf(stderr, "rdsrun: %s: %s\n", argv[o.prog], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
