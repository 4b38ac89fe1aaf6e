#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Issue 32's IB figures in one boot of two lab guests (Soft-RoCE, TCG);
with --rdma, issue 30's RDMA figures instead (below).

    flock /tmp/rds-lab.lock bench/ib-lab.py --kernel 7.2 \\
        --rdsperf build/portable/tools/rdsperf/rdsperf \\
        --rdsping build/portable/tools/rdsping/rdsping [--time 2] [--busy-poll US] [--out DIR]

Guest 1 (10.199.0.2) is the client, guest 2 (10.199.0.3) the server, in
this order within one boot (rds_rdma unloaded on both first, so rdma_cm
port 18634 is librds's, and loaded again from the initramfs when the
kernel's turn comes; unloading it after it had a connection oopses 7.2):

  librds -> librds   rdsperf stream 4 KiB..1 MiB and pingpong 64 B;
  idle               (after librds -> kernel) a librds endpoint with one
                     link up and idle but for a ping every 2 s (rdsping
                     to the kernel of guest 2): its CPU, its resident
                     memory and the guest's MemAvailable meanwhile;
  verbs              perftest's ib_send_lat (64 B) and ib_send_bw at the
                     stream sizes, rdma_cm (-R), on the same link;
  librds -> kernel   the same rdsperf tests against the kernel's server;
  kernel -> kernel   and the kernel against itself: the reference.

Beside the table: each rdsperf client's CPU and sleeps (voluntary context
switches, getrusage of the guest's children around the run, warm-up
included) per message or round trip, and the librds server's over every
librds -> librds test (its /proc, sampled every 0.2 s): librds's stack
runs in the process, the kernel's mostly in softirq, which they miss.

--rdma (no --rdsping): the same boot and order with rdsperf's
rdma-write and rdma-read at 4 KiB, 64 KiB and 1 MiB and its atomic test,
8 operations in flight, in each layout (the atomic test last: a kernel
whose masked atomic rxe refuses leaves its connection stuck behind it),
and perftest's ib_write_bw, ib_read_bw (same sizes) and ib_atomic_bw as
the verbs column; no idle measurement. A run whose memory did not check
out is a failure of the bench, except atomics with a kernel at either
end, which Soft-RoCE cannot run (docs/kernel-behaviour.md).

Defaults throughout (librds's busy-poll included), except the socket
window for 256 KiB and 1 MiB, which the kernel refuses above its SNDBUF
(rds_sendmsg: EMSGSIZE): those run with -w 4M on every stack, and
net.core.wmem_max/rmem_max raised to allow it. Unpinned. Writes
figures.md (the table) and raw.txt (every tool's output) into the run
directory and prints both. Exit 0 when every run produced figures.
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "lab"))
import lab  # noqa: E402

A, B = "10.199.0.2", "10.199.0.3"
SMALL = "4K,16K,64K"
LARGE = "256K,1M"
SIZES = [4096, 16384, 65536, 262144, 1048576]
LAYOUTS = (("ll", "librds -> librds"), ("lk", "librds -> kernel"), ("kk", "kernel -> kernel"))

