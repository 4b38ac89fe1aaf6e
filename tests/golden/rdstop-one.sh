#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rdstop-one.sh RDSTOP INPUT EXPECTED [ARGS...] - one rdstop golden test:
# rdstop -r INPUT -b ARGS replays the capture on its own clock, so its
# output (stdout, then the exit status) must equal EXPECTED byte for byte.
# UPDATE_GOLDEN=1 rewrites EXPECTED instead; review the diff like code.
set -u
bin=$1 input=$2 expected=$3
shift 3
out=$(mktemp)
trap 'rm -f "$out"' EXIT
TZ=UTC LC_ALL=C "$bin" -r "$input" -b "$@" >"$out" 2>/dev/null
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
