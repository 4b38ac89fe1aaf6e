// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * mem.c - every allocation of the core goes through the endpoint's hooks
 * (nghttp2_mem), so a test can fail the n-th one.
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
