// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * mem.c - every allocation of the core goes through the endpoint's hooks
 * (nghttp2_mem), so a test can fail the n-th one. Message buffers of 4 KiB
 * and more are recycled through a small per-endpoint cache (see
 * rdsu_buf_alloc).
 */
#include "core.h"

#include <stdlib.h>
#include <string.h>

void *rdsu_mem_cfg_alloc(const struct rdsu_mem *m, size_t size)
{
	if (m->alloc)
		return m->alloc(size, m->ud);
	return malloc(size);
}

void rdsu_mem_cfg_free(const struct rdsu_mem *m, void *p)
{
	if (!p)
		return;
	if (m->free)
		m->free(p, m->ud);
	else
		free(p);
}

void *rdsu_mem_alloc(struct rdsu_ep *ep, size_t size)
{
	return rdsu_mem_cfg_alloc(&ep->cfg.mem, size);
}

void *rdsu_mem_zalloc(struct rdsu_ep *ep, size_t size)
{
	void *p = rdsu_mem_alloc(ep, size);

	if (p)
		memset(p, 0, size);
	return p;
}

void rdsu_mem_free(struct rdsu_ep *ep, void *p)
{
	rdsu_mem_cfg_free(&ep->cfg.mem, p);
}

/*
 * Message buffers (queued sends, received messages) of RDSU_BUF_MIN bytes
 * and more come in size classes a quarter of a power of two apart and are
 * kept on a per-class free list when freed, up to RDSU_BUF_CACHE bytes in
 * all. A stream of 64 KiB messages otherwise allocates and frees one
 * buffer per message, and glibc hands such chunks back to the kernel
 * (a free of 64 KiB or more trims the heap top), so every message paid
 * for page faults on fresh memory; that was the largest cost of a librds
 * receiver. The cache holds only what traffic left behind: an idle
 * endpoint that never carried large messages holds nothing.
 */
#define RDSU_BUF_SHIFT_MIN 11   /* classes start above 2^11 */

static unsigned buf_class(size_t size, size_t *cap)
{
	size_t s = size - 1;
	unsigned k = 63u - (unsigned)__builtin_clzll((unsigned long long)s);
	size_t step = (size_t)1 << (k - 2);
	size_t q = s / step + 1;        /* 5..8 quarters of 2^(k-2) */

	*cap = q * step;
	return (k - RDSU_BUF_SHIFT_MIN) * 4u + (unsigned)(q - 5);
}

void *rdsu_buf_alloc(struct rdsu_ep *ep, size_t size)
{
	struct rdsu_buf_cache *bc = &ep->bufs;
	unsigned c;
	size_t cap;
	void *p;

	if (size < RDSU_BUF_MIN)
		return rdsu_mem_alloc(ep, size);
	c = buf_class(size, &cap);
	if (c >= RDSU_BUF_CLASSES)
		return rdsu_mem_alloc(ep, size);
	p = bc->head[c];
	if (p) {
		memcpy(&bc->head[c], p, sizeof(void *));
		bc->bytes -= cap;
		return p;
	}
	return rdsu_mem_alloc(ep, cap);
}

void rdsu_buf_free(struct rdsu_ep *ep, void *p, size_t size)
{
	struct rdsu_buf_cache *bc = &ep->bufs;
	unsigned c;
	size_t cap;

	if (!p)
		return;
	if (size < RDSU_BUF_MIN || (c = buf_class(size, &cap)) >= RDSU_BUF_CLASSES ||
	    bc->bytes + cap > RDSU_BUF_CACHE) {
		rdsu_mem_free(ep, p);
		return;
	}
	memcpy(p, &bc->head[c], sizeof(void *));
	bc->head[c] = p;
	bc->bytes += cap;
}

void rdsu_buf_cache_drain(struct rdsu_ep *ep)
{
	struct rdsu_buf_cache *bc = &ep->bufs;

	for (unsigned c = 0; c < RDSU_BUF_CLASSES; c++) {
		while (bc->head[c]) {
			void *p = bc->head[c];

			memcpy(&bc->head[c], p, sizeof(void *));
			rdsu_mem_free(ep, p);
		}
	}
	bc->bytes = 0;
}
