#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""lint-jsonwriter.py [SRCDIR] - one JSON writer: tools/common/out.c.

docs/architecture.md ("One JSON writer") measured out.c against json-c and
chose out.c for every JSON a tool writes; json-c stays as a parser only.
This fails when a C file under tools/, shim/ or plugins/ serialises JSON
with json-c (json_object_to_json_string*), or writes a JSON object with a
printf-style format string, outside the files still listed in KNOWN
(each is the plan's next step); and when a listed file no longer does, so
the list only shrinks.

Exit: 0 clean; 1 with one line per finding.
"""
import os
import re
import sys

DIRS = ("tools", "shim", "plugins")
# Files that still write JSON with json-c; move them to out.c (out_take(),
# as tools/rds-conform/agent.c and tools/rdsperf/ctl.c do) and take them
# off. None is left.
KNOWN = set()
JSONC = re.compile(r"\bjson_object_to_json_string(?:_ext|_length)?\s*\(")
# printf("{\"key\":..." : a JSON object spelt in a format string
PRINTF = re.compile(r"\b(?:f|s|sn|as|d|v|vf|vs|vsn)?printf\s*\([^;]*\"\{\\\"")


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    writers = {}
    for d in DIRS:
        for base, dirs, names in os.walk(os.path.join(root, d)):
            for nm in names:
                if not nm.endswith((".c", ".h")):
                    continue
                p = os.path.join(base, nm)
                rel = os.path.relpath(p, root)
                text = open(p, encoding="utf-8", errors="replace").read()
                for n, line in enumerate(text.splitlines(), 1):
                    if JSONC.search(line) or PRINTF.search(line):
                        writers.setdefault(rel, []).append(n)
    bad = []
    for f, lines in sorted(writers.items()):
        if f not in KNOWN:
            bad.append("%s:%d: writes JSON outside tools/common/out.c (use out_*(), out_take())"
                       % (f, lines[0]))
    for f in sorted(KNOWN):
        if f not in writers:
            bad.append("%s: listed in KNOWN but writes no JSON itself now: take it off" % f)
    for b in bad:
        print(b)
    print("lint-jsonwriter: %d files write JSON outside out.c, %d of them listed"
          % (len(writers), sum(1 for f in writers if f in KNOWN)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
