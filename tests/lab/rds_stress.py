#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Oracle's rds-stress with RDMA, unmodified, over Soft-RoCE (issue 30):
kernel against kernel, through rdsrun (librds per process) against the
kernel in both roles, and librds against librds.

    rds_stress.py --kernel 6.1|7.2 --rdsrun PATH [--pairs kk,shim-active,...]
                  [--modes rw,oneway,...] [--seconds N] [--out DIR]

rds-stress is third-party and never in this tree: its build comes from
$RDS_STRESS or the newest ~/.cache/rds-tools-src/*/rds-stress
(tests/README.md says how to make it); without one the test fails saying
so. Two guests with rxe0, guest 1 at 10.199.0.2, guest 2 at 10.199.0.3.
Pairings, in this order (each runs every mode):

  kk            both kernels' AF_RDS; guest 1 active (-s), guest 2 passive
  shim-active   guest 1 under rdsrun (its rds_rdma and rds_tcp unloaded,
                so rdma_cm port 18634 is librds's) active, guest 2 kernel
  shim-passive  guest 1 under rdsrun passive, guest 2 kernel active
  librds        both under rdsrun (guest 2's modules unloaded too);
                guest 2 active

Every run is `rds-stress -v -V -T 4` (-T N with --seconds N; its own
checks: sequence, addresses and payload pattern of every message, and the
bytes an RDMA write left in the requester's buffer; -V makes it say so)
with the mode's options; a
mode passes when both sides exit 0, requests moved, no RDMA completion
failed and no compared buffer differed (with a comparison made where the
mode writes). A pairing must pass each mode kernel against kernel passes
in the same boot. GET_MR (--rdma-use-get-mr 1, one way) answers
EOPNOTSUPP on the kernels' FRMR devices: expected where a kernel
registers, required to pass where librds registers.
Each side saves `rdma res show cm_id` and `qp` from mid-run beside its log
(s<step>-g<guest>.rdma). Outputs in build/lab/rds_stress-<k>/. Exit: 0 pass, 1 fail, 77 skipped.
"""
import glob
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lab  # noqa: E402

A, B = "10.199.0.2", "10.199.0.3"
SECONDS = 4  # rds-stress -T (--seconds)
# name: rds-stress options (besides -v -V -T); one way where the name says
MODES = {
    "rw": "-D 64k -d 2",
    "oneway": "-o -D 64k -d 2",
    "read": "-M 1 -D 64k -d 2",
    "write": "-M 2 -D 64k -d 2",
    "once": "--rdma-use-once 1 -D 64k -d 2",
    "vectors": "-I 4 -D 16k -d 2",
    "big": "-D 1M -d 4",
    "tasks": "-D 1M -t 2 -d 4",
    "nofence": "--rdma-use-fence 0 -D 64k -d 2",
    "getmr": "-o --rdma-use-get-mr 1 -D 64k -d 2",
}
# pairing: (guest 1's side, guest 2's side, active guest); "k" kernel, "s" rdsrun
PAIRS = {
    "kk": ("k", "k", 1),
    "shim-active": ("s", "k", 1),
    "shim-passive": ("s", "k", 2),
    "librds": ("s", "s", 2),
}
# What fails through rdsrun and why (docs/shim.md, "rds-stress over IB"):
# judged as failing, so that a fix shows as a failure to update this.
KNOWN = {
    # two tasks are two processes on one address: per process the second
    # cannot bind it (one process per address), and through rdsd RDMA
    # answers EOPNOTSUPP
    ("shim-active", "tasks"), ("shim-passive", "tasks"), ("librds", "tasks"),
}
# the modes where only the active side sends requests (and registers)
ONEWAY = {"oneway", "getmr"}
# the modes a pairing writes into the requester's buffer, which rds-stress compares
WRITES = {"rw", "oneway", "write", "once", "vectors", "big", "tasks", "nofence", "getmr"}

DRIVER = r'''
import os, subprocess, sys, time
D = os.environ["LAB_DIR"]
ME = int(os.environ["LAB_ID"])
STEPS = %(steps)r
SECONDS = %(seconds)r
RDSRUN = %(rdsrun)r
FIRST = %(first)r
A, B = %(a)r, %(b)r
BIN = os.path.join(D, "rds-stress")
''' + lab.guest_flags(300, 0.2) + lab.GUEST_RXE + r'''
def listening(port):
    for f in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = open(f).read().split("\n")[1:]
        except OSError:
            continue
        for r in rows:
            w = r.split()
            if len(w) > 3 and w[1].endswith(":%%04X" %% port) and w[3] == "0A":
                return True
    return False

def snapshot(i):
    """rdma_cm's IDs and the QPs mid-run, for a step that moved nothing."""
    with open(os.path.join(D, "s%%d-g%%d.rdma" %% (i, ME)), "w") as f:
        for what in ("cm_id", "qp"):
            subprocess.run(["rdma", "res", "show", what], stdout=f, stderr=subprocess.STDOUT)

wait_rxe()
unloaded = False
for i, (pair, mode, g1, g2, active, opts) in enumerate(STEPS):
    side = g1 if ME == 1 else g2
    if side == "s" and not unloaded:
        for m in ("rds_rdma", "rds_tcp"):
            p = subprocess.run(["rmmod", m], capture_output=True, text=True)
            print("rmmod %%s: %%d %%s" %% (m, p.returncode, p.stderr.strip()), flush=True)
        unloaded = True
    me = A if ME == 1 else B
    peer = B if ME == 1 else A
    port = str(4000 + 20 * i)
    cmd = [BIN, "-r", me, "-p", port]
    if ME == active:
        cmd += ["-s", peer, "-v", "-V", "-T", SECONDS] + opts.split()
    if side == "s":
        cmd = [RDSRUN, "--force"] + cmd
    log = open(os.path.join(D, "s%%d-g%%d.log" %% (i, ME)), "w")
    env = dict(os.environ, RDSRUN_DAEMON="0", ASAN_OPTIONS="detect_leaks=0")
    if side == "s" and FIRST:
        env["LD_PRELOAD"] = FIRST    # a sanitized shim's runtime, first
    if ME == active:
        wait_flag("p%%d" %% i)
        p = subprocess.Popen(["timeout", "120"] + cmd, stdout=log, stderr=subprocess.STDOUT,
                             env=env)
        time.sleep(2 + int(SECONDS) / 2)   # its tasks start 2 s after the options
        snapshot(i)
        rc = p.wait()
        flag("a%%d" %% i)
        wait_flag("d%%d" %% i)
    else:
        p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env,
                             start_new_session=True)
        # the active side connects to its TCP port at once: wait for the
        # listener (a loaded host's guest under rdsrun takes seconds to get there)
        until = time.time() + 30
        while time.time() < until and p.poll() is None and not listening(int(port)):
            time.sleep(0.2)
        flag("p%%d" %% i)
        time.sleep(2 + int(SECONDS) / 2)
        snapshot(i)
        wait_flag("a%%d" %% i)
        try:
            rc = p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            rc = "hung"
        try:
            os.killpg(p.pid, 9)    # its tasks too: the next step binds the address
        except ProcessLookupError:
            pass
        p.wait()
        flag("d%%d" %% i)
    print("STEP %%d %%s %%s rc %%s" %% (i, pair, mode, rc), flush=True)
'''

ROLE = r'''
python3 - <<'PY' || exit 3
%(driver)s
PY
'''


def find_binary():
    """The rds-stress build to run: $RDS_STRESS, else the newest under
    ~/.cache/rds-tools-src; None when there is none."""
    path = os.environ.get("RDS_STRESS")
    if path:
        return path if os.access(path, os.X_OK) else None
    found = glob.glob(os.path.expanduser("~/.cache/rds-tools-src/*/rds-stress"))
    return max(found, key=os.path.getmtime) if found else None


