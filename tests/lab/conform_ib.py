#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""rds-conform over IB against a real kernel's rds_rdma (issue 17), in the lab.

    conform_ib.py --kernel 6.1|7.2 --conform PATH --rdsdump PATH [--out DIR]
    conform_ib.py --kernel 6.1 --conform PATH --rdsdump PATH --faults [--out DIR]

Two guests with Soft-RoCE (rxe0 on eth0); the host has no rdma_rxe, so the
suite runs in a guest too. Guest 1 (10.199.0.2) unloads its own rds_rdma,
so that nothing of its kernel answers on rdma_cm port 18634, and runs
`rds-conform --transport ib` with --pcap (tcpdump on eth0 per case, RoCEv2).
Guest 2 (10.199.0.3) is the peer: the kernel's rds_rdma with
`rds-conform agent --kernel --transport ib` beside it.

Asserted: the suite exits 0; every case's verdict is the one in EXPECT
(every departure from the rules NON-STRICT or INFO with its reason, as
docs/kernel-behaviour.md records it); every case has its capture, and
each opens in rdsdump, which finds RDS over RoCEv2 in it (at least the
connection's CM messages); and
`rds-conform craft --transport ib` sends a ping as an RC SEND and prints
the pong.

The ib/rdma/ cases run in the same boot: the agent maps regions with
RDS_CMSG_RDMA_MAP, frees them and hashes them after the suite's RDMA
WRITEs, and runs RDMA against the suite's memory with NOTIFY_ME (rxe in
both guests; the kernels' departures in EXPECT, as docs/kernel-behaviour.md
records them). By hand, --cases PREFIX runs only the clean run, of the
cases under PREFIX (e.g. --cases ib/rdma/).

--faults: guest 2 runs librds instead (`rds-conform agent --transport ib`,
its own rds_rdma unloaded too), once without a fault (every case must pass)
and once per seeded IB defect of the faulty-peer mode; the case in FAULTS
must FAIL against it, and no other case may FAIL. Exit: 0 pass, 1 fail, 77
skipped (not root, outside CI).
"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lab  # noqa: E402

TESTER, PEER = "10.199.0.2", "10.199.0.3"
CTL = PEER + ":18600"

# librds (the faulty-peer runs' clean one): what is not a PASS.
EXPECT_LIBRDS = {
    "ib/cm/4": "INFO",
    "ib/ack/4": "NON-STRICT",  # as the kernels: dp_ack_seq does not free what is requeued
}
# Both kernels: what is not a PASS.
EXPECT = {
    "ib/cm/4": "INFO",        # an observation only
    "ib/ack/4": "NON-STRICT",  # dp_ack_seq does not free what a reset queued again
    # RDMA over rxe (docs/kernel-behaviour.md, RDMA operations): the FRMR
    # covers whole pages, a plain RDS_FREE_MR and a used-once region
    # leave the r_key valid
    "ib/rdma/4": "NON-STRICT",
    "ib/rdma/5": "NON-STRICT",
    "ib/rdma/6": "NON-STRICT",
}
# Said in the actual outcome, both kernels.
SAYS = {
    "ib/cm/1": "3.1 from %s to %s" % (PEER, TESTER),
    "ib/cm/3": "consumer data 1",
    "ib/cong/1": "2 frames",
    "ib/rdma/1": "offset 256",
    "ib/rdma/3": "refused",
    "ib/rdma/7": "3 messages with RDMA",
}

# Each seeded IB defect of librds's faulty-peer mode and the case that
# must catch it.
FAULTS = {
    "ib-csum-bad": "ib/csum/1",
    "ib-csum-ignored": "ib/csum/2",
    "ib-no-ack": "ib/ack/2",
    "ib-ack-zero": "ib/ack/1",
    "ib-frag-mismatch": "ib/cong/1",
    "ib-frag-accept": "ib/frag/1",
    "ib-version": "ib/cm/1",
    "ib-version-accept": "ib/cm/3",
    "ib-ack-ignored": "ib/ack/4",
}

COMMON = r'''
import os, subprocess, time
D = os.environ["LAB_DIR"]
ENV = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
''' + lab.guest_flags(600) + lab.GUEST_RXE + r'''
def rmmod_rds_rdma():
    p = subprocess.run(["rmmod", "rds_rdma"], capture_output=True, text=True)
    print("rmmod rds_rdma:", p.returncode, p.stderr.strip(), flush=True)
'''

