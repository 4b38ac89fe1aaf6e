// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * main.c - rdsdump: options (argp), capture input and output (libpcap).
 * The only file of the tool that does I/O; the engine, the renderers and
 * the filter are pure and live in dump_core.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <pcap/pcap.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dump.h"
#include "filter.h"
#include "out.h"
#include "optdecl.h"
#include "out_opt.h"
#include "parse.h"
#include "pcaplink.h"
#include "render.h"
#include "src_opt.h"

const char *argp_program_version = "rdsdump " RDSTK_VERSION;

enum {
	OPT_PRINT = 0x100,
	OPT_JSON,
	OPT_TCP_PORT,
	OPT_PORT,
	OPT_KIND,
	OPT_FLAGS,
	OPT_RULES,
	OPT_KERNEL,
	OPT_KVER,
	OPT_MAX_LEN,
	OPT_MAX_FLOWS,
	OPT_MAX_MEM,
};

struct opts {
	const char *iface, *rfile, *wfile;
	bool print, nopromisc, quiet, stats, json;
	bool numeric;           /* -n: taken, and nothing to do */
	long count;
	int snaplen;
	int tsmode, verbose, hex;
	char *expr;
	struct dump_cfg cfg;
	struct dump_filter filter;
	struct src_opt so;         /* -i, -r */
	struct out_opt oo;         /* -j, -q, -v */
};

#define O(f) OPTD_FIELD(struct opts, f)

/* Every rdsdump option, once: --help and the parser both come from it. */
static const struct optdecl options[] = {
	{ 'w', "write", "FILE",
	  "write the packets kept (RDS traffic passing the filter) to FILE instead of printing", 0,
	  1, OPTD_STR, O(wfile) },
	{ OPT_PRINT, "print", NULL, "print records even with -w", 0, 1, OPTD_FLAG, O(print) },
	{ 'c', "count", "N", "exit after N records printed (with -w: N packets written)", 0, 1,
	  OPTD_UINT, O(count), .min = 1, .max = LONG_MAX, .what = "count",
	  .range = "a number above 0" },
	{ 's', "snapshot-length", "BYTES", "live capture snap length (default 262144)", 0, 1,
	  OPTD_UINT, O(snaplen), .min = 64, .max = 262144, .what = "snapshot length" },
	{ 'p', "no-promiscuous-mode", NULL, "do not put the interface into promiscuous mode", 0, 1,
	  OPTD_FLAG, O(nopromisc) },
	{ 'n', NULL, NULL, "do not resolve names (rdsdump never does; for tcpdump habits)", 0, 1,
	  OPTD_FLAG, O(numeric) },
	{ 't', NULL, NULL, "-t: no timestamps; -tt: seconds since the epoch", 0, 2,
	  .kind = OPTD_CUSTOM },
	{ 'X', "hex", NULL,
	  "-X: hex and ASCII of RDS header and payload (first 256 bytes); -XX: all captured bytes",
	  0, 2, .kind = OPTD_CUSTOM },
	{ 'z', "stats", NULL, "statistics per connection and path at the end", 0, 2, OPTD_FLAG,
	  O(stats) },
	{ OPT_TCP_PORT, "tcp-port", "PORT", "treat TCP PORT as RDS/TCP (repeatable; default 16385)",
	  0, 3, .kind = OPTD_CUSTOM },
	{ OPT_PORT, "port", "PORT", "show only messages from or to RDS port PORT (repeatable)", 0,
	  3, .kind = OPTD_CUSTOM },
	{ OPT_KIND, "kind", "LIST",
	  "show only messages of these kinds (data,ping,pong,probe,probe-ping,probe-pong,cong,ack)",
	  0, 3, .kind = OPTD_CUSTOM },
	{ OPT_FLAGS, "flags", "LIST", "show only messages with any of these flags", 0, 3,
	  .kind = OPTD_CUSTOM },
	{ OPT_RULES, "rules", NULL, "show only records that violate a rule", 0, 3, OPTD_FLAG,
	  O(filter.rules_only) },
	{ 'h', NULL, NULL, "give this help list (as -?)", 0, -1, .kind = OPTD_CUSTOM },
	{ OPT_KVER, "kver", "6|7", "receiver generation to model for extension headers (default 7)",
	  0, 4, OPTD_ENUM, O(cfg.kv), .names = optdecl_kver_toks, .what = "kver" },
	{ OPT_KERNEL, "kernel", "6|7", NULL, OPTION_HIDDEN, 4, .kind = OPTD_CUSTOM },
	{ OPT_MAX_LEN, "max-len", "BYTES",
	  "largest h_len followed before resynchronising (default 1048576)", 0, 4, OPTD_UINT,
	  O(cfg.max_len), .min = WIRE_HDR_LEN, .max = UINT32_MAX, .what = "--max-len" },
	{ OPT_MAX_FLOWS, "max-flows", "N", "TCP connections and QPs followed at once (default 4096)",
	  0, 4, OPTD_UINT, O(cfg.max_flows), .min = 1, .max = 1 << 20, .what = "--max-flows" },
	{ OPT_MAX_MEM, "max-mem", "SIZE",
	  "memory for reassembly and state, with K, M or G (default 1G, at least 16M); "
	  "the least recently active flows are closed early to stay under", 0, 4, OPTD_SIZE,
	  O(cfg.max_mem), .min = DUMP_MAX_MEM_MIN, .max = SIZE_MAX, .what = "--max-mem",
	  .range = "at least 16M (bytes, or with K, M or G)" },
};
_Static_assert(DUMP_MAX_MEM_MIN == 16u << 20, "the help and the error say 16M");

