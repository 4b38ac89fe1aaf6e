#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# calls.sh RDSRUN CALLS - tests/shim/calls.c (signals in every blocking
# call, the call surface, poll and select) through rdsrun, per process
# (RDSRUN_DAEMON=0) and through an rdsd of its own (the checks that hold
# there), in a network namespace of its own (skipped, 77, without
# unshare -n).
set -u
run=$1 prog=$2
. "$(dirname "$0")/netns.sh"
fail=0
# One rdsd name for every run: per process first (no rdsd yet), then a
# fork that moves the sockets to an rdsd started for them (RDSRUN_DAEMON
# unset, none running), then through that rdsd.
name=rds-calls-test-$$
check() {
	rc=$1 what=$2 out=$3
	echo "$what: $out"
	if [ "$rc" != 0 ] || ! printf '%s\n' "$out" | grep -q "^all passed"; then
		echo "FAIL: $what exit $rc"; fail=1
	fi
}
out=$(RDSRUN_DAEMON=0 CALLS_RDSD=0 RDSD_NAME=$name timeout -s KILL 120 "$run" "$prog" client 2>&1)
check $? "RDSRUN_DAEMON=0" "$out"
out=$(env -u RDSRUN_DAEMON RDSD_NAME=$name timeout -s KILL 60 "$run" "$prog" fork 2>&1)
check $? "fork, RDSRUN_DAEMON unset" "$out"
out=$(RDSRUN_DAEMON=0 RDSD_NAME=$name timeout -s KILL 60 "$run" "$prog" fork-own 2>&1)
check $? "fork-own, RDSRUN_DAEMON=0" "$out"
out=$(RDSRUN_DAEMON=1 CALLS_RDSD=1 RDSD_NAME=$name timeout -s KILL 120 "$run" "$prog" client 2>&1)
check $? "RDSRUN_DAEMON=1" "$out"
out=$(RDSRUN_DAEMON=1 RDSD_NAME=$name timeout -s KILL 60 "$run" "$prog" fork 2>&1)
check $? "fork, RDSRUN_DAEMON=1" "$out"
exit $fail
