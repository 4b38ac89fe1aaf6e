#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""conform-ipv6.py RDS_CONFORM RDSDUMP - the whole suite over IPv6.

RDS/TCP runs over IPv6 since Linux 4.19, and every case of the catalogue
makes sense there. In a network namespace of its own (so root), with
fd00::1 (the suite), fd00::2 (a librds agent) and fd00::3 (the larger
address) on its loopback, the suite runs once over IPv6 and once over
IPv4 (127.0.0.1/2/3) against the same kind of agent: both must run every
case (no SKIP, no ERROR), exit 0, and give each case the same verdict.
The captures of the IPv6 run open in rdsdump with the IPv6 addresses.
Exit 0 pass, 1 fail, 77 skipped (not root, no namespaces).
"""
import json
import os
import subprocess
import sys
import tempfile

import clitest
from clitest import check, done, start_agent, stop

tool, rdsdump = sys.argv[1], sys.argv[2]

if os.environ.get("CONFORM_IPV6_NS") != "1":
    if os.geteuid() != 0:
        print("SKIP: needs root for a network namespace")
        sys.exit(77)
    env = dict(os.environ, CONFORM_IPV6_NS="1")
    try:
        sys.exit(subprocess.run(["unshare", "-n", sys.executable] + sys.argv, env=env)
                 .returncode)
    except OSError as e:
        print("SKIP: unshare: %s" % e)
        sys.exit(77)



def sh(*cmd):
    subprocess.run(cmd, check=True)


sh("ip", "link", "set", "lo", "up")
for a in ("fd00::1", "fd00::2", "fd00::3"):
    sh("ip", "-6", "addr", "add", a + "/128", "dev", "lo", "nodad")


def suite(tmp, fam, peer, local, larger, ctl):
    log = open(os.path.join(tmp, "agent-%s.log" % fam), "w+")
    agent = start_agent(tool, peer, ctl, log, "--once")
    try:
        pc = os.path.join(tmp, "pcap-" + fam)
        r = subprocess.run([tool, "--peer", peer, "--local", local, "--larger", larger,
                            "--agent", ctl, "--timeout", "3000", "--json", "--pcap", pc],
                           capture_output=True, text=True, timeout=600)
    finally:
        stop(agent)
    check(r.returncode == 0, "%s: exit %d %s" % (fam, r.returncode, r.stderr[-400:]))
    try:
        doc = json.loads(r.stdout)
    except ValueError:
        check(False, "%s: no JSON report: %r" % (fam, r.stdout[-300:]))
        return {}, pc
    want = "[%s]:16385" % peer if ":" in peer else "%s:16385" % peer
    check(doc["meta"]["peer"] == want, "%s: peer %r, not %r" % (fam, doc["meta"]["peer"], want))
    v = {c["id"]: c["verdict"] for c in doc["cases"]}
    bad = {k: x for k, x in v.items() if x in ("SKIP", "ERROR", "FAIL")}
    check(not bad, "%s: %r" % (fam, bad))
    return v, pc


with tempfile.TemporaryDirectory() as tmp:
    v6, pc6 = suite(tmp, "ipv6", "fd00::2", "fd00::1", "fd00::3", "[fd00::2]:18601")
    v4, _ = suite(tmp, "ipv4", "127.0.0.2", "127.0.0.1", "127.0.0.3", "127.0.0.2:18601")
    check(len(v6) >= 40, "ipv6: %d cases" % len(v6))
    diff = {k: (v4.get(k), v6.get(k)) for k in set(v4) | set(v6) if v4.get(k) != v6.get(k)}
    check(not diff, "verdicts differ, (ipv4, ipv6): %r" % diff)
    cap = os.path.join(pc6, "rds31_dup_1.pcap")
    d = subprocess.run([rdsdump, "-r", cap, "-n"], capture_output=True, text=True) \
        if os.path.exists(cap) else None
    check(d is not None and d.returncode == 0 and "fd00::1" in d.stdout and
          "fd00::2" in d.stdout and "probe-pong" in d.stdout,
          "rdsdump of an IPv6 case: %r" % ((d.stdout[-400:] + d.stderr[-200:]) if d else cap))

print("%d failures" % len(clitest.FAILS))
done()
