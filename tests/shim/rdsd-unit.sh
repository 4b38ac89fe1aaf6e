#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rdsd-unit.sh UNIT RDSD - the systemd unit the rdsrun package ships
# (packaging/rdsd.service.in, configured into the build) passes
# `systemd-analyze verify`, its ExecStart pointed at this build's rdsd (the
# installed path does not exist here) and without looking for the man
# pages it names (they are installed with the package, not here). Skipped
# (77) without systemd-analyze.
set -eu
unit=$1 rdsd=$2
command -v systemd-analyze >/dev/null || { echo "SKIP: no systemd-analyze"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
grep -q '^ExecStart=/.*/rdsd --any-user$' "$unit" || { echo "FAIL: ExecStart"; exit 1; }
sed "s|^ExecStart=[^ ]*|ExecStart=$rdsd|" "$unit" >"$tmp/rdsd.service"
if ! systemd-analyze verify --man=no "$tmp/rdsd.service" >"$tmp/out" 2>&1 || [ -s "$tmp/out" ]; then
	echo "FAIL: systemd-analyze verify:"; cat "$tmp/out"; exit 1
fi
echo "systemd-analyze verify: clean"
