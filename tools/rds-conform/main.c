// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rds-conform - run the conformance catalogue against an RDS/TCP peer, or
 * (subcommands) run the agent beside a peer, or craft messages.
 *
 *   rds-conform --peer ADDR [--agent ADDR[:PORT]] [--larger ADDR] [ID-PREFIX...]
 *   rds-conform --transport ib --peer ADDR [--agent ADDR[:PORT]] [ID-PREFIX...]
 *   rds-conform --list [--format text|json|markdown]
 *   rds-conform agent --bind ADDR [--kernel] ...
 *   rds-conform craft ...
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rds/rdsu_tcp.h>

#include "agent.h"
#include "cases.h"
#include "craft.h"
#include "node_ib.h"
#include "out.h"
#include "optdecl.h"
#include "out_opt.h"
#include "parse.h"
#include "report.h"
#include "rio.h"
#include "rio_opt.h"

const char *argp_program_version = "rds-conform " RDSTK_VERSION;

#define MAX_PREFIXES 32

struct opts {
	struct cf_cfg cfg;
	const char *peer_s, *agent_s, *out_s, *format_s;
	bool have_peer, have_local, list, quiet, port_given;
	enum cf_format fmt;
	bool markdown;
	enum rio_trans trans;     /* --transport (default tcp) */
	bool json;                /* -j */
	struct out_opt oo;        /* -j, -q */
	uint32_t gen;
	const char *prefixes[MAX_PREFIXES];
	size_t n_prefixes;
};

enum { O_PEER = 0x100, O_LOCAL, O_LARGER, O_AGENT, O_TIMEOUT, O_FORMAT, O_PCAP, O_STRICT,
       O_LIST, O_GEN, O_TRANSPORT, O_KERNEL };

#define O(f) OPTD_FIELD(struct opts, f)

/* Every option of the suite, once: --help and the parser both come from it. */
static const struct optdecl options[] = {
	/* --kernel means "use the kernel's sockets" in every tool: the suite
	 * has none (it speaks RDS's wire itself); said, not "unrecognized" */
	{ O_KERNEL, "kernel", NULL, NULL, OPTION_HIDDEN, 1, .kind = OPTD_CUSTOM },
	{ O_PEER, "peer", "ADDR[:PORT]", "the RDS node under test (port default 16385; IB: 18634, IPv6 16385)", 0, 1, .kind = OPTD_CUSTOM },
	{ O_TRANSPORT, "transport", "tcp|ib|auto", "RDS/TCP (default) or RDS over InfiniBand/RoCE: the ib/ cases through an RC QP; auto: IB when our address is on an RDMA device", 0, 1,
	  OPTD_ENUM, O(trans), .names = rio_trans_toks, .what = "transport" },
	{ O_LOCAL, "local", "ADDR", "our address, smaller than the peer's (default: the route's source)", 0, 1,
	  OPTD_ADDR, O(cfg.local), .what = "--local", OPTD_SEEN(struct opts, have_local) },
	{ O_LARGER, "larger", "ADDR", "a local address larger than the peer's (cases that need one are skipped without)", 0, 1,
	  OPTD_ADDR, O(cfg.larger), .what = "--larger", OPTD_SEEN(struct opts, cfg.have_larger) },
	{ O_AGENT, "agent", "ADDR[:PORT]", "the rds-conform agent beside the peer (port default 18600)", 0, 1,
	  OPTD_STR, O(agent_s) },
	{ O_TIMEOUT, "timeout", "MS", "longest wait for one expected event (default: 2000, raised to 3 answer times of a slow peer)", 0, 1,
	  OPTD_COUNT, O(cfg.timeout_ms), .min = 10, .max = 600000, .what = "--timeout",
	  .unit = " ms", OPTD_SEEN(struct opts, cfg.timeout_given) },
	{ O_GEN, "gen", "N", "our generation number (default random)", 0, 1, OPTD_UINT, O(gen),
	  .min = 1, .max = UINT32_MAX, .what = "generation" },
	{ O_STRICT, "strict", NULL, "NON-STRICT results (SHOULDs, kernel departures from the spec) fail", 0, 2,
	  OPTD_FLAG, O(cfg.strict) },
	{ O_FORMAT, "format", "FMT", "text (default), tap, junit, json; with --list: text, json, markdown", 0, 2,
	  OPTD_STR, O(format_s) },
	{ 'o', "output", "FILE", "write the report to FILE (progress still goes to the terminal)", 0, 2,
	  OPTD_STR, O(out_s) },
	{ O_PCAP, "pcap", "DIR", "save each case's exchange as DIR/<id>.pcap", 0, 2, OPTD_STR,
	  O(cfg.pcap_dir) },
	{ O_LIST, "list", NULL, "list the catalogue (or the selected cases) and exit", 0, 2,
	  OPTD_FLAG, O(list) },
};

