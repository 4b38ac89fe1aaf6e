#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The two JSON writers on rdsdump's records: tools/common/out.c against
# json-c (bench/bench_json.c), and what JSON costs rdsdump end to end.
# The result decided docs/architecture.md, "One JSON writer".
#
# Usage: bench/json-writers.sh [SIZE_MB]          (default 64)
#   1. a SIZE_MB RDS/TCP capture from bench/gen-rdstcp.py (seed 1), kept in
#      a scratch directory (BENCH_DIR, default under /tmp), never the tree;
#   2. rdsdump -r CAP > /dev/null, rdsdump --json and -v (3 runs each, the
#      best wall time): records/s and MB/s of output;
#   3. bench_json on rdsdump's --json output: both writers replay the same
#      writer calls into /dev/null (5 passes, the best), after checking
#      that each writes rdsdump's bytes exactly.
# Pinned to CPU 0 with taskset where present, as bench/run.sh is.
set -eu
cd "$(dirname "$0")/.."
MB=${1:-64}
DIR=${BENCH_DIR:-$(mktemp -d /tmp/rds-json-bench.XXXXXX)}
cmake --preset release >/dev/null
cmake --build build/release -j"$(nproc)" --target rdsdump bench_json >/dev/null
RDSDUMP=build/release/tools/rdsdump/rdsdump
BENCH=build/release/bench/bench_json
PIN=""
command -v taskset >/dev/null && PIN="taskset -c 0"
CAP=$DIR/rdstcp-$MB.pcap
[ -f "$CAP" ] || python3 bench/gen-rdstcp.py "$MB" "$CAP" --seed 1 >/dev/null
cat "$CAP" >/dev/null

best() { # best wall seconds of 3 runs of "$@" > /dev/null
	b=""
	for _ in 1 2 3; do
		t0=$(date +%s.%N)
		"$@" >/dev/null
		t=$(echo "$(date +%s.%N) - $t0" | bc)
		if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then b=$t; fi
	done
	echo "$b"
}

echo "# $(uname -srm); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "# capture: $MB MiB from bench/gen-rdstcp.py --seed 1"
$RDSDUMP -r "$CAP" --json > "$DIR/out.json"
$RDSDUMP -r "$CAP" > "$DIR/out.txt"
recs=$(wc -l < "$DIR/out.json")
for mode in "" "-v" "--json"; do
	# shellcheck disable=SC2086
	t=$(best $PIN $RDSDUMP -r "$CAP" $mode)
	case $mode in --json) bytes=$(wc -c < "$DIR/out.json") ;; *) bytes=$($RDSDUMP -r "$CAP" $mode | wc -c) ;; esac
	printf 'rdsdump %-7s %7.2f s %10.0f records/s %8.1f MB/s of output\n' "${mode:-(line)}" \
		"$t" "$(echo "$recs / $t" | bc -l)" "$(echo "$bytes / $t / 1000000" | bc -l)"
done
$PIN $BENCH "$DIR/out.json" --passes 5
[ -n "${BENCH_DIR:-}" ] || rm -rf "$DIR"
