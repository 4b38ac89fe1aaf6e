#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""rdstop --kernel-info against a real kernel (issue 19), in the lab.

    rdstop_kernel.py --kernel 6.1|7.2 --rdstop PATH [--out DIR]

Two guests with RDS/TCP, each running `rdstop --kernel-info -b --json -d 1` in
the background for the whole scenario: guest 2 (10.199.0.3) pings guest 1
(10.199.0.2) and sends it messages from port 5000 to port 4000; then
sends 4 KiB messages to guest 1's port 4001 (SO_RCVBUF 64 KiB, not read)
until sendto fails with ENOBUFS (the map said congested); guest 1 waits,
drains 4001, then drops every RDS/TCP path (rds_tcp_sndbuf sysctl, as
tcp_reconnect does) and guest 2 sends more messages over the reconnected
paths. The JSON is compared with that: guest 1's recv_delivered and
cong_update_queued rose, port 4001 shows congested in the local node's map,
on its socket and on the connection's local side with exactly the messages
the sender got through queued, then free again, and the time line has
both changes of 4001 as the local node's; conn_reset rose and the
paths came back on other TCP ports, connected; guest 2's send_queued and
cong_update_received rose. Both rdstops had their RDS_CONG_MONITOR socket
open in every snapshot (cong_monitor, cong_news) and, never having sent,
were told nothing by it (no "groups" event), while guest 2's sending
socket, monitoring too, gets the RDS_CMSG_CONG_UPDATE of group 33 (4001 %
64) once guest 1 drained: what the kernel tells a monitor and what it
does not. Then each guest runs
`rdstop --kernel-info -b -n 2 -d 1` while its socket and the connection are up.
Asserted for each guest: rdstop exits 0 with two snapshots; both list the
connection (addresses, tcp, connected) with a path row on port 16385 and
the guest's socket; the counters the traffic must have moved are non-zero;
the second snapshot has rates; and the core counter list is the one of the
kernel's generation (7.x ends in mprds_catchup_tx0_retries, 6.x does not).
Each guest waits for its background rdstop's first snapshot before any
traffic, and at each check point for a snapshot taken after it that shows
the state checked there (bounded, not asserting: the host judges), never
for a fixed time: the counters' rises are facts of the kernel only
between a snapshot before the first message and one after the last
(docs/kernel-behaviour.md, "rdstop against the kernels").
Outputs are kept in the run directory (build/lab/rdstop_kernel-<kernel>/).
Exit: 0 pass, 1 fail, 77 skipped (not root, outside CI).
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lab  # noqa: E402

G1, G2 = "10.199.0.2", "10.199.0.3"
MSGS = 5

