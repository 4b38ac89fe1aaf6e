#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""shared-options.py RDSPING RDSPERF RDSTOP RDSDUMP RDS_CONFORM PCAP - every
tool takes the shared option groups of tools/common (rio_opt.h "The RDS
stack:", out_opt.h "Output:", src_opt.h "Source (one of):") with the same
words and the same meaning:

  * --help: each tool lists the groups it is meant to have, under the
    same header, and an option that several tools list has the same help
    text in all of them;
  * -j: JSON everywhere it exists (each output line, or the document,
    parses); -q: the per-record lines go, the summary stays;
  * --kernel: where a tool has sockets it selects the kernel's (the run
    either works on AF_RDS or says AF_RDS is missing); where it has none
    it is refused with a sentence naming --kernel and the kernel's
    sockets (rdstop keeps it as the deprecated spelling of --kernel-info);
  * --transport auto is taken wherever --transport is, and a bad value
    gets the same sentence in every tool;
  * -I (--local) and --sndbuf/--rcvbuf in every tool with RDS sockets
    (rdsping, rdsperf, rds-conform agent): a name that is neither an
    address nor an interface, and a buffer size out of range, refused
    with the same sentence; -I ADDR and -I IFACE are the address the
    sockets bind to (rdsping's source, rdsperf's client address and the
    server's listening one, the agent's side channel); --sndbuf is the
    send buffer a message must fit (rdsping's ping fails with EMSGSIZE,
    rdsperf refuses the test up front).

Runs on loopback only (rdsping to its own address, answered by librds's
loopback transport; an rdsperf server and an agent on 127.34.0.x) and on
a capture file.

Exit: 0 pass; 1 with one line per failure.
"""
import json
import os
import re
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clitest  # noqa: E402

ping, perf, top, dump, conform, pcap = sys.argv[1:7]
TOOLS = {
    "rdsping": [ping],
    "rdsperf": [perf],
    "rdstop": [top],
    "rdsdump": [dump],
    "rds-conform": [conform],
    "rds-conform agent": [conform, "agent"],
    "rds-conform craft": [conform, "craft"],
}
STACK, OUTPUT, SOURCE = "The RDS stack:", "Output:", "Source (one of):"
# The groups each tool must list, and the options each must offer in them.
WANT = {
    "rdsping": {STACK: {"--kernel", "--transport", "--auth-key", "--local", "--sndbuf",
                        "--rcvbuf"},
                OUTPUT: {"--json", "--quiet"}},
    "rdsperf": {STACK: {"--kernel", "--transport", "--kver", "--npaths", "--path-rule",
                        "--auth-key", "--local", "--sndbuf", "--rcvbuf"},
                OUTPUT: {"--json", "--quiet"}},
    "rdstop": {OUTPUT: {"--json"},
               SOURCE: {"--interface", "--read", "--kernel-info", "--librds"}},
    "rdsdump": {OUTPUT: {"--json", "--quiet", "--verbose"}, SOURCE: {"--interface", "--read"}},
    "rds-conform": {OUTPUT: {"--json", "--quiet"}},
    "rds-conform agent": {STACK: {"--kernel", "--transport", "--kver", "--npaths", "--gen",
                                  "--listen-port", "--connect-port", "--fault", "--auth-key",
                                  "--local", "--sndbuf", "--rcvbuf"}},
    "rds-conform craft": {},
}
fails = []


def run(argv, timeout=60):
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout)


def groups_of(help_text):
    """{header: {long option: help text}} of argp --help output; options
    before any header are under None."""
    groups, cur, opt = {}, None, None
    for line in help_text.splitlines():
        if not line.strip():
            cur, opt = None, None  # argp ends a group with a blank line
            continue
        if re.match(r"^ \S.*:$", line):
            cur = line.strip()
            groups.setdefault(cur, {})
            opt = None
            continue
        m = re.match(r"^\s{2,6}(-\S, )?(--[a-z0-9-]+)(=\S+|\[=\S+\])?\s*(.*)$", line)
        if m and line.lstrip().startswith("-"):
            opt = m.group(2)
            groups.setdefault(cur, {})[opt] = m.group(4).strip()
        elif opt is not None:
            groups[cur][opt] = (groups[cur][opt] + " " + line.strip()).strip()
    return groups


# --help: the groups, and one text per option
texts = {}
for name, argv in TOOLS.items():
    r = run(argv + ["--help"])
    if r.returncode != 0:
        fails.append("%s --help: exit %d" % (name, r.returncode))
        continue
    g = groups_of(r.stdout)
    for header, opts in WANT[name].items():
        have = set(g.get(header, {}))
        if not opts <= have:
            fails.append("%s --help: %s lacks %s" % (name, header, sorted(opts - have)))
    for header in (STACK, OUTPUT, SOURCE):
        for opt, text in g.get(header, {}).items():
            texts.setdefault((header, opt), {})[name] = text
for (header, opt), by_tool in sorted(texts.items()):
    if len(set(by_tool.values())) > 1:
        fails.append("%s %s: different words in %s" % (header, opt, by_tool))


def json_lines(what, text):
    lines = [l for l in text.splitlines() if l.strip()]
    if not lines:
        fails.append("%s: no output" % what)
    for l in lines:
        try:
            json.loads(l)
        except ValueError:
            fails.append("%s: not JSON: %r" % (what, l[:80]))
            return


def json_doc(what, text):
    try:
        json.loads(text)
    except ValueError:
        fails.append("%s: not one JSON document: %r" % (what, text[:80]))


def connects(addr, port, limit=10):
    """Whether something accepts a TCP connection on (addr, port) within
    |limit| s."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        try:
            socket.create_connection((addr, port), timeout=1).close()
            return True
        except OSError:
            time.sleep(0.05)
    return False

