#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# multiproc.sh RDSRUN SCRIPT - tests/shim/multiproc.py: independent
# processes under rdsrun binding ports of one address with no rdsd running
# (RDSRUN_DAEMON unset), and exec with a socket kept, in a network
# namespace of its own (skipped, 77, without unshare -n).
set -u
run=$1 script=$2
. "$(dirname "$0")/netns.sh"
if [ -n "${SHIM_PRELOAD_FIRST:-}" ]; then
	# CPython's own allocations at exit are not ours to report
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
fi
unset RDSRUN_DAEMON
timeout 240 python3 "$script" "$run"
