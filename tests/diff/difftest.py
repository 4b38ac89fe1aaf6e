#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""The differential AF_RDS suite (issue 31): rdsdiff's transcripts on the
kernel and through the shim, compared line by line.

    difftest.py shim --mode pp|rdsd --rdsdiff P --rdsrun P --rdsd P [--out DIR]
        rdsdiff through rdsrun (per process, or via an rdsd this script
        starts), in a network namespace it makes (127.0.0.1 and 10.199.0.2
        on lo), against the recorded kernel transcripts kernel-6.1.txt and
        kernel-7.2.txt; every difference must be in expected.txt.
    difftest.py kernel --kernel 6.1|7.2 --rdsdiff P [--update] [--out DIR]
        rdsdiff in a lab guest (tests/lab/lab.py) on the kernel's AF_RDS;
        its transcript must be the recorded one (--update: record it).
    difftest.py doc --rdsdiff P --shim-md docs/shim.md
        docs/shim.md's known differences and expected.txt name each other,
        and the counts docs/shim.md gives are the suite's.

A transcript is "== CASE" followed by one line per call, "STEP ret=..."
(see tests/diff/rdsdiff.c). expected.txt has one line per expected
difference: CASE | MODE | STEPS | DOC | WHY, where STEPS are the steps whose
lines differ (comma-separated; all written "?STEP" for a race that may or
may not show in one run), or "-" for a case that exercises DOC's departure
but whose transcript agrees (WHY says why it does not show).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "lab"))
import lab  # noqa: E402
KERNELS = ("6.1", "7.2")
A_ADDR = "127.0.0.1"
H_ADDR = "10.199.0.2"     # the lab's first guest's address, on lo here
MODES = ("pp", "rdsd")
# The lab label's short run on each kernel: one case of each kind of call.
SHORT = ["socket-types", "bind-errors", "loop-send-recv", "transport-loop", "transport-set",
         "info-10000", "info-10006", "info-fields", "cmsg-rdma-args", "zerocopy", "timestamp-sol-socket",
         "rxpath-latency", "congestion", "recv-flags", "send-errors", "sockopts-rds",
         "sockopts-socket", "ioctl", "fork"]


def parse_transcript(text):
    """{case: [(step, occurrence, line)]} in order."""
    cases, cur = {}, None
    for line in text.splitlines():
        line = line.rstrip()
        if line.startswith("== "):
            cur = line[3:].strip()
            cases[cur] = []
            continue
        if cur is None or not line:
            continue
        step = line.split()[0]
        n = sum(1 for s, _, _ in cases[cur] if s == step)
        cases[cur].append((step, n, line))
    return cases


def diff_steps(want, got):
    """The steps whose lines differ between two transcripts of one case."""
    w = {(s, n): l for s, n, l in want}
    g = {(s, n): l for s, n, l in got}
    return sorted({k[0] for k in set(w) | set(g) if w.get(k) != g.get(k)})


class Expected:
    def __init__(self, path):
        self.entries = []
        self.errors = []
        with open(path) as f:
            for i, line in enumerate(f, 1):
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                parts = [p.strip() for p in line.split("|")]
                if len(parts) != 5 or not all(parts):
                    self.errors.append("%s:%d: want CASE | MODE | STEPS | DOC | WHY" % (path, i))
                    continue
                case, mode, steps, doc, why = parts
                if mode not in MODES:
                    self.errors.append("%s:%d: mode %r is not pp or rdsd" % (path, i, mode))
                    continue
                self.entries.append({
                    "case": case, "mode": mode, "doc": doc, "why": why, "line": i,
                    "steps": None if steps == "-" else {s.strip().lstrip("?") for s in steps.split(",")},
                    # "?STEP": a race that may or may not show in a run
                    "maybe": steps != "-" and all(s.strip().startswith("?")
                                                  for s in steps.split(","))})

    def differing(self):
        return [e for e in self.entries if e["steps"] is not None]

    def for_case(self, case, mode):
        return [e for e in self.entries if e["case"] == case and e["mode"] == mode]