#undef O

/* --transport: auto is IB when our address (--local, or the route's
 * source towards the peer) is on an RDMA device, as the kernel picks. */
static bool pick_ib(const struct opts *o)
{
	struct rdsu_addr local = o->cfg.local;

	if (o->trans != RIO_TRANS_AUTO)
		return o->trans == RIO_TRANS_IB;
	if (!o->have_local && rio_route_source(&o->cfg.peer, &local) < 0)
		return false;
	return rio_trans_pick(RIO_TRANS_AUTO, &local) == RIO_TRANS_IB;
}

/* Once every option is read: what they say together. */
static void check_opts(void *input, struct argp_state *st)
{
	struct opts *o = input;

	/* -j: the report (or the list) as JSON, as --format json */
	if (o->json && o->format_s && strcmp(o->format_s, "json"))
		argp_error(st, "-j is --format json, not --format %s", o->format_s);
	if (o->json)
		o->format_s = "json";
	if (o->list) {
		if (o->format_s && strcmp(o->format_s, "text") && strcmp(o->format_s, "json") &&
		    strcmp(o->format_s, "markdown"))
			argp_error(st, "--list takes --format text, json or markdown");
		o->markdown = o->format_s && !strcmp(o->format_s, "markdown");
		return;
	}
	if (o->format_s && cf_format_by_name(o->format_s, &o->fmt))
		argp_error(st, "unknown --format %s (text, tap, junit, json)", o->format_s);
	if (!o->have_peer)
		argp_error(st, "--peer is needed");
	if (o->cfg.have_larger && rdsu_addr_cmp(&o->cfg.larger, &o->cfg.peer) <= 0)
		argp_error(st, "--larger must be larger than the peer's address");
	o->cfg.ib = pick_ib(o);
	for (size_t k = 0; k < o->n_prefixes; k++) {
		bool any = false;

		for (size_t i = 0; i < cf_n_cases; i++)
			any |= cf_case_selected(&cf_cases[i], o->prefixes[k]) &&
			       !(cf_cases[i].needs & CF_NEED_IB) == !o->cfg.ib;
		if (!any)
			argp_error(st, "%s: no case of that prefix runs over %s%s", o->prefixes[k],
				   o->cfg.ib ? "IB" : "TCP",
				   o->cfg.ib ? "" : " (the ib/ cases need --transport ib)");
	}
	if (o->cfg.ib && !o->port_given)
		o->cfg.port = rdsu_addr_is_v4(&o->cfg.peer) ? WIRE_IB_PORT_V4 : WIRE_IB_PORT_V6;
	if (o->cfg.ib && o->cfg.have_larger)
		argp_error(st, "--larger is for RDS/TCP: on IB both sides connect");
	if (!o->cfg.ib && o->have_local && rdsu_addr_cmp(&o->cfg.local, &o->cfg.peer) >= 0)
		argp_error(st, "--local must be smaller than the peer's address (only the "
			   "smaller address carries RDS/TCP)");
}

