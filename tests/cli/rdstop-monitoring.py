#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""rdstop-monitoring.py RDSTOP DIR - the Grafana dashboard and the alerting
rules in DIR (tools/rdstop/monitoring) name only metrics the exporter has:
every afrds_* name in a dashboard query or a rule expression is in
`rdstop --metrics` (the metric table of prom.c). The dashboard is JSON
with a query in every panel. The check is tried on a name that does not
exist first, so it can fail."""
import json
import os
import re
import subprocess
import sys

top, d = sys.argv[1], sys.argv[2]
out = subprocess.run([top, "--metrics"], capture_output=True, text=True, check=True).stdout
known = set()
for line in out.splitlines():
    name = line.split("\t")[0]
    if not re.fullmatch(r"afrds_[a-z0-9_]+", name):
        print("FAIL: --metrics line %r" % line)
        sys.exit(1)
    known.add(name)
if len(known) < 40:
    print("FAIL: --metrics lists %d metrics" % len(known))
    sys.exit(1)

NAME = re.compile(r"\bafrds_[a-z0-9_]+")


def unknown(text):
    return sorted(set(NAME.findall(text)) - known)


if unknown('rate(afrds_no_such_metric_total[5m]) + afrds_up') != ["afrds_no_such_metric_total"]:
    print("FAIL: the check does not catch an unknown name")
    sys.exit(1)

fail = 0
dash = json.load(open(os.path.join(d, "afrds-dashboard.json")))
exprs = []
for p in dash["panels"]:
    t = [x["expr"] for x in p.get("targets", []) if x.get("expr")]
    if not t:
        print("FAIL: panel %r has no query" % p.get("title"))
        fail = 1
    exprs += t
for v in dash.get("templating", {}).get("list", []):
    q = v.get("query")
    exprs.append(q.get("query", "") if isinstance(q, dict) else str(q or ""))
for e in exprs:
    if not NAME.search(e) and "afrds_" not in e:
        continue
    for n in unknown(e):
        print("FAIL: the dashboard names %s, which the exporter does not have (%s)" % (n, e))
        fail = 1
rules = open(os.path.join(d, "afrds.rules.yml")).read()
for n in unknown("\n".join(l for l in rules.splitlines() if "expr:" in l)):
    print("FAIL: the rules name %s, which the exporter does not have" % n)
    fail = 1
if not fail:
    print("rdstop-monitoring: %d queries, every name known" % len(exprs))
sys.exit(fail)
