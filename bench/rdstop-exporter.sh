#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The cost of rdstop's Prometheus exporter at 1000 peers x PATHS paths
# (issue 33). Builds the release preset, runs bench_peers 1000 PATHS (a
# centre endpoint with 1000 peers, each connection up on PATHS paths,
# then idle, its monitor published) and rdstop --librds PID -d 1
# --prometheus on it, with --prometheus-top 100 (the default) and 1000
# (every connection its own series). For each it reports:
#   series     samples in one scrape, and its size in bytes
#   collect    afrds_exporter_collect_duration_seconds: one snapshot read
#              from the process, decoded and rendered in both formats
#   cpu idle   rdstop's CPU (user + system, /proc/PID/stat) over SECONDS
#              with nobody scraping: the snapshots alone
#   cpu 10/s   the same with 10 scrapes a second (curl); the difference
#              over 10 x SECONDS is the CPU one scrape costs
#   scrape     curl's time_total for one scrape, the median of the run
#   rss        rdstop's VmRSS and VmHWM before the scrapes and at the end:
#              the difference is the memory the scrapes cost
# Run in a network namespace of its own as root (16,000 descriptors):
#   unshare -n sh -c 'ip link set lo up; bench/rdstop-exporter.sh 20 8'
# Usage: bench/rdstop-exporter.sh [SECONDS [PATHS]]
set -eu
cd "$(dirname "$0")/.."
. bench/peers.sh
tp=
peers_atexit() { [ -z "$tp" ] || kill $tp 2>/dev/null; }
peers_start 20 6 120 "$@"
now() { date +%s.%N; }
pct() { echo "$1 $2 $3 $4 $tck" | awk '{ printf "%.2f", 100 * ($2 - $1) / $5 / ($4 - $3) }'; }
url=http://127.0.0.1:9481/metrics

echo "# $(uname -srm); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "# rdstop --librds on bench_peers 1000 $paths, -d 1, $secs s a phase"
for top in 100 1000; do
	"$b/tools/rdstop/rdstop" --librds "$pid" -d 1 --prometheus 127.0.0.1:9481 \
		--prometheus-top $top 2>"$dir/err" &
	tp=$!
	until curl -sf -o "$dir/m" $url; do sleep 0.2; done
	sleep 2
	curl -sf -o "$dir/m" $url
	series=$(grep -vc '^#' "$dir/m")
	size=$(wc -c <"$dir/m")
	c0=$(cpu $tp); t0=$(now)
	sleep "$secs"
	c1=$(cpu $tp); t1=$(now)
	idle=$(pct "$c0" "$c1" "$t0" "$t1")
	collect=$(curl -sf $url | awk '$1 == "afrds_exporter_collect_duration_seconds" { printf "%.1f ms", $2 * 1000 }')
	: >"$dir/times"
	rss0=$(awk '/^VmRSS|^VmHWM/ { printf "%s %s kB  ", $1, $2 }' /proc/$tp/status)
	c0=$(cpu $tp); t0=$(now)
	n=$((10 * secs))
	i=0
	while [ $i -lt $n ]; do
		curl -sf -o /dev/null -w '%{time_total}\n' $url >>"$dir/times"
		sleep 0.1
		i=$((i + 1))
	done
	c1=$(cpu $tp); t1=$(now)
	busy=$(pct "$c0" "$c1" "$t0" "$t1")
	scrapes=$(wc -l <"$dir/times")
	per=$(echo "$idle $busy $t0 $t1 $scrapes" |
		awk '{ printf "%.2f ms", ($2 - $1) / 100 * ($4 - $3) / $5 * 1000 }')
	med=$(sort -n "$dir/times" | awk '{ a[NR] = $1 } END { printf "%.1f ms", a[int((NR + 1) / 2)] * 1000 }')
	rss=$(awk '/^VmRSS|^VmHWM/ { printf "%s %s kB  ", $1, $2 }' /proc/$tp/status)
	kill $tp
	wait $tp 2>/dev/null || true
	tp=
	echo "top $top: series $series ($size bytes); collect $collect; cpu idle $idle %," \
		"with $scrapes scrapes ${busy} % ($per a scrape); scrape median $med;" \
		"before the scrapes $rss0; at the end $rss"
done
