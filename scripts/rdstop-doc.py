#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Regenerate docs/rdstop.md: every screen in it is captured from the real
ncurses screen with `tmux capture-pane -p` (80x24, TERM=screen,
NO_COLOR=1), none is drawn by hand.

    scripts/rdstop-doc.py BUILD_DIR [--out docs/rdstop.md] [--kernel DIR]

BUILD_DIR holds tools/rdstop/rdstop, tests/rdsdrive. The capture views are
a replay of pcaps/captured/7.2/tcp_congestion.pcap on its own clock (the
same every time); the librds views watch a live rdsdrive sink that stopped
reading until its port 4000 is congested (addresses, ports and rates vary
from run to run). Needs tmux and loopback (run it as
`unshare -n sh -c 'ip link set lo up; scripts/rdstop-doc.py build/asan'`
to keep its ports to itself).

The kernel views need a kernel with RDS, which only the lab guests have:
lab-rdstop-7.2 (tests/lab/rdstop_kernel.py) captures them in guest 1 into
its run directory, and --kernel BUILD_DIR/lab/rdstop_kernel-7.2/share
puts them in; without --kernel the page keeps the kernel views it has.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Screen:
    """One rdstop in a tmux server of its own."""

    def __init__(self, cmd, env=None, cols=80, lines=24):
        self.sock = "rdstop-doc-%d" % os.getpid()
        self.t = ["tmux", "-L", self.sock, "-f", "/dev/null"]
        e = " ".join("%s=%s" % kv for kv in (env or {}).items())
        subprocess.run(self.t + ["kill-server"], stderr=subprocess.DEVNULL)
        subprocess.run(self.t + ["new-session", "-d", "-x", str(cols), "-y", str(lines),
                                 "env TERM=screen NO_COLOR=1 LC_ALL=C %s %s; sleep 60" % (e, cmd)],
                       check=True)
        subprocess.run(self.t + ["set-option", "-g", "status", "off"], check=True,
                       stdout=subprocess.DEVNULL)

    def text(self):
        return subprocess.run(self.t + ["capture-pane", "-p"], check=True,
                              capture_output=True, text=True).stdout

    def wait(self, what, timeout=20):
        end = time.time() + timeout
        while what not in self.text():
            if time.time() > end:
                sys.exit("rdstop-doc: '%s' never shown:\n%s" % (what, self.text()))
            time.sleep(0.1)

    def keys(self, *keys, settle=0.4):
        for k in keys:
            subprocess.run(self.t + ["send-keys", k], check=True)
        time.sleep(settle)

    def shoot(self, shots, *steps):
        """Each step (name, keys): press the keys (none: the screen as it
        is), then capture the screen into shots[name]."""
        for name, keys in steps:
            if keys:
                self.keys(*keys)
            shots[name] = self.text()

    def resize(self, cols, lines):
        subprocess.run(self.t + ["resize-window", "-x", str(cols), "-y", str(lines)], check=True)
        time.sleep(0.5)

    def close(self):
        subprocess.run(self.t + ["kill-server"], stderr=subprocess.DEVNULL)


def block(text):
    return "```\n" + text + ("" if text.endswith("\n") else "\n") + "```\n"


def replay_screens(rdstop):
    pcap = os.path.join(ROOT, "pcaps/captured/7.2/tcp_congestion.pcap")
    shots = {}
    s = Screen("%s -r %s -d 2" % (rdstop, pcap))
    s.wait("+2.000 s")
    s.keys("p")
    s.keys(" ")
    s.wait("+4.000 s")
    s.shoot(shots, ("peers", []), ("detail", ["Enter"]), ("counters", ["Enter", "3"]),
            ("sockets", ["4"]))
    s.resize(60, 20)
    s.shoot(shots, ("small", []))
    s.close()
    s = Screen("%s -r %s -d 6" % (rdstop, pcap))
    s.wait("+6.000 s")
    s.keys("p", "2")
    for _ in range(39):
        s.keys("Right", settle=0)
    s.shoot(shots, ("cong", [""]), ("cong-zoom", ["Enter"]))
    s.close()
    return shots