# One run per entry of RUNS (a name, and the agent's extra arguments).
PEER_ROLE = r'''
python3 - <<'PY'
%s
RUNS = %r
KERNEL = %r
wait_rxe()
if not KERNEL:
    rmmod_rds_rdma()
for name, args in RUNS:
    err = os.path.join(D, name + ".agent.err")
    with open(err, "w") as e:
        p = subprocess.Popen(["/run/lab/rds-conform", "agent", "--bind", "%s", "--ctl", "%s",
                              "--transport", "ib"] + args, stdout=subprocess.DEVNULL,
                             stderr=e, env=ENV)
    t = time.time() + 60
    while "ready" not in open(err).read() and p.poll() is None and time.time() < t:
        time.sleep(0.1)
    print(name, "agent:", open(err).read().strip(), flush=True)
    flag(name + ".ready")
    wait_flag(name + ".done", 900)
    if p.poll() is None:
        p.terminate()
    try:
        p.wait(10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    print(name, "agent exit", p.returncode, flush=True)
PY
'''

TESTER_ROLE = r'''
python3 - <<'PY'
%s
RUNS = %r
wait_rxe()
rmmod_rds_rdma()
for name, cases in RUNS:
    wait_flag(name + ".ready", 300)
    out = os.path.join(D, name)
    os.makedirs(out, exist_ok=True)
    argv = ["/run/lab/rds-conform", "--transport", "ib", "--peer", "%s", "--local", "%s",
            "--agent", "%s", "--timeout", "5000", "--json", "-o",
            os.path.join(out, "report.json"), "--pcap", os.path.join(out, "pcap")] + cases
    for attempt in range(10):
        with open(os.path.join(out, "progress.txt"), "w") as e:
            rc = subprocess.call(argv, stdout=subprocess.DEVNULL, stderr=e, env=ENV)
        text = open(os.path.join(out, "progress.txt")).read()
        # the GID table may lag behind the link state
        if rc != 2 or "address resolution" not in text:
            break
        time.sleep(1)
    open(os.path.join(out, "rc"), "w").write("%%d\n" %% rc)
    print(name, "suite exit", rc, flush=True)
    if name == "clean":
        # craft over IB: a crafted ping as an RC SEND, the pong printed
        with open(os.path.join(D, "craft.out"), "w") as o:
            rc = subprocess.call(["/run/lab/rds-conform", "craft", "--transport", "ib",
                                  "--to", "%s", "--from", "%s", "--kind", "ping",
                                  "--csum", "auto", "--wait", "3000"],
                                 stdout=o, stderr=subprocess.STDOUT, env=ENV)
        print("craft exit", rc, flush=True)
    flag(name + ".done")
PY
'''


def check_report(run_dir, name, rdsdump, want, says, fails, log, pcaps=True):
    """The report of run |name|: verdicts as |want| (default PASS), texts
    as |says|, a capture per case that rdsdump reads. Returns (exit code,
    {id: verdict}) or None."""
    out = os.path.join(run_dir, "share", name)
    rc_path = os.path.join(out, "rc")
    rep = os.path.join(out, "report.json")
    if not os.path.exists(rep):
        prog = os.path.join(out, "progress.txt")
        fails.append("%s: no report (%s)" % (name, open(prog).read().strip()[-500:]
                                              if os.path.exists(prog) else "no output"))
        return None
    try:
        doc = json.load(open(rep))
    except ValueError:
        prog = os.path.join(out, "progress.txt")
        fails.append("%s: the report is not JSON (%s)" % (name, open(prog).read().strip()[-800:]
                                                        if os.path.exists(prog) else "no output"))
        return None
    rc = int(open(rc_path).read()) if os.path.exists(rc_path) else None
    verdicts = {}
    for c in doc["cases"]:
        v = c["verdict"]
        verdicts[c["id"]] = v
        log("%s: %-10s %-10s %s%s" % (name, v, c["id"], c.get("actual", ""),
                                      (" [" + c["reason"] + "]") if c.get("reason") else ""))
        exp = want.get(c["id"], "PASS")
        if v != exp:
            fails.append("%s: %s %s, expected %s: %s / %s" % (
                name, c["id"], v, exp, c.get("actual"), c.get("reason")))
        if v in ("NON-STRICT", "INFO", "SKIP", "ERROR") and not c.get("reason"):
            fails.append("%s: %s %s without a reason" % (name, c["id"], v))
        say = says.get(c["id"])
        if say and say not in (c.get("actual") or ""):
            fails.append("%s: %s actual %r lacks %r" % (name, c["id"], c.get("actual"), say))
        if not pcaps:
            continue
        pcap = c.get("pcap") or ""
        host_pcap = os.path.join(out, "pcap", os.path.basename(pcap)) if pcap else ""
        if not pcap or not os.path.exists(host_pcap):
            fails.append("%s: %s has no capture" % (name, c["id"]))
            continue
        p = subprocess.run([rdsdump, "-r", host_pcap], capture_output=True, text=True)
        # every case's exchange has RoCEv2 in it: at least its CM
        if p.returncode != 0 or not re.search(r"^\S+ IB \S+ > \S+", p.stdout, re.M):
            fails.append("%s: rdsdump -r %s: exit %d, %s" % (
                name, os.path.basename(host_pcap), p.returncode,
                (p.stderr or p.stdout).strip()[:200]))
    return rc, verdicts


