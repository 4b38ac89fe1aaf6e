# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""RDS/TCP reset: `ss -K` kills only the stream's TCP connection, 4 times.

Guest 1 (10.199.0.2, the smaller address: TCP client, the side that
reconnects) streams numbered 1 KiB messages from port SPORT (hash path 2)
to guest 2 port 5000 in phases: STEADY paced messages, then a BURST
queued at once, during which the stream's connection is killed; after the
last phase an END message carries the count. Kills 1 and 3 are done by
guest 1 (client side, `ss -K src 10.199.0.2 sport = :P dst 10.199.0.3
dport = :16385`), kills 2 and 4 by guest 2 (server side, `ss -K src
10.199.0.3 sport = :16385 dst 10.199.0.2 dport = :P`). The guests load
inet_diag and tcp_diag and Debian kernels have CONFIG_INET_DIAG_DESTROY,
so this is SOCK_DESTROY -> tcp_abort(): an RST, on that connection only.

Finding the stream's connection inside the guest, without the capture:
`ss -tni` byte counters (bytes_sent in guest 1, bytes_received in guest 2)
snapshotted 5 paced messages into the phase and again near its end; the
stream's connection is the one that grew (the 7 other paths are idle; its
growth must be more than twice the next one's). On 7.2 the kernel's own
rule must agree: client port % 8 == path index (SPORT_IDX). On 6.1 the
port says nothing about the path, so the byte counters are the method.

Unacknowledged messages at the kill, every time: under TCG each message
is acked within ~0.3 ms and the stream is sender-limited, so a kill timed
only by the burst mostly found nothing on cp_retrans (tried first: 0 to 4
of 4 kills resent). So for each burst guest 2 stops transmitting (root
qdisc `pfifo limit 0` on eth0: sch_fifo is built in) before guest 1 sends
it: what guest 1's congestion window lets out reaches guest 2 and is
delivered, but no ACK leaves, so guest 1 keeps it all, plus the rest of
the burst handed to TCP, on its retransmit queue. When guest 1 has
stalled (0.3 s without a message) the killer strikes: guest 2 removes the
qdisc and fires at once; guest 1 fires while guest 2 still holds (its RST
is ingress for guest 2), and guest 2 removes the qdisc when guest 1 says
it is done, so the reconnect's first SYN-ACK may be dropped and the SYN
resent 1 s later (6.1 runs; see check()). ss and tc are started early and
wait for their filter/command on stdin (`ss -F -`, `tc -batch -`, nice
-20), so only the netlink work is left at the moment of the kill.