COMMON = r'''
import os, signal, socket, subprocess, sys, time
SIZE, RCVBUF = 4096, 65536
RDS_CONG_MONITOR = 6
RDS_CMSG_CONG_UPDATE = 5
D = os.environ["LAB_DIR"]
''' + lab.GUEST_RDS_TCP + lab.guest_flags(180, 0.05) + r'''
def rdstop_json(me):
    """rdstop -b --json --kernel-info every second for the whole scenario."""
    out = open(os.path.join(D, "rdstop%d.json" % me), "w")
    err = open(os.path.join(D, "rdstop%d.json.err" % me), "w")
    return subprocess.Popen(["/run/lab/rdstop", "--kernel-info", "-b", "--json", "-d", "1"],
                            stdout=out, stderr=err)

def json_lines(me):
    """The whole lines (snapshots) the background rdstop has written so far."""
    try:
        with open(os.path.join(D, "rdstop%d.json" % me)) as f:
            return f.read().split("\n")[:-1]
    except OSError:
        return []

def json_snaps(me, start=0):
    """The snapshots from line |start| on; a line that is not JSON is left
    to the host's check to report."""
    import json
    out = []
    for line in json_lines(me)[start:]:
        try:
            out.append(json.loads(line))
        except ValueError:
            pass
    return out

def wait_first(me, p, timeout=180):
    """Until the background rdstop has written its first snapshot: the
    counters before any traffic. An ASan rdstop in a guest emulated on a
    loaded host can take seconds to start, and a scenario that did not wait
    measured its rises from a snapshot taken after the traffic."""
    t0 = time.time()
    while not json_lines(me):
        assert p.poll() is None, "rdstop --json exited %s before its first snapshot" % p.poll()
        assert time.time() < t0 + timeout, "rdstop --json wrote no snapshot in %d s" % timeout
        time.sleep(0.1)
    print("rdstop --json: first snapshot after %.1f s" % (time.time() - t0), flush=True)

def wait_json(me, p, what, ok, timeout=90):
    """Until a snapshot taken wholly after this call satisfies ok(snapshot),
    at most |timeout| s; the host judges the outcome (a bounded wait for the
    state that the checks then assert, instead of a fixed sleep). The line
    being written at the call may have been read before it; the next one
    was begun after it was written, so after the call."""
    start, t0 = len(json_lines(me)), time.time()
    while time.time() < t0 + timeout and p.poll() is None:
        for snap in json_snaps(me, start + 1):
            if ok(snap):
                print("rdstop --json: %s after %.1f s" % (what, time.time() - t0), flush=True)
                return
        time.sleep(0.2)
    print("rdstop --json: no snapshot showed %s in %.0f s" % (what, time.time() - t0), flush=True)

def conn_of(s, local, peer):
    c = [c for c in s["connections"] if c["local"] == local and c["peer"] == peer
         and c["transport"] == "tcp"]
    return c[0] if c else None

def connected(s, local, peer):
    c = conn_of(s, local, peer)
    return bool(c) and c["state"] == "connected"

def reconnected(me, snap, local, peer):
    """Connected, on other TCP ports than in the first snapshot that had
    the connection up."""
    ports = lambda c: {p["local_port"] for p in c["path"]}
    first = next((conn_of(o, local, peer) for o in json_snaps(me)
                  if connected(o, local, peer)), None)
    return connected(snap, local, peer) and \
        (first is None or ports(conn_of(snap, local, peer)) != ports(first))

def stop_json(p):
    p.send_signal(signal.SIGINT)
    rc = p.wait(30)
    open(os.path.join(D, "rdstop%d.json.rc" % int(os.environ["LAB_ID"])), "w").write("%d\n" % rc)

TMUX = ["tmux", "-L", "rdstop", "-f", "/dev/null"]

def screen_start():
    """The ncurses screen, 80x24, in a tmux of the guest (the host's tmux;
    its socket goes to the guest's own /tmp; its pty needs a devpts, which
    the guest's init does not mount)."""
    os.makedirs("/dev/pts", exist_ok=True)
    if not os.path.exists("/dev/pts/ptmx"):
        subprocess.call(["mount", "-t", "devpts", "devpts", "/dev/pts"])
    subprocess.call(TMUX + ["new-session", "-d", "-x", "80", "-y", "24",
                            "env TERM=screen NO_COLOR=1 LC_ALL=C /run/lab/rdstop --kernel-info -d 1; "
                            "sleep 60"])
    subprocess.call(TMUX + ["set-option", "-g", "status", "off"], stdout=subprocess.DEVNULL)

def screen_shot(name, *keys):
    """Keys, a refresh, and the screen as text into $LAB_DIR/NAME.screen."""
    for k in keys:
        subprocess.call(TMUX + ["send-keys", k])
        time.sleep(0.3)
    time.sleep(1.5)
    with open(os.path.join(D, name + ".screen"), "w") as f:
        subprocess.call(TMUX + ["capture-pane", "-p"], stdout=f)

def rdstop(me):
    with open(os.path.join(D, "rdstop%d.out" % me), "w") as out, \
         open(os.path.join(D, "rdstop%d.err" % me), "w") as err:
        rc = subprocess.call(["/run/lab/rdstop", "--kernel-info", "-b", "-n", "2", "-d", "1"],
                             stdout=out, stderr=err)
    open(os.path.join(D, "rdstop%d.rc" % me), "w").write("%d\n" % rc)
    print("rdstop exit", rc)
'''

