#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""rds-conform's driver from the outside, against a librds agent on
127.0.10.2 (suite from 127.0.10.1, larger 127.0.10.3):

  * selection by ID prefix, --list with a prefix, an unknown prefix (exit 2)
  * --strict turns NON-STRICT into FAIL (exit 1) and says why
  * TAP 13, JUnit XML (parsed) and JSON reports of the same run
  * --pcap writes a capture per case that rdsdump reads back as RDS
  * without --agent and --larger the cases that need them are SKIP
  * the suite cannot run: no peer listening, no agent (exit 2); bad options

    conform-run.py RDS_CONFORM RDSDUMP
"""
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

from clitest import check, done, start_agent, stop

PEER, LOCAL, LARGER, CTL = "127.0.10.2", "127.0.10.1", "127.0.10.3", "127.0.10.2:18601"
tool, rdsdump = sys.argv[1], sys.argv[2]


def run(*args, timeout=300):
    return subprocess.run([tool] + list(args), capture_output=True, text=True, timeout=timeout)


def suite(*args):
    return run("--peer", PEER, "--local", LOCAL, "--timeout", "3000", *args)


# options and the catalogue need no peer
r = run("--list", "rds31/ping")
check(r.returncode == 0 and [l.split()[0] for l in r.stdout.splitlines()] ==
      ["rds31/ping/1", "rds31/ping/2"], "--list rds31/ping: %r" % r.stdout)
r = run("--list", "--format", "json", "linux/hostile")
check(r.returncode == 0 and len(json.loads(r.stdout)) == 4, "--list --format json")
for bad in (["--peer", PEER, "nosuch/case"], ["--peer", "not-an-address"],
            ["--peer", PEER, "--format", "xml"], ["--peer", PEER, "--timeout", "0"],
            ["--peer", PEER, "--local", "127.0.10.9"], ["--peer", PEER, "--larger", "127.0.0.1"],
            []):
    r = run(*bad)
    check(r.returncode == 2 and r.stderr.strip(), "bad options %r: exit %d %r" %
          (bad, r.returncode, r.stderr[-200:]))

# nobody listening: the suite cannot run
r = suite("rds31/ping/1")
check(r.returncode == 2 and "cannot connect" in r.stderr, "no peer: exit %d %r" %
      (r.returncode, r.stderr[-200:]))
# ... and a report asked for still comes, each case ERROR with the reason
# (it was an empty file)
r = suite("--format", "junit", "rds31/ping")
check(r.returncode == 2 and r.stdout.count("<error") == 2 and "could not start" in r.stdout,
      "no peer, JUnit: exit %d %r" % (r.returncode, r.stdout[-300:]))

with tempfile.TemporaryDirectory() as tmp:
    log = open(os.path.join(tmp, "agent.log"), "w+")
    agent = start_agent(tool, PEER, CTL, log)
    try:
        r = suite("--agent", "127.0.10.2:18699", "rds31/ping/1")
        check(r.returncode == 2 and "agent" in r.stderr, "no agent: exit %d" % r.returncode)

        # prefix selection, text report
        r = suite("rds31/ping", "linux/ping")
        lines = [l for l in r.stdout.splitlines() if l.startswith("PASS")]
        check(r.returncode == 0 and len(lines) == 3, "rds31/ping linux/ping: %r" % r.stdout)

        # --strict
        r = suite("--json", "rds31/ack/1")
        doc = json.loads(r.stdout)
        check(r.returncode == 0 and doc["cases"][0]["verdict"] == "NON-STRICT",
              "rds31/ack/1 is NON-STRICT on TCP")
        r = suite("--json", "--strict", "rds31/ack/1")
        doc = json.loads(r.stdout)
        c = doc["cases"][0]
        check(r.returncode == 1 and c["verdict"] == "FAIL" and
              c["reason"].startswith("--strict:"), "--strict: %r" % c)

        # the agent- and larger-address cases skip without them
        r = suite("--json", "rds31/dup/1", "linux/tcp/2")
        v = {c["id"]: (c["verdict"], c["reason"]) for c in json.loads(r.stdout)["cases"]}
        check(r.returncode == 0 and v["rds31/dup/1"][0] == "SKIP" and
              "--agent" in v["rds31/dup/1"][1] and v["linux/tcp/2"][0] == "SKIP",
              "SKIP without agent/larger: %r" % v)

        # one run, three reports, and captures
        sel = ["--larger", LARGER, "--agent", CTL, "rds31/seq/4", "linux/tcp/2", "rds31/dup/1"]
        pc = os.path.join(tmp, "pcap")
        r = suite("--format", "tap", "--pcap", pc, *sel)
        check(r.returncode == 0 and r.stdout.startswith("TAP version 13\n1..3\n") and
              r.stdout.count("\nok ") == 3, "TAP: %r" % r.stdout[:300])
        r = suite("--format", "junit", "-o", os.path.join(tmp, "j.xml"), *sel)
        root = ET.parse(os.path.join(tmp, "j.xml")).getroot()
        cases = root.iter("testcase")
        check(r.returncode == 0 and len(list(cases)) == 3 and
              not list(root.iter("failure")), "JUnit")
        caps = sorted(os.listdir(pc))
        check(caps == ["linux_tcp_2.pcap", "rds31_dup_1.pcap", "rds31_seq_4.pcap"],
              "--pcap files: %r" % caps)
        d = subprocess.run([rdsdump, "-r", os.path.join(pc, "rds31_dup_1.pcap"), "-t"],
                           capture_output=True, text=True)
        check(d.returncode == 0 and "cong seq 0 len 8192" in d.stdout and
              "probe-pong" in d.stdout and "[RETRANSMITTED] dup" in d.stdout,
              "rdsdump of the dup case: %r" % d.stdout[:600])
    finally:
        stop(agent)
    check(agent.returncode == 0, "agent exit %s: %s" % (agent.returncode,
                                                       open(log.name).read()[-500:]))
done()
