#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Seed fuzz/corpus/dump/ from the captures in pcaps/: for each, slices of
consecutive packets (cut to a snap length, so seeds stay small enough for
libFuzzer to mutate quickly) written as classic pcap files named by the
SHA-256 of their content. Slices start at the beginning (handshakes,
probes, maps) and in the middle (mid-stream, data). Idempotent."""
import glob
import hashlib
import os
import struct

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "fuzz", "corpus", "dump")


def packets(path):
    with open(path, "rb") as f:
        gh = f.read(24)
        if len(gh) < 24 or gh[:4] not in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
            return None, []
        out = []
        while True:
            ph = f.read(16)
            if len(ph) < 16:
                break
            incl = struct.unpack("<I", ph[8:12])[0]
            data = f.read(incl)
            if len(data) < incl:
                break
            out.append((ph, data))
        return gh, out


def write(gh, pkts, snap):
    body = bytearray(gh[:16] + struct.pack("<I", snap) + gh[20:24])
    for ph, data in pkts:
        ts_s, ts_u, incl, orig = struct.unpack("<IIII", ph)
        cut = data[:snap]
        body += struct.pack("<IIII", ts_s, ts_u, len(cut), orig) + cut
    name = hashlib.sha256(body).hexdigest()
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(body)


def main():
    for path in sorted(glob.glob(os.path.join(ROOT, "pcaps", "**", "*.pcap"), recursive=True)):
        gh, pkts = packets(path)
        if not pkts:
            continue
        write(gh, pkts[:40], 600)
        mid = len(pkts) // 2
        write(gh, pkts[mid:mid + 30], 300)


if __name__ == "__main__":
    main()