def librds_screens(rdstop, drive):
    tmp = tempfile.mkdtemp()
    env = dict(os.environ, RDSU_MONITOR=os.environ.get("RDSU_MONITOR", "1"),
               RDSU_MONITOR_DIR=os.path.join(tmp, "mon"))
    procs = []
    try:
        sink = subprocess.Popen([drive, "-b", "127.29.0.1", "sink", "--port", "4000",
                                 "--expect", "200", "--stall-after", "1", "--stall", "40",
                                 "--rcvbuf", "65536", "--sizes", "16K", "--timeout", "60"],
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(sink)
        time.sleep(0.5)
        src = subprocess.Popen([drive, "-b", "127.29.0.2", "source", "--to", "127.29.0.1",
                                "--port", "4000", "--count", "200", "--sizes", "16K",
                                "--pace", "0.01", "--timeout", "60"],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(src)
        shots = {}
        s = Screen("%s -d 1 --librds %d" % (rdstop, sink.pid),
                   {"RDSU_MONITOR_DIR": env["RDSU_MONITOR_DIR"]})
        s.wait("127.29.0.2")
        time.sleep(3)
        s.shoot(shots, ("l-peers", ["p"]), ("l-cong", ["2", "m", "m"]), ("l-counters", ["3"]),
                ("l-sockets", ["4"]))
        s.close()
        return shots
    finally:
        for p in procs:
            p.kill()
            p.wait()
        shutil.rmtree(tmp, ignore_errors=True)


DOC = """<!-- SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause -->
<!-- Made by scripts/rdstop-doc.py: edit the script, then run it again. -->
# rdstop: the screen

`rdstop` shows what RDS is doing on a host, or in a capture, the way `top`
and `htop` do for processes: connections and their paths with rates,
congestion maps as heat maps with a time line of their updates, counters
and sockets. The options, views and keys are in
[rdstop(1)](man/rdstop.1.md); this page shows each view as the terminal
shows it.

Every screen below is a text capture of the real ncurses screen, taken
with `tmux capture-pane -p` in an 80x24 tmux window (`TERM=screen`,
`NO_COLOR=1`) by `scripts/rdstop-doc.py`, which writes this page. The
first ones were taken while `rdstop -r pcaps/captured/7.2/tcp_congestion.pcap`
replayed a capture of two Linux 7.2 guests, one congesting port 4000 and
then the other port 5000. The replay runs on the capture's clock, so the
same commands give the same screens; `tests/screens/rdstop-screens.sh`
drives the same views in its checks (`tests/screens/*.screen`). Then
views of a live librds process (`--librds`), and last the kernel's
(`--kernel`), taken in a lab guest.

## 1 Peers

A connection row, then its paths. `-d 2`, paused (`p`) and stepped once
(space): rates are over capture seconds 2 to 4. SNDQ is "-": a capture
does not see queues. A port is "-" until a record shows it: the 7.2
acceptor held paths 1 to 7 until the connector's probe pong gave it the
path count, and placed them by source port then (32778 on path 2), so
paths that carried nothing since show no ports.

{peers}
With `enter`, the detail pane of the selected connection:

{detail}
## 2 Congestion

`-d 6`, paused at once: at capture second 6 the peer (10.199.0.3) has had
port 5000 congested since 5.097 s. The cursor is on the cell of ports
4992-5119; "@" marks a cell that changed since the last refresh and is
now congested.

{cong}
`enter` zooms into the cell, here down to single ports (port 5000 is the
ninth):

{cong-zoom}
## 3 Counters

From a capture, the counters are its totals, by the names `rdsdump -z`
uses; with `--kernel` they are the kernel's RDS counters by name.

{counters}
## 4 Sockets

A capture does not show sockets, and the view says so; with `--kernel` or
`--librds` it lists the bound sockets with their receive and send queues
against RCVBUF and SNDBUF, and whether their port is congested.

{sockets}
## A small terminal

Below 80x24 the screen says so and waits for a resize:

{small}
## Watching a librds process

`rdstop --librds PID` asks a librds process that publishes its monitor
state (here `rdsdrive sink`, started with `RDSU_MONITOR=1`, which stopped
reading after one message while `rdsdrive source` kept sending 16 KiB
messages to its port 4000) for a snapshot every second. librds knows its
paths' state, sequence numbers, connects and resets and its queues, so
SNDQ and RCN have values, and both maps of every connection exactly (CGL
is the local side's, CGP the peer's). Paused (`p`) a few seconds in:

{l-peers}
The congestion view after `m` twice: the local node's own map (the union
of its addresses' maps), with port 4000 congested, and the time line of
its changes, which rdstop makes by comparing each snapshot's maps with the
previous one's. One `m` shows the connection's local side, the first its
peer's map.

{l-cong}
Its counters: the core's, named as the kernel's where one exists, then the
TCP transport's (`tcp_*`):

{l-counters}
Its sockets: port 4000 holds the messages it has not read, far over its
RCVBUF, and is congested:

{l-sockets}"""


KERNEL = """## Watching the kernel

`rdstop --kernel` in guest 1 (10.199.0.2) of the 7.2 lab (`lab-rdstop-7.2`,
which takes these screens with the host's tmux inside the guest), while
guest 2 (10.199.0.3) sends 4 KiB messages to its port 4001 (RCVBUF 64 KiB,
not read) until its send fails with ENOBUFS. The kernel's lists
(`RDS_INFO_*`) give the connection with its send queue and its eight
paths' TCP ports, but no byte counts, no counters per path and no peer's
map (so TXB/s, RXB/s, CGP and the path rows' counters are "-"), and the
local map only as the receive queues imply it:

{k-peers}
The sockets: 4001 holds 17 messages, 106 % of its RCVBUF, and is
congested; the unbound rows are the two rdstops' own sockets, each with
its `RDS_INFO` socket and its congestion monitor:

{k-sockets}
The local node's map (`2`, `m` twice). The line under the time line's title
says where its news comes from: the local map's changes from the receive
queues, and peers' maps from the `RDS_CONG_MONITOR` socket, which the
kernel tells only of port groups where that socket's own send was refused,
so for a watcher that sends nothing it stays silent:

{k-congested}
After guest 1 read port 4001 empty:

{k-free}"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs/rdstop.md"))
    ap.add_argument("--kernel", help="the share directory of a lab-rdstop-7.2 run")
    a = ap.parse_args()
    if not shutil.which("tmux"):
        sys.exit("rdstop-doc: tmux is needed")
    rdstop = os.path.abspath(os.path.join(a.build, "tools/rdstop/rdstop"))
    drive = os.path.abspath(os.path.join(a.build, "tests/rdsdrive"))
    shots = replay_screens(rdstop)
    shots.update(librds_screens(rdstop, drive))
    doc = DOC
    for k, v in shots.items():
        doc = doc.replace("{%s}" % k, block(v))
    if a.kernel:
        kern = KERNEL
        for k in ("peers", "sockets", "congested", "free"):
            kern = kern.replace("{k-%s}" % k,
                                block(open(os.path.join(a.kernel, k + ".screen")).read()))
    else:
        old = open(a.out).read() if os.path.exists(a.out) else ""
        kern = old[old.find("## Watching the kernel"):] if "## Watching the kernel" in old else ""
    open(a.out, "w").write(doc + ("\n" + kern if kern else ""))
    print("wrote", a.out)


if __name__ == "__main__":
    main()
