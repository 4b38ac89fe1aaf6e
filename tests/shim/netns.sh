# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# netns.sh - sourced first by a shim test that runs in a network namespace
# of its own, so that nothing else on the host's loopback is in the way:
# outside one (SHIM_IN_NETNS unset) it runs the test ($0 with its
# arguments) again under unshare -n, or -rn, and skips (77) where neither
# works; inside, lo is up, RDSRUN_FORCE=1 (librds even where the kernel has
# AF_RDS), and SHIM_PRELOAD_FIRST (a sanitizer runtime) goes first in
# LD_PRELOAD.
if [ "${SHIM_IN_NETNS:-}" != 1 ]; then
	for u in "unshare -n" "unshare -rn"; do
		if $u true 2>/dev/null; then
			SHIM_IN_NETNS=1 exec $u "$0" "$@"
		fi
	done
	echo "SKIP: no network namespace (unshare -n)"; exit 77
fi
ip link set lo up || exit 77
export RDSRUN_FORCE=1
if [ -n "${SHIM_PRELOAD_FIRST:-}" ]; then
	export LD_PRELOAD=$SHIM_PRELOAD_FIRST
fi
