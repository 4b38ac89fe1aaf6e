#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""rdstop-prometheus.py RDSTOP RDSDRIVE - rdstop's exporter scraped by a real
Prometheus (issue 33), in a network namespace of its own (unshare -n):

  1. a librds sink and a librds source on loopback, each watched by an
     `rdstop --librds PID --prometheus` exporter; Debian's prometheus
     scrapes both every second;
  2. the source sends 40 messages of 16 KiB to a sink that stops reading
     after the first for a while (a congestion episode);
  3. through Prometheus's HTTP API: the sink's recv_delivered and the
     source's send_queued are 40, the connection between them is up in
     both, the sink's own map showed port 4000 (group 4000 % 64 = 32)
     congested and its socket congested, the source's copy of the sink's
     map showed it too;
  4. promtool check metrics reports nothing on either exporter's output,
     and OpenMetrics is served when the Accept header asks.

Exit 77 when unshare, prometheus or promtool is missing.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

import clitest

SKIP = 77


clitest.in_netns("RDSTOP_PROM_NETNS")

top, drive = sys.argv[1], sys.argv[2]
for tool in ("prometheus", "promtool"):
    if not shutil.which(tool):
        print("no %s (Debian: prometheus)" % tool)
        sys.exit(SKIP)
if subprocess.run(["ip", "link", "set", "lo", "up"]).returncode != 0:
    print("cannot bring up lo in the namespace")
    sys.exit(SKIP)

d = tempfile.mkdtemp(prefix="rdstop-prom.")
env = dict(os.environ, RDSU_MONITOR_DIR=os.path.join(d, "mon"), RDSU_MONITOR="1")
procs = clitest.Started(d, env)
start = procs.start
bad = clitest.fail
failed = clitest.FAILS


def cleanup():
    procs.stop(hard=(drive,))  # rdsdrive's loop does not stop for SIGTERM
    shutil.rmtree(d, ignore_errors=True)


def wait_for(pred, what):
    return clitest.wait_for(pred, what, every=0.2)


def get(url, headers=None):
    req = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.headers.get("Content-Type", ""), r.read().decode()


def query(expr):
    url = "http://127.0.0.1:9090/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    try:
        _, body = get(url)
    except OSError:
        return None
    res = json.loads(body)
    if res.get("status") != "success":
        return None
    return [(r["metric"], float(r["value"][1])) for r in res["data"]["result"]]


def value(expr):
    r = query(expr)
    return r[0][1] if r and len(r) == 1 else None


def mon_sock(p):
    path = os.path.join(d, "mon", "%d.sock" % p.pid)
    return path if os.path.exists(path) else None


