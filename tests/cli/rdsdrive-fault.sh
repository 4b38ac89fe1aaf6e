#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rdsdrive-fault.sh RDSDRIVE RDSPING DOC - the faulty-peer mode from
# outside: --fault list names every defect (and is the list in DOC,
# docs/librds.md), bad uses exit 2, and a librds peer on
# loopback (127.0.1.4) run with --fault pong-payload answers rdsping with
# pongs that carry bytes, which rdsping does not take for replies (it does
# when the same peer runs without the fault).
set -u
drive=$1 ping=$2 doc=$3
. "$(dirname "$0")/peer.sh"
. "$(dirname "$0")/clitest.sh"

expect 0 "--fault list" "$drive" --fault list
for f in seq-zero pong-wrong-port no-map short-map dup-deliver probe-no-npaths \
	accept-larger huge-hlen-crash; do
	grep -q "^$f  *[a-z]" "$tmp/out" || { echo "FAIL: list lacks $f"; fail=1; }
done
n=$(wc -l <"$tmp/out")
[ "$n" -ge 10 ] || { echo "FAIL: only $n faults listed"; fail=1; }
# the documented list: the fenced block after the marker
awk '/^<!-- rdsdrive --fault list -->$/ { m = 1; next }
     m == 1 && /^```$/ { m = 2; next }
     m == 2 && /^```$/ { exit }
     m == 2' "$doc" >"$tmp/doc"
cmp -s "$tmp/out" "$tmp/doc" || {
	echo "FAIL: the list in $doc is stale: paste \`rdsdrive --fault list\` there"
	diff "$tmp/doc" "$tmp/out"; fail=1
}
expect 2 "unknown fault" "$drive" -b 127.0.1.4 --fault no-such-fault serve
grep -q "unknown --fault no-such-fault" "$tmp/err" || { echo "FAIL: bad name not said"; fail=1; }
expect 2 "fault with --kernel" "$drive" --kernel -b 127.0.1.4 --fault seq-zero serve

start_peer() {  # start_peer [--fault NAME]...
	"$drive" -b 127.0.1.4 "$@" serve --timeout 60 >"$tmp/peer.out" 2>"$tmp/peer.err" &
	peer=$!
	for _ in $(seq 100); do grep -q ready "$tmp/peer.err" 2>/dev/null && break; sleep 0.1; done
}

start_peer
expect 0 "correct peer answers" "$ping" -c 2 -i 0.05 -W 1 -I 127.0.1.3 127.0.1.4
grep -q "^2 sent, 2 received" "$tmp/out" || { echo "FAIL: correct peer"; cat "$tmp/out"; fail=1; }
stop_peer

start_peer --fault pong-payload --fault seq-zero
expect 1 "faulty peer's pongs are not replies" "$ping" -c 2 -i 0.05 -W 1 -I 127.0.1.3 127.0.1.4
grep -q "^2 sent, 0 received" "$tmp/out" || { echo "FAIL: faulty peer"; cat "$tmp/out"; fail=1; }
stop_peer
grep -q '"faults":\["seq-zero","pong-payload"\]' "$tmp/peer.out" ||
	{ echo "FAIL: faults not in the JSON"; cat "$tmp/peer.out"; fail=1; }

exit $fail
