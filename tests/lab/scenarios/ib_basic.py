# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""RDS over InfiniBand (Soft-RoCE) between two kernels.

Both guests bring up rxe0 on eth0 and bind AF_RDS sockets pinned to the
IB transport (SO_RDS_TRANSPORT = RDS_TRANS_IB). Guest 2 (10.199.0.3, port
5000) speaks first, so it is the rdma_cm active side (CM REQ from guest 2).

  1. guest 2 pings guest 1 three times (zero-length to port 0);
  2. guest 2 sends one message of each size in SIZES to guest 1:4000,
     guest 1 checks each payload and answers with a digest;
  3. the same the other way (guest 1 -> guest 2:5000), then guest 1 pings
     guest 2 twice;
  4. guest 2 sends BURST small messages to guest 1:4000 (ACK_REQUIRED
     cadence), guest 1 answers "burst ok";
  5. congestion: guest 1's port 4001 has a tiny SO_RCVBUF and is not read;
     guest 2 sends 1000-byte messages to it without blocking until it gets
     ENOBUFS (the map from guest 1 marked 4001), tells guest 1, which
     drains them (the next map clears 4001); guest 2 retries until a send
     to 4001 passes again;
  6. on 6.1 guest 2 unloads rds_rdma, so the capture ends with the
     disconnect (DREQ/DREP) and guest 1's rejected reconnect attempts. On
     7.2.13 that unload leaks rds_ib_incoming objects and panics the guest
     on the next CM event (docs/kernel-behaviour.md, part 2), so 7.2 keeps the
     module loaded.
