#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# shim-cost.sh [BUILD] [SECONDS] - what the preload shim costs: rdsperf on
# librds directly against rdsperf --kernel through rdsrun (the AF_RDS
# calls a program makes, on librds underneath), in the same run, then
# Debian's qperf rds_bw/rds_lat through rdsrun. Server 127.0.0.2, client
# 127.0.0.1, in a network namespace of its own (run as root, or where
# unshare -rn works). BUILD defaults to build/release.
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
one() {  # one LABEL TEST SIZE: librds, then the shim
	for how in librds shim; do
		pre= k=
		[ $how = shim ] && pre="$run -f" k=--kernel
		$pre "$perf" -s -B 127.0.0.2 --one-off $k -p 18600 >/dev/null 2>&1 &
		s=$!
		sleep 0.5
		printf '%-8s %-9s %6s  ' "$how" "$2" "$3"
		$pre "$perf" -c 127.0.0.2 -B 127.0.0.1 $k -p 18600 -t "$secs" --test "$2" -l "$3" 2>&1 |
			grep -E '^(receiver|responses)' | tr -s ' '
		wait $s || true
	done
}
one stream stream 64K
one stream stream 64
one pingpong pingpong 64
if command -v qperf >/dev/null; then
	"$run" -f qperf -lp 19783 >/dev/null 2>&1 &
	q=$!
	sleep 0.5
	for t in rds_bw rds_lat; do
		# qperf's server names its data port before it listens on it:
		# nice keeps its client from winning that race
		printf 'qperf    %s  ' $t
		nice -n 19 "$run" -f qperf -lp 19783 -t "$secs" 127.0.0.2 $t 2>&1 | tail -1 | tr -s ' '
	done
	kill $q
fi
