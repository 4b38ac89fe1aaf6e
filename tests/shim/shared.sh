#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# shared.sh RDSRUN RDSD RDSPING RDSDRIVE - several shimmed processes sharing
# one RDS presence through rdsd (docs/architecture.md), in a network
# namespace of their own: two processes on one address talk to each other
# (local delivery), to a process on librds directly and to a librds peer;
# a socket survives exec; a process killed with SIGKILL frees its port.
set -u
if [ "${SHIM_IN_NETNS:-}" != 1 ]; then
	for u in "unshare -n" "unshare -rn"; do
		$u true 2>/dev/null && SHIM_IN_NETNS=1 exec $u "$0" "$@"
	done
	echo "SKIP: no network namespace (unshare -n)"; exit 77
fi
run=$1 rdsd=$2 ping=$3 drive=$4
py="python3 $(dirname "$0")/shared.py"
tmp=$(mktemp -d)
pids=
cleanup() {
	for p in $pids; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; for f in "$tmp"/*; do echo "== $f"; cat "$f"; done; exit 1; }
ip link set lo up || exit 77
export RDSRUN_FORCE=1 RDSD_NAME=rdsd-shared-test
if [ -n "${SHIM_PRELOAD_FIRST:-}" ]; then
	export LD_PRELOAD=$SHIM_PRELOAD_FIRST
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
fi
A=127.0.0.1 B=127.0.0.2

# rdsd runs: the shim uses it without being told (RDSRUN_DAEMON unset).
LD_PRELOAD= "$rdsd" -v >"$tmp/rdsd.log" 2>&1 &
pids="$pids $!"
for _ in $(seq 100); do
	grep -q listening "$tmp/rdsd.log" && break
	sleep 0.05
done

wait_ready() {
	for _ in $(seq 200); do
		grep -q ready "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	fail "$1 not ready"
}

# 1. Two processes, one address: local delivery.
$run $py echo $A 5000 >"$tmp/echo.out" 2>&1 &
pids="$pids $!"
wait_ready "$tmp/echo.out"
timeout 60 $run $py client $A 5001 $A 5000 200 >"$tmp/local.out" 2>&1 ||
	fail "local delivery between two processes on $A"
cat "$tmp/local.out"

# 2. To a process on librds directly (the shim's own endpoint), at B.
RDSRUN_DAEMON=0 $run $py echo $B 6000 >"$tmp/direct.out" 2>&1 &
pids="$pids $!"
wait_ready "$tmp/direct.out"
timeout 60 $run $py client $A 5002 $B 6000 200 >"$tmp/remote.out" 2>&1 ||
	fail "rdsd to a librds process"
cat "$tmp/remote.out"
grep -q "socket" "$tmp/rdsd.log" || fail "rdsd was not used"

# 3. rdsping --kernel through rdsd to a librds peer (rdsdrive), at 127.0.0.3.
LD_PRELOAD= "$drive" -b 127.0.0.3 serve --timeout 60 >/dev/null 2>"$tmp/drive.err" &
pids="$pids $!"
wait_ready "$tmp/drive.err"
timeout 60 $run "$ping" --kernel -c 3 -i 0.05 -I $A 127.0.0.3 >"$tmp/ping.out" 2>&1 ||
	fail "rdsping through rdsd"
grep -q "^3 sent, 3 received" "$tmp/ping.out" || fail "pings unanswered"
echo "rdsping through rdsd: 3 answered"

# 4. A socket survives exec, as the kernel's does.
timeout 60 $run $py exec $A 5004 $A 5000 >"$tmp/exec.out" 2>&1 ||
	fail "a socket across exec"
cat "$tmp/exec.out"

# 5. A port is its process's: in use while it lives, free once killed.
$run $py hold $A 5100 >"$tmp/hold.out" 2>&1 &
holder=$!
pids="$pids $holder"
wait_ready "$tmp/hold.out"
$run $py bind $A 5100 >"$tmp/bind1.out" 2>&1
[ $? = 3 ] || fail "port 5100 bound twice"
kill -9 $holder
wait $holder 2>/dev/null
ok=
for _ in $(seq 100); do
	if $run $py bind $A 5100 >"$tmp/bind2.out" 2>&1; then ok=1; break; fi
	sleep 0.05
done
[ -n "$ok" ] || fail "port 5100 not freed after SIGKILL"
echo "SIGKILL freed port 5100"
# ...and rdsd still serves the others.
timeout 60 $run $py client $A 5003 $A 5000 10 >"$tmp/after.out" 2>&1 ||
	fail "rdsd after a SIGKILL"
echo "ok"
