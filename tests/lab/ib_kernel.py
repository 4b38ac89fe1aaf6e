#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""librds on the IB transport against a real kernel's rds_rdma (issue 17).

    ib_kernel.py --kernel 6.1|7.2 --ibpeer PATH [--out DIR]

Two guests with Soft-RoCE (rxe0), booted twice. One guest unloads its
own rds_rdma, so rdma_cm port 18634 is librds's, and runs ibpeer (librds,
IB transport alone) bound to port 4000; the other runs the kernel's
AF_RDS over IB (SO_RDS_TRANSPORT = RDS_TRANS_IB) on port 5000.

  active:  ibpeer at the smaller address (10.199.0.2) speaks first, so it
           connects: 3 pings answered by the kernel's pongs; one message
           of each size in SIZES to the kernel, checked there byte for
           byte and answered with their CRC-32; the same sizes back from
           the kernel, checked by ibpeer and answered with its CRC-32;
  passive: ibpeer at the larger address (10.199.0.3); the kernel speaks
           first, so it connects to ibpeer's listener: the kernel's
           sizes, then the pings, then ibpeer's sizes.

The version negotiated is written down from ibpeer's counters.
Each capture (RoCEv2) is checked for what librds put on the wire: one
REQ/REP/RTU to service 18634 with 3.1 private data both ways (mask 0x0003,
the right addresses, no ack_seq or credit), every frame of ours with a
valid non-zero h_csum, each message in max(1, ceil(len / 4096)) frames
that all carry its header, all but the last exactly 4096, SOLICITED on
the last and only there, h_ack piggy-backed, ACK-only frames well formed,
sequence numbers 1, 2, ..., no extension headers, ACK_REQUIRED on the
first message and every 9th.
Captures and outputs stay in build/lab/ib_kernel-<k>-<layout>/.
Exit: 0 pass, 1 fail, 77 skipped (not root, outside CI).
"""
import argparse
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lab  # noqa: E402
import rdscap  # noqa: E402
from checks import ib_group_messages  # noqa: E402

A, B = "10.199.0.2", "10.199.0.3"
SIZES = [0, 1, 4095, 4096, 4097, 65536, 1 << 20]
PINGS = 3
LOST = "the capture lost RoCE packets"

COMMON = r'''
import os, subprocess, time, zlib
D = os.environ["LAB_DIR"]
SIZES = %r

def flag(name):
    open(os.path.join(D, name), "w").close()

def wait_flag(name, timeout=300):
    t = time.time() + timeout
    while not os.path.exists(os.path.join(D, name)):
        assert time.time() < t, "peer never got to " + name
        time.sleep(0.1)

def wait_rxe():
    for _ in range(120):
        out = subprocess.run(["rdma", "link"], capture_output=True, text=True).stdout
        if "ACTIVE" in out:
            print("rdma:", out.strip(), flush=True)
            return
        time.sleep(0.5)
    raise SystemExit("rxe0 never became ACTIVE")

def pattern(tag, i, n):
    block = bytes(((k * k + 7 * k + 13 * i + 31 * ord(tag[0]) + ord(tag[1])) & 0xff)
                  for k in range(251))
    return (block * (n // 251 + 1))[:n]
''' % (SIZES,)

PEER_ROLE = r'''
python3 - <<'PY'
%s
wait_rxe()
p = subprocess.run(["rmmod", "rds_rdma"], capture_output=True, text=True)
print("rmmod rds_rdma:", p.returncode, p.stderr.strip(), flush=True)
args = [] if p.returncode == 0 else ["--no-listen"]
wait_flag("ready_kernel")
env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
rc = None
for attempt in range(20):
    with open(os.path.join(D, "ibpeer.out"), "w") as out:
        rc = subprocess.call(["/run/lab/ibpeer", "--bind", "%s", "--port", "4000",
                              "--peer", "%s", "--peer-port", "5000", "--pings", "%d",
                              "--timeout", "240",
                              "--ready-file", os.path.join(D, "ready_peer")] + args + %r,
                             stdout=out, stderr=subprocess.STDOUT, env=env)
    text = open(os.path.join(D, "ibpeer.out")).read()
    # the GID table may lag behind the link state
    if rc == 0 or "rdsu_io_new" not in text:
        break
    print("ibpeer set-up failed, again:", text.strip(), flush=True)
    time.sleep(1)
open(os.path.join(D, "ibpeer.rc"), "w").write("%%d\n" %% rc)
print("ibpeer exit", rc, flush=True)
flag("done_peer")
wait_flag("done_kernel", 60)
PY
'''

KERNEL_ROLE = r'''
python3 - <<'PY'
%s
import errno, socket
SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_IB = 276, 8, 0
SO_SNDBUFFORCE, SO_RCVBUFFORCE = 32, 33
wait_rxe()
s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
s.setsockopt(SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_IB)
s.setsockopt(socket.SOL_SOCKET, SO_SNDBUFFORCE, 8 << 20)
s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 8 << 20)
for i in range(60):
    try:
        s.bind(("%s", 5000))
        break
    except OSError as e:
        if e.errno != errno.EADDRNOTAVAIL or i == 59:
            raise
        time.sleep(0.5)
s.settimeout(240)
flag("ready_kernel")
PEER = ("%s", 4000)

def recv_sizes():
    crc = 0
    for i, n in enumerate(SIZES):
        data, addr = s.recvfrom(2 << 20)
        assert addr == PEER, addr
        assert data == pattern("a2b", i, n), "a2b %%d: %%d bytes, want %%d" %% (i, len(data), n)
        crc = zlib.crc32(data, crc)
        print("received a2b", i, len(data), flush=True)
    s.sendto(b"%%08x" %% crc, PEER)

def send_sizes():
    crc = 0
    for i, n in enumerate(SIZES):
        d = pattern("b2a", i, n)
        s.sendto(d, PEER)
        crc = zlib.crc32(d, crc)
    data, addr = s.recvfrom(100)
    assert addr == PEER and data == b"%%08x" %% crc, ("b2a digest", addr, data, crc)
    print("digest ok b2a", flush=True)

if %r:
    # Only once ibpeer listens: before that this guest's REQ would meet
    # the other's own rds_rdma (not yet unloaded), which takes and acks
    # the first messages for a port nobody bound.
    wait_flag("ready_peer")
    send_sizes()
    recv_sizes()
else:
    recv_sizes()
    send_sizes()
wait_flag("done_peer")
flag("done_kernel")
PY
'''


def check_capture(path, fails, me=A, kern=B, passive=False):
    cap = rdscap.analyse(path)
    if cap["ib_psn_gaps"]:
        fails.append("%s: %r" % (LOST, cap["ib_psn_gaps"][:3]))
        return
    cm = cap["ib_cm"]
    names = [m["msg"] for m in cm]
    if names[:3] != ["REQ", "REP", "RTU"]:
        fails.append("CM exchange %s, want REQ REP RTU" % names[:6])
        return
    req, rep = cm[0], cm[1]
    active, passive_end = (kern, me) if passive else (me, kern)
    if (req["src"], req["dst"]) != (active, passive_end) or \
            req["service_id"] != "0x00000000010648ca":
        fails.append("REQ %s -> %s service %s" % (req["src"], req["dst"], req["service_id"]))
    for m, (s, d) in ((req, (active, passive_end)), (rep, (passive_end, active))):
        pd = m["rds_pd"] or {}
        want = dict(saddr=s, daddr=d, major=3, minor=1, minor_mask=3, tos=0, ack_seq=0, credit=0)
        if any(pd.get(k) != v for k, v in want.items()):
            fails.append("%s private data %r" % (m["msg"], pd))
    mine = [f for f in cap["ib_frames"] if f["src"] == me]
    if not mine:
        fails.append("no RDS frame of ours in the capture")
        return
    bad = [f for f in mine if not f["csum_ok"] or f["csum"] == 0]
    if bad:
        fails.append("%d frames of ours with a bad or zero h_csum" % len(bad))
    msgs = [m for m in ib_group_messages(cap["ib_frames"]) if m["src"] == me]
    for m in msgs:
        fs = m["frames"]
        want = max(1, -(-m["len"] // 4096))
        lens = [f["frag_len"] for f in fs]
        if len(fs) != want or any(n != 4096 for n in lens[:-1]) or \
                lens[-1] != m["len"] - 4096 * (want - 1):
            fails.append("seq %d len %d framed as %s" % (m["seq"], m["len"], lens))
        # SOLICITED on the packet that ends the message's last frame only
        se = [f["se"][-1] for f in fs]
        if se != [0] * (len(fs) - 1) + [1]:
            fails.append("seq %d len %d: SOLICITED on frames %s" % (m["seq"], m["len"], se))
        if m["kind"] == "ack" and (m["seq"] or m["len"] or m["flags"] or m["ack"] == 0):
            fails.append("ACK-only frame %r" % m)
    seqd = [m for m in msgs if m["kind"] not in ("ack", "cong")]
    if not any(m["ack"] for m in seqd):
        fails.append("no h_ack piggy-backed on our messages")
    if [m["seq"] for m in seqd] != list(range(1, len(seqd) + 1)):
        fails.append("our seqs %s" % [m["seq"] for m in seqd])
    # IB: no probe extension headers; ACK_REQUIRED on the first message
    # and every 9th after it (max_unacked_packets 8)
    if any(m["exthdr"] != "0" * 32 for m in msgs):
        fails.append("an extension header from librds on IB")
    flagged = [m["seq"] for m in seqd if m["flags"] & 0x02]
    if flagged != [q for q in range(1, len(seqd) + 1) if q % 9 == 1]:
        fails.append("ACK_REQUIRED on %s" % flagged)
    return "%d frames in %d messages from librds, %d ACK-only" % (
        len(mine), len(msgs), sum(1 for m in msgs if m["kind"] == "ack"))


LAYOUTS = (("active", A, B, False), ("passive", B, A, True))


def run_layout(kernel, ibpeer, out, name, me, kern, passive, log):
    """One boot of the two guests; returns the list of failures."""
    run_dir, share = lab.run_share(out, "ib_kernel-%s-%s" % (kernel, name), (ibpeer,))
    fails = []
    guest = {me: 1 if me == A else 2, kern: 1 if kern == A else 2}
    with lab.Lab(kernel, 2, True, os.path.join(run_dir, "capture.pcap"), keep=share) as l:
        try:
            l.role(guest[me], PEER_ROLE % (COMMON, me, kern, PINGS,
                                           ["--passive"] if passive else []))
            l.role(guest[kern], KERNEL_ROLE % (COMMON, kern, me, passive))
            l.start()
            rcs = l.wait(600)
            log("%s: guests %s" % (name, rcs))
            for g in (1, 2):
                log("%s: guest %d:\n%s" % (name, g, l.output(g)))
                if rcs.get(g) != 0:
                    fails.append("%s: guest %d role exit %s" % (name, g, rcs.get(g)))
            p = os.path.join(share, "ibpeer.out")
            text = open(p).read() if os.path.exists(p) else ""
            log("%s: ibpeer:\n%s" % (name, text))
            if "ibpeer: done" not in text:
                fails.append("%s: ibpeer did not finish" % name)
            pongs = re.findall(r"^ibpeer: pong \d+", text, re.M)
            if len(pongs) != PINGS:
                fails.append("%s: %d pongs, want %d" % (name, len(pongs), PINGS))
            if "a2b digest ok" not in text or "digest ok b2a" not in l.output(guest[kern]):
                fails.append("%s: a digest is missing" % name)
            m = re.search(r"^ibpeer: version (\d+)\.(\d+) .*", text, re.M)
            if not m:
                fails.append("%s: no counters line" % name)
            else:
                log("%s: negotiated with %s: RDS/IB %s.%s (%s)" % (
                    name, kernel, m.group(1), m.group(2), m.group(0)))
                if (m.group(1), m.group(2)) != ("3", "1"):
                    fails.append("%s: version %s.%s, the kernel answers 3.1" % (
                        (name,) + m.groups()))
            summary = check_capture(os.path.join(run_dir, "capture.pcap"), fails, me, kern,
                                    passive)
            if summary:
                log("%s: capture: %s" % (name, summary))
        except Exception as e:  # noqa: BLE001 - any failure is reported, the lab cleans up
            fails.append("%s: %s: %s" % (name, type(e).__name__, e))
        if fails:
            for g in (1, 2):
                print("--- %s console %d:\n%s" % (name, g, l.console(g)[-2000:]))
    return fails


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", required=True, choices=sorted(lab.KERNELS))
    ap.add_argument("--ibpeer", required=True)
    ap.add_argument("--out", default=None)
    ap.add_argument("--layout", choices=[x[0] for x in LAYOUTS], default=None,
                    help="run one layout only")
    a = ap.parse_args()
    rc = lab.root_or_skip()
    if rc is not None:
        return rc
    out = a.out or os.path.join(HERE, "..", "..", "build", "lab")
    t0 = time.time()

    def log(msg):
        print("[%5.1f s] %s" % (time.time() - t0, msg), flush=True)

    fails = []
    for name, me, kern, passive in LAYOUTS:
        if a.layout not in (None, name):
            continue
        f = run_layout(a.kernel, a.ibpeer, out, name, me, kern, passive, log)
        # tcpdump on the bridge drops a packet now and then on a loaded
        # host, and a capture with holes cannot be judged: one more boot.
        if f and all(LOST in x for x in f):
            log("%s: %s; once more" % (name, f[0]))
            f = run_layout(a.kernel, a.ibpeer, out, name, me, kern, passive, log)
        fails += f
    for f in fails:
        log("FAIL: " + f)
    log("%s on %s" % ("FAIL" if fails else "PASS", a.kernel))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
