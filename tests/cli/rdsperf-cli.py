#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""rdsperf-cli.py RDSPERF - rdsperf on loopback, librds at both ends.

Wrong options exit 2 with a reason; each test runs, verifies and reports
numbers that agree between the two ends; the control channel refuses
another version and garbage with a reason and the server keeps serving.
Hostile clients: one that says nothing is dropped after --ctl-timeout with
an error line and holds no one up meanwhile (a second client runs a test
while it is open), a line over 64 KiB gets an error line (not a bare
reset), and while a test runs every other client is told "busy" at once,
with what runs and for how long.
Exit 0 pass, 1 fail.
"""
import json
import re
import socket
import subprocess
import sys
import time

import clitest
from clitest import check, done, free_port, stop

BIN = sys.argv[1]


def run(args, timeout=60):
    return clitest.run([BIN] + args, timeout)


# -- options ---------------------------------------------------------------
for args, why in [
    ([], "say -s"),
    (["-s", "-c", "127.0.0.1"], "say -s"),
    (["-s", "--verify"], "takes no test options"),
    (["-c", "127.0.0.1", "--test", "pingpong", "-n", "2"], "pingpong is one socket"),
    (["-c", "127.0.0.1", "--test", "pingpong", "--depth", "2"], "pingpong has one message"),
    (["-c", "127.0.0.1", "-T", "2", "-n", "2"], "one thread"),
    (["-c", "127.0.0.1", "-T", "4", "-n", "2", "--kernel"], "4 threads need"),
    (["-c", "127.0.0.1", "-l", "2M"], "bad size list"),
    (["-c", "127.0.0.1", "-l", "64,,x"], "bad size list"),
    (["-c", "127.0.0.1", "--npaths", "3"], "bad path count"),
    (["-c", "127.0.0.1", "--paths", "3"], "bad path count"),
    (["-c", "127.0.0.1", "--depth", "8"], "--rsize and --depth are for rr"),
    (["-c", "127.0.0.1", "-t", "0"], "bad time"),
    (["-c", "127.0.0.1", "--sched", "spin"], "bad scheduling mode"),
    (["-c", "nohost"], "bad host"),
    (["-c", "127.0.0.1", "--transport", "udp"], "bad transport"),
    (["-s", "--transport", "IB"], "bad transport"),
    (["-c", "127.0.0.1", "--test", "rdma"], "bad test 'rdma'"),
    (["-c", "127.0.0.1", "--test", "atomic", "-l", "16"], "atomic operations are 8 bytes"),
    (["-c", "127.0.0.1", "--test", "rdma-write", "-l", "0,4K"], "RDMA of 0 bytes"),
    (["-c", "127.0.0.1", "--test", "rdma-read", "-R"], "no reverse"),
    (["-c", "127.0.0.1", "--test", "rdma-read", "--rsize", "4"], "no responses"),
    (["-c", "127.0.0.1", "--test", "rdma-write", "-n", "64", "--depth", "8"],
     "at most 256 operations in flight"),
    (["-c", "127.0.0.1", "--test", "atomic", "-T", "2", "-n", "2", "--kernel"], "one thread"),
    (["-s", "--test", "rdma-write", "--depth", "4"], "takes no test options"),
]:
    rc, out, err = run(args)
    check(rc == 2 and why in err, "%r: rc %d, %r" % (args, rc, err[-300:]))

port = free_port()
rc, out, err = run(["-c", "127.0.0.1", "-p", str(port), "-t", "1"])
check(rc == 2 and "control connection" in err, "no server: rc %d %r" % (rc, err))

# -- a server ---------------------------------------------------------------
CTL_TIMEOUT = 2
srv = subprocess.Popen([BIN, "-s", "-B", "127.0.0.1", "-p", str(port),
                        "--ctl-timeout", str(CTL_TIMEOUT)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
try:
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.05)
    base = ["-c", "127.0.0.1", "-p", str(port), "--json", "-i", "0.25"]

    # stream, verified: every message sent arrives, intact
    rc, out, err = run(base + ["-t", "1", "-l", "9000", "-n", "3", "--verify", "-w", "1M"])
    check(rc == 0, "stream rc %d %s" % (rc, err[-500:]))
    doc = json.loads(out)
    check(doc["rdsperf"] == 1 and len(doc["runs"]) == 1, "stream doc %r" % doc.keys())
    r = doc["runs"][0]
    snd, rcv = r["end"]["sender"], r["end"]["receiver"]
    check(snd["messages"] > 100, "stream sent only %d" % snd["messages"])
    check(rcv["messages"] == snd["messages"] and rcv["bytes"] == snd["bytes"],
          "stream: sent %d/%d, received %d/%d" % (snd["messages"], snd["bytes"],
                                                  rcv["messages"], rcv["bytes"]))
    check(snd["verify_errors"] == 0 and rcv["verify_errors"] == 0, "stream verify %r" % r["end"])
    check(r["start"]["window"] == 1048576 and r["start"]["sched"] == "poll" and
          r["start"]["client_stack"] == "librds" and r["start"]["client"] == "127.0.0.2",
          "stream start %r" % r["start"])
    check(3 <= len(r["intervals"]) <= 6, "stream intervals %d" % len(r["intervals"]))
    check(sum(i["messages"] for i in r["intervals"]) == snd["messages"],
          "intervals add up to %d, summary %d" % (sum(i["messages"] for i in r["intervals"]),
                                                   snd["messages"]))
    check(r["end"]["cpu"]["client_percent"] > 0 and r["end"]["retransmits"]["client_rds"] == 0,
          "stream cpu/retransmits %r" % r["end"])

    # --transport: tcp is what ran above; ib on loopback cannot start (no
    # RDMA device has a 127 address, or this build has no IB), said so
    rc, out, err = run(base + ["--test", "pingpong", "-t", "0.3", "--transport", "tcp"])
    check(rc == 0, "pingpong --transport tcp rc %d %s" % (rc, err[-500:]))
    rc, out, err = run(base + ["--test", "pingpong", "-t", "0.3", "--transport", "ib"])
    check(rc == 2 and re.search(r"RDMA device|RoCE device|libibverbs-dev", err),
          "--transport ib on loopback: rc %d %r" % (rc, err[-300:]))

    # RDMA over RDS/TCP or loopback: the server cannot register memory and
    # says why, with the stack's error (the kernel's: EOPNOTSUPP); the
    # client exits 2 and the server goes on serving
    for t in ("rdma-write", "rdma-read", "atomic"):
        for tr in (["--transport", "tcp"], []):
            rc, out, err = run(base + ["--test", t, "-t", "0.3"] + tr)
            check(rc == 2 and "RDS_CMSG_RDMA_MAP" in err and "EOPNOTSUPP" in err and
                  "RDMA needs RDS over IB" in err, "%s %r: rc %d %r" % (t, tr, rc, err[-400:]))

    # rr: several sockets, depth, different response size, verified both ways
    rc, out, err = run(base + ["--test", "rr", "-t", "1", "-l", "100", "--rsize", "3000",
                               "--depth", "4", "-n", "3", "--verify", "-O", "0.5"])
    check(rc == 0, "rr rc %d %s" % (rc, err[-500:]))
    r = json.loads(out)["runs"][0]
    snd, lat = r["end"]["sender"], r["end"]["latency"]
    check(snd["responses"] > 50 and snd["response_bytes"] == 3000 * snd["responses"],
          "rr responses %r" % snd)
    check(0 <= snd["messages"] - snd["responses"] <= 3 * 4 + 12, "rr in flight %r" % snd)
    check(lat["samples"] == snd["responses"] and lat["rtt"] == "full round trip",
          "rr latency %r" % lat)
    check(lat["min"] <= lat["p50"] <= lat["p90"] <= lat["p99"] <= lat["p99_9"] <= lat["max"],
          "rr percentiles out of order %r" % lat)
    om = [i for i in r["intervals"] if i["omitted"]]
    check(len(om) == 2, "rr: %d omitted intervals, expected 2" % len(om))
    check(r["end"]["receiver"]["verify_errors"] == 0 and snd["verify_errors"] == 0,
          "rr verify %r" % r["end"])

    # pingpong over a size sweep, sizes that do and do not carry a sequence
    rc, out, err = run(base + ["--test", "pingpong", "-t", "0.3", "-l", "0,7,8,65536",
                               "--verify", "--npaths", "1"])
    check(rc == 0, "pingpong rc %d %s" % (rc, err[-500:]))
    runs = json.loads(out)["runs"]
    check([x["start"]["size"] for x in runs] == [0, 7, 8, 65536], "sweep sizes")
    for x in runs:
        check(x["end"]["latency"]["samples"] > 10 and x["end"]["sender"]["verify_errors"] == 0,
              "pingpong %d: %r" % (x["start"]["size"], x["end"]))
        check(x["start"]["paths"] == 1, "paths not passed on")

    # text output
    rc, out, err = run(["-c", "127.0.0.1", "-p", str(port), "-t", "0.5", "-l", "1K",
                        "--sched", "busy"])
    check(rc == 0 and "sender" in out and "receiver" in out and "sched busy" in out,
          "text output rc %d %r" % (rc, out[-500:]))

    # the control channel: another version, garbage, an impossible test
    for line, why in [
        (b'{"rdsperf":2,"op":"start"}\n', b"version 2"),
        (b"GET / HTTP/1.0\n", b"not a JSON object"),
        (b'{"rdsperf":1,"op":"start","test":"stream","size":64,"rsize":0,"depth":1,'
         b'"sockets":99,"paths":8,"kver":7,"buf":0,"duration":1,"omit":0,"verify":false,'
         b'"client_addr":"127.0.0.2","client_ports":[1]}\n', b"out of range"),
    ]:
        c = socket.create_connection(("127.0.0.1", port), timeout=10)
        c.sendall(line)
        reply = c.recv(4096)
        c.close()
        check(b'"op":"error"' in reply and why in reply, "control %r -> %r" % (line[:30], reply))
    # still serving
    rc, out, err = run(base + ["-t", "0.3", "-l", "64"])
    check(rc == 0, "server gone after bad clients: %s" % err[-300:])

    def reply_of(c, limit):
        """Everything the server sends until it closes, or None if it keeps
        the connection open past |limit| seconds."""
        c.settimeout(limit)
        got = b""
        try:
            while True:
                b = c.recv(65536)
                if not b:
                    return got
                got += b
        except socket.timeout:
            return None
        except ConnectionResetError:
            return got + b"<reset>"

    # a control line over 64 KiB: an error line that says so, then close
    c = socket.create_connection(("127.0.0.1", port), timeout=10)
    try:
        c.sendall(b"x" * 70000)
    except OSError:
        pass
    reply = reply_of(c, 10)
    c.close()
    check(reply is not None and b'"op":"error"' in reply and b"longer than 65536" in reply,
          "oversize line -> %r" % (reply[:200] if reply else reply))

    # a client that says nothing is dropped at its own deadline
    # (--ctl-timeout), with a reason; it holds no one up meanwhile: a
    # second client runs its test while it is still open, and it hears
    # then that a test is running
    idle = socket.create_connection(("127.0.0.1", port), timeout=10)
    time.sleep(0.3)
    rc, out, err = run(base + ["-t", "0.3", "-l", "64"])
    check(rc == 0, "a test beside an idle control connection: rc %d %s" % (rc, err[-300:]))
    reply = reply_of(idle, CTL_TIMEOUT + 5)
    idle.close()
    check(reply is not None and b'"op":"error"' in reply and b"busy: a stream test" in reply,
          "idle client when a test started -> %r" % reply)
    idle = socket.create_connection(("127.0.0.1", port), timeout=10)
    reply = reply_of(idle, CTL_TIMEOUT + 5)
    idle.close()
    check(reply is not None and b'"op":"error"' in reply and b"no request within" in reply,
          "silent client -> %r" % reply)
    # ... and so is one that sends its request slower than that
    slow = socket.create_connection(("127.0.0.1", port), timeout=10)
    slow.sendall(b'{"rdsperf":1,')
    reply = reply_of(slow, CTL_TIMEOUT + 5)
    slow.close()
    check(reply is not None and b'"op":"error"' in reply and b"no request within" in reply,
          "slow client -> %r" % reply)
    # while a test runs, everyone else hears "busy" at once, what runs and
    # for how long, and a real test run says why it could not start
    bg = subprocess.Popen([BIN] + base + ["-t", "4", "-l", "64"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    busy = None
    while bg.poll() is None:
        other = socket.create_connection(("127.0.0.1", port), timeout=10)
        reply = reply_of(other, 3)
        other.close()
        if reply and b"busy" in reply:
            busy = reply
            break
        time.sleep(0.1)
    check(busy is not None and b'"op":"error"' in busy and
          re.search(rb"busy: a stream test for 127\.0\.0\.2 is running, \d+ s of its 4 s", busy),
          "second client while a test runs -> %r" % busy)
    rc, out, err = run(["-c", "127.0.0.1", "-p", str(port), "-B", "127.0.0.3", "-t", "0.3",
                        "-l", "64"])
    check(bg.poll() is not None or (rc == 2 and "busy" in err),
          "test while busy: rc %d %r" % (rc, err[-300:]))
    bgout, bgerr = bg.communicate(timeout=60)
    check(bg.returncode == 0, "the test others were turned away from: %s" % bgerr[-300:])
    # and the server is free again
    rc, out, err = run(base + ["-t", "0.3", "-l", "64"])
    check(rc == 0, "server not free after the busy test: %s" % err[-300:])
finally:
    stop(srv)
check(srv.returncode == 0, "server exit %s" % srv.returncode)
done()
