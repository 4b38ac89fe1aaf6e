#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Writes a large, realistic RDS/TCP capture for the rdsdump benchmark.

    gen-rdstcp.py SIZE_MB OUT.pcap [--seed S] [--pairs N] [--paths N] [--stats FILE]

SIZE_MB is in MiB; the file stops at the first burst boundary past it,
then every connection is closed with FIN/ACK, so it ends a little larger.

What is in it: N host pairs (default 2, addresses 10.20.0.x) with N paths
each (default 8), one TCP connection per path from the smaller address,
source ports 32776 + path (port % 8 = path index, as 7.2 picks them), to
16385. Ethernet / IPv4 (DF) / TCP with the timestamp option, as Linux sends
it; segments of at most 1448 bytes (MSS 1460 minus the option), correct
sequence and acknowledgement numbers per direction, and a pure ACK from
the receiver after every second segment and at the end of each burst.
IP and TCP checksums are all correct (cheap: see csum_tail below), so
tcpdump -vv and tshark with checksum validation stay quiet too.

RDS: each connection starts with a congestion map in both directions, path
0 with the 7.2 probe ping (NPATHS, GEN_NUM, SPORT_IDX) and its pong; then
bursts of 1-8 messages, as a corked sender writes them: data of 0 bytes to
1 MiB (about a third near 4 KiB, a third under 1 KiB, some 64 KiB, one in
two hundred 1 MiB), and pings answered by pongs. Headers are the 48-byte
big-endian ones of docs/protocol/header.md; h_sequence counts from 1 per
path and direction, maps carry 0, h_ack/h_credit/h_csum are 0 as on TCP.

