#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""lint-funclen.py [SRCDIR] [--list] - no C function in tools/ or shim/ is
longer than 120 lines.

A function's length is counted from the line with its name to the line of
its closing brace, both included. The scanner reads C the way a compiler's
first pass does: comments, string and character literals and preprocessor
lines are blanked (keeping line numbers), then braces are matched. A `{` at
file level whose previous token is `)` (or an attribute after it) opens a
function body; the name is the identifier before the matching `(`. Struct,
union, enum and array initialisers at file level open with `{` after a
name or `=`, and are not functions.

Functions in files that other work is splitting are allowed, by name, in
KNOWN below, each with its length when it was listed. The lint fails when:
  * a function not in KNOWN is over the limit (a new offender);
  * a KNOWN function is no longer over the limit, or no longer exists
    (fixed: take it off the list, so the list never hides anything);
and passes otherwise. --list prints every function over the limit, known
or not, longest first.
"""
import os
import re
import sys

LIMIT = 120
DIRS = ("tools", "shim")

# Offenders allowed for now, by (file, function): their length when
# listed. Empty: every function is within the limit. Remove an entry when
# the function is split; the lint reminds you.
KNOWN = {}


def blank(src):
    """Comments, literals and preprocessor lines replaced by spaces;
    newlines kept so that offsets map to the same line numbers."""
    out = []
    i, n = 0, len(src)
    at_line_start = True
    while i < n:
        c = src[i]
        if at_line_start:
            j = i
            while j < n and src[j] in " \t":
                j += 1
            if j < n and src[j] == "#":  # preprocessor line, with continuations
                k = j
                while k < n:
                    if src[k] == "\n" and src[k - 1] != "\\":
                        break
                    if src.startswith("/*", k):  # a comment inside a directive
                        e = src.find("*/", k + 2)
                        k = n if e < 0 else e + 2
                        continue
                    k += 1
                out.append(re.sub(r"[^\n]", " ", src[i:k]))
                i = k
                continue
        at_line_start = False
        if src.startswith("//", i):
            e = src.find("\n", i)
            e = n if e < 0 else e
            out.append(" " * (e - i))
            i = e
        elif src.startswith("/*", i):
            e = src.find("*/", i + 2)
            e = n if e < 0 else e + 2
            out.append(re.sub(r"[^\n]", " ", src[i:e]))
            i = e
        elif c in "\"'":
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + re.sub(r"[^\n]", " ", src[i + 1:j - 1]) + c)
            i = j
        else:
            out.append(c)
            if c == "\n":
                at_line_start = True
            i += 1
    return "".join(out)


def open_paren(text):
    """Index of the "(" that matches the ")" ending text."""
    d = 0
    k = len(text) - 1
    while k >= 0:
        if text[k] == ")":
            d += 1
        elif text[k] == "(":
            d -= 1
            if d == 0:
                return k
        k -= 1
    return 0


def functions(path):
    """Yield (name, first line, last line) of every function defined in path."""
    src = blank(open(path, encoding="utf-8", errors="replace").read())
    line_of = []
    ln = 1
    for ch in src:
        line_of.append(ln)
        if ch == "\n":
            ln += 1
    depth = 0
    i = 0
    n = len(src)
    while i < n:
        c = src[i]
        if c == "{":
            if depth == 0:
                head = src[max(0, i - 4096):i].rstrip()
                off = max(0, i - 4096)
                name = None
                while head.endswith(")"):
                    k = open_paren(head)
                    m = re.search(r"([A-Za-z_]\w*)\s*$", head[:k])
                    if not m:
                        break
                    if m.group(1) == "__attribute__":  # ") __attribute__((x)) {"
                        head = head[:m.start(1)].rstrip()
                        continue
                    if m.group(1) not in ("if", "while", "for", "switch", "return", "sizeof"):
                        name = m.group(1)
                        if name.isupper():  # a macro that defines one: CASE(case_x)
                            name += re.sub(r"\s+", "", head[k:])
                        start = line_of[off + m.start(1)]
                    break
                # find the matching close brace
                d = 0
                j = i
                while j < n:
                    if src[j] == "{":
                        d += 1
                    elif src[j] == "}":
                        d -= 1
                        if d == 0:
                            break
                    j += 1
                if name:
                    yield name, start, line_of[min(j, n - 1)]
                i = j + 1
                continue
        i += 1


def scan(root):
    found = {}
    for d in DIRS:
        for base, dirs, names in os.walk(os.path.join(root, d)):
            dirs.sort()
            for nm in sorted(names):
                if not nm.endswith(".c") and not nm.endswith(".h"):
                    continue
                p = os.path.join(base, nm)
                rel = os.path.relpath(p, root)
                for name, a, b in functions(p):
                    length = b - a + 1
                    key = (rel, name)
                    # static functions of the same name in one file do not
                    # occur; keep the longest if they ever do
                    if length > found.get(key, (0, 0))[0]:
                        found[key] = (length, a)
    return found


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    root = os.path.abspath(args[0] if args else
                           os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    found = scan(root)
    if not found:
        print("lint-funclen: no functions found under %s (wrong directory?)" % root)
        return 1
    long_ = sorted(((ln, k, a) for k, (ln, a) in found.items() if ln > LIMIT), reverse=True)
    if "--list" in sys.argv:
        for ln, (f, name), a in long_:
            print("%4d  %s:%d %s%s" % (ln, f, a, name, "  (known)" if (f, name) in KNOWN else ""))
    bad = []
    for ln, (f, name), a in long_:
        if (f, name) not in KNOWN:
            bad.append("%s:%d: %s is %d lines (limit %d): split it" % (f, a, name, ln, LIMIT))
    for (f, name), was in sorted(KNOWN.items()):
        ln = found.get((f, name), (0, 0))[0]
        if ln == 0:
            bad.append("%s: %s is listed in KNOWN but no longer exists: take it off" % (f, name))
        elif ln <= LIMIT:
            bad.append("%s: %s is %d lines now, within the limit: take it off KNOWN"
                       % (f, name, ln))
    for b in bad:
        print(b)
    print("lint-funclen: %d functions in %s; %d over %d lines, %d of them listed in KNOWN"
          % (len(found), "/".join(DIRS), len(long_), LIMIT,
             sum(1 for _, k, _ in long_ if k in KNOWN)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
