#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Writes pcaps/crafted/: small captures that rdsdump's tests feed it to see
what it does with the inputs a real capture rarely shows on demand (snap
length cuts, garbage, reordering, loss, other link types, pcapng, nlmon).

Most are derived from the lab's real captures in pcaps/captured/7.2/; the
rest are synthesized. Every random choice comes from a fixed seed, so a
rerun writes the same bytes. The native InfiniBand and RoCEv2 captures of
crafted RDS traffic are written by tests/support/mkibcap.c with libwire's
encoders (the build's mkibcap: $MKIBCAP, default build/asan/tests/mkibcap),
which prints their manifest entries for this script to merge. pcaps/crafted/manifest.json records, per
file, its source, its frame count and what was done to which frames (frame
numbers count from 1, as tcpdump and tshark do).

    scripts/make-crafted-pcaps.py [OUTDIR]
"""
import json
import os
import random
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CAPTURED = os.path.join(HERE, "..", "pcaps", "captured", "7.2")
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "pcaps", "crafted")

RDS_TCP_PORT = 16385
ROCE_PORT = 4791
SNAPLEN = 262144
LT_ETHERNET, LT_RAW, LT_SLL, LT_NETLINK, LT_SLL2 = 1, 101, 113, 253, 276
MANIFEST = {}


# --------------------------------------------------------------------------
# pcap and pcapng containers
# --------------------------------------------------------------------------

class Rec:
    """One capture record; ts_usec in microseconds keeps the captures'
    resolution exactly (a float would not)."""

    def __init__(self, sec, usec, data, orig=None):
        self.sec, self.usec, self.data = sec, usec, bytes(data)
        self.orig = len(self.data) if orig is None else orig

    def at(self, data, orig=None):
        return Rec(self.sec, self.usec, data, orig)

    def later(self, usec, data, orig=None):
        t = self.sec * 1000000 + self.usec + usec
        return Rec(t // 1000000, t % 1000000, data, orig)


def read_pcap(path):
    with open(path, "rb") as f:
        d = f.read()
    magic = struct.unpack("<I", d[:4])[0]
    e = {0xA1B2C3D4: "<", 0xD4C3B2A1: ">"}.get(magic)
    if e is None:
        raise ValueError("%s: not a microsecond pcap file" % path)
    linktype = struct.unpack(e + "I", d[20:24])[0]
    recs, off = [], 24
    while off + 16 <= len(d):
        sec, usec, incl, orig = struct.unpack(e + "IIII", d[off:off + 16])
        recs.append(Rec(sec, usec, d[off + 16:off + 16 + incl], orig))
        off += 16 + incl
    return linktype, recs


def write_pcap(name, linktype, recs, snaplen=SNAPLEN, source=None, notes=()):
    out = bytearray(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, snaplen, linktype))
    for r in recs:
        out += struct.pack("<IIII", r.sec, r.usec, len(r.data), r.orig) + r.data
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(out)
    MANIFEST[name] = {"linktype": linktype, "frames": len(recs), "bytes": len(out),
                      "snaplen": snaplen,
                      "source": source, "notes": list(notes)}
    print("%-26s %4d frames %7d bytes" % (name, len(recs), len(out)))


def pcapng_block(btype, body):
    body += b"\0" * (-len(body) % 4)
    n = 12 + len(body)
    return struct.pack("<II", btype, n) + body + struct.pack("<I", n)


def pcapng_opt(code, value):
    return struct.pack("<HH", code, len(value)) + value + b"\0" * (-len(value) % 4)


def write_pcapng(name, linktype, recs, source=None, notes=()):
    """Section Header, one Interface Description, Enhanced Packet Blocks
    (pcapng spec, draft-ietf-opsawg-pcapng). Little-endian; microsecond
    timestamps stated by if_tsresol although 6 is the default, so a reader
    that ignores the option and one that honours it agree."""
    end = pcapng_opt(0, b"")
    idb = pcapng_block(1, struct.pack("<HHI", linktype, 0, SNAPLEN)
                       + pcapng_opt(2, b"br-lab") + pcapng_opt(9, b"\x06") + end)
    blocks = [idb]
    for i, r in enumerate(recs):
        ts = r.sec * 1000000 + r.usec
        body = struct.pack("<IIIII", 0, ts >> 32, ts & 0xFFFFFFFF, len(r.data), r.orig)
        body += r.data + b"\0" * (-len(r.data) % 4)
        if i == 0:
            # One EPB with an option, so readers must skip options by length.
            body += pcapng_opt(1, b"first frame of 7.2/tcp_basic") + end
        blocks.append(pcapng_block(6, body))
    rest = b"".join(blocks)
    shb = pcapng_block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, len(rest))
                       + pcapng_opt(4, b"scripts/make-crafted-pcaps.py") + end)
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(shb + rest)
    MANIFEST[name] = {"linktype": linktype, "frames": len(recs),
                      "bytes": len(shb) + len(rest), "source": source, "notes": list(notes)}
    print("%-26s %4d frames %7d bytes" % (name, len(recs), len(shb) + len(rest)))


# --------------------------------------------------------------------------
# Ethernet / IPv4 / TCP / UDP
# --------------------------------------------------------------------------

def csum(b, start=0):
    if len(b) & 1:
        b = bytes(b) + b"\0"
    s = start + sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def ipv4_hdr(src, dst, proto, payload_len, ipid=0, ttl=64, opts=b"", df=True):
    ihl = 5 + len(opts) // 4
    h = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, 0, ihl * 4 + payload_len, ipid,
                    0x4000 if df else 0, ttl, proto, 0, src, dst) + opts
    return h[:10] + struct.pack("!H", csum(h)) + h[12:]


def fix_ip_csum(h):
    """A patched IPv4 header with its checksum made right again, so that the
    one impossible field is the only thing wrong with it."""
    h = bytearray(h)
    h[10:12] = b"\0\0"
    n = (h[0] & 15) * 4 if 20 <= (h[0] & 15) * 4 <= len(h) else 20
    h[10:12] = struct.pack("!H", csum(bytes(h[:n])))
    return bytes(h)


def l4_csum(src, dst, proto, seg):
    return csum(seg, sum(struct.unpack("!HHHH", src + dst)) + proto + len(seg))


def tcp_seg(src, dst, sport, dport, seq, ack, flags, payload=b"", opts=b"", win=502):
    doff = 5 + len(opts) // 4
    h = struct.pack("!HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF,
                    doff << 4, flags, win, 0, 0) + opts
    seg = h + payload
    c = l4_csum(src, dst, 6, seg)
    return seg[:16] + struct.pack("!H", c) + seg[18:]


def eth(dmac, smac, etype=0x0800):
    return dmac + smac + struct.pack("!H", etype)


def ip4(s):
    return bytes(int(x) for x in s.split("."))


def mac(n):
    return bytes([0x52, 0x54, 0x00, 0x12, 0x34, n])


class Frame:
    """An Ethernet/IPv4/TCP frame taken apart so it can be rebuilt with
    another sequence number or payload (checksums recomputed)."""

    def __init__(self, data):
        self.data = data
        self.payload = b""
        self.ok = (len(data) >= 54 and data[12:14] == b"\x08\x00" and data[23] == 6)
        if not self.ok:
            return
        ip = data[14:]
        ihl = (ip[0] & 15) * 4
        tot = struct.unpack("!H", ip[2:4])[0]
        self.ip_hdr = ip[:ihl]
        self.src, self.dst = ip[12:16], ip[16:20]
        seg = ip[ihl:tot]
        self.sport, self.dport, self.seq, self.ack = struct.unpack("!HHII", seg[:12])
        doff = (seg[12] >> 4) * 4
        self.flags = seg[13]
        self.tcp_hdr = seg[:doff]
        self.payload = seg[doff:]
        self.key = (self.src, self.sport, self.dst, self.dport)

    def rebuild(self, seq, payload):
        """Same frame with another sequence number and payload; the IP
        length and both checksums are made right for the new contents."""
        ip = bytearray(self.ip_hdr)
        ip[2:4] = struct.pack("!H", len(ip) + len(self.tcp_hdr) + len(payload))
        ip[10:12] = b"\0\0"
        ip[10:12] = struct.pack("!H", csum(ip))
        seg = bytearray(self.tcp_hdr + payload)
        seg[4:8] = struct.pack("!I", seq & 0xFFFFFFFF)
        seg[16:18] = b"\0\0"
        seg[16:18] = struct.pack("!H", l4_csum(self.src, self.dst, 6, bytes(seg)))
        return self.data[:14] + bytes(ip) + bytes(seg)


def rds_hdr(seq=0, ln=0, sport=0, dport=0, flags=0, ext=b"", ack=0):
    return struct.pack(">QQIHHBB4sH", seq, ack, ln, sport, dport, flags, 0,
                       b"\0" * 4, 0) + ext.ljust(16, b"\0")


class Stream:
    """One direction's data frames with offsets relative to the SYN."""

    def __init__(self):
        self.isn = None
        self.frames = []        # (record index, start, end)

    def bytes(self, recs):
        out = bytearray()
        for i, a, b in sorted(self.frames, key=lambda x: x[1]):
            p = Frame(recs[i].data).payload
            if a <= len(out) < b:
                out += p[len(out) - a:]
        return bytes(out)


def streams(recs):
    st = {}
    for i, r in enumerate(recs):
        f = Frame(r.data)
        if not f.ok or RDS_TCP_PORT not in (f.sport, f.dport):
            continue
        s = st.setdefault(f.key, Stream())
        if f.flags & 0x02:
            s.isn = f.seq + 1
        elif f.payload and s.isn is not None:
            a = (f.seq - s.isn) & 0xFFFFFFFF
            s.frames.append((i, a, a + len(f.payload)))
    return st


def messages(b):
    """(offset, header dict) of each whole record in one direction's bytes."""
    out, pos = [], 0
    while pos + 48 <= len(b):
        seq, _, ln, sport, dport, flags = struct.unpack(">QQIHHB", b[pos:pos + 25])
        out.append((pos, {"seq": seq, "len": ln, "sport": sport, "dport": dport,
                          "flags": flags}))
        pos += 48 + ln
    return out


# --------------------------------------------------------------------------
# Derived from 7.2/tcp_basic
# --------------------------------------------------------------------------

def find_msg(st, recs, ln):
    """The direction carrying a message of h_len ln, and where it lies."""
    for key, s in st.items():
        for pos, h in messages(s.bytes(recs)):
            if h["len"] == ln:
                return key, s, pos
    raise SystemExit("7.2/tcp_basic: no message of %d bytes" % ln)


def base_no1m():
    """7.2/tcp_basic without its 1 MiB message: the segments carrying it are
    the last data of their direction, so dropping them and the receiver's
    ACKs for them leaves a clean capture a tenth of the size."""
    st = streams(RECS)
    key, s, start = find_msg(st, RECS, 1 << 20)
    rev = (key[2], key[3], key[0], key[1])
    risn = s.isn
    drop = set()
    for i, a, b in s.frames:
        if b > start:
            if a < start:
                raise SystemExit("a segment straddles the 1 MiB message")
            drop.add(i)
    for i, r in enumerate(RECS):
        f = Frame(r.data)
        if f.ok and f.key == rev and not f.payload and f.flags & 0x10 and \
                not f.flags & 0x07 and (f.ack - risn) & 0xFFFFFFFF > start:
            drop.add(i)
    return [r for i, r in enumerate(RECS) if i not in drop], sorted(x + 1 for x in drop)


def snaplen_variants():
    for n, where in ((64, "inside the TCP options of every TCP frame but the RST"),
                     (96, "inside the RDS header of data segments"),
                     (200, "inside payloads")):
        recs = [r.at(r.data[:n], r.orig) for r in RECS]
        write_pcap("trunc-snaplen-%d.pcap" % n, LT_ETHERNET, recs, snaplen=n,
                   source="7.2/tcp_basic.pcap",
                   notes=["every frame cut to %d bytes (caplen < len): %s" % (n, where),
                          "%d of %d frames cut" % (sum(1 for r in RECS if len(r.data) > n),
                                                  len(RECS))])


def reorder(base):
    """Each flow's data segments permuted within windows of 3-4, some sent
    twice, two split into overlapping pieces, and one retransmission of
    payload bytes with different contents. Slots keep their timestamps so
    time stays monotonic while sequence numbers do not."""
    rnd = random.Random(0x5EED01)
    recs = list(base)
    st = streams(recs)
    notes = []
    # The conflict: 64 bytes inside the 4097-byte message's payload, resent
    # later with other contents; first copy = the captured bytes.
    ckey, cs, cpos = find_msg(st, recs, 4097)
    lo = cpos + 48 + 1000
    conflict_idx = next(i for i, a, b in cs.frames if a <= lo and lo + 64 <= b)
    # Permutation per flow direction.
    order = list(range(len(recs)))
    for key, s in sorted(st.items()):
        idx = [i for i, _, _ in sorted(s.frames, key=lambda x: x[1])]
        k = 0
        while k < len(idx):
            w = rnd.choice((3, 4))
            win = idx[k:k + w]
            if len(win) > 1:
                perm = win[:]
                while perm == win:
                    rnd.shuffle(perm)
                slots = sorted(win)
                for slot, i in zip(slots, perm):
                    order[slot] = i
            k += w
    out = [recs[n].at(recs[i].data, recs[i].orig) for n, i in enumerate(order)]
    srcidx = list(order)          # base index of each output frame (None: crafted)

    data_pos = [n for n, i in enumerate(srcidx) if Frame(recs[i].data).payload
                and i != conflict_idx]
    # Two splits into overlapping pieces with identical bytes.
    big = [n for n in data_pos if len(Frame(recs[srcidx[n]].data).payload) >= 1000]
    splits = sorted(rnd.sample(big, 2))
    # Four exact duplicates, emitted 1-3 frames after the original.
    dups = sorted(rnd.sample([n for n in data_pos if n not in splits], 4))
    final, final_src, moved = [], [], []
    pending = []                  # (emit after output position, record, note)
    for n, r in enumerate(out):
        f = Frame(r.data)
        if n in splits:
            p, a = f.payload, f.seq
            if n == splits[0]:
                cut = [(0, len(p) // 2 + 40), (len(p) // 2 - 40, len(p))]
            else:
                # three pieces, the middle one wholly inside the first
                cut = [(0, len(p) * 2 // 3), (len(p) // 4, len(p) // 2), (len(p) // 2, len(p))]
            for j, (x, y) in enumerate(cut):
                final.append(r.at(f.rebuild(a + x, p[x:y])))
                final_src.append(None)
            notes.append("output frames %d-%d: base frame %d (%d bytes, %s:%d -> %s:%d seq %u) "
                         "split into overlapping pieces %s, identical bytes, checksums redone"
                         % (len(final) - len(cut) + 1, len(final), srcidx[n] + 1, len(p),
                            ".".join(map(str, f.src)), f.sport, ".".join(map(str, f.dst)),
                            f.dport, a, cut))
        else:
            final.append(r)
            final_src.append(srcidx[n])
            if srcidx[n] != n:
                moved.append("%d<-%d" % (len(final), srcidx[n] + 1))
        if n in dups:
            pending.append((min(n + rnd.randint(1, 3), len(out) - 1), r))
        if srcidx[n] == conflict_idx:
            pending.append((min(n + 2, len(out) - 1), "conflict"))
        for item in [x for x in pending if x[0] == n]:
            pending.remove(item)
            if item[1] == "conflict":
                cf = Frame(recs[conflict_idx].data)
                x = lo - ((cf.seq - cs.isn) & 0xFFFFFFFF)
                bad = bytes(c ^ 0x5A for c in cf.payload[x:x + 64])
                final.append(r.at(cf.rebuild(cf.seq + x, bad)))
                notes.append("output frame %d: retransmission of 64 bytes at stream offset %d "
                             "(inside the payload of the 4097-byte message) with DIFFERENT "
                             "bytes (XOR 0x5a): a conflict; the first copy is the captured one"
                             % (len(final), lo))
            else:
                final.append(r.at(item[1].data))
                notes.append("output frame %d: exact duplicate of output frame %d"
                             % (len(final), final.index(item[1]) + 1))
            final_src.append(None)
    assert not pending
    notes.insert(0, "data segments permuted within windows of 3-4 per direction; output "
                 "frame <- base frame: %s (timestamps stay with the slots)" % " ".join(moved))
    write_pcap("reorder.pcap", LT_ETHERNET, final, source="tcp_basic-no1m.pcap (7.2/tcp_basic)",
               notes=notes)


def midstream(base):
    """Starts inside a connection and inside a message: the first frame kept
    carries the tail of the 4095-byte message's payload, no SYN is seen."""
    st = streams(base)
    key, s, pos = find_msg(st, base, 4095)
    first = min(i for i, a, b in s.frames if pos + 48 < a < pos + 48 + 4095)
    recs = base[first:]
    f = Frame(base[first].data)
    write_pcap("midstream.pcap", LT_ETHERNET, recs, source="tcp_basic-no1m.pcap (7.2/tcp_basic)",
               notes=["frames 1-%d of the base removed: no SYN for any connection" % first,
                      "frame 1 is %d bytes at stream offset %d, inside the payload of the "
                      "4095-byte message that starts at offset %d (its header not captured)"
                      % (len(f.payload), (f.seq - s.isn) & 0xFFFFFFFF, pos),
                      "then the 4096, 4097 and 65536-byte messages whole"])


def gaps(base):
    st = streams(base)
    key, s, pos = find_msg(st, base, 4095)
    inside = [i for i, a, b in s.frames if pos + 48 < a and b <= pos + 48 + 4095]
    i = inside[0]
    a = next(x for j, x, _ in s.frames if j == i)
    f = Frame(base[i].data)
    write_pcap("gap.pcap", LT_ETHERNET, base[:i] + base[i + 1:],
               source="tcp_basic-no1m.pcap (7.2/tcp_basic)",
               notes=["base frame %d removed: %d bytes at stream offset %d, wholly inside the "
                      "payload of the 4095-byte message (offset %d), never retransmitted; "
                      "the receiver's ACKs still cover it (lost by the capture, not the wire)"
                      % (i + 1, len(f.payload), a, pos),
                      "the header was seen, so the next message (4096 bytes) can be framed"])
    key, s, pos = find_msg(st, base, 4096)
    i, a, b = next(x for x in s.frames if x[1] <= pos < x[2])
    write_pcap("gap-header.pcap", LT_ETHERNET, base[:i] + base[i + 1:],
               source="tcp_basic-no1m.pcap (7.2/tcp_basic)",
               notes=["base frame %d removed: stream offsets %d-%d, which hold the header of "
                      "the 4096-byte message (offset %d): the 4096, 4097 and 65536-byte "
                      "messages after it cannot be framed from the bytes alone"
                      % (i + 1, a, b, pos)])


def linktypes(base):
    src = "tcp_basic-no1m.pcap (7.2/tcp_basic)"
    g1 = ip4("10.199.0.2")

    def parts(r):
        return r.data[:6], r.data[6:12], r.data[14:]

    sll, sll2, raw, vlan = [], [], [], []
    for n, r in enumerate(base):
        dmac, smac, ip = parts(r)
        # As if captured on guest 1's interface: its own frames outgoing (4),
        # the peer's addressed to it (0).
        out = ip[12:16] == g1
        pkttype = 4 if out else 0
        sll.append(r.at(struct.pack("!HHH8sH", pkttype, 1, 6, smac + b"\0\0", 0x0800) + ip))
        sll2.append(r.at(struct.pack("!HHIHBB8s", 0x0800, 0, 2, 1, pkttype, 6,
                                     smac + b"\0\0") + ip))
        raw.append(r.at(ip))
        tags = struct.pack("!HHH", 0x8100, 100, 0x0800)
        if n % 5 == 4:
            # 802.1ad outer tag (service VLAN 7) over 802.1Q 100
            tags = struct.pack("!HHHHH", 0x88A8, 7, 0x8100, 100, 0x0800)
        vlan.append(r.at(dmac + smac + tags + ip))
    write_pcap("linktype-sll.pcap", LT_SLL, sll, source=src,
               notes=["LINUX_SLL (113): pkttype 4 for 10.199.0.2's frames, 0 for the peer's; "
                      "hatype 1, halen 6, source MAC, protocol 0x0800"])
    write_pcap("linktype-sll2.pcap", LT_SLL2, sll2, source=src,
               notes=["LINUX_SLL2 (276): protocol 0x0800, ifindex 2, hatype 1, pkttype as in "
                      "linktype-sll.pcap, halen 6, source MAC"])
    write_pcap("linktype-raw.pcap", LT_RAW, raw, source=src, notes=["RAW (101): the IPv4 packet"])
    write_pcap("linktype-vlan.pcap", LT_ETHERNET, vlan, source=src,
               notes=["Ethernet with an 802.1Q tag (VLAN 100) on every frame; every fifth frame "
                      "(5, 10, ...) also has an outer 802.1ad tag (VLAN 7)"])
    write_pcapng("tcp_basic.pcapng", LT_ETHERNET, base, source=src,
                 notes=["pcapng: Section Header (shb_userappl, real section length), one Interface "
                        "Description (Ethernet, snaplen 262144, if_name, if_tsresol 6), one "
                        "Enhanced Packet Block per frame; the first EPB has an opt_comment"])


# --------------------------------------------------------------------------
# Synthesized TCP
# --------------------------------------------------------------------------

class Clock:
    def __init__(self, sec):
        self.t = sec * 1000000

    def tick(self, usec=37):
        self.t += usec
        return self.t // 1000000, self.t % 1000000


class Conn:
    """A TCP connection whose frames are made up, with the options and the
    SYN/SYN-ACK/ACK a Linux peer sends, correct sequence numbers, acks and
    checksums throughout."""

    def __init__(self, out, clk, cli, cport, srv, isn_c, isn_s):
        self.out, self.clk = out, clk
        self.end = {"c": [ip4(cli), cport, mac(2), isn_c, 1000],
                    "s": [ip4(srv), RDS_TCP_PORT, mac(3), isn_s, 5000]}
        self.nxt = {"c": isn_c, "s": isn_s}
        self.ipid = {"c": 0x1000, "s": 0x2000}

    def frame(self, d, flags, payload=b"", opts=None):
        o = "s" if d == "c" else "c"
        a, b = self.end[d], self.end[o]
        self.end[d][4] += 3
        if opts is None:
            opts = b"\x01\x01\x08\x0a" + struct.pack("!II", a[4], b[4])
        seg = tcp_seg(a[0], b[0], a[1], b[1], self.nxt[d],
                      self.nxt[o] if flags & 0x10 else 0, flags, payload, opts)
        self.ipid[d] += 1
        data = eth(b[2], a[2]) + ipv4_hdr(a[0], b[0], 6, len(seg), self.ipid[d]) + seg
        sec, usec = self.clk.tick()
        self.out.append(Rec(sec, usec, data))
        self.nxt[d] = (self.nxt[d] + len(payload) + (1 if flags & 0x03 else 0)) & 0xFFFFFFFF

    def handshake(self):
        def syn_opts(d, o):
            return (struct.pack("!BBH", 2, 4, 1460) + b"\x04\x02\x08\x0a"
                    + struct.pack("!II", self.end[d][4], self.end[o][4] if d == "s" else 0)
                    + b"\x01\x03\x03\x07")
        self.frame("c", 0x02, opts=syn_opts("c", "s"))
        self.frame("s", 0x12, opts=syn_opts("s", "c"))
        self.frame("c", 0x10)

    def send(self, d, data, mss=1448):
        o = "s" if d == "c" else "c"
        for k in range(0, len(data), mss):
            piece = data[k:k + mss]
            self.frame(d, 0x18 if k + mss >= len(data) else 0x10, piece)
        self.frame(o, 0x10)

    def close(self):
        self.frame("c", 0x11)
        self.frame("s", 0x11)
        self.frame("c", 0x10)


def cong_map():
    return rds_hdr(ln=8192, flags=0x01) + bytes(8192)


def garbage_tcp():
    rnd = random.Random(0x5EED02)
    out, clk = [], Clock(1767225600)
    notes = []

    a = Conn(out, clk, "10.199.1.2", 40001, "10.199.1.3", 0xFFFFFE00 | rnd.getrandbits(8),
             rnd.getrandbits(32))
    a.handshake()
    a.send("s", cong_map())
    junk = bytes(rnd.getrandbits(8) for _ in range(1000))
    a.send("c", junk + rds_hdr(seq=1, sport=4000) + rds_hdr(seq=2, ln=100, sport=4000,
                                                           dport=5000) + bytes(range(100)))
    a.close()
    notes.append("10.199.1.2:40001 (ISN near 2^32, so sequence numbers wrap): the client "
                 "sends 1000 random bytes (read as a header: h_len 0x%08x, flags 0x%02x), then "
                 "a ping (seq 1, 4000 -> 0) and a 100-byte data message (seq 2, 4000 -> 5000); "
                 "the server sends a valid congestion map"
                 % (struct.unpack(">I", junk[16:20])[0], junk[24]))

    b = Conn(out, clk, "10.199.1.2", 40002, "10.199.1.3", rnd.getrandbits(32), rnd.getrandbits(32))
    b.handshake()
    b.send("s", cong_map())
    b.send("c", cong_map() + rds_hdr(seq=1, ln=0x7FFFFFFF, sport=4000, dport=5000)
           + bytes(rnd.getrandbits(8) for _ in range(200))
           + rds_hdr(seq=2, sport=4000) + rds_hdr(seq=3, ln=64, sport=4000, dport=5000)
           + b"B" * 64)
    b.send("s", rds_hdr(seq=1, dport=4000))
    b.close()
    notes.append("10.199.1.2:40002: the client sends a valid congestion map, then a header "
                 "with h_len 0x7fffffff (seq 1, 4000 -> 5000), 200 bytes, then a valid ping "
                 "(seq 2) and a 64-byte data message (seq 3); the server sends a map and a pong")

    c = Conn(out, clk, "10.199.1.2", 40003, "10.199.1.3", rnd.getrandbits(32), rnd.getrandbits(32))
    c.handshake()
    c.send("s", cong_map())
    hdr = bytearray(rnd.getrandbits(8) for _ in range(48))
    hdr[16:20] = struct.pack(">I", 20)
    c.send("c", bytes(hdr) + bytes(rnd.getrandbits(8) for _ in range(20))
           + rds_hdr(seq=1, ln=16, sport=4001, dport=5001) + b"after-the-junk!!")
    c.close()
    notes.append("10.199.1.2:40003: the client sends 48 random bytes whose h_len is 20 (flags "
                 "0x%02x, ports %d -> %d), 20 random bytes, then a valid 16-byte data message "
                 "(seq 1, 4001 -> 5001): a junk record a deframer can step over"
                 % (hdr[24], struct.unpack(">H", hdr[20:22])[0],
                    struct.unpack(">H", hdr[22:24])[0]))
    notes.append("all TCP and IP checksums correct")
    write_pcap("garbage-tcp16385.pcap", LT_ETHERNET, out, source="synthesized", notes=notes)


def garbage_frames():
    rnd = random.Random(0x5EED03)
    out, clk = [], Clock(1767225700)
    notes = []
    m1, m2 = mac(2), mac(3)
    s, d = ip4("10.199.2.2"), ip4("10.199.2.3")

    def add(data, what, orig=None):
        sec, usec = clk.tick(1000)
        out.append(Rec(sec, usec, data, orig))
        notes.append("frame %d: %s" % (len(out), what))

    def rb(n):
        return bytes(rnd.getrandbits(8) for _ in range(n))

    def tcp16385(payload=b"", flags=0x18):
        # A source port per frame: each oddity is a connection of its own,
        # not a retransmission of the one before.
        return tcp_seg(s, d, 40101 + len(out), RDS_TCP_PORT, 1000, 2000, flags, payload)

    ping = rds_hdr(seq=1, sport=4000)
    for n in (60, 200):
        add(rb(n), "%d random bytes" % n)
    add(rb(13), "13 random bytes: shorter than an Ethernet header")
    for n in (40, 120):
        add(eth(m2, m1) + rb(n), "ethertype IPv4, then %d random bytes" % n)
    def ip_patched(patch, what):
        seg = tcp16385(ping)
        h = bytearray(ipv4_hdr(s, d, 6, len(seg)))
        patch(h)
        add(eth(m2, m1) + fix_ip_csum(h) + seg, what % (14 + len(h) + len(seg)))

    ip_patched(lambda h: h.__setitem__(0, 0x43), "IPv4 IHL 3 (< 5), TCP to 16385 behind it%.0s")
    ip_patched(lambda h: h.__setitem__(slice(0, 4), b"\x4f\x00\x00\x28"),
               "IPv4 IHL 15 (60 bytes) but total length 40%.0s")
    ip_patched(lambda h: h.__setitem__(slice(2, 4), b"\x00\x0c"), "IPv4 total length 12 (< 20)%.0s")
    ip_patched(lambda h: h.__setitem__(slice(2, 4), struct.pack("!H", 1500)),
               "IPv4 total length 1500 in a %d-byte frame captured whole (caplen = len): "
               "cut on the wire")
    seg = tcp16385(ping)
    add(eth(m2, m1) + ipv4_hdr(s, d, 6, len(seg), opts=b"\x01\x01\x01\x00") + seg,
        "control: IPv4 with 4 bytes of options (IHL 6), a valid TCP segment to 16385 "
        "carrying a ping (no SYN seen)")
    ack = tcp16385(flags=0x10)
    add(eth(m2, m1) + ipv4_hdr(s, d, 6, len(ack)) + ack + b"\xaa" * 6,
        "control: a pure ACK to 16385 with 6 bytes of Ethernet padding (0xaa), not data")
    bad = bytearray(tcp16385(ping))
    bad[12] = 0x20
    add(eth(m2, m1) + ipv4_hdr(s, d, 6, len(bad)) + bytes(bad),
        "TCP to 16385 with data offset 2 (< 5)")
    bad = bytearray(tcp16385())
    bad[12] = 0xF0
    add(eth(m2, m1) + ipv4_hdr(s, d, 6, len(bad)) + bytes(bad),
        "TCP to 16385 with data offset 15 (60 bytes) in a 20-byte segment")
    # IPv4 fragments of a TCP segment to 16385 carrying a data message.
    seg = tcp16385(rds_hdr(seq=2, ln=64, sport=4000, dport=5000) + b"F" * 64)
    first, second = seg[:64], seg[64:]
    h1 = bytearray(ipv4_hdr(s, d, 6, len(first), ipid=0x4242, df=False))
    h1[6:8] = struct.pack("!H", 0x2000)
    h2 = bytearray(ipv4_hdr(s, d, 6, len(second), ipid=0x4242, df=False))
    h2[6:8] = struct.pack("!H", 64 // 8)
    add(eth(m2, m1) + fix_ip_csum(h1) + first, "IPv4 first fragment (MF, 64 bytes) of a TCP segment "
        "to 16385 (a 64-byte data message)")
    add(eth(m2, m1) + fix_ip_csum(h2) + second, "IPv4 second fragment (offset 64) of it")
    # IPv6
    s6 = bytes.fromhex("fd00000000000000000000000000c702")
    d6 = bytes.fromhex("fd00000000000000000000000000c703")
    seg = tcp16385(ping)
    add(eth(m2, m1, 0x86DD) + struct.pack("!IHBB", 0x60000000, len(seg) + 400, 6, 64) + s6 + d6
        + seg, "IPv6 payload length %d in a frame holding %d" % (len(seg) + 400, len(seg)))
    hbh = bytes([6, 30]) + bytes(6)         # claims (30+1)*8 bytes
    add(eth(m2, m1, 0x86DD) + struct.pack("!IHBB", 0x60000000, len(hbh) + len(seg), 0, 64)
        + s6 + d6 + hbh + seg, "IPv6 hop-by-hop header claiming 248 bytes of a 8+%d-byte "
        "payload" % len(seg))
    # RoCEv2 with broken BTHs.

    def udp4791(body, ulen=None):
        u = struct.pack("!HHHH", 55555, ROCE_PORT, ulen or 8 + len(body), 0) + body
        return eth(m2, m1) + ipv4_hdr(s, d, 17, len(u)) + u

    def bth(op, pad=0, qp=17, psn=100, tver=0):
        return struct.pack("!BBHII", op, pad << 4 | tver, 0xFFFF, qp, psn)

    add(udp4791(b"\x04\x00\xff\xff\x00\x00"), "UDP 4791 with 6 bytes: BTH cut short")
    add(udp4791(bth(0x04) + ping + b"\0" * 4, ulen=300),
        "UDP 4791 whose UDP length (300) exceeds the IP payload")
    add(udp4791(bth(0x15) + ping + b"\0" * 4), "BTH with reserved RC opcode 0x15")
    add(udp4791(bth(0x04, pad=3) + b"\0\0" + b"\0" * 4),
        "RC SEND_ONLY with PadCnt 3 and only 2 bytes of payload + pad")
    add(udp4791(bth(0x04, tver=1) + ping + b"\0" * 4), "BTH with TVer 1")
    add(udp4791(bth(0x01, pad=2) + ping + b"\0" * 4),
        "RC SEND_MIDDLE with PadCnt 2 (pad only allowed on the last packet), ICRC zero")
    add(b"", "zero-length record (caplen 0, len 0)", orig=0)
    add(b"", "empty record of a 60-byte frame (caplen 0, len 60)", orig=60)
    add(eth(m2, m1, 0x8100) + b"\x00", "802.1Q tag cut short (15-byte frame)")
    write_pcap("garbage-frames.pcap", LT_ETHERNET, out, source="synthesized", notes=notes)


# --------------------------------------------------------------------------
# Derived from 7.2/ib_basic
# --------------------------------------------------------------------------

def roce_info(data):
    """(flow key, opcode, psn) of an RC packet to QP > 1, else None."""
    if len(data) < 54 or data[12:14] != b"\x08\x00" or data[23] != 17:
        return None
    ihl = (data[14] & 15) * 4
    udp = data[14 + ihl:]
    if struct.unpack("!H", udp[2:4])[0] != ROCE_PORT:
        return None
    b = udp[8:20]
    qp = struct.unpack("!I", b[4:8])[0] & 0xFFFFFF
    if qp == 1:
        return None
    return (data[26:30], data[30:34], qp), b[0], struct.unpack("!I", b[8:12])[0] & 0xFFFFFF


def roce_body(data, op):
    """The SEND payload of a RoCE packet: no BTH, ImmDt, pad or ICRC."""
    ihl = (data[14] & 15) * 4
    udp = data[14 + ihl:]
    body = udp[20:struct.unpack("!H", udp[4:6])[0] - 4]
    if op in (3, 5):
        body = body[4:]
    return body[:len(body) - ((udp[9] >> 4) & 3)]


def op_of(r):
    info = roce_info(r.data)
    return info[1] if info else None


def ib_window(recs, limit=200):
    """The longest prefix of at most `limit` packets that ends with every
    direction at an RDS message boundary, so the cut loses nothing."""
    state, best = {}, 0          # flow -> [inside a SEND, message bytes left, SEND bytes]
    for n, r in enumerate(recs[:limit]):
        info = roce_info(r.data)
        if info and info[1] <= 5:
            k, op = info[0], info[1]
            st = state.setdefault(k, [False, 0, 0])
            body = roce_body(r.data, op)
            if op in (0, 4):
                if st[1] == 0:
                    st[1] = struct.unpack(">I", body[16:20])[0]
                st[0], st[2] = True, len(body) - 48
            else:
                st[2] += len(body)
            if op in (2, 3, 4, 5):
                st[0], st[1] = False, max(0, st[1] - st[2])
        if all(not v[0] and v[1] == 0 for v in state.values()):
            best = n + 1
    return recs[:best]


def ib_variants():
    _, full = read_pcap(os.path.join(CAPTURED, "ib_basic.pcap"))
    win = ib_window(full)
    src = "7.2/ib_basic.pcap, first %d packets (CM handshake, then RC traffic up to an RDS " \
          "message boundary in both directions)" % len(win)
    rnd = random.Random(0x5EED04)
    flows = {}
    for n, r in enumerate(win):
        info = roce_info(r.data)
        if info and info[1] <= 5:
            flows.setdefault(info[0], []).append(n)

    # Reorder: SEND packets permuted within windows of 3 per QP flow.
    order = list(range(len(win)))
    for k in sorted(flows):
        idx = flows[k]
        for j in range(0, len(idx) - 2, 3):
            w = idx[j:j + 3]
            if rnd.random() < 0.5:
                perm = w[:]
                while perm == w:
                    rnd.shuffle(perm)
                for slot, i in zip(w, perm):
                    order[slot] = i
    moved = [n + 1 for n, i in enumerate(order) if i != n]
    write_pcap("ib-reorder.pcap", LT_ETHERNET,
               [win[n].at(win[i].data) for n, i in enumerate(order)], source=src,
               notes=["RC SEND packets of each QP flow permuted within windows of 3 (about half "
                      "the windows); frames %s hold another packet's bytes; every byte and "
                      "ICRC unchanged, timestamps stay with the slots" % moved])

    # Retransmission: go-back-N resend of a multi-packet SEND's tail, and a
    # SEND_ONLY sent twice, both with the PSNs and bytes of the originals.
    out, notes = [], []
    lasts = [n for n in range(41, len(win)) if op_of(win[n]) == 2 and op_of(win[n - 1]) == 1]
    gbn = lasts[0]
    onlys = [n for n in range(gbn + 5, len(win)) if op_of(win[n]) == 4]
    only = onlys[0] if onlys else None
    for n, r in enumerate(win):
        out.append(r)
        if n == gbn:
            key = roce_info(r.data)[0]
            same = [m for m in flows[key] if m <= n][-3:]
            for j, m in enumerate(same):
                out.append(r.later(j + 1, win[m].data))
            notes.append("frames %d-%d: go-back-N resend of base frames %s (MIDDLE, MIDDLE, "
                         "LAST: duplicate PSNs %s, identical bytes)"
                         % (len(out) - 2, len(out), [m + 1 for m in same],
                            [roce_info(win[m].data)[2] for m in same]))
        if n == only:
            out.append(r.later(1, r.data))
            notes.append("frame %d: the SEND_ONLY of frame %d again (PSN %d)"
                         % (len(out), len(out) - 1, roce_info(r.data)[2]))
    write_pcap("ib-retrans.pcap", LT_ETHERNET, out, source=src, notes=notes)

    # Gap: one SEND_MIDDLE never captured.
    mids = [n for n in range(len(win)) if op_of(win[n]) == 1]
    gone = mids[len(mids) // 2]
    info = roce_info(win[gone].data)
    write_pcap("ib-gap.pcap", LT_ETHERNET, win[:gone] + win[gone + 1:], source=src,
               notes=["base frame %d removed: an RC SEND_MIDDLE to QP %d with PSN %d, so that "
                      "flow's PSNs jump %d -> %d and its 4 KiB fragment is incomplete"
                      % (gone + 1, info[0][2], info[2], info[2] - 1, info[2] + 1)])


# --------------------------------------------------------------------------
# RDMA netlink local service on nlmon
# --------------------------------------------------------------------------

NL_REQUEST, LS_F_ERR, MAND = 0x0001, 0x0100, 0x2000
GID_S = bytes.fromhex("fe80000000000000505400fffe12cc02")
GID_D = bytes.fromhex("fe80000000000000505400fffe12cc03")
IBACM_PID = 3021


def nla(t, payload, mandatory=False):
    n = 4 + len(payload)
    return struct.pack("<HH", n, t | (MAND if mandatory else 0)) + payload + b"\0" * (-n % 4)


def nlmsg(op, flags, seq, body, pid=0, length=None):
    n = 16 + len(body)
    return struct.pack("<IHHII", length or n, 4 << 10 | op, flags, seq, pid) + body


def path_rec(sl=0):
    """A 64-byte SA PathRecord as packed on the wire (IBTA 15.2.5.16)."""
    return (struct.pack(">Q", 0x10648CA) + GID_D + GID_S + struct.pack(">HHI", 0, 0, 64)
            + bytes([0, 0x81]) + struct.pack(">HH", 0xFFFF, sl)
            + bytes([0x85, 0x87, 0x92, 0]) + bytes(6))


def nlmon_ls():
    out, clk = [], Clock(1767225800)
    notes = []

    def add(msgs, what):
        sec, usec = clk.tick(250)
        # libpcap's cooked header for ARPHRD_NETLINK: pkttype 4 (the tap is
        # an xmit, dev_queue_xmit_nit marks it PACKET_OUTGOING), hatype
        # 824, no address, protocol = the netlink family (NETLINK_RDMA 20).
        out.append(Rec(sec, usec, struct.pack("!HHH8sH", 4, 824, 0, bytes(8), 20) + msgs))
        notes.append("frame %d: %s" % (len(out), what))

    req7 = (b"mlx5_0".ljust(64, b"\0") + bytes([1, 0, 0, 0])
            + nla(3, struct.pack("<Q", 0x10648CA), True)
            + nla(4, GID_D, True) + nla(5, GID_S, True) + nla(6, b"\0", True)
            + nla(7, struct.pack("<H", 0xFFFF), True) + nla(8, struct.pack("<H", 0), True))
    add(nlmsg(0, NL_REQUEST, 7, req7), "RESOLVE request seq 7 (kernel, pid 0): mlx5_0 port 1 "
        "path_use ALL, SERVICE_ID DGID SGID TCLASS PKEY QOS_CLASS all mandatory, 160 bytes")
    add(nlmsg(0, 0, 7, nla(1, struct.pack("<II", 0x2B, 0) + path_rec())
              + nla(1, struct.pack("<II", 0x0A, 0) + path_rec(1)), pid=IBACM_PID),
        "RESOLVE response seq 7 (ibacm): two PATH_RECORDs, flags PRIMARY|GMP|BIDIRECTIONAL "
        "(0x2b) and PRIMARY|OUTBOUND (0x0a)")
    req8 = (b"rxe0".ljust(64, b"\0") + bytes([1, 1, 0xC3, 0x5A])
            + nla(4, GID_D, True) + nla(5, GID_S, True) + nla(6, b"\0", True)
            + nla(7, struct.pack("<H", 0xFFFF), True))
    add(nlmsg(0, NL_REQUEST, 8, req8), "RESOLVE request seq 8: rxe0 port 1 path_use "
        "UNIDIRECTIONAL, uncleared pad bytes c3 5a, DGID SGID TCLASS PKEY only")
    add(nlmsg(0, LS_F_ERR, 8, b"", pid=IBACM_PID),
        "RESOLVE response seq 8 with RDMA_NL_LS_F_ERR, no attributes")
    add(nlmsg(1, NL_REQUEST, 100, nla(2, struct.pack("<I", 2000)), pid=IBACM_PID),
        "SET_TIMEOUT seq 100 (ibacm, NLM_F_REQUEST): TIMEOUT 2000 ms")
    add(nlmsg(2, NL_REQUEST, 11, struct.pack("<I", 3) + nla(9, ip4("10.199.0.3"), True)),
        "IP_RESOLVE request seq 11: ifindex 3, IPV4 10.199.0.3 (mandatory)")
    add(nlmsg(2, 0, 11, nla(4, bytes(10) + b"\xff\xff" + ip4("10.199.0.3")), pid=IBACM_PID),
        "IP_RESOLVE response seq 11: DGID ::ffff:10.199.0.3")
    add(nlmsg(2, NL_REQUEST, 12, struct.pack("<I", 3) + nla(10, GID_D, True)),
        "IP_RESOLVE request seq 12: ifindex 3, IPV6 fe80::5054:ff:fe12:cc03 (mandatory)")
    add(nlmsg(2, 0, 12, nla(4, GID_D), pid=IBACM_PID)
        + nlmsg(1, NL_REQUEST, 101, nla(2, struct.pack("<I", 5000)), pid=IBACM_PID),
        "one datagram, two messages: IP_RESOLVE response seq 12 (DGID fe80::5054:ff:fe12:cc03), "
        "then SET_TIMEOUT seq 101 (5000 ms)")
    bad = bytearray(nla(1, struct.pack("<II", 0x2B, 0) + path_rec()))
    bad[0:2] = struct.pack("<H", 200)
    add(nlmsg(0, 0, 13, bytes(bad), pid=IBACM_PID),
        "malformed RESOLVE response seq 13: nlmsg_len 92, its PATH_RECORD's nla_len 200 runs "
        "past the end")
    notes.append("netlink headers and integer attributes little-endian (host order of the "
                 "x86 machines the lab runs on); GIDs and addresses big-endian")
    write_pcap("nlmon-ls.pcap", LT_NETLINK, out, source="synthesized (docs/protocol/netlink.md)",
               notes=notes)


def ib_crafted():
    exe = os.environ.get("MKIBCAP", os.path.join(HERE, "..", "build", "asan", "tests", "mkibcap"))
    out = subprocess.run([exe, OUT], check=True, capture_output=True, text=True).stdout
    entries = json.loads(out)
    for name, e in sorted(entries.items()):
        print("%-26s %4d frames %7d bytes" % (name, e["frames"], e["bytes"]))
    MANIFEST.update(entries)


def main():
    global RECS
    os.makedirs(OUT, exist_ok=True)
    lt, RECS = read_pcap(os.path.join(CAPTURED, "tcp_basic.pcap"))
    assert lt == LT_ETHERNET
    snaplen_variants()
    base, dropped = base_no1m()
    write_pcap("tcp_basic-no1m.pcap", LT_ETHERNET, base, source="7.2/tcp_basic.pcap",
               notes=["frames %d-%d dropped: the segments of the 1 MiB message (the last data "
                      "of 10.199.0.3:16385 -> 10.199.0.2:32783) and the ACKs for them; the "
                      "Ethernet reference for the link-type variants and the base of reorder, "
                      "midstream and gap" % (dropped[0], dropped[-1])])
    reorder(base)
    midstream(base)
    gaps(base)
    linktypes(base)
    garbage_tcp()
    garbage_frames()
    ib_variants()
    nlmon_ls()
    ib_crafted()
    MANIFEST["_about"] = {
        "script": "scripts/make-crafted-pcaps.py",
        "frames": "numbered from 1 as tcpdump and tshark do; 'base frame' is a frame of the "
                  "source capture",
        "offsets": "stream offsets count from 0 at the first byte after the SYN (tcpdump's "
                   "relative sequence number minus 1)"}
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        json.dump(MANIFEST, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
