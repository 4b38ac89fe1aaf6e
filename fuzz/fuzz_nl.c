// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * fuzz_nl.c - RDMA netlink local-service codec. The input is one datagram;
 * every message in it is decoded, and each one that decodes must survive
 * encode -> decode unchanged and encode to the same bytes a second time.
 * Properties abort() so the fuzzer (and the standalone replay) stops on them.
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

/* Every field decode fills, except nl_len (the encoder computes it) and
 * the rules (a re-encoded message has dropped what they reported). */
static bool nl_same(const struct wire_nl_ls *a, const struct wire_nl_ls *b)
{
	unsigned i;

	if (a->nl_type != b->nl_type || a->nl_flags != b->nl_flags ||
	    a->nl_seq != b->nl_seq || a->nl_pid != b->nl_pid ||
	    a->client != b->client || a->op != b->op ||
	    a->is_request != b->is_request || a->is_err != b->is_err)
		return false;
	if (a->has_resolve_hdr != b->has_resolve_hdr ||
	    memcmp(a->device_name, b->device_name, sizeof(a->device_name)) ||
	    a->port_num != b->port_num || a->path_use != b->path_use ||
	    memcmp(a->resolve_pad, b->resolve_pad, sizeof(a->resolve_pad)) ||
	    a->has_ip_resolve_hdr != b->has_ip_resolve_hdr ||
	    a->ifindex != b->ifindex)
		return false;
	if (memcmp(a->present, b->present, sizeof(a->present)) ||
	    memcmp(a->mandatory, b->mandatory, sizeof(a->mandatory)) ||
	    a->timeout != b->timeout || a->service_id != b->service_id ||
	    memcmp(a->dgid, b->dgid, 16) || memcmp(a->sgid, b->sgid, 16) ||
	    a->tclass != b->tclass || a->pkey != b->pkey ||
	    a->qos_class != b->qos_class || memcmp(a->ipv4, b->ipv4, 4) ||
	    memcmp(a->ipv6, b->ipv6, 16) || a->npaths != b->npaths)
		return false;
	for (i = 0; i < a->npaths; i++)
		if (a->paths[i].flags != b->paths[i].flags ||
		    a->paths[i].reserved != b->paths[i].reserved ||
		    memcmp(a->paths[i].rec, b->paths[i].rec, 64))
			return false;
	return true;
}

/* Rules the re-decoded message may report: a subset of the first. */
static bool rules_subset(const struct wire_rules *small, const struct wire_rules *big)
{
	unsigned pos = 0;
	enum wire_rule r;

	while (wire_rules_next(small, &pos, &r))
		if (!wire_rules_has(big, r))
			return false;
	return true;
}

static void one_message(const struct wire_nl_ls *m, size_t used)
{
	static uint8_t out[WIRE_NL_MSG_MAX], out2[WIRE_NL_MSG_MAX];
	struct wire_nl_ls d;
	ssize_t n, n2;
	unsigned t;

	check(m->nl_len >= 16 && m->nl_len <= WIRE_NL_MSG_MAX);
	check(used >= 16 && used <= ((size_t)m->nl_len + 3) / 4 * 4);
	check(m->npaths <= WIRE_NL_MAX_PATHS);
	check(m->device_name[WIRE_NL_DEVICE_NAME_MAX] == '\0');
	check(!(m->has_resolve_hdr && m->has_ip_resolve_hdr));
	check(m->client == WIRE_NL_CLIENT_LS);
	check(!m->present[WIRE_NL_LS_UNSPEC]);
	check(m->present[WIRE_NL_LS_PATH_RECORD] == (m->npaths > 0));
	for (t = 0; t < WIRE_NL_LS_ATTR_MAX; t++)
		check(!m->mandatory[t] || m->present[t]);
	if (!wire_nl_op_name(m->op)) {
		check(wire_rules_has(&m->rules, WIRE_RULE_NL_OP));
		return;
	}

	n = wire_nl_encode(m, out, sizeof(out));
	check(n >= 16 && (size_t)n <= sizeof(out));
	/* An encoder never writes what does not fit. */
	check(wire_nl_encode(m, out2, (size_t)n - 1) == WIRE_ERR_NOSPACE);

	check(wire_nl_decode(&d, out, (size_t)n) == n);
	check(d.nl_len == (uint32_t)n);
	check(nl_same(m, &d));
	check(rules_subset(&d.rules, &m->rules));
	check(!wire_rules_has(&d.rules, WIRE_RULE_NL_ATTR_UNKNOWN));
	check(!wire_rules_has(&d.rules, WIRE_RULE_NL_ATTR_DUPLICATE));

	n2 = wire_nl_encode(&d, out2, sizeof(out2));
	check(n2 == n && memcmp(out, out2, (size_t)n) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wire_nl_ls m;
	size_t off = 0;
	ssize_t r;
	unsigned t;

	/* Names never crash, for any type an attribute can carry. */
	for (t = 0; t < 64; t++) {
		(void)wire_nl_attr_name(t | (size ? data[0] : 0) << 8);
		(void)wire_nl_op_name(t);
	}

	while (off < size) {
		r = wire_nl_decode(&m, data + off, size - off);
		if (r == WIRE_ERR_TRUNC) {
			check(size - off < 16);
			break;
		}
		if (r < 0) {
			check(r == WIRE_ERR_MALFORMED || r == WIRE_ERR_UNSUPP);
			check(r != WIRE_ERR_MALFORMED ||
			      wire_rules_has(&m.rules, WIRE_RULE_NL_LEN) ||
			      wire_rules_has(&m.rules, WIRE_RULE_NL_ATTR_POLICY));
			/* A foreign client can still be stepped over. */
			if (r == WIRE_ERR_UNSUPP && m.nl_len >= 16 &&
			    m.nl_len <= size - off) {
				off += ((size_t)m.nl_len + 3) / 4 * 4;
				continue;
			}
			break;
		}
		check(r > 0 && (size_t)r <= size - off);
		one_message(&m, (size_t)r);
		off += (size_t)r;
	}
	return 0;
}
