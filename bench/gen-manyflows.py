#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Writes an RDS/TCP capture with many connections, for rdsdump's memory.

    gen-manyflows.py OUT.pcap [--flows N] [--pairs P] [--hold BYTES] [--fin]

N TCP connections (default 100000) to 10.255.255.254:16385, over P
address pairs (default N: each connection its own pair, hence its own RDS
connection in rdsdump's table); connection i comes from 10.x.y.z (pair
i % P, counted from 10.1.0.0, all below the server's address as a kernel
connects) and source port 1024 + i // P, so N / P
must stay below 64512. Each connection is a SYN and one RDS data message
of 16 bytes; nothing closes it unless --fin, which is the worst case for a
dissector: every connection stays open to the end of the capture.

--hold BYTES: each connection also sends BYTES more in segments of 1448
behind a one-byte hole that is never filled, so that those bytes wait for
reassembly until the connection is closed (at the end, or early).

Ethernet / IPv4 / TCP, correct checksums, fixed timestamps from 2026-01-01;
the same arguments write the same bytes. Memory use is constant: frames
go straight to the file.
"""
import argparse
import struct
import sys

from inetcsum import csum

RDS_PORT = 16385
MSS = 1448
EPOCH = 1767225600
HDR = struct.Struct(">QQIHHBB4sH16s")
REC = struct.Struct("<IIII")


class Writer:
    def __init__(self, f):
        self.f = f
        self.t_us = 0
        self.frames = 0
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1))

    def tcp(self, sip, dip, sport, dport, seq, ack, flags, payload=b""):
        tcp = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 0x50, flags, 65535, 0, 0)
        pseudo = sip + dip + struct.pack("!BBH", 0, 6, 20 + len(payload))
        tc = csum(pseudo + tcp + payload)
        tcp = tcp[:16] + struct.pack("!H", tc) + tcp[18:]
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 40 + len(payload), self.frames & 0xFFFF,
                         0x4000, 64, 6, 0, sip, dip)
        ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
        frame = b"\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00" + ip + tcp + payload
        self.t_us += 10
        self.f.write(REC.pack(EPOCH + self.t_us // 1000000, self.t_us % 1000000,
                              len(frame), len(frame)))
        self.f.write(frame)
        self.frames += 1


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", help="output pcap file")
    ap.add_argument("--flows", type=int, default=100000)
    ap.add_argument("--pairs", type=int, default=0, help="address pairs (default: --flows)")
    ap.add_argument("--hold", type=int, default=0, help="bytes held behind a hole per flow")
    ap.add_argument("--fin", action="store_true", help="close each connection (FIN, FIN)")
    a = ap.parse_args(argv)
    pairs = a.pairs or a.flows
    if a.flows < 1 or not 1 <= pairs <= 1 << 22 or (a.flows + pairs - 1) // pairs > 64511:
        ap.error("--flows >= 1, --pairs 1..4194304, --flows / --pairs below 64512")
    server = bytes([10, 255, 255, 254])
    hold = bytes(i & 0xFF for i in range(MSS))
    with open(a.out, "wb") as f:
        w = Writer(f)
        for i in range(a.flows):
            p = (i % pairs) + (1 << 16)
            cip = bytes([10, p >> 16 & 0xFF, p >> 8 & 0xFF, p & 0xFF])
            port = 1024 + i // pairs
            isn = (i * 2654435761) & 0xFFFFFFFF
            w.tcp(cip, server, port, RDS_PORT, isn, 0, 0x02)
            msg = HDR.pack(1, 0, 16, 4000, 4001, 0, 0, b"\0\0\0\0", 0, b"\0" * 16) + b"m" * 16
            seq = (isn + 1) & 0xFFFFFFFF
            w.tcp(cip, server, port, RDS_PORT, seq, 1, 0x18, msg)
            seq = (seq + len(msg) + 1) & 0xFFFFFFFF    # one byte never sent
            left = a.hold
            while left > 0:
                n = min(left, MSS)
                w.tcp(cip, server, port, RDS_PORT, seq, 1, 0x18, hold[:n])
                seq = (seq + n) & 0xFFFFFFFF
                left -= n
            if a.fin:
                w.tcp(cip, server, port, RDS_PORT, seq, 1, 0x11)
                w.tcp(server, cip, RDS_PORT, port, 1, seq + 1, 0x11)
    print("%s: %d flows over %d address pairs, %d frames" % (a.out, a.flows, pairs, w.frames),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
