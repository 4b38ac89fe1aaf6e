#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""rdstop-exporter.py RDSTOP RDSDRIVE - rdstop's exporter against the
clients it must survive, and its textfile under node_exporter (issue 33),
in a network namespace of its own (unshare -n). The exporter watches a
librds process (rdsdrive serve) and writes its textfile every 20 ms.

  0. scrapes are answered from the last snapshot: 200 in a row take no
     more snapshots than the interval gives, and a second exporter with
     an hour's interval takes none at all for 200 scrapes (a scrape never
     reaches the watched process, so never its data path);
  1. a request that never ends (headers started, never finished) and a
     scraper that never reads its answer: while they are open, scrapes
     are answered; the server closes the request (its idle timeout, 10 s;
     EOF or an error status, not silence) - checked last, so the wait
     overlaps the rest;
  2. many connections (200 from 127.0.0.2, idle, more than the limits of
     8 an address and 32 in all): a scrape from 127.0.0.1 is answered while
     they are held, and once they are gone; the snapshots went on (the
     textfile kept changing); the exporter's memory did not grow by more
     than the connections could cost;
  3. huge headers (1 MiB): refused with 431 or the connection closed (an
     exporter that only goes quiet fails), nothing kept; the next scrape is
     answered;
  4. node_exporter's textfile collector reads the file while rdstop
     rewrites it: 100 scrapes, each with every afrds_ family and no
     textfile error; 2000 direct reads, never a partial file;
  5. promtool check metrics reports nothing on the textfile;
  6. the watched process is killed: afrds_up turns 0, the stack's series
     go, the exporter goes on answering.

