// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * client.c - rdsperf's client: one test after another, each proposed, run
 * and collected.
 */
#define _GNU_SOURCE
#include "rdsperf.h"

#include <argp.h>
#include <errno.h>
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

/* One test: propose, run, collect. Return: 0; 1 when the test ran but
 * failed (verification, a socket error); 2 when it could not run. */
static int run_one(struct opts *o, struct ctl *cc, struct json_object *runs)
{
	struct perf_params *p = &o->p;
	struct rio_cfg cfg = o->cfg;
	struct rio *r = NULL;
	struct perf_client c;
	struct perf_result res;
	struct report rp = { o, NULL };
	char err[256], *line = malloc(CTL_MAX_LINE + 1), a[64];
	bool server_kernel = false;
	int64_t rt0, rt1, tr0, tr1;
	int e, rc = 2;

	memset(&c, 0, sizeof(c));
	if (!line)
		return 2;
	cfg.ep.npaths = (uint16_t)p->paths;
	cfg.ep.kver = p->kver == 6 ? WIRE_KVER_6 : WIRE_KVER_7;
	cfg.ep.path_rule = p->path_by_pair ? RDSU_PATH_BY_PAIR : RDSU_PATH_BY_PORT;
	if (rio_cfg_add_addr(&cfg, &o->src) < 0)
		goto out;
	e = rio_open(&r, &cfg);
	if (e < 0) {
		fprintf(stderr, "rdsperf: %s on %s: %s\n", perf_stack_name(cfg.kernel),
			rdsu_addr_str(&o->src, a, sizeof(a)), rio_open_strerror(&cfg, e));
		goto out;
	}
	for (unsigned i = 0; i < p->sockets; i++) {
		e = rio_socket(r, &o->src, 0, &c.socks[i]);
		if (e == 0)
			e = rio_set_bufs(c.socks[i], p->buf, p->buf);
		if (e < 0) {
			fprintf(stderr, "rdsperf: bind %s: %s\n", rdsu_addr_str(&o->src, a, sizeof(a)),
				rdsu_strerror(e));
			goto out;
		}
		p->client_ports[i] = rio_sock_port(c.socks[i]);
	}
	rdsu_addr_str(&o->src, p->client_addr, sizeof(p->client_addr));
	if ((e = ctl_send(cc, ctl_start_line(p))) < 0 || (e = ctl_recv(cc, line, CTL_TIMEOUT_MS)) < 0) {
		fprintf(stderr, "rdsperf: control connection: %s\n", strerror(-e));
		goto out;
	}
	if (ctl_parse_ready(line, c.dports, p->sockets, &server_kernel, err, sizeof(err)) < 0) {
		fprintf(stderr, "rdsperf: server refused the test: %s\n", err);
		goto out;
	}
	if (!o->json)
		printf("rdsperf %s -> %s: %s, %u byte%s%s, %u socket%s, %u thread%s, %s, "
		       "sched %s; client %s, server %s%s\n",
		       p->client_addr, o->host_s, perf_test_name(p->test), p->size,
		       p->size == 1 ? "" : "s",
		       p->test == PERF_STREAM ? "" : (p->rsize == p->size ? " each way" : " requests"),
		       p->sockets, p->sockets == 1 ? "" : "s", o->threads, o->threads == 1 ? "" : "s",
		       cfg.kernel          ? "kernel paths"
		       : p->paths == 1     ? "1 path"
		       : p->path_by_pair   ? "up to 8 paths, by port pair"
					   : "up to 8 paths, by sending port",
		       perf_sched_name(o->sched), perf_stack_name(cfg.kernel), perf_stack_name(server_kernel),
		       p->verify ? ", verified" : "");
	if (!o->json && p->test == PERF_RR && p->rsize != p->size)
		printf("  responses %u bytes, depth %u\n", p->rsize, p->depth);
	if (!o->json && p->buf)
		printf("  SNDBUF and RCVBUF %u bytes at both ends\n", p->buf);
	if (!o->json && !cfg.kernel && p->paths != 8)
		printf("  librds advertises %u path%s\n", p->paths, p->paths == 1 ? "" : "s");
	if (o->json)
		rp.intervals = json_object_new_array();
	c.p = p;
	c.r = r;
	c.dst = o->host;
	c.threads = o->threads;
	c.sched = o->sched;
	c.interval = o->interval;
	c.on_interval = perf_on_interval;
	c.ud = &rp;
	c.stop = &perf_stop;
	rt0 = perf_librds_retransmits(r);
	tr0 = tcp_retrans_segs();
	e = perf_client_run(&c);
	rt1 = perf_librds_retransmits(r);
	tr1 = tcp_retrans_segs();
	/* Let librds finish writing and answering before the server stops:
	 * what the count calls sent must be in the server's kernel, not
	 * merely started (a slow receiver holds the window shut, and bytes
	 * the socket did not take wait in the transport: this process stops
	 * running librds while it waits for the result; the server drains
	 * only until its sockets go quiet). 10 s at most. */
	if (rio_io(r)) {
		for (rdsu_ns end = rdsu_clock() + 10 * RDSU_SEC;
		     rio_unacked(r) && rdsu_clock() < end;)
			rio_idle(r, 10 * RDSU_MSEC);
		rio_idle(r, 50 * RDSU_MSEC);
	}
	if (ctl_send(cc, ctl_stop_line()) < 0 || ctl_recv(cc, line, CTL_TIMEOUT_MS + 5000) < 0 ||
	    ctl_parse_result(line, &res, err, sizeof(err)) < 0) {
		fprintf(stderr, "rdsperf: no result from the server: %s\n",
			err[0] ? err : "control connection lost");
		goto out;
	}
	rc = e < 0 || c.total.verify_errors || res.verify_errors ? 1 : 0;
	if (e < 0)
		fprintf(stderr, "rdsperf: test stopped: %s\n", rdsu_strerror(e));
	if (o->json) {
		struct out *j = malloc(sizeof(*j));
		bool stream = p->test == PERF_STREAM;

		if (!j) {
			rc = 2;
			goto out;
		}
		out_init(j, stdout, OUT_JSON, 0, 0);
		out_begin(j, &perf_run_group);
		out_obj_open(j, RUN_START);
		out_str(j, ST_TEST, perf_test_name(p->test));
		out_u64(j, ST_SIZE, p->size);
		if (!stream) {
			out_u64(j, ST_RSIZE, p->rsize);
			out_u64(j, ST_DEPTH, p->depth);
		}
		out_u64(j, ST_SOCKETS, p->sockets);
		out_u64(j, ST_THREADS, o->threads);
		if (cfg.kernel) {
			out_null(j, ST_PATHS);
			out_null(j, ST_KVER);
			out_null(j, ST_PATH_RULE);
		} else {
			out_u64(j, ST_PATHS, p->paths);
			out_u64(j, ST_KVER, p->kver);
			out_str(j, ST_PATH_RULE, p->path_by_pair ? "pair" : "port");
		}
		out_double(j, ST_DURATION, p->duration);
		out_double(j, ST_OMIT, p->omit);
		if (p->buf)
			out_u64(j, ST_WINDOW, p->buf);
		else
			out_null(j, ST_WINDOW);
		out_bool(j, ST_VERIFY, p->verify);
		out_str(j, ST_SCHED, perf_sched_name(o->sched));
		out_str(j, ST_CLIENT, p->client_addr);
		out_str(j, ST_SERVER, o->host_s);
		out_str(j, ST_CLIENT_STACK, perf_stack_name(cfg.kernel));
		out_str(j, ST_SERVER_STACK, perf_stack_name(server_kernel));
		out_close(j);
		out_json(j, RUN_INTERVALS, rp.intervals);
		rp.intervals = NULL;
		out_obj_open(j, RUN_END);
		out_obj_open(j, EN_SENDER);
		perf_count_json(j, &c.total, c.measured, stream);
		out_close(j);
		out_obj_open(j, EN_RECEIVER);
		out_double(j, RX_SECONDS, res.wall);
		out_u64(j, RX_MESSAGES, res.msgs);
		out_u64(j, RX_BYTES, res.bytes);
		out_double(j, RX_MESSAGES_PER_SECOND, perf_rate(res.msgs, res.wall));
		out_double(j, RX_BITS_PER_SECOND, perf_rate(res.bytes, res.wall) * 8);
		out_u64(j, RX_RESPONSES_SENT, res.sent);
		out_u64(j, RX_EAGAIN, res.eagain);
		out_u64(j, RX_ENOBUFS, res.enobufs);
		out_u64(j, RX_VERIFY_ERRORS, res.verify_errors);
		out_close(j);
		if (!stream)
			perf_lat_json(j, EN_LATENCY, &c.lat);
		out_obj_open(j, EN_CPU);
		out_double(j, CPU_CLIENT, c.measured > 0 ? 100 * c.cpu / c.measured : 0);
		out_double(j, CPU_SERVER, res.wall > 0 ? 100 * res.cpu / res.wall : 0);
		out_close(j);
		out_obj_open(j, EN_RETRANSMITS);
		if (rt0 < 0)
			out_null(j, RT_CLIENT_RDS);
		else
			out_i64(j, RT_CLIENT_RDS, rt1 - rt0);
		if (res.rds_retransmits < 0)
			out_null(j, RT_SERVER_RDS);
		else
			out_i64(j, RT_SERVER_RDS, res.rds_retransmits);
		if (tr0 < 0 || tr1 < 0)
			out_null(j, RT_HOST_TCP_SEGMENTS);
		else
			out_i64(j, RT_HOST_TCP_SEGMENTS, tr1 - tr0);
		out_close(j);
		out_close(j);
		out_str(j, RUN_ERROR, e < 0 ? rdsu_strerror(e) : NULL);
		json_object_array_add(runs, out_take(j));
		out_fini(j);
		free(j);
	} else {
		bool stream = p->test == PERF_STREAM;

		printf("- - - - - - - - - - - - - - - - - - - - - - - - -\n");
		printf("sender   %6.2f s %10.0f msg/s ", c.measured, perf_rate(c.total.msgs, c.measured));
		perf_print_bits(perf_rate(c.total.bytes, c.measured));
		printf("  %llu messages, cpu %.0f %%\n", (unsigned long long)c.total.msgs,
		       c.measured > 0 ? 100 * c.cpu / c.measured : 0);
		printf("receiver %6.2f s %10.0f msg/s ", res.wall, perf_rate(res.msgs, res.wall));
		perf_print_bits(perf_rate(res.bytes, res.wall));
		printf("  %llu messages, cpu %.0f %%\n", (unsigned long long)res.msgs,
		       res.wall > 0 ? 100 * res.cpu / res.wall : 0);
		if (!stream) {
			printf("responses          %10.0f /s      ", perf_rate(c.total.rmsgs, c.measured));
			perf_print_lat(&c.lat);
			printf(" (full round trip, %llu samples)\n", (unsigned long long)c.lat.n);
		}
		printf("send errors: eagain %llu enobufs %llu (client), %llu %llu (server)\n",
		       (unsigned long long)c.total.eagain, (unsigned long long)c.total.enobufs,
		       (unsigned long long)res.eagain, (unsigned long long)res.enobufs);
		printf("retransmits: ");
		if (rt0 >= 0)
			printf("client librds %lld, ", (long long)(rt1 - rt0));
		if (res.rds_retransmits >= 0)
			printf("server librds %lld, ", (long long)res.rds_retransmits);
		if (tr0 >= 0 && tr1 >= 0)
			printf("host TCP segments %lld", (long long)(tr1 - tr0));
		printf("\n");
		if (p->verify)
			printf("verify: %llu errors at the client, %llu at the server\n",
			       (unsigned long long)c.total.verify_errors,
			       (unsigned long long)res.verify_errors);
	}
out:
	json_object_put(rp.intervals);
	for (unsigned i = 0; i < p->sockets; i++)
		rio_sock_close(c.socks[i]);
	rio_close(r);
	free(line);
	return rc;
}

