// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * client.c - rdsperf's client: one test after another, each proposed, run
 * and collected.
 */
#define _GNU_SOURCE
#include "rdsperf.h"

#include <argp.h>
#include <errno.h>
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

#include "parse.h"

int64_t perf_librds_retransmits(struct rio *r)
{
	struct rdsu_stats st;

	if (!rio_io(r))
		return -1;
	rdsu_ep_get_stats(rdsu_io_ep(rio_io(r)), &st);
	return (int64_t)st.v[RDSU_STAT_SEND_RETRANSMITTED];
}

/* Host-wide TCP segments retransmitted (/proc/net/snmp Tcp: RetransSegs);
 * -1 if unreadable. */
static int64_t tcp_retrans_segs(void)
{
	FILE *f = fopen("/proc/net/snmp", "r");
	char names[1024], vals[1024];
	int64_t v = -1;

	if (!f)
		return -1;
	while (fgets(names, sizeof(names), f) && fgets(vals, sizeof(vals), f)) {
		char *sn = NULL, *sv = NULL, *n, *x;

		if (strncmp(names, "Tcp:", 4))
			continue;
		for (n = strtok_r(names, " \n", &sn), x = strtok_r(vals, " \n", &sv); n && x;
		     n = strtok_r(NULL, " \n", &sn), x = strtok_r(NULL, " \n", &sv))
			if (!strcmp(n, "RetransSegs"))
				v = strtoll(x, NULL, 10);
		break;
	}
	fclose(f);
	return v;
}

/* ------------------------------------------------------------------------
 * Client
 */

const char *perf_stack_name(bool kernel)
{
	return kernel ? "kernel AF_RDS" : "librds";
}

/* The stack and |p->sockets| sockets on o->src, with the test's stack
 * options. Return: 0; -1 (said on stderr). */
static int client_open(struct opts *o, struct rio **r, struct perf_client *c)
{
	struct perf_params *p = &o->p;
	struct rio_cfg cfg = o->cfg;
	char a[64];
	int e;

	cfg.ep.npaths = (uint16_t)p->paths;
	cfg.ep.kver = p->kver == 6 ? WIRE_KVER_6 : WIRE_KVER_7;
	cfg.ep.path_rule = p->path_by_pair ? RDSU_PATH_BY_PAIR : RDSU_PATH_BY_PORT;
	if (rio_cfg_add_addr(&cfg, &o->src) < 0)
		return -1;
	e = rio_open(r, &cfg);
	if (e < 0) {
		fprintf(stderr, "rdsperf: %s on %s: %s\n", perf_stack_name(cfg.kernel),
			rdsu_addr_str(&o->src, a, sizeof(a)), rio_open_strerror(&cfg, e));
		return -1;
	}
	for (unsigned i = 0; i < p->sockets; i++) {
		e = rio_socket(*r, &o->src, 0, &c->socks[i]);
		if (e == 0)
			e = rio_set_bufs(c->socks[i], p->buf, p->buf);
		if (e < 0) {
			fprintf(stderr, "rdsperf: bind %s: %s\n", rdsu_addr_str(&o->src, a, sizeof(a)),
				rdsu_strerror(e));
			return -1;
		}
		p->client_ports[i] = rio_sock_port(c->socks[i]);
	}
	rdsu_addr_str(&o->src, p->client_addr, sizeof(p->client_addr));
	return 0;
}

/*
 * RDS refuses a message larger than the sender's SNDBUF (EMSGSIZE): say so
 * before the test rather than fail on its first send. The server checks
 * its own sends (responses, a reverse stream). Return: 0; -1 (said).
 */
static int check_size(const struct opts *o, const struct perf_client *c)
{
	uint32_t budget = rio_max_msg(c->socks[0]);

	if (o->p.reverse || o->p.size <= budget || perf_test_rdma(o->p.test))
		return 0;
	fprintf(stderr,
		"rdsperf: messages of %u bytes do not fit the send buffer of %u bytes (RDS "
		"refuses a message larger than SNDBUF): raise it with -w %u\n",
		o->p.size, budget, o->p.size);
	return -1;
}

