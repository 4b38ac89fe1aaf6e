/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rio_opt.h - the options that choose and configure the stack under rio
 * (--kernel, --transport, -I, --sndbuf, --kver, --npaths, ...), declared once as an argp child so
 * every tool and test driver spells and checks them alike. A tool offers
 * the subset it has a use for; each option writes to the tool's struct
 * rio_cfg as it is parsed.
 */
#ifndef RDSTK_RIO_OPT_H
#define RDSTK_RIO_OPT_H

#include <argp.h>

#include "rio.h"

/* Their header in every tool's --help. */
#define RIO_OPT_HEADER "The RDS stack:"

/* --sndbuf and --rcvbuf: at most 1G. */
#define RIO_BUF_MAX (1u << 30)

/* The options, as bits of the set a tool offers. */
enum rio_opt_set {
	RIO_OPT_KERNEL = 1u << 0,     /* --kernel: the kernel's AF_RDS, not librds */
	RIO_OPT_KVER = 1u << 1,       /* --kver 6|7: the kernel generation librds is */
	RIO_OPT_NPATHS = 1u << 2,     /* --npaths N: paths librds advertises */
	RIO_OPT_GEN = 1u << 3,        /* --gen N: librds's generation number */
	RIO_OPT_PATH_RULE = 1u << 4,  /* --path-rule pair|port */
	RIO_OPT_PORTS = 1u << 5,      /* --listen-port P, --connect-port P */
	RIO_OPT_FAULT = 1u << 6,      /* --fault NAME (tests only) */
	RIO_OPT_TRANSPORT = 1u << 7,  /* --transport tcp|ib|auto */
	RIO_OPT_LOCAL = 1u << 8,      /* -I, --local ADDR|IFACE */
	RIO_OPT_BUFS = 1u << 9,       /* --sndbuf BYTES, --rcvbuf BYTES */
	RIO_OPT_AUTH = 1u << 15,      /* --auth-key ao|md5:FILE */
};

/* The argp keys of the options, for a tool that keeps an old spelling as
 * a hidden alias (rio_opt_take). */
enum rio_opt_key {
	RIO_KEY_KERNEL = 0x7200,
	RIO_KEY_KVER,
	RIO_KEY_NPATHS,
	RIO_KEY_GEN,
	RIO_KEY_PATH_RULE,
	RIO_KEY_LISTEN_PORT,
	RIO_KEY_CONNECT_PORT,
	RIO_KEY_FAULT,
	RIO_KEY_TRANSPORT,
	RIO_KEY__END,
	/* Outside the run above, so that options added to it keep their
	 * bits (bit_of). */
	RIO_KEY_AUTH = 0x72a0,
	RIO_KEY_SNDBUF,
	RIO_KEY_RCVBUF,
	RIO_KEY_LOCAL = 'I',
};

struct rio_opt {
	struct rio_cfg *cfg;
	struct argp argp;
	/* the run of keys, the four outside it and the end mark */
	struct argp_option opts[RIO_KEY__END - RIO_KEY_KERNEL + 5];
};

/*
 * rio_opt_init() - the options of |set| (RIO_OPT_* bits) as an argp child
 * (&ro->argp) writing to |cfg|. The tool lists the child in its argp and
 * hands |ro| to it at ARGP_KEY_INIT: st->child_inputs[i] = ro.
 */
void rio_opt_init(struct rio_opt *ro, unsigned set, struct rio_cfg *cfg);

/* rio_opt_take() - one of the options (|key|: RIO_KEY_*) with its argument,
 * as the child takes it; errors go through argp_error(). */
error_t rio_opt_take(struct rio_opt *ro, int key, char *arg, struct argp_state *st);

#endif /* RDSTK_RIO_OPT_H */
