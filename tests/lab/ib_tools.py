#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""rdsping and rdsperf over IB against a real kernel's rds_rdma (issue 17).

    ib_tools.py --kernel 6.1|7.2 --rdsping PATH --rdsperf PATH [--out DIR] [--time S]

Two guests with Soft-RoCE (rxe0), booted once. Guest 1 (10.199.0.2) runs
the tools both ways: first on librds (--transport ib) beside its
rds_rdma, and over TCP beside its rds_tcp, which must each fail saying
which module holds which port (the reason and what to do), then with rds_rdma unloaded so that port
18634 is librds's, then on its kernel, with
rds_rdma loaded again from the initramfs (unloading it after it had a
connection oopses 7.2). Guest 2 (10.199.0.3) runs the kernel's AF_RDS
over IB throughout (--kernel --transport ib, SO_RDS_TRANSPORT =
RDS_TRANS_IB) with one rdsperf server.

  librds -> kernel  rdsperf stream (4 KiB and 64 KiB) and pingpong (64 B),
                    librds on guest 1 against guest 2's server;
  rdsping           librds on guest 1 pings the kernel, and while its
                    endpoint is up the kernel of guest 2 pings it
                    (rdsping --kernel --transport ib): every ping answered,
                    both headers saying IB;
  kernel -> librds  guest 2's kernel client against rdsperf -s on librds;
  kernel -> kernel  guest 1's kernel client against guest 2's server: the
                    reference.

Every rdsperf run must exit 0 with messages received and none corrupt
(pingpong verified). rxe0's packet counters must have moved and no
RDS/TCP connection may exist, so the figures are IB's. The figures are
printed side by side (and written to build/lab/ib_tools-<k>/figures.md);
docs/performance.md records them with this command. The guests run under
TCG emulation: absolute numbers mean little, the ratio is what counts.
Exit: 0 pass, 1 fail, 77 skipped (not root, outside CI).
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lab  # noqa: E402

A, B = "10.199.0.2", "10.199.0.3"
PINGS_A, PINGS_B = 20, 5
# (name, rdsperf test options); each runs in every layout
TESTS = (("stream", ["--test", "stream", "-l", "4K,64K"]),
         ("pingpong", ["--test", "pingpong", "-l", "64", "--verify"]))
LAYOUTS = (("kk", "kernel -> kernel"), ("lk", "librds -> kernel"), ("kl", "kernel -> librds"))

COMMON = r'''
import os, socket, subprocess, time
D = os.environ["LAB_DIR"]
ENV = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
TIME = %r
TESTS = %r
''' + lab.guest_flags(400) + lab.GUEST_RXE_GID + lab.GUEST_RDSPERF + r'''
def counters(tag):
    c = "/sys/class/infiniband/rxe0/ports/1/hw_counters"
    v = {n: int(open(os.path.join(c, n)).read()) for n in ("sent_pkts", "rcvd_pkts")}
    print("rxe0 %%s: sent_pkts %%d rcvd_pkts %%d" %% (tag, v["sent_pkts"], v["rcvd_pkts"]),
          flush=True)

def perf(tag, peer, me, stack):
    for name, opts in TESTS:
        run("%%s_%%s" %% (tag, name), ["/run/lab/rdsperf", "-c", peer, "-B", me, "--transport", "ib",
                                  "-t", str(TIME), "-O", "1", "-i", "1", "--json"] + stack + opts)

def kernel_log():
    out = subprocess.run(["dmesg"], capture_output=True, text=True).stdout
    lines = [x for x in out.splitlines() if "RDS" in x or "rxe" in x]
    print("dmesg (RDS, rxe):\n" + "\n".join(lines[-40:]), flush=True)

def no_rds_tcp():
    out = subprocess.run(["ss", "-tnH", "( sport = :16385 or dport = :16385 )"],
                         capture_output=True, text=True).stdout.strip()
    print("RDS/TCP connections:", out or "none", flush=True)
'''

