#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# demo-cleanup.sh BUILD_DIR - scripts/demo.sh must end every process it
# started when a step fails. Port 16385 of 127.0.0.2 is taken first, so the
# demo's echo server cannot start and its rdsping fails; the demo runs in a
# session of its own, and once it has exited nothing may be left in that
# session (an rdsdump -i lo would capture for ever). Needs root
# for the live capture: skipped (77) without it.
set -u
build=$(realpath "$1")
src=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" = 0 ] || { echo "not root: the demo's live capture is skipped, nothing to test"; exit 77; }
tmp=$(mktemp -d)
holder=
trap '[ -n "$holder" ] && kill $holder 2>/dev/null; rm -rf "$tmp"' EXIT
python3 -c '
import socket, sys, time
s = socket.socket()
# Earlier tests leave connections of this port in TIME_WAIT.
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.2", 16385))
s.listen()
open(sys.argv[1], "w").close()
time.sleep(120)
' "$tmp/ready" &
holder=$!
for _ in $(seq 50); do [ -e "$tmp/ready" ] && break; sleep 0.1; done
[ -e "$tmp/ready" ] || { echo "FAIL: could not take 127.0.0.2:16385 for the test"; exit 1; }
setsid sh -c 'echo $$ >"$1"; exec env DEMO_BUILD="$2" timeout 90 sh "$3"/scripts/demo.sh' \
	sh "$tmp/sid" "$build" "$src" >"$tmp/out" 2>&1
rc=$?
sid=$(cat "$tmp/sid")
sleep 0.5
left=$(ps -o pid=,args= -s "$sid" 2>/dev/null)
tail -5 "$tmp/out"
[ "$rc" != 0 ] || { echo "FAIL: the demo succeeded although its port was taken"; exit 1; }
[ "$rc" != 124 ] || { echo "FAIL: the demo hung"; exit 1; }
if [ -n "$left" ]; then
	echo "FAIL: the demo (exit $rc) left processes behind:"
	echo "$left"
	for p in $(ps -o pid= -s "$sid"); do kill "$p" 2>/dev/null; done
	exit 1
fi
echo "demo cleanup: exit $rc, nothing left behind"
