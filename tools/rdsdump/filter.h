/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * filter.h - rdsdump: which records to show, by RDS fields (--port, --kind,
 * --flags, --rules).
 *
 * The pcap expression chooses packets before the engine sees them; these
 * filters choose records after decoding, on what only a dissector knows:
 * the RDS ports inside a TCP stream, the kind of message, its flags, the
 * rules it breaks. The engine still sees every packet, so sequence tracking
 * and congestion maps stay right whatever is shown.
 *
 * The message filters (--port, --kind, --flags) select messages only: with
 * any of them set, notes, CM, netlink and undecodable records are hidden.
 * --rules alone keeps every record that carries a rule, of any type. The
 * filters combine with AND; the values inside one filter with OR.
 *
 * A zeroed struct is an inactive filter. The add functions may be called
 * repeatedly (options repeat); each returns 0, or -1 with a one-line
 * message in |err| (at most |errlen| bytes, NUL-terminated; |err| may be
 * NULL) naming the offending word, and the filter unchanged.
 */
#ifndef DUMP_FILTER_H
#define DUMP_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dump.h"

#ifdef __cplusplus
extern "C" {
#endif

struct dump_filter {
	uint64_t ports[65536 / 64]; /* bit per RDS port */
	bool port_set;
	uint32_t kinds;             /* bit per enum wire_kind */
	bool kind_set;
	uint32_t flags;             /* any of these h_flags bits */
	bool flags_set;
	bool rules_only;            /* --rules */
};

/* dump_filter_add_port() - --port P: RDS sport or dport equal to P (0..65535). */
int dump_filter_add_port(struct dump_filter *f, const char *arg, char *err, size_t errlen);
/*
 * dump_filter_add_kinds() - --kind LIST: comma-separated kind names as
 * wire_kind_name() gives them (data, ping, pong, probe-ping, probe-pong,
 * cong, ack), and "probe" for both probe kinds. Case-insensitive.
 */
int dump_filter_add_kinds(struct dump_filter *f, const char *list, char *err, size_t errlen);
/*
 * dump_filter_add_flags() - --flags LIST: comma-separated flag names as
 * wire_flag_name() gives them (CONG_BITMAP, ACK_REQUIRED, ...; any case)
 * or numbers (0x04, 4) of one or more bits, 1..0xff. A message matches if
 * it has any of the flags.
 */
int dump_filter_add_flags(struct dump_filter *f, const char *list, char *err, size_t errlen);
/* dump_filter_set_rules() - --rules: only records with at least one rule. */
void dump_filter_set_rules(struct dump_filter *f);

/* dump_filter_active() - true if any filter is set. */
bool dump_filter_active(const struct dump_filter *f);
/* dump_filter_match() - true if |r| is to be shown (always, when inactive). */
bool dump_filter_match(const struct dump_filter *f, const struct dump_rec *r);

#ifdef __cplusplus
}
#endif

#endif /* DUMP_FILTER_H */