ROLE1 = r"""
python3 - <<'PY'
%s
import signal
watch = rdstop_json(1)
screen_start()
s = rds_socket(4000)
c = rds_socket(4001, RCVBUF)
wait_first(1, watch)                # the counters before any traffic
flag("ready1")
# traffic
for i in range(%d):
    data, addr = s.recvfrom(4096)
    assert addr == ("%s", 5000), addr
print("received all")
# congestion: port 4001 is not read until the sender met ENOBUFS
wait_flag("congested")
sent = int(open(os.path.join(D, "sent4001")).read())

def congested(snap):
    k = [k for k in snap["sockets"] if k["bound_port"] == 4001]
    return "4001" in (snap["local_congested_ports"] or []) and bool(k) and \
        k[0]["recvq_msgs"] >= sent

# a snapshot of 4001 congested with all the sender got through queued
wait_json(1, watch, "4001 congested, %%d queued" %% sent, congested)
screen_shot("peers", "1")
screen_shot("sockets", "4")
screen_shot("congested", "2", "m", "m")
n = 0
c.settimeout(5)
while True:
    try:
        c.recvfrom(SIZE + 100)
        n += 1
    except socket.timeout:
        break
print("drained", n, "from 4001")
flag("drained")
wait_json(1, watch, "4001 free",
          lambda snap: "4001" not in (snap["local_congested_ports"] or []))
screen_shot("free")
subprocess.call(TMUX + ["kill-server"])
# reconnect: rds_tcp_sysctl_reset() -> rds_conn_path_drop() on every path
with open("/proc/sys/net/rds/tcp/rds_tcp_sndbuf", "w") as f:
    f.write("2097152\n")
print("paths dropped")
flag("dropped")
for i in range(%d):
    data, addr = s.recvfrom(4096)
print("received after the reconnect")

wait_json(1, watch, "the connection up again on other TCP ports",
          lambda snap: reconnected(1, snap, "%s", "%s"))
stop_json(watch)
rdstop(1)
flag("done1")
wait_flag("done2")
PY
""" % (COMMON, MSGS, G2, MSGS, G1, G2)

ROLE2 = r"""
python3 - <<'PY'
%s
import errno
watch = rdstop_json(2)
s = rds_socket(5000)
wait_first(2, watch)                # the counters before any traffic
wait_flag("ready1")
for i in range(3):
    s.sendto(b"", ("%s", 0))
    s.recvfrom(100)
for i in range(%d):
    s.sendto(b"x" * 1000, ("%s", 4000))
print("sent all")
# congestion: 4 KiB messages to port 4001 until its map says congested;
# monitoring, the refused send arms group 4001 %% 64 for a notification
s.setsockopt(SOL_RDS, RDS_CONG_MONITOR, 1)
s.setblocking(False)
sent = 0
deadline = time.time() + 60
while True:
    try:
        s.sendto(b"c" * SIZE, ("%s", 4001))
        sent += 1
    except OSError as e:
        if e.errno == errno.ENOBUFS:
            break
        if e.errno != errno.EAGAIN:
            raise
    assert time.time() < deadline, "port 4001 never congested"
    time.sleep(0.05)
print("ENOBUFS after", sent, "messages to 4001")
open(os.path.join(D, "sent4001"), "w").write("%%d\n" %% sent)
flag("congested")
s.settimeout(60)
wait_flag("drained")
data, anc, fl, addr = s.recvmsg(0, socket.CMSG_SPACE(8))
groups = [int.from_bytes(d[:8], sys.byteorder) for lv, ty, d in anc
          if lv == SOL_RDS and ty == RDS_CMSG_CONG_UPDATE]
print("monitor groups", [hex(g) for g in groups])
open(os.path.join(D, "mon2"), "w").write("%%s\n" %% " ".join("%%x" %% g for g in groups))
wait_flag("dropped")
time.sleep(1)
for i in range(%d):
    s.sendto(b"y" * 1000, ("%s", 4000))
print("sent after the reconnect")
wait_json(2, watch, "the connection up after the sends",
          lambda snap: connected(snap, "%s", "%s"))
stop_json(watch)
rdstop(2)
flag("done2")
wait_flag("done1")
PY
""" % (COMMON, G1, MSGS, G1, G1, MSGS, G1, G2, G1)


def snapshots(text):
    """The snapshots of one rdstop -b output, each as {section: [lines]}."""
    out = []
    for chunk in re.split(r"\n(?=rdstop - )", text.strip()):
        snap, sec = {"": []}, ""
        for line in chunk.splitlines():
            if re.match(r"^[A-Z][A-Z ]+$", line):
                sec = line
                snap[sec] = []
            elif line.strip():
                snap[sec].append(line)
        out.append(snap)
    return out


def counters(snap):
    vals = {}
    for line in snap.get("COUNTERS", [])[1:]:
        f = line.split()
        vals[f[0]] = int(f[1])
    return vals


