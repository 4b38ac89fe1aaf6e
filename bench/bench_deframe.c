// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * bench_deframe.c - throughput of the RDS/TCP deframer plus classifier on a
 * large synthetic stream held in memory, fed in recv()-sized chunks.
 *
 *   bench_deframe [--size BYTES] [--stream MiB] [--chunk BYTES] [--passes N]
 *                 [--touch 0|1]
 *
 * The deframer hands out payloads in place, so without --touch 1 a 4 KiB
 * payload is never read; --touch 1 makes the consumer read every payload
 * byte, which is what an application that uses its data pays.
 *
 * Prints one line per run: payload size, stream bytes, messages, seconds,
 * GB/s (stream bytes, 10^9) and million messages per second.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <wire/wire.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint8_t *build_stream(uint32_t size, size_t target, size_t *len, size_t *nmsg)
{
	size_t rec = WIRE_HDR_LEN + size;
	size_t n = target / rec;
	uint8_t *s = malloc(n * rec);

	if (!s)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		struct wire_hdr h;
		uint8_t *p = s + i * rec;

		/* A mix like a real connection: mostly data, some pings/pongs. */
		if (size == 0 && i % 8 == 7)
			wire_build_pong(&h, i + 1, 4000);
		else
			wire_build_data(&h, i + 1, 4000 + (uint16_t)(i & 7), 5000, size);
		wire_hdr_encode(&h, p, WIRE_HDR_LEN);
		memset(p + WIRE_HDR_LEN, (int)(i & 0xff), size);
	}
	*len = n * rec;
	*nmsg = n;
	return s;
}

int main(int argc, char **argv)
{
	uint32_t size = 4096;
	size_t stream_mib = 512, chunk = 65536, passes = 5, touch = 0;
	uint64_t sink = 0;
	static uint8_t gather[WIRE_MAX_MSG_LEN];
	size_t len, nmsg;
	uint8_t *s;
	double best = 1e30;
	uint64_t kinds[WIRE_KIND__COUNT] = { 0 };

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--size"))
			size = (uint32_t)strtoul(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--stream"))
			stream_mib = strtoul(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--chunk"))
			chunk = strtoul(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--passes"))
			passes = strtoul(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--touch"))
			touch = strtoul(argv[i + 1], NULL, 0);
		else {
			fprintf(stderr, "usage: %s [--size B] [--stream MiB] [--chunk B] [--passes N]\n",
				argv[0]);
			return 2;
		}
	}
	if (!chunk || !passes || size > WIRE_MAX_MSG_LEN) {
		fprintf(stderr, "bench_deframe: bad arguments\n");
		return 2;
	}
	s = build_stream(size, stream_mib << 20, &len, &nmsg);
	if (!s) {
		fprintf(stderr, "bench_deframe: out of memory\n");
		return 2;
	}
	for (size_t pass = 0; pass < passes; pass++) {
		struct wire_deframer d;
		size_t got = 0;
		double t0, t;

		wire_deframer_init(&d, 0, gather, sizeof(gather));
		t0 = now_s();
		for (size_t off = 0; off < len; off += chunk) {
			size_t n = len - off < chunk ? len - off : chunk;
			const uint8_t *p = s + off;

			while (n) {
				struct wire_frame f;
				bool ready;
				ssize_t used = wire_deframer_input(&d, p, n, &f, &ready);

				if (used < 0) {
					fprintf(stderr, "deframer: %s\n", wire_strerror((int)used));
					return 1;
				}
				p += used;
				n -= (size_t)used;
				if (ready) {
					kinds[wire_classify(&f.hdr, WIRE_XPORT_TCP)]++;
					got++;
					if (touch) {
						uint64_t w, x = 0;

						for (uint32_t k = 0; k + 8 <= f.len; k += 8) {
							memcpy(&w, f.payload + k, 8);
							x ^= w;
						}
						sink += x;
					}
				}
			}
		}
		t = now_s() - t0;
		if (got != nmsg) {
			fprintf(stderr, "bench_deframe: %zu of %zu messages\n", got, nmsg);
			return 1;
		}
		if (t < best)
			best = t;
	}
	printf("size=%u stream_bytes=%zu chunk=%zu touch=%zu messages=%zu best_s=%.4f "
	       "GB_per_s=%.2f Mmsg_per_s=%.1f data=%llu pong=%llu sink=%llu\n",
	       size, len, chunk, touch, nmsg, best, (double)len / best / 1e9,
	       (double)nmsg / best / 1e6, (unsigned long long)kinds[WIRE_KIND_DATA],
	       (unsigned long long)kinds[WIRE_KIND_PONG] / passes,
	       (unsigned long long)(sink & 1));
	free(s);
	return 0;
}
