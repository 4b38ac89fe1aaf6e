// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rio_opt.c - the stack options every rio tool shares (rio_opt.h).
 */
#define _GNU_SOURCE
#include "rio_opt.h"

#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "optdecl.h"
#include "optgroup.h"
#include "parse.h"

#define C(f) OPTD_FIELD(struct rio_cfg, f)

/* Every stack option, once; bits[] says which RIO_OPT_* offers each. The
 * simple ones are converted and stored into struct rio_cfg by optdecl. */
static const struct optdecl all[] = {
	{ RIO_KEY_KERNEL, "kernel", NULL, "use the kernel's AF_RDS sockets instead of librds", 0, 0,
	  OPTD_FLAG, C(kernel) },
	{ RIO_KEY_KVER, "kver", "6|7", "librds: behave like this kernel generation (default 7)", 0,
	  0, OPTD_ENUM, C(ep.kver), .names = optdecl_kver_toks, .what = "kver" },
	{ RIO_KEY_NPATHS, "npaths", "N", "librds: paths to advertise, 1, 2, 4 or 8 (default 8)", 0,
	  0, .kind = OPTD_CUSTOM },
	{ RIO_KEY_GEN, "gen", "N", "librds: generation number (default random)", 0, 0, OPTD_UINT,
	  C(ep.gen_num), .min = 1, .max = UINT32_MAX, .what = "generation" },
	{ RIO_KEY_PATH_RULE, "path-rule", "pair|port",
	  "librds: a message's path by the port pair (default, librds's) or by the sending port, "
	  "as the kernel", 0, 0, OPTD_ENUM, C(ep.path_rule), .names = parse_path_rule_toks,
	  .what = "path rule" },
	{ RIO_KEY_LISTEN_PORT, "listen-port", "P", "librds: TCP port to listen on (default 16385)",
	  0, 0, OPTD_UINT, C(tcp.listen_port), .min = 1, .max = 65535, .what = "--listen-port" },
	{ RIO_KEY_CONNECT_PORT, "connect-port", "P", "librds: TCP port to connect to (default 16385)",
	  0, 0, OPTD_UINT, C(tcp.connect_port), .min = 1, .max = 65535, .what = "--connect-port" },
	{ RIO_KEY_FAULT, "fault", "NAME",
	  "librds, TESTS ONLY: commit this protocol defect (repeatable; 'list' names them)", 0, 0,
	  .kind = OPTD_CUSTOM },
	{ RIO_KEY_AUTH, "auth-key", "ao|md5:FILE",
	  "librds: sign every TCP connection with the key in FILE (TCP-AO or TCP-MD5); "
	  "only peers with the same key connect", 0, 0, .kind = OPTD_CUSTOM },
	{ RIO_KEY_TRANSPORT, "transport", "tcp|ib|auto",
	  "RDS over TCP or over InfiniBand/RoCE, with either stack (default auto: as the "
	  "kernel chooses, IB when the address is on an RDMA device, else TCP)", 0, 0, OPTD_ENUM,
	  C(transport), .names = rio_trans_toks, .what = "transport" },
	{ RIO_KEY_LOCAL, "local", "ADDR|IFACE",
	  "the local RDS address the sockets bind to: ADDR, or IFACE's address (of the peer's "
	  "family where there is a peer; else IPv4 first); default: the route's source address "
	  "to the peer, where the tool has one", 0, 0, .kind = OPTD_CUSTOM },
	{ RIO_KEY_SNDBUF, "sndbuf", "BYTES",
	  "SO_SNDBUF of every RDS socket, which a message must fit (default: the stack's)", 0, 0,
	  OPTD_COUNT, C(sndbuf), .min = 1, .max = RIO_BUF_MAX, .what = "--sndbuf",
	  .range = "1 byte to 1G" },
	{ RIO_KEY_RCVBUF, "rcvbuf", "BYTES",
	  "SO_RCVBUF of every RDS socket, past which it is congested (default: the stack's)", 0, 0,
	  OPTD_COUNT, C(rcvbuf), .min = 1, .max = RIO_BUF_MAX, .what = "--rcvbuf",
	  .range = "1 byte to 1G" },
};
_Static_assert(RIO_BUF_MAX == 1u << 30, "the error says 1G");

#undef C

/* The RIO_OPT_* bit that offers each entry of all[], in its order. */
static const unsigned bits[] = {
	RIO_OPT_KERNEL, RIO_OPT_KVER, RIO_OPT_NPATHS, RIO_OPT_GEN, RIO_OPT_PATH_RULE,
	RIO_OPT_PORTS,  RIO_OPT_PORTS, RIO_OPT_FAULT, RIO_OPT_AUTH, RIO_OPT_TRANSPORT,
	RIO_OPT_LOCAL,  RIO_OPT_BUFS,  RIO_OPT_BUFS,
};
_Static_assert(sizeof(bits) / sizeof(bits[0]) == sizeof(all) / sizeof(all[0]),
	       "a bit for every option");