COMMON = r'''
import os, socket, subprocess, time, glob
D = os.environ["LAB_DIR"]
ENV = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
if %r is not None:
    ENV["RDSU_IB_BUSY_POLL"] = str(%r)
TIME = %r
SMALL = %r
LARGE = %r
SIZES = %r
RDMA = %r
RSIZES = %r
RSIZE_LIST = [4096, 65536, 1048576]
''' + lab.guest_flags(600) + lab.GUEST_RXE_GID + lab.GUEST_RDSPERF + r'''
def sh(args):
    p = subprocess.run(args, capture_output=True, text=True)
    print(" ".join(args), "->", p.returncode, p.stderr.strip(), flush=True)
    return p.returncode

def run_ru(name, args):
    # the client's CPU and sleeps (voluntary context switches) over the
    # run, warm-up included: librds's whole stack is in the process, the
    # kernel's mostly in softirq, which this does not count
    import resource
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    rc = run(name, args)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    open(os.path.join(D, name + ".ru"), "w").write("%%.3f %%d %%d\n" %% (
        r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime,
        r1.ru_nvcsw - r0.ru_nvcsw, r1.ru_nivcsw - r0.ru_nivcsw))
    return rc

def perf(tag, peer, me, stack):
    base = ["/run/lab/rdsperf", "-c", peer, "-B", me, "--transport", "ib", "-t", str(TIME),
            "-O", "1", "-i", "0", "--json"] + stack
    if RDMA:
        # the atomic test last: a kernel that posts a masked atomic rxe
        # refuses leaves its connection's queue stuck behind it
        run(tag + "_write", base + ["--test", "rdma-write", "--depth", "8", "-l", RSIZES])
        run(tag + "_read", base + ["--test", "rdma-read", "--depth", "8", "-l", RSIZES])
        run(tag + "_atomic", base + ["--test", "atomic", "--depth", "8"])
        return
    run_ru(tag + "_small", base + ["--test", "stream", "-l", SMALL])
    run_ru(tag + "_large", base + ["--test", "stream", "-l", LARGE, "-w", "4M"])
    run_ru(tag + "_pingpong", base + ["--test", "pingpong", "-l", "64"])

def proc(pid):
    f = open("/proc/%%d/stat" %% pid).read().rsplit(")", 1)[1].split()
    rss = [l for l in open("/proc/%%d/status" %% pid) if l.startswith("VmRSS")][0].split()[1]
    return int(f[11]) + int(f[12]), int(rss)

def sleeps(pid):
    return int([l for l in open("/proc/%%d/status" %% pid)
                if l.startswith("voluntary_ctxt_switches")][0].split()[1])

def mem_avail():
    return int([l for l in open("/proc/meminfo") if l.startswith("MemAvailable")][0].split()[1])

def big_windows():
    for k in ("wmem_max", "rmem_max"):
        open("/proc/sys/net/core/" + k, "w").write("8388608\n")

PT = ["-d", "rxe0", "-R", "-F"]
def pt_lat():
    return ["ib_send_lat"] + PT + ["-s", "64", "-n", "500"]
def pt_bw(size, tool="ib_send_bw"):
    n = max(8, (8 << 20) // size)   # 8 MiB a size
    return [tool] + PT + ["-s", str(size), "-n", str(n), "-t", str(min(64, n))]
# the perftest runs, by name: "pt_lat", "pt_bw_SIZE"; --rdma: "pt_write_SIZE",
# "pt_read_SIZE", "pt_atomic"
PT_NAMES = (["pt_write_%%d" %% s for s in RSIZE_LIST] + ["pt_read_%%d" %% s for s in RSIZE_LIST] +
            ["pt_atomic"]) if RDMA else ["pt_lat"] + ["pt_bw_%%d" %% s for s in SIZES]
def pt_args(name):
    if name == "pt_lat":
        return pt_lat()
    if name == "pt_atomic":
        return ["ib_atomic_bw"] + PT + ["-A", "FETCH_AND_ADD", "-n", "20000"]
    kind, size = name.split("_")[1:]
    return pt_bw(int(size), {"bw": "ib_send_bw", "write": "ib_write_bw", "read": "ib_read_bw"}[kind])
'''