try:
    # 1. the sink, its exporter, the source's exporter comes with the source
    sink = start([drive, "-b", "127.0.0.1", "sink", "--port", "4000", "--expect", "40",
                  "--stall-after", "1", "--stall", "4", "--rcvbuf", "65536", "--sizes", "16K",
                  "--timeout", "60", "--linger", "120"], "sink")
    wait_for(lambda: mon_sock(sink), "the sink publishes its monitor state")
    start([top, "--librds", str(sink.pid), "-d", "0.25", "--prometheus", "127.0.0.1:9481"],
          "top-sink")
    cfg = os.path.join(d, "prometheus.yml")
    with open(cfg, "w") as f:
        f.write("""global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: sink
    static_configs: [{targets: ['127.0.0.1:9481']}]
  - job_name: source
    static_configs: [{targets: ['127.0.0.1:9482']}]
""")
    start(["prometheus", "--config.file=" + cfg, "--storage.tsdb.path=" + os.path.join(d, "tsdb"),
           "--web.listen-address=127.0.0.1:9090", "--log.level=warn"], "prometheus")
    wait_for(lambda: value('up{job="sink"}') == 1, "Prometheus scrapes the sink's exporter")

    # 2. the traffic
    source = start([drive, "-b", "127.0.0.2", "source", "--to", "127.0.0.1", "--port", "4000",
                    "--count", "40", "--sizes", "16K", "--timeout", "60", "--linger", "120"],
                   "source")
    wait_for(lambda: mon_sock(source), "the source publishes its monitor state")
    start([top, "--librds", str(source.pid), "-d", "0.25", "--prometheus", "127.0.0.1:9482"],
          "top-source")

    # 3. what Prometheus holds
    wait_for(lambda: value('afrds_recv_delivered_total{job="sink"}') == 40,
             "the sink's recv_delivered reaches 40 in Prometheus")
    wait_for(lambda: value('afrds_send_queued_total{job="source"}') == 40,
             "the source's send_queued reaches 40 in Prometheus")
    v = value('afrds_recv_delivered_total{job="sink"}')
    if v != 40:
        bad("sink recv_delivered %r, want 40" % v)
    for job, peer in (("sink", "127.0.0.2"), ("source", "127.0.0.1")):
        expr = 'afrds_connection_up{job="%s",peer="%s",transport="tcp"}' % (job, peer)
        if value(expr) != 1:
            bad("%s: %s is %r" % (job, expr, query(expr)))
        expr = 'afrds_path_state{job="%s",peer="%s",path="0"}' % (job, peer)
        if value(expr) != 2:
            bad("%s: %s is %r, want 2 (up)" % (job, expr, query(expr)))
        if value('afrds_up{job="%s"}' % job) != 1:
            bad("%s: afrds_up not 1" % job)
        info = query('afrds_build_info{job="%s"}' % job)
        if not info or info[0][0].get("source") != "librds" or info[0][0].get("transports") != "tcp":
            bad("%s: afrds_build_info %r" % (job, info))
    # every message the source sent is counted on its connection: 40 data
    # messages, and the congestion map updates and pings the stacks add
    sent = value('afrds_connection_sent_messages_total{job="source",peer="127.0.0.1"}')
    got = value('afrds_connection_received_messages_total{job="sink",peer="127.0.0.2"}')
    if sent is None or sent < 40 or got != sent:
        bad("connection messages: source sent %r, sink received %r (want equal, >= 40)"
            % (sent, got))
    # the congestion episode, over the whole run
    for expr, what in (
            ('max_over_time(afrds_local_congested_ports{job="sink",group="32"}[10m])',
             "the sink's own map: port 4000 congested"),
            ('max_over_time(afrds_sockets_congested{job="sink"}[10m])',
             "the sink's socket congested"),
            ('max_over_time(afrds_connection_peer_congested_ports{job="source",peer="127.0.0.1"}[10m])',
             "the source's copy of the sink's map: a port congested"),
            ('max_over_time(afrds_peer_congested_ports{job="source",group="32"}[10m])',
             "the source's copy by group: group 32")):
        v = value(expr)
        if not v or v < 1:
            bad("%s: %s = %r" % (what, expr, v))
    # and it ended: nothing congested now that the sink reads again
    wait_for(lambda: value('afrds_local_congested_ports{job="sink",group="32"}') == 0,
             "the sink's map clears")

    # 4. the exposition itself
    for port in (9481, 9482):
        ctype, body = get("http://127.0.0.1:%d/metrics" % port)
        if not ctype.startswith("text/plain; version=0.0.4"):
            bad("content type %r" % ctype)
        r = subprocess.run(["promtool", "check", "metrics"], input=body, text=True,
                           capture_output=True)
        if r.returncode != 0 or r.stdout.strip() or r.stderr.strip():
            bad("promtool check metrics on :%d: %s%s" % (port, r.stdout, r.stderr))
        ctype, body = get("http://127.0.0.1:%d/metrics" % port,
                          {"Accept": "application/openmetrics-text; version=1.0.0"})
        if not ctype.startswith("application/openmetrics-text") or not body.endswith("# EOF\n"):
            bad("OpenMetrics: %r, ends %r" % (ctype, body[-20:]))
        if "afrds_recv_delivered_total" not in body and "afrds_send_queued_total" not in body:
            bad("OpenMetrics body lacks the counters")
    if value('afrds_exporter_scrapes_total{job="sink"}') in (None, 0):
        bad("the exporter counts no scrapes")
finally:
    for p in procs:
        if p.poll() is not None and p.returncode not in (0, -15) and p.args[0] == top:
            bad("%s exited %d: %s" % (" ".join(p.args), p.returncode,
                                      open(os.path.join(d, "top-%s.out" % (
                                          "sink" if "9481" in p.args[-1] else "source"))).read()))
    cleanup()

if failed:
    sys.exit(1)
print("rdstop-prometheus: ok")
