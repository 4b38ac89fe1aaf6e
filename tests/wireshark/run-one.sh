#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# run-one.sh PLUGINDIR RDSDUMP INPUT EXPECTED COUNTS [OOO] - the Wireshark plugin
# on one capture: tshark with the plugin of the build tree (PLUGINDIR holds
# 4.0/epan/rds.so) writes the rds layer of every packet as JSON, which must
# equal EXPECTED byte for byte. Then tshark -2, which shows what Wireshark
# shows once it has read the file (a second pass, as the GUI dissects a
# packet again), gives the RDS messages that are counted against rdsdump's
# on the same file, and where there are as many the RDS/TCP messages
# compared with rdsdump's (rdslayer.py): one pass cannot know where a
# stream ends, which confirms a header rdsdump confirms there. COUNTS is
# "same", or "rdsdump=N,ws=M" for a capture where they differ by design
# (said in TESTLIST). OOO "ooo=off" leaves TCP's out-of-order reassembly
# off, as Wireshark has it by default (see below). UPDATE_GOLDEN=1 rewrites
# EXPECTED instead.
#
# Exit 77 (skipped) without tshark (tshark-env.sh).
set -u
plugdir=$1 rdsdump=$2 input=$3 expected=$4 counts=$5 ooo=${6:-}
here=$(dirname "$0")
. "$here/tshark-env.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ws_setup "$tmp"
# The preference makes TCP reassembly wait for a segment that arrives out
# of order (a retransmission), as the kernel's receiver does. It also makes
# it wait for ever for a segment the capture never had: every segment after
# that hole is held back from the subdissector. So a capture with such a
# hole is read with the preference off (ooo=off in TESTLIST).
ooo_pref=TRUE
[ "$ooo" = ooo=off ] && ooo_pref=FALSE
# rds_json PASS OUT: the rds layer of every packet as JSON into OUT, from
# tshark with PASS ("" or -2); nothing there fails the test.
rds_json() {
	ws_tshark $1 -n -r "$input" -o tcp.reassemble_out_of_order:$ooo_pref \
		-Y rds.type -T json -J rds --no-duplicate-keys >"$2" 2>"$tmp/err"
	rc=$?
	if [ $rc -ne 0 ] || ! grep -q . "$2"; then
		cat "$tmp/err"
		echo "tshark${1:+ $1} failed ($rc)"
		exit 1
	fi
}
rds_json "" "$tmp/json"
# No packet the plugin dissects may end in an exception (a dissector bug
# or bytes it reads past).
for pass in "" -2; do
	ws_tshark $pass -n -r "$input" -o tcp.reassemble_out_of_order:$ooo_pref \
		-Y 'rds && _ws.malformed' -T fields -e frame.number >"$tmp/malformed" 2>/dev/null
	if grep -q . "$tmp/malformed"; then
		echo "malformed RDS packets${pass:+ ($pass)}: $(tr '\n' ' ' <"$tmp/malformed")"
		exit 1
	fi
done
rds_json -2 "$tmp/json2"
TZ=UTC "$rdsdump" -n -r "$input" --json >"$tmp/rd.json" 2>/dev/null
python3 "$here/rdslayer.py" "$tmp/json" "$tmp/rd.json" none >"$tmp/out"
python3 "$here/rdslayer.py" "$tmp/json2" "$tmp/rd.json" "$counts" >/dev/null 2>"$tmp/check"
check=$?
if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
	cat "$tmp/out" >"$expected"
	echo "updated $expected"
	cat "$tmp/check"
	exit 0
fi
fail=0
if ! cmp -s "$tmp/out" "$expected"; then
	diff -u "$expected" "$tmp/out" | head -40
	echo "wireshark golden: output differs from $expected (UPDATE_GOLDEN=1 to accept)"
	fail=1
fi
if [ $check -ne 0 ]; then
	cat "$tmp/check"
	fail=1
fi
exit $fail
