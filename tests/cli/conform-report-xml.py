#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""conform-report-xml.py UNIT_CONFORM_REPORT - the JUnit report of results
full of hostile peer bytes is well-formed XML (python's expat parses it),
has one testcase per result with FAIL as <failure> and ERROR as <error>,
and gives back the texts in rds-conform's display form.

Exit: 0 all good; 1 a check failed.
"""
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HOSTILE_DISP = ("<a href=\"x\">&amp;</a> ]]> 'q' \\\\ # \\x01\\x08\\x09\\x0a\\x0d\\x1b[31m "
                "\\x7f\\xc2\\x85 \\x80 \\xc0\\xaf \\xed\\xa0\\x80 \\xef\\xbf\\xbe caf\u00e9 "
                "\\xe2\\x82")


def main():
    with tempfile.NamedTemporaryFile(suffix=".xml") as f:
        subprocess.run([sys.argv[1], f.name], check=True)
        raw = open(f.name, "rb").read()
    raw.decode("utf-8")  # strict: raises on invalid UTF-8
    root = ET.fromstring(raw)
    fails = []
    suite = root.find("testsuite")
    cases = suite.findall("testcase")
    if len(cases) != 6:
        fails.append("%d testcases, want 6" % len(cases))
    want = ["", "failure", "", "", "skipped", "error"]
    for i, c in enumerate(cases):
        if c.get("name") != "evil/<&>/1" or c.get("classname") != "evil/<&>":
            fails.append("case %d: name %r classname %r" % (i, c.get("name"), c.get("classname")))
        kids = [k.tag for k in c]
        if want[i] and want[i] not in kids:
            fails.append("case %d: no <%s> in %r" % (i, want[i], kids))
        if i in (1, 5) and len(kids) != 1:
            fails.append("case %d: children %r" % (i, kids))
    fail = cases[1].find("failure")
    if fail.get("message") != HOSTILE_DISP:
        fails.append("failure message %r" % fail.get("message"))
    if "reason: " + HOSTILE_DISP not in fail.text:
        fails.append("failure text %r" % fail.text)
    if cases[4].find("skipped").get("message") != HOSTILE_DISP:
        fails.append("skipped message")
    props = {p.get("name"): p.get("value") for p in suite.find("properties")}
    if props.get("peer_stack") != HOSTILE_DISP:
        fails.append("peer_stack %r" % props.get("peer_stack"))
    if suite.get("failures") != "1" or suite.get("errors") != "1" or suite.get("skipped") != "1":
        fails.append("suite counts %r" % suite.attrib)
    for m in fails:
        print("FAIL:", m)
    if not fails:
        print("conform report xml: all passed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
