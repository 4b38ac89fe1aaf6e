# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""RDS/TCP congestion: a receiver stops reading until its port is congested.

Two rounds, one per direction. Round A: guest 1 (10.199.0.2) binds port
4000 with SO_RCVBUF 64 KiB (the RDS limit is then 65536 payload bytes) and
does not read; guest 2 sends 4096-byte messages from port 5500,
non-blocking. It sends 16 (exactly 65536 bytes) and pauses, then the 17th
and pauses, then retries until sendto fails with ENOBUFS, which it records.
Guest 1 then reads 9 messages (8 = 32768 bytes stay queued), sends marker
"m1" to guest 2's control port 7000, pauses, reads one more (7 stay), sends
"m2" and drains, reading as fast as the rest arrives. Guest 2 retries sendto until it succeeds and sends
the rest. Round B is the same with the roles swapped (guest 2 receives on
port 5000, guest 1 sends from 4500). Every payload is checked by content and
by a running SHA-256 in order.

Pauses are 1 s, so the capture tells when each map was sent: the kernel
marks a port congested when the queued payload EXCEEDS the limit (after
message 17, not 16) and clears it when it drops BELOW half the limit (after
the 10th read, not the 9th).
"""
import lab

GUESTS = 2
RXE = False
TIMEOUT = 200
TOTAL = 30
SIZE = 4096
RCVBUF = 65536
CTL = 7000
ROUNDS = {  # receiver address, its data port, sender address, its source port
    "A": ("10.199.0.2", 4000, "10.199.0.3", 5500),
    "B": ("10.199.0.3", 5000, "10.199.0.2", 4500),
}

PROG = (r'''
python3 - <<'PY'
import errno, hashlib, os, socket, sys, time
''' + lab.GUEST_RDS_TCP + lab.guest_flags(60, 0.05) + r'''
TOTAL, SIZE, RCVBUF, CTL = %d, %d, %d, %d
ROUNDS = %r
ME = os.environ["LAB_IP"]

def payload(r, i):
    seed = hashlib.sha256(b"cong %%s %%d" %% (r.encode(), i)).digest()
    return (seed * (SIZE // 32 + 1))[:SIZE]

ctl = rds_socket(CTL)

def receiver(r):
    raddr, rport, saddr, sport = ROUNDS[r]
    s = rds_socket(rport, RCVBUF)
    print("%%s: SO_RCVBUF %%d -> getsockopt %%d" %% (
        r, RCVBUF, s.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)))
    flag("ready" + r)
    wait_flag("enobufs" + r)
    h, got = hashlib.sha256(), 0
    def read(n):
        nonlocal got
        for _ in range(n):
            data, addr = s.recvfrom(SIZE + 1)
            assert addr == (saddr, sport), addr
            assert data == payload(r, got), "message %%d differs" %% got
            h.update(data)
            got += 1
    read(9)
    ctl.sendto(b"m1 " + r.encode(), (saddr, CTL))
    time.sleep(1)
    read(1)
    ctl.sendto(b"m2 " + r.encode(), (saddr, CTL))
    read(TOTAL - got)       # keep up, so the port does not congest again
    want = hashlib.sha256(b"".join(payload(r, i) for i in range(TOTAL))).hexdigest()
    assert h.hexdigest() == want, "running digest differs"
    print("%%s: received %%d messages in order, digest ok" %% (r, got))
    flag("done" + r)

def send(s, r, i, dst):
    while True:
        try:
            s.sendto(payload(r, i), dst)
            return None
        except OSError as e:
            if e.errno == errno.EAGAIN:
                time.sleep(0.05)
                continue
            return e.errno

def sender(r):
    raddr, rport, saddr, sport = ROUNDS[r]
    s = rds_socket(sport)
    s.setblocking(False)
    wait_flag("ready" + r)
    dst = (raddr, rport)
    for i in range(16):
        assert send(s, r, i, dst) is None
        time.sleep(0.02)
    time.sleep(1)
    assert send(s, r, 16, dst) is None
    time.sleep(1)
    i, err = 17, None
    while err is None and i < TOTAL:
        err = send(s, r, i, dst)
        if err is None:
            i += 1
            time.sleep(0.05)
    assert err == errno.ENOBUFS, "sendto error %%r" %% err
    print("%%s: sendto failed with errno %%d (ENOBUFS) after %%d messages" %% (r, err, i))
    flag("enobufs" + r)
    tries, t0 = 0, time.time()
    while send(s, r, i, dst) == errno.ENOBUFS:
        tries += 1
        assert time.time() - t0 < 30, "port stays congested"
        time.sleep(0.02)
    print("%%s: could send again after %%d ENOBUFS retries, %%.1f s" %% (r, tries, time.time() - t0))
    i += 1
    while i < TOTAL:
        err = send(s, r, i, dst)
        if err == errno.ENOBUFS:      # congested again: wait, do not lose it
            time.sleep(0.05)
            continue
        assert err is None, err
        i += 1
        time.sleep(0.02)
    print("%%s: sent %%d messages" %% (r, i))
    wait_flag("done" + r, 90)
    for _ in range(2):
        data, addr = ctl.recvfrom(100)
        print("%%s: marker %%r from %%s" %% (r, data, addr[0]))

if ME == "10.199.0.2":
    receiver("A")
    sender("B")
else:
    sender("A")
    receiver("B")
time.sleep(2)
PY
''') % (TOTAL, SIZE, RCVBUF, CTL, ROUNDS)


def roles(kernel):
    return {1: PROG, 2: PROG}


def _collapse(states):
    out = []
    for s in states:
        if not out or out[-1] != s:
            out.append(s)
    return out


def check(cap, out, kernel):
    from checks import check_tcp_fields, check_seq_per_path, directions
    conns = cap["tcp"]
    assert conns, "no RDS/TCP connection"
    if out:
        for r, (raddr, rport, saddr, sport) in ROUNDS.items():
            snd, rcv = (out[2], out[1]) if r == "A" else (out[1], out[2])
            assert "%s: sendto failed with errno 105 (ENOBUFS) after 17 messages" % r in snd, \
                "round %s: ENOBUFS not after 17 messages" % r
            assert "%s: received %d messages in order, digest ok" % (r, TOTAL) in rcv, r
    for c in conns:
        check_tcp_fields(c)
        check_seq_per_path(c)
    allm = [(sender, m) for c in conns for sender, msgs in directions(c) for m in msgs]
    for sender, m in allm:
        if m["kind"] == "cong":
            # whole maps, flags exactly CONG_BITMAP, seq and ports 0
            assert m["len"] == 8192 and m["flags"] == 0x01 and m["seq"] == 0 \
                and m["sport"] == 0 and m["dport"] == 0, m
    for r, (raddr, rport, saddr, sport) in ROUNDS.items():
        maps = sorted((m for s, m in allm if s == raddr and m["kind"] == "cong"),
                      key=lambda m: m["time"])
        states = _collapse([m["congested"] for m in maps])
        assert states == [[], [rport], []], \
            "round %s: %s's maps went %s" % (r, raddr, states)
        t_on = [m["time"] for m in maps if m["congested"] == [rport]][0]
        t_off = [m["time"] for m in maps if m["congested"] == [] and m["time"] > t_on][0]
        data = sorted((m for s, m in allm if s == saddr and m["kind"] == "data"
                       and m["dport"] == rport), key=lambda m: m["time"])
        assert len(data) == TOTAL and all(m["len"] == SIZE for m in data), len(data)
        # Threshold up: 16 x 4096 = 65536 (= the limit) does not congest;
        # the 17th message, 1 s later, does; the map leaves before the 18th.
        before = [m for m in data if m["time"] < t_on]
        assert len(before) == 17, "round %s: congested after %d messages" % (r, len(before))
        assert data[16]["time"] - data[15]["time"] > 0.8, "no pause before message 17"
        # The sender stopped until the port was free again.
        assert not [m for m in data if t_on < m["time"] < t_off], \
            "round %s: data sent to a congested port" % r
        # Threshold down: 8 messages (32768 = half the limit) still queued
        # keeps it congested; the 10th read (7 left) frees it.
        marks = sorted((m for s, m in allm if s == raddr and m["kind"] == "data"
                        and m["dport"] == CTL), key=lambda m: m["time"])
        assert len(marks) == 2, "round %s: %d markers" % (r, len(marks))
        m1, m2 = marks[0]["time"], marks[1]["time"]
        assert t_off - m1 > 0.8, "round %s: freed %.2f s after marker m1" % (r, t_off - m1)
        assert abs(t_off - m2) < 0.5, "round %s: freed %.2f s from marker m2" % (r, t_off - m2)