def check_guest(me, text, kernel, fails):
    local, peer, port = (G1, G2, 4000) if me == 1 else (G2, G1, 5000)
    snaps = snapshots(text)
    if len(snaps) != 2:
        fails.append("guest %d: %d snapshots, want 2" % (me, len(snaps)))
        return
    for n, snap in enumerate(snaps):
        where = "guest %d snapshot %d" % (me, n + 1)
        head = snap[""]
        if not head or not head[0].startswith("rdstop - kernel - "):
            fails.append("%s: no summary line" % where)
        conn = [l for l in snap.get("CONNECTIONS", [])
                if re.match(r"^%s\s+%s\s+tcp\s+connected" % (re.escape(local), re.escape(peer)), l)]
        if len(conn) != 1:
            fails.append("%s: connection %s -> %s not listed as connected tcp" % (where, local, peer))
        paths = [l for l in snap.get("CONNECTIONS", []) if l.startswith("  path ")]
        if not any(":16385" in l for l in paths):
            fails.append("%s: no path row on port 16385" % where)
        if not any(l.startswith("%s:%d " % (local, port)) for l in snap.get("SOCKETS", [])):
            fails.append("%s: socket %s:%d not listed" % (where, local, port))
        vals = counters(snap)
        names = list(vals)
        # guest 2 pings and sends, guest 1 answers and receives
        want = ["tcp_data_ready_calls", "recv_delivered"]
        want += ["recv_ping", "send_pong"] if me == 1 else ["send_queued"]
        for c in want:
            if not vals.get(c):
                fails.append("%s: counter %s is %r, want > 0" % (where, c, vals.get(c)))
        has_7x = "mprds_catchup_tx0_retries" in names
        if has_7x != kernel.startswith("7."):
            fails.append("%s: mprds_catchup_tx0_retries %s on %s" % (
                where, "listed" if has_7x else "missing", kernel))
    rates = snaps[1][""][1] if len(snaps[1][""]) > 1 else ""
    if "(over " not in rates:
        fails.append("guest %d: the second snapshot has no rates" % me)


def check_json(me, lines, sent4001, fails):
    """The background rdstop -b --json --kernel-info against the scenario."""
    where = "guest %d json" % me
    local, peer = (G1, G2) if me == 1 else (G2, G1)
    try:
        snaps = [json.loads(l) for l in lines if l.strip()]
    except ValueError as e:
        fails.append("%s: not JSON lines: %s" % (where, e))
        return
    if len(snaps) < 8:
        fails.append("%s: %d snapshots, want at least 8" % (where, len(snaps)))
        return

    def ctr(snap, name):
        return {c["name"]: c["value"] for c in snap["counters"]}.get(name)

    def conn(snap):
        c = [c for c in snap["connections"] if c["local"] == local and c["peer"] == peer
             and c["transport"] == "tcp"]
        return c[0] if c else None

    def rose(name, least):
        a, b = ctr(snaps[0], name), ctr(snaps[-1], name)
        if a is None or b is None or b - a < least:
            fails.append("%s: %s went %r -> %r, want a rise of %d or more" % (
                where, name, a, b, least))
        return (b or 0) - (a or 0)

    if any(s["source"] != "kernel" for s in snaps):
        fails.append("%s: a source other than kernel" % where)
    if not all(s.get("cong_monitor") is True and
               "from RDS_CONG_MONITOR" in (s.get("cong_news") or "") for s in snaps):
        fails.append("%s: a snapshot without the RDS_CONG_MONITOR socket: %r" % (
            where, snaps[0].get("cong_news")))
    told = [e for e in snaps[-1]["cong_events"] if "groups" in e]
    if told:
        fails.append("%s: the monitor socket of rdstop, which sent nothing, was told %r" % (
            where, told))
    if any(s["local_congested"] is None for s in snaps):
        fails.append("%s: a snapshot without the local node's map" % where)
    if snaps[-1]["interval_s"] is None:
        fails.append("%s: no rates" % where)
    last = conn(snaps[-1])
    if not last or last["state"] != "connected":
        fails.append("%s: %s -> %s not connected at the end" % (where, local, peer))
    # snaps[0] was taken before any traffic, snaps[-1] after all of it;
    # what each rise rests on: docs/kernel-behaviour.md, "rdstop against
    # the kernels" (cong.c rds_cong_queue_updates coalesces, but the two
    # changes of 4001 are a round trip apart)
    if me == 1:
        rose("recv_delivered", 2 * MSGS)
        rose("cong_update_queued", 2)
        # the port that was not read: congested, with every message the
        # sender got through before ENOBUFS queued, then free again
        cong = [i for i, s in enumerate(snaps) if "4001" in (s["local_congested_ports"] or [])]
        if not cong:
            fails.append("%s: port 4001 never congested in the local map" % where)
        else:
            s = snaps[cong[0]]
            k = [k for k in s["sockets"] if k["bound_port"] == 4001]
            c = conn(s)
            if not k or not k[0]["congested"]:
                fails.append("%s: socket 4001 not marked congested" % where)
            if not c or "4001" not in (c["local_congested_ports"] or []):
                fails.append("%s: the connection's local side does not show 4001" % where)
            queued = max(k["recvq_msgs"] for s in snaps for k in s["sockets"]
                         if k["bound_port"] == 4001)
            if sent4001 is not None and queued != sent4001:
                fails.append("%s: at most %d messages queued on 4001, the sender got %d "
                             "through" % (where, queued, sent4001))
            if not any("4001" not in (s["local_congested_ports"] or [])
                       for s in snaps[cong[-1] + 1:]):
                fails.append("%s: port 4001 never free again" % where)
            line = [(e["congested"], e["first"], e["last"]) for e in snaps[-1]["cong_events"]
                    if e["side"] == "node" and e.get("first", 65536) <= 4001 <= e.get("last", -1)]
            if [c for c, _, _ in line] != [True, False]:
                fails.append("%s: the time line of 4001 is %r, want congested then free" % (
                    where, line))
        # the reconnect: paths dropped and up again on other TCP ports
        resets = rose("conn_reset", 1)
        first = next((conn(s) for s in snaps if conn(s) and conn(s)["state"] == "connected"),
                     None)
        ports = lambda c: {p["local_port"] for p in c["path"]} if c else set()
        if not first or not last or ports(first) == ports(last):
            fails.append("%s: the paths' TCP ports did not change over the reconnect: %r" % (
                where, sorted(ports(first))))
        print("%s: %d snapshots, conn_reset +%d, 4001 congested in %d" % (
            where, len(snaps), resets, len(cong)))
    else:
        rose("send_queued", 2 * MSGS)
        rose("cong_update_received", 2)
        print("%s: %d snapshots, conn_reset +%d" % (
            where, len(snaps), (ctr(snaps[-1], "conn_reset") or 0) -
            (ctr(snaps[0], "conn_reset") or 0)))