int perf_run_client(struct opts *o)
{
	struct ctl *cc = calloc(1, sizeof(*cc));
	struct json_object *runs = NULL;
	char a[64];
	int e, rc = 0;

	if (!cc)
		return 2;
	if (!o->have_src) {
		e = rio_route_source(&o->host, &o->src);
		if (e < 0) {
			fprintf(stderr, "rdsperf: no route to %s: %s\n", o->host_s, strerror(-e));
			free(cc);
			return 2;
		}
		/* On loopback both ends would get the same address, and two
		 * RDS stacks cannot share one: take the next 127 address. */
		if (!memcmp(&o->src, &o->host, sizeof(o->src)) && rdsu_addr_is_v4(&o->src) &&
		    o->src.a[12] == 127)
			o->src.a[15] = (uint8_t)(o->src.a[15] == 254 ? 1 : o->src.a[15] + 1);
	}
	cc->fd = ctl_connect(&o->host, o->ctl_port);
	if (cc->fd < 0) {
		fprintf(stderr, "rdsperf: control connection to %s port %u: %s\n", o->host_s,
			o->ctl_port, strerror(-cc->fd));
		free(cc);
		return 2;
	}
	if (o->json) {
		runs = json_object_new_array();
	} else {
		printf("client %s, server %s port %u\n", rdsu_addr_str(&o->src, a, sizeof(a)),
		       o->host_s, o->ctl_port);
	}
	for (unsigned i = 0; i < o->n_sizes && !perf_stop; i++) {
		int r;

		o->p.size = o->sizes[i];
		if (!o->rsize_set)
			o->p.rsize = o->p.test == PERF_STREAM ? 0 : o->p.size;
		r = run_one(o, cc, runs);
		if (r > rc)
			rc = r;
		if (r == 2)
			break;
	}
	if (runs) {
		struct out *doc = malloc(sizeof(*doc));

		if (doc) {
			out_init(doc, stdout, OUT_JSON, 0,
				 JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
			out_begin(doc, &perf_doc_group);
			out_u64(doc, DOC_RDSPERF, CTL_VERSION);
			out_str(doc, DOC_VERSION, RDSTK_VERSION);
			out_json(doc, DOC_RUNS, runs);
			out_end(doc);
			out_fini(doc);
			free(doc);
		} else {
			json_object_put(runs);
		}
	}
	close(cc->fd);
	free(cc);
	return rc;
}