def compare(kernel_tx, shim_tx, mode, exp, kname, fails, used):
    """Every difference between the kernel's and the shim's transcripts is
    one of |exp|'s; the entries that matched are added to |used|."""
    for case, want in kernel_tx.items():
        got = shim_tx.get(case)
        if got is None:
            fails.append("%s: %s: no transcript through the shim" % (kname, case))
            continue
        steps = diff_steps(want, got)
        ents = exp.for_case(case, mode)
        if not steps:
            continue
        covered = set()
        for e in ents:
            if e["steps"] is None:
                continue
            hit = set(steps) & e["steps"]
            if hit:
                used.add(e["line"])
                covered |= hit
        for s in steps:
            if s not in covered:
                wl = [l for st, _, l in want if st == s]
                gl = [l for st, _, l in got if st == s]
                fails.append("%s: case %s, %s: step %s differs, not expected:\n  kernel: %s\n  shim:   %s"
                             % (kname, case, mode, s, " / ".join(wl) or "(none)",
                                " / ".join(gl) or "(none)"))
    for case in shim_tx:
        if case not in kernel_tx:
            fails.append("%s: case %s has no kernel transcript (run the lab test with --update)"
                         % (kname, case))


def load_kernel(k):
    path = os.path.join(HERE, "kernel-%s.txt" % k)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return parse_transcript(f.read())


def case_list(rdsdiff):
    return subprocess.run([rdsdiff, "--list"], check=True, capture_output=True,
                          text=True).stdout.split()


# ----------------------------------------------------------------------
# shim: per process or via rdsd, in a network namespace of our own
# ----------------------------------------------------------------------

def run_shim(a):
    if os.environ.get("DIFF_IN_NETNS") != "1":
        if os.geteuid() != 0:
            print("SKIP: needs root (a network namespace with an address on lo)")
            return 77
        env = dict(os.environ, DIFF_IN_NETNS="1")
        return subprocess.run(["unshare", "-n", sys.executable] + sys.argv, env=env).returncode
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    subprocess.run(["ip", "addr", "add", H_ADDR + "/32", "dev", "lo"], check=True)
    env = dict(os.environ, RDSRUN_FORCE="1", RDSRUN_DAEMON="1" if a.mode == "rdsd" else "0")
    # leaks of a case's process (sockets never closed) are not findings here
    env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":")
    if env.get("SHIM_PRELOAD_FIRST"):
        env["LD_PRELOAD"] = env["SHIM_PRELOAD_FIRST"]
    rdsd = None
    tmp = tempfile.mkdtemp(prefix="difftest-")
    try:
        if a.mode == "rdsd":
            name = "rdsd-difftest-%d" % os.getpid()
            env["RDSD_NAME"] = name
            denv = dict(env, LD_PRELOAD="")
            log = open(os.path.join(tmp, "rdsd.log"), "w+")
            rdsd = subprocess.Popen([a.rdsd, "-v"], env=denv, stdout=log, stderr=subprocess.STDOUT)
            for _ in range(200):
                log.seek(0)
                if "listening" in log.read():
                    break
                if rdsd.poll() is not None:
                    print("FAIL: rdsd did not start")
                    return 1
                time.sleep(0.05)
        cmd = [a.rdsrun, a.rdsdiff]
        for c in a.case or []:
            cmd += ["--case", c]
        cmd += [A_ADDR, H_ADDR]
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=240)
        out = p.stdout
        if p.returncode != 0:
            print(out + p.stderr)
            print("FAIL: rdsdiff exit %d" % p.returncode)
            return 1
    finally:
        if rdsd:
            lab.end(rdsd)
        subprocess.run(["rm", "-rf", tmp])
    if a.out:
        with open(os.path.join(a.out, "shim-%s.txt" % a.mode), "w") as f:
            f.write(out)
    shim_tx = parse_transcript(out)
    exp = Expected(os.path.join(HERE, "expected.txt"))
    fails = list(exp.errors)
    used = set()
    compared = 0
    for k in KERNELS:
        ktx = load_kernel(k)
        if ktx is None:
            fails.append("no tests/diff/kernel-%s.txt: run lab-diff-%s with --update" % (k, k))
            continue
        if a.case:
            ktx = {c: v for c, v in ktx.items() if c in a.case}
        compare(ktx, shim_tx, a.mode, exp, k, fails, used)
        compared += 1
    if not a.case:
        for e in exp.differing():
            if e["mode"] == a.mode and e["line"] not in used and not e["maybe"]:
                fails.append("expected.txt:%d: %s, %s no longer differs on any kernel "
                             "(%s): remove the line, or make it \"-\""
                             % (e["line"], e["case"], a.mode, ", ".join(sorted(e["steps"]))))
    for f in fails:
        print("FAIL: " + f)
    nexp = len([e for e in exp.differing() if e["mode"] == a.mode])
    print("%s: %d cases against %d kernels, %d expected differences: %s"
          % (a.mode, len(shim_tx), compared, nexp, "FAIL" if fails else "PASS"))
    return 1 if fails else 0


