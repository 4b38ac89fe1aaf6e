# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Sourced by bench/rdstop.sh and bench/rdstop-exporter.sh, from the top of
# the tree:
#   peers_start SECS A B [SECONDS [PATHS]]  takes the caller's arguments
#       into secs (SECONDS, default SECS) and paths (PATHS, default 8),
#       makes the scratch directory dir, which goes at exit with
#       bench_peers and whatever the caller's peers_atexit stops, and
#       starts the peers (peers_up PATHS A x secs + B)
#   peers_up PATHS HOLD  builds the release preset's bench_peers and
#       rdstop, starts bench_peers 1000 PATHS HOLD (a centre endpoint with
#       1000 peers, each connection up on PATHS paths, then idle for HOLD
#       seconds) with its monitor published in $dir, and waits for it;
#       sets b (the build tree), bp (bench_peers' pid), pid (the centre's
#       pid, for rdstop --librds) and tck (clock ticks a second)
#   cpu PID  the user + system ticks PID has used so far
peers_atexit() { :; }

peers_start() {
	secs=${4:-$1}
	paths=${5:-8}
	dir=$(mktemp -d)
	bp=
	trap 'kill $bp 2>/dev/null; peers_atexit; rm -rf "$dir"' EXIT
	peers_up "$paths" $(($2 * secs + $3))
}

peers_up() {
	cmake --preset release >/dev/null
	cmake --build build/release -j2 --target bench_peers rdstop >/dev/null
	b=build/release
	export RDSU_MONITOR_DIR=$dir
	"$b/bench/bench_peers" 1000 "$1" "$2" >"$dir/peers.out" &
	bp=$!
	while ! grep -q '^monitor=' "$dir/peers.out"; do
		kill -0 $bp 2>/dev/null || { cat "$dir/peers.out"; exit 1; }
		sleep 1
	done
	pid=$(sed -n 's/.* pid=//p' "$dir/peers.out")
	tck=$(getconf CLK_TCK)
}

cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