static error_t parse(int key, char *arg, struct argp_state *st)
{
	struct opts *o = st->input;
	char err[128];

	switch (key) {
	case O_PEER:
		/* ADDR, ADDR:PORT or [V6]:PORT, as craft's --to */
		o->cfg.port = WIRE_TCP_PORT;
		if (craft_parse_addr(arg, &o->cfg.peer, &o->cfg.port, err, sizeof(err)) ||
		    o->cfg.port == 0)
			argp_error(st, "bad --peer %s%s%s", arg, o->cfg.port ? ": " : "",
				   o->cfg.port ? err : " (port 0)");
		o->peer_s = arg;
		o->have_peer = true;
		/* ADDR:PORT, or [V6]:PORT; a bare IPv6 address has several ':' */
		o->port_given = arg[0] == '[' ? strstr(arg, "]:") != NULL :
			strchr(arg, ':') && strchr(arg, ':') == strrchr(arg, ':');
		return 0;
	case O_KERNEL:
		argp_error(st, "--kernel uses the kernel's RDS sockets, and the suite opens none (it "
			       "speaks RDS's wire itself); the kernel under test takes it: "
			       "rds-conform agent --kernel");
		return 0;
	case ARGP_KEY_ARG: {
		bool any = false;

		if (o->n_prefixes == MAX_PREFIXES)
			argp_error(st, "at most %d ID prefixes", MAX_PREFIXES);
		for (size_t i = 0; i < cf_n_cases; i++)
			any |= cf_case_selected(&cf_cases[i], arg);
		if (!any)
			argp_error(st, "no case matches %s (--list names them)", arg);
		o->prefixes[o->n_prefixes++] = arg;
		return 0;
	}
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static bool selected(const struct opts *o, const struct cf_case *c)
{
	/* A run is over one transport; --list shows every case. */
	if (!o->list && !(c->needs & CF_NEED_IB) != !o->cfg.ib)
		return false;
	if (o->n_prefixes == 0)
		return true;
	for (size_t i = 0; i < o->n_prefixes; i++)
		if (cf_case_selected(c, o->prefixes[i]))
			return true;
	return false;
}

/* The suite could not start (the peer unreachable, or it dropped every
 * connection of the first exchange): each selected case is ERROR with
 * |why|. */
static void unrunnable_report(const struct opts *o, FILE *out, const char *why)
{
	struct cf_result *res = calloc(cf_n_cases, sizeof(*res));
	char started[32], peer[80];
	time_t now = time(NULL);
	struct cf_meta meta;
	size_t n = 0;

	if (!res)
		return;
	strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	rio_addr_port_str(&o->cfg.peer, o->cfg.port, peer, sizeof(peer));
	meta = (struct cf_meta){ .peer = peer, .version = RDSTK_VERSION, .started = started,
				 .strict = o->cfg.strict };
	for (size_t i = 0; i < cf_n_cases; i++) {
		if (!selected(o, &cf_cases[i]))
			continue;
		res[n].c = &cf_cases[i];
		res[n].verdict = CF_ERROR;
		cf_text(res[n].expected, "%s", cf_cases[i].requirement);
		cf_text(res[n].reason, "the suite could not start: %s", why);
		n++;
	}
	if (cf_report(out, o->fmt, &meta, res, n) || (out != stdout && fclose(out)))
		fprintf(stderr, "rds-conform: writing the report failed\n");
	free(res);
}

static const char *needs_text(unsigned needs, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s%s%s%s", needs & CF_NEED_IB ? "ib " : "",
		 needs & CF_NEED_AGENT ? "agent " : "",
		 needs & CF_NEED_LARGER ? "larger-address " : "",
		 needs & CF_NEED_HOSTILE ? "hostile " : "");
	if (buf[0])
		buf[strlen(buf) - 1] = '\0';
	return buf;
}

/* A case of the --list --format json catalogue. */
enum { LC_ID, LC_LEVEL, LC_TITLE, LC_REQUIREMENT, LC_SOURCE, LC_NEEDS, LC__N };
static const struct out_field list_fields[LC__N] = {
	[LC_ID] = { .key = "id", .type = OUT_STR },
	[LC_LEVEL] = { .key = "level", .type = OUT_STR, .names = cf_level_toks },
	[LC_TITLE] = { .key = "title", .type = OUT_STR },
	[LC_REQUIREMENT] = { .key = "requirement", .type = OUT_STR },
	[LC_SOURCE] = { .key = "source", .type = OUT_STR },
	[LC_NEEDS] = { .key = "needs", .type = OUT_STR }, /* as in the text */
};
static const struct out_group list_group = OUT_GROUP("case", list_fields);

/* The catalogue: for a terminal, for tools (json), or for the man page
 * (markdown, which tests/cli compares with docs/man/rds-conform.1.md). */
static int list(const struct opts *o)
{
	struct out *t;
	char nb[64];

	if (o->format_s && !strcmp(o->format_s, "json")) {
		struct out_list a = { 0 };
		struct out *j = out_new(stdout, OUT_JSON, 0, OUT_JSON_PRETTY);
		const char *txt;

		if (!j)
			return 2;
		for (size_t i = 0; i < cf_n_cases; i++) {
			const struct cf_case *c = &cf_cases[i];
			char *rec;

			if (!selected(o, c))
				continue;
			out_begin(j, &list_group);
			out_str(j, LC_ID, c->id);
			out_str(j, LC_LEVEL, cf_level_name(c->level));
			out_str(j, LC_TITLE, c->title);
			out_str(j, LC_REQUIREMENT, c->requirement);
			out_str(j, LC_SOURCE, c->source);
			out_str(j, LC_NEEDS, needs_text(c->needs, nb, sizeof(nb)));
			rec = out_take(j);
			out_list_add(&a, rec);
			free(rec);
		}
		txt = out_list_text(&a);
		out_write_json(j, txt);
		out_list_free(&a);
		out_free(j);
		if (!txt)
			return 2;
		return 0;
	}
	t = out_new(stdout, OUT_TEXT, 0, 0);
	if (!t)
		return 2;
	if (o->markdown)
		out_puts(t, "| ID | Level | Checks | Needs |\n|---|---|---|---|\n");
	for (size_t i = 0; i < cf_n_cases; i++) {
		const struct cf_case *c = &cf_cases[i];

		if (!selected(o, c))
			continue;
		if (o->markdown)
			out_printf(t, "| `%s` | %s | %s. %s *(%s)* | %s |\n", c->id,
				   cf_level_name(c->level), c->title, c->requirement, c->source,
				   needs_text(c->needs, nb, sizeof(nb)));
		else
			out_printf(t, "%-18s %-6s %s\n", c->id, cf_level_name(c->level), c->title);
	}
	out_free(t);
	return 0;
}

static uint32_t random_gen(void)
{
	uint32_t g = 0;
	FILE *f = fopen("/dev/urandom", "rb");

	if (f) {
		if (fread(&g, sizeof(g), 1, f) != 1)
			g = 0;
		fclose(f);
	}
	return g ? g : (uint32_t)time(NULL) | 1;
}

static void pcap_name(char *buf, size_t cap, const char *dir, const char *id)
{
	size_t n = (size_t)snprintf(buf, cap, "%s/", dir);

	for (const char *p = id; *p && n + 6 < cap; p++)
		buf[n++] = *p == '/' ? '_' : *p;
	snprintf(buf + n, cap - n, ".pcap");
}

static double wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Over IB: the run's one capture (tcpdump on our address's netdev)
 * becomes each case's. */
