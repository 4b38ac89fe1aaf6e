#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""afrds.py server ADDR PORT | client ADDR PEER PORT - CPython's own
socket.AF_RDS, as the lab's helpers use it: bind, sendto, recvfrom
(blocking, with a timeout, and MSG_DONTWAIT), between two processes. Run
through rdsrun where the kernel has no RDS. Exit 0 when every echo came."""
import errno
import socket
import sys


def sock(addr, port):
    s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
    s.bind((addr, port))
    return s


def server(addr, port):
    s = sock(addr, port)
    print("ready", flush=True)
    while True:
        data, peer = s.recvfrom(65536)
        s.sendto(data[::-1], peer)
        if data == b"quit":
            # the last echo must be acknowledged before close drops it
            s.settimeout(0.5)
            try:
                s.recvfrom(1)
            except (socket.timeout, OSError):
                pass
            return 0


def client(addr, peer, port):
    s = sock(addr, port + 1)
    assert s.getsockname() == (addr, port + 1), s.getsockname()
    try:
        s.recv(10, socket.MSG_DONTWAIT)
        print("FAIL: MSG_DONTWAIT on an empty socket read something")
        return 1
    except BlockingIOError as e:
        assert e.errno == errno.EAGAIN
    s.settimeout(20)
    for i in range(50):
        msg = b"python %d" % i
        assert s.sendto(msg, (peer, port)) == len(msg)
        data, src = s.recvfrom(65536)
        if data != msg[::-1] or src != (peer, port):
            print("FAIL: echo %d: %r from %r" % (i, data, src))
            return 1
    s.sendto(b"quit", (peer, port))
    data, _ = s.recvfrom(100)
    s.close()
    print("all passed" if data == b"tiuq" else "FAIL: no quit echo")
    return 0 if data == b"tiuq" else 1


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "server":
        sys.exit(server(sys.argv[2], int(sys.argv[3])))
    if len(sys.argv) == 5 and sys.argv[1] == "client":
        sys.exit(client(sys.argv[2], sys.argv[3], int(sys.argv[4])))
    sys.exit(2)
