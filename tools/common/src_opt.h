/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * src_opt.h - where a tool that watches RDS reads it from, declared once
 * as an argp child so that every source has one spelling and one help
 * line in every tool:
 *
 *   -i, --interface IFACE  live capture (libpcap)
 *   -r, --read FILE        a capture file (pcap or pcapng, "-" stdin)
 *   --kernel-info          the local kernel's RDS_INFO_* (rdstop)
 *   --librds PID|PATH      a librds process's monitor socket (rdstop)
 *
 * "--kernel" is not among them: in every tool it means "use the kernel's
 * AF_RDS sockets" (rio_opt.h). A tool offers the sources it can read
 * (SRC_OPT_* bits); one source at most is taken. Their header in --help
 * is SRC_OPT_HEADER.
 */
#ifndef RDSTK_SRC_OPT_H
#define RDSTK_SRC_OPT_H

#include <argp.h>

#include <wire/wire.h>

#define SRC_OPT_HEADER "Source (one of):"

enum src_kind {
	SRC_NONE,
	SRC_IFACE,
	SRC_FILE,
	SRC_KERNEL_INFO,
	SRC_LIBRDS,
};

enum src_opt_set {
	SRC_OPT_IFACE = 1u << 0,
	SRC_OPT_FILE = 1u << 1,
	SRC_OPT_KERNEL_INFO = 1u << 2,
	SRC_OPT_LIBRDS = 1u << 3,
};

/* The key of --kernel-info, for a tool that keeps an old spelling of it
 * (src_opt_take). */
enum { SRC_KEY_KERNEL_INFO = 0x7300, SRC_KEY_LIBRDS };

struct src_opt {
	enum src_kind kind;  /* what was given; SRC_NONE: nothing */
	const char *arg;     /* its IFACE, FILE or PID|PATH */
	unsigned set;
	struct argp argp;
	struct argp_option opts[5];
};

/*
 * src_opt_init() - the sources of |set| as an argp child (&so->argp); the
 * tool lists it with SRC_OPT_HEADER and hands |so| to it at ARGP_KEY_INIT.
 */
void src_opt_init(struct src_opt *so, unsigned set);

/* src_opt_take() - source |kind| with |arg|, as the child takes it: a
 * second source is refused through argp_error(). */
void src_opt_take(struct src_opt *so, enum src_kind kind, const char *arg,
		  struct argp_state *st);

/* src_opt_names() - the offered sources, for a message: "-i IFACE, -r FILE". */
const char *src_opt_names(const struct src_opt *so, char *buf, unsigned len);

/*
 * src_opt_kver_alias() - "--kernel 6|7" in a tool without sockets (rdsdump,
 * the crafter), the old spelling of --kver, kept for a release: the
 * generation, with a note on stderr that the spelling goes. Any other
 * argument is refused: --kernel means "use the kernel's sockets" in every
 * tool (rio_opt.h), and this one has none.
 */
enum wire_kver src_opt_kver_alias(struct argp_state *st, const char *arg);

#endif /* RDSTK_SRC_OPT_H */
