// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rss.h - the resident memory of the running process, for the programs
 * that watch their own footprint (rdsloop's soak, bench/bench_peers.c).
 */
#ifndef RDS_TEST_RSS_H
#define RDS_TEST_RSS_H

#include <stdio.h>

/* rss_kb() - this process's resident memory (VmRSS) in KiB; -1 if unknown. */
static inline long rss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[128];
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

#endif
