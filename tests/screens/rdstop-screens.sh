#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# rdstop-screens.sh RDSTOP SRCDIR - drive rdstop's real ncurses screen in
# tmux (send-keys, capture-pane) while it replays captures from pcaps/ on
# their own clock, and compare every screen with tests/screens/*.screen.
# Deterministic: fixed size, TERM and NO_COLOR, and each replay is run to
# its end first (space refreshes at once; the end stops refreshing), so no
# wall clock moves what is on the screen. UPDATE_SCREENS=1 rewrites the
# expected screens instead; review the diff like code. Exit 77 (skipped)
# without tmux.
set -u
bin=$1 src=$2
dir=$src/tests/screens
command -v tmux >/dev/null 2>&1 || { echo "tmux not installed: skipped"; exit 77; }
sock="rdstop-screens-$$"
n=0
T=true
trap '$T kill-server 2>/dev/null' EXIT
fail=0

launch() {  # launch CAPTURE DELAY
	$T kill-server 2>/dev/null
	n=$((n + 1))
	T="tmux -L $sock-$n -f /dev/null"
	$T new-session -d -x 80 -y 24 \
		"env TERM=screen NO_COLOR=1 LC_ALL=C $bin -r $src/pcaps/$1 -d $2; sleep 60"
	$T set-option -g status off >/dev/null
}

wait_for() {  # wait_for TEXT - until the screen shows TEXT
	i=0
	until $T capture-pane -p 2>/dev/null | grep -q -- "$1"; do
		sleep 0.1
		i=$((i + 1))
		[ $i -gt 100 ] && { echo "FAIL: '$1' never shown"; fail=1; return 1; }
	done
	return 0
}

start() {  # start CAPTURE DELAY - and replay it to its end
	launch "$1" "$2"
	i=0
	until $T capture-pane -p 2>/dev/null | grep -q "end of capture"; do
		$T send-keys ' '
		sleep 0.2
		i=$((i + 1))
		[ $i -gt 100 ] && { echo "FAIL: $1 never reached its end"; fail=1; return; }
	done
}

keys() {  # keys KEY... - send, then let the screen settle
	for k in "$@"; do
		$T send-keys "$k"
	done
	sleep 0.2
}

check() {  # check NAME - the screen against NAME.screen, given a few seconds to get there
	if [ "${UPDATE_SCREENS:-0}" = 1 ]; then
		sleep 0.5
		$T capture-pane -p >"$dir/$1.screen"
		echo "updated $1.screen"
		return
	fi
	i=0
	while $T capture-pane -p >"$dir/$1.got" && ! cmp -s "$dir/$1.got" "$dir/$1.screen" &&
	      [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if ! cmp -s "$dir/$1.got" "$dir/$1.screen"; then
		diff -u "$dir/$1.screen" "$dir/$1.got"
		echo "FAIL: screen $1 differs (UPDATE_SCREENS=1 to accept)"
		fail=1
	fi
	rm -f "$dir/$1.got"
}

start captured/7.2/tcp_congestion.pcap 2
check peers
keys s
check peers-sort
keys s s s s s s
keys / 'path 2' Enter
check peers-filter
keys / Enter
keys Down Enter
check peers-detail
keys Enter Up
keys 2
check cong
i=0
while [ $i -lt 31 ]; do $T send-keys Right; i=$((i + 1)); done
keys Enter
check cong-zoom
keys m
check cong-zoom-local
keys - Tab
check counters
keys 4
check sockets
keys h
check help
keys x 1
$T resize-window -x 60 -y 20
sleep 0.4
check small
$T resize-window -x 80 -y 24
sleep 0.4
check resized
keys q

start captured/7.2/tcp_multipath.pcap 3
check multipath
keys q

# Mid-replay, paused at once: the wall clock would step again only after
# 6 s. At +6 s the larger address has congested port 5000 (cell 39 of
# 128 ports) since the start: a recent change.
launch captured/7.2/tcp_congestion.pcap 6
if wait_for "+6.000 s"; then
	keys p 2
	i=0
	while [ $i -lt 39 ]; do $T send-keys Right; i=$((i + 1)); done
	keys Down Up
	check cong-recent
	keys Enter
	check cong-recent-zoom
	keys ' '
	check cong-step
fi
keys q

[ "$fail" = 0 ] && echo "rdstop-screens: pass"
exit "$fail"
