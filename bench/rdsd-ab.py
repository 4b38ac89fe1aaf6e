#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""rdsd-ab.py BEFORE AFTER [SECONDS] [ROUNDS] - two release builds' rdsd
against each other and against the reference tools, in alternating rounds
(a loaded machine hits both alike): each round runs sockperf tp, then the
64 B rate through each build's rdsd, iperf3 -l 64K, then the 64 KiB stream,
sockperf pp --full-rtt, then the ping-pong. Two ways through rdsd each:
  local  both ends rdsperf --kernel under rdsrun on one rdsd (its local
         delivery)
  tcp    the client under rdsrun on rdsd, the server rdsperf on librds
         directly (rdsd's TCP path), as bench/shim-cost.sh's rdsd-tcp
Run it in a network namespace of its own:
  unshare -n sh -c 'ip link set lo up; bench/rdsd-ab.py B1 B2 5 3'
Prints each round as JSON, then the ratios (median [range]); keeps
rdsperf's output in /tmp/rdsd-ab.
"""
import json, os, re, subprocess, sys, time, statistics
SRV, CLI = "127.5.0.1", "127.5.0.2"
T = int(sys.argv[3]) if len(sys.argv) > 3 else 5
R = int(sys.argv[4]) if len(sys.argv) > 4 else 3
B = {"before": os.path.realpath(sys.argv[1]), "after": os.path.realpath(sys.argv[2])}
OUT = "/tmp/rdsd-ab"; os.makedirs(OUT, exist_ok=True)
n = [0]
def rdsperf(build, mode, args):
    n[0] += 1
    env = dict(os.environ, RDSD_PATH=build + "/shim/rdsd", RDSRUN_DAEMON="1", RDSD_NAME="alt%d-%d" % (os.getpid(), n[0]))
    perf, run = build + "/tools/rdsperf/rdsperf", [build + "/shim/rdsrun", "-f"]
    spre, sk = (run, ["--kernel"]) if mode == "local" else ([], [])
    s = subprocess.Popen(spre + [perf, "-s", "-B", SRV, "-p", "18600"] + sk, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    p = subprocess.run(run + [perf, "-c", SRV, "-B", CLI, "-p", "18600", "-t", str(T), "-O", "1", "-i", "0", "--json", "--kernel"] + args, env=env, capture_output=True, text=True, timeout=T * 4 + 60)
    s.terminate(); s.wait()
    open("%s/%d.json" % (OUT, n[0]), "w").write(p.stdout + p.stderr)
    time.sleep(2.5)  # the spawned rdsd lingers 2 s holding both addresses
    return json.loads(p.stdout)["runs"][0]["end"]
def ref(argv_s, argv_c):
    s = subprocess.Popen(argv_s, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1)
    out = subprocess.run(argv_c, capture_output=True, text=True).stdout
    s.terminate(); s.wait()
    return out
rows = []
for i in range(R):
    r = {"load": os.getloadavg()[0]}
    out = ref(["sockperf", "sr", "--tcp", "-i", SRV, "-p", "11111"], ["sockperf", "tp", "--tcp", "-i", SRV, "-p", "11111", "-m", "64", "-t", str(T)])
    r["stp"] = float(re.search(r"Message Rate is (\d+)", out).group(1))
    for b in ("before", "after"):
        for m in ("local", "tcp"):
            e = rdsperf(B[b], m, ["-l", "64"])
            r["rate_%s_%s" % (b, m)] = e["receiver"]["messages_per_second"]
            r["srate_%s_%s" % (b, m)] = e["sender"]["messages_per_second"]
    out = ref(["iperf3", "-s", "-B", SRV, "-p", "5301", "-1"], ["iperf3", "-c", SRV, "-p", "5301", "-l", "64K", "-O", "1", "-t", str(T), "-J"])
    r["iperf3"] = json.loads(out)["end"]["sum_received"]["bits_per_second"]
    for b in ("before", "after"):
        for m in ("local", "tcp"):
            e = rdsperf(B[b], m, ["-l", "64K"])
            r["st_%s_%s" % (b, m)] = e["receiver"]["bits_per_second"]
    out = ref(["sockperf", "sr", "--tcp", "-i", SRV, "-p", "11111"], ["sockperf", "pp", "--tcp", "-i", SRV, "-p", "11111", "-m", "64", "-t", str(T), "--full-rtt"])
    r["sp50"] = float(re.search(r"percentile 50.000 =\s+([\d.]+)", out).group(1))
    for b in ("before", "after"):
        for m in ("local", "tcp"):
            e = rdsperf(B[b], m, ["--test", "pingpong", "-l", "64"])
            r["p50_%s_%s" % (b, m)] = e["latency"]["p50"]
    r["load_end"] = os.getloadavg()[0]
    rows.append(r)
    print(json.dumps(r), flush=True)
print("RATIOS (median [min-max] over rounds)")
def st(key, refk, inv=False):
    v = [x[key] / x[refk] for x in rows]
    return "%.2f [%.2f-%.2f]" % (statistics.median(v), min(v), max(v))
for b in ("before", "after"):
    for m in ("local", "tcp"):
        print(b, m, "64B rate/sockperf", st("rate_%s_%s" % (b, m), "stp"),
              "| sender-side", st("srate_%s_%s" % (b, m), "stp"),
              "| 64K/iperf3", st("st_%s_%s" % (b, m), "iperf3"),
              "| pp p50/sockperf", st("p50_%s_%s" % (b, m), "sp50"))
