#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Runs one lab scenario on one kernel and checks what the kernels did.

    run_scenario.py NAME --kernel 6.1|7.2 [--out DIR] [--record]
    run_scenario.py NAME --kernel 6.1|7.2 --check-pcap FILE

A scenario is tests/lab/scenarios/NAME.py. It defines
  GUESTS    number of guests (guest i has address 10.199.0.(i+1))
  RXE       True to bring up Soft-RoCE in every guest
  TIMEOUT   seconds for the whole run
  roles(kernel) -> {guest: shell script}   what each guest runs; or, for
                                           two guests whose scripts do not
                                           depend on the kernel, ROLE1, ROLE2
  check(cap, out, kernel) -> None          raises AssertionError when the
                                           kernels did not behave as stated;
      cap: rdscap.analyse() of the capture, out: {guest: role output}
With --record the capture is copied to pcaps/captured/<kernel>/NAME.pcap.
--check-pcap runs only check() on an existing capture (outputs empty).
Exit: 0 pass, 1 fail, 77 skipped (not root, outside CI), 2 usage.
"""
import argparse
import importlib.util
import os
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lab      # noqa: E402
import rdscap   # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))


def load(name):
    path = os.path.join(HERE, "scenarios", name + ".py")
    spec = importlib.util.spec_from_file_location("scenario_" + name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("name")
    ap.add_argument("--kernel", required=True, choices=sorted(lab.KERNELS))
    ap.add_argument("--out", default=None)
    ap.add_argument("--record", action="store_true")
    ap.add_argument("--check-pcap")
    a = ap.parse_args()
    sc = load(a.name)
    if a.check_pcap:
        sc.check(rdscap.analyse(a.check_pcap), {}, a.kernel)
        print("%s on %s: recorded capture %s passes" % (a.name, a.kernel, a.check_pcap))
        return 0
    if os.geteuid() != 0:
        if os.environ.get("CI"):
            print("lab: CI must run the lab as root", file=sys.stderr)
            return 1
        print("lab: skipped, needs root (network namespaces, taps)", file=sys.stderr)
        return 77
    out = a.out or os.path.join(ROOT, "build", "lab")
    run_dir = os.path.join(out, "%s-%s" % (a.name, a.kernel))
    shutil.rmtree(run_dir, ignore_errors=True)
    os.makedirs(run_dir)
    pcap = os.path.join(run_dir, "capture.pcap")
    t0 = time.time()
    with lab.Lab(a.kernel, sc.GUESTS, getattr(sc, "RXE", False), pcap,
                 keep=os.path.join(run_dir, "share")) as l:
        roles = sc.roles(a.kernel) if hasattr(sc, "roles") else {1: sc.ROLE1, 2: sc.ROLE2}
        for i, text in roles.items():
            l.role(i, text)
        l.start()
        rcs = l.wait(getattr(sc, "TIMEOUT", 180))
        outs = {i: l.output(i) for i in rcs}
        kver = l.kver
        drops = l.capture_drops
    for i in sorted(rcs):
        print("--- guest %d (%s) exit %s" % (i, kver, rcs[i]))
        sys.stdout.write(outs[i])
    if drops != 0:
        print("FAIL: the capture is incomplete (tcpdump reported %s packets dropped)" % drops)
        return 1
    cap = rdscap.analyse(pcap)
    with open(os.path.join(run_dir, "capture.txt"), "w") as f:
        rdscap.describe(cap, f)
    bad = [i for i, rc in rcs.items() if rc != 0]
    if bad:
        for i in bad:
            print("--- console of guest %d" % i)
            print(open(os.path.join(run_dir, "share", "console%d.log" % i),
                       errors="replace").read()[-3000:])
        print("FAIL: guests %s did not finish their roles" % bad)
        return 1
    try:
        sc.check(cap, outs, a.kernel)
    except AssertionError as e:
        print("FAIL: %s on %s (%s): %s" % (a.name, a.kernel, kver, e))
        print("capture: %s, decoded in capture.txt" % pcap)
        return 1
    if a.record:
        dst = os.path.join(ROOT, "pcaps", "captured", a.kernel)
        os.makedirs(dst, exist_ok=True)
        shutil.copy(pcap, os.path.join(dst, a.name + ".pcap"))
        with open(os.path.join(dst, a.name + ".kernel"), "w") as f:
            f.write("%s\n" % kver)
    print("PASS: %s on %s (%s) in %.0fs" % (a.name, a.kernel, kver, time.time() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
