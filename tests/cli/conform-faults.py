#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""rds-conform tested: against a clean librds every MUST passes, and each of
librds's seeded defects (rdsu_ep_cfg.faults) is caught.

    conform-faults.py RDS_CONFORM [--only FAULT]

The peer is `rds-conform agent` (a librds endpoint at 127.0.9.2 with the
side channel on 127.0.9.2:18600); the suite runs from 127.0.9.1 (smaller)
and 127.0.9.3 (larger). First the whole catalogue against the clean peer:
exit 0, no FAIL or ERROR, every case PASS, NON-STRICT, INFO (and no SKIP:
agent and larger address are both there). Then, for every fault the agent
lists, a new faulty peer and the cases that must catch it: each must FAIL
(exit 1), while the same cases passed against the clean peer. A fault
missing from the table below fails the test, so a new defect cannot go
unchecked. The handshake defects (a probe ping answered wrongly or not at
all) run the whole catalogue: the owner FAILs, the rest is judged as
against the clean peer but for what needs the probe pong (HANDSHAKE
below), no ERROR, and the run takes about as long as the clean one (the
times are printed).
"""
import json
import os
import subprocess
import sys
import tempfile
import time

from clitest import start_agent, stop

PEER, LOCAL, LARGER = "127.0.9.2", "127.0.9.1", "127.0.9.3"
CTL = PEER + ":18600"

# fault -> the case(s) that must report it as FAIL
CATCH = {
    "seq-zero": ["rds31/seq/1"],
    "seq-skip": ["rds31/seq/2"],
    "pong-wrong-port": ["rds31/ping/1"],
    "pong-payload": ["rds31/ping/2"],
    "ping-port0-answered": ["linux/ping/1"],
    "no-map": ["linux/cong/1"],
    "short-map": ["linux/cong/1"],
    "map-flags": ["linux/cong/1"],
    "probe-no-npaths": ["linux/probe/1"],
    "ack-sent": ["linux/tcp/1"],
    "retrans-no-flag": ["linux/retrans/1"],
    "dup-deliver": ["rds31/dup/1"],
    "accept-larger": ["linux/tcp/2"],
    "unknown-ext-reset": ["rds31/exthdr/2"],
    "huge-hlen-crash": ["linux/hostile/1"],
    "probe-no-pong": ["linux/probe/3"],
    "probe-pong-late": ["linux/probe/3"],
    "probe-pong-port0": ["linux/probe/3"],
    "probe-extra-ping": ["linux/probe/3"],
}

# Not defects: a slow peer gets the verdicts of a fast one (conform-slow.py).
SLOW = ["answer-delay-1s", "answer-delay-3s"]

# Over IB: the loopback here has no RDMA device; the lab catches these
# (tests/lab/conform_ib.py --faults names the case for each).
IB = ["ib-csum-bad", "ib-csum-ignored", "ib-no-ack", "ib-ack-zero", "ib-frag-mismatch",
      "ib-frag-accept", "ib-version", "ib-version-accept", "ib-ack-ignored"]

# Handshake defects: the whole catalogue runs against each. The owner
# (CATCH) FAILs; the cases that read the probe pong give their level's
# verdict for a missing one (or SKIP: nothing to read); the cases that
# need a second path SKIP, the session having stayed on one; every other
# case gets its verdict against the clean peer. Nothing is ERROR.
HANDSHAKE = ["probe-no-pong", "probe-pong-late", "probe-pong-port0", "probe-extra-ping"]
PROBE_READERS = {"rds31/mprds/1": "NON-STRICT", "linux/probe/1": "FAIL",
                 "rds31/mprds/2": "SKIP", "rds31/gen/1": "NON-STRICT",
                 "linux/probe/2": "INFO", "rds31/exthdr/1": "SKIP"}
MULTIPATH = ["linux/mprds/1", "linux/mprds/2", "linux/hostile/1", "linux/hostile/2",
             "linux/hostile/3", "linux/hostile/4"]


def suite(tool, prefixes, tmp, name):
    out = os.path.join(tmp, name + ".json")
    argv = [tool, "--peer", PEER, "--local", LOCAL, "--larger", LARGER, "--agent", CTL,
            "--timeout", "3000", "--json", "-q", "-o", out,
            "--pcap", os.path.join(tmp, "pcap-" + name)] + prefixes
    t0 = time.monotonic()
    rc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                        timeout=600)
    suite.secs = time.monotonic() - t0
    try:
        doc = json.load(open(out))
    except (OSError, ValueError):
        doc = None
    return rc.returncode, doc, rc.stderr


def verdicts(doc):
    return {c["id"]: c["verdict"] for c in doc["cases"]}


def judge_handshake(f, rc, doc, clean, fails):
    """The whole catalogue against handshake defect |f|."""
    v = verdicts(doc)
    by_id = {c["id"]: c for c in doc["cases"]}
    bad = []
    if rc != 1:
        bad.append("exit %d" % rc)
    for cid, x in v.items():
        c = by_id[cid]
        if x == "ERROR":
            bad.append("ERROR %s: %s" % (cid, c.get("reason")))
        elif cid in CATCH[f]:
            if x != "FAIL":
                bad.append("%s %s, not FAIL" % (x, cid))
        elif cid in PROBE_READERS:
            if x != PROBE_READERS[cid] or "no probe pong" not in (c.get("actual") or ""):
                bad.append("%s %s (want %s for no probe pong): %s" % (
                    x, cid, PROBE_READERS[cid], c.get("actual")))
        elif cid in MULTIPATH:
            if x != "SKIP" or "no probe pong" not in (c.get("reason") or ""):
                bad.append("%s %s (want SKIP, single path): %s" % (x, cid, c.get("reason")))
        elif clean is not None and cid in clean and x != clean[cid]:
            bad.append("%s %s, %s against the clean peer: %s / %s" % (
                x, cid, clean[cid], c.get("actual"), c.get("reason")))
    for b in bad:
        fails.append("%s: %s" % (f, b))
    return not bad


def main():
    tool = sys.argv[1]
    only = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--only" else None
    fails = []
    listed = subprocess.run([tool, "agent", "--fault", "list"], stdout=subprocess.PIPE,
                            text=True, check=True).stdout.split("\n")
    faults = [l.split()[0] for l in listed if l.strip()]
    missing = [f for f in faults if f not in CATCH and f not in SLOW and f not in IB]
    if missing:
        fails.append("no case is named to catch fault(s) %s" % ", ".join(missing))
    clean = None
    with tempfile.TemporaryDirectory() as tmp:
        # the clean peer: the whole catalogue (also what the handshake
        # defects' unrelated cases are held to)
        if not only or only in HANDSHAKE:
            log = open(os.path.join(tmp, "agent-clean.log"), "w+")
            a = start_agent(tool, PEER, CTL, log, "--gen", "0x5eed")
            try:
                rc, doc, err = suite(tool, [], tmp, "clean")
            finally:
                stop(a)
            if doc is None:
                fails.append("clean run: no report (rc %d): %s" % (rc, err[-400:]))
            else:
                v = clean = verdicts(doc)
                bad = {k: x for k, x in v.items() if x in ("FAIL", "ERROR", "SKIP")}
                if rc != 0 or bad:
                    for c in doc["cases"]:
                        if c["id"] in bad:
                            fails.append("clean run: %s %s: %s / %s" % (
                                c["verdict"], c["id"], c.get("actual"), c.get("reason")))
                    if rc != 0:
                        fails.append("clean run exit %d" % rc)
                print("clean librds: %d cases: %s, %.1f s" % (len(v), ", ".join(
                    "%s %d" % (k, n) for k, n in doc["counts"].items() if n), suite.secs))
        for f in faults:
            if only and f != only or f not in CATCH:
                continue
            log = open(os.path.join(tmp, "agent-%s.log" % f), "w+")
            a = start_agent(tool, PEER, CTL, log, "--gen", "0x5eed", faults=[f])
            try:
                rc, doc, err = suite(tool, [] if f in HANDSHAKE else CATCH[f], tmp, f)
            finally:
                stop(a)
            if doc is None:
                fails.append("%s: no report (rc %d): %s" % (f, rc, err[-400:]))
                continue
            if f in HANDSHAKE:
                if judge_handshake(f, rc, doc, clean, fails):
                    why = [c.get("actual") for c in doc["cases"] if c["id"] == CATCH[f][0]][0]
                    print("%-20s caught by %s: %s (whole catalogue, %s, %.1f s)" % (
                        f, CATCH[f][0], why, ", ".join(
                            "%s %d" % (k, n) for k, n in doc["counts"].items() if n),
                        suite.secs))
                continue
            v = verdicts(doc)
            caught = [c for c in CATCH[f] if v.get(c) == "FAIL"]
            if rc != 1 or not caught:
                fails.append("%s: not caught (exit %d): %s" % (f, rc, json.dumps(
                    [[c["id"], c["verdict"], c.get("actual")] for c in doc["cases"]])))
            else:
                why = [c.get("actual") for c in doc["cases"] if c["id"] == caught[0]][0]
                print("%-20s caught by %s: %s" % (f, caught[0], why))
    for f in fails:
        print("FAIL:", f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
