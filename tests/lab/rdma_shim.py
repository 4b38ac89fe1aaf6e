#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""An unmodified program using the kernel's AF_RDS RDMA API, run through
rdsrun (librds, IB transport), against the kernel's rds_rdma over
Soft-RoCE (issue 30).

    rdma_shim.py --kernel 6.1|7.2 --rdsrun PATH [--out DIR]

The program is CPython (socket.AF_RDS, sendmsg/recvmsg with SOL_RDS
cmsgs, setsockopt; its buffers from ctypes), which knows nothing of
librds. Guest 2 (10.199.0.3) runs the kernel side of rdma_librds.py
unchanged; guest 1 (10.199.0.2) unloads rds_rdma and rds_tcp, so rdma_cm
port 18634 and TCP 16385 are the shim's, and runs the program under
rdsrun per process:

1. a socket bound to the guest's address with no SO_RDS_TRANSPORT reads
   back RDS_TRANS_IB (the address is on rxe0), and plain messages go both
   ways over IB: HELLO, the kernel's "MAP" with its RDMA_DEST cookie
   (RDS_CMSG_RDMA_DEST on our recvmsg) and "MR <cookie>" agreeing;
2. RDS_CMSG_RDMA_ARGS reads the kernel's 64 KiB region whole (NOTIFY_ME:
   RDS_CMSG_RDMA_STATUS SUCCESS with our token) and the bytes are the
   kernel's fill; a fenced write of 32 KiB at 4096, and the kernel checks
   its region by hash, guards included; RDS_FREE_MR through the kernel;
3. RDS_GET_MR and RDS_GET_MR_FOR_DEST register a buffer of ours (a
   cookie each), an RDMA_DEST message sends one, RDS_FREE_MR frees each
   (a second free EINVAL, cookie 0 the IB flush: 0);
4. the other way round: RDS_CMSG_RDMA_MAP registers our 64 KiB in place
   (cookie written to cookie_addr), the kernel reads it whole and writes
   32 KiB into it, and we check the bytes and the guards.

Then rds-stress's start, per process: a socket bound on the address,
RDS_FREE_MR with zeroed arguments (its RDMA probe) and closed; fork();
the child binds a socket of its own and echoes 20 messages with a kernel
socket over IB (the child's verbs are its own: librds's send doorbell on
a context the parent opened answered EACCES, docs/shim.md). Then, through
rdsd (RDSRUN_DAEMON=1), a socket on the same address again reads back IB
and echoes 20 messages with a kernel socket over IB.
Outputs in build/lab/rdma_shim-<k>/. Exit: 0 pass, 1 fail, 77 skipped.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import rdma_librds  # noqa: E402

A, B = "10.199.0.2", "10.199.0.3"
STEPS = ("shim transport ib", "shim plain ib", "shim read", "shim write", "shim free",
         "shim get_mr", "shim map", "shim owner-check", "shim fork echo", "rdsd transport ib",
         "rdsd echo")

SHIM = rdma_librds.COMMON + r'''
import ctypes
RDS_CMSG_RDMA_ARGS, RDS_CMSG_RDMA_DEST, RDS_CMSG_RDMA_MAP, RDS_CMSG_RDMA_STATUS = 1, 2, 3, 4
RDS_GET_MR, RDS_FREE_MR, RDS_GET_MR_FOR_DEST = 2, 3, 7
RDS_RDMA_READWRITE, RDS_RDMA_FENCE, RDS_RDMA_NOTIFY_ME = 1, 2, 0x20
PAGE, REG, OFF, GUARD = 4096, 65536, 100, 64
WOFF, WLEN = 4096, 32768

def fill(seed, lo, hi):
    return bytes(((i * 131 + seed * 7 + (i >> 8)) & 0xff) for i in range(lo, hi))

def say(step, ok, why=""):
    print("%s %s%s" % (step, "ok" if ok else "FAIL", " " + why if why else ""), flush=True)
    return ok

def sock(port):
    s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
    s.bind((os.environ["LAB_IP"], port))
    s.settimeout(60)
    return s

def recv_cmsgs(s):
    data, anc, flags, peer = s.recvmsg(65536, 512)
    return data, dict((t, d) for l, t, d in anc if l == SOL_RDS), peer

def send_retry(s, data, anc, peer):
    for i in range(150):
        try:
            return s.sendmsg([data], anc, 0, peer)
        except (BlockingIOError, socket.timeout, OSError) as e:
            if getattr(e, "errno", None) not in (errno.EAGAIN, errno.ENOBUFS, None) or i == 149:
                raise
            time.sleep(0.2)
'''