static void ib_split(struct cf_result *res, size_t n, int dump, const char *all)
{
	char why[200];

	cf_ib_capture_stop(dump);
	for (size_t i = 0; i < n && dump; i++) {
		if (!res[i].pcap[0])
			continue;
		/* a little after its end, for the last packets' stamps
		 * (the capture reads them), but none of the next case's */
		double end = res[i].t1 + 0.3;

		if (i + 1 < n && res[i + 1].t0 < end)
			end = res[i + 1].t0;
		if (cf_ib_capture_split(all, res[i].pcap, res[i].t0, end, why, sizeof(why)) < 0) {
			fprintf(stderr, "rds-conform: %s: %s\n", res[i].pcap, why);
			res[i].pcap[0] = '\0';
		}
	}
	if (!dump)
		for (size_t i = 0; i < n; i++)
			res[i].pcap[0] = '\0';
}

static void run_case(struct opts *o, struct cf_run *r, const struct cf_case *c,
		     struct cf_result *res)
{
	rdsu_ns t0 = rdsu_clock();

	memset(res, 0, sizeof(*res));
	res->c = c;
	res->verdict = CF__VERDICTS;
	r->own_ping = false;
	r->own_probe = false;
	if ((c->needs & CF_NEED_LARGER) && !o->cfg.have_larger) {
		res->verdict = CF_SKIP;
		cf_text(res->reason, "needs a local address larger than the peer's (--larger)");
	} else if ((c->needs & CF_NEED_AGENT) && !r->agent) {
		res->verdict = CF_SKIP;
		cf_text(res->reason, "needs the agent beside the peer (--agent ADDR[:PORT])");
	} else {
		if (o->cfg.pcap_dir) {
			pcap_name(res->pcap, sizeof(res->pcap), o->cfg.pcap_dir, c->id);
			/* over IB the run's capture is split after the run */
			if (!o->cfg.ib && cf_pcap_open(&r->pcap, res->pcap)) {
				r->pcap = NULL;
				res->pcap[0] = '\0';
			}
		}
		res->t0 = wall();
		c->run(r, res);
		res->t1 = wall();
		cf_pcap_close(r->pcap);
		r->pcap = NULL;
	}
	if (res->verdict == CF__VERDICTS) {
		res->verdict = CF_ERROR;
		cf_text(res->reason, "the case ended without a verdict (a bug in rds-conform)");
	}
	if (o->cfg.strict && res->verdict == CF_NON_STRICT) {
		char why[CF_TEXT + 16];

		snprintf(why, sizeof(why), "--strict: %s", res->reason);
		cf_text(res->reason, "%.*s", CF_TEXT - 1, why);
		res->verdict = CF_FAIL;
	}
	if (!res->expected[0])
		cf_text(res->expected, "%s", c->requirement);
	res->secs = (double)(rdsu_clock() - t0) / 1e9;
}

