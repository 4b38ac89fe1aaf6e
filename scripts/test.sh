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
fuzzpid=""
# A failing stage ends the run: the fuzz job beside the lab goes with it.
trap '[ -z "$fuzzpid" ] || kill -- -"$fuzzpid" 2>/dev/null
[ -z "$times" ] || printf "test.sh: wall time by stage\n%s" "$times"' EXIT

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
# pkg-rpm (a second build of the whole tree, both cores for minutes) runs
# beside the lab instead, with the fuzz stage.
(cd build/asan && ctest --output-on-failure -j"$jobs" -LE 'lab|slow' -E '^pkg-rpm$' \
	${CTEST_ARGS:-}) | tee "$log"
total=$(sed -n 's/.*tests failed out of \([0-9]*\).*/\1/p' "$log")
stage "ctest (no lab)"
# The fuzz stage and pkg-rpm run beside the lab, niced: the lab's guests
# mostly wait (on timers, on each other), and at nice 19 the fuzzers and
# the compiler take only what the guests leave, so the lab's timing is
# unchanged and CI saves their minutes. Their output is printed after the
# lab's.
fuzz_stage() {
	local f0=$SECONDS
	cmake --preset fuzz -DBUILD_TESTING=OFF >/dev/null
	cmake --build build/fuzz -j"$jobs" >/dev/null
	echo "fuzz build: $((SECONDS - f0))s"
	local secs=${FUZZ_SECONDS:-5} n=0 h t work runs
	for h in build/fuzz/fuzz/fuzz_*; do
		t=$(basename "$h" | sed 's/^fuzz_//')
		work=$(mktemp -d)
		cp fuzz/corpus/"$t"/* "$work"/
		if ! "$h" -max_total_time="$secs" -print_final_stats=1 "$work" >"$work.log" 2>&1; then
			tail -40 "$work.log"
			echo "fuzz smoke: $t FAILED"
			return 1
		fi
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work.log")
		echo "fuzz smoke: $t ok, $runs runs in ${secs}s"
		rm -rf "$work" "$work.log"
		n=$((n + 1))
	done
	echo "fuzz: $n harnesses in $((SECONDS - f0))s"
}
# pkg-rpm's command (tests/CMakeLists.txt), run without ctest: a second
# ctest would write build/asan/Testing beside the lab's.
rpm_stage() {
	local r0=$SECONDS rc=0
	timeout --foreground 1800 tests/support/check-rpm.sh build/asan "$PWD" || rc=$?
	case $rc in
	0) echo "pkg-rpm: passed in $((SECONDS - r0))s" ;;
	77) echo "pkg-rpm: skipped" ;;
	*) echo "pkg-rpm: FAILED (exit $rc)"; return 1 ;;
	esac
}
fuzzlog=$(mktemp)
set -m # its own process group, so a failing run can end all of it
(renice -n 19 -p $BASHPID >/dev/null; fuzz_stage && rpm_stage) >"$fuzzlog" 2>&1 &
fuzzpid=$!
set +m

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

fuzzrc=0
wait "$fuzzpid" || fuzzrc=$?
fuzzpid=""
cat "$fuzzlog"
nfuzz=$(grep -c '^fuzz smoke: .* ok' "$fuzzlog" || true)
nfuzz=$((nfuzz + $(grep -cE '^pkg-rpm: (passed|skipped)' "$fuzzlog" || true)))
rm -f "$fuzzlog"
stage "fuzz, rpm (beside lab)"
[ "$fuzzrc" = 0 ] || { echo "test.sh: the fuzz stage or pkg-rpm failed"; exit 1; }
trap - EXIT
printf 'test.sh: wall time by stage\n%s' "$times"
echo "test.sh: $((total + nfuzz)) passed, 0 failed"
