#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""rdsd-hostile.py RDSD CASE [RDSRUN] - rdsd against hostile local clients
(issue 35), each case in a network namespace of its own with an rdsd of its
own. The test speaks rdsd's protocol (shim/rdsd_proto.h) itself, so that it
can be the client a shim never is. Cases:
  dies        clients killed in the middle of a call: after a request, with
              a send waiting in rdsd, between handing over a channel and using it
  garbage     random bytes, bad ops, families and lengths, descriptors that
              are no sockets
  flood       one client writes requests as fast as it can, never reading
              a reply, while another makes its calls
  sockets     thousands of connections from one process; past --max-fds
              they are refused while rdsd serves the rest
  addresses   sockets bound to ever new addresses (an endpoint each)
  never-reads a receiver that never reads, its senders going on
  isolation   messages reach only the socket bound to their address and port
  ring        send rings (shim/rdsd_ring.h): a send through one; the memfd
              cannot be shrunk; garbage indices and records; a record
              naming another process's channel; a client gone mid-record;
              the per-user bound of ring memory
  measure     (not a test) rdsd's memory with 1000 sockets of one client
  restart     rdsd killed under a shimmed program (RDSRUN): their calls fail at
              once with ENOTCONN, and a new socket works with a new rdsd
After each: rdsd alive, a fresh client's round trip answered, rdsd's memory
within the bound of docs/security.md ("rdsd's clients"), and its descriptors
back to where they were.
"""
import array
import errno
import os
import random
import select
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

REQ = struct.Struct("<IIIiiiiHH16s")
REP = struct.Struct("<IiII")
RX = struct.Struct("<BBHHH16sQQQQ")
CHAN, BIND, CONNECT, SEND, SETOPT, GETOPT, NAME, CANCEL, RING = range(1, 10)
# shim/rdsd_ring.h: the control page, its fields' offsets, the records
RING_CTL, R_SIZE, R_BROKEN, R_TAIL, R_HEAD, R_SLEEP = 4096, 4, 8, 64, 128, 192
RING_MSG, RING_PAD = 1, 2
RING_USER_BYTES = 64 << 20
SEND_BLOCK, SEND_NOREPLY = 1, 2
HANG = 30          # s: a call not answered by then is a hang (not a speed test)
A = "127.0.0.1"
B = "127.0.0.2"
# docs/security.md: per socket at most 3 SNDBUF + 2 RCVBUF of payload
# (defaults 104 KiB each) and 64 channels; the slack is the allocator's.
DEFAULT_BUF = 106496
SOCK_BOUND = 3 * DEFAULT_BUF + 2 * DEFAULT_BUF + 64 * 256 + 4096
SLACK = 16 << 20

RDSD = None
ASAN = False


class Fail(Exception):
    pass


def v4(a):
    return b"\0" * 10 + b"\xff\xff" + socket.inet_aton(a)


def readable(sock, timeout):
    """poll(), not select(): thousands of descriptors are open here."""
    p = select.poll()
    p.register(sock, select.POLLIN)
    return bool(p.poll(None if timeout is None else timeout * 1000))


def req(op, seq=0, chan=0, level=0, name=0, arg=0, timeout=-1, addr=None, port=0):
    fam, raw = (socket.AF_INET, v4(addr)) if addr else (0, b"\0" * 16)
    return REQ.pack(op, seq, chan, level, name, arg, timeout, fam, port, raw)


class Client:
    """One socket of rdsd: its connection and this process's reply channel."""

    def __init__(self, name, chan=True):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.s.connect("\0" + name)
        self.seq = 0
        self.chan = None
        self.id = random.getrandbits(32)
        if chan:
            self.open_chan()

    def open_chan(self):
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.s.sendmsg([req(CHAN, chan=self.id)],
                       [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [b.fileno()]))])
        b.close()
        self.chan = a

    def close(self):
        for x in (self.s, self.chan):
            if x:
                x.close()

    def reply(self, seq, timeout=HANG):
        while True:
            if not readable(self.chan, timeout):
                raise Fail(f"no answer to request {seq} in {timeout} s: rdsd hangs")
            data = self.chan.recv(1 << 16)
            if not data:
                raise ConnectionResetError("rdsd closed the channel")
            rseq, ret, _, pad = REP.unpack_from(data)
            if rseq == seq:
                return ret, pad, data[REP.size:]

    def call(self, op, payload=b"", **kw):
        self.seq += 1
        self.s.send(req(op, seq=self.seq, chan=self.id, **kw) + payload)
        return self.reply(self.seq)[0]

    def bind(self, addr, port):
        return self.call(BIND, addr=addr, port=port)

    def sendto(self, addr, port, data, arg=0, timeout=-1):
        return self.call(SEND, data, addr=addr, port=port, arg=arg, timeout=timeout)

    def recv(self, timeout=HANG):
        if not readable(self.s, timeout):
            return None
        m = self.s.recv(1 << 21)
        if len(m) < RX.size:
            return None
        kind, _, _, port, _, addr, _, _, _, _ = RX.unpack_from(m)
        return socket.inet_ntoa(addr[12:]), port, m[RX.size:]


