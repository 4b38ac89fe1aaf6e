#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The %files list of one sub-package, from the install manifest of its
# CMake component (what `cmake --install --component` installed): every
# file, the licence texts marked %license, and %dir for each directory of
# ours (not the system's /usr/bin, /usr/lib64, ... nor %_unitdir).
# Fails when the component's systemd units are not exactly the ones the
# spec's scriptlets name (UNITS, comma-separated, from CMake's
# RDS_SYSTEMD_UNITS), so neither can drift from the install rules.
# usage: rpm-files.sh COMPONENT UNITS UNITDIR MANIFEST  (in %install)
set -eu
export LC_ALL=C
comp=$1
units=$2
unitdir=$3
manifest=$4
[ -s "$manifest" ] || { echo "rpm-files.sh: $comp installed nothing ($manifest)" >&2; exit 1; }
list=$(mktemp)
trap 'rm -f "$list" "$list.in"' EXIT
sort -u "$manifest" >"$list.in"
while read -r f; do
	[ -e "$RPM_BUILD_ROOT$f" ] || [ -L "$RPM_BUILD_ROOT$f" ] ||
		{ echo "rpm-files.sh: $comp: $f is not in the build root" >&2; exit 1; }
	case $f in
	*/share/licenses/*) echo "%license $f" ;;
	*) echo "$f" ;;
	esac
	d=${f%/*}
	while [ -n "$d" ]; do
		case $d in
		/usr | /usr/bin | /usr/sbin | /usr/include | /usr/lib | /usr/lib64 | \
		/usr/lib/pkgconfig | /usr/lib64/pkgconfig | /usr/lib/cmake | /usr/lib64/cmake | \
		/usr/lib/systemd | "$unitdir" | /usr/share | /usr/share/doc | /usr/share/licenses | \
		/usr/share/man | /usr/share/man/man[1-9]) ;;
		*) echo "%dir $d" ;;
		esac
		d=${d%/*}
	done
done <"$list.in" >"$list"
rm -f "$list.in"
sort -u "$list"

# the units installed must be the units declared
got=$(grep -o "^$unitdir/[^/]*\.service\$" "$manifest" | sed 's|.*/||' | sort | tr '\n' ' ')
want=$(echo "$units" | tr ',' '\n' | grep . | sort | tr '\n' ' ' || true)
if [ "$got" != "$want" ]; then
	echo "rpm-files.sh: $comp installs units '$got' but RDS_SYSTEMD_UNITS says '$want'" >&2
	exit 1
fi
