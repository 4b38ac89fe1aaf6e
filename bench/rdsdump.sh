#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#
# rdsdump against tcpdump and tshark on big RDS/TCP captures. The target
# (issue): on >= 1 GB of RDS/TCP, `rdsdump -r` decoding every message to
# /dev/null is at least as fast as `tcpdump -n -r` printing the same file,
# at least 10 times faster than `tshark -r`, and its memory stays flat as
# the file grows (hence two sizes).
#
# Usage: bench/rdsdump.sh [options] [SIZE_MB...]      (default: 1024 2048)
#   -n RUNS      runs of each tcpdump/rdsdump command; the median wall time
#                is reported, and the largest max RSS (default 3)
#   -T RUNS      runs of tshark (default 1: it is the slow one)
#   -s MB        time tshark on an MB-sized capture from the same generator
#                and scale its time linearly to each size; the output says
#                so on every scaled figure (default: full size). tshark
#                slows down as its per-connection state grows (measured:
#                about 19 MiB/s on 5 MiB, 6 MiB/s on 1 GiB), so a scaled
#                time is too short and a ratio against it conservative
#   -k           keep the generated captures
#   -b           baseline only: tcpdump and tshark, no rdsdump (no build)
#   -P           do not pin to one CPU (default: taskset -c 0 when present,
#                as bench/run.sh does, so runs are comparable)
# Environment: BENCH_DIR scratch directory for captures (default a fresh
#   directory under /tmp; they are big, never put them in the repository),
#   RDSDUMP the binary (default build/release/tools/rdsdump/rdsdump after
#   building the release preset), SEED generator seed (default 1).
#
# Time: tshark dominates. Measured on 2 CPUs (AMD EPYC): tcpdump 4-5 s per
# GiB; tshark 184 s on 1 GiB but 2500 s on 2 GiB (3.2 GiB RSS), so the
# default run takes about 50 minutes; -s 1024 times tshark once, on 1 GiB.
#
# Captures come from bench/gen-rdstcp.py (see its header for the traffic).
# Every file is read once before timing so that all tools start from the
# page cache and the first one measured is not charged for the disk.
set -eu
cd "$(dirname "$0")/.."
ROOT=$PWD

RUNS=3 TRUNS=1 TSHARK_MB="" KEEP=0 BASELINE=0 PIN=1
while getopts "n:T:s:kbP" o; do
	case $o in
	n) RUNS=$OPTARG ;;
	T) TRUNS=$OPTARG ;;
	s) TSHARK_MB=$OPTARG ;;
	k) KEEP=1 ;;
	b) BASELINE=1 ;;
	P) PIN=0 ;;
	*) sed -n '3,/^set -eu$/{/^set/!p}' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
SIZES=${*:-1024 2048}
SEED=${SEED:-1}

die() { echo "rdsdump.sh: $*" >&2; exit 1; }

for t in tcpdump tshark python3 awk; do
	command -v "$t" >/dev/null || die "$t not found (scripts/deps.sh installs the tools)"
done
# GNU time, not the shell keyword: it reports the maximum RSS.
if ! { [ -x /usr/bin/time ] && /usr/bin/time -f '%e %M' true 2>/dev/null; }; then
	die "/usr/bin/time (GNU time) missing: apt-get install time"
fi
PINCMD=()
if [ "$PIN" = 1 ] && command -v taskset >/dev/null; then PINCMD=(taskset -c 0); fi

RDSDUMP=${RDSDUMP:-}
if [ "$BASELINE" = 0 ]; then
	if [ -z "$RDSDUMP" ]; then
		RDSDUMP=$ROOT/build/release/tools/rdsdump/rdsdump
		[ -f build/release/CMakeCache.txt ] || cmake --preset release >/dev/null ||
			die "cmake --preset release failed"
		log=${TMPDIR:-/tmp}/rdsdump-build.log
		if ! cmake --build --preset release -j"$(nproc)" --target rdsdump >"$log" 2>&1; then
			tail -5 "$log" >&2
			die "building the rdsdump target of the release preset failed (log: $log);" \
				"does tools/rdsdump/CMakeLists.txt define the executable yet?" \
				"Use -b for the tcpdump/tshark baseline alone."
		fi
	fi
	[ -x "$RDSDUMP" ] || die "rdsdump binary missing: $RDSDUMP (build it, set RDSDUMP=, or use -b)"
fi

if [ -n "${BENCH_DIR:-}" ]; then
	mkdir -p "$BENCH_DIR"
	OWN_DIR=0
