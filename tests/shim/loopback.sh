#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# loopback.sh RDSRUN SCRIPT - tests/shim/loopback.py (two threads of one
# Python process, two sockets on 127.0.0.1) through rdsrun, per process
# (RDSRUN_DAEMON=0, librds's loopback transport) and through an rdsd of its
# own, in a network namespace of its own so that nothing else on the host's
# 127.0.0.1 is in the way (skipped, 77, without unshare -n).
set -u
run=$1 script=$2
. "$(dirname "$0")/netns.sh"
if [ -n "${SHIM_PRELOAD_FIRST:-}" ]; then
	# CPython's own allocations at exit are not ours to report
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
fi
fail=0
for mode in 0 1; do
	out=$(RDSRUN_DAEMON=$mode RDSD_NAME=rds-loopback-test-$$ timeout 120 \
		"$run" python3 "$script" 2>&1)
	rc=$?
	echo "RDSRUN_DAEMON=$mode: $out"
	if [ $rc != 0 ] || ! printf '%s\n' "$out" | grep -q "^all passed"; then
		echo "FAIL: RDSRUN_DAEMON=$mode exit $rc"; fail=1
	fi
done
exit $fail
