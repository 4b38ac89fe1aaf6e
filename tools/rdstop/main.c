// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rdstop - a top for RDS: takes a snapshot of an RDS stack every interval
 * from a source (source.h), computes rates against the previous one
 * (model.c) and shows them in the interactive screen (ui.c) or, in batch
 * mode, prints each as plain text (render.c), like top -b. As an
 * exporter (--prometheus, --textfile) it renders each snapshot as metrics
 * (prom.c) for libmicrohttpd to serve (prom_http.c) or into a file that
 * node_exporter's textfile collector reads.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "optdecl.h"
#include "out_opt.h"
#include "parse.h"
#include "prom.h"
#include "prom_http.h"
#include "render.h"
#include "rio.h"
#include "source.h"
#include "src_opt.h"
#include "top.h"
#include "ui.h"

const char *argp_program_version = "rdstop " RDSTK_VERSION;

struct opts {
	const struct top_source *src;
	struct top_source_args args;
	bool batch, list, json, metrics;
	uint64_t count;               /* 0 = until interrupted */
	double delay;
	const char *prometheus;       /* --prometheus [ADDR]:PORT */
	const char *textfile;         /* --textfile DIR or FILE.prom */
	uint64_t top;                 /* --prometheus-top */
	struct src_opt so;            /* the source: -i, -r, --kernel-info, --librds */
	struct out_opt oo;            /* -j */
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

enum { O_KERNEL = 0x100, O_LIST, O_PROM, O_TEXTFILE, O_TOP, O_METRICS };

/* Every rdstop option, once: --help and the parser both come from it. */
static const struct optdecl options[] = {
	{ 'b', "batch", NULL, "print plain-text snapshots to standard output (like top -b)", 0, 0,
	  OPTD_FLAG, OPTD_FIELD(struct opts, batch) },
	{ 'n', "iterations", "COUNT", "stop after COUNT snapshots (default: until interrupted)", 0,
	  0, OPTD_COUNT, OPTD_FIELD(struct opts, count), .min = 1, .max = UINT64_MAX,
	  .what = "count", .range = "a number above 0" },
	{ 'd', "delay", "SECONDS", "wait SECONDS between snapshots (default 1; fractions allowed)",
	  0, 0, OPTD_SECONDS, OPTD_FIELD(struct opts, delay), .fmin = 0.01, .fmax = 86400,
	  .what = "delay", .range = "seconds, at least 0.01" },
	/* --kernel-info's old spelling, kept for a release: --kernel means
	 * "use the kernel's sockets" in every tool */
	{ O_KERNEL, "kernel", NULL, NULL, OPTION_HIDDEN, 0, .kind = OPTD_CUSTOM },
	{ O_LIST, "list", NULL, "list the librds processes that publish their monitor state, "
	  "and exit", 0, 0, OPTD_FLAG, OPTD_FIELD(struct opts, list) },
	{ O_PROM, "prometheus", "[ADDR]:PORT", "serve the snapshots as Prometheus metrics "
	  "at http://ADDR:PORT/metrics (no screen)", 0, 1, OPTD_STR,
	  OPTD_FIELD(struct opts, prometheus) },
	{ O_TEXTFILE, "textfile", "DIR", "write the metrics to DIR/rdstop.prom (or a FILE "
	  "ending in .prom) each interval, atomically, for node_exporter (no screen)", 0, 1,
	  .kind = OPTD_CUSTOM },
	{ O_TOP, "prometheus-top", "N", "connections with series of their own (default 100); "
	  "the rest are summed as peer=\"other\"", 0, 1, OPTD_COUNT, OPTD_FIELD(struct opts, top),
	  .min = 0, .max = 1000000, .what = "--prometheus-top" },
	{ O_METRICS, "metrics", NULL, "list every metric the exporter can give, and exit", 0, 1,
	  OPTD_FLAG, OPTD_FIELD(struct opts, metrics) },
};

/* The source the options named, into o->src and o->args; false: none. */
static bool pick_source(struct opts *o)
{
	switch (o->so.kind) {
	case SRC_NONE:
		return false;
	case SRC_KERNEL_INFO:
		o->src = &top_source_kernel;
		break;
	case SRC_LIBRDS:
		o->src = &top_source_librds;
		o->args.librds = o->so.arg;
		break;
	case SRC_FILE:
		o->src = &top_source_capture;
		o->args.file = o->so.arg;
		break;
	case SRC_IFACE:
		o->src = &top_source_capture;
		o->args.iface = o->so.arg;
		break;
	}
	return true;
}

static error_t parse(int key, char *arg, struct argp_state *st)
{
	struct opts *o = st->input;

	switch (key) {
	case O_TEXTFILE:
		if (!*arg)
			argp_error(st, "--textfile needs a directory or a file ending in .prom");
		o->textfile = arg;
		return 0;
	case O_KERNEL:
		fprintf(stderr, "%s: --kernel is deprecated here: use --kernel-info\n",
			program_invocation_short_name);
		src_opt_take(&o->so, SRC_KERNEL_INFO, NULL, st);
		return 0;
	case ARGP_KEY_END:
		if (!pick_source(o) && !o->list && !o->metrics)
			argp_error(st, "a source is needed: -i IFACE, -r FILE, --kernel-info or "
				   "--librds");
		if (o->json && !o->batch)
			argp_error(st, "--json is for batch mode: add -b");
		if (o->json && (o->prometheus || o->textfile))
			argp_error(st, "--json prints snapshots; --prometheus and --textfile "
				   "export them: one or the other");
		o->args.step_ns = (uint64_t)(o->delay * 1e9 + 0.5);
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Sleep |seconds| unless a signal asks to stop first. */
static void pause_for(double seconds)
{
	struct timespec ts = {
		.tv_sec = (time_t)seconds,
		.tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9),
	};

	while (!stop && nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* The textfile's path: FILE.prom as given, else DIR/rdstop.prom. */
static int textfile_path(const char *arg, char *path, size_t len)
{
	size_t l = strlen(arg);
	int n = l > 5 && strcmp(arg + l - 5, ".prom") == 0 ?
			snprintf(path, len, "%s", arg) :
			snprintf(path, len, "%s/rdstop.prom", arg);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/*
 * Write |len| bytes to |path| as node_exporter's textfile collector needs:
 * a temporary file beside it (a name it does not read: not *.prom),
 * synced, then renamed over the old one, so a reader sees the old file or
 * the new one, never part of one.
 */
static int textfile_write(const char *path, const char *buf, size_t len, char *err,
			  size_t errlen)
{
	char tmp[PATH_MAX];
	const char *slash = strrchr(path, '/');
	int n, fd, e = 0;

	if (slash)
		n = snprintf(tmp, sizeof(tmp), "%.*s/.%s.XXXXXX", (int)(slash - path), path,
			     slash + 1);
	else
		n = snprintf(tmp, sizeof(tmp), ".%s.XXXXXX", path);
	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		snprintf(err, errlen, "%.200s: name too long", path);
		return -ENAMETOOLONG;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		e = -errno;
		snprintf(err, errlen, "cannot write beside %.180s: %s", path, strerror(errno));
		return e;
	}
	for (size_t off = 0; off < len && !e;) {
		ssize_t w = write(fd, buf + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			e = w < 0 ? -errno : -EIO;
		else
			off += (size_t)w;
	}
	if (!e && (fchmod(fd, 0644) < 0 || fsync(fd) < 0))
		e = -errno;
	if (close(fd) < 0 && !e)
		e = -errno;
	if (!e && rename(tmp, path) < 0)
		e = -errno;
	if (e) {
		snprintf(err, errlen, "cannot write %.180s: %s", path, strerror(-e));
		unlink(tmp);
	}
	return e;
}

/* One rendering into memory. Return: 0; -ENOMEM. */
static int render_mem(const struct top_snap *s, const struct prom_self *self,
		      enum prom_fmt fmt, char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);

	if (!f)
		return -ENOMEM;
	prom_write(f, s, self, fmt);
	if (ferror(f)) {
		fclose(f);
		free(*buf);
		*buf = NULL;
		return -ENOMEM;
	}
	return fclose(f) == 0 ? 0 : -ENOMEM;
}

/*
 * The exporter: a snapshot each interval, rendered once per format and
 * handed to the HTTP server and the textfile. A failed snapshot is
 * counted and shown as afrds_up 0, and the exporter keeps trying: a live
 * source (the kernel, a librds process) that failed is closed and opened
 * again at the next interval, so a loaded module or a restarted process
 * is found. *statep: the open source, or NULL (not open yet).
 */
static int run_exporter(const struct opts *o, void **statep)
{
	void *state = *statep;
	bool reopen = o->src != &top_source_capture;
	static struct prom_self self;
	struct prom_http *http = NULL;
	struct utsname un;
	char err[256] = "", path[PATH_MAX];
	struct top_snap cur;
	uint16_t port = 0;
	int e;

	self.version = RDSTK_VERSION;
	self.kernel = uname(&un) == 0 ? un.release : NULL;
	self.top = o->top == UINT64_MAX ? PROM_TOP_DEFAULT : (unsigned)o->top;
	if (o->textfile && textfile_path(o->textfile, path, sizeof(path)) < 0) {
		fprintf(stderr, "rdstop: --textfile %s: name too long\n", o->textfile);
		return 2;
	}
	if (o->prometheus) {
		e = prom_http_start(&http, o->prometheus, &port, err, sizeof(err));
		if (e < 0) {
			fprintf(stderr, "rdstop: %s\n", err);
			return 2;
		}
		fprintf(stderr, "rdstop: serving metrics on port %u at /metrics\n", port);
	}
	for (uint64_t i = 0; !stop && (!o->count || i < o->count); i++) {
		uint64_t t0;
		char *text = NULL, *om = NULL;
		size_t tlen = 0, olen = 0;
		bool ok;

		if (i) {
			pause_for(o->delay);
			if (stop)
				break;
		}
		t0 = now_ns();
		top_snap_init(&cur);
		e = state ? 0 : o->src->open(&state, &o->args, err, sizeof(err));
		if (e < 0)
			state = NULL;
		else
			e = o->src->snapshot(state, t0, &cur, err, sizeof(err));
		ok = e == 0;
		if (!ok && state && reopen) {
			o->src->close(state);
			state = NULL;
		}
		if (ok)
			top_snap_link(&cur);
		self.snapshots++;
		if (!ok) {
			self.errors++;
			if (self.up || i == 0)
				fprintf(stderr, "rdstop: %s\n", err);
		}
		self.up = ok;
		if (http)
			prom_http_counts(http, &self.scrapes, &self.http_errors);
		if (render_mem(ok ? &cur : NULL, &self, PROM_FMT_TEXT, &text, &tlen) < 0 ||
		    render_mem(ok ? &cur : NULL, &self, PROM_FMT_OPENMETRICS, &om, &olen) < 0) {
			fprintf(stderr, "rdstop: out of memory\n");
			free(text);
			free(om);
			top_snap_fini(&cur);
			continue;
		}
		self.collect_seconds = (double)(now_ns() - t0) / 1e9;
		if (o->textfile && textfile_write(path, text, tlen, err, sizeof(err)) < 0)
			fprintf(stderr, "rdstop: %s\n", err);
		if (http) {
			prom_http_publish(http, text, tlen, om, olen);
		} else {
			free(text);
			free(om);
		}
		ok = ok && cur.ended;
		top_snap_fini(&cur);
		if (ok)
			break;         /* a replayed capture ran out */
	}
	prom_http_stop(http);
	*statep = state;
	return 0;
}

int main(int argc, char **argv)
{
	static struct opts o = { .delay = 1, .top = UINT64_MAX };
	static const struct argp_child children[] = {
		{ &o.so.argp, 0, SRC_OPT_HEADER, 0 },
		{ &o.oo.argp, 0, OUT_OPT_HEADER, 0 },
		{ 0 }
	};
	static struct argp_option argp_opts[OPTD_N(options) + 1];
	static const struct argp ap = {
		NULL, parse, NULL,
		"Show an RDS stack's connections, paths, sockets, queues and counters, "
		"with rates between snapshots.\v"
		"Exit status: 0 after the last snapshot or an interrupt, 1 when the watched "
		"librds process went away (batch mode), 2 on errors.",
		children, NULL, NULL
	};
	struct top_snap prev, cur;
	struct top_rates rates;
	void *state = NULL;
	char err[256] = "";
	int rc = 0, e;

	src_opt_init(&o.so, SRC_OPT_IFACE | SRC_OPT_FILE | SRC_OPT_KERNEL_INFO | SRC_OPT_LIBRDS);
	out_opt_init(&o.oo, OUT_OPT_JSON, &o.json, NULL, NULL, 0);
	static const struct optdecl_cmd cmd = {
		&ap, options, OPTD_N(options), argp_opts, { &o.so, &o.oo }, NULL, NULL, 0
	};

	if (optdecl_parse(&cmd, argc, argv, &o))
		return 2;
	if (o.list)
		return top_librds_list(stdout);
	if (o.metrics) {
		prom_list(stdout);
		return 0;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	if (!o.batch && !o.prometheus && !o.textfile && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		fprintf(stderr, "rdstop: the interactive screen needs a terminal: use -b\n");
		return 2;
	}
	e = o.src->open(&state, &o.args, err, sizeof(err));
	if (e < 0 && (o.src == &top_source_capture || !(o.prometheus || o.textfile))) {
		fprintf(stderr, "rdstop: %s\n", err);
		return 2;
	}
	if (o.prometheus || o.textfile) {
		/* a live source that cannot be opened yet is tried each interval */
		if (e < 0)
			state = NULL;
		rc = run_exporter(&o, &state);
		if (state)
			o.src->close(state);
		return rc;
	}
	if (!o.batch) {
		rc = top_ui_run(o.src, state, o.delay, o.count, err, sizeof(err));
		o.src->close(state);
		if (rc < 0) {
			fprintf(stderr, "rdstop: %s\n", err);
			return 2;
		}
		return 0;
	}
	top_snap_init(&prev);
	for (uint64_t i = 0; !stop && (!o.count || i < o.count); i++) {
		/* a replay runs on the capture's clock: nothing to wait for */
		if (i && !prev.replay) {
			pause_for(o.delay);
			if (stop)
				break;
		}
		top_snap_init(&cur);
		e = o.src->snapshot(state, now_ns(), &cur, err, sizeof(err));
		if (e < 0) {
			fprintf(stderr, "rdstop: %s\n", err);
			top_snap_fini(&cur);
			rc = e == -ESRCH ? 1 : 2;
			break;
		}
		if (top_rates_compute(&rates, i ? &prev : NULL, &cur) < 0) {
			fprintf(stderr, "rdstop: out of memory\n");
			top_snap_fini(&cur);
			rc = 2;
			break;
		}
		if (o.json) {
			top_print_json(stdout, &cur, i ? &rates : NULL);
		} else {
			struct out *t = out_new(stdout, OUT_TEXT, 0, 0);

			if (t) {
				if (i)
					out_putc(t, '\n');
				top_print_text(t, &cur, i ? &rates : NULL);
			}
			out_free(t);
		}
		fflush(stdout);
		top_rates_fini(&rates);
		top_snap_fini(&prev);
		prev = cur;
		if (cur.ended)
			break;
	}
	top_snap_fini(&prev);
	o.src->close(state);
	return rc;
}
