#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""librds's RDMA against memory a kernel registered, over Soft-RoCE
(issue 30).

    rdma_librds.py --kernel 6.1|7.2 --rdmadrv PATH [--out DIR]

Two guests with rxe0. Guest 1 (10.199.0.2) unloads its rds_rdma, so
rdma_cm port 18634 is librds's, and runs rdmadrv (librds, IB transport)
on port 4000. Guest 2 (10.199.0.3) runs the kernel's AF_RDS over IB on
port 5000 as the owner: on HELLO it maps 64 KiB, 100 bytes past a page
boundary, with RDS_CMSG_RDMA_MAP (the only registration the kernel offers
on rxe: RDS_GET_MR answers EOPNOTSUPP there), and answers with the cookie
it got; it checks the region by hash on CHECK (what librds wrote where it
wrote it, the rest as it was, 64 guard bytes either side untouched),
frees it with RDS_FREE_MR and RDS_RDMA_INVALIDATE on FREE. rdmadrv reads
the region, writes into it, reads that back, and writes once more after
the free, which must not land (the steps are at the top of rdmadrv.c).
Then the other way round, on ports 4001 and 5001: librds maps 64 KiB
with RDSU_OP_MAP and sends the cookie; the kernel reads it whole with
RDS_CMSG_RDMA_ARGS (NOTIFY_ME, its RDS_CMSG_RDMA_STATUS awaited), checks
the bytes, writes 32 KiB at 4096 (fenced), and librds checks its region
and guards.
Outputs in build/lab/rdma_librds-<k>/. Exit: 0 pass, 1 fail, 77 skipped
(not root, outside CI).
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lab  # noqa: E402

A, B = "10.199.0.2", "10.199.0.3"
STEPS = ("cookie", "read", "write", "check", "read-back", "free", "write-freed",
         "check-freed", "map", "owner-check", "owner-regions")
KSTEPS = ("kernel cookie ok", "kernel read ok", "kernel write ok")

COMMON = (r'''
import ctypes, errno, os, socket, struct, subprocess, time
D = os.environ["LAB_DIR"]
''' + lab.guest_flags(300) + lab.GUEST_RXE + lab.GUEST_RDS_IB)

DRIVER = COMMON + r'''
wait_rxe()
p = subprocess.run(["rmmod", "rds_rdma"], capture_output=True, text=True)
print("rmmod rds_rdma:", p.returncode, p.stderr.strip(), flush=True)
assert p.returncode == 0, "rds_rdma stays loaded: the kernel would take port 18634"
wait_flag("owner_ready")
env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
out_path = os.path.join(D, "rdmadrv.out")
rc = run_librds(["/run/lab/rdmadrv", "--bind", %(a)r, "--port", "4000", "--peer", %(b)r,
                 "--peer-port", "5000", "--timeout", "150"], out_path, env)
print(open(out_path).read(), flush=True)
print("rdmadrv exit", rc, flush=True)
flag("driver_done")
wait_flag("kdriver_ready")
with open(os.path.join(D, "rdmaown.out"), "w") as out:
    rc2 = subprocess.call(["/run/lab/rdmadrv", "--owner", "--bind", %(a)r, "--port", "4001",
                           "--peer", %(b)r, "--peer-port", "5001", "--timeout", "150"],
                          stdout=out, stderr=subprocess.STDOUT, env=env)
print(open(os.path.join(D, "rdmaown.out")).read(), flush=True)
print("rdmadrv --owner exit", rc2, flush=True)
flag("owner_done")
raise SystemExit(rc or rc2)
'''