ROLE_A = r'''
%s
wait_rxe("%s")
sh(["rmmod", "rds_rdma"])
big_windows()
wait_flag("srv_ll")
perf("ll", "%s", "%s", [])
flag("ll_done")
# perftest: the server side starts each, we connect (retrying while it binds)
for name in PT_NAMES:
    wait_flag(name + "_up")
    args = pt_args(name)
    for i in range(10):
        time.sleep(1)
        if run(name, args + ["%s"], timeout=60) == 0:
            break
    flag(name + "_done")
wait_flag("srv_k")
perf("lk", "%s", "%s", [])
if not RDMA:
    # an idle librds IB endpoint: rdsping's, one link up to the kernel of
    # guest 2 and a ping every 2 s; its CPU and memory sampled meanwhile
    avail0 = mem_avail()
    t0 = time.time()
    ping = subprocess.Popen(["/run/lab/rdsping", "--transport", "ib", "-c", "6", "-i", "2", "-W", "5",
                             "-I", "%s", "%s"], stdout=open(os.path.join(D, "idle_ping.out"), "w"),
                            stderr=subprocess.STDOUT, env=ENV)
    first = None
    peak = 0
    avail_min = avail0
    while ping.poll() is None:
        try:
            cpu, rss = proc(ping.pid)
        except (OSError, IndexError):
            break
        if first is None:
            first = rss
        peak = max(peak, rss)
        last_cpu = cpu
        avail_min = min(avail_min, mem_avail())
        time.sleep(0.1)
    t1 = time.time()
    hz = os.sysconf("SC_CLK_TCK")
    open(os.path.join(D, "idle.txt"), "w").write(
        "librds rdsping (IB, one link to the kernel, a ping every 2 s): CPU %%.2f s over %%.1f s "
        "(%%.1f %%%%); VmRSS first sample %%d KiB, peak %%d KiB; guest MemAvailable %%d KiB before, "
        "at least %%d KiB during (-%%d KiB, kernel and device queues included); exit %%d\n" %% (
            last_cpu / hz, t1 - t0, 100.0 * last_cpu / hz / (t1 - t0), first or 0, peak, avail0,
            avail_min, avail0 - avail_min, ping.returncode))
mod = glob.glob("/proc/1/root/mod/*-rds_rdma.ko")
sh(["insmod"] + mod[:1])
perf("kk", "%s", "%s", ["--kernel"])
flag("done_a")
'''

ROLE_B = r'''
%s
wait_rxe("%s")
sh(["rmmod", "rds_rdma"])
big_windows()
srv = serve("%s", [])
time.sleep(1)
cpu0, rss0 = proc(srv.pid)
sl0 = sleeps(srv.pid)
flag("srv_ll")
peak = rss0
cpu1, sl1 = cpu0, sl0
while not os.path.exists(os.path.join(D, "ll_done")):
    try:
        c, rss = proc(srv.pid)
        peak = max(peak, rss)
        cpu1, sl1 = c, sleeps(srv.pid)
    except (OSError, IndexError):
        break
    time.sleep(0.2)
hz = os.sysconf("SC_CLK_TCK")
open(os.path.join(D, "ll_server.ru"), "w").write("%%.3f %%d 0\n" %% ((cpu1 - cpu0) / hz, sl1 - sl0))
open(os.path.join(D, "server.txt"), "w").write(
    "librds rdsperf server: VmRSS before any peer %%d KiB, peak during the streams %%d KiB\n" %% (
        rss0, peak))
srv.terminate()
srv.wait()
for name in PT_NAMES:
    args = pt_args(name)
    p = subprocess.Popen(args, stdout=open(os.path.join(D, name + ".srv"), "w"),
                         stderr=subprocess.STDOUT)
    flag(name + "_up")
    wait_flag(name + "_done")
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
mod = glob.glob("/proc/1/root/mod/*-rds_rdma.ko")
sh(["insmod"] + mod[:1])
srv = serve("%s", ["--kernel"])
flag("srv_k")
wait_flag("done_a")
srv.terminate()
srv.wait()
'''


def read(share, name):
    p = os.path.join(share, name)
    return open(p).read() if os.path.exists(p) else ""


def rdsperf_figs(share, tag, fails):
    """{(test, size): (number, text)} from one layout's three runs."""
    out = {}
    for part in ("small", "large", "pingpong"):
        name = "%s_%s" % (tag, part)
        rc = read(share, name + ".rc").strip()
        if rc != "0":
            fails.append("%s: rdsperf exit %s: %s" % (name, rc or "missing",
                                                      read(share, name + ".err")[-300:]))
            continue
        try:
            runs = json.loads(read(share, name + ".out"))["runs"]
        except (ValueError, KeyError) as e:
            fails.append("%s: no JSON: %s" % (name, e))
            continue
        for r in runs:
            size, end = r["start"]["size"], r["end"]
            if part == "pingpong":
                lat = end["latency"]
                out[("pingpong", size)] = (lat["p50"], "p50 %.0f µs (%.0f /s)" % (
                    lat["p50"], end["sender"]["responses_per_second"]))
            else:
                rcv = end["receiver"]
                if not rcv["messages"]:
                    fails.append("%s %d: nothing received" % (name, size))
                out[("stream", size)] = (rcv["bits_per_second"] / 1e6, "%.1f Mbit/s" % (
                    rcv["bits_per_second"] / 1e6))
    return out


