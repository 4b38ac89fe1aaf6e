# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# debfetch.sh - sourced by the shim tests that run a third-party test suite
# taken from a Debian package at test time (kselftest-rds.sh, cpython-rds.sh),
# never kept in the tree. It defines
#
#   deb_fetch CACHE PKG[=VERSION] UNPACK
#
# which leaves what the shell function UNPACK (called as UNPACK DIR DEB in
# a new folder DIR, the package's file DEB inside it) keeps of the package
# in the folder CACHE, and skips the test (exit 77) when the package cannot
# be fetched. A finished CACHE holds the file "ok" and is never touched
# again. Tests that start together (ctest's fixtures, the lab's) take a lock
# beside it and look again under it, and each unpacks into a folder of its
# own, so a reader of the finished copy never sees it go: only a copy
# without "ok" is ever replaced. UNPACK removing DEB is not needed.
deb_fetch() {
	_cache=$1 _pkg=$2 _unpack=$3
	if [ ! -f "$_cache/ok" ]; then
		command -v apt-get >/dev/null || skip "no apt-get to fetch ${_pkg%%=*}"
		command -v flock >/dev/null || skip "no flock"
		mkdir -p "${_cache%/*}" && exec 9>>"$_cache.lock" || skip "cannot write $_cache"
		flock 9
	fi
	if [ ! -f "$_cache/ok" ]; then
		_tmp=$(mktemp -d "$_cache.tmp.XXXXXX") || skip "cannot write $_cache"
		(cd "$_tmp" && { apt-get download "$_pkg" >/dev/null 2>&1 ||
			{ apt-get update >/dev/null 2>&1 && apt-get download "$_pkg" >/dev/null 2>&1; }; }) ||
			{ rm -rf "$_tmp"; skip "cannot fetch $_pkg (apt-get download)"; }
		"$_unpack" "$_tmp" "$(ls "$_tmp"/*.deb)" ||
			{ rm -rf "$_tmp"; echo "FAIL: cannot unpack $_pkg"; exit 1; }
		rm -f "$_tmp"/*.deb
		touch "$_tmp/ok"
		rm -rf "$_cache" && mv "$_tmp" "$_cache"
	fi
	exec 9>&-
}
