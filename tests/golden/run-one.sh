#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# run-one.sh RDSDUMP INPUT EXPECTED [ARGS...] - one golden test, the tcpdump
# way: rdsdump reads INPUT with ARGS and its output (stdout, then the exit
# status) must equal EXPECTED byte for byte. UPDATE_GOLDEN=1 rewrites
# EXPECTED instead; review the diff like code.
set -u
bin=$1 input=$2 expected=$3
shift 3
out=$(mktemp)
trap 'rm -f "$out"' EXIT
TZ=UTC LC_ALL=C "$bin" -n -r "$input" "$@" >"$out" 2>/dev/null
echo "exit $?" >>"$out"
if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
	cat "$out" >"$expected"
	echo "updated $expected"
	exit 0
fi
if ! cmp -s "$out" "$expected"; then
	diff -u "$expected" "$out" | head -60
	echo "golden: output differs from $expected (UPDATE_GOLDEN=1 to accept)"
	exit 1
fi