def client_cost(share):
    """Lines: each layout's client CPU and sleeps per message, from
    run_ru's rusage and the messages rdsperf counted."""
    lines = []
    for tag, label in LAYOUTS:
        for part in ("small", "large", "pingpong"):
            name = "%s_%s" % (tag, part)
            ru = read(share, name + ".ru").split()
            try:
                runs = json.loads(read(share, name + ".out"))["runs"]
                n = sum(r["end"]["sender"]["responses" if part == "pingpong" else "messages"]
                        for r in runs)
            except (ValueError, KeyError, TypeError):
                continue
            if len(ru) != 3 or not n:
                continue
            cpu, vol, invol = float(ru[0]), int(ru[1]), int(ru[2])
            lines.append("%s %-8s client: CPU %.2f s, %d sleeps (%d preempted) for %d %s: "
                         "%.0f µs CPU and %.2f sleeps each" % (
                             tag, part, cpu, vol, invol, n,
                             "round trips" if part == "pingpong" else "messages",
                             cpu * 1e6 / n, vol / n))
    ru = read(share, "ll_server.ru").split()
    n = 0
    for part in ("small", "large", "pingpong"):
        try:
            n += sum(r["end"]["sender"]["responses" if part == "pingpong" else "messages"]
                     for r in json.loads(read(share, "ll_%s.out" % part))["runs"])
        except (ValueError, KeyError, TypeError):
            pass
    if len(ru) == 3 and n:
        lines.append("ll server (every ll test, sampled every 0.2 s): CPU %.2f s, %d sleeps for "
                     "%d messages and round trips: %.0f µs CPU and %.2f sleeps each" % (
                         float(ru[0]), int(ru[1]), n, float(ru[0]) * 1e6 / n, int(ru[1]) / n))
    return "\n".join(lines)


def perftest_figs(share, fails):
    out = {}
    lat = read(share, "pt_lat.out")
    # #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9% (one way, µs)
    m = re.search(r"^\s*64\s+\d+\s+[\d.]+\s+[\d.]+\s+([\d.]+)", lat, re.M)
    if m:
        rtt = 2 * float(m.group(1))
        out[("pingpong", 64)] = (rtt, "p50 %.0f µs (2 × t_typical)" % rtt)
    else:
        fails.append("ib_send_lat: no figures: %r" % (lat[-300:] + read(share, "pt_lat.err")[-300:]))
    for s in SIZES:
        t = read(share, "pt_bw_%d.out" % s)
        # #bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]
        m = re.search(r"^\s*%d\s+\d+\s+[\d.]+\s+([\d.]+)" % s, t, re.M)
        if m:
            mbit = float(m.group(1)) * 8 * 1.048576  # perftest's MB is MiB
            out[("stream", s)] = (mbit, "%.1f Mbit/s" % mbit)
        else:
            fails.append("ib_send_bw %d: no figures: %r" % (s, (t + read(share, "pt_bw_%d.err" % s))[-300:]))
    return out


RROWS = [("rdma-write", 4096), ("rdma-write", 65536), ("rdma-write", 1048576),
         ("rdma-read", 4096), ("rdma-read", 65536), ("rdma-read", 1048576), ("atomic", 8)]


