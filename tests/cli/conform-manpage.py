#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""conform-manpage.py RDS_CONFORM MANPAGE - docs/man/rds-conform.1.md is
the program's, not a second copy: the CASES section's catalogue is exactly
what `rds-conform --list --format markdown` prints (so the page is
regenerated, never edited, when a case changes), and the AGENT subsection
documents exactly the options of `rds-conform agent --help`. (The OPTIONS
section is checked by check-manpage.py, the CRAFT subsection by
conform-craft-cli.py.)

Exit: 0 all agree; 1 a difference, shown.
"""
import difflib
import re
import subprocess
import sys

tool, page_path = sys.argv[1], sys.argv[2]
page = open(page_path, encoding="utf-8").read()
fails = []

m = re.search(r"^<!-- catalogue:[^\n]*-->\n(.*?)^<!-- end of catalogue -->$", page, re.M | re.S)
gen = subprocess.run([tool, "--list", "--format", "markdown"], capture_output=True, text=True,
                     check=True).stdout
if not m:
    fails.append("no catalogue markers in the CASES section")
elif m.group(1) != gen:
    fails.append("the catalogue differs from --list --format markdown "
                 "(regenerate it):\n" + "".join(difflib.unified_diff(
                     m.group(1).splitlines(True), gen.splitlines(True), "page", "program")))
ids = re.findall(r"^\| `([^`]+)` \|", gen, re.M)
listed = subprocess.run([tool, "--list"], capture_output=True, text=True, check=True).stdout
if [l.split()[0] for l in listed.splitlines()] != ids:
    fails.append("--list and --list --format markdown name different cases")
if len(set(ids)) != len(ids):
    fails.append("a case ID appears twice")

helped = subprocess.run([tool, "agent", "--help"], capture_output=True, text=True).stdout
hopts = set(re.findall(r"^ {1,8}(?:-., )?--([a-z][a-z-]*)", helped, re.M))
a = re.search(r"^## AGENT\n(.*?)(?=^#{1,2} )", page, re.M | re.S)
terms = set()
if a:
    for t in re.findall(r"^(\*\*.*)\n:   ", a.group(1), re.M):
        terms |= set(re.findall(r"\\-\\-([a-z][a-z-]*)", t))
# argp's own options are documented once, in OPTIONS
hopts -= {"help", "usage", "version"}
if not a or hopts != terms:
    fails.append("AGENT subsection: missing %s, extra %s" %
                 (sorted(hopts - terms), sorted(terms - hopts)))
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
