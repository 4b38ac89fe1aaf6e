#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""rdslayer.py COUNTFILE < tshark -T json --no-duplicate-keys output

Writes the rds layer of every packet as one compact JSON line (an array
when the packet holds several RDS messages), so the golden files stay
small and a difference shows as the packet it is in; writes the number of
RDS messages (rds.type "msg") to COUNTFILE, the figure compared with
rdsdump's.
"""
import json
import sys


def msgs(layer):
    """RDS messages in one rds layer object."""
    t = layer.get("rds.type")
    if isinstance(t, list):
        return sum(1 for v in t if v == "msg")
    return 1 if t == "msg" else 0


def main():
    packets = json.load(sys.stdin)
    n = 0
    out = sys.stdout
    for p in packets:
        rds = p["_source"]["layers"].get("rds")
        if rds is None:
            continue
        for layer in rds if isinstance(rds, list) else [rds]:
            n += msgs(layer)
        out.write(json.dumps(rds, separators=(",", ":")) + "\n")
    with open(sys.argv[1], "w", encoding="ascii") as f:
        f.write(f"{n}\n")


if __name__ == "__main__":
    main()
