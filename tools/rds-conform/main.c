// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * main.c - rds-conform: subcommand dispatch. Only craft exists so far; the
 * conformance run, list and agent modes replace this file.
 */
#include <stdio.h>
#include <string.h>

#include "craft.h"

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "craft") == 0)
		return craft_main(argc - 1, argv + 1);
	fprintf(stderr, "rds-conform: other modes not yet written; try 'rds-conform craft --help'\n");
	return 2;
}
