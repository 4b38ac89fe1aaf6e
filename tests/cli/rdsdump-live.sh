#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rdsdump-live.sh RDSDUMP - live capture on the loopback interface: a TCP
# connection from 127.0.0.1 to 127.0.0.2 on a free port (given to rdsdump
# with --tcp-port) carries a congestion map and three messages written by
# a small Python peer; rdsdump -i lo -c 6 must show (two SYNs, the map, three messages) them and exit by
# itself. Needs capture rights: skipped (77) without them.
set -u
bin=$1
[ "$(id -u)" = 0 ] || { echo "not root: live capture skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'kill $dpid 2>/dev/null; rm -rf "$tmp"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.2",0)); print(s.getsockname()[1])')
timeout 20 "$bin" -n -i lo --tcp-port "$port" -c 6 "tcp port $port" >"$tmp/out" 2>"$tmp/err" &
dpid=$!
# the capture is open once rdsdump says so
for _ in $(seq 50); do grep -q listening "$tmp/err" && break; sleep 0.1; done
python3 - "$port" <<'PY'
import socket, struct, sys, threading, time
port = int(sys.argv[1])
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.2", port))
srv.listen(1)
def drain():
    c, _ = srv.accept()
    while c.recv(65536):
        pass
threading.Thread(target=drain, daemon=True).start()
def hdr(seq, ln, sp, dp, fl=0):
    return struct.pack(">QQIHHBB4sH", seq, 0, ln, sp, dp, fl, 0, b"\0" * 4, 0) + b"\0" * 16
s = socket.create_connection(("127.0.0.2", port), source_address=("127.0.0.1", 0))
m = bytearray(8192)
m[4000 // 8] |= 1 << (4000 % 8)
s.sendall(hdr(0, 8192, 0, 0, 1) + bytes(m))
for i in range(1, 4):
    s.sendall(hdr(i, 100, 4000, 5000) + b"x" * 100)
    time.sleep(0.05)
time.sleep(0.5)
s.close()
PY
wait $dpid
rc=$?
cat "$tmp/out"
[ $rc = 0 ] || { echo "FAIL: rdsdump exited $rc"; cat "$tmp/err"; exit 1; }
grep -q "cong seq 0 len 8192: ports 4000 congested" "$tmp/out" &&
	grep -q "data 4000 > 5000 seq 3 len 100" "$tmp/out" ||
	{ echo "FAIL: messages not shown"; exit 1; }
echo "rdsdump live: passed"
