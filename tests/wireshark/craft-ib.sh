#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# craft-ib.sh RDS_CONFORM RDSDUMP - rds-conform craft --ib captures, right
# and wrong RDS frames alike, read by tshark's own InfiniBand dissector:
# every packet an RC SEND with a valid ICRC, and rdsdump finding the same
# SENDs (tshark-ib.py --all-valid). rdsdump takes a QP as RDS by a first
# header whose h_csum is set and verifies (wire_ib_claims_qp), as an IB
# sender writes it, so each capture here has --csum auto; a bad h_csum on
# a QP so taken is in pcaps/crafted/roce-crafted.pcap and ib-native.pcap.
# Exit 77 without tshark.
set -u
conform=$1 rdsdump=$2
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
n=0
while read -r args; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	"$conform" craft --ib -w "$tmp/c$n.pcap" $args >/dev/null || { echo "craft $args failed"; exit 1; }
	chmod 644 "$tmp/c$n.pcap"
	python3 "$here/tshark-ib.py" --all-valid "$here/tshark-plain.sh" "$rdsdump" "$tmp/c$n.pcap"
	rc=$?
	[ $rc -eq 0 ] || { echo "with: craft --ib $args"; exit $rc; }
done <<'LIST'
--csum auto --payload-text hello
--payload-size 9000 --csum auto -c 2
--kind ping --csum auto --ack 7
--kind cong --cong-ports 4000,5000-5010 --csum auto
--flags ackreq,retrans --len 7 --payload-size 3 --credit 9 --csum auto
--to [fd00::3] --from [fd00::2] --no-send --payload-size 4096 --csum auto
--kind probe-ping --kver 7 --ext npaths=8 --csum auto
LIST
