#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Write seed inputs for libwire's RDS-core fuzz targets into fuzz/corpus/,
each named by the SHA-256 of its content. Re-running is idempotent."""
import hashlib
import os
import struct
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fuzz", "corpus")


def hdr(seq=0, ack=0, ln=0, sport=0, dport=0, flags=0, credit=0, csum=0, ext=b""):
    return (struct.pack(">QQIHHBB4sH", seq, ack, ln, sport, dport, flags, credit,
                        b"\0" * 4, csum) + ext.ljust(16, b"\0"))


PROBE61 = bytes.fromhex("050008")
PROBE72 = bytes.fromhex("05000806112233440800")


def put(target, data):
    d = os.path.join(ROOT, target)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha256(data).hexdigest()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def main():
    headers = [
        hdr(seq=1, sport=1, ext=PROBE61),
        hdr(seq=1, sport=1, ext=PROBE72),
        hdr(seq=1, dport=1, ext=PROBE72),
        hdr(ln=8192, flags=1),
        hdr(ack=5, csum=0xfffa),
        hdr(seq=7, ack=3, ln=10, sport=4000, dport=5000, flags=2, csum=0xdac3),
        hdr(seq=2, dport=4000),
        hdr(seq=9, sport=4000, dport=5000, ln=4096, flags=4),
        hdr(seq=1, sport=4000, dport=5000, ln=1 << 20, flags=0x20,
            ext=bytes.fromhex("02080501020400001000010000")),
    ]
    for h in headers:
        put("hdr", h)
        put("ext", h[32:])
    for e in ["01000003010300001234000010000200", "0500011000ff", "050001050008070000000100aa",
              "0405000200", "08050002", "ff", "0f0e0d0c0b0a09"]:
        put("ext", bytes.fromhex(e))
    put("ext", bytes.fromhex("050008") + bytes(13) + bytes([5, 6, 8, 2, 3, 4]))

    m = bytearray(8192)
    for p in (0, 9, 4000, 4001, 4002, 4003, 65535):
        m[p // 8] |= 1 << (p % 8)
    put("cong", bytes(m))
    put("cong", bytes(8192))
    put("cong", struct.pack(">HB", 4000, 1) + struct.pack(">HB", 4000, 2) +
        struct.pack(">HB", 4001, 3) + struct.pack(">HB", 65535, 1))

    def msg(h, payload=b""):
        return h + payload
    stream = (msg(hdr(ln=64, flags=1), bytes(64)) + msg(hdr(seq=1, sport=1, ext=PROBE72)) +
              msg(hdr(seq=2, sport=4000), b"") + msg(hdr(seq=3, sport=4000, dport=5000, ln=100),
                                                    bytes(range(100))) +
              msg(hdr(seq=4, sport=4000, dport=5000, ln=4000), bytes(4000)))
    for seed in (0, 1, 7, 200):
        put("deframe", bytes([seed]) + stream)
    put("deframe", bytes([3]) + hdr(seq=1, sport=1, dport=2, ln=0xffffffff) + b"x" * 20)
    put("deframe", bytes([5]) + stream[:150])
    return 0


if __name__ == "__main__":
    sys.exit(main())
