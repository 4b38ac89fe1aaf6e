#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""linux/tcp/2 (a connection from the larger address is refused) against
crafted peers: each does one thing to that connection, and the verdict must
say exactly that.

    conform-larger-peer.py RDS_CONFORM

The peer is this script, listening on 127.0.14.2:16385; the suite runs
from 127.0.14.1 and the larger address 127.0.14.3. The suite's first
connection (from the smaller address, checking that the peer is there) is
accepted and left alone; what the peer does with the larger address's:

  garbage   accepts, sends 4 KiB that are not RDS, keeps it open: FAIL
  garbage-fin  the same, then closes (FIN): FAIL, not "closed (FIN)"
  half      half an RDS header, then FIN: FAIL (a message cut short)
  fin       accepts and closes at once (FIN): PASS, closed (FIN)
  rst       accepts and resets: PASS, reset
  open      accepts and says nothing: FAIL, still open
  backlog   stops accepting and fills its accept queue, so the SYN goes
            unanswered: ERROR naming the full backlog, never a PASS
"""
import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

from clitest import check, done

PEER, LOCAL, LARGER = "127.0.14.2", "127.0.14.1", "127.0.14.3"
PORT = 16385
TIMEOUT_MS = 1500
tool = sys.argv[1]


class Peer(threading.Thread):
    def __init__(self, mode):
        super().__init__(daemon=True)
        self.mode = mode
        self.ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.ls.bind((PEER, PORT))
        self.ls.listen(0 if mode == "backlog" else 8)
        self.keep = []
        self.stop = False

    def larger(self, c):
        # A FIN is shutdown(SHUT_WR): close() with the suite's bytes unread
        # would send an RST instead (RFC 2525).
        m = self.mode
        if m in ("garbage", "garbage-fin"):
            c.sendall(bytes((i * 7 + 1) & 0xFF for i in range(4096)))
            if m == "garbage-fin":
                time.sleep(0.1)
                c.shutdown(socket.SHUT_WR)
        elif m == "half":
            c.sendall(struct.pack(">QQ", 1, 0))
            time.sleep(0.1)
            c.shutdown(socket.SHUT_WR)
        elif m == "fin":
            c.shutdown(socket.SHUT_WR)
        elif m == "rst":
            c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            c.close()
            return
        self.keep.append(c)

    def run(self):
        self.ls.settimeout(0.2)
        while not self.stop:
            try:
                c, a = self.ls.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            if a[0] != LARGER:
                self.keep.append(c)     # the suite's reachability check
                if self.mode == "backlog":
                    threading.Thread(target=self.fill_after, args=(c,), daemon=True).start()
                continue
            self.larger(c)

    def fill_after(self, c):
        # The suite times the peer on a connection of its own (map and
        # probe ping, left unanswered here) before any case: once its
        # bytes came, nothing more comes from the smaller address, and the
        # queue fills before the larger address connects.
        c.settimeout(0.2)
        while not self.stop:
            try:
                if c.recv(65536):
                    break
            except socket.timeout:
                continue
            except OSError:
                return
        if not self.stop:
            self.stop = True     # no more accepts: later SYNs meet the full queue
            time.sleep(0.3)      # the accept loop sees it and ends
            self.fill()

    def fill(self):
        # stop accepting and fill the queue: with backlog 0 one
        # established connection fills it, and later SYNs are dropped
        for _ in range(3):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setblocking(False)
            try:
                s.bind(("127.0.14.9", 0))
                s.connect_ex((PEER, PORT))
            except OSError:
                pass
            self.keep.append(s)
        time.sleep(0.3)

    def close(self):
        self.stop = True
        self.ls.close()
        for c in self.keep:
            c.close()


def verdict(mode):
    p = Peer(mode)
    p.start()
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        r = subprocess.run([tool, "--peer", PEER, "--local", LOCAL, "--larger", LARGER,
                            "--timeout", str(TIMEOUT_MS), "--json", "-q", "-o", out,
                            "linux/tcp/2"], capture_output=True, text=True, timeout=60)
        p.close()
        p.join(2)
        if not os.path.exists(out):
            return None, "no report (exit %d): %s" % (r.returncode, r.stderr.strip())
        rep = json.load(open(out))
    case = [c for c in rep["cases"] if c["id"] == "linux/tcp/2"][0]
    return case["verdict"], case.get("actual", "")


WANT = [
    ("garbage", "FAIL", "bytes that are not RDS"),
    ("garbage-fin", "FAIL", "bytes that are not RDS"),
    ("half", "FAIL", "a message cut short"),
    ("fin", "PASS", "closed (FIN)"),
    ("rst", "PASS", "reset"),
    ("open", "FAIL", "still open"),
    ("backlog", "ERROR", "backlog is full"),
]
only = sys.argv[2:]
for mode, want, text in WANT:
    if only and mode not in only:
        continue
    got, actual = verdict(mode)
    print("%-12s %-6s %s" % (mode, got, actual))
    check(got == want and text in actual,
          "%s: %s '%s', want %s with '%s'" % (mode, got, actual, want, text))
    time.sleep(0.2)

done("conform larger-address peers: all passed")