Guest 2 checks the index of every message as it arrives (content and a
running SHA-256 over first deliveries after END, against guest 1's
running digest of what it sent) and counts second deliveries.
"""
import lab

GUESTS = 2
RXE = False
TIMEOUT = 240
SIZE = 1024
STEADY = 32
BURST = 96
KILLS = 4
SPORT, DPORT = 4003, 5000   # jhash_1word(4003, 0) & 7 == 2
PATH = 2
KILLER = {0: 1, 1: 2, 2: 1, 3: 2}   # kill index -> guest that kills
SMALL, LARGE = "10.199.0.2", "10.199.0.3"

PROG = r'''
python3 - <<'PY'
import hashlib, os, re, socket, struct, subprocess, sys, time
''' + lab.GUEST_RDS_TCP + lab.guest_flags(60, 0.05) + r'''
SIZE, STEADY, BURST, KILLS, SPORT, DPORT, PATH = %d, %d, %d, %d, %d, %d, %d
END = b"\xff\xff\xff\xff"     # last message: END + number of messages before it
KILLER = %r
SMALL, LARGE = %r, %r
BY_PORT = %r        # 7.2: client source port %% 8 is the path index
ME = os.environ["LAB_IP"]
GUEST = int(os.environ["LAB_ID"])
LAB = os.environ["LAB_DIR"]
T0 = time.monotonic()

def payload(i, k, j):
    """Message i, the j-th of phase k (j < STEADY: paced, else burst)."""
    n = SIZE
    seed = hashlib.sha256(b"reset %%d %%d %%d" %% (i, k, j)).digest()
    return struct.pack(">IHH", i, k, j) + (seed * (n // 32 + 1))[:n - 8]

ADDR = r"(?:\[::ffff:)?(\d+\.\d+\.\d+\.\d+)\]?:(\d+)"

def rds_conns():
    """This guest's established RDS/TCP connections from `ss -tni`:
    [(client port, bytes this side sent, bytes it received)]."""
    r = subprocess.run(["ss", "-tniH", "state", "established",
                        "( sport = :16385 or dport = :16385 )"],
                       capture_output=True, text=True, check=True)
    conns, cur = [], None
    for line in r.stdout.splitlines():
        m = re.search(ADDR + r"\s+" + ADDR, line)
        if m:
            cur = None
            if m.group(1) == ME and m.group(3) in (SMALL, LARGE) and m.group(3) != ME:
                cport = int(m.group(2)) if GUEST == 1 else int(m.group(4))
                cur = [cport, 0, 0]
                conns.append(cur)
            continue
        if cur is not None:
            for key, i in (("bytes_sent", 1), ("bytes_received", 2)):
                v = re.search(key + r":(\d+)", line)
                if v:
                    cur[i] = int(v.group(1))
    return conns

def snapshot():
    key = 1 if GUEST == 1 else 2       # sender: bytes sent, receiver: received
    return {c[0]: c[key] for c in rds_conns()}

def locate(k, before):
    """The TCP connection that carries the stream, as this guest sees it:
    the one whose byte counter grew most since |before| (a snapshot taken
    a few paced messages into the phase; the other paths are idle then).
    On 7.2 also by the kernel's own rule, client port %% 8 == path index."""
    # On a loaded host the previous kill's reconnect can still be under
    # way when the phase's paced messages are queued: they wait in RDS's
    # send queue and no connection has grown yet. They go out once the
    # path is back, so wait for that (bounded) rather than judge an idle
    # snapshot.
    deadline = time.monotonic() + 15
    while True:
        now = snapshot()
        grew = {p: b - before.get(p, 0) for p, b in now.items()}
        if (grew and max(grew.values()) > 0) or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    by_bytes = max(grew, key=grew.get)
    rest = sorted((g for p, g in grew.items() if p != by_bytes), reverse=True)
    assert grew[by_bytes] > 0 and (not rest or rest[0] < grew[by_bytes] // 2), \
        "kill %%d: no connection stands out: %%r" %% (k + 1, grew)
    target, how = by_bytes, "grew most"
    if BY_PORT:
        cand = [p for p in now if p %% 8 == PATH]
        assert cand == [by_bytes], "kill %%d: port %%%% 8 == %%d: %%r, most growth: %%d" %% (
            k + 1, PATH, cand, by_bytes)
        how = "port %%%% 8 == %%d and grew most" %% PATH
    print("kill %%d target: client port %%d (%%s: +%%d bytes, next +%%d; %%d connections) at %%.2f" %% (
        k + 1, target, how, grew[target], rest[0] if rest else 0, len(now),
        time.monotonic() - T0))
    return target

def arm():
    """Start `ss -K` now, waiting for its filter on stdin (-F -): process
    start-up (0.2-0.4 s under TCG) is paid before the burst, and the kill
    itself is one netlink dump with SOCK_DESTROY. At nice -20, or the
    softirq/ksoftirqd load of the burst on the receiver delays it by up to
    seconds."""
    return subprocess.Popen(["nice", "-n", "-20", "ss", "-tnHK", "state", "established", "-F", "-"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)

def fire(ss, cport):
    """Hand the armed `ss -K` the filter naming one connection; it destroys
    it while this process goes on (sending or receiving the burst)."""
    if GUEST == 1:
        flt = "src %%s sport = :%%d dst %%s dport = :16385" %% (ME, cport, LARGE)
    else:
        flt = "src %%s sport = :16385 dst %%s dport = :%%d" %% (ME, SMALL, cport)
    ss.stdin.write(flt + "\n")
    ss.stdin.close()
    return (ss, flt, time.monotonic())

def reap(k, fired):
    ss, flt, t = fired
    out, err = ss.stdout.read(), ss.stderr.read()
    ss.wait()
    killed = re.findall(ADDR + r"\s+" + ADDR, out)
    assert ss.returncode == 0 and len(killed) == 1, "ss -K %%s: rc %%d %%r %%r" %% (
        flt, ss.returncode, out, err)
    print("kill %%d by guest %%d: ss -K %%s destroyed %%s:%%s -> %%s:%%s (fired at %%.2f, ss done %%.3f s later)" %% (
        (k + 1, GUEST, flt) + killed[0] + (t - T0, time.monotonic() - t)))

def tc(*args):
    subprocess.run(["tc", "qdisc"] + list(args), check=True)

def hold():
    """Guest 2 stops transmitting: a pfifo of length 0 (sch_fifo is built
    into the kernel) as eth0's root qdisc drops every packet it sends. The
    burst arrives and is delivered, but no ACK leaves."""
    tc("add", "dev", "eth0", "root", "pfifo", "limit", "0")
    print("hold at %%.2f" %% (time.monotonic() - T0))

def arm_release():
    """`tc -batch -` started early, waiting for its command on stdin."""
    return subprocess.Popen(["nice", "-n", "-20", "tc", "-batch", "-"],
                            stdin=subprocess.PIPE, text=True)

def release(untc):
    """Remove the hold: the armed tc only has to run one netlink request.
    For guest 2's kills ss fires right after, well inside guest 1's next
    retransmission timeout, so nothing is acked in between."""
    untc.stdin.write("qdisc del dev eth0 root\n")
    untc.stdin.close()
    assert untc.wait() == 0, "tc qdisc del failed"

if GUEST == 1:
    dummy = rds_socket(3999, force=True)     # takes the random hash seed
    dummy.sendto(b"", (LARGE, 0))
    dummy.recvfrom(10)
    s = rds_socket(SPORT, timeout=None, force=True)
    sent = hashlib.sha256()
    def send(data):
        s.sendto(data, (LARGE, DPORT))
        sent.update(data)
    wait_flag("ready2")
    time.sleep(2)                # all paths up
    i = 0
    for k in range(KILLS + 1):
        for j in range(STEADY):
            send(payload(i, k, j)); i += 1
            time.sleep(0.02)
            if j == 4 and k < KILLS and KILLER[k] == 1:
                before = snapshot()
        if k == KILLS:
            break
        t = time.monotonic()
        if KILLER[k] == 1:
            target, ss = locate(k, before), arm()
        wait_flag("held%%d" %% k)      # guest 2 sends nothing now, no ACK
        for n in range(BURST):
            send(payload(i, k, STEADY + n)); i += 1
        print("burst %%d: messages %%d..%%d queued in %%.3f s" %% (k + 1, i - BURST, i - 1,
                                                              time.monotonic() - t))
        if KILLER[k] == 1:
            wait_flag("stalled%%d" %% k, poll=0.01)
            reap(k, fire(ss, target))
            flag("killed%%d" %% k)
            time.sleep(1.5)          # the reconnect's SYN-ACK was held: 1 s
        else:
            wait_flag("killed%%d" %% k)
            time.sleep(0.5)
    s.sendto(END + struct.pack(">I", i), (LARGE, DPORT))
    with open(os.path.join(LAB, "digest1"), "w") as f:
        f.write("%%d %%s\n" %% (i, sent.hexdigest()))
    print("sent", i, "messages")
    wait_flag("done2", 120)
    print("final:", rds_conns())
else:
    s = rds_socket(DPORT, force=True)
    flag("ready2")
    # guest 2's kills: find the connection near the end of phase k's paced
    # messages, kill once its last paced message is in (the burst follows)
    snap_at = {(k, 4): k for k in range(KILLS) if KILLER[k] == 2}
    locate_at = {(k, STEADY - 5): k for k in range(KILLS) if KILLER[k] == 2}
    hold_at = {(k, STEADY - 1): k for k in range(KILLS)}
    targets = {}
    # Only the index is checked while receiving (a slow reader would lag
    # behind the kernel and fire its kills late); content and digest after.
    got, dups, total = [], [], None
    def take(data, addr):
        global total
        assert addr == (SMALL, SPORT), addr
        if data[:4] == END:
            assert total is None, "END delivered twice"
            total = struct.unpack(">I", data[4:8])[0]
            assert total == len(got), "END after %%d of %%d messages" %% (len(got), total)
            return
        idx = struct.unpack(">I", data[:4])[0]
        if idx < len(got):
            dups.append((idx, data))     # delivered a second time
            return
        assert idx == len(got), "expected message %%d, got %%d: lost or reordered" %% (len(got), idx)
        got.append(data)
        return struct.unpack(">HH", data[4:8])
    def drain(timeout):
        """take() what arrives until |timeout| s pass with nothing."""
        s.settimeout(timeout)
        try:
            while True:
                take(*s.recvfrom(SIZE + 1))
        except socket.timeout:
            pass
    while total is None:
        kj = take(*s.recvfrom(SIZE + 1))
        if kj in snap_at:
            before = (snap_at.pop(kj), snapshot())
        if kj in locate_at:
            k = locate_at.pop(kj)
            targets[k] = (locate(k, before[1]), arm())
        if kj in hold_at:
            k = hold_at.pop(kj)
            untc = arm_release()
            hold()
            flag("held%%d" %% k)
            # receive what guest 1 can send without ACKs, until it stalls
            drain(0.3)
            print("kill %%d: guest 1 stalled after message %%d" %% (k + 1, len(got) - 1))
            if KILLER[k] == 2:
                release(untc)
                reap(k, fire(targets[k][1], targets[k][0]))
                flag("killed%%d" %% k)
            else:
                flag("stalled%%d" %% k)
                s.settimeout(0.02)
                while not os.path.exists(os.path.join(LAB, "killed%%d" %% k)):
                    try:
                        take(*s.recvfrom(SIZE + 1))
                    except socket.timeout:
                        pass
                release(untc)
            s.settimeout(60)
    drain(3)
    h = hashlib.sha256()
    def expected(data):
        return payload(*struct.unpack(">IHH", data[:8]))
    for i, data in enumerate(got):
        assert data == expected(data), "corrupt message index %%d" %% i
        h.update(data)
    for i, data in dups:
        assert data == expected(data) == got[i], "corrupt duplicate of message %%d" %% i
    # the running digest over first deliveries equals the sender's running
    # digest over everything it sent
    wait_flag("digest1")
    want = open(os.path.join(LAB, "digest1")).read().split()
    assert want == [str(total), h.hexdigest()], "digest: sent %%r, received %%d %%s" %% (
        want, total, h.hexdigest())
    print("received %%d messages in order, no loss, digest ok; %%d duplicate deliveries%%s"
          %% (total, len(dups), (": indexes %%s" %% sorted(i for i, _ in dups)) if dups else ""))
    print("final:", rds_conns())
    flag("done2")
time.sleep(2)
PY
'''


def roles(kernel):
    prog = PROG % (SIZE, STEADY, BURST, KILLS, SPORT, DPORT, PATH, KILLER,
                   SMALL, LARGE, kernel != "6.1")
    return {1: prog, 2: prog}


def stream_index(m):
    """Message index from the payload head; the END marker counts as the
    index after the last message."""
    head = bytes.fromhex(m["payload_head"])
    if head[:4] == b"\xff" * 4:
        return int.from_bytes(head[4:8], "big")
    return int.from_bytes(head[:4], "big")


def check(cap, out, kernel):
    import re
    from checks import check_tcp_fields, check_seq_per_path
    conns = cap["tcp"]
    # After a kill by guest 1, guest 2 may still hold its output when the
    # reconnect's SYN arrives: its SYN-ACK is dropped and guest 1 sends the
    # SYN again 1 s later. rdscap lists that first, lone SYN as a connection
    # of its own (same port); note when the path first tried to reconnect.
    lone = [c for c in conns if not c["established"] and not c["c2s"] and not c["s2c"]
            and not c["s2c_rst"] and c["s2c_fin_time"] is None]
    conns = [c for c in conns if c not in lone]
    first_syn = {}
    for c in lone:
        later = [n for n in conns if n["client_port"] == c["client_port"] and n["start"] > c["start"]]
        assert later and later[0]["start"] - c["start"] < 3.5, \
            "SYN from port %d never answered" % c["client_port"]
        first_syn.setdefault(id(later[0]), c["start"])
    for c in conns:
        check_tcp_fields(c)
        check_seq_per_path(c, strict=False)
        # only the smaller address ever connects, and every attempt succeeds
        assert c["client"] == SMALL and c["server"] == LARGE, "connection from %s" % c["client"]
        assert c["established"], "connection from port %d not established" % c["client_port"]
    dconns = [c for c in conns if any(m["kind"] == "data" and m["sport"] == SPORT for m in c["c2s"])]
    assert len(dconns) == KILLS + 1, "%d connections carried the stream" % len(dconns)
    first = dconns[0]
    from checks import split_rejected
    others, _ = split_rejected([c for c in conns if c not in dconns], kernel)
    # The first fan-out: 8 paths; afterwards only the killed path reconnects.
    assert len(others) == 7 and all(c["start"] < first["start"] + 1 for c in others), \
        "connections other than the stream's: %r" % [(c["client_port"], c["start"]) for c in others]
    for c in others:
        for d in ("c2s", "s2c"):
            assert not c[d + "_rst"] and c[d + "_fin_time"] is None, \
                "path from port %d was closed too (%s)" % (c["client_port"], d)
            assert not any(m["kind"] == "data" for m in c[d]), "stream data on another path"
    if kernel != "6.1":
        # 7.2: the client port encodes the path (port % 8); each reconnect
        # takes the next group of 8 ports
        for k, c in enumerate(dconns):
            assert c["client_port"] % 8 == PATH, "stream on port %d" % c["client_port"]
            assert k == 0 or c["client_port"] == dconns[k - 1]["client_port"] + 8, \
                "reconnect %d from port %d" % (k, c["client_port"])
    kill_times = []
    for k, c in enumerate(dconns[:KILLS]):
        # ss -K: the killing side aborts the socket with an RST, no FIN either way
        killer = KILLER[k]
        mine, peer = ("c2s", "s2c") if killer == 1 else ("s2c", "c2s")
        assert c[mine + "_rst"], "kill %d: no RST from guest %d" % (k + 1, killer)
        assert not c[peer + "_rst"], "kill %d: RST from the other side too" % (k + 1)
        assert c["c2s_fin_time"] is None and c["s2c_fin_time"] is None, "kill %d: FIN" % (k + 1)
        t = c[mine + "_rst_time"]
        kill_times.append(t)
        nxt = dconns[k + 1]
        # the smaller side reconnects the path at once (first attempt after a
        # drop is immediate)
        syn = first_syn.get(id(nxt), nxt["start"])
        assert t <= syn < t + 0.5, "kill %d: reconnect %.3f s after the RST" % (k + 1, syn - t)
        assert killer == 1 or id(nxt) not in first_syn, "kill %d: SYN-ACK lost" % (k + 1)
    # Maps: every reconnect of the path brings exactly one map from each
    # side (the path coming up sets c_map_queued, which is per connection:
    # the first path of that peer to transmit sends it). Mostly it is the
    # first message on the new connection; 6.1 once sent guest 1's on
    # another, idle path. No other map in the run after the first kill.
    bounds = kill_times + [float("inf")]
    for k in range(KILLS):
        for sender, d in ((SMALL, "c2s"), (LARGE, "s2c")):
            maps = [(c["client_port"], m) for c in conns for m in c[d]
                    if m["kind"] == "cong" and bounds[k] < m["time"] < bounds[k + 1]]
            assert len(maps) == 1 and maps[0][1]["len"] == 8192, \
                "reconnect %d: maps from %s: %r" % (k + 1, sender, [p for p, _ in maps])
    # Sequence numbers: the stream is alone on its path, so message i has
    # seq i + 1 on every copy; never reset by a reconnect.
    copies, on_wire = {}, {}
    for k, c in enumerate(dconns):
        for m in c["c2s"]:
            if m["kind"] != "data":
                continue
            idx = stream_index(m)
            assert m["seq"] == idx + 1, "message %d carries seq %d" % (idx, m["seq"])
            copies.setdefault(m["seq"], []).append((k, m["flags"], m["payload_head"], m["len"]))
    n = max(copies)
    assert sorted(copies) == list(range(1, n + 1)), "sequence numbers missing"
    resent = {}
    for seq, cs in copies.items():
        k0, fl0, head, ln = cs[0]
        # the first copy carries 0x04 only when the message had been handed
        # to the killed socket but never reached the wire
        assert fl0 in (0x00, 0x04), "seq %d first sent with flags 0x%02x" % (seq, fl0)
        assert fl0 == 0 or k0 > 0, "seq %d: 0x04 on the first connection" % seq
        for k, fl, h, l in cs[1:]:
            assert fl == 0x04 and h == head and l == ln, "seq %d resent as 0x%02x" % (seq, fl)
            assert k > cs[0][0], "seq %d twice on one connection" % seq
        if len(cs) > 1:
            assert len(cs) == 2, "seq %d sent %d times" % (seq, len(cs))
    per_kill = []
    for k, c in enumerate(dconns[1:], 1):
        data = [m for m in c["c2s"] if m["kind"] == "data"]
        prev = [m["seq"] for m in dconns[k - 1]["c2s"] if m["kind"] == "data"]
        fl = [m["flags"] for m in data]
        n4 = next((i for i, f in enumerate(fl) if f != 0x04), len(fl))
        assert all(f == 0 for f in fl[n4:]), "connection %d: 0x04 after new messages" % k
        seqs = [m["seq"] for m in data]
        # the new connection goes on from the old one's numbering, resending
        # what was not acknowledged first: no gap, no reset
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), "gap on connection %d" % k
        assert 1 < seqs[0] <= max(prev) + 1, "reconnect %d restarts at seq %d after %d" % (
            k, seqs[0], max(prev))
        assert all(sq > max(prev) for sq in seqs[n4:]), \
            "reconnect %d: resent seqs not flagged 0x04" % k
        wire_dups = sum(1 for sq in seqs[:n4] if sq <= max(prev))
        per_kill.append((n4, wire_dups))
    # Every kill found unacknowledged messages (guest 2 held its ACKs), and
    # some of them had reached guest 2 and been delivered: their 0x04 copies
    # are duplicates on the wire, which the receiver must drop.
    for k, (n4, dups) in enumerate(per_kill):
        assert n4 > 0, "kill %d: nothing resent" % (k + 1)
        assert dups > 0, "kill %d: no resent copy of a delivered message" % (k + 1)
    if out:
        m = re.search(r"received (\d+) messages in order, no loss, digest ok; "
                      r"(\d+) duplicate deliveries", out[2])
        assert m and int(m.group(1)) + 1 == n, "guest 2 lost or reordered messages"
        # one path reset: both kernels put the new connection in the same
        # slot, so the 0x04 copies are checked against the right counter
        assert m.group(2) == "0", "%s delivered %s duplicates" % (kernel, m.group(2))
        for k, g in KILLER.items():
            km = re.search(r"kill %d by guest %d: ss -K .* destroyed [\d.]+:(\d+) -> [\d.]+:(\d+)"
                           % (k + 1, g), out[g])
            assert km, "kill %d missing" % (k + 1)
            port = int(km.group(1) if g == 1 else km.group(2))
            assert port == dconns[k]["client_port"], "kill %d hit port %d" % (k + 1, port)
