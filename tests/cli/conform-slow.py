#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""A slow peer gets the verdicts of a fast one (issue 20).

    conform-slow.py RDS_CONFORM FAULT...

The whole catalogue, without --timeout (so rds-conform scales its waits to
the peer), first against a clean librds agent, then against one slowed by
each FAULT (answer-delay-1s, answer-delay-3s: every pong and probe pong
held that long). Every case must get the same verdict, exit 0 each time,
and the slowed run must say its waits grew. The run times are printed.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

from clitest import start_agent, stop

PEER, LOCAL, LARGER = "127.0.12.2", "127.0.12.1", "127.0.12.3"
CTL = PEER + ":18602"


def run(tool, faults, tmp, name):
    log = open(os.path.join(tmp, "agent-%s.log" % name), "w+")
    a = start_agent(tool, PEER, CTL, log, "--gen", "0x5eed", faults=faults)
    out = os.path.join(tmp, name + ".json")
    t0 = time.monotonic()
    try:
        p = subprocess.run([tool, "--peer", PEER, "--local", LOCAL, "--larger", LARGER,
                            "--agent", CTL, "--json", "-o", out], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=1200)
    finally:
        stop(a)
    secs = time.monotonic() - t0
    try:
        doc = json.load(open(out))
    except (OSError, ValueError):
        doc = None
    return p.returncode, doc, p.stderr, secs


def main():
    tool, faults = sys.argv[1], sys.argv[2:]
    fails = []
    with tempfile.TemporaryDirectory() as tmp:
        rc, doc, err, secs = run(tool, [], tmp, "clean")
        if doc is None or rc != 0:
            print("FAIL: clean run exit %d: %s" % (rc, err[-600:]))
            return 1
        clean = {c["id"]: c for c in doc["cases"]}
        print("clean librds: exit 0, %.1f s" % secs)
        for f in faults:
            rc, doc, err, secs = run(tool, [f], tmp, f)
            if doc is None:
                fails.append("%s: no report (exit %d): %s" % (f, rc, err[-600:]))
                continue
            if rc != 0:
                fails.append("%s: exit %d" % (f, rc))
            if "every wait is" not in err:
                fails.append("%s: the waits did not grow: %s" % (f, err[-300:]))
            for c in doc["cases"]:
                k = clean.get(c["id"])
                if k is None or c["verdict"] != k["verdict"]:
                    fails.append("%s: %s %s (clean: %s): %s / %s" % (
                        f, c["verdict"], c["id"], k and k["verdict"], c.get("actual"),
                        c.get("reason")))
            print("%s: exit %d, %.1f s, %s" % (f, rc, secs, " ".join(
                l for l in err.splitlines() if "every wait is" in l)))
    for f in fails:
        print("FAIL:", f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