#undef O

static const char doc[] =
	"rdsdump -- capture and dissect RDS (Reliable Datagram Sockets) traffic: RDS/TCP, "
	"RDS over RoCEv2 and native InfiniBand with the IB CM exchange, and RDMA netlink "
	"local-service messages."
	"\vEXPRESSION is a pcap filter (pcap-filter(7)). Live captures default to \"tcp port "
	"16385 or udp port 4791\" (plus each --tcp-port; none on an InfiniBand device); files "
	"are read whole, as rdsdump itself picks out RDS traffic. Exit status: 0 success, 1 the input could not be read "
	"to its end (everything before was printed), 2 bad options or the input could not be "
	"opened, 3 the output is incomplete: flows closed early to stay within --max-flows or "
	"--max-mem had bytes in flight, or memory ran out (a warning on stderr says what was "
	"lost).";


/* --tcp-port, repeatable: up to 16 ports. */
static void tcp_port_arg(struct argp_state *st, struct dump_cfg *cfg, const char *arg)
{
	uint64_t v;

	if (cfg->ntcp_ports >= 16)
		argp_error(st, "--tcp-port: at most 16 ports");
	if (parse_uint(arg, 0, 1, 65535, &v) < 0)
		argp_error(st, "bad --tcp-port '%s': 1 to 65535", arg);
	cfg->tcp_ports[cfg->ntcp_ports++] = (uint16_t)v;
}

/* The filter options, each an adder of filter.h; an error is the adder's
 * text after the option's name. */
static const struct {
	int key;
	const char *name;
	int (*add)(struct dump_filter *f, const char *arg, char *err, size_t errlen);
} filter_opts[] = {
	{ OPT_PORT, "--port", dump_filter_add_port },
	{ OPT_KIND, "--kind", dump_filter_add_kinds },
	{ OPT_FLAGS, "--flags", dump_filter_add_flags },
};

static void filter_arg(struct argp_state *st, struct dump_filter *f, int key, const char *arg)
{
	char err[256];

	for (size_t i = 0; i < sizeof(filter_opts) / sizeof(filter_opts[0]); i++)
		if (filter_opts[i].key == key && filter_opts[i].add(f, arg, err, sizeof(err)))
			argp_error(st, "%s: %s", filter_opts[i].name, err);
}