# -j: JSON everywhere
r = run([ping, "-j", "-c", "2", "-i", "0.01", "127.0.0.1"])
json_lines("rdsping -j", r.stdout)
r = run([dump, "-j", "-c", "5", "-r", pcap])
json_lines("rdsdump -j", r.stdout)
r = run([top, "-b", "-j", "-n", "1", "-r", pcap])
json_lines("rdstop -b -j", r.stdout)
r = run([conform, "--list", "-j"])
json_doc("rds-conform --list -j", r.stdout)
r = run([perf, "-s", "-j"])
if r.returncode != 2 or "the server takes no test options" not in r.stderr:
    fails.append("rdsperf -s -j: the server's refusal not said: %r" % r.stderr)

# -q: the lines per record go, the summary stays
r = run([ping, "-q", "-c", "2", "-i", "0.01", "127.0.0.1"])
if "reply from" in r.stdout or "rdsping statistics" not in r.stdout:
    fails.append("rdsping -q: %r" % r.stdout)
full = run([dump, "-z", "-r", pcap]).stdout
quiet = run([dump, "-q", "-z", "-r", pcap]).stdout
if not quiet or len(quiet.splitlines()) >= len(full.splitlines()) or quiet not in full:
    fails.append("rdsdump -q -z: not the summary of rdsdump -z alone")

# --kernel: the kernel's sockets where there are sockets ...
r = run([ping, "--kernel", "-c", "1", "127.0.0.1"])
if not ((r.returncode in (0, 1) and "(kernel" in r.stdout) or
        (r.returncode == 2 and "AF_RDS" in r.stderr)):
    fails.append("rdsping --kernel: neither AF_RDS used nor its absence said: %d %r %r"
                 % (r.returncode, r.stdout, r.stderr))
# ... refused with a sentence where there are none
for name, argv in (("rdsdump", [dump, "-r", pcap, "--kernel", "-j"]),
                   ("rds-conform craft", [conform, "craft", "--kind", "ping", "--kernel", "x"]),
                   ("rds-conform", [conform, "--peer", "127.0.0.1", "--kernel"])):
    r = run(argv)
    if r.returncode != 2 or "--kernel uses the kernel's RDS sockets" not in r.stderr:
        fails.append("%s --kernel: not refused with the sentence: %r" % (name, r.stderr))
r = run([top, "--kernel", "-b", "-n", "1", "-d", "0.05"])
if "--kernel is deprecated here: use --kernel-info" not in r.stderr:
    fails.append("rdstop --kernel: the deprecated spelling not said: %r" % r.stderr)

# --transport auto wherever --transport is; a bad value said alike
r = run([ping, "--transport", "auto", "-c", "1", "127.0.0.1"])
if r.returncode != 0:
    fails.append("rdsping --transport auto: exit %d %r" % (r.returncode, r.stderr))