def rdma_figs(share, tag, fails):
    """--rdma: {(test, size): (number, text)} from one layout's three runs; a
    run that failed shows rdsperf's reason (an atomic refused is a result,
    not a failure of the bench: docs/kernel-behaviour.md's RDMA table)."""
    out = {}
    for part in ("write", "read", "atomic"):
        name = "%s_%s" % (tag, part)
        rc = read(share, name + ".rc").strip()
        err = [l for l in read(share, name + ".err").splitlines() if l.startswith("rdsperf: ")]
        try:
            runs = json.loads(read(share, name + ".out"))["runs"]
        except (ValueError, KeyError) as e:
            fails.append("%s: rdsperf exit %s, no JSON (%s): %s" % (name, rc, e, " / ".join(err)))
            continue
        for r in runs:
            test, size, m = r["start"]["test"], r["start"]["size"], r["end"].get("rdma", {})
            if m.get("verified") and not m.get("failed") and not m.get("never_notified"):
                if test == "atomic":
                    out[(test, size)] = (m["operations_per_second"],
                                         "%.0f op/s" % m["operations_per_second"])
                else:
                    mbit = m["bits_per_second"] / 1e6
                    out[(test, size)] = (mbit, "%.1f Mbit/s (%.0f op/s)" % (
                        mbit, m["operations_per_second"]))
                continue
            why = ("%d failed, first %s" % (m["failed"], m["first_failure"]) if m.get("failed")
                   else "%d never notified" % m["never_notified"] if m.get("never_notified")
                   else r.get("error") or "not verified")
            out[(test, size)] = (None, "fails: " + why)
            if test != "atomic" or tag == "ll":   # librds at both ends has atomics
                fails.append("%s %s %d: %s" % (name, test, size, why))
        if rc != "0" and err:
            print("%s (exit %s): %s" % (name, rc, " / ".join(err)), flush=True)
        # sizes that never ran (the server refused the test, rdsperf stopped)
        for test, size in RROWS:
            if test == "rdma-" + part or (part == "atomic" and test == "atomic"):
                if (test, size) not in out:
                    why = err[-1][len("rdsperf: "):] if err else "no run (exit %s)" % rc
                    out[(test, size)] = (None, "did not run: " + ": ".join(why.split(": ")[-2:]))
                    if test != "atomic" or tag == "ll":
                        fails.append("%s %s %d: did not run: %s" % (name, test, size, why))
    return out


def pt_rdma_figs(share, fails):
    out = {}
    for test, size in RROWS:
        name = "pt_atomic" if test == "atomic" else "pt_%s_%d" % (test[5:], size)
        t = read(share, name + ".out")
        # #bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]
        m = re.search(r"^\s*%d\s+\d+\s+[\d.]+\s+([\d.]+)\s+([\d.]+)" % size, t, re.M)
        if not m:
            fails.append("%s: no figures: %r" % (name, t[-300:]))
        elif test == "atomic":
            rate = float(m.group(2)) * 1e6
            out[(test, size)] = (rate, "%.0f op/s" % rate)
        else:
            mbit = float(m.group(1)) * 8 * 1.048576  # perftest's MB is MiB
            out[(test, size)] = (mbit, "%.1f Mbit/s" % mbit)
    return out