static error_t parse_opt(int key, char *arg, struct argp_state *st)
{
	struct opts *o = st->input;

	switch (key) {
	case 'h':
		argp_state_help(st, stdout, ARGP_HELP_STD_HELP);
		break;
	case 't':
		if (o->tsmode < 2)
			o->tsmode++;
		break;
	case 'X':
		if (o->hex < 2)
			o->hex++;
		break;
	case OPT_TCP_PORT:
		tcp_port_arg(st, &o->cfg, arg);
		break;
	case OPT_PORT:
	case OPT_KIND:
	case OPT_FLAGS:
		filter_arg(st, &o->filter, key, arg);
		break;
	case OPT_KERNEL:
		/* --kernel means "use AF_RDS" in the other tools; scripts may
		 * still give the generation so, for a release. */
		o->cfg.kv = src_opt_kver_alias(st, arg);
		break;
	case ARGP_KEY_ARG: {
		/* the filter expression: every remaining word, as tcpdump */
		size_t have = o->expr ? strlen(o->expr) : 0;
		char *n = realloc(o->expr, have + strlen(arg) + 2);

		if (!n)
			argp_failure(st, 2, ENOMEM, "filter expression");
		if (have)
			n[have++] = ' ';
		strcpy(n + have, arg);
		o->expr = n;
		break;
	}
	case ARGP_KEY_END:
		o->iface = o->so.kind == SRC_IFACE ? o->so.arg : NULL;
		o->rfile = o->so.kind == SRC_FILE ? o->so.arg : NULL;
		if (o->quiet && o->json && !o->stats)
			argp_error(st, "-q with --json prints nothing; add -z");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}


/* ------------------------------------------------------------------------ */

struct run {
	struct opts *o;
	struct dump_render rd;
	bool show;              /* print records */
	long printed;
	volatile sig_atomic_t stop;
	pcap_t *pc;
};

static struct run *the_run;

static void on_signal(int sig)
{
	(void)sig;
	if (the_run) {
		the_run->stop = 1;
		if (the_run->pc)
			pcap_breakloop(the_run->pc);
	}
}

static void sink(void *ctx, const struct dump_rec *r)
{
	struct run *run = ctx;

	if (!run->show || run->stop == 2)
		return;
	if (!dump_filter_match(&run->o->filter, r))
		return;
	dump_print_rec(&run->rd, r);
	if (run->o->count && ++run->printed >= run->o->count)
		run->stop = 2;  /* enough: no more records, not even at the end */
}

static pcap_t *open_live(struct opts *o, char *errbuf)
{
	pcap_t *p;
	int rc;

	if (!o->iface) {
		pcap_if_t *all = NULL;

		if (pcap_findalldevs(&all, errbuf) || !all) {
			if (all)
				pcap_freealldevs(all);
			fprintf(stderr, "rdsdump: no interface to capture on; give -i or -r\n");
			return NULL;
		}
		o->iface = strdup(all->name);
		pcap_freealldevs(all);
	}
	p = pcap_create(o->iface, errbuf);
	if (!p)
		return NULL;
	pcap_set_snaplen(p, o->snaplen ? o->snaplen : 262144);
	pcap_set_promisc(p, !o->nopromisc);
	pcap_set_timeout(p, 100);
	pcap_set_buffer_size(p, 32 << 20);
	pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO);
	rc = pcap_activate(p);
	if (rc < 0) {
		snprintf(errbuf, PCAP_ERRBUF_SIZE, "%s: %s", o->iface, pcap_geterr(p));
		pcap_close(p);
		return NULL;
	}
	if (rc > 0)
		fprintf(stderr, "rdsdump: %s: %s\n", o->iface, pcap_geterr(p));
	return p;
}

static int set_filter(struct opts *o, pcap_t *p, int lt)
{
	struct bpf_program prog;
	char *expr = o->expr;
	char *built = NULL;

	/* The RDMA sniffer's InfiniBand link has no UDP or TCP for a filter
	 * to name: everything it gives is IB. */
	if (!expr && !o->rfile && lt != WIRE_LINK_NETLINK && lt != WIRE_LINK_INFINIBAND) {
		size_t cap = 128 + 24 * (o->cfg.ntcp_ports + 1);
		size_t n;

		built = malloc(cap);
		if (!built)
			return -1;
		n = (size_t)snprintf(built, cap, "udp port %u", WIRE_ROCE_UDP_PORT);
		for (unsigned i = 0; i < o->cfg.ntcp_ports; i++)
			n += (size_t)snprintf(built + n, cap - n, " or tcp port %u",
					      o->cfg.tcp_ports[i]);
		if (!o->cfg.ntcp_ports)
			n += (size_t)snprintf(built + n, cap - n, " or tcp port %u", WIRE_TCP_PORT);
		/* "port" matches no fragment but the first, and the engine
		 * puts fragments back together before it sees TCP or UDP */
		snprintf(built + n, cap - n, " or ip[6:2] & 0x3fff != 0 or ip6[6] == 44");
		expr = built;
	}
	if (!expr)
		return 0;
	if (pcap_compile(p, &prog, expr, 1, PCAP_NETMASK_UNKNOWN) ||
	    pcap_setfilter(p, &prog)) {
		fprintf(stderr, "rdsdump: filter '%s': %s\n", expr, pcap_geterr(p));
		free(built);
		return -1;
	}
	pcap_freecode(&prog);
	free(built);
	return 0;
}

