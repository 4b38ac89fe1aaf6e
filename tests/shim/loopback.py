#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""loopback.py - the commonest AF_RDS test program there is: two threads of
one process exchange messages between two sockets bound on 127.0.0.1,
which the kernel carries on its loopback transport (net/rds/loop.c). Also
SO_RDS_TRANSPORT (3, RDS_TRANS_LOOP, on a socket bound to 127.0.0.1), a
ping to our own address, and order. Run through rdsrun, per process
(RDSRUN_DAEMON=0) and through rdsd. Prints "all passed" and exits 0."""
import socket
import struct
import sys
import threading

SOL_RDS = 276
SO_RDS_TRANSPORT = 8
RDS_TRANS_LOOP = 3
N = 200
fails = []


def check(ok, what):
    if not ok:
        fails.append(what)
        print("FAIL:", what, flush=True)


def sock(port):
    s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
    s.bind(("127.0.0.1", port))
    s.settimeout(20)
    return s


def main():
    a, b = sock(0), sock(0)
    an, bn = a.getsockname(), b.getsockname()
    for s, n in ((a, "a"), (b, "b")):
        t = struct.unpack("i", s.getsockopt(SOL_RDS, SO_RDS_TRANSPORT, 4))[0]
        check(t == RDS_TRANS_LOOP, "SO_RDS_TRANSPORT of %s is %d, not 3" % (n, t))

    got = []

    def reader():
        try:
            for _ in range(N):
                data, peer = b.recvfrom(65536)
                got.append((data, peer))
                b.sendto(b"ack " + data[:8], peer)
        except OSError as e:
            got.append(("error", e))

    th = threading.Thread(target=reader)
    th.start()
    acks = 0
    for i in range(N):
        a.sendto(struct.pack("!I", i) + bytes([i % 251]) * (i * 37), bn)
        data, peer = a.recvfrom(65536)
        check(peer == bn, "ack %d from %s, not %s" % (i, peer, bn))
        check(data == b"ack " + struct.pack("!I", i) + bytes([i % 251]) * min(4, i * 37),
              "ack %d reads %r" % (i, data[:16]))
        acks += 1
    th.join(30)
    check(not th.is_alive(), "the reader thread hangs")
    check(len(got) == N, "the reader took %d of %d" % (len(got), N))
    for i, (data, peer) in enumerate(got):
        if data == "error":
            check(False, "the reader failed: %s" % peer)
            break
        check(peer == an, "message %d from %s, not %s" % (i, peer, an))
        check(data == struct.pack("!I", i) + bytes([i % 251]) * (i * 37),
              "message %d out of order or damaged" % i)

    # a ping to our own address: a zero-length message from port 0
    a.sendto(b"", ("127.0.0.1", 0))
    data, peer = a.recvfrom(16)
    check(data == b"" and peer == ("127.0.0.1", 0), "pong %r from %s" % (data, peer))

    a.close()
    b.close()
    if fails:
        print("%d failed" % len(fails))
        return 1
    print("all passed (%d messages, %d replies, a ping)" % (N, acks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
