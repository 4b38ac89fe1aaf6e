#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""rdsperf against iperf3 and sockperf on loopback, scaling, and memory per peer.

    bench/rdsperf.py [--build build/release] [--time 10] [--repeat 3] [--out DIR]
                     [--only throughput|rate|pingpong] [--no-pin]

Every server runs on CPU 0 and every client on CPU 1 (taskset), for the
reference tools as for rdsperf, unless --no-pin: unpinned, the scheduler
now and then puts both ends of a loopback test on one of this machine's
two vCPUs, and a ratio then measured the scheduler's luck (iperf3 alone
gave 11.5 to 23 Gbit/s from run to run).

Needs a release build (cmake --preset release && cmake --build --preset
release), iperf3 and sockperf (apt-get install iperf3 sockperf). Everything
runs on 127.5.0.0/16 so it stays out of the way of the tests' addresses;
run it on a quiet machine. Prints a markdown table of ratios and raw
figures (what docs/performance.md shows) and keeps every tool's raw output
in --out.

Comparisons, each measured in this one run (the three ratios in --repeat
rounds that alternate reference and rdsperf; medians and ranges reported):
  throughput, 64 KiB      rdsperf stream -l 64K     vs iperf3 -l 64K (TCP)
  rate, 64-byte messages  rdsperf stream -l 64      vs sockperf tp -m 64 (TCP)
  ping-pong p50           rdsperf pingpong -l 64    vs sockperf pp -m 64 (TCP);
                          sockperf reports half the round trip, so its
                          figure is doubled. Also --sched busy, --paths 1
                          (one TCP connection, as sockperf has) and
                          --path-rule port (the kernel's rule: the reply
                          comes on another connection than the request;
                          librds's default puts both on one)
  scaling                 --paths 1..8 with 8 sockets; --sockets 1..16
  memory per idle peer    bench_peers 1, 100, 1000 (8 paths each)
"""
import argparse
import json
from statistics import median
import os
import re
import shutil
import socket
import subprocess
import sys
import time

SRV = "127.5.0.1"


def wait_port(port, host=SRV):
    for _ in range(200):
        try:
            socket.create_connection((host, port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit("bench: nothing listens on %s:%d" % (host, port))


class Bench:
    def __init__(self, a):
        self.a = a
        self.srv_cpu = [] if a.no_pin else ["taskset", "-c", "0"]
        self.cli_cpu = [] if a.no_pin else ["taskset", "-c", "1"]
        self.perf = os.path.join(a.build, "tools/rdsperf/rdsperf")
        self.peers = os.path.join(a.build, "bench/bench_peers")
        os.makedirs(a.out, exist_ok=True)
        self.n = 0

    def save(self, name, text):
        with open(os.path.join(self.a.out, name), "w") as f:
            f.write(text)

    def run(self, name, argv, timeout=None):
        p = subprocess.run(argv, capture_output=True, text=True,
                           timeout=timeout or self.a.time * 4 + 60)
        self.save(name + ".txt", " ".join(argv) + "\n" + p.stdout + p.stderr)
        if p.returncode != 0:
            sys.exit("bench: %s failed (%d): %s" % (" ".join(argv), p.returncode, p.stderr[-500:]))
        return p.stdout

    def rdsperf(self, name, args):
        out = self.run(name, self.cli_cpu + [self.perf, "-c", SRV, "-B", "127.5.0.2", "-p", "18600",
                              "-t", str(self.a.time),
                              "-O", "1", "-i", "0", "--json"] + args)
        return json.loads(out)["runs"][0]

    def iperf3(self, name="iperf3"):
        s = subprocess.Popen(self.srv_cpu + ["iperf3", "-s", "-B", SRV, "-p", "5301"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            time.sleep(1)  # (a probe connection would count as iperf3's client)
            out = self.run(name, self.cli_cpu + ["iperf3", "-c", SRV, "-p", "5301", "-l", "64K", "-O", "1",
                                      "-t", str(self.a.time), "-J"])
        finally:
            s.terminate()
            s.wait(timeout=30)
        return json.loads(out)["end"]["sum_received"]["bits_per_second"]

    def sockperf(self, mode, name):
        s = subprocess.Popen(self.srv_cpu + ["sockperf", "sr", "--tcp", "-i", SRV, "-p", "11111"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_port(11111)
            out = self.run(name, self.cli_cpu + ["sockperf", mode, "--tcp", "-i", SRV, "-p", "11111", "-m", "64",
                                  "-t", str(self.a.time)])
        finally:
            s.terminate()
            s.wait(timeout=30)
        return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build/release")
    ap.add_argument("--time", type=int, default=10)
    ap.add_argument("--out", default="/tmp/rdsperf-bench")
    ap.add_argument("--repeat", type=int, default=3,
                    help="rounds of each ratio measurement (medians are reported)")
    ap.add_argument("--only", choices=("throughput", "rate", "pingpong"),
                    help="measure this ratio alone (no scaling, no memory)")
    ap.add_argument("--no-pin", action="store_true",
                    help="let the scheduler place servers and clients")
    a = ap.parse_args()
    for tool in ("iperf3", "sockperf"):
        if not shutil.which(tool):
            sys.exit("bench: %s is not installed (apt-get install iperf3 sockperf)" % tool)
    b = Bench(a)
    if not os.access(b.perf, os.X_OK):
        sys.exit("bench: no %s; build the release preset first" % b.perf)
    rows = []
    srv = subprocess.Popen(b.srv_cpu + [b.perf, "-s", "-B", SRV, "-p", "18600"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        wait_port(18600)
        # 1-3: the three ratios, each measured in --repeat rounds that
        # alternate reference and rdsperf, so that a noisy VM's slow
        # minute hits both; the table gives medians and the range of the
        # per-round ratios.
        def throughput(i):
            ip = b.iperf3("iperf3-%d" % i)
            st = b.rdsperf("stream-64k-%d" % i, ["-l", "64K"])
            stw = b.rdsperf("stream-64k-w4m-%d" % i, ["-l", "64K", "-w", "4M"])
            best = max(st, stw, key=lambda r: r["end"]["receiver"]["bits_per_second"])
            return best["end"]["receiver"]["bits_per_second"], ip, best is stw

        def rate(i):
            tp = b.sockperf("tp", "sockperf-tp-%d" % i)
            m = re.search(r"Message Rate is (\d+) \[msg/sec\]", tp)
            sm = b.rdsperf("stream-64-%d" % i, ["-l", "64", "-w", "4M"])
            return (sm["end"]["receiver"]["messages_per_second"],
                    float(m.group(1)) if m else float("nan"))

        def pingpong(i):
            pp = b.sockperf("pp", "sockperf-pp-%d" % i)
            m = re.search(r"percentile 50\.000 =\s+([\d.]+)", pp)
            pr = b.rdsperf("pingpong-64-%d" % i, ["--test", "pingpong", "-l", "64"])
            busy = b.rdsperf("pingpong-64-busy-%d" % i,
                             ["--test", "pingpong", "-l", "64", "--sched", "busy"])
            one = b.rdsperf("pingpong-64-paths1-%d" % i,
                            ["--test", "pingpong", "-l", "64", "--paths", "1"])
            byport = b.rdsperf("pingpong-64-byport-%d" % i,
                               ["--test", "pingpong", "-l", "64", "--path-rule", "port"])
            return (pr["end"]["latency"]["p50"], 2 * float(m.group(1)) if m else float("nan"),
                    busy["end"]["latency"]["p50"], one["end"]["latency"]["p50"],
                    pr["end"]["cpu"], one["end"]["cpu"], byport["end"]["latency"]["p50"])

        want = lambda what: a.only in (None, what)  # noqa: E731
        tps = [throughput(i) for i in range(a.repeat)] if want("throughput") else []
        rts = [rate(i) for i in range(a.repeat)] if want("rate") else []
        pps = [pingpong(i) for i in range(a.repeat)] if want("pingpong") else []
        rng = lambda xs: "%.2f-%.2f" % (min(xs), max(xs))  # noqa: E731
        if tps:
            r1 = [x[0] / x[1] for x in tps]
            rows.append(("Throughput, 64 KiB messages",
                         "rdsperf stream -l 64K (best of -w default, 4M)",
                         "%.2f Gbit/s" % (median([x[0] for x in tps]) / 1e9),
                         "iperf3 -l 64K", "%.2f Gbit/s" % (median([x[1] for x in tps]) / 1e9),
                         median(r1), rng(r1), ">= 0.90"))
        if rts:
            r2 = [x[0] / x[1] for x in rts]
            rows.append(("Rate, 64-byte messages", "rdsperf stream -l 64 -w 4M",
                         "%.0f msg/s" % median([x[0] for x in rts]), "sockperf tp --tcp -m 64",
                         "%.0f msg/s" % median([x[1] for x in rts]), median(r2), rng(r2),
                         ">= 1.00"))
        if pps:
            r3 = [x[0] / x[1] for x in pps]
            rows.append(("Ping-pong p50 round trip, 64 bytes", "rdsperf --test pingpong -l 64",
                         "%.1f us" % median([x[0] for x in pps]), "sockperf pp --tcp -m 64 (x2)",
                         "%.1f us" % median([x[1] for x in pps]), median(r3), rng(r3), "<= 1.20"))
            r4 = [x[2] / x[1] for x in pps]
            rows.append(("", "... --sched busy", "%.1f us" % median([x[2] for x in pps]), "", "",
                         median(r4), rng(r4), ""))
            r5 = [x[3] / x[1] for x in pps]
            rows.append(("", "... --paths 1", "%.1f us" % median([x[3] for x in pps]), "", "",
                         median(r5), rng(r5), ""))
            r6 = [x[6] / x[1] for x in pps]
            rows.append(("", "... --path-rule port", "%.1f us" % median([x[6] for x in pps]),
                         "", "", median(r6), rng(r6), ""))
        # 4. scaling
        scale = []
        for p in (1, 2, 4, 8) if a.only is None else ():
            r = b.rdsperf("paths-%d" % p, ["-l", "64K", "-n", "8", "--paths", str(p), "-w", "1M"])
            scale.append(("paths %d, 8 sockets" % p, r))
        for n in (1, 2, 4, 8, 16) if a.only is None else ():
            r = b.rdsperf("sockets-%d" % n, ["-l", "64K", "-n", str(n), "-w", "1M"])
            scale.append(("sockets %d, 8 paths" % n, r))
    finally:
        srv.terminate()
        srv.wait(timeout=30)
    # 5. memory per idle peer
    mem = []
    for n in (1, 100, 1000) if a.only is None else ():
        out = b.run("peers-%d" % n, [b.peers, str(n)], timeout=600)
        mem.append(dict(kv.split("=") for kv in out.split()))

    print("Medians of %d rounds (reference and rdsperf alternating):" % a.repeat)
    print()
    print("| Measure | rdsperf | | reference | | ratio | ratio range | target |")
    print("|---|---|---:|---|---:|---:|---|---|")
    for name, cmd, val, ref, refval, ratio, span, target in rows:
        print("| %s | `%s` | %s | %s | %s | %s | %s | %s |" % (
            name, cmd, val, ("`%s`" % ref) if ref else "", refval,
            "" if ratio is None else "%.2f" % ratio, span, target))
    if scale:
        print()
        print("| Scaling (stream, 64 KiB, -w 1M) | receiver Gbit/s | client CPU % | server CPU % |")
        print("|---|---:|---:|---:|")
    for name, r in scale:
        e = r["end"]
        print("| %s | %.2f | %.0f | %.0f |" % (name, e["receiver"]["bits_per_second"] / 1e9,
                                              e["cpu"]["client_percent"], e["cpu"]["server_percent"]))
    if mem:
        print()
        print("| Idle peers (8 paths each) | connections | librds core bytes/peer "
              "| RSS bytes/peer | target |")
        print("|---:|---:|---:|---:|---|")
    for m in mem:
        print("| %s | %s | %s | %s | <= 65536 |" % (m["peers"], m["connections"],
                                                    m["core_bytes_per_peer"],
                                                    m["rss_bytes_per_peer"]))
    if tps:
        print()
        print("| Throughput round | iperf3 Gbit/s | rdsperf Gbit/s | window |")
        print("|---:|---:|---:|---|")
        for i, x in enumerate(tps):
            print("| %d | %.2f | %.2f | %s |" % (i + 1, x[1] / 1e9, x[0] / 1e9,
                                                 "4M" if x[2] else "default"))
    if pps:
        print()
        print("| Ping-pong round | sockperf (x2) us | rdsperf us | CPU % client, server "
              "| --paths 1 us | CPU % client, server | busy us | --path-rule port us |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|")
        for i, x in enumerate(pps):
            print("| %d | %.1f | %.1f | %.0f, %.0f | %.1f | %.0f, %.0f | %.1f | %.1f |" % (
                i + 1, x[1], x[0], x[4]["client_percent"], x[4]["server_percent"],
                x[3], x[5]["client_percent"], x[5]["server_percent"], x[2], x[6]))
    print("\nraw output in %s" % a.out)


if __name__ == "__main__":
    main()
