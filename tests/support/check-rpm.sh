#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The RPM packages beside the Debian ones: builds the RPMs of this build
# directory's spec from a tarball of the tree (packaging/rpm/build-rpms.sh,
# rpmbuild), lints them and the spec (rpmlint with packaging/rpm's
# configuration: nothing may be reported), builds the .debs (cpack -G DEB),
# checks that each RPM holds the files of its .deb (names and paths mapped:
# libwire0 is libwire, -dev is -devel, the build's libdir is lib64, the
# Debian copyright file is the two licence texts), installs every RPM into
# one scratch root (rpm --root) and every .deb into another (dpkg -x),
# finds each systemd unit of packaging's list (RDS_SYSTEMD_UNITS) in both
# and has systemd-analyze verify each one as installed there.
# usage: check-rpm.sh BUILD_DIR SOURCE_DIR
#
# It builds the whole tree once more (RelWithDebInfo, -j2, ccache when
# CMAKE_C_COMPILER_LAUNCHER says so), so it runs only where asked for, as
# pkg-deb does: with RDS_PKG_TEST=1 (scripts/test.sh sets it). It writes
# nothing outside a temporary directory.
set -eu
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
if [ "${RDS_PKG_TEST:-}" != 1 ]; then
	echo "skipped: builds the tree again with rpmbuild; runs only with RDS_PKG_TEST=1"
	exit 77