def main():
    a, rdstop, run_dir, share, log = lab.prog_test("rdstop_kernel", "rdstop")
    fails = []
    with lab.Lab(a.kernel, 2, False, os.path.join(run_dir, "capture.pcap"), keep=share) as l, \
            l.judging(fails, tail=1500):
        rcs = l.run_roles((ROLE1, ROLE2), 300)
        log("guests: %s" % rcs)
        fails += lab.role_fails(rcs, l.output)
        for g in (1, 2):
            p = os.path.join(share, "rdstop%d.out" % g)
            rcp = os.path.join(share, "rdstop%d.rc" % g)
            if not os.path.exists(rcp):
                fails.append("guest %d: rdstop did not run" % g)
                continue
            text = open(p).read()
            log("guest %d rdstop:\n%s" % (g, text))
            r = int(open(rcp).read())
            if r != 0:
                fails.append("guest %d: rdstop exit %d: %s" % (
                    g, r, open(os.path.join(share, "rdstop%d.err" % g)).read()))
            check_guest(g, text, a.kernel, fails)
            jp = os.path.join(share, "rdstop%d.json" % g)
            jrc = os.path.join(share, "rdstop%d.json.rc" % g)
            if not os.path.exists(jrc):
                fails.append("guest %d: rdstop --json did not finish" % g)
                continue
            if int(open(jrc).read()) != 0:
                fails.append("guest %d: rdstop --json exit %s: %s" % (
                    g, open(jrc).read().strip(),
                    open(os.path.join(share, "rdstop%d.json.err" % g)).read()))
            sp = os.path.join(share, "sent4001")
            sent = int(open(sp).read()) if os.path.exists(sp) else None
            check_json(g, open(jp).read().splitlines(), sent, fails)
        mp = os.path.join(share, "mon2")
        mon = open(mp).read().split() if os.path.exists(mp) else None
        if not mon or not any(int(g, 16) & (1 << (4001 % 64)) for g in mon):
            fails.append("guest 2: the sending socket's monitor was not told of group "
                         "%d: %r" % (4001 % 64, mon))
    return lab.verdict(fails, log, a.kernel)


if __name__ == "__main__":
    sys.exit(main())
