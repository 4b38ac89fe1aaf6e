#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Installs the build into a scratch prefix and asks man(1) for the page of
# every program installed in bin and sbin: each must be found inside the
# prefix and render to text that starts with its NAME section.
# usage: check-install-man.sh BUILD_DIR
set -eu
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
n=0
fail=0
for exe in "$tmp"/prefix/bin/* "$tmp"/prefix/sbin/*; do
	[ -f "$exe" ] || continue
	tool=$(basename "$exe")
	page=$(MANPATH="$tmp/prefix/share/man" man -w "$tool" 2>/dev/null) || page=""
	case $page in
	"$tmp"/prefix/share/man/man[18]/"$tool".[18]*) ;;
	*)
		echo "man -w $tool: no page in the prefix (got '$page')"
		fail=1
		continue
		;;
	esac
	if ! MANWIDTH=80 man -l "$page" 2>/dev/null | grep -q "^NAME"; then
		echo "$page does not render a NAME section"
		fail=1
	fi
	n=$((n + 1))
done
[ "$fail" -eq 0 ] || exit 1
[ "$n" -gt 0 ] || { echo "no program installed"; exit 1; }
echo "man -w finds the pages of all $n installed programs"