PHASES = r'''
wait_rxe()
for m in ("rds_rdma", "rds_tcp"):
    p = subprocess.run(["rmmod", m], capture_output=True, text=True)
    print("rmmod %%s: %%d %%s" %% (m, p.returncode, p.stderr.strip()), flush=True)
peer = (%(b)r, 5000)
s = sock(4000)
say("shim transport ib", s.getsockopt(SOL_RDS, SO_RDS_TRANSPORT) == RDS_TRANS_IB,
    "%%d" %% s.getsockopt(SOL_RDS, SO_RDS_TRANSPORT))
send_retry(s, b"HELLO", [], peer)
data, anc, _ = recv_cmsgs(s)
while data != b"MAP":
    data, anc, _ = recv_cmsgs(s)
cookie = struct.unpack("=Q", anc[RDS_CMSG_RDMA_DEST][:8])[0] if RDS_CMSG_RDMA_DEST in anc else 0
data, _, _ = recv_cmsgs(s)
say("shim plain ib", cookie != 0 and data == b"MR %%#x" %% cookie, "cookie %%#x text %%r" %% (cookie, data))
local = ctypes.create_string_buffer(REG)

def rdma(sk, to, ck, off, n, flags, token):
    vec = (ctypes.c_uint64 * 2)(ctypes.addressof(local) + off, n)
    args = struct.pack("=QQQQQQQ", ck, off, n, ctypes.addressof(vec), 1,
                       flags | RDS_RDMA_NOTIFY_ME, token)
    send_retry(sk, b"W" if flags & RDS_RDMA_READWRITE else b"R",
               [(SOL_RDS, RDS_CMSG_RDMA_ARGS, args)], to)
    while True:
        data, anc, _ = recv_cmsgs(sk)
        if RDS_CMSG_RDMA_STATUS in anc:
            tok, st = struct.unpack("=Qi", anc[RDS_CMSG_RDMA_STATUS][:12])
            print("shim: status token %%d: %%d" %% (tok, st), flush=True)
            return st if tok == token else -1
        print("shim: message %%r" %% data[:40], flush=True)

st = rdma(s, peer, cookie, 0, REG, 0, 1)
say("shim read", st == 0 and local.raw == fill(1, 0, REG), "status %%d" %% st)
ctypes.memmove(ctypes.addressof(local) + WOFF, fill(2, WOFF, WOFF + WLEN), WLEN)
st = rdma(s, peer, cookie, WOFF, WLEN, RDS_RDMA_READWRITE | RDS_RDMA_FENCE, 2)
s.sendto(b"CHECK %%d %%d 2" %% (WOFF, WLEN), peer)
data, _, _ = recv_cmsgs(s)
say("shim write", st == 0 and data == b"CHECKED ok", "status %%d %%r" %% (st, data))
s.sendto(b"FREE", peer)
data, _, _ = recv_cmsgs(s)
say("shim free", data == b"FREED 0", repr(data))
s.sendto(b"BYE", peer)
flag("driver_done")

# the kernel drives, against memory we register with RDMA_MAP
wait_flag("kdriver_ready")
peer2 = (%(b)r, 5001)
s2 = sock(4001)
mem = ctypes.create_string_buffer(4 * PAGE + REG)
start = ((ctypes.addressof(mem) + PAGE) & ~(PAGE - 1)) + OFF
ctypes.memmove(start, fill(1, 0, REG), REG)
ctypes.memset(start - GUARD, 0xee, GUARD)
ctypes.memset(start + REG, 0xee, GUARD)
# RDS_GET_MR and RDS_GET_MR_FOR_DEST register in place, RDMA_DEST sends
# a cookie (the kernel skips that message), RDS_FREE_MR frees once, and
# cookie 0 is the IB flush (0)
small = ctypes.create_string_buffer(2 * PAGE)
got = ctypes.c_uint64(0)
s2.setsockopt(SOL_RDS, RDS_GET_MR, struct.pack("=QQQQ", ctypes.addressof(small), PAGE,
                                               ctypes.addressof(got), RDS_RDMA_READWRITE))
c1 = got.value
send_retry(s2, b"DEST0", [(SOL_RDS, RDS_CMSG_RDMA_DEST, struct.pack("=Q", c1))], peer2)
s2.setsockopt(SOL_RDS, RDS_FREE_MR, struct.pack("=QQ", c1, 0))
try:
    s2.setsockopt(SOL_RDS, RDS_FREE_MR, struct.pack("=QQ", c1, 0))
    again = 0
except OSError as e:
    again = e.errno
dest = struct.pack("=HH4s", socket.AF_INET, 0, socket.inet_aton(%(b)r)).ljust(128, b"\0")
got.value = 0
s2.setsockopt(SOL_RDS, RDS_GET_MR_FOR_DEST, dest + struct.pack(
    "=QQQQ", ctypes.addressof(small) + 8, 100, ctypes.addressof(got), 0))
c2 = got.value
s2.setsockopt(SOL_RDS, RDS_FREE_MR, struct.pack("=QQ", c2, 0))
s2.setsockopt(SOL_RDS, RDS_FREE_MR, struct.pack("=QQ", 0, 0))
say("shim get_mr", c1 != 0 and c2 != 0 and again == errno.EINVAL,
    "cookies %%#x %%#x, second free %%s" %% (c1, c2, errno.errorcode.get(again)))

mycookie = ctypes.c_uint64(0)
args = struct.pack("=QQQQ", start, REG, ctypes.addressof(mycookie), RDS_RDMA_READWRITE)
send_retry(s2, b"MAP", [(SOL_RDS, RDS_CMSG_RDMA_MAP, args)], peer2)
say("shim map", mycookie.value != 0, "cookie %%#x" %% mycookie.value)
s2.sendto(b"MR %%#x" %% mycookie.value, peer2)
checked = False
while True:
    data, anc, _ = recv_cmsgs(s2)
    w = data.split()
    if w and w[0] == b"CHECK":
        off, n, seed = (int(x, 0) for x in w[1:4])
        expect = bytearray(fill(1, 0, REG))
        expect[off:off + n] = fill(seed, off, off + n)
        now = ctypes.string_at(start, REG)
        guards = ctypes.string_at(start - GUARD, GUARD) + ctypes.string_at(start + REG, GUARD)
        checked = say("shim owner-check", now == bytes(expect) and guards == b"\xee" * (2 * GUARD),
                      "%%d bytes differ" %% sum(1 for i in range(REG) if now[i] != expect[i]))
        s2.sendto(b"CHECKED ok" if checked else b"CHECKED bad", peer2)
    elif w and w[0] == b"BYE":
        break
flag("owner_done")
'''

