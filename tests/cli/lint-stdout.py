#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""lint-stdout.py [SRCDIR] - the tools print their results only through
the output layer, tools/common/out.c.

A tool's records, tables and sentences go through struct out (out_*(),
out_printf() for free text), so that -j, -q and -v mean the same in every
tool and text and JSON come from one place. This fails on a C file under
tools/ (out.c aside) that writes to stdout past it:
  * printf, vprintf, puts, putchar;
  * fprintf, vfprintf, fputs, fputc, putc, fwrite with stdout as the
    stream;
  * json-c's writers (json_object_to_json_string*): json-c only parses.
Diagnostics on stderr are fine, as is writing to a file the user named.
Comments and string literals are not read (a man page quoting printf is
no call).

Exit: 0 clean; 1 with one line per finding.
"""
import importlib.util
import os
import re
import sys

DIRS = ("tools",)
ALLOWED = {"tools/common/out.c"}
BARE = re.compile(r"\b(printf|vprintf|puts|putchar)\s*\(")
STREAM_LAST = re.compile(r"\b(fprintf|vfprintf)\s*\(\s*stdout\b")
STREAM_ARG = re.compile(r"\b(fputs|fputc|putc|fwrite)\s*\(([^;]*?)\)\s*;", re.S)
JSONC = re.compile(r"\bjson_object_to_json_string(?:_ext|_length)?\s*\(")


def load_blank(here):
    spec = importlib.util.spec_from_file_location("funclen",
                                                  os.path.join(here, "lint-funclen.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.blank


def findings(text, blank):
    """(line, what) for each write to stdout past the output layer."""
    code = blank(text)
    out = []

    def line_of(pos):
        return code.count("\n", 0, pos) + 1

    for m in BARE.finditer(code):
        out.append((line_of(m.start()), m.group(1)))
    for m in STREAM_LAST.finditer(code):
        out.append((line_of(m.start()), m.group(1) + "(stdout, ...)"))
    for m in STREAM_ARG.finditer(code):
        if re.search(r",\s*stdout\s*$", m.group(2)):
            out.append((line_of(m.start()), m.group(1) + "(..., stdout)"))
    # json-c's writer is looked for in the text as written (a call is a call)
    for m in JSONC.finditer(code):
        out.append((line_of(m.start()), "json-c writer"))
    return sorted(out)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", ".."))
    blank = load_blank(here)
    bad = []
    files = 0
    for d in DIRS:
        for base, dirs, names in os.walk(os.path.join(root, d)):
            dirs.sort()
            for nm in sorted(names):
                if not nm.endswith((".c", ".h")):
                    continue
                p = os.path.join(base, nm)
                rel = os.path.relpath(p, root)
                if rel in ALLOWED:
                    continue
                files += 1
                text = open(p, encoding="utf-8", errors="replace").read()
                for n, what in findings(text, blank):
                    bad.append("%s:%d: %s writes to stdout past the output layer "
                               "(use out_*() or out_printf(), tools/common/out.h)"
                               % (rel, n, what))
    for b in bad:
        print(b)
    print("lint-stdout: %d files read, %d writes past the output layer" % (files, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