/* Over IB: can an RC connection be had at all? */
static int ib_reachable(struct cf_run *r, char *why, size_t cap)
{
	struct cf_ibconn *c;
	uint8_t pd[WIRE_IBPD_V6_LEN];
	char a[64];
	int err = cf_ib_connect(r, pd, cf_ib_pd(r, WIRE_IBVER_3_1, 0, pd), 1000, &c);

	if (err)
		snprintf(why, cap, "no IB connection from %s to the peer at rdma_cm port %u: %s",
			 cf_addr(&r->cfg->local, a), r->cfg->port, c ? c->why : strerror(-err));
	cf_ib_close(c);
	return err;
}

/* Before the catalogue: can the peer be reached at all? */
static int reachable(struct cf_run *r, char *why, size_t cap)
{
	struct cf_conn *c;
	char a[64];
	int err;

	if (r->cfg->ib)
		return ib_reachable(r, why, cap);
	err = cf_connect(r, &r->cfg->local, 0, 0, &c);

	if (err) {
		snprintf(why, cap, "cannot connect from %s to the peer at port %u: %s",
			 cf_addr(&r->cfg->local, a), r->cfg->port, strerror(-err));
		return err;
	}
	cf_close(c, true);
	usleep(50000);
	return 0;
}

/*
 * Before any packet: our address (routed, or --local) and its order
 * against the peer's, --pcap's directory, -o's file.
 * Return: 0, or 2 after saying why.
 */
static int check_setup(struct opts *o, FILE **out)
{
	char a[64];

	if (!o->have_local && rio_route_source(&o->cfg.peer, &o->cfg.local) < 0) {
		fprintf(stderr, "rds-conform: no route to the peer; give --local\n");
		return 2;
	}
	if (!o->cfg.ib && !o->have_local && rdsu_addr_cmp(&o->cfg.local, &o->cfg.peer) >= 0) {
		fprintf(stderr, "rds-conform: our address %s is not smaller than the peer's: only "
			"the smaller address carries RDS/TCP; give --local\n",
			cf_addr(&o->cfg.local, a));
		return 2;
	}
	if (o->cfg.pcap_dir && mkdir(o->cfg.pcap_dir, 0777) < 0 && errno != EEXIST) {
		fprintf(stderr, "rds-conform: --pcap %s: %s\n", o->cfg.pcap_dir, strerror(errno));
		return 2;
	}
	if (o->out_s) {
		*out = fopen(o->out_s, "w");
		if (!*out) {
			fprintf(stderr, "rds-conform: -o %s: %s\n", o->out_s, strerror(errno));
			return 2;
		}
	}
	return 0;
}

/*
 * The run's starting state, the agent when --agent names one, and a first
 * exchange that shows the peer is there (on TCP it also measures how fast
 * the peer answers, which sets every wait).
 * Return: 0, or 2 after saying why, with the all-ERROR report when a
 * report was asked for.
 */
static int start_run(struct opts *o, struct cf_run *r, FILE *out)
{
	char why[256];

	memset(r, 0, sizeof(*r));
	r->cfg = &o->cfg;
	r->gen = o->gen ? o->gen : random_gen();
	r->tx_seq = 1;
	r->peer.first_ms = -1;
	r->wait_ms = o->cfg.timeout_ms;
	r->answer_ms = -1;
	r->peer.pong_ms = -1;
	if (o->agent_s &&
	    cf_agent_connect(o->agent_s, o->cfg.timeout_ms, &r->agent, why, sizeof(why))) {
		fprintf(stderr, "rds-conform: %s\n", why);
		return 2;
	}
	/* Over IB every wait is the timeout: the calibration's exchange is
	 * RDS/TCP's. */
	if (reachable(r, why, sizeof(why)) || (!o->cfg.ib && cf_calibrate(r, why, sizeof(why)))) {
		fprintf(stderr, "rds-conform: %s\n", why);
		cf_agent_close(r->agent);
		/* A report that was asked for (a file, or TAP/JUnit/JSON for a
		 * CI system) still comes, every case ERROR with the reason,
		 * rather than an empty file. */
		if (o->out_s || o->fmt != CF_FMT_TEXT)
			unrunnable_report(o, out, why);
		return 2;
	}
	if (r->wait_ms > o->cfg.timeout_ms && !o->quiet)
		fprintf(stderr, "rds-conform: the peer answered a probe in %d ms: every wait is %d ms "
			"(--timeout sets it)\n", r->answer_ms, r->wait_ms);
	return 0;
}