ROLE_A = r'''
%s
import glob
wait_rxe("%s")
counters("start")
# librds beside the kernel's rds_rdma (issue 31): the module's listener on
# 0.0.0.0:18634 holds that port of rxe0's address too, and the tool must
# say so rather than that the address is on no RDMA device
p = subprocess.run(["/run/lab/rdsping", "--transport", "ib", "-c", "1", "-W", "2",
                    "-I", "%s", "%s"], capture_output=True, text=True, env=ENV)
print("beside rds_rdma: exit %%d: %%s" %% (p.returncode, " ".join((p.stdout + p.stderr).split())),
      flush=True)
# and its twin: rds_tcp's listener on [::]:16385 against librds over TCP
p = subprocess.run(["/run/lab/rdsping", "--transport", "tcp", "-c", "1", "-W", "2",
                    "-I", "%s", "%s"], capture_output=True, text=True, env=ENV)
print("beside rds_tcp: exit %%d: %%s" %% (p.returncode, " ".join((p.stdout + p.stderr).split())),
      flush=True)
# Before rds_rdma has had a connection: 7.2 oopses when it is unloaded
# after one (a CM handler left behind, docs/kernel-behaviour.md).
p = subprocess.run(["rmmod", "rds_rdma"], capture_output=True, text=True)
print("rmmod rds_rdma:", p.returncode, p.stderr.strip(), flush=True)
wait_flag("srv_k")
perf("lk", "%s", "%s", [])
# librds pings the kernel; while its endpoint is up, the kernel pings it
out = os.path.join(D, "ping_a.out")
ping = subprocess.Popen(["/run/lab/rdsping", "--transport", "ib", "-c", "%d", "-i", "0.25",
                         "-W", "5", "-I", "%s", "%s"], stdout=open(out, "w"),
                        stderr=subprocess.STDOUT, env=ENV)
t = time.time() + 60
while "reply from" not in open(out).read() and ping.poll() is None and time.time() < t:
    time.sleep(0.1)
flag("ping_a_up")
wait_flag("ping_b_done", 120)
open(os.path.join(D, "ping_a.rc"), "w").write("%%d\n" %% ping.wait(timeout=120))
srv = serve("%s", [])
flag("srv_l")
wait_flag("kl_done", 400)
srv.terminate()
srv.wait()
# the kernel's own rds_rdma back, from the initramfs (pid 1's root), for
# the reference
mod = glob.glob("/proc/1/root/mod/*-rds_rdma.ko")
p = subprocess.run(["insmod"] + mod[:1], capture_output=True, text=True)
print("insmod rds_rdma:", p.returncode, p.stderr.strip(), flush=True)
perf("kk", "%s", "%s", ["--kernel"])
counters("end")
no_rds_tcp()
kernel_log()
flag("done_a")
'''

ROLE_B = r'''
%s
wait_rxe("%s")
counters("start")
srv = serve("%s", ["--kernel"])
flag("srv_k")
wait_flag("ping_a_up", 600)
run("ping_b", ["/run/lab/rdsping", "--kernel", "--transport", "ib", "-c", "%d", "-i", "0.25",
               "-W", "5", "-I", "%s", "%s"])
flag("ping_b_done")
wait_flag("srv_l", 300)
perf("kl", "%s", "%s", ["--kernel"])
flag("kl_done")
wait_flag("done_a", 300)
srv.terminate()
srv.wait()
counters("end")
no_rds_tcp()
kernel_log()
'''


def read(share, name):
    p = os.path.join(share, name)
    return open(p).read() if os.path.exists(p) else ""


def check_ping(text, who, sent, over, fails):
    m = re.search(r"^(\d+) sent, (\d+) received", text, re.M)
    if not m or int(m.group(1)) != sent or int(m.group(2)) != sent:
        fails.append("%s: want %d pings answered: %r" % (who, sent, text[-400:]))
    if not re.search(r"^RDSPING .* \(%s over IB, " % over, text, re.M):
        fails.append("%s: the header does not say %s over IB: %r" % (who, over, text[:200]))


def perf_runs(share, tag, name, fails):
    """The runs of one rdsperf invocation, checked; [] on failure."""
    rc = read(share, "%s_%s.rc" % (tag, name)).strip()
    if rc != "0":
        fails.append("%s %s: rdsperf exit %s: %s" % (tag, name, rc or "missing",
                                                      read(share, "%s_%s.err" % (tag, name))[-400:]))
        return []
    try:
        runs = json.loads(read(share, "%s_%s.out" % (tag, name)))["runs"]
    except (ValueError, KeyError) as e:
        fails.append("%s %s: no JSON: %s" % (tag, name, e))
        return []
    want = {"kk": ("kernel", "kernel"), "lk": ("librds", "kernel"), "kl": ("kernel", "librds")}[tag]
    for r in runs:
        st, end = r["start"], r["end"]
        if (st["client_stack"].split()[0], st["server_stack"].split()[0]) != want:
            fails.append("%s %s: stacks %s/%s" % (tag, name, st["client_stack"], st["server_stack"]))
        snd, rcv = end["sender"], end["receiver"]
        if not rcv["messages"] or snd["verify_errors"] or rcv["verify_errors"]:
            fails.append("%s %s %d: sender %r receiver %r" % (tag, name, st["size"], snd, rcv))
    return runs


