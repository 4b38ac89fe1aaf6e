// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * fuzz_perfctl.c - rdsperf's control-message decoders, which read what a
 * remote peer sent. Every decoder sees the input as one line; a start
 * message that decodes must pass the range checks and survive encode ->
 * decode unchanged, and so must a result. Properties abort().
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool ok)
{
	if (!ok)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = malloc(size + 1), err[256];
	struct perf_params p, q;
	struct perf_result r;
	uint16_t ports[PERF_MAX_SOCKS];
	bool kernel, reverse;

	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = 0;
	if (ctl_parse_start(line, &p, err, sizeof(err)) == 0) {
		char *again = ctl_start_line(&p);

		check(perf_params_check(&p, err, sizeof(err)) == 0);
		check(again != NULL);
		again[strlen(again) - 1] = 0;
		check(ctl_parse_start(again, &q, err, sizeof(err)) == 0);
		check(!memcmp(&p, &q, sizeof(p)));
		free(again);
	}
	(void)ctl_parse_ready(line, ports, 1 + (size % PERF_MAX_SOCKS), &kernel, &reverse, err, sizeof(err));
	if (ctl_parse_result(line, &r, err, sizeof(err)) == 0) {
		/* a result that decodes, its RDMA digest too, survives
		 * encode -> decode unchanged */
		struct perf_result s;
		char *again = ctl_result_line(&r);

		check(again != NULL);
		again[strlen(again) - 1] = 0;
		check(ctl_parse_result(again, &s, err, sizeof(err)) == 0);
		check(s.has_hash == r.has_hash && s.region_hash == r.region_hash &&
		      s.msgs == r.msgs && s.kernel == r.kernel);
		free(again);
	}
	(void)ctl_parse_stop(line, err, sizeof(err));
	free(line);
	return 0;
}
