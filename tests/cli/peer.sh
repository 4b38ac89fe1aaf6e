# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# peer.sh - sourced by the shell tests that start a peer in the background
# (tests/cli, tests/shim): $tmp, a scratch directory, and $peer, where the
# test keeps the peer's pid; stop_peer ends the peer, and at exit both go.
tmp=$(mktemp -d)
peer=
stop_peer() {
	[ -n "$peer" ] && kill "$peer" 2>/dev/null && wait "$peer" 2>/dev/null
	peer=
}
trap 'stop_peer; rm -rf "$tmp"' EXIT
