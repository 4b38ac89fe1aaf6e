#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Write seed inputs for fuzz/fuzz_rdsd.c (rdsd's request decoder) into
fuzz/corpus/rdsd/, each named by the SHA-256 of its content: one request of
each op as the shim writes it (shim/rdsd_proto.h), and the edges of what
the decoder refuses. Re-running is idempotent."""
import hashlib
import os
import socket
import struct

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fuzz", "corpus", "rdsd")
CHAN, BIND, CONNECT, SEND, SETOPT, GETOPT, NAME, CANCEL = range(1, 9)


def v4(a):
    return b"\0" * 10 + b"\xff\xff" + socket.inet_aton(a)


def req(op, seq=1, chan=7, level=0, name=0, arg=0, timeout=-1, family=0, port=0, addr=b"\0" * 16):
    return struct.pack("<IIIiiiiHH16s", op, seq, chan, level, name, arg, timeout, family, port, addr)


def put(data):
    os.makedirs(ROOT, exist_ok=True)
    with open(os.path.join(ROOT, hashlib.sha256(data).hexdigest()), "wb") as f:
        f.write(data)


def main():
    a4 = (socket.AF_INET, 4000, v4("127.0.0.1"))
    a6 = (socket.AF_INET6, 4000, socket.inet_pton(socket.AF_INET6, "fe80::1"))
    put(req(CHAN))
    put(req(BIND, family=a4[0], port=a4[1], addr=a4[2]))
    put(req(BIND, family=a6[0], port=a6[1], addr=a6[2]))
    put(req(CONNECT, family=a4[0], port=a4[1], addr=a4[2]))
    put(req(CONNECT))                                   # AF_UNSPEC
    put(req(SEND, arg=3, timeout=100, family=a4[0], port=a4[1], addr=a4[2]) + b"hello")
    put(req(SEND) + b"x" * 64)                          # to the connected address
    put(req(SETOPT, level=1, name=7) + struct.pack("<i", 65536))   # SO_SNDBUF
    put(req(SETOPT, level=0x10000) + b"\x01")           # SIOCRDSSETTOS
    put(req(GETOPT, level=276, name=10003, arg=1024))   # RDS_INFO_COUNTERS
    put(req(NAME, arg=1))
    put(req(CANCEL))
    put(req(SEND)[:47])                                 # truncated
    put(req(99))                                        # unknown op
    put(req(BIND, family=a4[0], port=1, addr=a6[2]))    # IPv4 on a v6 address
    put(req(BIND, family=17))                           # unknown family
    put(req(NAME) + b"!")                               # a payload NAME does not take


if __name__ == "__main__":
    main()