static unsigned bit_of(int key)
{
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i].key == key)
			return bits[i];
	return 0;
}

/*
 * --auth-key KIND:FILE: the key is read from a file, so that it is never
 * on a command line that ps shows; all of the file's bytes are the key but
 * one final newline. Return: 0, or what is wrong (argp_error's text).
 */
static const char *auth_key(struct rdsu_tcp_cfg *tc, const char *arg)
{
	uint8_t buf[RDSU_TCP_AUTH_KEY_MAX + 2];
	const char *file;
	ssize_t n;
	int fd;

	if (!strncmp(arg, "ao:", 3))
		tc->auth = RDSU_TCP_AUTH_AO;
	else if (!strncmp(arg, "md5:", 4))
		tc->auth = RDSU_TCP_AUTH_MD5;
	else
		return "ao:FILE or md5:FILE";
	file = strchr(arg, ':') + 1;
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return strerror(errno);
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return strerror(errno);
	if (n > 0 && buf[n - 1] == '\n')
		n--;
	if (n < 1 || n > RDSU_TCP_AUTH_KEY_MAX)
		return "the key must be 1 to 80 bytes";
	memcpy(tc->auth_key, buf, (size_t)n);
	tc->auth_key_len = (uint8_t)n;
	memset(buf, 0, sizeof(buf));
	return NULL;
}

/* -I: an address, or the name of an interface this host has (its address
 * is picked once the peer's family is known: rio_local_pick). */
static void local_arg(struct argp_state *st, struct rio_local *l, const char *arg)
{
	l->given = true;
	l->iface = NULL;
	if (parse_addr(arg, &l->addr) == 0)
		return;
	if (!if_nametoindex(arg))
		argp_error(st, "bad -I '%s': neither an address nor an interface", arg);
	l->iface = arg;
}

error_t rio_opt_take(struct rio_opt *ro, int key, char *arg, struct argp_state *st)
{
	struct rio_cfg *cfg = ro->cfg;
	uint64_t v;

	if (optdecl_take(all, OPTD_N(all), cfg, key, arg, st) != ARGP_ERR_UNKNOWN)
		return 0;
	switch (key) {
	case RIO_KEY_NPATHS:
		if (parse_uint(arg, 0, 1, 8, &v) < 0 || (v & (v - 1)))
			argp_error(st, "bad path count '%s': 1, 2, 4 or 8", arg);
		cfg->ep.npaths = (uint16_t)v;
		return 0;
	case RIO_KEY_AUTH: {
		const char *why = auth_key(&cfg->tcp, arg);

		if (why)
			argp_error(st, "bad --auth-key '%s': %s", arg, why);
		return 0;
	}
	case RIO_KEY_LOCAL:
		local_arg(st, &cfg->local, arg);
		return 0;
	case RIO_KEY_FAULT:
		switch (rio_fault_option(arg, &cfg->ep.faults)) {
		case 1:
			exit(0);
		case -1:
			argp_error(st, "unknown --fault %s (--fault list names them)", arg);
		}
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

static error_t parse(int key, char *arg, struct argp_state *st)
{
	const struct rio_opt *ro = st->input;

	if (key == ARGP_KEY_END && ro->cfg->kernel && ro->cfg->tcp.auth)
		argp_error(st, "--auth-key is for librds, not --kernel");
	/* Known at once, whatever the order of --kernel and --transport. */
	if (key == ARGP_KEY_END && ro->cfg->transport == RIO_TRANS_IB && !ro->cfg->kernel &&
	    !rio_have_ib)
		argp_error(st, "--transport ib: this build has no IB transport in librds (building "
			       "it needs libibverbs-dev and librdmacm-dev); --kernel uses the "
			       "kernel's");
	if (!bit_of(key))
		return ARGP_ERR_UNKNOWN;
	return rio_opt_take(st->input, key, arg, st);
}

void rio_opt_init(struct rio_opt *ro, unsigned set, struct rio_cfg *cfg)
{
	static struct argp_option opts[OPTD_N(all) + 1];

	memset(ro, 0, sizeof(*ro));
	ro->cfg = cfg;
	optdecl_argp(all, OPTD_N(all), opts);
	optgroup_init(&ro->argp, ro->opts, opts, OPTD_N(all), set, bit_of, parse);
}
