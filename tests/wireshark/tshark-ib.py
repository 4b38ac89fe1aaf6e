#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""tshark-ib.py [--all-valid] TSHARK_SH RDSDUMP CAPTURE - tshark's own InfiniBand
dissector (not the RDS plugin) as the independent reader of a crafted IB or
RoCEv2 capture, checked against rdsdump.

tshark gives every frame's BTH opcode, PSN and destination QP and the ICRC
(and on the native link the VCRC) as carried. tshark 4.0 does not verify
either CRC (there is no infiniband.invariant.crc.status), so this script
recomputes them from the frame bytes with zlib (IBTA 7.8.1 masks; RoCEv2:
rxe's recipe) and a bitwise CRC-16, independently of libwire. tshark 4.0
also cannot open LINKTYPE_INFINIBAND (247) files: a copy with link type
USER0 (147), mapped to its "infiniband" dissector, is read instead.

From tshark's opcodes and PSNs the script puts the SENDs of each QP
together itself and requires rdsdump --json to report exactly those: one
RDS fragment per SEND, a message record at the frame of its last SEND,
icrc_ok false exactly when a packet of it has a bad ICRC (a SEND that is
no RDS fragment: a frag_error note at its frame); PSNs must follow
on per QP, and rdsdump -w must keep every frame tshark sees. With
--all-valid every ICRC must verify as well (rds-conform craft --ib).
The capture's link type is INFINIBAND (247), Ethernet or raw IP.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

UDP_ROCE = 4791


def read_pcap(path):
    with open(path, "rb") as f:
        d = f.read()
    lt = struct.unpack("<I", d[20:24])[0]
    off, frames = 24, []
    while off + 16 <= len(d):
        incl = struct.unpack("<I", d[off + 8:off + 12])[0]
        frames.append(d[off + 16:off + 16 + incl])
        off += 16 + incl
    return lt, frames, d


def vcrc(b):
    c = 0xFFFF
    for x in b:
        c ^= x
        for _ in range(8):
            c = (c >> 1) ^ 0xD008 if c & 1 else c >> 1
    return ~c & 0xFFFF


def ib_crcs(fr):
    """(icrc ok, vcrc ok or None) of a native frame."""
    pktlen = (struct.unpack(">H", fr[4:6])[0] & 0x7FF) * 4
    m = bytearray(fr[:pktlen - 4])
    if fr[1] & 3 == 3:
        m[0:8] = b"\xff" * 8
        m[8] |= 0x0F
        for i in (9, 10, 11, 15, 52):
            m[i] = 0xFF
    else:
        m[0] |= 0xF0
        m[12] = 0xFF
    icrc = struct.unpack("<I", fr[pktlen - 4:pktlen])[0] == zlib.crc32(bytes(m))
    v = None
    if len(fr) >= pktlen + 2:
        v = struct.unpack("<H", fr[pktlen:pktlen + 2])[0] == vcrc(fr[:pktlen])
    return icrc, v, struct.unpack(">I", fr[pktlen - 4:pktlen])[0]


def roce_crc(fr, link_hdr):
    ip = fr[link_hdr:]
    if ip[0] >> 4 == 4:
        hl, tot = (ip[0] & 15) * 4, struct.unpack(">H", ip[2:4])[0]
        var = [1, 8, 10, 11]
    else:
        hl, tot = 40, 40 + struct.unpack(">H", ip[4:6])[0]
        var = [1, 2, 3, 7]
    m = bytearray(ip[:tot - 4])
    if ip[0] >> 4 == 6:
        m[0] |= 0x0F
    for i in var + [hl + 6, hl + 7, hl + 12]:
        m[i] = 0xFF
    ok = struct.unpack("<I", ip[tot - 4:tot])[0] == zlib.crc32(b"\xff" * 8 + bytes(m))
    return ok, None, struct.unpack(">I", ip[tot - 4:tot])[0]


def main():
    argv = sys.argv[1:]
    all_valid = argv[0] == "--all-valid"
    if all_valid:
        argv = argv[1:]
    tshark_sh, rdsdump, cap = argv[:3]
    lt, frames, raw = read_pcap(cap)
    tmp = tempfile.mkdtemp()
    src = cap
    args = []
    if lt == 247:
        src = os.path.join(tmp, "user0.pcap")
        with open(src, "wb") as f:
            f.write(raw[:20] + struct.pack("<I", 147) + raw[24:])
        args = ["-o", 'uat:user_dlts:"User 0 (DLT=147)","infiniband","0","","0",""']
    fields = ["frame.number", "infiniband.bth.opcode", "infiniband.bth.psn",
              "infiniband.bth.destqp", "infiniband.invariant.crc", "infiniband.variant.crc"]
    # Payload heuristics (RPC over RDMA, SMB Direct, ...) may take crafted
    # bytes for theirs and stop in an exception before the ICRC is shown.
    # (tshark 4.0's names; NVMe over RDMA has no heuristic name of its own)
    for h in ("rpcrdma_infiniband", "smb_direct_infiniband", "smcr_infiniband",
              "iser_infiniband", "lnet_ib", "sdp_infiniband", "fc_infiniband", "eth_over_ib"):
        args += ["--disable-heuristic", h]
    args += ["--disable-protocol", "nvme-rdma"]
    cmd = [tshark_sh, tmp, "-n", "-r", src] + args + [
        "-o", "infiniband.identify_payload:FALSE", "-T", "fields", "-E", "separator=,"]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode == 77:
        print(out.stdout.strip())
        sys.exit(77)
    if out.returncode:
        sys.exit("tshark failed: " + out.stderr)
    rows = [l.split(",") for l in out.stdout.splitlines() if l]
    errs = []
    if len(rows) != len(frames):
        errs.append("tshark read %d frames, the file has %d" % (len(rows), len(frames)))
    qps, sends = {}, []
    for row, fr in zip(rows, frames):
        num, op, psn, qp, icrc, vc = row
        if not icrc:
            errs.append("frame %s: tshark shows no ICRC" % num)
            continue
        op, psn, qp = int(op), int(psn), int(qp, 16)
        ok, vok, icrc_val = ib_crcs(fr) if lt == 247 else roce_crc(fr, 14 if lt == 1 else 0)
        if all_valid and not ok:
            errs.append("frame %s: the ICRC does not verify" % num)
        if int(icrc, 16) != icrc_val:
            errs.append("frame %s: tshark's ICRC %s, the bytes %08x" % (num, icrc, icrc_val))
        if lt == 247 and (vok is not True):
            errs.append("frame %s: VCRC %s does not verify" % (num, vc))
        if op & 0x1F in (0x11,):
            continue                        # a transport ACK carries no RDS
        q = qps.setdefault(qp, {"psn": None, "pkts": []})
        if q["psn"] is not None and psn != (q["psn"] + 1) & 0xFFFFFF:
            errs.append("frame %s: PSN %#x after %#x on QP %#x" % (num, psn, q["psn"], qp))
        q["psn"] = psn
        q["pkts"].append(ok)
        if op in (0x02, 0x04):              # RC SEND_LAST, SEND_ONLY
            sends.append((int(num), qp, all(q["pkts"])))
            q["pkts"] = []
        elif op not in (0x00, 0x01):
            errs.append("frame %s: opcode %#x is not an RC SEND" % (num, op))
    rd = subprocess.run([rdsdump, "-n", "-r", cap, "--json"], capture_output=True, text=True,
                        env=dict(os.environ, TZ="UTC"))
    recs = [json.loads(l) for l in rd.stdout.splitlines() if l.startswith("{")]
    # a SEND that is no RDS fragment at all (wrong on purpose) is a
    # frag_error note at that SEND's frame; anything else has no place here
    msgs = [m for m in recs if m["type"] == "msg" or m.get("note") == "frag_error"]
    others = [m for m in recs if m not in msgs]
    if others:
        errs.append("rdsdump: records other than messages: %s" % others)
    it = iter(sends)
    for m in msgs:
        got = []
        for _ in range(m.get("frags", 1)):
            got.append(next(it, None))
        if None in got:
            errs.append("rdsdump: message at frame %d has more fragments than tshark's SENDs"
                        % m["frame"])
            break
        last = got[-1]
        if m["frame"] != last[0] or m["qpn"] != last[1]:
            errs.append("rdsdump: record at frame %d qp %#x, tshark's SEND ends at frame %d "
                        "qp %#x" % (m["frame"], m["qpn"], last[0], last[1]))
        if m["type"] == "msg" and m["icrc_ok"] != all(s[2] for s in got):
            errs.append("rdsdump: frame %d icrc_ok %s, the bytes say %s"
                        % (m["frame"], m["icrc_ok"], all(s[2] for s in got)))
    rest = list(it)
    if rest:
        errs.append("tshark's SENDs ending at frames %s are in no rdsdump message"
                    % [s[0] for s in rest])
    kept = os.path.join(tmp, "kept.pcap")
    subprocess.run([rdsdump, "-r", cap, "-w", kept], capture_output=True)
    nkept = len(read_pcap(kept)[1]) if os.path.exists(kept) else 0
    if nkept != len(frames):
        errs.append("rdsdump -w kept %d of %d frames" % (nkept, len(frames)))
    shutil.rmtree(tmp)
    for e in errs:
        print(e)
    bad = sum(1 for s in sends if not s[2])
    print("%s: %d frames, %d SENDs (%d with a bad ICRC), %d rdsdump messages%s"
          % (os.path.basename(cap), len(rows), len(sends), bad, len(msgs),
             "" if errs else ": agree"))
    sys.exit(1 if errs else 0)


if __name__ == "__main__":
    main()
