/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * prom_http.h - rdstop's /metrics over HTTP (--prometheus), served by
 * libmicrohttpd from one thread of its own. rdstop renders the metrics
 * once an interval and publishes them here; a scrape is answered from the
 * last published rendering, so no number of scrapes reaches the source
 * (the kernel, or the loop of the librds process watched).
 */
#ifndef TOP_PROM_HTTP_H
#define TOP_PROM_HTTP_H

#include <stddef.h>
#include <stdint.h>

/* The server's bounds, which docs/monitoring.md lists. */
#define PROM_HTTP_CONNS 32             /* connections at once; more wait */
#define PROM_HTTP_CONNS_PER_IP 8       /* from one address; more are closed */
#define PROM_HTTP_TIMEOUT_S 10         /* a connection idle this long is closed */
#define PROM_HTTP_MEM (32 * 1024)      /* a request's headers and buffers */

struct prom_http;

/*
 * prom_http_start() - listen on |spec| ("PORT", ":PORT", "ADDR:PORT",
 * "[ADDR6]:PORT"; PORT 0 picks one) and serve. *port says which.
 * Return: 0; a negative errno with a sentence in |err|.
 */
int prom_http_start(struct prom_http **out, const char *spec, uint16_t *port, char *err,
		    size_t errlen);

/*
 * prom_http_publish() - the renderings to answer with from now on: |text|
 * (the Prometheus text format) and |om| (OpenMetrics), |len| bytes each,
 * malloc()ed; the server takes them and frees them when no request needs
 * them any more.
 */
void prom_http_publish(struct prom_http *h, char *text, size_t text_len, char *om,
		       size_t om_len);

/* prom_http_counts() - requests answered with metrics, and refused. */
void prom_http_counts(struct prom_http *h, uint64_t *scrapes, uint64_t *refused);

void prom_http_stop(struct prom_http *h);

#endif /* TOP_PROM_HTTP_H */
