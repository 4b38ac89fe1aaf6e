#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""rdsperf against iperf3 and sockperf on loopback, with every tool's
defaults, unpinned and pinned; scaling; memory per idle peer.

    bench/rdsperf.py [--build build/release] [--time 5] [--repeat 5]
                     [--out DIR] [--only stream|pingpong|rate]
                     [--conditions unpinned,pinned] [--variants] [--no-extras]

What a user gets is the unpinned run: the scheduler places both ends as
it likes (on this two-vCPU machine, a ping-pong's two ends mostly share
one vCPU, which is where sockperf's blocking calls are fastest). The
pinned run puts every server on CPU 0 and every client on CPU 1
(taskset), for the reference tools as for rdsperf. Both run with every
tool's defaults: no -w for rdsperf, no -w for iperf3, nothing for
sockperf but the size.

Each ratio is measured in --repeat rounds; a round runs every condition,
and within it every measure as reference then rdsperf, so a noisy
minute hits both; the report gives the median and the range of the
per-round ratios, and every round's figures. Warm-up: rdsperf -O 1,
iperf3 -O 1, sockperf's own.

  stream, 64 KiB          rdsperf -l 64K            vs iperf3 -l 64K (TCP)
  ping-pong, 64 bytes     rdsperf --test pingpong   vs sockperf pp --tcp -m 64
                          -l 64: p50 and p99 of the    --full-rtt: p50 and p99 of
                          round trip                   the round trip
  rate, 64-byte messages  rdsperf -l 64             vs sockperf tp --tcp -m 64
  --variants              ping-pong also with --sched busy, --npaths 1 and
                          --path-rule port
  --shim                  the three measures also as an unmodified AF_RDS
                          program gets them: rdsperf --kernel through rdsrun,
                          each process its own endpoint (shim) and through
                          one rdsd (rdsd), in the unpinned condition, each
                          against the same round's reference
  extras (unless --no-extras, and not with --only): scaling over --npaths
  1..8 and --sockets 1..16 (stream, 64 KiB, defaults, pinned), and librds
  core bytes per idle peer at 1, 100 and 1000 peers (bench_peers).

Needs a release build (cmake --preset release && cmake --build
build/release), iperf3 and sockperf (apt-get install iperf3 sockperf).
Everything runs on 127.5.0.0/16, away from the tests' addresses; run it
on a quiet machine (the load average is printed at the start and the
end) or in a network namespace of its own (unshare -n). Prints markdown
tables (what docs/performance.md shows) and keeps every tool's raw
output in --out.
"""
import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from statistics import median

SRV, CLI = "127.5.0.1", "127.5.0.2"


def wait_port(port, host=SRV):
    for _ in range(200):
        try:
            socket.create_connection((host, port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit("bench: nothing listens on %s:%d" % (host, port))


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


class Bench:
    def __init__(self, a):
        self.a = a
        self.perf = os.path.join(a.build, "tools/rdsperf/rdsperf")
        self.peers = os.path.join(a.build, "bench/bench_peers")
        os.makedirs(a.out, exist_ok=True)
        self.pin = False
        self.rdsrun = os.path.join(a.build, "shim/rdsrun")
        self.rdsd = os.path.join(a.build, "shim/rdsd")

    def srv_cpu(self):
        return ["taskset", "-c", "0"] if self.pin else []

    def cli_cpu(self):
        return ["taskset", "-c", "1"] if self.pin else []

    def save(self, name, text):
        with open(os.path.join(self.a.out, name), "w") as f:
            f.write(text)

    def run(self, name, argv, timeout=None, env=None):
        p = subprocess.run(argv, capture_output=True, text=True, env=env,
                           timeout=timeout or self.a.time * 4 + 60)
        self.save(name + ".txt", " ".join(argv) + "\n" + p.stdout + p.stderr)
        if p.returncode != 0:
            sys.exit("bench: %s failed (%d): %s" % (" ".join(argv), p.returncode,
                                                    p.stderr[-500:]))
        return p.stdout

    def rdsperf(self, name, args, shim=None):
        """One rdsperf test; |shim| None (librds directly), "shim" or
        "rdsd": both ends AF_RDS programs (--kernel) through rdsrun."""
        pre, env, kern = [], None, []
        if shim:
            pre, kern = [self.rdsrun, "-f"], ["--kernel"]
            env = dict(os.environ, RDSD_PATH=self.rdsd,
                       RDSRUN_DAEMON="1" if shim == "rdsd" else "0")
        srv = subprocess.Popen(self.srv_cpu() + pre + [self.perf, "-s", "-B", SRV, "-p", "18600"]
                               + kern, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env=env)
        try:
            wait_port(18600)
            out = self.run(name, self.cli_cpu() + pre + [self.perf, "-c", SRV, "-B", CLI,
                                                         "-p", "18600", "-t", str(self.a.time),
                                                         "-O", "1", "-i", "0", "--json"]
                           + kern + args, env=env)
        finally:
            srv.terminate()
            srv.wait(timeout=30)
        if shim == "rdsd":
            time.sleep(2.5)  # a spawned rdsd lingers 2 s after its last socket
        return json.loads(out)["runs"][0]["end"]

    def iperf3(self, name):
        s = subprocess.Popen(self.srv_cpu() + ["iperf3", "-s", "-B", SRV, "-p", "5301", "-1"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            time.sleep(1)  # (a probe connection would count as iperf3's client)
            out = self.run(name, self.cli_cpu() + ["iperf3", "-c", SRV, "-p", "5301",
                                                   "-l", "64K", "-O", "1",
                                                   "-t", str(self.a.time), "-J"])
        finally:
            s.terminate()
            s.wait(timeout=30)
        return json.loads(out)["end"]["sum_received"]["bits_per_second"]

    def sockperf(self, mode, name, extra=()):
        s = subprocess.Popen(self.srv_cpu() + ["sockperf", "sr", "--tcp", "-i", SRV,
                                               "-p", "11111"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_port(11111)
            out = self.run(name, self.cli_cpu() + ["sockperf", mode, "--tcp", "-i", SRV,
                                                   "-p", "11111", "-m", "64",
                                                   "-t", str(self.a.time)] + list(extra))
        finally:
            s.terminate()
            s.wait(timeout=30)
        return out


def pct(out, p):
    m = re.search(r"percentile %s =\s+([\d.]+)" % re.escape(p), out)
    return float(m.group(1)) if m else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build/release")
    ap.add_argument("--time", type=int, default=5)
    ap.add_argument("--out", default="/tmp/rdsperf-bench")
    ap.add_argument("--repeat", type=int, default=5,
                    help="rounds of each ratio measurement (medians and ranges are reported)")
    ap.add_argument("--only", choices=("stream", "pingpong", "rate"),
                    help="measure this ratio alone (no extras)")
    ap.add_argument("--conditions", default="unpinned,pinned",
                    help="comma-separated: unpinned (the scheduler places every process), "
                         "pinned (servers on CPU 0, clients on CPU 1)")
    ap.add_argument("--variants", action="store_true",
                    help="ping-pong also with --sched busy, --npaths 1, --path-rule port")
    ap.add_argument("--no-extras", action="store_true", help="no scaling, no memory")
    ap.add_argument("--shim", action="store_true",
                    help="also rdsperf --kernel through rdsrun: per process and through rdsd")
    a = ap.parse_args()
    conds = [c for c in a.conditions.split(",") if c]
    if not conds or any(c not in ("unpinned", "pinned") for c in conds):
        sys.exit("bench: --conditions takes unpinned and/or pinned")
    for tool in ("iperf3", "sockperf"):
        if not shutil.which(tool):
            sys.exit("bench: %s is not installed (apt-get install iperf3 sockperf)" % tool)
    b = Bench(a)
    if not os.access(b.perf, os.X_OK):
        sys.exit("bench: no %s; build the release preset first" % b.perf)
    if a.shim and not os.access(b.rdsrun, os.X_OK):
        sys.exit("bench: no %s; the shim is built with the release preset" % b.rdsrun)
    shims = ("shim", "rdsd") if a.shim else ()
    want = lambda what: a.only in (None, what)  # noqa: E731
    load0 = loadavg()
    # rounds[cond] = list of dicts, one per round
    rounds = {c: [] for c in conds}
    for i in range(a.repeat):
        for c in conds:
            b.pin = c == "pinned"
            r = {}
            tag = "%s-%d" % (c, i)
            if want("stream"):
                r["iperf3"] = b.iperf3("iperf3-" + tag)
                e = b.rdsperf("stream-64k-" + tag, ["-l", "64K"])
                r["stream"] = e["receiver"]["bits_per_second"]
                for k in shims if c == "unpinned" else ():
                    e = b.rdsperf("stream-64k-%s-%s" % (k, tag), ["-l", "64K"], k)
                    r["stream_" + k] = e["receiver"]["bits_per_second"]
            if want("pingpong"):
                out = b.sockperf("pp", "sockperf-pp-" + tag, ["--full-rtt"])
                r["sp50"], r["sp99"] = pct(out, "50.000"), pct(out, "99.000")
                e = b.rdsperf("pingpong-64-" + tag, ["--test", "pingpong", "-l", "64"])
                r["p50"], r["p99"] = e["latency"]["p50"], e["latency"]["p99"]
                r["cpu"] = (e["cpu"]["client_percent"], e["cpu"]["server_percent"])
                for k in shims if c == "unpinned" else ():
                    e = b.rdsperf("pingpong-64-%s-%s" % (k, tag),
                                  ["--test", "pingpong", "-l", "64"], k)
                    r["p50_" + k], r["p99_" + k] = e["latency"]["p50"], e["latency"]["p99"]
                if a.variants:
                    for k, args in (("busy", ["--sched", "busy"]), ("one", ["--npaths", "1"]),
                                    ("port", ["--path-rule", "port"])):
                        e = b.rdsperf("pingpong-64-%s-%s" % (k, tag),
                                      ["--test", "pingpong", "-l", "64"] + args)
                        r[k] = e["latency"]["p50"]
            if want("rate"):
                out = b.sockperf("tp", "sockperf-tp-" + tag)
                m = re.search(r"Message Rate is (\d+) \[msg/sec\]", out)
                r["stp"] = float(m.group(1)) if m else float("nan")
                e = b.rdsperf("stream-64-" + tag, ["-l", "64"])
                r["rate"] = e["receiver"]["messages_per_second"]
                for k in shims if c == "unpinned" else ():
                    e = b.rdsperf("stream-64-%s-%s" % (k, tag), ["-l", "64"], k)
                    r["rate_" + k] = e["receiver"]["messages_per_second"]
            rounds[c].append(r)
    # extras
    scale, mem = [], []
    if a.only is None and not a.no_extras:
        b.pin = True
        for p in (1, 2, 4, 8):
            e = b.rdsperf("paths-%d" % p, ["-l", "64K", "-n", "8", "--npaths", str(p)])
            scale.append(("npaths %d, 8 sockets" % p, e))
        for n in (1, 2, 4, 8, 16):
            e = b.rdsperf("sockets-%d" % n, ["-l", "64K", "-n", str(n)])
            scale.append(("sockets %d, 8 paths" % n, e))
        for n in (1, 100, 1000):
            out = b.run("peers-%d" % n, [b.peers, str(n)], timeout=600)
            mem.append(dict(kv.split("=") for kv in out.split()))
    load1 = loadavg()

    def stat(xs):
        return median(xs), min(xs), max(xs)

    print("Load average (1, 5, 15 min): %s at the start, %s at the end; %d rounds, -t %d."
          % (load0, load1, a.repeat, a.time))
    print()
    print("| Measure | condition | rdsperf (median) | reference (median) "
          "| ratio (median) | ratio range | target |")
    print("|---|---|---:|---:|---:|---|---|")
    for c in conds:
        rs = rounds[c]
        if want("stream"):
            rt = stat([r["stream"] / r["iperf3"] for r in rs])
            print("| 64 KiB stream: `rdsperf -l 64K` / `iperf3 -l 64K` | %s | %.2f Gbit/s "
                  "| %.2f Gbit/s | %.2f | %.2f-%.2f | %s |" % (
                      c, median([r["stream"] for r in rs]) / 1e9,
                      median([r["iperf3"] for r in rs]) / 1e9, rt[0], rt[1], rt[2],
                      ">= 0.9 every round" if c == "unpinned" else ">= 1.0"))
        if want("pingpong"):
            rt = stat([r["p50"] / r["sp50"] for r in rs])
            r99 = stat([r["p99"] / r["sp99"] for r in rs])
            print("| 64 B ping-pong p50: `rdsperf --test pingpong -l 64` / `sockperf pp "
                  "--tcp -m 64 --full-rtt` | %s | %.1f us | %.1f us | %.2f | %.2f-%.2f "
                  "| <= 1.0 median, <= 1.2 every round |" % (
                      c, median([r["p50"] for r in rs]), median([r["sp50"] for r in rs]),
                      rt[0], rt[1], rt[2]))
            print("| ... p99 | %s | %.1f us | %.1f us | %.2f | %.2f-%.2f | reported |" % (
                c, median([r["p99"] for r in rs]), median([r["sp99"] for r in rs]),
                r99[0], r99[1], r99[2]))
            if a.variants:
                for k, what in (("busy", "--sched busy"), ("one", "--npaths 1"),
                                ("port", "--path-rule port")):
                    rt = stat([r[k] / r["sp50"] for r in rs])
                    print("| ... p50 with `%s` | %s | %.1f us | | %.2f | %.2f-%.2f | |" % (
                        what, c, median([r[k] for r in rs]), rt[0], rt[1], rt[2]))
        if want("rate"):
            rt = stat([r["rate"] / r["stp"] for r in rs])
            print("| 64 B rate: `rdsperf -l 64` / `sockperf tp --tcp -m 64` | %s "
                  "| %.0f msg/s | %.0f msg/s | %.2f | %.2f-%.2f | >= 3 |" % (
                      c, median([r["rate"] for r in rs]), median([r["stp"] for r in rs]),
                      rt[0], rt[1], rt[2]))
    if shims and "unpinned" in conds:
        rs = rounds["unpinned"]
        print()
        print("An unmodified AF_RDS program (`rdsperf --kernel` at both ends through "
              "`rdsrun -f`), unpinned, against the same round's reference:")
        print()
        print("| Measure | path | rdsperf (median) | reference (median) | ratio (median) "
              "| ratio range |")
        print("|---|---|---:|---:|---:|---|")
        for k in shims:
            what = "per process (RDSRUN_DAEMON=0)" if k == "shim" else "through rdsd"
            if want("stream"):
                rt = stat([r["stream_" + k] / r["iperf3"] for r in rs])
                print("| 64 KiB stream / iperf3 | %s | %.2f Gbit/s | %.2f Gbit/s | %.2f "
                      "| %.2f-%.2f |" % (what, median([r["stream_" + k] for r in rs]) / 1e9,
                                         median([r["iperf3"] for r in rs]) / 1e9, *rt))
            if want("pingpong"):
                rt = stat([r["p50_" + k] / r["sp50"] for r in rs])
                r99 = stat([r["p99_" + k] / r["sp99"] for r in rs])
                print("| 64 B ping-pong p50 / sockperf | %s | %.1f us | %.1f us | %.2f "
                      "| %.2f-%.2f |" % (what, median([r["p50_" + k] for r in rs]),
                                         median([r["sp50"] for r in rs]), *rt))
                print("| ... p99 | %s | %.1f us | %.1f us | %.2f | %.2f-%.2f |" % (
                    what, median([r["p99_" + k] for r in rs]),
                    median([r["sp99"] for r in rs]), *r99))
            if want("rate"):
                rt = stat([r["rate_" + k] / r["stp"] for r in rs])
                print("| 64 B rate / sockperf tp | %s | %.0f msg/s | %.0f msg/s | %.2f "
                      "| %.2f-%.2f |" % (what, median([r["rate_" + k] for r in rs]),
                                         median([r["stp"] for r in rs]), *rt))
    for c in conds:
        print()
        print("Rounds, %s:" % c)
        print()
        cols = []
        if want("stream"):
            cols += [("iperf3 Gbit/s", lambda r: "%.2f" % (r["iperf3"] / 1e9)),
                     ("rdsperf Gbit/s", lambda r: "%.2f" % (r["stream"] / 1e9))]
        if want("pingpong"):
            cols += [("sockperf p50/p99 us", lambda r: "%.1f / %.1f" % (r["sp50"], r["sp99"])),
                     ("rdsperf p50/p99 us", lambda r: "%.1f / %.1f" % (r["p50"], r["p99"])),
                     ("rdsperf CPU % client, server", lambda r: "%.0f, %.0f" % r["cpu"])]
            if a.variants:
                cols += [("busy p50", lambda r: "%.1f" % r["busy"]),
                         ("--npaths 1 p50", lambda r: "%.1f" % r["one"]),
                         ("--path-rule port p50", lambda r: "%.1f" % r["port"])]
        if want("rate"):
            cols += [("sockperf tp msg/s", lambda r: "%.0f" % r["stp"]),
                     ("rdsperf msg/s", lambda r: "%.0f" % r["rate"])]
        print("| round | " + " | ".join(h for h, _ in cols) + " |")
        print("|---:|" + "---:|" * len(cols))
        for i, r in enumerate(rounds[c]):
            print("| %d | " % (i + 1) + " | ".join(f(r) for _, f in cols) + " |")
    if scale:
        print()
        print("| Scaling (stream, 64 KiB, defaults, pinned) | receiver Gbit/s "
              "| client CPU % | server CPU % |")
        print("|---|---:|---:|---:|")
    for name, e in scale:
        print("| %s | %.2f | %.0f | %.0f |" % (name, e["receiver"]["bits_per_second"] / 1e9,
                                              e["cpu"]["client_percent"],
                                              e["cpu"]["server_percent"]))
    if mem:
        print()
        print("| Idle peers (8 paths each) | connections | librds core bytes/peer "
              "| RSS bytes/peer | target |")
        print("|---:|---:|---:|---:|---|")
    for m in mem:
        print("| %s | %s | %s | %s | <= 16384 core bytes |" % (
            m["peers"], m["connections"], m["core_bytes_per_peer"], m["rss_bytes_per_peer"]))
    print("\nraw output in %s" % a.out)


if __name__ == "__main__":
    main()
