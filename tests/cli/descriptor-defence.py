#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Raw TCP connections that never speak RDS must not lock a peer out of a
librds endpoint at its descriptor limit (issue 35, docs/security.md).

examples/rdsu_echo serves with RLIMIT_NOFILE lowered to 48, so a few
dozen connections take every descriptor it has. 100 raw TCP connections,
each from an address of its own (smaller than the server's, so each takes
a peer's path 0 as a real peer's would), connect to port 16385 and never
send a byte. Then rdsping, a peer that speaks RDS, pings the server 3
times: every ping must be answered while the raw connections are still
open, and some of them must have been reset by the server (the oldest
first) to make room. Before, the listener rested while the descriptors
were taken and the pings got 0 of 3 answers until handshake_timeout.

Usage: descriptor-defence.py RDSU_ECHO RDSPING
"""
import errno
import re
import resource
import socket
import subprocess
import sys
import time

ECHO, PING = sys.argv[1], sys.argv[2]
SERVER, GOOD = "127.0.42.1", "127.0.41.250"
RAW = ["127.0.41.%d" % i for i in range(1, 101)]
NOFILE = 48


def low_nofile():
    resource.setrlimit(resource.RLIMIT_NOFILE, (NOFILE, NOFILE))


def listening(addr, port=16385):
    """Whether something listens on |addr|:|port| (/proc/net/tcp)."""
    want = "%s:%04X" % ("".join("%02X" % int(b) for b in reversed(addr.split("."))), port)
    with open("/proc/net/tcp") as f:
        return any(l.split()[1] == want and l.split()[3] == "0A" for l in f.readlines()[1:])


def raw_connect(src):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setblocking(False)
    s.bind((src, 0))
    try:
        s.connect((SERVER, 16385))
    except BlockingIOError:
        pass
    return s


def was_reset(s):
    """Whether the server ended |s| (reset, or closed): what it wrote
    first (a ping may go to a connection that has not spoken) is read
    past."""
    while True:
        try:
            if not s.recv(65536):
                return True
        except BlockingIOError:
            return False
        except OSError as e:
            return e.errno in (errno.ECONNRESET, errno.EPIPE)


def main():
    failures = []
    srv = subprocess.Popen([ECHO, "server", SERVER, "7000"], stdout=subprocess.DEVNULL,
                           preexec_fn=low_nofile)
    raws = []
    try:
        for _ in range(300):
            if listening(SERVER) or srv.poll() is not None:
                break
            time.sleep(0.05)
        if srv.poll() is not None:
            print("FAIL: the echo server exited with %s" % srv.returncode)
            return 1
        raws = [raw_connect(a) for a in RAW]
        # Let the server take in what its descriptors allow.
        time.sleep(1)
        rc = subprocess.run([PING, "-c", "3", "-i", "0.5", "-W", "2", "-I", GOOD, SERVER],
                            capture_output=True, text=True, timeout=60)
        print(rc.stdout.strip(), rc.stderr.strip())
        m = re.search(r"(\d+) received", rc.stdout)
        got = int(m.group(1)) if m else 0
        print("rdsping: %d of 3 answered, exit %d" % (got, rc.returncode))
        if got != 3:
            failures.append("a peer speaking RDS got %d of 3 answers beside 100 silent "
                            "connections" % got)
        reset = sum(was_reset(s) for s in raws)
        print("raw connections reset by the server: %d of %d" % (reset, len(raws)))
        if reset == 0:
            failures.append("no silent connection was reset")
        if srv.poll() is not None:
            failures.append("the echo server exited with %s" % srv.returncode)
    finally:
        for s in raws:
            s.close()
        srv.terminate()
        srv.wait(10)
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