else
	BENCH_DIR=$(mktemp -d /tmp/rdsdump-bench.XXXXXX)
	OWN_DIR=1
fi
GENERATED=()
# shellcheck disable=SC2317  # run by the trap
cleanup() {
	rm -f "$BENCH_DIR/.time" "$BENCH_DIR/.err"
	if [ "$KEEP" = 0 ]; then
		rm -f ${GENERATED[@]+"${GENERATED[@]}"}
		if [ "$OWN_DIR" = 1 ]; then rmdir "$BENCH_DIR" 2>/dev/null || true; fi
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

gen() { # SIZE_MB FILE
	local s
	[ -f "$2" ] && { echo "  (reusing $2)" >&2; return; }
	GENERATED+=("$2")
	s=$(date +%s.%N)
	python3 bench/gen-rdstcp.py "$1" "$2" --seed "$SEED" >&2
	awk -v a="$s" -v b="$(date +%s.%N)" -v f="$(stat -c %s "$2")" \
		'BEGIN { printf "  generated %.0f MiB in %.1f s (%.0f MiB/s)\n", f/1048576, b-a, f/1048576/(b-a) }' >&2
}

# measure RUNS CMD... -> "median_wall max_rss_kib"; stdout of CMD to /dev/null
measure() {
	local runs=$1 i walls="" rss=0 w m
	shift
	for ((i = 0; i < runs; i++)); do
		if ! /usr/bin/time -f '%e %M' -o "$BENCH_DIR/.time" ${PINCMD[@]+"${PINCMD[@]}"} "$@" \
			>/dev/null 2>"$BENCH_DIR/.err"; then
			tail -3 "$BENCH_DIR/.err" >&2
			die "failed: $*"
		fi
		read -r w m <"$BENCH_DIR/.time"
		walls="$walls $w"
		[ "$m" -gt "$rss" ] && rss=$m
	done
	echo "$(echo "$walls" | tr ' ' '\n' | grep . | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }') $rss"
}

CPU=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')
echo "# rdsdump benchmark"
echo
echo "- machine: $(uname -srm), $(nproc) CPUs, ${CPU:-unknown CPU}, $(awk '/MemTotal/ { printf "%.0f GiB RAM", $2/1048576 }' /proc/meminfo)"
echo "- tools: $(tcpdump --version 2>&1 | head -1), $(tshark --version 2>/dev/null | head -1)"
[ "$BASELINE" = 0 ] && echo "- rdsdump: $RDSDUMP"
echo "- captures: bench/gen-rdstcp.py SIZE_MB FILE --seed $SEED, in $BENCH_DIR"
echo "- timing: /usr/bin/time -f '%e %M' ${PINCMD[*]} CMD > /dev/null; median of $RUNS runs (tshark: $TRUNS), largest max RSS; page cache warm"
echo

declare -A WALL RSS NOTE BYTES
TS_FILE=""
if [ -n "$TSHARK_MB" ]; then
	TS_FILE=$BENCH_DIR/rdstcp-${TSHARK_MB}M-seed$SEED.pcap
	echo "generating the ${TSHARK_MB} MiB tshark capture" >&2
	gen "$TSHARK_MB" "$TS_FILE"
	cat "$TS_FILE" >/dev/null
	echo "tshark on $TS_FILE" >&2
	res=$(measure "$TRUNS" tshark -r "$TS_FILE")
	read -r TS_WALL TS_RSS <<<"$res"
	TS_BYTES=$(stat -c %s "$TS_FILE")
fi

CMDS=()
for size in $SIZES; do
	f=$BENCH_DIR/rdstcp-${size}M-seed$SEED.pcap
	echo "generating ${size} MiB" >&2
	gen "$size" "$f"
	cat "$f" >/dev/null
	bytes=$(stat -c %s "$f")
	echo "tcpdump on $f" >&2
	res=$(measure "$RUNS" tcpdump -n -r "$f")
	read -r "WALL[$size,tcpdump]" "RSS[$size,tcpdump]" <<<"$res"
	CMDS+=("tcpdump -n -r $f > /dev/null")
	if [ -n "$TS_FILE" ]; then
		x=$(awk -v a="$bytes" -v b="$TS_BYTES" 'BEGIN { printf "%.3f", a / b }')
		WALL[$size,tshark]=$(awk -v t="$TS_WALL" -v x="$x" 'BEGIN { printf "%.2f", t * x }')
		RSS[$size,tshark]=$TS_RSS
		NOTE[$size,tshark]="SCALED: measured ${TS_WALL} s on ${TSHARK_MB} MiB, x$x;"
		NOTE[$size,tshark]+=" RSS is that run's"
	else
		echo "tshark on $f" >&2
		res=$(measure "$TRUNS" tshark -r "$f")
		read -r "WALL[$size,tshark]" "RSS[$size,tshark]" <<<"$res"
	fi
	CMDS+=("tshark -r ${TS_FILE:-$f} > /dev/null${TS_FILE:+    # scaled to ${size} MiB}")
	if [ "$BASELINE" = 0 ]; then
		for mode in line quiet json; do
			case $mode in
			line) args=(-r "$f") ;;
			quiet) args=(-r "$f" -q -z) ;;
			json) args=(-r "$f" --json) ;;
			esac
			echo "rdsdump ${args[*]}" >&2
			res=$(measure "$RUNS" "$RDSDUMP" "${args[@]}")
			read -r "WALL[$size,$mode]" "RSS[$size,$mode]" <<<"$res"
			CMDS+=("$RDSDUMP ${args[*]} > /dev/null")
		done
	fi
	BYTES[$size]=$bytes
