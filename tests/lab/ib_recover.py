#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Which faults a kernel's rds_rdma recovers from over Soft-RoCE, kernel
against kernel (issue 35; the evidence for docs/kernel-behaviour.md,
"Faults under traffic"). A probe run by hand, not a ctest:

    ib_recover.py --kernel 6.1|7.2 [--faults cut1,rkey,...] [--out DIR]

Two guests with rxe0 and the kernel's rds_rdma, one boot. Both send a
numbered message every 10 ms to the other (port 5000) and count what
arrives. Guest 2 maps a 64 KiB region (RDS_CMSG_RDMA_MAP on port 5001)
only where a fault says so. The faults, in the order given, each followed
by a wait of up to --wait s for both streams to move again (20 messages
each way after the fault ended):

  cut1held      guest 2 maps a region, then cut1; if that does not
                recover, the region is freed (RDS_FREE_MR) and the wait
                is made again; freed either way
  cut1, cut2    the host takes guest 1's (2's) bridge port down for 6 s
                (the guest's own link stays up)
  rkey          guest 1 sends an RDMA WRITE with an r_key guest 2 never
                gave out: both QPs end (docs/kernel-behaviour.md, RDMA)
  down1, down2  ip link set dev eth0 down in guest 1 (2), 6 s, up
  relink1       rdma link delete rxe0 and add it back in guest 1
  rxe2held      guest 2 maps a region, then rdma link delete rxe0 there:
                if it has not returned after 20 s its kernel stack is
                written down and the region freed, then 20 s more; rxe0
                added back once the delete returned

When a fault does not recover, each guest's `rdma res show qp` and
`cm_id` are written down. The run goes on with the next fault either
way. Outputs in build/lab/ib_recover-<k>/ (recover.txt, the verdicts).
Exit: 0 (it reports, it does not judge), 77 skipped (not root).
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lab  # noqa: E402
import ib_kernel  # noqa: E402
import ib_soak  # noqa: E402

A, B = ib_kernel.A, ib_kernel.B
CUT = ib_kernel.CUT

ROLE = r"""
python3 - <<'PY'
%(common)s
import ctypes, struct, threading
wait_rxe()
agent(%(me)d)
ME, PEER = %(me)d, %(peer)r
s = rds_socket(5000, timeout=1)
r = rds_socket(5001, timeout=1)
flag("ready%%d" %% ME)
wait_flag("ready%%d" %% (3 - ME))
RDS_CMSG_RDMA_ARGS, RDS_CMSG_RDMA_MAP, RDS_FREE_MR = 1, 3, 3
RDS_RDMA_READWRITE, RDS_RDMA_NOTIFY_ME, RDS_RDMA_INVALIDATE = 1, 0x10, 4
stop = lambda: os.path.exists(os.path.join(D, "stop"))
rx = [0]

def sender():
    i = 0
    while not stop():
        try:
            s.sendto(i.to_bytes(4, "big") + b"x" * 60, (PEER, 5000))
            i += 1
        except OSError:
            pass
        time.sleep(0.01)

def receiver():
    while not stop():
        try:
            s.recvfrom(100)
            rx[0] += 1
        except OSError:
            continue
        if rx[0] %% 10 == 0:
            open(os.path.join(D, "rx%%d.tmp" %% ME), "w").write("%%d\n" %% rx[0])
            os.rename(os.path.join(D, "rx%%d.tmp" %% ME), os.path.join(D, "rx%%d" %% ME))

for f in (sender, receiver):
    threading.Thread(target=f, daemon=True).start()
mem = ctypes.create_string_buffer(4 * 4096 + 65536)
start = ((ctypes.addressof(mem) + 4096) & ~4095) + 100
cookie = ctypes.c_uint64(0)
n_rkey = n_map = n_free = 0

def answer(name, text):
    open(os.path.join(D, name + ".tmp"), "w").write(text + "\n")
    os.rename(os.path.join(D, name + ".tmp"), os.path.join(D, name))
    print("guest %%d: %%s: %%s" %% (ME, name, text), flush=True)

while not stop():
    time.sleep(0.2)
    if ME == 1 and os.path.exists(os.path.join(D, "rkey-%%d" %% n_rkey)):
        n_rkey += 1
        loc = ctypes.create_string_buffer(8192)
        vbuf = ctypes.create_string_buffer(struct.pack("=QQ", ctypes.addressof(loc), 8192))
        a = struct.pack("=QQQQQQQ", 0x5a5a5a00, 0, 8192, ctypes.addressof(vbuf), 1,
                        RDS_RDMA_READWRITE | RDS_RDMA_NOTIFY_ME, 77)
        try:
            r.sendmsg([b"BAD"], [(SOL_RDS, RDS_CMSG_RDMA_ARGS, a)], 0, (PEER, 5001))
            answer("rkey-%%d.done" %% (n_rkey - 1), "sent")
        except OSError as e:
            answer("rkey-%%d.done" %% (n_rkey - 1), str(e))
    if ME == 2 and os.path.exists(os.path.join(D, "map-%%d" %% n_map)):
        n_map += 1
        args = struct.pack("=QQQQ", start, 65536, ctypes.addressof(cookie), RDS_RDMA_READWRITE)
        for i in range(150):
            try:
                r.sendmsg([b"MAP"], [(SOL_RDS, RDS_CMSG_RDMA_MAP, args)], 0, (PEER, 5001))
                answer("map-%%d.done" %% (n_map - 1), "cookie %%#x" %% cookie.value)
                break
            except OSError as e:
                time.sleep(0.2)
        else:
            answer("map-%%d.done" %% (n_map - 1), "no map: %%s" %% e)
    if ME == 2 and os.path.exists(os.path.join(D, "free-%%d" %% n_free)):
        n_free += 1
        try:
            r.setsockopt(SOL_RDS, RDS_FREE_MR, struct.pack("=QQ", cookie.value,
                                                            RDS_RDMA_INVALIDATE))
            answer("free-%%d.done" %% (n_free - 1), "freed")
        except OSError as e:
            answer("free-%%d.done" %% (n_free - 1), str(e))
print("guest %%d: received %%d" %% (ME, rx[0]), flush=True)
PY
"""

RELINK = "rdma link delete rxe0; sleep 2; rdma link add rxe0 type rxe netdev eth0; sleep 1; rdma link"
DOWN = "ip link set dev eth0 down; sleep %g; ip link set dev eth0 up" % CUT
SHOW = "rdma res show qp; rdma res show cm_id; rdma link"
FAULTS = ("cut1held", "cut1", "cut2", "rkey", "down1", "relink1", "rxe2held", "down2")


class Probe:
    def __init__(self, l, share, log, wait):
        self.l, self.share, self.log, self.wait = l, share, log, wait
        self.n = {1: 0, 2: 0}
        self.asked = {}
        self.out = []

    def guest(self, g, cmd, timeout=60):
        return ib_soak.agent_run(self.share, self.n, g, cmd, timeout)

    def ask(self, kind, timeout=40):
        """The role's map, free or rkey; its answer."""
        k = self.asked.get(kind, 0)
        self.asked[kind] = k + 1
        p = os.path.join(self.share, "%s-%d" % (kind, k))
        open(p, "w").close()
        t = time.time()
        while not os.path.exists(p + ".done") and time.time() - t < timeout:
            time.sleep(0.2)
        ans = open(p + ".done").read().strip() if os.path.exists(p + ".done") else "no answer"
        self.note("%s %d: %s" % (kind, k, ans))
        return ans

    def rx(self):
        def one(g):
            try:
                return int(open(os.path.join(self.share, "rx%d" % g)).read())
            except (OSError, ValueError):
                return 0
        return one(1), one(2)

    def moving(self, what, wait=None):
        a = self.rx()
        t = time.time()
        while time.time() - t < (wait or self.wait):
            b = self.rx()
            if b[0] >= a[0] + 20 and b[1] >= a[1] + 20:
                self.note("%s: recovered, both streams moving %.0f s after it" % (
                    what, time.time() - t))
                return True
            time.sleep(0.5)
        self.note("%s: NOT recovered in %d s (received %r -> %r)" % (
            what, wait or self.wait, a, self.rx()))
        for g in (1, 2):
            self.note("  guest %d: %s" % (g, (self.guest(g, SHOW, 20) or "no answer")
                                          .strip().replace("\n", "\n    ")))
        return False

    def note(self, text):
        self.log(text)
        self.out.append(text)

    def cut(self, g):
        self.l.ns_run(["ip", "link", "set", "tap%d" % g, "down"])
        time.sleep(CUT)
        self.l.ns_run(["ip", "link", "set", "tap%d" % g, "up"])

    def run(self, f):
        if f == "cut1held":
            # guest 2's socket holds a mapped region across the cut
            self.ask("map")
            self.cut(1)
            if not self.moving(f, 30):
                self.ask("free")
                return self.moving(f + " after the region's free")
            self.ask("free")
            return True
        if f in ("cut1", "cut2"):
            self.cut(int(f[-1]))
        elif f == "rkey":
            self.ask("rkey")
        elif f in ("down1", "down2"):
            self.note("%s: %s" % (f, self.guest(int(f[-1]), DOWN)))
        elif f == "relink1":
            self.note("%s: %s" % (f, self.guest(1, RELINK)))
        elif f == "rxe2held":
            return self.rxe2()
        return self.moving(f)

    def rxe2(self):
        self.ask("map")
        self.guest(2, "(rdma link delete rxe0; echo rc $? > $LAB_DIR/del.rc) >/dev/null 2>&1 &", 10)
        for step in ("", "free"):
            if step:
                self.ask(step)
            t = time.time()
            while time.time() - t < 20 and not os.path.exists(
                    os.path.join(self.share, "del.rc")):
                time.sleep(0.5)
            if os.path.exists(os.path.join(self.share, "del.rc")):
                self.note("rxe2held: rdma link delete returned (%s) %s" % (
                    open(os.path.join(self.share, "del.rc")).read().strip(),
                    "with the region held" if not step else "after the region's " + step))
                self.note("rxe2held: add: %s" % self.guest(
                    2, "rdma link add rxe0 type rxe netdev eth0; sleep 1; rdma link"))
                return self.moving("rxe2held")
            st = self.guest(2, "for p in $(pidof rdma); do echo pid $p; cat /proc/$p/stack; "
                               "done", 20)
            self.note("rxe2held: rdma link delete still running %s; its stack:\n    %s" % (
                "with the region held" if not step else "20 s after the " + step,
                (st or "no answer").strip().replace("\n", "\n    ")))
        return False


def main():
    ap = lab.arg_parser()
    ap.add_argument("--faults", default=",".join(FAULTS))
    ap.add_argument("--wait", type=int, default=45)
    a, out, log = lab.parse(ap)
    faults = ib_soak.fault_list(ap, a.faults, FAULTS)
    name = "ib_recover-%s" % a.kernel
    run_dir, share = lab.run_share(out, name, ())
    common = ib_kernel.COMMON + ib_soak.AGENT
    fails = []
    with lab.Lab(a.kernel, 2, True, None, keep=share) as l, l.judging(fails, name, tail=3000):
        for g, peer in ((1, B), (2, A)):
            l.role(g, ROLE % dict(common=common, me=g, peer=peer))
        l.start()
        pr = Probe(l, share, log, a.wait)
        t = time.time()
        while time.time() - t < 240 and min(pr.rx()) < 50:
            time.sleep(0.5)
        pr.note("%s: streams running (%r) after %.0f s; modules, newest first: %s" % (
            name, pr.rx(), time.time() - t,
            (pr.guest(1, "cut -d' ' -f1 /proc/modules | tr '\\n' ' '", 20) or "?")
            .split("\n", 1)[-1].strip()))
        for f in faults:
            pr.run(f)
        open(os.path.join(share, "stop"), "w").close()
        l.wait(60)
        for g in (1, 2):
            log("%s: guest %d:\n%s" % (name, g, l.output(g)))
    with open(os.path.join(run_dir, "recover.txt"), "w") as f:
        f.write("\n".join(pr.out) + "\n")
    return lab.verdict(fails, log, a.kernel)


if __name__ == "__main__":
    sys.exit(main())
