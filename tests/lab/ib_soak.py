#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""librds against a kernel's rds_rdma over Soft-RoCE under faults (issue 35,
and issue 30's "connection broken while RDMA operations are pending").

    ib_soak.py --kernel 6.1|7.2 --ibpeer PATH [--duration S]
               [--faults cut1,qperr,...] [--out DIR]

Two guests with rxe0, one boot. Guest 1 (10.199.0.2) unloads its
rds_rdma and runs `ibpeer --soak` (librds, IB alone, ports 4000 and
4001, connecting first); guest 2 (10.199.0.3) runs the kernel's AF_RDS
over IB: port 5000 sends and receives the message streams, port 5001
owns the memory librds's RDMA goes to.

Streams: both sides send messages of 8 to 9000 bytes as fast as they
can, message i holding i and a pattern of i; the receiver checks each
against the next index: below is a duplicate, above a loss. What RDS
promises and this test holds it to: while both sockets live, every
message exactly once and in order, whatever ends the connection
(net/rds/send.c rds_send_path_reset puts every unacknowledged message
back and flags it RETRANSMITTED; recv.c rds_recv_incoming drops a
RETRANSMITTED one below the next expected number). Lost or duplicated:
0 each way.

RDMA: librds keeps 4 RDMA READs and WRITEs of 8 KiB in flight against a
64 KiB region the kernel maps with RDS_CMSG_RDMA_MAP ("HELLO" asks for
one after every reset and after any failed op; the kernel frees the
last one with RDS_FREE_MR and INVALIDATE first). Every op carries
NOTIFY_ME: exactly one notification each (SUCCESS, REMOTE_ERROR,
DROPPED, ...), none for a token not pending; each local buffer sits
between guard bytes and is filled with poison once its op is notified,
and must still hold it when it is next used and at the end (nothing
written into memory after its op ended). Every 3 s librds maps a region
of its own (RDSU_OP_MAP) and frees it at once, so the message holds it:
the region count (rdsu_ep_mr_count, and the transport's own) must be 0
at the end. The kernel checks its regions' guard bytes, and that no
freed region was written after its RDS_FREE_MR.

The kernel gives its region back (RDS_FREE_MR) once librds has been
quiet on that socket for 3 s: a region a socket holds keeps its
connection from ending after a fault (docs/kernel-behaviour.md, "Faults
under traffic"), and librds asks for a new one once it is back.

Faults, in turn, one every --interval s, the run going on between them:
  cut1, cut2    the host takes guest 1's (librds) or 2's (kernel) bridge
                port down for CUT s, then up: the link gone on the wire
  link1, link2  ip link set dev eth0 down in guest 1 or 2 for CUT s, then
                up (eth0 carries rxe0), then rxe0 made anew there (see
                RELINK below for why)
  rxe1, rxe2    rdma link delete rxe0 in guest 1 (librds gives the device
                back) or 2 (the kernel's), then add it back (rdma link
                add rxe0 type rxe netdev eth0)
  qperr         librds's own QP put in the error state with its RDMA in
                flight (rdsu_ib_fault_qp), as a failing HCA would
  rkey          librds posts an RDMA WRITE with an r_key the kernel never
                gave out: the kernel's HCA refuses it, which ends both
                QPs (docs/kernel-behaviour.md, RDMA table); its one
                notification must not be SUCCESS
  reboot        the kernel's side "crashes": its role ends without
                draining its sockets, the guest powers off and a new one
                boots with the same address and goes on (its next life)
A reboot is where RDS promises nothing: what the dead socket had
received and not read, what it had queued and not had acknowledged,
and what arrives before the new socket is bound are gone, and what
librds resends that the dead socket had read but not acknowledged
comes again. So the first message of each new life may skip or repeat
(counted apart as lost_life and dup_life, and written down); the
kernel's new life numbers on from what it had sent, so librds may see
a gap there but never a repeat; and everywhere else 0 lost and 0
duplicated.
Each fault must end the connection (conn_reset rises) and the streams
and the RDMA (an op that succeeds) must move again afterwards. Memory:
librds's RSS (ibpeer, an ASan build with a 16 MiB quarantine) is sampled
every 2 s; after the first fault round it may not grow by more than
max(4 MiB, 10 %); librds's queues, ops and regions end empty.
Outputs in build/lab/ib_soak-<k>-<duration>/. Exit: 0 pass, 1 fail, 77
skipped (not root, outside CI).
"""
import os
import re
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lab  # noqa: E402
import ib_kernel  # noqa: E402

A, B = ib_kernel.A, ib_kernel.B
CUT = ib_kernel.CUT
# On Soft-RoCE an "ip link set down" of rxe0's netdev under traffic
# leaves the node's GSI QP (QP1, which carries the CM's MADs) in the error
# state for good: no RDMA CM connection leaves or reaches that node again,
# the kernel's own rds_rdma included, until rxe0 is made anew
# (docs/kernel-behaviour.md, "Faults under traffic"). The in-guest link
# faults are therefore the cut and that repair, as an administrator would
# do it; cut1 and cut2 take the link away on the wire (the host's bridge
# port), which needs no repair.
RELINK = "rdma link delete rxe0; sleep 2; rdma link add rxe0 type rxe netdev eth0; sleep 1; rdma link"
DOWN = "ip link set dev eth0 down; sleep %g; ip link set dev eth0 up; " % CUT
FAULTS = {
    "cut1": (1, None),
    "cut2": (2, None),
    "link1": (1, DOWN + RELINK),
    "link2": (2, DOWN + RELINK),
    "rxe1": (1, RELINK),
    "rxe2": (2, RELINK),
    "qperr": (None, None),
    "rkey": (None, None),
    "reboot": (2, None),
}
ASAN = "detect_leaks=0:quarantine_size_mb=16"
RSS_SLACK_KB = 4096

# A fault agent in each guest: the harness leaves "cmd-G-N" (a shell
# line) in the run directory; the agent runs it and answers "cmd-G-N.done"
# (exit code, seconds, output).
AGENT = r'''
import threading

def agent(g):
    def loop():
        # a rebooted guest's agent goes on where the last one stopped
        n = len([f for f in os.listdir(D) if f.startswith("cmd-%d-" % g) and f.endswith(".done")])
        while True:
            p = os.path.join(D, "cmd-%d-%d" % (g, n))
            if os.path.exists(p):
                t = time.time()
                r = subprocess.run(["sh", "-c", open(p).read()], capture_output=True, text=True)
                with open(p + ".tmp", "w") as f:
                    f.write("%d %.1f\n%s%s" % (r.returncode, time.time() - t, r.stdout, r.stderr))
                os.rename(p + ".tmp", p + ".done")
                n += 1
            time.sleep(0.2)
    threading.Thread(target=loop, daemon=True).start()
'''

KERNEL_SOAK = r"""
python3 - <<'PY'
%(common)s
import ctypes, struct
wait_rxe()
hw_watch("kernel")
agent(2)
s = rds_socket(5000, timeout=2)
s.setsockopt(socket.SOL_SOCKET, SO_SNDBUFFORCE, 1 << 20)
r = rds_socket(5001, timeout=2)
flag("ready_kernel")
PEER, RPEER, SZ, LIFE = (%(peer)r, 4000), (%(peer)r, 4001), %(sizes)r, %(life)d
RDS_CMSG_RDMA_MAP, RDS_FREE_MR, RDS_RDMA_READWRITE, RDS_RDMA_INVALIDATE = 3, 3, 1, 4
PAGE, REG, OFF, GUARD = 4096, 65536, 100, 64
RETRY = (errno.ENOBUFS, errno.EAGAIN, errno.ENOMEM, errno.ENETUNREACH, errno.EHOSTUNREACH,
         errno.EADDRNOTAVAIL, errno.ENODEV, errno.ECONNRESET, errno.ENOTCONN, errno.EPIPE)
stopped = lambda: os.path.exists(os.path.join(D, "stop")) or halt.is_set()
halt = threading.Event()
wait_flag("ready_peer")
# where the last life stopped: what it had received and sent
last = lost = dup = lost_life = dup_life = 0
sent, errs = [0], {}
if LIFE:
    last, sent[0], lost, dup, lost_life, dup_life = (
        int(x) for x in open(os.path.join(D, "kstate-%%d" %% (LIFE - 1))).read().split())
first = [bool(LIFE)]

def sender():
    i = sent[0]
    while not stopped():
        m = many_msg("mb", i, SZ[i %% len(SZ)])
        m = m[:4] + bytes([LIFE]) + m[5:]
        try:
            s.sendto(m, PEER)
            i += 1
            sent[0] = i
        except socket.timeout:
            errs["timeout"] = errs.get("timeout", 0) + 1
        except OSError as e:
            if e.errno not in RETRY:
                raise
            k = errno.errorcode.get(e.errno, e.errno)
            errs[k] = errs.get(k, 0) + 1
            time.sleep(0.01)

regions, freed, owner_log, quiet_frees, QUIET = [], [], [], [0], 3.0

def free_last(why):
    try:
        r.setsockopt(SOL_RDS, RDS_FREE_MR, struct.pack("=QQ", regions[-1][2],
                                                        RDS_RDMA_INVALIDATE))
        freed.append(regions[-1])
        ctypes.memset(regions[-1][1], 0xee, REG)
    except OSError as e:
        owner_log.append("free %%#x (%%s): %%s" %% (regions[-1][2], why, e))
    regions[-1] = regions[-1][:2] + (0,)

def owner():
    # the regions librds's RDMA goes to: a new one on each HELLO. A
    # region held across a connection loss keeps that connection from
    # ending (net/rds/ib_cm.c rds_ib_conn_path_shutdown waits for the
    # connection's registrations in use, i_fastreg_inuse_count, to reach
    # 0), so it is given back once librds has been quiet for QUIET s,
    # as an application must (docs/kernel-behaviour.md, "Faults under
    # traffic").
    cookie = ctypes.c_uint64(0)
    heard = time.time()
    while True:
        try:
            data, peer = r.recvfrom(65536)
            heard = time.time()
        except socket.timeout:
            if os.path.exists(os.path.join(D, "done_peer")):
                return
            if regions and regions[-1][2] and time.time() - heard > QUIET:
                free_last("quiet")
                quiet_frees[0] += 1
            continue
        if data != b"HELLO":
            continue
        if regions and regions[-1][2]:
            free_last("hello")
        mem = ctypes.create_string_buffer(4 * PAGE + REG)
        start = ((ctypes.addressof(mem) + PAGE) & ~(PAGE - 1)) + OFF
        ctypes.memset(start - GUARD, 0xee, REG + 2 * GUARD)
        args = struct.pack("=QQQQ", start, REG, ctypes.addressof(cookie), RDS_RDMA_READWRITE)
        for i in range(300):
            try:
                r.sendmsg([b"MAP"], [(SOL_RDS, RDS_CMSG_RDMA_MAP, args)], 0, peer)
                regions.append((mem, start, cookie.value))
                break
            except (socket.timeout, OSError) as e:
                # EAGAIN (or the device's error) while the connection is down
                time.sleep(0.2)
        else:
            owner_log.append("no MAP after 60 s")

th = [threading.Thread(target=f, daemon=True) for f in (sender, owner)]
for t in th:
    t.start()
peer_tx, t0, ktx_put = None, time.time(), False
while True:
    try:
        data, addr = s.recvfrom(1 << 20)
    except socket.timeout:
        data = None
    if data is not None:
        idx = int.from_bytes(data[:4], "big") if len(data) >= 8 else -1
        want = many_msg("ma", idx, SZ[idx %% len(SZ)]) if idx >= 0 else None
        if want is not None:
            want = want[:4] + b"\0" + want[5:]
        if addr != PEER or data != want:
            raise SystemExit("soak: %%d bytes from %%r, index %%d: not librds's" %% (
                len(data), addr, idx))
        if first[0]:
            # a new life: the old one's queues died with it (counted apart)
            first[0] = False
            if idx < last:
                dup_life += last - idx
            else:
                lost_life += idx - last
            print("soak: life %%d from message %%d (the last life had %%d)" %% (LIFE, idx, last),
                  flush=True)
            last = idx + 1
        elif idx == last:
            last += 1
        elif idx < last:
            dup += 1
            print("soak: message %%d again (next %%d)" %% (idx, last), flush=True)
        else:
            lost += idx - last
            print("soak: messages %%d..%%d lost" %% (last, idx - 1), flush=True)
            last = idx + 1
        if last %% 20000 == 0:
            print("soak: received %%d sent %%d" %% (last, sent[0]), flush=True)
    if os.path.exists(os.path.join(D, "reboot-%%d" %% LIFE)):
        # "rebooted": the sockets close with the guest, nothing drained
        halt.set()
        th[0].join(30)
        with open(os.path.join(D, "kstate-%%d" %% LIFE), "w") as f:
            f.write("%%d %%d %%d %%d %%d %%d\n" %% (last, sent[0], lost, dup, lost_life, dup_life))
        print("soak kernel: life %%d ends at received %%d sent %%d" %% (LIFE, last, sent[0]),
              flush=True)
        os._exit(0)
    if stopped() and not ktx_put:
        th[0].join(30)
        ktx_put = True
        with open(os.path.join(D, "kernel_tx.tmp"), "w") as f:
            f.write("%%d %%d\n" %% (sent[0], LIFE))
        os.rename(os.path.join(D, "kernel_tx.tmp"), os.path.join(D, "kernel_tx"))
    if peer_tx is None and os.path.exists(os.path.join(D, "peer_tx")):
        peer_tx = int(open(os.path.join(D, "peer_tx")).read())
    if peer_tx is not None and last >= peer_tx:
        break
    assert time.time() - t0 < %(limit)d, "soak: out of time at %%d of %%r" %% (last, peer_tx)
print("soak kernel: received %%d lost %%d dup %%d sent %%d lost_life %%d dup_life %%d "
      "retried %%r" %% (last, lost, dup, sent[0], lost_life, dup_life, errs), flush=True)
wait_flag("done_peer", 120)
th[1].join(10)
g_bad = [c for _, st, c in regions if ctypes.string_at(st - GUARD, GUARD) != b"\xee" * GUARD or
         ctypes.string_at(st + REG, GUARD) != b"\xee" * GUARD]
f_bad = [c for _, st, c in freed if ctypes.string_at(st - GUARD, REG + 2 * GUARD) !=
         b"\xee" * (REG + 2 * GUARD)]
print("soak owner: regions %%d freed %%d guards %%s freed-untouched %%s quiet-frees %%d %%s" %% (
    len(regions), len(freed), "intact" if not g_bad else "HIT %%r" %% g_bad,
    "yes" if not f_bad else "NO %%r" %% f_bad, quiet_frees[0], "; ".join(owner_log)), flush=True)
dmesg("at the end")
flag("done_kernel")
PY
"""

def agent_run(share, counts, g, cmd, timeout=60):
    """Leave the shell line |cmd| for guest |g|'s agent (counts[g]: the
    commands it was given so far) and wait for its answer, "CODE SECONDS"
    and the output; None if none came within |timeout| s."""
    p = os.path.join(share, "cmd-%d-%d" % (g, counts[g]))
    counts[g] += 1
    with open(p + ".tmp", "w") as f:
        f.write(cmd)
    os.rename(p + ".tmp", p)
    t = time.time()
    while not os.path.exists(p + ".done") and time.time() - t < timeout:
        time.sleep(0.2)
    return open(p + ".done").read() if os.path.exists(p + ".done") else None


LINE = re.compile(r"^ibpeer: soak (\w+) (.*)$", re.M)


def soak_lines(path):
    """ibpeer's soak lines so far: [(what, {field: number})]."""
    try:
        text = open(path).read()
    except OSError:
        return []
    out = []
    for what, rest in LINE.findall(text):
        w = rest.split()
        d = {}
        for i in range(0, len(w) - 1, 2):
            try:
                d[w[i]] = float(w[i + 1])
            except ValueError:
                d[w[i]] = w[i + 1]
        out.append((what, d))
    return out


def latest(path):
    ls = [d for w, d in soak_lines(path) if w in ("at", "start")]
    return ls[-1] if ls else {}


class Faults:
    """Runs the faults in the guests (through their agents), on the host
    (cut) or in ibpeer (qperr, rkey) and waits for the streams to move again after each."""

    def __init__(self, share, path, log, name, reboot, cut):
        self.share, self.path, self.log, self.name = share, path, log, name
        self.reboot, self.cut = reboot, cut
        self.reboots = 0
        self.n = {1: 0, 2: 0}
        self.asked = {}
        self.done = []       # (fault, resets before, resets after, seconds to recover)
        self.fails = []

    def _guest(self, g, cmd):
        res = agent_run(self.share, self.n, g, cmd)
        if res is None:
            return "guest %d did not run %r" % (g, cmd)
        return None if res.startswith("0 ") else "guest %d: %r: %s" % (g, cmd, res.strip())

    def _ibpeer(self, kind, answer, what):
        """Ask ibpeer for its |kind|-N and wait for its line |answer|."""
        n = self.asked.get(kind, 0)
        self.asked[kind] = n + 1
        open(os.path.join(self.share, "%s-%d" % (kind, n)), "w").close()
        t = time.time()
        want = "ibpeer: soak %s %d %s" % (kind, n, answer)
        while time.time() - t < 120:
            if want in open(self.path).read():
                return None
            time.sleep(0.2)
        return "%s %d: no %r from ibpeer" % (what, n, want)

    def run(self, fault):
        before = latest(self.path)
        g, cmd = FAULTS[fault]
        if fault == "rkey":
            err = self._ibpeer("refuse", "notified", "the refused RDMA")
        elif fault == "qperr":
            err = self._ibpeer("qpkill", "broke", "librds's QP put in error")
        elif fault.startswith("cut"):
            err = self.cut(g)
        elif fault == "reboot":
            err = self.reboot()
            self.reboots += 1
        else:
            err = self._guest(g, cmd)
        if err:
            self.fails.append("%s: %s: %s" % (self.name, fault, err))
            return False
        t = time.time()
        at = latest(self.path)
        while time.time() - t < 180:
            now = latest(self.path)
            if now.get("resets", 0) > before.get("resets", 0) and \
                    now.get("rx", 0) >= at.get("rx", 0) + 200 and \
                    now.get("tx", 0) >= at.get("tx", 0) + 200 and \
                    now.get("success", 0) > at.get("success", 0):
                self.done.append((fault, before.get("resets"), now.get("resets"),
                                  time.time() - t))
                self.log("%s: %s: connection reset (conn_reset %d -> %d), streams and RDMA "
                         "moving again %.0f s after it" % (self.name, fault, before.get("resets", 0),
                                                    now.get("resets", 0), time.time() - t))
                return True
            time.sleep(0.5)
        now = latest(self.path)
        self.fails.append("%s: %s: no reset and recovery within 180 s (conn_reset %s -> %s, "
                          "rx %s -> %s, tx %s -> %s, RDMA successes %s -> %s)" % (
                              self.name, fault, before.get("resets"), now.get("resets"),
                              at.get("rx"), now.get("rx"), at.get("tx"), now.get("tx"),
                              at.get("success"), now.get("success")))
        return False


def judge(name, lines, ktext, faults, fails, log):
    """The figures and the checks on ibpeer's soak lines and the kernel's."""
    done = [d for w, d in lines if w == "done"]
    if not done:
        fails.append("%s: ibpeer never finished the soak" % name)
        return None
    d = done[-1]
    for k in ("lost", "dup", "bad_notify", "guards_hit", "ep_mrs", "sock_mrs", "ib_mrs",
              "send_q", "retrans_q"):
        if d.get(k) != 0:
            fails.append("%s: librds %s %s, want 0" % (name, k, d.get(k)))
    posted = int(str(d.get("refused")).split("/")[1]) if "/" in str(d.get("refused")) else None
    notified_bad = int(str(d.get("refused")).split("/")[0]) if posted is not None else None
    if d.get("notified") != d.get("ops", 0) + (posted or 0) or notified_bad != posted:
        fails.append("%s: %s ops and %s refused ones, %s notifications (%s of the refused): "
                     "want exactly one each" % (name, d.get("ops"), posted, d.get("notified"),
                                                notified_bad))
    if not d.get("success"):
        fails.append("%s: no RDMA op succeeded" % name)
    m = re.search(r"^soak kernel: received (\d+) lost (\d+) dup (\d+) sent (\d+) "
                  r"lost_life (\d+) dup_life (\d+) retried (.*)$", ktext, re.M)
    if not m:
        fails.append("%s: the kernel's side did not finish" % name)
        return None
    krx, klost, kdup, ksent, klost_life, kdup_life = (int(x) for x in m.groups()[:6])
    if d.get("dup_life"):
        fails.append("%s: librds got %s messages of the kernel's again in a new life: its "
                     "new life numbers on from what it sent" % (name, d.get("dup_life")))
    if klost or kdup:
        fails.append("%s: kernel received %d lost %d duplicated" % (name, klost, kdup))
    if krx != d.get("tx") or d.get("rx") != ksent or not faults.reboots and (
            klost_life or kdup_life or d.get("lost_life")):
        fails.append("%s: librds sent %s, the kernel received %d; the kernel sent %d, librds "
                     "received %s" % (name, d.get("tx"), krx, ksent, d.get("rx")))
    o = re.search(r"^soak owner: regions (\d+) freed (\d+) guards (\S+) freed-untouched (\S+)",
                  ktext, re.M)
    if not o or o.group(3) != "intact" or o.group(4) != "yes":
        fails.append("%s: the kernel's regions: %s" % (name, o.group(0) if o else "no line"))
    # memory: after the first round of faults, flat
    rss = [(x["t"], x["rss_kb"]) for w, x in lines if w in ("at", "start", "done")]
    settle = [kb for t, kb in rss if t >= min(60.0, rss[-1][0] / 4)] or [rss[-1][1]]
    base, end, peak = settle[0], rss[-1][1], max(settle)
    if peak > base + max(RSS_SLACK_KB, base / 10):
        fails.append("%s: librds's RSS grew from %d KiB to %d KiB (end %d KiB)" % (
            name, base, peak, end))
    fig = dict(name=name, librds_tx=int(d["tx"]), librds_rx=int(d["rx"]), kernel_rx=krx,
               kernel_sent=ksent, lost=int(d["lost"]) + klost, dup=int(d["dup"]) + kdup,
               reboots=faults.reboots, lost_reboot_to_librds=int(d["lost_life"]),
               lost_reboot_to_kernel=klost_life, dup_reboot_to_kernel=kdup_life,
               faults=len(faults.done), resets=int(d["resets"]), resent=int(d["resent"]),
               dups_dropped=int(d["dups_dropped"]), ops=int(d["ops"]),
               success=int(d["success"]), remote_error=int(d["remote_error"]),
               dropped=int(d["dropped"]), other_error=int(d["other_error"]),
               refused=posted, lmaps=int(d["lmaps"]), cookies=int(d["cookies"]),
               rss_start=int(rss[0][1]), rss_base=int(base), rss_peak=int(peak),
               rss_end=int(end), seconds=d["t"], regions=o.group(0) if o else "")
    log("%s: figures: %s" % (name, " ".join("%s=%s" % kv for kv in fig.items())))
    return fig


def run(kernel, ibpeer, out, duration, faults_list, interval, log):
    name = "ib_soak-%s-%d" % (kernel, duration)
    run_dir, share = lab.run_share(out, name, (ibpeer,))
    fails = []
    common = ib_kernel.COMMON + AGENT
    with lab.Lab(kernel, 2, True, None, keep=share) as l, l.judging(fails, name, tail=3000):
        args = ["--bind", A, "--port", "4000", "--peer", B, "--peer-port", "5000",
                "--rdma-port", "4001", "--rdma-peer-port", "5001", "--soak",
                "--ctl", "/run/lab", "--retry-count", ib_kernel.RETRY,
                "--timeout", str(duration + 400)]
        l.role(1, ib_kernel.ibpeer_role(common + "\nagent(1)\n", "ready_kernel", "ready_peer",
                                        "done_peer", "done_kernel", "ibpeer.out", args,
                                        asan=ASAN))
        def kernel_role(life):
            return KERNEL_SOAK % dict(common=common, peer=A, sizes=ib_kernel.MANY_SIZES,
                                      limit=duration + 400, life=life)

        lives = [0]

        def reboot():
            """The kernel's guest ends its role as if it crashed (its
            sockets close undrained) and powers off; a new guest boots
            with the same address and goes on with the next life."""
            life = lives[0]
            open(os.path.join(share, "reboot-%d" % life), "w").close()
            rc = l.wait_guest(2, 120)
            if rc != 0:
                return "the kernel's guest, life %d, ended with %r" % (life, rc)
            os.rename(os.path.join(share, "guest2.out"),
                      os.path.join(share, "guest2-life%d.out" % life))
            lives[0] += 1
            l.role(2, kernel_role(lives[0]))
            l.start(only=2)
            return None

        l.role(2, kernel_role(0))
        l.start()
        t0 = time.time()
        path = os.path.join(share, "ibpeer.out")
        while time.time() - t0 < 240 and latest(path).get("tx", 0) < 500:
            time.sleep(0.5)
        log("%s: streams running after %.0f s" % (name, time.time() - t0))
        start = time.time()
        def cut(g):
            """guest |g|'s bridge port down for CUT s, then up"""
            l.ns_run(["ip", "link", "set", "tap%d" % g, "down"])
            time.sleep(CUT)
            l.ns_run(["ip", "link", "set", "tap%d" % g, "up"])

        fl = Faults(share, path, log, name, reboot, cut)
        k = 0
        # every fault once at least, then round again until the time is up
        while k < len(faults_list) or time.time() - start + 30 < duration:
            if not fl.run(faults_list[k % len(faults_list)]):
                break
            k += 1
            while time.time() < start + k * interval and time.time() - start < duration:
                time.sleep(0.5)
        while time.time() - start < duration and not fl.fails:
            time.sleep(0.5)
        fails += fl.fails
        open(os.path.join(share, "stop"), "w").close()
        log("%s: stop after %.0f s, %d faults" % (name, time.time() - start, len(fl.done)))
        # after a fault that did not recover, not the whole drain
        rcs = l.wait(90 if fl.fails else 400)
        for n in range(lives[0]):
            log("%s: guest 2, life %d:\n%s" % (name, n, open(os.path.join(
                share, "guest2-life%d.out" % n)).read()))
        ib_kernel.guests_report(l, rcs, name, log, fails, path, "ibpeer: soak at ")
        fig = judge(name, soak_lines(path), l.output(2), fl, fails, log)
        if fig:
            log("%s: faults: %s" % (name, ", ".join(
                "%s (conn_reset %d -> %d, %.0f s)" % f for f in fl.done)))
    return fails


def fault_list(ap, text, known):
    """The comma-separated faults of |text|, each one of |known|."""
    faults = text.split(",")
    bad = [f for f in faults if f not in known]
    if bad:
        ap.error("unknown faults %s (known: %s)" % (bad, ", ".join(known)))
    return faults


def main():
    ap = lab.arg_parser()
    ap.add_argument("--ibpeer", required=True)
    ap.add_argument("--duration", type=int, default=600)
    # rxe1 and link1 delete librds's rxe0, which librdmacm does not let
    # go while it is the last device (docs/librds.md, "A device that goes")
    ap.add_argument("--faults", default="cut1,qperr,rkey,cut2,reboot")
    ap.add_argument("--interval", type=int, default=40)
    a, out, log = lab.parse(ap)
    faults = fault_list(ap, a.faults, FAULTS)
    fails = run(a.kernel, a.ibpeer, out, a.duration, faults, a.interval, log)
    return lab.verdict(fails, log, a.kernel)


if __name__ == "__main__":
    sys.exit(main())
