#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""check-manpage.py BINARY MANPAGE - the options of BINARY --help and of the
man page's OPTIONS section must be the same set.

--help is argp's: option lines are indented ("  -c, --count=N   text",
"      --json   text"), their descriptions start in a later column and
continue on lines indented further. The man page is pandoc markdown (as in
rdma-core): OPTIONS is the "# OPTIONS" section, each option a definition
list term ("**-c**, **\\-\\-count**=*N*") followed by a ":" line. Only terms
count, so prose that mentions an option neither adds nor hides one.

Exit: 0 same set; 1 a difference, each option named on stderr; 2 usage,
BINARY could not run, or the page has no OPTIONS section.
"""
import re
import subprocess
import sys

# one option word: -c, -?, --count, --count=N, --kind[=LIST]
SHORT = re.compile(r"^-([^-\s=\[,])$")
LONG = re.compile(r"^--([A-Za-z0-9][A-Za-z0-9-]*)")


def names_of(spec):
    """Option names in an option spec such as "-c, --count=N"."""
    out = set()
    for word in re.split(r"[,\s]+", spec.strip()):
        word = re.sub(r"[=\[].*$", "", word)
        if SHORT.match(word):
            out.add(word)
        else:
            m = LONG.match(word)
            if m:
                out.add("--" + m.group(1))
    return out


def help_options(text):
    """Options of argp --help output."""
    out = set()
    for line in text.splitlines():
        # option lines start within the first columns; continuation lines
        # are indented to the description column (29 by default)
        m = re.match(r"^( {1,8})(-.*)$", line)
        if not m:
            continue
        # the spec ends where two spaces start the description
        spec = re.split(r"\s{2,}", m.group(2), maxsplit=1)[0]
        out |= names_of(spec)
    return out


def unmark(s):
    """Markdown emphasis and escapes off: **\\-\\-count**=*N* -> --count=N."""
    s = s.replace("\\", "")
    s = re.sub(r"[*_`]", "", s)
    return s


def page_options(text):
    """Options of the OPTIONS section's definition-list terms, or None."""
    lines = text.splitlines()
    start = None
    for i, line in enumerate(lines):
        if re.match(r"^#\s+OPTIONS\s*$", line):
            start = i + 1
            break
    if start is None:
        return None
    sec = []
    for line in lines[start:]:
        if re.match(r"^#\s", line):
            break
        sec.append(line)
    out = set()
    for i, line in enumerate(sec):
        if not line.strip() or line[0] in " \t:":
            continue
        nxt = next((l for l in sec[i + 1:] if l.strip()), "")
        if not nxt.startswith(":"):
            continue
        out |= names_of(unmark(line))
    return out


def main(argv):
    if len(argv) != 3:
        print("usage: check-manpage.py BINARY MANPAGE", file=sys.stderr)
        return 2
    binary, page = argv[1], argv[2]
    try:
        res = subprocess.run([binary, "--help"], capture_output=True, text=True,
                             timeout=30)
    except (OSError, subprocess.SubprocessError) as e:
        print(f"check-manpage: cannot run {binary} --help: {e}", file=sys.stderr)
        return 2
    if res.returncode != 0:
        print(f"check-manpage: {binary} --help exited {res.returncode}", file=sys.stderr)
        return 2
    have = help_options(res.stdout)
    if not have:
        print(f"check-manpage: no options found in {binary} --help", file=sys.stderr)
        return 2
    try:
        with open(page, encoding="utf-8") as f:
            documented = page_options(f.read())
    except OSError as e:
        print(f"check-manpage: {e}", file=sys.stderr)
        return 2
    if documented is None:
        print(f"check-manpage: {page} has no '# OPTIONS' section", file=sys.stderr)
        return 2

    def key(o):
        return (o.lstrip("-").lower(), o)

    rc = 0
    for o in sorted(have - documented, key=key):
        print(f"{page}: option {o} is in --help but not in OPTIONS", file=sys.stderr)
        rc = 1
    for o in sorted(documented - have, key=key):
        print(f"{page}: option {o} is in OPTIONS but not in --help", file=sys.stderr)
        rc = 1
    if rc == 0:
        print(f"check-manpage: {len(have)} options, all documented")
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
