# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""RDS/TCP reconnect: all RDS/TCP paths of a guest are dropped mid-stream.

Guest 1 (10.199.0.2, the smaller address, so it is the TCP client and the
side that reconnects) streams TOTAL numbered 4 KiB messages from port
SPORT (which hashes to path 2) to guest 2 port 5000, in phases: STEADY
paced messages, then a BURST of messages queued at once, during which the
guest's RDS/TCP connections are dropped. The drop is deliberately the
kernel selftest's: a write to /proc/sys/net/rds/tcp/rds_tcp_sndbuf, which
runs rds_tcp_sysctl_reset() -> rds_conn_path_drop() on every path of that
guest (TCP FIN on the wire), so all 8 paths go down and reconnect at once:
that is what exposes 6.1's duplicate deliveries (see check()). Killing one
TCP connection with `ss -K` (the guests load inet_diag/tcp_diag) is
tcp_reset.py.
Kills 1 and 3 are done by guest 1 right after it queued a burst, kills 2
and 4 by guest 2 when the first message of a burst arrives; during each
burst guest 2 transmits nothing (a zero-length pfifo on eth0, removed
right after the kill), so unacknowledged messages are always on the
retransmit queue when the paths drop. Guest 2 checks every message by
index and a running SHA-256 over first deliveries in order, and counts
messages delivered twice (6.1, see check()).
"""
import lab

GUESTS = 2
RXE = False
TIMEOUT = 240
SIZE = 4096
STEADY = 24
BURST = 128
KILLS = 4
TOTAL = (KILLS + 1) * STEADY + KILLS * BURST
SPORT, DPORT = 4003, 5000   # jhash_1word(4003, 0) & 7 == 2; see check()
KILLER = {0: 1, 1: 2, 2: 1, 3: 2}   # kill index -> guest that kills

PROG = (r'''
python3 - <<'PY'
import hashlib, os, re, socket, struct, subprocess, sys, time
''' + lab.GUEST_RDS_TCP + lab.guest_flags(60, 0.05) + r'''
SIZE, STEADY, BURST, KILLS, TOTAL, SPORT, DPORT = %d, %d, %d, %d, %d, %d, %d
KILLER = %r
GUEST = int(os.environ["LAB_ID"])

def payload(i):
    seed = hashlib.sha256(b"reconnect %%d" %% i).digest()
    return struct.pack(">I", i) + (seed * (SIZE // 32 + 1))[:SIZE - 4]

def burst_start(k):
    return (k + 1) * STEADY + k * BURST

SYSCTL = "/proc/sys/net/rds/tcp/rds_tcp_sndbuf"

def kill(k):
    """Drop every RDS/TCP connection of this guest: any write to the
    rds_tcp_sndbuf sysctl runs rds_tcp_sysctl_reset() -> rds_conn_path_drop()
    on every path, even when the value is unchanged. 0 (the default,
    autotuning) is refused (minimum SOCK_MIN_SNDBUF/2), so new connections
    get a fixed 2 MiB send buffer. Done in-process, so it lands while the
    burst is still unacknowledged."""
    with open(SYSCTL, "w") as f:
        f.write("2097152\n")
    print("kill %%d by guest %%d: wrote 2097152 to %%s" %% (k + 1, GUEST, SYSCTL))

def holder():
    """Guest 2, for each burst: stop transmitting (a pfifo of length 0 drops
    every outgoing packet, TCP ACKs included) from before the burst until
    the kill, so the kill always finds the burst unacknowledged. Under TCG
    an unheld burst is often acked before the kill lands."""
    for k in range(KILLS):
        wait_flag("holdreq%%d" %% k, 180)
        subprocess.run(["tc", "qdisc", "add", "dev", "eth0", "root", "pfifo", "limit", "0"],
                       check=True)
        flag("held%%d" %% k)
        wait_flag("killed%%d" %% k, 180)
        subprocess.run(["tc", "qdisc", "del", "dev", "eth0", "root"], check=True)
        print("burst %%d held until the kill" %% (k + 1))

if GUEST == 1:
    dummy = rds_socket(3999, force=True)     # takes the random hash seed
    dummy.sendto(b"", ("10.199.0.3", 0))
    dummy.recvfrom(10)
    s = rds_socket(SPORT, timeout=None, force=True)
    wait_flag("ready2")
    time.sleep(2)                # all paths up
    i = 0
    for k in range(KILLS + 1):
        for j in range(STEADY):
            s.sendto(payload(i), ("10.199.0.3", DPORT)); i += 1
            time.sleep(0.02)
        if k == KILLS:
            break
        flag("holdreq%%d" %% k)
        wait_flag("held%%d" %% k)
        for _ in range(BURST):
            s.sendto(payload(i), ("10.199.0.3", DPORT)); i += 1
        if KILLER[k] == 1:
            kill(k)
            flag("killed%%d" %% k)
        time.sleep(0.5)
    print("sent", i, "messages")
    wait_flag("done2", 120)
else:
    s = rds_socket(DPORT, force=True)
    import threading
    hold = threading.Thread(target=holder, daemon=True)
    hold.start()
    flag("ready2")
    fire_at = {burst_start(k) + 1: k for k in range(KILLS) if KILLER[k] == 2}
    h, expect, dups = hashlib.sha256(), 0, []
    def take(data, addr):
        global expect
        assert addr == ("10.199.0.2", SPORT), addr
        idx = struct.unpack(">I", data[:4])[0]
        assert idx < TOTAL and data == payload(idx), "corrupt message index %%d" %% idx
        if idx < expect:
            dups.append(idx)         # delivered a second time
            return
        assert idx == expect, "expected message %%d, got %%d: lost or reordered" %% (expect, idx)
        h.update(data)
        expect += 1
    while expect < TOTAL:
        if expect in fire_at:
            k = fire_at.pop(expect)
            kill(k)
            flag("killed%%d" %% k)
        take(*s.recvfrom(SIZE + 1))
    s.settimeout(3)
    try:
        while True:
            take(*s.recvfrom(SIZE + 1))
    except socket.timeout:
        pass
    want = hashlib.sha256(b"".join(payload(i) for i in range(TOTAL))).hexdigest()
    assert h.hexdigest() == want
    print("received %%d messages in order, no loss, digest ok; %%d duplicate deliveries%%s"
          %% (TOTAL, len(dups), (": indexes %%d..%%d" %% (min(dups), max(dups))) if dups else ""))
    flag("done2")
time.sleep(2)
PY
''') % (SIZE, STEADY, BURST, KILLS, TOTAL, SPORT, DPORT, KILLER)


def roles(kernel):
    return {1: PROG, 2: PROG}


def check(cap, out, kernel):
    import re
    from checks import check_tcp_fields, check_seq_per_path, SMALL
    if out:
        m = re.search(r"received (\d+) messages in order, no loss, digest ok; "
                      r"(\d+) duplicate deliveries", out[2])
        assert m and int(m.group(1)) == TOTAL, "guest 2 lost or reordered messages"
        if kernel != "6.1":
            # 7.2 maps a reconnected path by source port % 8 (SPORT_IDX), so
            # duplicate suppression holds: exactly once.
            assert m.group(2) == "0", "7.2 delivered %s duplicates" % m.group(2)
        # 6.1 maps the 8 reconnected paths to slots in accept order; when the
        # stream's path lands in another slot, the retransmitted copies are
        # checked against that slot's rx sequence and may be delivered
        # twice (seen: 26 duplicates). Recorded, not asserted either way.
        for k, g in KILLER.items():
            assert "kill %d by guest %d" % (k + 1, g) in out[g], "kill %d missing" % (k + 1)
    conns = cap["tcp"]
    for c in conns:
        check_tcp_fields(c)
        check_seq_per_path(c, strict=False)
    # The connections that carried the stream, in order.
    dconns = [c for c in conns if c["client"] == SMALL and
              any(m["kind"] == "data" and m["sport"] == SPORT for m in c["c2s"])]
    assert len(dconns) == KILLS + 1, "%d connections carried the stream" % len(dconns)
    starts = [c["start"] for c in dconns] + [float("inf")]
    for k, c in enumerate(dconns):
        assert c["established"], "stream connection %d not established" % k
        if k < KILLS:
            # the sysctl reset shuts the TCP socket down (FIN from the side
            # that dropped; an RST only if unread data was left)
            ends = [c[d + t] for d in ("c2s", "s2c") for t in ("_fin_time", "_rst_time")
                    if c[d + t] is not None]
            assert ends, "kill %d: the stream connection did not close" % (k + 1)
            # (the new SYN may precede the old connection's FIN on the wire)
        if k > 0:
            # every side resends its whole map on the new set of paths
            new = [n for n in conns if starts[k] - 0.5 <= n["start"] < starts[k + 1]]
            for d in ("c2s", "s2c"):
                assert any(m["kind"] == "cong" and m["len"] == 8192 for n in new
                           for m in n[d]), "reconnect %d: no map %s" % (k, d)
    # Sequence numbers: one per message of the stream on this path, never
    # reset: seq == index + 1 on every copy, the same bytes every time.
    copies = {}
    for k, c in enumerate(dconns):
        for m in c["c2s"]:
            if m["kind"] != "data":
                continue
            idx = int(m["payload_head"][:8], 16)
            assert m["seq"] == idx + 1, "message %d carries seq %d" % (idx, m["seq"])
            copies.setdefault(m["seq"], []).append((k, m["flags"]))
    assert sorted(copies) == list(range(1, TOTAL + 1)), "sequence numbers missing"
    retrans = 0
    for seq, cs in copies.items():
        # A first copy may already carry 0x04: the message had been handed to
        # the old TCP socket (so it sat on the retransmit queue) but never
        # reached the wire before the connection went down.
        assert cs[0][1] in (0x00, 0x04), "seq %d first sent with flags 0x%02x" % (seq, cs[0][1])
        for k, fl in cs[1:]:
            assert fl == 0x04, "resent seq %d with flags 0x%02x" % (seq, fl)
            retrans += 1
    for k, c in enumerate(dconns):
        # each new connection: the retransmit queue first (0x04), then new
        # messages (0x00); the first connection has no 0x04 at all
        fl = [m["flags"] for m in c["c2s"] if m["kind"] == "data"]
        n4 = len(fl) - len(list(__import__("itertools").dropwhile(lambda f: f == 0x04, fl)))
        assert all(f == 0 for f in fl[n4:]), "connection %d: 0x04 after new messages" % k
        assert k > 0 or n4 == 0, "retransmission on the first connection"
    assert retrans, "no message was retransmitted"
    for k, c in enumerate(dconns[1:], 1):
        seqs = [m["seq"] for m in c["c2s"] if m["kind"] == "data"]
        prev = [m["seq"] for m in dconns[k - 1]["c2s"] if m["kind"] == "data"]
        assert seqs[0] > 1 and seqs[0] <= max(prev) + 1, \
            "reconnect %d restarts at seq %d after %d" % (k, seqs[0], max(prev))
