#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rdstop's own CPU use watching a librds endpoint with 1,000 peers, once a
# second (issue 19: under 2 % of a core). Builds the release preset, runs
# bench_peers 1000 (a centre endpoint on 127.3.0.1 and 1000 peer endpoints
# on 127.4.x.y, each connection up on PATHS paths, then idle) with its
# monitor published, and measures rdstop --librds on it for SECONDS:
#   batch   rdstop -b -d 1 (text to /dev/null)
#   json    rdstop -b --json -d 1 (to /dev/null)
#   screen  the ncurses screen in a detached tmux session (200x50), the
#           peers view, refreshing every second
# CPU is user + system time from /proc/PID/stat over the run, divided by
# the wall time. Run as root or with a high enough RLIMIT_NOFILE (2 x
# PEERS x PATHS descriptors). Usage: bench/rdstop.sh [SECONDS [PATHS]]
set -eu
cd "$(dirname "$0")/.."
. bench/peers.sh
peers_atexit() { tmux kill-session -t rdstop-bench 2>/dev/null; }
peers_start 60 3 60 "$@"
cat "$dir/peers.out"

measure() {
	name=$1
	shift
	"$@" >/dev/null 2>"$dir/err" &
	p=$!
	sleep 1
	c0=$(cpu $p)
	t0=$(date +%s.%N)
	sleep "$secs"
	c1=$(cpu $p)
	t1=$(date +%s.%N)
	kill $p
	wait $p 2>/dev/null || true
	echo "$name $c0 $c1 $t0 $t1 $tck" |
		awk '{ printf "%-7s cpu %.2f %% of a core over %.1f s\n", $1, 100 * ($3 - $2) / $6 / ($5 - $4), $5 - $4 }'
}

echo "# $(uname -srm); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "# rdstop --librds on bench_peers 1000 $paths, -d 1, $secs s each"
measure batch "$b/tools/rdstop/rdstop" -b -d 1 --librds "$pid"
measure json "$b/tools/rdstop/rdstop" -b --json -d 1 --librds "$pid"
if command -v tmux >/dev/null; then
	tmux new-session -d -s rdstop-bench -x 200 -y 50 \
		"exec $b/tools/rdstop/rdstop -d 1 --librds $pid"
	sleep 1
	tp=$(tmux list-panes -t rdstop-bench -F '#{pane_pid}')
	c0=$(cpu "$tp")
	t0=$(date +%s.%N)
	sleep "$secs"
	c1=$(cpu "$tp")
	t1=$(date +%s.%N)
	tmux kill-session -t rdstop-bench
	echo "screen $c0 $c1 $t0 $t1 $tck" |
		awk '{ printf "%-7s cpu %.2f %% of a core over %.1f s\n", $1, 100 * ($3 - $2) / $6 / ($5 - $4), $5 - $4 }'
fi