fi
for t in rpmbuild rpmlint rpm dpkg-deb systemd-analyze; do
	command -v $t >/dev/null || { echo "FAIL: no $t (scripts/deps.sh installs it)"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# 1. rpmbuild, from the tarball of the tree; ccache's paths relative to the
# build's own top directory, so that a second run hits
export CCACHE_BASEDIR="$tmp"
"$src"/packaging/rpm/build-rpms.sh "$build" "$tmp/rpm" --nodeps >"$tmp/rpmbuild.log" 2>&1 ||
	{ tail -60 "$tmp/rpmbuild.log"; echo "FAIL: rpmbuild"; exit 1; }
rpms=$(ls "$tmp"/rpm/RPMS/*/*.rpm)
echo "rpmbuild: $(echo $rpms | wc -w) packages"

# 2. rpmlint: nothing but what packaging/rpm/rpmlint.toml filters, with its reason
rpmlint -c "$src/packaging/rpm/rpmlint.toml" $rpms "$tmp/rpm/SPECS/rds-toolkit.spec" \
	>"$tmp/rpmlint.log" 2>&1 || true
if grep -qE ': [EW]: ' "$tmp/rpmlint.log" ||
	! grep -qE ' 0 errors, 0 warnings' "$tmp/rpmlint.log"; then
	cat "$tmp/rpmlint.log"; echo "FAIL: rpmlint"; fail=1
else
	tail -1 "$tmp/rpmlint.log"
fi

# 3. the .debs of this build directory
(cd "$build" && cpack -G DEB -B "$tmp/deb" >"$tmp/cpack.log" 2>&1) ||
	{ cat "$tmp/cpack.log"; echo "FAIL: cpack"; exit 1; }
debs=$(ls "$tmp"/deb/*.deb)

# 4. the same packages, the same files
libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:[A-Z]*=//p' "$build/CMakeCache.txt")
# CMake's export files are named after the build type (this build's, the
# spec's RelWithDebInfo)
cfg='s|\(/cmake/rds/rds[A-Za-z]*Targets\)-[a-z]*\.cmake$|\1-CONFIG.cmake|'
rpmname() { echo "$1" | sed 's/^\(libwire\|librds\|librds-ib\)0$/\1/; s/-dev$/-devel/'; }
for d in $debs; do
	deb=$(dpkg-deb -f "$d" Package)
	name=$(rpmname "$deb")
	echo "$name" >>"$tmp/names.deb"
	r=$(ls "$tmp"/rpm/RPMS/*/"$name"-[0-9]*.rpm 2>/dev/null) ||
		{ echo "FAIL: .deb $deb has no RPM $name"; fail=1; continue; }
	dpkg-deb --fsys-tarfile "$d" | tar -tv | grep -v '^d' |
		sed 's|.* \./|/|; s| -> .*||' |
		sed "s|^/usr/share/doc/$deb/copyright\$|LICENCE|; $cfg" | sort -u >"$tmp/$name.deb"
	rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$r" | grep -v '^d' |
		sed 's|^[^ ]* ||' |
		sed "s|^/usr/lib64/|/usr/$libdir/|; s|^/usr/share/licenses/$name/.*|LICENCE|; $cfg" |
		sort -u >"$tmp/$name.rpm"
	if ! diff -u "$tmp/$name.deb" "$tmp/$name.rpm" >"$tmp/$name.diff"; then
		echo "FAIL: $deb (.deb, -) and $name (RPM, +) differ:"; cat "$tmp/$name.diff"; fail=1
	fi
done
for r in $rpms; do rpm -qp --qf '%{NAME}\n' "$r"; done | sort >"$tmp/names.rpm"
sort -o "$tmp/names.deb" "$tmp/names.deb"
diff -u "$tmp/names.deb" "$tmp/names.rpm" ||
	{ echo "FAIL: the RPMs (+) are not the .debs (-)"; fail=1; }
echo "file lists: $(wc -l <"$tmp/names.rpm") packages compared"

# 5. both installed into scratch roots, with their units
mkdir -p "$tmp/rroot" "$tmp/droot"
rpm --root "$tmp/rroot" --dbpath "$tmp/rroot/var/lib/rpm" -i --nodeps --noscripts \
	$rpms >"$tmp/rpm-i.log" 2>&1 || { cat "$tmp/rpm-i.log"; echo "FAIL: rpm -i"; exit 1; }
rpm --root "$tmp/rroot" --dbpath "$tmp/rroot/var/lib/rpm" -qa | sort >"$tmp/installed"
[ "$(wc -l <"$tmp/installed")" -eq "$(echo $rpms | wc -w)" ] ||
	{ cat "$tmp/installed"; echo "FAIL: rpm -qa in the scratch root"; fail=1; }
for d in $debs; do dpkg-deb -x "$d" "$tmp/droot"; done
units=$(sed -n 's/^RDS_SYSTEMD_UNITS:INTERNAL=//p' "$build/CMakeCache.txt")
[ -n "$(echo "$units" | grep -o 'rdsd\.service' || true)" ] ||
	{ echo "FAIL: no rdsd.service in RDS_SYSTEMD_UNITS ($units)"; fail=1; }
for cu in $(echo "$units" | tr ';' ' '); do
	comp=${cu%%:*}
	unit=${cu#*:}
	rname=$(rpmname "$comp")
	for root in rroot droot; do
		f=$tmp/$root/usr/lib/systemd/system/$unit
		[ -f "$f" ] || { echo "FAIL: $unit not in the $root scratch root"; fail=1; continue; }
		# ExecStart's program must be in the scratch root too
		exe=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$f")
		[ -x "$tmp/$root$exe" ] || { echo "FAIL: $unit: $exe not in $root"; fail=1; }
		# verified as installed, its program the scratch root's
		mkdir -p "$tmp/verify-$root"
		sed "s|^ExecStart=$exe|ExecStart=$tmp/$root$exe|" "$f" >"$tmp/verify-$root/$unit"
		if ! out=$(systemd-analyze verify --man=no "$tmp/verify-$root/$unit" 2>&1) || [ -n "$out" ]; then
			echo "FAIL: systemd-analyze verify $unit ($root):"; echo "$out"; fail=1
		fi
	done
	rpm --root "$tmp/rroot" --dbpath "$tmp/rroot/var/lib/rpm" -qf "/usr/lib/systemd/system/$unit" |
		grep -q "^$rname-" || { echo "FAIL: $unit is not $rname's"; fail=1; }
	echo "unit $unit: in $rname (RPM) and $comp (.deb), verified"
done
[ "$fail" -eq 0 ]
echo "RPMs built, lint clean, same files as the .debs, installed with their units"
