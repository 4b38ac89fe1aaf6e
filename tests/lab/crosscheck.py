#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Two independent readings of one real capture must agree: libwire (through
tests/support/capwalk) and rdscap.py. For RDS over RoCEv2: every ICRC
verifies, the CM messages and the RDS messages (kind, seq, ack, length,
flags) are the same, and every header checksum is valid.

    crosscheck.py CAPWALK FILE.pcap
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rdscap  # noqa: E402


def main():
    capwalk, pcap = sys.argv[1], sys.argv[2]
    p = subprocess.run([capwalk, pcap], capture_output=True, text=True)
    lines = p.stdout.splitlines()
    if p.returncode != 0:
        print(p.stdout + p.stderr)
        print("FAIL: libwire could not decode every RoCE packet of %s" % pcap)
        return 1
    a = rdscap.analyse(pcap)
    wire_cm = [l.split()[1] for l in lines if l.startswith("cm ")]
    py_cm = [m["msg"] for m in a["ib_cm"]]
    wire_msgs = []
    for l in lines:
        if l.startswith("ibmsg "):
            f = l.split()
            wire_msgs.append((f[1], f[2], f[3], int(f[5]), int(f[7]), int(f[9]),
                              int(f[11], 16)))
            if f[13] != "1":
                print("FAIL: header checksum not valid: %s" % l)
                return 1
    py_msgs = [(m["src"], m["dst"], m["kind"], m["seq"], m["ack"], m["len"], m["flags"])
               for m in a["ib_messages"]]
    if wire_cm != py_cm:
        print("FAIL: CM messages differ\n libwire: %s\n rdscap:  %s" % (wire_cm, py_cm))
        return 1
    if wire_msgs != py_msgs:
        for i, (w, q) in enumerate(zip(wire_msgs, py_msgs)):
            if w != q:
                print("first difference at message %d:\n libwire %s\n rdscap  %s" % (i, w, q))
                break
        print("FAIL: %d messages by libwire, %d by rdscap" % (len(wire_msgs), len(py_msgs)))
        return 1
    print("%s: %s; %d CM, %d RDS messages agree" % (pcap, lines[-1], len(wire_cm),
                                                    len(wire_msgs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
