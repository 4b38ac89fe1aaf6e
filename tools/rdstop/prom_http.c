// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * prom_http.c - /metrics over libmicrohttpd. One internal thread polls
 * every connection (epoll), so a slow client holds nothing but its own
 * connection; the daemon's bounds (prom_http.h) close idle connections,
 * refuse connections over the limit and answer requests whose headers do
 * not fit the per-connection memory with an error; one address cannot
 * take more than a quarter of the connections, so a flood from one host
 * leaves room for the scrapers. The bodies are
 * libmicrohttpd response objects made once an interval and shared by
 * every request (libmicrohttpd counts their users).
 */
#define _GNU_SOURCE
#include "prom_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "prom.h"

struct prom_http {
	struct MHD_Daemon *d;
	pthread_mutex_t mu;
	struct MHD_Response *text, *om;    /* NULL until the first publish */
	uint64_t scrapes, refused;
};

static enum MHD_Result answer_plain(struct MHD_Connection *c, unsigned code, const char *msg)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(msg), (void *)msg,
								 MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version,
				  const char *upload_data, size_t *upload_size, void **req_cls)
{
	static int seen;
	struct prom_http *h = cls;
	const char *accept;
	enum MHD_Result ret;

	(void)version;
	(void)upload_data;
	if (!*req_cls) {
		/* the headers are in; answer once the request is whole */
		*req_cls = &seen;
		return MHD_YES;
	}
	if (*upload_size) {
		/* a body nobody asked for: dropped as it comes */
		*upload_size = 0;
		return MHD_YES;
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
		pthread_mutex_lock(&h->mu);
		h->refused++;
		pthread_mutex_unlock(&h->mu);
		return answer_plain(c, MHD_HTTP_METHOD_NOT_ALLOWED, "GET or HEAD /metrics\n");
	}
	if (strcmp(url, "/metrics") != 0) {
		pthread_mutex_lock(&h->mu);
		h->refused++;
		pthread_mutex_unlock(&h->mu);
		if (strcmp(url, "/") == 0)
			return answer_plain(c, MHD_HTTP_NOT_FOUND,
					    "rdstop: the metrics are at /metrics\n");
		return answer_plain(c, MHD_HTTP_NOT_FOUND, "not found: the metrics are at /metrics\n");
	}
	accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	pthread_mutex_lock(&h->mu);
	if (!h->text) {
		pthread_mutex_unlock(&h->mu);
		return answer_plain(c, MHD_HTTP_SERVICE_UNAVAILABLE, "no snapshot yet\n");
	}
	h->scrapes++;
	ret = MHD_queue_response(c, MHD_HTTP_OK,
				 prom_accept_fmt(accept) == PROM_FMT_OPENMETRICS ? h->om : h->text);
	pthread_mutex_unlock(&h->mu);
	return ret;
}

/* "PORT", ":PORT", "ADDR:PORT", "[ADDR6]:PORT" into a socket address. */
static int parse_spec(const char *spec, struct sockaddr_storage *ss, char *err, size_t errlen)
{
	char host[INET6_ADDRSTRLEN + 2] = "";
	const char *colon = strrchr(spec, ':'), *ps = colon ? colon + 1 : spec;
	struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
	char *end;
	unsigned long port;
	size_t hl = colon ? (size_t)(colon - spec) : 0;

	errno = 0;
	port = strtoul(ps, &end, 10);
	if (!*ps || *end || errno || port > 65535 || hl >= sizeof(host))
		goto bad;
	memcpy(host, spec, hl);
	host[hl] = 0;
	memset(ss, 0, sizeof(*ss));
	if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') {
		host[hl - 1] = 0;
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, host + 1, &v6->sin6_addr) != 1)
			goto bad;
		return 0;
	}
	v4->sin_family = AF_INET;
	v4->sin_port = htons((uint16_t)port);
	if (!hl) {
		v4->sin_addr.s_addr = htonl(INADDR_ANY);
		return 0;
	}
	if (inet_pton(AF_INET, host, &v4->sin_addr) != 1)
		goto bad;
	return 0;
bad:
	snprintf(err, errlen, "--prometheus takes [ADDR]:PORT (e.g. :9481, 127.0.0.1:9481, "
		 "[::1]:9481), not '%s'", spec);
	return -EINVAL;
}

int prom_http_start(struct prom_http **out, const char *spec, uint16_t *port, char *err,
		    size_t errlen)
{
	struct sockaddr_storage ss;
	struct prom_http *h;
	const union MHD_DaemonInfo *info;
	int e = parse_spec(spec, &ss, err, errlen);
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO;
	sigset_t block, old;

	if (e < 0)
		return e;
	h = calloc(1, sizeof(*h));
	if (!h) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&h->mu, NULL);
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	/* the server's thread leaves SIGINT and SIGTERM to the main loop */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	errno = 0;
	h->d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, h,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned)PROM_HTTP_CONNS,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)PROM_HTTP_CONNS_PER_IP,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)PROM_HTTP_TIMEOUT_S,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)PROM_HTTP_MEM,
				MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned)16,
				MHD_OPTION_END);
	e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!h->d) {
		e = e ? -e : -EADDRINUSE;
		snprintf(err, errlen, "cannot serve metrics on %s: %s", spec, strerror(-e));
		pthread_mutex_destroy(&h->mu);
		free(h);
		return e;
	}
	info = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
	*port = info ? info->port : 0;
	*out = h;
	return 0;
}

static struct MHD_Response *response(char *body, size_t len, enum prom_fmt fmt)
{
	struct MHD_Response *r = MHD_create_response_from_buffer_with_free_callback(len, body,
										    free);

	if (!r) {
		free(body);
		return NULL;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, prom_content_type(fmt));
	return r;
}

void prom_http_publish(struct prom_http *h, char *text, size_t text_len, char *om,
		       size_t om_len)
{
	struct MHD_Response *t = response(text, text_len, PROM_FMT_TEXT);
	struct MHD_Response *o = response(om, om_len, PROM_FMT_OPENMETRICS);
	struct MHD_Response *old_t, *old_o;

	if (!t || !o) {
		/* out of memory: keep answering with the previous rendering */
		if (t)
			MHD_destroy_response(t);
		if (o)
			MHD_destroy_response(o);
		return;
	}
	pthread_mutex_lock(&h->mu);
	old_t = h->text;
	old_o = h->om;
	h->text = t;
	h->om = o;
	pthread_mutex_unlock(&h->mu);
	/* requests still sending them hold their own references */
	if (old_t)
		MHD_destroy_response(old_t);
	if (old_o)
		MHD_destroy_response(old_o);
}

void prom_http_counts(struct prom_http *h, uint64_t *scrapes, uint64_t *refused)
{
	pthread_mutex_lock(&h->mu);
	*scrapes = h->scrapes;
	*refused = h->refused;
	pthread_mutex_unlock(&h->mu);
}

void prom_http_stop(struct prom_http *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->d);
	if (h->text)
		MHD_destroy_response(h->text);
	if (h->om)
		MHD_destroy_response(h->om);
	pthread_mutex_destroy(&h->mu);
	free(h);
}
