#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""lint-refs.py [SRCDIR] - no file in the repository refers to a document
that is not in it.

Checks every tracked text file (git ls-files; a plain walk when SRCDIR is
not a git checkout) for:

  * names of documents that live outside the repository (the old kernel
    facts sheet, the lab notes, "../shared", seed files);
  * markdown links [text](path) whose target file does not exist
    (relative to the linking file; web links and #anchors are not files);
  * repository paths written out (docs/x.md, tests/cli/y.py, ...) that
    name no tracked file or folder;
  * kernel-behaviour sections cited as "kernel-behaviour.md K4.3" (or a
    bare "K4.3" inside docs/kernel-behaviour.md itself) that have no
    "### K4.3" / "#### K4.3" heading there.

Exit: 0 clean; 1 with one line per finding (file:line: what).
"""
import os
import re
import subprocess
import sys

SRC = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                      os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
KB = "docs/kernel-behaviour.md"

# Documents that exist only outside the repository, by name.
OUTSIDE = [
    (re.compile(r"kernel-rds-facts"), "the kernel facts sheet is not in the repository "
     "(cite docs/kernel-behaviour.md K<n>)"),
    (re.compile(r"kernel-peer-lab\.md"), "the lab notes are not in the repository "
     "(cite docs/kernel-behaviour.md)"),
    (re.compile(r"style-anchors"), "the style anchors are not in the repository "
     "(DEVELOPERS.md has the house style)"),
    (re.compile(r"(?<![\w.-])(?:\.\./)+shared/|(?<![\w/.-])shared/(?:docs|seeds)/"),
     "a path outside the repository"),
    (re.compile(r"/work/(?:shared|main|wt|helpers)\b"), "a path on a developer's machine"),
    (re.compile(r"\b[Ff]acts(?:[ -]sheet| §?\d)"), "the kernel facts sheet's numbering "
     "(cite docs/kernel-behaviour.md K<n>)"),
]

TOP = ("docs", "tests", "tools", "libwire", "librds", "shim", "fuzz", "bench", "examples",
       "pcaps", "plugins", "scripts", "packaging", "LICENSES", ".ci")
EXT = "md|c|h|py|sh|txt|lua|json|hex|pcap|pcapng|cmake|in|xml|html|png"
# A repository path written out: top folder, then path characters, ending
# in a known extension, not part of a longer path or a URL.
PATH_RE = re.compile(r"(?<![\w/.<>{}*$-])((?:%s)/[A-Za-z0-9_./+-]*\.(?:%s))(?![\w/*<>{}-])"
                     % ("|".join(re.escape(t) for t in TOP), EXT))
LINK_RE = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
KREF_RE = re.compile(r"kernel-behaviour(?:\.md)?,?\s+((?:K\d+(?:\.\d+)?(?:,\s*|/|\s+and\s+))*"
                     r"K\d+(?:\.\d+)?)")
# Placeholders in a written-out path ("tests/lab/scenarios/NAME.py") and
# paths of the kernel tree that share a top folder name with ours.
PLACEHOLDER = re.compile(r"/(?:NAME|SECTION|KERNEL|TARGET|FILE|TOOL|MODULE)(?:[./]|$)")
KERNEL_TREE = ("tools/testing/",)
BARE_K_RE = re.compile(r"(?<![\w.])K(\d+(?:\.\d+)?)(?![\w.]*\d)")


def tracked():
    try:
        out = subprocess.run(["git", "-C", SRC, "ls-files", "-z"], capture_output=True,
                             check=True).stdout
        return [f for f in out.decode().split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for root, dirs, names in os.walk(SRC):
            dirs[:] = [d for d in dirs if d not in (".git", "build") and not d.startswith("build")]
            for n in names:
                files.append(os.path.relpath(os.path.join(root, n), SRC))
        return files


def main():
    files = tracked()
    known = set(files)
    dirs = set()
    for f in files:
        parts = f.split("/")
        for i in range(1, len(parts)):
            dirs.add("/".join(parts[:i]))
    ksections = set()
    kb_path = os.path.join(SRC, KB)
    if os.path.exists(kb_path):
        for line in open(kb_path, encoding="utf-8"):
            m = re.match(r"#{2,5} K(\d+(?:\.\d+)?) ", line)
            if m:
                ksections.add(m.group(1))
    bad = []
    me = os.path.relpath(os.path.abspath(__file__), SRC)
    for f in files:
        if f == me or f.startswith("LICENSES/"):
            continue
        p = os.path.join(SRC, f)
        try:
            with open(p, "rb") as fh:
                raw = fh.read()
        except OSError:
            continue
        if b"\0" in raw[:8192]:
            continue  # binary (captures, images)
        text = raw.decode("utf-8", "replace")
        for n, line in enumerate(text.splitlines(), 1):
            where = "%s:%d" % (f, n)
            for rx, why in OUTSIDE:
                if rx.search(line):
                    bad.append("%s: %s" % (where, why))
            if f.endswith(".md"):
                for m in LINK_RE.finditer(line):
                    target = m.group(1).split("#", 1)[0]
                    if not target or re.match(r"[a-z][a-z0-9+.-]*:", target):
                        continue
                    rel = os.path.normpath(os.path.join(os.path.dirname(f), target))
                    if rel not in known and rel not in dirs:
                        bad.append("%s: link to %s, which is not in the repository"
                                   % (where, m.group(1)))
            for m in PATH_RE.finditer(line):
                path = m.group(1).rstrip(".")
                if PLACEHOLDER.search(path) or path.startswith(KERNEL_TREE):
                    continue
                if path not in known and path not in dirs:
                    bad.append("%s: %s is not in the repository" % (where, path))
            for m in KREF_RE.finditer(line):
                for k in re.findall(r"K(\d+(?:\.\d+)?)", m.group(1)):
                    if k not in ksections:
                        bad.append("%s: %s has no section K%s" % (where, KB, k))
            if f == KB and not line.startswith("#"):
                for m in BARE_K_RE.finditer(line):
                    if m.group(1) not in ksections:
                        bad.append("%s: no section K%s in this file" % (where, m.group(1)))
    if not ksections:
        bad.append("%s: no K<n> sections found" % KB)
    for b in bad:
        print(b)
    if bad:
        print("lint-refs: %d reference(s) to documents not in the repository" % len(bad))
        return 1
    print("lint-refs: %d files, every reference is in the repository (%d K sections)"
          % (len(files), len(ksections)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