class Rdsd:
    def __init__(self, tmp, *args, name=None):
        self.name = name or f"rdsd-hostile-{os.getpid()}-{random.getrandbits(24)}"
        self.log = open(os.path.join(tmp, "rdsd.log"), "w+")
        env = dict(os.environ)
        env.pop("LD_PRELOAD", None)
        # ASan keeps freed memory in quarantine: keep it small so that the
        # memory read below is rdsd's own
        env["ASAN_OPTIONS"] = "quarantine_size_mb=4:detect_leaks=0"
        self.p = subprocess.Popen([RDSD, "-v", "--name", self.name, *args],
                                  stdout=self.log, stderr=self.log, env=env)
        try:
            self.ready()
        except BaseException:
            self.stop()    # never left running behind a failed start
            raise

    def ready(self):
        for _ in range(400):
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
                s.connect("\0" + self.name)
                s.close()
                break
            except OSError:
                time.sleep(0.025)
        else:
            raise Fail("rdsd did not start")
        # the endpoints of A and B made once (kept until their room is needed)
        for a in (A, B):
            c = Client(self.name)
            if c.bind(a, 1999) != 0:
                raise Fail(f"bind {a}")
            c.close()
        time.sleep(0.1)   # those connections closed in rdsd too
        self.rss0 = self.rss()
        self.fds0 = self.fds()

    def rss(self):
        with open(f"/proc/{self.p.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        raise Fail("rdsd is gone")

    def fds(self):
        return len(os.listdir(f"/proc/{self.p.pid}/fd"))

    def alive(self):
        if self.p.poll() is not None:
            raise Fail(f"rdsd died: status {self.p.returncode}")

    def within(self, sockets, what):
        """rdsd's growth since it started within |sockets| sockets' bound."""
        self.alive()
        grew = self.rss() - self.rss0
        bound = sockets * SOCK_BOUND * (3 if ASAN else 1) + SLACK * (2 if ASAN else 1)
        print(f"{what}: rdsd grew {grew >> 10} KiB (bound {bound >> 10} KiB for {sockets} sockets)")
        if grew > bound:
            raise Fail(f"{what}: rdsd grew {grew} bytes, past {bound}")

    def settled(self, extra=0):
        """rdsd's descriptors back to where they were (plus |extra|)."""
        for _ in range(200):
            if self.fds() <= self.fds0 + extra:
                return
            time.sleep(0.025)
        kinds = {}
        for fd in os.listdir(f"/proc/{self.p.pid}/fd"):
            try:
                k = os.readlink(f"/proc/{self.p.pid}/fd/{fd}").split(":")[0]
            except OSError:
                continue
            kinds[k] = kinds.get(k, 0) + 1
        raise Fail(f"rdsd holds {self.fds()} descriptors ({kinds}), {self.fds0 + extra} expected")

    def stop(self):
        if self.p.poll() is None:
            self.p.kill()
        self.p.wait()


class Ring:
    """A client's send ring, asked for as the shim asks (RDSD_OP_RING)."""

    def __init__(self, c):
        import mmap
        c.seq += 1
        c.s.send(req(RING, seq=c.seq, chan=c.id))
        if not readable(c.chan, HANG):
            raise Fail("no answer to RDSD_OP_RING")
        fds = array.array("i")
        data, anc, _, _ = c.chan.recvmsg(64, socket.CMSG_SPACE(2 * fds.itemsize))
        for level, kind, raw in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(raw[:len(raw) - len(raw) % fds.itemsize])
        self.seq, self.ret, _, self.size = REP.unpack_from(data)
        self.fds = list(fds)
        self.mem = None
        if self.ret == 0:
            if len(self.fds) != 2:
                raise Fail(f"a ring came with {len(self.fds)} descriptors")
            self.mfd, self.efd = self.fds
            self.mem = mmap.mmap(self.mfd, RING_CTL + self.size)
            self.tail = 0

    def u32(self, off, v=None):
        if v is None:
            return struct.unpack_from("<I", self.mem, off)[0]
        struct.pack_into("<I", self.mem, off, v & 0xffffffff)

    def put(self, body, kind=RING_MSG, publish=True):
        rec = struct.pack("<II", len(body), kind) + body
        rec += b"\0" * (-len(rec) % 8)
        off = self.tail % self.size
        self.mem[RING_CTL + off:RING_CTL + off + len(rec)] = rec
        self.tail += len(rec)
        if publish:
            self.publish(self.tail)

    def publish(self, tail):
        self.u32(R_TAIL, tail)
        os.write(self.efd, struct.pack("<Q", 1))

    def close(self):
        if self.mem:
            self.mem.close()
        for fd in self.fds:
            os.close(fd)


def round_trip(d, port=None):
    """A fresh client binds, sends to itself and gets its message back."""
    d.alive()
    c = Client(d.name)
    port = port or random.randrange(20000, 60000)
    try:
        if c.bind(A, port) != 0:
            raise Fail(f"a fresh client cannot bind {A}:{port}")
        body = os.urandom(32)
        if c.sendto(A, port, body) != len(body):
            raise Fail("a fresh client's send failed")
        m = c.recv()
        if m != (A, port, body):
            raise Fail(f"a fresh client's round trip: {m!r}")
    finally:
        c.close()


def fill(d, rport):
    """A receiver on rport that never reads, filled until a send meets
    ENOBUFS; returns (receiver, sender, messages accepted)."""
    r = Client(d.name)
    if r.bind(A, rport) != 0:
        raise Fail("bind")
    s = Client(d.name)
    if s.bind(A, rport + 1) != 0:
        raise Fail("bind")
    body = b"f" * 65536
    for n in range(10000):
        ret = s.sendto(A, rport, body)
        if ret == -errno.ENOBUFS:
            return r, s, n
        if ret != len(body):
            raise Fail(f"send {n}: {ret}")
    raise Fail("a receiver that never reads took 640 MiB: no bound")


# ---------------------------------------------------------------- cases
def case_ring(d):
    a, b = Client(d.name), Client(d.name)
    for c, port in ((a, 7600), (b, 7601)):
        if c.bind(A, port) != 0:
            raise Fail("bind")
    ra = Ring(a)
    if ra.ret != 0 or ra.size < 4096:
        raise Fail(f"no ring: {ra.ret}, {ra.size} bytes")
    if Ring(a).ret != -errno.EEXIST:
        raise Fail("a second ring for one channel")
    # sealed: the client cannot shrink it under rdsd's mapping
    try:
        os.ftruncate(ra.mfd, 0)
        raise Fail("a ring's memfd could be shrunk")
    except PermissionError:
        pass
    # a send through the ring, not waited for, arrives
    ra.put(req(SEND, chan=a.id, arg=SEND_NOREPLY, addr=A, port=7601) + b"via-ring")
    if b.recv() != (A, 7600, b"via-ring"):
        raise Fail("a send through the ring did not arrive")
    # a waited-for send that names b's channel: answered on a's only
    ra.put(req(SEND, seq=4242, chan=b.id, addr=A, port=7601) + b"x")
    if a.reply(4242)[0] != 1 or readable(b.chan, 0.2):
        raise Fail("a ring's record reached another process's channel")
    b.recv()
    # a record half published: nothing of it, the ring goes on after
    ra.put(req(SEND, chan=a.id, arg=SEND_NOREPLY, addr=A, port=7601) + b"y" * 100,
           publish=False)
    ra.publish(ra.tail - 64)
    if b.recv(0.3) is not None:
        raise Fail("a half-published record was sent")
    ra.publish(ra.tail)
    if b.recv() != (A, 7600, b"y" * 100):
        raise Fail("the record, published whole, did not arrive")
    # garbage: rdsd reads that ring no more, serves everyone else
    rng = random.Random(32)
    for i in range(300):
        off = rng.randrange(0, ra.size - 16) & ~7
        ra.mem[RING_CTL + off:RING_CTL + off + 16] = rng.randbytes(16)
        ra.publish(rng.choice([rng.getrandbits(32), ra.u32(R_HEAD) + 8 * rng.randrange(1, 64),
                               ra.u32(R_HEAD) + ra.size + 8, ra.u32(R_HEAD) + 3]))
        ra.u32(R_SIZE, rng.getrandbits(32))
        ra.u32(R_HEAD, rng.getrandbits(32))
        if i % 100 == 0:
            round_trip(d)
    if ra.u32(R_BROKEN) != 1:
        raise Fail("garbage in a ring, not given up")
    rb = Ring(b)
    rb.put(req(SEND, chan=b.id, arg=SEND_NOREPLY, addr=A, port=7600) + b"still")
    got = a.recv()
    while got and got[2] != b"still":
        got = a.recv()    # what a's garbage happened to send to its own port
    if not got:
        raise Fail("another client's ring stopped working")
    # a client gone in the middle of a record
    ra.put(req(SEND, chan=a.id, addr=A, port=7601) + b"z" * 50, publish=False)
    ra.close()
    a.close()
    rb.close()
    b.close()
    round_trip(d)
    # the per-user bound of ring memory: past it ENOBUFS, and sends go
    # over the connection
    many, refused = [], 0
    per = RING_CTL + ra.size
    for _ in range(RING_USER_BYTES // per + 3):
        c = Client(d.name)
        r = Ring(c)
        many.append((c, r))
        if r.ret == -errno.ENOBUFS:
            refused += 1
        elif r.ret != 0:
            raise Fail(f"RDSD_OP_RING: {r.ret}")
    if refused != 3:
        raise Fail(f"{len(many) - refused} rings of {per} bytes for one user, "
                   f"past {RING_USER_BYTES}")
    for c, r in many:
        r.close()
        c.close()
    print(f"ring: {len(many) - refused} rings per user, garbage given up, rdsd answers on")
    d.within(3, "ring")
    d.settled()



def case_dies(d):
    # 1. killed after a request, before its answer (the channel is gone)
    for op in (BIND, NAME, GETOPT):
        pid = os.fork()
        if pid == 0:
            c = Client(d.name)
            c.s.send(req(op, seq=1, chan=c.id, addr=A, port=7000, arg=4))
            os.kill(os.getpid(), signal.SIGKILL)
        os.waitpid(pid, 0)
    round_trip(d, 7000)       # the dead client's port is free again
    # 2. killed with a blocking send waiting in rdsd for a full receiver
    r, s, _ = fill(d, 7100)
    pid = os.fork()
    if pid == 0:
        c = Client(d.name)
        c.bind(A, 7200)
        c.s.send(req(SEND, seq=9, chan=c.id, arg=SEND_BLOCK, addr=A, port=7100) + b"w" * 1000)
        print("waiting", flush=True)
        time.sleep(HANG)
        os._exit(0)
    time.sleep(0.3)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    round_trip(d, 7200)
    # 3. killed between handing over a channel and using it; a channel
    # handed over and then its process gone while the socket lives on
    for _ in range(20):
        pid = os.fork()
        if pid == 0:
            Client(d.name)
            os.kill(os.getpid(), signal.SIGKILL)
        os.waitpid(pid, 0)
    keep = Client(d.name)
    pid = os.fork()
    if pid == 0:
        keep.id = random.getrandbits(32)   # a process of its own, a channel of its own
        keep.open_chan()
        os.kill(os.getpid(), signal.SIGKILL)
    os.waitpid(pid, 0)
    if keep.bind(A, 7300) != 0:
        raise Fail("the parent's socket after its child died")
    round_trip(d)
    for c in (keep, r, s):
        c.close()
    d.settled()
    d.within(4, "dies")


def case_garbage(d):
    rng = random.Random(35)
    good = Client(d.name)
    if good.bind(A, 7400) != 0:
        raise Fail("bind")
    g = Client(d.name)
    devnull = os.open("/dev/null", os.O_RDONLY)
    sent = 0
    for i in range(4000):
        k = rng.random()
        if k < 0.3:
            m = rng.randbytes(rng.randrange(1, 200))
        elif k < 0.8:
            h = bytearray(rng.randbytes(REQ.size))
            h[0:4] = struct.pack("<I", rng.choice([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 255, 1 << 31]))
            m = bytes(h) + rng.randbytes(rng.choice([0, 0, 1, 16, 300]))
        else:
            # (another channel's id: a CHAN of this one's would replace it)
            m = req(rng.randrange(1, 9), seq=i, chan=g.id ^ 1, level=rng.randrange(-2, 300),
                    name=rng.randrange(-2, 20000), arg=rng.randrange(-5, 1 << 20),
                    addr=rng.choice([A, B, "10.1.2.3"]), port=rng.randrange(0, 65536))
        anc = []
        if rng.random() < 0.05:
            anc = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [devnull] * rng.randrange(1, 4)))]
        try:
            g.s.sendmsg([m], anc)
            sent += 1
        except OSError as e:
            if e.errno not in (errno.EAGAIN, errno.EMSGSIZE, errno.ENOBUFS):
                raise
        if i % 500 == 0:
            round_trip(d)
    try:
        g.s.send(b"\0" * (1 << 21))   # more than rdsd reads at once
    except OSError:
        pass
    os.close(devnull)
    # a malformed request with a channel gets EINVAL, and the client goes on
    if g.call(99) != -errno.EINVAL:
        raise Fail("an unknown op is not answered EINVAL")
    bad = bytearray(req(BIND, addr=A, port=1))
    bad[28:30] = struct.pack("<H", 17)
    g.seq += 1
    bad[4:12] = struct.pack("<II", g.seq, g.id)
    g.s.send(bytes(bad))
    if g.reply(g.seq)[0] != -errno.EINVAL:
        raise Fail("an unknown family is not answered EINVAL")
    # an empty message reads as the end of the connection: that client's
    # socket closes, and only its
    e = Client(d.name)
    e.s.send(b"")
    try:
        if e.call(NAME) == 0:
            raise Fail("a socket went on after an empty message")
    except (ConnectionResetError, BrokenPipeError):
        pass
    e.close()
    # a buffer asked far past the bound is kept at it (root here: 4 MiB)
    if g.call(SETOPT, struct.pack("<i", 1 << 30), level=socket.SOL_SOCKET,
              name=socket.SO_SNDBUF) != 0:
        raise Fail("SO_SNDBUF")
    g.seq += 1
    g.s.send(req(GETOPT, seq=g.seq, chan=g.id, level=socket.SOL_SOCKET,
                 name=socket.SO_SNDBUF, arg=4))
    ret, _, val = g.reply(g.seq)
    if ret != 0 or struct.unpack("<i", val[:4])[0] != 2 * (4 << 20):
        raise Fail(f"SO_SNDBUF of 1 GiB kept as {val[:4]!r}, not 4 MiB (doubled)")
    print(f"garbage: {sent} messages written, rdsd answers on")
    round_trip(d)
    d.within(3, "garbage")
    g.close()
    good.close()
    d.settled()


