#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""fields.py FIELDS GOLDEN... - the plugin's fields against rdsdump's JSON.

FIELDS is `tshark -G fields` with the plugin loaded; GOLDEN are rdsdump's
--json golden files (tests/golden/expected/*.json). Every key path of a
"msg" or "cm" record there (nested objects and arrays of objects as
parent.key) must be the field rds.<path>, every key of an "rdma" record
that the records share no other way the field rds.rdma.<key> (those of
a "bad" record, which every record has, are rds.<key>), and the flag bits
must have their fields rds.flags.<name>: the plugin registers its fields by walking
rdsdump's field tables, and this holds the two to each other from the
outside.
"""
import json
import sys


def paths(obj, prefix, out):
    for k, v in obj.items():
        p = prefix + k
        out.add(p)
        if isinstance(v, dict):
            paths(v, p + ".", out)
        elif isinstance(v, list):
            for e in v:
                if isinstance(e, dict):
                    paths(e, p + ".", out)


def main():
    ws = set()
    with open(sys.argv[1], encoding="utf-8") as f:
        for line in f:
            col = line.rstrip("\n").split("\t")
            if len(col) > 2 and col[0] == "F" and col[2].startswith("rds."):
                ws.add(col[2][4:])
    seen, common, rdma = set(), set(), set()
    for g in sys.argv[2:]:
        with open(g, encoding="utf-8") as f:
            for line in f:
                if not line.startswith("{"):
                    continue
                rec = json.loads(line)
                if rec.get("type") in ("msg", "cm"):
                    paths(rec, "", seen)
                elif rec.get("type") == "bad":
                    common |= set(rec)
                elif rec.get("type") == "rdma":
                    rdma |= set(rec)
    if not rdma:
        print("no rdma record in the golden files")
        return 1
    seen |= {"rdma." + k for k in rdma - common}
    bad = 0
    for p in sorted(seen - ws):
        print(f"rdsdump key {p} is no Wireshark field rds.{p}")
        bad = 1
    flags = {p for p in ws if p.startswith("flags.")}
    if not flags:
        print("no flag bit fields rds.flags.<name>")
        bad = 1
    print(f"{len(seen)} rdsdump keys, {len(ws)} rds.* fields ({len(flags)} flag bits)")
    return bad


if __name__ == "__main__":
    sys.exit(main())
