#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# First README command: install dependencies, build, and run the main job:
# rdsdump explaining real kernel captures (a 7.2 reconnect, where the
# receiver drops every resend, and the same on 6.1, where it accepts some
# twice), then libwire decoding the shipped samples.
set -eu
cd "$(dirname "$0")/.."
./scripts/deps.sh
cmake --preset release >/dev/null
cmake --build build/release -j"$(nproc)" --target rdsdump wire_decode >/dev/null
dump=build/release/tools/rdsdump/rdsdump
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
	build/release/examples/wire_decode "$f" || echo "(exit $?: the sample ends in bytes a receiver must refuse)"
	echo
done