/*
 * The server's answer to a proposal. Before it answers an RDMA test, the
 * server sends the cookies of its memory to our first socket: a kernel
 * server's connection to librds waits for librds to accept it, so librds
 * runs meanwhile (a blocked wait here left the kernel's RDMA_MAP at
 * EAGAIN until both timed out: seen in the lab). Return: as ctl_recv().
 */
static int recv_ready(const struct opts *o, struct ctl *cc, struct rio *r, char *line)
{
	rdsu_ns end;
	int e;

	if (!perf_test_rdma(o->p.test) || !rio_io(r))
		return ctl_recv(cc, line, CTL_TIMEOUT_MS);
	/* the server tries to send its cookies for up to 10 s first */
	end = rdsu_clock() + 2 * (rdsu_ns)CTL_TIMEOUT_MS * RDSU_MSEC;
	while ((e = ctl_recv(cc, line, 0)) == -ETIMEDOUT && rdsu_clock() < end && !perf_stop)
		(void)rio_idle(r, 2 * RDSU_MSEC);
	return e;
}

/* Propose the test; the server's ports go to c->dports. Return: 0; -1
 * (said on stderr). */
static int client_propose(struct opts *o, struct ctl *cc, struct perf_client *c, char *line,
			  bool *server_kernel)
{
	char err[256];
	bool reverse = false;
	int e;

	if ((e = ctl_send(cc, ctl_start_line(&o->p))) < 0 ||
	    (e = recv_ready(o, cc, c->r, line)) < 0) {
		fprintf(stderr, "rdsperf: control connection: %s\n", strerror(-e));
		return -1;
	}
	if (ctl_parse_ready(line, c->dports, o->p.sockets, server_kernel, &reverse, err,
			    sizeof(err)) < 0) {
		fprintf(stderr, "rdsperf: server refused the test: %s\n", err);
		return -1;
	}
	if (reverse != o->p.reverse) {
		fprintf(stderr, "rdsperf: the server does not run reverse tests (an older "
				"rdsperf): it would not send\n");
		return -1;
	}
	return 0;
}

/*
 * Let librds finish writing and answering before the server stops: what
 * the count calls sent must be in the server's kernel, not merely started
 * (a slow receiver holds the window shut, and bytes the socket did not
 * take wait in the transport: this process stops running librds while it
 * waits for the result; the server drains only until its sockets go
 * quiet). 10 s at most.
 */
static void client_settle(struct rio *r)
{
	if (!rio_io(r))
		return;
	for (rdsu_ns end = rdsu_clock() + 10 * RDSU_SEC; rio_unacked(r) && rdsu_clock() < end;)
		rio_idle(r, 10 * RDSU_MSEC);
	rio_idle(r, 50 * RDSU_MSEC);
}

/* Run the test proposed, counting retransmits around it, and fetch the
 * server's result. Return: 0; -1 (no result, said on stderr). */
static int client_measure(struct opts *o, struct ctl *cc, struct perf_run *run, char *line)
{
	struct perf_client *c = run->c;
	char err[256] = "";
	int64_t rt0, tr0, tr1;

	c->p = &o->p;
	c->dst = o->host;
	c->threads = o->threads;
	c->sched = o->sched;
	c->interval = o->interval;
	c->on_interval = perf_on_interval;
	c->ud = run;
	c->stop = &perf_stop;
	c->watch_fd = -1;
	rt0 = perf_librds_retransmits(c->r);
	tr0 = tcp_retrans_segs();
	run->err = perf_test_rdma(o->p.test) ? perf_rdma_run(c)
		   : o->p.reverse		  ? perf_recv_run(c)
						  : perf_client_run(c);
	run->rt_client = rt0 < 0 ? -1 : perf_librds_retransmits(c->r) - rt0;
	tr1 = tcp_retrans_segs();
	run->rt_host = tr0 < 0 || tr1 < 0 ? -1 : tr1 - tr0;
	client_settle(c->r);
	if (ctl_send(cc, ctl_stop_line()) < 0 || ctl_recv(cc, line, CTL_TIMEOUT_MS + 5000) < 0 ||
	    ctl_parse_result(line, run->res, err, sizeof(err)) < 0) {
		fprintf(stderr, "rdsperf: no result from the server: %s\n",
			err[0] ? err : "control connection lost");
		return -1;
	}
	return 0;
}

