#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# shim-run.sh CASE RDSRUN ARGS... - unmodified AF_RDS programs through
# rdsrun (librds-preload.so) on 127.0.3.1 and 127.0.3.2, the kernel having
# no RDS module (RDSRUN_FORCE=1 makes it librds where it has one).
#   afrds RDSRUN AFRDS       tests/shim/afrds.c, server and client
#   python RDSRUN SCRIPT     CPython's socket.AF_RDS (tests/shim/afrds.py)
#   rdsping RDSRUN RDSPING RDSDRIVE   rdsping --kernel against a librds peer
#   qperf RDSRUN             Debian's qperf rds_lat and rds_bw, server and
#                            client in a network namespace of their own
#                            (skipped, 77, without qperf or unshare -n)
#   qperf-shared RDSRUN      the same, both on 127.0.0.1 through rdsd
#   afrds-rdsd RDSRUN AFRDS  afrds through rdsd, in a network namespace of its
#                            own (AFRDS_RDSD=1: the checks that hold there)
#   rdstools RDSRUN PROG     tests/shim/rdstools.c (rds-tools' calls) through
#                            rdsd, in a network namespace of its own
# SHIM_PRELOAD_FIRST (a sanitizer runtime) goes first in LD_PRELOAD.
set -u
case=$1 run=$2
if { [ "$case" = qperf ] || [ "$case" = qperf-shared ] || [ "$case" = rdstools ] ||
     [ "$case" = afrds-rdsd ]; } &&
   [ "${SHIM_IN_NETNS:-}" != 1 ]; then
	case $case in qperf*) command -v qperf >/dev/null ;; *) true ;; esac ||
		{ echo "SKIP: no qperf (scripts/deps.sh)"; exit 77; }
	for u in "unshare -n" "unshare -rn"; do
		if $u true 2>/dev/null; then
			SHIM_IN_NETNS=1 exec $u "$0" "$@"
		fi
	done
	echo "SKIP: no network namespace (unshare -n)"; exit 77
fi
shift 2
. "$(dirname "$0")/../cli/peer.sh"
export RDSRUN_FORCE=1
if [ -n "${SHIM_PRELOAD_FIRST:-}" ]; then
	export LD_PRELOAD=$SHIM_PRELOAD_FIRST
	# CPython's own allocations at exit are not ours to report
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
fi
A=127.0.3.1 B=127.0.3.2 PORT=4000

wait_ready() {
	for _ in $(seq 200); do
		grep -q ready "$1" 2>/dev/null && return 0
		kill -0 "$peer" 2>/dev/null || break
		sleep 0.05
	done
	echo "FAIL: the server did not start"; cat "$1" "$tmp/server.err"
	exit 1
}

case $case in
afrds|afrds-rdsd|python)
	if [ "$case" = afrds-rdsd ]; then
		ip link set lo up || exit 77
		export RDSRUN_DAEMON=1 AFRDS_RDSD=1
	fi
	if [ "$case" != python ]; then
		prog="$1"
	else
		prog="python3 $1"
	fi
	$run $prog server $B $PORT >"$tmp/server.out" 2>"$tmp/server.err" &
	peer=$!
	wait_ready "$tmp/server.out"
	timeout 120 $run $prog client $A $B $PORT >"$tmp/client.out" 2>&1
	rc=$?
	cat "$tmp/client.out"
	if [ $rc != 0 ] || ! grep -q "all passed" "$tmp/client.out"; then
		echo "FAIL: client exit $rc"; cat "$tmp/server.err"; exit 1
	fi
	timeout 20 sh -c "while kill -0 $peer 2>/dev/null; do sleep 0.05; done"
	wait "$peer"; src=$?
	peer=
	[ $src = 0 ] || { echo "FAIL: server exit $src"; cat "$tmp/server.err"; exit 1; }
	;;
rdsping)
	ping=$1 drive=$2
	"$drive" -b $B serve --timeout 60 >"$tmp/peer.out" 2>"$tmp/server.err" &
	peer=$!
	wait_ready "$tmp/server.err"
	timeout 60 $run "$ping" --kernel -c 3 -i 0.05 -I $A $B >"$tmp/out" 2>&1
	rc=$?
	cat "$tmp/out"
	[ $rc = 0 ] || { echo "FAIL: rdsping exit $rc"; exit 1; }
	grep -q "^RDSPING $B from $A (kernel," "$tmp/out" ||
		{ echo "FAIL: rdsping did not use AF_RDS"; exit 1; }
	grep -q "^3 sent, 3 received" "$tmp/out" || { echo "FAIL: pings unanswered"; exit 1; }
	;;
rdstools)
	ip link set lo up || exit 77
	RDSRUN_DAEMON=1 timeout 120 $run "$1" 127.0.0.1 127.0.0.2 4000 >"$tmp/out" 2>&1
	rc=$?
	cat "$tmp/out"
	[ $rc = 0 ] && grep -q "all passed" "$tmp/out" || { echo "FAIL: rdstools exit $rc"; exit 1; }
	;;
qperf|qperf-shared)
	# qperf tells the client the RDS address of each side from its TCP
	# control connections: the server takes the address the client dialled,
	# the client the source address routing gave it (127.0.0.1 for any
	# 127.x destination). In a namespace of its own that address is free
	# whatever else runs on the host; the two sides still need two
	# addresses (one process per address: docs/shim.md).
	ip link set lo up || exit 77
	dial=127.0.0.2
	if [ "$case" = qperf-shared ]; then
		# both sides on 127.0.0.1, sharing it through rdsd
		export RDSRUN_DAEMON=1
		dial=127.0.0.1
	fi
	qport=19783
	$run qperf -lp $qport >"$tmp/server.out" 2>"$tmp/server.err" &
	peer=$!
	for _ in $(seq 200); do
		ss -tln 2>/dev/null | grep -q ":$qport " && break
		sleep 0.05
	done
	for t in rds_lat rds_bw; do
		# qperf's server sends its data port before it listens on it, so
		# a client scheduled first is refused ("connect failed"); nice
		# makes that rare, and such a run is retried.
		for try in 1 2 3 4 5; do
			timeout 60 nice -n 19 $run qperf -lp $qport -t 1 $dial $t \
				>"$tmp/out" 2>&1
			rc=$?
			grep -q "connect failed" "$tmp/out" || break
		done
		cat "$tmp/out"
		[ $rc = 0 ] || { echo "FAIL: qperf $t exit $rc"; cat "$tmp/server.err"; exit 1; }
		grep -Eq "^ *(latency|bw) *= *[0-9.]+ " "$tmp/out" ||
			{ echo "FAIL: qperf $t gave no figure"; exit 1; }
	done
	;;
*)
	echo "usage: shim-run.sh afrds|python|rdsping|qperf|qperf-shared|rdstools RDSRUN ..."; exit 2
	;;
esac
echo "ok"