# ----------------------------------------------------------------------
# kernel: a lab guest
# ----------------------------------------------------------------------

def run_kernel(a):
    rc = lab.root_or_skip()
    if rc is not None:
        return rc
    out = a.out or os.path.join(ROOT, "build", "lab")
    os.makedirs(out, exist_ok=True)
    if a.short:
        a.case = SHORT
    # a copy in the run's share, which a rebuild during the run cannot change
    role = """#!/bin/sh
export ASAN_OPTIONS=detect_leaks=0
$LAB_DIR/rdsdiff %s%s $LAB_IP > $LAB_DIR/kernel.txt 2> $LAB_DIR/kernel.err
""" % ("".join("--case %s " % c for c in a.case or []), A_ADDR)
    fails = []
    keep = os.path.join(out, "diff-%s" % a.kernel)
    subprocess.run(["rm", "-rf", keep])
    with lab.Lab(a.kernel, guests=1, keep=keep) as L:
        shutil.copy2(a.rdsdiff, os.path.join(L.dir, "rdsdiff"))
        if L.guest_addr(1) != H_ADDR:
            print("FAIL: the lab's guest address is %s, the suite's H is %s" % (L.guest_addr(1), H_ADDR))
            return 1
        L.role(1, role)
        L.start()
        rcs = L.wait(timeout=a.timeout)
        path = os.path.join(L.dir, "kernel.txt")
        text = open(path).read() if os.path.exists(path) else ""
        if rcs.get(1) != 0:
            print(L.output(1))
            print(open(os.path.join(L.dir, "kernel.err")).read()
                  if os.path.exists(os.path.join(L.dir, "kernel.err")) else "")
            print(L.console(1)[-2000:])
            fails.append("guest role exit %s" % rcs.get(1))
    if fails:
        print("FAIL: " + "; ".join(fails))
        return 1
    got = parse_transcript(text)
    rec = os.path.join(HERE, "kernel-%s.txt" % a.kernel)
    if a.update:
        if a.case:
            # only these cases anew, the others as recorded, in the suite's order
            blocks = {}
            for t in (open(rec).read() if os.path.exists(rec) else "", text):
                for blk in re.split(r"(?m)^(?=== )", t):
                    if blk.startswith("== "):
                        blocks[blk.split("\n", 1)[0][3:].strip()] = blk
            text = "".join(blocks[c] for c in case_list(a.rdsdiff) if c in blocks)
            got = parse_transcript(text)
        with open(rec, "w") as f:
            f.write("# rdsdiff on the %s kernel's AF_RDS (%s), written by\n"
                    "# tests/diff/difftest.py kernel --kernel %s --update\n" % (a.kernel, L.kver, a.kernel))
            f.write(text)
        print("recorded %s: %d cases" % (rec, len(got)))
        return 0
    want = load_kernel(a.kernel)
    if want is None:
        print("FAIL: no %s (run with --update)" % rec)
        return 1
    for case, steps in want.items():
        if a.case and case not in a.case:
            continue
        if case not in got:
            fails.append("case %s: no transcript from the kernel" % case)
            continue
        d = diff_steps(steps, got[case])
        for s in d:
            fails.append("case %s, step %s: recorded %s, kernel now %s" % (
                case, s, " / ".join(l for st, _, l in steps if st == s) or "(none)",
                " / ".join(l for st, _, l in got[case] if st == s) or "(none)"))
    for case in got:
        if case not in want:
            fails.append("case %s: not recorded (run with --update)" % case)
    for f in fails:
        print("FAIL: " + f)
    print("%s: %d cases, %s" % (a.kernel, len(got), "FAIL" if fails else "PASS: as recorded"))
    return 1 if fails else 0


