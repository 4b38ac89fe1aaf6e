// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rdsperf - RDS throughput and latency, client and server, over librds or
 * the kernel's AF_RDS (--kernel). The client proposes each test on a TCP
 * control connection (ctl.h), runs it on RDS sockets (engine.h) and prints
 * what both ends counted: per interval, then a summary.
 */
#define _GNU_SOURCE
#include "rdsperf.h"

#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

const char *argp_program_version = "rdsperf " RDSTK_VERSION;

volatile int perf_stop;

static void on_signal(int sig)
{
	(void)sig;
	perf_stop = 1;
}

/* --logfile, as iperf3's: everything the run prints, errors too, appended
 * to FILE. Return: 0; -1 (said on stderr, which is still the terminal). */
static int to_logfile(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

	if (fd < 0) {
		fprintf(stderr, "rdsperf: --logfile %s: %s\n", path, strerror(errno));
		return -1;
	}
	fflush(stdout);
	fflush(stderr);
	if (dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0) {
		fprintf(stderr, "rdsperf: --logfile %s: %s\n", path, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	/* lines reach the file as they are printed, as on a terminal */
	setvbuf(stdout, NULL, _IOLBF, 0);
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct argp_child children[] = {
		{ &o.ro.argp, 0, RIO_OPT_HEADER, 4 },
		{ &o.oo.argp, 0, OUT_OPT_HEADER, 5 },
		{ 0 }
	};
	const struct argp ap = {
		NULL, perf_parse_opt, "-s | -c HOST",
		"Measure RDS throughput and latency between two hosts.\v"
		"rdsperf -s on one host; rdsperf -c HOST [options] on the other. Exit status: 0 "
		"when every test ran and verified, 1 when a test failed, 2 when it could not run.",
		children, NULL, NULL
	};
	struct sigaction sa;

	memset(&o, 0, sizeof(o));
	rio_cfg_default(&o.cfg);
	/* rdstop --librds can watch every run */
	o.cfg.monitor = true;
	rio_opt_init(&o.ro, RIO_OPT_KERNEL | RIO_OPT_TRANSPORT | RIO_OPT_KVER | RIO_OPT_NPATHS |
			    RIO_OPT_PATH_RULE | RIO_OPT_AUTH | RIO_OPT_LOCAL | RIO_OPT_BUFS, &o.cfg);
	out_opt_init(&o.oo, OUT_OPT_JSON | OUT_OPT_QUIET, &o.json, &o.quiet, NULL, 0);
	o.ctl_port = CTL_PORT;
	o.p.test = PERF_STREAM;
	o.p.depth = 1;
	o.p.sockets = 1;
	o.p.duration = 10;
	o.threads = 1;
	o.interval = 1;
	o.ctl_idle = CTL_IDLE_DEFAULT;
	if (perf_parse_args(&ap, argc, argv, &o) != 0)
		return 2;
	if (o.logfile && to_logfile(o.logfile) < 0)
		return 2;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return o.server ? perf_run_server(&o) : perf_run_client(&o);
}
