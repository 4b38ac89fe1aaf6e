#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rdsping-cli.sh RDSPING RDSDRIVE - rdsping against a librds peer on
# loopback (127.0.1.2, answering pings with no program of its own beyond an
# idle endpoint): replies, their count and format, JSON, -n spreading over
# sockets, lost replies counted without a hang, exit statuses 0/1/2.
set -u
bin=$1 drive=$2
. "$(dirname "$0")/peer.sh"
. "$(dirname "$0")/clitest.sh"

expect 0 "--help" "$bin" --help
expect 0 "--version" "$bin" --version
expect 2 "no host" "$bin"
expect 2 "bad host" "$bin" not-an-address
expect 2 "bad count" "$bin" -c 0 127.0.1.2
grep -q "bad count" "$tmp/err" || { echo "FAIL: bad count not said"; fail=1; }
expect 2 "bad interval" "$bin" -i -1 127.0.1.2
expect 2 "bad sockets" "$bin" -n 65 127.0.1.2
expect 2 "source not local" "$bin" -c 1 -I 192.0.2.1 127.0.1.2
expect 2 "two hosts" "$bin" 127.0.1.2 127.0.1.3
# A name glibc refuses before asking any resolver: nothing leaves the host.
expect 2 "bad name" "$bin" -c 1 bad..host
grep -q "bad host 'bad..host'" "$tmp/err" || { echo "FAIL: bad name not said"; cat "$tmp/err"; fail=1; }
expect 2 "size too large" "$bin" -s 106497 127.0.1.2
grep -q "bad size" "$tmp/err" || { echo "FAIL: bad size not said"; fail=1; }
expect 2 "no such interface" "$bin" -c 1 -I nosuchif0 127.0.1.2
grep -q "neither an address nor an interface" "$tmp/err" ||
	{ echo "FAIL: unknown interface not said"; cat "$tmp/err"; fail=1; }
expect 2 "mixed families" "$bin" -c 1 -I 127.0.1.1 ::1
grep -q "RDS needs both of one family" "$tmp/err" ||
	{ echo "FAIL: mixed families not refused up front"; cat "$tmp/err"; fail=1; }
expect 2 "bad transport" "$bin" --transport rdma 127.0.1.2
grep -q "bad transport 'rdma': tcp, ib or auto" "$tmp/err" ||
	{ echo "FAIL: bad transport not said"; cat "$tmp/err"; fail=1; }
# No RDMA device has a loopback address (or this build has no IB): librds
# on IB cannot start there, and says what is missing.
expect 2 "librds on IB, loopback" "$bin" --transport ib -c 1 -I 127.0.1.1 127.0.1.2
grep -Eq "RDMA device|RoCE device|libibverbs-dev" "$tmp/err" ||
	{ echo "FAIL: --transport ib failure not explained"; cat "$tmp/err"; fail=1; }
# The kernel's: no AF_RDS, no rds_rdma, or no IB on a loopback address.
expect 2 "AF_RDS on IB, loopback" "$bin" --kernel --transport ib -c 1 -I 127.0.1.1 127.0.1.2
# Names from /etc/hosts and IPv6 as inet_ntop writes it; nobody need answer.
"$bin" -c 1 -W 0.2 -I 127.0.1.1 localhost >"$tmp/out" 2>&1
grep -q "^RDSPING localhost (127.0.0.1) from 127.0.1.1 " "$tmp/out" ||
	{ echo "FAIL: localhost not resolved"; cat "$tmp/out"; fail=1; }
# -I IFACE takes the interface's address of the host's family: lo's IPv6
# one is ::1 (only the header counts here; rdsping-loopback.sh checks the
# answers of the loopback transport).
"$bin" -c 1 -W 0.2 -I lo 0:0:0:0:0:0:0:1 >"$tmp/out" 2>&1
grep -q "^RDSPING ::1 from ::1 " "$tmp/out" ||
	{ echo "FAIL: -I lo or IPv6 compression"; cat "$tmp/out"; fail=1; }

"$drive" -b 127.0.1.2 serve --timeout 60 >"$tmp/peer.out" 2>"$tmp/peer.err" &
peer=$!
for _ in $(seq 100); do grep -q ready "$tmp/peer.err" 2>/dev/null && break; sleep 0.1; done

expect 0 "five pings" "$bin" -c 5 -i 0.05 -I 127.0.1.1 127.0.1.2
n=$(grep -c '^reply from 127.0.1.2: seq=[1-5] sock=0 port=[0-9]* time=[0-9.]* ms' "$tmp/out")
[ "$n" = 5 ] || { echo "FAIL: want 5 reply lines, got $n"; cat "$tmp/out"; fail=1; }
grep -q "includes connection set-up" "$tmp/out" || { echo "FAIL: first reply not marked"; fail=1; }
grep -q "^5 sent, 5 received, 0.0% loss" "$tmp/out" || { echo "FAIL: summary"; cat "$tmp/out"; fail=1; }
grep -q "^rtt min/avg/max/mdev = " "$tmp/out" || { echo "FAIL: rtt line"; fail=1; }

