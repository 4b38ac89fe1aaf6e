#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rdstop-librds.sh RDSTOP RDSPERF RDSDRIVE - rdstop's librds source on
# loopback (issue 19):
#   1. rdsperf's server and client publish (they turn the monitor on):
#      --list names both; rdstop -b --json --librds on the server shows
#      the connection up with its paths, a socket, and in the second
#      snapshot recv_delivered and the connection's receive rate above 0;
#   2. a receiver that stops reading (rdsdrive sink --stall-after, which
#      publishes through RDSU_MONITOR=1): its port shows congested in its
#      own (local) map, and in the sender's copy of the peer's map, exactly;
#   3. the server exits while watched: batch rdstop says so and exits 1;
#   4. a garbled and a hostile publisher: refused with exit 2, no crash.
# Addresses 127.19.0.x, so parallel loopback tests do not collide.
set -u
top=$1 perf=$2 drive=$3
dir=$(mktemp -d)
export RDSU_MONITOR_DIR=$dir/mon
pids=
fail=0
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
bad() {
	echo "FAIL: $*"
	fail=1
}

if ! ip addr show lo >/dev/null 2>&1; then
	echo "no loopback"; exit 77
fi
port=$((20000 + $$ % 20000))

# 1. rdsperf
"$perf" -s -B 127.19.0.1 -p "$port" --one-off >"$dir/srv.out" 2>&1 &
srv=$!
pids="$pids $srv"
sleep 0.5
"$perf" -c 127.19.0.1 -B 127.19.0.2 -p "$port" -t 4 -l 8192 >"$dir/cli.out" 2>&1 &
cli=$!
pids="$pids $cli"
sleep 1.5
"$top" --list >"$dir/list" 2>&1 || bad "--list exit $?"
for p in $srv $cli; do
	grep -q "^$p  *rdsperf " "$dir/list" || bad "--list does not name rdsperf $p: $(cat "$dir/list")"
done
"$top" -b --json -n 2 -d 1 --librds "$srv" >"$dir/perf.json" 2>"$dir/perf.err" ||
	bad "rdstop --librds $srv exit $?: $(cat "$dir/perf.err")"
python3 - "$dir/perf.json" <<'PY' || fail=1
import json, sys
snaps = [json.loads(l) for l in open(sys.argv[1])]
ok = True
def bad(m):
    global ok
    print("FAIL:", m); ok = False
if len(snaps) != 2:
    bad("%d snapshots" % len(snaps))
for s in snaps:
    if s["source"] != "librds": bad("source %r" % s["source"])
    c = [c for c in s["connections"] if c["local"] == "127.19.0.1" and c["peer"] == "127.19.0.2"]
    if len(c) != 1 or c[0]["state"] != "connected" or c[0]["transport"] != "tcp":
        bad("connection 127.19.0.1 -> 127.19.0.2 not up: %r" % s["connections"]); continue
    if not c[0]["path"] or c[0]["path"][0].get("state") != "up":
        bad("no path up: %r" % c[0]["path"])
    if c[0]["peer_congested"] is None or c[0]["local_congested"] is None:
        bad("a librds connection's maps are known")
    if not s["sockets"]: bad("no socket")
    if s["local_congested"] is None: bad("no local node map")
ctr = {c["name"]: c for c in snaps[-1]["counters"]}
if not ctr.get("recv_delivered", {}).get("value"): bad("recv_delivered 0")
if not (ctr.get("recv_delivered", {}).get("per_sec") or 0) > 0: bad("recv_delivered rate 0")
c = [c for c in snaps[-1]["connections"] if c["peer"] == "127.19.0.2"]
if c and not (c[0]["rx_msgs_per_sec"] or 0) > 0: bad("no receive rate: %r" % c[0])
sys.exit(0 if ok else 1)
PY

wait "$cli" "$srv" 2>/dev/null

# 3. a server exits while watched: a fresh one-off server, which
# publishes once its client's test starts; rdstop attaches then, with the
# whole test still to run (the first server could be gone before rdstop
# attached on a loaded machine)
"$perf" -s -B 127.19.0.1 -p $((port + 1)) --one-off >"$dir/srv2.out" 2>&1 &
srv2=$!
pids="$pids $srv2"
sleep 0.5
"$perf" -c 127.19.0.1 -B 127.19.0.2 -p $((port + 1)) -t 4 -l 8192 >"$dir/cli2.out" 2>&1 &
cli2=$!
pids="$pids $cli2"
for i in $(seq 1 100); do [ -S "$RDSU_MONITOR_DIR/$srv2.sock" ] && break; sleep 0.05; done
"$top" -b -d 0.3 --librds "$srv2" >/dev/null 2>"$dir/gone.err"
rc=$?
[ "$rc" = 1 ] || bad "rdstop on an exiting process: exit $rc, want 1"
grep -q "is gone: its monitor socket closed" "$dir/gone.err" ||
	bad "no gone message: $(cat "$dir/gone.err")"
