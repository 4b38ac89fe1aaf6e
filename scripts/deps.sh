#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Installs what the build needs on Debian 12, with apt-get; with --lab also
# what the kernel peer lab needs (the test suite). Quiet and quick when
# everything is already there.
set -eu
# lowdown renders the man pages (docs/man/md2man.py), man-db's man(1) finds
# them in the tests; file and dpkg-dev (dpkg-shlibdeps) are what CPack's
# Debian packages need; rpm (rpmbuild) and rpmlint build and check the RPM
# packages (the pkg-rpm test); ncurses draws rdstop's screen and tmux drives it in
# its screen tests; qperf runs, unmodified, through the preload shim
# (tests/shim); libibverbs-dev and librdmacm-dev build the IB transport
# (rdsu_ib, left out without them). The kernel's RDS selftest
# (tests/shim/kselftest-rds.sh) runs ip, tc, tcpdump, ping and killall.
# libmicrohttpd serves rdstop's Prometheus metrics; prometheus (promtool,
# and the server the exporter tests scrape with) and
# prometheus-node-exporter (the textfile collector) are for the tests;
# systemd's systemd-analyze verifies the packages' units (pkg-rpm,
# cli-rdstop-unit) and python3-yaml writes the alert replay of
# lab-rdstop-prom (promtool test rules).
PKGS="build-essential cmake pkg-config clang libcmocka-dev libnl-3-dev libjson-c-dev libpcap-dev liburing-dev python3
      libibverbs-dev librdmacm-dev
      lowdown man-db file dpkg-dev libncurses-dev tmux qperf rpm rpmlint
      iproute2 tcpdump iputils-ping psmisc xz-utils
      libmicrohttpd-dev prometheus prometheus-node-exporter systemd python3-yaml"
# The Wireshark plugin (plugins/wireshark) and its tests (tests/wireshark).
PKGS="$PKGS wireshark-dev tshark"
# The kernel peer lab (tests/lab): qemu boots Debian kernels with RDS.
[ "${1:-}" = "--lab" ] && PKGS="$PKGS qemu-system-x86 busybox-static kmod cpio xz-utils zstd tcpdump iproute2
      rdma-core ibverbs-utils ibverbs-providers procps"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "installing:$missing"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
