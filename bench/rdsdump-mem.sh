#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#
# rdsdump's memory against many connections (issue 21, item 5): the
# release build's max RSS (GNU time -v) on captures from gen-manyflows.py,
# with the budget (--max-mem) and what rdsdump says it gave up. The target:
# max RSS under the budget on every capture, and a warning naming the
# flows and bytes given up whenever any were.
#
# Usage: bench/rdsdump-mem.sh [-m SIZE] [-k]
#   -m SIZE   --max-mem for every run (default: rdsdump's default, 1G)
#   -k        keep the generated captures
# Environment: BENCH_DIR scratch directory (default a fresh one under
#   /tmp), RDSDUMP the binary (default build/release/tools/rdsdump/rdsdump
#   after building the release preset).
#
# The captures (each connection a SYN and a 16-byte message, never closed):
#   flows-1m       1,000,000 connections over 1,000 address pairs
#   pairs-20k      20,000 address pairs, one connection each
#   pairs-20k-hold 20,000 address pairs, each connection with 256 KiB
#                  waiting behind a hole: 4.9 GiB that wants to be held
set -eu
cd "$(dirname "$0")/.."
ROOT=$PWD

MAXMEM="" KEEP=0
while getopts "m:k" o; do
	case $o in
	m) MAXMEM=$OPTARG ;;
	k) KEEP=1 ;;
	*) sed -n '3,/^set -eu$/{/^set/!p}' "$0" >&2; exit 2 ;;
	esac
done

if [ -z "${RDSDUMP:-}" ]; then
	cmake --preset release >/dev/null
	cmake --build build/release -j2 --target rdsdump >/dev/null
	RDSDUMP=$ROOT/build/release/tools/rdsdump/rdsdump
fi
DIR=${BENCH_DIR:-$(mktemp -d /tmp/rdsdump-mem.XXXXXX)}
mkdir -p "$DIR"
[ "$KEEP" = 1 ] || trap 'rm -f "$DIR"/*.pcap' EXIT

gen() {  # gen NAME ARGS...
	name=$1
	shift
	[ -s "$DIR/$name.pcap" ] || python3 "$ROOT/bench/gen-manyflows.py" "$DIR/$name.pcap" "$@"
}
gen flows-1m --flows 1000000 --pairs 1000
gen pairs-20k --flows 20000
gen pairs-20k-hold --flows 20000 --hold 262144

printf '%-15s %9s %12s %6s  %s\n' capture MiB "max RSS KiB" exit "what rdsdump said"
for name in flows-1m pairs-20k pairs-20k-hold; do
	f=$DIR/$name.pcap
	set +e
	/usr/bin/time -v -o "$DIR/time" "$RDSDUMP" -n -r "$f" ${MAXMEM:+--max-mem "$MAXMEM"} \
		>/dev/null 2>"$DIR/err"
	rc=$?
	set -e
	rss=$(sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$DIR/time")
	said=$(grep '^rdsdump:' "$DIR/err" | head -1)
	printf '%-15s %9d %12s %6s  %s\n' "$name" $(($(stat -c %s "$f") >> 20)) "$rss" "$rc" \
		"${said:-(nothing)}"
done
