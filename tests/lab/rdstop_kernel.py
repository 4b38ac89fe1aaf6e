#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""rdstop --kernel against a real kernel (issue 19), in the lab.

    rdstop_kernel.py --kernel 6.1|7.2 --rdstop PATH [--out DIR]

Two guests with RDS/TCP: guest 2 (10.199.0.3) pings guest 1 (10.199.0.2)
and sends it messages from port 5000 to port 4000; then each guest runs
`rdstop --kernel -b -n 2 -d 1` while its socket and the connection are up.
Asserted for each guest: rdstop exits 0 with two snapshots; both list the
connection (addresses, tcp, connected) with a path row on port 16385 and
the guest's socket; the counters the traffic must have moved are non-zero;
the second snapshot has rates; and the core counter list is the one of the
kernel's generation (7.x ends in mprds_catchup_tx0_retries, 6.x does not).
Outputs are kept in the run directory (build/lab/rdstop_kernel-<kernel>/).
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

G1, G2 = "10.199.0.2", "10.199.0.3"
MSGS = 5

COMMON = r'''
import os, socket, subprocess, sys, time
SOL_RDS = 276
SO_RDS_TRANSPORT = 8
RDS_TRANS_TCP = 2
D = os.environ["LAB_DIR"]

def rds_socket(port):
    s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
    s.setsockopt(SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_TCP)
    s.bind((os.environ["LAB_IP"], port))
    s.settimeout(60)
    return s

def flag(name):
    open(os.path.join(D, name), "w").close()

def wait_flag(name, timeout=180):
    t = time.time() + timeout
    while not os.path.exists(os.path.join(D, name)):
        assert time.time() < t, "peer never got to " + name
        time.sleep(0.05)

def rdstop(me):
    with open(os.path.join(D, "rdstop%d.out" % me), "w") as out, \
         open(os.path.join(D, "rdstop%d.err" % me), "w") as err:
        rc = subprocess.call(["/run/lab/rdstop", "--kernel", "-b", "-n", "2", "-d", "1"],
                             stdout=out, stderr=err)
    open(os.path.join(D, "rdstop%d.rc" % me), "w").write("%d\n" % rc)
    print("rdstop exit", rc)
'''

ROLE1 = r'''
python3 - <<'PY'
%s
s = rds_socket(4000)
flag("ready1")
for i in range(%d):
    data, addr = s.recvfrom(4096)
    assert addr == ("%s", 5000), addr
print("received all")
rdstop(1)
flag("done1")
wait_flag("done2")
PY
''' % (COMMON, MSGS, G2)

ROLE2 = r'''
python3 - <<'PY'
%s
s = rds_socket(5000)
wait_flag("ready1")
for i in range(3):
    s.sendto(b"", ("%s", 0))
    s.recvfrom(100)
for i in range(%d):
    s.sendto(b"x" * 1000, ("%s", 4000))
print("sent all")
time.sleep(1)
rdstop(2)
flag("done2")
wait_flag("done1")
PY
''' % (COMMON, G1, MSGS, G1)


def snapshots(text):
    """The snapshots of one rdstop -b output, each as {section: [lines]}."""
    out = []
    for chunk in re.split(r"\n(?=rdstop - )", text.strip()):
        snap, sec = {"": []}, ""
        for line in chunk.splitlines():
            if re.match(r"^[A-Z][A-Z ]+$", line):
                sec = line
                snap[sec] = []
            elif line.strip():
                snap[sec].append(line)
        out.append(snap)
    return out


def counters(snap):
    vals = {}
    for line in snap.get("COUNTERS", [])[1:]:
        f = line.split()
        vals[f[0]] = int(f[1])
    return vals


def check_guest(me, text, kernel, fails):
    local, peer, port = (G1, G2, 4000) if me == 1 else (G2, G1, 5000)
    snaps = snapshots(text)
    if len(snaps) != 2:
        fails.append("guest %d: %d snapshots, want 2" % (me, len(snaps)))
        return
    for n, snap in enumerate(snaps):
        where = "guest %d snapshot %d" % (me, n + 1)
        head = snap[""]
        if not head or not head[0].startswith("rdstop - kernel - "):
            fails.append("%s: no summary line" % where)
        conn = [l for l in snap.get("CONNECTIONS", [])
                if re.match(r"^%s\s+%s\s+tcp\s+connected" % (re.escape(local), re.escape(peer)), l)]
        if len(conn) != 1:
            fails.append("%s: connection %s -> %s not listed as connected tcp" % (where, local, peer))
        paths = [l for l in snap.get("CONNECTIONS", []) if l.startswith("  path ")]
        if not any(":16385" in l for l in paths):
            fails.append("%s: no path row on port 16385" % where)
        if not any(l.startswith("%s:%d " % (local, port)) for l in snap.get("SOCKETS", [])):
            fails.append("%s: socket %s:%d not listed" % (where, local, port))
        vals = counters(snap)
        names = list(vals)
        # guest 2 pings and sends, guest 1 answers and receives
        want = ["tcp_data_ready_calls", "recv_delivered"]
        want += ["recv_ping", "send_pong"] if me == 1 else ["send_queued"]
        for c in want:
            if not vals.get(c):
                fails.append("%s: counter %s is %r, want > 0" % (where, c, vals.get(c)))
        has_7x = "mprds_catchup_tx0_retries" in names
        if has_7x != kernel.startswith("7."):
            fails.append("%s: mprds_catchup_tx0_retries %s on %s" % (
                where, "listed" if has_7x else "missing", kernel))
    rates = snaps[1][""][1] if len(snaps[1][""]) > 1 else ""
    if "(over " not in rates:
        fails.append("guest %d: the second snapshot has no rates" % me)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", required=True, choices=sorted(lab.KERNELS))
    ap.add_argument("--rdstop", required=True)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    rc = lab.root_or_skip()
    if rc is not None:
        return rc
    out = a.out or os.path.join(HERE, "..", "..", "build", "lab")
    run_dir, share = lab.run_share(out, "rdstop_kernel-%s" % a.kernel, (a.rdstop,))
    t0 = time.time()

    def log(msg):
        print("[%5.1f s] %s" % (time.time() - t0, msg), flush=True)

    fails = []
    with lab.Lab(a.kernel, 2, False, os.path.join(run_dir, "capture.pcap"), keep=share) as l:
        try:
            l.role(1, ROLE1)
            l.role(2, ROLE2)
            l.start()
            rcs = l.wait(300)
            log("guests: %s" % rcs)
            for g in (1, 2):
                if rcs.get(g) != 0:
                    fails.append("guest %d role exit %s: %s" % (g, rcs.get(g), l.output(g)[-800:]))
                p = os.path.join(share, "rdstop%d.out" % g)
                rcp = os.path.join(share, "rdstop%d.rc" % g)
                if not os.path.exists(rcp):
                    fails.append("guest %d: rdstop did not run" % g)
                    continue
                text = open(p).read()
                log("guest %d rdstop:\n%s" % (g, text))
                r = int(open(rcp).read())
                if r != 0:
                    fails.append("guest %d: rdstop exit %d: %s" % (
                        g, r, open(os.path.join(share, "rdstop%d.err" % g)).read()))
                check_guest(g, text, a.kernel, fails)
        except Exception as e:  # noqa: BLE001 - any failure is reported, the lab cleans up
            fails.append("%s: %s" % (type(e).__name__, e))
            for g in (1, 2):
                print("--- console %d:\n%s" % (g, l.console(g)[-1500:]))
    for f in fails:
        log("FAIL: " + f)
    log("%s on %s" % ("FAIL" if fails else "PASS", a.kernel))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
