// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* fuzz_deframe.c - the deframer yields the same messages whatever the
 * chunking, and in lend mode (a buffer grown on demand, never beyond twice
 * the bytes gathered) the same as with a fixed one: the first input byte
 * seeds the chunk sizes, the rest is the stream. A small limit keeps
 * hostile h_len values cheap. */
#include <stdlib.h>
#include <string.h>

#include <wire/wire.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define LIMIT 4096
#define MAXMSG 256

struct rec {
	uint64_t offset;
	uint32_t len;
	uint64_t seq;
	uint32_t sum;
};

static uint8_t gather[LIMIT];

static int run(const uint8_t *s, size_t n, unsigned seed, bool lend, struct rec *recs, int *err)
{
	struct wire_deframer d;
	size_t pos = 0, cap = 0;
	int count = 0;
	uint8_t *lent = NULL;

	if (lend)
		wire_deframer_init_lend(&d, LIMIT);
	else
		wire_deframer_init(&d, LIMIT, gather, sizeof(gather));
	*err = 0;
	while (pos < n) {
		size_t chunk = seed ? 1 + (seed = seed * 1103515245u + 12345u) % 97 : n - pos;
		size_t done = 0;

		if (chunk > n - pos)
			chunk = n - pos;
		while (done < chunk) {
			struct wire_frame f;
			bool ready;
			ssize_t used = wire_deframer_input(&d, s + pos + done, chunk - done, &f,
							   &ready);

			if (used < 0) {
				*err = (int)used;
				free(lent);
				return count;
			}
			if (lend && !ready && wire_deframer_need(&d)) {
				size_t need = wire_deframer_need(&d);
				size_t ncap = cap ? cap * 2 : 64;

				if (need > LIMIT || d.dgot != cap)
					abort();
				ncap = ncap > need ? need : ncap;
				lent = realloc(lent, ncap);
				if (!lent || wire_deframer_set_buf(&d, lent, ncap) != 0)
					abort();
				cap = ncap;
				done += (size_t)used;
				continue;
			}
			if (used == 0 && !ready)
				abort(); /* no progress with input left */
			done += (size_t)used;
			if (ready && count < MAXMSG) {
				uint32_t sum = 0;

				if (f.len > LIMIT || f.len != f.hdr.len)
					abort();
				for (uint32_t i = 0; i < f.len; i++)
					sum = sum * 31 + f.payload[i];
				recs[count++] = (struct rec){ f.offset, f.len, f.hdr.seq, sum };
			}
		}
		pos += chunk;
	}
	free(lent);
	return count;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rec r1[MAXMSG], r2[MAXMSG], r3[MAXMSG];
	int e1, e2, e3, n1, n2, n3;

	if (size < 1)
		return 0;
	n1 = run(data + 1, size - 1, 0, false, r1, &e1);
	n2 = run(data + 1, size - 1, data[0] | 1u, false, r2, &e2);
	n3 = run(data + 1, size - 1, data[0] | 1u, true, r3, &e3);
	if (n1 != n2 || e1 != e2 || memcmp(r1, r2, (size_t)n1 * sizeof(r1[0])) != 0)
		abort();
	if (n1 != n3 || e1 != e3 || memcmp(r1, r3, (size_t)n1 * sizeof(r1[0])) != 0)
		abort();
	return 0;
}
