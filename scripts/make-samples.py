#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Writes pcaps/samples/*.hex, the crafted inputs the demo decodes.
They are built from docs/kernel-behaviour.md (Part 0 and the tcp_basic
observations of Part 1), not captured; real captures live in pcaps/ with their scenario scripts."""
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pcaps", "samples")


def hdr(seq=0, ack=0, ln=0, sport=0, dport=0, flags=0, credit=0, csum=0, ext=b"", pad=b"\0" * 4):
    return (struct.pack(">QQIHHBB4sH", seq, ack, ln, sport, dport, flags, credit, pad, csum)
            + ext.ljust(16, b"\0"))


def cmap(ports=()):
    m = bytearray(8192)
    for p in ports:
        m[p // 8] |= 1 << (p % 8)
    return bytes(m)


def write(name, kind, notes, data):
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, name), "w") as f:
        f.write("# wire: %s\n" % kind)
        for n in notes:
            f.write("# %s\n" % n)
        for i in range(0, len(data), 32):
            f.write(data[i:i + 32].hex(" ") + "\n")


GEN = 0x9E3779B9  # placeholder: the lab notes do not record the kernel's value
PROBE72 = bytes([5, 0, 8, 6]) + struct.pack(">I", GEN) + bytes([8, 0])
PROBE61 = bytes([5, 0, 8])

for ver, probe in (("7.2", PROBE72), ("6.1", PROBE61)):
    write("tcp-%s-first-contact.hex" % ver, "tcp-stream",
          ["What a %s kernel sent on a connection a host peer opened to it and sent" % ver,
           "two pings (seq 1, 2, sport 4000) on, per docs/kernel-behaviour.md:",
           "its congestion map, its own probe ping, then two pongs. Reconstructed",
           "from those notes, not captured; GEN_NUM is a placeholder value."],
          hdr(ln=8192, flags=1) + cmap() + hdr(seq=1, sport=1, ext=probe)
          + hdr(seq=2, dport=4000) + hdr(seq=3, dport=4000))

write("tcp-congestion.hex", "tcp-stream",
      ["A receiver's side of a congestion episode: data, a map marking ports",
       "4000-4003 congested, more data, a map freeing them. Crafted."],
      hdr(ln=8192, flags=1) + cmap()
      + hdr(seq=1, sport=5000, dport=4001, ln=16) + b"payload-16-bytes"
      + hdr(ln=8192, flags=1) + cmap(range(4000, 4004))
      + hdr(seq=2, sport=5000, dport=7000, ln=4) + b"more"
      + hdr(ln=8192, flags=1) + cmap([4002]))

write("tcp-hostile.hex", "tcp-stream",
      ["What a careful receiver must survive: IB-only fields on TCP, non-zero",
       "padding, a map with extra flag bits (so not a map), a map of the wrong",
       "length, then an h_len of 2 GiB, which is refused unread. Crafted."],
      hdr(seq=1, ack=9, sport=4000, dport=5000, ln=3, credit=4, flags=0x02, pad=b"\0\0\1\0")
      + b"abc"
      + hdr(seq=2, ln=4, flags=0x05) + b"\xff\xff\xff\xff"
      + hdr(ln=4096, flags=1) + bytes(4096)
      + hdr(seq=3, sport=4000, dport=5000, ln=0x80000000) + b"never read")

write("ibpd-v4-kernel.hex", "ib-pd 4",
      ["RDS CM private data as a kernel's active side fills it (IPv4):",
       "10.0.0.3 -> 10.0.0.4, proposes 3.1, minor mask 0x0003, tos 0, no credits."],
      bytes([10, 0, 0, 3, 10, 0, 0, 4, 3, 1, 0, 3, 0, 0, 0, 0]) + bytes(16))


def nlattr(t, payload, mandatory=False):
    ln = 4 + len(payload)
    return struct.pack("=HH", ln, t | (0x2000 if mandatory else 0)) + payload + b"\0" * (-ln % 4)


def nlmsg(client, op, flags, seq, body):
    ln = 16 + len(body)
    return struct.pack("=IHHII", ln, client << 10 | op, flags, seq, 0) + body


# A path-record RESOLVE request as ib_sa sends it to the local service
# (family header, then SERVICE_ID, DGID, SGID, TCLASS, PKEY, QOS_CLASS, all
# with the mandatory bit), and the error response a service without a path
# would send. Host byte order (little-endian), as on x86.
gid_d = bytes.fromhex("fe800000000000000200000000000002")
gid_s = bytes.fromhex("fe800000000000000200000000000001")
req = (b"rxe0".ljust(64, b"\0") + bytes([1, 0]) + b"\0\0"
       + nlattr(3, struct.pack("=Q", 0x00000000010648CA), True)
       + nlattr(4, gid_d, True) + nlattr(5, gid_s, True)
       + nlattr(6, b"\0", True) + nlattr(7, struct.pack("=H", 0xFFFF), True)
       + nlattr(8, struct.pack("=H", 0), True))
write("netlink-resolve.hex", "netlink",
      ["RDMA netlink local service: a RESOLVE request from the kernel's SA client",
       "(NLM_F_REQUEST), then an error response (RDMA_NL_LS_F_ERR). Crafted from",
       "<rdma/rdma_netlink.h> and drivers/infiniband/core/sa_query.c."],
      nlmsg(4, 0, 0x0001, 7, req) + nlmsg(4, 0, 0x0100, 7, b""))