# rds-stress's parent: a probe socket closed before the fork, then the
# child's own endpoint over IB (per process).
FORK = r'''
peer = (%(b)r, 5002)
wait_flag("echo_ready")
p = sock(4003)
p.setsockopt(SOL_RDS, RDS_FREE_MR, struct.pack("=QQ", 0, 0))
p.close()
pid = os.fork()
if pid == 0:
    good = 0
    try:
        s = sock(4004)
        for i in range(20):
            send_retry(s, b"FORK %%d" %% i, [], peer)
            data, _, _ = recv_cmsgs(s)
            good += data == b"FORK %%d" %% i
    except Exception as e:
        print("fork child: %%r" %% e, flush=True)
    os._exit(0 if good == 20 else 10 + good)
_, st = os.waitpid(pid, 0)
rc = os.waitstatus_to_exitcode(st)
say("shim fork echo", rc == 0, "child exit %%d (10 + messages echoed)" %% rc)
'''

# Through rdsd: plain IB messages only (RDMA there is EOPNOTSUPP,
# docs/shim.md "Known differences with rdsd").
RDSD = r'''
peer = (%(b)r, 5002)
wait_flag("echo_ready")
s = sock(4002)
say("rdsd transport ib", s.getsockopt(SOL_RDS, SO_RDS_TRANSPORT) == RDS_TRANS_IB,
    "%%d" %% s.getsockopt(SOL_RDS, SO_RDS_TRANSPORT))
good = 0
for i in range(20):
    send_retry(s, b"PING %%d" %% i, [], peer)
    data, _, _ = recv_cmsgs(s)
    good += data == b"PING %%d" %% i
say("rdsd echo", good == 20, "%%d of 20" %% good)
s.sendto(b"BYE", peer)
'''

ECHO = rdma_librds.COMMON + r'''
s = rds_socket(5002)
flag("echo_ready")
while True:
    data, peer = s.recvfrom(65536)
    if data == b"BYE":
        break
    s.sendto(data, peer)
print("echo done", flush=True)
'''

ROLE1 = r'''
export ASAN_OPTIONS=detect_leaks=0
%(first)s
RDSRUN_DAEMON=0 %(rdsrun)s --force python3 - <<'PY' || exit 3
%(phases)s
PY
RDSRUN_DAEMON=0 %(rdsrun)s --force python3 - <<'PY' || exit 5
%(fork)s
PY
RDSRUN_DAEMON=1 %(rdsrun)s --force python3 - <<'PY' || exit 4
%(rdsd)s
PY
'''

ROLE2 = r'''
python3 - <<'PY' || exit 3
%(owner)s
PY
python3 - <<'PY' || exit 4
%(echo)s
PY
'''


def roles(rdsrun):
    first = ""
    if os.environ.get("SHIM_PRELOAD_FIRST"):
        first = "export LD_PRELOAD=" + os.environ["SHIM_PRELOAD_FIRST"]
    return (ROLE1 % {"first": first, "rdsrun": os.path.abspath(rdsrun),
                     "phases": SHIM + PHASES % {"b": B}, "fork": SHIM + FORK % {"b": B},
                     "rdsd": SHIM + RDSD % {"b": B}},
            ROLE2 % {"owner": rdma_librds.OWNER, "echo": ECHO})


def main():
    return rdma_librds.run_pair("rdma_shim", "rdsrun", roles, lambda l, share: l.output(1),
                                STEPS, copy=False)


if __name__ == "__main__":
    sys.exit(main())