# ----------------------------------------------------------------------
# doc: docs/shim.md against expected.txt
# ----------------------------------------------------------------------

def norm(title):
    t = re.sub(r"[`*\\]", "", title).strip()
    return t.rstrip(".:").strip()


def doc_bullets(md):
    """{(section, title)} of the bullets of the two known-differences
    sections (section: pp or rdsd)."""
    out, sec = set(), None
    for line in md.splitlines():
        if line.startswith("## "):
            sec = {"## Known differences from the kernel": "pp",
                   "## Known differences with rdsd": "rdsd"}.get(line.strip())
            continue
        if sec:
            m = re.match(r"\* \*\*(.+?)\*\*", line)
            if m:
                title = norm(m.group(1))
                out.add((sec, title))
                # "The entries up to RDS_INFO are of the per-process
                # mode": those after it hold for both
                if sec == "pp" and title.startswith("RDS_INFO"):
                    sec = "both"
    return out


def run_doc(a):
    with open(a.shim_md) as f:
        md = f.read()
    bullets = doc_bullets(md)
    exp = Expected(os.path.join(HERE, "expected.txt"))
    cases = set(case_list(a.rdsdiff))
    fails = list(exp.errors)
    if not bullets:
        fails.append("no known differences found in %s" % a.shim_md)
    named = {}
    for e in exp.entries:
        if e["case"].startswith("test:"):
            # a departure no program's calls can show (rdsd killed under
            # it): the ctest that does show it, and no transcript
            if e["steps"] is not None or "`%s`" % e["case"][5:] not in md:
                fails.append("expected.txt:%d: %s: want steps \"-\" and a ctest that "
                             "docs/shim.md names" % (e["line"], e["case"]))
        elif e["case"] not in cases:
            fails.append("expected.txt:%d: no case %s in rdsdiff" % (e["line"], e["case"]))
        key = (e["mode"], norm(e["doc"]))
        if key not in bullets:
            key = ("both", norm(e["doc"]))
        if key not in bullets:
            fails.append("expected.txt:%d: %r is no known difference of %s in docs/shim.md"
                         % (e["line"], e["doc"], "rdsd" if e["mode"] == "rdsd" else "per process"))
        named.setdefault(key, []).append(e)
    for sec, b in sorted(bullets):
        if (sec, b) not in named:
            fails.append("docs/shim.md (%s): %r has no case in tests/diff/expected.txt" % (sec, b))
    ndiff = len(exp.differing())
    m = re.search(r"has (\d+) cases and (\d+) expected differences", md)
    if not m:
        fails.append("docs/shim.md does not say \"has N cases and M expected differences\"")
    elif (int(m.group(1)), int(m.group(2))) != (len(cases), ndiff):
        fails.append("docs/shim.md says %s cases and %s expected differences; the suite has %d and %d"
                     % (m.group(1), m.group(2), len(cases), ndiff))
    for f in fails:
        print("FAIL: " + f)
    print("%d known differences in docs/shim.md, %d cases, %d expected differences: %s"
          % (len(bullets), len(cases), ndiff, "FAIL" if fails else "PASS"))
    return 1 if fails else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("shim")
    s.add_argument("--mode", choices=MODES, required=True)
    s.add_argument("--rdsdiff", required=True)
    s.add_argument("--rdsrun", required=True)
    s.add_argument("--rdsd", required=True)
    s.add_argument("--case", action="append")
    s.add_argument("--out")
    k = sub.add_parser("kernel")
    k.add_argument("--kernel", choices=KERNELS, required=True)
    k.add_argument("--rdsdiff", required=True)
    k.add_argument("--case", action="append")
    k.add_argument("--update", action="store_true")
    k.add_argument("--short", action="store_true",
                   help="only the cases of SHORT (the lab label's run; the whole suite is slow)")
    k.add_argument("--timeout", type=int, default=240)
    k.add_argument("--out")
    d = sub.add_parser("doc")
    d.add_argument("--rdsdiff", required=True)
    d.add_argument("--shim-md", required=True)
    a = ap.parse_args()
    return {"shim": run_shim, "kernel": run_kernel, "doc": run_doc}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