/*
 * One JSON record of counters, {"type":TYPE,"KEY":VALUE,...} in the order
 * of |keys|, written through the output layer as every other record is.
 */
static void json_counts(const char *type, const char *const *keys, const uint64_t *v,
			size_t n)
{
	struct out_field f[16] = { { .key = "type", .type = OUT_STR } };
	struct out_group g = { .name = type, .f = f, .n = n + 1 };
	struct out s;

	if (n >= sizeof(f) / sizeof(f[0]))
		abort(); /* a table here outgrew the array: a programming error */
	for (size_t i = 0; i < n; i++)
		f[i + 1] = (struct out_field){ .key = keys[i], .type = OUT_U64 };
	out_init(&s, stdout, OUT_JSON, 0, OUT_JSON_NOSLASH);
	out_begin(&s, &g);
	out_str(&s, 0, type);
	for (size_t i = 0; i < n; i++)
		out_u64(&s, (unsigned)(i + 1), v[i]);
	out_end(&s);
	out_fini(&s);
}

/*
 * What the engine gave up, on stderr (and as a JSON record with --json):
 * silence would let a cut-short dissection pass for a complete one. Flows
 * closed early with nothing in flight lost nothing yet (more of one later
 * shows as a mid-stream start), so they are only noted.
 * Return: true if bytes were given up or memory ran out.
 */
static bool report_drops(const struct opts *o, const struct dump_eng *eng)
{
	const struct dump_eng_drops *dr = dump_eng_drops(eng);
	size_t max_mem = o->cfg.max_mem ? o->cfg.max_mem : DUMP_MAX_MEM_DEFAULT;
	bool cut = dr->held_bytes || dr->partial_bytes || dr->conns_mem || dr->nomem ||
		   dr->nomem_bytes;

	if (!cut && !dr->flows_max && !dr->flows_mem)
		return false;
	fprintf(stderr, "rdsdump: %s: %llu flows closed early "
		"(%llu at --max-flows %u, %llu at --max-mem %zuM), %llu bytes waiting for "
		"reassembly and %llu bytes of messages in progress dropped, receiver state of "
		"%llu idle connections dropped; %llu allocations failed, %llu stream bytes not "
		"kept for want of memory\n",
		cut ? "warning: output incomplete" : "note",
		(unsigned long long)(dr->flows_max + dr->flows_mem),
		(unsigned long long)dr->flows_max, o->cfg.max_flows ? o->cfg.max_flows : 4096,
		(unsigned long long)dr->flows_mem, max_mem >> 20,
		(unsigned long long)dr->held_bytes, (unsigned long long)dr->partial_bytes,
		(unsigned long long)dr->conns_mem, (unsigned long long)dr->nomem,
		(unsigned long long)dr->nomem_bytes);
	if (o->json) {
		static const char *const keys[] = {
			"flows_evicted_max_flows", "flows_evicted_max_mem", "held_bytes",
			"partial_bytes", "conns_state_dropped", "alloc_failures", "nomem_bytes",
			"max_flows", "max_mem", "mem_max",
		};
		const uint64_t v[] = {
			dr->flows_max, dr->flows_mem, dr->held_bytes, dr->partial_bytes,
			dr->conns_mem, dr->nomem, dr->nomem_bytes,
			o->cfg.max_flows ? o->cfg.max_flows : 4096, max_mem, dr->mem_max,
		};

		json_counts(cut ? "incomplete" : "evicted", keys, v, sizeof(v) / sizeof(v[0]));
	}
	return cut;
}

/*
 * What IP reassembly dropped, on stderr (and as a JSON record with
 * --json). Datagrams dropped for overlapping or inconsistent fragments,
 * for time, or still in pieces at the end never reached a receiver
 * either: a note. Those dropped for room (DUMP_IPFRAG_MAX at once, or
 * --max-mem) are rdsdump's own loss.
 * Return: true if datagrams were dropped for room.
 */