int main(int argc, char **argv)
{
	static struct opts o;
	const struct argp_child children[] = { { &o.oo.argp, 0, OUT_OPT_HEADER, 3 }, { 0 } };
	static struct argp_option argp_opts[OPTD_N(options) + 1];
	const struct argp argp = {
		NULL, parse, "[ID-PREFIX...]",
		"Check an RDS/TCP peer (or with --transport ib an RDS-over-IB peer) against the "
		"RDS 3.1 wire spec and the Linux kernel's behaviour.\v"
		"Subcommands: 'rds-conform agent --help' (run beside the peer), "
		"'rds-conform craft --help' (build and send any message).\n"
		"Exit: 0 every MUST passed, 1 a case failed, 2 the suite could not run.",
		children, NULL, NULL
	};
	const struct optdecl_cmd cmd = {
		&argp, options, OPTD_N(options), argp_opts, { &o.oo }, check_opts, NULL, 0
	};
	struct cf_run r;
	struct cf_result *res;
	struct cf_meta meta;
	char why[256], peer[80], started[32], all[300];
	int dump = 0;
	FILE *out = stdout;
	size_t n = 0;
	rdsu_ns t0;
	time_t now;

	if (argc > 1 && !strcmp(argv[1], "agent"))
		return agent_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "craft"))
		return craft_main(argc - 1, argv + 1);
	memset(&o, 0, sizeof(o));
	o.cfg.timeout_ms = 2000;
	o.cfg.port = WIRE_TCP_PORT;
	o.trans = RIO_TRANS_TCP;
	out_opt_init(&o.oo, OUT_OPT_JSON | OUT_OPT_QUIET, &o.json, &o.quiet, NULL, 0);
	if (optdecl_parse(&cmd, argc, argv, &o))
		return 2;
	if (o.list)
		return list(&o);
	signal(SIGPIPE, SIG_IGN);
	if (check_setup(&o, &out) || start_run(&o, &r, out))
		return 2;
	res = calloc(cf_n_cases, sizeof(*res));
	if (!res)
		return 2;
	now = time(NULL);
	strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	rio_addr_port_str(&o.cfg.peer, o.cfg.port, peer, sizeof(peer));
	/* A text report on the terminal: its case lines are the progress. */
	bool inline_lines = !o.quiet && o.fmt == CF_FMT_TEXT && out == stdout;

	meta = (struct cf_meta){
		.peer = peer,
		.peer_stack = r.agent ? cf_agent_stack(r.agent) : NULL,
		.version = RDSTK_VERSION,
		.started = started,
		.strict = o.cfg.strict,
		.lines_shown = inline_lines,
	};
	if (inline_lines)
		cf_heading(stdout, &meta);
	if (o.cfg.ib && o.cfg.pcap_dir) {
		snprintf(all, sizeof(all), "%s/run.pcap", o.cfg.pcap_dir);
		dump = cf_ib_capture_start(&r, all, why, sizeof(why));
		if (!dump)
			fprintf(stderr, "rds-conform: no capture: %s\n", why);
		else
			sleep(1);  /* "listening" comes before packets do */
	}
	t0 = rdsu_clock();
	for (size_t i = 0; i < cf_n_cases; i++) {
		if (!selected(&o, &cf_cases[i]))
			continue;
		run_case(&o, &r, &cf_cases[i], &res[n]);
		if (!o.quiet)
			cf_progress(inline_lines ? stdout : stderr, &res[n]);
		n++;
	}
	if (o.cfg.ib && o.cfg.pcap_dir)
		ib_split(res, n, dump, all);
	meta.secs = (double)(rdsu_clock() - t0) / 1e9;
	if (cf_report(out, o.fmt, &meta, res, n) || (out != stdout && fclose(out))) {
		fprintf(stderr, "rds-conform: writing the report failed\n");
		return 2;
	}
	cf_agent_close(r.agent);
	int rc = cf_exit_code(res, n);

	free(res);
	return rc;
}