Determinism: the same arguments write the same bytes.
"""
import argparse
import json
import random
import struct
import sys
import time

from inetcsum import csum

RDS_PORT = 16385
MSS = 1448
SNAPLEN = 262144
EPOCH = 1767225600          # 2026-01-01T00:00:00Z, a fixed start
NS_PER_BYTE_10G = 0.8

HDR = struct.Struct(">QQIHHBB4sH16s")
# Ethernet(14) IPv4(20) TCP(20) + NOP NOP TS(12), and the pcap record header.
FRAME = struct.Struct("!6s6sH" "BBHHHBBH4s4s" "HHIIBBHHH" "HHII")
REC = struct.Struct("<IIII")
FLOW_EXT_72 = bytes([5, 0, 8, 6]) + struct.pack(">I", 0x5EED0001) + bytes([8, 0])


class Dir:
    """One direction of one connection: what its frames have in common and
    where its sequence numbers are."""

    def __init__(self, smac, dmac, sip, dip, sport, dport, isn, ts0):
        self.smac, self.dmac, self.sip, self.dip = smac, dmac, sip, dip
        self.sport, self.dport = sport, dport
        self.seq = isn
        self.ipid = isn & 0xFFFF
        self.ts0 = ts0
        self.tsval = ts0
        self.rds_seq = 1
        # Checksum words that never change for this direction; the rest
        # (lengths, id, seq, ack, flags, timestamps, payload) are added per
        # frame. IPv4: version/IHL/TOS, DF, TTL/proto, addresses.
        a = struct.unpack("!HH", sip)
        b = struct.unpack("!HH", dip)
        self.ip_const = 0x4500 + 0x4000 + (64 << 8 | 6) + a[0] + a[1] + b[0] + b[1]
        # TCP: pseudo header (addresses, protocol), ports, window, the
        # NOP NOP and TS kind/length words.
        self.tcp_const = (a[0] + a[1] + b[0] + b[1] + 6 + sport + dport + WINDOW
                          + 0x0101 + 0x080A)


WINDOW = 8192               # with window scale 7: 1 MiB


class Gen:
    def __init__(self, out, seed, pairs, paths):
        self.f = out
        self.rnd = random.Random(seed)
        self.parts = []
        self.pending = 0
        self.written = 0
        self.t_ns = 0
        self.stats = {"frames": 0, "data_frames": 0, "pure_acks": 0, "handshake_frames": 0,
                      "rds_bytes": 0, "messages": {}, "connections": 0}
        # Payload bytes are slices of one random block, so content varies
        # without generating random bytes per message.
        self.block = memoryview(self.rnd.randbytes((1 << 20) + (1 << 17)))
        self.conns = []
        for p in range(pairs):
            ca = bytes([10, 20, p, 1])
            sa = bytes([10, 20, p, 2])
            cm = bytes([0x52, 0x54, 0x00, 0x20, p, 1])
            sm = bytes([0x52, 0x54, 0x00, 0x20, p, 2])
            for path in range(paths):
                cport = 32776 + path
                c = Dir(cm, sm, ca, sa, cport, RDS_PORT, self.rnd.getrandbits(32),
                        self.rnd.getrandbits(31))
                s = Dir(sm, cm, sa, ca, RDS_PORT, cport, self.rnd.getrandbits(32),
                        self.rnd.getrandbits(31))
                self.conns.append((c, s, path))
        self.f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, SNAPLEN, 1))
        self.written = 24

    # -- frames ------------------------------------------------------------

    def frame(self, d, peer, flags, payload=b"", opts=None):
        """Append one frame from d; payload may be a memoryview slice."""
        n = len(payload)
        ms = self.t_ns // 1000000
        d.tsval = d.ts0 + ms
        if opts is None:
            tcp_len = 32 + n
            ip_len = 20 + tcp_len
            ack = peer.seq
            ipid = d.ipid = (d.ipid + 1) & 0xFFFF
            s = d.ip_const + ip_len + ipid
            s = (s & 0xFFFF) + (s >> 16)
            s = (s & 0xFFFF) + (s >> 16)
            ipc = ~s & 0xFFFF
            seq = d.seq
            tsv, tse = d.tsval, peer.tsval
            s = (d.tcp_const + tcp_len + (seq >> 16) + (seq & 0xFFFF) + (ack >> 16)
                 + (ack & 0xFFFF) + (0x8000 | flags) + (tsv >> 16) + (tsv & 0xFFFF)
                 + (tse >> 16) + (tse & 0xFFFF))
            if n:
                # Ones' complement sum of 16-bit words is the number mod
                # 0xffff (2^16 = 1 mod 0xffff): C speed, not a Python loop.
                s += (int.from_bytes(payload, "big") << (8 if n & 1 else 0)) % 0xFFFF
            r = s % 0xFFFF
            tc = 0xFFFF - r if r else 0
            hdr = FRAME.pack(d.dmac, d.smac, 0x0800, 0x45, 0, ip_len, ipid, 0x4000, 64, 6, ipc,
                             d.sip, d.dip, d.sport, d.dport, seq, ack, 0x80, flags, WINDOW,
                             tc, 0, 0x0101, 0x080A, tsv, tse)
            flen = 66 + n
            self.t_ns += int((flen + 24) * NS_PER_BYTE_10G) + 50
            t = self.t_ns // 1000 + EPOCH * 1000000
            self.parts.append(REC.pack(t // 1000000, t % 1000000, flen, flen))
            self.parts.append(hdr)
            if n:
                self.parts.append(payload)
            d.seq = (seq + n + (1 if flags & 0x03 else 0)) & 0xFFFFFFFF
            self.pending += 16 + flen
        else:
            self.slow_frame(d, peer, flags, opts)
        self.stats["frames"] += 1
        if self.pending >= 8 << 20:
            self.flush()

    def slow_frame(self, d, peer, flags, opts):
        """SYN and SYN-ACK: other options, rare, so built the plain way."""
        ack = peer.seq if flags & 0x10 else 0
        tcp = struct.pack("!HHIIBBHHH", d.sport, d.dport, d.seq, ack, (5 + len(opts) // 4) << 4,
                          flags, 64240 if flags == 0x02 else 65160, 0, 0) + opts
        ipid = d.ipid = (d.ipid + 1) & 0xFFFF
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), ipid, 0x4000, 64, 6, 0,
                         d.sip, d.dip)
        ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
        c = csum(d.sip + d.dip + struct.pack("!HH", 6, len(tcp)) + tcp)
        tcp = tcp[:16] + struct.pack("!H", c) + tcp[18:]
        data = d.dmac + d.smac + b"\x08\x00" + ip + tcp
        self.t_ns += 20000
        t = self.t_ns // 1000 + EPOCH * 1000000
        self.parts.append(REC.pack(t // 1000000, t % 1000000, len(data), len(data)) + data)
        d.seq = (d.seq + 1) & 0xFFFFFFFF
        self.pending += 16 + len(data)
        self.stats["handshake_frames"] += 1

    def flush(self):
        self.f.write(b"".join(self.parts))
        self.written += self.pending
        self.parts = []
        self.pending = 0

    # -- TCP ---------------------------------------------------------------

    def handshake(self, c, s):
        def syn_opts(d, ecr):
            return (struct.pack("!BBHBB", 2, 4, 1460, 4, 2) + struct.pack("!BBII", 8, 10,
                    d.tsval, ecr) + b"\x01\x03\x03\x07")
        c.tsval = c.ts0 + self.t_ns // 1000000
        self.frame(c, s, 0x02, opts=syn_opts(c, 0))
        s.tsval = s.ts0 + self.t_ns // 1000000
        self.frame(s, c, 0x12, opts=syn_opts(s, c.tsval))
        self.frame(c, s, 0x10)
        self.stats["handshake_frames"] += 1
        self.stats["connections"] += 1

    def send(self, d, peer, stream):
        """Cut a burst into segments as the kernel does after uncorking:
        full MSS segments, PSH on the last; the receiver ACKs every second
        segment and the end of the burst."""
        mv = memoryview(stream)
        n = len(stream)
        k = 0
        segs = 0
        while k < n:
            piece = mv[k:k + MSS]
            k += MSS
            self.frame(d, peer, 0x18 if k >= n else 0x10, piece)
            segs += 1
            if segs & 1 == 0 or k >= n:
                self.frame(peer, d, 0x10)
                self.stats["pure_acks"] += 1
        self.stats["data_frames"] += segs
        self.stats["rds_bytes"] += n

    def close(self, c, s):
        self.frame(c, s, 0x11)
        self.frame(s, c, 0x11)
        self.frame(c, s, 0x10)

    # -- RDS ---------------------------------------------------------------

    def count(self, kind, k=1):
        m = self.stats["messages"]
        m[kind] = m.get(kind, 0) + k

    def hdr(self, d, ln, sport, dport, flags=0, ext=b"", seq=None):
        if seq is None:
            seq = d.rds_seq
            d.rds_seq += 1
        return HDR.pack(seq, 0, ln, sport, dport, flags, 0, b"\0\0\0\0", 0, ext)

    def msg_size(self):
        x = self.rnd.random()
        if x < 0.25:
            return 4096
        if x < 0.35:
            return self.rnd.randint(4000, 4200)
        if x < 0.65:
            return self.rnd.randint(0, 1024)
        if x < 0.85:
            return self.rnd.randint(1025, 16384)
        if x < 0.95:
            return self.rnd.randint(16385, 65535)
        if x < 0.995:
            return 65536
        return 1 << 20

    def open_all(self):
        cmap = bytes(8192)
        for c, s, path in self.conns:
            self.handshake(c, s)
            for d, peer in ((c, s), (s, c)):
                self.send(d, peer, self.hdr(d, 8192, 0, 0, flags=0x01, seq=0) + cmap)
                self.count("cong")
            if path == 0:
                self.send(s, c, self.hdr(s, 0, 1, 0, ext=FLOW_EXT_72))
                self.count("probe-ping")
                self.send(c, s, self.hdr(c, 0, 0, 1, ext=FLOW_EXT_72))
                self.count("probe-pong")

    def burst(self):
        rnd = self.rnd
        c, s, path = self.conns[rnd.randrange(len(self.conns))]
        d, peer = (c, s) if rnd.random() < 0.6 else (s, c)
        if d is c:
            sport, dport = 4000 + rnd.randrange(4), 5000 + rnd.randrange(4)
        else:
            sport, dport = 5000 + rnd.randrange(4), 4000 + rnd.randrange(4)
        if rnd.random() < 0.04:
            self.send(d, peer, self.hdr(d, 0, sport, 0))
            self.send(peer, d, self.hdr(peer, 0, 0, sport))
            self.count("ping")
            self.count("pong")
            return
        parts = []
        total = 0
        for _ in range(rnd.randint(1, 8)):
            ln = self.msg_size()
            off = rnd.randrange(1 << 17)
            parts.append(self.hdr(d, ln, sport, dport))
            parts.append(self.block[off:off + ln])
            total += ln
            self.count("data")
            if total >= 65536:
                break
        self.send(d, peer, b"".join(parts))

    def run(self, target):
        self.open_all()
        while self.written + self.pending < target:
            self.burst()
        for c, s, _ in self.conns:
            self.close(c, s)
        self.flush()


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("size_mb", type=float, help="target size in MiB")
    ap.add_argument("out", help="output pcap file")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--pairs", type=int, default=2, help="host pairs (default 2: 4 hosts)")
    ap.add_argument("--paths", type=int, default=8, help="paths per pair (default 8)")
    ap.add_argument("--stats", help="write counts as JSON here ('-' for stdout)")
    a = ap.parse_args(argv)
    if not 1 <= a.paths <= 8 or not 1 <= a.pairs <= 255:
        ap.error("--paths 1..8, --pairs 1..255")
    t0 = time.monotonic()
    with open(a.out, "wb") as f:
        g = Gen(f, a.seed, a.pairs, a.paths)
        g.run(int(a.size_mb * (1 << 20)))
    dt = time.monotonic() - t0
    st = g.stats
    st.update(file_bytes=g.written, seconds=round(dt, 2),
              mib_per_s=round(g.written / (1 << 20) / dt, 1), seed=a.seed)
    print("%s: %.1f MiB, %d frames (%d data, %d pure ACKs), %d RDS messages, %.1f s (%.0f MiB/s)"
          % (a.out, g.written / (1 << 20), st["frames"], st["data_frames"], st["pure_acks"],
             sum(st["messages"].values()), dt, st["mib_per_s"]), file=sys.stderr)
    if a.stats:
        text = json.dumps(st, indent=1, sort_keys=True) + "\n"
        if a.stats == "-":
            sys.stdout.write(text)
        else:
            with open(a.stats, "w") as f:
                f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
