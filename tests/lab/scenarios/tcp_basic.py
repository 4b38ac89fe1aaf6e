# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""RDS/TCP between two kernels: connection start, pings, data of every size.

Guest 2 (10.199.0.3, the larger address) speaks first, so the capture shows
the larger side's connection being refused as a kick and the smaller side
connecting back. Guest 2 then pings guest 1 three times and sends one
message of each size in SIZES to guest 1's port 4000; guest 1 checks every
payload and answers with a digest of all it received.
"""
import lab

GUESTS = 2
RXE = False
TIMEOUT = 240
SIZES = [0, 1, 4095, 4096, 4097, 65536, 1 << 20]

# The guests boot at different speeds: a message to a port nobody has
# bound yet is dropped by the kernel (recv_drop_no_sock), hence the flags.
# 1 MiB messages need a send budget above the default (about 100 KiB),
# hence rds_socket(force=True).
COMMON = (r'''
import hashlib, os, socket, struct, sys, time
''' + lab.GUEST_RDS_TCP + lab.guest_flags(120, 0.05) + r'''
SIZES = %r

def payload(i, n):
    seed = hashlib.sha256(b"msg %%d" %% i).digest()
    return (seed * (n // 32 + 1))[:n]
''') % (SIZES,)

ROLE1 = r'''
python3 - <<'PY'
%s
s = rds_socket(4000, force=True)
flag("ready1")
h = hashlib.sha256()
for i, n in enumerate(SIZES):
    data, addr = s.recvfrom(2 << 20)
    assert addr == ("10.199.0.3", 5000), addr
    assert data == payload(i, n), "message %%d: %%d bytes, want %%d" %% (i, len(data), n)
    h.update(data)
    print("received", i, len(data))
s.sendto(h.hexdigest().encode(), addr)
time.sleep(2)
PY
''' % COMMON

ROLE2 = r'''
python3 - <<'PY'
%s
s = rds_socket(5000, force=True)
wait_flag("ready1")
for i in range(3):
    t0 = time.time()
    s.sendto(b"", ("10.199.0.2", 0))
    data, addr = s.recvfrom(100)
    assert data == b"" and addr == ("10.199.0.2", 0), (data, addr)
    print("pong from", addr, "%%.1f ms" %% ((time.time() - t0) * 1000))
h = hashlib.sha256()
for i, n in enumerate(SIZES):
    s.sendto(payload(i, n), ("10.199.0.2", 4000))
    h.update(payload(i, n))
data, addr = s.recvfrom(100)
assert data == h.hexdigest().encode(), "peer digest differs"
print("digest ok")
time.sleep(2)
PY
''' % COMMON


def check(cap, out, kernel):
    from checks import (check_tcp_fields, check_probe, main_path, msgs_of,
                        check_seq_per_path, SMALL, LARGE)
    if out:
        assert "digest ok" in out[2], "guest 2 did not get the matching digest"
    conns = cap["tcp"]
    assert conns, "no RDS/TCP connection in the capture"
    # The larger address spoke first: its own connection carries no RDS
    # message from it and is dropped; the smaller side connects back.
    first = conns[0]
    assert first["client"] == LARGE, "first connection should come from the larger address"
    assert not [m for m in first["c2s"] if m["kind"] != "cong"], \
        "the larger side's kick connection carried messages"
    assert any(c["client"] == SMALL for c in conns), "the smaller side never connected"
    for c in conns:
        check_tcp_fields(c)
        check_seq_per_path(c)
    path0 = main_path(conns, SMALL)
    # Every direction of the first real path opens with a whole, empty map.
    for d in ("c2s", "s2c"):
        m = path0[d][0]
        assert m["kind"] == "cong" and m["len"] == 8192 and m["seq"] == 0, (d, m)
        assert m["congested"] == [], "a fresh map should have no congested port"
    check_probe(conns, kernel)
    # Three pings from 5000 and three pongs back to 5000.
    pings = msgs_of(conns, LARGE, "ping")
    pongs = msgs_of(conns, SMALL, "pong")
    assert len(pings) == 3 and all(p["sport"] == 5000 and p["len"] == 0 for p in pings), pings
    assert len(pongs) == 3 and all(p["dport"] == 5000 and p["len"] == 0 for p in pongs), pongs
    data = [m for m in msgs_of(conns, LARGE, "data") if m["dport"] == 4000]
    assert [m["len"] for m in data] == SIZES, [m["len"] for m in data]
