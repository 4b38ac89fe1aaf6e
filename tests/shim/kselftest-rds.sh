#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# kselftest-rds.sh RDSRUN [LOSS CORRUPT DUPLICATE] - the Linux kernel's own
# RDS selftest (tools/testing/selftests/net/rds/test.py of Debian's
# linux-source-6.12) on librds through rdsrun, through rdsd and per
# process (KST_MODE below), on a host without the RDS module. Skips (77) when not root, without namespaces, or when the
# package cannot be fetched.
#
# The selftest is taken at test time and cached outside the tree, as the
# lab caches its kernels ($RDS_LAB_CACHE, default ~/.cache/rds-lab). What
# is changed, in a copy made for each run, and why (docs/shim.md):
#   1. test.py's two writes of net.rds.tcp.rds_tcp_{rcv,snd}buf become
#      'pass': those sysctls belong to the rds_tcp module, absent here
#      (they reset the kernel's RDS/TCP connections; librds has no
#      run-time knob for that).
#   2. test.py is run directly, not through run.sh, whose checks are of a
#      kernel build tree (.config with CONFIG_RDS_TCP=y, gcov data) and
#      whose strace of the run adds nothing here.
#   3. Where the kernel has no netem qdisc and loss, corruption and
#      duplication are all 0% (run.sh's defaults, where netem does
#      nothing), the tc command adding it succeeds without it; with any
#      other setting the test is skipped there.
#   4. Environment, not the test: a private mount, PID and network
#      namespace (test.py adds namespaces and veths without removing them,
#      and kills every tcpdump it can see), and /usr/sbin/tcpdump where
#      Debian 12 has /usr/bin/tcpdump.
# KST_FETCH_ONLY=1: fetch and cache the selftest, then exit (ctest's
# shim-kselftest-fetch, the fixture of both tests; the lab's guests see the
# cache read-only).
# KST_MODE: the modes to run, each in namespaces of its own: "rdsd" (the
# default; RDSRUN_DAEMON=1: each namespace's sockets are rdsd's, started by
# the shim in that namespace; test.py makes its sockets in forked children
# and takes them over SCM_RIGHTS), "pp" (per process: RDSRUN_DAEMON unset
# and no rdsd running; the child's socket moves to an rdsd the shim starts
# in its namespace when it is sent over SCM_RIGHTS), or both ("rdsd pp").
set -u
run=$(realpath "$1")
loss=${2:-0} corrupt=${3:-0} dup=${4:-0}
PKG=linux-source-6.12
ST=tools/testing/selftests/net/rds

skip() { echo "SKIP: $*"; exit 77; }

if [ "${KST_INNER:-}" != 1 ]; then
	[ "$(id -u)" = 0 ] || skip "needs root (network namespaces, netem, tcpdump)"
	for t in ip tc python3 killall ping; do
		command -v $t >/dev/null || skip "no $t"
	done
	command -v tcpdump >/dev/null || [ -x /usr/sbin/tcpdump ] || skip "no tcpdump"
	cache=${RDS_LAB_CACHE:-$HOME/.cache/rds-lab}/selftest-$PKG
	# Only the selftest and what it imports: net/lib/py and ynl.
	unpack() {
		dpkg-deb --fsys-tarfile "$2" |
			tar -xO ./usr/src/$PKG.tar.xz | xz -dc |
			tar -x -C "$1" --wildcards "$PKG/$ST/*" \
				"$PKG/tools/testing/selftests/net/lib/py/*" "$PKG/tools/net/ynl/*"
	}
	. "$(dirname "$0")/debfetch.sh"
	deb_fetch "$cache" $PKG unpack
	[ "${KST_FETCH_ONLY:-}" != 1 ] || exit 0
	unshare -mnpf --mount-proc true 2>/dev/null || skip "no private namespaces (unshare -mnpf)"
	# One run a mode, each in namespaces of its own.
	case ${KST_MODE:-rdsd} in
	*" "*) ;;
	*) KST_INNER=1 KST_CACHE=$cache exec unshare -mnpf --mount-proc "$0" "$@" ;;
	esac
	rc=0
	for m in $KST_MODE; do
		KST_INNER=1 KST_CACHE=$cache KST_MODE=$m unshare -mnpf --mount-proc "$0" "$@"
		r=$?
		case $r in
		0) ;;
		77) [ $rc != 0 ] || rc=77 ;;
		*) echo "FAIL: mode $m"; rc=1 ;;
		esac
	done
	exit $rc
