// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * fuzz_nldev.c - RDMA netlink device dumps (libwire/src/nldev.c). The input
 * is one datagram of a dump's answer; every message in it is decoded and
 * its table walked. Properties: a decoded message's strings end in NUL
 * within their fields, its table lies inside the message, a walk ends (each
 * step advances), decoding is deterministic, and any cut of a decoded
 * message is truncated, not malformed. abort() on a broken property.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <wire/wire.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool ok)
{
	if (!ok)
		abort();
}

static void walk(const struct wire_nldev *m, const uint8_t *msg)
{
	struct wire_nldev_entry e;
	size_t pos = 0, last = 0;
	int r;

	while ((r = wire_nldev_next(m, msg, &pos, &e)) == 1) {
		check(pos > last && pos <= m->table_len);
		last = pos;
		check(e.type == WIRE_NLDEV_ATTR_RES_QP_ENTRY ||
		      e.type == WIRE_NLDEV_ATTR_RES_CM_ID_ENTRY);
		check(memchr(e.kern_name, '\0', sizeof(e.kern_name)) != NULL);
		check(e.src_family == 0 || e.src_family == 2 || e.src_family == 10);
		check(e.dst_family == 0 || e.dst_family == 2 || e.dst_family == 10);
	}
	check(r == 0 || r == WIRE_ERR_MALFORMED);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off = 0;

	while (off < size) {
		struct wire_nldev m, again;
		size_t left = size - off;
		ssize_t r = wire_nldev_decode(&m, data + off, left);

		if (r == WIRE_ERR_TRUNC) {
			check(left < 16 || m.nl_len > left);
			break;
		}
		if (r == WIRE_ERR_UNSUPP) {
			check(m.nl_len >= 16 && m.nl_len <= left);
			off += ((size_t)m.nl_len + 3) / 4 * 4;
			continue;
		}
		if (r < 0) {
			check(r == WIRE_ERR_MALFORMED);
			break;
		}
		check(r >= 16 && (size_t)r <= left && (size_t)r >= m.nl_len);
		check(memchr(m.dev_name, '\0', sizeof(m.dev_name)) != NULL);
		check(memchr(m.ndev_name, '\0', sizeof(m.ndev_name)) != NULL);
		check(m.n_summary <= WIRE_NLDEV_SUMMARY_MAX);
		for (unsigned i = 0; i < m.n_summary; i++)
			check(memchr(m.summary[i].name, '\0', sizeof(m.summary[i].name)) != NULL);
		check(!m.table || (m.table_off >= 16 && m.table_off + m.table_len <= m.nl_len));
		check(wire_nldev_decode(&again, data + off, left) == r);
		check(memcmp(&m, &again, sizeof(m)) == 0);
		/* a message cut anywhere after its header wants more bytes */
		if (m.nl_len > 16)
			check(wire_nldev_decode(&again, data + off, m.nl_len - 1) == WIRE_ERR_TRUNC);
		walk(&m, data + off);
		off += (size_t)r;
	}
	return 0;
}
