#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""shared.py ROLE ... - AF_RDS processes of tests/shim/shared.sh (plain
CPython sockets, run through rdsrun).
  echo ADDR PORT                  answer every message with itself until b"quit"
  client ADDR PORT PEER PPORT N   N messages to PEER:PPORT, each answered
  hold ADDR PORT                  keep the port until killed
  bind ADDR PORT                  exit 0 if the port can be bound, 3 if in use
  exec ADDR PORT PEER PPORT       bind, then exec a program that uses the
                                  inherited socket (as "inherited") to ask PEER
  inherited FD PEER PPORT         the exec'ed half
"""
import errno
import os
import socket
import sys
import time


def sock(addr, port):
    s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
    s.bind((addr, port))
    return s


def main():
    if sys.argv[1] == "inherited":
        fd, peer = int(sys.argv[2]), (sys.argv[3], int(sys.argv[4]))
        # CPython takes the family from getsockname(): AF_INET, as for a
        # kernel RDS socket bound to an IPv4 address
        s = socket.socket(fileno=fd)
        if s.getsockopt(socket.SOL_SOCKET, socket.SO_DOMAIN) != socket.AF_RDS:
            print("FAIL: the inherited descriptor is not an RDS socket")
            return 1
        s.settimeout(20)
        s.sendto(b"inherited", peer)
        data, frm = s.recvfrom(100)
        if data != b"inherited" or frm != peer:
            print(f"FAIL: {data!r} from {frm}")
            return 1
        print(f"inherited socket {s.getsockname()} answered by {peer[0]}:{peer[1]}")
        return 0
    role, addr, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if role == "bind":
        try:
            sock(addr, port)
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                print("in use")
                return 3
            raise
        print("bound")
        return 0
    s = sock(addr, port)
    if role == "exec":
        os.set_inheritable(s.fileno(), True)
        os.execv(sys.executable, [sys.executable, __file__, "inherited", str(s.fileno()),
                                  sys.argv[4], sys.argv[5]])
    if role == "hold":
        print("ready", flush=True)
        while True:
            time.sleep(1)
    if role == "echo":
        print("ready", flush=True)
        while True:
            data, frm = s.recvfrom(65536)
            s.sendto(data, frm)
            if data == b"quit":
                return 0
    peer = (sys.argv[4], int(sys.argv[5]))
    n = int(sys.argv[6])
    s.settimeout(20)
    for i in range(n):
        msg = b"%d:" % i + bytes([i % 256]) * (i * 37 % 9000)
        s.sendto(msg, peer)
        data, frm = s.recvfrom(65536)
        if data != msg or frm != peer:
            print(f"FAIL: message {i}: {len(data)} bytes from {frm}")
            return 1
    print(f"{n} answered by {peer[0]}:{peer[1]}")
    return 0


sys.exit(main())
