#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rdsping-loopback.sh RDSPING - rdsping to the host itself with nothing
# else running, as `rds-ping localhost` answers on a kernel: localhost,
# 127.0.0.1 and ::1 (and, when the host has one, a global address of its
# own) each 3 of 3 answered through librds's loopback transport, exit 0.
# Nothing listens, so port 16385 of 127.0.0.1 taken (checked) does not matter.
set -u
bin=$1
. "$(dirname "$0")/clitest.sh"

ping3() {
	expect 0 "rdsping -c 3 $1" "$bin" -c 3 -i 0.05 -W 5 "$1"
	grep -q "^3 sent, 3 received, 0.0% loss" "$tmp/out" ||
		{ echo "FAIL: $1: not 3 of 3"; cat "$tmp/out" "$tmp/err"; fail=1; }
	grep -q "^RDSPING .* (librds over loopback, 1 socket)" "$tmp/out" ||
		{ echo "FAIL: $1: not over the loopback transport"; cat "$tmp/out"; fail=1; }
	[ "$(grep -c '^reply from ' "$tmp/out")" = 3 ] ||
		{ echo "FAIL: $1: not three replies"; cat "$tmp/out"; fail=1; }
}

ping3 localhost
ping3 127.0.0.1
ping3 ::1
# With port 16385 of 127.0.0.1 taken (here by a plain listener, if nothing
# holds it already: another librds process, rdsd, the kernel's rds_tcp),
# as nothing need listen for a ping to ourselves.
python3 -c '
import socket, time
s = socket.socket()
try:
    s.bind(("127.0.0.1", 16385))
    s.listen()
except OSError:
    pass
print("held", flush=True)
time.sleep(60)
' >"$tmp/holder.out" &
holder=$!
for _ in $(seq 100); do grep -q held "$tmp/holder.out" 2>/dev/null && break; sleep 0.05; done
ping3 127.0.0.1
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
# An address of the host's own that is not a loopback one, if it has any.
own=$(ip -o -4 addr show scope global 2>/dev/null | awk '{ sub("/.*", "", $4); print $4; exit }')
[ -n "$own" ] && ping3 "$own"

exit $fail