OWNER = COMMON + r'''
RDS_CMSG_RDMA_MAP = 3
RDS_FREE_MR = 3
RDS_RDMA_READWRITE = 1
RDS_RDMA_INVALIDATE = 4
PAGE, REG, OFF, GUARD = 4096, 65536, 100, 64

def fill(seed, lo, hi):
    return bytes(((i * 131 + seed * 7 + (i >> 8)) & 0xff) for i in range(lo, hi))

wait_rxe()
s = rds_socket(5000)
mem = ctypes.create_string_buffer(4 * PAGE + REG)
start = ((ctypes.addressof(mem) + PAGE) & ~(PAGE - 1)) + OFF
expect = bytearray(fill(1, 0, REG))
ctypes.memmove(start, bytes(expect), REG)
ctypes.memset(start - GUARD, 0xee, GUARD)
ctypes.memset(start + REG, 0xee, GUARD)
cookie = ctypes.c_uint64(0)
flag("owner_ready")
done = False
while not done:
    data, peer = s.recvfrom(65536)
    words = data.decode(errors="replace").split()
    if not words or words[0] in ("W", "R"):
        continue
    print("owner:", data[:64], flush=True)
    if words[0] == "HELLO":
        args = struct.pack("=QQQQ", start, REG, ctypes.addressof(cookie), RDS_RDMA_READWRITE)
        for i in range(150):
            try:
                s.sendmsg([b"MAP"], [(SOL_RDS, RDS_CMSG_RDMA_MAP, args)], 0, peer)
                break
            except OSError as e:
                # EAGAIN while the connection is still being set up
                print("RDMA_MAP:", errno.errorcode.get(e.errno), flush=True)
                assert e.errno == errno.EAGAIN and i < 149
                time.sleep(0.2)
        print("owner: cookie %#x" % cookie.value, flush=True)
        s.sendto(b"MR %#x" % cookie.value, peer)
    elif words[0] == "CHECK":
        off, n, seed = (int(x, 0) for x in words[1:4])
        expect[off:off + n] = fill(seed, off, off + n)
        now = ctypes.string_at(start, REG)
        guards = ctypes.string_at(start - GUARD, GUARD) + ctypes.string_at(start + REG, GUARD)
        bad = [i for i in range(REG) if now[i] != expect[i]]
        ok = not bad and guards == b"\xee" * (2 * GUARD)
        print("owner: check %d %d %d: %d bytes differ, guards %s" % (
            off, n, seed, len(bad), "intact" if guards == b"\xee" * (2 * GUARD) else "HIT"),
            flush=True)
        s.sendto(b"CHECKED ok" if ok else b"CHECKED bad %d" % len(bad), peer)
    elif words[0] == "FREE":
        try:
            s.setsockopt(SOL_RDS, RDS_FREE_MR, struct.pack("=QQ", cookie.value,
                                                           RDS_RDMA_INVALIDATE))
            rc = 0
        except OSError as e:
            rc = e.errno
        s.sendto(b"FREED %d" % rc, peer)
    elif words[0] == "BYE":
        done = True
wait_flag("driver_done", 60)
print("owner done", flush=True)

# The kernel drives: RDMA against librds's region.
RDS_CMSG_RDMA_ARGS, RDS_CMSG_RDMA_DEST, RDS_CMSG_RDMA_STATUS = 1, 2, 4
RDS_RDMA_FENCE, RDS_RDMA_NOTIFY_ME = 2, 0x20
WOFF, WLEN = 4096, 32768
s2 = rds_socket(5001, timeout=40)
flag("kdriver_ready")

def recv_cmsgs():
    data, anc, flags, peer = s2.recvmsg(65536, 512)
    return data, dict((t, d) for l, t, d in anc if l == SOL_RDS), peer

data, anc, peer = recv_cmsgs()
while data != b"MAP":
    data, anc, peer = recv_cmsgs()
cookie = struct.unpack("=Q", anc[RDS_CMSG_RDMA_DEST][:8])[0] if RDS_CMSG_RDMA_DEST in anc else 0
data, _, _ = recv_cmsgs()
print("kernel: cookie %#x, text %r" % (cookie, data), flush=True)
print("kernel cookie", "ok" if cookie and data == b"MR %#x" % cookie else "FAIL", flush=True)
local = ctypes.create_string_buffer(REG)

def rdma(off, n, flags, token):
    vec = (ctypes.c_uint64 * 2)(ctypes.addressof(local) + off, n)
    args = struct.pack("=QQQQQQQ", cookie, off, n, ctypes.addressof(vec), 1,
                       flags | RDS_RDMA_NOTIFY_ME, token)
    s2.sendmsg([b"W" if flags & RDS_RDMA_READWRITE else b"R"],
               [(SOL_RDS, RDS_CMSG_RDMA_ARGS, args)], 0, peer)
    while True:
        data, anc, _ = recv_cmsgs()
        if RDS_CMSG_RDMA_STATUS in anc:
            tok, st = struct.unpack("=Qi", anc[RDS_CMSG_RDMA_STATUS][:12])
            print("kernel: status token %d: %d" % (tok, st), flush=True)
            return st if tok == token else -1
        print("kernel: message %r" % data[:40], flush=True)

st = rdma(0, REG, 0, 1)
print("kernel read", "ok" if st == 0 and local.raw == fill(1, 0, REG) else "FAIL %d" % st,
      flush=True)
ctypes.memmove(ctypes.addressof(local) + WOFF, fill(2, WOFF, WOFF + WLEN), WLEN)
st = rdma(WOFF, WLEN, RDS_RDMA_READWRITE | RDS_RDMA_FENCE, 2)
s2.sendto(b"CHECK %d %d 2" % (WOFF, WLEN), peer)
data, _, _ = recv_cmsgs()
print("kernel write", "ok" if st == 0 and data == b"CHECKED ok" else "FAIL %d %r" % (st, data),
      flush=True)
s2.sendto(b"BYE", peer)
wait_flag("owner_done", 120)
'''


def run_pair(name, flag, roles, text_of, steps, prefix="", copy=True):
    """The test with two guests with rxe0 (this one's and rdma_shim.py's):
    guest 1 runs roles(prog)[0] (the program of --|flag|, copied into the
    run directory |name|-KERNEL when |copy|), guest 2 roles(prog)[1], the
    kernel side (OWNER); each of |steps| must be said ok (after |prefix|)
    in text_of(l, share), each of KSTEPS in guest 2's output. Returns the
    exit code."""
    a, prog, run_dir, share, log = lab.prog_test(name, flag, copy)
    fails = []
    with lab.Lab(a.kernel, 2, True, None, keep=share) as l, l.judging(fails, "rdma", tail=3000):
        for g, role in enumerate(roles(prog), 1):
            l.role(g, role)
        l.start()
        t0 = time.time()
        rcs = l.wait(400)
        log("guests %s after %.0f s" % (rcs, time.time() - t0))
        text = text_of(l, share)
        log("guest 1:\n%s\nguest 2:\n%s" % (l.output(1), l.output(2)))
        fails += lab.steps_fails(rcs, text, steps, l.output(2), KSTEPS, prefix=prefix)
    return lab.verdict(fails, log, a.kernel)


def driver_text(l, share):
    """What rdmadrv wrote, both ways round."""
    text = ""
    for name in ("rdmadrv.out", "rdmaown.out"):
        p = os.path.join(share, name)
        text += open(p).read() if os.path.exists(p) else ""
    return text


def main():
    return run_pair("rdma_librds", "rdmadrv",
                    lambda prog: ("python3 - <<'PY'\n" + DRIVER % {"a": A, "b": B} + "PY\n",
                                  "python3 - <<'PY'\n" + OWNER + "PY\n"),
                    driver_text, STEPS, prefix="rdmadrv: ")


if __name__ == "__main__":
    sys.exit(main())