static bool report_ipfrag(const struct opts *o, const struct dump_eng *eng)
{
	const struct dump_ipfrag_stats *st = &dump_eng_drops(eng)->ipfrag;
	bool cut = st->evicted != 0;

	if (!cut && !st->bad && !st->timeout && !st->unfinished && !st->trunc)
		return false;
	fprintf(stderr, "rdsdump: %s: IP reassembly: %llu datagrams put back together; "
		"%llu dropped for overlapping or inconsistent fragments, %llu not complete "
		"within %us, %llu incomplete at the end, %llu fragments cut by the capture; "
		"%llu dropped for room (%u at once, --max-mem) holding %llu bytes\n",
		cut ? "warning: output incomplete" : "note",
		(unsigned long long)st->done, (unsigned long long)st->bad,
		(unsigned long long)st->timeout,
		(unsigned)(DUMP_IPFRAG_TIMEOUT_NS / 1000000000u),
		(unsigned long long)st->unfinished, (unsigned long long)st->trunc,
		(unsigned long long)st->evicted, DUMP_IPFRAG_MAX,
		(unsigned long long)st->evicted_bytes);
	if (o->json) {
		static const char *const keys[] = {
			"fragments", "datagrams", "duplicates", "bad", "timed_out", "unfinished",
			"cut_by_capture", "evicted", "evicted_bytes", "max_datagrams", "timeout_s",
		};
		const uint64_t v[] = {
			st->frags, st->done, st->dup, st->bad, st->timeout, st->unfinished,
			st->trunc, st->evicted, st->evicted_bytes, DUMP_IPFRAG_MAX,
			DUMP_IPFRAG_TIMEOUT_NS / 1000000000u,
		};

		json_counts("ipfrag", keys, v, sizeof(v) / sizeof(v[0]));
	}
	return cut;
}

/*
 * Open the capture (-r FILE or the live interface), check that its link
 * type is one rdsdump reads, apply the filter and open -w's file.
 * Return: the link type for dump_pkthdr_of(), or -1 after saying why
 * (nothing left open).
 */
static int open_capture(struct opts *o, struct run *run, pcap_dumper_t **dumper)
{
	char errbuf[PCAP_ERRBUF_SIZE] = "";
	int lt;

	if (o->rfile)
		run->pc = pcap_open_offline_with_tstamp_precision(o->rfile,
								  PCAP_TSTAMP_PRECISION_NANO, errbuf);
	else
		run->pc = open_live(o, errbuf);
	if (!run->pc) {
		if (*errbuf)
			fprintf(stderr, "rdsdump: %s\n", errbuf);
		return -1;
	}
	lt = dump_linktype(pcap_datalink(run->pc));
	if (lt < 0) {
		fprintf(stderr, "rdsdump: link type %s is not one rdsdump reads\n",
			pcap_datalink_val_to_name(pcap_datalink(run->pc)) ?
			pcap_datalink_val_to_name(pcap_datalink(run->pc)) : "?");
		goto fail;
	}
	if (set_filter(o, run->pc, lt))
		goto fail;
	if (o->wfile) {
		*dumper = pcap_dump_open(run->pc, o->wfile);
		if (!*dumper) {
			fprintf(stderr, "rdsdump: %s\n", pcap_geterr(run->pc));
			goto fail;
		}
	}
	return lt;
fail:
	pcap_close(run->pc);
	run->pc = NULL;
	return -1;
}

/*
 * Feed every packet to the engine until the capture ends, a signal stops
 * it or -w has written -c packets; -w keeps what the filter kept.
 * Return: 0, or 1 when reading the capture failed (said on stderr).
 */
static int read_packets(struct run *run, struct dump_eng *eng, pcap_dumper_t *dumper, int lt,
			uint64_t *frame)
{
	const struct opts *o = run->o;
	struct pcap_pkthdr *h;
	const u_char *data;
	long written = 0;
	int rc = 0;

	while (!run->stop && (rc = pcap_next_ex(run->pc, &h, &data)) >= 0) {
		struct dump_pkthdr ph;
		int kept;

		if (rc == 0)
			continue;       /* live capture: timeout with nothing */
		ph = dump_pkthdr_of(h, ++*frame, lt);
		kept = dump_eng_packet(eng, &ph, data);
		if (kept && dumper) {
			pcap_dump((u_char *)dumper, h, data);
			if (o->count && !o->print && ++written >= o->count)
				break;
		}
	}
	if (!run->stop && rc == PCAP_ERROR) {
		/* everything up to here was decoded and printed; say where it ended */
		fflush(stdout);
		fprintf(stderr, "rdsdump: %s: %s (after %llu packets)\n",
			o->rfile ? o->rfile : o->iface, pcap_geterr(run->pc),
			(unsigned long long)*frame);
		return 1;
	}
	return 0;
}

