#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""The lab cleans up after itself when interrupted: a run is started with
guests that would run for minutes, interrupted once they are up, and then
its namespace, its qemu processes and its tcpdump must all be gone. A run
whose role fails must clean up the same way.
Exit 0 pass, 1 fail, 77 skipped (not root, outside CI)."""
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SLEEPER = "echo up; sleep 600\n"


def children_of(pid):
    out = subprocess.run(["ps", "-o", "pid=,ppid=,comm=", "-e"], capture_output=True,
                         text=True).stdout
    procs = [line.split(None, 2) for line in out.splitlines()]
    found, frontier = [], {str(pid)}
    while frontier:
        nxt = {p for p, pp, _ in procs if pp in frontier}
        found += [(p, c) for p, pp, c in procs if pp in frontier]
        frontier = nxt
    return found


def interrupted_run(kernel):
    code = ("import sys; sys.path.insert(0, %r); import lab, time\n"
            "with lab.Lab(%r, 2, capture='/dev/null') as l:\n"
            "    l.role(1, %r); l.role(2, %r); l.start(); print(l.ns, flush=True)\n"
            "    time.sleep(600)\n" % (HERE, kernel, SLEEPER, SLEEPER))
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    ns = p.stdout.readline().strip()
    time.sleep(8)   # guests booting or up
    kids = children_of(p.pid)
    names = {c.strip() for _, c in kids}
    assert any("qemu" in n for n in names), "no qemu running under the lab: %s" % names
    assert "tcpdump" in names, "no tcpdump running under the lab: %s" % names
    p.send_signal(signal.SIGINT)
    p.wait(timeout=60)
    for pid, comm in kids:
        assert not os.path.exists("/proc/%s" % pid) or \
            open("/proc/%s/stat" % pid).read().split()[2] == "Z", \
            "%s (pid %s) survived the interrupt" % (comm.strip(), pid)
    netns = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert ns and ns not in netns, "namespace %s left behind" % ns
    print("interrupted run: %s, %d processes ended, namespace removed" % (ns, len(kids)))


def failing_run(kernel):
    sys.path.insert(0, HERE)
    import lab
    with lab.Lab(kernel, 1) as l:
        l.role(1, "echo failing on purpose; exit 3\n")
        l.start()
        rcs = l.wait(120)
        ns = l.ns
    assert rcs == {1: 3}, "role exit code not reported: %r" % rcs
    netns = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert ns not in netns, "namespace %s left behind" % ns
    print("failing role: exit 3 reported, namespace removed")


def main():
    if os.geteuid() != 0:
        if os.environ.get("CI"):
            print("lab: CI must run the lab as root", file=sys.stderr)
            return 1
        return 77
    kernel = sys.argv[1] if len(sys.argv) > 1 else "6.1"
    try:
        interrupted_run(kernel)
        failing_run(kernel)
    except AssertionError as e:
        print("FAIL:", e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
