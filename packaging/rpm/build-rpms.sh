#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Builds the binary RPMs: a source tarball of the tree (every file git
# knows or would add: what is committed plus the working tree's changes,
# no build directories), then rpmbuild -bb with the spec CMake made in
# BUILD_DIR (rds-toolkit.spec). The RPMs land in OUT_DIR/RPMS/<arch>/.
# usage: build-rpms.sh BUILD_DIR OUT_DIR [rpmbuild options...]
#
# On an RPM distribution the BuildRequires are checked; on Debian (CI)
# there is no RPM database of the build's libraries, so pass --nodeps.
set -eu
build=$(cd "$1" && pwd)
out=$2
shift 2
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
spec=$build/rds-toolkit.spec
version=$(sed -n 's/^Version: *//p' "$spec")
[ -f "$spec" ] && [ -n "$version" ] || { echo "no rds-toolkit.spec in $build" >&2; exit 1; }
mkdir -p "$out/SOURCES" "$out/SPECS"
out=$(cd "$out" && pwd)
top=rds-toolkit-$version
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$src" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\n" "$f"; done' sh) >"$out/files"
else
	(cd "$src" && find . -path ./build -prune -o -type f -print | sed 's|^\./||') >"$out/files"
fi
tar -C "$src" --transform "s|^|$top/|" -czf "$out/SOURCES/$top.tar.gz" -T "$out/files"
rm -f "$out/files"
cp "$spec" "$out/SPECS/"
rpmbuild --define "_topdir $out" -bb "$@" "$out/SPECS/rds-toolkit.spec"
