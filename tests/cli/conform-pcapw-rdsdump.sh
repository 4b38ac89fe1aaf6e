#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# conform-pcapw-rdsdump.sh UNIT_CONFORM_PCAPW RDSDUMP - the capture
# rds-conform's writer makes (test_pcapw FILE) is one rdsdump reads whole:
# both connections open, every message in place, no gap, resync, retrans
# or undecodable packet, and the ends it wrote.
set -u
writer=$1 rdsdump=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

"$writer" "$tmp/x.pcap" || { echo "FAIL: writer"; exit 1; }
"$rdsdump" -n -t -r "$tmp/x.pcap" >"$tmp/out" 2>"$tmp/err" || { echo "FAIL: rdsdump exit $?"; cat "$tmp/err"; exit 1; }

want() {  # want COUNT PATTERN
	n=$(grep -c -- "$2" "$tmp/out")
	[ "$n" = "$1" ] || { echo "FAIL: $n lines match '$2', want $1"; fail=1; }
}
want 4 ": tcp syn$"
want 1 "^TCP 10.0.0.1.40000 > 10.0.0.2.16385 path 0: cong seq 0 len 8192: ports 4000-4001 congested$"
want 1 "^TCP 10.0.0.1.40000 > 10.0.0.2.16385 path 0: data 4000 > 4001 seq 1 len 100$"
want 1 "^TCP 10.0.0.2.16385 > 10.0.0.1.40000 path 0: probe-pong 0 > 1 seq 1 len 0 npaths 8 gen_num 0x12345678 sport_idx 0$"
want 1 "^TCP \[fd00::1\].40001 > \[fd00::2\].16385 path 0: data 5000 > 5001 seq 7 len 100000$"
want 1 "^TCP \[fd00::2\].16385 > \[fd00::1\].40001 path 0: cong seq 0 len 8192"
want 2 ": tcp fin$"
want 1 ": tcp rst$"
want 0 "gap\|resync\|retrans\|midstream\|incomplete\|frame \|partial\|!"
[ "$(wc -l <"$tmp/out")" = 12 ] || { echo "FAIL: $(wc -l <"$tmp/out") lines, want 12"; fail=1; }
[ $fail = 0 ] && echo "conform pcapw + rdsdump: all passed"
[ $fail = 0 ] || cat "$tmp/out"
exit $fail