"""
import lab

GUESTS = 2
RXE = True
TIMEOUT = 420
SIZES = [0, 1, 4095, 4096, 4097, 65536, 1 << 20]
BURST = 30
CONG_PORT = 4001
CONG_MSG = 1000
A, B = "10.199.0.2", "10.199.0.3"

COMMON = (r'''
import errno, hashlib, os, socket, struct, subprocess, sys, time
''' + lab.GUEST_RXE + lab.GUEST_RDS_IB + r'''
SIZES = %r
BURST = %d
CONG_PORT = %d
CONG_MSG = %d
A, B = %r, %r
D = os.environ["LAB_DIR"]
ME = os.environ["LAB_IP"]

def barrier(name):
    open(os.path.join(D, name + "." + os.environ["LAB_ID"]), "w").close()
    other = "2" if os.environ["LAB_ID"] == "1" else "1"
    for _ in range(600):
        if os.path.exists(os.path.join(D, name + "." + other)):
            return
        time.sleep(0.2)
    raise SystemExit("barrier %%s: peer never arrived" %% name)

def payload(tag, i, n):
    seed = hashlib.sha256(b"%%s %%d" %% (tag, i)).digest()
    return (seed * (n // 32 + 1))[:n]

def ping(s, peer, k):
    for i in range(k):
        t0 = time.time()
        s.sendto(b"", (peer, 0))
        data, addr = s.recvfrom(100)
        assert data == b"" and addr == (peer, 0), (data, addr)
        print("pong from", addr, "%%.1f ms" %% ((time.time() - t0) * 1000))

def recv_sizes(s, tag, peer, pport):
    h = hashlib.sha256()
    for i, n in enumerate(SIZES):
        data, addr = s.recvfrom(2 << 20)
        assert addr == (peer, pport), addr
        assert data == payload(tag, i, n), "message %%d: %%d bytes, want %%d" %% (i, len(data), n)
        h.update(data)
        print("received", tag.decode(), i, len(data))
    s.sendto(h.hexdigest().encode(), addr)

def send_sizes(s, tag, peer, pport):
    h = hashlib.sha256()
    for i, n in enumerate(SIZES):
        s.sendto(payload(tag, i, n), (peer, pport))
        h.update(payload(tag, i, n))
    data, addr = s.recvfrom(100)
    assert data == h.hexdigest().encode(), "peer digest differs"
    print("digest ok", tag.decode())
''') % (SIZES, BURST, CONG_PORT, CONG_MSG, A, B)

ROLE1 = r'''
python3 - <<'PY'
%s
wait_rxe()
s = rds_socket(4000)
c = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
c.setsockopt(SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_IB)
c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1)
c.bind((ME, CONG_PORT))
c.settimeout(60)
print("cong socket rcvbuf", c.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF))
barrier("ready")
recv_sizes(s, b"b2a", B, 5000)
send_sizes(s, b"a2b", B, 5000)
ping(s, B, 2)
s.sendto(b"burst please", (B, 5000))
for i in range(BURST):
    data, addr = s.recvfrom(1000)
    assert addr == (B, 5000) and data == payload(b"burst", i, 100), (i, addr)
s.sendto(b"burst ok", (B, 5000))
print("burst ok")
# congestion: guest 2 says how many it queued before ENOBUFS
data, addr = s.recvfrom(100)
n = int(data.split()[1])
print("draining", n)
for i in range(n):
    d, a = c.recvfrom(2000)
    assert a == (B, 5000) and d == payload(b"cong", i, CONG_MSG), (i, a, len(d))
d, a = c.recvfrom(2000)
assert d == b"after", d
print("congestion drained", n)
s.sendto(b"drained", (B, 5000))
s.close(); c.close()
barrier("closed")
# guest 2 unloads rds_rdma; watch what this side does about it
barrier("unloaded")
time.sleep(8)
print("done")
PY
''' % COMMON

ROLE2 = r'''
python3 - <<'PY'
%s
wait_rxe()
s = rds_socket(5000)
barrier("ready")
ping(s, A, 3)
send_sizes(s, b"b2a", A, 4000)
recv_sizes(s, b"a2b", A, 4000)
data, addr = s.recvfrom(100)
assert data == b"burst please", data
for i in range(BURST):
    s.sendto(payload(b"burst", i, 100), (A, 4000))
data, addr = s.recvfrom(100)
assert data == b"burst ok", data
print("burst ok")
n, t0 = 0, time.time()
while True:
    try:
        s.sendto(payload(b"cong", n, CONG_MSG), socket.MSG_DONTWAIT, (A, CONG_PORT))
        n += 1
    except OSError as e:
        assert e.errno == errno.ENOBUFS, e
        break
    assert n < 3000 and time.time() - t0 < 60, "never congested (%%d sent)" %% n
    time.sleep(0.05)
print("ENOBUFS after", n, "messages")
s.sendto(b"queued %%d" %% n, (A, 4000))
t0 = time.time()
while True:
    try:
        s.sendto(b"after", socket.MSG_DONTWAIT, (A, CONG_PORT))
        break
    except OSError as e:
        assert e.errno == errno.ENOBUFS, e
        assert time.time() - t0 < 60, "port stayed congested"
        time.sleep(0.1)
print("uncongested after %%.1f s" %% (time.time() - t0))
data, addr = s.recvfrom(100)
assert data == b"drained", data
time.sleep(1)
s.close()
barrier("closed")
if os.environ["LAB_KERNEL"].startswith("6.1"):
    p = subprocess.run(["timeout", "30", "rmmod", "rds_rdma"], capture_output=True, text=True)
    print("rmmod rds_rdma:", p.returncode, p.stderr.strip())
else:
    print("rds_rdma stays loaded (unloading it panics 7.2, see docs)")
barrier("unloaded")
time.sleep(8)
print("done")
PY
''' % COMMON


def check(cap, out, kernel):
    from checks import ib_group_messages, ib_frame_packets_ok
    frag = 4096
    if out:
        assert "digest ok b2a" in out[2] and "digest ok a2b" in out[1], "payload digests"
        assert "burst ok" in out[1] and "congestion drained" in out[1], out[1]
    # -- capture completeness ------------------------------------------------
    # The lab fails a run whose tcpdump dropped packets; a PSN that jumps
    # forward would still mean the capture is not the wire, so nothing below
    # may be judged on it.
    gaps = cap["ib_psn_gaps"]
    assert not gaps, "the capture lost RoCE packets: %r" % gaps[:3]
    frames = cap["ib_frames"]
    assert frames, "no RDS/IB frame in the capture"

    # -- CM: one REQ/REP/RTU with RDS private data ------------------------------
    cm = cap["ib_cm"]
    names = [m["msg"] for m in cm]
    assert names[:3] == ["REQ", "REP", "RTU"], names[:6]
    req, rep, rtu = cm[:3]
    assert (req["src"], req["dst"]) == (B, A) and (rep["src"], rep["dst"]) == (A, B) \
        and rtu["src"] == B, "guest 2 (first to send) must be the active side"
    assert req["service_id"] == "0x00000000010648ca", \
        "REQ service ID %s, want RDMA_PS_TCP port 18634" % req["service_id"]
    assert req["cma_ip_version"] == 4, req
    for m, (s, d) in ((req, (B, A)), (rep, (A, B))):
        pd = m["rds_pd"]
        assert (pd["saddr"], pd["daddr"]) == (s, d), "%s addresses %r" % (m["msg"], pd)
        assert (pd["major"], pd["minor"], pd["minor_mask"]) == (3, 1, 0x0003), \
            "%s version %r" % (m["msg"], pd)
        assert pd["tos"] == 0 and pd["credit"] == 0 and pd["ack_seq"] == 0, \
            "%s tos/credit/ack_seq %r" % (m["msg"], pd)
    # All RDS traffic runs on the one QP pair set up by that exchange.
    assert {f["qpn"] for f in frames if f["dst"] == A} == {req["local_qpn"]} and \
        {f["qpn"] for f in frames if f["dst"] == B} == {rep["local_qpn"]}, "QPs"
    rest = cm[3:]
    if kernel == "6.1":
        # Unloading rds_rdma on guest 2 disconnects: DREQ from it, DREP
        # back, after the last RDS frame; guest 1 then retries the
        # connection as the active side and is rejected (no listener:
        # reason 8, invalid service ID) again and again.
        assert [m["msg"] for m in rest[:2]] == ["DREQ", "DREP"], names
        assert rest[0]["src"] == B and rest[1]["src"] == A, rest[:2]
        assert rest[0]["time"] > frames[-1]["time"], "RDS frames after DREQ"
        retries = rest[2:]
        if retries and retries[-1]["msg"] == "REQ":
            retries = retries[:-1]      # the capture ended before its REJ
        assert len(retries) >= 4 and len(retries) % 2 == 0, [m["msg"] for m in retries]
        for q, r in zip(retries[::2], retries[1::2]):
            assert q["msg"] == "REQ" and (q["src"], q["dst"]) == (A, B), q
            assert q["rds_pd"]["saddr"] == A and q["rds_pd"]["daddr"] == B, q
            assert (q["rds_pd"]["major"], q["rds_pd"]["minor"]) == (3, 1), q
            assert r["msg"] == "REJ" and r["src"] == B and r["reason"] == 8, r
        qpns = [q["local_qpn"] for q in retries[::2]]
        assert len(set(qpns)) == len(qpns), "a retry reused a QP"
    else:
        # rds_rdma stays loaded on 7.2 (unloading it panics the guest):
        # one connection, no disconnect, no reject.
        assert rest == [], [m["msg"] for m in rest]

    # -- every frame -----------------------------------------------------------
    for f in frames:
        assert f["csum_ok"] and f["csum"] != 0, "bad/zero checksum in %r" % f
        assert f["credit"] == 0, "h_credit %d: flow control is off" % f["credit"]
        assert f["pad"] == "00000000", f
        assert f["exthdr"] == "0" * 32, "extension header on IB: %s" % f["exthdr"]
        assert f["flags"] in (0x00, 0x01, 0x02), "flags 0x%02x" % f["flags"]
        assert set(f["opcodes"]) <= {0, 1, 2, 4}, "opcodes %s" % f["opcodes"]

    msgs = ib_group_messages(frames)
    for d_src, d_dst in ((A, B), (B, A)):
        mine = [m for m in msgs if m["src"] == d_src]
        peer = [m for m in msgs if m["src"] == d_dst]
        seqd = [m for m in mine if m["kind"] not in ("ack", "cong")]
        # -- sequence numbers: 1, 2, 3, ... per direction
        assert [m["seq"] for m in seqd] == list(range(1, len(seqd) + 1)), \
            "%s seqs %s" % (d_src, [m["seq"] for m in seqd])
        # -- fragments: max(1, ceil(L/4096)) frames, full header in each,
        #    all but the last exactly 4096
        for m in mine:
            fs = m["frames"]
            want = max(1, -(-m["len"] // frag))
            complete = len(fs) == want and all(f["psn_contiguous"] for f in fs) and all(
                (b["psn"] - a["psn"]) & 0xFFFFFF == a["packets"] for a, b in zip(fs, fs[1:]))
            assert complete, "%s seq %d len %d in %d frames, want %d" % (
                d_src, m["seq"], m["len"], len(fs), want)
            for i, f in enumerate(fs):
                for k in ("seq", "ack", "len", "sport", "dport", "flags"):
                    assert f[k] == m[k], "fragment header %s differs in %r" % (k, m)
                final = i == len(fs) - 1
                if final:
                    assert f["frag_len"] == m["len"] - frag * (want - 1), m
                else:
                    assert f["frag_len"] == frag, "non-final fragment of %d" % f["frag_len"]
                err = ib_frame_packets_ok(f, final)
                assert err is None, "%s seq %d: %s" % (d_src, m["seq"], err)
        # -- congestion maps: 2 frames of 4096, flags exactly 0x01, seq 0,
        #    ports 0; the first message each side sends (after ACK-only
        #    frames) is its empty map
        cong = [m for m in mine if m["kind"] == "cong"]
        for m in cong:
            assert m["len"] == 8192 and len(m["frames"]) == 2 and m["flags"] == 0x01, m
            assert m["seq"] == 0 and m["sport"] == 0 and m["dport"] == 0, m
            assert [f["frag_len"] for f in m["frames"]] == [frag, frag], m
        first = [m for m in mine if m["kind"] != "ack"][0]
        assert first["kind"] == "cong" and first["congested"] == [], first
        # -- ACK-only frames: ports 0/0, no payload, seq 0, flags 0, one
        #    SEND ONLY; h_ack = a sequence number received from the peer,
        #    sent only in answer to an ACK_REQUIRED message not yet acked
        seen, acked = [], 0
        events = sorted([(f["time"], 0, f) for m in peer for f in m["frames"][-1:]] +
                        [(f["time"], 1, f) for m in mine for f in m["frames"]],
                        key=lambda e: (e[0], e[1]))
        peer_by_seq = {m["seq"]: m for m in peer if m["kind"] not in ("ack", "cong")}
        for _, own, f in events:
            if not own:
                if f["kind"] not in ("ack", "cong"):
                    seen.append(f["seq"])
                continue
            assert f["ack"] == 0 or f["ack"] in seen, \
                "%s h_ack %d not a received seq (%s)" % (d_src, f["ack"], seen[-3:])
            if f["kind"] == "ack":
                assert f["seq"] == 0 and f["len"] == 0 and f["frag_len"] == 0 and \
                    f["flags"] == 0 and f["opcodes"] == [4] and f["se"] == [1], f
                assert f["ack"] > 0 and any(
                    peer_by_seq[s]["flags"] & 0x02 for s in range(acked + 1, f["ack"] + 1)
                    if s in peer_by_seq), \
                    "%s ACK-only %d answers no ACK_REQUIRED after %d" % (d_src, f["ack"], acked)
            acked = max(acked, f["ack"])
        # piggy-backed acks: data headers carry h_ack
        assert any(m["ack"] for m in seqd), "%s never piggy-backs h_ack" % d_src
        # every ACK_REQUIRED message is acknowledged (ACK-only or piggy-back)
        for s, m in peer_by_seq.items():
            if m["flags"] & 0x02:
                assert acked >= s, "%s never acked ACK_REQUIRED seq %d" % (d_src, s)
        # -- ACK_REQUIRED cadence: the first message of the connection, then
        #    every 9th (max_unacked_packets 8), counting pings and pongs, not
        #    maps or ACK-only frames
        flagged = [m["seq"] for m in seqd if m["flags"] & 0x02]
        assert flagged == [s for s in range(1, len(seqd) + 1) if s % 9 == 1], \
            "%s ACK_REQUIRED on %s" % (d_src, flagged)

    # -- what went where ---------------------------------------------------------
    def of(src, kind, **kw):
        return [m for m in msgs if m["src"] == src and m["kind"] == kind and
                all(m[k] == v for k, v in kw.items())]
    assert len(of(B, "ping", sport=5000, dport=0, len=0)) == 3 + 0, "B's pings"
    assert len(of(A, "pong", sport=0, dport=5000, len=0)) == 3, "A's pongs"
    assert len(of(A, "ping", sport=4000, dport=0, len=0)) == 2, "A's pings"
    assert len(of(B, "pong", sport=0, dport=4000, len=0)) == 2, "B's pongs"
    b2a = [m["len"] for m in of(B, "data", dport=4000)]
    assert b2a[:len(SIZES) + 1 + BURST] == SIZES + [64] + [100] * BURST, b2a
    a2b = [m["len"] for m in of(A, "data", dport=5000)]
    assert a2b == [64] + SIZES + [len("burst please"), len("burst ok"), len("drained")], a2b
    # -- congestion --------------------------------------------------------------
    to_cong = of(B, "data", dport=CONG_PORT)
    n = len(to_cong) - 1
    assert [m["len"] for m in to_cong] == [CONG_MSG] * n + [len("after")] and n >= 1, \
        [m["len"] for m in to_cong]
    if out:
        assert "ENOBUFS after %d messages" % n in out[2], (n, out[2])
    amaps = [m for m in of(A, "cong")]
    assert [m["congested"] for m in amaps] == [[], [CONG_PORT], []], \
        [m["congested"] for m in amaps]
    assert [m["congested"] for m in of(B, "cong")] == [[]], "guest 2's maps"
    # The map marking 4001 follows the messages that filled it; the one
    # clearing it precedes the send that passed again.
    t_full = to_cong[n - 1]["frames"][-1]["time"]
    assert amaps[1]["frames"][0]["time"] > t_full, "4001 marked before it filled"
    assert amaps[2]["frames"][-1]["time"] < to_cong[n]["frames"][0]["time"], \
        "a send to 4001 passed before the map cleared it"