def run(kernel, conform, rdsdump, out, faults, log, only=None):
    # (name, the agent's arguments, the cases the suite runs)
    runs = [("clean", [], list(only or []))]
    if faults and not only:
        runs += [(f, ["--fault", f], [FAULTS[f]]) for f in sorted(FAULTS)]
    run_dir, share = lab.run_share(out, "conform_ib-%s%s" % (kernel, "-faults" if faults else ""),
                                   (conform,))
    log("runs: %s" % ", ".join(r[0] for r in runs))
    fails = []
    with lab.Lab(kernel, 2, True, os.path.join(run_dir, "capture.pcap"), keep=share) as l, \
            l.judging(fails):
        l.role(1, TESTER_ROLE % (COMMON, [(n, c) for n, _, c in runs], PEER, TESTER, CTL,
                                 PEER, TESTER))
        l.role(2, PEER_ROLE % (COMMON, [(n, (["--kernel"] if not faults else []) + a)
                                        for n, a, _ in runs], not faults, PEER, CTL))
        l.start()
        rcs = l.wait(1500 if faults else 800)
        for g in (1, 2):
            log("guest %d (exit %s):\n%s" % (g, rcs.get(g), l.output(g)))
            if rcs.get(g) != 0:
                fails.append("guest %d role exit %s" % (g, rcs.get(g)))
        for name, _, _ in runs:
            # the clean run: as the kernel's, with librds's own
            # answers; a faulty one: its case FAILs
            want = dict(EXPECT_LIBRDS if faults else EXPECT) if name == "clean" else \
                {FAULTS[name]: "FAIL"}
            if only and name == "clean":
                want = {k: v for k, v in want.items() if any(k.startswith(p) for p in only)}
            says = dict(SAYS) if name == "clean" else {}
            got = check_report(run_dir, name, rdsdump, want, says, fails, log)
            if got and got[0] != (0 if name == "clean" else 1):
                fails.append("%s: suite exit %s" % (name, got[0]))
        craft = os.path.join(share, "craft.out")
        text = open(craft).read() if os.path.exists(craft) else ""
        log("craft over IB:\n" + text)
        if "sent 48 bytes to %s:18634 over IB" % PEER not in text or \
                not re.search(r"^recv: pong .*> 4000", text, re.M):
            fails.append("craft --transport ib: no pong to the crafted ping")
    return fails


def main():
    ap = lab.arg_parser()
    ap.add_argument("--conform", required=True)
    ap.add_argument("--rdsdump", required=True)
    ap.add_argument("--faults", action="store_true",
                    help="librds's faulty-peer mode as the peer, one run per IB defect")
    ap.add_argument("--cases", action="append",
                    help="by hand: only the clean run, of the cases under this prefix")
    a, out, log = lab.parse(ap)
    fails = run(a.kernel, a.conform, a.rdsdump, out, a.faults, log, a.cases)
    return lab.verdict(fails, log, a.kernel + (" (faults)" if a.faults else ""))


if __name__ == "__main__":
    sys.exit(main())
