#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# First README command: install dependencies, build every tool, and run the
# main job (saying what it does at each step):
# two librds endpoints talking RDS over TCP on loopback (rdsping, an echo
# exchange, rdsdump watching the wire when run as root), then rdsdump
# explaining real kernel captures (a 7.2 reconnect, where the receiver
# drops every resend, and the same on 6.1, where it accepts some twice),
# then rds-conform checking a librds peer against the RDS 3.1 spec and the
# kernel's behaviour, then libwire decoding the shipped samples.
set -eu
cd "$(dirname "$0")/.."
# DEMO_BUILD names an existing build tree and skips installing and building
# (tests/cli/demo-cleanup.sh runs the demo from the ASan tree that way).
build=${DEMO_BUILD:-}
if [ -z "$build" ]; then
	build=build/release
	echo "== installing what the build needs (scripts/deps.sh; apt-get when something is missing)"
	./scripts/deps.sh
	echo "== building every library and tool, release preset ($build; log in $build/demo-build.log)"
	cmake --preset release >/dev/null
	if ! cmake --build "$build" -j"$(nproc)" >"$build/demo-build.log" 2>&1; then
		tail -30 "$build/demo-build.log"
		echo "demo: the build failed; the whole log is $build/demo-build.log" >&2
		exit 1
	fi
fi
dump=$build/tools/rdsdump/rdsdump
ping=$build/tools/rdsping/rdsping
echo_=$build/examples/rdsu_echo
conform=$build/tools/rds-conform/rds-conform
tmp=$(mktemp -d)
pids=
# Every process the demo starts is in $pids and is ended here however the
# demo ends: a failed step (set -e), ^C or a kill. Nothing in here may
# fail: under set -e the first failure (kill of an echo server that had
# already exited) ended the loop and left rdsdump -i lo capturing for ever.
stop_all() {
	for p in $pids; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	pids=
}
cleanup() {
	stop_all
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "== librds on loopback: an echo server on 127.0.0.2, pinged and used from 127.0.0.1"
if [ "$(id -u)" = 0 ]; then
	$dump -i lo -w "$tmp/lo.pcap" >/dev/null 2>&1 &
	pids="$pids $!"
	sleep 1
fi
$echo_ server 127.0.0.2 7000 >/dev/null &
pids="$! $pids"
sleep 0.5
$ping -c 3 -i 0.2 -I 127.0.0.1 127.0.0.2
echo
$echo_ client 127.0.0.1 127.0.0.2 7000 1000
if [ "$(id -u)" = 0 ]; then
	sleep 0.5
	stop_all
	echo "-- what rdsdump saw on lo: the first records, then per connection and path"
	$dump -n -r "$tmp/lo.pcap" -c 14
	$dump -n -q -z -r "$tmp/lo.pcap" | head -20
else
	echo "(run as root to watch the exchange live with rdsdump -i lo)"
fi
echo
echo "== rds-conform: a librds peer on 127.0.9.2 (with the agent beside it) against the"
echo "   RDS 3.1 wire spec and Linux's behaviour; each case's exchange saved for rdsdump"
$conform agent --bind 127.0.9.2 --ctl 127.0.9.2:18600 2>/dev/null &
pids="$! $pids"
sleep 0.5
$conform --peer 127.0.9.2 --local 127.0.9.1 --larger 127.0.9.3 --agent 127.0.9.2:18600 \
	--pcap "$tmp/conform" || echo "(rds-conform exit $?)"
echo "-- the exchange of rds31/dup/1, as rdsdump reads it"
$dump -n -t -r "$tmp/conform/rds31_dup_1.pcap" | grep -v "tcp syn" | head -14
echo
echo "== rdsdump: Linux 7.2 and 6.1, RDS/TCP on 8 paths, connections dropped mid-stream"
for k in 7.2 6.1; do
	echo "-- $k: the first resends after a reconnect"
	$dump -n -r pcaps/captured/$k/tcp_reconnect.pcap --flags RETRANSMITTED -c 4
	echo "-- $k: per connection and path"
	$dump -n -q -z -r pcaps/captured/$k/tcp_reconnect.pcap
done
echo "== rdsdump: RDS over Soft-RoCE (CM exchange, fragments, acks)"
$dump -n -r pcaps/captured/7.2/ib_basic.pcap -c 12
echo
echo "== libwire: the shipped samples"
for f in pcaps/samples/*.hex; do
	$build/examples/wire_decode "$f" || echo "(exit $?: the sample ends in bytes a receiver must refuse)"
	echo
done
