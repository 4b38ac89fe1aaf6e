#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""tshark-rdma.py TSHARK_RDS_SH PLUGINDIR RDSDUMP CAPTURE EXPECTED - the plugin's
RDMA on a RoCE capture: tshark -2 (what Wireshark shows once it has read
the file) gives, per frame, the RDMA or atomic that ends there (rds.rdma.*,
and the message that carried it, rds.rdma.msg_frame; for a READ RESPONSE
its READ REQUEST, rds.rdma.request_frame) and the RDS messages that
carried some (rds.rdma_ops, rds.rdma_bytes, rds.rdma_frame). The lines
must equal EXPECTED (UPDATE_GOLDEN=1 rewrites it), and agree with rdsdump
--json on the same file: the same operations in the same frames, the same
counts on the same messages, every request claimed by a message that
names its r_key in an RDMA extension header and comes after it, each
message's operations those that link to it. Exit 0 pass, 1 fail, 77
without tshark.
"""
import json
import os
import subprocess
import sys
import tempfile

FIELDS = ["frame.number", "rds.rdma.op", "rds.rdma.rkey", "rds.rdma.va", "rds.rdma.len",
          "rds.rdma.bytes", "rds.rdma.packets", "rds.rdma.msg_frame",
          "rds.rdma.request_frame", "rds.rdma_ops", "rds.rdma_bytes", "rds.rdma_unmatched",
          "rds.rdma_frame"]


def main():
    tshark_sh, plugdir, rdsdump, cap, expected = sys.argv[1:6]
    with tempfile.TemporaryDirectory() as tmp:
        argv = ["sh", tshark_sh, plugdir, tmp, "-2", "-n", "-r", cap, "-Y",
                'rds.type == "rdma" || rds.rdma_ops', "-T", "fields", "-E", "separator=|"]
        for f in FIELDS:
            argv += ["-e", f]
        p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode == 77:
        print(p.stdout + p.stderr)
        return 77
    if p.returncode != 0 or not p.stdout.strip():
        print("tshark failed (%d): %s" % (p.returncode, p.stderr.strip()[:400]))
        return 1
    text = p.stdout
    if os.environ.get("UPDATE_GOLDEN") == "1":
        with open(expected, "w", encoding="utf-8") as f:
            f.write(text)
        print("updated", expected)
    fails = []
    with open(expected, encoding="utf-8") as f:
        if f.read() != text:
            fails.append("tshark's RDMA fields differ from %s (UPDATE_GOLDEN=1 to accept)"
                         % expected)
    ops, msgs = {}, {}
    for line in text.splitlines():
        v = dict(zip(FIELDS, line.split("|")))
        fr = int(v["frame.number"])
        if v["rds.rdma.op"]:
            ops[fr] = v
        if v["rds.rdma_ops"]:
            msgs[fr] = v
    out = subprocess.run([rdsdump, "-n", "-r", cap, "--json"], capture_output=True,
                         text=True, env=dict(os.environ, TZ="UTC")).stdout
    recs = [json.loads(x) for x in out.splitlines() if x.strip()]
    rd_ops = {r["frame"]: r for r in recs if r.get("type") == "rdma"}
    rd_msgs = {r["frame"]: r for r in recs if r.get("type") == "msg" and
               (r.get("rdma_ops") or r.get("rdma_unmatched"))}
    if sorted(rd_ops) != sorted(ops):
        fails.append("RDMA operations in frames %s (tshark) and %s (rdsdump)"
                     % (sorted(set(ops) - set(rd_ops)), sorted(set(rd_ops) - set(ops))))
    for fr in set(ops) & set(rd_ops):
        a, b = ops[fr], rd_ops[fr]
        if a["rds.rdma.op"] != b["op"] or int(a["rds.rdma.bytes"]) != b["bytes"] or \
                int(a["rds.rdma.packets"]) != b["packets"] or \
                (a["rds.rdma.rkey"] and int(a["rds.rdma.rkey"], 16) != b.get("rkey")):
            fails.append("frame %d: tshark %s, rdsdump %s" % (fr, a, b))
    if sorted(rd_msgs) != sorted(msgs):
        fails.append("messages with RDMA in frames %s (tshark) and %s (rdsdump)"
                     % (sorted(msgs), sorted(rd_msgs)))
    for fr in set(msgs) & set(rd_msgs):
        a, b = msgs[fr], rd_msgs[fr]
        if int(a["rds.rdma_ops"]) != b["rdma_ops"] or int(a["rds.rdma_bytes"]) != b["rdma_bytes"]:
            fails.append("message in frame %d: tshark %s, rdsdump %s" % (fr, a, b))
        links = [int(x) for x in a["rds.rdma_frame"].split(",") if x]
        if len(links) != b["rdma_ops"]:
            fails.append("message in frame %d links %d operations, rdsdump counts %d"
                         % (fr, len(links), b["rdma_ops"]))
        rkeys = {e["rkey"] for e in b.get("ext") or [] if e.get("name") == "RDMA"}
        for o in links:
            op = ops.get(o)
            if not op or int(op["rds.rdma.msg_frame"] or 0) != fr or o >= fr or \
                    int(op["rds.rdma.rkey"], 16) not in rkeys:
                fails.append("message in frame %d: operation in frame %d does not link back, "
                             "comes later or has another r_key" % (fr, o))
    for fr, v in ops.items():
        if v["rds.rdma.op"] == "read_response":
            req = ops.get(int(v["rds.rdma.request_frame"] or 0))
            if not req or req["rds.rdma.op"] != "read":
                fails.append("READ RESPONSE in frame %d: no READ REQUEST linked" % fr)
    claimed = sum(1 for v in ops.values() if v["rds.rdma.msg_frame"])
    if claimed != sum(b["rdma_ops"] for b in rd_msgs.values()):
        fails.append("%d operations linked to a message, rdsdump's messages claim %d"
                     % (claimed, sum(b["rdma_ops"] for b in rd_msgs.values())))
    print("%d RDMA operations, %d linked to their messages, %d messages with RDMA"
          % (len(ops), claimed, len(msgs)))
    for f in fails[:20]:
        print("FAIL:", f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
