# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# golden.sh - what the golden tests share, sourced:
#   golden EXPECTED CMD...
# runs CMD in UTC and the C locale; its output (stdout, then the exit
# status) must equal EXPECTED byte for byte. UPDATE_GOLDEN=1 rewrites
# EXPECTED instead; review the diff like code.
golden() {
	expected=$1
	shift
	out=$(mktemp)
	trap 'rm -f "$out"' EXIT
	TZ=UTC LC_ALL=C "$@" >"$out" 2>/dev/null
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
}