def case_flood(d):
    r = Client(d.name)
    if r.bind(A, 7500) != 0:
        raise Fail("bind")
    f = Client(d.name)
    if f.bind(A, 7501) != 0:
        raise Fail("bind")
    f.s.setblocking(False)
    stop = threading.Event()
    counts = {"written": 0}

    def flood():
        rng = random.Random(1)
        while not stop.is_set():
            op = rng.choice([NAME, GETOPT, SEND])
            m = req(op, seq=1, chan=f.id, arg=(SEND_NOREPLY | SEND_BLOCK) if op == SEND else 4,
                    addr=A, port=7500) + (b"x" * 4096 if op == SEND else b"")
            try:
                f.s.send(m)
                counts["written"] += 1
            except BlockingIOError:
                select.select([], [f.s], [], 0.01)

    t = threading.Thread(target=flood)
    t.start()
    try:
        for _ in range(30):
            round_trip(d)
    finally:
        stop.set()
        t.join()
    print(f"flood: {counts['written']} requests written unread; 30 round trips of another client answered")
    d.within(4, "flood")
    f.close()
    r.close()
    d.settled()


def case_sockets(d, n=3000):
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    n = min(n, (hard - 100) // 2)
    cs = []
    for i in range(n):
        c = Client(d.name)
        cs.append(c)
        if i % 500 == 0:
            round_trip(d)
    for i, c in enumerate(cs[:1000]):
        if c.bind(A, 10000 + i) != 0:
            raise Fail(f"socket {i} of one client cannot bind")
    round_trip(d)
    d.within(n, f"sockets: {n} from one process")
    for c in cs:
        c.close()
    d.settled()
    round_trip(d)


def case_sockets_capped(d, cap):
    cs, served, refused = [], 0, 0
    for i in range(cap // 2 + 100):
        try:
            c = Client(d.name)
            cs.append(c)
            if c.call(NAME) != 0:
                raise Fail("NAME")
            served += 1
        except (ConnectionResetError, BrokenPipeError):
            refused += 1
    # two descriptors each (connection and channel): cap/2 served
    if served != cap // 2 or refused != 100:
        raise Fail(f"--max-fds {cap}: {served} served, {refused} refused")
    print(f"sockets: --max-fds {cap}: {served} served, {refused} refused")
    for c in cs:
        c.close()
    d.settled()
    round_trip(d)      # the share is back once they closed


MAX_EPS = 256          # shim/rdsd.h RDSD_MAX_EPS
EP_BYTES = 64 << 10    # an endpoint: ~48 KiB measured (docs/security.md)


def case_addresses(d):
    """Sockets bound to ever new addresses of 127/8: each address is an
    endpoint of rdsd's (a TCP listener); at most MAX_EPS of them, the idle
    ones given up for new addresses. An address with a socket bound stays
    for everyone: keep one on A."""
    keep = Client(d.name)
    if keep.bind(A, 1998) != 0:
        raise Fail("bind")
    cs, refused = [], 0
    for i in range(MAX_EPS + 50):
        c = Client(d.name)
        cs.append(c)
        r = c.bind(f"127.1.{i // 200}.{1 + i % 200}", 5000)
        if r == -errno.ENOBUFS:
            refused += 1
        elif r != 0:
            raise Fail(f"bind {i}: {r}")
    # A's endpoint is kept, B's (idle) given up: MAX_EPS - 1 new ones
    if refused != 51:
        raise Fail(f"{MAX_EPS + 50} addresses bound: {refused} refused, 51 expected")
    round_trip(d)         # on A, which a socket holds
    for c in cs:
        c.close()
    # every endpoint idle now: new addresses take their places
    for i in range(50):
        c = Client(d.name)
        if c.bind(f"127.2.0.{1 + i}", 5000) != 0:
            raise Fail("a new address once the others were idle")
        c.close()
    round_trip(d)
    keep.close()
    d.settled(extra=3 * MAX_EPS)
    d.alive()
    grew = d.rss() - d.rss0
    bound = MAX_EPS * EP_BYTES * (3 if ASAN else 1) + SLACK * (2 if ASAN else 1)
    print(f"addresses: {refused} of {MAX_EPS + 50} refused; rdsd grew {grew >> 10} KiB "
          f"(bound {bound >> 10} KiB for {MAX_EPS} endpoints)")
    if grew > bound:
        raise Fail(f"addresses: rdsd grew {grew} bytes, past {bound}")


def case_never_reads(d):
    r, s, n = fill(d, 7600)
    print(f"never-reads: {n} messages of 64 KiB accepted before ENOBUFS")
    # a sender that ignores the credit and never waits for an answer
    body = b"g" * 65536
    for _ in range(2000):
        s.s.send(req(SEND, seq=0, chan=s.id, arg=SEND_NOREPLY | SEND_BLOCK, addr=A, port=7600) + body)
    round_trip(d)
    d.within(3, "never-reads: 2000 more sends of 64 KiB")
    # what was accepted arrives, in order, once the receiver reads
    got = 0
    while True:
        m = r.recv(timeout=2)
        if m is None:
            break
        if m[2][:1] not in (b"f", b"g"):
            raise Fail("a message changed")
        got += 1
    if got < n:
        raise Fail(f"{n} sends accepted, {got} delivered")
    print(f"never-reads: {got} delivered once the receiver read")
    r.close()
    s.close()
    d.settled()


def case_isolation(d):
    r1, r2, r3, u, con = (Client(d.name) for _ in range(5))
    if r1.bind(A, 8000) or r2.bind(A, 8001) or r3.bind(B, 8000):
        raise Fail("bind")
    if con.call(CONNECT, addr=A, port=8000) != 0:
        raise Fail("connect")
    other = Client(d.name)
    if other.bind(A, 8000) != -errno.EADDRINUSE:
        raise Fail("a second bind of a bound address and port")
    if r1.bind(A, 8002) != -errno.EINVAL:
        raise Fail("a second bind of one socket")
    s = Client(d.name)
    if s.bind(A, 8100) != 0:
        raise Fail("bind")
    for i in range(50):
        if s.sendto(A, 8000, b"to-8000-%d" % i) < 0:
            raise Fail("send")
        s.sendto(A, 8003, b"to-nobody")
        s.sendto(B, 8001, b"to-nobody")
    got = [r1.recv(timeout=5) for _ in range(50)]
    if any(g is None or g[2] != b"to-8000-%d" % i for i, g in enumerate(got)):
        raise Fail("the bound socket did not get its 50 messages in order")
    for name, c in (("another port", r2), ("another address", r3), ("unbound", u),
                    ("connected only", con), ("refused bind", other)):
        m = c.recv(timeout=0.5)
        if m is not None:
            raise Fail(f"a socket on {name} received {m!r}")
    # a port freed with messages waiting: its next owner gets none of them
    for i in range(20):
        s.sendto(A, 8000, b"old-%d" % i)
    r1.close()
    time.sleep(0.2)
    n1 = Client(d.name)
    if n1.bind(A, 8000) != 0:
        raise Fail("the freed port")
    m = n1.recv(timeout=0.5)
    if m is not None:
        raise Fail(f"the port's next owner received the old owner's {m!r}")
    s.sendto(A, 8000, b"new")
    if n1.recv() != (A, 8100, b"new"):
        raise Fail("the next owner's own message")
    print("isolation: messages only at the bound address and port")
    for c in (r2, r3, u, con, other, s, n1):
        c.close()
    d.settled()


def case_measure(d, n=1000):
    """Not a test: rdsd's memory with |n| sockets of one client
    (docs/performance.md)."""
    import resource
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    base = d.rss()
    cs = [Client(d.name) for _ in range(n)]
    for c in cs:
        c.call(NAME)
    conn = d.rss()
    for i, c in enumerate(cs):
        if c.bind(A, 10000 + i) != 0:
            raise Fail("bind")
    bound = d.rss()
    for i, c in enumerate(cs):
        c.sendto(A, 10000 + i, b"m" * 1024)
        c.recv()
    used = d.rss()
    print(f"measure: rdsd RSS {base >> 10} KiB at start; {n} sockets with their channels "
          f"{conn >> 10} KiB (+{(conn - base) // n} B each); bound {bound >> 10} KiB "
          f"(+{(bound - base) // n} B each); after a 1 KiB message each way "
          f"{used >> 10} KiB (+{(used - base) // n} B each); {d.fds()} descriptors")
    for c in cs:
        c.close()
    d.settled()


RESTART_CLIENT = r"""
import errno, os, select, socket, sys, threading
A = sys.argv[1]
s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
s.bind((A, 9000))
s.sendto(b"one", (A, 9000))
assert s.recvfrom(100)[0] == b"one"
# a receive blocked when rdsd dies
w = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
w.bind((A, 9001))
woke = []
def blocked():
    try:
        w.recvfrom(100)
        woke.append("a message")
    except OSError as e:
        woke.append(e.errno)
t = threading.Thread(target=blocked, daemon=True)
t.start()
print("ready", flush=True)
sys.stdin.readline()                 # rdsd was killed
t.join(20)
if woke != [errno.ENOTCONN]:
    print(f"FAIL: a receive blocked when rdsd died: {woke or 'still blocked'}", flush=True)
    sys.exit(1)
s.settimeout(None)                   # blocking: a hang would show here
for what, f in (("recv", lambda: s.recvfrom(100)), ("send", lambda: s.sendto(b"x", (A, 9000))),
                ("getsockname", lambda: s.getsockname())):
    try:
        f()
        print(f"FAIL: {what} on a socket of a dead rdsd succeeded", flush=True)
        sys.exit(1)
    except OSError as e:
        if e.errno != errno.ENOTCONN:
            print(f"FAIL: {what}: {e}", flush=True)
            sys.exit(1)
print("dead", flush=True)
sys.stdin.readline()                 # a new rdsd runs
t = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
t.bind((A, 9000))
t.sendto(b"two", (A, 9000))
t.settimeout(20)
assert t.recvfrom(100)[0] == b"two"
print("again", flush=True)
"""


def case_restart(d, rdsrun, tmp):
    env = dict(os.environ, RDSRUN_FORCE="1", RDSD_NAME=d.name)
    env.pop("RDSRUN_DAEMON", None)
    first = os.environ.get("SHIM_PRELOAD_FIRST")
    if first:
        env["LD_PRELOAD"] = first
        env["ASAN_OPTIONS"] = "detect_leaks=0"
    p = subprocess.Popen([rdsrun, sys.executable, "-c", RESTART_CLIENT, A], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, env=env, text=True)

    def step(want):
        r, _, _ = select.select([p.stdout], [], [], HANG)
        if not r:
            raise Fail(f"the shimmed program hangs (waiting for {want!r})")
        out = p.stdout.readline().strip()
        print(f"restart: the shimmed program says {out!r}")
        if out != want:
            raise Fail(f"the shimmed program: {out!r}, not {want!r}")

    try:
        step("ready")
        d.p.kill()
        d.p.wait()
        p.stdin.write("\n")
        p.stdin.flush()
        step("dead")
        d.__init__(tmp, name=d.name)     # restarted, under the same name
        p.stdin.write("\n")
        p.stdin.flush()
        step("again")
        if p.wait(timeout=HANG) != 0:
            raise Fail("the shimmed program failed")
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def main():
    global RDSD, ASAN
    RDSD, case = sys.argv[1], sys.argv[2]
    with open(RDSD, "rb") as f:
        ASAN = b"__asan_init" in f.read()
    if os.environ.get("RDSD_HOSTILE_NETNS") != "1":
        for u in (["unshare", "-n"], ["unshare", "-rn"]):
            if subprocess.run(u + ["true"], stderr=subprocess.DEVNULL).returncode == 0:
                os.environ["RDSD_HOSTILE_NETNS"] = "1"
                os.execvp(u[0], u + [sys.executable] + sys.argv)
        print("SKIP: no network namespace (unshare -n)")
        return 77
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    subprocess.run(["ip", "addr", "add", B + "/8", "dev", "lo"], stderr=subprocess.DEVNULL)
    with tempfile.TemporaryDirectory() as tmp:
        args = ["--max-fds", "400"] if case == "sockets-capped" else []
        d = Rdsd(tmp, *args)
        try:
            if case == "restart":
                case_restart(d, sys.argv[3], tmp)
            elif case == "sockets-capped":
                case_sockets_capped(d, 400)
            else:
                globals()["case_" + case.replace("-", "_")](d)
            round_trip(d)
            d.alive()
        except (Fail, OSError) as e:
            print(f"FAIL: {case}: {e!r}")
            d.log.seek(0)
            print("== rdsd's log (last lines)")
            print("".join(d.log.readlines()[-30:]))
            return 1
        finally:
            d.stop()
    print(f"ok: {case}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
