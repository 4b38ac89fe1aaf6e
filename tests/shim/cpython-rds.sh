#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# cpython-rds.sh RDSRUN MODE - CPython's own AF_RDS tests (the classes
# BasicRDSTest and RDSTest of Lib/test/test_socket.py, from Debian's
# libpythonX.Y-testsuite for the system's /usr/bin/python3) through rdsrun,
# per process (MODE pp: RDSRUN_DAEMON=0) or through an rdsd the shim starts
# (MODE rdsd: RDSRUN_DAEMON=1), in a network namespace of its own. Skips
# (77) without a Debian python3, without namespaces, or when the package
# cannot be fetched.
#
# test_socket.py is taken at test time and cached outside the tree, as the
# kernel's selftest is ($RDS_LAB_CACHE, default ~/.cache/rds-lab); it is run
# unchanged with unittest. What differs from CPython's own run of it is
# environment only (docs/shim.md): rdsrun's LD_PRELOAD, RDSRUN_FORCE=1,
# RDSRUN_DAEMON, a network namespace whose lo is up, and bytecode not
# written into the cache (PYTHONDONTWRITEBYTECODE=1).
# CPY_FETCH_ONLY=1: fetch and cache test_socket.py, then exit (ctest's
# shim-cpython-fetch, the fixture of both modes' tests).
set -u
run=$(realpath "$1") mode=$2
skip() { echo "SKIP: $*"; exit 77; }
case $mode in pp) daemon=0 ;; rdsd) daemon=1 ;; *) echo "usage: $0 RDSRUN pp|rdsd"; exit 2 ;; esac

# The interpreter must be the one the package's tests were written for:
# Debian's, whose version names the package.
py=/usr/bin/python3
[ -x $py ] || skip "no $py"
dpkg -S "$(realpath $py)" >/dev/null 2>&1 || skip "$py is not Debian's (dpkg -S)"
ver=$($py -c 'import sys; print("%d.%d" % sys.version_info[:2])') || skip "$py does not run"
PKG=libpython$ver-testsuite
cache=${RDS_LAB_CACHE:-$HOME/.cache/rds-lab}/cpython-$PKG

if [ "${SHIM_IN_NETNS:-}" != 1 ]; then
	# Only test_socket.py: the rest of the test package it imports
	# (test.support) is the interpreter's own, libpythonX.Y-stdlib.
	unpack() {
		dpkg-deb --fsys-tarfile "$2" |
			tar -x -C "$1" --strip-components=5 ./usr/lib/python$ver/test/test_socket.py &&
			dpkg-deb -f "$2" Version >"$1/version"
	}
	. "$(dirname "$0")/debfetch.sh"
	deb_fetch "$cache" "$PKG" unpack
	[ -f "$cache/test_socket.py" ] || { echo "FAIL: no test_socket.py in $PKG"; exit 1; }
	[ "${CPY_FETCH_ONLY:-}" != 1 ] || exit 0
fi
. "$(dirname "$0")/netns.sh"
if [ -n "${SHIM_PRELOAD_FIRST:-}" ]; then
	# CPython's own allocations at exit are not ours to report
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
fi
# Without the shim every one of them is skipped (no AF_RDS on this host's
# kernel, or a kernel's where it has one: RDSRUN_FORCE=1 makes it ours),
# so a run that skips any is a failure here.
cd "$cache" || exit 1
out=$(RDSRUN_DAEMON=$daemon RDSD_NAME=rds-cpython-test-$$ PYTHONDONTWRITEBYTECODE=1 \
	timeout 120 "$run" $py -m unittest -v test_socket.BasicRDSTest test_socket.RDSTest 2>&1)
rc=$?
echo "$PKG $(cat version) test_socket.py," \
	"Python $ver, through rdsrun, RDSRUN_DAEMON=$daemon:"
printf '%s\n' "$out"
n=$(printf '%s\n' "$out" | grep -c ' \.\.\. ok$')
if [ $rc != 0 ] || ! printf '%s\n' "$out" | grep -q '^OK$' ||
   ! printf '%s\n' "$out" | grep -q "^Ran $n tests* in" || [ "$n" -lt 8 ]; then
	echo "FAIL: exit $rc, $n tests passed (every one must pass, none skipped, at least 8)"
	exit 1
fi
echo "ok: $n of CPython's AF_RDS tests passed"