/*
 * An RDMA test passes when every operation ended SUCCESS, every old value
 * and read byte was as expected, at least one operation completed, and
 * the server's memory is what the operations must have left. What failed
 * is said on stderr (and in the JSON's "rdma" object). Return: 0; -1.
 */
static int rdma_judge(const struct opts *o, struct perf_run *run)
{
	const struct perf_rdma_out *m = &run->c->rdma;
	bool atomic_kernel = o->p.test == PERF_ATOMIC && (run->kernel || run->server_kernel);
	int bad = 0;

	run->rdma_verified = run->res->has_hash && run->res->region_hash == m->expect_hash &&
			     m->ops > 0 && !m->bad_values;
	if (m->failed) {
		fprintf(stderr, "rdsperf: %llu operation%s failed, the first %s%s\n",
			(unsigned long long)m->failed, m->failed == 1 ? "" : "s",
			rio_rdma_status_name(m->first_status),
			atomic_kernel ? " (a kernel's regions on Soft-RoCE grant no remote atomic "
					"access)" : "");
		bad = -1;
	}
	if (m->lost) {
		fprintf(stderr, "rdsperf: %llu operation%s never notified%s\n",
			(unsigned long long)m->lost, m->lost == 1 ? "" : "s",
			atomic_kernel && run->kernel
				? " (the kernel posts only masked atomics, which Soft-RoCE (rxe) "
				  "refuses: the message waits on its connection for ever)"
				: "");
		bad = -1;
	}
	if (run->err == 0 && !m->ops && !m->failed && !m->lost)
		fprintf(stderr, "rdsperf: no operation completed\n");
	if (m->bad_values)
		fprintf(stderr, "rdsperf: %llu operation%s returned what the slot did not hold\n",
			(unsigned long long)m->bad_values, m->bad_values == 1 ? "" : "s");
	if (!run->res->has_hash)
		fprintf(stderr, "rdsperf: the server sent no digest of its memory\n");
	else if (run->res->region_hash != m->expect_hash)
		fprintf(stderr, "rdsperf: the server's memory (digest %016llx) is not what the "
				"operations left there (%016llx)\n",
			(unsigned long long)run->res->region_hash,
			(unsigned long long)m->expect_hash);
	return run->rdma_verified ? bad : -1;
}

/* One test: propose, run, collect. Return: 0; 1 when the test ran but
 * failed (verification, a socket error); 2 when it could not run. */
static int run_one(struct opts *o, struct ctl *cc, struct out_list *runs, struct plot *plot)
{
	struct perf_client c;
	struct perf_result res;
	struct perf_run run = { .o = o, .c = &c, .res = &res, .kernel = o->cfg.kernel };
	char label[80];
	char *line = malloc(CTL_MAX_LINE + 1);
	int rc = 2;

	memset(&c, 0, sizeof(c));
	if (!line)
		return 2;
	if (client_open(o, &c.r, &c) < 0 || check_size(o, &c) < 0 ||
	    client_propose(o, cc, &c, line, &run.server_kernel) < 0)
		goto out;
	if (plot) {
		snprintf(label, sizeof(label), "%s %u B%s", perf_test_name(o->p.test), o->p.size,
			 o->p.reverse ? " reverse" : "");
		run.plot = plot_series_new(plot, label);
	}
	if (!o->json)
		perf_print_start(&run);
	if (client_measure(o, cc, &run, line) < 0)
		goto out;
	rc = run.err < 0 || c.total.verify_errors || res.verify_errors ? 1 : 0;
	if (perf_test_rdma(o->p.test) && rdma_judge(o, &run) < 0)
		rc = 1;
	if (run.plot && o->p.test != PERF_STREAM)
		plot_latency(run.plot, &c.lat);
	if (run.err < 0)
		fprintf(stderr, "rdsperf: test stopped: %s\n", rdsu_strerror(run.err));
	if (o->json) {
		if (perf_json_run(&run, runs) < 0)
			rc = 2;
	} else {
		perf_print_end(&run);
	}
out:
	out_list_free(&run.intervals);
	for (unsigned i = 0; i < o->p.sockets; i++)
		rio_sock_close(c.socks[i]);
	rio_close(c.r);
	perf_rdma_free(&c);
	free(line);
	return rc;
}