def judge_side(text, mode, active):
    """What is wrong with one side's rds-stress output |text| in |mode|
    (|active|: the side that ran -s): a list of reasons, empty when none."""
    bad = []
    fails = len(re.findall(r"compare fail", text))
    if fails:
        bad.append("%d compare failures" % fails)
    rdma_failed = re.findall(r"(?:RDMA|SEND) failed: .*", text)
    if rdma_failed:
        bad.append("%d failed completions (%s)" % (len(rdma_failed), rdma_failed[0]))
    if active:
        m = re.search(r"^\s*\d+\s+(\d+)\s+(\d+)\s.*\(average\)", text, re.M)
        if not m or int(m.group(1)) == 0:
            bad.append("no requests moved")
    return bad


def judge_step(share, i, mode, active, rcs):
    """(verdict, detail) of step |i|: "pass", "fail", or "getmr-eopnotsupp"
    when the registering side's RDS_GET_MR answered EOPNOTSUPP."""
    texts = {}
    for g in (1, 2):
        p = os.path.join(share, "s%d-g%d.log" % (i, g))
        texts[g] = open(p, errors="replace").read() if os.path.exists(p) else ""
    both = texts[1] + texts[2]
    if "RDS_GET_MR) failed" in both and "errno: 95" in both:
        return "getmr-eopnotsupp", "RDS_GET_MR: EOPNOTSUPP"
    bad = ["guest %d exit %s" % (g, rcs.get(g)) for g in (1, 2) if rcs.get(g) != "0"]
    for g in (1, 2):
        bad += ["guest %d: %s" % (g, b) for b in judge_side(texts[g], mode, g == active)]
    requesters = (active,) if mode in ONEWAY else (1, 2)
    if mode in WRITES and not any("compare pass" in texts[g] for g in requesters):
        bad.append("no RDMA write compared")
    if bad:
        tail = [ln for ln in both.splitlines() if not ln.startswith(("RDS ", "ACK", "Requesting",
                                                                      "compare pass"))]
        return "fail", "; ".join(bad) + " | " + " / ".join(tail[-6:])
    return "pass", ""


