#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rdstop-cli.sh RDSTOP - rdstop's command line: exit statuses 0/2, usage
# errors said, a capture file that is not there, and --kernel-info on this host: without the rds
# module the one sentence naming the module to load, with it two snapshots. --kernel, the old
# spelling of --kernel-info, still works for a release and says so.
set -u
bin=$1
. "$(dirname "$0")/clitest.sh"

expect 0 "--help" "$bin" --help
expect 0 "--version" "$bin" --version
expect 2 "no source" "$bin" -b
grep -q "a source is needed: -i IFACE, -r FILE, --kernel-info or --librds" "$tmp/err" || { echo "FAIL: no source not said"; fail=1; }
expect 2 "no terminal" "$bin" --kernel-info </dev/null
grep -q "needs a terminal: use -b" "$tmp/err" || { echo "FAIL: no terminal not said"; fail=1; }
expect 2 "two sources" "$bin" --kernel-info -r x.pcap -b
grep -q "one source only" "$tmp/err" || { echo "FAIL: two sources not said"; fail=1; }
expect 2 "missing capture" "$bin" -r "$tmp/none.pcap" -b
grep -q "none.pcap" "$tmp/err" || { echo "FAIL: missing capture not named"; fail=1; }
expect 2 "bad count" "$bin" --kernel-info -b -n 0
grep -q "bad count" "$tmp/err" || { echo "FAIL: bad count not said"; fail=1; }
expect 2 "bad delay" "$bin" --kernel-info -b -d 0
expect 2 "an argument" "$bin" --kernel-info -b extra

"$bin" --kernel-info -b -n 2 -d 0.05 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 2 ]; then
	if [ "$(cat "$tmp/err")" != "rdstop: AF_RDS is not available: load rds (modprobe rds_tcp)" ]; then
		echo "FAIL: without AF_RDS:"; cat "$tmp/err"; fail=1
	fi
	[ -s "$tmp/out" ] && { echo "FAIL: output without AF_RDS"; fail=1; }
elif [ "$rc" = 0 ]; then
	n=$(grep -c '^rdstop - kernel - ' "$tmp/out")
	[ "$n" = 2 ] || { echo "FAIL: $n snapshots, want 2"; fail=1; }
	grep -q '^COUNTERS$' "$tmp/out" || { echo "FAIL: no counters"; fail=1; }
else
	echo "FAIL: --kernel-info exit $rc"; cat "$tmp/err"; fail=1
fi
# the old spelling: the same source, and a note on stderr
"$bin" --kernel -b -n 1 -d 0.05 >"$tmp/out" 2>"$tmp/err"
rc2=$?
[ "$rc2" = "$rc" ] || { echo "FAIL: --kernel exit $rc2, --kernel-info $rc"; fail=1; }
grep -q "^rdstop: --kernel is deprecated here: use --kernel-info$" "$tmp/err" ||
	{ echo "FAIL: --kernel alias not said"; cat "$tmp/err"; fail=1; }
[ "$fail" = 0 ] && echo "rdstop-cli: pass"
exit "$fail"