done

mib() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }
rate() { awk -v b="$1" -v t="$2" 'BEGIN { if (t > 0) printf "%.0f", b / 1048576 / t; else print "-" }'; }

echo "## Results"
echo
echo "| Capture | Command | Wall (s) | Max RSS (MiB) | MiB/s | Note |"
echo "|---|---|---:|---:|---:|---|"
TOOLS="tcpdump tshark"
[ "$BASELINE" = 0 ] && TOOLS="$TOOLS line quiet json"
for size in $SIZES; do
	for t in $TOOLS; do
		case $t in
		tcpdump) c="tcpdump -n -r" ;;
		tshark) c="tshark -r" ;;
		line) c="rdsdump -r" ;;
		quiet) c="rdsdump -r -q -z" ;;
		json) c="rdsdump -r --json" ;;
		esac
		echo "| ${size} MiB | \`$c\` | ${WALL[$size,$t]} | $(mib "${RSS[$size,$t]}") | $(rate "${BYTES[$size]}" "${WALL[$size,$t]}") | ${NOTE[$size,$t]:-} |"
	done
done
echo

if [ "$BASELINE" = 0 ]; then
	echo "## Against the target"
	echo
	echo "Speed-up = the other tool's wall time / rdsdump's. Target: >= 1 vs tcpdump, >= 10 vs tshark."
	echo
	echo "| Capture | rdsdump mode | vs tcpdump | vs tshark | Verdict |"
	echo "|---|---|---:|---:|---|"
	ok=1
	for size in $SIZES; do
		for t in line quiet json; do
			r1=$(awk -v a="${WALL[$size,tcpdump]}" -v b="${WALL[$size,$t]}" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 999) }')
			r2=$(awk -v a="${WALL[$size,tshark]}" -v b="${WALL[$size,$t]}" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 999) }')
			v=$(awk -v a="$r1" -v b="$r2" 'BEGIN { print (a >= 1 && b >= 10) ? "pass" : "FAIL" }')
			[ "$v" = pass ] || ok=0
			s=""
			[ -n "${NOTE[$size,tshark]:-}" ] && s=" (tshark scaled)"
			echo "| ${size} MiB | $t | $r1 | $r2$s | $v |"
		done
	done
	echo
	echo "Overall: $([ "$ok" = 1 ] && echo "speed target met" || echo "speed target NOT met")"
	echo
fi

# shellcheck disable=SC2086  # one word per size
set -- $SIZES
if [ $# -ge 2 ]; then
	first=$1 last=${!#}
	echo "Memory as the file grows (${first} -> ${last} MiB), max RSS:"
	for t in $TOOLS; do
		a=${RSS[$first,$t]} b=${RSS[$last,$t]}
		echo "- $t: $(mib "$a") -> $(mib "$b") MiB" \
			"($(awk -v a="$a" -v b="$b" 'BEGIN { if (a > 0) printf "%+.0f%%", (b - a) * 100 / a; else print "n/a" }'))"
	done
	echo
fi

echo "## Commands"
echo
for c in "${CMDS[@]}"; do echo "    ${PINCMD[*]} $c"; done
[ "$KEEP" = 1 ] && echo && echo "Captures kept in $BENCH_DIR"
exit 0
