#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Reads a lab capture and lists the RDS messages in it.

An independent reading of the wire (no libwire), used by the lab scenarios
to state what a kernel did, and later to cross-check rdsdump. It expects
the lab's clean captures: classic pcap, Ethernet, IPv4, complete packets.

    rdscap.py FILE.pcap [--json]

RDS/TCP: each TCP connection to port 16385 is reassembled per direction by
sequence number (retransmitted bytes are counted, not duplicated) and cut
into RDS records. RDS over RoCEv2: RC SEND FIRST/MIDDLE/LAST/ONLY packets
are joined per destination QP into IB frames (48-byte RDS header + up to
4096 bytes), and CM MADs on QP1 are decoded far enough for the RDS private
data.
"""
import json
import struct
import sys

RDS_TCP_PORT = 16385
ROCE_PORT = 4791
HDR_LEN = 48
EXT_SIZES_7X = {0: 0, 1: 4, 2: 4, 3: 8, 4: 8, 5: 2, 6: 4, 8: 1}


def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        raise ValueError("%s: not a pcap file" % path)
    magic = struct.unpack("<I", data[:4])[0]
    if magic in (0xA1B2C3D4, 0xA1B23C4D):
        e = "<"
    elif magic in (0xD4C3B2A1, 0x4D3CB2A1):
        e = ">"
    else:
        raise ValueError("%s: not a classic pcap file" % path)
    nano = magic in (0xA1B23C4D, 0x4D3CB2A1)
    linktype = struct.unpack(e + "I", data[20:24])[0]
    if linktype != 1:
        raise ValueError("%s: link type %d, expected Ethernet" % (path, linktype))
    off = 24
    while off + 16 <= len(data):
        sec, frac, incl, orig = struct.unpack(e + "IIII", data[off:off + 16])
        off += 16
        pkt = data[off:off + incl]
        off += incl
        yield sec + frac / (1e9 if nano else 1e6), pkt, orig


def ipv4(pkt):
    """(src, dst, proto, payload) of an Ethernet/IPv4 packet, or None."""
    if len(pkt) < 34 or pkt[12:14] != b"\x08\x00":
        return None
    ip = pkt[14:]
    ihl = (ip[0] & 15) * 4
    total = struct.unpack(">H", ip[2:4])[0]
    src = ".".join(str(b) for b in ip[12:16])
    dst = ".".join(str(b) for b in ip[16:20])
    return src, dst, ip[9], ip[ihl:total], ip[:total]


def ext_list(ext):
    """Extension headers as a 7.x receiver reads them."""
    out, pos = [], 0
    while pos < 16:
        t = ext[pos]
        if t == 0 or t >= 16:
            break
        size = EXT_SIZES_7X.get(t, 0)
        if pos + 1 + size > 16:
            break
        val = ext[pos + 1:pos + 1 + size]
        item = {"type": t}
        if t == 5:
            item["npaths"] = struct.unpack(">H", val)[0]
        elif t == 6:
            item["gen_num"] = struct.unpack(">I", val)[0]
        elif t in (2, 3, 4, 1):
            item["raw"] = val.hex()
        out.append(item)
        pos += 1 + size
    return out


def rds_header(b):
    seq, ack, ln, sport, dport, flags, credit, pad, csum = struct.unpack(">QQIHHBB4sH", b[:32])
    return {"seq": seq, "ack": ack, "len": ln, "sport": sport, "dport": dport,
            "flags": flags, "credit": credit, "pad": pad.hex(), "csum": csum,
            "exthdr": b[32:48].hex(), "ext": ext_list(b[32:48])}


def kind(h, ib=False, frag_len=None):
    if ib and h["sport"] == 0 and h["dport"] == 0 and frag_len == 0:
        return "ack"
    if h["flags"] == 0x01:
        return "cong"
    if h["dport"] == 0:
        return "probe-ping" if h["sport"] == 1 else "ping"
    if h["sport"] == 0:
        return "probe-pong" if h["dport"] == 1 else "pong"
    return "data"


def csum_ok(b):
    s = 0
    for i in range(0, 48, 2):
        s += b[i] << 8 | b[i + 1]
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s == 0xFFFF


def cong_ports(payload):
    return [i * 8 + bit for i, byte in enumerate(payload) if byte
            for bit in range(8) if byte >> bit & 1]


# --------------------------------------------------------------------------
# RDS/TCP
# --------------------------------------------------------------------------

class Stream:
    """One direction of one TCP connection."""

    def __init__(self, src, sport, dst, dport):
        self.src, self.sport, self.dst, self.dport = src, sport, dst, dport
        self.isn = None
        self.segs = {}          # relative offset -> bytes
        self.retrans_bytes = 0
        self.fin = False
        self.rst = False
        self.times = []         # (relative end offset, time)
        self.syn_time = None    # SYN (client) or SYN-ACK (server) seen
        self.fin_time = None
        self.rst_time = None
        self.last_time = None

    def add(self, t, seq, flags, data):
        self.last_time = t
        if flags & 0x02:        # SYN
            self.isn = seq + 1
            if self.syn_time is None:
                self.syn_time = t
            return
        if self.isn is None:
            return              # started before the capture: not the lab's case
        off = (seq - self.isn) & 0xFFFFFFFF
        if data:
            if off in self.segs:
                self.retrans_bytes += len(data)
            self.segs[off] = max(self.segs.get(off, b""), data, key=len)
            self.times.append((off + len(data), t))
        if flags & 0x01:
            self.fin = True
            if self.fin_time is None:
                self.fin_time = t
        if flags & 0x04:
            self.rst = True
            if self.rst_time is None:
                self.rst_time = t

    def bytes(self):
        out = bytearray()
        for off in sorted(self.segs):
            d = self.segs[off]
            if off > len(out):
                break            # a gap: stop at what is contiguous
            out += d[len(out) - off:]
        return bytes(out)

    def time_at(self, end):
        for off, t in self.times:
            if off >= end:
                return t
        return None

    def messages(self):
        b = self.bytes()
        msgs, pos = [], 0
        while pos + HDR_LEN <= len(b):
            h = rds_header(b[pos:pos + HDR_LEN])
            end = pos + HDR_LEN + h["len"]
            if end > len(b):
                break
            m = dict(h, kind=kind(h), offset=pos, time=self.time_at(end))
            if m["kind"] == "cong" and h["len"] == 8192:
                m["congested"] = cong_ports(b[pos + HDR_LEN:end])
            m["payload_head"] = b[pos + HDR_LEN:pos + HDR_LEN + 16].hex()
            msgs.append(m)
            pos = end
        return msgs, len(b) - pos


def tcp_connections(packets):
    conns = {}               # (client, cport, server) -> {"c2s": Stream, "s2c": Stream}
    order = []
    for t, pkt, _ in packets:
        ip = ipv4(pkt)
        if not ip or ip[2] != 6:
            continue
        src, dst, _, seg, _ = ip
        sport, dport, seq, _, doff_flags = struct.unpack(">HHIIH", seg[:14])
        hl = (doff_flags >> 12) * 4
        flags = doff_flags & 0x3F
        data = seg[hl:]
        if dport == RDS_TCP_PORT:
            key, d = (src, sport, dst), "c2s"
        elif sport == RDS_TCP_PORT:
            key, d = (dst, dport, src), "s2c"
        else:
            continue
        if flags & 0x02 and not flags & 0x10 and key in conns and \
                conns[key]["c2s"].isn != (seq + 1) & 0xFFFFFFFF:
            # a new connection on a reused 4-tuple (a retransmitted SYN
            # carries the same ISN and is the same connection)
            conns[key + (len(order),)] = conns.pop(key)
        if key not in conns:
            conns[key] = {"c2s": Stream(key[0], key[1], key[2], RDS_TCP_PORT),
                          "s2c": Stream(key[2], RDS_TCP_PORT, key[0], key[1]),
                          "start": t}
            order.append(key)
        conns[key][d].add(t, seq, flags, data)
    result = []
    for key, c in sorted(conns.items(), key=lambda kv: kv[1]["start"]):
        entry = {"client": key[0], "client_port": key[1], "server": key[2],
                 "start": c["start"]}
        for d in ("c2s", "s2c"):
            msgs, tail = c[d].messages()
            entry[d] = msgs
            entry[d + "_tail"] = tail
            entry[d + "_retrans_bytes"] = c[d].retrans_bytes
            entry[d + "_rst"] = c[d].rst
            # Added for the reconnect scenario: how each direction ended.
            entry[d + "_fin"] = c[d].fin
            entry[d + "_fin_time"] = c[d].fin_time
            entry[d + "_rst_time"] = c[d].rst_time
        # The server answered the SYN (SYN-ACK seen): the connection was
        # established as far as the wire shows.
        entry["established"] = c["s2c"].syn_time is not None
        entry["end"] = max(t for t in (c["c2s"].last_time, c["s2c"].last_time, c["start"])
                           if t is not None)
        result.append(entry)
    return result


# --------------------------------------------------------------------------
# RoCEv2
# --------------------------------------------------------------------------

SEND_FIRST, SEND_MIDDLE, SEND_LAST, SEND_LAST_IMM, SEND_ONLY, SEND_ONLY_IMM = range(6)
UD_SEND_ONLY = 0x64
CM_ATTRS = {0x10: "REQ", 0x11: "MRA", 0x12: "REJ", 0x13: "REP", 0x14: "RTU",
            0x15: "DREQ", 0x16: "DREP"}


def cm_mad(mad, src, dst, t):
    if len(mad) < 24 or mad[1] != 0x07:
        return None
    attr = struct.unpack(">H", mad[16:18])[0]
    name = CM_ATTRS.get(attr, "0x%04x" % attr)
    body = mad[24:]
    m = {"time": t, "src": src, "dst": dst, "msg": name}
    if name == "REQ":
        m["service_id"] = "0x%016x" % struct.unpack(">Q", body[8:16])[0]
        m["local_qpn"] = struct.unpack(">I", body[32:36])[0] >> 8
        pd = body[140:232]       # 92 bytes: rdma_cm header (36), then RDS's
        cma = pd[:36]
        m["cma_ip_version"] = cma[1] >> 4
        m["rds_pd"] = rds_pd(pd[36:], 4 if cma[1] >> 4 == 4 else 6)
    elif name == "REP":
        m["local_qpn"] = struct.unpack(">I", body[12:16])[0] >> 8
        m["rds_pd"] = rds_pd(body[36:36 + 196], None)
    elif name == "REJ":
        m["reason"] = struct.unpack(">H", body[10:12])[0]
    return m


def rds_pd(b, family):
    if family is None:
        # A REP carries no address family; IPv4 addresses are 4 bytes and
        # the common part starts at 8.
        family = 4
    if family == 4:
        saddr, daddr, cmn = ".".join(map(str, b[0:4])), ".".join(map(str, b[4:8])), b[8:32]
    else:
        saddr, daddr, cmn = b[0:16].hex(), b[16:32].hex(), b[32:56]
    major, minor, mask, tos = struct.unpack(">BBHB", cmn[:5])
    ack_seq, credit = struct.unpack(">QI", cmn[8:20])
    return {"saddr": saddr, "daddr": daddr, "major": major, "minor": minor,
            "minor_mask": mask, "tos": tos, "ack_seq": ack_seq, "credit": credit}


def roce(packets):
    """CM messages, IB frames, and the RC SEND packets missing from the
    capture: per (src, dst, QP) flow, [src, dst, qpn, last PSN seen, next
    PSN seen] wherever the PSN jumps forward (the wire carried packets the
    capture did not keep)."""
    cm, frames, gaps, rc_resent = [], [], [], []
    partial, last = {}, {}
    for n, (t, pkt, _) in enumerate(packets, 1):   # n: pcap packet number
        ip = ipv4(pkt)
        if not ip or ip[2] != 17:
            continue
        src, dst, _, udp, _ = ip
        if struct.unpack(">H", udp[2:4])[0] != ROCE_PORT:
            continue
        bth = udp[8:20]
        op = bth[0]
        pad = (bth[1] >> 4) & 3
        dqpn = struct.unpack(">I", bth[4:8])[0] & 0xFFFFFF
        psn = struct.unpack(">I", bth[8:12])[0] & 0xFFFFFF
        body = udp[20:len(udp) - 4]
        if op == UD_SEND_ONLY and dqpn == 1:
            m = cm_mad(body[8:], src, dst, t)
            if m:
                m["pkt"] = n
                cm.append(m)
            continue
        if op > SEND_ONLY_IMM:
            continue
        k = (src, dst, dqpn)
        # A PSN at or behind the highest seen on this flow is the RC
        # layer resending (a timeout or NAK under load, go-back-N): the
        # receiving HCA drops it, so it is no new RDS frame.
        if k in last and ((psn - last[k]) & 0xFFFFFF == 0 or
                          (psn - last[k]) & 0xFFFFFF >= 0x800000):
            rc_resent.append([src, dst, dqpn, psn])
            continue
        if k in last and (psn - last[k]) & 0xFFFFFF != 1:
            gaps.append([src, dst, dqpn, last[k], psn])
        last[k] = psn
        if op in (SEND_LAST_IMM, SEND_ONLY_IMM):
            body = body[4:]
        if pad:
            body = body[:-pad]
        key = (src, dst, dqpn)
        # per packet of the frame: (BTH opcode, solicited event bit,
        # payload bytes, pcap packet number)
        pk = (op, bth[1] >> 7, len(body), n)
        if op in (SEND_FIRST, SEND_ONLY, SEND_ONLY_IMM):
            partial[key] = [body, psn, 1, [pk]]
        elif key in partial:
            partial[key][0] += body
            partial[key][2] += 1
            partial[key][3].append(pk)
        if op in (SEND_LAST, SEND_LAST_IMM, SEND_ONLY, SEND_ONLY_IMM) and key in partial:
            payload, psn0, npkts, pks = partial.pop(key)
            if len(payload) < HDR_LEN:
                frames.append({"time": t, "src": src, "dst": dst, "qpn": dqpn,
                               "runt": len(payload)})
                continue
            h = rds_header(payload[:HDR_LEN])
            frag = len(payload) - HDR_LEN
            frames.append(dict(h, time=t, src=src, dst=dst, qpn=dqpn, psn=psn0,
                               packets=npkts, frag_len=frag,
                               opcodes=[p[0] for p in pks], se=[p[1] for p in pks],
                               pkt_lens=[p[2] for p in pks], pkts=[p[3] for p in pks],
                               psn_contiguous=psn - psn0 == npkts - 1,
                               # congested ports' bit numbers within this
                               # fragment (a map's second frame: + 32768)
                               cong_bits=cong_ports(payload[HDR_LEN:])
                               if h["flags"] == 0x01 else None,
                               csum_ok=h["csum"] == 0 or csum_ok(payload[:HDR_LEN]),
                               kind=kind(h, True, frag)))
    return cm, frames, gaps, rc_resent


def ib_messages(frames):
    """Join IB frames into RDS messages per direction (kernel rules)."""
    msgs, cur = [], {}
    for f in frames:
        if "runt" in f:
            continue
        d = (f["src"], f["dst"])
        if f["kind"] == "ack":
            msgs.append(dict(f, frags=1))
            continue
        c = cur.get(d)
        if c is None:
            c = cur[d] = dict(f, frags=0, got=0)
        c["frags"] += 1
        c["got"] += f["frag_len"]
        if c["got"] >= c["len"]:
            msgs.append(c)
            del cur[d]
    return msgs


def analyse(path):
    packets = list(read_pcap(path))
    cm, frames, gaps, rc_resent = roce(packets)
    return {"file": path, "packets": len(packets),
            "tcp": tcp_connections(packets),
            "ib_cm": cm, "ib_frames": frames, "ib_messages": ib_messages(frames),
            "ib_psn_gaps": gaps, "ib_rc_resent": rc_resent}


def describe(a, out=sys.stdout):
    w = out.write
    w("%s: %d packets\n" % (a["file"], a["packets"]))
    for c in a["tcp"]:
        w("TCP %s:%d -> %s:16385\n" % (c["client"], c["client_port"], c["server"]))
        for d, arrow in (("c2s", "->"), ("s2c", "<-")):
            for m in c[d]:
                ext = " ".join("%d%s" % (e["type"], "=%d" % e["npaths"] if "npaths" in e else
                                         "=0x%08x" % e["gen_num"] if "gen_num" in e else "")
                               for e in m["ext"])
                w("  %s %-10s seq %-5d %5d -> %-5d len %-7d flags 0x%02x%s\n" %
                  (arrow, m["kind"], m["seq"], m["sport"], m["dport"], m["len"], m["flags"],
                   " ext " + ext if ext else ""))
    for m in a["ib_cm"]:
        w("IB CM %s %s -> %s %s\n" % (m["msg"], m["src"], m["dst"],
                                     json.dumps(m.get("rds_pd", ""))))
    for m in a["ib_messages"]:
        w("IB %s -> %s %-10s seq %-5d ack %-5d %5d -> %-5d len %-7d frags %d flags 0x%02x\n" %
          (m["src"], m["dst"], m["kind"], m["seq"], m["ack"], m["sport"], m["dport"],
           m["len"], m["frags"], m["flags"]))


def main(argv):
    if len(argv) < 2:
        print("usage: rdscap.py FILE.pcap [--json]", file=sys.stderr)
        return 2
    a = analyse(argv[1])
    if "--json" in argv:
        json.dump(a, sys.stdout, indent=1)
        print()
    else:
        describe(a)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