def verdicts(share, steps, out_text):
    """{(pair, mode): (verdict, detail)} from the guests' STEP lines."""
    rcs = {}
    for g, text in out_text.items():
        for m in re.finditer(r"^STEP (\d+) (\S+) (\S+) rc (\S+)", text, re.M):
            rcs.setdefault(int(m.group(1)), {})[g] = m.group(4)
    res = {}
    for i, (pair, mode, _, _, active, _) in enumerate(steps):
        if i not in rcs:
            res[(pair, mode)] = ("fail", "step never ran")
            continue
        res[(pair, mode)] = judge_step(share, i, mode, active, rcs[i])
    return res


def matrix_fails(res, pairs, modes):
    """The failures of the matrix |res|: kernel against kernel must pass
    every mode but GET_MR (there EOPNOTSUPP); another pairing must pass
    each mode kk passes, and GET_MR where librds registers, and fail
    what KNOWN lists."""
    fails = []
    for pair in pairs:
        for mode in modes:
            got, why = res.get((pair, mode), ("fail", "not run"))
            kk = res.get(("kk", mode), (None,))[0]
            if (pair, mode) in KNOWN:
                want = "fail"
            elif mode == "getmr":
                kernel_registers = PAIRS[pair][PAIRS[pair][2] - 1] == "k"
                want = "getmr-eopnotsupp" if kernel_registers else "pass"
            else:
                want = "pass" if pair == "kk" or kk in (None, "pass") else kk
            if got != want:
                fails.append("%s %s: %s (want %s) %s" % (pair, mode, got, want, why))
    return fails


def boot(kernel, rdsrun, binary, pairs, modes, out, log, name):
    """One boot of two guests running |pairs| by |modes|; returns
    (results, failures of the boot itself)."""
    run_dir, share = lab.run_share(out, name, (binary,))
    steps = [(p, m, PAIRS[p][0], PAIRS[p][1], PAIRS[p][2], MODES[m])
             for p in pairs for m in modes]
    driver = DRIVER % {"steps": steps, "rdsrun": os.path.abspath(rdsrun), "a": A, "b": B,
                       "first": os.environ.get("SHIM_PRELOAD_FIRST", ""), "seconds": str(SECONDS)}
    fails, res = [], {}
    with lab.Lab(kernel, 2, True, None, keep=share) as l, l.judging(fails, name, tail=2000):
        for g in (1, 2):
            l.role(g, ROLE % {"driver": driver})
        l.start()
        t0 = time.time()
        rcs = l.wait(60 + 40 * len(steps))
        log("%s: guests %s after %.0f s" % (name, rcs, time.time() - t0))
        outs = {1: l.output(1), 2: l.output(2)}
        log("guest 1:\n%s\nguest 2:\n%s" % (outs[1], outs[2]))
        res = verdicts(share, steps, outs)
        fails += ["%s: guest %d role exit %s" % (name, g, rcs.get(g))
                  for g in (1, 2) if rcs.get(g) != 0]
    return res, fails


def run(kernel, rdsrun, binary, pairs, modes, out, log):
    """A boot for each set of pairings that loads the same modules: 7.2
    panics when rds_rdma is unloaded after it ran a connection
    (docs/kernel-behaviour.md), and rdsrun's side needs it unloaded."""
    res, fails = {}, []
    groups = (["kk"], ["shim-active", "shim-passive"], ["librds"])
    for group in ([p for p in pairs if p in g] for g in groups):
        if group:
            name = "rds_stress-%s-%s" % (kernel, group[0])
            r, f = boot(kernel, rdsrun, binary, group, modes, out, log, name)
            res.update(r)
            fails += f
    for (pair, mode), (v, why) in sorted(res.items()):
        log("MATRIX %s %-12s %-8s %s %s" % (kernel, pair, mode, v, why))
    return fails + matrix_fails(res, pairs, modes)


def main():
    global SECONDS
    ap = lab.arg_parser()
    ap.add_argument("--rdsrun", required=True)
    ap.add_argument("--pairs", default=",".join(PAIRS))
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--seconds", type=int, default=SECONDS,
                    help="rds-stress -T, the run's length (default %(default)s)")
    a, out, log = lab.parse(ap)
    SECONDS = a.seconds
    binary = find_binary()
    if not binary:
        log("FAIL: no rds-stress build: set RDS_STRESS or build one into "
            "~/.cache/rds-tools-src/<commit>/ (tests/README.md, \"Oracle's rds-stress\")")
        return 1
    log("rds-stress: %s" % binary)
    pairs = [p for p in a.pairs.split(",") if p]
    modes = [m for m in a.modes.split(",") if m]
    bad = [x for x in pairs if x not in PAIRS] + [x for x in modes if x not in MODES]
    if bad:
        log("FAIL: unknown pairing or mode: %s" % ", ".join(bad))
        return 1
    return lab.verdict(run(a.kernel, a.rdsrun, binary, pairs, modes, out, log), log, a.kernel)


if __name__ == "__main__":
    sys.exit(main())