def rdma_table(figs):
    head = ["test"] + [n for _, n in LAYOUTS] + ["verbs (perftest)"]
    lines = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for test, size in RROWS:
        name = "atomic (FADD, CSWP)" if test == "atomic" else "%s %s" % (
            test, "%d KiB" % (size // 1024) if size < 1 << 20 else "1 MiB")
        cells = [figs.get(c, {}).get((test, size), (None, "-"))[1]
                 for c in [t for t, _ in LAYOUTS] + ["pt"]]
        lines.append("| " + " | ".join([name] + cells) + " |")
    return "\n".join(lines)


def table(figs):
    rows = [("pingpong", 64)] + [("stream", s) for s in SIZES]
    cols = [t for t, _ in LAYOUTS] + ["pt"]
    head = ["test"] + [n for _, n in LAYOUTS] + ["verbs (perftest)",
                                                 "librds↔librds / kernel", "librds→kernel / kernel"]
    lines = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for row in rows:
        cells = [figs.get(c, {}).get(row, (None, "-"))[1] for c in cols]
        kk = figs.get("kk", {}).get(row, (None,))[0]
        ratios = []
        for c in ("ll", "lk"):
            v = figs.get(c, {}).get(row, (None,))[0]
            if v is None or not kk:
                ratios.append("-")
            elif row[0] == "pingpong":   # latency: lower is better; ratio of p50s
                ratios.append("%.2f (p50)" % (v / kk))
            else:
                ratios.append("%.2f" % (v / kk))
        name = "pingpong 64 B" if row[0] == "pingpong" else "stream %s" % (
            "%d KiB" % (row[1] // 1024) if row[1] < 1 << 20 else "1 MiB")
        lines.append("| " + " | ".join([name] + cells + ratios) + " |")
    return "\n".join(lines)


def main():
    ap = lab.arg_parser()
    ap.add_argument("--rdsperf", required=True)
    ap.add_argument("--rdsping", help="needed without --rdma")
    ap.add_argument("--rdma", action="store_true",
                    help="issue 30's figures instead: rdsperf rdma-write, rdma-read (4 KiB, "
                         "64 KiB, 1 MiB) and atomic beside ib_write_bw, ib_read_bw, ib_atomic_bw")
    ap.add_argument("--busy-poll", type=int, default=None,
                    help="RDSU_IB_BUSY_POLL for librds (µs; default: librds's own)")
    ap.add_argument("--time", type=float, default=2, help="seconds per rdsperf size")
    a, out, log = lab.parse(ap)
    if not a.rdma and not a.rdsping:
        ap.error("--rdsping is needed (or --rdma)")
    run_dir, share = lab.run_share(out, "ib_%s-%s%s" % (
        "rdma" if a.rdma else "bench", a.kernel,
        "" if a.busy_poll is None else "-bp%d" % a.busy_poll),
        (a.rdsperf,) if a.rdma else (a.rdsperf, a.rdsping))
    fails = []
    common = COMMON % (a.busy_poll, a.busy_poll, a.time, SMALL, LARGE, SIZES, a.rdma, "4K,64K,1M")
    with lab.Lab(a.kernel, 2, True, keep=share) as l, l.judging(fails):
        rcs = l.run_roles([lab.guest_python(ROLE_A % (common, A, B, A, B, B, A, A, B, B, A)),
                           lab.guest_python(ROLE_B % (common, B, B, B))],
                          600 if a.rdma else 1200)
        for g in (1, 2):
            log("guest %d:\n%s" % (g, l.output(g)))
        fails += lab.role_fails(rcs)
        if a.rdma:
            figs = {t: rdma_figs(share, t, fails) for t, _ in LAYOUTS}
            figs["pt"] = pt_rdma_figs(share, fails)
            tab = rdma_table(figs)
        else:
            figs = {t: rdsperf_figs(share, t, fails) for t, _ in LAYOUTS}
            figs["pt"] = perftest_figs(share, fails)
            tab = table(figs)
        idle = read(share, "idle.txt").strip() + "\n" + read(share, "server.txt").strip()
        if not a.rdma:
            idle += "\n" + client_cost(share)
        raw = []
        for f in sorted(os.listdir(share)):
            if f.endswith((".out", ".srv")) or f in ("idle.txt", "server.txt"):
                raw.append("== %s\n%s" % (f, read(share, f).strip()))
        head = ("IB over Soft-RoCE, kernel %s, rdsperf %g s per size after 1 s warm-up, %s%s" % (
                    a.kernel, a.time, "RDMA operations as the client's notifications counted, "
                    "8 in flight, each run's memory checked by digest" if a.rdma else
                    "ping-pong p50 round trip, stream as the receiver counted",
                    "" if a.busy_poll is None else ", RDSU_IB_BUSY_POLL=%d" % a.busy_poll))
        with open(os.path.join(run_dir, "figures.md"), "w") as f:
            f.write(head + "\n\n" + tab + "\n\n" + idle + "\n")
        with open(os.path.join(run_dir, "raw.txt"), "w") as f:
            f.write("\n".join(raw) + "\n")
        log(head + "\n" + tab + "\n" + idle)
        log("raw: " + os.path.join(run_dir, "raw.txt"))
    return lab.verdict(fails, log, a.kernel)


if __name__ == "__main__":
    sys.exit(main())
