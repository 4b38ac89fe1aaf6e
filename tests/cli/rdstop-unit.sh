#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rdstop-unit.sh UNIT RDSTOP - systemd-analyze verify has nothing to say
# about the exporter's unit as installed, its ExecStart pointed at RDSTOP
# (the installed path does not exist in a build tree). Its man page is
# checked by cli-rdstop-manpage, not looked up here (--man=no).
# Exit 77 without systemd-analyze.
set -u
unit=$1 top=$2
command -v systemd-analyze >/dev/null || { echo "no systemd-analyze"; exit 77; }
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
grep -q '^ExecStart=/' "$unit" || { echo "FAIL: no ExecStart in $unit"; exit 1; }
sed "s|^ExecStart=[^ ]*|ExecStart=$top|" "$unit" >"$d/rdstop-exporter.service"
out=$(systemd-analyze verify --man=no "$d/rdstop-exporter.service" 2>&1)
rc=$?
if [ $rc != 0 ] || [ -n "$out" ]; then
	echo "FAIL: systemd-analyze verify (exit $rc): $out"
	exit 1
fi
echo "rdstop-unit: ok"
