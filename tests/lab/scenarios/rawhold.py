# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""A raw TCP connection from a peer's address, made before the peer's RDS
connects and never sending a byte (docs/security.md).

Guest 1 (10.199.0.2, the smaller address, the side that connects) opens a
plain TCP connection from its own address to guest 2's RDS port 16385 and
keeps it silent for HOLD seconds; guest 2's kernel takes it for guest 1's
path 0. Then guest 1's RDS sends one message to guest 2 and waits for the
answer while the raw connection lives, and for AFTER seconds after it is
closed. Both kernels let the raw connection hold the path for as long as
it lives. 7.2 stashes guest 1's own connection behind it and delivers the
message the moment the raw one goes. 6.1 takes guest 1's connection,
acknowledges its bytes in TCP, then closes it: the message is lost, and
guest 1 reconnects thousands of times a second while the raw one lives.
"""
import lab

GUESTS = 2
RXE = False
TIMEOUT = 300
HOLD = 20
AFTER = 30

COMMON = (r'''
import os, socket, sys, time
''' + lab.GUEST_RDS_TCP + lab.guest_flags(120, 0.05))

ROLE2 = r'''
python3 - <<'PY'
%s
s = rds_socket(4000, timeout=%d)
flag("ready2")
try:
    data, addr = s.recvfrom(100)
except socket.timeout:
    print("guest 2 received nothing", flush=True)
else:
    print("guest 2 received", data, "from", addr, flush=True)
    s.sendto(b"pong", addr)
    time.sleep(3)
PY
''' % (COMMON, HOLD + AFTER + 10)

ROLE1 = r'''
python3 - <<'PY'
%s
wait_flag("ready2")
raw = socket.create_connection(("10.199.0.3", 16385), source_address=("10.199.0.2", 0))
time.sleep(1)
s = rds_socket(5000, timeout=%d)
s.sendto(b"hello", ("10.199.0.3", 4000))
try:
    s.recvfrom(100)
    print("answer while the raw connection lived", flush=True)
except socket.timeout:
    print("no answer while the raw connection lived", flush=True)
raw.close()
t = time.time()
s.settimeout(%d)
try:
    s.recvfrom(100)
    print("answer %%.1f s after the raw connection closed" %% (time.time() - t), flush=True)
except socket.timeout:
    print("no answer after the raw connection closed", flush=True)
PY
''' % (COMMON, HOLD, AFTER)


def check(cap, out, kernel):
    conns = cap["tcp"]
    assert conns and conns[0]["client"] == "10.199.0.2", "no connection from guest 1"
    if out:
        assert "no answer while the raw connection lived" in out[1], out[1]
        if kernel.startswith("6."):
            assert "no answer after the raw connection closed" in out[1], out[1]
            assert "guest 2 received nothing" in out[2], out[2]
        else:
            assert "answer 0." in out[1] or "answer 1." in out[1], out[1]
            assert "guest 2 received b'hello'" in out[2], out[2]
    # The raw connection is the first and carries nothing from guest 1.
    assert not conns[0]["c2s"], "the raw connection sent RDS bytes"
    hello = [c for c in conns[1:] if any(m["kind"] == "data" for m in c["c2s"])]
    assert hello, "guest 1's message never went on the wire"
    if kernel.startswith("6."):
        # Guest 1's connection is taken, acknowledged and closed; it then
        # reconnects without pause while the raw connection lives.
        assert len(conns) > 100, "%d connections: no reconnect storm" % len(conns)
