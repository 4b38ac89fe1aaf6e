#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""hdrlayout.py LAYOUT PDML NAME - the Wireshark plugin's header fields
against libwire's layout table.

LAYOUT is what tests/wireshark/hdrlayout prints (libwire's wire_hdr_fields:
"name offset size" a line); PDML is tshark -T pdml of a capture with the
plugin. In every RDS message shown (a <proto name="rds"> whose header is
captured whole), each field of the table must be shown as a field of the
plugin directly under the message, at the message's position plus the
table's offset and with the table's size; a field the table names the way
rdsdump's JSON does (seq, ack, len, flags, credit, pad, csum) must be that
very field, rds.<name>. The plugin takes its offsets from the table, so
this fails when either side changes alone, or when a field is dropped.
Also: the table tiles the 48 bytes.

Exit: 0 all agree; 1 a difference, shown.
"""
import sys
import xml.etree.ElementTree as ET

HDR_LEN = 48
SAME_NAME = {"seq", "ack", "len", "flags", "credit", "pad", "csum"}


def main():
    layout = []
    with open(sys.argv[1], encoding="utf-8") as f:
        for line in f:
            name, off, size = line.split()
            layout.append((name, int(off), int(size)))
    fails = []
    at = 0
    for name, off, size in layout:
        if off != at:
            fails.append("layout: %s at %d, expected %d" % (name, off, at))
        at = off + size
    if at != HDR_LEN:
        fails.append("layout: the fields end at %d, not %d" % (at, HDR_LEN))
    seen = 0
    for proto in ET.parse(sys.argv[2]).getroot().iter("proto"):
        if proto.get("name") != "rds" or int(proto.get("size", "0")) < HDR_LEN:
            continue
        base = int(proto.get("pos"))
        shown = {}
        for fld in proto.findall("field"):
            if fld.get("size") is None or fld.get("pos") is None:
                continue
            shown.setdefault((int(fld.get("pos")) - base, int(fld.get("size"))),
                             []).append(fld.get("name"))
        if not any(n == "rds.seq" for ns in shown.values() for n in ns):
            continue  # not a message header (a CM record, say)
        seen += 1
        for name, off, size in layout:
            names = shown.get((off, size), [])
            if not names:
                fails.append("%s: message at %d: no field at offset %d size %d for %s"
                             % (sys.argv[3], base, off, size, name))
            elif name in SAME_NAME and "rds." + name not in names:
                fails.append("%s: message at %d: %s at offset %d is shown as %s"
                             % (sys.argv[3], base, name, off, ", ".join(names)))
    if not seen:
        fails.append("%s: no RDS message header in tshark's output" % sys.argv[3])
    for f in fails[:20]:
        print(f)
    if fails:
        return 1
    print("%s: %d headers, every field of libwire's table at its offset" % (sys.argv[3], seen))
    return 0


if __name__ == "__main__":
    sys.exit(main())
