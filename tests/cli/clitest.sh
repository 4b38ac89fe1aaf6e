# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# clitest.sh - what the tests/cli shell tests share, sourced at their start:
# fail=0, and $tmp, a scratch directory removed at exit (unless the test
# has one already, as peer.sh makes);
#   expect STATUS DESCRIPTION CMD...
# runs CMD with its stdout in $tmp/out and its stderr in $tmp/err; another
# exit status than STATUS is a failure (fail=1), said with both outputs.
expect() {
	want=$1 what=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" != "$want" ]; then
		echo "FAIL: $what: exit $got, want $want"; cat "$tmp/out" "$tmp/err"; fail=1
	fi
}

fail=0
if [ -z "${tmp:-}" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
fi
