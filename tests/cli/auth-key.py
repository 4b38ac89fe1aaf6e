#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""auth-key.py RDSPING RDS-CONFORM - --auth-key (tools/common/rio_opt.c):
an rds-conform agent with a TCP-MD5 key answers rdsping's pings with the
same key, and not those with another key or none; the option's errors.
Addresses 127.0.23.1 (the agent), .2, .3, .4 (the pingers).

Exit: 0 passed, 1 failed, 2 usage.
"""
import os
import subprocess
import sys
import tempfile
import time

AGENT = "127.0.23.1"


def fail(what):
    print(f"auth-key: FAIL: {what}", file=sys.stderr)
    sys.exit(1)


def ping(rdsping, src, *key):
    r = subprocess.run([rdsping, "-c", "3", "-W", "2", "-I", src, *key, AGENT],
                       capture_output=True, text=True, timeout=60)
    return r.returncode, r.stdout + r.stderr


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    rdsping, conform = sys.argv[1:]
    with tempfile.TemporaryDirectory() as d:
        key, other = os.path.join(d, "key"), os.path.join(d, "other")
        with open(key, "w") as f:
            f.write("cluster secret\n")
        with open(other, "w") as f:
            f.write("another secret")
        agent = subprocess.Popen([conform, "agent", "--bind", AGENT, "--ctl", f"{AGENT}:18623",
                                  "--auth-key", f"md5:{key}"],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            line = agent.stdout.readline()
            if "ready" not in line:
                fail(f"agent did not start: {line.strip()}")
            rc, out = ping(rdsping, "127.0.23.2", "--auth-key", f"md5:{key}")
            if rc != 0 or "3 received" not in out:
                fail(f"same key: {out.strip()}")
            rc, out = ping(rdsping, "127.0.23.3", "--auth-key", f"md5:{other}")
            if "0 received" not in out:
                fail(f"another key was answered: {out.strip()}")
            rc, out = ping(rdsping, "127.0.23.4")
            if "0 received" not in out:
                fail(f"no key was answered: {out.strip()}")
        finally:
            agent.kill()
            agent.wait(10)
        for args, text in ((["--auth-key", f"xx:{key}"], "ao:FILE or md5:FILE"),
                           (["--auth-key", f"md5:{d}/none"], "No such file"),
                           (["--auth-key", f"md5:{key}", "--kernel"], "not --kernel")):
            r = subprocess.run([rdsping, *args, AGENT], capture_output=True, text=True, timeout=30)
            if r.returncode == 0 or text not in r.stderr:
                fail(f"{args}: rc {r.returncode}, {r.stderr.strip()}")
    print("auth-key: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
