#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# shim-cost.sh [BUILD] [SECONDS] - what the preload shim costs: rdsperf on
# librds directly against rdsperf --kernel through rdsrun (the AF_RDS
# calls a program makes, on librds underneath), in the same run, then
# Debian's qperf rds_bw/rds_lat through rdsrun. Server 127.0.0.2, client
# 127.0.0.1, in a network namespace of its own (run as root, or where
# unshare -rn works). BUILD defaults to build/release.
# Modes, one after the other for each test:
#   librds    both sides on librds directly (rdsperf)
#   shim      both through rdsrun, each process its own endpoint
#   rdsd      both through rdsrun and one rdsd (its local delivery)
#   rdsd-tcp  the client through rdsd, the server on librds directly
#             (rdsd's TCP path)
# and qperf, server and client on 127.0.0.1 through one rdsd.
set -eu
build=$(realpath "${1:-build/release}")
secs=${2:-5}
if [ "${SHIM_COST_NETNS:-}" != 1 ]; then
	for u in "unshare -n" "unshare -rn"; do
		if $u true 2>/dev/null; then
			SHIM_COST_NETNS=1 exec $u "$0" "$build" "$secs"
		fi
	done
	echo "shim-cost.sh: needs a network namespace (unshare -n)" >&2
	exit 1
fi
ip link set lo up
perf=$build/tools/rdsperf/rdsperf run=$build/shim/rdsrun
export RDSD_PATH=$build/shim/rdsd
one() {  # one LABEL TEST SIZE: each mode in turn
	for how in librds shim rdsd rdsd-tcp; do
		spre= cpre= sk= ck=
		case $how in
		shim) spre="$run -f" cpre="$run -f" sk=--kernel ck=--kernel
			export RDSRUN_DAEMON=0 ;;
		rdsd) spre="$run -f" cpre="$run -f" sk=--kernel ck=--kernel
			export RDSRUN_DAEMON=1 ;;
		rdsd-tcp) cpre="$run -f" ck=--kernel
			export RDSRUN_DAEMON=1 ;;
		esac
		$spre "$perf" -s -B 127.0.0.2 --one-off $sk -p 18600 >/dev/null 2>&1 &
		s=$!
		sleep 0.5
		printf '%-8s %-9s %6s  ' "$how" "$2" "$3"
		$cpre "$perf" -c 127.0.0.2 -B 127.0.0.1 $ck -p 18600 -t "$secs" --test "$2" -l "$3" 2>&1 |
			grep -E '^(receiver|responses)' | tr -s ' '
		wait $s || true
		unset RDSRUN_DAEMON
		sleep 2.5   # a spawned rdsd lingers 2 s after its last socket
	done
}
one stream stream 64K
one stream stream 64
one pingpong pingpong 64
if command -v qperf >/dev/null; then
	for how in shim rdsd; do
		dial=127.0.0.2
		[ $how = rdsd ] && dial=127.0.0.1 && export RDSRUN_DAEMON=1
		[ $how = shim ] && export RDSRUN_DAEMON=0
		"$run" -f qperf -lp 19783 >/dev/null 2>&1 &
		q=$!
		sleep 0.5
		for t in rds_bw rds_lat; do
			# qperf's server names its data port before it listens on
			# it: nice keeps its client from winning that race
			printf 'qperf    %-8s %s  ' $how $t
			nice -n 19 "$run" -f qperf -lp 19783 -t "$secs" $dial $t 2>&1 | tail -1 |
				tr -s ' '
		done
		kill $q
		wait $q 2>/dev/null || true
		unset RDSRUN_DAEMON
		sleep 2.5
	done
fi
