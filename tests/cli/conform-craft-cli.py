#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""conform-craft-cli.py RDS_CONFORM RDSDUMP MANPAGE - rds-conform craft from the
outside: hex dumps of a few messages, a capture rdsdump reads back, bad
options exiting 2, a refused connection exiting 1, and messages sent to a
listener on 127.0.0.1 (an ephemeral port, never 16385) compared byte for
byte with ones built here from the header layout, then what the listener
sends back printed by --wait; and every option of --help documented in
MANPAGE (the CRAFT subsection) and the other way round.

Exit: 0 all passed; 1 a check failed.
"""
import os
import re
import socket
import struct
import subprocess
import sys
import tempfile
import threading

from clitest import check, done, free_port

BIN, RDSDUMP, MANPAGE = sys.argv[1], sys.argv[2], sys.argv[3]


def craft(*args, stdin=None):
    return subprocess.run([BIN, "craft", *args], capture_output=True, text=True, timeout=60)


def csum(b):
    s = sum(struct.unpack(">24H", b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def hdr(seq, ack, length, sport, dport, flags=0, credit=0, pad=b"\0" * 4, ext=b"",
        with_csum=False):
    h = struct.pack(">QQIHHBB4sH16s", seq, ack, length, sport, dport, flags, credit, pad, 0,
                    ext.ljust(16, b"\0"))
    if with_csum:
        h = h[:30] + struct.pack(">H", csum(h)) + h[32:]
    return h


def listener(reply=b"", quiet=None):
    """A one-connection TCP listener on 127.0.0.1; returns (port, result)
    where result["data"] fills with every byte received. It sends |reply|
    first; it closes at the client's EOF or, with |quiet|, after that many
    seconds without a byte."""
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    srv.settimeout(30)
    result = {"data": b""}

    def serve():
        try:
            conn, _ = srv.accept()
        except OSError:
            return
        with conn:
            conn.settimeout(quiet if quiet else 30)
            if reply:
                conn.sendall(reply)
            while True:
                try:
                    b = conn.recv(65536)
                except OSError:
                    break
                if not b:
                    break
                result["data"] += b
        srv.close()

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    result["thread"] = t
    return srv.getsockname()[1], result


# --help, --usage
r = craft("--help")
check(r.returncode == 0 and "--ext=TYPE=VALUE" in r.stdout and "--cong-ports" in r.stdout,
      "--help")
check(craft("--usage").returncode == 0, "--usage")
helped = set(re.findall(r"^ {1,8}(?:-., )?--([a-z][a-z-]*)", r.stdout, re.M))
with open(MANPAGE, encoding="utf-8") as f:
    page = f.read()
# only the CRAFT subsection: from its heading to the next heading of its
# level or above
m = re.search(r"^## CRAFT\n(.*?)(?=^#{1,2} )", page, re.M | re.S)
check(m is not None, "man page has no CRAFT subsection")
page = m.group(1) if m else ""
# definition-list terms: lines starting with an option, followed by ":   "
terms = set()
for t in re.findall(r"^(\*\*.*)\n:   ", page, re.M):
    terms |= set(re.findall(r"\\-\\-([a-z][a-z-]*)", t))
check(helped and helped == terms, "man page: missing %s, extra %s" %
      (sorted(helped - terms), sorted(terms - helped)))

# hex dumps
r = craft("--payload-text", "hi")
check(r.returncode == 0, "hex exit")
check(r.stdout == ("message 1: data 4000 > 4001 seq 1 len 2, 50 bytes\n"
                   "\t0x0000:  0000 0000 0000 0001 0000 0000 0000 0000  ................\n"
                   "\t0x0010:  0000 0002 0fa0 0fa1 0000 0000 0000 0000  ................\n"
                   "\t0x0020:  0000 0000 0000 0000 0000 0000 0000 0000  ................\n"
                   "\t0x0030:  6869                                     hi\n"),
      "hex data: %r" % r.stdout)
r = craft("--kind", "probe-ping", "--csum", "auto")
want = hdr(1, 0, 0, 1, 0, ext=bytes.fromhex("05000806524453310800"), with_csum=True)
check(r.stdout.startswith("message 1: probe-ping 1 > 0 seq 1 len 0 csum 0x%04x npaths 8 "
                          "gen_num 0x52445331 sport_idx 0, 48 bytes\n"
                          % struct.unpack(">H", want[30:32])), "hex probe: %r" % r.stdout)
# --kver picks the generation; --kernel, its older name, still works but warns
r6 = craft("--kind", "probe-ping", "--kver", "6")
check(r6.returncode == 0 and r6.stderr == "" and "probe-ping" in r6.stdout and
      r6.stdout != r.stdout, "--kver 6: %r %r" % (r6.stdout, r6.stderr))
r = craft("--kind", "probe-ping", "--kernel", "6")
check(r.returncode == 0 and "deprecated: use --kver" in r.stderr and r.stdout == r6.stdout,
      "--kernel 6: %r %r" % (r.stdout, r.stderr))
r = craft("--kind", "cong", "--cong-ports", "4000,5000-5010")
check(r.stdout.startswith("message 1: cong 0 > 0 seq 0 len 8192 [CONG_BITMAP], 8240 bytes\n")
      and "\t*\n" in r.stdout and r.stdout.count("\n") < 20, "hex cong: %r" % r.stdout[:300])
r = craft("--payload-size", "100", "--len", "7", "--truncate", "20", "-c", "2", "--seq", "9",
          "--seq-step", "3")
check("message 1: data 4000 > 4001 seq 9 len 7, 148 bytes, truncated to 20\n" in r.stdout and
      "message 2: data 4000 > 4001 seq 12 len 7, 148 bytes, truncated to 20\n" in r.stdout,
      "hex truncate: %r" % r.stdout)
r = craft("--ext", "npaths=4", "--ext", "99", "--flags", "retrans,0x40", "--ack", "3")
check("data 4000 > 4001 seq 1 len 0 [RETRANSMITTED|0x40] ack 3 npaths 4, 48 bytes" in r.stdout,
      "hex ext: %r" % r.stdout)
check("0x0020:  0500 0463 0000" in r.stdout, "ext bytes: %r" % r.stdout)

with tempfile.TemporaryDirectory() as tmp:
    # a capture rdsdump reads back
    cap = os.path.join(tmp, "c.pcap")
    r = craft("-w", cap, "--preface", "--payload-text", "hello", "-c", "2", "--to",
              "10.9.0.2:16385", "--from", "10.9.0.1:40123", "--no-send")
    check(r.returncode == 0 and r.stdout == "", "pcap write: %r %r" % (r.stdout, r.stderr))
    d = subprocess.run([RDSDUMP, "-n", "-t", "-r", cap], capture_output=True, text=True)
    lines = d.stdout.splitlines()
    flow = "TCP 10.9.0.1.40123 > 10.9.0.2.16385 path 0: "
    check(d.returncode == 0 and len(lines) == 7, "rdsdump: %r" % d.stdout)
    check(lines[:1] == [flow + "tcp syn"] and
          lines[2].startswith(flow + "cong seq 0 len 8192: all ports free") and
          lines[3].startswith(flow + "probe-ping 1 > 0 seq 1 len 0 npaths 8 gen_num 0x") and
          lines[4:] == [flow + "data 4000 > 4001 seq 2 len 5", flow + "data 4000 > 4001 seq 3 len 5",
                        flow + "tcp fin"],
          "rdsdump lines: %r" % lines)
    r = craft("-w", cap, "--payload-size", "10", "--truncate", "30")
    d = subprocess.run([RDSDUMP, "-n", "-t", "-r", cap], capture_output=True, text=True)
    check("partial" in d.stdout or "cut" in d.stdout, "truncated in capture: %r" % d.stdout)

    # --ib: RoCEv2 RC SENDs, one per IB fragment, that rdsdump reads back
    r = craft("-w", cap, "--ib", "--payload-size", "5000", "--csum", "auto", "--to",
              "[fd00::3]", "--from", "[fd00::2]", "--no-send")
    check(r.returncode == 0 and r.stdout == "", "ib pcap write: %r %r" % (r.stdout, r.stderr))
    d = subprocess.run([RDSDUMP, "-n", "-t", "-r", cap], capture_output=True, text=True)
    check(d.returncode == 0 and d.stdout ==
          "IB fd00::2 > fd00::3 qp 0x000011: data 4000 > 4001 seq 1 len 5000 frags 2\n",
          "rdsdump --ib: %r" % d.stdout)
    for args, word in [(["--ib"], "--pcap"),
                       (["--ib", "-w", cap, "--to", "127.0.0.1"], "--no-send")]:
        r = craft(*args)
        check(r.returncode == 2 and word in r.stderr and r.stdout == "",
              "%s: exit %d, stderr %r" % (args, r.returncode, r.stderr))

    # bad options: exit 2 and a message naming the problem
    for args, word in [
            (["--bogus"], "bogus"), (["--sport", "70000"], "70000"), (["--flags", "urgent"], "urgent"),
            (["--kind", "nope"], "nope"), (["--payload", "abc"], "odd"), (["--pad", "0102"], "4"),
            (["--ext", "npaths=1", "--ext-raw", "00"], "--ext-raw"),
            (["--cong-ports", "1"], "--kind cong"), (["--wait", "10"], "--to"),
            (["--payload", "00", "--payload-text", "x"], "one of"), (["extra"], "extra"),
            (["--ext", "nonsense=1"], "nonsense"), (["--csum", "maybe"], "maybe"),
            (["--to", "not-an-address"], "not-an-address"), (["-c", "0"], "count"),
            (["--payload-file", os.path.join(tmp, "missing")], "missing"),
            (["--to", "::1", "--from", "127.0.0.1"], "famil")]:
        r = craft(*args)
        check(r.returncode == 2 and word in r.stderr and r.stdout == "",
              "%s: exit %d, stderr %r" % (args, r.returncode, r.stderr))

    # a payload file
    pf = os.path.join(tmp, "p.bin")
    with open(pf, "wb") as f:
        f.write(b"\x00\xffABC")
    r = craft("--payload-file", pf)
    check("len 5, 53 bytes" in r.stdout and "00ff 4142 43" in r.stdout, "payload file")

# refused: exit 1 and the errno string
r = craft("--to", "127.0.0.1:%d" % free_port())
check(r.returncode == 1 and "Connection refused" in r.stderr, "refused: %r" % r.stderr)

# sent byte for byte
port, got = listener()
r = craft("--to", "127.0.0.1:%d" % port, "--payload-text", "hello", "-c", "2", "--csum", "auto",
          "--flags", "ackreq", "--credit", "5", "--ext", "rdma-dest=0x1234:8")
got["thread"].join(30)
ext = bytes.fromhex("030000123400000008")
want = b"".join(hdr(s, 0, 5, 4000, 4001, flags=2, credit=5, ext=ext, with_csum=True) + b"hello"
                for s in (1, 2))
check(r.returncode == 0 and "sent 106 bytes to 127.0.0.1:%d" % port in r.stdout, "send: %r %r" %
      (r.stdout, r.stderr))
check(got["data"] == want, "bytes received: %s\nwant %s" % (got["data"].hex(), want.hex()))

# truncated and a wrong length
port, got = listener()
r = craft("--to", "127.0.0.1:%d" % port, "--kind", "ping", "--len", "100", "--truncate", "30")
got["thread"].join(30)
check(got["data"] == hdr(1, 0, 100, 4000, 0)[:30], "truncated bytes: %s" % got["data"].hex())

# the preface, then what the peer sends back
reply = (hdr(0, 0, 8192, 0, 0, flags=1) + bytes(8192) +
         hdr(1, 0, 0, 0, 1, ext=bytes.fromhex("05000806cafef00d0800")) +
         hdr(7, 0, 3, 4001, 4000) + b"abc" + hdr(8, 0, 1000, 4001, 4000) + b"xy")
port, got = listener(reply=reply, quiet=1.0)
pcap = tempfile.NamedTemporaryFile(suffix=".pcap", delete=False).name
r = craft("--to", "127.0.0.1:%d" % port, "--preface", "--wait", "3000", "-w", pcap)
got["thread"].join(30)
out = r.stdout.splitlines()
check(r.returncode == 0, "wait exit %d %r" % (r.returncode, r.stderr))
check(got["data"][:48] == hdr(0, 0, 8192, 0, 0, flags=1) and got["data"][48:48 + 8192] == bytes(8192)
      and got["data"][8240:8240 + 24] == hdr(1, 0, 0, 1, 0)[:24]
      and got["data"][8240 + 32:8240 + 36] == bytes.fromhex("05000806")
      and got["data"][8288:8288 + 48] == hdr(2, 0, 0, 4000, 4001), "preface bytes")
check("recv: cong 0 > 0 seq 0 len 8192 [CONG_BITMAP]" in out and
      "recv: probe-pong 0 > 1 seq 1 len 0 npaths 8 gen_num 0xcafef00d sport_idx 0" in out and
      "recv: data 4001 > 4000 seq 7 len 3" in out and
      "recv: data 4001 > 4000 seq 8 len 1000: cut short" in out and
      out[-1].endswith("peer closed the connection"), "wait output: %r" % out)
d = subprocess.run([RDSDUMP, "-n", "-t", "--tcp-port", str(port), "-r", pcap],
                   capture_output=True, text=True)
check("probe-pong 0 > 1 seq 1 len 0 npaths 8 gen_num 0xcafef00d" in d.stdout and
      "> 127.0.0.1.%d path 0: data 4000 > 4001 seq 2 len 0" % port in d.stdout and
      "tcp fin" in d.stdout, "exchange capture: %r" % d.stdout)
os.unlink(pcap)

# a peer that stays silent and open
port, got = listener()
r = craft("--to", "127.0.0.1:%d" % port, "--wait", "200")
check(r.returncode == 0 and r.stdout.splitlines()[-1] == "received 0 bytes; connection still open",
      "silent peer: %r" % r.stdout)

done("conform craft cli: all passed")
