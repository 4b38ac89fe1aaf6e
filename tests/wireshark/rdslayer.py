#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""rdslayer.py TSHARK_JSON RDSDUMP_JSON COUNTS

TSHARK_JSON is `tshark -T json --no-duplicate-keys` with the plugin,
RDSDUMP_JSON `rdsdump --json` on the same capture. Writes the rds layer of
every packet as one compact JSON line (an array when the packet holds
several RDS messages) on stdout, the golden form: small, and a difference
shows as the packet it is in.

Then holds the two decoders to each other: the RDS messages (rds.type
"msg") must number what rdsdump finds, or the pair COUNTS gives
("rdsdump=N,ws=M") where they differ by design; and where the counts are
the same, the RDS/TCP messages must be the same messages: kind, sequence,
length, ports, flags and what their congestion maps changed. Exit 1 and
say why on stderr otherwise. COUNTS "none" only writes the layers.
"""
import json
import sys


def layers(packets):
    for p in packets:
        rds = p["_source"]["layers"].get("rds")
        if rds is not None:
            yield rds


def ws_tuple(m):
    cong = m.get("rds.cong", {})
    return (m.get("rds.kind"), int(m["rds.seq"]), int(m["rds.len"]),
            int(m["rds.rds_sport"]), int(m["rds.rds_dport"]), int(m["rds.flags"], 16),
            cong.get("rds.cong.nchanges"))


def rd_tuple(m):
    cong = m.get("cong") or {}
    n = cong.get("nchanges")
    return (m["kind"], m["seq"], m["len"], m["rds_sport"], m["rds_dport"], m["flags"],
            None if n is None else str(n))


def tally(records, prefix, key):
    """How many of |records| (their keys after |prefix|) are RDS messages,
    and |key| of each of those over TCP."""
    n, tcp = 0, []
    for m in records:
        if m.get(prefix + "type") != "msg":
            continue
        n += 1
        if m.get(prefix + "xport") == "tcp":
            tcp.append(key(m))
    return n, tcp


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        packets = json.load(f)
    counts = sys.argv[3]
    ws_msgs = []
    for rds in layers(packets):
        sys.stdout.write(json.dumps(rds, separators=(",", ":")) + "\n")
        ws_msgs += rds if isinstance(rds, list) else [rds]
    ws_n, ws_tcp = tally(ws_msgs, "rds.", ws_tuple)
    with open(sys.argv[2], encoding="utf-8") as f:
        rd_n, rd_tcp = tally((json.loads(line) for line in f), "", rd_tuple)
    bad = 0
    if counts == "none":
        pass
    elif counts == "same":
        if ws_n != rd_n:
            print(f"messages: rdsdump {rd_n}, wireshark {ws_n}", file=sys.stderr)
            bad = 1
        elif sorted(ws_tcp) != sorted(rd_tcp):
            only_ws = sorted(set(ws_tcp) - set(rd_tcp))[:5]
            only_rd = sorted(set(rd_tcp) - set(ws_tcp))[:5]
            print(f"RDS/TCP messages differ: wireshark only {only_ws}, rdsdump only {only_rd}",
                  file=sys.stderr)
            bad = 1
    elif counts != f"rdsdump={rd_n},ws={ws_n}":
        print(f"messages: rdsdump {rd_n}, wireshark {ws_n}; TESTLIST says {counts}",
              file=sys.stderr)
        bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main())