def figures(share, fails):
    """{(test, size): {layout: (rate text, number)}} and the table."""
    rows = {}
    for tag, _ in LAYOUTS:
        for name, _ in TESTS:
            for r in perf_runs(share, tag, name, fails):
                st, end = r["start"], r["end"]
                if name == "stream":
                    rcv = end["receiver"]
                    fig = (rcv["bits_per_second"] / 1e6, "%.1f Mbit/s, %.0f msg/s" % (
                        rcv["bits_per_second"] / 1e6, rcv["messages_per_second"]))
                else:
                    lat = end["latency"]
                    fig = (end["sender"]["responses_per_second"], "%.0f /s, p50 %.0f us, p99 %.0f us" % (
                        end["sender"]["responses_per_second"], lat["p50"], lat["p99"]))
                rows.setdefault((name, st["size"]), {})[tag] = fig
    lines = ["| test | " + " | ".join(t for _, t in LAYOUTS) +
             " | librds -> kernel / kernel -> kernel | kernel -> librds / kernel -> kernel |",
             "|---" * (len(LAYOUTS) + 3) + "|"]
    for (name, size), f in sorted(rows.items()):
        cells = [f[t][1] if t in f else "-" for t, _ in LAYOUTS]
        ratios = ["%.2f" % (f[t][0] / f["kk"][0]) if t in f and "kk" in f and f["kk"][0] else "-"
                  for t in ("lk", "kl")]
        lines.append("| %s %d B | %s | %s |" % (name, size, " | ".join(cells), " | ".join(ratios)))
    return "\n".join(lines)


def main():
    ap = lab.arg_parser()
    ap.add_argument("--rdsping", required=True)
    ap.add_argument("--rdsperf", required=True)
    ap.add_argument("--time", type=float, default=5, help="seconds per rdsperf test")
    ap.add_argument("--capture", action="store_true",
                    help="record the RoCE traffic into capture.pcap (large; skews the figures)")
    a, out, log = lab.parse(ap)
    run_dir, share = lab.run_share(out, "ib_tools-%s" % a.kernel, (a.rdsping, a.rdsperf))
    fails = []
    common = COMMON % (a.time, TESTS)
    cap = os.path.join(run_dir, "capture.pcap") if a.capture else None
    with lab.Lab(a.kernel, 2, True, cap, keep=share, capture_filter="udp port 4791") as l, \
            l.judging(fails):
        rcs = l.run_roles([lab.guest_python(ROLE_A % (common, A, A, B, A, B, B, A, PINGS_A, A, B, A, B, A)),
                           lab.guest_python(ROLE_B % (common, B, B, PINGS_B, B, A, A, B))], 800)
        log("guests %s" % rcs)
        for g in (1, 2):
            log("guest %d:\n%s" % (g, l.output(g)))
        fails += lab.role_fails(rcs)
        for g in (1, 2):
            text = l.output(g)
            c = re.findall(r"^rxe0 (\w+): sent_pkts (\d+) rcvd_pkts (\d+)", text, re.M)
            if len(c) != 2 or int(c[1][2]) - int(c[0][2]) < 1000:
                fails.append("guest %d: rxe0 counters %r: the tests did not run over IB" % (g, c))
            if "RDS/TCP connections: none" not in text:
                fails.append("guest %d: an RDS/TCP connection exists" % g)
        for mod, port in (("rds_rdma", "rdma_cm port 18634"), ("rds_tcp", "TCP port 16385")):
            m = re.search(r"^beside %s: exit (\d+): (.*)$" % mod, l.output(1), re.M)
            if not m or m.group(1) == "0" or "%s holds %s" % (mod, port) not in m.group(2):
                fails.append("librds beside %s: want a failure that names its port: %r"
                             % (mod, m.group(0) if m else None))
        if "rmmod rds_rdma: 0" not in l.output(1) or "insmod rds_rdma: 0" not in l.output(1):
            fails.append("guest 1 could not unload or reload rds_rdma")
        ping_a, ping_b = read(share, "ping_a.out"), read(share, "ping_b.out")
        log("rdsping, librds -> kernel:\n%s" % ping_a)
        log("rdsping --kernel, kernel -> librds:\n%s%s" % (ping_b, read(share, "ping_b.err")))
        check_ping(ping_a, "librds rdsping", PINGS_A, "librds", fails)
        check_ping(ping_b, "kernel rdsping", PINGS_B, "kernel", fails)
        table = figures(share, fails)
        head = ("rdsperf over IB (Soft-RoCE, guests under TCG), kernel %s, %g s per test "
                "after 1 s warm-up; stream: what the receiver counted; pingpong: round "
                "trips per second and their latency" % (a.kernel, a.time))
        with open(os.path.join(run_dir, "figures.md"), "w") as f:
            f.write(head + "\n\n" + table + "\n")
        log(head + "\n" + table)
    return lab.verdict(fails, log, a.kernel)


if __name__ == "__main__":
    sys.exit(main())
