#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# packaging/rpm/rpm-files.sh on a made-up build root: every file of the
# manifest listed, licences as %license, our directories as %dir and the
# system's not; it fails on a unit the list does not name, on a named unit
# that is not installed, and on a manifest file missing from the root.
# usage: check-rpm-files.sh SOURCE_DIR
set -eu
gen=$1/packaging/rpm/rpm-files.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
RPM_BUILD_ROOT=$tmp/root
export RPM_BUILD_ROOT
ud=/usr/lib/systemd/system
for f in /usr/bin/rdsx /usr/lib64/cmake/rds/x.cmake /usr/share/licenses/rdsx/GPL-2.0-only.txt \
	$ud/rdsx.service /usr/share/rdsx/a/b.yml; do
	mkdir -p "$RPM_BUILD_ROOT${f%/*}"
	: >"$RPM_BUILD_ROOT$f"
	echo "$f"
done >"$tmp/manifest"
"$gen" rdsx rdsx.service $ud "$tmp/manifest" >"$tmp/list"
want='%dir /usr/lib64/cmake/rds
%dir /usr/share/licenses/rdsx
%dir /usr/share/rdsx
%dir /usr/share/rdsx/a
%license /usr/share/licenses/rdsx/GPL-2.0-only.txt
/usr/bin/rdsx
/usr/lib/systemd/system/rdsx.service
/usr/lib64/cmake/rds/x.cmake
/usr/share/rdsx/a/b.yml'
[ "$(cat "$tmp/list")" = "$want" ] ||
	{ echo "FAIL: the list is"; cat "$tmp/list"; echo "and should be"; echo "$want"; exit 1; }
if "$gen" rdsx "" $ud "$tmp/manifest" >/dev/null 2>"$tmp/err"; then
	echo "FAIL: an undeclared unit passed"; exit 1
fi
grep -q "installs units 'rdsx.service '" "$tmp/err" || { cat "$tmp/err"; exit 1; }
if "$gen" rdsx rdsx.service,other.service $ud "$tmp/manifest" >/dev/null 2>&1; then
	echo "FAIL: a declared unit that is not installed passed"; exit 1
fi
echo /usr/bin/gone >>"$tmp/manifest"
if "$gen" rdsx rdsx.service $ud "$tmp/manifest" >/dev/null 2>"$tmp/err"; then
	echo "FAIL: a file missing from the build root passed"; exit 1
fi
grep -q "/usr/bin/gone is not in the build root" "$tmp/err" || { cat "$tmp/err"; exit 1; }
echo "rpm-files.sh: list, %license, %dir, units and missing files checked"