/* The picture of every run, into the file opened before they started. */
static int write_plot(const struct opts *o, FILE *f, struct plot *plot)
{
	int e = plot_svg(f, plot);

	if (fclose(f) != 0 || e < 0) {
		fprintf(stderr, "rdsperf: --plot %s: %s\n", o->plot, strerror(errno));
		return 2;
	}
	return 0;
}

int perf_run_client(struct opts *o)
{
	struct ctl *cc = calloc(1, sizeof(*cc));
	struct out_list runs = { 0 };
	struct plot *plot = NULL;
	FILE *pf = NULL;
	char a[64];
	int e, rc = 0;

	if (!cc)
		return 2;
	/* a file that cannot be written is said before the tests, not after */
	if (o->plot) {
		plot = calloc(1, sizeof(*plot));
		pf = fopen(o->plot, "w");
		if (!plot || !pf) {
			fprintf(stderr, "rdsperf: --plot %s: %s\n", o->plot, strerror(errno));
			if (pf)
				fclose(pf);
			free(plot);
			free(cc);
			return 2;
		}
		snprintf(plot->title, sizeof(plot->title), "rdsperf to %s", o->host_s);
	}
	e = rio_local_pick(&o->cfg.local, &o->host, &o->src);
	if (e < 0) {
		if (o->cfg.local.iface)
			fprintf(stderr, "rdsperf: -I %s: the interface has no %s address\n",
				o->cfg.local.iface, rdsu_addr_is_v4(&o->host) ? "IPv4" : "IPv6");
		else
			fprintf(stderr, "rdsperf: no route to %s: %s\n", o->host_s, strerror(-e));
		rc = 2;
		goto out;
	}
	/* On loopback both ends would get the same address, and two RDS
	 * stacks cannot share one: with no -I, take the next 127 address. */
	if (!o->cfg.local.given && !memcmp(&o->src, &o->host, sizeof(o->src)) &&
	    rdsu_addr_is_v4(&o->src) && o->src.a[12] == 127)
		o->src.a[15] = (uint8_t)(o->src.a[15] == 254 ? 1 : o->src.a[15] + 1);
	e = ctl_connect(&o->host, o->ctl_port);
	if (e < 0) {
		fprintf(stderr, "rdsperf: control connection to %s port %u: %s\n", o->host_s,
			o->ctl_port, strerror(-e));
		rc = 2;
		goto out;
	}
	ctl_init(cc, e);
	if (!o->json) {
		struct out *t = out_new(stdout, OUT_TEXT, 0, 0);

		if (t)
			out_printf(t, "client %s, server %s port %u\n",
				   rdsu_addr_str(&o->src, a, sizeof(a)), o->host_s, o->ctl_port);
		out_free(t);
	}
	for (unsigned i = 0; i < o->n_sizes && !perf_stop; i++) {
		int r;

		o->p.size = o->sizes[i];
		if (!o->rsize_set)
			o->p.rsize = o->p.test == PERF_STREAM || perf_test_rdma(o->p.test) ? 0
										    : o->p.size;
		r = run_one(o, cc, &runs, plot);
		if (r > rc)
			rc = r;
		if (r == 2)
			break;
	}
	if (o->json)
		perf_json_doc(&runs);
	close(cc->in.fd);
out:
	if (pf) {
		int w = write_plot(o, pf, plot);

		rc = w > rc ? w : rc;
		plot_free(plot);
		free(plot);
	}
	free(cc);
	return rc;
}
