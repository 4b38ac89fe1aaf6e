#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""rdsperf-habits.py RDSPERF - the iperf3 habits rdsperf keeps, on loopback.

-R (the server sends; verified, counted at the client), -P (parallel
streams), -J, -1 (one-off server), --logfile (output and errors appended),
sizes checked against the send buffer before a test starts (at the client
and at the server), the latency histogram after a ping-pong run, and
--plot's SVG (parsed; one curve per run and panel).
Exit 0 pass, 1 fail.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

import clitest
from clitest import check, done, free_port, stop

BIN = sys.argv[1]
SVG = "{http://www.w3.org/2000/svg}"


def run(args, timeout=60):
    return clitest.run([BIN] + args, timeout)


def listening(port):
    """Whether a TCP socket listens on |port|: read, not connected to, so
    that a one-off server does not take the probe for its client."""
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(name) as f:
            for ln in f.readlines()[1:]:
                local, state = ln.split()[1], ln.split()[3]
                if state == "0A" and int(local.split(":")[1], 16) == port:
                    return True
    return False


def serve(port, *extra):
    srv = subprocess.Popen([BIN, "-s", "-B", "127.0.0.1", "-p", str(port)] + list(extra),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for _ in range(200):
        if listening(port):
            break
        time.sleep(0.05)
    return srv


tmp = tempfile.mkdtemp(prefix="rdsperf-habits-")

# -- options that cannot work are refused before anything runs ---------------
for args, why in [
    (["-c", "127.0.0.1", "-R", "--test", "rr"], "-R is for stream"),
    (["-c", "127.0.0.1", "-R", "--kernel", "-T", "2", "-n", "2"], "-R reads every socket"),
    (["-s", "-R"], "takes no test options"),
    (["-s", "--plot", "x.svg"], "takes no test options"),
    (["-c", "127.0.0.1", "--logfile", "/nonexistent-dir/log"], "--logfile /nonexistent-dir/log"),
    (["-c", "127.0.0.1", "--plot", "/nonexistent-dir/p.svg"], "--plot /nonexistent-dir/p.svg"),
]:
    rc, out, err = run(args)
    check(rc == 2 and why in err, "%r: rc %d, %r" % (args, rc, err[-300:]))

# -- -1: the server serves one client and exits ------------------------------
port = free_port()
srv = serve(port, "-1")
rc, out, err = run(["-c", "127.0.0.1", "-p", str(port), "-t", "0.3", "-l", "64", "-q"])
check(rc == 0, "-1 client rc %d %s" % (rc, err[-300:]))
try:
    srv.wait(timeout=15)
except subprocess.TimeoutExpired:
    srv.kill()
    srv.wait()
    check(False, "server with -1 still running after its client")
check(srv.returncode == 0, "-1 server exit %s" % srv.returncode)

port = free_port()
srv = serve(port)
try:
    base = ["-c", "127.0.0.1", "-p", str(port)]

    # -R -P 2 -J: the server sends on two streams, the client counts and verifies
    rc, out, err = run(base + ["-R", "-P", "2", "-J", "-t", "1", "-i", "0.25", "-l", "9000",
                               "--verify"])
    check(rc == 0, "-R rc %d %s" % (rc, err[-500:]))
    r = json.loads(out)["runs"][0] if rc == 0 else {}
    # numbers to the precision measured: no float with json-c's 17 digits
    long = re.findall(r"\d+\.\d{7,}", out)
    check(not long, "-J numbers with more digits than measured: %r" % long[:5])
    if r:
        st, snd, rcv = r["start"], r["end"]["sender"], r["end"]["receiver"]
        check(st["reverse"] is True and st["sockets"] == 2, "-R start %r" % st)
        check(rcv["messages"] > 50 and rcv["bytes"] == 9000 * rcv["messages"],
              "-R received %r" % rcv)
        # the server counts what it handed to its stack; some may still be
        # on the way when the client stops counting
        check(snd["messages"] >= rcv["messages"], "-R sent %d < received %d" %
              (snd["messages"], rcv["messages"]))
        check(rcv["verify_errors"] == 0, "-R verify errors %r" % rcv)
        check(sum(i["messages"] for i in r["intervals"]) == rcv["messages"],
              "-R intervals add up to %d, receiver %d" %
              (sum(i["messages"] for i in r["intervals"]), rcv["messages"]))
    rc, out, err = run(base + ["-R", "-t", "0.5", "-l", "1K"])
    check(rc == 0 and "sender   (server)" in out and "receiver (client)" in out and
          "reverse: the server sends" in out, "-R text %r" % out[-600:])

    # sizes against SNDBUF, before the test: RDS refuses a message larger
    # than SNDBUF, so these could only ever fail
    rc, out, err = run(base + ["-t", "1", "-l", "200000", "-w", "100000"])
    check(rc == 2 and "messages of 200000 bytes do not fit the send buffer of 100000" in err
          and "sender" not in out, "client size check: rc %d %r" % (rc, err[-300:]))
    rc, out, err = run(base + ["--test", "rr", "-t", "1", "-l", "64", "--rsize", "200000",
                               "-w", "100000"])
    check(rc == 2 and "responses of 200000 bytes do not fit the server's send buffer of 100000"
          in err, "server size check (rr): rc %d %r" % (rc, err[-300:]))
    rc, out, err = run(base + ["-R", "-t", "1", "-l", "200000", "-w", "100000"])
    check(rc == 2 and "messages of 200000 bytes do not fit the server's send buffer" in err,
          "server size check (-R): rc %d %r" % (rc, err[-300:]))
    # what fits still runs, and the server is still there: with -w, and
    # with librds's buffers left to grow (up to 4 MiB), as they may
    rc, out, err = run(base + ["-t", "0.5", "-l", "200000", "-w", "1M", "-q"])
    check(rc == 0, "200000 bytes with -w 1M: rc %d %r" % (rc, err[-300:]))
    rc, out, err = run(base + ["-t", "0.5", "-l", "1M", "-q"])
    check(rc == 0, "1 MiB with auto-tuned buffers: rc %d %r" % (rc, err[-300:]))

    # the histogram after a ping-pong run
    rc, out, err = run(base + ["--test", "pingpong", "-t", "0.5", "-q"])
    check(rc == 0 and "latency distribution (full round trip, us," in out,
          "pingpong histogram: rc %d %r" % (rc, out[-800:]))
    rows = [ln for ln in out.splitlines() if "|" in ln and ln.rstrip().endswith("%")]
    check(len(rows) == 12, "histogram rows %d" % len(rows))
    samples = int(out.split("latency distribution (full round trip, us, ")[1].split()[0]) \
        if "latency distribution" in out else -1
    counts = sum(int(ln.split()[-2]) for ln in rows)
    check(counts == samples and samples > 10, "histogram counts %d, samples %d" %
          (counts, samples))
    check(rows and "and above" in rows[-1], "last row is the tail: %r" % rows[-1:])

    # --plot: one throughput curve per run, and a latency curve per run
    svg = os.path.join(tmp, "p.svg")
    rc, out, err = run(base + ["--test", "pingpong", "-l", "64,1K", "-t", "0.5", "-i", "0.1",
                               "-q", "--plot", svg])
    check(rc == 0 and os.path.exists(svg), "--plot rc %d %r" % (rc, err[-300:]))
    if os.path.exists(svg):
        root = ET.parse(svg).getroot()
        lines = root.findall(".//%spolyline" % SVG)
        texts = [t.text for t in root.iter("%stext" % SVG)]
        check(len(lines) == 4, "--plot: %d curves, expected 4" % len(lines))
        check(texts.count("pingpong 64 B") == 2 and texts.count("pingpong 1024 B") == 2,
              "--plot legend %r" % texts)
        # five 0.1 s intervals each: ten points (a step each) per curve
        pts = lines[0].get("points").split()
        check(len(pts) == 10, "--plot throughput points %d" % len(pts))
    rc, out, err = run(base + ["-t", "0.3", "-l", "1K", "-q", "--plot", svg])
    root = ET.parse(svg).getroot() if rc == 0 else None
    check(root is not None and len(root.findall(".//%spolyline" % SVG)) == 1,
          "--plot of a stream: one curve, no latency panel")

    # --logfile: the output and the errors, appended
    log = os.path.join(tmp, "log")
    for _ in range(2):
        rc, out, err = run(base + ["-t", "0.3", "-l", "1K", "--logfile", log])
        check(rc == 0 and out == "" and err == "", "--logfile still printed %r %r" % (out, err))
    rc, out, err = run(["-c", "127.0.0.1", "-p", str(free_port()), "-t", "0.3",
                        "--logfile", log])
    text = open(log).read() if os.path.exists(log) else ""
    check(text.count("receiver") == 2, "--logfile holds %d runs" % text.count("receiver"))
    check(rc == 2 and "control connection" in text and err == "",
          "--logfile error: rc %d, %r" % (rc, text[-300:]))
finally:
    stop(srv)
check(srv.returncode == 0, "server exit %s" % srv.returncode)
done()
