#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# hdrlayout.sh PLUGINDIR HDRLAYOUT CAPTURE... - the plugin shows the RDS
# header at libwire's offsets (hdrlayout.py): tshark's PDML of each capture
# against the table the program HDRLAYOUT prints.
set -u
plugdir=$1
layout=$2
shift 2
here=$(dirname "$0")
. "$here/tshark-env.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ws_setup "$tmp"
"$layout" >"$tmp/layout" || { echo "$layout failed"; exit 1; }
n=0
for cap in "$@"; do
	n=$((n + 1))
	ws_tshark -r "$cap" -T pdml >"$tmp/$n.pdml" 2>/dev/null ||
		{ echo "tshark -T pdml $cap failed"; exit 1; }
	python3 "$here/hdrlayout.py" "$tmp/layout" "$tmp/$n.pdml" "$cap" || exit 1
done