fi

# In our own mount, PID and network namespaces.
set -e
mount --make-rprivate /
mkdir -p /run/netns
mount -t tmpfs kst-netns /run/netns
ip link set lo up
extra=$(mktemp -d)
[ -x /usr/sbin/tcpdump ] || ln -s "$(command -v tcpdump)" "$extra/tcpdump"
if ! tc qdisc add dev lo root netem loss 0% 2>/dev/null; then
	[ "$loss$corrupt$dup" = 000 ] ||
		{ echo "SKIP: this kernel has no netem qdisc (sch_netem)"; exit 77; }
	# Change 4: at 0% loss, corruption and duplication (run.sh's
	# defaults) netem changes nothing; a kernel without sch_netem fails
	# to add it, so its tc is told to succeed at that one command.
	real_tc=$(command -v tc)
	printf '#!/bin/sh\ncase "$*" in *" root netem "*"corrupt 0%% loss 0%% duplicate "*"0%%") exit 0;; esac\nexec %s "$@"\n' \
		"$real_tc" >"$extra/tc"
	chmod +x "$extra/tc"
	echo "no netem qdisc here: its 0% settings are not applied"
else
	tc qdisc del dev lo root
	netem=1
fi
if [ -n "$(ls "$extra")" ]; then
	mount -t overlay kst-sbin -o "lowerdir=$extra:/usr/sbin" /usr/sbin
fi
work=$(mktemp -d)
cp -r "$KST_CACHE/linux-source-6.12" "$work/"
dir=$work/linux-source-6.12/$ST
# Change 1: the rds_tcp module's sysctls.
sed -i 's/^\( *\)ip(.*sysctl net\.rds\.tcp\.rds_tcp_.*$/\1pass/' "$dir/test.py"
if grep -q 'net\.rds' "$dir/test.py"; then
	echo "FAIL: test.py still writes an RDS sysctl"; exit 1
fi
set +e
mode=${KST_MODE:-rdsd}
case $mode in
rdsd)
	echo "kernel selftest $ST/test.py from $PKG, through rdsrun (rdsd per namespace);"
	export RDSRUN_DAEMON=1 ;;
pp)
	# per process, no rdsd running: nothing of the test changes
	echo "kernel selftest $ST/test.py from $PKG, through rdsrun per process (no rdsd running);"
	unset RDSRUN_DAEMON ;;
*)
	echo "FAIL: KST_MODE=$mode (rdsd or pp)"; exit 1 ;;
esac
echo "changed: the rds_tcp sysctl writes removed; run without run.sh"
export RDSRUN_FORCE=1
if [ -n "${SHIM_PRELOAD_FIRST:-}" ]; then
	export LD_PRELOAD=$SHIM_PRELOAD_FIRST
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
fi
cd "$dir"
# test.py's own alarm: run.sh's 400 s unless KST_TIMEOUT says otherwise
# (an emulated guest, docs/shim.md).
t=${KST_TIMEOUT:-400}
timeout $((t + 200)) "$run" python3 test.py --timeout "$t" -d "$work" -l "$loss" -c "$corrupt" -u "$dup" \
	>"$work/out" 2>&1
rc=$?
# What netem did: test.py leaves its namespaces behind.
if [ -n "${netem:-}" ]; then
	for ns in net0 net1; do
		echo "$ns: $(ip netns exec $ns tc -s qdisc show dev veth${ns#net} 2>&1 | tr -s ' \n' ' ')"
	done
fi
grep -v '^sending\|^receiving' "$work/out" | tail -20
echo "($(grep -c '^sending' "$work/out") send rounds)"
[ $rc = 0 ] && grep -q '^Success' "$work/out" || { echo "FAIL: test.py exit $rc"; exit 1; }
echo "ok"
