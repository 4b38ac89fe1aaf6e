#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# check-unit.sh UNIT PROGRAM [EXECSTART_ERE] - a systemd unit a package
# ships, as configured into the build, passes `systemd-analyze verify`
# with nothing to say, its ExecStart pointed at this build's PROGRAM (the
# installed path does not exist in a build tree) and without looking for
# the man pages it names (--man=no: they are installed with the package,
# and checked by their own tests). The unit's ExecStart line must match
# EXECSTART_ERE (default: any absolute path). Used by shim-rdsd-unit and
# cli-rdstop-unit. Exit 77 without systemd-analyze.
set -u
unit=$1 prog=$2 want=${3:-^ExecStart=/}
command -v systemd-analyze >/dev/null || { echo "SKIP: no systemd-analyze"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
grep -Eq "$want" "$unit" || { echo "FAIL: no ExecStart matching $want in $unit"; exit 1; }
name=$(basename "$unit")
sed "s|^ExecStart=[^ ]*|ExecStart=$prog|" "$unit" >"$tmp/$name"
out=$(systemd-analyze verify --man=no "$tmp/$name" 2>&1)
rc=$?
if [ $rc != 0 ] || [ -n "$out" ]; then
	echo "FAIL: systemd-analyze verify $name (exit $rc): $out"
	exit 1
fi
echo "$name: systemd-analyze verify: clean"