r = run([conform, "craft", "--kind", "ping", "--transport", "auto", "-X"])
if r.returncode != 0:
    fails.append("rds-conform craft --transport auto: exit %d %r" % (r.returncode, r.stderr))
r = run([conform, "--peer", "127.0.0.2", "--transport", "auto", "--list"])
if r.returncode != 0:
    fails.append("rds-conform --transport auto: exit %d %r" % (r.returncode, r.stderr))
for name, argv in TOOLS.items():
    if name in ("rdstop", "rdsdump"):
        continue
    r = run(argv + ["--transport", "bogus"])
    if r.returncode != 2 or "bad transport 'bogus': tcp, ib or auto" not in r.stderr:
        fails.append("%s --transport bogus: %r" % (name, r.stderr))

# -I, --sndbuf, --rcvbuf: refused alike ...
HAS_STACK = ("rdsping", "rdsperf", "rds-conform agent")
for name in HAS_STACK:
    for args, said in ((["-I", "nosuchif0"],
                        "bad -I 'nosuchif0': neither an address nor an interface"),
                       (["--sndbuf", "0"], "bad --sndbuf '0': 1 byte to 1G"),
                       (["--rcvbuf", "2G"], "bad --rcvbuf '2G': 1 byte to 1G")):
        r = run(TOOLS[name] + args + ["127.0.0.1"])
        if r.returncode != 2 or said not in r.stderr:
            fails.append("%s %s: not refused with %r: %r" % (name, " ".join(args), said, r.stderr))
# ... and the same meaning: the address the sockets bind to, the buffers
# they have
for src in ("127.0.0.1", "lo"):
    r = run([ping, "-I", src, "-c", "1", "127.0.0.1"])
    if r.returncode != 0 or not re.search(r"^RDSPING 127\.0\.0\.1 from 127\.0\.0\.1 ", r.stdout, re.M):
        fails.append("rdsping -I %s: not the source: %r %r" % (src, r.stdout, r.stderr))
r = run([ping, "-s", "50000", "--sndbuf", "16K", "-c", "1", "127.0.0.1"])
if r.returncode != 1 or "EMSGSIZE" not in r.stdout:
    fails.append("rdsping --sndbuf 16K -s 50000: no EMSGSIZE: %r %r" % (r.stdout, r.stderr))
r = run([ping, "--rcvbuf", "64K", "--sndbuf", "64K", "-s", "50000", "-c", "1", "127.0.0.1"])
if r.returncode != 0:
    fails.append("rdsping --rcvbuf 64K --sndbuf 64K: %r %r" % (r.stdout, r.stderr))
SRV, CLI, AGENT = "127.34.0.3", "127.34.0.4", "127.34.0.6"
port = clitest.free_port()
srv = subprocess.Popen([perf, "-s", "-I", SRV, "-p", str(port)], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
try:
    connects(SRV, port)
    r = run([perf, "-c", SRV, "-p", str(port), "-I", CLI, "-t", "0.1", "-i", "0", "-l", "1000",
             "--json"])
    try:
        st = json.loads(r.stdout)["runs"][0]["start"]
        if (st["client"], st["server"]) != (CLI, SRV):
            fails.append("rdsperf -I: client %s, server %s" % (st["client"], st["server"]))
    except (ValueError, KeyError, IndexError):
        fails.append("rdsperf -I %s: %r %r" % (CLI, r.stdout[:200], r.stderr))
    r = run([perf, "-c", SRV, "-p", str(port), "-I", CLI, "--sndbuf", "16K", "-t", "0.1",
             "-l", "50000"])
    if r.returncode != 2 or "do not fit the send buffer of 16384 bytes" not in r.stderr:
        fails.append("rdsperf --sndbuf 16K -l 50000: not refused: %r" % r.stderr)
finally:
    clitest.stop(srv)



ag = subprocess.Popen(TOOLS["rds-conform agent"] + ["-I", AGENT, "--sndbuf", "1M", "--rcvbuf",
                                                     "1M", "--once"],
                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    if not connects(AGENT, 18600):
        fails.append("rds-conform agent -I %s: no side channel there" % AGENT)
finally:
    clitest.stop(ag)

for f in fails:
    print("FAIL: " + f)
print("shared-options: %s" % ("pass" if not fails else "%d failures" % len(fails)))
sys.exit(1 if fails else 0)