/*
 * After the last packet: -z's statistics, what rdsdump itself dropped, a
 * live capture's counters.
 * Return: status, or 3 when it was 0 and output is incomplete.
 */
static int report_end(const struct opts *o, struct run *run, struct dump_eng *eng,
		      uint64_t frames, int status)
{
	if (o->stats) {
		size_t n = dump_eng_conn_count(eng);
		const struct dump_conn **cs = calloc(n ? n : 1, sizeof(*cs));

		for (size_t i = 0; cs && i < n; i++)
			cs[i] = dump_eng_conn(eng, i);
		if (cs)
			dump_print_stats(&run->rd, cs, n);
		free(cs);
	}
	if (report_drops(o, eng) && !status)
		status = 3;
	if (report_ipfrag(o, eng) && !status)
		status = 3;
	if (!o->rfile) {
		struct pcap_stat ps;

		if (pcap_stats(run->pc, &ps) == 0)
			fprintf(stderr, "%llu packets captured\n%u packets received by filter\n"
				"%u packets dropped by kernel\n",
				(unsigned long long)frames, ps.ps_recv, ps.ps_drop);
	}
	return status;
}

int main(int argc, char **argv)
{
	static struct opts o;
	const struct argp_child children[] = {
		{ &o.so.argp, 0, SRC_OPT_HEADER, 1 },
		{ &o.oo.argp, 0, OUT_OPT_HEADER, 2 },
		{ 0 }
	};
	static struct argp_option argp_opts[OPTD_N(options) + 1];
	const struct argp ap = { NULL, parse_opt, "[EXPRESSION]", doc, children, NULL, NULL };
	const struct optdecl_cmd cmd = {
		&ap, options, OPTD_N(options), argp_opts, { &o.so, &o.oo }, NULL, NULL, 0
	};
	static struct run run;
	struct dump_eng *eng = NULL;
	pcap_dumper_t *dumper = NULL;
	uint64_t frame = 0;
	int lt, status;

	src_opt_init(&o.so, SRC_OPT_IFACE | SRC_OPT_FILE);
	out_opt_init(&o.oo, OUT_OPT_JSON | OUT_OPT_QUIET | OUT_OPT_VERBOSE, &o.json, &o.quiet,
		     &o.verbose, 2);
	optdecl_parse(&cmd, argc, argv, &o);
	/*
	 * Rings and windows grow by doubling and go when a flow is closed.
	 * glibc would raise its mmap threshold after the first such free and
	 * serve them from the heap, whose holes then stay resident: a fixed
	 * threshold gives every large buffer back to the system, so that
	 * --max-mem bounds what the process really holds.
	 */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);

	run.o = &o;
	run.rd.out = stdout;
	run.rd.verbose = o.verbose;
	run.rd.hex = o.hex;
	run.rd.json = o.json;
	run.rd.tsmode = o.tsmode;
	run.show = !o.quiet && (!o.wfile || o.print);

	lt = open_capture(&o, &run, &dumper);
	if (lt < 0)
		return 2;
	o.cfg.sink = sink;
	o.cfg.ctx = &run;
	/* Only the user's own expression can hide some of a peer pair's
	 * connections; the default one keeps every RDS port. */
	o.cfg.partial_view = o.expr != NULL;
	if (dump_eng_new(&eng, &o.cfg)) {
		fprintf(stderr, "rdsdump: out of memory\n");
		return 2;
	}
	/* a terminal sees each line at once; a pipe or file gets big writes */
	if (isatty(STDOUT_FILENO))
		setvbuf(stdout, NULL, _IOLBF, 0);
	else
		setvbuf(stdout, NULL, _IOFBF, 1 << 20);
	the_run = &run;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (!o.rfile && !o.quiet)
		fprintf(stderr, "rdsdump: listening on %s, link type %s\n", o.iface,
			pcap_datalink_val_to_name(pcap_datalink(run.pc)));

	status = read_packets(&run, eng, dumper, lt, &frame);
	if (run.stop != 2)
		dump_eng_finish(eng);
	status = report_end(&o, &run, eng, frame, status);
	if (dumper)
		pcap_dump_close(dumper);
	if (fflush(stdout) == EOF && errno != EPIPE) {
		fprintf(stderr, "rdsdump: writing output: %s\n", strerror(errno));
		status = 1;
	}
	dump_eng_free(eng);
	pcap_close(run.pc);
	free(o.expr);
	return status;
}