Exit 77 when unshare, node_exporter or promtool is missing.
"""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

import clitest

SKIP = 77

clitest.in_netns("RDSTOP_EXP_NETNS")

top, drive = sys.argv[1], sys.argv[2]
nodex = shutil.which("prometheus-node-exporter") or shutil.which("node_exporter")
if not nodex or not shutil.which("promtool"):
    print("no node_exporter or promtool (Debian: prometheus-node-exporter, prometheus)")
    sys.exit(SKIP)
if subprocess.run(["ip", "link", "set", "lo", "up"]).returncode != 0:
    sys.exit(SKIP)

d = tempfile.mkdtemp(prefix="rdstop-exp.")
tf_dir = os.path.join(d, "textfile")
os.mkdir(tf_dir)
tf = os.path.join(tf_dir, "rdstop.prom")
env = dict(os.environ, RDSU_MONITOR_DIR=os.path.join(d, "mon"), RDSU_MONITOR="1")
# a sanitizer build keeps freed memory aside (256 MiB): the memory checks
# below measure what the exporter holds, not that
env["ASAN_OPTIONS"] = ":".join(x for x in (os.environ.get("ASAN_OPTIONS"),
                                           "quarantine_size_mb=1") if x)
T0 = time.monotonic()


def note(what):
    if os.environ.get("DEBUG_T"):
        print("%.1f %s" % (time.monotonic() - T0, what))
procs = clitest.Started(d, env)
start = procs.start
bad = clitest.fail
failed = clitest.FAILS
wait_for = clitest.wait_for
PORT = 9481
URL = "http://127.0.0.1:%d/metrics" % PORT


def scrape(url=URL):
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.read().decode()
    except OSError as e:
        return None


def sample(body, name):
    for line in (body or "").splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return None


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def families(body):
    return sorted(l.split()[2] for l in body.splitlines()
                  if l.startswith("# TYPE afrds_"))


try:
    serve = start([drive, "-b", "127.0.0.1", "serve"], "serve")
    wait_for(lambda: os.path.exists(os.path.join(d, "mon", "%d.sock" % serve.pid)),
             "rdsdrive serve publishes")
    exp = start([top, "--librds", str(serve.pid), "-d", "0.02", "--prometheus",
                 "127.0.0.1:%d" % PORT, "--textfile", tf_dir], "top")
    first = wait_for(lambda: scrape(), "the exporter answers")
    want = families(first or "")
    if "afrds_up" not in want or "afrds_sockets" not in want:
        bad("families: %r" % want)

    note('# 1. a request that never ends')
    # 0. scrapes do not reach the source: 200 scrapes in a row take no
    # more snapshots than the interval gives (one each 20 ms, and one more
    # on either side), where a snapshot per scrape would take 200 more
    t_a = time.monotonic()
    n_a = sample(scrape(), "afrds_exporter_snapshots_total")
    for i in range(200):
        scrape()
    n_b = sample(scrape(), "afrds_exporter_snapshots_total")
    bound = (time.monotonic() - t_a) / 0.02 + 2
    if n_a is None or n_b is None or n_b - n_a > bound:
        bad("200 scrapes: %r -> %r snapshots, at most %.0f expected" % (n_a, n_b, bound))
    # ... and with an hour between snapshots, 200 scrapes take none: were
    # a scrape to ask the watched process, the count would move
    idle = start([top, "--librds", str(serve.pid), "-d", "3600", "--prometheus",
                  "127.0.0.1:%d" % (PORT + 2)], "top-idle")
    iurl = "http://127.0.0.1:%d/metrics" % (PORT + 2)
    n_a = sample(wait_for(lambda: scrape(iurl), "the idle exporter answers"),
                 "afrds_exporter_snapshots_total")
    for i in range(200):
        scrape(iurl)
    n_b = sample(scrape(iurl), "afrds_exporter_snapshots_total")
    if n_a is None or n_b != n_a:
        bad("-d 3600: 200 scrapes moved the snapshots from %r to %r" % (n_a, n_b))
    idle.terminate()
    idle.wait(10)

    # 1. a request that never ends
    slow = socket.create_connection(("127.0.0.1", PORT))
    slow.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ")
    # a scraper that asks and never reads: its receive buffer as small as
    # the kernel allows, so the answer cannot all be sent
    deaf = socket.socket()
    deaf.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1)
    deaf.connect(("127.0.0.1", PORT))
    deaf.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    body = scrape()
    if sample(body, "afrds_up") != 1:
        bad("no answer while a request hangs: %r" % (body or "")[:200])

    note('# 2. many connections')
    # 2. many connections
    rss0 = rss_kib(exp.pid)
    snaps0 = sample(scrape(), "afrds_exporter_snapshots_total")
    many = []
    for i in range(200):
        # from 127.0.0.2; non-blocking: past the limit and the backlog a
        # connect waits
        s = socket.socket()
        s.bind(("127.0.0.2", 0))
        s.setblocking(False)
        s.connect_ex(("127.0.0.1", PORT))
        many.append(s)
    # while they are held the snapshots go on: the textfile's count grows
    def tf_snapshots():
        try:
            return sample(open(tf).read(), "afrds_exporter_snapshots_total")
        except OSError:
            return None
    held = tf_snapshots()
    wait_for(lambda: (tf_snapshots() or 0) > (held or 0) + 5,
             "snapshots go on while 200 connections are held")
    # one address gets 8 connections: a scraper from another is answered
    # while the flood is held (the flood has had the snapshots' time to land)
    body = scrape()
    if sample(body, "afrds_up") != 1:
        bad("no answer from another address during a flood of 200 connections")
    grown = rss_kib(exp.pid) - rss0
    for s in many:
        s.close()
    body = wait_for(lambda: scrape(), "a scrape once the connections are gone")
    if (sample(body, "afrds_exporter_snapshots_total") or 0) <= (snaps0 or 0):
        bad("snapshots did not go on")
    # 32 connections of at most 32 KiB each, and slack for the allocator
    if grown > 8 * 1024:
        bad("memory grew by %d KiB with 200 connections" % grown)

    note('# 3. huge headers')
    # 3. huge headers
    rss0 = rss_kib(exp.pid)
    h = socket.create_connection(("127.0.0.1", PORT), timeout=10)
    reply = b""
    try:
        h.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * (1 << 20) + b"\r\n\r\n")
    except OSError:
        pass  # closed while we were still sending
    try:
        reply = h.recv(200)
    except socket.timeout:
        bad("huge headers: neither refused nor closed in 10 s")
    except OSError:
        pass  # reset: closed
    h.close()
    if reply and not (reply.startswith(b"HTTP/1.1 431") or reply.startswith(b"HTTP/1.1 413")):
        bad("huge headers answered %r" % reply[:40])
    if rss_kib(exp.pid) - rss0 > 4 * 1024:
        bad("memory grew by %d KiB after 1 MiB of headers" % (rss_kib(exp.pid) - rss0))
    if sample(scrape(), "afrds_up") != 1:
        bad("no answer after huge headers")

    note('# 4. node_exporter reading')
    # 4. node_exporter reading the textfile as it is rewritten
    nport = 9100
    start([nodex, "--web.listen-address=127.0.0.1:%d" % nport, "--collector.disable-defaults",
           "--collector.textfile", "--collector.textfile.directory=" + tf_dir], "node")
    nurl = "http://127.0.0.1:%d/metrics" % nport
    wait_for(lambda: scrape(nurl), "node_exporter answers")
    tf_want = families(open(tf).read())
    for i in range(100):
        body = scrape(nurl) or ""
        if sample(body, "node_textfile_scrape_error") != 0:
            bad("node_exporter textfile error on scrape %d" % i)
            break
        got = families(body)
        if got != tf_want:
            bad("scrape %d: families %r, want %r" % (i, got, tf_want))
            break
        if 'afrds_build_info{' not in body:
            bad("scrape %d: no afrds_build_info" % i)
            break
    for i in range(2000):
        with open(tf) as f:
            text = f.read()
        if not text.endswith("\n") or families(text) != tf_want:
            bad("read %d of the textfile: partial (%d bytes)" % (i, len(text)))
            break
    leftovers = [n for n in os.listdir(tf_dir) if n != "rdstop.prom" and n.endswith(".prom")]
    if leftovers:
        bad("temporary files a collector would read: %r" % leftovers)

    note('# 5. promtool on')
    # 5. promtool on the textfile
    r = subprocess.run(["promtool", "check", "metrics"], stdin=open(tf), capture_output=True,
                       text=True)
    if r.returncode != 0 or r.stdout.strip() or r.stderr.strip():
        bad("promtool check metrics: %s%s" % (r.stdout, r.stderr))

    note('# 1, the end')
    # 1, the end: the hanging request is closed by the server
    slow.settimeout(30)
    try:
        rest = slow.recv(100)
    except socket.timeout:
        rest = None
        bad("the request that never ends was not closed in 30 s")
    except OSError:
        rest = b""  # reset: closed
    note("hanging request got %r" % rest)
    if rest and not rest.startswith(b"HTTP/1.1 4"):
        bad("the hanging request got %r" % rest[:40])
    slow.close()
    if sample(scrape(), "afrds_up") != 1:
        bad("no answer while a scraper does not read its answer")
    deaf.close()
    if exp.poll() is not None:
        bad("the exporter exited %d" % exp.returncode)

    # 6. the watched process goes away: afrds_up 0, the exporter stays
    note("# 6. the source gone")
    serve.kill()
    serve.wait()
    body = wait_for(lambda: (lambda b: b if sample(b, "afrds_up") == 0 else None)(scrape()),
                    "afrds_up 0 once the watched process is gone")
    if body and ("afrds_connections{" in body or (sample(body, "afrds_exporter_snapshot_errors_total") or 0) < 1):
        bad("a failed source still shows the stack, or no error counted")
    if exp.poll() is not None:
        bad("the exporter exited %d when its source went away" % exp.returncode)
finally:
    procs.stop(hard=(drive,))  # rdsdrive's loop does not stop for SIGTERM
    if procs and len(procs) > 1 and procs[1].returncode not in (0,):
        bad("rdstop exit %r on SIGTERM: %s" % (procs[1].returncode,
                                               open(os.path.join(d, "top.out")).read()[-500:]))
    shutil.rmtree(d, ignore_errors=True)

if failed:
    sys.exit(1)
print("rdstop-exporter: ok")