# A ping may carry payload; the pong is empty all the same.
expect 0 "payload" "$bin" -c 3 -i 0.05 -s 4000 -I 127.0.1.1 127.0.1.2
grep -q "^RDSPING 127.0.1.2 from 127.0.1.1 (librds, 1 socket, 4000-byte pings)" "$tmp/out" ||
	{ echo "FAIL: -s not in the header"; cat "$tmp/out"; fail=1; }
grep -q "^3 sent, 3 received" "$tmp/out" || { echo "FAIL: -s pings unanswered"; cat "$tmp/out"; fail=1; }

# TCP forced or chosen on loopback: the header names no transport
for t in tcp auto; do
	expect 0 "--transport $t" "$bin" --transport $t -c 2 -i 0.05 -I 127.0.1.1 127.0.1.2
	grep -q "^RDSPING 127.0.1.2 from 127.0.1.1 (librds, 1 socket)" "$tmp/out" ||
		{ echo "FAIL: --transport $t header"; cat "$tmp/out"; fail=1; }
done

expect 0 "quiet" "$bin" -q -c 2 -i 0.05 -I 127.0.1.1 127.0.1.2
if grep -q "^reply" "$tmp/out"; then echo "FAIL: -q printed replies"; fail=1; fi

expect 0 "json" "$bin" --json -c 3 -i 0.05 -I 127.0.1.1 127.0.1.2
python3 - "$tmp/out" <<'PY' || fail=1
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
replies = [o for o in objs if o["type"] == "reply"]
summ = objs[-1]
assert len(replies) == 3 and [r["seq"] for r in replies] == [1, 2, 3], objs
assert all(r["rtt_ms"] > 0 and r["from"] == "127.0.1.2" for r in replies), replies
assert summ["type"] == "summary" and summ["sent"] == 3 and summ["received"] == 3, summ
assert summ["min_ms"] <= summ["avg_ms"] <= summ["max_ms"], summ
# times to the microsecond, as measured and as the text shows them
for line in open(sys.argv[1]):
    for key in ("rtt_ms", "min_ms", "avg_ms", "max_ms", "mdev_ms", "time_ms"):
        i = line.find('"%s":' % key)
        if i >= 0:
            num = line[i + len(key) + 3:].split(",")[0].split("}")[0].strip()
            assert len(num.partition(".")[2]) <= 3, (key, num)
PY

# -n 8: replies come to 8 sockets with 8 different ports.
expect 0 "eight sockets" "$bin" -n 8 -c 16 -i 0.02 -I 127.0.1.1 127.0.1.2
ports=$(sed -n 's/^reply from .* sock=\([0-9]*\) port=\([0-9]*\) .*/\1 \2/p' "$tmp/out" | sort -u | wc -l)
[ "$ports" = 8 ] || { echo "FAIL: -n 8 used $ports socket/port pairs"; cat "$tmp/out"; fail=1; }

# Nothing at 127.0.1.3: every ping lost, exit 1, bounded by -W.
start=$(date +%s)
expect 1 "no peer" "$bin" -c 3 -i 0.1 -W 0.5 -I 127.0.1.1 127.0.1.3
end=$(date +%s)
grep -q "^3 sent, 0 received, 100.0% loss" "$tmp/out" || { echo "FAIL: loss summary"; cat "$tmp/out"; fail=1; }
n=$(grep -c "^no reply from 127.0.1.3" "$tmp/out")
[ "$n" = 3 ] || { echo "FAIL: want 3 lost lines, got $n"; fail=1; }
[ $((end - start)) -le 10 ] || { echo "FAIL: took $((end - start)) s"; fail=1; }

# The peer goes away mid-run: losses are counted, no hang, replies before it count.
"$bin" -c 40 -i 0.05 -W 0.5 -I 127.0.1.1 127.0.1.2 >"$tmp/out" 2>"$tmp/err" &
ping=$!
sleep 0.8
stop_peer
wait "$ping"; got=$?
[ "$got" = 0 ] || { echo "FAIL: peer gone: exit $got"; cat "$tmp/out"; fail=1; }
grep -q "no reply from 127.0.1.2" "$tmp/out" || { echo "FAIL: peer gone: no loss"; cat "$tmp/out"; fail=1; }
grep -q "^40 sent, " "$tmp/out" || { echo "FAIL: peer gone: summary"; cat "$tmp/out"; fail=1; }

exit $fail
