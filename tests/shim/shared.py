#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""shared.py ROLE ... - AF_RDS processes of tests/shim/shared.sh (plain
CPython sockets, run through rdsrun).
  echo ADDR PORT                  answer every message with itself until b"quit"
  client ADDR PORT PEER PPORT N   N messages to PEER:PPORT, each answered
  hold ADDR PORT                  keep the port until killed
  bind ADDR PORT                  exit 0 if the port can be bound, 3 if in use
"""
import errno
import socket
import sys
import time


def sock(addr, port):
    s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
    s.bind((addr, port))
    return s


def main():
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
