#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""rds-conform against a real kernel (issue 6), in the lab.

    conform_kernel.py --kernel 6.1|7.2 --conform PATH [--ping-off] [--ipv6]
                      [--repeat N] [--out DIR]

One guest (10.199.0.2) runs the kernel's RDS/TCP and `rds-conform agent
--kernel` (AF_RDS sockets; side channel on 10.199.0.2:18600). The suite runs
on the host side of the lab's bridge, inside the lab's namespace, from
10.199.0.1 (smaller) with 10.199.0.250 as the larger address, and saves
its JSON report, its text report and a capture per case in the run
directory (build/lab/conform_kernel-<kernel>/).

Asserted: the suite runs to completion (no ERROR, no SKIP); every case's
verdict is the one in EXPECT below for that kernel, which is what
docs/kernel-behaviour.md records (every departure from the spec is
NON-STRICT or INFO with its reason); the 6.1/7.2 differences (one extension
header, GEN_NUM, SPORT_IDX) show in the report. Exit: 0 pass, 1 fail, 77
skipped (not root, outside CI).

--ping-off (issue 20) sets net.rds.ping_enable=0 in the guest before the
agent starts: such a kernel answers no ping and no probe ping (docs/kernel-behaviour.md K5).
The suite must still judge it: no ERROR, the ping and probe cases FAIL or
NON-STRICT by their level with the reason, the cases that need pongs to
number or a second path SKIP saying so, and every other case the verdict
it gets with pings on (PING_OFF lists every change; exit 1, for the
FAILs).

--ipv6 (issue 20) runs the same suite over IPv6 (RDS/TCP on IPv6 since
Linux 4.19): the guest at fd99::2, the suite from fd99::1 with fd99::fa as
the larger address, the same verdicts expected.

--repeat N (issue 20) runs the suite N times back to back against the same
guest, each run as soon as the one before has ended (the agent restarted
in between, in milliseconds), so a run meets whatever the kernel is still
doing for the previous one (reconnecting to the previous run's addresses,
retransmitting to them); every run must give the same verdicts. The run
times are written to repeat.txt in the run directory.
"""
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lab  # noqa: E402

ADDRS = {
    4: ("10.199.0.2", lab.HOST_ADDR, "10.199.0.250"),
    # nodad: no duplicate address detection, so the addresses are usable at once
    6: ("fd99::2", "fd99::1", "fd99::fa"),
}

PING_OFF_SETUP = "echo 0 > /proc/sys/net/rds/ping_enable\n"
IPV6_SETUP = "ip -6 addr add fd99::2/64 dev eth0 nodad\n"

# One agent per run: each exits when its suite disconnects (--once), and
# the next is up in milliseconds.
RUNNER = r'''
i=0
while [ $i -lt %d ]; do
	/run/lab/rds-conform agent --kernel --bind %s --ctl %s --once \
		>> $LAB_DIR/agent.out 2>> $LAB_DIR/agent.err
	echo $? >> $LAB_DIR/agent.rc
	i=$((i + 1))
done
'''


def ctl_of(guest):
    return ("[%s]:18600" if ":" in guest else "%s:18600") % guest

# The verdicts both kernels give, and where they differ. A departure from
# the spec is NON-STRICT (with the reason naming docs/kernel-behaviour.md)
# or INFO; every other case passes.
DEPARTURES = {
    "rds31/header/2": "NON-STRICT",   # h_csum 0 on TCP
    "rds31/ack/1": "NON-STRICT",      # h_ack 0 on TCP
    "rds31/seq/3": "NON-STRICT",      # numbers survive reconnects
    "rds31/cong/2": "NON-STRICT",     # congested above SO_RCVBUF, not at it
    "linux/probe/2": "INFO",          # SPORT_IDX offered or not
}
BY_KERNEL = {
    "6.1": {"rds31/gen/1": "NON-STRICT",   # one extension header: no GEN_NUM
            "rds31/exthdr/1": "PASS",
            "rds31/reconnect/2": "NON-STRICT"},  # the larger address waits
    # 7.x: NPATHS, GEN_NUM, SPORT_IDX together; and after losing path 0 it
    # probes at once, which connects (kicks) from the larger address too
    "7.2": {"rds31/gen/1": "PASS",
            "rds31/exthdr/1": "NON-STRICT",
            "rds31/reconnect/2": "PASS"},
}
# With net.rds.ping_enable=0, on both kernels: what changes from the tables
# above. A set: either verdict, as the kernel's own probe ping (sent only
# while it does not know the path count) may or may not be the first
# numbered message of the run.
PING_OFF = {
    "rds31/seq/1": {"PASS", "SKIP"},  # only its own probe ping is numbered
    "rds31/seq/2": "SKIP",           # no pongs to number
    "rds31/seq/3": "SKIP",
    "rds31/ping/1": "FAIL",          # the MUST it breaks
    "rds31/ping/2": "SKIP",          # no pong to judge
    "linux/ping/1": "PASS",          # no reply to port 0 (nor to anything)
    "linux/probe/3": "FAIL",         # no probe pong
    "rds31/mprds/1": "NON-STRICT",   # SHOULD: no probe pong, so no NPATHS
    "linux/probe/1": "FAIL",         # MUST: the prober stays at one path
    "rds31/mprds/2": "SKIP",         # no NPATHS to check
    "rds31/gen/1": "NON-STRICT",     # SHOULD: no GEN_NUM
    "linux/probe/2": "INFO",
    "rds31/exthdr/1": "SKIP",        # no probe pong to count in
    "rds31/exthdr/2": "SKIP",        # no pong shows the ping was taken
    "linux/mprds/1": "SKIP",         # one path: no count agreed
    "linux/mprds/2": "SKIP",
    "rds31/gen/2": {"PASS", "SKIP"},  # it hears GEN_NUM only in probes
    "linux/hostile/1": "SKIP",       # the witness needs a second path
    "linux/hostile/2": "SKIP",
    "linux/hostile/3": "SKIP",
    "linux/hostile/4": "SKIP",
}
# Text that must appear in a case's actual outcome, per kernel.
SAYS = {
    "6.1": {"linux/probe/2": "no SPORT_IDX", "rds31/gen/1": "without GEN_NUM",
            "linux/mprds/2": "by the peer"},  # reset or closed
    "7.2": {"linux/probe/2": "SPORT_IDX offered", "rds31/exthdr/1": "3 extension headers",
            "linux/mprds/2": "held open but not served"},
}
SAYS_PING_OFF = {"rds31/ping/1": "no reply", "linux/probe/3": "no probe pong",
                 "linux/probe/1": "no probe pong"}


def wait_agent(share, n):
    """Until the n-th agent of the guest says it is ready."""
    err = os.path.join(share, "agent.err")
    rcs = os.path.join(share, "agent.rc")
    t = time.time() + 180
    while True:
        text = open(err).read() if os.path.exists(err) else ""
        if text.count("ready") >= n:
            return
        done = open(rcs).read().split() if os.path.exists(rcs) else []
        if time.time() > t or len(done) >= n:
            raise RuntimeError("agent %d did not start: %s" % (n, text or "no output"))
        time.sleep(0.05)


def one_run(a, l, run_dir, k, guest, small, large, ctl, log):
    """One suite against the agent. Return: (seconds, exit, failures)."""
    fails = []
    sub = run_dir if a.repeat == 1 else os.path.join(run_dir, "run%02d" % (k + 1))
    os.makedirs(sub, exist_ok=True)
    report = os.path.join(sub, "report.json")
    argv = ["ip", "netns", "exec", l.ns, a.conform, "--peer", guest, "--local", small,
            "--larger", large, "--agent", ctl, "--timeout", "5000", "--json",
            "-o", report, "--pcap", os.path.join(sub, "pcap")]
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    l.procs.append(("host", p))
    so, se = p.communicate(timeout=900)
    with open(os.path.join(sub, "progress.txt"), "w") as f:
        f.write(se)
    log("suite exit %d" % p.returncode)
    doc = json.load(open(report))
    want = dict(DEPARTURES)
    want.update(BY_KERNEL[a.kernel])
    says = dict(SAYS[a.kernel])
    if a.ping_off:
        want.update(PING_OFF)
        says = SAYS_PING_OFF
    secs = doc.get("meta", {}).get("secs", 0)
    log("suite took %.1f s" % secs)
    for c in doc["cases"]:
        v, exp = c["verdict"], want.get(c["id"], "PASS")
        if isinstance(exp, set):
            exp = v if v in exp else "/".join(sorted(exp))
        line = "%-10s %-18s %s%s" % (v, c["id"], c.get("actual", ""),
                                     (" [" + c["reason"] + "]") if c.get("reason") else "")
        if a.repeat == 1 or v != exp:
            log(line)
        if v != exp:
            fails.append("%s: %s, expected %s: %s / %s" % (
                c["id"], v, exp, c.get("actual"), c.get("reason")))
        if v in ("NON-STRICT", "INFO", "SKIP") and not c.get("reason"):
            fails.append("%s: %s without a reason" % (c["id"], v))
        if a.ping_off and v in ("FAIL", "NON-STRICT") and c["id"] in PING_OFF \
                and not c.get("reason"):
            fails.append("%s: %s without a reason" % (c["id"], v))
        say = says.get(c["id"])
        if say and say not in (c.get("actual") or ""):
            fails.append("%s: actual %r lacks %r" % (c["id"], c.get("actual"), say))
    if p.returncode != (1 if a.ping_off else 0):
        fails.append("suite exit %d" % p.returncode)
    return secs, p.returncode, fails


def main():
    ap = lab.arg_parser()
    ap.add_argument("--conform", required=True)
    ap.add_argument("--ping-off", action="store_true")
    ap.add_argument("--ipv6", action="store_true")
    ap.add_argument("--repeat", type=int, default=1)
    a, out, log = lab.parse(ap)
    guest, small, large = ADDRS[6 if a.ipv6 else 4]
    ctl = ctl_of(guest)
    run_dir, share = lab.run_share(out, "conform_kernel-%s%s%s%s" % (
        a.kernel, "-noping" if a.ping_off else "", "-ipv6" if a.ipv6 else "",
        "-repeat" if a.repeat > 1 else ""), (a.conform,))
    fails = []
    times = []
    with lab.Lab(a.kernel, 1, False, os.path.join(run_dir, "capture.pcap"), keep=share) as l, \
            l.judging(fails, tail=1500):
        if a.ipv6:
            for addr in (small, large):
                l.ns_run(["ip", "-6", "addr", "add", addr + "/64", "dev", "br0", "nodad"])
        else:
            l.ns_run(["ip", "addr", "add", large + "/24", "dev", "br0"])
        l.role(1, (PING_OFF_SETUP if a.ping_off else "") + (IPV6_SETUP if a.ipv6 else "") +
               RUNNER % (a.repeat, guest, ctl))
        l.start()
        for k in range(a.repeat):
            tag = "run %d/%d: " % (k + 1, a.repeat) if a.repeat > 1 else ""
            wait_agent(share, k + 1)
            if k == 0:
                log("agent up: %s" % open(os.path.join(share, "agent.err")).read().strip())
            secs, rc, run_fails = one_run(a, l, run_dir, k, guest, small, large, ctl, log)
            times.append((secs, rc))
            fails += [tag + f for f in run_fails]
        if a.repeat > 1:
            with open(os.path.join(run_dir, "repeat.txt"), "w") as f:
                for k, (secs, rc) in enumerate(times):
                    f.write("run %d: exit %d, %.1f s\n" % (k + 1, rc, secs))
            log("runs: " + ", ".join("exit %d in %.1f s" % t for t in times))
        l.wait(60)
    return lab.verdict(fails, log, a.kernel)


if __name__ == "__main__":
    sys.exit(main())
