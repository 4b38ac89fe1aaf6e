#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Second README command (and what CI runs): the whole test suite.
#  1. ASan+UBSan build with warnings as errors; every ctest test, which
#     includes replaying each fuzz corpus through its harness.
#  2. The libFuzzer build of every harness (clang), each run briefly from its
#     corpus, so no harness can rot.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each stage's wall time, printed at the end (those done, when one fails).
times="" t0=$SECONDS
stage() { times="$times$(printf '  %-16s %4dm%02ds' "$1" $(((SECONDS - t0) / 60)) $(((SECONDS - t0) % 60)))
"; t0=$SECONDS; }
trap '[ -z "$times" ] || printf "test.sh: wall time by stage\n%s" "$times"' EXIT

./scripts/deps.sh --lab
stage "deps (apt)"
jobs=$(nproc)

# The Debian package test (pkg-deb) installs into /usr with dpkg: wanted in
# CI, which runs as root on a machine of its own; RDS_PKG_TEST=0 opts out.
export RDS_PKG_TEST=${RDS_PKG_TEST:-1}

cmake --preset asan >/dev/null
cmake --build build/asan -j"$jobs"
stage build
log=$(mktemp)
(cd build/asan && ctest --output-on-failure -j"$jobs" -LE 'lab|slow' ${CTEST_ARGS:-}) | tee "$log"
total=$(sed -n 's/.*tests failed out of \([0-9]*\).*/\1/p' "$log")
stage "ctest (no lab)"
# The kernel lab boots qemu guests under TCG; a scenario whose timing
# precondition was not met gets one more run, and every such retry is
# reported, never hidden.
# Soaks and ten-run repeats carry the label slow as well: not for CI.
(cd build/asan && ctest --output-on-failure -L lab -LE slow --repeat until-pass:2 ${CTEST_ARGS:-}) |
	tee "$log"
stage "ctest lab"
lab=$(sed -n 's/.*tests failed out of \([0-9]*\).*/\1/p' "$log")
total=$((total + lab))
retried=$(grep -E 'Test +#[0-9]+: lab-.*\*\*\*Failed' "$log" | sed 's/.*: \(lab-[^ ]*\).*/\1/' | sort -u || true)
if [ -n "$retried" ]; then
	echo "LAB RETRIES: passed only on a second run: $(echo $retried)"
fi
rm -f "$log"

cmake --preset fuzz -DBUILD_TESTING=OFF >/dev/null
cmake --build build/fuzz -j"$jobs"
stage "fuzz build"
secs=${FUZZ_SECONDS:-5}
for h in build/fuzz/fuzz/fuzz_*; do
	t=$(basename "$h" | sed 's/^fuzz_//')
	work=$(mktemp -d)
	cp fuzz/corpus/"$t"/* "$work"/
	if ! "$h" -max_total_time="$secs" -print_final_stats=1 "$work" >"$work.log" 2>&1; then
		tail -40 "$work.log"
		echo "fuzz smoke: $t FAILED"
		exit 1
	fi
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work.log")
	echo "fuzz smoke: $t ok, $runs runs in ${secs}s"
	rm -rf "$work" "$work.log"
	nfuzz=$((${nfuzz:-0} + 1))
done
stage "fuzz smoke"
trap - EXIT
printf 'test.sh: wall time by stage\n%s' "$times"
echo "test.sh: $((total + nfuzz)) passed, 0 failed"
