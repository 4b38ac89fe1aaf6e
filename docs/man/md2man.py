#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""md2man.py LOWDOWN PAGE.md OUT - a man page from its Markdown source.

The pages are pandoc Markdown (tests/cli/check-manpage.py reads them so);
lowdown, a few hundred KiB against pandoc's hundreds of MiB, renders them
once three differences are taken out here:
 * the YAML front matter becomes lowdown's metadata paragraph (pandoc's
   header/footer are lowdown's volume/source);
 * an underscore inside a word (AF_RDS, rds_tcp_xmit) is never emphasis to
   pandoc but can pair with another one to lowdown, so it is escaped, except
   in code, where an escape would be printed;
 * "[x] (y)" is text to pandoc and a link to lowdown: the bracket is
   escaped;
 * lowdown's smart typography would turn the "\\-\\-" of long options
   into dashes (--out-no-smarty).
A page with a table starts with the tbl preprocessor line, as man(1) wants.
"""
import re
import subprocess
import sys

INTRAWORD = re.compile(r"(?<=[A-Za-z0-9])_(?=[A-Za-z0-9])")
# pandoc takes "__name_x" without a closing "__" literally; lowdown may not
LEADING = re.compile(r"(?<![A-Za-z0-9_\\])__(?=[A-Za-z0-9]+\\_)")
# "[x] (y)" is a link to lowdown, text to pandoc
SPACED_LINK = re.compile(r"(?<!\\)\] \(")
RENAME = {"header": "volume", "footer": "source"}


def front_matter(lines):
    """The metadata lines of a leading '---' block, and the rest."""
    if not lines or lines[0].rstrip() != "---":
        return [], lines
    for i in range(1, len(lines)):
        if lines[i].rstrip() in ("---", "..."):
            meta = []
            for m in lines[1:i]:
                key, sep, val = m.partition(":")
                if sep:
                    meta.append(f"{RENAME.get(key.strip(), key.strip())}: {val.strip()}\n")
            return meta, lines[i + 1:]
    sys.exit("md2man.py: unterminated front matter")


def escape_text(line):
    """Escapes outside `code spans`."""
    parts = re.split(r"(`+[^`]*`+)", line)
    for i in range(0, len(parts), 2):
        p = INTRAWORD.sub(r"\\_", parts[i])
        p = LEADING.sub(r"\\_\\_", p)
        parts[i] = SPACED_LINK.sub(r"\\] (", p)
    return "".join(parts)


def body(lines):
    """Escapes in prose; fenced and indented code blocks pass unchanged.
    An indented block after a blank line is code unless it continues a
    definition (a ':' line earlier in the same list item)."""
    out = []
    fence = None
    in_def = False
    prev_blank = True
    code = False
    for line in lines:
        s = line.rstrip("\n")
        if fence:
            out.append(line)
            if s.strip().startswith(fence):
                fence = None
            continue
        m = re.match(r"^\s*(```+|~~~+)", s)
        if m:
            fence = m.group(1)
            out.append(line)
            continue
        blank = not s.strip()
        indented = s.startswith("    ") or s.startswith("\t")
        if blank:
            out.append(line)
            prev_blank = True
            continue
        if not indented:
            code = False
            in_def = s.startswith(":")
        elif prev_blank and not in_def:
            code = True
        out.append(line if code else escape_text(line))
        prev_blank = False
    return out


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: md2man.py LOWDOWN PAGE.md OUT")
    lowdown, src, dst = sys.argv[1:]
    with open(src, encoding="utf-8") as f:
        meta, rest = front_matter(f.readlines())
    text = "".join(meta) + "\n" + "".join(body(rest))
    r = subprocess.run([lowdown, "-s", "-Tman", "--out-no-smarty"], input=text,
                       capture_output=True, text=True, check=False)
    if r.returncode != 0:
        sys.exit(f"md2man.py: lowdown failed on {src}: {r.stderr.strip()}")
    page = r.stdout
    if "\n.TS" in page:
        page = "'\\\" t\n" + page
    with open(dst, "w", encoding="utf-8") as f:
        f.write(page)


if __name__ == "__main__":
    main()
