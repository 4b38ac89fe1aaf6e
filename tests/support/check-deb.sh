#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Builds the Debian packages of this build directory (cpack -G DEB),
# installs them all with dpkg, uses them from their installed paths
# (rdsping --version, man -w for every tool, a program built against the
# installed librds and libwire), then purges them and checks that nothing
# of them is left.
# usage: check-deb.sh BUILD_DIR [CFLAGS]
#
# dpkg installs into /usr and replaces whatever packages of these names a
# machine has, so the test runs only where that was asked for: as root and
# with RDS_PKG_TEST=1 (scripts/test.sh sets it; CI runs as root on a
# throw-away machine). Anywhere else it is skipped (77). Packages of these
# names that are already installed are a failure, not something to
# replace: they may be a developer's own, or left by a broken run.
set -eu
build=$1
cflags=${2:-}
if [ "${RDS_PKG_TEST:-}" != 1 ] || [ "$(id -u)" -ne 0 ]; then
	echo "skipped: installs .deb packages into /usr with dpkg; runs only as root with RDS_PKG_TEST=1"
	exit 77
fi
tmp=$(mktemp -d)
pkgs=""
cleanup() {
	[ -n "$pkgs" ] && dpkg --purge $pkgs >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT
(cd "$build" && cpack -G DEB -B "$tmp/deb" >"$tmp/cpack.log" 2>&1) ||
	{ cat "$tmp/cpack.log"; exit 1; }
debs=$(ls "$tmp"/deb/*.deb)
# rdsd's systemd unit ships with rdsrun, which ships rdsd
for d in "$tmp"/deb/rdsrun_*.deb; do
	[ -e "$d" ] || continue
	dpkg-deb -c "$d" | grep -q '/lib/systemd/system/rdsd\.service$' ||
		{ echo "FAIL: $d has no lib/systemd/system/rdsd.service"; exit 1; }
done
names=""
for d in $debs; do
	names="$names $(dpkg-deb -f "$d" Package)"
done
# dpkg's state of a package: empty or "un" when it is not there at all.
known() {
	st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null || true)
	case $st in "" | un*) return 1 ;; esac
}
for p in $names; do
	if known "$p"; then
		echo "$p is installed already: remove it first (dpkg --purge $p)"
		exit 1
	fi
done
want="libwire0 libwire-dev librds0 librds-dev rdsping rdsdump"
# librds_ib where the build has the IB transport
[ -f "$build/librds/librds-ib.pc" ] && want="$want librds-ib0 librds-ib-dev"
for p in $want; do
	echo "$names" | grep -qw -- "$p" || { echo "no package $p"; exit 1; }
done
# Every path the packages bring that does not exist yet must be gone after
# the purge; a file that exists already would be overwritten.
for d in $debs; do
	dpkg-deb --fsys-tarfile "$d" | tar -t | sed 's|^\./|/|; s|/$||' | grep -v '^$'
done | sort -u | while read -r f; do
	if [ -d "$f" ] && [ ! -L "$f" ]; then
		continue
	elif [ -e "$f" ] || [ -L "$f" ]; then
		echo "exists before install: $f" >&2
		exit 1
	fi
	echo "$f"
done >"$tmp/new"
pkgs=$names
dpkg -i $debs >"$tmp/dpkg.log" 2>&1 || { cat "$tmp/dpkg.log"; exit 1; }

rdsping=$(dpkg -L rdsping | grep '/bin/rdsping$')
"$rdsping" --version
for p in $names; do
	for exe in $(dpkg -L "$p" | grep -E '/s?bin/[^/]+$'); do
		tool=$(basename "$exe")
		page=$(man -w "$tool") || { echo "man -w $tool: no page"; exit 1; }
		dpkg -S "$page" | grep -q "^$p:" ||
			{ echo "man -w $tool: $page is not $p's"; exit 1; }
	done
done
# rdstop's exporter brings its alerting rules, Grafana dashboard and unit
for f in share/rdstop/monitoring/afrds.rules.yml share/rdstop/monitoring/afrds-dashboard.json \
	lib/systemd/system/rdstop-exporter.service; do
	dpkg -L rdstop | grep -q "/$f$" || { echo "rdstop's package lacks $f"; exit 1; }
done

cat >"$tmp/use.c" <<'C'
#include <rds/rdsu.h>
#include <wire/wire.h>
#include <stdio.h>
int main(void)
{
	printf("libwire %s: %s\n", wire_version(), rdsu_strerror(RDSU_ERR_INVAL));
	return 0;
}
C
cc $cflags "$tmp/use.c" -o "$tmp/use" $(pkg-config --cflags --libs librds libwire)
"$tmp/use"
for l in librds libwire; do
	got=$(ldd "$tmp/use" | awk -v l="$l.so.0" '$1 == l { print $3 }')
	want=$(dpkg -L "${l}0" | grep "/$l.so.0\$")
	[ -n "$got" ] && [ "$(readlink -f "$got")" = "$(readlink -f "$want")" ] ||
		{ echo "the program did not load the installed $l ($got)"; exit 1; }
done

# librds0 must not need verbs; librds-ib0 brings them
if dpkg-deb -f "$tmp"/deb/librds0_*.deb Depends | grep -q ibverbs; then
	echo "librds0 depends on libibverbs"; exit 1
fi
if echo "$names" | grep -qw librds-ib0; then
	cat >"$tmp/use_ib.c" <<'C'
#include <rds/rdsu_ib.h>
#include <stdio.h>
int main(void)
{
	struct rdsu_ib_cfg ib;

	rdsu_ib_cfg_default(&ib);
	printf("librds_ib: send ring %u\n", ib.send_ring);
	return ib.send_ring != RDSU_IB_SEND_RING_DEFAULT;
}
C
	cc $cflags "$tmp/use_ib.c" -o "$tmp/use_ib" $(pkg-config --cflags --libs librds-ib libwire)
	"$tmp/use_ib"
fi

dpkg --purge $names >"$tmp/dpkg.log" 2>&1 || { cat "$tmp/dpkg.log"; exit 1; }
pkgs=""
left=0
for p in $names; do
	if known "$p"; then
		echo "$p still known to dpkg after purge"
		left=1
	fi
done
while read -r f; do
	if [ -e "$f" ] || [ -L "$f" ]; then
		echo "left after purge: $f"
		left=1
	fi
done <"$tmp/new"
[ "$left" -eq 0 ]
echo "$(echo $names | wc -w) packages installed, used and purged"