wait "$cli2" "$srv2" 2>/dev/null

# 2. congestion: a sink that stops reading after one message
RDSU_MONITOR=1 "$drive" -b 127.19.0.3 sink --port 4000 --expect 40 --stall-after 1 --stall 4 \
	--rcvbuf 65536 --sizes 16K --timeout 30 >"$dir/sink.out" 2>&1 &
sink=$!
pids="$pids $sink"
sleep 0.5
RDSU_MONITOR=1 "$drive" -b 127.19.0.4 source --to 127.19.0.3 --port 4000 --count 40 \
	--sizes 16K --timeout 30 --linger 2 >"$dir/src.out" 2>&1 &
src=$!
pids="$pids $src"
seen_local=0 seen_peer=0
for i in $(seq 1 40); do
	sleep 0.2
	"$top" -b --json -n 1 --librds "$sink" >"$dir/sink.json" 2>/dev/null &&
		python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); sys.exit(0 if "4000" in (s["local_congested_ports"] or []) and any(k["bound_port"]==4000 and k["congested"] for k in s["sockets"]) else 1)' \
			"$dir/sink.json" && seen_local=1
	"$top" -b --json -n 1 --librds "$src" >"$dir/src.json" 2>/dev/null &&
		python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); sys.exit(0 if any(c["peer"]=="127.19.0.3" and "4000" in (c["peer_congested_ports"] or []) for c in s["connections"]) else 1)' \
			"$dir/src.json" && seen_peer=1
	[ $seen_local = 1 ] && [ $seen_peer = 1 ] && break
done
[ $seen_local = 1 ] || bad "the sink's own map never showed port 4000 congested"
[ $seen_peer = 1 ] || bad "the source's copy of the sink's map never showed port 4000 congested"
"$top" -b -n 1 --librds "$sink" >"$dir/sink.txt" 2>&1
grep -q "^LOCAL CONGESTION MAP" "$dir/sink.txt" || bad "no LOCAL CONGESTION MAP section"
wait "$sink" || bad "sink exit $?: $(cat "$dir/sink.out")"
wait "$src" || bad "source exit $?: $(cat "$dir/src.out")"

# 4. publishers that do not speak the protocol
python3 - "$dir" <<'PY' &
import os, socket, struct, sys, threading
d = sys.argv[1]
def serve(name, answer):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(os.path.join(d, name)); s.listen(4)
    def loop():
        while True:
            c, _ = s.accept()
            c.recv(12)
            c.sendall(answer)
            c.close()
    threading.Thread(target=loop, daemon=True).start()
rec = lambda t, v: struct.pack(">HI", t, len(v)) + v
body = rec(3, b"\x00" * 10)  # a connection record cut short
serve("garbled.sock", b"RDSM" + struct.pack(">BBHI", 1, 2, 0, len(body)) + body)
serve("huge.sock", b"RDSM" + struct.pack(">BBHI", 1, 2, 0, 0xffffffff))
serve("noise.sock", b"GET / HTTP/1.0\r\n\r\n")
body = rec(2, b"\x00" * 41)  # no process record
serve("noproc.sock", b"RDSM" + struct.pack(">BBHI", 1, 2, 0, len(body)) + body)
open(os.path.join(d, "ready"), "w").close()
threading.Event().wait(20)
PY
pids="$pids $!"
for i in $(seq 1 50); do [ -e "$dir/ready" ] && break; sleep 0.1; done
for s in garbled huge noise noproc; do
	"$top" -b -n 1 --librds "$dir/$s.sock" >/dev/null 2>"$dir/$s.err"
	rc=$?
	[ "$rc" = 2 ] || bad "$s publisher: exit $rc, want 2 ($(cat "$dir/$s.err"))"
	grep -q "^rdstop: " "$dir/$s.err" || bad "$s publisher: no message"
done
grep -q "does not decode" "$dir/garbled.err" || bad "garbled: $(cat "$dir/garbled.err")"
grep -q "not a librds monitor snapshot" "$dir/huge.err" || bad "huge: $(cat "$dir/huge.err")"
"$top" -b -n 1 --librds 999999999 >/dev/null 2>"$dir/none.err"
[ $? = 2 ] && grep -q "no such monitor socket" "$dir/none.err" || bad "absent pid: $(cat "$dir/none.err")"

[ $fail = 0 ] && echo "rdstop-librds: ok"
exit $fail
